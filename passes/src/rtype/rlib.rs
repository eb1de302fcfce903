//! The rlib functions whose lowering no rule can state, because a rule
//! names one argument type: `compute_identity_hash` of an instance of any
//! class (the others are in `rules/rtype/rlib.rules`).

use super::GraphTyper;
use rpy_ir::graph::{Arg, Constant, SpaceOperation};
use rpy_ir::lltype::{self, LowLevelType};
use rpy_ir::opcode::Opcode;

impl GraphTyper<'_, '_, '_> {
    /// `compute_identity_hash(x)` of an instance (or, in helper code, of a
    /// pointer to one) as the runtime's `rpy_gc_identityhash`; `false`
    /// when `op` is not that call.
    pub(super) fn lower_identity_hash(&mut self, op: &SpaceOperation) -> Result<bool, String> {
        let [callee, x] = &op.args[..] else {
            return Ok(false);
        };
        if op.opname != Opcode::SimpleCall
            || self.builtin_of(callee).as_deref() != Some("compute_identity_hash")
        {
            return Ok(false);
        }
        let is_instance = match self.type_of(x) {
            LowLevelType::Ptr(name) => super::repr::is_instance_struct(&name),
            _ => false,
        };
        if !is_instance {
            return Err(format!(
                "compute_identity_hash() of {} cannot be translated yet (only of instances)",
                self.annotation(x).describe()
            ));
        }
        let object = LowLevelType::Ptr(lltype::OBJECT.into());
        let x = self.arg_as(x, &object)?;
        let leaf = Arg::Const(Constant::Builtin("rpy_gc_identityhash".into()));
        self.emit_into(
            Opcode::DirectCall,
            vec![leaf, x],
            LowLevelType::Signed,
            op.result,
        )?;
        Ok(true)
    }
}

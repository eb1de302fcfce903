//! The rlib functions whose lowering no rule can state, because a rule
//! names one argument type: `compute_identity_hash`, `compute_unique_id`
//! and `current_object_addr_as_int` of an instance of any class (the
//! others are in `rules/rtype/rlib.rules`).

use super::GraphTyper;
use rpy_ir::graph::{Arg, Constant, SpaceOperation};
use rpy_ir::lltype::{self, LowLevelType};
use rpy_ir::opcode::Opcode;

impl GraphTyper<'_, '_, '_> {
    /// `compute_identity_hash(x)` of an instance (or, in helper code, of a
    /// pointer to one) as the runtime's `rpy_gc_identityhash`; `false`
    /// when `op` is not that call.
    ///
    /// `compute_unique_id(x)` and `current_object_addr_as_int(x)` are the
    /// same call. The original's are addresses (one the collector keeps
    /// for the object's life, and "a cheap version of id(x)", the object's
    /// current address); rpy has no operation that reads a pointer as an
    /// int, and the identity hash gives what both promise: an int that
    /// tells live objects apart (the runtime numbers the objects it is
    /// asked about, 2^24 of them before a number repeats) and, unlike an
    /// address, stays when the collector moves the object. Past 2^24,
    /// `compute_unique_id`'s leaf (`rpy_gc_unique_id`) stops the program
    /// with a fatal error rather than give an id twice.
    pub(super) fn lower_identity_hash(&mut self, op: &SpaceOperation) -> Result<bool, String> {
        let [callee, x] = &op.args[..] else {
            return Ok(false);
        };
        let name = match self.builtin_of(callee) {
            Some(name)
                if op.opname == Opcode::SimpleCall
                    && matches!(
                        name.as_str(),
                        "compute_identity_hash"
                            | "compute_unique_id"
                            | "current_object_addr_as_int"
                    ) =>
            {
                name
            }
            _ => return Ok(false),
        };
        let is_instance = match self.type_of(x) {
            LowLevelType::Ptr(name) => super::repr::is_instance_struct(&name),
            _ => false,
        };
        if !is_instance {
            return Err(format!(
                "{name}() of {} cannot be translated yet (only of instances)",
                self.annotation(x).describe()
            ));
        }
        let object = LowLevelType::Ptr(lltype::OBJECT.into());
        let x = self.arg_as(x, &object)?;
        // An id must not repeat among live objects; the hash may, once
        // the runtime has numbered 2^24 objects, and the id's leaf stops
        // the program then instead.
        let leaf = if name == "compute_unique_id" {
            "rpy_gc_unique_id"
        } else {
            "rpy_gc_identityhash"
        };
        let leaf = Arg::Const(Constant::Builtin(leaf.into()));
        self.emit_into(
            Opcode::DirectCall,
            vec![leaf, x],
            LowLevelType::Signed,
            op.result,
        )?;
        Ok(true)
    }
}

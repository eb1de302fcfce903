//! Devirtualization: a read of a class's vtable static is its value (a
//! method's function, a class attribute), and a call through a function
//! that is known becomes a `direct_call`, which inlining can then copy.
//!
//! A vtable static's class is known where load folding found the
//! `typeptr` of an object the graph allocated itself (or malloc removal
//! turned its fields into variables). Vtables are read-only in RPython (a
//! class attribute is not assigned after import); the pass checks it: a
//! program with a `setfield` through a vtable pointer is left alone.

use fxhash::FxHashMap as HashMap;
use rpy_ir::graph::{Arg, Constant, LowLevel, PrebuiltObject, Program, SpaceOperation, Var};
use rpy_ir::lltype::LowLevelType;
use rpy_ir::opcode::Opcode;

/// What [`devirtualize`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DevirtualizeStats {
    /// Reads of a vtable static's field replaced by its value.
    pub vtable_reads_folded: usize,
    /// `indirect_call`s of a known function made `direct_call`s.
    pub calls_made_direct: usize,
}

fn is_vtable_type(name: &str) -> bool {
    name == "object_vtable" || name.starts_with("vtable_")
}

/// Folds the vtable reads and direct calls of every graph.
pub fn devirtualize(program: &mut Program<LowLevel>) -> DevirtualizeStats {
    let mut stats = DevirtualizeStats::default();
    let vtables_written = program.graphs.iter().any(|g| {
        g.blocks.iter().flat_map(|b| &b.operations).any(|op| {
            op.opname == Opcode::Setfield
                && matches!(op.args.first(), Some(Arg::Var(v))
                    if matches!(g.info(*v), LowLevelType::Ptr(t) if is_vtable_type(t)))
        })
    });
    if vtables_written {
        return stats;
    }
    let prebuilt = &program.prebuilt;
    let field_of = |i: u32, field: &str| -> Option<Constant> {
        match prebuilt.get(i as usize)? {
            PrebuiltObject::Struct { ty, fields, .. } if is_vtable_type(ty) => fields
                .iter()
                .find(|(f, _)| f == field)
                .map(|(_, c)| c.clone()),
            _ => None,
        }
    };
    for g in &mut program.graphs {
        for block in &mut g.blocks {
            let mut subst: HashMap<Var, Arg> = HashMap::default();
            let mut kept = Vec::with_capacity(block.operations.len());
            for mut op in std::mem::take(&mut block.operations) {
                for a in &mut op.args {
                    if let Arg::Var(v) = a {
                        if let Some(n) = subst.get(v) {
                            *a = n.clone();
                        }
                    }
                }
                if op.opname == Opcode::Getfield {
                    if let [Arg::Const(Constant::Prebuilt(i)), Arg::Const(Constant::Name(f))] =
                        op.args.as_slice()
                    {
                        // A Void field has no value to fold to.
                        if let Some(c) = field_of(*i, f) {
                            subst.insert(op.result, Arg::Const(c));
                            stats.vtable_reads_folded += 1;
                            continue;
                        }
                    }
                }
                if call_made_direct(&mut op) {
                    stats.calls_made_direct += 1;
                }
                kept.push(op);
            }
            block.operations = kept;
            let sub = |a: &mut Arg| {
                if let Arg::Var(v) = a {
                    if let Some(n) = subst.get(v) {
                        *a = n.clone();
                    }
                }
            };
            if let Some(s) = &mut block.exitswitch {
                sub(s);
            }
            for l in &mut block.exits {
                l.args.iter_mut().for_each(sub);
            }
        }
    }
    stats
}

/// Makes a call through a pointer that is a known function a direct call
/// of it; true when it did.
pub(super) fn call_made_direct(op: &mut SpaceOperation) -> bool {
    let known = op.opname == Opcode::IndirectCall
        && matches!(op.args.first(), Some(Arg::Const(Constant::Func(_))));
    if known {
        op.opname = Opcode::DirectCall;
    }
    known
}

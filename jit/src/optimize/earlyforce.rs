//! `earlyforce`: forces the virtual objects an operation makes escape,
//! right after `virtualize`, so that the optimizations after it (`pure`,
//! `heap`) see the allocation and the stores that fill it: `heap` then
//! knows the fields of the object it was given, and reads of them go.
//!
//! `virtualize` passes an operation it cannot do on a virtual object on
//! unchanged when `earlyforce` comes later in the chain; here every virtual
//! among its arguments is forced, through the rest of the chain, before the
//! operation (a guard's fail args are described in its resume data
//! instead, as `virtualize` does). The exception is a `same_as` of a virtual
//! object: it is that object, which stays virtual (PyPy's earlyforce leaves
//! `same_as` to `pure` for the same reason).
//!
//! PyPy's earlyforce also leaves `setfield_gc` and `setarrayitem_*` alone,
//! because its heap optimization delays stores of virtuals too (a virtual
//! stored and read back before the store is emitted stays virtual, and a
//! guard's resume data holds the pending store). rpy's `heap` delays only
//! stores of plain values, so the stored object must exist at the store:
//! it is forced here, where `heap` sees it.

use crate::trace::Op;

use super::virtualize::{escape_op, Virtuals};
use super::{Next, Optimization, Shared};

/// The `earlyforce` optimization: `virtuals` are `virtualize`'s objects
/// when `virtualize` comes before it in the chain (otherwise it has
/// nothing to force).
pub struct OptEarlyForce {
    virtuals: Option<Virtuals>,
}

impl OptEarlyForce {
    pub(crate) fn new(virtuals: Option<Virtuals>) -> OptEarlyForce {
        OptEarlyForce { virtuals }
    }
}

impl Optimization for OptEarlyForce {
    fn name(&self) -> &'static str {
        "earlyforce"
    }

    fn fork(&self, copies: &mut super::Forks) -> Box<dyn Optimization> {
        Box::new(OptEarlyForce {
            virtuals: self.virtuals.as_ref().map(|v| copies.virtuals(v)),
        })
    }

    fn propagate(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let Some(virtuals) = &self.virtuals else {
            next.emit(op, sh);
            return;
        };
        if op.name().starts_with("same_as") {
            if let (Some(r), Some(v)) = (op.result, op.args.first()) {
                let v = sh.resolve(*v);
                if v.as_box()
                    .is_some_and(|b| virtuals.borrow().contains_key(&b))
                {
                    sh.make_equal(r, v);
                    return;
                }
            }
        }
        let op = escape_op(virtuals, op, sh, next);
        next.emit(op, sh);
    }
}

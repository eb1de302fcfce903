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
//! Like PyPy's earlyforce, it leaves a virtual stored into a field of a
//! real object alone when `heap` comes later: `heap` delays the store, so
//! the virtual stays virtual until the store must happen (a virtual stored
//! and read back, or overwritten, before then is never allocated; a guard
//! in between gets the store in its resume data). Array item stores are
//! not delayed: a virtual stored into an array is forced here.

use crate::trace::{DescrData, Op, Opcode};

use super::virtualize::{escape_op, force_value, Virtuals};
use super::{Next, Optimization, Shared};

/// The `earlyforce` optimization: `virtuals` are `virtualize`'s objects
/// when `virtualize` comes before it in the chain (otherwise it has
/// nothing to force).
pub struct OptEarlyForce {
    virtuals: Option<Virtuals>,
    /// `heap` comes later and delays stores, of virtual values too: a
    /// virtual stored into a field is left to it.
    heap_delays_stores: bool,
}

impl OptEarlyForce {
    pub(crate) fn new(virtuals: Option<Virtuals>, heap_delays_stores: bool) -> OptEarlyForce {
        OptEarlyForce {
            virtuals,
            heap_delays_stores,
        }
    }

    /// Whether `op` is a word store into a field whose value `heap` will
    /// keep virtual until the store must happen.
    fn leaves_to_heap(&self, op: &Op, sh: &Shared) -> bool {
        self.heap_delays_stores
            && op.opcode == Opcode::SetfieldGc
            && matches!(op.descr.map(|d| &sh.trace.header.descrs[d].data),
                Some(DescrData::Field { ty, .. }) if ty.size_align().0 == 8)
    }
}

impl Optimization for OptEarlyForce {
    fn name(&self) -> &'static str {
        "earlyforce"
    }

    fn fork(&self, copies: &mut super::Forks) -> Box<dyn Optimization> {
        Box::new(OptEarlyForce {
            virtuals: self.virtuals.as_ref().map(|v| copies.virtuals(v)),
            heap_delays_stores: self.heap_delays_stores,
        })
    }

    fn propagate(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let Some(virtuals) = &self.virtuals else {
            next.emit(op, sh);
            return;
        };
        if op.opcode.is_same_as() {
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
        if self.leaves_to_heap(&op, sh) {
            // the object stored into must exist; the value may stay virtual
            force_value(virtuals, op.args[0], sh, next);
            return next.emit(op, sh);
        }
        let op = escape_op(virtuals, op, sh, next);
        next.emit(op, sh);
    }
}

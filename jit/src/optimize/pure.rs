//! `pure`: constant folding and common-subexpression elimination of pure
//! operations. An integer operation whose arguments are all constants is
//! computed with `rpy_ir::llops::eval_int` (the one definition of integer
//! semantics) and replaced by its value; a pure operation (including
//! `call_pure_*`) seen before with the same arguments and descr is replaced
//! by the earlier result. `same_as_*` is replaced by its argument. The
//! memo is forgotten at a `label`.

use std::collections::HashMap;

use rpy_ir::llops::eval_int;

use crate::trace::{Op, Opcode, Value};

use super::{Next, Optimization, Shared};

/// The value of a trace integer operation on constants (`None`: not an
/// integer operation, or undefined for these arguments).
pub fn fold_int(name: &str, args: &[i64]) -> Option<i64> {
    let b = |c: bool| Some(c as i64);
    let u = |i: usize| args[i] as u64;
    match (name, args.len()) {
        ("int_is_zero", 1) => eval_int("bool_not", args),
        ("int_force_ge_zero", 1) => Some(args[0].max(0)),
        ("same_as_i", 1) => Some(args[0]),
        ("uint_rshift", 2) if (0..64).contains(&args[1]) => Some((u(0) >> args[1]) as i64),
        ("uint_lt", 2) => b(u(0) < u(1)),
        ("uint_le", 2) => b(u(0) <= u(1)),
        ("uint_gt", 2) => b(u(0) > u(1)),
        ("uint_ge", 2) => b(u(0) >= u(1)),
        (n, _) if n.starts_with("int_") => eval_int(n, args),
        _ => None,
    }
}

/// The `pure` optimization.
#[derive(Default)]
pub struct OptPure {
    seen: HashMap<(Opcode, Vec<Value>, Option<usize>), Value>,
}

impl Optimization for OptPure {
    fn name(&self) -> &'static str {
        "pure"
    }

    fn propagate(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let info = op.info();
        if op.name() == "label" {
            self.seen.clear();
            next.emit(op, sh);
            return;
        }
        let Some(r) = op.result else {
            next.emit(op, sh);
            return;
        };
        if !info.pure {
            next.emit(op, sh);
            return;
        }
        if op.name().starts_with("same_as") {
            sh.make_equal(r, op.args[0]);
            return;
        }
        let consts: Option<Vec<i64>> = op
            .args
            .iter()
            .map(|a| match a {
                Value::Int(c) => Some(*c),
                _ => None,
            })
            .collect();
        if let Some(c) = consts.and_then(|c| fold_int(op.name(), &c)) {
            sh.make_equal(r, Value::Int(c));
            return;
        }
        let key = (op.opcode, op.args.clone(), op.descr);
        if let Some(v) = self.seen.get(&key) {
            sh.make_equal(r, *v);
            return;
        }
        self.seen.insert(key, Value::Box(r));
        next.emit(op, sh);
    }
}

//! `pure`: constant folding and common-subexpression elimination of pure
//! operations. An integer operation whose arguments are all constants is
//! computed with `rpy_ir::llops::eval_int` (the one definition of integer
//! semantics) and replaced by its value; a pure operation (including
//! `call_pure_*`) seen before with the same arguments and descr is replaced
//! by the earlier result. `same_as_*` is replaced by its argument. The
//! memo is forgotten at a `label`.
//!
//! The memo also answers the same question asked another way: `b + a` once
//! `a + b` is known (commutative operations), `b > a` once `a < b` is. And
//! a guard on a comparison fixes its value: after `guard_true(a < b)`, the
//! comparisons `a < b`, `b > a`, `a >= b` and `b <= a` are constants, and a
//! guard on a constant that holds goes.

use std::sync::LazyLock;

use rpy_ir::llops::eval_int;

use crate::trace::{opcode, Op, Opcode, Value, OPS};

use super::{Next, Optimization, Shared, WordMap};

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

/// The value of a pointer comparison of a value with itself (integer
/// comparisons of that kind are rules of `rules/opt`, which speak only
/// integers).
fn fold_ptr_self(name: &str, args: &[Value]) -> Option<i64> {
    match (name, args) {
        ("ptr_eq" | "instance_ptr_eq", [a, b]) if a == b => Some(1),
        ("ptr_ne" | "instance_ptr_ne", [a, b]) if a == b => Some(0),
        _ => None,
    }
}

/// The operation equal to `name(b, a)` for `name(a, b)`: the same one for a
/// commutative operation, the mirrored one for a comparison.
fn swapped(name: &str) -> Option<&'static str> {
    Some(match name {
        "int_add" => "int_add",
        "int_mul" => "int_mul",
        "int_and" => "int_and",
        "int_or" => "int_or",
        "int_xor" => "int_xor",
        "int_eq" => "int_eq",
        "int_ne" => "int_ne",
        "int_lt" => "int_gt",
        "int_le" => "int_ge",
        "int_gt" => "int_lt",
        "int_ge" => "int_le",
        "uint_lt" => "uint_gt",
        "uint_le" => "uint_ge",
        "uint_gt" => "uint_lt",
        "uint_ge" => "uint_le",
        "ptr_eq" => "ptr_eq",
        "ptr_ne" => "ptr_ne",
        "instance_ptr_eq" => "instance_ptr_eq",
        "instance_ptr_ne" => "instance_ptr_ne",
        _ => return None,
    })
}

/// The comparison that is true exactly when `name` is false (integers and
/// pointers only: a float comparison with a NaN is false both ways).
fn negated(name: &str) -> Option<&'static str> {
    Some(match name {
        "int_lt" => "int_ge",
        "int_ge" => "int_lt",
        "int_le" => "int_gt",
        "int_gt" => "int_le",
        "int_eq" => "int_ne",
        "int_ne" => "int_eq",
        "uint_lt" => "uint_ge",
        "uint_ge" => "uint_lt",
        "uint_le" => "uint_gt",
        "uint_gt" => "uint_le",
        "ptr_eq" => "ptr_ne",
        "ptr_ne" => "ptr_eq",
        "instance_ptr_eq" => "instance_ptr_ne",
        "instance_ptr_ne" => "instance_ptr_eq",
        "int_is_true" => "int_is_zero",
        "int_is_zero" => "int_is_true",
        _ => return None,
    })
}

/// Whether `name` yields 0 or 1.
fn is_comparison(name: &str) -> bool {
    negated(name).is_some()
        || matches!(
            name,
            "float_lt" | "float_le" | "float_eq" | "float_ne" | "float_gt" | "float_ge"
        )
}

/// The opcodes [`swapped`] and [`negated`] give, and whether
/// [`is_comparison`], for every opcode: asked for every operation, so
/// looked up by index rather than by name.
struct Related {
    swapped: Vec<Option<Opcode>>,
    negated: Vec<Option<Opcode>>,
    comparison: Vec<bool>,
}

static RELATED: LazyLock<Related> = LazyLock::new(|| {
    let by = |f: fn(&str) -> Option<&'static str>| {
        OPS.iter()
            .map(|o| f(o.name).and_then(opcode))
            .collect::<Vec<_>>()
    };
    Related {
        swapped: by(swapped),
        negated: by(negated),
        comparison: OPS.iter().map(|o| is_comparison(o.name)).collect(),
    }
});

/// The arguments of a remembered operation: up to three kept inline (no
/// allocation for the common key), more in a vector.
#[derive(Clone, PartialEq, Eq, Hash)]
enum ArgsKey {
    Inline(u8, [Value; 3]),
    Spilled(Vec<Value>),
}

impl ArgsKey {
    fn of(args: &[Value]) -> ArgsKey {
        if args.len() <= 3 {
            let mut inline = [Value::Int(0); 3];
            inline[..args.len()].copy_from_slice(args);
            ArgsKey::Inline(args.len() as u8, inline)
        } else {
            ArgsKey::Spilled(args.to_vec())
        }
    }
}

type Key = (Opcode, ArgsKey, Option<usize>);

/// The `pure` optimization.
#[derive(Clone, Default)]
pub struct OptPure {
    seen: WordMap<Key, Value>,
}

impl OptPure {
    /// Remembers that `code(args)` is `v`, and `code'(b, a)` with it.
    fn remember(&mut self, code: Opcode, args: &[Value], descr: Option<usize>, v: Value) {
        self.seen.insert((code, ArgsKey::of(args), descr), v);
        if let (Some(sw), [a, b]) = (RELATED.swapped[code], args) {
            self.seen.insert((sw, ArgsKey::of(&[*b, *a]), descr), v);
        }
    }

    /// After `guard_true(v)` (`truth`) or `guard_false(v)`: the pure
    /// operation defining `v` and its negation are constants from here on
    /// (where the guard says which).
    fn learn_from_guard(&mut self, v: Value, truth: bool, sh: &Shared) {
        let Some(def) = sh.def_of(v) else { return };
        if !def.info().pure || def.result.is_none() {
            return;
        }
        let code = def.opcode;
        let args = ArgsKey::of(&def.args);
        let descr = def.descr;
        let args: &[Value] = match &args {
            ArgsKey::Inline(n, a) => &a[..*n as usize],
            ArgsKey::Spilled(v) => v,
        };
        // guard_false: the value is 0; guard_true: nonzero, which is 1 for
        // a comparison and unknown for other operations (x & 6)
        let known = match (truth, RELATED.comparison[code]) {
            (false, _) => Some(0),
            (true, true) => Some(1),
            (true, false) => None,
        };
        if let Some(k) = known {
            self.remember(code, args, descr, Value::Int(k));
        }
        if let Some(neg) = RELATED.negated[code] {
            self.remember(neg, args, descr, Value::Int(!truth as i64));
        }
    }
}

impl Optimization for OptPure {
    fn name(&self) -> &'static str {
        "pure"
    }

    fn fork(&self, _: &mut super::Forks) -> Box<dyn Optimization> {
        Box::new(self.clone())
    }

    fn propagate(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let info = op.info();
        if self.seen.capacity() == 0 {
            // the memo grows with the trace (about two entries per box: an
            // operation and its mirror, or a comparison and its negation):
            // growing it by doubling was a tenth of the optimizer's time
            self.seen.reserve(2 * sh.input_boxes());
        }
        if op.name() == "label" {
            self.seen.clear();
            next.emit(op, sh);
            return;
        }
        if matches!(op.name(), "guard_true" | "guard_false") {
            let (v, truth) = (op.args[0], op.name() == "guard_true");
            if let Value::Int(c) = v {
                if (c != 0) == truth {
                    return; // a guard on a constant that holds
                }
            }
            next.emit(op, sh);
            self.learn_from_guard(v, truth, sh);
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
        let all_consts = op.args.iter().all(|a| matches!(a, Value::Int(_)));
        let folded = if all_consts {
            let consts: Vec<i64> = op
                .args
                .iter()
                .map(|a| match a {
                    Value::Int(c) => *c,
                    _ => 0,
                })
                .collect();
            fold_int(op.name(), &consts)
        } else {
            None
        };
        let folded = folded.or_else(|| fold_ptr_self(op.name(), &op.args));
        if let Some(c) = folded {
            sh.make_equal(r, Value::Int(c));
            return;
        }
        let key = (op.opcode, ArgsKey::of(&op.args), op.descr);
        if let Some(v) = self.seen.get(&key) {
            sh.make_equal(r, *v);
            return;
        }
        self.remember(op.opcode, &op.args, op.descr, Value::Box(r));
        next.emit(op, sh);
    }
}

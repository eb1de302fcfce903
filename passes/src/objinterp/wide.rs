//! Import-time ints outside the machine word.
//!
//! At import time the original runs the program as Python, whose ints are
//! unbounded: `ovfcheck(a * b)` of two machine ints whose product does not
//! fit a machine word raises OverflowError there, as `a * b` is a long.
//! The object interpreter's ints are machine words whose arithmetic wraps
//! ([`ObjValue::Int`]); so that it can tell, when it runs import-time
//! code (`ObjInterpreter::with_python_ints`), each frame keeps, beside the
//! wrapped value of a variable whose int left the machine word, that
//! value's [`Wide`] form: exact within 128 bits. Arithmetic on ints (an
//! operand wide or the result outside the word) computes the exact result
//! (`result`), so an int that leaves the word and comes back, as in
//! `(a * b) // c`, is exact again; `ovfcheck` and `is_valid_int` of a wide
//! int see it for what it is, and so do the overflow-checking operations
//! `OP_ovf` (`overflow_checked`). The form is kept along a graph's links and
//! out of a return; stored in an object or passed to a call, the value is
//! the wrapped machine word.

use super::ops::{exc, Exc, Op};
use super::ObjValue;
use rpy_ir::ast::Dialect;
use std::collections::HashMap;

/// What a variable's int is beyond its wrapped machine word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Wide {
    /// Exactly this, outside the machine word.
    Exact(i128),
    /// Past 128 bits: at least 2**127 in magnitude (certainly outside the
    /// machine word); the exact value is not kept.
    Huge,
    /// Not known: arithmetic on a `Huge` int whose result may be anything.
    Lost,
}

/// The wide ints of one frame's variables (by variable index); empty
/// while every int fits, as almost always.
#[derive(Clone, Debug, Default)]
pub(super) struct WideVars(HashMap<usize, Wide>);

impl WideVars {
    pub(super) fn get(&self, var: usize) -> Option<Wide> {
        if self.0.is_empty() {
            return None;
        }
        self.0.get(&var).copied()
    }

    /// Variable `var` now holds `wide` (`None`: a machine word or no int).
    pub(super) fn set(&mut self, var: usize, wide: Option<Wide>) {
        match wide {
            Some(w) => {
                self.0.insert(var, w);
            }
            None if self.0.is_empty() => {}
            None => {
                self.0.remove(&var);
            }
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// An int operand: exact, or one of the wide forms that are not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Num {
    Known(i128),
    Huge,
    Lost,
}

fn num(value: &ObjValue, wide: Option<Wide>) -> Option<Num> {
    Some(match (wide, value) {
        (Some(Wide::Exact(x)), _) => Num::Known(x),
        (Some(Wide::Huge), _) => Num::Huge,
        (Some(Wide::Lost), _) => Num::Lost,
        (None, ObjValue::Int(i)) => Num::Known(i128::from(*i)),
        (None, ObjValue::Bool(b)) => Num::Known(i128::from(*b)),
        (None, _) => return None,
    })
}

/// Python's exact result of the int operation `op` (an [`Op`] name, or
/// `abs`) on `xs`; `None` when it raises (division by zero, a negative
/// shift count), gives a float (a negative power) or is no int
/// arithmetic.
fn exact(op: &str, xs: &[Num]) -> Option<Num> {
    use Num::{Huge, Known, Lost};
    // Past i128: at least 2**127 in magnitude.
    let huge_if = |r: Option<i128>| r.map_or(Huge, Known);
    Some(match (op, xs) {
        ("pos", [x]) => *x,
        ("neg", [Known(a)]) => huge_if(a.checked_neg()),
        ("abs", [Known(a)]) => huge_if(a.checked_abs()),
        ("invert", [Known(a)]) => Known(!a),
        ("neg" | "abs", [Huge]) => Huge,
        ("neg" | "abs" | "invert", [_]) => Lost,
        ("add", [Known(a), Known(b)]) => huge_if(a.checked_add(*b)),
        ("sub", [Known(a), Known(b)]) => huge_if(a.checked_sub(*b)),
        ("mul", [Known(a), Known(b)]) => huge_if(a.checked_mul(*b)),
        ("mul", [Known(0), Huge] | [Huge, Known(0)]) => Known(0),
        ("mul", [Known(_) | Huge, Huge] | [Huge, Known(_)]) => Huge,
        ("div" | "floordiv" | "mod", [_, Known(0)]) => return None,
        ("div" | "floordiv", [Known(a), Known(b)]) => huge_if(floordiv(*a, *b)),
        ("mod", [Known(a), Known(b)]) => Known(floormod(*a, *b)),
        ("pow", [_, Known(b)]) if *b < 0 => return None,
        ("pow", [_, Known(0)]) => Known(1),
        ("pow", [Known(a @ (0 | 1)), _]) => Known(*a),
        ("pow", [Known(-1), Known(b)]) => Known(if b % 2 == 0 { 1 } else { -1 }),
        // |a| >= 2 from here: a power past 127 is past 2**127.
        ("pow", [Known(a), Known(b)]) => {
            huge_if(u32::try_from(*b).ok().and_then(|b| a.checked_pow(b)))
        }
        ("pow", [Huge, Known(_)]) => Huge,
        ("lshift" | "rshift", [_, Known(b)]) if *b < 0 => return None,
        ("lshift", [Known(0), Known(_)]) => Known(0),
        ("lshift", [Known(a), Known(b)]) => huge_if(
            u32::try_from(*b)
                .ok()
                .filter(|b| *b < 127)
                .map(|b| a << b)
                .filter(|r| r >> b == *a),
        ),
        ("lshift", [Huge, Known(_)]) => Huge,
        ("rshift", [Known(a), Known(b)]) => Known(a >> (*b).min(127)),
        ("and_", [Known(a), Known(b)]) => Known(a & b),
        ("or_", [Known(a), Known(b)]) => Known(a | b),
        ("xor", [Known(a), Known(b)]) => Known(a ^ b),
        (
            "add" | "sub" | "mul" | "div" | "floordiv" | "mod" | "pow" | "lshift" | "rshift"
            | "and_" | "or_" | "xor",
            [_, _],
        ) => Lost,
        _ => return None,
    })
}

/// Floor division; `None` past i128 (only `MIN // -1`).
fn floordiv(a: i128, b: i128) -> Option<i128> {
    let q = a.checked_div(b)?;
    Some(if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

/// Python's modulo, with the divisor's sign.
fn floormod(a: i128, b: i128) -> i128 {
    let r = a.checked_rem(b).unwrap_or(0);
    if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    }
}

/// What an int operation gives when its result or an operand is not a
/// machine word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// A machine word: the operation's exact result.
    Fits(i64),
    /// Outside the machine word: its wrapped value, and the wide form.
    Wide(i64, Wide),
    /// Outside the machine word, its wrapped value that of the operation
    /// on wrapped words (past 128 bits, or a `Lost` operand).
    WideWrapped(Wide),
}

/// The name of `op`, when an int arithmetic operation.
fn arithmetic(op: Op) -> Option<&'static str> {
    match op {
        Op::Add
        | Op::Sub
        | Op::Mul
        | Op::Div
        | Op::FloorDiv
        | Op::Mod
        | Op::Pow
        | Op::LShift
        | Op::RShift
        | Op::And
        | Op::Or
        | Op::Xor
        | Op::Neg
        | Op::Pos
        | Op::Invert => Some(op.name()),
        _ => None,
    }
}

/// The int values of `args` (one or two), with `wide[i]` the wide form
/// of argument `i` (missing: none), and how many there are; `None` when
/// one is no int. No allocation: this runs for every arithmetic operation.
fn nums(args: &[ObjValue], wide: &[Option<Wide>]) -> Option<([Num; 2], usize)> {
    let w = |i: usize| wide.get(i).copied().flatten();
    match args {
        [a] => Some(([num(a, w(0))?, Num::Known(0)], 1)),
        [a, b] => Some(([num(a, w(0))?, num(b, w(1))?], 2)),
        _ => None,
    }
}

/// The operands of an int operation (`abs(x)` is a call of the builtin):
/// its name and int values (and how many); `None` for any other operation.
fn int_operands(
    op: Op,
    args: &[ObjValue],
    wide: &[Option<Wide>],
) -> Option<(&'static str, [Num; 2], usize)> {
    let (name, args, wide) = match (op, args) {
        (Op::SimpleCall, [ObjValue::Builtin(f), _]) if &**f == "abs" => {
            ("abs", &args[1..], wide.get(1..).unwrap_or_default())
        }
        _ => (arithmetic(op)?, args, wide),
    };
    let (xs, n) = nums(args, wide)?;
    Some((name, xs, n))
}

/// Operation `op` on `args` (with `wide[i]` the wide form of argument `i`)
/// when it is int arithmetic whose result or an operand is not a machine
/// word; `None` otherwise, the operation's ordinary result then standing.
pub(super) fn result(op: Op, args: &[ObjValue], wide: &[Option<Wide>]) -> Option<Outcome> {
    let (name, xs, n) = int_operands(op, args, wide)?;
    let any_wide = wide.iter().any(Option::is_some);
    Some(match exact(name, &xs[..n])? {
        Num::Known(r) => match i64::try_from(r) {
            Ok(r) if any_wide => Outcome::Fits(r),
            // The ordinary result is this one.
            Ok(_) => return None,
            Err(_) => Outcome::Wide(r as i64, Wide::Exact(r)),
        },
        Num::Huge => Outcome::WideWrapped(Wide::Huge),
        Num::Lost => Outcome::WideWrapped(Wide::Lost),
    })
}

/// The error of asking whether a `Lost` int fits the machine word.
pub(super) fn lost_message(what: &str) -> String {
    format!(
        "{what} of an int that import-time arithmetic took past 2**127 and back: the object \
         interpreter keeps ints exact only within 128 bits"
    )
}

/// `ovfcheck(x)` and `is_valid_int(x)` of a wide `x`: OverflowError
/// (rarithmetic's, for a value outside the machine word) and False.
/// `None` for other calls; `Err(message)` when `x`'s value was lost.
pub(super) fn checked_call(
    args: &[ObjValue],
    wide: &[Option<Wide>],
) -> Option<Result<Result<ObjValue, Exc>, String>> {
    let ([ObjValue::Builtin(f), _], [_, Some(w)]) = (args, wide) else {
        return None;
    };
    let name = &**f;
    if !matches!(name, "ovfcheck" | "is_valid_int") {
        return None;
    }
    if *w == Wide::Lost {
        return Some(Err(lost_message(&format!("{name}()"))));
    }
    Some(Ok(match name {
        "ovfcheck" => Err(overflow()),
        _ => Ok(ObjValue::Bool(false)),
    }))
}

fn overflow() -> Exc {
    exc("OverflowError", "signed integer expression did overflow")
}

/// The overflow-checking operations `ovfcheck(x OP y)` becomes (`add_ovf`,
/// ...): Python's exact result when it fits a machine word, else
/// OverflowError as `rpython.rlib.rarithmetic.ovfcheck` raises it (so
/// also when an operand is a wide int and the result is not). `None` for
/// other names; `Err(message)` when an operand's value was lost.
pub(super) fn overflow_checked(
    name: &str,
    args: &[ObjValue],
    wide: &[Option<Wide>],
    dialect: Dialect,
) -> Option<Result<Result<ObjValue, Exc>, String>> {
    let base = name.strip_suffix("_ovf")?;
    let exact = nums(args, wide).and_then(|(xs, n)| exact(base, &xs[..n]));
    Some(Ok(match exact {
        Some(Num::Known(r)) => i64::try_from(r).map(ObjValue::Int).map_err(|_| overflow()),
        Some(Num::Huge) => Err(overflow()),
        Some(Num::Lost) => return Some(Err(lost_message(&format!("'{name}'")))),
        // What raises (a division by zero, a negative shift count, an
        // operand of the wrong type) raises as the plain operation does.
        None => match (base, args) {
            ("abs", _) => super::ops::call_builtin("abs", args, dialect),
            (_, [a, b]) => super::ops::binary(Op::from_name(base)?, a, b, dialect),
            (_, [a]) => super::ops::unary(Op::from_name(base)?, a),
            _ => return None,
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(i: i64) -> ObjValue {
        ObjValue::Int(i)
    }

    #[test]
    fn results_past_the_word_are_exact() {
        let max = i64::MAX;
        let r = result(Op::Mul, &[int(max), int(3)], &[None, None]);
        let exact3 = i128::from(max) * 3;
        assert_eq!(r, Some(Outcome::Wide(exact3 as i64, Wide::Exact(exact3))));
        // Fits: the ordinary result stands.
        assert_eq!(result(Op::Mul, &[int(6), int(7)], &[None, None]), None);
        // Back into the word: exact, not the wrapped quotient.
        let w = Some(Wide::Exact(exact3));
        assert_eq!(
            result(Op::FloorDiv, &[int(exact3 as i64), int(3)], &[w, None]),
            Some(Outcome::Fits(max))
        );
        assert_eq!(
            result(Op::LShift, &[int(1), int(200)], &[None, None]),
            Some(Outcome::WideWrapped(Wide::Huge))
        );
        assert_eq!(
            result(Op::Sub, &[int(0), int(1)], &[Some(Wide::Huge), None]),
            Some(Outcome::WideWrapped(Wide::Lost))
        );
        let abs = ObjValue::Builtin("abs".into());
        let past_max = i128::from(i64::MAX) + 1;
        assert_eq!(
            result(Op::SimpleCall, &[abs, int(i64::MIN)], &[]),
            Some(Outcome::Wide(i64::MIN, Wide::Exact(past_max)))
        );
        assert_eq!(result(Op::LShift, &[int(1), int(-1)], &[None, None]), None);
        assert_eq!(result(Op::Mod, &[int(1), int(0)], &[None, None]), None);
        assert_eq!(
            result(Op::Add, &[int(1), ObjValue::str("s")], &[None, None]),
            None
        );
    }

    #[test]
    fn checked_operations_raise_past_the_word() {
        let checked = |name: &str, args: &[ObjValue], wide: &[Option<Wide>]| {
            overflow_checked(name, args, wide, Dialect::Py3).map(|r| r.unwrap())
        };
        assert_eq!(checked("add_ovf", &[int(1), int(2)], &[]), Some(Ok(int(3))));
        assert_eq!(
            checked("mul_ovf", &[int(i64::MAX), int(2)], &[]),
            Some(Err(overflow()))
        );
        let w = Some(Wide::Exact(i128::from(i64::MAX) + 1));
        assert_eq!(
            checked("sub_ovf", &[int(i64::MIN), int(1)], &[w, None]),
            Some(Ok(int(i64::MAX)))
        );
        assert_eq!(
            checked("lshift_ovf", &[int(1), int(-1)], &[]).map(|r| r.unwrap_err().exc),
            Some("ValueError")
        );
        assert_eq!(
            checked("floordiv_ovf", &[int(1), int(0)], &[]).map(|r| r.unwrap_err().exc),
            Some("ZeroDivisionError")
        );
        assert!(overflow_checked(
            "add_ovf",
            &[int(1), int(2)],
            &[Some(Wide::Lost), None],
            Dialect::Py3
        )
        .unwrap()
        .is_err());
        assert_eq!(checked("add", &[int(1), int(2)], &[]), None);
    }
}

//! Constant folding of high-level operations whose arguments are all known.
//!
//! Only folds that are exact under Python semantics on machine words are done:
//! integer and bool arithmetic (skipped when the result would overflow an i64
//! or the operation would raise, e.g. division by zero or a negative shift),
//! comparisons of like constants, truth tests and `not`, `len`, indexing and
//! `in` of constant ASCII strings. Everything else is left for run time.

use rpy_ir::graph::Constant;
use rpy_ir::opcode::Opcode;
use std::cmp::Ordering;

/// Python's truth value of a constant; `None` for a prebuilt object, whose
/// contents (a list's length) may change at run time.
pub(crate) fn truthy(c: &Constant) -> Option<bool> {
    Some(match c {
        Constant::Int(i) => *i != 0,
        Constant::UInt(u) => *u != 0,
        Constant::Float(f) => *f != 0.0,
        Constant::Bool(b) => *b,
        Constant::Char(_) => true,
        Constant::Str(s) => !s.is_empty(),
        Constant::None => false,
        Constant::Func(_)
        | Constant::Builtin(_)
        | Constant::Name(_)
        | Constant::Class(_)
        | Constant::LastException => true,
        Constant::Prebuilt(_) => return None,
    })
}

/// A number, bool or string constant (not an object, whose class may
/// define `__eq__`).
fn is_scalar(c: &Constant) -> bool {
    matches!(
        c,
        Constant::Int(_)
            | Constant::UInt(_)
            | Constant::Float(_)
            | Constant::Bool(_)
            | Constant::Char(_)
            | Constant::Str(_)
    )
}

/// The integer value of an int or bool constant.
fn as_int(c: &Constant) -> Option<i64> {
    match c {
        Constant::Int(i) => Some(*i),
        Constant::Bool(b) => Some(*b as i64),
        _ => None,
    }
}

/// Python's floor division, `None` when it raises or overflows.
pub(crate) fn py_floordiv(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    let q = a.checked_div(b)?;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        q.checked_sub(1)
    } else {
        Some(q)
    }
}

/// Python's modulo (the sign of the divisor), `None` when it raises.
pub(crate) fn py_mod(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    let r = a.checked_rem(b)?;
    if r != 0 && ((r < 0) != (b < 0)) {
        Some(r + b)
    } else {
        Some(r)
    }
}

fn int_binop(op: Opcode, a: i64, b: i64) -> Option<i64> {
    match op {
        Opcode::Add => a.checked_add(b),
        Opcode::Sub => a.checked_sub(b),
        Opcode::Mul => a.checked_mul(b),
        // `div` is only emitted for Python 2, where it is floor division on ints.
        Opcode::Div | Opcode::Floordiv => py_floordiv(a, b),
        Opcode::Mod => py_mod(a, b),
        Opcode::Pow => {
            if b < 0 {
                None // a float in Python
            } else {
                a.checked_pow(u32::try_from(b).ok()?)
            }
        }
        Opcode::Lshift => {
            if b < 0 {
                None
            } else if b >= 64 {
                if a == 0 {
                    Some(0)
                } else {
                    None
                }
            } else {
                let r = a << b;
                if r >> b == a {
                    Some(r)
                } else {
                    None
                }
            }
        }
        Opcode::Rshift => {
            if b < 0 {
                None
            } else if b >= 64 {
                Some(if a < 0 { -1 } else { 0 })
            } else {
                Some(a >> b)
            }
        }
        Opcode::And => Some(a & b),
        Opcode::Or => Some(a | b),
        Opcode::Xor => Some(a ^ b),
        _ => None,
    }
}

fn compare(op: Opcode, ord: Ordering) -> Option<bool> {
    Some(match op {
        Opcode::Lt => ord == Ordering::Less,
        Opcode::Le => ord != Ordering::Greater,
        Opcode::Eq => ord == Ordering::Equal,
        Opcode::Ne => ord != Ordering::Equal,
        Opcode::Gt => ord == Ordering::Greater,
        Opcode::Ge => ord != Ordering::Less,
        _ => return None,
    })
}

fn is_compare(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Lt | Opcode::Le | Opcode::Eq | Opcode::Ne | Opcode::Gt | Opcode::Ge
    )
}

/// The constant result of `op(args...)`, when it can be computed safely now.
pub(crate) fn fold(op: Opcode, args: &[&Constant]) -> Option<Constant> {
    if op == Opcode::SimpleCall {
        return fold_call(args);
    }
    match args {
        [a] => fold_unary(op, a),
        [a, b] => fold_binary(op, a, b),
        _ => None,
    }
}

/// A builtin called on constants: `len` of a string. Only ASCII strings are
/// folded, whose length is the same in bytes (Python 2) and characters
/// (Python 3).
fn fold_call(args: &[&Constant]) -> Option<Constant> {
    match args {
        [Constant::Builtin(f), Constant::Str(s)] if f == "len" && s.is_ascii() => {
            Some(Constant::Int(i64::try_from(s.len()).ok()?))
        }
        _ => None,
    }
}

/// A string item or membership test on constant ASCII strings (the same in
/// both dialects).
fn fold_str(op: Opcode, a: &str, b: &Constant) -> Option<Constant> {
    if !a.is_ascii() {
        return None;
    }
    match (op, b) {
        (Opcode::Getitem, Constant::Int(i)) => {
            let n = i64::try_from(a.len()).ok()?;
            let k = if *i < 0 { i + n } else { *i };
            let k = usize::try_from(k).ok()?;
            // An item of a string is a char, as the annotator types it.
            a.as_bytes().get(k).map(|c| Constant::Char(*c))
        }
        (Opcode::Contains, Constant::Str(sub)) => Some(Constant::Bool(a.contains(sub.as_str()))),
        // Concatenation, as the original's flow space folds a pure
        // operation on constants (`'compile_' + name` in an unrolled loop).
        (Opcode::Add, Constant::Str(b)) if b.is_ascii() => Some(Constant::Str(format!("{a}{b}"))),
        _ => None,
    }
}

fn fold_unary(op: Opcode, a: &Constant) -> Option<Constant> {
    match op {
        Opcode::Bool => truthy(a).map(Constant::Bool),
        Opcode::Not => truthy(a).map(|t| Constant::Bool(!t)),
        Opcode::Neg => match a {
            Constant::Float(f) => Some(Constant::Float(-f)),
            _ => as_int(a)?.checked_neg().map(Constant::Int),
        },
        Opcode::Pos => match a {
            Constant::Float(f) => Some(Constant::Float(*f)),
            _ => as_int(a).map(Constant::Int),
        },
        Opcode::Invert => as_int(a).map(|i| Constant::Int(!i)),
        _ => None,
    }
}

fn fold_binary(op: Opcode, a: &Constant, b: &Constant) -> Option<Constant> {
    if let Constant::Str(s) = a {
        if matches!(op, Opcode::Getitem | Opcode::Contains | Opcode::Add) {
            return fold_str(op, s, b);
        }
    }
    if op == Opcode::Is {
        return match (a, b) {
            (Constant::None, Constant::None) => Some(Constant::Bool(true)),
            (Constant::None, _) | (_, Constant::None) => Some(Constant::Bool(false)),
            _ => None,
        };
    }
    if is_compare(op) {
        let ord = match (a, b) {
            (Constant::Float(x), Constant::Float(y)) => {
                // Comparisons with NaN are all false except `!=`.
                return match x.partial_cmp(y) {
                    Some(o) => compare(op, o).map(Constant::Bool),
                    None => Some(Constant::Bool(op == Opcode::Ne)),
                };
            }
            (Constant::Str(x), Constant::Str(y)) => x.cmp(y),
            (Constant::None, Constant::None) => {
                if op == Opcode::Eq || op == Opcode::Ne {
                    Ordering::Equal
                } else {
                    return None;
                }
            }
            // None equals no number or string (neither defines `__eq__`
            // for it); an order between them is Python 2's arbitrary one.
            (Constant::None, other) | (other, Constant::None)
                if (op == Opcode::Eq || op == Opcode::Ne) && is_scalar(other) =>
            {
                return Some(Constant::Bool(op == Opcode::Ne));
            }
            _ => as_int(a)?.cmp(&as_int(b)?),
        };
        return compare(op, ord).map(Constant::Bool);
    }
    if matches!(a, Constant::Float(_)) || matches!(b, Constant::Float(_)) {
        return fold_float(op, a, b);
    }
    if op == Opcode::Truediv {
        // Exact when both ints convert exactly: one correctly rounded division.
        let (x, y) = (as_int(a)?, as_int(b)?);
        let exact = |v: i64| v.unsigned_abs() <= 1 << 53;
        if y == 0 || !exact(x) || !exact(y) {
            return None;
        }
        return Some(Constant::Float(x as f64 / y as f64));
    }
    if let (Constant::Bool(x), Constant::Bool(y)) = (a, b) {
        match op {
            Opcode::And => return Some(Constant::Bool(*x & *y)),
            Opcode::Or => return Some(Constant::Bool(*x | *y)),
            Opcode::Xor => return Some(Constant::Bool(*x ^ *y)),
            _ => {}
        }
    }
    int_binop(op, as_int(a)?, as_int(b)?).map(Constant::Int)
}

/// Float arithmetic (an int operand converts to float, rounding to nearest as
/// Python does): IEEE results are Python's results. Division by zero raises, so
/// it is not folded; `//`, `%` and `**` are left to run time.
fn fold_float(op: Opcode, a: &Constant, b: &Constant) -> Option<Constant> {
    let f = |c: &Constant| match c {
        Constant::Float(x) => Some(*x),
        _ => as_int(c).map(|i| i as f64),
    };
    let (x, y) = (f(a)?, f(b)?);
    let r = match op {
        Opcode::Add => x + y,
        Opcode::Sub => x - y,
        Opcode::Mul => x * y,
        Opcode::Truediv | Opcode::Div if y != 0.0 => x / y,
        _ => return None,
    };
    Some(Constant::Float(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(v: i64) -> Constant {
        Constant::Int(v)
    }

    #[test]
    fn python_division_semantics() {
        assert_eq!(fold(Opcode::Floordiv, &[&i(-7), &i(2)]), Some(i(-4)));
        assert_eq!(fold(Opcode::Mod, &[&i(-7), &i(2)]), Some(i(1)));
        assert_eq!(fold(Opcode::Mod, &[&i(7), &i(-2)]), Some(i(-1)));
        assert_eq!(fold(Opcode::Div, &[&i(7), &i(0)]), None);
        assert_eq!(fold(Opcode::Floordiv, &[&i(i64::MIN), &i(-1)]), None);
        assert_eq!(
            fold(Opcode::Truediv, &[&i(1), &i(2)]),
            Some(Constant::Float(0.5))
        );
    }

    #[test]
    fn overflow_is_not_folded() {
        assert_eq!(fold(Opcode::Add, &[&i(i64::MAX), &i(1)]), None);
        assert_eq!(fold(Opcode::Lshift, &[&i(1), &i(62)]), Some(i(1 << 62)));
        assert_eq!(fold(Opcode::Lshift, &[&i(1), &i(63)]), None);
        assert_eq!(fold(Opcode::Lshift, &[&i(-1), &i(63)]), Some(i(i64::MIN)));
        assert_eq!(fold(Opcode::Lshift, &[&i(2), &i(63)]), None);
        assert_eq!(fold(Opcode::Pow, &[&i(2), &i(10)]), Some(i(1024)));
        assert_eq!(fold(Opcode::Pow, &[&i(2), &i(-1)]), None);
        assert_eq!(fold(Opcode::Neg, &[&i(i64::MIN)]), None);
    }

    #[test]
    fn strings() {
        let s = |v: &str| Constant::Str(v.to_string());
        let len = Constant::Builtin("len".into());
        assert_eq!(fold(Opcode::SimpleCall, &[&len, &s("abc")]), Some(i(3)));
        assert_eq!(fold(Opcode::SimpleCall, &[&len, &s("\u{e9}")]), None);
        assert_eq!(
            fold(Opcode::Getitem, &[&s("abc"), &i(-1)]),
            Some(Constant::Char(b'c'))
        );
        assert_eq!(fold(Opcode::Getitem, &[&s("abc"), &i(3)]), None);
        assert_eq!(fold(Opcode::Getitem, &[&s("abc"), &i(-4)]), None);
        assert_eq!(
            fold(Opcode::Contains, &[&s("abc"), &s("bc")]),
            Some(Constant::Bool(true))
        );
        assert_eq!(fold(Opcode::Contains, &[&s("abc"), &i(1)]), None);
    }

    #[test]
    fn floats() {
        let f = Constant::Float;
        assert_eq!(fold(Opcode::Truediv, &[&i(7), &i(2)]), Some(f(3.5)));
        assert_eq!(fold(Opcode::Div, &[&i(7), &f(2.0)]), Some(f(3.5)));
        assert_eq!(fold(Opcode::Mul, &[&f(1.5), &i(2)]), Some(f(3.0)));
        assert_eq!(fold(Opcode::Truediv, &[&f(1.0), &f(0.0)]), None);
        assert_eq!(fold(Opcode::Truediv, &[&i(1 << 60), &i(3)]), None);
        assert_eq!(fold(Opcode::Floordiv, &[&f(7.0), &f(2.0)]), None);
        assert_eq!(
            fold(Opcode::Add, &[&f(1.0), &Constant::Str("a".into())]),
            None
        );
    }

    #[test]
    fn bools_and_comparisons() {
        let t = Constant::Bool(true);
        assert_eq!(fold(Opcode::Add, &[&t, &t]), Some(i(2)));
        assert_eq!(
            fold(Opcode::And, &[&t, &Constant::Bool(false)]),
            Some(Constant::Bool(false))
        );
        assert_eq!(fold(Opcode::Lt, &[&i(1), &t]), Some(Constant::Bool(false)));
        assert_eq!(
            fold(Opcode::Not, &[&Constant::Str(String::new())]),
            Some(t.clone())
        );
        assert_eq!(
            fold(Opcode::Is, &[&Constant::None, &i(0)]),
            Some(Constant::Bool(false))
        );
        assert_eq!(
            fold(Opcode::Eq, &[&Constant::None, &i(1)]),
            Some(Constant::Bool(false))
        );
        assert_eq!(
            fold(Opcode::Ne, &[&Constant::Str("a".into()), &Constant::None]),
            Some(t.clone())
        );
        assert_eq!(fold(Opcode::Lt, &[&Constant::None, &i(1)]), None);
        let nan = Constant::Float(f64::NAN);
        assert_eq!(fold(Opcode::Eq, &[&nan, &nan]), Some(Constant::Bool(false)));
        assert_eq!(fold(Opcode::Ne, &[&nan, &nan]), Some(Constant::Bool(true)));
        assert_eq!(fold(Opcode::Lt, &[&i(1), &Constant::Float(2.0)]), None);
    }
}

//! Constant folding of high-level operations whose arguments are all known.
//!
//! Only folds that are exact under Python semantics on machine words are done:
//! integer and bool arithmetic (skipped when the result would overflow an i64
//! or the operation would raise, e.g. division by zero or a negative shift),
//! comparisons of like constants, truth tests and `not`, `len`, indexing and
//! `in` of constant ASCII strings. Everything else is left for run time.

use rpy_ir::graph::Constant;
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

fn int_binop(op: &str, a: i64, b: i64) -> Option<i64> {
    match op {
        "add" => a.checked_add(b),
        "sub" => a.checked_sub(b),
        "mul" => a.checked_mul(b),
        // `div` is only emitted for Python 2, where it is floor division on ints.
        "div" | "floordiv" => py_floordiv(a, b),
        "mod" => py_mod(a, b),
        "pow" => {
            if b < 0 {
                None // a float in Python
            } else {
                a.checked_pow(u32::try_from(b).ok()?)
            }
        }
        "lshift" => {
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
        "rshift" => {
            if b < 0 {
                None
            } else if b >= 64 {
                Some(if a < 0 { -1 } else { 0 })
            } else {
                Some(a >> b)
            }
        }
        "and_" => Some(a & b),
        "or_" => Some(a | b),
        "xor" => Some(a ^ b),
        _ => None,
    }
}

fn compare(op: &str, ord: Ordering) -> Option<bool> {
    Some(match op {
        "lt" => ord == Ordering::Less,
        "le" => ord != Ordering::Greater,
        "eq" => ord == Ordering::Equal,
        "ne" => ord != Ordering::Equal,
        "gt" => ord == Ordering::Greater,
        "ge" => ord != Ordering::Less,
        _ => return None,
    })
}

fn is_compare(op: &str) -> bool {
    matches!(op, "lt" | "le" | "eq" | "ne" | "gt" | "ge")
}

/// The constant result of `op(args...)`, when it can be computed safely now.
pub(crate) fn fold(op: &str, args: &[&Constant]) -> Option<Constant> {
    if op == "simple_call" {
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
fn fold_str(op: &str, a: &str, b: &Constant) -> Option<Constant> {
    if !a.is_ascii() {
        return None;
    }
    match (op, b) {
        ("getitem", Constant::Int(i)) => {
            let n = i64::try_from(a.len()).ok()?;
            let k = if *i < 0 { i + n } else { *i };
            let k = usize::try_from(k).ok()?;
            // An item of a string is a char, as the annotator types it.
            a.as_bytes().get(k).map(|c| Constant::Char(*c))
        }
        ("contains", Constant::Str(sub)) => Some(Constant::Bool(a.contains(sub.as_str()))),
        // Concatenation, as the original's flow space folds a pure
        // operation on constants (`'compile_' + name` in an unrolled loop).
        ("add", Constant::Str(b)) if b.is_ascii() => Some(Constant::Str(format!("{a}{b}"))),
        _ => None,
    }
}

fn fold_unary(op: &str, a: &Constant) -> Option<Constant> {
    match op {
        "bool" => truthy(a).map(Constant::Bool),
        "not_" => truthy(a).map(|t| Constant::Bool(!t)),
        "neg" => match a {
            Constant::Float(f) => Some(Constant::Float(-f)),
            _ => as_int(a)?.checked_neg().map(Constant::Int),
        },
        "pos" => match a {
            Constant::Float(f) => Some(Constant::Float(*f)),
            _ => as_int(a).map(Constant::Int),
        },
        "invert" => as_int(a).map(|i| Constant::Int(!i)),
        _ => None,
    }
}

fn fold_binary(op: &str, a: &Constant, b: &Constant) -> Option<Constant> {
    if let Constant::Str(s) = a {
        if matches!(op, "getitem" | "contains" | "add") {
            return fold_str(op, s, b);
        }
    }
    if op == "is_" {
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
                    None => Some(Constant::Bool(op == "ne")),
                };
            }
            (Constant::Str(x), Constant::Str(y)) => x.cmp(y),
            (Constant::None, Constant::None) => {
                if op == "eq" || op == "ne" {
                    Ordering::Equal
                } else {
                    return None;
                }
            }
            // None equals no number or string (neither defines `__eq__`
            // for it); an order between them is Python 2's arbitrary one.
            (Constant::None, other) | (other, Constant::None)
                if (op == "eq" || op == "ne") && is_scalar(other) =>
            {
                return Some(Constant::Bool(op == "ne"));
            }
            _ => as_int(a)?.cmp(&as_int(b)?),
        };
        return compare(op, ord).map(Constant::Bool);
    }
    if matches!(a, Constant::Float(_)) || matches!(b, Constant::Float(_)) {
        return fold_float(op, a, b);
    }
    if op == "truediv" {
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
            "and_" => return Some(Constant::Bool(*x & *y)),
            "or_" => return Some(Constant::Bool(*x | *y)),
            "xor" => return Some(Constant::Bool(*x ^ *y)),
            _ => {}
        }
    }
    int_binop(op, as_int(a)?, as_int(b)?).map(Constant::Int)
}

/// Float arithmetic (an int operand converts to float, rounding to nearest as
/// Python does): IEEE results are Python's results. Division by zero raises, so
/// it is not folded; `//`, `%` and `**` are left to run time.
fn fold_float(op: &str, a: &Constant, b: &Constant) -> Option<Constant> {
    let f = |c: &Constant| match c {
        Constant::Float(x) => Some(*x),
        _ => as_int(c).map(|i| i as f64),
    };
    let (x, y) = (f(a)?, f(b)?);
    let r = match op {
        "add" => x + y,
        "sub" => x - y,
        "mul" => x * y,
        "truediv" | "div" if y != 0.0 => x / y,
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
        assert_eq!(fold("floordiv", &[&i(-7), &i(2)]), Some(i(-4)));
        assert_eq!(fold("mod", &[&i(-7), &i(2)]), Some(i(1)));
        assert_eq!(fold("mod", &[&i(7), &i(-2)]), Some(i(-1)));
        assert_eq!(fold("div", &[&i(7), &i(0)]), None);
        assert_eq!(fold("floordiv", &[&i(i64::MIN), &i(-1)]), None);
        assert_eq!(fold("truediv", &[&i(1), &i(2)]), Some(Constant::Float(0.5)));
    }

    #[test]
    fn overflow_is_not_folded() {
        assert_eq!(fold("add", &[&i(i64::MAX), &i(1)]), None);
        assert_eq!(fold("lshift", &[&i(1), &i(62)]), Some(i(1 << 62)));
        assert_eq!(fold("lshift", &[&i(1), &i(63)]), None);
        assert_eq!(fold("lshift", &[&i(-1), &i(63)]), Some(i(i64::MIN)));
        assert_eq!(fold("lshift", &[&i(2), &i(63)]), None);
        assert_eq!(fold("pow", &[&i(2), &i(10)]), Some(i(1024)));
        assert_eq!(fold("pow", &[&i(2), &i(-1)]), None);
        assert_eq!(fold("neg", &[&i(i64::MIN)]), None);
    }

    #[test]
    fn strings() {
        let s = |v: &str| Constant::Str(v.to_string());
        let len = Constant::Builtin("len".into());
        assert_eq!(fold("simple_call", &[&len, &s("abc")]), Some(i(3)));
        assert_eq!(fold("simple_call", &[&len, &s("\u{e9}")]), None);
        assert_eq!(
            fold("getitem", &[&s("abc"), &i(-1)]),
            Some(Constant::Char(b'c'))
        );
        assert_eq!(fold("getitem", &[&s("abc"), &i(3)]), None);
        assert_eq!(fold("getitem", &[&s("abc"), &i(-4)]), None);
        assert_eq!(
            fold("contains", &[&s("abc"), &s("bc")]),
            Some(Constant::Bool(true))
        );
        assert_eq!(fold("contains", &[&s("abc"), &i(1)]), None);
    }

    #[test]
    fn floats() {
        let f = Constant::Float;
        assert_eq!(fold("truediv", &[&i(7), &i(2)]), Some(f(3.5)));
        assert_eq!(fold("div", &[&i(7), &f(2.0)]), Some(f(3.5)));
        assert_eq!(fold("mul", &[&f(1.5), &i(2)]), Some(f(3.0)));
        assert_eq!(fold("truediv", &[&f(1.0), &f(0.0)]), None);
        assert_eq!(fold("truediv", &[&i(1 << 60), &i(3)]), None);
        assert_eq!(fold("floordiv", &[&f(7.0), &f(2.0)]), None);
        assert_eq!(fold("add", &[&f(1.0), &Constant::Str("a".into())]), None);
    }

    #[test]
    fn bools_and_comparisons() {
        let t = Constant::Bool(true);
        assert_eq!(fold("add", &[&t, &t]), Some(i(2)));
        assert_eq!(
            fold("and_", &[&t, &Constant::Bool(false)]),
            Some(Constant::Bool(false))
        );
        assert_eq!(fold("lt", &[&i(1), &t]), Some(Constant::Bool(false)));
        assert_eq!(
            fold("not_", &[&Constant::Str(String::new())]),
            Some(t.clone())
        );
        assert_eq!(
            fold("is_", &[&Constant::None, &i(0)]),
            Some(Constant::Bool(false))
        );
        assert_eq!(
            fold("eq", &[&Constant::None, &i(1)]),
            Some(Constant::Bool(false))
        );
        assert_eq!(
            fold("ne", &[&Constant::Str("a".into()), &Constant::None]),
            Some(t.clone())
        );
        assert_eq!(fold("lt", &[&Constant::None, &i(1)]), None);
        let nan = Constant::Float(f64::NAN);
        assert_eq!(fold("eq", &[&nan, &nan]), Some(Constant::Bool(false)));
        assert_eq!(fold("ne", &[&nan, &nan]), Some(Constant::Bool(true)));
        assert_eq!(fold("lt", &[&i(1), &Constant::Float(2.0)]), None);
    }
}

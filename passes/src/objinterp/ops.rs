//! The Python semantics of each flow operation on [`ObjValue`]s.
//!
//! Ints are machine words (RPython's `int`): `+ - * ** <<` wrap instead of
//! growing into longs; everything else (floor division and modulo signs,
//! mixed int/float comparisons, bools as ints, sequence repetition, negative
//! indexes) is CPython's, per dialect, including the exception messages.

use super::containers;
use super::value::ObjValue;
use rpy_ir::ast::Dialect;
use rpy_ir::opcode::Opcode;
use rpy_llinterp::pystr::{parse_float, parse_int, FormatSpec};
use std::cmp::Ordering;
use std::rc::Rc;

/// A Python exception raised by an operation: its class and message.
#[derive(Clone, Debug, PartialEq)]
pub struct Exc {
    pub exc: &'static str,
    pub msg: String,
}

pub type OpResult = Result<ObjValue, Exc>;

pub fn exc(exc: &'static str, msg: impl Into<String>) -> Exc {
    Exc {
        exc,
        msg: msg.into(),
    }
}

/// A TypeError with `msg`.
pub fn type_error(msg: impl Into<String>) -> Exc {
    exc("TypeError", msg)
}

/// The operations of flow graphs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    TrueDiv,
    FloorDiv,
    Mod,
    Pow,
    LShift,
    RShift,
    And,
    Or,
    Xor,
    Neg,
    Pos,
    Invert,
    Not,
    Bool,
    Lt,
    Le,
    Eq,
    Ne,
    Gt,
    Ge,
    Is,
    Contains,
    SimpleCall,
    PrintItem,
    GetItem,
    SetItem,
    GetAttr,
    SetAttr,
    NewTuple,
    NewList,
    NewDict,
    GetSlice,
    DelItem,
    DelSlice,
    /// `obj[lo:hi] = value` (arguments in that order).
    SetSlice,
    Iter,
    Next,
    /// `jit_marker(#hint, driver, greens and reds...)`: a JitDriver's
    /// merge point, which does nothing when the program is not jitted.
    JitMarker,
}

impl Op {
    pub const ALL: [Op; 42] = [
        Op::Add,
        Op::Sub,
        Op::Mul,
        Op::Div,
        Op::TrueDiv,
        Op::FloorDiv,
        Op::Mod,
        Op::Pow,
        Op::LShift,
        Op::RShift,
        Op::And,
        Op::Or,
        Op::Xor,
        Op::Neg,
        Op::Pos,
        Op::Invert,
        Op::Not,
        Op::Bool,
        Op::Lt,
        Op::Le,
        Op::Eq,
        Op::Ne,
        Op::Gt,
        Op::Ge,
        Op::Is,
        Op::Contains,
        Op::SimpleCall,
        Op::PrintItem,
        Op::GetItem,
        Op::SetItem,
        Op::GetAttr,
        Op::SetAttr,
        Op::NewTuple,
        Op::NewList,
        Op::NewDict,
        Op::GetSlice,
        Op::DelItem,
        Op::DelSlice,
        Op::SetSlice,
        Op::Iter,
        Op::Next,
        Op::JitMarker,
    ];

    /// The flow graphs' operation this is.
    pub fn opcode(self) -> Opcode {
        match self {
            Op::Add => Opcode::Add,
            Op::Sub => Opcode::Sub,
            Op::Mul => Opcode::Mul,
            Op::Div => Opcode::Div,
            Op::TrueDiv => Opcode::Truediv,
            Op::FloorDiv => Opcode::Floordiv,
            Op::Mod => Opcode::Mod,
            Op::Pow => Opcode::Pow,
            Op::LShift => Opcode::Lshift,
            Op::RShift => Opcode::Rshift,
            Op::And => Opcode::And,
            Op::Or => Opcode::Or,
            Op::Xor => Opcode::Xor,
            Op::Neg => Opcode::Neg,
            Op::Pos => Opcode::Pos,
            Op::Invert => Opcode::Invert,
            Op::Not => Opcode::Not,
            Op::Bool => Opcode::Bool,
            Op::Lt => Opcode::Lt,
            Op::Le => Opcode::Le,
            Op::Eq => Opcode::Eq,
            Op::Ne => Opcode::Ne,
            Op::Gt => Opcode::Gt,
            Op::Ge => Opcode::Ge,
            Op::Is => Opcode::Is,
            Op::Contains => Opcode::Contains,
            Op::SimpleCall => Opcode::SimpleCall,
            Op::PrintItem => Opcode::PrintItem,
            Op::GetItem => Opcode::Getitem,
            Op::SetItem => Opcode::Setitem,
            Op::GetAttr => Opcode::Getattr,
            Op::SetAttr => Opcode::Setattr,
            Op::NewTuple => Opcode::Newtuple,
            Op::NewList => Opcode::Newlist,
            Op::NewDict => Opcode::Newdict,
            Op::GetSlice => Opcode::Getslice,
            Op::DelItem => Opcode::Delitem,
            Op::DelSlice => Opcode::Delslice,
            Op::SetSlice => Opcode::Setslice,
            Op::Iter => Opcode::Iter,
            Op::Next => Opcode::Next,
            Op::JitMarker => Opcode::JitMarker,
        }
    }

    /// The operation's name in flow graphs.
    pub fn name(self) -> &'static str {
        self.opcode().name()
    }

    /// The operation of the flow graphs' `op`, if the interpreter has it.
    pub fn of(op: Opcode) -> Option<Op> {
        Op::ALL.into_iter().find(|o| o.opcode() == op)
    }

    pub fn from_name(name: &str) -> Option<Op> {
        Op::of(Opcode::from_name(name)?)
    }

    /// The number of arguments, when fixed.
    pub fn arity(self) -> Option<usize> {
        match self {
            Op::SimpleCall | Op::NewTuple | Op::NewList | Op::JitMarker => None,
            Op::NewDict => Some(0),
            Op::Neg
            | Op::Pos
            | Op::Invert
            | Op::Not
            | Op::Bool
            | Op::PrintItem
            | Op::Iter
            | Op::Next => Some(1),
            Op::SetItem | Op::SetAttr | Op::GetSlice | Op::DelSlice => Some(3),
            Op::SetSlice => Some(4),
            _ => Some(2),
        }
    }

    /// The operator symbol, for error messages.
    fn symbol(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub | Op::Neg => "-",
            Op::Pos => "+",
            Op::Invert => "~",
            Op::Mul => "*",
            Op::Div | Op::TrueDiv => "/",
            Op::FloorDiv => "//",
            Op::Mod => "%",
            Op::Pow => "** or pow()",
            Op::LShift => "<<",
            Op::RShift => ">>",
            Op::And => "&",
            Op::Or => "|",
            Op::Xor => "^",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Eq => "==",
            Op::Ne => "!=",
            _ => "?",
        }
    }
}

/// Two operands as numbers: both int-like, or at least one float.
enum Nums {
    Ints(i64, i64),
    Floats(f64, f64),
}

fn nums(a: &ObjValue, b: &ObjValue) -> Option<Nums> {
    let f = |v: &ObjValue| match v {
        ObjValue::Float(x) => Some(*x),
        // An r_uint next to a float (or divided truly) is a float operand.
        ObjValue::UInt(u) => Some(*u as f64),
        other => other.as_int().map(|i| i as f64),
    };
    match (a.as_int(), b.as_int()) {
        (Some(x), Some(y)) => Some(Nums::Ints(x, y)),
        _ => Some(Nums::Floats(f(a)?, f(b)?)),
    }
}

fn unsupported(op: Op, a: &ObjValue, b: &ObjValue) -> Exc {
    type_error(format!(
        "unsupported operand type(s) for {}: '{}' and '{}'",
        op.symbol(),
        a.type_name(),
        b.type_name()
    ))
}

/// Python's floor division of machine words (`MIN // -1` wraps).
pub fn int_floordiv(a: i64, b: i64) -> i64 {
    let q = a.wrapping_div(b);
    if a.wrapping_rem(b) != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// Python's modulo of machine words: the result has the divisor's sign.
pub fn int_mod(a: i64, b: i64) -> i64 {
    let r = a.wrapping_rem(b);
    if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    }
}

/// CPython's `float_divmod`: (floor quotient, modulo with the divisor's sign).
pub fn float_divmod(vx: f64, wx: f64) -> (f64, f64) {
    let mut m = vx % wx;
    let mut div = (vx - m) / wx;
    if m != 0.0 {
        if (wx < 0.0) != (m < 0.0) {
            m += wx;
            div -= 1.0;
        }
    } else {
        m = 0.0_f64.copysign(wx);
    }
    let floordiv = if div != 0.0 {
        let mut fd = div.floor();
        if div - fd > 0.5 {
            fd += 1.0;
        }
        fd
    } else {
        0.0_f64.copysign(vx / wx)
    };
    (floordiv, m)
}

/// `x ** y` on floats, with CPython's errors.
pub fn float_pow(x: f64, y: f64) -> OpResult {
    if x == 0.0 && y < 0.0 && y.is_finite() {
        return Err(exc(
            "ZeroDivisionError",
            "0.0 cannot be raised to a negative power",
        ));
    }
    if x < 0.0 && x.is_finite() && y.is_finite() && y.floor() != y {
        // Python 3 would return a complex number, which RPython has not.
        return Err(exc(
            "ValueError",
            "negative number cannot be raised to a fractional power",
        ));
    }
    let r = x.powf(y);
    if r.is_infinite() && x.is_finite() && y.is_finite() {
        return Err(exc(
            "OverflowError",
            "(34, 'Numerical result out of range')",
        ));
    }
    Ok(ObjValue::Float(r))
}

/// `a ** b` on machine words; a negative exponent gives a float.
fn int_pow(a: i64, b: i64) -> OpResult {
    if b < 0 {
        return float_pow(a as f64, b as f64);
    }
    let (mut base, mut e, mut acc) = (a, b as u64, 1i64);
    while e > 0 {
        if e & 1 == 1 {
            acc = acc.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        e >>= 1;
    }
    Ok(ObjValue::Int(acc))
}

fn float_check(op: &str, y: f64, dialect: Dialect) -> Result<(), Exc> {
    if y != 0.0 {
        return Ok(());
    }
    let msg = match (op, dialect) {
        ("/", _) => "float division by zero",
        ("//", Dialect::Py2) => "float divmod()",
        ("//", Dialect::Py3) => "float floor division by zero",
        _ => "float modulo",
    };
    Err(exc("ZeroDivisionError", msg))
}

/// `s * n` for a sequence and a count (negative counts give an empty
/// result); MemoryError when the result alone would exceed the default heap
/// bound, refused before it is allocated (the allocator would abort rpy).
fn repeat(seq: &ObjValue, n: i64) -> Result<ObjValue, Exc> {
    let n = n.max(0) as usize;
    let (len, item_bytes) = match seq {
        ObjValue::Str(s) => (s.len(), 1),
        ObjValue::List(l) => (l.borrow().len(), std::mem::size_of::<ObjValue>()),
        ObjValue::Tuple(t) => (t.len(), std::mem::size_of::<ObjValue>()),
        _ => (0, 0),
    };
    let bytes = (len as u128) * (n as u128) * (item_bytes as u128);
    if bytes > u128::from(rpy_llinterp::heap_limit::DEFAULT_HEAP_LIMIT) {
        return Err(exc("MemoryError", ""));
    }
    Ok(match seq {
        // Immutable: once is the string itself, as in CPython and the
        // translated program (rstr.ll_str_mul).
        ObjValue::Str(_) if n == 1 => seq.clone(),
        ObjValue::Str(s) => ObjValue::str(s.repeat(n)),
        ObjValue::List(l) => {
            let items = l.borrow();
            let mut out = Vec::with_capacity(items.len() * n);
            for _ in 0..n {
                out.extend(items.iter().cloned());
            }
            ObjValue::list(out)
        }
        ObjValue::Tuple(t) => {
            let mut out = Vec::with_capacity(t.len() * n);
            for _ in 0..n {
                out.extend(t.iter().cloned());
            }
            ObjValue::tuple(out)
        }
        other => other.clone(),
    })
}

/// A binary arithmetic or bitwise operation.
pub fn binary(op: Op, a: &ObjValue, b: &ObjValue, dialect: Dialect) -> OpResult {
    use ObjValue as V;
    // Sequences first.
    match (op, a, b) {
        (Op::Add, V::Str(x), V::Str(y)) => {
            let mut s = x.to_vec();
            s.extend_from_slice(y);
            return Ok(V::str(s));
        }
        (Op::Add, V::List(x), V::List(y)) => {
            let mut l = x.borrow().clone();
            l.extend(y.borrow().iter().cloned());
            return Ok(V::list(l));
        }
        (Op::Add, V::Tuple(x), V::Tuple(y)) => {
            return Ok(V::tuple(x.iter().chain(y.iter()).cloned().collect()));
        }
        (Op::Add, V::Str(_) | V::List(_) | V::Tuple(_), _) => {
            let msg = match (a, dialect) {
                (V::Str(_), Dialect::Py2) => {
                    format!("cannot concatenate 'str' and '{}' objects", b.type_name())
                }
                _ => format!(
                    "can only concatenate {} (not \"{}\") to {}",
                    a.type_name(),
                    b.type_name(),
                    a.type_name()
                ),
            };
            return Err(type_error(msg));
        }
        (Op::Mul, V::Str(_) | V::List(_) | V::Tuple(_), n)
        | (Op::Mul, n, V::Str(_) | V::List(_) | V::Tuple(_)) => {
            let seq = if matches!(a, V::Str(_) | V::List(_) | V::Tuple(_)) {
                a
            } else {
                b
            };
            return match n.as_int() {
                Some(n) => repeat(seq, n),
                None => Err(type_error(format!(
                    "can't multiply sequence by non-int of type '{}'",
                    n.type_name()
                ))),
            };
        }
        (Op::Mod, V::Str(fmt), arg) => return format_percent(fmt, arg, dialect),
        _ => {}
    }
    if let Some(r) = super::rlib::unsigned_binary(op, a, b) {
        return r;
    }
    let Some(n) = nums(a, b) else {
        return Err(unsupported(op, a, b));
    };
    match n {
        Nums::Ints(x, y) => int_binary(op, x, y, a, b, dialect),
        Nums::Floats(x, y) => match op {
            Op::Add => Ok(V::Float(x + y)),
            Op::Sub => Ok(V::Float(x - y)),
            Op::Mul => Ok(V::Float(x * y)),
            Op::Div | Op::TrueDiv => {
                float_check("/", y, dialect)?;
                Ok(V::Float(x / y))
            }
            Op::FloorDiv => {
                float_check("//", y, dialect)?;
                Ok(V::Float(float_divmod(x, y).0))
            }
            Op::Mod => {
                float_check("%", y, dialect)?;
                Ok(V::Float(float_divmod(x, y).1))
            }
            Op::Pow => float_pow(x, y),
            _ => Err(unsupported(op, a, b)),
        },
    }
}

fn int_binary(op: Op, x: i64, y: i64, a: &ObjValue, b: &ObjValue, dialect: Dialect) -> OpResult {
    use ObjValue as V;
    let zero = |msg: &str| Err(exc("ZeroDivisionError", msg));
    let both_bool = matches!((a, b), (V::Bool(_), V::Bool(_)));
    Ok(match op {
        Op::Add => V::Int(x.wrapping_add(y)),
        Op::Sub => V::Int(x.wrapping_sub(y)),
        Op::Mul => V::Int(x.wrapping_mul(y)),
        Op::Div | Op::FloorDiv => {
            if y == 0 {
                return zero(match (op, dialect) {
                    (Op::Div, Dialect::Py3) => "division by zero",
                    _ => "integer division or modulo by zero",
                });
            }
            V::Int(int_floordiv(x, y))
        }
        Op::TrueDiv => {
            if y == 0 {
                return zero("division by zero");
            }
            V::Float(x as f64 / y as f64)
        }
        Op::Mod => {
            if y == 0 {
                return zero(match dialect {
                    Dialect::Py2 => "integer division or modulo by zero",
                    Dialect::Py3 => "integer modulo by zero",
                });
            }
            V::Int(int_mod(x, y))
        }
        Op::Pow => return int_pow(x, y),
        Op::LShift | Op::RShift if y < 0 => {
            return Err(exc("ValueError", "negative shift count"));
        }
        Op::LShift => V::Int(if y >= 64 { 0 } else { x << y }),
        Op::RShift => V::Int(x >> y.min(63)),
        Op::And if both_bool => V::Bool(x & y != 0),
        Op::Or if both_bool => V::Bool(x | y != 0),
        Op::Xor if both_bool => V::Bool(x ^ y != 0),
        Op::And => V::Int(x & y),
        Op::Or => V::Int(x | y),
        Op::Xor => V::Int(x ^ y),
        _ => return Err(unsupported(op, a, b)),
    })
}

/// A unary operation: `neg pos invert not_ bool`.
pub fn unary(op: Op, a: &ObjValue) -> OpResult {
    use ObjValue as V;
    match (op, a) {
        (Op::Not, _) => return Ok(V::Bool(!a.truth())),
        (Op::Bool, _) => return Ok(V::Bool(a.truth())),
        (Op::Neg, V::Float(x)) => return Ok(V::Float(-x)),
        (Op::Pos, V::Float(x)) => return Ok(V::Float(*x)),
        _ => {}
    }
    if let Some(r) = super::rlib::unsigned_unary(op, a) {
        return r;
    }
    match (op, a.as_int()) {
        (Op::Neg, Some(i)) => Ok(V::Int(i.wrapping_neg())),
        (Op::Pos, Some(i)) => Ok(V::Int(i)),
        (Op::Invert, Some(i)) => Ok(V::Int(!i)),
        _ => Err(type_error(format!(
            "bad operand type for unary {}: '{}'",
            op.symbol(),
            a.type_name()
        ))),
    }
}

/// Exact comparison of an int and a float, as CPython does it (no rounding
/// of the int); `None` when the float is NaN.
fn cmp_int_float(i: i64, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    const TWO63: f64 = 9_223_372_036_854_775_808.0;
    if f >= TWO63 {
        return Some(Ordering::Less);
    }
    if f < -TWO63 {
        return Some(Ordering::Greater);
    }
    let t = f.trunc();
    match i.cmp(&(t as i64)) {
        Ordering::Equal => 0.0.partial_cmp(&(f - t)),
        o => Some(o),
    }
}

/// The order of two numbers (`None`: unordered, a NaN is involved).
fn cmp_numbers(a: &ObjValue, b: &ObjValue) -> Option<Option<Ordering>> {
    use ObjValue as V;
    // An r_uint compares by its value with any integer.
    if matches!(a, V::UInt(_)) || matches!(b, V::UInt(_)) {
        let exact = |v: &ObjValue| match v {
            V::UInt(u) => Some(i128::from(*u)),
            other => other.as_int().map(i128::from),
        };
        return Some(Some(exact(a)?.cmp(&exact(b)?)));
    }
    Some(match (a, b) {
        (V::Float(x), V::Float(y)) => x.partial_cmp(y),
        (V::Float(x), _) => cmp_int_float(b.as_int()?, *x).map(Ordering::reverse),
        (_, V::Float(y)) => cmp_int_float(a.as_int()?, *y),
        _ => Some(a.as_int()?.cmp(&b.as_int()?)),
    })
}

/// `a == b`. Data nested deeper than the recursion limit compares unequal
/// there (`nesting`: the operation raises RecursionError).
pub fn equal(a: &ObjValue, b: &ObjValue) -> bool {
    use ObjValue as V;
    if let Some(o) = cmp_numbers(a, b) {
        return o == Some(Ordering::Equal);
    }
    match (a, b) {
        (V::Str(x), V::Str(y)) => x == y,
        (V::None, V::None) => true,
        (V::List(x), V::List(y)) => {
            Rc::ptr_eq(x, y)
                || super::nesting::nested(
                    "in comparison",
                    || false,
                    || {
                        let (x, y) = (x.borrow(), y.borrow());
                        x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| equal(p, q))
                    },
                )
        }
        (V::Func(x), V::Func(y)) | (V::Builtin(x), V::Builtin(y)) => x == y,
        // Without a comparison method of their class, objects are equal
        // only to themselves.
        (V::Instance(x), V::Instance(y)) => Rc::ptr_eq(x, y),
        (V::Class(x), V::Class(y)) => Rc::ptr_eq(x, y),
        (V::Tuple(_) | V::Dict(_), _) => super::nesting::nested(
            "in comparison",
            || false,
            || containers::equal_containers(a, b).unwrap_or(false),
        ),
        _ => containers::equal_containers(a, b).unwrap_or(false),
    }
}

/// Python 2's order of values of unrelated types: None first, then numbers,
/// then by type name.
fn py2_type_rank(v: &ObjValue) -> (u8, &'static str) {
    match v {
        ObjValue::None => (0, ""),
        ObjValue::Int(_) | ObjValue::UInt(_) | ObjValue::Bool(_) | ObjValue::Float(_) => (1, ""),
        other => (2, other.type_name()),
    }
}

/// The order of two values for `< <= > >=`; `Ok(None)` when unordered
/// (NaN). Data nested deeper than the recursion limit raises
/// RecursionError.
fn order(op: Op, a: &ObjValue, b: &ObjValue, dialect: Dialect) -> Result<Option<Ordering>, Exc> {
    if matches!(
        (a, b),
        (ObjValue::List(_), ObjValue::List(_)) | (ObjValue::Tuple(_), ObjValue::Tuple(_))
    ) {
        super::nesting::nested(
            "in comparison",
            || Err(recursion_error("in comparison")),
            || order_of_any(op, a, b, dialect),
        )
    } else {
        order_of_any(op, a, b, dialect)
    }
}

/// The RecursionError of a walk over data nested too deep (`nesting`),
/// `doing` what CPython's message says.
pub fn recursion_error(doing: &str) -> Exc {
    exc(
        "RecursionError",
        format!("maximum recursion depth exceeded {doing}"),
    )
}

/// `order` without the bound on nesting.
fn order_of_any(
    op: Op,
    a: &ObjValue,
    b: &ObjValue,
    dialect: Dialect,
) -> Result<Option<Ordering>, Exc> {
    use ObjValue as V;
    if let Some(o) = cmp_numbers(a, b) {
        return Ok(o);
    }
    match (a, b) {
        (V::Str(x), V::Str(y)) => Ok(Some(x.cmp(y))),
        (V::List(x), V::List(y)) => {
            let (x, y) = (x.borrow().clone(), y.borrow().clone());
            for (p, q) in x.iter().zip(y.iter()) {
                if !equal(p, q) {
                    return order(op, p, q, dialect);
                }
            }
            Ok(Some(x.len().cmp(&y.len())))
        }
        (V::Tuple(x), V::Tuple(y)) => {
            for (p, q) in x.iter().zip(y.iter()) {
                if !equal(p, q) {
                    return order(op, p, q, dialect);
                }
            }
            Ok(Some(x.len().cmp(&y.len())))
        }
        _ => match dialect {
            Dialect::Py2 => Ok(Some(py2_type_rank(a).cmp(&py2_type_rank(b)))),
            Dialect::Py3 => Err(type_error(format!(
                "'{}' not supported between instances of '{}' and '{}'",
                op.symbol(),
                a.type_name(),
                b.type_name()
            ))),
        },
    }
}

/// A comparison: `lt le eq ne gt ge is_`.
pub fn compare(op: Op, a: &ObjValue, b: &ObjValue, dialect: Dialect) -> OpResult {
    use ObjValue as V;
    let r = match op {
        Op::Eq => equal(a, b),
        Op::Ne => !equal(a, b),
        Op::Is => match (a, b) {
            (V::Str(x), V::Str(y)) => Rc::ptr_eq(x, y) || (x.len() <= 1 && x == y),
            (V::List(x), V::List(y)) => Rc::ptr_eq(x, y),
            (V::Dict(x), V::Dict(y)) => Rc::ptr_eq(x, y),
            (V::Tuple(x), V::Tuple(y)) => Rc::ptr_eq(x, y) || (x.is_empty() && y.is_empty()),
            (V::Float(x), V::Float(y)) => x.to_bits() == y.to_bits(),
            (V::Int(x), V::Int(y)) => x == y,
            (V::Bool(x), V::Bool(y)) => x == y,
            (V::None, V::None) => true,
            (V::Func(x), V::Func(y)) | (V::Builtin(x), V::Builtin(y)) => x == y,
            (V::Class(x), V::Class(y)) => Rc::ptr_eq(x, y),
            (V::Instance(x), V::Instance(y)) => Rc::ptr_eq(x, y),
            _ => false,
        },
        _ => {
            let o = order(op, a, b, dialect)?;
            match (op, o) {
                (_, None) => false,
                (Op::Lt, Some(o)) => o == Ordering::Less,
                (Op::Le, Some(o)) => o != Ordering::Greater,
                (Op::Gt, Some(o)) => o == Ordering::Greater,
                (Op::Ge, Some(o)) => o != Ordering::Less,
                _ => unreachable!("compare is called with comparison ops only"),
            }
        }
    };
    Ok(V::Bool(r))
}

/// `item in container` (the op's arguments are `container, item`).
pub fn contains(container: &ObjValue, item: &ObjValue) -> OpResult {
    match (container, item) {
        (ObjValue::Str(s), ObjValue::Str(sub)) => Ok(ObjValue::Bool(
            sub.is_empty() || s.windows(sub.len()).any(|w| w == &sub[..]),
        )),
        (ObjValue::Str(_), other) => Err(type_error(format!(
            "'in <string>' requires string as left operand, not {}",
            other.type_name()
        ))),
        (ObjValue::List(l), _) => Ok(ObjValue::Bool(l.borrow().iter().any(|x| equal(x, item)))),
        (other, _) => containers::contains(other, item).unwrap_or_else(|| {
            Err(type_error(format!(
                "argument of type '{}' is not iterable",
                other.type_name()
            )))
        }),
    }
}

/// A sequence index, with negative indexes counting from the end.
fn seq_index(len: usize, idx: &ObjValue) -> Option<usize> {
    let i = idx.as_int()?;
    let i = if i < 0 { i + len as i64 } else { i };
    (0..len as i64).contains(&i).then_some(i as usize)
}

fn index_type_error(obj: &ObjValue, idx: &ObjValue, dialect: Dialect) -> Exc {
    let what = if matches!(obj, ObjValue::Str(_)) {
        "string"
    } else {
        "list"
    };
    type_error(match (obj, dialect) {
        (ObjValue::Str(_), Dialect::Py3) => {
            format!("string indices must be integers, not '{}'", idx.type_name())
        }
        (_, Dialect::Py3) => format!(
            "list indices must be integers or slices, not {}",
            idx.type_name()
        ),
        (_, Dialect::Py2) => format!("{what} indices must be integers, not {}", idx.type_name()),
    })
}

/// `obj[idx]`.
pub fn getitem(obj: &ObjValue, idx: &ObjValue, dialect: Dialect) -> OpResult {
    if let Some(r) = containers::getitem(obj, idx, dialect) {
        return r;
    }
    if idx.as_int().is_none() && matches!(obj, ObjValue::Str(_) | ObjValue::List(_)) {
        return Err(index_type_error(obj, idx, dialect));
    }
    match obj {
        ObjValue::Str(s) => match seq_index(s.len(), idx) {
            Some(i) => Ok(ObjValue::str([s[i]])),
            None => Err(exc("IndexError", "string index out of range")),
        },
        ObjValue::List(l) => {
            let l = l.borrow();
            match seq_index(l.len(), idx) {
                Some(i) => Ok(l[i].clone()),
                None => Err(exc("IndexError", "list index out of range")),
            }
        }
        other => Err(type_error(match dialect {
            Dialect::Py2 => format!(
                "'{}' object has no attribute '__getitem__'",
                other.type_name()
            ),
            Dialect::Py3 => format!("'{}' object is not subscriptable", other.type_name()),
        })),
    }
}

/// `obj[idx] = value`.
pub fn setitem(obj: &ObjValue, idx: &ObjValue, value: ObjValue, dialect: Dialect) -> OpResult {
    if let Some(r) = containers::setitem(obj, idx, value.clone()) {
        return r;
    }
    match obj {
        ObjValue::List(l) => {
            if idx.as_int().is_none() {
                return Err(index_type_error(obj, idx, dialect));
            }
            let mut l = l.borrow_mut();
            match seq_index(l.len(), idx) {
                Some(i) => {
                    l[i] = value;
                    Ok(ObjValue::None)
                }
                None => Err(exc("IndexError", "list assignment index out of range")),
            }
        }
        other => Err(type_error(format!(
            "'{}' object does not support item assignment",
            other.type_name()
        ))),
    }
}

/// `obj.name`: the methods of lists, dicts, tuples and strings.
pub fn getattr(obj: &ObjValue, name: &ObjValue, dialect: Dialect) -> OpResult {
    if let ObjValue::Str(n) = name {
        if let Some(m) = containers::method(obj, &String::from_utf8_lossy(n), dialect) {
            return Ok(m);
        }
    }
    Err(exc(
        "AttributeError",
        format!(
            "'{}' object has no attribute '{}'",
            obj.type_name(),
            String::from_utf8_lossy(&name.to_str(Dialect::Py3))
        ),
    ))
}

/// `obj.name = value`.
pub fn setattr(obj: &ObjValue, name: &ObjValue) -> OpResult {
    Err(exc(
        "AttributeError",
        format!(
            "'{}' object has no attribute '{}'",
            obj.type_name(),
            String::from_utf8_lossy(&name.to_str(Dialect::Py3))
        ),
    ))
}

/// Checks a builtin's argument count (the flow builder checks constant
/// callees already; this is for values that reach a call some other way).
fn arity(name: &str, args: &[ObjValue], min: usize, max: usize) -> Result<(), Exc> {
    if args.len() >= min && args.len() <= max {
        return Ok(());
    }
    Err(type_error(if min == max {
        format!("{name}() takes exactly one argument ({} given)", args.len())
    } else {
        format!(
            "{name}() takes at most {max} arguments ({} given)",
            args.len()
        )
    }))
}

/// `int(x)` of a float: truncation, with CPython's errors.
pub fn float_to_int(x: f64) -> OpResult {
    if x.is_nan() {
        return Err(exc("ValueError", "cannot convert float NaN to integer"));
    }
    if x.is_infinite() {
        return Err(exc(
            "OverflowError",
            "cannot convert float infinity to integer",
        ));
    }
    let t = x.trunc();
    if !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&t) {
        return Err(exc(
            "OverflowError",
            "int too large to convert to machine word",
        ));
    }
    Ok(ObjValue::Int(t as i64))
}

/// Splits "ValueError: text" as `parse_int`/`parse_float` report it.
fn parse_error(e: String) -> Exc {
    match e.strip_prefix("ValueError: ") {
        Some(m) => exc("ValueError", m),
        None => exc("ValueError", e),
    }
}

/// `int(s, base)` on a string.
fn int_of_str(s: &[u8], base: i64, dialect: Dialect) -> OpResult {
    let fail = || {
        let shown = ObjValue::str(s).to_repr(dialect);
        exc(
            "ValueError",
            format!(
                "invalid literal for int() with base {base}: {}",
                String::from_utf8_lossy(&shown)
            ),
        )
    };
    if dialect == Dialect::Py2 && s.contains(&b'_') {
        return Err(fail());
    }
    if base == 10 {
        return parse_int(s).map(ObjValue::Int).map_err(|_| fail());
    }
    let t = String::from_utf8_lossy(s);
    let t = t.trim_matches(|c: char| c.is_ascii_whitespace());
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = t.to_ascii_lowercase();
    let prefixed = |p: &str| lower.strip_prefix(p).map(|r| r.trim_start_matches('_'));
    let (base, digits) = match (base, prefixed("0x"), prefixed("0o"), prefixed("0b")) {
        (16 | 0, Some(r), _, _) => (16, r.to_string()),
        (8 | 0, _, Some(r), _) => (8, r.to_string()),
        (2 | 0, _, _, Some(r)) => (2, r.to_string()),
        (0, _, _, _) => (10, lower.clone()),
        (b, _, _, _) => (b as u32, lower.clone()),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return Err(fail());
    }
    let mut acc: i64 = 0;
    for c in digits.chars().filter(|c| *c != '_') {
        let d = c.to_digit(base).ok_or_else(fail)?;
        acc = acc
            .checked_mul(i64::from(base))
            .and_then(|a| a.checked_add(i64::from(d)))
            .ok_or_else(fail)?;
    }
    Ok(ObjValue::Int(if neg { -acc } else { acc }))
}

/// Calls the builtin `name`.
pub fn call_builtin(name: &str, args: &[ObjValue], dialect: Dialect) -> OpResult {
    use ObjValue as V;
    if let Some(r) = containers::call_builtin(name, args, dialect) {
        return r;
    }
    match name {
        "len" => {
            arity(name, args, 1, 1)?;
            match &args[0] {
                V::Str(s) => Ok(V::Int(s.len() as i64)),
                V::List(l) => Ok(V::Int(l.borrow().len() as i64)),
                other => match containers::len(other) {
                    Some(n) => Ok(V::Int(n as i64)),
                    None => Err(type_error(format!(
                        "object of type '{}' has no len()",
                        other.type_name()
                    ))),
                },
            }
        }
        "str" => {
            arity(name, args, 0, 1)?;
            Ok(V::str(
                args.first().map_or(Vec::new(), |a| a.to_str(dialect)),
            ))
        }
        "hash" => {
            arity(name, args, 1, 1)?;
            super::rlib::hash(&args[0])
        }
        "repr" => {
            arity(name, args, 1, 1)?;
            Ok(V::str(args[0].to_repr(dialect)))
        }
        "int" => {
            arity(name, args, 0, 2)?;
            match args {
                [] => Ok(V::Int(0)),
                [V::Str(s)] => int_of_str(s, 10, dialect),
                [V::Float(x)] => float_to_int(*x),
                // The translated int of an r_uint is its bits as a signed word.
                [V::UInt(u)] => Ok(V::Int(*u as i64)),
                [x] => match x.as_int() {
                    Some(i) => Ok(V::Int(i)),
                    None => Err(type_error(match dialect {
                        Dialect::Py2 => {
                            "int() argument must be a string or a number".to_string()
                        }
                        Dialect::Py3 => format!(
                            "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                            x.type_name()
                        ),
                    })),
                },
                [V::Str(s), b] => match b.as_int() {
                    Some(b) if b == 0 || (2..=36).contains(&b) => int_of_str(s, b, dialect),
                    Some(_) => Err(exc(
                        "ValueError",
                        "int() base must be >= 2 and <= 36, or 0",
                    )),
                    None => Err(type_error(format!(
                        "'{}' object cannot be interpreted as an integer",
                        b.type_name()
                    ))),
                },
                _ => Err(type_error("int() can't convert non-string with explicit base")),
            }
        }
        "float" => {
            arity(name, args, 0, 1)?;
            match args.first() {
                None => Ok(V::Float(0.0)),
                Some(V::Float(x)) => Ok(V::Float(*x)),
                Some(V::UInt(u)) => Ok(V::Float(*u as f64)),
                Some(V::Str(s)) => {
                    if dialect == Dialect::Py2 && s.contains(&b'_') {
                        return Err(exc(
                            "ValueError",
                            format!(
                                "could not convert string to float: {}",
                                String::from_utf8_lossy(s)
                            ),
                        ));
                    }
                    parse_float(s).map(V::Float).map_err(|e| match dialect {
                        Dialect::Py3 => parse_error(e),
                        // Python 2 shows the string itself, not its repr.
                        Dialect::Py2 => exc(
                            "ValueError",
                            format!(
                                "could not convert string to float: {}",
                                String::from_utf8_lossy(s)
                            ),
                        ),
                    })
                }
                Some(x) => match x.as_int() {
                    Some(i) => Ok(V::Float(i as f64)),
                    None => Err(type_error(match dialect {
                        Dialect::Py2 => "float() argument must be a string or a number".to_string(),
                        Dialect::Py3 => format!(
                            "float() argument must be a string or a real number, not '{}'",
                            x.type_name()
                        ),
                    })),
                },
            }
        }
        "bool" => {
            arity(name, args, 0, 1)?;
            Ok(V::Bool(args.first().is_some_and(ObjValue::truth)))
        }
        "abs" => {
            arity(name, args, 1, 1)?;
            match &args[0] {
                V::Float(x) => Ok(V::Float(x.abs())),
                V::UInt(u) => Ok(V::UInt(*u)),
                x => match x.as_int() {
                    Some(i) => Ok(V::Int(i.wrapping_abs())),
                    None => Err(type_error(format!(
                        "bad operand type for abs(): '{}'",
                        x.type_name()
                    ))),
                },
            }
        }
        // Import-time code only: RPython functions have none of these.
        "sorted" => {
            arity(name, args, 1, 1)?;
            // A stable insertion by binary search: each comparison may fail.
            let mut out: Vec<ObjValue> = Vec::new();
            for x in containers::items_of(&args[0])? {
                let (mut lo, mut hi) = (0, out.len());
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    if compare(Op::Lt, &x, &out[mid], dialect)?.truth() {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                out.insert(lo, x);
            }
            Ok(V::list(out))
        }
        "sum" => {
            arity(name, args, 1, 2)?;
            let mut total = args.get(1).cloned().unwrap_or(V::Int(0));
            for x in containers::items_of(&args[0])? {
                total = binary(Op::Add, &total, &x, dialect)?;
            }
            Ok(total)
        }
        "any" | "all" => {
            arity(name, args, 1, 1)?;
            let want = name == "any";
            for x in containers::items_of(&args[0])? {
                if x.truth() == want {
                    return Ok(V::Bool(want));
                }
            }
            Ok(V::Bool(!want))
        }
        "min" | "max" => {
            if args.is_empty() {
                return Err(type_error(format!(
                    "{name} expected at least 1 argument, got 0"
                )));
            }
            let items: Vec<ObjValue> = match args {
                [x] => containers::items_of(x)?,
                _ => args.to_vec(),
            };
            let mut it = items.into_iter();
            let Some(mut best) = it.next() else {
                return Err(exc(
                    "ValueError",
                    format!("{name}() arg is an empty sequence"),
                ));
            };
            let better = if name == "min" { Op::Lt } else { Op::Gt };
            for x in it {
                if compare(better, &x, &best, dialect)?.truth() {
                    best = x;
                }
            }
            Ok(best)
        }
        "ord" => {
            arity(name, args, 1, 1)?;
            match &args[0] {
                V::Str(s) if s.len() == 1 => Ok(V::Int(i64::from(s[0]))),
                V::Str(s) => Err(type_error(format!(
                    "ord() expected a character, but string of length {} found",
                    s.len()
                ))),
                other => Err(type_error(format!(
                    "ord() expected string of length 1, but {} found",
                    other.type_name()
                ))),
            }
        }
        "hex" | "oct" => {
            arity(name, args, 1, 1)?;
            let (negative, mag) = match &args[0] {
                ObjValue::UInt(u) => (false, *u),
                other => match other.as_int() {
                    Some(i) => (i < 0, i.unsigned_abs()),
                    None => {
                        return Err(type_error(format!(
                            "'{}' object cannot be interpreted as an integer",
                            other.type_name()
                        )))
                    }
                },
            };
            let sign = if negative { "-" } else { "" };
            Ok(V::str(match (name, dialect) {
                ("hex", _) => format!("{sign}0x{mag:x}"),
                (_, Dialect::Py3) => format!("{sign}0o{mag:o}"),
                (_, Dialect::Py2) if mag == 0 => "0".to_string(),
                (_, Dialect::Py2) => format!("{sign}0{mag:o}"),
            }))
        }
        "chr" => {
            arity(name, args, 1, 1)?;
            let Some(i) = args[0].as_int() else {
                return Err(type_error(format!(
                    "an integer is required (got type {})",
                    args[0].type_name()
                )));
            };
            match dialect {
                Dialect::Py2 => match u8::try_from(i) {
                    Ok(b) => Ok(V::str([b])),
                    Err(_) => Err(exc("ValueError", "chr() arg not in range(256)")),
                },
                // An RPython str holds bytes: a Python 3 program's chars are
                // those below 256, each one byte, as in the executable,
                // which stops at a higher one (`rstr.ll_chr_py3`).
                Dialect::Py3 => match u8::try_from(i) {
                    Ok(b) => Ok(V::str([b])),
                    Err(_) if (0..0x110000).contains(&i) => Err(exc(
                        "NotImplementedError",
                        "rpy: chr() of a code point above 0xff, which a Python 3 str of rpy \
                         cannot hold",
                    )),
                    Err(_) => Err(exc("ValueError", "chr() arg not in range(0x110000)")),
                },
            }
        }
        other => Err(exc(
            "NameError",
            format!("the builtin '{other}' is not known to the object interpreter"),
        )),
    }
}

// ---- `str % value` -------------------------------------------------------

/// `fmt % arg`, a tuple giving one value per conversion and any other value
/// the only one: the conversions `s r d i u x X o e E f F g G c %` with
/// flags, width and precision.
fn format_percent(fmt: &[u8], arg: &ObjValue, dialect: Dialect) -> OpResult {
    let values: &[ObjValue] = match arg {
        ObjValue::Tuple(items) => items,
        single => std::slice::from_ref(single),
    };
    let mut out = Vec::new();
    let mut used = 0;
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let Some(spec) = FormatSpec::parse(fmt, &mut i) else {
            return Err(exc("ValueError", "incomplete format"));
        };
        if spec.conv == b'%' {
            out.push(b'%');
            continue;
        }
        let Some(arg) = values.get(used) else {
            return Err(type_error("not enough arguments for format string"));
        };
        used += 1;
        let body = format_one(&spec, arg, dialect, i - 1)?;
        out.extend(spec.pad(body));
    }
    if used < values.len() {
        return Err(type_error(
            "not all arguments converted during string formatting",
        ));
    }
    Ok(ObjValue::str(out))
}

fn format_one(
    spec: &FormatSpec,
    arg: &ObjValue,
    dialect: Dialect,
    at: usize,
) -> Result<Vec<u8>, Exc> {
    let conv = spec.conv;
    let number = || -> Result<f64, Exc> {
        match arg {
            ObjValue::Float(x) => Ok(*x),
            other => other.as_int().map(|i| i as f64).ok_or_else(|| {
                type_error(format!("must be real number, not {}", other.type_name()))
            }),
        }
    };
    Ok(match conv {
        b's' | b'r' => {
            let mut s = if conv == b's' {
                arg.to_str(dialect)
            } else {
                arg.to_repr(dialect)
            };
            if let Some(p) = spec.precision {
                s.truncate(p);
            }
            s
        }
        // An r_uint is a magnitude beyond a signed word's.
        b'd' | b'i' | b'u' | b'x' | b'X' | b'o' if let ObjValue::UInt(u) = arg => {
            spec.format_magnitude(*u, false, dialect == Dialect::Py2)
        }
        b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => {
            let i = match arg {
                ObjValue::Float(x) if matches!(conv, b'd' | b'i' | b'u') => {
                    match float_to_int(*x)? {
                        ObjValue::Int(i) => i,
                        _ => 0,
                    }
                }
                other => other.as_int().ok_or_else(|| {
                    type_error(match conv {
                        b'd' | b'i' | b'u' => format!(
                            "%{} format: a real number is required, not {}",
                            conv as char,
                            other.type_name()
                        ),
                        _ => format!(
                            "%{} format: an integer is required, not {}",
                            conv as char,
                            other.type_name()
                        ),
                    })
                })?,
            };
            spec.format_magnitude(i.unsigned_abs(), i < 0, dialect == Dialect::Py2)
        }
        b'e' | b'E' | b'f' | b'F' | b'g' | b'G' => spec.format_float(number()?),
        b'c' => match arg {
            ObjValue::Str(s) if s.len() == 1 => s.to_vec(),
            other => match other.as_int().and_then(|i| u8::try_from(i).ok()) {
                Some(b) => vec![b],
                None => return Err(type_error("%c requires int or char")),
            },
        },
        other => {
            return Err(exc(
                "ValueError",
                format!(
                    "unsupported format character '{}' (0x{:x}) at index {at}",
                    other as char, other
                ),
            ))
        }
    })
}

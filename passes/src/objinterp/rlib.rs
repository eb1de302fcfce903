//! The rlib functions (`flow::rlib`, `language::rlib`) as the translated program runs them.
//!
//! Ints are already machine words here, so `intmask` and its kin return
//! their argument; the JIT hints are their argument or a constant answer
//! for code that is not jitted; `we_are_translated()` is True, as in every
//! translated program (pylib/ answers False when run untranslated, so a
//! program whose output depends on it differs from CPython by design).
//! Debug output (`debug_print`) goes to the translated program's debug log,
//! which is not modelled: it prints nothing.

use super::exceptions::{ClassObj, InstanceObj};
use super::ops::{exc, Op, OpResult};
use super::value::{integral_float, ObjValue};
use crate::language::rlib::{jitdriver_params, UNTRANSLATED_HINTS};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

fn int_arg(name: &str, args: &[ObjValue], i: usize) -> Result<i64, super::ops::Exc> {
    args.get(i).and_then(ObjValue::as_int).ok_or_else(|| {
        exc(
            "TypeError",
            format!("{name}() takes machine-word ints as its arguments"),
        )
    })
}

fn arity(name: &str, args: &[ObjValue], n: usize) -> Result<(), super::ops::Exc> {
    if args.len() == n {
        Ok(())
    } else {
        Err(exc(
            "TypeError",
            format!(
                "{name}() takes exactly {n} argument{} ({} given)",
                if n == 1 { "" } else { "s" },
                args.len()
            ),
        ))
    }
}

/// Calls the rlib function `name`; `None` when `name` is not one this
/// interpreter runs.
pub fn call(name: &str, args: &[ObjValue]) -> Option<OpResult> {
    Some(match name {
        "intmask" | "widen" | "r_int" | "r_longlong" => intmask(name, args),
        "r_uint" | "r_ulonglong" => r_uint(name, args),
        "r_dict" => super::rdict::new_rdict(args),
        "compute_hash" => arity(name, args, 1).and_then(|()| hash(&args[0])),
        "compute_identity_hash" | "compute_unique_id" | "current_object_addr_as_int" => {
            arity(name, args, 1).and_then(|()| identity(name, &args[0]))
        }
        "promote" | "promote_string" | "hint" | "make_sure_not_resized" | "check_regular_int" => {
            arity(name, args, 1).map(|()| args[0].clone())
        }
        "check_nonneg" => check_nonneg(args),
        "we_are_jitted" | "have_debug_prints" => Ok(ObjValue::Bool(false)),
        "isconstant" | "isvirtual" => arity(name, args, 1).map(|()| ObjValue::Bool(false)),
        "we_are_translated" => Ok(ObjValue::Bool(true)),
        n if UNTRANSLATED_HINTS.contains(&n) => Ok(ObjValue::None),
        "ll_assert" => ll_assert(args),
        "int_between" => int_between(args),
        "int_force_ge_zero" => {
            int_arg("int_force_ge_zero", args, 0).map(|n| ObjValue::Int(n.max(0)))
        }
        "int_c_div" | "int_c_mod" => int_c_divmod(name, args),
        "highest_bit" => highest_bit(args),
        "JitDriver" => jitdriver(args),
        _ => return None,
    })
}

/// The identity of an object as a number: its address, which stays while
/// it lives (this interpreter's objects never move).
fn identity(name: &str, x: &ObjValue) -> OpResult {
    let address = match x {
        ObjValue::Instance(i) => Rc::as_ptr(i) as *const u8 as usize,
        ObjValue::List(l) => Rc::as_ptr(l) as *const u8 as usize,
        ObjValue::Dict(d) => Rc::as_ptr(d) as *const u8 as usize,
        ObjValue::None => 0,
        other => {
            return Err(exc(
                "TypeError",
                format!("{name}() of {} is not translated", other.type_name()),
            ))
        }
    };
    Ok(ObjValue::Int((address >> 4) as i64))
}

thread_local! {
    /// The class of the `JitDriver` objects (a builtin class of every
    /// interpreter's class table, so that prebuilt drivers find it).
    pub static JITDRIVER_CLASS: Rc<ClassObj> = Rc::new(ClassObj::new("JitDriver", None, Vec::new()));
}

/// `JitDriver(greens, reds, ...)` with every parameter given: a driver
/// holding them as attributes, its greens and reds as lists of names
/// (`reds` may be the string 'auto').
fn jitdriver(args: &[ObjValue]) -> OpResult {
    // the parameters in the order the flow builder binds them
    let params = jitdriver_params();
    arity("JitDriver", args, params.len())?;
    let mut attrs = BTreeMap::new();
    for (name, v) in params.iter().map(|p| p.name.as_str()).zip(args) {
        let v = match (name, v) {
            ("greens" | "reds", ObjValue::List(l)) => ObjValue::list(l.borrow().clone()),
            ("greens" | "reds", ObjValue::Tuple(t)) => ObjValue::list(t.to_vec()),
            ("reds", ObjValue::Str(s)) if &s[..] == b"auto" => v.clone(),
            ("greens" | "reds", _) => {
                return Err(exc(
                    "TypeError",
                    format!("JitDriver's {name} must be a list of variable names"),
                ))
            }
            _ => v.clone(),
        };
        attrs.insert(name.to_string(), v);
    }
    Ok(ObjValue::Instance(Rc::new(InstanceObj {
        class: JITDRIVER_CLASS.with(Rc::clone),
        attrs: RefCell::new(attrs),
    })))
}

/// `D(...)` of a class `D` deriving from JitDriver, which declares the
/// driver's variables as class attributes (`greens = ['pc']`), as the
/// original's drivers may: a JitDriver whose parameters are the call's
/// arguments, then the class's attributes of those names, then the
/// defaults. (Translated code knows the driver, not its class.)
pub fn jitdriver_of_subclass(class: &ClassObj, args: &[ObjValue]) -> OpResult {
    let params = jitdriver_params();
    if args.len() > params.len() {
        arity(&class.name, args, params.len())?;
    }
    let mut full = Vec::new();
    for (i, p) in params.iter().enumerate() {
        let value = match (args.get(i), class.lookup(&p.name)) {
            (Some(given), _) => given.clone(),
            (None, Some(declared)) => declared,
            (None, None) => match p.default.as_ref().map(|d| &d.kind) {
                Some(rpy_ir::ast::ExprKind::Str(s)) => ObjValue::str(rpy_ir::graph::str_bytes(s)),
                Some(rpy_ir::ast::ExprKind::Bool(b)) => ObjValue::Bool(*b),
                Some(_) => ObjValue::None,
                None => {
                    return Err(exc(
                        "TypeError",
                        format!("{} declares no {} for its JitDriver", class.name, p.name),
                    ))
                }
            },
        };
        full.push(value);
    }
    jitdriver(&full)
}

fn intmask(name: &str, args: &[ObjValue]) -> OpResult {
    arity(name, args, 1)?;
    match &args[0] {
        ObjValue::Float(f) => Ok(ObjValue::Int(*f as i64)),
        ObjValue::UInt(u) => Ok(ObjValue::Int(*u as i64)),
        _ => Ok(ObjValue::Int(int_arg(name, args, 0)?)),
    }
}

fn check_nonneg(args: &[ObjValue]) -> OpResult {
    arity("check_nonneg", args, 1)?;
    if int_arg("check_nonneg", args, 0)? < 0 {
        return Err(exc("AssertionError", "check_nonneg() of a negative int"));
    }
    Ok(args[0].clone())
}

fn ll_assert(args: &[ObjValue]) -> OpResult {
    arity("ll_assert", args, 2)?;
    if args[0].truth() {
        return Ok(ObjValue::None);
    }
    let msg = String::from_utf8_lossy(&args[1].to_str(rpy_ir::ast::Dialect::Py3)).into_owned();
    Err(exc("AssertionError", msg))
}

fn int_between(args: &[ObjValue]) -> OpResult {
    arity("int_between", args, 3)?;
    let n = int_arg("int_between", args, 0)?;
    let m = int_arg("int_between", args, 1)?;
    let p = int_arg("int_between", args, 2)?;
    Ok(ObjValue::Bool(n <= m && m < p))
}

fn int_c_divmod(name: &str, args: &[ObjValue]) -> OpResult {
    arity(name, args, 2)?;
    let (x, y) = (int_arg(name, args, 0)?, int_arg(name, args, 1)?);
    if y == 0 {
        return Err(exc("ZeroDivisionError", "integer division by zero"));
    }
    // C's division truncates toward zero and its remainder has the
    // dividend's sign: Rust's `/` and `%` are C's.
    Ok(ObjValue::Int(if name == "int_c_div" {
        x.wrapping_div(y)
    } else {
        x.wrapping_rem(y)
    }))
}

fn highest_bit(args: &[ObjValue]) -> OpResult {
    arity("highest_bit", args, 1)?;
    let n = int_arg("highest_bit", args, 0)?;
    if n <= 0 || n & (n - 1) != 0 {
        return Err(exc("AssertionError", "highest_bit() takes a power of two"));
    }
    Ok(ObjValue::Int(i64::from(n.trailing_zeros())))
}

/// `r_uint(x)`: `x` modulo 2**64 (a float is truncated first, as `long(x)`).
fn r_uint(name: &str, args: &[ObjValue]) -> OpResult {
    if args.is_empty() {
        return Ok(ObjValue::UInt(0));
    }
    arity(name, args, 1)?;
    match &args[0] {
        ObjValue::UInt(u) => Ok(ObjValue::UInt(*u)),
        ObjValue::Float(f) if f.is_finite() => Ok(ObjValue::UInt(f.trunc() as i128 as u64)),
        _ => int_arg(name, args, 0).map(|i| ObjValue::UInt(i as u64)),
    }
}

/// The value of an integer operand of an `r_uint` operation (an int is
/// taken modulo 2**64, as pylib's `r_uint` converts it).
fn unsigned_operand(v: &ObjValue) -> Option<u64> {
    match v {
        ObjValue::UInt(u) => Some(*u),
        other => other.as_int().map(|i| i as u64),
    }
}

/// A binary operation with an `r_uint` operand and an integer other one:
/// the result is an `r_uint`, modulo 2**64 (`None` for other operands).
/// Comparisons are not here: they compare the numbers' values.
pub fn unsigned_binary(op: Op, a: &ObjValue, b: &ObjValue) -> Option<OpResult> {
    if !matches!(a, ObjValue::UInt(_)) && !matches!(b, ObjValue::UInt(_)) {
        return None;
    }
    let (x, y) = (unsigned_operand(a)?, unsigned_operand(b)?);
    if matches!(op, Op::Div | Op::FloorDiv | Op::Mod) && y == 0 {
        return Some(Err(exc(
            "ZeroDivisionError",
            "long division or modulo by zero",
        )));
    }
    let r = match op {
        Op::Add => x.wrapping_add(y),
        Op::Sub => x.wrapping_sub(y),
        Op::Mul => x.wrapping_mul(y),
        Op::Div | Op::FloorDiv => x / y,
        Op::Mod => x % y,
        Op::And => x & y,
        Op::Or => x | y,
        Op::Xor => x ^ y,
        // The shift count is an int; shifting by 64 or more leaves nothing.
        Op::LShift => x.checked_shl(u32::try_from(y).ok()?).unwrap_or(0),
        Op::RShift => x.checked_shr(u32::try_from(y).ok()?).unwrap_or(0),
        _ => return None,
    };
    Some(Ok(ObjValue::UInt(r)))
}

/// `-x`, `+x` and `~x` of an `r_uint`.
pub fn unsigned_unary(op: Op, a: &ObjValue) -> Option<OpResult> {
    let ObjValue::UInt(x) = a else {
        return None;
    };
    Some(Ok(ObjValue::UInt(match op {
        Op::Neg => x.wrapping_neg(),
        Op::Pos => *x,
        Op::Invert => !x,
        _ => return None,
    })))
}

/// `hash(x)` and `compute_hash(x)` of the values whose hash CPython 2.7
/// computes without randomization: ints (-1 is -2), bools, integral floats,
/// strings (the algorithm `rlib.objectmodel` translates too) and tuples of
/// these (CPython 2's combination). Python 3 randomizes string hashes, so
/// a program can compare them but not print them.
pub fn hash(x: &ObjValue) -> OpResult {
    let h = fold_tuple_hash(x, &mut hash_of_item)?;
    Ok(ObjValue::Int(h))
}

/// The hash of `x` by CPython 2's combination of a tuple's items, each
/// item not a tuple hashed by `item`: over a stack of the tuples being
/// hashed, not by recursion, so that a tuple nested 100,000 deep has a
/// hash as under CPython (whose `tuplehash` recurses in C, with no limit)
/// and not a Rust stack overflow. -1 is -2, as CPython reserves -1.
pub fn fold_tuple_hash(
    x: &ObjValue,
    item: &mut dyn FnMut(&ObjValue) -> Result<i64, super::ops::Exc>,
) -> Result<i64, super::ops::Exc> {
    /// A tuple being hashed: its items, the next to hash, and the state
    /// of the combination so far.
    struct Frame {
        items: Rc<[ObjValue]>,
        next: usize,
        h: i64,
        mult: i64,
    }
    impl Frame {
        fn new(items: Rc<[ObjValue]>) -> Frame {
            Frame {
                items,
                next: 0,
                h: 0x345678,
                mult: 1_000_003,
            }
        }
        fn absorb(&mut self, y: i64) {
            self.h = (self.h ^ y).wrapping_mul(self.mult);
            let left = (self.items.len() - self.next - 1) as i64;
            self.mult = self.mult.wrapping_add(82520 + left + left);
            self.next += 1;
        }
    }
    let not_minus_one = |h: i64| if h == -1 { -2 } else { h };
    let ObjValue::Tuple(items) = x else {
        return item(x).map(not_minus_one);
    };
    let mut stack = vec![Frame::new(items.clone())];
    loop {
        let top = stack
            .last_mut()
            .expect("the stack holds the tuple being hashed");
        if top.next == top.items.len() {
            let done = not_minus_one(top.h.wrapping_add(97531));
            stack.pop();
            match stack.last_mut() {
                Some(parent) => parent.absorb(done),
                None => return Ok(done),
            }
            continue;
        }
        match &top.items[top.next] {
            ObjValue::Tuple(inner) => {
                let inner = inner.clone();
                stack.push(Frame::new(inner));
            }
            other => {
                let y = not_minus_one(item(other)?);
                top.absorb(y);
            }
        }
    }
}

/// `hash` of a value that is not a tuple.
fn hash_of_item(x: &ObjValue) -> Result<i64, super::ops::Exc> {
    Ok(match x {
        ObjValue::Int(i) => *i,
        ObjValue::Bool(b) => i64::from(*b),
        ObjValue::UInt(u) => *u as i64,
        ObjValue::Float(f) if integral_float(*f).is_some() => *f as i64,
        ObjValue::None => 0,
        ObjValue::Str(s) if s.is_empty() => 0,
        ObjValue::Str(s) => {
            let mut h = i64::from(s[0]) << 7;
            for &c in s.iter() {
                h = h.wrapping_mul(1_000_003) ^ i64::from(c);
            }
            h ^ s.len() as i64
        }
        other => {
            return Err(exc(
                "TypeError",
                format!(
                    "hash() of a {} value is not translated: hash ints, strings and tuples of them",
                    other.type_name()
                ),
            ))
        }
    })
}

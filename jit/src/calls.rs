//! The registry of native functions a call descr may name. Each is a real
//! `extern "C"` function; the interpreter (and later the machine code) calls
//! it through its address with the C calling convention.

use crate::trace::Kind;

/// A native function: its name, address and signature.
#[derive(Debug, PartialEq)]
pub struct NativeFunc {
    pub name: &'static str,
    pub addr: usize,
    /// Argument kinds: `Int` and `Ref` are passed as words, `Float` as doubles.
    pub args: &'static [Kind],
    pub result: Kind,
}

extern "C" fn int_max(a: i64, b: i64) -> i64 {
    a.max(b)
}
extern "C" fn int_min(a: i64, b: i64) -> i64 {
    a.min(b)
}
extern "C" fn int_add3(a: i64, b: i64, c: i64) -> i64 {
    a.wrapping_add(b).wrapping_add(c)
}
extern "C" fn int_square(a: i64) -> i64 {
    a.wrapping_mul(a)
}
extern "C" fn float_sqrt(a: f64) -> f64 {
    a.sqrt()
}
extern "C" fn float_hypot(a: f64, b: f64) -> f64 {
    a.hypot(b)
}
extern "C" fn noop() {}
extern "C" fn ptr_is_null(p: usize) -> i64 {
    (p == 0) as i64
}
/// The first of two pointers that is not null (a function returning a
/// pointer, for `call_r`).
extern "C" fn ptr_nonnull_or(p: usize, q: usize) -> usize {
    if p != 0 {
        p
    } else {
        q
    }
}

macro_rules! funcs {
    ($($name:ident ($($a:ident),*) -> $r:ident;)*) => {
        fn funcs() -> &'static [NativeFunc] {
            static FUNCS: std::sync::OnceLock<Vec<NativeFunc>> = std::sync::OnceLock::new();
            FUNCS.get_or_init(|| vec![$(NativeFunc {
                name: stringify!($name),
                addr: $name as *const () as usize,
                args: &[$(Kind::$a),*],
                result: Kind::$r,
            }),*])
        }
    };
}

funcs! {
    int_max(Int, Int) -> Int;
    int_min(Int, Int) -> Int;
    int_add3(Int, Int, Int) -> Int;
    int_square(Int) -> Int;
    float_sqrt(Float) -> Float;
    float_hypot(Float, Float) -> Float;
    noop() -> Void;
    ptr_is_null(Ref) -> Int;
    ptr_nonnull_or(Ref, Ref) -> Ref;
}

pub fn lookup(name: &str) -> Option<&'static NativeFunc> {
    funcs().iter().find(|f| f.name == name)
}

pub fn names() -> Vec<&'static str> {
    funcs().iter().map(|f| f.name).collect()
}

/// Calls `f` with argument bits (words, or the bits of doubles); the result
/// as bits. `None` when the signature has no calling stub (more than four
/// arguments, or floats mixed with words).
pub fn call(f: &NativeFunc, args: &[u64]) -> Option<u64> {
    if args.len() != f.args.len() {
        return None;
    }
    let floats = f.args.iter().all(|k| *k == Kind::Float) && !f.args.is_empty();
    let words = f.args.iter().all(|k| *k != Kind::Float);
    // SAFETY: `addr` is the address of an `extern "C"` function of the
    // registry whose signature is `args -> result`, as declared in FUNCS.
    unsafe {
        use std::mem::transmute as t;
        let a = f.addr as *const ();
        let fl = |i: usize| f64::from_bits(args[i]);
        Some(match (f.result, words, floats, args.len()) {
            (Kind::Float, _, true, 1) => {
                t::<*const (), extern "C" fn(f64) -> f64>(a)(fl(0)).to_bits()
            }
            (Kind::Float, _, true, 2) => {
                t::<*const (), extern "C" fn(f64, f64) -> f64>(a)(fl(0), fl(1)).to_bits()
            }
            (Kind::Void, true, _, 0) => {
                t::<*const (), extern "C" fn()>(a)();
                0
            }
            (Kind::Float, ..) => return None,
            (_, true, _, 0) => t::<*const (), extern "C" fn() -> u64>(a)(),
            (_, true, _, 1) => t::<*const (), extern "C" fn(u64) -> u64>(a)(args[0]),
            (_, true, _, 2) => t::<*const (), extern "C" fn(u64, u64) -> u64>(a)(args[0], args[1]),
            (_, true, _, 3) => {
                t::<*const (), extern "C" fn(u64, u64, u64) -> u64>(a)(args[0], args[1], args[2])
            }
            _ => return None,
        })
    }
}

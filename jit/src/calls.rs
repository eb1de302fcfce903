//! The registry of native functions a call descr may name. Most are real
//! `extern "C"` functions, which the interpreter and the machine code call
//! through their address with the C calling convention; a function that
//! touches memory takes the run's heap instead ([`NativeFunc::with_heap`]).

use crate::interp::Heap;
use crate::trace::Kind;

/// A native function: its name, address and signature.
#[derive(Debug)]
pub struct NativeFunc {
    pub name: &'static str,
    /// The `extern "C"` function; 0 for one that works on the run's heap.
    pub addr: usize,
    /// Argument kinds: `Int` and `Ref` are passed as words, `Float` as doubles.
    pub args: &'static [Kind],
    pub result: Kind,
    /// A function that reads or writes memory gets the run's heap (the
    /// machine code calls it through a runtime helper), so that it checks
    /// every address it is given.
    pub with_heap: Option<HeapFn>,
}

/// Registry functions have distinct names.
impl PartialEq for NativeFunc {
    fn eq(&self, other: &NativeFunc) -> bool {
        self.name == other.name
    }
}

/// A native function on the run's heap: word arguments, word result.
pub type HeapFn = fn(&mut Heap, &[u64]) -> u64;

/// Stores `v` into the first word after an object's header (`intval` of
/// the usual test struct): a call that writes memory, for the heap
/// optimization's invalidation. A pointer outside every object is left
/// alone; the result says whether it wrote.
fn store_first_field(heap: &mut Heap, args: &[u64]) -> u64 {
    let (Some(&p), Some(&v)) = (args.first(), args.get(1)) else {
        return 0;
    };
    let at = (p as usize).wrapping_add(8);
    heap.write(at, &rpy_ir::lltype::LowLevelType::Signed, v)
        .is_ok() as u64
}

/// The characters of the string at `p` whose items are `item`s (a GC
/// array's layout), or `None` for null or a bad address.
fn string_items(heap: &Heap, p: u64, item: rpy_ir::lltype::LowLevelType) -> Option<Vec<u64>> {
    use rpy_ir::lltype::{ContainerType, LowLevelType};
    if p == 0 {
        return None;
    }
    let layout = ContainerType::GcArray { item: item.clone() }.layout();
    let (items_offset, item_size) = layout.items?;
    let base = p as usize;
    let length_at = base.checked_add(layout.offset_of("length")?)?;
    let length = heap.read(length_at, &LowLevelType::Signed).ok()? as usize;
    (0..length)
        .map(|k| heap.read(base + items_offset + k * item_size, &item).ok())
        .collect()
}

/// `str_equal(a, b)`: whether two strings (`array str = Char`) hold the
/// same characters, as PyPy's `ll_streq`: two nulls are equal, a null and
/// a string are not.
fn str_equal(heap: &mut Heap, args: &[u64]) -> u64 {
    strings_equal(heap, args, rpy_ir::lltype::LowLevelType::Char)
}

/// `unicode_equal(a, b)`: as `str_equal`, for unicode strings.
fn unicode_equal(heap: &mut Heap, args: &[u64]) -> u64 {
    strings_equal(heap, args, rpy_ir::lltype::LowLevelType::Signed)
}

fn strings_equal(heap: &Heap, args: &[u64], item: rpy_ir::lltype::LowLevelType) -> u64 {
    let (Some(&a), Some(&b)) = (args.first(), args.get(1)) else {
        return 0;
    };
    if a == 0 || b == 0 {
        return (a == b) as u64;
    }
    let chars = |p| string_items(heap, p, item.clone());
    let of_a = chars(a);
    (of_a.is_some() && of_a == chars(b)) as u64
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
            FUNCS.get_or_init(|| {
                let mut funcs = vec![$(NativeFunc {
                    name: stringify!($name),
                    addr: $name as *const () as usize,
                    args: &[$(Kind::$a),*],
                    result: Kind::$r,
                    with_heap: None,
                }),*];
                funcs.push(NativeFunc {
                    name: "store_first_field",
                    addr: 0,
                    args: &[Kind::Ref, Kind::Int],
                    result: Kind::Int,
                    with_heap: Some(store_first_field),
                });
                for (name, f) in [("str_equal", str_equal as HeapFn), ("unicode_equal", unicode_equal)] {
                    funcs.push(NativeFunc {
                        name,
                        addr: 0,
                        args: &[Kind::Ref, Kind::Ref],
                        result: Kind::Int,
                        with_heap: Some(f),
                    });
                }
                funcs
            })
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

/// The registry's function at `index` (what the machine code passes to
/// the runtime helper for functions on the heap).
pub fn by_index(index: usize) -> Option<&'static NativeFunc> {
    funcs().get(index)
}

/// The index of `f` in the registry.
pub fn index_of(f: &NativeFunc) -> Option<usize> {
    funcs().iter().position(|g| std::ptr::eq(g, f))
}

pub fn names() -> Vec<&'static str> {
    funcs().iter().map(|f| f.name).collect()
}

/// Calls `f` with argument bits (words, or the bits of doubles); the result
/// as bits. `None` when the signature has no calling stub (more than four
/// arguments, or floats mixed with words).
pub fn call(f: &NativeFunc, heap: &mut Heap, args: &[u64]) -> Option<u64> {
    if args.len() != f.args.len() {
        return None;
    }
    if let Some(h) = f.with_heap {
        return Some(h(heap, args));
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

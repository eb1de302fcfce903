//! A bound on the recursion of the value operations that walk nested data:
//! `repr`/`str`, `==` and `<` of a list nested 100,000 deep would
//! otherwise recurse 100,000 levels in Rust and overflow rpy's stack.
//! (`hash` of a tuple is not bounded: CPython computes it at any depth,
//! and `rlib::fold_tuple_hash` walks the tuples with a stack of its own;
//! comparing two tuples as dict keys walks a work list, and records an
//! overflow here past the limit.)
//!
//! CPython counts these levels against the recursion limit too
//! (`Py_EnterRecursiveCall`) and raises `RecursionError` ("maximum
//! recursion depth exceeded while getting the repr of an object", "... in
//! comparison"), which the program can catch. The walks here return plain
//! values (`Vec<u8>`, `bool`), so a walk that goes too deep stops there,
//! returns a stand-in result and records why; the operation that ran it
//! (`ObjInterpreter::operation`) then discards the result and raises
//! `RecursionError` instead. A caller outside an operation only ever sees
//! the stand-in: never a crash.

use std::cell::Cell;

/// How deep a walk may nest: CPython's recursion limit.
pub const MAX_NESTING: usize = super::CPYTHON_RECURSION_LIMIT;

thread_local! {
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    /// What the first walk that went too deep was doing, since the last
    /// `take_overflow`.
    static OVERFLOW: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// Runs `walk` one level deeper; past `MAX_NESTING` levels it is not run:
/// `stand_in` is returned and the overflow is recorded (`doing` says what
/// was being done, as CPython's message does: "while getting the repr of
/// an object", "in comparison").
pub fn nested<R>(doing: &'static str, stand_in: impl FnOnce() -> R, walk: impl FnOnce() -> R) -> R {
    let depth = DEPTH.with(Cell::get);
    if depth >= MAX_NESTING {
        record_overflow(doing);
        return stand_in();
    }
    DEPTH.with(|d| d.set(depth + 1));
    let r = walk();
    DEPTH.with(|d| d.set(depth));
    r
}

/// Records that a walk of its own (one with a work list, not `nested`)
/// went deeper than `MAX_NESTING` and gave up, doing `doing`.
pub fn record_overflow(doing: &'static str) {
    OVERFLOW.with(|o| {
        if o.get().is_none() {
            o.set(Some(doing));
        }
    });
}

/// Whether a walk went too deep since the last `take_overflow` (which
/// this does not clear): a mutation that depended on such a walk's
/// cut-short answer must not be made.
pub fn overflowed() -> bool {
    OVERFLOW.with(|o| o.get().is_some())
}

/// What the walk that went too deep was doing, if one did since the last
/// call; clears it.
pub fn take_overflow() -> Option<&'static str> {
    OVERFLOW.with(|o| o.take())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_of(n: usize) -> usize {
        if n == 0 {
            0
        } else {
            nested("counting", || 0, || 1 + depth_of(n - 1))
        }
    }

    #[test]
    fn a_walk_stops_at_the_limit_and_says_so_once() {
        take_overflow();
        assert_eq!(depth_of(10), 10);
        assert_eq!(take_overflow(), None);
        assert_eq!(depth_of(100_000), MAX_NESTING);
        assert_eq!(take_overflow(), Some("counting"));
        assert_eq!(take_overflow(), None);
        // The depth is back to 0 after a walk, stopped or not.
        assert_eq!(depth_of(MAX_NESTING), MAX_NESTING);
        assert_eq!(take_overflow(), None);
    }
}

//! The bound on the memory a run may use: a program that allocates too much
//! gets `MemoryError`, as its translated executable would, instead of rpy
//! growing until the machine swaps or the allocator aborts.
//!
//! The object interpreter's values are reference-counted Rust data, and
//! the LLInterpreter's objects are blocks of the system allocator (each
//! counted by its size, but the process's memory is what runs out). Two
//! checks stand in for one: a single
//! allocation is refused before it is made when it would exceed the bound
//! (`"x" * 10**12`), and the process's resident memory is read every
//! `CHECK_EVERY` steps, which catches a program that grows a little at a
//! time (a list appended to forever).

/// The default bound: far above what import-time code or a test program
/// needs, far below what would make a shared machine swap.
pub const DEFAULT_HEAP_LIMIT: u64 = 4 << 30;

/// How many steps pass between two reads of the resident memory (a read is
/// a small file read; every step would slow the interpreter down).
pub const CHECK_EVERY: u64 = 1 << 12;

/// The process's resident memory in bytes, where the system tells it
/// (Linux's `/proc/self/statm`); `None` elsewhere, where only the check of
/// single allocations applies.
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * PAGE_SIZE)
}

/// The page size `statm` counts in; 4 KiB on the machines rpy targets
/// (x86-64 Linux).
const PAGE_SIZE: u64 = 4096;

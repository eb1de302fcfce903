//! The `rpy` command line and the pipeline driver that ties the stages together.

pub mod cli;
pub mod graphview;
pub mod pipeline;

/// Every binary that links the driver (the `rpy` command, the tests and
/// the benches) allocates with mimalloc: see Cargo.toml.
#[global_allocator]
static ALLOCATOR: Mimalloc = Mimalloc;

/// mimalloc as the global allocator, asking for an alignment only where
/// mimalloc's own does not do: its blocks are multiples of a word from
/// word-aligned starts, and nearly every allocation of rpy wants at most a
/// word. The `mimalloc` crate's allocator calls `mi_malloc_aligned` for
/// every allocation, whose alignment checks were half of the cost of the
/// 1.9 million allocations the serial stages of the class program make
/// (callgrind: 101M instructions, against 48M with `mi_malloc`).
struct Mimalloc;

/// The alignment every mimalloc block has.
const MIMALLOC_BLOCK_ALIGN: usize = std::mem::size_of::<usize>();

// SAFETY: each method passes the layout's size (never 0, as `GlobalAlloc`
// promises) to mimalloc, with the layout's alignment unless it is at most
// what every mimalloc block has; memory is freed by mimalloc, which
// allocated it.
unsafe impl std::alloc::GlobalAlloc for Mimalloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        use libmimalloc_sys as mi;
        if layout.align() <= MIMALLOC_BLOCK_ALIGN {
            mi::mi_malloc(layout.size()).cast()
        } else {
            mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        use libmimalloc_sys as mi;
        if layout.align() <= MIMALLOC_BLOCK_ALIGN {
            mi::mi_zalloc(layout.size()).cast()
        } else {
            mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        libmimalloc_sys::mi_free(ptr.cast())
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        use libmimalloc_sys as mi;
        if layout.align() <= MIMALLOC_BLOCK_ALIGN {
            mi::mi_realloc(ptr.cast(), new_size).cast()
        } else {
            mi::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
        }
    }
}

/// `mi_option_purge_delay` in mimalloc's `mi_option_e` (v3's mimalloc.h),
/// which the Rust bindings do not name.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Tells mimalloc to keep the memory the process frees instead of returning
/// it to the OS after its purge delay. A translation frees graphs by the
/// megabyte and allocates as much again in the next stage; pages returned
/// and taken back cost a page fault each (a zeroed huge page when the OS
/// backs the heap with them). For the 10,000-line class program of the
/// pipeline bench, `rpy show --stage genc` took 1,963 to 3,305 page faults
/// and up to 0.30 s of system time with the default, 342 to 351 and 0.02 s
/// with this (`perf stat -e page-faults`). rpy is a short-lived command, so
/// what it keeps is returned at exit anyway.
pub fn keep_freed_memory() {
    // SAFETY: setting an option is allowed at any time; mimalloc reads the
    // purge delay each time it considers purging.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) }
}

#[cfg(test)]
mod allocator_tests {
    use super::*;
    use std::alloc::{GlobalAlloc, Layout};

    /// Every alignment up to a page, for sizes on both sides of it, is
    /// given, zeroed memory is zero, and a reallocation keeps the bytes.
    #[test]
    fn the_allocator_gives_the_alignment_asked_for() {
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1, 3, 8, 12, 24, 40, 100, 1000, 70_000] {
                let Ok(layout) = Layout::from_size_align(size, align) else {
                    continue;
                };
                // SAFETY: the layouts have nonzero sizes; each block is
                // written within its size and freed once with its layout.
                unsafe {
                    let p = ALLOCATOR.alloc(layout);
                    assert_eq!(p as usize % align, 0, "size {size}, align {align}");
                    p.write_bytes(0xab, size);
                    let q = ALLOCATOR.realloc(p, layout, size * 3);
                    assert_eq!(
                        q as usize % align,
                        0,
                        "realloc to {}, align {align}",
                        size * 3
                    );
                    assert!((0..size).all(|i| *q.add(i) == 0xab));
                    ALLOCATOR.dealloc(q, Layout::from_size_align(size * 3, align).unwrap());
                    let z = ALLOCATOR.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    ALLOCATOR.dealloc(z, layout);
                }
            }
        }
    }

    /// The option number names the purge delay: its default is v3's
    /// documented 1,000 ms (no other option defaults to that) unless the
    /// environment sets it.
    #[test]
    fn the_purge_delay_option_number_is_mimallocs() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        let delay = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(delay, 1000);
    }
}

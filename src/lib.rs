//! The `rpy` command line and the pipeline driver that ties the stages together.

pub mod cli;
pub mod graphview;
pub mod pipeline;

/// Every binary that links the driver (the `rpy` command, the tests and
/// the benches) allocates with mimalloc: see Cargo.toml.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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

//! The JIT runtime of an executable translated with `--jit`: the C side
//! (GenC's `RpyJitEmbedding`) hands it the program's JIT data at start-up
//! (`rpy_jit_init`), and each call of a portal comes here
//! (`rpy_jit_call_portal`), where it runs on its jitcodes.
//!
//! The runtime is read once and never changes while the program runs; a
//! portal call's counters are its own, so a portal called again from
//! inside one (an interpreter that recurses through a residual call)
//! needs nothing shared to be mutable.

use rpy_jit::blackhole::BlackholeStats;
use rpy_jit::native::machine::{Embedding, NativeRuntime};
use std::cell::OnceCell;

thread_local! {
    /// Read once, at start-up, and kept for the executable's life.
    static RUNTIME: OnceCell<&'static NativeRuntime> = const { OnceCell::new() };
}

fn die(message: &str) -> ! {
    eprintln!("{message}");
    std::process::exit(1);
}

/// Called by `main()` before the entry point.
///
/// # Safety
/// `embedding` must be the program's `RpyJitEmbedding`, alive for the run.
#[no_mangle]
pub unsafe extern "C" fn rpy_jit_init(embedding: *const Embedding) {
    let embedding: &'static Embedding = &*embedding;
    match NativeRuntime::new(embedding) {
        Ok(rt) => {
            let rt: &'static NativeRuntime = Box::leak(Box::new(rt));
            RUNTIME.with(|r| {
                let _ = r.set(rt);
            });
        }
        Err(e) => die(&format!("fatal RPython error: {e}")),
    }
}

/// A call of portal `portal` with its arguments as words: its result as a
/// word (an exception it raises is left pending in the C side's state).
///
/// # Safety
/// `args` must hold as many words as the portal has arguments.
#[no_mangle]
pub unsafe extern "C" fn rpy_jit_call_portal(portal: u64, args: *const u64, nargs: u64) -> u64 {
    let args = std::slice::from_raw_parts(args, nargs as usize);
    let Some(rt) = RUNTIME.with(|r| r.get().copied()) else {
        die("fatal RPython error: the JIT runtime was not initialized");
    };
    let mut stats = BlackholeStats::default();
    match rt.call_portal(portal as usize, args, &mut stats) {
        Ok(v) => v,
        Err(e) => die(&e.message),
    }
}

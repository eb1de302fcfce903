//! The JIT runtime of an executable translated with `--jit`: the C side
//! (GenC's `RpyJitEmbedding`) hands it the program's JIT data at start-up
//! (`rpy_jit_init`), and each call of a portal comes here
//! (`rpy_jit_call_portal`), where it runs on its jitcodes and hot loops
//! are traced and run as machine code.
//!
//! Settings come from the environment, as the original's `--jit` option:
//! `RPY_JIT=threshold=N,function_threshold=N,trace_limit=N,
//! trace_eagerness=N,enable_opts=...` or `RPY_JIT=off` (the blackhole
//! alone); `RPY_JITLOG=FILE` writes the traces, before and after
//! optimization, and the JIT's counts when the program exits.

use rpy_jit::blackhole::BlackholeStats;
use rpy_jit::metainterp::JitParams;
use rpy_jit::native::loops::NativeBackend;
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

extern "C" {
    fn atexit(f: extern "C" fn()) -> i32;
}

/// The settings of `RPY_JIT`: the parameters, or `None` for `off`.
fn settings() -> Option<JitParams> {
    let mut params = JitParams::default();
    match std::env::var("RPY_JIT") {
        Ok(v) if v.trim() == "off" => None,
        Ok(v) => match params.set_all(&v) {
            Ok(()) => Some(params),
            Err(e) => die(&format!("RPY_JIT: {e}")),
        },
        Err(_) => Some(params),
    }
}

/// At exit: the JIT's log, where `RPY_JITLOG` says.
extern "C" fn write_log() {
    let Ok(path) = std::env::var("RPY_JITLOG") else {
        return;
    };
    let Some(rt) = RUNTIME.with(|r| r.get().copied()) else {
        return;
    };
    if let Some((_, log)) = rt.jit_report() {
        if let Err(e) = std::fs::write(&path, log) {
            eprintln!("RPY_JITLOG: cannot write {path}: {e}");
        }
    }
}

/// Called by `main()` before the entry point.
///
/// # Safety
/// `embedding` must be the program's `RpyJitEmbedding`, alive for the run.
#[no_mangle]
pub unsafe extern "C" fn rpy_jit_init(embedding: *const Embedding) {
    let embedding: &'static Embedding = &*embedding;
    let params = settings();
    let backend = params
        .as_ref()
        .map(|_| Box::new(rpy_backend::x86_64::NativeMachineCode) as Box<dyn NativeBackend>);
    match NativeRuntime::new(embedding, backend, params.unwrap_or_default()) {
        Ok(rt) => {
            let rt: &'static NativeRuntime = Box::leak(Box::new(rt));
            RUNTIME.with(|r| {
                let _ = r.set(rt);
            });
            atexit(write_log);
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

//! The JIT runtime of an executable translated with `--jit`: the C side
//! (GenC's `RpyJitEmbedding`) hands it the program's JIT data at start-up
//! (`rpy_jit_init`). The translated portal runs as C and calls here at
//! its loop ends (`rpy_jit_can_enter_jit`, which counts) and merge points
//! (`rpy_jit_merge_point`): where a loop is hot, the JIT takes the call
//! over, tracing the loop or running it as machine code, and running what
//! follows a failing guard on the jitcodes until the portal's frame is
//! back at a merge point without a loop, where it hands the call back to
//! the C code (or the call returns).
//!
//! Settings come from the environment, as the original's `--jit` option,
//! and from the program's `jit.set_param` calls (`rpy_jit_set_param`):
//! `RPY_JIT=threshold=N,function_threshold=N,trace_limit=N,
//! trace_eagerness=N,enable_opts=...` or `RPY_JIT=off` (the blackhole
//! alone); `RPY_JITLOG=FILE` writes the traces, before and after
//! optimization, each trace's first run (for `rpy trace --replay`), and
//! the JIT's counts when the program exits.

use rpy_jit::metainterp::JitParams;
use rpy_jit::native::loops::NativeBackend;
use rpy_jit::native::machine::{Embedding, FromMergePoint, NativeRuntime};
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
    let mut params = JitParams {
        // The log holds each trace's first run, for `rpy trace --replay`.
        log_runs: std::env::var_os("RPY_JITLOG").is_some(),
        ..JitParams::default()
    };
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
        .map(|_| Box::new(rpy_asm::NativeMachineCode::default()) as Box<dyn NativeBackend>);
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

fn runtime() -> &'static NativeRuntime {
    match RUNTIME.with(|r| r.get().copied()) {
        Some(rt) => rt,
        None => die("fatal RPython error: the JIT runtime was not initialized"),
    }
}

/// The translated portal `portal` ran its merge point with `nwords` words
/// at `words` (greens, then reds; `first`: the call's first merge point).
/// 0: the C code goes on; 1: the JIT ran the rest of the call, and its
/// result is in `*result` (an exception it raised is left pending); 2: the
/// JIT ran part of the call and hands it back here, the values at this
/// merge point written over `words`.
///
/// # Safety
/// `words` must hold `nwords` words, writable, and `result` be writable.
#[no_mangle]
pub unsafe extern "C" fn rpy_jit_merge_point(
    portal: u64,
    words: *mut u64,
    nwords: u64,
    first: i32,
    result: *mut u64,
) -> i32 {
    let words = std::slice::from_raw_parts_mut(words, nwords as usize);
    match runtime().merge_point_from_c(portal as usize, words, first != 0) {
        Ok(FromMergePoint::GoOn) => 0,
        Ok(FromMergePoint::Returned(v)) => {
            *result = v;
            1
        }
        Ok(FromMergePoint::Resume) => 2,
        Err(e) => die(&e.message),
    }
}

/// The translated portal `portal` reached its `can_enter_jit` with its
/// greens, `nwords` words at `words`.
///
/// # Safety
/// `words` must hold `nwords` words.
#[no_mangle]
pub unsafe extern "C" fn rpy_jit_can_enter_jit(portal: u64, words: *const u64, nwords: u64) {
    let words = std::slice::from_raw_parts(words, nwords as usize);
    runtime().can_enter_jit_from_c(portal as usize, words);
}

/// The program's `jit.set_param(driver, name, value)`, the value as text
/// (GenC's runtime formats an int).
///
/// # Safety
/// `name` and `value` must hold `name_len` and `value_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn rpy_jit_set_param(
    name: *const u8,
    name_len: i64,
    value: *const u8,
    value_len: i64,
) {
    let text = |p: *const u8, n: i64| {
        String::from_utf8_lossy(std::slice::from_raw_parts(p, n.max(0) as usize)).into_owned()
    };
    let (name, value) = (text(name, name_len), text(value, value_len));
    if let Err(e) = runtime().set_param_from_program(&name, &value) {
        eprintln!("RPython JIT: set_param({name}, {value}): {e}");
    }
}

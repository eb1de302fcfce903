//! `cargo bench --bench jit`: the JIT programs run in-process four ways,
//! side by side: in the LLInterpreter, with the portal on the blackhole
//! interpreter, and with the meta-interpreter (`rpy interp --jit`), its
//! loops run by the trace interpreter and as x86-64 machine code. Least
//! wall time of 3 runs each; every way must print what the LLInterpreter
//! prints. The ratios say what tracing buys before executables carry the
//! JIT (the LLInterpreter runs the rest of the program either way).
//!
//! Then the executables: each program translated without and with
//! `--jit` (machine code in the executable), and CPython, side by side.
//!
//! `cargo bench --bench jit -- tlr` runs the programs whose name holds
//! `tlr`; `-- --executables` only the executables.

use std::rc::Rc;
use std::time::{Duration, Instant};

use rpy::pipeline::Source;
use rpy_jit::metainterp::{Interpreted, JitParams, LoopBackend};

const PROGRAMS: &[(&str, &str)] = &[
    ("tests/programs/py3/jit_tlr.py", "300000"),
    ("tests/programs/py3/jit_floatvm.py", "3000"),
    ("tests/programs/py3/jit_brainfuck.py", "1000"),
    ("tests/programs/py3/jit_stack_frames.py", "18"),
    ("tests/programs/py3/jit_ledger.py", "20000"),
    ("tests/programs/py3/jit_promote.py", "200000"),
    ("tests/programs/py3/jit_strvm.py", "300000"),
];

fn least<T>(mut run: impl FnMut() -> T) -> (Duration, T) {
    let mut best = None;
    let mut last = None;
    for _ in 0..3 {
        let start = Instant::now();
        let out = run();
        let took = start.elapsed();
        best = Some(best.map_or(took, |b: Duration| b.min(took)));
        last = Some(out);
    }
    (best.unwrap(), last.unwrap())
}

/// Larger inputs for the executables, which run them thousands of times
/// faster than the LLInterpreter (and CPython takes a few seconds).
const EXECUTABLES: &[(&str, &str)] = &[
    ("tests/programs/py3/jit_tlr.py", "100000"),
    ("tests/programs/py3/jit_floatvm.py", "3000"),
    ("tests/programs/py3/jit_brainfuck.py", "10000"),
    ("tests/programs/py3/jit_stack_frames.py", "22"),
    ("tests/programs/py3/jit_ledger.py", "100000"),
    ("tests/programs/py3/jit_promote.py", "500000"),
    ("tests/programs/py3/jit_strvm.py", "300000"),
    ("tests/programs/py3/jit_toy_lang.py", "30000"),
];

/// The least wall time of 3 runs of `cmd` and its output.
fn run_best(cmd: &mut std::process::Command) -> (Duration, Vec<u8>) {
    least(|| {
        let out = cmd.output().expect("the program runs");
        assert!(out.status.success(), "{cmd:?} failed");
        out.stdout
    })
}

fn executables(root: &str, filter: Option<&str>) {
    println!(
        "\n{:<28} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "executable", "plain", "jit", "cpython", "jit/plain", "jit/cpy"
    );
    for (path, arg) in EXECUTABLES {
        if filter.is_some_and(|f| !path.contains(f)) {
            continue;
        }
        let full = format!("{root}/{path}");
        let name = std::path::Path::new(path)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let dir = std::path::Path::new(root).join("target/bench");
        std::fs::create_dir_all(&dir).expect("target/bench");
        let build = |jit: bool| {
            let mut src = Source::read(&full, None).unwrap_or_else(|d| panic!("{d}"));
            src.jit = jit;
            let exe = dir.join(format!("{name}-{}", if jit { "jit" } else { "plain" }));
            rpy::cli::translate(&src, &exe, &mut rpy::pipeline::Timings::default())
                .unwrap_or_else(|d| panic!("{name}: {d}"));
            exe
        };
        let (plain, expected) = run_best(std::process::Command::new(build(false)).arg(arg));
        let (jit, out) = run_best(std::process::Command::new(build(true)).arg(arg));
        assert_eq!(out, expected, "{path}: the JIT executable prints otherwise");
        // (The tests hold the outputs to CPython's.)
        let (cpython, _) = run_best(
            std::process::Command::new("python3")
                .env("PYTHONPATH", format!("{root}/pylib"))
                .arg(&full)
                .arg(arg),
        );
        let secs = |d: Duration| format!("{:.3}s", d.as_secs_f64());
        println!(
            "{:<28} {:>10} {:>10} {:>10} {:>10.2} {:>10.3}",
            format!("{name} {arg}"),
            secs(plain),
            secs(jit),
            secs(cpython),
            jit.as_secs_f64() / plain.as_secs_f64(),
            jit.as_secs_f64() / cpython.as_secs_f64(),
        );
    }
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let root = env!("CARGO_MANIFEST_DIR");
    if std::env::args().any(|a| a == "--executables") {
        return executables(root, filter.as_deref());
    }
    println!(
        "{:<22} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9}",
        "program", "llinterp", "blackhole", "jit-interp", "jit-x86", "x86/llint", "x86/bh"
    );
    for (path, arg) in PROGRAMS {
        if filter.as_ref().is_some_and(|f| !path.contains(f.as_str())) {
            continue;
        }
        let full = format!("{root}/{path}");
        let src = Source::read(&full, None).unwrap_or_else(|d| panic!("{d}"));
        let program = rpy::pipeline::lowlevel(&src).unwrap_or_else(|d| panic!("{d}"));
        let codes = rpy_jit::codewriter::write_jitcodes(&program);
        let argv = vec![path.to_string(), arg.to_string()];
        let (llinterp, expected) = least(|| {
            let mut out = Vec::new();
            rpy_llinterp::LlInterpreter::new(&program)
                .run_entry(&argv, &mut out)
                .expect("the program runs");
            out
        });
        let on_jitcodes = |jit: Option<JitParams>| {
            least(|| {
                let mut out = Vec::new();
                let threshold = rpy_jit::warmstate::DEFAULT_THRESHOLD;
                let run = rpy_jit::blackhole::run_entry(
                    &program,
                    &codes,
                    &argv,
                    &mut out,
                    threshold,
                    jit.clone(),
                );
                run.status.expect("the program runs");
                out
            })
        };
        let backend = |b: Rc<dyn LoopBackend>| JitParams {
            backend: b,
            ..Default::default()
        };
        let (blackhole, out_bh) = on_jitcodes(None);
        let (jit_interp, out_ji) = on_jitcodes(Some(backend(Rc::new(Interpreted))));
        let (jit_x86, out_jx) = on_jitcodes(Some(backend(Rc::new(rpy_asm::MachineCode))));
        for (way, out) in [
            ("blackhole", &out_bh),
            ("jit-interp", &out_ji),
            ("jit-x86", &out_jx),
        ] {
            assert_eq!(out, &expected, "{path}: {way} prints otherwise");
        }
        let name = std::path::Path::new(path)
            .file_stem()
            .unwrap()
            .to_string_lossy();
        let secs = |d: Duration| format!("{:.3}s", d.as_secs_f64());
        println!(
            "{:<22} {:>10} {:>10} {:>10} {:>10} {:>9.2} {:>9.2}",
            format!("{name} {arg}"),
            secs(llinterp),
            secs(blackhole),
            secs(jit_interp),
            secs(jit_x86),
            jit_x86.as_secs_f64() / llinterp.as_secs_f64(),
            jit_x86.as_secs_f64() / blackhole.as_secs_f64(),
        );
    }
    executables(root, filter.as_deref());
}

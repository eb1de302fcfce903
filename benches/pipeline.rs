//! `cargo bench`: rpy's translation time, and the run time of what it produces
//! against a plain C version of the same program and against CPython, side by
//! side in one run.

use rpy::pipeline::{c_source, Source, StageName, Timings};
use rpy_ir::ast::Dialect;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

struct Bench {
    name: &'static str,
    arg: &'static str,
}

const BENCHES: &[Bench] = &[
    Bench {
        name: "fib",
        arg: "30",
    },
    Bench {
        name: "collatz",
        arg: "300000",
    },
];

fn best_of(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

fn run_timed(cmd: &mut Command, runs: usize) -> Option<Duration> {
    let mut ok = true;
    let d = best_of(runs, || {
        ok &= cmd.output().map(|o| o.status.success()).unwrap_or(false);
    });
    ok.then_some(d)
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out_dir = root.join("target/bench");
    std::fs::create_dir_all(&out_dir).unwrap();
    println!(
        "{:<16} {:>10} {:>10} {:>10} {:>10} {:>7} {:>12}",
        "program", "translate", "rpy exe", "plain C", "CPython 3", "rpy/C", "CPython/rpy"
    );
    for b in BENCHES {
        let py = root.join("benches/programs").join(format!("{}.py", b.name));
        let src = Source {
            path: py.to_string_lossy().into_owned(),
            text: std::fs::read_to_string(&py).unwrap(),
            dialect: Dialect::Py3,
        };
        // Translation without the C compiler: parse through genc.
        let translate = best_of(20, || {
            c_source(&src, &mut Timings::default()).unwrap();
        });
        let exe = out_dir.join(format!("{}-rpy", b.name));
        rpy::cli::translate(&src, &exe, &mut Timings::default()).unwrap();
        let c_exe = out_dir.join(format!("{}-c", b.name));
        let c_file = root.join("benches/programs").join(format!("{}.c", b.name));
        let cc_ok = Command::new("cc")
            .args(["-O2", "-o"])
            .arg(&c_exe)
            .arg(&c_file)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        let rpy_t = run_timed(Command::new(&exe).arg(b.arg), 5).expect("the rpy executable failed");
        let c_t = if cc_ok {
            run_timed(Command::new(&c_exe).arg(b.arg), 5)
        } else {
            None
        };
        let cpy_t = run_timed(Command::new("python3").arg(&py).arg(b.arg), 1);
        let ratio = |a: Option<Duration>, b: Option<Duration>| match (a, b) {
            (Some(a), Some(b)) => format!("{:.2}x", a.as_secs_f64() / b.as_secs_f64()),
            _ => "-".into(),
        };
        println!(
            "{:<16} {:>10} {:>10} {:>10} {:>10} {:>7} {:>12}",
            format!("{}({})", b.name, b.arg),
            ms(translate),
            ms(rpy_t),
            c_t.map(ms).unwrap_or("-".into()),
            cpy_t.map(ms).unwrap_or("-".into()),
            ratio(Some(rpy_t), c_t),
            ratio(cpy_t, Some(rpy_t)),
        );
    }
    let src_path = root.join("benches/programs/collatz.py");
    let src = Source {
        path: src_path.to_string_lossy().into_owned(),
        text: std::fs::read_to_string(&src_path).unwrap(),
        dialect: Dialect::Py3,
    };
    let mut t = Timings::default();
    c_source(&src, &mut t).unwrap();
    let stages: Vec<String> = t
        .stages
        .iter()
        .map(|(s, d): &(StageName, Duration)| {
            format!("{} {:.3} ms", s.name(), d.as_secs_f64() * 1e3)
        })
        .collect();
    println!("\nstage times for collatz: {}", stages.join(", "));
}

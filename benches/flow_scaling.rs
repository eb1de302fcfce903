//! `cargo bench --bench flow_scaling`: parse + flow time of generated
//! programs of 1, 2 and 5 MB, and whether it grows linearly with the size.
//!
//! Issue 15 measured the flow stage quadratic in the number of functions
//! (1 MB 0.58 s, 2 MB 1.8 s, 5 MB 12.4 s): each name a module body binds
//! was looked up in a list of all the names before it. The benchmark fails
//! when 5 MB takes more than `MAX_GROWTH` times as long per byte as 1 MB.
//!
//! The program is a chain of small functions at module level, each with a
//! loop, a branch and a call of the previous one, so that every function is
//! reachable from the entry point and gets a flow graph.

use rpy::pipeline::{run_until, Source, StageName, Timings};
use rpy_ir::ast::Dialect;
use std::fmt::Write;
use std::time::{Duration, Instant};

/// How much slower per byte 5 MB may flow than 1 MB (linear: about 1;
/// the old quadratic stage: 4 and more).
const MAX_GROWTH: f64 = 1.6;

/// A program of at least `bytes` bytes.
fn program(bytes: usize) -> String {
    let mut out = String::new();
    let mut n = 0;
    while out.len() < bytes {
        let callee = if n == 0 {
            "len(str(n))".to_string()
        } else {
            format!("f{}(n - 1)", n - 1)
        };
        let _ = write!(
            out,
            "def f{n}(n):
    total = 0
    i = 0
    while i < n:
        if i % {m} == 0:
            total += i * {k}
        else:
            total = total ^ i
        i += 1
    return total + {callee}


",
            m = n % 13 + 2,
            k = n % 97 + 3
        );
        n += 1;
    }
    let _ = write!(
        out,
        "def entry_point(argv):
    print(f{}(int(argv[1])))
    return 0

def target(*args):
    return entry_point
",
        n - 1
    );
    out
}

/// The best of three parse + flow times of a program of `megabytes` MB.
fn flow_time(megabytes: usize) -> Duration {
    let src = Source {
        path: "flow_scaling.py".into(),
        text: program(megabytes << 20),
        dialect: Dialect::Py3,
        gc: rpy_ir::llops::GcKind::default(),
        jit: false,
    };
    (0..3)
        .map(|_| {
            let started = Instant::now();
            if let Err(d) = run_until(&src, StageName::Flow, &mut Timings::default()) {
                panic!("the benchmark program does not flow:\n{d}");
            }
            started.elapsed()
        })
        .min()
        .expect("three runs")
}

fn main() {
    println!("{:>5} {:>10} {:>12}", "MB", "flow (s)", "s per MB");
    let mut per_mb = Vec::new();
    for mb in [1, 2, 5] {
        let t = flow_time(mb).as_secs_f64();
        per_mb.push(t / mb as f64);
        println!("{mb:>5} {t:>10.3} {:>12.3}", t / mb as f64);
    }
    let growth = per_mb[2] / per_mb[0];
    println!("5 MB per byte / 1 MB per byte: {growth:.2} (at most {MAX_GROWTH})");
    assert!(
        growth <= MAX_GROWTH,
        "the flow stage is not linear: 5 MB takes {growth:.2} times as long per byte as 1 MB"
    );
}

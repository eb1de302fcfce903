//! `cargo bench --bench annotate`: the annotator's time on generated programs
//! of 1,000 to 10,000 lines (many functions calling each other, with ints,
//! floats, strings, lists and loops), and how it grows with size. The budget
//! is 300 ms for 10,000 lines.
//!
//! The program is parsed and flowed once per size; only `annotate` is timed
//! (best of several runs, each on a fresh copy of the flow graphs).

use rpy::pipeline::{run_until, Source, StageName, StageOutput, Timings};
use rpy_ir::ast::Dialect;
use std::fmt::Write;
use std::time::{Duration, Instant};

/// One function of about 24 lines. It calls the two functions before it, so
/// the call graph is deep and every return annotation flows to two callers.
fn function(out: &mut String, k: usize) {
    let calls = match k {
        0 => "acc = acc + 1".to_string(),
        1 => "acc = acc + f0(i, s)".to_string(),
        _ => format!("acc = acc + f{}(i, s) - f{}(acc % 7, s)", k - 1, k - 2),
    };
    let _ = write!(
        out,
        "def f{k}(n, s):
    acc = n
    total = 0.5
    i = 0
    words = [s, \"w{k}\"]
    while i < n % 5 + 2:
        {calls}
        total = total * 1.5 + i
        if acc > 1000:
            acc = acc // 3
        elif acc < -1000:
            acc = -acc
        else:
            acc = acc ^ {k}
        i = i + 1
    label = words[i % 2] + str(acc)
    if len(label) > 40:
        label = label[0] + \"...\"
    if total > 1e9:
        acc = acc + int(total) % 11
    return acc + len(label)


"
    );
}

/// A program of about `lines` lines.
fn program(lines: usize) -> String {
    let per_function = 24;
    let n = (lines.saturating_sub(10) / per_function).max(2);
    let mut out = String::from("import sys\n\n\n");
    for k in 0..n {
        function(&mut out, k);
    }
    let _ = write!(
        out,
        "def entry_point(argv):
    print(f{}(len(argv), argv[0]))
    return 0


def target(*args):
    return entry_point, None
",
        n - 1
    );
    out
}

fn main() {
    println!(
        "{:>8} {:>10} {:>12} {:>14}",
        "lines", "functions", "annotate", "per 1k lines"
    );
    for size in [1_000, 2_000, 5_000, 10_000] {
        let text = program(size);
        let lines = text.lines().count();
        let src = Source {
            path: format!("generated_{size}.py"),
            text,
            dialect: Dialect::Py3,
        };
        let flow = match run_until(&src, StageName::Flow, &mut Timings::default()) {
            Ok(StageOutput::Flow(flow)) => flow,
            Ok(_) => panic!("the flow stage gave no flow graphs"),
            Err(d) => panic!("the generated program does not flow:\n{d}"),
        };
        let functions = flow.graphs.len();
        let runs = if size >= 5_000 { 5 } else { 10 };
        let best = (0..runs)
            .map(|_| {
                let copy = flow.clone();
                let t = Instant::now();
                rpy_passes::annotate::annotate(copy, src.dialect, &src.text)
                    .unwrap_or_else(|d| panic!("the generated program does not annotate:\n{d}"));
                t.elapsed()
            })
            .min()
            .unwrap_or(Duration::ZERO);
        let ms = best.as_secs_f64() * 1e3;
        println!(
            "{lines:>8} {functions:>10} {:>9.1} ms {:>11.2} ms",
            ms,
            ms * 1000.0 / lines as f64
        );
        if size == 10_000 && ms > 300.0 {
            println!("over budget: 10,000 lines must annotate in under 300 ms");
        }
    }
}

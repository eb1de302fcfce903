//! `cargo bench --bench annotate`: the annotator's time on generated programs
//! of 1,000 to 10,000 lines, and how it grows with size, for two families:
//! `functions` (many functions calling each other, with ints, floats,
//! strings, lists and loops) and `classes` (about 40 classes per 1,000
//! lines in hierarchies under one root, with overridden methods called
//! through base-class variables, attributes, isinstance and exception
//! subclasses; see `CLASS_GROUP` in `gen/classes.rs`). The budget is 300 ms for 10,000 lines.
//!
//! On the 2-core development machine (shared, so best of 3 bench runs),
//! December 2026:
//!
//! | program   | lines | classes | annotate | per 1k lines | instructions per 1k lines |
//! |-----------|------:|--------:|---------:|-------------:|--------------------------:|
//! | functions |   953 |       0 |   2.1 ms |      2.20 ms |                     29.1M |
//! | functions |  9578 |       0 |  31.3 ms |      3.27 ms |                     30.3M |
//! | classes   |   951 |      41 |   3.9 ms |      4.10 ms |                     46.4M |
//! | classes   |  9921 |     431 |  58.5 ms |      5.90 ms |                     52.1M |
//!
//! The work grows about linearly: the instructions of one annotation per
//! 1,000 lines differ by 4% (functions) and 12% (classes) between 1,000 and
//! 10,000 lines (counted by running the bench binary with `classes 10000`
//! under `valgrind --tool=callgrind --toggle-collect='rpy_passes::annotate::annotate*'`
//! and dividing by its runs); the time per line grows more, as the larger
//! tables outgrow the caches. Before the class tables of `classdefs` were
//! made once, the class program took 83M (1,000 lines) to 91M (10,000)
//! instructions per 1,000 lines.
//!
//! The program is parsed and flowed once per size; only `annotate` is timed
//! (best of several runs, each on a fresh copy of the flow graphs).
//! `cargo bench --bench annotate -- classes 10000` runs one family, or one
//! size.

#[path = "gen/classes.rs"]
mod classes;

use classes::class_program;
use rpy::pipeline::{run_until, Source, StageName, StageOutput, Timings};
use rpy_ir::ast::Dialect;
use rpy_ir::graph::PrebuiltObject;
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

/// A program of about `lines` lines of functions.
fn function_program(lines: usize) -> String {
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

/// One generated program family.
struct Family {
    name: &'static str,
    program: fn(usize) -> String,
}

const FAMILIES: [Family; 2] = [
    Family {
        name: "functions",
        program: function_program,
    },
    Family {
        name: "classes",
        program: class_program,
    },
];

/// The best of `runs` annotations of `text`, and the program's number of
/// graphs and classes. Panics with the diagnostic when it does not flow or
/// annotate: a generated program is valid RPython.
fn measure(path: String, text: String, runs: usize) -> (Duration, usize, usize) {
    let src = Source {
        path,
        text,
        dialect: Dialect::Py3,
        gc: rpy_ir::llops::GcKind::default(),
        jit: false,
    };
    let flow = match run_until(&src, StageName::Flow, &mut Timings::default()) {
        Ok(StageOutput::Flow(flow)) => flow,
        Ok(_) => panic!("the flow stage gave no flow graphs"),
        Err(d) => panic!("the generated program {} does not flow:\n{d}", src.path),
    };
    let classes = flow
        .prebuilt
        .iter()
        .filter(|p| matches!(p, PrebuiltObject::Class { .. }))
        .count();
    let best = (0..runs)
        .map(|_| {
            let copy = flow.clone();
            let t = Instant::now();
            rpy_passes::annotate::annotate(copy, src.dialect).unwrap_or_else(|d| {
                panic!("the generated program {} does not annotate:\n{d}", src.path)
            });
            t.elapsed()
        })
        .min()
        .unwrap_or(Duration::ZERO);
    (best, flow.graphs.len(), classes)
}

fn main() {
    // `cargo bench --bench annotate -- classes 10000` runs one family, or
    // one size (cargo passes `--bench` itself).
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let sizes: Vec<usize> = only.iter().filter_map(|a| a.parse().ok()).collect();
    let families: Vec<&String> = only
        .iter()
        .filter(|a| a.parse::<usize>().is_err())
        .collect();
    println!(
        "{:>10} {:>8} {:>8} {:>8} {:>12} {:>14}",
        "program", "lines", "graphs", "classes", "annotate", "per 1k lines"
    );
    for family in FAMILIES
        .iter()
        .filter(|f| families.is_empty() || families.iter().any(|o| *o == f.name))
    {
        for size in [1_000, 2_000, 5_000, 10_000] {
            if !sizes.is_empty() && !sizes.contains(&size) {
                continue;
            }
            let text = (family.program)(size);
            let lines = text.lines().count();
            let runs = if size >= 5_000 { 5 } else { 10 };
            let path = format!("generated_{}_{size}.py", family.name);
            let (best, graphs, classes) = measure(path, text, runs);
            let ms = best.as_secs_f64() * 1e3;
            println!(
                "{:>10} {lines:>8} {graphs:>8} {classes:>8} {:>9.1} ms {:>11.2} ms",
                family.name,
                ms,
                ms * 1000.0 / lines as f64
            );
            if size == 10_000 && ms > 300.0 {
                println!("over budget: 10,000 lines must annotate in under 300 ms");
            }
        }
    }
}

//! `cargo bench --bench pipeline`: rpy's translation time, and the run time of
//! what it produces against a plain C version of the same program and against
//! CPython, side by side in one run.
//!
//! Two parts:
//!
//! - The benchmark programs of `benches/programs/` (each `.py` with a `.c`
//!   doing the same computation): each is translated (`rpy translate`, which
//!   compiles with `cc -O2`) and its `.c` compiled with `cc -O2` too; both
//!   run with the same argument (the least CPU time of 5 runs; CPython
//!   once) and must print what CPython prints. `rpy/C` is the ratio of the
//!   least CPU times. The same program is also translated with every
//!   backend optimization off (`rpy translate --inline-threshold 0
//!   --no-malloc-removal --no-load-folding --no-devirtualize --no-int-rewrite --no-global-egraph --no-constfold --no-branch-facts --no-dead-code --no-merge-switches`): `no-opt` is that
//!   executable's time and `opt/no-opt` the ratio, and the translation
//!   columns show the time the backend optimizations add.
//! - The 10,000-line class-heavy program of `gen/classes.rs`
//!   (`translatable_class_program`): the rtyper's time on it alone (least
//!   of 5 runs, each on a fresh copy of the annotated program) and the
//!   whole translation to C text, without the C compiler (least of 5), as
//!   wall and as CPU time of the bench's thread. The budgets are
//!   100 ms and 300 ms.
//!
//! Timings on the shared 2-core machine are noisy: every figure is a best of
//! several runs. `cargo bench --bench pipeline -- classes` runs only the
//! second part, `-- programs` only the first, `-- nbody` one program.

#[path = "gen/classes.rs"]
mod classes;

use rpy::pipeline::{
    c_source, c_source_with, run_until, BackendoptOptions, Source, StageName, StageOutput, Timings,
};
use rpy_ir::ast::Dialect;
use std::path::{Path, PathBuf};
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
    // Instances in a list, float arithmetic, attribute reads and writes.
    Bench {
        name: "nbody",
        arg: "20000",
    },
    // Lists of ints and bools: a sieve and a heap sort.
    Bench {
        name: "sort",
        arg: "1000000",
    },
    // String building, joining and splitting, a dict of str -> int.
    Bench {
        name: "wordcount",
        arg: "1000000",
    },
    // An interpreter loop: a bytecode VM with a list as its stack.
    Bench {
        name: "vm",
        arg: "1000000",
    },
];

/// The class-heavy program's size, and the budgets the issue sets for it.
const CLASS_LINES: usize = 10_000;
const RTYPE_BUDGET: Duration = Duration::from_millis(100);
const TRANSLATE_BUDGET: Duration = Duration::from_millis(300);

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

/// The CPU time (user and system) of the children this process has
/// waited for.
fn children_cpu() -> Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// The CPU time this thread has used.
fn thread_cpu() -> Duration {
    // SAFETY: clock_gettime only writes the struct it is given.
    let t = unsafe {
        let mut t: libc::timespec = std::mem::zeroed();
        libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t);
        t
    };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// The least CPU time of `runs` runs of `cmd`, and its output (`None` when
/// it fails or when runs print different things). CPU time rather than
/// wall time: on the shared machine a run's wall time also counts the time
/// it waited for a core.
fn run_timed(cmd: &mut Command, runs: usize) -> Option<(Duration, String)> {
    let mut outputs = Vec::new();
    let mut best = Duration::MAX;
    for _ in 0..runs {
        let before = children_cpu();
        outputs.push(
            cmd.output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned()),
        );
        best = best.min(children_cpu().saturating_sub(before));
    }
    let first = outputs[0].clone()?;
    outputs
        .iter()
        .all(|o| o.as_ref() == Some(&first))
        .then_some((best, first))
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn source(path: &Path, text: String) -> Source {
    Source {
        path: path.to_string_lossy().into_owned(),
        text,
        dialect: Dialect::Py3,
        gc: rpy_ir::llops::GcKind::default(),
        jit: false,
    }
}

fn programs(root: &Path, only: &[String]) {
    let out_dir = root.join("target/bench");
    std::fs::create_dir_all(&out_dir).unwrap();
    println!(
        "{:<18} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>7} {:>11} {:>12}  output",
        "program",
        "translate",
        "no-opt tr.",
        "rpy exe",
        "no-opt exe",
        "plain C",
        "CPython 3",
        "rpy/C",
        "opt/no-opt",
        "CPython/rpy"
    );
    println!(
        "{:<18} {:>21} {:>43}",
        "", "(wall, no cc)", "(CPU time of the programs)"
    );
    let mut over = Vec::new();
    for b in BENCHES {
        if !only.is_empty() && !only.iter().any(|o| o == b.name || o == "programs") {
            continue;
        }
        let py = root.join("benches/programs").join(format!("{}.py", b.name));
        let src = source(&py, std::fs::read_to_string(&py).unwrap());
        // Translation without the C compiler: parse through genc.
        let translate = best_of(10, || {
            c_source(&src, &mut Timings::default()).unwrap();
        });
        let no_opt = BackendoptOptions::none();
        let translate_no_opt = best_of(10, || {
            c_source_with(&src, &mut Timings::default(), &no_opt).unwrap();
        });
        let exe = out_dir.join(format!("{}-rpy", b.name));
        rpy::cli::translate(&src, &exe, &mut Timings::default()).unwrap();
        let no_opt_exe = out_dir.join(format!("{}-rpy-no-opt", b.name));
        rpy::cli::translate_with(&src, &no_opt_exe, &mut Timings::default(), &no_opt).unwrap();
        let c_exe = out_dir.join(format!("{}-c", b.name));
        let c_file = root.join("benches/programs").join(format!("{}.c", b.name));
        // The flags rpy gives the C compiler (`backend/src/compile.rs`).
        let cc_ok = Command::new("cc")
            .args(["-O2", "-o"])
            .arg(&c_exe)
            .arg(&c_file)
            .arg("-lm")
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        let (rpy_t, rpy_out) =
            run_timed(Command::new(&exe).arg(b.arg), 5).expect("the rpy executable failed");
        let no_opt_run = run_timed(Command::new(&no_opt_exe).arg(b.arg), 5);
        let c = if cc_ok {
            run_timed(Command::new(&c_exe).arg(b.arg), 5)
        } else {
            None
        };
        let cpy = run_timed(Command::new("python3").arg(&py).arg(b.arg), 1);
        let ratio = |a: Option<Duration>, b: Option<Duration>| match (a, b) {
            (Some(a), Some(b)) => format!("{:.2}x", a.as_secs_f64() / b.as_secs_f64()),
            _ => "-".into(),
        };
        let same = |other: &Option<(Duration, String)>, who: &str| match other {
            Some((_, out)) if *out == rpy_out => String::new(),
            Some(_) => format!(" DIFFERS from {who}"),
            None => format!(" ({who} did not run)"),
        };
        if let Some((c_t, _)) = &c {
            if rpy_t > 2 * *c_t {
                over.push(b.name);
            }
        }
        println!(
            "{:<18} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>7} {:>11} {:>12}  {}{}{}{}",
            format!("{}({})", b.name, b.arg),
            ms(translate),
            ms(translate_no_opt),
            ms(rpy_t),
            no_opt_run.as_ref().map(|r| ms(r.0)).unwrap_or("-".into()),
            c.as_ref().map(|c| ms(c.0)).unwrap_or("-".into()),
            cpy.as_ref().map(|c| ms(c.0)).unwrap_or("-".into()),
            ratio(Some(rpy_t), c.as_ref().map(|c| c.0)),
            ratio(Some(rpy_t), no_opt_run.as_ref().map(|r| r.0)),
            ratio(cpy.as_ref().map(|c| c.0), Some(rpy_t)),
            rpy_out.trim_end(),
            same(&c, "C"),
            same(&cpy, "CPython"),
            same(&no_opt_run, "the unoptimized executable"),
        );
    }
    if !over.is_empty() {
        println!("over 2x plain C: {}", over.join(", "));
    }
}

/// The class-heavy program: the rtyper alone and the translation to C text.
fn class_program(root: &Path) {
    let text = classes::translatable_class_program(CLASS_LINES);
    let lines = text.lines().count();
    // Written out so that it can be translated and run by hand.
    let path = root.join("target/bench/classes_10k.py");
    std::fs::create_dir_all(root.join("target/bench")).unwrap();
    std::fs::write(&path, &text).unwrap();
    let src = source(&path, text);
    let annotated = match run_until(&src, StageName::Annotate, &mut Timings::default()) {
        Ok(StageOutput::Annotated(p)) => p,
        Ok(_) => panic!("the annotate stage gave no annotated program"),
        Err(d) => panic!("the class program does not annotate:\n{d}"),
    };
    let graphs = annotated.graphs.len();
    // Wall and CPU time of each run; the least of each is reported.
    let mut rtype = (Duration::MAX, Duration::MAX);
    for _ in 0..5 {
        let copy = annotated.clone();
        let (wall, cpu) = (Instant::now(), thread_cpu());
        rpy_passes::rtype::rtype(copy, src.dialect)
            .unwrap_or_else(|d| panic!("the class program does not rtype:\n{d}"));
        rtype = (rtype.0.min(wall.elapsed()), rtype.1.min(thread_cpu() - cpu));
    }
    let mut stages = Timings::default();
    let mut translate = (Duration::MAX, Duration::MAX);
    for _ in 0..5 {
        let mut t = Timings::default();
        let cpu = thread_cpu();
        c_source(&src, &mut t).unwrap_or_else(|d| panic!("no C for the class program:\n{d}"));
        translate.1 = translate.1.min(thread_cpu() - cpu);
        let total = t.total();
        if total < translate.0 {
            translate.0 = total;
            stages = t;
        }
    }
    println!(
        "\nclass-heavy program: {lines} lines, {graphs} annotated graphs (least of 5 runs)\n  \
         rtype alone: {} wall, {} CPU (budget {})\n  \
         translation to C text: {} wall, {} CPU (budget {})",
        ms(rtype.0),
        ms(rtype.1),
        ms(RTYPE_BUDGET),
        ms(translate.0),
        ms(translate.1),
        ms(TRANSLATE_BUDGET),
    );
    let split: Vec<String> = stages
        .stages
        .iter()
        .map(|(s, d)| format!("{} {}", s.name(), ms(*d)))
        .collect();
    println!(
        "  stages of the fastest translation (wall): {}",
        split.join(", ")
    );
    // Over budget when even the CPU time is: the wall time also counts
    // the time the bench waited for a core.
    if rtype.1 > RTYPE_BUDGET {
        println!("  over budget: rtype must take under {}", ms(RTYPE_BUDGET));
    }
    if translate.1 > TRANSLATE_BUDGET {
        println!(
            "  over budget: the translation must take under {}",
            ms(TRANSLATE_BUDGET)
        );
    }
}

fn main() {
    // cargo passes `--bench` itself; other arguments choose a part.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let parts = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    if only.is_empty() || only.iter().any(|o| o != "classes") {
        programs(&root, &only);
    }
    if parts("classes") {
        class_program(&root);
    }
}

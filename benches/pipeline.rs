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
//!   and PyPy3 once) and must print what CPython prints. `rpy/C` is the
//!   ratio of the least CPU times, `CPython/rpy` and `PyPy3/rpy` how many
//!   times faster rpy's executable is. PyPy3 is `pypy3` on the PATH; when
//!   it is missing the bench installs the Debian package (`apt-get install
//!   -y pypy3`) if it runs as root on a machine with apt-get, and otherwise
//!   says that the column is skipped. The `peak RSS` columns are each
//!   executable's largest resident memory (of its runs), measured by a
//!   small C wrapper that forks, runs the program and reads `wait4`'s
//!   rusage: the bench's own `ru_maxrss` of a child would count the
//!   bench's memory, which a child spawned with vfork shares until its
//!   exec. The same program is also translated with every
//!   backend optimization off (`rpy translate --no-backendopt`): `no-opt` is that
//!   executable's time and `opt/no-opt` the ratio, and the translation
//!   columns show the time the backend optimizations add.
//! - The 10,000-line class-heavy program of `gen/classes.rs`
//!   (`translatable_class_program`): the rtyper's time on it alone (least
//!   of 5 runs, each on a fresh copy of the annotated program; budget 100
//!   ms) and the whole translation to C text, without the C compiler, as
//!   least wall time of 7 runs: before backend optimization (what
//!   `--no-backendopt` does; budget 300 ms, set when the backend
//!   optimizations were only the block-local integer rewriting) and with
//!   every backend optimization (budget 500 ms, which the issue that
//!   brought them set).
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
    // Allocation-heavy: many short-lived trees around a long-lived one.
    Bench {
        name: "binary_trees",
        arg: "14",
    },
    // String building and slicing: run-length coding, wrapping, windows.
    Bench {
        name: "strings",
        arg: "200000",
    },
    // Dict-heavy bookkeeping: int- and str-keyed dicts, deletions.
    Bench {
        name: "dicts",
        arg: "1000000",
    },
];

/// The wrapper that measures one run: `rusage OUT PROGRAM ARGS...` runs
/// the program (forked from this small process, so the child's peak RSS
/// is its own) and writes its CPU time (microseconds) and peak RSS (KB)
/// to OUT; its exit status is the program's.
const RUSAGE_WRAPPER: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv) {
    if (argc < 3) return 2;
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) return 2;
    FILE *out = fopen(argv[1], "w");
    if (out == NULL) return 2;
    long us = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L + ru.ru_utime.tv_usec +
              ru.ru_stime.tv_usec;
    fprintf(out, "%ld %ld\n", us, ru.ru_maxrss);
    fclose(out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
"#;

/// The class-heavy program's size, and the budgets the issues set for it:
/// the rtyper's, and the whole translation's before backend optimization.
const CLASS_LINES: usize = 10_000;
const RTYPE_BUDGET: Duration = Duration::from_millis(100);
const TRANSLATE_BUDGET: Duration = Duration::from_millis(300);
/// The backend optimizations may take the translation up to this.
const OPTIMIZED_TRANSLATE_BUDGET: Duration = Duration::from_millis(500);

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

/// One measured run of `program args` through the wrapper: what it
/// printed (`None` when it failed), its CPU time and its peak RSS in KB.
struct Measure {
    wrapper: PathBuf,
    report: PathBuf,
}

/// What a program did over its runs: the least CPU time, the largest peak
/// RSS (KB) and its output.
struct Runs {
    cpu: Duration,
    rss_kb: u64,
    out: String,
}

impl Measure {
    fn new(dir: &Path) -> Measure {
        let src = dir.join("rusage.c");
        std::fs::write(&src, RUSAGE_WRAPPER).unwrap();
        let wrapper = dir.join("rusage");
        let ok = Command::new("cc")
            .args(["-O2", "-o"])
            .arg(&wrapper)
            .arg(&src)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, "cannot compile the measuring wrapper {}", src.display());
        Measure {
            wrapper,
            report: dir.join("rusage.out"),
        }
    }

    /// The least CPU time and largest peak RSS of `runs` runs of `program
    /// args`, and its output (`None` when it fails or when runs print
    /// different things). CPU time rather than wall time: on the shared
    /// machine a run's wall time also counts the time it waited for a core.
    fn run(&self, program: &Path, args: &[&Path], runs: usize) -> Option<Runs> {
        let mut result: Option<Runs> = None;
        for _ in 0..runs {
            let _ = std::fs::remove_file(&self.report);
            let out = Command::new(&self.wrapper)
                .arg(&self.report)
                .arg(program)
                .args(args)
                .stderr(std::process::Stdio::null())
                .output()
                .ok()
                .filter(|o| o.status.success())?;
            let out = String::from_utf8_lossy(&out.stdout).into_owned();
            let report = std::fs::read_to_string(&self.report).ok()?;
            let mut fields = report.split_whitespace().map(|f| f.parse::<u64>().ok());
            let (Some(Some(us)), Some(Some(rss_kb))) = (fields.next(), fields.next()) else {
                return None;
            };
            let cpu = Duration::from_micros(us);
            result = match result {
                None => Some(Runs { cpu, rss_kb, out }),
                Some(r) if r.out == out => Some(Runs {
                    cpu: r.cpu.min(cpu),
                    rss_kb: r.rss_kb.max(rss_kb),
                    out,
                }),
                Some(_) => return None,
            };
        }
        result
    }
}

/// PyPy3: `pypy3` on the PATH, else installed from the Debian package when
/// this runs as root with apt-get, else `None` (with the reason printed).
fn pypy3() -> Option<PathBuf> {
    let works = |p: &Path| {
        Command::new(p)
            .args(["-c", "pass"])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    let name = PathBuf::from("pypy3");
    if works(&name) {
        return Some(name);
    }
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let apt = Command::new("apt-get").arg("--version").output().is_ok();
    if root && apt {
        println!("PyPy3 is not installed: apt-get install -y pypy3");
        let _ = Command::new("apt-get")
            .args(["install", "-y", "-q", "pypy3"])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdout(std::process::Stdio::null())
            .status();
        if works(&name) {
            return Some(name);
        }
        println!("PyPy3: skipped (apt-get install pypy3 failed)");
    } else {
        println!("PyPy3: skipped (not installed; `apt-get install pypy3` as root installs it)");
    }
    None
}

fn mb(kb: u64) -> String {
    format!("{:.1} MB", kb as f64 / 1024.0)
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
    let measure = Measure::new(&out_dir);
    let pypy = pypy3();
    let python3 = PathBuf::from("python3");
    println!(
        "{:<20} {:>9} {:>10} {:>9} {:>10} {:>9} {:>10} {:>9} {:>6} {:>10} {:>11} {:>9} {:>8} {:>8} {:>8} {:>8}  output",
        "program",
        "translate",
        "no-opt tr.",
        "rpy exe",
        "no-opt exe",
        "plain C",
        "CPython 3",
        "PyPy3",
        "rpy/C",
        "opt/no-opt",
        "CPython/rpy",
        "PyPy3/rpy",
        "rpy",
        "C",
        "CPython",
        "PyPy3",
    );
    println!(
        "{:<20} {:^20} {:^51} {:^39} {:^35}",
        "", "(wall, no cc)", "(CPU time of the programs)", "(ratios of CPU time)", "(peak RSS)"
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
        let arg = Path::new(b.arg);
        let rpy_run = measure
            .run(&exe, &[arg], 5)
            .expect("the rpy executable failed");
        let no_opt_run = measure.run(&no_opt_exe, &[arg], 5);
        let c = if cc_ok {
            measure.run(&c_exe, &[arg], 5)
        } else {
            None
        };
        let cpy = measure.run(&python3, &[&py, arg], 1);
        let pypy_run = pypy.as_ref().and_then(|p| measure.run(p, &[&py, arg], 1));
        let ratio = |a: Option<&Runs>, b: Option<&Runs>| match (a, b) {
            (Some(a), Some(b)) => format!("{:.2}x", a.cpu.as_secs_f64() / b.cpu.as_secs_f64()),
            _ => "-".into(),
        };
        let time = |r: Option<&Runs>| r.map(|r| ms(r.cpu)).unwrap_or("-".into());
        let rss = |r: Option<&Runs>| r.map(|r| mb(r.rss_kb)).unwrap_or("-".into());
        let same = |other: Option<&Runs>, who: &str, expected: bool| match other {
            Some(r) if r.out == rpy_run.out => String::new(),
            Some(_) => format!(" DIFFERS from {who}"),
            None if expected => format!(" ({who} did not run)"),
            None => String::new(),
        };
        if let Some(c) = &c {
            if rpy_run.cpu > 2 * c.cpu {
                over.push(b.name);
            }
        }
        let first_line = rpy_run.out.lines().next().unwrap_or("");
        let more = if rpy_run.out.lines().count() > 1 {
            " ..."
        } else {
            ""
        };
        println!(
            "{:<20} {:>9} {:>10} {:>9} {:>10} {:>9} {:>10} {:>9} {:>6} {:>10} {:>11} {:>9} {:>8} {:>8} {:>8} {:>8}  {:.40}{more}{}{}{}{}",
            format!("{}({})", b.name, b.arg),
            ms(translate),
            ms(translate_no_opt),
            ms(rpy_run.cpu),
            time(no_opt_run.as_ref()),
            time(c.as_ref()),
            time(cpy.as_ref()),
            time(pypy_run.as_ref()),
            ratio(Some(&rpy_run), c.as_ref()),
            ratio(Some(&rpy_run), no_opt_run.as_ref()),
            ratio(cpy.as_ref(), Some(&rpy_run)),
            ratio(pypy_run.as_ref(), Some(&rpy_run)),
            mb(rpy_run.rss_kb),
            rss(c.as_ref()),
            rss(cpy.as_ref()),
            rss(pypy_run.as_ref()),
            first_line,
            same(c.as_ref(), "C", true),
            same(cpy.as_ref(), "CPython", true),
            same(pypy_run.as_ref(), "PyPy3", pypy.is_some()),
            same(no_opt_run.as_ref(), "the unoptimized executable", true),
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
    println!(
        "\nclass-heavy program: {lines} lines, {graphs} annotated graphs (least of 5 runs)\n  \
         rtype alone: {} wall, {} CPU (budget {})",
        ms(rtype.0),
        ms(rtype.1),
        ms(RTYPE_BUDGET),
    );
    // Over budget when even the CPU time is: the wall time also counts
    // the time the bench waited for a core.
    if rtype.1 > RTYPE_BUDGET {
        println!("  over budget: rtype must take under {}", ms(RTYPE_BUDGET));
    }
    for (what, options, budget) in [
        (
            "before backend optimization (--no-backendopt)",
            BackendoptOptions::none(),
            TRANSLATE_BUDGET,
        ),
        (
            "with every backend optimization",
            BackendoptOptions::default(),
            OPTIMIZED_TRANSLATE_BUDGET,
        ),
    ] {
        // The least wall time of the whole translation: the stages after
        // the rtyper run on every core, so the bench thread's CPU time
        // would leave most of their work out.
        let mut fastest: Option<Timings> = None;
        for _ in 0..7 {
            let mut t = Timings::default();
            c_source_with(&src, &mut t, &options)
                .unwrap_or_else(|d| panic!("no C for the class program:\n{d}"));
            if fastest.as_ref().is_none_or(|f| t.total() < f.total()) {
                fastest = Some(t);
            }
        }
        let fastest = fastest.expect("seven translations ran");
        let split: Vec<String> = fastest
            .stages
            .iter()
            .map(|(s, d)| format!("{} {}", s.name(), ms(*d)))
            .collect();
        println!(
            "  translation to C text {what}: {} wall, least of 7 (budget {})\n    \
             its stages: {}",
            ms(fastest.total()),
            ms(budget),
            split.join(", ")
        );
        if fastest.total() > budget {
            println!(
                "  over budget: this translation must take under {}",
                ms(budget)
            );
        }
    }
}

fn main() {
    // cargo passes `--bench` itself; other arguments choose a part.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    rpy::keep_freed_memory();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let parts = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    if only.is_empty() || only.iter().any(|o| o != "classes") {
        programs(&root, &only);
    }
    if parts("classes") {
        class_program(&root);
    }
}

//! `cargo bench --bench gc`: the collectors side by side on
//! allocation-heavy programs: each program is translated twice, with
//! `--gc=none` (objects never freed) and with the generational collector,
//! and both executables run with the same arguments (least CPU time of 3
//! runs, and the peak resident memory of a run, read by `wait4`); plain
//! C (malloc/free) is beside them where the program has a `.c` version,
//! CPython 3 where it runs in reasonable time. Every executable must print
//! what the others print.
//!
//! `cargo bench --bench gc -- binary_trees` runs one program.

use rpy::pipeline::{Source, Timings};
use rpy_ir::ast::Dialect;
use rpy_ir::llops::GcKind;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

struct Bench {
    name: &'static str,
    /// The program, relative to the repository.
    path: &'static str,
    args: &'static [&'static str],
    /// The plain C version, when there is one.
    c_path: Option<&'static str>,
}

const BENCHES: &[Bench] = &[
    // Allocates some 60 times its live data: trees built and dropped
    // around one that lives to the end.
    Bench {
        name: "binary_trees",
        path: "benches/programs/binary_trees.py",
        args: &["16"],
        c_path: Some("benches/programs/binary_trees.c"),
    },
    // Trees, interpreter frames, cycles, a mutated prebuilt list, dicts.
    Bench {
        name: "gc_churn",
        path: "tests/programs/py3/gc_churn.py",
        args: &["14", "100"],
        c_path: None,
    },
    // Strings built, joined and split; a dict of str -> int.
    Bench {
        name: "wordcount",
        path: "benches/programs/wordcount.py",
        args: &["1000000"],
        c_path: Some("benches/programs/wordcount.c"),
    },
    // An interpreter loop whose stack is a list (allocates little).
    Bench {
        name: "vm",
        path: "benches/programs/vm.py",
        args: &["1000000"],
        c_path: Some("benches/programs/vm.c"),
    },
];

/// One run's CPU time (user + system), peak resident memory and output,
/// `None` when it fails.
fn run_once(cmd: &mut Command) -> Option<(Duration, u64, String)> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut out = String::new();
    child.stdout.take()?.read_to_string(&mut out).ok()?;
    let mut status = 0;
    // SAFETY: wait4 writes only the status and the rusage it is given; the
    // child is ours and not yet waited for (std's Child is not waited on
    // after this, its pid is reaped here).
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) < 0 {
            return None;
        }
        usage
    };
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        return None;
    }
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    let cpu = time(usage.ru_utime) + time(usage.ru_stime);
    Some((cpu, usage.ru_maxrss as u64, out))
}

/// The least CPU time and the largest peak memory of `runs` runs, and the
/// output (`None` when a run fails or the runs disagree).
fn run_best(cmd: &mut Command, runs: usize) -> Option<(Duration, u64, String)> {
    let mut best: Option<(Duration, u64, String)> = None;
    for _ in 0..runs {
        let (t, rss, out) = run_once(cmd)?;
        best = match best {
            None => Some((t, rss, out)),
            Some((bt, brss, bout)) if bout == out => Some((bt.min(t), brss.max(rss), bout)),
            Some(_) => return None,
        };
    }
    best
}

fn translate(root: &Path, b: &Bench, gc: GcKind) -> PathBuf {
    let path = root.join(b.path);
    let src = Source {
        path: path.to_string_lossy().into_owned(),
        text: std::fs::read_to_string(&path).unwrap(),
        dialect: Dialect::Py3,
        gc,
        jit: false,
    };
    let exe = root
        .join("target/bench")
        .join(format!("{}-gc-{}", b.name, gc.name()));
    rpy::cli::translate(&src, &exe, &mut Timings::default())
        .unwrap_or_else(|d| panic!("{}: {d}", b.name));
    exe
}

fn cell(r: &Option<(Duration, u64, String)>) -> String {
    match r {
        Some((t, rss, _)) => format!(
            "{:.0} ms {:.1} MB",
            t.as_secs_f64() * 1e3,
            *rss as f64 / 1024.0
        ),
        None => "-".into(),
    }
}

fn main() {
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(root.join("target/bench")).unwrap();
    println!("CPU time (least of 3 runs) and peak RSS of each executable");
    println!(
        "{:<26} {:>20} {:>20} {:>20} {:>20} {:>9} {:>9}",
        "program", "--gc=none", "generational", "plain C", "CPython 3", "gen/none", "gen/C"
    );
    for b in BENCHES {
        if !only.is_empty() && !only.iter().any(|o| o == b.name) {
            continue;
        }
        let none = run_best(
            Command::new(translate(&root, b, GcKind::None)).args(b.args),
            3,
        );
        let generational = run_best(
            Command::new(translate(&root, b, GcKind::Generational)).args(b.args),
            3,
        );
        let c = b.c_path.and_then(|c_path| {
            let exe = root.join("target/bench").join(format!("{}-c", b.name));
            let ok = Command::new("cc")
                .args(["-O2", "-o"])
                .arg(&exe)
                .arg(root.join(c_path))
                .arg("-lm")
                .status()
                .is_ok_and(|s| s.success());
            ok.then(|| run_best(Command::new(&exe).args(b.args), 3))
                .flatten()
        });
        let cpython = run_best(
            Command::new("python3").arg(root.join(b.path)).args(b.args),
            1,
        );
        let ratio =
            |a: &Option<(Duration, u64, String)>, b: &Option<(Duration, u64, String)>| match (a, b)
            {
                (Some(a), Some(b)) => format!("{:.2}x", a.0.as_secs_f64() / b.0.as_secs_f64()),
                _ => "-".into(),
            };
        let outputs: Vec<&String> = [&none, &generational, &c, &cpython]
            .into_iter()
            .filter_map(|r| r.as_ref().map(|r| &r.2))
            .collect();
        let agree = outputs.windows(2).all(|w| w[0] == w[1]);
        println!(
            "{:<26} {:>20} {:>20} {:>20} {:>20} {:>9} {:>9}{}",
            format!("{}({})", b.name, b.args.join(" ")),
            cell(&none),
            cell(&generational),
            cell(&c),
            cell(&cpython),
            ratio(&generational, &none),
            ratio(&generational, &c),
            if agree { "" } else { "  OUTPUTS DIFFER" },
        );
    }
}

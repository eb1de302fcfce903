//! The collectors as the executables see them: the generational one keeps an
//! allocation-heavy program's memory bounded by what it keeps alive, and
//! `--gc=none` still gives CPython's output. (Every program of
//! tests/programs runs with the generational collector, with and without
//! collecting at every allocation, in `tests/programs.rs`.)

mod support;

use rpy::pipeline::Source;
use rpy_ir::ast::Dialect;
use rpy_ir::llops::GcKind;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

fn source(relative: &str, gc: GcKind) -> Source {
    let path = support::root().join(relative);
    Source {
        path: relative.to_string(),
        text: std::fs::read_to_string(path).unwrap(),
        dialect: Dialect::Py3,
        gc,
        jit: false,
    }
}

/// What the system counted of a run.
struct Usage {
    /// The peak resident memory, in KB.
    peak_kb: u64,
    /// The page faults served without I/O (each a first touch of a page).
    page_faults: u64,
}

/// The output, standard error and resource usage of a run.
// The child is reaped by `wait4` (which gives its own rusage), not by
// `Child::wait`, which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn run_measured(cmd: &mut Command) -> (String, String, Usage) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let mut status = 0;
    // SAFETY: wait4 writes only the status and rusage given; the child is
    // ours and reaped here (its `Child` is not waited on).
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert!(libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) > 0);
        usage
    };
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the run failed: {err}"
    );
    let usage = Usage {
        peak_kb: usage.ru_maxrss as u64,
        page_faults: usage.ru_minflt as u64,
    };
    (out, err, usage)
}

fn cpython(relative: &str, args: &[&str]) -> Option<String> {
    let python = support::oracle(Dialect::Py3)?;
    let out = Command::new(python)
        .env("PYTHONPATH", support::root().join("pylib"))
        .arg(support::root().join(relative))
        .args(args)
        .output()
        .unwrap();
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// binary-trees of depth 16 allocates about 400 MB of nodes (never freed,
/// that is the peak RSS under `--gc=none`), while at most a stretch tree of
/// 2**18 nodes (6 MB) or the long-lived tree of 2**17 nodes and one of the
/// short-lived ones (under 6 MB) are alive at once.
#[test]
fn the_generational_gc_keeps_binary_trees_within_a_few_times_its_live_data() {
    let program = "benches/programs/binary_trees.py";
    let exe = support::build(&source(program, GcKind::Generational), "gc_binary_trees");
    let (out, stats, usage) = run_measured(
        Command::new(&exe)
            .arg("16")
            .env("RPY_GC_STATS", "1")
            // A fixed nursery, whatever this machine's cache.
            .env("RPY_GC_NURSERY", "1M"),
    );
    if let Some(expected) = cpython(program, &["16"]) {
        assert_eq!(out, expected);
    }
    let live_kb = 6 * 1024;
    // The executable's own high-water mark where it can read it: the
    // rusage of a child spawned by this (large) test process includes the
    // test's resident memory from before the exec.
    let peak_kb = stats
        .split("peak resident memory ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse::<i64>().ok())
        .and_then(|kb| u64::try_from(kb).ok())
        .unwrap_or(usage.peak_kb);
    assert!(
        peak_kb < 5 * live_kb,
        "peak RSS {peak_kb} KB for {live_kb} KB of live data ({})",
        stats.trim()
    );
    // The collector itself says how large the old generation grew.
    let old_peak: u64 = stats
        .split("old generation ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no statistics in {stats:?}"));
    assert!(
        old_peak < 3 * live_kb * 1024,
        "the old generation grew to {old_peak} bytes ({})",
        stats.trim()
    );
}

/// The old generation's memory is asked for in huge pages where the
/// system gives them on request: wordcount's 60 MB heap then takes a few
/// thousand page faults (about 1,800), not one for each 4 KB page (16,000).
#[test]
fn the_old_generation_is_in_huge_pages_where_the_system_has_them() {
    let huge_pages =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    if !huge_pages.contains("[madvise]") && !huge_pages.contains("[always]") {
        eprintln!("skipped: no transparent huge pages here");
        return;
    }
    let program = "benches/programs/wordcount.py";
    let exe = support::build(&source(program, GcKind::Generational), "gc_huge_pages");
    let (out, _, usage) = run_measured(
        Command::new(&exe)
            .arg("1000000")
            .env("RPY_GC_NURSERY", "4M"),
    );
    if let Some(expected) = cpython(program, &["1000000"]) {
        assert_eq!(out, expected);
    }
    assert!(
        usage.page_faults < 8000,
        "{} page faults for a peak of {} KB",
        usage.page_faults,
        usage.peak_kb
    );
}

/// `--gc=none` keeps the allocator that never frees: the same output.
#[test]
fn without_a_collector_the_allocation_heavy_program_still_gives_cpythons_output() {
    let program = "tests/programs/py3/gc_churn.py";
    let exe = support::build(&source(program, GcKind::None), "gc_none_churn");
    let (out, _, _) = run_measured(Command::new(&exe).args(["8", "25"]));
    if let Some(expected) = cpython(program, &["8", "25"]) {
        assert_eq!(out, expected);
    }
    assert!(Path::new(&exe).exists());
}

/// The number after `label` in `text` (`"minors 12 steps"`, "minors").
fn count_after(text: &str, label: &str) -> u64 {
    text.split(label)
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count after {label:?} in {text:?}"))
}

/// A target's GC hooks (`get_gchooks()`) hear of every collection: their
/// counts are the collector's own (RPY_GC_STATS), minor collections the
/// nursery filling up started as well as those gc.collect() asked for.
#[test]
fn gc_hooks_are_called_after_every_collection() {
    let program = "tests/gc_programs/gc_hooks.py";
    let exe = support::build(&source(program, GcKind::Generational), "gc_hooks");
    let (out, stats, _) = run_measured(
        Command::new(&exe)
            .arg("14")
            .env("RPY_GC_STATS", "1")
            .env("RPY_GC_NURSERY", "64K"),
    );
    if let Some(expected) = cpython(program, &["14"]) {
        let nodes = |text: &str| text.lines().next().unwrap_or_default().to_string();
        assert_eq!(nodes(&out), nodes(&expected));
    }
    let minors = count_after(&stats, "nursery 65536 bytes, ");
    let majors = count_after(&stats, "minor and ");
    assert_eq!(count_after(&out, "minors "), minors, "{out}{stats}");
    assert_eq!(count_after(&out, "steps "), majors, "{out}{stats}");
    assert_eq!(count_after(&out, "collects "), majors, "{out}{stats}");
    assert_eq!(count_after(&out, "last "), majors, "{out}{stats}");
    // gc.collect() ran five times; the nursery filled up more often.
    assert!(minors > 10, "{stats}");
}

/// `__del__` of objects in cycles (which CPython 3's gc.collect() finds
/// too), and of one that raises: CPython 3's output, with or without
/// collecting at every allocation, and each exception reported on stderr.
#[test]
fn finalizers_run_for_cycles_and_report_what_they_raise() {
    let program = "tests/gc_programs/finalizer_cycles.py";
    let exe = support::build(
        &source(program, GcKind::Generational),
        "gc_finalizer_cycles",
    );
    let (out, err, _) = run_measured(Command::new(&exe).arg("200"));
    let (debug_out, _, _) = run_measured(Command::new(&exe).arg("200").env("RPY_GC_DEBUG", "1"));
    assert_eq!(debug_out, out);
    if let Some(expected) = cpython(program, &["200"]) {
        assert_eq!(out, expected);
    }
    let reported = err
        .lines()
        .filter(|l| l.starts_with("Exception ignored in __del__: ValueError: fragile "))
        .count();
    assert_eq!(reported, 5, "{err}");
}

/// Large old arrays (a table of thousands of creatures, a dict's entries,
/// rows of a grid) get young objects stored at scattered items across many
/// minor collections: each store marks only its item's card, and the
/// collection scans those cards. CPython 3's output with a small nursery,
/// with and without collecting at every allocation (where an item a scan
/// missed would read the nursery's 0xdd garbage), and the statistics show
/// that scans by card happened and covered fewer cards than the arrays
/// have.
#[test]
fn stores_into_large_old_arrays_are_found_through_their_cards() {
    let program = "tests/gc_programs/large_arrays.py";
    let exe = support::build(&source(program, GcKind::Generational), "gc_large_arrays");
    let args = ["3000", "12"];
    let (out, stats, _) = run_measured(
        Command::new(&exe)
            .args(args)
            .env("RPY_GC_STATS", "1")
            .env("RPY_GC_NURSERY", "64K"),
    );
    let (debug_out, _, _) = run_measured(
        Command::new(&exe)
            .args(args)
            .env("RPY_GC_DEBUG", "1")
            .env("RPY_GC_NURSERY", "64K"),
    );
    assert_eq!(debug_out, out);
    if let Some(expected) = cpython(program, &args) {
        assert_eq!(out, expected);
    }
    let minors = count_after(&stats, "nursery 65536 bytes, ");
    let scans = count_after(&stats, "kB, ");
    let cards = count_after(&stats, "card scans of ");
    assert!(scans >= minors / 2, "{stats}");
    // The table alone has 24 cards: a scan of every card of every array
    // would be far more than the births between two collections mark.
    assert!(cards < scans * 24, "{stats}");
}

/// `compute_unique_id` is the identity hash, 24 bits of the GC header:
/// unique while fewer than 2^24 objects have been numbered. Past that an
/// id could repeat, and the executable stops with a fatal error instead
/// of giving one twice; the ids it gave until then were all different.
#[test]
fn unique_ids_stop_the_program_before_they_could_repeat() {
    let text = "from rpython.rlib.objectmodel import compute_unique_id


class Box(object):
    def __init__(self, n):
        self.n = n


def entry_point(argv):
    count = int(argv[1])
    seen = [False] * (1 << 24)
    for i in range(count):
        b = Box(i)
        uid = compute_unique_id(b)
        if seen[uid]:
            print('repeated after %d' % i)
            return 2
        seen[uid] = True
    print('%d distinct ids' % count)
    return 0


def target(*args):
    return entry_point
";
    let src = Source {
        path: "unique_ids.py".into(),
        text: text.into(),
        dialect: Dialect::Py3,
        gc: GcKind::Generational,
        jit: false,
    };
    let exe = support::build(&src, "unique_ids");
    let all = (1u64 << 24) - 1;
    let (out, status) = support::run(Command::new(&exe).arg(all.to_string()));
    assert_eq!(
        (out.as_str(), status),
        (&*format!("{all} distinct ids\n"), 0)
    );
    let output = Command::new(&exe)
        .arg((all + 1).to_string())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(output.stdout.is_empty(), "{stderr}");
    assert!(
        stderr.contains("NotImplementedError") && stderr.contains("compute_unique_id()"),
        "{stderr}"
    );
}

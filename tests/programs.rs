//! Every program of tests/programs: its IR after each stage is snapshotted, and
//! it gives CPython's output and exit status both in the LLInterpreter and as a
//! native executable.

mod support;

use rayon::prelude::*;
use rpy::pipeline::{run_until_each, StageName, StageOutput, Timings};
use std::process::Command;

#[test]
fn stage_snapshots() {
    for p in support::programs() {
        let Some(last) = StageName::chain().filter(|&s| p.reaches(s)).last() else {
            continue;
        };
        // One run, each stage's output snapshotted as it passes.
        let mut check = |stage: StageName, out: &StageOutput| {
            let text = out.to_text(None).unwrap();
            insta::with_settings!({
                snapshot_path => support::root().join("snapshots"),
                prepend_module_to_snapshot => false,
                omit_expression => true,
            }, {
                insta::assert_snapshot!(format!("{}__{}", p.name, stage.name()), text);
            });
        };
        run_until_each(&p.source(), last, &mut Timings::default(), &mut check)
            .unwrap_or_else(|d| panic!("{}: {d}", p.name));
    }
}

#[test]
fn llinterpreter_matches_cpython() {
    support::programs()
        .into_par_iter()
        .filter(|p| p.reaches(StageName::Rtype))
        .for_each(|p| {
            let got = support::interp(&p.source(), &p.argv());
            if let Some(expected) = support::expected(&p) {
                assert_eq!(got, expected, "{} in the LLInterpreter", p.name);
            }
        });
}

#[test]
fn executable_matches_cpython() {
    support::programs()
        .into_par_iter()
        .filter(|p| p.reaches(StageName::Genc))
        .for_each(|p| {
            let exe = support::build(&p.source(), &p.name);
            same_output_collecting_or_not(&exe, &p, "as an executable");
        });
}

/// The two largest programs compiled in four translation units (`rpy
/// translate` makes a program of less than a megabyte of C one unit, so
/// `executable_matches_cpython` sees one unit per program): the statics,
/// strings, functions and the runtime's state are each one object shared
/// across the units, so the output is CPython's, also when collecting at
/// every allocation.
#[test]
fn executable_in_four_units_matches_cpython() {
    let mut programs: Vec<_> = support::programs()
        .into_iter()
        .filter(|p| p.reaches(StageName::Genc))
        .collect();
    programs.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(&p.path).unwrap().len()));
    for p in programs.iter().take(2) {
        let (c, _) = rpy::pipeline::c_source_and_files(
            &p.source(),
            &mut Timings::default(),
            &Default::default(),
        )
        .unwrap_or_else(|d| panic!("{}: {d}", p.name));
        let dir = support::ScratchDir::new(&format!("test-units-{}", p.name));
        let exe = dir.join(&p.name);
        rpy_backend::compile_units(&c, 4, &exe, "-O2", &[], 4)
            .unwrap_or_else(|e| panic!("{}: {e}", p.name));
        same_output_collecting_or_not(&exe, p, "in four units");
    }
}

/// Runs the executable `exe` of `p` with its arguments, normally and
/// collecting at every allocation, and checks that both print what CPython
/// prints. Collecting at every allocation moves every young object at once
/// and overwrites what it leaves behind: a GC pointer the graphs failed to
/// keep as a root, or an old object's store that missed its write barrier,
/// reads garbage and changes the output.
fn same_output_collecting_or_not(exe: &std::path::Path, p: &support::TestProgram, what: &str) {
    let got = support::run(Command::new(exe).args(&p.args));
    let got_collecting = support::run(Command::new(exe).args(&p.args).env("RPY_GC_DEBUG", "1"));
    assert_eq!(
        got_collecting, got,
        "{} {what}, collecting at every allocation (RPY_GC_DEBUG=1)",
        p.name
    );
    if let Some(expected) = support::expected(p) {
        assert_eq!(got, expected, "{} {what}", p.name);
    }
}

/// Without CPython 2.7, the run's output says the Python 2 comparisons were
/// skipped (the harness captures the per-program notes of passing tests).
#[test]
fn a_missing_cpython_2_7_is_reported_in_the_run_output() {
    if std::env::var_os("RPY_PYTHON2").is_some() {
        // The child run below: ask for the oracle of a Python 2 program.
        let p = support::programs()
            .into_iter()
            .find(|p| p.dialect == rpy_ir::ast::Dialect::Py2)
            .expect("a Python 2 test program");
        assert!(support::expected(&p).is_none());
        return;
    }
    let child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_missing_cpython_2_7_is_reported_in_the_run_output",
        ])
        .env("RPY_PYTHON2", "")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&child.stderr);
    assert!(child.status.success(), "{stderr}");
    assert!(
        stderr.contains("note: CPython 2.7 is not installed"),
        "{stderr}"
    );
}

/// A program that grows a little at a time (a list appended to forever)
/// gets the executable's fatal MemoryError once the process's resident
/// memory passes the LLInterpreter's heap bound, instead of growing until
/// the machine swaps.
#[test]
fn llinterpreter_bounds_a_growing_heap() {
    let dir = support::ScratchDir::new("heap");
    let path = dir.join("grow.py");
    std::fs::write(
        &path,
        "
def entry_point(argv):
    items = []
    while True:
        items.append([len(items)] * 1000)
    return 0

def target(*args):
    return entry_point
",
    )
    .unwrap();
    let src = rpy::pipeline::Source::read(path.to_str().unwrap(), None).unwrap();
    let program = rpy::pipeline::lowlevel(&src).unwrap_or_else(|d| panic!("{d}"));
    let resident = rpy_llinterp::heap_limit::resident_bytes().expect("Linux tells it");
    let limit = resident + (32 << 20);
    let mut interp = rpy_llinterp::LlInterpreter::new(&program);
    interp.set_heap_limit(limit);
    let e = interp
        .run_entry(&["grow".to_string()], &mut Vec::new())
        .unwrap_err();
    assert!(e.is_fatal(), "{e}");
    assert_eq!(e.message, "fatal RPython error: MemoryError");
    assert!(rpy_llinterp::heap_limit::resident_bytes().unwrap() < limit + (256 << 20));
}

/// Seed 002's boxed integers: after inlining and malloc removal the loop of
/// `f` allocates nothing, so a run of ten times as many rounds makes as many
/// objects as a short one (the boxes `f` starts from and returns, and what
/// printing makes).
#[test]
fn boxed_integers_hot_loop_allocates_nothing() {
    let p = support::programs()
        .into_iter()
        .find(|p| p.name == "py3_boxed_integers")
        .expect("tests/programs/py3/boxed_integers.py");
    let program = rpy::pipeline::lowlevel(&p.source()).unwrap_or_else(|d| panic!("{d}"));
    let allocations = |n: &str| {
        let mut interp = rpy_llinterp::LlInterpreter::new(&program);
        interp
            .run_entry(&["boxed".to_string(), n.to_string()], &mut Vec::new())
            .unwrap();
        interp.allocations()
    };
    assert_eq!(allocations("1000"), allocations("10000"));
    let unoptimized =
        rpy::pipeline::lowlevel_with(&p.source(), &rpy::pipeline::BackendoptOptions::none())
            .unwrap();
    let mut interp = rpy_llinterp::LlInterpreter::new(&unoptimized);
    interp
        .run_entry(&["boxed".to_string(), "1000".to_string()], &mut Vec::new())
        .unwrap();
    assert!(interp.allocations() > 2000, "{}", interp.allocations());
}

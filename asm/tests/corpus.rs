//! The optimizer's case corpus (`jit/tests/cases/<folder>/*.trace`, see its
//! README) as machine code: every case, unoptimized and optimized with its
//! `# passes:`, runs on its `# run:` inputs (or, for traces of integers and
//! floats without any, on a few fixed ones) in the interpreter and as
//! machine code, and the outcomes and reachable memory must be the same
//! (`testgen::observe`). Runs the interpreter stops with an error only run
//! as checked code (trusting code may not survive a stray pointer).

use std::path::Path;

use rpy_asm::{compile, compile_checked, CompiledLoop};
use rpy_jit::interp::{run, Heap, Outcome, RunValue};
use rpy_jit::optimize::{optimize, IMPLEMENTED_PASSES};
use rpy_jit::parse_run_value;
use rpy_jit::testgen::observe;
use rpy_jit::text::parse;
use rpy_jit::trace::{Kind, Trace};

const LOOP_LIMIT: u64 = 50;

/// A run's input values on `heap`; `@N` is the same value as input `N`.
fn inputs(t: &Trace, heap: &mut Heap, args: &[String]) -> Option<Vec<RunValue>> {
    if args.len() != t.inputs.len() {
        return None;
    }
    let mut values: Vec<RunValue> = Vec::new();
    for (a, b) in args.iter().zip(&t.inputs) {
        let v = match a.strip_prefix('@') {
            Some(n) => *values.get(n.parse::<usize>().ok()?)?,
            None => parse_run_value(t, heap, a, t.boxes[*b].kind).ok()?,
        };
        values.push(v);
    }
    Some(values)
}

/// Runs `t` on `args` in the interpreter or as `code`.
fn observe_run(t: &Trace, args: &[String], code: Option<&CompiledLoop>) -> Option<(String, bool)> {
    let mut heap = Heap::default();
    let values = inputs(t, &mut heap, args)?;
    let outcome = match code {
        Some(code) => code.run(&values, &mut heap, LOOP_LIMIT),
        None => run(t, &values, &mut heap, LOOP_LIMIT),
    };
    let error = matches!(outcome, Outcome::Error(_));
    Some((observe(t, &heap, &values, &outcome), error))
}

/// Fixed runs for a trace of integers and floats.
fn fixed_runs(t: &Trace) -> Vec<Vec<String>> {
    let kinds: Vec<Kind> = t.inputs.iter().map(|b| t.boxes[*b].kind).collect();
    if kinds.contains(&Kind::Ref) {
        return Vec::new();
    }
    [("0", "0.0"), ("3", "1.5"), ("-7", "-0.5"), ("100", "nan")]
        .iter()
        .map(|(i, f)| {
            kinds
                .iter()
                .map(|k| if *k == Kind::Float { f } else { i }.to_string())
                .collect()
        })
        .collect()
}

/// Checks one trace on its runs; the number of runs compared.
fn check_trace(name: &str, t: &Trace, runs: &[Vec<String>]) -> usize {
    let trusting = compile(t).unwrap_or_else(|e| panic!("{name}: {e}"));
    let checked = compile_checked(t).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut compared = 0;
    for args in runs {
        let Some((expected, error)) = observe_run(t, args, None) else {
            continue;
        };
        let (got, _) = observe_run(t, args, Some(&checked)).expect("inputs were read once");
        assert_eq!(got, expected, "{name} (checked code), inputs {args:?}");
        if !error {
            let (got, _) = observe_run(t, args, Some(&trusting)).expect("inputs were read once");
            assert_eq!(got, expected, "{name}, inputs {args:?}");
        }
        compared += 1;
    }
    compared
}

#[test]
fn every_corpus_case_runs_the_same_as_machine_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../jit/tests/cases");
    let mut files = Vec::new();
    for dir in std::fs::read_dir(&root).expect("jit/tests/cases") {
        let dir = dir.expect("a folder entry").path();
        if dir.is_dir() && !dir.ends_with("snapshots") {
            for f in std::fs::read_dir(&dir).expect("a case folder") {
                let f = f.expect("a file entry").path();
                if f.extension().is_some_and(|e| e == "trace") {
                    files.push(f);
                }
            }
        }
    }
    files.sort();
    let (mut cases, mut runs) = (0, 0);
    for f in &files {
        let name = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        let src = std::fs::read_to_string(f).expect("a readable case");
        let Ok(t) = parse(&src) else {
            continue;
        };
        let passes = src
            .lines()
            .find_map(|l| l.strip_prefix("# passes:"))
            .map(str::trim)
            .unwrap_or("default");
        let passes = if passes == "default" {
            IMPLEMENTED_PASSES
        } else {
            passes
        };
        let mut declared: Vec<Vec<String>> = src
            .lines()
            .filter_map(|l| l.strip_prefix("# run:"))
            .map(rpy_jit::split_run_args)
            .collect();
        if declared.is_empty() {
            declared = fixed_runs(&t);
        }
        runs += check_trace(&name, &t, &declared);
        if let Ok(o) = optimize(&t, passes) {
            runs += check_trace(&format!("{name} (optimized)"), &o, &declared);
        }
        cases += 1;
    }
    assert!(cases > 100, "only {cases} corpus cases found");
    assert!(runs > 2 * cases, "only {runs} runs for {cases} cases");
}

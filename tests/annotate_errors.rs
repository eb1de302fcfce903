//! The annotator's error corpus: every file of tests/annotate_errors/ is valid
//! Python (CPython runs it) that is not RPython. rpy must reject each one at
//! the annotate stage, never panic, and say where; the full text of each
//! diagnostic is snapshotted.

mod support;

use rpy::pipeline::{run_until, Source, StageName, Timings};
use rpy_ir::ast::Dialect;
use std::path::PathBuf;
use std::process::Command;

/// The corpus: the files of tests/annotate_errors/ (Python 3) and of its
/// `py2/` folder (Python 2, for what only that dialect does).
fn corpus() -> Vec<(PathBuf, Dialect)> {
    let mut files = Vec::new();
    for (dir, dialect) in [("", Dialect::Py3), ("py2", Dialect::Py2)] {
        let dir = support::root().join("tests/annotate_errors").join(dir);
        let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "py"))
            .collect();
        found.sort();
        files.extend(found.into_iter().map(|p| (p, dialect)));
    }
    files
}

fn source(path: &PathBuf, dialect: Dialect) -> Source {
    let relative = path.strip_prefix(support::root()).unwrap_or(path);
    Source {
        path: relative.to_string_lossy().into_owned(),
        text: std::fs::read_to_string(path).unwrap(),
        dialect,
        gc: rpy_ir::llops::GcKind::default(),
        jit: false,
    }
}

#[test]
fn the_corpus_is_not_empty() {
    assert!(corpus().len() >= 12, "{} files", corpus().len());
}

#[test]
fn every_corpus_program_runs_under_cpython() {
    for (path, dialect) in corpus() {
        let Some(python) = support::oracle(dialect) else {
            eprintln!("no {dialect:?} interpreter: {} skipped", path.display());
            continue;
        };
        let out = Command::new(&python)
            .env("PYTHONPATH", support::root().join("pylib"))
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{} fails under CPython:\n{}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn every_corpus_program_is_rejected_with_a_located_message() {
    for (path, dialect) in corpus() {
        let src = source(&path, dialect);
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let name = match dialect {
            Dialect::Py2 => format!("py2_{stem}"),
            Dialect::Py3 => stem,
        };
        // The front end must accept it: the error belongs to the annotator
        // (or, for what RPython cannot express at all, the flow builder).
        let flow = run_until(&src, StageName::Flow, &mut Timings::default());
        let stage = if flow.is_ok() { "annotate" } else { "flow" };
        let diags = match run_until(&src, StageName::Annotate, &mut Timings::default()) {
            Ok(_) => panic!("{name}: annotated without an error"),
            Err(d) => d,
        };
        let text = diags.to_string();
        assert!(
            text.starts_with(&format!("{}:", src.path)),
            "{name}: no file:line:col:\n{text}"
        );
        insta::with_settings!({
            snapshot_path => support::root().join("snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(
                format!("annotate_error__{name}"),
                format!("rejected by: {stage}\n\n{text}")
            );
        });
    }
}

//! Hand-written low-level programs (`tests/lowlevel/*.ll`, the text format of
//! `Program<LowLevel>`, with `#` comment lines) with instances, vtables,
//! function pointers, statics and exceptions. Each runs three ways: in the
//! LLInterpreter before the exception transform, in the LLInterpreter after
//! it, and as an executable; the output, the stderr line of an uncaught
//! exception and the exit status must agree, and equal what is expected.
//! The transformed programs are snapshotted.

mod common;

use common::{build, run, Exe};
use rpy_ir::graph::{LowLevel, LowLevelStage, Program};
use rpy_ir::text::{parse_program, print_program};
use rpy_passes::exceptiontransform;
use rpy_passes::llinterp::LlInterpreter;

/// What a run gives: standard output, standard error, exit status.
#[derive(Debug, PartialEq)]
struct Outcome {
    stdout: String,
    stderr: String,
    status: i32,
}

fn outcome(stdout: &str, stderr: &str, status: i32) -> Outcome {
    Outcome {
        stdout: stdout.into(),
        stderr: stderr.into(),
        status,
    }
}

fn load(name: &str) -> Program<LowLevel> {
    let path = format!("{}/tests/lowlevel/{name}.ll", env!("CARGO_MANIFEST_DIR"));
    let text: String = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    parse_program::<LowLevel>(&text).unwrap_or_else(|e| panic!("{path}:{e}"))
}

fn interp<S: LowLevelStage>(p: &Program<S>, args: &[&str]) -> Outcome {
    let mut argv = vec!["prog".to_string()];
    argv.extend(args.iter().map(|a| a.to_string()));
    let mut out = Vec::new();
    let result = LlInterpreter::new(p).run_entry(&argv, &mut out);
    let stdout = String::from_utf8(out).unwrap();
    match result {
        Ok(status) => Outcome {
            stdout,
            stderr: String::new(),
            status: status as i32,
        },
        Err(e) if e.is_fatal() => Outcome {
            stdout,
            stderr: format!("{}\n", e.message),
            status: 1,
        },
        Err(e) => panic!("internal error: {e} ({:?})", e.traceback),
    }
}

/// A program, ready to run three ways.
struct ThreeWay {
    before: Program<LowLevel>,
    after: Program<rpy_ir::graph::ExceptionsExplicit>,
    exe: Exe,
}

impl ThreeWay {
    fn new(name: &str) -> ThreeWay {
        let before = load(name);
        let after = exceptiontransform::transform(before.clone()).unwrap();
        let exe = build(&before, name);
        ThreeWay { before, after, exe }
    }

    /// Runs with `args` every way; each must give `expected`.
    fn check(&self, args: &[&str], expected: &Outcome) {
        assert_eq!(
            &interp(&self.before, args),
            expected,
            "before the transform, {args:?}"
        );
        assert_eq!(
            &interp(&self.after, args),
            expected,
            "after the transform, {args:?}"
        );
        let r = run(&self.exe, args);
        let got = outcome(&r.stdout, &r.stderr, r.status);
        assert_eq!(&got, expected, "the executable, {args:?}");
    }

    fn snapshot(&self, name: &str) {
        insta::assert_snapshot!(name, print_program(&self.after));
    }
}

#[test]
fn virtual_calls_isinstance_and_statics() {
    let t = ThreeWay::new("virtual_calls");
    t.check(
        &[],
        &outcome("42\n49\n1\n0\n43\n1\n21\nabc\n1\n1\n0\nNum\n", "", 0),
    );
    // Nothing raises: the transform adds no test after any call.
    t.snapshot("virtual_calls");
}

#[test]
fn exceptions_caught_up_the_stack_by_class_range() {
    let t = ThreeWay::new("exceptions");
    let common = "1\ncaught __main__.MyError\n42\ncaught ValueError\n-1\n-4\n\
                  caught __main__.MyError\n-2\n51\n2\n-7\n";
    t.check(&[], &outcome(common, "", 0));
    t.check(&["4"], &outcome(&format!("{common}41\n"), "", 3));
    t.check(
        &["2"],
        &outcome(&format!("{common}re-raising\n"), "KeyError\n", 1),
    );
    t.check(&["1"], &outcome(common, "MyError\n", 1));
    t.check(&["3"], &outcome(common, "ValueError\n", 1));
    t.snapshot("exceptions");
}

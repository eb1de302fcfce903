//! The command line, end to end: each subcommand's output and exit status.

mod support;

use std::process::Command;

fn rpy(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_rpy"))
        .args(args)
        .current_dir(support::root())
        .env(
            "RPY_CACHE_DIR",
            std::env::temp_dir().join(format!("rpy-cli-{}", std::process::id())),
        )
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn show_stages_lists_every_stage_in_order() {
    let (out, _, status) = rpy(&["show", "--stages"]);
    assert_eq!(status, 0);
    assert_eq!(
        out,
        "parse\nflow\nannotate\nrtype\nbackendopt\nexceptiontransform\ngenc\n"
    );
}

#[test]
fn show_prints_one_function_of_a_stage() {
    let (out, _, status) = rpy(&[
        "show",
        "--stage",
        "rtype",
        "tests/programs/py3/fib.py",
        "--func",
        "fib",
    ]);
    assert_eq!(status, 0);
    assert!(out.starts_with("graph fib(n_0) {"), "{out}");
    assert!(out.contains("int_lt"), "{out}");
}

#[test]
fn show_rejects_an_unknown_stage() {
    let (_, err, status) = rpy(&["show", "--stage", "nonsense", "tests/programs/py3/fib.py"]);
    assert_eq!(status, 1);
    assert!(
        err.contains(
            "the stages are: parse, flow, annotate, rtype, backendopt, exceptiontransform, genc"
        ),
        "{err}"
    );
}

#[test]
fn interp_and_run_pass_the_exit_status_through() {
    // arith.py returns argv[1] % 4.
    let (out_i, _, status_i) = rpy(&["interp", "tests/programs/py3/arith.py", "7", "-3"]);
    let (out_r, _, status_r) = rpy(&["run", "tests/programs/py3/arith.py", "7", "-3"]);
    assert_eq!((status_i, status_r), (3, 3));
    assert_eq!(out_i, out_r);
}

#[test]
fn rules_lists_every_rule_with_its_place() {
    let (out, _, status) = rpy(&["rules"]);
    assert_eq!(status, 0);
    assert!(out.contains("mul_pow2_const"), "{out}");
    assert!(out.contains("rules/opt/"), "{out}");
    let (out, _, status) = rpy(&["rules", "--check"]);
    assert_eq!(status, 0, "{out}");
    assert!(out.ends_with("all optimization rules agree on random and edge values\n"));
}

#[test]
fn trace_runs_in_the_interpreter_and_as_machine_code() {
    let (out, err, status) = rpy(&[
        "trace",
        "tests/traces/countdown.trace",
        "--run",
        "1000",
        "0",
    ]);
    assert_eq!(status, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let interpreter = lines[lines.len() - 2]
        .strip_prefix("interpreter:  ")
        .unwrap();
    let machine = lines[lines.len() - 1]
        .strip_prefix("machine code: ")
        .unwrap();
    assert!(interpreter.starts_with("guard failed"), "{out}");
    assert_eq!(interpreter, machine, "{out}");
}

#[test]
fn trace_optimizes_and_runs_a_text_trace() {
    let (out, err, status) = rpy(&["trace", "tests/traces/sum_loop.trace"]);
    assert_eq!(status, 0, "{err}");
    insta::with_settings!({
        snapshot_path => support::root().join("snapshots"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!("trace__sum_loop", out);
    });
    // Summing a[0..=100] with a[i] = i: the loop exits through its guard
    // when i passes 100, with the last index and the sum as fail values.
    let items: Vec<String> = (0..=100).map(|i: i64| i.to_string()).collect();
    let array = format!("ints[{}]", items.join(","));
    let (out, err, status) = rpy(&[
        "trace",
        "tests/traces/sum_loop.trace",
        "--run",
        &array,
        "0",
        "0",
    ]);
    assert_eq!(status, 0, "{err}");
    let sum: i64 = (0..=100).sum();
    let lines: Vec<&str> = out.lines().collect();
    let interpreter = lines[lines.len() - 2];
    assert!(
        interpreter.starts_with("interpreter:  guard failed:"),
        "{out}"
    );
    assert!(interpreter.ends_with(&format!("[100, {sum}]")), "{out}");
    // The machine code reads the same array and fails the same guard.
    let machine = lines[lines.len() - 1];
    assert_eq!(
        machine.strip_prefix("machine code: "),
        interpreter.strip_prefix("interpreter:  "),
        "{out}"
    );
}

#[test]
fn trace_rule_counts_lists_each_opt_rule_with_its_firings() {
    let (out, err, status) = rpy(&["trace", "tests/traces/sum_loop.trace", "--rule-counts"]);
    assert_eq!(status, 0, "{err}");
    let line = |rule: &str| {
        out.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(rule))
            .unwrap_or_else(|| panic!("no line for {rule}:\n{out}"))
    };
    // the loop multiplies by 1 (mul_one fires) and adds no 0 (add_zero does not)
    assert!(line("mul_one").contains(" rules/opt/arith.rules:"), "{out}");
    assert!(!line("mul_one").ends_with(" 0"), "{out}");
    assert!(line("add_zero").ends_with(" 0"), "{out}");
    // the listing is made of comments: the output still reads as a trace
    assert!(out
        .lines()
        .filter(|l| l.contains("rules/opt/"))
        .all(|l| l.starts_with('#')));
}

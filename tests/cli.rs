//! The command line, end to end: each subcommand's output and exit status.

mod support;

use std::process::Command;

fn rpy(args: &[&str]) -> (String, String, i32) {
    let cache = std::env::temp_dir().join(format!("rpy-cli-{}", std::process::id()));
    rpy_with_cache(&cache, args)
}

/// `rpy` with its cache (and its saved rule fire counts) in `cache`.
fn rpy_with_cache(cache: &std::path::Path, args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_rpy"))
        .args(args)
        .current_dir(support::root())
        .env("RPY_CACHE_DIR", cache)
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
    // The chain to C, then the JIT's branch off backendopt.
    assert_eq!(
        out,
        "parse
flow
annotate
rtype
backendopt
exceptiontransform
gctransform
genc
jitcodes
backendopt:inline
backendopt:malloc_removal
backendopt:load_folding
backendopt:devirtualize
backendopt:constfold
backendopt:branch_facts
backendopt:int_rewrite
backendopt:global_egraph
backendopt:dead_code
backendopt:if_conversion
backendopt:merge_switches
"
    );
}

/// `rpy show --stage backendopt:NAME`: the program right after one
/// sub-pass; its flag switches the sub-pass off. A chain of six `==` tests
/// is still tests after `dead_code`, and after `merge_switches` its first
/// three tests and then one switch.
#[test]
fn show_prints_the_program_after_one_backendopt_sub_pass() {
    let dir = scratch("substage");
    let file = dir.join("classify.py");
    std::fs::write(
        &file,
        "import sys\n\n\ndef classify(n):\n    if n == 1:\n        return 10\n    elif n == 4:\n        return 40\n    elif n == 9:\n        return 90\n    elif n == 16:\n        return 160\n    elif n == 25:\n        return 250\n    elif n == 36:\n        return 360\n    return n\n\n\ndef entry_point(argv):\n    print(classify(len(argv)))\n    return 0\n\n\ndef target(*args):\n    return entry_point, None\n\n\nif __name__ == '__main__':\n    sys.exit(entry_point(sys.argv))\n",
    )
    .unwrap();
    let show = |stage: &str, extra: &[&str]| {
        // No inlining: `classify` stays a graph of its own.
        let mut args = vec![
            "show",
            "--stage",
            stage,
            path_str(&file),
            "--func",
            "classify",
            "--inline-threshold",
            "0",
        ];
        args.extend(extra);
        let (out, err, status) = rpy(&args);
        assert_eq!(status, 0, "{err}");
        out
    };
    let before = show("backendopt:dead_code", &[]);
    assert_eq!(before.matches("int_eq").count(), 6, "{before}");
    let after = show("backendopt:merge_switches", &[]);
    assert_eq!(after.matches("int_eq").count(), 3, "{after}");
    assert_eq!(after.matches("default").count(), 1, "{after}");
    assert_eq!(after, show("backendopt", &[]));
    insta::assert_snapshot!("backendopt_merge_switches_classify", after);
    let off = show("backendopt:merge_switches", &["--no-merge-switches"]);
    assert_eq!(off, before);
}

/// `--no-backendopt`: the backendopt stage leaves the rtyper's graphs as
/// they are, where by default it inlines and folds.
#[test]
fn no_backendopt_leaves_the_rtyped_program_as_it_is() {
    let show = |stage: &str, extra: &[&str]| {
        let mut args = vec!["show", "--stage", stage, "tests/programs/py3/fib.py"];
        args.extend(extra);
        let (out, err, status) = rpy(&args);
        assert_eq!(status, 0, "{err}");
        out
    };
    let rtyped = show("rtype", &[]);
    assert_eq!(show("backendopt", &["--no-backendopt"]), rtyped);
    assert_ne!(show("backendopt", &[]), rtyped);
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
fn the_gc_flag_decides_what_gctransform_adds() {
    let show = |gc: &str| {
        let (out, err, status) = rpy(&[
            "show",
            "--stage",
            "gctransform",
            "tests/programs/py3/gc_churn.py",
            "--func",
            "make_tree",
            gc,
        ]);
        assert_eq!(status, 0, "{err}");
        out
    };
    let generational = show("--gc=generational");
    assert!(generational.contains("gc_save_root(0, "), "{generational}");
    assert!(generational.contains("gc_reload(0, "), "{generational}");
    let none = show("--gc=none");
    assert!(!none.contains("gc_"), "{none}");
    let (_, err, status) = rpy(&["translate", "--gc=refcount", "tests/programs/py3/fib.py"]);
    assert_eq!(status, 2);
    assert!(err.contains("generational"), "{err}");
}

#[test]
fn show_rejects_an_unknown_stage() {
    let (_, err, status) = rpy(&["show", "--stage", "nonsense", "tests/programs/py3/fib.py"]);
    assert_eq!(status, 1);
    assert!(
        err.contains(
            "the stages are: parse, flow, annotate, rtype, backendopt, exceptiontransform, gctransform, genc"
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
fn trace_run_prints_objects_by_content_not_by_address() {
    // Two runs on two heaps: the interpreter's and the machine code's
    // objects have different addresses, so only their contents compare.
    let (out, err, status) = rpy(&[
        "trace",
        "jit/tests/cases/heap/fresh_object_zero_store_removed.trace",
        "--run",
        "5",
    ]);
    assert_eq!(status, 0, "{err}");
    assert!(!out.contains("0x"), "{out}");
    let interpreter = out
        .split("interpreter:  ")
        .nth(1)
        .unwrap_or_else(|| panic!("{out}"));
    let (interpreter, machine) = interpreter
        .split_once("machine code: ")
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(interpreter, machine, "{out}");
    // The object the trace made from its input, field by field.
    assert_eq!(
        machine, "finished: [#0]\n    #0 C(value=5, next=null)\n",
        "{out}"
    );
}

#[test]
fn trace_run_shows_at_most_fifty_objects() {
    let dir = scratch("trace-objects");
    let trace = dir.join("list.trace");
    std::fs::write(
        &trace,
        "struct node { value: Signed, next: Ptr(node) }\n[p0]\nfinish(p0)\n",
    )
    .unwrap();
    let list = format!("{}null{}", "node(next=".repeat(80), ")".repeat(80));
    let (out, err, status) = rpy(&["trace", path_str(&trace), "--run", &list]);
    assert_eq!(status, 0, "{err}");
    for engine in ["interpreter:  ", "machine code: "] {
        let shown = out.split(engine).nth(1).unwrap_or_else(|| panic!("{out}"));
        let shown = shown.split("machine code: ").next().unwrap();
        assert!(shown.contains("    #49 node(value=0, next=#50)\n"), "{out}");
        assert!(!shown.contains("#50 node"), "{out}");
        assert!(shown.ends_with("    ... and 30 more objects\n"), "{out}");
    }
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

/// A fresh folder for one test's files, removed when the test ends.
fn scratch(name: &str) -> support::ScratchDir {
    support::ScratchDir::new(&format!("cli-{name}"))
}

fn path_str(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn translate_never_writes_over_its_source() {
    // Without `.py`, the default output (the path without its extension)
    // is the source itself.
    let dir = scratch("overwrite");
    let source = dir.join("prog");
    std::fs::copy(support::root().join("tests/programs/py3/fib.py"), &source).unwrap();
    let before = std::fs::read(&source).unwrap();
    let (_, err, status) = rpy(&["translate", path_str(&source)]);
    assert_eq!(status, 1, "{err}");
    assert!(err.contains("would overwrite the source file"), "{err}");
    assert_eq!(std::fs::read(&source).unwrap(), before);
    // Nor when -o names the source.
    let (_, err, status) = rpy(&["translate", path_str(&source), "-o", path_str(&source)]);
    assert_eq!(status, 1, "{err}");
    assert_eq!(std::fs::read(&source).unwrap(), before);
}

/// `-o` naming a file rpy did not write (a copy of a source, a note) is
/// refused and the file kept; an executable rpy wrote is replaced.
#[test]
fn translate_writes_over_no_file_but_its_own_executables() {
    let dir = scratch("no-overwrite");
    let translate_fib_to = |out: &std::path::Path| {
        let (_, err, status) = rpy(&[
            "translate",
            "tests/programs/py3/fib.py",
            "-o",
            path_str(out),
        ]);
        (err, status)
    };
    for (name, text) in [
        (
            "copy.py",
            std::fs::read(support::root().join("tests/programs/py3/fib.py")).unwrap(),
        ),
        ("notes.txt", b"my notes\n".to_vec()),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, &text).unwrap();
        let (err, status) = translate_fib_to(&file);
        assert_eq!(status, 1, "{err}");
        assert!(err.contains("is not an executable rpy wrote"), "{err}");
        assert_eq!(std::fs::read(&file).unwrap(), text);
    }
    let exe = dir.join("fib");
    for _ in 0..2 {
        let (err, status) = translate_fib_to(&exe);
        assert_eq!(status, 0, "{err}");
    }
    // The replaced file is the new executable, which runs.
    let out = std::process::Command::new(&exe).arg("10").output().unwrap();
    assert!(out.status.success() && !out.stdout.is_empty(), "{out:?}");
}

#[test]
fn translate_into_a_missing_folder_or_onto_a_folder_is_a_plain_message() {
    let dir = scratch("output-folder");
    let missing = dir.join("no/such/folder/fib");
    let (_, err, status) = rpy(&[
        "translate",
        "tests/programs/py3/fib.py",
        "-o",
        path_str(&missing),
    ]);
    assert_eq!(status, 1);
    assert!(err.starts_with("rpy translate: cannot write"), "{err}");
    assert!(err.contains("does not exist"), "{err}");
    assert!(!err.contains("fib.py:1:1"), "{err}");
    let (_, err, status) = rpy(&[
        "translate",
        "tests/programs/py3/fib.py",
        "-o",
        path_str(&dir),
    ]);
    assert_eq!(status, 1);
    assert!(err.contains("is a folder"), "{err}");
}

#[test]
fn translate_into_a_folder_that_takes_no_files_is_a_plain_message() {
    // /proc takes no new files, not even from root; the linker's failure
    // used to come out as an error at fib.py:1:1.
    let (_, err, status) = rpy(&["translate", "tests/programs/py3/fib.py", "-o", "/proc/x"]);
    assert_eq!(status, 1);
    assert!(
        err.starts_with("rpy translate: cannot write /proc/x: the folder /proc takes no new files"),
        "{err}"
    );
    assert!(!err.contains("fib.py:1:1"), "{err}");
    assert!(!err.contains(".rpy-tmp"), "{err}");
}

#[test]
fn translate_says_where_the_executable_went_and_times_the_c_compiler() {
    let dir = scratch("success");
    let exe = dir.join("fib");
    let (out, err, status) = rpy(&[
        "translate",
        "tests/programs/py3/fib.py",
        "-o",
        path_str(&exe),
        "--timings",
    ]);
    assert_eq!(status, 0, "{err}");
    assert!(exe.exists());
    assert_eq!(out, "");
    assert!(
        err.ends_with(&format!("rpy: wrote the executable {}\n", exe.display())),
        "{err}"
    );
    let timed: Vec<&str> = err
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(timed.contains(&"genc") && timed.contains(&"cc"), "{err}");
    // Not on a terminal: no progress lines.
    assert!(!err.contains("running"), "{err}");
}

#[test]
fn translate_shows_progress_per_stage_on_a_terminal() {
    // `script` runs the command under a pseudo-terminal.
    let has_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_script {
        eprintln!("skipped: no `script` command (util-linux) to give rpy a terminal");
        return;
    }
    let dir = scratch("progress");
    let exe = dir.join("fib");
    let command = format!(
        "{} translate tests/programs/py3/fib.py -o {}",
        env!("CARGO_BIN_EXE_rpy"),
        exe.display()
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(support::root())
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{shown}");
    for step in [
        "parse",
        "flow",
        "annotate",
        "rtype",
        "backendopt",
        "genc",
        "the C compiler",
    ] {
        assert!(
            shown.contains(&format!("running {step}...")),
            "{step}: {shown:?}"
        );
    }
}

#[test]
fn interp_ends_an_uncaught_exception_as_the_executable_does() {
    let dir = scratch("uncaught");
    let source = dir.join("raise.py");
    std::fs::write(
        &source,
        "
class MyError(Exception):
    pass

def entry_point(argv):
    print(\"before\")
    if len(argv) > 1:
        raise MyError()
    return int(\"abc\")

def target(*args):
    return entry_point
",
    )
    .unwrap();
    for (args, stderr) in [
        (&["7"][..], "MyError\n"),
        (
            &[][..],
            "ValueError: invalid literal for int() with base 10: 'abc'\n",
        ),
    ] {
        let run = |command: &str| {
            let mut all = vec![command, "--py3", path_str(&source)];
            all.extend(args);
            rpy(&all)
        };
        let interpreted = run("interp");
        assert_eq!(interpreted, ("before\n".into(), stderr.into(), 1));
        assert_eq!(run("run"), interpreted);
    }
}

#[test]
fn double_dash_ends_the_options() {
    let dir = scratch("double-dash");
    let source = dir.join("-arith.py");
    std::fs::copy(support::root().join("tests/programs/py3/arith.py"), &source).unwrap();
    let (out, err, status) = rpy(&["interp", "--", path_str(&source), "7", "-3"]);
    assert_eq!(status, 3, "{err}");
    let (out_run, _, status) = rpy(&["run", path_str(&source), "--", "7", "-3"]);
    assert_eq!((status, out_run), (3, out));
    let (out, err, status) = rpy(&[
        "trace",
        "tests/traces/countdown.trace",
        "--run",
        "--",
        "5",
        "0",
    ]);
    assert_eq!(status, 0, "{err}");
    assert!(out.contains("interpreter:  guard failed"), "{out}");
}

#[test]
fn every_argument_and_option_has_help_text() {
    for command in ["translate", "run", "interp", "show", "trace", "rules"] {
        let (out, _, status) = rpy(&[command, "--help"]);
        assert_eq!(status, 0);
        let lines: Vec<&str> = out.lines().collect();
        let mut in_list = false;
        for (i, line) in lines.iter().enumerate() {
            if *line == "Arguments:" || *line == "Options:" {
                in_list = true;
                continue;
            }
            // An item starts near the margin (a list of possible values
            // under an item's help is indented further).
            let item = line.len() - line.trim_start().len() <= 6;
            if in_list && item && line.trim_start().starts_with(['-', '<', '[']) {
                // The help is beside the item, or (long help) on the next
                // line, indented deeper.
                let beside = line.trim_start().split_once("  ").map(|(_, h)| h.trim());
                let below = lines.get(i + 1).filter(|next| {
                    let indent = |l: &str| l.len() - l.trim_start().len();
                    !next.trim().is_empty() && indent(next) > indent(line)
                });
                assert!(
                    beside.is_some_and(|h| !h.is_empty()) || below.is_some(),
                    "rpy {command}: no help for {line:?}"
                );
            }
        }
    }
}

#[test]
fn trace_help_lists_the_passes_its_error_message_lists() {
    let (help, _, _) = rpy(&["trace", "--help"]);
    let (_, err, status) = rpy(&[
        "trace",
        "tests/traces/countdown.trace",
        "--passes",
        "nonsense",
    ]);
    assert_eq!(status, 1);
    let known = err
        .split("known: ")
        .nth(1)
        .unwrap()
        .trim_end()
        .trim_end_matches(')');
    assert!(help.contains(known), "{known} not in:\n{help}");
}

#[test]
fn rules_names_the_translation_its_counts_come_from() {
    let cache = scratch("rules-cache");
    let rpy_in = |args: &[&str]| rpy_with_cache(&cache, args).0;
    let first_line = |text: String| text.lines().next().unwrap_or_default().to_string();
    assert!(first_line(rpy_in(&["rules"])).contains("no translation has run yet"));
    rpy_in(&["interp", "tests/programs/py3/fib.py", "10"]);
    assert_eq!(
        first_line(rpy_in(&["rules"])),
        "# fire counts from the last translation: rpy interp tests/programs/py3/fib.py"
    );
    rpy_in(&["show", "--stage", "rtype", "tests/programs/py3/arith.py"]);
    assert!(first_line(rpy_in(&["rules"]))
        .ends_with("rpy show --stage rtype tests/programs/py3/arith.py"));
    // `run` translates once, then runs from the cache: both times the
    // counts are that program's.
    rpy_in(&["run", "tests/programs/py3/fib.py", "10"]);
    let translated = rpy_in(&["rules"]);
    assert!(
        translated.starts_with(
            "# fire counts from the last translation: rpy run tests/programs/py3/fib.py\n"
        ),
        "{translated}"
    );
    rpy_in(&["interp", "tests/programs/py3/arith.py", "1", "2"]);
    rpy_in(&["run", "tests/programs/py3/fib.py", "10"]);
    assert_eq!(rpy_in(&["rules"]), translated);
    // The call graph is of the rtyped program: its counts are the rtyper's.
    rpy_in(&["callgraph", "tests/programs/py3/arith.py"]);
    assert_eq!(
        first_line(rpy_in(&["rules"])),
        "# fire counts from the last translation: rpy callgraph tests/programs/py3/arith.py"
    );
}

#[test]
fn rules_check_prints_its_verdict_last_and_the_table_only_when_verbose() {
    let (out, _, status) = rpy(&["rules", "--check"]);
    assert_eq!(status, 0, "{out}");
    assert_eq!(
        out,
        "all optimization rules agree on random and edge values\n"
    );
    let (out, _, status) = rpy(&["rules", "--check", "--verbose"]);
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("mul_pow2_const"), "{out}");
    assert!(out.ends_with("all optimization rules agree on random and edge values\n"));
}

#[test]
fn trace_rejects_empty_unterminated_and_overlong_traces() {
    let dir = scratch("bad-traces");
    for (name, text, expected) in [
        ("empty", "", "no operations"),
        (
            "open",
            "[i0]\ni1 = int_add(i0, 1)\n",
            "must be a finish or a jump",
        ),
        (
            "after",
            "[i0]\nfinish(i0)\ni1 = int_add(i0, 1)\n",
            "an operation after 'finish'",
        ),
    ] {
        let file = dir.join(format!("{name}.trace"));
        std::fs::write(&file, text).unwrap();
        let (_, err, status) = rpy(&["trace", path_str(&file)]);
        assert_eq!(status, 1, "{name}: {err}");
        assert!(err.contains(expected), "{name}: {err}");
    }
}

#[test]
fn trace_run_ending_in_an_error_exits_1_and_the_loop_limit_is_settable() {
    let dir = scratch("trace-error");
    let file = dir.join("null.trace");
    std::fs::write(
        &file,
        "array ints = Signed\n[p0]\ni1 = getarrayitem_gc_i(p0, 0, descr=ints)\nfinish(i1)\n",
    )
    .unwrap();
    let (out, _, status) = rpy(&["trace", path_str(&file), "--run", "null"]);
    assert!(out.contains("interpreter:  error:"), "{out}");
    assert_eq!(status, 1, "{out}");
    // countdown from 1000 takes 1000 iterations: a limit of 10 stops it.
    let (out, err, status) = rpy(&[
        "trace",
        "tests/traces/countdown.trace",
        "--loop-limit",
        "10",
        "--run",
        "1000",
        "0",
    ]);
    assert_eq!(status, 0, "{err}");
    assert!(
        out.contains("interpreter:  loop limit (10 iterations)"),
        "{out}"
    );
    let (help, _, _) = rpy(&["trace", "--help"]);
    assert!(
        help.contains("--loop-limit <N>") && help.contains("[default: 100000]"),
        "{help}"
    );
}

#[test]
fn interp_reaches_cpythons_recursion_limit_at_import_time() {
    // The module body counts as a frame, as under CPython: f reaches 999.
    let dir = scratch("recursion-limit");
    let source = dir.join("depth.py");
    std::fs::write(
        &source,
        "
deepest = [0]
def f(n):
    deepest[0] = n
    return f(n + 1)
try:
    f(1)
except RuntimeError:
    pass
DEEPEST = deepest[0]

def entry_point(argv):
    print(DEEPEST)
    return 0

def target(*args):
    return entry_point

if __name__ == '__main__':
    entry_point([])
",
    )
    .unwrap();
    let cpython = Command::new("python3").arg(&source).output().unwrap();
    let (out, err, status) = rpy(&["interp", "--py3", path_str(&source)]);
    assert_eq!(status, 0, "{err}");
    assert_eq!(out, String::from_utf8_lossy(&cpython.stdout));
    assert_eq!(out, "999\n");
}

#[test]
fn import_time_code_that_allocates_too_much_gets_memory_error() {
    let dir = scratch("memory-error");
    let source = dir.join("huge.py");
    std::fs::write(
        &source,
        "
HUGE = 'ab' * (1 << 50)

def entry_point(argv):
    print(HUGE)
    return 0

def target(*args):
    return entry_point
",
    )
    .unwrap();
    // Before, the allocator aborted rpy (status 134).
    let (_, err, status) = rpy(&["interp", "--py3", path_str(&source)]);
    assert_eq!(status, 1, "{err}");
    assert!(
        err.contains("huge.py:2:8: error: importing the module 'huge' raised MemoryError"),
        "{err}"
    );
}

#[test]
fn interp_run_time_errors_point_at_the_source_line() {
    // A shift by 64 is undefined in RPython; the LLInterpreter stops on
    // it, and must say which line of the program did it, not only the
    // low-level operation's name.
    let dir = scratch("interp-error-line");
    let source = dir.join("shift.py");
    let text = "
def shift(n):
    return 1 >> n

def entry_point(argv):
    print(shift(len(argv) + 63))
    return 0

def target(*args):
    return entry_point
";
    std::fs::write(&source, text).unwrap();
    // Without inlining, so that `shift` has a frame of its own on the
    // stack the error lists (an inlined operation keeps its position,
    // file and all, but runs in the caller's frame).
    let (_, err, status) = rpy(&[
        "interp",
        "--py3",
        "--inline-threshold",
        "0",
        path_str(&source),
    ]);
    assert_eq!(status, 1, "{err}");
    let line = text.lines().position(|l| l.contains(">>")).unwrap() + 1;
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(&format!("{}:{line}:", path_str(&source))),
        "{err}"
    );
    assert!(first.contains("int_rshift(1, 64) is undefined"), "{err}");
    assert!(
        err.contains(&format!(" {line} |     return 1 >> n\n")),
        "{err}"
    );
    assert!(err.contains("    in shift\n"), "{err}");
}

#[test]
fn interp_run_time_errors_in_a_module_point_at_the_modules_line() {
    let dir = scratch("interp-error-module");
    let module = "# bit operations

def shift(n):
    return 1 >> n
";
    std::fs::write(dir.join("bits.py"), module).unwrap();
    let source = dir.join("main.py");
    std::fs::write(
        &source,
        "import bits

def entry_point(argv):
    print(bits.shift(len(argv) + 63))
    return 0

def target(*args):
    return entry_point
",
    )
    .unwrap();
    // Without inlining (see the test below for the inlined operation).
    let (_, err, status) = rpy(&[
        "interp",
        "--py3",
        "--inline-threshold",
        "0",
        path_str(&source),
    ]);
    assert_eq!(status, 1, "{err}");
    let line = module.lines().position(|l| l.contains(">>")).unwrap() + 1;
    let first = err.lines().next().unwrap_or_default();
    let bits = dir.join("bits.py");
    assert!(
        first.starts_with(&format!("{}:{line}:", path_str(&bits))),
        "{err}"
    );
    assert!(
        err.contains(&format!(" {line} |     return 1 >> n\n")),
        "{err}"
    );
}

/// A program of two modules, `main.py` importing `module_name` whose text
/// is `module`, in a fresh folder: the main file's path.
fn two_module_program(
    dir_name: &str,
    module_name: &str,
    module: &str,
    main: &str,
) -> (support::ScratchDir, std::path::PathBuf) {
    let dir = scratch(dir_name);
    std::fs::write(dir.join(format!("{module_name}.py")), module).unwrap();
    let source = dir.join("main.py");
    std::fs::write(&source, main).unwrap();
    (dir, source)
}

#[test]
fn run_translates_again_when_an_imported_module_changes() {
    // The cache used to be keyed on the main file alone, so the second run
    // reused the executable of the first.
    let (_dir, source) = two_module_program(
        "run-cache-module",
        "greeting",
        "def text():\n    return 'hello'\n",
        "import greeting

def entry_point(argv):
    print(greeting.text())
    return 0

def target(*args):
    return entry_point
",
    );
    let cache = source.with_file_name("cache");
    let run = || rpy_with_cache(&cache, &["run", "--py3", path_str(&source)]);
    let (out, err, status) = run();
    assert_eq!((out.as_str(), status), ("hello\n", 0), "{err}");
    std::fs::write(
        source.with_file_name("greeting.py"),
        "def text():\n    return 'goodbye'\n",
    )
    .unwrap();
    let (out, err, status) = run();
    assert_eq!((out.as_str(), status), ("goodbye\n", 0), "{err}");
    // Unchanged, it runs from the cache: the one executable.
    let (out, _, _) = run();
    assert_eq!(out, "goodbye\n");
    // A module of the same name put earlier on the search path (the
    // program's folder comes before PYTHONPATH) is the one imported now.
    let elsewhere = source.with_file_name("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::rename(
        source.with_file_name("greeting.py"),
        elsewhere.join("greeting.py"),
    )
    .unwrap();
    let on_path = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_rpy"))
            .args(args)
            .env("RPY_CACHE_DIR", &cache)
            .env("PYTHONPATH", &elsewhere)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(on_path(&["run", "--py3", path_str(&source)]), "goodbye\n");
    std::fs::write(
        source.with_file_name("greeting.py"),
        "def text():\n    return 'shadowed'\n",
    )
    .unwrap();
    assert_eq!(on_path(&["run", "--py3", path_str(&source)]), "shadowed\n");
    std::fs::remove_file(source.with_file_name("greeting.py")).unwrap();
    let executables = std::fs::read_dir(&cache)
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            let name = name.to_string_lossy();
            name.starts_with("main-") && !name.contains('.')
        })
        .count();
    assert_eq!(executables, 2, "one without PYTHONPATH, one with");
}

#[test]
fn interp_run_time_errors_in_an_inlined_module_function_name_the_modules_file() {
    // With inlining, the module's operation runs in main.py's entry_point:
    // its position still names bits.py, its file.
    let module = "# bit operations

def shift(n):
    return 1 >> n
";
    let (_dir, source) = two_module_program(
        "interp-error-inlined-module",
        "bits",
        module,
        "import bits

def entry_point(argv):
    print(bits.shift(len(argv) + 63))
    return 0

def target(*args):
    return entry_point
",
    );
    let (_, err, status) = rpy(&["interp", "--py3", path_str(&source)]);
    assert_eq!(status, 1, "{err}");
    let bits = source.with_file_name("bits.py");
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(&format!("{}:4:12: error: run-time error", path_str(&bits))),
        "{err}"
    );
    assert!(err.contains(" 4 |     return 1 >> n\n"), "{err}");
}

#[test]
fn annotator_errors_in_an_imported_module_name_its_file_and_quote_its_line() {
    let module = "# helpers

def helper(n):
    if n > 0:
        x = 1
    else:
        x = 'one'
    return x
";
    let (_dir, source) = two_module_program(
        "annotate-error-module",
        "lib",
        module,
        "import lib

def entry_point(argv):
    print(lib.helper(len(argv)))
    return 0

def target(*args):
    return entry_point, None
",
    );
    let (_, err, status) = rpy(&["show", "--stage", "annotate", "--py3", path_str(&source)]);
    assert_eq!(status, 1, "{err}");
    let lib = source.with_file_name("lib.py");
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(&format!(
            "{}:4:8: error: the value returned by lib.helper()",
            path_str(&lib)
        )),
        "{err}"
    );
    // The module's line, not line 4 of main.py (`print(...)`).
    assert!(err.contains(" 4 |     if n > 0:\n"), "{err}");
    assert!(err.contains("(line 4 of "), "{err}");
    assert!(!err.contains("print("), "{err}");
}

#[test]
fn rtyper_errors_in_an_imported_module_name_its_file_and_quote_its_line() {
    let module = "class A(object):
    pass


def g():
    return A()


def pick(n):
    return (A if n > 1 else g)() is None
";
    let (_dir, source) = two_module_program(
        "rtype-error-module",
        "shapes",
        module,
        "import shapes

def entry_point(argv):
    print(shapes.pick(len(argv)))
    return 0

def target(*a):
    return entry_point, None
",
    );
    let (_, err, status) = rpy(&["show", "--stage", "rtype", "--py3", path_str(&source)]);
    assert_eq!(status, 1, "{err}");
    let shapes = source.with_file_name("shapes.py");
    assert_eq!(
        err,
        format!(
            "{}:10:12: error: the value of this expression in shapes.pick(): the rtyper \
cannot represent a choice between the function shapes.g and the class shapes.A yet
 10 |     return (A if n > 1 else g)() is None
    |            ^
",
            path_str(&shapes)
        )
    );
}

#[test]
fn deeply_nested_data_at_import_time_is_a_recursion_error_not_a_crash() {
    // repr, ==, < and hash of data nested 100,000 deep recursed as deep
    // in rpy and overflowed its stack (an abort, status 134). (hash of a
    // deep tuple now gives a value, as in CPython: the
    // import_time_comparisons programs check it.)
    let dir = scratch("import-time-deep-data");
    let build = "x = []
d = {}
t = ()
x2 = []
d2 = {}
t2 = ()
for i in range(100000):
    x = [x]
    d = {1: d}
    t = (t,)
    x2 = [x2]
    d2 = {1: d2}
    t2 = (t2,)
";
    let main = "
def entry_point(argv):
    return 0

def target(*args):
    return entry_point
";
    for (op, doing) in [
        ("s = repr(x)", "while getting the repr of an object"),
        ("s = str(t)", "while getting the repr of an object"),
        ("e = x == x2", "in comparison"),
        ("e = d == d2", "in comparison"),
        ("e = t < t2", "in comparison"),
    ] {
        let source = dir.join("deep.py");
        std::fs::write(&source, format!("{build}{op}\n{main}")).unwrap();
        let (_, err, status) = rpy(&["interp", "--py3", path_str(&source)]);
        assert_eq!(status, 1, "{op}: {err}");
        assert!(
            err.starts_with(&format!("{}:14:", path_str(&source)))
                && err.contains(&format!(
                    "raised RecursionError: maximum recursion depth exceeded {doing}"
                )),
            "{op}: {err}"
        );
    }
    // The program can catch it (around a call, where RPython's flow
    // graphs have an exception edge); data within the limit is walked.
    let source = dir.join("caught.py");
    std::fs::write(
        &source,
        format!(
            "{build}
def show(v):
    return repr(v)

try:
    s = show(x)
except RecursionError:
    s = 'too deep'
y = []
for i in range(900):
    y = [y]
n = len(repr(y))
same = t == t and x == x and d == d

def entry_point(argv):
    print(s)
    print(n)
    print(same)
    return 0

def target(*args):
    return entry_point
"
        ),
    )
    .unwrap();
    let (out, err, status) = rpy(&["interp", "--py3", path_str(&source)]);
    assert_eq!(
        (out.as_str(), status),
        ("too deep\n1802\nTrue\n", 0),
        "{err}"
    );
}

/// Python 2 has no RecursionError: too deep a recursion or too deeply
/// nested data raises RuntimeError there, which a handler catches (it was
/// an uncaught RecursionError that no Python 2 handler could name).
#[test]
fn python_2_recursion_limit_raises_runtime_error() {
    let dir = scratch("py2-recursion");
    let source = dir.join("deep2.py");
    std::fs::write(
        &source,
        "x = []
for i in range(100000):
    x = [x]

def down(n):
    return down(n + 1)

def show(v):
    return repr(v)

def compare(a, b):
    return a == b

caught = []
try:
    down(0)
except RuntimeError as e:
    caught.append(type(e).__name__)
try:
    show(x)
except RuntimeError as e:
    caught.append(type(e).__name__)
try:
    compare(x, [x])
except RuntimeError as e:
    caught.append(type(e).__name__)
    caught.append(str(e))

def entry_point(argv):
    print(' '.join(caught))
    return 0

def target(*args):
    return entry_point

if __name__ == '__main__':
    entry_point(None)
",
    )
    .unwrap();
    let got = rpy(&["interp", "--py2", path_str(&source)]);
    let Some(python) = support::oracle(rpy_ir::ast::Dialect::Py2) else {
        eprintln!("skipping the comparison with CPython 2.7: not installed");
        return;
    };
    let expected = support::run(Command::new(python).arg(&source));
    assert_eq!((got.0, got.2), expected, "{}", got.1);
}

#[test]
fn interp_allocating_too_much_is_the_executables_memory_error() {
    // The size comes from argv, so only the run sees it: the executable's
    // malloc fails with a fatal MemoryError, and the LLInterpreter must
    // end the same way instead of aborting rpy.
    let dir = scratch("interp-memory-error");
    let source = dir.join("grow.py");
    std::fs::write(
        &source,
        "
def entry_point(argv):
    s = 'ab' * int(argv[1])
    print(len(s))
    return 0

def target(*args):
    return entry_point
",
    )
    .unwrap();
    let huge = (1u64 << 50).to_string();
    let run = |command: &str| rpy(&[command, "--py3", path_str(&source), &huge]);
    let executable = run("run");
    assert_eq!(executable.2, 1, "{executable:?}");
    assert!(executable.1.contains("MemoryError"), "{executable:?}");
    assert_eq!(run("interp"), executable);
    // A size that fits runs as usual.
    let small = rpy(&["interp", "--py3", path_str(&source), "3"]);
    assert_eq!(small, ("6\n".into(), String::new(), 0));
}

#[test]
fn a_killed_translation_removes_its_temporary_folder() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("killed");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    // A C compiler that takes long enough to be killed while it runs.
    let slow_cc = dir.join("slow-cc");
    std::fs::write(&slow_cc, "#!/bin/sh\nexec sleep 20\n").unwrap();
    std::fs::set_permissions(&slow_cc, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rpy"))
        .args(["translate", "tests/programs/py3/fib.py", "-o"])
        .arg(dir.join("fib"))
        .current_dir(support::root())
        .env("TMPDIR", &tmp)
        .env("CC", &slow_cc)
        .env("RPY_CC_JOBS", "3")
        .env("RPY_CC_UNITS", "2")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let genc_folders = || {
        std::fs::read_dir(&tmp)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().starts_with("rpy-genc-"))
            })
            .count()
    };
    let started = std::time::Instant::now();
    while genc_folders() == 0 {
        assert!(
            started.elapsed().as_secs() < 60,
            "no rpy-genc-* folder appeared"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // The folder exists once the C is written; give the compiler time to start.
    std::thread::sleep(std::time::Duration::from_millis(200));
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert!(!status.success());
    assert_eq!(genc_folders(), 0, "the temporary folder was left behind");
    assert!(
        std::fs::read_dir(&dir).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .contains("rpy-tmp")),
        "the temporary executable was left behind"
    );
}

#[test]
fn a_killed_translation_kills_the_c_compiler_before_it_writes_its_output() {
    let dir = scratch("killed-cc");
    // A C compiler that says it started, then writes its output (the
    // hidden temporary executable next to -o's path, or an object file of
    // one of the units compiled in parallel) a while later.
    let slow_cc = dir.join("slow-cc");
    std::fs::write(
        &slow_cc,
        format!(
            "#!/bin/sh\nwhile [ \"$1\" != -o ]; do shift; done\necho $$ >> {}\nsleep 2\necho built > \"$2\"\n",
            dir.join("cc.pids").display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&slow_cc, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rpy"))
        .args(["translate", "tests/programs/py3/fib.py", "-o"])
        .arg(dir.join("fib"))
        .current_dir(support::root())
        .env("CC", &slow_cc)
        .env("RPY_CC_JOBS", "3")
        .env("RPY_CC_UNITS", "2")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let pids = || {
        std::fs::read_to_string(dir.join("cc.pids"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // fib's C in two units (the runtime and the program), compiled at once.
    while pids().len() < 2 {
        assert!(
            started.elapsed().as_secs() < 60,
            "the C compilers never started: {:?}",
            pids()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert!(!child.wait().unwrap().success());
    // Left running, the compilers would have written their output by now.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("rpy-tmp"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    for cc_pid in pids() {
        // Dead, or a zombie where no init reaps orphans (in a container).
        let cc_state = std::fs::read_to_string(format!("/proc/{cc_pid}/stat")).unwrap_or_default();
        let running = cc_state
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'));
        assert!(!running, "a C compiler was left running: {cc_state}");
    }
}

/// A C compiler that fails on one of the units compiled in parallel: its
/// message is the diagnostic, an older executable is removed, and no
/// temporary file is left.
#[test]
fn a_failing_unit_is_reported_and_leaves_no_executable() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("failing-unit");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    // fails on the unit that holds the runtime, compiles the others
    let cc = dir.join("failing-cc");
    std::fs::write(
        &cc,
        "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in *rpy_unit0.c) \
         echo \"$a:1:1: error: no room\" >&2; exit 1;; esac; done\nexec cc \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&cc, std::fs::Permissions::from_mode(0o755)).unwrap();
    let exe = dir.join("fib");
    // An older executable rpy wrote, which a translation may replace.
    let (_, err, status) = rpy(&[
        "translate",
        "tests/programs/py3/fib.py",
        "-o",
        path_str(&exe),
    ]);
    assert_eq!(status, 0, "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_rpy"))
        .args(["translate", "tests/programs/py3/fib.py", "-o"])
        .arg(&exe)
        .current_dir(support::root())
        .env("TMPDIR", &tmp)
        .env("CC", &cc)
        .env("RPY_CC_JOBS", "2")
        .env("RPY_CC_UNITS", "2")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("the C compiler failed") && err.contains("rpy_unit0.c:1:1: error: no room"),
        "{err}"
    );
    assert!(!exe.exists(), "the older executable was left");
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "temporary files left"
    );
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains("rpy-tmp")), "{names:?}");
}

/// `--timings` counts the C compiler, and the executable built from
/// several units runs as the one built from one file does.
#[test]
fn several_units_and_one_file_build_the_same_program() {
    let dir = scratch("units");
    let mut outputs = Vec::new();
    for jobs in ["1", "3"] {
        let exe = dir.join(format!("fib-{jobs}"));
        let out = Command::new(env!("CARGO_BIN_EXE_rpy"))
            .args(["translate", "--timings", "tests/programs/py3/fib.py", "-o"])
            .arg(&exe)
            .current_dir(support::root())
            .env("RPY_CC_JOBS", jobs)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(err.lines().any(|l| l.starts_with("cc ")), "{err}");
        outputs.push(support::run(Command::new(&exe).arg("20")));
    }
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(outputs[0].1, 0, "{:?}", outputs[0]);
    if let Some(python) = support::oracle(rpy_ir::ast::Dialect::Py3) {
        let expected = support::run(
            Command::new(python)
                .args(["tests/programs/py3/fib.py", "20"])
                .current_dir(support::root()),
        );
        assert_eq!(outputs[1], expected);
    }
}

#[test]
fn show_format_dot_draws_every_block_and_link() {
    let (out, err, status) = rpy(&[
        "show",
        "--stage",
        "rtype",
        "--format",
        "dot",
        "--func",
        "fib",
        "tests/programs/py3/fib.py",
    ]);
    assert_eq!(status, 0, "{err}");
    assert!(out.starts_with("digraph program {"), "{out}");
    assert!(out.contains("int_lt(n_0, 2)"), "{out}");
    // fib's three blocks (start, recursion, return) and its three links
    assert_eq!(out.matches(" -> ").count(), 3, "{out}");
    let (_, err, status) = rpy(&[
        "show",
        "--stage",
        "parse",
        "--format",
        "dot",
        "tests/programs/py3/fib.py",
    ]);
    assert_eq!(status, 1);
    assert!(err.contains("has no graphs to draw"), "{err}");
}

#[test]
fn show_format_svg_needs_graphviz_or_says_so() {
    let (out, err, status) = rpy(&[
        "show",
        "--stage",
        "flow",
        "--format",
        "svg",
        "tests/programs/py3/fib.py",
    ]);
    let has_dot = Command::new("dot").arg("-V").output().is_ok();
    if has_dot {
        assert_eq!(status, 0, "{err}");
        assert!(out.contains("<svg"), "{out}");
    } else {
        assert_eq!(status, 1);
        assert!(
            err.contains("needs Graphviz's `dot`, which is not installed"),
            "{err}"
        );
    }
}

#[test]
fn show_format_html_shows_each_graphs_lines_from_its_own_file() {
    // bytecode_vm's graphs come from main.py, from its modules under vm/
    // and from rpy's helpers in pylib: an operation's line must be read
    // from the file its graph was built from, not always from main.py.
    let (page, err, status) = rpy(&[
        "show",
        "--stage",
        "rtype",
        "--format",
        "html",
        "tests/programs/py3/bytecode_vm/main.py",
    ]);
    assert_eq!(status, 0, "{err}");
    let unescape = |s: &str| {
        s.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
    };
    let lines_of = |file: &str| -> Vec<String> {
        std::fs::read_to_string(support::root().join(file))
            .unwrap()
            .lines()
            .map(|l| l.trim().to_string())
            .collect()
    };
    let mut checked = 0;
    for (graph, file) in [
        ("entry_point", "tests/programs/py3/bytecode_vm/main.py"),
        (
            "vm.machine.run",
            "tests/programs/py3/bytecode_vm/vm/machine.py",
        ),
        (
            "rpython.rtyper.rstr.ll_streq__rpy_string_rpy_string",
            "pylib/rpython/rtyper/rstr.py",
        ),
    ] {
        let section = page
            .split("<section class=\"graph\"")
            .find(|s| s.contains(&format!("<h2>{graph}<")) || s.contains(&format!("<h2>{graph} ")))
            .unwrap_or_else(|| panic!("no graph {graph} on the page"));
        let lines = lines_of(file);
        let mut shown = 0;
        for span in section.split("<span class=\"line\" title=\"").skip(1) {
            let (title, rest) = span.split_once("\">line ").unwrap();
            let n: usize = rest[..rest.find('<').unwrap()].parse().unwrap();
            assert_eq!(unescape(title), lines[n - 1], "{graph}, line {n} of {file}");
            shown += 1;
        }
        assert!(shown > 0, "{graph} shows no source line");
        checked += shown;
    }
    assert!(checked > 10);
}

/// A headless Chromium, where one is installed.
fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

#[test]
fn show_format_html_draws_the_bytecode_interpreter_in_a_browser() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no chromium to load the page in (Debian: apt-get install chromium)");
        return;
    };
    let dir = scratch("html-viewer");
    let page_of = |stage: &str| {
        let (page, err, status) = rpy(&[
            "show",
            "--stage",
            stage,
            "--format",
            "html",
            "tests/programs/py3/bytecode_vm/main.py",
        ]);
        assert_eq!(status, 0, "{stage}: {err}");
        page
    };
    // Hover shows annotations after the annotator.
    assert!(
        page_of("annotate").contains("title=\"SomeInteger"),
        "no annotation on hover"
    );
    // The low-level graphs are the ones drawn in the browser.
    let page = page_of("rtype");
    let file = dir.join("vm.html");
    std::fs::write(&file, &page).unwrap();
    let exits = page.matches("class=\"exit\"").count();
    assert!(exits > 20, "{exits} links");
    // Hover shows low-level types; operations show their source line.
    assert!(
        page.contains("title=\"Signed"),
        "no low-level type on hover"
    );
    assert!(page.contains("class=\"line\""), "no source lines");
    let browse = |extra: &[&str]| {
        Command::new(browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--window-size=1200,2000",
            ])
            .args(extra)
            .arg(format!("file://{}", file.display()))
            .output()
            .unwrap()
    };
    // The page's script drew one arrow per link once the boxes were placed.
    let dom = browse(&["--dump-dom"]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert_eq!(
        dom.matches("class=\"link\"").count(),
        exits,
        "arrows drawn by the page"
    );
    // And it renders: a screenshot is a non-trivial picture.
    let shot = dir.join("vm.png");
    let screenshot = format!("--screenshot={}", shot.display());
    let out = browse(&[&screenshot]);
    let png = std::fs::read(&shot)
        .unwrap_or_else(|_| panic!("no screenshot: {}", String::from_utf8_lossy(&out.stderr)));
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
}

#[test]
fn interp_jit_runs_loops_as_traces_and_writes_the_jit_log() {
    let program = "tests/programs/py3/jit_tlr.py";
    let (plain, _, plain_status) = rpy(&["interp", program, "3000"]);
    let log = std::env::temp_dir().join(format!("rpy-cli-{}-jitlog", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_rpy"))
        .args([
            "interp",
            "--jit",
            "--jit-param",
            "threshold=20",
            program,
            "3000",
        ])
        .current_dir(support::root())
        .env("RPY_JITLOG", &log)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(String::from_utf8_lossy(&out.stdout), plain, "{stderr}");
    assert_eq!(out.status.code(), Some(plain_status));
    assert!(stderr.contains("jit: 3 loops"), "{stderr}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("# trace 0: loop jitdriver"), "{text}");
    assert!(text.contains(", optimized\n["), "{text}");
    assert!(text.contains("# 3 loops, 0 bridges, 0 aborts"), "{text}");

    // Each logged loop replays alone to what the program's run observed;
    // a log whose inputs were changed does not.
    let log_path = log.to_str().unwrap();
    for n in ["0", "1", "2"] {
        let (out, err, status) = rpy(&["trace", "--replay", n, log_path]);
        assert_eq!(status, 0, "{out}{err}");
        assert!(
            out.ends_with(&format!(
                "# trace {n} replayed: the same as the logged run\n"
            )),
            "{out}"
        );
    }
    let changed = text.replacen("# run of trace 0: ", "# run of trace 0: 1", 1);
    std::fs::write(&log, changed).unwrap();
    let (out, _, status) = rpy(&["trace", "--replay", "0", log_path]);
    let _ = std::fs::remove_file(&log);
    assert_eq!(status, 1, "{out}");
    assert!(
        out.ends_with("# trace 0 replayed: NOT the same as the logged run\n"),
        "{out}"
    );
}

/// `RPY_JIT` sets the parameters as the original's `--jit` option does;
/// `--jit-param` overrides it; a bad setting is refused.
#[test]
fn interp_jit_reads_its_parameters_from_rpy_jit() {
    let program = "tests/programs/py3/jit_tlr.py";
    let run = |env: &str, args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_rpy"))
            .args(["interp", "--jit"])
            .args(args)
            .args([program, "300"])
            .current_dir(support::root())
            .env("RPY_JIT", env)
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code(),
        )
    };
    // The default threshold (1039) is not reached on this input.
    let (err, status) = run("", &[]);
    assert_eq!(status, Some(0), "{err}");
    assert!(err.contains("jit: 0 loops"), "{err}");
    let (err, status) = run("threshold=20, trace_eagerness=5", &[]);
    assert_eq!(status, Some(0), "{err}");
    assert!(!err.contains("jit: 0 loops"), "{err}");
    let (err, _) = run("threshold=20", &["--jit-param", "threshold=100000"]);
    assert!(err.contains("jit: 0 loops"), "{err}");
    let (err, status) = run("threshold=20,enable_opts=intbounds:fast", &[]);
    assert_eq!(status, Some(1));
    assert!(err.contains("RPY_JIT: ") && err.contains("fast"), "{err}");
}

/// A variable the loop uses after `jit_merge_point` that is neither green
/// nor red is refused with its name and the merge point's line (the JIT
/// would otherwise run its loops on the value it saw when tracing).
#[test]
fn interp_jit_refuses_a_live_variable_missing_from_the_merge_point() {
    let dir = scratch("undeclared-red");
    let file = dir.join("undeclared.py");
    std::fs::write(
        &file,
        "from rpython.rlib.jit import JitDriver\n\
         driver = JitDriver(greens=['pc'], reds=['n'])\n\
         def run(n):\n\
         \x20   pc = 0\n\
         \x20   seen = []\n\
         \x20   while n > 0:\n\
         \x20       driver.jit_merge_point(pc=pc, n=n)\n\
         \x20       seen.append(n)\n\
         \x20       n -= 1\n\
         \x20   return len(seen)\n\
         def entry_point(argv):\n\
         \x20   print(run(10))\n\
         \x20   return 0\n\
         def target(*args):\n\
         \x20   return entry_point\n",
    )
    .unwrap();
    for flag in ["--jit", "--blackhole"] {
        let (_, err, status) = rpy(&["interp", flag, path_str(&file)]);
        assert_eq!(status, 1, "{err}");
        assert!(
            err.contains("undeclared.py:7:9")
                && err.contains(
                    "'seen' is used after this jit_merge_point but is neither a green nor a red"
                ),
            "{err}"
        );
    }
    // Without the JIT the program is run as it is.
    let (out, _, status) = rpy(&["interp", path_str(&file)]);
    assert_eq!((out.as_str(), status), ("10\n", 0));
}

/// A driver with `reds='auto'` whose `jit_merge_point()` names nothing
/// (the original's translator/goal/targetjitstandalone.py): the locals
/// assigned at the merge point are its reds, so the JIT's codewriter takes
/// the loop (it refused the loop's variables as neither green nor red).
#[test]
fn interp_jit_takes_the_locals_of_a_merge_point_with_auto_reds() {
    let dir = scratch("auto-reds");
    let file = dir.join("autoreds.py");
    std::fs::write(
        &file,
        "from rpython.rlib.jit import JitDriver\n\
         driver = JitDriver(greens=[], reds='auto')\n\
         def run(n):\n\
         \x20   total = 0\n\
         \x20   seen = []\n\
         \x20   while n > 0:\n\
         \x20       driver.jit_merge_point()\n\
         \x20       seen.append(n)\n\
         \x20       total += n\n\
         \x20       n -= 1\n\
         \x20   return total + len(seen)\n\
         def entry_point(argv):\n\
         \x20   print(run(int(argv[1])))\n\
         \x20   return 0\n\
         def target(*args):\n\
         \x20   return entry_point\n",
    )
    .unwrap();
    for flag in ["--jit", "--blackhole"] {
        let (out, err, status) = rpy(&["interp", flag, path_str(&file), "2000"]);
        assert_eq!((out.as_str(), status), ("2003000\n", 0), "{flag}: {err}");
    }
}

#[test]
fn interp_jit_rejects_an_unknown_parameter_and_a_program_without_a_portal() {
    let (_, err, status) = rpy(&[
        "interp",
        "--jit",
        "--jit-param",
        "thresold=5",
        "tests/programs/py3/jit_tlr.py",
        "10",
    ]);
    assert_eq!(status, 1);
    assert!(err.contains("no JIT parameter 'thresold'"), "{err}");
    let (_, err, status) = rpy(&[
        "interp",
        "--jit",
        "--jit-param",
        "threshold=many",
        "tests/programs/py3/jit_tlr.py",
        "10",
    ]);
    assert_eq!(status, 1);
    assert!(err.contains("'many' is not a positive number"), "{err}");
    let (_, err, status) = rpy(&["interp", "--jit", "tests/programs/py3/fib.py", "10"]);
    assert_eq!(status, 1);
    assert!(err.contains("the program has no jit_merge_point"), "{err}");
}

/// `run --jit` translates with the JIT's runtime linked in (a command
/// line user's path to it) and prints what the program prints; a program
/// without a portal is refused with a diagnostic, and so is a runtime
/// library that `RPY_JITRT` names but that is not there. Neither writes
/// an executable.
#[test]
fn run_jit_links_the_runtime_and_refuses_what_it_cannot_build() {
    let (out, err, status) = rpy(&["run", "--jit", "tests/programs/py3/jit_tlr.py", "7"]);
    assert_eq!(status, 0, "{err}");
    assert!(out.contains("square(7) = 49"), "{out}");
    let dir = std::env::temp_dir().join(format!("rpy-jit-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("fib");
    let (_, err, status) = rpy(&[
        "translate",
        "--jit",
        "tests/programs/py3/fib.py",
        "-o",
        path_str(&exe),
    ]);
    assert_eq!(status, 1);
    assert!(
        err.contains("fib.py:1:1: error: --jit: the program has no jit_merge_point"),
        "{err}"
    );
    assert!(!exe.exists());
    let out = Command::new(env!("CARGO_BIN_EXE_rpy"))
        .args(["translate", "--jit", "tests/programs/py3/jit_tlr.py", "-o"])
        .arg(&exe)
        .current_dir(support::root())
        .env("RPY_JITRT", dir.join("missing.a"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("RPY_JITRT names") && err.contains("missing.a"),
        "{err}"
    );
    assert!(!exe.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A target inside a tree laid out as the original's (a folder holding
/// `rpython/__init__.py` above it) finds the tree's modules by their full
/// names, a folder of `PYTHONPATH` is searched too, and rpy's own
/// `rpython` package wins for the modules it provides (`rpython.rlib.jit`
/// is rpy's, not the tree's broken one).
#[test]
fn translate_finds_modules_in_the_original_tree_and_on_pythonpath() {
    let root = std::env::temp_dir().join(format!("rpy-tree-{}", std::process::id()));
    let goal = root.join("tree/rpython/translator/goal");
    let helpers = root.join("elsewhere");
    std::fs::create_dir_all(&goal).unwrap();
    std::fs::create_dir_all(root.join("tree/rpython/rlib")).unwrap();
    std::fs::create_dir_all(&helpers).unwrap();
    for init in [
        "rpython",
        "rpython/translator",
        "rpython/translator/goal",
        "rpython/rlib",
    ] {
        std::fs::write(root.join("tree").join(init).join("__init__.py"), "").unwrap();
    }
    std::fs::write(
        root.join("tree/rpython/rlib/jit.py"),
        "this is not rpy's jit\n",
    )
    .unwrap();
    std::fs::write(
        goal.join("scores.py"),
        "def best(xs):\n    return max(xs)\n",
    )
    .unwrap();
    std::fs::write(helpers.join("greeting.py"), "WORD = 'hello'\n").unwrap();
    std::fs::write(
        goal.join("targetscores.py"),
        "from rpython.translator.goal.scores import best
from rpython.rlib.jit import elidable
import greeting

@elidable
def twice(n):
    return 2 * n

def entry_point(argv):
    print greeting.WORD, twice(best([3, 9, 4]))
    return 0

def target(driver, args):
    return entry_point
",
    )
    .unwrap();
    let target = goal.join("targetscores.py");
    let out = Command::new(env!("CARGO_BIN_EXE_rpy"))
        .args(["interp", target.to_str().unwrap()])
        .env("PYTHONPATH", &helpers)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "hello 18\n",
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(0));
    // Without PYTHONPATH, the message says where it looked.
    let out = Command::new(env!("CARGO_BIN_EXE_rpy"))
        .args(["interp", target.to_str().unwrap()])
        .env_remove("PYTHONPATH")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no module named 'greeting'"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{} (the original's tree the program is in)",
            root.join("tree").canonicalize().unwrap().display()
        )),
        "{stderr}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

/// A target of the original's tree that imports the toolchain itself (a
/// GC test module importing the annotator, `inspect`, `contextlib`...)
/// gets one message naming the toolchain package at its import, not the
/// errors of the toolchain's own imports; a program module of
/// `rpython.translator.test` (as `rpystone`) is still the program's.
#[test]
fn importing_the_original_toolchain_is_one_clear_error() {
    let root = std::env::temp_dir().join(format!("rpy-toolchain-{}", std::process::id()));
    let tree = root.join("tree");
    for init in [
        "rpython",
        "rpython/translator",
        "rpython/translator/goal",
        "rpython/translator/test",
        "rpython/memory",
        "rpython/memory/test",
        "rpython/annotator",
    ] {
        std::fs::create_dir_all(tree.join(init)).unwrap();
        std::fs::write(tree.join(init).join("__init__.py"), "").unwrap();
    }
    std::fs::write(
        tree.join("rpython/annotator/model.py"),
        "import inspect\nfrom contextlib import contextmanager\nimport weakref\n",
    )
    .unwrap();
    std::fs::write(
        tree.join("rpython/memory/test/test_hooks.py"),
        "import inspect\nfrom rpython.annotator import model\nclass Stats(object):\n    minors = 0\n",
    )
    .unwrap();
    std::fs::write(
        tree.join("rpython/translator/test/ones.py"),
        "def ones(n):\n    return [1] * n\n",
    )
    .unwrap();
    let target = tree.join("rpython/translator/goal/targethooks.py");
    std::fs::write(
        &target,
        "from rpython.translator.test.ones import ones
from rpython.memory.test.test_hooks import Stats

def entry_point(argv):
    print len(ones(3)), Stats.minors
    return 0

def target(*args):
    return entry_point, None
",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rpy"))
        .args(["interp", target.to_str().unwrap()])
        .env_remove("PYTHONPATH")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.matches("error:").count(), 1, "{stderr}");
    assert!(
        stderr.contains("targethooks.py:2:1: error: 'rpython.memory.test.test_hooks' (")
            && stderr.contains("is in rpython.memory, the original toolchain's garbage collectors"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("inspect") && !stderr.contains("ones"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn long_chains_of_objects_are_freed_without_overflowing_the_stack() {
    // Freeing a chain used to recurse once per link (rpy aborted with
    // status 134), in the object interpreter at import time and in the
    // LLInterpreter at run time.
    let dir = scratch("long-chains");
    let program = |name: &str, body: &str| {
        let source = dir.join(name);
        std::fs::write(
            &source,
            format!(
                "
class Node(object):
    def __init__(self, nxt):
        self.nxt = nxt
{body}
def target(*args):
    return entry_point, None
"
            ),
        )
        .unwrap();
        source
    };
    let import_time = program(
        "import_time.py",
        "
def linked(n):
    x = None
    for i in range(n):
        x = Node(x)
    return 0
def nested(n):
    x = [1]
    for i in range(n):
        x = [x]
    return 0
def tuples(n):
    x = ()
    for i in range(n):
        x = (x, i)
    return 0
def dicts(n):
    x = {}
    for i in range(n):
        x = {'next': x}
    return 0
linked(100000)
nested(200000)
tuples(200000)
dicts(200000)
def entry_point(argv):
    print(1)
    return 0
",
    );
    let (out, err, status) = rpy(&["interp", "--py3", path_str(&import_time)]);
    assert_eq!((out.as_str(), status), ("1\n", 0), "{err}");
    let run_time = program(
        "run_time.py",
        "
def entry_point(argv):
    x = None
    for i in range(1000000):
        x = Node(x)
    n = 0
    while x is not None:
        n += 1
        x = x.nxt
    print(n)
    return 0
",
    );
    let (out, err, status) = rpy(&["interp", "--py3", path_str(&run_time)]);
    assert_eq!((out.as_str(), status), ("1000000\n", 0), "{err}");
    // A chain too deep for a prebuilt constant is refused with a diagnostic.
    let prebuilt = program(
        "prebuilt.py",
        "
def linked(n):
    x = None
    for i in range(n):
        x = Node(x)
    return x
HEAD = linked(60000)
def entry_point(argv):
    print(HEAD is None)
    return 0
",
    );
    let (_, err, status) = rpy(&["interp", "--py3", path_str(&prebuilt)]);
    assert_eq!(status, 1, "{err}");
    assert!(
        err.contains("'HEAD' cannot be a prebuilt constant"),
        "{err}"
    );
}

#[test]
fn options_after_file_are_the_programs() {
    let dir = scratch("program-options");
    let source = dir.join("args.py");
    std::fs::write(
        &source,
        "
def entry_point(argv):
    print(' '.join(argv[1:]))
    return 0

def target(*args):
    return entry_point, None
",
    )
    .unwrap();
    let file = path_str(&source);
    // Options of rpy's right after FILE used to be taken as rpy's.
    for command in ["interp", "run"] {
        for args in [&["--py2", "y"][..], &["-h"], &["a", "--gc", "none"]] {
            let mut line = vec![command, "--py3", file];
            line.extend(args);
            let (out, err, status) = rpy(&line);
            assert_eq!(status, 0, "rpy {line:?}: {err}");
            assert_eq!(out, format!("{}\n", args.join(" ")), "rpy {line:?}");
        }
    }
    // A mistyped option before FILE is not taken for a file of that name.
    let (_, err, status) = rpy(&["interp", "--bogus", file]);
    assert_eq!(status, 2);
    assert_eq!(err, "rpy: '--bogus' is no option of rpy's and no file\n");
}

#[test]
fn trace_run_values_end_at_the_next_option() {
    // `--run` used to take `--loop-limit` and `10` as two more values.
    let (out, err, status) = rpy(&[
        "trace",
        "tests/traces/countdown.trace",
        "--run",
        "1000",
        "0",
        "--loop-limit",
        "10",
    ]);
    assert_eq!(status, 0, "{err}");
    assert!(
        out.contains("interpreter:  loop limit (10 iterations)"),
        "{out}"
    );
    // A negative number is still a value.
    let (out, err, status) = rpy(&["trace", "tests/traces/countdown.trace", "--run", "-5", "0"]);
    assert_eq!(status, 0, "{err}");
    assert!(
        out.contains("guard failed: op 5 `guard_true(i5) [i4, i3]`: [-6, -15]"),
        "{out}"
    );
}

/// Module-level code runs `sorted`, `sum`, `any` and `all` at import time
/// (translated functions cannot call them), as CPython does.
#[test]
fn import_time_code_sorts_and_sums() {
    let dir = scratch("import_time_sorted");
    let file = dir.join("tables.py");
    std::fs::write(
        &file,
        "WEIGHTS = {'b': 3, 'a': 5, 'c': 1}\n\
         ORDER = sorted(WEIGHTS.keys())\n\
         RANKED = sorted([(w, k) for k, w in WEIGHTS.items()])\n\
         TOTAL = sum(WEIGHTS.values()) + sum([0.5, 0.25], 1.0)\n\
         FLAGS = (any([0, 0, 2]), all([1, 0]), all([]), any([]))\n\n\
         def entry_point(argv):\n    \
             print(','.join(ORDER) + ' ' + RANKED[0][1] + ' ' + str(TOTAL))\n    \
             print(str(FLAGS[0]) + str(FLAGS[1]) + str(FLAGS[2]) + str(FLAGS[3]))\n    \
             return 0\n\n\
         def target(*args):\n    return entry_point, None\n\n\
         if __name__ == '__main__':\n    entry_point([])\n",
    )
    .unwrap();
    let (out, err, code) = rpy(&["interp", path_str(&file)]);
    assert_eq!(code, 0, "{err}");
    if let Some(python) = support::oracle(rpy_ir::ast::Dialect::Py3) {
        let want = Command::new(python).arg(&file).output().unwrap();
        assert_eq!(out, String::from_utf8_lossy(&want.stdout));
    }
}

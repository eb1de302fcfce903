//! The JIT on the test programs that have a JitDriver: their jitcodes are
//! snapshotted, and running their portals on the jitcodes (the blackhole
//! interpreter) prints what the LLInterpreter and CPython print.

mod support;

use rpy::pipeline::{run_until, StageName, Timings};

/// The test programs with a `jit_merge_point`.
fn jit_programs() -> Vec<support::TestProgram> {
    support::programs()
        .into_iter()
        .filter(|p| p.reaches(StageName::Backendopt))
        .filter(|p| p.source().text.contains("jit_merge_point"))
        .collect()
}

#[test]
fn jitcode_snapshots() {
    let programs = jit_programs();
    assert!(programs.len() >= 2, "the JIT example programs are found");
    for p in programs {
        let out = run_until(&p.source(), StageName::Jitcodes, &mut Timings::default())
            .unwrap_or_else(|d| panic!("{}: {d}", p.name));
        let text = out.to_text(None).unwrap();
        assert!(text.starts_with("portal "), "{}: no portal found", p.name);
        insta::with_settings!({
            snapshot_path => support::root().join("snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(format!("{}__jitcodes", p.name), text);
        });
    }
}

#[test]
fn blackhole_matches_llinterpreter_and_cpython() {
    for p in jit_programs() {
        let src = p.source();
        let program = rpy::pipeline::lowlevel(&src).unwrap_or_else(|d| panic!("{d}"));
        let codes = rpy_jit::codewriter::write_jitcodes(&program);
        let mut out = Vec::new();
        let run = rpy_jit::blackhole::run_entry(&program, &codes, &p.argv(), &mut out, 20, None);
        let (status, stats, hot) = (run.status, run.stats, run.hot);
        // The bytecode interpreters run their hot loops many times
        // (jitdriver.py closes its loop once).
        if p.name.contains("_jit_") {
            assert!(
                !hot.is_empty(),
                "{}: no loop got hot after 20 closings",
                p.name
            );
        }
        let status = match status {
            Ok(s) => s as i32,
            Err(e) if e.is_fatal() => 1,
            Err(e) => panic!(
                "{}: {} (at {}, in {:?})",
                p.name, e.message, e.graph, e.traceback
            ),
        };
        let got = (support::text_of(out), status);
        assert!(
            stats.merge_points > 0,
            "{}: the portal did not run on its jitcode",
            p.name
        );
        assert!(
            stats.can_enter_jit > 0,
            "{}: no loop of the interpreted program closed",
            p.name
        );
        let llinterp = support::interp(&src, &p.argv());
        assert_eq!(
            got, llinterp,
            "{}: blackhole against the LLInterpreter",
            p.name
        );
        if let Some(expected) = support::expected(&p) {
            assert_eq!(got, expected, "{}: blackhole against CPython", p.name);
        }
    }
}

/// The JIT programs translated with `--jit`: every call of the portal runs
/// in the JIT's runtime library, on the program's memory and with its
/// collector (also collecting at every allocation, which a GC pointer the
/// runtime failed to root would not survive); they print what CPython
/// prints.
#[test]
fn jit_executables_match_cpython() {
    let programs = jit_programs();
    let mut compiled = Vec::new();
    let mut handed_back = Vec::new();
    let mut linked = Vec::new();
    let mut compiled_aborts = Vec::new();
    for p in &programs {
        let mut src = p.source();
        src.jit = true;
        let exe = support::build(&src, &format!("{}-jit", p.name));
        let expected =
            support::expected(p).unwrap_or_else(|| support::interp(&p.source(), &p.argv()));
        let log = exe.with_extension("jitlog");
        // The default settings; hot loops and portal entries compiled at
        // once, with guards failing into bridges (with a collection at
        // every allocation too, so a root the JIT did not give the
        // collector shows); and the C code alone.
        let runs: [(&str, &[(&str, &str)]); 4] = [
            ("default", &[]),
            (
                "threshold=3",
                &[(
                    "RPY_JIT",
                    "threshold=3,function_threshold=3,trace_eagerness=2",
                )],
            ),
            (
                "threshold=3, a collection at every allocation",
                &[
                    (
                        "RPY_JIT",
                        "threshold=3,function_threshold=3,trace_eagerness=2",
                    ),
                    ("RPY_GC_DEBUG", "1"),
                ],
            ),
            ("off", &[("RPY_JIT", "off")]),
        ];
        for (what, env) in runs {
            let got = support::run(
                std::process::Command::new(&exe)
                    .envs(env.iter().copied())
                    .env("RPY_JITLOG", &log)
                    .args(&p.args),
            );
            assert_eq!(
                got, expected,
                "{}: the executable with the JIT ({what})",
                p.name
            );
        }
        // The log of the last run with the JIT on.
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let count = |what: &str| jit_log_count(&text, what);
        compiled.push((p.name.clone(), count("loops"), count("bridges")));
        handed_back.push((p.name.clone(), count("handed back")));
        linked.push((p.name.clone(), count("linked guard failures")));
        compiled_aborts.push((p.name.clone(), count("aborts")));
    }
    // Loops that only compute (the register machine), that allocate and
    // whose guards rebuild removed objects (the float VM's boxes), that
    // make residual calls (the ledger), and that store GC pointers (the
    // brainfuck interpreter's loop stack) run as machine code.
    // Guards that fail often get bridges.
    let has = |count: &Option<u32>| count.is_some_and(|n| n > 0);
    for name in [
        "jit_tlr",
        "jit_floatvm",
        "jit_ledger",
        "jit_brainfuck",
        "jit_asm_vm",
    ] {
        let runs: Vec<_> = compiled
            .iter()
            .filter(|(n, ..)| n.ends_with(name))
            .collect();
        assert!(
            !runs.is_empty() && runs.iter().all(|(_, loops, _)| has(loops)),
            "{name}: compiled (loops, bridges) per program: {compiled:?}"
        );
    }
    // The register machine's second loop shifts an r_uint: it is traced
    // too, not aborted (the tracer had no recipe for `uint_lshift`).
    let aborts: Vec<_> = compiled_aborts
        .iter()
        .filter(|(n, _)| n.ends_with("jit_asm_vm"))
        .collect();
    assert!(
        !aborts.is_empty() && aborts.iter().all(|(_, a)| *a == Some(0)),
        "jit_asm_vm: aborts per program: {compiled_aborts:?}"
    );
    for name in ["jit_brainfuck", "jit_promote"] {
        let runs: Vec<_> = compiled
            .iter()
            .filter(|(n, ..)| n.ends_with(name))
            .collect();
        assert!(
            !runs.is_empty() && runs.iter().all(|(_, _, bridges)| has(bridges)),
            "{name}: compiled (loops, bridges) per program: {compiled:?}"
        );
    }
    // A guard whose bridge is compiled goes straight on into it, in
    // machine code, once the bridge's first run is in the log.
    let runs: Vec<_> = linked
        .iter()
        .filter(|(n, ..)| n.ends_with("jit_promote"))
        .collect();
    assert!(
        !runs.is_empty() && runs.iter().all(|(_, n)| has(n)),
        "jit_promote: guard failures into linked bridges per program: {linked:?}"
    );
    // Where a guard fails into an iteration that ends at a merge point
    // with no loop (the float VM and the ledger leave their loop for
    // another part of the program; the str VM's loop exits), the call goes
    // back to the C code there, as the original's ContinueRunningNormally.
    for name in ["jit_floatvm", "jit_ledger", "jit_strvm"] {
        let runs: Vec<_> = handed_back
            .iter()
            .filter(|(n, ..)| n.ends_with(name))
            .collect();
        assert!(
            !runs.is_empty() && runs.iter().all(|(_, n)| has(n)),
            "{name}: calls handed back to C per program: {handed_back:?}"
        );
    }
}

/// Count `what` of a JIT log's "# loops N, bridges N, aborts N, ..." line.
fn jit_log_count(log: &str, what: &str) -> Option<u32> {
    let counts = log.lines().find(|l| l.starts_with("# loops "))?;
    counts.trim_start_matches("# ").split(", ").find_map(|c| {
        let (name, n) = c.rsplit_once(' ')?;
        (name == what).then(|| n.parse::<u32>().ok()).flatten()
    })
}

/// A program tunes its JIT with `jit.set_param` (its threshold from its
/// arguments; -1 turns the JIT off), in its executable and in the
/// meta-interpreter, and prints what CPython prints either way.
#[test]
fn set_param_in_the_program_tunes_the_jit() {
    let p = jit_programs()
        .into_iter()
        .find(|p| p.name.ends_with("jit_set_param"))
        .expect("the set_param program");
    let mut src = p.source();
    src.jit = true;
    let exe = support::build(&src, "jit_set_param-jit");
    let log = exe.with_extension("jitlog");
    // (arguments, whether loops compile): no loop of 300 to 900
    // iterations reaches the default threshold of 1039 closings.
    let cases: [(&[&str], bool); 3] = [
        (&["300", "3"], true),
        (&["300"], false),
        (&["300", "-1"], false),
    ];
    for (args, compiles) in cases {
        let threshold = args.get(1).copied().unwrap_or("default");
        let expected = support::expected_with_args(&p, args);
        let got = support::run(
            std::process::Command::new(&exe)
                .env("RPY_JITLOG", &log)
                .args(args),
        );
        if let Some(expected) = &expected {
            assert_eq!(&got, expected, "the executable, threshold {threshold}");
        }
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let loops = jit_log_count(&text, "loops");
        assert_eq!(
            loops.is_some_and(|n| n > 0),
            compiles,
            "the executable with set_param(threshold={threshold}) compiled {loops:?} loops:\n{text}"
        );
        let mut argv = p.argv();
        argv.truncate(1);
        argv.extend(args.iter().map(|a| a.to_string()));
        let program = rpy::pipeline::lowlevel(&p.source()).unwrap_or_else(|d| panic!("{d}"));
        let codes = rpy_jit::codewriter::write_jitcodes(&program);
        let mut out = Vec::new();
        let run = rpy_jit::blackhole::run_entry(
            &program,
            &codes,
            &argv,
            &mut out,
            rpy_jit::warmstate::DEFAULT_THRESHOLD,
            Some(rpy_jit::metainterp::JitParams::default()),
        );
        let jit = run.jit.expect("the meta-interpreter ran");
        if let Some(expected) = &expected {
            assert_eq!(
                (support::text_of(out), run.status.map(|s| s as i32).ok()),
                (expected.0.clone(), Some(expected.1)),
                "the meta-interpreter, threshold {threshold}"
            );
        }
        assert_eq!(
            jit.stats.loops > 0,
            compiles,
            "the meta-interpreter with set_param(threshold={threshold}):\n{}",
            jit.log
        );
    }
}

/// The JIT programs with the meta-interpreter: their hot loops are traced,
/// optimized (or not: a wrong trace must not hide behind the optimizer)
/// and run as traces, leaving them through failing guards into the
/// blackhole, in the trace interpreter and as machine code; what they print
/// is what the LLInterpreter and CPython print.
#[test]
fn jit_runs_hot_loops_as_traces_and_matches_llinterpreter() {
    for p in jit_programs() {
        let src = p.source();
        let program = rpy::pipeline::lowlevel(&src).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(
            rpy_jit::codewriter::merge_points::undeclared_at_merge_points(&program),
            vec![],
            "{}: every variable live at the merge point is green or red",
            p.name
        );
        let codes = rpy_jit::codewriter::write_jitcodes(&program);
        let llinterp = support::interp(&src, &p.argv());
        let machine: std::rc::Rc<dyn rpy_jit::metainterp::LoopBackend> =
            std::rc::Rc::new(rpy_asm::MachineCode);
        let interpreted: std::rc::Rc<dyn rpy_jit::metainterp::LoopBackend> =
            std::rc::Rc::new(rpy_jit::metainterp::Interpreted);
        for (threshold, opts, backend) in [
            (3, rpy_jit::optimize::ALL_PASSES, &interpreted),
            (7, "", &interpreted),
            (3, rpy_jit::optimize::ALL_PASSES, &machine),
        ] {
            let params = rpy_jit::metainterp::JitParams {
                threshold,
                trace_eagerness: 2,
                enable_opts: opts.to_string(),
                backend: backend.clone(),
                ..Default::default()
            };
            let mut out = Vec::new();
            let run = rpy_jit::blackhole::run_entry(
                &program,
                &codes,
                &p.argv(),
                &mut out,
                threshold,
                Some(params),
            );
            let status = match run.status {
                Ok(s) => s as i32,
                Err(e) if e.is_fatal() => 1,
                Err(e) => panic!(
                    "{} (threshold {threshold}, opts '{opts}'): {} (at {}, in {:?})",
                    p.name, e.message, e.graph, e.traceback
                ),
            };
            let jit = run.jit.expect("the meta-interpreter ran");
            let got = (support::text_of(out), status);
            assert_eq!(
                got, llinterp,
                "{} (threshold {threshold}, opts '{opts}'): the JIT against the LLInterpreter; its log:\n{}",
                p.name, jit.log
            );
            if p.name.contains("_jit_") {
                let s = &jit.stats;
                assert!(
                    s.loops > 0 && s.loop_entries > 0 && s.guard_failures > 0,
                    "{} (threshold {threshold}): no loop was compiled, entered and left: {s:?}\n{}",
                    p.name,
                    jit.log
                );
            }
        }
        if let Some(expected) = support::expected(&p) {
            assert_eq!(
                llinterp, expected,
                "{}: LLInterpreter against CPython",
                p.name
            );
        }
    }
}

/// A green str bytecode, and a green code object whose fields are
/// declared `_immutable_fields_` (its lists `[*]`), are read once, when
/// the tracer runs: their reads are constants of the trace (strings never
/// change once built), so loops keep no read of them and no dispatch on
/// what was read.
#[test]
fn reads_of_immutable_objects_fold_in_traces() {
    for (name, folded) in [
        ("jit_strvm", "descr=rpy_string[]"),
        ("jit_stack_frames", "descr=inst_Code."),
    ] {
        let programs: Vec<_> = jit_programs()
            .into_iter()
            .filter(|p| p.name.contains(name))
            .collect();
        assert!(!programs.is_empty(), "no program {name}");
        for p in programs {
            let program = rpy::pipeline::lowlevel(&p.source()).unwrap_or_else(|d| panic!("{d}"));
            let codes = rpy_jit::codewriter::write_jitcodes(&program);
            let params = rpy_jit::metainterp::JitParams {
                threshold: 3,
                ..Default::default()
            };
            let mut out = Vec::new();
            let run = rpy_jit::blackhole::run_entry(
                &program,
                &codes,
                &p.argv(),
                &mut out,
                3,
                Some(params),
            );
            let jit = run.jit.expect("the meta-interpreter ran");
            assert!(jit.stats.loops > 0, "{name}: {}", jit.log);
            // The executable's tracer folds them too (the immutable fields
            // travel with its jitcodes).
            let mut src = p.source();
            src.jit = true;
            let exe = support::build(&src, &format!("{}-immutable", p.name));
            let log = exe.with_extension("jitlog");
            support::run(
                std::process::Command::new(&exe)
                    .env("RPY_JIT", "threshold=3")
                    .env("RPY_JITLOG", &log)
                    .args(&p.args),
            );
            let executable_log = std::fs::read_to_string(&log).unwrap_or_default();
            assert!(
                jit_log_count(&executable_log, "loops").is_some_and(|n| n > 0),
                "{}: the executable compiled no loop:\n{executable_log}",
                p.name
            );
            for (world, log) in [
                ("meta-interpreter", &jit.log),
                ("executable", &executable_log),
            ] {
                for (i, section) in log.split("\n\n").enumerate() {
                    assert!(
                        !section.contains(folded),
                        "{} ({world}): section {i} reads what does not change:\n{section}",
                        p.name
                    );
                }
            }
        }
    }
}

/// Every trace a JIT program compiles whose first run the log can write
/// down replays from the JIT log (`rpy trace --replay`) to the outcome and
/// objects that run had; the register machine's loops (no residual calls)
/// must all be logged.
#[test]
fn logged_traces_replay_to_what_the_program_observed() {
    for p in jit_programs()
        .into_iter()
        .filter(|p| p.name.contains("_jit_"))
    {
        let src = p.source();
        let program = rpy::pipeline::lowlevel(&src).unwrap_or_else(|d| panic!("{d}"));
        let codes = rpy_jit::codewriter::write_jitcodes(&program);
        let params = rpy_jit::metainterp::JitParams {
            threshold: 3,
            trace_eagerness: 2,
            log_runs: true,
            backend: std::rc::Rc::new(rpy_asm::MachineCode),
            ..Default::default()
        };
        let mut out = Vec::new();
        let run =
            rpy_jit::blackhole::run_entry(&program, &codes, &p.argv(), &mut out, 3, Some(params));
        let jit = run.jit.expect("the meta-interpreter ran");
        let log = jit.log_file("counts");
        let (mut replayed, mut unlogged) = (0, 0);
        for n in 0..jit.stats.loops + jit.stats.bridges {
            match rpy_jit::replay::replay(&log, n as usize) {
                Ok((observed, same)) => {
                    assert!(
                        same,
                        "{}: trace {n} replays differently:\n{observed}\nlog:\n{log}",
                        p.name
                    );
                    replayed += 1;
                }
                Err(e) if e.contains("not logged") || e.contains("has no run") => unlogged += 1,
                Err(e) => panic!("{}: trace {n}: {e}\nlog:\n{log}", p.name),
            }
        }
        // The ledger's and the float machine's loops make residual calls
        // (dicts, formatting), which a log cannot write down.
        let calls_residually = ["ledger", "floatvm"].iter().any(|n| p.name.contains(n));
        assert!(
            replayed > 0 || calls_residually,
            "{}: no trace replayed",
            p.name
        );
        if p.name.contains("tlr") {
            assert_eq!(
                unlogged, 0,
                "{}: every loop of the register machine is logged:\n{log}",
                p.name
            );
        }
    }
}

/// The ledger machine's hot loop calls functions the tracer does not
/// trace into (formatting, dict updates, a `dont_look_inside` function
/// that raises): the traces call them residually, and an exception one
/// raises in compiled code is raised where the call was, so the program
/// prints what CPython prints, on both backends.
#[test]
fn jit_traces_residual_calls_and_raises_their_exceptions_at_the_call() {
    let p = jit_programs()
        .into_iter()
        .find(|p| p.name.contains("jit_ledger"))
        .expect("the ledger program");
    let src = p.source();
    let program = rpy::pipeline::lowlevel(&src).unwrap_or_else(|d| panic!("{d}"));
    let codes = rpy_jit::codewriter::write_jitcodes(&program);
    let expected = support::expected(&p).expect("CPython runs the ledger");
    let backends: [std::rc::Rc<dyn rpy_jit::metainterp::LoopBackend>; 2] = [
        std::rc::Rc::new(rpy_jit::metainterp::Interpreted),
        std::rc::Rc::new(rpy_asm::MachineCode),
    ];
    for backend in backends {
        let params = rpy_jit::metainterp::JitParams {
            threshold: 3,
            trace_eagerness: 2,
            backend,
            ..Default::default()
        };
        let mut out = Vec::new();
        let run =
            rpy_jit::blackhole::run_entry(&program, &codes, &p.argv(), &mut out, 3, Some(params));
        let jit = run.jit.expect("the meta-interpreter ran");
        let status = run
            .status
            .unwrap_or_else(|e| panic!("{}\n{}", e.message, jit.log));
        assert_eq!(
            (support::text_of(out), status as i32),
            expected,
            "{}",
            jit.log
        );
        assert!(
            jit.log.contains("descr=residual"),
            "no residual call traced:\n{}",
            jit.log
        );
        assert!(
            jit.stats.residual_raises > 0 && jit.stats.aborts == 0,
            "{:?}\n{}",
            jit.stats,
            jit.log
        );
    }
}

/// Every test program run with every graph the entry point reaches on
/// jitcodes (every call traced into, the entry point as the portal) prints
/// what it prints in the LLInterpreter: the codewriter's registers, moves,
/// jumps, switches and exception handlers, and the blackhole interpreter,
/// on all the programs' graphs.
#[test]
fn every_program_on_jitcodes_matches_llinterpreter() {
    let mut checked = 0;
    for p in support::programs()
        .into_iter()
        .filter(|p| p.reaches(StageName::Genc))
    {
        let src = p.source();
        let program = rpy::pipeline::lowlevel(&src).unwrap_or_else(|d| panic!("{d}"));
        let codes = rpy_jit::codewriter::write_jitcodes_of_everything(&program);
        let mut out = Vec::new();
        let run = rpy_jit::blackhole::run_entry(
            &program,
            &codes,
            &p.argv(),
            &mut out,
            rpy_jit::warmstate::DEFAULT_THRESHOLD,
            None,
        );
        let (status, stats) = (run.status, run.stats);
        let status = match status {
            Ok(s) => s as i32,
            Err(e) if e.is_fatal() => 1,
            Err(e) => panic!(
                "{}: {} (at {}, in {:?})",
                p.name, e.message, e.graph, e.traceback
            ),
        };
        assert!(
            stats.instructions > 0,
            "{}: nothing ran on jitcodes",
            p.name
        );
        let got = (support::text_of(out), status);
        assert_eq!(
            got,
            support::interp_lowlevel(&program, &p.argv()),
            "{} on jitcodes",
            p.name
        );
        checked += 1;
    }
    assert!(checked > 50, "only {checked} programs were checked");
}

/// A random structured program for `tests/jit_vm/random_vm.py`: nested
/// counted loops (each depth its own counter register, 5 to 7, which
/// nothing else writes, so every program ends), forward skips, boxes
/// pushed and popped, calls of a helper, divisions that raise and catch.
fn random_vm_program(seed: u64) -> String {
    struct Gen(u64);
    impl Gen {
        fn next(&mut self, n: u64) -> u64 {
            // xorshift64*: enough for test programs.
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) % n
        }
    }
    fn simple(g: &mut Gen, out: &mut Vec<(u64, u64, u64)>) {
        let (a, b) = (g.next(5), g.next(5));
        let op = [0, 1, 1, 2, 3, 6, 7, 7, 8, 9, 10][g.next(11) as usize];
        let b = match op {
            0 => g.next(50),
            3 => 2 + g.next(5),
            7 => g.next(2),
            _ => b,
        };
        out.push((op, a, b));
    }
    fn block(g: &mut Gen, depth: u64, out: &mut Vec<(u64, u64, u64)>) {
        for _ in 0..1 + g.next(5) {
            match g.next(6) {
                0 | 1 if depth < 3 => {
                    let counter = 5 + depth;
                    out.push((0, counter, 1 + g.next(12)));
                    let head = out.len() as u64;
                    block(g, depth + 1, out);
                    out.push((4, counter, head));
                }
                2 => {
                    out.push((5, g.next(5), g.next(5)));
                    simple(g, out);
                }
                _ => simple(g, out),
            }
        }
    }
    let mut g = Gen(seed | 1);
    let mut code = Vec::new();
    block(&mut g, 0, &mut code);
    code.iter()
        .map(|(op, a, b)| format!("{op} {a} {b}"))
        .collect::<Vec<_>>()
        .join(";")
}

/// Property: random programs of a small bytecode interpreter print the same
/// with the JIT (threshold 2, so that loops compile, guards fail, bridges
/// compile and the blackhole resumes often; loops as machine code) as
/// without it.
#[test]
fn random_vm_programs_run_the_same_with_the_jit() {
    let path = support::root().join("tests/jit_vm/random_vm.py");
    let src =
        rpy::pipeline::Source::read(path.to_str().unwrap(), None).unwrap_or_else(|d| panic!("{d}"));
    let program = rpy::pipeline::lowlevel(&src).unwrap_or_else(|d| panic!("{d}"));
    let codes = rpy_jit::codewriter::write_jitcodes(&program);
    let mut runner = proptest::test_runner::TestRunner::new(proptest::test_runner::Config {
        cases: 48,
        ..Default::default()
    });
    let compiled = std::cell::Cell::new(0);
    let bridges = std::cell::Cell::new(0);
    // Jitcode instructions the blackhole ran without and with the JIT.
    let work = std::cell::Cell::new((0u64, 0u64));
    runner
        .run(&proptest::prelude::any::<u64>(), |seed| {
            let text = random_vm_program(seed);
            let argv = vec!["random_vm".to_string(), text.clone()];
            let run = |jit: Option<rpy_jit::metainterp::JitParams>| {
                let mut out = Vec::new();
                let run = rpy_jit::blackhole::run_entry(&program, &codes, &argv, &mut out, 2, jit);
                let status = run.status.map_err(|e| e.message);
                (
                    support::text_of(out),
                    status,
                    run.jit,
                    run.stats.instructions,
                )
            };
            let (plain, plain_status, _, plain_work) = run(None);
            let params = rpy_jit::metainterp::JitParams {
                threshold: 2,
                trace_eagerness: 2,
                backend: std::rc::Rc::new(rpy_asm::MachineCode),
                ..Default::default()
            };
            let (jitted, jit_status, meta, jit_work) = run(Some(params));
            let meta = meta.expect("the meta-interpreter ran");
            compiled.set(compiled.get() + meta.stats.loops);
            bridges.set(bridges.get() + meta.stats.bridges);
            work.set((work.get().0 + plain_work, work.get().1 + jit_work));
            proptest::prop_assert_eq!(
                (&jitted, &jit_status),
                (&plain, &plain_status),
                "program {}\njit log:\n{}",
                text,
                meta.log
            );
            Ok(())
        })
        .unwrap();
    let compiled = compiled.get();
    assert!(
        compiled > 20,
        "only {compiled} loops compiled over the random programs"
    );
    // Loops run as traces, not in the blackhole: a guard that always fails
    // would be correct and never fast.
    let (plain, jitted) = work.get();
    assert!(
        jitted * 2 < plain,
        "the blackhole ran {jitted} instructions with the JIT, {plain} without"
    );
}

/// Property: random programs of the small bytecode interpreter print the
/// same in its executable with the JIT (the portal in the JIT's runtime,
/// on the program's memory) as in its executable without, also when the
/// collector runs at every allocation.
#[test]
fn random_vm_programs_run_the_same_in_executables_with_the_jit() {
    let path = support::root().join("tests/jit_vm/random_vm.py");
    let mut src =
        rpy::pipeline::Source::read(path.to_str().unwrap(), None).unwrap_or_else(|d| panic!("{d}"));
    let plain = support::build(&src, "random_vm-plain");
    src.jit = true;
    let jitted = support::build(&src, "random_vm-jit");
    let mut runner = proptest::test_runner::TestRunner::new(proptest::test_runner::Config {
        cases: 32,
        ..Default::default()
    });
    runner
        .run(&proptest::prelude::any::<u64>(), |seed| {
            let text = random_vm_program(seed);
            // The JIT compiles loops at once and bridges soon, so that
            // guards fail in and out of machine code.
            let run = |exe: &std::path::Path, debug: bool| {
                let mut cmd = std::process::Command::new(exe);
                cmd.env(
                    "RPY_JIT",
                    "threshold=2,function_threshold=2,trace_eagerness=2",
                );
                if debug {
                    cmd.env("RPY_GC_DEBUG", "1");
                }
                support::run(cmd.arg(&text))
            };
            let expected = run(&plain, false);
            proptest::prop_assert_eq!(&run(&jitted, false), &expected, "program {}", text);
            proptest::prop_assert_eq!(
                &run(&jitted, true),
                &expected,
                "program {} (RPY_GC_DEBUG)",
                text
            );
            Ok(())
        })
        .unwrap();
}

/// `rpy trace --replay N LOG`, run as a user runs it: its status, stdout
/// and stderr.
fn replay_cli(log: &std::path::Path, n: usize) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rpy"))
        .args(["trace", "--replay", &n.to_string()])
        .arg(log)
        .output()
        .expect("rpy runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A loop a translated executable logged (`RPY_JITLOG`, with loops and
/// bridges compiled at once) replays with `rpy trace --replay` to what
/// the executable's run of it computed: the register machine's loops (no
/// residual calls), the ledger's (residual calls into C: dict lookups,
/// formatting, a `dont_look_inside` function that raises) and the float
/// machine's (residual calls that return new strings). Every trace that
/// ran is replayed; a log whose logged input or residual call result is
/// changed is not the same, and a malformed log is refused without a
/// panic.
#[test]
fn executable_loops_replay_from_the_jit_log() {
    let programs = jit_programs();
    for name in ["jit_tlr", "jit_ledger", "jit_floatvm"] {
        let p = programs
            .iter()
            .find(|p| p.name.ends_with(name))
            .unwrap_or_else(|| panic!("the test program {name}"));
        let mut src = p.source();
        src.jit = true;
        let exe = support::build(&src, &format!("{}-replay", p.name));
        let log = exe.with_extension("jitlog");
        let got = support::run(
            std::process::Command::new(&exe)
                .env(
                    "RPY_JIT",
                    "threshold=3,function_threshold=3,trace_eagerness=2",
                )
                .env("RPY_JITLOG", &log)
                .args(&p.args),
        );
        let expected =
            support::expected(p).unwrap_or_else(|| support::interp(&p.source(), &p.argv()));
        assert_eq!(got, expected, "{}: the executable with the JIT log", p.name);
        let text = std::fs::read_to_string(&log).expect("the executable writes its log");
        let traces = text.lines().filter(|l| l.ends_with(", optimized")).count();
        assert!(traces > 0, "{}: no trace compiled:\n{text}", p.name);
        let mut replayed = Vec::new();
        for n in 0..traces {
            let (status, out, err) = replay_cli(&log, n);
            if err.contains(&format!("the log has no run of trace {n}")) {
                // Compiled, never entered.
                continue;
            }
            assert_eq!(status, 0, "{}: trace {n}:\n{out}{err}", p.name);
            assert!(
                out.ends_with(&format!(
                    "# trace {n} replayed: the same as the logged run\n"
                )),
                "{}: trace {n}:\n{out}",
                p.name
            );
            replayed.push(n);
        }
        assert!(
            !replayed.is_empty(),
            "{}: no trace replayed:\n{text}",
            p.name
        );
        let residual_calls = text.lines().filter(|l| l.starts_with("#r ")).count();
        if name != "jit_tlr" {
            assert!(
                residual_calls > 0,
                "{}: the logged runs make no residual call:\n{text}",
                p.name
            );
        }
        if name == "jit_ledger" {
            assert!(
                text.lines()
                    .any(|l| l.starts_with("#r ") && l.ends_with(" raised")),
                "{}: no logged call raised:\n{text}",
                p.name
            );
        }

        // The replay computes: a changed input of the first replayed
        // trace's run (its first number, or when it takes objects only,
        // the first number field of its first object), or a changed
        // result of a residual call, gives another outcome.
        let n = replayed[0];
        let run_line = format!("# run of trace {n}: ");
        let bump = |v: &str| -> Option<String> {
            match (v.parse::<i64>(), v.parse::<f64>()) {
                (Ok(i), _) => Some((i + 1).to_string()),
                (_, Ok(x)) => Some(format!("{:?}", x + 1.0)),
                _ => None,
            }
        };
        let lines: Vec<&str> = text.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.starts_with(&run_line))
            .expect("the run");
        let mut changed_lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        let values: Vec<&str> = lines[at][run_line.len()..].split(' ').collect();
        if let Some(i) = values.iter().position(|v| bump(v).is_some()) {
            let mut values: Vec<String> = values.iter().map(|v| v.to_string()).collect();
            values[i] = bump(&values[i]).unwrap();
            changed_lines[at] = format!("{run_line}{}", values.join(" "));
        } else {
            let object = &lines[at + 1];
            let (before, fields) = object.split_once('(').expect("an object of fields");
            let mut fields: Vec<String> = fields
                .trim_end_matches(')')
                .split(',')
                .map(str::to_string)
                .collect();
            let i = fields
                .iter()
                .position(|f| f.split_once('=').is_some_and(|(_, v)| bump(v).is_some()))
                .expect("a number field");
            let (name, v) = fields[i].split_once('=').unwrap();
            fields[i] = format!("{name}={}", bump(v).unwrap());
            changed_lines[at + 1] = format!("{before}({})", fields.join(","));
        }
        let changed: String = changed_lines.iter().map(|l| format!("{l}\n")).collect();
        let changed_log = exe.with_extension("changed");
        std::fs::write(&changed_log, &changed).unwrap();
        let (status, out, err) = replay_cli(&changed_log, n);
        assert_eq!(status, 1, "{}: a changed input:\n{out}{err}", p.name);
        assert!(
            out.ends_with(&format!(
                "# trace {n} replayed: NOT the same as the logged run\n"
            )),
            "{}: a changed input:\n{out}",
            p.name
        );
        if name == "jit_ledger" {
            // The first call that returned: the loop's dict lookup (the
            // index of the entry, -1 when there is none), which the trace
            // guards and reads the entry at; a negative index takes the
            // other branch.
            let (at, call) = text
                .lines()
                .enumerate()
                .find(|(_, l)| l.starts_with("#r ") && !l.ends_with(" raised"))
                .expect("a call that returned");
            let owner = text
                .lines()
                .take(at)
                .filter(|l| l.starts_with("# run of trace "))
                .last();
            let owner: usize = owner
                .and_then(|l| l["# run of trace ".len()..].split(':').next()?.parse().ok())
                .expect("the run the call is in");
            let (head, result) = call.rsplit_once(" -> ").unwrap();
            let bumped = format!("{head} -> {}", -1 - result.parse::<i64>().unwrap());
            let changed: String = text
                .lines()
                .enumerate()
                .map(|(i, l)| format!("{}\n", if i == at { bumped.as_str() } else { l }))
                .collect();
            std::fs::write(&changed_log, &changed).unwrap();
            let (status, out, err) = replay_cli(&changed_log, owner);
            assert_eq!(status, 1, "{}: a changed call result:\n{out}{err}", p.name);
            assert!(
                out.contains("NOT the same as the logged run"),
                "{}: a changed call result:\n{out}",
                p.name
            );
        }

        // A malformed log (each line of the run cut short, or the log
        // cut anywhere) is refused or replays; it never panics.
        let lines: Vec<&str> = text.lines().collect();
        let from = lines
            .iter()
            .position(|l| l.starts_with(&run_line))
            .expect("the run");
        for (i, l) in lines.iter().enumerate().skip(from).take(40) {
            for cut in [l.len() / 2, l.len().saturating_sub(1)] {
                let mut cut_log = lines.clone();
                let short = &l[..l.floor_char_boundary(cut)];
                cut_log[i] = short;
                let _ = rpy_jit::replay::replay(&cut_log.join("\n"), n);
            }
        }
        for end in (0..text.len()).step_by(text.len() / 50 + 1) {
            let _ = rpy_jit::replay::replay(&text[..text.floor_char_boundary(end)], n);
        }
        let (status, _, err) = replay_cli(&exe.with_extension("missing"), 0);
        assert_eq!(status, 1, "{err}");
    }
}

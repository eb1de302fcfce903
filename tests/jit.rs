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
        let got = (String::from_utf8(out).unwrap(), status);
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

/// The JIT programs with the meta-interpreter: their hot loops are traced,
/// optimized (or not: a wrong trace must not hide behind the optimizer)
/// and run as traces, leaving them through failing guards into the
/// blackhole; what they print is what the LLInterpreter and CPython print.
#[test]
fn jit_runs_hot_loops_as_traces_and_matches_llinterpreter() {
    for p in jit_programs() {
        let src = p.source();
        let program = rpy::pipeline::lowlevel(&src).unwrap_or_else(|d| panic!("{d}"));
        let codes = rpy_jit::codewriter::write_jitcodes(&program);
        let llinterp = support::interp(&src, &p.argv());
        for (threshold, opts) in [(3, rpy_jit::optimize::ALL_PASSES), (7, "")] {
            let params = rpy_jit::metainterp::JitParams {
                threshold,
                enable_opts: opts.to_string(),
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
            let got = (String::from_utf8(out).unwrap(), status);
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
            assert_eq!(llinterp, expected, "{}: LLInterpreter against CPython", p.name);
        }
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
        let got = (String::from_utf8(out).unwrap(), status);
        assert_eq!(
            got,
            support::interp(&src, &p.argv()),
            "{} on jitcodes",
            p.name
        );
        checked += 1;
    }
    assert!(checked > 50, "only {checked} programs were checked");
}

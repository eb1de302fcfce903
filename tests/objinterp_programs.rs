//! Every program of tests/programs, as flow graphs (after simplification) run
//! by the object-level interpreter, prints CPython's output and exits with its
//! status: the flow builder checked on its own, before annotation.

mod support;

use rayon::prelude::*;
use rpy::pipeline::{run_until, StageName, StageOutput, Timings};
use rpy_passes::objinterp::ObjInterpreter;

#[test]
fn flow_graphs_match_cpython() {
    // A program marked `# until: parse` does not flow yet.
    let compared: usize = support::programs()
        .into_par_iter()
        .filter(|p| p.reaches(StageName::Flow))
        .map(|p| {
            let flow = match run_until(&p.source(), StageName::Flow, &mut Timings::default()) {
                Ok(StageOutput::Flow(flow)) => flow,
                Ok(_) => unreachable!("run_until stops at the stage it is asked for"),
                Err(d) => panic!("{}: {d}", p.name),
            };
            let mut out = Vec::new();
            let (status, uncaught) =
                match ObjInterpreter::new(&flow, p.dialect).run_entry(&p.argv(), &mut out) {
                    // The exit status of `sys.exit(n)`, as the process reports it.
                    Ok(status) => ((status & 0xff) as i32, None),
                    // An exception the program does not catch ends it as CPython
                    // does: status 1, the exception's line last on stderr.
                    Err(e) if e.exc != "InternalError" && e.exc != "StepLimit" => {
                        (1, Some(e.exception_line()))
                    }
                    Err(e) => panic!("{}: {e}\ntraceback: {:?}", p.name, e.traceback),
                };
            let got = (support::text_of(out), status);
            let Some(expected) = support::expected(&p) else {
                return 0;
            };
            assert_eq!(got, expected, "{} in the object interpreter", p.name);
            if let Some(line) = uncaught {
                assert_eq!(
                    Some(line),
                    cpython_exception_line(&p),
                    "{}: the uncaught exception",
                    p.name
                );
            }
            1
        })
        .sum();
    eprintln!("{compared} programs compared with CPython");
}

/// The last line of CPython's traceback for the program (`KeyError: 4`).
fn cpython_exception_line(p: &support::TestProgram) -> Option<String> {
    let python = support::oracle(p.dialect)?;
    let out = std::process::Command::new(python)
        .env("PYTHONPATH", support::root().join("pylib"))
        .arg(&p.path)
        .args(&p.args)
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()
        .map(str::to_string)
}

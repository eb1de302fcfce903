//! Every program of tests/programs, as flow graphs (after simplification) run
//! by the object-level interpreter, prints CPython's output and exits with its
//! status: the flow builder checked on its own, before annotation.

mod support;

use rpy::pipeline::{run_until, StageName, StageOutput, Timings};
use rpy_passes::objinterp::ObjInterpreter;

#[test]
fn flow_graphs_match_cpython() {
    let mut compared = 0;
    for p in support::programs() {
        let flow = match run_until(&p.source(), StageName::Flow, &mut Timings::default()) {
            Ok(StageOutput::Flow(flow)) => flow,
            Ok(_) => unreachable!("run_until stops at the stage it is asked for"),
            Err(d) => panic!("{}: {d}", p.name),
        };
        let mut out = Vec::new();
        let status = ObjInterpreter::new(&flow, p.dialect)
            .run_entry(&p.argv(), &mut out)
            .unwrap_or_else(|e| panic!("{}: {e}\ntraceback: {:?}", p.name, e.traceback));
        // The exit status of `sys.exit(n)`, as the process reports it.
        let got = (String::from_utf8(out).unwrap(), (status & 0xff) as i32);
        if let Some(expected) = support::expected(&p) {
            assert_eq!(got, expected, "{} in the object interpreter", p.name);
            compared += 1;
        }
    }
    eprintln!("{compared} programs compared with CPython");
}

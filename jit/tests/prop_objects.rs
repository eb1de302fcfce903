//! Random traces on objects (allocations, field reads and writes, class
//! guards, pointer comparisons, escapes) give the same outcome unoptimized
//! and optimized.

use proptest::prelude::*;
use rpy_jit::interp::{run, Heap, Outcome, RunValue};
use rpy_jit::optimize::optimize;
use rpy_jit::parse_run_value;
use rpy_jit::testgen::{object_trace, observe_run, Features, GuardIndex};
use rpy_jit::text::{parse, print};
use rpy_jit::trace::{Kind, Trace};

/// The optimizer's object trace of `steps` (`rpy_jit::testgen`).
fn build(steps: &[(u8, u8, u8)]) -> String {
    object_trace(steps, Features::default())
}

/// The trace of `steps` as a loop: a label over the inputs at the start and,
/// instead of the finish, a jump passing a pointer (chosen by `sel`: p0, an
/// allocation or a loaded pointer) and the last two integers.
fn build_loop(steps: &[(u8, u8, u8)], sel: u8) -> String {
    let src = build(steps);
    let (head, rest) = src.split_once("[p0, i1, i2]\n").expect("the inputs line");
    let mut lines: Vec<&str> = rest.lines().collect();
    let finish = lines.pop().expect("the finish");
    let ints: Vec<&str> = finish
        .trim_start_matches("finish(")
        .trim_end_matches(')')
        .split(", ")
        .collect();
    let mut ptrs = vec!["p0"];
    ptrs.extend(
        lines
            .iter()
            .filter(|l| l.starts_with('p'))
            .filter_map(|l| l.split_once(" = ").map(|(p, _)| p)),
    );
    let jump = format!(
        "jump({}, {}, {})",
        ptrs[sel as usize % ptrs.len()],
        ints[ints.len() - 1],
        ints[ints.len() - 2]
    );
    format!(
        "{head}[p0, i1, i2]\nlabel(p0, i1, i2)\n{}\n{jump}\n",
        lines.join("\n")
    )
}

/// The canonical text of a run (`testgen::observe_run`): the outcome with
/// objects named by first appearance and the memory reachable from the
/// inputs and the results, so runs on different heaps compare; the failing
/// guard by its fail args (the optimizer moves guards).
fn observed(t: &Trace, heap: &Heap, inputs: &[RunValue], outcome: Outcome) -> String {
    observe_run(t, heap, inputs, &outcome, GuardIndex::Hidden)
}

/// Whether the run of a canonical text ended in an error.
fn is_error(observed: &str) -> bool {
    observed
        .lines()
        .nth(1)
        .is_some_and(|l| l.starts_with("error"))
}

fn run_with(t: &Trace, cls: &str, v: i64, i1: i64, i2: i64) -> String {
    let mut heap = Heap::default();
    let p0 = parse_run_value(t, &mut heap, &format!("{cls}(intval={v})"), Kind::Ref).unwrap();
    let inputs = [p0, RunValue::Int(i1), RunValue::Int(i2)];
    let outcome = run(t, &inputs, &mut heap, 10);
    observed(t, &heap, &inputs, outcome)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn object_traces_agree(
        steps in prop::collection::vec(any::<(u8, u8, u8)>(), 1..40),
        cls in prop::sample::select(vec!["A", "B", "obj"]),
        v in -5i64..5, i1 in -5i64..5, i2 in -5i64..5,
        passes in prop::sample::select(vec!["virtualize", "heap", "intbounds:rewrite:virtualize:pure", "intbounds:rewrite:virtualize:pure:heap", "virtualize:earlyforce", "intbounds:rewrite:virtualize:earlyforce:pure:heap"]),
    ) {
        let src = build(&steps);
        let t = parse(&src).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
        let o = optimize(&t, passes).map_err(TestCaseError::fail)?;
        let printed = print(&o);
        let o = parse(&printed).map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
        let before = run_with(&t, cls, v, i1, i2);
        prop_assume!(!is_error(&before));
        let after = run_with(&o, cls, v, i1, i2);
        prop_assert_eq!(before, after, "\n--- trace\n{}--- optimized\n{}", src, printed);
    }
}

/// How a run of the loop `t` ends (values at the loop limit left out: a
/// peeled loop's label holds others), with the memory it leaves.
fn run_loop(t: &Trace, cls: &str, args: (i64, i64, i64), limit: u64) -> String {
    let mut heap = Heap::default();
    let p0 = parse_run_value(
        t,
        &mut heap,
        &format!("{cls}(intval={})", args.0),
        Kind::Ref,
    )
    .unwrap();
    let inputs = [p0, RunValue::Int(args.1), RunValue::Int(args.2)];
    let outcome = match run(t, &inputs, &mut heap, limit) {
        Outcome::LoopLimit { .. } => Outcome::LoopLimit { values: vec![] },
        o => o,
    };
    observed(t, &heap, &inputs, outcome)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn object_loops_agree_peeled(
        steps in prop::collection::vec(any::<(u8, u8, u8)>(), 1..30),
        sel in any::<u8>(),
        cls in prop::sample::select(vec!["A", "B", "obj"]),
        v in -5i64..5, i1 in -5i64..5, i2 in -5i64..5,
        passes in prop::sample::select(vec!["virtualize:unroll", "heap:unroll", "intbounds:rewrite:virtualize:pure:heap:unroll", "intbounds:rewrite:virtualize:earlyforce:pure:heap:unroll"]),
    ) {
        let src = build_loop(&steps, sel);
        let t = parse(&src).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
        let o = optimize(&t, passes).map_err(TestCaseError::fail)?;
        let printed = print(&o);
        let o = parse(&printed).map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
        // the peeled loop's first iteration comes before its label: one jump fewer
        let peeled = rpy_jit::optimize::unroll::peels(&t);
        let before = run_loop(&t, cls, (v, i1, i2), 10);
        prop_assume!(!is_error(&before));
        let after = run_loop(&o, cls, (v, i1, i2), 10 - peeled as u64);
        prop_assert_eq!(before, after, "\n--- trace\n{}--- optimized\n{}", src, printed);
    }
}

/// The generator reaches resume data: in a good share of random object
/// traces, a guard that stays keeps a virtual object in its fail args (the
/// property tests above, and the backend's three-way test, then check that
/// failing it builds the same objects). Steps from a fixed linear
/// congruential sequence, so the test is deterministic.
#[test]
fn random_object_traces_exercise_resume_data() {
    let mut seed: u32 = 12345;
    let mut byte = move || {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (seed >> 16) as u8
    };
    let traces = 200;
    let mut with_resume = 0;
    for _ in 0..traces {
        let steps: Vec<(u8, u8, u8)> = (0..24).map(|_| (byte(), byte(), byte())).collect();
        let t = parse(&object_trace(&steps, Features::ALL)).expect("generated traces parse");
        let o = optimize(&t, rpy_jit::optimize::IMPLEMENTED_PASSES).expect("they optimize");
        if o.ops.iter().any(|op| op.resume.is_some()) {
            with_resume += 1;
        }
    }
    assert!(
        with_resume * 10 >= traces,
        "only {with_resume} of {traces} optimized traces have a guard with resume data"
    );
}

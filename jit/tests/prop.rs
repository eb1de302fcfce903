//! Random straight-line integer traces with guards give the same outcome
//! unoptimized and optimized, in the reference interpreter.

use proptest::prelude::*;
use rpy_jit::interp::{run_fresh, Outcome, RunValue};
use rpy_jit::optimize::unroll::peels;
use rpy_jit::optimize::{optimize, IMPLEMENTED_PASSES};
use rpy_jit::testgen::{int_trace, INT_CONSTS};
use rpy_jit::text::{parse, print};

/// The outcome without the guard's op index (which moves when ops are
/// removed): the first fail arg names the guard.
fn normalize(o: Outcome) -> Outcome {
    match o {
        Outcome::GuardFailed { values, .. } => Outcome::GuardFailed { guard: 0, values },
        o => o,
    }
}

fn input_value() -> impl Strategy<Value = i64> {
    prop_oneof![
        1 => prop::sample::select(INT_CONSTS.to_vec()),
        4 => -6i64..6,
        1 => any::<i64>(),
    ]
}

/// Runs `src` unoptimized and optimized with `passes` on each input tuple.
fn check_same(src: &str, inputs: &[&[i64]], passes: &str) -> Result<(), TestCaseError> {
    let t = parse(src).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
    let opt = optimize(&t, passes).map_err(TestCaseError::fail)?;
    let printed = print(&opt);
    // the optimized trace prints and parses back
    let again = parse(&printed).map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
    // a peeled loop runs its first iteration before the label, so one jump
    // fewer makes the same number of iterations; at the loop limit its label
    // holds other values than the original's
    let peeled = passes.split(':').any(|p| p == "unroll") && peels(&t);
    let unpeel = |o: Outcome| match o {
        Outcome::LoopLimit { .. } if peeled => Outcome::LoopLimit { values: vec![] },
        o => o,
    };
    for args in inputs {
        let args: Vec<RunValue> = args.iter().map(|v| RunValue::Int(*v)).collect();
        let before = unpeel(normalize(run_fresh(&t, &args, 20)));
        prop_assert!(
            !matches!(before, Outcome::Error(_)),
            "{:?}\n{}",
            before,
            src
        );
        let after = unpeel(normalize(run_fresh(&again, &args, 20 - peeled as u64)));
        prop_assert_eq!(
            before,
            after,
            "\ninputs {:?}\n--- trace\n{}--- optimized\n{}",
            args,
            src,
            printed
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn straight_line_traces_agree(
        steps in prop::collection::vec(any::<(u8, u8, u8, u8)>(), 1..30),
        args in prop::collection::vec(input_value(), 3),
        other in prop::collection::vec(input_value(), 3),
    ) {
        let src = int_trace(&steps, &args, false);
        check_same(&src, &[&args, &other], IMPLEMENTED_PASSES)?;
    }

    #[test]
    fn each_pass_alone_agrees(
        steps in prop::collection::vec(any::<(u8, u8, u8, u8)>(), 1..20),
        args in prop::collection::vec(input_value(), 3),
        other in prop::collection::vec(input_value(), 3),
        pass in prop::sample::select(vec!["intbounds", "rewrite", "pure", "heap", "virtualize", "pure:intbounds:rewrite", "intbounds:rewrite:pure"]),
    ) {
        let src = int_trace(&steps, &args, false);
        check_same(&src, &[&args, &other], pass)?;
    }

    #[test]
    fn loops_agree(
        steps in prop::collection::vec(any::<(u8, u8, u8, u8)>(), 3..20),
        args in prop::collection::vec(input_value(), 3),
        other in prop::collection::vec(input_value(), 3),
    ) {
        let src = int_trace(&steps, &args, true);
        check_same(&src, &[&args, &other], IMPLEMENTED_PASSES)?;
    }

    #[test]
    fn loops_agree_peeled_after_each_pass(
        steps in prop::collection::vec(any::<(u8, u8, u8, u8)>(), 3..20),
        args in prop::collection::vec(input_value(), 3),
        other in prop::collection::vec(input_value(), 3),
        pass in prop::sample::select(vec!["unroll", "intbounds:unroll", "rewrite:unroll", "pure:unroll", "intbounds:rewrite:pure:unroll"]),
    ) {
        let src = int_trace(&steps, &args, true);
        check_same(&src, &[&args, &other], pass)?;
    }
}

#[test]
#[ignore]
fn stats() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut fin, mut guard, mut err, mut removed, mut total) = (0, 0, 0, 0, 0);
    for _ in 0..2000 {
        let steps = prop::collection::vec(any::<(u8, u8, u8, u8)>(), 1..30)
            .new_tree(&mut runner)
            .unwrap()
            .current();
        let args = prop::collection::vec(input_value(), 3)
            .new_tree(&mut runner)
            .unwrap()
            .current();
        let src = int_trace(&steps, &args, false);
        let t = parse(&src).unwrap();
        let a: Vec<RunValue> = args.iter().map(|v| RunValue::Int(*v)).collect();
        match run_fresh(&t, &a, 20) {
            Outcome::Finished(_) => fin += 1,
            Outcome::GuardFailed { .. } => guard += 1,
            _ => err += 1,
        }
        let o = optimize(&t, "intbounds:rewrite:pure").unwrap();
        removed += t.ops.len() - o.ops.len();
        total += t.ops.len();
    }
    println!("finished {fin} guard {guard} err {err} removed {removed}/{total}");
}

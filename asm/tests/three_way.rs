//! Random valid traces (integers, floats, objects with fields, arrays,
//! guards, calls, loops; the generators of `rpy_jit::testgen`) give the
//! same outcome three ways: (a) unoptimized in the reference interpreter,
//! (b) optimized with the default passes in the interpreter, (c) optimized
//! as machine code. "The same" covers the failing guard, the fail-arg or
//! finish values and the memory reachable from the inputs and the results
//! (`testgen::observe`). (a) and (b) may differ in the failing guard's op
//! index (optimization removes ops), so they compare by the guard's number,
//! its first fail arg; (b) and (c) run the same trace and compare exactly.
//! (d) the optimized trace compiled with two general-purpose registers and
//! one SSE register, so most boxes live in the frame, and (e) compiled with
//! every memory access checked against the heap, must agree with (c).

use proptest::prelude::*;
use rpy_asm::{compile, compile_checked, compile_with_registers, CompiledLoop};
use rpy_jit::interp::{run, Heap, Outcome, RunValue};
use rpy_jit::optimize::unroll::peels;
use rpy_jit::optimize::{optimize, IMPLEMENTED_PASSES};
use rpy_jit::parse_run_value;
use rpy_jit::testgen::{int_trace, object_trace, observe, Features, INT_CONSTS};
use rpy_jit::text::{parse, print};
use rpy_jit::trace::Trace;

/// How a trace runs.
enum Engine<'c> {
    Interpreter,
    Machine(&'c CompiledLoop),
}

/// Runs `trace` on inputs given as `rpy trace --run` arguments (objects are
/// allocated on a fresh heap), and returns the canonical text of the run.
fn observe_run(
    trace: &Trace,
    inputs: &[String],
    engine: Engine,
    limit: u64,
    exact: bool,
) -> String {
    let mut heap = Heap::default();
    let values: Vec<RunValue> = inputs
        .iter()
        .zip(&trace.inputs)
        .map(|(text, b)| parse_run_value(trace, &mut heap, text, trace.boxes[*b].kind))
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("bad input: {e}"));
    let outcome = match engine {
        Engine::Interpreter => run(trace, &values, &mut heap, limit),
        Engine::Machine(code) => code.run(&values, &mut heap, limit),
    };
    // not exact: a guard by its number; at the loop limit, no values
    let outcome = match outcome {
        Outcome::GuardFailed { values, .. } if !exact => Outcome::GuardFailed { guard: 0, values },
        Outcome::LoopLimit { .. } if !exact => Outcome::LoopLimit { values: vec![] },
        o => o,
    };
    observe(trace, &heap, &values, &outcome)
}

/// Checks the three (four) ways agree on each input tuple.
fn three_way(src: &str, inputs: &[Vec<String>], limit: u64) -> Result<(), TestCaseError> {
    let unoptimized = parse(src).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
    let optimized = optimize(&unoptimized, IMPLEMENTED_PASSES).map_err(TestCaseError::fail)?;
    let printed = print(&optimized);
    let code = compile(&optimized).map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
    let spilling = compile_with_registers(&optimized, &[12, 13], &[2])
        .map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
    let checked =
        compile_checked(&optimized).map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
    // a peeled loop makes the same number of iterations with one jump fewer
    // (so a limit of 1, which stops the original after one iteration, has
    // no peeled equivalent: the limits used are at least 2)
    let peeled_limit = limit.saturating_sub(peels(&unoptimized) as u64);
    for args in inputs {
        let a = observe_run(&unoptimized, args, Engine::Interpreter, limit, false);
        prop_assert!(!a.contains("\nerror "), "{}\n{}", a, src);
        let b = observe_run(&optimized, args, Engine::Interpreter, peeled_limit, false);
        prop_assert_eq!(
            &a,
            &b,
            "\ninputs {:?}\n--- trace\n{}--- optimized\n{}",
            args,
            src,
            printed
        );
        let b = observe_run(&optimized, args, Engine::Interpreter, limit, true);
        let c = observe_run(&optimized, args, Engine::Machine(&code), limit, true);
        prop_assert_eq!(&b, &c, "\ninputs {:?}\n--- optimized\n{}", args, printed);
        let d = observe_run(&optimized, args, Engine::Machine(&spilling), limit, true);
        prop_assert_eq!(
            &c,
            &d,
            "\ninputs {:?}\n--- optimized, few registers\n{}",
            args,
            printed
        );
        let e = observe_run(&optimized, args, Engine::Machine(&checked), limit, true);
        prop_assert_eq!(
            &c,
            &e,
            "\ninputs {:?}\n--- optimized, checked\n{}",
            args,
            printed
        );
    }
    Ok(())
}

fn int_input() -> impl Strategy<Value = i64> {
    prop_oneof![
        1 => prop::sample::select(INT_CONSTS.to_vec()),
        4 => -6i64..6,
        1 => any::<i64>(),
    ]
}

/// The inputs of an object trace: `p0` (an object, maybe with a next
/// object and an array), `i1`, `i2` and, with floats, `f3`.
fn object_args(features: Features) -> impl Strategy<Value = Vec<String>> {
    let cls = prop::sample::select(vec!["A", "B", "obj"]);
    let shape = 0u8..4;
    let f = prop::sample::select(vec!["1.5", "-0.25", "0.0", "1e300", "nan", "-inf"]);
    (cls, shape, -5i64..5, -5i64..5, -5i64..5, f).prop_map(move |(cls, shape, v, i1, i2, f)| {
        let mut fields = vec![format!("intval={v}")];
        if shape % 2 == 1 {
            fields.push(format!("next=B(intval={i1})"));
        }
        if features.arrays && shape >= 2 {
            fields.push(format!("items=ints[{v}, {i1}, 0, 7]"));
        }
        if features.floats {
            fields.push(format!("f={f}"));
        }
        let mut args = vec![
            format!("{cls}({})", fields.join(", ")),
            i1.to_string(),
            i2.to_string(),
        ];
        if features.floats {
            args.push(f.to_string());
        }
        args
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn integer_traces_agree_three_ways(
        steps in prop::collection::vec(any::<(u8, u8, u8, u8)>(), 1..30),
        args in prop::collection::vec(int_input(), 3),
        other in prop::collection::vec(int_input(), 3),
        looped in any::<bool>(),
    ) {
        let src = int_trace(&steps, &args, looped);
        let texts = |v: &[i64]| v.iter().map(|i| i.to_string()).collect::<Vec<_>>();
        three_way(&src, &[texts(&args), texts(&other)], 20)?;
    }

    #[test]
    fn object_traces_agree_three_ways(
        steps in prop::collection::vec(any::<(u8, u8, u8)>(), 1..40),
        args in object_args(Features::ALL),
        other in object_args(Features::ALL),
    ) {
        let src = object_trace(&steps, Features::ALL);
        three_way(&src, &[args, other], 10)?;
    }

    #[test]
    fn object_loops_agree_three_ways(
        steps in prop::collection::vec(any::<(u8, u8, u8)>(), 1..30),
        args in object_args(Features::ALL),
        limit in 2u64..6,
    ) {
        let features = Features { loops: true, ..Features::ALL };
        let src = object_trace(&steps, features);
        three_way(&src, &[args], limit)?;
    }
}

/// Found by `object_traces_agree_three_ways`: NaN times -NaN is the first
/// operand's NaN in `mulsd` and the second's in the interpreter (the Rust
/// compiler swapped the operands); which NaN comes out is not part of the
/// meaning of a trace.
#[test]
fn nan_times_nan_agrees_whichever_nan_comes_out() {
    let src = "[f0]\nf1 = float_neg(f0)\nf2 = float_mul(f0, f1)\nf3 = float_mul(f1, f0)\nfinish(f0, f1, f2, f3)\n";
    three_way(
        src,
        &[vec!["nan".to_string()], vec!["-nan".to_string()]],
        10,
    )
    .unwrap();
}

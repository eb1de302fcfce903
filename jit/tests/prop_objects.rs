//! Random traces on objects (allocations, field reads and writes, class
//! guards, pointer comparisons, escapes) give the same outcome unoptimized
//! and optimized.

use proptest::prelude::*;
use rpy_jit::interp::{run, Heap, Outcome};
use rpy_jit::optimize::optimize;
use rpy_jit::parse_run_value;
use rpy_jit::testgen::{object_trace, Features};
use rpy_jit::text::{parse, print};
use rpy_jit::trace::Kind;

/// The optimizer's object trace of `steps` (`rpy_jit::testgen`).
fn build(steps: &[(u8, u8, u8)]) -> String {
    object_trace(steps, Features::default())
}

fn normalize(o: Outcome) -> Outcome {
    match o {
        Outcome::GuardFailed { values, .. } => Outcome::GuardFailed { guard: 0, values },
        o => o,
    }
}

fn run_with(t: &rpy_jit::trace::Trace, cls: &str, v: i64, i1: i64, i2: i64) -> Outcome {
    let mut heap = Heap::default();
    let p0 = parse_run_value(t, &mut heap, &format!("{cls}(intval={v})"), Kind::Ref).unwrap();
    normalize(run(
        t,
        &[
            p0,
            rpy_jit::interp::RunValue::Int(i1),
            rpy_jit::interp::RunValue::Int(i2),
        ],
        &mut heap,
        10,
    ))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn object_traces_agree(
        steps in prop::collection::vec(any::<(u8, u8, u8)>(), 1..40),
        cls in prop::sample::select(vec!["A", "B", "obj"]),
        v in -5i64..5, i1 in -5i64..5, i2 in -5i64..5,
        passes in prop::sample::select(vec!["virtualize", "heap", "intbounds:rewrite:virtualize:pure", "intbounds:rewrite:virtualize:pure:heap"]),
    ) {
        let src = build(&steps);
        let t = parse(&src).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
        let o = optimize(&t, passes).map_err(TestCaseError::fail)?;
        let printed = print(&o);
        let o = parse(&printed).map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
        let before = run_with(&t, cls, v, i1, i2);
        prop_assume!(!matches!(before, Outcome::Error(_)));
        let after = run_with(&o, cls, v, i1, i2);
        prop_assert_eq!(before, after, "\n--- trace\n{}--- optimized\n{}", src, printed);
    }
}

//! The x86-64 backend against the reference interpreter.

use proptest::prelude::*;
use rpy_backend::x86_64::compile;
use rpy_jit::interp::{run_fresh, Heap, Outcome, RunValue};
use rpy_jit::text::parse;

const LIMIT: u64 = 1000;

/// Runs `src` on `inputs` with the interpreter and the machine code; both
/// outcomes must agree. Returns the outcome.
fn check(src: &str, inputs: &[i64], limit: u64) -> Outcome {
    let trace = parse(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let args: Vec<RunValue> = inputs.iter().map(|i| RunValue::Int(*i)).collect();
    let expected = run_fresh(&trace, &args, limit);
    let code = compile(&trace).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let got = code.run(&args, &mut Heap::default(), limit);
    assert_eq!(got, expected, "{src}\ninputs {inputs:?}");
    got
}

fn ints(v: &[i64]) -> Vec<RunValue> {
    v.iter().map(|i| RunValue::Int(*i)).collect()
}

const SUM: &str = "
[i0, i1]
label(i0, i1)
i2 = int_lt(i0, 100)
guard_true(i2) [i0, i1]
i3 = int_add(i1, i0)
i4 = int_add(i0, 1)
jump(i4, i3)
";

#[test]
fn sum_loop() {
    let o = check(SUM, &[0, 0], 1_000_000);
    assert_eq!(
        o,
        Outcome::GuardFailed {
            guard: 2,
            values: ints(&[100, 4950])
        }
    );
    check(SUM, &[200, 7], 1_000_000);
    check(SUM, &[-5, 7], 1_000_000);
}

#[test]
fn loop_limit() {
    let o = check(SUM, &[0, 0], 10);
    assert_eq!(
        o,
        Outcome::LoopLimit {
            values: ints(&[10, 45])
        }
    );
    check(SUM, &[0, 0], 0);
    check(SUM, &[0, 0], 1);
}

#[test]
fn jump_without_label_goes_to_the_start() {
    let src = "
[i0, i1]
i2 = int_gt(i0, 0)
guard_true(i2) [i1]
i3 = int_mul(i1, 2)
i4 = int_sub(i0, 1)
jump(i4, i3)
";
    let o = check(src, &[10, 1], LIMIT);
    assert_eq!(
        o,
        Outcome::GuardFailed {
            guard: 1,
            values: ints(&[1024])
        }
    );
}

#[test]
fn overflow_guard() {
    let src = "
[i0, i1]
label(i0, i1)
i2 = int_mul_ovf(i0, i1)
guard_no_overflow() [i0, i1, i2]
i3 = int_add(i1, 1)
jump(i2, i3)
";
    let o = check(src, &[1, 2], LIMIT);
    assert!(matches!(o, Outcome::GuardFailed { guard: 2, .. }), "{o:?}");
    for (i, ovf) in ["int_add_ovf", "int_sub_ovf", "int_mul_ovf"]
        .iter()
        .enumerate()
    {
        let src = format!(
            "
[i0, i1]
i2 = {ovf}(i0, i1)
i3 = int_add(i0, {i})
guard_overflow() [i2, i3]
finish(i2)
"
        );
        for (x, y) in [
            (1, 2),
            (i64::MAX, 1),
            (i64::MIN, 1),
            (i64::MIN, -1),
            (1 << 40, 1 << 40),
        ] {
            check(&src, &[x, y], LIMIT);
        }
    }
}

#[test]
fn guard_value_and_finish() {
    let src = "
[i0]
i1 = int_and(i0, 7)
guard_value(i1, 3) [i0, i1, 42]
i2 = int_lshift(i0, 2)
finish(i2, i1, -1)
";
    assert_eq!(
        check(src, &[11], LIMIT),
        Outcome::Finished(ints(&[44, 3, -1]))
    );
    assert_eq!(
        check(src, &[12], LIMIT),
        Outcome::GuardFailed {
            guard: 1,
            values: ints(&[12, 4, 42])
        }
    );
}

#[test]
fn undefined_operations_are_errors() {
    for op in [
        "int_lshift",
        "int_rshift",
        "uint_rshift",
        "int_floordiv",
        "int_mod",
        "int_py_div",
        "int_py_mod",
    ] {
        let src = format!("[i0, i1]\ni2 = {op}(i0, i1)\nfinish(i2)\n");
        for (x, y) in [
            (5, 64),
            (5, -1),
            (5, 0),
            (i64::MIN, -1),
            (-7, 2),
            (7, -2),
            (-7, -2),
            (7, 3),
            (-1, 63),
        ] {
            check(&src, &[x, y], LIMIT);
        }
    }
    check("[i0]\ni1 = int_add(i0, 1)\n", &[1], LIMIT);
}

// ---- random traces ----

const BIN_OPS: &[&str] = &[
    "int_add",
    "int_sub",
    "int_mul",
    "int_and",
    "int_or",
    "int_xor",
    "int_lshift",
    "int_rshift",
    "uint_rshift",
    "int_floordiv",
    "int_mod",
    "int_py_div",
    "int_py_mod",
    "int_lt",
    "int_le",
    "int_eq",
    "int_ne",
    "int_gt",
    "int_ge",
    "uint_lt",
    "uint_le",
    "uint_gt",
    "uint_ge",
    "int_add_ovf",
    "int_sub_ovf",
    "int_mul_ovf",
];
const UN_OPS: &[&str] = &[
    "int_neg",
    "int_invert",
    "int_abs",
    "int_is_true",
    "int_is_zero",
    "int_force_ge_zero",
    "same_as_i",
];

/// One step of a random trace: indices pick boxes (modulo how many exist).
#[derive(Clone, Debug)]
enum Step {
    Bin(usize, Arg, Arg),
    Un(usize, Arg),
    GuardTrue(Arg, Vec<usize>),
    GuardFalse(Arg, Vec<usize>),
    GuardValue(Arg, i64, Vec<usize>),
    GuardOvf(bool, Vec<usize>),
}

#[derive(Clone, Debug)]
enum Arg {
    Box(usize),
    Const(i64),
}

fn arg() -> impl Strategy<Value = Arg> {
    prop_oneof![
        4 => any::<usize>().prop_map(Arg::Box),
        1 => prop_oneof![
            -3i64..70,
            Just(i64::MAX),
            Just(i64::MIN),
            any::<i64>()
        ]
        .prop_map(Arg::Const),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    let fails = prop::collection::vec(any::<usize>(), 0..4);
    prop_oneof![
        6 => (0..BIN_OPS.len(), arg(), arg()).prop_map(|(o, a, b)| Step::Bin(o, a, b)),
        2 => (0..UN_OPS.len(), arg()).prop_map(|(o, a)| Step::Un(o, a)),
        1 => (arg(), fails.clone()).prop_map(|(a, f)| Step::GuardTrue(a, f)),
        1 => (arg(), fails.clone()).prop_map(|(a, f)| Step::GuardFalse(a, f)),
        1 => (arg(), -2i64..3, fails.clone()).prop_map(|(a, c, f)| Step::GuardValue(a, c, f)),
        1 => (any::<bool>(), fails).prop_map(|(b, f)| Step::GuardOvf(b, f)),
    ]
}

/// The text of a loop: `n` inputs plus a counter, the steps, a counter
/// guard, and a jump passing boxes picked by `jumps`.
fn loop_text(n: usize, steps: &[Step], jumps: &[usize], exit: &[usize], looped: bool) -> String {
    let mut boxes: Vec<String> = (0..n).map(|i| format!("i{i}")).collect();
    let inputs = format!("{}, ic", boxes.join(", "));
    let mut out = format!("[{inputs}]\n");
    if looped {
        out.push_str(&format!("label({inputs})\n"));
    }
    let mut next = n;
    let a = |boxes: &[String], a: &Arg| match a {
        Arg::Box(i) => boxes[i % boxes.len()].clone(),
        Arg::Const(c) => c.to_string(),
    };
    let fl = |boxes: &[String], f: &[usize]| {
        let v: Vec<String> = f.iter().map(|i| boxes[i % boxes.len()].clone()).collect();
        v.join(", ")
    };
    for s in steps {
        match s {
            Step::Bin(o, x, y) => {
                out.push_str(&format!(
                    "i{next} = {}({}, {})\n",
                    BIN_OPS[*o],
                    a(&boxes, x),
                    a(&boxes, y)
                ));
                boxes.push(format!("i{next}"));
                next += 1;
            }
            Step::Un(o, x) => {
                out.push_str(&format!("i{next} = {}({})\n", UN_OPS[*o], a(&boxes, x)));
                boxes.push(format!("i{next}"));
                next += 1;
            }
            Step::GuardTrue(x, f) => out.push_str(&format!(
                "guard_true({}) [{}]\n",
                a(&boxes, x),
                fl(&boxes, f)
            )),
            Step::GuardFalse(x, f) => out.push_str(&format!(
                "guard_false({}) [{}]\n",
                a(&boxes, x),
                fl(&boxes, f)
            )),
            Step::GuardValue(x, c, f) => out.push_str(&format!(
                "guard_value({}, {c}) [{}]\n",
                a(&boxes, x),
                fl(&boxes, f)
            )),
            Step::GuardOvf(no, f) => out.push_str(&format!(
                "{}() [{}]\n",
                if *no {
                    "guard_no_overflow"
                } else {
                    "guard_overflow"
                },
                fl(&boxes, f)
            )),
        }
    }
    out.push_str(&format!(
        "i{next} = int_gt(ic, 0)\nguard_true(i{next}) [{}]\ni{} = int_sub(ic, 1)\n",
        fl(&boxes, exit),
        next + 1
    ));
    let counter = format!("i{}", next + 1);
    let mut args: Vec<String> = (0..n)
        .map(|i| {
            // mostly the boxes defined last (as loop bodies do)
            let j = jumps.get(i).copied().unwrap_or(i);
            let k = if j % 2 == 0 {
                boxes.len() - 1 - (j / 2) % boxes.len().min(4)
            } else {
                j
            };
            boxes[k % boxes.len()].clone()
        })
        .collect();
    args.push(counter);
    out.push_str(&format!("jump({})\n", args.join(", ")));
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_loops_agree_with_the_interpreter(
        n in 1usize..4,
        steps in prop::collection::vec(step(), 0..14),
        jumps in prop::collection::vec(any::<usize>(), 3),
        exit in prop::collection::vec(any::<usize>(), 0..6),
        looped in any::<bool>(),
        inputs in prop::collection::vec(
            prop_oneof![-10i64..10, any::<i64>(), Just(i64::MIN), Just(i64::MAX)], 3),
        counter in 0i64..20,
        limit in prop_oneof![Just(5u64), Just(1000u64)],
    ) {
        let src = loop_text(n, &steps, &jumps, &exit, looped);
        let trace = parse(&src).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
        let mut vals: Vec<i64> = inputs[..n].to_vec();
        vals.push(counter);
        let expected = run_fresh(&trace, &ints(&vals), limit);
        let code = compile(&trace).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
        let got = code.run(&ints(&vals), &mut Heap::default(), limit);
        prop_assert_eq!(got, expected, "{}\ninputs {:?}", src, vals);
    }
}

#[test]
fn compare_and_branch_agrees_for_every_comparison() {
    let cmps = [
        "int_lt", "int_le", "int_eq", "int_ne", "int_gt", "int_ge", "uint_lt", "uint_le",
        "uint_gt", "uint_ge",
    ];
    for cmp in cmps {
        for guard in ["guard_true", "guard_false"] {
            // fused (the comparison's only use is the guard) and not fused
            let fused = format!("[i0, i1]\ni2 = {cmp}(i0, i1)\n{guard}(i2) [i0, i1]\nfinish(i0)\n");
            let plain = format!("[i0, i1]\ni2 = {cmp}(i0, i1)\n{guard}(i2) [i2, i1]\nfinish(i2)\n");
            for (x, y) in [
                (1, 2),
                (2, 1),
                (3, 3),
                (-1, 1),
                (1, -1),
                (i64::MIN, i64::MAX),
            ] {
                check(&fused, &[x, y], LIMIT);
                check(&plain, &[x, y], LIMIT);
            }
        }
    }
}

#[test]
fn code_is_available() {
    let trace = parse(SUM).unwrap();
    let code = compile(&trace).unwrap();
    assert_eq!(code.code().len(), code.code_size());
    if let Ok(path) = std::env::var("RPY_DUMP_X86") {
        std::fs::write(path, code.code()).unwrap();
    }
}

//! Random straight-line integer traces with guards give the same outcome
//! unoptimized and optimized, in the reference interpreter.

use proptest::prelude::*;
use rpy_jit::interp::{run_fresh, Outcome, RunValue};
use rpy_jit::optimize::{optimize, IMPLEMENTED_PASSES};
use rpy_jit::text::{parse, print};

const CONSTS: &[i64] = &[
    0,
    1,
    -1,
    2,
    3,
    4,
    5,
    -3,
    7,
    8,
    15,
    100,
    -100,
    255,
    1 << 40,
    i64::MIN,
    i64::MAX,
];

const BINARY: &[&str] = &[
    "int_add", "int_sub", "int_mul", "int_and", "int_or", "int_xor", "int_lt", "int_le", "int_eq",
    "int_ne", "int_gt", "int_ge", "uint_lt", "uint_ge",
];
const UNARY: &[&str] = &[
    "int_neg",
    "int_invert",
    "int_is_true",
    "int_is_zero",
    "int_force_ge_zero",
    "int_abs",
    "same_as_i",
];
const SHIFT: &[&str] = &["int_lshift", "int_rshift", "uint_rshift"];
const DIV: &[&str] = &["int_floordiv", "int_mod", "int_py_div", "int_py_mod"];
const OVF: &[&str] = &["int_add_ovf", "int_sub_ovf", "int_mul_ovf"];

/// Builds a trace from random bytes: every op is well defined for all
/// inputs. The values the boxes have for `vals` (the inputs) are tracked, so
/// guards are made to pass on them (except when `c % 16 == 15`): the trace
/// runs deep on these inputs, and other inputs exercise the failing paths.
fn build(steps: &[(u8, u8, u8, u8)], vals: &[i64], loop_: bool) -> String {
    let n_inputs = vals.len();
    let mut boxes: Vec<String> = (0..n_inputs).map(|i| format!("i{i}")).collect();
    let mut values: Vec<i64> = vals.to_vec();
    let mut lines = vec![format!("[{}]", boxes.join(", "))];
    if loop_ {
        lines.push(format!("label({})", boxes.join(", ")));
    }
    let mut guards = 0;
    // an argument: a constant or a box (biased to recent ones), with its value
    let arg = |boxes: &[String], values: &[i64], sel: u8| -> (String, i64) {
        if sel.is_multiple_of(8) {
            let c = (sel as i64 / 8) % 8 - 2;
            (c.to_string(), c)
        } else if sel % 8 == 4 {
            let c = CONSTS[(sel as usize / 8) % CONSTS.len()];
            (c.to_string(), c)
        } else {
            let n = boxes.len();
            let i = if sel % 4 == 1 {
                n - 1 - (sel as usize / 4) % n.min(4)
            } else {
                sel as usize % n
            };
            (boxes[i].clone(), values[i])
        }
    };
    for &(kind, a, b, c) in steps {
        let r = format!("i{}", boxes.len());
        let (x, xv) = arg(&boxes, &values, a);
        let (y, yv) = arg(&boxes, &values, b);
        let fail = format!(
            "{}, {}, {}",
            guards,
            boxes[c as usize % boxes.len()],
            boxes[a as usize % boxes.len()]
        );
        let pass = c % 16 != 15;
        let (name, args): (&str, Vec<(String, i64)>) = match kind % 10 {
            0..=2 => (BINARY[c as usize % BINARY.len()], vec![(x, xv), (y, yv)]),
            3 => (UNARY[c as usize % UNARY.len()], vec![(x, xv)]),
            4 => (
                SHIFT[c as usize % SHIFT.len()],
                vec![(x, xv), ((b % 64).to_string(), (b % 64) as i64)],
            ),
            5 => {
                let d = [2, 3, 4, 7, 8, -2, -8, 1, 16][b as usize % 9];
                (
                    DIV[c as usize % DIV.len()],
                    vec![(x, xv), (d.to_string(), d)],
                )
            }
            6 => {
                let op = OVF[c as usize % OVF.len()];
                let res = match op {
                    "int_add_ovf" => xv.checked_add(yv),
                    "int_sub_ovf" => xv.checked_sub(yv),
                    _ => xv.checked_mul(yv),
                };
                let g = if res.is_some() == pass {
                    "guard_no_overflow"
                } else {
                    "guard_overflow"
                };
                guards += 1;
                lines.push(format!("{r} = {op}({x}, {y})"));
                lines.push(format!("{g}() [{fail}]"));
                boxes.push(r);
                values.push(res.unwrap_or(0));
                continue;
            }
            7 | 8 => {
                guards += 1;
                let i = boxes.len() - 1 - (a as usize) % boxes.len().min(3);
                let (bx, bv) = (boxes[i].clone(), values[i]);
                let g = if (bv != 0) == pass {
                    "guard_true"
                } else {
                    "guard_false"
                };
                lines.push(format!("{g}({bx}) [{fail}]"));
                continue;
            }
            _ => {
                guards += 1;
                let i = boxes.len() - 1 - (a as usize) % boxes.len().min(3);
                let v = if pass {
                    values[i]
                } else {
                    values[i].wrapping_add(1)
                };
                lines.push(format!("guard_value({}, {v}) [{fail}]", boxes[i]));
                continue;
            }
        };
        let argv: Vec<i64> = args.iter().map(|(_, v)| *v).collect();
        let v = rpy_jit::optimize::pure::fold_int(name, &argv).expect("defined");
        let texts: Vec<String> = args.into_iter().map(|(t, _)| t).collect();
        lines.push(format!("{r} = {name}({})", texts.join(", ")));
        boxes.push(r);
        values.push(v);
    }
    if loop_ {
        // the next iteration's inputs: the last boxes
        let next: Vec<String> = (0..n_inputs)
            .map(|i| boxes[boxes.len() - 1 - i].clone())
            .collect();
        lines.push(format!("jump({})", next.join(", ")));
    } else {
        lines.push(format!("finish({})", boxes.join(", ")));
    }
    lines.join("\n") + "\n"
}

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
        1 => prop::sample::select(CONSTS.to_vec()),
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
    for args in inputs {
        let args: Vec<RunValue> = args.iter().map(|v| RunValue::Int(*v)).collect();
        let before = normalize(run_fresh(&t, &args, 20));
        prop_assert!(
            !matches!(before, Outcome::Error(_)),
            "{:?}\n{}",
            before,
            src
        );
        let after = normalize(run_fresh(&again, &args, 20));
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
        let src = build(&steps, &args, false);
        check_same(&src, &[&args, &other], IMPLEMENTED_PASSES)?;
    }

    #[test]
    fn each_pass_alone_agrees(
        steps in prop::collection::vec(any::<(u8, u8, u8, u8)>(), 1..20),
        args in prop::collection::vec(input_value(), 3),
        other in prop::collection::vec(input_value(), 3),
        pass in prop::sample::select(vec!["intbounds", "rewrite", "pure", "heap", "virtualize", "pure:intbounds:rewrite", "intbounds:rewrite:pure"]),
    ) {
        let src = build(&steps, &args, false);
        check_same(&src, &[&args, &other], pass)?;
    }

    #[test]
    fn loops_agree(
        steps in prop::collection::vec(any::<(u8, u8, u8, u8)>(), 3..20),
        args in prop::collection::vec(input_value(), 3),
        other in prop::collection::vec(input_value(), 3),
    ) {
        let src = build(&steps, &args, true);
        check_same(&src, &[&args, &other], IMPLEMENTED_PASSES)?;
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
        let src = build(&steps, &args, false);
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

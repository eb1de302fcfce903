//! The x86-64 backend against the reference interpreter.

use proptest::prelude::*;
use rpy_asm::{compile, compile_checked, compile_with_registers, CompiledLoop};
use rpy_jit::interp::{run_fresh, Heap, Outcome, RunValue};
use rpy_jit::testgen::observe;
use rpy_jit::text::parse;
use rpy_jit::trace::{DescrNeed, Kind, Trace, OPS};

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
    // A trace that runs off its end cannot be written: the parser wants it
    // to end in finish or jump (issue 15).
    assert!(rpy_jit::text::parse("[i0]\ni1 = int_add(i0, 1)\n").is_err());
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

// ---- every operation, floats, memory, calls, spilling ----

/// Runs `src` on inputs given as `rpy trace --run` arguments in the
/// interpreter and as machine code (`compiled`), each on its own heap; the
/// outcomes and reachable memory must agree (`testgen::observe`).
fn check_on_heap(
    src: &str,
    inputs: &[&str],
    compiled: fn(&Trace) -> Result<CompiledLoop, String>,
) -> String {
    let trace = parse(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let code = compiled(&trace).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let observe_with = |machine: bool| {
        let mut heap = Heap::default();
        let args: Vec<String> = inputs.iter().map(|s| s.to_string()).collect();
        let values = rpy_jit::run_values(&trace, &mut heap, &args).unwrap();
        let outcome = if machine {
            code.run(&values, &mut heap, LIMIT)
        } else {
            rpy_jit::interp::run(&trace, &values, &mut heap, LIMIT)
        };
        observe(&trace, &heap, &values, &outcome)
    };
    let expected = observe_with(false);
    assert_eq!(observe_with(true), expected, "{src}\ninputs {inputs:?}");
    expected
}

const HEADER: &str = "struct s { n: Signed, x: Float, next: Ptr(s), c: Char }
class C(s)
array ints = Signed
array floats = Float
array refs = Ptr(s)
call max = int_max
call sqrt = float_sqrt
call hypot = float_hypot
call add3 = int_add3
call nop = noop
call isnull = ptr_is_null
call either = ptr_nonnull_or
";

/// One trace per operation of the table, with arguments and a descr of the
/// right kinds.
fn one_op_trace(info: &rpy_jit::trace::OpInfo) -> Option<String> {
    let name = info.name;
    // string operations run on the integer array p3 as their implied
    // array (its bytes, for str): defined, and the same in both
    let array_op = matches!(
        info.descr,
        DescrNeed::Array | DescrNeed::Str | DescrNeed::Unicode
    );
    let float_op = name.ends_with("_f");
    let ref_op = name.ends_with("_r");
    let mut args: Vec<String> = match info.args {
        "*" => match (name, info.result) {
            ("label" | "jump" | "finish", _) => return None,
            (_, Kind::Float) => vec!["f2".into()],
            (_, Kind::Void) => vec![],
            (_, Kind::Ref) => vec!["NULL".into(), "p0".into()],
            _ => vec!["i1".into(), "7".into()],
        },
        letters => letters
            .chars()
            .enumerate()
            .map(|(k, c)| match c {
                'r' if array_op && float_op => "p4".to_string(),
                'r' if array_op && ref_op => "p5".to_string(),
                'r' if array_op => "p3".to_string(),
                'r' => "p0".to_string(),
                'f' => "f2".to_string(),
                'i' if name == "guard_class" || name == "guard_nonnull_class" => {
                    "ConstClass(C)".into()
                }
                'i' if k == 0 && name.contains("raw") => "i1".into(),
                'i' => "i1".into(),
                _ if name == "guard_value" && k == 1 => "2".into(),
                _ if name.contains("arrayitem") && float_op => "f2".into(),
                _ if name.starts_with("setarrayitem") => {
                    if name.contains("raw") {
                        "0".into()
                    } else {
                        "i1".into()
                    }
                }
                _ if name == "setfield_gc" || name == "setfield_raw" => "i1".into(),
                _ => "i1".into(),
            })
            .collect(),
    };
    if name.starts_with("setarrayitem") && args.len() == 3 {
        args[2] = "i1".into();
    }
    if name.ends_with("content") {
        args = ["p3", "p3", "0", "1", "2"].map(String::from).to_vec();
    }
    let descr = match info.descr {
        DescrNeed::None => String::new(),
        DescrNeed::Field => match name {
            n if n.ends_with("_f") => ", descr=s.x".into(),
            n if n.ends_with("_r") => ", descr=s.next".into(),
            _ => ", descr=s.n".into(),
        },
        DescrNeed::Array if float_op => ", descr=floats".into(),
        DescrNeed::Array if ref_op => ", descr=refs".into(),
        DescrNeed::Array => ", descr=ints".into(),
        DescrNeed::Str | DescrNeed::Unicode => String::new(),
        DescrNeed::Size => ", descr=s".into(),
        DescrNeed::Class => ", descr=C".into(),
        DescrNeed::Call => match info.result {
            Kind::Float => ", descr=sqrt".into(),
            Kind::Void => ", descr=nop".into(),
            Kind::Ref => ", descr=either".into(),
            _ => ", descr=max".into(),
        },
    };
    let call = format!("{name}({}{descr})", args.join(", "));
    let call = call.replace("(, ", "(");
    let line = match info.result {
        Kind::Void if info.guard => format!("{call} [i1, f2, p0]\nfinish(i1)"),
        Kind::Void => format!("{call}\nfinish(i1)"),
        k => format!("{}9 = {call}\nfinish({}9)", k.prefix(), k.prefix()),
    };
    Some(format!("{HEADER}[p0, i1, f2, p3, p4, p5]\n{line}\n"))
}

#[test]
fn every_operation_of_the_table_compiles_and_agrees_with_the_interpreter() {
    let inputs = [
        "s(n=5, x=1.5, next=C(n=7), c=65)",
        "2",
        "0.5",
        "ints[10, 20, 30]",
        "floats[0.25, 2.5, -1.0]",
        "refs[s(n=1), null, C(n=3)]",
    ];
    let mut ran = 0;
    for info in OPS {
        let Some(src) = one_op_trace(info) else {
            continue;
        };
        // checked code: raw accesses at address 2 are errors, not crashes
        check_on_heap(&src, &inputs, |t| compile_checked(t));
        if !info.name.contains("raw") {
            check_on_heap(&src, &inputs, |t| compile(t));
        }
        ran += 1;
    }
    assert_eq!(
        ran,
        OPS.len() - 3,
        "label, jump and finish are tested by the loops"
    );
}

#[test]
fn float_edge_cases_agree() {
    let src = "[f0, f1]
i2 = cast_float_to_int(f0)
i3 = float_lt(f0, f1)
i4 = float_le(f0, f1)
i5 = float_eq(f0, f1)
i6 = float_ne(f0, f1)
i7 = float_gt(f0, f1)
i8 = float_ge(f0, f1)
f9 = float_truediv(f0, f1)
f10 = float_neg(f0)
f11 = float_abs(f0)
f12 = cast_int_to_float(i2)
f13 = float_sub(f0, 1e300)
guard_value(f11, 2.5) [i2, i3, i4, i5, i6, i7, i8, f9, f10, f11, f12, f13]
finish(f0)
";
    let values = [
        "0.0", "-0.0", "nan", "inf", "-inf", "1e19", "-1e19", "-0.5", "2.5", "-2.5", "9.2e18",
    ];
    for x in values {
        for y in values {
            check_on_heap(src, &[x, y], |t| compile(t));
        }
    }
}

/// A trace with `n` ints and `n` floats all live at the end, and calls in
/// between: more live values than registers, kept across calls.
fn many_live_values(n: usize) -> String {
    let mut s = String::from("call max = int_max\ncall hypot = float_hypot\n[i0, f1]\n");
    let mut finish = vec!["i0".to_string(), "f1".to_string()];
    for k in 0..n {
        let (i, f) = (2 + 2 * k, 3 + 2 * k);
        let prev_i = &finish[finish.len() - 2];
        s += &format!("i{i} = int_add({prev_i}, {k})\n");
        s += &format!("f{f} = float_mul(f1, {k}.5)\n");
        if k % 7 == 3 {
            s += &format!("i{} = call_i(i{i}, 3, descr=max)\n", 1000 + k);
            s += &format!("f{} = call_f(f{f}, f1, descr=hypot)\n", 2000 + k);
            finish.push(format!("i{}", 1000 + k));
            finish.push(format!("f{}", 2000 + k));
        }
        finish.push(format!("i{i}"));
        finish.push(format!("f{f}"));
    }
    s += &format!("guard_true(i2) [{}]\n", finish.join(", "));
    s += &format!("finish({})\n", finish.join(", "));
    s
}

#[test]
fn more_live_values_than_registers_spill_to_the_frame() {
    let src = many_live_values(40);
    check_on_heap(&src, &["5", "1.25"], |t| compile(t));
    check_on_heap(&src, &["0", "-3.5"], |t| compile(t));
    let trace = parse(&src).unwrap();
    let alloc = rpy_asm::regalloc::assign(&trace);
    assert!(alloc.homes.contains(&rpy_asm::regalloc::Home::Slot));
    // no registers at all: every box in the frame
    let none = |t: &Trace| compile_with_registers(t, &[], &[]);
    check_on_heap(&src, &["5", "1.25"], none);
    check_on_heap(SUM_ARRAY_LOOP, &["ints[1, 2, 3, 4, 5]", "0", "0"], none);
}

const SUM_ARRAY_LOOP: &str = "array ints = Signed
[p0, i0, i1]
label(p0, i0, i1)
i2 = arraylen_gc(p0, descr=ints)
i3 = int_lt(i0, i2)
guard_true(i3) [i0, i1]
i4 = getarrayitem_gc_i(p0, i0, descr=ints)
i5 = int_add(i1, i4)
i6 = int_add(i0, 1)
jump(p0, i6, i5)
";

#[test]
fn array_loops_and_bounds_errors() {
    let o = check_on_heap(SUM_ARRAY_LOOP, &["ints[1, 2, 3, 4, 5]", "0", "0"], |t| {
        compile(t)
    });
    assert!(o.contains("guard 3 failed [5, 15]"), "{o}");
    // a negative index is out of bounds, as in the interpreter
    let o = check_on_heap(SUM_ARRAY_LOOP, &["ints[1, 2]", "-1", "0"], |t| compile(t));
    assert!(
        o.contains("error index -1 out of bounds (length 2) at op 4"),
        "{o}"
    );
    check_on_heap(SUM_ARRAY_LOOP, &["null", "0", "0"], |t| compile(t));
    check_on_heap(SUM_ARRAY_LOOP, &["ints[]", "0", "0"], |t| {
        compile_checked(t)
    });
}

#[test]
fn allocation_and_escapes_share_the_interpreters_heap() {
    let src = "struct node { value: Signed, next: Ptr(node), f: Float }
class Box(node)
array nodes = Ptr(node)
[p0, i1]
label(p0, i1)
p2 = new_with_vtable(descr=Box)
setfield_gc(p2, i1, descr=node.value)
setfield_gc(p2, p0, descr=node.next)
f3 = cast_int_to_float(i1)
setfield_gc(p2, f3, descr=node.f)
p4 = new_array_clear(2, descr=nodes)
setarrayitem_gc(p4, 1, p2, descr=nodes)
p5 = getarrayitem_gc_r(p4, 1, descr=nodes)
guard_class(p5, ConstClass(Box)) [p5]
i6 = int_sub(i1, 1)
i7 = int_gt(i6, 0)
guard_true(i7) [p5, p4]
jump(p5, i6)
";
    let o = check_on_heap(src, &["node(value=100)", "3"], |t| compile(t));
    assert!(o.contains("Box(value=1, next=#"), "{o}");
    check_on_heap(src, &["null", "3"], |t| compile(t));
    // a bad array length is the interpreter's error
    let bad = "array ints = Signed\n[i0]\np1 = new_array(i0, descr=ints)\nfinish(p1)\n";
    let o = check_on_heap(bad, &["-1"], |t| compile(t));
    assert!(o.contains("error bad array length -1"), "{o}");
}

#[test]
fn checked_code_reports_stray_pointers_as_the_interpreter_does() {
    let src = "struct s { n: Signed }
[i0, i1]
i2 = getfield_raw_i(i0, descr=s.n)
setfield_raw(i0, i1, descr=s.n)
finish(i2)
";
    let o = check_on_heap(src, &["4096", "1"], |t| compile_checked(t));
    assert!(
        o.contains("error access to 0x1008 outside any object at op 0"),
        "{o}"
    );
    let o = check_on_heap(src, &["0", "1"], |t| compile_checked(t));
    assert!(o.contains("error null pointer dereference at op 0"), "{o}");
    let class = "struct s { n: Signed }\nclass C(s)\n[i0]\np1 = same_as_r(NULL)\nguard_class(p1, ConstClass(C)) [i0]\nfinish(i0)\n";
    let o = check_on_heap(class, &["1"], |t| compile_checked(t));
    assert!(o.contains("error guard_class on null at op 1"), "{o}");
}

#[test]
fn malformed_traces_are_refused_with_the_operation_named() {
    let mut trace = parse("[i0, i1]\ni2 = int_add(i0, i1)\nfinish(i2)\n").unwrap();
    trace.ops[0].args.pop();
    let e = compile(&trace).unwrap_err();
    assert!(e.contains("int_add"), "{e}");
    let mut trace =
        parse("struct s { n: Signed }\n[p0]\ni1 = getfield_gc_i(p0, descr=s.n)\nfinish(i1)\n")
            .unwrap();
    trace.ops[0].descr = None;
    let e = compile(&trace).unwrap_err();
    assert!(e.contains("getfield_gc_i"), "{e}");
}

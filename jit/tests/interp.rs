//! The reference interpreter on real memory.

use rpy_jit::interp::{run, run_fresh, Heap, Outcome, RunValue};
use rpy_jit::text::parse;
use rpy_jit::{parse_run_value, run_trace_command};

use RunValue::Int;

fn go(src: &str, args: &[RunValue]) -> Outcome {
    run_fresh(&parse(src).unwrap_or_else(|e| panic!("{e}")), args, 1000)
}

#[test]
fn arithmetic_finishes() {
    let o = go("[i0, i1]\ni2 = int_add(i0, i1)\ni3 = int_mul(i2, 3)\ni4 = int_py_mod(i3, -7)\nfinish(i3, i4)\n", &[Int(2), Int(5)]);
    assert_eq!(o, Outcome::Finished(vec![Int(21), Int(0)]));
}

#[test]
fn loop_until_guard_fails() {
    // sum 0..n with a label and a jump
    let src = "[i0, i1, i2]
label(i0, i1, i2)
i3 = int_lt(i0, i2)
guard_true(i3) [i0, i1]
i4 = int_add(i1, i0)
i5 = int_add(i0, 1)
jump(i5, i4, i2)
";
    assert_eq!(
        go(src, &[Int(0), Int(0), Int(10)]),
        Outcome::GuardFailed {
            guard: 2,
            values: vec![Int(10), Int(45)]
        }
    );
    // the iteration limit
    let t = parse(src).unwrap();
    assert_eq!(
        run_fresh(&t, &[Int(0), Int(0), Int(i64::MAX)], 5),
        Outcome::LoopLimit {
            values: vec![Int(5), Int(10), Int(i64::MAX)]
        }
    );
}

#[test]
fn overflow_guards() {
    let src = "[i0]\ni1 = int_add_ovf(i0, 1)\nguard_no_overflow() [i0]\nfinish(i1)\n";
    assert_eq!(go(src, &[Int(1)]), Outcome::Finished(vec![Int(2)]));
    assert_eq!(
        go(src, &[Int(i64::MAX)]),
        Outcome::GuardFailed {
            guard: 1,
            values: vec![Int(i64::MAX)]
        }
    );
    let src = "[i0]\ni1 = int_mul_ovf(i0, 2)\nguard_overflow() [i0]\nfinish(i1)\n";
    assert_eq!(
        go(src, &[Int(1)]),
        Outcome::GuardFailed {
            guard: 1,
            values: vec![Int(1)]
        }
    );
}

const BOXED: &str = "struct obj { intval: Signed, flag: Bool, c: Char, f: Float, next: Ptr(obj) }
class BoxedInteger(obj)
class BoxedFloat(obj)
array ints = Signed
array chars = Char
field intval = obj.intval
";

#[test]
fn objects_fields_and_classes() {
    let src = format!(
        "{BOXED}[p0]
guard_class(p0, ConstClass(BoxedInteger)) [p0]
i1 = getfield_gc_i(p0, descr=intval)
p2 = new_with_vtable(descr=BoxedInteger)
i3 = int_add(i1, -100)
setfield_gc(p2, i3, descr=intval)
setfield_gc(p2, 300, descr=obj.c)
setfield_gc(p2, 2.5, descr=obj.f)
setfield_gc(p2, p0, descr=obj.next)
p4 = getfield_gc_r(p2, descr=obj.next)
i5 = ptr_eq(p4, p0)
i6 = getfield_gc_i(p2, descr=obj.c)
f7 = getfield_gc_f(p2, descr=obj.f)
guard_class(p2, ConstClass(BoxedFloat)) [i3, i5, i6, f7]
finish()
"
    );
    let t = parse(&src).unwrap();
    let mut heap = Heap::default();
    let p = parse_run_value(
        &t,
        &mut heap,
        "BoxedInteger(intval=142)",
        rpy_jit::trace::Kind::Ref,
    )
    .unwrap();
    let o = run(&t, &[p], &mut heap, 10);
    assert_eq!(
        o,
        Outcome::GuardFailed {
            guard: 12,
            values: vec![Int(42), Int(1), Int(44), RunValue::Float(2.5)]
        }
    );
    // the wrong class fails the first guard
    let q = parse_run_value(
        &t,
        &mut heap,
        "BoxedFloat(intval=1)",
        rpy_jit::trace::Kind::Ref,
    )
    .unwrap();
    assert!(matches!(
        run(&t, &[q], &mut heap, 10),
        Outcome::GuardFailed { guard: 0, .. }
    ));
    // a plain struct has its struct's type id, not a class's
    let r = parse_run_value(&t, &mut heap, "obj(intval=1)", rpy_jit::trace::Kind::Ref).unwrap();
    assert!(matches!(
        run(&t, &[r], &mut heap, 10),
        Outcome::GuardFailed { guard: 0, .. }
    ));
}

#[test]
fn arrays_gc_and_raw() {
    let src = format!(
        "{BOXED}[p0, i1]
i2 = arraylen_gc(p0, descr=ints)
i3 = getarrayitem_gc_i(p0, i1, descr=ints)
p4 = new_array(i2, descr=chars)
setarrayitem_gc(p4, 0, 65, descr=chars)
i5 = getarrayitem_gc_i(p4, 0, descr=chars)
finish(i2, i3, i5)
"
    );
    let t = parse(&src).unwrap();
    let mut heap = Heap::default();
    let a = parse_run_value(&t, &mut heap, "ints[5, 6, 7]", rpy_jit::trace::Kind::Ref).unwrap();
    assert_eq!(
        run(&t, &[a, Int(2)], &mut heap, 10),
        Outcome::Finished(vec![Int(3), Int(7), Int(65)])
    );
    let o = run(&t, &[a, Int(3)], &mut heap, 10);
    assert!(
        matches!(&o, Outcome::Error(e) if e.contains("out of bounds")),
        "{o:?}"
    );
    // raw: items from the address, no header
    let raw = "array ints = Signed\n[i0]\nsetarrayitem_raw(i0, 1, 9, descr=ints)\ni1 = getarrayitem_raw_i(i0, 1, descr=ints)\nfinish(i1)\n";
    let t = parse(raw).unwrap();
    let mut heap = Heap::default();
    let p = heap.alloc(64, 8).unwrap();
    assert_eq!(
        run(&t, &[Int(p as i64)], &mut heap, 10),
        Outcome::Finished(vec![Int(9)])
    );
    // a raw address outside every object is an error, not a crash
    assert!(matches!(
        run(&t, &[Int(8)], &mut heap, 10),
        Outcome::Error(_)
    ));
}

#[test]
fn null_and_bad_pointers_are_errors() {
    let src = format!("{BOXED}[p0]\ni1 = getfield_gc_i(p0, descr=intval)\nfinish(i1)\n");
    let o = go(&src, &[RunValue::Ref(0)]);
    assert!(
        matches!(&o, Outcome::Error(e) if e.contains("null")),
        "{o:?}"
    );
    let o = go(&src, &[RunValue::Ref(16)]);
    assert!(matches!(o, Outcome::Error(_)));
    let o = go("[i0]\ni1 = int_floordiv(i0, 0)\nfinish(i1)\n", &[Int(1)]);
    assert!(matches!(o, Outcome::Error(_)));
}

#[test]
fn native_calls() {
    let src = "call max = int_max\ncall sqrt = float_sqrt\ncall add3 = int_add3\n[i0, i1, f2]
i3 = call_i(i0, i1, descr=max)
f4 = call_pure_f(f2, descr=sqrt)
i5 = call_may_force_i(i3, i3, 1, descr=add3)
guard_not_forced() []
guard_no_exception() []
finish(i5, f4)
";
    assert_eq!(
        go(src, &[Int(3), Int(8), RunValue::Float(16.0)]),
        Outcome::Finished(vec![Int(17), RunValue::Float(4.0)])
    );
}

#[test]
fn trace_command() {
    let dir = std::env::temp_dir().join(format!("rpy-jit-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("t.trace");
    std::fs::write(
        &f,
        "[i0]\ni1 = int_add(i0, 0)\ni2 = int_mul(i1, 4)\nfinish(i2)\n",
    )
    .unwrap();
    let f = f.to_str().unwrap();
    let out = run_trace_command(f, Some("default"), Some(vec!["5".into()])).unwrap();
    assert_eq!(
        out,
        "[i0]\ni2 = int_lshift(i0, 2)\nfinish(i2)\nfinished: [20]\n"
    );
    let out = run_trace_command(f, None, None).unwrap();
    assert_eq!(
        out,
        "[i0]\ni1 = int_add(i0, 0)\ni2 = int_mul(i1, 4)\nfinish(i2)\n"
    );
    assert!(run_trace_command(f, Some("nosuch"), None)
        .unwrap_err()
        .contains("unknown optimization"));
    std::fs::write(dir.join("bad.trace"), "[i0]\ni1 = int_add(i0)\n").unwrap();
    let e = run_trace_command(dir.join("bad.trace").to_str().unwrap(), None, None).unwrap_err();
    assert!(
        e.ends_with("bad.trace:2:6: 'int_add' takes 2 argument(s), not 1"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

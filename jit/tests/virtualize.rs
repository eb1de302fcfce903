//! `virtualize`: allocation removal, text in / text out, and the outcome
//! of the optimized trace against the unoptimized one.

use rpy_jit::interp::{run, Heap, Outcome, RunValue};
use rpy_jit::optimize::optimize;
use rpy_jit::parse_run_value;
use rpy_jit::text::{parse, print, print_header};
use rpy_jit::trace::Kind;

const HEADER: &str = "struct obj { intval: Signed, f: Float, next: Ptr(obj), c: Char }
class BoxedInteger(obj)
class BoxedFloat(obj)
array ints = Signed
field intval = obj.intval
";

fn check_with(passes: &str, body: &str, expected: &str) {
    let t = parse(&format!("{HEADER}{body}")).unwrap_or_else(|e| panic!("input: {e}"));
    let out = optimize(&t, passes).unwrap_or_else(|e| panic!("{e}"));
    let got = print(&out);
    let exp = parse(&format!("{}\n{expected}", print_header(&t.header)))
        .unwrap_or_else(|e| panic!("expected: {e}"));
    assert_eq!(got, print(&exp), "\n--- got\n{got}");
}

fn check(body: &str, expected: &str) {
    check_with("virtualize", body, expected);
}

#[test]
fn unused_allocation_disappears() {
    check(
        "[i0]\np1 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p1, i0, descr=intval)\ni2 = getfield_gc_i(p1, descr=intval)\nfinish(i2)",
        "[i0]\nfinish(i0)",
    );
}

#[test]
fn unset_fields_read_zero() {
    check(
        "[]\np1 = new(descr=obj)\ni2 = getfield_gc_i(p1, descr=intval)\nf3 = getfield_gc_f(p1, descr=obj.f)\np4 = getfield_gc_r(p1, descr=obj.next)\nfinish(i2, f3, p4)",
        "[]\nfinish(0, 0.0, ConstPtr(null))",
    );
}

#[test]
fn guards_on_virtuals_are_decided() {
    check(
        "[i0]\np1 = new_with_vtable(descr=BoxedInteger)\nguard_class(p1, ConstClass(BoxedInteger)) []\nguard_nonnull(p1) []\ni2 = ptr_eq(p1, p1)\ni3 = ptr_ne(p1, ConstPtr(null))\nfinish(i2, i3)",
        "[i0]\nfinish(1, 1)",
    );
}

#[test]
fn escaping_forces_with_current_fields() {
    check(
        "call f = ptr_is_null\n[i0]\np1 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p1, i0, descr=intval)\nsetfield_gc(p1, 5, descr=intval)\ni2 = call_i(p1, descr=f)\nfinish(i2)",
        "[i0]\np1 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p1, 5, descr=intval)\ni2 = call_i(p1, descr=f)\nfinish(i2)",
    );
}

#[test]
fn nested_virtuals_force_inner_first() {
    check(
        "[i0]\np1 = new(descr=obj)\np2 = new(descr=obj)\nsetfield_gc(p2, i0, descr=intval)\nsetfield_gc(p1, p2, descr=obj.next)\nfinish(p1)",
        "[i0]\np1 = new(descr=obj)\np2 = new(descr=obj)\nsetfield_gc(p2, i0, descr=intval)\nsetfield_gc(p1, p2, descr=obj.next)\nfinish(p1)",
    );
    // a cycle
    check(
        "[]\np1 = new(descr=obj)\nsetfield_gc(p1, p1, descr=obj.next)\nfinish(p1)",
        "[]\np1 = new(descr=obj)\nsetfield_gc(p1, p1, descr=obj.next)\nfinish(p1)",
    );
}

#[test]
fn store_into_real_object_escapes() {
    check(
        "[p0, i1]\np2 = new(descr=obj)\nsetfield_gc(p2, i1, descr=intval)\nsetfield_gc(p0, p2, descr=obj.next)\nfinish()",
        "[p0, i1]\np2 = new(descr=obj)\nsetfield_gc(p2, i1, descr=intval)\nsetfield_gc(p0, p2, descr=obj.next)\nfinish()",
    );
}

#[test]
fn guard_fail_args_describe_virtuals() {
    check(
        "[i0]\np1 = new(descr=obj)\nsetfield_gc(p1, i0, descr=intval)\ni2 = int_gt(i0, 0)\nguard_true(i2) [p1]\nfinish()",
        "[i0]\ni2 = int_gt(i0, 0)\nguard_true(i2) [p1] virtual p1 = new(descr=obj) {intval: i0}\nfinish()",
    );
}

#[test]
fn virtual_arrays() {
    check(
        "[i0]\np1 = new_array(3, descr=ints)\nsetarrayitem_gc(p1, 1, i0, descr=ints)\ni2 = getarrayitem_gc_i(p1, 1, descr=ints)\ni3 = getarrayitem_gc_i(p1, 2, descr=ints)\ni4 = arraylen_gc(p1, descr=ints)\nfinish(i2, i3, i4)",
        "[i0]\nfinish(i0, 0, 3)",
    );
    // a variable index forces
    check(
        "[i0]\np1 = new_array(2, descr=ints)\nsetarrayitem_gc(p1, 0, 7, descr=ints)\ni2 = getarrayitem_gc_i(p1, i0, descr=ints)\nfinish(i2)",
        "[i0]\np1 = new_array(2, descr=ints)\nsetarrayitem_gc(p1, 0, 7, descr=ints)\ni2 = getarrayitem_gc_i(p1, i0, descr=ints)\nfinish(i2)",
    );
}

/// The trace of the escape-analysis article (PyPy blog, 2010): the loop of
/// `f(y)` with BoxedInteger arithmetic.
const BLOG_TRACE: &str = "[p0, p1]
guard_class(p1, ConstClass(BoxedInteger))
i2 = getfield_gc_i(p1, descr=intval)
guard_class(p0, ConstClass(BoxedInteger))
i3 = getfield_gc_i(p0, descr=intval)
i4 = int_add(i2, i3)
p5 = new_with_vtable(descr=BoxedInteger)
setfield_gc(p5, i4, descr=intval)
p6 = new_with_vtable(descr=BoxedInteger)
setfield_gc(p6, -100, descr=intval)
guard_class(p5, ConstClass(BoxedInteger))
i7 = getfield_gc_i(p5, descr=intval)
guard_class(p6, ConstClass(BoxedInteger))
i8 = getfield_gc_i(p6, descr=intval)
i9 = int_add(i7, i8)
p10 = new_with_vtable(descr=BoxedInteger)
setfield_gc(p10, i9, descr=intval)
p11 = new_with_vtable(descr=BoxedInteger)
setfield_gc(p11, -1, descr=intval)
guard_class(p0, ConstClass(BoxedInteger))
i12 = getfield_gc_i(p0, descr=intval)
guard_class(p11, ConstClass(BoxedInteger))
i13 = getfield_gc_i(p11, descr=intval)
i14 = int_add(i12, i13)
p15 = new_with_vtable(descr=BoxedInteger)
setfield_gc(p15, i14, descr=intval)
guard_class(p15, ConstClass(BoxedInteger))
i16 = getfield_gc_i(p15, descr=intval)
i17 = int_gt(i16, 0)
guard_true(i17)
jump(p15, p10)
";

#[test]
fn blog_example_matches_the_article() {
    // exactly the optimized trace the article shows: 2 allocations of 5,
    // 3 guard_class of 7
    check(
        BLOG_TRACE,
        "[p0, p1]
guard_class(p1, ConstClass(BoxedInteger))
i2 = getfield_gc_i(p1, descr=intval)
guard_class(p0, ConstClass(BoxedInteger))
i3 = getfield_gc_i(p0, descr=intval)
i4 = int_add(i2, i3)
i9 = int_add(i4, -100)
guard_class(p0, ConstClass(BoxedInteger))
i12 = getfield_gc_i(p0, descr=intval)
i14 = int_add(i12, -1)
i17 = int_gt(i14, 0)
guard_true(i17)
p15 = new_with_vtable(descr=BoxedInteger)
setfield_gc(p15, i14, descr=intval)
p10 = new_with_vtable(descr=BoxedInteger)
setfield_gc(p10, i9, descr=intval)
jump(p15, p10)",
    );
}

#[test]
fn blog_example_runs_the_same() {
    // with fail args on the loop's exit, to compare what the runs computed
    let src = BLOG_TRACE.replace("guard_true(i17)", "guard_true(i17) [i14, i9, p0]");
    let t = parse(&format!("{HEADER}{src}")).unwrap();
    for passes in ["virtualize", "intbounds:rewrite:virtualize:pure"] {
        let o = optimize(&t, passes).unwrap();
        for y in [0i64, 1, 5, 50] {
            let mut h1 = Heap::default();
            let res = parse_run_value(&t, &mut h1, "BoxedInteger(intval=0)", Kind::Ref).unwrap();
            let yv = parse_run_value(&t, &mut h1, &format!("BoxedInteger(intval={y})"), Kind::Ref)
                .unwrap();
            let before = run(&t, &[yv, res], &mut h1, 1000);
            let mut h2 = Heap::default();
            let res = parse_run_value(&o, &mut h2, "BoxedInteger(intval=0)", Kind::Ref).unwrap();
            let yv = parse_run_value(&o, &mut h2, &format!("BoxedInteger(intval={y})"), Kind::Ref)
                .unwrap();
            let after = run(&o, &[yv, res], &mut h2, 1000);
            // the loop leaves when y reaches 0, with the same sums
            let (Outcome::GuardFailed { values: b, .. }, Outcome::GuardFailed { values: a, .. }) =
                (&before, &after)
            else {
                panic!("{before:?} {after:?}");
            };
            assert_eq!(b[..2], a[..2]);
            // res = sum over y..1 of (y - 100)
            if y > 0 {
                let expect: i64 = (1..=y).map(|k| k - 100).sum();
                assert_eq!(b[1], RunValue::Int(expect));
            }
        }
    }
}

#[test]
fn label_forces_everything() {
    check(
        "[i0]\np1 = new(descr=obj)\nsetfield_gc(p1, i0, descr=intval)\nlabel(i0)\ni2 = getfield_gc_i(p1, descr=intval)\ni3 = int_add(i2, 1)\njump(i3)",
        "[i0]\np1 = new(descr=obj)\nsetfield_gc(p1, i0, descr=intval)\nlabel(i0)\ni2 = getfield_gc_i(p1, descr=intval)\ni3 = int_add(i2, 1)\njump(i3)",
    );
}

#[test]
fn one_byte_fields_truncate() {
    // a store into a Char field keeps the low byte
    check(
        "[]\np1 = new(descr=obj)\nsetfield_gc(p1, 300, descr=obj.c)\ni2 = getfield_gc_i(p1, descr=obj.c)\nfinish(i2)",
        "[]\nfinish(44)",
    );
    // a box cannot be truncated in the trace: the object escapes
    check(
        "[i0]\np1 = new(descr=obj)\nsetfield_gc(p1, i0, descr=obj.c)\ni2 = getfield_gc_i(p1, descr=obj.c)\nfinish(i2)",
        "[i0]\np1 = new(descr=obj)\nsetfield_gc(p1, i0, descr=obj.c)\ni2 = getfield_gc_i(p1, descr=obj.c)\nfinish(i2)",
    );
}

// ---- heap

fn check_heap(body: &str, expected: &str) {
    check_with("heap", body, expected);
}

#[test]
fn heap_caches_reads() {
    check_heap(
        "[p0]\ni1 = getfield_gc_i(p0, descr=intval)\ni2 = getfield_gc_i(p0, descr=obj.intval)\nfinish(i1, i2)",
        "[p0]\ni1 = getfield_gc_i(p0, descr=intval)\nfinish(i1, i1)",
    );
    // a store is read back
    check_heap(
        "[p0, i1]\nsetfield_gc(p0, i1, descr=intval)\ni2 = getfield_gc_i(p0, descr=intval)\nfinish(i2)",
        "[p0, i1]\nsetfield_gc(p0, i1, descr=intval)\nfinish(i1)",
    );
}

#[test]
fn heap_removes_redundant_stores() {
    check_heap(
        "[p0, i1]\nsetfield_gc(p0, i1, descr=intval)\nsetfield_gc(p0, i1, descr=intval)\nfinish()",
        "[p0, i1]\nsetfield_gc(p0, i1, descr=intval)\nfinish()",
    );
    check_heap(
        "[p0]\ni1 = getfield_gc_i(p0, descr=intval)\nsetfield_gc(p0, i1, descr=intval)\nfinish(i1)",
        "[p0]\ni1 = getfield_gc_i(p0, descr=intval)\nfinish(i1)",
    );
}

#[test]
fn heap_invalidates_on_aliasing_stores_and_calls() {
    // p1 may be p0
    check_heap(
        "[p0, p1]\ni2 = getfield_gc_i(p0, descr=intval)\nsetfield_gc(p1, 5, descr=intval)\ni3 = getfield_gc_i(p0, descr=intval)\nfinish(i2, i3)",
        "[p0, p1]\ni2 = getfield_gc_i(p0, descr=intval)\nsetfield_gc(p1, 5, descr=intval)\ni3 = getfield_gc_i(p0, descr=intval)\nfinish(i2, i3)",
    );
    // another field does not matter
    check_heap(
        "[p0, p1]\ni2 = getfield_gc_i(p0, descr=intval)\nsetfield_gc(p1, 5.0, descr=obj.f)\ni3 = getfield_gc_i(p0, descr=intval)\nfinish(i2, i3)",
        "[p0, p1]\ni2 = getfield_gc_i(p0, descr=intval)\nsetfield_gc(p1, 5.0, descr=obj.f)\nfinish(i2, i2)",
    );
    // a call may write anything
    check_heap(
        "call n = noop\n[p0]\ni1 = getfield_gc_i(p0, descr=intval)\ncall_n(descr=n)\ni2 = getfield_gc_i(p0, descr=intval)\nfinish(i1, i2)",
        "[p0]\ni1 = getfield_gc_i(p0, descr=intval)\ncall_n(descr=n)\ni2 = getfield_gc_i(p0, descr=intval)\nfinish(i1, i2)",
    );
}

#[test]
fn heap_arrays() {
    check_heap(
        "[p0, i1]\nsetarrayitem_gc(p0, 0, i1, descr=ints)\ni2 = getarrayitem_gc_i(p0, 0, descr=ints)\ni3 = getarrayitem_gc_i(p0, 1, descr=ints)\ni4 = arraylen_gc(p0, descr=ints)\ni5 = arraylen_gc(p0, descr=ints)\nfinish(i2, i3, i4, i5)",
        // the store waits: the reads at index 1 and of the length cannot see it
        "[p0, i1]\ni3 = getarrayitem_gc_i(p0, 1, descr=ints)\ni4 = arraylen_gc(p0, descr=ints)\nsetarrayitem_gc(p0, 0, i1, descr=ints)\nfinish(i1, i3, i4, i4)",
    );
    // a store at an unknown index forgets every item
    check_heap(
        "[p0, i1]\ni2 = getarrayitem_gc_i(p0, 0, descr=ints)\nsetarrayitem_gc(p0, i1, 7, descr=ints)\ni3 = getarrayitem_gc_i(p0, 0, descr=ints)\nfinish(i2, i3)",
        "[p0, i1]\ni2 = getarrayitem_gc_i(p0, 0, descr=ints)\nsetarrayitem_gc(p0, i1, 7, descr=ints)\ni3 = getarrayitem_gc_i(p0, 0, descr=ints)\nfinish(i2, i3)",
    );
}

#[test]
fn heap_one_byte_stores_are_not_recorded() {
    check_heap(
        "[p0]\nsetfield_gc(p0, 300, descr=obj.c)\ni1 = getfield_gc_i(p0, descr=obj.c)\nfinish(i1)",
        "[p0]\nsetfield_gc(p0, 300, descr=obj.c)\ni1 = getfield_gc_i(p0, descr=obj.c)\nfinish(i1)",
    );
}

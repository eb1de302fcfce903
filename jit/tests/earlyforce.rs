//! `earlyforce`: the virtual objects an operation makes escape are forced
//! after `virtualize`, except through a `same_as`, which is the object
//! itself. Text in / text out, and each case run unoptimized against
//! optimized (outcome and the objects reachable afterwards).

use rpy_jit::interp::{run, Heap, Outcome, RunValue};
use rpy_jit::optimize::{optimize, IMPLEMENTED_PASSES};
use rpy_jit::parse_run_value;
use rpy_jit::testgen::observe;
use rpy_jit::text::{parse, print, print_header};
use rpy_jit::trace::Opcode;
use rpy_jit::trace::Trace;

const HEADER: &str = "struct obj { intval: Signed, next: Ptr(obj) }
class BoxedInteger(obj)
field intval = obj.intval
field next = obj.next
call isnull = ptr_is_null
";

/// How a run of `t` on `args` ends, with the guard's index left out (it
/// moves when operations go).
fn observe_run(t: &Trace, args: &str) -> String {
    let mut heap = Heap::default();
    let vals: Vec<RunValue> = args
        .split_whitespace()
        .zip(&t.inputs)
        .map(|(a, b)| parse_run_value(t, &mut heap, a, t.boxes[*b].kind).unwrap())
        .collect();
    let outcome = match run(t, &vals, &mut heap, 100) {
        Outcome::GuardFailed { values, .. } => Outcome::GuardFailed { guard: 0, values },
        o => o,
    };
    assert!(
        matches!(outcome, Outcome::Finished(_) | Outcome::GuardFailed { .. }),
        "{outcome:?}"
    );
    observe(t, &heap, &vals, &outcome)
}

/// Optimizes `body` with `passes`, compares with `expected`, and runs both
/// on each of `runs`.
fn check(passes: &str, body: &str, expected: &str, runs: &[&str]) {
    let t = parse(&format!("{HEADER}{body}")).unwrap_or_else(|e| panic!("input: {e}"));
    let out = optimize(&t, passes).unwrap_or_else(|e| panic!("{e}"));
    let got = print(&out);
    let exp = parse(&format!("{}\n{expected}", print_header(&t.header)))
        .unwrap_or_else(|e| panic!("expected: {e}"));
    assert_eq!(got, print(&exp), "\n--- {passes}\n{got}");
    let again = parse(&got).unwrap();
    for args in runs {
        assert_eq!(
            observe_run(&t, args),
            observe_run(&again, args),
            "inputs {args}"
        );
    }
}

/// A BoxedInteger copied by `same_as` and read back.
const COPY_READ: &str = "[i0]
p1 = new_with_vtable(descr=BoxedInteger)
setfield_gc(p1, i0, descr=intval)
p2 = same_as_r(p1)
i3 = getfield_gc_i(p2, descr=intval)
finish(i3)";

#[test]
fn a_same_as_keeps_the_object_virtual() {
    check(
        "virtualize:earlyforce:pure",
        COPY_READ,
        "[i0]\nfinish(i0)",
        &["5"],
    );
    // without earlyforce, virtualize forces the object at the same_as
    check(
        "virtualize:pure",
        COPY_READ,
        "[i0]\np1 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p1, i0, descr=intval)\ni3 = getfield_gc_i(p1, descr=intval)\nfinish(i3)",
        &["5"],
    );
}

#[test]
fn a_same_as_keeps_the_object_virtual_without_pure() {
    check(
        "virtualize:earlyforce",
        COPY_READ,
        "[i0]\nfinish(i0)",
        &["-2"],
    );
}

#[test]
fn the_copy_escapes_once() {
    // the object escapes through the copy: one allocation, at the call
    check(
        "virtualize:earlyforce:pure:heap",
        "[i0]\np1 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p1, i0, descr=intval)\np2 = same_as_r(p1)\ni3 = call_i(p2, descr=isnull)\ni4 = getfield_gc_i(p1, descr=intval)\nfinish(i3, i4)",
        "[i0]\np1 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p1, i0, descr=intval)\ni3 = call_i(p1, descr=isnull)\ni4 = getfield_gc_i(p1, descr=intval)\nfinish(i3, i4)",
        &["7"],
    );
}

#[test]
fn escaping_arguments_are_forced_before_the_operation() {
    // the store into a real object makes the virtual escape; heap, after
    // earlyforce, sees the forced object's store and answers the read
    check(
        "virtualize:earlyforce:heap",
        "[p0, i1]\np2 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p2, i1, descr=intval)\nsetfield_gc(p0, p2, descr=next)\np3 = getfield_gc_r(p0, descr=next)\ni4 = getfield_gc_i(p3, descr=intval)\nfinish(i4)",
        "[p0, i1]\np2 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p2, i1, descr=intval)\nsetfield_gc(p0, p2, descr=next)\nfinish(i1)",
        &["BoxedInteger(intval=3) 9"],
    );
}

#[test]
fn fail_args_are_described_not_forced() {
    check(
        "virtualize:earlyforce",
        "[i0]\np1 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p1, i0, descr=intval)\ni2 = int_lt(i0, 10)\nguard_true(i2) [p1]\nfinish(i0)",
        "[i0]\ni2 = int_lt(i0, 10)\nguard_true(i2) [p1] virtual p1 = new_with_vtable(descr=BoxedInteger) {intval: i0}\nfinish(i0)",
        &["3", "12"],
    );
}

#[test]
fn nested_virtuals_are_forced_inner_first() {
    check(
        "virtualize:earlyforce",
        "[i0]\np1 = new(descr=obj)\np2 = new(descr=obj)\nsetfield_gc(p2, i0, descr=intval)\nsetfield_gc(p1, p2, descr=next)\ni3 = call_i(p1, descr=isnull)\nfinish(i3)",
        "[i0]\np1 = new(descr=obj)\np2 = new(descr=obj)\nsetfield_gc(p2, i0, descr=intval)\nsetfield_gc(p1, p2, descr=next)\ni3 = call_i(p1, descr=isnull)\nfinish(i3)",
        &["4"],
    );
}

#[test]
fn without_virtualize_before_it_nothing_changes() {
    let body = "[i0]\np1 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p1, i0, descr=intval)\np2 = same_as_r(p1)\ni3 = call_i(p2, descr=isnull)\nfinish(i3)";
    check("earlyforce", body, body, &["1"]);
    // before virtualize, it sees no virtual object: the same as virtualize alone
    let t = parse(&format!("{HEADER}{body}")).unwrap();
    assert_eq!(
        print(&optimize(&t, "earlyforce:virtualize").unwrap()),
        print(&optimize(&t, "virtualize").unwrap())
    );
}

/// A boxed counter whose object is copied by `same_as` each iteration.
const LOOP: &str = "[p0]\nlabel(p0)\np1 = same_as_r(p0)\ni2 = getfield_gc_i(p1, descr=intval)\ni3 = int_add(i2, 1)\ni4 = int_lt(i3, 10)\nguard_true(i4) [i3]\np5 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p5, i3, descr=intval)\np6 = same_as_r(p5)\njump(p6)";

#[test]
fn a_copied_object_stays_virtual_across_the_back_edge() {
    // with the whole pipeline the copy is the object, which the peeled loop
    // passes field by field
    check(
        IMPLEMENTED_PASSES,
        LOOP,
        "[p0]\ni2 = getfield_gc_i(p0, descr=intval)\ni3 = int_add(i2, 1)\ni4 = int_lt(i3, 10)\nguard_true(i4) [i3]\nlabel(i3)\ni11 = int_add(i3, 1)\ni12 = int_lt(i11, 10)\nguard_true(i12) [i11]\njump(i11)",
        &["BoxedInteger(intval=0)", "BoxedInteger(intval=20)"],
    );
    // without earlyforce the copy forces the object: allocated every time
    let t = parse(&format!("{HEADER}{LOOP}")).unwrap();
    let out = optimize(&t, "intbounds:rewrite:virtualize:pure:heap:unroll").unwrap();
    let allocations = out
        .ops
        .iter()
        .filter(|op| op.opcode == Opcode::NewWithVtable)
        .count();
    assert_eq!(allocations, 2, "{}", print(&out));
}

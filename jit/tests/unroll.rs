//! `unroll`: loop peeling, text in / text out. Every case also runs the
//! unoptimized and the optimized trace on a few inputs: both must end the
//! same way (the failing guard's values, or the finish values) and leave
//! the same objects reachable from the inputs and the values.

use rpy_jit::interp::{run, Heap, Outcome, RunValue};
use rpy_jit::optimize::optimize;
use rpy_jit::parse_run_value;
use rpy_jit::testgen::observe;
use rpy_jit::text::{parse, print, print_header};
use rpy_jit::trace::Opcode;
use rpy_jit::trace::Trace;

const HEADER: &str = "struct obj { intval: Signed, next: Ptr(obj), c: Char, f: Float }
class BoxedInteger(obj)
class Other(obj)
array ints = Signed
field intval = obj.intval
field next = obj.next
call max = int_max
call isnull = ptr_is_null
";

/// Loop iterations a run may take; every run of these cases leaves the
/// loop before, through a guard.
const LIMIT: u64 = 1000;

/// The default pipeline without `unroll`, and with it.
const CHAIN: &str = "intbounds:rewrite:virtualize:earlyforce:pure:heap";
const UNROLL: &str = "intbounds:rewrite:virtualize:earlyforce:pure:heap:unroll";

/// How a run of `t` on `args` (space-separated, as `rpy trace --run` reads
/// them) ends, and the objects reachable afterwards (`testgen::observe`),
/// with the guard's index left out (it moves when operations go).
fn run_case(t: &Trace, args: &str) -> String {
    let mut heap = Heap::default();
    let vals: Vec<RunValue> = args
        .split_whitespace()
        .zip(&t.inputs)
        .map(|(a, b)| parse_run_value(t, &mut heap, a, t.boxes[*b].kind).unwrap())
        .collect();
    assert_eq!(vals.len(), t.inputs.len(), "arguments {args}");
    let outcome = match run(t, &vals, &mut heap, LIMIT) {
        Outcome::GuardFailed { values, .. } => Outcome::GuardFailed { guard: 0, values },
        o @ Outcome::Finished(_) => o,
        o => panic!("the case must leave its loop: {o:?}\n{}", print(t)),
    };
    observe(t, &heap, &vals, &outcome)
}

fn check_runs(before: &Trace, after: &Trace, runs: &[&str]) {
    for args in runs {
        assert_eq!(
            run_case(before, args),
            run_case(after, args),
            "\ninputs {args}\n--- optimized\n{}",
            print(after)
        );
    }
}

/// Optimizes `body` (after the common header) with `passes`, compares the
/// result with `expected` and runs both on `runs`.
fn check_with(passes: &str, body: &str, expected: &str, runs: &[&str]) -> Trace {
    let t = parse(&format!("{HEADER}{body}")).unwrap_or_else(|e| panic!("input: {e}"));
    let out = optimize(&t, passes).unwrap_or_else(|e| panic!("{e}"));
    let got = print(&out);
    let again = parse(&got).unwrap_or_else(|e| panic!("printed: {e}\n{got}"));
    check_runs(&t, &again, runs);
    let exp = parse(&format!("{}\n{expected}", print_header(&t.header)))
        .unwrap_or_else(|e| panic!("expected: {e}"));
    assert_eq!(got, print(&exp), "\n--- got\n{got}");
    again
}

fn check(body: &str, expected: &str, runs: &[&str]) -> Trace {
    check_with(UNROLL, body, expected, runs)
}

fn count(t: &Trace, name: &str) -> usize {
    t.ops.iter().filter(|op| op.name() == name).count()
}

/// The operations after the (last) label.
fn loop_body(t: &Trace) -> Vec<&'static str> {
    let at = t
        .ops
        .iter()
        .rposition(|op| op.opcode == Opcode::Label)
        .unwrap();
    t.ops[at + 1..].iter().map(|op| op.name()).collect()
}

// ---- traces that do not loop

#[test]
fn finish_trace_is_optimized_as_without_unroll() {
    let body = "[i0, p1]\ni2 = int_add(i0, 0)\ni3 = getfield_gc_i(p1, descr=intval)\ni4 = getfield_gc_i(p1, descr=intval)\ni5 = int_add(i3, i4)\nfinish(i2, i5)";
    let t = parse(&format!("{HEADER}{body}")).unwrap();
    let a = print(&optimize(&t, UNROLL).unwrap());
    let b = print(&optimize(&t, CHAIN).unwrap());
    assert_eq!(a, b);
    check(
        body,
        "[i0, p1]\ni3 = getfield_gc_i(p1, descr=intval)\ni5 = int_lshift(i3, 1)\nfinish(i0, i5)",
        &["3 Other(intval=4)"],
    );
}

// ---- loop-invariant code motion

#[test]
fn invariant_pure_op_is_computed_once() {
    check(
        "[i0, i1]\nlabel(i0, i1)\ni2 = int_mul(i1, 3)\ni3 = int_add(i0, i2)\ni4 = int_lt(i3, 100)\nguard_true(i4) [i3]\njump(i3, i1)",
        "[i0, i1]\ni2 = int_mul(i1, 3)\ni3 = int_add(i0, i2)\ni4 = int_lt(i3, 100)\nguard_true(i4) [i3]\nlabel(i3, i2)\ni7 = int_add(i3, i2)\ni8 = int_lt(i7, 100)\nguard_true(i8) [i7]\njump(i7, i2)",
        &["0 5", "7 1", "200 1", "5 2"],
    );
}

#[test]
fn invariant_guard_is_checked_once() {
    check(
        "[i0, i1]\nlabel(i0, i1)\ni2 = int_gt(i1, 0)\nguard_true(i2) [i0, i1]\ni3 = int_add(i0, i1)\ni4 = int_lt(i3, 50)\nguard_true(i4) [i3]\njump(i3, i1)",
        "[i0, i1]\ni2 = int_gt(i1, 0)\nguard_true(i2) [i0, i1]\ni3 = int_add(i0, i1)\ni4 = int_lt(i3, 50)\nguard_true(i4) [i3]\nlabel(i3, i1)\ni7 = int_add(i3, i1)\ni8 = int_lt(i7, 50)\nguard_true(i8) [i7]\njump(i7, i1)",
        &["0 5", "0 0", "10 7"],
    );
}

#[test]
fn invariant_class_guard_is_checked_once() {
    check(
        "[p0, i1]\nlabel(p0, i1)\nguard_class(p0, ConstClass(BoxedInteger)) [i1]\ni2 = int_add(i1, 1)\ni3 = int_lt(i2, 20)\nguard_true(i3) [i2]\njump(p0, i2)",
        "[p0, i1]\nguard_class(p0, ConstClass(BoxedInteger)) [i1]\ni2 = int_add(i1, 1)\ni3 = int_lt(i2, 20)\nguard_true(i3) [i2]\nlabel(i2)\ni5 = int_add(i2, 1)\ni6 = int_lt(i5, 20)\nguard_true(i6) [i5]\njump(i5)",
        &["BoxedInteger(intval=1) 0", "Other(intval=1) 0"],
    );
}

#[test]
fn invariant_field_read_is_done_once() {
    check(
        "[p0, i1]\nlabel(p0, i1)\ni2 = getfield_gc_i(p0, descr=intval)\ni3 = int_add(i1, i2)\ni4 = int_lt(i3, 100)\nguard_true(i4) [i3]\njump(p0, i3)",
        "[p0, i1]\ni2 = getfield_gc_i(p0, descr=intval)\ni3 = int_add(i1, i2)\ni4 = int_lt(i3, 100)\nguard_true(i4) [i3]\nlabel(i3, i2)\ni7 = int_add(i3, i2)\ni8 = int_lt(i7, 100)\nguard_true(i8) [i7]\njump(i7, i2)",
        &["BoxedInteger(intval=7) 0", "BoxedInteger(intval=1000) 0", "BoxedInteger(intval=-1) 200"],
    );
}

#[test]
fn field_written_by_the_body_is_carried_by_the_label() {
    // the field's value changes each iteration: the label takes what the
    // last iteration stored, so the loop does not read it back (the store
    // stays: the object escapes the loop)
    check(
        "[p0]\nlabel(p0)\ni1 = getfield_gc_i(p0, descr=intval)\ni2 = int_add(i1, 3)\nsetfield_gc(p0, i2, descr=intval)\ni3 = int_lt(i2, 40)\nguard_true(i3) [i2]\njump(p0)",
        "[p0]\ni1 = getfield_gc_i(p0, descr=intval)\ni2 = int_add(i1, 3)\ni3 = int_lt(i2, 40)\nsetfield_gc(p0, i2, descr=intval)\nguard_true(i3) [i2]\nlabel(i2, p0)\ni6 = int_add(i2, 3)\ni7 = int_lt(i6, 40)\nsetfield_gc(p0, i6, descr=intval)\nguard_true(i7) [i6]\njump(i6, p0)",
        &["BoxedInteger(intval=1)", "BoxedInteger(intval=100)"],
    );
}

#[test]
fn field_read_moves_out_despite_stores_to_other_fields() {
    check(
        "[p0, i1]\nlabel(p0, i1)\ni2 = getfield_gc_i(p0, descr=intval)\ni3 = int_add(i1, i2)\nsetfield_gc(p0, i3, descr=obj.c)\ni4 = int_lt(i3, 60)\nguard_true(i4) [i3]\njump(p0, i3)",
        "[p0, i1]\ni2 = getfield_gc_i(p0, descr=intval)\ni3 = int_add(i1, i2)\nsetfield_gc(p0, i3, descr=obj.c)\ni4 = int_lt(i3, 60)\nguard_true(i4) [i3]\nlabel(i3, i2, p0)\ni7 = int_add(i3, i2)\nsetfield_gc(p0, i7, descr=obj.c)\ni8 = int_lt(i7, 60)\nguard_true(i8) [i7]\njump(i7, i2, p0)",
        &["BoxedInteger(intval=5) 0", "BoxedInteger(intval=0) 70"],
    );
}

#[test]
fn a_call_in_the_body_keeps_the_read() {
    check(
        "[p0, i1]\nlabel(p0, i1)\ni2 = getfield_gc_i(p0, descr=intval)\ni3 = call_i(i1, i2, descr=max)\ni4 = int_add(i3, 1)\ni5 = int_lt(i4, 30)\nguard_true(i5) [i4]\njump(p0, i4)",
        "[p0, i1]\ni2 = getfield_gc_i(p0, descr=intval)\ni3 = call_i(i1, i2, descr=max)\ni4 = int_add(i3, 1)\ni5 = int_lt(i4, 30)\nguard_true(i5) [i4]\nlabel(i4, p0)\ni7 = getfield_gc_i(p0, descr=intval)\ni8 = call_i(i4, i7, descr=max)\ni9 = int_add(i8, 1)\ni10 = int_lt(i9, 30)\nguard_true(i10) [i9]\njump(i9, p0)",
        &["BoxedInteger(intval=5) 0", "BoxedInteger(intval=50) 0"],
    );
}

#[test]
fn invariant_store_is_done_once() {
    check(
        "[p0, i1]\nlabel(p0, i1)\nsetfield_gc(p0, 5, descr=intval)\ni2 = int_add(i1, 1)\ni3 = int_lt(i2, 10)\nguard_true(i3) [i2]\njump(p0, i2)",
        "[p0, i1]\ni2 = int_add(i1, 1)\ni3 = int_lt(i2, 10)\nsetfield_gc(p0, 5, descr=intval)\nguard_true(i3) [i2]\nlabel(i2)\ni5 = int_add(i2, 1)\ni6 = int_lt(i5, 10)\nguard_true(i6) [i5]\njump(i5)",
        &["BoxedInteger(intval=0) 0", "BoxedInteger(intval=0) 10"],
    );
}

#[test]
fn invariant_chain_of_reads_moves_out() {
    check(
        "[p0, i1]\nlabel(p0, i1)\np2 = getfield_gc_r(p0, descr=next)\nguard_nonnull(p2) [i1]\ni3 = getfield_gc_i(p2, descr=intval)\ni4 = int_add(i1, i3)\ni5 = int_lt(i4, 100)\nguard_true(i5) [i4]\njump(p0, i4)",
        "[p0, i1]\np2 = getfield_gc_r(p0, descr=next)\nguard_nonnull(p2) [i1]\ni3 = getfield_gc_i(p2, descr=intval)\ni4 = int_add(i1, i3)\ni5 = int_lt(i4, 100)\nguard_true(i5) [i4]\nlabel(i4, i3)\ni9 = int_add(i4, i3)\ni10 = int_lt(i9, 100)\nguard_true(i10) [i9]\njump(i9, i3)",
        &["BoxedInteger(next=BoxedInteger(intval=9)) 0", "BoxedInteger(next=null) 0"],
    );
}

#[test]
fn invariant_array_item_read_moves_out() {
    check(
        "[p0, i1]\nlabel(p0, i1)\ni2 = getarrayitem_gc_i(p0, 1, descr=ints)\ni3 = arraylen_gc(p0, descr=ints)\ni4 = int_add(i1, i2)\ni5 = int_add(i4, i3)\ni6 = int_lt(i5, 100)\nguard_true(i6) [i5]\njump(p0, i5)",
        "[p0, i1]\ni2 = getarrayitem_gc_i(p0, 1, descr=ints)\ni3 = arraylen_gc(p0, descr=ints)\ni4 = int_add(i1, i2)\ni5 = int_add(i4, i3)\ni6 = int_lt(i5, 100)\nguard_true(i6) [i5]\nlabel(i5, i2, i3)\ni10 = int_add(i5, i2)\ni11 = int_add(i10, i3)\ni12 = int_lt(i11, 100)\nguard_true(i12) [i11]\njump(i11, i2, i3)",
        &["ints[1,2,3] 0", "ints[0,0] 0"],
    );
}

#[test]
fn loop_carried_values_are_not_hoisted() {
    check(
        "[i0, i1]\nlabel(i0, i1)\ni2 = int_mul(i0, 3)\ni3 = int_add(i2, i1)\ni4 = int_add(i0, 1)\ni5 = int_lt(i4, 10)\nguard_true(i5) [i3, i4]\njump(i4, i1)",
        "[i0, i1]\ni2 = int_mul(i0, 3)\ni3 = int_add(i2, i1)\ni4 = int_add(i0, 1)\ni5 = int_lt(i4, 10)\nguard_true(i5) [i3, i4]\nlabel(i4, i1)\ni7 = int_mul(i4, 3)\ni8 = int_add(i7, i1)\ni9 = int_add(i4, 1)\ni10 = int_lt(i9, 10)\nguard_true(i10) [i8, i9]\njump(i9, i1)",
        &["0 100", "9 1"],
    );
}

#[test]
fn op_of_invariant_and_carried_values_stays() {
    check(
        "[i0, i1, i2]\nlabel(i0, i1, i2)\ni3 = int_mul(i1, i2)\ni4 = int_add(i3, i0)\ni5 = int_sub(i4, i0)\ni6 = int_add(i0, 1)\ni7 = int_lt(i6, 5)\nguard_true(i7) [i5, i4, i6]\njump(i6, i1, i2)",
        "[i0, i1, i2]\ni3 = int_mul(i1, i2)\ni4 = int_add(i3, i0)\ni6 = int_add(i0, 1)\ni7 = int_lt(i6, 5)\nguard_true(i7) [i3, i4, i6]\nlabel(i6, i3)\ni10 = int_add(i3, i6)\ni12 = int_add(i6, 1)\ni13 = int_lt(i12, 5)\nguard_true(i13) [i3, i10, i12]\njump(i12, i3)",
        &["0 3 4", "4 1 1"],
    );
}

#[test]
fn swapped_values_are_loop_carried() {
    check(
        "[i0, i1, i2]\nlabel(i0, i1, i2)\ni3 = int_add(i0, 1)\ni4 = int_sub(i2, 1)\ni5 = int_gt(i4, 0)\nguard_true(i5) [i0, i1, i4]\njump(i1, i0, i4)",
        "[i0, i1, i2]\ni4 = int_add(i2, -1)\ni5 = int_gt(i4, 0)\nguard_true(i5) [i0, i1, i4]\nlabel(i1, i0, i4)\ni10 = int_add(i4, -1)\ni11 = int_gt(i10, 0)\nguard_true(i11) [i1, i0, i10]\njump(i0, i1, i10)",
        &["1 2 5", "3 4 1"],
    );
}

#[test]
fn a_value_from_before_the_label_is_invariant() {
    check(
        "[i0, i9]\ni5 = int_mul(i9, 7)\nlabel(i0)\ni1 = int_add(i0, i5)\ni2 = int_lt(i1, 100)\nguard_true(i2) [i1]\njump(i1)",
        "[i0, i9]\ni5 = int_mul(i9, 7)\ni1 = int_add(i0, i5)\ni2 = int_lt(i1, 100)\nguard_true(i2) [i1]\nlabel(i1, i5)\ni11 = int_add(i1, i5)\ni12 = int_lt(i11, 100)\nguard_true(i12) [i11]\njump(i11, i5)",
        &["0 2", "50 1", "200 3"],
    );
}

#[test]
fn a_jump_to_the_start_is_a_loop_too() {
    check(
        "[i0, i1]\ni2 = int_mul(i1, i1)\ni3 = int_add(i0, i2)\ni4 = int_lt(i3, 1000)\nguard_true(i4) [i3]\njump(i3, i1)",
        "[i0, i1]\ni2 = int_mul(i1, i1)\ni3 = int_add(i0, i2)\ni4 = int_lt(i3, 1000)\nguard_true(i4) [i3]\nlabel(i3, i2)\ni7 = int_add(i3, i2)\ni8 = int_lt(i7, 1000)\nguard_true(i8) [i7]\njump(i7, i2)",
        &["0 3", "0 40"],
    );
}

#[test]
fn overflow_guards_stay_in_the_body() {
    check(
        "[i0, i1]\nlabel(i0, i1)\ni2 = int_add_ovf(i0, i1)\nguard_no_overflow() [i0]\ni3 = int_lt(i2, 1000)\nguard_true(i3) [i2]\njump(i2, i1)",
        "[i0, i1]\ni2 = int_add_ovf(i0, i1)\nguard_no_overflow() [i0]\ni3 = int_lt(i2, 1000)\nguard_true(i3) [i2]\nlabel(i2, i1)\ni5 = int_add_ovf(i2, i1)\nguard_no_overflow() [i2]\ni6 = int_lt(i5, 1000)\nguard_true(i6) [i5]\njump(i5, i1)",
        &["0 7", "9223372036854775800 3", "0 2000"],
    );
}

// ---- what the preamble proved about loop-carried values

#[test]
fn bounds_carry_across_the_back_edge() {
    check(
        "[i0]\nlabel(i0)\ni1 = int_ge(i0, 0)\nguard_true(i1) [i0]\ni2 = int_add_ovf(i0, 1)\nguard_no_overflow() [i0]\ni3 = int_lt(i2, 100)\nguard_true(i3) [i2]\njump(i2)",
        "[i0]\ni1 = int_ge(i0, 0)\nguard_true(i1) [i0]\ni2 = int_add_ovf(i0, 1)\nguard_no_overflow() [i0]\ni3 = int_lt(i2, 100)\nguard_true(i3) [i2]\nlabel(i2)\ni6 = int_add(i2, 1)\ni7 = int_lt(i6, 100)\nguard_true(i7) [i6]\njump(i6)",
        &["0", "-1", "99", "150"],
    );
}

#[test]
fn a_bound_the_body_breaks_is_not_assumed() {
    // i0 < 3 leaves i0 + 1 at most 3: the body's check stays
    check(
        "[i0]\nlabel(i0)\ni1 = int_lt(i0, 3)\nguard_true(i1) [i0]\ni2 = int_add(i0, 1)\njump(i2)",
        "[i0]\ni1 = int_lt(i0, 3)\nguard_true(i1) [i0]\ni2 = int_add(i0, 1)\nlabel(i2)\ni4 = int_lt(i2, 3)\nguard_true(i4) [i2]\ni5 = int_add(i2, 1)\njump(i5)",
        &["0", "-5", "3"],
    );
}

#[test]
fn a_constant_that_stays_is_not_passed() {
    check(
        "[i0, i1]\nlabel(i0, i1)\ni2 = int_add(i0, i1)\ni3 = int_lt(i2, 50)\nguard_true(i3) [i2, i1]\njump(i2, 5)",
        "[i0, i1]\ni2 = int_add(i0, i1)\ni3 = int_lt(i2, 50)\nguard_true(i3) [i2, i1]\nlabel(i2)\ni5 = int_add(i2, 5)\ni6 = int_lt(i5, 50)\nguard_true(i6) [i5, 5]\njump(i5)",
        &["0 1", "0 100"],
    );
}

#[test]
fn a_constant_that_changes_is_passed() {
    check(
        "[i0, i1]\nlabel(i0, i1)\ni2 = int_add(i0, i1)\ni3 = int_lt(i2, 50)\nguard_true(i3) [i2, i1]\njump(i2, i2)",
        "[i0, i1]\ni2 = int_add(i0, i1)\ni3 = int_lt(i2, 50)\nguard_true(i3) [i2, i1]\ni4 = same_as_i(i2)\ni5 = same_as_i(i2)\nlabel(i4, i5)\ni6 = int_add(i4, i5)\ni7 = int_lt(i6, 50)\nguard_true(i7) [i6, i5]\njump(i6, i6)",
        &["1 1", "3 2"],
    );
}

#[test]
fn nested_constants_fold_in_the_body() {
    // i1 is 4 from the second iteration on: i1 * 2 + 1 folds to 9 (in the
    // preamble, (i1 << 1) + 1 is (i1 << 1) | 1: the low bit is free)
    check(
        "[i0, i1]\nlabel(i0, i1)\ni2 = int_mul(i1, 2)\ni3 = int_add(i2, 1)\ni4 = int_add(i0, i3)\ni5 = int_lt(i4, 80)\nguard_true(i5) [i4]\nguard_value(i1, 4) [i4]\njump(i4, 4)",
        "[i0, i1]\ni2 = int_lshift(i1, 1)\ni3 = int_or(i2, 1)\ni4 = int_add(i0, i3)\ni5 = int_lt(i4, 80)\nguard_true(i5) [i4]\nguard_value(i1, 4) [i4]\nlabel(i4)\ni9 = int_add(i4, 9)\ni10 = int_lt(i9, 80)\nguard_true(i10) [i9]\njump(i9)",
        &["0 4", "0 3"],
    );
}

// ---- virtual objects across the back edge

#[test]
fn boxed_counter_stays_virtual() {
    check(
        "[p0]\nlabel(p0)\nguard_class(p0, ConstClass(BoxedInteger)) []\ni1 = getfield_gc_i(p0, descr=intval)\ni2 = int_add(i1, 1)\ni3 = int_lt(i2, 10)\nguard_true(i3) [i2]\np4 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p4, i2, descr=intval)\njump(p4)",
        "[p0]\nguard_class(p0, ConstClass(BoxedInteger)) []\ni1 = getfield_gc_i(p0, descr=intval)\ni2 = int_add(i1, 1)\ni3 = int_lt(i2, 10)\nguard_true(i3) [i2]\nlabel(i2)\ni8 = int_add(i2, 1)\ni9 = int_lt(i8, 10)\nguard_true(i9) [i8]\njump(i8)",
        &["BoxedInteger(intval=0)", "BoxedInteger(intval=20)", "Other(intval=0)"],
    );
}

#[test]
fn virtual_with_a_constant_field_passes_nothing_for_it() {
    check(
        "[p0, i1]\nlabel(p0, i1)\ni2 = getfield_gc_i(p0, descr=intval)\ni3 = int_add(i1, i2)\ni4 = int_lt(i3, 50)\nguard_true(i4) [i3]\np5 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p5, 3, descr=intval)\njump(p5, i3)",
        "[p0, i1]\ni2 = getfield_gc_i(p0, descr=intval)\ni3 = int_add(i1, i2)\ni4 = int_lt(i3, 50)\nguard_true(i4) [i3]\nlabel(i3)\ni9 = int_add(i3, 3)\ni10 = int_lt(i9, 50)\nguard_true(i10) [i9]\njump(i9)",
        &["BoxedInteger(intval=10) 0", "BoxedInteger(intval=100) 0"],
    );
}

#[test]
fn virtual_that_escapes_in_the_body_is_allocated() {
    check(
        "[p0, i1]\nlabel(p0, i1)\ni2 = call_i(p0, descr=isnull)\ni3 = int_add(i1, 1)\ni4 = int_lt(i3, 5)\nguard_true(i4) [i3, i2]\np5 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p5, i3, descr=intval)\njump(p5, i3)",
        "[p0, i1]\ni2 = call_i(p0, descr=isnull)\ni3 = int_add(i1, 1)\ni4 = int_lt(i3, 5)\nguard_true(i4) [i3, i2]\ni7 = same_as_i(i3)\ni8 = same_as_i(i3)\nlabel(i7, i8)\np6 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p6, i7, descr=intval)\ni9 = call_i(p6, descr=isnull)\ni10 = int_add(i8, 1)\ni11 = int_lt(i10, 5)\nguard_true(i11) [i10, i9]\njump(i10, i10)",
        &["BoxedInteger(intval=0) 0"],
    );
}

#[test]
fn virtual_that_escapes_one_iteration_later_is_allocated() {
    // the object made in one iteration is passed to a call in the next:
    // it stays virtual across the back edge and is allocated at the call
    check(
        "[p0, p1, i2]\nlabel(p0, p1, i2)\ni3 = call_i(p1, descr=isnull)\ni4 = getfield_gc_i(p0, descr=intval)\ni5 = int_add(i2, i4)\ni6 = int_lt(i5, 40)\nguard_true(i6) [i5, i3]\np7 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p7, i5, descr=intval)\njump(p7, p0, i5)",
        "[p0, p1, i2]\ni3 = call_i(p1, descr=isnull)\ni4 = getfield_gc_i(p0, descr=intval)\ni5 = int_add(i2, i4)\ni6 = int_lt(i5, 40)\nguard_true(i6) [i5, i3]\ni9 = same_as_i(i5)\ni11 = same_as_i(i5)\nlabel(i9, p0, i11)\ni12 = call_i(p0, descr=isnull)\ni14 = int_add(i11, i9)\ni15 = int_lt(i14, 40)\nguard_true(i15) [i14, i12]\np8 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p8, i9, descr=intval)\njump(i14, p8, i14)",
        &["BoxedInteger(intval=1) null 0", "BoxedInteger(intval=1) Other(intval=2) 0"],
    );
}

#[test]
fn virtual_array_stays_virtual() {
    check(
        "[p0]\nlabel(p0)\ni1 = getarrayitem_gc_i(p0, 0, descr=ints)\ni2 = getarrayitem_gc_i(p0, 1, descr=ints)\ni3 = int_add(i1, i2)\ni4 = int_lt(i3, 100)\nguard_true(i4) [i3]\np5 = new_array(2, descr=ints)\nsetarrayitem_gc(p5, 0, i2, descr=ints)\nsetarrayitem_gc(p5, 1, i3, descr=ints)\njump(p5)",
        "[p0]\ni1 = getarrayitem_gc_i(p0, 0, descr=ints)\ni2 = getarrayitem_gc_i(p0, 1, descr=ints)\ni3 = int_add(i1, i2)\ni4 = int_lt(i3, 100)\nguard_true(i4) [i3]\nlabel(i2, i3)\ni11 = int_add(i2, i3)\ni12 = int_lt(i11, 100)\nguard_true(i12) [i11]\njump(i3, i11)",
        &["ints[0,1]", "ints[50,60]"],
    );
}

#[test]
fn nested_virtuals_stay_virtual() {
    check(
        "[p0]\nlabel(p0)\np1 = getfield_gc_r(p0, descr=next)\nguard_nonnull(p1) []\ni2 = getfield_gc_i(p1, descr=intval)\ni3 = int_add(i2, 2)\ni4 = int_lt(i3, 20)\nguard_true(i4) [i3]\np5 = new(descr=obj)\np6 = new(descr=obj)\nsetfield_gc(p6, i3, descr=intval)\nsetfield_gc(p5, p6, descr=next)\njump(p5)",
        "[p0]\np1 = getfield_gc_r(p0, descr=next)\nguard_nonnull(p1) []\ni2 = getfield_gc_i(p1, descr=intval)\ni3 = int_add(i2, 2)\ni4 = int_lt(i3, 20)\nguard_true(i4) [i3]\nlabel(i3)\ni12 = int_add(i3, 2)\ni13 = int_lt(i12, 20)\nguard_true(i13) [i12]\njump(i12)",
        &["obj(next=obj(intval=1))", "obj(next=null)"],
    );
}

#[test]
fn one_virtual_in_two_places_stays_one_virtual() {
    // both header boxes get the same object: the body rebuilds it once and
    // both stand for it, so the store through one is read through the other
    // and nothing is allocated
    check(
        "[p0, p1, i2]\nlabel(p0, p1, i2)\nsetfield_gc(p0, i2, descr=intval)\ni3 = getfield_gc_i(p1, descr=intval)\ni4 = int_add(i3, 1)\ni5 = int_lt(i4, 10)\nguard_true(i5) [i4]\np6 = new_with_vtable(descr=BoxedInteger)\njump(p6, p6, i4)",
        "[p0, p1, i2]\nsetfield_gc(p0, i2, descr=intval)\ni3 = getfield_gc_i(p1, descr=intval)\ni4 = int_add(i3, 1)\ni5 = int_lt(i4, 10)\nguard_true(i5) [i4]\nlabel(i4)\ni10 = int_add(i4, 1)\ni11 = int_lt(i10, 10)\nguard_true(i11) [i10]\njump(i10)",
        &["BoxedInteger(intval=0) BoxedInteger(intval=0) 0"],
    );
}

#[test]
fn float_values_are_carried() {
    check(
        "[f0, f1]\nlabel(f0, f1)\nf2 = float_mul(f1, 2.0)\nf3 = float_add(f0, f2)\ni4 = float_lt(f3, 100.0)\nguard_true(i4) [f3]\njump(f3, f1)",
        "[f0, f1]\nf2 = float_mul(f1, 2.0)\nf3 = float_add(f0, f2)\ni4 = float_lt(f3, 100.0)\nguard_true(i4) [f3]\nlabel(f3, f2)\nf7 = float_add(f3, f2)\ni8 = float_lt(f7, 100.0)\nguard_true(i8) [f7]\njump(f7, f2)",
        &["0.0 1.5", "0.0 3.0", "200.0 1.0"],
    );
}

// ---- the escape-analysis article's loop (seed 002)

/// `f(y)` of the article: `res = res.add(y).add(BoxedInteger(-100));
/// y = y.add(BoxedInteger(-1))` while `y.is_positive()`, traced with `y`
/// and `res` as BoxedIntegers (p0 is y, p1 is res).
const BOXED_LOOP: &str = "[p0, p1]
label(p0, p1)
guard_class(p1, ConstClass(BoxedInteger)) []
i2 = getfield_gc_i(p1, descr=intval)
guard_class(p0, ConstClass(BoxedInteger)) []
i3 = getfield_gc_i(p0, descr=intval)
i4 = int_add(i2, i3)
p5 = new_with_vtable(descr=BoxedInteger)
setfield_gc(p5, i4, descr=intval)
p6 = new_with_vtable(descr=BoxedInteger)
setfield_gc(p6, -100, descr=intval)
guard_class(p5, ConstClass(BoxedInteger)) []
i7 = getfield_gc_i(p5, descr=intval)
guard_class(p6, ConstClass(BoxedInteger)) []
i8 = getfield_gc_i(p6, descr=intval)
i9 = int_add(i7, i8)
p10 = new_with_vtable(descr=BoxedInteger)
setfield_gc(p10, i9, descr=intval)
p11 = new_with_vtable(descr=BoxedInteger)
setfield_gc(p11, -1, descr=intval)
guard_class(p0, ConstClass(BoxedInteger)) []
i12 = getfield_gc_i(p0, descr=intval)
guard_class(p11, ConstClass(BoxedInteger)) []
i13 = getfield_gc_i(p11, descr=intval)
i14 = int_add(i12, i13)
p15 = new_with_vtable(descr=BoxedInteger)
setfield_gc(p15, i14, descr=intval)
guard_class(p15, ConstClass(BoxedInteger)) []
i16 = getfield_gc_i(p15, descr=intval)
i17 = int_gt(i16, 0)
guard_true(i17) [i14, i9]
jump(p15, p10)
";

const BOXED_RUNS: &[&str] = &[
    "BoxedInteger(intval=5) BoxedInteger(intval=0)",
    "BoxedInteger(intval=1) BoxedInteger(intval=7)",
    "Other(intval=5) BoxedInteger(intval=0)",
];

#[test]
fn boxed_loop_without_unroll_keeps_two_allocations_and_two_class_guards() {
    // what the article shows: the objects reaching the jump are allocated;
    // of its three class guards, the second one on p0 goes too (rewrite
    // knows p0's class)
    let t = check_with(CHAIN, BOXED_LOOP, "[p0, p1]\nlabel(p0, p1)\nguard_class(p1, ConstClass(BoxedInteger)) []\ni2 = getfield_gc_i(p1, descr=intval)\nguard_class(p0, ConstClass(BoxedInteger)) []\ni3 = getfield_gc_i(p0, descr=intval)\ni4 = int_add(i2, i3)\ni9 = int_add(i4, -100)\ni14 = int_add(i3, -1)\ni17 = int_gt(i14, 0)\nguard_true(i17) [i14, i9]\np15 = new_with_vtable(descr=BoxedInteger)\np10 = new_with_vtable(descr=BoxedInteger)\nsetfield_gc(p15, i14, descr=intval)\nsetfield_gc(p10, i9, descr=intval)\njump(p15, p10)", BOXED_RUNS);
    assert_eq!(count(&t, "new_with_vtable"), 2);
    assert_eq!(count(&t, "guard_class"), 2);
}

#[test]
fn boxed_loop_peeled_allocates_nothing() {
    // with the loop peeled, y and res stay virtual across the back edge:
    // the class guards are in the preamble only, nothing is allocated
    let t = check_with(UNROLL, BOXED_LOOP, "[p0, p1]\nguard_class(p1, ConstClass(BoxedInteger)) []\ni2 = getfield_gc_i(p1, descr=intval)\nguard_class(p0, ConstClass(BoxedInteger)) []\ni3 = getfield_gc_i(p0, descr=intval)\ni4 = int_add(i2, i3)\ni9 = int_add(i4, -100)\ni14 = int_add(i3, -1)\ni17 = int_gt(i14, 0)\nguard_true(i17) [i14, i9]\nlabel(i14, i9)\ni24 = int_add(i9, i14)\ni29 = int_add(i24, -100)\ni34 = int_add(i14, -1)\ni37 = int_gt(i34, 0)\nguard_true(i37) [i34, i29]\njump(i34, i29)", BOXED_RUNS);
    assert_eq!(count(&t, "new_with_vtable"), 0);
    assert_eq!(count(&t, "guard_class"), 2);
    assert_eq!(
        loop_body(&t),
        [
            "int_add",
            "int_add",
            "int_add",
            "int_gt",
            "guard_true",
            "jump"
        ]
    );
}

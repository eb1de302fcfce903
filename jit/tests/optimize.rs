//! Text-in/text-out tests of each optimization.

use rpy_jit::optimize::optimize;
use rpy_jit::text::{parse, print};

/// Optimizes `input` with `passes` and compares the printed result with
/// `expected` (both normalized through the parser and printer).
fn check_with(passes: &str, input: &str, expected: &str) {
    let t = parse(input).unwrap_or_else(|e| panic!("input: {e}"));
    let out = optimize(&t, passes).unwrap_or_else(|e| panic!("{e}"));
    let got = print(&out);
    // the expected text is read with the input's header and boxes
    let header = rpy_jit::text::print_header(&t.header);
    let exp = parse(&format!("{header}\n{expected}")).unwrap_or_else(|e| panic!("expected: {e}"));
    assert_eq!(got, print(&exp), "\n--- input\n{input}\n--- got\n{got}");
}

fn check(input: &str, expected: &str) {
    check_with("intbounds:rewrite:pure", input, expected);
}

// ---- rewrite: the rules of rules/opt

#[test]
fn rewrite_add_zero() {
    check_with(
        "rewrite",
        "[i0]\ni1 = int_add(i0, 0)\nfinish(i1)",
        "[i0]\nfinish(i0)",
    );
    check_with(
        "rewrite",
        "[i0]\ni1 = int_add(0, i0)\nfinish(i1)",
        "[i0]\nfinish(i0)",
    );
}

#[test]
fn rewrite_sub_self_and_const() {
    check_with(
        "rewrite",
        "[i0]\ni1 = int_sub(i0, i0)\nfinish(i1)",
        "[i0]\nfinish(0)",
    );
    check_with(
        "rewrite",
        "[i0]\ni1 = int_sub(i0, 5)\nfinish(i1)",
        "[i0]\ni1 = int_add(i0, -5)\nfinish(i1)",
    );
}

#[test]
fn rewrite_mul_pow2_is_shift() {
    check_with(
        "rewrite",
        "[i0]\ni1 = int_mul(i0, 8)\nfinish(i1)",
        "[i0]\ni1 = int_lshift(i0, 3)\nfinish(i1)",
    );
    check_with(
        "rewrite",
        "[i0]\ni1 = int_mul(4, i0)\nfinish(i1)",
        "[i0]\ni1 = int_lshift(i0, 2)\nfinish(i1)",
    );
    check_with(
        "rewrite",
        "[i0]\ni1 = int_mul(i0, 1)\nfinish(i1)",
        "[i0]\nfinish(i0)",
    );
    check_with(
        "rewrite",
        "[i0]\ni1 = int_mul(i0, 6)\nfinish(i1)",
        "[i0]\ni1 = int_mul(i0, 6)\nfinish(i1)",
    );
}

#[test]
fn rewrite_nested_patterns() {
    // (x + 1) + 2 => x + 3, the inner add is dead
    check_with(
        "rewrite",
        "[i0]\ni1 = int_add(i0, 1)\ni2 = int_add(i1, 2)\nfinish(i2)",
        "[i0]\ni2 = int_add(i0, 3)\nfinish(i2)",
    );
    // (x + y) - y => x
    check_with(
        "rewrite",
        "[i0, i1]\ni2 = int_add(i0, i1)\ni3 = int_sub(i2, i1)\nfinish(i3)",
        "[i0, i1]\nfinish(i0)",
    );
    // kept when still used
    check_with(
        "rewrite",
        "[i0, i1]\ni2 = int_add(i0, i1)\ni3 = int_sub(i2, i1)\nfinish(i3, i2)",
        "[i0, i1]\ni2 = int_add(i0, i1)\nfinish(i0, i2)",
    );
    // neg(neg(x)) => x
    check_with(
        "rewrite",
        "[i0]\ni1 = int_neg(i0)\ni2 = int_neg(i1)\nfinish(i2)",
        "[i0]\nfinish(i0)",
    );
}

#[test]
fn rewrite_comparisons() {
    check_with(
        "rewrite",
        "[i0]\ni1 = int_lt(i0, i0)\nfinish(i1)",
        "[i0]\nfinish(0)",
    );
    check_with(
        "rewrite",
        "[i0]\ni1 = int_eq(i0, i0)\nfinish(i1)",
        "[i0]\nfinish(1)",
    );
    check_with(
        "rewrite",
        "[i0]\ni1 = int_ne(i0, 0)\nfinish(i1)",
        "[i0]\ni1 = int_is_true(i0)\nfinish(i1)",
    );
    // not(x < y) => x >= y
    check_with(
        "rewrite",
        "[i0, i1]\ni2 = int_lt(i0, i1)\ni3 = int_is_zero(i2)\nguard_true(i3) []\nfinish()",
        "[i0, i1]\ni3 = int_ge(i0, i1)\nguard_true(i3) []\nfinish()",
    );
}

#[test]
fn rewrite_bool_rules_need_bools() {
    // int_is_zero(int_is_zero(x)) is not x for x = 5 (the rule needs a
    // Bool): it is x's truth
    check_with(
        "rewrite",
        "[i0]\ni1 = int_is_zero(i0)\ni2 = int_is_zero(i1)\nfinish(i2)",
        "[i0]\ni2 = int_is_true(i0)\nfinish(i2)",
    );
    // with a comparison underneath (a Bool, known from intbounds), it fires
    check_with(
        "intbounds:rewrite",
        "[i0, i1]\ni2 = int_lt(i0, i1)\ni3 = int_is_zero(i2)\ni4 = int_is_zero(i3)\nfinish(i4)",
        "[i0, i1]\ni4 = int_lt(i0, i1)\nfinish(i4)",
    );
    // with pure after it, the rebuilt comparison is the first one again
    check(
        "[i0, i1]\ni2 = int_lt(i0, i1)\ni3 = int_is_zero(i2)\ni4 = int_is_zero(i3)\nfinish(i4, i2)",
        "[i0, i1]\ni2 = int_lt(i0, i1)\nfinish(i2, i2)",
    );
}

#[test]
fn rewrite_uses_bounds_facts() {
    // x >> 3 with 0 <= x < 8 is 0
    check(
        "[i0]\ni1 = int_and(i0, 7)\ni2 = int_rshift(i1, 3)\nfinish(i2)",
        "[i0]\nfinish(0)",
    );
    // x // 4 with x >= 0 is a shift
    check(
        "[i0]\ni1 = int_ge(i0, 0)\nguard_true(i1) []\ni2 = int_floordiv(i0, 4)\nfinish(i2)",
        "[i0]\ni1 = int_ge(i0, 0)\nguard_true(i1) []\ni2 = int_rshift(i0, 2)\nfinish(i2)",
    );
    // without the guard, the shift needs a bias for a negative x
    check(
        "[i0]\ni2 = int_floordiv(i0, 4)\nfinish(i2)",
        "[i0]\ni3 = int_rshift(i0, 63)\ni4 = int_and(i3, 3)\ni5 = int_add(i0, i4)\ni2 = int_rshift(i5, 2)\nfinish(i2)",
    );
}

// ---- intbounds

#[test]
fn bounds_fold_comparisons_after_guards() {
    check(
        "[i0]\ni1 = int_lt(i0, 10)\nguard_true(i1) [i0]\ni2 = int_lt(i0, 20)\nguard_true(i2) [i0]\nfinish(i0)",
        "[i0]\ni1 = int_lt(i0, 10)\nguard_true(i1) [i0]\nfinish(i0)",
    );
    check(
        "[i0]\ni1 = int_gt(i0, 10)\nguard_false(i1) [i0]\ni2 = int_le(i0, 10)\nguard_true(i2) [i0]\nfinish(i0)",
        "[i0]\ni1 = int_gt(i0, 10)\nguard_false(i1) [i0]\nfinish(i0)",
    );
}

#[test]
fn bounds_guards_make_constants() {
    check(
        "[i0]\ni1 = int_le(i0, 5)\nguard_true(i1) []\ni2 = int_ge(i0, 5)\nguard_true(i2) []\ni3 = int_add(i0, 1)\nfinish(i3)",
        "[i0]\ni1 = int_le(i0, 5)\nguard_true(i1) []\ni2 = int_ge(i0, 5)\nguard_true(i2) []\nfinish(6)",
    );
    check(
        "[i0]\nguard_value(i0, 7) []\ni1 = int_mul(i0, 3)\nfinish(i1)",
        "[i0]\nguard_value(i0, 7) []\nfinish(21)",
    );
    check(
        "[i0]\ni1 = int_eq(i0, 3)\nguard_true(i1) []\nfinish(i0)",
        "[i0]\ni1 = int_eq(i0, 3)\nguard_true(i1) []\nfinish(3)",
    );
}

#[test]
fn bounds_remove_proven_guards() {
    check(
        "[i0]\ni1 = int_and(i0, 255)\ni2 = int_lt(i1, 256)\nguard_true(i2) [i0]\ni3 = int_ge(i1, 0)\nguard_true(i3) [i0]\nfinish(i1)",
        "[i0]\ni1 = int_and(i0, 255)\nfinish(i1)",
    );
    check(
        "[i0]\nguard_value(i0, 1) []\nguard_value(i0, 1) []\nfinish()",
        "[i0]\nguard_value(i0, 1) []\nfinish()",
    );
    check(
        "[i0]\ni9 = int_ge(i0, 0)\nguard_true(i9) []\ni1 = int_is_true(i0)\nguard_true(i1) []\ni2 = int_is_zero(i0)\nguard_false(i2) []\ni3 = int_gt(i0, 0)\nfinish(i3)",
        "[i0]\ni9 = int_ge(i0, 0)\nguard_true(i9) []\ni1 = int_is_true(i0)\nguard_true(i1) []\nfinish(1)",
    );
}

#[test]
fn bounds_remove_overflow_checks() {
    // i0 in [0, 100): i0 + 1 cannot overflow
    check(
        "[i0]\ni1 = int_ge(i0, 0)\nguard_true(i1) []\ni2 = int_lt(i0, 100)\nguard_true(i2) []\ni3 = int_add_ovf(i0, 1)\nguard_no_overflow() [i0]\nfinish(i3)",
        "[i0]\ni1 = int_ge(i0, 0)\nguard_true(i1) []\ni2 = int_lt(i0, 100)\nguard_true(i2) []\ni3 = int_add(i0, 1)\nfinish(i3)",
    );
    // unknown i0: the check stays
    check(
        "[i0]\ni3 = int_add_ovf(i0, 1)\nguard_no_overflow() [i0]\nfinish(i3)",
        "[i0]\ni3 = int_add_ovf(i0, 1)\nguard_no_overflow() [i0]\nfinish(i3)",
    );
    // after guard_no_overflow the result is known not to have wrapped:
    // (i0 + 1) > MIN, so the comparison folds
    check(
        "[i0]\ni1 = int_ge(i0, 0)\nguard_true(i1) []\ni3 = int_add_ovf(i0, 1)\nguard_no_overflow() [i0]\ni4 = int_gt(i3, 0)\nfinish(i4)",
        "[i0]\ni1 = int_ge(i0, 0)\nguard_true(i1) []\ni3 = int_add_ovf(i0, 1)\nguard_no_overflow() [i0]\nfinish(1)",
    );
    // constants: folded completely
    check(
        "[]\ni0 = int_mul_ovf(3, 4)\nguard_no_overflow() []\nfinish(i0)",
        "[]\nfinish(12)",
    );
    // a sub_ovf of a small range
    check(
        "[i0]\ni1 = int_and(i0, 15)\ni2 = int_sub_ovf(i1, 1)\nguard_no_overflow() []\nfinish(i2)",
        "[i0]\ni1 = int_and(i0, 15)\ni2 = int_add(i1, -1)\nfinish(i2)",
    );
}

#[test]
fn bounds_known_bits() {
    // (x | 1) & 1 == 1
    check(
        "[i0]\ni1 = int_or(i0, 1)\ni2 = int_and(i1, 1)\nfinish(i2)",
        "[i0]\nfinish(1)",
    );
    // (x << 4) & 15 == 0
    check(
        "[i0]\ni1 = int_lshift(i0, 4)\ni2 = int_and(i1, 15)\nfinish(i2)",
        "[i0]\nfinish(0)",
    );
    // x * 2 is even: (x * 2) is never 1
    check(
        "[i0]\ni1 = int_mul(i0, 6)\ni2 = int_eq(i1, 1)\nfinish(i2)",
        "[i0]\nfinish(0)",
    );
}

#[test]
fn bounds_from_memory_types() {
    check(
        "struct s { c: Char, b: Bool }\n[p0]\ni1 = getfield_gc_i(p0, descr=s.c)\ni2 = int_lt(i1, 256)\nguard_true(i2) []\ni3 = getfield_gc_i(p0, descr=s.b)\ni4 = int_le(i3, 1)\nfinish(i4)",
        "[p0]\nfinish(1)",
    );
}

// ---- pure

#[test]
fn pure_folds_constants() {
    check_with(
        "pure",
        "[]\ni0 = int_add(2, 3)\ni1 = int_mul(i0, 7)\ni2 = int_py_mod(-7, 2)\nfinish(i1, i2)",
        "[]\nfinish(35, 1)",
    );
    check_with(
        "pure",
        "[]\ni0 = uint_rshift(-1, 60)\ni1 = int_is_zero(0)\nfinish(i0, i1)",
        "[]\nfinish(15, 1)",
    );
    // undefined results are not folded
    check_with(
        "pure",
        "[]\ni0 = int_floordiv(1, 0)\nfinish(i0)",
        "[]\ni0 = int_floordiv(1, 0)\nfinish(i0)",
    );
}

#[test]
fn pure_cse() {
    check_with(
        "pure",
        "[i0, i1]\ni2 = int_add(i0, i1)\ni3 = int_add(i0, i1)\ni4 = int_mul(i2, i3)\nfinish(i4)",
        "[i0, i1]\ni2 = int_add(i0, i1)\ni4 = int_mul(i2, i2)\nfinish(i4)",
    );
    check_with(
        "pure",
        "call sq = int_square\n[i0]\ni1 = call_pure_i(i0, descr=sq)\ni2 = call_pure_i(i0, descr=sq)\ni3 = call_i(i0, descr=sq)\ni4 = call_i(i0, descr=sq)\nfinish(i1, i2, i3, i4)",
        "[i0]\ni1 = call_pure_i(i0, descr=sq)\ni3 = call_i(i0, descr=sq)\ni4 = call_i(i0, descr=sq)\nfinish(i1, i1, i3, i4)",
    );
    // reads are not pure: a store may come between
    check_with(
        "pure",
        "struct s { a: Signed }\n[p0]\ni1 = getfield_gc_i(p0, descr=s.a)\nsetfield_gc(p0, 5, descr=s.a)\ni2 = getfield_gc_i(p0, descr=s.a)\nfinish(i1, i2)",
        "[p0]\ni1 = getfield_gc_i(p0, descr=s.a)\nsetfield_gc(p0, 5, descr=s.a)\ni2 = getfield_gc_i(p0, descr=s.a)\nfinish(i1, i2)",
    );
}

// ---- loops

#[test]
fn label_forgets_loop_variables() {
    // before the label i0 == 0; in the loop it is not
    check(
        "[i0]\nguard_value(i0, 0) []\nlabel(i0)\ni1 = int_add(i0, 1)\ni2 = int_lt(i1, 10)\nguard_true(i2) [i1]\njump(i1)",
        "[i0]\nguard_value(i0, 0) []\ni3 = same_as_i(0)\nlabel(i3)\ni1 = int_add(i3, 1)\ni2 = int_lt(i1, 10)\nguard_true(i2) [i1]\njump(i1)",
    );
    // CSE does not cross the label
    check(
        "[i0]\ni1 = int_add(i0, 1)\nlabel(i0)\ni2 = int_add(i0, 1)\njump(i2)",
        "[i0]\nlabel(i0)\ni2 = int_add(i0, 1)\njump(i2)",
    );
}

#[test]
fn pypy_doc_example_loop() {
    // the loop of the optimizer documentation, with a raw array
    check(
        "array ints = Signed\n[i9, i0, i1]\nlabel(i9, i0, i1)\ni2 = getarrayitem_raw_i(i9, i0, descr=ints)\ni3 = int_add(i1, i2)\ni4 = int_add(i0, 1)\ni5 = int_le(i4, 100)\nguard_true(i5) [i0, i3]\njump(i9, i4, i3)",
        "[i9, i0, i1]\nlabel(i9, i0, i1)\ni2 = getarrayitem_raw_i(i9, i0, descr=ints)\ni3 = int_add(i1, i2)\ni4 = int_add(i0, 1)\ni5 = int_le(i4, 100)\nguard_true(i5) [i0, i3]\njump(i9, i4, i3)",
    );
}

#[test]
fn unknown_passes() {
    let t = parse("[i0]\nfinish(i0)").unwrap();
    assert!(optimize(&t, "intbounds:nosuch")
        .unwrap_err()
        .contains("unknown optimization 'nosuch'"));
    // every optimization of PyPy's order is implemented
    assert!(optimize(&t, rpy_jit::optimize::ALL_PASSES).is_ok());
}

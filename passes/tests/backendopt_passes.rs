//! The whole-program backend optimizations on small hand-written programs:
//! graph text in, graph text out (snapshotted), and every program run in
//! the LLInterpreter before and after on several inputs, which must agree.

use rpy_ir::graph::{LowLevel, Program};
use rpy_ir::opcode::Opcode;
use rpy_ir::text::{parse_program, print_graph};
use rpy_llinterp::{LlInterpreter, LlValue};
use rpy_passes::backendopt::inline::inline_program;
use rpy_passes::backendopt::malloc_removal::remove_mallocs;
use rpy_passes::simplify::simplify_program;

const TYPES: &str = "\
type rpy_string = GcStruct { hash: Signed, length: Signed, ..Array(Char) }
type object = GcStruct { typeptr: Ptr(object_vtable) }
type object_vtable = GcStruct { subclassrange_min: Signed, subclassrange_max: Signed, name: Ptr(rpy_string) }
type inst_Box = GcStruct { typeptr: Ptr(object_vtable), value: Signed }
prebuilt &0 = struct<object_vtable> {subclassrange_min: 1, subclassrange_max: 3, name: \"ValueError\"}
prebuilt &1 = struct<object> {typeptr: &0}
prebuilt &2 = struct<object_vtable> {subclassrange_min: 5, subclassrange_max: 6, name: \"KeyError\"}
prebuilt &3 = struct<object> {typeptr: &2}
prebuilt &4 = struct<object_vtable> {subclassrange_min: 10, subclassrange_max: 11, name: \"Box\"}
";

/// `main(x)`: calls a small helper, a helper that raises under a `try`
/// (both of the classes it may raise: one caught, one not), and a
/// recursive function, which must stay a call.
const INLINE: &str = "
entry main

graph small(n_0) {
  block0(n_0: Signed):
    v1: Signed = int_mul(n_0, 3)
    v2: Signed = int_add(v1, 1)
    -> return(v2)
  returns v3: Signed
  raises v4: Ptr(object_vtable), v5: Ptr(object)
}

graph checked(n_0) {
  block0(n_0: Signed):
    v1: Bool = int_lt(n_0, 0)
    switch v1
      False -> block1(n_0)
      True -> except(&0, &1)
  block1(n_2: Signed):
    v3: Bool = int_gt(n_2, 100)
    switch v3
      False -> return(n_2)
      True -> except(&2, &3)
  returns v4: Signed
  raises v5: Ptr(object_vtable), v6: Ptr(object)
}

graph fact(n_0) {
  block0(n_0: Signed):
    v1: Bool = int_le(n_0, 1)
    switch v1
      False -> block1(n_0)
      True -> return(1)
  block1(n_2: Signed):
    v3: Signed = int_sub(n_2, 1)
    v4: Signed = direct_call(@fact, v3)
    v5: Signed = int_mul(n_2, v4)
    -> return(v5)
  returns v6: Signed
  raises v7: Ptr(object_vtable), v8: Ptr(object)
}

graph main(x_0) {
  block0(x_0: Signed):
    a_1: Signed = direct_call(@small, x_0)
    v2: Signed = int_sub(x_0, 50)
    b_3: Signed = direct_call(@checked, v2)
    switch last_exception
      -> block1(x_0, a_1, b_3)
      &0 catch(_, e_4: Ptr(object)) -> block1(x_0, a_1, -1)
  block1(x_5: Signed, a_6: Signed, b_7: Signed):
    v8: Signed = int_and(x_5, 7)
    c_9: Signed = direct_call(@fact, v8)
    v10: Signed = int_add(a_6, b_7)
    v11: Signed = int_add(v10, c_9)
    -> return(v11)
  returns v12: Signed
  raises v13: Ptr(object_vtable), v14: Ptr(object)
}
";

/// `sum(n)`: a box replaced by a new one each round of a loop (seed 002's
/// boxed integers); `leak(n)`: a box passed to a call, which must stay.
const BOXES: &str = "
entry sum

graph sum(n_0) {
  block0(n_0: Signed):
    b_1: Ptr(inst_Box) = malloc(#inst_Box)
    v2: Void = setfield(b_1, #typeptr, &4)
    v3: Void = setfield(b_1, #value, 0)
    -> block1(n_0, b_1, 0)
  block1(n_4: Signed, b_5: Ptr(inst_Box), i_6: Signed):
    v7: Bool = int_lt(i_6, n_4)
    switch v7
      False -> block3(b_5)
      True -> block2(n_4, b_5, i_6)
  block2(n_8: Signed, b_9: Ptr(inst_Box), i_10: Signed):
    v11: Signed = getfield(b_9, #value)
    v12: Signed = int_add(v11, i_10)
    c_13: Ptr(inst_Box) = malloc(#inst_Box)
    v14: Void = setfield(c_13, #typeptr, &4)
    v15: Void = setfield(c_13, #value, v12)
    v16: Ptr(object) = cast_pointer(c_13)
    v17: Bool = ptr_nonzero(v16)
    v18: Signed = int_add(i_10, 1)
    -> block1(n_8, c_13, v18)
  block3(b_19: Ptr(inst_Box)):
    v20: Signed = getfield(b_19, #value)
    v21: Signed = direct_call(@leak, v20)
    v22: Signed = int_add(v20, v21)
    -> return(v22)
  returns v23: Signed
  raises v24: Ptr(object_vtable), v25: Ptr(object)
}

graph leak(n_0) {
  block0(n_0: Signed):
    b_1: Ptr(inst_Box) = malloc(#inst_Box)
    v2: Void = setfield(b_1, #value, n_0)
    v3: Signed = direct_call(@read, b_1)
    -> return(v3)
  returns v4: Signed
  raises v5: Ptr(object_vtable), v6: Ptr(object)
}

graph read(b_0) [\"dont_inline\"] {
  block0(b_0: Ptr(inst_Box)):
    v1: Signed = getfield(b_0, #value)
    -> return(v1)
  returns v2: Signed
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}
";

fn program(graphs: &str) -> Program<LowLevel> {
    parse_program::<LowLevel>(&format!("{TYPES}{graphs}")).unwrap()
}

/// What calling `graph` with `x` gives: its value, or the uncaught
/// exception's message.
fn run(p: &Program<LowLevel>, graph: &str, x: i64) -> Result<i64, String> {
    match LlInterpreter::new(p).call(graph, vec![LlValue::Signed(x)], &mut Vec::new()) {
        Ok(LlValue::Signed(n)) => Ok(n),
        Ok(other) => Err(format!("returned {}", other.kind())),
        Err(e) => Err(e.message),
    }
}

fn assert_same_behaviour(before: &Program<LowLevel>, after: &Program<LowLevel>, graph: &str) {
    for x in [-60, -1, 0, 1, 3, 7, 49, 50, 51, 120, 151, 200] {
        assert_eq!(
            run(before, graph, x),
            run(after, graph, x),
            "{graph}({x}) after:\n{}",
            print_graph(after.graph(graph).unwrap())
        );
    }
}

fn count_ops(p: &Program<LowLevel>, graph: &str, opname: Opcode) -> usize {
    p.graph(graph)
        .unwrap()
        .blocks
        .iter()
        .flat_map(|b| &b.operations)
        .filter(|op| op.opname == opname)
        .count()
}

#[test]
fn inlining_copies_small_callees_and_dispatches_their_raises_to_the_handler() {
    let before = program(INLINE);
    let mut after = before.clone();
    let stats = inline_program(&mut after, 32.4);
    simplify_program(&mut after);
    assert_eq!(stats.inlined, 2, "{stats:?}");
    // The recursive function stays a call.
    assert_eq!(count_ops(&after, "main", Opcode::DirectCall), 1);
    insta::assert_snapshot!("inline_main", print_graph(after.graph("main").unwrap()));
    assert_same_behaviour(&before, &after, "main");
}

#[test]
fn a_threshold_of_zero_inlines_nothing() {
    let mut p = program(INLINE);
    let before = p.clone();
    let stats = inline_program(&mut p, 0.0);
    assert_eq!(stats.inlined, 0);
    assert_eq!(p, before);
}

#[test]
fn malloc_removal_keeps_a_loops_boxes_in_variables_and_leaves_escaping_ones() {
    let before = program(BOXES);
    let mut after = before.clone();
    let stats = remove_mallocs(&mut after);
    simplify_program(&mut after);
    assert_eq!(stats.mallocs_removed, 2, "{stats:?}");
    assert_eq!(count_ops(&after, "sum", Opcode::Malloc), 0);
    assert_eq!(count_ops(&after, "leak", Opcode::Malloc), 1);
    insta::assert_snapshot!(
        "malloc_removal_sum",
        print_graph(after.graph("sum").unwrap())
    );
    assert_same_behaviour(&before, &after, "sum");
    assert_same_behaviour(&before, &after, "leak");
}

#[test]
fn inlining_makes_a_box_local_and_malloc_removal_then_removes_it() {
    let before = program(BOXES);
    let mut after = before.clone();
    inline_program(&mut after, 32.4);
    simplify_program(&mut after);
    let stats = remove_mallocs(&mut after);
    simplify_program(&mut after);
    // `leak` is inlined into `sum`, but `read` is `dont_inline`, so its
    // box still escapes there; the loop's boxes go as before.
    assert_eq!(stats.mallocs_removed, 2, "{stats:?}");
    assert_eq!(count_ops(&after, "sum", Opcode::Malloc), 1);
    assert_same_behaviour(&before, &after, "sum");
}

/// `main(x)`: a value that stays 3 around a loop, a test on twice it
/// (always true), and a branch no run takes.
const CONSTS: &str = "
entry main

graph main(x_0) {
  block0(x_0: Signed):
    -> block1(x_0, 3, 0)
  block1(x_1: Signed, k_2: Signed, i_3: Signed):
    v4: Bool = int_lt(i_3, 5)
    switch v4
      False -> block3(x_1, k_2, i_3)
      True -> block2(x_1, k_2, i_3)
  block2(x_5: Signed, k_6: Signed, i_7: Signed):
    v8: Signed = int_add(i_7, 1)
    -> block1(x_5, k_6, v8)
  block3(x_9: Signed, k_10: Signed, i_11: Signed):
    v12: Signed = int_mul(k_10, 2)
    v13: Bool = int_gt(v12, 5)
    switch v13
      False -> block4(x_9)
      True -> block5(x_9, v12, i_11)
  block4(x_14: Signed):
    v15: Signed = int_neg(x_14)
    -> return(v15)
  block5(x_16: Signed, c_17: Signed, i_18: Signed):
    v19: Signed = int_add(x_16, c_17)
    v20: Signed = int_add(v19, i_18)
    -> return(v20)
  returns v21: Signed
  raises v22: Ptr(object_vtable), v23: Ptr(object)
}
";

/// `main(x)`: a field read nothing uses, and a loop value that only
/// feeds its own next value.
const DEAD: &str = "
entry main

graph main(x_0) {
  block0(x_0: Signed):
    b_1: Ptr(inst_Box) = malloc(#inst_Box)
    v2: Void = setfield(b_1, #value, x_0)
    v3: Signed = getfield(b_1, #value)
    -> block1(x_0, 0, 0)
  block1(n_4: Signed, i_5: Signed, j_6: Signed):
    v7: Bool = int_lt(i_5, n_4)
    switch v7
      False -> return(i_5)
      True -> block2(n_4, i_5, j_6)
  block2(n_8: Signed, i_9: Signed, j_10: Signed):
    v11: Signed = int_add(j_10, 7)
    v12: Signed = int_add(i_9, 1)
    -> block1(n_8, v12, v11)
  returns v13: Signed
  raises v14: Ptr(object_vtable), v15: Ptr(object)
}
";

/// `main(x)`: `if y == 1: ... elif y == 5: ... elif y == 8: ... else: ...`
/// with `y = x + 1`, a test's result passed on along a False exit.
const CHAIN: &str = "
entry main

graph main(x_0) {
  block0(x_0: Signed):
    v1: Signed = int_add(x_0, 1)
    v2: Bool = int_eq(v1, 1)
    switch v2
      False -> block1(v1, x_0)
      True -> return(10)
  block1(y_3: Signed, x_4: Signed):
    v5: Bool = int_eq(y_3, 5)
    switch v5
      False -> block2(y_3, x_4, v5)
      True -> return(x_4)
  block2(y_6: Signed, x_7: Signed, c_8: Bool):
    v9: Bool = int_eq(8, y_6)
    switch v9
      False -> block3(x_7, c_8)
      True -> return(80)
  block3(x_10: Signed, c_11: Bool):
    v12: Signed = cast_bool_to_int(c_11)
    v13: Signed = int_sub(x_10, v12)
    -> return(v13)
  returns v14: Signed
  raises v15: Ptr(object_vtable), v16: Ptr(object)
}
";

#[test]
fn constants_flow_around_a_loop_and_fold_a_branch_and_its_dead_block() {
    use rpy_passes::backendopt::constfold::fold_constants;
    let before = program(CONSTS);
    let mut after = before.clone();
    let stats = fold_constants(&mut after);
    simplify_program(&mut after);
    assert_eq!(stats.branches_folded, 1, "{stats:?}");
    assert!(stats.blocks_removed >= 1, "{stats:?}");
    // `k * 2` is 6 and `6 > 5` is true: neither stays, nor does `-x`.
    assert_eq!(count_ops(&after, "main", Opcode::IntMul), 0);
    assert_eq!(count_ops(&after, "main", Opcode::IntGt), 0);
    assert_eq!(count_ops(&after, "main", Opcode::IntNeg), 0);
    insta::assert_snapshot!("constfold_main", print_graph(after.graph("main").unwrap()));
    assert_same_behaviour(&before, &after, "main");
}

#[test]
fn a_value_that_varies_around_a_loop_is_not_folded() {
    use rpy_passes::backendopt::constfold::fold_constants;
    let before = program(DEAD);
    let mut after = before.clone();
    let stats = fold_constants(&mut after);
    // i starts at 0 but is incremented: nothing is known of it.
    assert_eq!(stats.ops_folded, 0, "{stats:?}");
    assert_eq!(stats.branches_folded, 0, "{stats:?}");
    assert_same_behaviour(&before, &after, "main");
}

#[test]
fn dead_code_removes_an_unused_read_and_a_loop_value_nothing_needs() {
    use rpy_passes::backendopt::dead_code::remove_dead_code;
    let before = program(DEAD);
    let mut after = before.clone();
    let stats = remove_dead_code(&mut after);
    simplify_program(&mut after);
    assert_eq!(stats.reads_removed, 1, "{stats:?}");
    assert_eq!(stats.ops_removed, 2, "{stats:?}");
    assert_eq!(stats.inputargs_removed, 2, "{stats:?}");
    assert_eq!(count_ops(&after, "main", Opcode::Getfield), 0);
    // The store stays: the pass removes nothing with an effect.
    assert_eq!(count_ops(&after, "main", Opcode::Setfield), 1);
    assert_eq!(count_ops(&after, "main", Opcode::IntAdd), 1);
    insta::assert_snapshot!("dead_code_main", print_graph(after.graph("main").unwrap()));
    assert_same_behaviour(&before, &after, "main");
}

/// `text`'s program, and it with every chain of tests merged into a
/// switch (no test kept ahead) and simplified, with what the merge did.
fn merged_chains(
    text: &str,
) -> (
    Program<LowLevel>,
    Program<LowLevel>,
    rpy_passes::backendopt::merge_switches::MergeStats,
) {
    let before = program(text);
    let mut after = before.clone();
    let stats = rpy_passes::backendopt::merge_switches::merge_switches_keeping(&mut after, 0);
    simplify_program(&mut after);
    (before, after, stats)
}

#[test]
fn a_chain_of_equality_tests_becomes_one_switch() {
    let (before, after, stats) = merged_chains(CHAIN);
    assert_eq!(stats.chains_merged, 1, "{stats:?}");
    assert_eq!(stats.cases, 3, "{stats:?}");
    assert_eq!(count_ops(&after, "main", Opcode::IntEq), 0);
    insta::assert_snapshot!(
        "merge_switches_main",
        print_graph(after.graph("main").unwrap())
    );
    assert_same_behaviour(&before, &after, "main");
    for x in [0, 4, 7, -2] {
        assert_eq!(run(&after, "main", x), run(&before, "main", x));
    }
}

#[test]
fn a_single_test_or_a_test_of_another_value_is_not_a_chain() {
    use rpy_passes::backendopt::merge_switches::merge_switches_keeping;
    // block1 tests x_4, not the value block0 tested: no chain.
    let text = CHAIN.replace("v5: Bool = int_eq(y_3, 5)", "v5: Bool = int_eq(x_4, 5)");
    let before = program(&text);
    let mut after = before.clone();
    let stats = merge_switches_keeping(&mut after, 0);
    assert_eq!(stats.chains_merged, 0, "{stats:?}");
    assert_eq!(after, before);
}

#[test]
fn a_chain_starts_at_a_test_that_other_operations_follow() {
    // An interpreter's `pc += 1` placed after its `if opcode == ...`.
    let text = CHAIN.replace(
        "    switch v2\n      False -> block1(v1, x_0)",
        "    w_20: Signed = int_mul(x_0, 3)\n    switch v2\n      False -> block1(v1, w_20)",
    );
    let (before, after, stats) = merged_chains(&text);
    assert_eq!(stats.chains_merged, 1, "{stats:?}");
    assert_eq!(stats.cases, 3, "{stats:?}");
    assert_eq!(count_ops(&after, "main", Opcode::IntEq), 0);
    assert_eq!(count_ops(&after, "main", Opcode::IntMul), 1);
    for x in [-1, 0, 4, 7, -2] {
        assert_eq!(run(&after, "main", x), run(&before, "main", x), "main({x})");
    }
    // A later operation that reads the test's result keeps the test.
    let reads = CHAIN.replace(
        "    switch v2\n      False -> block1(v1, x_0)",
        "    w_20: Signed = cast_bool_to_int(v2)\n    switch v2\n      False -> block1(v1, w_20)",
    );
    let (before, after, stats) = merged_chains(&reads);
    assert_eq!(stats.cases, 2, "{stats:?}");
    assert_eq!(count_ops(&after, "main", Opcode::IntEq), 1);
    for x in [-1, 0, 4, 7, -2] {
        assert_eq!(run(&after, "main", x), run(&before, "main", x), "main({x})");
    }
}

/// `main(x)`: a chain of `n` tests `x == 10`, `x == 11`, ..., each True
/// exit returning its constant times 2, the last False exit returning -1.
fn chain_of_tests(n: usize) -> String {
    let mut text = String::from("\nentry main\n\ngraph main(x_0) {\n");
    for i in 0..n {
        let next = if i + 1 == n {
            "return(-1)".to_string()
        } else {
            format!("block{}(x_{i})", i + 1)
        };
        text += &format!(
            "  block{i}(x_{i}: Signed):\n    c_{i}: Bool = int_eq(x_{i}, {k})\n    switch c_{i}\n      False -> {next}\n      True -> return({r})\n",
            k = 10 + i,
            r = 2 * (10 + i),
        );
    }
    text + "  returns r_900: Signed\n  raises e_901: Ptr(object_vtable), f_902: Ptr(object)\n}\n"
}

#[test]
fn the_first_tests_of_a_chain_stay_tests_ahead_of_the_switch() {
    use rpy_passes::backendopt::merge_switches::{merge_switches, LEADING_TESTS_KEPT};
    let n = LEADING_TESTS_KEPT + 4;
    let before = program(&chain_of_tests(n));
    let mut after = before.clone();
    let stats = merge_switches(&mut after);
    simplify_program(&mut after);
    assert_eq!(stats.chains_merged, 1, "{stats:?}");
    assert_eq!(stats.cases, 4, "{stats:?}");
    assert_eq!(count_ops(&after, "main", Opcode::IntEq), LEADING_TESTS_KEPT);
    for x in 8..(12 + n as i64) {
        assert_eq!(run(&after, "main", x), run(&before, "main", x), "main({x})");
    }
    // A chain no longer than the tests kept plus one stays as it is.
    let short = program(&chain_of_tests(LEADING_TESTS_KEPT + 1));
    let mut unchanged = short.clone();
    assert_eq!(merge_switches(&mut unchanged).chains_merged, 0);
    assert_eq!(unchanged, short);
}

/// `main(x)`: `x * 3` computed in the start block, again in a block it
/// dominates, and again with `+ 1` in a loop that does not change `x`.
const INVARIANT: &str = "
entry main

graph main(x_0) {
  block0(x_0: Signed):
    v1: Signed = int_mul(x_0, 3)
    v2: Bool = int_gt(x_0, 0)
    switch v2
      False -> block1(x_0, 0, 0)
      True -> block2(x_0, v1)
  block1(n_3: Signed, i_4: Signed, acc_5: Signed):
    v6: Bool = int_lt(i_4, 10)
    switch v6
      False -> return(acc_5)
      True -> block3(n_3, i_4, acc_5)
  block3(n_7: Signed, i_8: Signed, acc_9: Signed):
    v10: Signed = int_mul(n_7, 3)
    v11: Signed = int_add(v10, 1)
    v12: Signed = int_add(acc_9, v11)
    v13: Signed = int_add(i_8, 1)
    -> block1(n_7, v13, v12)
  block2(x_14: Signed, y_15: Signed):
    v16: Signed = int_mul(x_14, 3)
    v17: Signed = int_add(v16, y_15)
    -> return(v17)
  returns v18: Signed
  raises v19: Ptr(object_vtable), v20: Ptr(object)
}
";

/// `main(x)`: a loop whose additions all depend on the loop's own values,
/// written with the operands in the program's order.
const NOTHING_INVARIANT: &str = "
entry main

graph main(x_0) {
  block0(x_0: Signed):
    -> block1(x_0, 0, 0)
  block1(n_1: Signed, i_2: Signed, acc_3: Signed):
    v4: Bool = int_lt(i_2, n_1)
    switch v4
      False -> return(acc_3)
      True -> block2(n_1, i_2, acc_3)
  block2(n_5: Signed, i_6: Signed, acc_7: Signed):
    v8: Signed = int_add(acc_7, i_6)
    v9: Signed = int_mul(v8, 1103515245)
    v10: Signed = int_add(i_6, 1)
    -> block1(n_5, v10, v9)
  returns v11: Signed
  raises v12: Ptr(object_vtable), v13: Ptr(object)
}
";

#[test]
fn a_loop_with_nothing_invariant_or_repeated_is_left_as_written() {
    use rpy_passes::backendopt::global_egraph::global_egraph;
    let before = program(NOTHING_INVARIANT);
    let mut after = before.clone();
    // The commutativity rules put `i + acc` beside `acc + i`: still one
    // operation, so there is nothing to place back.
    let stats = global_egraph(&mut after);
    assert_eq!(stats.graphs_unchanged, 1, "{stats:?}");
    assert_eq!(after, before);
    // Nor does the per-block rewriting respell what it cannot improve.
    let mut rewritten = before.clone();
    for g in &mut rewritten.graphs {
        rpy_passes::backendopt::optimize_graph(g);
    }
    assert_eq!(rewritten, before);
}

#[test]
fn the_function_egraph_numbers_values_across_blocks_and_hoists_loop_invariants() {
    use rpy_passes::backendopt::dead_code::remove_dead_code;
    use rpy_passes::backendopt::global_egraph::global_egraph;
    let before = program(INVARIANT);
    let mut after = before.clone();
    let stats = global_egraph(&mut after);
    remove_dead_code(&mut after);
    simplify_program(&mut after);
    assert_eq!(stats.graphs_skipped, 0, "{stats:?}");
    // The loop's `n * 3` is the start block's `x * 3` (value numbering
    // across blocks), and so is block2's.
    assert!(stats.values_reused >= 2, "{stats:?}");
    assert_eq!(count_ops(&after, "main", Opcode::IntMul), 1);
    // `x * 3 + 1` does not change in the loop: it is computed before it.
    assert_eq!(stats.ops_hoisted, 1, "{stats:?}");
    let g = after.graph("main").unwrap();
    let loop_body = g
        .blocks
        .iter()
        .find(|b| {
            b.operations
                .iter()
                .filter(|o| o.opname == Opcode::IntAdd)
                .count()
                == 2
        })
        .expect("the loop body adds to acc and to i");
    assert_eq!(loop_body.operations.len(), 2, "{}", print_graph(g));
    insta::assert_snapshot!("global_egraph_main", print_graph(g));
    assert_same_behaviour(&before, &after, "main");
    for x in [-3, 0, 1, 7, i64::MAX / 2] {
        assert_eq!(run(&after, "main", x), run(&before, "main", x), "main({x})");
    }
}

/// A random graph of integer operations over several blocks, as text:
/// blocks only jump forward (so every run ends), some ending in a test
/// `int_eq(a, C)` of their first argument passed on along the False exit
/// (chains for `merge_switches`), constants often (for `constfold`), and
/// values nothing reads (for `dead_code`).
fn random_graph(seed: u64) -> String {
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
        fn pick<'a>(&mut self, from: &'a [String]) -> &'a str {
            &from[self.below(from.len())]
        }
        /// A constant (one time in `one_in`) or one of `vars`.
        fn value(&mut self, vars: &[String], one_in: usize) -> String {
            const CONSTS: [i64; 6] = [0, 1, 2, 3, 5, -1];
            if self.below(one_in) == 0 {
                CONSTS[self.below(CONSTS.len())].to_string()
            } else {
                self.pick(vars).to_string()
            }
        }
    }
    let mut rng = Rng(seed | 1);
    let nblocks = 2 + rng.below(5);
    let mut var = 0;
    let mut fresh = || {
        var += 1;
        format!("v{var}")
    };
    let mut text = String::from("entry main\n\ngraph main(v1, v2, v3) {\n");
    for b in 0..nblocks {
        let ins: Vec<String> = (0..3).map(|_| fresh()).collect();
        let params: Vec<String> = ins.iter().map(|v| format!("{v}: Signed")).collect();
        text += &format!("  block{b}({}):\n", params.join(", "));
        let mut ints = ins.clone();
        let mut bools: Vec<String> = Vec::new();
        let last = b + 1 == nblocks;
        let test_block = !last && rng.below(3) == 0;
        if !test_block {
            for _ in 0..rng.below(6) {
                let x = rng.value(&ints, 3);
                let y = rng.value(&ints, 3);
                let r = fresh();
                let ops = [
                    "int_add", "int_sub", "int_mul", "int_and", "int_or", "int_xor", "int_lt",
                    "int_eq", "int_ne", "int_ge",
                ];
                let op = ops[rng.below(ops.len())];
                if ["int_lt", "int_eq", "int_ne", "int_ge"].contains(&op) {
                    text += &format!("    {r}: Bool = {op}({x}, {y})\n");
                    bools.push(r);
                } else {
                    text += &format!("    {r}: Signed = {op}({x}, {y})\n");
                    ints.push(r);
                }
            }
        }
        let later = |rng: &mut Rng| b + 1 + rng.below(nblocks - b - 1);
        let three = |rng: &mut Rng, first: Option<&str>| -> String {
            let mut args: Vec<String> = (0..3).map(|_| rng.value(&ints, 4)).collect();
            if let Some(f) = first {
                args[0] = f.to_string();
            }
            args.join(", ")
        };
        if last {
            text += &format!("    -> return({})\n", rng.value(&ints, 4));
        } else if test_block || rng.below(3) == 0 {
            // A test of the first argument, or of a value of this block.
            let a = if test_block {
                ins[0].clone()
            } else {
                rng.pick(&ints).to_string()
            };
            let c = rng.value(&[], 1);
            let r = fresh();
            text += &format!("    {r}: Bool = int_eq({a}, {c})\n    switch {r}\n");
            let (t, f) = (later(&mut rng), later(&mut rng));
            text += &format!("      False -> block{f}({})\n", three(&mut rng, Some(&a)));
            text += &format!("      True -> block{t}({})\n", three(&mut rng, None));
        } else if !bools.is_empty() && rng.below(2) == 0 {
            let s = rng.pick(&bools).to_string();
            let (t, f) = (later(&mut rng), later(&mut rng));
            text += &format!("    switch {s}\n");
            text += &format!("      False -> block{f}({})\n", three(&mut rng, None));
            text += &format!("      True -> block{t}({})\n", three(&mut rng, None));
        } else {
            let t = later(&mut rng);
            text += &format!("    -> block{t}({})\n", three(&mut rng, None));
        }
    }
    let (r, e1, e2) = (fresh(), fresh(), fresh());
    text += &format!(
        "  returns {r}: Signed\n  raises {e1}: Ptr(object_vtable), {e2}: Ptr(object)\n}}\n"
    );
    text
}

fn run3(p: &Program<LowLevel>, args: [i64; 3]) -> Result<i64, String> {
    let args = args.iter().map(|x| LlValue::Signed(*x)).collect();
    match LlInterpreter::new(p).call("main", args, &mut Vec::new()) {
        Ok(LlValue::Signed(n)) => Ok(n),
        Ok(other) => Err(format!("returned {}", other.kind())),
        Err(e) => Err(e.message),
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// Each of the three passes, and the three in a row, keep what random
    /// graphs compute.
    #[test]
    fn constfold_dead_code_and_switch_merging_keep_random_graphs_meaning(seed in proptest::prelude::any::<u64>()) {
        use rpy_passes::backendopt::constfold::fold_constants;
        use rpy_passes::backendopt::dead_code::remove_dead_code;
        use rpy_passes::backendopt::merge_switches::{merge_switches, merge_switches_keeping};
        use rpy_passes::backendopt::global_egraph::global_egraph;
        use rpy_passes::backendopt::branch_facts::branch_facts;
        let text = random_graph(seed);
        let before = program(&text);
        type Pass = fn(&mut Program<LowLevel>);
        let passes: [(&str, Pass); 8] = [
            ("constfold", |p| { fold_constants(p); }),
            ("branch_facts", |p| { branch_facts(p); }),
            ("branch_facts then constfold", |p| {
                branch_facts(p);
                simplify_program(p);
                fold_constants(p);
            }),
            ("dead_code", |p| { remove_dead_code(p); }),
            ("merge_switches", |p| { merge_switches(p); }),
            ("merge_switches keeping no test", |p| { merge_switches_keeping(p, 0); }),
            ("global_egraph", |p| { global_egraph(p); }),
            ("all", |p| {
                fold_constants(p);
                simplify_program(p);
                branch_facts(p);
                simplify_program(p);
                remove_dead_code(p);
                simplify_program(p);
                merge_switches(p);
                global_egraph(p);
            }),
        ];
        for (name, pass) in passes {
            let mut after = before.clone();
            pass(&mut after);
            simplify_program(&mut after);
            for a in [-1i64, 0, 1, 2, 3, 5, 7] {
                for b in [0i64, 1, -1, 5] {
                    let args = [a, b, a.wrapping_mul(b).wrapping_sub(1)];
                    proptest::prop_assert_eq!(
                        run3(&before, args),
                        run3(&after, args),
                        "{} changed main{:?} of\n{}\nafter:\n{}",
                        name,
                        args,
                        text,
                        print_graph(after.graph("main").unwrap())
                    );
                }
            }
        }
    }
}

/// The random graphs above give each pass something to do, so the
/// property test checks changed graphs, not unchanged ones.
#[test]
fn random_graphs_give_each_pass_work() {
    use rpy_passes::backendopt::branch_facts::branch_facts;
    use rpy_passes::backendopt::constfold::fold_constants;
    use rpy_passes::backendopt::dead_code::remove_dead_code;
    use rpy_passes::backendopt::merge_switches::merge_switches_keeping;
    let (mut folded, mut branches, mut dead, mut merged) = (0, 0, 0, 0);
    let (mut facts, mut decided) = (0, 0);
    for seed in 0..300u64 {
        let p = program(&random_graph(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        let c = fold_constants(&mut p.clone());
        folded += c.ops_folded;
        branches += c.branches_folded;
        dead += remove_dead_code(&mut p.clone()).ops_removed;
        merged += merge_switches_keeping(&mut p.clone(), 0).chains_merged;
        let f = branch_facts(&mut p.clone());
        facts += f.values_made_constant;
        decided += f.switches_decided;
    }
    assert!(
        folded > 0 && branches > 0 && dead > 0 && merged > 0 && facts > 0 && decided > 0,
        "folded {folded}, branches {branches}, dead {dead}, merged {merged}, \
         branch facts {facts} ({decided} switches decided)"
    );
}

/// `main(x)` stores `x` in a box, calls through the function pointer of
/// table `&5` (holding `TABLE`) with the box, and reads the field again.
fn indirect_store_program(table: &str) -> Program<LowLevel> {
    program(&format!(
        "type array_fn = GcArray(Func(Ptr(inst_Box) -> Signed))
prebuilt &5 = array<array_fn> [{table}]
entry main

graph writer(b_0) {{
  block0(b_0: Ptr(inst_Box)):
    v1: Void = setfield(b_0, #value, 7)
    -> return(1)
  returns v2: Signed
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}}

graph reader(b_0) {{
  block0(b_0: Ptr(inst_Box)):
    v1: Signed = getfield(b_0, #value)
    -> return(v1)
  returns v2: Signed
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}}

graph main(x_0) {{
  block0(x_0: Signed):
    b_1: Ptr(inst_Box) = malloc(#inst_Box)
    v2: Void = setfield(b_1, #value, x_0)
    f_3: Func(Ptr(inst_Box) -> Signed) = getarrayitem(&5, 0)
    v4: Signed = indirect_call(f_3, b_1)
    v5: Signed = getfield(b_1, #value)
    v6: Signed = int_add(v4, v5)
    -> return(v6)
  returns v7: Signed
  raises v8: Ptr(object_vtable), v9: Ptr(object)
}}
"
    ))
}

#[test]
fn an_indirect_call_forgets_the_fields_a_graph_of_its_shape_may_write() {
    use rpy_passes::backendopt::load_folding::fold_loads;
    // A writer may be called: the read after the call stays.
    let before = indirect_store_program("@writer, @reader");
    let mut after = before.clone();
    assert_eq!(fold_loads(&mut after).loads_folded, 0);
    assert_eq!(count_ops(&after, "main", Opcode::Getfield), 1);
    assert_same_behaviour(&before, &after, "main");
    // Only graphs that read: the value stored before the call is reused.
    // (The writer exists, with the same shape, but its address is not taken.)
    let before = indirect_store_program("@reader");
    let mut after = before.clone();
    assert_eq!(fold_loads(&mut after).loads_folded, 1);
    assert_eq!(count_ops(&after, "main", Opcode::Getfield), 0);
    assert_same_behaviour(&before, &after, "main");
}

/// `main(x)`: after `x == 5` the true branch computes with 5; after
/// `x < 10` a test `x < 20` is decided, and after its false branch `x >=
/// 10` is. `pos(x)`: after `x < 0` fails and `x == 0` fails, `x` is at
/// least 1, so `x <= 0` is false.
const BRANCHES: &str = "
entry main

graph main(x_0) {
  block0(x_0: Signed):
    v1: Bool = int_eq(x_0, 5)
    switch v1
      False -> block1(x_0)
      True -> block2(x_0)
  block1(x_2: Signed):
    v3: Bool = int_lt(x_2, 10)
    switch v3
      False -> block4(x_2)
      True -> block3(x_2)
  block2(x_4: Signed):
    v5: Signed = int_mul(x_4, 3)
    v6: Signed = int_add(v5, 1)
    -> return(v6)
  block3(x_7: Signed):
    v8: Bool = int_lt(x_7, 20)
    switch v8
      False -> return(200)
      True -> return(100)
  block4(x_9: Signed):
    v10: Bool = int_ge(x_9, 10)
    switch v10
      False -> return(300)
      True -> return(x_9)
  returns v11: Signed
  raises v12: Ptr(object_vtable), v13: Ptr(object)
}

graph pos(x_0) {
  block0(x_0: Signed):
    v1: Bool = int_lt(x_0, 0)
    switch v1
      False -> block1(x_0)
      True -> return(-1)
  block1(x_2: Signed):
    v3: Bool = int_is_true(x_2)
    switch v3
      False -> return(0)
      True -> block2(x_2)
  block2(x_4: Signed):
    v5: Bool = int_le(x_4, 0)
    v6: Signed = int_add(x_4, 100)
    switch v5
      False -> return(v6)
      True -> return(-2)
  returns v7: Signed
  raises v8: Ptr(object_vtable), v9: Ptr(object)
}
";

#[test]
fn branch_conditions_give_the_values_on_each_path_what_they_decide() {
    use rpy_passes::backendopt::branch_facts::branch_facts;
    use rpy_passes::backendopt::constfold::fold_constants;
    let before = program(BRANCHES);
    let mut after = before.clone();
    let stats = branch_facts(&mut after);
    simplify_program(&mut after);
    // x is 5 in the true branch (x, x * 3 and x * 3 + 1); v8, v10 and v5
    // are decided.
    assert_eq!(stats.switches_decided, 3, "{stats:?}");
    fold_constants(&mut after);
    simplify_program(&mut after);
    insta::assert_snapshot!(
        "branch_facts_main",
        print_graph(after.graph("main").unwrap())
    );
    insta::assert_snapshot!("branch_facts_pos", print_graph(after.graph("pos").unwrap()));
    assert_eq!(count_ops(&after, "main", Opcode::IntMul), 0);
    assert_eq!(count_ops(&after, "pos", Opcode::IntLe), 0);
    assert_same_behaviour(&before, &after, "main");
    for x in [-5, -1, 0, 1, 2, 100] {
        assert_eq!(run(&before, "pos", x), run(&after, "pos", x), "pos({x})");
    }
}

/// `main(x)`: a box's `value` written twice with only arithmetic between
/// (the first store is dead), then written again after a read through
/// another pointer that may be the same box, and after a call (both kept).
const STORES: &str = "
entry main

graph peek(b_0) {
  block0(b_0: Ptr(inst_Box)):
    v1: Signed = getfield(b_0, #value)
    -> return(v1)
  returns v2: Signed
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}

graph main(x_0) {
  block0(x_0: Signed):
    b_1: Ptr(inst_Box) = malloc(#inst_Box)
    c_2: Ptr(inst_Box) = same_as(b_1)
    v3: Void = setfield(b_1, #value, 1)
    v4: Signed = int_mul(x_0, 2)
    v5: Void = setfield(b_1, #typeptr, &4)
    v6: Void = setfield(b_1, #value, v4)
    v7: Signed = getfield(c_2, #value)
    v8: Void = setfield(b_1, #value, x_0)
    v9: Signed = direct_call(@peek, b_1)
    v10: Void = setfield(b_1, #value, 3)
    v11: Signed = getfield(b_1, #value)
    v12: Signed = int_add(v7, v9)
    v13: Signed = int_add(v12, v11)
    -> return(v13)
  returns v14: Signed
  raises v15: Ptr(object_vtable), v16: Ptr(object)
}
";

#[test]
fn a_field_written_again_before_any_read_loses_its_first_store() {
    use rpy_passes::backendopt::load_folding::remove_dead_stores;
    let before = program(STORES);
    let mut after = before.clone();
    let g = after.graph_mut("main").unwrap();
    // Only `value = 1`: `value = v4` is read through `c_2`, `value = x_0`
    // by the call.
    assert_eq!(remove_dead_stores(g, false), 1);
    assert_eq!(count_ops(&after, "main", Opcode::Setfield), 4);
    let main = print_graph(after.graph("main").unwrap());
    assert!(!main.contains("setfield(b_1, #value, 1)"), "{main}");
    assert_same_behaviour(&before, &after, "main");
}

/// `main(x)`: a box's `value` written twice with an allocation between.
const STORES_AROUND_MALLOC: &str = "
entry main

graph main(x_0) {
  block0(x_0: Signed):
    b_1: Ptr(inst_Box) = malloc(#inst_Box)
    v2: Void = setfield(b_1, #value, 1)
    c_3: Ptr(inst_Box) = malloc(#inst_Box)
    v4: Void = setfield(b_1, #value, x_0)
    v5: Signed = getfield(b_1, #value)
    -> return(v5)
  returns v6: Signed
  raises v7: Ptr(object_vtable), v8: Ptr(object)
}
";

#[test]
fn an_allocation_reads_every_field_when_the_collector_runs_program_code() {
    use rpy_passes::backendopt::load_folding::remove_dead_stores;
    // A `__del__` the allocation's collection runs may read `value`.
    let mut kept = program(STORES_AROUND_MALLOC);
    assert_eq!(remove_dead_stores(kept.graph_mut("main").unwrap(), true), 0);
    // Without one, an allocation reads no field of another object.
    let mut removed = program(STORES_AROUND_MALLOC);
    assert_eq!(
        remove_dead_stores(removed.graph_mut("main").unwrap(), false),
        1
    );
}

/// `main(x)`: a box holding `x`; `reader` only reads it, `scaled` is
/// elidable. The box reaches the next block under two names.
const REPEATED_CALLS: &str = "
entry main

graph reader(b_0) {
  block0(b_0: Ptr(inst_Box)):
    v1: Signed = getfield(b_0, #value)
    -> return(v1)
  returns v2: Signed
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}

graph scaled(n_0) [\"elidable\"] {
  block0(n_0: Signed):
    v1: Signed = int_mul(n_0, 3)
    -> return(v1)
  returns v2: Signed
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}

graph main(x_0) {
  block0(x_0: Signed):
    b_1: Ptr(inst_Box) = malloc(#inst_Box)
    v2: Void = setfield(b_1, #value, x_0)
    r_3: Signed = direct_call(@reader, b_1)
    s_4: Signed = direct_call(@scaled, x_0)
    v5: Bool = int_gt(r_3, 0)
    switch v5
      False -> return(r_3)
      True -> block1(b_1, b_1, s_4, x_0)
  block1(b_6: Ptr(inst_Box), c_7: Ptr(inst_Box), s_8: Signed, x_19: Signed):
    r_9: Signed = direct_call(@reader, c_7)
    v10: Void = setfield(b_6, #value, 7)
    r_11: Signed = direct_call(@reader, c_7)
    s_12: Signed = direct_call(@scaled, x_19)
    v13: Signed = int_add(r_9, r_11)
    v14: Signed = int_add(v13, s_12)
    v15: Signed = int_add(v14, s_8)
    -> return(v15)
  returns v16: Signed
  raises v17: Ptr(object_vtable), v18: Ptr(object)
}
";

#[test]
fn repeated_calls_of_readers_and_elidable_graphs_reuse_the_first_result() {
    use rpy_passes::backendopt::load_folding::fold_loads;
    let before = program(REPEATED_CALLS);
    let mut after = before.clone();
    // In block1: the first `reader` call (nothing written since block0's)
    // and `scaled` (elidable: even after the store). The second `reader`
    // follows a store and stays.
    assert_eq!(fold_loads(&mut after).calls_folded, 2);
    assert_eq!(count_ops(&after, "main", Opcode::DirectCall), 3);
    assert_same_behaviour(&before, &after, "main");
}

/// `flags(x)`: `f.a or (not f.b and f.c)` of an object whose flags are
/// x's bits, as the rtyper gives it (a switch per operand); `guarded(x)`:
/// `p is not None and p.a`, whose second operand reads an object the
/// first only tests.
const SHORT_CIRCUIT: &str = "
type inst_Flags = GcStruct { typeptr: Ptr(object_vtable), a: Bool, b: Bool, c: Bool }
entry flags

graph flags(x_0) {
  block0(x_0: Signed):
    f_1: Ptr(inst_Flags) = malloc(#inst_Flags)
    v2: Signed = int_and(x_0, 1)
    v3: Bool = int_is_true(v2)
    v4: Void = setfield(f_1, #a, v3)
    v5: Signed = int_and(x_0, 2)
    v6: Bool = int_is_true(v5)
    v7: Void = setfield(f_1, #b, v6)
    v8: Signed = int_and(x_0, 4)
    v9: Bool = int_is_true(v8)
    v10: Void = setfield(f_1, #c, v9)
    -> block1(f_1)
  block1(f_20: Ptr(inst_Flags)):
    v21: Bool = getfield(f_20, #a)
    switch v21
      False -> block2(f_20)
      True -> block4(v21)
  block2(f_22: Ptr(inst_Flags)):
    v23: Bool = getfield(f_22, #b)
    v24: Bool = bool_not(v23)
    switch v24
      False -> block4(v24)
      True -> block3(f_22)
  block3(f_25: Ptr(inst_Flags)):
    v26: Bool = getfield(f_25, #c)
    -> block4(v26)
  block4(r_27: Bool):
    v28: Signed = cast_bool_to_int(r_27)
    -> return(v28)
  returns v29: Signed
  raises v30: Ptr(object_vtable), v31: Ptr(object)
}

graph guarded(x_0) {
  block0(x_0: Signed):
    v1: Bool = int_gt(x_0, 0)
    switch v1
      False -> block2(None)
      True -> block1()
  block1():
    f_2: Ptr(inst_Flags) = malloc(#inst_Flags)
    v3: Void = setfield(f_2, #a, True)
    -> block2(f_2)
  block2(p_4: Ptr(inst_Flags)):
    v5: Bool = ptr_nonzero(p_4)
    switch v5
      False -> block4(v5)
      True -> block3(p_4)
  block3(p_6: Ptr(inst_Flags)):
    v7: Bool = getfield(p_6, #a)
    -> block4(v7)
  block4(r_8: Bool):
    v9: Signed = cast_bool_to_int(r_8)
    -> return(v9)
  returns v10: Signed
  raises v11: Ptr(object_vtable), v12: Ptr(object)
}
";

#[test]
fn a_short_circuit_condition_on_fields_read_becomes_one_branchless_block() {
    use rpy_passes::backendopt::if_conversion::{convert_in_graph, IfConversionStats};
    let before = program(SHORT_CIRCUIT);
    let mut after = before.clone();
    let mut stats = IfConversionStats::default();
    for g in &mut after.graphs {
        convert_in_graph(g, &mut stats);
    }
    // Both switches of `flags` go (`f.c` moved twice, `f.b` once);
    // `guarded`'s read of `p.a` stays behind its null test, and its first
    // switch guards an allocation.
    assert_eq!(
        stats,
        IfConversionStats {
            branches_removed: 2,
            reads_speculated: 3
        }
    );
    let flags = after.graph("flags").unwrap();
    assert!(
        flags.blocks.iter().all(|b| b.exitswitch.is_none()),
        "{}",
        print_graph(flags)
    );
    let guarded = print_graph(after.graph("guarded").unwrap());
    assert_eq!(guarded.matches("switch").count(), 2, "{guarded}");
    for graph in ["flags", "guarded"] {
        assert_same_behaviour(&before, &after, graph);
    }
    for x in 0..8 {
        let expected = i64::from(x & 1 != 0 || (x & 2 == 0 && x & 4 != 0));
        assert_eq!(run(&after, "flags", x), Ok(expected), "flags({x})");
    }
}

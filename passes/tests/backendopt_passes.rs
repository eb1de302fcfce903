//! The whole-program backend optimizations on small hand-written programs:
//! graph text in, graph text out (snapshotted), and every program run in
//! the LLInterpreter before and after on several inputs, which must agree.

use rpy_ir::graph::{LowLevel, Program};
use rpy_ir::text::{parse_program, print_graph};
use rpy_passes::backendopt::inline::inline_program;
use rpy_passes::backendopt::malloc_removal::remove_mallocs;
use rpy_passes::llinterp::{LlInterpreter, LlValue};
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

fn count_ops(p: &Program<LowLevel>, graph: &str, opname: &str) -> usize {
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
    assert_eq!(count_ops(&after, "main", "direct_call"), 1);
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
    assert_eq!(count_ops(&after, "sum", "malloc"), 0);
    assert_eq!(count_ops(&after, "leak", "malloc"), 1);
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
    assert_eq!(count_ops(&after, "sum", "malloc"), 1);
    assert_same_behaviour(&before, &after, "sum");
}

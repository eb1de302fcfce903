//! Text-in/text-out cases for the simplify pass.

use rpy_ir::graph::Flow;
use rpy_ir::text::{parse_graph, print_graph};
use rpy_passes::flow::check_graph_well_formed;
use rpy_passes::simplify::simplify_graph;

fn check(input: &str, expect: &str) {
    let mut g = parse_graph::<Flow>(input).unwrap_or_else(|e| panic!("{e}"));
    simplify_graph(&mut g);
    check_graph_well_formed(&g).unwrap_or_else(|e| panic!("{e:?}"));
    let got = print_graph(&g);
    assert_eq!(got.trim(), expect.trim(), "\n{got}");
}

#[test]
fn forwarding_block_is_bypassed() {
    check(
        "graph f(a_90) {
  block0(a_90):
    v1 = bool(a_90)
    switch v1
      False -> block1(a_90)
      True -> block2(a_90)
  block1(x_93):
    -> block2(x_93)
  block2(y_94):
    v2 = neg(y_94)
    -> return(v2)
}",
        "graph f(a_0) {
  block0(a_0):
    v1 = bool(a_0)
    switch v1
      False -> block1(a_0)
      True -> block1(a_0)
  block1(y_2):
    v3 = neg(y_2)
    -> return(v3)
  returns v4
  raises v5, v6
}",
    );
}

#[test]
fn single_entry_block_is_merged_into_its_predecessor() {
    check(
        "graph f(a_90) {
  block0(a_90):
    v1 = add(a_90, 1)
    -> block1(v1, a_90)
  block1(b_95, c_96):
    v2 = mul(b_95, c_96)
    -> return(v2)
}",
        "graph f(a_0) {
  block0(a_0):
    v1 = add(a_0, 1)
    v2 = mul(v1, a_0)
    -> return(v2)
  returns v3
  raises v4, v5
}",
    );
}

#[test]
fn dead_loop_argument_is_removed() {
    // `unused` travels around the loop but nothing reads it.
    check(
        "graph f(n_91, unused_92) {
  block0(n_91, unused_92):
    -> block1(n_91, unused_92, 0)
  block1(i_97, u_98, acc_99):
    v1 = lt(i_97, 10)
    switch v1
      False -> return(acc_99)
      True -> block2(i_97, u_98, acc_99)
  block2(i2_100, u2_101, acc2_102):
    v2 = add(acc2_102, i2_100)
    v3 = add(i2_100, 1)
    -> block1(v3, u2_101, v2)
}",
        "graph f(n_0, unused_1) {
  block0(n_0, unused_1):
    -> block1(n_0, 0)
  block1(i_2, acc_3):
    v4 = lt(i_2, 10)
    switch v4
      False -> return(acc_3)
      True -> block2(i_2, acc_3)
  block2(i2_5, acc2_6):
    v7 = add(acc2_6, i2_5)
    v8 = add(i2_5, 1)
    -> block1(v8, v7)
  returns v9
  raises v10, v11
}",
    );
}

#[test]
fn loop_of_empty_blocks_terminates() {
    check(
        "graph f() {
  block0:
    -> block1()
  block1:
    -> block2()
  block2:
    -> block1()
}",
        "graph f() {
  block0:
    -> block1()
  block1:
    -> block1()
  returns v0
  raises v1, v2
}",
    );
}

#[test]
fn a_block_catching_exceptions_keeps_its_exits_and_their_variables() {
    // The normal successor has a single entry but is not merged: the raising
    // operation must stay last in its block. Unused arguments still go, on
    // exception exits too; the link's own variables stay defined.
    check(
        "graph f(a_90, b_91) {
  block0(a_90, b_91):
    v1 = floordiv(a_90, b_91)
    switch last_exception
      -> block1(v1, a_90)
      %ZeroDivisionError catch(t_5, e_6) -> block2(b_91, e_6)
  block1(q_3, unused_4):
    v2 = neg(q_3)
    -> return(v2)
  block2(unused_7, e_8):
    -> except(%ValueError, e_8)
}",
        "graph f(a_0, b_1) {
  block0(a_0, b_1):
    v2 = floordiv(a_0, b_1)
    switch last_exception
      -> block1(v2)
      %ZeroDivisionError catch(t_3, e_4) -> except(%ValueError, e_4)
  block1(q_5):
    v6 = neg(q_5)
    -> return(v6)
  returns v7
  raises v8, v9
}",
    );
}

#[test]
fn a_block_before_a_catching_block_absorbs_it() {
    // Merging the catching block into its only predecessor keeps the raising
    // operation last.
    check(
        "graph f(a_90) {
  block0(a_90):
    v1 = add(a_90, 1)
    -> block1(v1)
  block1(x_2):
    v3 = simple_call(@g, x_2)
    switch last_exception
      -> return(v3)
      %Exception catch(t_4, e_5) -> return(0)
}",
        "graph f(a_0) {
  block0(a_0):
    v1 = add(a_0, 1)
    v2 = simple_call(@g, v1)
    switch last_exception
      -> return(v2)
      %Exception catch(t_3, e_4) -> return(0)
  returns v5
  raises v6, v7
}",
    );
}

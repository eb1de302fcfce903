//! Merging chains of `if` on one variable into a switch (the original's
//! `merge_if_blocks`): `if x == 1: ... elif x == 5: ... elif x == 7: ...`
//! is, after the rtyper, a block ending with `c = int_eq(x, 1)` and a
//! switch on `c`, whose False exit goes to a block doing nothing but
//! `c2 = int_eq(x, 5)` and switching on it, and so on. The chain becomes
//! one switch on `x` in the first block, with a case per constant (the
//! True exit of each test) and a `default` case (the last test's False
//! exit); the C compiler makes a jump table or a binary search of it.
//!
//! The chain's first block may compute other things too, before or after
//! its test (an interpreter's `opcode = ord(code[pc]); pc += 1`), as long
//! as nothing but the switch and the links reads the test's result: the
//! original's targettlr, whose dispatch test the e-graph places ahead of
//! its `pc += 1`, ran 1.53 s with that test left out of the chain and 1.38
//! s with it in (`square.tlr 100000000`; the original's executable 1.31 s).
//!
//! A block joins the chain when it is entered only from the previous
//! test's False exit, holds exactly the one `int_eq` of the variable the
//! previous block tested (passed along that link) and a constant, and
//! switches on its result. A constant tested twice ends the chain there
//! (its second test can never be true). The tests' results, where a link
//! passes them on, become the constant they are on that link. A chain of
//! one test stays as it is.
//!
//! The first [`LEADING_TESTS_KEPT`] tests of a chain stay tests, ahead of
//! the switch: GenC emits the switch as a C `switch`, which the C compiler
//! makes a jump table (a bounds check, a table load and an indirect jump)
//! as soon as the cases are dense, and for an interpreter's dispatch that
//! is slower than the few well-predicted compares that find the cases the
//! programmer wrote first, which are the frequent ones as a rule (measured
//! on `benches/programs/vm.py`, 10,000,000 iterations, gcc -O2: the whole
//! chain as a switch 0.50 s, the chain of tests 0.41 s, three tests then
//! the switch 0.42 s; the switch's jump table alone was the difference:
//! the same C with `-fno-jump-tables` ran in 0.42 s). A chain of a few tests
//! is thus left as it is; a long one still gets its switch, whose binary
//! search or table beats a long walk down the chain.

use fxhash::FxHashMap as HashMap;
use rpy_ir::graph::{Arg, BlockId, Constant, FunctionGraph, Link, LowLevel, Program, Var};
use rpy_ir::opcode::Opcode;

type G = FunctionGraph<LowLevel>;

/// What [`merge_switches`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeStats {
    /// Chains of tests made switches.
    pub chains_merged: usize,
    /// The cases of those switches (tests merged), not counting defaults.
    pub cases: usize,
}

/// How many tests at the head of a chain stay tests ahead of the switch
/// (see the module's documentation for the measurement).
pub const LEADING_TESTS_KEPT: usize = 3;

/// Merges the chains of `int_eq` tests of every graph, keeping the first
/// [`LEADING_TESTS_KEPT`] tests of each.
pub fn merge_switches(program: &mut Program<LowLevel>) -> MergeStats {
    merge_switches_keeping(program, LEADING_TESTS_KEPT)
}

/// Merges the chains of `int_eq` tests of every graph, keeping the first
/// `kept` tests of each as tests (0: the whole chain is a switch).
pub fn merge_switches_keeping(program: &mut Program<LowLevel>, kept: usize) -> MergeStats {
    let mut stats = MergeStats::default();
    for g in &mut program.graphs {
        merge_in_graph(g, kept, &mut stats);
    }
    stats
}

/// A block's test `result = int_eq(x, C)` (either order) whose result is
/// the exitswitch and is read by no later operation of the block, with a
/// True and a False exit: (x, C, result, index of the True exit, index of
/// the False exit). The test need not be the block's last operation: the
/// e-graph places pure operations after it (an interpreter's `pc += 1`
/// lands after its `if opcode == ...`), and a chain's first block may do
/// anything else besides.
fn eq_test(g: &G, b: BlockId) -> Option<(Var, i64, Var, usize, usize)> {
    let block = g.block(b);
    let Some(Arg::Var(switch)) = block.exitswitch else {
        return None;
    };
    let at = block
        .operations
        .iter()
        .rposition(|op| op.result == switch)?;
    let op = &block.operations[at];
    if op.opname != Opcode::IntEq
        || block.operations[at + 1..]
            .iter()
            .any(|later| later.args.contains(&Arg::Var(switch)))
    {
        return None;
    }
    let (x, c) = match op.args.as_slice() {
        [Arg::Var(x), Arg::Const(Constant::Int(c))]
        | [Arg::Const(Constant::Int(c)), Arg::Var(x)] => (*x, *c),
        _ => return None,
    };
    if block.exits.len() != 2 {
        return None;
    }
    let t = block
        .exits
        .iter()
        .position(|l| l.exitcase == Some(Constant::Bool(true)))?;
    let f = block
        .exits
        .iter()
        .position(|l| l.exitcase == Some(Constant::Bool(false)))?;
    Some((x, c, op.result, t, f))
}

/// `link` with every use of `v` replaced by the constant `value`.
fn with_const(mut link: Link, v: Var, value: bool) -> Link {
    for a in &mut link.args {
        if *a == Arg::Var(v) {
            *a = Arg::Const(Constant::Bool(value));
        }
    }
    link
}

/// `link`'s arguments with `target`'s input arguments replaced by what
/// `through` (the link into `target`) passes for them.
fn through(mut link: Link, inputargs: &[Var], through: &[Arg]) -> Link {
    let subst: HashMap<Var, &Arg> = inputargs.iter().copied().zip(through).collect();
    for a in &mut link.args {
        if let Arg::Var(v) = a {
            if let Some(n) = subst.get(v) {
                *a = (*n).clone();
            }
        }
    }
    link
}

/// The blocks of the chain of tests that starts at `a` (`a` first; empty
/// when `a` ends with no test), as [`merge_in_graph`] follows it.
fn chain_from(g: &G, preds: &[Vec<(BlockId, usize)>], a: BlockId) -> Vec<BlockId> {
    let Some((x, c0, _, _, f)) = eq_test(g, a) else {
        return Vec::new();
    };
    let mut chain = vec![a];
    let mut constants = vec![c0];
    let mut rest = g.block(a).exits[f].clone();
    let mut x = x;
    loop {
        let b = rest.target;
        let block = g.block(b);
        let single_entry = matches!(preds[b.0 as usize].as_slice(), [(p, _)] if *p == *chain.last().expect("the chain starts with a"));
        if !single_entry
            || b == g.returnblock
            || b == g.exceptblock
            || b == g.startblock
            || block.operations.len() != 1
            || chain.contains(&b)
        {
            return chain;
        }
        let Some((xb, c, _, _, fb)) = eq_test(g, b) else {
            return chain;
        };
        let passed = block
            .inputargs
            .iter()
            .position(|v| *v == xb)
            .and_then(|i| rest.args.get(i));
        if passed != Some(&Arg::Var(x)) || constants.contains(&c) {
            return chain;
        }
        constants.push(c);
        chain.push(b);
        x = xb;
        rest = block.exits[fb].clone();
    }
}

/// Merges the chains of `g`, each from its `kept`-th test on.
pub fn merge_in_graph(g: &mut G, kept: usize, stats: &mut MergeStats) {
    let mut preds = g.predecessors();
    let mut absorbed = vec![false; g.blocks.len()];
    for head in g.reverse_postorder() {
        if absorbed[head.0 as usize] {
            continue;
        }
        // The switch starts at the chain's `kept`-th test; the tests before
        // it, and the chain's tail, are not heads of chains of their own.
        let whole = chain_from(g, &preds, head);
        for b in &whole {
            absorbed[b.0 as usize] = true;
        }
        let Some((&a, tail)) = whole.get(kept..).and_then(<[BlockId]>::split_first) else {
            continue;
        };
        if tail.is_empty() {
            continue;
        }
        let (x, c0, cond, t, f) = eq_test(g, a).expect("a chain's blocks end with a test");
        let first = g.block(a);
        let mut cases: Vec<(i64, Link)> =
            vec![(c0, with_const(first.exits[t].clone(), cond, true))];
        // The False exit still to follow, in the first block's variables.
        let mut rest = with_const(first.exits[f].clone(), cond, false);
        for &b in tail {
            let block = g.block(b);
            let (_, c, condb, tb, fb) = eq_test(g, b).expect("a chain's blocks end with a test");
            let tl = through(
                with_const(block.exits[tb].clone(), condb, true),
                &block.inputargs,
                &rest.args,
            );
            let fl = through(
                with_const(block.exits[fb].clone(), condb, false),
                &block.inputargs,
                &rest.args,
            );
            cases.push((c, tl));
            rest = fl;
        }
        stats.chains_merged += 1;
        stats.cases += cases.len();
        let block = g.block_mut(a);
        let mut exits: Vec<Link> = cases
            .into_iter()
            .map(|(c, mut l)| {
                l.exitcase = Some(Constant::Int(c));
                l
            })
            .collect();
        rest.exitcase = Some(Constant::Name("default".into()));
        exits.push(rest);
        block.exits = exits;
        block.exitswitch = Some(Arg::Var(x));
        // The first test's result was read by nothing but the switch and
        // the links, which now have constants for it.
        let at = block
            .operations
            .iter()
            .rposition(|op| op.result == cond)
            .expect("the first test's operation");
        block.operations.remove(at);
        preds = g.predecessors();
    }
}

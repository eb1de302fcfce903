//! Graph simplification, as the flow space does after building a graph: fewer
//! blocks and fewer link arguments, same meaning.
//!
//! - An empty block that only forwards its input arguments to one successor is
//!   bypassed: links into it go straight to its successor.
//! - A block entered by a single link from a block that has no other exit is
//!   merged into that block.
//! - An input argument that no operation, exitswitch or successor ever reads is
//!   removed, with the link arguments that fed it (the start block keeps its
//!   parameters: they are the function's signature).
//!
//! A block that catches its last operation's exceptions (`switch
//! last_exception`) is never merged with its successors, so the raising
//! operation stays last; it may itself be merged into a predecessor that has
//! no other exit, which appends operations before it. The variables an
//! exception exit defines stay, even when no argument passes them on.
//!
//! Works on graphs of every stage; the stage's pipeline runs it after flow and
//! after backendopt (which can leave blocks empty), and the exception
//! transform on the blocks it makes.

use fxhash::FxHashMap as HashMap;
use rpy_ir::graph::{Arg, BlockId, FunctionGraph, Link, Program, Stage, Var};

pub fn simplify_program<S: Stage>(program: &mut Program<S>) {
    for g in &mut program.graphs {
        simplify_graph(g);
    }
}

pub fn simplify_graph<S: Stage>(g: &mut FunctionGraph<S>) {
    simplify_graph_changed(g);
}

/// [`simplify_graph`], telling whether it changed the graph. When it did
/// not, simplifying the graph again changes nothing either; when it did,
/// it may (dropping unreachable blocks can leave a block with one entry).
pub fn simplify_graph_changed<S: Stage>(g: &mut FunctionGraph<S>) -> bool {
    let mut changed = bypass_forwarding_blocks(g);
    changed |= merge_single_entry_blocks(g);
    changed |= remove_dead_inputargs(g);
    // Most graphs a pass is run over are already canonical (backendopt
    // simplifies every graph after each sub-pass, and each changes few):
    // checking is a walk, rebuilding a copy.
    if !g.is_canonical() {
        g.make_canonical();
        changed = true;
    }
    changed
}

/// Replaces every use of a variable in `args` by what `subst` maps it to.
fn substitute(args: &mut [Arg], subst: &HashMap<Var, Arg>) {
    for a in args {
        if let Arg::Var(v) = a {
            if let Some(new) = subst.get(v) {
                *a = new.clone();
            }
        }
    }
}

fn is_special<S: Stage>(g: &FunctionGraph<S>, b: BlockId) -> bool {
    b == g.startblock || b == g.returnblock || b == g.exceptblock
}

/// The link out of `b` when `b` has no operations and one unconditional exit
/// to another block.
fn forwarding_link<S: Stage>(g: &FunctionGraph<S>, b: BlockId) -> Option<Link> {
    let block = g.block(b);
    if is_special(g, b) || !block.operations.is_empty() || block.exitswitch.is_some() {
        return None;
    }
    match block.exits.as_slice() {
        [link] if link.target != b => Some(link.clone()),
        _ => None,
    }
}

fn bypass_forwarding_blocks<S: Stage>(g: &mut FunctionGraph<S>) -> bool {
    let mut any = false;
    // Each pass rewrites links past one forwarding block; chains of them take
    // several passes, bounded by the number of blocks (a cycle of forwarding
    // blocks never runs out of targets, so stop there too).
    for _ in 0..g.blocks.len() {
        let mut changed = false;
        for src in 0..g.blocks.len() {
            for e in 0..g.blocks[src].exits.len() {
                let target = g.blocks[src].exits[e].target;
                let Some(next) = forwarding_link(g, target) else {
                    continue;
                };
                if next.target == BlockId(src as u32) && forwarding_link(g, next.target).is_some() {
                    continue;
                }
                let subst: HashMap<Var, Arg> = g
                    .block(target)
                    .inputargs
                    .iter()
                    .copied()
                    .zip(g.blocks[src].exits[e].args.iter().cloned())
                    .collect();
                let mut args = next.args.clone();
                substitute(&mut args, &subst);
                let link = &mut g.blocks[src].exits[e];
                link.args = args;
                link.target = next.target;
                changed = true;
            }
        }
        if !changed {
            break;
        }
        any = true;
    }
    any
}

fn merge_single_entry_blocks<S: Stage>(g: &mut FunctionGraph<S>) -> bool {
    let mut any = false;
    // The number of links into each block. Merging `b` into `a` moves b's
    // exits to `a`, so only b's count changes (it loses its one entry).
    let mut entries = vec![0u32; g.blocks.len()];
    for l in g.blocks.iter().flat_map(|b| &b.exits) {
        entries[l.target.0 as usize] += 1;
    }
    // Each block in order takes in its single-entry successors until it has
    // none: the same merges as always taking the first block that has one,
    // since a merge makes no earlier block a candidate (its exits and the
    // entries of its targets stay).
    for a in 0..g.blocks.len() {
        loop {
            let block = &g.blocks[a];
            if block.exitswitch.is_some() || block.exits.len() != 1 {
                break;
            }
            let b = block.exits[0].target;
            if entries[b.0 as usize] != 1 || b.0 as usize == a || is_special(g, b) {
                break;
            }
            entries[b.0 as usize] = 0;
            any = true;
            let link = g.blocks[a].exits.pop().expect("the candidate has one exit");
            let merged = std::mem::take(&mut g.blocks[b.0 as usize]);
            let subst: HashMap<Var, Arg> =
                merged.inputargs.iter().copied().zip(link.args).collect();
            let block = &mut g.blocks[a];
            for mut op in merged.operations {
                substitute(&mut op.args, &subst);
                block.operations.push(op);
            }
            block.exitswitch = merged.exitswitch.map(|s| {
                let mut one = [s];
                substitute(&mut one, &subst);
                let [s] = one;
                s
            });
            block.exits = merged
                .exits
                .into_iter()
                .map(|mut l| {
                    substitute(&mut l.args, &subst);
                    l
                })
                .collect();
        }
    }
    any
}

fn remove_dead_inputargs<S: Stage>(g: &mut FunctionGraph<S>) -> bool {
    // Most graphs have none: when every input argument is read by an
    // operation or a switch of its block, all are live.
    let mut read = vec![false; g.vars.len()];
    for block in &g.blocks {
        for a in block.operations.iter().flat_map(|op| &op.args) {
            if let Arg::Var(v) = a {
                read[v.0 as usize] = true;
            }
        }
        if let Some(Arg::Var(v)) = &block.exitswitch {
            read[v.0 as usize] = true;
        }
    }
    let all_read = g.blocks.iter().enumerate().all(|(b, block)| {
        is_special(g, BlockId(b as u32)) || block.inputargs.iter().all(|v| read[v.0 as usize])
    });
    if all_read {
        return false;
    }
    let n = g.blocks.len();
    // Where each variable is an input argument: (block, index) of its
    // first appearance, or AMBIGUOUS when several blocks take it (then
    // the block's list is searched).
    const NONE: (u32, u32) = (u32::MAX, 0);
    const AMBIGUOUS: (u32, u32) = (u32::MAX, 1);
    let mut inpos = vec![NONE; g.vars.len()];
    for (b, block) in g.blocks.iter().enumerate() {
        for (i, v) in block.inputargs.iter().enumerate() {
            let p = &mut inpos[v.0 as usize];
            if *p == NONE {
                *p = (b as u32, i as u32);
            } else if p.0 != b as u32 {
                *p = AMBIGUOUS;
            }
        }
    }
    let position = |g: &FunctionGraph<S>, b: usize, v: Var| -> Option<usize> {
        match inpos[v.0 as usize] {
            NONE => None,
            AMBIGUOUS => g.blocks[b].inputargs.iter().position(|x| *x == v),
            (blk, i) => (blk as usize == b).then_some(i as usize),
        }
    };
    // live[b][i]: input argument i of block b is read somewhere.
    let mut live: Vec<Vec<bool>> = g
        .blocks
        .iter()
        .enumerate()
        .map(|(b, block)| {
            let keep_all = is_special(g, BlockId(b as u32));
            let mut used = vec![keep_all; block.inputargs.len()];
            let mut mark = |a: &Arg| {
                if let Arg::Var(v) = a {
                    if let Some(i) = position(g, b, *v) {
                        used[i] = true;
                    }
                }
            };
            block
                .operations
                .iter()
                .flat_map(|op| &op.args)
                .for_each(&mut mark);
            block.exitswitch.iter().for_each(&mut mark);
            used
        })
        .collect();
    // A link argument feeding a live input argument keeps its source alive:
    // each input argument found live is followed back along the links into
    // its block once.
    let mut links_into: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for (b, block) in g.blocks.iter().enumerate() {
        for (e, link) in block.exits.iter().enumerate() {
            links_into[link.target.0 as usize].push((b, e));
        }
    }
    let mut work: Vec<(usize, usize)> = Vec::new();
    for (b, l) in live.iter().enumerate() {
        work.extend(
            l.iter()
                .enumerate()
                .filter(|(_, k)| **k)
                .map(|(i, _)| (b, i)),
        );
    }
    while let Some((t, j)) = work.pop() {
        for &(b, e) in &links_into[t] {
            let Some(Arg::Var(v)) = g.blocks[b].exits[e].args.get(j) else {
                continue;
            };
            if let Some(i) = position(g, b, *v) {
                if !live[b][i] {
                    live[b][i] = true;
                    work.push((b, i));
                }
            }
        }
    }
    if live.iter().all(|l| l.iter().all(|k| *k)) {
        return false;
    }
    for b in 0..n {
        for e in 0..g.blocks[b].exits.len() {
            let t = g.blocks[b].exits[e].target.0 as usize;
            let keep = &live[t];
            let args = std::mem::take(&mut g.blocks[b].exits[e].args);
            g.blocks[b].exits[e].args = args
                .into_iter()
                .zip(keep)
                .filter_map(|(a, k)| k.then_some(a))
                .collect();
        }
    }
    for (b, keep) in live.iter().enumerate() {
        let args = std::mem::take(&mut g.blocks[b].inputargs);
        g.blocks[b].inputargs = args
            .into_iter()
            .zip(keep)
            .filter_map(|(v, k)| k.then_some(v))
            .collect();
    }
    true
}

//! Dead operation removal over a whole graph (the original's
//! `transform_dead_op_vars`): an operation without side effects whose
//! result nothing needs goes, and so does a block's input argument that
//! nothing needs, with the link arguments that fed it.
//!
//! "Needed" is computed for the graph at once, not block by block, so a
//! value that only feeds itself around a loop (a counter nothing reads
//! but its own increment) is dead too, where `simplify`'s removal of input
//! arguments, which keeps any argument an operation reads, keeps it. What
//! is needed: the arguments of an operation that stays, a block's
//! exitswitch, the return and except blocks' input arguments; an operation
//! result is needed when something needed reads it, an input argument
//! when something needed reads it, and then so is what every link into the
//! block passes for it.
//!
//! Removable: the pure operations of `llops` and the reads of memory
//! (`getfield`, `getarrayitem`, `getarraysize`), which change nothing; a
//! read of a null pointer or out of bounds would have crashed, and RPython
//! programs do not (the rtyper checks indexes before it reads). The last
//! operation of a block that catches its exceptions stays, as that block
//! must end with it. The start block keeps its parameters (the graph's
//! signature).

use rpy_ir::graph::{Arg, BlockId, FunctionGraph, LowLevel, Program, Var};
use rpy_ir::llops;
use rpy_ir::opcode::Opcode;

type G = FunctionGraph<LowLevel>;

/// What [`remove_dead_code`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeadCodeStats {
    /// Operations removed, all kinds.
    pub ops_removed: usize,
    /// Of those, reads of memory (`getfield`, `getarrayitem`, `getarraysize`).
    pub reads_removed: usize,
    /// Block input arguments removed, with the link arguments feeding them.
    pub inputargs_removed: usize,
}

/// Whether `opname` has no effect but its result.
pub fn removable(opname: Opcode) -> bool {
    matches!(
        opname,
        Opcode::Getfield | Opcode::Getarrayitem | Opcode::Getarraysize
    ) || llops::info(opname).is_some_and(|op| op.pure())
}

/// Removes the dead operations and input arguments of every graph.
pub fn remove_dead_code(program: &mut Program<LowLevel>) -> DeadCodeStats {
    let mut stats = DeadCodeStats::default();
    for g in &mut program.graphs {
        remove_in_graph(g, &mut stats);
    }
    stats
}

/// Where a variable is defined.
#[derive(Clone, Copy)]
enum Def {
    None,
    /// Input argument `index` of `block`.
    Input(BlockId, usize),
    /// Operation `index` of `block`, removable.
    Op(BlockId, usize),
}

pub fn remove_in_graph(g: &mut G, stats: &mut DeadCodeStats) {
    let order = g.reverse_postorder();
    let mut def = vec![Def::None; g.vars.len()];
    // Links from reachable blocks into each block: (source, exit).
    let mut preds: Vec<Vec<(BlockId, usize)>> = vec![Vec::new(); g.blocks.len()];
    let mut live = vec![false; g.vars.len()];
    let mut work: Vec<Var> = Vec::new();
    let need = |a: &Arg, live: &mut Vec<bool>, work: &mut Vec<Var>| {
        if let Arg::Var(v) = a {
            if !live[v.0 as usize] {
                live[v.0 as usize] = true;
                work.push(*v);
            }
        }
    };
    for &b in &order {
        let block = g.block(b);
        for (i, v) in block.inputargs.iter().enumerate() {
            def[v.0 as usize] = Def::Input(b, i);
        }
        let special = b == g.returnblock || b == g.exceptblock;
        if special {
            for v in &block.inputargs {
                need(&Arg::Var(*v), &mut live, &mut work);
            }
        }
        let last = block.operations.len().saturating_sub(1);
        for (i, op) in block.operations.iter().enumerate() {
            let kept = !removable(op.opname) || (block.catches_exceptions() && i == last);
            if kept {
                op.args.iter().for_each(|a| need(a, &mut live, &mut work));
            } else {
                def[op.result.0 as usize] = Def::Op(b, i);
            }
        }
        if let Some(sw) = &block.exitswitch {
            need(sw, &mut live, &mut work);
        }
        for (e, l) in block.exits.iter().enumerate() {
            preds[l.target.0 as usize].push((b, e));
        }
    }
    while let Some(v) = work.pop() {
        match def[v.0 as usize] {
            Def::None => {}
            Def::Op(b, i) => {
                for a in &g.block(b).operations[i].args {
                    need(a, &mut live, &mut work);
                }
            }
            Def::Input(b, i) => {
                for &(p, e) in &preds[b.0 as usize] {
                    if let Some(a) = g.block(p).exits[e].args.get(i) {
                        need(a, &mut live, &mut work);
                    }
                }
            }
        }
    }
    let is_live = |v: &Var| live[v.0 as usize];
    for &b in &order {
        let catching = g.block(b).catches_exceptions();
        let block = g.block_mut(b);
        let last = block.operations.len().saturating_sub(1);
        let mut i = 0;
        block.operations.retain(|op| {
            let keep = is_live(&op.result) || !removable(op.opname) || (catching && i == last);
            i += 1;
            if !keep {
                stats.ops_removed += 1;
                if !llops::info(op.opname).is_some_and(|o| o.pure()) {
                    stats.reads_removed += 1;
                }
            }
            keep
        });
    }
    // Input arguments: every block but the special ones and the start block.
    let mut keeps: Vec<Option<Vec<bool>>> = vec![None; g.blocks.len()];
    for &b in &order {
        if b == g.startblock || b == g.returnblock || b == g.exceptblock {
            continue;
        }
        let keep: Vec<bool> = g.block(b).inputargs.iter().map(is_live).collect();
        if keep.iter().all(|k| *k) {
            continue;
        }
        stats.inputargs_removed += keep.iter().filter(|k| !**k).count();
        let args = std::mem::take(&mut g.block_mut(b).inputargs);
        g.block_mut(b).inputargs = args
            .into_iter()
            .zip(&keep)
            .filter_map(|(v, k)| k.then_some(v))
            .collect();
        keeps[b.0 as usize] = Some(keep);
    }
    // Every link into those blocks, from any block (an unreachable one's
    // too, so the graph stays well formed until `canonicalize` drops it).
    for block in &mut g.blocks {
        for l in &mut block.exits {
            if let Some(keep) = &keeps[l.target.0 as usize] {
                let args = std::mem::take(&mut l.args);
                l.args = args
                    .into_iter()
                    .zip(keep)
                    .filter_map(|(a, k)| k.then_some(a))
                    .collect();
            }
        }
    }
}

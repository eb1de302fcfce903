//! Registers for a graph's variables, few of them and few moves, as the
//! original's `regalloc.py`: two variables of one bank may share a
//! register unless both are live at once (they interfere), and a link's
//! argument and the target's input argument it becomes share one when
//! they can (coalescing), so that the link needs no move.
//!
//! A low-level graph keeps a variable within its block (links pass values
//! on), so liveness is found block by block, backwards from the block's
//! exits.

use super::jitcode::{Bank, Reg};
use rpy_ir::graph::{Arg, FunctionGraph, LowLevel, Var};
use std::collections::HashSet;

/// The register of each variable (`None` for Void ones) and how many of
/// each bank there are.
pub struct Registers {
    pub of_var: Vec<Option<Reg>>,
    pub counts: [u16; 3],
}

struct Classes {
    parent: Vec<usize>,
    /// For a class's root: its variables, and every variable one of them
    /// interferes with.
    members: Vec<Vec<usize>>,
    neighbours: Vec<HashSet<usize>>,
}

impl Classes {
    fn find(&mut self, mut v: usize) -> usize {
        while self.parent[v] != v {
            self.parent[v] = self.parent[self.parent[v]];
            v = self.parent[v];
        }
        v
    }

    fn interfere(&self, a: usize, b: usize) -> bool {
        let (small, other) = if self.members[a].len() <= self.members[b].len() {
            (a, b)
        } else {
            (b, a)
        };
        self.members[small]
            .iter()
            .any(|m| self.neighbours[other].contains(m))
    }

    fn union(&mut self, a: usize, b: usize) {
        let members = std::mem::take(&mut self.members[b]);
        let neighbours = std::mem::take(&mut self.neighbours[b]);
        self.members[a].extend(members);
        self.neighbours[a].extend(neighbours);
        self.parent[b] = a;
    }
}

pub fn allocate(g: &FunctionGraph<LowLevel>) -> Registers {
    let n = g.vars.len();
    let bank = |v: usize| Bank::of(&g.vars[v].info);
    let mut neighbours: Vec<HashSet<usize>> = vec![HashSet::new(); n];
    let edge = |a: usize, b: usize, neighbours: &mut Vec<HashSet<usize>>| {
        if a != b && bank(a).is_some() && bank(a) == bank(b) {
            neighbours[a].insert(b);
            neighbours[b].insert(a);
        }
    };
    for block in &g.blocks {
        // Live at the end: what the exits read.
        let mut live: HashSet<usize> = HashSet::new();
        let defined_on_links: HashSet<usize> = block
            .exits
            .iter()
            .flat_map(|l| l.defined_vars())
            .map(|v| v.0 as usize)
            .collect();
        for l in &block.exits {
            for a in &l.args {
                if let Arg::Var(v) = a {
                    if !defined_on_links.contains(&(v.0 as usize)) {
                        live.insert(v.0 as usize);
                    }
                }
            }
        }
        if let Some(Arg::Var(v)) = &block.exitswitch {
            live.insert(v.0 as usize);
        }
        // A handler's class and instance are written when the call raises,
        // while what its link passes on is still to be read.
        for d in &defined_on_links {
            for l in live.iter().copied().collect::<Vec<_>>() {
                edge(*d, l, &mut neighbours);
            }
            for e in &defined_on_links {
                edge(*d, *e, &mut neighbours);
            }
        }
        for op in block.operations.iter().rev() {
            let r = op.result.0 as usize;
            live.remove(&r);
            for l in &live {
                edge(r, *l, &mut neighbours);
            }
            for a in &op.args {
                if let Arg::Var(v) = a {
                    live.insert(v.0 as usize);
                }
            }
        }
        // The input arguments are all written by one link: none may share
        // a register with another (even a dead one, which a link writes).
        for (i, a) in block.inputargs.iter().enumerate() {
            for b in &block.inputargs[i + 1..] {
                edge(a.0 as usize, b.0 as usize, &mut neighbours);
            }
            for l in &live {
                edge(a.0 as usize, *l, &mut neighbours);
            }
        }
    }
    let mut classes = Classes {
        parent: (0..n).collect(),
        members: (0..n).map(|v| vec![v]).collect(),
        neighbours,
    };
    // Coalesce each link argument with the input argument it becomes.
    for block in &g.blocks {
        for l in &block.exits {
            let target = &g.blocks[l.target.0 as usize];
            for (a, t) in l.args.iter().zip(&target.inputargs) {
                let Arg::Var(Var(a)) = a else { continue };
                let (a, t) = (*a as usize, t.0 as usize);
                if bank(a).is_none() || bank(a) != bank(t) {
                    continue;
                }
                let (ra, rt) = (classes.find(a), classes.find(t));
                if ra != rt && !classes.interfere(ra, rt) {
                    classes.union(ra, rt);
                }
            }
        }
    }
    let mut color: Vec<Option<u16>> = vec![None; n];
    let mut counts = [0u16; 3];
    let mut of_var = vec![None; n];
    for (v, reg) in of_var.iter_mut().enumerate() {
        let Some(b) = bank(v) else { continue };
        let root = classes.find(v);
        if color[root].is_none() {
            let taken: HashSet<u16> = classes.neighbours[root]
                .iter()
                .copied()
                .collect::<Vec<_>>()
                .into_iter()
                .filter_map(|m| {
                    let r = classes.find(m);
                    color[r]
                })
                .collect();
            let c = (0..).find(|c| !taken.contains(c)).expect("a free register");
            color[root] = Some(c);
            let count = &mut counts[b as usize];
            *count = (*count).max(c + 1);
        }
        *reg = color[root].map(|index| Reg { bank: b, index });
    }
    Registers { of_var, counts }
}

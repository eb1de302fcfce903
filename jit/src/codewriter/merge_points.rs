//! RPython's rule for a `jit_merge_point`: every variable the portal
//! still uses after it is one of the driver's greens or reds. The JIT
//! enters a compiled loop there with the reds only (the greens are its
//! key), so a value that is neither would be the one the trace saw when it
//! was recorded: a later run of the loop would silently use a stale one.
//! The original finds this when its `checkgraph` crashes on the split
//! portal; rpy says which variable, where.

use std::collections::HashSet;

use rpy_ir::diag::Pos;
use rpy_ir::graph::{Arg, FunctionGraph, LowLevel, Program, Var};
use rpy_ir::lltype::LowLevelType;

/// A merge point with variables live after it that it does not pass.
#[derive(Clone, Debug, PartialEq)]
pub struct UndeclaredAtMergePoint {
    pub graph: String,
    pub pos: Option<Pos>,
    /// The variables' source names (or a description of the value).
    pub names: Vec<String>,
}

impl UndeclaredAtMergePoint {
    pub fn message(&self) -> String {
        let quoted: Vec<String> = self.names.iter().map(|n| format!("'{n}'")).collect();
        format!(
            "in {}(): {} {} used after this jit_merge_point but {} neither a green nor a red of its JitDriver; declare {} in reds (or greens), or the JIT's loops would run on the value seen when they were traced",
            self.graph,
            quoted.join(", "),
            if quoted.len() == 1 { "is" } else { "are" },
            if quoted.len() == 1 { "is" } else { "are" },
            if quoted.len() == 1 { "it" } else { "them" },
        )
    }
}

/// Every merge point of `program` that leaves a live variable out.
pub fn undeclared_at_merge_points(program: &Program<LowLevel>) -> Vec<UndeclaredAtMergePoint> {
    program.graphs.iter().flat_map(check_graph).collect()
}

fn check_graph(g: &FunctionGraph<LowLevel>) -> Vec<UndeclaredAtMergePoint> {
    let mut found = Vec::new();
    for block in &g.blocks {
        for (at, op) in block.operations.iter().enumerate() {
            if !op.is_jit_merge_point() {
                continue;
            }
            let passed: HashSet<Var> = op.args.iter().filter_map(Arg::as_var).collect();
            let mut names: Vec<String> = live_after(block, at)
                .into_iter()
                .filter(|v| !passed.contains(v) && g.vars[v.0 as usize].info != LowLevelType::Void)
                .map(|v| {
                    g.vars[v.0 as usize]
                        .name
                        .clone()
                        .unwrap_or_else(|| format!("a value of type {}", g.vars[v.0 as usize].info))
                })
                .collect();
            if names.is_empty() {
                continue;
            }
            names.sort();
            names.dedup();
            found.push(UndeclaredAtMergePoint {
                graph: g.name.clone(),
                pos: op.pos.or(g.pos),
                names,
            });
        }
    }
    found
}

/// The variables defined before operation `at` of `block` (or entering
/// it) that the rest of the block or its exits read. A low-level graph
/// keeps a variable within its block (links pass values on), so this is
/// the whole of what is live after the operation.
fn live_after(block: &rpy_ir::graph::Block, at: usize) -> Vec<Var> {
    let defined_later: HashSet<Var> = block.operations[at + 1..]
        .iter()
        .map(|op| op.result)
        .chain(block.exits.iter().flat_map(|l| l.defined_vars()))
        .collect();
    let mut live = Vec::new();
    let mut seen = HashSet::new();
    let reads = block.operations[at + 1..]
        .iter()
        .flat_map(|op| op.args.iter())
        .chain(block.exitswitch.iter())
        .chain(block.exits.iter().flat_map(|l| l.args.iter()));
    for a in reads {
        if let Some(v) = a.as_var() {
            if !defined_later.contains(&v) && seen.insert(v) {
                live.push(v);
            }
        }
    }
    live
}

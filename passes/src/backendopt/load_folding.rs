//! Load folding (the load half of the original's `backendopt/storesink.py`):
//! a `getfield` of a field already read or written through the same
//! pointer, with nothing in between that may have changed it, reuses the
//! value instead of reading memory again.
//!
//! What may change a field: a `setfield` of a field of that name through
//! any pointer (two pointers of different variables may be one object,
//! and an instance's fields have one name in its class's struct and its
//! bases', so the name, not the pointer or type, is what aliases), and a
//! call of a graph that may write a field of that name, itself or through
//! what it calls. Those written field names are computed for every graph
//! bottom-up, to a fixpoint (`FieldWrites`); an indirect call may run any
//! graph of its signature whose address is taken. Runtime functions write
//! no field of the program's structures.
//!
//! What is known flows along a block's operations and on to a successor
//! that has no other predecessor (the original does the same), renamed
//! through the link's arguments; a block entered from several places
//! starts knowing nothing.

use super::callgraph::CallGraph;
use rpy_ir::graph::{
    called_by_collector, Arg, BlockId, Constant, FunctionGraph, LowLevel, Program, Var,
};
use rpy_ir::llops::{starts_collection, GC_COLLECT_NOW};
use rpy_ir::lltype::{FuncSig, LowLevelType};
use std::collections::{HashMap, HashSet};

type G = FunctionGraph<LowLevel>;

/// The field names each graph may write when called, itself or through
/// its callees; `None` for a graph whose writes are not known. Computed on
/// the call graph's nodes bottom-up, a dispatch node (what an indirect call
/// of one pointer shape may reach) writing what any graph it reaches
/// writes.
pub struct FieldWrites {
    writes: HashMap<String, HashSet<String>>,
    /// What an indirect call of each pointer shape may write.
    dispatch: HashMap<FuncSig, HashSet<String>>,
    /// What the functions the collector calls (`__del__`, GC hooks) may
    /// write: an allocation may collect and run them, so it may write
    /// these, and so may every call of a graph that allocates.
    collector_writes: HashSet<String>,
    /// Whether the collector calls any function of the program.
    collector_calls: bool,
}

/// Stands, in a graph's writes, for "may collect": no field has this name.
const MAY_COLLECT: &str = "\0may collect";

impl FieldWrites {
    pub fn new(program: &Program<LowLevel>, callgraph: &CallGraph) -> FieldWrites {
        let mut node_writes: Vec<HashSet<String>> = vec![HashSet::new(); callgraph.node_count()];
        for g in &program.graphs {
            let Some(n) = callgraph.graph_node(&g.name) else {
                continue;
            };
            let ops = g.blocks.iter().flat_map(|b| &b.operations);
            node_writes[n.index()] = ops
                .clone()
                .filter(|op| op.opname == "setfield")
                .filter_map(|op| match op.args.get(1) {
                    Some(Arg::Const(Constant::Name(f))) => Some(f.clone()),
                    _ => None,
                })
                .chain(
                    ops.clone()
                        .any(starts_collection)
                        .then(|| MAY_COLLECT.to_string()),
                )
                .collect();
        }
        // Bottom-up, each node takes its callees' writes; the members of a
        // cycle go round until nothing grows.
        for scc in callgraph.components() {
            loop {
                let mut grew = false;
                for &n in scc {
                    let mut mine = std::mem::take(&mut node_writes[n.index()]);
                    for c in callgraph.node_callees(n) {
                        if c == n {
                            continue;
                        }
                        for f in &node_writes[c.index()] {
                            if !mine.contains(f) {
                                mine.insert(f.clone());
                                grew = true;
                            }
                        }
                    }
                    node_writes[n.index()] = mine;
                }
                if !grew || scc.len() == 1 {
                    break;
                }
            }
        }
        let collector_writes: HashSet<String> = program
            .graphs
            .iter()
            .filter(|g| called_by_collector(g))
            .filter_map(|g| callgraph.graph_node(&g.name))
            .flat_map(|n| node_writes[n.index()].iter().cloned())
            .filter(|f| f != MAY_COLLECT)
            .collect();
        for w in &mut node_writes {
            if w.contains(MAY_COLLECT) {
                w.extend(collector_writes.iter().cloned());
            }
        }
        let writes = program
            .graphs
            .iter()
            .filter_map(|g| {
                let n = callgraph.graph_node(&g.name)?;
                Some((g.name.clone(), node_writes[n.index()].clone()))
            })
            .collect();
        let mut dispatch = HashMap::new();
        for g in &program.graphs {
            for op in g.blocks.iter().flat_map(|b| &b.operations) {
                if op.opname != "indirect_call" {
                    continue;
                }
                if let Some(Arg::Var(v)) = op.args.first() {
                    if let LowLevelType::FuncPtr(sig) = g.info(*v) {
                        let shape = sig.pointer_shape();
                        if let Some(d) = callgraph.dispatch_node(&shape) {
                            dispatch
                                .entry(shape)
                                .or_insert_with(|| node_writes[d.index()].clone());
                        }
                    }
                }
            }
        }
        FieldWrites {
            writes,
            dispatch,
            collector_writes,
            collector_calls: program.graphs.iter().any(called_by_collector),
        }
    }

    /// Whether operation `op` (not a call of the program's graphs) may
    /// write field `field`: an allocation or `gc.collect()` may run the
    /// functions the collector calls.
    pub(super) fn collecting_op_may_write(
        &self,
        op: &rpy_ir::graph::SpaceOperation,
        field: &str,
    ) -> bool {
        starts_collection(op) && self.collector_writes.contains(field)
    }

    /// Whether the collector calls any function of the program: then an
    /// allocation may read any field too.
    pub fn collector_runs_code(&self) -> bool {
        self.collector_calls
    }

    /// Whether the call `op` (a `direct_call` or `indirect_call` in graph
    /// `g`) may write field `field`.
    pub(super) fn call_may_write(&self, g: &G, args: &[Arg], field: &str) -> bool {
        match args.first() {
            Some(Arg::Const(Constant::Builtin(b))) => {
                b == GC_COLLECT_NOW && self.collector_writes.contains(field)
            }
            Some(Arg::Const(Constant::Func(f))) => match self.writes.get(f) {
                Some(w) => w.contains(field),
                None => true,
            },
            // Any graph of the pointer's shape whose address is taken (none:
            // the call reaches no graph of the program).
            Some(Arg::Var(v)) => match g.info(*v) {
                LowLevelType::FuncPtr(sig) => self
                    .dispatch
                    .get(&sig.pointer_shape())
                    .is_some_and(|w| w.contains(field)),
                _ => true,
            },
            _ => true,
        }
    }
}

/// What [`fold_loads`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadStats {
    /// `getfield` operations replaced by a value already known.
    pub loads_folded: usize,
    /// `setfield` operations removed because the same field of the same
    /// pointer is written again before anything may read it.
    pub stores_removed: usize,
}

/// Folds the repeated field reads of every graph.
pub fn fold_loads(program: &mut Program<LowLevel>) -> LoadStats {
    let callgraph = CallGraph::new(program);
    let writes = FieldWrites::new(program, &callgraph);
    let mut stats = LoadStats::default();
    for g in &mut program.graphs {
        fold_loads_in_graph(g, &writes, &mut stats);
        stats.stores_removed += remove_dead_stores(g, writes.collector_runs_code());
    }
    stats
}

/// Removes the `setfield`s of each block whose field, of the same pointer,
/// the block writes again before anything may read it: walking the block
/// backwards, a store is dead when a later store to (pointer, field) is
/// pending; a `getfield` of the field through any pointer (it may be the
/// same object) ends what is pending for that field name, and anything but
/// a pure operation, a cast, a `malloc` (a new object: no field of another
/// is read) or an array access ends all of it (a call may read any field,
/// or raise to a handler that does). What a block stores last stays: a
/// successor or the caller may read it. Returns how many were removed.
///
/// When the collector runs the program's code (`__del__`, GC hooks), an
/// allocation may read any field: it ends what is pending as a call does.
pub fn remove_dead_stores(g: &mut G, collector_runs_code: bool) -> usize {
    let mut removed = 0;
    for block in &mut g.blocks {
        if !block.operations.iter().any(|op| op.opname == "setfield") {
            continue;
        }
        let mut pending: HashSet<(Pointer, &str)> = HashSet::new();
        let mut dead = vec![false; block.operations.len()];
        for (i, op) in block.operations.iter().enumerate().rev() {
            let field = match op.args.get(1) {
                Some(Arg::Const(Constant::Name(f))) => Some(f.as_str()),
                _ => None,
            };
            match (op.opname.as_str(), field) {
                ("setfield", Some(f)) => match op.args.first().and_then(key_arg) {
                    Some(p) => {
                        if !pending.insert((p, f)) {
                            dead[i] = true;
                        }
                    }
                    None => pending.clear(),
                },
                ("getfield", Some(f)) => pending.retain(|(_, pf)| *pf != f),
                ("malloc", _) if collector_runs_code => pending.clear(),
                (
                    "same_as" | "cast_pointer" | "malloc" | "getarrayitem" | "setarrayitem"
                    | "getarraysize",
                    _,
                ) => {}
                (name, _) if rpy_ir::llops::lookup(name).is_some_and(|o| o.pure) => {}
                _ => pending.clear(),
            }
        }
        let before = block.operations.len();
        let mut i = 0;
        block.operations.retain(|_| {
            i += 1;
            !dead[i - 1]
        });
        removed += before - block.operations.len();
    }
    removed
}

/// A pointer whose fields are known: a variable or a static.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Pointer {
    Var(Var),
    Static(u32),
}

/// The known field values: (pointer, field name) -> value.
type Known = HashMap<(Pointer, String), Arg>;

fn key_arg(a: &Arg) -> Option<Pointer> {
    match a {
        Arg::Var(v) => Some(Pointer::Var(*v)),
        Arg::Const(Constant::Prebuilt(i)) => Some(Pointer::Static(*i)),
        _ => None,
    }
}

fn fold_loads_in_graph(g: &mut G, writes: &FieldWrites, stats: &mut LoadStats) {
    // Only reads fold: a graph without one has nothing to do.
    let any_read = g
        .blocks
        .iter()
        .any(|b| b.operations.iter().any(|op| op.opname == "getfield"));
    if !any_read {
        return;
    }
    let order = g.reverse_postorder();
    let preds = g.predecessors();
    // The knowledge at the end of each processed block.
    let mut at_end: HashMap<BlockId, Known> = HashMap::new();
    for b in order {
        let mut known: Known = match preds[b.0 as usize].as_slice() {
            [(p, exit)] if *p != b => match at_end.get(p) {
                Some(end) => along_link(end, &g.block(*p).exits[*exit].args, &g.block(b).inputargs),
                None => Known::new(),
            },
            _ => Known::new(),
        };
        let mut block = g.block(b).clone();
        let mut subst: HashMap<Var, Arg> = HashMap::new();
        let sub = |subst: &HashMap<Var, Arg>, a: &mut Arg| {
            if let Arg::Var(v) = a {
                if let Some(n) = subst.get(v) {
                    *a = n.clone();
                }
            }
        };
        let mut kept = Vec::with_capacity(block.operations.len());
        for mut op in std::mem::take(&mut block.operations) {
            for a in &mut op.args {
                sub(&subst, a);
            }
            match op.opname.as_str() {
                "getfield" => {
                    if let (Some(p), Some(Arg::Const(Constant::Name(f)))) =
                        (op.args.first().and_then(key_arg), op.args.get(1))
                    {
                        let key = (p, f.clone());
                        if let Some(v) = known.get(&key) {
                            subst.insert(op.result, v.clone());
                            stats.loads_folded += 1;
                            continue;
                        }
                        known.insert(key, Arg::Var(op.result));
                    }
                }
                "setfield" => {
                    if let Some(Arg::Const(Constant::Name(f))) = op.args.get(1) {
                        known.retain(|(_, field), _| field != f);
                        if let (Some(p), Some(v)) =
                            (op.args.first().and_then(key_arg), op.args.get(2))
                        {
                            known.insert((p, f.clone()), v.clone());
                        }
                    }
                }
                "direct_call" | "indirect_call" => {
                    known.retain(|(_, field), _| !writes.call_may_write(g, &op.args, field));
                }
                "malloc" | "malloc_varsize" => {
                    known.retain(|(_, field), _| !writes.collecting_op_may_write(&op, field));
                }
                _ => {}
            }
            kept.push(op);
        }
        block.operations = kept;
        if let Some(s) = &mut block.exitswitch {
            sub(&subst, s);
        }
        for l in &mut block.exits {
            for a in &mut l.args {
                sub(&subst, a);
            }
        }
        // Values substituted into the knowledge too (a folded read's
        // result no longer exists).
        for v in known.values_mut() {
            sub(&subst, v);
        }
        *g.block_mut(b) = block;
        at_end.insert(b, known);
    }
}

/// The knowledge at the start of a block entered only by a link passing
/// `args` to its `inputargs`: what is known of the values passed, renamed.
fn along_link(end: &Known, args: &[Arg], inputargs: &[Var]) -> Known {
    let mut renamed: HashMap<Var, Var> = HashMap::new();
    for (a, p) in args.iter().zip(inputargs) {
        if let Arg::Var(v) = a {
            renamed.entry(*v).or_insert(*p);
        }
    }
    let carry = |a: &Arg| -> Option<Arg> {
        match a {
            Arg::Var(v) => renamed.get(v).map(|n| Arg::Var(*n)),
            c => Some(c.clone()),
        }
    };
    let carry_pointer = |p: &Pointer| -> Option<Pointer> {
        match p {
            Pointer::Var(v) => renamed.get(v).map(|n| Pointer::Var(*n)),
            s => Some(*s),
        }
    };
    end.iter()
        .filter_map(|((p, f), v)| Some(((carry_pointer(p)?, f.clone()), carry(v)?)))
        .collect()
}

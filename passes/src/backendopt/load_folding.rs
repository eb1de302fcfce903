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
//! Calls fold the same way (the original's JIT does it for `elidable`
//! calls and its heap optimizer for dict lookups): a call of an
//! `elidable` graph with the arguments of an earlier one reuses its
//! result, whatever happened in between (the program promised that the
//! result depends only on the arguments); a call of a graph that only
//! reads memory (computed: no store, no allocation, no call that does
//! more) reuses it when nothing in between may have written memory. So
//! `if k in d: d[k] = d[k] + 1` hashes the key once (`ll_strhash` is
//! elidable) and looks it up once (`_ll_find` only reads).
//!
//! What is known flows along a block's operations and on to a successor
//! that has no other predecessor (the original does the same), renamed
//! through the link's arguments; a block entered from several places
//! starts knowing nothing. A known call's result that the link does not
//! pass is added to it, and a value passed under several names is used
//! under the first.

use super::callgraph::CallGraph;
use fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use rayon::prelude::*;
use rpy_ir::graph::{
    called_by_collector, Arg, BlockId, Constant, FunctionGraph, LowLevel, Program, SpaceOperation,
    Var,
};
use rpy_ir::llops::{starts_collection, GC_COLLECT_NOW};
use rpy_ir::lltype::{FuncSig, LowLevelType};
use rpy_ir::opcode::Opcode;

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
        let mut node_writes: Vec<HashSet<String>> =
            vec![HashSet::default(); callgraph.node_count()];
        // Each graph's own writes, found on every core.
        let own: Vec<Option<(usize, HashSet<String>)>> = program
            .graphs
            .par_iter()
            .map(|g| {
                let n = callgraph.graph_node(&g.name)?;
                let ops = g.blocks.iter().flat_map(|b| &b.operations);
                let mine = ops
                    .clone()
                    .filter(|op| op.opname == Opcode::Setfield)
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
                Some((n.index(), mine))
            })
            .collect();
        for (n, mine) in own.into_iter().flatten() {
            node_writes[n] = mine;
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
        // The pointer shapes of each graph's indirect calls that reach a
        // graph, found on every core, in program order.
        let shapes: Vec<Vec<(FuncSig, usize)>> = program
            .graphs
            .par_iter()
            .map(|g| {
                let mut found = Vec::new();
                for op in g.blocks.iter().flat_map(|b| &b.operations) {
                    if op.opname != Opcode::IndirectCall {
                        continue;
                    }
                    if let Some(Arg::Var(v)) = op.args.first() {
                        if let LowLevelType::FuncPtr(sig) = g.info(*v) {
                            let shape = sig.pointer_shape();
                            if let Some(d) = callgraph.dispatch_node(&shape) {
                                found.push((shape, d.index()));
                            }
                        }
                    }
                }
                found
            })
            .collect();
        let mut dispatch = HashMap::default();
        for (shape, d) in shapes.into_iter().flatten() {
            dispatch
                .entry(shape)
                .or_insert_with(|| node_writes[d].clone());
        }
        // A graph node's set is moved into its graph's entry (a name
        // given twice takes the set again).
        let mut moved = vec![false; node_writes.len()];
        let mut writes: HashMap<String, HashSet<String>> = HashMap::default();
        for g in &program.graphs {
            let Some(n) = callgraph.graph_node(&g.name) else {
                continue;
            };
            let set = if std::mem::replace(&mut moved[n.index()], true) {
                writes[&g.name].clone()
            } else {
                std::mem::take(&mut node_writes[n.index()])
            };
            writes.insert(g.name.clone(), set);
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

    /// The field names the call `args` (of a `direct_call` or
    /// `indirect_call` in graph `g`) may write, found once for all the
    /// fields asked about; `None` when it may write any field.
    fn call_writes(&self, g: &G, args: &[Arg]) -> Option<&HashSet<String>> {
        static NOTHING: std::sync::OnceLock<HashSet<String>> = std::sync::OnceLock::new();
        let nothing = || NOTHING.get_or_init(HashSet::default);
        match args.first() {
            Some(Arg::Const(Constant::Builtin(b))) => Some(if b == GC_COLLECT_NOW {
                &self.collector_writes
            } else {
                nothing()
            }),
            Some(Arg::Const(Constant::Func(f))) => self.writes.get(f),
            // Any graph of the pointer's shape whose address is taken (none:
            // the call reaches no graph of the program).
            Some(Arg::Var(v)) => match g.info(*v) {
                LowLevelType::FuncPtr(sig) => Some(
                    self.dispatch
                        .get(&sig.pointer_shape())
                        .unwrap_or_else(|| nothing()),
                ),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether the call `args` may write field `field`.
    pub(super) fn call_may_write(&self, g: &G, args: &[Arg], field: &str) -> bool {
        self.call_writes(g, args).is_none_or(|w| w.contains(field))
    }
}

/// The graphs whose repeated calls fold.
pub struct FoldableCalls {
    /// Graphs marked `elidable`: a repeated call always folds.
    elidable: HashSet<String>,
    /// Graphs that only read memory: a repeated call folds while nothing
    /// may have written memory since the first.
    read_only: HashSet<String>,
}

/// Operations that neither write memory nor allocate (calls aside).
fn only_reads(op: &SpaceOperation) -> bool {
    matches!(
        op.opname,
        Opcode::Getfield
            | Opcode::Getarrayitem
            | Opcode::Getarraysize
            | Opcode::SameAs
            | Opcode::CastPointer
    ) || rpy_ir::llops::info(op.opname).is_some_and(|o| o.pure())
}

impl FoldableCalls {
    pub fn new(program: &Program<LowLevel>, callgraph: &CallGraph) -> FoldableCalls {
        let elidable = program
            .graphs
            .iter()
            .filter(|g| g.hints.iter().any(|h| h == "elidable"))
            .map(|g| g.name.clone())
            .collect();
        // The graphs whose own operations only read, calls of graphs
        // aside (a call of a runtime function may do anything); then,
        // to the greatest fixpoint, those whose callees are all in the
        // set (a cycle of readers reads).
        let mut read_only: HashSet<String> = program
            .graphs
            .iter()
            .filter(|g| {
                g.blocks.iter().flat_map(|b| &b.operations).all(|op| {
                    only_reads(op)
                        || match op.opname {
                            Opcode::DirectCall => {
                                matches!(op.args.first(), Some(Arg::Const(Constant::Func(_))))
                            }
                            Opcode::IndirectCall => true,
                            _ => false,
                        }
                })
            })
            .map(|g| g.name.clone())
            .collect();
        loop {
            let calls_other = |name: &str| callgraph.callees(name).any(|c| !read_only.contains(c));
            let dropped: Vec<String> = read_only
                .iter()
                .filter(|n| calls_other(n))
                .cloned()
                .collect();
            if dropped.is_empty() {
                break;
            }
            for n in dropped {
                read_only.remove(&n);
            }
        }
        FoldableCalls {
            elidable,
            read_only,
        }
    }

    /// The graph a `direct_call` names, when its calls may fold, and
    /// whether that is always (elidable) or while memory is unchanged.
    fn foldable<'a>(&self, op: &'a SpaceOperation) -> Option<(&'a str, bool)> {
        if op.opname != Opcode::DirectCall {
            return None;
        }
        let Some(Arg::Const(Constant::Func(f))) = op.args.first() else {
            return None;
        };
        if self.elidable.contains(f) {
            Some((f, true))
        } else if self.read_only.contains(f) {
            Some((f, false))
        } else {
            None
        }
    }

    /// Whether operation `op` may write memory: a store, an allocation
    /// when the collector runs the program's code, any call but of a
    /// graph that only reads or is elidable.
    fn may_write(&self, op: &SpaceOperation, collector_runs_code: bool) -> bool {
        if only_reads(op) || self.foldable(op).is_some() {
            return false;
        }
        !matches!(op.opname, Opcode::Malloc | Opcode::MallocVarsize) || collector_runs_code
    }
}

/// A call whose result is known: the callee, its arguments, its result,
/// and whether it stays known when memory is written (elidable).
#[derive(Clone, Debug)]
struct KnownCall {
    callee: String,
    args: Vec<Arg>,
    result: Arg,
    elidable: bool,
}

/// What [`fold_loads`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadStats {
    /// `getfield` operations replaced by a value already known.
    pub loads_folded: usize,
    /// Calls replaced by the result of an earlier call with the same
    /// arguments (of an elidable graph, or of one that only reads, with
    /// nothing written in between).
    pub calls_folded: usize,
    /// `setfield` operations removed because the same field of the same
    /// pointer is written again before anything may read it.
    pub stores_removed: usize,
}

/// Folds the repeated field reads of every graph.
pub fn fold_loads(program: &mut Program<LowLevel>) -> LoadStats {
    let callgraph = CallGraph::new(program);
    let (writes, calls) = rayon::join(
        || FieldWrites::new(program, &callgraph),
        || FoldableCalls::new(program, &callgraph),
    );
    let mut stats = LoadStats::default();
    super::per_graph(
        program,
        &mut stats,
        |g, stats| {
            fold_loads_in_graph(g, &writes, &calls, stats);
            if stats.calls_folded > 0 {
                // A folded call that could raise took its handlers' links
                // with it, and results were passed along links for it.
                crate::simplify::simplify_graph(g);
            }
            stats.stores_removed += remove_dead_stores(g, writes.collector_runs_code());
        },
        |_| 0,
    );
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
        if !block
            .operations
            .iter()
            .any(|op| op.opname == Opcode::Setfield)
        {
            continue;
        }
        let mut pending: HashSet<(Pointer, &str)> = HashSet::default();
        let mut dead = vec![false; block.operations.len()];
        for (i, op) in block.operations.iter().enumerate().rev() {
            let field = match op.args.get(1) {
                Some(Arg::Const(Constant::Name(f))) => Some(f.as_str()),
                _ => None,
            };
            match (op.opname, field) {
                (Opcode::Setfield, Some(f)) => match op.args.first().and_then(key_arg) {
                    Some(p) => {
                        if !pending.insert((p, f)) {
                            dead[i] = true;
                        }
                    }
                    None => pending.clear(),
                },
                (Opcode::Getfield, Some(f)) => pending.retain(|(_, pf)| *pf != f),
                (Opcode::Malloc, _) if collector_runs_code => pending.clear(),
                (
                    Opcode::SameAs
                    | Opcode::CastPointer
                    | Opcode::Malloc
                    | Opcode::Getarrayitem
                    | Opcode::Setarrayitem
                    | Opcode::Getarraysize,
                    _,
                ) => {}
                (name, _) if rpy_ir::llops::info(name).is_some_and(|o| o.pure()) => {}
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

fn fold_loads_in_graph(
    g: &mut G,
    writes: &FieldWrites,
    calls: &FoldableCalls,
    stats: &mut LoadStats,
) {
    // Only reads and calls that may fold fold: a graph without one has
    // nothing to do.
    let any_read = g.blocks.iter().any(|b| {
        b.operations
            .iter()
            .any(|op| op.opname == Opcode::Getfield || calls.foldable(op).is_some())
    });
    if !any_read {
        return;
    }
    let collector_runs_code = writes.collector_runs_code();
    let order = g.reverse_postorder();
    let preds = g.predecessors();
    // The knowledge at the end of each processed block.
    let mut at_end: HashMap<BlockId, (Known, Vec<KnownCall>)> = HashMap::default();
    for b in order {
        let mut known = Known::default();
        let mut known_calls = Vec::new();
        let mut subst: HashMap<Var, Arg> = HashMap::default();
        if let [(p, exit)] = preds[b.0 as usize].as_slice() {
            if let (true, Some((end, end_calls))) = (*p != b, at_end.get(p)) {
                pass_call_results(g, end_calls, (*p, *exit), b);
                let args = &g.block(*p).exits[*exit].args;
                let inputargs = &g.block(b).inputargs;
                let renamed = link_renaming(args, inputargs);
                known = along_link(end, &renamed);
                known_calls = calls_along_link(end_calls, &renamed);
                // A value the link passes under several names is used
                // under the first, so that what is known of it matches.
                subst = args
                    .iter()
                    .zip(inputargs)
                    .filter_map(|(a, input)| {
                        let first = renamed.get(&a.as_var()?)?;
                        (first != input).then_some((*input, Arg::Var(*first)))
                    })
                    .collect();
            }
        }
        // Taken out while it is rewritten (what is read of the graph
        // meanwhile is its variables' types), put back below.
        let mut block = std::mem::take(g.block_mut(b));
        let sub = |subst: &HashMap<Var, Arg>, a: &mut Arg| {
            if let Arg::Var(v) = a {
                if let Some(n) = subst.get(v) {
                    *a = n.clone();
                }
            }
        };
        let mut kept = Vec::with_capacity(block.operations.len());
        let n_ops = block.operations.len();
        for (i, mut op) in std::mem::take(&mut block.operations)
            .into_iter()
            .enumerate()
        {
            for a in &mut op.args {
                sub(&subst, a);
            }
            if let Some((callee, elidable)) = calls.foldable(&op) {
                let args = &op.args[1..];
                if let Some(k) = known_calls
                    .iter()
                    .find(|k| k.callee == callee && k.args == args)
                {
                    subst.insert(op.result, k.result.clone());
                    stats.calls_folded += 1;
                    // The first call returned; so does this one: a block
                    // that ended with it loses its exception exits.
                    if i + 1 == n_ops && block.catches_exceptions() {
                        block.exitswitch = None;
                        block.exits.truncate(1);
                    }
                    continue;
                }
                known_calls.push(KnownCall {
                    callee: callee.to_string(),
                    args: args.to_vec(),
                    result: Arg::Var(op.result),
                    elidable,
                });
            } else if calls.may_write(&op, collector_runs_code) {
                known_calls.retain(|k| k.elidable);
            }
            match op.opname {
                Opcode::Getfield => {
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
                Opcode::Setfield => {
                    if let Some(Arg::Const(Constant::Name(f))) = op.args.get(1) {
                        known.retain(|(_, field), _| field != f);
                        if let (Some(p), Some(v)) =
                            (op.args.first().and_then(key_arg), op.args.get(2))
                        {
                            known.insert((p, f.clone()), v.clone());
                        }
                    }
                }
                Opcode::DirectCall | Opcode::IndirectCall => {
                    match writes.call_writes(g, &op.args) {
                        Some(w) => known.retain(|(_, field), _| !w.contains(field)),
                        None => known.retain(|_, _| false),
                    }
                }
                Opcode::Malloc | Opcode::MallocVarsize => {
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
        for k in &mut known_calls {
            sub(&subst, &mut k.result);
            for a in &mut k.args {
                sub(&subst, a);
            }
        }
        *g.block_mut(b) = block;
        at_end.insert(b, (known, known_calls));
    }
}

/// Makes the link `(from, exit)` to `to` (its only predecessor) pass the
/// results of the known calls whose arguments it passes, so that a
/// repeated call in `to` can use them. Not to the return or except block
/// (their arguments are fixed), nor along an exception link (the block's
/// last call raised: it has no result).
fn pass_call_results(g: &mut G, calls: &[KnownCall], (from, exit): (BlockId, usize), to: BlockId) {
    if to == g.returnblock
        || to == g.exceptblock
        || (exit > 0 && g.block(from).catches_exceptions())
    {
        return;
    }
    for k in calls {
        let Arg::Var(result) = k.result else {
            continue;
        };
        let args = &g.block(from).exits[exit].args;
        let passed = |a: &Arg| match a {
            Arg::Var(_) => args.contains(a),
            _ => true,
        };
        if !k.args.iter().all(passed) || args.contains(&k.result) {
            continue;
        }
        let ty = g.info(result).clone();
        let new = g.new_var(None, ty);
        g.block_mut(from).exits[exit].args.push(k.result.clone());
        g.block_mut(to).inputargs.push(new);
    }
}

/// How a link renames the variables it passes: each passed variable to
/// the first input argument it is passed as.
fn link_renaming(args: &[Arg], inputargs: &[Var]) -> HashMap<Var, Var> {
    let mut renamed: HashMap<Var, Var> = HashMap::default();
    for (a, p) in args.iter().zip(inputargs) {
        if let Arg::Var(v) = a {
            renamed.entry(*v).or_insert(*p);
        }
    }
    renamed
}

/// The known calls at the start of a block entered only by a link that
/// renames as `renamed` says: those whose arguments and result are all
/// passed.
fn calls_along_link(end: &[KnownCall], renamed: &HashMap<Var, Var>) -> Vec<KnownCall> {
    let carry = |a: &Arg| -> Option<Arg> {
        match a {
            Arg::Var(v) => renamed.get(v).map(|n| Arg::Var(*n)),
            c => Some(c.clone()),
        }
    };
    end.iter()
        .filter_map(|k| {
            Some(KnownCall {
                callee: k.callee.clone(),
                args: k.args.iter().map(carry).collect::<Option<Vec<_>>>()?,
                result: carry(&k.result)?,
                elidable: k.elidable,
            })
        })
        .collect()
}

/// The knowledge at the start of a block entered only by a link that
/// renames as `renamed` says: what is known of the values passed.
fn along_link(end: &Known, renamed: &HashMap<Var, Var>) -> Known {
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

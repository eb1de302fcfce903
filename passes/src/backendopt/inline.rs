//! Inlining: a `direct_call` of a small graph of the program is replaced by
//! a copy of the callee's blocks, as the original's `backendopt/inline.py`
//! does.
//!
//! Which calls: the graphs are visited bottom-up on the call graph, so a
//! callee has had its own calls inlined before its size is measured. A
//! call is inlined when the callee's weight is below the threshold; the
//! weight is the original's heuristic: the static instruction count (each
//! operation 1, `same_as`/`cast_pointer` 0, `malloc` 2, a call 1.5 plus half
//! its argument count more, a switch 1) plus its estimated median execution
//! cost (the expected count along its paths, a loop's back edge taken 70%
//! of the time), or just the count when that is 200 or more. A graph of a
//! recursion cycle is never inlined (so inlining ends), nor one marked
//! `dont_inline` or holding a `jit_marker` (the JIT finds its loop by the
//! marker's graph); one marked `always_inline` always is.
//!
//! How: the caller's block is split after the call. Each copied block takes,
//! besides the callee's own input arguments, the caller's variables still
//! needed after the call (the original's "pass-on" variables), since a
//! variable lives in one block only; the callee's return block becomes the
//! block after the call. A raise in the callee goes to the caller's except
//! block, or, when the call was under a `try` (the last operation of a
//! block switching on `last_exception`), to the caller's handler that
//! catches the raised class, chosen at translation time: the class is a
//! constant at every raise the inliner accepts, and a callee that calls
//! something that can raise, or raises a class known only at run time, is
//! not inlined under a `try` (the original refuses the first case too).

use super::callgraph::CallGraph;
use crate::exceptiontransform::RaiseAnalysis;
use fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use rayon::prelude::*;
use rpy_ir::graph::{
    called_by_collector, Arg, Block, BlockId, Constant, FunctionGraph, Link, LowLevel, Program,
    SpaceOperation, Var,
};
use rpy_ir::opcode::Opcode;
use std::sync::OnceLock;

/// The original's default threshold (`--inline-threshold` in PyPy's
/// translation options).
pub const DEFAULT_THRESHOLD: f64 = 32.4;

/// A graph whose static count reaches this is weighed by the count alone
/// (solving for its execution cost is not worth it; it will not be inlined).
const LARGE_GRAPH: f64 = 200.0;

/// What [`inline_program`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InlineStats {
    /// Call sites replaced by a copy of their callee.
    pub inlined: usize,
    /// Calls under a `try` left alone because of what the callee raises.
    pub refused_under_try: usize,
    /// Graphs dropped because every call of theirs was inlined.
    pub graphs_removed: usize,
}

type G = FunctionGraph<LowLevel>;

/// The weight of one block: the original's `block_weight`.
fn block_weight(block: &Block) -> f64 {
    let mut total = 0.0;
    for op in &block.operations {
        total += match op.opname {
            Opcode::SameAs | Opcode::CastPointer => 0.0,
            Opcode::Malloc => 2.0,
            Opcode::DirectCall => 1.5 + (op.args.len() / 2) as f64 + 1.0,
            Opcode::IndirectCall => 2.0 + (op.args.len() / 2) as f64 + 1.0,
            _ => 1.0,
        };
    }
    if block.exitswitch.is_some() {
        total += 1.0;
    }
    total.max(0.0)
}

/// The graph's static instruction count: every reachable block's weight.
pub fn static_instruction_count(g: &G) -> f64 {
    g.reverse_postorder()
        .into_iter()
        .map(|b| block_weight(g.block(b)))
        .sum()
}

/// For each block of a loop, the loop's header: the target of a back edge
/// whose source it reaches back to (the original's `find_loop_blocks`).
fn loop_headers(g: &G, order: &[BlockId]) -> HashMap<BlockId, BlockId> {
    let pos: HashMap<BlockId, usize> = order.iter().enumerate().map(|(i, b)| (*b, i)).collect();
    let preds = g.predecessors();
    let mut headers = HashMap::default();
    for &b in order {
        for l in &g.block(b).exits {
            // In reverse postorder a back edge goes to an earlier block
            // (or the block itself) that dominates... or at least precedes it;
            // the loop's body is what reaches the edge's source backwards
            // without leaving through the header.
            let (Some(&from), Some(&to)) = (pos.get(&b), pos.get(&l.target)) else {
                continue;
            };
            if to > from {
                continue;
            }
            let header = l.target;
            headers.insert(header, header);
            let mut stack = vec![b];
            let mut seen = HashSet::from_iter([header]);
            while let Some(x) = stack.pop() {
                if !seen.insert(x) {
                    continue;
                }
                headers.insert(x, header);
                for (p, _) in &preds[x.0 as usize] {
                    if pos.contains_key(p) {
                        stack.push(*p);
                    }
                }
            }
        }
    }
    headers
}

/// The expected cost of a run of the graph from its start: the solution of
/// cost(b) = weight(b) + sum over exits of p(exit) * cost(target), a loop's
/// exits back into it taken with probability 0.7 (the original's
/// `measure_median_execution_cost`). Solved by Gaussian elimination; the
/// graphs it is asked about are small (a count under 200).
pub fn median_execution_cost(g: &G) -> f64 {
    let order = g.reverse_postorder();
    let n = order.len();
    let pos: HashMap<BlockId, usize> = order.iter().enumerate().map(|(i, b)| (*b, i)).collect();
    let loops = loop_headers(g, &order);
    // The augmented matrix, row by row in one vector (`w` a row).
    let w = n + 1;
    let mut m = vec![0.0f64; n * w];
    for (i, &b) in order.iter().enumerate() {
        let block = g.block(b);
        m[i * w + i] = 1.0;
        m[i * w + n] = block_weight(block);
        if block.exits.is_empty() {
            continue;
        }
        let current = loops.get(&b);
        let in_loop = |l: &Link| current.is_some() && loops.get(&l.target) == current;
        let back = block.exits.iter().filter(|l| in_loop(l)).count();
        let (f, bk) = if back > 0 && back < block.exits.len() {
            (0.3 / (block.exits.len() - back) as f64, 0.7 / back as f64)
        } else {
            let p = 1.0 / block.exits.len() as f64;
            (p, p)
        };
        for l in &block.exits {
            if let Some(&j) = pos.get(&l.target) {
                m[i * w + j] -= if in_loop(l) { bk } else { f };
            }
        }
    }
    // Gaussian elimination with partial pivoting.
    let mut pivot_row = vec![0.0f64; w];
    for col in 0..n {
        let Some(pivot) =
            (col..n).max_by(|a, b| m[*a * w + col].abs().total_cmp(&m[*b * w + col].abs()))
        else {
            return f64::MAX;
        };
        if m[pivot * w + col].abs() < 1e-12 {
            return f64::MAX;
        }
        if pivot != col {
            for k in 0..w {
                m.swap(col * w + k, pivot * w + k);
            }
        }
        // The pivot row is not changed while the others are.
        pivot_row[col..].copy_from_slice(&m[col * w + col..(col + 1) * w]);
        for row in 0..n {
            if row != col && m[row * w + col] != 0.0 {
                let factor = m[row * w + col] / pivot_row[col];
                for (x, p) in m[row * w + col..(row + 1) * w]
                    .iter_mut()
                    .zip(&pivot_row[col..])
                {
                    *x -= factor * p;
                }
            }
        }
    }
    let start = pos[&g.startblock];
    let cost = m[start * w + n] / m[start * w + start];
    if cost.is_nan() {
        f64::MAX
    } else {
        cost.max(0.0)
    }
}

/// The original's `inlining_heuristic`: the weight compared with the
/// threshold.
pub fn inlining_weight(g: &G) -> f64 {
    let count = static_instruction_count(g);
    if count >= LARGE_GRAPH {
        return count;
    }
    0.9999 * median_execution_cost(g) + count
}

/// Inlines, bottom-up, every call of a graph whose weight is below
/// `threshold` into its callers.
///
/// What a graph becomes depends only on itself and on what its callees
/// became (a callee is inlined as it is once its own turn is over; one of
/// the caller's own cycle never is), so the graphs are done in waves, on
/// every core: a graph's wave comes after those of the callees it may
/// inline, and a graph that calls nothing is done from the start. Each
/// graph is rewritten exactly as a sequential bottom-up walk would.
pub fn inline_program(program: &mut Program<LowLevel>, threshold: f64) -> InlineStats {
    let (callgraph, raises) =
        rayon::join(|| CallGraph::new(program), || RaiseAnalysis::new(program));
    let position: HashMap<String, usize> = program
        .graphs
        .iter()
        .enumerate()
        .map(|(i, g)| (g.name.clone(), i))
        .collect();
    // The wave of each graph that calls (0: nothing to do), bottom-up.
    let mut wave_of = vec![0usize; program.graphs.len()];
    let mut waves: Vec<Vec<usize>> = Vec::new();
    for name in callgraph.bottom_up() {
        let caller = position[name];
        let mut calls = false;
        let mut wave = 1;
        for op in program.graphs[caller]
            .blocks
            .iter()
            .flat_map(|b| &b.operations)
            .filter(|op| op.opname == Opcode::DirectCall)
        {
            calls = true;
            if let Some(Arg::Const(Constant::Func(f))) = op.args.first() {
                if f != name && !callgraph.is_recursive(f) {
                    if let Some(&i) = position.get(f.as_str()) {
                        wave = wave.max(wave_of[i] + 1);
                    }
                }
            }
        }
        if !calls {
            continue;
        }
        wave_of[caller] = wave;
        if waves.len() < wave {
            waves.resize_with(wave, Vec::new);
        }
        waves[wave - 1].push(caller);
    }
    // Whether a graph may be inlined, by its hints, marks and weight:
    // asked only once the graph is done.
    let inlinable: Vec<OnceLock<bool>> = program.graphs.iter().map(|_| OnceLock::new()).collect();
    let mut stats = InlineStats::default();
    for wave in waves {
        // Taken out to work on while the callees are read from the
        // program; an empty graph holds each one's place.
        let mut graphs: Vec<(usize, G)> = wave
            .into_iter()
            .map(|i| {
                let g = std::mem::replace(
                    &mut program.graphs[i],
                    FunctionGraph::new(String::new(), &[], rpy_ir::lltype::LowLevelType::Void),
                );
                (i, g)
            })
            .collect();
        let site = Callees {
            program,
            callgraph: &callgraph,
            raises: &raises,
            position: &position,
            inlinable: &inlinable,
            threshold,
        };
        let counts: Vec<(usize, usize)> = graphs
            .par_iter_mut()
            .map(|(_, g)| site.inline_into(g))
            .collect();
        for (inlined, refused) in counts {
            stats.inlined += inlined;
            stats.refused_under_try += refused;
        }
        for (i, g) in graphs {
            program.graphs[i] = g;
        }
    }
    stats.graphs_removed = remove_inlined_graphs(program, &callgraph);
    stats
}

/// What inlining into one graph reads: the program's graphs that are done.
struct Callees<'a> {
    program: &'a Program<LowLevel>,
    callgraph: &'a CallGraph,
    raises: &'a RaiseAnalysis,
    position: &'a HashMap<String, usize>,
    inlinable: &'a [OnceLock<bool>],
    threshold: f64,
}

impl Callees<'_> {
    /// Whether `callee`, done, may be inlined into `caller`.
    fn accepts(&self, caller: &str, callee: &str) -> bool {
        if callee == caller || self.callgraph.is_recursive(callee) {
            return false;
        }
        let Some(&i) = self.position.get(callee) else {
            return false;
        };
        *self.inlinable[i].get_or_init(|| {
            let g = &self.program.graphs[i];
            // An elidable graph stays a call, so that load folding can
            // fold its repeated calls (the C compiler still inlines a
            // small one).
            if g.hints
                .iter()
                .any(|h| h == "dont_inline" || h == "elidable")
                || has_jit_marker(g)
            {
                false
            } else if g.hints.iter().any(|h| h == "always_inline") {
                true
            } else {
                inlining_weight(g) < self.threshold
            }
        })
    }

    /// Inlines every accepted call of `graph`, first site first, until
    /// none is left: how many were inlined and how many refused under a
    /// `try`.
    fn inline_into(&self, graph: &mut G) -> (usize, usize) {
        let name = graph.name.clone();
        let (mut inlined, mut refused_under_try) = (0, 0);
        let mut refused: HashSet<(u32, usize)> = HashSet::default();
        loop {
            let site = find_site(graph, &refused, |callee| self.accepts(&name, callee));
            let Some((b, i, callee)) = site else { break };
            let callee_graph = &self.program.graphs[self.position[&callee]];
            if inline_call(
                graph,
                b,
                i,
                callee_graph,
                self.raises,
                &self.program.prebuilt,
            ) {
                inlined += 1;
            } else {
                refused_under_try += 1;
                refused.insert((b.0, i));
            }
        }
        (inlined, refused_under_try)
    }
}

/// Drops the graphs that were called before inlining and that nothing
/// reaches any more (every call of theirs was inlined). What nothing
/// called before (the entry point, a JIT driver's hooks, which no
/// operation names) stays, and so does everything it reaches; so does a
/// graph the collector calls (a `__del__` another one also calls).
fn remove_inlined_graphs(program: &mut Program<LowLevel>, before: &CallGraph) -> usize {
    let taken = program.address_taken();
    // What each graph calls directly: an indirect call reaches only graphs
    // whose address is taken, and those are kept anyway.
    let position: HashMap<&str, usize> = program.graph_positions();
    let direct_callees = |name: &str| -> Vec<String> {
        let Some(&i) = position.get(name) else {
            return Vec::new();
        };
        program.graphs[i]
            .blocks
            .iter()
            .flat_map(|b| &b.operations)
            .filter(|op| op.opname == Opcode::DirectCall)
            .filter_map(|op| match op.args.first() {
                Some(Arg::Const(Constant::Func(f))) => Some(f.clone()),
                _ => None,
            })
            .collect()
    };
    let mut reached: HashSet<String> = HashSet::default();
    let mut stack: Vec<String> = program
        .graphs
        .iter()
        .filter(|g| {
            g.name == program.entry
                || taken.contains(g.name.as_str())
                || !before.has_callers(&g.name)
                || called_by_collector(g)
        })
        .map(|g| g.name.clone())
        .collect();
    while let Some(n) = stack.pop() {
        if reached.insert(n.clone()) {
            stack.extend(direct_callees(&n));
        }
    }
    let count = program.graphs.len();
    program.graphs.retain(|g| reached.contains(&g.name));
    count - program.graphs.len()
}

fn has_jit_marker(g: &G) -> bool {
    g.blocks
        .iter()
        .any(|b| b.operations.iter().any(|op| op.opname == Opcode::JitMarker))
}

/// The first `direct_call` the predicate accepts: block, index, callee.
fn find_site(
    g: &G,
    refused: &HashSet<(u32, usize)>,
    mut accept: impl FnMut(&str) -> bool,
) -> Option<(BlockId, usize, String)> {
    for b in g.reverse_postorder() {
        for (i, op) in g.block(b).operations.iter().enumerate() {
            if op.opname != Opcode::DirectCall || refused.contains(&(b.0, i)) {
                continue;
            }
            if let Some(Arg::Const(Constant::Func(f))) = op.args.first() {
                if accept(f) {
                    return Some((b, i, f.clone()));
                }
            }
        }
    }
    None
}

/// The subclass id of a raised class given as a vtable static.
fn raised_class_id(prebuilt: &[rpy_ir::graph::PrebuiltObject], etype: &Arg) -> Option<i64> {
    match etype {
        Arg::Const(Constant::Prebuilt(i)) => {
            prebuilt.get(*i as usize)?.subclass_range().map(|r| r.0)
        }
        _ => None,
    }
}

/// Whether every raise of `callee` has a class known here and nothing it
/// calls can raise: what inlining it under a `try` needs.
fn raises_only_known_classes(
    callee: &G,
    raises: &RaiseAnalysis,
    prebuilt: &[rpy_ir::graph::PrebuiltObject],
) -> bool {
    for b in callee.reverse_postorder() {
        let block = callee.block(b);
        if block
            .operations
            .iter()
            .any(|op| raises.op_can_raise(op, |v| callee.info(v)))
        {
            return false;
        }
        for l in &block.exits {
            if l.target == callee.exceptblock && raised_class_id(prebuilt, &l.args[0]).is_none() {
                return false;
            }
        }
    }
    true
}

/// Replaces operation `index` of block `b` of `caller` (a `direct_call` of
/// `callee`) by a copy of `callee`. False (and nothing changed) when the
/// call is under a `try` and the callee raises what cannot be dispatched
/// at translation time.
pub fn inline_call(
    caller: &mut G,
    b: BlockId,
    index: usize,
    callee: &G,
    raises: &RaiseAnalysis,
    prebuilt: &[rpy_ir::graph::PrebuiltObject],
) -> bool {
    let block = caller.block(b);
    let guarded = block.catches_exceptions() && index + 1 == block.operations.len();
    if guarded && !raises_only_known_classes(callee, raises, prebuilt) {
        return false;
    }
    // The caller's block keeps what comes before the call; the call and
    // what follows it, the switch and the exits are taken out of it.
    let block = caller.block_mut(b);
    let mut rest = block.operations.split_off(index).into_iter();
    let call = rest.next().expect("the call is operation `index`");
    let mut rest: Vec<SpaceOperation> = rest.collect();
    let exitswitch = block.exitswitch.take();
    let mut exits = std::mem::take(&mut block.exits);
    // The variables of the caller's block still read after the call, in
    // the order they are defined (the pass-on variables).
    let mut read_after: HashSet<Var> = HashSet::default();
    let mut note = |a: &Arg| {
        if let Arg::Var(v) = a {
            read_after.insert(*v);
        }
    };
    for op in &rest {
        op.args.iter().for_each(&mut note);
    }
    if let Some(s) = &exitswitch {
        note(s);
    }
    for l in &exits {
        l.args.iter().for_each(&mut note);
    }
    let passon: Vec<Var> = block
        .inputargs
        .iter()
        .copied()
        .chain(block.operations.iter().map(|op| op.result))
        .filter(|v| read_after.contains(v))
        .collect();

    // Room for what the copy adds: the callee's variables and the pass-on
    // variables of each copied block and of the block after the call.
    caller
        .vars
        .reserve(passon.len() * (callee.blocks.len() + 1) + callee.vars.len());
    // The block after the call: the call's result and fresh copies of the
    // pass-on variables; the rest of the caller's block, renamed.
    let fresh = |g: &mut G, v: Var| {
        let d = g.vars[v.0 as usize].clone();
        g.new_var(d.name, d.info)
    };
    let after_vars: Vec<Var> = passon.iter().map(|v| fresh(caller, *v)).collect();
    let rename: HashMap<Var, Var> = passon
        .iter()
        .copied()
        .zip(after_vars.iter().copied())
        .collect();
    let ren = |a: &mut Arg| {
        if let Arg::Var(v) = a {
            if let Some(n) = rename.get(v) {
                *v = *n;
            }
        }
    };
    for op in &mut rest {
        op.args.iter_mut().for_each(ren);
    }
    let mut after = Block {
        inputargs: std::iter::once(call.result)
            .chain(after_vars.iter().copied())
            .collect(),
        operations: rest,
        exitswitch: None,
        exits: Vec::new(),
    };
    let handlers: Vec<Link> = if guarded {
        let handlers = exits.split_off(1);
        exits[0].args.iter_mut().for_each(ren);
        after.exits = exits;
        handlers
    } else {
        after.exitswitch = exitswitch.map(|mut s| {
            ren(&mut s);
            s
        });
        for l in &mut exits {
            l.args.iter_mut().for_each(ren);
        }
        after.exits = exits;
        Vec::new()
    };
    let after_id = BlockId(caller.blocks.len() as u32);
    caller.blocks.push(after);

    // Copies of the callee's blocks.
    let callee_blocks: Vec<BlockId> = callee
        .reverse_postorder()
        .into_iter()
        .filter(|x| *x != callee.returnblock && *x != callee.exceptblock)
        .collect();
    let mut copy_of: HashMap<BlockId, BlockId> = HashMap::default();
    let mut passon_of: HashMap<BlockId, Vec<Var>> = HashMap::default();
    for &cb in &callee_blocks {
        let id = BlockId(caller.blocks.len() as u32);
        caller.blocks.push(Block::default());
        copy_of.insert(cb, id);
        let vars = passon.iter().map(|v| fresh(caller, *v)).collect();
        passon_of.insert(cb, vars);
    }
    let mut vars = CopiedVars {
        callee,
        map: HashMap::default(),
    };
    for &cb in &callee_blocks {
        let src = callee.block(cb);
        let own_passon = passon_of[&cb].clone();
        let inputargs: Vec<Var> = src
            .inputargs
            .iter()
            .map(|v| vars.var(caller, *v))
            .chain(own_passon.iter().copied())
            .collect();
        let operations: Vec<SpaceOperation> = src
            .operations
            .iter()
            .map(|op| SpaceOperation {
                opname: op.opname,
                args: op.args.iter().map(|a| vars.arg(caller, a)).collect(),
                result: vars.var(caller, op.result),
                pos: op.pos,
            })
            .collect();
        let exitswitch = src.exitswitch.as_ref().map(|s| vars.arg(caller, s));
        let mut exits = Vec::with_capacity(src.exits.len());
        for l in &src.exits {
            let last_exception = l.last_exception.map(|v| vars.var(caller, v));
            let last_exc_value = l.last_exc_value.map(|v| vars.var(caller, v));
            let args: Vec<Arg> = l.args.iter().map(|a| vars.arg(caller, a)).collect();
            let with_passon = |args: Vec<Arg>| -> Vec<Arg> {
                args.into_iter()
                    .chain(own_passon.iter().map(|v| Arg::Var(*v)))
                    .collect()
            };
            let (target, args) = if l.target == callee.returnblock {
                (after_id, with_passon(args))
            } else if l.target == callee.exceptblock {
                if guarded {
                    let passon_map: HashMap<Var, Var> = passon
                        .iter()
                        .copied()
                        .zip(own_passon.iter().copied())
                        .collect();
                    dispatch_raise(&args, &handlers, &passon_map, prebuilt, caller.exceptblock)
                } else {
                    (caller.exceptblock, args)
                }
            } else {
                (copy_of[&l.target], with_passon(args))
            };
            exits.push(Link {
                args,
                target,
                exitcase: l.exitcase.clone(),
                last_exception,
                last_exc_value,
            });
        }
        *caller.block_mut(copy_of[&cb]) = Block {
            inputargs,
            operations,
            exitswitch,
            exits,
        };
    }

    // The caller's block now ends by entering the copy.
    let start_args: Vec<Arg> = call.args[1..]
        .iter()
        .cloned()
        .chain(passon.iter().map(|v| Arg::Var(*v)))
        .collect();
    caller.block_mut(b).exits = vec![Link::new(start_args, copy_of[&callee.startblock], None)];
    true
}

/// The caller's variable for each variable of the callee's copy.
struct CopiedVars<'c> {
    callee: &'c G,
    map: HashMap<Var, Var>,
}

impl CopiedVars<'_> {
    fn var(&mut self, caller: &mut G, v: Var) -> Var {
        *self.map.entry(v).or_insert_with(|| {
            let d = &self.callee.vars[v.0 as usize];
            caller.new_var(d.name.clone(), d.info.clone())
        })
    }
    fn arg(&mut self, caller: &mut G, a: &Arg) -> Arg {
        match a {
            Arg::Var(v) => Arg::Var(self.var(caller, *v)),
            c => c.clone(),
        }
    }
}

/// Where a raise of the inlined callee goes when the call was under a
/// `try`: the first handler whose class range holds the raised class (its
/// link's arguments read the raise's values for the caught class and
/// instance, and the raising block's pass-on copies for the caller's
/// variables), else the caller's except block.
fn dispatch_raise(
    raise_args: &[Arg],
    handlers: &[Link],
    passon_map: &HashMap<Var, Var>,
    prebuilt: &[rpy_ir::graph::PrebuiltObject],
    exceptblock: BlockId,
) -> (BlockId, Vec<Arg>) {
    let id = raised_class_id(prebuilt, &raise_args[0])
        .expect("raises_only_known_classes checked every raise");
    for h in handlers {
        let Some(Constant::Prebuilt(i)) = &h.exitcase else {
            continue;
        };
        let Some((lo, hi)) = prebuilt.get(*i as usize).and_then(|o| o.subclass_range()) else {
            continue;
        };
        if lo <= id && id < hi {
            let args = h
                .args
                .iter()
                .map(|a| match a {
                    Arg::Var(v) if Some(*v) == h.last_exception => raise_args[0].clone(),
                    Arg::Var(v) if Some(*v) == h.last_exc_value => raise_args[1].clone(),
                    Arg::Var(v) => Arg::Var(passon_map[v]),
                    c => c.clone(),
                })
                .collect();
            return (h.target, args);
        }
    }
    (exceptblock, raise_args.to_vec())
}

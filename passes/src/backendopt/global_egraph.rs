//! The e-graph over a whole function: global value numbering and hoisting
//! of loop-invariant pure operations, after Cranelift's aegraph
//! (`cranelift/codegen/src/egraph/elaborate.rs`).
//!
//! Low-level graphs are SSA per block (a value reaches another block only
//! as a link argument), so the pass works in three steps:
//!
//! 1. **To global SSA.** A block input argument that every incoming link
//!    passes the same value for (or itself, around a loop) is that value:
//!    the trivial phis of Braun et al., resolved to a fixpoint. Every use of
//!    such an argument is replaced by the value, which is defined in a block
//!    dominating the use. What a catching block's raising operation returns
//!    is not looked through: the exception exits do not have it.
//! 2. **One e-graph.** The total pure integer operations of every block
//!    (those `eval_int` defines for all inputs: not the divisions, modulos
//!    and shifts, which may be undefined and so stay where they are, as do
//!    operations that raise or touch the heap) are nodes of one e-graph,
//!    whose hash-consing is value numbering; the other values are leaves.
//!    The rules of `rules/opt` and the [`IntBound`](super::IntBound)
//!    analysis run over it as in the per-block pass, bounded by
//!    [`NODE_LIMIT`] and [`ITER_LIMIT`].
//! 3. **Elaboration by dominance.** The blocks are walked in dominator
//!    tree preorder; each value an operation that stays (one with an
//!    effect), an exitswitch or a link needs is computed from its cheapest
//!    form on demand, unless a block dominating the use computed it already
//!    (global value numbering). An operation whose arguments are all
//!    defined outside a loop the use is in is placed at the end of the
//!    loop header's immediate dominator instead (the loop's entry, outside
//!    it), and so on out of the loops it does not depend on. Then the
//!    values a block uses but does not define become block input arguments
//!    again, passed along every link into it (back to SSA per block).
//!
//! Facts from branch conditions are not used here: a bound of an e-class
//! holds wherever the value is, and a fact holds only on one path.

use super::egraph::{int_sig, one_operation, IntAnalysis, Node, OpCost};
use super::int_type;
use egg::{EGraph, Extractor, Id, Language};
use fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use rpy_ir::graph::{
    Arg, BlockId, Constant, FunctionGraph, LowLevel, Program, SpaceOperation, Var,
};
use rpy_ir::lltype::LowLevelType;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

type G = FunctionGraph<LowLevel>;

/// At most this many e-nodes per function: ten times the per-block
/// pass's limit, as a function holds many blocks; at about 100 bytes a
/// node with its hash-cons and class entries, a few megabytes, and egg's
/// matching stays within milliseconds for the graphs a 10,000-line program
/// makes (the largest, an inlined interpreter loop, holds a few thousand
/// pure operations).
pub const NODE_LIMIT: usize = 100_000;
/// At most this many rounds of rewriting. The per-block pass has already
/// run the rules to their fixpoint within each block; what is new here is
/// what value numbering joins across blocks, which a few rounds fold. Each
/// round matches every rule against the classes holding its root operation
/// in the whole function (`RuleSet::run`); on the 10,000-line class
/// program, where no rule fires across blocks, the rounds were 16 of the
/// pass's 132 profile samples (of about 85 ms), placing values back and
/// re-threading them most of the rest.
pub const ITER_LIMIT: usize = 3;

/// What [`global_egraph`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalStats {
    /// Pure operations put in e-graphs, and operations placed back.
    pub pure_ops_before: usize,
    pub pure_ops_after: usize,
    /// Pure operations no longer computed in their own block because a
    /// block dominating it computes the value: redundancies across blocks
    /// (value numbering), and operations hoisted out of their loop.
    pub values_reused: usize,
    /// Operations placed outside a loop their use is in.
    pub ops_hoisted: usize,
    /// Graphs left as they were because a value could not be placed.
    pub graphs_skipped: usize,
    /// Graphs left as they were because the e-graph found nothing to do:
    /// no loop, no block argument always the same constant, and each pure
    /// operation alone in its class (no rule fired, no value computed
    /// twice, no constant).
    pub graphs_unchanged: usize,
    /// Rule applications.
    pub rule_fires: u64,
    /// Graphs whose pure operations were placed back (changed, or at
    /// least rewritten): the only ones the pass touched.
    pub graphs_placed: usize,
}

/// Runs the whole-function e-graph on every graph.
pub fn global_egraph(program: &mut Program<LowLevel>) -> GlobalStats {
    global_egraph_changed(program).0
}

/// [`global_egraph`], and for each graph whether the pass touched it.
pub(super) fn global_egraph_changed(program: &mut Program<LowLevel>) -> (GlobalStats, Vec<bool>) {
    let fires = Arc::new(AtomicU64::new(0));
    let rules = super::egraph::RuleSet::new(&fires);
    let mut stats = GlobalStats::default();
    let changed = super::per_graph(
        program,
        &mut stats,
        |g, stats| {
            // A graph that cannot be placed back is left as it was.
            if optimize_graph(g, &rules, stats).is_none() {
                stats.graphs_skipped += 1;
            }
        },
        |s| s.graphs_placed,
    );
    stats.rule_fires = fires.load(Ordering::Relaxed);
    (stats, changed)
}

/// Dominators and loops of a graph's reachable blocks.
struct Cfg {
    rpo: Vec<BlockId>,
    preds: Vec<Vec<BlockId>>,
    /// Immediate dominator (the start block's is itself); `None`:
    /// unreachable.
    idom: Vec<Option<BlockId>>,
    /// Dominator-tree preorder entry and exit numbers, for O(1) dominance.
    pre: Vec<u32>,
    post: Vec<u32>,
    children: Vec<Vec<BlockId>>,
    /// For each block, the headers of the loops it is in, innermost first.
    loops: Vec<Vec<BlockId>>,
}

impl Cfg {
    fn new(g: &G) -> Cfg {
        let n = g.blocks.len();
        let rpo = g.reverse_postorder();
        let mut order = vec![usize::MAX; n];
        for (i, b) in rpo.iter().enumerate() {
            order[b.0 as usize] = i;
        }
        let mut preds: Vec<Vec<BlockId>> = vec![Vec::new(); n];
        for &b in &rpo {
            for l in &g.block(b).exits {
                preds[l.target.0 as usize].push(b);
            }
        }
        // Cooper, Harvey and Kennedy's iterative dominators.
        let mut idom: Vec<Option<BlockId>> = vec![None; n];
        idom[g.startblock.0 as usize] = Some(g.startblock);
        let intersect = |idom: &[Option<BlockId>], mut a: BlockId, mut b: BlockId| {
            while a != b {
                while order[a.0 as usize] > order[b.0 as usize] {
                    a = idom[a.0 as usize].expect("processed");
                }
                while order[b.0 as usize] > order[a.0 as usize] {
                    b = idom[b.0 as usize].expect("processed");
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new: Option<BlockId> = None;
                for &p in &preds[b.0 as usize] {
                    if idom[p.0 as usize].is_some() {
                        new = Some(match new {
                            None => p,
                            Some(x) => intersect(&idom, p, x),
                        });
                    }
                }
                if new.is_some() && idom[b.0 as usize] != new {
                    idom[b.0 as usize] = new;
                    changed = true;
                }
            }
        }
        let mut children: Vec<Vec<BlockId>> = vec![Vec::new(); n];
        for &b in rpo.iter().skip(1) {
            if let Some(d) = idom[b.0 as usize] {
                children[d.0 as usize].push(b);
            }
        }
        let (mut pre, mut post) = (vec![0u32; n], vec![0u32; n]);
        let mut clock = 0u32;
        let mut stack = vec![(g.startblock, false)];
        while let Some((b, done)) = stack.pop() {
            if done {
                post[b.0 as usize] = clock;
                clock += 1;
                continue;
            }
            pre[b.0 as usize] = clock;
            clock += 1;
            stack.push((b, true));
            for &c in children[b.0 as usize].iter().rev() {
                stack.push((c, false));
            }
        }
        let mut cfg = Cfg {
            rpo,
            preds,
            idom,
            pre,
            post,
            children,
            loops: vec![Vec::new(); n],
        };
        // Natural loops: a back edge u -> h where h dominates u; the body
        // is what reaches u backwards without passing h.
        let mut bodies: Vec<(BlockId, HashSet<BlockId>)> = Vec::new();
        for &u in &cfg.rpo {
            for l in &g.block(u).exits {
                let h = l.target;
                if cfg.dominates(h, u) {
                    let mut body: HashSet<BlockId> = HashSet::from_iter([h]);
                    let mut work = vec![u];
                    while let Some(x) = work.pop() {
                        if body.insert(x) {
                            work.extend(cfg.preds[x.0 as usize].iter().copied());
                        }
                    }
                    match bodies.iter_mut().find(|(hh, _)| *hh == h) {
                        Some((_, b)) => b.extend(body),
                        None => bodies.push((h, body)),
                    }
                }
            }
        }
        // Innermost first: a smaller body nests in a larger one.
        bodies.sort_by_key(|(_, b)| b.len());
        for (h, body) in &bodies {
            for b in body {
                cfg.loops[b.0 as usize].push(*h);
            }
        }
        cfg
    }

    fn reachable(&self, b: BlockId) -> bool {
        self.idom[b.0 as usize].is_some()
    }

    /// Whether `a` dominates `b` (both reachable).
    fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        let (a, b) = (a.0 as usize, b.0 as usize);
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }

    /// Blocks in dominator-tree preorder.
    fn preorder(&self, start: BlockId) -> Vec<BlockId> {
        let mut out = Vec::new();
        let mut stack = vec![start];
        while let Some(b) = stack.pop() {
            out.push(b);
            stack.extend(self.children[b.0 as usize].iter().rev().copied());
        }
        out
    }
}

/// Whether a block ends with an operation whose exceptions it catches:
/// nothing may be placed after that operation.
fn catches(g: &G, b: BlockId) -> bool {
    g.block(b).exitswitch == Some(Arg::Const(Constant::LastException))
}

fn optimize_graph(
    g: &mut G,
    rules: &super::egraph::RuleSet,
    stats: &mut GlobalStats,
) -> Option<()> {
    // One block with operations: the per-block pass has seen it all.
    let busy = g.blocks.iter().filter(|b| !b.operations.is_empty()).count();
    if busy < 2 {
        return Some(());
    }
    let cfg = Cfg::new(g);
    // Where each variable is defined; a catching block's raising result
    // is marked so that it is never looked through.
    let mut home: HashMap<Var, BlockId> = HashMap::default();
    let mut raised_result: HashSet<Var> = HashSet::default();
    for &b in &cfg.rpo {
        let blk = g.block(b);
        for v in &blk.inputargs {
            home.insert(*v, b);
        }
        for op in &blk.operations {
            home.insert(op.result, b);
        }
        if catches(g, b) {
            if let Some(op) = blk.operations.last() {
                raised_result.insert(op.result);
            }
        }
    }

    // 1. Trivial block arguments, resolved to a fixpoint.
    let mut root: HashMap<Var, Arg> = HashMap::default();
    let resolve = |root: &HashMap<Var, Arg>, a: &Arg| -> Arg {
        let mut a = a.clone();
        while let Arg::Var(v) = a {
            match root.get(&v) {
                Some(n) => a = n.clone(),
                None => break,
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &cfg.rpo {
            if b == g.startblock || b == g.returnblock || b == g.exceptblock {
                continue;
            }
            let blk = g.block(b);
            for (i, v) in blk.inputargs.iter().enumerate() {
                if root.contains_key(v) {
                    continue;
                }
                let mut only: Option<Arg> = None;
                let mut trivial = true;
                'links: for &p in &cfg.preds[b.0 as usize] {
                    for l in g.block(p).exits.iter().filter(|l| l.target == b) {
                        let Some(a) = l.args.get(i) else {
                            trivial = false;
                            break 'links;
                        };
                        if let Arg::Var(x) = a {
                            if l.last_exception == Some(*x)
                                || l.last_exc_value == Some(*x)
                                || raised_result.contains(x)
                            {
                                trivial = false;
                                break 'links;
                            }
                        }
                        let r = resolve(&root, a);
                        if r == Arg::Var(*v) {
                            continue;
                        }
                        match &only {
                            None => only = Some(r),
                            Some(o) if *o == r => {}
                            Some(_) => {
                                trivial = false;
                                break 'links;
                            }
                        }
                    }
                }
                let Some(r) = only.filter(|_| trivial) else {
                    continue;
                };
                // The value must be defined where it dominates the block.
                let dominated = match &r {
                    Arg::Var(x) => home.get(x).is_some_and(|h| *h != b && cfg.dominates(*h, b)),
                    Arg::Const(_) => true,
                };
                if dominated && g.info(*v) == arg_type(g, &r).as_ref().unwrap_or(g.info(*v)) {
                    root.insert(*v, r);
                    changed = true;
                }
            }
        }
    }
    let subst = |a: &Arg| resolve(&root, a);

    // 2. The e-graph of every block's pure operations, in reverse
    // postorder (a value's definition dominates its uses, so comes first).
    let mut eg: EGraph<Node, IntAnalysis> = EGraph::new(IntAnalysis);
    let mut class_of: HashMap<Var, Id> = HashMap::default();
    // For each pure operation's result: its own node (a fallback when the
    // cheapest form of its class uses values not defined at a use).
    let mut own_node: HashMap<Var, Node> = HashMap::default();
    let mut pure: HashSet<Var> = HashSet::default();
    let is_int = |g: &G, v: Var| int_type(g.info(v));
    for &b in &cfg.rpo {
        let blk = g.block(b);
        for v in &blk.inputargs {
            if root.contains_key(v) {
                continue;
            }
            if let Some(bl) = is_int(g, *v) {
                class_of.insert(*v, eg.add(Node::Leaf(v.0, bl)));
            }
        }
        for op in &blk.operations {
            let res_ty = is_int(g, op.result);
            let arg_class =
                |eg: &mut EGraph<Node, IntAnalysis>, a: &Arg, want: bool| -> Option<Id> {
                    match subst(a) {
                        Arg::Var(v) => {
                            let id = *class_of.get(&v)?;
                            (is_int(g, v) == Some(want)).then_some(id)
                        }
                        Arg::Const(Constant::Int(c)) if !want => Some(eg.add(Node::Int(c))),
                        Arg::Const(Constant::Bool(c)) if want => Some(eg.add(Node::Bool(c))),
                        _ => None,
                    }
                };
            let mut node = None;
            if let Some((code, arg_tys, res)) = int_sig(op.opname) {
                if res_ty == Some(res)
                    && op.args.len() == arg_tys.len()
                    && rpy_ir::llops::defined_for_every_input(op.opname)
                {
                    let ids: Option<Vec<Id>> = op
                        .args
                        .iter()
                        .zip(&arg_tys)
                        .map(|(a, t)| arg_class(&mut eg, a, *t))
                        .collect();
                    node = ids.map(|ids| match ids.as_slice() {
                        [a] => Node::Op1(code, [*a]),
                        [a, b] => Node::Op2(code, [*a, *b]),
                        _ => unreachable!("integer operations take one or two arguments"),
                    });
                }
            }
            match node {
                Some(n) => {
                    class_of.insert(op.result, eg.add(n.clone()));
                    own_node.insert(op.result, n);
                    pure.insert(op.result);
                }
                None => {
                    if let Some(bl) = res_ty {
                        class_of.insert(op.result, eg.add(Node::Leaf(op.result.0, bl)));
                    }
                }
            }
        }
    }
    if pure.is_empty() {
        return Some(());
    }
    stats.pure_ops_before += pure.len();
    let eg = rules.run(eg, NODE_LIMIT, ITER_LIMIT);
    // Nothing to do: with no loop to hoist out of, no value computed twice
    // or by a rule in another form, and no block argument always the same
    // constant, placing back would give each block its own pure operations
    // again (in the order of their first use, and without those nothing
    // uses, which `dead_code` removes) and thread the same values through
    // the same links, so the graph stays as it is.
    let alone = || {
        let mut seen: HashSet<Id> =
            HashSet::with_capacity_and_hasher(pure.len(), Default::default());
        pure.iter().all(|v| {
            let c = eg.find(class_of[v]);
            one_operation(&eg[c].nodes) && seen.insert(c)
        })
    };
    let no_constant_args = root.values().all(|a| matches!(a, Arg::Var(_)));
    // A pure operation can leave its loop only when all its arguments are
    // defined outside the loop (the first of a chain of invariant
    // operations is); with none such, placing back would only move values
    // around outside loops, as in a graph without loops.
    let invariant_in_loop = || {
        g.blocks.iter().enumerate().any(|(b, blk)| {
            let Some(&header) = cfg.loops[b].first() else {
                return false;
            };
            blk.operations.iter().any(|op| {
                pure.contains(&op.result)
                    && int_type(g.info(op.result)) == Some(false)
                    && op.args.iter().all(|a| match subst(a) {
                        Arg::Const(_) => true,
                        Arg::Var(x) => home
                            .get(&x)
                            .is_some_and(|h| !cfg.loops[h.0 as usize].contains(&header)),
                    })
            })
        })
    };
    if no_constant_args && alone() && !invariant_in_loop() {
        stats.pure_ops_after += pure.len();
        stats.graphs_unchanged += 1;
        return Some(());
    }
    let extractor = Extractor::new(&eg, OpCost);
    // The fallback nodes of each class.
    let mut alternatives: HashMap<Id, Vec<Node>> = HashMap::default();
    for (v, n) in &own_node {
        let mut n = n.clone();
        for c in n.children_mut() {
            *c = eg.find(*c);
        }
        alternatives
            .entry(eg.find(class_of[v]))
            .or_default()
            .push(n);
    }
    for alts in alternatives.values_mut() {
        alts.sort();
        alts.dedup();
    }

    // 3. Elaboration in dominator-tree preorder.
    let mut el = Elaborator {
        g,
        cfg: &cfg,
        eg: &eg,
        ex: &extractor,
        alternatives: &alternatives,
        home: &home,
        computed: HashMap::default(),
        new_ops: vec![Vec::new(); g.blocks.len()],
        defined_here: HashSet::default(),
        current: g.startblock,
        new_vars: Vec::new(),
        next_var: g.vars.len() as u32,
        pos: None,
        hoisted: 0,
        placed: 0,
    };
    let mut new_exits: Vec<(Option<Arg>, Vec<Vec<Arg>>)> = vec![(None, Vec::new()); g.blocks.len()];
    for &b in &cfg.rpo {
        // A block nothing reaches would keep links without the arguments
        // the blocks they enter get.
        if !cfg.reachable(b) && !g.block(b).exits.is_empty() {
            return None;
        }
    }
    for b in cfg.preorder(g.startblock) {
        el.current = b;
        el.defined_here = g.block(b).inputargs.iter().map(|v| v.0).collect();
        let blk = g.block(b);
        // A catching block's raising operation stays last: what its exits
        // need is computed before it (they can only pass its result as is).
        let raising = if catches(g, b) {
            blk.operations.last()
        } else {
            None
        };
        let mut exits_done = None;
        for (i, op) in blk.operations.iter().enumerate() {
            if raising.is_some() && i + 1 == blk.operations.len() {
                exits_done = Some(el.exits(blk, &subst, &class_of, Some(op.result))?);
            }
            if pure.contains(&op.result) {
                continue;
            }
            el.pos = op.pos;
            let mut args = Vec::with_capacity(op.args.len());
            for a in &op.args {
                args.push(el.value(&subst(a), &class_of)?);
            }
            el.new_ops[b.0 as usize].push(SpaceOperation {
                opname: op.opname,
                args,
                result: op.result,
                pos: op.pos,
            });
            el.defined_here.insert(op.result.0);
        }
        new_exits[b.0 as usize] = match exits_done {
            Some(e) => e,
            None => el.exits(blk, &subst, &class_of, None)?,
        };
    }
    // An operation is redundant when its value is computed in a block
    // dominating its own, and not in its own.
    let mut reused = 0;
    for v in &pure {
        let (b, c) = (home[v], eg.find(class_of[v]));
        let places = el.computed.get(&c).map(Vec::as_slice).unwrap_or_default();
        if !places.iter().any(|(p, _)| *p == b) && places.iter().any(|(p, _)| cfg.dominates(*p, b))
        {
            reused += 1;
        }
    }
    let Elaborator {
        new_ops,
        new_vars,
        hoisted,
        placed,
        ..
    } = el;
    // Up to here the graph is untouched; placing back may still fail
    // (before it changes anything), and then what is replaced here is put
    // back.
    let vars_before = g.vars.len();
    for (name, t) in new_vars {
        g.new_var(name, t);
    }
    let mut new_ops = new_ops;
    let mut replaced = Vec::with_capacity(cfg.rpo.len());
    for &b in &cfg.rpo {
        let (switch, links) = std::mem::take(&mut new_exits[b.0 as usize]);
        let blk = g.block_mut(b);
        let ops = std::mem::replace(
            &mut blk.operations,
            std::mem::take(&mut new_ops[b.0 as usize]),
        );
        let switch = std::mem::replace(&mut blk.exitswitch, switch);
        let args: Vec<Vec<Arg>> = blk
            .exits
            .iter_mut()
            .zip(links)
            .map(|(l, args)| std::mem::replace(&mut l.args, args))
            .collect();
        replaced.push((b, ops, switch, args));
    }
    if back_to_block_ssa(g, &cfg).is_none() {
        for (b, ops, switch, args) in replaced {
            let blk = g.block_mut(b);
            blk.operations = ops;
            blk.exitswitch = switch;
            for (l, a) in blk.exits.iter_mut().zip(args) {
                l.args = a;
            }
        }
        g.vars.truncate(vars_before);
        return None;
    }
    stats.pure_ops_after += placed;
    stats.values_reused += reused;
    stats.ops_hoisted += hoisted;
    stats.graphs_placed += 1;
    Some(())
}

/// The low-level type of an argument, when it has one the e-graph knows.
fn arg_type(g: &G, a: &Arg) -> Option<LowLevelType> {
    match a {
        Arg::Var(v) => Some(g.info(*v).clone()),
        Arg::Const(Constant::Int(_)) => Some(LowLevelType::Signed),
        Arg::Const(Constant::Bool(_)) => Some(LowLevelType::Bool),
        _ => None,
    }
}

/// Places values back into blocks.
struct Elaborator<'a> {
    g: &'a G,
    cfg: &'a Cfg,
    eg: &'a EGraph<Node, IntAnalysis>,
    ex: &'a Extractor<'a, OpCost, Node, IntAnalysis>,
    alternatives: &'a HashMap<Id, Vec<Node>>,
    home: &'a HashMap<Var, BlockId>,
    /// Where each class was computed, and the variable holding it.
    computed: HashMap<Id, Vec<(BlockId, Var)>>,
    new_ops: Vec<Vec<SpaceOperation>>,
    /// Variables defined so far in the block being rebuilt.
    defined_here: HashSet<u32>,
    current: BlockId,
    new_vars: Vec<(Option<String>, LowLevelType)>,
    next_var: u32,
    pos: Option<rpy_ir::diag::Pos>,
    hoisted: usize,
    placed: usize,
}

impl Elaborator<'_> {
    /// The exitswitch and link arguments of `blk` (the current block);
    /// `raised` is the result of its raising operation, passed as it is.
    fn exits(
        &mut self,
        blk: &rpy_ir::graph::Block,
        subst: &dyn Fn(&Arg) -> Arg,
        class_of: &HashMap<Var, Id>,
        raised: Option<Var>,
    ) -> Option<(Option<Arg>, Vec<Vec<Arg>>)> {
        self.pos = blk.operations.last().and_then(|o| o.pos);
        let switch = match &blk.exitswitch {
            Some(s) => Some(self.value(&subst(s), class_of)?),
            None => None,
        };
        let mut links = Vec::with_capacity(blk.exits.len());
        for l in &blk.exits {
            let mut args = Vec::with_capacity(l.args.len());
            for a in &l.args {
                let as_is = matches!(a, Arg::Var(x) if l.last_exception == Some(*x)
                    || l.last_exc_value == Some(*x)
                    || raised == Some(*x));
                args.push(if as_is {
                    a.clone()
                } else {
                    self.value(&subst(a), class_of)?
                });
            }
            links.push(args);
        }
        Some((switch, links))
    }

    /// The argument to use for `a` (already resolved) in the current block.
    fn value(&mut self, a: &Arg, class_of: &HashMap<Var, Id>) -> Option<Arg> {
        match a {
            Arg::Var(v) => match class_of.get(v) {
                Some(c) => self.materialize(*c, self.current),
                None => Some(a.clone()),
            },
            _ => Some(a.clone()),
        }
    }

    /// Whether leaf variable `v` is defined before the current point of
    /// block `at` (the current block) or at the end of `at` (a dominator).
    fn leaf_ready(&self, v: u32, at: BlockId) -> bool {
        let Some(h) = self.home.get(&Var(v)) else {
            return false;
        };
        if *h == at && at == self.current {
            return self.defined_here.contains(&v);
        }
        self.cfg.dominates(*h, at)
    }

    /// The earliest block a class can be computed in, for a use in `at`:
    /// `None` when the node cannot be computed there at all.
    fn ready(
        &self,
        id: Id,
        at: BlockId,
        memo: &mut HashMap<Id, Option<BlockId>>,
    ) -> Option<BlockId> {
        let id = self.eg.find(id);
        if let Some(r) = memo.get(&id) {
            return *r;
        }
        memo.insert(id, None); // a cycle is not computable
        let r = self.choose(id, at, memo).map(|(_, b)| b);
        memo.insert(id, r);
        r
    }

    /// The node to compute class `id` with, for a use in `at`, and the
    /// deepest block its arguments are defined in.
    fn choose(
        &self,
        id: Id,
        at: BlockId,
        memo: &mut HashMap<Id, Option<BlockId>>,
    ) -> Option<(Node, BlockId)> {
        if let Some((b, _)) = self.visible(id, at) {
            return Some((Node::Leaf(u32::MAX, false), b));
        }
        // The cheapest form, but an original operation as cheap comes first
        // (the program keeps its own spelling: `x + 1`, not `1 + x`); the
        // other original operations are fallbacks.
        let best = self.ex.find_best_node(id).clone();
        let best_cost = self.ex.find_best_cost(id);
        let originals = self
            .alternatives
            .get(&id)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let (as_cheap, dearer): (Vec<&Node>, Vec<&Node>) =
            originals.iter().partition(|n| self.cost_of(n) == best_cost);
        let candidates = as_cheap
            .into_iter()
            .cloned()
            .chain(std::iter::once(best))
            .chain(dearer.into_iter().cloned());
        'nodes: for n in candidates {
            match &n {
                Node::Int(_) | Node::Bool(_) => return Some((n, self.g.startblock)),
                Node::Leaf(v, _) => {
                    if self.leaf_ready(*v, at) {
                        return Some((n.clone(), self.home[&Var(*v)]));
                    }
                }
                _ => {
                    let mut deepest = self.g.startblock;
                    for c in n.children() {
                        let Some(b) = self.ready(*c, at, memo) else {
                            continue 'nodes;
                        };
                        if self.cfg.dominates(deepest, b) {
                            deepest = b;
                        }
                    }
                    return Some((n, deepest));
                }
            }
        }
        None
    }

    /// Where class `id` is already computed for a use in `at`: a block
    /// dominating `at`. A truth value is computed again in each block that
    /// needs it (and not hoisted): passed along links it would take a
    /// variable where the C compiler fuses a compare with the branch that
    /// tests it.
    fn visible(&self, id: Id, at: BlockId) -> Option<(BlockId, Var)> {
        let remat = self.eg[id].data.is_bool;
        self.computed
            .get(&id)?
            .iter()
            .find(|(b, _)| {
                if remat {
                    *b == at
                } else {
                    self.cfg.dominates(*b, at)
                }
            })
            .copied()
    }

    /// The cost of computing `n` with its arguments' cheapest forms.
    fn cost_of(&self, n: &Node) -> u64 {
        let own = match n {
            Node::Op1(op, _) | Node::Op2(op, _) => rpy_ruleset::opt::op_cost(*op),
            _ => 0,
        };
        n.children()
            .iter()
            .fold(own, |s, c| s.saturating_add(self.ex.find_best_cost(*c)))
    }

    /// Computes class `id` for a use in block `at` (the current block or a
    /// dominator of it) and returns the value holding it.
    fn materialize(&mut self, id: Id, at: BlockId) -> Option<Arg> {
        let id = self.eg.find(id);
        if let Some((_, v)) = self.visible(id, at) {
            return Some(Arg::Var(v));
        }
        let (node, deepest) = self.choose(id, at, &mut HashMap::default())?;
        let children: Vec<Id> = match &node {
            Node::Int(v) => return Some(Arg::Const(Constant::Int(*v))),
            Node::Bool(v) => return Some(Arg::Const(Constant::Bool(*v))),
            Node::Leaf(v, _) => return Some(Arg::Var(Var(*v))),
            n => n.children().to_vec(),
        };
        // Out of every loop whose header the arguments' definitions
        // strictly dominate, to that header's immediate dominator (truth
        // values stay with their tests, see `visible`).
        let mut place = at;
        let hoistable = !self.eg[id].data.is_bool;
        while let Some(&h) = self.cfg.loops[place.0 as usize]
            .first()
            .filter(|_| hoistable)
        {
            let Some(outside) = self.cfg.idom[h.0 as usize] else {
                break;
            };
            if h == deepest
                || !self.cfg.dominates(deepest, h)
                || outside == h
                || catches(self.g, outside)
            {
                break;
            }
            place = outside;
        }
        let mut args = Vec::with_capacity(children.len());
        for c in children {
            args.push(self.materialize(c, place)?);
        }
        let (Node::Op1(op, _) | Node::Op2(op, _)) = node else {
            unreachable!("constants and leaves returned above");
        };
        let t = if self.eg[id].data.is_bool {
            LowLevelType::Bool
        } else {
            LowLevelType::Signed
        };
        self.new_vars.push((None, t));
        let result = Var(self.next_var);
        self.next_var += 1;
        self.new_ops[place.0 as usize].push(SpaceOperation {
            opname: op,
            args,
            result,
            pos: self.pos,
        });
        if place != at {
            self.hoisted += 1;
        }
        if place == self.current {
            self.defined_here.insert(result.0);
        }
        self.placed += 1;
        self.computed.entry(id).or_default().push((place, result));
        Some(Arg::Var(result))
    }
}

/// Makes every value a block uses but does not define an input argument
/// of it, passed along every link into it: SSA per block again.
fn back_to_block_ssa(g: &mut G, cfg: &Cfg) -> Option<()> {
    let n = g.blocks.len();
    let mut defs: Vec<HashSet<Var>> = vec![HashSet::default(); n];
    let mut uses: Vec<BTreeSet<Var>> = vec![BTreeSet::new(); n];
    for &b in &cfg.rpo {
        let blk = g.block(b);
        let d = &mut defs[b.0 as usize];
        d.extend(blk.inputargs.iter().copied());
        let u = &mut uses[b.0 as usize];
        for op in &blk.operations {
            for a in &op.args {
                if let Arg::Var(v) = a {
                    if !d.contains(v) {
                        u.insert(*v);
                    }
                }
            }
            d.insert(op.result);
        }
        if let Some(Arg::Var(v)) = &blk.exitswitch {
            if !d.contains(v) {
                u.insert(*v);
            }
        }
        for l in &blk.exits {
            for a in &l.args {
                if let Arg::Var(v) = a {
                    if !d.contains(v)
                        && l.last_exception != Some(*v)
                        && l.last_exc_value != Some(*v)
                    {
                        u.insert(*v);
                    }
                }
            }
        }
    }
    // Live-in sets to a fixpoint: what a block uses, and what its
    // successors need that it does not define.
    let mut live: Vec<BTreeSet<Var>> = uses.clone();
    let mut changed = true;
    while changed {
        changed = false;
        for &b in cfg.rpo.iter().rev() {
            let mut add = Vec::new();
            for l in &g.block(b).exits {
                for v in &live[l.target.0 as usize] {
                    if !defs[b.0 as usize].contains(v) && !live[b.0 as usize].contains(v) {
                        add.push(*v);
                    }
                }
            }
            if !add.is_empty() {
                live[b.0 as usize].extend(add);
                changed = true;
            }
        }
    }
    for special in [g.startblock, g.returnblock, g.exceptblock] {
        if !live[special.0 as usize].is_empty() {
            return None;
        }
    }
    // A fresh input argument per block and live-in value.
    let mut renamed: Vec<HashMap<Var, Var>> = vec![HashMap::default(); n];
    for &b in &cfg.rpo {
        for v in live[b.0 as usize].clone() {
            let t = g.info(v).clone();
            let name = g.vars[v.0 as usize].name.clone();
            let fresh = g.new_var(name, t);
            renamed[b.0 as usize].insert(v, fresh);
        }
    }
    for &b in &cfg.rpo {
        let map = renamed[b.0 as usize].clone();
        let rename = |a: &mut Arg| {
            if let Arg::Var(v) = a {
                if let Some(f) = map.get(v) {
                    *v = *f;
                }
            }
        };
        let live_in: Vec<Var> = live[b.0 as usize].iter().map(|v| map[v]).collect();
        let targets_live: Vec<Vec<Var>> = g
            .block(b)
            .exits
            .iter()
            .map(|l| live[l.target.0 as usize].iter().copied().collect())
            .collect();
        let blk = g.block_mut(b);
        blk.inputargs.extend(live_in);
        for op in &mut blk.operations {
            op.args.iter_mut().for_each(rename);
        }
        if let Some(s) = &mut blk.exitswitch {
            rename(s);
        }
        for (l, needed) in blk.exits.iter_mut().zip(targets_live) {
            l.args.iter_mut().for_each(rename);
            for v in needed {
                l.args.push(Arg::Var(map.get(&v).copied().unwrap_or(v)));
            }
        }
    }
    Some(())
}

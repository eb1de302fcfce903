//! Backend optimizations on low-level graphs, one module each, run in this
//! order by [`optimize_program`]:
//!
//! - `inline`: calls of small graphs replaced by their bodies, bottom-up
//!   on the call graph (`callgraph`);
//! - `malloc_removal`: structures that never escape their graph replaced
//!   by their fields as variables (after inlining, which is what makes
//!   most of them local);
//! - `load_folding`: a field read again through the same pointer with no
//!   store or call in between that may change it reuses the value;
//! - `devirtualize`: a read of a vtable static folds to its value and a
//!   call of a known function pointer becomes a `direct_call`; when one
//!   did, the three above run once more;
//! - `constfold`: constants propagated through the whole graph, across
//!   links and around loops, and switches on a constant folded to their
//!   one exit (what no run reaches goes); it runs before the integer
//!   rewriting, which then sees the constants links carry, and once more
//!   after it, folding the switches the rewriting found constant;
//! - `branch_facts`: the ranges branch conditions give the values on each
//!   path (after `if x == 5:`, `x` is 5), and what they decide folded;
//! - integer rewriting with the rules of `rules/opt` over an e-graph of
//!   each block's pure integer operations (this module and `egraph`);
//! - `global_egraph`: the pure operations of a whole function in one
//!   e-graph, placed back by dominance: global value numbering and
//!   loop-invariant code motion;
//! - `dead_code`: operations without side effects whose result nothing
//!   needs, and block arguments nothing needs, removed;
//! - `if_conversion`: `a or b` and `a and b` whose second operand is a
//!   few field reads of objects already read, computed on both paths and
//!   combined without a branch;
//! - `merge_switches`: chains of `int_eq` tests of one variable made one
//!   switch.
//!
//! Each can be switched off ([`BackendoptOptions`]) to see what it did or
//! to bisect a miscompilation. The integer rewriting:
//!
//! For each block: the pure operations on Signed and Bool values (those
//! `eval_int` defines) become e-graph nodes; block inputs and the results of
//! every other operation are leaves. Each e-class carries an [`IntBound`]
//! (range and known bits), which folds constants and answers the rules'
//! facts. The opt rules run as conditional rewrites, with node and iteration
//! limits; then each needed value is extracted at least cost and the block is
//! rebuilt: the other operations stay in order, each pure value is computed
//! at its original place (or, if new, right before its first use), dead pure
//! operations disappear, and the exits pass the same values (or constants).

pub mod branch_facts;
pub mod callgraph;
pub mod constfold;
pub mod dead_code;
pub mod devirtualize;
pub mod egraph;
pub mod global_egraph;
pub mod if_conversion;
pub mod inline;
pub mod load_folding;
pub mod malloc_removal;
pub mod merge_switches;

pub use rpy_ir::intbound::IntBound;

use egg::{EGraph, Extractor, Id, Language};
use egraph::{int_sig, one_operation, IntAnalysis, Node, OpCost};
use fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use rayon::prelude::*;
use rpy_ir::graph::{
    Arg, BlockId, Constant, FunctionGraph, LowLevel, Program, SpaceOperation, Var,
};
use rpy_ir::lltype::LowLevelType;
use rpy_ir::opcode::Opcode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// At most this many e-nodes per block.
pub const NODE_LIMIT: usize = 10_000;
/// At most this many rounds of rewriting per block.
pub const ITER_LIMIT: usize = 16;

/// What [`optimize`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OptStats {
    /// Blocks with pure integer operations (the ones put in an e-graph).
    pub blocks: usize,
    /// Blocks whose operations changed.
    pub blocks_changed: usize,
    /// Operations of those blocks before and after.
    pub ops_before: usize,
    pub ops_after: usize,
    /// Rule applications (matches whose checks passed).
    pub rule_fires: u64,
}

/// Which optimizations run, and the inliner's threshold.
#[derive(Clone, Debug, PartialEq)]
pub struct BackendoptOptions {
    /// Inline calls of graphs whose weight is below this (0: no inlining).
    pub inline_threshold: f64,
    pub malloc_removal: bool,
    pub load_folding: bool,
    pub devirtualize: bool,
    pub int_rewrite: bool,
    pub global_egraph: bool,
    pub constfold: bool,
    pub branch_facts: bool,
    pub dead_code: bool,
    pub if_conversion: bool,
    pub merge_switches: bool,
}

impl Default for BackendoptOptions {
    fn default() -> Self {
        BackendoptOptions {
            inline_threshold: inline::DEFAULT_THRESHOLD,
            malloc_removal: true,
            load_folding: true,
            devirtualize: true,
            int_rewrite: true,
            global_egraph: true,
            constfold: true,
            branch_facts: true,
            dead_code: true,
            if_conversion: true,
            merge_switches: true,
        }
    }
}

impl BackendoptOptions {
    /// Every optimization off: the rtyper's graphs as they are.
    pub fn none() -> Self {
        BackendoptOptions {
            inline_threshold: 0.0,
            malloc_removal: false,
            load_folding: false,
            devirtualize: false,
            int_rewrite: false,
            global_egraph: false,
            constfold: false,
            branch_facts: false,
            dead_code: false,
            if_conversion: false,
            merge_switches: false,
        }
    }
}

/// The sub-passes of `backendopt`, in the order [`optimize_program`] runs
/// them: the names of `rpy show --stage backendopt:NAME` and of
/// `--timings`' lines.
pub const STEPS: [&str; 11] = [
    "inline",
    "malloc_removal",
    "load_folding",
    "devirtualize",
    "constfold",
    "branch_facts",
    "int_rewrite",
    "global_egraph",
    "dead_code",
    "if_conversion",
    "merge_switches",
];

/// One sub-pass's run: its name, time and what it did, in words.
#[derive(Clone, Debug)]
pub struct PartReport {
    pub name: &'static str,
    pub time: Duration,
    pub summary: String,
}

/// What [`optimize_program`] did, and how long each part took.
#[derive(Clone, Debug, Default)]
pub struct BackendoptReport {
    pub inline: inline::InlineStats,
    pub malloc_removal: malloc_removal::MallocStats,
    pub load_folding: load_folding::LoadStats,
    pub devirtualize: devirtualize::DevirtualizeStats,
    pub int_rewrite: OptStats,
    pub global_egraph: global_egraph::GlobalStats,
    pub constfold: constfold::ConstFoldStats,
    pub branch_facts: branch_facts::BranchFactStats,
    pub dead_code: dead_code::DeadCodeStats,
    pub if_conversion: if_conversion::IfConversionStats,
    pub merge_switches: merge_switches::MergeStats,
    /// Each part's run, in the order they ran.
    pub times: Vec<PartReport>,
}

/// Times the parts and says when to stop.
struct Laps<'a> {
    clock: std::time::Instant,
    stop_after: Option<&'a str>,
}

impl Laps<'_> {
    /// Records part `name`'s run; true when the caller asked to stop
    /// after it.
    fn lap(&mut self, report: &mut BackendoptReport, name: &'static str, summary: String) -> bool {
        let now = std::time::Instant::now();
        report.times.push(PartReport {
            name,
            time: now - self.clock,
            summary,
        });
        self.clock = now;
        self.stop_after == Some(name)
    }
}

/// The backend optimizations the options ask for, in order, each followed
/// by `simplify` where it leaves blocks to merge.
pub fn optimize_program(
    program: &mut Program<LowLevel>,
    options: &BackendoptOptions,
) -> BackendoptReport {
    optimize_program_until(program, options, None)
}

/// [`optimize_program`], stopping right after the first run of the
/// sub-pass `stop_after` (one of [`STEPS`]): what `rpy show --stage
/// backendopt:NAME` shows. A sub-pass the options switch off does not run,
/// so stopping after it is stopping where it would have run.
pub fn optimize_program_until(
    program: &mut Program<LowLevel>,
    options: &BackendoptOptions,
    stop_after: Option<&str>,
) -> BackendoptReport {
    let mut report = BackendoptReport::default();
    let mut laps = Laps {
        clock: std::time::Instant::now(),
        stop_after,
    };
    // Which graphs `simplify` may still change (None: any). A graph the
    // last simplify did not change, and that no pass changed since, is
    // not simplified again: that would change nothing. The rtyper's graphs
    // and those load folding and devirtualization change are not
    // simplified.
    let mut dirty: Option<Vec<bool>> = None;
    // A second round when devirtualization made calls direct: they may be
    // inlined now, and what they allocate removed.
    for round in 0..2 {
        if options.inline_threshold > 0.0 {
            let stats = inline::inline_program(program, options.inline_threshold);
            report.inline.inlined += stats.inlined;
            report.inline.refused_under_try += stats.refused_under_try;
            report.inline.graphs_removed += stats.graphs_removed;
            dirty = Some(simplify_all(program));
            let summary = format!(
                "{} calls inlined, {} graphs removed",
                stats.inlined, stats.graphs_removed
            );
            if laps.lap(&mut report, "inline", summary) {
                return report;
            }
        } else if stop_after == Some("inline") {
            return report;
        }
        if options.malloc_removal {
            let (stats, changed) = malloc_removal::remove_mallocs_changed(program);
            report.malloc_removal.mallocs_removed += stats.mallocs_removed;
            report.malloc_removal.families += stats.families;
            simplify_changed(program, &changed, &mut dirty);
            let summary = format!("{} mallocs removed", stats.mallocs_removed);
            if laps.lap(&mut report, "malloc_removal", summary) {
                return report;
            }
        } else if stop_after == Some("malloc_removal") {
            return report;
        }
        if options.load_folding {
            let stats = load_folding::fold_loads(program);
            dirty = None;
            report.load_folding.loads_folded += stats.loads_folded;
            report.load_folding.calls_folded += stats.calls_folded;
            report.load_folding.stores_removed += stats.stores_removed;
            let summary = format!(
                "{} loads folded, {} calls folded, {} dead stores removed",
                stats.loads_folded, stats.calls_folded, stats.stores_removed
            );
            if laps.lap(&mut report, "load_folding", summary) {
                return report;
            }
        } else if stop_after == Some("load_folding") {
            return report;
        }
        if !options.devirtualize || round > 0 {
            if stop_after == Some("devirtualize") {
                return report;
            }
            break;
        }
        let stats = devirtualize::devirtualize(program);
        dirty = None;
        report.devirtualize.vtable_reads_folded += stats.vtable_reads_folded;
        report.devirtualize.calls_made_direct += stats.calls_made_direct;
        let summary = format!(
            "{} vtable reads folded, {} calls made direct",
            stats.vtable_reads_folded, stats.calls_made_direct
        );
        if laps.lap(&mut report, "devirtualize", summary) || stats.calls_made_direct == 0 {
            if stop_after == Some("devirtualize") {
                return report;
            }
            break;
        }
    }
    if options.constfold {
        constfold_lap(program, &mut report, &mut laps, &mut dirty);
        if stop_after == Some("constfold") {
            return report;
        }
    } else if stop_after == Some("constfold") {
        return report;
    }
    if options.branch_facts {
        let mut s = branch_facts::BranchFactStats::default();
        let changed = per_graph(program, &mut s, branch_facts::branch_facts_in_graph, |s| {
            s.values_made_constant + s.switches_decided
        });
        simplify_changed(program, &changed, &mut dirty);
        let summary = format!(
            "{} values made constant, {} switches decided",
            s.values_made_constant, s.switches_decided
        );
        report.branch_facts = s;
        if laps.lap(&mut report, "branch_facts", summary) {
            return report;
        }
    } else if stop_after == Some("branch_facts") {
        return report;
    }
    if options.int_rewrite {
        let fires = Arc::new(AtomicU64::new(0));
        let rules = egraph::RuleSet::new(&fires);
        let mut stats = OptStats::default();
        let changed = per_graph(
            program,
            &mut stats,
            |g, stats| optimize_graph_with(g, &rules, stats),
            |s| s.blocks_changed,
        );
        stats.rule_fires = fires.load(Ordering::Relaxed);
        report.int_rewrite = stats;
        simplify_changed(program, &changed, &mut dirty);
        let s = &report.int_rewrite;
        let summary = format!(
            "{} blocks changed, {} -> {} operations, {} rule fires",
            s.blocks_changed, s.ops_before, s.ops_after, s.rule_fires
        );
        if laps.lap(&mut report, "int_rewrite", summary) {
            return report;
        }
    } else if stop_after == Some("int_rewrite") {
        return report;
    }
    if options.global_egraph {
        let (s, changed) = global_egraph::global_egraph_changed(program);
        simplify_changed(program, &changed, &mut dirty);
        let summary = format!(
            "{} -> {} pure operations, {} computed once in a dominating block, {} placed outside their loop, {} rule fires, {} graphs skipped, {} with nothing to do",
            s.pure_ops_before, s.pure_ops_after, s.values_reused, s.ops_hoisted, s.rule_fires, s.graphs_skipped, s.graphs_unchanged
        );
        report.global_egraph = s;
        if laps.lap(&mut report, "global_egraph", summary) {
            return report;
        }
    } else if stop_after == Some("global_egraph") {
        return report;
    }
    // Once more: the switches the e-graphs found constant fold, and the
    // constants they found flow on.
    if options.constfold && (options.int_rewrite || options.global_egraph || options.branch_facts) {
        constfold_lap(program, &mut report, &mut laps, &mut dirty);
    }
    if options.dead_code {
        let changed = per_graph(
            program,
            &mut report.dead_code,
            dead_code::remove_in_graph,
            |s| s.ops_removed + s.inputargs_removed,
        );
        simplify_changed(program, &changed, &mut dirty);
        let s = &report.dead_code;
        let summary = format!(
            "{} operations removed ({} memory reads), {} block arguments removed",
            s.ops_removed, s.reads_removed, s.inputargs_removed
        );
        if laps.lap(&mut report, "dead_code", summary) {
            return report;
        }
    } else if stop_after == Some("dead_code") {
        return report;
    }
    if options.if_conversion {
        let changed = per_graph(
            program,
            &mut report.if_conversion,
            if_conversion::convert_in_graph,
            |s| s.branches_removed,
        );
        simplify_changed(program, &changed, &mut dirty);
        let s = &report.if_conversion;
        let summary = format!(
            "{} branches removed, {} field reads made on both paths",
            s.branches_removed, s.reads_speculated
        );
        if laps.lap(&mut report, "if_conversion", summary) {
            return report;
        }
    } else if stop_after == Some("if_conversion") {
        return report;
    }
    if options.merge_switches {
        let changed = per_graph(
            program,
            &mut report.merge_switches,
            |g, s| merge_switches::merge_in_graph(g, merge_switches::LEADING_TESTS_KEPT, s),
            |s| s.chains_merged,
        );
        simplify_changed(program, &changed, &mut dirty);
        let s = &report.merge_switches;
        let summary = format!(
            "{} chains of tests made switches, {} cases",
            s.chains_merged, s.cases
        );
        laps.lap(&mut report, "merge_switches", summary);
    }
    if cfg!(debug_assertions) {
        let errors: Vec<String> = program
            .graphs
            .iter()
            .flat_map(|g| g.link_shape_errors())
            .collect();
        assert!(
            errors.is_empty(),
            "backendopt left malformed graphs:\n{}",
            errors.join("\n")
        );
    }
    report
}

/// A sub-pass's statistics: counted per graph, then added up.
pub(crate) trait Tally: Default + Send {
    fn add(&mut self, other: Self);
}

/// `Tally` for a statistics struct whose fields are all counters.
macro_rules! tally_by_fields {
    ($($stats:ty { $($field:ident),* })*) => {$(
        impl Tally for $stats {
            fn add(&mut self, other: Self) {
                $(self.$field += other.$field;)*
            }
        }
    )*};
}

tally_by_fields! {
    OptStats { blocks, blocks_changed, ops_before, ops_after, rule_fires }
    global_egraph::GlobalStats {
        pure_ops_before, pure_ops_after, values_reused, ops_hoisted,
        graphs_skipped, graphs_unchanged, rule_fires, graphs_placed
    }
    constfold::ConstFoldStats { ops_folded, uses_replaced, branches_folded, blocks_removed }
    branch_facts::BranchFactStats { values_made_constant, switches_decided }
    dead_code::DeadCodeStats { ops_removed, reads_removed, inputargs_removed }
    merge_switches::MergeStats { chains_merged, cases }
    if_conversion::IfConversionStats { branches_removed, reads_speculated }
    load_folding::LoadStats { loads_folded, calls_folded, stores_removed }
    malloc_removal::MallocStats { mallocs_removed, families }
}

/// Runs `pass` on each graph, on every core (a per-graph pass reads and
/// writes its graph alone), adding what it counted to `stats`; true for
/// each graph where `count` of its statistics is not zero (every change a
/// pass makes is counted).
pub(crate) fn per_graph<T: Tally>(
    program: &mut Program<LowLevel>,
    stats: &mut T,
    pass: impl Fn(&mut FunctionGraph<LowLevel>, &mut T) + Sync,
    count: impl Fn(&T) -> usize + Sync,
) -> Vec<bool> {
    each_graph(&mut program.graphs, stats, pass, count)
}

/// [`per_graph`] on the graphs alone, for a pass that reads the rest of
/// the program (its types) while it rewrites them.
pub(crate) fn each_graph<T: Tally>(
    graphs: &mut [FunctionGraph<LowLevel>],
    stats: &mut T,
    pass: impl Fn(&mut FunctionGraph<LowLevel>, &mut T) + Sync,
    count: impl Fn(&T) -> usize + Sync,
) -> Vec<bool> {
    let per_graph: Vec<(T, bool)> = graphs
        .par_iter_mut()
        .map(|g| {
            let mut s = T::default();
            pass(g, &mut s);
            let changed = count(&s) != 0;
            (s, changed)
        })
        .collect();
    per_graph
        .into_iter()
        .map(|(s, changed)| {
            stats.add(s);
            changed
        })
        .collect()
}

/// Simplifies every graph; true for each that simplify changed (and so
/// may change again).
fn simplify_all(program: &mut Program<LowLevel>) -> Vec<bool> {
    program
        .graphs
        .par_iter_mut()
        .map(crate::simplify::simplify_graph_changed)
        .collect()
}

/// Simplifies the graphs a pass changed and those the last simplify may
/// not have finished (`dirty`), which is every graph simplify would
/// change: what simplifying every graph gives.
fn simplify_changed(
    program: &mut Program<LowLevel>,
    changed: &[bool],
    dirty: &mut Option<Vec<bool>>,
) {
    let next = program
        .graphs
        .par_iter_mut()
        .enumerate()
        .map(|(i, g)| {
            let stale = dirty.as_ref().is_none_or(|d| d[i]);
            (changed[i] || stale) && crate::simplify::simplify_graph_changed(g)
        })
        .collect();
    *dirty = Some(next);
}

/// One run of `constfold`, added to the report.
fn constfold_lap(
    program: &mut Program<LowLevel>,
    report: &mut BackendoptReport,
    laps: &mut Laps,
    dirty: &mut Option<Vec<bool>>,
) {
    let mut s = constfold::ConstFoldStats::default();
    let changed = per_graph(program, &mut s, constfold::fold_graph, |s| {
        s.ops_folded + s.uses_replaced + s.branches_folded + s.blocks_removed
    });
    simplify_changed(program, &changed, dirty);
    let summary = format!(
        "{} operations folded, {} uses made constant, {} branches folded, {} blocks removed",
        s.ops_folded, s.uses_replaced, s.branches_folded, s.blocks_removed
    );
    let r = &mut report.constfold;
    r.ops_folded += s.ops_folded;
    r.uses_replaced += s.uses_replaced;
    r.branches_folded += s.branches_folded;
    r.blocks_removed += s.blocks_removed;
    laps.lap(report, "constfold", summary);
}

/// Runs the integer rewrites on every block of every graph.
pub fn optimize(program: &mut Program<LowLevel>) -> OptStats {
    let fires = Arc::new(AtomicU64::new(0));
    let rules = egraph::RuleSet::new(&fires);
    let mut stats = OptStats::default();
    for graph in &mut program.graphs {
        optimize_graph_with(graph, &rules, &mut stats);
    }
    stats.rule_fires = fires.load(Ordering::Relaxed);
    stats
}

/// Runs the integer rewrites on every block of one graph.
pub fn optimize_graph(graph: &mut FunctionGraph<LowLevel>) -> OptStats {
    let fires = Arc::new(AtomicU64::new(0));
    let rules = egraph::RuleSet::new(&fires);
    let mut stats = OptStats::default();
    optimize_graph_with(graph, &rules, &mut stats);
    stats.rule_fires = fires.load(Ordering::Relaxed);
    stats
}

fn optimize_graph_with(
    graph: &mut FunctionGraph<LowLevel>,
    rules: &egraph::RuleSet,
    stats: &mut OptStats,
) {
    for b in 0..graph.blocks.len() {
        optimize_block(graph, BlockId(b as u32), rules, stats);
    }
}

/// Whether a low-level type is one the integer passes handle (the e-graphs,
/// branch facts): Some(is_bool).
pub(super) fn int_type(t: &LowLevelType) -> Option<bool> {
    match t {
        LowLevelType::Signed => Some(false),
        LowLevelType::Bool => Some(true),
        _ => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum OpKind {
    /// A pure integer operation, now an e-node.
    Pure,
    /// `same_as` of an integer value: its result is its argument.
    Alias,
    /// Anything else: kept as it is, in order.
    Other,
}

fn optimize_block(
    graph: &mut FunctionGraph<LowLevel>,
    b: BlockId,
    rules: &egraph::RuleSet,
    stats: &mut OptStats,
) {
    // Taken out of the graph (not copied) while the graph's variable types
    // are read; put back, rewritten or not.
    let block = std::mem::take(&mut graph.blocks[b.0 as usize]);
    let rewritten = rewrite_block(graph, &block, rules, stats);
    graph.blocks[b.0 as usize] = block;
    let Some((operations, exitswitch, exits, new_vars)) = rewritten else {
        return;
    };
    for (name, t) in new_vars {
        graph.new_var(name, t);
    }
    let blk = graph.block_mut(b);
    blk.operations = operations;
    blk.exitswitch = exitswitch;
    blk.exits = exits;
}

/// The block's operations, exitswitch and exits rewritten, and the
/// variables to add to the graph for them; `None` when nothing changed.
type Rewritten = (
    Vec<SpaceOperation>,
    Option<Arg>,
    Vec<rpy_ir::graph::Link>,
    Vec<(Option<String>, LowLevelType)>,
);

fn rewrite_block(
    graph: &FunctionGraph<LowLevel>,
    block: &rpy_ir::graph::Block,
    rules: &egraph::RuleSet,
    stats: &mut OptStats,
) -> Option<Rewritten> {
    let mut eg: EGraph<Node, IntAnalysis> = EGraph::new(IntAnalysis);
    let mut class_of: HashMap<Var, Id> = HashMap::default();
    let is_bool = |graph: &FunctionGraph<LowLevel>, v: Var| int_type(graph.info(v));
    for v in &block.inputargs {
        if let Some(bl) = is_bool(graph, *v) {
            class_of.insert(*v, eg.add(Node::Leaf(v.0, bl)));
        }
    }
    let mut kinds = Vec::with_capacity(block.operations.len());
    let mut any_pure = false;
    for op in &block.operations {
        let res_ty = is_bool(graph, op.result);
        let arg_class = |eg: &mut EGraph<Node, IntAnalysis>, a: &Arg, want: bool| -> Option<Id> {
            match a {
                Arg::Var(v) => {
                    let id = *class_of.get(v)?;
                    (is_bool(graph, *v) == Some(want)).then_some(id)
                }
                Arg::Const(Constant::Int(c)) if !want => Some(eg.add(Node::Int(*c))),
                Arg::Const(Constant::Bool(c)) if want => Some(eg.add(Node::Bool(*c))),
                _ => None,
            }
        };
        let mut kind = OpKind::Other;
        if let Some((code, arg_tys, res)) = int_sig(op.opname) {
            if res_ty == Some(res) && op.args.len() == arg_tys.len() {
                let ids: Option<Vec<Id>> = op
                    .args
                    .iter()
                    .zip(&arg_tys)
                    .map(|(a, t)| arg_class(&mut eg, a, *t))
                    .collect();
                if let Some(ids) = ids {
                    let node = match ids.as_slice() {
                        [a] => Node::Op1(code, [*a]),
                        [a, b] => Node::Op2(code, [*a, *b]),
                        _ => unreachable!(),
                    };
                    class_of.insert(op.result, eg.add(node));
                    kind = OpKind::Pure;
                    any_pure = true;
                }
            }
        } else if op.opname == Opcode::SameAs && op.args.len() == 1 {
            if let Some(t) = res_ty {
                if let Some(id) = arg_class(&mut eg, &op.args[0], t) {
                    class_of.insert(op.result, id);
                    kind = OpKind::Alias;
                    any_pure = true;
                }
            }
        }
        if kind == OpKind::Other {
            if let Some(bl) = res_ty {
                class_of.insert(op.result, eg.add(Node::Leaf(op.result.0, bl)));
            }
        }
        kinds.push(kind);
    }
    if !any_pure {
        return None;
    }
    stats.blocks += 1;
    let eg = rules.run(eg, NODE_LIMIT, ITER_LIMIT);
    // Nothing found: each pure operation alone in its class (no rule
    // fired, no value computed twice, no constant), no `same_as` to look
    // through, and every pure result read: rebuilding would give the block
    // back as it is, so it is not rebuilt.
    if !kinds.contains(&OpKind::Alias) {
        let mut used: HashSet<Var> = HashSet::default();
        let mut note = |a: &Arg| {
            if let Arg::Var(v) = a {
                used.insert(*v);
            }
        };
        block
            .operations
            .iter()
            .flat_map(|op| &op.args)
            .for_each(&mut note);
        block.exitswitch.iter().for_each(&mut note);
        block.exits.iter().flat_map(|l| &l.args).for_each(&mut note);
        let mut seen: HashSet<Id> = HashSet::default();
        let unchanged = block
            .operations
            .iter()
            .zip(&kinds)
            .filter(|(_, k)| **k == OpKind::Pure)
            .all(|(op, _)| {
                let c = eg.find(class_of[&op.result]);
                one_operation(&eg[c].nodes) && seen.insert(c) && used.contains(&op.result)
            });
        if unchanged {
            return None;
        }
    }
    let extractor = Extractor::new(&eg, OpCost);
    let mut rb = Rebuild {
        eg: &eg,
        ex: &extractor,
        avail: HashMap::default(),
        defined: block.inputargs.iter().map(|v| v.0).collect(),
        out: Vec::new(),
        class_var: HashMap::default(),
        new_vars: Vec::new(),
        next_var: graph.vars.len() as u32,
        pos: None,
    };
    // Which classes are needed: arguments of kept operations and exits.
    let mut roots: Vec<Id> = Vec::new();
    let var_root = |a: &Arg, roots: &mut Vec<Id>| {
        if let Arg::Var(v) = a {
            if let Some(id) = class_of.get(v) {
                roots.push(eg.find(*id));
            }
        }
    };
    for (op, kind) in block.operations.iter().zip(&kinds) {
        if *kind == OpKind::Other {
            op.args.iter().for_each(|a| var_root(a, &mut roots));
        }
    }
    if let Some(s) = &block.exitswitch {
        var_root(s, &mut roots);
    }
    for l in &block.exits {
        l.args.iter().for_each(|a| var_root(a, &mut roots));
    }
    let needed = rb.needed(roots);
    for (op, kind) in block.operations.iter().zip(&kinds) {
        if *kind == OpKind::Pure {
            let c = eg.find(class_of[&op.result]);
            rb.class_var.entry(c).or_insert((op.result, op.pos));
        }
    }
    // Rebuild the operations.
    for (op, kind) in block.operations.iter().zip(&kinds) {
        match kind {
            OpKind::Pure | OpKind::Alias => {
                let c = eg.find(class_of[&op.result]);
                if needed.contains(&c) && !rb.avail.contains_key(&c) && rb.can(c) {
                    rb.pos = op.pos;
                    rb.materialize(c);
                }
            }
            OpKind::Other => {
                rb.pos = op.pos;
                let mut args = Vec::with_capacity(op.args.len());
                for a in &op.args {
                    match a {
                        Arg::Var(v) if class_of.contains_key(v) => {
                            let c = eg.find(class_of[v]);
                            if !rb.can(c) {
                                return None; // cannot order the values: keep the block as it was
                            }
                            args.push(rb.materialize(c));
                        }
                        other => args.push(other.clone()),
                    }
                }
                rb.out.push(SpaceOperation {
                    opname: op.opname,
                    args,
                    result: op.result,
                    pos: op.pos,
                });
                if class_of.contains_key(&op.result) {
                    rb.defined.insert(op.result.0);
                }
            }
        }
    }
    rb.pos = block.operations.last().and_then(|o| o.pos);
    let exit_arg = |rb: &mut Rebuild, a: &Arg| -> Option<Arg> {
        match a {
            Arg::Var(v) if class_of.contains_key(v) => {
                let c = eg.find(class_of[v]);
                rb.can(c).then(|| rb.materialize(c))
            }
            other => Some(other.clone()),
        }
    };
    let exitswitch = match &block.exitswitch {
        Some(s) => match exit_arg(&mut rb, s) {
            Some(a) => Some(a),
            None => return None,
        },
        None => None,
    };
    let mut exits = block.exits.clone();
    for l in &mut exits {
        for a in &mut l.args {
            match exit_arg(&mut rb, a) {
                Some(n) => *a = n,
                None => return None,
            }
        }
    }
    let changed =
        rb.out != block.operations || exitswitch != block.exitswitch || exits != block.exits;
    if !changed {
        return None;
    }
    stats.blocks_changed += 1;
    stats.ops_before += block.operations.len();
    stats.ops_after += rb.out.len();
    Some((
        std::mem::take(&mut rb.out),
        exitswitch,
        exits,
        std::mem::take(&mut rb.new_vars),
    ))
}

/// Turns extracted e-classes back into operations.
struct Rebuild<'a> {
    eg: &'a EGraph<Node, IntAnalysis>,
    ex: &'a Extractor<'a, OpCost, Node, IntAnalysis>,
    /// Classes already computed, and the value holding each.
    avail: HashMap<Id, Arg>,
    /// Leaf variables defined so far.
    defined: HashSet<u32>,
    out: Vec<SpaceOperation>,
    /// The variable (and source position) of the first original operation
    /// of each class: reused when the class is computed by an operation.
    class_var: HashMap<Id, (Var, Option<rpy_ir::diag::Pos>)>,
    /// Variables to add to the graph: name and type.
    new_vars: Vec<(Option<String>, LowLevelType)>,
    next_var: u32,
    pos: Option<rpy_ir::diag::Pos>,
}

impl Rebuild<'_> {
    fn best(&self, id: Id) -> &Node {
        self.ex.find_best_node(id)
    }

    /// The classes the extracted terms of `roots` use.
    fn needed(&self, roots: Vec<Id>) -> HashSet<Id> {
        let mut seen = HashSet::default();
        let mut stack = roots;
        while let Some(id) = stack.pop() {
            let id = self.eg.find(id);
            if seen.insert(id) {
                stack.extend(self.best(id).children().iter().copied());
            }
        }
        seen
    }

    /// Whether the extracted term of `id` can be computed now (every leaf
    /// it uses is defined).
    fn can(&self, id: Id) -> bool {
        self.can_memo(id, &mut HashMap::default())
    }

    fn can_memo(&self, id: Id, memo: &mut HashMap<Id, bool>) -> bool {
        let id = self.eg.find(id);
        if self.avail.contains_key(&id) {
            return true;
        }
        if let Some(r) = memo.get(&id) {
            return *r;
        }
        let r = match self.best(id) {
            Node::Int(_) | Node::Bool(_) => true,
            Node::Leaf(v, _) => self.defined.contains(v),
            n => n.children().iter().all(|c| self.can_memo(*c, memo)),
        };
        memo.insert(id, r);
        r
    }

    /// Emits the operations computing class `id` (which [`Self::can`]).
    fn materialize(&mut self, id: Id) -> Arg {
        let id = self.eg.find(id);
        if let Some(a) = self.avail.get(&id) {
            return a.clone();
        }
        let node = self.best(id).clone();
        let arg = match &node {
            Node::Int(v) => Arg::Const(Constant::Int(*v)),
            Node::Bool(v) => Arg::Const(Constant::Bool(*v)),
            Node::Leaf(v, _) => Arg::Var(Var(*v)),
            Node::Op1(op, _) | Node::Op2(op, _) => {
                let args: Vec<Arg> = node
                    .children()
                    .iter()
                    .map(|c| self.materialize(*c))
                    .collect();
                let is_bool = self.eg[id].data.is_bool;
                let (result, pos) = match self.class_var.get(&id) {
                    Some((v, p)) => (*v, p.or(self.pos)),
                    None => {
                        let t = if is_bool {
                            LowLevelType::Bool
                        } else {
                            LowLevelType::Signed
                        };
                        self.new_vars.push((None, t));
                        self.next_var += 1;
                        (Var(self.next_var - 1), self.pos)
                    }
                };
                self.out.push(SpaceOperation {
                    opname: *op,
                    args,
                    result,
                    pos,
                });
                Arg::Var(result)
            }
        };
        self.avail.insert(id, arg.clone());
        arg
    }
}

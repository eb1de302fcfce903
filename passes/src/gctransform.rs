//! The GC transform: what a moving, generational collector needs of the
//! graphs, made explicit as operations (the original's gctransform with its
//! shadow-stack root finder and the write barrier of its generational GCs).
//!
//! - **Roots.** A collection may happen inside any *collecting* operation:
//!   an allocation (`malloc`, `malloc_varsize`), or a call of a graph that
//!   contains one, directly or through its callees (computed to a
//!   fixpoint; a call through a function pointer is taken to collect).
//!   Runtime functions
//!   are leaves that never collect (their allocations take the runtime's
//!   non-collecting path). Before a collecting operation, every GC pointer
//!   that is still used after it is stored in a slot of the graph's
//!   shadow-stack frame (`gc_save_root(k, p)`); after it, each is read back
//!   (`p2 = gc_reload(k, p)`) and the rest of the block uses `p2`, because
//!   the collector may have moved the object and updated only the slot.
//!   A pointer keeps its slot for as long as it is live in the block (the
//!   lowest slot free when it is first saved), and a slot that already
//!   holds the pointer's current value (reloaded from it, no collection
//!   since) is not stored again; so a graph's frame is as large as its
//!   largest set of live pointers. GenC reserves it (zeroed) on entry,
//!   or, when the first block saves no root, before the first save of a
//!   path that has one, and releases it on return.
//! - **Write barrier.** A store of a GC pointer into an object that may be
//!   old (`setfield`/`setarrayitem` with a pointer variable as the value)
//!   is preceded by `gc_write_barrier(obj)` (`gc_write_barrier_item(obj,
//!   index)` for an item, so that a large array marks only the item's
//!   card), so that an old object pointing to a young one is remembered
//!   for the next minor collection. An object
//!   allocated by a fixed-size `malloc` earlier in the same block, with no
//!   collecting operation since, is young (it is in the nursery) and needs
//!   none. A stored constant (null, a prebuilt static, a string constant)
//!   is never young and needs none either.
//!
//! Liveness is per block: graphs after `exceptiontransform` pass every value
//! from block to block by link arguments, so a pointer is live after an
//! operation exactly when a later operation, the exit switch or a link of
//! the same block uses it.
//!
//! With `GcKind::None` the graphs are left as they are: nothing moves and
//! nothing is old, so there is nothing to make explicit. The result is a
//! `Program<GcExplicit>` either way, the only program GenC takes.

use fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use rpy_ir::graph::{
    Arg, Constant, ExceptionsExplicit, FunctionGraph, GcExplicit, Program, SpaceOperation, Var,
};
use rpy_ir::llops::GcKind;
use rpy_ir::lltype::LowLevelType;
use rpy_ir::opcode::Opcode;
use std::collections::BTreeSet;

/// Adds the root saving and reloading, and the write barriers, that the
/// collector `gc` needs to every graph of `program`.
pub fn transform(program: Program<ExceptionsExplicit>, gc: GcKind) -> Program<GcExplicit> {
    transform_collecting(program, gc, &[])
}

/// [`transform`], with the graphs named in `collect` taken to collect
/// whatever they do: the JIT's portals, whose calls run in the JIT's
/// runtime, which collects before it traces (so that the objects the
/// trace names stay where they are).
pub fn transform_collecting(
    program: Program<ExceptionsExplicit>,
    gc: GcKind,
    collect: &[String],
) -> Program<GcExplicit> {
    let collecting =
        (gc != GcKind::None).then(|| CollectAnalysis::with_collecting(&program, collect));
    let Ok(explicit) = crate::parallel_graphs::try_map_graphs(program, |_, _, g| {
        let mut g = g.map_stage(|_, t| t.clone());
        if let Some(collecting) = &collecting {
            transform_graph(&mut g, collecting);
        }
        Ok::<_, std::convert::Infallible>(g)
    });
    explicit
}

/// Which graphs can collect.
pub struct CollectAnalysis {
    graphs: HashSet<String>,
}

impl CollectAnalysis {
    /// The graphs that allocate, or call one that can collect, to a fixpoint.
    /// The graphs in `collect` are taken to collect whatever they do.
    pub fn with_collecting(
        program: &Program<ExceptionsExplicit>,
        collect: &[String],
    ) -> CollectAnalysis {
        let mut a = CollectAnalysis {
            graphs: collect.iter().cloned().collect(),
        };
        loop {
            let mut changed = false;
            for g in &program.graphs {
                if !a.graphs.contains(&g.name)
                    && g.blocks
                        .iter()
                        .flat_map(|b| &b.operations)
                        .any(|op| a.op_collects(op))
                {
                    a.graphs.insert(g.name.clone());
                    changed = true;
                }
            }
            if !changed {
                return a;
            }
        }
    }

    /// Whether the graph named `name` can collect.
    pub fn graph_collects(&self, name: &str) -> bool {
        self.graphs.contains(name)
    }

    /// Whether a collection may happen during `op`.
    ///
    /// A call through a function pointer always may: its targets include
    /// the method slots of vtables, graphs whose parameters are subclass
    /// parts of the pointer type's, so matching signatures would miss some.
    pub fn op_collects(&self, op: &SpaceOperation) -> bool {
        if rpy_ir::llops::starts_collection(op) {
            return true;
        }
        match op.opname {
            Opcode::IndirectCall => true,
            // Runtime functions other than gc.collect() allocate without
            // collecting.
            Opcode::DirectCall => matches!(
                op.args.first(),
                Some(Arg::Const(Constant::Func(f))) if self.graphs.contains(f)
            ),
            _ => false,
        }
    }
}

fn is_gc_pointer(t: &LowLevelType) -> bool {
    matches!(t, LowLevelType::Ptr(_))
}

fn transform_graph(g: &mut FunctionGraph<GcExplicit>, collecting: &CollectAnalysis) {
    for b in 0..g.blocks.len() {
        let block = &g.blocks[b];
        if block.operations.is_empty() {
            continue;
        }
        // Backwards: the GC pointers defined before each collecting
        // operation and used after it.
        let mut live: BTreeSet<Var> = BTreeSet::new();
        let gc_var = |a: &Arg| a.as_var().filter(|v| is_gc_pointer(g.info(*v)));
        live.extend(block.exitswitch.iter().filter_map(gc_var));
        live.extend(block.exits.iter().flat_map(|l| &l.args).filter_map(gc_var));
        let mut roots: Vec<Option<BTreeSet<Var>>> = vec![None; block.operations.len()];
        for (i, op) in block.operations.iter().enumerate().rev() {
            live.remove(&op.result);
            if collecting.op_collects(op) {
                roots[i] = Some(live.clone());
            }
            live.extend(op.args.iter().filter_map(gc_var));
        }

        // Forwards: rewrite, renaming each reloaded pointer in the rest of the block.
        let old_ops = std::mem::take(&mut g.blocks[b].operations);
        let mut ops = Vec::with_capacity(old_ops.len());
        let mut renamed: HashMap<Var, Var> = HashMap::default();
        let mut young: HashSet<Var> = HashSet::default();
        // Which slot each live pointer (by its original name) was given,
        // and which value each slot is known to hold.
        let mut slot_of: HashMap<Var, usize> = HashMap::default();
        let mut slot_holds: HashMap<usize, Var> = HashMap::default();
        let rename = |a: &mut Arg, renamed: &HashMap<Var, Var>| {
            if let Arg::Var(v) = a {
                if let Some(n) = renamed.get(v) {
                    *v = *n;
                }
            }
        };
        for (mut op, op_roots) in old_ops.into_iter().zip(roots) {
            for a in &mut op.args {
                rename(a, &renamed);
            }
            let pos = op.pos;
            let stores_pointer = match op.opname {
                Opcode::Setfield | Opcode::Setarrayitem => op
                    .args
                    .get(2)
                    .and_then(Arg::as_var)
                    .is_some_and(|v| is_gc_pointer(g.info(v))),
                _ => false,
            };
            if stores_pointer && !op.args[0].as_var().is_some_and(|p| young.contains(&p)) {
                let void = g.new_var(None, LowLevelType::Void);
                // An item store names its index, so that a large array
                // marks only that item's card.
                let (opname, args) = if op.opname == Opcode::Setarrayitem {
                    (Opcode::GcWriteBarrierItem, op.args[..2].to_vec())
                } else {
                    (Opcode::GcWriteBarrier, vec![op.args[0].clone()])
                };
                ops.push(SpaceOperation {
                    opname,
                    args,
                    result: void,
                    pos,
                });
            }
            if matches!(
                op.opname,
                Opcode::CastPointer | Opcode::SameAs | Opcode::JitPromote
            ) && op.args[0].as_var().is_some_and(|p| young.contains(&p))
            {
                young.insert(op.result);
            }
            // The JIT may hand a portal call back at its merge point with
            // every live variable changed (GenC writes them over): what a
            // slot holds, and which objects are young, is not known after.
            if op.is_jit_merge_point() {
                young.clear();
                slot_holds.clear();
            }
            let Some(op_roots) = op_roots else {
                ops.push(op);
                continue;
            };
            // After a collection nothing is young any more, not even what
            // this operation allocates (a varsized object may be large,
            // hence old; a fixed-size one is young again below).
            young.clear();
            if op.opname == Opcode::Malloc {
                young.insert(op.result);
            }
            // A pointer keeps its slot while it stays live, so a slot that
            // already holds its current value (reloaded from it, no
            // collection since) needs no store.
            slot_of.retain(|v, _| op_roots.contains(v));
            let mut slots = Vec::with_capacity(op_roots.len());
            for v in &op_roots {
                let slot = match slot_of.get(v) {
                    Some(k) => *k,
                    None => {
                        let k = (0..)
                            .find(|k| !slot_of.values().any(|used| used == k))
                            .unwrap_or(0);
                        slot_of.insert(*v, k);
                        k
                    }
                };
                let current = *renamed.get(v).unwrap_or(v);
                if slot_holds.get(&slot) != Some(&current) {
                    let void = g.new_var(None, LowLevelType::Void);
                    ops.push(SpaceOperation {
                        opname: Opcode::GcSaveRoot,
                        args: vec![Arg::Const(Constant::Int(slot as i64)), Arg::Var(current)],
                        result: void,
                        pos,
                    });
                }
                slots.push((slot, current));
            }
            ops.push(op);
            for (orig, (slot, current)) in op_roots.iter().zip(slots) {
                let data = g.vars[current.0 as usize].clone();
                let reloaded = g.new_var(data.name, data.info);
                ops.push(SpaceOperation {
                    opname: Opcode::GcReload,
                    args: vec![Arg::Const(Constant::Int(slot as i64)), Arg::Var(current)],
                    result: reloaded,
                    pos,
                });
                renamed.insert(*orig, reloaded);
                slot_holds.insert(slot, reloaded);
            }
        }
        let block = &mut g.blocks[b];
        block.operations = ops;
        if let Some(sw) = &mut block.exitswitch {
            rename(sw, &renamed);
        }
        for l in &mut block.exits {
            for a in &mut l.args {
                rename(a, &renamed);
            }
        }
    }
}

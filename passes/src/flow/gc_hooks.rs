//! The graphs through which the collector calls the program's GC hooks.
//!
//! A target may define `get_gchooks()`, returning an instance of a
//! `GcHooks` subclass (the original's `rpython.memory.gc.hook`); the
//! collector then calls its `fire_gc_minor`, `fire_gc_collect_step` and
//! `fire_gc_collect` methods after each collection. Each becomes a graph of
//! its own, `rpy_gc_hook_<event>(ints...)`, calling the method on the
//! prebuilt hooks object: the annotator starts from it as from the entry
//! point (its parameters are ints), and GenC hands its C function to the
//! collector. The graph's hint (`gc_hook <event>`) says which event it
//! serves.

use rpy_ir::diag::Pos;
use rpy_ir::graph::{
    Arg, Constant, Flow, FunctionGraph, Link, SpaceOperation, GC_HOOK_HINT_PREFIX,
};
use rpy_ir::opcode::Opcode;

/// The events the collector reports, each with its `GcHooks` method and
/// the names of the ints it passes (the original's, in its order).
pub const GC_HOOK_EVENTS: [(&str, &str, &[&str]); 3] = [
    (
        "minor",
        "fire_gc_minor",
        &["duration", "total_memory_used", "pinned_objects"],
    ),
    (
        "collect_step",
        "fire_gc_collect_step",
        &["duration", "oldstate", "newstate"],
    ),
    (
        "collect",
        "fire_gc_collect",
        &[
            "num_major_collects",
            "arenas_count_before",
            "arenas_count_after",
            "arenas_bytes",
            "rawmalloc_bytes_before",
            "rawmalloc_bytes_after",
            "pinned_objects",
        ],
    ),
];

/// One graph per event, each calling its method on `hooks` (the prebuilt
/// hooks object) with its parameters and returning None; `pos` is where
/// `get_gchooks` is defined, what errors in them point at.
pub(crate) fn gc_hook_graphs(hooks: &Constant, pos: Option<Pos>) -> Vec<FunctionGraph<Flow>> {
    GC_HOOK_EVENTS
        .iter()
        .map(|(event, method, params)| {
            let mut g = FunctionGraph::<Flow>::new(format!("rpy_gc_hook_{event}"), params, ());
            g.hints.push(format!("{GC_HOOK_HINT_PREFIX}{event}"));
            g.pos = pos;
            let start = g.startblock;
            let bound = g.new_var(None, ());
            let result = g.new_var(None, ());
            let args = std::iter::once(Arg::Var(bound))
                .chain(g.params().iter().map(|&p| Arg::Var(p)))
                .collect();
            let returnblock = g.returnblock;
            let block = g.block_mut(start);
            block.operations.push(SpaceOperation {
                opname: Opcode::Getattr,
                args: vec![
                    Arg::Const(hooks.clone()),
                    Arg::Const(Constant::Name(method.to_string())),
                ],
                result: bound,
                pos,
            });
            block.operations.push(SpaceOperation {
                opname: Opcode::SimpleCall,
                args,
                result,
                pos,
            });
            block.exits.push(Link::new(
                vec![Arg::Const(Constant::None)],
                returnblock,
                None,
            ));
            g
        })
        .collect()
}

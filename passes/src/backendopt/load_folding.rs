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
use rpy_ir::graph::{Arg, BlockId, Constant, FunctionGraph, LowLevel, Program, Var};
use std::collections::{HashMap, HashSet};

type G = FunctionGraph<LowLevel>;

/// The field names each graph may write when called, itself or through
/// its callees; `None` for a graph whose writes are not known.
pub struct FieldWrites {
    writes: HashMap<String, HashSet<String>>,
}

impl FieldWrites {
    pub fn new(program: &Program<LowLevel>, callgraph: &CallGraph) -> FieldWrites {
        let mut writes: HashMap<String, HashSet<String>> = HashMap::new();
        for g in &program.graphs {
            let own = g
                .blocks
                .iter()
                .flat_map(|b| &b.operations)
                .filter(|op| op.opname == "setfield")
                .filter_map(|op| match op.args.get(1) {
                    Some(Arg::Const(Constant::Name(f))) => Some(f.clone()),
                    _ => None,
                })
                .collect();
            writes.insert(g.name.clone(), own);
        }
        // Bottom-up, each graph takes its callees' writes; a cycle needs
        // another round, so repeat until nothing grows.
        let order: Vec<String> = callgraph
            .bottom_up()
            .into_iter()
            .map(String::from)
            .collect();
        loop {
            let mut grew = false;
            for name in &order {
                let from_callees: HashSet<String> = callgraph
                    .callees(name)
                    .flat_map(|c| writes.get(c).into_iter().flatten().cloned())
                    .collect();
                let mine = writes.get_mut(name).expect("every graph has an entry");
                for f in from_callees {
                    grew |= mine.insert(f);
                }
            }
            if !grew {
                return FieldWrites { writes };
            }
        }
    }

    /// Whether the call `op` (a `direct_call` or `indirect_call` in graph
    /// `g`) may write field `field`.
    pub(super) fn call_may_write(
        &self,
        g: &G,
        args: &[Arg],
        field: &str,
        callgraph: &CallGraph,
    ) -> bool {
        match args.first() {
            Some(Arg::Const(Constant::Builtin(_))) => false,
            Some(Arg::Const(Constant::Func(f))) => match self.writes.get(f) {
                Some(w) => w.contains(field),
                None => true,
            },
            // Any graph the caller's indirect calls reach: the call graph's
            // edges of the caller that came from indirect calls are among
            // its callees, so ask all of them (over-approximating).
            Some(Arg::Var(_)) => callgraph
                .callees(&g.name)
                .any(|c| self.writes.get(c).is_none_or(|w| w.contains(field))),
            _ => true,
        }
    }
}

/// What [`fold_loads`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadStats {
    /// `getfield` operations replaced by a value already known.
    pub loads_folded: usize,
}

/// Folds the repeated field reads of every graph.
pub fn fold_loads(program: &mut Program<LowLevel>) -> LoadStats {
    let callgraph = CallGraph::new(program);
    let writes = FieldWrites::new(program, &callgraph);
    let mut stats = LoadStats::default();
    for g in &mut program.graphs {
        fold_loads_in_graph(g, &writes, &callgraph, &mut stats);
    }
    stats
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

fn fold_loads_in_graph(g: &mut G, writes: &FieldWrites, cg: &CallGraph, stats: &mut LoadStats) {
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
                    known.retain(|(_, field), _| !writes.call_may_write(g, &op.args, field, cg));
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

//! The call graph of a low-level program: which graph calls which, the
//! strongly connected components (recursion), and the bottom-up order in
//! which inlining and the call-effect analyses visit the graphs.
//!
//! A `direct_call` of a graph of the program is an edge to it; an
//! `indirect_call` through a function pointer is an edge to every graph
//! whose address is taken (`Program::address_taken`) and whose signature is
//! the pointer's up to pointer types (`FuncSig::pointer_shape`: a method
//! in a vtable slot takes a subclass), since any of them may be the one
//! called. Runtime
//! functions (`Builtin` callees) are not graphs and make no edge.

use fxhash::FxHashMap as HashMap;
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use rayon::prelude::*;
use rpy_ir::graph::{Arg, Constant, LowLevel, Program};
use rpy_ir::lltype::{FuncSig, LowLevelType};
use rpy_ir::opcode::Opcode;
use std::fmt::Write;

/// How one graph calls another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallSites {
    /// `direct_call` operations naming the callee.
    pub direct: usize,
    /// `indirect_call` operations that may reach the callee.
    pub indirect: usize,
}

/// A call site found in a graph: of a graph, or through a pointer of a
/// shape some taken graph has.
enum Site {
    Direct(NodeIndex),
    Indirect(FuncSig),
}

pub struct CallGraph {
    /// Nodes are graph names (indices into the program's `graphs` are not
    /// stable: inlining leaves them, but a later pass may drop graphs), and
    /// one dispatch node per function-pointer shape that an
    /// `indirect_call` uses: its callers have an edge to it, and it an edge
    /// to every address-taken graph of that shape. A class-heavy program
    /// has thousands of indirect calls that may each reach hundreds of
    /// methods; an edge from each call's graph to each method was 150,000
    /// edges for the 10,000-line class program, and most of the time of
    /// the passes that build the call graph.
    graph: DiGraph<String, CallSites>,
    index: HashMap<String, NodeIndex>,
    /// The dispatch node of each pointer shape (`FuncSig::pointer_shape`).
    dispatch: HashMap<FuncSig, NodeIndex>,
    /// Whether each node is a dispatch node.
    is_dispatch: Vec<bool>,
    /// The strongly connected components, callees before callers (Tarjan's
    /// algorithm yields them in reverse topological order).
    sccs: Vec<Vec<NodeIndex>>,
    /// The component of each node, by position in `sccs`.
    scc_of: Vec<usize>,
}

impl CallGraph {
    pub fn new(program: &Program<LowLevel>) -> CallGraph {
        let mut graph = DiGraph::with_capacity(program.graphs.len(), 0);
        let mut index = HashMap::default();
        index.reserve(program.graphs.len());
        for g in &program.graphs {
            index.insert(g.name.clone(), graph.add_node(g.name.clone()));
        }
        let mut is_dispatch = vec![false; graph.node_count()];
        let taken = program.address_taken();
        let mut by_sig: HashMap<FuncSig, Vec<NodeIndex>> = HashMap::default();
        for g in &program.graphs {
            if taken.contains(g.name.as_str()) {
                by_sig
                    .entry(g.func_sig().pointer_shape())
                    .or_default()
                    .push(index[&g.name]);
            }
        }
        // Each graph's call sites, in operation order, found on every core.
        let calls: Vec<Vec<Site>> = program
            .graphs
            .par_iter()
            .map(|g| {
                let mut found = Vec::new();
                for op in g.blocks.iter().flat_map(|b| &b.operations) {
                    match (op.opname, op.args.first()) {
                        (Opcode::DirectCall, Some(Arg::Const(Constant::Func(f)))) => {
                            if let Some(&callee) = index.get(f) {
                                found.push(Site::Direct(callee));
                            }
                        }
                        (Opcode::IndirectCall, Some(Arg::Var(v))) => {
                            if let LowLevelType::FuncPtr(sig) = g.info(*v) {
                                let shape = sig.pointer_shape();
                                if by_sig.contains_key(&shape) {
                                    found.push(Site::Indirect(shape));
                                }
                            }
                        }
                        _ => {}
                    }
                }
                found
            })
            .collect();
        let mut dispatch: HashMap<FuncSig, NodeIndex> = HashMap::default();
        let mut sites: HashMap<(NodeIndex, NodeIndex), CallSites> = HashMap::default();
        for (g, found) in program.graphs.iter().zip(calls) {
            let caller = index[&g.name];
            for site in found {
                match site {
                    Site::Direct(callee) => {
                        sites.entry((caller, callee)).or_default().direct += 1;
                    }
                    Site::Indirect(shape) => {
                        let members = &by_sig[&shape];
                        let d = *dispatch.entry(shape).or_insert_with_key(|shape| {
                            let d = graph.add_node(format!("<indirect call of {shape:?}>"));
                            is_dispatch.push(true);
                            for &m in members {
                                sites.insert((d, m), CallSites::default());
                            }
                            d
                        });
                        sites.entry((caller, d)).or_default().indirect += 1;
                    }
                }
            }
        }
        let mut edges: Vec<_> = sites.into_iter().collect();
        edges.sort_by_key(|((a, b), _)| (*a, *b));
        for ((a, b), s) in edges {
            graph.add_edge(a, b, s);
        }
        let sccs = tarjan_scc(&graph);
        let mut scc_of = vec![0; graph.node_count()];
        for (i, scc) in sccs.iter().enumerate() {
            for n in scc {
                scc_of[n.index()] = i;
            }
        }
        CallGraph {
            graph,
            index,
            dispatch,
            is_dispatch,
            sccs,
            scc_of,
        }
    }

    fn node(&self, name: &str) -> Option<NodeIndex> {
        self.index.get(name).copied()
    }

    /// Whether the graph named `name` may call itself, directly or through
    /// others.
    pub fn is_recursive(&self, name: &str) -> bool {
        self.node(name)
            .is_some_and(|n| self.cycles(&self.sccs[self.scc_of[n.index()]]))
    }

    /// Whether the component `scc` is a cycle: it has several nodes (a
    /// dispatch node in it is an indirect call on the way round), or its
    /// one node calls itself.
    fn cycles(&self, scc: &[NodeIndex]) -> bool {
        scc.len() > 1 || self.graph.contains_edge(scc[0], scc[0])
    }

    /// The graphs an edge to node `n` reaches: `n`, or the graphs of a
    /// dispatch node.
    fn graphs_at(&self, n: NodeIndex) -> impl Iterator<Item = NodeIndex> + '_ {
        let dispatch = self.is_dispatch[n.index()];
        let own = (!dispatch).then_some(n);
        let members = dispatch.then(|| self.graph.neighbors(n));
        own.into_iter().chain(members.into_iter().flatten())
    }

    /// Whether the two graphs are in one strongly connected component.
    pub fn same_cycle(&self, a: &str, b: &str) -> bool {
        match (self.node(a), self.node(b)) {
            (Some(a), Some(b)) => self.scc_of[a.index()] == self.scc_of[b.index()],
            _ => false,
        }
    }

    /// The graph names, every callee before its callers (the members of
    /// one cycle in an arbitrary but fixed order).
    pub fn bottom_up(&self) -> Vec<&str> {
        self.sccs
            .iter()
            .flatten()
            .filter(|n| !self.is_dispatch[n.index()])
            .map(|n| self.graph[*n].as_str())
            .collect()
    }

    /// Whether any graph calls `name` (directly or maybe indirectly).
    pub fn has_callers(&self, name: &str) -> bool {
        self.node(name).is_some_and(|n| {
            self.graph
                .neighbors_directed(n, petgraph::Direction::Incoming)
                .next()
                .is_some()
        })
    }

    /// The graphs `name` calls (directly or maybe indirectly); a graph both
    /// called directly and reachable by an indirect call comes twice.
    pub fn callees(&self, name: &str) -> impl Iterator<Item = &str> {
        self.node(name)
            .into_iter()
            .flat_map(|n| self.graph.neighbors(n))
            .flat_map(|n| self.graphs_at(n))
            .map(|n| self.graph[n].as_str())
    }

    /// Every node (graphs and dispatch nodes), callees before callers, by
    /// strongly connected component: for analyses that propagate a fact
    /// from callees to callers ([`Self::node_callees`]).
    pub(crate) fn components(&self) -> &[Vec<NodeIndex>] {
        &self.sccs
    }

    /// The nodes node `n` has an edge to.
    pub(crate) fn node_callees(&self, n: NodeIndex) -> impl Iterator<Item = NodeIndex> + '_ {
        self.graph.neighbors(n)
    }

    pub(crate) fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// The node of the graph named `name`.
    pub(crate) fn graph_node(&self, name: &str) -> Option<NodeIndex> {
        self.node(name)
    }

    /// The dispatch node of the function pointers of shape `shape`, if an
    /// indirect call uses one.
    pub(crate) fn dispatch_node(&self, shape: &FuncSig) -> Option<NodeIndex> {
        self.dispatch.get(shape).copied()
    }

    /// The text form: each component bottom-up, its graphs and what each
    /// calls, for `rpy callgraph` and tests.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let mut i = 0;
        for scc in &self.sccs {
            let mut names: Vec<&str> = scc
                .iter()
                .filter(|n| !self.is_dispatch[n.index()])
                .map(|n| self.graph[*n].as_str())
                .collect();
            if names.is_empty() {
                continue;
            }
            names.sort();
            let recursive = self.cycles(scc);
            let _ = writeln!(
                out,
                "scc {i}{}: {}",
                if recursive { " (recursive)" } else { "" },
                names.join(", ")
            );
            i += 1;
            for name in names {
                let n = self.index[name];
                // The sites of each callee graph, a dispatch node's
                // indirect calls counted at each graph it may reach.
                let mut calls: std::collections::BTreeMap<&str, CallSites> = Default::default();
                for e in self.graph.edges(n) {
                    use petgraph::visit::EdgeRef;
                    let s = *e.weight();
                    for t in self.graphs_at(e.target()) {
                        let c = calls.entry(self.graph[t].as_str()).or_default();
                        c.direct += s.direct;
                        c.indirect += s.indirect;
                    }
                }
                for (callee, s) in calls {
                    let mut how = Vec::new();
                    if s.direct > 0 {
                        how.push(format!("{} direct", s.direct));
                    }
                    if s.indirect > 0 {
                        how.push(format!("{} indirect", s.indirect));
                    }
                    let _ = writeln!(out, "  {name} -> {callee} ({})", how.join(", "));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rpy_ir::text::parse_program;

    /// The call graph of the program of `graphs` and a graph `leaf` that
    /// calls nothing.
    fn call_graph(graphs: &str) -> CallGraph {
        const LEAF: &str = "
graph leaf(n_0) {
  block0(n_0: Signed):
    v1: Signed = int_add(n_0, 1)
    -> return(v1)
  returns v2: Signed
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}
";
        CallGraph::new(&parse_program::<LowLevel>(&format!("{graphs}{LEAF}")).unwrap())
    }

    const PROGRAM: &str = "
entry main

graph main(x_0) {
  block0(x_0: Signed):
    v1: Signed = direct_call(@even, x_0)
    v2: Signed = direct_call(@leaf, v1)
    -> return(v2)
  returns v3: Signed
  raises v4: Ptr(object_vtable), v5: Ptr(object)
}

graph even(n_0) {
  block0(n_0: Signed):
    v1: Bool = int_eq(n_0, 0)
    switch v1
      False -> block1(n_0)
      True -> return(1)
  block1(n_2: Signed):
    v3: Signed = int_sub(n_2, 1)
    v4: Signed = direct_call(@odd, v3)
    -> return(v4)
  returns v5: Signed
  raises v6: Ptr(object_vtable), v7: Ptr(object)
}

graph odd(n_0) {
  block0(n_0: Signed):
    v1: Bool = int_eq(n_0, 0)
    switch v1
      False -> block1(n_0)
      True -> return(0)
  block1(n_2: Signed):
    v3: Signed = int_sub(n_2, 1)
    v4: Signed = direct_call(@even, v3)
    v5: Signed = direct_call(@leaf, v4)
    -> return(v5)
  returns v6: Signed
  raises v7: Ptr(object_vtable), v8: Ptr(object)
}
";

    #[test]
    fn components_come_bottom_up_and_cycles_are_recursive() {
        let cg = call_graph(PROGRAM);
        insta::assert_snapshot!(cg.to_text(), @r"
        scc 0: leaf
        scc 1 (recursive): even, odd
          even -> odd (1 direct)
          odd -> even (1 direct)
          odd -> leaf (1 direct)
        scc 2: main
          main -> even (1 direct)
          main -> leaf (1 direct)
        ");
        assert!(cg.is_recursive("even") && cg.is_recursive("odd"));
        assert!(!cg.is_recursive("leaf") && !cg.is_recursive("main"));
        assert!(cg.same_cycle("even", "odd") && !cg.same_cycle("main", "even"));
        let order = cg.bottom_up();
        let pos = |n: &str| order.iter().position(|x| *x == n).unwrap();
        assert!(pos("leaf") < pos("odd") && pos("odd") < pos("main"));
    }

    /// `walk` calls through a function pointer of the table `&0`, which
    /// holds `walk` itself and `leaf`: recursion through an indirect call.
    const INDIRECT: &str = "
type array_fn = GcArray(Func(Signed -> Signed))
prebuilt &0 = array<array_fn> [@walk, @leaf]
entry main

graph main(x_0) {
  block0(x_0: Signed):
    v1: Signed = direct_call(@walk, x_0)
    -> return(v1)
  returns v2: Signed
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}

graph walk(n_0) {
  block0(n_0: Signed):
    f_1: Func(Signed -> Signed) = getarrayitem(&0, n_0)
    v2: Signed = indirect_call(f_1, n_0)
    v3: Signed = indirect_call(f_1, v2)
    v4: Signed = direct_call(@leaf, v3)
    -> return(v4)
  returns v5: Signed
  raises v6: Ptr(object_vtable), v7: Ptr(object)
}
";

    #[test]
    fn indirect_calls_reach_every_taken_graph_of_their_shape() {
        let cg = call_graph(INDIRECT);
        // The dispatch node of the shape is not printed: each graph it
        // reaches is, with the indirect calls counted.
        insta::assert_snapshot!(cg.to_text(), @r"
        scc 0: leaf
        scc 1 (recursive): walk
          walk -> leaf (1 direct, 2 indirect)
          walk -> walk (2 indirect)
        scc 2: main
          main -> walk (1 direct)
        ");
        assert!(cg.is_recursive("walk") && !cg.is_recursive("leaf"));
        assert!(!cg.is_recursive("main"));
        assert_eq!(cg.bottom_up(), ["leaf", "walk", "main"]);
        let mut callees: Vec<&str> = cg.callees("walk").collect();
        callees.sort();
        callees.dedup();
        assert_eq!(callees, ["leaf", "walk"]);
        assert!(cg.has_callers("leaf") && !cg.has_callers("main"));
    }
}

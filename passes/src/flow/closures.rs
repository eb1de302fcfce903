//! Functions made by factories at import time, as the original's targets
//! make their interpreters (`def make_interp(jitted): def interp(...): ...
//! return interp`, called at module level).
//!
//! RPython accepts such a closure because its cells are constants once the
//! program is imported: the original's flow space reads `func.__closure__`
//! like globals. rpy does the same in two halves:
//!
//! - **At import time** the enclosing function keeps its locals in a cells
//!   object as well as in its variables (every assignment also stores the
//!   value there), and a nested `def` makes a closure: the nested
//!   function's graph bound to that cells object (`MAKE_CLOSURE`, an
//!   object-interpreter value that calls the graph with the cells first).
//!   The nested graph reads the enclosing function's names from the cells
//!   object when it runs, so it sees what Python's cells hold, including a
//!   name assigned after the `def` (an `interp` calling an `interp_eval`
//!   defined below it).
//! - **After import** each closure that translated code uses is a graph of
//!   its own (`ClosureGraphs`: `make_interp.<locals>.interp.closure1`, one per
//!   factory call), built from the nested `def` with each free name read as
//!   the constant its cell holds after import.
//!
//! One level of nesting is supported; a `def` in a nested function, a
//! nested `class` or `lambda`, and a function with a nested `def` reached
//! by translated code are reported as before.

use super::{unique_graph_name, ProgramDefs};
use crate::language::hints::STAR_ARGS_HINT;
use crate::objinterp::ObjValue;
use rpy_ir::ast::{Stmt, StmtKind};
use std::collections::HashMap;
use std::rc::Rc;

/// What the graph name of a nested function has between the enclosing
/// function's graph name and its own name (Python's `__qualname__`).
pub(crate) const LOCALS_MARK: &str = ".<locals>.";

/// The hidden local of an enclosing function holding its cells object, and
/// the hidden first parameter of a nested function's import-time graph.
pub(crate) const CELLS_LOCAL: &str = "<cells>";

/// Collects the `def` statements directly inside the function whose graph
/// is `outer` (in its `if`, loop and `try` bodies too): each is a graph
/// named `outer.<locals>.name`, in `enclosing` with its enclosing graph.
pub(crate) fn collect_nested_defs<'a>(
    module: &str,
    outer: &str,
    body: &'a [Stmt],
    defs: &mut ProgramDefs<'a>,
) {
    for s in body {
        match &s.kind {
            StmtKind::FunctionDef {
                name, star_args, ..
            } => {
                let graph = unique_graph_name(format!("{outer}{LOCALS_MARK}{name}"), s.pos, defs);
                if star_args.is_some() {
                    super::add_hint(defs, &graph, STAR_ARGS_HINT);
                }
                super::record_def(defs, module, s, &graph);
                defs.enclosing.insert(graph, outer.to_string());
            }
            StmtKind::ClassDef { .. } => {}
            _ => s.for_each_nested_body(|b| collect_nested_defs(module, outer, b, defs)),
        }
    }
}

/// A closure translated code uses: the nested function's graph and the
/// cells object it was made with.
struct Closure {
    function: String,
    cells: ObjValue,
}

/// The closures of the import-time program that became graphs, each once
/// (a closure is its function and its cells object; the cells objects are
/// kept here, so that their addresses stay unique).
#[derive(Default)]
pub(crate) struct ClosureGraphs {
    graph_by_identity: HashMap<(String, usize), String>,
    closures: HashMap<String, Closure>,
    made: HashMap<String, usize>,
}

impl ClosureGraphs {
    /// The graph of the closure `v`, naming one the first time; `None`
    /// when `v` is not a closure.
    pub fn graph_of(&mut self, v: &ObjValue) -> Option<String> {
        let ObjValue::BoundMethod(m) = v else {
            return None;
        };
        let ObjValue::Instance(cells) = &m.receiver else {
            return None;
        };
        if !m.func.contains(LOCALS_MARK) {
            return None;
        }
        let key = (m.func.to_string(), Rc::as_ptr(cells) as usize);
        if let Some(graph) = self.graph_by_identity.get(&key) {
            return Some(graph.clone());
        }
        let n = self.made.entry(m.func.to_string()).or_insert(0);
        *n += 1;
        let graph = format!("{}.closure{n}", m.func);
        self.graph_by_identity.insert(key, graph.clone());
        self.closures.insert(
            graph.clone(),
            Closure {
                function: m.func.to_string(),
                cells: m.receiver.clone(),
            },
        );
        Some(graph)
    }

    /// The nested function whose closure the graph `graph` is.
    pub fn function_of(&self, graph: &str) -> Option<String> {
        self.closures.get(graph).map(|c| c.function.clone())
    }

    /// For the closure graph `graph`, what its cell `name` holds after
    /// import (`Some(None)`: the enclosing function never assigned it);
    /// `None` for other graphs.
    pub fn cell(&self, graph: &str, name: &str) -> Option<Option<ObjValue>> {
        let c = self.closures.get(graph)?;
        Some(crate::objinterp::modules::get(&c.cells, name))
    }
}

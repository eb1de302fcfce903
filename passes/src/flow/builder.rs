//! The graph builder: a structured abstract interpretation of one function body.
//!
//! The builder walks the statements in order, keeping a *state*: the value
//! (a variable of the current block, or a constant) of every local, and a small
//! stack of values held across sub-expressions that contain control flow (the
//! left operand of `x + (a or b)`, a `for` loop's bound and counter). Operations
//! are appended to the current block. A conditional branch closes the block with
//! two pending *edges* (exitcase False, then True), each carrying a copy of the
//! state; where edges meet, a new block is made whose input arguments are fresh
//! variables for every value that differs between the edges, and each edge
//! becomes a link passing its values. A single unconditional edge just reopens
//! its block. Loop headers are made before their back edges are known: a local
//! that the loop body assigns gets a fresh variable there, the others keep their
//! value (so constants stay constants through loops that do not change them).

// A child module so that it extends the builder with its private state.
#[path = "call_args.rs"]
mod call_args;
#[path = "containers.rs"]
mod containers;
#[path = "exceptions.rs"]
pub(super) mod exceptions;
#[path = "generators.rs"]
mod generators;
#[path = "loops.rs"]
mod loops;
#[path = "module_level.rs"]
mod module_level;
#[path = "unroll.rs"]
mod unroll;

use super::closures;
use rpy_ir::opcode::Opcode;

use super::fold::{fold, truthy};
use super::scan::{bound_names, comprehension_targets, global_names, target_names, NameList};
use super::{FuncDef, GlobalAccess, ModuleCtx};
use rpy_ir::ast::{
    BinOp, BoolOp, CmpOp, Dialect, Expr, ExprKind, Keyword, Stmt, StmtKind, UnaryOp,
};
use rpy_ir::diag::{Diagnostic, Pos};
use rpy_ir::graph::{Arg, BlockId, Constant, Flow, FunctionGraph, Link, SpaceOperation, Var};
use std::collections::{HashMap, HashSet};

/// The target of a link whose target is not known yet.
const PENDING: BlockId = BlockId(u32::MAX);

/// Builtins a program may call in this stage.
const BUILTINS: &[&str] = &[
    "len",
    "str",
    "repr",
    "int",
    "float",
    "bool",
    "abs",
    "min",
    "max",
    "ord",
    "chr",
    "range",
    "enumerate",
    "zip",
    "reversed",
    "list",
    "isinstance",
    "issubclass",
    "type",
    "staticmethod",
    "iter",
    "next",
    "hash",
    "hex",
    "oct",
    "map",
    "filter",
    "dict",
    "divmod",
];

/// Python builtins that RPython does not have in translated functions.
const NOT_RPYTHON_BUILTINS: &[&str] =
    &["sorted", "set", "frozenset", "sum", "any", "all", "reduce"];

/// Those of them the object interpreter runs for import-time code, and
/// `NotImplemented` (what a `__cmp__` may return there).
const IMPORT_TIME_BUILTINS: &[&str] = &["sorted", "sum", "any", "all", "NotImplemented"];

/// Python builtins that are not supported yet (named in their diagnostic).
const LATER_BUILTINS: &[&str] = &[
    "tuple",
    "unichr",
    "unicode",
    "long",
    "basestring",
    "id",
    "getattr",
    "setattr",
    "hasattr",
    "super",
    "open",
    "input",
    "raw_input",
    "round",
    "pow",
    "cmp",
    "callable",
    "format",
    "bytes",
    "bytearray",
    "property",
    "classmethod",
    "slice",
    "globals",
    "locals",
    "vars",
    "intern",
    "Exception",
    "BaseException",
    "ValueError",
    "KeyError",
    "IndexError",
    "TypeError",
    "ZeroDivisionError",
    "OverflowError",
    "AssertionError",
    "RuntimeError",
    "StopIteration",
    "NotImplementedError",
    "AttributeError",
    "OSError",
    "IOError",
    "NotImplemented",
];

/// Operations whose result is always a bool (a branch may switch on it directly).
const BOOL_OPS: &[Opcode] = &[
    Opcode::Lt,
    Opcode::Le,
    Opcode::Eq,
    Opcode::Ne,
    Opcode::Gt,
    Opcode::Ge,
    Opcode::Is,
    Opcode::Contains,
    Opcode::Not,
    Opcode::Bool,
];

/// The high-level operation of a binary operator.
pub(crate) fn binop_name(op: BinOp, dialect: Dialect) -> Opcode {
    match op {
        BinOp::Add => Opcode::Add,
        BinOp::Sub => Opcode::Sub,
        BinOp::Mul => Opcode::Mul,
        BinOp::Div => match dialect {
            Dialect::Py2 => Opcode::Div,
            Dialect::Py3 => Opcode::Truediv,
        },
        BinOp::FloorDiv => Opcode::Floordiv,
        BinOp::Mod => Opcode::Mod,
        BinOp::Pow => Opcode::Pow,
        BinOp::LShift => Opcode::Lshift,
        BinOp::RShift => Opcode::Rshift,
        BinOp::BitAnd => Opcode::And,
        BinOp::BitOr => Opcode::Or,
        BinOp::BitXor => Opcode::Xor,
    }
}

/// What `build_function` produces.
pub(crate) struct Built {
    /// The graph, unless it could not be completed.
    pub graph: Option<FunctionGraph<Flow>>,
    /// The graphs made with it: a generator's class's methods.
    pub extra_graphs: Vec<FunctionGraph<Flow>>,
    /// The module functions the body refers to, in order of reference
    /// (repeats included).
    pub referenced: Vec<String>,
    pub diags: Vec<Diagnostic>,
}

/// The abstract state at one point of the function.
#[derive(Clone, Debug, Default)]
struct State {
    /// The value of each local slot, `None` when not (certainly) assigned.
    env: Vec<Option<Arg>>,
    /// Slots assigned on some paths to this point but not all.
    maybe: Vec<bool>,
    /// Values held across control flow inside expressions and loops.
    stack: Vec<Arg>,
}

impl State {
    /// The state before anything is assigned to any of `nslots` slots.
    fn unassigned(nslots: usize) -> Self {
        State {
            env: vec![None; nslots],
            maybe: vec![false; nslots],
            stack: Vec::new(),
        }
    }
}

/// A link out of a closed block whose target is not decided yet.
#[derive(Clone)]
struct Edge {
    from: BlockId,
    exit: usize,
    state: State,
}

/// A block that edges can be linked to: its entry state says, for every slot
/// and stack entry, the constant it holds or the input variable that takes it.
#[derive(Clone)]
struct JoinPoint {
    block: BlockId,
    template: State,
}

/// The point the builder is at.
#[derive(Clone, Copy)]
enum At {
    /// Unreachable (after return, break or continue).
    Dead,
    /// Appending to an open block (without exits yet).
    Block(BlockId),
    /// At the target of a conditional link (block, exit index) whose block is
    /// made only when an operation or a switch needs it; `state` holds the
    /// source block's values.
    Edge(BlockId, usize),
}

struct LoopCtx {
    header: JoinPoint,
    /// The stack depth outside the loop (what a `break` leaves).
    base_depth: usize,
    breaks: Vec<Edge>,
    /// For a loop built by `while_fixpoint`: the `continue` edges, which
    /// go to the loop's top through its test rather than to `header`.
    continues: Option<Vec<Edge>>,
}

struct FnBuilder<'m, 'a> {
    m: &'m ModuleCtx<'a>,
    g: FunctionGraph<Flow>,
    /// Whether each variable is known to hold a bool.
    is_bool: Vec<bool>,
    /// The locals, parameters first; the index of each is its slot.
    slots: Vec<String>,
    slot_of: HashMap<String, usize>,
    /// Names declared `global`.
    declared_global: NameList,
    /// Where the code being built goes.
    at: At,
    state: State,
    loops: Vec<LoopCtx>,
    /// The enclosing `try` statements and the operations they catch.
    exc: exceptions::ExcState,
    diags: Vec<Diagnostic>,
    referenced: Vec<String>,
    /// Whether this is a module's body (see `module_level`).
    module_body: bool,
    /// For a class body: the class's name (see `module_level`).
    class_body: Option<String>,
    /// For a generator's `next` graph (see `generators`).
    generator: Option<generators::GeneratorCtx>,
    /// The locals an `import` inside the function bound to modules, with
    /// the module each names (see `module_level::function_import`).
    local_modules: HashMap<String, String>,
    /// How many times a `while` loop was built again (see `loops`).
    loop_rebuilds: usize,
    /// For a nested function (see `closures`): the enclosing function's
    /// names it reads, from its cells.
    free_names: HashSet<String>,
    /// Whether this function, run at import time, keeps its locals in a
    /// cells object for the functions nested in it (see `closures`).
    keeps_cells: bool,
}

/// Builds the flow graph named `graph` of one function (or module body);
/// a generator function's graphs are those of `generators`.
pub(crate) fn build_function(m: &ModuleCtx, def: &FuncDef, graph: &str) -> Built {
    if !def.module_body && def.class_body.is_none() && generators::is_generator_body(def.body) {
        return generators::build_generator(m, def, graph);
    }
    let params = graph_params(m, def, graph);
    let mut b = FnBuilder::new(m, def, graph, &params);
    b.check_def(def);
    b.start_cells(def);
    b.unpack_tuple_params(def);
    if let Some(result) = def.lambda_result {
        let value = b.expr(result);
        b.do_return(value);
    }
    b.block(def.body);
    if b.live() {
        let result = match def.class_body {
            Some(_) => b.class_namespace(def.body, def.pos),
            None => Arg::Const(Constant::None),
        };
        b.do_return(result);
    }
    b.finish()
}

/// The parameters of `def`'s graph `graph`. A `*args` parameter is the
/// last one, a tuple (see `call_args`). A nested function's import-time
/// graph takes its cells first.
fn graph_params<'d>(m: &ModuleCtx, def: &FuncDef<'d>, graph: &str) -> Vec<&'d str> {
    let is_live = matches!(m.access, GlobalAccess::Live { .. });
    let cells_param =
        (is_live && m.program.enclosing.contains_key(graph)).then_some(closures::CELLS_LOCAL);
    cells_param
        .into_iter()
        .chain(def.params.iter().map(|p| p.name.as_str()))
        .chain(def.star_args)
        .collect()
}

/// A graph that stands for `def`'s graph `graph`, which could not be built
/// because of `diags`: the original builds a function's graph only when the
/// annotator reaches a call of it, so a function no reached call runs
/// (`import threading` in a branch a constant cuts) is no error. Its start
/// block holds one `flow_error` per diagnostic, which the annotator
/// reports when it reaches the graph, then returns None.
pub(crate) fn held_errors_graph(
    m: &ModuleCtx,
    def: &FuncDef,
    graph: &str,
    diags: &[Diagnostic],
) -> FunctionGraph<Flow> {
    let mut g = FunctionGraph::<Flow>::new(graph, &graph_params(m, def, graph), ());
    g.pos = Some(def.pos);
    let start = g.startblock;
    for d in diags {
        let result = g.new_var(None, ());
        let args = std::iter::once(&d.message)
            .chain(&d.notes)
            .map(|text| Arg::Const(Constant::Str(text.clone())))
            .collect();
        g.block_mut(start).operations.push(SpaceOperation {
            opname: Opcode::FlowError,
            args,
            result,
            pos: Some(d.pos),
        });
    }
    let returnblock = g.returnblock;
    g.block_mut(start).exits.push(Link::new(
        vec![Arg::Const(Constant::None)],
        returnblock,
        None,
    ));
    g
}

impl<'m, 'a> FnBuilder<'m, 'a> {
    /// A builder of the graph `graph` taking `params`, whose locals are
    /// the parameters of `def` and the names its body binds; each local
    /// named in `params` starts as that parameter.
    fn new(m: &'m ModuleCtx<'a>, def: &FuncDef, graph: &str, params: &[&str]) -> Self {
        let mut g = FunctionGraph::<Flow>::new(graph, params, ());
        g.pos = Some(def.pos);
        let nvars = g.vars.len();

        let mut slots: Vec<String> = def
            .params
            .iter()
            .map(|p| p.name.clone())
            .chain(def.star_args.map(str::to_string))
            .collect();
        let mut declared_global = NameList::default();
        global_names(def.body, &mut declared_global);
        let mut bound = NameList::default();
        bound_names(def.body, &mut bound);
        if def.module_body {
            for n in m.star_imported_names(def.body) {
                bound.add(&n);
            }
        }
        for pattern in def.params.iter().filter_map(|p| p.unpack.as_ref()) {
            target_names(pattern, &mut bound);
        }
        if m.dialect == Dialect::Py2 {
            comprehension_targets(def.body, &mut bound);
        }
        // The methods a class body's `import_from_mixin` copies are its names.
        if def.class_body.is_some() {
            for s in def.body {
                if let Some(copies) = m.program.mixin_copies.get(&(m.name.clone(), s.pos)) {
                    copies.iter().for_each(|(name, _)| bound.add(name));
                }
            }
        }
        // The closure machinery's hidden local (see `closures`).
        let source = m
            .source_function(graph)
            .unwrap_or_else(|| graph.to_string());
        let is_nested = m.program.enclosing.contains_key(&source);
        let keeps_cells = matches!(m.access, GlobalAccess::Live { .. })
            && m.program.enclosing.values().any(|outer| *outer == source);
        if (is_nested && matches!(m.access, GlobalAccess::Live { .. })) || keeps_cells {
            slots.push(closures::CELLS_LOCAL.to_string());
        }
        let mut is_slot: HashSet<String> = slots.iter().cloned().collect();
        let inner_bound = bound.clone();
        for n in bound.into_vec() {
            if def.module_body {
                // A module body's names are the module's globals.
                declared_global.add(&n);
            } else if !declared_global.contains(&n) && is_slot.insert(n.clone()) {
                slots.push(n);
            }
        }
        let slot_of: HashMap<String, usize> = slots
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i))
            .collect();
        let mut state = State::unassigned(slots.len());
        let start = g.startblock;
        for (name, v) in params.iter().zip(&g.block(start).inputargs) {
            if let Some(&i) = slot_of.get(*name) {
                state.env[i] = Some(Arg::Var(*v));
            }
        }
        let free_names = match m.program.enclosing.get(&source) {
            Some(outer) => enclosing_locals(m, outer)
                .into_iter()
                .filter(|n| {
                    !inner_bound.contains(n)
                        && !declared_global.contains(n)
                        && !def.params.iter().any(|p| p.name == *n)
                        && def.star_args != Some(n.as_str())
                })
                .collect(),
            None => HashSet::new(),
        };
        FnBuilder {
            m,
            g,
            is_bool: vec![false; nvars],
            slots,
            slot_of,
            declared_global,
            at: At::Block(start),
            state,
            loops: Vec::new(),
            exc: Default::default(),
            diags: Vec::new(),
            referenced: Vec::new(),
            module_body: def.module_body,
            class_body: def.class_body.map(str::to_string),
            generator: None,
            local_modules: HashMap::new(),
            loop_rebuilds: 0,
            free_names,
            keeps_cells,
        }
    }
}

impl FnBuilder<'_, '_> {
    // ---- diagnostics -------------------------------------------------------

    fn error(&mut self, pos: Pos, message: impl Into<String>) {
        let d = self.m.diag(pos, message);
        self.diags.push(d);
    }

    fn unsupported(&mut self, pos: Pos, what: &str) {
        self.error(pos, format!("{what} not supported yet (walking skeleton)"));
    }

    fn internal(&mut self, what: &str) {
        let pos = self.g.pos.unwrap_or_default();
        self.error(
            pos,
            format!("internal error in the flow graph builder: {what}"),
        );
    }

    fn check_def(&mut self, def: &FuncDef) {
        for d in def.decorators {
            self.unsupported(d.pos, "decorators are");
        }
        if let Some(k) = def.kwargs {
            self.error(
                def.pos,
                format!(
                    "the **{k} parameter of '{}': '**kwargs' parameters are not supported by RPython",
                    def.name
                ),
            );
        }
        if let Some(p) = def.kwonly.first() {
            self.error(
                p.pos,
                "keyword-only parameters (after '*') are not supported by RPython".to_string(),
            );
        }
    }

    /// Python 2's tuple parameters (`def f((a, b))`, `lambda (k, v): ...`):
    /// the argument unpacked into their names as the function starts, as
    /// CPython's code for them does.
    fn unpack_tuple_params(&mut self, def: &FuncDef) {
        for p in def.params {
            let (Some(pattern), Some(argument)) = (&p.unpack, self.peek_local(&p.name)) else {
                continue;
            };
            self.push(argument);
            self.store(pattern);
            self.pop();
        }
    }

    fn finish(mut self) -> Built {
        let dangling = self.g.blocks.iter().any(|b| {
            b.exits
                .iter()
                .any(|l| l.target == PENDING || l.target.0 as usize >= self.g.blocks.len())
        });
        if dangling {
            self.internal("a link was left without a target");
            return Built {
                graph: None,
                extra_graphs: Vec::new(),
                referenced: self.referenced,
                diags: self.diags,
            };
        }
        self.split_catching_blocks();
        let graph = self.g.canonicalize();
        if let Err(errs) = super::validate::check_graph_well_formed(&graph) {
            for e in errs {
                self.internal(&e);
            }
        }
        Built {
            graph: Some(graph),
            extra_graphs: Vec::new(),
            referenced: self.referenced,
            diags: self.diags,
        }
    }

    // ---- variables, operations and blocks ----------------------------------

    fn new_var(&mut self, name: Option<String>, is_bool: bool) -> Var {
        let v = self.g.new_var(name, ());
        self.is_bool.push(is_bool);
        v
    }

    fn arg_is_bool(&self, a: &Arg) -> bool {
        match a {
            Arg::Var(v) => self.is_bool.get(v.0 as usize).copied().unwrap_or(false),
            Arg::Const(c) => matches!(c, Constant::Bool(_)),
        }
    }

    /// Whether the code being built is reachable.
    fn live(&self) -> bool {
        !matches!(self.at, At::Dead)
    }

    /// The block operations go to. A pending conditional edge gets its block
    /// now. In dead code (which the statement walk never continues into) an
    /// orphan block keeps the builder total.
    fn cur_block(&mut self) -> BlockId {
        match self.at {
            At::Block(b) => b,
            At::Edge(from, exit) => {
                let edge = Edge {
                    from,
                    exit,
                    state: std::mem::take(&mut self.state),
                };
                let template = self.merge(std::slice::from_ref(&edge));
                let jp = self.make_block(template);
                self.resolve(edge, &jp);
                jp.block
            }
            At::Dead => {
                let b = self.g.add_block(Vec::new());
                self.at = At::Block(b);
                b
            }
        }
    }

    /// Appends `result = opname(args)` to the current block.
    fn emit(&mut self, opname: Opcode, args: Vec<Arg>, pos: Pos) -> Var {
        let result = self.emit_without_handlers(opname, args, pos);
        let b = self.cur_block();
        self.note_raising_op(b);
        result
    }

    /// An operation whose exceptions the caller routes itself (a `for`
    /// loop's `next`, whose `StopIteration` ends the loop), so the
    /// enclosing handlers get no exits from it.
    pub(super) fn emit_without_handlers(
        &mut self,
        opname: Opcode,
        args: Vec<Arg>,
        pos: Pos,
    ) -> Var {
        let b = self.cur_block();
        let result = self.new_var(None, BOOL_OPS.contains(&opname));
        self.g.block_mut(b).operations.push(SpaceOperation {
            opname,
            args,
            result,
            pos: Some(pos),
        });
        result
    }

    /// An operation, folded when all its arguments are constants and the
    /// result is exact.
    fn op(&mut self, opname: Opcode, args: Vec<Arg>, pos: Pos) -> Arg {
        let consts: Option<Vec<&Constant>> = args.iter().map(|a| a.as_const()).collect();
        if let Some(c) = consts.and_then(|cs| fold(opname, &cs)) {
            return Arg::Const(c);
        }
        Arg::Var(self.emit(opname, args, pos))
    }

    fn push(&mut self, a: Arg) {
        self.state.stack.push(a);
    }

    /// Gives a pending conditional edge its block. Called before a variable is
    /// read from the state, so that no variable of the edge's source block is
    /// in use when the new block renames them all.
    fn settle(&mut self) {
        if let At::Edge(..) = self.at {
            self.cur_block();
        }
    }

    /// Settles if the state's value stack has a variable on top.
    fn settle_for_top(&mut self) {
        if let Some(Arg::Var(_)) = self.state.stack.last() {
            self.settle();
        }
    }

    fn pop(&mut self) -> Arg {
        self.settle_for_top();
        match self.state.stack.pop() {
            Some(a) => a,
            None => {
                self.internal("the value stack is empty");
                Arg::Const(Constant::None)
            }
        }
    }

    /// Discards the top of the value stack.
    fn drop_top(&mut self) {
        if self.state.stack.pop().is_none() {
            self.internal("the value stack is empty");
        }
    }

    fn top(&mut self) -> Arg {
        self.settle_for_top();
        match self.state.stack.last() {
            Some(a) => a.clone(),
            None => {
                self.internal("the value stack is empty");
                Arg::Const(Constant::None)
            }
        }
    }

    /// Leaves the current point: returns the pending edge that continues from
    /// it (the current block gets an unconditional exit).
    fn close(&mut self) -> Vec<Edge> {
        let state = std::mem::take(&mut self.state);
        match std::mem::replace(&mut self.at, At::Dead) {
            At::Dead => Vec::new(),
            At::Edge(from, exit) => vec![Edge { from, exit, state }],
            At::Block(b) => {
                let exits = &mut self.g.block_mut(b).exits;
                exits.push(Link::new(Vec::new(), PENDING, None));
                let exit = exits.len() - 1;
                vec![Edge {
                    from: b,
                    exit,
                    state,
                }]
            }
        }
    }

    /// Links the current point to the return block.
    fn do_return(&mut self, value: Arg) {
        if self.return_through_finally(&value) {
            return;
        }
        if self.generator_return() {
            return;
        }
        let ret = self.g.returnblock;
        if !self.live() {
            return;
        }
        for e in self.close() {
            if let Some(link) = self.g.block_mut(e.from).exits.get_mut(e.exit) {
                link.target = ret;
                link.args = vec![value.clone()];
            }
        }
    }

    /// Branches on the truth of `a`: returns the (False, True) edges. A constant
    /// folds the branch: one side gets the whole flow, the other none.
    fn branch(&mut self, a: Arg, pos: Pos) -> (Vec<Edge>, Vec<Edge>) {
        if !self.live() {
            return (Vec::new(), Vec::new());
        }
        let a = match &a {
            Arg::Const(c) if truthy(c).is_none() => self.op(Opcode::Bool, vec![a], pos),
            _ => a,
        };
        match a {
            Arg::Const(c) => {
                if truthy(&c) == Some(true) {
                    (Vec::new(), self.close())
                } else {
                    (self.close(), Vec::new())
                }
            }
            Arg::Var(v) => {
                let sw = if self.arg_is_bool(&Arg::Var(v)) {
                    v
                } else {
                    self.emit(Opcode::Bool, vec![Arg::Var(v)], pos)
                };
                let b = self.cur_block();
                self.at = At::Dead;
                let block = self.g.block_mut(b);
                block.exitswitch = Some(Arg::Var(sw));
                for case in [false, true] {
                    block
                        .exits
                        .push(Link::new(Vec::new(), PENDING, Some(Constant::Bool(case))));
                }
                let n = block.exits.len();
                let state = std::mem::take(&mut self.state);
                let f = Edge {
                    from: b,
                    exit: n - 2,
                    state: state.clone(),
                };
                let t = Edge {
                    from: b,
                    exit: n - 1,
                    state,
                };
                (vec![f], vec![t])
            }
        }
    }

    /// Continues at the meeting point of `edges`: reopens the block of a single
    /// unconditional edge, or makes a new block taking every value that is not
    /// the same constant on all edges. No edges: the code that follows is dead.
    fn join(&mut self, mut edges: Vec<Edge>) {
        if self.live() {
            // Callers close the current point first; be total anyway.
            let e = self.close();
            edges.extend(e);
        }
        if edges.len() == 1 {
            let e = edges.pop().expect("one edge");
            let exits = &self.g.block(e.from).exits;
            if e.exit + 1 == exits.len() && exits[e.exit].exitcase.is_none() {
                self.g.block_mut(e.from).exits.pop();
                self.at = At::Block(e.from);
            } else {
                // A conditional edge gets its block when something needs one.
                self.at = At::Edge(e.from, e.exit);
            }
            self.state = e.state;
            return;
        }
        if edges.is_empty() {
            self.at = At::Dead;
            return;
        }
        let template = self.merge(&edges);
        let jp = self.make_block(template);
        for e in edges {
            self.resolve(e, &jp);
        }
    }

    /// The entry state of a block where `edges` meet, with fresh variables.
    fn merge(&mut self, edges: &[Edge]) -> State {
        let nslots = self.slots.len();
        let mut t = State::unassigned(nslots);
        for i in 0..nslots {
            let vals: Vec<Option<&Arg>> = edges
                .iter()
                .map(|e| e.state.env.get(i).and_then(|v| v.as_ref()))
                .collect();
            let any_maybe = edges
                .iter()
                .any(|e| e.state.maybe.get(i).copied().unwrap_or(false));
            if vals.iter().all(|v| v.is_some()) {
                let vals: Vec<&Arg> = vals.into_iter().flatten().collect();
                t.env[i] = Some(self.merge_values(&vals, Some(i)));
            } else {
                t.maybe[i] = any_maybe || vals.iter().any(|v| v.is_some());
            }
        }
        let depth = edges.iter().map(|e| e.state.stack.len()).min().unwrap_or(0);
        if edges.iter().any(|e| e.state.stack.len() != depth) {
            self.internal("paths with different value stacks meet");
        }
        for k in 0..depth {
            let vals: Vec<&Arg> = edges.iter().map(|e| &e.state.stack[k]).collect();
            let v = self.merge_values(&vals, None);
            t.stack.push(v);
        }
        t
    }

    fn merge_values(&mut self, vals: &[&Arg], slot: Option<usize>) -> Arg {
        if let Some(Arg::Const(c)) = vals.first() {
            if vals.iter().all(|v| matches!(v, Arg::Const(d) if d == c)) {
                return Arg::Const(c.clone());
            }
        }
        let is_bool = vals.iter().all(|v| self.arg_is_bool(v));
        let name = slot.map(|i| self.slots[i].clone());
        Arg::Var(self.new_var(name, is_bool))
    }

    /// The entry state of a loop header entered with `entry`: slots the loop
    /// assigns (and the stack entry `counter`) get fresh variables, variables
    /// get fresh variables (they are local to their block), constants stay.
    fn loop_template(&mut self, entry: &State, assigned: &[bool], counter: Option<usize>) -> State {
        let nslots = self.slots.len();
        let mut t = State::unassigned(nslots);
        for i in 0..nslots {
            let assigned_here = assigned.get(i).copied().unwrap_or(false);
            match entry.env.get(i).cloned().flatten() {
                Some(Arg::Const(c)) if !assigned_here => t.env[i] = Some(Arg::Const(c)),
                Some(a) => {
                    let is_bool = !assigned_here && self.arg_is_bool(&a);
                    let name = Some(self.slots[i].clone());
                    t.env[i] = Some(Arg::Var(self.new_var(name, is_bool)));
                }
                None => {
                    t.maybe[i] = entry.maybe.get(i).copied().unwrap_or(false) || assigned_here;
                }
            }
        }
        for (k, a) in entry.stack.iter().enumerate() {
            let v = match a {
                Arg::Const(c) if counter != Some(k) => Arg::Const(c.clone()),
                _ => {
                    let is_bool = counter != Some(k) && self.arg_is_bool(a);
                    Arg::Var(self.new_var(None, is_bool))
                }
            };
            t.stack.push(v);
        }
        t
    }

    /// Makes a block entered in state `template` and continues in it.
    fn make_block(&mut self, template: State) -> JoinPoint {
        let inputargs: Vec<Var> = template
            .env
            .iter()
            .flatten()
            .chain(template.stack.iter())
            .filter_map(|a| a.as_var())
            .collect();
        let block = self.g.add_block(inputargs);
        self.at = At::Block(block);
        self.state = template.clone();
        JoinPoint { block, template }
    }

    /// Links a pending edge to a join point, passing the values it takes.
    fn resolve(&mut self, e: Edge, jp: &JoinPoint) {
        let mut args = Vec::new();
        let mut mismatch = false;
        // The values are borrowed: only those the link passes are copied
        // (a constant the target expects is only compared).
        let pairs = jp
            .template
            .env
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                t.as_ref()
                    .map(|t| (t, e.state.env.get(i).and_then(Option::as_ref)))
            })
            .chain(
                jp.template
                    .stack
                    .iter()
                    .enumerate()
                    .map(|(k, t)| (t, e.state.stack.get(k))),
            );
        for (t, have) in pairs {
            match t {
                Arg::Var(_) => args.push(match have {
                    Some(h) => h.clone(),
                    None => {
                        mismatch = true;
                        Arg::Const(Constant::None)
                    }
                }),
                Arg::Const(c) => {
                    if have.and_then(|h| h.as_const()) != Some(c) {
                        mismatch = true;
                    }
                }
            }
        }
        if mismatch {
            self.internal("a link does not provide the values its target block expects");
        }
        if let Some(link) = self.g.block_mut(e.from).exits.get_mut(e.exit) {
            link.target = jp.block;
            link.args = args;
        }
    }

    // ---- names ---------------------------------------------------------------

    fn is_local(&self, name: &str) -> bool {
        self.slot_of.contains_key(name)
    }

    /// Whether `name` means the builtin of that name here.
    fn is_builtin_visible(&self, name: &str) -> bool {
        !self.is_local(name) && !self.is_module_global(name)
    }

    /// The value of an assigned local, read without settling a pending edge
    /// (for passing it straight on a link).
    fn peek_local(&self, name: &str) -> Option<Arg> {
        let &i = self.slot_of.get(name)?;
        self.state.env.get(i).cloned().flatten()
    }

    fn load_name(&mut self, name: &str, pos: Pos) -> Arg {
        if let Some(&i) = self.slot_of.get(name) {
            if let Some(Arg::Var(_)) = self.state.env.get(i).cloned().flatten() {
                self.settle();
            }
            if let Some(a) = self.state.env.get(i).cloned().flatten() {
                return a;
            }
            if self.state.maybe.get(i).copied().unwrap_or(false) {
                self.error(
                    pos,
                    format!("local variable '{name}' might be used before assignment"),
                );
            } else {
                self.error(
                    pos,
                    format!("local variable '{name}' is referenced before assignment"),
                );
            }
            return Arg::Const(Constant::None);
        }
        if self.free_names.contains(name) {
            return self.load_free(name, pos);
        }
        if let Some(a) = self.load_global(name, pos) {
            return a;
        }
        if let Some(class) = self.builtin_class(name) {
            return class;
        }
        if BUILTINS.contains(&name) {
            return Arg::Const(Constant::Builtin(name.to_string()));
        }
        if name == "xrange" && self.m.dialect == Dialect::Py2 {
            return Arg::Const(Constant::Builtin(name.to_string()));
        }
        if IMPORT_TIME_BUILTINS.contains(&name)
            && matches!(self.m.access, GlobalAccess::Live { .. })
        {
            return Arg::Const(Constant::Builtin(name.to_string()));
        }
        if name == "print" {
            self.error(
                pos,
                "print can only be called directly (`print(...)`) in this stage",
            );
        } else if name == "super" {
            self.error(
                pos,
                "super() cannot be translated: RPython resolves methods by class; call the base class's method directly, as Base.method(self, ...)",
            );
        } else if let GlobalAccess::Live {
            module,
            names_by_globals: true,
            ..
        } = &self.m.access
        {
            let args = vec![
                Arg::Const(module.clone()),
                Arg::Const(Constant::Name(name.to_string())),
            ];
            return Arg::Var(self.emit(Opcode::Getattr, args, pos));
        } else if NOT_RPYTHON_BUILTINS.contains(&name) {
            self.error(
                pos,
                format!("the builtin '{name}' is not RPython: a translated function cannot call it (code at module level can, at import time)"),
            );
        } else if LATER_BUILTINS.contains(&name) {
            self.error(
                pos,
                format!("the builtin '{name}' is not supported in translated functions yet"),
            );
        } else {
            self.error(pos, format!("name '{name}' is not defined"));
        }
        Arg::Const(Constant::None)
    }

    fn store_name(&mut self, name: &str, value: Arg, pos: Pos) {
        if self.declared_global.contains(name) {
            if self.live() {
                self.store_global(name, value, pos);
            }
            return;
        }
        let Some(&i) = self.slot_of.get(name) else {
            self.internal(&format!(
                "'{name}' is assigned but was not found as a local"
            ));
            return;
        };
        if let Arg::Var(v) = value {
            let data = &mut self.g.vars[v.0 as usize];
            if data.name.is_none() {
                data.name = Some(name.to_string());
            }
        }
        if self.live() {
            self.state.env[i] = Some(value);
            self.state.maybe[i] = false;
            if self.keeps_cells && name != closures::CELLS_LOCAL {
                self.store_cell(name, pos);
            }
        }
    }

    // ---- statements ----------------------------------------------------------

    fn block(&mut self, stmts: &[Stmt]) {
        let edges = self.block_edges(stmts);
        self.join(edges);
    }

    /// Runs `stmts` from `edges`; returns the edges leaving its end. Bodies that
    /// do nothing pass the edges through without a block of their own.
    fn branch_body(&mut self, edges: Vec<Edge>, stmts: &[Stmt]) -> Vec<Edge> {
        if stmts.iter().all(|s| matches!(s.kind, StmtKind::Pass)) {
            return edges;
        }
        self.join(edges);
        self.block_edges(stmts)
    }

    fn stmt(&mut self, s: &Stmt) {
        let pos = s.pos;
        match &s.kind {
            StmtKind::Pass | StmtKind::Global(_) => {}
            StmtKind::Expr(_) if super::imported_mixin(s).is_some() => self.import_from_mixin(s),
            StmtKind::Expr(e) => {
                self.expr(e);
            }
            StmtKind::Return(_) if self.class_body.is_some() => {
                self.error(
                    pos,
                    "'return' outside function: a class body is not a function",
                );
            }
            StmtKind::Return(Some(v)) if self.generator.is_some() => {
                self.error(
                    v.pos,
                    "a generator cannot return a value in RPython; end it with a bare 'return'",
                );
            }
            StmtKind::Return(v) => {
                let a = match v {
                    // `return x` right after a branch links the branch itself
                    // to the return block, without a block of its own.
                    Some(Expr {
                        kind: ExprKind::Name(n),
                        ..
                    }) if self.peek_local(n).is_some() => {
                        self.peek_local(n).unwrap_or(Arg::Const(Constant::None))
                    }
                    Some(e) => self.expr(e),
                    None => Arg::Const(Constant::None),
                };
                self.do_return(a);
            }
            StmtKind::Assign { targets, value } => {
                if self.assign_display_to_targets(targets, value) {
                    return;
                }
                let v = self.expr(value);
                self.push(v);
                for t in targets {
                    self.store(t);
                }
                self.drop_top();
            }
            StmtKind::AugAssign { target, op, value } => self.aug_assign(target, *op, value, pos),
            // The translator imports the program, so `__name__` is never
            // '__main__' there: only the else branch can run.
            StmtKind::If { test, orelse, .. } if self.module_body && super::is_main_guard(test) => {
                self.block(orelse)
            }
            StmtKind::If { test, body, orelse } => {
                let (f, t) = self.cond(test);
                let mut out = self.branch_body(t, body);
                out.extend(self.branch_body(f, orelse));
                self.join(out);
            }
            StmtKind::While { test, body, orelse } => self.while_loop(test, body, orelse),
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => self.for_loop(target, iter, body, orelse, pos),
            StmtKind::Break => {
                if self.loops.is_empty() {
                    self.error(pos, "'break' outside loop");
                    return;
                }
                if self.jump_through_finally(true) {
                    return;
                }
                let mut edges = self.close();
                if let Some(l) = self.loops.last_mut() {
                    for e in &mut edges {
                        e.state.stack.truncate(l.base_depth);
                    }
                    l.breaks.extend(edges);
                }
            }
            StmtKind::Continue => {
                let Some(header) = self.loops.last().map(|l| l.header.clone()) else {
                    self.error(pos, "'continue' not properly in loop");
                    return;
                };
                if self.jump_through_finally(false) {
                    return;
                }
                let mut edges = self.close();
                let loop_ctx = self.loops.last_mut();
                match loop_ctx.and_then(|l| Some(l.base_depth).zip(l.continues.as_mut())) {
                    Some((depth, continues)) => {
                        // What an `except` body holds stays behind.
                        for e in &mut edges {
                            e.state.stack.truncate(depth);
                        }
                        continues.extend(edges)
                    }
                    None => {
                        for e in edges {
                            self.resolve(e, &header);
                        }
                    }
                }
            }
            StmtKind::Print { values, newline } => {
                if !newline {
                    self.error(
                        pos,
                        "print with a trailing comma is not supported yet (walking skeleton): Python 2's softspace behaviour is not modelled",
                    );
                }
                self.print(values, " ", if *newline { "\n" } else { "" }, true, pos);
            }
            StmtKind::FunctionDef { .. } => self.def_stmt(s),
            StmtKind::ClassDef { .. } => self.class_stmt(s),
            StmtKind::Import(_) | StmtKind::ImportFrom { .. } => self.import_stmt(s),
            StmtKind::Assert { test, msg } => self.assert_stmt(test, msg.as_ref(), pos),
            StmtKind::Raise { exc, arg, tb, .. } => {
                self.raise_stmt(exc.as_ref(), arg.as_ref(), tb.as_ref(), pos)
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => self.try_stmt(body, handlers, orelse, finalbody),
            StmtKind::Del(targets) => {
                for t in targets {
                    if self.live() {
                        self.del_target(t);
                    }
                }
            }
            StmtKind::With { items, body } => self.with_stmt(items, body, pos),
            StmtKind::Exec { .. } => self.error(
                pos,
                "'exec' cannot be translated: RPython has no run-time code evaluation".to_string(),
            ),
            StmtKind::PrintTo { .. } => self.error(
                pos,
                "'print >>file, ...' is not supported; write to the file with os.write".to_string(),
            ),
            StmtKind::Nonlocal(_) => {
                self.error(pos, "'nonlocal' is not supported by RPython".to_string())
            }
        }
    }

    /// Assigns the value on top of the stack to `target` (leaving it there).
    fn store(&mut self, target: &Expr) {
        let pos = target.pos;
        match &target.kind {
            ExprKind::Name(n) => {
                let v = self.top();
                self.store_name(n, v, pos);
            }
            ExprKind::Subscript { value, index } => {
                if let Some(module) = self.globals_dict(value) {
                    let name = self.expr(index);
                    let v = self.top();
                    self.emit(Opcode::Setattr, vec![module, name, v], pos);
                    return;
                }
                let [obj, idx] = self.exprs([value.as_ref(), index.as_ref()]);
                let v = self.top();
                self.emit(Opcode::Setitem, vec![obj, idx, v], pos);
            }
            ExprKind::Attribute { value, attr } => {
                let obj = self.expr(value);
                if let Arg::Const(Constant::Class(class)) = &obj {
                    if matches!(self.m.access, GlobalAccess::Constants) {
                        let class = class.rsplit('.').next().unwrap_or(class);
                        let message = format!(
                            "cannot assign to the class attribute '{attr}' of '{class}' in translated code: classes are constants once the program is imported; keep the changing value on a prebuilt instance"
                        );
                        self.error(pos, message);
                        return;
                    }
                }
                let v = self.top();
                self.emit(
                    Opcode::Setattr,
                    vec![obj, Arg::Const(Constant::Name(attr.clone())), v],
                    pos,
                );
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => self.store_unpack(items, pos),
            ExprKind::Slice {
                value,
                lower,
                upper,
            } => {
                let [obj, lo, hi] = self.slice_operands(value, lower.as_deref(), upper.as_deref());
                let v = self.top();
                self.emit(Opcode::Setslice, vec![obj, lo, hi, v], pos);
            }
            _ => self.error(pos, "cannot assign to this expression"),
        }
    }

    fn aug_assign(&mut self, target: &Expr, op: BinOp, value: &Expr, pos: Pos) {
        let opname = binop_name(op, self.m.dialect);
        match &target.kind {
            ExprKind::Name(n) => {
                let old = self.load_name(n, target.pos);
                self.push(old);
                let rhs = self.expr(value);
                let old = self.pop();
                let new = self.op(opname, vec![old, rhs], pos);
                self.store_name(n, new, target.pos);
            }
            ExprKind::Subscript { value: obj, index } => {
                let [o, i] = self.exprs([obj.as_ref(), index.as_ref()]);
                let old = self.op(Opcode::Getitem, vec![o.clone(), i.clone()], target.pos);
                self.push(o);
                self.push(i);
                self.push(old);
                let rhs = self.expr(value);
                let old = self.pop();
                let i = self.pop();
                let o = self.pop();
                let new = self.op(opname, vec![old, rhs], pos);
                self.emit(Opcode::Setitem, vec![o, i, new], pos);
            }
            ExprKind::Attribute { value: obj, attr } => {
                let o = self.expr(obj);
                let name = Arg::Const(Constant::Name(attr.clone()));
                let old = self.op(Opcode::Getattr, vec![o.clone(), name.clone()], target.pos);
                self.push(o);
                self.push(old);
                let rhs = self.expr(value);
                let old = self.pop();
                let o = self.pop();
                let new = self.op(opname, vec![old, rhs], pos);
                self.emit(Opcode::Setattr, vec![o, name, new], pos);
            }
            _ => self.error(target.pos, "cannot assign to this expression"),
        }
    }

    /// The names assigned in a loop body, as a mask over the slots.
    fn assigned_mask(&self, body: &[Stmt], extra: Option<&str>) -> Vec<bool> {
        let mut names = NameList::default();
        bound_names(body, &mut names);
        if self.m.dialect == Dialect::Py2 {
            comprehension_targets(body, &mut names);
        }
        let mut mask = vec![false; self.slots.len()];
        for n in names.iter().map(|n| n.as_str()).chain(extra) {
            if let Some(&i) = self.slot_of.get(n) {
                mask[i] = true;
            }
        }
        mask
    }

    /// Closes the current block into a new loop header and continues there.
    fn enter_loop(&mut self, assigned: &[bool], counter: Option<usize>) -> JoinPoint {
        let entry = self.close();
        let entry_state = match entry.first() {
            Some(e) => e.state.clone(),
            None => State::unassigned(self.slots.len()),
        };
        let template = self.loop_template(&entry_state, assigned, counter);
        let jp = self.make_block(template);
        for e in entry {
            self.resolve(e, &jp);
        }
        jp
    }

    fn while_loop(&mut self, test: &Expr, body: &[Stmt], orelse: &[Stmt]) {
        if self.wants_loop_fixpoint() {
            return self.while_fixpoint(test, body, orelse);
        }
        self.while_with_template(test, body, orelse);
    }

    /// A `while` loop whose header is `loop_template`'s.
    fn while_with_template(&mut self, test: &Expr, body: &[Stmt], orelse: &[Stmt]) {
        let assigned = self.assigned_mask(body, None);
        let header = self.enter_loop(&assigned, None);
        let base_depth = self.state.stack.len();
        let (f, t) = self.cond(test);
        self.loops.push(LoopCtx {
            header: header.clone(),
            base_depth,
            breaks: Vec::new(),
            continues: None,
        });
        self.join(t);
        self.block(body);
        for e in self.close() {
            self.resolve(e, &header);
        }
        let ctx = self.loops.pop();
        let mut out = self.branch_body(f, orelse);
        out.extend(ctx.map(|c| c.breaks).unwrap_or_default());
        self.join(out);
    }

    fn for_loop(&mut self, target: &Expr, iter: &Expr, body: &[Stmt], orelse: &[Stmt], pos: Pos) {
        let ExprKind::Call {
            func,
            args,
            keywords,
            star_args,
            kwargs: None,
        } = &iter.kind
        else {
            return self.iter_loop(target, iter, body, orelse, pos);
        };
        let range_name = match &func.kind {
            ExprKind::Name(n)
                if (n == "range" || (n == "xrange" && self.m.dialect == Dialect::Py2))
                    && self.is_builtin_visible(n) =>
            {
                n.clone()
            }
            _ => return self.iter_loop(target, iter, body, orelse, pos),
        };
        // A range loop with one loop variable counts; any other iterates.
        let ExprKind::Name(var_name) = &target.kind else {
            return self.iter_loop(target, iter, body, orelse, pos);
        };
        if let Some(k) = keywords.first() {
            return self.error(
                k.value.pos,
                format!("{range_name}() does not take keyword arguments"),
            );
        }
        if let Some(s) = star_args {
            return self.unsupported(s.pos, "calls with *args are");
        }
        if args.is_empty() || args.len() > 3 {
            return self.error(
                iter.pos,
                format!(
                    "{range_name}() takes from 1 to 3 arguments but {} were given",
                    args.len()
                ),
            );
        }
        let vals = self.expr_list(args);
        let (start, stop, step) = match vals.as_slice() {
            [stop] => (Arg::Const(Constant::Int(0)), stop.clone(), None),
            [start, stop] => (start.clone(), stop.clone(), None),
            [start, stop, step] => (start.clone(), stop.clone(), Some(step.clone())),
            _ => return,
        };
        let step = match step {
            None => 1,
            Some(Arg::Const(Constant::Int(0))) => {
                return self.error(args[2].pos, format!("{range_name}() step must not be zero"));
            }
            Some(Arg::Const(Constant::Int(s))) => s,
            // A step known only at run time: the loop cannot know which
            // way to compare, so it iterates the range object, as the
            // original's variable-step range does (its ValueError for a
            // zero step included).
            Some(step @ Arg::Var(_)) => {
                let range = Arg::Const(Constant::Builtin(range_name));
                let seq = self.op(Opcode::SimpleCall, vec![range, start, stop, step], iter.pos);
                return self.iter_loop_over(seq, target, iter.pos, body, orelse, pos);
            }
            Some(_) => {
                return self.error(args[2].pos, "range() step must be an integer in RPython");
            }
        };

        let base_depth = self.state.stack.len();
        self.push(stop);
        self.push(start);
        let assigned = self.assigned_mask(body, Some(var_name));
        let header = self.enter_loop(&assigned, Some(base_depth + 1));
        let counter = self.state.stack.get(base_depth + 1).cloned();
        let bound = self.state.stack.get(base_depth).cloned();
        let (Some(counter), Some(bound)) = (counter, bound) else {
            return self.internal("the for loop's counter is missing");
        };
        let cmp = if step > 0 { Opcode::Lt } else { Opcode::Gt };
        let c = self.op(cmp, vec![counter, bound], iter.pos);
        let (mut f, t) = self.branch(c, iter.pos);
        self.loops.push(LoopCtx {
            header: header.clone(),
            base_depth,
            breaks: Vec::new(),
            continues: None,
        });
        self.join(t);
        if self.live() {
            self.settle();
            let i = self.state.stack[base_depth + 1].clone();
            self.store_name(var_name, i.clone(), target.pos);
            let next = self.op(Opcode::Add, vec![i, Arg::Const(Constant::Int(step))], pos);
            self.state.stack[base_depth + 1] = next;
            self.block(body);
        }
        for e in self.close() {
            self.resolve(e, &header);
        }
        let ctx = self.loops.pop();
        for e in &mut f {
            e.state.stack.truncate(base_depth);
        }
        let mut out = self.branch_body(f, orelse);
        out.extend(ctx.map(|c| c.breaks).unwrap_or_default());
        self.join(out);
    }

    /// `getattr(obj, name)` where `name` is a string known while building
    /// (a literal, or made of an unrolled loop's constants): the attribute
    /// read `obj.name`, as the original's flow space folds it. A name known
    /// only at run time is not RPython. `None` for other calls.
    fn constant_getattr(
        &mut self,
        func: &Expr,
        args: &[Expr],
        keywords: &[Keyword],
    ) -> Option<Arg> {
        let ExprKind::Name(n) = &func.kind else {
            return None;
        };
        if n != "getattr" || !self.is_builtin_visible(n) || args.len() != 2 || !keywords.is_empty()
        {
            return None;
        }
        let [obj, name] = self.exprs([&args[0], &args[1]]);
        match name {
            Arg::Const(Constant::Str(attr)) => Some(self.op(
                Opcode::Getattr,
                vec![obj, Arg::Const(Constant::Name(attr))],
                func.pos,
            )),
            _ => {
                self.error(
                    args[1].pos,
                    "getattr() with an attribute name known only at run time is not RPython; the name must be a constant string (a literal, or built from the items of an unrolling_iterable loop)",
                );
                Some(Arg::Const(Constant::None))
            }
        }
    }

    /// `print`: each value, separated by `sep`, then `end`. With `py2`, values
    /// are printed as they are evaluated and a separator is left out after a
    /// constant string ending in a whitespace other than space (Python 2's
    /// softspace rule); otherwise all values are evaluated first.
    fn print(&mut self, values: &[Expr], sep: &str, end: &str, py2: bool, pos: Pos) {
        let item = |b: &mut Self, a: Arg, p: Pos| {
            b.emit(Opcode::PrintItem, vec![a], p);
        };
        let text = |s: &str| Arg::Const(Constant::Str(s.to_string()));
        if py2 {
            let mut softspace = false;
            for v in values {
                let a = self.expr(v);
                if softspace && !sep.is_empty() {
                    item(self, text(sep), v.pos);
                }
                softspace = match &a {
                    Arg::Const(Constant::Str(s)) => match s.chars().last() {
                        Some(c) => !c.is_ascii_whitespace() || c == ' ',
                        None => true,
                    },
                    _ => true,
                };
                item(self, a, v.pos);
            }
        } else {
            let vals = self.expr_list(values);
            for (k, (a, v)) in vals.into_iter().zip(values).enumerate() {
                if k > 0 && !sep.is_empty() {
                    item(self, text(sep), v.pos);
                }
                item(self, a, v.pos);
            }
        }
        if !end.is_empty() {
            item(self, text(end), pos);
        }
    }

    // ---- expressions ---------------------------------------------------------

    /// Evaluates expressions left to right, keeping earlier values on the stack
    /// while later ones are evaluated.
    fn expr_list(&mut self, es: &[Expr]) -> Vec<Arg> {
        for e in es {
            let a = self.expr(e);
            self.push(a);
        }
        self.pop_many(es.len())
    }

    fn exprs<const N: usize>(&mut self, es: [&Expr; N]) -> [Arg; N] {
        for e in es {
            let a = self.expr(e);
            self.push(a);
        }
        let mut out: [Arg; N] = std::array::from_fn(|_| Arg::Const(Constant::None));
        for slot in out.iter_mut().rev() {
            *slot = self.pop();
        }
        out
    }

    fn expr(&mut self, e: &Expr) -> Arg {
        let pos = e.pos;
        match &e.kind {
            ExprKind::Name(n) => self.load_name(n, pos),
            ExprKind::Int(i) => Arg::Const(Constant::Int(*i)),
            ExprKind::Float(f) => Arg::Const(Constant::Float(*f)),
            ExprKind::Str(s) => Arg::Const(Constant::Str(s.clone())),
            ExprKind::Bool(b) => Arg::Const(Constant::Bool(*b)),
            ExprKind::None => Arg::Const(Constant::None),
            ExprKind::BinOp { op, left, right } => {
                let [l, r] = self.exprs([left.as_ref(), right.as_ref()]);
                self.op(binop_name(*op, self.m.dialect), vec![l, r], pos)
            }
            ExprKind::UnaryOp { op, operand } => {
                let a = self.expr(operand);
                let name = match op {
                    UnaryOp::Neg => Opcode::Neg,
                    UnaryOp::Pos => Opcode::Pos,
                    UnaryOp::Invert => Opcode::Invert,
                    UnaryOp::Not => Opcode::Not,
                };
                self.op(name, vec![a], pos)
            }
            ExprKind::BoolOp { op, values } => self.boolop_value(*op, values),
            ExprKind::Compare { left, ops } => self.compare_value(left, ops),
            ExprKind::IfExp { test, body, orelse } => {
                let (f, t) = self.cond(test);
                self.join(t);
                let mut out = Vec::new();
                if self.live() {
                    let a = self.expr(body);
                    self.push(a);
                    out.extend(self.close());
                }
                self.join(f);
                if self.live() {
                    let a = self.expr(orelse);
                    self.push(a);
                    out.extend(self.close());
                }
                self.join(out);
                self.pop()
            }
            ExprKind::Call {
                func,
                args,
                keywords,
                star_args,
                kwargs,
            } => {
                if let Some(k) = kwargs {
                    self.error(k.pos, "'**' arguments are not supported by RPython");
                    return Arg::Const(Constant::None);
                }
                self.call(e, func, args, keywords, star_args.as_deref())
            }
            ExprKind::Attribute { value, attr } => {
                if let Some(a) = self.module_attribute(value, attr, pos) {
                    return a;
                }
                let obj = self.expr(value);
                if let Some(c) = self.class_attribute(&obj, attr) {
                    return Arg::Const(c);
                }
                self.op(
                    Opcode::Getattr,
                    vec![obj, Arg::Const(Constant::Name(attr.clone()))],
                    pos,
                )
            }
            ExprKind::Subscript { value, index } => self.subscript(value, index, pos),
            ExprKind::Slice {
                value,
                lower,
                upper,
            } => self.slice(value, lower.as_deref(), upper.as_deref(), pos),
            ExprKind::Tuple(items) => self.tuple_display(items, pos),
            ExprKind::List(items) => self.list_display(items, pos),
            ExprKind::Dict(entries) => self.dict_display(entries, pos),
            ExprKind::ListComp { elt, generators } => self.list_comp(elt, generators, pos),
            ExprKind::Lambda { params, .. } => self.lambda(params, pos),
            // A literal beyond a signed word but within an unsigned one (a
            // hash constant, a mask) is an unsigned word, as RPython's
            // `r_uint` reads it.
            ExprKind::BigInt(digits) => match digits.parse::<u64>() {
                Ok(u) => Arg::Const(Constant::UInt(u)),
                Err(_) => self.rejected(pos, "integer literal too large for a machine word"),
            },
            ExprKind::WideStr(s) => {
                let c = s.chars().find(|&c| c as u32 >= 0x100).unwrap_or('\u{fffd}');
                self.rejected(
                    pos,
                    &format!(
                        "string literal contains the character '{}' (U+{:04X}); rpy strings only hold characters below U+0100",
                        c, c as u32
                    ),
                )
            }
            ExprKind::Yield(value) => self.yield_expr(value.as_deref(), pos),
            ExprKind::YieldFrom(_) => self.rejected(
                pos,
                "'yield from' cannot be translated; loop over the inner generator and yield each item",
            ),
            ExprKind::Set(_) | ExprKind::SetComp { .. } => {
                self.rejected(pos, "sets are not supported by RPython; use a dict")
            }
            ExprKind::DictComp { .. } => self.rejected(
                pos,
                "dict comprehensions are not supported by RPython; fill the dict in a for loop",
            ),
            ExprKind::GeneratorExp { .. } => self.rejected(
                pos,
                "generator expressions are not supported; use a list comprehension [...]",
            ),
            ExprKind::Repr(_) => self.rejected(pos, "backquotes are not supported; use repr(...)"),
            ExprKind::Ellipsis => {
                self.rejected(pos, "'...' (Ellipsis) is not supported by RPython")
            }
            ExprKind::SliceItem { step: Some(_), .. } => {
                self.rejected(pos, "slices with a step are not supported by RPython")
            }
            ExprKind::SliceItem { .. } => {
                self.rejected(pos, "multi-dimensional slices are not supported by RPython")
            }
            ExprKind::Starred(_) => self.rejected(
                pos,
                "starred expressions ('*x') are not supported by RPython",
            ),
        }
    }

    /// Reports an expression RPython cannot translate; its value is a placeholder.
    fn rejected(&mut self, pos: Pos, msg: &str) -> Arg {
        self.error(pos, msg.to_string());
        Arg::Const(Constant::None)
    }

    /// `a and b` / `a or b` as a value: the deciding operand.
    fn boolop_value(&mut self, op: BoolOp, values: &[Expr]) -> Arg {
        let mut done = Vec::new();
        for (k, v) in values.iter().enumerate() {
            if !self.live() {
                break;
            }
            let a = self.expr(v);
            self.push(a.clone());
            if k + 1 == values.len() {
                done.extend(self.close());
                break;
            }
            let (f, t) = self.branch(a, v.pos);
            let (decided, go_on) = match op {
                BoolOp::And => (f, t),
                BoolOp::Or => (t, f),
            };
            done.extend(decided);
            self.join(go_on);
            if self.live() {
                self.drop_top();
            }
        }
        self.join(done);
        self.pop()
    }

    /// The operation(s) of one comparison `l op r`.
    fn compare_op(&mut self, op: CmpOp, l: Arg, r: Arg, pos: Pos) -> Arg {
        match op {
            CmpOp::Lt => self.op(Opcode::Lt, vec![l, r], pos),
            CmpOp::Le => self.op(Opcode::Le, vec![l, r], pos),
            CmpOp::Eq => self.op(Opcode::Eq, vec![l, r], pos),
            CmpOp::Ne => self.op(Opcode::Ne, vec![l, r], pos),
            CmpOp::Gt => self.op(Opcode::Gt, vec![l, r], pos),
            CmpOp::Ge => self.op(Opcode::Ge, vec![l, r], pos),
            CmpOp::Is => self.op(Opcode::Is, vec![l, r], pos),
            CmpOp::IsNot => {
                let a = self.op(Opcode::Is, vec![l, r], pos);
                self.op(Opcode::Not, vec![a], pos)
            }
            CmpOp::In => self.op(Opcode::Contains, vec![r, l], pos),
            CmpOp::NotIn => {
                let a = self.op(Opcode::Contains, vec![r, l], pos);
                self.op(Opcode::Not, vec![a], pos)
            }
        }
    }

    /// A (possibly chained) comparison as a value.
    fn compare_value(&mut self, left: &Expr, ops: &[(CmpOp, Expr)]) -> Arg {
        let mut l = self.expr(left);
        let mut lpos = left.pos;
        let mut done = Vec::new();
        for (k, (op, right)) in ops.iter().enumerate() {
            if !self.live() {
                break;
            }
            self.push(l);
            let r = self.expr(right);
            let l0 = self.pop();
            let res = self.compare_op(*op, l0, r.clone(), lpos);
            lpos = right.pos;
            if k + 1 == ops.len() {
                self.push(res);
                done.extend(self.close());
                break;
            }
            self.push(r);
            let (mut f, t) = self.branch(res.clone(), lpos);
            for e in &mut f {
                e.state.stack.pop();
                e.state.stack.push(res.clone());
            }
            done.extend(f);
            self.join(t);
            l = if self.live() {
                self.pop()
            } else {
                Arg::Const(Constant::None)
            };
        }
        self.join(done);
        self.pop()
    }

    /// Evaluates `e` as a branch condition: returns the (False, True) edges.
    /// `not`, `and`, `or` and chained comparisons become jumps, as CPython
    /// compiles them, without materializing their value.
    fn cond(&mut self, e: &Expr) -> (Vec<Edge>, Vec<Edge>) {
        match &e.kind {
            ExprKind::UnaryOp {
                op: UnaryOp::Not,
                operand,
            } => {
                let (f, t) = self.cond(operand);
                (t, f)
            }
            ExprKind::BoolOp { op, values } => {
                let mut decided = Vec::new();
                let mut last = (Vec::new(), Vec::new());
                for (k, v) in values.iter().enumerate() {
                    if !self.live() {
                        break;
                    }
                    let (f, t) = self.cond(v);
                    if k + 1 == values.len() {
                        last = (f, t);
                        break;
                    }
                    let (d, go_on) = match op {
                        BoolOp::And => (f, t),
                        BoolOp::Or => (t, f),
                    };
                    decided.extend(d);
                    self.join(go_on);
                }
                let (mut f, mut t) = last;
                match op {
                    BoolOp::And => f.extend(decided),
                    BoolOp::Or => t.extend(decided),
                }
                (f, t)
            }
            ExprKind::Compare { left, ops } if ops.len() > 1 => {
                let mut l = self.expr(left);
                let mut lpos = left.pos;
                let mut fs = Vec::new();
                for (k, (op, right)) in ops.iter().enumerate() {
                    if !self.live() {
                        break;
                    }
                    self.push(l);
                    let r = self.expr(right);
                    let l0 = self.pop();
                    let res = self.compare_op(*op, l0, r.clone(), lpos);
                    lpos = right.pos;
                    if k + 1 == ops.len() {
                        let (f, t) = self.branch(res, lpos);
                        fs.extend(f);
                        return (fs, t);
                    }
                    self.push(r);
                    let (mut f, t) = self.branch(res, lpos);
                    for e in &mut f {
                        e.state.stack.pop();
                    }
                    fs.extend(f);
                    self.join(t);
                    l = if self.live() {
                        self.pop()
                    } else {
                        Arg::Const(Constant::None)
                    };
                }
                (fs, Vec::new())
            }
            _ => {
                let a = self.expr(e);
                self.branch(a, e.pos)
            }
        }
    }

    fn call(
        &mut self,
        e: &Expr,
        func: &Expr,
        args: &[Expr],
        keywords: &[Keyword],
        star_args: Option<&Expr>,
    ) -> Arg {
        if let ExprKind::Name(n) = &func.kind {
            if n == "print" && self.is_builtin_visible(n) {
                return self.print_call(e, args, keywords, star_args);
            }
        }
        if let Some(attribute) = self.constant_getattr(func, args, keywords) {
            return attribute;
        }
        if let Some(marker) = self.jit_marker_call(func, args, keywords, e.pos) {
            return marker;
        }
        self.check_generator_resumption(func);
        let before = self.diags.len();
        let f = self.expr(func);
        let func_ok = self.diags.len() == before;
        let signature = self.signature(func, &f);
        // `hint(x, promote=True)`: the keywords tell the JIT what to do with
        // the value and mean nothing to the program. Each must be a literal
        // (the JIT reads it before the program runs); `promote=True` makes
        // the call `promote(x)`, the others are dropped.
        let (f, keywords) = match &f {
            Arg::Const(Constant::Builtin(name))
                if signature.is_none() && super::rlib::takes_hint_keywords(name) =>
            {
                let mut promote = false;
                for k in keywords {
                    match &k.value.kind {
                        ExprKind::Bool(b) if k.name == "promote" => promote |= *b,
                        ExprKind::Bool(_) | ExprKind::Int(_) | ExprKind::Str(_) | ExprKind::None => {}
                        _ => self.error(
                            k.value.pos,
                            format!(
                                "the hint '{}' of {name}() must be a literal (True, a number or a string): the JIT reads it before the program runs",
                                k.name
                            ),
                        ),
                    }
                }
                let callee = if promote {
                    Arg::Const(Constant::Builtin("promote".into()))
                } else {
                    f
                };
                (callee, &[][..])
            }
            _ => (f, keywords),
        };
        if signature.is_none() {
            if let Some(k) = keywords.first() {
                self.error(
                    k.value.pos,
                    "keyword arguments need a callee known before the program runs (a function, class or method of the program); pass the arguments by position",
                );
            }
        }
        let (f, vals, star, keyword_vals) = self.call_operands(f, args, star_args, keywords);
        // `obj.name(...)` may call a builtin type's method of the same name
        // as the program's: without keywords, only leaving out parameters
        // that have defaults makes it the program's method, and not when a
        // builtin type has a method of that name (`l.pop()`).
        let method_name = match &func.kind {
            ExprKind::Attribute { attr, .. } if f.as_var().is_some() => Some(attr.as_str()),
            _ => None,
        };
        let may_be_builtin =
            method_name.is_some_and(crate::language::builtins::is_builtin_method_name);
        let bind = signature.as_ref().filter(|sig| {
            !keywords.is_empty()
                || method_name.is_none()
                || sig.star
                || star.is_some()
                || (!may_be_builtin
                    && vals.len() < sig.params.len()
                    && sig.params[vals.len()..].iter().all(|p| p.default.is_some()))
        });
        let vals = match bind {
            Some(sig) => self.bind_arguments(sig, &f, vals, star, keywords, keyword_vals, e.pos),
            None if star.is_some() => {
                let (_, pos) = star.unwrap_or((Arg::Const(Constant::None), e.pos));
                self.error(
                    pos,
                    "'*' in a call needs a tuple whose items are known here (a tuple display or a prebuilt tuple) or a callee of the program whose *args parameter takes it",
                );
                vals
            }
            None => {
                if let (Arg::Const(c), true) = (&f, func_ok) {
                    self.check_arity(c, vals.len(), e.pos);
                }
                vals
            }
        };
        let mut call_args = vec![f];
        call_args.extend(vals);
        if let Some(known) = self.fold_known_len(&call_args) {
            return known;
        }
        // `iter(x)` and `next(it)` are the operations a `for` loop uses, so
        // that a class's `__iter__` and `next` serve both alike.
        if let [Arg::Const(Constant::Builtin(b)), x] = call_args.as_slice() {
            let opname = match b.as_str() {
                "iter" => Some(Opcode::Iter),
                "next" => Some(Opcode::Next),
                _ => None,
            };
            if let Some(opname) = opname {
                return self.op(opname, vec![x.clone()], e.pos);
            }
        }
        // `divmod(a, b)` is the tuple of `a // b` and `a % b`, as the
        // original's rtyper makes it (the division raises first).
        if let [Arg::Const(Constant::Builtin(b)), x, y] = call_args.as_slice() {
            if b == "divmod" {
                let (x, y) = (x.clone(), y.clone());
                let quotient = self.op(Opcode::Floordiv, vec![x.clone(), y.clone()], e.pos);
                let remainder = self.op(Opcode::Mod, vec![x, y], e.pos);
                return self.op(Opcode::Newtuple, vec![quotient, remainder], e.pos);
            }
        }
        self.op(Opcode::SimpleCall, call_args, e.pos)
    }

    /// Evaluates a call's operands in Python's order after the callee `f`:
    /// the positional arguments, then the `*` argument and the keyword
    /// values (Python 2 evaluates the keywords first). Each stays on the
    /// value stack until the last is evaluated, so that an operand that
    /// branches (`a if c else b`) carries the others across. A `*` tuple
    /// whose items are known here adds them to the positional arguments;
    /// another is returned with its position.
    #[allow(clippy::type_complexity)]
    fn call_operands(
        &mut self,
        f: Arg,
        args: &[Expr],
        star_arg: Option<&Expr>,
        keywords: &[Keyword],
    ) -> (Arg, Vec<Arg>, Option<(Arg, Pos)>, Vec<Arg>) {
        #[derive(Clone, Copy)]
        enum Part {
            Star,
            Keywords,
        }
        let order = match self.m.dialect {
            Dialect::Py2 => [Part::Keywords, Part::Star],
            Dialect::Py3 => [Part::Star, Part::Keywords],
        };
        self.push(f);
        for a in args {
            let v = self.expr(a);
            self.push(v);
        }
        // The values the `*` argument left on the stack, and its position
        // when it is a tuple whose items are not known here.
        let mut star_len = 0;
        let mut unknown_star = None;
        for part in order {
            match (part, star_arg) {
                (Part::Star, Some(s)) => {
                    let t = self.expr(s);
                    match self.tuple_items(&t) {
                        Some(items) => {
                            star_len = items.len();
                            for item in items {
                                self.push(item);
                            }
                        }
                        None => {
                            star_len = 1;
                            unknown_star = Some(s.pos);
                            self.push(t);
                        }
                    }
                }
                (Part::Star, None) => {}
                (Part::Keywords, _) => {
                    for k in keywords {
                        let v = self.expr(&k.value);
                        self.push(v);
                    }
                }
            }
        }
        let mut star_values = Vec::new();
        let mut keyword_vals = Vec::new();
        for part in order.into_iter().rev() {
            match part {
                Part::Star => star_values = self.pop_many(star_len),
                Part::Keywords => keyword_vals = self.pop_many(keywords.len()),
            }
        }
        let mut vals = self.pop_many(args.len());
        let f = self.pop();
        let star = match unknown_star {
            Some(pos) => star_values.pop().map(|t| (t, pos)),
            None => {
                vals.extend(star_values);
                None
            }
        };
        (f, vals, star, keyword_vals)
    }

    /// The top `n` values of the value stack, in the order they were pushed.
    fn pop_many(&mut self, n: usize) -> Vec<Arg> {
        let mut out: Vec<Arg> = (0..n).map(|_| self.pop()).collect();
        out.reverse();
        out
    }

    fn check_arity(&mut self, f: &Constant, given: usize, pos: Pos) {
        let (name, min, max) = match f {
            Constant::Func(name) => match self.m.function(name) {
                Some(def) => {
                    let max = def.params.len();
                    let min = def.params.iter().filter(|p| p.default.is_none()).count();
                    let max = if def.star_args.is_some() {
                        usize::MAX
                    } else {
                        max
                    };
                    (name.clone(), min, max)
                }
                _ => return,
            },
            // The rlib functions' arities are the object interpreter's and
            // the later stages' to check.
            Constant::Builtin(name) if !BUILTINS.contains(&name.as_str()) && name != "xrange" => {
                return
            }
            Constant::Builtin(name) => {
                let (min, max) = match name.as_str() {
                    "int" => (1, 2),
                    "range" | "xrange" => (1, 3),
                    "list" | "dict" => (0, 1),
                    "map" | "filter" => (2, 2),
                    "zip" => (1, usize::MAX),
                    "bool" => (0, 1),
                    "min" | "max" => (1, usize::MAX),
                    "isinstance" | "issubclass" | "divmod" => (2, 2),
                    _ => (1, 1),
                };
                (name.clone(), min, max)
            }
            Constant::Int(_)
            | Constant::UInt(_)
            | Constant::Float(_)
            | Constant::Bool(_)
            | Constant::Char(_)
            | Constant::Str(_)
            | Constant::None => {
                self.error(pos, "this value is not callable");
                return;
            }
            Constant::Name(_)
            | Constant::Class(_)
            | Constant::LastException
            | Constant::Prebuilt(_) => return,
        };
        if given >= min && given <= max {
            return;
        }
        let plural = |n: usize| if n == 1 { "argument" } else { "arguments" };
        let takes = if min == max {
            format!("exactly {min} {}", plural(min))
        } else if max == usize::MAX {
            format!("at least {min} {}", plural(min))
        } else {
            format!("from {min} to {max} arguments")
        };
        self.error(pos, format!("{name}() takes {takes} ({given} given)"));
    }

    /// `print(...)` as a call (Python 3, or `from __future__ import print_function`).
    fn print_call(
        &mut self,
        e: &Expr,
        args: &[Expr],
        keywords: &[Keyword],
        star_args: Option<&Expr>,
    ) -> Arg {
        if let Some(s) = star_args {
            self.unsupported(s.pos, "calls with *args are");
        }
        let mut sep = " ".to_string();
        let mut end = "\n".to_string();
        for k in keywords {
            let slot = match k.name.as_str() {
                "sep" => &mut sep,
                "end" => &mut end,
                other => {
                    self.unsupported(
                        k.value.pos,
                        &format!("print's keyword argument '{other}' is"),
                    );
                    continue;
                }
            };
            match &k.value.kind {
                ExprKind::Str(s) => *slot = s.clone(),
                ExprKind::None => {}
                _ => {
                    let msg = format!(
                        "print's '{}' argument must be a constant string in this stage",
                        k.name
                    );
                    self.error(k.value.pos, msg);
                }
            }
        }
        self.print(args, &sep, &end, false, e.pos);
        Arg::Const(Constant::None)
    }
}

/// The names local to the function whose graph is `outer`: its parameters
/// and the names its body binds, but for those it declares `global`.
fn enclosing_locals(m: &ModuleCtx, outer: &str) -> Vec<String> {
    let Some(def) = m.program.functions.get(outer) else {
        return Vec::new();
    };
    let mut bound = NameList::default();
    bound_names(def.body, &mut bound);
    let mut globals = NameList::default();
    global_names(def.body, &mut globals);
    def.params
        .iter()
        .map(|p| p.name.clone())
        .chain(def.star_args.map(str::to_string))
        .chain(bound.into_vec())
        .filter(|n| !globals.contains(n))
        .collect()
}

//! Generators: a function whose body yields becomes a class, as in the
//! original's flow space, so that the later stages see only classes,
//! attributes and methods.
//!
//! For `def gen(a, b): ... yield x ...` (graph name `gen`) the builder makes:
//!
//! - the class `gen__generator` (a program class deriving from `object`,
//!   in the prebuilt table; a method's is `Class.gen__generator`), whose
//!   attributes are the methods below;
//! - the graph `gen(a, b)`, which builds an instance, stores the arguments
//!   as its attributes `g_a`, `g_b`, sets its `state` to 0 and returns it;
//! - the graph `gen__generator.__iter__(generator)`, which returns it;
//! - the graph `gen__generator.next(generator)` (`__next__` in Python 3):
//!   the body, resumable. Its start block reads `state` and switches on it
//!   (a chain of `eq` tests): state 0 enters the body, which reads its
//!   parameters back from the attributes; state k resumes after the k-th
//!   `yield`. A `yield v` stores every local and held value that is a
//!   variable at that point as an attribute (`g_<name>`, `g_stack<i>`),
//!   sets `state` to k and returns `v`; the block that resumes there reads
//!   them back (constants stay constants). Leaving the body sets `state` to
//!   -1 and raises `StopIteration`, as does every state no resume point has.
//!
//! A `for` loop over a generator is then a loop over an instance of its
//! class (`iter`, then `next` until `StopIteration`). Generators run in
//! translated code only: one called at import time is reported.

use super::{Arg, Constant, Edge, FnBuilder, Pos, State, Var};
use crate::flow::{FuncDef, GlobalAccess, ModuleCtx};
use crate::language::special_names::next_method_name;
use crate::objinterp::exceptions::{ClassObj, ClassTable};
use crate::objinterp::ObjValue;
use rpy_ir::ast::{Expr, ExprKind, Stmt, StmtKind};
use rpy_ir::graph::{BlockId, Flow, FunctionGraph, Link, SpaceOperation};
use rpy_ir::opcode::Opcode;
use std::rc::Rc;

/// The attribute holding a generator's resume point.
const STATE_ATTR: &str = "state";

/// What the builder of a generator's `next` graph keeps.
pub(super) struct GeneratorCtx {
    /// The slot holding the generator instance (not a name of the program).
    slot: usize,
    /// The block each resume point continues in (index 0: the body's start),
    /// each taking the generator instance.
    resume_blocks: Vec<BlockId>,
    /// The block raising `StopIteration`, once made.
    stop_block: Option<BlockId>,
}

/// Whether a function body is a generator's: a `yield` statement (alone or
/// as an assignment's value) at any depth of its control flow, not in
/// nested `def`s or classes.
pub(crate) fn is_generator_body(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| {
        let yields = match &s.kind {
            StmtKind::Expr(e) | StmtKind::Assign { value: e, .. } => {
                matches!(e.kind, ExprKind::Yield(_))
            }
            _ => false,
        };
        let mut nested = false;
        s.for_each_nested_body(|body| nested |= is_generator_body(body));
        yields || nested
    })
}

/// The attribute that keeps the local `name` across a `yield`.
fn local_attr(name: &str) -> String {
    format!("g_{name}")
}

/// Builds the graphs of the generator function `def` (graph `graph`): the
/// function itself, which makes the generator, first; then its class's
/// `__iter__` and `next` methods.
pub(crate) fn build_generator(m: &ModuleCtx, def: &FuncDef, graph: &str) -> super::Built {
    if let GlobalAccess::Live { .. } = m.access {
        return super::Built {
            graph: None,
            extra_graphs: Vec::new(),
            referenced: Vec::new(),
            diags: vec![m.diag(
                def.pos,
                format!(
                    "the generator '{}' runs at import time; generators run only in translated code, so build a list at module level instead",
                    def.name
                ),
            )],
        };
    }
    // Named after the graph (a method's is `Class.gen`), so that two
    // generators of the same name in different classes get two classes;
    // the module is the class's qualifier already.
    let graph_in_module = graph
        .strip_prefix(&m.global_graph_name(""))
        .unwrap_or(graph);
    let class_name = format!("{graph_in_module}__generator");
    let method_prefix = format!("{graph}__generator");
    let iter_graph = format!("{method_prefix}.__iter__");
    let next_graph = format!("{method_prefix}.{}", next_method_name(m.dialect));

    // The `next` method first: a body that fails to build makes no class.
    let mut body = FnBuilder::new(m, def, &next_graph, &["generator"]);
    body.check_def(def);
    let generator_slot = body.slots.len();
    // A slot no name of the program reads (it has no `slot_of` entry).
    body.slots.push("generator".to_string());
    let generator = body.g.block(body.g.startblock).inputargs[0];
    body.state = State::unassigned(body.slots.len());
    body.enter_generator_body(generator_slot, def);
    body.block(def.body);
    if body.live() {
        body.do_return(Arg::Const(Constant::None));
    }
    body.close_generator_dispatch(generator);
    let mut next = body.finish();
    let Some(next_g) = next.graph.take() else {
        return next;
    };

    let object = ClassTable::builtin(m.dialect).get("object");
    let class = ClassObj::new(
        &class_name,
        Some(m.python_name()),
        object.into_iter().collect(),
    );
    class.attrs.borrow_mut().insert(
        "__iter__".to_string(),
        ObjValue::Func(Rc::from(iter_graph.as_str())),
    );
    class.attrs.borrow_mut().insert(
        next_method_name(m.dialect).to_string(),
        ObjValue::Func(Rc::from(next_graph.as_str())),
    );
    let class_const = match m
        .program
        .prebuilt
        .borrow_mut()
        .constant(&ObjValue::Class(Rc::new(class)))
    {
        Ok(c) => c,
        Err(what) => {
            next.diags.push(m.diag(
                def.pos,
                format!("the generator '{}' cannot become a class: {what}", def.name),
            ));
            return next;
        }
    };

    let params: Vec<&str> = generator_params(def).collect();
    let mut maker = FunctionGraph::<Flow>::new(graph, &params, ());
    maker.pos = Some(def.pos);
    let start = maker.startblock;
    let instance = maker.new_var(Some("generator".into()), ());
    let mut ops = vec![SpaceOperation {
        opname: Opcode::SimpleCall,
        args: vec![Arg::Const(class_const)],
        result: instance,
        pos: Some(def.pos),
    }];
    let inputs = maker.block(start).inputargs.clone();
    let stores = params
        .iter()
        .map(|p| local_attr(p))
        .zip(inputs.iter().map(|v| Arg::Var(*v)))
        .chain([(STATE_ATTR.to_string(), Arg::Const(Constant::Int(0)))]);
    for (attr, value) in stores {
        let result = maker.new_var(None, ());
        ops.push(SpaceOperation {
            opname: Opcode::Setattr,
            args: vec![Arg::Var(instance), Arg::Const(Constant::Name(attr)), value],
            result,
            pos: Some(def.pos),
        });
    }
    let ret = maker.returnblock;
    let block = maker.block_mut(start);
    block.operations = ops;
    block.exits = vec![Link::new(vec![Arg::Var(instance)], ret, None)];

    let mut iter = FunctionGraph::<Flow>::new(&iter_graph, &["generator"], ());
    iter.pos = Some(def.pos);
    let (istart, iret) = (iter.startblock, iter.returnblock);
    let this = iter.block(istart).inputargs[0];
    iter.block_mut(istart).exits = vec![Link::new(vec![Arg::Var(this)], iret, None)];

    super::Built {
        graph: Some(maker.canonicalize()),
        extra_graphs: vec![iter.canonicalize(), next_g],
        referenced: next.referenced,
        diags: next.diags,
    }
}

/// The parameters a generator's creator takes and stores on the generator,
/// for its body to read back: the named ones, then the `*args` tuple.
fn generator_params<'d>(def: &'d FuncDef) -> impl Iterator<Item = &'d str> {
    def.params
        .iter()
        .map(|p| p.name.as_str())
        .chain(def.star_args)
}

impl FnBuilder<'_, '_> {
    /// Starts the body of a generator's `next` graph: resume point 0, whose
    /// block reads the parameters back from the generator.
    fn enter_generator_body(&mut self, slot: usize, def: &FuncDef) {
        self.generator = Some(GeneratorCtx {
            slot,
            resume_blocks: Vec::new(),
            stop_block: None,
        });
        let saved: Vec<(usize, String)> = generator_params(def)
            .filter_map(|p| Some((*self.slot_of.get(p)?, local_attr(p))))
            .collect();
        let state = State::unassigned(self.slots.len());
        self.resume(state, &saved, &[], def.pos);
    }

    /// Opens a new resume block (taking the generator) in which the slots
    /// `saved` and the held values `saved_stack` (None: a constant kept as
    /// it is in `state`) are read back from their attributes.
    fn resume(
        &mut self,
        mut state: State,
        saved: &[(usize, String)],
        saved_stack: &[Option<String>],
        pos: Pos,
    ) {
        let Some(slot) = self.generator.as_ref().map(|g| g.slot) else {
            return self.internal("a resume point outside a generator");
        };
        let generator = self.new_var(Some("generator".into()), false);
        let block = self.g.add_block(vec![generator]);
        if let Some(g) = &mut self.generator {
            g.resume_blocks.push(block);
        }
        self.at = super::At::Block(block);
        self.state = State::default();
        let g = Arg::Var(generator);
        for (i, attr) in saved {
            let v = self.emit(
                Opcode::Getattr,
                vec![g.clone(), Arg::Const(Constant::Name(attr.clone()))],
                pos,
            );
            state.env[*i] = Some(Arg::Var(v));
        }
        for (k, attr) in saved_stack.iter().enumerate() {
            if let Some(attr) = attr {
                let v = self.emit(
                    Opcode::Getattr,
                    vec![g.clone(), Arg::Const(Constant::Name(attr.clone()))],
                    pos,
                );
                state.stack[k] = Arg::Var(v);
            }
        }
        state.env[slot] = Some(g);
        self.state = state;
    }

    /// `yield value` in a generator's body: saves what lives in variables,
    /// records the resume point and returns `value`; the code after it is
    /// the resume block. The expression's value is None (RPython generators
    /// are not sent values).
    pub(super) fn yield_expr(&mut self, value: Option<&Expr>, pos: Pos) -> Arg {
        let Some(slot) = self.generator.as_ref().map(|g| g.slot) else {
            return self.rejected(
                pos,
                "'yield' is supported as a statement of a function ('yield x' or 'y = yield x'); write it as one",
            );
        };
        let v = match value {
            Some(e) => self.expr(e),
            None => Arg::Const(Constant::None),
        };
        if !self.live() {
            return Arg::Const(Constant::None);
        }
        self.push(v);
        self.settle();
        let v = self.pop();
        let state = self.state.clone();
        let Some(g @ Arg::Var(_)) = state.env[slot].clone() else {
            self.internal("the generator instance is missing");
            return Arg::Const(Constant::None);
        };
        let point = self.generator.as_ref().map_or(0, |g| g.resume_blocks.len());
        let mut saved = Vec::new();
        for (i, a) in state.env.iter().enumerate() {
            if let (Some(Arg::Var(_)), true) = (a, i != slot) {
                saved.push((i, local_attr(&self.slots[i])));
            }
        }
        let saved_stack: Vec<Option<String>> = state
            .stack
            .iter()
            .enumerate()
            .map(|(k, a)| a.as_var().map(|_| format!("g_stack{k}")))
            .collect();
        let stores = saved
            .iter()
            .map(|(i, attr)| (attr.clone(), state.env[*i].clone()))
            .chain(
                saved_stack
                    .iter()
                    .zip(&state.stack)
                    .filter_map(|(attr, a)| Some((attr.clone()?, Some(a.clone())))),
            )
            .chain([(
                STATE_ATTR.to_string(),
                Some(Arg::Const(Constant::Int(point as i64))),
            )])
            .collect::<Vec<_>>();
        for (attr, value) in stores {
            let value = value.unwrap_or(Arg::Const(Constant::None));
            self.emit(
                Opcode::Setattr,
                vec![g.clone(), Arg::Const(Constant::Name(attr)), value],
                pos,
            );
        }
        // Straight to the return block: a `finally` does not run at a yield.
        let ret = self.g.returnblock;
        for e in self.close() {
            self.link_edge(e, ret, vec![v.clone()]);
        }
        self.resume(state, &saved, &saved_stack, pos);
        Arg::Const(Constant::None)
    }

    /// `return` (or the end of the body) in a generator: marks it finished
    /// and raises `StopIteration`. Returns whether the builder is in a
    /// generator.
    pub(super) fn generator_return(&mut self) -> bool {
        let Some(slot) = self.generator.as_ref().map(|g| g.slot) else {
            return false;
        };
        if !self.live() {
            return true;
        }
        self.settle();
        let pos = self.g.pos.unwrap_or_default();
        let g = self.state.env[slot]
            .clone()
            .unwrap_or(Arg::Const(Constant::None));
        self.emit(
            Opcode::Setattr,
            vec![
                g,
                Arg::Const(Constant::Name(STATE_ATTR.into())),
                Arg::Const(Constant::Int(-1)),
            ],
            pos,
        );
        let stop = self.stop_block(pos);
        for e in self.close() {
            self.link_edge(e, stop, Vec::new());
        }
        true
    }

    /// The block that raises `StopIteration` (made once).
    fn stop_block(&mut self, pos: Pos) -> BlockId {
        if let Some(b) = self.generator.as_ref().and_then(|g| g.stop_block) {
            return b;
        }
        let block = self.g.add_block(Vec::new());
        let instance = self.new_var(None, false);
        let class = Arg::Const(Constant::Class("StopIteration".into()));
        let except = self.g.exceptblock;
        let b = self.g.block_mut(block);
        b.operations.push(SpaceOperation {
            opname: Opcode::SimpleCall,
            args: vec![class.clone()],
            result: instance,
            pos: Some(pos),
        });
        b.exits = vec![Link::new(vec![class, Arg::Var(instance)], except, None)];
        if let Some(g) = &mut self.generator {
            g.stop_block = Some(block);
        }
        block
    }

    /// `x.send(v)`, `x.throw(e)` and `x.close()` where no class of the
    /// program has that method: a generator resumed with a value or an
    /// exception, which RPython's generators cannot be.
    pub(super) fn check_generator_resumption(&mut self, func: &Expr) {
        let ExprKind::Attribute { attr, value } = &func.kind else {
            return;
        };
        // `os.close(fd)`: a module's function.
        let of_module = matches!(&value.kind, ExprKind::Name(n) if self.m.import_bindings.contains_key(n.as_str()));
        if !matches!(attr.as_str(), "send" | "throw" | "close")
            || self.m.program.methods.contains_key(attr.as_str())
            || of_module
        {
            return;
        }
        self.error(
            func.pos,
            format!(
                "'.{attr}()' of a generator cannot be translated: RPython generators are only iterated (a for loop or next()); pass values to it through an object it reads instead"
            ),
        );
    }

    /// Points the pending link of edge `e` at `target` with `args`.
    fn link_edge(&mut self, e: Edge, target: BlockId, args: Vec<Arg>) {
        if let Some(link) = self.g.block_mut(e.from).exits.get_mut(e.exit) {
            link.target = target;
            link.args = args;
        }
    }

    /// Fills the start block of a generator's `next` graph: read `state`,
    /// then test it against each resume point in turn; no match raises
    /// `StopIteration`.
    fn close_generator_dispatch(&mut self, generator: Var) {
        let pos = self.g.pos.unwrap_or_default();
        let resume_blocks = self
            .generator
            .as_ref()
            .map(|g| g.resume_blocks.clone())
            .unwrap_or_default();
        let stop = self.stop_block(pos);
        let state = self.new_var(Some(STATE_ATTR.into()), false);
        let start = self.g.startblock;
        self.g.block_mut(start).operations.push(SpaceOperation {
            opname: Opcode::Getattr,
            args: vec![
                Arg::Var(generator),
                Arg::Const(Constant::Name(STATE_ATTR.into())),
            ],
            result: state,
            pos: Some(pos),
        });
        let (mut from, mut g, mut s) = (start, generator, state);
        for (point, target) in resume_blocks.into_iter().enumerate() {
            let is_point = self.new_var(None, true);
            let b = self.g.block_mut(from);
            b.operations.push(SpaceOperation {
                opname: Opcode::Eq,
                args: vec![Arg::Var(s), Arg::Const(Constant::Int(point as i64))],
                result: is_point,
                pos: Some(pos),
            });
            b.exitswitch = Some(Arg::Var(is_point));
            let (g2, s2) = (
                self.new_var(Some("generator".into()), false),
                self.new_var(Some(STATE_ATTR.into()), false),
            );
            let next_test = self.g.add_block(vec![g2, s2]);
            let b = self.g.block_mut(from);
            b.exits = vec![
                Link::new(
                    vec![Arg::Var(g), Arg::Var(s)],
                    next_test,
                    Some(Constant::Bool(false)),
                ),
                Link::new(vec![Arg::Var(g)], target, Some(Constant::Bool(true))),
            ];
            (from, g, s) = (next_test, g2, s2);
        }
        self.g.block_mut(from).exits = vec![Link::new(Vec::new(), stop, None)];
    }
}

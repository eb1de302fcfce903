//! Exceptions in flow graphs: (in `impl FnBuilder` blocks) how `raise`,
//! `try` and `assert` and the exceptions operations raise implicitly become
//! exception exits. The builtin exception classes are the language's
//! (`crate::language::exceptions`).
//!
//! The graph model is in `rpy_ir::graph`'s module doc: the operation whose
//! exceptions are caught ends its block, the block switches on
//! `last_exception`, and each exception exit names the class it catches.

use crate::language::exceptions::{builtin_exception_base, builtin_is_subclass};
use crate::language::raises::{operation_raises, Operand, Raises as TableRaises};
use rpy_ir::ast::Dialect;
use rpy_ir::opcode::Opcode;

/// Whether `name` names a builtin class (`object`, `JitDriver`, an
/// exception of `dialect`) rather than a class of the program.
pub fn is_builtin_class(name: &str, dialect: Dialect) -> bool {
    name == "object" || name == "JitDriver" || builtin_exception_base(name, dialect).is_some()
}

// ---------------------------------------------------------------------------
// Building exception exits

use super::{Edge, FnBuilder, PENDING};
use rpy_ir::ast::{ExceptHandler, Expr, ExprKind, Stmt, StmtKind, WithItem};
use rpy_ir::diag::Pos;
use rpy_ir::graph::{Arg, Block, BlockId, Constant, Link, Var};
use std::collections::{HashMap, HashSet};

/// The exception-handling context of the function being built.
#[derive(Default)]
pub(super) struct ExcState {
    /// The enclosing `try` statements whose handlers or `finally` are in
    /// scope, innermost last.
    tries: Vec<TryCtx>,
    /// Operations whose exceptions some handler catches: block, operation
    /// index, and the indexes of the exception exits added for it.
    catch_points: Vec<(BlockId, usize, Vec<usize>)>,
    /// Stack depths of the class and value of the exception each enclosing
    /// `except` body handles (what a bare `raise` re-raises), innermost last.
    handling: Vec<usize>,
}

struct TryCtx {
    /// The value-stack depth at the `try`: exception paths drop what the
    /// interrupted expression held above it.
    base_depth: usize,
    /// `self.loops.len()` at the `try`: a `break` or `continue` leaves it when
    /// its loop is outside.
    loop_depth: usize,
    kind: TryKind,
}

enum TryKind {
    /// `try: ... except ...`: the classes of each handler (`BaseException`
    /// for a bare `except:`) and the edges into it, each with the exception's
    /// class and value on the stack.
    Except {
        classes: Vec<Vec<String>>,
        edges: Vec<Vec<Edge>>,
    },
    /// `try: ... finally: ...`: the ways out of the body, which each run the
    /// `finally` body before going on.
    Finally(FinallyExits),
}

#[derive(Default)]
struct FinallyExits {
    /// Exceptions: class and value on the stack.
    raised: Vec<Edge>,
    /// Returns: the value on the stack.
    returns: Vec<Edge>,
    breaks: Vec<Edge>,
    continues: Vec<Edge>,
}

/// How a protected body (`finally`'s, `with`'s) was left.
#[derive(Clone, Copy, PartialEq)]
enum WayOut {
    Completed,
    Raised,
    Returned,
    /// `break` or `continue`.
    Jumped,
}

/// An attribute name as an operation's argument.
fn name_const(name: &str) -> Arg {
    Arg::Const(Constant::Name(name.to_string()))
}

/// The lengths of what the enclosing `try` statements have collected, for
/// `loops`' rollback: a loop built again must not leave the edges of its
/// first build in its handlers.
pub(super) struct ExcMark {
    catch_points: usize,
    tries: Vec<Vec<usize>>,
}

impl TryKind {
    fn edge_lists(&mut self) -> Vec<&mut Vec<Edge>> {
        match self {
            TryKind::Except { edges, .. } => edges.iter_mut().collect(),
            TryKind::Finally(f) => vec![
                &mut f.raised,
                &mut f.returns,
                &mut f.breaks,
                &mut f.continues,
            ],
        }
    }
}

impl FnBuilder<'_, '_> {
    pub(super) fn exc_mark(&mut self) -> ExcMark {
        ExcMark {
            catch_points: self.exc.catch_points.len(),
            tries: self
                .exc
                .tries
                .iter_mut()
                .map(|t| t.kind.edge_lists().iter().map(|l| l.len()).collect())
                .collect(),
        }
    }

    pub(super) fn exc_rollback(&mut self, mark: &ExcMark) {
        self.exc.catch_points.truncate(mark.catch_points);
        for (t, lens) in self.exc.tries.iter_mut().zip(&mark.tries) {
            for (list, &n) in t.kind.edge_lists().into_iter().zip(lens) {
                list.truncate(n);
            }
        }
    }
}

/// What an operation may raise.
enum Raises<'a> {
    /// Any exception (a call of a function).
    Anything,
    /// These classes (and their subclasses).
    Only(&'a [&'a str]),
}

/// Where an exception goes when it leaves the code being built.
#[derive(Clone)]
enum ExcTarget {
    /// Handler `handler` of the try at `tries[index]`, matching `class`.
    Handler {
        index: usize,
        handler: usize,
        class: String,
    },
    /// The `finally` of the try at `tries[index]` (it catches everything).
    Finally { index: usize },
}

impl ExcTarget {
    fn class(&self) -> &str {
        match self {
            ExcTarget::Handler { class, .. } => class,
            ExcTarget::Finally { .. } => "BaseException",
        }
    }
}

impl FnBuilder<'_, '_> {
    /// The builtin class (`object` or an exception class) a name means
    /// here, if it is one.
    pub(super) fn builtin_class(&self, name: &str) -> Option<Arg> {
        let builtin = name == "object" || builtin_exception_base(name, self.m.dialect).is_some();
        (self.is_builtin_visible(name) && builtin)
            .then(|| Arg::Const(Constant::Class(name.to_string())))
    }

    /// Is `class` `ancestor` or derived from it? Builtin classes, and the
    /// program's classes translated code uses (their bases are known after
    /// import).
    fn is_subclass(&self, class: &str, ancestor: &str) -> bool {
        if class == ancestor {
            return true;
        }
        let bases = self.m.program.prebuilt.borrow().class_bases(class);
        match bases {
            Some(bases) => bases.iter().any(|b| self.is_subclass(b, ancestor)),
            None => builtin_is_subclass(class, ancestor, self.m.dialect),
        }
    }

    /// Whether the class hierarchy above `class` is known while building.
    fn is_known_class(&self, class: &str) -> bool {
        builtin_exception_base(class, self.m.dialect).is_some()
            || self
                .m
                .program
                .prebuilt
                .borrow()
                .class_bases(class)
                .is_some()
    }

    /// What the operation `opname(args)` may raise (`None`: nothing), by
    /// the one table of what operations raise; a call of the program's
    /// code may raise anything.
    fn raises(&self, opname: Opcode, args: &[Arg]) -> Option<Raises<'static>> {
        let operands: Vec<Operand> = args
            .iter()
            .map(|a| match a {
                Arg::Const(Constant::Builtin(b)) => Operand::Builtin(b),
                Arg::Const(Constant::Class(c)) if is_builtin_class(c, self.m.dialect) => {
                    Operand::BuiltinClass
                }
                Arg::Const(Constant::Class(_) | Constant::Func(_)) => Operand::Program,
                Arg::Const(Constant::Int(d)) if *d != 0 => Operand::NonZero,
                Arg::Const(Constant::Float(d)) if *d != 0.0 => Operand::NonZero,
                _ => Operand::Unknown,
            })
            .collect();
        // A shift by a constant negative count (`1 << -1`, which constant
        // folding leaves alone) raises ValueError, as by a variable count.
        if let [_, Arg::Const(Constant::Int(count))] = args {
            if *count < 0 {
                match (opname, operands.first()) {
                    (Opcode::Lshift | Opcode::Rshift, Some(Operand::Unknown)) => {
                        return Some(Raises::Only(&["TypeError", "ValueError"]))
                    }
                    (Opcode::Lshift | Opcode::Rshift, _) => {
                        return Some(Raises::Only(&["ValueError"]))
                    }
                    (Opcode::LshiftOvf, _) => {
                        return Some(Raises::Only(&["OverflowError", "ValueError"]))
                    }
                    _ => {}
                }
            }
        }
        match operation_raises(opname, &operands) {
            TableRaises::Nothing => None,
            TableRaises::Only(classes) => Some(Raises::Only(classes)),
            TableRaises::Callee | TableRaises::Anything => Some(Raises::Anything),
        }
    }

    /// The handlers (and `finally` bodies) an exception may reach from here,
    /// innermost first, up to the first that surely catches it. `class` is
    /// the exception's class when known.
    fn exception_targets(&self, raises: &Raises) -> Vec<ExcTarget> {
        let mut out: Vec<ExcTarget> = Vec::new();
        for (index, t) in self.exc.tries.iter().enumerate().rev() {
            match &t.kind {
                TryKind::Finally(_) => {
                    out.push(ExcTarget::Finally { index });
                    return out;
                }
                TryKind::Except { classes, .. } => {
                    for (handler, cs) in classes.iter().enumerate() {
                        for c in cs {
                            let (may, surely) = match raises {
                                Raises::Anything => (true, c == "BaseException"),
                                Raises::Only(rs) => (
                                    rs.iter()
                                        .any(|r| self.is_subclass(r, c) || self.is_subclass(c, r)),
                                    rs.iter().all(|r| self.is_subclass(r, c)),
                                ),
                            };
                            if may && !out.iter().any(|o| o.class() == c) {
                                out.push(ExcTarget::Handler {
                                    index,
                                    handler,
                                    class: c.clone(),
                                });
                            }
                            if surely {
                                return out;
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// Called after `emit` appended an operation to `block`: when a handler
    /// catches what it may raise, gives the block an exception exit per
    /// handler class (the block is split after the operation in `finish`).
    pub(super) fn note_raising_op(&mut self, block: BlockId) {
        self.fuse_ovfcheck(block);
        if self.exc.tries.is_empty() {
            return;
        }
        let Some(op) = self.g.block(block).operations.last() else {
            return;
        };
        // Building an instance of a program class without an `__init__` of
        // its own (or a base's) runs no code of the program: nothing raises.
        if let (Some(Arg::Const(Constant::Class(c))), Opcode::SimpleCall) =
            (op.args.first(), op.opname)
        {
            let init = self
                .m
                .program
                .prebuilt
                .borrow()
                .class_attribute(c, "__init__");
            if !is_builtin_class(c, self.m.dialect) && init.is_none() {
                return;
            }
        }
        let Some(raises) = self.raises(op.opname, &op.args) else {
            return;
        };
        let targets = self.exception_targets(&raises);
        if targets.is_empty() {
            return;
        }
        let op_index = self.g.block(block).operations.len() - 1;
        let mut exits = Vec::new();
        for t in targets {
            let etype = self.new_var(Some("etype".into()), false);
            let evalue = self.new_var(Some("evalue".into()), false);
            let b = self.g.block_mut(block);
            b.exits.push(Link {
                args: Vec::new(),
                target: PENDING,
                exitcase: Some(Constant::Class(t.class().to_string())),
                last_exception: Some(etype),
                last_exc_value: Some(evalue),
            });
            let exit = b.exits.len() - 1;
            exits.push(exit);
            let edge = Edge {
                from: block,
                exit,
                state: self.state.clone(),
            };
            self.add_exception_edge(t, edge, Arg::Var(etype), Arg::Var(evalue));
        }
        self.exc.catch_points.push((block, op_index, exits));
    }

    /// `ovfcheck(x OP y)` (rlib.rarithmetic) is the overflow-checking
    /// variant of the operation, `OP_ovf`, which raises OverflowError: when
    /// the call just emitted checks the result of the operation just before
    /// it, the two become that one operation (as the original's flow space
    /// does), with the call's result.
    fn fuse_ovfcheck(&mut self, block: BlockId) {
        let ops = &self.g.block(block).operations;
        let [.., inner, call] = ops.as_slice() else {
            return;
        };
        let is_ovfcheck = call.opname == Opcode::SimpleCall
            && call.args.first() == Some(&Arg::Const(Constant::Builtin("ovfcheck".into())))
            && call.args.get(1) == Some(&Arg::Var(inner.result))
            && call.args.len() == 2;
        let Some(checked_op) = inner.opname.with_overflow_check().filter(|_| is_ovfcheck) else {
            return;
        };
        let checked = Arg::Var(inner.result);
        let used_elsewhere = self.state.env.iter().flatten().any(|a| *a == checked)
            || self.state.stack.contains(&checked);
        if used_elsewhere {
            return;
        }
        let inner_index = ops.len() - 2;
        self.forget_catch_point(block, inner_index);
        let ops = &mut self.g.block_mut(block).operations;
        let call = ops.pop().expect("the ovfcheck call");
        let inner = ops.last_mut().expect("the checked operation");
        inner.opname = checked_op;
        inner.result = call.result;
    }

    /// Takes back the exception exits `note_raising_op` gave operation
    /// `op_index` of `block`, and their edges into the handlers: the
    /// operation checked by `ovfcheck` (TypeError, as `a + "s"` raises at
    /// import time) becomes `OP_ovf`, whose exits are given as for any
    /// operation, with the state after the call, once the call is fused.
    fn forget_catch_point(&mut self, block: BlockId, op_index: usize) {
        let Some((b, op, _)) = self.exc.catch_points.last() else {
            return;
        };
        if (*b, *op) != (block, op_index) {
            return;
        }
        let (_, _, exits) = self.exc.catch_points.pop().expect("the last catch point");
        let block_exits = &mut self.g.block_mut(block).exits;
        // The exits were the last added to the block.
        let first = block_exits.len() - exits.len();
        if exits.iter().copied().ne(first..block_exits.len()) {
            self.internal("the exits of the operation ovfcheck checks are not the block's last");
            return;
        }
        block_exits.truncate(first);
        for t in &mut self.exc.tries {
            for list in t.kind.edge_lists() {
                list.retain(|e| !(e.from == block && exits.contains(&e.exit)));
            }
        }
    }

    /// Records `edge` (its state as at the raise) as going to `target` with
    /// the exception's class and value.
    fn add_exception_edge(&mut self, target: ExcTarget, mut edge: Edge, etype: Arg, evalue: Arg) {
        let index = match &target {
            ExcTarget::Handler { index, .. } | ExcTarget::Finally { index } => *index,
        };
        let t = &mut self.exc.tries[index];
        edge.state.stack.truncate(t.base_depth);
        edge.state.stack.push(etype);
        edge.state.stack.push(evalue);
        match (&mut t.kind, target) {
            (TryKind::Except { edges, .. }, ExcTarget::Handler { handler, .. }) => {
                edges[handler].push(edge)
            }
            (TryKind::Finally(f), ExcTarget::Finally { .. }) => f.raised.push(edge),
            _ => self.internal("an exception path goes to the wrong kind of try"),
        }
    }

    /// Raises the exception (`etype`, `evalue`) from the current point: to the
    /// handler that catches it when its class is known, through a chain of
    /// `isinstance` tests of the value when it is not (where one holds, the
    /// annotator knows the value is of the handler's class), else out of
    /// the function.
    fn raise_exception(&mut self, etype: Arg, evalue: Arg, pos: Pos) {
        if !self.live() {
            return;
        }
        let known = match &etype {
            Arg::Const(Constant::Class(c)) if self.is_known_class(c) => Some(c.clone()),
            _ => None,
        };
        let targets = match &known {
            Some(c) => self.exception_targets(&Raises::Only(&[c.as_str()])),
            None => self.exception_targets(&Raises::Anything),
        };
        // The class and value stay on the stack across the tests, so that
        // each new block receives them.
        self.push(etype);
        self.push(evalue);
        for t in targets {
            self.settle();
            let n = self.state.stack.len();
            let (etype, evalue) = (
                self.state.stack[n - 2].clone(),
                self.state.stack[n - 1].clone(),
            );
            let surely = match &known {
                Some(c) => self.is_subclass(c, t.class()),
                None => t.class() == "BaseException",
            };
            if surely {
                for e in self.close() {
                    self.add_exception_edge(t.clone(), e, etype.clone(), evalue.clone());
                }
                return;
            }
            if known.is_some() {
                // An instance of exactly this class: the handler cannot match.
                continue;
            }
            let test = self.op(
                Opcode::SimpleCall,
                vec![
                    Arg::Const(Constant::Builtin("isinstance".into())),
                    evalue.clone(),
                    Arg::Const(Constant::Class(t.class().to_string())),
                ],
                pos,
            );
            let (no, yes) = self.branch(test, pos);
            for e in yes {
                self.add_exception_edge(t.clone(), e, etype.clone(), evalue.clone());
            }
            self.join(no);
        }
        let evalue = self.pop();
        let etype = self.pop();
        let except = self.g.exceptblock;
        for e in self.close() {
            if let Some(link) = self.g.block_mut(e.from).exits.get_mut(e.exit) {
                link.target = except;
                link.args = vec![etype.clone(), evalue.clone()];
            }
        }
    }

    // ---- statements ------------------------------------------------------

    /// `raise`, `raise E`, `raise E(args)`, `raise E, arg`, `raise value`.
    pub(super) fn raise_stmt(
        &mut self,
        exc: Option<&Expr>,
        arg: Option<&Expr>,
        tb: Option<&Expr>,
        pos: Pos,
    ) {
        if let Some(tb) = tb {
            self.error(
                tb.pos,
                "a traceback argument to 'raise' cannot be translated; raise the exception alone",
            );
            return;
        }
        let Some(exc) = exc else {
            // A bare `raise` re-raises what the innermost handler handles.
            let Some(&depth) = self.exc.handling.last() else {
                self.error(
                    pos,
                    "a bare 'raise' outside an 'except' body has no exception to re-raise; name the exception to raise",
                );
                return;
            };
            self.settle();
            let etype = self.state.stack[depth].clone();
            let evalue = self.state.stack[depth + 1].clone();
            self.raise_exception(etype, evalue, pos);
            return;
        };
        let before = self.diags.len();
        let class = self.constant_class(exc);
        if self.diags.len() > before {
            return;
        }
        match (class, arg) {
            // `raise E, arg` (Python 2): the instance is `E(arg)`.
            (Some(c), Some(arg)) => {
                let a = self.expr(arg);
                let v = self.op(
                    Opcode::SimpleCall,
                    vec![Arg::Const(Constant::Class(c.clone())), a],
                    pos,
                );
                self.raise_exception(Arg::Const(Constant::Class(c)), v, pos);
            }
            (Some(c), None) => {
                let v = self.op(
                    Opcode::SimpleCall,
                    vec![Arg::Const(Constant::Class(c.clone()))],
                    pos,
                );
                self.raise_exception(Arg::Const(Constant::Class(c)), v, pos);
            }
            (None, _) => {
                // `raise E(args)` with E a class: the class is known.
                if let ExprKind::Call { func, .. } = &exc.kind {
                    if let Some(c) = self.constant_class(func) {
                        // (Reading the name again in the call records nothing.)
                        let v = self.expr(exc);
                        self.raise_exception(Arg::Const(Constant::Class(c)), v, pos);
                        return;
                    }
                }
                let v = self.expr(exc);
                if let Arg::Const(c) = &v {
                    self.error(
                        exc.pos,
                        format!(
                            "'raise' needs an exception class or instance, not the constant {}; raise an exception class such as ValueError",
                            describe_constant(c)
                        ),
                    );
                    return;
                }
                if arg.is_some() {
                    self.error(
                        pos,
                        "'raise X, arg' needs X to be an exception class known before the function runs",
                    );
                    return;
                }
                self.push(v);
                let v = self.top();
                let t = self.op(
                    Opcode::SimpleCall,
                    vec![Arg::Const(Constant::Builtin("type".into())), v],
                    pos,
                );
                let v = self.pop();
                self.raise_exception(t, v, pos);
            }
        }
    }

    /// The class an expression names when it is a class known now (a
    /// builtin exception or a module-level class).
    fn constant_class(&mut self, e: &Expr) -> Option<String> {
        if let ExprKind::Attribute { value, attr } = &e.kind {
            // `module.Class`: an attribute of a module reads no operation.
            return match self.module_attribute(value, attr, e.pos)? {
                Arg::Const(Constant::Class(c)) => Some(c),
                _ => None,
            };
        }
        let ExprKind::Name(n) = &e.kind else {
            return None;
        };
        if self.is_local(n) {
            return None;
        }
        // At import time a class of this module is named by its class
        // statement (which runs before code that raises or catches it) when
        // nothing else binds its name.
        if let Some(graph) = self.m.import_time_definition(n) {
            let body_graph = crate::flow::class_body_graph(&graph);
            if self.m.program.functions.contains_key(&body_graph) {
                return Some(format!("{}.{n}", self.m.python_name()));
            }
        }
        // A global or builtin name: reading it records no operation.
        match self.load_name(n, e.pos) {
            Arg::Const(Constant::Class(c)) => Some(c),
            _ => None,
        }
    }

    /// `assert test, msg`: raises AssertionError(msg) when `test` is false.
    pub(super) fn assert_stmt(&mut self, test: &Expr, msg: Option<&Expr>, pos: Pos) {
        let (fail, ok) = self.cond(test);
        self.join(fail);
        if self.live() {
            let class = Arg::Const(Constant::Class("AssertionError".into()));
            let mut args = vec![class.clone()];
            if let Some(m) = msg {
                args.push(self.expr(m));
            }
            let v = self.op(Opcode::SimpleCall, args, pos);
            self.raise_exception(class, v, pos);
        }
        self.join(ok);
    }

    /// `try` with any of `except`, `else` and `finally`.
    pub(super) fn try_stmt(
        &mut self,
        body: &[Stmt],
        handlers: &[ExceptHandler],
        orelse: &[Stmt],
        finalbody: &[Stmt],
    ) {
        if finalbody.is_empty() {
            self.try_except(body, handlers, orelse);
            return;
        }
        // Each way out gets its own copy of the `finally` body; what is wrong
        // in it is reported once, from the first copy.
        let mut reported = false;
        self.protected(
            |this| {
                if handlers.is_empty() {
                    this.block(body);
                    // `else` needs handlers; the parser rejects it without.
                } else {
                    this.try_except(body, handlers, orelse);
                }
            },
            |this, _| {
                let before = this.diags.len();
                this.block(finalbody);
                if reported {
                    this.diags.truncate(before);
                }
                reported = true;
            },
            finalbody[0].pos,
        );
    }

    /// `with mgr as x: body`, as RPython has it: `mgr.__exit__` is read,
    /// then `mgr.__enter__()` called (its result is `x`); every way out
    /// of the body calls the exit with `(None, None, None)`, or with
    /// `(e, e, None)` when exception `e` leaves it (an exception class
    /// would not join with None), and `e` goes on: an RPython context
    /// manager cannot swallow it. Several managers nest, the first outside.
    pub(super) fn with_stmt(&mut self, items: &[WithItem], body: &[Stmt], pos: Pos) {
        let Some((item, rest)) = items.split_first() else {
            self.block(body);
            return;
        };
        let manager = self.expr(&item.context);
        if !self.live() {
            return;
        }
        let at = item.context.pos;
        // The manager, then its exit, wait on the stack, which follows the
        // blocks that raising operations end.
        self.push(manager);
        let manager = self.top();
        let exit = self.op(Opcode::Getattr, vec![manager, name_const("__exit__")], at);
        self.push(exit);
        let exit_at = self.state.stack.len() - 1;
        self.settle();
        let manager = self.state.stack[exit_at - 1].clone();
        let enter = self.op(Opcode::Getattr, vec![manager, name_const("__enter__")], at);
        let entered = self.op(Opcode::SimpleCall, vec![enter], at);
        if !self.live() {
            return;
        }
        self.push(entered);
        if let Some(target) = &item.target {
            self.store(target);
        }
        self.drop_top();
        self.protected(
            |this| this.with_stmt(rest, body, pos),
            |this, way_out| {
                this.settle();
                let exit = this.state.stack[exit_at].clone();
                let none = Arg::Const(Constant::None);
                let args = match way_out {
                    WayOut::Raised => {
                        let value = this.state.stack[this.state.stack.len() - 1].clone();
                        vec![exit, value.clone(), value, none]
                    }
                    _ => vec![exit, none.clone(), none.clone(), none],
                };
                this.op(Opcode::SimpleCall, args, pos);
            },
            pos,
        );
        if self.live() {
            self.drop_top();
            self.drop_top();
        }
    }

    /// Builds `body` with `cleanup` on every way out of it that some path
    /// takes, as a `finally` body runs: completion, an exception (its
    /// class and value on the stack, raised again after), `return` (the
    /// value on the stack), `break` and `continue`. The state after is
    /// the completion's; `pos` is where the ways out that go on are.
    fn protected(
        &mut self,
        body: impl FnOnce(&mut Self),
        mut cleanup: impl FnMut(&mut Self, WayOut),
        pos: Pos,
    ) {
        self.exc.tries.push(TryCtx {
            base_depth: self.state.stack.len(),
            loop_depth: self.loops.len(),
            kind: TryKind::Finally(FinallyExits::default()),
        });
        body(self);
        let normal = self.close();
        let Some(TryCtx {
            kind: TryKind::Finally(exits),
            ..
        }) = self.exc.tries.pop()
        else {
            self.internal("the try stack lost a 'finally'");
            return;
        };
        let mut out = Vec::new();
        let mut copy = |this: &mut Self, edges: Vec<Edge>, way_out: WayOut| {
            this.join(edges);
            cleanup(this, way_out);
        };
        if !normal.is_empty() {
            copy(self, normal, WayOut::Completed);
            out.extend(self.close());
        }
        if !exits.raised.is_empty() {
            copy(self, exits.raised, WayOut::Raised);
            if self.live() {
                self.settle();
                let n = self.state.stack.len();
                let (etype, evalue) = (
                    self.state.stack[n - 2].clone(),
                    self.state.stack[n - 1].clone(),
                );
                self.state.stack.truncate(n - 2);
                self.raise_exception(etype, evalue, pos);
            }
        }
        if !exits.returns.is_empty() {
            copy(self, exits.returns, WayOut::Returned);
            if self.live() {
                let v = self.pop();
                self.do_return(v);
            }
        }
        for (edges, stmt) in [
            (exits.breaks, StmtKind::Break),
            (exits.continues, StmtKind::Continue),
        ] {
            if !edges.is_empty() {
                copy(self, edges, WayOut::Jumped);
                if self.live() {
                    self.stmt(&Stmt { kind: stmt, pos });
                }
            }
        }
        self.join(out);
    }

    fn try_except(&mut self, body: &[Stmt], handlers: &[ExceptHandler], orelse: &[Stmt]) {
        let mut classes = Vec::new();
        for h in handlers {
            classes.push(self.handler_classes(h));
        }
        let base_depth = self.state.stack.len();
        self.exc.tries.push(TryCtx {
            base_depth,
            loop_depth: self.loops.len(),
            kind: TryKind::Except {
                edges: classes.iter().map(|_| Vec::new()).collect(),
                classes,
            },
        });
        self.block(body);
        let Some(TryCtx {
            kind: TryKind::Except { edges, .. },
            ..
        }) = self.exc.tries.pop()
        else {
            self.internal("the try stack lost an 'except'");
            return;
        };
        // `else` runs after the body completes, outside the handlers.
        self.block(orelse);
        let mut out = self.close();
        for (h, edges) in handlers.iter().zip(edges) {
            if edges.is_empty() {
                continue;
            }
            self.join(edges);
            self.exc.handling.push(base_depth);
            if let Some(name) = &h.name {
                self.settle();
                let evalue = self.state.stack[base_depth + 1].clone();
                self.store_name(name, evalue, h.pos);
            }
            self.block(&h.body);
            self.exc.handling.pop();
            if self.live() {
                self.drop_top();
                self.drop_top();
                // Python 3 deletes the name bound by `except E as e` when the
                // handler ends.
                if let (Some(name), Dialect::Py3) = (&h.name, self.m.dialect) {
                    if let Some(&slot) = self.slot_of.get(name) {
                        self.state.env[slot] = None;
                        self.state.maybe[slot] = false;
                    }
                }
            }
            out.extend(self.close());
        }
        self.join(out);
    }

    /// The classes an `except` clause names: a class or a tuple of classes
    /// known before the function runs; none is `BaseException`.
    fn handler_classes(&mut self, h: &ExceptHandler) -> Vec<String> {
        let Some(typ) = &h.typ else {
            return vec!["BaseException".to_string()];
        };
        let items: Vec<&Expr> = match &typ.kind {
            ExprKind::Tuple(items) => items.iter().collect(),
            _ => vec![typ],
        };
        let mut out = Vec::new();
        for item in items {
            let before = self.diags.len();
            match self.constant_class(item) {
                Some(c) => out.push(c),
                None if self.diags.len() > before => {}
                None => self.error(
                    item.pos,
                    "'except' needs an exception class (or a tuple of them) known before the function runs; name the class directly",
                ),
            }
        }
        out
    }

    /// A `return` inside a `try` with a `finally` runs the `finally` first:
    /// the value goes on the stack and the path to the `finally`. Returns
    /// whether it did.
    pub(super) fn return_through_finally(&mut self, value: &Arg) -> bool {
        let Some(index) = self
            .exc
            .tries
            .iter()
            .rposition(|t| matches!(t.kind, TryKind::Finally(_)))
        else {
            return false;
        };
        if !self.live() {
            return true;
        }
        let depth = self.exc.tries[index].base_depth;
        let mut edges = self.close();
        for e in &mut edges {
            e.state.stack.truncate(depth);
            e.state.stack.push(value.clone());
        }
        if let TryKind::Finally(f) = &mut self.exc.tries[index].kind {
            f.returns.extend(edges);
        }
        true
    }

    /// Whether a `break` or `continue` here runs a `finally` first.
    pub(super) fn loop_exit_runs_finally(&self) -> bool {
        let loops = self.loops.len();
        self.exc
            .tries
            .iter()
            .any(|t| matches!(t.kind, TryKind::Finally(_)) && t.loop_depth == loops)
    }

    /// A `break` or `continue` whose loop is outside a `try` with a
    /// `finally` goes through the `finally`. Returns whether it did.
    pub(super) fn jump_through_finally(&mut self, is_break: bool) -> bool {
        let loops = self.loops.len();
        let Some(index) = self
            .exc
            .tries
            .iter()
            .rposition(|t| matches!(t.kind, TryKind::Finally(_)) && t.loop_depth == loops)
        else {
            return false;
        };
        if loops == 0 || !self.live() {
            return false;
        }
        let depth = self.exc.tries[index].base_depth;
        let mut edges = self.close();
        for e in &mut edges {
            e.state.stack.truncate(depth);
        }
        if let TryKind::Finally(f) = &mut self.exc.tries[index].kind {
            if is_break {
                f.breaks.extend(edges);
            } else {
                f.continues.extend(edges);
            }
        }
        true
    }

    // ---- finishing -----------------------------------------------------------

    /// Splits every block after each operation whose exceptions are caught,
    /// so that it ends its block as the graph model requires.
    pub(super) fn split_catching_blocks(&mut self) {
        let mut by_block: HashMap<BlockId, Vec<(usize, Vec<usize>)>> = HashMap::new();
        for (b, op, exits) in std::mem::take(&mut self.exc.catch_points) {
            by_block.entry(b).or_default().push((op, exits));
        }
        let mut blocks: Vec<_> = by_block.into_iter().collect();
        blocks.sort_by_key(|(b, _)| *b);
        for (b, mut points) in blocks {
            points.sort_by_key(|(op, _)| *op);
            self.split_block(b, &points);
        }
    }

    fn split_block(&mut self, b: BlockId, points: &[(usize, Vec<usize>)]) {
        let old = std::mem::take(self.g.block_mut(b));
        let caught: HashSet<usize> = points.iter().flat_map(|(_, e)| e.iter().copied()).collect();
        let mut exits: Vec<Option<Link>> = old.exits.into_iter().map(Some).collect();
        let rest_exits: Vec<Link> = exits
            .iter_mut()
            .enumerate()
            .filter(|(i, _)| !caught.contains(i))
            .filter_map(|(_, l)| l.take())
            .collect();
        // Segments: ops up to and including each caught operation, then the rest.
        let mut bounds: Vec<usize> = points.iter().map(|(op, _)| op + 1).collect();
        bounds.push(old.operations.len());
        let mut ops = old.operations.into_iter();
        let mut segments: Vec<Vec<rpy_ir::graph::SpaceOperation>> = Vec::new();
        let mut start = 0;
        for &end in &bounds {
            segments.push(ops.by_ref().take(end - start).collect());
            start = end;
        }
        let seg_exc: Vec<Vec<Link>> = points
            .iter()
            .map(|(_, e)| e.iter().filter_map(|i| exits[*i].take()).collect())
            .collect();
        // Uses by each segment and all that follow it.
        let uses = |seg: usize| -> Vec<Var> {
            let mut out = Vec::new();
            let mut add = |a: &Arg| {
                if let Arg::Var(v) = a {
                    if !out.contains(v) {
                        out.push(*v);
                    }
                }
            };
            for s in seg..segments.len() {
                segments[s].iter().flat_map(|o| &o.args).for_each(&mut add);
                if s < seg_exc.len() {
                    seg_exc[s].iter().flat_map(|l| &l.args).for_each(&mut add);
                }
            }
            old.exitswitch.iter().for_each(&mut add);
            rest_exits.iter().flat_map(|l| &l.args).for_each(&mut add);
            out
        };
        let mut subst: HashMap<Var, Var> = HashMap::new();
        let rename = |a: &mut Arg, subst: &HashMap<Var, Var>| {
            if let Arg::Var(v) = a {
                if let Some(n) = subst.get(v) {
                    *v = *n;
                }
            }
        };
        let mut defined: Vec<Var> = old.inputargs.clone();
        let mut current = b;
        let mut inputargs = old.inputargs.clone();
        let nseg = segments.len();
        let mut seg_ops = segments.clone();
        for (k, seg) in seg_ops.iter_mut().enumerate() {
            for op in seg.iter_mut() {
                op.args.iter_mut().for_each(|a| rename(a, &subst));
            }
            let block = Block {
                inputargs: std::mem::take(&mut inputargs),
                operations: seg.clone(),
                ..Block::default()
            };
            *self.g.block_mut(current) = block;
            defined.extend(segments[k].iter().map(|o| o.result));
            if k + 1 == nseg {
                let blk = self.g.block_mut(current);
                blk.exitswitch = old.exitswitch.clone().map(|mut a| {
                    rename(&mut a, &subst);
                    a
                });
                blk.exits = rest_exits
                    .iter()
                    .cloned()
                    .map(|mut l| {
                        l.args.iter_mut().for_each(|a| rename(a, &subst));
                        l
                    })
                    .collect();
                break;
            }
            // The next segment takes what it and the rest use from here on.
            let needed: Vec<Var> = uses(k + 1)
                .into_iter()
                .filter(|v| defined.contains(v))
                .collect();
            let fresh: Vec<Var> = needed
                .iter()
                .map(|v| {
                    let name = self.g.vars[v.0 as usize].name.clone();
                    self.new_var(name, false)
                })
                .collect();
            let next = self.g.add_block(Vec::new());
            let normal_args: Vec<Arg> = needed
                .iter()
                .map(|v| {
                    let mut a = Arg::Var(*v);
                    rename(&mut a, &subst);
                    a
                })
                .collect();
            let mut exc_links: Vec<Link> = seg_exc[k].clone();
            for l in &mut exc_links {
                l.args.iter_mut().for_each(|a| rename(a, &subst));
            }
            let blk = self.g.block_mut(current);
            blk.exitswitch = Some(Arg::Const(Constant::LastException));
            blk.exits = vec![Link::new(normal_args, next, None)];
            blk.exits.extend(exc_links);
            for (v, f) in needed.iter().zip(&fresh) {
                subst.insert(*v, *f);
            }
            inputargs = fresh;
            current = next;
        }
    }
}

/// A constant as the user wrote it, for messages.
fn describe_constant(c: &Constant) -> String {
    match c {
        Constant::Str(s) => format!("string {s:?}"),
        Constant::Int(i) => format!("integer {i}"),
        Constant::Float(f) => format!("float {f}"),
        Constant::Bool(b) => {
            if *b {
                "True".into()
            } else {
                "False".into()
            }
        }
        Constant::None => "None".into(),
        Constant::Func(f) => format!("function {f}"),
        other => format!("{other:?}"),
    }
}

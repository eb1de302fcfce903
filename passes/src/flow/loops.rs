//! `while` loops built as the original's flow space builds them: from the
//! states that actually reach the loop, generalized until they agree.
//!
//! The builder's usual loop header (`FnBuilder::loop_template`) is made
//! before the body is seen: every local the body assigns gets a fresh
//! variable there, and a local unassigned on entry stays unassigned at the
//! header, so reading it after the loop is "might be used before
//! assignment". The original does not decide the header in advance: a
//! state reaching the loop's top merges with the block already made there
//! (constants that differ become variables, a local unassigned on either
//! side is unassigned), and only where an operation is recorded, so a
//! state whose loop test folds to False leaves the loop without merging.
//! Code such as rpystone's
//!
//! ```python
//! IntLoc = 1
//! while IntLoc <= 1:
//!     if f() == Ident1:
//!         CharLoc = 'A'
//!         IntLoc = IntLoc + 1
//! if CharLoc >= 'W': ...
//! ```
//!
//! is accepted there: the state that assigns `CharLoc` makes the test
//! `2 <= 1`, which folds, so it leaves the loop with `CharLoc` assigned,
//! and the one that does not comes back unchanged to the same header.
//!
//! `FnBuilder::while_fixpoint` does the same for a `while` loop whose body
//! assigns a local unassigned on entry (every other loop keeps the usual
//! header, which accepts the same programs). Each state arriving at the
//! loop's top (the entry, the end of the body, a `continue`) is first
//! tried on the test alone ([`FnBuilder::static_truth`]: names, literals,
//! arithmetic and comparisons folded on the state's constants): a False
//! test sends it to the loop's exit. The first other state makes the
//! header (its variables fresh, its constants kept); a later one that the
//! header does not cover (a different constant, an unassigned local the
//! header has a value for) generalizes it: everything built for the loop
//! is rolled back ([`Mark`]) and the loop is built again from the more
//! general header. Generalizing only turns constants into variables and
//! values into "unassigned", so this ends; each nesting level may build
//! its body a few times, as the original's flow space does.

use super::super::{Global, GlobalAccess};
use super::{binop_name, Edge, FnBuilder, JoinPoint, LoopCtx, State, PENDING};
use super::{fold, truthy};
use rpy_ir::ast::{BoolOp, CmpOp, Expr, ExprKind, Stmt, StmtKind, UnaryOp};
use rpy_ir::graph::{Arg, Constant};
use rpy_ir::opcode::Opcode;
use std::collections::{HashMap, VecDeque};

/// How many times the loops of one function may be built again before the
/// rest get the usual header (`FnBuilder::loop_template`), which needs one
/// build. Real functions need a few; the bound keeps deeply nested loops,
/// where each level builds the levels inside it again, linear.
const LOOP_REBUILD_BUDGET: usize = 32;

/// What a header knows of one value.
#[derive(Clone, Debug, PartialEq)]
enum Shape {
    /// An unassigned local (`maybe`: assigned on some paths).
    Unassigned {
        maybe: bool,
    },
    Const(Constant),
    /// A variable (`is_bool`: known to hold a bool).
    Var {
        is_bool: bool,
    },
}

/// The shape of a loop header's entry state: its locals, then its stack.
#[derive(Clone, Debug)]
pub(super) struct HeaderShape {
    env: Vec<Shape>,
    stack: Vec<Shape>,
}

/// Everything building a loop adds to the builder, as lengths to cut back to.
struct Mark {
    blocks: usize,
    vars: usize,
    is_bool: usize,
    diags: usize,
    referenced: usize,
    slots: usize,
    exc: super::exceptions::ExcMark,
    local_modules: HashMap<String, String>,
}

impl Shape {
    fn union(&self, other: &Shape) -> Shape {
        match (self, other) {
            (Shape::Unassigned { maybe: a }, Shape::Unassigned { maybe: b }) => {
                Shape::Unassigned { maybe: *a || *b }
            }
            (Shape::Unassigned { .. }, _) | (_, Shape::Unassigned { .. }) => {
                Shape::Unassigned { maybe: true }
            }
            (Shape::Const(a), Shape::Const(b)) if a == b => Shape::Const(a.clone()),
            (a, b) => Shape::Var {
                is_bool: a.is_bool() && b.is_bool(),
            },
        }
    }

    fn is_bool(&self) -> bool {
        match self {
            Shape::Const(c) => matches!(c, Constant::Bool(_)),
            Shape::Var { is_bool } => *is_bool,
            Shape::Unassigned { .. } => false,
        }
    }
}

impl HeaderShape {
    fn union(&self, other: &HeaderShape) -> HeaderShape {
        let n = self.env.len().max(other.env.len());
        let unassigned = Shape::Unassigned { maybe: false };
        let env = (0..n)
            .map(|i| {
                let a = self.env.get(i).unwrap_or(&unassigned);
                let b = other.env.get(i).unwrap_or(&unassigned);
                a.union(b)
            })
            .collect();
        let stack = self
            .stack
            .iter()
            .zip(&other.stack)
            .map(|(a, b)| a.union(b))
            .collect();
        HeaderShape { env, stack }
    }
}

impl FnBuilder<'_, '_> {
    /// Whether a `while` loop entered now is built by
    /// [`Self::while_fixpoint`]: every one outside a generator (whose
    /// resume points a rollback would leave behind; a generator's loops
    /// keep the usual header) while the function's budget of rebuilds
    /// lasts.
    pub(super) fn wants_loop_fixpoint(&self) -> bool {
        self.live() && self.generator.is_none() && self.loop_rebuilds <= LOOP_REBUILD_BUDGET
    }

    /// Builds `while test: body else: orelse` from the states reaching the
    /// loop (see the module's doc).
    pub(super) fn while_fixpoint(&mut self, test: &Expr, body: &[Stmt], orelse: &[Stmt]) {
        let entry = self.close();
        let mut hint: Option<HeaderShape> = None;
        loop {
            let mark = self.mark();
            match self.while_attempt(test, body, &entry, hint.as_ref()) {
                Ok((exits, breaks)) => {
                    let mut out = self.branch_body(exits, orelse);
                    out.extend(breaks);
                    self.join(out);
                    return;
                }
                Err(general) => {
                    self.rollback(mark, &entry);
                    self.loop_rebuilds += 1;
                    if self.loop_rebuilds > LOOP_REBUILD_BUDGET {
                        // Deeply nested loops: each level may build the
                        // ones inside it again. Past the budget, the
                        // function's loops get the usual header.
                        self.join(entry);
                        return self.while_with_template(test, body, orelse);
                    }
                    hint = Some(general);
                }
            }
        }
    }

    /// One build of the loop from header shape `hint` (at least); `Err`
    /// with a more general shape when a state reaching the top does not
    /// fit the header. `Ok`: the edges leaving by the test and the breaks.
    fn while_attempt(
        &mut self,
        test: &Expr,
        body: &[Stmt],
        entry: &[Edge],
        hint: Option<&HeaderShape>,
    ) -> Result<(Vec<Edge>, Vec<Edge>), HeaderShape> {
        let mut queue: VecDeque<Edge> = entry.iter().cloned().collect();
        let mut exits = Vec::new();
        let mut breaks = Vec::new();
        let mut header: Option<(JoinPoint, HeaderShape)> = None;
        while let Some(e) = queue.pop_front() {
            if self.static_truth(test, &e.state) == Some(false) {
                exits.push(e);
                continue;
            }
            let shape = self.shape_of(&e.state);
            if let Some((jp, template)) = &header {
                if self.fits(template, &e.state) {
                    let jp = jp.clone();
                    self.resolve(e, &jp);
                    continue;
                }
                if template.stack.len() != shape.stack.len() {
                    self.internal("paths with different value stacks meet at a loop");
                    let jp = jp.clone();
                    self.resolve(e, &jp);
                    continue;
                }
                return Err(template.union(&shape));
            }
            let shape = match hint {
                Some(h) => h.union(&shape),
                None => shape,
            };
            let template = self.template_of(&shape);
            let jp = self.make_block(template);
            self.resolve(e, &jp);
            header = Some((jp.clone(), shape));

            let base_depth = self.state.stack.len();
            let (f, t) = self.cond(test);
            exits.extend(f);
            self.loops.push(LoopCtx {
                header: jp,
                base_depth,
                breaks: Vec::new(),
                continues: Some(Vec::new()),
            });
            self.join(t);
            let back = self.block_edges(body);
            if let Some(ctx) = self.loops.pop() {
                queue.extend(back);
                queue.extend(ctx.continues.unwrap_or_default());
                breaks.extend(ctx.breaks);
            }
        }
        Ok((exits, breaks))
    }

    /// Builds `stmts` and returns the edges leaving their end. The paths
    /// out of an `if` statement whose constants differ are kept apart
    /// while the statements after it need no operation (assignments of
    /// constants, `if`s on constants, `break`, `continue`: see
    /// [`Self::static_stmt`]), and merged at the first that does, as the
    /// original merges paths only where it records an operation. A `while`
    /// loop's body so ends with each path's own constants at the loop's
    /// test.
    pub(super) fn block_edges(&mut self, stmts: &[Stmt]) -> Vec<Edge> {
        let mut apart: Option<Vec<Edge>> = None;
        for s in stmts {
            if let Some(edges) = apart.take() {
                match self.static_stmt(edges, s) {
                    Ok(out) => {
                        apart = Some(out);
                        continue;
                    }
                    Err(edges) => self.join(edges),
                }
            }
            if !self.live() {
                break; // dead code after return/break/continue
            }
            match &s.kind {
                StmtKind::If { test, body, orelse }
                    if !(self.module_body && super::super::is_main_guard(test)) =>
                {
                    let (f, t) = self.cond(test);
                    let mut out = self.branch_body(t, body);
                    out.extend(self.branch_body(f, orelse));
                    if self.keeps_apart(&out) {
                        apart = Some(out);
                    } else {
                        self.join(out);
                    }
                }
                _ => self.stmt(s),
            }
        }
        match apart {
            Some(edges) => edges,
            None => self.close(),
        }
    }

    /// Whether merging `edges` would lose a constant or an assignment
    /// that a statement after them could fold on.
    fn keeps_apart(&self, edges: &[Edge]) -> bool {
        if edges.len() < 2 {
            return false;
        }
        (0..self.slots.len()).any(|i| {
            let vals: Vec<Option<&Arg>> = edges
                .iter()
                .map(|e| e.state.env.get(i).and_then(|v| v.as_ref()))
                .collect();
            let all_vars = vals.iter().all(|v| matches!(v, Some(Arg::Var(_))));
            let all_unassigned = vals.iter().all(|v| v.is_none());
            let same_const = match vals[0] {
                Some(Arg::Const(c)) => vals
                    .iter()
                    .all(|v| matches!(v, Some(Arg::Const(d)) if d == c)),
                _ => false,
            };
            !(all_vars || all_unassigned || same_const)
        })
    }

    /// Runs `s` on each of the paths `edges` without an operation, when it
    /// needs none on any of them: `Ok` with the paths leaving it, `Err`
    /// with `edges` untouched when it needs an operation (or is not one of
    /// the statements done so).
    fn static_stmt(&mut self, mut edges: Vec<Edge>, s: &Stmt) -> Result<Vec<Edge>, Vec<Edge>> {
        match &s.kind {
            StmtKind::Pass => Ok(edges),
            StmtKind::Assign { targets, value } if targets.len() == 1 => {
                let Some(slot) = self.static_target(&targets[0]) else {
                    return Err(edges);
                };
                self.static_store(edges, slot, value)
            }
            StmtKind::AugAssign { target, op, value } => {
                let Some(slot) = self.static_target(target) else {
                    return Err(edges);
                };
                let sum = Expr {
                    kind: ExprKind::BinOp {
                        op: *op,
                        left: Box::new(target.clone()),
                        right: Box::new(value.clone()),
                    },
                    pos: s.pos,
                };
                self.static_store(edges, slot, &sum)
            }
            StmtKind::If { test, body, orelse } => {
                let truths: Option<Vec<bool>> = edges
                    .iter()
                    .map(|e| self.static_truth(test, &e.state))
                    .collect();
                let Some(truths) = truths else {
                    return Err(edges);
                };
                let (mut t, mut f) = (Vec::new(), Vec::new());
                for (e, truth) in edges.into_iter().zip(truths) {
                    if truth {
                        t.push(e);
                    } else {
                        f.push(e);
                    }
                }
                let mut out = self.static_branch(t, body);
                out.extend(self.static_branch(f, orelse));
                Ok(out)
            }
            StmtKind::Break | StmtKind::Continue if !self.loop_exit_runs_finally() => {
                let is_break = matches!(s.kind, StmtKind::Break);
                let Some(l) = self.loops.last_mut() else {
                    return Err(edges);
                };
                // A `for` loop's header takes its counter: only a break or
                // a `while` loop's top leaves the loop's depth.
                if is_break || l.continues.is_some() {
                    for e in &mut edges {
                        e.state.stack.truncate(l.base_depth);
                    }
                }
                if is_break {
                    l.breaks.extend(edges);
                } else if let Some(continues) = l.continues.as_mut() {
                    continues.extend(edges);
                } else {
                    let header = l.header.clone();
                    for e in edges {
                        self.resolve(e, &header);
                    }
                }
                Ok(Vec::new())
            }
            _ => Err(edges),
        }
    }

    /// The slot of a plain local assigned by a statement.
    fn static_target(&self, target: &Expr) -> Option<usize> {
        match &target.kind {
            ExprKind::Name(n) if !self.declared_global.contains(n) => self.slot_of.get(n).copied(),
            _ => None,
        }
    }

    fn static_store(
        &mut self,
        mut edges: Vec<Edge>,
        slot: usize,
        value: &Expr,
    ) -> Result<Vec<Edge>, Vec<Edge>> {
        let values: Option<Vec<Constant>> = edges
            .iter()
            .map(|e| self.static_value(value, &e.state))
            .collect();
        let Some(values) = values else {
            return Err(edges);
        };
        for (e, v) in edges.iter_mut().zip(values) {
            if let (Some(env), Some(maybe)) =
                (e.state.env.get_mut(slot), e.state.maybe.get_mut(slot))
            {
                *env = Some(Arg::Const(v));
                *maybe = false;
            }
        }
        Ok(edges)
    }

    /// Runs `stmts` on the paths `edges`, without operations while they
    /// need none, then as one path.
    fn static_branch(&mut self, mut edges: Vec<Edge>, stmts: &[Stmt]) -> Vec<Edge> {
        for (i, s) in stmts.iter().enumerate() {
            if edges.is_empty() {
                return edges;
            }
            match self.static_stmt(edges, s) {
                Ok(out) => edges = out,
                Err(back) => {
                    self.join(back);
                    return self.block_edges(&stmts[i..]);
                }
            }
        }
        edges
    }

    fn shape_of(&self, s: &State) -> HeaderShape {
        let value = |a: &Arg| match a {
            Arg::Const(c) => Shape::Const(c.clone()),
            Arg::Var(_) => Shape::Var {
                is_bool: self.arg_is_bool(a),
            },
        };
        let env = s
            .env
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Some(a) => value(a),
                None => Shape::Unassigned {
                    maybe: s.maybe.get(i).copied().unwrap_or(false),
                },
            })
            .collect();
        HeaderShape {
            env,
            stack: s.stack.iter().map(value).collect(),
        }
    }

    /// Whether a state can enter a header of shape `t` as it is.
    fn fits(&self, t: &HeaderShape, s: &State) -> bool {
        let fits_one = |shape: &Shape, have: Option<&Arg>| match shape {
            Shape::Unassigned { .. } => true,
            Shape::Const(c) => have.and_then(|a| a.as_const()) == Some(c),
            Shape::Var { is_bool } => have.is_some_and(|a| !is_bool || self.arg_is_bool(a)),
        };
        let env_ok = t
            .env
            .iter()
            .enumerate()
            .all(|(i, shape)| fits_one(shape, s.env.get(i).and_then(|v| v.as_ref())));
        env_ok
            && t.stack.len() == s.stack.len()
            && t.stack
                .iter()
                .zip(&s.stack)
                .all(|(shape, a)| fits_one(shape, Some(a)))
    }

    /// A header's entry state: a fresh variable for each variable of `shape`.
    fn template_of(&mut self, shape: &HeaderShape) -> State {
        let nslots = self.slots.len();
        let mut t = State::unassigned(nslots);
        for (i, s) in shape.env.iter().enumerate().take(nslots) {
            match s {
                Shape::Unassigned { maybe } => t.maybe[i] = *maybe,
                Shape::Const(c) => t.env[i] = Some(Arg::Const(c.clone())),
                Shape::Var { is_bool } => {
                    let name = Some(self.slots[i].clone());
                    t.env[i] = Some(Arg::Var(self.new_var(name, *is_bool)));
                }
            }
        }
        for s in &shape.stack {
            t.stack.push(match s {
                Shape::Const(c) => Arg::Const(c.clone()),
                Shape::Var { is_bool } => Arg::Var(self.new_var(None, *is_bool)),
                Shape::Unassigned { .. } => {
                    self.internal("a loop header's stack holds an unassigned value");
                    Arg::Const(Constant::None)
                }
            });
        }
        t
    }

    fn mark(&mut self) -> Mark {
        Mark {
            blocks: self.g.blocks.len(),
            vars: self.g.vars.len(),
            is_bool: self.is_bool.len(),
            diags: self.diags.len(),
            referenced: self.referenced.len(),
            slots: self.slots.len(),
            exc: self.exc_mark(),
            local_modules: self.local_modules.clone(),
        }
    }

    /// Forgets everything built since `mark`; the `entry` edges are pending
    /// again.
    fn rollback(&mut self, mark: Mark, entry: &[Edge]) {
        self.g.blocks.truncate(mark.blocks);
        self.g.vars.truncate(mark.vars);
        self.is_bool.truncate(mark.is_bool);
        self.diags.truncate(mark.diags);
        self.referenced.truncate(mark.referenced);
        self.slots.truncate(mark.slots);
        self.slot_of.retain(|_, i| *i < mark.slots);
        self.exc_rollback(&mark.exc);
        self.local_modules = mark.local_modules;
        for e in entry {
            if let Some(link) = self.g.block_mut(e.from).exits.get_mut(e.exit) {
                link.target = PENDING;
                link.args.clear();
            }
        }
        self.at = super::At::Dead;
        self.state = State::default();
    }

    /// The truth of a loop test in state `s` when it needs no operation:
    /// literals, locals holding constants, and the arithmetic, comparisons
    /// and boolean operators the builder folds. `None` when anything in it
    /// is known only at run time.
    pub(super) fn static_truth(&self, test: &Expr, s: &State) -> Option<bool> {
        truthy(&self.static_value(test, s)?)
    }

    fn static_value(&self, e: &Expr, s: &State) -> Option<Constant> {
        match &e.kind {
            ExprKind::Int(i) => Some(Constant::Int(*i)),
            ExprKind::Float(f) => Some(Constant::Float(*f)),
            ExprKind::Str(v) => Some(Constant::Str(v.clone())),
            ExprKind::Bool(b) => Some(Constant::Bool(*b)),
            ExprKind::None => Some(Constant::None),
            ExprKind::Name(n) => match self.slot_of.get(n) {
                Some(&i) => match s.env.get(i)? {
                    Some(Arg::Const(c)) => Some(c.clone()),
                    _ => None,
                },
                // A module global after import: its value, when a plain constant.
                None => match (&self.m.access, self.m.global(n)?) {
                    (GlobalAccess::Constants, Global::Const(c)) => Some(c.clone()),
                    _ => None,
                },
            },
            ExprKind::BinOp { op, left, right } => {
                let l = self.static_value(left, s)?;
                let r = self.static_value(right, s)?;
                fold(binop_name(*op, self.m.dialect), &[&l, &r])
            }
            ExprKind::UnaryOp { op, operand } => {
                let v = self.static_value(operand, s)?;
                let name = match op {
                    UnaryOp::Neg => Opcode::Neg,
                    UnaryOp::Pos => Opcode::Pos,
                    UnaryOp::Invert => Opcode::Invert,
                    UnaryOp::Not => Opcode::Not,
                };
                fold(name, &[&v])
            }
            ExprKind::BoolOp { op, values } => {
                let mut last = None;
                for v in values {
                    let c = self.static_value(v, s)?;
                    let t = truthy(&c)?;
                    let decides = match op {
                        BoolOp::And => !t,
                        BoolOp::Or => t,
                    };
                    if decides {
                        return Some(c);
                    }
                    last = Some(c);
                }
                last
            }
            ExprKind::Compare { left, ops } => {
                let mut l = self.static_value(left, s)?;
                let mut result = Constant::Bool(true);
                for (op, right) in ops {
                    let r = self.static_value(right, s)?;
                    result = static_compare(*op, &l, &r)?;
                    if truthy(&result) != Some(true) {
                        return Some(result);
                    }
                    l = r;
                }
                Some(result)
            }
            _ => None,
        }
    }
}

/// A comparison of two constants, as `FnBuilder::compare_op` folds it.
fn static_compare(op: CmpOp, l: &Constant, r: &Constant) -> Option<Constant> {
    let negate = |c: Constant| fold(Opcode::Not, &[&c]);
    match op {
        CmpOp::Lt => fold(Opcode::Lt, &[l, r]),
        CmpOp::Le => fold(Opcode::Le, &[l, r]),
        CmpOp::Eq => fold(Opcode::Eq, &[l, r]),
        CmpOp::Ne => fold(Opcode::Ne, &[l, r]),
        CmpOp::Gt => fold(Opcode::Gt, &[l, r]),
        CmpOp::Ge => fold(Opcode::Ge, &[l, r]),
        CmpOp::Is => fold(Opcode::Is, &[l, r]),
        CmpOp::IsNot => negate(fold(Opcode::Is, &[l, r])?),
        CmpOp::In => fold(Opcode::Contains, &[r, l]),
        CmpOp::NotIn => negate(fold(Opcode::Contains, &[r, l])?),
    }
}

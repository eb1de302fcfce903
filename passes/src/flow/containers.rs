//! Containers in flow graphs: tuple, list and dict displays, subscripts and
//! slices, unpacking assignments, `del` of items and names, and list
//! comprehensions, recorded with the original flow space's operation names
//! (`newtuple`, `newlist`, `newdict`, `getitem`, `setitem`, `delitem`,
//! `getslice`, `delslice`; methods are `getattr` then `simple_call`).
//!
//! A tuple is immutable, so a variable that a `newtuple` of the current block
//! defined is known item by item: unpacking it, indexing it with a constant
//! and taking its `len` use the items without operations (this is what makes
//! `a, b = b, a` cost nothing, as in CPython's compiler).
//!
//! `for` over anything but a counted `range` records `iter(x)` and, in the
//! loop header, `next(it)`, whose `StopIteration` ends the loop.
//!
//! A list comprehension is a loop in the graph, built as the statement
//! `for target in iter: if cond: <list>.append(elt)` over a hidden local that
//! holds the list. Its loop variables are the function's own locals in
//! Python 2 (they leak out of the comprehension there) and hidden locals of
//! the comprehension in Python 3.

use super::super::scan::{target_names, NameList};
use super::FnBuilder;
use rpy_ir::ast::{Comprehension, Dialect, Expr, ExprKind, Stmt, StmtKind};
use rpy_ir::diag::Pos;
use rpy_ir::graph::{Arg, Constant, Link};
use rpy_ir::opcode::Opcode;

impl FnBuilder<'_, '_> {
    /// `(a, b, ...)`: `newtuple`.
    pub(super) fn tuple_display(&mut self, items: &[Expr], pos: Pos) -> Arg {
        if self.reject_starred(items) {
            return Arg::Const(Constant::None);
        }
        let vals = self.expr_list(items);
        Arg::Var(self.emit(Opcode::Newtuple, vals, pos))
    }

    /// `[a, b, ...]`: `newlist`.
    pub(super) fn list_display(&mut self, items: &[Expr], pos: Pos) -> Arg {
        if self.reject_starred(items) {
            return Arg::Const(Constant::None);
        }
        let vals = self.expr_list(items);
        Arg::Var(self.emit(Opcode::Newlist, vals, pos))
    }

    /// `{k: v, ...}`: an empty `newdict`, then one `setitem` per entry in
    /// source order (keys and values evaluated as CPython does, key first).
    pub(super) fn dict_display(&mut self, entries: &[(Expr, Expr)], pos: Pos) -> Arg {
        let mut d = Arg::Var(self.emit(Opcode::Newdict, Vec::new(), pos));
        for (k, v) in entries {
            if !self.live() {
                break;
            }
            // Held on the stack: an entry with control flow moves to a new block.
            self.push(d);
            let [key, value] = self.exprs([k, v]);
            d = self.pop();
            self.emit(Opcode::Setitem, vec![d.clone(), key, value], k.pos);
        }
        d
    }

    /// `obj[index]`, folded for a constant index into a known tuple.
    pub(super) fn subscript(&mut self, value: &Expr, index: &Expr, pos: Pos) -> Arg {
        if let Some(module) = self.globals_dict(value) {
            let name = self.expr(index);
            return self.op(Opcode::Getattr, vec![module, name], pos);
        }
        let [obj, idx] = self.exprs([value, index]);
        if let (Some(items), Arg::Const(Constant::Int(i))) = (self.known_tuple(&obj), &idx) {
            let n = items.len() as i64;
            let k = if *i < 0 { i + n } else { *i };
            if (0..n).contains(&k) {
                return items[k as usize].clone();
            }
        }
        self.op(Opcode::Getitem, vec![obj, idx], pos)
    }

    /// `obj[lower:upper]`: `getslice(obj, lower, upper)`, a missing bound
    /// passed as `None`.
    pub(super) fn slice(
        &mut self,
        value: &Expr,
        lower: Option<&Expr>,
        upper: Option<&Expr>,
        pos: Pos,
    ) -> Arg {
        let [obj, lo, hi] = self.slice_operands(value, lower, upper);
        Arg::Var(self.emit(Opcode::Getslice, vec![obj, lo, hi], pos))
    }

    pub(super) fn slice_operands(
        &mut self,
        value: &Expr,
        lower: Option<&Expr>,
        upper: Option<&Expr>,
    ) -> [Arg; 3] {
        let obj = self.expr(value);
        self.push(obj);
        let lo = match lower {
            Some(e) => self.expr(e),
            None => Arg::Const(Constant::None),
        };
        self.push(lo);
        let hi = match upper {
            Some(e) => self.expr(e),
            None => Arg::Const(Constant::None),
        };
        let lo = self.pop();
        let obj = self.pop();
        [obj, lo, hi]
    }

    /// The items of a tuple this block built with `newtuple`, if `a` is one.
    pub(super) fn known_tuple(&self, a: &Arg) -> Option<Vec<Arg>> {
        let Arg::Var(v) = a else {
            return None;
        };
        let super::At::Block(b) = self.at else {
            return None;
        };
        self.g
            .block(b)
            .operations
            .iter()
            .rev()
            .find(|o| o.result == *v)
            .filter(|o| o.opname == Opcode::Newtuple)
            .map(|o| o.args.clone())
    }

    /// `len(t)` of a tuple known item by item.
    pub(super) fn fold_known_len(&self, call_args: &[Arg]) -> Option<Arg> {
        match call_args {
            [Arg::Const(Constant::Builtin(f)), t] if f == "len" => {
                let n = self.known_tuple(t)?.len();
                Some(Arg::Const(Constant::Int(n as i64)))
            }
            _ => None,
        }
    }

    /// Reports `*x` among display items or targets (Python 3's extended
    /// unpacking), which RPython has no equivalent for.
    fn reject_starred(&mut self, items: &[Expr]) -> bool {
        let starred: Vec<Pos> = items
            .iter()
            .filter(|i| matches!(i.kind, ExprKind::Starred(_)))
            .map(|i| i.pos)
            .collect();
        for p in &starred {
            self.error(
                *p,
                "starred items ('*x') are not supported by RPython; index or slice the sequence instead",
            );
        }
        !starred.is_empty()
    }

    /// Assigns the value on top of the stack to the targets of `a, b = ...`
    /// (leaving it there): item by item when it is a known tuple, else
    /// through `getitem` with constant indexes.
    pub(super) fn store_unpack(&mut self, targets: &[Expr], pos: Pos) {
        if self.reject_starred(targets) {
            return;
        }
        let v = self.top();
        let items: Vec<Arg> = match self.known_tuple(&v) {
            Some(items) if items.len() != targets.len() => {
                self.unpack_count_error(items.len(), targets.len(), pos);
                return self.bind_placeholders(targets);
            }
            Some(items) => items,
            None => {
                if let Arg::Const(
                    c @ (Constant::Int(_)
                    | Constant::UInt(_)
                    | Constant::Float(_)
                    | Constant::Bool(_)
                    | Constant::None),
                ) = &v
                {
                    self.error(
                        pos,
                        format!(
                            "cannot unpack the constant {}; only tuples, lists and other sequences can be unpacked",
                            constant_text(c)
                        ),
                    );
                    return self.bind_placeholders(targets);
                }
                let mut items = Vec::with_capacity(targets.len());
                for k in 0..targets.len() {
                    let i = Arg::Const(Constant::Int(k as i64));
                    items.push(Arg::Var(self.emit(
                        Opcode::Getitem,
                        vec![v.clone(), i],
                        pos,
                    )));
                }
                items
            }
        };
        self.store_items(targets, items);
    }

    /// Stores `items` (values of the current block) into `targets`, in order.
    fn store_items(&mut self, targets: &[Expr], items: Vec<Arg>) {
        let depth = self.state.stack.len();
        for item in items.iter().rev() {
            self.push(item.clone());
        }
        for t in targets {
            if !self.live() {
                return;
            }
            self.store(t);
            self.drop_top();
        }
        if self.live() && self.state.stack.len() != depth {
            self.internal("unpacking left values on the stack");
        }
    }

    /// After an unpacking error, binds the targets' names to a placeholder so
    /// that their uses do not report them unassigned as well.
    fn bind_placeholders(&mut self, targets: &[Expr]) {
        let mut names = NameList::default();
        for t in targets {
            target_names(t, &mut names);
        }
        for n in names.into_vec() {
            if self.slot_of.contains_key(n.as_str()) {
                self.store_name(&n, Arg::Const(Constant::None), Pos::default());
            }
        }
    }

    fn unpack_count_error(&mut self, have: usize, want: usize, pos: Pos) {
        let plural = |n: usize, one: &str, many: &str| {
            if n == 1 {
                format!("{n} {one}")
            } else {
                format!("{n} {many}")
            }
        };
        self.error(
            pos,
            format!(
                "cannot unpack a tuple of {} into {}; give as many targets as the tuple has items",
                plural(have, "item", "items"),
                plural(want, "target", "targets")
            ),
        );
    }

    /// `a, b = x, y` with a display on the right: the values are evaluated
    /// first, then assigned left to right, without building the tuple.
    /// Returns false when the statement is not of that shape.
    pub(super) fn assign_display_to_targets(&mut self, targets: &[Expr], value: &Expr) -> bool {
        let [target] = targets else {
            return false;
        };
        let (ExprKind::Tuple(names) | ExprKind::List(names), ExprKind::Tuple(vals)) =
            (&target.kind, &value.kind)
        else {
            return false;
        };
        if self.reject_starred(names) || self.reject_starred(vals) {
            return true;
        }
        if names.len() != vals.len() {
            self.unpack_count_error(vals.len(), names.len(), target.pos);
            self.bind_placeholders(names);
            return true;
        }
        // `expr_list` reads every value back through the stack, so all are
        // values of the block it ends in.
        let items = self.expr_list(vals);
        if self.live() {
            self.store_items(names, items);
        }
        true
    }

    /// `for target in iter:` over anything but a counted range: `iter(x)`
    /// before the loop; in the loop header `next(it)`, the header's only
    /// operation, whose `StopIteration` leaves the loop (the header switches
    /// on the last exception: the normal exit goes to the body, the
    /// `StopIteration` exit to the `else` clause and on).
    pub(super) fn iter_loop(
        &mut self,
        target: &Expr,
        iter: &Expr,
        body: &[Stmt],
        orelse: &[Stmt],
        pos: Pos,
    ) {
        let seq = self.expr(iter);
        if !self.live() {
            return;
        }
        self.iter_loop_over(seq, target, iter.pos, body, orelse, pos);
    }

    /// The loop of `iter_loop` over `seq`, the value `iter` gave (at
    /// `iter_pos`).
    pub(super) fn iter_loop_over(
        &mut self,
        seq: Arg,
        target: &Expr,
        iter_pos: Pos,
        body: &[Stmt],
        orelse: &[Stmt],
        pos: Pos,
    ) {
        if let Some(items) = self.unrolled_items(&seq) {
            return self.unrolled_loop(target, items, body, orelse);
        }
        let it = Arg::Var(self.emit(Opcode::Iter, vec![seq], iter_pos));
        let base_depth = self.state.stack.len();
        self.push(it);
        let mut assigned = self.assigned_mask(body, None);
        let mut names = NameList::default();
        target_names(target, &mut names);
        for n in names.iter() {
            if let Some(&i) = self.slot_of.get(n.as_str()) {
                assigned[i] = true;
            }
        }
        let header = self.enter_loop(&assigned, None);
        let Some(it) = self.state.stack.get(base_depth).cloned() else {
            return self.internal("the for loop's iterator is missing");
        };
        let item = self.emit_without_handlers(Opcode::Next, vec![it], pos);
        let b = self.cur_block();
        self.at = super::At::Dead;
        let block = self.g.block_mut(b);
        block.exitswitch = Some(Arg::Const(Constant::LastException));
        block
            .exits
            .push(Link::new(Vec::new(), super::PENDING, None));
        block.exits.push(Link::new(
            Vec::new(),
            super::PENDING,
            Some(Constant::Class("StopIteration".to_string())),
        ));
        let n = block.exits.len();
        let mut state = std::mem::take(&mut self.state);
        let mut stopped = state.clone();
        stopped.stack.truncate(base_depth);
        state.stack.push(Arg::Var(item));
        let next = super::Edge {
            from: b,
            exit: n - 2,
            state,
        };
        let stop = super::Edge {
            from: b,
            exit: n - 1,
            state: stopped,
        };

        self.loops.push(super::LoopCtx {
            header: header.clone(),
            base_depth,
            breaks: Vec::new(),
            continues: None,
        });
        self.join(vec![next]);
        self.store(target);
        if self.live() {
            self.drop_top();
        }
        self.block(body);
        for e in self.close() {
            self.resolve(e, &header);
        }
        let ctx = self.loops.pop();
        let mut out = self.branch_body(vec![stop], orelse);
        out.extend(ctx.map(|c| c.breaks).unwrap_or_default());
        self.join(out);
    }

    /// `del target`: a local becomes unbound; an item or slice is deleted
    /// with `delitem` / `delslice`.
    pub(super) fn del_target(&mut self, target: &Expr) {
        let pos = target.pos;
        match &target.kind {
            ExprKind::Name(n) => {
                if self.peek_local(n).is_none() {
                    self.load_name(n, pos); // reports the unbound name
                    return;
                }
                if let Some(&i) = self.slot_of.get(n.as_str()) {
                    self.state.env[i] = None;
                    self.state.maybe[i] = false;
                }
            }
            ExprKind::Subscript { value, index } => {
                let [obj, idx] = self.exprs([value.as_ref(), index.as_ref()]);
                self.emit(Opcode::Delitem, vec![obj, idx], pos);
            }
            ExprKind::Slice {
                value,
                lower,
                upper,
            } => {
                let [obj, lo, hi] = self.slice_operands(value, lower.as_deref(), upper.as_deref());
                self.emit(Opcode::Delslice, vec![obj, lo, hi], pos);
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                for item in items {
                    if !self.live() {
                        break;
                    }
                    self.del_target(item);
                }
            }
            ExprKind::Attribute { .. } => self.error(
                pos,
                "deleting an attribute is not supported by RPython; assign None to it instead",
            ),
            _ => self.error(pos, "cannot delete this expression"),
        }
    }

    /// `[elt for target in iter if cond ...]`: a new list filled by nested
    /// loops, one per `for`, each body guarded by its conditions.
    pub(super) fn list_comp(&mut self, elt: &Expr, generators: &[Comprehension], pos: Pos) -> Arg {
        // Slots only grow, so their count names this comprehension uniquely.
        let tag = self.slots.len();
        let list_name = format!("<listcomp{tag}>");
        let list_slot = self.hidden_slot(&list_name);
        let new = Arg::Var(self.emit(Opcode::Newlist, Vec::new(), pos));
        self.store_name(&list_name, new, pos);

        // Python 3: the loop variables are the comprehension's own.
        let mut shadowed = Vec::new();
        if self.m.dialect == Dialect::Py3 {
            let mut names = NameList::default();
            for g in generators {
                target_names(&g.target, &mut names);
            }
            for n in names.into_vec() {
                let hidden = format!("{n}<listcomp{tag}>");
                let i = self.hidden_slot(&hidden);
                shadowed.push((n.clone(), self.slot_of.insert(n, i), i));
            }
        }
        // Python 2: they are the function's locals (`scan::comprehension_targets`
        // made them slots, so loops around the comprehension see them assigned).

        let body = comprehension_loops(elt, generators, &list_name, pos);
        self.block(&body);

        let result = if self.live() {
            self.load_name(&list_name, pos)
        } else {
            Arg::Const(Constant::None)
        };
        // The hidden locals end with the comprehension.
        self.push(result);
        for (name, old, hidden) in shadowed {
            match old {
                Some(o) => self.slot_of.insert(name, o),
                None => self.slot_of.remove(&name),
            };
            self.unbind_slot(hidden);
        }
        self.unbind_slot(list_slot);
        self.pop()
    }

    /// A new local slot that no source name can reach: its name is not an
    /// identifier.
    fn hidden_slot(&mut self, name: &str) -> usize {
        let i = self.slots.len();
        self.slots.push(name.to_string());
        self.slot_of.insert(name.to_string(), i);
        self.state.env.resize(self.slots.len(), None);
        self.state.maybe.resize(self.slots.len(), false);
        i
    }

    fn unbind_slot(&mut self, i: usize) {
        if self.live() {
            if let Some(v) = self.state.env.get_mut(i) {
                *v = None;
            }
        }
    }
}

/// The statements a list comprehension runs: nested `for` loops over its
/// generators, each body guarded by the generator's conditions, the innermost
/// appending `elt` to the list in the local `list_name`.
fn comprehension_loops(
    elt: &Expr,
    generators: &[Comprehension],
    list_name: &str,
    pos: Pos,
) -> Vec<Stmt> {
    let expr = |kind: ExprKind, pos: Pos| Expr { pos, kind };
    let append = expr(
        ExprKind::Call {
            func: Box::new(expr(
                ExprKind::Attribute {
                    value: Box::new(expr(ExprKind::Name(list_name.to_string()), pos)),
                    attr: "append".to_string(),
                },
                elt.pos,
            )),
            args: vec![elt.clone()],
            keywords: Vec::new(),
            star_args: None,
            kwargs: None,
        },
        elt.pos,
    );
    let mut body = vec![Stmt {
        pos: elt.pos,
        kind: StmtKind::Expr(append),
    }];
    for g in generators.iter().rev() {
        for cond in g.ifs.iter().rev() {
            body = vec![Stmt {
                pos: cond.pos,
                kind: StmtKind::If {
                    test: cond.clone(),
                    body,
                    orelse: Vec::new(),
                },
            }];
        }
        body = vec![Stmt {
            pos: g.target.pos,
            kind: StmtKind::For {
                target: g.target.clone(),
                iter: g.iter.clone(),
                body,
                orelse: Vec::new(),
            },
        }];
    }
    body
}

/// A constant that cannot be unpacked, as the diagnostic shows it.
fn constant_text(c: &Constant) -> String {
    match c {
        Constant::Int(i) => i.to_string(),
        Constant::Float(f) => f.to_string(),
        Constant::Bool(true) => "True".into(),
        Constant::Bool(false) => "False".into(),
        _ => "None".into(),
    }
}

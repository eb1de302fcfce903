//! `for` loops over an `unrolling_iterable` (`rpython.rlib.unroll`), which
//! the original's flow space unrolls: the iterable is a prebuilt constant,
//! so the builder copies the loop body once per item, the loop variable a
//! constant in each copy. A `for op, fn in DISPATCH:` with `if opcode ==
//! op: fn(...)` in its body thus becomes a chain of tests with direct
//! calls, no table and no iterator at run time.
//!
//! `break` leaves the whole chain, `continue` goes on to the next copy,
//! and the `else` clause runs after the last copy, as Python runs them.

use super::{FnBuilder, JoinPoint, LoopCtx};
use rpy_ir::ast::{Expr, ExprKind, Stmt};
use rpy_ir::graph::{Arg, Constant, PrebuiltObject};

/// The qualified name of the class whose instances are unrolled.
const UNROLLING_CLASS: &str = "rpython.rlib.unroll.unrolling_iterable";

impl FnBuilder<'_, '_> {
    /// The items of `seq` when it is a prebuilt `unrolling_iterable`.
    pub(super) fn unrolled_items(&self, seq: &Arg) -> Option<Vec<Constant>> {
        let Arg::Const(Constant::Prebuilt(id)) = seq else {
            return None;
        };
        let table = self.m.program.prebuilt.borrow();
        let PrebuiltObject::Instance { class, attrs } = table.objects.get(*id as usize)? else {
            return None;
        };
        if class != UNROLLING_CLASS {
            return None;
        }
        let (_, Constant::Prebuilt(items)) = attrs.iter().find(|(a, _)| a == "_items")? else {
            return None;
        };
        match table.objects.get(*items as usize)? {
            PrebuiltObject::List(items) | PrebuiltObject::Tuple(items) => Some(items.clone()),
            _ => None,
        }
    }

    /// The loop `for target in <items>: body else: orelse`, unrolled.
    pub(super) fn unrolled_loop(
        &mut self,
        target: &Expr,
        items: Vec<Constant>,
        body: &[Stmt],
        orelse: &[Stmt],
    ) {
        let base_depth = self.state.stack.len();
        let mut breaks = Vec::new();
        for item in items {
            if !self.live() {
                break;
            }
            // `continue` edges are collected (`continues`) and joined
            // where the next copy starts; the header is never jumped to.
            let block = self.cur_block();
            self.loops.push(LoopCtx {
                header: JoinPoint {
                    block,
                    template: self.state.clone(),
                },
                base_depth,
                breaks: Vec::new(),
                continues: Some(Vec::new()),
            });
            self.store_constant(target, item);
            self.block(body);
            let mut next = self.close();
            if let Some(ctx) = self.loops.pop() {
                next.extend(ctx.continues.unwrap_or_default());
                breaks.extend(ctx.breaks);
            }
            self.join(next);
        }
        let edges = self.close();
        let mut out = self.branch_body(edges, orelse);
        out.extend(breaks);
        self.join(out);
    }

    /// Assigns the constant `value` to `target`, unpacking a prebuilt
    /// tuple item by item at flow time (so each name is a constant too).
    fn store_constant(&mut self, target: &Expr, value: Constant) {
        if let (ExprKind::Tuple(names) | ExprKind::List(names), Constant::Prebuilt(id)) =
            (&target.kind, &value)
        {
            let items = match self.m.program.prebuilt.borrow().objects.get(*id as usize) {
                Some(PrebuiltObject::Tuple(items)) if items.len() == names.len() => {
                    Some(items.clone())
                }
                _ => None,
            };
            if let Some(items) = items {
                for (name, item) in names.iter().zip(items) {
                    self.store_constant(name, item);
                }
                return;
            }
        }
        self.push(Arg::Const(value));
        self.store(target);
        if self.live() {
            self.drop_top();
        }
    }
}

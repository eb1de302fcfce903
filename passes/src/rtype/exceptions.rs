//! Exceptions in low-level graphs: an exception is a vtable pointer (its
//! class) and an instance pointer; the except block takes
//! `(Ptr(object_vtable), Ptr(object))`, each handler's exit case is the
//! static vtable of the class it catches, and only calls raise
//! (`llops::can_raise`), so a block that switches on `last_exception`
//! must end in one.

use super::GraphTyper;
use rpy_ir::graph::{Arg, Constant, FunctionGraph, Link, LowLevel, SpaceOperation, Var};
use rpy_ir::llops;
use rpy_ir::lltype::{self, LowLevelType};

fn exception_types() -> (LowLevelType, LowLevelType) {
    (
        LowLevelType::Ptr(lltype::OBJECT_VTABLE.into()),
        LowLevelType::Ptr(lltype::OBJECT.into()),
    )
}

/// Gives the except block and the variables handlers define the types
/// every exception has.
pub fn type_except_block(g: &mut FunctionGraph<LowLevel>) {
    let (etype, evalue) = exception_types();
    let except = g.block(g.exceptblock).inputargs.clone();
    g.vars[except[0].0 as usize].info = etype.clone();
    g.vars[except[1].0 as usize].info = evalue.clone();
    let mut defined = Vec::new();
    for block in &g.blocks {
        for link in &block.exits {
            defined.extend(link.last_exception.map(|v| (v, etype.clone())));
            defined.extend(link.last_exc_value.map(|v| (v, evalue.clone())));
        }
    }
    for (v, t) in defined {
        g.vars[v.0 as usize].info = t;
    }
}

impl GraphTyper<'_, '_, '_> {
    /// The value of a variable that has no representation, as its
    /// annotation knows it (one class, one function, None, or one frozen
    /// object that other variables hold with others: its static).
    pub(super) fn void_value(&self, a: &Arg) -> Option<Constant> {
        match a {
            Arg::Var(_) => {
                let annotation = self.annotation(a);
                super::repr::single_value(&annotation).or_else(|| self.frozen_static(&annotation))
            }
            Arg::Const(_) => None,
        }
    }

    /// Lowers the exits of block `b`: each exit case (a caught class
    /// becomes its vtable) and each link's arguments, converted to the
    /// target's types. In a block that switches on `last_exception`,
    /// nothing may run after the raising call: what lowering put after it
    /// (converting its result) and every link's conversions go in a block
    /// of their own on the link.
    pub(super) fn lower_exits(&mut self, b: usize, raising: bool) -> Result<(), String> {
        let mut exits = std::mem::take(&mut self.graph.blocks[b].exits);
        let mut tail = Vec::new();
        if raising {
            if let Some(k) = self.out.iter().rposition(|op| llops::can_raise(op.opname)) {
                tail = self.out.split_off(k + 1);
            }
        }
        for (i, link) in exits.iter_mut().enumerate() {
            if let Some(Constant::Class(c)) = &link.exitcase {
                if !self.rt.classes.contains(c) {
                    return Err(format!("the exception class {c} has no layout"));
                }
                link.exitcase = Some(Constant::Prebuilt(self.rt.vtable_of(c)));
            }
            let prefix = if i == 0 {
                std::mem::take(&mut tail)
            } else {
                Vec::new()
            };
            if prefix.is_empty() {
                let saved = std::mem::take(&mut self.out);
                let converted = self.link_values(&link.args, link.target);
                let emitted = std::mem::replace(&mut self.out, saved);
                if !raising || emitted.is_empty() {
                    self.out.extend(emitted);
                    link.args = converted?;
                    continue;
                }
            }
            self.move_link_into_block(link, prefix)?;
        }
        self.graph.blocks[b].exits = exits;
        Ok(())
    }

    /// `args` converted to the types of `target`'s input arguments.
    fn link_values(
        &mut self,
        args: &[Arg],
        target: rpy_ir::graph::BlockId,
    ) -> Result<Vec<Arg>, String> {
        let targets = self.graph.block(target).inputargs.clone();
        args.iter()
            .zip(&targets)
            .map(|(a, t)| {
                let to = self.graph.info(*t).clone();
                self.link_value(a, &to)
            })
            .collect()
    }

    /// Puts a block on `link` that runs `prefix` and the conversions of
    /// the link's arguments; it takes the variables they read.
    pub(super) fn move_link_into_block(
        &mut self,
        link: &mut Link,
        mut prefix: Vec<SpaceOperation>,
    ) -> Result<(), String> {
        let made_here: Vec<Var> = prefix.iter().map(|op| op.result).collect();
        let mut inputs: Vec<(Var, Var)> = Vec::new();
        let mut rename = |this: &mut Self, a: &Arg| -> Arg {
            match a {
                Arg::Var(v) if !made_here.contains(v) => {
                    let fresh = match inputs.iter().find(|(old, _)| old == v) {
                        Some(&(_, fresh)) => fresh,
                        None => {
                            let fresh = this.copy_var(*v);
                            inputs.push((*v, fresh));
                            fresh
                        }
                    };
                    Arg::Var(fresh)
                }
                other => other.clone(),
            }
        };
        for op in &mut prefix {
            op.args = op.args.iter().map(|a| rename(self, a)).collect();
        }
        let args: Vec<Arg> = link.args.iter().map(|a| rename(self, a)).collect();
        let saved = std::mem::replace(&mut self.out, prefix);
        let converted = self.link_values(&args, link.target);
        let ops = std::mem::replace(&mut self.out, saved);
        let block = self
            .graph
            .add_block(inputs.iter().map(|(_, fresh)| *fresh).collect());
        self.graph.block_mut(block).exits = vec![Link::new(converted?, link.target, None)];
        link.args = inputs.iter().map(|(old, _)| Arg::Var(*old)).collect();
        link.target = block;
        self.new_blocks.push((block, ops));
        Ok(())
    }

    /// `arg` as a value of type `to` passed along a link.
    fn link_value(&mut self, arg: &Arg, to: &LowLevelType) -> Result<Arg, String> {
        if self.type_of(arg) == LowLevelType::Void && *to != LowLevelType::Void {
            if let Some(c) = self.void_value(arg) {
                return self.arg_as(&Arg::Const(c), to);
            }
        }
        self.arg_as(arg, to)
    }

    /// A block switching on `last_exception` must end in a call after
    /// lowering: the operation whose exceptions its handlers catch.
    pub(super) fn check_raising_op(
        &mut self,
        b: usize,
        hl_op: Option<&SpaceOperation>,
    ) -> Result<(), String> {
        if self.graph.blocks[b].exitswitch != Some(Arg::Const(Constant::LastException)) {
            return Ok(());
        }
        let ends_in_call = self.out.iter().any(|op| llops::can_raise(op.opname));
        if ends_in_call {
            return Ok(());
        }
        let name = hl_op.map_or("an operation", |op| op.opname.name());
        Err(format!(
            "catching an exception of '{name}' needs the checked low-level helper of that operation, which the rtyper does not have yet"
        ))
    }
}

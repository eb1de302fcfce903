//! Lowering low-level helper code: operations on pointers become the
//! low-level operations they are, one to one.
//!
//! A helper's value of annotation `SomePtr(T)` is simply a `T`, so its
//! operations need no representation choice: `p.f` is `getfield`, `p.f = v`
//! `setfield`, `p[i]` `getarrayitem`, `p[i] = v` `setarrayitem`, `len(p)`
//! `getarraysize`, `malloc(T)` / `malloc(T, n)` `malloc` / `malloc_varsize`,
//! `p is None` `ptr_iszero`, `p is q` / `p == q` `ptr_eq`, truth
//! `ptr_nonzero`. Which operation an `getattr` or `getitem` is depends on
//! the annotation of its operand, so `lower_pointer_ops` rewrites them on
//! the annotated graph, before the rtyper maps annotations to low-level
//! types; it also puts in the constants the annotator folded (low-level
//! types, the one function a variable holds), since the rtyper sees only
//! low-level types, and a type is `Void`. Integer arithmetic of helpers
//! goes through the rtyper's rules like the user's.

use super::GraphTyper;
use crate::annotate::known_constant_of;
use fxhash::FxHashMap as HashMap;
use rpy_ir::annotation::SomeValue;
use rpy_ir::graph::{Annotated, Arg, Constant, FunctionGraph, SpaceOperation, Var};
use rpy_ir::llops;
use rpy_ir::lltype::LowLevelType;
use rpy_ir::opcode::Opcode;

/// The constant a variable of annotation `a` always holds, when the
/// rtyper needs it as a constant: a low-level type (`Name`), the one
/// function it may be, a value the annotator knows (`eqfn is None` in a
/// copy whose `eqfn` is None).
fn folded_constant(a: &SomeValue) -> Option<Constant> {
    match a {
        SomeValue::LLType(t) => Some(Constant::Name(t.clone())),
        other => known_constant_of(other),
    }
}

/// Rewrites the operations of helper graph `g` on pointers and types to
/// low-level operations (see the module's comment).
pub fn lower_pointer_ops(g: &mut FunctionGraph<Annotated>) {
    let mut constants: HashMap<Var, Constant> = (0..g.vars.len())
        .filter_map(|i| {
            let v = Var(i as u32);
            folded_constant(g.info(v)).map(|c| (v, c))
        })
        .collect();
    let fold = |constants: &HashMap<Var, Constant>, a: &mut Arg| {
        if let Some(c) = a.as_var().and_then(|v| constants.get(&v)) {
            *a = Arg::Const(c.clone());
        }
    };
    let ann: Vec<SomeValue> = g.vars.iter().map(|d| d.info.clone()).collect();
    let is_ptr = |a: &Arg| match a {
        Arg::Var(v) => matches!(ann[v.0 as usize], SomeValue::Ptr(_)),
        Arg::Const(_) => false,
    };
    for block in &mut g.blocks {
        let mut ops = Vec::with_capacity(block.operations.len());
        for mut op in std::mem::take(&mut block.operations) {
            // What computes a folded constant (`typeOf(p)`, `T.items`, a
            // test the annotator decided) is not run; a call is, for its
            // effects.
            let pure_constant = matches!(ann[op.result.0 as usize], SomeValue::LLType(_))
                || matches!(ann[op.result.0 as usize], SomeValue::Const(_));
            if pure_constant && !is_call(&op) {
                continue;
            }
            op.args.iter_mut().for_each(|a| fold(&constants, a));
            if let Some(c) = static_comparison(&op) {
                constants.insert(op.result, c);
                continue;
            }
            let ptr_args: Vec<bool> = op.args.iter().map(is_ptr).collect();
            // Tuples compare by their items, as the rtyper lowers `==` of
            // two tuples (a dict keyed by tuples), not by identity.
            let compares_tuples = matches!(op.opname, Opcode::Eq | Opcode::Ne)
                && op.args.iter().any(|a| is_tuple_ptr(&ann, a));
            if compares_tuples {
                ops.push(op);
                continue;
            }
            if let Some(lowered) = lower_op(&op, &ptr_args) {
                op = lowered;
            }
            ops.push(op);
        }
        block.operations = ops;
        if let Some(switch) = &mut block.exitswitch {
            fold(&constants, switch);
        }
        for link in &mut block.exits {
            link.args.iter_mut().for_each(|a| fold(&constants, a));
        }
    }
}

/// The value of a comparison of two constants that have no run-time
/// value (`eqfn is None`, with `eqfn` None or a function): the annotator
/// decided it, and the rtyper has nothing to compare.
fn static_comparison(op: &SpaceOperation) -> Option<Constant> {
    let static_value = |a: &Arg| match a {
        Arg::Const(c @ (Constant::None | Constant::Func(_) | Constant::Name(_))) => Some(c.clone()),
        _ => None,
    };
    let [x, y] = op.args.as_slice() else {
        return None;
    };
    let same = static_value(x)? == static_value(y)?;
    match op.opname {
        Opcode::Is | Opcode::Eq => Some(Constant::Bool(same)),
        Opcode::Ne => Some(Constant::Bool(!same)),
        _ => None,
    }
}

/// Whether `a` is a pointer to a tuple's struct.
fn is_tuple_ptr(ann: &[SomeValue], a: &Arg) -> bool {
    matches!(a, Arg::Var(v)
        if matches!(&ann[v.0 as usize], SomeValue::Ptr(t) if super::repr::family(t) == super::repr::Family::Tuple))
}

/// Does `op` call a function (which may have effects)?
fn is_call(op: &SpaceOperation) -> bool {
    op.opname == Opcode::SimpleCall
        && !matches!(
            op.args.first(),
            Some(Arg::Const(Constant::Builtin(b))) if b == "typeOf" || b == "nullptr"
        )
}

/// The low-level operation `op` is, given which of its arguments are
/// pointers; `None` when it is not an operation on pointers.
fn lower_op(op: &SpaceOperation, ptr_args: &[bool]) -> Option<SpaceOperation> {
    let with = |opname: Opcode, args: Vec<Arg>| {
        Some(SpaceOperation {
            opname,
            args,
            result: op.result,
            pos: op.pos,
        })
    };
    let a = &op.args;
    let none = Arg::Const(Constant::None);
    let builtin = match a.first() {
        Some(Arg::Const(Constant::Builtin(b))) if op.opname == Opcode::SimpleCall => {
            Some(b.as_str())
        }
        _ => None,
    };
    match (op.opname, builtin, ptr_args) {
        (Opcode::Getattr, _, [true, _]) => with(Opcode::Getfield, a.clone()),
        (Opcode::Setattr, _, [true, _, _]) => with(Opcode::Setfield, a.clone()),
        (Opcode::Getitem, _, [true, _]) => with(Opcode::Getarrayitem, a.clone()),
        (Opcode::Setitem, _, [true, _, _]) => with(Opcode::Setarrayitem, a.clone()),
        (_, Some("len"), [_, true]) => with(Opcode::Getarraysize, vec![a[1].clone()]),
        (_, Some("malloc"), [_, _]) => with(Opcode::Malloc, vec![a[1].clone()]),
        (_, Some("malloc"), [_, _, _]) => with(Opcode::MallocVarsize, a[1..].to_vec()),
        // The null pointer: None, as the pointer's type.
        (_, Some("nullptr"), _) => with(Opcode::SameAs, vec![none]),
        (Opcode::Bool, _, [true]) => with(Opcode::PtrNonzero, a.clone()),
        (Opcode::Is, _, [true, false]) if a[1] == none => {
            with(Opcode::PtrIszero, vec![a[0].clone()])
        }
        (Opcode::Is, _, [false, true]) if a[0] == none => {
            with(Opcode::PtrIszero, vec![a[1].clone()])
        }
        (Opcode::Is | Opcode::Eq, _, [true, true]) => with(Opcode::PtrEq, a.clone()),
        (Opcode::Ne, _, [true, true]) => with(Opcode::PtrNe, a.clone()),
        _ => None,
    }
}

/// The low-level operations `lower_pointer_ops` makes (and `same_as(None)`,
/// the null pointer).
const POINTER_OPS: &[Opcode] = &[
    Opcode::Getfield,
    Opcode::Setfield,
    Opcode::Getarrayitem,
    Opcode::Setarrayitem,
    Opcode::Getarraysize,
    Opcode::Malloc,
    Opcode::MallocVarsize,
    Opcode::PtrIszero,
    Opcode::PtrNonzero,
    Opcode::PtrEq,
    Opcode::PtrNe,
];

impl GraphTyper<'_, '_, '_> {
    /// Emits a low-level operation of a helper graph as it is, its value
    /// arguments converted to what the field or item holds; `None` when
    /// `op` is a high-level operation.
    pub(super) fn lower_low_level_op(&mut self, op: &SpaceOperation) -> Option<Result<(), String>> {
        let is_null = op.opname == Opcode::SameAs && op.args == [Arg::Const(Constant::None)];
        if !(POINTER_OPS.contains(&op.opname) || is_null) {
            return None;
        }
        Some(self.emit_low_level(op))
    }

    fn emit_low_level(&mut self, op: &SpaceOperation) -> Result<(), String> {
        let name = op.opname;
        let want = self.graph.info(op.result).clone();
        let mut args: Vec<(Arg, LowLevelType)> = op
            .args
            .iter()
            .map(|a| (a.clone(), self.type_of(a)))
            .collect();
        // The value stored must have the type of what holds it.
        let stored = match (name, args.first().map(|a| &a.1)) {
            (Opcode::Setfield, Some(LowLevelType::Ptr(t))) => match op.args.get(1) {
                Some(Arg::Const(Constant::Name(f))) => {
                    self.rt.types.get(t).and_then(|c| c.field_type(f)).cloned()
                }
                _ => None,
            },
            (Opcode::Setarrayitem, Some(LowLevelType::Ptr(t))) => {
                self.rt.types.get(t).and_then(|c| c.item_type()).cloned()
            }
            _ => None,
        };
        if let Some(to) = stored {
            let (value, from) = args[2].clone();
            args[2] = (self.convert(value, &from, &to)?, to);
        }
        let types: Vec<LowLevelType> = args.iter().map(|a| a.1.clone()).collect();
        let result_type = match (name, op.args.first()) {
            (Opcode::Malloc | Opcode::MallocVarsize, Some(Arg::Const(Constant::Name(t)))) => {
                LowLevelType::Ptr(t.clone())
            }
            (Opcode::SameAs, _) => want.clone(),
            _ => llops::result_type(name, &types)
                .or_else(|| self.special_result_type(name, &args))
                .ok_or_else(|| format!("{name} does not apply to {types:?}"))?,
        };
        let plain: Vec<Arg> = args.into_iter().map(|a| a.0).collect();
        if result_type == want {
            self.emit(name, plain, result_type, Some(op.result));
        } else {
            let v = self.emit(name, plain, result_type.clone(), None);
            self.finish((Arg::Var(v), result_type), Some((op.result, want)))?;
        }
        Ok(())
    }
}

//! Tuples (the original's `rtuple.py`): a GcStruct per shape, one field
//! per item (`item0`, `item1`, ...); an index is a constant, so reading
//! an item is reading its field.

use super::{GraphTyper, HelperArg};
use rpy_ir::annotation::SomeValue;
use rpy_ir::graph::{Arg, Constant, SpaceOperation, Var};
use rpy_ir::lltype::{self, LowLevelType};
use rpy_ir::opcode::Opcode;

fn is_tuple(ty: &LowLevelType) -> bool {
    super::repr::family(ty) == super::repr::Family::Tuple
}

impl GraphTyper<'_, '_, '_> {
    pub(super) fn lower_tuple_op(&mut self, op: &SpaceOperation) -> Result<bool, String> {
        let types: Vec<LowLevelType> = op.args.iter().map(|a| self.type_of(a)).collect();
        match (op.opname, types.as_slice()) {
            (Opcode::Add, [a, b]) if is_tuple(a) && is_tuple(b) => {
                let mut items = self.tuple_items(&op.args[0])?;
                items.extend(self.tuple_items(&op.args[1])?);
                self.new_tuple(items, op)?;
                return Ok(true);
            }
            (Opcode::Getslice, [t, _, _]) if is_tuple(t) => {
                let items = self.tuple_items(&op.args[0])?;
                let n = items.len() as i64;
                let bound = |a: &Arg, default: i64| match a {
                    Arg::Const(Constant::None) => Ok(default),
                    Arg::Const(Constant::Int(i)) if *i < 0 => Ok((i + n).max(0)),
                    Arg::Const(Constant::Int(i)) => Ok((*i).min(n)),
                    _ => Err("a tuple sliced at a bound known only at run time".to_string()),
                };
                let start = bound(&op.args[1], 0)? as usize;
                let stop = (bound(&op.args[2], n)? as usize).max(start);
                let items = items.into_iter().skip(start).take(stop - start).collect();
                self.new_tuple(items, op)?;
                return Ok(true);
            }
            (
                Opcode::Eq | Opcode::Ne | Opcode::Lt | Opcode::Le | Opcode::Gt | Opcode::Ge,
                [a, b],
            ) if is_tuple(a) && is_tuple(b) => {
                let result = self.compare(op.opname, &op.args[0], &op.args[1])?;
                let want = self.graph.info(op.result).clone();
                self.finish(
                    (Arg::Var(result), LowLevelType::Bool),
                    Some((op.result, want)),
                )?;
                return Ok(true);
            }
            (Opcode::SimpleCall, [_, t])
                if is_tuple(t)
                    && matches!(&op.args[0], Arg::Const(Constant::Builtin(b))
                        if super::methods::builtin_name(b) == "hash") =>
            {
                let h = self.hash_of(&op.args[1])?;
                let want = self.graph.info(op.result).clone();
                self.finish((h, LowLevelType::Signed), Some((op.result, want)))?;
                return Ok(true);
            }
            // A tuple is never None: its truth is whether it has items,
            // known from its type (the original folds it too).
            (Opcode::Bool | Opcode::Not, [t]) if is_tuple(t) => {
                let n = self
                    .tuple_fields(match t {
                        LowLevelType::Ptr(ty) => ty,
                        _ => return Err("a tuple with no struct type".into()),
                    })?
                    .len();
                let truth = (n > 0) == (op.opname == Opcode::Bool);
                self.define_constant(Constant::Bool(truth), op.result)?;
                return Ok(true);
            }
            // `list(t)`: a list of the tuple's items (the original's
            // `rtype_bltn_list` of a tuple).
            (Opcode::SimpleCall, [_, t])
                if is_tuple(t) && self.builtin_of(&op.args[0]).as_deref() == Some("list") =>
            {
                self.tuple_into_list(&op.args[1], op.result, op)?;
                return Ok(true);
            }
            _ => {}
        }
        match op.opname {
            Opcode::Newtuple => {
                let LowLevelType::Ptr(ty) = self.graph.info(op.result).clone() else {
                    return Err("a tuple with no struct type".into());
                };
                let fields = self.tuple_fields(&ty)?;
                let t = self.emit(
                    Opcode::Malloc,
                    vec![Arg::Const(Constant::Name(ty.clone()))],
                    LowLevelType::Ptr(ty),
                    Some(op.result),
                );
                for (a, (name, field_ty)) in op.args.iter().zip(fields) {
                    if field_ty == LowLevelType::Void {
                        continue;
                    }
                    let v = self.arg_as(a, &field_ty)?;
                    self.emit(
                        Opcode::Setfield,
                        vec![Arg::Var(t), Arg::Const(Constant::Name(name)), v],
                        LowLevelType::Void,
                        None,
                    );
                }
                Ok(true)
            }
            Opcode::Contains => {
                let SomeValue::Tuple(items) = self.annotation(&op.args[0]) else {
                    return Ok(false);
                };
                self.tuple_contains(op, items.len())?;
                Ok(true)
            }
            Opcode::Getitem => {
                let SomeValue::Tuple(items) = self.annotation(&op.args[0]) else {
                    return Ok(false);
                };
                let Some(Arg::Const(Constant::Int(i))) = op.args.get(1) else {
                    return Err("a tuple indexed by a value known only at run time".into());
                };
                let n = items.len() as i64;
                let index = if *i < 0 { i + n } else { *i };
                if !(0..n).contains(&index) {
                    return Err(format!("tuple index {i} out of range"));
                }
                let LowLevelType::Ptr(ty) = self.type_of(&op.args[0]) else {
                    return Err("a tuple with no struct type".into());
                };
                let (name, field_ty) = self.tuple_fields(&ty)?[index as usize].clone();
                if field_ty == LowLevelType::Void {
                    let value =
                        super::repr::single_value(&items[index as usize]).unwrap_or(Constant::None);
                    let want = self.graph.info(op.result).clone();
                    let v = self.arg_as(&Arg::Const(value), &want)?;
                    self.emit(Opcode::SameAs, vec![v], want, Some(op.result));
                    return Ok(true);
                }
                self.emit_into(
                    Opcode::Getfield,
                    vec![op.args[0].clone(), Arg::Const(Constant::Name(name))],
                    field_ty,
                    op.result,
                )?;
                Ok(true)
            }
            Opcode::SimpleCall
                if op.args.first() == Some(&Arg::Const(Constant::Builtin("len".into()))) =>
            {
                match op.args.get(1).map(|a| self.annotation(a)) {
                    Some(SomeValue::Tuple(items)) => {
                        let want = self.graph.info(op.result).clone();
                        let n =
                            self.arg_as(&Arg::Const(Constant::Int(items.len() as i64)), &want)?;
                        self.emit(Opcode::SameAs, vec![n], want, Some(op.result));
                        Ok(true)
                    }
                    _ => Ok(false),
                }
            }
            _ => Ok(false),
        }
    }

    fn tuple_fields(&self, ty: &str) -> Result<Vec<(String, LowLevelType)>, String> {
        match self.rt.types.get(ty) {
            Some(rpy_ir::lltype::ContainerType::GcStruct { fields, .. }) => Ok(fields.clone()),
            _ => Err(format!("{ty} is no tuple struct")),
        }
    }

    /// `x in t`: `x == t[0] or x == t[1] ...`, each `==` lowered as the
    /// rules lower it for the item's type.
    fn tuple_contains(&mut self, op: &SpaceOperation, n: usize) -> Result<(), String> {
        let mut found: Option<Var> = None;
        for (item, _) in self.tuple_items(&op.args[0])?.into_iter().take(n) {
            let equal = self.compare(Opcode::Eq, &item, &op.args[1])?;
            found = Some(match found {
                None => equal,
                Some(prev) => self.bool_or(prev, equal),
            });
        }
        let value = match found {
            Some(v) => Arg::Var(v),
            None => Arg::Const(Constant::Bool(false)),
        };
        let want = self.graph.info(op.result).clone();
        self.finish((value, LowLevelType::Bool), Some((op.result, want)))?;
        Ok(())
    }

    /// The items of the tuple `t`, each with its type (an item of no
    /// representation is None).
    pub(super) fn tuple_items(&mut self, t: &Arg) -> Result<Vec<(Arg, LowLevelType)>, String> {
        let LowLevelType::Ptr(ty) = self.type_of(t) else {
            return Err("a tuple with no struct type".into());
        };
        let mut items = Vec::new();
        for (name, field_ty) in self.tuple_fields(&ty)? {
            let item = if field_ty == LowLevelType::Void {
                Arg::Const(Constant::None)
            } else {
                Arg::Var(self.emit(
                    Opcode::Getfield,
                    vec![t.clone(), Arg::Const(Constant::Name(name))],
                    field_ty.clone(),
                    None,
                ))
            };
            items.push((item, field_ty));
        }
        Ok(items)
    }

    /// A new tuple of `items`, the result of `op`.
    fn new_tuple(
        &mut self,
        items: Vec<(Arg, LowLevelType)>,
        op: &SpaceOperation,
    ) -> Result<(), String> {
        let LowLevelType::Ptr(ty) = self.graph.info(op.result).clone() else {
            return Err("a tuple with no struct type".into());
        };
        self.build_tuple(items, &ty, Some(op.result))?;
        Ok(())
    }

    /// The tuple `t` as a tuple of type `to` (same length, items of wider
    /// types).
    pub(super) fn convert_tuple(&mut self, t: Arg, to: &str) -> Result<Arg, String> {
        let items = self.tuple_items(&t)?;
        if items.len() != self.tuple_fields(to)?.len() {
            return Err(format!("a tuple cannot become a {to} of another length"));
        }
        Ok(Arg::Var(self.build_tuple(items, to, None)?))
    }

    /// A new tuple of type `ty` holding `items`, into `dest` if given.
    fn build_tuple(
        &mut self,
        items: Vec<(Arg, LowLevelType)>,
        ty: &str,
        dest: Option<Var>,
    ) -> Result<Var, String> {
        let fields = self.tuple_fields(ty)?;
        let t = self.emit(
            Opcode::Malloc,
            vec![Arg::Const(Constant::Name(ty.to_string()))],
            LowLevelType::Ptr(ty.to_string()),
            dest,
        );
        for ((item, _), (name, field_ty)) in items.into_iter().zip(fields) {
            if field_ty == LowLevelType::Void {
                continue;
            }
            let v = self.arg_as(&item, &field_ty)?;
            self.emit(
                Opcode::Setfield,
                vec![Arg::Var(t), Arg::Const(Constant::Name(name)), v],
                LowLevelType::Void,
                None,
            );
        }
        Ok(t)
    }

    /// `a OP b` for a comparison OP: of tuples item by item, as Python
    /// compares them; of other values by the rules.
    pub(super) fn compare(&mut self, opname: Opcode, a: &Arg, b: &Arg) -> Result<Var, String> {
        let (ta, tb) = (self.type_of(a), self.type_of(b));
        if !(is_tuple(&ta) && is_tuple(&tb)) {
            let result = self.graph.new_var(None, LowLevelType::Bool);
            let op = SpaceOperation {
                opname,
                args: vec![a.clone(), b.clone()],
                result,
                pos: self.pos,
            };
            self.lower_by_rules(&op)?;
            return Ok(result);
        }
        let items_a = self.tuple_items(a)?;
        let items_b = self.tuple_items(b)?;
        let constant = |typer: &mut Self, value: bool| {
            typer.emit(
                Opcode::SameAs,
                vec![Arg::Const(Constant::Bool(value))],
                LowLevelType::Bool,
                None,
            )
        };
        let common = items_a.len().min(items_b.len());
        match opname {
            Opcode::Eq | Opcode::Ne => {
                let mut equal = constant(self, items_a.len() == items_b.len());
                for ((x, _), (y, _)) in items_a.iter().zip(&items_b) {
                    let e = self.compare(Opcode::Eq, x, y)?;
                    equal = self.bool_and(equal, e);
                }
                if opname == Opcode::Ne {
                    return Ok(self.emit(
                        Opcode::BoolNot,
                        vec![Arg::Var(equal)],
                        LowLevelType::Bool,
                        None,
                    ));
                }
                Ok(equal)
            }
            _ => {
                // From the last item back: the first unequal item decides,
                // else the lengths do.
                let strict = if matches!(opname, Opcode::Lt | Opcode::Le) {
                    Opcode::Lt
                } else {
                    Opcode::Gt
                };
                let when_equal = match opname {
                    Opcode::Lt => items_a.len() < items_b.len(),
                    Opcode::Le => items_a.len() <= items_b.len(),
                    Opcode::Gt => items_a.len() > items_b.len(),
                    _ => items_a.len() >= items_b.len(),
                };
                let mut result = constant(self, when_equal);
                for i in (0..common).rev() {
                    let (x, y) = (&items_a[i].0, &items_b[i].0);
                    let decided = self.compare(strict, x, y)?;
                    let equal = self.compare(Opcode::Eq, x, y)?;
                    let rest = self.bool_and(equal, result);
                    result = self.bool_or(decided, rest);
                }
                Ok(result)
            }
        }
    }

    /// `hash(a)` of a value that can be a dict key: a number, a char, a
    /// string or a tuple of those (CPython's tuple hash combination).
    pub(super) fn hash_of(&mut self, a: &Arg) -> Result<Arg, String> {
        let ty = self.type_of(a);
        let signed = LowLevelType::Signed;
        match &ty {
            LowLevelType::Signed => Ok(a.clone()),
            LowLevelType::Bool | LowLevelType::Char => {
                let cast = if ty == LowLevelType::Bool {
                    Opcode::CastBoolToInt
                } else {
                    Opcode::CastCharToInt
                };
                Ok(Arg::Var(self.emit(cast, vec![a.clone()], signed, None)))
            }
            LowLevelType::Void => Ok(Arg::Const(Constant::Int(0))),
            LowLevelType::Ptr(t) if t == lltype::STR => self.call_helper(
                "rstr",
                "ll_strhash",
                vec![(HelperArg::Value(ty.clone()), a.clone())],
            ),
            t if is_tuple(t) => {
                let mut x = Arg::Const(Constant::Int(0x345678));
                for (item, _) in self.tuple_items(a)? {
                    let y = self.hash_of(&item)?;
                    let mixed = self.emit(Opcode::IntXor, vec![x, y], signed.clone(), None);
                    x = Arg::Var(self.emit(
                        Opcode::IntMul,
                        vec![Arg::Var(mixed), Arg::Const(Constant::Int(1000003))],
                        signed.clone(),
                        None,
                    ));
                }
                Ok(x)
            }
            _ => Err(format!(
                "the rtyper cannot hash {} yet",
                self.annotation(a).describe()
            )),
        }
    }
}

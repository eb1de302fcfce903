//! Tuples (the original's `rtuple.py`): a GcStruct per shape, one field
//! per item (`item0`, `item1`, ...); an index is a constant, so reading
//! an item is reading its field.

use super::GraphTyper;
use rpy_ir::annotation::SomeValue;
use rpy_ir::graph::{Arg, Constant, SpaceOperation};
use rpy_ir::lltype::LowLevelType;

impl GraphTyper<'_, '_, '_> {
    pub(super) fn lower_tuple_op(&mut self, op: &SpaceOperation) -> Result<bool, String> {
        match op.opname.as_str() {
            "newtuple" => {
                let LowLevelType::Ptr(ty) = self.graph.info(op.result).clone() else {
                    return Err("a tuple with no struct type".into());
                };
                let fields = self.tuple_fields(&ty)?;
                let t = self.emit(
                    "malloc",
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
                        "setfield",
                        vec![Arg::Var(t), Arg::Const(Constant::Name(name)), v],
                        LowLevelType::Void,
                        None,
                    );
                }
                Ok(true)
            }
            "contains" => {
                let SomeValue::Tuple(items) = self.annotation(&op.args[0]) else {
                    return Ok(false);
                };
                self.tuple_contains(op, items.len())?;
                Ok(true)
            }
            "getitem" => {
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
                    self.emit("same_as", vec![v], want, Some(op.result));
                    return Ok(true);
                }
                self.emit_into(
                    "getfield",
                    vec![op.args[0].clone(), Arg::Const(Constant::Name(name))],
                    field_ty,
                    op.result,
                )?;
                Ok(true)
            }
            "simple_call"
                if op.args.first() == Some(&Arg::Const(Constant::Builtin("len".into()))) =>
            {
                match op.args.get(1).map(|a| self.annotation(a)) {
                    Some(SomeValue::Tuple(items)) => {
                        let want = self.graph.info(op.result).clone();
                        let n =
                            self.arg_as(&Arg::Const(Constant::Int(items.len() as i64)), &want)?;
                        self.emit("same_as", vec![n], want, Some(op.result));
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
        let LowLevelType::Ptr(ty) = self.type_of(&op.args[0]) else {
            return Err("a tuple with no struct type".into());
        };
        let mut found: Option<rpy_ir::graph::Var> = None;
        for (name, field_ty) in self.tuple_fields(&ty)?.into_iter().take(n) {
            let item = self.emit(
                "getfield",
                vec![op.args[0].clone(), Arg::Const(Constant::Name(name))],
                field_ty,
                None,
            );
            let equal = self.graph.new_var(None, LowLevelType::Bool);
            let eq = SpaceOperation {
                opname: "eq".into(),
                args: vec![Arg::Var(item), op.args[1].clone()],
                result: equal,
                pos: op.pos,
            };
            self.lower_by_rules(&eq)?;
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
}

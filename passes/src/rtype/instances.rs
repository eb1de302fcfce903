//! Operations on instances and classes (the original's `rclass.py`):
//! building an instance, its attributes (fields of its struct, class
//! attributes and methods read from its vtable), `isinstance` and `type`
//! by the vtable's id range, identity, truth, and an exception's message.

use super::classes::EXC_MESSAGE;
use super::{GraphTyper, HelperArg};
use crate::language::special_names::special_method_name;
use rpy_ir::annotation::{Desc, SomeValue};
use rpy_ir::ast::Dialect;
use rpy_ir::graph::{Arg, Constant, SpaceOperation, Var};
use rpy_ir::lltype::{self, LowLevelType};
use rpy_ir::opcode::Opcode;

/// The builtin `BaseException.__init__`, which keeps the message.
const BASE_EXCEPTION_INIT: &str = "BaseException.__init__";

/// The class whose instances an annotation holds, if it is an instance.
fn instance_class(a: &SomeValue, classes: &super::ClassTable) -> Option<(String, bool)> {
    match a {
        SomeValue::Instance { class, can_be_none } => Some((class.clone(), *can_be_none)),
        SomeValue::Exception {
            classes: names,
            can_be_none,
        } => Some((
            classes.common_class(names.iter().map(String::as_str))?,
            *can_be_none,
        )),
        _ => None,
    }
}

impl GraphTyper<'_, '_, '_> {
    fn name_arg(op: &SpaceOperation, i: usize) -> Option<&str> {
        match op.args.get(i) {
            Some(Arg::Const(Constant::Name(n))) => Some(n),
            _ => None,
        }
    }

    /// Lowers an operation on an instance or a class; false when `op` is
    /// none.
    pub(super) fn lower_instance_op(&mut self, op: &SpaceOperation) -> Result<bool, String> {
        let first = op.args.first().map(|a| self.annotation_ref(a));
        let subject = first
            .as_deref()
            .and_then(|a| instance_class(a, &self.rt.classes));
        match (op.opname, &subject) {
            (Opcode::Getattr, Some(_)) if Self::name_arg(op, 1) == Some("__class__") => {
                // `x.__class__`: the vtable, as `type(x)`.
                self.class_of_instance(&op.args[0], op)?;
            }
            (Opcode::Getattr, Some((class, _))) => {
                let name = Self::name_arg(op, 1).ok_or("getattr without a name")?;
                self.instance_getattr(class, name, op)?;
            }
            (Opcode::Setattr, Some((class, _))) => {
                let name = Self::name_arg(op, 1).ok_or("setattr without a name")?;
                let (_, ty) = self
                    .rt
                    .classes
                    .field_owner(class, name)
                    .ok_or_else(|| format!("class {class} has no attribute {name}"))?;
                let ty = ty.clone();
                let value = self.arg_as(&op.args[2], &ty)?;
                let object = op.args[0].clone();
                self.emit(
                    Opcode::Setfield,
                    vec![object, Arg::Const(Constant::Name(name.into())), value],
                    LowLevelType::Void,
                    Some(op.result),
                );
            }
            (Opcode::Getattr, None) if self.class_or_frozen_getattr(op)? => {}
            (Opcode::Bool, Some(_)) => self.null_test(op, Opcode::PtrNonzero)?,
            (Opcode::Not, Some(_)) => self.null_test(op, Opcode::PtrIszero)?,
            (Opcode::Is | Opcode::Eq | Opcode::Ne, _) if self.is_identity(op) => {
                self.identity(op)?
            }
            (opname, Some((class, _))) if self.special_method(class, opname).is_some() => {
                let name = self.special_method(class, opname).unwrap_or_default();
                let class = class.clone();
                self.method_call(&class, name, &op.args[0], &op.args[1..], op)?;
            }
            (Opcode::SimpleCall, _) => return self.lower_instance_builtin(op),
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn instance_getattr(
        &mut self,
        class: &str,
        name: &str,
        op: &SpaceOperation,
    ) -> Result<(), String> {
        let object = op.args[0].clone();
        let result = self.annotation_ref(&Arg::Var(op.result));
        let want = self.graph.info(op.result).clone();
        // A method: the bound method is its receiver.
        if let SomeValue::Pbc { descs, .. } = &*result {
            if descs.iter().all(|d| matches!(d, Desc::Method { .. })) && !descs.is_empty() {
                let from = self.type_of(&object);
                self.finish((object, from), Some((op.result, want)))?;
                return Ok(());
            }
        }
        if let Some((_, ty)) = self.rt.classes.field_owner(class, name) {
            let ty = ty.clone();
            self.emit_into(
                Opcode::Getfield,
                vec![object, Arg::Const(Constant::Name(name.into()))],
                ty,
                op.result,
            )?;
            return Ok(());
        }
        if let Some((owner, slot)) = self
            .rt
            .classes
            .slot_owner(class, name)
            .map(|(c, s)| (c.name.clone(), s.clone()))
        {
            let vtable = self.read_vtable(&object, &owner)?;
            self.emit_into(
                Opcode::Getfield,
                vec![
                    Arg::Var(vtable),
                    Arg::Const(Constant::Name(super::classes::slot_field(name))),
                ],
                slot.ty,
                op.result,
            )?;
            return Ok(());
        }
        // A class attribute every subclass shares, known statically
        // (a static method, a constant no instance overrides).
        if let Some(value) = self.rt.classes.class_attr(class, name).cloned() {
            self.define_constant(value, op.result)?;
            return Ok(());
        }
        Err(format!("instances of {class} have no attribute '{name}'"))
    }

    /// `dest` = the high-level constant `value`.
    pub(super) fn define_constant(&mut self, value: Constant, dest: Var) -> Result<(), String> {
        let want = self.graph.info(dest).clone();
        let value = self.rt.hl_constant(&value)?;
        let a = self.arg_as(&Arg::Const(value), &want)?;
        self.emit(Opcode::SameAs, vec![a], want, Some(dest));
        Ok(())
    }

    /// An attribute of a class constant, or of a frozen prebuilt object:
    /// its value, known statically.
    fn class_or_frozen_getattr(&mut self, op: &SpaceOperation) -> Result<bool, String> {
        let Some(name) = Self::name_arg(op, 1) else {
            return Ok(false);
        };
        // A builtin a class inherits (`Base.__init__` of an exception
        // class): known statically, called by name.
        if let SomeValue::Builtin(b) = self.annotation(&Arg::Var(op.result)) {
            let want = self.graph.info(op.result).clone();
            let value = self.arg_as(&Arg::Const(Constant::Builtin(b)), &want)?;
            self.emit(Opcode::SameAs, vec![value], want, Some(op.result));
            return Ok(true);
        }
        let value = match self.annotation(&op.args[0]) {
            SomeValue::Pbc { descs, .. } if self.rt.frozen.family_of_descs(&descs).is_some() => {
                self.frozen_family_getattr(&descs, name, op)?;
                return Ok(true);
            }
            SomeValue::Pbc { descs, .. } if descs.len() > 1 => {
                if let Some(classes) = Desc::class_names(&descs) {
                    return self.classes_getattr(&classes, name, op);
                }
                None
            }
            SomeValue::Pbc { descs, .. } if descs.len() == 1 => match &descs[0] {
                Desc::Class(c) => self.rt.classes.class_attr(c, name).cloned(),
                Desc::Frozen(object) => crate::annotate::frozen::frozen_index(object)
                    .and_then(|i| self.rt.frozen_attribute(i, name)),
                _ => None,
            },
            _ => return Ok(false),
        };
        let Some(value) = value else {
            return Ok(false);
        };
        self.define_constant(value, op.result)?;
        Ok(true)
    }

    /// Class attribute `name` read through a variable holding one of
    /// several classes (a vtable pointer): the slot of their common class,
    /// which the read gave it (`RTyper::set_layout`); a class without the
    /// attribute has the zero of the slot's type there, as in the
    /// original. An attribute of one value in every class has no slot: the
    /// read is that constant.
    fn classes_getattr(
        &mut self,
        classes: &[&str],
        name: &str,
        op: &SpaceOperation,
    ) -> Result<bool, String> {
        let Some(common) = self.rt.classes.common_class(classes.iter().copied()) else {
            return Ok(false);
        };
        if let Some((owner, slot)) = self
            .rt
            .classes
            .slot_owner(&common, name)
            .map(|(c, s)| (c.name.clone(), s.clone()))
        {
            let root = LowLevelType::Ptr(lltype::OBJECT_VTABLE.into());
            let want = LowLevelType::Ptr(super::vtable_type(&owner));
            let vtable = self.convert(op.args[0].clone(), &root, &want)?;
            self.emit_into(
                Opcode::Getfield,
                vec![
                    vtable,
                    Arg::Const(Constant::Name(super::classes::slot_field(name))),
                ],
                slot.ty,
                op.result,
            )?;
            return Ok(true);
        }
        let mut values = classes
            .iter()
            .filter_map(|c| self.rt.classes.class_attr(c, name));
        let Some(value) = values.next().cloned() else {
            return Ok(false);
        };
        if values.any(|v| *v != value) {
            return Ok(false);
        }
        self.define_constant(value, op.result)?;
        Ok(true)
    }

    /// The special method operation `opname` calls on instances of
    /// `class`, when the class has it.
    fn special_method(&self, class: &str, opname: Opcode) -> Option<&'static str> {
        let dialect = if self.rt.py2 {
            Dialect::Py2
        } else {
            Dialect::Py3
        };
        let name = special_method_name(opname, dialect)?;
        matches!(
            self.rt.classes.class_attr(class, name),
            Some(Constant::Func(_))
        )
        .then_some(name)
    }

    fn null_test(&mut self, op: &SpaceOperation, test: Opcode) -> Result<(), String> {
        self.emit_into(
            test,
            vec![op.args[0].clone()],
            LowLevelType::Bool,
            op.result,
        )
    }

    /// Whether `op` compares two instances, classes or None by identity.
    fn is_identity(&self, op: &SpaceOperation) -> bool {
        // `x is y` of two pointers (strings, lists, ...), or comparing one
        // with None, is identity whatever they point to.
        let pointer_or_none = |a: &Arg| {
            matches!(self.type_of(a), LowLevelType::Ptr(_))
                || matches!(a, Arg::Const(Constant::None))
                || self.annotation(a) == SomeValue::None
        };
        let with_none = op.args.iter().any(|a| {
            matches!(a, Arg::Const(Constant::None)) || self.annotation(a) == SomeValue::None
        });
        if op.args.len() == 2
            && op.args.iter().all(pointer_or_none)
            && (op.opname == Opcode::Is || with_none)
            && op
                .args
                .iter()
                .any(|a| matches!(self.type_of(a), LowLevelType::Ptr(_)))
        {
            return true;
        }
        op.args.len() == 2
            && op.args.iter().all(|a| {
                matches!(
                    self.annotation(a),
                    SomeValue::Instance { .. }
                        | SomeValue::Exception { .. }
                        | SomeValue::None
                        | SomeValue::Pbc { .. }
                )
            })
            && op.args.iter().any(|a| {
                matches!(self.type_of(a), LowLevelType::Ptr(_))
                    || matches!(self.void_value(a), Some(Constant::Class(_)))
            })
    }

    /// `a is b` (and `==`, `!=` of objects without `__eq__`).
    fn identity(&mut self, op: &SpaceOperation) -> Result<(), String> {
        let (a, b) = (&op.args[0], &op.args[1]);
        let negate = op.opname == Opcode::Ne;
        let is_none = |this: &Self, x: &Arg| {
            matches!(x, Arg::Const(Constant::None)) || this.annotation(x) == SomeValue::None
        };
        if is_none(self, b) || is_none(self, a) {
            let other = if is_none(self, b) { a } else { b };
            let test = if negate {
                Opcode::PtrNonzero
            } else {
                Opcode::PtrIszero
            };
            return self.emit_into(test, vec![other.clone()], LowLevelType::Bool, op.result);
        }
        let resolve = |this: &Self, x: &Arg| match (this.type_of(x), this.void_value(x)) {
            (LowLevelType::Void, Some(c)) => Arg::Const(c),
            _ => x.clone(),
        };
        let (a, b) = (resolve(self, a), resolve(self, b));
        let common = match (self.type_of(&a), self.type_of(&b)) {
            // Frozen objects of one family: their statics.
            (x @ LowLevelType::Ptr(_), y) if x == y => x,
            (LowLevelType::Ptr(x), _) if x.starts_with("vtable") || x == lltype::OBJECT_VTABLE => {
                LowLevelType::Ptr(lltype::OBJECT_VTABLE.into())
            }
            (_, LowLevelType::Ptr(_)) | (LowLevelType::Ptr(_), _)
                if matches!(a, Arg::Const(Constant::Class(_)))
                    || matches!(b, Arg::Const(Constant::Class(_))) =>
            {
                LowLevelType::Ptr(lltype::OBJECT_VTABLE.into())
            }
            _ => LowLevelType::Ptr(lltype::OBJECT.into()),
        };
        let a = self.arg_as(&a, &common)?;
        let b = self.arg_as(&b, &common)?;
        let test = if negate { Opcode::PtrNe } else { Opcode::PtrEq };
        self.emit_into(test, vec![a, b], LowLevelType::Bool, op.result)
    }

    /// `isinstance`, `type`, `str` of an exception and the builtin
    /// exception `__init__`.
    fn lower_instance_builtin(&mut self, op: &SpaceOperation) -> Result<bool, String> {
        let Some(builtin) = op.args.first().and_then(|a| self.builtin_of(a)) else {
            return Ok(false);
        };
        let args = &op.args[1..];
        if let ("len", [x]) = (builtin.as_str(), args) {
            if let Some((class, _)) = instance_class(&self.annotation(x), &self.rt.classes) {
                if let Some(name) = self.special_method(&class, Opcode::Len) {
                    self.method_call(&class, name, x, &[], op)?;
                    return Ok(true);
                }
            }
        }
        match (builtin.as_str(), args) {
            ("isinstance", [x, classes]) => self.isinstance(x, classes, op)?,
            ("issubclass", [c, classes]) => self.issubclass(c, classes, op)?,
            ("type", [x]) if instance_class(&self.annotation(x), &self.rt.classes).is_some() => {
                self.class_of_instance(x, op)?;
            }
            ("str", [x]) if matches!(self.annotation(x), SomeValue::Exception { .. }) => {
                let base = LowLevelType::Ptr(super::inst_type("BaseException"));
                let e = self.arg_as(x, &base)?;
                self.emit_into(
                    Opcode::Getfield,
                    vec![e, Arg::Const(Constant::Name(EXC_MESSAGE.into()))],
                    LowLevelType::Ptr(lltype::STR.into()),
                    op.result,
                )?;
            }
            (BASE_EXCEPTION_INIT, [this, rest @ ..]) => {
                let class = instance_class(&self.annotation(this), &self.rt.classes)
                    .map(|(c, _)| c)
                    .unwrap_or_default();
                self.store_message(&class, this, rest)?;
                self.define_constant(Constant::None, op.result)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `type(x)` or `x.__class__` of an instance: its vtable pointer, as
    /// the class the result's annotation names.
    fn class_of_instance(&mut self, x: &Arg, op: &SpaceOperation) -> Result<(), String> {
        let typeptr = self.typeptr(x);
        let root = LowLevelType::Ptr(lltype::OBJECT_VTABLE.into());
        let want = self.graph.info(op.result).clone();
        self.finish((Arg::Var(typeptr), root), Some((op.result, want)))?;
        Ok(())
    }

    /// `isinstance(x, C)` or with a tuple of classes: the vtable's id in
    /// a class's range.
    /// The classes a class-or-tuple-of-classes argument names.
    fn class_names(&self, classes: &Arg) -> Vec<String> {
        match self.annotation(classes) {
            SomeValue::Pbc { descs, .. } => descs
                .iter()
                .filter_map(|d| match d {
                    Desc::Class(c) => Some(c.clone()),
                    _ => None,
                })
                .collect(),
            SomeValue::Tuple(items) => items
                .iter()
                .flat_map(|i| match i {
                    SomeValue::Pbc { descs, .. } => descs
                        .iter()
                        .filter_map(|d| match d {
                            Desc::Class(c) => Some(c.clone()),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                })
                .collect(),
            _ => match classes {
                Arg::Const(Constant::Class(c)) => vec![c.clone()],
                Arg::Const(Constant::Builtin(b)) => vec![b.clone()],
                _ => Vec::new(),
            },
        }
    }

    /// `issubclass(c, classes)`: of a class known statically, known; else
    /// the class's vtable id in one of the classes' ranges.
    fn issubclass(&mut self, c: &Arg, classes: &Arg, op: &SpaceOperation) -> Result<(), String> {
        let names = self.class_names(classes);
        let known = match (c, self.void_value(c)) {
            (Arg::Const(Constant::Class(k)), _) => Some(k.clone()),
            (_, Some(Constant::Class(k))) => Some(k),
            _ => None,
        };
        if let Some(k) = known {
            let holds = names.iter().any(|n| self.rt.classes.is_subclass(&k, n));
            return self.define_constant(Constant::Bool(holds), op.result);
        }
        let vtable = self.arg_as(c, &LowLevelType::Ptr(lltype::OBJECT_VTABLE.into()))?;
        let Arg::Var(vtable) = vtable else {
            return Err("issubclass() of a class with no vtable".into());
        };
        self.in_class_ranges(vtable, &names, op)
    }

    fn isinstance(&mut self, x: &Arg, classes: &Arg, op: &SpaceOperation) -> Result<(), String> {
        let names = self.class_names(classes);
        let subject = self.annotation(x);
        let Some((_, can_be_none)) = instance_class(&subject, &self.rt.classes) else {
            // A builtin type's value: the annotation says (of a constant,
            // its kind: `isinstance(3, int)`).
            let general = subject.general();
            let py2 = self.rt.py2;
            let known = names.iter().any(|n| builtin_type_holds(n, &general, py2));
            return self.define_constant(Constant::Bool(known), op.result);
        };
        if names.is_empty() {
            return Err("isinstance() against classes that are not known statically".into());
        }
        if can_be_none {
            // None is an instance of no class: rclass's helper gives an
            // id no range holds.
            let object = self.arg_as(x, &LowLevelType::Ptr(lltype::OBJECT.into()))?;
            let id = self.call_helper(
                "rclass",
                "ll_class_id",
                vec![(
                    HelperArg::Value(LowLevelType::Ptr(lltype::OBJECT.into())),
                    object,
                )],
            )?;
            let Arg::Var(id) = id else {
                return Err("ll_class_id() gave no value".into());
            };
            return self.id_in_class_ranges(id, &names, op);
        }
        let typeptr = self.typeptr(x);
        self.in_class_ranges(typeptr, &names, op)
    }

    /// Whether the class of vtable `vtable` is one of `names` or derives
    /// from one: its id in one of their id ranges.
    fn in_class_ranges(
        &mut self,
        vtable: Var,
        names: &[String],
        op: &SpaceOperation,
    ) -> Result<(), String> {
        let id = self.emit(
            Opcode::Getfield,
            vec![
                Arg::Var(vtable),
                Arg::Const(Constant::Name(lltype::SUBCLASSRANGE_MIN.into())),
            ],
            LowLevelType::Signed,
            None,
        );
        self.id_in_class_ranges(id, names, op)
    }

    /// Whether class id `id` is in the id range of one of `names`.
    fn id_in_class_ranges(
        &mut self,
        id: Var,
        names: &[String],
        op: &SpaceOperation,
    ) -> Result<(), String> {
        let mut result: Option<Var> = None;
        for name in names {
            let Some(repr) = self.rt.classes.get(name) else {
                continue;
            };
            let bounds = (Constant::Int(repr.min), Constant::Int(repr.max));
            let within = self.emit(
                Opcode::IntBetween,
                vec![Arg::Const(bounds.0), Arg::Var(id), Arg::Const(bounds.1)],
                LowLevelType::Bool,
                None,
            );
            result = Some(match result {
                None => within,
                Some(prev) => self.bool_or(prev, within),
            });
        }
        match result {
            Some(v) => {
                let want = self.graph.info(op.result).clone();
                self.finish((Arg::Var(v), LowLevelType::Bool), Some((op.result, want)))?;
                Ok(())
            }
            None => self.define_constant(Constant::Bool(false), op.result),
        }
    }

    /// `a or b` of two bools, without a branch.
    pub(super) fn bool_or(&mut self, a: Var, b: Var) -> Var {
        self.bool_combine(Opcode::IntOr, a, b)
    }

    pub(super) fn bool_and(&mut self, a: Var, b: Var) -> Var {
        self.bool_combine(Opcode::IntAnd, a, b)
    }

    /// Two bools combined by the int operation `int_op`.
    fn bool_combine(&mut self, int_op: Opcode, a: Var, b: Var) -> Var {
        let ai = self.emit(
            Opcode::CastBoolToInt,
            vec![Arg::Var(a)],
            LowLevelType::Signed,
            None,
        );
        let bi = self.emit(
            Opcode::CastBoolToInt,
            vec![Arg::Var(b)],
            LowLevelType::Signed,
            None,
        );
        let either = self.emit(
            int_op,
            vec![Arg::Var(ai), Arg::Var(bi)],
            LowLevelType::Signed,
            None,
        );
        self.emit(
            Opcode::IntIsTrue,
            vec![Arg::Var(either)],
            LowLevelType::Bool,
            None,
        )
    }

    /// `C(args)`: a new instance with its vtable and class-attribute
    /// defaults, then `C.__init__(instance, args)`.
    pub(super) fn instantiate(
        &mut self,
        class: &str,
        args: &[Arg],
        op: &SpaceOperation,
    ) -> Result<(), String> {
        if !self.rt.classes.contains(class) {
            return Err(format!("the class {class} has no layout"));
        }
        let ty = LowLevelType::Ptr(super::inst_type(class));
        let object = self.emit(
            Opcode::Malloc,
            vec![Arg::Const(Constant::Name(super::inst_type(class)))],
            ty.clone(),
            None,
        );
        let vtable = self.rt.vtable_of(class);
        self.emit(
            Opcode::Setfield,
            vec![
                Arg::Var(object),
                Arg::Const(Constant::Name(lltype::TYPEPTR.into())),
                Arg::Const(Constant::Prebuilt(vtable)),
            ],
            LowLevelType::Void,
            None,
        );
        for (name, field_ty) in self.rt.classes.all_fields(class) {
            let default = self.rt.classes.class_attr(class, &name).cloned();
            let value = match default {
                Some(
                    c @ (Constant::Int(_)
                    | Constant::Float(_)
                    | Constant::Bool(_)
                    | Constant::Char(_)
                    | Constant::Str(_)
                    | Constant::Prebuilt(_)
                    | Constant::Class(_)),
                ) => c,
                _ if name == EXC_MESSAGE => Constant::Str(String::new()),
                _ => continue,
            };
            if field_ty == LowLevelType::Void {
                continue;
            }
            let value = self.rt.hl_constant(&value)?;
            let v = self.arg_as(&Arg::Const(value), &field_ty)?;
            self.emit(
                Opcode::Setfield,
                vec![Arg::Var(object), Arg::Const(Constant::Name(name)), v],
                LowLevelType::Void,
                None,
            );
        }
        match self.rt.classes.class_attr(class, "__init__").cloned() {
            Some(Constant::Func(init)) => {
                let mut all = vec![Arg::Var(object)];
                all.extend(args.iter().cloned());
                let (_, result) = self.rt.signature(&init)?;
                let done = self.graph.new_var(None, result);
                let call = SpaceOperation {
                    result: done,
                    ..op.clone()
                };
                self.direct_call(&init, all, &call)?;
            }
            _ if self.rt.classes.is_subclass(class, "BaseException") => {
                self.store_message(class, &Arg::Var(object), args)?;
            }
            _ if args.is_empty() => {}
            _ => return Err(format!("class {class} takes no arguments")),
        }
        let want = self.graph.info(op.result).clone();
        self.finish((Arg::Var(object), ty), Some((op.result, want)))?;
        Ok(())
    }

    /// What `BaseException.__init__(e, *args)` keeps: `str()` of its one
    /// argument, for `str(e)`.
    fn store_message(&mut self, class: &str, exception: &Arg, args: &[Arg]) -> Result<(), String> {
        // str() of a KeyError is the repr of its key.
        let key_error = self.rt.classes.is_subclass(class, "KeyError");
        let message = match args {
            [] => Arg::Const(Constant::Str(String::new())),
            [arg] if key_error => self.repr_of(arg)?,
            [arg] => self.str_of(arg)?,
            _ => return Err("an exception built with several arguments is not lowered yet".into()),
        };
        let base = LowLevelType::Ptr(super::inst_type("BaseException"));
        let e = self.arg_as(exception, &base)?;
        self.emit(
            Opcode::Setfield,
            vec![e, Arg::Const(Constant::Name(EXC_MESSAGE.into())), message],
            LowLevelType::Void,
            None,
        );
        Ok(())
    }

    /// `str(a)`: by the rules of `rules/rtype/` for what they cover, else
    /// as `repr(a)` (containers, None).
    pub(super) fn str_of(&mut self, a: &Arg) -> Result<Arg, String> {
        match self.str_by_rules(a, self.rt.py2) {
            Ok(text) => Ok(text),
            Err(_) => self.repr_of(a),
        }
    }

    /// `str(a)` by the rules of `rules/rtype/`, as the dialect `py2` or
    /// Python 3 writes it.
    pub(super) fn str_by_rules(&mut self, a: &Arg, py2: bool) -> Result<Arg, String> {
        let ty = self.type_of(a);
        let consts = [Some(Constant::Builtin("str".into())), a.as_const().cloned()];
        let tree = rpy_ruleset::rtype::lower(
            Opcode::SimpleCall,
            &[LowLevelType::Void, ty.clone()],
            &consts,
            py2,
        )
        .ok_or_else(|| format!("str() of a {ty} is not lowered yet"))?;
        let args = [
            (
                Arg::Const(Constant::Builtin("str".into())),
                LowLevelType::Void,
            ),
            (a.clone(), ty),
        ];
        Ok(self.materialize(&tree, &args, None)?.0)
    }
}

/// Whether builtin type `name` holds values of annotation `a` (in
/// Python 2 an r_uint is a long, not an int).
fn builtin_type_holds(name: &str, a: &SomeValue, py2: bool) -> bool {
    if let ("int", SomeValue::Integer { unsigned: true, .. }) = (name, a) {
        return !py2;
    }
    matches!(
        (name, a),
        ("int", SomeValue::Integer { .. } | SomeValue::Bool)
            | ("bool", SomeValue::Bool)
            | ("float", SomeValue::Float)
            | ("str", SomeValue::String { .. } | SomeValue::Char)
            | ("list", SomeValue::List(_))
            | ("dict", SomeValue::Dict(_))
            | ("tuple", SomeValue::Tuple(_))
    )
}

//! Which low-level type represents each annotation (the original's
//! `getrepr`), and the layout of classes that follows from it.

use super::classes::{Slot, SlotKind};
use super::inst_type;
use super::RTyper;
use rpy_ir::annotation::{Desc, Known, SomeValue};
use rpy_ir::graph::Constant;
use rpy_ir::lltype::{self, ContainerType, FuncSig, LowLevelType};
use rpy_ir::opcode::Opcode;

impl RTyper<'_> {
    /// The low-level type that represents values of annotation `a`,
    /// registering any container type it needs.
    pub fn lltype_of(&mut self, a: &SomeValue) -> Result<LowLevelType, String> {
        Ok(match a {
            SomeValue::Integer { unsigned: true, .. } => LowLevelType::Unsigned,
            SomeValue::Integer { .. } => LowLevelType::Signed,
            SomeValue::Bool => LowLevelType::Bool,
            SomeValue::Float => LowLevelType::Float,
            SomeValue::Char => LowLevelType::Char,
            SomeValue::String { .. } => LowLevelType::Ptr(lltype::STR.into()),
            SomeValue::Const(k) => self.lltype_of(&k.general())?,
            SomeValue::List(def) => {
                let item = self.stored_lltype(&def.item)?;
                LowLevelType::Ptr(if def.resizable {
                    lltype::add_list_type(&mut self.types, &item)
                } else {
                    lltype::add_fixed_list_type(&mut self.types, &item)
                })
            }
            SomeValue::Dict(def) => self.dict_lltype(def)?,
            SomeValue::Tuple(items) => {
                let items = items
                    .iter()
                    .map(|i| self.lltype_of(i))
                    .collect::<Result<Vec<_>, _>>()?;
                LowLevelType::Ptr(self.tuple_type(&items))
            }
            SomeValue::Iterator(container) => {
                let container = match &**container {
                    // A tuple is iterated as a list of its items.
                    SomeValue::Tuple(items) => {
                        let item = self.tuple_item_type(items)?;
                        LowLevelType::Ptr(lltype::add_list_type(&mut self.types, &item))
                    }
                    // A char is iterated as the one-char string it is.
                    SomeValue::Char => LowLevelType::Ptr(lltype::STR.into()),
                    other => self.lltype_of(other)?,
                };
                LowLevelType::Ptr(self.iterator_type(&container)?)
            }
            SomeValue::Instance { class, .. } => {
                if !self.classes.contains(class) {
                    return Err(format!("the class {class} has no layout"));
                }
                LowLevelType::Ptr(inst_type(class))
            }
            SomeValue::Exception { classes, .. } => self
                .classes
                .instance_ptr(classes.iter().map(String::as_str)),
            SomeValue::Pbc { descs, .. } => self.pbc_lltype(descs)?,
            // Low-level helper code: a pointer is its type; a type is a constant.
            SomeValue::Ptr(t) => t.clone(),
            SomeValue::LLType(_) => LowLevelType::Void,
            // A receiver's method is represented by the receiver.
            SomeValue::BuiltinMethod { receiver, .. } => self.lltype_of(receiver)?,
            // Values known statically are not represented at run time.
            SomeValue::Impossible | SomeValue::None | SomeValue::Builtin(_) => LowLevelType::Void,
            SomeValue::Object => return Err("a value of mixed types has no low-level type".into()),
            other => {
                return Err(format!(
                    "the rtyper cannot represent {} yet",
                    other.describe()
                ))
            }
        })
    }

    /// The type a list stores its items as, and a dict its keys and
    /// values: an instance as a pointer to `object`, whatever its class.
    /// The containers of every class's instances then share one type and
    /// one specialization of each ll helper: a program with lists and
    /// dicts of 40 classes' instances had 40 copies of `ll_append` and of
    /// each dict helper, a third of its graphs. Reading an item back casts
    /// it to its class, which costs nothing in C.
    pub fn stored_lltype(&mut self, a: &SomeValue) -> Result<LowLevelType, String> {
        let t = self.lltype_of(a)?;
        Ok(match &t {
            LowLevelType::Ptr(name) if is_instance_struct(name) => {
                LowLevelType::Ptr(lltype::OBJECT.into())
            }
            _ => t,
        })
    }

    /// A set of prebuilt objects: nothing when it is one function or
    /// class (calls name it), a function pointer for several functions, a
    /// vtable pointer for several classes, the receiver for methods.
    fn pbc_lltype(&mut self, descs: &[Desc]) -> Result<LowLevelType, String> {
        let methods: Vec<&str> = descs
            .iter()
            .filter_map(|d| match d {
                Desc::Method { class, .. } => Some(class.as_str()),
                _ => None,
            })
            .collect();
        if !methods.is_empty() {
            if methods.len() != descs.len() {
                return Err("a value that is a method or something else".into());
            }
            return Ok(self.classes.instance_ptr(methods));
        }
        if let Some(k) = self.frozen.family_of_descs(descs) {
            let mut funcs = descs.iter().filter_map(|d| match d {
                Desc::FrozenMethod { func, .. } => Some(func),
                _ => None,
            });
            if let Some(first) = funcs.next() {
                if funcs.any(|f| f != first) {
                    return Err(
                        "the rtyper cannot represent a method of several frozen objects that is \
                         not one function for all of them"
                            .into(),
                    );
                }
            }
            return self.frozen_family_lltype(k);
        }
        if descs.len() <= 1 {
            return Ok(LowLevelType::Void);
        }
        if descs.iter().all(|d| matches!(d, Desc::Class(_))) {
            return Ok(LowLevelType::Ptr(lltype::OBJECT_VTABLE.into()));
        }
        let functions: Vec<String> = descs
            .iter()
            .filter_map(|d| match d {
                Desc::Function(f) => Some(f.clone()),
                _ => None,
            })
            .collect();
        if functions.len() == descs.len() {
            if let Some((params, result)) = self.family_signature(&functions)? {
                return Ok(LowLevelType::FuncPtr(Box::new(FuncSig { params, result })));
            }
        }
        let choices: Vec<String> = descs
            .iter()
            .map(|d| match d {
                Desc::Function(f) => format!("the function {f}"),
                Desc::Class(c) => format!("the class {c}"),
                Desc::Method { class, func } => format!("the method {class}.{func}"),
                Desc::Frozen(o) => format!("the frozen object {o}"),
                Desc::FrozenMethod { object, func } => format!("the method {func} of {object}"),
            })
            .collect();
        Err(format!(
            "the rtyper cannot represent a choice between {} yet",
            choices.join(" and ")
        ))
    }

    /// The signature functions called through one pointer share: the
    /// parameters of the first the program calls, and the union of their
    /// results (instances: their common class). Each member is lowered
    /// with that result type (its returns converted to it), so every
    /// member has the pointer's C type. `None` when the program calls
    /// none of them.
    fn family_signature(
        &mut self,
        functions: &[String],
    ) -> Result<Option<(Vec<LowLevelType>, LowLevelType)>, String> {
        let reached: Vec<&String> = functions
            .iter()
            .filter(|f| self.annotated_graph(f).is_some())
            .collect();
        let Some(first) = reached.first() else {
            return Ok(None);
        };
        let (params, _) = self.signature(first)?;
        let results: Vec<SomeValue> = reached
            .iter()
            .filter_map(|f| self.annotated_graph(f))
            .map(|g| g.info(g.block(g.returnblock).inputargs[0]).general())
            .filter(|r| *r != SomeValue::Impossible)
            .collect();
        let classes: Vec<String> = results
            .iter()
            .filter_map(|r| match r {
                SomeValue::Instance { class, .. } => Some(class.clone()),
                SomeValue::Exception { classes: names, .. } => {
                    self.classes.common_class(names.iter().map(String::as_str))
                }
                _ => None,
            })
            .collect();
        let result = if !results.is_empty() && classes.len() == results.len() {
            self.classes
                .instance_ptr(classes.iter().map(String::as_str))
        } else {
            let mut joined = SomeValue::Impossible;
            for r in &results {
                joined = crate::annotate::union(&joined, r).ok_or_else(|| {
                    format!(
                        "functions called through one pointer return {} and {}",
                        joined.describe(),
                        r.describe()
                    )
                })?;
            }
            self.lltype_of(&joined)?
        };
        for f in &reached {
            // Every member returns the family's type, including one whose
            // own signature is asked for later.
            let mut sig = self.signature(f)?;
            sig.1 = result.clone();
            self.signatures.insert(f.to_string(), sig);
        }
        Ok(Some((params, result)))
    }

    /// The one low-level type of the items of a tuple a loop iterates
    /// over: their type, or the one they all convert to (chars and strings
    /// as strings, numbers as the widest), as the annotator unions them.
    pub fn tuple_item_type(&mut self, items: &[SomeValue]) -> Result<LowLevelType, String> {
        use LowLevelType as T;
        let types = items
            .iter()
            .map(|i| self.lltype_of(i))
            .collect::<Result<Vec<_>, _>>()?;
        let Some(first) = types.first() else {
            return Ok(T::Void);
        };
        if types.iter().all(|t| t == first) {
            return Ok(first.clone());
        }
        let str_ptr = T::Ptr(lltype::STR.into());
        if types.iter().all(|t| *t == T::Char || *t == str_ptr) {
            return Ok(str_ptr);
        }
        let number = |t: &T| matches!(t, T::Bool | T::Signed | T::Unsigned | T::Float);
        if types.iter().all(number) {
            return Ok(widen(&T::Signed, 2, &types));
        }
        Err("a loop over a tuple whose items differ in type".into())
    }

    /// The struct type of tuples of these item types (named `tuple<n>_...`,
    /// which `family` reads).
    pub fn tuple_type(&mut self, items: &[LowLevelType]) -> String {
        let tag: Vec<String> = items.iter().map(type_tag).collect();
        let name = format!("tuple{}_{}", items.len(), tag.join("_"));
        self.types
            .entry(name.clone())
            .or_insert_with(|| ContainerType::GcStruct {
                fields: items
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (format!("item{i}"), t.clone()))
                    .collect(),
                var_item: None,
            });
        name
    }

    /// The struct type of an iterator over a container of type
    /// `container`: the container and the next index.
    pub fn iterator_type(&mut self, container: &LowLevelType) -> Result<String, String> {
        let LowLevelType::Ptr(name) = container else {
            return Err(format!("the rtyper cannot iterate over a {container} yet"));
        };
        let iter = format!("iter_{name}");
        self.types
            .entry(iter.clone())
            .or_insert_with(|| ContainerType::GcStruct {
                fields: vec![
                    ("container".into(), container.clone()),
                    ("index".into(), LowLevelType::Signed),
                ],
                var_item: None,
            });
        Ok(iter)
    }

    /// Gives every class its instance fields and vtable slots, bases first,
    /// and registers their struct types.
    pub fn lay_out_classes(&mut self) -> Result<(), String> {
        for def in self.facts.classdefs.iter() {
            let mut fields = Vec::new();
            // An attribute nothing stores into (only read, as a class
            // attribute through instances) is no field: it is the class's.
            let stored = def
                .attrs
                .iter()
                .filter(|(_, value)| *value != SomeValue::Impossible);
            for (name, value) in stored {
                let ty = self
                    .lltype_of(value)
                    .map_err(|e| format!("attribute '{name}' of class {}: {e}", def.name))?;
                fields.push((name.clone(), ty));
            }
            self.classes.set_fields(&def.name, fields);
        }
        // Methods called on a base that only its subclasses define. Each
        // (class, attribute) once, in the order first read: noting a pair
        // again changes nothing, and each note may scan the class's
        // subclasses.
        let mut reads = Vec::new();
        let mut classes_read = Vec::new();
        let mut seen: fxhash::FxHashSet<(&str, &str)> = fxhash::FxHashSet::default();
        for &g in self.annotated.values() {
            for b in &g.blocks {
                for op in &b.operations {
                    let (
                        Some(rpy_ir::graph::Arg::Var(obj)),
                        Some(rpy_ir::graph::Arg::Const(Constant::Name(attr))),
                    ) = (op.args.first(), op.args.get(1))
                    else {
                        continue;
                    };
                    if op.opname != Opcode::Getattr {
                        continue;
                    }
                    match &g.vars[obj.0 as usize].info {
                        SomeValue::Instance { class, .. }
                            if seen.insert((class.as_str(), attr.as_str())) =>
                        {
                            reads.push((class.as_str(), attr.as_str()));
                        }
                        // A class attribute read through a variable that
                        // holds one of several classes: read on their
                        // common class, whose vtable gets the slot.
                        SomeValue::Pbc { descs, .. } if descs.len() > 1 => {
                            if let Some(names) = Desc::class_names(descs) {
                                classes_read.push((names, attr.as_str()));
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        for (class, attr) in reads {
            self.classes.note_read(class, attr);
        }
        for (names, attr) in classes_read {
            if let Some(common) = self.classes.common_class(names) {
                self.classes.note_read(&common, attr);
            }
        }
        let names: Vec<String> = self.classes.all().iter().map(|c| c.name.clone()).collect();
        for class in &names {
            let mut slots = Vec::new();
            for (attr, values) in self.classes.slot_candidates(class) {
                let slot = self
                    .slot_type(class, &values)
                    .map_err(|e| format!("class attribute '{attr}' of class {class}: {e}"))?;
                if let Some((kind, ty)) = slot {
                    slots.push(Slot {
                        name: attr,
                        ty,
                        kind,
                    });
                }
            }
            self.classes.set_slots(class, slots);
        }
        for class in &names {
            let mut vtable_fields = lltype::object_vtable_fields();
            vtable_fields.extend(
                self.classes
                    .all_slots(class)
                    .into_iter()
                    .map(|s| (super::classes::slot_field(&s.name), s.ty)),
            );
            self.types.insert(
                super::vtable_type(class),
                ContainerType::GcStruct {
                    fields: vtable_fields,
                    var_item: None,
                },
            );
            self.types.insert(
                inst_type(class),
                ContainerType::GcStruct {
                    fields: self.classes.all_fields(class),
                    var_item: None,
                },
            );
        }
        Ok(())
    }

    /// The slot a class attribute with these values (in the class and its
    /// subclasses) gets: a method's function pointer, typed by the first
    /// implementation the program calls (the receiver as the slot's
    /// class); a plain value's type; `None` when no instance can read it
    /// (methods never called, values without a low-level constant form).
    fn slot_type(
        &mut self,
        class: &str,
        values: &[Constant],
    ) -> Result<Option<(SlotKind, LowLevelType)>, String> {
        if values.iter().any(|v| matches!(v, Constant::Func(_))) {
            let functions: Vec<String> = values
                .iter()
                .filter_map(|v| match v {
                    Constant::Func(f) => Some(f.clone()),
                    _ => None,
                })
                .collect();
            if functions.len() != values.len() {
                return Ok(None);
            }
            // One implementation in the whole subtree: every call of it is
            // direct, so no code reads a slot, and a slot would only make
            // the method address-taken (an edge from every indirect call of
            // its signature, a function the C compiler must keep), as
            // the original's Void repr of a single-function PBC avoids.
            if functions.iter().all(|f| *f == functions[0]) {
                return Ok(None);
            }
            let Some((mut params, result)) = self.family_signature(&functions)? else {
                return Ok(None);
            };
            if params.is_empty() {
                return Ok(None);
            }
            params[0] = LowLevelType::Ptr(inst_type(class));
            return Ok(Some((
                SlotKind::Method,
                LowLevelType::FuncPtr(Box::new(FuncSig { params, result })),
            )));
        }
        // One prebuilt object for the whole subtree: every read is that
        // constant, known statically, as a single method needs no slot.
        if let [Constant::Prebuilt(first), rest @ ..] = values {
            if rest.iter().all(|v| v == &Constant::Prebuilt(*first)) {
                return Ok(None);
            }
        }
        let mut ty: Option<LowLevelType> = None;
        for v in values {
            let t = match v {
                Constant::Int(_) => LowLevelType::Signed,
                Constant::UInt(_) => LowLevelType::Unsigned,
                Constant::Bool(_) => LowLevelType::Bool,
                Constant::Float(_) => LowLevelType::Float,
                Constant::Char(_) => LowLevelType::Char,
                Constant::Str(s) if s.chars().count() == 1 => LowLevelType::Char,
                Constant::Str(_) | Constant::None => LowLevelType::Ptr(lltype::STR.into()),
                Constant::Class(_) => LowLevelType::Ptr(lltype::OBJECT_VTABLE.into()),
                // A prebuilt list, dict, tuple or instance: its annotation
                // joined those of the class's and subclasses' values, so
                // they share one type.
                Constant::Prebuilt(i) => match self.facts.prebuilt.get(i).cloned() {
                    Some(annotation) => self.lltype_of(&annotation)?,
                    None => return Ok(None),
                },
                _ => return Ok(None),
            };
            ty = Some(match (ty, t) {
                (None, t) => t,
                (Some(a), b) if a == b => a,
                (Some(LowLevelType::Char), s @ LowLevelType::Ptr(_))
                | (Some(s @ LowLevelType::Ptr(_)), LowLevelType::Char) => s,
                (Some(LowLevelType::Bool), LowLevelType::Signed)
                | (Some(LowLevelType::Signed), LowLevelType::Bool) => LowLevelType::Signed,
                (Some(LowLevelType::Float), LowLevelType::Signed | LowLevelType::Bool)
                | (Some(LowLevelType::Signed | LowLevelType::Bool), LowLevelType::Float) => {
                    LowLevelType::Float
                }
                _ => return Ok(None),
            });
        }
        Ok(ty.map(|t| (SlotKind::Attribute, t)))
    }
}

/// The one value a value of annotation `a` can be, when `a` says (one
/// class, one function, None): what a value with no representation is.
pub fn single_value(a: &SomeValue) -> Option<Constant> {
    match a {
        SomeValue::Pbc { descs, .. } if descs.len() == 1 => match &descs[0] {
            Desc::Class(c) => Some(Constant::Class(c.clone())),
            Desc::Function(f) => Some(Constant::Func(f.clone())),
            _ => None,
        },
        SomeValue::None => Some(Constant::None),
        _ => None,
    }
}

/// The annotation of a primitive constant.
pub fn constant_annotation(c: &Constant) -> SomeValue {
    match c {
        Constant::Int(n) => SomeValue::Const(Known::Int(*n)),
        Constant::Bool(b) => SomeValue::Const(Known::Bool(*b)),
        Constant::Char(ch) => SomeValue::Const(Known::Char(*ch)),
        Constant::Str(s) => SomeValue::Const(Known::Str(s.clone())),
        Constant::Float(_) => SomeValue::Float,
        Constant::None => SomeValue::None,
        Constant::Builtin(b) => SomeValue::Builtin(b.clone()),
        _ => SomeValue::Object,
    }
}

pub(super) fn type_tag(t: &LowLevelType) -> String {
    match t {
        LowLevelType::Ptr(name) => name.clone(),
        LowLevelType::FuncPtr(_) => "func".into(),
        other => other.to_string().to_lowercase(),
    }
}

/// Whether pointers to `a` and to `b` may point to the same object, one
/// as a part of the other: both instance structs, or both vtables.
pub fn same_object_family(a: &str, b: &str) -> bool {
    let instance = is_instance_struct;
    let vtable = |n: &str| n == lltype::OBJECT_VTABLE || n.starts_with("vtable_");
    (instance(a) && instance(b)) || (vtable(a) && vtable(b))
}

/// Whether `name` is the struct of instances of some class.
pub fn is_instance_struct(name: &str) -> bool {
    name == lltype::OBJECT || name.starts_with("inst_")
}

/// The low-level type of a constant operand.
pub fn const_lltype(c: &Constant) -> LowLevelType {
    match c {
        Constant::Int(_) => LowLevelType::Signed,
        Constant::UInt(_) => LowLevelType::Unsigned,
        Constant::Float(_) => LowLevelType::Float,
        Constant::Bool(_) => LowLevelType::Bool,
        Constant::Char(_) => LowLevelType::Char,
        Constant::Str(s) if s.chars().count() == 1 => LowLevelType::Char,
        Constant::Str(_) => LowLevelType::Ptr(lltype::STR.into()),
        Constant::None
        | Constant::Func(_)
        | Constant::Builtin(_)
        | Constant::Name(_)
        | Constant::Class(_)
        | Constant::LastException => LowLevelType::Void,
        // The rtyper's statics have their own types (`RTyper::prebuilt_type`).
        Constant::Prebuilt(_) => LowLevelType::Void,
    }
}

/// What the conversion ladder tries when no lowering rule matches the operand
/// types as they are: bools as ints, then every number as the widest number
/// among the operands (Float over Unsigned over Signed), then chars as strings.
pub fn widen(ty: &LowLevelType, step: usize, operands: &[LowLevelType]) -> LowLevelType {
    let str_ptr = || LowLevelType::Ptr(lltype::STR.into());
    // The widest number among the operands, which the others become at step 2.
    let widest = if operands.contains(&LowLevelType::Float) {
        LowLevelType::Float
    } else if operands.contains(&LowLevelType::Unsigned) {
        LowLevelType::Unsigned
    } else {
        LowLevelType::Signed
    };
    match (ty, step) {
        (LowLevelType::Bool, 1) => LowLevelType::Signed,
        (LowLevelType::Bool | LowLevelType::Signed | LowLevelType::Unsigned, 2) => widest,
        (LowLevelType::Char, 3) => str_ptr(),
        (LowLevelType::Bool, 3) => LowLevelType::Signed,
        _ => ty.clone(),
    }
}

/// The kinds of container struct the rtyper makes, told by the names it
/// gives their types (`tuple_type`, `lltype::list_type_names`: a list that
/// changes length is a `list_` struct, one that does not its `array_`,
/// `RTyper::dict_lltype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Tuple,
    List,
    Dict,
    Other,
}

/// The family of the container a pointer of type `ty` points to.
pub fn family(ty: &LowLevelType) -> Family {
    match ty {
        LowLevelType::Ptr(t) if t.starts_with("tuple") => Family::Tuple,
        LowLevelType::Ptr(t) if t.starts_with("list_") || t.starts_with("array_") => Family::List,
        LowLevelType::Ptr(t) if t.starts_with("dict_") => Family::Dict,
        _ => Family::Other,
    }
}

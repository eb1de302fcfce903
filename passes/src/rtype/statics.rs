//! Prebuilt objects as static data (the original's `convert_const`): each
//! prebuilt instance, list and tuple the graphs reach becomes a static
//! struct (and a static items array for a list), each class a static
//! vtable; sharing and cycles are kept, since a static is made once and
//! reserved before its contents are converted.

use super::classes::SlotKind;
use super::RTyper;
use super::{inst_type, vtable_type};
use rpy_ir::annotation::{user_class_name, SomeValue};
use rpy_ir::graph::{
    single_byte, Constant, FunctionGraph, LowLevel, PrebuiltObject, DESTRUCTOR_HINT_PREFIX,
};
use rpy_ir::lltype::{self, ContainerType, LowLevelType};

/// The struct type of the static a frozen prebuilt object is.
const FROZEN: &str = "frozen_pbc";

impl RTyper<'_> {
    /// The pointer type of static `s`.
    pub fn static_type(&self, s: u32) -> LowLevelType {
        match self.statics.get(s as usize) {
            Some(PrebuiltObject::Struct { ty, .. } | PrebuiltObject::Array { ty, .. })
                if !ty.is_empty() =>
            {
                LowLevelType::Ptr(ty.clone())
            }
            _ => LowLevelType::Void,
        }
    }

    /// A constant of the high-level program (a class attribute, an
    /// attribute of a frozen object) as one of the low-level program: a
    /// prebuilt object becomes its static.
    pub fn hl_constant(&mut self, c: &Constant) -> Result<Constant, String> {
        Ok(match c {
            Constant::Prebuilt(i) => Constant::Prebuilt(self.static_of(*i)?),
            other => other.clone(),
        })
    }

    /// Constant `c` as a low-level constant of type `to`; `None` when it
    /// has no such form (a run-time conversion may still exist).
    pub fn ll_constant_as(
        &mut self,
        c: &Constant,
        to: &LowLevelType,
    ) -> Result<Option<Constant>, String> {
        Ok(Some(match (c, to) {
            (Constant::Prebuilt(_), LowLevelType::Ptr(_)) => c.clone(),
            (Constant::Class(name), LowLevelType::Ptr(_)) if self.classes.contains(name) => {
                Constant::Prebuilt(self.vtable_of(name))
            }
            (Constant::Func(_), LowLevelType::FuncPtr(_)) => c.clone(),
            (Constant::None, LowLevelType::Ptr(_) | LowLevelType::FuncPtr(_)) => Constant::None,
            (Constant::Bool(b), LowLevelType::Signed) => Constant::Int(*b as i64),
            (Constant::Bool(b), LowLevelType::Float) => Constant::Float(*b as i64 as f64),
            (Constant::Int(n), LowLevelType::Float) => Constant::Float(*n as f64),
            (Constant::Int(n), LowLevelType::Unsigned) => Constant::UInt(*n as u64),
            (Constant::Bool(b), LowLevelType::Unsigned) => Constant::UInt(*b as u64),
            (Constant::UInt(u), LowLevelType::Float) => Constant::Float(*u as f64),
            (Constant::Str(s), LowLevelType::Char) if single_byte(s).is_some() => {
                Constant::Char(single_byte(s).unwrap_or(0))
            }
            (Constant::Char(ch), LowLevelType::Ptr(t)) if t == lltype::STR => {
                Constant::Str((*ch as char).to_string())
            }
            (Constant::Str(_), LowLevelType::Ptr(t)) if t == lltype::STR => c.clone(),
            (c, to) if super::const_lltype(c) == *to => c.clone(),
            _ => return Ok(None),
        }))
    }

    /// High-level constant `c` as a field or item of type `to`, which it
    /// must fit.
    pub(super) fn field_constant(
        &mut self,
        c: &Constant,
        to: &LowLevelType,
    ) -> Result<Constant, String> {
        if *to == LowLevelType::Void {
            return Ok(Constant::None);
        }
        let c = self.hl_constant(c)?;
        self.ll_constant_as(&c, to)?
            .ok_or_else(|| format!("the prebuilt value {c:?} cannot be stored as a {to}"))
    }

    /// Reserves a static, to be filled once its contents are converted.
    pub(super) fn reserve_static(&mut self) -> u32 {
        self.statics.push(PrebuiltObject::Array {
            ty: String::new(),
            items: Vec::new(),
        });
        (self.statics.len() - 1) as u32
    }

    /// The static standing for high-level prebuilt object `i`.
    pub fn static_of(&mut self, i: u32) -> Result<u32, String> {
        if let Some(&s) = self.static_of_prebuilt.get(&i) {
            return Ok(s);
        }
        let object = self
            .hl_prebuilt
            .get(i as usize)
            .ok_or_else(|| format!("there is no prebuilt object &{i}"))?;
        if let PrebuiltObject::Class { name, .. } = object {
            return Ok(self.vtable_of(name));
        }
        let s = self.reserve_static();
        self.static_of_prebuilt.insert(i, s);
        self.prebuilt_of_static.insert(s, i);
        let annotation = self.facts.prebuilt.get(&i).cloned();
        let filled = match (object, self.frozen.family_of_object(i)) {
            // One of several frozen objects a variable may hold: a static
            // of its family's struct.
            (_, Some(k)) => self.frozen_family_static(i, k)?,
            // A frozen object is known statically: its static only
            // stands for it.
            _ if matches!(annotation, Some(SomeValue::Pbc { .. })) => {
                self.types
                    .entry(FROZEN.into())
                    .or_insert_with(|| ContainerType::GcStruct {
                        fields: Vec::new(),
                        var_item: None,
                    });
                PrebuiltObject::Struct {
                    ty: FROZEN.into(),
                    fields: Vec::new(),
                    items: Vec::new(),
                }
            }
            (PrebuiltObject::Instance { class, attrs }, None) => {
                self.instance_static(class, attrs)?
            }
            (PrebuiltObject::List(items), None) => {
                let Some(SomeValue::List(def)) = annotation else {
                    return Err(format!("the prebuilt list &{i} was never annotated"));
                };
                let item = self.stored_lltype(&def.item)?;
                let items = items
                    .iter()
                    .map(|c| self.field_constant(c, &item))
                    .collect::<Result<Vec<_>, _>>()?;
                if def.resizable {
                    let list = lltype::add_list_type(&mut self.types, &item);
                    let array = lltype::list_type_names(&item).1;
                    let n = items.len() as i64;
                    let a = self.reserve_static();
                    self.statics[a as usize] = PrebuiltObject::Array { ty: array, items };
                    PrebuiltObject::Struct {
                        ty: list,
                        fields: vec![
                            ("length".into(), Constant::Int(n)),
                            ("items".into(), Constant::Prebuilt(a)),
                        ],
                        items: Vec::new(),
                    }
                } else {
                    // A list that never changes length is its items array.
                    let array = lltype::add_fixed_list_type(&mut self.types, &item);
                    PrebuiltObject::Array { ty: array, items }
                }
            }
            (PrebuiltObject::Tuple(items), None) => {
                let Some(SomeValue::Tuple(anns)) = annotation else {
                    return Err(format!("the prebuilt tuple &{i} was never annotated"));
                };
                let types = anns
                    .iter()
                    .map(|a| self.lltype_of(a))
                    .collect::<Result<Vec<_>, _>>()?;
                let ty = self.tuple_type(&types);
                let mut fields = Vec::new();
                for (k, (c, t)) in items.iter().zip(&types).enumerate() {
                    fields.push((format!("item{k}"), self.field_constant(c, t)?));
                }
                PrebuiltObject::Struct {
                    ty,
                    fields,
                    items: Vec::new(),
                }
            }
            (PrebuiltObject::Dict(pairs), None) => self.dict_static(i, pairs, annotation)?,
            (
                PrebuiltObject::Class { .. }
                | PrebuiltObject::Struct { .. }
                | PrebuiltObject::Array { .. },
                None,
            ) => return Err(format!("the prebuilt object &{i} is not a Python object")),
        };
        self.statics[s as usize] = filled;
        Ok(s)
    }

    /// A prebuilt instance: its attributes, the class attribute of the
    /// same name for those it does not set, else zero.
    fn instance_static(
        &mut self,
        class: &str,
        attrs: &[(String, Constant)],
    ) -> Result<PrebuiltObject, String> {
        if !self.classes.contains(class) {
            return Err(format!(
                "the class {class} of a prebuilt instance has no layout"
            ));
        }
        let vtable = self.vtable_of(class);
        let mut fields = Vec::new();
        for (name, ty) in self.classes.all_fields(class) {
            if name == lltype::TYPEPTR {
                fields.push((name, Constant::Prebuilt(vtable)));
                continue;
            }
            let value = attrs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone())
                .or_else(|| self.classes.class_attr(class, &name).cloned());
            let c = match value {
                Some(v) => self.field_constant(&v, &ty)?,
                None => zero_constant(&ty),
            };
            fields.push((name, c));
        }
        Ok(PrebuiltObject::Struct {
            ty: inst_type(class),
            fields,
            items: Vec::new(),
        })
    }

    /// The static vtable of `class`, reserved now and filled by
    /// `make_vtables` once every graph's signature is known.
    pub fn vtable_of(&mut self, class: &str) -> u32 {
        if let Some(&s) = self.vtable_static.get(class) {
            return s;
        }
        let s = self.reserve_static();
        // Its type is known now, its contents only at the end.
        self.statics[s as usize] = PrebuiltObject::Struct {
            ty: vtable_type(class),
            fields: Vec::new(),
            items: Vec::new(),
        };
        self.vtable_static.insert(class.to_string(), s);
        s
    }

    /// Tells GenC which graph finalizes the instances of each class that
    /// has a `__del__` (its own or a base's): the `__del__` graph gets a
    /// `destructor inst_C` hint per instance struct it serves.
    pub fn mark_destructors(&self, graphs: &mut [FunctionGraph<LowLevel>]) {
        for class in self.classes.all() {
            if !class.instantiated {
                continue;
            }
            let Some(Constant::Func(del)) = self.classes.class_attr(&class.name, "__del__") else {
                continue;
            };
            if let Some(g) = graphs.iter_mut().find(|g| g.name == *del) {
                g.hints.push(format!(
                    "{DESTRUCTOR_HINT_PREFIX}{}",
                    inst_type(&class.name)
                ));
            }
        }
    }

    /// Fills every vtable reserved so far (and those their contents need):
    /// id range, name, and the value of each slot as this class sees it.
    pub fn make_vtables(&mut self) -> Result<(), String> {
        let mut done = std::collections::BTreeSet::new();
        loop {
            let pending: Vec<(String, u32)> = self
                .vtable_static
                .iter()
                .filter(|(c, _)| !done.contains(*c))
                .map(|(c, s)| (c.clone(), *s))
                .collect();
            if pending.is_empty() {
                return Ok(());
            }
            for (class, s) in pending {
                done.insert(class.clone());
                let repr = self
                    .classes
                    .get(&class)
                    .ok_or_else(|| format!("the class {class} has no layout"))?
                    .clone();
                let mut fields = vec![
                    (lltype::SUBCLASSRANGE_MIN.into(), Constant::Int(repr.min)),
                    (lltype::SUBCLASSRANGE_MAX.into(), Constant::Int(repr.max)),
                    (
                        lltype::CLASS_NAME.into(),
                        Constant::Str(short_name(&class).to_string()),
                    ),
                ];
                for slot in self.classes.all_slots(&class) {
                    let value = self.classes.class_attr(&class, &slot.name).cloned();
                    let c = match (&slot.kind, value) {
                        (SlotKind::Method, Some(Constant::Func(f)))
                            if self.annotated_graph(&f).is_some() =>
                        {
                            Constant::Func(f)
                        }
                        (SlotKind::Method, _) | (_, None) => zero_constant(&slot.ty),
                        (SlotKind::Attribute, Some(v)) => self.field_constant(&v, &slot.ty)?,
                    };
                    fields.push((super::classes::slot_field(&slot.name), c));
                }
                self.statics[s as usize] = PrebuiltObject::Struct {
                    ty: vtable_type(&class),
                    fields,
                    items: Vec::new(),
                };
            }
        }
    }
}

/// A class's name as CPython prints it in a traceback's last line.
fn short_name(class: &str) -> &str {
    user_class_name(class)
        .rsplit_once('.')
        .map_or(user_class_name(class), |(_, s)| s)
}

/// The zero value of a field of type `t` (null for pointers).
pub fn zero_constant(t: &LowLevelType) -> Constant {
    match t {
        LowLevelType::Signed | LowLevelType::Unsigned => Constant::Int(0),
        LowLevelType::Float => Constant::Float(0.0),
        LowLevelType::Bool => Constant::Bool(false),
        LowLevelType::Char => Constant::Char(0),
        LowLevelType::Void | LowLevelType::Ptr(_) | LowLevelType::FuncPtr(_) => Constant::None,
    }
}

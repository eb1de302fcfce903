//! Classes as the C backend and the JIT see them (the original's
//! `rclass.py`): the program's classes and the builtin exception classes
//! form one tree under `object`. Each class gets
//! - an instance struct `inst_<Class>`: `typeptr`, then its base's fields,
//!   then the instance attributes its ClassDef holds (flattened, so that a
//!   pointer to an instance is also a pointer to its base part);
//! - a vtable struct `vtable_<Class>`: the root vtable's fields (id range
//!   and name), its base's slots, then its own: one function pointer per
//!   method first defined in it and one value per other class attribute;
//! - a static vtable filled with this class's methods and attribute values.
//!
//! Ids are given in preorder, so the subclasses of a class are the ids in
//! `subclassrange_min..subclassrange_max` and `isinstance` is two
//! comparisons.

use crate::language::exceptions::{builtin_exception_base, BUILTIN_EXCEPTIONS};
use fxhash::FxHashMap as HashMap;
use rpy_ir::annotation::ClassDef;
use rpy_ir::ast::Dialect;
use rpy_ir::graph::{Constant, PrebuiltObject};
use rpy_ir::lltype::inst_type;
use rpy_ir::lltype::{self, LowLevelType};
use std::collections::{BTreeMap, BTreeSet};

/// The field of builtin exceptions holding `str()` of the argument they
/// were built with (null when built without one).
pub const EXC_MESSAGE: &str = "exc_message";

/// One class: where it sits in the tree and what its structs hold.
#[derive(Clone, Debug)]
pub struct ClassRepr {
    pub name: String,
    /// Its layout base; `None` for a class deriving from `object` alone.
    pub base: Option<String>,
    /// Its id and the end of its subclasses' ids.
    pub min: i64,
    pub max: i64,
    /// Its own instance fields (its bases' come first in the struct).
    pub fields: Vec<(String, LowLevelType)>,
    /// Its own vtable slots.
    pub slots: Vec<Slot>,
    /// Whether instances of it are built.
    pub instantiated: bool,
}

/// A vtable slot: a method or a class attribute read through instances.
#[derive(Clone, Debug)]
pub struct Slot {
    pub name: String,
    pub ty: LowLevelType,
    pub kind: SlotKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SlotKind {
    Method,
    Attribute,
}

/// The program's classes and the builtin exception classes.
#[derive(Debug, Default)]
pub struct ClassTable {
    classes: Vec<ClassRepr>,
    by_name: HashMap<String, usize>,
    /// Each class's own class attributes (the prebuilt class object's),
    /// and its bases in order, for Python's attribute lookup.
    own_attrs: HashMap<String, Vec<(String, Constant)>>,
    all_bases: HashMap<String, Vec<String>>,
    /// The attribute name each method function is found under.
    method_names: HashMap<String, String>,
    /// Attributes that code reads through instances of a class that only
    /// its subclasses define (a method each subclass implements, called on
    /// the base): the base gets their vtable slot, as the original's
    /// annotator moves an attribute up to the class it is read on.
    read_on: HashMap<String, BTreeSet<String>>,
}

/// The vtable field of class attribute `attr`: prefixed, so that no
/// attribute of the program clashes with the root vtable's own fields.
pub fn slot_field(attr: &str) -> String {
    format!("cls_{attr}")
}

impl ClassTable {
    /// The tree of `classdefs` and of the builtin exception classes of
    /// `dialect`, with ids; fields and slots come later (`set_layout`),
    /// once low-level types can be found for them.
    pub fn new(
        classdefs: &[ClassDef],
        prebuilt: &[PrebuiltObject],
        dialect: Dialect,
    ) -> ClassTable {
        let mut table = ClassTable::default();
        for name in BUILTIN_EXCEPTIONS {
            if let Some(base) = builtin_exception_base(name, dialect) {
                table.add(ClassRepr {
                    name: name.to_string(),
                    base: base.map(str::to_string),
                    min: 0,
                    max: 0,
                    fields: if *name == "BaseException" {
                        vec![(EXC_MESSAGE.into(), LowLevelType::Ptr(lltype::STR.into()))]
                    } else {
                        Vec::new()
                    },
                    slots: Vec::new(),
                    instantiated: true,
                });
            }
        }
        for def in classdefs {
            table.add(ClassRepr {
                name: def.name.clone(),
                base: def.base.clone(),
                min: 0,
                max: 0,
                fields: Vec::new(),
                slots: Vec::new(),
                instantiated: def.instantiated,
            });
        }
        for p in prebuilt {
            if let PrebuiltObject::Class { name, bases, attrs } = p {
                table.own_attrs.insert(name.clone(), attrs.clone());
                table.all_bases.insert(name.clone(), bases.clone());
                for (attr, value) in attrs {
                    if let Constant::Func(f) = value {
                        table
                            .method_names
                            .entry(f.clone())
                            .or_insert_with(|| attr.clone());
                    }
                }
            }
        }
        table.number();
        table
    }

    fn add(&mut self, class: ClassRepr) {
        if !self.by_name.contains_key(&class.name) {
            self.by_name.insert(class.name.clone(), self.classes.len());
            self.classes.push(class);
        }
    }

    /// Gives ids in preorder of the tree, children in name order.
    fn number(&mut self) {
        let mut children: BTreeMap<Option<String>, BTreeSet<String>> = BTreeMap::new();
        for c in &self.classes {
            let base = c.base.clone().filter(|b| self.by_name.contains_key(b));
            children.entry(base).or_default().insert(c.name.clone());
        }
        // Ids start at 1: 0 is `object`'s.
        let mut next = 1;
        let mut stack: Vec<(String, bool)> = children
            .get(&None)
            .map(|s| s.iter().rev().map(|c| (c.clone(), false)).collect())
            .unwrap_or_default();
        while let Some((name, done)) = stack.pop() {
            let i = self.by_name[&name];
            if done {
                self.classes[i].max = next;
                continue;
            }
            self.classes[i].min = next;
            next += 1;
            stack.push((name.clone(), true));
            if let Some(kids) = children.get(&Some(name)) {
                stack.extend(kids.iter().rev().map(|c| (c.clone(), false)));
            }
        }
    }

    pub fn get(&self, class: &str) -> Option<&ClassRepr> {
        self.by_name.get(class).map(|&i| &self.classes[i])
    }

    pub fn contains(&self, class: &str) -> bool {
        self.by_name.contains_key(class)
    }

    /// Every class, bases first.
    pub fn all(&self) -> &[ClassRepr] {
        &self.classes
    }

    /// `class`, its base, its base's base, ...
    pub fn ancestors(&self, class: &str) -> Vec<&ClassRepr> {
        let mut out = Vec::new();
        let mut cur = self.get(class);
        while let Some(c) = cur {
            if out.len() > self.classes.len() {
                break;
            }
            out.push(c);
            cur = c.base.as_deref().and_then(|b| self.get(b));
        }
        out
    }

    pub fn is_subclass(&self, class: &str, ancestor: &str) -> bool {
        match (self.get(class), self.get(ancestor)) {
            (Some(c), Some(a)) => a.min <= c.min && c.min < a.max,
            _ => false,
        }
    }

    /// The most derived class all of `classes` are (or derive from);
    /// `None` when only `object` is, or when there are none.
    /// A method set names hundreds of classes: each one moves the answer
    /// up the bases until it contains the class (by the preorder ids, so
    /// without a list of ancestors per class).
    pub fn common_class<'c>(&self, classes: impl IntoIterator<Item = &'c str>) -> Option<String> {
        let mut classes = classes.into_iter();
        let first = classes.next()?;
        let Some(mut common) = self.get(first) else {
            // Alone, a class is its own common class; with others, a class
            // without a layout has none.
            return match classes.next() {
                None => Some(first.to_string()),
                Some(_) => None,
            };
        };
        for c in classes {
            let c = self.get(c)?;
            while !(common.min <= c.min && c.min < common.max) {
                common = common.base.as_deref().and_then(|b| self.get(b))?;
            }
        }
        Some(common.name.clone())
    }

    /// The instance pointer type of a value that is an instance of one of
    /// `classes`.
    pub fn instance_ptr<'c>(&self, classes: impl IntoIterator<Item = &'c str>) -> LowLevelType {
        match self.common_class(classes) {
            Some(c) if self.contains(&c) => LowLevelType::Ptr(inst_type(&c)),
            _ => LowLevelType::Ptr(lltype::OBJECT.into()),
        }
    }

    /// `class` and its bases in Python's lookup order (depth first, left
    /// to right), each once.
    fn lookup_order<'a>(&'a self, class: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        let mut stack = vec![class];
        // A class has few ancestors: a list is quicker than a set.
        let mut seen: Vec<&str> = Vec::new();
        std::iter::from_fn(move || {
            while let Some(c) = stack.pop() {
                if seen.contains(&c) {
                    continue;
                }
                seen.push(c);
                if let Some(bases) = self.all_bases.get(c) {
                    stack.extend(bases.iter().rev().map(String::as_str));
                }
                return Some(c);
            }
            None
        })
    }

    /// Class attribute `name` as instances of `class` see it: Python's
    /// lookup, depth first through the bases, left to right.
    pub fn class_attr(&self, class: &str, name: &str) -> Option<&Constant> {
        self.lookup_order(class).find_map(|c| {
            self.own_attrs
                .get(c)
                .and_then(|attrs| attrs.iter().find(|(n, _)| n == name))
                .map(|(_, v)| v)
        })
    }

    /// The attribute name method graph `func` is defined under.
    pub fn method_name(&self, func: &str) -> Option<&str> {
        self.method_names.get(func).map(String::as_str)
    }

    /// The class attribute names instances of `class` see.
    fn visible_attr_names(&self, class: &str) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for c in self.lookup_order(class) {
            if let Some(attrs) = self.own_attrs.get(c) {
                out.extend(attrs.iter().map(|(n, _)| n.clone()));
            }
            if let Some(attrs) = self.read_on.get(c) {
                out.extend(attrs.iter().cloned());
            }
        }
        out
    }

    /// Whether instances of `class` see a class attribute `attr`: one of
    /// `visible_attr_names`, found without collecting them (every
    /// attribute read of the program asks, through `note_read`).
    fn sees_attr(&self, class: &str, attr: &str) -> bool {
        self.lookup_order(class).any(|c| {
            self.own_attrs
                .get(c)
                .is_some_and(|attrs| attrs.iter().any(|(n, _)| n == attr))
                || self
                    .read_on
                    .get(c)
                    .is_some_and(|attrs| attrs.contains(attr))
        })
    }

    /// Records that code reads `attr` on instances of `class`: when
    /// `class` and its bases do not define it but a subclass does, `class`
    /// gets its slot (see `read_on`).
    pub fn note_read(&mut self, class: &str, attr: &str) {
        if self.sees_attr(class, attr) {
            return;
        }
        let defined_below = self.subtree(class).iter().any(|c| {
            self.own_attrs
                .get(&c.name)
                .is_some_and(|a| a.iter().any(|(n, _)| n == attr))
        });
        if defined_below {
            self.read_on
                .entry(class.to_string())
                .or_default()
                .insert(attr.to_string());
        }
    }

    /// The classes whose ids are in `class`'s range: itself and its
    /// subclasses.
    pub fn subtree(&self, class: &str) -> Vec<&ClassRepr> {
        let Some(root) = self.get(class) else {
            return Vec::new();
        };
        self.classes
            .iter()
            .filter(|c| root.min <= c.min && c.min < root.max)
            .collect()
    }

    pub fn set_fields(&mut self, class: &str, fields: Vec<(String, LowLevelType)>) {
        if let Some(&i) = self.by_name.get(class) {
            self.classes[i].fields = fields;
        }
    }

    pub fn set_slots(&mut self, class: &str, slots: Vec<Slot>) {
        if let Some(&i) = self.by_name.get(class) {
            self.classes[i].slots = slots;
        }
    }

    /// The class attributes that would have their slot in `class`'s
    /// vtable: those instances of it see that no base has a slot or field
    /// for, with the values they have in `class` and its subclasses. The
    /// bases' slots must be set first.
    pub fn slot_candidates(&self, class: &str) -> Vec<(String, Vec<Constant>)> {
        let inherited: BTreeSet<&str> = self
            .ancestors(class)
            .iter()
            .skip(1)
            .flat_map(|c| c.slots.iter().map(|s| s.name.as_str()))
            .collect();
        let fields: BTreeSet<&str> = self
            .ancestors(class)
            .iter()
            .flat_map(|c| c.fields.iter().map(|f| f.0.as_str()))
            .collect();
        let subtree = self.subtree(class);
        self.visible_attr_names(class)
            .into_iter()
            .filter(|a| {
                !inherited.contains(a.as_str())
                    && !fields.contains(a.as_str())
                    && !a.starts_with("__")
            })
            .map(|attr| {
                let values = subtree
                    .iter()
                    .filter_map(|c| self.class_attr(&c.name, &attr).cloned())
                    .collect();
                (attr, values)
            })
            .collect()
    }

    /// The class among `class` and its bases whose vtable has slot `name`.
    pub fn slot_owner(&self, class: &str, name: &str) -> Option<(&ClassRepr, &Slot)> {
        self.ancestors(class)
            .into_iter()
            .find_map(|c| c.slots.iter().find(|s| s.name == name).map(|s| (c, s)))
    }

    /// The class among `class` and its bases that holds instance field
    /// `name`, with the field's type.
    pub fn field_owner(&self, class: &str, name: &str) -> Option<(&ClassRepr, &LowLevelType)> {
        self.ancestors(class)
            .into_iter()
            .find_map(|c| c.fields.iter().find(|f| f.0 == name).map(|f| (c, &f.1)))
    }

    /// The instance struct's fields of `class`, bases' first.
    pub fn all_fields(&self, class: &str) -> Vec<(String, LowLevelType)> {
        let mut out = vec![(
            lltype::TYPEPTR.to_string(),
            LowLevelType::Ptr(lltype::OBJECT_VTABLE.into()),
        )];
        for c in self.ancestors(class).iter().rev() {
            out.extend(c.fields.iter().cloned());
        }
        out
    }

    /// The vtable's slots of `class`, bases' first.
    pub fn all_slots(&self, class: &str) -> Vec<Slot> {
        let mut out = Vec::new();
        for c in self.ancestors(class).iter().rev() {
            out.extend(c.slots.iter().cloned());
        }
        out
    }
}

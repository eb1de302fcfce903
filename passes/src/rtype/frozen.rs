//! Frozen prebuilt objects that a variable may hold several of (the
//! original's `MultipleFrozenPBCRepr`). One frozen object is known
//! statically and has no representation; a variable that may hold one of
//! several is a pointer to a static struct per object. The objects that
//! ever meet in one variable form a family (a union-find over the
//! program's annotations, as the original's access sets), and a family
//! has one struct type, whose fields are the attributes the program reads
//! through such a variable: a read is a `getfield`, a method bound to one
//! of them is the pointer, and calling it passes the pointer as `self`.

use super::{GraphTyper, RTyper};
use fxhash::FxHashMap as HashMap;
use rpy_ir::annotation::{Desc, SomeValue};
use rpy_ir::graph::{Annotated, Arg, Constant, FunctionGraph, PrebuiltObject, SpaceOperation};
use rpy_ir::lltype::{ContainerType, LowLevelType};
use rpy_ir::opcode::Opcode;
use std::collections::BTreeMap;

use crate::annotate::frozen::frozen_index;

/// The families of frozen objects, and what each reads.
#[derive(Default)]
pub struct FrozenFamilies {
    /// The family of each frozen object that shares a variable with
    /// another, by high-level prebuilt index.
    family_of: HashMap<u32, usize>,
    /// Per family: the attributes read through a variable holding several
    /// of its objects, with the annotation of the value read.
    attrs: Vec<BTreeMap<String, SomeValue>>,
}

/// The frozen objects a value of these descs may be (a method bound to
/// one counts as its object), when it is nothing else.
fn frozen_objects(descs: &[Desc]) -> Option<Vec<u32>> {
    descs
        .iter()
        .map(|d| match d {
            Desc::Frozen(object) | Desc::FrozenMethod { object, .. } => frozen_index(object),
            _ => None,
        })
        .collect()
}

/// Whether a value of annotation `a` is a method bound to frozen objects.
pub fn is_frozen_method(a: &SomeValue) -> bool {
    matches!(a, SomeValue::Pbc { descs, .. }
        if !descs.is_empty() && descs.iter().all(|d| matches!(d, Desc::FrozenMethod { .. })))
}

/// The struct type of family `k`.
fn family_type(k: usize) -> String {
    format!("frozen_{k}")
}

impl FrozenFamilies {
    /// The families the annotated program's variables make.
    pub fn of_program(graphs: &[FunctionGraph<Annotated>]) -> FrozenFamilies {
        let mut parent: HashMap<u32, u32> = HashMap::default();
        fn root(parent: &HashMap<u32, u32>, mut x: u32) -> u32 {
            while let Some(&p) = parent.get(&x) {
                if p == x {
                    break;
                }
                x = p;
            }
            x
        }
        // Objects in order of first meeting, so that family numbers (and
        // type names) do not depend on hashing.
        let mut order = Vec::new();
        for g in graphs {
            for v in &g.vars {
                let SomeValue::Pbc { descs, .. } = &v.info else {
                    continue;
                };
                let Some(objects) = frozen_objects(descs) else {
                    continue;
                };
                if objects.len() < 2 {
                    continue;
                }
                for &o in &objects {
                    if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(o) {
                        e.insert(o);
                        order.push(o);
                    }
                }
                let first = root(&parent, objects[0]);
                for &o in &objects[1..] {
                    let r = root(&parent, o);
                    if r != first {
                        parent.insert(r, first);
                    }
                }
            }
        }
        let mut families = FrozenFamilies::default();
        let mut number_of_root = HashMap::default();
        for o in order {
            let r = root(&parent, o);
            let next = number_of_root.len();
            let k = *number_of_root.entry(r).or_insert(next);
            families.family_of.insert(o, k);
        }
        families.attrs = vec![BTreeMap::new(); number_of_root.len()];
        for g in graphs {
            for op in g.blocks.iter().flat_map(|b| &b.operations) {
                if op.opname != Opcode::Getattr {
                    continue;
                }
                let (Some(Arg::Var(receiver)), Some(Arg::Const(Constant::Name(name)))) =
                    (op.args.first(), op.args.get(1))
                else {
                    continue;
                };
                let receiver = &g.vars[receiver.0 as usize].info;
                let SomeValue::Pbc { descs, .. } = receiver else {
                    continue;
                };
                let Some(k) = families.family_of_descs(descs) else {
                    continue;
                };
                let read = &g.vars[op.result.0 as usize].info;
                // A method read stays the receiver; it is no field.
                if is_frozen_method(read) {
                    continue;
                }
                families.attrs[k]
                    .entry(name.clone())
                    .or_insert_with(|| read.clone());
            }
        }
        families
    }

    /// The family a value of these descs belongs to, when it may be one
    /// of several frozen objects.
    pub fn family_of_descs(&self, descs: &[Desc]) -> Option<usize> {
        let objects = frozen_objects(descs)?;
        let mut distinct = objects.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() < 2 {
            return None;
        }
        self.family_of.get(&objects[0]).copied()
    }

    /// The family of frozen object `i`, when it meets another.
    pub fn family_of_object(&self, i: u32) -> Option<usize> {
        self.family_of.get(&i).copied()
    }

    /// Every frozen object in a family.
    pub fn members(&self) -> Vec<u32> {
        let mut all: Vec<u32> = self.family_of.keys().copied().collect();
        all.sort_unstable();
        all
    }
}

impl RTyper<'_> {
    /// The pointer type of family `k`'s statics, its struct registered
    /// with a field per attribute read (those of no representation, known
    /// to be one value, are no field).
    pub(super) fn frozen_family_lltype(&mut self, k: usize) -> Result<LowLevelType, String> {
        let name = family_type(k);
        if !self.types.contains_key(&name) {
            // Registered before the fields are typed: a field may point to
            // an object of the same family.
            self.types.insert(
                name.clone(),
                ContainerType::GcStruct {
                    fields: Vec::new(),
                    var_item: None,
                },
            );
            let attrs: Vec<(String, SomeValue)> = self.frozen.attrs[k]
                .iter()
                .map(|(n, a)| (n.clone(), a.clone()))
                .collect();
            let mut fields = Vec::new();
            for (attr, read) in attrs {
                let ty = self
                    .lltype_of(&read)
                    .map_err(|e| format!("attribute '{attr}' of frozen objects: {e}"))?;
                if ty != LowLevelType::Void {
                    fields.push((attr, ty));
                }
            }
            self.types.insert(
                name.clone(),
                ContainerType::GcStruct {
                    fields,
                    var_item: None,
                },
            );
        }
        Ok(LowLevelType::Ptr(name))
    }

    /// The type of the field that holds attribute `attr` of family `k`'s
    /// objects; `None` when it has none (its value is known statically).
    pub(super) fn frozen_field(
        &mut self,
        k: usize,
        attr: &str,
    ) -> Result<Option<LowLevelType>, String> {
        let LowLevelType::Ptr(name) = self.frozen_family_lltype(k)? else {
            return Ok(None);
        };
        Ok(match self.types.get(&name) {
            Some(ContainerType::GcStruct { fields, .. }) => fields
                .iter()
                .find(|(n, _)| n == attr)
                .map(|(_, t)| t.clone()),
            _ => None,
        })
    }

    /// Attribute `attr` of frozen object `i`: its own value, else its
    /// class's.
    pub(super) fn frozen_attribute(&self, i: u32, attr: &str) -> Option<Constant> {
        match self.hl_prebuilt.get(i as usize) {
            Some(PrebuiltObject::Instance { class, attrs }) => attrs
                .iter()
                .find(|(n, _)| n == attr)
                .map(|(_, v)| v.clone())
                .or_else(|| self.classes.class_attr(class, attr).cloned()),
            _ => None,
        }
    }

    /// The static of frozen object `i` of family `k`: its attributes
    /// that the family's struct has fields for.
    pub(super) fn frozen_family_static(
        &mut self,
        i: u32,
        k: usize,
    ) -> Result<PrebuiltObject, String> {
        let LowLevelType::Ptr(ty) = self.frozen_family_lltype(k)? else {
            return Err("a frozen family without a struct".into());
        };
        let fields = match self.types.get(&ty) {
            Some(ContainerType::GcStruct { fields, .. }) => fields.clone(),
            _ => Vec::new(),
        };
        let mut values = Vec::new();
        for (attr, t) in fields {
            let value = self.frozen_attribute(i, &attr).ok_or_else(|| {
                format!("the frozen object &{i} has no attribute '{attr}', which the program reads from it")
            })?;
            values.push((attr, self.field_constant(&value, &t)?));
        }
        Ok(PrebuiltObject::Struct {
            ty,
            fields: values,
            items: Vec::new(),
        })
    }

    /// Makes the static of every frozen object in a family, so that a
    /// value known to be one of them converts to the family's pointer
    /// without a mutable borrow (`GraphTyper::void_value`).
    pub(super) fn make_frozen_statics(&mut self) -> Result<(), String> {
        for i in self.frozen.members() {
            self.static_of(i)?;
        }
        Ok(())
    }
}

impl GraphTyper<'_, '_, '_> {
    /// The static of the one frozen object a value of annotation `a` is,
    /// when other values hold it with others (it has a family).
    pub(super) fn frozen_static(&self, a: &SomeValue) -> Option<Constant> {
        let SomeValue::Pbc { descs, .. } = a else {
            return None;
        };
        let [object] = frozen_objects(descs)?[..] else {
            return None;
        };
        self.rt.frozen.family_of_object(object)?;
        let s = self.rt.static_of_prebuilt.get(&object)?;
        Some(Constant::Prebuilt(*s))
    }

    /// `object.name` of a value that is one of several frozen objects (of
    /// the family of `descs`): a method bound to it is the object; an
    /// attribute is its field, or, where all of them have one value,
    /// that value.
    pub(super) fn frozen_family_getattr(
        &mut self,
        descs: &[Desc],
        name: &str,
        op: &SpaceOperation,
    ) -> Result<(), String> {
        let k = self
            .rt
            .frozen
            .family_of_descs(descs)
            .ok_or("frozen objects of no family")?;
        let object = op.args[0].clone();
        let want = self.graph.info(op.result).clone();
        if is_frozen_method(&self.annotation_ref(&Arg::Var(op.result))) {
            let from = self.type_of(&object);
            self.finish((object, from), Some((op.result, want)))?;
            return Ok(());
        }
        match self.rt.frozen_field(k, name)? {
            Some(ty) => self.emit_into(
                Opcode::Getfield,
                vec![object, Arg::Const(Constant::Name(name.into()))],
                ty,
                op.result,
            ),
            None => {
                let first = frozen_objects(descs)
                    .and_then(|objects| objects.first().copied())
                    .ok_or("no frozen object")?;
                let value = self
                    .rt
                    .frozen_attribute(first, name)
                    .ok_or_else(|| format!("the frozen objects have no attribute '{name}'"))?;
                self.define_constant(value, op.result)
            }
        }
    }
}

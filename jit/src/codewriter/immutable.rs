//! Which fields the JIT may read once: the fields a class declares in
//! `_immutable_fields_` (or all of its fields, with `_immutable_ = True`),
//! by `struct.field` of its instance struct and of every subclass's. A read
//! of one from a constant object is a constant of the trace, as the
//! original's optimizer folds a pure `getfield`. A field written `"f[*]"`
//! holds a list that never changes either: the objects read through it
//! (the list, its items array) are *deep* immutable, and their reads fold
//! too. The program promises this; rpy does not check that the list is
//! never changed (the original's annotator refuses a program that
//! changes it).

use std::collections::{BTreeMap, BTreeSet};

use rpy_ir::graph::{LowLevel, Program};
use rpy_ir::lltype::inst_type;
use rpy_ir::lltype::ContainerType;

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ImmutableFields {
    /// `struct.field`: reads from a constant object fold.
    pub fields: BTreeSet<String>,
    /// `struct.field` whose value's own reads fold as well (`f[*]`).
    pub deep: BTreeSet<String>,
}

impl ImmutableFields {
    pub fn of_program(program: &Program<LowLevel>) -> ImmutableFields {
        let classdefs = &program.facts.classdefs;
        // Each class's subclasses, itself included.
        let mut family: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for c in classdefs {
            let mut at = Some(c.name.as_str());
            while let Some(class) = at {
                family.entry(class).or_default().push(&c.name);
                at = classdefs
                    .iter()
                    .find(|d| d.name == class)
                    .and_then(|d| d.base.as_deref());
            }
        }
        let mut out = ImmutableFields::default();
        for c in classdefs {
            for declared in &c.immutable_fields {
                for member in family.get(c.name.as_str()).into_iter().flatten() {
                    let strukt = inst_type(member);
                    let Some(ContainerType::GcStruct { fields, .. }) = program.types.get(&strukt)
                    else {
                        continue;
                    };
                    for (f, _) in fields {
                        let deep = declared.strip_suffix("[*]");
                        if declared == "*" || declared == f || deep == Some(f.as_str()) {
                            out.fields.insert(format!("{strukt}.{f}"));
                            if deep.is_some() {
                                out.deep.insert(format!("{strukt}.{f}"));
                            }
                        }
                    }
                }
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }
}

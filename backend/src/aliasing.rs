//! Keeping C's strict aliasing rule usable.
//!
//! rpy flattens instance structs: a subclass's struct repeats its bases'
//! fields first instead of holding the base struct as a member, so one
//! object is used through pointers to several unrelated C struct types
//! (`cast_pointer` changes only the view). Under the strict aliasing rule
//! gcc assumes that an access through `struct S_A *` never touches what an
//! access through an unrelated `struct S_B *` does, and reorders them. So
//! GenC reads and writes every field through one struct, whichever view the
//! graph holds: the field's *owner*, the shortest fixed-size struct of the
//! program whose members begin the view's and include the field (among
//! structs with the same members, the one of shortest name, then the
//! first). All views of an
//! object agree on it, because they agree on every member up to the field.
//!
//! What the rule buys is precision between types: a store of a float item
//! no longer forces gcc to reload the list and the length it came from.
//!
//! A view the owners do not cover (a cast between unrelated structs, or
//! one involving an array or a varsized struct) makes the program compile
//! without the rule: [`Views::note_cast`] records it.

use rpy_ir::lltype::{ContainerType, LowLevelType, TypeTable};
use std::sync::atomic::{AtomicBool, Ordering};

/// The members of a fixed-size struct that take space, in order (a Void
/// field has no C member and no offset).
fn fixed_members(t: &ContainerType) -> Option<Vec<(&str, &LowLevelType)>> {
    match t {
        ContainerType::GcStruct {
            fields,
            var_item: None,
        } => Some(
            fields
                .iter()
                .filter(|(_, ft)| *ft != LowLevelType::Void)
                .map(|(f, ft)| (f.as_str(), ft))
                .collect(),
        ),
        _ => None,
    }
}

/// For each fixed-size struct and field whose owner is another struct:
/// that owner's name.
pub fn field_owners(
    table: &TypeTable,
) -> fxhash::FxHashMap<String, fxhash::FxHashMap<String, String>> {
    // A trie of member lists: a node is a prefix, and `named` holds the
    // struct whose whole member list it is (of several, the shortest name,
    // then the first).
    let mut children: fxhash::FxHashMap<(usize, &str, &LowLevelType), usize> =
        fxhash::FxHashMap::default();
    let mut named: Vec<Option<&str>> = vec![None];
    let mut paths: Vec<(&str, Vec<(&str, usize)>)> = Vec::new();
    for (name, t) in table {
        let Some(members) = fixed_members(t) else {
            continue;
        };
        let mut node = 0;
        let mut path = Vec::with_capacity(members.len());
        for (f, ft) in members {
            let fresh = named.len();
            node = *children.entry((node, f, ft)).or_insert(fresh);
            if node == fresh {
                named.push(None);
            }
            path.push((f, node));
        }
        // The shortest name, which is usually the base's (`object`
        // rather than a class with no field of its own).
        let slot = &mut named[node];
        if slot.is_none_or(|n| (n.len(), n) > (name.len(), name.as_str())) {
            *slot = Some(name.as_str());
        }
        paths.push((name, path));
    }
    let mut owners = fxhash::FxHashMap::default();
    for (name, path) in paths {
        let mut mine = fxhash::FxHashMap::default();
        // The fields since the last struct-ending prefix, waiting for the
        // next one, which owns them.
        let mut pending = Vec::new();
        for (f, node) in path {
            pending.push(f);
            if let Some(owner) = named[node] {
                for f in pending.drain(..) {
                    if owner != name {
                        mine.insert(f.to_string(), owner.to_string());
                    }
                }
            }
        }
        if !mine.is_empty() {
            owners.insert(name.to_string(), mine);
        }
    }
    owners
}

/// Whether a pointer to `to` may stand for an object reached as `from`
/// without breaking the rule: the same type, or fixed-size structs one of
/// whose member lists begins the other.
fn is_covered_view(table: &TypeTable, from: &str, to: &str) -> bool {
    if from == to {
        return true;
    }
    let members = |n: &str| table.get(n).and_then(fixed_members);
    match (members(from), members(to)) {
        (Some(a), Some(b)) => {
            let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
            long.starts_with(&short)
        }
        _ => false,
    }
}

/// What the generated functions did with pointer views, recorded while
/// they are generated (on every core).
#[derive(Default)]
pub struct Views {
    uncovered: AtomicBool,
}

impl Views {
    /// Records that an object reached as a `from` is used as a `to`.
    pub fn note_cast(&self, table: &TypeTable, from: &LowLevelType, to: &LowLevelType) {
        let covered = match (from, to) {
            (LowLevelType::Ptr(a), LowLevelType::Ptr(b)) => is_covered_view(table, a, b),
            _ => true,
        };
        if !covered {
            self.uncovered.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the program may be compiled under the strict aliasing rule.
    pub fn allow_strict_aliasing(&self) -> bool {
        !self.uncovered.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(types: &[(&str, &str)]) -> TypeTable {
        types
            .iter()
            .map(|(n, t)| (n.to_string(), rpy_ir::lltype::parse_container(t).unwrap()))
            .collect()
    }

    #[test]
    fn a_field_is_owned_by_the_shortest_struct_that_begins_with_it() {
        let t = table(&[
            ("object", "GcStruct { typeptr: Signed }"),
            ("inst_A", "GcStruct { typeptr: Signed, x: Float }"),
            (
                "inst_B",
                "GcStruct { typeptr: Signed, x: Float, y: Signed }",
            ),
            ("inst_C", "GcStruct { typeptr: Signed, z: Float }"),
        ]);
        let owners = field_owners(&t);
        assert_eq!(owners["inst_B"]["typeptr"], "object");
        assert_eq!(owners["inst_B"]["x"], "inst_A");
        assert!(!owners["inst_B"].contains_key("y"));
        assert_eq!(owners["inst_C"]["typeptr"], "object");
        assert!(!owners["inst_C"].contains_key("z"));
        assert!(!owners.contains_key("object"));
    }

    #[test]
    fn structs_with_the_same_members_share_the_shortest_name() {
        let t = table(&[
            ("inst_Point", "GcStruct { typeptr: Signed, v: Void }"),
            ("inst_Queue", "GcStruct { typeptr: Signed }"),
            ("object", "GcStruct { typeptr: Signed }"),
        ]);
        let owners = field_owners(&t);
        assert_eq!(owners["inst_Point"]["typeptr"], "object");
        assert_eq!(owners["inst_Queue"]["typeptr"], "object");
        assert!(!owners.contains_key("object"));
    }

    #[test]
    fn only_views_between_prefix_structs_keep_the_rule() {
        let t = table(&[
            ("object", "GcStruct { typeptr: Signed }"),
            ("inst_B", "GcStruct { typeptr: Signed, y: Signed }"),
            ("tuple", "GcStruct { item0: Signed, item1: Signed }"),
            ("array_Signed", "GcArray(Signed)"),
        ]);
        let ptr = |n: &str| LowLevelType::Ptr(n.into());
        let views = Views::default();
        views.note_cast(&t, &ptr("inst_B"), &ptr("object"));
        views.note_cast(&t, &ptr("object"), &ptr("inst_B"));
        assert!(views.allow_strict_aliasing());
        views.note_cast(&t, &ptr("tuple"), &ptr("object"));
        assert!(!views.allow_strict_aliasing());
        let views = Views::default();
        views.note_cast(&t, &ptr("array_Signed"), &ptr("array_Signed"));
        assert!(views.allow_strict_aliasing());
        views.note_cast(&t, &ptr("array_Signed"), &ptr("inst_B"));
        assert!(!views.allow_strict_aliasing());
    }
}

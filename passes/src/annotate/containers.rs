//! The annotator's table of list and dict definitions.
//!
//! Every list (and dict) value made at one place of the program shares one
//! definition; the annotations of variables only hold its id. Joining two
//! lists merges their definitions (union-find), so that every alias agrees
//! on the item annotation; generalizing an item schedules every block that
//! read the list, so each reader sees the new item.

use fxhash::FxHashMap;
use rpy_ir::annotation::{DictDef, ListDef, SomeValue};
use rpy_ir::graph::BlockId;
use std::borrow::Cow;
use std::collections::BTreeSet;

/// A block of one graph (a reader to reflow).
pub type Reader = (usize, BlockId);

#[derive(Clone, Debug)]
struct Entry {
    /// The merged-into entry, or itself.
    parent: u32,
    /// For a list: the item; for a dict: the key.
    first: SomeValue,
    /// For a dict: the value.
    second: SomeValue,
    resizable: bool,
    readers: BTreeSet<Reader>,
}

/// Where a definition was made: the same place always gets the same one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Site {
    /// The command-line arguments.
    Argv,
    /// Operation `index` of a block.
    Op(usize, BlockId, usize),
    /// A prebuilt object, by its index in `Program::prebuilt`.
    Prebuilt(u32),
}

#[derive(Clone, Debug, Default)]
pub struct Containers {
    entries: Vec<Entry>,
    by_site: FxHashMap<Site, u32>,
}

impl Containers {
    /// The definition made at `site` (a new one the first time).
    pub fn at_site(&mut self, site: Site) -> u32 {
        if let Some(&id) = self.by_site.get(&site) {
            return self.find(id);
        }
        let id = self.entries.len() as u32;
        self.entries.push(Entry {
            parent: id,
            first: SomeValue::Impossible,
            second: SomeValue::Impossible,
            resizable: false,
            readers: BTreeSet::new(),
        });
        self.by_site.insert(site, id);
        id
    }

    pub fn find(&self, mut id: u32) -> u32 {
        while self.entries[id as usize].parent != id {
            id = self.entries[id as usize].parent;
        }
        id
    }

    fn entry(&mut self, id: u32) -> &mut Entry {
        let root = self.find(id);
        &mut self.entries[root as usize]
    }

    pub fn add_reader(&mut self, id: u32, reader: Reader) {
        self.entry(id).readers.insert(reader);
    }

    /// Marks a list as changing length; returns its readers if that is new.
    pub fn mark_resized(&mut self, id: u32) -> Vec<Reader> {
        let e = self.entry(id);
        if e.resizable {
            return Vec::new();
        }
        e.resizable = true;
        e.readers.iter().copied().collect()
    }

    /// Part `second` of a definition (false: the list item or dict key;
    /// true: the dict value), as the table has it now.
    pub fn part(&self, id: u32, second: bool) -> SomeValue {
        let e = &self.entries[self.find(id) as usize];
        if second { &e.second } else { &e.first }.clone()
    }

    /// Sets part `second` of a definition; returns its readers when that
    /// changed it (they are flowed again).
    pub fn set_part(&mut self, id: u32, second: bool, value: SomeValue) -> Vec<Reader> {
        let e = self.entry(id);
        let slot = if second { &mut e.second } else { &mut e.first };
        if *slot == value {
            return Vec::new();
        }
        *slot = value;
        e.readers.iter().copied().collect()
    }

    /// Makes `gone` an alias of `keep` (both roots), whose parts become
    /// `first` and `second` (the joins of both); returns the readers of both.
    pub fn merge(
        &mut self,
        keep: u32,
        gone: u32,
        first: SomeValue,
        second: SomeValue,
    ) -> Vec<Reader> {
        let g = self.entries[gone as usize].clone();
        self.entries[gone as usize].parent = keep;
        let k = &mut self.entries[keep as usize];
        k.first = first;
        k.second = second;
        k.resizable |= g.resizable;
        k.readers.extend(g.readers);
        k.readers.iter().copied().collect()
    }

    /// `resolve` without the copy when `value` holds no list or dict (most
    /// annotations): then it is already up to date.
    pub fn resolve_cow<'v>(&self, value: &'v SomeValue) -> Cow<'v, SomeValue> {
        if holds_containers(value) {
            Cow::Owned(self.resolve(value))
        } else {
            Cow::Borrowed(value)
        }
    }

    /// `value` with every list and dict inside it brought up to date with the
    /// table (its id the merged one, its items the current ones).
    pub fn resolve(&self, value: &SomeValue) -> SomeValue {
        match value {
            SomeValue::List(def) => {
                let id = self.find(def.id);
                let e = &self.entries[id as usize];
                SomeValue::List(ListDef {
                    id,
                    item: Box::new(self.resolve(&e.first)),
                    resizable: e.resizable,
                    can_be_none: def.can_be_none,
                })
            }
            SomeValue::Dict(def) => {
                let id = self.find(def.id);
                let e = &self.entries[id as usize];
                SomeValue::Dict(DictDef {
                    id,
                    key: Box::new(self.resolve(&e.first)),
                    value: Box::new(self.resolve(&e.second)),
                    can_be_none: def.can_be_none,
                })
            }
            SomeValue::Tuple(items) => {
                SomeValue::Tuple(items.iter().map(|i| self.resolve(i)).collect())
            }
            SomeValue::Iterator(over) => SomeValue::Iterator(Box::new(self.resolve(over))),
            SomeValue::BuiltinMethod { name, receiver } => SomeValue::BuiltinMethod {
                name: name.clone(),
                receiver: Box::new(self.resolve(receiver)),
            },
            other => other.clone(),
        }
    }

    /// Whether definition `target` (a root) is inside `value`, directly or
    /// through the parts of the definitions inside it. A definition must
    /// never hold itself: annotations hold items by value, so a list that
    /// contains itself has no finite annotation (and `resolve` would not end).
    pub fn reaches(&self, value: &SomeValue, target: u32) -> bool {
        let mut pending = Vec::new();
        Self::ids_in(value, &mut pending);
        let mut seen = BTreeSet::new();
        while let Some(id) = pending.pop() {
            let root = self.find(id);
            if root == target {
                return true;
            }
            if seen.insert(root) {
                let e = &self.entries[root as usize];
                Self::ids_in(&e.first, &mut pending);
                Self::ids_in(&e.second, &mut pending);
            }
        }
        false
    }

    /// The ids of the lists and dicts inside `value`.
    pub fn ids_in(value: &SomeValue, out: &mut Vec<u32>) {
        match value {
            SomeValue::List(def) => out.push(def.id),
            SomeValue::Dict(def) => out.push(def.id),
            SomeValue::Tuple(items) => items.iter().for_each(|i| Self::ids_in(i, out)),
            SomeValue::Iterator(over) => Self::ids_in(over, out),
            SomeValue::BuiltinMethod { receiver, .. } => Self::ids_in(receiver, out),
            _ => {}
        }
    }
}

/// Whether a list or dict is inside `value` (what `Containers::resolve`
/// changes).
fn holds_containers(value: &SomeValue) -> bool {
    match value {
        SomeValue::List(_) | SomeValue::Dict(_) => true,
        SomeValue::Tuple(items) => items.iter().any(holds_containers),
        SomeValue::Iterator(over) => holds_containers(over),
        SomeValue::BuiltinMethod { receiver, .. } => holds_containers(receiver),
        _ => false,
    }
}

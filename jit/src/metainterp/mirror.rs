//! The LLInterpreter's objects mirrored in laid-out memory, so that a
//! trace recorded from the interpreter runs where traces run: the
//! reference trace interpreter (and the machine code) read and write
//! objects at `ir`'s layouts, while the LLInterpreter's objects are Rust
//! values. This is the original's `llgraph` backend turned around: its
//! traces ran on the LLInterpreter's objects; here the objects visit the
//! traces' memory.
//!
//! Before a compiled loop runs, every object reachable from its inputs and
//! from what earlier runs mirrored is copied in (`sync_in`); after it
//! leaves, every mirrored object is copied back, and an object the loop
//! allocated becomes a new interpreter object (`sync_out`). An object keeps
//! its address for the whole run, so a trace may name it as a constant
//! (`ConstPtr`). The cost is a walk of the reachable heap per entry: this
//! is the test world of `rpy interp --jit`; a translated program's objects
//! already live at these layouts.

use std::collections::HashMap;
use std::rc::Rc;

use rpy_ir::lltype::{ContainerType, LowLevelType, STR};
use rpy_llinterp::{Items, LlMachine, LlValue, ObjRef};

use crate::interp::{Heap, RunValue};
use crate::optimize::{WordMap, WordSet};
use crate::trace::Header;

/// What an int-bank register or a word in memory holds, to turn the word
/// back into the interpreter's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    Signed,
    Bool,
    Char,
    /// A function pointer: a graph index plus one, 0 for null.
    Func,
    Float,
    Ref,
}

impl Flavor {
    pub fn of_value(v: &LlValue) -> Option<Flavor> {
        Some(match v {
            LlValue::Void => return None,
            LlValue::Signed(_) => Flavor::Signed,
            LlValue::Bool(_) => Flavor::Bool,
            LlValue::Char(_) => Flavor::Char,
            LlValue::Func(_) => Flavor::Func,
            LlValue::Float(_) => Flavor::Float,
            LlValue::Ptr(_) => Flavor::Ref,
        })
    }

    /// The kind of trace box that holds it.
    pub fn kind(self) -> crate::trace::Kind {
        match self {
            Flavor::Float => crate::trace::Kind::Float,
            Flavor::Ref => crate::trace::Kind::Ref,
            _ => crate::trace::Kind::Int,
        }
    }

    pub fn of_type(t: &LowLevelType) -> Option<Flavor> {
        Some(match t {
            LowLevelType::Void => return None,
            LowLevelType::Signed | LowLevelType::Unsigned => Flavor::Signed,
            LowLevelType::Bool => Flavor::Bool,
            LowLevelType::Char => Flavor::Char,
            LowLevelType::FuncPtr(_) => Flavor::Func,
            LowLevelType::Float => Flavor::Float,
            LowLevelType::Ptr(_) => Flavor::Ref,
        })
    }
}

/// Whether objects of the type never change once mirrored, so that no
/// sync copies them again: strings, whose characters are written only
/// while they are built (by one helper, or one trace, before anything else
/// sees them) and whose `hash` field is a cache (0 means "not computed",
/// so a stale copy only costs a recomputation). A sync that walks every
/// mirrored object would otherwise copy every string the program keeps.
fn settled(type_name: &str) -> bool {
    type_name == STR
}

fn identity(obj: &ObjRef) -> usize {
    Rc::as_ptr(obj) as *const u8 as usize
}

/// The heap of mirrored objects and which object is where.
#[derive(Default)]
pub struct Mirror {
    pub heap: Heap,
    pub map: MirrorMap,
}

impl Mirror {
    pub fn address_of(&mut self, header: &Header, obj: &ObjRef) -> Result<usize, String> {
        self.map.address_of(&mut self.heap, header, obj)
    }

    pub fn to_run(&mut self, header: &Header, v: &LlValue) -> Result<RunValue, String> {
        self.map.to_run(&mut self.heap, header, v)
    }

    pub fn to_ll(
        &mut self,
        machine: &LlMachine<'_>,
        header: &Header,
        bits: u64,
        flavor: Flavor,
    ) -> Result<LlValue, String> {
        self.map.to_ll(&self.heap, machine, header, bits, flavor)
    }

    pub fn sync_in(&mut self, header: &Header, roots: &[LlValue]) -> Result<(), String> {
        self.map.sync_in(&mut self.heap, header, roots)
    }

    pub fn sync_out(&mut self, machine: &LlMachine<'_>, header: &Header) -> Result<(), String> {
        self.map.sync_out(&self.heap, machine, header)?;
        self.map.forget_dead();
        Ok(())
    }
}

/// Which interpreter object is at which address of the mirror's heap.
#[derive(Default)]
pub struct MirrorMap {
    /// Interpreter object (by identity) to address.
    addresses: WordMap<usize, usize>,
    /// Address to interpreter object.
    objects: WordMap<usize, ObjRef>,
    /// Every mirrored object, in the order it was mirrored (what `sync_in`
    /// and `sync_out` walk).
    pairs: Vec<(ObjRef, usize)>,
    /// The pairs from here on were mirrored after the last `sync_out`:
    /// among them, the objects a trace allocated that `to_ll` made
    /// between syncs, which no `sync_out` filled yet.
    synced_out: usize,
    /// The indices in `pairs` of each type's objects, so that a sync of
    /// some types does not walk all.
    by_type: HashMap<String, Vec<usize>>,
    /// Objects `address_of` placed (a trace's constant, say) that no sync
    /// in filled yet: the next one does, whatever types it refreshes.
    unfilled: Vec<ObjRef>,
}

impl MirrorMap {
    /// The address of `obj`, allocated (not yet filled) the first time.
    pub fn address_of(
        &mut self,
        heap: &mut Heap,
        header: &Header,
        obj: &ObjRef,
    ) -> Result<usize, String> {
        if let Some(&a) = self.addresses.get(&identity(obj)) {
            return Ok(a);
        }
        let (type_name, n) = {
            let o = obj.borrow();
            (o.type_name.to_string(), o.items.len())
        };
        let ct = header
            .types
            .get(&type_name)
            .ok_or_else(|| format!("no layout for type '{type_name}'"))?;
        let layout = ct.layout();
        let size = match layout.items {
            Some((items_offset, item_size)) => items_offset + n * item_size,
            None => layout.fixed_size,
        };
        let at = heap
            .alloc(size, layout.align)
            .ok_or_else(|| format!("cannot mirror an object of {size} bytes"))?;
        let id = header.program_type_id(&type_name).unwrap_or(0);
        heap.write(at, &LowLevelType::Signed, id)?;
        if let (ContainerType::GcArray { .. }, Some(length)) = (ct, layout.offset_of("length")) {
            heap.write(at + length, &LowLevelType::Signed, n as u64)?;
        }
        self.remember(obj, at, type_name);
        self.unfilled.push(obj.clone());
        Ok(at)
    }

    fn remember(&mut self, obj: &ObjRef, at: usize, type_name: String) {
        self.addresses.insert(identity(obj), at);
        self.objects.insert(at, obj.clone());
        self.by_type
            .entry(type_name)
            .or_default()
            .push(self.pairs.len());
        self.pairs.push((obj.clone(), at));
    }

    /// The indices of the pairs of the types `wanted` admits, below `end`
    /// (never a settled type's: see [`settled`]).
    fn pairs_of(&self, wanted: &dyn Fn(&str) -> bool, end: usize) -> Vec<usize> {
        let mut found = Vec::new();
        for (name, indices) in &self.by_type {
            if !settled(name) && wanted(name) {
                found.extend(indices.iter().copied().take_while(|&i| i < end));
            }
        }
        found
    }

    /// Stops mirroring the objects nothing but the mirror holds (after a
    /// full `sync_out` every object that mirrored memory points to is held
    /// by its referrer's interpreter fields, so these are garbage): the
    /// syncs walk every mirrored object, and a program that makes objects
    /// as it goes would make each sync slower than the last. Their memory
    /// stays allocated, so no address a compiled trace names as a constant
    /// is ever given to another object.
    pub fn forget_dead(&mut self) {
        // One reference in `pairs`, one in `objects`, one per `unfilled`.
        let held_by_mirror = |o: &ObjRef, unfilled: &[ObjRef]| {
            2 + unfilled.iter().filter(|u| Rc::ptr_eq(u, o)).count()
        };
        let before = self.pairs.len();
        let mut kept = Vec::with_capacity(before);
        for (obj, at) in std::mem::take(&mut self.pairs) {
            if Rc::strong_count(&obj) > held_by_mirror(&obj, &self.unfilled) {
                kept.push((obj, at));
            } else {
                self.addresses.remove(&identity(&obj));
                self.objects.remove(&at);
            }
        }
        if kept.len() == before {
            self.pairs = kept;
            return;
        }
        self.by_type.clear();
        for (i, (obj, _)) in kept.iter().enumerate() {
            let type_name = obj.borrow().type_name.to_string();
            self.by_type.entry(type_name).or_default().push(i);
        }
        self.pairs = kept;
        self.synced_out = self.pairs.len();
    }

    /// Whether a sync in that refreshes the types `refresh` admits copies
    /// `obj`: a new one always.
    fn needs_fill(&self, obj: &ObjRef, refresh: &dyn Fn(&str) -> bool) -> bool {
        let type_name = &obj.borrow().type_name;
        !self.addresses.contains_key(&identity(obj)) || (!settled(type_name) && refresh(type_name))
    }

    /// The word a value is in memory.
    pub fn to_run(
        &mut self,
        heap: &mut Heap,
        header: &Header,
        v: &LlValue,
    ) -> Result<RunValue, String> {
        Ok(match v {
            LlValue::Void => RunValue::Int(0),
            LlValue::Signed(n) => RunValue::Int(*n),
            LlValue::Bool(b) => RunValue::Int(*b as i64),
            LlValue::Char(c) => RunValue::Int(*c as i64),
            LlValue::Func(f) => RunValue::Int(f.map_or(0, |g| g as i64 + 1)),
            LlValue::Float(x) => RunValue::Float(*x),
            LlValue::Ptr(None) => RunValue::Ref(0),
            LlValue::Ptr(Some(o)) => RunValue::Ref(self.address_of(heap, header, o)?),
        })
    }

    /// The interpreter's value of a word; an address nothing mirrored is an
    /// object a trace allocated, made an interpreter object here (filled
    /// by the `sync_out` that follows).
    pub fn to_ll(
        &mut self,
        heap: &Heap,
        machine: &LlMachine<'_>,
        header: &Header,
        bits: u64,
        flavor: Flavor,
    ) -> Result<LlValue, String> {
        Ok(match flavor {
            Flavor::Signed => LlValue::Signed(bits as i64),
            Flavor::Bool => LlValue::Bool(bits & 0xff != 0),
            Flavor::Char => LlValue::Char(bits as u8),
            Flavor::Func => LlValue::Func(bits.checked_sub(1).map(|g| g as u32)),
            Flavor::Float => LlValue::Float(f64::from_bits(bits)),
            Flavor::Ref if bits == 0 => LlValue::Ptr(None),
            Flavor::Ref => {
                let at = bits as usize;
                if let Some(o) = self.objects.get(&at) {
                    return Ok(LlValue::Ptr(Some(o.clone())));
                }
                let id = heap.read(at, &LowLevelType::Signed)?;
                let name = header
                    .program_type_name(id)
                    .ok_or_else(|| format!("an object at 0x{at:x} of unknown type id {id}"))?
                    .to_string();
                let layout = header.types[&name].layout();
                let n = match layout.offset_of("length") {
                    Some(l) if layout.items.is_some() => {
                        heap.read(at + l, &LowLevelType::Signed)? as usize
                    }
                    _ => 0,
                };
                let obj = machine
                    .new_object(&name, n)
                    .ok_or_else(|| format!("the interpreter has no type '{name}'"))?;
                self.remember(&obj, at, name);
                LlValue::Ptr(Some(obj))
            }
        })
    }

    /// Copies into memory every object reachable from `roots` and from
    /// every object mirrored before.
    pub fn sync_in(
        &mut self,
        heap: &mut Heap,
        header: &Header,
        roots: &[LlValue],
    ) -> Result<(), String> {
        self.sync_in_types(heap, header, roots, &|_| true)
    }

    /// Copies into memory the mirrored objects whose type `refresh`
    /// admits, `roots`, and every object they reach that was not mirrored
    /// yet (the objects of other types are as the memory has them: what
    /// changed since the last sync was not of their types).
    pub fn sync_in_types(
        &mut self,
        heap: &mut Heap,
        header: &Header,
        roots: &[LlValue],
        refresh: &dyn Fn(&str) -> bool,
    ) -> Result<(), String> {
        let mut work: Vec<ObjRef> = self
            .pairs_of(refresh, self.pairs.len())
            .into_iter()
            .map(|i| self.pairs[i].0.clone())
            .collect();
        work.extend(roots.iter().filter_map(|v| match v {
            LlValue::Ptr(Some(o)) if self.needs_fill(o, refresh) => Some(o.clone()),
            _ => None,
        }));
        work.append(&mut self.unfilled);
        let mut seen = WordSet::default();
        while let Some(obj) = work.pop() {
            if !seen.insert(identity(&obj)) {
                continue;
            }
            let at = self.address_of(heap, header, &obj)?;
            let o = obj.borrow();
            let ct = &header.types[&*o.type_name];
            let layout = ct.layout();
            let mut put =
                |m: &mut MirrorMap, heap: &mut Heap, addr: usize, t: &LowLevelType, v: &LlValue| {
                    if let LlValue::Ptr(Some(child)) = v {
                        if m.needs_fill(child, refresh) {
                            work.push(child.clone());
                        }
                    }
                    if *t == LowLevelType::Void {
                        return Ok(());
                    }
                    let bits = m.to_run(heap, header, v)?.bits();
                    heap.write(addr, t, bits)
                };
            if let ContainerType::GcStruct { fields, .. } = ct {
                for ((name, t), v) in fields.iter().zip(&o.fields) {
                    let off = layout.offset_of(name).unwrap_or(0);
                    put(self, heap, at + off, t, v)?;
                }
            }
            let item = match ct {
                ContainerType::GcArray { item } => Some(item),
                ContainerType::GcStruct { var_item, .. } => var_item.as_ref(),
            };
            if let (Some(item), Some((items_offset, item_size))) = (item, layout.items) {
                match &o.items {
                    Items::None => {}
                    Items::Bytes(bytes) => {
                        for (k, b) in bytes.iter().enumerate() {
                            heap.write(at + items_offset + k * item_size, item, *b as u64)?;
                        }
                    }
                    Items::Values(values) => {
                        for (k, v) in values.iter().enumerate() {
                            put(self, heap, at + items_offset + k * item_size, item, v)?;
                        }
                    }
                }
            }
        }
        // Every object placed meanwhile was met as a child and filled.
        self.unfilled.clear();
        Ok(())
    }

    /// Copies every mirrored object (and every object a trace allocated
    /// that one of them reaches) back into the interpreter's.
    pub fn sync_out(
        &mut self,
        heap: &Heap,
        machine: &LlMachine<'_>,
        header: &Header,
    ) -> Result<(), String> {
        self.sync_out_types(heap, machine, header, &|_| true)
    }

    /// Copies back the mirrored objects whose type `wanted` admits, and
    /// every object a trace allocated that they reach (or that `to_ll`
    /// met before).
    pub fn sync_out_types(
        &mut self,
        heap: &Heap,
        machine: &LlMachine<'_>,
        header: &Header,
        wanted: &dyn Fn(&str) -> bool,
    ) -> Result<(), String> {
        let mut order = self.pairs_of(wanted, self.synced_out);
        order.reverse();
        let mut next_new = self.synced_out;
        loop {
            // `to_ll` appends the objects a trace allocated as it meets
            // them: those are copied back whatever their type.
            let done = match order.pop() {
                Some(i) => i,
                None if next_new < self.pairs.len() => {
                    next_new += 1;
                    next_new - 1
                }
                None => break,
            };
            let (obj, at) = self.pairs[done].clone();
            let type_name = obj.borrow().type_name.to_string();
            let ct = header.types[&type_name].clone();
            let layout = ct.layout();
            if let ContainerType::GcStruct { fields, .. } = &ct {
                for (k, (name, t)) in fields.iter().enumerate() {
                    let Some(flavor) = Flavor::of_type(t) else {
                        continue;
                    };
                    let off = layout.offset_of(name).unwrap_or(0);
                    let bits = heap.read(at + off, t)?;
                    let v = self.to_ll(heap, machine, header, bits, flavor)?;
                    obj.borrow_mut().fields[k] = v;
                }
            }
            let item = match &ct {
                ContainerType::GcArray { item } => Some(item.clone()),
                ContainerType::GcStruct { var_item, .. } => var_item.clone(),
            };
            let (Some(item), Some((items_offset, item_size))) = (item, layout.items) else {
                continue;
            };
            let n = obj.borrow().items.len();
            for k in 0..n {
                let bits = heap.read(at + items_offset + k * item_size, &item)?;
                let is_bytes = matches!(obj.borrow().items, Items::Bytes(_));
                if is_bytes {
                    if let Items::Bytes(b) = &mut obj.borrow_mut().items {
                        b[k] = bits as u8;
                    }
                    continue;
                }
                let Some(flavor) = Flavor::of_type(&item) else {
                    continue;
                };
                let v = self.to_ll(heap, machine, header, bits, flavor)?;
                if let Items::Values(vs) = &mut obj.borrow_mut().items {
                    vs[k] = v;
                }
            }
        }
        self.synced_out = self.pairs.len();
        Ok(())
    }
}

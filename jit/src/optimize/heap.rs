//! `heap`: caching of memory reads, removal of redundant stores, and
//! delayed stores (PyPy's lazy setfields). After `getfield_gc(p, f)` or
//! `setfield_gc(p, v, f)` the optimizer knows what field `f` of `p` holds,
//! until something may change it: a store to the same field of another
//! object that may be `p`, a raw store (which may point anywhere), a call
//! that is not pure, or a `label`. A read of a known field is replaced by
//! its value; a store of the value the field already holds is removed.
//! Array items are cached the same way, at constant or variable indices,
//! and array lengths (which never change). Only word-sized fields and items
//! are recorded on a store (a one-byte store truncates its value).
//!
//! Two objects may be one unless the facts say otherwise
//! ([`Shared::never_alias`]: different known classes, one null), two arrays
//! unless their lengths differ, two items of one array unless their indices
//! do: a store through one leaves what is known of the others.
//!
//! A word store to a field is not emitted at once: it waits (one per
//! field offset) until something could see memory: a read of that field
//! through an object that may be the same, a guard (a failing run must see
//! the store), a call, a raw store, the end of the trace. A second store to
//! the same field of the same object before then replaces it, so the first
//! never happens. With `earlyforce` before it, the stored value may be a
//! virtual object: it stays virtual while the store waits (read back, it
//! is the virtual), is allocated only when the store is emitted, and a
//! guard meanwhile gets the store in its resume data (a `pending` store,
//! done with the object built when the guard fails), as PyPy's heap does.
//!
//! Fields are keyed by their struct and offset ([`FieldKey`]), not their
//! descr, since two descrs may name the same field (`field value =
//! node.value` and `node.value`); a store to a field of one struct leaves
//! the fields of other structs known (objects are well typed).
//!
//! A fresh allocation (`new`, `new_with_vtable`, `new_array` of a small
//! constant length) is zeroed memory: its fields and items are known to be
//! 0 (null, 0.0) from the start. An access to item `i` of an array proves
//! `0 <= i < length`: the length's least value and the index's greatest
//! follow, and `i < length` folds (`pure` asks [`Shared::in_bounds`]).

use rpy_ir::lltype::{ContainerType, LowLevelType};

use crate::trace::{
    DescrData, DescrId, Kind, Op, Opcode, PendingStore, Resume, ResumeValue, Value,
};

use super::virtualize::{describe_virtuals, force_value, virtual_of, Virtuals};
use super::{FieldKey, IntBound, Next, Optimization, ReadPlace, RememberedRead, Shared, WordMap};

/// The `heap` optimization.
#[derive(Clone, Default)]
pub struct OptHeap {
    /// `virtualize`'s objects, when `earlyforce` leaves virtuals stored
    /// into fields to this pass: such a store is delayed like any other,
    /// the virtual forced only when the store is emitted; a guard meanwhile
    /// gets the store in its resume data.
    virtuals: Option<Virtuals>,
    /// field -> object -> value
    fields: WordMap<FieldKey, WordMap<Value, Value>>,
    /// field -> the word store to that field not emitted yet
    lazy_stores: WordMap<FieldKey, Op>,
    /// (array descr, constant index) -> the word store to that item not
    /// emitted yet
    lazy_items: WordMap<(DescrId, i64), Op>,
    /// array descr -> (array, index) -> value; the index a constant or a box
    items: WordMap<DescrId, WordMap<(Value, Value), Value>>,
    /// array -> length (lengths never change)
    lengths: WordMap<Value, Value>,
    /// array -> the indices of the items accessed, each below the length
    /// (for its `arraylen_gc`, which may come later)
    accessed_indices: WordMap<Value, Vec<Value>>,
}

/// The longest fresh array whose items are recorded as zero.
const MAX_ZEROED_ITEMS: i64 = 64;

/// The value a zeroed field or item of type `ty` reads as.
fn zero_of(ty: &LowLevelType) -> Value {
    match Kind::of_lltype(ty) {
        Kind::Float => Value::float(0.0),
        Kind::Ref => Value::NullPtr,
        _ => Value::Int(0),
    }
}

impl OptHeap {
    /// A heap that delays stores of `virtualize`'s virtual objects too.
    pub(crate) fn delaying_virtual_stores(virtuals: Virtuals) -> OptHeap {
        OptHeap {
            virtuals: Some(virtuals),
            ..OptHeap::default()
        }
    }

    /// Emits a delayed store, forcing its value first if it is virtual.
    fn emit_store(&self, op: Op, sh: &mut Shared, next: &mut Next) {
        if let Some(virtuals) = &self.virtuals {
            force_value(virtuals, op.args[1], sh, next);
        }
        next.emit(op, sh);
    }

    /// Whether the delayed store `op` stores a virtual object.
    fn stores_virtual(&self, op: &Op, sh: &Shared) -> bool {
        self.virtuals
            .as_ref()
            .is_some_and(|v| virtual_of(v, sh, op.args[1]).is_some())
    }

    /// Before guard `op`: the delayed stores of plain values happen; those
    /// of virtual objects stay delayed, and the guard's resume data does
    /// them (with the objects) if it fails.
    fn before_guard(&mut self, op: &mut Op, sh: &mut Shared, next: &mut Next) {
        if self.virtuals.is_none() || op.fail_args.is_none() {
            return self.emit_lazy_stores(sh, next);
        }
        let (kept, emitted): (Vec<_>, Vec<_>) = self
            .take_lazy_stores()
            .into_iter()
            .partition(|(_, st)| self.stores_virtual(st, sh));
        for (_, st) in emitted {
            self.emit_store(st, sh, next);
        }
        if kept.is_empty() {
            return;
        }
        if let (Some(virtuals), Some(fail_args)) = (&self.virtuals, op.fail_args.as_mut()) {
            let n = fail_args.len();
            let mut resume = op.resume.take().map_or_else(
                || Resume {
                    values: (0..n).map(ResumeValue::Saved).collect(),
                    objects: Vec::new(),
                    pending: Vec::new(),
                },
                |r| *r,
            );
            for (_, st) in &kept {
                fail_args.extend([st.args[0], st.args[1]]);
                let at = fail_args.len();
                resume.pending.push(PendingStore {
                    target: ResumeValue::Saved(at - 2),
                    descr: st.descr.unwrap_or(0),
                    value: ResumeValue::Saved(at - 1),
                });
            }
            op.resume = Some(Box::new(resume));
            // the stored virtuals become objects of the resume data
            describe_virtuals(virtuals, op, sh);
        }
        self.lazy_stores.extend(kept);
    }

    fn clear(&mut self) {
        self.fields.clear();
        self.items.clear();
    }

    /// Records that every field of the fresh struct or instance `obj` of
    /// `strukt` is zero.
    fn fresh_struct(&mut self, obj: Value, strukt: &str, sh: &Shared) {
        let Some(ct) = sh.trace.header.types.get(strukt) else {
            return;
        };
        let ContainerType::GcStruct { fields, .. } = ct else {
            return;
        };
        let layout = ct.layout();
        let Some(strukt) = sh.trace.header.descr(strukt) else {
            return;
        };
        for (name, ty) in fields {
            if let Some(offset) = layout.offset_of(name) {
                self.fields
                    .entry(FieldKey { strukt, offset })
                    .or_default()
                    .insert(obj, zero_of(ty));
            }
        }
    }

    /// Takes the delayed stores out, in field order (so that the output
    /// does not depend on hashing).
    fn take_lazy_stores(&mut self) -> Vec<(FieldKey, Op)> {
        if self.lazy_stores.is_empty() {
            return Vec::new();
        }
        let mut stores: Vec<(FieldKey, Op)> = self.lazy_stores.drain().collect();
        stores.sort_by_key(|(field, _)| *field);
        stores
    }

    /// Emits every delayed store.
    fn emit_lazy_stores(&mut self, sh: &mut Shared, next: &mut Next) {
        for (_, op) in self.take_lazy_stores() {
            self.emit_store(op, sh, next);
        }
        self.emit_lazy_items(sh, next);
    }

    /// Emits every delayed item store, in (descr, index) order.
    fn emit_lazy_items(&mut self, sh: &mut Shared, next: &mut Next) {
        if self.lazy_items.is_empty() {
            return;
        }
        let mut stores: Vec<((DescrId, i64), Op)> = self.lazy_items.drain().collect();
        stores.sort_by_key(|(at, _)| *at);
        for (_, op) in stores {
            next.emit(op, sh);
        }
    }

    /// Emits the delayed item stores an access to item `index` of `array`
    /// (of array descr `d`) could meet.
    fn emit_lazy_items_met_by(
        &mut self,
        d: DescrId,
        array: Value,
        index: Value,
        sh: &mut Shared,
        next: &mut Next,
    ) {
        let mut met: Vec<(DescrId, i64)> = self
            .lazy_items
            .iter()
            .filter(|((e, j), st)| {
                *e == d
                    && !sh.never_same_array(&self.lengths, sh.resolve(st.args[0]), array)
                    && !sh.never_equal(Value::Int(*j), index)
            })
            .map(|(at, _)| *at)
            .collect();
        met.sort();
        for at in met {
            if let Some(op) = self.lazy_items.remove(&at) {
                next.emit(op, sh);
            }
        }
    }

    /// Whether `a` and `b` are certainly different objects: the pointer
    /// facts say so, or a field of both holds values known to differ
    /// (`p.value == 1` and `q.value == 2`: PyPy's aliasing by content).
    fn never_same_object(&self, a: Value, b: Value, sh: &Shared) -> bool {
        if sh.never_alias(a, b) {
            return true;
        }
        a != b
            && self.fields.values().any(|m| {
                matches!((m.get(&a), m.get(&b)),
                    (Some(x), Some(y)) if sh.kind(*x) == Kind::Int && sh.never_equal(*x, *y))
            })
    }

    /// Emits the delayed stores a read of `size` bytes of `field` through
    /// `p` could see.
    fn emit_lazy_stores_seen_by(
        &mut self,
        p: Value,
        field: FieldKey,
        size: usize,
        sh: &mut Shared,
        next: &mut Next,
    ) {
        let seen: Vec<FieldKey> = self
            .lazy_stores
            .iter()
            .filter(|(o, st)| {
                o.overlaps(8, field, size) && !self.never_same_object(sh.resolve(st.args[0]), p, sh)
            })
            .map(|(o, _)| *o)
            .collect();
        for o in seen {
            if let Some(op) = self.lazy_stores.remove(&o) {
                self.emit_store(op, sh, next);
            }
        }
    }

    /// Forgets the fields a store of `size` bytes into `field` through `p`
    /// may change: those of every object that may be `p`.
    fn invalidate_fields(&mut self, p: Value, field: FieldKey, size: usize, sh: &Shared) {
        let mut changed: Vec<(FieldKey, Value)> = Vec::new();
        for (o, m) in self.fields.iter() {
            if o.overlaps(8, field, size) {
                changed.extend(
                    m.keys()
                        .filter(|q| !self.never_same_object(**q, p, sh))
                        .map(|q| (*o, *q)),
                );
            }
        }
        for (o, q) in changed {
            if let Some(m) = self.fields.get_mut(&o) {
                m.remove(&q);
            }
        }
    }

    /// An access to item `index` of `array` happened: the index is in
    /// bounds, now and once the length is read.
    fn learn_index_in_bounds(&mut self, array: Value, index: Value, sh: &mut Shared) {
        let indices = self.accessed_indices.entry(array).or_default();
        if !indices.contains(&index) {
            indices.push(index);
        }
        if let Some(len) = self.lengths.get(&array) {
            index_below_length(index, *len, sh);
        }
    }
}

/// `index` is an index of an item of an array of length `len`: the length
/// is above its least value, it is below the length's greatest, and
/// `index < len` (unsigned too) is known ([`Shared::learn_in_bounds`]).
fn index_below_length(index: Value, len: Value, sh: &mut Shared) {
    let least = sh.bound(index).lo.saturating_add(1);
    if least > 0 {
        sh.narrow(len, IntBound::range(least, i64::MAX));
    }
    let most = sh.bound(len).hi.saturating_sub(1);
    sh.narrow(index, IntBound::range(i64::MIN, most));
    sh.learn_in_bounds(index, len);
}

impl FieldKey {
    /// Whether `size` bytes of this field and `other_size` bytes of `other`
    /// meet.
    fn overlaps(self, size: usize, other: FieldKey, other_size: usize) -> bool {
        self.strukt == other.strukt
            && self.offset < other.offset + other_size
            && other.offset < self.offset + size
    }
}

/// The field a field operation accesses, and how many bytes.
fn field_of(op: &Op, sh: &Shared) -> (FieldKey, usize) {
    let header = &sh.trace.header;
    match op.descr.map(|d| &header.descrs[d].data) {
        Some(DescrData::Field {
            strukt, offset, ty, ..
        }) => (
            FieldKey {
                strukt: header.descr(strukt).unwrap_or(usize::MAX),
                offset: *offset,
            },
            ty.size_align().0,
        ),
        _ => (
            FieldKey {
                strukt: usize::MAX,
                offset: 0,
            },
            8,
        ),
    }
}

impl Optimization for OptHeap {
    fn name(&self) -> &'static str {
        "heap"
    }

    fn fork(&self, copies: &mut super::Forks) -> Box<dyn Optimization> {
        Box::new(OptHeap {
            virtuals: self.virtuals.as_ref().map(|v| copies.virtuals(v)),
            ..self.clone()
        })
    }

    fn remembered_reads(&self) -> Vec<RememberedRead> {
        let fields = self.fields.iter().flat_map(|(field, m)| {
            m.iter().map(|(o, v)| RememberedRead {
                object: *o,
                place: ReadPlace::Field(*field),
                value: *v,
            })
        });
        // only items at constant indices are carried into a loop
        let items = self.items.iter().flat_map(|(d, m)| {
            m.iter().filter_map(|((o, i), v)| match i {
                Value::Int(i) => Some(RememberedRead {
                    object: *o,
                    place: ReadPlace::Item(*d, *i),
                    value: *v,
                }),
                _ => None,
            })
        });
        fields.chain(items).collect()
    }

    fn retain_reads(&mut self, keep: &dyn Fn(&RememberedRead) -> bool) {
        for (field, m) in self.fields.iter_mut() {
            m.retain(|o, v| {
                keep(&RememberedRead {
                    object: *o,
                    place: ReadPlace::Field(*field),
                    value: *v,
                })
            });
        }
        for (d, m) in self.items.iter_mut() {
            m.retain(|(o, i), v| match i {
                Value::Int(i) => keep(&RememberedRead {
                    object: *o,
                    place: ReadPlace::Item(*d, *i),
                    value: *v,
                }),
                _ => false,
            });
        }
    }

    fn replace_read(&mut self, r: &RememberedRead) {
        match r.place {
            ReadPlace::Field(field) => {
                self.fields
                    .entry(field)
                    .or_default()
                    .insert(r.object, r.value);
            }
            ReadPlace::Item(d, i) => {
                self.items
                    .entry(d)
                    .or_default()
                    .insert((r.object, Value::Int(i)), r.value);
            }
        }
    }

    fn flush(&mut self, sh: &mut Shared, next: &mut Next) {
        self.emit_lazy_stores(sh, next);
    }

    fn propagate(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let name = op.opcode;
        // the descr, borrowed from a handle on the header (not copied:
        // `sh` is written below)
        let header = op.descr.map(|_| std::sync::Arc::clone(&sh.trace.header));
        let descr = header
            .as_ref()
            .zip(op.descr)
            .map(|(h, d)| &h.descrs[d].data);
        match (name, descr) {
            (
                Opcode::GetfieldGcI | Opcode::GetfieldGcF | Opcode::GetfieldGcR,
                Some(DescrData::Field { .. }),
            ) => {
                let p = sh.resolve(op.args[0]);
                let Some(r) = op.result else { return };
                let (field, size) = field_of(&op, sh);
                if let Some(v) = self.fields.get(&field).and_then(|m| m.get(&p)) {
                    sh.make_equal(r, *v);
                    return;
                }
                self.emit_lazy_stores_seen_by(p, field, size, sh, next);
                self.fields
                    .entry(field)
                    .or_default()
                    .insert(p, Value::Box(r));
                next.emit(op, sh);
            }
            (Opcode::SetfieldGc, Some(DescrData::Field { .. })) => {
                let p = sh.resolve(op.args[0]);
                let v = sh.resolve(op.args[1]);
                let (field, size) = field_of(&op, sh);
                // the value known in the field may have become a constant
                // since (a guard_value on it): compare what both stand for
                let held = self.fields.get(&field).and_then(|m| m.get(&p));
                if size == 8 && held.map(|h| sh.resolve(*h)) == Some(v) {
                    return; // the field holds it already
                }
                self.invalidate_fields(p, field, size, sh);
                if size != 8 {
                    // a narrow store truncates: not recorded, not delayed
                    // (it would overlap the word stores around it)
                    self.emit_lazy_stores_seen_by(p, field, size, sh, next);
                    return next.emit(op, sh);
                }
                self.fields.entry(field).or_default().insert(p, v);
                match self.lazy_stores.get(&field) {
                    // the same field of the same object: this store replaces it
                    Some(st) if sh.resolve(st.args[0]) == p => {}
                    Some(_) => {
                        // another object's: it happens first
                        if let Some(earlier) = self.lazy_stores.remove(&field) {
                            self.emit_store(earlier, sh, next);
                        }
                    }
                    None => {}
                }
                self.lazy_stores.insert(field, op);
            }
            (
                Opcode::GetarrayitemGcI | Opcode::GetarrayitemGcF | Opcode::GetarrayitemGcR,
                Some(DescrData::Array { .. }),
            ) => {
                let p = sh.resolve(op.args[0]);
                let i = sh.resolve(op.args[1]);
                let (Some(r), Some(d)) = (op.result, op.descr) else {
                    return next.emit(op, sh);
                };
                if let Some(v) = self.items.get(&d).and_then(|m| m.get(&(p, i))) {
                    sh.make_equal(r, *v);
                    return;
                }
                self.emit_lazy_items_met_by(d, p, i, sh, next);
                self.items
                    .entry(d)
                    .or_default()
                    .insert((p, i), Value::Box(r));
                next.emit(op, sh);
                self.learn_index_in_bounds(p, i, sh);
            }
            (Opcode::SetarrayitemGc, Some(DescrData::Array { item_size, .. })) => {
                let p = sh.resolve(op.args[0]);
                let i = sh.resolve(op.args[1]);
                let v = sh.resolve(op.args[2]);
                let d = op.descr.unwrap_or(0);
                let held = self.items.get(&d).and_then(|m| m.get(&(p, i)));
                if *item_size == 8 && held.map(|h| sh.resolve(*h)) == Some(v) {
                    return;
                }
                let mut m = self.items.remove(&d).unwrap_or_default();
                // the item of any array that may be p, at any index that
                // may be i, may change
                m.retain(|(q, j), _| {
                    sh.never_same_array(&self.lengths, *q, p) || sh.never_equal(*j, i)
                });
                if *item_size == 8 {
                    m.insert((p, i), v);
                }
                self.items.insert(d, m);
                self.learn_index_in_bounds(p, i, sh);
                match i {
                    // a word store at a constant index waits, as a field's
                    Value::Int(c) if *item_size == 8 => {
                        match self.lazy_items.get(&(d, c)) {
                            // the same item of the same array: replaced
                            Some(st) if sh.resolve(st.args[0]) == p => {}
                            Some(_) => {
                                if let Some(earlier) = self.lazy_items.remove(&(d, c)) {
                                    next.emit(earlier, sh);
                                }
                            }
                            None => {}
                        }
                        self.lazy_items.insert((d, c), op);
                    }
                    _ => {
                        self.emit_lazy_items_met_by(d, p, i, sh, next);
                        next.emit(op, sh);
                    }
                }
            }
            (Opcode::ArraylenGc, _) => {
                let p = sh.resolve(op.args[0]);
                let Some(r) = op.result else { return };
                if let Some(v) = self.lengths.get(&p) {
                    sh.make_equal(r, *v);
                    return;
                }
                self.lengths.insert(p, Value::Box(r));
                next.emit(op, sh);
                for i in self.accessed_indices.get(&p).into_iter().flatten() {
                    index_below_length(*i, Value::Box(r), sh);
                }
            }
            (Opcode::NewArray | Opcode::NewArrayClear, Some(DescrData::Array { item, .. })) => {
                if let (Some(r), Some(d)) = (op.result, op.descr) {
                    let len = sh.resolve(op.args[0]);
                    self.lengths.insert(Value::Box(r), len);
                    if let Value::Int(n) = len {
                        if (0..=MAX_ZEROED_ITEMS).contains(&n) {
                            let m = self.items.entry(d).or_default();
                            for i in 0..n {
                                m.insert((Value::Box(r), Value::Int(i)), zero_of(item));
                            }
                        }
                    }
                }
                next.emit(op, sh);
            }
            (
                Opcode::New | Opcode::NewWithVtable,
                Some(DescrData::Size { strukt, .. } | DescrData::Class { strukt, .. }),
            ) => {
                if let Some(r) = op.result {
                    self.fresh_struct(Value::Box(r), strukt, sh);
                }
                next.emit(op, sh);
            }
            (Opcode::Label, _) => {
                self.emit_lazy_stores(sh, next);
                self.clear();
                self.lengths.clear();
                self.accessed_indices.clear();
                next.emit(op, sh);
            }
            _ => {
                let info = op.info();
                let writes = super::writes_unknown_memory(name);
                let effect = !info.pure && !info.removable && !name.is_overflow_checked();
                // memory must be as the trace says it is wherever a run may
                // leave or look at it (a failing guard: its resume data may
                // do the stores of virtuals)
                let mut op = op;
                if info.guard {
                    self.emit_lazy_items(sh, next);
                    self.before_guard(&mut op, sh, next);
                } else if writes || effect || name.is_load() && name.is_raw() {
                    self.emit_lazy_stores(sh, next);
                } else if crate::trace::array_equivalent(name).is_some() {
                    // a string operation reads an array
                    self.emit_lazy_items(sh, next);
                }
                if writes
                    || (effect && !info.guard && name != Opcode::Jump && name != Opcode::Finish)
                {
                    self.clear();
                }
                next.emit(op, sh);
            }
        }
    }
}

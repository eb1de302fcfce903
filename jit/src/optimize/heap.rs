//! `heap`: caching of memory reads and removal of redundant stores. After
//! `getfield_gc(p, f)` or `setfield_gc(p, v, f)` the optimizer knows what
//! field `f` of `p` holds, until something may change it: a store to the
//! same field of another object (which may be `p`), a raw store (which may
//! point anywhere), a call that is not pure, or a `label`. A read of a known
//! field is replaced by its value; a store of the value the field already
//! holds is removed. Array items at constant indices and array lengths are
//! cached the same way. Only word-sized fields and items are recorded on a
//! store (a one-byte store truncates its value).
//!
//! Fields are keyed by their offset, not their descr, since two descrs may
//! name the same field (`field value = node.value` and `node.value`).
//!
//! A fresh allocation (`new`, `new_with_vtable`, `new_array` of a small
//! constant length) is zeroed memory: its fields and items are known to be
//! 0 (null, 0.0) from the start.

use rpy_ir::lltype::{ContainerType, LowLevelType};

use crate::trace::{DescrData, DescrId, Kind, Op, Value};

use super::{Next, Optimization, ReadPlace, RememberedRead, Shared, WordMap};

/// The `heap` optimization.
#[derive(Clone, Default)]
pub struct OptHeap {
    /// offset -> object -> value
    fields: WordMap<usize, WordMap<Value, Value>>,
    /// array descr -> (array, index) -> value
    items: WordMap<DescrId, WordMap<(Value, i64), Value>>,
    /// array -> length (lengths never change)
    lengths: WordMap<Value, Value>,
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
        for (name, ty) in fields {
            if let Some(offset) = layout.offset_of(name) {
                self.fields
                    .entry(offset)
                    .or_default()
                    .insert(obj, zero_of(ty));
            }
        }
    }
}

impl Optimization for OptHeap {
    fn name(&self) -> &'static str {
        "heap"
    }

    fn fork(&self, _: &mut super::Forks) -> Box<dyn Optimization> {
        Box::new(self.clone())
    }

    fn remembered_reads(&self) -> Vec<RememberedRead> {
        let fields = self.fields.iter().flat_map(|(offset, m)| {
            m.iter().map(|(o, v)| RememberedRead {
                object: *o,
                place: ReadPlace::Field(*offset),
                value: *v,
            })
        });
        let items = self.items.iter().flat_map(|(d, m)| {
            m.iter().map(|((o, i), v)| RememberedRead {
                object: *o,
                place: ReadPlace::Item(*d, *i),
                value: *v,
            })
        });
        fields.chain(items).collect()
    }

    fn retain_reads(&mut self, keep: &dyn Fn(&RememberedRead) -> bool) {
        for (offset, m) in self.fields.iter_mut() {
            m.retain(|o, v| {
                keep(&RememberedRead {
                    object: *o,
                    place: ReadPlace::Field(*offset),
                    value: *v,
                })
            });
        }
        for (d, m) in self.items.iter_mut() {
            m.retain(|(o, i), v| {
                keep(&RememberedRead {
                    object: *o,
                    place: ReadPlace::Item(*d, *i),
                    value: *v,
                })
            });
        }
    }

    fn replace_read(&mut self, r: &RememberedRead) {
        match r.place {
            ReadPlace::Field(offset) => {
                self.fields
                    .entry(offset)
                    .or_default()
                    .insert(r.object, r.value);
            }
            ReadPlace::Item(d, i) => {
                self.items
                    .entry(d)
                    .or_default()
                    .insert((r.object, i), r.value);
            }
        }
    }

    fn propagate(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let name = op.name();
        let descr = op.descr.map(|d| sh.trace.header.descrs[d].data.clone());
        match (name, descr) {
            (
                "getfield_gc_i" | "getfield_gc_f" | "getfield_gc_r",
                Some(DescrData::Field { offset, .. }),
            ) => {
                let p = sh.resolve(op.args[0]);
                let Some(r) = op.result else { return };
                if let Some(v) = self.fields.get(&offset).and_then(|m| m.get(&p)) {
                    sh.make_equal(r, *v);
                    return;
                }
                self.fields
                    .entry(offset)
                    .or_default()
                    .insert(p, Value::Box(r));
                next.emit(op, sh);
            }
            ("setfield_gc", Some(DescrData::Field { offset, ty, .. })) => {
                let p = sh.resolve(op.args[0]);
                let v = sh.resolve(op.args[1]);
                let size = ty.size_align().0;
                if size == 8 && self.fields.get(&offset).and_then(|m| m.get(&p)) == Some(&v) {
                    return; // the field holds it already
                }
                // any field overlapping the stored bytes, of any object
                self.fields
                    .retain(|o, _| *o + 8 <= offset || offset + size <= *o);
                if size == 8 {
                    self.fields.entry(offset).or_default().insert(p, v);
                }
                next.emit(op, sh);
            }
            (
                "getarrayitem_gc_i" | "getarrayitem_gc_f" | "getarrayitem_gc_r",
                Some(DescrData::Array { .. }),
            ) => {
                let p = sh.resolve(op.args[0]);
                let (Value::Int(i), Some(r), Some(d)) =
                    (sh.resolve(op.args[1]), op.result, op.descr)
                else {
                    next.emit(op, sh);
                    return;
                };
                if let Some(v) = self.items.get(&d).and_then(|m| m.get(&(p, i))) {
                    sh.make_equal(r, *v);
                    return;
                }
                self.items
                    .entry(d)
                    .or_default()
                    .insert((p, i), Value::Box(r));
                next.emit(op, sh);
            }
            ("setarrayitem_gc", Some(DescrData::Array { item_size, .. })) => {
                let p = sh.resolve(op.args[0]);
                let v = sh.resolve(op.args[2]);
                let d = op.descr.unwrap_or(0);
                match sh.resolve(op.args[1]) {
                    Value::Int(i) => {
                        if item_size == 8
                            && self.items.get(&d).and_then(|m| m.get(&(p, i))) == Some(&v)
                        {
                            return;
                        }
                        let m = self.items.entry(d).or_default();
                        // item i of any array may be p's; no other index changes
                        m.retain(|(_, j), _| *j != i);
                        if item_size == 8 {
                            m.insert((p, i), v);
                        }
                    }
                    _ => {
                        self.items.remove(&d);
                    }
                }
                next.emit(op, sh);
            }
            ("arraylen_gc", _) => {
                let p = sh.resolve(op.args[0]);
                let Some(r) = op.result else { return };
                if let Some(v) = self.lengths.get(&p) {
                    sh.make_equal(r, *v);
                    return;
                }
                self.lengths.insert(p, Value::Box(r));
                next.emit(op, sh);
            }
            ("new_array" | "new_array_clear", Some(DescrData::Array { item, .. })) => {
                if let (Some(r), Some(d)) = (op.result, op.descr) {
                    let len = sh.resolve(op.args[0]);
                    self.lengths.insert(Value::Box(r), len);
                    if let Value::Int(n) = len {
                        if (0..=MAX_ZEROED_ITEMS).contains(&n) {
                            let m = self.items.entry(d).or_default();
                            for i in 0..n {
                                m.insert((Value::Box(r), i), zero_of(&item));
                            }
                        }
                    }
                }
                next.emit(op, sh);
            }
            (
                "new" | "new_with_vtable",
                Some(DescrData::Size { strukt, .. } | DescrData::Class { strukt, .. }),
            ) => {
                if let Some(r) = op.result {
                    self.fresh_struct(Value::Box(r), &strukt, sh);
                }
                next.emit(op, sh);
            }
            ("label", _) => {
                self.clear();
                self.lengths.clear();
                next.emit(op, sh);
            }
            _ => {
                let info = op.info();
                let writes = name.starts_with("call") && !name.starts_with("call_pure")
                    || name == "setfield_raw"
                    || name == "setarrayitem_raw";
                if writes
                    || (!info.pure
                        && !info.removable
                        && !info.guard
                        && !name.ends_with("_ovf")
                        && name != "jump"
                        && name != "finish")
                {
                    self.clear();
                }
                next.emit(op, sh);
            }
        }
    }
}

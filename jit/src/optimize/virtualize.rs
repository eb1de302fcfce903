//! `virtualize`: allocation removal. A `new`, `new_with_vtable` or a
//! `new_array` of a small constant length is not emitted; the object becomes
//! *virtual*: the optimizer keeps its fields (items) as values. Stores into
//! a virtual update them, reads from it are replaced by the stored value
//! (zero when none was stored, as memory starts zeroed), `guard_class`,
//! `guard_nonnull` and `ptr_eq` on it are decided. Any other use makes the
//! object escape: it is *forced*, i.e. the allocation and the stores of its
//! current fields are emitted right there (fields first forced in turn).
//!
//! A virtual in the fail args of a guard is not forced: the guard gets
//! resume data ([`crate::trace::Resume`]) describing the object, which is
//! allocated and filled only if the guard fails; its fail args become the
//! values stored in it. At a `label` every virtual is forced (its state
//! would differ from one iteration to the next).
//!
//! With `earlyforce` after it in the chain, an operation that makes a
//! virtual escape is passed on as it is, and `earlyforce` decides what to
//! force: the virtual objects are shared with it ([`Virtuals`]).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use crate::trace::{
    BoxId, DescrData, DescrId, FieldSlot, Kind, Op, Opcode, PendingStore, Resume, ResumeValue,
    Value, VirtualObject,
};

use super::{Next, Optimization, Shared, VirtualShape, WordMap};

pub(crate) const MAX_VIRTUAL_ARRAY: i64 = 64;

#[derive(Clone, Debug)]
pub(crate) enum Virtual {
    /// A struct or instance: the allocating op, and the stored fields by descr.
    Struct {
        alloc: Op,
        fields: BTreeMap<DescrId, Value>,
    },
    /// An array: the allocating op and the items (None: never stored).
    Array {
        alloc: Op,
        items: Vec<Option<Value>>,
    },
}

impl Virtual {
    /// What `unroll` needs of it: the allocation and the values stored.
    fn shape(&self) -> VirtualShape {
        match self {
            Virtual::Struct { alloc, fields } => VirtualShape {
                alloc: alloc.clone(),
                fields: fields
                    .iter()
                    .map(|(d, v)| (FieldSlot::Field(*d), *v))
                    .collect(),
            },
            Virtual::Array { alloc, items } => VirtualShape {
                alloc: alloc.clone(),
                fields: items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| Some((FieldSlot::Item(i), (*v)?)))
                    .collect(),
            },
        }
    }
}

/// The virtual objects of one run, by box.
pub(crate) type Virtuals = Rc<RefCell<WordMap<BoxId, Virtual>>>;

/// The shape of virtual `b`, if it is one.
pub(crate) fn virtual_shape(virtuals: &Virtuals, b: BoxId) -> Option<VirtualShape> {
    virtuals.borrow().get(&b).map(Virtual::shape)
}

/// The `virtualize` optimization.
#[derive(Default)]
pub struct OptVirtualize {
    virtuals: Virtuals,
    /// `earlyforce` comes later and forces what escapes.
    leave_escapes: bool,
}

pub(crate) fn zero_of(kind: Kind) -> Value {
    match kind {
        Kind::Float => Value::float(0.0),
        Kind::Ref => Value::NullPtr,
        _ => Value::Int(0),
    }
}

/// What a store of `v` leaves in memory, as a value reads give back: `v`
/// itself for a word; for a one-byte field, the truncated constant (a box
/// would need a truncation the trace cannot say: `None`, the object escapes).
fn stored_value(v: Value, narrow: bool) -> Option<Value> {
    match (narrow, v) {
        (false, v) => Some(v),
        (true, Value::Int(c)) => Some(Value::Int(c & 0xff)),
        _ => None,
    }
}

/// The descr a virtual's field is kept under: the first of the header's
/// descrs naming the same field (`field value = node.value` and
/// `node.value` are one field, so a store through one is read through the
/// other).
fn field_key(sh: &Shared, d: DescrId) -> DescrId {
    let descrs = &sh.trace.header.descrs;
    let DescrData::Field { strukt, offset, .. } = &descrs[d].data else {
        return d;
    };
    descrs
        .iter()
        .position(|o| match &o.data {
            DescrData::Field {
                strukt: s,
                offset: f,
                ..
            } => s == strukt && f == offset,
            _ => false,
        })
        .unwrap_or(d)
}

/// The virtual `v` is, if any.
pub(crate) fn virtual_of(virtuals: &Virtuals, sh: &Shared, v: Value) -> Option<BoxId> {
    match sh.resolve(v) {
        Value::Box(b) if virtuals.borrow().contains_key(&b) => Some(b),
        _ => None,
    }
}

/// Emits the allocation and stores of virtual `b` (and of the virtuals its
/// fields hold); afterwards `b` is an ordinary box.
pub(crate) fn force(virtuals: &Virtuals, b: BoxId, sh: &mut Shared, next: &mut Next) {
    let Some(v) = virtuals.borrow_mut().remove(&b) else {
        return;
    };
    match v {
        Virtual::Struct { alloc, fields } => {
            next.emit(alloc, sh);
            for (d, val) in fields {
                let val = force_value(virtuals, val, sh, next);
                if val == Value::Int(0) || val == Value::NullPtr {
                    // memory starts zeroed
                    continue;
                }
                let mut st = Op::new(Opcode::SetfieldGc, vec![Value::Box(b), val], None);
                st.descr = Some(d);
                next.emit(st, sh);
            }
        }
        Virtual::Array { alloc, items } => {
            let descr = alloc.descr;
            let store = item_store(&alloc);
            next.emit(alloc, sh);
            for (i, val) in items.into_iter().enumerate() {
                let Some(val) = val else { continue };
                let val = force_value(virtuals, val, sh, next);
                let mut st = Op::new(store, vec![Value::Box(b), Value::Int(i as i64), val], None);
                st.descr = descr;
                next.emit(st, sh);
            }
        }
    }
}

/// The operation that stores an item into what `alloc` allocates:
/// `strsetitem` into a string, `setarrayitem_gc` into an array.
pub(crate) fn item_store(alloc: &Op) -> Opcode {
    match alloc.opcode {
        Opcode::Newstr => Opcode::Strsetitem,
        Opcode::Newunicode => Opcode::Unicodesetitem,
        _ => Opcode::SetarrayitemGc,
    }
}

/// Forces every virtual object, in box order (at a label, where the loop's
/// objects are other ones each iteration).
pub(crate) fn force_all(virtuals: &Virtuals, sh: &mut Shared, next: &mut Next) {
    let mut all: Vec<BoxId> = virtuals.borrow().keys().copied().collect();
    all.sort_unstable();
    for b in all {
        force(virtuals, b, sh, next);
    }
}

/// Forces `v` if it is a virtual object (through `next`); returns it
/// resolved.
pub(crate) fn force_value(
    virtuals: &Virtuals,
    v: Value,
    sh: &mut Shared,
    next: &mut Next,
) -> Value {
    let v = sh.resolve(v);
    if let Some(b) = virtual_of(virtuals, sh, v) {
        force(virtuals, b, sh, next);
    }
    v
}

/// Forces the virtual objects among `op`'s arguments; for a guard, the
/// virtual objects among its fail args are not forced but described in its
/// resume data, to be allocated only if the guard fails. Returns `op`
/// ready to emit.
pub(crate) fn escape_op(virtuals: &Virtuals, mut op: Op, sh: &mut Shared, next: &mut Next) -> Op {
    for v in &op.args {
        force_value(virtuals, *v, sh, next);
    }
    if op.is_guard() {
        describe_virtuals(virtuals, &mut op, sh);
    } else {
        for v in op.fail_args.iter().flatten() {
            force_value(virtuals, *v, sh, next);
        }
    }
    op
}

/// Where an object of a guard's new resume data comes from.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum ObjectSource {
    /// A virtual object of this run.
    Virtual(BoxId),
    /// An object of the resume data the guard already had.
    Described(usize),
}

/// The resume data of one guard being built.
struct ResumeBuilder<'a> {
    virtuals: &'a WordMap<BoxId, Virtual>,
    sh: &'a Shared,
    /// The guard's fail args before.
    old_saved: &'a [Value],
    /// The boxes the objects of the guard's old resume data stood for.
    old_names: Vec<BoxId>,
    /// Its new fail args.
    saved: Vec<Value>,
    /// Its new objects' sources, by index.
    sources: Vec<ObjectSource>,
    index: WordMap<ObjectSource, usize>,
}

impl ResumeBuilder<'_> {
    fn object(&mut self, src: ObjectSource) -> ResumeValue {
        let sources = &mut self.sources;
        ResumeValue::Object(*self.index.entry(src).or_insert_with(|| {
            sources.push(src);
            sources.len() - 1
        }))
    }

    /// A value of the guard as traced (a fail arg now, or a field).
    fn value(&mut self, v: Value) -> ResumeValue {
        let v = self.sh.resolve(v);
        match v {
            Value::Box(b) if self.virtuals.contains_key(&b) => {
                self.object(ObjectSource::Virtual(b))
            }
            _ => {
                self.saved.push(v);
                ResumeValue::Saved(self.saved.len() - 1)
            }
        }
    }

    /// A value of the guard's old resume data.
    fn old(&mut self, rv: ResumeValue) -> ResumeValue {
        match rv {
            ResumeValue::Saved(i) => self.value(self.old_saved[i]),
            // an object described from a virtual of this run (by an
            // optimization before): that virtual, so that it is one object
            // with the other references to it
            ResumeValue::Object(k) => match self.old_names.get(k) {
                Some(b) if self.virtuals.contains_key(b) => self.object(ObjectSource::Virtual(*b)),
                _ => self.object(ObjectSource::Described(k)),
            },
        }
    }
}

/// Gives guard `op` resume data that allocates the virtual objects its
/// fail args hold (and those their fields hold, and so on): its fail args
/// become the plain values among them, in order of appearance (the values
/// handed back first, then each object's fields, objects in order), so the
/// text form reads back the same.
pub(crate) fn describe_virtuals(virtuals: &Virtuals, op: &mut Op, sh: &Shared) {
    let Some(old_saved) = op.fail_args.take() else {
        return;
    };
    let virtuals = virtuals.borrow();
    let is_virtual = |v: Value| matches!(sh.resolve(v), Value::Box(b) if virtuals.contains_key(&b));
    if op.resume.is_none() && !old_saved.iter().any(|v| is_virtual(*v)) {
        op.fail_args = Some(old_saved);
        return;
    }
    if op
        .resume
        .as_ref()
        .is_some_and(|r| !r.is_well_formed(old_saved.len()))
    {
        // not ours to mend: the guard keeps its values as they are
        op.fail_args = Some(old_saved);
        return;
    }
    let old = op.resume.take();
    let mut rb = ResumeBuilder {
        virtuals: &virtuals,
        sh,
        old_saved: &old_saved,
        old_names: old
            .as_ref()
            .map_or_else(Vec::new, |r| r.objects.iter().map(|o| o.name).collect()),
        saved: Vec::new(),
        sources: Vec::new(),
        index: WordMap::default(),
    };
    let values: Vec<ResumeValue> = match &old {
        Some(r) => r.values.iter().map(|rv| rb.old(*rv)).collect(),
        None => (0..old_saved.len())
            .map(|i| rb.old(ResumeValue::Saved(i)))
            .collect(),
    };
    let pending: Vec<PendingStore> = old.as_ref().map_or_else(Vec::new, |r| {
        r.pending
            .iter()
            .map(|p| PendingStore {
                target: rb.old(p.target),
                value: rb.old(p.value),
                ..*p
            })
            .collect()
    });
    let mut objects = Vec::new();
    let mut k = 0;
    while k < rb.sources.len() {
        let o = match rb.sources[k] {
            ObjectSource::Described(j) => {
                let Some(o) = old.as_ref().and_then(|r| r.objects.get(j)) else {
                    break; // not reached: the old data is well formed
                };
                let fields = o
                    .fields
                    .iter()
                    .map(|(slot, rv)| (*slot, rb.old(*rv)))
                    .collect();
                VirtualObject {
                    fields,
                    ..o.clone()
                }
            }
            ObjectSource::Virtual(b) => {
                let (alloc, length, stored): (&Op, usize, Vec<(FieldSlot, Value)>) =
                    match &virtuals[&b] {
                        Virtual::Struct { alloc, fields } => (
                            alloc,
                            0,
                            fields
                                .iter()
                                .map(|(d, v)| (FieldSlot::Field(*d), *v))
                                .collect(),
                        ),
                        Virtual::Array { alloc, items } => (
                            alloc,
                            items.len(),
                            items
                                .iter()
                                .enumerate()
                                .filter_map(|(i, v)| Some((FieldSlot::Item(i), (*v)?)))
                                .collect(),
                        ),
                    };
                // memory starts zeroed
                let fields = stored
                    .into_iter()
                    .filter(|(_, v)| !matches!(sh.resolve(*v), Value::Int(0) | Value::NullPtr))
                    .map(|(slot, v)| (slot, rb.value(v)))
                    .collect();
                VirtualObject {
                    name: b,
                    opcode: alloc.opcode,
                    descr: alloc.descr.unwrap_or(0),
                    length,
                    fields,
                }
            }
        };
        objects.push(o);
        k += 1;
    }
    op.fail_args = Some(rb.saved);
    op.resume = Some(Box::new(Resume {
        values,
        objects,
        pending,
    }));
}

impl OptVirtualize {
    /// `virtualize` keeping its virtual objects in `virtuals`; with
    /// `leave_escapes`, operations that make them escape are passed on
    /// unforced (`earlyforce`, later in the chain, forces them).
    pub(crate) fn new(virtuals: Virtuals, leave_escapes: bool) -> OptVirtualize {
        OptVirtualize {
            virtuals,
            leave_escapes,
        }
    }

    fn virtual_of(&self, sh: &Shared, v: Value) -> Option<BoxId> {
        virtual_of(&self.virtuals, sh, v)
    }

    /// Forces every virtual `op` uses (arguments and fail args) and emits
    /// it; or leaves that to `earlyforce`.
    fn escape(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let op = match self.leave_escapes {
            false => escape_op(&self.virtuals, op, sh, next),
            true => op,
        };
        next.emit(op, sh);
    }

    /// Whether `op` is a string comparison whose virtual arguments are all
    /// strings: `string`, which comes later, decides it or forces them.
    fn compares_virtual_strings(&self, op: &Op, sh: &Shared) -> bool {
        super::string::is_string_equality(op, sh)
            && op.args.iter().all(|a| match self.virtual_of(sh, *a) {
                None => true,
                Some(b) => matches!(self.virtuals.borrow().get(&b),
                    Some(Virtual::Array { alloc, .. }) if alloc.is_string_op()),
            })
    }

    fn class_of(&self, b: BoxId, sh: &Shared) -> Option<u64> {
        match self.virtuals.borrow().get(&b)? {
            Virtual::Struct { alloc, .. } => {
                match alloc.descr.map(|d| &sh.trace.header.descrs[d].data) {
                    Some(DescrData::Class { type_id, .. })
                    | Some(DescrData::Size { type_id, .. }) => Some(*type_id),
                    _ => None,
                }
            }
            Virtual::Array { .. } => None,
        }
    }
}

impl Optimization for OptVirtualize {
    fn name(&self) -> &'static str {
        "virtualize"
    }

    fn fork(&self, copies: &mut super::Forks) -> Box<dyn Optimization> {
        Box::new(OptVirtualize {
            virtuals: copies.virtuals(&self.virtuals),
            leave_escapes: self.leave_escapes,
        })
    }

    fn propagate(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let name = op.opcode;
        if op.is_string_op() || self.compares_virtual_strings(&op, sh) {
            // `string` does them (on its virtual strings, which only it makes)
            return next.emit(op, sh);
        }
        let v0 = op.args.first().and_then(|a| self.virtual_of(sh, *a));
        match name {
            Opcode::New | Opcode::NewWithVtable => {
                if let Some(r) = op.result {
                    self.virtuals.borrow_mut().insert(
                        r,
                        Virtual::Struct {
                            alloc: op,
                            fields: BTreeMap::new(),
                        },
                    );
                    return;
                }
            }
            Opcode::NewArray | Opcode::NewArrayClear => {
                if let (Some(r), Value::Int(n)) = (op.result, sh.resolve(op.args[0])) {
                    if (0..=MAX_VIRTUAL_ARRAY).contains(&n) {
                        self.virtuals.borrow_mut().insert(
                            r,
                            Virtual::Array {
                                alloc: op,
                                items: vec![None; n as usize],
                            },
                        );
                        return;
                    }
                }
            }
            Opcode::SetfieldGc => {
                if let (Some(b), Some(d)) = (v0, op.descr) {
                    let narrow = match &sh.trace.header.descrs[d].data {
                        DescrData::Field { ty, .. } => ty.size_align().0 < 8,
                        _ => true,
                    };
                    if let Some(val) = stored_value(sh.resolve(op.args[1]), narrow) {
                        let key = field_key(sh, d);
                        if let Some(Virtual::Struct { fields, .. }) =
                            self.virtuals.borrow_mut().get_mut(&b)
                        {
                            fields.insert(key, val);
                            return;
                        }
                    }
                }
            }
            Opcode::GetfieldGcI | Opcode::GetfieldGcF | Opcode::GetfieldGcR => {
                if let (Some(b), Some(d), Some(r)) = (v0, op.descr, op.result) {
                    if let Some(Virtual::Struct { fields, .. }) = self.virtuals.borrow().get(&b) {
                        let val = fields
                            .get(&field_key(sh, d))
                            .copied()
                            .unwrap_or_else(|| zero_of(sh.kind(Value::Box(r))));
                        sh.make_equal(r, val);
                        return;
                    }
                }
            }
            Opcode::SetarrayitemGc
            | Opcode::GetarrayitemGcI
            | Opcode::GetarrayitemGcF
            | Opcode::GetarrayitemGcR => {
                if let (Some(b), Value::Int(i)) = (v0, sh.resolve(op.args[1])) {
                    if let Some(Virtual::Array { items, .. }) =
                        self.virtuals.borrow_mut().get_mut(&b)
                    {
                        if (0..items.len() as i64).contains(&i) {
                            if name == Opcode::SetarrayitemGc {
                                let narrow = match op.descr.map(|d| &sh.trace.header.descrs[d].data)
                                {
                                    Some(DescrData::Array { item_size, .. }) => *item_size < 8,
                                    _ => true,
                                };
                                if let Some(val) = stored_value(sh.resolve(op.args[2]), narrow) {
                                    items[i as usize] = Some(val);
                                    return;
                                }
                            }
                            if let Some(r) = op.result {
                                let val = items[i as usize]
                                    .unwrap_or_else(|| zero_of(sh.kind(Value::Box(r))));
                                sh.make_equal(r, val);
                                return;
                            }
                        }
                    }
                }
            }
            Opcode::ArraylenGc => {
                if let (Some(b), Some(r)) = (v0, op.result) {
                    if let Some(Virtual::Array { items, .. }) = self.virtuals.borrow().get(&b) {
                        sh.make_equal(r, Value::Int(items.len() as i64));
                        return;
                    }
                }
            }
            Opcode::GuardClass | Opcode::GuardNonnullClass => {
                if let Some(b) = v0 {
                    let want = sh.class_named(op.args[1]);
                    if want.is_some() && self.class_of(b, sh) == want {
                        return; // proven
                    }
                }
            }
            // a virtual is never null
            Opcode::GuardNonnull if v0.is_some() => return,
            Opcode::PtrEq | Opcode::PtrNe | Opcode::InstancePtrEq | Opcode::InstancePtrNe => {
                let (a, b) = (sh.resolve(op.args[0]), sh.resolve(op.args[1]));
                let va = self.virtual_of(sh, a).is_some();
                let vb = self.virtual_of(sh, b).is_some();
                if let (Some(r), true) = (op.result, va || vb) {
                    let eq = a == b;
                    let ne = name.is_not_equal();
                    sh.make_equal(r, Value::Int((eq != ne) as i64));
                    return;
                }
            }
            Opcode::Label => {
                force_all(&self.virtuals, sh, next);
                next.emit(op, sh);
                return;
            }
            _ => {}
        }
        self.escape(op, sh, next);
    }

    fn virtual_shape(&self, b: BoxId) -> Option<VirtualShape> {
        virtual_shape(&self.virtuals, b)
    }
}

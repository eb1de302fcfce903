//! The reference interpreter: runs a trace on real memory.
//!
//! Objects are allocated with `std::alloc` using the layouts of
//! `rpy_ir::lltype` (`ContainerType::layout`); every object starts with the
//! GC header word (`ContainerType::GC_HEADER_SIZE` bytes), which holds the
//! object's type id: the id of its struct for `new`, of its class for
//! `new_with_vtable` (the vtable id `guard_class` compares), of its array
//! type for `new_array`. Every memory access is checked against the live
//! allocations of the [`Heap`] (`rpy_llinterp::memory`'s checked blocks),
//! so a bad pointer is an [`Outcome::Error`], never a crash.

use crate::trace::Opcode as TraceOp;
use rpy_llinterp::memory::CheckedHeap;
use std::rc::Rc;

use rpy_ir::llops::eval_int;
use rpy_ir::lltype::LowLevelType;

use crate::calls;
use crate::trace::{DescrData, FieldSlot, Kind, Op, Resume, ResumeValue, Trace, Value};

/// A value the interpreter hands in or out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RunValue {
    Int(i64),
    Float(f64),
    /// An address (0 is null).
    Ref(usize),
}

impl RunValue {
    pub fn bits(self) -> u64 {
        match self {
            RunValue::Int(i) => i as u64,
            RunValue::Float(f) => f.to_bits(),
            RunValue::Ref(p) => p as u64,
        }
    }

    pub fn from_bits(kind: Kind, bits: u64) -> RunValue {
        match kind {
            Kind::Float => RunValue::Float(f64::from_bits(bits)),
            Kind::Ref => RunValue::Ref(bits as usize),
            _ => RunValue::Int(bits as i64),
        }
    }
}

impl std::fmt::Display for RunValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunValue::Int(i) => write!(f, "{i}"),
            RunValue::Float(x) => write!(f, "{x:?}"),
            RunValue::Ref(0) => f.write_str("null"),
            RunValue::Ref(p) => write!(f, "0x{p:x}"),
        }
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// `finish(...)` was reached, with these values.
    Finished(Vec<RunValue>),
    /// The guard at op index `guard` failed; its fail args' values.
    GuardFailed { guard: usize, values: Vec<RunValue> },
    /// The loop ran `limit` iterations without leaving.
    LoopLimit { values: Vec<RunValue> },
    /// The trace did something undefined (null pointer, out-of-bounds index,
    /// division by zero, a trace that falls off its end).
    Error(String),
}

/// The memory a run allocates; freed when dropped. The checked blocks are
/// the LLInterpreter's (`rpy_llinterp::memory::CheckedHeap`, below both
/// crates); what needs a trace's descrs is added here.
/// A heap of its own, or the LLInterpreter's, which compiled loops of
/// `rpy interp --jit` run on (`Heap::sharing`).
#[derive(Default)]
pub struct Heap(Rc<CheckedHeap>);

impl std::ops::Deref for Heap {
    type Target = CheckedHeap;

    fn deref(&self) -> &CheckedHeap {
        &self.0
    }
}

impl Heap {
    /// The memory `heap` is, shared.
    pub fn sharing(heap: &Rc<CheckedHeap>) -> Heap {
        Heap(heap.clone())
    }

    /// A new object of a struct or class descr, its header word set.
    pub fn new_object(&mut self, trace: &Trace, descr: usize) -> Result<usize, String> {
        let (size, align, id) = trace.header.descrs[descr]
            .data
            .object()
            .ok_or("not a struct or class")?;
        let p = self.alloc(size, align).ok_or("allocation failed")?;
        self.write(p, &LowLevelType::Signed, id)?;
        Ok(p)
    }

    /// Copies `length` items of GC array `source` from `source_start` to
    /// GC array `dest` from `dest_start` (both of array descr `descr`), as
    /// `copystrcontent` does; the ranges must lie within both arrays (they
    /// may overlap: the copy is as if through a buffer).
    pub fn copy_items(
        &mut self,
        trace: &Trace,
        descr: usize,
        [source, dest]: [u64; 2],
        [source_start, dest_start, length]: [i64; 3],
    ) -> Result<(), String> {
        let DescrData::Array {
            item,
            length_offset,
            items_offset,
            item_size,
            ..
        } = &trace.header.descrs[descr].data
        else {
            return Err("not an array".into());
        };
        let item_at = |array: u64, start: i64| -> Result<usize, String> {
            let base = array as usize;
            let len = self.read(base.wrapping_add(*length_offset), &LowLevelType::Signed)? as i64;
            let end = start.checked_add(length);
            if start < 0 || length < 0 || end.is_none_or(|e| e > len) {
                return Err(format!(
                    "copy of {length} items from {start} out of bounds (length {len})"
                ));
            }
            Ok(base + items_offset + start as usize * item_size)
        };
        let from = item_at(source, source_start)?;
        let to = item_at(dest, dest_start)?;
        let items: Vec<u64> = (0..length as usize)
            .map(|k| self.read(from + k * item_size, item))
            .collect::<Result<_, _>>()?;
        for (k, bits) in items.into_iter().enumerate() {
            self.write(to + k * item_size, item, bits)?;
        }
        Ok(())
    }

    /// A new array of an array descr with `n` zeroed items.
    pub fn new_array(&mut self, trace: &Trace, descr: usize, n: i64) -> Result<usize, String> {
        let crate::trace::ArrayShape {
            length_offset,
            items_offset,
            item_size,
            type_id,
        } = trace.header.descrs[descr]
            .data
            .array()
            .ok_or("not an array")?;
        if !(0..1 << 28).contains(&n) {
            return Err(format!("bad array length {n}"));
        }
        let p = self
            .alloc(items_offset + n as usize * item_size, 8)
            .ok_or("allocation failed")?;
        self.write(p, &LowLevelType::Signed, type_id)?;
        self.write(p + length_offset, &LowLevelType::Signed, n as u64)?;
        Ok(p)
    }
}

/// Memory a run's objects can be read from: a [`Heap`], or (when an
/// executable logs a run for replay) the program's own memory.
pub trait Memory {
    /// Reads a value of type `ty` at `addr`, as bits.
    fn read(&self, addr: usize, ty: &LowLevelType) -> Result<u64, String>;
}

impl Memory for Heap {
    fn read(&self, addr: usize, ty: &LowLevelType) -> Result<u64, String> {
        CheckedHeap::read(self, addr, ty)
    }
}

/// The type id in an object's header word: its low 32 bits (an
/// executable's collector keeps its flags in the high ones).
pub fn header_type_id(word: u64) -> u64 {
    word & 0xffff_ffff
}

/// Runs `trace` from `args` (one per input, of its kind) on `heap`, for at
/// most `limit` loop iterations.
pub fn run(trace: &Trace, args: &[RunValue], heap: &mut Heap, limit: u64) -> Outcome {
    run_with_calls(trace, args, heap, limit, &mut NoResidualCalls)
}

/// Runs the program functions a trace calls residually
/// ([`crate::trace::DescrData::Residual`]): the meta-interpreter, whose
/// interpreter holds them. A call that raises leaves its exception with
/// the runner (the trace's `guard_no_exception` then fails, and the
/// meta-interpreter raises it where the call was).
pub trait ResidualCalls {
    /// Calls residual call `index` with the words `args`; its result's
    /// word (0 when it raised or has none).
    fn call(&mut self, heap: &mut Heap, index: usize, args: &[u64]) -> Result<u64, String>;
    /// Whether the last call raised.
    fn exception_pending(&self) -> bool;
}

/// The runner of a trace with no residual calls (every trace but the
/// meta-interpreter's).
pub struct NoResidualCalls;

impl ResidualCalls for NoResidualCalls {
    fn call(&mut self, _: &mut Heap, index: usize, _: &[u64]) -> Result<u64, String> {
        Err(format!("residual call {index} with no program to run it"))
    }

    fn exception_pending(&self) -> bool {
        false
    }
}

/// [`run`], with `calls` running the trace's residual calls.
pub fn run_with_calls(
    trace: &Trace,
    args: &[RunValue],
    heap: &mut Heap,
    limit: u64,
    calls: &mut dyn ResidualCalls,
) -> Outcome {
    match run_inner(trace, args, heap, limit, calls) {
        Ok(Outcome::GuardFailed { guard, values }) => guard_failed(trace, guard, values, heap),
        Ok(o) => o,
        Err(e) => Outcome::Error(e),
    }
}

/// The outcome of the guard at `guard` failing, given the values of its
/// fail args: the values it hands back, with the virtual objects its
/// resume data describes allocated on `heap` (every way of running a
/// trace ends a failing guard here).
pub fn guard_failed(
    trace: &Trace,
    guard: usize,
    saved: Vec<RunValue>,
    heap: &mut dyn ObjectMemory,
) -> Outcome {
    let Some(resume) = trace.ops.get(guard).and_then(|op| op.resume.as_deref()) else {
        return Outcome::GuardFailed {
            guard,
            values: saved,
        };
    };
    match materialize(trace, resume, &saved, heap) {
        Ok(values) => Outcome::GuardFailed { guard, values },
        Err(e) => Outcome::Error(format!("resuming from guard {guard}: {e}")),
    }
}

/// Where a failing guard rebuilds the objects the optimizer removed: the
/// run's heap, or a translated program's memory.
pub trait ObjectMemory {
    fn new_object(&mut self, trace: &Trace, descr: usize) -> Result<usize, String>;
    fn new_array(&mut self, trace: &Trace, descr: usize, n: i64) -> Result<usize, String>;
    fn write(&mut self, addr: usize, ty: &LowLevelType, bits: u64) -> Result<(), String>;
    /// Before a GC pointer is stored into `obj`, which may be old.
    fn write_barrier(&mut self, obj: usize);
}

impl ObjectMemory for Heap {
    fn new_object(&mut self, trace: &Trace, descr: usize) -> Result<usize, String> {
        Heap::new_object(self, trace, descr)
    }

    fn new_array(&mut self, trace: &Trace, descr: usize, n: i64) -> Result<usize, String> {
        Heap::new_array(self, trace, descr, n)
    }

    fn write(&mut self, addr: usize, ty: &LowLevelType, bits: u64) -> Result<(), String> {
        CheckedHeap::write(self, addr, ty, bits)
    }

    fn write_barrier(&mut self, _: usize) {}
}

/// Allocates and fills the objects of `resume`; the values handed back.
fn materialize(
    trace: &Trace,
    resume: &Resume,
    saved: &[RunValue],
    heap: &mut dyn ObjectMemory,
) -> Result<Vec<RunValue>, String> {
    let descrs = &trace.header.descrs;
    let mut objects = Vec::with_capacity(resume.objects.len());
    for o in &resume.objects {
        objects.push(match &descrs[o.descr].data {
            DescrData::Array { .. } => heap.new_array(trace, o.descr, o.length as i64)?,
            _ => heap.new_object(trace, o.descr)?,
        });
    }
    let value = |v: ResumeValue| -> Result<RunValue, String> {
        match v {
            ResumeValue::Saved(i) => saved
                .get(i)
                .copied()
                .ok_or_else(|| format!("resume data reads fail arg {i} of {}", saved.len())),
            ResumeValue::Object(k) => objects
                .get(k)
                .map(|p| RunValue::Ref(*p))
                .ok_or_else(|| format!("resume data names object {k} of {}", objects.len())),
        }
    };
    for (o, at) in resume.objects.iter().zip(&objects) {
        for (slot, v) in &o.fields {
            let bits = value(*v)?.bits();
            match (slot, &descrs[o.descr].data) {
                (FieldSlot::Field(d), _) => match &descrs[*d].data {
                    DescrData::Field { offset, ty, .. } => heap.write(at + offset, ty, bits)?,
                    _ => return Err("a virtual's field has no field descr".into()),
                },
                (
                    FieldSlot::Item(i),
                    DescrData::Array {
                        item,
                        items_offset,
                        item_size,
                        ..
                    },
                ) => heap.write(at + items_offset + i * item_size, item, bits)?,
                (FieldSlot::Item(_), _) => return Err("a virtual struct has no items".into()),
            }
        }
    }
    for store in &resume.pending {
        let (RunValue::Ref(target), bits) = (value(store.target)?, value(store.value)?.bits())
        else {
            return Err("a pending store's target is not an object".into());
        };
        match &descrs[store.descr].data {
            DescrData::Field { offset, ty, .. } => {
                if target == 0 {
                    return Err("null pointer dereference in a pending store".into());
                }
                if matches!(ty, LowLevelType::Ptr(_)) {
                    heap.write_barrier(target);
                }
                heap.write(target + offset, ty, bits)?
            }
            _ => return Err("a pending store has no field descr".into()),
        }
    }
    resume.values.iter().map(|v| value(*v)).collect()
}

/// Runs `trace` on a fresh heap (freed afterwards: returned pointers dangle).
pub fn run_fresh(trace: &Trace, args: &[RunValue], limit: u64) -> Outcome {
    run(trace, args, &mut Heap::default(), limit)
}

/// Checks that `args` are one value per input of `trace`, each of its
/// input's kind: what every way of running a trace (this interpreter, the
/// machine code) requires before it starts.
pub fn check_inputs(trace: &Trace, args: &[RunValue]) -> Result<(), String> {
    if args.len() != trace.inputs.len() {
        return Err(format!(
            "the trace takes {} input(s), not {}",
            trace.inputs.len(),
            args.len()
        ));
    }
    for (b, v) in trace.inputs.iter().zip(args) {
        let want = trace.boxes[*b].kind;
        let ok = matches!(
            (want, v),
            (Kind::Int, RunValue::Int(_))
                | (Kind::Float, RunValue::Float(_))
                | (Kind::Ref, RunValue::Ref(_))
        );
        if !ok {
            return Err(format!(
                "input {} wants a {:?}, got {v}",
                trace.boxes[*b].name(),
                want
            ));
        }
    }
    Ok(())
}

fn run_inner(
    trace: &Trace,
    args: &[RunValue],
    heap: &mut Heap,
    limit: u64,
    calls: &mut dyn ResidualCalls,
) -> Result<Outcome, String> {
    check_inputs(trace, args)?;
    let mut regs = vec![0u64; trace.boxes.len()];
    for (b, v) in trace.inputs.iter().zip(args) {
        regs[*b] = v.bits();
    }
    let header = &trace.header;
    let mut ovf = false;
    let mut iterations = 0u64;
    let mut label: Option<usize> = None;
    let mut pc = 0;
    let get = |regs: &[u64], v: Value| -> u64 {
        match v {
            Value::Box(b) => regs[b],
            Value::Int(i) => i as u64,
            Value::Float(bits) => bits,
            Value::NullPtr => 0,
            Value::ConstPtr(p) => p,
            Value::Class(d) => header.class_id(d).unwrap_or(0),
        }
    };
    let values = |regs: &[u64], vs: &[Value]| -> Vec<RunValue> {
        vs.iter()
            .map(|v| RunValue::from_bits(trace.kind(*v), get(regs, *v)))
            .collect()
    };
    while pc < trace.ops.len() {
        let op: &Op = &trace.ops[pc];
        // a string operation is the array operation on its implied array
        let name = crate::trace::array_equivalent(op.opcode).unwrap_or(op.opcode);
        let a = |i: usize| get(&regs, op.args[i]);
        let ai = |i: usize| get(&regs, op.args[i]) as i64;
        let af = |i: usize| f64::from_bits(get(&regs, op.args[i]));
        let fail = |regs: &[u64]| -> Outcome {
            Outcome::GuardFailed {
                guard: pc,
                values: values(regs, op.fail_args.as_deref().unwrap_or(&[])),
            }
        };
        let descr = op.descr.map(|d| &header.descrs[d].data);
        if op.info().descr != crate::trace::DescrNeed::None
            && !op.opcode.is_allocation()
            && !op.opcode.is_call()
            && op.args.first().is_some_and(|v| get(&regs, *v) == 0)
        {
            return Err(format!("null pointer dereference at op {pc}"));
        }
        let fb = |b: bool| b as u64;
        let res: Option<u64> = match name {
            TraceOp::Label => {
                label = Some(pc);
                None
            }
            TraceOp::Jump => {
                iterations += 1;
                let vals: Vec<u64> = op.args.iter().map(|v| get(&regs, *v)).collect();
                let targets: Vec<Value> = match label {
                    Some(l) => trace.ops[l].args.clone(),
                    None => trace.inputs.iter().map(|b| Value::Box(*b)).collect(),
                };
                if targets.len() != vals.len() {
                    return Err(format!(
                        "jump passes {} value(s) to a label of {}",
                        vals.len(),
                        targets.len()
                    ));
                }
                for (t, v) in targets.iter().zip(&vals) {
                    if let Value::Box(b) = t {
                        regs[*b] = *v;
                    }
                }
                if iterations >= limit {
                    return Ok(Outcome::LoopLimit {
                        values: values(&regs, &targets),
                    });
                }
                pc = label.map_or(0, |l| l + 1);
                continue;
            }
            TraceOp::Finish => return Ok(Outcome::Finished(values(&regs, &op.args))),
            TraceOp::GuardTrue
            | TraceOp::GuardFalse
            | TraceOp::GuardValue
            | TraceOp::GuardClass
            | TraceOp::GuardNonnull
            | TraceOp::GuardIsnull
            | TraceOp::GuardNonnullClass
            | TraceOp::GuardNoOverflow
            | TraceOp::GuardOverflow
            | TraceOp::GuardNoException
            | TraceOp::GuardNotForced => {
                let pass = match name {
                    TraceOp::GuardTrue => a(0) != 0,
                    TraceOp::GuardFalse => a(0) == 0,
                    TraceOp::GuardValue => a(0) == a(1),
                    TraceOp::GuardNonnull => a(0) != 0,
                    TraceOp::GuardIsnull => a(0) == 0,
                    TraceOp::GuardClass | TraceOp::GuardNonnullClass => {
                        let p = a(0) as usize;
                        if p == 0 {
                            if name == TraceOp::GuardClass {
                                return Err(format!("guard_class on null at op {pc}"));
                            }
                            false
                        } else {
                            heap.read(p, &LowLevelType::Signed)? == a(1)
                        }
                    }
                    TraceOp::GuardNoOverflow => !ovf,
                    TraceOp::GuardOverflow => ovf,
                    TraceOp::GuardNoException => !calls.exception_pending(),
                    _ => true,
                };
                if !pass {
                    return Ok(fail(&regs));
                }
                None
            }
            TraceOp::IntAddOvf | TraceOp::IntSubOvf | TraceOp::IntMulOvf => {
                let (x, y) = (ai(0), ai(1));
                let r = match name {
                    TraceOp::IntAddOvf => x.checked_add(y),
                    TraceOp::IntSubOvf => x.checked_sub(y),
                    _ => x.checked_mul(y),
                };
                ovf = r.is_none();
                Some(r.unwrap_or(0) as u64)
            }
            TraceOp::UintRshift => {
                let y = ai(1);
                if !(0..64).contains(&y) {
                    return Err(format!("shift by {y} at op {pc}"));
                }
                Some(a(0) >> y)
            }
            TraceOp::UintLt => Some(fb(a(0) < a(1))),
            TraceOp::UintLe => Some(fb(a(0) <= a(1))),
            TraceOp::UintGt => Some(fb(a(0) > a(1))),
            TraceOp::UintGe => Some(fb(a(0) >= a(1))),
            TraceOp::IntIsZero => Some(fb(a(0) == 0)),
            TraceOp::IntForceGeZero => Some(ai(0).max(0) as u64),
            TraceOp::SameAsI | TraceOp::SameAsF | TraceOp::SameAsR => Some(a(0)),
            TraceOp::FloatAdd => Some((af(0) + af(1)).to_bits()),
            TraceOp::FloatSub => Some((af(0) - af(1)).to_bits()),
            TraceOp::FloatMul => Some((af(0) * af(1)).to_bits()),
            TraceOp::FloatTruediv => Some((af(0) / af(1)).to_bits()),
            TraceOp::FloatNeg => Some((-af(0)).to_bits()),
            TraceOp::FloatAbs => Some(af(0).abs().to_bits()),
            TraceOp::FloatLt => Some(fb(af(0) < af(1))),
            TraceOp::FloatLe => Some(fb(af(0) <= af(1))),
            TraceOp::FloatEq => Some(fb(af(0) == af(1))),
            TraceOp::FloatNe => Some(fb(af(0) != af(1))),
            TraceOp::FloatGt => Some(fb(af(0) > af(1))),
            TraceOp::FloatGe => Some(fb(af(0) >= af(1))),
            TraceOp::CastIntToFloat => Some((ai(0) as f64).to_bits()),
            TraceOp::CastFloatToInt => Some(af(0) as i64 as u64),
            TraceOp::PtrEq | TraceOp::InstancePtrEq => Some(fb(a(0) == a(1))),
            TraceOp::PtrNe | TraceOp::InstancePtrNe => Some(fb(a(0) != a(1))),
            TraceOp::GetfieldGcI
            | TraceOp::GetfieldGcF
            | TraceOp::GetfieldGcR
            | TraceOp::GetfieldRawI
            | TraceOp::GetfieldRawF => {
                let Some(DescrData::Field { offset, ty, .. }) = descr else {
                    return Err("bad descr".into());
                };
                let addr = (a(0) as usize).wrapping_add(*offset);
                Some(heap.read(addr, ty).map_err(|e| format!("{e} at op {pc}"))?)
            }
            TraceOp::SetfieldGc | TraceOp::SetfieldRaw => {
                let Some(DescrData::Field { offset, ty, .. }) = descr else {
                    return Err("bad descr".into());
                };
                let addr = (a(0) as usize).wrapping_add(*offset);
                heap.write(addr, ty, a(1))
                    .map_err(|e| format!("{e} at op {pc}"))?;
                None
            }
            TraceOp::GetarrayitemGcI
            | TraceOp::GetarrayitemGcF
            | TraceOp::GetarrayitemGcR
            | TraceOp::GetarrayitemRawI
            | TraceOp::GetarrayitemRawF
            | TraceOp::SetarrayitemGc
            | TraceOp::SetarrayitemRaw => {
                let Some(DescrData::Array {
                    item,
                    length_offset,
                    items_offset,
                    item_size,
                    ..
                }) = descr
                else {
                    return Err("bad descr".into());
                };
                let base = a(0) as usize;
                let i = ai(1);
                let gc = !name.is_raw();
                let addr = if gc {
                    let len =
                        heap.read(base.wrapping_add(*length_offset), &LowLevelType::Signed)
                            .map_err(|e| format!("{e} at op {pc}"))? as i64;
                    if !(0..len).contains(&i) {
                        return Err(format!("index {i} out of bounds (length {len}) at op {pc}"));
                    }
                    base + items_offset + i as usize * item_size
                } else {
                    base.wrapping_add((i as usize).wrapping_mul(*item_size))
                };
                if !name.is_load() {
                    heap.write(addr, item, a(2))
                        .map_err(|e| format!("{e} at op {pc}"))?;
                    None
                } else {
                    Some(
                        heap.read(addr, item)
                            .map_err(|e| format!("{e} at op {pc}"))?,
                    )
                }
            }
            TraceOp::Copystrcontent | TraceOp::Copyunicodecontent => {
                let descr = op.descr.ok_or("bad descr")?;
                heap.copy_items(trace, descr, [a(0), a(1)], [ai(2), ai(3), ai(4)])
                    .map_err(|e| format!("{e} at op {pc}"))?;
                None
            }
            TraceOp::ArraylenGc => {
                let Some(DescrData::Array { length_offset, .. }) = descr else {
                    return Err("bad descr".into());
                };
                let addr = (a(0) as usize).wrapping_add(*length_offset);
                Some(
                    heap.read(addr, &LowLevelType::Signed)
                        .map_err(|e| format!("{e} at op {pc}"))?,
                )
            }
            TraceOp::New | TraceOp::NewWithVtable => {
                Some(heap.new_object(trace, op.descr.unwrap_or(0))? as u64)
            }
            TraceOp::NewArray | TraceOp::NewArrayClear => {
                Some(heap.new_array(trace, op.descr.unwrap_or(0), ai(0))? as u64)
            }
            _ if name.is_call() => {
                let args: Vec<u64> = op.args.iter().map(|v| get(&regs, *v)).collect();
                match descr {
                    Some(DescrData::Call { func }) => Some(
                        calls::call(func, heap, &args)
                            .ok_or_else(|| format!("cannot call '{}'", func.name))?,
                    ),
                    Some(DescrData::Residual(call)) => Some(
                        calls
                            .call(heap, call.index, &args)
                            .map_err(|e| format!("{e} at op {pc}"))?,
                    ),
                    _ => return Err("bad descr".into()),
                }
            }
            _ => {
                let args: Vec<i64> = op.args.iter().map(|v| get(&regs, *v) as i64).collect();
                let folded = name.graph_twin().and_then(|op| eval_int(op, &args));
                match folded {
                    Some(v) => Some(v as u64),
                    None => return Err(format!("{name} is undefined for {args:?} at op {pc}")),
                }
            }
        };
        if let (Some(r), Some(v)) = (op.result, res) {
            regs[r] = v;
        }
        pc += 1;
    }
    Err("the trace ends without finish or jump".into())
}

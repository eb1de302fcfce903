//! The Rust side of a run: the helpers the machine code calls (allocation
//! with the interpreter's allocator, address checks against its heap) and
//! the interpreter's error messages, rebuilt after an error exit from the
//! frame.

use rpy_ir::lltype::LowLevelType;
use rpy_jit::interp::{Heap, ResidualCalls};
use rpy_jit::trace::Opcode;
use rpy_jit::trace::{DescrData, DescrNeed, Op, Trace, Value};

/// What the helpers of one run share; the code gets its address.
pub(super) struct RunContext {
    heap: *mut Heap,
    /// The trace whose code runs (linked code makes itself the trace).
    pub(super) trace: *const Trace,
    /// The runner of residual calls, its lifetime erased: it outlives the
    /// run, as `heap` does.
    calls: *mut (dyn ResidualCalls + 'static),
    /// The message of the error a helper found, if any.
    error: Option<String>,
}

impl RunContext {
    pub(super) fn new(heap: &mut Heap, trace: &Trace, calls: &mut dyn ResidualCalls) -> RunContext {
        // SAFETY: only the lifetime changes; the context lives only during
        // the run, while `calls` is borrowed.
        let calls: *mut (dyn ResidualCalls + 'static) =
            unsafe { std::mem::transmute(calls as *mut dyn ResidualCalls) };
        RunContext {
            heap,
            trace,
            calls,
            error: None,
        }
    }

    pub(super) fn take_error(&mut self) -> Option<String> {
        self.error.take()
    }

    /// # Safety
    /// `ctx` is the context `CompiledLoop::run` passed to the code, whose
    /// heap and trace outlive the run.
    unsafe fn parts<'a>(ctx: *mut RunContext) -> (&'a mut Heap, &'a Trace, &'a mut Option<String>) {
        let ctx = &mut *ctx;
        (&mut *ctx.heap, &*ctx.trace, &mut ctx.error)
    }
}

/// `new` / `new_with_vtable`: the address of a new object of descr
/// `descr`, or 0 with the error recorded.
pub(super) extern "sysv64" fn new_object(ctx: *mut RunContext, descr: usize) -> usize {
    // SAFETY: called by the code with the context of its run.
    let (heap, trace, error) = unsafe { RunContext::parts(ctx) };
    heap.new_object(trace, descr).unwrap_or_else(|e| {
        *error = Some(e);
        0
    })
}

/// `copystrcontent(source, dest, source_start, dest_start, length)`
/// (`copyunicodecontent` when `UNICODE`): 1, or 0 with the error recorded.
pub(super) extern "sysv64" fn copy_content<const UNICODE: bool>(
    ctx: *mut RunContext,
    source: u64,
    dest: u64,
    source_start: i64,
    dest_start: i64,
    length: i64,
) -> usize {
    // SAFETY: as in `new_object`.
    let (heap, trace, error) = unsafe { RunContext::parts(ctx) };
    let (name, _) = match UNICODE {
        true => rpy_jit::trace::UNICODE_ARRAY,
        false => rpy_jit::trace::STR_ARRAY,
    };
    let copied = match trace.header.descr(name) {
        Some(descr) => heap.copy_items(
            trace,
            descr,
            [source, dest],
            [source_start, dest_start, length],
        ),
        None => Err(format!("no '{name}' array")),
    };
    match copied {
        Ok(()) => 1,
        Err(e) => {
            *error = Some(e);
            0
        }
    }
}

/// `new_array`: the address of a new array of `n` zeroed items, or 0 with
/// the error recorded.
pub(super) extern "sysv64" fn new_array(ctx: *mut RunContext, descr: usize, n: i64) -> usize {
    // SAFETY: as in `new_object`.
    let (heap, trace, error) = unsafe { RunContext::parts(ctx) };
    heap.new_array(trace, descr, n).unwrap_or_else(|e| {
        *error = Some(e);
        0
    })
}

/// A registry function on the run's heap (`NativeFunc::with_heap`), by its
/// index in the registry, with up to three word arguments.
pub(super) extern "sysv64" fn call_heap_native(
    ctx: *mut RunContext,
    index: usize,
    a0: u64,
    a1: u64,
    a2: u64,
) -> u64 {
    // SAFETY: as in `new_object`.
    let (heap, _, error) = unsafe { RunContext::parts(ctx) };
    let Some(f) = rpy_jit::calls::by_index(index) else {
        *error = Some(format!("no native function {index}"));
        return 0;
    };
    let args = [a0, a1, a2];
    let args = &args[..f.args.len().min(3)];
    rpy_jit::calls::call(f, heap, args).unwrap_or(0)
}

/// Residual call `index` with the `n` words at `args`: 1 with the
/// result's word in `args[0]`, or 0 with the error recorded.
pub(super) extern "sysv64" fn call_residual(
    ctx: *mut RunContext,
    index: usize,
    args: *mut u64,
    n: usize,
) -> u64 {
    // SAFETY: as in `new_object`; the code stored the `n` words at `args`
    // in its frame (which has room for at least one) just before the call.
    let (heap, _, error) = unsafe { RunContext::parts(ctx) };
    let (calls, words) = unsafe { (&mut *(*ctx).calls, std::slice::from_raw_parts(args, n)) };
    match calls.call(heap, index, words) {
        Ok(result) => {
            unsafe { *args = result };
            1
        }
        Err(e) => {
            *error = Some(e);
            0
        }
    }
}

/// 1 when the last residual call raised (`guard_no_exception` fails).
pub(super) extern "sysv64" fn exception_pending(ctx: *mut RunContext) -> u64 {
    // SAFETY: as in `new_object`.
    unsafe { (*(*ctx).calls).exception_pending() as u64 }
}

/// 1 when `size` bytes at `addr` lie in a live object; else 0 with the
/// heap's message recorded (followed by " at op N" when `pc` >= 0).
pub(super) extern "sysv64" fn check_access(
    ctx: *mut RunContext,
    addr: usize,
    size: usize,
    pc: i64,
) -> u64 {
    // SAFETY: as in `new_object`.
    let (heap, _, error) = unsafe { RunContext::parts(ctx) };
    let ty = if size == 1 {
        LowLevelType::Char
    } else {
        LowLevelType::Signed
    };
    match heap.read(addr, &ty) {
        Ok(_) => 1,
        Err(e) if pc >= 0 => {
            *error = Some(format!("{e} at op {pc}"));
            0
        }
        Err(e) => {
            *error = Some(e);
            0
        }
    }
}

/// The bits of argument `i` of `op`, its box read from the frame (an error
/// exit stores the operation's arguments there).
fn arg_bits(trace: &Trace, op: &Op, i: usize, frame: &[u64]) -> u64 {
    match op.args[i] {
        Value::Box(b) => frame[b],
        Value::Int(n) => n as u64,
        Value::Float(bits) => bits,
        Value::NullPtr => 0,
        Value::ConstPtr(p) => p,
        Value::Class(d) => trace.header.class_id(d).unwrap_or(0),
    }
}

/// The interpreter's message for the error exit of op `pc`.
pub(super) fn error_message(trace: &Trace, pc: usize, frame: &[u64], heap: &Heap) -> String {
    let op = &trace.ops[pc];
    let name = op.opcode;
    let arg = |i: usize| arg_bits(trace, op, i, frame);
    let descr = op.descr.map(|d| &trace.header.descrs[d].data);
    if name == Opcode::GuardClass {
        return format!("guard_class on null at op {pc}");
    }
    if let Some(DescrData::Call { func }) = descr {
        return format!("cannot call '{}'", func.name);
    }
    let reads_memory = op.info().descr != DescrNeed::None && !name.is_allocation();
    if reads_memory && arg(0) == 0 {
        return format!("null pointer dereference at op {pc}");
    }
    if let (true, Some(DescrData::Array { length_offset, .. })) = (is_gc_item_access(name), descr) {
        let index = arg(1) as i64;
        return match heap.read(
            (arg(0) as usize).wrapping_add(*length_offset),
            &LowLevelType::Signed,
        ) {
            Ok(len) => format!(
                "index {index} out of bounds (length {}) at op {pc}",
                len as i64
            ),
            Err(e) => format!("{e} at op {pc}"),
        };
    }
    let args: Vec<i64> = (0..op.args.len()).map(|i| arg(i) as i64).collect();
    if name == Opcode::UintRshift {
        format!("shift by {} at op {pc}", args[1])
    } else {
        format!("{name} is undefined for {args:?} at op {pc}")
    }
}

/// `getarrayitem_gc_*` or `setarrayitem_gc`: an item access whose index
/// the array's length bounds.
fn is_gc_item_access(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::GetarrayitemGcI
            | Opcode::GetarrayitemGcF
            | Opcode::GetarrayitemGcR
            | Opcode::SetarrayitemGc
    )
}

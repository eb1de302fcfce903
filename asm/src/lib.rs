//! An x86-64 backend for the tracing JIT: turns a [`Trace`] into machine code
//! with `dynasmrt`, runs it on the interpreter's [`Heap`], and reports the
//! same [`Outcome`] as the reference interpreter (`rpy_jit::interp::run`).
//!
//! Every operation of `rpy_jit::trace::OPS` compiles; [`compile`] fails only
//! on a malformed trace (a wrong argument count, a missing descr, a call
//! with more arguments than registers), naming the operation.
//!
//! Code shape: the frame (a Rust `Vec<u64>`, base in `rbx`) has a slot per
//! box, then the slots of [`FrameLayout`]. `regalloc` gives each box one
//! home for its whole life: a general-purpose register, an SSE register
//! (floats) or its frame slot. Each operation loads its arguments into the
//! scratch registers (rax, rcx, rdx, r11, xmm0, xmm1), computes, and stores
//! the result in the result's home. One module per concern: `ints`,
//! `floats`, `guards`, `memory` (fields, arrays, allocation), `calls`
//! (native functions and runtime helpers with the SysV ABI), `control`
//! (label, jump, finish), `runtime` (the Rust side: helpers the code calls,
//! and rebuilding the interpreter's error messages).
//!
//! Memory: objects come from the interpreter's allocator (`Heap::new_object`
//! / `Heap::new_array`, called out of the code), so a run's memory is
//! comparable with the interpreter's. [`compile`] trusts GC pointers (null
//! and array bounds are checked inline, as the interpreter does, but a
//! pointer is assumed to point to an object of the descr's type, as in
//! PyPy); [`compile_checked`] also checks every address against the heap's
//! live objects before touching it, for traces from users.
//!
//! Exits: the generated function is `extern "sysv64" fn(frame) -> u64` and
//! returns an op index. A failing guard jumps to an out-of-line stub that
//! writes its fail-arg values to the output buffer and returns the guard's
//! index; `finish` writes its arguments and returns its index; a `jump` that
//! exhausts the iteration budget writes the label's values and returns its
//! index; an operation that is undefined for its arguments returns its own
//! index after storing its arguments in their frame slots, and `runtime`
//! rebuilds the interpreter's message; falling off the end returns
//! `ops.len()`.

// dynasm's dynamic registers (`Rq(r)`) expand to `r.into()`.
#![allow(clippy::useless_conversion)]

mod calls;
mod control;
mod floats;
mod guards;
mod ints;
mod linking;
mod memory;
pub mod regalloc;
mod runtime;

use rpy_jit::trace::Opcode;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use dynasmrt::x64::Assembler;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi, ExecutableBuffer};
use rpy_jit::interp::{Heap, Outcome, RunValue};
use rpy_jit::native::loops::ProgramMemory;
use rpy_jit::trace::{DescrData, DescrNeed, Op, Trace, Value};

use regalloc::{Allocation, Home};

type EntryFn = unsafe extern "sysv64" fn(frame: *mut u64) -> u64;

/// Scratch registers. (rbx holds the frame base, r15 the loop's remaining
/// iteration budget: both callee-saved, so calls keep them.)
const RAX: u8 = 0;
const RCX: u8 = 1;
const RDX: u8 = 2;

/// Added to the op index an error exit returns.
const ERROR_EXIT: usize = 1 << 30;

/// The frame slots after the boxes' own.
#[derive(Clone, Copy, Debug)]
struct FrameLayout {
    /// The overflow flag the `_ovf` operations set and the overflow guards
    /// read (other operations may come between them).
    ovf: usize,
    /// The iteration budget, read on entry.
    counter: usize,
    /// The address of the run's `runtime::RunContext`.
    context: usize,
    /// The address of the output buffer.
    out: usize,
    /// Where a checked access keeps its address across the check.
    scratch: usize,
    /// The staging area of `jump`'s parallel move and of call arguments.
    staging: usize,
    /// Where caller-saved registers go across a call: 16 general-purpose
    /// then 16 SSE.
    saves: usize,
    len: usize,
}

fn disp(slot: usize) -> i32 {
    (slot * 8) as i32
}

/// What an out-of-line stub does before returning its op index.
enum Exit {
    /// Writes these values to the output buffer.
    Values(Vec<Value>),
    /// Stores these argument boxes in their frame slots (an undefined
    /// operation; the Rust side reads them to build the message).
    Error(Vec<Value>),
}

/// Whether the code checks every address against the heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Checks {
    Trusting,
    Checked,
}

struct Gen<'t> {
    trace: &'t Trace,
    asm: Assembler,
    stubs: Vec<(DynamicLabel, usize, Exit)>,
    epilogue: DynamicLabel,
    frame: FrameLayout,
    alloc: Allocation,
    checks: Checks,
    /// Boxes known not to be null here (checked, guarded or allocated
    /// earlier in the straight-line code since the last label).
    nonnull: HashSet<usize>,
    /// The trace makes residual calls, so `guard_no_exception` asks the
    /// run's runner (without them it always passes).
    has_residual_calls: bool,
    /// For an array box, a live box holding its length (from `arraylen_gc`
    /// since the last label), so a bounds check need not load it again.
    known_length: HashMap<usize, usize>,
    /// For code that runs on a translated program's memory: its allocator
    /// and collector (else objects come from the run's `Heap`).
    memory: Option<ProgramMemory>,
    /// For code whose exits may be linked to other traces' code.
    links: Option<linking::LinkSites>,
    /// For code whose residual calls go straight to C.
    direct_calls: Option<Rc<rpy_jit::native::loops::DirectCalls>>,
}

impl Gen<'_> {
    fn home(&self, b: usize) -> Home {
        self.alloc.homes[b]
    }

    fn const_bits(&self, v: Value) -> u64 {
        match v {
            Value::Box(_) => unreachable!("not a constant"),
            Value::Int(i) => i as u64,
            Value::Float(bits) => bits,
            Value::NullPtr => 0,
            Value::ConstPtr(p) => p,
            Value::Class(d) => self.trace.header.class_id(d).unwrap_or(0),
        }
    }

    /// A general-purpose register holding `v`: its home, or `scratch` after
    /// loading it there.
    fn in_register(&mut self, v: Value, scratch: u8) -> u8 {
        match v {
            Value::Box(b) => match self.home(b) {
                Home::Gp(r) => r,
                _ => {
                    self.load(scratch, v);
                    scratch
                }
            },
            _ => {
                self.load(scratch, v);
                scratch
            }
        }
    }

    /// `reg = v` (the bits of any kind; flags are kept).
    fn load(&mut self, reg: u8, v: Value) {
        match v {
            Value::Box(b) => match self.home(b) {
                Home::Gp(r) if r == reg => {}
                Home::Gp(r) => dynasm!(self.asm ; .arch x64 ; mov Rq(reg), Rq(r)),
                Home::Xmm(x) => dynasm!(self.asm ; .arch x64 ; movq Rq(reg), Rx(x)),
                Home::Slot => {
                    let d = disp(b);
                    dynasm!(self.asm ; .arch x64 ; mov Rq(reg), QWORD [rbx + d]);
                }
            },
            c => self.load_const(reg, self.const_bits(c) as i64),
        }
    }

    fn load_const(&mut self, reg: u8, bits: i64) {
        match i32::try_from(bits) {
            Ok(imm) => dynasm!(self.asm ; .arch x64 ; mov Rq(reg), DWORD imm),
            Err(_) => dynasm!(self.asm ; .arch x64 ; mov Rq(reg), QWORD bits),
        }
    }

    /// `box = reg` (the bits of any kind).
    fn store_box(&mut self, b: usize, reg: u8) {
        match self.home(b) {
            Home::Gp(r) if r == reg => {}
            Home::Gp(r) => dynasm!(self.asm ; .arch x64 ; mov Rq(r), Rq(reg)),
            Home::Xmm(x) => dynasm!(self.asm ; .arch x64 ; movq Rx(x), Rq(reg)),
            Home::Slot => {
                let d = disp(b);
                dynasm!(self.asm ; .arch x64 ; mov QWORD [rbx + d], Rq(reg));
            }
        }
    }

    /// `frame[slot] = reg`.
    fn store_slot(&mut self, slot: usize, reg: u8) {
        let d = disp(slot);
        dynasm!(self.asm ; .arch x64 ; mov QWORD [rbx + d], Rq(reg));
    }

    /// `reg = frame[slot]`.
    fn load_slot(&mut self, reg: u8, slot: usize) {
        let d = disp(slot);
        dynasm!(self.asm ; .arch x64 ; mov Rq(reg), QWORD [rbx + d]);
    }

    /// A new out-of-line stub for op `pc`.
    fn stub(&mut self, pc: usize, exit: Exit) -> DynamicLabel {
        let l = self.asm.new_dynamic_label();
        self.stubs.push((l, pc, exit));
        l
    }

    /// The stub of an operation that is undefined for its arguments.
    fn error_stub(&mut self, pc: usize, op: &Op) -> DynamicLabel {
        self.stub(pc, Exit::Error(op.args.clone()))
    }

    /// The stub of a failing guard.
    fn fail_stub(&mut self, pc: usize, op: &Op) -> DynamicLabel {
        self.stub(pc, Exit::Values(op.fail_args.clone().unwrap_or_default()))
    }

    /// Saves the callee-saved registers, aligns the stack for calls, and
    /// loads the frame base, the iteration budget and the register-held
    /// inputs.
    fn prologue(&mut self) {
        let counter = disp(self.frame.counter);
        dynasm!(self.asm
            ; .arch x64
            ; push rbx
            ; push rbp
            ; push r12
            ; push r13
            ; push r14
            ; push r15
            ; sub rsp, 8
            ; mov rbx, rdi
            ; mov r15, QWORD [rbx + counter]
        );
        for b in self.trace.inputs.clone() {
            match self.home(b) {
                Home::Slot => {}
                _ => {
                    self.load_slot(RAX, b);
                    self.store_box(b, RAX);
                }
            }
        }
    }

    /// Returns `eax` (an op index) to the caller.
    fn emit_epilogue(&mut self) {
        let l = self.epilogue;
        dynasm!(self.asm
            ; .arch x64
            ; =>l
            ; add rsp, 8
            ; pop r15
            ; pop r14
            ; pop r13
            ; pop r12
            ; pop rbp
            ; pop rbx
            ; ret
        );
    }

    /// Leaves the code, returning op index `pc` (with the trace's id above
    /// it when the code may be linked: see `linking`).
    fn ret_index(&mut self, pc: usize) {
        let l = self.epilogue;
        match &self.links {
            Some(sites) => {
                let tagged = ((sites.id() as u64) << 32 | pc as u64) as i64;
                dynasm!(self.asm ; .arch x64 ; mov rax, QWORD tagged ; jmp =>l);
            }
            None => {
                let i = pc as i32;
                dynasm!(self.asm ; .arch x64 ; mov eax, DWORD i ; jmp =>l);
            }
        }
    }

    /// Writes the bits of `vals` to the output buffer.
    fn write_out(&mut self, vals: &[Value]) {
        if vals.is_empty() {
            return;
        }
        self.load_slot(RDX, self.frame.out);
        for (i, v) in vals.iter().enumerate() {
            self.load(RAX, *v);
            let d = disp(i);
            dynasm!(self.asm ; .arch x64 ; mov QWORD [rdx + d], rax);
        }
    }

    /// Emits one operation.
    fn op(&mut self, pc: usize, op: &Op, label: &mut control::LoopHead) -> Result<(), String> {
        let name = op.opcode;
        match name {
            Opcode::Label | Opcode::Jump | Opcode::Finish => return self.control(pc, op, label),
            _ => {}
        }
        if op.is_guard() {
            return self.guard(pc, op);
        }
        if name.is_call() {
            return self.call(pc, op);
        }
        if op.info().descr != DescrNeed::None {
            return self.memory(pc, op);
        }
        if is_float_unit_op(name) {
            return self.float_op(op);
        }
        self.int_op(pc, op)
    }

    /// Emits the stubs after the main code.
    fn emit_stubs(&mut self) {
        for (l, pc, exit) in std::mem::take(&mut self.stubs) {
            dynasm!(self.asm ; .arch x64 ; =>l);
            match exit {
                Exit::Values(vals) => {
                    self.write_out(&vals);
                    let trace = self.trace;
                    self.linked_guard_exit(&trace.ops[pc]);
                    self.ret_index(pc);
                }
                Exit::Error(args) => {
                    for v in args {
                        if let Value::Box(b) = v {
                            if self.home(b) != Home::Slot {
                                self.load(RAX, v);
                                self.store_slot(b, RAX);
                            }
                        }
                    }
                    self.ret_index(pc | ERROR_EXIT);
                }
            }
        }
    }
}

fn unsupported(op: &Op) -> String {
    format!("x86_64 backend: unsupported operation '{}'", op.name())
}

/// Checks what the code generator relies on: argument counts, descrs of the
/// right sort, jump arities. Returns (largest output, largest staging area).
fn check_shape(trace: &Trace) -> Result<(usize, usize), String> {
    let mut label: Option<usize> = None;
    let mut max_out = 0usize;
    let mut max_staging = 0usize;
    for (pc, op) in trace.ops.iter().enumerate() {
        let name = op.opcode;
        if let Some(n) = op.info().arity() {
            if op.args.len() != n {
                return Err(format!(
                    "op {pc} ({name}) has {} argument(s), not {n}",
                    op.args.len()
                ));
            }
        }
        let descr = op
            .descr
            .and_then(|d| trace.header.descrs.get(d))
            .map(|d| &d.data);
        let fits = matches!(
            (op.info().descr, descr),
            (DescrNeed::None, _)
                | (DescrNeed::Field, Some(DescrData::Field { .. }))
                | (DescrNeed::Array, Some(DescrData::Array { .. }))
                | (
                    DescrNeed::Size | DescrNeed::Class,
                    Some(DescrData::Size { .. } | DescrData::Class { .. })
                )
                | (
                    DescrNeed::Call,
                    Some(DescrData::Call { .. } | DescrData::Residual(_))
                )
                | (
                    DescrNeed::Str | DescrNeed::Unicode,
                    Some(DescrData::Array { .. })
                )
        );
        if !fits {
            return Err(format!(
                "op {pc} ({name}) needs a {:?} descr",
                op.info().descr
            ));
        }
        if let Some(DescrData::Call { func }) = descr {
            calls::check_signature(func)?;
            max_staging = max_staging.max(op.args.len());
        }
        if let Some(DescrData::Residual(_)) = descr {
            // the helper's four arguments, then the call's own words
            max_staging = max_staging.max(calls::RESIDUAL_ARGS_AT + op.args.len().max(1));
        }
        if matches!(name, Opcode::Copystrcontent | Opcode::Copyunicodecontent) {
            // copystrcontent's helper takes the context and five values
            max_staging = max_staging.max(1 + op.args.len());
        }
        match name {
            Opcode::Label => label = Some(pc),
            Opcode::Jump => {
                // without a label, a jump goes back to the start
                let targets = match label {
                    Some(l) => trace.ops[l].args.len(),
                    None => trace.inputs.len(),
                };
                if targets != op.args.len() {
                    return Err(format!(
                        "jump passes {} value(s) to a label of {targets}",
                        op.args.len()
                    ));
                }
                max_staging = max_staging.max(targets);
                max_out = max_out.max(targets);
            }
            Opcode::Finish => max_out = max_out.max(op.args.len()),
            _ => {}
        }
        if let Some(f) = &op.fail_args {
            max_out = max_out.max(f.len());
        }
    }
    Ok((max_out, max_staging))
}

/// A trace compiled to machine code.
pub struct CompiledLoop {
    code: ExecutableBuffer,
    trace: Arc<Trace>,
    frame: FrameLayout,
    out_len: usize,
    /// For code in an executable: where its exits may go on into other
    /// traces' code.
    links: Option<linking::Links>,
}

impl std::fmt::Debug for CompiledLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledLoop")
            .field("code_size", &self.code.len())
            .field("frame_len", &self.frame.len)
            .finish()
    }
}

/// A trace compiled code keeps, to report its outcomes: a borrowed one is
/// copied, an owned or shared one is kept as it is (copying took a fifth
/// of assembling the benchmark trace).
pub trait KeptTrace {
    fn into_kept(self) -> Arc<Trace>;
}

impl KeptTrace for &Trace {
    fn into_kept(self) -> Arc<Trace> {
        Arc::new(self.clone())
    }
}

impl KeptTrace for Trace {
    fn into_kept(self) -> Arc<Trace> {
        Arc::new(self)
    }
}

impl KeptTrace for Arc<Trace> {
    fn into_kept(self) -> Arc<Trace> {
        self
    }
}

/// Compiles `trace` to machine code that trusts GC pointers to point to
/// objects of their descr's type; an error naming the operation when the
/// trace is malformed.
pub fn compile(trace: impl KeptTrace) -> Result<CompiledLoop, String> {
    let trace = trace.into_kept();
    let alloc = regalloc::assign(&trace);
    compile_with(trace, Checks::Trusting, alloc, None, None, None)
}

/// Compiles `trace` to machine code that runs on a translated program's
/// memory: objects come from its allocator, and its moving collector (if
/// it has one) is told of the GC pointers the code holds at each call that
/// may collect and of each GC pointer stored.
pub fn compile_for_program(
    trace: impl KeptTrace,
    memory: ProgramMemory,
) -> Result<CompiledLoop, String> {
    let trace = trace.into_kept();
    let alloc = regalloc::assign(&trace);
    compile_with(trace, Checks::Trusting, alloc, Some(memory), None, None)
}

/// Compiles `trace` to machine code that checks every memory access
/// against the heap's live objects, like the interpreter (for traces and
/// inputs from users: a stray pointer is an error, never a crash).
pub fn compile_checked(trace: impl KeptTrace) -> Result<CompiledLoop, String> {
    let trace = trace.into_kept();
    let alloc = regalloc::assign(&trace);
    compile_with(trace, Checks::Checked, alloc, None, None, None)
}

/// [`compile`] with only the given registers for boxes (tests force
/// spilling with few).
pub fn compile_with_registers(
    trace: impl KeptTrace,
    gp: &[u8],
    xmm: &[u8],
) -> Result<CompiledLoop, String> {
    let bad = |r: &u8| !regalloc::GP_REGISTERS.contains(r);
    if gp.iter().any(bad) || xmm.iter().any(|r| !regalloc::XMM_REGISTERS.contains(r)) {
        return Err("x86_64 backend: not an allocatable register".into());
    }
    let trace = trace.into_kept();
    let alloc = regalloc::assign_with(&trace, gp, xmm);
    compile_with(trace, Checks::Trusting, alloc, None, None, None)
}

fn compile_with(
    kept: Arc<Trace>,
    checks: Checks,
    alloc: Allocation,
    memory: Option<ProgramMemory>,
    links: Option<(usize, Rc<linking::Registry>)>,
    direct_calls: Option<Rc<rpy_jit::native::loops::DirectCalls>>,
) -> Result<CompiledLoop, String> {
    let trace = &*kept;
    let (max_out, max_staging) = check_shape(trace)?;
    let n = trace.boxes.len();
    let frame = FrameLayout {
        ovf: n,
        counter: n + 1,
        context: n + 2,
        out: n + 3,
        scratch: n + 4,
        staging: n + 5,
        saves: n + 5 + max_staging,
        len: n + 5 + max_staging + 32,
    };
    if frame.len.max(max_out).max(trace.ops.len()) >= (1 << 27) {
        return Err("x86_64 backend: trace too large".into());
    }
    let mut asm = Assembler::new().map_err(|e| format!("x86_64 backend: {e}"))?;
    let epilogue = asm.new_dynamic_label();
    let mut g = Gen {
        trace,
        asm,
        stubs: Vec::new(),
        epilogue,
        frame,
        alloc,
        checks,
        nonnull: HashSet::new(),
        has_residual_calls: trace
            .header
            .descrs
            .iter()
            .any(|d| matches!(d.data, DescrData::Residual(_))),
        known_length: HashMap::new(),
        memory,
        links: links.map(|(id, registry)| linking::LinkSites::new(trace, id, registry)),
        // Straight to C only when every residual call of the trace can be:
        // `guard_no_exception` then looks at the program's exception state.
        direct_calls: direct_calls.filter(|direct| {
            trace.header.descrs.iter().all(|d| match &d.data {
                DescrData::Residual(call) => {
                    matches!(direct.by_site.get(call.index), Some(Some(_)))
                }
                _ => true,
            })
        }),
    };
    g.prologue();
    let mut head = control::LoopHead::start(&mut g);
    if let Some(sites) = &mut g.links {
        sites.body = Some(head.target());
    }
    let uses = guards::use_counts(trace);
    let mut pc = 0;
    while pc < trace.ops.len() {
        let op = &trace.ops[pc];
        if let Some(next) = trace.ops.get(pc + 1) {
            if g.fused_guard(pc, op, next, &uses) {
                pc += 2;
                continue;
            }
        }
        g.op(pc, op, &mut head)?;
        pc += 1;
    }
    g.ret_index(trace.ops.len());
    g.emit_stubs();
    g.emit_epilogue();
    let entry = g.emit_linked_entry();
    let links = match (g.links.take(), entry) {
        (Some(sites), Some(entry)) => Some(sites.into_links(entry)),
        _ => None,
    };
    let code = g
        .asm
        .finalize()
        .map_err(|_| "x86_64 backend: could not finalize the code".to_string())?;
    if let Some(links) = &links {
        links.registry.register(links.id, &kept, frame.len, max_out);
    }
    Ok(CompiledLoop {
        code,
        trace: kept,
        frame,
        out_len: max_out,
        links,
    })
}

impl CompiledLoop {
    /// The size of the machine code in bytes.
    pub fn code_size(&self) -> usize {
        self.code.len()
    }

    /// The machine code (entry at offset 0), e.g. for a disassembler.
    pub fn code(&self) -> &[u8] {
        &self.code
    }

    /// The trace this code was compiled from.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// Runs the code from `inputs` (one per input box, of its kind) on
    /// `heap` for at most `iteration_limit` loop iterations, exactly as
    /// `rpy_jit::interp::run` does (a limit of 0 acts as 1).
    pub fn run(&self, inputs: &[RunValue], heap: &mut Heap, iteration_limit: u64) -> Outcome {
        self.run_with_calls(
            inputs,
            heap,
            iteration_limit,
            &mut rpy_jit::interp::NoResidualCalls,
        )
    }

    /// [`CompiledLoop::run`], with `calls` running the trace's residual
    /// calls.
    pub fn run_with_calls(
        &self,
        inputs: &[RunValue],
        heap: &mut Heap,
        iteration_limit: u64,
        calls: &mut dyn rpy_jit::interp::ResidualCalls,
    ) -> Outcome {
        self.run_linked(inputs, heap, iteration_limit, calls, None)
            .0
    }

    /// [`CompiledLoop::run_with_calls`], with a failing guard's removed
    /// objects rebuilt in `objects` (when given) rather than in `heap`;
    /// also the id of the trace whose exit the run left from (this one's
    /// unless its code is linked).
    fn run_linked(
        &self,
        inputs: &[RunValue],
        heap: &mut Heap,
        iteration_limit: u64,
        calls: &mut dyn rpy_jit::interp::ResidualCalls,
        objects: Option<&mut dyn rpy_jit::interp::ObjectMemory>,
    ) -> (Outcome, usize) {
        let own_id = self.links.as_ref().map_or(0, |l| l.id);
        let t = &self.trace;
        if let Err(e) = rpy_jit::interp::check_inputs(t, inputs) {
            return (Outcome::Error(e), own_id);
        }
        // Linked code runs on in this frame and buffer: they are as large
        // as any linked trace needs.
        let (frame_len, out_len) = match &self.links {
            Some(l) => (
                self.frame.len.max(l.registry.frame_len()),
                self.out_len.max(l.registry.out_len()),
            ),
            None => (self.frame.len, self.out_len),
        };
        let mut frame = vec![0u64; frame_len];
        for (b, v) in t.inputs.iter().zip(inputs) {
            frame[*b] = v.bits();
        }
        frame[self.frame.counter] = iteration_limit.min(i64::MAX as u64);
        let mut out = vec![0u64; out_len.max(1)];
        let mut context = runtime::RunContext::new(heap, t, calls);
        frame[self.frame.context] = &mut context as *mut runtime::RunContext as u64;
        frame[self.frame.out] = out.as_mut_ptr() as u64;
        // SAFETY: the code was generated for this trace and this frame
        // layout: it reads and writes the frame and `out` within their
        // lengths, touches memory only through pointers the trace computes
        // (checked against the heap when compiled with checks; trusted to be
        // objects of the descr's type otherwise, see `compile`), calls only
        // the registry's functions and `runtime`'s helpers with the SysV
        // ABI, restores the callee-saved registers and always returns.
        // Linked code goes on only into code of the same registry, whose
        // frame and buffer fit in these.
        let exit = unsafe {
            let f: EntryFn = std::mem::transmute(self.code.ptr(dynasmrt::AssemblyOffset(0)));
            f(frame.as_mut_ptr())
        };
        let (left, pc) = match &self.links {
            Some(_) => ((exit >> 32) as usize, (exit & 0xffff_ffff) as usize),
            None => (own_id, exit as usize),
        };
        let left_trace = match &self.links {
            Some(l) if left != own_id => match l.registry.trace(left) {
                Some(t) => t,
                None => {
                    return (
                        Outcome::Error(format!("left from unknown trace {left}")),
                        own_id,
                    )
                }
            },
            _ => self.trace.clone(),
        };
        let t = &*left_trace;
        let outcome = (|| {
            if let Some(e) = context.take_error() {
                return Outcome::Error(e);
            }
            if pc & ERROR_EXIT != 0 {
                let pc = pc & !ERROR_EXIT;
                return Outcome::Error(runtime::error_message(t, pc, &frame, heap));
            }
            let values = |vs: &[Value]| -> Vec<RunValue> {
                vs.iter()
                    .zip(&out)
                    .map(|(v, bits)| RunValue::from_bits(t.kind(*v), *bits))
                    .collect()
            };
            let Some(op) = t.ops.get(pc) else {
                return Outcome::Error("the trace ends without finish or jump".into());
            };
            match op.opcode {
                Opcode::Finish => Outcome::Finished(values(&op.args)),
                Opcode::Jump => Outcome::LoopLimit {
                    values: values(&control::jump_targets(t, pc)),
                },
                _ => {
                    let saved = values(op.fail_args.as_deref().unwrap_or(&[]));
                    match objects {
                        Some(objects) => rpy_jit::interp::guard_failed(t, pc, saved, objects),
                        None => rpy_jit::interp::guard_failed(t, pc, saved, heap),
                    }
                }
            }
        })();
        (outcome, left)
    }
}

/// Machine code as the meta-interpreter's backend (`rpy interp --jit`):
/// loops are compiled with every memory access checked against the
/// LLInterpreter's heap, which they run on, so a wrong trace is an error,
/// never a crash.
pub struct MachineCode;

impl rpy_jit::metainterp::LoopBackend for MachineCode {
    fn compile(&self, trace: Trace) -> Result<Box<dyn rpy_jit::metainterp::RunnableLoop>, String> {
        Ok(Box::new(compile_checked(trace)?))
    }
}

impl rpy_jit::metainterp::RunnableLoop for CompiledLoop {
    fn trace(&self) -> &Trace {
        &self.trace
    }

    fn run(
        &self,
        inputs: &[RunValue],
        heap: &mut Heap,
        calls: &mut dyn rpy_jit::interp::ResidualCalls,
    ) -> Outcome {
        self.run_with_calls(inputs, heap, u64::MAX, calls)
    }
}

/// Machine code as the executables' JIT backend (`rpy translate --jit`):
/// loops run on the translated program's own memory, trusting its
/// pointers as its C code does, and their exits are linked (`linking`).
#[derive(Default)]
pub struct NativeMachineCode {
    registry: Rc<linking::Registry>,
}

impl rpy_jit::native::loops::NativeBackend for NativeMachineCode {
    fn compile(
        &self,
        trace: Trace,
        id: usize,
        memory: ProgramMemory,
        direct: Option<Rc<rpy_jit::native::loops::DirectCalls>>,
    ) -> Result<Box<dyn rpy_jit::native::loops::NativeLoop>, String> {
        let trace = trace.into_kept();
        let alloc = regalloc::assign(&trace);
        let links = Some((id, self.registry.clone()));
        Ok(Box::new(compile_with(
            trace,
            Checks::Trusting,
            alloc,
            Some(memory),
            links,
            direct,
        )?))
    }

    fn linked_failures(&self) -> u64 {
        self.registry.linked_failures()
    }
}

impl rpy_jit::native::loops::NativeLoop for CompiledLoop {
    fn trace(&self) -> &Trace {
        &self.trace
    }

    fn link(
        &self,
        exit: rpy_jit::metainterp::LinkedExit,
        to: &dyn rpy_jit::native::loops::NativeLoop,
    ) {
        let entry = to.linked_entry();
        if entry != 0 {
            self.link_exit(exit, entry);
        }
    }

    fn linked_entry(&self) -> usize {
        self.linked_entry_address()
    }

    fn run(
        &self,
        inputs: &[RunValue],
        calls: &mut dyn rpy_jit::interp::ResidualCalls,
        objects: &mut dyn rpy_jit::interp::ObjectMemory,
    ) -> (Outcome, usize) {
        // The executables' loops allocate with the program's allocator
        // and rebuild removed objects in `objects`, so the helpers' heap
        // stays empty.
        let mut heap = Heap::default();
        self.run_linked(inputs, &mut heap, u64::MAX, calls, Some(objects))
    }
}

/// The operations the SSE unit computes (asked after calls and memory
/// operations are dispatched): those that take or yield a float.
fn is_float_unit_op(op: Opcode) -> bool {
    let info = op.info();
    info.args.contains('f') || info.result == rpy_jit::trace::Kind::Float
}

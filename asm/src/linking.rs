//! Linked exits, for code that runs in an executable: where a guard that
//! has a bridge fails, or a bridge finishes at the merge point of a loop,
//! the code goes straight on into the other trace's code instead of
//! returning to the runtime, which would rebuild its inputs and call it
//! (the original patches the guard's jump to the bridge in the same way).
//!
//! Every trace of one [`Registry`] runs in one frame, as large as the
//! largest of theirs, with the same callee-saved registers pushed, so one
//! trace's exit can go on into another's code:
//! - a guard's stub writes its fail args to the output buffer as it
//!   always does, then (unless the guard rebuilds objects the optimizer
//!   removed) reads the link cell of its resume index; when the
//!   cell holds an address it jumps there with the run's context in rdi,
//!   the output buffer in rsi and the first value the next trace takes in
//!   rdx (after the resume index); a `finish` does the same with its
//!   arguments;
//! - each trace's linked entry stores the context and the buffer in its
//!   own frame slots, makes itself the context's trace (its helpers read
//!   its descrs), loads its inputs from rdx and goes on at its start;
//! - the code returns `(id << 32) | op index`, so the runtime knows whose
//!   operation the run left from.
//!
//! A link is written by [`CompiledLoop::link`] once the runtime has seen
//! the run go that way (`rpy_jit::metainterp`).

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi};
use rpy_jit::trace::{Op, Trace, Value};

use super::{disp, runtime, CompiledLoop, Gen, RAX};

/// The traces one runtime compiled, which may go on into each other.
#[derive(Default)]
pub(super) struct Registry {
    /// By id: what the runtime reads an exit of that trace against.
    traces: RefCell<Vec<Option<Arc<Trace>>>>,
    /// The largest frame and output buffer of any of them.
    frame_len: Cell<usize>,
    out_len: Cell<usize>,
    /// Guards that failed straight into a bridge (the code counts them).
    linked_failures: Box<AtomicU64>,
}

impl Registry {
    pub(super) fn register(&self, id: usize, trace: &Arc<Trace>, frame_len: usize, out_len: usize) {
        let mut traces = self.traces.borrow_mut();
        if traces.len() <= id {
            traces.resize(id + 1, None);
        }
        traces[id] = Some(trace.clone());
        self.frame_len.set(self.frame_len.get().max(frame_len));
        self.out_len.set(self.out_len.get().max(out_len));
    }

    pub(super) fn trace(&self, id: usize) -> Option<Arc<Trace>> {
        self.traces.borrow().get(id).cloned().flatten()
    }

    pub(super) fn frame_len(&self) -> usize {
        self.frame_len.get()
    }

    pub(super) fn out_len(&self) -> usize {
        self.out_len.get()
    }

    pub(super) fn linked_failures(&self) -> u64 {
        self.linked_failures.load(Ordering::Relaxed)
    }

    fn failures_counter(&self) -> usize {
        &*self.linked_failures as *const AtomicU64 as usize
    }
}

/// One trace's part in linking: its id, and a cell per resume index of
/// its guards (then one for its `finish`) holding where that exit goes on,
/// or 0.
pub(super) struct Links {
    pub(super) id: usize,
    pub(super) registry: Rc<Registry>,
    cells: Box<[AtomicUsize]>,
    /// The offset of the linked entry in the code.
    pub(super) entry: dynasmrt::AssemblyOffset,
}

/// The resume index a guard's fail args start with (as the
/// meta-interpreter's traces do).
fn resume_index(op: &Op) -> Option<usize> {
    match op.fail_args.as_deref()?.first()? {
        Value::Int(i) => usize::try_from(*i).ok(),
        _ => None,
    }
}

/// What code generation needs to link a trace's exits.
pub(super) struct LinkSites {
    id: usize,
    registry: Rc<Registry>,
    cells: Box<[AtomicUsize]>,
    /// The trace's start, after its prologue.
    pub(super) body: Option<DynamicLabel>,
}

impl LinkSites {
    pub(super) fn new(trace: &Trace, id: usize, registry: Rc<Registry>) -> LinkSites {
        let guards = trace
            .ops
            .iter()
            .filter_map(resume_index)
            .max()
            .map_or(0, |m| m + 1);
        // The last cell is the finish's.
        let cells = (0..=guards).map(|_| AtomicUsize::new(0)).collect();
        LinkSites {
            id,
            registry,
            cells,
            body: None,
        }
    }

    fn cell(&self, index: usize) -> usize {
        &self.cells[index] as *const AtomicUsize as usize
    }

    fn finish_cell(&self) -> usize {
        self.cell(self.cells.len() - 1)
    }

    pub(super) fn id(&self) -> usize {
        self.id
    }

    pub(super) fn into_links(self, entry: dynasmrt::AssemblyOffset) -> Links {
        Links {
            id: self.id,
            registry: self.registry,
            cells: self.cells,
            entry,
        }
    }
}

impl Gen<'_> {
    /// After a guard's stub wrote its fail args (`op` at `pc`): goes on
    /// into the bridge its resume index is linked to, if any.
    pub(super) fn linked_guard_exit(&mut self, op: &Op) {
        // A guard that rebuilds removed objects leaves through the runtime,
        // which allocates them (`rpy_jit::interp::guard_failed`).
        if op.resume.is_some() {
            return;
        }
        let Some(index) = resume_index(op) else {
            return;
        };
        let Some(sites) = &self.links else { return };
        let cell = sites.cell(index);
        let counter = sites.registry.failures_counter() as i64;
        self.linked_exit(cell, 1, Some(counter));
    }

    /// After a `finish` wrote its arguments: goes on into the loop it is
    /// linked to, if any.
    pub(super) fn linked_finish_exit(&mut self) {
        let Some(sites) = &self.links else { return };
        let cell = sites.finish_cell();
        self.linked_exit(cell, 0, None);
    }

    /// Jumps to the address in `cell` unless it is 0, with rdi = the
    /// context, rsi = the output buffer and rdx = its value `skip`;
    /// counting the jump in `counter`.
    fn linked_exit(&mut self, cell: usize, skip: i32, counter: Option<i64>) {
        let unlinked = self.asm.new_dynamic_label();
        let context = disp(self.frame.context);
        let out = disp(self.frame.out);
        let first = skip * 8;
        dynasm!(self.asm
            ; .arch x64
            ; mov rax, QWORD cell as i64
            ; mov rax, QWORD [rax]
            ; test rax, rax
            ; jz =>unlinked
        );
        if let Some(counter) = counter {
            dynasm!(self.asm
                ; .arch x64
                ; mov rcx, QWORD counter
                ; add QWORD [rcx], 1
            );
        }
        dynasm!(self.asm
            ; .arch x64
            ; mov rdi, QWORD [rbx + context]
            ; mov rsi, QWORD [rbx + out]
            ; lea rdx, [rsi + first]
            ; jmp rax
            ; =>unlinked
        );
    }

    /// The linked entry (see the module's comment); its offset.
    pub(super) fn emit_linked_entry(&mut self) -> Option<dynasmrt::AssemblyOffset> {
        let body = self.links.as_ref()?.body?;
        let entry = self.asm.offset();
        let context = disp(self.frame.context);
        let out = disp(self.frame.out);
        let trace = self.trace as *const Trace as i64;
        let trace_field = std::mem::offset_of!(runtime::RunContext, trace) as i32;
        dynasm!(self.asm
            ; .arch x64
            ; mov QWORD [rbx + context], rdi
            ; mov QWORD [rbx + out], rsi
            ; mov rax, QWORD trace
            ; mov QWORD [rdi + trace_field], rax
        );
        for (k, b) in self.trace.inputs.clone().into_iter().enumerate() {
            let d = (k * 8) as i32;
            dynasm!(self.asm ; .arch x64 ; mov rax, QWORD [rdx + d]);
            self.store_box(b, RAX);
        }
        dynasm!(self.asm ; .arch x64 ; jmp =>body);
        Some(entry)
    }
}

impl CompiledLoop {
    /// See [`rpy_jit::native::loops::NativeLoop::link`].
    pub(super) fn link_exit(&self, exit: rpy_jit::metainterp::LinkedExit, to: usize) {
        let Some(links) = &self.links else { return };
        let cell = match exit {
            rpy_jit::metainterp::LinkedExit::Guard(index) if index + 1 < links.cells.len() => {
                &links.cells[index]
            }
            rpy_jit::metainterp::LinkedExit::Guard(_) => return,
            rpy_jit::metainterp::LinkedExit::Finish => &links.cells[links.cells.len() - 1],
        };
        cell.store(to, Ordering::Relaxed);
    }

    /// The address of the linked entry, or 0 when the code has none.
    pub(super) fn linked_entry_address(&self) -> usize {
        self.links
            .as_ref()
            .map_or(0, |l| self.code.ptr(l.entry) as usize)
    }
}

//! Calls with the SysV ABI: the native functions of `rpy_jit::calls` (for
//! `call_*`, `call_pure_*`, `call_may_force_*`) and `runtime`'s helpers.
//!
//! Arguments are first staged in the frame (so a box living in an argument
//! register cannot be overwritten before it is read), then loaded into
//! rdi, rsi, rdx, rcx, r8, r9 (words) and xmm0-xmm7 (doubles). The
//! caller-saved registers holding boxes that are live at the call are saved
//! in the frame and restored after it. The stack is 16-byte aligned by the
//! prologue. The result comes back in rax (its bits, for a double).

use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi};
use rpy_jit::calls::NativeFunc;
use rpy_jit::trace::{DescrData, Kind, Op, Value};

use super::regalloc::{Home, CALLER_SAVED_GP};
use super::{unsupported, Gen, RAX, RCX};

/// The scratch register arguments are staged through (not an argument
/// register, not rax).
const R11: u8 = 11;

/// Integer argument registers in order.
const INT_ARGS: &[u8] = &[7, 6, 2, 1, 8, 9];
const FLOAT_ARGS: usize = 8;

/// An argument of a call.
#[derive(Clone, Copy, Debug)]
pub(super) enum CallArg {
    Value(Value),
    /// A scratch register's current content (not r11).
    Reg(u8),
    Imm(i64),
    /// The run's `runtime::RunContext`.
    Context,
}

/// An error when `f` cannot be called with the registers the ABI has.
pub(super) fn check_signature(f: &NativeFunc) -> Result<(), String> {
    if f.with_heap.is_some() && (f.args.len() > 3 || f.args.contains(&Kind::Float)) {
        return Err(format!(
            "x86_64 backend: '{}' works on the heap with more than three word arguments",
            f.name
        ));
    }
    let floats = f.args.iter().filter(|k| **k == Kind::Float).count();
    if floats > FLOAT_ARGS || f.args.len() - floats > INT_ARGS.len() {
        return Err(format!(
            "x86_64 backend: '{}' takes more arguments than fit in registers",
            f.name
        ));
    }
    Ok(())
}

/// Where in the staging slots a residual call's words go (after the
/// helper's own four arguments, which `emit_call` stages first).
pub(super) const RESIDUAL_ARGS_AT: usize = 4;

impl Gen<'_> {
    /// A residual call: its words staged in the frame, handed to the run's
    /// runner by `runtime::call_residual`, which leaves the result's word
    /// in the first of them.
    fn call_residual(&mut self, pc: usize, op: &Op, index: usize) -> Result<(), String> {
        if let Some(direct) = self.direct_calls.clone() {
            let Some(Some(call)) = direct.by_site.get(index) else {
                return Err(format!("no C function for residual call {index}"));
            };
            return self.call_c_directly(pc, op, call);
        }
        let first = self.frame.staging + RESIDUAL_ARGS_AT;
        for (i, v) in op.args.iter().enumerate() {
            self.load(R11, *v);
            self.store_slot(first + i, R11);
        }
        let d = super::disp(first);
        dynasm!(self.asm ; .arch x64 ; lea rax, [rbx + d]);
        let addr = super::runtime::call_residual as *const () as usize;
        let args = [
            CallArg::Context,
            CallArg::Imm(index as i64),
            CallArg::Reg(RAX),
            CallArg::Imm(op.args.len() as i64),
        ];
        let err = self.error_stub(pc, op);
        self.emit_collecting_call(pc, addr, &args, &[]);
        dynasm!(self.asm ; .arch x64 ; test rax, rax ; jz =>err);
        if let Some(r) = op.result {
            self.load_slot(RAX, first);
            self.store_box(r, RAX);
        }
        Ok(())
    }

    /// A residual call straight to its C function (GenC's wrapper, which
    /// takes its arguments as words, a void parameter's slot 0, and
    /// returns the result's word); an exception it raises stays in the
    /// program's state for `guard_no_exception`.
    fn call_c_directly(
        &mut self,
        pc: usize,
        op: &Op,
        call: &rpy_jit::native::loops::DirectCall,
    ) -> Result<(), String> {
        let first = self.frame.staging + RESIDUAL_ARGS_AT;
        let mut passed = op.args.iter();
        for (slot, is_passed) in call.passed.iter().enumerate() {
            match is_passed.then(|| passed.next()).flatten() {
                Some(v) => self.load(R11, *v),
                None => self.load_const(R11, 0),
            }
            self.store_slot(first + slot, R11);
        }
        if passed.next().is_some() {
            return Err(format!(
                "op {pc} ({}) passes more words than its C function takes",
                op.name()
            ));
        }
        let d = super::disp(first);
        dynasm!(self.asm ; .arch x64 ; lea rax, [rbx + d]);
        self.emit_collecting_call(pc, call.wrapper, &[CallArg::Reg(RAX)], &[]);
        if let Some(r) = op.result {
            self.store_box(r, RAX);
        }
        Ok(())
    }

    /// Calls the function at `addr`; `float_args` says which arguments are
    /// doubles. Leaves the result's bits in rax.
    pub(super) fn emit_call(
        &mut self,
        pc: usize,
        addr: usize,
        args: &[CallArg],
        float_args: &[bool],
    ) {
        self.emit_call_keeping(pc, addr, args, float_args, false)
    }

    /// [`Gen::emit_call`] of a function that may collect: with a moving
    /// collector, the GC pointers live across the call go on the program's
    /// shadow stack before it and are read back from there after it (the
    /// collector may have moved what they point to).
    pub(super) fn emit_collecting_call(
        &mut self,
        pc: usize,
        addr: usize,
        args: &[CallArg],
        float_args: &[bool],
    ) {
        self.emit_call_keeping(pc, addr, args, float_args, true)
    }

    fn emit_call_keeping(
        &mut self,
        pc: usize,
        addr: usize,
        args: &[CallArg],
        float_args: &[bool],
        collects: bool,
    ) {
        let staging = self.frame.staging;
        for (i, arg) in args.iter().enumerate() {
            let reg = match *arg {
                CallArg::Value(v) => {
                    self.load(R11, v);
                    R11
                }
                CallArg::Reg(r) => r,
                CallArg::Imm(n) => {
                    self.load_const(R11, n);
                    R11
                }
                CallArg::Context => {
                    self.load_slot(R11, self.frame.context);
                    R11
                }
            };
            self.store_slot(staging + i, reg);
        }
        let saved = self.save_live_registers(pc);
        let roots = match (collects, self.memory.and_then(|m| m.moving)) {
            (true, Some(gc)) => self.push_roots(pc, gc.root_top),
            _ => Vec::new(),
        };
        let (mut ints, mut floats) = (0, 0);
        for i in 0..args.len() {
            let d = super::disp(staging + i);
            if float_args.get(i).copied().unwrap_or(false) {
                let x = floats as u8;
                dynasm!(self.asm ; .arch x64 ; movsd Rx(x), QWORD [rbx + d]);
                floats += 1;
            } else {
                let r = INT_ARGS[ints];
                dynasm!(self.asm ; .arch x64 ; mov Rq(r), QWORD [rbx + d]);
                ints += 1;
            }
        }
        let addr = addr as i64;
        dynasm!(self.asm ; .arch x64 ; mov rax, QWORD addr ; call rax);
        self.restore_registers(&saved);
        if let Some(gc) = self.memory.and_then(|m| m.moving) {
            self.pop_roots(&roots, gc.root_top);
        }
    }

    /// Pushes the GC pointers live across op `pc` (but its result) on the
    /// shadow stack whose top is at `root_top`; the boxes, in order.
    /// Uses rcx and rdx (the call's arguments are staged in the frame).
    fn push_roots(&mut self, pc: usize, root_top: usize) -> Vec<usize> {
        let roots: Vec<usize> = (0..self.alloc.homes.len())
            .filter(|&b| self.trace.boxes[b].kind == Kind::Ref && self.alloc.live_at(b, pc))
            .collect();
        if roots.is_empty() {
            return roots;
        }
        let top = root_top as i64;
        dynasm!(self.asm ; .arch x64 ; mov rdx, QWORD top ; mov rdx, QWORD [rdx]);
        for (i, b) in roots.iter().enumerate() {
            self.load(RCX, Value::Box(*b));
            let d = (i * 8) as i32;
            dynasm!(self.asm ; .arch x64 ; mov QWORD [rdx + d], rcx);
        }
        let n = (roots.len() * 8) as i32;
        dynasm!(self.asm
            ; .arch x64
            ; add rdx, n
            ; mov rcx, QWORD top
            ; mov QWORD [rcx], rdx
        );
        roots
    }

    /// Pops what [`Gen::push_roots`] pushed back into the boxes' homes
    /// (rax, the call's result, is kept).
    fn pop_roots(&mut self, roots: &[usize], root_top: usize) {
        if roots.is_empty() {
            return;
        }
        let top = root_top as i64;
        let n = (roots.len() * 8) as i32;
        dynasm!(self.asm
            ; .arch x64
            ; mov rcx, QWORD top
            ; mov rdx, QWORD [rcx]
            ; sub rdx, n
            ; mov QWORD [rcx], rdx
        );
        for (i, b) in roots.iter().enumerate() {
            let d = (i * 8) as i32;
            dynasm!(self.asm ; .arch x64 ; mov rcx, QWORD [rdx + d]);
            self.store_box(*b, RCX);
        }
    }

    /// Saves the caller-saved registers holding boxes live at op `pc`;
    /// returns them.
    fn save_live_registers(&mut self, pc: usize) -> Vec<Home> {
        let mut saved: Vec<Home> = Vec::new();
        for b in 0..self.alloc.homes.len() {
            let h = self.home(b);
            let clobbered = match h {
                Home::Gp(r) => CALLER_SAVED_GP.contains(&r),
                Home::Xmm(_) => true,
                Home::Slot => false,
            };
            if clobbered && self.alloc.live_at(b, pc) && !saved.contains(&h) {
                saved.push(h);
            }
        }
        for h in &saved {
            match *h {
                Home::Gp(r) => self.store_slot(self.frame.saves + r as usize, r),
                Home::Xmm(x) => {
                    let d = super::disp(self.frame.saves + 16 + x as usize);
                    dynasm!(self.asm ; .arch x64 ; movsd QWORD [rbx + d], Rx(x));
                }
                Home::Slot => {}
            }
        }
        saved
    }

    fn restore_registers(&mut self, saved: &[Home]) {
        for h in saved {
            match *h {
                Home::Gp(r) => self.load_slot(r, self.frame.saves + r as usize),
                Home::Xmm(x) => {
                    let d = super::disp(self.frame.saves + 16 + x as usize);
                    dynasm!(self.asm ; .arch x64 ; movsd Rx(x), QWORD [rbx + d]);
                }
                Home::Slot => {}
            }
        }
    }

    /// `call_*`, `call_pure_*`, `call_may_force_*`: the descr's native
    /// function. A call with the wrong number of arguments is an error when
    /// reached, as in the interpreter.
    pub(super) fn call(&mut self, pc: usize, op: &Op) -> Result<(), String> {
        let func = match op.descr.map(|d| &self.trace.header.descrs[d].data) {
            Some(DescrData::Call { func }) => func,
            Some(DescrData::Residual(call)) => return self.call_residual(pc, op, call.index),
            _ => return Err(unsupported(op)),
        };
        let func: &'static NativeFunc = func;
        if op.args.len() != func.args.len() {
            let err = self.error_stub(pc, op);
            dynasm!(self.asm ; .arch x64 ; jmp =>err);
            return Ok(());
        }
        let mut args: Vec<CallArg> = op.args.iter().map(|v| CallArg::Value(*v)).collect();
        let floats: Vec<bool> = func.args.iter().map(|k| *k == Kind::Float).collect();
        match rpy_jit::calls::index_of(func).filter(|_| func.with_heap.is_some()) {
            Some(index) => {
                // through the runtime, which hands it the run's heap
                args.insert(0, CallArg::Imm(index as i64));
                args.insert(0, CallArg::Context);
                args.resize(5, CallArg::Imm(0));
                let addr = super::runtime::call_heap_native as *const () as usize;
                self.emit_call(pc, addr, &args, &[false; 5]);
            }
            None => self.emit_call(pc, func.addr, &args, &floats),
        }
        match func.result {
            Kind::Float => dynasm!(self.asm ; .arch x64 ; movq rax, xmm0),
            // the interpreter's value of a call without a result
            Kind::Void => dynasm!(self.asm ; .arch x64 ; xor eax, eax),
            _ => {}
        }
        if let Some(r) = op.result {
            self.store_box(r, RAX);
        }
        Ok(())
    }
}

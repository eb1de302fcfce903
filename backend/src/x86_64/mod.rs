//! An x86-64 backend for the tracing JIT: turns a [`Trace`] into machine code
//! with `dynasmrt`, runs it, and reports the same [`Outcome`] as the
//! reference interpreter (`rpy_jit::interp::run`).
//!
//! What compiles: word-sized traces (boxes of kind `i`, and `p` boxes used
//! as plain words): integer arithmetic (`int_add/sub/mul/and/or/xor`,
//! shifts, `int_floordiv/mod`, `int_py_div/mod`, `int_neg/invert/abs`,
//! `int_is_true/is_zero/force_ge_zero`), signed and unsigned comparisons,
//! `ptr_eq/ne`, `same_as_*`, the overflow-checking forms with
//! `guard_no_overflow`/`guard_overflow`, the guards `guard_true/false/value/
//! nonnull/isnull/no_exception/not_forced`, `label`, `jump` and `finish`.
//! Anything else (floats, memory, allocation, calls) makes [`compile`] fail
//! with the name of the operation.
//!
//! Code shape: a frame (a Rust `Vec<u64>`, `[rdi + 8*box]`) has a slot per
//! box; up to nine boxes get a machine register for the whole trace instead
//! (`regalloc`: loop-carried boxes first, a label argument sharing its
//! register with the box the jump passes back for it when their lives do not
//! overlap, so most jumps move nothing). Each operation loads its first
//! argument into `rax`, combines it with the second as a register, frame or
//! immediate operand, and stores the result in the box's home. A comparison
//! whose only use is the next `guard_true`/`guard_false` becomes one
//! compare-and-branch. Extra frame slots hold the overflow flag (set by the
//! `_ovf` operations, read by the overflow guards, so other operations may
//! come between them as in the interpreter), the remaining iteration budget
//! and the scratch area of `jump`'s parallel move.
//!
//! Exits: the generated function is `extern "sysv64" fn(frame, out) -> u64`.
//! Every way of leaving returns an op index: a failing guard jumps to an
//! out-of-line stub that writes its fail-arg values to `out` and returns
//! the guard's index; `finish` writes its arguments to `out` and returns its
//! index; a `jump` that exhausts the iteration budget writes the label's
//! values to `out` and returns its index; an operation that is undefined for
//! its arguments (a shift out of `0..64`, a division by zero, `MIN / -1`)
//! returns its own index, and the Rust side rebuilds the interpreter's
//! error message from the frame; falling off the end of the trace returns
//! `ops.len()`.

// dynasm's dynamic registers (`Rq(r)`) expand to `r.into()`.
#![allow(clippy::useless_conversion)]

mod regalloc;

use dynasmrt::x64::Assembler;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi, ExecutableBuffer};
use rpy_jit::interp::{Outcome, RunValue};
use rpy_jit::trace::{BoxId, Kind, Op, Trace, Value};

type EntryFn = unsafe extern "sysv64" fn(frame: *mut u64, out: *mut u64) -> u64;

/// A trace compiled to machine code.
pub struct CompiledLoop {
    code: ExecutableBuffer,
    trace: Trace,
    frame_len: usize,
    out_len: usize,
    counter_slot: usize,
}

impl std::fmt::Debug for CompiledLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledLoop")
            .field("code_size", &self.code.len())
            .field("frame_len", &self.frame_len)
            .finish()
    }
}

/// Why the code left, decided after the fact from the op index it returns.
enum Exit {
    /// Write these values to `out`, then return the op index.
    Values(Vec<Value>),
    /// Return the op index only (an undefined operation).
    Error,
}

struct Gen<'t> {
    trace: &'t Trace,
    ops: Assembler,
    /// Out-of-line exits: their label, op index and what they write.
    stubs: Vec<(DynamicLabel, usize, Exit)>,
    ovf_slot: usize,
    counter_slot: usize,
    tmp_slot: usize,
    /// The register each box lives in, if any (else its frame slot).
    regs: Vec<Option<u8>>,
}

/// The two-operand instructions [`Gen::arith`] emits.
#[derive(Clone, Copy)]
enum Arith {
    Add,
    Sub,
    Imul,
    And,
    Or,
    Xor,
    Cmp,
}

const RAX: u8 = 0;
const RCX: u8 = 1;

fn disp(slot: usize) -> i32 {
    (slot * 8) as i32
}

impl Gen<'_> {
    fn const_bits(&self, v: Value) -> u64 {
        match v {
            Value::Box(_) => unreachable!("not a constant"),
            Value::Int(i) => i as u64,
            Value::Float(bits) => bits,
            Value::NullPtr => 0,
            Value::Class(d) => self.trace.header.class_id(d).unwrap_or(0),
        }
    }

    /// `reg = v`.
    fn load(&mut self, reg: u8, v: Value) {
        match v {
            Value::Box(b) => match self.regs[b] {
                Some(r) => dynasm!(self.ops ; .arch x64 ; mov Rq(reg), Rq(r)),
                None => {
                    let d = disp(b);
                    dynasm!(self.ops ; .arch x64 ; mov Rq(reg), QWORD [rdi + d]);
                }
            },
            c => {
                let bits = self.const_bits(c) as i64;
                dynasm!(self.ops ; .arch x64 ; mov Rq(reg), QWORD bits);
            }
        }
    }

    /// `rax = rax <ins> v` (or `cmp rax, v`), with `v` as a register, a
    /// frame slot or an immediate operand.
    fn arith(&mut self, ins: Arith, v: Value) {
        macro_rules! emit {
            ($($m:ident => $i:ident),*) => {
                match (ins, v) {
                    (Arith::Imul, Value::Box(b)) if self.regs[b].is_none() => {
                        let d = disp(b);
                        dynasm!(self.ops ; .arch x64 ; imul rax, QWORD [rdi + d]);
                    }
                    (Arith::Imul, Value::Box(b)) => {
                        let r = self.regs[b].unwrap_or(RCX);
                        dynasm!(self.ops ; .arch x64 ; imul rax, Rq(r));
                    }
                    $((Arith::$m, Value::Box(b)) => match self.regs[b] {
                        Some(r) => dynasm!(self.ops ; .arch x64 ; $i rax, Rq(r)),
                        None => {
                            let d = disp(b);
                            dynasm!(self.ops ; .arch x64 ; $i rax, QWORD [rdi + d]);
                        }
                    },)*
                    (_, c) => {
                        let bits = self.const_bits(c) as i64;
                        match i32::try_from(bits) {
                            Ok(imm) => match ins {
                                Arith::Imul => dynasm!(self.ops ; .arch x64 ; imul rax, rax, imm),
                                $(Arith::$m => dynasm!(self.ops ; .arch x64 ; $i rax, imm),)*
                            },
                            Err(_) => {
                                dynasm!(self.ops ; .arch x64 ; mov rcx, QWORD bits);
                                match ins {
                                    Arith::Imul => dynasm!(self.ops ; .arch x64 ; imul rax, rcx),
                                    $(Arith::$m => dynasm!(self.ops ; .arch x64 ; $i rax, rcx),)*
                                }
                            }
                        }
                    }
                }
            };
        }
        emit!(Add => add, Sub => sub, And => and, Or => or, Xor => xor, Cmp => cmp);
    }

    /// `box = rax`.
    fn store_box(&mut self, b: usize) {
        match self.regs[b] {
            Some(r) => dynasm!(self.ops ; .arch x64 ; mov Rq(r), rax),
            None => self.store(b),
        }
    }

    /// Copies every register-held box to its frame slot.
    fn flush(&mut self) {
        for b in 0..self.regs.len() {
            if let Some(r) = self.regs[b] {
                let d = disp(b);
                dynasm!(self.ops ; .arch x64 ; mov QWORD [rdi + d], Rq(r));
            }
        }
    }

    /// Saves the callee-saved registers and loads the register-held inputs.
    fn prologue(&mut self) {
        for &r in regalloc::CALLEE_SAVED {
            dynasm!(self.ops ; .arch x64 ; push Rq(r));
        }
        for b in self.trace.inputs.clone() {
            if let Some(r) = self.regs[b] {
                let d = disp(b);
                dynasm!(self.ops ; .arch x64 ; mov Rq(r), QWORD [rdi + d]);
            }
        }
    }

    /// `frame[slot] = rax`.
    fn store(&mut self, slot: usize) {
        let d = disp(slot);
        dynasm!(self.ops ; .arch x64 ; mov QWORD [rdi + d], rax);
    }

    fn stub(&mut self, pc: usize, exit: Exit) -> DynamicLabel {
        let l = self.ops.new_dynamic_label();
        self.stubs.push((l, pc, exit));
        l
    }

    fn ret_index(&mut self, pc: usize) {
        for &r in regalloc::CALLEE_SAVED.iter().rev() {
            dynasm!(self.ops ; .arch x64 ; pop Rq(r));
        }
        let i = pc as i64;
        dynasm!(self.ops ; .arch x64 ; mov rax, QWORD i ; ret);
    }

    /// Writes `vals` to `out[0..]`.
    fn write_out(&mut self, vals: &[Value]) {
        for (i, v) in vals.iter().enumerate() {
            self.load(RAX, *v);
            let d = disp(i);
            dynasm!(self.ops ; .arch x64 ; mov QWORD [rsi + d], rax);
        }
    }

    /// A comparison whose result only the next `guard_true`/`guard_false`
    /// reads becomes a compare-and-branch; false when the pair does not fit.
    fn fused_guard(&mut self, pc: usize, op: &Op, next: &Op, uses: &[usize]) -> bool {
        let Some(r) = op.result else { return false };
        let cc = match op.name() {
            "int_lt" => "l",
            "int_le" => "le",
            "int_eq" => "e",
            "int_ne" => "ne",
            "int_gt" => "g",
            "int_ge" => "ge",
            "uint_lt" => "b",
            "uint_le" => "be",
            "uint_gt" => "a",
            "uint_ge" => "ae",
            _ => return false,
        };
        let fails_when_true = match next.name() {
            "guard_true" => false,
            "guard_false" => true,
            _ => return false,
        };
        if next.args.first() != Some(&Value::Box(r)) || uses[r] != 1 || op.args.len() != 2 {
            return false;
        }
        // the condition under which the guard fails
        let cc = if fails_when_true {
            cc
        } else {
            match cc {
                "l" => "ge",
                "ge" => "l",
                "le" => "g",
                "g" => "le",
                "e" => "ne",
                "ne" => "e",
                "b" => "ae",
                "ae" => "b",
                "be" => "a",
                _ => "be",
            }
        };
        let l = self.stub(
            pc + 1,
            Exit::Values(next.fail_args.clone().unwrap_or_default()),
        );
        self.load(RAX, op.args[0]);
        self.arith(Arith::Cmp, op.args[1]);
        match cc {
            "l" => dynasm!(self.ops ; .arch x64 ; jl =>l),
            "ge" => dynasm!(self.ops ; .arch x64 ; jge =>l),
            "le" => dynasm!(self.ops ; .arch x64 ; jle =>l),
            "g" => dynasm!(self.ops ; .arch x64 ; jg =>l),
            "e" => dynasm!(self.ops ; .arch x64 ; je =>l),
            "ne" => dynasm!(self.ops ; .arch x64 ; jne =>l),
            "b" => dynasm!(self.ops ; .arch x64 ; jb =>l),
            "ae" => dynasm!(self.ops ; .arch x64 ; jae =>l),
            "be" => dynasm!(self.ops ; .arch x64 ; jbe =>l),
            _ => dynasm!(self.ops ; .arch x64 ; ja =>l),
        }
        true
    }

    fn op(
        &mut self,
        pc: usize,
        op: &Op,
        label: &mut (DynamicLabel, Vec<Value>),
    ) -> Result<(), String> {
        let name = op.name();
        let a = &op.args;
        let res = op.result;
        match name {
            "label" => {
                let l = self.ops.new_dynamic_label();
                dynasm!(self.ops ; .arch x64 ; =>l);
                *label = (l, op.args.clone());
                return Ok(());
            }
            "jump" => {
                let (target, targets) = label.clone();
                // parallel move through the scratch area, leaving out the
                // values already where they go
                let moves: Vec<(usize, Value, BoxId)> = a
                    .iter()
                    .zip(&targets)
                    .enumerate()
                    .filter_map(|(i, (v, t))| {
                        let t = t.as_box()?;
                        let same = match *v {
                            Value::Box(b) => {
                                b == t || (self.regs[b].is_some() && self.regs[b] == self.regs[t])
                            }
                            _ => false,
                        };
                        (!same).then_some((i, *v, t))
                    })
                    .collect();
                if let [(_, v, t)] = moves[..] {
                    self.load(RAX, v);
                    self.store_box(t);
                } else {
                    for (i, v, _) in &moves {
                        self.load(RAX, *v);
                        self.store(self.tmp_slot + i);
                    }
                    for (i, _, t) in &moves {
                        let d = disp(self.tmp_slot + i);
                        dynasm!(self.ops ; .arch x64 ; mov rax, QWORD [rdi + d]);
                        self.store_box(*t);
                    }
                }
                let exit = self.stub(pc, Exit::Values(targets));
                let c = disp(self.counter_slot);
                dynasm!(self.ops
                    ; .arch x64
                    ; sub QWORD [rdi + c], 1
                    ; jle =>exit
                    ; jmp =>target
                );
                return Ok(());
            }
            "finish" => {
                self.write_out(a);
                self.ret_index(pc);
                return Ok(());
            }
            _ => {}
        }
        if op.is_guard() {
            let fail = Exit::Values(op.fail_args.clone().unwrap_or_default());
            match name {
                "guard_no_exception" | "guard_not_forced" => return Ok(()),
                _ => {}
            }
            let l = self.stub(pc, fail);
            match name {
                "guard_true" | "guard_nonnull" => {
                    self.load(RAX, a[0]);
                    dynasm!(self.ops ; .arch x64 ; test rax, rax ; jz =>l);
                }
                "guard_false" | "guard_isnull" => {
                    self.load(RAX, a[0]);
                    dynasm!(self.ops ; .arch x64 ; test rax, rax ; jnz =>l);
                }
                "guard_value" => {
                    self.load(RAX, a[0]);
                    self.arith(Arith::Cmp, a[1]);
                    dynasm!(self.ops ; .arch x64 ; jne =>l);
                }
                "guard_no_overflow" | "guard_overflow" => {
                    let d = disp(self.ovf_slot);
                    dynasm!(self.ops ; .arch x64 ; cmp QWORD [rdi + d], 0);
                    if name == "guard_no_overflow" {
                        dynasm!(self.ops ; .arch x64 ; jne =>l);
                    } else {
                        dynasm!(self.ops ; .arch x64 ; je =>l);
                    }
                }
                _ => return Err(format!("x86_64 backend: unsupported operation '{name}'")),
            }
            return Ok(());
        }
        let Some(r) = res else {
            return Err(format!("x86_64 backend: unsupported operation '{name}'"));
        };
        match name {
            "same_as_i" | "same_as_r" | "same_as_f" => {
                self.load(RAX, a[0]);
            }
            "int_neg" | "int_invert" | "int_abs" | "int_is_true" | "int_is_zero"
            | "int_force_ge_zero" => {
                self.load(RAX, a[0]);
                match name {
                    "int_neg" => dynasm!(self.ops ; .arch x64 ; neg rax),
                    "int_invert" => dynasm!(self.ops ; .arch x64 ; not rax),
                    "int_abs" => dynasm!(self.ops
                        ; .arch x64
                        ; mov rcx, rax
                        ; neg rcx
                        ; cmovns rax, rcx
                    ),
                    "int_is_true" => dynasm!(self.ops
                        ; .arch x64
                        ; test rax, rax
                        ; setne al
                        ; movzx eax, al
                    ),
                    "int_is_zero" => dynasm!(self.ops
                        ; .arch x64
                        ; test rax, rax
                        ; sete al
                        ; movzx eax, al
                    ),
                    _ => dynasm!(self.ops
                        ; .arch x64
                        ; xor ecx, ecx
                        ; test rax, rax
                        ; cmovl rax, rcx
                    ),
                }
            }
            "int_add" | "int_sub" | "int_mul" | "int_and" | "int_or" | "int_xor" => {
                self.load(RAX, a[0]);
                let ins = match name {
                    "int_add" => Arith::Add,
                    "int_sub" => Arith::Sub,
                    "int_mul" => Arith::Imul,
                    "int_and" => Arith::And,
                    "int_or" => Arith::Or,
                    _ => Arith::Xor,
                };
                self.arith(ins, a[1]);
            }
            "int_add_ovf" | "int_sub_ovf" | "int_mul_ovf" => {
                self.load(RAX, a[0]);
                let ins = match name {
                    "int_add_ovf" => Arith::Add,
                    "int_sub_ovf" => Arith::Sub,
                    _ => Arith::Imul,
                };
                self.arith(ins, a[1]);
                // the interpreter's result is 0 when the operation overflows
                let d = disp(self.ovf_slot);
                dynasm!(self.ops
                    ; .arch x64
                    ; seto dl
                    ; mov ecx, 0
                    ; cmovo rax, rcx
                    ; movzx edx, dl
                    ; mov QWORD [rdi + d], rdx
                );
            }
            "int_lshift" | "int_rshift" | "uint_rshift" => {
                let err = self.stub(pc, Exit::Error);
                self.load(RAX, a[0]);
                self.load(RCX, a[1]);
                dynasm!(self.ops ; .arch x64 ; cmp rcx, 63 ; ja =>err);
                match name {
                    "int_lshift" => dynasm!(self.ops ; .arch x64 ; shl rax, cl),
                    "int_rshift" => dynasm!(self.ops ; .arch x64 ; sar rax, cl),
                    _ => dynasm!(self.ops ; .arch x64 ; shr rax, cl),
                }
            }
            "int_floordiv" | "int_mod" | "int_py_div" | "int_py_mod" => {
                let err = self.stub(pc, Exit::Error);
                self.load(RAX, a[0]);
                self.load(RCX, a[1]);
                dynasm!(self.ops
                    ; .arch x64
                    ; test rcx, rcx
                    ; jz =>err
                    ; cmp rcx, -1
                    ; jne >ok
                    ; mov rdx, QWORD i64::MIN
                    ; cmp rax, rdx
                    ; je =>err
                    ; ok:
                    ; cqo
                    ; idiv rcx
                );
                if name.starts_with("int_py") {
                    // floor: when the remainder is non-zero and its sign
                    // differs from the divisor's, q -= 1 and r += y
                    dynasm!(self.ops
                        ; .arch x64
                        ; test rdx, rdx
                        ; jz >done
                        ; mov r11, rdx
                        ; xor r11, rcx
                        ; jns >done
                        ; sub rax, 1
                        ; add rdx, rcx
                        ; done:
                    );
                }
                if name.ends_with("mod") {
                    dynasm!(self.ops ; .arch x64 ; mov rax, rdx);
                }
            }
            "int_lt" | "int_le" | "int_eq" | "int_ne" | "int_gt" | "int_ge" | "uint_lt"
            | "uint_le" | "uint_gt" | "uint_ge" | "ptr_eq" | "ptr_ne" | "instance_ptr_eq"
            | "instance_ptr_ne" => {
                self.load(RAX, a[0]);
                self.arith(Arith::Cmp, a[1]);
                match name {
                    "int_lt" => dynasm!(self.ops ; .arch x64 ; setl al),
                    "int_le" => dynasm!(self.ops ; .arch x64 ; setle al),
                    "int_eq" | "ptr_eq" | "instance_ptr_eq" => {
                        dynasm!(self.ops ; .arch x64 ; sete al)
                    }
                    "int_ne" | "ptr_ne" | "instance_ptr_ne" => {
                        dynasm!(self.ops ; .arch x64 ; setne al)
                    }
                    "int_gt" => dynasm!(self.ops ; .arch x64 ; setg al),
                    "int_ge" => dynasm!(self.ops ; .arch x64 ; setge al),
                    "uint_lt" => dynasm!(self.ops ; .arch x64 ; setb al),
                    "uint_le" => dynasm!(self.ops ; .arch x64 ; setbe al),
                    "uint_gt" => dynasm!(self.ops ; .arch x64 ; seta al),
                    _ => dynasm!(self.ops ; .arch x64 ; setae al),
                }
                dynasm!(self.ops ; .arch x64 ; movzx eax, al);
            }
            _ => return Err(format!("x86_64 backend: unsupported operation '{name}'")),
        }
        self.store_box(r);
        Ok(())
    }
}

/// Compiles `trace` to machine code; an error naming the first operation
/// (or box kind) the backend does not support.
pub fn compile(trace: &Trace) -> Result<CompiledLoop, String> {
    if let Some(b) = trace.boxes.iter().find(|b| b.kind == Kind::Float) {
        return Err(format!(
            "x86_64 backend: float box '{}' is not supported",
            b.name
        ));
    }
    // check the operations' shapes before emitting anything
    let mut label: Option<usize> = None;
    let mut max_out = 0usize;
    let mut max_jump = 0usize;
    for (pc, op) in trace.ops.iter().enumerate() {
        if let Some(n) = op.info().arity() {
            if op.args.len() != n {
                return Err(format!(
                    "op {pc} ({}) has {} argument(s), not {n}",
                    op.name(),
                    op.args.len()
                ));
            }
        }
        match op.name() {
            "label" => label = Some(pc),
            "jump" => {
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
                max_jump = max_jump.max(targets);
                max_out = max_out.max(targets);
            }
            "finish" => max_out = max_out.max(op.args.len()),
            _ => {}
        }
        if let Some(f) = &op.fail_args {
            max_out = max_out.max(f.len());
        }
    }
    let n = trace.boxes.len();
    let ovf_slot = n;
    let counter_slot = n + 1;
    let tmp_slot = n + 2;
    let frame_len = tmp_slot + max_jump;
    if frame_len.max(max_out) >= (1 << 27) {
        return Err("x86_64 backend: trace too large".into());
    }
    let mut g = Gen {
        trace,
        ops: Assembler::new().map_err(|e| format!("x86_64 backend: {e}"))?,
        stubs: Vec::new(),
        ovf_slot,
        counter_slot,
        tmp_slot,
        regs: regalloc::assign(trace),
    };
    g.prologue();
    let start = g.ops.new_dynamic_label();
    dynasm!(g.ops ; .arch x64 ; =>start);
    let mut label = (start, trace.inputs.iter().map(|b| Value::Box(*b)).collect());
    let mut uses = vec![0usize; trace.boxes.len()];
    for op in &trace.ops {
        for v in op.args.iter().chain(op.fail_args.iter().flatten()) {
            if let Value::Box(b) = v {
                uses[*b] += 1;
            }
        }
    }
    let mut pc = 0;
    while pc < trace.ops.len() {
        let op = &trace.ops[pc];
        if let Some(next) = trace.ops.get(pc + 1) {
            if g.fused_guard(pc, op, next, &uses) {
                pc += 2;
                continue;
            }
        }
        g.op(pc, op, &mut label)?;
        pc += 1;
    }
    g.ret_index(trace.ops.len());
    for (l, pc, exit) in std::mem::take(&mut g.stubs) {
        dynasm!(g.ops ; .arch x64 ; =>l);
        match exit {
            Exit::Values(vals) => g.write_out(&vals),
            Exit::Error => g.flush(),
        }
        g.ret_index(pc);
    }
    let code = g
        .ops
        .finalize()
        .map_err(|_| "x86_64 backend: could not finalize the code".to_string())?;
    Ok(CompiledLoop {
        code,
        trace: trace.clone(),
        frame_len,
        out_len: max_out,
        counter_slot,
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

    /// Runs the code from `inputs` (the bits of each input box, in order)
    /// for at most `iteration_limit` loop iterations (as
    /// `rpy_jit::interp::run`: a limit of 0 acts as 1).
    pub fn run(&self, inputs: &[i64], iteration_limit: u64) -> Outcome {
        let t = &self.trace;
        if inputs.len() != t.inputs.len() {
            return Outcome::Error(format!(
                "the trace takes {} input(s), not {}",
                t.inputs.len(),
                inputs.len()
            ));
        }
        let mut frame = vec![0u64; self.frame_len];
        for (b, v) in t.inputs.iter().zip(inputs) {
            frame[*b] = *v as u64;
        }
        frame[self.counter_slot] = iteration_limit.min(i64::MAX as u64);
        let mut out = vec![0u64; self.out_len.max(1)];
        // SAFETY: the code was generated for this trace: it reads and writes
        // only `frame[..frame_len]` and `out[..out_len]`, uses no stack and
        // only caller-saved registers, and always returns.
        let pc = unsafe {
            let f: EntryFn = std::mem::transmute(self.code.ptr(dynasmrt::AssemblyOffset(0)));
            f(frame.as_mut_ptr(), out.as_mut_ptr())
        } as usize;
        let values = |vs: &[Value]| -> Vec<RunValue> {
            vs.iter()
                .zip(&out)
                .map(|(v, bits)| RunValue::from_bits(t.kind(*v), *bits))
                .collect()
        };
        let Some(op) = t.ops.get(pc) else {
            return Outcome::Error("the trace ends without finish or jump".into());
        };
        let name = op.name();
        match name {
            "finish" => Outcome::Finished(values(&op.args)),
            "jump" => {
                let targets: Vec<Value> =
                    match t.ops[..pc].iter().rposition(|o| o.name() == "label") {
                        Some(l) => t.ops[l].args.clone(),
                        None => t.inputs.iter().map(|b| Value::Box(*b)).collect(),
                    };
                Outcome::LoopLimit {
                    values: values(&targets),
                }
            }
            _ if op.is_guard() => Outcome::GuardFailed {
                guard: pc,
                values: values(op.fail_args.as_deref().unwrap_or(&[])),
            },
            _ => {
                let header = &t.header;
                let args: Vec<i64> = op
                    .args
                    .iter()
                    .map(|v| match *v {
                        Value::Box(b) => frame[b] as i64,
                        Value::Int(i) => i,
                        Value::Float(bits) => bits as i64,
                        Value::NullPtr => 0,
                        Value::Class(d) => header.class_id(d).unwrap_or(0) as i64,
                    })
                    .collect();
                if name == "uint_rshift" {
                    Outcome::Error(format!("shift by {} at op {pc}", args[1]))
                } else {
                    Outcome::Error(format!("{name} is undefined for {args:?} at op {pc}"))
                }
            }
        }
    }
}

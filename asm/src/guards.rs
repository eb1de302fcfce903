//! Guards: each tests its condition inline and jumps, when it fails, to an
//! out-of-line stub that writes the fail args. A comparison whose only use
//! is the next `guard_true`/`guard_false` becomes one compare-and-branch.
//! `guard_class` reads the object's header word, which holds its type id
//! (the interpreter's layout); on null it is an error, `guard_nonnull_class`
//! fails instead. Native calls raise no exceptions and force nothing, so
//! `guard_no_exception` and `guard_not_forced` always pass.

use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi};
use rpy_jit::trace::Opcode;
use rpy_jit::trace::{Op, Trace, Value};

use super::ints::Arith;
use super::{unsupported, Checks, Gen, RAX};

/// How many times each box is read (as an argument or a fail arg).
pub(super) fn use_counts(trace: &Trace) -> Vec<usize> {
    let mut uses = vec![0usize; trace.boxes.len()];
    for op in &trace.ops {
        for v in op.args.iter().chain(op.fail_args.iter().flatten()) {
            if let Value::Box(b) = v {
                uses[*b] += 1;
            }
        }
    }
    uses
}

/// An integer comparison's condition code, and the one that negates it.
fn condition(name: Opcode) -> Option<(&'static str, &'static str)> {
    Some(match name {
        Opcode::IntLt => ("l", "ge"),
        Opcode::IntLe => ("le", "g"),
        Opcode::IntEq | Opcode::PtrEq | Opcode::InstancePtrEq => ("e", "ne"),
        Opcode::IntNe | Opcode::PtrNe | Opcode::InstancePtrNe => ("ne", "e"),
        Opcode::IntGt => ("g", "le"),
        Opcode::IntGe => ("ge", "l"),
        Opcode::UintLt => ("b", "ae"),
        Opcode::UintLe => ("be", "a"),
        Opcode::UintGt => ("a", "be"),
        Opcode::UintGe => ("ae", "b"),
        _ => return None,
    })
}

impl Gen<'_> {
    /// Emits `op` and the guard `next` as one compare-and-branch when `op`
    /// is an integer comparison whose result only `next` reads; false when
    /// the pair does not fit.
    pub(super) fn fused_guard(&mut self, pc: usize, op: &Op, next: &Op, uses: &[usize]) -> bool {
        let Some(r) = op.result else { return false };
        let Some((when_true, when_false)) = condition(op.opcode) else {
            return false;
        };
        let fails_on = match next.opcode {
            Opcode::GuardTrue => when_false,
            Opcode::GuardFalse => when_true,
            _ => return false,
        };
        if next.args.first() != Some(&Value::Box(r)) || uses[r] != 1 || op.args.len() != 2 {
            return false;
        }
        let l = self.fail_stub(pc + 1, next);
        let lhs = self.in_register(op.args[0], RAX);
        self.arith(lhs, Arith::Cmp, op.args[1]);
        match fails_on {
            "l" => dynasm!(self.asm ; .arch x64 ; jl =>l),
            "ge" => dynasm!(self.asm ; .arch x64 ; jge =>l),
            "le" => dynasm!(self.asm ; .arch x64 ; jle =>l),
            "g" => dynasm!(self.asm ; .arch x64 ; jg =>l),
            "e" => dynasm!(self.asm ; .arch x64 ; je =>l),
            "ne" => dynasm!(self.asm ; .arch x64 ; jne =>l),
            "b" => dynasm!(self.asm ; .arch x64 ; jb =>l),
            "ae" => dynasm!(self.asm ; .arch x64 ; jae =>l),
            "be" => dynasm!(self.asm ; .arch x64 ; jbe =>l),
            _ => dynasm!(self.asm ; .arch x64 ; ja =>l),
        }
        true
    }

    pub(super) fn guard(&mut self, pc: usize, op: &Op) -> Result<(), String> {
        let name = op.opcode;
        let a = &op.args;
        if name == Opcode::GuardNotForced {
            return Ok(());
        }
        if name == Opcode::GuardNoException && !self.has_residual_calls {
            return Ok(());
        }
        let fail = self.fail_stub(pc, op);
        if let (Some(direct), Opcode::GuardNoException) = (&self.direct_calls, name) {
            // The program's exception state, where a C call leaves one.
            let exc_type = direct.exc_type as i64;
            dynasm!(self.asm
                ; .arch x64
                ; mov rax, QWORD exc_type
                ; cmp QWORD [rax], 0
                ; jne =>fail
            );
            return Ok(());
        }
        if name == Opcode::GuardNoException {
            let addr = super::runtime::exception_pending as *const () as usize;
            self.emit_call(pc, addr, &[super::calls::CallArg::Context], &[]);
            dynasm!(self.asm ; .arch x64 ; test rax, rax ; jnz =>fail);
            return Ok(());
        }
        match name {
            Opcode::GuardTrue | Opcode::GuardNonnull => {
                let r = self.in_register(a[0], RAX);
                dynasm!(self.asm ; .arch x64 ; test Rq(r), Rq(r) ; jz =>fail);
                if let (Value::Box(b), Opcode::GuardNonnull) = (a[0], name) {
                    self.nonnull.insert(b);
                }
            }
            Opcode::GuardFalse | Opcode::GuardIsnull => {
                self.load(RAX, a[0]);
                dynasm!(self.asm ; .arch x64 ; test rax, rax ; jnz =>fail);
            }
            Opcode::GuardValue => {
                let lhs = self.in_register(a[0], RAX);
                self.arith(lhs, Arith::Cmp, a[1]);
                dynasm!(self.asm ; .arch x64 ; jne =>fail);
            }
            Opcode::GuardClass | Opcode::GuardNonnullClass => {
                let on_null = if name == Opcode::GuardClass {
                    self.error_stub(pc, op)
                } else {
                    fail
                };
                self.load(RAX, a[0]);
                dynasm!(self.asm ; .arch x64 ; test rax, rax ; jz =>on_null);
                if self.checks == Checks::Checked {
                    // the interpreter's message for a stray object has no
                    // op index
                    self.check_address(pc, 8, false, op);
                }
                dynasm!(self.asm ; .arch x64 ; mov rax, QWORD [rax]);
                self.arith(RAX, Arith::Cmp, a[1]);
                dynasm!(self.asm ; .arch x64 ; jne =>fail);
                if let Value::Box(b) = a[0] {
                    self.nonnull.insert(b);
                }
            }
            Opcode::GuardNoOverflow | Opcode::GuardOverflow => {
                let d = super::disp(self.frame.ovf);
                dynasm!(self.asm ; .arch x64 ; cmp QWORD [rbx + d], 0);
                if name == Opcode::GuardNoOverflow {
                    dynasm!(self.asm ; .arch x64 ; jne =>fail);
                } else {
                    dynasm!(self.asm ; .arch x64 ; je =>fail);
                }
            }
            _ => return Err(unsupported(op)),
        }
        Ok(())
    }
}

//! Integer and pointer operations, with `llops::eval_int` semantics: an
//! operation undefined for its arguments (a shift out of `0..64`, a division
//! by zero, `MIN / -1`) leaves through an error stub, as the interpreter
//! stops with an error.

use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi};
use rpy_jit::trace::Opcode;
use rpy_jit::trace::{Op, Value};

use super::regalloc::Home;
use super::{unsupported, Gen, RAX, RCX};

/// The two-operand instructions [`Gen::arith`] emits.
#[derive(Clone, Copy)]
pub(super) enum Arith {
    Add,
    Sub,
    Imul,
    And,
    Or,
    Xor,
    Cmp,
}

impl Gen<'_> {
    /// `dst = dst <ins> v` (or `cmp dst, v`), with `v` as a register, a
    /// frame slot or an immediate operand. Uses rcx for wide constants and
    /// SSE-held boxes, so `dst` is never rcx.
    pub(super) fn arith(&mut self, dst: u8, ins: Arith, v: Value) {
        macro_rules! emit {
            ($($m:ident => $i:ident),*) => {
                match v {
                    Value::Box(b) => match self.home(b) {
                        Home::Gp(r) => match ins {
                            Arith::Imul => dynasm!(self.asm ; .arch x64 ; imul Rq(dst), Rq(r)),
                            $(Arith::$m => dynasm!(self.asm ; .arch x64 ; $i Rq(dst), Rq(r)),)*
                        },
                        Home::Slot => {
                            let d = super::disp(b);
                            match ins {
                                Arith::Imul => dynasm!(self.asm ; .arch x64 ; imul Rq(dst), QWORD [rbx + d]),
                                $(Arith::$m => dynasm!(self.asm ; .arch x64 ; $i Rq(dst), QWORD [rbx + d]),)*
                            }
                        }
                        Home::Xmm(_) => {
                            self.load(RCX, v);
                            match ins {
                                Arith::Imul => dynasm!(self.asm ; .arch x64 ; imul Rq(dst), rcx),
                                $(Arith::$m => dynasm!(self.asm ; .arch x64 ; $i Rq(dst), rcx),)*
                            }
                        }
                    },
                    c => {
                        let bits = self.const_bits(c) as i64;
                        match i32::try_from(bits) {
                            Ok(imm) => match ins {
                                Arith::Imul => dynasm!(self.asm ; .arch x64 ; imul Rq(dst), Rq(dst), imm),
                                $(Arith::$m => dynasm!(self.asm ; .arch x64 ; $i Rq(dst), imm),)*
                            },
                            Err(_) => {
                                dynasm!(self.asm ; .arch x64 ; mov rcx, QWORD bits);
                                match ins {
                                    Arith::Imul => dynasm!(self.asm ; .arch x64 ; imul Rq(dst), rcx),
                                    $(Arith::$m => dynasm!(self.asm ; .arch x64 ; $i Rq(dst), rcx),)*
                                }
                            }
                        }
                    }
                }
            };
        }
        emit!(Add => add, Sub => sub, And => and, Or => or, Xor => xor, Cmp => cmp);
    }

    /// `result = a <ins> b`, computed in the result's register when it has
    /// one that `b` does not occupy (saves a move, and in loops whose
    /// carried box shares that register, a dependency).
    fn binary(&mut self, ins: Arith, result: usize, a: Value, b: Value) {
        let b_home = b.as_box().map(|b| self.home(b));
        let dst = match self.home(result) {
            Home::Gp(r) if b_home != Some(Home::Gp(r)) => r,
            _ => RAX,
        };
        self.load(dst, a);
        self.arith(dst, ins, b);
        self.store_box(result, dst);
    }

    pub(super) fn int_op(&mut self, pc: usize, op: &Op) -> Result<(), String> {
        let name = op.opcode;
        let a = &op.args;
        let Some(r) = op.result else {
            return Err(unsupported(op));
        };
        let binary = match name {
            Opcode::IntAdd => Some(Arith::Add),
            Opcode::IntSub => Some(Arith::Sub),
            Opcode::IntMul => Some(Arith::Imul),
            Opcode::IntAnd => Some(Arith::And),
            Opcode::IntOr => Some(Arith::Or),
            Opcode::IntXor => Some(Arith::Xor),
            _ => None,
        };
        if let Some(ins) = binary {
            self.binary(ins, r, a[0], a[1]);
            return Ok(());
        }
        match name {
            Opcode::SameAsI | Opcode::SameAsR => self.load(RAX, a[0]),
            Opcode::IntNeg
            | Opcode::IntInvert
            | Opcode::IntAbs
            | Opcode::IntIsTrue
            | Opcode::IntIsZero
            | Opcode::IntForceGeZero => {
                self.load(RAX, a[0]);
                match name {
                    Opcode::IntNeg => dynasm!(self.asm ; .arch x64 ; neg rax),
                    Opcode::IntInvert => dynasm!(self.asm ; .arch x64 ; not rax),
                    Opcode::IntAbs => dynasm!(self.asm
                        ; .arch x64
                        ; mov rcx, rax
                        ; neg rcx
                        ; cmovns rax, rcx
                    ),
                    Opcode::IntIsTrue => dynasm!(self.asm
                        ; .arch x64
                        ; test rax, rax
                        ; setne al
                        ; movzx eax, al
                    ),
                    Opcode::IntIsZero => dynasm!(self.asm
                        ; .arch x64
                        ; test rax, rax
                        ; sete al
                        ; movzx eax, al
                    ),
                    _ => dynasm!(self.asm
                        ; .arch x64
                        ; xor ecx, ecx
                        ; test rax, rax
                        ; cmovl rax, rcx
                    ),
                }
            }
            Opcode::IntAddOvf | Opcode::IntSubOvf | Opcode::IntMulOvf => {
                self.load(RAX, a[0]);
                let ins = match name {
                    Opcode::IntAddOvf => Arith::Add,
                    Opcode::IntSubOvf => Arith::Sub,
                    _ => Arith::Imul,
                };
                self.arith(RAX, ins, a[1]);
                // the interpreter's result is 0 when the operation overflows
                let d = super::disp(self.frame.ovf);
                dynasm!(self.asm
                    ; .arch x64
                    ; seto dl
                    ; mov ecx, 0
                    ; cmovo rax, rcx
                    ; movzx edx, dl
                    ; mov QWORD [rbx + d], rdx
                );
            }
            Opcode::IntLshift | Opcode::IntRshift | Opcode::UintRshift => {
                let err = self.error_stub(pc, op);
                self.load(RAX, a[0]);
                self.load(RCX, a[1]);
                dynasm!(self.asm ; .arch x64 ; cmp rcx, 63 ; ja =>err);
                match name {
                    Opcode::IntLshift => dynasm!(self.asm ; .arch x64 ; shl rax, cl),
                    Opcode::IntRshift => dynasm!(self.asm ; .arch x64 ; sar rax, cl),
                    _ => dynasm!(self.asm ; .arch x64 ; shr rax, cl),
                }
            }
            Opcode::IntFloordiv | Opcode::IntMod | Opcode::IntPyDiv | Opcode::IntPyMod => {
                let err = self.error_stub(pc, op);
                self.load(RAX, a[0]);
                self.load(RCX, a[1]);
                dynasm!(self.asm
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
                if matches!(name, Opcode::IntPyDiv | Opcode::IntPyMod) {
                    // floor: when the remainder is non-zero and its sign
                    // differs from the divisor's, q -= 1 and r += y
                    dynasm!(self.asm
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
                if matches!(name, Opcode::IntMod | Opcode::IntPyMod) {
                    dynasm!(self.asm ; .arch x64 ; mov rax, rdx);
                }
            }
            Opcode::IntLt
            | Opcode::IntLe
            | Opcode::IntEq
            | Opcode::IntNe
            | Opcode::IntGt
            | Opcode::IntGe
            | Opcode::UintLt
            | Opcode::UintLe
            | Opcode::UintGt
            | Opcode::UintGe
            | Opcode::PtrEq
            | Opcode::PtrNe
            | Opcode::InstancePtrEq
            | Opcode::InstancePtrNe => {
                let lhs = self.in_register(a[0], RAX);
                self.arith(lhs, Arith::Cmp, a[1]);
                match name {
                    Opcode::IntLt => dynasm!(self.asm ; .arch x64 ; setl al),
                    Opcode::IntLe => dynasm!(self.asm ; .arch x64 ; setle al),
                    Opcode::IntEq | Opcode::PtrEq | Opcode::InstancePtrEq => {
                        dynasm!(self.asm ; .arch x64 ; sete al)
                    }
                    Opcode::IntNe | Opcode::PtrNe | Opcode::InstancePtrNe => {
                        dynasm!(self.asm ; .arch x64 ; setne al)
                    }
                    Opcode::IntGt => dynasm!(self.asm ; .arch x64 ; setg al),
                    Opcode::IntGe => dynasm!(self.asm ; .arch x64 ; setge al),
                    Opcode::UintLt => dynasm!(self.asm ; .arch x64 ; setb al),
                    Opcode::UintLe => dynasm!(self.asm ; .arch x64 ; setbe al),
                    Opcode::UintGt => dynasm!(self.asm ; .arch x64 ; seta al),
                    _ => dynasm!(self.asm ; .arch x64 ; setae al),
                }
                dynasm!(self.asm ; .arch x64 ; movzx eax, al);
            }
            _ => return Err(unsupported(op)),
        }
        self.store_box(r, RAX);
        Ok(())
    }
}

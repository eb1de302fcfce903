//! Integer and pointer operations, with `llops::eval_int` semantics: an
//! operation undefined for its arguments (a shift out of `0..64`, a division
//! by zero, `MIN / -1`) leaves through an error stub, as the interpreter
//! stops with an error.

use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi};
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
        let name = op.name();
        let a = &op.args;
        let Some(r) = op.result else {
            return Err(unsupported(op));
        };
        let binary = match name {
            "int_add" => Some(Arith::Add),
            "int_sub" => Some(Arith::Sub),
            "int_mul" => Some(Arith::Imul),
            "int_and" => Some(Arith::And),
            "int_or" => Some(Arith::Or),
            "int_xor" => Some(Arith::Xor),
            _ => None,
        };
        if let Some(ins) = binary {
            self.binary(ins, r, a[0], a[1]);
            return Ok(());
        }
        match name {
            "same_as_i" | "same_as_r" => self.load(RAX, a[0]),
            "int_neg" | "int_invert" | "int_abs" | "int_is_true" | "int_is_zero"
            | "int_force_ge_zero" => {
                self.load(RAX, a[0]);
                match name {
                    "int_neg" => dynasm!(self.asm ; .arch x64 ; neg rax),
                    "int_invert" => dynasm!(self.asm ; .arch x64 ; not rax),
                    "int_abs" => dynasm!(self.asm
                        ; .arch x64
                        ; mov rcx, rax
                        ; neg rcx
                        ; cmovns rax, rcx
                    ),
                    "int_is_true" => dynasm!(self.asm
                        ; .arch x64
                        ; test rax, rax
                        ; setne al
                        ; movzx eax, al
                    ),
                    "int_is_zero" => dynasm!(self.asm
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
            "int_add_ovf" | "int_sub_ovf" | "int_mul_ovf" => {
                self.load(RAX, a[0]);
                let ins = match name {
                    "int_add_ovf" => Arith::Add,
                    "int_sub_ovf" => Arith::Sub,
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
            "int_lshift" | "int_rshift" | "uint_rshift" => {
                let err = self.error_stub(pc, op);
                self.load(RAX, a[0]);
                self.load(RCX, a[1]);
                dynasm!(self.asm ; .arch x64 ; cmp rcx, 63 ; ja =>err);
                match name {
                    "int_lshift" => dynasm!(self.asm ; .arch x64 ; shl rax, cl),
                    "int_rshift" => dynasm!(self.asm ; .arch x64 ; sar rax, cl),
                    _ => dynasm!(self.asm ; .arch x64 ; shr rax, cl),
                }
            }
            "int_floordiv" | "int_mod" | "int_py_div" | "int_py_mod" => {
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
                if name.starts_with("int_py") {
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
                if name.ends_with("mod") {
                    dynasm!(self.asm ; .arch x64 ; mov rax, rdx);
                }
            }
            "int_lt" | "int_le" | "int_eq" | "int_ne" | "int_gt" | "int_ge" | "uint_lt"
            | "uint_le" | "uint_gt" | "uint_ge" | "ptr_eq" | "ptr_ne" | "instance_ptr_eq"
            | "instance_ptr_ne" => {
                let lhs = self.in_register(a[0], RAX);
                self.arith(lhs, Arith::Cmp, a[1]);
                match name {
                    "int_lt" => dynasm!(self.asm ; .arch x64 ; setl al),
                    "int_le" => dynasm!(self.asm ; .arch x64 ; setle al),
                    "int_eq" | "ptr_eq" | "instance_ptr_eq" => {
                        dynasm!(self.asm ; .arch x64 ; sete al)
                    }
                    "int_ne" | "ptr_ne" | "instance_ptr_ne" => {
                        dynasm!(self.asm ; .arch x64 ; setne al)
                    }
                    "int_gt" => dynasm!(self.asm ; .arch x64 ; setg al),
                    "int_ge" => dynasm!(self.asm ; .arch x64 ; setge al),
                    "uint_lt" => dynasm!(self.asm ; .arch x64 ; setb al),
                    "uint_le" => dynasm!(self.asm ; .arch x64 ; setbe al),
                    "uint_gt" => dynasm!(self.asm ; .arch x64 ; seta al),
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

//! Float operations with SSE2, with Rust's `f64` semantics (which the
//! interpreter uses): comparisons are false on NaN except `!=`,
//! `cast_float_to_int` saturates and maps NaN to 0, negation and absolute
//! value only touch the sign bit.

use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi};
use rpy_jit::trace::Opcode;
use rpy_jit::trace::{Op, Value};

use super::regalloc::Home;
use super::{unsupported, Gen, RAX};

impl Gen<'_> {
    /// `xmm = v` (uses rax for constants).
    fn load_float(&mut self, x: u8, v: Value) {
        match v {
            Value::Box(b) => match self.home(b) {
                Home::Xmm(y) if y == x => {}
                Home::Xmm(y) => dynasm!(self.asm ; .arch x64 ; movapd Rx(x), Rx(y)),
                Home::Gp(r) => dynasm!(self.asm ; .arch x64 ; movq Rx(x), Rq(r)),
                Home::Slot => {
                    let d = super::disp(b);
                    dynasm!(self.asm ; .arch x64 ; movsd Rx(x), QWORD [rbx + d]);
                }
            },
            c => {
                self.load_const(RAX, self.const_bits(c) as i64);
                dynasm!(self.asm ; .arch x64 ; movq Rx(x), rax);
            }
        }
    }

    /// `box = xmm`.
    fn store_float(&mut self, b: usize, x: u8) {
        match self.home(b) {
            Home::Xmm(y) if y == x => {}
            Home::Xmm(y) => dynasm!(self.asm ; .arch x64 ; movapd Rx(y), Rx(x)),
            Home::Gp(r) => dynasm!(self.asm ; .arch x64 ; movq Rq(r), Rx(x)),
            Home::Slot => {
                let d = super::disp(b);
                dynasm!(self.asm ; .arch x64 ; movsd QWORD [rbx + d], Rx(x));
            }
        }
    }

    pub(super) fn float_op(&mut self, op: &Op) -> Result<(), String> {
        let name = op.opcode;
        let a = &op.args;
        let Some(r) = op.result else {
            return Err(unsupported(op));
        };
        match name {
            Opcode::FloatAdd | Opcode::FloatSub | Opcode::FloatMul | Opcode::FloatTruediv => {
                self.load_float(1, a[1]);
                self.load_float(0, a[0]);
                match name {
                    Opcode::FloatAdd => dynasm!(self.asm ; .arch x64 ; addsd xmm0, xmm1),
                    Opcode::FloatSub => dynasm!(self.asm ; .arch x64 ; subsd xmm0, xmm1),
                    Opcode::FloatMul => dynasm!(self.asm ; .arch x64 ; mulsd xmm0, xmm1),
                    _ => dynasm!(self.asm ; .arch x64 ; divsd xmm0, xmm1),
                }
                self.store_float(r, 0);
            }
            Opcode::FloatNeg | Opcode::FloatAbs | Opcode::SameAsF => {
                self.load(RAX, a[0]);
                match name {
                    Opcode::FloatNeg => dynasm!(self.asm ; .arch x64 ; btc rax, 63),
                    Opcode::FloatAbs => dynasm!(self.asm ; .arch x64 ; btr rax, 63),
                    _ => {}
                }
                self.store_box(r, RAX);
            }
            Opcode::FloatLt | Opcode::FloatLe | Opcode::FloatGt | Opcode::FloatGe => {
                // a < b is b > a: "above" is false when unordered
                let (x, y) = match name {
                    Opcode::FloatLt | Opcode::FloatLe => (a[1], a[0]),
                    _ => (a[0], a[1]),
                };
                self.load_float(1, y);
                self.load_float(0, x);
                dynasm!(self.asm ; .arch x64 ; ucomisd xmm0, xmm1);
                if matches!(name, Opcode::FloatLt | Opcode::FloatGt) {
                    dynasm!(self.asm ; .arch x64 ; seta al);
                } else {
                    dynasm!(self.asm ; .arch x64 ; setae al);
                }
                dynasm!(self.asm ; .arch x64 ; movzx eax, al);
                self.store_box(r, RAX);
            }
            Opcode::FloatEq | Opcode::FloatNe => {
                self.load_float(1, a[1]);
                self.load_float(0, a[0]);
                dynasm!(self.asm ; .arch x64 ; ucomisd xmm0, xmm1);
                if name == Opcode::FloatEq {
                    dynasm!(self.asm ; .arch x64 ; sete al ; setnp cl ; and al, cl);
                } else {
                    dynasm!(self.asm ; .arch x64 ; setne al ; setp cl ; or al, cl);
                }
                dynasm!(self.asm ; .arch x64 ; movzx eax, al);
                self.store_box(r, RAX);
            }
            Opcode::CastIntToFloat => {
                self.load(RAX, a[0]);
                dynasm!(self.asm ; .arch x64 ; cvtsi2sd xmm0, rax);
                self.store_float(r, 0);
            }
            Opcode::CastFloatToInt => {
                // cvttsd2si gives MIN for NaN and out-of-range values; Rust
                // gives 0 for NaN and saturates
                self.load_float(0, a[0]);
                dynasm!(self.asm
                    ; .arch x64
                    ; cvttsd2si rax, xmm0
                    ; mov rcx, QWORD i64::MIN
                    ; cmp rax, rcx
                    ; jne >done
                    ; ucomisd xmm0, xmm0
                    ; jnp >ordered
                    ; xor eax, eax
                    ; jmp >done
                    ; ordered:
                    ; xorpd xmm1, xmm1
                    ; ucomisd xmm0, xmm1
                    ; jbe >done
                    ; not rax
                    ; done:
                );
                self.store_box(r, RAX);
            }
            _ => return Err(unsupported(op)),
        }
        Ok(())
    }
}

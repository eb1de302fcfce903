//! Fields, array items, array lengths and allocation, at the offsets of the
//! descrs (`rpy_ir::lltype` layouts, the interpreter's). One-byte types
//! (`Char`, `Bool`) are read zero-extended and written truncated; every
//! other type is a word. As in the interpreter, a null first argument is an
//! error and a GC array index is checked against the length; allocation
//! calls the interpreter's allocator through `runtime`.

use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi};
use rpy_jit::trace::{DescrData, Op, Value};

use super::calls::CallArg;
use super::runtime;
use super::{unsupported, Checks, Gen, RAX, RCX, RDX};

/// The access size of a value of `ty`: one byte or a word.
fn access_size(ty: &rpy_ir::lltype::LowLevelType) -> usize {
    if ty.size_align().0 == 1 {
        1
    } else {
        8
    }
}

fn offset(n: usize, op: &Op) -> Result<i32, String> {
    i32::try_from(n).map_err(|_| format!("x86_64 backend: offset {n} of {} too large", op.name()))
}

impl Gen<'_> {
    /// In checked mode, checks that `size` bytes at the address in rax lie
    /// in a live object (an error exit otherwise, with the heap's message,
    /// followed by " at op N" when `with_pc`); rax is kept.
    pub(super) fn check_address(&mut self, pc: usize, size: usize, with_pc: bool, op: &Op) {
        if self.checks != Checks::Checked {
            return;
        }
        self.store_slot(self.frame.scratch, RAX);
        let err = self.error_stub(pc, op);
        let shown_pc = if with_pc { pc as i64 } else { -1 };
        self.emit_call(
            pc,
            runtime::check_access as *const () as usize,
            &[
                CallArg::Context,
                CallArg::Reg(RAX),
                CallArg::Imm(size as i64),
                CallArg::Imm(shown_pc),
            ],
            &[],
        );
        dynasm!(self.asm ; .arch x64 ; test rax, rax ; jz =>err);
        self.load_slot(RAX, self.frame.scratch);
    }

    /// rax = the first argument, leaving through the error stub when null.
    fn load_nonnull_base(&mut self, pc: usize, op: &Op) {
        let err = self.error_stub(pc, op);
        self.load(RAX, op.args[0]);
        dynasm!(self.asm ; .arch x64 ; test rax, rax ; jz =>err);
    }

    /// Reads `size` bytes at `[rax + disp]` into rax.
    fn read_at_rax(&mut self, pc: usize, size: usize, disp: i32, op: &Op) {
        let mut disp = disp;
        if self.checks == Checks::Checked {
            if disp != 0 {
                dynasm!(self.asm ; .arch x64 ; lea rax, [rax + disp]);
                disp = 0;
            }
            self.check_address(pc, size, true, op);
        }
        if size == 1 {
            dynasm!(self.asm ; .arch x64 ; movzx eax, BYTE [rax + disp]);
        } else {
            dynasm!(self.asm ; .arch x64 ; mov rax, QWORD [rax + disp]);
        }
    }

    /// Writes `v` (`size` bytes) at `[rax + disp]`; uses rdx.
    fn write_at_rax(&mut self, pc: usize, size: usize, disp: i32, v: Value, op: &Op) {
        let mut disp = disp;
        if self.checks == Checks::Checked {
            if disp != 0 {
                dynasm!(self.asm ; .arch x64 ; lea rax, [rax + disp]);
                disp = 0;
            }
            self.check_address(pc, size, true, op);
        }
        self.load(RDX, v);
        if size == 1 {
            dynasm!(self.asm ; .arch x64 ; mov BYTE [rax + disp], dl);
        } else {
            dynasm!(self.asm ; .arch x64 ; mov QWORD [rax + disp], rdx);
        }
    }

    /// rcx = rcx * `item_size` (wrapping).
    fn scale_index(&mut self, item_size: usize) {
        match item_size {
            1 => {}
            s if s.is_power_of_two() => {
                let sh = s.trailing_zeros() as i8;
                dynasm!(self.asm ; .arch x64 ; shl rcx, sh);
            }
            s => {
                let s = s as i32;
                dynasm!(self.asm ; .arch x64 ; imul rcx, rcx, s);
            }
        }
    }

    pub(super) fn memory(&mut self, pc: usize, op: &Op) -> Result<(), String> {
        let name = op.name();
        let a = &op.args;
        let descr_id = op.descr.ok_or_else(|| unsupported(op))?;
        let descr = self.trace.header.descrs[descr_id].data.clone();
        match (name, descr) {
            ("new" | "new_with_vtable", _) => {
                let err = self.error_stub(pc, op);
                self.emit_call(
                    pc,
                    runtime::new_object as *const () as usize,
                    &[CallArg::Context, CallArg::Imm(descr_id as i64)],
                    &[],
                );
                dynasm!(self.asm ; .arch x64 ; test rax, rax ; jz =>err);
            }
            ("new_array" | "new_array_clear", _) => {
                let err = self.error_stub(pc, op);
                self.emit_call(
                    pc,
                    runtime::new_array as *const () as usize,
                    &[
                        CallArg::Context,
                        CallArg::Imm(descr_id as i64),
                        CallArg::Value(a[0]),
                    ],
                    &[],
                );
                dynasm!(self.asm ; .arch x64 ; test rax, rax ; jz =>err);
            }
            (
                _,
                DescrData::Field {
                    offset: off, ty, ..
                },
            ) => {
                let disp = offset(off, op)?;
                let size = access_size(&ty);
                self.load_nonnull_base(pc, op);
                if name.starts_with("get") {
                    self.read_at_rax(pc, size, disp, op);
                } else {
                    self.write_at_rax(pc, size, disp, a[1], op);
                    return Ok(());
                }
            }
            ("arraylen_gc", DescrData::Array { length_offset, .. }) => {
                let disp = offset(length_offset, op)?;
                self.load_nonnull_base(pc, op);
                self.read_at_rax(pc, 8, disp, op);
            }
            (
                _,
                DescrData::Array {
                    item,
                    length_offset,
                    items_offset,
                    item_size,
                    ..
                },
            ) => {
                let size = access_size(&item);
                let items = offset(items_offset, op)?;
                self.load_nonnull_base(pc, op);
                if name.contains("_gc") {
                    // the index must be below the length (unsigned: also >= 0)
                    let len = offset(length_offset, op)?;
                    if self.checks == Checks::Checked {
                        self.read_at_rax(pc, 8, len, op);
                        dynasm!(self.asm ; .arch x64 ; mov rdx, rax);
                        self.load(RAX, a[0]);
                    } else {
                        dynasm!(self.asm ; .arch x64 ; mov rdx, QWORD [rax + len]);
                    }
                    self.load(RCX, a[1]);
                    let err = self.error_stub(pc, op);
                    dynasm!(self.asm ; .arch x64 ; cmp rcx, rdx ; jae =>err);
                    self.scale_index(item_size);
                    dynasm!(self.asm ; .arch x64 ; add rax, rcx);
                } else {
                    self.load(RCX, a[1]);
                    self.scale_index(item_size);
                    dynasm!(self.asm ; .arch x64 ; add rax, rcx);
                }
                let disp = if name.contains("_gc") { items } else { 0 };
                if name.starts_with("get") {
                    self.read_at_rax(pc, size, disp, op);
                } else {
                    self.write_at_rax(pc, size, disp, a[2], op);
                    return Ok(());
                }
            }
            _ => return Err(unsupported(op)),
        }
        match op.result {
            Some(r) => self.store_box(r, RAX),
            None => return Err(unsupported(op)),
        }
        Ok(())
    }
}

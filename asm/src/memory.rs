//! Fields, array items, array lengths and allocation, at the offsets of the
//! descrs (`rpy_ir::lltype` layouts, the interpreter's). One-byte types
//! (`Char`, `Bool`) are read zero-extended and written truncated; every
//! other type is a word. As in the interpreter, a null first argument is an
//! error and a GC array index is checked against the length; allocation
//! calls the interpreter's allocator through `runtime`, or, for code that
//! runs on a translated program's memory, the program's allocator (and
//! a GC pointer stored goes through the program's write barrier).

use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi};
use rpy_jit::native::loops::ProgramMemory;
use rpy_jit::trace::Opcode;
use rpy_jit::trace::{DescrData, Op, Value};

use super::calls::CallArg;
use super::ints::Arith;
use super::regalloc::Home;
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

/// A memory operand `[base + index * scale + disp]`, scale 1 or 8.
#[derive(Clone, Copy)]
struct Place {
    base: u8,
    index: Option<(u8, u8)>,
    disp: i32,
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

    /// A register holding the first argument, which is not null: checked
    /// unless known (an error exit when null, as in the interpreter).
    fn nonnull_base(&mut self, pc: usize, op: &Op) -> u8 {
        let base = match self.checks {
            // checked accesses compute their address in rax
            Checks::Checked => {
                self.load(RAX, op.args[0]);
                RAX
            }
            Checks::Trusting => self.in_register(op.args[0], RAX),
        };
        let known = matches!(op.args[0], Value::Box(b) if self.nonnull.contains(&b));
        if !known {
            let err = self.error_stub(pc, op);
            dynasm!(self.asm ; .arch x64 ; test Rq(base), Rq(base) ; jz =>err);
            if let Value::Box(b) = op.args[0] {
                self.nonnull.insert(b);
            }
        }
        base
    }

    /// `rax = address of place`.
    fn lea_rax(&mut self, at: Place) {
        let (b, d) = (at.base, at.disp);
        match at.index {
            None => dynasm!(self.asm ; .arch x64 ; lea rax, [Rq(b) + d]),
            Some((i, 8)) => dynasm!(self.asm ; .arch x64 ; lea rax, [Rq(b) + Rq(i) * 8 + d]),
            Some((i, _)) => dynasm!(self.asm ; .arch x64 ; lea rax, [Rq(b) + Rq(i) + d]),
        }
    }

    /// In checked mode, the place as `[rax]` after checking its `size`
    /// bytes; else the place itself.
    fn checked_place(&mut self, pc: usize, at: Place, size: usize, op: &Op) -> Place {
        if self.checks != Checks::Checked {
            return at;
        }
        self.lea_rax(at);
        self.check_address(pc, size, true, op);
        Place {
            base: RAX,
            index: None,
            disp: 0,
        }
    }

    /// `dst = size bytes at place` (zero-extended).
    fn read(&mut self, dst: u8, at: Place, size: usize) {
        let (b, d) = (at.base, at.disp);
        match (size, at.index) {
            (1, None) => dynasm!(self.asm ; .arch x64 ; movzx Rd(dst), BYTE [Rq(b) + d]),
            (1, Some((i, 8))) => {
                dynasm!(self.asm ; .arch x64 ; movzx Rd(dst), BYTE [Rq(b) + Rq(i) * 8 + d])
            }
            (1, Some((i, _))) => {
                dynasm!(self.asm ; .arch x64 ; movzx Rd(dst), BYTE [Rq(b) + Rq(i) + d])
            }
            (_, None) => dynasm!(self.asm ; .arch x64 ; mov Rq(dst), QWORD [Rq(b) + d]),
            (_, Some((i, 8))) => {
                dynasm!(self.asm ; .arch x64 ; mov Rq(dst), QWORD [Rq(b) + Rq(i) * 8 + d])
            }
            (_, Some((i, _))) => {
                dynasm!(self.asm ; .arch x64 ; mov Rq(dst), QWORD [Rq(b) + Rq(i) + d])
            }
        }
    }

    /// `size bytes at place = v`; uses rdx.
    fn write(&mut self, at: Place, v: Value, size: usize) {
        let (b, d) = (at.base, at.disp);
        let src = if size == 1 {
            // the low byte of rdx needs no REX subtleties
            self.load(RDX, v);
            RDX
        } else {
            self.in_register(v, RDX)
        };
        match (size, at.index) {
            (1, None) => dynasm!(self.asm ; .arch x64 ; mov BYTE [Rq(b) + d], dl),
            (1, Some((i, 8))) => {
                dynasm!(self.asm ; .arch x64 ; mov BYTE [Rq(b) + Rq(i) * 8 + d], dl)
            }
            (1, Some((i, _))) => dynasm!(self.asm ; .arch x64 ; mov BYTE [Rq(b) + Rq(i) + d], dl),
            (_, None) => dynasm!(self.asm ; .arch x64 ; mov QWORD [Rq(b) + d], Rq(src)),
            (_, Some((i, 8))) => {
                dynasm!(self.asm ; .arch x64 ; mov QWORD [Rq(b) + Rq(i) * 8 + d], Rq(src))
            }
            (_, Some((i, _))) => {
                dynasm!(self.asm ; .arch x64 ; mov QWORD [Rq(b) + Rq(i) + d], Rq(src))
            }
        }
    }

    /// A register for the index times `item_size`, as (register, scale).
    fn scaled_index(&mut self, v: Value, item_size: usize) -> (u8, u8) {
        match item_size {
            1 | 8 => (self.in_register(v, RCX), item_size as u8),
            s => {
                self.load(RCX, v);
                let s = s as i32;
                dynasm!(self.asm ; .arch x64 ; imul rcx, rcx, s);
                (RCX, 1)
            }
        }
    }

    /// The register a read result goes to: the result's own, if it has one.
    fn result_register(&self, op: &Op) -> u8 {
        match op.result.map(|r| self.home(r)) {
            Some(Home::Gp(r)) => r,
            _ => RAX,
        }
    }

    pub(super) fn memory(&mut self, pc: usize, op: &Op) -> Result<(), String> {
        // a string operation is the array operation on its implied array
        let name = rpy_jit::trace::array_equivalent(op.opcode).unwrap_or(op.opcode);
        let a = &op.args;
        let descr_id = op.descr.ok_or_else(|| unsupported(op))?;
        let descr = self.trace.header.descrs[descr_id].data.clone();
        let dst = self.result_register(op);
        if let Some(memory) = self.memory {
            if self.program_memory(pc, op, &descr, memory)? {
                return Ok(());
            }
        }
        match (name, descr) {
            (Opcode::New | Opcode::NewWithVtable, _) => {
                let err = self.error_stub(pc, op);
                self.emit_call(
                    pc,
                    runtime::new_object as *const () as usize,
                    &[CallArg::Context, CallArg::Imm(descr_id as i64)],
                    &[],
                );
                dynasm!(self.asm ; .arch x64 ; test rax, rax ; jz =>err);
                self.store_box_nonnull(op, RAX);
            }
            (Opcode::Copystrcontent | Opcode::Copyunicodecontent, _) => {
                let err = self.error_stub(pc, op);
                let helper = match name {
                    Opcode::Copystrcontent => runtime::copy_content::<false> as *const () as usize,
                    _ => runtime::copy_content::<true> as *const () as usize,
                };
                let mut args = vec![CallArg::Context];
                args.extend(a.iter().map(|v| CallArg::Value(*v)));
                self.emit_call(pc, helper, &args, &[]);
                dynasm!(self.asm ; .arch x64 ; test rax, rax ; jz =>err);
            }
            (Opcode::NewArray | Opcode::NewArrayClear, _) => {
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
                self.store_box_nonnull(op, RAX);
            }
            (
                _,
                DescrData::Field {
                    offset: off, ty, ..
                },
            ) => {
                let size = access_size(&ty);
                let base = self.nonnull_base(pc, op);
                let at = Place {
                    base,
                    index: None,
                    disp: offset(off, op)?,
                };
                let at = self.checked_place(pc, at, size, op);
                if name.is_load() {
                    self.read(dst, at, size);
                    self.store_result(op, dst)?;
                } else {
                    self.write(at, a[1], size);
                }
            }
            (Opcode::ArraylenGc, DescrData::Array { length_offset, .. }) => {
                let base = self.nonnull_base(pc, op);
                let at = Place {
                    base,
                    index: None,
                    disp: offset(length_offset, op)?,
                };
                let at = self.checked_place(pc, at, 8, op);
                self.read(dst, at, 8);
                self.store_result(op, dst)?;
                if let (Value::Box(array), Some(len)) = (a[0], op.result) {
                    self.known_length.insert(array, len);
                }
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
                let gc = !name.is_raw();
                let mut base = self.nonnull_base(pc, op);
                // A translated program checks its indices itself where its
                // semantics say to (the ll helpers of lists), as its C code
                // does; the reference semantics check every one.
                if gc && self.memory.is_none() {
                    self.bounds_check(pc, op, base, length_offset)?;
                    if self.checks == Checks::Checked {
                        // the check's call clobbered rax
                        self.load(RAX, a[0]);
                        base = RAX;
                    }
                }
                let items = if gc { offset(items_offset, op)? } else { 0 };
                // A constant index is part of the displacement.
                let constant = match a[1] {
                    Value::Int(k) => k
                        .checked_mul(item_size as i64)
                        .and_then(|d| i32::try_from(d).ok())
                        .and_then(|d| d.checked_add(items)),
                    _ => None,
                };
                let at = match constant {
                    Some(disp) => Place {
                        base,
                        index: None,
                        disp,
                    },
                    None => Place {
                        base,
                        index: Some(self.scaled_index(a[1], item_size)),
                        disp: items,
                    },
                };
                let at = self.checked_place(pc, at, size, op);
                if name.is_load() {
                    self.read(dst, at, size);
                    self.store_result(op, dst)?;
                } else {
                    self.write(at, a[2], size);
                }
            }
            _ => return Err(unsupported(op)),
        }
        Ok(())
    }

    /// What differs when the code runs on a translated program's memory:
    /// objects come from its allocator (a call that may collect), and a
    /// GC pointer stored into an object goes through its write barrier
    /// first when the object's header asks for it. Whether `op` was
    /// emitted whole.
    fn program_memory(
        &mut self,
        pc: usize,
        op: &Op,
        descr: &DescrData,
        memory: ProgramMemory,
    ) -> Result<bool, String> {
        let name = op.opcode;
        match (name, descr) {
            (
                Opcode::New | Opcode::NewWithVtable,
                DescrData::Size { size, type_id, .. } | DescrData::Class { size, type_id, .. },
            ) => {
                let args = [CallArg::Imm(*size as i64), CallArg::Imm(*type_id as i64)];
                self.emit_collecting_call(pc, memory.malloc, &args, &[]);
                self.store_box_nonnull(op, RAX);
                return Ok(true);
            }
            (
                Opcode::NewArray | Opcode::NewArrayClear,
                DescrData::Array {
                    length_offset,
                    items_offset,
                    item_size,
                    type_id,
                    ..
                },
            ) => {
                let args = [
                    CallArg::Imm(*items_offset as i64),
                    CallArg::Imm(*items_offset as i64),
                    CallArg::Imm(*item_size as i64),
                    CallArg::Value(op.args[0]),
                    CallArg::Imm(*length_offset as i64),
                    CallArg::Imm(*type_id as i64),
                ];
                self.emit_collecting_call(pc, memory.malloc_varsize, &args, &[]);
                self.store_box_nonnull(op, RAX);
                return Ok(true);
            }
            (Opcode::New | Opcode::NewWithVtable | Opcode::NewArray | Opcode::NewArrayClear, _) => {
                return Err(unsupported(op))
            }
            _ => {}
        }
        let stores_pointer = matches!(name, Opcode::SetfieldGc | Opcode::SetarrayitemGc)
            && op
                .args
                .last()
                .is_some_and(|v| self.trace.kind(*v) == rpy_jit::trace::Kind::Ref);
        if let (true, Some(gc)) = (stores_pointer, memory.moving) {
            // (Null is left to the store's own check.)
            let skip = self.asm.new_dynamic_label();
            let bit = gc.young_flag.trailing_zeros() as i8;
            self.load(RAX, op.args[0]);
            dynasm!(self.asm
                ; .arch x64
                ; test rax, rax
                ; jz =>skip
                ; mov rdx, QWORD [rax]
                ; bt rdx, bit
                ; jnc =>skip
            );
            self.emit_call(pc, gc.write_barrier, &[CallArg::Reg(RAX)], &[]);
            dynasm!(self.asm ; .arch x64 ; =>skip);
        }
        Ok(false)
    }

    /// Leaves through the error stub unless `0 <= index < length` (one
    /// unsigned comparison); the length is a live box when `arraylen_gc`
    /// read it since the last label, else read at `[base + length_offset]`.
    fn bounds_check(
        &mut self,
        pc: usize,
        op: &Op,
        base: u8,
        length_offset: usize,
    ) -> Result<(), String> {
        let known = match op.args[0] {
            Value::Box(array) => self
                .known_length
                .get(&array)
                .copied()
                .filter(|len| self.alloc.live_at(*len, pc)),
            _ => None,
        };
        // the length: a live box, or rdx after reading it
        let len_box = known.filter(|_| self.checks == Checks::Trusting);
        if len_box.is_none() {
            let at = Place {
                base,
                index: None,
                disp: offset(length_offset, op)?,
            };
            let at = self.checked_place(pc, at, 8, op);
            self.read(RDX, at, 8);
        }
        let index = self.in_register(op.args[1], RCX);
        let err = self.error_stub(pc, op);
        match len_box {
            Some(len) => self.arith(index, Arith::Cmp, Value::Box(len)),
            None => dynasm!(self.asm ; .arch x64 ; cmp Rq(index), rdx),
        }
        dynasm!(self.asm ; .arch x64 ; jae =>err);
        Ok(())
    }

    fn store_result(&mut self, op: &Op, reg: u8) -> Result<(), String> {
        let r = op.result.ok_or_else(|| unsupported(op))?;
        self.store_box(r, reg);
        Ok(())
    }

    /// Stores a new object's address, which is never null.
    fn store_box_nonnull(&mut self, op: &Op, reg: u8) {
        if let Some(r) = op.result {
            self.store_box(r, reg);
            self.nonnull.insert(r);
        }
    }
}

//! Checked memory: blocks of bytes allocated with `std::alloc`, every access
//! checked to fall inside a live block, so a bad address is an error, never
//! a crash or undefined behaviour.
//!
//! The LLInterpreter's objects live in one (each object one block, laid
//! out at `ContainerType::layout`), and the JIT's trace interpreter and
//! machine code run traces on one (`rpy_jit::interp::Heap` wraps it): in
//! `rpy interp --jit`, on the LLInterpreter's own. Blocks are freed when
//! the memory is dropped, all at once; none is freed before, so the cache
//! of the last block found stays right.

use rpy_ir::lltype::LowLevelType;
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

/// Live blocks of zeroed memory, by address.
#[derive(Default)]
pub struct CheckedHeap {
    /// By address: every access is checked to fall inside one (a loop that
    /// allocates makes many, so the lookup must not scan them all).
    blocks: RefCell<BTreeMap<usize, Layout>>,
    /// The block the last check found, `[start, end)`: consecutive accesses
    /// mostly touch one object.
    last: Cell<(usize, usize)>,
    /// Bytes allocated so far (by the layouts' sizes, rounded up to 8).
    allocated: Cell<u64>,
}

impl Drop for CheckedHeap {
    fn drop(&mut self) {
        for (p, l) in std::mem::take(self.blocks.get_mut()) {
            // SAFETY: every block was allocated by `alloc_zeroed` with this layout.
            unsafe { dealloc(p as *mut u8, l) }
        }
    }
}

impl CheckedHeap {
    /// A zeroed block of `size` bytes; `None` when the size is absurd or
    /// the system has no memory left.
    pub fn alloc(&self, size: usize, align: usize) -> Option<usize> {
        let layout = Layout::from_size_align(size.max(8), align.max(8)).ok()?;
        if layout.size() > 1 << 32 {
            return None;
        }
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { alloc_zeroed(layout) };
        if p.is_null() {
            return None;
        }
        self.allocated
            .set(self.allocated.get() + layout.size() as u64);
        self.blocks.borrow_mut().insert(p as usize, layout);
        Some(p as usize)
    }

    /// How many bytes have been allocated.
    pub fn allocated_bytes(&self) -> u64 {
        self.allocated.get()
    }

    /// How many blocks are live.
    pub fn block_count(&self) -> usize {
        self.blocks.borrow().len()
    }

    /// Checks that `[addr, addr + size)` lies inside one live block.
    pub fn check(&self, addr: usize, size: usize) -> Result<(), String> {
        if addr == 0 {
            return Err("null pointer dereference".into());
        }
        let (start, end) = self.last.get();
        if addr >= start && addr.checked_add(size).is_some_and(|e| e <= end) {
            return Ok(());
        }
        // the block starting at or below addr is the only one that can hold it
        let found = self
            .blocks
            .borrow()
            .range(..=addr)
            .next_back()
            .map(|(p, l)| (*p, p + l.size()));
        match found {
            Some((p, e)) if addr.checked_add(size).is_some_and(|x| x <= e) => {
                self.last.set((p, e));
                Ok(())
            }
            _ => Err(format!("access to 0x{addr:x} outside any object")),
        }
    }

    /// Reads a value of type `ty` at `addr`, as bits.
    pub fn read(&self, addr: usize, ty: &LowLevelType) -> Result<u64, String> {
        let (size, _) = ty.size_align();
        self.check(addr, size)?;
        // SAFETY: `check` proved [addr, addr+size) lies in a live block.
        unsafe {
            Ok(match size {
                // A Void value (an item of a list of None) has no bits.
                0 => 0,
                1 => *(addr as *const u8) as u64,
                _ => (addr as *const u64).read_unaligned(),
            })
        }
    }

    /// Writes `bits` as a value of type `ty` at `addr`.
    pub fn write(&self, addr: usize, ty: &LowLevelType, bits: u64) -> Result<(), String> {
        let (size, _) = ty.size_align();
        self.check(addr, size)?;
        // SAFETY: as in `read`.
        unsafe {
            match size {
                0 => {}
                1 => *(addr as *mut u8) = bits as u8,
                _ => (addr as *mut u64).write_unaligned(bits),
            }
        }
        Ok(())
    }

    /// Reads the word at `addr`.
    pub fn read_word(&self, addr: usize) -> Result<u64, String> {
        self.check(addr, 8)?;
        // SAFETY: as in `read`.
        Ok(unsafe { (addr as *const u64).read_unaligned() })
    }

    /// Writes the word at `addr`.
    pub fn write_word(&self, addr: usize, bits: u64) -> Result<(), String> {
        self.check(addr, 8)?;
        // SAFETY: as in `read`.
        unsafe { (addr as *mut u64).write_unaligned(bits) };
        Ok(())
    }

    /// A copy of the `len` bytes at `addr`.
    pub fn read_bytes(&self, addr: usize, len: usize) -> Result<Vec<u8>, String> {
        if len == 0 {
            return Ok(Vec::new());
        }
        self.check(addr, len)?;
        // SAFETY: as in `read`.
        Ok(unsafe { std::slice::from_raw_parts(addr as *const u8, len) }.to_vec())
    }

    /// Runs `f` on the `len` bytes at `addr`, without copying them.
    pub fn with_bytes<R>(
        &self,
        addr: usize,
        len: usize,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, String> {
        if len == 0 {
            return Ok(f(&[]));
        }
        self.check(addr, len)?;
        // SAFETY: as in `read`; `f` gets no way to free or write the block.
        Ok(f(unsafe {
            std::slice::from_raw_parts(addr as *const u8, len)
        }))
    }

    /// Writes `bytes` at `addr`.
    pub fn write_bytes(&self, addr: usize, bytes: &[u8]) -> Result<(), String> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.check(addr, bytes.len())?;
        // SAFETY: as in `read`; the source is a Rust slice, not heap memory
        // the caller could hold borrowed.
        unsafe { std::ptr::copy(bytes.as_ptr(), addr as *mut u8, bytes.len()) };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accesses_outside_live_blocks_are_errors() {
        let heap = CheckedHeap::default();
        let p = heap.alloc(24, 8).unwrap();
        heap.write(p + 16, &LowLevelType::Signed, 7).unwrap();
        assert_eq!(heap.read(p + 16, &LowLevelType::Signed), Ok(7));
        assert!(heap.read(p + 17, &LowLevelType::Signed).is_err());
        assert!(heap.read(0, &LowLevelType::Char).is_err());
        assert!(heap.read(p + 24, &LowLevelType::Char).is_err());
        heap.write_bytes(p + 8, b"abc").unwrap();
        assert_eq!(heap.read_bytes(p + 8, 3).unwrap(), b"abc");
        assert!(heap.read_bytes(p + 8, 17).is_err());
        assert_eq!(heap.allocated_bytes(), 24);
        assert_eq!(heap.block_count(), 1);
    }
}

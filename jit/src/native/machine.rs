//! The blackhole on a translated program's memory: values are machine
//! words (a Float's bits, a pointer's address), operations run as
//! [`NativeOp`] says, residual calls go through the C wrappers of the
//! [`Embedding`].
//!
//! GC pointers held in the blackhole's registers are roots: before
//! anything that can collect (an allocation, a residual call), every ref
//! register of the call's frames is pushed on the program's shadow stack,
//! where the collector finds and updates them, and read back after.

use super::loops::{NativeBackend, NativeLoops};
use super::{NativeOp, NativeProgram, Scalar};
use crate::blackhole::{
    execute, internal, operand, AtMergePoint, BlackholeStats, Completion, Exec, Frame, Ran,
};
use crate::codewriter::jitcode::{Bank, Insn, JitCodes, Operand};
use crate::interp::RunValue;
use crate::metainterp::flavor::Flavor;
use crate::metainterp::record::TraceExec;
use crate::metainterp::residual::{ResidualSite, ResidualTarget};
use crate::metainterp::{JitParams, MetaInterp};
use crate::trace::{Header, Kind};
use crate::warmstate::{GreenKey, WarmState};
use fxhash::FxHashMap as HashMap;
use rpy_llinterp::{LlError, LlErrorKind};
use std::borrow::Cow;
use std::cell::RefCell;
use std::io::Write;

/// A C function of the program called with its arguments as words.
pub type Wrapper = unsafe extern "C" fn(args: *const u64) -> u64;

/// A C allocator of varsized objects: `(fixed size, items offset, item
/// size, n, length offset, type id)`, the object's address.
pub type MallocVarsize = unsafe extern "C" fn(
    fixed: usize,
    items_offset: usize,
    item_size: usize,
    n: i64,
    length_offset: usize,
    tid: u64,
) -> usize;

/// What the C side of an executable gives its JIT (GenC emits it; the
/// layout is `RpyJitEmbedding` of the generated file).
#[repr(C)]
pub struct Embedding {
    /// The serialized [`NativeProgram`].
    pub program: *const u8,
    pub program_len: usize,
    /// Every jitcode's constants, as words, jitcode after jitcode.
    pub constants: *const u64,
    pub constants_len: usize,
    /// Per entry of `NativeProgram::runtime`.
    pub runtime_calls: *const Wrapper,
    /// Per entry of `NativeProgram::residual_graphs`: the wrapper, and the
    /// C function's address (what a function pointer to it holds).
    pub graph_calls: *const Wrapper,
    pub graph_addresses: *const usize,
    pub malloc: unsafe extern "C" fn(size: usize, tid: u64) -> usize,
    pub malloc_varsize: MallocVarsize,
    pub write_barrier: unsafe extern "C" fn(obj: usize),
    /// The runtime's own allocation, which never collects (`rpy_malloc`,
    /// `rpy_malloc_varsize`).
    pub malloc_nocollect: unsafe extern "C" fn(size: usize, tid: u64) -> usize,
    pub malloc_varsize_nocollect: MallocVarsize,
    /// `&rpy_gc_root_top` and `&rpy_gc_root_end`: the shadow stack.
    pub root_top: *mut *mut usize,
    pub root_end: *const *mut usize,
    /// `&rpy_exc_type` and `&rpy_exc_value`: the pending exception.
    pub exc_type: *mut usize,
    pub exc_value: *mut usize,
    /// The collector's hooks for the JIT: a minor collection (the roots
    /// on the shadow stack), whether an object may still move, and an old
    /// object kept alive for the rest of the run.
    pub gc_minor_collection: unsafe extern "C" fn(),
    pub gc_may_move: unsafe extern "C" fn(p: usize) -> i32,
    pub gc_keep: unsafe extern "C" fn(p: usize),
    /// The header flag of an object that needs the write barrier.
    pub young_flag: u64,
    /// `&rpy_jit_active`: non-zero while the JIT has a loop or a hot key,
    /// so that the portal's merge points call the runtime (else only the
    /// first merge point of each call does).
    pub active: *mut i32,
}

impl Embedding {
    /// Whether the collector moves objects (without one, `--gc=none`,
    /// there is no shadow stack).
    pub fn gc_moves(&self) -> bool {
        // SAFETY: `root_top` is the program's `&rpy_gc_root_top`.
        unsafe { !(*self.root_top).is_null() }
    }
}

/// The executable's JIT, once its embedding is read.
pub struct NativeRuntime {
    /// Kept for the whole run (the executable's life).
    pub program: &'static NativeProgram,
    embedding: &'static Embedding,
    constants: &'static [u64],
    /// A residual graph's wrapper, by graph.
    calls: HashMap<u32, Wrapper>,
    /// The graph a function address is, for calls through pointers.
    graphs_by_address: HashMap<usize, u32>,
    /// The warm-up counters, over the whole run.
    warm: RefCell<WarmState>,
    /// Per portal, its merge point (found once: the C code asks at every
    /// loop end and merge point).
    merge_points: Vec<Option<MergePoint>>,
    /// The drivers of the portals' merge points, which green keys name
    /// without a copy.
    drivers: Vec<&'static str>,
    /// The objects kept alive as the traces' constants.
    kept: RefCell<std::collections::HashSet<u64>>,
    /// How often the JIT handed a portal call back to the C code at a
    /// merge point.
    handed_back: std::cell::Cell<u64>,
    /// The meta-interpreter, when the JIT compiles loops (taken out while
    /// it works: a portal called meanwhile runs in the blackhole).
    jit: RefCell<Option<MetaInterp<NativeLoops>>>,
}

impl NativeRuntime {
    /// # Safety
    /// `embedding` must be what GenC emitted for this program: its tables
    /// as long as it says, its functions and pointers valid for the whole
    /// run.
    pub unsafe fn new(
        embedding: &'static Embedding,
        backend: Option<Box<dyn NativeBackend>>,
        params: JitParams,
    ) -> Result<NativeRuntime, String> {
        let bytes = std::slice::from_raw_parts(embedding.program, embedding.program_len);
        let program: &'static NativeProgram =
            Box::leak(Box::new(NativeProgram::from_bytes(bytes)?));
        let constants = std::slice::from_raw_parts(embedding.constants, embedding.constants_len);
        let n = program.residual_graphs.len();
        let wrappers = std::slice::from_raw_parts(embedding.graph_calls, n);
        let addresses = std::slice::from_raw_parts(embedding.graph_addresses, n);
        let mut calls = HashMap::default();
        let mut graphs_by_address = HashMap::default();
        for (i, g) in program.residual_graphs.iter().enumerate() {
            calls.insert(*g, wrappers[i]);
            graphs_by_address.insert(addresses[i], *g);
        }
        let warm = WarmState::with_function_threshold(params.threshold, params.function_threshold);
        // Compiled code calls C straight, unless each trace's first run is
        // logged for replay (the log records every call the run makes).
        let direct = (!params.log_runs).then(|| {
            let wrappers = calls.clone();
            let wrapper_of = move |site: &ResidualSite| -> Option<usize> {
                let wrapper = match site.target {
                    ResidualTarget::Graph(g) => *wrappers.get(&g)?,
                    ResidualTarget::Runtime { code, pc } => match program.ops[code][pc] {
                        // SAFETY: one wrapper per runtime function, in order.
                        Some(NativeOp::Runtime(i)) => unsafe {
                            *embedding.runtime_calls.add(i as usize)
                        },
                        _ => return None,
                    },
                };
                Some(wrapper as usize)
            };
            Box::new(wrapper_of) as super::loops::WrapperOf
        });
        let jit = backend.map(|backend| {
            MetaInterp::with_loops(
                params,
                NativeLoops {
                    backend,
                    embedding,
                    direct,
                },
            )
        });
        let merge_points: Vec<Option<MergePoint>> = program
            .portals
            .iter()
            .map(|&code| MergePoint::find(&program.codes, code as usize))
            .collect();
        let drivers = merge_points.iter().flatten().map(|m| m.driver).collect();
        Ok(NativeRuntime {
            merge_points,
            drivers,
            program,
            embedding,
            constants,
            calls,
            graphs_by_address,
            warm: RefCell::new(warm),
            kept: RefCell::default(),
            handed_back: Default::default(),
            jit: RefCell::new(jit),
        })
    }

    pub(crate) fn graph_wrapper(&self, graph: u32) -> Option<Wrapper> {
        self.calls.get(&graph).copied()
    }

    pub(crate) fn runtime_wrapper(&self, index: u32) -> Wrapper {
        // SAFETY: one wrapper per runtime function, in order.
        unsafe { *self.embedding.runtime_calls.add(index as usize) }
    }

    /// What the JIT did: its counts, and its log in the text syntax of
    /// `rpy trace` (what `RPY_JITLOG` writes).
    pub fn jit_report(&self) -> Option<(crate::metainterp::JitStats, String)> {
        let jit = self.jit.borrow();
        let jit = jit.as_ref()?;
        let s = &jit.stats;
        let counts = format!(
            "loops {}, bridges {}, aborts {}, loop entries {}, guard failures {}, \
             linked guard failures {}, handed back {}",
            s.loops,
            s.bridges,
            s.aborts,
            s.loop_entries,
            jit.guard_failures(),
            jit.linked_guard_failures(),
            self.handed_back.get()
        );
        Some((s.clone(), jit.log_file(&counts)))
    }

    /// `driver`, as a key names it: a portal's driver without a copy.
    fn driver(&self, driver: &str) -> Cow<'static, str> {
        match self.drivers.iter().find(|d| **d == driver) {
            Some(d) => Cow::Borrowed(d),
            None => Cow::Owned(driver.to_string()),
        }
    }

    /// The merge point of portal `portal` (its index among the portals).
    fn merge_point_of(&self, portal: usize) -> Option<MergePoint> {
        self.merge_points.get(portal).copied().flatten()
    }

    /// The translated portal `portal` ran its merge point with `words`
    /// (its greens then its reds; `first`: the call's first). Where the
    /// key has a loop or is hot, the JIT takes the call over: it traces or
    /// enters the loop there, and runs what follows on the jitcodes until
    /// the call returns, or hands the call back at a later merge point of
    /// the portal's own frame whose key it does not want (the original's
    /// `ContinueRunningNormally`), the values there written over `words`.
    /// Nothing moves unless the JIT takes the call over.
    pub fn merge_point_from_c(
        &self,
        portal: usize,
        words: &mut [u64],
        first: bool,
    ) -> Result<FromMergePoint, LlError> {
        let Some(MergePoint {
            code,
            at,
            driver,
            greens,
            reds,
        }) = self.merge_point_of(portal)
        else {
            return Ok(FromMergePoint::GoOn);
        };
        let key = GreenKey::of_words(
            Cow::Borrowed(driver),
            &words[..greens.len().min(words.len())],
        );
        {
            let mut slot = self.jit.borrow_mut();
            // (Without a JIT, or while it works on an outer call.)
            let Some(jit) = slot.as_mut() else {
                return Ok(FromMergePoint::GoOn);
            };
            if first && self.warm.borrow_mut().portal_entered(&key) {
                jit.hot(key.clone());
                self.publish_activity(jit);
            }
            if !jit.wants(&key) {
                return Ok(FromMergePoint::GoOn);
            }
        }
        let codes: &'static JitCodes = &self.program.codes;
        let mut frame = Frame::new(code, &codes.codes[code], Vec::new(), None, 0u64);
        for (o, w) in greens.iter().chain(reds).zip(words.iter()) {
            if let Operand::Reg(r) = o {
                frame.set(*r, *w);
            }
        }
        frame.pc = at;
        let mut frames = vec![frame];
        let mut stats = BlackholeStats::default();
        let mut world = NativeExec {
            rt: self,
            codes,
            stats: &mut stats,
            entering: false,
        };
        // The greens become old (their addresses are the key from now on):
        // a hot key moves with them. (A collection only when one of them
        // may still move: a loop is entered from C again and again.)
        let young_green = greens.iter().any(|g| match g {
            Operand::Reg(r) if r.bank == Bank::Ref => world.may_move(frames[0].get(*r)),
            _ => false,
        });
        if young_green {
            world.settle(&mut frames)?;
            let (_, settled) = world.key(&frames, driver, greens);
            if settled != key {
                if let Some(jit) = self.jit.borrow_mut().as_mut() {
                    jit.rekey(&key, settled);
                }
            }
        }
        let exit = match execute(&mut world, &mut frames, &mut std::io::sink())? {
            Ran::Completed(Completion::Returned(v)) => FromMergePoint::Returned(v),
            Ran::Completed(Completion::Raised { etype, evalue }) => {
                // SAFETY: the embedding's exception state is the program's.
                unsafe {
                    *self.embedding.exc_type = etype as usize;
                    *self.embedding.exc_value = evalue as usize;
                }
                FromMergePoint::Returned(0)
            }
            Ran::Left => {
                // The portal's frame, after its merge point: the C code's
                // live values there, in the order it passes them.
                for (o, w) in greens.iter().chain(reds).zip(words.iter_mut()) {
                    if let Operand::Reg(r) = o {
                        *w = *frames[0].get(*r);
                    }
                }
                self.handed_back.set(self.handed_back.get() + 1);
                FromMergePoint::Resume
            }
        };
        if let Some(jit) = self.jit.borrow().as_ref() {
            self.publish_activity(jit);
        }
        Ok(exit)
    }

    /// The program's `jit.set_param(driver, name, value)` (the value as
    /// text): applied at once, to every driver.
    pub fn set_param_from_program(&self, name: &str, value: &str) -> Result<(), String> {
        let (Ok(mut slot), Ok(mut warm)) = (self.jit.try_borrow_mut(), self.warm.try_borrow_mut())
        else {
            return Err("the JIT is busy".into());
        };
        // (Without a JIT, `RPY_JIT=off`, there is nothing to tune.)
        let Some(jit) = slot.as_mut() else {
            return Ok(());
        };
        jit.params.set_from_program(name, value)?;
        warm.set_thresholds(jit.params.threshold, jit.params.function_threshold);
        Ok(())
    }

    /// Tells the C code whether its merge points must call the runtime:
    /// while the JIT has a loop or a hot key.
    fn publish_activity(&self, jit: &MetaInterp<NativeLoops>) {
        // SAFETY: `active` is the program's `&rpy_jit_active`.
        unsafe { *self.embedding.active = jit.has_work() as i32 };
    }

    /// The translated portal `portal` reached its `can_enter_jit` with the
    /// greens `words`: counts the loop's closing.
    pub fn can_enter_jit_from_c(&self, portal: usize, words: &[u64]) {
        let Some(MergePoint { driver, .. }) = self.merge_point_of(portal) else {
            return;
        };
        let key = GreenKey::of_words(Cow::Borrowed(driver), words);
        let hot = {
            let text = || words.iter().map(|w| w.to_string()).collect();
            self.warm.borrow_mut().closed(key.clone(), text)
        };
        if hot {
            if let Some(jit) = self.jit.borrow_mut().as_mut() {
                jit.hot(key);
                self.publish_activity(jit);
            }
        }
    }
}

/// What a translated portal does after its merge point called the runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FromMergePoint {
    /// Goes on, its values as they were.
    GoOn,
    /// Goes on from its merge point with the values the runtime wrote over
    /// its words (the JIT ran part of the call and handed it back).
    Resume,
    /// Returns this: the JIT ran the rest of the call (an exception it
    /// raised is pending in the C side's state).
    Returned(u64),
}

/// A portal's `jit_merge_point`: its jitcode, the instruction's index,
/// its driver, greens and reds.
#[derive(Clone, Copy)]
struct MergePoint {
    code: usize,
    at: usize,
    driver: &'static str,
    greens: &'static [Operand],
    reds: &'static [Operand],
}

impl MergePoint {
    /// The merge point of jitcode `code`.
    fn find(codes: &'static JitCodes, code: usize) -> Option<MergePoint> {
        codes.codes[code]
            .code
            .iter()
            .enumerate()
            .find_map(|(at, insn)| match insn {
                Insn::JitMergePoint {
                    driver,
                    greens,
                    reds,
                } => Some(MergePoint {
                    code,
                    at,
                    driver,
                    greens,
                    reds,
                }),
                _ => None,
            })
    }
}

/// One portal call's world: the runtime, and its jitcodes borrowed apart
/// from it (they live as long as the runtime, which outlives the call).
pub struct NativeExec<'a, 'j> {
    rt: &'a NativeRuntime,
    codes: &'j JitCodes,
    stats: &'a mut BlackholeStats,
    /// The portal call has not reached a merge point yet (its first one
    /// counts against `function_threshold`).
    entering: bool,
}

impl NativeExec<'_, '_> {
    fn embedding(&self) -> &'static Embedding {
        self.rt.embedding
    }

    pub(crate) fn runtime(&self) -> &NativeRuntime {
        self.rt
    }

    /// The greens' words and their key, in the top frame.
    fn key(&self, frames: &[Frame<u64>], driver: &str, greens: &[Operand]) -> (Vec<u64>, GreenKey) {
        let frame = frames.last().expect("a frame");
        let words: Vec<u64> = greens.iter().map(|g| operand(self, frame, g)).collect();
        let key = GreenKey::of_words(self.rt.driver(driver), &words);
        (words, key)
    }

    /// A key just got hot: its objects are made old first (they never
    /// move after), so that its key stays the same while it is traced and
    /// compiled; the key as it is then.
    fn settled_key(
        &mut self,
        frames: &mut [Frame<u64>],
        driver: &str,
        greens: &[Operand],
    ) -> Result<(Vec<u64>, GreenKey), LlError> {
        self.settle(frames)?;
        Ok(self.key(frames, driver, greens))
    }

    /// Runs `f`, which may collect, with the ref registers of `frames` on
    /// the shadow stack, and reads them back after (the collector may have
    /// moved what they point to).
    fn collecting<R>(
        &self,
        frames: &mut [Frame<u64>],
        f: impl FnOnce() -> R,
    ) -> Result<R, LlError> {
        let pushed = self.push_roots(frames)?;
        let result = f();
        self.pop_roots(frames, pushed);
        Ok(result)
    }

    /// Pushes the ref registers of `frames` on the shadow stack; where
    /// they start (null without a moving collector: `--gc=none` has no
    /// shadow stack, and nothing moves).
    fn push_roots(&self, frames: &[Frame<u64>]) -> Result<*mut usize, LlError> {
        let e = self.embedding();
        let count: usize = frames
            .iter()
            .map(|f| f.banks[Bank::Ref as usize].len())
            .sum();
        // SAFETY: the shadow stack is the program's, `root_top..root_end`
        // free; `pop_roots` pops the slots.
        unsafe {
            let base = *e.root_top;
            if base.is_null() {
                return Ok(base);
            }
            if (*e.root_end as usize - base as usize) / 8 < count {
                return Err(fatal("RecursionError", "maximum recursion depth exceeded"));
            }
            let mut slot = base;
            for frame in frames {
                for r in &frame.banks[Bank::Ref as usize] {
                    *slot = *r as usize;
                    slot = slot.add(1);
                }
            }
            *e.root_top = slot;
            Ok(base)
        }
    }

    /// Reads back the ref registers `push_roots` pushed at `base` (the
    /// collector may have moved what they point to), and pops them.
    fn pop_roots(&self, frames: &mut [Frame<u64>], base: *mut usize) {
        if base.is_null() {
            return;
        }
        // SAFETY: `base` is where `push_roots` pushed these frames' slots,
        // the top of the shadow stack again.
        unsafe {
            let mut slot = base;
            for frame in frames.iter_mut() {
                for r in frame.banks[Bank::Ref as usize].iter_mut() {
                    *r = *slot as u64;
                    slot = slot.add(1);
                }
            }
            *self.embedding().root_top = base;
        }
    }

    /// A minor collection with `words` (GC pointers) as roots, read back
    /// after: every object the program can reach is then old, and stays
    /// where it is until the next collection (a run logged for replay
    /// reads its inputs' objects by address before and after it).
    pub(crate) fn settle_words(&self, words: &mut [u64]) -> Result<(), LlError> {
        let e = self.embedding();
        if !e.gc_moves() {
            return Ok(());
        }
        // SAFETY: as in `push_roots`: the slots are pushed, the collection
        // runs with them as roots, and they are read back and popped.
        unsafe {
            let base = *e.root_top;
            if (*e.root_end as usize - base as usize) / 8 < words.len() {
                return Err(fatal("RecursionError", "maximum recursion depth exceeded"));
            }
            for (k, w) in words.iter().enumerate() {
                *base.add(k) = *w as usize;
            }
            *e.root_top = base.add(words.len());
            (e.gc_minor_collection)();
            for (k, w) in words.iter_mut().enumerate() {
                *w = *base.add(k) as u64;
            }
            *e.root_top = base;
        }
        Ok(())
    }

    /// Keeps old object `p` alive for the rest of the run (as the traces'
    /// constants are): an address the JIT log names is never another
    /// object's.
    pub(crate) fn keep_alive(&self, p: u64) {
        if p != 0 && !self.may_move(&p) && self.rt.kept.borrow_mut().insert(p) {
            // SAFETY: an old object of the program.
            unsafe { (self.embedding().gc_keep)(p as usize) };
        }
    }

    /// The exception a C function left pending, taken.
    pub(crate) fn take_exception(&self) -> Option<(u64, u64)> {
        let e = self.embedding();
        // SAFETY: the embedding's exception state is the program's.
        unsafe {
            if *e.exc_type == 0 {
                return None;
            }
            let raised = (*e.exc_type as u64, *e.exc_value as u64);
            *e.exc_type = 0;
            *e.exc_value = 0;
            Some(raised)
        }
    }
}

fn fatal(kind: &str, message: &str) -> LlError {
    LlError {
        message: format!("fatal RPython error: {kind}: {message}"),
        graph: "jit".into(),
        kind: LlErrorKind::Fatal,
        traceback: vec![],
        op: None,
        pos: None,
    }
}

impl<'j> Exec<'j> for NativeExec<'_, 'j> {
    type Value = u64;

    fn codes(&self) -> &'j JitCodes {
        self.codes
    }

    fn void(&self) -> u64 {
        0
    }

    fn constant(&self, code: usize, index: u16) -> u64 {
        let first = self.rt.program.first_constant[code] as usize;
        self.rt.constants[first + index as usize]
    }

    fn stats(&mut self) -> &mut BlackholeStats {
        self.stats
    }

    fn op(
        &mut self,
        code: usize,
        at: usize,
        _args: &[Operand],
        values: &[u64],
        frames: &mut [Frame<u64>],
        _out: &mut dyn Write,
    ) -> Result<u64, LlError> {
        let codes = self.codes;
        let name = || codes.codes[code].name.as_str();
        let Some(op) = self.rt.program.ops[code][at].as_ref() else {
            return Err(internal(
                format!("operation {at} of {} is not lowered", name()),
                name(),
            ));
        };
        let e = self.embedding();
        let v = |i: usize| values[i];
        // SAFETY (every access): the jitcodes are the program's graphs, so
        // their pointers are objects of the types the operations were
        // lowered for, as in the C code (which does not check either).
        Ok(match op {
            NativeOp::Int(name) => {
                let args: smallvec::SmallVec<[i64; 3]> = values.iter().map(|w| *w as i64).collect();
                match rpy_ir::llops::eval_int(*name, &args) {
                    Some(r) => r as u64,
                    None => {
                        return Err(fatal(
                            "ZeroDivisionError",
                            "integer division or modulo by zero",
                        ))
                    }
                }
            }
            NativeOp::Float(name) => rpy_ir::llops::eval_float(*name, values)
                .ok_or_else(|| internal(format!("'{name}' is not a float operation"), "jit"))?,
            NativeOp::Same => v(0),
            NativeOp::LowByte => v(0) & 0xff,
            NativeOp::IsNull(null) => ((v(0) == 0) == *null) as u64,
            NativeOp::PtrEq(eq) => ((v(0) == v(1)) == *eq) as u64,
            NativeOp::Load { offset, scalar } => unsafe {
                load(v(0) as usize + *offset as usize, *scalar)
            },
            NativeOp::Store {
                offset,
                scalar,
                barrier,
            } => unsafe {
                if *barrier {
                    (e.write_barrier)(v(0) as usize);
                }
                store(v(0) as usize + *offset as usize, *scalar, v(1));
                0
            },
            NativeOp::LoadItem {
                items,
                size,
                scalar,
            } => unsafe { load(item_address(v(0), v(1), *items, *size), *scalar) },
            NativeOp::StoreItem {
                items,
                size,
                scalar,
                barrier,
            } => unsafe {
                if *barrier {
                    (e.write_barrier)(v(0) as usize);
                }
                store(item_address(v(0), v(1), *items, *size), *scalar, v(2));
                0
            },
            NativeOp::Length { offset } => unsafe {
                load(v(0) as usize + *offset as usize, Scalar::Word)
            },
            NativeOp::New { tid, size } => {
                let (tid, size) = (*tid as u64, *size as usize);
                self.collecting(frames, || unsafe { (e.malloc)(size, tid) })? as u64
            }
            NativeOp::NewArray {
                tid,
                fixed,
                items,
                item_size,
                length,
            } => {
                let n = v(0) as i64;
                let (tid, fixed, items, item_size, length) = (
                    *tid as u64,
                    *fixed as usize,
                    *items as usize,
                    *item_size as usize,
                    *length as usize,
                );
                self.collecting(frames, || unsafe {
                    (e.malloc_varsize)(fixed, items, item_size, n, length, tid)
                })? as u64
            }
            NativeOp::Runtime(i) => {
                // SAFETY: one wrapper per runtime function, in order.
                let wrapper = unsafe { *e.runtime_calls.add(*i as usize) };
                // The runtime's functions never collect (they allocate with
                // `rpy_malloc`).
                unsafe { wrapper(values.as_ptr()) }
            }
            NativeOp::Nothing => 0,
        })
    }

    fn residual_call(
        &mut self,
        graph: u32,
        values: Vec<u64>,
        frames: &mut [Frame<u64>],
        _out: &mut dyn Write,
    ) -> Result<Completion<u64>, LlError> {
        let Some(&wrapper) = self.rt.calls.get(&graph) else {
            return Err(internal(format!("no wrapper for graph {graph}"), "jit"));
        };
        // SAFETY: the wrapper is GenC's for this graph and takes its
        // arguments as words, in order.
        let result = self.collecting(frames, || unsafe { wrapper(values.as_ptr()) })?;
        Ok(match self.take_exception() {
            Some((etype, evalue)) => Completion::Raised { etype, evalue },
            None => Completion::Returned(result),
        })
    }

    fn graph_of_pointer(&self, v: &u64) -> Result<u32, String> {
        self.rt
            .graphs_by_address
            .get(&(*v as usize))
            .copied()
            .ok_or_else(|| format!("a call through the unknown function pointer {v:#x}"))
    }

    fn truthy(&self, v: &u64) -> Result<bool, String> {
        Ok(*v != 0)
    }

    fn switch_key(&self, v: &u64) -> Result<i64, String> {
        Ok(*v as i64)
    }

    fn class_id(&self, etype: &u64) -> Result<i64, LlError> {
        // SAFETY: an exception's class is a vtable of the program.
        Ok(unsafe {
            load(
                *etype as usize + self.rt.program.class_id_offset as usize,
                Scalar::Word,
            )
        } as i64)
    }

    fn merge_point(
        &mut self,
        frames: &mut Vec<Frame<u64>>,
        driver: &str,
        greens: &[Operand],
        reds: &[Operand],
        out: &mut dyn Write,
    ) -> Result<AtMergePoint<u64>, LlError> {
        let entering = std::mem::take(&mut self.entering);
        let rt = self.rt;
        let Some(mut jit) = rt.jit.borrow_mut().take() else {
            return Ok(AtMergePoint::GoOn);
        };
        // Only the frame the C code handed over can go back to it.
        let unwanted = if frames.len() == 1 {
            AtMergePoint::Leave
        } else {
            AtMergePoint::GoOn
        };
        let done = (|| {
            if !jit.has_work() && !entering {
                return Ok(unwanted);
            }
            let (mut words, mut key) = self.key(frames, driver, greens);
            if entering && rt.warm.borrow_mut().portal_entered(&key) {
                (words, key) = self.settled_key(frames, driver, greens)?;
                jit.hot(key.clone());
            }
            if !jit.wants(&key) {
                return Ok(unwanted);
            }
            // The JIT sees this portal call's frames only; the callers'
            // (a recursive interpreter's outer calls) wait, their pointers
            // on the shadow stack.
            let base = frames.len() - 1;
            let mut own = frames.split_off(base);
            let pushed = self.push_roots(frames)?;
            let text = |ws: &[u64]| ws.iter().map(|w| w.to_string()).collect::<Vec<_>>();
            let done = jit.at_merge_point(self, &mut own, key, &words, &text, reds, out);
            self.pop_roots(frames, pushed);
            frames.extend(own);
            done.map(AtMergePoint::raising)
        })();
        rt.publish_activity(&jit);
        *rt.jit.borrow_mut() = Some(jit);
        done
    }

    fn can_enter_jit(&mut self, frames: &mut [Frame<u64>], driver: &str, greens: &[Operand]) {
        let rt = self.rt;
        let (words, key) = self.key(frames, driver, greens);
        let text = || words.iter().map(|w| w.to_string()).collect();
        if !rt.warm.borrow_mut().closed(key, text) {
            return;
        }
        if rt.jit.borrow().is_none() {
            return;
        }
        // (A failed collection is a fatal error the next allocation meets
        // again.)
        if let Ok((_, key)) = self.settled_key(frames, driver, greens) {
            if let Some(jit) = rt.jit.borrow_mut().as_mut() {
                jit.hot(key);
                rt.publish_activity(jit);
            }
        }
    }
}

impl<'j> TraceExec<'j> for NativeExec<'_, 'j> {
    fn to_trace(&mut self, _: &Header, v: &u64, kind: Kind) -> Result<RunValue, String> {
        // A constant object may sit in compiled code or in a guard's
        // resume data (and a rebuilt frame) for the rest of the run: it is
        // kept alive (a young one makes the tracer give up: `may_move`).
        if kind == Kind::Ref && *v != 0 && !self.may_move(v) && self.rt.kept.borrow_mut().insert(*v)
        {
            // SAFETY: an old object of the program.
            unsafe { (self.embedding().gc_keep)(*v as usize) };
        }
        Ok(RunValue::from_bits(kind, *v))
    }

    fn flavor(&self, _: &u64, bank: Bank) -> Option<Flavor> {
        Some(match bank {
            Bank::Int => Flavor::Signed,
            Bank::Ref => Flavor::Ref,
            Bank::Float => Flavor::Float,
        })
    }

    fn object_id(&self, v: &u64) -> Option<usize> {
        (*v != 0).then_some(*v as usize)
    }

    fn array_type(&self, code: usize, at: usize, _: &u64) -> Result<String, String> {
        self.rt
            .program
            .array_types
            .get(&(code as u32, at as u32))
            .cloned()
            .ok_or_else(|| format!("operation {at} of jitcode {code} names no array type"))
    }

    fn graph_name(&self, graph: u32) -> String {
        match self.codes.by_graph(graph) {
            Some(c) => self.codes.codes[c].name.clone(),
            None => self
                .rt
                .program
                .graph_names
                .get(&graph)
                .cloned()
                .unwrap_or_else(|| format!("graph {graph}")),
        }
    }

    fn constant_kind(&self, code: usize, index: u16) -> Kind {
        self.rt.program.constant_kinds[code]
            .get(index as usize)
            .copied()
            .unwrap_or(Kind::Int)
    }

    fn green_key(&self, driver: &str, greens: &[u64]) -> GreenKey {
        GreenKey::of_words(self.rt.driver(driver), greens)
    }

    fn program_header(&self) -> Header {
        Header::of_program(self.rt.program.types.clone())
    }

    fn may_move(&self, v: &u64) -> bool {
        // SAFETY: the collector's own test of an address.
        *v != 0 && unsafe { (self.embedding().gc_may_move)(*v as usize) != 0 }
    }

    fn settle(&mut self, frames: &mut [Frame<u64>]) -> Result<(), LlError> {
        let e = self.embedding();
        if !e.gc_moves() {
            return Ok(());
        }
        // SAFETY: a minor collection, with the frames' pointers as roots.
        self.collecting(frames, || unsafe { (e.gc_minor_collection)() })
    }
}

/// The address of item `index` of the array at `array`.
fn item_address(array: u64, index: u64, items: u32, size: u32) -> usize {
    array as usize + items as usize + (index as usize).wrapping_mul(size as usize)
}

/// # Safety
/// `at` must be the address of a value of `scalar`'s size.
unsafe fn load(at: usize, scalar: Scalar) -> u64 {
    match scalar {
        Scalar::Byte => *(at as *const u8) as u64,
        Scalar::Word => *(at as *const u64),
    }
}

/// # Safety
/// `at` must be the address of a value of `scalar`'s size.
unsafe fn store(at: usize, scalar: Scalar, v: u64) {
    match scalar {
        Scalar::Byte => *(at as *mut u8) = v as u8,
        Scalar::Word => *(at as *mut u64) = v,
    }
}

//! The blackhole interpreter: runs jitcodes, as the original's
//! `blackhole.py` runs them in the translated program. It is where a
//! failing guard resumes (the rest of the interrupted iteration runs here,
//! without tracing), and on its own it checks the codewriter: a program
//! whose portal runs on its jitcodes must print what it prints without.
//!
//! The jitcode's control flow, registers, frames of regular calls and
//! exception handlers are run here, once, by [`execute`]; what one
//! low-level operation or residual call does belongs to the world the
//! jitcodes run in ([`Exec`]): the LLInterpreter's values and objects
//! (`ll`, `rpy interp --blackhole/--jit`), or the words and memory of a
//! translated program (`crate::native`, executables built with `--jit`).

pub(crate) mod ll;

pub(crate) use ll::internal;
pub use ll::{run_entry, Blackhole, BlackholeRun};

use crate::codewriter::jitcode::{Bank, CallKind, Callee, Insn, JitCode, JitCodes, Operand, Reg};
use rpy_llinterp::{LlError, LlErrorKind, LlValue};
use std::io::Write;

/// An instruction's operand values: most have few, gathered without a
/// heap allocation.
pub(crate) type Operands<V> = smallvec::SmallVec<[V; 6]>;

/// How many nested frames of regular calls the blackhole runs before it
/// fails as the executable does on too deep a recursion.
const MAX_FRAMES: usize = 100_000;

/// What a run did, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlackholeStats {
    pub instructions: u64,
    pub merge_points: u64,
    pub can_enter_jit: u64,
    pub regular_calls: u64,
    pub residual_calls: u64,
}

/// One jitcode's activation: its registers, by bank.
pub(crate) struct Frame<V = LlValue> {
    pub(crate) code: usize,
    pub(crate) pc: usize,
    pub(crate) banks: [Vec<V>; 3],
    /// Where the caller wants this frame's result.
    pub(crate) result: Option<Reg>,
}

impl<V: Clone> Frame<V> {
    /// A frame of jitcode `code` (`jc`) at its start, its parameters set
    /// from `args`, every other register `void`.
    pub(crate) fn new(
        code: usize,
        jc: &JitCode,
        args: Vec<V>,
        result: Option<Reg>,
        void: V,
    ) -> Self {
        let mut banks = [Bank::Int, Bank::Ref, Bank::Float]
            .map(|b| vec![void.clone(); jc.registers_of(b) as usize]);
        for (p, v) in jc.params.iter().zip(args) {
            if let Some(r) = p {
                banks[r.bank as usize][r.index as usize] = v;
            }
        }
        Frame {
            code,
            pc: 0,
            banks,
            result,
        }
    }

    pub(crate) fn set(&mut self, r: Reg, v: V) {
        self.banks[r.bank as usize][r.index as usize] = v;
    }

    pub(crate) fn get(&self, r: Reg) -> &V {
        &self.banks[r.bank as usize][r.index as usize]
    }
}

/// An exception to raise: its class (a vtable pointer) and instance.
pub(crate) type Raised<V> = (V, V);

/// How a call ended.
pub enum Completion<V> {
    Returned(V),
    /// An exception the callee did not catch: its class (a vtable pointer)
    /// and instance.
    Raised {
        etype: V,
        evalue: V,
    },
}

/// What the portal's merge point tells the run that reached it.
pub(crate) enum AtMergePoint<V> {
    /// Go on with the next instruction.
    GoOn,
    /// Raise this exception in the frames.
    Raise(Raised<V>),
    /// Stop: the portal's frame, the only one, goes on in the world's own
    /// code (the translated portal, from this merge point on).
    Leave,
}

impl<V> AtMergePoint<V> {
    /// Raise what the JIT says must be raised, else go on.
    pub(crate) fn raising(raised: Option<Raised<V>>) -> Self {
        raised.map_or(AtMergePoint::GoOn, AtMergePoint::Raise)
    }
}

/// How a run of [`execute`] ended.
pub(crate) enum Ran<V> {
    Completed(Completion<V>),
    /// The world took the portal's frame back at a merge point
    /// ([`AtMergePoint::Leave`]); the frame is left after it.
    Left,
}

/// The world jitcodes run in: its values, and what one operation, one
/// residual call and one merge point do there.
pub(crate) trait Exec<'j> {
    type Value: Clone;
    /// The jitcodes, borrowed apart from the world (an instruction stays
    /// borrowed while the world runs it).
    fn codes(&self) -> &'j JitCodes;
    /// The value of a register nothing was written to.
    fn void(&self) -> Self::Value;
    /// Constant `index` of jitcode `code`.
    fn constant(&self, code: usize, index: u16) -> Self::Value;
    fn stats(&mut self) -> &mut BlackholeStats;
    /// Runs operation `at` of jitcode `code` (an `Insn::Op`, or a call of a
    /// runtime function) on its operands' `values`. `frames` are every
    /// live frame (the operation may collect, and their GC pointers are
    /// roots).
    #[allow(clippy::too_many_arguments)]
    fn op(
        &mut self,
        code: usize,
        at: usize,
        args: &[Operand],
        values: &[Self::Value],
        frames: &mut [Frame<Self::Value>],
        out: &mut dyn Write,
    ) -> Result<Self::Value, LlError>;
    /// Calls graph `graph` as the translated program does, not on its
    /// jitcode.
    fn residual_call(
        &mut self,
        graph: u32,
        values: Vec<Self::Value>,
        frames: &mut [Frame<Self::Value>],
        out: &mut dyn Write,
    ) -> Result<Completion<Self::Value>, LlError>;
    /// The graph a function pointer points to.
    fn graph_of_pointer(&self, v: &Self::Value) -> Result<u32, String>;
    fn truthy(&self, v: &Self::Value) -> Result<bool, String>;
    fn switch_key(&self, v: &Self::Value) -> Result<i64, String>;
    /// The class id of an exception's class (a vtable pointer).
    fn class_id(&self, etype: &Self::Value) -> Result<i64, LlError>;
    /// The top frame (the portal's) ran its `jit_merge_point`.
    fn merge_point(
        &mut self,
        frames: &mut Vec<Frame<Self::Value>>,
        driver: &str,
        greens: &[Operand],
        reds: &[Operand],
        out: &mut dyn Write,
    ) -> Result<AtMergePoint<Self::Value>, LlError>;
    /// The top frame ran its `can_enter_jit` (`frames` are every live
    /// frame).
    fn can_enter_jit(
        &mut self,
        frames: &mut [Frame<Self::Value>],
        driver: &str,
        greens: &[Operand],
    );
    /// The error of too deep a recursion of regular calls.
    fn recursion_error(&self, graph: &str) -> LlError {
        LlError {
            message: "fatal RPython error: RecursionError: maximum recursion depth exceeded".into(),
            graph: graph.to_string(),
            kind: LlErrorKind::Fatal,
            traceback: vec![],
            op: None,
            pos: None,
        }
    }
}

/// The value of `o` in `frame`.
pub(crate) fn operand<'j, E: Exec<'j>>(e: &E, frame: &Frame<E::Value>, o: &Operand) -> E::Value {
    match o {
        Operand::Reg(r) => frame.get(*r).clone(),
        Operand::Const(i) => e.constant(frame.code, *i),
    }
}

/// Runs `frames` (the last on top) until the first returns or raises, or
/// the world takes it back at a merge point.
pub(crate) fn execute<'j, E: Exec<'j>>(
    e: &mut E,
    frames: &mut Vec<Frame<E::Value>>,
    out: &mut dyn Write,
) -> Result<Ran<E::Value>, LlError> {
    loop {
        let depth = frames.len() - 1;
        let code = frames[depth].code;
        let at = frames[depth].pc;
        let codes = e.codes();
        let Some(insn) = codes.codes[code].code.get(at) else {
            let name = &codes.codes[code].name;
            return Err(internal(format!("ran off the end of jitcode {name}"), name));
        };
        frames[depth].pc += 1;
        e.stats().instructions += 1;
        let fail = |_: &E, m: String| internal(m, &codes.codes[code].name);
        match insn {
            Insn::Op { args, result, .. } => {
                let values: Operands<E::Value> =
                    args.iter().map(|a| operand(e, &frames[depth], a)).collect();
                let v = e.op(code, at, args, &values, frames, out)?;
                if let Some(r) = result {
                    frames[depth].set(*r, v);
                }
            }
            Insn::Move { from, to } => {
                let v = operand(e, &frames[depth], from);
                frames[depth].set(*to, v);
            }
            Insn::Goto(l) => frames[depth].pc = *l as usize,
            Insn::GotoIfNot { cond, target } => {
                let c = operand(e, &frames[depth], cond);
                if !e.truthy(&c).map_err(|m| fail(e, m))? {
                    frames[depth].pc = *target as usize;
                }
            }
            Insn::Switch { on, cases, default } => {
                let v = operand(e, &frames[depth], on);
                let key = e.switch_key(&v).map_err(|m| fail(e, m))?;
                let target = cases
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, l)| *l)
                    .or(*default)
                    .ok_or_else(|| fail(e, format!("no case of a switch matches {key}")))?;
                frames[depth].pc = target as usize;
            }
            Insn::Catch { .. } => {}
            Insn::JitMergePoint {
                driver,
                greens,
                reds,
            } => {
                e.stats().merge_points += 1;
                match e.merge_point(frames, driver, greens, reds, out)? {
                    AtMergePoint::GoOn => {}
                    AtMergePoint::Raise((etype, evalue)) => {
                        if let Some(done) = unwind(e, frames, etype, evalue, true)? {
                            return Ok(Ran::Completed(done));
                        }
                    }
                    AtMergePoint::Leave => return Ok(Ran::Left),
                }
            }
            Insn::CanEnterJit { driver, greens, .. } => {
                e.stats().can_enter_jit += 1;
                e.can_enter_jit(frames, driver, greens);
            }
            Insn::Call {
                callee,
                args,
                result,
                descr,
            } => {
                let values: Vec<E::Value> =
                    args.iter().map(|a| operand(e, &frames[depth], a)).collect();
                let (graph, traced_into) = match callee {
                    Callee::Runtime { .. } => {
                        e.stats().residual_calls += 1;
                        let v = e.op(code, at, args, &values, frames, out)?;
                        if let Some(r) = result {
                            frames[depth].set(*r, v);
                        }
                        continue;
                    }
                    Callee::Graph { graph, .. } => (*graph, descr.kind == CallKind::Regular),
                    Callee::Pointer { pointer, .. } => {
                        let p = operand(e, &frames[depth], pointer);
                        let graph = e.graph_of_pointer(&p).map_err(|m| fail(e, m))?;
                        (graph, descr.kind == CallKind::Regular)
                    }
                };
                let target = if traced_into {
                    e.codes().by_graph(graph)
                } else {
                    None
                };
                match target {
                    Some(callee) => {
                        if frames.len() >= MAX_FRAMES {
                            return Err(e.recursion_error(&e.codes().codes[code].name));
                        }
                        e.stats().regular_calls += 1;
                        let jc = &e.codes().codes[callee];
                        let frame = Frame::new(callee, jc, values, *result, e.void());
                        frames.push(frame);
                    }
                    None => {
                        e.stats().residual_calls += 1;
                        match e.residual_call(graph, values, frames, out)? {
                            Completion::Returned(v) => {
                                if let Some(r) = result {
                                    frames[depth].set(*r, v);
                                }
                            }
                            Completion::Raised { etype, evalue } => {
                                if let Some(done) = unwind(e, frames, etype, evalue, true)? {
                                    return Ok(Ran::Completed(done));
                                }
                            }
                        }
                    }
                }
            }
            Insn::Raise { etype, evalue } => {
                let etype = operand(e, &frames[depth], etype);
                let evalue = operand(e, &frames[depth], evalue);
                if let Some(done) = unwind(e, frames, etype, evalue, false)? {
                    return Ok(Ran::Completed(done));
                }
            }
            Insn::Return(v) => {
                let v = v
                    .as_ref()
                    .map_or_else(|| e.void(), |v| operand(e, &frames[depth], v));
                let done = frames.pop().expect("the returning frame");
                match frames.last_mut() {
                    None => return Ok(Ran::Completed(Completion::Returned(v))),
                    Some(caller) => {
                        if let Some(r) = done.result {
                            caller.set(r, v);
                        }
                    }
                }
            }
        }
    }
}

/// An exception: raised by the call just run in the top frame
/// (`by_call`), or leaving the top frame. Frames are left until one
/// whose call is followed by a `catch` with a matching handler, which
/// then runs (`None`); an exception leaving every frame is the run's
/// outcome.
pub(crate) fn unwind<'j, E: Exec<'j>>(
    e: &E,
    frames: &mut Vec<Frame<E::Value>>,
    etype: E::Value,
    evalue: E::Value,
    by_call: bool,
) -> Result<Option<Completion<E::Value>>, LlError> {
    if !by_call {
        frames.pop();
    }
    let id = e.class_id(&etype)?;
    while let Some(frame) = frames.last_mut() {
        let jc = &e.codes().codes[frame.code];
        if let Some(Insn::Catch { handlers }) = jc.code.get(frame.pc) {
            if let Some(h) = handlers.iter().find(|h| h.range.0 <= id && id < h.range.1) {
                if let Some(r) = h.etype {
                    frame.set(r, etype.clone());
                }
                if let Some(r) = h.evalue {
                    frame.set(r, evalue.clone());
                }
                frame.pc = h.target as usize;
                return Ok(None);
            }
        }
        frames.pop();
    }
    Ok(Some(Completion::Raised { etype, evalue }))
}

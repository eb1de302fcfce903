//! The meta-interpreter: when a loop of the interpreter gets hot, traces
//! it from the jitcodes (`record`), optimizes the trace with the trace
//! optimizer, and from then on runs the loop as the trace each time the
//! portal reaches its merge point with the loop's greens; a failing guard
//! resumes in the blackhole interpreter from the frames the guard saved.
//!
//! Here the program runs in the LLInterpreter and a loop runs in the
//! reference trace interpreter, on the interpreter's objects mirrored in
//! laid-out memory (`mirror`): `rpy interp --jit`, where what the JIT does
//! is checked against the LLInterpreter without a C compiler. Linking the
//! same machinery into executables, with the x86-64 backend, is the next
//! step (ARCHITECTURE.md).

pub mod mirror;
pub mod record;

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::Write;

use rpy_passes::llinterp::{LlError, LlMachine, LlValue};

use crate::blackhole::{internal, Blackhole, Frame};
use crate::codewriter::jitcode::Operand;
use crate::interp::{self, Outcome, RunValue};
use crate::trace::{Header, Trace};
use crate::warmstate::GreenKey;
use mirror::Mirror;
use record::{Recording, ResumeFrames, Saved};

/// Where compiled loops run. `jit` runs them in the reference trace
/// interpreter; the backend crate (which depends on this one) provides
/// machine code.
pub trait LoopBackend {
    fn compile(&self, trace: Trace) -> Result<Box<dyn RunnableLoop>, String>;
}

/// A compiled loop, run on the mirrored objects' memory.
pub trait RunnableLoop {
    fn trace(&self) -> &Trace;
    fn run(&self, inputs: &[RunValue], heap: &mut interp::Heap) -> Outcome;
}

/// The reference trace interpreter as a backend.
pub struct Interpreted;

struct InterpretedLoop(Trace);

impl LoopBackend for Interpreted {
    fn compile(&self, trace: Trace) -> Result<Box<dyn RunnableLoop>, String> {
        Ok(Box::new(InterpretedLoop(trace)))
    }
}

impl RunnableLoop for InterpretedLoop {
    fn trace(&self) -> &Trace {
        &self.0
    }

    fn run(&self, inputs: &[RunValue], heap: &mut interp::Heap) -> Outcome {
        interp::run(&self.0, inputs, heap, u64::MAX)
    }
}

/// The JIT's parameters, as the original's `set_param` names them, and the
/// backend.
#[derive(Clone)]
pub struct JitParams {
    pub threshold: u32,
    pub trace_limit: usize,
    /// The optimizations, `:`-separated (the original's `enable_opts`).
    pub enable_opts: String,
    pub backend: std::rc::Rc<dyn LoopBackend>,
}

impl Default for JitParams {
    fn default() -> Self {
        JitParams {
            threshold: crate::warmstate::DEFAULT_THRESHOLD,
            trace_limit: record::DEFAULT_TRACE_LIMIT,
            enable_opts: crate::optimize::ALL_PASSES.to_string(),
            backend: std::rc::Rc::new(Interpreted),
        }
    }
}

/// What the JIT did, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JitStats {
    pub loops: u64,
    pub aborts: u64,
    pub loop_entries: u64,
    pub guard_failures: u64,
}

struct CompiledLoop {
    code: Box<dyn RunnableLoop>,
    resumes: Vec<ResumeFrames>,
}

/// The meta-interpreter's state over one run.
pub struct MetaInterp {
    pub params: JitParams,
    pub stats: JitStats,
    /// The keys that got hot and wait for their next merge point.
    pending: HashSet<GreenKey>,
    /// Keys whose tracing was given up.
    given_up: HashSet<GreenKey>,
    loops: HashMap<GreenKey, CompiledLoop>,
    mirror: Mirror,
    header: Option<Header>,
    /// The JIT log: each trace as recorded and as optimized, in the text
    /// syntax of `rpy trace`, and each abort.
    pub log: String,
}

impl MetaInterp {
    pub fn new(params: JitParams) -> MetaInterp {
        MetaInterp {
            params,
            stats: JitStats::default(),
            pending: HashSet::new(),
            given_up: HashSet::new(),
            loops: HashMap::new(),
            mirror: Mirror::default(),
            header: None,
            log: String::new(),
        }
    }

    /// The key got hot at `can_enter_jit`.
    pub(crate) fn hot(&mut self, key: GreenKey) {
        if !self.given_up.contains(&key) && !self.loops.contains_key(&key) {
            self.pending.insert(key);
        }
    }

    /// The portal (the only frame) just ran its merge point with `greens`
    /// and `reds`: enters the key's loop, or traces it when it is hot.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn at_merge_point(
        &mut self,
        blackhole: &Blackhole<'_>,
        machine: &LlMachine<'_>,
        frames: &mut Vec<Frame>,
        driver: &str,
        greens: &[LlValue],
        reds: &[Operand],
        out: &mut dyn Write,
    ) -> Result<(), LlError> {
        let key = GreenKey::new(driver, greens);
        if self.loops.contains_key(&key) {
            return self.enter(blackhole, machine, frames, &key, reds);
        }
        if !self.pending.remove(&key) {
            return Ok(());
        }
        let header = self
            .header
            .get_or_insert_with(|| Header::of_program(machine.container_types()))
            .clone();
        let recording = record::record_loop(
            blackhole,
            machine,
            frames,
            &key,
            reds,
            &mut self.mirror,
            header,
            self.params.trace_limit,
            out,
        )?;
        let greens_text = crate::warmstate::greens_text(greens).join(", ");
        match recording {
            Recording::Aborted(why) => {
                self.stats.aborts += 1;
                let _ = writeln!(self.log, "# abort {driver} [{greens_text}]: {why}\n");
                self.given_up.insert(key);
            }
            Recording::Closed(recorded) => {
                let n = self.stats.loops;
                let _ = writeln!(
                    self.log,
                    "# loop {n} {driver} [{greens_text}], recorded\n{}",
                    crate::text::print_body(&recorded.trace)
                );
                match crate::optimize::optimize(&recorded.trace, &self.params.enable_opts) {
                    Ok(trace) => {
                        let _ = writeln!(
                            self.log,
                            "# loop {n}, optimized\n{}",
                            crate::text::print_body(&trace)
                        );
                        // The header grew with the descrs the trace named.
                        self.header = Some((*trace.header).clone());
                        match self.params.backend.compile(trace) {
                            Ok(code) => {
                                self.stats.loops += 1;
                                self.loops.insert(
                                    key,
                                    CompiledLoop {
                                        code,
                                        resumes: recorded.resumes,
                                    },
                                );
                            }
                            Err(e) => {
                                self.stats.aborts += 1;
                                let _ = writeln!(self.log, "# abort: the backend failed: {e}\n");
                                self.given_up.insert(key);
                            }
                        }
                    }
                    Err(e) => {
                        self.stats.aborts += 1;
                        let _ = writeln!(self.log, "# abort: the optimizer failed: {e}\n");
                        self.given_up.insert(key);
                    }
                }
            }
        }
        Ok(())
    }

    /// Runs the loop of `key` from the reds of the portal's frame until a
    /// guard fails, then rebuilds the frames that guard saved.
    fn enter(
        &mut self,
        blackhole: &Blackhole<'_>,
        machine: &LlMachine<'_>,
        frames: &mut Vec<Frame>,
        key: &GreenKey,
        reds: &[Operand],
    ) -> Result<(), LlError> {
        let compiled = &self.loops[key];
        let header = &compiled.code.trace().header;
        let fail = |e: String| internal(format!("a compiled loop: {e}"), "jit");
        let mut values = Vec::new();
        for r in reds {
            if let Operand::Reg(r) = r {
                values.push(frames[0].banks[r.bank as usize][r.index as usize].clone());
            }
        }
        self.mirror.sync_in(header, &values).map_err(fail)?;
        let args: Vec<RunValue> = values
            .iter()
            .map(|v| self.mirror.to_run(header, v))
            .collect::<Result<_, _>>()
            .map_err(fail)?;
        self.stats.loop_entries += 1;
        let (guard, saved) = match compiled.code.run(&args, &mut self.mirror.heap) {
            Outcome::GuardFailed { guard, values } => (guard, values),
            Outcome::Error(e) => return Err(fail(e)),
            other => return Err(fail(format!("the loop ended as {other:?}"))),
        };
        self.stats.guard_failures += 1;
        let Some(RunValue::Int(index)) = saved.first().copied() else {
            return Err(fail(format!("guard {guard} saved no resume index")));
        };
        let resume = compiled
            .resumes
            .get(index as usize)
            .ok_or_else(|| fail(format!("guard {guard} names resume data {index}")))?;
        let mut rebuilt = Vec::with_capacity(resume.len());
        for snapshot in resume {
            let mut frame = blackhole.new_frame(snapshot.code, Vec::new(), snapshot.result);
            frame.pc = snapshot.pc;
            for (reg, s) in &snapshot.registers {
                let v = match s {
                    Saved::Const(v) => v.clone(),
                    Saved::Arg(i, flavor) => {
                        let word = saved
                            .get(*i)
                            .ok_or_else(|| fail(format!("guard {guard} saved no value {i}")))?;
                        self.mirror
                            .to_ll(machine, header, word.bits(), *flavor)
                            .map_err(fail)?
                    }
                };
                frame.banks[reg.bank as usize][reg.index as usize] = v;
            }
            rebuilt.push(frame);
        }
        self.mirror.sync_out(machine, header).map_err(fail)?;
        *frames = rebuilt;
        Ok(())
    }
}

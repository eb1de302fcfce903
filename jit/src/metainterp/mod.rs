//! The meta-interpreter: when a loop of the interpreter gets hot, traces
//! it from the jitcodes (`record`), optimizes the trace with the trace
//! optimizer, and from then on runs the loop as the trace each time the
//! portal reaches its merge point with the loop's greens; a failing guard
//! resumes in the blackhole interpreter from the frames the guard saved.
//!
//! Here the program runs in the LLInterpreter and a loop runs in the
//! reference trace interpreter (or machine code), on the interpreter's own
//! memory, where its objects are laid out as the C backend lays them out
//! (`flavor`): `rpy interp --jit`, where what the JIT does
//! is checked against the LLInterpreter without a C compiler. Linking the
//! same machinery into executables, with the x86-64 backend, is the next
//! step (ARCHITECTURE.md).

pub mod flavor;
pub mod ll;
pub mod record;
pub mod residual;

use fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::fmt::Write as _;
use std::io::Write;

use rpy_llinterp::LlError;

use crate::blackhole::{internal, Frame, Raised};
use crate::codewriter::jitcode::{Operand, Reg};
use crate::interp::{self, Outcome, RunValue};
use crate::trace::{Header, Trace};
use crate::warmstate::GreenKey;
use flavor::Flavor;
pub use ll::LlLoops;
use record::{MergeTarget, Recording, ResumeFrames, Saved, Start, TraceExec};
use residual::ResidualSite;

/// How a world compiles traces: its compiled loops, and the values of
/// its programs.
pub trait Loops {
    type Value: Clone;
    type Loop;
    /// Compiles `trace`, to be compiled trace `id` of the run; its
    /// residual calls' descrs index `sites`.
    fn compile(
        &mut self,
        trace: Trace,
        id: usize,
        sites: &[ResidualSite],
    ) -> Result<Self::Loop, String>;
    fn trace_of(code: &Self::Loop) -> &Trace;
    /// From now on, where `from` leaves through `exit`, its code may go
    /// straight on into `to`'s (a world whose code can jump between
    /// traces links them; a run then reports which trace it left from).
    fn link(&mut self, _from: &Self::Loop, _exit: LinkedExit, _to: &Self::Loop) {}
    /// How many guards failed straight into linked code.
    fn linked_failures(&self) -> u64 {
        0
    }
}

/// Where one compiled trace goes on into another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkedExit {
    /// The guard with this resume index, into its bridge.
    Guard(usize),
    /// The trace's `finish`, into the loop at its merge point.
    Finish,
}

/// What a run of compiled code did, the exception its last residual call
/// raised, and the compiled trace it left from (another than the one
/// entered when it went on into linked code).
pub(crate) type LoopRun<V> = (Outcome, Option<Raised<V>>, usize);

/// How compiled loops run from a world `E` and come back to it.
pub(crate) trait RunLoops<'j, E: TraceExec<'j, Value = Self::Value>>: Loops {
    /// The inputs of a run, as words, from the world's values.
    fn enter(
        &mut self,
        e: &mut E,
        header: &Header,
        values: &[Self::Value],
    ) -> Result<Vec<RunValue>, String>;
    /// Runs `code` from `args`; what the run did, and the exception its
    /// last residual call raised. `log`: the log, when the run is to be
    /// written there for replay.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        e: &mut E,
        code: &Self::Loop,
        id: usize,
        args: &[RunValue],
        sites: &[ResidualSite],
        log: Option<&mut String>,
        out: &mut dyn Write,
    ) -> Result<LoopRun<Self::Value>, LlError>;
    /// The world's objects after a run left the code.
    fn leave(&mut self, e: &mut E, header: &Header) -> Result<(), String>;
    /// The world's value of a word a guard saved.
    fn value_of_word(
        &mut self,
        e: &mut E,
        header: &Header,
        bits: u64,
        flavor: Flavor,
    ) -> Result<Self::Value, String>;
}

/// Where compiled loops run. `jit` runs them in the reference trace
/// interpreter; the backend crate (which depends on this one) provides
/// machine code.
pub trait LoopBackend {
    fn compile(&self, trace: Trace) -> Result<Box<dyn RunnableLoop>, String>;
}

/// A compiled loop, run on the LLInterpreter's memory.
pub trait RunnableLoop {
    fn trace(&self) -> &Trace;
    /// Runs the loop; `calls` runs its residual calls.
    fn run(
        &self,
        inputs: &[RunValue],
        heap: &mut interp::Heap,
        calls: &mut dyn interp::ResidualCalls,
    ) -> Outcome;
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

    fn run(
        &self,
        inputs: &[RunValue],
        heap: &mut interp::Heap,
        calls: &mut dyn interp::ResidualCalls,
    ) -> Outcome {
        interp::run_with_calls(&self.0, inputs, heap, u64::MAX, calls)
    }
}

/// How often a key is traced before its tracing is given up for good.
pub const TRACE_ATTEMPTS: u32 = 3;

/// The original's default `trace_eagerness`.
pub const DEFAULT_TRACE_EAGERNESS: u32 = 200;

/// The JIT's parameters, as the original's `set_param` names them, and the
/// backend.
#[derive(Clone)]
pub struct JitParams {
    pub threshold: u32,
    /// How many portal calls first reaching a key's merge point make it hot.
    pub function_threshold: u32,
    pub trace_limit: usize,
    /// The optimizations, `:`-separated (the original's `enable_opts`).
    pub enable_opts: String,
    /// How often a guard fails before a bridge is traced from it.
    pub trace_eagerness: u32,
    /// Where the LLInterpreter's world runs its loops.
    pub backend: std::rc::Rc<dyn LoopBackend>,
    /// Whether the log holds each trace's first run, for replay
    /// ([`crate::replay`]); off unless a log is written, as it costs a walk
    /// of the inputs' objects per trace.
    pub log_runs: bool,
}

impl Default for JitParams {
    fn default() -> Self {
        JitParams {
            threshold: crate::warmstate::DEFAULT_THRESHOLD,
            function_threshold: crate::warmstate::DEFAULT_FUNCTION_THRESHOLD,
            trace_limit: record::DEFAULT_TRACE_LIMIT,
            enable_opts: crate::optimize::ALL_PASSES.to_string(),
            trace_eagerness: DEFAULT_TRACE_EAGERNESS,
            backend: std::rc::Rc::new(Interpreted),
            log_runs: false,
        }
    }
}

/// The parameters `set` knows, for messages.
pub const PARAM_NAMES: &str =
    "threshold, function_threshold, trace_limit, trace_eagerness, enable_opts";

impl JitParams {
    /// Sets parameter `name` from its text, as the original's `set_param`
    /// (a count below 1 is 1).
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        let number = || {
            value
                .trim()
                .parse::<u32>()
                .map_err(|_| format!("{name}: '{value}' is not a positive number"))
        };
        match name {
            "threshold" => self.threshold = number()?.max(1),
            "function_threshold" => self.function_threshold = number()?.max(1),
            "trace_limit" => self.trace_limit = number()? as usize,
            "trace_eagerness" => self.trace_eagerness = number()?.max(1),
            // "all", as the original's `--jit enable_opts=all`.
            "enable_opts" if value.trim() == "all" => {
                self.enable_opts = crate::optimize::ALL_PASSES.to_string()
            }
            "enable_opts" => {
                crate::optimize::check_passes(value)?;
                self.enable_opts = value.to_string()
            }
            _ => return Err(format!("no JIT parameter '{name}' ({PARAM_NAMES})")),
        }
        Ok(())
    }

    /// Sets parameter `name` as the program's `jit.set_param` does: as
    /// [`JitParams::set`], and also `default` (the parameter's default), a
    /// negative threshold (never hot: the JIT is off), and the original's
    /// parameters rpy's JIT does not use (`llops::JIT_PARAMETERS`: ignored).
    pub fn set_from_program(&mut self, name: &str, value: &str) -> Result<(), String> {
        let defaults = JitParams::default();
        let value = value.trim();
        let never = || u32::MAX.to_string();
        match (name, value) {
            (_, "default") => match name {
                "threshold" => self.threshold = defaults.threshold,
                "function_threshold" => self.function_threshold = defaults.function_threshold,
                "trace_limit" => self.trace_limit = defaults.trace_limit,
                "trace_eagerness" => self.trace_eagerness = defaults.trace_eagerness,
                "enable_opts" => self.enable_opts = defaults.enable_opts,
                _ => {}
            },
            ("threshold" | "function_threshold" | "trace_eagerness", v) if v.starts_with('-') => {
                self.set(name, &never())?
            }
            (
                "threshold" | "function_threshold" | "trace_limit" | "trace_eagerness"
                | "enable_opts",
                _,
            ) => self.set(name, value)?,
            _ if rpy_ir::llops::JIT_PARAMETERS.contains(&name) => {}
            _ => return Err(format!("no JIT parameter '{name}'")),
        }
        Ok(())
    }

    /// Sets the parameters of `settings`, `NAME=VALUE` separated by commas
    /// (the syntax of the original's `--jit` option).
    pub fn set_all(&mut self, settings: &str) -> Result<(), String> {
        for s in settings.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = s
                .split_once('=')
                .ok_or_else(|| format!("'{s}' is not NAME=VALUE"))?;
            self.set(name.trim(), value)?;
        }
        Ok(())
    }
}

/// What the JIT did, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JitStats {
    pub loops: u64,
    pub bridges: u64,
    pub aborts: u64,
    pub loop_entries: u64,
    pub guard_failures: u64,
    /// Exceptions residual calls raised in compiled code (each left it
    /// through the `guard_no_exception` after the call).
    pub residual_raises: u64,
}

/// A compiled trace: a loop, or a bridge from a guard of another.
struct Compiled<L: Loops> {
    code: L::Loop,
    resumes: Vec<ResumeFrames<L::Value>>,
    /// How often each guard (by resume index) failed.
    failures: Vec<u32>,
    /// The bridges attached to guards, by resume index.
    bridges: HashMap<usize, usize>,
    /// For a bridge: the merge point it ends at.
    end: Option<MergeTarget<L::Value>>,
    /// Whether its first run is in the log (see [`crate::replay`]).
    run_logged: bool,
}

/// The meta-interpreter's state over one run, in a world whose loops are
/// `L`.
pub struct MetaInterp<L: Loops = LlLoops> {
    pub params: JitParams,
    pub stats: JitStats,
    /// The keys that got hot and wait for their next merge point.
    pending: HashSet<GreenKey>,
    /// Keys whose tracing was given up.
    given_up: HashSet<GreenKey>,
    /// Per key: how often tracing it gave up (after
    /// [`TRACE_ATTEMPTS`], for good).
    failed_attempts: HashMap<GreenKey, u32>,
    /// Guards (trace, resume index) whose bridge was given up.
    given_up_guards: HashSet<(usize, usize)>,
    compiled: Vec<Compiled<L>>,
    /// The trace entered at each key's merge point.
    loops: HashMap<GreenKey, usize>,
    /// The keys of `loops`.
    loop_keys: HashSet<GreenKey>,
    world: L,
    /// The residual calls of every trace, by the index their descrs name.
    sites: Vec<ResidualSite>,
    header: Option<Header>,
    /// The JIT log: each trace as recorded and as optimized, in the text
    /// syntax of `rpy trace`, and each abort.
    pub log: String,
}

/// What a run of compiled code left the blackhole to do.
enum Exit<V> {
    /// Go on from these frames.
    Frames(Vec<Frame<V>>),
    /// A guard of trace `.0` with resume index `.1` failed often: trace a
    /// bridge from the frames it saved.
    Bridge(usize, usize, Vec<Frame<V>>),
    /// A residual call raised (its `guard_no_exception` failed): the
    /// exception is to be raised in these frames, by the call their top
    /// one just ran.
    Raised(Vec<Frame<V>>, V, V),
}

impl MetaInterp<LlLoops> {
    /// The meta-interpreter of the LLInterpreter's world.
    pub fn new(params: JitParams) -> MetaInterp<LlLoops> {
        let loops = LlLoops {
            backend: params.backend.clone(),
        };
        MetaInterp::with_loops(params, loops)
    }
}

impl<L: Loops> MetaInterp<L> {
    pub fn with_loops(params: JitParams, world: L) -> MetaInterp<L> {
        MetaInterp {
            params,
            stats: JitStats::default(),
            pending: HashSet::default(),
            given_up: HashSet::default(),
            failed_attempts: HashMap::default(),
            given_up_guards: HashSet::default(),
            compiled: Vec::new(),
            loops: HashMap::default(),
            loop_keys: HashSet::default(),
            world,
            sites: Vec::new(),
            header: None,
            log: String::new(),
        }
    }

    /// The key got hot at `can_enter_jit`.
    pub fn hot(&mut self, key: GreenKey) {
        if !self.given_up.contains(&key) && !self.loops.contains_key(&key) {
            self.pending.insert(key);
        }
    }

    /// The key of a hot loop changed (its green objects moved, see
    /// `native`): it stays hot.
    pub fn rekey(&mut self, old: &GreenKey, new: GreenKey) {
        if self.pending.remove(old) {
            self.pending.insert(new);
        }
    }

    /// Whether any merge point may matter: a loop is compiled or a key
    /// is hot (else the blackhole does not even make keys).
    pub fn has_work(&self) -> bool {
        !self.loops.is_empty() || !self.pending.is_empty()
    }

    /// Whether the merge point of `key` enters a loop or starts tracing.
    pub fn wants(&self, key: &GreenKey) -> bool {
        self.loops.contains_key(key) || self.pending.contains(key)
    }

    /// The log, then `counts`, then the header its traces name (what
    /// `RPY_JITLOG` writes; [`crate::replay`] reads it).
    pub fn log_file(&self, counts: &str) -> String {
        let header = self
            .header
            .as_ref()
            .map(crate::text::print_header)
            .unwrap_or_default();
        format!(
            "{}# {counts}\n{}\n{header}",
            self.log,
            crate::replay::HEADER_LINE
        )
    }

    /// The portal just ran its merge point with `greens` (`frames` holds
    /// its frame only): enters the key's loop, or traces it when it is
    /// hot. An exception the frames must raise (the call their top one
    /// just ran raised it) comes back.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn at_merge_point<'j, E>(
        &mut self,
        e: &mut E,
        frames: &mut Vec<Frame<E::Value>>,
        key: GreenKey,
        greens: &[E::Value],
        greens_text: &dyn Fn(&[E::Value]) -> Vec<String>,
        reds: &[Operand],
        out: &mut dyn Write,
    ) -> Result<Option<Raised<E::Value>>, LlError>
    where
        E: TraceExec<'j, Value = L::Value>,
        L: RunLoops<'j, E>,
    {
        if let Some(&id) = self.loops.get(&key) {
            let mut values = Vec::new();
            for r in reds {
                if let Operand::Reg(r) = r {
                    values.push(frames[0].get(*r).clone());
                }
            }
            // Where the portal frame's caller wants its result: the
            // frame the loop is entered from says, not the one it was
            // traced in (a portal called from C, or from another portal
            // frame, or a recursive one).
            let result = frames[0].result;
            match self.enter(e, id, &values, result, out)? {
                Exit::Frames(rebuilt) => *frames = rebuilt,
                Exit::Bridge(parent, guard, rebuilt) => {
                    *frames = rebuilt;
                    return self.trace_bridge(e, frames, parent, guard, out);
                }
                Exit::Raised(rebuilt, etype, evalue) => {
                    *frames = rebuilt;
                    return Ok(Some((etype, evalue)));
                }
            }
            return Ok(None);
        }
        if !self.pending.remove(&key) {
            return Ok(None);
        }
        let header = self.header(e);
        let recording = record::record(
            e,
            frames,
            Start::Loop {
                key: &key,
                reds,
                compiled: &self.loop_keys,
            },
            &mut self.sites,
            header,
            self.params.trace_limit,
            out,
        )?;
        let what = format!("loop {} [{}]", key.driver(), greens_text(greens).join(", "));
        let raised = recording.raised();
        if let Some(id) = self.compile(recording, &what, false) {
            self.loop_keys.insert(key.clone());
            self.loops.insert(key, id);
        } else {
            // Tried again when the key gets hot again, a while later: a
            // trace that aborts may take another path next time.
            let failed = self.failed_attempts.entry(key.clone()).or_insert(0);
            *failed += 1;
            if *failed >= TRACE_ATTEMPTS {
                self.given_up.insert(key);
            }
        }
        Ok(raised)
    }

    fn header<'j, E: TraceExec<'j>>(&mut self, e: &E) -> Header {
        self.header
            .get_or_insert_with(|| e.program_header())
            .clone()
    }

    /// Optimizes and compiles a recorded trace, logging both; its index,
    /// or `None` when recording, optimizing or compiling gave up.
    fn compile(
        &mut self,
        recording: Recording<L::Value>,
        what: &str,
        bridge: bool,
    ) -> Option<usize> {
        let recorded = match recording {
            Recording::Aborted(why) | Recording::AbortedRaising(why, ..) => {
                self.stats.aborts += 1;
                let _ = writeln!(self.log, "# abort {what}: {why}\n");
                return None;
            }
            Recording::Closed(recorded) => recorded,
        };
        let id = self.compiled.len();
        let logged_from = self.log.len();
        let _ = writeln!(
            self.log,
            "# trace {id}: {what}, recorded\n{}",
            crate::text::print_body(&recorded.trace)
        );
        let trace = match crate::optimize::optimize(&recorded.trace, &self.params.enable_opts) {
            Ok(trace) => trace,
            Err(e) => {
                self.stats.aborts += 1;
                self.unnumber(logged_from, id);
                let _ = writeln!(self.log, "# abort {what}: the optimizer failed: {e}\n");
                return None;
            }
        };
        let _ = writeln!(
            self.log,
            "# trace {id}: {what}, optimized\n{}",
            crate::text::print_body(&trace)
        );
        // The header grew with the descrs the trace named.
        self.header = Some((*trace.header).clone());
        match self.world.compile(trace, id, &self.sites) {
            Ok(code) => {
                if bridge {
                    self.stats.bridges += 1;
                } else {
                    self.stats.loops += 1;
                }
                self.compiled.push(Compiled {
                    code,
                    failures: vec![0; recorded.resumes.len()],
                    resumes: recorded.resumes,
                    bridges: HashMap::default(),
                    end: recorded.end,
                    run_logged: false,
                });
                Some(id)
            }
            Err(e) => {
                self.stats.aborts += 1;
                self.unnumber(logged_from, id);
                let _ = writeln!(self.log, "# abort {what}: the backend failed: {e}\n");
                None
            }
        }
    }

    /// The run went from compiled trace `from` through `exit` on into
    /// trace `to` by way of the runtime: their code is linked from now on,
    /// once `to`'s first run is in the log (when runs are logged for
    /// replay; a linked run would not come back to be logged).
    fn link(&mut self, from: usize, exit: LinkedExit, to: usize) {
        if self.params.log_runs && !self.compiled[to].run_logged {
            return;
        }
        self.world
            .link(&self.compiled[from].code, exit, &self.compiled[to].code);
    }

    /// How many guards failed, in the runtime or straight into linked
    /// code.
    pub fn guard_failures(&self) -> u64 {
        self.stats.guard_failures + self.linked_guard_failures()
    }

    /// How many guards failed straight into linked code.
    pub fn linked_guard_failures(&self) -> u64 {
        self.world.linked_failures()
    }

    /// The log from `from` on names a trace that was given up: number `id`
    /// goes to the next trace compiled (which replay looks up by it).
    fn unnumber(&mut self, from: usize, id: usize) {
        let tail = self.log.split_off(from);
        let numbered = format!("# trace {id}: ");
        self.log
            .push_str(&tail.replace(&numbered, "# trace given up: "));
    }

    /// Traces a bridge from the frames guard `guard` of trace `parent`
    /// saved (the frames stand there) and attaches it.
    fn trace_bridge<'j, E>(
        &mut self,
        e: &mut E,
        frames: &mut Vec<Frame<E::Value>>,
        parent: usize,
        guard: usize,
        out: &mut dyn Write,
    ) -> Result<Option<Raised<E::Value>>, LlError>
    where
        E: TraceExec<'j, Value = L::Value>,
        L: RunLoops<'j, E>,
    {
        let header = self.header(e);
        let saved = self.compiled[parent].resumes[guard].clone();
        let recording = record::record(
            e,
            frames,
            Start::Bridge {
                saved: &saved,
                compiled: &self.loop_keys,
            },
            &mut self.sites,
            header,
            self.params.trace_limit,
            out,
        )?;
        let what = format!("bridge from guard {guard} of trace {parent}");
        let raised = recording.raised();
        match self.compile(recording, &what, true) {
            Some(id) => {
                self.compiled[parent].bridges.insert(guard, id);
            }
            None => {
                self.given_up_guards.insert((parent, guard));
            }
        }
        Ok(raised)
    }

    /// Runs trace `id` from the reds `values` (and on through the bridges
    /// of its guards and the loops they reach) until a guard with no bridge
    /// fails; the frames to go on from.
    fn enter<'j, E>(
        &mut self,
        e: &mut E,
        mut id: usize,
        values: &[E::Value],
        result: Option<Reg>,
        out: &mut dyn Write,
    ) -> Result<Exit<E::Value>, LlError>
    where
        E: TraceExec<'j, Value = L::Value>,
        L: RunLoops<'j, E>,
    {
        let fail = |e: String| internal(format!("compiled code: {e}"), "jit");
        let mut header = L::trace_of(&self.compiled[id].code).header.clone();
        let mut args = self.world.enter(e, &header, values).map_err(fail)?;
        self.stats.loop_entries += 1;
        loop {
            let compiled = &mut self.compiled[id];
            let log = (self.params.log_runs && !compiled.run_logged).then(|| {
                compiled.run_logged = true;
                &mut self.log
            });
            let (outcome, raised, left) =
                self.world
                    .run(e, &compiled.code, id, &args, &self.sites, log, out)?;
            if left != id {
                id = left;
                header = L::trace_of(&self.compiled[id].code).header.clone();
            }
            let compiled = &mut self.compiled[id];
            match outcome {
                Outcome::GuardFailed {
                    guard,
                    values: saved,
                } => {
                    self.stats.guard_failures += 1;
                    let Some(RunValue::Int(index)) = saved.first().copied() else {
                        return Err(fail(format!("guard {guard} saved no resume index")));
                    };
                    let index = index as usize;
                    if index >= compiled.resumes.len() {
                        return Err(fail(format!("guard {guard} names resume data {index}")));
                    }
                    if let Some((etype, evalue)) = raised {
                        self.stats.residual_raises += 1;
                        // No bridge starts from a raising call: the
                        // blackhole takes the exception from here.
                        let frames = self.rebuild(e, id, index, &saved, result)?;
                        self.world.leave(e, &header).map_err(fail)?;
                        return Ok(Exit::Raised(frames, etype, evalue));
                    }
                    if let Some(&bridge) = compiled.bridges.get(&index) {
                        self.link(id, LinkedExit::Guard(index), bridge);
                        id = bridge;
                        args = saved[1..].to_vec();
                        continue;
                    }
                    compiled.failures[index] += 1;
                    let wants_bridge = compiled.failures[index] >= self.params.trace_eagerness
                        && !self.given_up_guards.contains(&(id, index));
                    let frames = self.rebuild(e, id, index, &saved, result)?;
                    self.world.leave(e, &header).map_err(fail)?;
                    return Ok(if wants_bridge {
                        Exit::Bridge(id, index, frames)
                    } else {
                        Exit::Frames(frames)
                    });
                }
                Outcome::Finished(reds) => {
                    let Some(end) = compiled.end.clone() else {
                        return Err(fail("a trace finished without a merge point".into()));
                    };
                    // A trace ends only where a loop begins.
                    let Some(&next) = self.loops.get(&end.key) else {
                        return Err(fail("a trace ends at a merge point with no loop".into()));
                    };
                    self.link(id, LinkedExit::Finish, next);
                    id = next;
                    args = reds;
                }
                Outcome::Error(e) => return Err(fail(e)),
                other => return Err(fail(format!("compiled code ended as {other:?}"))),
            }
        }
    }

    /// The frames guard `index` of trace `id` saved, from the values it
    /// handed back; the portal's frame gives its result to `result`.
    fn rebuild<'j, E>(
        &mut self,
        e: &mut E,
        id: usize,
        index: usize,
        saved: &[RunValue],
        result: Option<Reg>,
    ) -> Result<Vec<Frame<E::Value>>, LlError>
    where
        E: TraceExec<'j, Value = L::Value>,
        L: RunLoops<'j, E>,
    {
        let fail = |e: String| internal(format!("compiled code: {e}"), "jit");
        let compiled = &self.compiled[id];
        let header = L::trace_of(&compiled.code).header.clone();
        let mut rebuilt = Vec::new();
        for (depth, snapshot) in compiled.resumes[index].iter().enumerate() {
            let jc = &e.codes().codes[snapshot.code];
            let result = if depth == 0 { result } else { snapshot.result };
            let mut frame = Frame::new(snapshot.code, jc, Vec::new(), result, e.void());
            frame.pc = snapshot.pc;
            for (reg, s) in &snapshot.registers {
                let v = match s {
                    Saved::Const(v) => v.clone(),
                    Saved::Arg(i, flavor) => {
                        let word = saved
                            .get(*i)
                            .ok_or_else(|| fail(format!("no saved value {i}")))?;
                        self.world
                            .value_of_word(e, &header, word.bits(), *flavor)
                            .map_err(fail)?
                    }
                };
                frame.set(*reg, v);
            }
            rebuilt.push(frame);
        }
        Ok(rebuilt)
    }
}

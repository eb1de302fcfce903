//! The blackhole interpreter: runs jitcodes, on the values and objects of
//! the LLInterpreter, as the original's `blackhole.py` runs them on those
//! of the translated program. It is where a failing guard will resume (the
//! rest of the interrupted iteration runs here, without tracing), and on
//! its own it checks the codewriter: a program whose portal runs on its
//! jitcodes must print what it prints in the LLInterpreter.
//!
//! What one low-level operation does is the LLInterpreter's (each
//! `Insn::Op` is bound to the operation it came from, through
//! `LlMachine::detach`), as is a residual call; the jitcode's control flow,
//! registers, frames of regular calls and exception handlers are run
//! here.

use crate::codewriter::jitcode::{Bank, CallKind, Callee, Insn, JitCode, JitCodes, Operand, Reg};
use crate::metainterp::MetaInterp;
use crate::warmstate::{HotLoop, WarmState};
use rpy_passes::llinterp::{
    CallHook, CallOutcome, DetachedOp, LlError, LlErrorKind, LlMachine, LlValue,
};
use std::io::Write;

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

/// A jitcode bound to the machine: its operations detached from the
/// interpreter's graphs, its constants as the interpreter's values.
pub(crate) struct Bound {
    pub(crate) ops: Vec<Option<DetachedOp>>,
    pub(crate) constants: Vec<LlValue>,
}

pub(crate) struct Frame {
    pub(crate) code: usize,
    pub(crate) pc: usize,
    pub(crate) banks: [Vec<LlValue>; 3],
    /// Where the caller wants this frame's result.
    pub(crate) result: Option<Reg>,
}

/// Runs the portals' calls on their jitcodes.
pub struct Blackhole<'j> {
    pub(crate) codes: &'j JitCodes,
    pub(crate) bound: Vec<Option<Bound>>,
    pub stats: BlackholeStats,
    /// The warm-up counters of the loops closed at `can_enter_jit`.
    pub warm: WarmState,
    /// With the JIT: the meta-interpreter, which traces the hot loops and
    /// runs them.
    pub jit: Option<MetaInterp>,
    /// A portal call started and has not reached a merge point yet (its
    /// first one counts against `function_threshold`).
    entering: bool,
}

pub(crate) fn internal(message: String, graph: &str) -> LlError {
    LlError {
        message,
        graph: graph.to_string(),
        kind: LlErrorKind::Internal,
        traceback: vec![graph.to_string()],
        op: None,
        pos: None,
    }
}

pub(crate) fn truthy(v: &LlValue) -> Result<bool, String> {
    match v {
        LlValue::Bool(b) => Ok(*b),
        LlValue::Signed(n) => Ok(*n != 0),
        other => Err(format!("a jump on a {} value", other.kind())),
    }
}

pub(crate) fn switch_key(v: &LlValue) -> Result<i64, String> {
    match v {
        LlValue::Bool(b) => Ok(*b as i64),
        LlValue::Signed(n) => Ok(*n),
        LlValue::Char(c) => Ok(*c as i64),
        other => Err(format!("a switch on a {} value", other.kind())),
    }
}

impl<'j> Blackhole<'j> {
    pub fn new(codes: &'j JitCodes) -> Self {
        Blackhole {
            codes,
            bound: (0..codes.codes.len()).map(|_| None).collect(),
            stats: BlackholeStats::default(),
            warm: WarmState::default(),
            jit: None,
            entering: false,
        }
    }

    fn bind(&mut self, machine: &LlMachine<'_>, code: usize) -> Result<(), LlError> {
        if self.bound[code].is_some() {
            return Ok(());
        }
        let jc = &self.codes.codes[code];
        let ops = jc
            .code
            .iter()
            .map(|insn| match insn {
                Insn::Op { origin, .. }
                | Insn::Call {
                    callee: Callee::Runtime { origin, .. },
                    ..
                } => machine.detach(origin.graph, origin.block, origin.op),
                _ => None,
            })
            .collect();
        let constants = jc
            .constants
            .iter()
            .map(|(c, t)| machine.constant(c, Some(t)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| internal(e, &jc.name))?;
        self.bound[code] = Some(Bound { ops, constants });
        Ok(())
    }

    pub(crate) fn new_frame(&self, code: usize, args: Vec<LlValue>, result: Option<Reg>) -> Frame {
        let jc = &self.codes.codes[code];
        let mut banks = [Bank::Int, Bank::Ref, Bank::Float]
            .map(|b| vec![LlValue::Void; jc.registers_of(b) as usize]);
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

    /// Runs the jitcode of graph `graph` with `args` to its end.
    pub fn run(
        &mut self,
        machine: &LlMachine<'_>,
        graph: u32,
        args: Vec<LlValue>,
        out: &mut dyn Write,
    ) -> Result<CallOutcome, LlError> {
        let Some(code) = self.codes.by_graph(graph) else {
            return Err(internal(
                format!("no jitcode for '{}'", machine.graph_name(graph)),
                machine.graph_name(graph),
            ));
        };
        for c in 0..self.codes.codes.len() {
            self.bind(machine, c)?;
        }
        let mut frames = vec![self.new_frame(code, args, None)];
        self.entering = true;
        self.execute(machine, &mut frames, out).map_err(|mut e| {
            e.traceback = frames
                .iter()
                .map(|f| self.codes.codes[f.code].name.clone())
                .collect();
            e
        })
    }

    fn execute(
        &mut self,
        machine: &LlMachine<'_>,
        frames: &mut Vec<Frame>,
        out: &mut dyn Write,
    ) -> Result<CallOutcome, LlError> {
        let codes = self.codes;
        loop {
            let frame = frames.last_mut().expect("a frame");
            let jc: &JitCode = &codes.codes[frame.code];
            let bound = self.bound[frame.code]
                .as_ref()
                .expect("bound before it runs");
            let at = frame.pc;
            let Some(insn) = jc.code.get(at) else {
                return Err(internal(
                    format!("ran off the end of jitcode {}", jc.name),
                    &jc.name,
                ));
            };
            frame.pc += 1;
            self.stats.instructions += 1;
            let get = |frame: &Frame, o: &Operand| -> LlValue {
                match o {
                    Operand::Reg(r) => frame.banks[r.bank as usize][r.index as usize].clone(),
                    Operand::Const(i) => bound.constants[*i as usize].clone(),
                }
            };
            let fail = |m: String| internal(m, &jc.name);
            match insn {
                Insn::Op { args, result, .. } => {
                    let op = bound.ops[at].as_ref().ok_or_else(|| {
                        fail(format!("operation {at} of {} is not bound", jc.name))
                    })?;
                    // The detached operation holds its constants; it takes
                    // the registers.
                    let values: Vec<LlValue> = args
                        .iter()
                        .filter(|a| matches!(a, Operand::Reg(_)))
                        .map(|a| get(frame, a))
                        .collect();
                    let v = machine.run(op, &values, out)?;
                    if let Some(r) = result {
                        frame.banks[r.bank as usize][r.index as usize] = v;
                    }
                }
                Insn::Move { from, to } => {
                    let v = get(frame, from);
                    frame.banks[to.bank as usize][to.index as usize] = v;
                }
                Insn::Goto(l) => frame.pc = *l as usize,
                Insn::GotoIfNot { cond, target } => {
                    if !truthy(&get(frame, cond)).map_err(fail)? {
                        frame.pc = *target as usize;
                    }
                }
                Insn::Switch { on, cases, default } => {
                    let key = switch_key(&get(frame, on)).map_err(fail)?;
                    let target = cases
                        .iter()
                        .find(|(k, _)| *k == key)
                        .map(|(_, l)| *l)
                        .or(*default)
                        .ok_or_else(|| fail(format!("no case of a switch matches {key}")))?;
                    frame.pc = target as usize;
                }
                Insn::Catch { .. } => {}
                Insn::JitMergePoint {
                    driver,
                    greens,
                    reds,
                } => {
                    self.stats.merge_points += 1;
                    let entering = std::mem::take(&mut self.entering);
                    let values: Vec<LlValue> = match &self.jit {
                        Some(jit) if jit.has_work() || entering => {
                            greens.iter().map(|g| get(frame, g)).collect()
                        }
                        _ => continue,
                    };
                    let key = crate::warmstate::GreenKey::new(driver, &values);
                    if entering && self.warm.portal_entered(&key) {
                        if let Some(jit) = self.jit.as_mut() {
                            jit.hot(key.clone());
                        }
                    }
                    if self.jit.as_ref().is_some_and(|jit| jit.wants(&key)) {
                        // The JIT sees this portal call's frames only: the
                        // portal's and those it calls; the callers' (a
                        // recursive interpreter's outer calls) wait.
                        let base = frames.len() - 1;
                        let mut own = frames.split_off(base);
                        let mut jit = self.jit.take().expect("the meta-interpreter");
                        let done =
                            jit.at_merge_point(self, machine, &mut own, key, &values, reds, out);
                        self.jit = Some(jit);
                        frames.extend(own);
                        if let Some((etype, evalue)) = done? {
                            if let Some(done) = unwind(codes, machine, frames, etype, evalue, true)?
                            {
                                return Ok(done);
                            }
                        }
                    }
                }
                Insn::CanEnterJit { driver, greens, .. } => {
                    self.stats.can_enter_jit += 1;
                    let values: Vec<LlValue> = greens.iter().map(|g| get(frame, g)).collect();
                    if self.warm.can_enter_jit(driver, &values) {
                        if let Some(jit) = self.jit.as_mut() {
                            jit.hot(crate::warmstate::GreenKey::new(driver, &values));
                        }
                    }
                }
                Insn::Call {
                    callee,
                    args,
                    result,
                    descr,
                } => {
                    let values: Vec<LlValue> = args.iter().map(|a| get(frame, a)).collect();
                    let (graph, traced_into) = match callee {
                        Callee::Runtime { .. } => {
                            let op = bound.ops[at].as_ref().ok_or_else(|| {
                                fail(format!("runtime call {at} of {} is not bound", jc.name))
                            })?;
                            self.stats.residual_calls += 1;
                            // As for an operation: the constants are the
                            // detached operation's own.
                            let registers: Vec<LlValue> = args
                                .iter()
                                .filter(|a| matches!(a, Operand::Reg(_)))
                                .map(|a| get(frame, a))
                                .collect();
                            let v = machine.run(op, &registers, out)?;
                            if let Some(r) = result {
                                frame.banks[r.bank as usize][r.index as usize] = v;
                            }
                            continue;
                        }
                        Callee::Graph { graph, .. } => (*graph, descr.kind == CallKind::Regular),
                        Callee::Pointer { pointer, .. } => match get(frame, pointer) {
                            LlValue::Func(Some(g)) => (g, descr.kind == CallKind::Regular),
                            other => {
                                return Err(fail(format!(
                                    "a call through a {} value",
                                    other.kind()
                                )))
                            }
                        },
                    };
                    let target = if traced_into {
                        codes.by_graph(graph)
                    } else {
                        None
                    };
                    match target {
                        Some(code) => {
                            if frames.len() >= MAX_FRAMES {
                                return Err(LlError {
                                    message: "fatal RPython error: RecursionError: maximum recursion depth exceeded".into(),
                                    graph: jc.name.clone(),
                                    kind: LlErrorKind::Fatal,
                                    traceback: vec![],
                                    op: None,
                                    pos: None,
                                });
                            }
                            self.stats.regular_calls += 1;
                            let result = *result;
                            let callee_frame = self.new_frame(code, values, result);
                            frames.push(callee_frame);
                        }
                        None => {
                            self.stats.residual_calls += 1;
                            match machine.call(graph, values, out)? {
                                CallOutcome::Returned(v) => {
                                    if let Some(r) = result {
                                        frame.banks[r.bank as usize][r.index as usize] = v;
                                    }
                                }
                                CallOutcome::Raised { etype, evalue } => {
                                    if let Some(done) =
                                        unwind(codes, machine, frames, etype, evalue, true)?
                                    {
                                        return Ok(done);
                                    }
                                }
                            }
                        }
                    }
                }
                Insn::Raise { etype, evalue } => {
                    let (etype, evalue) = (get(frame, etype), get(frame, evalue));
                    if let Some(done) = unwind(codes, machine, frames, etype, evalue, false)? {
                        return Ok(done);
                    }
                }
                Insn::Return(v) => {
                    let v = v.as_ref().map_or(LlValue::Void, |v| get(frame, v));
                    let done = frames.pop().expect("the returning frame");
                    match frames.last_mut() {
                        None => return Ok(CallOutcome::Returned(v)),
                        Some(caller) => {
                            if let Some(r) = done.result {
                                caller.banks[r.bank as usize][r.index as usize] = v;
                            }
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
fn unwind(
    codes: &JitCodes,
    machine: &LlMachine<'_>,
    frames: &mut Vec<Frame>,
    etype: LlValue,
    evalue: LlValue,
    by_call: bool,
) -> Result<Option<CallOutcome>, LlError> {
    if !by_call {
        frames.pop();
    }
    let id = machine.class_id(&etype)?;
    while let Some(frame) = frames.last_mut() {
        let jc = &codes.codes[frame.code];
        if let Some(Insn::Catch { handlers }) = jc.code.get(frame.pc) {
            if let Some(h) = handlers.iter().find(|h| h.range.0 <= id && id < h.range.1) {
                if let Some(r) = h.etype {
                    frame.banks[r.bank as usize][r.index as usize] = etype.clone();
                }
                if let Some(r) = h.evalue {
                    frame.banks[r.bank as usize][r.index as usize] = evalue.clone();
                }
                frame.pc = h.target as usize;
                return Ok(None);
            }
        }
        frames.pop();
    }
    Ok(Some(CallOutcome::Raised { etype, evalue }))
}

impl CallHook for Blackhole<'_> {
    /// The portals' calls: the rest of the program runs in the
    /// LLInterpreter, as it runs translated in the executable.
    fn takes(&self, graph: u32) -> bool {
        self.codes
            .by_graph(graph)
            .is_some_and(|c| self.codes.portals.contains(&self.codes.codes[c].name))
    }

    fn call(
        &mut self,
        machine: &LlMachine<'_>,
        graph: u32,
        args: Vec<LlValue>,
        out: &mut dyn Write,
    ) -> Result<CallOutcome, LlError> {
        self.run(machine, graph, args, out)
    }
}

/// What a run on the blackhole did.
pub struct BlackholeRun {
    /// The exit status, or the error.
    pub status: Result<i64, LlError>,
    pub stats: BlackholeStats,
    /// The loops that got hot, in order.
    pub hot: Vec<HotLoop>,
    /// With the JIT: what it did (its counts and log).
    pub jit: Option<MetaInterp>,
}

/// Runs `program`'s entry point in the LLInterpreter with every call of a
/// portal run on its jitcode by the blackhole interpreter, loops hot after
/// `threshold` closings; with `jit`, the meta-interpreter traces the hot
/// loops and runs them.
pub fn run_entry(
    program: &rpy_ir::graph::Program<rpy_ir::graph::LowLevel>,
    codes: &JitCodes,
    argv: &[String],
    out: &mut dyn Write,
    threshold: u32,
    jit: Option<crate::metainterp::JitParams>,
) -> BlackholeRun {
    let mut interp = rpy_passes::llinterp::LlInterpreter::new(program);
    let mut blackhole = Blackhole::new(codes);
    let function_threshold = jit
        .as_ref()
        .map_or(crate::warmstate::DEFAULT_FUNCTION_THRESHOLD, |p| {
            p.function_threshold
        });
    blackhole.warm = WarmState::with_function_threshold(threshold, function_threshold);
    blackhole.jit = jit.map(MetaInterp::new);
    let status = interp.run_entry_hooked(argv, out, Some(&mut blackhole));
    BlackholeRun {
        status,
        stats: blackhole.stats,
        hot: blackhole.warm.hot,
        jit: blackhole.jit,
    }
}

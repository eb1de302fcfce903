//! The blackhole in the test world: jitcodes run on the values and objects
//! of the LLInterpreter. What one low-level operation does is the
//! LLInterpreter's (each `Insn::Op` is bound to the operation it came
//! from, through `LlMachine::detach`), as is a residual call.

use super::{execute, operand, AtMergePoint, BlackholeStats, Completion, Exec, Frame, Ran};
use crate::codewriter::jitcode::{Bank, Callee, Insn, JitCodes, Operand};
use crate::metainterp::MetaInterp;
use crate::warmstate::{GreenKey, HotLoop, WarmState};
use rpy_llinterp::{CallHook, CallOutcome, DetachedOp, LlError, LlErrorKind, LlMachine, LlValue};
use std::io::Write;

/// A jitcode bound to the machine: its operations detached from the
/// interpreter's graphs, its constants as the interpreter's values.
pub struct Bound {
    pub(crate) ops: Vec<Option<DetachedOp>>,
    pub(crate) constants: Vec<LlValue>,
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

/// Every object the registers of `frames` hold: what a collection must
/// not find dead.
pub(crate) fn frames_roots(frames: &[Frame]) -> Vec<LlValue> {
    frames
        .iter()
        .flat_map(|f| f.banks[Bank::Ref as usize].iter())
        .filter(|v| matches!(v, LlValue::Ptr(Some(_))))
        .cloned()
        .collect()
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
        let jc = &self.codes.codes[code];
        let mut frames = vec![Frame::new(code, jc, args, None, LlValue::Void)];
        self.entering = true;
        let codes = self.codes;
        let mut world = LlExec {
            blackhole: self,
            machine,
        };
        match execute(&mut world, &mut frames, out) {
            Ok(Ran::Completed(Completion::Returned(v))) => Ok(CallOutcome::Returned(v)),
            Ok(Ran::Completed(Completion::Raised { etype, evalue })) => {
                Ok(CallOutcome::Raised { etype, evalue })
            }
            // (This world's merge points never leave: the LLInterpreter
            // cannot take a graph's frame back.)
            Ok(Ran::Left) => Err(internal(
                "the blackhole left a portal call the LLInterpreter cannot take back".into(),
                &codes.codes[code].name,
            )),
            Err(mut e) => {
                e.traceback = frames
                    .iter()
                    .map(|f| codes.codes[f.code].name.clone())
                    .collect();
                Err(e)
            }
        }
    }
}

/// The LLInterpreter as the world jitcodes run in.
pub(crate) struct LlExec<'a, 'j, 'm> {
    pub(crate) blackhole: &'a mut Blackhole<'j>,
    pub(crate) machine: &'a LlMachine<'m>,
}

impl LlExec<'_, '_, '_> {
    fn bound(&self, code: usize, at: usize) -> Result<&DetachedOp, LlError> {
        let bound = self.blackhole.bound[code]
            .as_ref()
            .expect("bound before it runs");
        bound.ops[at].as_ref().ok_or_else(|| {
            let name = &self.blackhole.codes.codes[code].name;
            internal(format!("operation {at} of {name} is not bound"), name)
        })
    }
}

impl<'j> Exec<'j> for LlExec<'_, 'j, '_> {
    type Value = LlValue;

    fn codes(&self) -> &'j JitCodes {
        self.blackhole.codes
    }

    fn void(&self) -> LlValue {
        LlValue::Void
    }

    fn constant(&self, code: usize, index: u16) -> LlValue {
        let bound = self.blackhole.bound[code]
            .as_ref()
            .expect("bound before it runs");
        bound.constants[index as usize].clone()
    }

    fn stats(&mut self) -> &mut BlackholeStats {
        &mut self.blackhole.stats
    }

    fn op(
        &mut self,
        code: usize,
        at: usize,
        args: &[Operand],
        values: &[LlValue],
        frames: &mut [Frame],
        out: &mut dyn Write,
    ) -> Result<LlValue, LlError> {
        // The detached operation holds its constants; it takes the
        // registers.
        let registers: Vec<LlValue> = args
            .iter()
            .zip(values)
            .filter(|(a, _)| matches!(a, Operand::Reg(_)))
            .map(|(_, v)| v.clone())
            .collect();
        let op = self.bound(code, at)?;
        // A collection keeps what any frame's registers hold.
        let roots = || frames_roots(frames);
        self.machine.run(op, &registers, &roots, out)
    }

    fn residual_call(
        &mut self,
        graph: u32,
        values: Vec<LlValue>,
        frames: &mut [Frame],
        out: &mut dyn Write,
    ) -> Result<Completion<LlValue>, LlError> {
        let roots = if self.machine.has_finalizers() {
            frames_roots(frames)
        } else {
            Vec::new()
        };
        let called = self
            .machine
            .with_roots(roots, || self.machine.call(graph, values, out));
        Ok(match called? {
            CallOutcome::Returned(v) => Completion::Returned(v),
            CallOutcome::Raised { etype, evalue } => Completion::Raised { etype, evalue },
        })
    }

    fn graph_of_pointer(&self, v: &LlValue) -> Result<u32, String> {
        match v {
            LlValue::Func(Some(g)) => Ok(*g),
            other => Err(format!("a call through a {} value", other.kind())),
        }
    }

    fn truthy(&self, v: &LlValue) -> Result<bool, String> {
        truthy(v)
    }

    fn switch_key(&self, v: &LlValue) -> Result<i64, String> {
        switch_key(v)
    }

    fn class_id(&self, etype: &LlValue) -> Result<i64, LlError> {
        self.machine.class_id(etype)
    }

    fn merge_point(
        &mut self,
        frames: &mut Vec<Frame>,
        driver: &str,
        greens: &[Operand],
        reds: &[Operand],
        out: &mut dyn Write,
    ) -> Result<AtMergePoint<LlValue>, LlError> {
        let entering = std::mem::take(&mut self.blackhole.entering);
        let bh = &mut *self.blackhole;
        let frame = frames.last().expect("a frame");
        let values: Vec<LlValue> = match &bh.jit {
            Some(jit) if jit.has_work() || entering => {
                greens.iter().map(|g| operand(self, frame, g)).collect()
            }
            _ => return Ok(AtMergePoint::GoOn),
        };
        let bh = &mut *self.blackhole;
        let key = GreenKey::new(driver, &values);
        if entering && bh.warm.portal_entered(&key) {
            if let Some(jit) = bh.jit.as_mut() {
                jit.hot(key.clone());
            }
        }
        if !bh.jit.as_ref().is_some_and(|jit| jit.wants(&key)) {
            return Ok(AtMergePoint::GoOn);
        }
        // The JIT sees this portal call's frames only: the portal's and
        // those it calls; the callers' (a recursive interpreter's outer
        // calls) wait.
        let base = frames.len() - 1;
        let mut own = frames.split_off(base);
        let mut jit = bh.jit.take().expect("the meta-interpreter");
        let machine = self.machine;
        let greens_text = |greens: &[LlValue]| crate::warmstate::greens_text(greens, Some(machine));
        let done = jit.at_merge_point(self, &mut own, key, &values, &greens_text, reds, out);
        self.blackhole.jit = Some(jit);
        frames.extend(own);
        done.map(AtMergePoint::raising)
    }

    fn can_enter_jit(&mut self, frames: &mut [Frame], driver: &str, greens: &[Operand]) {
        let frame = frames.last().expect("a frame");
        let values: Vec<LlValue> = greens.iter().map(|g| operand(self, frame, g)).collect();
        let bh = &mut *self.blackhole;
        if bh.warm.can_enter_jit(driver, &values, Some(self.machine)) {
            if let Some(jit) = bh.jit.as_mut() {
                jit.hot(GreenKey::new(driver, &values));
            }
        }
    }
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
        // The program's `jit.set_param` calls so far tune the JIT.
        for (name, value) in rpy_llinterp::take_jit_settings() {
            if let Some(jit) = self.jit.as_mut() {
                match jit.params.set_from_program(&name, &value) {
                    Ok(()) => self
                        .warm
                        .set_thresholds(jit.params.threshold, jit.params.function_threshold),
                    Err(e) => eprintln!("RPython JIT: set_param: {e}"),
                }
            }
        }
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
    let mut interp = rpy_llinterp::LlInterpreter::new(program);
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

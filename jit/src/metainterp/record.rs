//! The tracer: runs jitcodes as the blackhole does (every operation is
//! executed, so the program goes on as it would) and records what each
//! did as trace operations on boxes, as the original's `pyjitpl.py`.
//!
//! A register holds its value and what the trace knows of it: a box, or a
//! constant. An operation whose arguments are all constants and which is
//! pure is not recorded (its result is a constant); a branch on a box
//! becomes a guard; a green that is a box at a merge point is promoted
//! (`guard_value`), as the original's codewriter does with
//! `promote_greens`; a regular call pushes the callee's frame, so the
//! trace goes through it. The trace closes when the portal comes back to
//! its merge point with the greens it started from: its inputs are the
//! reds there, and it ends with `jump` of the reds now.
//!
//! Every guard's first fail arg is the constant index of its resume data
//! (the original's `ResumeGuardDescr`): the frames at the guard, each
//! register a fail arg or a constant. The optimizer keeps constant fail
//! args, so the index survives it, and a failing guard names its frames
//! whatever became of the trace around it.

use crate::trace::Opcode as TraceOp;
use rpy_ir::opcode::Opcode;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::Arc;

use rpy_ir::lltype::STR;
use rpy_llinterp::LlError;

use super::flavor::Flavor;
use super::residual::{ResidualSite, ResidualTarget};
use crate::blackhole::{internal, operand, Completion, Exec, Frame, Operands};
use crate::codewriter::immutable::ImmutableFields;
use crate::codewriter::jitcode::{Bank, CallKind, Callee, Insn, Operand, Reg};
use crate::interp::RunValue;
use crate::trace::{BoxInfo, DescrId, Header, Kind, Op, ResidualCall, Trace, Value};
use crate::warmstate::GreenKey;

/// What the tracer needs of the world the jitcodes run in, beyond running
/// them: how the trace sees the world's values.
pub(crate) trait TraceExec<'j>: Exec<'j> {
    /// The word `v` is in memory, as a trace value of `kind`; an error
    /// when the trace cannot hold it as a constant.
    fn to_trace(
        &mut self,
        header: &Header,
        v: &Self::Value,
        kind: Kind,
    ) -> Result<RunValue, String>;
    /// What a register of `bank` holding `v` is, to rebuild it from a
    /// word (`None`: nothing was ever written to it).
    fn flavor(&self, v: &Self::Value, bank: Bank) -> Option<Flavor>;
    /// The identity of the object `v` points to.
    fn object_id(&self, v: &Self::Value) -> Option<usize>;
    /// The array type of `v`, operand 0 of operation `at` of jitcode
    /// `code`.
    fn array_type(&self, code: usize, at: usize, v: &Self::Value) -> Result<String, String>;
    fn graph_name(&self, graph: u32) -> String;
    /// The kind of constant `index` of jitcode `code`.
    fn constant_kind(&self, code: usize, index: u16) -> Kind;
    fn green_key(&self, driver: &str, greens: &[Self::Value]) -> GreenKey;
    /// The header that declares the program's types (a type's id is the
    /// one its objects' GC headers hold).
    fn program_header(&self) -> Header;
    /// Whether the collector may move the object `v` points to (a trace
    /// constant must stay where it is).
    fn may_move(&self, v: &Self::Value) -> bool;
    /// Makes the objects the frames reach stay where they are, before
    /// their pointers become trace constants.
    fn settle(&mut self, frames: &mut [Frame<Self::Value>]) -> Result<(), LlError>;
}

/// The kind of trace box a register of `bank` becomes.
pub(crate) fn bank_kind(bank: Bank) -> Kind {
    match bank {
        Bank::Int => Kind::Int,
        Bank::Ref => Kind::Ref,
        Bank::Float => Kind::Float,
    }
}

/// What a register holds when a guard fails: a fail arg (by index, and
/// what kind of interpreter value its word is) or a constant.
#[derive(Clone, Debug)]
pub enum Saved<V> {
    Arg(usize, Flavor),
    Const(V),
}

/// One frame as a guard saves it.
#[derive(Clone, Debug)]
pub struct FrameSnapshot<V> {
    pub code: usize,
    /// Where the frame goes on: for the guarding frame, the branch the
    /// guard stands for (run again, now going the other way).
    pub pc: usize,
    pub result: Option<Reg>,
    pub registers: Vec<(Reg, Saved<V>)>,
}

/// The frames a guard saves, outermost first.
pub type ResumeFrames<V> = Vec<FrameSnapshot<V>>;

/// A trace that closed its loop or reached its merge point, with its
/// guards' resume data.
pub struct Recorded<V> {
    pub trace: Trace,
    pub resumes: Vec<ResumeFrames<V>>,
    /// For a bridge: where it ends.
    pub end: Option<MergeTarget<V>>,
}

/// How recording ended.
pub enum Recording<V> {
    Closed(Box<Recorded<V>>),
    /// Tracing gave up (why); the frames stand where it stopped, and the
    /// blackhole goes on from there.
    Aborted(String),
    /// Tracing gave up after a residual call raised: the blackhole goes on
    /// by raising the exception (type, value) in the frames, where the
    /// call their top one ran.
    AbortedRaising(String, V, V),
}

impl<V: Clone> Recording<V> {
    /// The exception a recording that gave up leaves to raise.
    pub fn raised(&self) -> Option<(V, V)> {
        match self {
            Recording::AbortedRaising(_, etype, evalue) => Some((etype.clone(), evalue.clone())),
            _ => None,
        }
    }
}

/// The original's default `trace_limit`: recorded operations before a
/// trace is given up.
pub const DEFAULT_TRACE_LIMIT: usize = 6000;

struct Tracer<'m, V> {
    header: Header,
    boxes: Vec<BoxInfo>,
    ops: Vec<Op>,
    resumes: Vec<ResumeFrames<V>>,
    /// Per frame, per bank, per register: what the trace knows of it.
    known: Vec<[Vec<Value>; 3]>,
    immutable: &'m ImmutableFields,
    /// The objects read through a `f[*]` field (see [`ImmutableFields`]):
    /// their own reads fold.
    deep: HashSet<usize>,
    /// A constant was made of an object the collector may move.
    moving: bool,
}

const BANKS: [Bank; 3] = [Bank::Int, Bank::Ref, Bank::Float];

impl<V: Clone> Tracer<'_, V> {
    fn is_deep<'j, E: TraceExec<'j, Value = V>>(&self, e: &E, v: &V) -> bool {
        e.object_id(v).is_some_and(|id| self.deep.contains(&id))
    }

    fn mark_deep<'j, E: TraceExec<'j, Value = V>>(&mut self, e: &E, v: &V) {
        if let Some(id) = e.object_id(v) {
            self.deep.insert(id);
        }
    }

    /// A new box of `kind`.
    fn new_box(&mut self, kind: Kind) -> Value {
        let n = self.boxes.len() as u64;
        self.boxes.push(BoxInfo::numbered(n, kind));
        Value::Box(self.boxes.len() - 1)
    }

    /// The trace constant of a value of `kind`: its word in memory.
    fn constant<'j, E: TraceExec<'j, Value = V>>(
        &mut self,
        e: &mut E,
        v: &V,
        kind: Kind,
    ) -> Result<Value, String> {
        if kind == Kind::Ref && e.may_move(v) {
            self.moving = true;
        }
        Ok(match e.to_trace(&self.header, v, kind)? {
            RunValue::Int(n) => Value::Int(n),
            RunValue::Float(x) => Value::float(x),
            RunValue::Ref(0) => Value::NullPtr,
            RunValue::Ref(p) => Value::ConstPtr(p as u64),
        })
    }

    /// Records `name(args)` whose concrete result is `result`; a pure
    /// operation of constants is folded to the result instead.
    fn record<'j, E: TraceExec<'j, Value = V>>(
        &mut self,
        e: &mut E,
        name: TraceOp,
        args: Vec<Value>,
        descr: Option<DescrId>,
        result: &V,
    ) -> Result<Value, String> {
        let info = name.info();
        if info.pure && args.iter().all(|a| a.is_const()) {
            return self.constant(e, result, info.result);
        }
        Ok(self.emit(name, args, descr))
    }

    /// Records `name(args)`, folded or not; its result (`0` for none).
    fn emit(&mut self, opcode: TraceOp, args: Vec<Value>, descr: Option<DescrId>) -> Value {
        let kind = opcode.info().result;
        let out = (kind != Kind::Void).then(|| self.new_box(kind));
        let mut op = Op::new(opcode, args, out.and_then(Value::as_box));
        op.descr = descr;
        self.ops.push(op);
        out.unwrap_or(Value::Int(0))
    }

    /// Records a guard whose failure resumes `frames` with the top one at
    /// `pc`.
    fn guard<'j, E: TraceExec<'j, Value = V>>(
        &mut self,
        e: &E,
        name: TraceOp,
        args: Vec<Value>,
        frames: &[Frame<V>],
        pc: usize,
    ) -> Result<(), String> {
        let index = self.resumes.len();
        let mut fail_args = vec![Value::Int(index as i64)];
        let mut slots: HashMap<Value, usize> = HashMap::new();
        let mut snapshot = Vec::with_capacity(frames.len());
        for (depth, (frame, known)) in frames.iter().zip(&self.known).enumerate() {
            let mut registers = Vec::new();
            for (bank, kind) in BANKS.iter().enumerate() {
                for (k, v) in frame.banks[bank].iter().enumerate() {
                    let Some(flavor) = e.flavor(v, *kind) else {
                        continue;
                    };
                    let reg = Reg {
                        bank: *kind,
                        index: k as u16,
                    };
                    let saved = match known[bank][k] {
                        b @ Value::Box(_) => {
                            let slot = *slots.entry(b).or_insert_with(|| {
                                fail_args.push(b);
                                fail_args.len() - 1
                            });
                            Saved::Arg(slot, flavor)
                        }
                        _ => Saved::Const(v.clone()),
                    };
                    registers.push((reg, saved));
                }
            }
            snapshot.push(FrameSnapshot {
                code: frame.code,
                pc: if depth + 1 == frames.len() {
                    pc
                } else {
                    frame.pc
                },
                result: frame.result,
                registers,
            });
        }
        self.resumes.push(snapshot);
        let mut op = Op::new(name, args, None);
        op.fail_args = Some(fail_args);
        self.ops.push(op);
        Ok(())
    }

    /// Records a residual call of `site` (its arguments `known`, one per
    /// argument of the site, voids included) that returned `result`, and
    /// the `guard_no_exception` after it when it may raise (failing, it
    /// resumes after the call, where the exception is raised); the
    /// result's box.
    #[allow(clippy::too_many_arguments)]
    fn residual_call<'j, E: TraceExec<'j, Value = V>>(
        &mut self,
        e: &mut E,
        sites: &mut Vec<ResidualSite>,
        site: ResidualSite,
        known: Vec<Value>,
        result: &V,
        pure: bool,
        frames: &[Frame<V>],
        at: usize,
    ) -> Result<Value, String> {
        let index = match sites
            .iter()
            .position(|s| s.target == site.target && s.args == site.args && s.result == site.result)
        {
            Some(i) => i,
            None => {
                sites.push(site);
                sites.len() - 1
            }
        };
        let site = &sites[index];
        let args: Vec<Value> = known
            .into_iter()
            .zip(&site.args)
            .filter_map(|(k, f)| f.map(|_| k))
            .collect();
        let kinds: Vec<Kind> = site.args.iter().flatten().map(|f| f.kind()).collect();
        let result_kind = site.result.map_or(Kind::Void, Flavor::kind);
        let can_raise = site.effects.can_raise;
        let short: String = site
            .name
            .rsplit('.')
            .next()
            .unwrap_or(&site.name)
            .chars()
            .take(40)
            .collect();
        let name = format!("residual{index}_{short}");
        let descr = self.header.residual_descr(
            &name,
            ResidualCall {
                index,
                args: kinds,
                result: result_kind,
                can_raise,
            },
        )?;
        let k = self.record(
            e,
            TraceOp::call(result_kind, pure),
            args,
            Some(descr),
            result,
        )?;
        if can_raise {
            self.guard(e, TraceOp::GuardNoException, Vec::new(), frames, at + 1)?;
        }
        Ok(k)
    }

    fn set(&mut self, frames: &mut [Frame<V>], r: Reg, concrete: V, known: Value) {
        let top = frames.len() - 1;
        frames[top].banks[r.bank as usize][r.index as usize] = concrete;
        self.known[top][r.bank as usize][r.index as usize] = known;
    }
}

/// Where recording starts.
pub(crate) enum Start<'a, V> {
    /// At the portal's merge point of `key`, just run (the portal's frame,
    /// the only one, stands after it): the reds are the inputs, and the
    /// trace is a loop that closes when the key comes back, or that ends
    /// at a merge point whose key has a loop already (`compiled`), as a
    /// bridge does (an inner loop is entered, not unrolled).
    Loop {
        key: &'a GreenKey,
        reds: &'a [Operand],
        compiled: &'a fxhash::FxHashSet<GreenKey>,
    },
    /// At the frames a failing guard saved, rebuilt: the guard's fail args
    /// (but the first, the resume index) are the inputs, and the trace is a
    /// bridge that ends at a merge point whose key has a loop (the
    /// original's `reached_loop_header`).
    Bridge {
        saved: &'a ResumeFrames<V>,
        compiled: &'a fxhash::FxHashSet<GreenKey>,
    },
}

/// Where a bridge ends: the portal's merge point, its greens and reds.
#[derive(Clone, Debug)]
pub struct MergeTarget<V> {
    pub key: GreenKey,
    /// The portal's jitcode and the merge point's index in it.
    pub code: usize,
    pub pc: usize,
    /// The green registers and their values.
    pub greens: Vec<(Reg, V)>,
    /// The red registers, in the order of the bridge's `finish`.
    pub reds: Vec<(Reg, Flavor)>,
}

/// Records from `start` until the loop closes, the bridge reaches a merge
/// point, or tracing gives up.
#[allow(clippy::too_many_arguments)]
pub(crate) fn record<'j, E: TraceExec<'j>>(
    e: &mut E,
    frames: &mut Vec<Frame<E::Value>>,
    start: Start<'_, E::Value>,
    sites: &mut Vec<ResidualSite>,
    header: Header,
    trace_limit: usize,
    out: &mut dyn Write,
) -> Result<Recording<E::Value>, LlError> {
    let codes = e.codes();
    let mut t = Tracer {
        header,
        boxes: Vec::new(),
        ops: Vec::new(),
        resumes: Vec::new(),
        known: Vec::new(),
        immutable: &codes.immutable,
        deep: HashSet::new(),
        moving: false,
    };
    e.settle(frames)?;
    // Every register starts as what it holds, but the inputs.
    for frame in frames.iter() {
        let mut known = [Vec::new(), Vec::new(), Vec::new()];
        for (bank, values) in frame.banks.iter().enumerate() {
            for v in values {
                let c = t
                    .constant(e, v, bank_kind(BANKS[bank]))
                    .map_err(|m| internal(m, "tracer"))?;
                known[bank].push(c);
            }
        }
        t.known.push(known);
    }
    let mut inputs = Vec::new();
    match &start {
        Start::Loop { reds, .. } => {
            for r in reds.iter() {
                if let Operand::Reg(r) = r {
                    let b = t.new_box(bank_kind(r.bank));
                    t.known[0][r.bank as usize][r.index as usize] = b;
                    inputs.push(b.as_box().expect("a box"));
                }
            }
        }
        Start::Bridge { saved, .. } => {
            // One input per fail arg after the resume index, of the kind
            // its register says.
            let mut slots: Vec<Option<Kind>> = Vec::new();
            for snapshot in saved.iter() {
                for (_, s) in &snapshot.registers {
                    if let Saved::Arg(i, flavor) = s {
                        if slots.len() <= *i {
                            slots.resize(*i + 1, None);
                        }
                        slots[*i] = Some(flavor.kind());
                    }
                }
            }
            let boxes: Vec<Value> = slots
                .iter()
                .skip(1)
                .map(|k| t.new_box(k.unwrap_or(Kind::Int)))
                .collect();
            inputs = boxes.iter().filter_map(|b| b.as_box()).collect();
            for (depth, snapshot) in saved.iter().enumerate() {
                for (r, s) in &snapshot.registers {
                    if let Saved::Arg(i, _) = s {
                        t.known[depth][r.bank as usize][r.index as usize] = boxes[*i - 1];
                    }
                }
            }
        }
    }
    // Tracing gives up before the instruction at `at` runs: the
    // blackhole runs it.
    let abort = |frames: &mut Vec<Frame<E::Value>>, at: usize, why: String| {
        let top = frames.len() - 1;
        frames[top].pc = at;
        Ok(Recording::Aborted(why))
    };
    loop {
        if t.ops.len() > trace_limit {
            let at = frames[frames.len() - 1].pc;
            return abort(
                frames,
                at,
                format!("the trace is longer than trace_limit ({trace_limit})"),
            );
        }
        if t.moving {
            // The last instruction ran and made a constant of an object
            // the collector may move: the frames stand after it.
            return Ok(Recording::Aborted(
                "a constant of an object the collector may move".into(),
            ));
        }
        let depth = frames.len() - 1;
        let code = frames[depth].code;
        let jc = &codes.codes[code];
        let at = frames[depth].pc;
        let Some(insn) = jc.code.get(at) else {
            return Err(internal(
                format!("ran off the end of jitcode {}", jc.name),
                &jc.name,
            ));
        };
        frames[depth].pc += 1;
        let fail = |m: String| internal(m, &jc.name);
        // The value and the trace's knowledge of an operand.
        let get = |e: &E, frames: &[Frame<E::Value>], o: &Operand| -> E::Value {
            operand(e, &frames[depth], o)
        };
        let know = |t: &mut Tracer<E::Value>,
                    e: &mut E,
                    frames: &[Frame<E::Value>],
                    o: &Operand|
         -> Result<Value, LlError> {
            match o {
                Operand::Reg(r) => Ok(t.known[depth][r.bank as usize][r.index as usize]),
                Operand::Const(i) => {
                    let v = e.constant(code, *i);
                    let kind = e.constant_kind(code, *i);
                    let _ = frames;
                    t.constant(e, &v, kind).map_err(|m| internal(m, &jc.name))
                }
            }
        };
        let result_kind = |r: &Option<Reg>| r.map_or(Kind::Void, |r| bank_kind(r.bank));
        match insn {
            Insn::Op {
                opname,
                args,
                result,
                ..
            } if *opname == Opcode::JitPromote => {
                // The value becomes a constant of the trace, after a guard
                // that it is this one (a float is left as it is: traces
                // guard words).
                let (v, k) = (get(e, frames, &args[0]), know(&mut t, e, frames, &args[0])?);
                let kind = result_kind(result);
                let k = match (kind, k.is_const()) {
                    (Kind::Float, _) | (_, true) => k,
                    _ => {
                        let c = t.constant(e, &v, kind).map_err(fail)?;
                        t.guard(e, TraceOp::GuardValue, vec![k, c], frames, at)
                            .map_err(fail)?;
                        if let Operand::Reg(r) = &args[0] {
                            t.known[depth][r.bank as usize][r.index as usize] = c;
                        }
                        c
                    }
                };
                if let Some(r) = result {
                    t.set(frames, *r, v, k);
                }
            }
            Insn::Op {
                opname,
                args,
                descr,
                result,
                ..
            } => {
                let Some(recipe) = recipe(*opname) else {
                    return abort(
                        frames,
                        at,
                        format!("the tracer does not know the operation '{opname}'"),
                    );
                };
                let values: Operands<E::Value> = args.iter().map(|a| get(e, frames, a)).collect();
                let v = e.op(code, at, args, &values, frames, out)?;
                let mut known = Vec::with_capacity(args.len());
                for a in args {
                    known.push(know(&mut t, e, frames, a)?);
                }
                let site = OpSite {
                    code,
                    at,
                    opname: *opname,
                    descr: descr.as_deref(),
                    result: result_kind(result),
                };
                let mut recorded =
                    record_op(&mut t, e, recipe, &site, &values, known, &v).map_err(fail)?;
                // An object's class is promoted where it is read, as the
                // original's codewriter makes `getfield(x, typeptr)` a
                // `guard_class`: what the program then reads of the class
                // (isinstance ranges, method slots) is constant.
                let typeptr = format!(".{}", rpy_ir::lltype::TYPEPTR);
                if *opname == Opcode::Getfield
                    && descr.as_deref().is_some_and(|d| d.ends_with(&typeptr))
                    && !recorded.is_const()
                {
                    let c = t.constant(e, &v, Kind::Ref).map_err(fail)?;
                    t.guard(e, TraceOp::GuardValue, vec![recorded, c], frames, at)
                        .map_err(fail)?;
                    recorded = c;
                }
                if let Some(r) = result {
                    t.set(frames, *r, v, recorded);
                }
            }
            Insn::Move { from, to } => {
                let v = get(e, frames, from);
                let k = know(&mut t, e, frames, from)?;
                t.set(frames, *to, v, k);
            }
            Insn::Goto(l) => frames[depth].pc = *l as usize,
            Insn::GotoIfNot { cond, target } => {
                let taken = e.truthy(&get(e, frames, cond)).map_err(fail)?;
                let k = know(&mut t, e, frames, cond)?;
                if !k.is_const() {
                    let name = if taken {
                        TraceOp::GuardTrue
                    } else {
                        TraceOp::GuardFalse
                    };
                    t.guard(e, name, vec![k], frames, at).map_err(fail)?;
                }
                if !taken {
                    frames[depth].pc = *target as usize;
                }
            }
            Insn::Switch { on, cases, default } => {
                let key = e.switch_key(&get(e, frames, on)).map_err(fail)?;
                let k = know(&mut t, e, frames, on)?;
                if !k.is_const() {
                    t.guard(e, TraceOp::GuardValue, vec![k, Value::Int(key)], frames, at)
                        .map_err(fail)?;
                }
                let target = cases
                    .iter()
                    .find(|(c, _)| *c == key)
                    .map(|(_, l)| *l)
                    .or(*default)
                    .ok_or_else(|| fail(format!("no case of a switch matches {key}")))?;
                frames[depth].pc = target as usize;
            }
            Insn::Catch { .. } | Insn::CanEnterJit { .. } => {}
            Insn::JitMergePoint {
                driver,
                greens,
                reds,
            } => {
                if depth > 0 {
                    continue;
                }
                let mut values = Vec::with_capacity(greens.len());
                for g in greens {
                    let v = get(e, frames, g);
                    let k = know(&mut t, e, frames, g)?;
                    if !k.is_const() {
                        let kind = match g {
                            Operand::Reg(r) => bank_kind(r.bank),
                            Operand::Const(i) => e.constant_kind(code, *i),
                        };
                        let c = t.constant(e, &v, kind).map_err(fail)?;
                        t.guard(e, TraceOp::GuardValue, vec![k, c], frames, at)
                            .map_err(fail)?;
                        if let Operand::Reg(r) = g {
                            t.known[0][r.bank as usize][r.index as usize] = c;
                        }
                    }
                    values.push(v);
                }
                let key = e.green_key(driver, &values);
                let mut red_values = Vec::with_capacity(reds.len());
                for r in reds {
                    if matches!(r, Operand::Reg(_)) {
                        red_values.push(know(&mut t, e, frames, r)?);
                    }
                }
                let end = match &start {
                    Start::Loop { key: start, .. } if key == **start => {
                        t.ops.push(Op::new(TraceOp::Jump, red_values, None));
                        None
                    }
                    Start::Loop { compiled, .. } | Start::Bridge { compiled, .. }
                        if !compiled.contains(&key) =>
                    {
                        continue
                    }
                    Start::Loop { .. } | Start::Bridge { .. } => {
                        t.ops.push(Op::new(TraceOp::Finish, red_values, None));
                        let registers = |os: &[Operand]| {
                            os.iter()
                                .filter_map(|o| match o {
                                    Operand::Reg(r) => Some(*r),
                                    Operand::Const(_) => None,
                                })
                                .collect::<Vec<_>>()
                        };
                        let greens = registers(greens)
                            .into_iter()
                            .map(|r| (r, frames[0].get(r).clone()))
                            .collect();
                        let reds = registers(reds)
                            .into_iter()
                            .filter_map(|r| e.flavor(frames[0].get(r), r.bank).map(|f| (r, f)))
                            .collect();
                        Some(MergeTarget {
                            key,
                            code: frames[0].code,
                            pc: at,
                            greens,
                            reds,
                        })
                    }
                };
                // The blackhole goes on from the merge point, where the
                // loop just compiled (or the bridge's target) is entered.
                frames[0].pc = at;
                let trace = Trace {
                    header: Arc::new(t.header),
                    boxes: t.boxes,
                    inputs,
                    ops: t.ops,
                };
                return Ok(Recording::Closed(Box::new(Recorded {
                    trace,
                    resumes: t.resumes,
                    end,
                })));
            }
            Insn::Call {
                callee,
                args,
                result,
                descr,
            } => {
                // The arguments' values, what the trace knows of them, and
                // their flavors (a residual call passes every argument,
                // constants included).
                let values: Vec<E::Value> = args.iter().map(|a| get(e, frames, a)).collect();
                let mut known = Vec::with_capacity(args.len());
                let mut flavors = Vec::with_capacity(args.len());
                for (a, v) in args.iter().zip(&values) {
                    known.push(know(&mut t, e, frames, a)?);
                    let bank = match a {
                        Operand::Reg(r) => r.bank,
                        Operand::Const(i) => kind_bank(e.constant_kind(code, *i)),
                    };
                    flavors.push(e.flavor(v, bank));
                }
                let graph = match callee {
                    Callee::Runtime { name, .. } => {
                        // As the blackhole runs it.
                        let v = e.op(code, at, args, &values, frames, out)?;
                        let target = ResidualTarget::Runtime { code, pc: at };
                        let result_flavor = result.and_then(|r| e.flavor(&v, r.bank));
                        let site = ResidualSite::new(
                            target,
                            name.clone(),
                            flavors,
                            result_flavor,
                            descr.effects.clone(),
                        );
                        let k = t
                            .residual_call(e, sites, site, known, &v, false, frames, at)
                            .map_err(fail)?;
                        if let Some(r) = result {
                            t.set(frames, *r, v, k);
                        }
                        continue;
                    }
                    Callee::Graph { graph, .. } => *graph,
                    Callee::Pointer { pointer, .. } => {
                        let p = get(e, frames, pointer);
                        let g = e.graph_of_pointer(&p).map_err(fail)?;
                        let k = know(&mut t, e, frames, pointer)?;
                        if !k.is_const() {
                            let c = t.constant(e, &p, Kind::Int).map_err(fail)?;
                            t.guard(e, TraceOp::GuardValue, vec![k, c], frames, at)
                                .map_err(fail)?;
                        }
                        g
                    }
                };
                let callee = (descr.kind == CallKind::Regular)
                    .then(|| codes.by_graph(graph))
                    .flatten();
                if callee.is_some_and(|c| codes.portals.contains(&codes.codes[c].name)) {
                    // A recursive call of the interpreter runs on its own:
                    // its loops are entered from its merge points.
                    return abort(frames, at, "a recursive call of the portal".into());
                }
                match callee {
                    Some(callee) => {
                        let jc = &codes.codes[callee];
                        let frame = Frame::new(callee, jc, values, *result, e.void());
                        let mut k = frame
                            .banks
                            .clone()
                            .map(|b| b.into_iter().map(|_| Value::Int(0)).collect::<Vec<_>>());
                        for (p, v) in jc.params.iter().zip(known) {
                            if let Some(r) = p {
                                k[r.bank as usize][r.index as usize] = v;
                            }
                        }
                        frames.push(frame);
                        t.known.push(k);
                    }
                    None if descr.kind == CallKind::Pure && known.iter().all(|k| k.is_const()) => {
                        // An elidable call of constants: its result is one.
                        match e.residual_call(graph, values, frames, out)? {
                            Completion::Returned(v) => {
                                let c = t.constant(e, &v, result_kind(result)).map_err(fail)?;
                                if let Some(r) = result {
                                    t.set(frames, *r, v, c);
                                }
                            }
                            Completion::Raised { .. } => {
                                return Err(fail(
                                    "an elidable call of constants raised while tracing".into(),
                                ))
                            }
                        }
                    }
                    None if descr.kind == CallKind::MayForce => {
                        return abort(
                            frames,
                            at,
                            format!(
                                "a call to '{}', which may reach the portal",
                                e.graph_name(graph)
                            ),
                        )
                    }
                    None => {
                        let mut site = ResidualSite::new(
                            ResidualTarget::Graph(graph),
                            e.graph_name(graph),
                            flavors,
                            None,
                            descr.effects.clone(),
                        );
                        match e.residual_call(graph, values, frames, out)? {
                            Completion::Returned(v) => {
                                site.result = result.and_then(|r| e.flavor(&v, r.bank));
                                let pure = descr.kind == CallKind::Pure;
                                let k = t
                                    .residual_call(e, sites, site, known, &v, pure, frames, at)
                                    .map_err(fail)?;
                                if let Some(r) = result {
                                    t.set(frames, *r, v, k);
                                }
                            }
                            Completion::Raised { etype, evalue } => {
                                // The call ran: the blackhole goes on with
                                // its exception, not by running it again.
                                frames[depth].pc = at + 1;
                                return Ok(Recording::AbortedRaising(
                                    format!("the residual call to '{}' raised", site.name),
                                    etype,
                                    evalue,
                                ));
                            }
                        }
                    }
                }
            }
            Insn::Raise { etype, evalue } => {
                // An exception the traced frames catch is followed: its
                // handler is the next code of the trace. The class decides
                // the handler, so it must be a constant (`raise E(...)`).
                let class = get(e, frames, etype);
                let known_class = know(&mut t, e, frames, etype)?;
                if !known_class.is_const() {
                    return abort(frames, at, "an exception of a class not known".into());
                }
                let value = get(e, frames, evalue);
                let known_value = know(&mut t, e, frames, evalue)?;
                let id = e.class_id(&class)?;
                let handler = (0..depth).rev().find_map(|d| {
                    let caller = &frames[d];
                    match codes.codes[caller.code].code.get(caller.pc) {
                        Some(Insn::Catch { handlers }) => handlers
                            .iter()
                            .find(|h| h.range.0 <= id && id < h.range.1)
                            .map(|h| (d, h.clone())),
                        _ => None,
                    }
                });
                let Some((d, h)) = handler else {
                    return abort(frames, at, "an exception leaves the portal".into());
                };
                frames.truncate(d + 1);
                t.known.truncate(d + 1);
                if let Some(r) = h.etype {
                    frames[d].set(r, class);
                    t.known[d][r.bank as usize][r.index as usize] = known_class;
                }
                if let Some(r) = h.evalue {
                    frames[d].set(r, value);
                    t.known[d][r.bank as usize][r.index as usize] = known_value;
                }
                frames[d].pc = h.target as usize;
            }
            Insn::Return(v) => {
                if depth == 0 {
                    return abort(frames, at, "the portal returns".into());
                }
                let value = v.as_ref().map_or_else(|| e.void(), |v| get(e, frames, v));
                let k = match v {
                    Some(v) => know(&mut t, e, frames, v)?,
                    None => Value::Int(0),
                };
                let done = frames.pop().expect("the returning frame");
                t.known.pop();
                if let Some(r) = done.result {
                    t.set(frames, r, value, k);
                }
            }
        }
    }
}

/// The bank of registers that hold values of `kind`.
fn kind_bank(kind: Kind) -> Bank {
    match kind {
        Kind::Ref => Bank::Ref,
        Kind::Float => Bank::Float,
        _ => Bank::Int,
    }
}

/// The operation a recipe records: where it is and what it names.
struct OpSite<'a> {
    code: usize,
    at: usize,
    opname: Opcode,
    descr: Option<&'a str>,
    /// The kind of its result register (`Void` without one).
    result: Kind,
}
/// How the tracer records a low-level operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Recipe {
    /// Its result is its argument (casts between words, pointer casts).
    Same,
    /// A trace operation of the same name and meaning (`int_add`...).
    Pure(TraceOp),
    /// `int_and(x, 0xff)`.
    ToChar,
    /// `int_is_zero`.
    Not,
    /// A char comparison: the int comparison of the same suffix.
    CharCompare,
    /// `low <= x < high`: two comparisons and their `int_and`.
    Between,
    /// A comparison with null: `ptr_eq` or `ptr_ne`.
    NullCompare(TraceOp),
    GetField,
    SetField,
    GetItem,
    SetItem,
    ArrayLength,
    New,
    NewArray,
}

/// The recipe for `opname`; `None` when the tracer does not know it.
fn recipe(opname: Opcode) -> Option<Recipe> {
    Some(match opname {
        _ if crate::codewriter::jitcode::keeps_the_word(opname) => Recipe::Same,
        Opcode::CastIntToChar => Recipe::ToChar,
        Opcode::BoolNot => Recipe::Not,
        Opcode::CharEq
        | Opcode::CharNe
        | Opcode::CharLt
        | Opcode::CharLe
        | Opcode::CharGt
        | Opcode::CharGe => Recipe::CharCompare,
        Opcode::IntBetween => Recipe::Between,
        // An Unsigned is the word of a Signed: these compute the same bits
        // as their signed twins (only division, modulo, right shift and
        // the order comparisons differ, and have trace operations of
        // their own).
        Opcode::UintAdd => Recipe::Pure(TraceOp::IntAdd),
        Opcode::UintSub => Recipe::Pure(TraceOp::IntSub),
        Opcode::UintMul => Recipe::Pure(TraceOp::IntMul),
        Opcode::UintAnd => Recipe::Pure(TraceOp::IntAnd),
        Opcode::UintOr => Recipe::Pure(TraceOp::IntOr),
        Opcode::UintXor => Recipe::Pure(TraceOp::IntXor),
        Opcode::UintLshift => Recipe::Pure(TraceOp::IntLshift),
        Opcode::UintInvert => Recipe::Pure(TraceOp::IntInvert),
        Opcode::UintEq => Recipe::Pure(TraceOp::IntEq),
        Opcode::UintNe => Recipe::Pure(TraceOp::IntNe),
        Opcode::UintIsTrue => Recipe::Pure(TraceOp::IntIsTrue),
        Opcode::PtrIszero => Recipe::NullCompare(TraceOp::PtrEq),
        Opcode::PtrNonzero => Recipe::NullCompare(TraceOp::PtrNe),
        Opcode::Getfield => Recipe::GetField,
        Opcode::Setfield => Recipe::SetField,
        Opcode::Getarrayitem => Recipe::GetItem,
        Opcode::Setarrayitem => Recipe::SetItem,
        Opcode::Getarraysize => Recipe::ArrayLength,
        Opcode::Malloc => Recipe::New,
        Opcode::MallocVarsize => Recipe::NewArray,
        _ => match TraceOp::twin_of(opname) {
            // The trace operation of the same name, where it means the same.
            Some(op)
                if op.info().pure
                    && op.info().descr == crate::trace::DescrNeed::None
                    && !op.info().guard =>
            {
                Recipe::Pure(op)
            }
            _ => return None,
        },
    })
}

/// Whether the field `struct.field` is written only when its object is
/// built, whatever the program declares: a tuple's items, and a vtable's
/// slots and class attributes (vtables are prebuilt and read-only).
fn immutable_field(descr: &str) -> bool {
    descr.starts_with("tuple")
        || descr.starts_with("vtable_")
        || descr.starts_with(&format!("{}.", rpy_ir::lltype::OBJECT_VTABLE))
}

/// Records one low-level operation by its recipe.
fn record_op<'j, E: TraceExec<'j>>(
    t: &mut Tracer<E::Value>,
    e: &mut E,
    recipe: Recipe,
    site: &OpSite,
    values: &[E::Value],
    args: Vec<Value>,
    result: &E::Value,
) -> Result<Value, String> {
    let OpSite {
        code,
        at,
        opname,
        descr,
        result: result_kind,
    } = *site;
    let arg = |i: usize| args[i];
    // The array type of operand 0.
    let array_of = |t: &mut Tracer<E::Value>, e: &E| -> Result<DescrId, String> {
        let name = e.array_type(code, at, &values[0])?;
        t.header.array_descr(&name)
    };
    // Whether the items of operand 0 never change once anything but its
    // builder sees it: a string's characters. A read of a constant one at
    // a constant index is the value read (the original declares these
    // arrays immutable, so its optimizer folds the same reads).
    let immutable_items = |e: &E| e.array_type(code, at, &values[0]).is_ok_and(|n| n == STR);
    let field = |t: &mut Tracer<E::Value>| -> Result<(DescrId, Kind), String> {
        let d = descr.ok_or_else(|| format!("'{opname}' without a field"))?;
        let (s, f) = d
            .split_once('.')
            .ok_or_else(|| format!("'{opname}' of '{d}', not a field"))?;
        let id = t.header.field_descr(s, f)?;
        let kind = match &t.header.descrs[id].data {
            crate::trace::DescrData::Field { ty, .. } => Kind::of_lltype(ty),
            _ => Kind::Void,
        };
        Ok((id, kind))
    };
    Ok(match recipe {
        // A constant operand is the result's own constant (a char constant
        // of `cast_char_to_int` may be bound as a one-character string).
        Recipe::Same if arg(0).is_const() => t.constant(e, result, result_kind)?,
        Recipe::Same => arg(0),
        Recipe::Pure(op) => t.record(e, op, args, None, result)?,
        Recipe::ToChar => t.record(
            e,
            TraceOp::IntAnd,
            vec![arg(0), Value::Int(0xff)],
            None,
            result,
        )?,
        Recipe::Not => t.record(e, TraceOp::IntIsZero, args, None, result)?,
        Recipe::CharCompare => {
            let name = opname.char_compare_as_int().unwrap_or(Opcode::IntEq);
            let op = TraceOp::twin_of(name).unwrap_or(TraceOp::IntEq);
            t.record(e, op, args, None, result)?
        }
        Recipe::Between if args.iter().all(|a| a.is_const()) => {
            t.constant(e, result, result_kind)?
        }
        Recipe::Between => {
            // (The optimizer folds a comparison of constants.)
            let low = t.emit(TraceOp::IntLe, vec![arg(0), arg(1)], None);
            let high = t.emit(TraceOp::IntLt, vec![arg(1), arg(2)], None);
            t.emit(TraceOp::IntAnd, vec![low, high], None)
        }
        Recipe::NullCompare(name) => {
            t.record(e, name, vec![arg(0), Value::NullPtr], None, result)?
        }
        Recipe::GetField => {
            let (d, k) = field(t)?;
            if k == Kind::Void {
                Value::Int(0)
            } else if arg(0).is_const()
                && (descr.is_some_and(|d| immutable_field(d) || t.immutable.fields.contains(d))
                    || t.is_deep(e, &values[0]))
            {
                if descr.is_some_and(|d| t.immutable.deep.contains(d)) || t.is_deep(e, &values[0]) {
                    t.mark_deep(e, result);
                }
                t.constant(e, result, k)?
            } else {
                t.record(e, TraceOp::getfield_gc(k), vec![arg(0)], Some(d), result)?
            }
        }
        Recipe::SetField => {
            let (d, k) = field(t)?;
            if k != Kind::Void {
                t.record(
                    e,
                    TraceOp::SetfieldGc,
                    vec![arg(0), arg(1)],
                    Some(d),
                    result,
                )?;
            }
            Value::Int(0)
        }
        Recipe::GetItem
            if arg(0).is_const()
                && arg(1).is_const()
                && (immutable_items(e) || t.is_deep(e, &values[0])) =>
        {
            if t.is_deep(e, &values[0]) {
                t.mark_deep(e, result);
            }
            t.constant(e, result, result_kind)?
        }
        Recipe::GetItem => {
            let d = array_of(t, e)?;
            t.record(
                e,
                TraceOp::getarrayitem_gc(result_kind),
                vec![arg(0), arg(1)],
                Some(d),
                result,
            )?
        }
        Recipe::SetItem => {
            let d = array_of(t, e)?;
            t.record(e, TraceOp::SetarrayitemGc, args, Some(d), result)?;
            Value::Int(0)
        }
        // A GC array never changes its length.
        Recipe::ArrayLength if arg(0).is_const() => t.constant(e, result, Kind::Int)?,
        Recipe::ArrayLength => {
            let d = array_of(t, e)?;
            t.record(e, TraceOp::ArraylenGc, args, Some(d), result)?
        }
        Recipe::New => {
            let s = descr.ok_or("'malloc' without a type")?;
            let d = t.header.size_descr(s)?;
            t.record(e, TraceOp::New, vec![], Some(d), result)?
        }
        Recipe::NewArray => {
            let s = descr.ok_or("'malloc_varsize' without a type")?;
            let d = t.header.array_descr(s)?;
            t.record(e, TraceOp::NewArray, vec![arg(0)], Some(d), result)?
        }
    })
}

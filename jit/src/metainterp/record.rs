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

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::Arc;

use rpy_ir::lltype::STR;
use rpy_passes::llinterp::{LlError, LlMachine, LlValue};

use super::mirror::{Flavor, Mirror};
use super::residual::{ResidualSite, ResidualTarget};
use crate::blackhole::{internal, switch_key, truthy, Blackhole, Frame};
use crate::codewriter::immutable::ImmutableFields;
use crate::codewriter::jitcode::{CallKind, Callee, Insn, Operand, Reg};
use crate::interp::RunValue;
use crate::trace::{opc, BoxInfo, DescrId, Header, Kind, Op, ResidualCall, Trace, Value, OPS};
use crate::warmstate::GreenKey;

/// What a register holds when a guard fails: a fail arg (by index, and
/// what kind of interpreter value its word is) or a constant.
#[derive(Clone, Debug)]
pub enum Saved {
    Arg(usize, Flavor),
    Const(LlValue),
}

/// One frame as a guard saves it.
#[derive(Clone, Debug)]
pub struct FrameSnapshot {
    pub code: usize,
    /// Where the frame goes on: for the guarding frame, the branch the
    /// guard stands for (run again, now going the other way).
    pub pc: usize,
    pub result: Option<Reg>,
    pub registers: Vec<(Reg, Saved)>,
}

/// The frames a guard saves, outermost first.
pub type ResumeFrames = Vec<FrameSnapshot>;

/// A trace that closed its loop or reached its merge point, with its
/// guards' resume data.
pub struct Recorded {
    pub trace: Trace,
    pub resumes: Vec<ResumeFrames>,
    /// For a bridge: where it ends.
    pub end: Option<MergeTarget>,
}

/// How recording ended.
pub enum Recording {
    Closed(Recorded),
    /// Tracing gave up (why); the frames stand where it stopped, and the
    /// blackhole goes on from there.
    Aborted(String),
    /// Tracing gave up after a residual call raised: the blackhole goes on
    /// by raising the exception (type, value) in the frames, where the
    /// call their top one ran.
    AbortedRaising(String, LlValue, LlValue),
}

impl Recording {
    /// The exception a recording that gave up leaves to raise.
    pub fn raised(&self) -> Option<(LlValue, LlValue)> {
        match self {
            Recording::AbortedRaising(_, etype, evalue) => Some((etype.clone(), evalue.clone())),
            _ => None,
        }
    }
}

/// The original's default `trace_limit`: recorded operations before a
/// trace is given up.
pub const DEFAULT_TRACE_LIMIT: usize = 6000;

struct Tracer<'m> {
    header: Header,
    boxes: Vec<BoxInfo>,
    ops: Vec<Op>,
    resumes: Vec<ResumeFrames>,
    /// Per frame, per bank, per register: what the trace knows of it.
    known: Vec<[Vec<Value>; 3]>,
    mirror: &'m mut Mirror,
    immutable: &'m ImmutableFields,
    /// The objects read through a `f[*]` field (see [`ImmutableFields`]):
    /// their own reads fold.
    deep: HashSet<usize>,
}

fn kind_of(v: &LlValue) -> Kind {
    match v {
        LlValue::Float(_) => Kind::Float,
        LlValue::Ptr(_) => Kind::Ref,
        LlValue::Void => Kind::Void,
        _ => Kind::Int,
    }
}

/// The identity of the object a value points to.
fn object_id(v: &LlValue) -> Option<usize> {
    match v {
        LlValue::Ptr(Some(o)) => Some(std::rc::Rc::as_ptr(o) as *const u8 as usize),
        _ => None,
    }
}

impl Tracer<'_> {
    fn is_deep(&self, v: &LlValue) -> bool {
        object_id(v).is_some_and(|id| self.deep.contains(&id))
    }

    fn mark_deep(&mut self, v: &LlValue) {
        if let Some(id) = object_id(v) {
            self.deep.insert(id);
        }
    }

    /// A new box of `kind`.
    fn new_box(&mut self, kind: Kind) -> Value {
        let n = self.boxes.len() as u64;
        self.boxes.push(BoxInfo::numbered(n, kind));
        Value::Box(self.boxes.len() - 1)
    }

    /// The trace constant of an interpreter value: its word in memory.
    fn constant(&mut self, v: &LlValue) -> Result<Value, String> {
        Ok(match self.mirror.to_run(&self.header, v)? {
            RunValue::Int(n) => Value::Int(n),
            RunValue::Float(x) => Value::float(x),
            RunValue::Ref(0) => Value::NullPtr,
            RunValue::Ref(p) => Value::ConstPtr(p as u64),
        })
    }

    /// Records `name(args)` whose concrete result is `result`; a pure
    /// operation of constants is folded to the result instead.
    fn record(
        &mut self,
        name: &str,
        args: Vec<Value>,
        descr: Option<DescrId>,
        result: &LlValue,
    ) -> Result<Value, String> {
        let opcode = opc(name);
        let info = &OPS[opcode];
        if info.pure && args.iter().all(|a| a.is_const()) {
            return self.constant(result);
        }
        let out = (info.result != Kind::Void).then(|| self.new_box(info.result));
        let mut op = Op::new(opcode, args, out.and_then(Value::as_box));
        op.descr = descr;
        self.ops.push(op);
        Ok(out.unwrap_or(Value::Int(0)))
    }

    /// Records a guard whose failure resumes `frames` with the top one at
    /// `pc`.
    fn guard(
        &mut self,
        name: &str,
        args: Vec<Value>,
        frames: &[Frame],
        pc: usize,
    ) -> Result<(), String> {
        let index = self.resumes.len();
        let mut fail_args = vec![Value::Int(index as i64)];
        let mut slots: HashMap<Value, usize> = HashMap::new();
        let mut snapshot = Vec::with_capacity(frames.len());
        for (depth, (frame, known)) in frames.iter().zip(&self.known).enumerate() {
            let mut registers = Vec::new();
            for bank in 0..3 {
                for (k, v) in frame.banks[bank].iter().enumerate() {
                    let Some(flavor) = Flavor::of_value(v) else {
                        continue;
                    };
                    let reg = Reg {
                        bank: [
                            crate::codewriter::jitcode::Bank::Int,
                            crate::codewriter::jitcode::Bank::Ref,
                            crate::codewriter::jitcode::Bank::Float,
                        ][bank],
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
        let mut op = Op::new(opc(name), args, None);
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
    fn residual_call(
        &mut self,
        sites: &mut Vec<ResidualSite>,
        site: ResidualSite,
        known: Vec<Value>,
        result: &LlValue,
        pure: bool,
        frames: &[Frame],
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
        let suffix = match result_kind {
            Kind::Int => "i",
            Kind::Ref => "r",
            Kind::Float => "f",
            Kind::Void => "n",
        };
        let opname = match pure {
            true => format!("call_pure_{suffix}"),
            false => format!("call_{suffix}"),
        };
        let k = self.record(&opname, args, Some(descr), result)?;
        if can_raise {
            self.guard("guard_no_exception", Vec::new(), frames, at + 1)?;
        }
        Ok(k)
    }

    fn set(&mut self, frames: &mut [Frame], r: Reg, concrete: LlValue, known: Value) {
        let top = frames.len() - 1;
        frames[top].banks[r.bank as usize][r.index as usize] = concrete;
        self.known[top][r.bank as usize][r.index as usize] = known;
    }
}

/// Where recording starts.
pub(crate) enum Start<'a> {
    /// At the portal's merge point of `key`, just run (the portal's frame,
    /// the only one, stands after it): the reds are the inputs, and the
    /// trace is a loop that closes when the key comes back, or that ends
    /// at a merge point whose key has a loop already (`compiled`), as a
    /// bridge does (an inner loop is entered, not unrolled).
    Loop {
        key: &'a GreenKey,
        reds: &'a [Operand],
        compiled: &'a HashSet<GreenKey>,
    },
    /// At the frames a failing guard saved, rebuilt: the guard's fail args
    /// (but the first, the resume index) are the inputs, and the trace is a
    /// bridge that ends at a merge point whose key has a loop (the
    /// original's `reached_loop_header`).
    Bridge {
        saved: &'a ResumeFrames,
        compiled: &'a HashSet<GreenKey>,
    },
}

/// Where a bridge ends: the portal's merge point, its greens and reds.
#[derive(Clone, Debug)]
pub struct MergeTarget {
    pub key: GreenKey,
    /// The portal's jitcode and the merge point's index in it.
    pub code: usize,
    pub pc: usize,
    /// The green registers and their values.
    pub greens: Vec<(Reg, LlValue)>,
    /// The red registers, in the order of the bridge's `finish`.
    pub reds: Vec<(Reg, Flavor)>,
}

/// Records from `start` until the loop closes, the bridge reaches a merge
/// point, or tracing gives up.
#[allow(clippy::too_many_arguments)]
pub(crate) fn record(
    blackhole: &Blackhole<'_>,
    machine: &LlMachine<'_>,
    frames: &mut Vec<Frame>,
    start: Start<'_>,
    mirror: &mut Mirror,
    sites: &mut Vec<ResidualSite>,
    header: Header,
    trace_limit: usize,
    out: &mut dyn Write,
) -> Result<Recording, LlError> {
    let codes = blackhole.codes;
    let mut t = Tracer {
        header,
        boxes: Vec::new(),
        ops: Vec::new(),
        resumes: Vec::new(),
        known: Vec::new(),
        mirror,
        immutable: &codes.immutable,
        deep: HashSet::new(),
    };
    // Every register starts as what it holds, but the inputs.
    for frame in frames.iter() {
        let mut known = [Vec::new(), Vec::new(), Vec::new()];
        for (bank, values) in frame.banks.iter().enumerate() {
            for v in values {
                known[bank].push(t.constant(v).map_err(|e| internal(e, "tracer"))?);
            }
        }
        t.known.push(known);
    }
    let mut inputs = Vec::new();
    match &start {
        Start::Loop { reds, .. } => {
            for r in reds.iter() {
                if let Operand::Reg(r) = r {
                    let v = &frames[0].banks[r.bank as usize][r.index as usize];
                    let b = t.new_box(kind_of(v));
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
    let abort = |frames: &mut Vec<Frame>, at: usize, why: String| {
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
        let depth = frames.len() - 1;
        let frame = &mut frames[depth];
        let jc = &codes.codes[frame.code];
        let bound = blackhole.bound[frame.code]
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
        let fail = |m: String| internal(m, &jc.name);
        // The value and the trace's knowledge of an operand.
        let get = |frames: &[Frame], known: &[[Vec<Value>; 3]], o: &Operand| -> LlValue {
            let _ = known;
            match o {
                Operand::Reg(r) => frames[depth].banks[r.bank as usize][r.index as usize].clone(),
                Operand::Const(i) => bound.constants[*i as usize].clone(),
            }
        };
        let know = |t: &mut Tracer, frames: &[Frame], o: &Operand| -> Result<Value, LlError> {
            match o {
                Operand::Reg(r) => Ok(t.known[depth][r.bank as usize][r.index as usize]),
                Operand::Const(_) => t
                    .constant(&get(frames, &t.known, o))
                    .map_err(|e| internal(e, &jc.name)),
            }
        };
        match insn {
            Insn::Op {
                opname,
                args,
                descr,
                result,
                ..
            } if opname == "jit_promote" => {
                // The value becomes a constant of the trace, after a guard
                // that it is this one (a float is left as it is: traces
                // guard words).
                let (v, k) = (
                    get(frames, &t.known, &args[0]),
                    know(&mut t, frames, &args[0])?,
                );
                let k = match (&v, k.is_const()) {
                    (LlValue::Float(_), _) | (_, true) => k,
                    _ => {
                        let c = t.constant(&v).map_err(fail)?;
                        t.guard("guard_value", vec![k, c], frames, at)
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
                let Some(recipe) = recipe(opname) else {
                    return abort(
                        frames,
                        at,
                        format!("the tracer does not know the operation '{opname}'"),
                    );
                };
                let op = bound.ops[at]
                    .as_ref()
                    .ok_or_else(|| fail(format!("operation {at} of {} is not bound", jc.name)))?;
                let values: Vec<LlValue> = args.iter().map(|a| get(frames, &t.known, a)).collect();
                let registers: Vec<LlValue> = args
                    .iter()
                    .filter(|a| matches!(a, Operand::Reg(_)))
                    .map(|a| get(frames, &t.known, a))
                    .collect();
                let v = machine.run(op, &registers, out)?;
                let mut known = Vec::with_capacity(args.len());
                for a in args {
                    known.push(know(&mut t, frames, a)?);
                }
                let mut recorded =
                    record_op(&mut t, recipe, opname, descr.as_deref(), &values, known, &v)
                        .map_err(fail)?;
                // An object's class is promoted where it is read, as the
                // original's codewriter makes `getfield(x, typeptr)` a
                // `guard_class`: what the program then reads of the class
                // (isinstance ranges, method slots) is constant.
                let typeptr = format!(".{}", rpy_ir::lltype::TYPEPTR);
                if opname == "getfield"
                    && descr.as_deref().is_some_and(|d| d.ends_with(&typeptr))
                    && !recorded.is_const()
                {
                    let c = t.constant(&v).map_err(fail)?;
                    t.guard("guard_value", vec![recorded, c], frames, at)
                        .map_err(fail)?;
                    recorded = c;
                }
                if let Some(r) = result {
                    t.set(frames, *r, v, recorded);
                }
            }
            Insn::Move { from, to } => {
                let v = get(frames, &t.known, from);
                let k = know(&mut t, frames, from)?;
                t.set(frames, *to, v, k);
            }
            Insn::Goto(l) => frames[depth].pc = *l as usize,
            Insn::GotoIfNot { cond, target } => {
                let taken = truthy(&get(frames, &t.known, cond)).map_err(fail)?;
                let k = know(&mut t, frames, cond)?;
                if !k.is_const() {
                    let name = if taken { "guard_true" } else { "guard_false" };
                    t.guard(name, vec![k], frames, at).map_err(fail)?;
                }
                if !taken {
                    frames[depth].pc = *target as usize;
                }
            }
            Insn::Switch { on, cases, default } => {
                let key = switch_key(&get(frames, &t.known, on)).map_err(fail)?;
                let k = know(&mut t, frames, on)?;
                if !k.is_const() {
                    t.guard("guard_value", vec![k, Value::Int(key)], frames, at)
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
                    let v = get(frames, &t.known, g);
                    let k = know(&mut t, frames, g)?;
                    if !k.is_const() {
                        let c = t.constant(&v).map_err(fail)?;
                        t.guard("guard_value", vec![k, c], frames, at)
                            .map_err(fail)?;
                        if let Operand::Reg(r) = g {
                            t.known[0][r.bank as usize][r.index as usize] = c;
                        }
                    }
                    values.push(v);
                }
                let key = GreenKey::new(driver, &values);
                let mut red_values = Vec::with_capacity(reds.len());
                for r in reds {
                    if matches!(r, Operand::Reg(_)) {
                        red_values.push(know(&mut t, frames, r)?);
                    }
                }
                let end = match &start {
                    Start::Loop { key: start, .. } if key == **start => {
                        t.ops.push(Op::new(opc("jump"), red_values, None));
                        None
                    }
                    Start::Loop { compiled, .. } | Start::Bridge { compiled, .. }
                        if !compiled.contains(&key) =>
                    {
                        continue
                    }
                    Start::Loop { .. } | Start::Bridge { .. } => {
                        t.ops.push(Op::new(opc("finish"), red_values, None));
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
                            .map(|r| {
                                (
                                    r,
                                    frames[0].banks[r.bank as usize][r.index as usize].clone(),
                                )
                            })
                            .collect();
                        let reds = registers(reds)
                            .into_iter()
                            .filter_map(|r| {
                                let v = &frames[0].banks[r.bank as usize][r.index as usize];
                                Flavor::of_value(v).map(|f| (r, f))
                            })
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
                return Ok(Recording::Closed(Recorded {
                    trace,
                    resumes: t.resumes,
                    end,
                }));
            }
            Insn::Call {
                callee,
                args,
                result,
                descr,
            } => {
                let graph = match callee {
                    Callee::Runtime { name, .. } => {
                        let op = bound.ops[at]
                            .as_ref()
                            .ok_or_else(|| fail(format!("runtime call {at} is not bound")))?;
                        // As the blackhole runs it: the constants are the
                        // operation's own, the registers are the arguments.
                        let registers: Vec<&Operand> = args
                            .iter()
                            .filter(|a| matches!(a, Operand::Reg(_)))
                            .collect();
                        let values: Vec<LlValue> =
                            registers.iter().map(|a| get(frames, &t.known, a)).collect();
                        let mut known = Vec::with_capacity(values.len());
                        for a in &registers {
                            known.push(know(&mut t, frames, a)?);
                        }
                        let v = machine.run(op, &values, out)?;
                        let target = ResidualTarget::Runtime {
                            code: frames[depth].code,
                            pc: at,
                        };
                        let site = ResidualSite::new(
                            target,
                            name.clone(),
                            values.iter().map(Flavor::of_value).collect(),
                            Flavor::of_value(&v),
                            descr.effects.clone(),
                        );
                        let k = t
                            .residual_call(sites, site, known, &v, false, frames, at)
                            .map_err(fail)?;
                        if let Some(r) = result {
                            t.set(frames, *r, v, k);
                        }
                        continue;
                    }
                    Callee::Graph { graph, .. } => *graph,
                    Callee::Pointer { pointer, .. } => {
                        let LlValue::Func(Some(g)) = get(frames, &t.known, pointer) else {
                            return Err(fail("a call through a null function pointer".into()));
                        };
                        let k = know(&mut t, frames, pointer)?;
                        if !k.is_const() {
                            t.guard("guard_value", vec![k, Value::Int(g as i64 + 1)], frames, at)
                                .map_err(fail)?;
                        }
                        g
                    }
                };
                let values: Vec<LlValue> = args.iter().map(|a| get(frames, &t.known, a)).collect();
                let mut known = Vec::with_capacity(args.len());
                for a in args {
                    known.push(know(&mut t, frames, a)?);
                }
                let code = (descr.kind == CallKind::Regular)
                    .then(|| codes.by_graph(graph))
                    .flatten();
                if code.is_some_and(|c| codes.portals.contains(&codes.codes[c].name)) {
                    // A recursive call of the interpreter runs on its own:
                    // its loops are entered from its merge points.
                    return abort(frames, at, "a recursive call of the portal".into());
                }
                match code {
                    Some(code) => {
                        let callee = blackhole.new_frame(code, values, *result);
                        let mut k = callee
                            .banks
                            .clone()
                            .map(|b| b.into_iter().map(|_| Value::Int(0)).collect::<Vec<_>>());
                        for (p, v) in codes.codes[code].params.iter().zip(known) {
                            if let Some(r) = p {
                                k[r.bank as usize][r.index as usize] = v;
                            }
                        }
                        frames.push(callee);
                        t.known.push(k);
                    }
                    None if descr.kind == CallKind::Pure && known.iter().all(|k| k.is_const()) => {
                        // An elidable call of constants: its result is one.
                        match machine.call(graph, values, out)? {
                            rpy_passes::llinterp::CallOutcome::Returned(v) => {
                                let c = t.constant(&v).map_err(fail)?;
                                if let Some(r) = result {
                                    t.set(frames, *r, v, c);
                                }
                            }
                            rpy_passes::llinterp::CallOutcome::Raised { .. } => {
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
                                machine.graph_name(graph)
                            ),
                        )
                    }
                    None => {
                        let mut site = ResidualSite::new(
                            ResidualTarget::Graph(graph),
                            machine.graph_name(graph).to_string(),
                            values.iter().map(Flavor::of_value).collect(),
                            None,
                            descr.effects.clone(),
                        );
                        match machine.call(graph, values, out)? {
                            rpy_passes::llinterp::CallOutcome::Returned(v) => {
                                site.result = Flavor::of_value(&v);
                                let pure = descr.kind == CallKind::Pure;
                                let k = t
                                    .residual_call(sites, site, known, &v, pure, frames, at)
                                    .map_err(fail)?;
                                if let Some(r) = result {
                                    t.set(frames, *r, v, k);
                                }
                            }
                            rpy_passes::llinterp::CallOutcome::Raised { etype, evalue } => {
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
                let class = get(frames, &t.known, etype);
                let known_class = know(&mut t, frames, etype)?;
                if !known_class.is_const() {
                    return abort(frames, at, "an exception of a class not known".into());
                }
                let value = get(frames, &t.known, evalue);
                let known_value = know(&mut t, frames, evalue)?;
                let id = machine.class_id(&class)?;
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
                    frames[d].banks[r.bank as usize][r.index as usize] = class;
                    t.known[d][r.bank as usize][r.index as usize] = known_class;
                }
                if let Some(r) = h.evalue {
                    frames[d].banks[r.bank as usize][r.index as usize] = value;
                    t.known[d][r.bank as usize][r.index as usize] = known_value;
                }
                frames[d].pc = h.target as usize;
            }
            Insn::Return(v) => {
                if depth == 0 {
                    return abort(frames, at, "the portal returns".into());
                }
                let value = v
                    .as_ref()
                    .map_or(LlValue::Void, |v| get(frames, &t.known, v));
                let k = match v {
                    Some(v) => know(&mut t, frames, v)?,
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

/// How the tracer records a low-level operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Recipe {
    /// Its result is its argument (casts between words, pointer casts).
    Same,
    /// A trace operation of the same name and meaning (`int_add`...).
    Pure,
    /// `int_and(x, 0xff)`.
    ToChar,
    /// `int_is_zero`.
    Not,
    /// A char comparison: the int comparison of the same suffix.
    CharCompare,
    /// `low <= x < high`: two comparisons and their `int_and`.
    Between,
    /// A comparison with null: `ptr_eq` or `ptr_ne`.
    NullCompare(&'static str),
    GetField,
    SetField,
    GetItem,
    SetItem,
    ArrayLength,
    New,
    NewArray,
}

/// The recipe for `opname`; `None` when the tracer does not know it.
fn recipe(opname: &str) -> Option<Recipe> {
    Some(match opname {
        _ if crate::codewriter::jitcode::keeps_the_word(opname) => Recipe::Same,
        "cast_int_to_char" => Recipe::ToChar,
        "bool_not" => Recipe::Not,
        "char_eq" | "char_ne" | "char_lt" | "char_le" | "char_gt" | "char_ge" | "unichar_eq"
        | "unichar_ne" => Recipe::CharCompare,
        "int_between" => Recipe::Between,
        "ptr_iszero" => Recipe::NullCompare("ptr_eq"),
        "ptr_nonzero" => Recipe::NullCompare("ptr_ne"),
        "getfield" => Recipe::GetField,
        "setfield" => Recipe::SetField,
        "getarrayitem" => Recipe::GetItem,
        "setarrayitem" => Recipe::SetItem,
        "getarraysize" => Recipe::ArrayLength,
        "malloc" => Recipe::New,
        "malloc_varsize" => Recipe::NewArray,
        _ if crate::trace::opcode(opname).is_some_and(|o| {
            let info = &OPS[o];
            info.pure && info.descr == crate::trace::DescrNeed::None && !info.guard
        }) =>
        {
            Recipe::Pure
        }
        _ => return None,
    })
}

/// Whether the items of the array `v` never change once anything but its
/// builder sees it: a string's characters. A read of a constant one at a
/// constant index is the value read (the original declares these arrays
/// immutable, so its optimizer folds the same reads).
fn immutable_items(v: &LlValue) -> bool {
    matches!(v, LlValue::Ptr(Some(o)) if o.borrow().type_name.as_ref() == STR)
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
fn record_op(
    t: &mut Tracer,
    recipe: Recipe,
    opname: &str,
    descr: Option<&str>,
    values: &[LlValue],
    args: Vec<Value>,
    result: &LlValue,
) -> Result<Value, String> {
    let arg = |i: usize| args[i];
    // The array type of an object operand, from the object itself.
    let array_of = |t: &mut Tracer, i: usize| -> Result<DescrId, String> {
        match &values[i] {
            LlValue::Ptr(Some(o)) => {
                let name = o.borrow().type_name.to_string();
                t.header.array_descr(&name)
            }
            _ => Err(format!("'{opname}' of a null pointer")),
        }
    };
    let field = |t: &mut Tracer| -> Result<(DescrId, Kind), String> {
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
    let suffixed = |base: &str, k: Kind| format!("{base}_{}", k.prefix()).replace("_p", "_r");
    Ok(match recipe {
        // A constant operand is the result's own constant (a char constant
        // of `cast_char_to_int` may be bound as a one-character string).
        Recipe::Same if arg(0).is_const() => t.constant(result)?,
        Recipe::Same => arg(0),
        Recipe::Pure => t.record(opname, args, None, result)?,
        Recipe::ToChar => t.record("int_and", vec![arg(0), Value::Int(0xff)], None, result)?,
        Recipe::Not => t.record("int_is_zero", args, None, result)?,
        Recipe::CharCompare => {
            let name = format!("int_{}", opname.rsplit('_').next().unwrap_or("eq"));
            t.record(&name, args, None, result)?
        }
        Recipe::Between => {
            let low = t.record("int_le", vec![arg(0), arg(1)], None, &LlValue::Bool(true))?;
            let high = t.record("int_lt", vec![arg(1), arg(2)], None, &LlValue::Bool(true))?;
            if low.is_const() && high.is_const() {
                t.constant(result)?
            } else {
                t.record("int_and", vec![low, high], None, result)?
            }
        }
        Recipe::NullCompare(name) => t.record(name, vec![arg(0), Value::NullPtr], None, result)?,
        Recipe::GetField => {
            let (d, k) = field(t)?;
            if k == Kind::Void {
                Value::Int(0)
            } else if arg(0).is_const()
                && (descr.is_some_and(|d| immutable_field(d) || t.immutable.fields.contains(d))
                    || t.is_deep(&values[0]))
            {
                if descr.is_some_and(|d| t.immutable.deep.contains(d)) || t.is_deep(&values[0]) {
                    t.mark_deep(result);
                }
                t.constant(result)?
            } else {
                t.record(&suffixed("getfield_gc", k), vec![arg(0)], Some(d), result)?
            }
        }
        Recipe::SetField => {
            let (d, k) = field(t)?;
            if k != Kind::Void {
                t.record("setfield_gc", vec![arg(0), arg(1)], Some(d), result)?;
            }
            Value::Int(0)
        }
        Recipe::GetItem
            if arg(0).is_const()
                && arg(1).is_const()
                && (immutable_items(&values[0]) || t.is_deep(&values[0])) =>
        {
            if t.is_deep(&values[0]) {
                t.mark_deep(result);
            }
            t.constant(result)?
        }
        Recipe::GetItem => {
            let d = array_of(t, 0)?;
            let k = kind_of(result);
            t.record(
                &suffixed("getarrayitem_gc", k),
                vec![arg(0), arg(1)],
                Some(d),
                result,
            )?
        }
        Recipe::SetItem => {
            let d = array_of(t, 0)?;
            t.record("setarrayitem_gc", args, Some(d), result)?;
            Value::Int(0)
        }
        // A GC array never changes its length.
        Recipe::ArrayLength if arg(0).is_const() => t.constant(result)?,
        Recipe::ArrayLength => {
            let d = array_of(t, 0)?;
            t.record("arraylen_gc", args, Some(d), result)?
        }
        Recipe::New => {
            let s = descr.ok_or("'malloc' without a type")?;
            let d = t.header.size_descr(s)?;
            t.record("new", vec![], Some(d), result)?
        }
        Recipe::NewArray => {
            let s = descr.ok_or("'malloc_varsize' without a type")?;
            let d = t.header.array_descr(s)?;
            t.record("new_array", vec![arg(0)], Some(d), result)?
        }
    })
}

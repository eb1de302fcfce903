//! `unroll`: loop peeling. A loop trace (`[inputs] ... label(H) body
//! jump(J)`, or `[inputs] body jump(J)` back to the start) is optimized as
//! two copies of its body: the first iteration (the *preamble*, after the
//! operations before the label) and then, after a new `label`, the body
//! again, optimized with everything the preamble proved.
//!
//! Each header box `H[k]` becomes, in the peeled body, what the preamble
//! left in it (`J[k]` at the end of the first iteration), under one of
//! these assumptions:
//!
//! - **the same constant** every iteration: not passed at all;
//! - **the preamble's own value** every iteration (a loop invariant): the
//!   body refers to the preamble's box, so every fact about it (bounds,
//!   pure results, remembered memory, guards already checked) holds in the
//!   body and the operations that computed them are not repeated;
//! - **a virtual object** of the same shape every iteration: not allocated;
//!   the label takes its fields as separate values, and the body starts
//!   from a virtual again (the allocation and stores are sent through the
//!   chain after the label, where `virtualize` absorbs them);
//! - **a fresh value** each iteration, a new label box, with the integer
//!   bound the preamble proved (or none).
//!
//! Memory contents the heap cache knows at the end of the preamble for
//! loop-invariant objects stay known in the body: the same value every
//! iteration, or, when the body changes it, a value of its own each
//! iteration, which the label takes and the jump passes (what the heap
//! cache knows the memory holds at the end of the body), so the loop does
//! not read it back.
//!
//! The assumptions are optimistic: after optimizing the body, the values the
//! jump passes must satisfy them again (the same constant, the same box,
//! a virtual of the same shape, a bound inside the assumed one, the memory
//! still holding the same value, or a known one when carried); then, by
//! induction, they hold at every iteration. When one does not, it is
//! weakened (constant or invariant -> fresh with its bound -> fresh without
//! bound; virtual -> fresh; a memory fact the same -> carried by the label
//! -> dropped) and the whole trace is optimized again. Every round weakens
//! something, so this ends.
//!
//! The preamble falls through into the label, so the label's fresh boxes
//! get the preamble's values by `same_as` copies just before it; a copy
//! whose source the loop does not otherwise use is renamed away (the label
//! then names the preamble's box, as in PyPy's traces). Values of the
//! preamble the body uses are added to the label and passed back unchanged
//! by the jump, so the label lists everything the loop reads.
//!
//! A trace that does not end in a jump is optimized as without `unroll`.

use super::{FieldSlot, IntBound, ReadPlace, RememberedRead, Run, VirtualShape, WordMap, WordSet};
use crate::trace::{BoxId, DescrData, Kind, Op, Opcode, Trace, Value};

/// How often the trace is optimized again with weaker assumptions (each
/// round weakens at least one) before a last round that assumes nothing:
/// every value fresh, no memory known, which always holds.
const MAX_ROUNDS: usize = 48;

/// A loop trace, taken apart.
struct Loop<'t> {
    /// Operations before the loop's label (none when the jump goes to the
    /// start).
    pre: &'t [Op],
    /// The boxes an iteration starts from: the label's (or the inputs), then
    /// the boxes from before the loop the body reads (they never change).
    header: Vec<BoxId>,
    body: &'t [Op],
    /// What the jump passes for each header box.
    next: Vec<Value>,
}

fn split_loop(trace: &Trace) -> Option<Loop<'_>> {
    let (jump, rest) = trace.ops.split_last()?;
    if jump.opcode != Opcode::Jump {
        return None;
    }
    let (pre, body, mut header) = match rest.iter().rposition(|op| op.opcode == Opcode::Label) {
        Some(i) => {
            let header: Vec<BoxId> = rest[i]
                .args
                .iter()
                .map(|a| a.as_box())
                .collect::<Option<_>>()?;
            (&rest[..i], &rest[i + 1..], header)
        }
        None => (&rest[..0], rest, trace.inputs.clone()),
    };
    if body.iter().any(|op| op.opcode == Opcode::Finish) {
        return None;
    }
    let distinct: WordSet<BoxId> = header.iter().copied().collect();
    if distinct.len() != header.len() || jump.args.len() != header.len() {
        return None;
    }
    let kinds_match = header
        .iter()
        .zip(&jump.args)
        .all(|(h, j)| trace.boxes[*h].kind == trace.kind(*j));
    if !kinds_match {
        return None;
    }
    let mut next = jump.args.clone();
    let mut known: WordSet<BoxId> = distinct;
    known.extend(body.iter().filter_map(|op| op.result));
    for op in body.iter().chain(std::iter::once(jump)) {
        for v in op.args.iter().chain(op.fail_args.iter().flatten()) {
            if let Value::Box(b) = v {
                if known.insert(*b) {
                    header.push(*b);
                    next.push(*v);
                }
            }
        }
    }
    Some(Loop {
        pre,
        header,
        body,
        next,
    })
}

/// What a header box (or a field of a virtual one) is assumed to be at the
/// start of every iteration of the peeled body.
#[derive(Clone, Debug)]
enum Assume {
    Const(Value),
    /// The preamble's value itself.
    Same(Value),
    /// A new label box, within the bound when one is given.
    Fresh(Kind, Option<IntBound>),
    /// A virtual object allocated like `alloc`, with these fields; `id`
    /// numbers the virtual objects of one set of assumptions, in the order
    /// a depth-first walk over the label's values meets them.
    Virtual {
        id: usize,
        alloc: Op,
        fields: Vec<(FieldSlot, Assume)>,
    },
    /// The virtual object `id` again (objects that point to each other, or
    /// one reached twice): the same object, not a copy.
    Again(usize),
}

/// A place in the assumptions: the header index, then field indices.
type Path = Vec<usize>;

/// How far each assumption has been weakened (0: the most optimistic).
type Levels = WordMap<Path, u8>;

/// How far each memory fact of the preamble has been weakened: 0, the same
/// value every iteration; 1, a value of its own each iteration, passed by
/// the jump to a label box (what the body stored there last); 2, not
/// known in the body.
type ReadLevels = WordMap<(Value, ReadPlace), u8>;

fn virtual_of(run: &Run, v: Value) -> Option<(BoxId, VirtualShape)> {
    let b = run.sh.resolve(v).as_box()?;
    run.chain
        .iter()
        .find_map(|o| o.virtual_shape(b))
        .map(|s| (b, s))
}

/// The allocation with its length argument (if any) resolved, to compare.
fn alloc_key(run: &Run, alloc: &Op) -> Op {
    let mut a = alloc.clone();
    for v in a.args.iter_mut() {
        *v = run.sh.resolve(*v);
    }
    a.result = None;
    a
}

/// Whether a store into this slot truncates (one-byte fields and items):
/// `virtualize` keeps only constants there.
fn is_narrow(run: &Run, alloc: &Op, slot: FieldSlot) -> bool {
    let descrs = &run.sh.trace.header.descrs;
    match slot {
        FieldSlot::Field(d) => match &descrs[d].data {
            DescrData::Field { ty, .. } => ty.size_align().0 < 8,
            _ => true,
        },
        FieldSlot::Item(_) => match alloc.descr.map(|d| &descrs[d].data) {
            Some(DescrData::Array { item_size, .. }) => *item_size < 8,
            _ => true,
        },
    }
}

struct Planner<'a> {
    run: &'a Run,
    levels: &'a Levels,
    /// The virtual objects planned so far, by box: their ids.
    planned: std::cell::RefCell<WordMap<BoxId, usize>>,
}

impl Planner<'_> {
    /// The assumption for value `v` at `path`, as optimistic as its level
    /// allows.
    fn plan(&self, path: &mut Path, v: Value) -> Assume {
        let sh = &self.run.sh;
        let v = sh.resolve(v);
        let kind = sh.kind(v);
        let level = self.levels.get(path).copied().unwrap_or(0);
        if level >= 2 {
            return Assume::Fresh(kind, None);
        }
        if v.is_const() {
            return match level {
                0 => Assume::Const(v),
                _ => Assume::Fresh(kind, None),
            };
        }
        if let Some((b, shape)) = virtual_of(self.run, v) {
            if level == 0 {
                if let Some(id) = self.planned.borrow().get(&b) {
                    return Assume::Again(*id);
                }
                if let Some(a) = self.plan_virtual(path, b, shape) {
                    return a;
                }
            }
            return Assume::Fresh(kind, None);
        }
        match (level, kind) {
            (0, _) => Assume::Same(v),
            (_, Kind::Int) => Assume::Fresh(kind, Some(sh.bound(v))),
            _ => Assume::Fresh(kind, None),
        }
    }

    fn plan_virtual(&self, path: &mut Path, b: BoxId, shape: VirtualShape) -> Option<Assume> {
        let alloc = alloc_key(self.run, &shape.alloc);
        // numbered before its fields, which may lead back to it
        let id = {
            let mut planned = self.planned.borrow_mut();
            let id = planned.len();
            planned.insert(b, id);
            id
        };
        let mut fields = Vec::new();
        for (i, (slot, val)) in shape.fields.into_iter().enumerate() {
            path.push(i);
            let a = self.plan(path, val);
            path.pop();
            if is_narrow(self.run, &alloc, slot) && !matches!(a, Assume::Const(_)) {
                // not a virtual after all: neither are those its fields
                // planned (numbered after it)
                self.planned.borrow_mut().retain(|_, k| *k < id);
                return None;
            }
            fields.push((slot, a));
        }
        Some(Assume::Virtual { id, alloc, fields })
    }
}

/// Checks that `v`, passed by the jump, satisfies `a`; records the paths
/// of the assumptions it breaks.
fn verify(
    run: &Run,
    seen: &mut WordMap<usize, BoxId>,
    a: &Assume,
    v: Value,
    path: &mut Path,
    broken: &mut Vec<Path>,
) {
    let v = run.sh.resolve(v);
    let holds = match a {
        Assume::Const(c) => v == *c,
        Assume::Same(s) => v == run.sh.resolve(*s),
        Assume::Fresh(_, None) => true,
        Assume::Fresh(_, Some(b)) => {
            let now = run.sh.bound(v);
            now.intersect(b) == Some(now)
        }
        Assume::Virtual { id, alloc, fields } => match virtual_of(run, v) {
            Some((b, shape))
                if !seen.values().any(|s| *s == b)
                    && alloc_key(run, &shape.alloc) == *alloc
                    && shape.fields.len() == fields.len()
                    && shape.fields.iter().zip(fields).all(|(s, f)| s.0 == f.0) =>
            {
                seen.insert(*id, b);
                for (i, ((_, fa), (_, fv))) in fields.iter().zip(&shape.fields).enumerate() {
                    path.push(i);
                    verify(run, seen, fa, *fv, path, broken);
                    path.pop();
                }
                true
            }
            _ => false,
        },
        // the same object the walk met as `id` (which is virtual)
        Assume::Again(id) => v.as_box().is_some_and(|b| seen.get(id) == Some(&b)),
    };
    if !holds {
        broken.push(path.clone());
    }
}

/// The values the label takes for assumption `a` of value `v`: fresh ones
/// as they are, virtual objects field by field.
fn flatten(run: &Run, a: &Assume, v: Value, out: &mut Vec<Value>) {
    match a {
        Assume::Const(_) | Assume::Same(_) | Assume::Again(_) => {}
        Assume::Fresh(..) => out.push(run.sh.resolve(v)),
        Assume::Virtual { fields, .. } => {
            if let Some((_, shape)) = virtual_of(run, v) {
                for ((_, fa), (_, fv)) in fields.iter().zip(&shape.fields) {
                    flatten(run, fa, *fv, out);
                }
            }
        }
    }
}

/// The value a header box stands for in the peeled body under `a`: new
/// label boxes go to `label`, the operations that rebuild a virtual object
/// to `rebuild`.
fn enter(
    run: &mut Run,
    a: &Assume,
    objects: &mut WordMap<usize, BoxId>,
    label: &mut Vec<Value>,
    rebuild: &mut Vec<Op>,
) -> Value {
    match a {
        Assume::Again(id) => objects.get(id).map_or(Value::NullPtr, |b| Value::Box(*b)),
        Assume::Const(c) => *c,
        Assume::Same(v) => *v,
        Assume::Fresh(kind, bound) => {
            let b = Value::Box(run.sh.new_box(*kind));
            if let Some(bound) = bound {
                run.sh.narrow(b, *bound);
            }
            label.push(b);
            b
        }
        Assume::Virtual { id, alloc, fields } => {
            // allocated before its fields are entered: they may lead back
            let obj = run.sh.new_box(Kind::Ref);
            objects.insert(*id, obj);
            rebuild.push(Op {
                result: Some(obj),
                ..alloc.clone()
            });
            let values: Vec<Value> = fields
                .iter()
                .map(|(_, fa)| enter(run, fa, objects, label, rebuild))
                .collect();
            for ((slot, _), val) in fields.iter().zip(values) {
                let store = match slot {
                    FieldSlot::Field(d) => Op {
                        descr: Some(*d),
                        ..Op::new(Opcode::SetfieldGc, vec![Value::Box(obj), val], None)
                    },
                    FieldSlot::Item(i) => Op {
                        descr: alloc.descr,
                        ..Op::new(
                            super::virtualize::item_store(alloc),
                            vec![Value::Box(obj), Value::Int(*i as i64), val],
                            None,
                        )
                    },
                };
                rebuild.push(store);
            }
            Value::Box(obj)
        }
    }
}

/// Sends `jump(values)` through the chain (so that `virtualize` forces the
/// virtual objects among them) and takes it back from the output: the
/// values as they are now.
fn through_chain(run: &mut Run, values: Vec<Value>) -> Result<Vec<Value>, String> {
    run.feed(Op::new(Opcode::Jump, values, None))?;
    match run.sh.trace.ops.pop() {
        Some(op) if op.opcode == Opcode::Jump => Ok(op.args),
        _ => Err("internal error: an optimization dropped the loop's jump".into()),
    }
}

/// The memory facts kept at the label: those about constants and
/// loop-invariant values (and what they lead to), not weakened before.
fn kept_reads(run: &Run, plans: &[Assume], read_levels: &ReadLevels) -> Vec<RememberedRead> {
    fn same_values(a: &Assume, out: &mut WordSet<Value>) {
        match a {
            Assume::Same(v) => {
                out.insert(*v);
            }
            Assume::Virtual { fields, .. } => fields.iter().for_each(|(_, f)| same_values(f, out)),
            _ => {}
        }
    }
    let sh = &run.sh;
    let mut stable = WordSet::default();
    plans.iter().for_each(|a| same_values(a, &mut stable));
    let reads: Vec<RememberedRead> = run
        .chain
        .iter()
        .flat_map(|o| o.remembered_reads())
        .map(|r| RememberedRead {
            object: sh.resolve(r.object),
            value: sh.resolve(r.value),
            ..r
        })
        .filter(|r| read_levels.get(&(r.object, r.place)).copied().unwrap_or(0) < 2)
        .collect();
    let is_stable = |stable: &WordSet<Value>, v: Value| v.is_const() || stable.contains(&v);
    loop {
        let before = stable.len();
        for r in &reads {
            if is_stable(&stable, r.object) {
                stable.insert(r.value);
            }
        }
        if stable.len() == before {
            break;
        }
    }
    reads
        .into_iter()
        .filter(|r| is_stable(&stable, r.object))
        .collect()
}

enum Peeled {
    Done(Trace),
    /// Some assumptions do not hold at the jump.
    Retry {
        broken: Vec<Path>,
        reads: Vec<(Value, ReadPlace)>,
    },
}

/// Whether `unroll` peels `trace`: a trace ending in a jump whose label (or
/// inputs) are distinct boxes matching the jump's values, with no `finish`
/// in the loop. (A peeled loop runs its first iteration before its label.)
pub fn peels(trace: &Trace) -> bool {
    split_loop(trace).is_some()
}

/// Optimizes a loop trace peeled once; `None` when `trace` is not a loop
/// this can peel.
pub(super) fn optimize_loop(trace: &Trace, chain: &[&str]) -> Result<Option<Trace>, String> {
    let Some(lp) = split_loop(trace) else {
        return Ok(None);
    };
    let mut levels = carried_levels(&lp);
    let mut read_levels = ReadLevels::default();
    // the preamble is the same in every round. Most loops need one round,
    // which takes the optimized preamble itself; when it fails, the
    // preamble is optimized again and each further round continues from
    // a copy (copying cost a tenth of the time of a one-round loop)
    let mut start: Option<Run> = None;
    for round in 0..MAX_ROUNDS {
        let run = match &start {
            None if round == 0 => optimize_preamble(trace, &lp, chain)?,
            None => start.insert(optimize_preamble(trace, &lp, chain)?).fork(),
            Some(s) => s.fork(),
        };
        match peel(trace, &lp, run, &levels, &read_levels, false)? {
            Peeled::Done(t) => return Ok(Some(t)),
            Peeled::Retry { broken, reads } => {
                for p in broken {
                    let l = levels.entry(p).or_insert(0);
                    *l = (*l + 1).min(2);
                }
                for r in reads {
                    let l = read_levels.entry(r).or_insert(0);
                    *l = (*l + 1).min(2);
                }
            }
        }
    }
    // assume nothing: every value fresh, no memory known (always holds)
    let start = match start {
        Some(s) => s,
        None => optimize_preamble(trace, &lp, chain)?,
    };
    match peel(trace, &lp, start, &levels, &read_levels, true)? {
        Peeled::Done(t) => Ok(Some(t)),
        Peeled::Retry { .. } => Err("internal error: peeling assumed nothing and failed".into()),
    }
}

/// A run of `chain` over the operations before the loop and its first
/// iteration: where every round of peeling starts.
fn optimize_preamble(trace: &Trace, lp: &Loop, chain: &[&str]) -> Result<Run, String> {
    let mut run = Run::new(trace, chain)?;
    for op in lp.pre.iter().chain(lp.body) {
        run.feed(op.clone())?;
    }
    Ok(run)
}

/// The starting levels: a header box whose next value is a number the body
/// computes from that box itself (a counter, an accumulator) starts as a
/// fresh value with its bound. The most optimistic assumption, the
/// preamble's own value, would hold only if the computation folded back to
/// its input; trying it first cost a whole extra round on nearly every
/// loop. Object values keep level 0, so that they may stay virtual.
fn carried_levels(lp: &Loop) -> Levels {
    let mut def_at: WordMap<BoxId, usize> = WordMap::default();
    for (i, op) in lp.body.iter().enumerate() {
        if let Some(r) = op.result {
            def_at.insert(r, i);
        }
    }
    let mut levels = Levels::default();
    let mut seen = vec![false; lp.body.len()];
    for (k, (h, next)) in lp.header.iter().zip(&lp.next).enumerate() {
        let Value::Box(j) = *next else { continue };
        let Some(&at) = def_at.get(&j) else { continue };
        if j == *h || !lp.body[at].info().pure {
            continue;
        }
        seen.iter_mut().for_each(|s| *s = false);
        let mut stack = vec![at];
        let mut reads_itself = false;
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            for a in &lp.body[i].args {
                match a {
                    Value::Box(b) if b == h => reads_itself = true,
                    Value::Box(b) => stack.extend(def_at.get(b)),
                    _ => {}
                }
            }
        }
        if reads_itself {
            levels.insert(vec![k], 1);
        }
    }
    levels
}

/// One round, from `run` at the end of the preamble: the label under the
/// assumptions `levels` allow, the peeled body, and the check at its jump.
fn peel(
    trace: &Trace,
    lp: &Loop,
    mut run: Run,
    levels: &Levels,
    read_levels: &ReadLevels,
    assume_nothing: bool,
) -> Result<Peeled, String> {
    // delayed stores happen before the loop: a virtual stored into a field
    // is then a real object, not one the label could pass as virtual (it
    // would become a second object)
    run.flush();
    // the end of the preamble: what each header box holds now
    let ends: Vec<Value> = lp.next.iter().map(|v| run.sh.resolve(*v)).collect();
    let planner = Planner {
        run: &run,
        levels,
        planned: Default::default(),
    };
    let plans: Vec<Assume> = ends
        .iter()
        .enumerate()
        .map(|(k, v)| match assume_nothing {
            false => planner.plan(&mut vec![k], *v),
            true => Assume::Fresh(run.sh.kind(*v), None),
        })
        .collect();
    let mut flat = Vec::new();
    for (a, v) in plans.iter().zip(&ends) {
        flatten(&run, a, *v, &mut flat);
    }
    let mut reads = kept_reads(&run, &plans, read_levels);
    if assume_nothing {
        reads.clear();
    }
    let keep: WordSet<(Value, ReadPlace)> = reads.iter().map(|r| (r.object, r.place)).collect();
    // the facts whose value changes from one iteration to the next: the
    // label takes it, starting from the preamble's
    let carried: Vec<RememberedRead> = reads
        .iter()
        .filter(|r| read_levels.get(&(r.object, r.place)) == Some(&1))
        .copied()
        .collect();
    flat.extend(carried.iter().map(|r| r.value));
    let entry_values = through_chain(&mut run, flat)?;
    // memory is as the trace says when the loop starts
    run.flush();

    // the label, its boxes set from the preamble's values
    let mut label = Vec::new();
    let mut rebuild = Vec::new();
    // by the input trace's box: what it is in the peeled body
    let mut rename: Vec<Option<Value>> = vec![None; trace.boxes.len()];
    let mut objects = WordMap::default();
    for (h, a) in lp.header.iter().zip(&plans) {
        let v = enter(&mut run, a, &mut objects, &mut label, &mut rebuild);
        rename[*h] = Some(v);
    }
    let carried_boxes: Vec<Value> = carried
        .iter()
        .map(|r| Value::Box(run.sh.new_box(run.sh.kind(r.value))))
        .collect();
    label.extend(carried_boxes.iter().copied());
    for (slot, v) in label.iter().zip(&entry_values) {
        let same_as = Opcode::same_as(run.sh.kind(*v));
        run.sh.output(Op::new(same_as, vec![*v], slot.as_box()));
    }
    let label_at = run.sh.trace.ops.len();
    run.sh.output(Op::new(Opcode::Label, label.clone(), None));
    let sh = &run.sh;
    let keep_read = |r: &RememberedRead| keep.contains(&(sh.resolve(r.object), r.place));
    for o in run.chain.iter_mut() {
        o.retain_reads(&keep_read);
        for (r, b) in carried.iter().zip(&carried_boxes) {
            o.replace_read(&RememberedRead { value: *b, ..*r });
        }
    }

    // the peeled body
    for op in rebuild {
        run.feed(op)?;
    }
    let renamed = |rename: &[Option<Value>], v: Value| match v {
        Value::Box(b) => rename[b].unwrap_or(v),
        _ => v,
    };
    for op in lp.body {
        let mut op = op.clone();
        for a in op.args.iter_mut().chain(op.fail_args.iter_mut().flatten()) {
            *a = renamed(&rename, *a);
        }
        if let Some(r) = op.result {
            let n = run.sh.new_box(trace.boxes[r].kind);
            rename[r] = Some(Value::Box(n));
            op.result = Some(n);
        }
        run.feed(op)?;
    }

    // the jump: do the assumptions hold again? (after the delayed stores,
    // as at the label)
    run.flush();
    let jump_values: Vec<Value> = lp
        .next
        .iter()
        .map(|v| run.sh.resolve(renamed(&rename, *v)))
        .collect();
    let mut seen = WordMap::default();
    let mut broken = Vec::new();
    for (k, (a, v)) in plans.iter().zip(&jump_values).enumerate() {
        verify(&run, &mut seen, a, *v, &mut vec![k], &mut broken);
    }
    let now: WordMap<(Value, ReadPlace), Value> = run
        .chain
        .iter()
        .flat_map(|o| o.remembered_reads())
        .map(|r| ((run.sh.resolve(r.object), r.place), run.sh.resolve(r.value)))
        .collect();
    // a fact kept must hold the same value again; a carried one must still
    // be known, its value going to the label
    let is_carried = |r: &RememberedRead| read_levels.get(&(r.object, r.place)) == Some(&1);
    let lost: Vec<(Value, ReadPlace)> = reads
        .iter()
        .filter(|r| match now.get(&(r.object, r.place)) {
            Some(v) => !is_carried(r) && *v != run.sh.resolve(r.value),
            None => true,
        })
        .map(|r| (r.object, r.place))
        .collect();
    if !broken.is_empty() || !lost.is_empty() {
        return Ok(Peeled::Retry {
            broken,
            reads: lost,
        });
    }
    let mut flat = Vec::new();
    for (a, v) in plans.iter().zip(&jump_values) {
        flatten(&run, a, *v, &mut flat);
    }
    flat.extend(
        carried
            .iter()
            .filter_map(|r| now.get(&(r.object, r.place)).copied()),
    );
    let jump_args = through_chain(&mut run, flat)?;
    run.flush();
    run.sh.output(Op::new(Opcode::Jump, jump_args, None));
    let mut out = run.sh.into_trace(trace);
    drop_repeated_guards(&mut out, label_at);
    super::remove_dead(&mut out);
    let label_at = out
        .ops
        .iter()
        .rposition(|op| op.opcode == Opcode::Label)
        .ok_or("internal error: the peeled loop lost its label")?;
    let label_at = rename_entry_copies(&mut out, label_at);
    pass_outer_values(&mut out, label_at);
    Ok(Peeled::Done(out))
}

/// Removes the guards of the peeled body that the preamble already checked
/// on the same values: their arguments are constants or preamble boxes,
/// which keep their value in every iteration. (Guards without arguments
/// read a flag the operation before them sets: they stay.)
fn drop_repeated_guards(t: &mut Trace, label_at: usize) {
    let (before, after) = t.ops.split_at(label_at);
    let checked: WordSet<(Opcode, &[Value], Option<usize>)> = before
        .iter()
        .filter(|op| op.is_guard() && !op.args.is_empty())
        .map(|op| (op.opcode, op.args.as_slice(), op.descr))
        .collect();
    let keep: Vec<bool> = after
        .iter()
        .enumerate()
        .map(|(i, op)| i == 0 || !checked.contains(&(op.opcode, op.args.as_slice(), op.descr)))
        .collect();
    let mut i = 0;
    t.ops.retain(|_| {
        i += 1;
        i <= label_at || keep[i - 1 - label_at]
    });
}

/// A label box that a `same_as` just before the label sets from a box the
/// loop does not otherwise use becomes that box: the copy goes. Returns
/// the label's index afterwards.
fn rename_entry_copies(t: &mut Trace, mut label_at: usize) -> usize {
    let mut used_in_loop: WordMap<BoxId, usize> = WordMap::default();
    for op in &t.ops[label_at..] {
        for v in op.args.iter().chain(op.fail_args.iter().flatten()) {
            if let Value::Box(b) = v {
                *used_in_loop.entry(*b).or_default() += 1;
            }
        }
    }
    let mut sources: WordMap<BoxId, usize> = WordMap::default();
    let mut first = label_at;
    while first > 0 && t.ops[first - 1].opcode.is_same_as() {
        first -= 1;
        if let Some(Value::Box(s)) = t.ops[first].args.first() {
            *sources.entry(*s).or_default() += 1;
        }
    }
    let label_boxes: WordSet<BoxId> = t.ops[label_at]
        .args
        .iter()
        .filter_map(|v| v.as_box())
        .collect();
    let mut rename: WordMap<BoxId, BoxId> = WordMap::default();
    let mut i = first;
    while i < label_at {
        let op = &t.ops[i];
        match (op.result, op.args.first()) {
            (Some(slot), Some(Value::Box(src)))
                if label_boxes.contains(&slot)
                    && !used_in_loop.contains_key(src)
                    && sources.get(src) == Some(&1) =>
            {
                rename.insert(slot, *src);
                t.ops.remove(i);
                label_at -= 1;
            }
            _ => i += 1,
        }
    }
    for op in &mut t.ops[label_at..] {
        for v in op.args.iter_mut().chain(op.fail_args.iter_mut().flatten()) {
            if let Value::Box(b) = v {
                if let Some(n) = rename.get(b) {
                    *v = Value::Box(*n);
                }
            }
        }
    }
    label_at
}

/// Adds to the label, and to the jump unchanged, every box from before the
/// label the loop reads, so the label lists all the loop's values.
fn pass_outer_values(t: &mut Trace, label_at: usize) {
    let mut outer: WordSet<BoxId> = t.inputs.iter().copied().collect();
    outer.extend(t.ops[..label_at].iter().filter_map(|op| op.result));
    let mut listed: WordSet<BoxId> = t.ops[label_at]
        .args
        .iter()
        .filter_map(|v| v.as_box())
        .collect();
    let mut extra = Vec::new();
    for op in &t.ops[label_at + 1..] {
        for v in op.args.iter().chain(op.fail_args.iter().flatten()) {
            if let Value::Box(b) = v {
                if outer.contains(b) && listed.insert(*b) {
                    extra.push(*v);
                }
            }
        }
    }
    t.ops[label_at].args.extend(extra.iter().copied());
    if let Some(jump) = t.ops.last_mut() {
        jump.args.extend(extra);
    }
}

//! The trace optimizer: a chain of optimizations, each a forward pass.
//!
//! Every operation of the input goes to the first optimization's
//! [`Optimization::propagate`]; an optimization passes an operation on (the
//! same, changed, or new ones) with [`Next::emit`], drops it, or replaces its
//! result with another value ([`Shared::make_equal`]). What reaches the end
//! of the chain is the output. Operations an optimization creates can be sent
//! through the whole chain again with [`Shared::send_extra`] (they run after
//! the current operation, before the next input one). Knowledge shared by
//! all optimizations lives in [`Shared`]: the replacement of each box, the
//! integer bound of each box, and the operation that defines each box.
//!
//! At a `label`, every box the label defines forgets what was known of it
//! (its bound), and each optimization gets the label to reset its caches:
//! the loop body is optimized for any iteration, not just the first.

pub mod earlyforce;
pub mod heap;
pub mod intbounds;
pub mod pure;
pub mod rewrite;
pub mod string;
pub mod unroll;
pub mod virtualize;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

pub use crate::trace::FieldSlot;
use crate::trace::{BoxId, Kind, Op, Opcode, Trace, Value};
pub use intbounds::IntBound;

/// The order of every optimization, as PyPy runs them.
pub const ALL_PASSES: &str = "intbounds:rewrite:virtualize:string:earlyforce:pure:heap:unroll";
/// The optimizations implemented, in order: all of them.
pub const IMPLEMENTED_PASSES: &str = ALL_PASSES;

/// A hasher for the optimizer's tables, keyed by opcodes, boxes and
/// constants: they are not chosen by an adversary, and SipHash (the
/// standard one) took a fifth of the optimizer's time.
#[derive(Default, Clone, Copy)]
pub(crate) struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, n: u64) {
        // one multiply-rotate round per word, as rustc's FxHasher
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    // the derived hashes of small fields and enum tags: one round each,
    // not the byte loop of `write`
    fn write_u8(&mut self, n: u8) {
        self.write_u64(n as u64);
    }

    fn write_u16(&mut self, n: u16) {
        self.write_u64(n as u64);
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_isize(&mut self, n: isize) {
        self.write_u64(n as u64);
    }
}

/// A hash map with [`WordHasher`].
pub(crate) type WordMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;
/// A hash set with [`WordHasher`].
pub(crate) type WordSet<K> = HashSet<K, BuildHasherDefault<WordHasher>>;

/// No defining operation (an index into `defs`).
const NO_DEF: usize = usize::MAX;

/// What the optimizations share.
#[derive(Clone)]
pub struct Shared {
    /// The output trace: its ops are what reached the end of the chain. Its
    /// boxes are filled in at the end ([`Shared::into_trace`]); meanwhile
    /// `kinds` has the kind of every box (copying named boxes was a good
    /// part of `unroll`'s cost).
    pub trace: Trace,
    kinds: Vec<Kind>,
    /// How many boxes the input trace has: the boxes after them are new.
    input_boxes: usize,
    /// The number in the name of the first new box.
    first_new_name: u64,
    forward: Vec<Option<Value>>,
    /// The bound of each box (unbounded when nothing is known).
    bounds: Vec<IntBound>,
    /// The index in the output of the operation defining each box, or
    /// `NO_DEF`.
    defs: Vec<usize>,
    /// What is known of each pointer box (nothing, when not a pointer).
    pointers: Vec<PtrFacts>,
    /// The results of overflow-checking operations whose
    /// `guard_no_overflow` reached the output: each is the exact result,
    /// equal to the wrapping operation's.
    passed_overflow_checks: WordSet<BoxId>,
    /// Pairs `(index, length)` with `0 <= index < length`: an item of an
    /// array of that length was accessed at that index (forgotten at a
    /// label).
    in_bounds: WordSet<(Value, Value)>,
    /// The result of the last overflow-checking operation output, until
    /// its guard comes.
    unguarded_overflow_check: Option<BoxId>,
    extra: VecDeque<Op>,
}

/// What is known of a pointer, as PyPy's `PtrInfo` keeps it: learnt from
/// guards, allocations and accesses through it, shared so that `rewrite`
/// (which drops the guards it proves) and `heap` (which uses classes to
/// rule out aliasing) see the same facts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PtrFacts {
    /// Known not to be null.
    pub nonnull: bool,
    /// The exact class (vtable id), after a class guard or allocation.
    pub class: Option<u64>,
}

impl Shared {
    /// The value `v` stands for now (following replacements).
    pub fn resolve(&self, mut v: Value) -> Value {
        while let Value::Box(b) = v {
            match self.forward.get(b).copied().flatten() {
                Some(w) => v = w,
                None => break,
            }
        }
        v
    }

    /// Resolves the arguments and fail args of `op`.
    pub fn resolve_op(&self, op: &mut Op) {
        for a in op.args.iter_mut() {
            *a = self.resolve(*a);
        }
        if let Some(fa) = op.fail_args.as_mut() {
            for a in fa.iter_mut() {
                *a = self.resolve(*a);
            }
        }
    }

    /// From now on, box `b` is `v`.
    pub fn make_equal(&mut self, b: BoxId, v: Value) {
        let v = self.resolve(v);
        if v != Value::Box(b) {
            self.forward[b] = Some(v);
        }
    }

    /// How many boxes the input trace has (to size tables by).
    pub fn input_boxes(&self) -> usize {
        self.input_boxes
    }

    /// A new box with a fresh name.
    pub fn new_box(&mut self, kind: Kind) -> BoxId {
        self.kinds.push(kind);
        self.forward.push(None);
        self.bounds.push(IntBound::unbounded());
        self.defs.push(NO_DEF);
        self.pointers.push(PtrFacts::default());
        self.kinds.len() - 1
    }

    pub fn kind(&self, v: Value) -> Kind {
        match v {
            Value::Box(b) => self.kinds[b],
            c => self.trace.kind(c),
        }
    }

    /// The output trace with its boxes: `input`'s (the trace the run
    /// started from), then the new ones, named in the order they were made.
    pub(crate) fn into_trace(self, input: &Trace) -> Trace {
        let mut t = self.trace;
        t.boxes.reserve(self.kinds.len());
        t.boxes.extend_from_slice(&input.boxes[..self.input_boxes]);
        for (k, kind) in self.kinds[self.input_boxes..].iter().enumerate() {
            t.boxes.push(crate::trace::BoxInfo::numbered(
                self.first_new_name + k as u64,
                *kind,
            ));
        }
        t
    }

    /// What is known of an integer value.
    pub fn bound(&self, v: Value) -> IntBound {
        match self.resolve(v) {
            Value::Int(c) => IntBound::constant(c),
            Value::Box(b) => self.bounds[b],
            Value::Class(d) => {
                IntBound::constant(self.trace.header.class_id(d).unwrap_or(0) as i64)
            }
            _ => IntBound::unbounded(),
        }
    }

    /// Narrows the bound of `v` (a box; constants are left alone).
    /// Returns false when the bound became empty (the trace cannot get
    /// here).
    pub fn narrow(&mut self, v: Value, b: IntBound) -> bool {
        if let Value::Box(id) = self.resolve(v) {
            if self.kind(Value::Box(id)) != Kind::Int {
                return true;
            }
            let old = self.bound(Value::Box(id));
            match old.intersect(&b) {
                Some(n) => self.bounds[id] = n,
                None => return false,
            }
        }
        true
    }

    fn forget(&mut self, b: BoxId) {
        self.bounds[b] = IntBound::unbounded();
        self.defs[b] = NO_DEF;
        self.pointers[b] = PtrFacts::default();
    }

    /// What is known of pointer `v`: `NULL` is null; other constants and
    /// unknown boxes are not known to be anything.
    pub fn pointer(&self, v: Value) -> PtrFacts {
        match self.resolve(v) {
            Value::Box(b) => self.pointers[b],
            _ => PtrFacts::default(),
        }
    }

    /// From now on, pointer `v` is not null.
    pub fn learn_nonnull(&mut self, v: Value) {
        if let Value::Box(b) = self.resolve(v) {
            self.pointers[b].nonnull = true;
        }
    }

    /// From now on, pointer `v` is an object of class `class` (and so not
    /// null).
    pub fn learn_class(&mut self, v: Value, class: u64) {
        if let Value::Box(b) = self.resolve(v) {
            self.pointers[b] = PtrFacts {
                nonnull: true,
                class: Some(class),
            };
        }
    }

    /// Forgets every pointer fact (at a label, where the loop's objects
    /// are other ones each iteration).
    pub fn forget_pointers(&mut self) {
        self.pointers.fill(PtrFacts::default());
    }

    /// Whether `a` and `b` are certainly different objects: one is null
    /// and the other not, or their classes differ.
    pub fn never_alias(&self, a: Value, b: Value) -> bool {
        let (fa, fb) = (self.pointer(a), self.pointer(b));
        let null = |v: Value, f: PtrFacts| (self.resolve(v) == Value::NullPtr, f.nonnull);
        let ((a_null, a_nonnull), (b_null, b_nonnull)) = (null(a, fa), null(b, fb));
        (a_null && b_nonnull)
            || (b_null && a_nonnull)
            || matches!((fa.class, fb.class), (Some(x), Some(y)) if x != y)
    }

    /// The class id `v`, the class argument of a `guard_class`, names: a
    /// `ConstClass` or a vtable id.
    pub fn class_named(&self, v: Value) -> Option<u64> {
        match self.resolve(v) {
            Value::Class(d) => self.trace.header.class_id(d),
            Value::Int(c) => Some(c as u64),
            _ => None,
        }
    }

    /// Whether integers `a` and `b` are certainly different: their bounds
    /// do not meet.
    pub fn never_equal(&self, a: Value, b: Value) -> bool {
        a != b && self.bound(a).intersect(&self.bound(b)).is_none()
    }

    /// Whether arrays (strings) `p` and `q` are certainly different objects:
    /// [`Shared::never_alias`] says so, or their lengths as `lengths` knows
    /// them (lengths never change) are never equal.
    pub(crate) fn never_same_array(
        &self,
        lengths: &WordMap<Value, Value>,
        p: Value,
        q: Value,
    ) -> bool {
        self.never_alias(p, q)
            || matches!((lengths.get(&p), lengths.get(&q)),
                (Some(m), Some(n)) if self.never_equal(*m, *n))
    }

    /// Where in the output box `b` is defined; `None` (before any) for an
    /// input or a label argument.
    pub fn def_index(&self, b: BoxId) -> Option<usize> {
        Some(self.defs[b]).filter(|d| *d != NO_DEF)
    }

    /// The output operation that defines `v`, if any.
    pub fn def_of(&self, v: Value) -> Option<&Op> {
        match self.resolve(v) {
            Value::Box(b) => self.trace.ops.get(self.defs[b]),
            _ => None,
        }
    }

    /// Sends `op` through the whole chain after the current operation.
    pub fn send_extra(&mut self, op: Op) {
        self.extra.push_back(op);
    }

    /// From now on, `0 <= index < length`.
    pub fn learn_in_bounds(&mut self, index: Value, length: Value) {
        let pair = (self.resolve(index), self.resolve(length));
        self.in_bounds.insert(pair);
    }

    /// Whether `0 <= index < length` is known.
    pub fn in_bounds(&self, index: Value, length: Value) -> bool {
        !self.in_bounds.is_empty()
            && self
                .in_bounds
                .contains(&(self.resolve(index), self.resolve(length)))
    }

    /// Whether `v` is the result of an overflow-checking operation whose
    /// `guard_no_overflow` passed.
    pub fn passed_overflow_check(&self, v: Value) -> bool {
        matches!(self.resolve(v), Value::Box(b) if self.passed_overflow_checks.contains(&b))
    }

    /// Whether any overflow-checking operation passed its guard.
    pub fn any_passed_overflow_check(&self) -> bool {
        !self.passed_overflow_checks.is_empty()
    }

    fn output(&mut self, op: Op) {
        if let Some(r) = op.result {
            self.defs[r] = self.trace.ops.len();
        }
        let name = op.opcode;
        if name.is_overflow_checked() {
            self.unguarded_overflow_check = op.result;
        } else if name == Opcode::GuardNoOverflow {
            if let Some(r) = self.unguarded_overflow_check.take() {
                self.passed_overflow_checks.insert(r);
            }
        } else if name == Opcode::GuardOverflow {
            self.unguarded_overflow_check = None;
        }
        self.trace.ops.push(op);
    }
}

/// One optimization of the chain.
pub trait Optimization {
    fn name(&self) -> &'static str;
    /// Handles one operation (its arguments already resolved).
    fn propagate(&mut self, op: Op, sh: &mut Shared, next: &mut Next);
    /// For `unroll`: the virtual object box `b` stands for, if this
    /// optimization keeps one.
    fn virtual_shape(&self, _b: BoxId) -> Option<VirtualShape> {
        None
    }
    /// For `unroll`: the memory contents this optimization remembers.
    fn remembered_reads(&self) -> Vec<RememberedRead> {
        Vec::new()
    }
    /// For `unroll`: forgets the remembered contents `keep` rejects.
    fn retain_reads(&mut self, _keep: &dyn Fn(&RememberedRead) -> bool) {}
    /// For `unroll`: from now on, the memory holds `r` (a label box that
    /// carries the value of a memory fact into the loop).
    fn replace_read(&mut self, _r: &RememberedRead) {}
    /// Emits what this optimization holds back (delayed stores), before
    /// a point where memory must be as the trace says: `unroll`'s label and
    /// jump, and the end of a trace.
    fn flush(&mut self, _sh: &mut Shared, _next: &mut Next) {}
    /// A copy of this optimization in its present state, for a run that
    /// goes on from the same point (`unroll` optimizes the loop body again
    /// from one optimized preamble). State shared between members of the
    /// chain is copied once, through `copies`.
    fn fork(&self, copies: &mut Forks) -> Box<dyn Optimization>;
}

/// The copies of shared state made while forking one chain.
#[derive(Default)]
pub struct Forks {
    virtuals: Vec<(virtualize::Virtuals, virtualize::Virtuals)>,
}

impl Forks {
    /// The copy of `v` (the same copy for every member sharing `v`).
    pub(crate) fn virtuals(&mut self, v: &virtualize::Virtuals) -> virtualize::Virtuals {
        if let Some((_, copy)) = self.virtuals.iter().find(|(o, _)| Rc::ptr_eq(o, v)) {
            return copy.clone();
        }
        let copy = Rc::new(RefCell::new(v.borrow().clone()));
        self.virtuals.push((v.clone(), copy.clone()));
        copy
    }
}

/// A virtual object as `virtualize` keeps it: the allocation it stands for
/// and the values stored in it so far (unstored ones are zero).
#[derive(Clone, Debug, PartialEq)]
pub struct VirtualShape {
    pub alloc: Op,
    pub fields: Vec<(FieldSlot, Value)>,
}

/// Memory content an optimization knows: `object`'s `place` holds `value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RememberedRead {
    pub object: Value,
    pub place: ReadPlace,
    pub value: Value,
}

/// Where a struct field is: the struct (its size descr) and the offset.
/// Two descrs naming one field are one key; fields of different structs
/// never share memory (objects are well typed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldKey {
    pub strukt: crate::trace::DescrId,
    pub offset: usize,
}

/// Whether an operation named `name` may write memory the optimizer cannot
/// see: a call that is not pure, or a raw store (which may point anywhere).
/// What the optimizations remember of memory goes there.
pub(crate) fn writes_unknown_memory(name: Opcode) -> bool {
    name.is_call() && !name.is_pure_call()
        || name == Opcode::SetfieldRaw
        || name == Opcode::SetarrayitemRaw
}

/// A place in memory, as the heap cache names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReadPlace {
    /// A struct field.
    Field(FieldKey),
    /// An array item at a constant index, by the array descr.
    Item(crate::trace::DescrId, i64),
}

/// The rest of the chain after an optimization.
pub struct Next<'a> {
    rest: &'a mut [Box<dyn Optimization>],
}

impl Next<'_> {
    /// Passes `op` on to the next optimization (or the output).
    pub fn emit(&mut self, mut op: Op, sh: &mut Shared) {
        sh.resolve_op(&mut op);
        match self.rest.split_first_mut() {
            None => sh.output(op),
            Some((first, rest)) => first.propagate(op, sh, &mut Next { rest }),
        }
    }
}

/// How the members of one chain are made: a `virtualize` with an
/// `earlyforce` or a `string` after it shares its virtual objects with
/// them, and leaves forcing to `earlyforce` when it comes later. (With
/// `virtualize` named twice, each keeps its own objects and forces them
/// itself; a `string` without a `virtualize` before it does the same.)
struct ChainPlan {
    /// The shared virtual objects, when `earlyforce` or `string` comes
    /// after the one `virtualize`.
    shared: Option<virtualize::Virtuals>,
    /// `earlyforce` comes after the one `virtualize`.
    early: bool,
    /// ... and `heap` after `earlyforce`: stores of virtuals are delayed.
    delayed_virtual_stores: bool,
}

impl ChainPlan {
    fn new(names: &[&str]) -> ChainPlan {
        let at = |n: &str| names.iter().position(|p| *p == n);
        let one_virtualize = names.iter().filter(|p| **p == "virtualize").count() == 1;
        let after_virtualize = |n: &str| {
            one_virtualize && matches!((at("virtualize"), at(n)), (Some(v), Some(e)) if v < e)
        };
        let early = after_virtualize("earlyforce");
        let heap_after_early =
            matches!((at("earlyforce"), at("heap")), (Some(e), Some(h)) if e < h);
        ChainPlan {
            shared: (early || after_virtualize("string")).then(virtualize::Virtuals::default),
            early,
            delayed_virtual_stores: early && heap_after_early,
        }
    }

    fn make(&self, name: &str) -> Result<Box<dyn Optimization>, String> {
        Ok(match (name, &self.shared) {
            ("virtualize", Some(v)) => {
                Box::new(virtualize::OptVirtualize::new(v.clone(), self.early))
            }
            ("earlyforce", v) if self.early => Box::new(earlyforce::OptEarlyForce::new(
                v.clone(),
                self.delayed_virtual_stores,
            )),
            ("heap", Some(v)) if self.delayed_virtual_stores => {
                Box::new(heap::OptHeap::delaying_virtual_stores(v.clone()))
            }
            ("string", Some(v)) => Box::new(string::OptString::new(v.clone(), false)),
            _ => make_pass(name)?,
        })
    }
}

fn make_pass(name: &str) -> Result<Box<dyn Optimization>, String> {
    Ok(match name {
        "intbounds" => Box::new(intbounds::OptIntBounds::default()),
        "rewrite" => Box::new(rewrite::OptRewrite::default()),
        "pure" => Box::new(pure::OptPure::default()),
        "virtualize" => Box::new(virtualize::OptVirtualize::default()),
        "earlyforce" => Box::new(earlyforce::OptEarlyForce::new(None, false)),
        "heap" => Box::new(heap::OptHeap::default()),
        "string" => Box::new(string::OptString::new(Default::default(), true)),
        _ => {
            return Err(format!(
                "unknown optimization '{name}' (known: {ALL_PASSES})"
            ))
        }
    })
}

/// The chain's pass names of `passes` (colon-separated) without `unroll`,
/// which is not a member of the chain but drives it, and whether `unroll`
/// was named.
fn split_passes(passes: &str) -> Result<(Vec<&str>, bool), String> {
    let mut chain = Vec::new();
    let mut unroll = false;
    for p in passes.split(':').filter(|p| !p.is_empty()) {
        if p == "unroll" {
            unroll = true;
        } else {
            make_pass(p)?;
            chain.push(p);
        }
    }
    Ok((chain, unroll))
}

/// An error when `passes` names an optimization there is not.
pub fn check_passes(passes: &str) -> Result<(), String> {
    split_passes(passes).map(|_| ())
}

/// Optimizes `trace` with the optimizations named in `passes`
/// (colon-separated, e.g. `intbounds:rewrite:pure`), then removes operations
/// without side effects whose results are unused. With `unroll`, a loop is
/// peeled once (`unroll.rs`); a trace that does not loop is optimized as
/// without it.
pub fn optimize(trace: &Trace, passes: &str) -> Result<Trace, String> {
    let (chain, unroll) = split_passes(passes)?;
    if unroll {
        if let Some(t) = unroll::optimize_loop(trace, &chain)? {
            return Ok(t);
        }
    }
    let mut run = Run::new(trace, &chain)?;
    for op in &trace.ops {
        run.feed(op.clone())?;
    }
    Ok(run.finish(trace))
}

/// One pass of the chain over a trace: the optimizations and what they
/// share; operations are fed one by one.
pub(crate) struct Run {
    chain: Vec<Box<dyn Optimization>>,
    sh: Shared,
    /// How many extra operations may still be sent (a rewrite loop ends).
    budget: usize,
}

impl Run {
    /// A run of the optimizations `names` whose output starts with `trace`'s
    /// header, boxes and inputs and no operations.
    fn new(trace: &Trace, names: &[&str]) -> Result<Run, String> {
        let plan = ChainPlan::new(names);
        let chain = names
            .iter()
            .map(|n| plan.make(n))
            .collect::<Result<_, _>>()?;
        let next_name = trace
            .boxes
            .iter()
            .filter_map(crate::trace::BoxInfo::number)
            .max()
            .map_or(0, |m| m + 1);
        let out = Trace {
            header: trace.header.clone(),
            boxes: Vec::new(),
            inputs: trace.inputs.clone(),
            ops: Vec::with_capacity(trace.ops.len() * 2),
        };
        Ok(Run {
            chain,
            sh: Shared {
                forward: vec![None; trace.boxes.len()],
                trace: out,
                kinds: trace.boxes.iter().map(|b| b.kind).collect(),
                input_boxes: trace.boxes.len(),
                first_new_name: next_name,
                bounds: vec![IntBound::unbounded(); trace.boxes.len()],
                defs: vec![NO_DEF; trace.boxes.len()],
                pointers: vec![PtrFacts::default(); trace.boxes.len()],
                passed_overflow_checks: WordSet::default(),
                in_bounds: WordSet::default(),
                unguarded_overflow_check: None,
                extra: VecDeque::new(),
            },
            budget: 64 * trace.ops.len() + 1024,
        })
    }

    /// A copy of this run in its present state.
    pub(crate) fn fork(&self) -> Run {
        let mut copies = Forks::default();
        Run {
            chain: self.chain.iter().map(|o| o.fork(&mut copies)).collect(),
            sh: self.sh.clone(),
            budget: self.budget,
        }
    }

    /// Sends `op` through the chain (a `label` is prepared first), then the
    /// operations that sent.
    fn feed(&mut self, mut op: Op) -> Result<(), String> {
        if op.opcode == Opcode::Label {
            op = prepare_label(op, &mut self.sh);
        }
        Next {
            rest: &mut self.chain,
        }
        .emit(op, &mut self.sh);
        while let Some(extra) = self.sh.extra.pop_front() {
            if self.budget == 0 {
                return Err("the optimizer did not terminate (rewrite loop?)".into());
            }
            self.budget -= 1;
            // what this one sends (its replacement, which defines its
            // result) goes before the operations queued after it, which may
            // use that result
            let queued = self.sh.extra.len();
            Next {
                rest: &mut self.chain,
            }
            .emit(extra, &mut self.sh);
            let sent = self.sh.extra.len() - queued;
            self.sh.extra.rotate_right(sent);
        }
        Ok(())
    }

    /// Emits what every optimization holds back, in chain order (what one
    /// emits goes through the rest).
    pub(crate) fn flush(&mut self) {
        for k in 0..self.chain.len() {
            let (this, rest) = self.chain[k..].split_first_mut().expect("k < len");
            this.flush(&mut self.sh, &mut Next { rest });
        }
    }

    /// The output trace (the run started from `input`), without its dead
    /// operations.
    fn finish(mut self, input: &Trace) -> Trace {
        self.flush();
        let mut result = self.sh.into_trace(input);
        remove_dead(&mut result);
        result
    }
}

/// Makes every label argument a distinct box (a constant or a repeated box
/// gets a `same_as`), makes each original argument stand for its slot, and
/// forgets what was known of the slots.
fn prepare_label(op: Op, sh: &mut Shared) -> Op {
    sh.in_bounds.clear();
    let mut slots = Vec::new();
    let mut seen = HashSet::new();
    for a in &op.args {
        let r = sh.resolve(*a);
        let slot = match r {
            Value::Box(b) if seen.insert(b) => b,
            _ => {
                let kind = sh.kind(r);
                let n = sh.new_box(kind);
                // straight to the output: it must not be folded away
                sh.output(Op::new(Opcode::same_as(kind), vec![r], Some(n)));
                seen.insert(n);
                n
            }
        };
        if let Value::Box(orig) = a {
            if *orig != slot {
                sh.forward[*orig] = Some(Value::Box(slot));
            }
        }
        sh.forget(slot);
        slots.push(Value::Box(slot));
    }
    Op { args: slots, ..op }
}

/// Removes operations that may be removed when unused and whose results no
/// operation, fail args, label or jump uses.
pub fn remove_dead(t: &mut Trace) {
    let mut used = vec![false; t.boxes.len()];
    let mut keep = vec![true; t.ops.len()];
    for (i, op) in t.ops.iter().enumerate().rev() {
        let info = op.info();
        let dead = info.removable && !info.guard && op.result.is_some_and(|r| !used[r]);
        if dead {
            keep[i] = false;
            continue;
        }
        for v in op.args.iter().chain(op.fail_args.iter().flatten()) {
            if let Value::Box(b) = v {
                used[*b] = true;
            }
        }
    }
    let mut i = 0;
    t.ops.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}

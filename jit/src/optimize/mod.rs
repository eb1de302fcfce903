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

pub mod heap;
pub mod intbounds;
pub mod pure;
pub mod rewrite;
pub mod virtualize;

use std::collections::{HashMap, HashSet, VecDeque};

use crate::trace::{opc, BoxId, Kind, Op, Trace, Value};
pub use intbounds::IntBound;

/// The order of every optimization, as PyPy runs them.
pub const ALL_PASSES: &str = "intbounds:rewrite:virtualize:string:earlyforce:pure:heap:unroll";
/// The optimizations implemented so far, in order.
pub const IMPLEMENTED_PASSES: &str = "intbounds:rewrite:virtualize:pure:heap";

/// What the optimizations share.
pub struct Shared {
    /// The output trace: its ops are what reached the end of the chain.
    pub trace: Trace,
    forward: Vec<Option<Value>>,
    bounds: HashMap<BoxId, IntBound>,
    defs: HashMap<BoxId, usize>,
    extra: VecDeque<Op>,
    next_name: u64,
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

    /// A new box with a fresh name.
    pub fn new_box(&mut self, kind: Kind) -> BoxId {
        self.trace.boxes.push(crate::trace::BoxInfo {
            name: format!("{}{}", kind.prefix(), self.next_name),
            kind,
        });
        self.next_name += 1;
        self.forward.push(None);
        self.trace.boxes.len() - 1
    }

    pub fn kind(&self, v: Value) -> Kind {
        self.trace.kind(v)
    }

    /// What is known of an integer value.
    pub fn bound(&self, v: Value) -> IntBound {
        match self.resolve(v) {
            Value::Int(c) => IntBound::constant(c),
            Value::Box(b) => self
                .bounds
                .get(&b)
                .copied()
                .unwrap_or_else(IntBound::unbounded),
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
                Some(n) => {
                    self.bounds.insert(id, n);
                }
                None => return false,
            }
        }
        true
    }

    fn forget(&mut self, b: BoxId) {
        self.bounds.remove(&b);
        self.defs.remove(&b);
    }

    /// The output operation that defines `v`, if any.
    pub fn def_of(&self, v: Value) -> Option<&Op> {
        match self.resolve(v) {
            Value::Box(b) => self.defs.get(&b).map(|i| &self.trace.ops[*i]),
            _ => None,
        }
    }

    /// Sends `op` through the whole chain after the current operation.
    pub fn send_extra(&mut self, op: Op) {
        self.extra.push_back(op);
    }

    fn output(&mut self, op: Op) {
        if let Some(r) = op.result {
            self.defs.insert(r, self.trace.ops.len());
        }
        self.trace.ops.push(op);
    }
}

/// One optimization of the chain.
pub trait Optimization {
    fn name(&self) -> &'static str;
    /// Handles one operation (its arguments already resolved).
    fn propagate(&mut self, op: Op, sh: &mut Shared, next: &mut Next);
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

fn make_pass(name: &str) -> Result<Box<dyn Optimization>, String> {
    Ok(match name {
        "intbounds" => Box::new(intbounds::OptIntBounds::default()),
        "rewrite" => Box::new(rewrite::OptRewrite),
        "pure" => Box::new(pure::OptPure::default()),
        "virtualize" => Box::new(virtualize::OptVirtualize::default()),
        "heap" => Box::new(heap::OptHeap::default()),
        "string" | "earlyforce" | "unroll" => {
            return Err(format!(
                "optimization '{name}' is not implemented yet (implemented: {IMPLEMENTED_PASSES})"
            ))
        }
        _ => {
            return Err(format!(
                "unknown optimization '{name}' (known: {ALL_PASSES})"
            ))
        }
    })
}

/// Optimizes `trace` with the optimizations named in `passes`
/// (colon-separated, e.g. `intbounds:rewrite:pure`), then removes operations
/// without side effects whose results are unused.
pub fn optimize(trace: &Trace, passes: &str) -> Result<Trace, String> {
    let mut chain: Vec<Box<dyn Optimization>> = passes
        .split(':')
        .filter(|p| !p.is_empty())
        .map(make_pass)
        .collect::<Result<_, _>>()?;
    let next_name = trace
        .boxes
        .iter()
        .filter_map(|b| b.name[1..].parse::<u64>().ok())
        .max()
        .map_or(0, |m| m + 1);
    let mut out = trace.clone();
    out.ops.clear();
    let mut sh = Shared {
        forward: vec![None; trace.boxes.len()],
        trace: out,
        bounds: HashMap::new(),
        defs: HashMap::new(),
        extra: VecDeque::new(),
        next_name,
    };
    let mut budget = 64 * trace.ops.len() + 1024;
    for op in &trace.ops {
        let mut op = op.clone();
        if op.name() == "label" {
            op = prepare_label(op, &mut sh, &mut chain);
        }
        Next { rest: &mut chain }.emit(op, &mut sh);
        while let Some(extra) = sh.extra.pop_front() {
            if budget == 0 {
                return Err("the optimizer did not terminate (rewrite loop?)".into());
            }
            budget -= 1;
            Next { rest: &mut chain }.emit(extra, &mut sh);
        }
    }
    let mut result = sh.trace;
    remove_dead(&mut result);
    Ok(result)
}

/// Makes every label argument a distinct box (a constant or a repeated box
/// gets a `same_as`), makes each original argument stand for its slot, and
/// forgets what was known of the slots.
fn prepare_label(op: Op, sh: &mut Shared, chain: &mut [Box<dyn Optimization>]) -> Op {
    let mut slots = Vec::new();
    let mut seen = HashSet::new();
    for a in &op.args {
        let r = sh.resolve(*a);
        let slot = match r {
            Value::Box(b) if seen.insert(b) => b,
            _ => {
                let kind = sh.kind(r);
                let n = sh.new_box(kind);
                let same_as = match kind {
                    Kind::Float => "same_as_f",
                    Kind::Ref => "same_as_r",
                    _ => "same_as_i",
                };
                // straight to the output: it must not be folded away
                sh.output(Op::new(opc(same_as), vec![r], Some(n)));
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
    let _ = chain;
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

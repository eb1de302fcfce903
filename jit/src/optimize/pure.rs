//! `pure`: constant folding and common-subexpression elimination of pure
//! operations. An integer operation whose arguments are all constants is
//! computed with `rpy_ir::llops::eval_int` (the one definition of integer
//! semantics) and replaced by its value; a pure operation (including
//! `call_pure_*`) seen before with the same arguments and descr is replaced
//! by the earlier result. `same_as_*` is replaced by its argument. The
//! memo is forgotten at a `label`.
//!
//! The memo also answers the same question asked another way: `b + a` once
//! `a + b` is known (commutative operations), `b > a` once `a < b` is. And
//! a guard on a comparison fixes its value: after `guard_true(a < b)`, the
//! comparison's box is the constant 1 from there on (0 after a
//! `guard_false`), so `a < b`, `b > a`, `a >= b` and `b <= a` fold, and a
//! guard on a constant that holds goes.

use rpy_ir::opcode::Opcode as GraphOpcode;
use std::sync::LazyLock;

use rpy_ir::llops::eval_int;

use crate::trace::{opcode, Op, Opcode, Value};

use std::hash::{Hash, Hasher};

use super::{Next, Optimization, Shared, WordHasher};

/// The value of a trace integer operation on constants (`None`: not an
/// integer operation, or undefined for these arguments).
pub fn fold_int(name: Opcode, args: &[i64]) -> Option<i64> {
    let b = |c: bool| Some(c as i64);
    let u = |i: usize| args[i] as u64;
    match (name, args.len()) {
        (Opcode::IntIsZero, 1) => eval_int(GraphOpcode::BoolNot, args),
        (Opcode::IntForceGeZero, 1) => Some(args[0].max(0)),
        (Opcode::SameAsI, 1) => Some(args[0]),
        (Opcode::UintRshift, 2) if (0..64).contains(&args[1]) => Some((u(0) >> args[1]) as i64),
        (Opcode::UintLt, 2) => b(u(0) < u(1)),
        (Opcode::UintLe, 2) => b(u(0) <= u(1)),
        (Opcode::UintGt, 2) => b(u(0) > u(1)),
        (Opcode::UintGe, 2) => b(u(0) >= u(1)),
        (n, _) => eval_int(n.graph_twin()?, args),
    }
}

/// The value of a pointer comparison of a value with itself (integer
/// comparisons of that kind are rules of `rules/opt`, which speak only
/// integers).
fn fold_ptr_self(name: Opcode, args: &[Value]) -> Option<i64> {
    match (name, args) {
        (Opcode::PtrEq | Opcode::InstancePtrEq, [a, b]) if a == b => Some(1),
        (Opcode::PtrNe | Opcode::InstancePtrNe, [a, b]) if a == b => Some(0),
        _ => None,
    }
}

/// The operation equal to `name(b, a)` for `name(a, b)`: the same one for a
/// commutative operation, the mirrored one for a comparison.
fn swapped(name: Opcode) -> Option<Opcode> {
    Some(match name {
        Opcode::IntAdd => Opcode::IntAdd,
        Opcode::IntMul => Opcode::IntMul,
        Opcode::IntAddOvf => Opcode::IntAddOvf,
        Opcode::IntMulOvf => Opcode::IntMulOvf,
        Opcode::IntAnd => Opcode::IntAnd,
        Opcode::IntOr => Opcode::IntOr,
        Opcode::IntXor => Opcode::IntXor,
        Opcode::IntEq => Opcode::IntEq,
        Opcode::IntNe => Opcode::IntNe,
        Opcode::IntLt => Opcode::IntGt,
        Opcode::IntLe => Opcode::IntGe,
        Opcode::IntGt => Opcode::IntLt,
        Opcode::IntGe => Opcode::IntLe,
        Opcode::UintLt => Opcode::UintGt,
        Opcode::UintLe => Opcode::UintGe,
        Opcode::UintGt => Opcode::UintLt,
        Opcode::UintGe => Opcode::UintLe,
        Opcode::PtrEq => Opcode::PtrEq,
        Opcode::PtrNe => Opcode::PtrNe,
        Opcode::InstancePtrEq => Opcode::InstancePtrEq,
        Opcode::InstancePtrNe => Opcode::InstancePtrNe,
        _ => return None,
    })
}

/// The comparison that is true exactly when `name` is false (integers and
/// pointers only: a float comparison with a NaN is false both ways).
fn negated(name: Opcode) -> Option<Opcode> {
    Some(match name {
        Opcode::IntLt => Opcode::IntGe,
        Opcode::IntGe => Opcode::IntLt,
        Opcode::IntLe => Opcode::IntGt,
        Opcode::IntGt => Opcode::IntLe,
        Opcode::IntEq => Opcode::IntNe,
        Opcode::IntNe => Opcode::IntEq,
        Opcode::UintLt => Opcode::UintGe,
        Opcode::UintGe => Opcode::UintLt,
        Opcode::UintLe => Opcode::UintGt,
        Opcode::UintGt => Opcode::UintLe,
        Opcode::PtrEq => Opcode::PtrNe,
        Opcode::PtrNe => Opcode::PtrEq,
        Opcode::InstancePtrEq => Opcode::InstancePtrNe,
        Opcode::InstancePtrNe => Opcode::InstancePtrEq,
        Opcode::IntIsTrue => Opcode::IntIsZero,
        Opcode::IntIsZero => Opcode::IntIsTrue,
        _ => return None,
    })
}

/// The overflow-checking twin of a plain operation: once it passed its
/// `guard_no_overflow`, its result is the plain one's too (the word did not
/// wrap, so wrapping would give the same).
fn checked_twin(name: Opcode) -> Option<Opcode> {
    Some(match name {
        Opcode::IntAdd => Opcode::IntAddOvf,
        Opcode::IntSub => Opcode::IntSubOvf,
        Opcode::IntMul => Opcode::IntMulOvf,
        _ => return None,
    })
}

/// The outcomes of comparing `a` with `b` (bit 0: `a < b`, bit 1: `a ==
/// b`, bit 2: `a > b`) for which the integer comparison `name(a, b)` is
/// true, in the signed or the unsigned order (equality is both).
const LESS: u8 = 1;
const EQUAL: u8 = 2;
const GREATER: u8 = 4;

fn outcomes_where_true(name: Opcode) -> Option<u8> {
    Some(match name {
        Opcode::IntLt | Opcode::UintLt => LESS,
        Opcode::IntLe | Opcode::UintLe => LESS | EQUAL,
        Opcode::IntGt | Opcode::UintGt => GREATER,
        Opcode::IntGe | Opcode::UintGe => GREATER | EQUAL,
        Opcode::IntEq => EQUAL,
        Opcode::IntNe => LESS | GREATER,
        _ => return None,
    })
}

/// The comparisons of one order: a fact of one says what another may be.
const SIGNED_ORDER: [Opcode; 6] = [
    Opcode::IntLt,
    Opcode::IntLe,
    Opcode::IntGt,
    Opcode::IntGe,
    Opcode::IntEq,
    Opcode::IntNe,
];
const UNSIGNED_ORDER: [Opcode; 6] = [
    Opcode::UintLt,
    Opcode::UintLe,
    Opcode::UintGt,
    Opcode::UintGe,
    Opcode::IntEq,
    Opcode::IntNe,
];

/// Whether `name` yields 0 or 1.
fn is_comparison(name: Opcode) -> bool {
    negated(name).is_some()
        || matches!(
            name,
            Opcode::FloatLt
                | Opcode::FloatLe
                | Opcode::FloatEq
                | Opcode::FloatNe
                | Opcode::FloatGt
                | Opcode::FloatGe
        )
}

/// The opcodes [`swapped`] and [`negated`] give, and whether
/// [`is_comparison`], for every opcode: asked for every operation, so
/// looked up by index rather than by name.
struct Related {
    swapped: Vec<Option<Opcode>>,
    negated: Vec<Option<Opcode>>,
    checked_twin: Vec<Option<Opcode>>,
    comparison: Vec<bool>,
    /// [`outcomes_where_true`], and the orders the comparison belongs to
    /// (bit 0: signed, bit 1: unsigned).
    outcomes: Vec<Option<(u8, u8)>>,
    signed_order: [Opcode; 6],
    unsigned_order: [Opcode; 6],
}

static RELATED: LazyLock<Related> = LazyLock::new(|| {
    let by = |f: fn(Opcode) -> Option<Opcode>| Opcode::ALL.iter().map(|&o| f(o)).collect();
    Related {
        swapped: by(swapped),
        negated: by(negated),
        checked_twin: by(checked_twin),
        comparison: Opcode::ALL.iter().map(|&o| is_comparison(o)).collect(),
        outcomes: Opcode::ALL
            .iter()
            .map(|&o| {
                let orders =
                    SIGNED_ORDER.contains(&o) as u8 | (UNSIGNED_ORDER.contains(&o) as u8) << 1;
                outcomes_where_true(o).map(|m| (m, orders))
            })
            .collect(),
        signed_order: SIGNED_ORDER,
        unsigned_order: UNSIGNED_ORDER,
    }
});

/// No operation in this memo slot.
const EMPTY: u32 = u32::MAX;

/// The canonical form of `code(args)`: of `code(a, b)` and its equal
/// `code'(b, a)` (the mirrored comparison, or the same commutative
/// operation), the one with the smaller opcode and then the smaller first
/// argument, so that both are stored and found as one.
fn canonical(code: Opcode, args: &[Value]) -> (Opcode, Option<[Value; 2]>) {
    match (RELATED.swapped[code as usize], args) {
        (Some(sw), [a, b]) if (sw, *b) < (code, *a) => (sw, Some([*b, *a])),
        (_, [a, b]) => (code, Some([*a, *b])),
        _ => (code, None),
    }
}

/// The canonical form of an operation looked up: computed once per
/// lookup, not once per slot probed.
type Key = (Opcode, Option<[Value; 2]>);

/// Whether the output operation `op` computes `code(args)` with `descr`,
/// whose canonical form is `key`.
fn computes(op: &Op, key: Key, code: Opcode, args: &[Value], descr: Option<usize>) -> bool {
    if op.descr != descr || op.args.len() != args.len() || op.result.is_none() {
        return false;
    }
    match (canonical(op.opcode, &op.args), key) {
        ((c1, Some(a1)), (c2, Some(a2))) => c1 == c2 && a1 == a2,
        _ => op.opcode == code && op.args == args,
    }
}

/// The two operands of a comparison, in one order whichever way it
/// compares them.
fn operand_pair(args: &[Value]) -> Option<[Value; 2]> {
    match args {
        [a, b] => Some([*a.min(b), *a.max(b)]),
        _ => None,
    }
}

fn memo_hash(key: Key, args: &[Value], descr: Option<usize>) -> u64 {
    let mut h = WordHasher::default();
    let (code, pair) = key;
    h.write_usize(code as usize);
    descr.hash(&mut h);
    match &pair {
        Some(p) => p.hash(&mut h),
        None => args.hash(&mut h),
    }
    h.finish()
}

/// The memo of pure operations: an open-addressing hash table of indices
/// into the output trace, where the operations themselves are the keys (a
/// map holding copies of the keys took a tenth of the optimizer's time, in
/// inserting, growing and copying it at each peeling round).
#[derive(Clone, Default)]
struct Memo {
    /// A power of two long (or empty), at most half full.
    slots: Vec<u32>,
    len: usize,
}

impl Memo {
    /// The index in `ops` of an operation computing `code(args)`.
    fn find(
        &self,
        ops: &[Op],
        code: Opcode,
        args: &[Value],
        descr: Option<usize>,
    ) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let key = canonical(code, args);
        let mut at = memo_hash(key, args, descr) as usize & mask;
        loop {
            match self.slots[at] {
                EMPTY => return None,
                i => {
                    let i = i as usize;
                    if ops
                        .get(i)
                        .is_some_and(|op| computes(op, key, code, args, descr))
                    {
                        return Some(i);
                    }
                }
            }
            at = (at + 1) & mask;
        }
    }

    /// Remembers the operation at `ops[i]`; `expected` sizes a new table.
    fn insert(&mut self, ops: &[Op], i: usize, expected: usize) {
        if 2 * (self.len + 1) > self.slots.len() {
            let size = (2 * (self.len + 1)).max(2 * expected).next_power_of_two();
            let old = std::mem::replace(&mut self.slots, vec![EMPTY; size]);
            self.len = 0;
            for j in old.into_iter().filter(|j| *j != EMPTY) {
                self.place(ops, j as usize);
            }
        }
        self.place(ops, i);
    }

    fn place(&mut self, ops: &[Op], i: usize) {
        let op = &ops[i];
        let mask = self.slots.len() - 1;
        let mut at = memo_hash(canonical(op.opcode, &op.args), &op.args, op.descr) as usize & mask;
        while self.slots[at] != EMPTY {
            at = (at + 1) & mask;
        }
        self.slots[at] = i as u32;
        self.len += 1;
    }

    fn clear(&mut self) {
        self.slots.clear();
        self.len = 0;
    }
}

/// The `pure` optimization.
#[derive(Clone, Default)]
pub struct OptPure {
    memo: Memo,
    /// The output index of the overflow-checking operation just emitted:
    /// remembered once its `guard_no_overflow` passes (before that, its
    /// result is not a value another one may reuse).
    unguarded_ovf: Option<usize>,
    /// The operand pairs ([`operand_pair`]) of the comparisons a guard
    /// decided: only their other comparisons are worth looking up.
    guarded_pairs: super::WordSet<[Value; 2]>,
    /// The guard that comes with the operation just replaced by an earlier
    /// one (`guard_no_overflow` of an overflow-checking one, which the
    /// earlier one passed; `guard_no_exception` of a `call_pure`): it goes.
    drop_guard: Option<&'static str>,
}

impl OptPure {
    /// After `guard_true(v)` (`truth`) or `guard_false(v)`: `v` is 0, or
    /// 1 when a comparison defines it, from here on; the comparison and
    /// its negation then fold when met again.
    fn learn_from_guard(&mut self, v: Value, truth: bool, sh: &mut Shared) {
        let Value::Box(b) = v else { return };
        let comparison = sh.def_of(v).and_then(|def| {
            RELATED.comparison[def.opcode as usize].then(|| operand_pair(&def.args))
        });
        if let Some(Some(pair)) = comparison {
            self.guarded_pairs.insert(pair);
        }
        let comparison = comparison.is_some();
        match (truth, comparison) {
            (false, _) => sh.make_equal(b, Value::Int(0)),
            (true, true) => sh.make_equal(b, Value::Int(1)),
            (true, false) => {}
        }
    }

    /// The value `code(args)` has, from an operation seen before: its
    /// result, or for a negated comparison whose value a guard fixed, the
    /// opposite constant, or what guarded comparisons of the same operands
    /// decide (constants preferred: they fold further); of a plain
    /// operation, the result of its checked twin that passed its guard.
    fn recall(
        &self,
        sh: &Shared,
        code: Opcode,
        args: &[Value],
        descr: Option<usize>,
    ) -> Option<Value> {
        let ops = &sh.trace.ops;
        let seen = |code: Opcode| {
            let i = self.memo.find(ops, code, args, descr)?;
            Some(sh.resolve(Value::Box(ops[i].result?)))
        };
        let same = seen(code);
        if let Some(Value::Int(_)) = same {
            return same;
        }
        if let Some(Value::Int(c)) = RELATED.negated[code as usize].and_then(seen) {
            return Some(Value::Int((c == 0) as i64));
        }
        self.decided_by_comparisons(sh, code, args, descr)
            .or(same)
            .or_else(|| {
                // the memo holds checked operations only once they passed
                let twin =
                    RELATED.checked_twin[code as usize].filter(|_| sh.any_passed_overflow_check());
                twin.and_then(seen)
            })
    }

    /// The value of the comparison `code(a, b)` that the guards on other
    /// comparisons of `a` and `b` in the same order decide: after
    /// `guard_true(a < b)`, `a <= b` and `a != b` are 1, `a == b` is 0;
    /// after an access to item `a` of an array of length `b`, `a < b`.
    fn decided_by_comparisons(
        &self,
        sh: &Shared,
        code: Opcode,
        args: &[Value],
        descr: Option<usize>,
    ) -> Option<Value> {
        let (wanted, orders) = RELATED.outcomes[code as usize]?;
        let ops = &sh.trace.ops;
        // an index in bounds is below the length in both orders (it is not
        // negative)
        let (a, b) = (args[0], args[1]);
        let by_bounds = if sh.in_bounds(a, b) {
            LESS
        } else if sh.in_bounds(b, a) {
            GREATER
        } else {
            LESS | EQUAL | GREATER
        };
        let guarded = operand_pair(args).is_some_and(|pair| self.guarded_pairs.contains(&pair));
        if by_bounds == LESS | EQUAL | GREATER && !guarded {
            return None;
        }
        // of two non-negative words the signed and the unsigned orders are
        // one: the facts of either decide both
        let one_order = sh.bound(a).known_nonneg() && sh.bound(b).known_nonneg();
        let orders = if one_order { 3 } else { orders };
        let mut possible = [by_bounds; 2];
        let family = [&RELATED.signed_order, &RELATED.unsigned_order];
        for (k, order) in family.into_iter().enumerate() {
            if orders & (1 << k) == 0 {
                continue;
            }
            for &other in order {
                let Some(i) = self.memo.find(ops, other, args, descr) else {
                    continue;
                };
                let Some(Value::Int(c)) = ops[i].result.map(|r| sh.resolve(Value::Box(r))) else {
                    continue;
                };
                let (true_for, _) = RELATED.outcomes[other as usize]?;
                possible[k] &= if c != 0 { true_for } else { !true_for };
            }
        }
        if one_order {
            possible = [possible[0] & possible[1]; 2];
        }
        for (k, possible) in possible.into_iter().enumerate() {
            if orders & (1 << k) == 0 {
                continue;
            }
            if possible & !wanted == 0 {
                return Some(Value::Int(1));
            }
            if possible & wanted == 0 {
                return Some(Value::Int(0));
            }
        }
        None
    }
}

impl OptPure {
    /// An overflow-checking operation: the result of the same one whose
    /// `guard_no_overflow` passed, or emitted and remembered once its own
    /// guard passes.
    fn overflow_op(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let Some(r) = op.result else {
            return next.emit(op, sh);
        };
        if let Some(v) = fold_call_pure(&op, sh) {
            // computed now, as PyPy takes a pure call's constant result
            sh.make_equal(r, v);
            self.drop_guard = Some("guard_no_exception");
            return;
        }
        if let Some(v) = self.recall(sh, op.opcode, &op.args, op.descr) {
            sh.make_equal(r, v);
            self.drop_guard = Some("guard_no_overflow");
            return;
        }
        next.emit(op, sh);
        if sh.trace.ops.last().is_some_and(|o| o.result == Some(r)) {
            self.unguarded_ovf = Some(sh.trace.ops.len() - 1);
        }
    }
}

impl Optimization for OptPure {
    fn name(&self) -> &'static str {
        "pure"
    }

    fn fork(&self, _: &mut super::Forks) -> Box<dyn Optimization> {
        Box::new(self.clone())
    }

    fn propagate(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let info = op.info();
        let drop_guard = self.drop_guard.take();
        let unguarded_ovf = self.unguarded_ovf.take();
        match op.opcode {
            Opcode::IntAddOvf | Opcode::IntSubOvf | Opcode::IntMulOvf => {
                return self.overflow_op(op, sh, next)
            }
            Opcode::GuardNoOverflow | Opcode::GuardNoException if drop_guard == Some(op.name()) => {
                return
            }
            Opcode::GuardOverflow if drop_guard == Some("guard_no_overflow") => {
                // the earlier operation did not overflow: neither does this
                // one, and the guard always fails (as intbounds says it)
                let fails = Op {
                    opcode: opcode("guard_true").unwrap_or(op.opcode),
                    args: vec![Value::Int(0)],
                    ..op
                };
                return next.emit(fails, sh);
            }
            Opcode::GuardNoOverflow => {
                next.emit(op, sh);
                if let Some(at) = unguarded_ovf {
                    self.memo.insert(&sh.trace.ops, at, sh.input_boxes());
                }
                return;
            }
            _ => {}
        }
        if op.opcode == Opcode::Label {
            self.memo.clear();
            self.guarded_pairs.clear();
            next.emit(op, sh);
            return;
        }
        if matches!(op.name(), "guard_true" | "guard_false") {
            let (v, truth) = (op.args[0], op.opcode == Opcode::GuardTrue);
            if let Value::Int(c) = v {
                if (c != 0) == truth {
                    return; // a guard on a constant that holds
                }
            }
            next.emit(op, sh);
            self.learn_from_guard(v, truth, sh);
            return;
        }
        let Some(r) = op.result else {
            next.emit(op, sh);
            return;
        };
        if !info.pure {
            next.emit(op, sh);
            return;
        }
        if op.opcode.is_same_as() {
            sh.make_equal(r, op.args[0]);
            return;
        }
        let all_consts = op.args.iter().all(|a| matches!(a, Value::Int(_)));
        let folded = if all_consts {
            let consts: Vec<i64> = op
                .args
                .iter()
                .map(|a| match a {
                    Value::Int(c) => *c,
                    _ => 0,
                })
                .collect();
            fold_int(op.opcode, &consts)
        } else {
            None
        };
        let folded = folded.or_else(|| fold_ptr_self(op.opcode, &op.args));
        if let Some(c) = folded {
            sh.make_equal(r, Value::Int(c));
            return;
        }
        if let Some(v) = fold_call_pure(&op, sh) {
            // computed now, as PyPy takes a pure call's constant result
            sh.make_equal(r, v);
            self.drop_guard = Some("guard_no_exception");
            return;
        }
        if let Some(v) = self.recall(sh, op.opcode, &op.args, op.descr) {
            sh.make_equal(r, v);
            if op.opcode.is_pure_call() {
                self.drop_guard = Some("guard_no_exception");
            }
            return;
        }
        next.emit(op, sh);
        // remembered where it reached the output unchanged (a later
        // optimization may have replaced it)
        let at = sh.trace.ops.len().wrapping_sub(1);
        if sh.trace.ops.last().is_some_and(|o| o.result == Some(r)) {
            self.memo.insert(&sh.trace.ops, at, sh.input_boxes());
        }
    }
}

/// The result of `call_pure_i`/`call_pure_f` of constant arguments, when
/// the function is a registry function of numbers (it touches no memory):
/// called here, once.
fn fold_call_pure(op: &Op, sh: &Shared) -> Option<Value> {
    let name = op.opcode;
    if name != Opcode::CallPureI && name != Opcode::CallPureF {
        return None;
    }
    let crate::trace::DescrData::Call { func } = &sh.trace.header.descrs[op.descr?].data else {
        return None;
    };
    if func.with_heap.is_some() || func.args.len() != op.args.len() {
        return None;
    }
    let mut args = Vec::with_capacity(op.args.len());
    for (a, kind) in op.args.iter().zip(func.args) {
        args.push(match (sh.resolve(*a), kind) {
            (Value::Int(c), crate::trace::Kind::Int) => c as u64,
            (Value::Float(bits), crate::trace::Kind::Float) => bits,
            _ => return None,
        });
    }
    let bits = crate::calls::call(func, &mut crate::interp::Heap::default(), &args)?;
    match func.result {
        crate::trace::Kind::Int => Some(Value::Int(bits as i64)),
        crate::trace::Kind::Float => Some(Value::Float(bits)),
        _ => None,
    }
}

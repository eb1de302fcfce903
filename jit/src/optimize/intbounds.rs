//! `intbounds`: what is known of each integer (a signed range and known
//! bits), computed forward through the operations and refined by guards.
//! A pure operation whose bound is one value becomes that constant; a
//! comparison the bounds decide is folded; a guard the bounds prove is
//! removed; an overflow-checking operation that cannot overflow becomes the
//! plain one, and its `guard_no_overflow` goes. The domain and its
//! transfer functions are `rpy_ir::intbound`, shared with the e-graph.

use crate::trace::{DescrData, Kind, Op, Opcode, Value};
pub use rpy_ir::intbound::{transfer, IntBound};
use rpy_ir::lltype::LowLevelType;

use super::{Next, Optimization, Shared};

/// The bound of a value read from memory of type `t`.
fn lltype_bound(t: &LowLevelType) -> Option<IntBound> {
    match t {
        LowLevelType::Bool => Some(IntBound::boolean()),
        LowLevelType::Char => Some(IntBound::range(0, 255)),
        _ => None,
    }
}

/// The relation a signed or unsigned integer comparison tests (`lt`...).
fn relation(op: Opcode) -> &'static str {
    use Opcode::*;
    match op {
        IntLt | UintLt => "lt",
        IntLe | UintLe => "le",
        IntGt | UintGt => "gt",
        IntGe | UintGe => "ge",
        IntEq => "eq",
        _ => "ne",
    }
}

/// Learns what `truth` of the comparison defining a guarded value says.
fn refine_from_def(sh: &mut Shared, def: &Op, truth: bool) {
    let name = def.opcode;
    let args = def.args.clone();
    let (mut rel, x, y) = match (name, args.as_slice()) {
        (Opcode::IntIsTrue, &[x]) => ("ne", x, Value::Int(0)),
        (Opcode::IntIsZero, &[x]) => ("eq", x, Value::Int(0)),
        (n, &[x, y])
            if matches!(
                n,
                Opcode::IntLt
                    | Opcode::IntLe
                    | Opcode::IntGt
                    | Opcode::IntGe
                    | Opcode::IntEq
                    | Opcode::IntNe
            ) =>
        {
            (relation(n), x, y)
        }
        (n, &[x, y])
            if matches!(
                n,
                Opcode::UintLt | Opcode::UintLe | Opcode::UintGt | Opcode::UintGe
            ) =>
        {
            return refine_unsigned(sh, relation(n), x, y, truth);
        }
        _ => return,
    };
    if !truth {
        rel = match rel {
            "lt" => "ge",
            "le" => "gt",
            "gt" => "le",
            "ge" => "lt",
            "eq" => "ne",
            _ => "eq",
        };
    }
    let (rel, x, y) = match rel {
        "gt" => ("lt", y, x),
        "ge" => ("le", y, x),
        r => (r, x, y),
    };
    let (bx, by) = (sh.bound(x), sh.bound(y));
    match rel {
        "lt" => {
            if by.hi != i64::MIN {
                narrow(sh, x, IntBound::range(i64::MIN, by.hi - 1));
            }
            if bx.lo != i64::MAX {
                narrow(sh, y, IntBound::range(bx.lo + 1, i64::MAX));
            }
        }
        "le" => {
            narrow(sh, x, IntBound::range(i64::MIN, by.hi));
            narrow(sh, y, IntBound::range(bx.lo, i64::MAX));
        }
        "eq" => {
            narrow(sh, x, by);
            narrow(sh, y, bx);
            // one value from here on: what is learnt of either later (a
            // guard on one of them) is known of both. The one defined first
            // stays (the other's definition may use it: replacing it would
            // make that definition its own operand)
            if let (Value::Box(a), Value::Box(b)) = (sh.resolve(x), sh.resolve(y)) {
                if sh.kind(Value::Box(a)) == Kind::Int && sh.kind(Value::Box(b)) == Kind::Int {
                    let (keep, replace) = if sh.def_index(a) <= sh.def_index(b) {
                        (a, b)
                    } else {
                        (b, a)
                    };
                    sh.make_equal(replace, Value::Box(keep));
                }
            }
        }
        _ => {
            for (a, b) in [(x, by), (y, bx)] {
                if let Some(c) = b.get_constant() {
                    let ba = sh.bound(a);
                    if ba.lo == c && c != i64::MAX {
                        narrow(sh, a, IntBound::range(c + 1, i64::MAX));
                    } else if ba.hi == c && c != i64::MIN {
                        narrow(sh, a, IntBound::range(i64::MIN, c - 1));
                    }
                }
            }
        }
    }
}

/// Learns what `truth` of the unsigned comparison `x rel y` says. Only a
/// non-negative bound says anything in signed terms: `x <u y` with `y`
/// non-negative puts `x` in `0..y`, and then `y` above `x`'s least value.
fn refine_unsigned(sh: &mut Shared, rel: &str, x: Value, y: Value, truth: bool) {
    // as `x < y` or `x <= y`: the negation swaps the sides
    let (strict, x, y) = match (rel, truth) {
        ("lt", true) | ("ge", false) => (true, x, y),
        ("le", true) | ("gt", false) => (false, x, y),
        ("gt", true) | ("le", false) => (true, y, x),
        _ => (false, y, x),
    };
    let by = sh.bound(y);
    if by.lo < 0 {
        return;
    }
    let hi = if strict { by.hi - 1 } else { by.hi };
    if hi < 0 {
        return; // x <u 0 never holds: the guard fails, nothing to learn
    }
    narrow(sh, x, IntBound::range(0, hi));
    let lo = sh.bound(x).lo;
    let lo = if strict { lo.saturating_add(1) } else { lo };
    narrow(sh, y, IntBound::range(lo, i64::MAX));
}

/// How many definitions deep a narrowed bound is carried back.
const BACKWARD_DEPTH: u32 = 4;

/// Narrows the bound of `v`; a box whose bound becomes one value is
/// replaced by that constant from here on. What the new bound says of the
/// operands of the operation defining `v` is learnt too (PyPy's backward
/// propagation): when an addition or subtraction cannot have wrapped,
/// `x + y = r` puts `x` in `r - y`; of `x & y`, `x | y` and `x ^ y`, the
/// result's known bits give each operand's where the other's known bits
/// let them through (`x & y == -1` makes both -1, `x | y == 0` both 0);
/// `-x` and `~x` give `x` back by the same operation, `x * C` that did
/// not wrap puts `x` in `r / C`.
fn narrow(sh: &mut Shared, v: Value, b: IntBound) {
    narrow_depth(sh, v, b, BACKWARD_DEPTH);
}

fn narrow_depth(sh: &mut Shared, v: Value, b: IntBound, depth: u32) {
    let v = sh.resolve(v);
    let Value::Box(id) = v else { return };
    if sh.kind(v) != Kind::Int {
        return;
    }
    let old = sh.bound(v);
    if !sh.narrow(v, b) {
        return;
    }
    let new = sh.bound(v);
    // before `v` becomes a constant, while its definition is still found
    if new != old && depth > 0 {
        propagate_backward(sh, v, new, depth - 1);
    }
    if let Some(c) = new.get_constant() {
        sh.make_equal(id, Value::Int(c));
    }
}

/// Narrows the operands of the operation defining `v` from `v`'s bound
/// `r`, for the operations that cannot have wrapped: an overflow-checking
/// one (its result exists only when no overflow happened), or a plain one
/// whose operand bounds rule wrapping out.
fn propagate_backward(sh: &mut Shared, v: Value, r: IntBound, depth: u32) {
    let Some(def) = sh.def_of(v) else { return };
    if let (Opcode::IntNeg | Opcode::IntInvert, &[x]) = (def.opcode, &def.args[..]) {
        // both are their own inverse on words (a bijection, MIN included):
        // x is the same operation of r
        if let Some(b) = transfer(def.opcode.name(), &[r]) {
            narrow_depth(sh, x, b, depth);
        }
        return;
    }
    let (name, &[x, y]) = (def.opcode, &def.args[..]) else {
        return;
    };
    let (bx, by) = (sh.bound(x), sh.bound(y));
    if matches!(name, Opcode::IntAnd | Opcode::IntOr | Opcode::IntXor) {
        // each operand's bits that the result and the other operand's
        // known bits decide (a constant operand knows all of its bits)
        for (target, other) in [(x, by), (y, bx)] {
            if sh.bound(target).get_constant().is_some() {
                continue;
            }
            let (zeros, ones) = bits_of_operand(name, &r, &other);
            if let Some(bits) = IntBound::bits(zeros, ones) {
                narrow_depth(sh, target, bits, depth);
            }
        }
        return;
    }
    let exact = match name {
        // the result of a checked operation whose guard_no_overflow passed
        // (after guard_overflow, it is the wrapped one)
        Opcode::IntAddOvf | Opcode::IntSubOvf | Opcode::IntMulOvf => sh.passed_overflow_check(v),
        Opcode::IntAdd => !bx.add_may_overflow(&by),
        Opcode::IntSub => !bx.sub_may_overflow(&by),
        Opcode::IntMul => !bx.mul_may_overflow(&by),
        _ => false,
    };
    if !exact {
        return;
    }
    if matches!(name, Opcode::IntMul | Opcode::IntMulOvf) {
        // by a constant c: x * c in r puts x in r / c, rounded inwards
        let (target, c) = match (by.get_constant(), bx.get_constant()) {
            (Some(c), None) => (x, c),
            (None, Some(c)) => (y, c),
            _ => return,
        };
        if let Some(b) = divide_range(&r, c) {
            narrow_depth(sh, target, b, depth);
        }
        return;
    }
    // r - y, r + y and x - r cannot wrap in these cases unless bounds are at
    // the word's ends; IntBound::sub/add give unbounded then
    let (for_x, for_y) = if matches!(name, Opcode::IntAdd | Opcode::IntAddOvf) {
        (r.sub(&by), r.sub(&bx))
    } else {
        (r.add(&by), bx.sub(&r))
    };
    narrow_depth(sh, x, for_x, depth);
    narrow_depth(sh, y, for_y, depth);
}

/// The integers `x` with `x * c` (computed exactly) in `r`; `None` for
/// `c == 0` (any `x`, when `r` holds 0).
fn divide_range(r: &IntBound, c: i64) -> Option<IntBound> {
    fn floor_div(a: i128, b: i128) -> i128 {
        let q = a / b;
        if a % b != 0 && ((a < 0) != (b < 0)) {
            q - 1
        } else {
            q
        }
    }
    let ceil_div = |a: i128, b: i128| -floor_div(-a, b);
    if c == 0 {
        return None;
    }
    let (lo, hi, c) = (r.lo as i128, r.hi as i128, c as i128);
    let (lo, hi) = if c > 0 {
        (ceil_div(lo, c), floor_div(hi, c))
    } else {
        (ceil_div(hi, c), floor_div(lo, c))
    };
    let clamp = |v: i128| v.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
    (lo <= hi).then(|| IntBound::range(clamp(lo), clamp(hi)))
}

/// The known (zeros, ones) of an operand of the bitwise `name` whose
/// result has the bits of `r` and whose other operand those of `other`:
/// of `x & o = r`, a one of `r` is a one of `x`, and a zero of `r` where
/// `o` has a one is a zero of `x`; `|` the same with zeros and ones
/// swapped; of `x ^ o = r`, `x`'s bit is known where `r`'s and `o`'s are.
fn bits_of_operand(name: Opcode, r: &IntBound, other: &IntBound) -> (u64, u64) {
    let (rz, ro, oz, oo) = (r.zeros, r.ones, other.zeros, other.ones);
    match name {
        Opcode::IntAnd => (rz & oo, ro),
        Opcode::IntOr => (rz, ro & oz),
        _ => ((rz & oz) | (ro & oo), (ro & oz) | (rz & oo)),
    }
}

/// Every non-negative word.
fn nonneg() -> IntBound {
    IntBound::range(0, i64::MAX)
}

/// Whether `name` accesses an item of a GC array (or string) at its
/// second argument, checked against the bounds.
fn indexes_gc_array(name: Opcode) -> bool {
    matches!(
        name,
        Opcode::GetarrayitemGcI
            | Opcode::GetarrayitemGcF
            | Opcode::GetarrayitemGcR
            | Opcode::SetarrayitemGc
            | Opcode::Strgetitem
            | Opcode::Strsetitem
            | Opcode::Unicodegetitem
            | Opcode::Unicodesetitem
    )
}

/// Every even word.
fn even() -> IntBound {
    IntBound::bits(1, 0).unwrap_or_else(IntBound::unbounded)
}

/// Whether `op` applies to a value twice (`x * x`, `x + x`).
fn is_square(op: &Op, sh: &Shared) -> bool {
    matches!(&op.args[..], [x, y] if sh.resolve(*x) == sh.resolve(*y))
}

/// Whether the one-operand `name` of a value with bound `x` is that value:
/// `int_is_true` of a bool, `int_force_ge_zero` of a non-negative value.
fn is_identity(name: Opcode, x: IntBound) -> bool {
    match name {
        Opcode::IntIsTrue => x.is_bool(),
        Opcode::IntForceGeZero => x.known_nonneg(),
        _ => false,
    }
}

/// The `intbounds` optimization.
#[derive(Clone, Default)]
pub struct OptIntBounds {
    /// The last overflow-checking op was proven not to overflow: its
    /// `guard_no_overflow` goes.
    proven_no_overflow: bool,
    /// The result of the last overflow-checking op kept, and the bound it
    /// has once `guard_no_overflow` passes.
    last_ovf: Option<(Value, IntBound)>,
}

impl Optimization for OptIntBounds {
    fn name(&self) -> &'static str {
        "intbounds"
    }

    fn fork(&self, _: &mut super::Forks) -> Box<dyn Optimization> {
        Box::new(self.clone())
    }

    fn propagate(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let name = op.opcode;
        match name {
            Opcode::IntAddOvf | Opcode::IntSubOvf | Opcode::IntMulOvf => {
                let (a, b) = (sh.bound(op.args[0]), sh.bound(op.args[1]));
                let may = match name {
                    Opcode::IntAddOvf => a.add_may_overflow(&b),
                    // x - x is 0, never an overflow
                    Opcode::IntSubOvf => a.sub_may_overflow(&b) && !is_square(&op, sh),
                    _ => a.mul_may_overflow(&b),
                };
                self.last_ovf = None;
                if may {
                    self.proven_no_overflow = false;
                    if let Some(r) = op.result {
                        let mut result = IntBound::saturating(name.name(), &a, &b);
                        if name == Opcode::IntMulOvf && is_square(&op, sh) {
                            result = result.intersect(&nonneg()).unwrap_or(result);
                        }
                        if name == Opcode::IntAddOvf && is_square(&op, sh) {
                            result = result.intersect(&even()).unwrap_or(result);
                        }
                        self.last_ovf = Some((Value::Box(r), result));
                    }
                    next.emit(op, sh);
                } else {
                    self.proven_no_overflow = true;
                    let plain = name.without_overflow_check().unwrap_or(name);
                    self.propagate(
                        Op {
                            opcode: plain,
                            ..op
                        },
                        sh,
                        next,
                    );
                }
            }
            Opcode::GuardNoOverflow | Opcode::GuardOverflow => {
                let proven = std::mem::take(&mut self.proven_no_overflow);
                let last = self.last_ovf.take();
                if proven {
                    if name == Opcode::GuardOverflow {
                        // always fails: the flag would be stale, say it plainly
                        next.emit(
                            Op {
                                opcode: Opcode::GuardTrue,
                                args: vec![Value::Int(0)],
                                ..op
                            },
                            sh,
                        );
                    }
                    return;
                }
                next.emit(op, sh);
                if let (Some((v, b)), Opcode::GuardNoOverflow) = (last, name) {
                    narrow(sh, v, b);
                }
            }
            Opcode::GuardTrue | Opcode::GuardFalse => {
                let v = op.args[0];
                let b = sh.bound(v);
                let truth = name == Opcode::GuardTrue;
                if (truth && !b.contains(0)) || (!truth && b.get_constant() == Some(0)) {
                    return; // proven
                }
                let def = sh.def_of(v).cloned();
                next.emit(op, sh);
                if truth {
                    if b.is_bool() {
                        narrow(sh, v, IntBound::constant(1));
                    } else if b.lo == 0 {
                        narrow(sh, v, IntBound::range(1, i64::MAX));
                    } else if b.hi == 0 {
                        narrow(sh, v, IntBound::range(i64::MIN, -1));
                    }
                } else {
                    narrow(sh, v, IntBound::constant(0));
                }
                if let Some(def) = def {
                    refine_from_def(sh, &def, truth);
                }
            }
            Opcode::GuardValue if sh.bound(op.args[0]).is_bool() => {
                // of a bool, the guard is a truth test (as PyPy's rewrite
                // turns it): guard_true, which also refines the comparison
                // that made the bool
                let truth = match sh.resolve(op.args[1]) {
                    Value::Int(0) => Opcode::GuardFalse,
                    Value::Int(1) => Opcode::GuardTrue,
                    _ => return next.emit(op, sh),
                };
                let args = vec![op.args[0]];
                self.propagate(
                    Op {
                        opcode: truth,
                        args,
                        ..op
                    },
                    sh,
                    next,
                );
            }
            Opcode::GuardValue => {
                let (v, c) = (op.args[0], op.args[1]);
                if sh.resolve(v) == sh.resolve(c) {
                    return;
                }
                if let (Some(x), Some(y)) = (sh.bound(v).get_constant(), sh.bound(c).get_constant())
                {
                    if sh.kind(v) == Kind::Int && x == y {
                        return;
                    }
                }
                next.emit(op, sh);
                if let Value::Box(b) = sh.resolve(v) {
                    if sh.resolve(c).is_const() {
                        sh.make_equal(b, c);
                    }
                }
            }
            _ => {
                // integer operations take at most two arguments (calls more)
                let mut two = [IntBound::unbounded(); 2];
                let bounds: Vec<IntBound>;
                let bounds: &[IntBound] = if op.args.len() <= 2 {
                    for (b, a) in two.iter_mut().zip(&op.args) {
                        *b = sh.bound(*a);
                    }
                    &two[..op.args.len()]
                } else {
                    bounds = op.args.iter().map(|a| sh.bound(*a)).collect();
                    &bounds
                };
                let mut rb = transfer(name.name(), bounds);
                if let Some(d) = op.descr {
                    // a string operation reads its implied array
                    let name = crate::trace::array_equivalent(name).unwrap_or(name);
                    let t = match &sh.trace.header.descrs[d].data {
                        DescrData::Field { ty, .. } if name.is_load() => lltype_bound(ty),
                        DescrData::Array { item, .. } if name.is_load() => lltype_bound(item),
                        DescrData::Array { .. } if name == Opcode::ArraylenGc => {
                            Some(IntBound::range(0, i64::MAX))
                        }
                        _ => None,
                    };
                    rb = rb.or(t);
                }
                if let (Some(r), [x]) = (op.result, &op.args[..]) {
                    if is_identity(name, sh.bound(*x)) {
                        return sh.make_equal(r, *x);
                    }
                }
                if name == Opcode::IntAdd && is_square(&op, sh) {
                    // x + x is even, wrapped or not
                    rb = rb.and_then(|r| r.intersect(&even()));
                }
                if name == Opcode::IntMul && is_square(&op, sh) {
                    let (a, b) = (sh.bound(op.args[0]), sh.bound(op.args[1]));
                    if !a.mul_may_overflow(&b) {
                        rb = rb.and_then(|r| r.intersect(&nonneg()));
                    }
                }
                if let (Some(r), Some(b)) = (op.result, rb) {
                    if sh.kind(Value::Box(r)) == Kind::Int {
                        if let (true, Some(c)) = (op.info().pure, b.get_constant()) {
                            sh.make_equal(r, Value::Int(c));
                            return;
                        }
                        sh.narrow(Value::Box(r), b);
                    }
                }
                let index = indexes_gc_array(name).then(|| op.args[1]);
                next.emit(op, sh);
                if let Some(i) = index {
                    // an access out of bounds is undefined: one that
                    // happened had an index of at least 0
                    narrow(sh, i, nonneg());
                }
            }
        }
    }
}

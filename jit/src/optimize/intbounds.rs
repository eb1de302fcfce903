//! `intbounds`: what is known of each integer (a signed range and known
//! bits), computed forward through the operations and refined by guards.
//! A pure operation whose bound is one value becomes that constant; a
//! comparison the bounds decide is folded; a guard the bounds prove is
//! removed; an overflow-checking operation that cannot overflow becomes the
//! plain one, and its `guard_no_overflow` goes.

use crate::trace::{opc, DescrData, Kind, Op, Value};
use rpy_ir::lltype::LowLevelType;

use super::{Next, Optimization, Shared};

const SIGN: u64 = 1 << 63;

/// The `n` low bits set.
fn low_mask(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// A signed range `lo..=hi` and the bits known to be 0 (`zeros`) and 1
/// (`ones`). Kept normalized: the range and the bits agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntBound {
    pub lo: i64,
    pub hi: i64,
    pub zeros: u64,
    pub ones: u64,
}

impl IntBound {
    pub fn unbounded() -> IntBound {
        IntBound {
            lo: i64::MIN,
            hi: i64::MAX,
            zeros: 0,
            ones: 0,
        }
    }

    pub fn constant(c: i64) -> IntBound {
        IntBound {
            lo: c,
            hi: c,
            zeros: !(c as u64),
            ones: c as u64,
        }
    }

    /// `lo..=hi` (unbounded when empty: callers pass sound ranges).
    pub fn range(lo: i64, hi: i64) -> IntBound {
        IntBound {
            lo,
            hi,
            zeros: 0,
            ones: 0,
        }
        .normalize()
        .unwrap_or_else(IntBound::unbounded)
    }

    pub fn boolean() -> IntBound {
        IntBound::range(0, 1)
    }

    pub fn bits(zeros: u64, ones: u64) -> Option<IntBound> {
        IntBound {
            lo: i64::MIN,
            hi: i64::MAX,
            zeros,
            ones,
        }
        .normalize()
    }

    pub fn get_constant(&self) -> Option<i64> {
        (self.lo == self.hi).then_some(self.lo)
    }

    pub fn contains(&self, v: i64) -> bool {
        self.lo <= v && v <= self.hi && (v as u64) & self.zeros == 0 && !(v as u64) & self.ones == 0
    }

    pub fn known_nonneg(&self) -> bool {
        self.lo >= 0
    }

    pub fn is_bool(&self) -> bool {
        self.lo >= 0 && self.hi <= 1
    }

    /// Makes range and bits agree; `None` when no value fits.
    pub fn normalize(self) -> Option<IntBound> {
        let mut b = self;
        for _ in 0..3 {
            if b.zeros & b.ones != 0 || b.lo > b.hi {
                return None;
            }
            let before = b;
            // bits -> range
            let unknown = !(b.zeros | b.ones);
            let (min, max) = if unknown & SIGN != 0 {
                ((b.ones | SIGN) as i64, ((b.ones | unknown) & !SIGN) as i64)
            } else {
                (b.ones as i64, (b.ones | unknown) as i64)
            };
            b.lo = b.lo.max(min);
            b.hi = b.hi.min(max);
            if b.lo > b.hi {
                return None;
            }
            // range -> bits: the common prefix of lo and hi
            let diff = (b.lo ^ b.hi) as u64;
            let mask = if diff == 0 {
                u64::MAX
            } else {
                !(u64::MAX >> diff.leading_zeros())
            };
            b.ones |= (b.lo as u64) & mask;
            b.zeros |= !(b.lo as u64) & mask;
            // a round that changed nothing is a fixpoint: the rounds left
            // would change nothing either
            if b == before {
                break;
            }
        }
        if b.zeros & b.ones != 0 || b.lo > b.hi {
            return None;
        }
        Some(b)
    }

    /// The values both allow; `None` when none.
    pub fn intersect(&self, o: &IntBound) -> Option<IntBound> {
        IntBound {
            lo: self.lo.max(o.lo),
            hi: self.hi.min(o.hi),
            zeros: self.zeros | o.zeros,
            ones: self.ones | o.ones,
        }
        .normalize()
    }

    /// The low bits of a sum/difference/product known from the low bits
    /// known of both operands.
    fn low_bits(a: &IntBound, b: &IntBound, f: fn(u64, u64) -> u64) -> (u64, u64) {
        let known = (a.zeros | a.ones) & (b.zeros | b.ones);
        let k = known.trailing_ones();
        if k == 0 {
            return (0, 0);
        }
        let mask = if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
        let v = f(a.ones, b.ones);
        (!v & mask, v & mask)
    }

    fn with_bits(self, (zeros, ones): (u64, u64)) -> IntBound {
        IntBound {
            zeros: self.zeros | zeros,
            ones: self.ones | ones,
            ..self
        }
        .normalize()
        .unwrap_or(self)
    }

    pub fn add(&self, o: &IntBound) -> IntBound {
        let r = match (self.lo.checked_add(o.lo), self.hi.checked_add(o.hi)) {
            (Some(lo), Some(hi)) => IntBound::range(lo, hi),
            _ => IntBound::unbounded(),
        };
        let tz = self.trailing_zeros().min(o.trailing_zeros());
        r.with_bits(Self::low_bits(self, o, u64::wrapping_add))
            .with_bits((low_mask(tz), 0))
    }

    pub fn sub(&self, o: &IntBound) -> IntBound {
        let r = match (self.lo.checked_sub(o.hi), self.hi.checked_sub(o.lo)) {
            (Some(lo), Some(hi)) => IntBound::range(lo, hi),
            _ => IntBound::unbounded(),
        };
        let tz = self.trailing_zeros().min(o.trailing_zeros());
        r.with_bits(Self::low_bits(self, o, u64::wrapping_sub))
            .with_bits((low_mask(tz), 0))
    }

    pub fn mul(&self, o: &IntBound) -> IntBound {
        let c = [
            self.lo.checked_mul(o.lo),
            self.lo.checked_mul(o.hi),
            self.hi.checked_mul(o.lo),
            self.hi.checked_mul(o.hi),
        ];
        let r = if c.iter().all(Option::is_some) {
            let c: Vec<i64> = c.iter().flatten().copied().collect();
            IntBound::range(
                *c.iter().min().unwrap_or(&i64::MIN),
                *c.iter().max().unwrap_or(&i64::MAX),
            )
        } else {
            IntBound::unbounded()
        };
        let tz = (self.trailing_zeros() + o.trailing_zeros()).min(64);
        r.with_bits(Self::low_bits(self, o, u64::wrapping_mul))
            .with_bits((low_mask(tz), 0))
    }

    /// How many low bits are known to be 0.
    pub fn trailing_zeros(&self) -> u32 {
        self.zeros.trailing_ones()
    }

    /// Whether `x op y` can overflow for some values in the bounds.
    pub fn add_may_overflow(&self, o: &IntBound) -> bool {
        self.lo.checked_add(o.lo).is_none() || self.hi.checked_add(o.hi).is_none()
    }

    pub fn sub_may_overflow(&self, o: &IntBound) -> bool {
        self.lo.checked_sub(o.hi).is_none() || self.hi.checked_sub(o.lo).is_none()
    }

    pub fn mul_may_overflow(&self, o: &IntBound) -> bool {
        [
            self.lo.checked_mul(o.lo),
            self.lo.checked_mul(o.hi),
            self.hi.checked_mul(o.lo),
            self.hi.checked_mul(o.hi),
        ]
        .iter()
        .any(Option::is_none)
    }

    /// The range of the mathematical result, clipped to a word: what the
    /// result of an overflow-checking op is once `guard_no_overflow` passed.
    fn saturating(name: &str, a: &IntBound, b: &IntBound) -> IntBound {
        match name {
            "int_add_ovf" => IntBound::range(a.lo.saturating_add(b.lo), a.hi.saturating_add(b.hi)),
            "int_sub_ovf" => IntBound::range(a.lo.saturating_sub(b.hi), a.hi.saturating_sub(b.lo)),
            _ => {
                let c = [
                    a.lo.saturating_mul(b.lo),
                    a.lo.saturating_mul(b.hi),
                    a.hi.saturating_mul(b.lo),
                    a.hi.saturating_mul(b.hi),
                ];
                IntBound::range(
                    *c.iter().min().unwrap_or(&i64::MIN),
                    *c.iter().max().unwrap_or(&i64::MAX),
                )
            }
        }
    }
}

/// The bound of the result of integer operation `name`; `None` when
/// nothing is known.
pub fn transfer(name: &str, a: &[IntBound]) -> Option<IntBound> {
    let x = a.first().copied().unwrap_or_else(IntBound::unbounded);
    let y = a.get(1).copied().unwrap_or_else(IntBound::unbounded);
    let yc = y.get_constant();
    let decide = |t: bool, f: bool| {
        Some(if t {
            IntBound::constant(1)
        } else if f {
            IntBound::constant(0)
        } else {
            IntBound::boolean()
        })
    };
    let disjoint = x.hi < y.lo || y.hi < x.lo || (x.ones & y.zeros) | (x.zeros & y.ones) != 0;
    let same = x.get_constant().is_some() && x.get_constant() == yc;
    Some(match name {
        "int_add" => x.add(&y),
        "int_sub" => x.sub(&y),
        "int_mul" => x.mul(&y),
        "int_neg" if x.lo != i64::MIN => IntBound::range(-x.hi, -x.lo),
        "int_invert" => IntBound {
            lo: !x.hi,
            hi: !x.lo,
            zeros: x.ones,
            ones: x.zeros,
        },
        "int_abs" if x.lo >= 0 => x,
        "int_abs" if x.lo != i64::MIN && x.hi <= 0 => IntBound::range(-x.hi, -x.lo),
        "int_abs" if x.lo != i64::MIN => IntBound::range(0, (-x.lo).max(x.hi)),
        "int_and" => {
            let r = if x.lo >= 0 && y.lo >= 0 {
                IntBound::range(0, x.hi.min(y.hi))
            } else if x.lo >= 0 {
                IntBound::range(0, x.hi)
            } else if y.lo >= 0 {
                IntBound::range(0, y.hi)
            } else {
                IntBound::unbounded()
            };
            r.with_bits((x.zeros | y.zeros, x.ones & y.ones))
        }
        "int_or" => IntBound::bits(x.zeros & y.zeros, x.ones | y.ones)?,
        "int_xor" => IntBound::bits(
            (x.zeros & y.zeros) | (x.ones & y.ones),
            (x.ones & y.zeros) | (x.zeros & y.ones),
        )?,
        "int_lshift" => {
            let c = yc.filter(|c| (0..64).contains(c))?;
            let r = match (x.lo.checked_shl(c as u32), x.hi.checked_shl(c as u32)) {
                (Some(lo), Some(hi)) if lo >> c == x.lo && hi >> c == x.hi => {
                    IntBound::range(lo, hi)
                }
                _ => IntBound::unbounded(),
            };
            r.with_bits(((x.zeros << c) | ((1u64 << c) - 1), x.ones << c))
        }
        "int_rshift" => match yc.filter(|c| (0..64).contains(c)) {
            Some(c) => IntBound::range(x.lo >> c, x.hi >> c).with_bits((
                ((x.zeros as i64) >> c) as u64,
                ((x.ones as i64) >> c) as u64,
            )),
            None if x.lo >= 0 => IntBound::range(0, x.hi),
            None => return None,
        },
        "uint_rshift" => {
            let c = yc.filter(|c| (1..64).contains(c))?;
            let r = if x.lo >= 0 {
                IntBound::range(x.lo >> c, x.hi >> c)
            } else {
                IntBound::range(0, (u64::MAX >> c) as i64)
            };
            r.with_bits(((x.zeros >> c) | !(u64::MAX >> c), x.ones >> c))
        }
        "int_floordiv" => match yc {
            Some(c) if c > 0 => IntBound::range(x.lo / c, x.hi / c),
            _ => return None,
        },
        "int_py_div" => match yc {
            Some(c) if c > 0 => IntBound::range(x.lo.div_euclid(c), x.hi.div_euclid(c)),
            _ => return None,
        },
        "int_mod" => match yc {
            Some(c) if c != 0 && c != i64::MIN => {
                let m = c.abs() - 1;
                if x.lo >= 0 {
                    IntBound::range(0, m.min(x.hi))
                } else {
                    IntBound::range(-m, m)
                }
            }
            _ => return None,
        },
        "int_py_mod" => match yc {
            Some(c) if c > 0 => IntBound::range(0, c - 1),
            _ => return None,
        },
        "int_force_ge_zero" => IntBound::range(x.lo.max(0), x.hi.max(0)),
        "int_lt" => decide(x.hi < y.lo, x.lo >= y.hi)?,
        "int_le" => decide(x.hi <= y.lo, x.lo > y.hi)?,
        "int_gt" => decide(x.lo > y.hi, x.hi <= y.lo)?,
        "int_ge" => decide(x.lo >= y.hi, x.hi < y.lo)?,
        "int_eq" => decide(same, disjoint)?,
        "int_ne" => decide(disjoint, same)?,
        "uint_lt" | "uint_le" | "uint_gt" | "uint_ge" if x.lo >= 0 && y.lo >= 0 => {
            return transfer(&name[1..], a)
        }
        "int_is_true" => decide(!x.contains(0), x.get_constant() == Some(0))?,
        "int_is_zero" => decide(x.get_constant() == Some(0), !x.contains(0))?,
        n if n.starts_with("uint_") && n != "uint_rshift" => IntBound::boolean(),
        n if n.starts_with("float_") || n.starts_with("ptr_") || n.starts_with("instance_ptr_") => {
            IntBound::boolean()
        }
        "same_as_i" => x,
        _ => return None,
    })
}

/// The bound of a value read from memory of type `t`.
fn lltype_bound(t: &LowLevelType) -> Option<IntBound> {
    match t {
        LowLevelType::Bool => Some(IntBound::boolean()),
        LowLevelType::Char => Some(IntBound::range(0, 255)),
        _ => None,
    }
}

/// Learns what `truth` of the comparison defining a guarded value says.
fn refine_from_def(sh: &mut Shared, def: &Op, truth: bool) {
    let name = def.name();
    let args = def.args.clone();
    let (mut rel, x, y) = match (name, args.as_slice()) {
        ("int_is_true", &[x]) => ("ne", x, Value::Int(0)),
        ("int_is_zero", &[x]) => ("eq", x, Value::Int(0)),
        (n, &[x, y])
            if matches!(
                n,
                "int_lt" | "int_le" | "int_gt" | "int_ge" | "int_eq" | "int_ne"
            ) =>
        {
            (&n[4..], x, y)
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

/// Narrows the bound of `v`; a box whose bound becomes one value is
/// replaced by that constant from here on.
fn narrow(sh: &mut Shared, v: Value, b: IntBound) {
    let v = sh.resolve(v);
    if let Value::Box(id) = v {
        if sh.kind(v) == Kind::Int && sh.narrow(v, b) {
            if let Some(c) = sh.bound(v).get_constant() {
                sh.make_equal(id, Value::Int(c));
            }
        }
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
        let name = op.name();
        match name {
            "int_add_ovf" | "int_sub_ovf" | "int_mul_ovf" => {
                let (a, b) = (sh.bound(op.args[0]), sh.bound(op.args[1]));
                let may = match name {
                    "int_add_ovf" => a.add_may_overflow(&b),
                    "int_sub_ovf" => a.sub_may_overflow(&b),
                    _ => a.mul_may_overflow(&b),
                };
                self.last_ovf = None;
                if may {
                    self.proven_no_overflow = false;
                    if let Some(r) = op.result {
                        self.last_ovf = Some((Value::Box(r), IntBound::saturating(name, &a, &b)));
                    }
                    next.emit(op, sh);
                } else {
                    self.proven_no_overflow = true;
                    let plain = opc(&name[..name.len() - 4]);
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
            "guard_no_overflow" | "guard_overflow" => {
                let proven = std::mem::take(&mut self.proven_no_overflow);
                let last = self.last_ovf.take();
                if proven {
                    if name == "guard_overflow" {
                        // always fails: the flag would be stale, say it plainly
                        next.emit(
                            Op {
                                opcode: opc("guard_true"),
                                args: vec![Value::Int(0)],
                                ..op
                            },
                            sh,
                        );
                    }
                    return;
                }
                next.emit(op, sh);
                if let (Some((v, b)), "guard_no_overflow") = (last, name) {
                    narrow(sh, v, b);
                }
            }
            "guard_true" | "guard_false" => {
                let v = op.args[0];
                let b = sh.bound(v);
                let truth = name == "guard_true";
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
            "guard_value" => {
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
                let mut rb = transfer(name, bounds);
                if let Some(d) = op.descr {
                    let t = match &sh.trace.header.descrs[d].data {
                        DescrData::Field { ty, .. } if name.starts_with("getfield") => {
                            lltype_bound(ty)
                        }
                        DescrData::Array { item, .. } if name.starts_with("getarrayitem") => {
                            lltype_bound(item)
                        }
                        DescrData::Array { .. } if name == "arraylen_gc" => {
                            Some(IntBound::range(0, i64::MAX))
                        }
                        _ => None,
                    };
                    rb = rb.or(t);
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
                next.emit(op, sh);
            }
        }
    }
}

//! What is known of an integer without knowing its value: a signed range
//! `lo..=hi` and the bits known to be 0 and 1, and the transfer function of
//! every integer operation. One domain for both optimizers that reason about
//! integers: the translation-time e-graph (`passes::backendopt`) and the
//! trace optimizer's `intbounds` (`jit`).
//!
//! [`transfer`] is sound: when an operation is defined (as
//! [`crate::llops::eval_int`] says) on arguments within their bounds, its
//! value is within the result's bound. Where it is undefined, the bound says
//! nothing (no value is produced). `passes/tests/backendopt.rs` checks this
//! on random bounds.

use crate::llops::eval_int;
use crate::opcode::Opcode;

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

    /// Every value is `>= c` (the facts rules may check).
    pub fn known_ge_const(&self, c: i64) -> bool {
        self.lo >= c
    }

    pub fn known_gt_const(&self, c: i64) -> bool {
        self.lo > c
    }

    pub fn known_le_const(&self, c: i64) -> bool {
        self.hi <= c
    }

    pub fn known_lt_const(&self, c: i64) -> bool {
        self.hi < c
    }

    /// Every bit of `mask` is 0 in every value.
    pub fn known_bits_zero(&self, mask: i64) -> bool {
        (mask as u64) & !self.zeros == 0
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
    pub fn saturating(name: &str, a: &IntBound, b: &IntBound) -> IntBound {
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

/// The bound of the result of integer operation `name` (an `llops` name,
/// or a trace's: `int_is_zero`, `int_force_ge_zero`, `same_as_i`, the
/// unsigned comparisons); `None` when nothing is known. By name, not by
/// `Opcode`, because the trace optimizer's operations (another table, in
/// `rpy-jit`) share it with the graphs' e-graph.
pub fn transfer(name: &str, a: &[IntBound]) -> Option<IntBound> {
    // every argument known: the value itself (without allocating: this
    // runs for every integer operation of every trace)
    let mut consts = [0i64; 3];
    let known = a.len() <= consts.len()
        && a.iter()
            .zip(consts.iter_mut())
            .all(|(b, c)| b.get_constant().map(|v| *c = v).is_some());
    let folded = known
        .then(|| Opcode::from_name(name).and_then(|op| eval_int(op, &consts[..a.len()])))
        .flatten();
    if let Some(v) = folded {
        return Some(IntBound::constant(v));
    }
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
    // the largest value with no bit above the highest bit of a or b (both
    // non-negative)
    let all_bits_below = |a: i64, b: i64| {
        let m = a.max(b) as u64;
        (if m == 0 {
            0
        } else {
            u64::MAX >> m.leading_zeros()
        }) as i64
    };
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
        "int_or" => {
            let bits = IntBound::bits(x.zeros & y.zeros, x.ones | y.ones)?;
            if x.lo >= 0 && y.lo >= 0 {
                // at least the larger, at most every bit below the top one
                let r = IntBound::range(x.lo.max(y.lo), all_bits_below(x.hi, y.hi));
                bits.intersect(&r).unwrap_or(bits)
            } else {
                bits
            }
        }
        "int_xor" => {
            let bits = IntBound::bits(
                (x.zeros & y.zeros) | (x.ones & y.ones),
                (x.ones & y.zeros) | (x.zeros & y.ones),
            )?;
            if x.lo >= 0 && y.lo >= 0 {
                let r = IntBound::range(0, all_bits_below(x.hi, y.hi));
                bits.intersect(&r).unwrap_or(bits)
            } else {
                bits
            }
        }
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
            // any count in 0..64 moves a value towards 0 (or -1)
            None if x.lo >= 0 => IntBound::range(0, x.hi),
            None if x.hi < 0 => IntBound::range(x.lo, -1),
            None => IntBound::range(x.lo, x.hi),
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
        "int_floordiv" | "int_py_div" => match yc {
            Some(c) if c > 0 => {
                let d = |v: i64| match name {
                    "int_py_div" => v.div_euclid(c),
                    _ => v / c,
                };
                IntBound::range(d(x.lo), d(x.hi))
            }
            _ if x.lo >= 0 && y.lo > 0 => IntBound::range(0, x.hi),
            _ => return None,
        },
        "int_mod" => {
            // the remainder has the dividend's sign and is smaller than |y|
            let m = (y.lo != i64::MIN).then(|| y.lo.abs().max(y.hi.abs()) - 1);
            match m {
                Some(m) if x.lo >= 0 => IntBound::range(0, m.min(x.hi)),
                Some(m) if x.hi <= 0 => IntBound::range((-m).max(x.lo), 0),
                Some(m) => IntBound::range(-m, m),
                None if x.lo >= 0 => IntBound::range(0, x.hi),
                None => return None,
            }
        }
        "int_py_mod" => {
            // the remainder has the divisor's sign and is smaller than |y|
            if y.lo > 0 {
                IntBound::range(0, y.hi - 1)
            } else if y.hi < 0 && y.lo > i64::MIN {
                IntBound::range(y.lo + 1, 0)
            } else {
                return None;
            }
        }
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
        "int_is_zero" | "bool_not" => decide(x.get_constant() == Some(0), !x.contains(0))?,
        n if n.starts_with("uint_") && n != "uint_rshift" => IntBound::boolean(),
        n if n.starts_with("float_") || n.starts_with("ptr_") || n.starts_with("instance_ptr_") => {
            IntBound::boolean()
        }
        "same_as_i" | "same_as" | "cast_bool_to_int" => x,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_give_bits_and_back() {
        let b = IntBound::range(0, 255);
        assert!(b.known_bits_zero(!255));
        assert!(b.known_nonneg());
        let b = IntBound::bits(!0xff, 0).unwrap();
        assert_eq!((b.lo, b.hi), (0, 255));
        assert_eq!(IntBound::range(5, 5), IntBound::constant(5));
    }

    #[test]
    fn known_constants_fold() {
        let t = transfer("int_mul", &[IntBound::constant(6), IntBound::constant(7)]);
        assert_eq!(t, Some(IntBound::constant(42)));
        assert_eq!(
            transfer(
                "int_floordiv",
                &[IntBound::constant(1), IntBound::constant(0)]
            ),
            None
        );
    }
}

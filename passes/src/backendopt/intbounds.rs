//! IntBound: what is known of an integer without knowing its value: a signed
//! range `lo..=hi` and known bits (a "tnum": `value` holds the known bits,
//! `mask` marks the unknown ones).
//!
//! [`transfer`] gives the bound of an operation's result from its arguments'
//! bounds. Every transfer function is sound: when the operation is defined
//! (`eval_int` gives a value) on arguments within their bounds, the value is
//! within the result's bound. Where the operation is undefined the bound
//! says nothing (no value is produced).

use rpy_ir::llops::eval_int;

const SIGN: u64 = 1 << 63;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntBound {
    pub lo: i64,
    pub hi: i64,
    /// The known bits (0 where unknown).
    pub value: u64,
    /// The unknown bits.
    pub mask: u64,
}

impl IntBound {
    /// Nothing is known.
    pub fn top() -> IntBound {
        IntBound {
            lo: i64::MIN,
            hi: i64::MAX,
            value: 0,
            mask: u64::MAX,
        }
    }

    pub fn exact(v: i64) -> IntBound {
        IntBound {
            lo: v,
            hi: v,
            value: v as u64,
            mask: 0,
        }
    }

    /// Every value in `lo..=hi` (lo <= hi).
    pub fn range(lo: i64, hi: i64) -> IntBound {
        IntBound {
            lo,
            hi,
            value: 0,
            mask: u64::MAX,
        }
        .normalize()
        .unwrap_or_else(IntBound::top)
    }

    /// A Bool: 0 or 1.
    pub fn boolean() -> IntBound {
        IntBound::range(0, 1)
    }

    fn tnum(value: u64, mask: u64) -> IntBound {
        IntBound {
            lo: i64::MIN,
            hi: i64::MAX,
            value: value & !mask,
            mask,
        }
        .normalize()
        .unwrap_or_else(IntBound::top)
    }

    pub fn contains(&self, v: i64) -> bool {
        self.lo <= v && v <= self.hi && (v as u64) & !self.mask == self.value
    }

    pub fn constant(&self) -> Option<i64> {
        (self.lo == self.hi).then_some(self.lo)
    }

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
    pub fn known_nonneg(&self) -> bool {
        self.lo >= 0
    }
    /// Every bit of `mask` is known to be 0.
    pub fn known_bits_zero(&self, mask: i64) -> bool {
        let m = mask as u64;
        self.mask & m == 0 && self.value & m == 0
    }

    /// The smallest and largest signed values the known bits allow.
    fn bits_range(&self) -> (i64, i64) {
        let min = (self.value | (self.mask & SIGN)) as i64;
        let max = (self.value | (self.mask & !SIGN)) as i64;
        (min, max)
    }

    /// Makes the range and the bits agree; `None` when no value fits both.
    pub fn normalize(mut self) -> Option<IntBound> {
        for _ in 0..2 {
            let (bmin, bmax) = self.bits_range();
            self.lo = self.lo.max(bmin);
            self.hi = self.hi.min(bmax);
            if self.lo > self.hi {
                return None;
            }
            if (self.lo < 0) == (self.hi < 0) {
                // The common high bits of lo and hi are known.
                let diff = (self.lo ^ self.hi) as u64;
                let rmask = if diff == 0 {
                    0
                } else {
                    let n = 64 - diff.leading_zeros();
                    if n >= 64 {
                        u64::MAX
                    } else {
                        (1u64 << n) - 1
                    }
                };
                let rvalue = (self.lo as u64) & !rmask;
                let both = !self.mask & !rmask;
                if (self.value ^ rvalue) & both != 0 {
                    return None;
                }
                let mask = self.mask & rmask;
                self.value = (self.value | rvalue) & !mask;
                self.mask = mask;
            }
        }
        // The range ends may not satisfy the bits exactly; that is fine (the
        // range is an over-approximation), but an exact value must fit.
        if self.lo == self.hi {
            if !self.contains(self.lo) {
                return None;
            }
            return Some(IntBound::exact(self.lo));
        }
        Some(self)
    }

    /// What both bounds say (of a value they both describe); `None` when they
    /// contradict each other.
    pub fn intersect(&self, other: &IntBound) -> Option<IntBound> {
        let both = !self.mask & !other.mask;
        if (self.value ^ other.value) & both != 0 {
            return None;
        }
        let mask = self.mask & other.mask;
        IntBound {
            lo: self.lo.max(other.lo),
            hi: self.hi.min(other.hi),
            value: (self.value | other.value) & !mask,
            mask,
        }
        .normalize()
    }

    /// The number of low bits known to be zero.
    fn trailing_zeros(&self) -> u32 {
        (self.value | self.mask).trailing_zeros()
    }
}

fn from_i128(lo: i128, hi: i128) -> IntBound {
    if lo >= i64::MIN as i128 && hi <= i64::MAX as i128 && lo <= hi {
        IntBound::range(lo as i64, hi as i64)
    } else {
        IntBound::top()
    }
}

fn tnum_add(a: &IntBound, b: &IntBound) -> IntBound {
    let sm = a.mask.wrapping_add(b.mask);
    let sv = a.value.wrapping_add(b.value);
    let sigma = sm.wrapping_add(sv);
    let chi = sigma ^ sv;
    let mu = chi | a.mask | b.mask;
    IntBound::tnum(sv & !mu, mu)
}

fn tnum_sub(a: &IntBound, b: &IntBound) -> IntBound {
    let dv = a.value.wrapping_sub(b.value);
    let alpha = dv.wrapping_add(a.mask);
    let beta = dv.wrapping_sub(b.mask);
    let chi = alpha ^ beta;
    let mu = chi | a.mask | b.mask;
    IntBound::tnum(dv & !mu, mu)
}

fn tnum_and(a: &IntBound, b: &IntBound) -> IntBound {
    let alpha = a.value | a.mask;
    let beta = b.value | b.mask;
    let v = a.value & b.value;
    IntBound::tnum(v, alpha & beta & !v)
}

fn tnum_or(a: &IntBound, b: &IntBound) -> IntBound {
    let v = a.value | b.value;
    let mu = a.mask | b.mask;
    IntBound::tnum(v, mu & !v)
}

fn tnum_xor(a: &IntBound, b: &IntBound) -> IntBound {
    let v = a.value ^ b.value;
    let mu = a.mask | b.mask;
    IntBound::tnum(v & !mu, mu)
}

fn both(a: IntBound, b: IntBound) -> IntBound {
    a.intersect(&b).unwrap_or_else(IntBound::top)
}

fn truth(b: bool) -> IntBound {
    IntBound::exact(b as i64)
}

/// Decides a comparison from the bounds when it can.
fn compare(op: &str, a: &IntBound, b: &IntBound) -> IntBound {
    let lt = |a: &IntBound, b: &IntBound| {
        if a.hi < b.lo {
            Some(true)
        } else if a.lo >= b.hi {
            Some(false)
        } else {
            None
        }
    };
    let disjoint = a.hi < b.lo || b.hi < a.lo || (a.value ^ b.value) & !a.mask & !b.mask != 0;
    let eq = match (a.constant(), b.constant()) {
        (Some(x), Some(y)) => Some(x == y),
        _ if disjoint => Some(false),
        _ => None,
    };
    let r = match op {
        "int_lt" => lt(a, b),
        "int_ge" => lt(a, b).map(|v| !v),
        "int_gt" => lt(b, a),
        "int_le" => lt(b, a).map(|v| !v),
        "int_eq" => eq,
        "int_ne" => eq.map(|v| !v),
        _ => None,
    };
    r.map_or_else(IntBound::boolean, truth)
}

/// The bound of `op(args)`'s result for arguments within `args`.
pub fn transfer(op: &str, args: &[IntBound]) -> IntBound {
    let consts: Option<Vec<i64>> = args.iter().map(|a| a.constant()).collect();
    if let Some(vals) = &consts {
        if let Some(v) = eval_int(op, vals) {
            return IntBound::exact(v);
        }
    }
    let top = IntBound::top();
    match (op, args) {
        ("int_add", [a, b]) => both(
            from_i128(a.lo as i128 + b.lo as i128, a.hi as i128 + b.hi as i128),
            tnum_add(a, b),
        ),
        ("int_sub", [a, b]) => both(
            from_i128(a.lo as i128 - b.hi as i128, a.hi as i128 - b.lo as i128),
            tnum_sub(a, b),
        ),
        ("int_mul", [a, b]) => {
            let ps = [
                a.lo as i128 * b.lo as i128,
                a.lo as i128 * b.hi as i128,
                a.hi as i128 * b.lo as i128,
                a.hi as i128 * b.hi as i128,
            ];
            let r = from_i128(*ps.iter().min().unwrap(), *ps.iter().max().unwrap());
            let tz = (a.trailing_zeros() + b.trailing_zeros()).min(64);
            let low = if tz >= 64 { u64::MAX } else { (1u64 << tz) - 1 };
            both(r, IntBound::tnum(0, !low))
        }
        ("int_and", [a, b]) => {
            let r = match (a.lo >= 0, b.lo >= 0) {
                (true, true) => IntBound::range(0, a.hi.min(b.hi)),
                (true, false) => IntBound::range(0, a.hi),
                (false, true) => IntBound::range(0, b.hi),
                _ => top,
            };
            both(r, tnum_and(a, b))
        }
        ("int_or", [a, b]) => {
            let r = if a.lo >= 0 && b.lo >= 0 {
                // At least the larger, at most all the bits below the top one.
                let m = a.hi.max(b.hi) as u64;
                let ones = if m == 0 {
                    0
                } else {
                    u64::MAX >> m.leading_zeros()
                };
                IntBound::range(a.lo.max(b.lo), ones as i64)
            } else {
                top
            };
            both(r, tnum_or(a, b))
        }
        ("int_xor", [a, b]) => {
            let r = if a.lo >= 0 && b.lo >= 0 {
                let m = a.hi.max(b.hi) as u64;
                let ones = if m == 0 {
                    0
                } else {
                    u64::MAX >> m.leading_zeros()
                };
                IntBound::range(0, ones as i64)
            } else {
                top
            };
            both(r, tnum_xor(a, b))
        }
        ("int_invert", [a]) => both(
            IntBound::range(!a.hi, !a.lo),
            IntBound::tnum(!a.value & !a.mask, a.mask),
        ),
        ("int_neg", [a]) => {
            let r = if a.lo > i64::MIN {
                IntBound::range(-a.hi, -a.lo)
            } else {
                top
            };
            both(r, tnum_sub(&IntBound::exact(0), a))
        }
        ("int_abs", [a]) => {
            if a.lo >= 0 {
                *a
            } else if a.lo > i64::MIN {
                if a.hi < 0 {
                    IntBound::range(-a.hi, -a.lo)
                } else {
                    IntBound::range(0, (-a.lo).max(a.hi))
                }
            } else {
                top
            }
        }
        ("int_lshift", [a, b]) => match b.constant() {
            Some(k) if (0..64).contains(&k) => {
                let r = from_i128((a.lo as i128) << k, (a.hi as i128) << k);
                let bits = IntBound::tnum(a.value << k, (a.mask << k) & !((1u64 << k) - 1));
                both(r, bits)
            }
            _ => top,
        },
        ("int_rshift", [a, b]) => match b.constant() {
            Some(k) if (0..64).contains(&k) => {
                let bits = IntBound::tnum(
                    ((a.value as i64) >> k) as u64,
                    ((a.mask as i64) >> k) as u64,
                );
                both(IntBound::range(a.lo >> k, a.hi >> k), bits)
            }
            // Any count in 0..64 moves a value towards 0 (or -1).
            _ if b.lo >= 0 => {
                if a.lo >= 0 {
                    IntBound::range(0, a.hi)
                } else if a.hi < 0 {
                    IntBound::range(a.lo, -1)
                } else {
                    IntBound::range(a.lo, a.hi)
                }
            }
            _ => top,
        },
        ("int_floordiv", [a, b]) | ("int_py_div", [a, b]) => match b.constant() {
            Some(c) if c > 0 => {
                let d = |x: i64| {
                    if op == "int_py_div" {
                        x.div_euclid(c)
                    } else {
                        x / c
                    }
                };
                IntBound::range(d(a.lo), d(a.hi))
            }
            _ if a.lo >= 0 && b.lo > 0 => IntBound::range(0, a.hi),
            _ => top,
        },
        ("int_py_mod", [_, b]) => {
            if b.lo > 0 {
                IntBound::range(0, b.hi - 1)
            } else if b.hi < 0 && b.lo > i64::MIN {
                IntBound::range(b.lo + 1, 0)
            } else {
                top
            }
        }
        ("int_mod", [a, b]) => {
            // The remainder has the dividend's sign and is smaller than |b|.
            let m = if b.lo > i64::MIN && b.hi > i64::MIN {
                Some((b.lo.abs()).max(b.hi.abs()) - 1)
            } else {
                None
            };
            match m {
                Some(m) if a.lo >= 0 => IntBound::range(0, m.min(a.hi)),
                Some(m) if a.hi <= 0 => IntBound::range((-m).max(a.lo), 0),
                Some(m) => IntBound::range(-m, m),
                None if a.lo >= 0 => IntBound::range(0, a.hi),
                None => top,
            }
        }
        ("int_lt" | "int_le" | "int_eq" | "int_ne" | "int_gt" | "int_ge", [a, b]) => {
            compare(op, a, b)
        }
        ("int_is_true", [a]) => {
            if !a.contains(0) {
                truth(true)
            } else if a.constant() == Some(0) {
                truth(false)
            } else {
                IntBound::boolean()
            }
        }
        ("bool_not", [a]) => match a.constant() {
            Some(v) => truth(v == 0),
            None => IntBound::boolean(),
        },
        ("cast_bool_to_int", [a]) | ("same_as", [a]) => *a,
        _ => top,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_give_bits_and_back() {
        let b = IntBound::range(0, 255);
        assert!(b.known_bits_zero(!255));
        assert!(b.known_nonneg());
        let b = IntBound::tnum(0, 0xff);
        assert_eq!((b.lo, b.hi), (0, 255));
        assert_eq!(IntBound::range(5, 5), IntBound::exact(5));
    }

    #[test]
    fn transfers_contain_the_result() {
        let ops = [
            "int_add",
            "int_sub",
            "int_mul",
            "int_and",
            "int_or",
            "int_xor",
            "int_lshift",
            "int_rshift",
            "int_floordiv",
            "int_py_div",
            "int_mod",
            "int_py_mod",
            "int_lt",
            "int_eq",
            "int_ne",
            "int_ge",
        ];
        let vals = [0i64, 1, -1, 7, -8, 100, i64::MIN, i64::MAX, 63, 3, -3];
        for op in ops {
            for &x in &vals {
                for &y in &vals {
                    let Some(r) = eval_int(op, &[x, y]) else {
                        continue;
                    };
                    let bx = IntBound::range(x.saturating_sub(5), x.saturating_add(3));
                    for by in [IntBound::exact(y), IntBound::range(y.saturating_sub(2), y)] {
                        if !by.contains(y) {
                            continue;
                        }
                        let b = transfer(op, &[bx, by]);
                        assert!(b.contains(r), "{op}({x}, {y}) = {r} not in {b:?}");
                    }
                }
            }
        }
    }
}

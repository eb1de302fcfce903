//! The C math library, as the generated C calls it (`rpy_math_<name>` in
//! the runtime is the libm function of that name): the object interpreter
//! and the LLInterpreter call the same functions, so that the three agree
//! to the last bit (Rust's own `asinh` or `ln_1p` are not glibc's).
//!
//! Which functions can overflow (an infinity from a finite argument is then
//! OverflowError, else ValueError) is CPython's `mathmodule.c` table, which
//! the original's `ll_math` follows.

mod c {
    extern "C" {
        pub fn acos(x: f64) -> f64;
        pub fn acosh(x: f64) -> f64;
        pub fn asin(x: f64) -> f64;
        pub fn asinh(x: f64) -> f64;
        pub fn atan(x: f64) -> f64;
        pub fn atanh(x: f64) -> f64;
        pub fn ceil(x: f64) -> f64;
        pub fn cos(x: f64) -> f64;
        pub fn cosh(x: f64) -> f64;
        pub fn erf(x: f64) -> f64;
        pub fn erfc(x: f64) -> f64;
        pub fn exp(x: f64) -> f64;
        pub fn expm1(x: f64) -> f64;
        pub fn fabs(x: f64) -> f64;
        pub fn floor(x: f64) -> f64;
        pub fn log(x: f64) -> f64;
        pub fn log10(x: f64) -> f64;
        pub fn log1p(x: f64) -> f64;
        pub fn log2(x: f64) -> f64;
        pub fn sin(x: f64) -> f64;
        pub fn sinh(x: f64) -> f64;
        pub fn sqrt(x: f64) -> f64;
        pub fn tan(x: f64) -> f64;
        pub fn tanh(x: f64) -> f64;
        pub fn trunc(x: f64) -> f64;
        pub fn atan2(y: f64, x: f64) -> f64;
        pub fn copysign(x: f64, y: f64) -> f64;
        pub fn fmod(x: f64, y: f64) -> f64;
        pub fn hypot(x: f64, y: f64) -> f64;
        pub fn pow(x: f64, y: f64) -> f64;
        pub fn ldexp(x: f64, e: i32) -> f64;
    }
}

/// A libm function of one float, and whether it can overflow.
pub type Unary = (fn(f64) -> f64, bool);
/// A libm function of two floats, and whether it can overflow.
pub type Binary = (fn(f64, f64) -> f64, bool);

/// The libm function of one argument named `name` (a math module
/// function that is one), and whether it can overflow.
pub fn unary(name: &str) -> Option<Unary> {
    // SAFETY (every closure): the libm functions are pure and take any double.
    let f: fn(f64) -> f64 = match name {
        "acos" => |x| unsafe { c::acos(x) },
        "acosh" => |x| unsafe { c::acosh(x) },
        "asin" => |x| unsafe { c::asin(x) },
        "asinh" => |x| unsafe { c::asinh(x) },
        "atan" => |x| unsafe { c::atan(x) },
        "atanh" => |x| unsafe { c::atanh(x) },
        "ceil" => |x| unsafe { c::ceil(x) },
        "cos" => |x| unsafe { c::cos(x) },
        "cosh" => |x| unsafe { c::cosh(x) },
        "erf" => |x| unsafe { c::erf(x) },
        "erfc" => |x| unsafe { c::erfc(x) },
        "exp" => |x| unsafe { c::exp(x) },
        "expm1" => |x| unsafe { c::expm1(x) },
        "fabs" => |x| unsafe { c::fabs(x) },
        "floor" => |x| unsafe { c::floor(x) },
        "log" => |x| unsafe { c::log(x) },
        "log10" => |x| unsafe { c::log10(x) },
        "log1p" => |x| unsafe { c::log1p(x) },
        "log2" => |x| unsafe { c::log2(x) },
        "sin" => |x| unsafe { c::sin(x) },
        "sinh" => |x| unsafe { c::sinh(x) },
        "sqrt" => |x| unsafe { c::sqrt(x) },
        "tan" => |x| unsafe { c::tan(x) },
        "tanh" => |x| unsafe { c::tanh(x) },
        "trunc" => |x| unsafe { c::trunc(x) },
        _ => return None,
    };
    Some((f, matches!(name, "cosh" | "exp" | "expm1" | "sinh")))
}

/// The libm function of two arguments named `name`, and whether it can
/// overflow.
pub fn binary(name: &str) -> Option<Binary> {
    // SAFETY (every closure): the libm functions are pure and take any doubles.
    let f: fn(f64, f64) -> f64 = match name {
        "atan2" => |y, x| unsafe { c::atan2(y, x) },
        "copysign" => |x, y| unsafe { c::copysign(x, y) },
        "fmod" => |x, y| unsafe { c::fmod(x, y) },
        "hypot" => |x, y| unsafe { c::hypot(x, y) },
        "pow" => |x, y| unsafe { c::pow(x, y) },
        _ => return None,
    };
    Some((f, matches!(name, "hypot" | "pow")))
}

/// `ldexp(x, e)`, the exponent clamped to C's int as CPython does.
pub fn ldexp(x: f64, e: i64) -> f64 {
    let e = e.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
    // SAFETY: pure.
    unsafe { c::ldexp(x, e) }
}

/// The error of a math function of `args` that gave `r`, as
/// `rmath.ll_math_check_1`/`_2` raise it: a NaN of numbers is a domain
/// error, an infinity of finite numbers a range error when the function
/// can overflow (and its first argument is not zero) or a domain error.
pub fn error(args: &[f64], r: f64, can_overflow: bool) -> Option<(&'static str, &'static str)> {
    const DOMAIN: (&str, &str) = ("ValueError", "math domain error");
    if r.is_nan() {
        return (!args.iter().any(|a| a.is_nan())).then_some(DOMAIN);
    }
    if r.is_infinite() && args.iter().all(|a| a.is_finite()) {
        if can_overflow && args[0] != 0.0 {
            return Some(("OverflowError", "math range error"));
        }
        return Some(DOMAIN);
    }
    None
}

/// `180 / pi` and `pi / 180`, as CPython multiplies by them.
pub const RAD_TO_DEG: f64 = 180.0 / std::f64::consts::PI;
pub const DEG_TO_RAD: f64 = std::f64::consts::PI / 180.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_cpythons() {
        let (sqrt, o) = unary("sqrt").unwrap();
        assert_eq!(error(&[-1.0], sqrt(-1.0), o).unwrap().0, "ValueError");
        let (exp, o) = unary("exp").unwrap();
        assert_eq!(error(&[1000.0], exp(1000.0), o).unwrap().0, "OverflowError");
        let (log, o) = unary("log").unwrap();
        assert_eq!(error(&[0.0], log(0.0), o).unwrap().0, "ValueError");
        let (pow, o) = binary("pow").unwrap();
        assert_eq!(
            error(&[0.0, -1.0], pow(0.0, -1.0), o).unwrap().0,
            "ValueError"
        );
        assert_eq!(
            error(&[10.0, 400.0], pow(10.0, 400.0), o).unwrap().0,
            "OverflowError"
        );
        assert!(error(&[f64::INFINITY], exp(f64::INFINITY), true).is_none());
    }
}

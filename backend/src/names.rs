//! C names for the program's graphs, types and fields, and C literals.

use fxhash::FxHashSet as HashSet;
use std::fmt::Write;

/// The characters of `name` that may appear in a C identifier, others as `_`.
pub fn c_ident(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "_".into()
    } else {
        s
    }
}

/// A set of C names in one scope, handing out unique ones.
#[derive(Default)]
pub struct Namespace {
    used: HashSet<String>,
}

impl Namespace {
    /// `prefix` + the sanitized `name`, with `_N` appended when that is taken.
    pub fn fresh(&mut self, prefix: &str, name: &str) -> String {
        let base = format!("{prefix}{}", c_ident(name));
        let mut candidate = base.clone();
        let mut n = 2;
        while !self.used.insert(candidate.clone()) {
            candidate = format!("{base}_{n}");
            n += 1;
        }
        candidate
    }
}

/// A C string literal with exactly these bytes (plus the implicit NUL).
pub fn c_string_literal(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() + 2);
    s.push('"');
    for &b in bytes {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            // '?' is escaped so that no trigraph can form.
            b'?' => s.push_str("\\?"),
            0x20..=0x7e => s.push(b as char),
            // Three octal digits: a following digit is never taken in.
            _ => {
                let _ = write!(s, "\\{b:03o}");
            }
        }
    }
    s.push('"');
    s
}

/// Text safe inside a C comment.
pub fn comment_text(text: &str) -> String {
    // \x01 marks a string number of a function's own pool while the
    // functions are generated apart (lib.rs, `StringPool::absorb`).
    text.replace("*/", "* /")
        .replace('\n', " ")
        .replace('\u{1}', "\\x01")
}

/// A `long` literal for any i64 (`i64::MIN` has no literal of its own).
pub fn int_literal(n: i64) -> String {
    if n == i64::MIN {
        "(-9223372036854775807L - 1)".into()
    } else if n < 0 {
        format!("(-{}L)", n.unsigned_abs())
    } else {
        format!("{n}L")
    }
}

/// A `double` constant expression (usable in static initializers) with
/// exactly the bits of `x`: hexadecimal literals for finite values,
/// `HUGE_VAL` for infinities, `__builtin_nan`/`__builtin_nans` with the
/// payload for quiet and signaling NaNs.
pub fn float_literal(x: f64) -> String {
    let bits = x.to_bits();
    let neg = bits >> 63 != 0;
    let body = if x.is_nan() {
        let mant = bits & ((1u64 << 52) - 1);
        let quiet = mant >> 51 != 0;
        let payload = mant & ((1u64 << 51) - 1);
        let builtin = if quiet {
            "__builtin_nan"
        } else {
            "__builtin_nans"
        };
        format!("{builtin}(\"0x{payload:x}\")")
    } else if x.is_infinite() {
        "HUGE_VAL".to_string()
    } else {
        let exp = ((bits >> 52) & 0x7ff) as i64;
        let mant = bits & ((1u64 << 52) - 1);
        if exp == 0 && mant == 0 {
            "0.0".to_string()
        } else if exp == 0 {
            format!("0x0.{mant:013x}p-1022")
        } else {
            format!("0x1.{mant:013x}p{:+}", exp - 1023)
        }
    };
    if neg {
        format!("(-{body})")
    } else {
        body
    }
}

/// An `unsigned char` value.
pub fn char_literal(c: u8) -> String {
    if c.is_ascii_alphanumeric() || c == b' ' {
        format!("((unsigned char)'{}')", c as char)
    } else {
        format!("((unsigned char){c})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_unique_and_sanitized() {
        let mut ns = Namespace::default();
        assert_eq!(ns.fresh("rpy_g_", "mod.f"), "rpy_g_mod_f");
        assert_eq!(ns.fresh("rpy_g_", "mod_f"), "rpy_g_mod_f_2");
        assert_eq!(ns.fresh("rpy_g_", "<lambda>"), "rpy_g__lambda_");
    }

    #[test]
    fn literals() {
        assert_eq!(
            c_string_literal(b"a\"b\\c?\n\x001"),
            "\"a\\\"b\\\\c\\?\\012\\0001\""
        );
        assert_eq!(int_literal(-5), "(-5L)");
        assert_eq!(int_literal(i64::MIN), "(-9223372036854775807L - 1)");
        assert_eq!(float_literal(1.5), "0x1.8000000000000p+0");
        assert_eq!(float_literal(-0.0), "(-0.0)");
        assert_eq!(float_literal(f64::NEG_INFINITY), "(-HUGE_VAL)");
        assert_eq!(float_literal(5e-324), "0x0.0000000000001p-1022");
    }
}

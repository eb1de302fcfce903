//! Conversions between numbers and strings with CPython's exact behaviour.
//!
//! The LLInterpreter and the C runtime must produce the same bytes as CPython
//! for `str(float)`, `int(s)` and `float(s)`, and the same `ValueError` text
//! when a conversion fails. Strings here are RPython strings, i.e. bytes.
//!
//! - `float_repr`: Python 3's `repr(float)` (= `str(float)`): the shortest
//!   digits that round-trip, fixed notation for decimal exponents -4..=15,
//!   otherwise `d.ddde+XX`.
//! - `float_str_py2`: Python 2.7's `str(float)`: 12 significant digits like
//!   `'%.12g'` but exponential from 1e11 on, with `.0` added when the result
//!   looks like an integer.
//! - `format_g`: C's `%.<p>g`, correctly rounded (half-even on the exact value).
//! - `parse_int`: Python 3's `int(s)` in base 10: ASCII whitespace around an
//!   optional sign and decimal digits, single `_` allowed between digits. A
//!   value outside the machine word is a `ValueError` too (with the same text).
//! - `parse_float`: Python 3's `float(s)`.
//! - `repr_str`: `repr(str)` in either dialect, as the bytes of a str;
//!   `repr_bytes`: Python 3's, as text for error messages.

/// Python 3 `repr(x)` / `str(x)` of a float.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    // Rust's `{:e}` yields the shortest round-tripping digits, e.g. "-1.5e-7".
    let (neg, digits, exp) = split_sci(&format!("{x:e}"));
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    if !(-4..16).contains(&exp) {
        push_exponential(&mut s, &digits, exp);
    } else {
        push_fixed(&mut s, &digits, exp);
        if !s.contains('.') {
            s.push_str(".0");
        }
    }
    s
}

/// Python 2.7 `str(x)` of a float: 12 significant digits as `'%.12g'` lays
/// them out, except that exponential notation starts one decimal exponent
/// earlier (at 1e11, as CPython's `Py_DTSF_ADD_DOT_0` does: `str(1e11)` is
/// `'1e+11'`, `str(12345678901.0)` is `'12345678901.0'`), and
/// `.0` is added to a result that looks like an integer.
pub fn float_str_py2(x: f64) -> String {
    let mut s = g_layout(x, 12, 11);
    if !s.contains(['.', 'e', 'n', 'i']) {
        s.push_str(".0");
    }
    s
}

/// C's `printf("%.<precision>g", x)` (precision 0 counts as 1).
pub fn format_g(x: f64, precision: usize) -> String {
    let p = precision.max(1);
    g_layout(x, p, p as i32)
}

/// `x` rounded to `p` significant digits, trailing zeros dropped, in
/// exponential notation when its decimal exponent is < -4 or >= `exp_limit`.
fn g_layout(x: f64, p: usize, exp_limit: i32) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    // `{:.Ne}` rounds the exact binary value correctly (ties to even), giving
    // exactly `p` significant digits and the exponent after rounding.
    let (neg, digits, exp) = split_sci(&format!("{:.*e}", p - 1, x));
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    if exp < -4 || exp >= exp_limit {
        push_exponential(&mut s, digits, exp);
    } else {
        push_fixed(&mut s, digits, exp);
    }
    s
}

/// Splits Rust's scientific notation ("-1.25e-7") into sign, the digits
/// without the point ("125") and the decimal exponent (-7).
fn split_sci(s: &str) -> (bool, String, i32) {
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (mantissa, exp) = s.split_once('e').expect("scientific notation");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    (neg, digits, exp.parse().expect("exponent"))
}

/// `d.ddde+XX` (no point when there is one digit; at least two exponent digits).
fn push_exponential(s: &mut String, digits: &str, exp: i32) {
    s.push_str(&digits[..1]);
    if digits.len() > 1 {
        s.push('.');
        s.push_str(&digits[1..]);
    }
    s.push('e');
    s.push(if exp < 0 { '-' } else { '+' });
    s.push_str(&format!("{:02}", exp.unsigned_abs()));
}

/// The digits `d1 d2 ...` of `d1.d2... * 10**exp` in fixed notation, with no
/// trailing point and no padding zeros after the point.
fn push_fixed(s: &mut String, digits: &str, exp: i32) {
    let decpt = exp + 1;
    let n = digits.len() as i32;
    if decpt <= 0 {
        s.push_str("0.");
        for _ in 0..-decpt {
            s.push('0');
        }
        s.push_str(digits);
    } else if decpt >= n {
        s.push_str(digits);
        for _ in 0..decpt - n {
            s.push('0');
        }
    } else {
        s.push_str(&digits[..decpt as usize]);
        s.push('.');
        s.push_str(&digits[decpt as usize..]);
    }
}

/// Python's `str.isspace()` restricted to ASCII, which is what `int()` and
/// `float()` strip.
fn is_py_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn strip_py_space(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|b| !is_py_space(*b)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|b| !is_py_space(*b))
        .map_or(start, |e| e + 1);
    &s[start..end]
}

/// `repr()` of a str as the dialect's CPython writes it, as the bytes of
/// a str: Python 2 escapes every byte above 0x7e as `\xNN`; a Python 3 str
/// holds code points below U+0100 and escapes only those Python 3 does not
/// print (0x7f-0xa0 and the soft hyphen 0xad).
pub fn repr_str(s: &[u8], py3: bool) -> Vec<u8> {
    let quote = if s.contains(&b'\'') && !s.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    let mut out = Vec::with_capacity(s.len() + 2);
    out.push(quote);
    for &b in s {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ if b == quote => out.extend_from_slice(&[b'\\', b]),
            0x20..=0x7e => out.push(b),
            0xa1..=0xff if py3 && b != 0xad => out.push(b),
            _ => out.extend_from_slice(format!("\\x{b:02x}").as_bytes()),
        }
    }
    out.push(quote);
    out
}

/// Python 3's `repr()` of a str, for error messages: each char of
/// `repr_str`, written as Python 3 writes it.
pub fn repr_bytes(s: &[u8]) -> String {
    repr_str(s, true).into_iter().map(char::from).collect()
}

/// `repr_bytes` cut to at most `limit` characters, as CPython's `%.200R` does.
fn repr_truncated(s: &[u8], limit: usize) -> String {
    repr_bytes(s).chars().take(limit).collect()
}

/// The text of the `ValueError` `int(s)` raises (without "ValueError: ").
pub fn int_error_message(s: &[u8]) -> String {
    format!(
        "invalid literal for int() with base 10: {}",
        repr_truncated(s, 200)
    )
}

/// The text of the `ValueError` `float(s)` raises (without "ValueError: ").
pub fn float_error_message(s: &[u8]) -> String {
    format!("could not convert string to float: {}", repr_bytes(s))
}

/// Python 3 `int(s)` (base 10) on a machine word. `Err` holds the exception
/// text, e.g. `ValueError: invalid literal for int() with base 10: 'abc'`;
/// a value that does not fit in i64 fails with that same text.
pub fn parse_int(s: &[u8]) -> Result<i64, String> {
    let fail = || format!("ValueError: {}", int_error_message(s));
    let t = strip_py_space(s);
    let (neg, t) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits = digits_with_underscores(t).ok_or_else(fail)?;
    if digits.len() != t.len() {
        return Err(fail());
    }
    let mut magnitude: u64 = 0;
    for &b in digits.iter().filter(|b| **b != b'_') {
        magnitude = magnitude
            .checked_mul(10)
            .and_then(|m| m.checked_add(u64::from(b - b'0')))
            .ok_or_else(fail)?;
    }
    if neg {
        if magnitude == 1 << 63 {
            Ok(i64::MIN)
        } else {
            i64::try_from(magnitude).map(|m| -m).map_err(|_| fail())
        }
    } else {
        i64::try_from(magnitude).map_err(|_| fail())
    }
}

/// The longest prefix of `t` that is a digit part of Python's grammar: digits
/// with single underscores between them; `None` when `t` starts with none.
fn digits_with_underscores(t: &[u8]) -> Option<&[u8]> {
    if !t.first()?.is_ascii_digit() {
        return None;
    }
    let mut end = 1;
    while end < t.len() {
        if t[end].is_ascii_digit() {
            end += 1;
        } else if t[end] == b'_' && t.get(end + 1).is_some_and(u8::is_ascii_digit) {
            end += 2;
        } else {
            break;
        }
    }
    Some(&t[..end])
}

/// Python 3 `float(s)`. `Err` holds the exception text, e.g.
/// `ValueError: could not convert string to float: 'abc'`.
pub fn parse_float(s: &[u8]) -> Result<f64, String> {
    let fail = || format!("ValueError: {}", float_error_message(s));
    let t = strip_py_space(s);
    let (neg, body) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = body.to_ascii_lowercase();
    let special = match lower.as_slice() {
        b"inf" | b"infinity" => Some(f64::INFINITY),
        b"nan" => Some(f64::NAN),
        _ => None,
    };
    if let Some(v) = special {
        return Ok(if neg { -v } else { v });
    }
    // digitpart ["." [digitpart]] [exponent] | "." digitpart [exponent]
    let mut rest = body;
    let int_part = digits_with_underscores(rest);
    if let Some(d) = int_part {
        rest = &rest[d.len()..];
    }
    let mut frac_part = None;
    if rest.first() == Some(&b'.') {
        rest = &rest[1..];
        frac_part = digits_with_underscores(rest);
        if let Some(d) = frac_part {
            rest = &rest[d.len()..];
        }
    }
    if int_part.is_none() && frac_part.is_none() {
        return Err(fail());
    }
    if matches!(rest.first(), Some(b'e' | b'E')) {
        rest = &rest[1..];
        if matches!(rest.first(), Some(b'+' | b'-')) {
            rest = &rest[1..];
        }
        let d = digits_with_underscores(rest).ok_or_else(fail)?;
        rest = &rest[d.len()..];
    }
    if !rest.is_empty() {
        return Err(fail());
    }
    let clean: String = t
        .iter()
        .filter(|b| **b != b'_')
        .map(|b| *b as char)
        .collect();
    clean.parse::<f64>().map_err(|_| fail())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repr_layouts() {
        assert_eq!(float_repr(1e16), "1e+16");
        assert_eq!(float_repr(1.5e-7), "1.5e-07");
        assert_eq!(float_repr(1e15), "1000000000000000.0");
        assert_eq!(float_repr(0.0001), "0.0001");
        assert_eq!(float_repr(-0.0), "-0.0");
        assert_eq!(float_repr(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(float_str_py2(1e16), "1e+16");
        assert_eq!(float_str_py2(1.0 / 3.0), "0.333333333333");
        assert_eq!(float_str_py2(1e-5), "1e-05");
        assert_eq!(float_str_py2(1234567890123.0), "1.23456789012e+12");
        assert_eq!(float_str_py2(3.0), "3.0");
        assert_eq!(float_str_py2(1e11), "1e+11");
        assert_eq!(float_str_py2(12345678901.0), "12345678901.0");
        assert_eq!(float_str_py2(123456789012.0), "1.23456789012e+11");
        assert_eq!(format_g(100.0, 12), "100");
        assert_eq!(format_g(0.0, 12), "0");
    }

    #[test]
    fn int_parsing() {
        assert_eq!(parse_int(b" -12 "), Ok(-12));
        assert_eq!(parse_int(b"1_000"), Ok(1000));
        assert_eq!(parse_int(b"-9223372036854775808"), Ok(i64::MIN));
        assert!(parse_int(b"9223372036854775808").is_err());
        assert!(parse_int(b"1__0").is_err());
        assert_eq!(
            parse_int(b"abc"),
            Err("ValueError: invalid literal for int() with base 10: 'abc'".to_string())
        );
    }
}

/// One conversion of a `%` format, `%[flags][width][.precision]conv`, as
/// CPython's `str % values` reads it; the object interpreter, the rtyper
/// and the runtime functions `rpy_format_int`/`rpy_format_float` share it.
#[derive(Clone, Debug, PartialEq)]
pub struct FormatSpec {
    /// Any of `-+ 0#`.
    pub flags: Vec<u8>,
    pub width: usize,
    pub precision: Option<usize>,
    pub conv: u8,
}

impl FormatSpec {
    /// The conversion of `fmt` that starts at `*at` (just after its `%`),
    /// `*at` moved past it; None when the format ends first.
    pub fn parse(fmt: &[u8], at: &mut usize) -> Option<FormatSpec> {
        let mut i = *at;
        let mut flags = Vec::new();
        while i < fmt.len() && b"-+ 0#".contains(&fmt[i]) {
            flags.push(fmt[i]);
            i += 1;
        }
        let mut width = 0usize;
        while i < fmt.len() && fmt[i].is_ascii_digit() {
            width = width
                .saturating_mul(10)
                .saturating_add(usize::from(fmt[i] - b'0'));
            i += 1;
        }
        let mut precision = None;
        if i < fmt.len() && fmt[i] == b'.' {
            i += 1;
            let mut p = 0usize;
            while i < fmt.len() && fmt[i].is_ascii_digit() {
                p = p
                    .saturating_mul(10)
                    .saturating_add(usize::from(fmt[i] - b'0'));
                i += 1;
            }
            precision = Some(p);
        }
        let conv = *fmt.get(i)?;
        *at = i + 1;
        Some(FormatSpec {
            flags,
            width,
            precision,
            conv,
        })
    }

    /// The spec as a format writes it, `%` included.
    pub fn text(&self) -> String {
        let mut s = String::from("%");
        s.extend(self.flags.iter().map(|&f| f as char));
        if self.width > 0 {
            s.push_str(&self.width.to_string());
        }
        if let Some(p) = self.precision {
            s.push_str(&format!(".{p}"));
        }
        s.push(self.conv as char);
        s
    }

    /// Whether it is the bare conversion (`%s`, `%d`): no flags, width or
    /// precision.
    pub fn is_bare(&self) -> bool {
        self.flags.is_empty() && self.width == 0 && self.precision.is_none()
    }

    fn sign(&self, negative: bool) -> &'static str {
        if negative {
            "-"
        } else if self.flags.contains(&b'+') {
            "+"
        } else if self.flags.contains(&b' ') {
            " "
        } else {
            ""
        }
    }

    /// `body` padded to the width: on the right with `-`, with zeros after
    /// the sign with `0` (numbers only), else with spaces on the left.
    pub fn pad(&self, body: Vec<u8>) -> Vec<u8> {
        if body.len() >= self.width {
            return body;
        }
        let fill = self.width - body.len();
        let left = self.flags.contains(&b'-');
        let zero = self.flags.contains(&b'0') && !left && !matches!(self.conv, b's' | b'r' | b'c');
        let mut out = Vec::with_capacity(self.width);
        if left {
            out.extend(&body);
            out.extend(std::iter::repeat_n(b' ', fill));
        } else if zero {
            let sign = usize::from(matches!(body.first(), Some(b'-' | b'+' | b' ')));
            out.extend(&body[..sign]);
            out.extend(std::iter::repeat_n(b'0', fill));
            out.extend(&body[sign..]);
        } else {
            out.extend(std::iter::repeat_n(b' ', fill));
            out.extend(body);
        }
        out
    }

    /// The integer conversions of the number of magnitude `mag` and sign
    /// `negative` (an r_uint is a magnitude), unpadded; `py2`: the
    /// alternate octal form is Python 2's, a leading `0` unless the digits
    /// already start with one.
    pub fn format_magnitude(&self, mag: u64, negative: bool, py2: bool) -> Vec<u8> {
        let mut digits = match self.conv {
            b'x' => format!("{mag:x}"),
            b'X' => format!("{mag:X}"),
            b'o' => format!("{mag:o}"),
            _ => mag.to_string(),
        };
        if let Some(p) = self.precision {
            while digits.len() < p {
                digits.insert(0, '0');
            }
        }
        if self.flags.contains(&b'#') {
            let prefix = match self.conv {
                b'x' => "0x",
                b'X' => "0X",
                b'o' if !py2 => "0o",
                b'o' if digits.starts_with('0') => "",
                b'o' => "0",
                _ => "",
            };
            digits.insert_str(0, prefix);
        }
        format!("{}{digits}", self.sign(negative)).into_bytes()
    }

    /// The float conversions `e E f F g G` of `x`, unpadded.
    pub fn format_float(&self, x: f64) -> Vec<u8> {
        let p = self.precision.unwrap_or(6);
        let body = if !x.is_finite() {
            if x.is_nan() { "nan" } else { "inf" }.to_string()
        } else {
            match self.conv.to_ascii_lowercase() {
                b'f' => format!("{:.*}", p, x.abs()),
                b'e' => c_exponential(x.abs(), p),
                _ => format_g(x.abs(), p),
            }
        };
        let body = if self.conv.is_ascii_uppercase() {
            body.to_ascii_uppercase()
        } else {
            body
        };
        format!("{}{body}", self.sign(x.is_sign_negative() && !x.is_nan())).into_bytes()
    }
}

/// C's `%.<p>e`: `d.ddde+XX`.
fn c_exponential(x: f64, p: usize) -> String {
    let s = format!("{:.*e}", p, x);
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    format!(
        "{m}e{}{:02}",
        if e < 0 { '-' } else { '+' },
        e.unsigned_abs()
    )
}

//! The methods of strings that RPython programs use (`split`, `join`,
//! `strip`, `find`, ...), on byte strings, with CPython's results and errors.

use super::containers::items_of;
use super::ops::{exc, type_error, Exc, OpResult};
use super::value::ObjValue;
use rpy_ir::ast::Dialect;

fn arity(name: &str, args: &[ObjValue], min: usize, max: usize) -> Result<(), Exc> {
    if (min..=max).contains(&args.len()) {
        return Ok(());
    }
    Err(type_error(if min == max {
        format!(
            "{name}() takes exactly {min} argument ({} given)",
            args.len()
        )
    } else {
        format!(
            "{name}() takes at most {max} arguments ({} given)",
            args.len()
        )
    }))
}

fn str_arg<'a>(name: &str, v: &'a ObjValue) -> Result<&'a [u8], Exc> {
    match v {
        ObjValue::Str(s) => Ok(s),
        other => Err(type_error(format!(
            "{name}() argument must be str, not {}",
            other.type_name()
        ))),
    }
}

/// An optional separator or character-set argument (`None` means whitespace).
fn opt_str_arg<'a>(name: &str, args: &'a [ObjValue], i: usize) -> Result<Option<&'a [u8]>, Exc> {
    match args.get(i) {
        None | Some(ObjValue::None) => Ok(None),
        Some(v) => str_arg(name, v).map(Some),
    }
}

fn find(hay: &[u8], needle: &[u8], from_right: bool) -> Option<usize> {
    if needle.len() > hay.len() {
        return None;
    }
    let mut starts = 0..=hay.len() - needle.len();
    let hit = |&i: &usize| &hay[i..i + needle.len()] == needle;
    if from_right {
        starts.rev().find(hit)
    } else {
        starts.find(hit)
    }
}

/// Non-overlapping occurrences of a non-empty `needle`, left to right.
fn occurrences(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        if &hay[i..i + needle.len()] == needle {
            out.push(i);
            i += needle.len();
        } else {
            i += 1;
        }
    }
    out
}

fn strip(s: &[u8], chars: Option<&[u8]>, left: bool, right: bool, dialect: Dialect) -> ObjValue {
    let strips = |b: &u8| match chars {
        Some(cs) => cs.contains(b),
        None => is_space(*b, dialect),
    };
    let mut a = 0;
    let mut b = s.len();
    if left {
        while a < b && strips(&s[a]) {
            a += 1;
        }
    }
    if right {
        while b > a && strips(&s[b - 1]) {
            b -= 1;
        }
    }
    ObjValue::str(&s[a..b])
}

// The char classes of the str methods. Python 2's know ASCII only;
// Python 3's classify each char, a code point below U+0100, as CPython 3
// does (as `rstr.py`'s `_py3` helpers, which translated programs call).

fn is_space(b: u8, dialect: Dialect) -> bool {
    b.is_ascii_whitespace()
        || b == 0x0b
        || (dialect == Dialect::Py3 && matches!(b, 0x1c..=0x1f | 0x85 | 0xa0))
}

fn is_digit(b: u8, dialect: Dialect) -> bool {
    b.is_ascii_digit() || (dialect == Dialect::Py3 && matches!(b, 0xb2 | 0xb3 | 0xb9))
}

fn is_upper(b: u8, dialect: Dialect) -> bool {
    b.is_ascii_uppercase() || (dialect == Dialect::Py3 && matches!(b, 0xc0..=0xde) && b != 0xd7)
}

fn is_lower(b: u8, dialect: Dialect) -> bool {
    b.is_ascii_lowercase()
        || (dialect == Dialect::Py3 && matches!(b, 0xaa | 0xb5 | 0xba | 0xdf..=0xff) && b != 0xf7)
}

fn is_alnum(b: u8, dialect: Dialect) -> bool {
    is_upper(b, dialect)
        || is_lower(b, dialect)
        || is_digit(b, dialect)
        || (dialect == Dialect::Py3 && matches!(b, 0xbc..=0xbe))
}

/// `s.upper()`. In Python 3, '\xdf' becomes "SS", and the two chars whose
/// upper case is above U+00FF ('\xb5', '\xff') stop with a
/// NotImplementedError, as in translated programs.
fn upper(s: &[u8], dialect: Dialect) -> OpResult {
    if dialect == Dialect::Py2 {
        return Ok(ObjValue::str(s.to_ascii_uppercase()));
    }
    let mut out = Vec::with_capacity(s.len());
    for &b in s {
        match b {
            0xdf => out.extend_from_slice(b"SS"),
            0xb5 | 0xff => {
                let (ch, up) = if b == 0xb5 {
                    ("b5", "039C")
                } else {
                    ("ff", "0178")
                };
                return Err(exc(
                    "NotImplementedError",
                    format!(
                        "rpy: upper() of '\\x{ch}' is U+{up} in Python 3, beyond the chars \
                         below U+0100 a str holds"
                    ),
                ));
            }
            _ if is_lower(b, dialect) && b != 0xaa && b != 0xba => out.push(b - 32),
            _ => out.push(b),
        }
    }
    Ok(ObjValue::str(out))
}

fn lower(s: &[u8], dialect: Dialect) -> ObjValue {
    ObjValue::str(
        s.iter()
            .map(|&b| if is_upper(b, dialect) { b + 32 } else { b })
            .collect::<Vec<u8>>(),
    )
}

/// `s.split(sep, maxsplit)` / `s.rsplit(...)`.
fn split(
    s: &[u8],
    sep: Option<&[u8]>,
    maxsplit: i64,
    from_right: bool,
    dialect: Dialect,
) -> Result<ObjValue, Exc> {
    let max = if maxsplit < 0 {
        usize::MAX
    } else {
        maxsplit as usize
    };
    let mut parts: Vec<Vec<u8>> = Vec::new();
    match sep {
        Some([]) => return Err(exc("ValueError", "empty separator")),
        Some(sep) => {
            let mut rest = s.to_vec();
            while parts.len() < max {
                match find(&rest, sep, from_right) {
                    Some(i) if from_right => {
                        parts.push(rest[i + sep.len()..].to_vec());
                        rest.truncate(i);
                    }
                    Some(i) => {
                        parts.push(rest[..i].to_vec());
                        rest = rest[i + sep.len()..].to_vec();
                    }
                    None => break,
                }
            }
            parts.push(rest);
        }
        None => {
            // Runs of whitespace separate; no empty strings at either end.
            let mut words: Vec<(usize, usize)> = Vec::new();
            let mut i = 0;
            while i < s.len() {
                while i < s.len() && is_space(s[i], dialect) {
                    i += 1;
                }
                let start = i;
                while i < s.len() && !is_space(s[i], dialect) {
                    i += 1;
                }
                if i > start {
                    words.push((start, i));
                }
            }
            if words.len() > max.saturating_add(1) {
                if from_right {
                    let keep = words.split_off(words.len() - max);
                    // The unsplit head keeps its leading whitespace.
                    parts.push(s[..words[words.len() - 1].1].to_vec());
                    parts.extend(keep.iter().map(|&(a, b)| s[a..b].to_vec()));
                    return Ok(ObjValue::list(
                        parts.into_iter().map(ObjValue::str).collect(),
                    ));
                }
                let tail_start = words[max].0;
                parts.extend(words[..max].iter().map(|&(a, b)| s[a..b].to_vec()));
                // The unsplit tail keeps its trailing whitespace.
                parts.push(s[tail_start..].to_vec());
            } else {
                parts.extend(words.iter().map(|&(a, b)| s[a..b].to_vec()));
            }
            return Ok(ObjValue::list(
                parts.into_iter().map(ObjValue::str).collect(),
            ));
        }
    }
    if from_right {
        parts.reverse();
    }
    Ok(ObjValue::list(
        parts.into_iter().map(ObjValue::str).collect(),
    ))
}

/// `s.splitlines(keepends)`: lines end at '\n', '\r' or "\r\n"; Python 3's
/// str also ends them at \v, \f, \x1c-\x1e and \x85.
fn splitlines(s: &[u8], keepends: bool, dialect: Dialect) -> ObjValue {
    let breaks = |b: u8| {
        matches!(b, b'\n' | b'\r')
            || (dialect == Dialect::Py3 && matches!(b, 0x0b | 0x0c | 0x1c..=0x1e | 0x85))
    };
    let mut lines = Vec::new();
    let (mut start, mut pos) = (0, 0);
    while pos < s.len() {
        if !breaks(s[pos]) {
            pos += 1;
            continue;
        }
        let mut eol = pos;
        pos += if s[pos..].starts_with(b"\r\n") { 2 } else { 1 };
        if keepends {
            eol = pos;
        }
        lines.push(ObjValue::str(&s[start..eol]));
        start = pos;
    }
    if start < s.len() {
        lines.push(ObjValue::str(&s[start..]));
    }
    ObjValue::list(lines)
}

/// The part of `s` that `find`/`count` search given their optional
/// `start, end` arguments (clamped as a slice is); `None` when `start` is
/// past the end, where CPython finds nothing, not even an empty string.
fn searched_range(s: &[u8], bounds: &[ObjValue]) -> Result<Option<(usize, usize)>, Exc> {
    let none = ObjValue::None;
    let lo = bounds.first().unwrap_or(&none);
    let hi = bounds.get(1).unwrap_or(&none);
    if lo.as_int().is_some_and(|start| start > s.len() as i64) {
        return Ok(None);
    }
    super::containers::slice_range(s.len(), lo, hi).map(Some)
}

/// Calls the string method `name` on `s`.
pub fn call(name: &str, s: &[u8], args: &[ObjValue], dialect: Dialect) -> OpResult {
    let bool_of = |f: fn(u8, Dialect) -> bool| {
        ObjValue::Bool(!s.is_empty() && s.iter().all(|&b| f(b, dialect)))
    };
    match name {
        "join" => {
            arity(name, args, 1, 1)?;
            let mut out = Vec::new();
            for (k, item) in items_of(&args[0])?.iter().enumerate() {
                let ObjValue::Str(part) = item else {
                    return Err(type_error(match dialect {
                        Dialect::Py2 => format!(
                            "sequence item {k}: expected string, {} found",
                            item.type_name()
                        ),
                        Dialect::Py3 => format!(
                            "sequence item {k}: expected str instance, {} found",
                            item.type_name()
                        ),
                    }));
                };
                if k > 0 {
                    out.extend_from_slice(s);
                }
                out.extend_from_slice(part);
            }
            Ok(ObjValue::str(out))
        }
        "split" | "rsplit" => {
            arity(name, args, 0, 2)?;
            let sep = opt_str_arg(name, args, 0)?;
            let max = match args.get(1) {
                Some(v) => v
                    .as_int()
                    .ok_or_else(|| type_error("an integer is required"))?,
                None => -1,
            };
            split(s, sep, max, name == "rsplit", dialect)
        }
        "splitlines" => {
            arity(name, args, 0, 1)?;
            let keepends = match args.first() {
                Some(v) => {
                    v.as_int()
                        .ok_or_else(|| type_error("an integer is required"))?
                        != 0
                }
                None => false,
            };
            Ok(splitlines(s, keepends, dialect))
        }
        "strip" | "lstrip" | "rstrip" => {
            arity(name, args, 0, 1)?;
            let chars = opt_str_arg(name, args, 0)?;
            Ok(strip(s, chars, name != "rstrip", name != "lstrip", dialect))
        }
        "find" | "rfind" => {
            arity(name, args, 1, 3)?;
            let needle = str_arg(name, &args[0])?;
            let Some((lo, hi)) = searched_range(s, &args[1..])? else {
                return Ok(ObjValue::Int(-1));
            };
            Ok(ObjValue::Int(
                find(&s[lo..hi], needle, name == "rfind").map_or(-1, |i| (lo + i) as i64),
            ))
        }
        "startswith" | "endswith" => {
            arity(name, args, 1, 1)?;
            let fix = str_arg(name, &args[0])?;
            Ok(ObjValue::Bool(if name == "startswith" {
                s.starts_with(fix)
            } else {
                s.ends_with(fix)
            }))
        }
        "upper" => upper(s, dialect),
        "lower" => Ok(lower(s, dialect)),
        "isdigit" => Ok(bool_of(is_digit)),
        "isalpha" => Ok(bool_of(|b, d| is_upper(b, d) || is_lower(b, d))),
        "isspace" => Ok(bool_of(is_space)),
        "isalnum" => Ok(bool_of(is_alnum)),
        // True when the string has a cased character and none of the other case.
        "isupper" | "islower" => {
            let upper = s.iter().any(|&b| is_upper(b, dialect));
            let lower = s.iter().any(|&b| is_lower(b, dialect));
            Ok(ObjValue::Bool(if name == "isupper" {
                upper && !lower
            } else {
                lower && !upper
            }))
        }
        "replace" => {
            arity(name, args, 2, 2)?;
            let old = str_arg(name, &args[0])?;
            let new = str_arg(name, &args[1])?;
            if old.is_empty() {
                let mut out = new.to_vec();
                for b in s {
                    out.push(*b);
                    out.extend_from_slice(new);
                }
                return Ok(ObjValue::str(out));
            }
            let mut out = Vec::new();
            let mut last = 0;
            for i in occurrences(s, old) {
                out.extend_from_slice(&s[last..i]);
                out.extend_from_slice(new);
                last = i + old.len();
            }
            out.extend_from_slice(&s[last..]);
            Ok(ObjValue::str(out))
        }
        "count" => {
            arity(name, args, 1, 3)?;
            let needle = str_arg(name, &args[0])?;
            let Some((lo, hi)) = searched_range(s, &args[1..])? else {
                return Ok(ObjValue::Int(0));
            };
            let s = &s[lo..hi];
            let n = if needle.is_empty() {
                s.len() + 1
            } else {
                occurrences(s, needle).len()
            };
            Ok(ObjValue::Int(n as i64))
        }
        other => Err(exc(
            "AttributeError",
            format!("'str' object has no attribute '{other}'"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(v: ObjValue) -> Vec<String> {
        match &v {
            ObjValue::List(l) => l
                .borrow()
                .iter()
                .map(|x| String::from_utf8_lossy(&x.to_str(Dialect::Py3)).into_owned())
                .collect(),
            other => panic!("not a list: {other:?}"),
        }
    }

    #[test]
    fn split_as_cpython() {
        let sp = |s: &str, sep: Option<&str>, max: i64, right: bool| {
            strs(
                split(
                    s.as_bytes(),
                    sep.map(str::as_bytes),
                    max,
                    right,
                    Dialect::Py3,
                )
                .unwrap(),
            )
        };
        assert_eq!(sp("  a b  c ", None, -1, false), ["a", "b", "c"]);
        assert_eq!(sp("  a b  c ", None, 1, false), ["a", "b  c "]);
        assert_eq!(sp("  a b  c ", None, 1, true), ["  a b", "c"]);
        assert_eq!(sp("a,b,,c", Some(","), -1, false), ["a", "b", "", "c"]);
        assert_eq!(sp("a,b,,c", Some(","), 1, false), ["a", "b,,c"]);
        assert_eq!(sp("a,b,,c", Some(","), 1, true), ["a,b,", "c"]);
        assert_eq!(sp("", Some(","), -1, false), [""]);
        assert_eq!(sp("", None, -1, false), Vec::<String>::new());
    }

    #[test]
    fn replace_and_count() {
        let s = |v: &str| ObjValue::str(v);
        let r = call("replace", b"aaa", &[s("a"), s("bb")], Dialect::Py3).unwrap();
        assert_eq!(r, s("bbbbbb"));
        let r = call("replace", b"ab", &[s(""), s("-")], Dialect::Py3).unwrap();
        assert_eq!(r, s("-a-b-"));
        let r = call("count", b"aaaa", &[s("aa")], Dialect::Py3).unwrap();
        assert_eq!(r, ObjValue::Int(2));
        let r = call("strip", b"xxhixx", &[s("x")], Dialect::Py2).unwrap();
        assert_eq!(r, s("hi"));
    }
}

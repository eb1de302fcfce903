//! The runtime functions (`direct_call(Builtin(name), ...)`), run natively.
//! Each does what its entry in `llops::RUNTIME_FUNCS` documents, exactly as
//! the C runtime does.

use super::code::Types;
use super::exec::Fail;
use super::{pystr, LlValue};
use rpy_ir::llops;
use std::io::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rt {
    StrFromInt,
    StrFromUint,
    StrFromFloat,
    StrFromFloatPy2,
    FormatInt,
    FormatUint,
    FormatIntPy2,
    FormatUintPy2,
    IntHex,
    IntOct,
    IntOctPy2,
    FormatFloat,
    FormatStr,
    StrFromChar,
    StrFromBool,
    StrToInt,
    StrToFloat,
    PrintStr,
    PrintChar,
    /// `rpy_print_str_utf8`/`rpy_print_char_utf8`: a Python 3 program's
    /// text, each char in UTF-8.
    PrintStrUtf8,
    PrintCharUtf8,
    IntPow,
    IntHighestBit,
    FloatPow,
    /// `rpy_math_<name>` of one or two floats: libm's function.
    Math1(&'static str),
    Math2(&'static str),
    MathLdexp,
    /// The time, os and gc leaves (`rpy_time_*`, `rpy_os_*`, `rpy_gc_*`), by name.
    Posix(&'static str),
}

impl Rt {
    pub fn from_name(name: &str) -> Option<Rt> {
        Some(match name {
            "rpy_str_from_int" => Rt::StrFromInt,
            "rpy_str_from_uint" => Rt::StrFromUint,
            "rpy_str_from_float" => Rt::StrFromFloat,
            "rpy_str_from_float_py2" => Rt::StrFromFloatPy2,
            "rpy_format_int" => Rt::FormatInt,
            "rpy_format_uint" => Rt::FormatUint,
            "rpy_format_int_py2" => Rt::FormatIntPy2,
            "rpy_format_uint_py2" => Rt::FormatUintPy2,
            "rpy_int_hex" => Rt::IntHex,
            "rpy_int_oct" => Rt::IntOct,
            "rpy_int_oct_py2" => Rt::IntOctPy2,
            "rpy_format_float" => Rt::FormatFloat,
            "rpy_format_str" => Rt::FormatStr,
            "rpy_str_from_char" => Rt::StrFromChar,
            "rpy_str_from_bool" => Rt::StrFromBool,
            "rpy_str_to_int" => Rt::StrToInt,
            "rpy_str_to_float" => Rt::StrToFloat,
            "rpy_print_str" => Rt::PrintStr,
            "rpy_print_char" => Rt::PrintChar,
            "rpy_print_str_utf8" => Rt::PrintStrUtf8,
            "rpy_print_char_utf8" => Rt::PrintCharUtf8,
            "rpy_int_pow" => Rt::IntPow,
            "rpy_int_highest_bit" => Rt::IntHighestBit,
            "rpy_float_pow" => Rt::FloatPow,
            "rpy_math_ldexp" => Rt::MathLdexp,
            _ => {
                let f = rpy_ir::llops::runtime_func(name)?;
                if let Some(m) = f.name.strip_prefix("rpy_math_") {
                    if crate::libm::unary(m).is_some() {
                        return Some(Rt::Math1(m));
                    }
                    crate::libm::binary(m)?;
                    return Some(Rt::Math2(m));
                }
                if ["rpy_os_", "rpy_time_", "rpy_gc_", "rpy_jit_"]
                    .iter()
                    .any(|p| f.name.starts_with(p))
                {
                    return Some(Rt::Posix(f.name));
                }
                return None;
            }
        })
    }
}

/// The conversion spec a format runtime function is given (`%-5.2f`).
fn format_spec(v: &LlValue, types: &Types) -> Result<pystr::FormatSpec, Fail> {
    let text = with_str(v, types, <[u8]>::to_vec)?;
    let mut at = 1;
    pystr::FormatSpec::parse(&text, &mut at).ok_or_else(|| {
        Fail::Internal(format!(
            "a bad format spec {:?}",
            String::from_utf8_lossy(&text)
        ))
    })
}

fn fatal(text: impl std::fmt::Display) -> Fail {
    Fail::Fatal(format!("fatal RPython error: {text}"))
}

fn signed(v: &LlValue) -> Result<i64, Fail> {
    match v {
        LlValue::Signed(n) => Ok(*n),
        other => Err(Fail::Internal(format!(
            "expected Signed, got {}",
            other.kind()
        ))),
    }
}

fn float(v: &LlValue) -> Result<f64, Fail> {
    match v {
        LlValue::Float(x) => Ok(*x),
        other => Err(Fail::Internal(format!(
            "expected Float, got {}",
            other.kind()
        ))),
    }
}

/// Runs `f` on the bytes of the string `v`.
fn with_str<R>(v: &LlValue, types: &Types, f: impl FnOnce(&[u8]) -> R) -> Result<R, Fail> {
    match v {
        LlValue::Ptr(Some(obj)) => types.with_chars(*obj, f).map_err(Fail::Internal),
        LlValue::Ptr(None) => Err(Fail::Internal("a null string".into())),
        other => Err(Fail::Internal(format!(
            "expected a string, got {}",
            other.kind()
        ))),
    }
}

/// `x ** y` for `y >= 0` on wrapping machine words.
pub(crate) fn int_pow(mut x: i64, mut y: i64) -> Option<i64> {
    if y < 0 {
        return None;
    }
    let mut r: i64 = 1;
    while y > 0 {
        if y & 1 == 1 {
            r = r.wrapping_mul(x);
        }
        x = x.wrapping_mul(x);
        y >>= 1;
    }
    Some(r)
}

pub(crate) fn call(
    rt: Rt,
    args: &[LlValue],
    types: &Types,
    out: &mut dyn Write,
) -> Result<LlValue, Fail> {
    let string = |bytes: Vec<u8>| match types.new_string(&bytes) {
        Some(s) => Ok(LlValue::Ptr(Some(s))),
        None => Err(Fail::Fatal("fatal RPython error: MemoryError".into())),
    };
    match rt {
        Rt::StrFromInt => string(signed(&args[0])?.to_string().into_bytes()),
        // An Unsigned value is held as the Signed word of the same bits.
        Rt::StrFromUint => string((signed(&args[0])? as u64).to_string().into_bytes()),
        Rt::StrFromFloat => string(pystr::float_repr(float(&args[0])?).into_bytes()),
        Rt::StrFromFloatPy2 => string(pystr::float_str_py2(float(&args[0])?).into_bytes()),
        Rt::FormatInt | Rt::FormatIntPy2 => {
            let spec = format_spec(&args[1], types)?;
            let n = signed(&args[0])?;
            let py2 = rt == Rt::FormatIntPy2;
            string(spec.pad(spec.format_magnitude(n.unsigned_abs(), n < 0, py2)))
        }
        Rt::FormatUint | Rt::FormatUintPy2 => {
            let spec = format_spec(&args[1], types)?;
            let py2 = rt == Rt::FormatUintPy2;
            string(spec.pad(spec.format_magnitude(signed(&args[0])? as u64, false, py2)))
        }
        Rt::IntHex | Rt::IntOct | Rt::IntOctPy2 => {
            let n = signed(&args[0])?;
            let (sign, mag) = (if n < 0 { "-" } else { "" }, n.unsigned_abs());
            string(
                match rt {
                    Rt::IntHex => format!("{sign}0x{mag:x}"),
                    Rt::IntOct => format!("{sign}0o{mag:o}"),
                    _ if mag == 0 => "0".to_string(),
                    _ => format!("{sign}0{mag:o}"),
                }
                .into_bytes(),
            )
        }
        Rt::FormatFloat => {
            let spec = format_spec(&args[1], types)?;
            string(spec.pad(spec.format_float(float(&args[0])?)))
        }
        Rt::FormatStr => {
            let spec = format_spec(&args[1], types)?;
            let mut text = with_str(&args[0], types, <[u8]>::to_vec)?;
            if let Some(p) = spec.precision {
                text.truncate(p);
            }
            string(spec.pad(text))
        }
        Rt::StrFromChar => match &args[0] {
            LlValue::Char(c) => string(vec![*c]),
            other => Err(Fail::Internal(format!(
                "expected Char, got {}",
                other.kind()
            ))),
        },
        Rt::StrFromBool => match &args[0] {
            LlValue::Bool(b) => string(if *b {
                b"True".to_vec()
            } else {
                b"False".to_vec()
            }),
            other => Err(Fail::Internal(format!(
                "expected Bool, got {}",
                other.kind()
            ))),
        },
        Rt::StrToInt => with_str(&args[0], types, pystr::parse_int)?
            .map(LlValue::Signed)
            .map_err(fatal),
        Rt::StrToFloat => with_str(&args[0], types, pystr::parse_float)?
            .map(LlValue::Float)
            .map_err(fatal),
        Rt::PrintStr | Rt::PrintStrUtf8 => {
            let utf8 = matches!(rt, Rt::PrintStrUtf8);
            let written = match &args[0] {
                LlValue::Ptr(None) => out.write_all(b"None"),
                s if utf8 => with_str(s, types, |b| {
                    out.write_all(&rpy_ir::graph::utf8_of_chars(b))
                })?,
                s => with_str(s, types, |b| out.write_all(b))?,
            };
            written.map_err(|e| Fail::Internal(format!("cannot write the output: {e}")))?;
            Ok(LlValue::Void)
        }
        Rt::PrintChar | Rt::PrintCharUtf8 => {
            let LlValue::Char(c) = args[0] else {
                return Err(Fail::Internal(format!(
                    "rpy_print_char takes a Char, got {:?}",
                    args[0]
                )));
            };
            let written = if matches!(rt, Rt::PrintCharUtf8) {
                out.write_all(&rpy_ir::graph::utf8_of_chars(&[c]))
            } else {
                out.write_all(&[c])
            };
            written.map_err(|e| Fail::Internal(format!("cannot write the output: {e}")))?;
            Ok(LlValue::Void)
        }
        Rt::IntPow => int_pow(signed(&args[0])?, signed(&args[1])?)
            .map(LlValue::Signed)
            .ok_or_else(|| fatal("ValueError: integer power with a negative exponent")),
        Rt::IntHighestBit => {
            let n = signed(&args[0])?;
            Ok(LlValue::Signed(if n == 0 {
                -1
            } else {
                n.trailing_zeros() as i64
            }))
        }
        Rt::FloatPow => Ok(LlValue::Float(float(&args[0])?.powf(float(&args[1])?))),
        Rt::Math1(name) => {
            let (f, _) = crate::libm::unary(name).expect("a libm function");
            Ok(LlValue::Float(f(float(&args[0])?)))
        }
        Rt::Math2(name) => {
            let (f, _) = crate::libm::binary(name).expect("a libm function");
            Ok(LlValue::Float(f(float(&args[0])?, float(&args[1])?)))
        }
        Rt::MathLdexp => Ok(LlValue::Float(crate::libm::ldexp(
            float(&args[0])?,
            signed(&args[1])?,
        ))),
        Rt::Posix(name) => posix_call(name, args, types, &string, out),
    }
}

thread_local! {
    /// The errno of the last os leaf that failed (`rpy_os_errno`).
    static LAST_ERRNO: std::cell::Cell<i64> = const { std::cell::Cell::new(0) };
    /// `gc.isenabled()`: the LLInterpreter frees nothing before it is
    /// dropped, so a collection only runs finalizers, but the flag is kept.
    static GC_ENABLED: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
    /// The `jit.set_param` calls the program made, (name, value as text),
    /// for the JIT running it (`take_jit_settings`).
    static JIT_SETTINGS: std::cell::RefCell<Vec<(String, String)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The `jit.set_param` calls made since the last call of this, in order:
/// the LLInterpreter has no JIT of its own; the one running the program
/// (`rpy interp --jit`) applies them.
pub fn take_jit_settings() -> Vec<(String, String)> {
    JIT_SETTINGS.with(|s| std::mem::take(&mut *s.borrow_mut()))
}

/// An os leaf's int result: -1 with the errno kept on failure.
fn os_result(r: Result<i64, i32>) -> LlValue {
    LlValue::Signed(r.unwrap_or_else(|code| {
        LAST_ERRNO.with(|e| e.set(code as i64));
        -1
    }))
}

/// The identity hash of `obj`, as the C runtime's `rpy_gc_identityhash`
/// makes it: 24 bits kept in the object's header word from bit
/// `HASH_SHIFT`, given out the first time it is asked for from a counter
/// (the interpreter's own, so the first objects hashed get the
/// executable's hashes).
fn identity_hash(obj: super::ObjRef, types: &Types) -> Result<i64, Fail> {
    use super::code::HASH_SHIFT;
    let header = types.heap.read_word(obj.addr()).map_err(Fail::Internal)?;
    let mut h = header >> HASH_SHIFT;
    if h == 0 {
        loop {
            let counter = types.hashes.get().wrapping_add(1);
            types.hashes.set(counter);
            h = counter.wrapping_mul(2654435761) & 0xff_ffff;
            if h != 0 {
                break;
            }
        }
        types
            .heap
            .write_word(obj.addr(), header | (h << HASH_SHIFT))
            .map_err(Fail::Internal)?;
    }
    Ok(h as i64)
}

/// The time and os leaves, making the system calls the C runtime makes
/// (`crate::posix`); `os.write(1, ...)` writes to the interpreter's output.
fn posix_call(
    name: &str,
    args: &[LlValue],
    types: &Types,
    string: &dyn Fn(Vec<u8>) -> Result<LlValue, Fail>,
    out: &mut dyn Write,
) -> Result<LlValue, Fail> {
    use crate::posix;
    let bytes = |i: usize| with_str(&args[i], types, <[u8]>::to_vec);
    let nullable = |r: Option<Vec<u8>>| match r {
        Some(b) => string(b),
        None => Ok(LlValue::Ptr(None)),
    };
    Ok(match name {
        "rpy_time_time" => LlValue::Float(posix::time()),
        "rpy_time_clock" => LlValue::Float(posix::process_time()),
        "rpy_time_monotonic" => LlValue::Float(posix::monotonic()),
        llops::GC_COLLECT_NOW => LlValue::Void,
        "rpy_gc_set_enabled" => {
            let LlValue::Bool(on) = args[0] else {
                return Err(Fail::Internal(format!(
                    "rpy_gc_set_enabled takes a Bool, got {:?}",
                    args[0]
                )));
            };
            GC_ENABLED.with(|e| e.set(on));
            LlValue::Void
        }
        "rpy_gc_isenabled" => LlValue::Bool(GC_ENABLED.with(|e| e.get())),
        "rpy_gc_identityhash" => LlValue::Signed(match &args[0] {
            LlValue::Ptr(Some(obj)) => identity_hash(*obj, types)?,
            _ => 0,
        }),
        // The identity hash while it is unique, as in the C runtime: once
        // 2^24 objects have one, a new hash could repeat an old one.
        "rpy_gc_unique_id" => {
            let h = match &args[0] {
                LlValue::Ptr(Some(obj)) => identity_hash(*obj, types)?,
                _ => 0,
            };
            if types.hashes.get() > 0xff_ffff {
                return Err(fatal(
                    "NotImplementedError: compute_unique_id(): more than 16777215 objects \
                     were given an identity hash, and rpy's ids are unique only among those",
                ));
            }
            LlValue::Signed(h)
        }
        "rpy_jit_set_param_int" | "rpy_jit_set_param_str" => {
            let param = bytes(0)?;
            let value = match &args[1] {
                LlValue::Signed(n) => n.to_string().into_bytes(),
                _ => bytes(1)?,
            };
            JIT_SETTINGS.with(|s| {
                s.borrow_mut().push((
                    String::from_utf8_lossy(&param).into_owned(),
                    String::from_utf8_lossy(&value).into_owned(),
                ))
            });
            LlValue::Void
        }
        "rpy_time_sleep" => {
            posix::sleep(float(&args[0])?);
            LlValue::Void
        }
        "rpy_os_errno" => LlValue::Signed(LAST_ERRNO.with(|e| e.get())),
        "rpy_os_write" => {
            let fd = signed(&args[0])?;
            let s = bytes(1)?;
            if fd == 1 {
                out.write_all(&s)
                    .map_err(|e| Fail::Internal(format!("cannot write the output: {e}")))?;
                LlValue::Signed(s.len() as i64)
            } else {
                os_result(posix::write(fd, &s))
            }
        }
        "rpy_os_read" => match posix::read(signed(&args[0])?, signed(&args[1])?) {
            Ok(b) => string(b)?,
            Err(code) => {
                LAST_ERRNO.with(|e| e.set(code as i64));
                LlValue::Ptr(None)
            }
        },
        "rpy_os_open" => os_result(posix::open(
            &bytes(0)?,
            signed(&args[1])?,
            signed(&args[2])?,
        )),
        "rpy_os_close" => os_result(posix::close(signed(&args[0])?).map(|()| 0)),
        "rpy_os_lseek" => os_result(posix::lseek(
            signed(&args[0])?,
            signed(&args[1])?,
            signed(&args[2])?,
        )),
        "rpy_os_unlink" => os_result(posix::unlink(&bytes(0)?).map(|()| 0)),
        "rpy_os_strerror" => string(posix::strerror(signed(&args[0])?))?,
        "rpy_os_getenv" => nullable(posix::getenv(&bytes(0)?))?,
        "rpy_os_getpid" => LlValue::Signed(posix::getpid()),
        "rpy_os_isatty" => LlValue::Bool(posix::isatty(signed(&args[0])?)),
        "rpy_os_path_kind" => LlValue::Signed(match posix::stat_is_dir(&bytes(0)?) {
            None => 0,
            Some(false) => 1,
            Some(true) => 2,
        }),
        "rpy_os_path_join" => string(posix::path_join(&[&bytes(0)?, &bytes(1)?]))?,
        "rpy_os_path_dirname" => string(posix::path_dirname(&bytes(0)?))?,
        "rpy_os_path_basename" => string(posix::path_basename(&bytes(0)?))?,
        _ => return Err(Fail::Internal(format!("no runtime function {name}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_hashes_are_the_c_runtimes_kept_in_the_header() {
        let mut table = rpy_ir::lltype::TypeTable::new();
        table.insert(rpy_ir::lltype::STR.into(), rpy_ir::lltype::str_type());
        let types = Types::build(&table);
        let (a, b) = (
            types.new_string(b"a").unwrap(),
            types.new_string(b"b").unwrap(),
        );
        // rpy_gc_identityhash: counter * 2654435761, 24 bits.
        let first = (2654435761u64 & 0xff_ffff) as i64;
        let second = ((2 * 2654435761u64) & 0xff_ffff) as i64;
        assert_eq!(identity_hash(a, &types).ok(), Some(first));
        assert_eq!(identity_hash(b, &types).ok(), Some(second));
        assert_eq!(identity_hash(a, &types).ok(), Some(first), "kept");
        let header = types.heap.read_word(a.addr()).unwrap();
        assert_eq!(header >> super::super::code::HASH_SHIFT, first as u64);
        assert_eq!(types.type_of(a), Ok(types.str_ty), "the type id stays");
    }

    #[test]
    fn every_runtime_function_is_implemented() {
        for f in rpy_ir::llops::RUNTIME_FUNCS {
            assert!(Rt::from_name(f.name).is_some(), "{}", f.name);
        }
    }

    #[test]
    fn pow_wraps() {
        assert_eq!(int_pow(3, 4), Some(81));
        assert_eq!(int_pow(2, 64), Some(0));
        assert_eq!(int_pow(-2, 63), Some(i64::MIN));
        assert_eq!(int_pow(5, 0), Some(1));
        assert_eq!(int_pow(2, -1), None);
    }
}

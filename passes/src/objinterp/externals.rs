//! The standard modules' functions (`language::stdmods`: `$math.sqrt`,
//! `$os.write`, `$time.time`...) as the translated program runs them: the
//! math functions are libm's with CPython's domain and range errors (the
//! same libm the C runtime calls), the os and time functions the same
//! system calls (`crate::posix`).

use super::ops::{exc, Exc, OpResult};
use super::value::ObjValue;
use rpy_ir::ast::Dialect;
use rpy_llinterp::{libm, posix};
use std::io::Write;

fn float_arg(name: &str, args: &[ObjValue], i: usize) -> Result<f64, Exc> {
    match args.get(i) {
        Some(ObjValue::Float(x)) => Ok(*x),
        Some(v) => match v.as_int() {
            Some(n) => Ok(n as f64),
            None => Err(exc(
                "TypeError",
                format!("{name}() needs a float, not {}", v.type_name()),
            )),
        },
        None => Err(exc("TypeError", format!("{name}() takes more arguments"))),
    }
}

fn int_arg(name: &str, args: &[ObjValue], i: usize) -> Result<i64, Exc> {
    args.get(i)
        .and_then(ObjValue::as_int)
        .ok_or_else(|| exc("TypeError", format!("{name}() needs an int argument")))
}

fn str_arg<'a>(name: &str, args: &'a [ObjValue], i: usize) -> Result<&'a [u8], Exc> {
    match args.get(i) {
        Some(ObjValue::Str(s)) => Ok(s),
        _ => Err(exc(
            "TypeError",
            format!("{name}() needs a string argument"),
        )),
    }
}

fn arity(name: &str, args: &[ObjValue], ok: bool) -> Result<(), Exc> {
    if ok {
        Ok(())
    } else {
        Err(exc(
            "TypeError",
            format!(
                "{name}() takes another number of arguments ({} given)",
                args.len()
            ),
        ))
    }
}

fn os_error(code: i32) -> Exc {
    exc("OSError", posix::os_error_message(code))
}

fn checked(args: &[f64], r: f64, can_overflow: bool) -> OpResult {
    match libm::error(args, r, can_overflow) {
        Some((class, msg)) => Err(exc(class, msg)),
        None => Ok(ObjValue::Float(r)),
    }
}

/// Python 3's int of a float result (`floor`, `ceil`, `trunc`).
fn to_int(r: f64) -> OpResult {
    if r.is_nan() {
        Err(exc("ValueError", "cannot convert float NaN to integer"))
    } else if r.is_infinite() {
        Err(exc(
            "OverflowError",
            "cannot convert float infinity to integer",
        ))
    } else {
        Ok(ObjValue::Int(r as i64))
    }
}

thread_local! {
    /// `gc.isenabled()` at import time.
    static GC_ENABLED: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Calls the standard-module function `name` (`math.sqrt`); `None` when
/// `name` is not one. `out` is the program's standard output, which
/// `os.write(1, ...)` writes to.
pub fn call(
    name: &str,
    args: &[ObjValue],
    dialect: Dialect,
    out: &mut dyn Write,
) -> Option<OpResult> {
    let (module, func) = name.rsplit_once('.')?;
    if !crate::language::stdmods::MODULES.contains(&module) {
        return None;
    }
    Some((|| match (module, func) {
        ("math", "degrees" | "radians") => {
            arity(name, args, args.len() == 1)?;
            let x = float_arg(name, args, 0)?;
            let k = if func == "degrees" {
                libm::RAD_TO_DEG
            } else {
                libm::DEG_TO_RAD
            };
            Ok(ObjValue::Float(x * k))
        }
        ("math", "isnan" | "isinf" | "isfinite") => {
            arity(name, args, args.len() == 1)?;
            let x = float_arg(name, args, 0)?;
            Ok(ObjValue::Bool(match func {
                "isnan" => x.is_nan(),
                "isinf" => x.is_infinite(),
                _ => x.is_finite(),
            }))
        }
        ("math", "log") if args.len() == 2 => {
            let (log, _) = libm::unary("log").expect("log");
            let x = float_arg(name, args, 0)?;
            let base = float_arg(name, args, 1)?;
            let num = log(x);
            let den = log(base);
            if let Some((class, msg)) =
                libm::error(&[x], num, false).or_else(|| libm::error(&[base], den, false))
            {
                return Err(exc(class, msg));
            }
            if den == 0.0 {
                return Err(exc("ZeroDivisionError", "float division by zero"));
            }
            Ok(ObjValue::Float(num / den))
        }
        ("math", "ldexp") => {
            arity(name, args, args.len() == 2)?;
            let x = float_arg(name, args, 0)?;
            let e = int_arg(name, args, 1)?;
            checked(&[x], libm::ldexp(x, e), true)
        }
        ("math", f) => {
            if let Some((c, can_overflow)) = libm::unary(f) {
                arity(name, args, args.len() == 1)?;
                let x = float_arg(name, args, 0)?;
                let r = checked(&[x], c(x), can_overflow)?;
                match (f, dialect, r) {
                    ("floor" | "ceil" | "trunc", Dialect::Py3, ObjValue::Float(r)) => to_int(r),
                    (_, _, r) => Ok(r),
                }
            } else if let Some((c, can_overflow)) = libm::binary(f) {
                arity(name, args, args.len() == 2)?;
                let x = float_arg(name, args, 0)?;
                let y = float_arg(name, args, 1)?;
                let r = c(x, y);
                if matches!(f, "atan2" | "copysign") {
                    Ok(ObjValue::Float(r))
                } else {
                    checked(&[x, y], r, can_overflow)
                }
            } else {
                Err(exc(
                    "AttributeError",
                    format!("module 'math' has no attribute '{f}'"),
                ))
            }
        }
        ("time", "time") => Ok(ObjValue::Float(posix::time())),
        ("time", "clock" | "process_time") => Ok(ObjValue::Float(posix::process_time())),
        ("time", "perf_counter" | "monotonic") => Ok(ObjValue::Float(posix::monotonic())),
        // Import-time code runs on reference counting and finds no cycles
        // to collect: gc.collect() finds 0 unreachable objects.
        ("gc", "collect") => {
            arity(name, args, args.len() <= 1)?;
            if !args.is_empty() {
                int_arg(name, args, 0)?;
            }
            Ok(ObjValue::Int(0))
        }
        ("gc", "enable" | "disable") => {
            GC_ENABLED.with(|e| e.set(func == "enable"));
            Ok(ObjValue::None)
        }
        ("gc", "isenabled") => Ok(ObjValue::Bool(GC_ENABLED.with(|e| e.get()))),
        ("time", "sleep") => {
            posix::sleep(float_arg(name, args, 0)?);
            Ok(ObjValue::None)
        }
        ("os", "write") => {
            let fd = int_arg(name, args, 0)?;
            let s = str_arg(name, args, 1)?;
            if fd == 1 {
                out.write_all(s)
                    .and_then(|()| out.flush())
                    .map_err(|e| exc("OSError", e.to_string()))?;
                return Ok(ObjValue::Int(s.len() as i64));
            }
            posix::write(fd, s).map(ObjValue::Int).map_err(os_error)
        }
        ("os", "read") => {
            let fd = int_arg(name, args, 0)?;
            let n = int_arg(name, args, 1)?;
            posix::read(fd, n).map(ObjValue::str).map_err(os_error)
        }
        ("os", "open") => {
            let path = str_arg(name, args, 0)?;
            let flags = int_arg(name, args, 1)?;
            let mode = if args.len() > 2 {
                int_arg(name, args, 2)?
            } else {
                0o777
            };
            posix::open(path, flags, mode)
                .map(ObjValue::Int)
                .map_err(|code| {
                    exc(
                        "OSError",
                        format!(
                            "{}: '{}'",
                            posix::os_error_message(code),
                            String::from_utf8_lossy(path)
                        ),
                    )
                })
        }
        ("os", "close") => posix::close(int_arg(name, args, 0)?)
            .map(|()| ObjValue::None)
            .map_err(os_error),
        ("os", "lseek") => posix::lseek(
            int_arg(name, args, 0)?,
            int_arg(name, args, 1)?,
            int_arg(name, args, 2)?,
        )
        .map(ObjValue::Int)
        .map_err(os_error),
        ("os", "unlink") => posix::unlink(str_arg(name, args, 0)?)
            .map(|()| ObjValue::None)
            .map_err(os_error),
        ("os", "getenv") => Ok(posix::getenv(str_arg(name, args, 0)?)
            .map(ObjValue::str)
            .unwrap_or(ObjValue::None)),
        ("os", "getpid") => Ok(ObjValue::Int(posix::getpid())),
        ("os", "isatty") => Ok(ObjValue::Bool(posix::isatty(int_arg(name, args, 0)?))),
        ("os", "strerror") => Ok(ObjValue::str(posix::strerror(int_arg(name, args, 0)?))),
        ("os.path", "join") => {
            let parts = (0..args.len())
                .map(|i| str_arg(name, args, i))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(ObjValue::str(posix::path_join(&parts)))
        }
        ("os.path", "dirname") => Ok(ObjValue::str(posix::path_dirname(str_arg(name, args, 0)?))),
        ("os.path", "abspath") => Ok(ObjValue::str(posix::path_abspath(str_arg(name, args, 0)?))),
        ("os.path", "realpath") => Ok(ObjValue::str(posix::path_realpath(str_arg(name, args, 0)?))),
        ("os.path", "basename") => Ok(ObjValue::str(posix::path_basename(str_arg(name, args, 0)?))),
        ("os.path", "exists" | "isdir" | "isfile") => {
            let kind = posix::stat_is_dir(str_arg(name, args, 0)?);
            Ok(ObjValue::Bool(match func {
                "exists" => kind.is_some(),
                "isdir" => kind == Some(true),
                _ => kind == Some(false),
            }))
        }
        _ => Err(exc(
            "AttributeError",
            format!("'{name}' is not supported yet"),
        )),
    })())
}

//! The functions of the standard modules (`language::stdmods` maps them to
//! builtins named `module.function`) as the annotator types them, as the
//! original's `extfunc` registry and `ll_math`/`rposix` signatures do:
//! the math functions take floats (an int converts) and give a float (or
//! an int for `floor`/`ceil`/`trunc` in Python 3, a bool for the
//! predicates); `os.write(fd, s)` gives the count written, `os.read(fd, n)`
//! a string, `os.getenv(name)` a string or None; the clocks give floats.

use crate::language::stdmods::{MATH_FUNCTIONS_1, MATH_FUNCTIONS_2};
use rpy_ir::annotation::SomeValue;
use rpy_ir::ast::Dialect;

fn number(a: &SomeValue) -> bool {
    matches!(
        a.general(),
        SomeValue::Integer {
            unsigned: false,
            ..
        } | SomeValue::Bool
            | SomeValue::Float
    )
}

fn int(a: &SomeValue) -> bool {
    matches!(
        a.general(),
        SomeValue::Integer {
            unsigned: false,
            ..
        } | SomeValue::Bool
    )
}

fn string(a: &SomeValue) -> bool {
    matches!(
        a.general(),
        SomeValue::String {
            can_be_none: false,
            ..
        } | SomeValue::Char
    )
}

fn str_result(can_be_none: bool) -> SomeValue {
    SomeValue::String {
        can_be_none,
        no_nul: false,
    }
}

fn signed() -> SomeValue {
    SomeValue::Integer {
        nonneg: false,
        unsigned: false,
    }
}

/// The result of calling the standard-module function `name` with `args`:
/// `None` when `name` is not one (or the call is not typed here),
/// `Some(Err(why))` when RPython rejects these arguments.
pub(super) fn external_call(
    name: &str,
    args: &[SomeValue],
    dialect: Dialect,
) -> Option<Result<SomeValue, String>> {
    let (module, func) = name.rsplit_once('.')?;
    if !crate::language::stdmods::MODULES.contains(&module) {
        return None;
    }
    let expect = |ok: bool, what: &str| -> Result<(), String> {
        if ok {
            Ok(())
        } else {
            let shown: Vec<String> = args.iter().map(SomeValue::describe).collect();
            Err(format!(
                "{name}() takes {what} in RPython, not {}",
                if shown.is_empty() {
                    "no argument".to_string()
                } else {
                    shown.join(", ")
                }
            ))
        }
    };
    let result = (|| -> Result<SomeValue, String> {
        Ok(match (module, func) {
            ("math", "floor" | "ceil" | "trunc") => {
                expect(args.len() == 1 && number(&args[0]), "one float")?;
                match dialect {
                    Dialect::Py2 => SomeValue::Float,
                    Dialect::Py3 => signed(),
                }
            }
            ("math", f) if MATH_FUNCTIONS_1.contains(&f) || f == "log2" => {
                expect(args.len() == 1 && number(&args[0]), "one float")?;
                SomeValue::Float
            }
            ("math", f) if MATH_FUNCTIONS_2.contains(&f) => {
                expect(args.len() == 2 && args.iter().all(number), "two floats")?;
                SomeValue::Float
            }
            ("math", "log") => {
                expect(
                    (1..=2).contains(&args.len()) && args.iter().all(number),
                    "a float and an optional base",
                )?;
                SomeValue::Float
            }
            ("math", "ldexp") => {
                expect(
                    args.len() == 2 && number(&args[0]) && int(&args[1]),
                    "a float and an int",
                )?;
                SomeValue::Float
            }
            ("math", "isinf" | "isnan" | "isfinite") => {
                expect(args.len() == 1 && number(&args[0]), "one float")?;
                SomeValue::Bool
            }
            ("time", "time" | "clock" | "perf_counter" | "process_time" | "monotonic") => {
                expect(args.is_empty(), "no argument")?;
                SomeValue::Float
            }
            // gc.collect([generation]): None in RPython (CPython's count of
            // unreachable objects is not translated).
            ("gc", "collect") => {
                expect(
                    args.is_empty() || (args.len() == 1 && int(&args[0])),
                    "no argument or a generation",
                )?;
                SomeValue::None
            }
            ("gc", "enable" | "disable") => {
                expect(args.is_empty(), "no argument")?;
                SomeValue::None
            }
            ("gc", "isenabled") => {
                expect(args.is_empty(), "no argument")?;
                SomeValue::Bool
            }
            ("time", "sleep") => {
                expect(args.len() == 1 && number(&args[0]), "one float")?;
                SomeValue::None
            }
            ("os", "write") => {
                expect(
                    args.len() == 2 && int(&args[0]) && string(&args[1]),
                    "a file descriptor and a string",
                )?;
                SomeValue::Integer {
                    nonneg: true,
                    unsigned: false,
                }
            }
            ("os", "read") => {
                expect(
                    args.len() == 2 && int(&args[0]) && int(&args[1]),
                    "a file descriptor and a count",
                )?;
                str_result(false)
            }
            ("os", "open") => {
                expect(
                    (2..=3).contains(&args.len()) && string(&args[0]) && args[1..].iter().all(int),
                    "a path, flags and an optional mode",
                )?;
                SomeValue::Integer {
                    nonneg: true,
                    unsigned: false,
                }
            }
            ("os", "close") => {
                expect(args.len() == 1 && int(&args[0]), "a file descriptor")?;
                SomeValue::None
            }
            ("os", "lseek") => {
                expect(
                    args.len() == 3 && args.iter().all(int),
                    "a file descriptor, an offset and a whence",
                )?;
                signed()
            }
            ("os", "getenv") => {
                expect(args.len() == 1 && string(&args[0]), "a name")?;
                str_result(true)
            }
            ("os", "getpid") => {
                expect(args.is_empty(), "no argument")?;
                signed()
            }
            ("os", "isatty") => {
                expect(args.len() == 1 && int(&args[0]), "a file descriptor")?;
                SomeValue::Bool
            }
            ("os", "unlink") => {
                expect(args.len() == 1 && string(&args[0]), "a path")?;
                SomeValue::None
            }
            ("os", "strerror") => {
                expect(args.len() == 1 && int(&args[0]), "an errno value")?;
                str_result(false)
            }
            ("os.path", "join") => {
                expect(!args.is_empty() && args.iter().all(string), "strings")?;
                str_result(false)
            }
            ("os.path", "dirname" | "basename") => {
                expect(args.len() == 1 && string(&args[0]), "a path")?;
                str_result(false)
            }
            ("os.path", "exists" | "isdir" | "isfile") => {
                expect(args.len() == 1 && string(&args[0]), "a path")?;
                SomeValue::Bool
            }
            _ => return Err(format!("{name}() is not supported in translated code yet")),
        })
    })();
    Some(result)
}

//! The standard modules as RPython has them: `math`, `time`, `os`,
//! `os.path`, `errno`, `sys` and `gc`.
//!
//! They are not read from files. A program that imports one gets a module
//! object whose functions are builtin constants named after the module
//! (`$math.sqrt`, `$os.write`, `$time.time`) that the later stages know by
//! name (the annotator's `externals`, the object interpreter's `externals`,
//! the rtyper's `externals`), and whose numbers are the translated
//! program's (`math.pi`, `sys.maxint`, `os.O_RDONLY`, `errno.ENOENT`).

use rpy_ir::ast::Dialect;
use rpy_ir::graph::Constant;

/// The standard modules a program may import.
pub(crate) const MODULES: &[&str] = &["sys", "os", "os.path", "math", "time", "errno", "gc"];

/// The functions of `math` in both dialects: one float argument, one float
/// result (`floor`, `ceil` and `trunc` give an int in Python 3).
pub const MATH_FUNCTIONS_1: &[&str] = &[
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "degrees", "erf",
    "erfc", "exp", "expm1", "fabs", "floor", "log10", "log1p", "radians", "sin", "sinh", "sqrt",
    "tan", "tanh", "trunc",
];

/// The functions of `math` of two float arguments and a float result
/// (`log` takes one or two).
pub const MATH_FUNCTIONS_2: &[&str] = &["atan2", "copysign", "fmod", "hypot", "pow"];

/// The predicates of `math`: one float argument, a bool.
const MATH_PREDICATES: &[&str] = &["isinf", "isnan"];

/// The functions of `os` translated code may call.
const OS_FUNCTIONS: &[&str] = &[
    "write", "read", "open", "close", "lseek", "getenv", "getpid", "isatty", "unlink", "strerror",
];

/// The functions of `os.path` translated code may call.
const OS_PATH_FUNCTIONS: &[&str] = &[
    "join", "dirname", "basename", "exists", "isdir", "isfile", "splitext",
];

/// The functions of `os.path` only import-time code calls (a module
/// finding its own files); the later stages do not know them, so a
/// translated call is reported by the annotator.
const OS_PATH_IMPORT_TIME_FUNCTIONS: &[&str] = &["abspath", "realpath"];

/// The flags of `os.open` and `os.lseek`, as Linux numbers them.
const OS_FLAGS: &[(&str, i64)] = &[
    ("O_RDONLY", 0),
    ("O_WRONLY", 1),
    ("O_RDWR", 2),
    ("O_CREAT", 0o100),
    ("O_EXCL", 0o200),
    ("O_TRUNC", 0o1000),
    ("O_APPEND", 0o2000),
    ("SEEK_SET", 0),
    ("SEEK_CUR", 1),
    ("SEEK_END", 2),
];

/// The errno values, as Linux numbers them.
const ERRNO: &[(&str, i64)] = &[
    ("EPERM", 1),
    ("ENOENT", 2),
    ("EINTR", 4),
    ("EIO", 5),
    ("EBADF", 9),
    ("EAGAIN", 11),
    ("ENOMEM", 12),
    ("EACCES", 13),
    ("EEXIST", 17),
    ("ENOTDIR", 20),
    ("EISDIR", 21),
    ("EINVAL", 22),
    ("ENOSPC", 28),
    ("EPIPE", 32),
];

/// Is `name` one of the standard modules?
pub(crate) fn is_std_module(name: &str) -> bool {
    MODULES.contains(&name)
}

/// The modules importing `name` brings with it (`os` holds `os.path`).
pub(crate) fn implied_modules(name: &str) -> &'static [&'static str] {
    match name {
        "os" => &["os.path"],
        _ => &[],
    }
}

/// The attributes of standard module `name` in `dialect`, as the values
/// translated code reads: functions as builtins named `module.function`,
/// numbers as constants. (Submodules are added by the import machinery.)
pub(crate) fn module_attributes(name: &str, dialect: Dialect) -> Vec<(String, Constant)> {
    let word_max = Constant::Int(i64::MAX);
    let functions = |module: &str, names: &[&str]| -> Vec<(String, Constant)> {
        names
            .iter()
            .map(|f| (f.to_string(), Constant::Builtin(format!("{module}.{f}"))))
            .collect()
    };
    let ints = |table: &[(&str, i64)]| -> Vec<(String, Constant)> {
        table
            .iter()
            .map(|(n, v)| (n.to_string(), Constant::Int(*v)))
            .collect()
    };
    let mut out = Vec::new();
    match name {
        "sys" => {
            if dialect == Dialect::Py2 {
                out.push(("maxint".to_string(), word_max.clone()));
            }
            out.push(("maxsize".to_string(), word_max));
        }
        "math" => {
            out.extend(functions("math", MATH_FUNCTIONS_1));
            out.extend(functions("math", MATH_FUNCTIONS_2));
            out.extend(functions("math", MATH_PREDICATES));
            out.extend(functions("math", &["log", "ldexp"]));
            out.push(("pi".to_string(), Constant::Float(std::f64::consts::PI)));
            out.push(("e".to_string(), Constant::Float(std::f64::consts::E)));
            if dialect == Dialect::Py3 {
                out.extend(functions("math", &["isfinite", "log2"]));
                out.push(("tau".to_string(), Constant::Float(std::f64::consts::TAU)));
                out.push(("inf".to_string(), Constant::Float(f64::INFINITY)));
                out.push(("nan".to_string(), Constant::Float(f64::NAN)));
            }
        }
        "time" => {
            out.extend(functions("time", &["time", "sleep"]));
            match dialect {
                Dialect::Py2 => out.extend(functions("time", &["clock"])),
                Dialect::Py3 => out.extend(functions(
                    "time",
                    &["perf_counter", "process_time", "monotonic"],
                )),
            }
        }
        "os" => {
            out.extend(functions("os", OS_FUNCTIONS));
            out.extend(ints(OS_FLAGS));
        }
        "os.path" => {
            out.extend(functions("os.path", OS_PATH_FUNCTIONS));
            out.extend(functions("os.path", OS_PATH_IMPORT_TIME_FUNCTIONS));
            out.push(("sep".to_string(), Constant::Str("/".into())));
        }
        "errno" => out.extend(ints(ERRNO)),
        // The collector's controls, as the original's rgc has them.
        "gc" => out.extend(functions(
            "gc",
            &["collect", "enable", "disable", "isenabled"],
        )),
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn math_names_its_functions_after_the_module() {
        let attrs = module_attributes("math", Dialect::Py3);
        assert!(attrs.contains(&("sqrt".into(), Constant::Builtin("math.sqrt".into()))));
        assert!(attrs.iter().any(|(n, _)| n == "tau"));
        let py2 = module_attributes("math", Dialect::Py2);
        assert!(!py2.iter().any(|(n, _)| n == "tau"));
    }

    #[test]
    fn sys_maxint_is_python_2s() {
        let has = |d, n: &str| module_attributes("sys", d).iter().any(|(a, _)| a == n);
        assert!(has(Dialect::Py2, "maxint") && !has(Dialect::Py3, "maxint"));
        assert!(has(Dialect::Py3, "maxsize"));
    }
}

//! The builtin exception classes of each dialect and their bases.

use rpy_ir::ast::Dialect;

/// Every builtin exception class either dialect has, each after its base.
pub const BUILTIN_EXCEPTIONS: &[&str] = &[
    "BaseException",
    "SystemExit",
    "KeyboardInterrupt",
    "GeneratorExit",
    "Exception",
    "StopIteration",
    "StandardError",
    "ArithmeticError",
    "FloatingPointError",
    "OverflowError",
    "ZeroDivisionError",
    "AssertionError",
    "AttributeError",
    "EnvironmentError",
    "OSError",
    "IOError",
    "EOFError",
    "ImportError",
    "LookupError",
    "IndexError",
    "KeyError",
    "MemoryError",
    "NameError",
    "UnboundLocalError",
    "RuntimeError",
    "NotImplementedError",
    "RecursionError",
    "TypeError",
    "ValueError",
    "UnicodeError",
];

/// The base of the builtin exception class `name` in `dialect`: `None` when
/// the dialect has no such class, `Some(None)` for `BaseException`.
pub fn builtin_exception_base(name: &str, dialect: Dialect) -> Option<Option<&'static str>> {
    let py2 = dialect == Dialect::Py2;
    // Python 2 puts the errors a program can cause under StandardError.
    let standard = if py2 { "StandardError" } else { "Exception" };
    let base = match name {
        "BaseException" => return Some(None),
        "SystemExit" | "KeyboardInterrupt" | "GeneratorExit" | "Exception" => "BaseException",
        "StopIteration" => "Exception",
        "StandardError" if py2 => "Exception",
        "ArithmeticError" | "AssertionError" | "AttributeError" | "EOFError" | "ImportError"
        | "LookupError" | "MemoryError" | "NameError" | "RuntimeError" | "TypeError"
        | "ValueError" => standard,
        // Python 3 merged EnvironmentError and IOError into OSError.
        "EnvironmentError" if py2 => standard,
        "OSError" | "IOError" if py2 => "EnvironmentError",
        "OSError" => standard,
        "FloatingPointError" | "OverflowError" | "ZeroDivisionError" => "ArithmeticError",
        "IndexError" | "KeyError" => "LookupError",
        "UnboundLocalError" => "NameError",
        "NotImplementedError" => "RuntimeError",
        "RecursionError" if !py2 => "RuntimeError",
        "UnicodeError" => "ValueError",
        _ => return None,
    };
    Some(Some(base))
}

/// Is `class` the builtin `ancestor` or derived from it? (Builtin classes only.)
pub fn builtin_is_subclass(class: &str, ancestor: &str, dialect: Dialect) -> bool {
    let mut cur = Some(class);
    while let Some(c) = cur {
        if c == ancestor {
            return true;
        }
        cur = builtin_exception_base(c, dialect).flatten();
    }
    false
}

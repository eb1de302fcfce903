//! The double-underscore names the language gives a meaning: the special
//! method an operation calls on an instance, the attribute holding a
//! function's defaults.

use rpy_ir::ast::Dialect;
use rpy_ir::opcode::Opcode;

/// The name of the iterator method `next(it)` calls: `next` in Python 2,
/// `__next__` in Python 3.
pub fn next_method_name(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Py2 => "next",
        Dialect::Py3 => "__next__",
    }
}

/// The special method a generic operation (by its flow name) calls on an
/// instance whose class defines it, as the original's `len_SomeInstance`
/// and friends do: `len(x)` is `x.__len__()`, `x[i]` is `x.__getitem__(i)`,
/// `i in x` is `x.__contains__(i)`, a `for` loop's `next` is `x.next()` or
/// `x.__next__()` per dialect.
pub fn special_method_name(opname: Opcode, dialect: Dialect) -> Option<&'static str> {
    Some(match opname {
        Opcode::Len => "__len__",
        Opcode::Iter => "__iter__",
        Opcode::Next => next_method_name(dialect),
        Opcode::Getitem => "__getitem__",
        Opcode::Setitem => "__setitem__",
        Opcode::Delitem => "__delitem__",
        Opcode::Contains => "__contains__",
        _ => return None,
    })
}

/// The attribute of a function holding its parameters' default values (a
/// tuple for the last parameters), set when its `def` statement runs.
pub const DEFAULTS_ATTRIBUTE: &str = "__defaults__";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_is_the_dialects_iterator_method() {
        assert_eq!(
            special_method_name(Opcode::Next, Dialect::Py2),
            Some("next")
        );
        assert_eq!(
            special_method_name(Opcode::Next, Dialect::Py3),
            Some("__next__")
        );
        assert_eq!(special_method_name(Opcode::Add, Dialect::Py3), None);
    }
}

//! Facts of the Python language that the flow builder, the annotator and
//! the object interpreter all rely on: which special method an operation
//! calls on an instance, and which methods the builtin types have.
//!
//! They live here, with the pass, rather than in the object interpreter:
//! the interpreter is the oracle that checks the builder, and an oracle
//! the pass borrows its facts from would share its mistakes.

use rpy_ir::ast::Dialect;

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
pub fn special_method_name(opname: &str, dialect: Dialect) -> Option<&'static str> {
    Some(match opname {
        "len" => "__len__",
        "iter" => "__iter__",
        "next" => next_method_name(dialect),
        "getitem" => "__getitem__",
        "setitem" => "__setitem__",
        "delitem" => "__delitem__",
        "contains" => "__contains__",
        _ => return None,
    })
}

/// The builtin types whose methods translated code may call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinType {
    List,
    Dict,
    Tuple,
    Str,
}

/// The methods of a builtin type in `dialect`.
pub fn builtin_methods(
    ty: BuiltinType,
    dialect: Dialect,
) -> impl Iterator<Item = &'static str> + Clone {
    let tables: &[&[&'static str]] = match (ty, dialect) {
        (BuiltinType::List, _) => &[LIST_METHODS],
        (BuiltinType::Dict, Dialect::Py2) => &[DICT_METHODS, DICT_METHODS_PY2],
        (BuiltinType::Dict, Dialect::Py3) => &[DICT_METHODS],
        (BuiltinType::Tuple, _) => &[TUPLE_METHODS],
        (BuiltinType::Str, _) => &[STR_METHODS],
    };
    tables.iter().flat_map(|t| t.iter().copied())
}

/// Whether `name` is a method of a builtin type (list, dict, tuple, str) in
/// either dialect: a call `x.name(...)` may be one.
pub fn is_builtin_method_name(name: &str) -> bool {
    [
        LIST_METHODS,
        DICT_METHODS,
        DICT_METHODS_PY2,
        TUPLE_METHODS,
        STR_METHODS,
    ]
    .iter()
    .any(|names| names.contains(&name))
}

const LIST_METHODS: &[&str] = &[
    "append", "pop", "extend", "insert", "reverse", "index", "count", "remove",
];
const DICT_METHODS: &[&str] = &[
    "get",
    "keys",
    "values",
    "items",
    "setdefault",
    "pop",
    "clear",
    "copy",
    "update",
];
const DICT_METHODS_PY2: &[&str] = &["has_key", "iterkeys", "itervalues", "iteritems"];
const TUPLE_METHODS: &[&str] = &["index", "count"];
const STR_METHODS: &[&str] = &[
    "join",
    "split",
    "rsplit",
    "strip",
    "lstrip",
    "rstrip",
    "find",
    "rfind",
    "startswith",
    "endswith",
    "upper",
    "lower",
    "isdigit",
    "isalpha",
    "isspace",
    "replace",
    "count",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_is_the_dialects_iterator_method() {
        assert_eq!(special_method_name("next", Dialect::Py2), Some("next"));
        assert_eq!(special_method_name("next", Dialect::Py3), Some("__next__"));
        assert_eq!(special_method_name("add", Dialect::Py3), None);
    }

    #[test]
    fn dict_methods_of_python_2_only_are_not_python_3_methods() {
        let py2: Vec<_> = builtin_methods(BuiltinType::Dict, Dialect::Py2).collect();
        let py3: Vec<_> = builtin_methods(BuiltinType::Dict, Dialect::Py3).collect();
        assert!(py2.contains(&"has_key") && !py3.contains(&"has_key"));
        assert!(py3.iter().all(|m| py2.contains(m)));
        assert!(is_builtin_method_name("has_key") && !is_builtin_method_name("size"));
    }
}

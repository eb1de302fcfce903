//! The builtin types whose methods translated code may call, and those
//! methods per dialect.

use rpy_ir::ast::Dialect;

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
    "splitlines",
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
    "isalnum",
    "isupper",
    "islower",
    "replace",
    "count",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dict_methods_of_python_2_only_are_not_python_3_methods() {
        let py2: Vec<_> = builtin_methods(BuiltinType::Dict, Dialect::Py2).collect();
        let py3: Vec<_> = builtin_methods(BuiltinType::Dict, Dialect::Py3).collect();
        assert!(py2.contains(&"has_key") && !py3.contains(&"has_key"));
        assert!(py3.iter().all(|m| py2.contains(m)));
        assert!(is_builtin_method_name("has_key") && !is_builtin_method_name("size"));
    }
}

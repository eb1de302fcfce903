//! What the checker knows besides `rpy_ir`'s tables: the high-level (flow)
//! operations with their arities, the builtin names, the low-level type names
//! rules may spell, and the cost model of the integer rewrites.

use rpy_ir::lltype::{list_type_names, LowLevelType, STR};

/// High-level operations of flow graphs: name, least and most arguments
/// (`usize::MAX`: any number). `union` and `convert` are the two rule-only
/// heads (the lattice join; a conversion between low-level types).
pub const HL_OPS: &[(&str, usize, usize)] = &[
    ("add", 2, 2),
    ("sub", 2, 2),
    ("mul", 2, 2),
    ("div", 2, 2),
    ("truediv", 2, 2),
    ("floordiv", 2, 2),
    ("mod", 2, 2),
    ("pow", 2, 2),
    ("lshift", 2, 2),
    ("rshift", 2, 2),
    ("and_", 2, 2),
    ("or_", 2, 2),
    ("xor", 2, 2),
    ("neg", 1, 1),
    ("pos", 1, 1),
    ("invert", 1, 1),
    ("not_", 1, 1),
    ("bool", 1, 1),
    ("abs", 1, 1),
    ("len", 1, 1),
    ("hash", 1, 1),
    ("iter", 1, 1),
    ("next", 1, 1),
    ("lt", 2, 2),
    ("le", 2, 2),
    ("eq", 2, 2),
    ("ne", 2, 2),
    ("gt", 2, 2),
    ("ge", 2, 2),
    ("is_", 2, 2),
    ("contains", 2, 2),
    ("getitem", 2, 2),
    ("setitem", 3, 3),
    // `obj[lower:upper]`, a missing bound being None.
    ("getslice", 3, 3),
    ("getattr", 2, 2),
    ("setattr", 3, 3),
    ("print_item", 1, 1),
    ("print_newline", 0, 0),
    ("simple_call", 1, usize::MAX),
    ("newlist", 0, usize::MAX),
    // `ovfcheck(x OP y)`, fused by the flow builder: OP raising OverflowError.
    ("add_ovf", 2, 2),
    ("sub_ovf", 2, 2),
    ("mul_ovf", 2, 2),
    ("lshift_ovf", 2, 2),
    ("floordiv_ovf", 2, 2),
    ("mod_ovf", 2, 2),
    ("neg_ovf", 1, 1),
    ("abs_ovf", 1, 1),
];

pub fn hl_op(name: &str) -> Option<(usize, usize)> {
    HL_OPS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, lo, hi)| (*lo, *hi))
}

/// Builtin functions a program may call (`SomeBuiltin(len)`, `$len`).
pub const BUILTINS: &[&str] = &[
    "len",
    "str",
    "int",
    "float",
    "bool",
    "abs",
    "ord",
    "chr",
    "range",
    "print",
    "min",
    "max",
    "hash",
    "hex",
    "oct",
    "repr",
    "isinstance",
    "issubclass",
    // The rlib functions (`passes/src/flow/rlib.rs` maps them to builtins).
    "intmask",
    "widen",
    "r_int",
    "r_longlong",
    "r_uint",
    "r_ulonglong",
    "ovfcheck",
    "we_are_translated",
    "we_are_jitted",
    "have_debug_prints",
    "isconstant",
    "isvirtual",
    "is_valid_int",
    "int_between",
    "highest_bit",
    "int_force_ge_zero",
    "int_c_div",
    "int_c_mod",
    "compute_hash",
    "compute_identity_hash",
    "compute_unique_id",
    "promote",
    "promote_string",
    "check_nonneg",
    "check_regular_int",
    "make_sure_not_resized",
    "hint",
    "ll_assert",
    "debug_print",
    "debug_start",
    "debug_stop",
    "debug_flush",
    "keepalive_until_here",
    "assert_green",
];

/// The container types rules may point to: the string and the list types
/// (with their item arrays) of primitive items and of strings.
fn known_container(name: &str) -> bool {
    if name == STR {
        return true;
    }
    let items = [
        LowLevelType::Signed,
        LowLevelType::Float,
        LowLevelType::Bool,
        LowLevelType::Char,
        LowLevelType::Ptr(STR.to_string()),
    ];
    items.iter().any(|t| {
        let (l, a) = list_type_names(t);
        l == name || a == name
    })
}

/// Resolves a type as a rule spells it.
pub fn lltype(t: &crate::TypeName) -> Result<LowLevelType, String> {
    match t {
        crate::TypeName::Plain(name) => match name.as_str() {
            "Void" => Ok(LowLevelType::Void),
            "Signed" => Ok(LowLevelType::Signed),
            "Unsigned" => Ok(LowLevelType::Unsigned),
            "Float" => Ok(LowLevelType::Float),
            "Bool" => Ok(LowLevelType::Bool),
            "Char" => Ok(LowLevelType::Char),
            other => Err(format!(
                "unknown low-level type '{other}' (known: Void, Signed, Unsigned, Float, Bool, Char, Ptr(name))"
            )),
        },
        crate::TypeName::Ptr(name) if known_container(name) => Ok(LowLevelType::Ptr(name.clone())),
        crate::TypeName::Ptr(name) => Err(format!(
            "unknown container type '{name}' in Ptr(...) (known: {STR} and the list_*/array_* types)"
        )),
    }
}

/// The cost of one operation in the e-graph's extraction and in the rule
/// checker's "rules must not make code more expensive" check. Constants and
/// variables cost nothing.
pub fn op_cost(name: &str) -> u32 {
    match name {
        "int_mul" => 3,
        "int_abs" => 2,
        "int_floordiv" | "int_mod" => 10,
        "int_py_div" | "int_py_mod" => 12,
        _ => 1,
    }
}

/// The operations integer rewrite rules may use: argument types and result
/// type (`true` for Bool); see `llops::int_signature`.
pub fn opt_op(name: &str) -> Option<(Vec<bool>, bool)> {
    rpy_ir::llops::int_signature(name)
}

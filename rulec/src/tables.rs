//! What the checker knows besides `rpy_ir`'s tables: the high-level (flow)
//! operations with their arities, the builtin names, the low-level type names
//! rules may spell, and the cost model of the integer rewrites.

use rpy_ir::lltype::{list_type_names, LowLevelType, STR};
use rpy_ir::opcode::Opcode;

/// The least and most arguments of high-level operation `name`
/// (`usize::MAX`: any number), from `rpy_ir::opcode::HIGH_LEVEL`.
pub fn hl_op(name: &str) -> Option<(usize, usize)> {
    Opcode::from_name(name)?.high_level_arity()
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
    "current_object_addr_as_int",
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
pub fn op_cost(op: Opcode) -> u32 {
    match op {
        Opcode::IntMul => 3,
        Opcode::IntAbs => 2,
        Opcode::IntFloordiv | Opcode::IntMod => 10,
        Opcode::IntPyDiv | Opcode::IntPyMod => 12,
        _ => 1,
    }
}

/// The operations integer rewrite rules may use: argument types and result
/// type (`true` for Bool); see `llops::int_signature`.
pub fn opt_op(name: &str) -> Option<(Vec<bool>, bool)> {
    rpy_ir::llops::int_signature(Opcode::from_name(name)?)
}

//! The rlib functions (`flow::rlib` maps them to builtins) as the annotator
//! types them: `r_uint` makes an unsigned machine word, `intmask` a signed
//! one, `ovfcheck(x)` is its int (the flow builder has already fused
//! `ovfcheck(x OP y)` into `OP_ovf`, typed here as `OP` on signed ints), the
//! JIT hints return their argument, and the debug functions nothing.
//!
//! These are Rust rather than rules only because the rule compiler's table
//! of builtin names (`rulec/src/tables.rs`, `BUILTINS`) does not have the
//! rlib names yet; each line below is one rule once it does.

use rpy_ir::annotation::{Known, SomeValue};

fn int_like(a: &SomeValue) -> bool {
    matches!(a.general(), SomeValue::Integer { .. } | SomeValue::Bool)
}

fn signed(nonneg: bool) -> SomeValue {
    SomeValue::Integer {
        nonneg,
        unsigned: false,
    }
}

fn unsigned() -> SomeValue {
    SomeValue::Integer {
        nonneg: true,
        unsigned: true,
    }
}

/// The rlib functions typed here (the debug functions take anything).
const TYPED: &[&str] = &[
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
];

/// The result of calling the rlib function `name` with `args`: `None` when
/// `name` is not an rlib function, `Some(Err(why))` when RPython rejects these
/// arguments, `Some(Ok(None))` when the arguments are not ones it takes (the
/// caller reports the call as untypable).
pub(super) fn rlib_call(
    name: &str,
    args: &[SomeValue],
) -> Option<Result<Option<SomeValue>, String>> {
    use SomeValue as S;
    let general: Vec<SomeValue> = args.iter().map(SomeValue::general).collect();
    let result = match (name, general.as_slice()) {
        ("intmask" | "widen" | "r_int" | "r_longlong", [a]) if int_like(a) => signed(false),
        ("intmask" | "r_int" | "r_longlong", [S::Float]) => signed(false),
        ("r_uint" | "r_ulonglong", [a]) if int_like(a) => unsigned(),
        ("ovfcheck", [S::Integer { unsigned: true, .. }]) => {
            return Some(Err(
                "ovfcheck() checks signed arithmetic; r_uint arithmetic wraps instead".into(),
            ))
        }
        ("ovfcheck", [S::Integer { nonneg, .. }]) => signed(*nonneg),
        ("ovfcheck", [S::Bool]) => signed(true),
        // Translated code is translated: the untranslated branch is never
        // annotated (the original's we_are_translated is the constant True).
        ("we_are_translated", []) => S::Const(Known::Bool(true)),
        // Known only once the JIT has looked at the code.
        ("we_are_jitted" | "have_debug_prints", []) => S::Bool,
        ("isconstant" | "isvirtual", [_]) => S::Bool,
        ("is_valid_int", [_]) => S::Bool,
        ("int_between", [a, b, c]) if int_like(a) && int_like(b) && int_like(c) => S::Bool,
        ("highest_bit", [a]) if int_like(a) => signed(true),
        ("int_force_ge_zero", [a]) if int_like(a) => signed(true),
        ("int_c_div" | "int_c_mod", [a, b]) if int_like(a) && int_like(b) => signed(false),
        ("compute_hash" | "compute_identity_hash" | "compute_unique_id", [_]) => signed(false),
        // Hints and checks give back their argument, with what is known of it.
        (
            "promote"
            | "promote_string"
            | "check_nonneg"
            | "check_regular_int"
            | "make_sure_not_resized",
            [_],
        ) => args[0].clone(),
        ("hint", [_, ..]) => args[0].clone(),
        (
            "debug_print"
            | "debug_start"
            | "debug_stop"
            | "debug_flush"
            | "keepalive_until_here"
            | "assert_green",
            _,
        ) => S::None,
        ("ll_assert", [_, S::String { .. } | S::Char]) => S::None,
        _ if TYPED.contains(&name) => return Some(Ok(None)),
        _ => return None,
    };
    Some(Ok(Some(result)))
}

/// The operation `OP_ovf` (`ovfcheck(x OP y)`) is typed as `OP` on signed
/// ints; `Err` says why it cannot be.
pub(super) fn checked_op(opname: &str, args: &[SomeValue]) -> Option<Result<SomeValue, String>> {
    let base = opname.strip_suffix("_ovf")?;
    let general: Vec<SomeValue> = args.iter().map(SomeValue::general).collect();
    if general
        .iter()
        .any(|a| matches!(a, SomeValue::Integer { unsigned: true, .. }))
    {
        return Some(Err(
            "ovfcheck() checks signed arithmetic; r_uint arithmetic wraps instead".into(),
        ));
    }
    if !general.iter().all(int_like) {
        return Some(Err(format!(
            "ovfcheck() checks machine-word int arithmetic, not {}",
            general
                .iter()
                .map(SomeValue::describe)
                .collect::<Vec<_>>()
                .join(" and ")
        )));
    }
    Some(
        crate::rules::annotate::op_result(base, &general)
            .ok_or_else(|| format!("ovfcheck() of '{base}' on these ints is not RPython")),
    )
}

//! The rlib functions (`flow::rlib` maps them to builtins) as the annotator
//! types them: `r_ulonglong` makes an unsigned machine word, `widen` a
//! signed one, `ovfcheck(x)` is its int (the flow builder has already fused
//! `ovfcheck(x OP y)` into `OP_ovf`, typed here as `OP` on signed ints), the
//! JIT hints return their argument, and the debug functions nothing.
//!
//! `rules/annotate/rlib.rules` types the ones a test program uses (intmask
//! and r_uint of an int, compute_hash, `add_ovf`, `mul_ovf`); every rule
//! must fire on some test program, so the others stay here until a program
//! uses them, each line then becoming one rule. `we_are_translated()` stays here: its result is a
//! known value, which a rule cannot give.

use rpy_ir::annotation::{Known, SomeValue};
use rpy_ir::opcode::Opcode;

const OVFCHECK_OF_UNSIGNED: &str =
    "ovfcheck() checks signed arithmetic; r_uint arithmetic wraps instead";

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

/// The result of calling the rlib function `name` with `args`: `None` when
/// this is not a call typed here (the rules type it or report it),
/// `Some(Err(why))` when RPython rejects these arguments.
pub(super) fn rlib_call(name: &str, args: &[SomeValue]) -> Option<Result<SomeValue, String>> {
    use SomeValue as S;
    let general: Vec<SomeValue> = args.iter().map(SomeValue::general).collect();
    let result = match (name, general.as_slice()) {
        ("widen" | "r_int" | "r_longlong", [a]) if int_like(a) => signed(false),
        ("intmask" | "r_int" | "r_longlong", [S::Float]) => signed(false),
        ("r_ulonglong", [a]) if int_like(a) => unsigned(),
        ("ovfcheck", [S::Integer { unsigned: true, .. }]) => {
            return Some(Err(OVFCHECK_OF_UNSIGNED.into()))
        }
        ("ovfcheck", [S::Integer { nonneg, .. }]) => signed(*nonneg),
        ("ovfcheck", [S::Bool]) => signed(true),
        // Translated code is translated: the untranslated branch is never
        // annotated (the original's we_are_translated is the constant True).
        ("we_are_translated", []) => S::Const(Known::Bool(true)),
        // Known only once the JIT has looked at the code.
        ("we_are_jitted" | "have_debug_prints", []) => S::Bool,
        ("isconstant" | "isvirtual", [_]) => S::Bool,
        // A signed machine word is always a valid int (the original's
        // is_valid_int folds to True on an annotated int).
        (
            "is_valid_int",
            [S::Integer {
                unsigned: false, ..
            }
            | S::Bool],
        ) => S::Const(Known::Bool(true)),
        ("is_valid_int", [_]) => S::Bool,
        ("int_between", [a, b, c]) if int_like(a) && int_like(b) && int_like(c) => S::Bool,
        ("highest_bit", [a]) if int_like(a) => signed(true),
        ("int_force_ge_zero", [a]) if int_like(a) => signed(true),
        ("int_c_div" | "int_c_mod", [a, b]) if int_like(a) && int_like(b) => signed(false),
        ("compute_identity_hash" | "compute_unique_id" | "current_object_addr_as_int", [_]) => {
            signed(false)
        }
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
        (n, _) if crate::language::rlib::UNTRANSLATED_HINTS.contains(&n) => S::None,
        ("ll_assert", [_, S::String { .. } | S::Char]) => S::None,
        // The rules' (intmask of an int), or arguments it does not take.
        _ => return None,
    };
    Some(Ok(result))
}

/// The operation `OP_ovf` (`ovfcheck(x OP y)`) is typed by its rule, or as
/// `OP` on signed ints where no program has needed a rule yet; `Err` says
/// why it cannot be.
pub(super) fn checked_op(opname: Opcode, args: &[SomeValue]) -> Option<Result<SomeValue, String>> {
    let base = opname.without_overflow_check()?;
    let general: Vec<SomeValue> = args.iter().map(SomeValue::general).collect();
    if general
        .iter()
        .any(|a| matches!(a, SomeValue::Integer { unsigned: true, .. }))
    {
        return Some(Err(OVFCHECK_OF_UNSIGNED.into()));
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
        rpy_ruleset::annotate::op_result(opname, &general)
            .or_else(|| rpy_ruleset::annotate::op_result(base, &general))
            .ok_or_else(|| format!("ovfcheck() of '{base}' on these ints is not RPython")),
    )
}

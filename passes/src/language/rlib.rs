//! Facts of the rlib modules that more than the flow builder knows: the
//! calls that do nothing once translated, and `JitDriver`'s parameters.

use rpy_ir::ast::{Expr, ExprKind, Param};
use rpy_ir::diag::Pos;

/// The rlib calls that do nothing in a translated program without logging
/// or a JIT (`debug_*` print only under PYPYLOG, `keepalive_until_here` and
/// `assert_green` speak to the GC or the JIT, `set_param` tunes a JIT):
/// they raise nothing, their value is None, and the rtyper drops them
/// (but `set_param`, which becomes a call of the JIT's runtime).
pub const UNTRANSLATED_HINTS: &[&str] = &[
    "debug_print",
    "debug_start",
    "debug_stop",
    "debug_flush",
    "keepalive_until_here",
    "assert_green",
    "set_param",
    "set_user_param",
];

/// The parameters of `JitDriver(...)`, as pylib's `rpython.rlib.jit`
/// declares them: greens and reds first, every other one with a default.
pub fn jitdriver_params() -> &'static [Param] {
    static PARAMS: std::sync::OnceLock<Vec<Param>> = std::sync::OnceLock::new();
    PARAMS.get_or_init(|| {
        let param = |name: &str, default: Option<ExprKind>| Param {
            pos: Pos::default(),
            name: name.to_string(),
            default: default.map(|kind| Expr {
                pos: Pos::default(),
                kind,
            }),
            unpack: None,
        };
        let none = || Some(ExprKind::None);
        vec![
            param("greens", None),
            param("reds", None),
            param("virtualizables", none()),
            param("get_printable_location", none()),
            param("confirm_enter_jit", none()),
            param("can_never_inline", none()),
            param("should_unroll_one_iteration", none()),
            param("name", Some(ExprKind::Str("jitdriver".into()))),
            param("check_untranslated", Some(ExprKind::Bool(true))),
            param("vectorize", Some(ExprKind::Bool(false))),
            param("get_unique_id", none()),
            param("is_recursive", Some(ExprKind::Bool(false))),
            param("get_location", none()),
        ]
    })
}

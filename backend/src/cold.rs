//! The blocks of a graph that only lead to a raise, and the calls of
//! low-level helpers made there.
//!
//! A low-level helper is `static inline` (see
//! `function::is_lowlevel_helper`), and the C compiler inlines it even
//! where it is called only to build an exception's message: `raise
//! Exception("Bad task id %d" % id)` put a string concatenation, its
//! allocation and two copies inline in a richards task's `qpkt`, whose
//! registers the function's prologue then saved on every call (six
//! pushed and popped instead of three; neither `__builtin_expect` nor a
//! label declared cold keeps gcc from inlining there). In a block that
//! can only end in a raise, such a call goes to `NAME_cold` instead, a
//! wrapper declared `noinline` and `cold` (`RPY_COLD_WRAPPER`) in which
//! the compiler inlines the helper once, out of the way.

use crate::function::{is_lowlevel_helper, is_lowlevel_helper_name, var_name, FuncGen, FuncSig};
use crate::types::Types;
use rpy_ir::graph::{Arg, Constant, FunctionGraph, GcExplicit};
use rpy_ir::lltype::LowLevelType;
use rpy_ir::opcode::Opcode;
use std::collections::BTreeSet;

/// For each block of `g`, whether every path from it raises: it sets the
/// pending exception (`exc_set`), or it has exits and all of them go to
/// such blocks (the least fixpoint, so a loop that may leave for a return
/// is not cold). The return block is never cold.
pub fn cold_blocks(g: &FunctionGraph<GcExplicit>) -> Vec<bool> {
    let mut cold: Vec<bool> = g
        .blocks
        .iter()
        .map(|b| b.operations.iter().any(|op| op.opname == Opcode::ExcSet))
        .collect();
    cold[g.returnblock.0 as usize] = false;
    loop {
        let mut changed = false;
        for (i, b) in g.blocks.iter().enumerate() {
            if !cold[i]
                && i != g.returnblock.0 as usize
                && !b.exits.is_empty()
                && b.exits.iter().all(|l| cold[l.target.0 as usize])
            {
                cold[i] = true;
                changed = true;
            }
        }
        if !changed {
            return cold;
        }
    }
}

/// The names of the helper graphs `g` calls from its cold blocks (what
/// `FuncGen` calls through their wrappers).
pub fn cold_helper_calls(g: &FunctionGraph<GcExplicit>) -> BTreeSet<String> {
    let cold = cold_blocks(g);
    let mut out = BTreeSet::new();
    for (i, b) in g.blocks.iter().enumerate() {
        if !cold[i] {
            continue;
        }
        for op in &b.operations {
            if let (Opcode::DirectCall, Some(Arg::Const(Constant::Func(f)))) =
                (op.opname, op.args.first())
            {
                if is_lowlevel_helper_name(f) {
                    out.insert(f.clone());
                }
            }
        }
    }
    out
}

/// The C name of a helper's cold wrapper.
pub fn wrapper_name(c_name: &str) -> String {
    format!("{c_name}_cold")
}

/// The prototype of `helper`'s cold wrapper (no storage class).
pub fn wrapper_prototype(
    types: &Types,
    helper: &FunctionGraph<GcExplicit>,
    sig: &FuncSig,
) -> String {
    let cold_sig = FuncSig {
        c_name: wrapper_name(&sig.c_name),
        ty: sig.ty.clone(),
    };
    FuncGen::prototype(types, helper, &cold_sig)
}

/// The definition of `helper`'s cold wrapper: it calls the helper with
/// its own parameters.
pub fn wrapper_definition(
    types: &Types,
    helper: &FunctionGraph<GcExplicit>,
    sig: &FuncSig,
) -> String {
    debug_assert!(is_lowlevel_helper(helper));
    let args: Vec<String> = helper
        .params()
        .iter()
        .filter(|v| *helper.info(**v) != LowLevelType::Void)
        .map(|v| var_name(*v))
        .collect();
    let call = format!("{}({})", sig.c_name, args.join(", "));
    let body = if sig.ty.result == LowLevelType::Void {
        format!("{call};")
    } else {
        format!("return {call};")
    };
    format!(
        "static RPY_COLD_WRAPPER {} {{\n    {body}\n}}\n\n",
        wrapper_prototype(types, helper, sig)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rpy_ir::graph::Program;
    use rpy_ir::text::parse_program;

    /// `f` raises with a message a helper builds when `n > 2`; the helper
    /// is called on the normal path too.
    const PROGRAM: &str = "\
type rpy_string = GcStruct { hash: Signed, length: Signed, ..Array(Char) }
type object = GcStruct { typeptr: Ptr(object_vtable) }
type object_vtable = GcStruct { subclassrange_min: Signed, subclassrange_max: Signed, name: Ptr(rpy_string) }
prebuilt &0 = struct<object_vtable> {subclassrange_min: 1, subclassrange_max: 2, name: \"ValueError\"}
prebuilt &1 = struct<object> {typeptr: &0}
entry f

graph rpython.rtyper.h.msg(n_0) {
  block0(n_0: Signed):
    v1: Ptr(rpy_string) = direct_call($rpy_str_from_int, n_0)
    -> return(v1)
  returns v2: Ptr(rpy_string)
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}

graph f(n_0) {
  block0(n_0: Signed):
    v1: Bool = int_gt(n_0, 2)
    switch v1
      False -> block1(n_0)
      True -> block2(n_0)
  block1(n_5: Signed):
    v6: Ptr(rpy_string) = direct_call(@rpython.rtyper.h.msg, n_5)
    -> return(n_5)
  block2(n_2: Signed):
    v3: Ptr(rpy_string) = direct_call(@rpython.rtyper.h.msg, n_2)
    v4: Void = exc_set(&0, &1)
    -> return(0)
  returns v7: Signed
  raises v8: Ptr(object_vtable), v9: Ptr(object)
}
";

    #[test]
    fn only_the_blocks_that_raise_are_cold_and_their_helper_calls_listed() {
        let p: Program<GcExplicit> = parse_program(PROGRAM).unwrap_or_else(|e| panic!("{e}"));
        let f = p.graph("f").unwrap();
        let cold = cold_blocks(f);
        let raising: Vec<bool> = f
            .blocks
            .iter()
            .map(|b| b.operations.iter().any(|op| op.opname == Opcode::ExcSet))
            .collect();
        assert_eq!(cold, raising);
        assert_eq!(
            cold_helper_calls(f).into_iter().collect::<Vec<_>>(),
            vec!["rpython.rtyper.h.msg".to_string()]
        );
        let helper = p.graph("rpython.rtyper.h.msg").unwrap();
        assert!(cold_helper_calls(helper).is_empty());
    }
}

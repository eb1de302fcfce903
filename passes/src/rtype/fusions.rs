//! Fusions of helper calls that the rtyper made one operation at a time:
//! where the result of one helper call is used only by a second one of the
//! same block, one helper that does both without the intermediate object.
//! `s[a:b] == t` compares in place instead of building the slice first (a
//! tokenizer's `text[i:i + 2] == "=="`, a search's `s[i:i + k] == pattern`
//! in a loop: an allocation per comparison otherwise, which malloc removal
//! cannot remove, the slice being an array of a run-time length).

use super::lowlevel_helpers::{specialized, HelperArg};
use super::RTyper;
use fxhash::FxHashMap as HashMap;
use rpy_ir::graph::{Arg, Constant, FunctionGraph, LowLevel, SpaceOperation, Var};
use rpy_ir::lltype::{self, LowLevelType};
use rpy_ir::opcode::Opcode;

type G = FunctionGraph<LowLevel>;

/// The name of the specialized helper `rstr.func` for `args`.
fn helper_name(func: &str, args: &[LowLevelType]) -> Result<String, String> {
    let args: Vec<HelperArg> = args.iter().cloned().map(HelperArg::Value).collect();
    Ok(specialized("rstr", func, &args)?.1)
}

/// The slice helpers a comparison fuses with, and how each one's
/// arguments (after the string) become `ll_streq_slice`'s bounds: a
/// missing start is 0, a missing stop `i64::MAX`, which the bound clips to
/// the length as it does any stop past the end.
const SLICES: [(&str, &[Option<usize>]); 3] = [
    ("ll_stringslice_startstop", &[Some(0), Some(1)]),
    ("ll_stringslice_startonly", &[Some(0), None]),
    ("ll_stringslice_stoponly", &[None, Some(0)]),
];

/// Rewrites each `v = ll_stringslice_*(s, ...)` of `graphs` whose only use
/// is a later `ll_streq(v, t)` or `ll_streq(t, v)` of its block into
/// `ll_streq_slice(s, start, stop, t)` where the comparison was. Returns
/// how many it fused.
pub(super) fn fuse_slice_comparisons(rt: &mut RTyper, graphs: &mut [G]) -> Result<usize, String> {
    let string = LowLevelType::Ptr(lltype::STR.into());
    let slices = SLICES
        .iter()
        .map(|(func, bounds)| {
            let mut args = vec![string.clone()];
            args.extend(bounds.iter().flatten().map(|_| LowLevelType::Signed));
            Ok((helper_name(func, &args)?, *bounds))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let streq = helper_name("ll_streq", &[string.clone(), string.clone()])?;
    let slice_of = |op: &SpaceOperation| {
        let f = callee(op)?;
        slices.iter().find(|(name, _)| name == f).map(|(_, b)| *b)
    };
    let mut fused = 0;
    for g in graphs.iter_mut() {
        let has_slice = |g: &G| {
            g.blocks
                .iter()
                .any(|b| b.operations.iter().any(|op| slice_of(op).is_some()))
        };
        if !has_slice(g) {
            continue;
        }
        let uses = use_counts(g);
        for bi in 0..g.blocks.len() {
            let mut i = 0;
            while i < g.blocks[bi].operations.len() {
                let ops = &g.blocks[bi].operations;
                let v = ops[i].result;
                let fusion = slice_of(&ops[i])
                    .filter(|_| uses.get(&v) == Some(&1))
                    .and_then(|bounds| {
                        let j = (i + 1..ops.len()).find(|&j| {
                            callee(&ops[j]) == Some(streq.as_str())
                                && ops[j].args[1..].contains(&Arg::Var(v))
                        })?;
                        Some((bounds, j))
                    });
                let Some((bounds, j)) = fusion else {
                    i += 1;
                    continue;
                };
                let (name, _) = rt.helper(
                    "rstr",
                    "ll_streq_slice",
                    &[
                        HelperArg::Value(string.clone()),
                        HelperArg::Value(LowLevelType::Signed),
                        HelperArg::Value(LowLevelType::Signed),
                        HelperArg::Value(string.clone()),
                    ],
                )?;
                let ops = &mut g.blocks[bi].operations;
                let other = if ops[j].args[1] == Arg::Var(v) {
                    ops[j].args[2].clone()
                } else {
                    ops[j].args[1].clone()
                };
                let sliced = &ops[i].args[1..];
                let mut args = vec![Arg::Const(Constant::Func(name)), sliced[0].clone()];
                for (bound, missing) in bounds.iter().zip([0, i64::MAX]) {
                    args.push(match bound {
                        Some(k) => sliced[1 + k].clone(),
                        None => Arg::Const(Constant::Int(missing)),
                    });
                }
                args.push(other);
                ops[j].args = args;
                ops.remove(i);
                fused += 1;
            }
        }
    }
    Ok(fused)
}

/// The graph a `direct_call` calls.
fn callee(op: &SpaceOperation) -> Option<&str> {
    match (op.opname, op.args.first()) {
        (Opcode::DirectCall, Some(Arg::Const(Constant::Func(f)))) => Some(f),
        _ => None,
    }
}

/// How many times each variable is read: by operations, as a block's
/// exitswitch and along links.
fn use_counts(g: &G) -> HashMap<Var, usize> {
    let mut uses: HashMap<Var, usize> = HashMap::default();
    let mut note = |a: &Arg| {
        if let Arg::Var(v) = a {
            *uses.entry(*v).or_default() += 1;
        }
    };
    for b in &g.blocks {
        b.operations
            .iter()
            .flat_map(|op| &op.args)
            .for_each(&mut note);
        b.exitswitch.iter().for_each(&mut note);
        b.exits.iter().flat_map(|l| &l.args).for_each(&mut note);
    }
    uses
}

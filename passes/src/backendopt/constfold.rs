//! Constant and branch folding across blocks: sparse conditional constant
//! propagation (Wegman and Zadeck), over a whole graph.
//!
//! Every scalar variable (Signed, Bool, Unsigned, Char) gets a value of the
//! lattice unknown-yet (no run defines it yet), one constant, or varying.
//! Starting from the start block, whose parameters vary, a block's
//! operations are evaluated on what is known of their arguments: a pure
//! operation `eval_int` defines (and the `char_*` comparisons,
//! `cast_char_to_int`, `same_as`) on constants is the constant it
//! computes; anything else varies. A block's exits are followed only where
//! they may be taken: a switch on a constant takes the one exit whose case
//! is that constant (or the `default` one), so the other exits, and what
//! only they reach, are never visited; a catching block's exits are all
//! followed. A link joins its arguments into the target's input arguments,
//! so a value passed the same constant by every link that may be taken,
//! loop back edges included, is that constant in the target.
//!
//! Then the graph is rewritten: a variable known constant is replaced by
//! the constant everywhere, the operations that computed one go, and a
//! switch on a constant becomes its one exit. The blocks no run reaches
//! are dropped by the `simplify` that follows (`canonicalize`), and the
//! input arguments nothing reads any more with them.
//!
//! Only what `eval_int` defines is folded: a division by zero, `MIN / -1`
//! or a shift by a count outside 0..64 stays an operation (the rtyper's
//! helpers check those before they happen, so such an operation is never
//! reached), as do float operations (whose C rounding the pass does not
//! model).

use fxhash::FxHashMap as HashMap;
use rpy_ir::graph::{Arg, BlockId, Constant, FunctionGraph, LowLevel, Program, Var};
use rpy_ir::llops::{self, eval_int};
use rpy_ir::lltype::LowLevelType;
use rpy_ir::opcode::Opcode;

type G = FunctionGraph<LowLevel>;

/// What [`fold_constants`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConstFoldStats {
    /// Operations whose result was a constant, removed.
    pub ops_folded: usize,
    /// Uses of a variable (operation and link arguments, switches)
    /// replaced by the constant it always holds.
    pub uses_replaced: usize,
    /// Switches on a constant replaced by their one exit.
    pub branches_folded: usize,
    /// Blocks no run reaches any more.
    pub blocks_removed: usize,
}

/// What is known of a variable.
#[derive(Clone, Debug, PartialEq)]
enum Lat {
    /// No run that reaches its definition has been found yet.
    Unknown,
    Const(Constant),
    Varying,
}

fn meet(a: &Lat, b: &Lat) -> Lat {
    match (a, b) {
        (Lat::Unknown, x) | (x, Lat::Unknown) => x.clone(),
        (Lat::Const(x), Lat::Const(y)) if x == y => a.clone(),
        _ => Lat::Varying,
    }
}

/// A constant of a scalar type, as `eval_int` takes it.
fn word(c: &Constant) -> Option<i64> {
    match c {
        Constant::Int(n) => Some(*n),
        Constant::Bool(b) => Some(*b as i64),
        Constant::UInt(u) => Some(*u as i64),
        Constant::Char(c) => Some(*c as i64),
        _ => None,
    }
}

/// Whether `c` is a constant of type `t` that the pass propagates.
fn is_scalar_of(c: &Constant, t: &LowLevelType) -> bool {
    matches!(
        (c, t),
        (Constant::Int(_), LowLevelType::Signed)
            | (Constant::Bool(_), LowLevelType::Bool)
            | (Constant::UInt(_), LowLevelType::Unsigned)
            | (Constant::Char(_), LowLevelType::Char)
    )
}

/// The word `v` as a constant of type `t`.
fn typed(v: i64, t: &LowLevelType) -> Option<Constant> {
    match t {
        LowLevelType::Signed => Some(Constant::Int(v)),
        LowLevelType::Bool => Some(Constant::Bool(v != 0)),
        LowLevelType::Unsigned => Some(Constant::UInt(v as u64)),
        LowLevelType::Char => u8::try_from(v).ok().map(Constant::Char),
        _ => None,
    }
}

/// The value of a foldable operation on constant words; `None` when the
/// operation is not one the pass folds or is undefined here.
fn eval(opname: Opcode, args: &[i64]) -> Option<i64> {
    let pure = llops::info(opname).is_some_and(|op| op.pure());
    if !pure {
        return None;
    }
    if let Some(cmp) = opname.char_compare_as_int() {
        // Chars are bytes 0..=255: they compare as those integers.
        return eval_int(cmp, args);
    }
    if opname == Opcode::CastCharToInt {
        return args.first().copied();
    }
    eval_int(opname, args)
}

/// The value of `ptr_nonzero(None)` or `ptr_iszero(None)`: pointer
/// constants are not words the lattice holds, but null's truth is known.
fn null_test(op: &rpy_ir::graph::SpaceOperation) -> Option<bool> {
    match (op.opname, op.args.as_slice()) {
        (Opcode::PtrNonzero, [Arg::Const(Constant::None)]) => Some(false),
        (Opcode::PtrIszero, [Arg::Const(Constant::None)]) => Some(true),
        _ => None,
    }
}

/// The key a switch compares an exit case with, as the LLInterpreter does.
fn case_key(c: &Constant) -> Option<i64> {
    match c {
        Constant::Str(s) => rpy_ir::graph::single_byte(s).map(i64::from),
        other => word(other),
    }
}

/// The exits of block `b` that may be taken, given what is known;
/// `None`: none yet (its switch is not known yet).
fn live_exits(g: &G, b: BlockId, lat: &dyn Fn(&Arg) -> Lat) -> Option<Vec<usize>> {
    let block = g.block(b);
    let all = (0..block.exits.len()).collect();
    let sw = match &block.exitswitch {
        None | Some(Arg::Const(Constant::LastException)) => return Some(all),
        Some(sw) => sw,
    };
    match lat(sw) {
        Lat::Unknown => None,
        Lat::Varying => Some(all),
        Lat::Const(c) => Some(match chosen_exit(g, b, &c) {
            Some(i) => vec![i],
            None => all,
        }),
    }
}

/// The exit a switch on `c` takes: the one whose case is `c`, else the
/// `default` one; `None` when there is none (a fatal error at run time,
/// left alone).
fn chosen_exit(g: &G, b: BlockId, c: &Constant) -> Option<usize> {
    let key = case_key(c)?;
    let exits = &g.block(b).exits;
    exits
        .iter()
        .position(|l| l.exitcase.as_ref().and_then(case_key) == Some(key))
        .or_else(|| {
            exits
                .iter()
                .position(|l| matches!(&l.exitcase, Some(Constant::Name(n)) if n == "default"))
        })
}

/// Folds the constants and branches of every graph.
pub fn fold_constants(program: &mut Program<LowLevel>) -> ConstFoldStats {
    let mut stats = ConstFoldStats::default();
    for g in &mut program.graphs {
        fold_graph(g, &mut stats);
    }
    stats
}

/// Folds the constants and branches of one graph.
pub fn fold_graph(g: &mut G, stats: &mut ConstFoldStats) {
    let n = g.blocks.len();
    let mut val = vec![Lat::Unknown; g.vars.len()];
    for v in g.params().to_vec() {
        val[v.0 as usize] = Lat::Varying;
    }
    let mut reached = vec![false; n];
    let mut queued = vec![false; n];
    let mut taken: Vec<Vec<bool>> = g
        .blocks
        .iter()
        .map(|b| vec![false; b.exits.len()])
        .collect();
    let mut work = vec![g.startblock];
    reached[g.startblock.0 as usize] = true;
    queued[g.startblock.0 as usize] = true;
    while let Some(b) = work.pop() {
        queued[b.0 as usize] = false;
        let block = g.block(b);
        for op in &block.operations {
            let ty = g.info(op.result);
            let args: Vec<Lat> = op.args.iter().map(|a| arg_lat(g, &val, a)).collect();
            let new = if op.opname == Opcode::SameAs && args.len() == 1 {
                args[0].clone()
            } else if let Some(truth) = null_test(op) {
                // A test of the null constant (a list that may be None,
                // inlined where it is None): the branch on it folds.
                Lat::Const(Constant::Bool(truth))
            } else if args.contains(&Lat::Varying) {
                Lat::Varying
            } else if args.contains(&Lat::Unknown) {
                Lat::Unknown
            } else {
                let words: Option<Vec<i64>> = args
                    .iter()
                    .map(|a| match a {
                        Lat::Const(c) => word(c),
                        _ => None,
                    })
                    .collect();
                match words
                    .and_then(|w| eval(op.opname, &w))
                    .and_then(|v| typed(v, ty))
                {
                    Some(c) => Lat::Const(c),
                    None => Lat::Varying,
                }
            };
            let new = match new {
                Lat::Const(c) if !is_scalar_of(&c, ty) => Lat::Varying,
                other => other,
            };
            val[op.result.0 as usize] = new;
        }
        let Some(exits) = live_exits(g, b, &|a| arg_lat(g, &val, a)) else {
            continue;
        };
        for i in exits {
            let link = &g.block(b).exits[i];
            let newly = !taken[b.0 as usize][i];
            taken[b.0 as usize][i] = true;
            for v in link.defined_vars() {
                val[v.0 as usize] = Lat::Varying;
            }
            let t = link.target;
            let mut changed = false;
            for (a, p) in link.args.iter().zip(&g.block(t).inputargs) {
                let new = meet(&val[p.0 as usize], &arg_lat(g, &val, a));
                if new != val[p.0 as usize] {
                    val[p.0 as usize] = new;
                    changed = true;
                }
            }
            if (newly || changed) && !queued[t.0 as usize] {
                reached[t.0 as usize] = true;
                queued[t.0 as usize] = true;
                work.push(t);
            }
        }
    }
    rewrite(g, &val, &reached, stats);
}

fn arg_lat(g: &G, val: &[Lat], a: &Arg) -> Lat {
    match a {
        Arg::Var(v) => val[v.0 as usize].clone(),
        Arg::Const(c) => {
            // A constant argument is itself, whatever its kind; only
            // scalars are ever substituted (see `typed`).
            let _ = g;
            if word(c).is_some() {
                Lat::Const(c.clone())
            } else {
                Lat::Varying
            }
        }
    }
}

fn rewrite(g: &mut G, val: &[Lat], reached: &[bool], stats: &mut ConstFoldStats) {
    let before = g.reverse_postorder().len();
    let known: HashMap<Var, Constant> = val
        .iter()
        .enumerate()
        .filter_map(|(i, l)| match l {
            Lat::Const(c) if is_scalar_of(c, g.info(Var(i as u32))) => {
                Some((Var(i as u32), c.clone()))
            }
            _ => None,
        })
        .collect();
    let sub = |a: &mut Arg, n: &mut usize| {
        if let Arg::Var(v) = a {
            if let Some(c) = known.get(v) {
                *a = Arg::Const(c.clone());
                *n += 1;
            }
        }
    };
    for (b, block) in g.blocks.iter_mut().enumerate() {
        if !reached[b] {
            continue;
        }
        let before_ops = block.operations.len();
        let catching = block.catches_exceptions();
        let last = block.operations.len().saturating_sub(1);
        let mut i = 0;
        block.operations.retain(|op| {
            let keep = (catching && i == last)
                || !known.contains_key(&op.result)
                || !llops::info(op.opname).is_some_and(|o| o.pure());
            i += 1;
            keep
        });
        stats.ops_folded += before_ops - block.operations.len();
        for op in &mut block.operations {
            op.args
                .iter_mut()
                .for_each(|a| sub(a, &mut stats.uses_replaced));
            // A function pointer that became a constant is a direct call.
            super::devirtualize::call_made_direct(op);
        }
        for l in &mut block.exits {
            l.args
                .iter_mut()
                .for_each(|a| sub(a, &mut stats.uses_replaced));
        }
        if let Some(sw) = &mut block.exitswitch {
            sub(sw, &mut stats.uses_replaced);
        }
    }
    for (b, _) in reached.iter().enumerate().filter(|(_, r)| **r) {
        let b = BlockId(b as u32);
        let c = match &g.block(b).exitswitch {
            Some(Arg::Const(c)) if *c != Constant::LastException => c.clone(),
            _ => continue,
        };
        if let Some(i) = chosen_exit(g, b, &c) {
            let block = g.block_mut(b);
            let mut link = block.exits.swap_remove(i);
            link.exitcase = None;
            block.exits = vec![link];
            block.exitswitch = None;
            stats.branches_folded += 1;
        }
    }
    stats.blocks_removed += before - g.reverse_postorder().len();
}

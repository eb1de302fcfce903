//! Facts from branch conditions: after `if x == 5:` the true branch knows
//! `x` is 5, after `if x < n:` it knows `x` is below what `n` may be, and
//! what follows from that folds (a second test of the same condition, an
//! operation whose value the ranges decide).
//!
//! An [`IntBound`] (range and known bits, the e-graph's domain) for every
//! Signed and Bool variable, computed forwards over each graph in reverse
//! postorder. The start block's parameters are unbounded. A block's input
//! argument is the union of what each link into it passes, each link's
//! value narrowed by the condition under which the link is taken: the
//! link out of `switch c` with case True, where `c = int_lt(a, b)` in the
//! same block, passes `a` knowing `a < b` (`a.hi <= b.hi - 1`) and `b`
//! knowing `b > a`; the same for `int_le`, `int_gt`, `int_ge`, `int_eq`
//! (both sides the intersection), `int_ne` (a constant excluded at an end
//! of the range) and `int_is_true`, and the switched value itself is its
//! case. A link from a block not processed yet (a loop's back edge) passes
//! what nothing is known of, so one pass in reverse postorder is sound
//! with no widening; loops' headers learn nothing. A pure operation's
//! bound is the transfer function of its arguments' bounds
//! (`rpy_ir::intbound::transfer`, the e-graph's).
//!
//! Then every variable whose bound is one value is that constant in its
//! block: its uses (operations, the switch, link arguments) take the
//! constant, and a pure operation computing it goes. Only operations
//! defined for all inputs are removed (divisions, modulos and shifts stay:
//! their bound holds only where they are defined). A narrowing that leaves
//! no value (a link that no run takes) is not applied. `constfold`, which
//! runs after, folds the switches made constant and drops what they no
//! longer reach; `int_rewrite` sees the constants.

use super::egraph::int_sig;
use rpy_ir::graph::{Arg, BlockId, Constant, FunctionGraph, Link, LowLevel, Program, Var};
use rpy_ir::intbound::{transfer, IntBound};
use rpy_ir::opcode::Opcode;

type G = FunctionGraph<LowLevel>;

/// What [`branch_facts`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BranchFactStats {
    /// Variables found to hold one value (input arguments and operation
    /// results) and replaced by it.
    pub values_made_constant: usize,
    /// Switches whose value became a constant.
    pub switches_decided: usize,
}

/// Finds the facts of every graph's branches and folds what they decide.
pub fn branch_facts(program: &mut Program<LowLevel>) -> BranchFactStats {
    let mut stats = BranchFactStats::default();
    for g in &mut program.graphs {
        branch_facts_in_graph(g, &mut stats);
    }
    stats
}

fn union(a: &IntBound, b: &IntBound) -> IntBound {
    IntBound {
        lo: a.lo.min(b.lo),
        hi: a.hi.max(b.hi),
        zeros: a.zeros & b.zeros,
        ones: a.ones & b.ones,
    }
}

/// `b` narrowed to `lo..=hi`; `b` itself when nothing is left.
fn narrow(b: &IntBound, lo: i64, hi: i64) -> IntBound {
    if lo > hi {
        return *b;
    }
    b.intersect(&IntBound::range(lo, hi)).unwrap_or(*b)
}

/// `a < b` (strictly when `strict`, else `a <= b`) holds: both narrowed.
fn less(a: &IntBound, b: &IntBound, strict: bool) -> (IntBound, IntBound) {
    let d = i64::from(strict);
    let na = match b.hi.checked_sub(d) {
        Some(hi) => narrow(a, i64::MIN, hi),
        None => *a,
    };
    let nb = match a.lo.checked_add(d) {
        Some(lo) => narrow(b, lo, i64::MAX),
        None => *b,
    };
    (na, nb)
}

/// `a != c` for a constant `c`: an end of `a`'s range moves in.
fn not_equal(a: &IntBound, c: i64) -> IntBound {
    if a.lo == c && c < a.hi {
        narrow(a, c + 1, a.hi)
    } else if a.hi == c && a.lo < c {
        narrow(a, a.lo, c - 1)
    } else {
        *a
    }
}

/// The narrowings that hold on `link` out of block `b`: (variable, bound).
fn link_facts(
    g: &G,
    b: BlockId,
    link: &Link,
    bound: &dyn Fn(&Arg) -> Option<IntBound>,
) -> Vec<(Var, IntBound)> {
    let block = g.block(b);
    let Some(Arg::Var(s)) = &block.exitswitch else {
        return Vec::new();
    };
    let case = match &link.exitcase {
        Some(Constant::Bool(v)) => *v as i64,
        Some(Constant::Int(v)) => *v,
        _ => return Vec::new(),
    };
    let mut facts = Vec::new();
    if super::int_type(g.info(*s)).is_some() {
        facts.push((*s, IntBound::constant(case)));
    }
    if !matches!(link.exitcase, Some(Constant::Bool(_))) {
        return facts;
    }
    let taken = case != 0;
    let Some(op) = block.operations.iter().find(|op| op.result == *s) else {
        return facts;
    };
    let mut push = |a: &Arg, nb: IntBound| {
        if let Arg::Var(v) = a {
            facts.push((*v, nb));
        }
    };
    match (op.opname, op.args.as_slice()) {
        (Opcode::IntIsTrue, [x]) => {
            let Some(bx) = bound(x) else { return facts };
            push(
                x,
                if taken {
                    not_equal(&bx, 0)
                } else {
                    narrow(&bx, 0, 0)
                },
            );
        }
        (name, [x, y]) => {
            let (Some(bx), Some(by)) = (bound(x), bound(y)) else {
                return facts;
            };
            // Each comparison as `lhs < rhs` or `lhs <= rhs` when it holds.
            let cmp = match (name, taken) {
                (Opcode::IntLt, true) | (Opcode::IntGe, false) => Some((x, y, bx, by, true)),
                (Opcode::IntLe, true) | (Opcode::IntGt, false) => Some((x, y, bx, by, false)),
                (Opcode::IntGt, true) | (Opcode::IntLe, false) => Some((y, x, by, bx, true)),
                (Opcode::IntGe, true) | (Opcode::IntLt, false) => Some((y, x, by, bx, false)),
                _ => None,
            };
            if let Some((l, r, bl, br, strict)) = cmp {
                let (nl, nr) = less(&bl, &br, strict);
                push(l, nl);
                push(r, nr);
            }
            let equal = match name {
                Opcode::IntEq => Some(taken),
                Opcode::IntNe => Some(!taken),
                _ => None,
            };
            match equal {
                Some(true) => {
                    if let Some(both) = bx.intersect(&by) {
                        push(x, both);
                        push(y, both);
                    }
                }
                Some(false) => {
                    if let Some(c) = by.get_constant() {
                        push(x, not_equal(&bx, c));
                    }
                    if let Some(c) = bx.get_constant() {
                        push(y, not_equal(&by, c));
                    }
                }
                None => {}
            }
        }
        _ => {}
    }
    facts
}

pub(super) fn branch_facts_in_graph(g: &mut G, stats: &mut BranchFactStats) {
    let order = g.reverse_postorder();
    // Cheap exit: no switch on a comparison, nothing to learn.
    let any_switch = order
        .iter()
        .any(|b| matches!(g.block(*b).exitswitch, Some(Arg::Var(_))));
    if !any_switch {
        return;
    }
    let n = g.blocks.len();
    let mut rpo_index = vec![usize::MAX; n];
    for (i, b) in order.iter().enumerate() {
        rpo_index[b.0 as usize] = i;
    }
    let preds = g.predecessors();
    let mut bounds: Vec<Option<IntBound>> = vec![None; g.vars.len()];
    let initial = |is_bool: bool| {
        if is_bool {
            IntBound::boolean()
        } else {
            IntBound::unbounded()
        }
    };
    // Per block: the constants found (variable, value), applied after.
    let mut found: Vec<Vec<(Var, i64)>> = vec![Vec::new(); n];
    for (i, &b) in order.iter().enumerate() {
        let block = g.block(b);
        for (k, v) in block.inputargs.iter().enumerate() {
            let Some(is_bool) = super::int_type(g.info(*v)) else {
                continue;
            };
            let mut joined: Option<IntBound> = None;
            let mut top = b == g.startblock;
            for &(p, e) in &preds[b.0 as usize] {
                let pi = rpo_index[p.0 as usize];
                if pi == usize::MAX {
                    continue; // never runs
                }
                if pi >= i {
                    top = true; // a back edge: not known yet
                    break;
                }
                let link = &g.block(p).exits[e];
                let Some(a) = link.args.get(k) else {
                    top = true;
                    break;
                };
                let of = |a: &Arg| arg_bound(g, &bounds, a);
                let mut ab = of(a).unwrap_or_else(|| initial(is_bool));
                if let Arg::Var(x) = a {
                    for (fv, fb) in link_facts(g, p, link, &of) {
                        if fv == *x {
                            ab = ab.intersect(&fb).unwrap_or(ab);
                        }
                    }
                }
                joined = Some(match joined {
                    None => ab,
                    Some(j) => union(&j, &ab),
                });
            }
            let bnd = match joined {
                Some(j) if !top => j.intersect(&initial(is_bool)).unwrap_or(j),
                _ => initial(is_bool),
            };
            bounds[v.0 as usize] = Some(bnd);
            // (The return and except blocks have nothing to fold.)
            if b != g.startblock && b != g.returnblock && b != g.exceptblock {
                if let Some(c) = bnd.get_constant() {
                    found[b.0 as usize].push((*v, c));
                }
            }
        }
        for op in &block.operations {
            let Some(res_bool) = super::int_type(g.info(op.result)) else {
                continue;
            };
            let mut bnd = initial(res_bool);
            if let Some((_, arg_tys, res)) = int_sig(op.opname) {
                if res == res_bool && op.args.len() == arg_tys.len() {
                    let args: Option<Vec<IntBound>> =
                        op.args.iter().map(|a| arg_bound(g, &bounds, a)).collect();
                    if let Some(t) = args.and_then(|a| transfer(op.opname.name(), &a)) {
                        bnd = t.intersect(&bnd).unwrap_or(bnd);
                    }
                    if rpy_ir::llops::defined_for_every_input(op.opname) {
                        if let Some(c) = bnd.get_constant() {
                            found[b.0 as usize].push((op.result, c));
                        }
                    }
                }
            } else if op.opname == Opcode::SameAs && op.args.len() == 1 {
                if let Some(t) = arg_bound(g, &bounds, &op.args[0]) {
                    bnd = t.intersect(&bnd).unwrap_or(bnd);
                }
            }
            bounds[op.result.0 as usize] = Some(bnd);
        }
    }
    for (b, consts) in found.into_iter().enumerate() {
        if consts.is_empty() {
            continue;
        }
        let constant = |v: Var| {
            consts.iter().find(|(x, _)| *x == v).map(|(_, c)| {
                if super::int_type(g.info(v)) == Some(true) {
                    Constant::Bool(*c != 0)
                } else {
                    Constant::Int(*c)
                }
            })
        };
        let subst = |a: &mut Arg| {
            if let Arg::Var(v) = a {
                if let Some(c) = constant(*v) {
                    *a = Arg::Const(c);
                }
            }
        };
        let block = &g.blocks[b];
        // A catching block's raising operation stays last.
        let last = block.operations.len().wrapping_sub(1);
        let catching = block.catches_exceptions();
        let mut new_ops = Vec::with_capacity(block.operations.len());
        for (i, op) in block.operations.iter().enumerate() {
            if constant(op.result).is_some() && !(catching && i == last) {
                continue;
            }
            let mut op = op.clone();
            op.args.iter_mut().for_each(subst);
            new_ops.push(op);
        }
        let mut exitswitch = block.exitswitch.clone();
        let decided = matches!(&exitswitch, Some(Arg::Var(v)) if constant(*v).is_some());
        if let Some(s) = &mut exitswitch {
            subst(s);
        }
        let mut exits = block.exits.clone();
        for l in &mut exits {
            l.args.iter_mut().for_each(subst);
        }
        stats.values_made_constant += consts.len();
        stats.switches_decided += usize::from(decided);
        let block = &mut g.blocks[b];
        block.operations = new_ops;
        block.exitswitch = exitswitch;
        block.exits = exits;
    }
}

/// The bound of an argument: a constant's, or what is known of a tracked
/// variable (`None`: not an integer the pass tracks).
fn arg_bound(g: &G, bounds: &[Option<IntBound>], a: &Arg) -> Option<IntBound> {
    match a {
        Arg::Const(Constant::Int(c)) => Some(IntBound::constant(*c)),
        Arg::Const(Constant::Bool(c)) => Some(IntBound::constant(*c as i64)),
        Arg::Var(v) => {
            super::int_type(g.info(*v))?;
            bounds[v.0 as usize]
        }
        _ => None,
    }
}

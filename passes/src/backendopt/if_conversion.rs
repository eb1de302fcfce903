//! If-conversion of short-circuit conditions: `a or b` and `a and b`,
//! where computing `b` is a few field reads of objects already read and
//! pure operations, become one straight block computing both and
//! combining them with `int_or`/`int_and`, so the C compiler emits one
//! branch where there were two or three.
//!
//! After the rtyper, `return self.holding or (not self.pending and
//! self.waiting)` is a block reading `holding` and switching on it, whose
//! True exit passes it to the join block, and whose False exit goes to a
//! block reading `pending`, and so on. When the flags follow no pattern
//! the branch predictor learns, each of those branches costs a pipeline
//! flush now and then; computing the three reads always and branching
//! once on the result does not (richards' scheduler tests two such
//! conditions on each task it visits: `richards 1000` ran in 0.36 s
//! with the branches, as with the original toolchain, and in 0.34 s with
//! them converted).
//!
//! A block `A` switching on a Bool variable `c` is converted with its
//! successor `B` when: one exit of `A` goes to a block `J` and the other
//! to `B`; `B` is entered only from `A`, leaves only to `J`, and holds at
//! most [`MAX_OPS`] operations, each one that can run on the other path
//! too without an effect or a fault ([`speculable`]): a pure operation
//! defined for every input, or a `getfield` of an object `A` itself read
//! or wrote a field of (through the same variable, or a `same_as` of it,
//! so of the same type: the object exists and has the field), at most
//! [`MAX_READS`] of them; and the two links into `J` pass the same
//! values but for Bool arguments where `A`'s link passes `c` or the
//! constant `c` has on that link. Such an argument is `c or v` when `A`
//! goes to `J` on True (`v` what `B` passes) and `c and v` when it goes
//! on False, computed as `int_is_true(int_or(cast_bool_to_int(c),
//! cast_bool_to_int(v)))` (and `int_and`), which the C compiler reduces
//! to one bitwise operation. `B`'s operations move to the end of `A`,
//! and `A` goes to `J` unconditionally; `simplify` then merges `J` into
//! `A` when `A` was its only other entry, so nested conditions convert
//! from the innermost out, to a fixpoint.

use fxhash::FxHashMap as HashMap;
use rpy_ir::graph::{Arg, BlockId, Constant, FunctionGraph, Link, LowLevel, SpaceOperation, Var};
use rpy_ir::lltype::LowLevelType;
use rpy_ir::opcode::Opcode;

type G = FunctionGraph<LowLevel>;

/// The most operations the block of the second operand may hold.
pub const MAX_OPS: usize = 12;

/// The most field reads the block of the second operand may hold.
pub const MAX_READS: usize = 3;

/// What [`convert_in_graph`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IfConversionStats {
    /// Branches removed (pairs of blocks made one).
    pub branches_removed: usize,
    /// Field reads moved ahead of a branch (one moved twice, by nested
    /// conversions, counts twice).
    pub reads_speculated: usize,
}

/// The operations besides `getfield` that the second operand's block may
/// hold: among those `llops` says are pure and defined for every input
/// (checked by a test), the ones as cheap as a branch, so that computing
/// them on both paths costs less than the branch it saves (no
/// multiplication, no float operation).
const SPECULABLE: &[Opcode] = &[
    Opcode::SameAs,
    Opcode::CastPointer,
    Opcode::BoolNot,
    Opcode::IntEq,
    Opcode::IntNe,
    Opcode::IntLt,
    Opcode::IntLe,
    Opcode::IntGt,
    Opcode::IntGe,
    Opcode::IntIsTrue,
    Opcode::IntAnd,
    Opcode::IntOr,
    Opcode::IntXor,
    Opcode::IntAdd,
    Opcode::IntSub,
    Opcode::CharEq,
    Opcode::CharNe,
    Opcode::PtrEq,
    Opcode::PtrNe,
    Opcode::PtrIszero,
    Opcode::PtrNonzero,
    Opcode::CastBoolToInt,
];

/// Whether `op` may run where it did not (on the other path of a branch)
/// with no effect and no fault, and cheaply: one of [`SPECULABLE`], or a
/// `getfield` (of an object known to exist, which the caller checks).
fn speculable(op: &SpaceOperation) -> bool {
    op.opname == Opcode::Getfield || SPECULABLE.contains(&op.opname)
}

/// Converts every pair of blocks of `g` that qualifies, to a fixpoint.
pub fn convert_in_graph(g: &mut G, stats: &mut IfConversionStats) {
    loop {
        let preds = g.predecessors();
        let mut changed = false;
        for a in g.reverse_postorder() {
            if convert_block(g, &preds, a, stats) {
                changed = true;
                break;
            }
        }
        if !changed {
            return;
        }
        crate::simplify::simplify_graph(g);
    }
}

/// The variables of `a` known to point to an object whose fields of their
/// type may be read: those `a` reads or writes a field through, and what
/// is a `same_as` of one of them (either way), to a fixpoint.
fn read_objects(g: &G, a: BlockId) -> Vec<Var> {
    let block = g.block(a);
    let mut known: Vec<Var> = block
        .operations
        .iter()
        .filter(|op| matches!(op.opname, Opcode::Getfield | Opcode::Setfield))
        .filter_map(|op| match op.args.first() {
            Some(Arg::Var(v)) => Some(*v),
            _ => None,
        })
        .collect();
    loop {
        let mut grew = false;
        for op in &block.operations {
            if op.opname != Opcode::SameAs {
                continue;
            }
            let Some(Arg::Var(x)) = op.args.first() else {
                continue;
            };
            for (from, to) in [(*x, op.result), (op.result, *x)] {
                if known.contains(&from) && !known.contains(&to) {
                    known.push(to);
                    grew = true;
                }
            }
        }
        if !grew {
            return known;
        }
    }
}

/// Converts block `a` with its successor when they qualify (see the
/// module's documentation); true when it did.
fn convert_block(
    g: &mut G,
    preds: &[Vec<(BlockId, usize)>],
    a: BlockId,
    stats: &mut IfConversionStats,
) -> bool {
    let block = g.block(a);
    let Some(Arg::Var(c)) = block.exitswitch.clone() else {
        return false;
    };
    if *g.info(c) != LowLevelType::Bool || block.exits.len() != 2 || block.catches_exceptions() {
        return false;
    }
    let exits = block.exits.clone();
    // `to_j` goes to the join directly when `c` is `k`; `to_b` to the
    // second operand's block.
    for (to_j, to_b) in [(0, 1), (1, 0)] {
        let lj = &exits[to_j];
        let lb = &exits[to_b];
        let Some(Constant::Bool(k)) = lj.exitcase.clone() else {
            continue;
        };
        let (j, b) = (lj.target, lb.target);
        if b == a || b == j || b == g.returnblock || b == g.exceptblock || j == g.exceptblock {
            continue;
        }
        let second = g.block(b).clone();
        if preds[b.0 as usize].len() != 1
            || second.exitswitch.is_some()
            || second.exits.len() != 1
            || second.exits[0].target != j
            || second.operations.len() > MAX_OPS
            || !second.operations.iter().all(speculable)
        {
            continue;
        }
        // `b`'s variables in `a`'s: its input arguments are what `a` passes.
        let subst: HashMap<Var, Arg> = second
            .inputargs
            .iter()
            .copied()
            .zip(lb.args.iter().cloned())
            .collect();
        let rename = |arg: &Arg| -> Arg {
            match arg {
                Arg::Var(v) => subst.get(v).cloned().unwrap_or(Arg::Var(*v)),
                other => other.clone(),
            }
        };
        // The objects whose fields `b` reads must be known in `a` (or be
        // `same_as` copies made in `b` of such).
        let mut known = read_objects(g, a);
        let mut reads = 0;
        let mut ops: Vec<SpaceOperation> = Vec::new();
        let mut fine = true;
        for op in &second.operations {
            let mut op = op.clone();
            op.args = op.args.iter().map(rename).collect();
            match op.opname {
                Opcode::Getfield => {
                    reads += 1;
                    if !matches!(op.args.first(), Some(Arg::Var(p)) if known.contains(p)) {
                        fine = false;
                        break;
                    }
                }
                Opcode::SameAs => {
                    if let Some(Arg::Var(p)) = op.args.first() {
                        if known.contains(p) {
                            known.push(op.result);
                        }
                    }
                }
                _ => {}
            }
            ops.push(op);
        }
        if !fine || reads > MAX_READS {
            continue;
        }
        let b_exit: Vec<Arg> = second.exits[0].args.iter().map(rename).collect();
        if b_exit.len() != lj.args.len() {
            continue;
        }
        // The join's arguments: the same on both links, or a Bool that is
        // `c`'s value on `a`'s link.
        let mut merged: Vec<Arg> = Vec::new();
        let mut combine: Vec<(usize, Arg)> = Vec::new();
        for (i, (x, y)) in lj.args.iter().zip(&b_exit).enumerate() {
            if x == y {
                merged.push(x.clone());
                continue;
            }
            let is_c = *x == Arg::Var(c) || *x == Arg::Const(Constant::Bool(k));
            let jvar = g.block(j).inputargs[i];
            if !is_c || *g.info(jvar) != LowLevelType::Bool {
                fine = false;
                break;
            }
            merged.push(Arg::Var(c)); // replaced below
            combine.push((i, y.clone()));
        }
        if !fine {
            continue;
        }
        let pos = ops.first().and_then(|op| op.pos).or(g
            .block(a)
            .operations
            .last()
            .and_then(|op| op.pos));
        for (i, y) in combine {
            let ci = g.new_var(None, LowLevelType::Signed);
            let yi = g.new_var(None, LowLevelType::Signed);
            let both = g.new_var(None, LowLevelType::Signed);
            let r = g.new_var(None, LowLevelType::Bool);
            let op = |opname, args, result| SpaceOperation {
                opname,
                args,
                result,
                pos,
            };
            ops.push(op(Opcode::CastBoolToInt, vec![Arg::Var(c)], ci));
            ops.push(op(Opcode::CastBoolToInt, vec![y], yi));
            let join = if k { Opcode::IntOr } else { Opcode::IntAnd };
            ops.push(op(join, vec![Arg::Var(ci), Arg::Var(yi)], both));
            ops.push(op(Opcode::IntIsTrue, vec![Arg::Var(both)], r));
            merged[i] = Arg::Var(r);
        }
        stats.branches_removed += 1;
        stats.reads_speculated += reads;
        let block = g.block_mut(a);
        block.operations.extend(ops);
        block.exitswitch = None;
        block.exits = vec![Link::new(merged, j, None)];
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::SPECULABLE;

    /// Every operation the conversion may compute on both paths is one
    /// `llops` says has no effect and is defined for every input.
    #[test]
    fn the_speculable_operations_are_pure_and_total() {
        for &op in SPECULABLE {
            let info =
                rpy_ir::llops::info(op).unwrap_or_else(|| panic!("{op:?} has no llops entry"));
            assert!(info.pure(), "{op:?} is not pure");
            assert!(rpy_ir::llops::defined_for_every_input(op), "{op:?}");
        }
    }
}

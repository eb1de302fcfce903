//! Register allocation: linear scan over the trace.
//!
//! Every box is defined once, so its life is one interval of positions
//! (position 0 is the trace's entry, where the inputs are defined; the
//! operation at index `pc` is position `pc + 1`): from its definition to its
//! last use (as an argument or a fail argument). A box used inside a loop
//! but defined before its label lives until the loop's `jump`, and so does
//! every label argument, since the jump writes it. Each box gets one home
//! for its whole life, a register or its frame slot, so the code never
//! moves a value between homes; when more boxes are live than there are
//! registers, the interval that ends last goes to the frame (the classic
//! linear-scan spill choice).
//!
//! A label argument and the box the `jump` passes back for it share one
//! interval (and so one home) when the argument is last read no later than
//! the other box is defined: that move of the jump is then free.

use rpy_jit::trace::Opcode;
use rpy_jit::trace::{BoxId, Kind, Trace, Value};

/// Where a box lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Home {
    /// A general-purpose register (x86 number).
    Gp(u8),
    /// An SSE register (float boxes).
    Xmm(u8),
    /// The box's frame slot, `[frame + 8 * box]`.
    Slot,
}

/// The general-purpose registers boxes may live in, callee-saved ones first
/// (they survive calls without saving). rax, rcx, rdx and r11 are scratch,
/// rbx holds the frame, r15 the loop's remaining iteration budget.
pub const GP_REGISTERS: &[u8] = &[12, 13, 14, 5, 8, 9, 10, 6, 7];

/// The general-purpose registers a call clobbers among [`GP_REGISTERS`].
pub const CALLER_SAVED_GP: &[u8] = &[8, 9, 10, 6, 7];

/// The SSE registers boxes may live in (xmm0 and xmm1 are scratch); a call
/// clobbers all of them.
pub const XMM_REGISTERS: &[u8] = &[2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/// The result of allocation: each box's home and live interval (positions).
#[derive(Clone, Debug)]
pub struct Allocation {
    pub homes: Vec<Home>,
    pub live: Vec<(usize, usize)>,
}

impl Allocation {
    /// Whether box `b` holds a value when the operation at `pc` runs
    /// (defined before it, read by it or after it): a call in the middle of
    /// that operation must keep it.
    pub fn live_at(&self, b: BoxId, pc: usize) -> bool {
        // the operation is at position pc + 1
        let (start, end) = self.live[b];
        start < pc + 1 && end > pc
    }
}

/// One interval to place: a box, or a label argument with its jump partner.
struct Group {
    first: BoxId,
    partner: Option<BoxId>,
    start: usize,
    end: usize,
    float: bool,
}

impl Group {
    fn boxes(&self) -> impl Iterator<Item = BoxId> {
        std::iter::once(self.first).chain(self.partner)
    }
}

/// Allocates homes for every box of `trace`.
pub fn assign(trace: &Trace) -> Allocation {
    assign_with(trace, GP_REGISTERS, XMM_REGISTERS)
}

/// [`assign`] with given register sets (tests use small ones to force
/// spilling).
pub fn assign_with(trace: &Trace, gp: &[u8], xmm: &[u8]) -> Allocation {
    let n = trace.boxes.len();
    let mut def = vec![0usize; n];
    let mut end = vec![0usize; n];
    for (pc, op) in trace.ops.iter().enumerate() {
        let pos = pc + 1;
        for v in op.args.iter().chain(op.fail_args.iter().flatten()) {
            if let Value::Box(b) = v {
                end[*b] = end[*b].max(pos);
            }
        }
        if let Some(r) = op.result {
            def[r] = pos;
            end[r] = end[r].max(pos);
        }
    }
    // a bounds check compares with the array's length box from an earlier
    // `arraylen_gc` (since the last label) instead of loading it again, so
    // that box lives until then
    let mut length_of: std::collections::HashMap<BoxId, BoxId> = Default::default();
    for (pc, op) in trace.ops.iter().enumerate() {
        // a string operation is the array operation on its implied array
        let name = rpy_jit::trace::array_equivalent(op.opcode).unwrap_or(op.opcode);
        match (name, op.args.first()) {
            (Opcode::Label, _) => length_of.clear(),
            (Opcode::ArraylenGc, Some(Value::Box(array))) => {
                if let Some(r) = op.result {
                    length_of.insert(*array, r);
                }
            }
            (
                Opcode::GetarrayitemGcI
                | Opcode::GetarrayitemGcF
                | Opcode::GetarrayitemGcR
                | Opcode::SetarrayitemGc,
                Some(Value::Box(array)),
            ) => {
                if let Some(&len) = length_of.get(array) {
                    end[len] = end[len].max(pc + 1);
                }
            }
            _ => {}
        }
    }
    let last_read = end.clone();
    // loops: the label's arguments and everything defined before the label
    // and read inside the loop live until the jump
    let mut partner: Vec<Option<BoxId>> = vec![None; n];
    let mut label: (usize, Vec<Value>) = (0, trace.inputs.iter().map(|b| Value::Box(*b)).collect());
    for (pc, op) in trace.ops.iter().enumerate() {
        match op.opcode {
            Opcode::Label => label = (pc + 1, op.args.clone()),
            Opcode::Jump => {
                let (start, targets) = &label;
                let jump_pos = pc + 1;
                for b in 0..n {
                    if def[b] <= *start && end[b] >= *start {
                        end[b] = end[b].max(jump_pos);
                    }
                }
                for (t, a) in targets.iter().zip(&op.args) {
                    let (Value::Box(t), Value::Box(a)) = (*t, *a) else {
                        continue;
                    };
                    let is_target = targets.contains(&Value::Box(a));
                    let same_class = (trace.boxes[t].kind == Kind::Float)
                        == (trace.boxes[a].kind == Kind::Float);
                    if t != a
                        && !is_target
                        && same_class
                        && def[a] > *start
                        && partner[a].is_none()
                        && partner[t].is_none()
                        && last_read[t] <= def[a]
                    {
                        partner[a] = Some(t);
                        partner[t] = Some(a);
                    }
                }
            }
            _ => {}
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    for b in 0..n {
        let float = trace.boxes[b].kind == Kind::Float;
        match partner[b] {
            Some(p) if p < b => {}
            Some(p) => groups.push(Group {
                first: b,
                partner: Some(p),
                start: def[b].min(def[p]),
                end: end[b].max(end[p]),
                float,
            }),
            None => groups.push(Group {
                first: b,
                partner: None,
                start: def[b],
                end: end[b],
                float,
            }),
        }
    }
    groups.sort_by_key(|g| (g.start, g.end));
    let mut homes = vec![Home::Slot; n];
    let mut live = vec![(0, 0); n];
    for g in &groups {
        for b in g.boxes() {
            live[b] = (g.start, g.end);
        }
    }
    // one scan per register class
    for float in [false, true] {
        let regs = if float { xmm } else { gp };
        let home = |r: u8| if float { Home::Xmm(r) } else { Home::Gp(r) };
        // (end, group index, index in `regs`) of the groups holding a
        // register
        let mut active: Vec<(usize, usize, usize)> = Vec::new();
        // bit i: regs[i] is free; the lowest is taken first (the registers
        // listed first are preferred)
        let mut free: u64 = if regs.len() >= 64 {
            u64::MAX
        } else {
            (1u64 << regs.len()) - 1
        };
        for (gi, g) in groups.iter().enumerate().filter(|(_, g)| g.float == float) {
            active.retain(|&(e, _, r)| {
                // the inputs all start at 0 and are loaded one after another
                let ends = e <= g.start && g.start > 0;
                if ends {
                    free |= 1 << r;
                }
                !ends
            });
            if free != 0 {
                let r = free.trailing_zeros() as usize;
                free &= !(1 << r);
                for b in g.boxes() {
                    homes[b] = home(regs[r]);
                }
                active.push((g.end, gi, r));
                continue;
            }
            let furthest = active
                .iter()
                .enumerate()
                .max_by_key(|(_, a)| a.0)
                .map(|(i, a)| (i, *a));
            match furthest {
                Some((i, (e, other, r))) if e > g.end => {
                    for b in groups[other].boxes() {
                        homes[b] = Home::Slot;
                    }
                    for b in g.boxes() {
                        homes[b] = home(regs[r]);
                    }
                    active[i] = (g.end, gi, r);
                }
                _ => {} // this group stays in the frame
            }
        }
    }
    Allocation { homes, live }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(t: &Trace, name: &str) -> BoxId {
        t.boxes.iter().position(|b| b.name() == name).unwrap()
    }

    #[test]
    fn loop_carried_boxes_share_registers_with_their_label_arguments() {
        let t = rpy_jit::text::parse(
            "[i0, i1]\nlabel(i0, i1)\ni2 = int_lt(i0, 100)\nguard_true(i2) [i0, i1]\n\
             i3 = int_add(i1, i0)\ni4 = int_add(i0, 1)\njump(i4, i3)\n",
        )
        .unwrap();
        let a = assign(&t);
        let home = |n: &str| a.homes[id(&t, n)];
        // i1 is last read by i3's definition, i0 by i4's: they share
        assert_eq!(home("i1"), home("i3"));
        assert_eq!(home("i0"), home("i4"));
        assert!(matches!(home("i0"), Home::Gp(_)));
        assert_ne!(home("i0"), home("i1"));
        // the label arguments live until the jump
        assert_eq!(a.live[id(&t, "i0")].1, 6);
    }

    #[test]
    fn the_interval_ending_last_is_spilled() {
        // i0 lives to the end; i1 and i2 are short: with one register, i0
        // goes to the frame
        let t = rpy_jit::text::parse(
            "[i0]\ni1 = int_add(i0, 1)\ni2 = int_add(i1, 1)\ni3 = int_add(i2, i0)\nfinish(i3, i0)\n",
        )
        .unwrap();
        let a = assign_with(&t, &[12], &[]);
        assert_eq!(a.homes[id(&t, "i0")], Home::Slot);
        assert_eq!(a.homes[id(&t, "i1")], Home::Gp(12));
        assert_eq!(a.homes[id(&t, "i2")], Home::Gp(12));
        // floats go to SSE registers, and to the frame when there are none
        let t = rpy_jit::text::parse("[f0]\nf1 = float_add(f0, f0)\nfinish(f1)\n").unwrap();
        assert!(matches!(assign(&t).homes[id(&t, "f1")], Home::Xmm(_)));
        assert_eq!(assign_with(&t, &[12], &[]).homes[id(&t, "f1")], Home::Slot);
    }
}

//! `label`, `jump` and `finish`.
//!
//! A jump goes to the last label before it (or to the start of the trace,
//! after the prologue, when there is none) and assigns the label's boxes in
//! parallel, through the staging area unless one move is enough. Each jump
//! spends one unit of the iteration budget (in r15); the one that exhausts
//! it leaves with the label's values, as the interpreter's `LoopLimit`.

use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi};
use rpy_jit::trace::Opcode;
use rpy_jit::trace::{Op, Trace, Value};

use super::regalloc::Home;
use super::{Gen, RAX};

/// The loop the next jump goes to: its code label and its boxes.
pub(super) struct LoopHead {
    target: DynamicLabel,
    boxes: Vec<Value>,
}

impl LoopHead {
    /// Where a jump to this head goes.
    pub(super) fn target(&self) -> DynamicLabel {
        self.target
    }

    /// The start of the trace, a jump's target when it has no label.
    pub(super) fn start(g: &mut Gen) -> LoopHead {
        let target = g.asm.new_dynamic_label();
        dynasm!(g.asm ; .arch x64 ; =>target);
        LoopHead {
            target,
            boxes: g.trace.inputs.iter().map(|b| Value::Box(*b)).collect(),
        }
    }
}

/// The values a `jump` at op `pc` assigns: its label's arguments, or the
/// trace's inputs.
pub(super) fn jump_targets(trace: &Trace, pc: usize) -> Vec<Value> {
    match trace.ops[..pc]
        .iter()
        .rposition(|o| o.opcode == Opcode::Label)
    {
        Some(l) => trace.ops[l].args.clone(),
        None => trace.inputs.iter().map(|b| Value::Box(*b)).collect(),
    }
}

/// The boxes of the label at op `pc` that its jump assigns another value
/// (all of them when no jump follows).
fn changed_by_jump(trace: &Trace, pc: usize) -> Vec<usize> {
    let label = &trace.ops[pc].args;
    let jump = trace.ops[pc + 1..]
        .iter()
        .take_while(|o| o.opcode != Opcode::Label)
        .find(|o| o.opcode == Opcode::Jump);
    label
        .iter()
        .enumerate()
        .filter_map(|(i, v)| {
            let b = v.as_box()?;
            let unchanged = jump.is_some_and(|j| j.args.get(i) == Some(v));
            (!unchanged).then_some(b)
        })
        .collect()
}

impl Gen<'_> {
    pub(super) fn control(
        &mut self,
        pc: usize,
        op: &Op,
        head: &mut LoopHead,
    ) -> Result<(), String> {
        match op.opcode {
            Opcode::Label => {
                let target = self.asm.new_dynamic_label();
                dynasm!(self.asm ; .arch x64 ; .align 16 ; =>target);
                // a label joins the jump's path: what was known about a box
                // the jump changes does not hold any more (boxes it passes
                // back unchanged, and boxes defined before, keep their values)
                let changed = changed_by_jump(self.trace, pc);
                self.nonnull.retain(|b| !changed.contains(b));
                self.known_length
                    .retain(|array, len| !changed.contains(array) && !changed.contains(len));
                *head = LoopHead {
                    target,
                    boxes: op.args.clone(),
                };
            }
            Opcode::Jump => {
                self.parallel_move(&op.args, &head.boxes);
                // loop while budget remains; else leave with the label's values
                let target = head.target;
                dynasm!(self.asm
                    ; .arch x64
                    ; sub r15, 1
                    ; jg =>target
                );
                self.write_out(&head.boxes.clone());
                self.ret_index(pc);
            }
            _ => {
                self.write_out(&op.args);
                self.linked_finish_exit();
                self.ret_index(pc);
            }
        }
        Ok(())
    }

    /// `targets[i] = values[i]` for all i at once, leaving out the values
    /// already where they go.
    fn parallel_move(&mut self, values: &[Value], targets: &[Value]) {
        let moves: Vec<(usize, Value, usize)> = values
            .iter()
            .zip(targets)
            .enumerate()
            .filter_map(|(i, (v, t))| {
                let t = t.as_box()?;
                let in_place = match *v {
                    Value::Box(b) => {
                        b == t || (self.home(b) != Home::Slot && self.home(b) == self.home(t))
                    }
                    _ => false,
                };
                (!in_place).then_some((i, *v, t))
            })
            .collect();
        if let [(_, v, t)] = moves[..] {
            self.load(RAX, v);
            self.store_box(t, RAX);
            return;
        }
        for &(i, v, _) in &moves {
            self.load(RAX, v);
            self.store_slot(self.frame.staging + i, RAX);
        }
        for &(i, _, t) in &moves {
            self.load_slot(RAX, self.frame.staging + i);
            self.store_box(t, RAX);
        }
    }
}

//! Register assignment: a few boxes get a machine register for the whole
//! trace (each box is defined once, so a fixed home is always correct); the
//! others stay in their frame slot.
//!
//! A label's argument and the box its `jump` passes back for it share one
//! register when their lives do not overlap (the label argument is last used
//! no later than the jump argument is defined), which makes that move of
//! the jump free. Loop-carried boxes and their partners come first, then the
//! most used boxes.

use rpy_jit::trace::{BoxId, Trace, Value};

/// The registers boxes may live in: rbx, rbp, r8, r9, r10, r12-r15 (rax,
/// rcx, rdx and r11 are scratch; rdi holds the frame, rsi the output).
pub const ALLOCATABLE: &[u8] = &[3, 5, 8, 9, 10, 12, 13, 14, 15];

/// The callee-saved registers among [`ALLOCATABLE`], saved on entry.
pub const CALLEE_SAVED: &[u8] = &[3, 5, 12, 13, 14, 15];

/// The register of each box, if it has one.
pub fn assign(trace: &Trace) -> Vec<Option<u8>> {
    let n = trace.boxes.len();
    let mut def = vec![0usize; n];
    let mut last_use = vec![0usize; n];
    let mut uses = vec![0usize; n];
    let mut loop_carried = vec![false; n];
    for (pc, op) in trace.ops.iter().enumerate() {
        if let Some(r) = op.result {
            def[r] = pc;
        }
        let all = op.args.iter().chain(op.fail_args.iter().flatten());
        for v in all {
            if let Value::Box(b) = v {
                last_use[*b] = pc;
                uses[*b] += 1;
            }
        }
    }
    // pairs (label argument, jump argument) that can share a register
    let mut partner: Vec<Option<BoxId>> = vec![None; n];
    let mut is_target = vec![false; n];
    let mut label: (Option<usize>, Vec<Value>) =
        (None, trace.inputs.iter().map(|b| Value::Box(*b)).collect());
    for (pc, op) in trace.ops.iter().enumerate() {
        match op.name() {
            "label" => {
                label = (Some(pc), op.args.clone());
                for v in &op.args {
                    if let Value::Box(b) = v {
                        is_target[*b] = true;
                    }
                }
            }
            "jump" => {
                for t in label.1.iter().filter_map(|v| v.as_box()) {
                    is_target[t] = true;
                    loop_carried[t] = true;
                }
                let start = label.0;
                for (t, a) in label.1.iter().zip(&op.args) {
                    let (Value::Box(t), Value::Box(a)) = (*t, *a) else {
                        continue;
                    };
                    loop_carried[a] = true;
                    let defined_in_loop = trace.ops[..pc]
                        .iter()
                        .enumerate()
                        .skip(start.map_or(0, |l| l + 1))
                        .any(|(_, o)| o.result == Some(a));
                    if defined_in_loop
                        && !is_target[a]
                        && partner[a].is_none()
                        && partner[t].is_none()
                        && t != a
                        && last_use[t] <= def[a]
                    {
                        partner[a] = Some(t);
                        partner[t] = Some(a);
                    }
                }
            }
            _ => {}
        }
    }
    // groups: a box and its partner, keyed by the smaller id
    let mut groups: Vec<(bool, usize, Vec<BoxId>)> = Vec::new();
    for b in 0..n {
        match partner[b] {
            Some(p) if p < b => continue,
            Some(p) => groups.push((true, uses[b] + uses[p], vec![b, p])),
            None if uses[b] > 0 || loop_carried[b] => {
                groups.push((loop_carried[b], uses[b], vec![b]))
            }
            None => {}
        }
    }
    groups.sort_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)));
    let mut regs = vec![None; n];
    for ((_, _, g), r) in groups.iter().zip(ALLOCATABLE) {
        for b in g {
            regs[*b] = Some(*r);
        }
    }
    regs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loop_carried_boxes_share_registers_with_their_label_arguments() {
        let t = rpy_jit::text::parse(
            "[i0, i1]\nlabel(i0, i1)\ni2 = int_lt(i0, 100)\nguard_true(i2) [i0, i1]\n\
             i3 = int_add(i1, i0)\ni4 = int_add(i0, 1)\njump(i4, i3)\n",
        )
        .unwrap();
        let regs = assign(&t);
        let id = |name: &str| t.boxes.iter().position(|b| b.name == name).unwrap();
        // i1 is last used by i3's definition: they share
        assert_eq!(regs[id("i1")], regs[id("i3")]);
        assert!(regs[id("i1")].is_some());
        // i0 is used by i4's definition: they share too
        assert_eq!(regs[id("i0")], regs[id("i4")]);
        assert_ne!(regs[id("i0")], regs[id("i1")]);
    }
}

//! The jumps of an assembled jitcode made short: a jump to a `goto` goes
//! straight to where that one goes, then instructions nothing reaches and
//! jumps to the next instruction are dropped. Laying out each link as its
//! moves and a jump leaves many of both (a link without moves is a lone
//! `goto`).

use super::jitcode::{Insn, Label};

/// The instructions that may run after the one at `pc`.
fn successors(code: &[Insn], pc: usize) -> Vec<usize> {
    match &code[pc] {
        Insn::Goto(t) => vec![*t as usize],
        Insn::GotoIfNot { target, .. } => vec![pc + 1, *target as usize],
        Insn::Switch { cases, default, .. } => cases
            .iter()
            .map(|(_, l)| *l as usize)
            .chain(default.map(|l| l as usize))
            .collect(),
        Insn::Catch { handlers } => std::iter::once(pc + 1)
            .chain(handlers.iter().map(|h| h.target as usize))
            .collect(),
        Insn::Return(_) | Insn::Raise { .. } => vec![],
        _ => vec![pc + 1],
    }
}

fn targets_mut(insn: &mut Insn) -> Vec<&mut Label> {
    match insn {
        Insn::Goto(t) => vec![t],
        Insn::GotoIfNot { target, .. } => vec![target],
        Insn::Switch { cases, default, .. } => cases
            .iter_mut()
            .map(|(_, l)| l)
            .chain(default.as_mut())
            .collect(),
        Insn::Catch { handlers } => handlers.iter_mut().map(|h| &mut h.target).collect(),
        _ => vec![],
    }
}

/// Where a jump to `l` ends up after following `goto`s (a cycle of them
/// stays as it is).
fn final_target(code: &[Insn], mut l: Label) -> Label {
    for _ in 0..code.len() {
        match code.get(l as usize) {
            Some(Insn::Goto(next)) if *next != l => l = *next,
            _ => break,
        }
    }
    l
}

pub fn shorten(code: Vec<Insn>) -> Vec<Insn> {
    let mut code = code;
    let snapshot = code.clone();
    for insn in code.iter_mut() {
        for t in targets_mut(insn) {
            *t = final_target(&snapshot, *t);
        }
    }
    let mut keep = vec![false; code.len()];
    let mut work = vec![0usize];
    while let Some(pc) = work.pop() {
        if pc >= code.len() || std::mem::replace(&mut keep[pc], true) {
            continue;
        }
        work.extend(successors(&code, pc));
    }
    // Drop each kept `goto` to the next kept instruction, until none is
    // left (dropping one may make another go to its next).
    loop {
        let mut changed = false;
        for pc in 0..code.len() {
            if !keep[pc] {
                continue;
            }
            if let Insn::Goto(t) = code[pc] {
                let next = (pc + 1..code.len()).find(|&i| keep[i]);
                if next == Some(t as usize) {
                    keep[pc] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    // An old index's new one: a dropped `goto` stands for the next kept
    // instruction, where it went.
    let mut new_index = vec![0 as Label; code.len() + 1];
    let mut n = 0;
    for (pc, k) in keep.iter().enumerate() {
        new_index[pc] = n;
        if *k {
            n += 1;
        }
    }
    new_index[code.len()] = n;
    let mut out = Vec::with_capacity(n as usize);
    for (pc, mut insn) in code.into_iter().enumerate() {
        if !keep[pc] {
            continue;
        }
        for t in targets_mut(&mut insn) {
            *t = new_index[*t as usize];
        }
        out.push(insn);
    }
    out
}

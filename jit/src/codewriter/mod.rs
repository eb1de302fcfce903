//! The codewriter: the low-level graphs the portal (the graph holding a
//! JitDriver's `jit_merge_point`) reaches become jitcodes ([`jitcode`]),
//! register code the blackhole interpreter runs and the tracer records
//! from. The policy ([`policy`]) decides which calls are followed into
//! their callee, which get a jitcode, and which stay calls; [`assemble`]
//! turns one graph into its jitcode.
//!
//! It lives in the `jit` crate, which depends on `passes`: it reads a
//! `Program<LowLevel>` (the output of `backendopt`, before the exception
//! transform, as the original's codewriter reads the graphs before it),
//! and what reads it (the blackhole interpreter, the meta-interpreter) is
//! the JIT's.

pub mod assemble;
pub mod immutable;
pub mod jitcode;
pub mod jumps;
pub mod merge_points;
pub mod policy;
pub mod regalloc;

use jitcode::JitCodes;
use rpy_ir::graph::{LowLevel, Program};

/// The jitcodes of every graph the program's portals reach by regular
/// calls, the portals first; none when the program has no JitDriver.
pub fn write_jitcodes(program: &Program<LowLevel>) -> JitCodes {
    let policy = policy::Policy::new(program);
    let portals: Vec<u32> = program
        .graphs
        .iter()
        .enumerate()
        .filter(|(_, g)| policy::graph_is_portal(g))
        .map(|(i, _)| i as u32)
        .collect();
    write_from(program, &policy, portals)
}

/// The jitcodes of every graph the entry point reaches, every call of a
/// graph followed (hints and loops notwithstanding), the entry point
/// standing for the portal: what checks the codewriter and the blackhole
/// interpreter on whole programs, any program, against the LLInterpreter.
pub fn write_jitcodes_of_everything(program: &Program<LowLevel>) -> JitCodes {
    let mut policy = policy::Policy::new(program);
    policy.look_inside_everything = true;
    let entry = policy.graph_index(&program.entry).into_iter().collect();
    write_from(program, &policy, entry)
}

fn write_from(
    program: &Program<LowLevel>,
    policy: &policy::Policy<'_>,
    portals: Vec<u32>,
) -> JitCodes {
    let mut done = vec![false; program.graphs.len()];
    let mut work: Vec<u32> = portals.iter().rev().copied().collect();
    let mut codes = Vec::new();
    while let Some(g) = work.pop() {
        if std::mem::replace(&mut done[g as usize], true) {
            continue;
        }
        let (code, callees) = assemble::assemble(program, policy, g);
        codes.push(code);
        // Depth first, in call order: a jitcode's callees follow it.
        work.extend(callees.into_iter().rev().filter(|c| !done[*c as usize]));
    }
    JitCodes {
        codes,
        portals: portals
            .iter()
            .map(|p| program.graphs[*p as usize].name.clone())
            .collect(),
        immutable: immutable::ImmutableFields::of_program(program),
    }
}

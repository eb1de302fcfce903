//! The JIT's policy: which calls the tracer follows into the callee and
//! which it leaves as calls (the original's `JitPolicy` and
//! `CallControl`), and what each call may read and write (its
//! `EffectInfo`, from the original's read-write analysis).

use super::jitcode::{Bank, CallKind, Effects, ResidualReason};
use rpy_ir::graph::{Arg, Constant, FunctionGraph, LowLevel, Program};
use rpy_ir::lltype::{FuncSig, LowLevelType};
use rpy_ir::opcode::Opcode;
use std::collections::{HashMap, HashSet};

/// What the policy knows of a program's graphs.
pub struct Policy<'p> {
    program: &'p Program<LowLevel>,
    index: HashMap<&'p str, u32>,
    /// Each graph's own effects and then, after `close`, its callees' too.
    effects: Vec<Effects>,
    /// The graphs that hold a `jit_merge_point` (the portals), and those
    /// that may call one (a residual call to them may force).
    reaches_portal: Vec<bool>,
    /// The graphs whose address is taken, by shape: what a call through
    /// a function pointer of that shape may reach.
    address_taken: HashMap<Shape, Vec<u32>>,
    /// Every call of a graph is traced into, whatever its hints (for
    /// checking the codewriter on every graph of a program).
    pub look_inside_everything: bool,
}

/// A function's parameter and result banks (`None` for Void). Pointers
/// are not told apart by the struct they point to: a method slot is typed
/// by the first implementation, whose receiver is the base class, and an
/// override takes its own class.
type Shape = (Vec<Option<Bank>>, Option<Bank>);

fn shape(sig: &FuncSig) -> Shape {
    (
        sig.params.iter().map(Bank::of).collect(),
        Bank::of(&sig.result),
    )
}

/// Does the graph hold a `jit_merge_point`?
fn is_portal(g: &FunctionGraph<LowLevel>) -> bool {
    g.blocks
        .iter()
        .flat_map(|b| &b.operations)
        .any(|op| op.is_jit_merge_point())
}

/// Does the graph have a cycle of blocks (a loop)?
fn has_loop(g: &FunctionGraph<LowLevel>) -> bool {
    // Depth-first search for a back edge, iteratively.
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnStack,
        Done,
    }
    let mut mark = vec![Mark::New; g.blocks.len()];
    let mut stack = vec![(g.startblock.0 as usize, 0usize)];
    mark[g.startblock.0 as usize] = Mark::OnStack;
    while let Some((b, next)) = stack.last_mut() {
        let block = &g.blocks[*b];
        if let Some(link) = block.exits.get(*next) {
            *next += 1;
            let t = link.target.0 as usize;
            match mark[t] {
                Mark::OnStack => return true,
                Mark::New => {
                    mark[t] = Mark::OnStack;
                    stack.push((t, 0));
                }
                Mark::Done => {}
            }
        } else {
            mark[*b] = Mark::Done;
            stack.pop();
        }
    }
    false
}

/// The struct a pointer argument points to.
pub(crate) fn pointee(
    g: &FunctionGraph<LowLevel>,
    a: &Arg,
    program: &Program<LowLevel>,
) -> Option<String> {
    match a {
        Arg::Var(v) => match g.info(*v) {
            LowLevelType::Ptr(t) => Some(t.clone()),
            _ => None,
        },
        Arg::Const(Constant::Prebuilt(i)) => match program.prebuilt.get(*i as usize)? {
            rpy_ir::graph::PrebuiltObject::Struct { ty, .. }
            | rpy_ir::graph::PrebuiltObject::Array { ty, .. } => Some(ty.clone()),
            _ => None,
        },
        Arg::Const(Constant::Str(_)) => Some("rpy_string".into()),
        _ => None,
    }
}

pub(crate) fn name_of(a: Option<&Arg>) -> Option<&str> {
    match a {
        Some(Arg::Const(Constant::Name(n))) => Some(n),
        _ => None,
    }
}

impl<'p> Policy<'p> {
    pub fn new(program: &'p Program<LowLevel>) -> Policy<'p> {
        let mut index = HashMap::new();
        for (i, g) in program.graphs.iter().enumerate() {
            index.entry(g.name.as_str()).or_insert(i as u32);
        }
        let mut address_taken: HashMap<Shape, Vec<u32>> = HashMap::new();
        let mut seen = HashSet::new();
        let mut note = |name: &str, address_taken: &mut HashMap<Shape, Vec<u32>>| {
            if let Some(&i) = index.get(name) {
                if seen.insert(i) {
                    address_taken
                        .entry(shape(&program.graphs[i as usize].func_sig()))
                        .or_default()
                        .push(i);
                }
            }
        };
        let funcs_in = |args: &[Arg]| -> Vec<String> {
            args.iter()
                .filter_map(|a| match a {
                    Arg::Const(Constant::Func(f)) => Some(f.clone()),
                    _ => None,
                })
                .collect()
        };
        for g in &program.graphs {
            for b in &g.blocks {
                for op in &b.operations {
                    // The callee of a direct call is not address-taken.
                    let args = if op.opname == Opcode::DirectCall {
                        &op.args[1..]
                    } else {
                        &op.args[..]
                    };
                    for f in funcs_in(args) {
                        note(&f, &mut address_taken);
                    }
                }
                for l in &b.exits {
                    for f in funcs_in(&l.args) {
                        note(&f, &mut address_taken);
                    }
                }
            }
        }
        for obj in &program.prebuilt {
            if let rpy_ir::graph::PrebuiltObject::Struct { fields, .. } = obj {
                for (_, c) in fields {
                    if let Constant::Func(f) = c {
                        note(f, &mut address_taken);
                    }
                }
            }
        }
        let mut policy = Policy {
            program,
            index,
            effects: Vec::new(),
            reaches_portal: program.graphs.iter().map(is_portal).collect(),
            address_taken,
            look_inside_everything: false,
        };
        policy.effects = program
            .graphs
            .iter()
            .map(|g| policy.own_effects(g))
            .collect();
        policy.close();
        policy
    }

    pub fn graph_index(&self, name: &str) -> Option<u32> {
        self.index.get(name).copied()
    }

    /// The graphs a call through a pointer of signature `sig` may reach.
    pub fn pointer_targets(&self, sig: &FuncSig) -> &[u32] {
        self.address_taken
            .get(&shape(sig))
            .map_or(&[], |v| v.as_slice())
    }

    /// How a direct call of graph `callee` is made.
    pub fn call_kind(&self, callee: u32) -> CallKind {
        let g = &self.program.graphs[callee as usize];
        if self.look_inside_everything {
            return CallKind::Regular;
        }
        let hint = |h: &str| g.hints.iter().any(|x| x == h);
        let residual = if hint("dont_look_inside") {
            Some(ResidualReason::DontLookInside)
        } else if hint("elidable") {
            return CallKind::Pure;
        } else if !hint("look_inside") && !hint("unroll_safe") && !is_portal(g) && has_loop(g) {
            Some(ResidualReason::HasLoop)
        } else {
            None
        };
        match residual {
            Some(_) if self.reaches_portal[callee as usize] => CallKind::MayForce,
            Some(r) => CallKind::Residual(r),
            None => CallKind::Regular,
        }
    }

    /// How a call through a pointer of signature `sig` is made: traced into
    /// when every graph it may reach is.
    pub fn pointer_call_kind(&self, sig: &FuncSig) -> CallKind {
        let targets = self.pointer_targets(sig);
        if !targets.is_empty()
            && targets
                .iter()
                .all(|t| self.call_kind(*t) == CallKind::Regular)
        {
            CallKind::Regular
        } else if targets.iter().any(|t| self.reaches_portal[*t as usize]) {
            CallKind::MayForce
        } else {
            CallKind::Residual(ResidualReason::Indirect)
        }
    }

    /// What a call of graph `callee` may do, its callees' effects included.
    pub fn effects_of(&self, callee: u32) -> &Effects {
        &self.effects[callee as usize]
    }

    /// What a call through a pointer of signature `sig` may do.
    pub fn pointer_effects(&self, sig: &FuncSig) -> Effects {
        let targets = self.pointer_targets(sig);
        let mut e = Effects {
            anything: targets.is_empty(),
            can_raise: true,
            ..Effects::default()
        };
        for t in targets {
            e.merge(&self.effects[*t as usize]);
        }
        e
    }

    /// What the graph's own operations read and write (not its callees').
    fn own_effects(&self, g: &FunctionGraph<LowLevel>) -> Effects {
        let mut e = Effects::default();
        for b in &g.blocks {
            if b.exits.iter().any(|l| l.target == g.exceptblock) {
                e.can_raise = true;
            }
            for op in &b.operations {
                let a = &op.args;
                let field = || -> Option<String> {
                    Some(format!(
                        "{}.{}",
                        pointee(g, a.first()?, self.program)?,
                        name_of(a.get(1))?
                    ))
                };
                let array = || pointee(g, a.first()?, self.program);
                match op.opname {
                    Opcode::Getfield => e.reads_fields.extend(field()),
                    Opcode::Setfield => e.writes_fields.extend(field()),
                    Opcode::Getarrayitem | Opcode::Getarraysize => e.reads_arrays.extend(array()),
                    Opcode::Setarrayitem => e.writes_arrays.extend(array()),
                    _ => {}
                }
            }
        }
        e
    }

    /// Adds to each graph's effects those of every graph it may call, and
    /// marks the graphs that may call a portal (a fixpoint over the call
    /// graph).
    fn close(&mut self) {
        let callees: Vec<Vec<Option<u32>>> = self
            .program
            .graphs
            .iter()
            .map(|g| self.callees(g))
            .collect();
        loop {
            let mut changed = false;
            for (i, calls) in callees.iter().enumerate() {
                let mut merged = self.effects[i].clone();
                let mut portal = self.reaches_portal[i];
                for c in calls {
                    match c {
                        Some(c) => {
                            merged.merge(&self.effects[*c as usize]);
                            portal |= self.reaches_portal[*c as usize];
                        }
                        None => merged.anything = true,
                    }
                }
                if merged != self.effects[i] || portal != self.reaches_portal[i] {
                    self.effects[i] = merged;
                    self.reaches_portal[i] = portal;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// The graphs `g` may call; `None` for a pointer call whose targets are
    /// not known. Runtime functions touch no GC object of the program but
    /// the strings they make, so they are no callee here.
    fn callees(&self, g: &FunctionGraph<LowLevel>) -> Vec<Option<u32>> {
        let mut out = Vec::new();
        for op in g.blocks.iter().flat_map(|b| &b.operations) {
            match op.opname {
                Opcode::DirectCall => {
                    if let Some(Arg::Const(Constant::Func(f))) = op.args.first() {
                        out.extend(self.graph_index(f).map(Some));
                    }
                }
                Opcode::IndirectCall => {
                    let sig = op.args.first().and_then(|a| a.as_var()).map(|v| g.info(v));
                    match sig {
                        Some(LowLevelType::FuncPtr(sig))
                            if !self.pointer_targets(sig).is_empty() =>
                        {
                            out.extend(self.pointer_targets(sig).iter().map(|t| Some(*t)))
                        }
                        _ => out.push(None),
                    }
                }
                _ => {}
            }
        }
        out
    }
}

pub(crate) fn graph_is_portal(g: &FunctionGraph<LowLevel>) -> bool {
    is_portal(g)
}

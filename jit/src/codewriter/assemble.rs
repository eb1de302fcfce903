//! One low-level graph becomes one jitcode: each variable gets a register
//! of its bank, the blocks are laid out in reverse postorder, and each
//! link becomes the moves of its arguments into the target's registers and
//! a jump (left out when the target comes next), as the original's
//! `flatten.py` and `assembler.py` do in two steps.

use super::jitcode::{
    Bank, CallDescr, CallKind, Callee, Handler, Insn, JitCode, Label, Operand, Origin, Reg,
    ResidualReason,
};
use super::policy::Policy;
use rpy_ir::graph::{Arg, Block, BlockId, Constant, FunctionGraph, Link, LowLevel, Program, Var};
use rpy_ir::lltype::LowLevelType;
use rpy_ir::opcode::Opcode;
use std::collections::HashMap;

/// A jump whose target block is not placed yet.
enum Target {
    Block(u32),
    Insn(Label),
}

struct Assembler<'a> {
    program: &'a Program<LowLevel>,
    policy: &'a Policy<'a>,
    graph: &'a FunctionGraph<LowLevel>,
    graph_index: u32,
    regs: Vec<Option<Reg>>,
    counts: [u16; 3],
    /// One extra register per bank, for the moves of a link that form a
    /// cycle (`a, b = b, a`); allocated when first needed.
    scratch: [Option<Reg>; 3],
    constants: Vec<(Constant, LowLevelType)>,
    code: Vec<Insn>,
    /// Jumps to patch once every block is placed: (instruction, block).
    fixups: Vec<(usize, u32)>,
    block_start: HashMap<u32, Label>,
    /// The graphs this one calls regularly: they need jitcodes too.
    pub regular_callees: Vec<u32>,
}

/// The jitcode of graph `graph_index`, and the graphs it calls regularly.
pub fn assemble(
    program: &Program<LowLevel>,
    policy: &Policy<'_>,
    graph_index: u32,
) -> (JitCode, Vec<u32>) {
    let graph = &program.graphs[graph_index as usize];
    let registers = super::regalloc::allocate(graph);
    let mut a = Assembler {
        program,
        policy,
        graph,
        graph_index,
        regs: registers.of_var,
        counts: registers.counts,
        scratch: [None; 3],
        constants: Vec::new(),
        code: Vec::new(),
        fixups: Vec::new(),
        block_start: HashMap::new(),
        regular_callees: Vec::new(),
    };
    let order = reverse_postorder(graph);
    for (k, &b) in order.iter().enumerate() {
        a.block_start.insert(b, a.code.len() as Label);
        let next = order.get(k + 1).copied();
        a.block(b, next);
    }
    for (insn, block) in std::mem::take(&mut a.fixups) {
        let label = a.block_start[&block];
        a.patch(insn, label);
    }
    let params = graph
        .params()
        .iter()
        .map(|v| a.regs[v.0 as usize])
        .collect();
    let callees = std::mem::take(&mut a.regular_callees);
    (
        JitCode {
            name: graph.name.clone(),
            graph: graph_index,
            params,
            registers: a.counts,
            constants: a.constants,
            code: super::jumps::shorten(a.code),
        },
        callees,
    )
}

/// The graph's blocks from its start, in reverse postorder (a block before
/// the blocks it leads to, but for loops), iteratively.
fn reverse_postorder(g: &FunctionGraph<LowLevel>) -> Vec<u32> {
    let mut seen = vec![false; g.blocks.len()];
    let mut post = Vec::new();
    let mut stack = vec![(g.startblock.0, 0usize)];
    seen[g.startblock.0 as usize] = true;
    while let Some((b, next)) = stack.last_mut() {
        let exits = &g.blocks[*b as usize].exits;
        if let Some(l) = exits.get(*next) {
            *next += 1;
            let t = l.target.0;
            if !seen[t as usize] {
                seen[t as usize] = true;
                stack.push((t, 0));
            }
        } else {
            post.push(*b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

impl Assembler<'_> {
    fn new_reg(&mut self, bank: Bank) -> Reg {
        let n = &mut self.counts[bank as usize];
        let r = Reg { bank, index: *n };
        *n += 1;
        r
    }

    fn var_type(&self, v: Var) -> &LowLevelType {
        self.graph.info(v)
    }

    /// A constant operand; `hint` is the type expected where it is used.
    fn constant(&mut self, c: &Constant, hint: LowLevelType) -> Operand {
        let entry = (c.clone(), hint);
        let i = match self.constants.iter().position(|e| *e == entry) {
            Some(i) => i,
            None => {
                self.constants.push(entry);
                self.constants.len() - 1
            }
        };
        Operand::Const(i as u16)
    }

    /// The operand of `a`, `None` when it is a Void value (which no
    /// instruction passes).
    fn operand(&mut self, a: &Arg, hint: &LowLevelType) -> Option<Operand> {
        match a {
            Arg::Var(v) => self.regs[v.0 as usize].map(Operand::Reg),
            Arg::Const(c) if *hint == LowLevelType::Void => {
                let _ = c;
                None
            }
            Arg::Const(c) => Some(self.constant(c, hint.clone())),
        }
    }

    /// The type a constant argument stands for: the other operand's for a
    /// comparison, the parameter's for a call.
    fn arg_hint(&self, args: &[Arg], i: usize) -> LowLevelType {
        match &args[i] {
            Arg::Var(v) => self.var_type(*v).clone(),
            Arg::Const(Constant::Int(_)) => args
                .iter()
                .find_map(|x| x.as_var())
                .map(|v| self.var_type(v).clone())
                .filter(|t| {
                    matches!(
                        t,
                        LowLevelType::Float | LowLevelType::Bool | LowLevelType::Char
                    )
                })
                .unwrap_or(LowLevelType::Signed),
            Arg::Const(Constant::Float(_)) => LowLevelType::Float,
            Arg::Const(Constant::Bool(_)) => LowLevelType::Bool,
            Arg::Const(Constant::Char(_)) => LowLevelType::Char,
            Arg::Const(Constant::Str(s)) if s.chars().count() == 1 && self.other_is_char(args) => {
                LowLevelType::Char
            }
            Arg::Const(Constant::Str(_)) => LowLevelType::Ptr("rpy_string".into()),
            Arg::Const(Constant::UInt(_)) => LowLevelType::Unsigned,
            Arg::Const(Constant::Prebuilt(i)) => match self.program.prebuilt.get(*i as usize) {
                Some(
                    rpy_ir::graph::PrebuiltObject::Struct { ty, .. }
                    | rpy_ir::graph::PrebuiltObject::Array { ty, .. },
                ) => LowLevelType::Ptr(ty.clone()),
                _ => LowLevelType::Ptr("object".into()),
            },
            Arg::Const(Constant::None) => args
                .iter()
                .find_map(|x| x.as_var())
                .map(|v| self.var_type(v).clone())
                .unwrap_or(LowLevelType::Ptr("object".into())),
            Arg::Const(Constant::Func(f)) => self
                .policy
                .graph_index(f)
                .map(|g| {
                    LowLevelType::FuncPtr(Box::new(self.program.graphs[g as usize].func_sig()))
                })
                .unwrap_or(LowLevelType::Signed),
            Arg::Const(_) => LowLevelType::Void,
        }
    }

    /// The type of operand `i` of operation `opname`: what the operation's
    /// signature says (a cast's source, a comparison's operands, a stored
    /// field's or item's type), else what [`Self::arg_hint`] guesses. An
    /// executable's JIT reads the constant as a word of this type.
    fn op_arg_hint(&self, opname: Opcode, args: &[Arg], i: usize) -> LowLevelType {
        use rpy_ir::llops::Signature as S;
        if let Arg::Var(v) = &args[i] {
            return self.var_type(*v).clone();
        }
        let stored = match (opname, i) {
            (Opcode::Setfield, 2) => super::policy::pointee(self.graph, &args[0], self.program)
                .zip(super::policy::name_of(args.get(1)))
                .and_then(|(s, f)| self.program.types.get(&s)?.field_type(f).cloned()),
            (Opcode::Setarrayitem, 2) => super::policy::pointee(self.graph, &args[0], self.program)
                .and_then(|s| self.program.types.get(&s)?.item_type().cloned()),
            _ => None,
        };
        if let Some(t) = stored {
            return t;
        }
        let by_signature = rpy_ir::llops::info(opname).and_then(|op| match &op.sig {
            S::Cast(from, _) => Some(from.clone()),
            S::CharCompare => Some(LowLevelType::Char),
            S::IntBinary | S::IntUnary | S::IntCompare => Some(LowLevelType::Signed),
            S::UintShift if i == 1 => Some(LowLevelType::Signed),
            S::UintBinary | S::UintUnary | S::UintCompare | S::UintShift => {
                Some(LowLevelType::Unsigned)
            }
            S::FloatBinary | S::FloatUnary | S::FloatCompare => Some(LowLevelType::Float),
            S::Special => None,
        });
        by_signature.unwrap_or_else(|| self.arg_hint(args, i))
    }

    fn other_is_char(&self, args: &[Arg]) -> bool {
        args.iter()
            .filter_map(|x| x.as_var())
            .any(|v| *self.var_type(v) == LowLevelType::Char)
    }

    fn block(&mut self, b: u32, next: Option<u32>) {
        let g = self.graph;
        let block: &Block = &g.blocks[b as usize];
        if BlockId(b) == g.returnblock {
            let v = block.inputargs[0];
            self.code
                .push(Insn::Return(self.regs[v.0 as usize].map(Operand::Reg)));
            return;
        }
        if BlockId(b) == g.exceptblock {
            let ops: Vec<Operand> = block
                .inputargs
                .iter()
                .map(|v| {
                    self.regs[v.0 as usize]
                        .map(Operand::Reg)
                        .expect("an exception is two pointers")
                })
                .collect();
            self.code.push(Insn::Raise {
                etype: ops[0],
                evalue: ops[1],
            });
            return;
        }
        for (i, op) in block.operations.iter().enumerate() {
            self.operation(b, i as u32, op);
        }
        if block.catches_exceptions() {
            // The call is the block's last operation; its normal exit is
            // the first link, each handler another.
            let catch_at = self.code.len();
            self.code.push(Insn::Catch {
                handlers: Vec::new(),
            });
            let (normal, handlers) = block.exits.split_first().expect("a normal exit");
            // Not falling through to `next`: the handlers' code follows.
            self.link(normal, None);
            let mut made = Vec::new();
            for l in handlers {
                let range = match &l.exitcase {
                    Some(Constant::Prebuilt(i)) => self
                        .program
                        .prebuilt
                        .get(*i as usize)
                        .and_then(rpy_ir::graph::PrebuiltObject::subclass_range)
                        .unwrap_or((0, 0)),
                    _ => (0, 0),
                };
                let target = self.code.len() as Label;
                made.push(Handler {
                    range,
                    etype: l.last_exception.and_then(|v| self.regs[v.0 as usize]),
                    evalue: l.last_exc_value.and_then(|v| self.regs[v.0 as usize]),
                    target,
                });
                self.link(l, None);
            }
            self.code[catch_at] = Insn::Catch { handlers: made };
            return;
        }
        match &block.exitswitch {
            None => self.link(&block.exits[0], next),
            Some(sw) => {
                let hint = self.arg_hint(std::slice::from_ref(sw), 0);
                let on = self.operand(sw, &hint).expect("a switch on a value");
                let is_bool = block
                    .exits
                    .iter()
                    .all(|l| matches!(l.exitcase, Some(Constant::Bool(_))));
                if is_bool && block.exits.len() == 2 {
                    let true_link = block
                        .exits
                        .iter()
                        .find(|l| l.exitcase == Some(Constant::Bool(true)))
                        .expect("a True exit");
                    let false_link = block
                        .exits
                        .iter()
                        .find(|l| l.exitcase == Some(Constant::Bool(false)))
                        .expect("a False exit");
                    let at = self.code.len();
                    self.code.push(Insn::GotoIfNot {
                        cond: on,
                        target: 0,
                    });
                    self.link(true_link, None);
                    let false_at = self.code.len() as Label;
                    self.patch(at, false_at);
                    self.link(false_link, next);
                } else {
                    let at = self.code.len();
                    self.code.push(Insn::Switch {
                        on,
                        cases: Vec::new(),
                        default: None,
                    });
                    let mut cases = Vec::new();
                    let mut default = None;
                    for l in &block.exits {
                        let here = self.code.len() as Label;
                        match &l.exitcase {
                            Some(Constant::Name(n)) if n == "default" => default = Some(here),
                            Some(Constant::Bool(b)) => cases.push((*b as i64, here)),
                            Some(Constant::Int(n)) => cases.push((*n, here)),
                            Some(Constant::Char(c)) => cases.push((*c as i64, here)),
                            // A char case: one byte, held as the char of
                            // its code (see `str_bytes`).
                            Some(Constant::Str(s)) => {
                                if let Some(b) = rpy_ir::graph::single_byte(s) {
                                    cases.push((b as i64, here))
                                }
                            }
                            _ => {}
                        }
                        self.link(l, None);
                    }
                    self.code[at] = Insn::Switch { on, cases, default };
                }
            }
        }
    }

    /// Sets the target of the jump at `at` to `label`.
    fn patch(&mut self, at: usize, label: Label) {
        match &mut self.code[at] {
            Insn::Goto(l) => *l = label,
            Insn::GotoIfNot { target, .. } => *target = label,
            other => unreachable!("no jump to patch in {other:?}"),
        }
    }

    fn jump(&mut self, target: Target) {
        match target {
            Target::Insn(l) => self.code.push(Insn::Goto(l)),
            Target::Block(b) => {
                self.fixups.push((self.code.len(), b));
                self.code.push(Insn::Goto(0));
            }
        }
    }

    /// The link's arguments moved into its target's registers, then a jump
    /// there unless the target is `next`, the block placed after this one.
    fn link(&mut self, l: &Link, next: Option<u32>) {
        let target_block = &self.graph.blocks[l.target.0 as usize];
        let mut moves = Vec::new();
        for (a, v) in l.args.iter().zip(&target_block.inputargs) {
            let Some(to) = self.regs[v.0 as usize] else {
                continue;
            };
            let hint = self.var_type(*v).clone();
            let Some(from) = self.operand(a, &hint) else {
                continue;
            };
            if from != Operand::Reg(to) {
                moves.push((from, to));
            }
        }
        self.parallel_moves(moves);
        let t = l.target.0;
        if Some(t) == next && !self.block_start.contains_key(&t) {
            return;
        }
        match self.block_start.get(&t) {
            Some(&label) => self.jump(Target::Insn(label)),
            None => self.jump(Target::Block(t)),
        }
    }

    /// Emits `moves` (all reading before any writes) one at a time: a move
    /// whose destination no other pending move reads goes first; a cycle
    /// is broken through the bank's scratch register.
    fn parallel_moves(&mut self, mut moves: Vec<(Operand, Reg)>) {
        while !moves.is_empty() {
            let ready = moves
                .iter()
                .position(|(_, to)| !moves.iter().any(|(from, _)| *from == Operand::Reg(*to)));
            match ready {
                Some(i) => {
                    let (from, to) = moves.remove(i);
                    self.code.push(Insn::Move { from, to });
                }
                None => {
                    // Every destination is read by another move: save one.
                    let (_, to) = moves[0];
                    let bank = to.bank;
                    let scratch = match self.scratch[bank as usize] {
                        Some(r) => r,
                        None => {
                            let r = self.new_reg(bank);
                            self.scratch[bank as usize] = Some(r);
                            r
                        }
                    };
                    self.code.push(Insn::Move {
                        from: Operand::Reg(to),
                        to: scratch,
                    });
                    for (from, _) in moves.iter_mut() {
                        if *from == Operand::Reg(to) {
                            *from = Operand::Reg(scratch);
                        }
                    }
                }
            }
        }
    }

    fn operation(&mut self, block: u32, index: u32, op: &rpy_ir::graph::SpaceOperation) {
        let origin = Origin {
            graph: self.graph_index,
            block,
            op: index,
        };
        let result = self.regs[op.result.0 as usize];
        match op.opname {
            Opcode::JitMarker => {
                let kind = match op.args.first() {
                    Some(Arg::Const(Constant::Name(k))) => k.clone(),
                    _ => String::new(),
                };
                let driver = match op.args.get(1) {
                    Some(Arg::Const(Constant::Name(d))) => d.clone(),
                    _ => String::new(),
                };
                let ngreens = match op.args.get(2) {
                    Some(Arg::Const(Constant::Int(n))) => *n as usize,
                    _ => 0,
                };
                let live: Vec<Operand> = (3..op.args.len())
                    .filter_map(|i| {
                        let hint = self.arg_hint(&op.args, i);
                        self.operand(&op.args[i], &hint)
                    })
                    .collect();
                let split = ngreens.min(live.len());
                let greens = live[..split].to_vec();
                let reds = live[split..].to_vec();
                self.code.push(if kind == "jit_merge_point" {
                    Insn::JitMergePoint {
                        driver,
                        greens,
                        reds,
                    }
                } else {
                    Insn::CanEnterJit {
                        driver,
                        greens,
                        reds,
                    }
                });
            }
            Opcode::DirectCall => self.direct_call(op, origin, result),
            // What runs from the jitcodes (traces, the blackhole) is jitted.
            Opcode::JitWeAreJitted => {
                let yes = Arg::Const(Constant::Bool(true));
                if let (Some(from), Some(to)) = (self.operand(&yes, &LowLevelType::Bool), result) {
                    self.code.push(Insn::Move { from, to });
                }
            }
            // A copy is a move, or nothing when both share a register.
            Opcode::SameAs => {
                // The constant is of the result's type (`same_as(" ")`
                // makes a Char).
                let hint = self.var_type(op.result).clone();
                if let (Some(from), Some(to)) = (self.operand(&op.args[0], &hint), result) {
                    if from != Operand::Reg(to) {
                        self.code.push(Insn::Move { from, to });
                    }
                }
            }
            Opcode::IndirectCall => {
                let sig = match op
                    .args
                    .first()
                    .and_then(|a| a.as_var())
                    .map(|v| self.var_type(v))
                {
                    Some(LowLevelType::FuncPtr(sig)) => (**sig).clone(),
                    _ => unreachable!("indirect_call through a function pointer"),
                };
                let pointer = self
                    .operand(&op.args[0], &LowLevelType::Signed)
                    .expect("a function pointer register");
                let args = self.call_args(&op.args[1..], &sig.params);
                let kind = self.policy.pointer_call_kind(&sig);
                let targets: Vec<u32> = self.policy.pointer_targets(&sig).to_vec();
                if kind == CallKind::Regular {
                    self.regular_callees.extend(&targets);
                }
                self.code.push(Insn::Call {
                    callee: Callee::Pointer {
                        pointer,
                        targets: targets
                            .iter()
                            .map(|t| self.program.graphs[*t as usize].name.clone())
                            .collect(),
                    },
                    args,
                    result,
                    descr: CallDescr {
                        kind,
                        effects: self.policy.pointer_effects(&sig),
                    },
                });
            }
            _ => {
                let mut args = Vec::new();
                let mut names = Vec::new();
                for i in 0..op.args.len() {
                    match &op.args[i] {
                        Arg::Const(Constant::Name(n)) => names.push(n.clone()),
                        a => {
                            let hint = self.op_arg_hint(op.opname, &op.args, i);
                            if let Some(o) = self.operand(a, &hint) {
                                args.push(o);
                            }
                        }
                    }
                }
                // A field is named by its struct, as a field descr is.
                if matches!(op.opname, Opcode::Getfield | Opcode::Setfield) {
                    if let (Some(s), [field]) = (
                        super::policy::pointee(self.graph, &op.args[0], self.program),
                        names.as_mut_slice(),
                    ) {
                        *field = format!("{s}.{field}");
                    }
                }
                let descr = (!names.is_empty()).then(|| names.join(", "));
                self.code.push(Insn::Op {
                    opname: op.opname,
                    args,
                    descr,
                    result,
                    origin,
                });
            }
        }
    }

    /// A call's arguments, one per parameter: a Void one is the constant
    /// `None` of type Void, so that arguments keep their positions (a
    /// residual call passes them all).
    fn call_args(&mut self, args: &[Arg], params: &[LowLevelType]) -> Vec<Operand> {
        args.iter()
            .zip(params)
            .map(|(a, t)| match self.operand(a, t) {
                Some(o) => o,
                None => self.constant(&Constant::None, LowLevelType::Void),
            })
            .collect()
    }

    fn direct_call(
        &mut self,
        op: &rpy_ir::graph::SpaceOperation,
        origin: Origin,
        result: Option<Reg>,
    ) {
        match op.args.first() {
            Some(Arg::Const(Constant::Func(f))) => {
                let callee = self
                    .policy
                    .graph_index(f)
                    .expect("a call of a graph of the program");
                let sig = self.program.graphs[callee as usize].func_sig();
                let args = self.call_args(&op.args[1..], &sig.params);
                let kind = self.policy.call_kind(callee);
                if kind == CallKind::Regular {
                    self.regular_callees.push(callee);
                }
                self.code.push(Insn::Call {
                    callee: Callee::Graph {
                        graph: callee,
                        name: f.clone(),
                    },
                    args,
                    result,
                    descr: CallDescr {
                        kind,
                        effects: self.policy.effects_of(callee).clone(),
                    },
                });
            }
            Some(Arg::Const(Constant::Builtin(name))) => {
                let params: Vec<LowLevelType> = match rpy_ir::llops::runtime_func(name) {
                    Some(f) => f.args.iter().map(|t| t.lltype()).collect(),
                    None => (1..op.args.len())
                        .map(|i| self.arg_hint(&op.args, i))
                        .collect(),
                };
                let args = self.call_args(&op.args[1..], &params);
                self.code.push(Insn::Call {
                    callee: Callee::Runtime {
                        name: name.clone(),
                        origin,
                    },
                    args,
                    result,
                    descr: CallDescr {
                        kind: CallKind::Residual(ResidualReason::RuntimeLeaf),
                        effects: Default::default(),
                    },
                });
            }
            other => unreachable!("direct_call of {other:?}"),
        }
    }
}

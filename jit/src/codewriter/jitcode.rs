//! Jitcodes: what the codewriter makes of each low-level graph the portal
//! reaches, the code the blackhole interpreter runs and the tracer will
//! record from. A jitcode is a flat list of instructions over three banks
//! of registers (int: words, bools, chars and function pointers; ref: GC
//! pointers; float), as the original's; control flow is jumps to
//! instruction indices, and a graph's blocks and links are gone.
//!
//! Unlike the original, instructions are a Rust enum, not bytes: rpy has no
//! translated JIT yet to embed them in, and the enum is what the blackhole
//! and the tracer match on. An instruction names its registers by bank and
//! number (`%i3`, `%r0`, `%f1`) and its constants by index into the
//! jitcode's constant table (`$2`), printed with their value.

use rpy_ir::graph::Constant;
use rpy_ir::lltype::LowLevelType;
use rpy_ir::opcode::Opcode;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt::{self, Write};

/// A register bank: every low-level value of a kind lives in one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Bank {
    Int,
    Ref,
    Float,
}

impl Bank {
    /// The bank of a low-level type; `None` for `Void`, which has no value.
    pub fn of(t: &LowLevelType) -> Option<Bank> {
        match t {
            LowLevelType::Void => None,
            LowLevelType::Signed
            | LowLevelType::Unsigned
            | LowLevelType::Bool
            | LowLevelType::Char
            | LowLevelType::FuncPtr(_) => Some(Bank::Int),
            LowLevelType::Ptr(_) => Some(Bank::Ref),
            LowLevelType::Float => Some(Bank::Float),
        }
    }

    fn letter(self) -> char {
        match self {
            Bank::Int => 'i',
            Bank::Ref => 'r',
            Bank::Float => 'f',
        }
    }
}

/// Whether operation `opname` gives its argument's word unchanged (a
/// copy, or a cast between types held in the same bank as the same word):
/// the tracer records no operation for it and the executables' blackhole
/// copies the word.
pub fn keeps_the_word(opname: Opcode) -> bool {
    matches!(
        opname,
        Opcode::SameAs
            | Opcode::CastPointer
            | Opcode::CastCharToInt
            | Opcode::CastBoolToInt
            | Opcode::CastIntToUint
            | Opcode::CastUintToInt
            | Opcode::CastBoolToUint
    )
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Reg {
    pub bank: Bank,
    pub index: u16,
}

/// An instruction's input: a register, or constant `i` of the jitcode's
/// table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Operand {
    Reg(Reg),
    Const(u16),
}

/// An instruction index: where a jump goes.
pub type Label = u32;

/// Where a low-level operation came from: the blackhole binds the
/// operation to the machine that runs it (the LLInterpreter's), by graph,
/// block and operation index of the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    pub graph: u32,
    pub block: u32,
    pub op: u32,
}

/// What a call does, as the policy decided.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CallKind {
    /// Traced into: the callee has a jitcode (`inline_call` in the original).
    Regular,
    /// Called as it is, not traced into; the reason says why.
    Residual(ResidualReason),
    /// An `elidable` function: its result depends only on its arguments,
    /// so a trace records `call_pure` (folded when the arguments are
    /// constants).
    Pure,
    /// A residual call that may reach the portal, which can force what the
    /// trace kept virtual (`call_may_force` with `guard_not_forced`).
    MayForce,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResidualReason {
    /// `@dont_look_inside`.
    DontLookInside,
    /// A function of the C runtime (a leaf: formatting, printing, I/O).
    RuntimeLeaf,
    /// The callee has a loop and is not `@unroll_safe`: tracing into it
    /// would unroll the loop into the trace.
    HasLoop,
    /// A call through a function pointer that may reach a function not
    /// traced into.
    Indirect,
}

/// What a call may do to the heap, so that the trace optimizer forgets only
/// that across it (the original's `EffectInfo`). Fields are
/// `struct.field`, arrays by their type name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Effects {
    pub reads_fields: BTreeSet<String>,
    pub writes_fields: BTreeSet<String>,
    pub reads_arrays: BTreeSet<String>,
    pub writes_arrays: BTreeSet<String>,
    /// The call may raise an exception.
    pub can_raise: bool,
    /// The call may do anything (it reaches a function pointer whose
    /// targets are not known, or a runtime function with effects not
    /// described here).
    pub anything: bool,
}

impl Effects {
    pub fn merge(&mut self, other: &Effects) {
        self.reads_fields.extend(other.reads_fields.iter().cloned());
        self.writes_fields
            .extend(other.writes_fields.iter().cloned());
        self.reads_arrays.extend(other.reads_arrays.iter().cloned());
        self.writes_arrays
            .extend(other.writes_arrays.iter().cloned());
        self.can_raise |= other.can_raise;
        self.anything |= other.anything;
    }
}

/// A call's descr: how it is made and what it may do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallDescr {
    pub kind: CallKind,
    pub effects: Effects,
}

/// What a call calls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Callee {
    /// A graph of the program, by index and name.
    Graph { graph: u32, name: String },
    /// A function of the C runtime, run as the low-level operation at
    /// `origin`.
    Runtime { name: String, origin: Origin },
    /// Through a function pointer (the operand); the pointer's possible
    /// targets by name.
    Pointer {
        pointer: Operand,
        targets: Vec<String>,
    },
}

/// An exception handler after a call: taken when the call raises a class
/// whose id is in `range`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handler {
    pub range: (i64, i64),
    /// The registers receiving the caught class and instance, when the
    /// handler's code reads them.
    pub etype: Option<Reg>,
    pub evalue: Option<Reg>,
    pub target: Label,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Insn {
    /// A low-level operation (arithmetic, fields, arrays, allocation,
    /// casts...). `descr` is what it names rather than reads (a field, a
    /// type), as the original's descrs.
    Op {
        opname: Opcode,
        args: Vec<Operand>,
        descr: Option<String>,
        result: Option<Reg>,
        origin: Origin,
    },
    /// `to = from`: a link's argument passed to its target block.
    Move {
        from: Operand,
        to: Reg,
    },
    Goto(Label),
    /// Jumps to `target` when `cond` is false; goes on when true.
    GotoIfNot {
        cond: Operand,
        target: Label,
    },
    /// On an int or char: the case's target, else `default`.
    Switch {
        on: Operand,
        cases: Vec<(i64, Label)>,
        default: Option<Label>,
    },
    Call {
        callee: Callee,
        args: Vec<Operand>,
        result: Option<Reg>,
        descr: CallDescr,
    },
    /// Follows a call whose exceptions the graph catches: when the call
    /// raised, the first handler whose range holds the class; else (and
    /// when it returned) nothing.
    Catch {
        handlers: Vec<Handler>,
    },
    Raise {
        etype: Operand,
        evalue: Operand,
    },
    Return(Option<Operand>),
    /// The JitDriver's `jit_merge_point`: the loop's greens (its key) and
    /// reds.
    JitMergePoint {
        driver: String,
        greens: Vec<Operand>,
        reds: Vec<Operand>,
    },
    /// The JitDriver's `can_enter_jit`: the end of the interpreted loop.
    CanEnterJit {
        driver: String,
        greens: Vec<Operand>,
        reds: Vec<Operand>,
    },
}

/// The jitcode of one graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JitCode {
    pub name: String,
    /// The graph's index in the program.
    pub graph: u32,
    /// The registers the arguments arrive in, in order (Void ones have
    /// none).
    pub params: Vec<Option<Reg>>,
    /// How many registers of each bank (int, ref, float) the code uses.
    pub registers: [u16; 3],
    /// (Not serialized: an executable's jitcodes get their constants as
    /// words from the C side.)
    #[serde(skip)]
    pub constants: Vec<(Constant, LowLevelType)>,
    pub code: Vec<Insn>,
}

impl JitCode {
    pub fn registers_of(&self, bank: Bank) -> u16 {
        self.registers[bank as usize]
    }
}

/// Every jitcode of a program, the portal's first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JitCodes {
    pub codes: Vec<JitCode>,
    /// The portals: graphs holding a `jit_merge_point`, by name.
    pub portals: Vec<String>,
    /// The fields whose reads from constant objects fold (an executable's
    /// tracer needs them too).
    pub immutable: super::immutable::ImmutableFields,
}

impl JitCodes {
    pub fn by_graph(&self, graph: u32) -> Option<usize> {
        self.codes.iter().position(|c| c.graph == graph)
    }

    /// The text of every jitcode, as `rpy show --stage jitcodes` prints it.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for p in &self.portals {
            let _ = writeln!(out, "portal {p}");
        }
        for c in &self.codes {
            out.push('\n');
            let _ = write!(out, "{c}");
        }
        out
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}{}", self.bank.letter(), self.index)
    }
}

fn constant_text(c: &Constant) -> String {
    match c {
        Constant::Int(n) => n.to_string(),
        Constant::UInt(n) => format!("{n}u"),
        Constant::Float(x) => format!("{x:?}"),
        Constant::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        Constant::Char(ch) => format!("{:?}", char::from(*ch)),
        Constant::Str(s) => format!("{s:?}"),
        Constant::None => "None".into(),
        Constant::Func(g) => format!("@{g}"),
        Constant::Builtin(b) => format!("${b}"),
        Constant::Name(n) => format!("#{n}"),
        Constant::Class(c) => format!("%{c}"),
        Constant::LastException => "last_exception".into(),
        Constant::Prebuilt(i) => format!("&{i}"),
    }
}

impl JitCode {
    fn operand(&self, o: &Operand) -> String {
        match o {
            Operand::Reg(r) => r.to_string(),
            Operand::Const(i) => match self.constants.get(*i as usize) {
                Some((c, _)) => format!("${}", constant_text(c)),
                None => format!("$?{i}"),
            },
        }
    }

    fn operands(&self, os: &[Operand]) -> String {
        os.iter()
            .map(|o| self.operand(o))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn call_kind_text(k: &CallKind) -> String {
    match k {
        CallKind::Regular => "regular".into(),
        CallKind::Pure => "elidable".into(),
        CallKind::MayForce => "may_force".into(),
        CallKind::Residual(r) => format!(
            "residual {}",
            match r {
                ResidualReason::DontLookInside => "dont_look_inside",
                ResidualReason::RuntimeLeaf => "runtime",
                ResidualReason::HasLoop => "loop",
                ResidualReason::Indirect => "indirect",
            }
        ),
    }
}

fn effects_text(e: &Effects) -> String {
    if e.anything {
        return "anything".into();
    }
    let mut parts = Vec::new();
    let set = |name: &str, s: &BTreeSet<String>, parts: &mut Vec<String>| {
        if !s.is_empty() {
            parts.push(format!(
                "{name} {}",
                s.iter().cloned().collect::<Vec<_>>().join(" ")
            ));
        }
    };
    set("reads", &e.reads_fields, &mut parts);
    set("writes", &e.writes_fields, &mut parts);
    set("reads[]", &e.reads_arrays, &mut parts);
    set("writes[]", &e.writes_arrays, &mut parts);
    if e.can_raise {
        parts.push("raises".into());
    }
    if parts.is_empty() {
        "no heap effects".into()
    } else {
        parts.join("; ")
    }
}

impl fmt::Display for JitCode {
    /// One instruction a line, numbered, with the register counts first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| p.map_or("void".to_string(), |r| r.to_string()))
            .collect();
        writeln!(
            f,
            "jitcode {}({}) registers i{} r{} f{}",
            self.name,
            params.join(", "),
            self.registers[0],
            self.registers[1],
            self.registers[2]
        )?;
        for (pc, insn) in self.code.iter().enumerate() {
            write!(f, "  {pc:>3}  ")?;
            match insn {
                Insn::Op {
                    opname,
                    args,
                    descr,
                    result,
                    ..
                } => {
                    write!(f, "{opname} {}", self.operands(args))?;
                    if let Some(d) = descr {
                        write!(f, "{}<{d}>", if args.is_empty() { "" } else { ", " })?;
                    }
                    if let Some(r) = result {
                        write!(f, " -> {r}")?;
                    }
                }
                Insn::Move { from, to } => write!(f, "move {} -> {to}", self.operand(from))?,
                Insn::Goto(l) => write!(f, "goto L{l}")?,
                Insn::GotoIfNot { cond, target } => {
                    write!(f, "goto_if_not {}, L{target}", self.operand(cond))?
                }
                Insn::Switch { on, cases, default } => {
                    write!(f, "switch {}", self.operand(on))?;
                    for (k, l) in cases {
                        write!(f, ", {k}: L{l}")?;
                    }
                    if let Some(l) = default {
                        write!(f, ", default: L{l}")?;
                    }
                }
                Insn::Call {
                    callee,
                    args,
                    result,
                    descr,
                } => {
                    let name = match callee {
                        Callee::Graph { name, .. } => format!("@{name}"),
                        Callee::Runtime { name, .. } => format!("${name}"),
                        Callee::Pointer { pointer, .. } => format!("*{}", self.operand(pointer)),
                    };
                    write!(f, "call {name}({})", self.operands(args))?;
                    if let Some(r) = result {
                        write!(f, " -> {r}")?;
                    }
                    write!(
                        f,
                        "  [{}: {}]",
                        call_kind_text(&descr.kind),
                        effects_text(&descr.effects)
                    )?;
                    if let Callee::Pointer { targets, .. } = callee {
                        write!(f, " targets {}", targets.join(" "))?;
                    }
                }
                Insn::Catch { handlers } => {
                    write!(f, "catch")?;
                    for h in handlers {
                        write!(f, " [{}..{})", h.range.0, h.range.1)?;
                        if let (Some(t), Some(v)) = (h.etype, h.evalue) {
                            write!(f, " ({t}, {v})")?;
                        } else if let Some(t) = h.etype.or(h.evalue) {
                            write!(f, " ({t})")?;
                        }
                        write!(f, ": L{}", h.target)?;
                    }
                }
                Insn::Raise { etype, evalue } => {
                    write!(f, "raise {}, {}", self.operand(etype), self.operand(evalue))?
                }
                Insn::Return(v) => match v {
                    Some(v) => write!(f, "return {}", self.operand(v))?,
                    None => write!(f, "return")?,
                },
                Insn::JitMergePoint {
                    driver,
                    greens,
                    reds,
                } => write!(
                    f,
                    "jit_merge_point #{driver}, greens [{}], reds [{}]",
                    self.operands(greens),
                    self.operands(reds)
                )?,
                Insn::CanEnterJit {
                    driver,
                    greens,
                    reds,
                } => write!(
                    f,
                    "can_enter_jit #{driver}, greens [{}], reds [{}]",
                    self.operands(greens),
                    self.operands(reds)
                )?,
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

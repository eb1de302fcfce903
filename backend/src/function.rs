//! One graph as one C function.
//!
//! Every non-Void variable is a C local `v<N>` (parameters are the start
//! block's input arguments); every reachable block is a label `block<N>:`;
//! a link assigns the target's input arguments in parallel and jumps. Links
//! to the return block become `return`. The graphs come from
//! `exceptiontransform`, so no link goes to an except block: exceptions are
//! the `exc_*` operations on the runtime's `rpy_exc_type`/`rpy_exc_value`.

use crate::names::{c_string_literal, char_literal, comment_text, float_literal, int_literal};
use crate::types::{c_decl, c_type, write_c_decl, Types};
use crate::StringPool;
use fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use rpy_ir::diag::{Diagnostic, Pos, SourceMap};
use rpy_ir::graph::{
    single_byte, str_bytes, Arg, Block, BlockId, Constant, FunctionGraph, GcExplicit, Link,
    Program, SpaceOperation, Var,
};
use rpy_ir::llops::{self, Signature};
use rpy_ir::lltype::{self, LowLevelType};
use rpy_ir::opcode::Opcode;
use std::collections::BTreeSet;
use std::fmt::Write;

/// A graph's C function: its name and its type (`FunctionGraph::func_sig`:
/// every parameter, though Void ones are not passed).
#[derive(Clone, Debug)]
pub struct FuncSig {
    pub c_name: String,
    pub ty: lltype::FuncSig,
}

/// What every function's code generation shares.
pub struct Context<'a> {
    pub path: &'a str,
    /// The files positions name (`Pos::file`).
    pub sources: &'a SourceMap,
    pub types: &'a Types,
    pub sigs: &'a HashMap<String, FuncSig>,
    /// The graphs that are part of a call cycle: they check the stack depth.
    pub recursive: &'a HashSet<String>,
    /// For each prebuilt object that is a static: its C variable and its
    /// container type's name.
    pub statics: &'a [Option<(String, String)>],
    /// With `--jit`: the JitDrivers' portals, by name (their merge points
    /// and loop ends call the JIT's runtime).
    pub portals: &'a [String],
    /// The pointer views the generated code takes, for the strict
    /// aliasing rule.
    pub views: &'a crate::aliasing::Views,
}

/// The C expression of a constant used where a value of type `want` is
/// expected (constants carry no type: `Int(1)` may stand for a Bool, a
/// static for a pointer to its base struct). Shared by function bodies and
/// static initializers, so every expression is a C constant expression
/// except a NaN of unusual bits.
pub(crate) fn constant_expr(
    cx: &Context,
    pool: &mut StringPool,
    c: &Constant,
    want: Option<&LowLevelType>,
) -> Result<String, String> {
    use LowLevelType as T;
    Ok(match (c, want) {
        (Constant::Int(n), Some(T::Float)) => float_literal(*n as f64),
        (Constant::Int(n), Some(T::Bool)) => ((*n != 0) as i32).to_string(),
        (Constant::Int(n), Some(T::Char)) => char_literal(*n as u8),
        (Constant::Int(n), Some(T::Unsigned)) => format!("{}UL", *n as u64),
        (Constant::Int(n), _) => int_literal(*n),
        (Constant::UInt(u), _) => format!("{u}UL"),
        (Constant::Float(x), _) => float_literal(*x),
        (Constant::Bool(b), Some(T::Float)) => if *b { "1.0" } else { "0.0" }.into(),
        (Constant::Bool(b), _) => if *b { "1" } else { "0" }.into(),
        (Constant::Char(ch), Some(T::Ptr(t))) if t == lltype::STR => pool.expr(&[*ch]),
        (Constant::Char(ch), _) => char_literal(*ch),
        (Constant::Str(s), Some(T::Char)) if single_byte(s).is_some() => {
            char_literal(single_byte(s).unwrap_or(0))
        }
        (Constant::Str(s), _) => pool.expr(&str_bytes(s)),
        (Constant::None, Some(T::Ptr(_) | T::FuncPtr(_)) | None) => "NULL".into(),
        (Constant::None, Some(_)) => "0".into(),
        (Constant::Func(f), want) => {
            let sig = cx
                .sigs
                .get(f)
                .ok_or_else(|| format!("the address of '{f}', which is not a graph"))?;
            match want {
                // The graph's parameters may be subclass parts of the
                // pointer type's (a method slot of a base class).
                Some(t @ T::FuncPtr(_)) => format!("(({}){})", c_type(t, cx.types), sig.c_name),
                _ => sig.c_name.clone(),
            }
        }
        (Constant::Prebuilt(i), want) => {
            let (var, ty) = cx
                .statics
                .get(*i as usize)
                .and_then(|s| s.as_ref())
                .ok_or_else(|| format!("&{i} is not a low-level static"))?;
            let target = match want {
                Some(t @ T::Ptr(_)) => t.clone(),
                _ => T::Ptr(ty.clone()),
            };
            cx.views
                .note_cast(&cx.types.table, &T::Ptr(ty.clone()), &target);
            format!("(({})&{var})", c_type(&target, cx.types))
        }
        (
            Constant::Builtin(_) | Constant::Name(_) | Constant::Class(_) | Constant::LastException,
            _,
        ) => return Err(format!("the constant {c:?} is not a value")),
    })
}

pub struct FuncGen<'a> {
    cx: &'a Context<'a>,
    graph: &'a FunctionGraph<GcExplicit>,
    pool: &'a mut StringPool,
    out: String,
    /// Temporaries for parallel assignments.
    ntemps: usize,
    /// The size of the graph's shadow-stack frame (`frame_slots`).
    frame_slots: usize,
    /// Whether the frame is entered where a block first needs it, not on
    /// entry (`enters_frame_lazily`).
    lazy_frame: bool,
    /// Whether the block being emitted only leads to a raise: its calls
    /// of helpers go to their cold wrappers (`cold`).
    in_cold_block: bool,
}

/// Whether a graph's shadow-stack frame is entered only where a block
/// first saves a root, rather than on entry: when its first block saves
/// none. A method whose usual path allocates nothing (a richards task's
/// `fn`, which allocates only to raise) then pays for the frame only on
/// the paths that need it, and on the others a test of a register as it
/// returns: reserving and zeroing the frame on every call was a sixth of
/// the samples of such a method. Where the first block saves a root,
/// every path needs the frame, and it is entered at once.
fn enters_frame_lazily(g: &FunctionGraph<GcExplicit>) -> bool {
    !g.block(g.startblock)
        .operations
        .iter()
        .any(|op| op.opname == Opcode::GcSaveRoot)
}

/// How many shadow-stack slots a graph's frame needs: one more than the
/// highest slot its `gc_save_root`s name (0 for a graph that keeps no GC
/// pointer across a collection, or a program without a collector).
fn frame_slots(g: &FunctionGraph<GcExplicit>) -> usize {
    g.blocks
        .iter()
        .flat_map(|b| &b.operations)
        .filter(|op| op.opname == Opcode::GcSaveRoot)
        .filter_map(|op| match op.args.first() {
            Some(Arg::Const(Constant::Int(k))) => usize::try_from(*k).ok().map(|k| k + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

type Res<T> = Result<T, Diagnostic>;

pub(crate) fn var_name(v: Var) -> String {
    let mut name = String::with_capacity(8);
    push_var_name(&mut name, v);
    name
}

/// A variable's C name at the end of `out`. GenC writes one for nearly
/// every operand and result; `itoa` skips the formatting machinery,
/// which cost more than the rest of writing the name.
fn push_var_name(out: &mut String, v: Var) {
    out.push('v');
    out.push_str(itoa::Buffer::new().format(v.0));
}

/// A variable's C name, written where it is wanted without a string of
/// its own.
struct VarName(Var);

impl std::fmt::Display for VarName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("v")?;
        f.write_str(itoa::Buffer::new().format(self.0 .0))
    }
}

impl<'a> FuncGen<'a> {
    pub fn new(
        cx: &'a Context<'a>,
        graph: &'a FunctionGraph<GcExplicit>,
        pool: &'a mut StringPool,
    ) -> Self {
        FuncGen {
            cx,
            graph,
            pool,
            out: String::new(),
            ntemps: 0,
            frame_slots: frame_slots(graph),
            lazy_frame: enters_frame_lazily(graph),
            in_cold_block: false,
        }
    }

    fn err(&self, pos: Option<Pos>, msg: impl std::fmt::Display) -> Diagnostic {
        self.cx.sources.diagnostic_or(
            self.cx.path,
            pos.or(self.graph.pos).unwrap_or_default(),
            format!("C backend, in function '{}': {msg}", self.graph.name),
        )
    }

    fn ty(&self, v: Var) -> &'a LowLevelType {
        self.graph.info(v)
    }

    /// The C prototype without storage class (`static`, `inline`), final
    /// `;` or body. A low-level helper is `static inline` (see
    /// `is_lowlevel_helper`), any other function `static` in one C file.
    pub fn prototype(types: &Types, graph: &FunctionGraph<GcExplicit>, sig: &FuncSig) -> String {
        let params: Vec<String> = graph
            .params()
            .iter()
            .filter(|v| *graph.info(**v) != LowLevelType::Void)
            .map(|v| c_decl(graph.info(*v), &var_name(*v), types))
            .collect();
        let ret = c_type(&sig.ty.result, types);
        let sep = if ret.ends_with('*') { "" } else { " " };
        format!(
            "{ret}{sep}{}({})",
            sig.c_name,
            if params.is_empty() {
                "void".to_string()
            } else {
                params.join(", ")
            }
        )
    }

    /// The whole function definition.
    pub fn generate(mut self) -> Res<String> {
        let g = self.graph;
        let sig = &self.cx.sigs[&g.name];
        let order: Vec<BlockId> = g
            .reverse_postorder()
            .into_iter()
            .filter(|b| *b != g.returnblock && *b != g.exceptblock)
            .collect();
        let preds = g.predecessors();
        let cold = crate::cold::cold_blocks(g);
        let _ = writeln!(self.out, "/* {} */", comment_text(&g.name));
        let inline = if is_lowlevel_helper(g) { "inline " } else { "" };
        let _ = writeln!(
            self.out,
            "static {inline}{} {{",
            Self::prototype(self.cx.types, g, sig)
        );
        // Locals: every variable the emitted blocks define, except parameters.
        let params: BTreeSet<Var> = g.params().iter().copied().collect();
        let mut locals = BTreeSet::new();
        for b in &order {
            let block = g.block(*b);
            for v in block
                .inputargs
                .iter()
                .chain(block.operations.iter().map(|op| &op.result))
            {
                if !params.contains(v) && *self.ty(*v) != LowLevelType::Void {
                    locals.insert(*v);
                }
            }
        }
        for v in &locals {
            self.out.push_str("    ");
            let ty = self.ty(*v);
            write_c_decl(&mut self.out, ty, VarName(*v), self.cx.types);
            self.out.push_str(";\n");
        }
        if self.cx.recursive.contains(&g.name) {
            self.out.push_str("    RPY_STACK_CHECK();\n");
        }
        if self.portal().is_some() {
            // The first merge point of each call counts apart.
            self.out.push_str("    int rpy_jit_first = 1;\n");
        }
        if self.frame_slots > 0 {
            let enter = if self.lazy_frame {
                "RPY_GC_FRAME_LAZY()".to_string()
            } else {
                format!("RPY_GC_FRAME_ENTER({})", self.frame_slots)
            };
            let _ = writeln!(self.out, "    {enter};");
        }
        for b in order {
            let block = g.block(b);
            if b != g.startblock || !preds[b.0 as usize].is_empty() {
                self.out.push_str("  block");
                self.out.push_str(itoa::Buffer::new().format(b.0));
                self.out.push_str(":\n");
            }
            // Where a lazily entered frame must be reserved in this block.
            let needs_frame = if self.lazy_frame && self.frame_slots > 0 {
                block
                    .operations
                    .iter()
                    .position(|op| op.opname == Opcode::GcSaveRoot)
            } else {
                None
            };
            self.in_cold_block = cold[b.0 as usize];
            for (i, op) in block.operations.iter().enumerate() {
                if Some(i) == needs_frame {
                    let _ = writeln!(self.out, "    RPY_GC_FRAME_NEED({});", self.frame_slots);
                }
                self.operation(op)?;
            }
            self.exits(block)?;
        }
        self.out.push_str("}\n\n");
        Ok(self.out)
    }

    /// What releases the graph's frame before a return (nothing when it
    /// has none).
    fn frame_leave(&self) -> &'static str {
        match (self.frame_slots > 0, self.lazy_frame) {
            (false, _) => "",
            (true, false) => "RPY_GC_FRAME_LEAVE(); ",
            (true, true) => "RPY_GC_FRAME_LEAVE_LAZY(); ",
        }
    }

    /// This graph's index among the JIT's portals.
    fn portal(&self) -> Option<usize> {
        self.cx.portals.iter().position(|p| *p == self.graph.name)
    }

    /// A merge point or loop end of portal `portal`: its live values (or
    /// the greens) as words to the JIT's runtime. At a merge point, the
    /// runtime may take over (a hot loop is traced or entered there):
    /// either it ran the rest of the call, and its result is this call's
    /// (an exception it raised is pending), or it hands the call back at
    /// a later merge point of it, having rewritten the words, which become
    /// the live variables' values (the original's
    /// `ContinueRunningNormally`).
    fn jit_hook(&mut self, op: &SpaceOperation, kind: &str, portal: usize) -> Res<()> {
        let pos = op.pos;
        let ngreens = match op.args.get(2) {
            Some(Arg::Const(Constant::Int(n))) => *n as usize,
            _ => 0,
        };
        // As the codewriter lists them: Void values are not passed.
        let mut words = Vec::new();
        // How each variable reads its word back when the runtime hands
        // the call back.
        let mut reads = String::new();
        for (i, a) in op.args.iter().enumerate().skip(3) {
            if kind != "jit_merge_point" && i >= 3 + ngreens {
                break;
            }
            let Some(t) = self.arg_type(a) else { continue };
            if t == LowLevelType::Void {
                continue;
            }
            if let Arg::Var(v) = a {
                let word = format!("rpy_jw[{}]", words.len());
                let _ = write!(
                    reads,
                    " {} = {};",
                    var_name(*v),
                    crate::jit_embedding::from_word(&t, &word, self.cx)
                );
            }
            let v = self.value(a, Some(&t), pos)?;
            words.push(crate::jit_embedding::to_word(&t, &v));
        }
        let n = words.len();
        let array = format!(
            "unsigned long rpy_jw[{}] = {{{}}};",
            n.max(1),
            if words.is_empty() {
                "0".to_string()
            } else {
                words.join(", ")
            }
        );
        if kind != "jit_merge_point" {
            let _ = writeln!(
                self.out,
                "    {{ {array} rpy_jit_can_enter_jit({portal}UL, rpy_jw, {n}UL); }}"
            );
            return Ok(());
        }
        let sig = &self.cx.sigs[&self.graph.name];
        let leave = self.frame_leave();
        let ret = match &sig.ty.result {
            LowLevelType::Void => "return;".to_string(),
            t => format!(
                "return {};",
                crate::jit_embedding::from_word(t, "rpy_jr", self.cx)
            ),
        };
        let _ = writeln!(
            self.out,
            "    if (RPY_UNLIKELY(rpy_jit_active || rpy_jit_first)) {{ {array} unsigned long rpy_jr = 0;\n      int rpy_js = rpy_jit_merge_point({portal}UL, rpy_jw, {n}UL, rpy_jit_first, &rpy_jr);\n      rpy_jit_first = 0;\n      if (RPY_UNLIKELY(rpy_js == 1)) {{ {leave}{ret} }}\n      if (rpy_js == 2) {{{reads} }} }}"
        );
        Ok(())
    }

    // ---- values ----

    /// The function pointer type of the graph named `f`.
    fn graph_sig(&self, f: &str) -> Option<Box<lltype::FuncSig>> {
        self.cx.sigs.get(f).map(|s| Box::new(s.ty.clone()))
    }

    fn arg_type(&self, a: &Arg) -> Option<LowLevelType> {
        match a {
            Arg::Var(v) => Some(self.ty(*v).clone()),
            Arg::Const(c) => match c {
                Constant::Int(_) => Some(LowLevelType::Signed),
                Constant::UInt(_) => Some(LowLevelType::Unsigned),
                Constant::Float(_) => Some(LowLevelType::Float),
                Constant::Bool(_) => Some(LowLevelType::Bool),
                Constant::Char(_) => Some(LowLevelType::Char),
                Constant::Str(_) => Some(LowLevelType::Ptr(lltype::STR.into())),
                Constant::Prebuilt(i) => self
                    .cx
                    .statics
                    .get(*i as usize)
                    .and_then(|s| s.as_ref())
                    .map(|(_, ty)| LowLevelType::Ptr(ty.clone())),
                Constant::Func(f) => self.graph_sig(f).map(LowLevelType::FuncPtr),
                _ => None,
            },
        }
    }

    /// The C expression of an argument used where a value of type `want` is
    /// expected (constants are written as that type).
    fn value(&mut self, a: &Arg, want: Option<&LowLevelType>, pos: Option<Pos>) -> Res<String> {
        match a {
            Arg::Var(v) => Ok(var_name(*v)),
            Arg::Const(c) => self.constant(c, want, pos),
        }
    }

    fn constant(
        &mut self,
        c: &Constant,
        want: Option<&LowLevelType>,
        pos: Option<Pos>,
    ) -> Res<String> {
        constant_expr(self.cx, self.pool, c, want).map_err(|m| self.err(pos, m))
    }

    /// The expression and the type name of a pointer argument.
    fn pointer(&mut self, a: &Arg, op: &SpaceOperation) -> Res<(String, String)> {
        match self.arg_type(a) {
            Some(LowLevelType::Ptr(t)) => Ok((self.value(a, None, op.pos)?, t)),
            other => Err(self.err(
                op.pos,
                format!(
                    "{} needs a pointer as its first argument, not {}",
                    op.opname,
                    other.map_or("a constant of no type".to_string(), |t| t.to_string())
                ),
            )),
        }
    }

    fn name_arg<'o>(&self, op: &'o SpaceOperation, i: usize) -> Res<&'o str> {
        match op.args.get(i) {
            Some(Arg::Const(Constant::Name(n))) => Ok(n),
            _ => Err(self.err(
                op.pos,
                format!("{} needs a Name constant as argument {}", op.opname, i + 1),
            )),
        }
    }

    // ---- operations ----

    fn nargs(&self, op: &SpaceOperation, n: usize) -> Res<()> {
        if op.args.len() == n {
            Ok(())
        } else {
            Err(self.err(
                op.pos,
                format!("{} takes {n} arguments, got {}", op.opname, op.args.len()),
            ))
        }
    }

    /// Emits `result = expr;` (or just `expr;` when the result is Void).
    fn assign(&mut self, op: &SpaceOperation, expr: String) {
        self.out.push_str("    ");
        if *self.ty(op.result) != LowLevelType::Void {
            push_var_name(&mut self.out, op.result);
            self.out.push_str(" = ");
        }
        self.out.push_str(&expr);
        self.out.push_str(";\n");
    }

    fn operation(&mut self, op: &SpaceOperation) -> Res<()> {
        use LowLevelType as T;
        let name = op.opname;
        let rty = self.ty(op.result).clone();
        let pos = op.pos;
        if let Some(ll) = llops::info(name) {
            let (args_t, n): (Option<T>, usize) = match &ll.sig {
                Signature::IntBinary | Signature::IntCompare => (Some(T::Signed), 2),
                Signature::IntUnary => (Some(T::Signed), 1),
                Signature::UintBinary | Signature::UintCompare | Signature::UintShift => {
                    (Some(T::Unsigned), 2)
                }
                Signature::UintUnary => (Some(T::Unsigned), 1),
                Signature::FloatBinary | Signature::FloatCompare => (Some(T::Float), 2),
                Signature::FloatUnary => (Some(T::Float), 1),
                Signature::CharCompare => (Some(T::Char), 2),
                Signature::Cast(from, _) => (Some(from.clone()), 1),
                Signature::Special => (None, 0),
            };
            if let Some(at) = args_t {
                self.nargs(op, n)?;
                if rty == T::Void {
                    return Ok(()); // a pure operation whose value nobody wants
                }
                let a = self.value(&op.args[0], Some(&at), pos)?;
                // A shift count is Signed whatever the shifted word is.
                let second = if ll.sig == Signature::UintShift {
                    T::Signed
                } else {
                    at
                };
                let b = if n == 2 {
                    self.value(&op.args[1], Some(&second), pos)?
                } else {
                    String::new()
                };
                let divisor = match op.args.get(1) {
                    Some(Arg::Const(Constant::Int(c))) => Some(*c),
                    _ => None,
                };
                let expr = divisor
                    .and_then(|c| division_by_constant(name, &a, c))
                    .or_else(|| primitive(name, &a, &b))
                    .ok_or_else(|| self.err(pos, format!("unknown operation {name}")))?;
                self.assign(op, expr);
                return Ok(());
            }
        }
        match name {
            // Not jitted: the JIT's jitcodes have True instead.
            Opcode::JitWeAreJitted => {
                self.nargs(op, 0)?;
                self.assign(op, "false".to_string());
            }
            Opcode::SameAs | Opcode::JitPromote => {
                self.nargs(op, 1)?;
                if rty != T::Void {
                    let a = self.value(&op.args[0], Some(&rty), pos)?;
                    self.assign(op, a);
                }
            }
            Opcode::PtrEq | Opcode::PtrNe => {
                self.nargs(op, 2)?;
                let a = self.value(&op.args[0], None, pos)?;
                let b = self.value(&op.args[1], None, pos)?;
                let cmp = if name == Opcode::PtrEq { "==" } else { "!=" };
                self.assign(op, format!("((void *){a} {cmp} (void *){b})"));
            }
            Opcode::PtrIszero | Opcode::PtrNonzero => {
                self.nargs(op, 1)?;
                let a = self.value(&op.args[0], None, pos)?;
                let cmp = if name == Opcode::PtrIszero {
                    "=="
                } else {
                    "!="
                };
                self.assign(op, format!("({a} {cmp} NULL)"));
            }
            Opcode::Malloc | Opcode::MallocVarsize => {
                self.nargs(op, if name == Opcode::Malloc { 1 } else { 2 })?;
                let tname = self.name_arg(op, 0)?;
                let container = self.cx.types.container(tname).ok_or_else(|| {
                    self.err(pos, format!("{name} of the unknown type '{tname}'"))
                })?;
                if rty != T::Ptr(tname.to_string()) {
                    return Err(self.err(
                        pos,
                        format!("{name}({tname}) must yield Ptr({tname}), not {rty}"),
                    ));
                }
                let tag = self.cx.types.struct_tag(tname);
                let tid = self.cx.types.type_id(tname).unwrap_or(0);
                let expr = if name == Opcode::Malloc {
                    format!("((struct {tag} *)rpy_gc_malloc_fixed(sizeof(struct {tag}), {tid}UL))")
                } else {
                    let n = self.value(&op.args[1], Some(&T::Signed), pos)?;
                    let (items_offset, item_size) = match container.item_type() {
                        None => {
                            return Err(self.err(
                                pos,
                                format!("malloc_varsize of '{tname}', which has no items"),
                            ))
                        }
                        Some(T::Void) => (format!("sizeof(struct {tag})"), "0".to_string()),
                        Some(_) => (
                            format!("offsetof(struct {tag}, items)"),
                            format!("sizeof(((struct {tag} *)0)->items[0])"),
                        ),
                    };
                    format!(
                        "((struct {tag} *)rpy_gc_malloc_varsize(sizeof(struct {tag}), \
                         {items_offset}, {item_size}, {n}, offsetof(struct {tag}, f_length), \
                         {tid}UL))"
                    )
                };
                self.assign(op, expr);
            }
            Opcode::Getfield | Opcode::Setfield => {
                self.nargs(op, if name == Opcode::Getfield { 2 } else { 3 })?;
                let (p, tname) = self.pointer(&op.args[0], op)?;
                let field = self.name_arg(op, 1)?;
                let container = self.cx.types.container(&tname).ok_or_else(|| {
                    self.err(pos, format!("{name} on the unknown type '{tname}'"))
                })?;
                let fty = container.field_type(field).cloned().ok_or_else(|| {
                    self.err(pos, format!("the type '{tname}' has no field '{field}'"))
                })?;
                if fty == T::Void {
                    return Ok(());
                }
                let lvalue = self
                    .cx
                    .types
                    .field_lvalue(&p, &tname, field)
                    .unwrap_or_else(|| format!("{p}->?"));
                if name == Opcode::Getfield {
                    if rty != T::Void {
                        self.assign(op, lvalue);
                    }
                } else {
                    let v = self.value(&op.args[2], Some(&fty), pos)?;
                    let _ = writeln!(self.out, "    {lvalue} = {v};");
                }
            }
            Opcode::Getarrayitem | Opcode::Setarrayitem | Opcode::Getarraysize => {
                let n = match name {
                    Opcode::Getarrayitem => 2,
                    Opcode::Setarrayitem => 3,
                    _ => 1,
                };
                self.nargs(op, n)?;
                let (p, tname) = self.pointer(&op.args[0], op)?;
                let container = self.cx.types.container(&tname).ok_or_else(|| {
                    self.err(pos, format!("{name} on the unknown type '{tname}'"))
                })?;
                let item = container.item_type().cloned().ok_or_else(|| {
                    self.err(pos, format!("{name} on '{tname}', which has no items"))
                })?;
                if name == Opcode::Getarraysize {
                    if rty != T::Void {
                        self.assign(op, format!("{p}->f_length"));
                    }
                    return Ok(());
                }
                if item == T::Void {
                    return Ok(());
                }
                let i = self.value(&op.args[1], Some(&T::Signed), pos)?;
                if name == Opcode::Getarrayitem {
                    if rty != T::Void {
                        self.assign(op, format!("{p}->items[{i}]"));
                    }
                } else {
                    let v = self.value(&op.args[2], Some(&item), pos)?;
                    let _ = writeln!(self.out, "    {p}->items[{i}] = {v};");
                }
            }
            Opcode::DirectCall => self.call(op)?,
            Opcode::IndirectCall => self.indirect_call(op)?,
            Opcode::CastPointer => {
                self.nargs(op, 1)?;
                if let Some(from) = self.arg_type(&op.args[0]) {
                    self.cx.views.note_cast(&self.cx.types.table, &from, &rty);
                }
                let p = self.value(&op.args[0], Some(&rty), pos)?;
                let ct = c_type(&rty, self.cx.types);
                self.assign(op, format!("(({ct}){p})"));
            }
            Opcode::IntBetween => {
                self.nargs(op, 3)?;
                let mut v = Vec::new();
                for a in &op.args {
                    v.push(self.value(a, Some(&T::Signed), pos)?);
                }
                self.assign(op, format!("({} <= {} && {} < {})", v[0], v[1], v[1], v[2]));
            }
            Opcode::ExcOccurred => {
                self.nargs(op, 0)?;
                // Exceptions are the rare way out of a call.
                self.assign(op, "RPY_UNLIKELY(rpy_exc_type != NULL)".into());
            }
            Opcode::ExcType | Opcode::ExcValue => {
                self.nargs(op, 0)?;
                let ct = c_type(&rty, self.cx.types);
                self.assign(op, format!("(({ct})rpy_{name})"));
            }
            Opcode::ExcSet => {
                self.nargs(op, 2)?;
                let t = self.value(&op.args[0], None, pos)?;
                let v = self.value(&op.args[1], None, pos)?;
                let _ = writeln!(
                    self.out,
                    "    rpy_exc_type = (void *){t};\n    rpy_exc_value = (void *){v};"
                );
            }
            // A JIT hint: in a portal of `--jit`, a call of the JIT's
            // runtime; else a comment.
            Opcode::JitMarker => {
                let kind = match op.args.first() {
                    Some(Arg::Const(Constant::Name(k))) => k.as_str(),
                    _ => "jit_marker",
                };
                match self.portal() {
                    Some(portal) => self.jit_hook(op, kind, portal)?,
                    None => {
                        let _ = writeln!(self.out, "    /* {kind} */");
                    }
                }
            }
            Opcode::GcSaveRoot => {
                self.nargs(op, 2)?;
                let slot = self.slot_arg(op)?;
                let p = self.value(&op.args[1], None, pos)?;
                let _ = writeln!(self.out, "    rpy_ss[{slot}] = (void *){p};");
            }
            Opcode::GcReload => {
                self.nargs(op, 2)?;
                let slot = self.slot_arg(op)?;
                let ct = c_type(&rty, self.cx.types);
                self.assign(op, format!("(({ct})rpy_ss[{slot}])"));
            }
            Opcode::GcWriteBarrier => {
                self.nargs(op, 1)?;
                let p = self.value(&op.args[0], None, pos)?;
                let _ = writeln!(self.out, "    RPY_GC_WRITE_BARRIER({p});");
            }
            Opcode::GcWriteBarrierItem => {
                self.nargs(op, 2)?;
                let p = self.value(&op.args[0], None, pos)?;
                let i = self.value(&op.args[1], None, pos)?;
                let _ = writeln!(self.out, "    RPY_GC_WRITE_BARRIER_ITEM({p}, {i});");
            }
            Opcode::ExcClear => {
                self.nargs(op, 0)?;
                self.out
                    .push_str("    rpy_exc_type = NULL;\n    rpy_exc_value = NULL;\n");
            }
            _ => return Err(self.err(pos, format!("unknown low-level operation '{name}'"))),
        }
        Ok(())
    }

    /// The shadow-stack slot a `gc_save_root`/`gc_reload` names.
    fn slot_arg(&self, op: &SpaceOperation) -> Res<usize> {
        match op.args.first() {
            Some(Arg::Const(Constant::Int(k))) if (0..self.frame_slots as i64).contains(k) => {
                Ok(*k as usize)
            }
            _ => Err(self.err(
                op.pos,
                format!("{} needs a slot of the frame as argument 1", op.opname),
            )),
        }
    }

    fn call(&mut self, op: &SpaceOperation) -> Res<()> {
        let pos = op.pos;
        let (c_name, params, result): (String, Vec<LowLevelType>, LowLevelType) =
            match op.args.first() {
                Some(Arg::Const(Constant::Func(f))) => {
                    let sig = self.cx.sigs.get(f).ok_or_else(|| {
                        self.err(
                            pos,
                            format!("call of '{f}', which is not a graph of the program"),
                        )
                    })?;
                    let c_name = if self.in_cold_block && is_lowlevel_helper_name(f) {
                        crate::cold::wrapper_name(&sig.c_name)
                    } else {
                        sig.c_name.clone()
                    };
                    (c_name, sig.ty.params.clone(), sig.ty.result.clone())
                }
                Some(Arg::Const(Constant::Builtin(b))) => {
                    let rf = llops::runtime_func(b).ok_or_else(|| {
                        self.err(pos, format!("call of '{b}', which is no runtime function"))
                    })?;
                    (
                        rf.name.to_string(),
                        rf.args.iter().map(|a| a.lltype()).collect(),
                        rf.result.lltype(),
                    )
                }
                _ => {
                    return Err(self.err(
                        pos,
                        "direct_call needs a Func or Builtin constant as its first argument",
                    ))
                }
            };
        self.emit_call(op, &c_name, &params, &result)
    }

    /// `indirect_call(f, args...)`: a call through the function pointer
    /// `f`, whose C type (a typedef of its signature) says how.
    fn indirect_call(&mut self, op: &SpaceOperation) -> Res<()> {
        let pos = op.pos;
        let Some(LowLevelType::FuncPtr(sig)) = op.args.first().and_then(|a| self.arg_type(a))
        else {
            return Err(self.err(pos, "indirect_call needs a function pointer first"));
        };
        let f = self.value(&op.args[0], None, pos)?;
        self.emit_call(op, &f, &sig.params, &sig.result)
    }

    /// Emits the call of `callee` (a C function or function pointer
    /// expression) with `op`'s arguments after the first.
    fn emit_call(
        &mut self,
        op: &SpaceOperation,
        callee: &str,
        params: &[LowLevelType],
        result: &LowLevelType,
    ) -> Res<()> {
        let pos = op.pos;
        let c_name = callee;
        let args = &op.args[1..];
        if args.len() != params.len() {
            return Err(self.err(
                pos,
                format!(
                    "{c_name} takes {} arguments, got {}",
                    params.len(),
                    args.len()
                ),
            ));
        }
        let mut cargs = Vec::new();
        for (a, t) in args.iter().zip(params) {
            if *t != LowLevelType::Void {
                cargs.push(self.value(a, Some(t), pos)?);
            }
        }
        let expr = format!("{c_name}({})", cargs.join(", "));
        if *result == LowLevelType::Void || *self.ty(op.result) == LowLevelType::Void {
            let _ = writeln!(self.out, "    {expr};");
        } else {
            self.assign(op, expr);
        }
        Ok(())
    }

    // ---- control flow ----

    fn exits(&mut self, block: &Block) -> Res<()> {
        let exits = &block.exits;
        if exits.is_empty() {
            return Err(self.err(
                None,
                "a block other than the return and except blocks has no exits",
            ));
        }
        if block.catches_exceptions() {
            return Err(self.err(
                None,
                "a block catches exceptions (the exception transform removes those)",
            ));
        }
        let sw = match &block.exitswitch {
            Some(sw) if exits.len() > 1 => sw,
            _ => return self.link(&exits[0], "    "),
        };
        let sw_ty = self.arg_type(sw);
        let is_bool = sw_ty == Some(LowLevelType::Bool);
        if is_bool && exits.len() == 2 {
            let t = exits
                .iter()
                .position(|l| l.exitcase == Some(Constant::Bool(true)));
            let f = exits
                .iter()
                .position(|l| l.exitcase == Some(Constant::Bool(false)));
            if let (Some(t), Some(f)) = (t, f) {
                let cond = self.value(sw, Some(&LowLevelType::Bool), None)?;
                let _ = writeln!(self.out, "    if ({cond}) {{");
                self.link(&exits[t], "        ")?;
                self.out.push_str("    }\n");
                return self.link(&exits[f], "    ");
            }
        }
        let swexpr = self.value(sw, sw_ty.as_ref(), None)?;
        let _ = writeln!(self.out, "    switch ({swexpr}) {{");
        let mut default = None;
        for l in exits {
            let label = match &l.exitcase {
                None => {
                    default = Some(l);
                    continue;
                }
                Some(Constant::Name(n)) if n == "default" => {
                    default = Some(l);
                    continue;
                }
                Some(Constant::Int(n)) => int_literal(*n),
                Some(Constant::Char(c)) => c.to_string(),
                Some(Constant::Bool(b)) => (*b as i32).to_string(),
                Some(Constant::Str(s)) if single_byte(s).is_some() => {
                    single_byte(s).unwrap_or(0).to_string()
                }
                Some(other) => {
                    return Err(self.err(
                        None,
                        format!("the exit case {other:?} is not a switch value"),
                    ))
                }
            };
            let _ = writeln!(self.out, "    case {label}: {{");
            self.link(l, "        ")?;
            self.out.push_str("    }\n");
        }
        self.out.push_str("    default: {\n");
        match default {
            Some(l) => self.link(l, "        ")?,
            None => {
                let _ = writeln!(
                    self.out,
                    "        rpy_fatal_no_exit({}, (long){swexpr});",
                    c_string_literal(self.graph.name.as_bytes())
                );
            }
        }
        self.out.push_str("    }\n    }\n");
        Ok(())
    }

    /// Follows a link: a parallel assignment of the target's input arguments,
    /// then the jump (or the return, or the fatal error of an exception).
    fn link(&mut self, l: &Link, indent: &str) -> Res<()> {
        let g = self.graph;
        let target = g.block(l.target);
        if l.args.len() != target.inputargs.len() {
            return Err(self.err(
                None,
                format!(
                    "a link to block {} passes {} values for {} input arguments",
                    l.target.0,
                    l.args.len(),
                    target.inputargs.len()
                ),
            ));
        }
        if l.target == g.exceptblock {
            return Err(self.err(
                None,
                "a link raises into the except block (the exception transform removes those)",
            ));
        }
        if l.target == g.returnblock {
            let leave = self.frame_leave();
            if !leave.is_empty() {
                let _ = writeln!(self.out, "{indent}{}", leave.trim_end());
            }
            let rt = self.ty(target.inputargs[0]).clone();
            if rt == LowLevelType::Void {
                let _ = writeln!(self.out, "{indent}return;");
            } else {
                let v = self.value(&l.args[0], Some(&rt), None)?;
                let _ = writeln!(self.out, "{indent}return {v};");
            }
            return Ok(());
        }
        // (destination, source) pairs that change something.
        let moves: Vec<(Var, &Arg)> = target
            .inputargs
            .iter()
            .zip(&l.args)
            .filter(|(d, s)| *self.ty(**d) != LowLevelType::Void && s.as_var() != Some(**d))
            .map(|(d, s)| (*d, s))
            .collect();
        // A source that is also a destination is read into a temporary before
        // any assignment, so every source is read with its old value.
        let mut temps: Vec<(Var, usize)> = Vec::new();
        for (_, s) in &moves {
            if let Some(v) = s.as_var() {
                let is_dest = moves.iter().any(|(d, _)| *d == v);
                if is_dest && !temps.iter().any(|(t, _)| *t == v) {
                    temps.push((v, self.ntemps));
                    self.ntemps += 1;
                }
            }
        }
        let inner: std::borrow::Cow<str> = if temps.is_empty() {
            indent.into()
        } else {
            let _ = writeln!(self.out, "{indent}{{");
            format!("{indent}    ").into()
        };
        for (v, t) in &temps {
            self.out.push_str(&inner);
            let ty = self.ty(*v);
            write_c_decl(&mut self.out, ty, format_args!("t{t}"), self.cx.types);
            let _ = writeln!(self.out, " = {};", VarName(*v));
        }
        for (d, s) in &moves {
            let temp = s.as_var().and_then(|v| temps.iter().find(|(t, _)| *t == v));
            let src = match temp {
                Some((_, t)) => format!("t{t}"),
                None => self.value(s, Some(self.ty(*d)), None)?,
            };
            self.out.push_str(&inner);
            push_var_name(&mut self.out, *d);
            self.out.push_str(" = ");
            self.out.push_str(&src);
            self.out.push_str(";\n");
        }
        if !temps.is_empty() {
            let _ = writeln!(self.out, "{indent}}}");
        }
        self.out.push_str(indent);
        self.out.push_str("goto block");
        self.out.push_str(itoa::Buffer::new().format(l.target.0));
        self.out.push_str(";\n");
        Ok(())
    }
}

/// Division and modulo by a constant other than 0 and -1, written out so that
/// the C compiler sees the constant (shifts and masks for powers of two).
/// `x` is a variable or a literal, so it may appear twice.
fn division_by_constant(name: Opcode, x: &str, c: i64) -> Option<String> {
    if c == 0 || c == -1 {
        return None;
    }
    let lit = int_literal(c);
    let pow2 = c > 0 && c & (c - 1) == 0;
    // The remainder is "wrong-signed" for Python when it is nonzero and its
    // sign differs from the divisor's.
    let wrong = if c > 0 { "< 0" } else { "> 0" };
    Some(match name {
        Opcode::IntFloordiv => format!("({x} / {lit})"),
        Opcode::IntMod => format!("({x} % {lit})"),
        Opcode::IntPyDiv if pow2 => format!("RPY_INT_RSHIFT({x}, {})", c.trailing_zeros()),
        Opcode::IntPyMod if pow2 => format!("({x} & {})", int_literal(c - 1)),
        Opcode::IntPyDiv => format!("({x} / {lit} - ({x} % {lit} {wrong}))"),
        Opcode::IntPyMod => format!("({x} % {lit} + ({x} % {lit} {wrong} ? {lit} : 0L))"),
        _ => return None,
    })
}

/// The C expression of a primitive operation on the argument expressions.
fn primitive(name: Opcode, a: &str, b: &str) -> Option<String> {
    let bin = |op: &str| Some(format!("({a} {op} {b})"));
    let call2 = |f: &str| Some(format!("{f}({a}, {b})"));
    match name {
        Opcode::IntAdd => call2("RPY_INT_ADD"),
        Opcode::IntSub => call2("RPY_INT_SUB"),
        Opcode::IntMul => call2("RPY_INT_MUL"),
        Opcode::IntFloordiv => call2("rpy_int_floordiv"),
        Opcode::IntMod => call2("rpy_int_mod"),
        Opcode::IntPyDiv => call2("rpy_int_py_div"),
        Opcode::IntPyMod => call2("rpy_int_py_mod"),
        Opcode::IntAnd | Opcode::UintAnd => bin("&"),
        Opcode::IntOr | Opcode::UintOr => bin("|"),
        Opcode::IntXor | Opcode::UintXor => bin("^"),
        Opcode::IntLshift => call2("RPY_INT_LSHIFT"),
        Opcode::IntRshift => call2("RPY_INT_RSHIFT"),
        Opcode::IntNeg => Some(format!("RPY_INT_NEG({a})")),
        Opcode::IntInvert | Opcode::UintInvert => Some(format!("(~{a})")),
        Opcode::IntAbs => Some(format!("rpy_int_abs({a})")),
        Opcode::IntLt | Opcode::UintLt | Opcode::FloatLt | Opcode::CharLt => bin("<"),
        Opcode::IntLe | Opcode::UintLe | Opcode::FloatLe | Opcode::CharLe => bin("<="),
        Opcode::IntEq | Opcode::UintEq | Opcode::FloatEq | Opcode::CharEq => bin("=="),
        Opcode::IntNe | Opcode::UintNe | Opcode::FloatNe | Opcode::CharNe => bin("!="),
        Opcode::IntGt | Opcode::UintGt | Opcode::FloatGt | Opcode::CharGt => bin(">"),
        Opcode::IntGe | Opcode::UintGe | Opcode::FloatGe | Opcode::CharGe => bin(">="),
        Opcode::IntIsTrue | Opcode::UintIsTrue => Some(format!("({a} != 0)")),
        // Unsigned arithmetic wraps in C as r_uint's does (the operands are
        // `unsigned long`); the others share the signed operations' text.
        Opcode::UintFloordiv => bin("/"),
        Opcode::UintMod => bin("%"),
        Opcode::UintLshift => bin("<<"),
        Opcode::UintRshift => bin(">>"),
        Opcode::CastIntToUint | Opcode::CastBoolToUint | Opcode::CastFloatToUint => {
            Some(format!("((unsigned long){a})"))
        }
        Opcode::BoolNot => Some(format!("(!{a})")),
        Opcode::CastBoolToInt
        | Opcode::CastCharToInt
        | Opcode::CastFloatToInt
        | Opcode::CastUintToInt => Some(format!("((long){a})")),
        Opcode::CastBoolToFloat | Opcode::CastIntToFloat | Opcode::CastUintToFloat => {
            Some(format!("((double){a})"))
        }
        Opcode::CastIntToChar => Some(format!("((unsigned char){a})")),
        Opcode::FloatAdd | Opcode::UintAdd => bin("+"),
        Opcode::FloatSub | Opcode::UintSub => bin("-"),
        Opcode::FloatMul | Opcode::UintMul => bin("*"),
        Opcode::FloatTruediv => bin("/"),
        Opcode::FloatPyDiv => call2("rpy_float_py_div"),
        Opcode::FloatPyMod => call2("rpy_float_py_mod"),
        Opcode::FloatNeg => Some(format!("(-{a})")),
        Opcode::FloatAbs => Some(format!("fabs({a})")),
        Opcode::FloatIsTrue => Some(format!("({a} != 0.0)")),
        _ => None,
    }
}

/// The graphs that can call themselves, directly or through others (Tarjan's
/// strongly connected components over the call graph, where a call through
/// a function pointer may call any graph of its signature whose address is
/// taken).
pub fn recursive_graphs(program: &Program<GcExplicit>) -> HashSet<String> {
    let graphs = &program.graphs;
    let index_of: HashMap<&str, usize> = program.graph_positions();
    let taken = program.address_taken();
    let mut by_sig: HashMap<lltype::FuncSig, Vec<usize>> = HashMap::default();
    for (i, g) in graphs.iter().enumerate() {
        if taken.contains(g.name.as_str()) {
            by_sig.entry(g.func_sig()).or_default().push(i);
        }
    }
    let callees: Vec<Vec<usize>> = graphs
        .iter()
        .map(|g| {
            let mut c: Vec<usize> = g
                .blocks
                .iter()
                .flat_map(|b| &b.operations)
                .flat_map(|op| match (op.opname, op.args.first()) {
                    (Opcode::DirectCall, Some(Arg::Const(Constant::Func(f)))) => {
                        index_of.get(f.as_str()).copied().into_iter().collect()
                    }
                    (Opcode::IndirectCall, Some(Arg::Var(v))) => match g.info(*v) {
                        LowLevelType::FuncPtr(sig) => by_sig.get(sig).cloned().unwrap_or_default(),
                        _ => Vec::new(),
                    },
                    _ => Vec::new(),
                })
                .collect();
            c.sort_unstable();
            c.dedup();
            c
        })
        .collect();
    let n = graphs.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut result = HashSet::default();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // Iterative Tarjan: (node, next callee position).
        let mut work = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if *i < callees[v].len() {
                let w = callees[v][*i];
                *i += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some(&(parent, _)) = work.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut component = Vec::new();
                    loop {
                        let w = stack.pop().expect("tarjan stack");
                        on_stack[w] = false;
                        component.push(w);
                        if w == v {
                            break;
                        }
                    }
                    if component.len() > 1 || callees[v].contains(&v) {
                        result.extend(component.into_iter().map(|w| graphs[w].name.clone()));
                    }
                }
            }
        }
    }
    result
}

/// The package of the low-level helpers (`pylib/rpython/rtyper/`), whose
/// graphs are named after their module (`rpython.rtyper.rlist.ll_append__...`).
const HELPER_PACKAGE: &str = "rpython.rtyper.";

/// Whether the graph named `name` is a low-level helper (see
/// [`is_lowlevel_helper`]).
pub(crate) fn is_lowlevel_helper_name(name: &str) -> bool {
    name.starts_with(HELPER_PACKAGE)
}

/// Whether `graph` is a low-level helper: the code of the language's own
/// operations (`l.append(x)`, `l.pop()`, string concatenation, dict
/// lookups). Their fast paths are a few operations around a call of the
/// slow path, and the C compiler's `-O2` heuristics for functions not
/// declared `inline` keep most of them as calls at every site: half of
/// the time of benches/programs/vm.py went into calling `ll_append` and
/// `ll_pop_end`. Declared `inline`, they are inlined where the compiler
/// finds them small enough, as the original's backend optimizations
/// inline them (rpy has no inliner of its own yet).
pub(crate) fn is_lowlevel_helper(graph: &FunctionGraph<GcExplicit>) -> bool {
    is_lowlevel_helper_name(&graph.name)
}

//! The flow graph model of the seeds, shared by every graph stage.
//!
//! A `FunctionGraph` is a set of `Block`s joined by `Link`s. A block takes its
//! values as input arguments, runs its operations in order, and leaves by one of
//! its exits: with one exit unconditionally, or by matching `exitswitch` against
//! each link's `exitcase`. Variables are in SSA form: each is defined once, as an
//! input argument or an operation result, and is local to its block; links pass
//! values on explicitly. Every graph has a start block, a return block (one input
//! argument, the returned value) and an except block (two: the exception class and
//! value).
//!
//! # Exceptions
//!
//! An operation that may raise, whose exception the graph catches, is the last
//! operation of its block, and that block's exitswitch is the marker constant
//! `Constant::LastException`. Its first exit is the normal path (no exitcase);
//! each further exit has as exitcase the class it catches (`Constant::Class`),
//! tried in order, the first whose class matches the raised exception's class
//! or one of its bases being taken. An exception exit may define two fresh
//! variables of its own, `last_exception` (the raised exception's class) and
//! `last_exc_value` (the exception instance), which only its own `args` may
//! read; they are defined by the link itself, not by any block. The raising
//! operation's result is not defined on an exception exit. An exception that no
//! exit catches leaves the graph through the except block, as does an exception
//! raised by an operation of a block without this exitswitch. (The original's
//! `c_last_exception`, `link.last_exception` and `link.last_exc_value`.)
//!
//! What a variable carries depends on the stage: nothing after flow, an annotation
//! after annotate, a low-level type after rtype. `Stage` ties a graph to its stage
//! so that a pass cannot be fed the wrong one.

use crate::annotation::SomeValue;
use crate::diag::Pos;
use crate::lltype::LowLevelType;
pub use crate::opcode::Opcode;
use std::collections::BTreeMap;
use std::fmt::Debug;

/// A stage of the pipeline whose output is a graph program.
pub trait Stage: Sized + Clone + Debug + PartialEq + 'static {
    /// The stage name used by `rpy show --stage`.
    const NAME: &'static str;
    /// What each variable carries in this stage.
    type VarInfo: Clone + Debug + PartialEq;
    /// Renders a variable's info for the text format (`None` when the stage has none).
    fn format_info(info: &Self::VarInfo) -> Option<String>;
    /// Parses what `format_info` wrote.
    fn parse_info(text: Option<&str>) -> Result<Self::VarInfo, String>;
}

/// Flow graphs: high-level operations, variables carry nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flow;
/// Annotated graphs: high-level operations, each variable has its annotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Annotated;
/// Low-level graphs: low-level operations, each variable has its low-level type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LowLevel;
/// Low-level graphs whose exceptions are explicit data flow (the output of
/// `exceptiontransform`): no link goes to an except block and no block
/// switches on `Constant::LastException`; a raise sets the global exception
/// state (`exc_set`) and returns, and a caller tests it after each call that
/// can raise (`exc_occurred`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExceptionsExplicit;
/// Graphs whose exceptions and whose collector's needs are both explicit
/// (the output of `gctransform`): every GC pointer live across a collecting
/// operation is saved in the shadow stack and reloaded after it, and every
/// store that may make an old object point to a young one has its write
/// barrier. This is what GenC takes, so that it cannot be given graphs
/// whose roots the collector would not find.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GcExplicit;

/// The stages whose variables carry low-level types, which the
/// LLInterpreter runs.
pub trait LowLevelStage: Stage<VarInfo = LowLevelType> {}
impl LowLevelStage for LowLevel {}
impl LowLevelStage for ExceptionsExplicit {}
impl LowLevelStage for GcExplicit {}

impl Stage for Flow {
    const NAME: &'static str = "flow";
    type VarInfo = ();
    fn format_info(_: &()) -> Option<String> {
        None
    }
    fn parse_info(text: Option<&str>) -> Result<(), String> {
        match text {
            None => Ok(()),
            Some(t) => Err(format!("flow graphs carry no variable info, found ': {t}'")),
        }
    }
}

impl Stage for Annotated {
    const NAME: &'static str = "annotate";
    type VarInfo = SomeValue;
    fn format_info(info: &SomeValue) -> Option<String> {
        Some(info.to_string())
    }
    fn parse_info(text: Option<&str>) -> Result<SomeValue, String> {
        let text = text.ok_or("annotated variables need ': SomeXxx'")?;
        SomeValue::parse(text)
    }
}

impl Stage for LowLevel {
    const NAME: &'static str = "rtype";
    type VarInfo = LowLevelType;
    fn format_info(info: &LowLevelType) -> Option<String> {
        Some(info.to_string())
    }
    fn parse_info(text: Option<&str>) -> Result<LowLevelType, String> {
        let text = text.ok_or("low-level variables need ': Type'")?;
        LowLevelType::parse(text)
    }
}

impl Stage for ExceptionsExplicit {
    const NAME: &'static str = "exceptiontransform";
    type VarInfo = LowLevelType;
    fn format_info(info: &LowLevelType) -> Option<String> {
        LowLevel::format_info(info)
    }
    fn parse_info(text: Option<&str>) -> Result<LowLevelType, String> {
        LowLevel::parse_info(text)
    }
}

impl Stage for GcExplicit {
    const NAME: &'static str = "gctransform";
    type VarInfo = LowLevelType;
    fn format_info(info: &LowLevelType) -> Option<String> {
        LowLevel::format_info(info)
    }
    fn parse_info(text: Option<&str>) -> Result<LowLevelType, String> {
        LowLevel::parse_info(text)
    }
}

/// A variable of one graph: an index into `FunctionGraph::vars`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(pub u32);

/// A block of one graph: an index into `FunctionGraph::blocks`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// The bytes of a string constant. A `Constant::Str` (and an AST string
/// literal) holds an RPython str, whose items are bytes, as the chars of
/// the same codes (each below 256): byte 0xe9 is the char U+00E9, which
/// is two bytes in the Rust `String`'s UTF-8. Whatever needs the str's
/// bytes (its length, its items, its hash, the executable's copy) reads
/// them with this, never with `as_bytes()`.
pub fn str_bytes(s: &str) -> Vec<u8> {
    s.chars()
        .map(|c| {
            debug_assert!((c as u32) < 256, "a str holds bytes, not {c:?}");
            c as u32 as u8
        })
        .collect()
}

/// The string constant of these bytes (see `str_bytes`).
pub fn str_of_bytes(b: &[u8]) -> String {
    b.iter().map(|&b| b as char).collect()
}

/// The text CPython 3 writes for a Python 3 program's str `b` (whose items
/// are the chars of codes below 256) on a UTF-8 stream: each char's UTF-8.
pub fn utf8_of_chars(b: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if b.is_ascii() {
        return std::borrow::Cow::Borrowed(b);
    }
    std::borrow::Cow::Owned(str_of_bytes(b).into_bytes())
}

/// The byte of a one-item string constant (a char), if it has one item.
pub fn single_byte(s: &str) -> Option<u8> {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if (c as u32) < 256 => Some(c as u32 as u8),
        _ => None,
    }
}

/// A value known when the graph is built.
#[derive(Clone, Debug)]
pub enum Constant {
    Int(i64),
    /// An unsigned machine word (rlib's `r_uint`), low-level `Unsigned`.
    UInt(u64),
    Float(f64),
    Bool(bool),
    /// A one-character string known to be a char (low-level `Char`).
    Char(u8),
    /// A str: its bytes as chars below 256 (`str_bytes`, `str_of_bytes`).
    Str(String),
    None,
    /// A function of the program, by its graph name.
    Func(String),
    /// A builtin function (`len`, `str`, `int`, ...) or an operation of the runtime.
    Builtin(String),
    /// A field or type name used as an argument of a low-level operation.
    Name(String),
    /// A class, by name: builtin classes by their Python name (`ValueError`,
    /// `object`), the program's classes by their qualified name
    /// (`__main__.Node`, `module.Node`), whose definition is a
    /// `PrebuiltObject::Class` of the program.
    Class(String),
    /// The exitswitch of a block whose last operation's exceptions are caught
    /// (see the module doc); never an operation argument.
    LastException,
    /// An object built at import time (a list, dict, tuple or instance), by
    /// its index in `Program::prebuilt`: what a function sees when it reads a
    /// module global holding one.
    Prebuilt(u32),
}

impl PartialEq for Constant {
    fn eq(&self, other: &Constant) -> bool {
        use Constant::*;
        match (self, other) {
            (Int(a), Int(b)) => a == b,
            (UInt(a), UInt(b)) => a == b,
            // Bitwise: two NaN constants of one pattern are the same constant.
            (Float(a), Float(b)) => a.to_bits() == b.to_bits(),
            (Bool(a), Bool(b)) => a == b,
            (Char(a), Char(b)) => a == b,
            (Str(a), Str(b)) => a == b,
            (None, None) => true,
            (Func(a), Func(b))
            | (Builtin(a), Builtin(b))
            | (Name(a), Name(b))
            | (Class(a), Class(b)) => a == b,
            (LastException, LastException) => true,
            (Prebuilt(a), Prebuilt(b)) => a == b,
            _ => false,
        }
    }
}

/// An operation argument or link argument: a variable or a constant.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Var(Var),
    Const(Constant),
}

impl Arg {
    pub fn as_var(&self) -> Option<Var> {
        match self {
            Arg::Var(v) => Some(*v),
            Arg::Const(_) => None,
        }
    }
    pub fn as_const(&self) -> Option<&Constant> {
        match self {
            Arg::Const(c) => Some(c),
            Arg::Var(_) => None,
        }
    }
}

impl From<Var> for Arg {
    fn from(v: Var) -> Arg {
        Arg::Var(v)
    }
}

impl From<Constant> for Arg {
    fn from(c: Constant) -> Arg {
        Arg::Const(c)
    }
}

/// One operation: `result = opname(args...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct SpaceOperation {
    pub opname: Opcode,
    pub args: Vec<Arg>,
    pub result: Var,
    /// Where in the source this operation came from (for diagnostics).
    pub pos: Option<Pos>,
}

impl SpaceOperation {
    /// Is this a JitDriver's `jit_merge_point` (a `jit_marker` naming it)?
    pub fn is_jit_merge_point(&self) -> bool {
        self.opname == Opcode::JitMarker
            && matches!(self.args.first(), Some(Arg::Const(Constant::Name(k))) if k == "jit_merge_point")
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub args: Vec<Arg>,
    pub target: BlockId,
    /// The value of the source block's exitswitch that selects this link; `None`
    /// for the only exit of a block without exitswitch, and for the normal exit
    /// of a block switching on `Constant::LastException`.
    pub exitcase: Option<Constant>,
    /// On an exception exit: a variable this link defines holding the caught
    /// exception's class, which `args` may pass on.
    pub last_exception: Option<Var>,
    /// On an exception exit: a variable this link defines holding the caught
    /// exception instance.
    pub last_exc_value: Option<Var>,
}

impl Link {
    /// A link that defines no variables of its own (any but an exception exit).
    pub fn new(args: Vec<Arg>, target: BlockId, exitcase: Option<Constant>) -> Link {
        Link {
            args,
            target,
            exitcase,
            last_exception: None,
            last_exc_value: None,
        }
    }

    /// The variables this link defines (those of an exception exit).
    pub fn defined_vars(&self) -> impl Iterator<Item = Var> {
        self.last_exception.into_iter().chain(self.last_exc_value)
    }
}

impl Block {
    /// Whether the block's last operation's exceptions go to its exits.
    pub fn catches_exceptions(&self) -> bool {
        matches!(self.exitswitch, Some(Arg::Const(Constant::LastException)))
    }
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Block {
    pub inputargs: Vec<Var>,
    pub operations: Vec<SpaceOperation>,
    pub exitswitch: Option<Arg>,
    pub exits: Vec<Link>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct VarData<S: Stage> {
    /// The source-level name this variable holds, if any (kept for readability).
    pub name: Option<String>,
    pub info: S::VarInfo,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FunctionGraph<S: Stage> {
    pub name: String,
    /// The source file and position of the `def`.
    pub pos: Option<Pos>,
    pub blocks: Vec<Block>,
    pub vars: Vec<VarData<S>>,
    pub startblock: BlockId,
    pub returnblock: BlockId,
    pub exceptblock: BlockId,
    /// What the program's decorators said about the function (`elidable`,
    /// `specialize.argtype(0)`, ...), for the stages that act on them.
    pub hints: Vec<String>,
}

impl<S: LowLevelStage> FunctionGraph<S> {
    /// The graph's type as a function pointer: its parameters' types and
    /// its result's.
    pub fn func_sig(&self) -> crate::lltype::FuncSig {
        crate::lltype::FuncSig {
            params: self
                .params()
                .iter()
                .map(|v| self.info(*v).clone())
                .collect(),
            result: self.info(self.block(self.returnblock).inputargs[0]).clone(),
        }
    }
}

impl<S: Stage> FunctionGraph<S> {
    /// The constants the graph uses as values: its operations' and links'
    /// constant arguments, except the callee a `direct_call` names (a
    /// function named anywhere else may be called indirectly).
    pub fn constant_values(&self) -> impl Iterator<Item = &Constant> {
        self.blocks.iter().flat_map(|b| {
            let op_args = b.operations.iter().flat_map(|op| {
                let callee = usize::from(op.opname == Opcode::DirectCall);
                op.args.iter().skip(callee)
            });
            let link_args = b.exits.iter().flat_map(|l| l.args.iter());
            op_args.chain(link_args).filter_map(Arg::as_const)
        })
    }

    /// A new graph with a start block taking `nparams` arguments, a return block
    /// and an except block, each variable carrying `info`.
    pub fn new(name: impl Into<String>, params: &[&str], info: S::VarInfo) -> Self {
        let mut g = FunctionGraph {
            name: name.into(),
            pos: None,
            blocks: Vec::new(),
            vars: Vec::new(),
            startblock: BlockId(0),
            returnblock: BlockId(1),
            exceptblock: BlockId(2),
            hints: Vec::new(),
        };
        let start_args = params
            .iter()
            .map(|p| g.new_var(Some(p.to_string()), info.clone()))
            .collect();
        g.startblock = g.add_block(start_args);
        let rv = g.new_var(None, info.clone());
        g.returnblock = g.add_block(vec![rv]);
        let etype = g.new_var(None, info.clone());
        let evalue = g.new_var(None, info);
        g.exceptblock = g.add_block(vec![etype, evalue]);
        g
    }

    pub fn new_var(&mut self, name: Option<String>, info: S::VarInfo) -> Var {
        self.vars.push(VarData { name, info });
        Var(self.vars.len() as u32 - 1)
    }

    pub fn add_block(&mut self, inputargs: Vec<Var>) -> BlockId {
        self.blocks.push(Block {
            inputargs,
            ..Block::default()
        });
        BlockId(self.blocks.len() as u32 - 1)
    }

    pub fn block(&self, b: BlockId) -> &Block {
        &self.blocks[b.0 as usize]
    }

    pub fn block_mut(&mut self, b: BlockId) -> &mut Block {
        &mut self.blocks[b.0 as usize]
    }

    pub fn info(&self, v: Var) -> &S::VarInfo {
        &self.vars[v.0 as usize].info
    }

    pub fn params(&self) -> &[Var] {
        &self.block(self.startblock).inputargs
    }

    /// The blocks reachable from the start block, in reverse postorder: the
    /// order the text format prints them in.
    pub fn reverse_postorder(&self) -> Vec<BlockId> {
        let n = self.blocks.len();
        let mut visited = vec![false; n];
        let mut post = Vec::with_capacity(n);
        // Iterative DFS: (block, next exit index to visit).
        let mut stack = vec![(self.startblock, 0usize)];
        visited[self.startblock.0 as usize] = true;
        while let Some((b, i)) = stack.pop() {
            let exits = &self.block(b).exits;
            if i < exits.len() {
                stack.push((b, i + 1));
                let t = exits[i].target;
                if !visited[t.0 as usize] {
                    visited[t.0 as usize] = true;
                    stack.push((t, 0));
                }
            } else {
                post.push(b);
            }
        }
        post.reverse();
        post
    }

    /// What is wrong with the graph's links: a link passing a number of
    /// values other than its target's input arguments, a return block
    /// without exactly one input argument or an except block without
    /// exactly two (the exception transform and GenC rely on both). Empty
    /// when the graph is well formed; passes check it in debug builds.
    pub fn link_shape_errors(&self) -> Vec<String> {
        let mut errors = Vec::new();
        let ends = [
            (self.returnblock, "return", 1),
            (self.exceptblock, "except", 2),
        ];
        for (b, what, n) in ends {
            let got = self.block(b).inputargs.len();
            if got != n {
                errors.push(format!(
                    "{}: the {what} block has {got} input arguments, not {n}",
                    self.name
                ));
            }
        }
        for b in self.reverse_postorder() {
            for (i, l) in self.block(b).exits.iter().enumerate() {
                let want = self.block(l.target).inputargs.len();
                if l.args.len() != want {
                    errors.push(format!(
                        "{}: block{} exit {i} passes {} values to block{}, which takes {want}",
                        self.name,
                        b.0,
                        l.args.len(),
                        l.target.0
                    ));
                }
            }
        }
        errors
    }

    /// The links into each block (by source block and exit index).
    pub fn predecessors(&self) -> Vec<Vec<(BlockId, usize)>> {
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for (i, b) in self.blocks.iter().enumerate() {
            for (j, l) in b.exits.iter().enumerate() {
                preds[l.target.0 as usize].push((BlockId(i as u32), j));
            }
        }
        preds
    }

    /// Whether [`Self::canonicalize`] would give this graph back unchanged:
    /// the blocks already in its order, every variable used and numbered in
    /// order of appearance. A walk with no copy, so that a pass (`simplify`)
    /// can skip rebuilding the many graphs it did not change.
    pub fn is_canonical(&self) -> bool {
        let n = self.blocks.len();
        if n < 2
            || self.returnblock.0 as usize != n - 2
            || self.exceptblock.0 as usize != n - 1
            || self.startblock.0 != 0
        {
            return false;
        }
        let mut i = 0;
        for b in self.reverse_postorder() {
            if b == self.returnblock || b == self.exceptblock {
                continue;
            }
            if b.0 as usize != i {
                return false;
            }
            i += 1;
        }
        if i != n - 2 {
            return false;
        }
        // Variables: the first appearance of each, in canonicalize's walk,
        // must be the next number.
        let mut seen = vec![false; self.vars.len()];
        let mut next = 0usize;
        let mut var = |v: Var| -> bool {
            let k = v.0 as usize;
            if seen[k] {
                return true;
            }
            seen[k] = true;
            next += 1;
            k == next - 1
        };
        for block in &self.blocks {
            for v in &block.inputargs {
                if !var(*v) {
                    return false;
                }
            }
            for op in &block.operations {
                for a in &op.args {
                    if let Arg::Var(v) = a {
                        if !var(*v) {
                            return false;
                        }
                    }
                }
                if !var(op.result) {
                    return false;
                }
            }
            if let Some(Arg::Var(v)) = &block.exitswitch {
                if !var(*v) {
                    return false;
                }
            }
            for l in &block.exits {
                for v in [l.last_exception, l.last_exc_value].into_iter().flatten() {
                    if !var(v) {
                        return false;
                    }
                }
                for a in &l.args {
                    if let Arg::Var(v) = a {
                        if !var(*v) {
                            return false;
                        }
                    }
                }
            }
        }
        next == self.vars.len()
    }

    /// Makes this graph what [`Self::canonicalize`] gives, in place: the
    /// blocks and variables are moved, not copied (nothing at all when it
    /// is canonical already).
    pub fn make_canonical(&mut self) {
        if self.is_canonical() {
            return;
        }
        let order = self.canonical_order();
        let mut block_map = vec![BlockId(u32::MAX); self.blocks.len()];
        for (i, b) in order.iter().enumerate() {
            block_map[b.0 as usize] = BlockId(i as u32);
        }
        let mut old_blocks: Vec<Option<Block>> = std::mem::take(&mut self.blocks)
            .into_iter()
            .map(Some)
            .collect();
        let mut old_vars: Vec<Option<VarData<S>>> = std::mem::take(&mut self.vars)
            .into_iter()
            .map(Some)
            .collect();
        let mut map: Vec<Option<Var>> = vec![None; old_vars.len()];
        let mut vars: Vec<VarData<S>> = Vec::new();
        let mut var = |v: &mut Var| {
            let k = v.0 as usize;
            *v = match map[k] {
                Some(n) => n,
                None => {
                    vars.push(old_vars[k].take().expect("a variable is numbered once"));
                    let n = Var(vars.len() as u32 - 1);
                    map[k] = Some(n);
                    n
                }
            };
        };
        let mut blocks = Vec::with_capacity(order.len());
        for b in &order {
            let mut blk = old_blocks[b.0 as usize]
                .take()
                .expect("a block comes once in the order");
            blk.inputargs.iter_mut().for_each(&mut var);
            for op in &mut blk.operations {
                for a in &mut op.args {
                    if let Arg::Var(v) = a {
                        var(v);
                    }
                }
                var(&mut op.result);
            }
            if let Some(Arg::Var(v)) = &mut blk.exitswitch {
                var(v);
            }
            for l in &mut blk.exits {
                // The link's own variables come before the arguments that read them.
                if let Some(v) = &mut l.last_exception {
                    var(v);
                }
                if let Some(v) = &mut l.last_exc_value {
                    var(v);
                }
                for a in &mut l.args {
                    if let Arg::Var(v) = a {
                        var(v);
                    }
                }
                l.target = block_map[l.target.0 as usize];
            }
            blocks.push(blk);
        }
        self.blocks = blocks;
        self.vars = vars;
        self.startblock = block_map[self.startblock.0 as usize];
        self.returnblock = block_map[self.returnblock.0 as usize];
        self.exceptblock = block_map[self.exceptblock.0 as usize];
    }

    /// The blocks in [`Self::canonicalize`]'s order: reachable ones in
    /// reverse postorder, then the return and except blocks.
    fn canonical_order(&self) -> Vec<BlockId> {
        let mut order = self.reverse_postorder();
        // Return and except blocks go last, in that order, as the text format has them.
        order.retain(|b| *b != self.returnblock && *b != self.exceptblock);
        order.push(self.returnblock);
        order.push(self.exceptblock);
        order
    }

    /// Rebuilds the graph with only the blocks reachable from the start block
    /// (plus the return and except blocks) and only the variables they use,
    /// numbered in order of appearance. Printing is deterministic either way;
    /// this makes the in-memory graph equal to what parsing its text gives.
    pub fn canonicalize(&self) -> Self {
        let order = self.canonical_order();
        let block_map: BTreeMap<BlockId, BlockId> = order
            .iter()
            .enumerate()
            .map(|(i, b)| (*b, BlockId(i as u32)))
            .collect();
        let mut r = Renumber {
            old: &self.vars,
            map: vec![None; self.vars.len()],
            vars: Vec::new(),
        };
        let mut blocks = Vec::new();
        for b in &order {
            let old = self.block(*b);
            let inputargs = old.inputargs.iter().map(|v| r.var(*v)).collect();
            let operations = old
                .operations
                .iter()
                .map(|op| {
                    let args = op.args.iter().map(|a| r.arg(a)).collect();
                    SpaceOperation {
                        opname: op.opname,
                        args,
                        result: r.var(op.result),
                        pos: op.pos,
                    }
                })
                .collect();
            let exitswitch = old.exitswitch.as_ref().map(|a| r.arg(a));
            let exits = old
                .exits
                .iter()
                .map(|l| {
                    // The link's own variables come before the arguments that read them.
                    let last_exception = l.last_exception.map(|v| r.var(v));
                    let last_exc_value = l.last_exc_value.map(|v| r.var(v));
                    Link {
                        args: l.args.iter().map(|a| r.arg(a)).collect(),
                        target: block_map[&l.target],
                        exitcase: l.exitcase.clone(),
                        last_exception,
                        last_exc_value,
                    }
                })
                .collect();
            blocks.push(Block {
                inputargs,
                operations,
                exitswitch,
                exits,
            });
        }
        let vars = r.vars;
        FunctionGraph {
            name: self.name.clone(),
            pos: self.pos,
            blocks,
            vars,
            startblock: block_map[&self.startblock],
            returnblock: block_map[&self.returnblock],
            exceptblock: block_map[&self.exceptblock],
            hints: self.hints.clone(),
        }
    }

    /// Turns this graph into one of another stage, giving each variable the info
    /// `f` computes from its old info.
    pub fn map_stage<T: Stage>(
        self,
        mut f: impl FnMut(Var, &S::VarInfo) -> T::VarInfo,
    ) -> FunctionGraph<T> {
        // The names move; only the infos are made anew.
        let vars = self
            .vars
            .into_iter()
            .enumerate()
            .map(|(i, d)| VarData {
                info: f(Var(i as u32), &d.info),
                name: d.name,
            })
            .collect();
        FunctionGraph {
            name: self.name,
            pos: self.pos,
            blocks: self.blocks,
            vars,
            startblock: self.startblock,
            returnblock: self.returnblock,
            exceptblock: self.exceptblock,
            hints: self.hints,
        }
    }
}

impl<S: Stage> FunctionGraph<S> {
    /// A copy of this graph in another stage, each variable's info what
    /// `f` computes from its info here: `clone().map_stage(f)` without
    /// copying the infos it replaces (the rtyper reads every annotated
    /// graph this way, and an annotation may hold long sets of names).
    pub fn map_stage_ref<T: Stage>(
        &self,
        mut f: impl FnMut(Var, &S::VarInfo) -> T::VarInfo,
    ) -> FunctionGraph<T> {
        let vars = self
            .vars
            .iter()
            .enumerate()
            .map(|(i, d)| VarData {
                info: f(Var(i as u32), &d.info),
                name: d.name.clone(),
            })
            .collect();
        FunctionGraph {
            name: self.name.clone(),
            pos: self.pos,
            blocks: self.blocks.clone(),
            vars,
            startblock: self.startblock,
            returnblock: self.returnblock,
            exceptblock: self.exceptblock,
            hints: self.hints.clone(),
        }
    }
}

/// Numbers variables in order of first appearance.
struct Renumber<'a, S: Stage> {
    old: &'a [VarData<S>],
    /// The new number of each old variable, indexed by the old number (a
    /// map keyed by variable was most of the time `canonicalize` took).
    map: Vec<Option<Var>>,
    vars: Vec<VarData<S>>,
}

impl<S: Stage> Renumber<'_, S> {
    fn var(&mut self, v: Var) -> Var {
        if let Some(n) = self.map[v.0 as usize] {
            return n;
        }
        self.vars.push(self.old[v.0 as usize].clone());
        let n = Var(self.vars.len() as u32 - 1);
        self.map[v.0 as usize] = Some(n);
        n
    }
    fn arg(&mut self, a: &Arg) -> Arg {
        match a {
            Arg::Var(v) => Arg::Var(self.var(*v)),
            Arg::Const(c) => Arg::Const(c.clone()),
        }
    }
}

/// A whole program at one stage: its graphs, the entry point, and (from rtype
/// on) the named container types its pointers refer to.
#[derive(Clone, Debug, PartialEq)]
pub struct Program<S: Stage> {
    /// The source file the program was read from, for diagnostics.
    pub path: String,
    /// Every file the program was read from: the file of each position
    /// (`Pos::file`) of its graphs. Not part of the text form.
    pub sources: crate::diag::SourceMap,
    /// The graphs, in the order the translation discovered them.
    pub graphs: Vec<FunctionGraph<S>>,
    /// The name of the entry point's graph.
    pub entry: String,
    /// Named container types (`GcStruct`, `GcArray`) referred to by `Ptr(name)`.
    pub types: crate::lltype::TypeTable,
    /// The objects built at import time that the graphs refer to
    /// (`Constant::Prebuilt(i)` is `prebuilt[i]`).
    pub prebuilt: Vec<PrebuiltObject>,
    /// What the annotator learned that the graphs do not say (empty before
    /// annotation): what the rtyper lays objects out from. Not part of the
    /// text form.
    pub facts: crate::annotation::ProgramFacts,
}

impl PrebuiltObject {
    /// The fields and items of a low-level static (a struct or an array);
    /// nothing for a high-level object.
    pub fn static_items(&self) -> impl Iterator<Item = &Constant> {
        let (fields, items): (&[(String, Constant)], &[Constant]) = match self {
            PrebuiltObject::Struct { fields, items, .. } => (fields, items),
            PrebuiltObject::Array { items, .. } => (&[], items),
            _ => (&[], &[]),
        };
        fields.iter().map(|(_, c)| c).chain(items)
    }
}

/// An object built while the program was imported, as the translation
/// starts from it. Its items are constants, so objects may refer to each
/// other (and to themselves) by `Constant::Prebuilt`.
#[derive(Clone, Debug, PartialEq)]
pub enum PrebuiltObject {
    List(Vec<Constant>),
    Tuple(Vec<Constant>),
    /// Key and value pairs, in insertion order.
    Dict(Vec<(Constant, Constant)>),
    /// An instance of a class of the program: the class and the attributes
    /// the instance holds, by name.
    Instance {
        class: String,
        attrs: Vec<(String, Constant)>,
    },
    /// A class of the program, as it was after import: its qualified name
    /// (`module.Name`, what `Constant::Class` and `Instance::class` name
    /// it by), its bases' names in order and its class attributes (methods
    /// are `Constant::Func`). Its bases come before it in the table.
    Class {
        name: String,
        bases: Vec<String>,
        attrs: Vec<(String, Constant)>,
    },
    /// A static low-level struct of type `ty` (a low-level program's
    /// prebuilt instances, vtables, tuples, list and dict headers): its
    /// fields by name, in the type's order (Void fields left out), and, for
    /// a varsized struct, its items. A field or item is a primitive
    /// constant, `Str` (a prebuilt string), `None` (null), `Func` (a
    /// function pointer) or `Prebuilt` (a pointer to another static, whose
    /// type may be a subclass part of the field's).
    Struct {
        ty: String,
        fields: Vec<(String, Constant)>,
        items: Vec<Constant>,
    },
    /// A static low-level array of type `ty` (a `GcArray`) with these items.
    Array {
        ty: String,
        items: Vec<Constant>,
    },
}

impl PrebuiltObject {
    /// For a vtable static: its class's subclass id range
    /// (`subclassrange_min..subclassrange_max`), what an exception handler
    /// naming it catches.
    pub fn subclass_range(&self) -> Option<(i64, i64)> {
        let PrebuiltObject::Struct { fields, .. } = self else {
            return None;
        };
        let get = |name: &str| {
            fields.iter().find_map(|(f, c)| match c {
                Constant::Int(n) if f == name => Some(*n),
                _ => None,
            })
        };
        Some((
            get(crate::lltype::SUBCLASSRANGE_MIN)?,
            get(crate::lltype::SUBCLASSRANGE_MAX)?,
        ))
    }
}

/// What a prebuilt `JitDriver` declares: its green and red variables by
/// name (no reds when they are 'auto') and its hook functions by name.
#[derive(Clone, Debug, PartialEq)]
pub struct JitDriverDecl {
    pub greens: Vec<String>,
    pub reds: Vec<String>,
    pub autoreds: bool,
    /// The functions the JIT calls with the greens (`get_printable_location`
    /// and the like), by attribute name and graph name.
    pub green_hooks: Vec<(String, String)>,
}

/// The hooks of a JitDriver that the JIT calls with the green variables.
pub const JITDRIVER_GREEN_HOOKS: &[&str] = &[
    "get_printable_location",
    "get_location",
    "get_unique_id",
    "should_unroll_one_iteration",
];

impl JitDriverDecl {
    /// The declaration of prebuilt object `i` of `objects`, if it is a
    /// `JitDriver`.
    pub fn of(objects: &[PrebuiltObject], i: u32) -> Option<JitDriverDecl> {
        let PrebuiltObject::Instance { class, attrs } = objects.get(i as usize)? else {
            return None;
        };
        if class != "JitDriver" {
            return None;
        }
        let attr = |name: &str| attrs.iter().find(|(a, _)| a == name).map(|(_, c)| c);
        let names = |name: &str| -> Vec<String> {
            let Some(Constant::Prebuilt(l)) = attr(name) else {
                return Vec::new();
            };
            match objects.get(*l as usize) {
                Some(PrebuiltObject::List(items)) => items
                    .iter()
                    .filter_map(|c| match c {
                        Constant::Str(s) => Some(s.clone()),
                        Constant::Char(c) => Some(char::from(*c).to_string()),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            }
        };
        let green_hooks = JITDRIVER_GREEN_HOOKS
            .iter()
            .filter_map(|hook| match attr(hook) {
                Some(Constant::Func(f)) => Some((hook.to_string(), f.clone())),
                _ => None,
            })
            .collect();
        Some(JitDriverDecl {
            greens: names("greens"),
            reds: names("reds"),
            autoreds: attr("reds") == Some(&Constant::Str("auto".into())),
            green_hooks,
        })
    }
}

impl<S: Stage> Program<S> {
    /// This program with its graphs turned by `f` into another stage's
    /// (`f` gets the program's path and sources too, for diagnostics); the
    /// rest is kept as it is. The error `f` gives, if any.
    pub fn try_with_graphs<T: Stage, E>(
        self,
        f: impl FnOnce(
            Vec<FunctionGraph<S>>,
            &str,
            &crate::diag::SourceMap,
        ) -> Result<Vec<FunctionGraph<T>>, E>,
    ) -> Result<Program<T>, E> {
        let Program {
            path,
            sources,
            graphs,
            entry,
            types,
            prebuilt,
            facts,
        } = self;
        let graphs = f(graphs, &path, &sources)?;
        Ok(Program {
            path,
            sources,
            graphs,
            entry,
            types,
            prebuilt,
            facts,
        })
    }

    /// A diagnostic at `pos`: in its file, showing its source line; a
    /// program made without its sources (from the text form) names its
    /// `path`.
    pub fn diagnostic(&self, pos: Pos, message: impl Into<String>) -> crate::diag::Diagnostic {
        self.sources.diagnostic_or(&self.path, pos, message)
    }

    /// Each graph's name with its index in `graphs`, collected into a map.
    pub fn graph_positions<'a, C: FromIterator<(&'a str, usize)>>(&'a self) -> C {
        self.graphs
            .iter()
            .enumerate()
            .map(|(i, g)| (g.name.as_str(), i))
            .collect()
    }

    /// The graphs whose address is a value somewhere (an operation or link
    /// argument other than a `direct_call`'s callee, a field or item of a
    /// static): the possible targets of an `indirect_call`. Borrowed: most
    /// functions are named many times, and every user only asks whether a
    /// graph is in the set.
    pub fn address_taken(&self) -> fxhash::FxHashSet<&str> {
        self.graphs
            .iter()
            .flat_map(FunctionGraph::constant_values)
            .chain(self.prebuilt.iter().flat_map(PrebuiltObject::static_items))
            .filter_map(|c| match c {
                Constant::Func(f) => Some(f.as_str()),
                _ => None,
            })
            .collect()
    }

    pub fn graph(&self, name: &str) -> Option<&FunctionGraph<S>> {
        self.graphs.iter().find(|g| g.name == name)
    }
    pub fn graph_mut(&mut self, name: &str) -> Option<&mut FunctionGraph<S>> {
        self.graphs.iter_mut().find(|g| g.name == name)
    }
}

/// The hint of a graph the collector calls after a collection, the
/// program's GC hook for one event: `gc_hook minor`, `gc_hook
/// collect_step` or `gc_hook collect` (see `flow::gc_hooks` in passes).
pub const GC_HOOK_HINT_PREFIX: &str = "gc_hook ";

/// The hint of a `__del__` graph, once per instance struct whose objects
/// it finalizes: `destructor inst_Handle`. The rtyper adds it; GenC puts
/// the graph's function in those types' entries of the collector's table.
pub const DESTRUCTOR_HINT_PREFIX: &str = "destructor ";

/// The types a graph is the destructor of, from its hints.
pub fn destructor_types<S: Stage>(g: &FunctionGraph<S>) -> impl Iterator<Item = &str> {
    g.hints
        .iter()
        .filter_map(|h| h.strip_prefix(DESTRUCTOR_HINT_PREFIX))
}

/// The collector event a graph is the GC hook of, from its hints.
pub fn gc_hook_event<S: Stage>(g: &FunctionGraph<S>) -> Option<&str> {
    g.hints
        .iter()
        .find_map(|h| h.strip_prefix(GC_HOOK_HINT_PREFIX))
}

/// Whether the collector calls the graph (a destructor or a GC hook): a
/// root of the program besides the entry point.
pub fn called_by_collector<S: Stage>(g: &FunctionGraph<S>) -> bool {
    destructor_types(g).next().is_some() || gc_hook_event(g).is_some()
}

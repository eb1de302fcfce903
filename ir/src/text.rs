//! The text format of every graph stage: a deterministic printer and the parser
//! that reads its output back.
//!
//! A graph prints in its canonical form (`FunctionGraph::canonicalize`): blocks
//! in reverse postorder, variables numbered in order of first appearance. The
//! return and except blocks are not printed as blocks; links to them read
//! `-> return(..)` and `-> except(..)`, and their input arguments are listed on
//! the `returns` and `raises` lines at the end of the graph.
//!
//! ```text
//! graph fib(n_0) {
//!   block0(n_0: SomeInteger(nonneg=false)):
//!     v1: SomeBool = lt(n_0, 2)
//!     switch v1
//!       False -> block1(n_0)
//!       True -> return(1)
//!   block1(n_2: SomeInteger(nonneg=false)):
//!     v3: SomeInteger(nonneg=false) = sub(n_2, 1)
//!     -> return(v3)
//!   returns v4: SomeInteger(nonneg=false)
//!   raises v5: SomeObject, v6: SomeObject
//! }
//! ```
//!
//! One statement per line; blank lines are ignored.
//!
//! - `graph NAME(PARAMS) {` ... `}`: the parameters are the start block's input
//!   arguments; the first block printed is the start block.
//! - `LABEL(VARS):` or `LABEL:` starts a block. The printer names blocks
//!   `block<N>`; the parser takes any identifier but `return` and `except`.
//! - `VAR = OPNAME(ARGS)`: an operation. Opnames that are not identifiers are
//!   quoted like strings.
//! - `switch ARG`: the block's exitswitch, followed by its links.
//! - `[CASE] [catch(V1, V2)] -> TARGET(ARGS)`: a link, with its exit case (a
//!   constant) if it has one; an exception exit lists the variables it defines
//!   (the exception's class and value, `_` for one it does not define) in
//!   `catch(..)`. A block catching its last operation's exceptions reads
//!   `switch last_exception`.
//! - `returns VARS` / `raises VARS`: the return and except blocks' input
//!   arguments. The parser makes fresh variables when a line is missing (which
//!   only works for stages whose variables carry no info).
//!
//! Variables print as `v<N>`, or `<name>_<N>` when they hold a source name (names
//! that are not identifiers are not printed). The parser keys variables by their
//! whole token, so hand-written text may number them freely; parsing
//! canonicalizes. A variable's info (`: SomeXxx`, `: Signed`) is printed at its
//! first appearance in the text, which for a well-formed graph is its definition
//! (a block input argument or an operation result), and only in stages whose
//! `Stage::format_info` gives one. Info text is read up to the first `,`, `)` or
//! `=` outside parentheses.
//!
//! Constants: `42`, `-7`; floats as Rust's `{:?}` prints them (`1.0`, `1e-7`,
//! `inf`, `-inf`), `nan` for the canonical NaN and `nan(0x<bits>)` for any other;
//! `True`, `False`, `None`; strings `"a\"b\\c\x0a"` (printable ASCII as is,
//! everything else `\xHH`, or `\u{H..}` above 0xff); chars `c"x"`; functions
//! `@name`, builtins `$name`, names `#name`, classes `%Name` (quoted, as in `@"a b"`, when not made
//! of letters, digits, `_` and `.`).
//!
//! Prebuilt objects are `&N` (the index in `Program::prebuilt`).
//!
//! A program prints its type table (`type NAME = CONTAINER`), its prebuilt
//! objects (`prebuilt &N = [..]`, `(..)`, `{k: v, ..}`, `Class {attr: v, ..}`
//! for an instance, or `%Class(%Base, ..) {attr: v, ..}` for a class),
//! then `entry NAME`, then each graph. A graph's hints follow its parameters
//! as a list of strings: `graph f(x_0) ["elidable"] {`. Positions (`pos`) and `Program::path` are not printed.

use crate::graph::{
    Arg, Block, BlockId, Constant, FunctionGraph, Link, PrebuiltObject, Program, SpaceOperation,
    Stage, Var, VarData,
};
use crate::lltype::{parse_container, TypeTable};
use crate::opcode::Opcode;
use std::collections::HashMap;
use std::fmt::{self, Write};

/// A parse error: where (line and column, from 1, columns in characters) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for TextError {}

// ---------------------------------------------------------------------------
// Printing

/// Prints one graph in its canonical form.
pub fn print_graph<S: Stage>(g: &FunctionGraph<S>) -> String {
    let mut out = String::new();
    write_graph(&mut out, g);
    out
}

/// Prints a program: its type table, its entry point, then each graph in order.
pub fn print_program<S: Stage>(p: &Program<S>) -> String {
    let mut out = String::new();
    for (name, t) in &p.types {
        out.push_str("type ");
        push_name(&mut out, name);
        let _ = writeln!(out, " = {t}");
    }
    for (i, obj) in p.prebuilt.iter().enumerate() {
        let _ = write!(out, "prebuilt &{i} = ");
        push_prebuilt(&mut out, obj);
        out.push('\n');
    }
    out.push_str("entry ");
    push_name(&mut out, &p.entry);
    out.push('\n');
    for g in &p.graphs {
        out.push('\n');
        write_graph(&mut out, g);
    }
    out
}

/// Clears every source position of a graph (the text format does not keep them).
pub fn strip_positions<S: Stage>(g: &mut FunctionGraph<S>) {
    g.pos = None;
    for b in &mut g.blocks {
        for op in &mut b.operations {
            op.pos = None;
        }
    }
}

struct Printer<'a, S: Stage> {
    g: &'a FunctionGraph<S>,
    out: &'a mut String,
    /// The canonical number of each variable and block (as `canonicalize` would
    /// renumber them; `u32::MAX` for those it would drop).
    var_no: Vec<u32>,
    block_no: Vec<u32>,
    /// Variables already printed (their info, if any, went with the first).
    seen: Vec<bool>,
}

impl<S: Stage> Printer<'_, S> {
    fn var_name(&mut self, v: Var) {
        push_var_name(self.out, self.g, &self.var_no, v);
    }

    fn var(&mut self, v: Var) {
        self.var_name(v);
        let i = v.0 as usize;
        if i < self.seen.len() && !self.seen[i] {
            self.seen[i] = true;
            if let Some(info) = S::format_info(&self.g.vars[i].info) {
                self.out.push_str(": ");
                self.out.push_str(&info);
            }
        }
    }

    /// A link's own variable, or `_` when it does not define it.
    fn optional_var(&mut self, v: Option<Var>) {
        match v {
            Some(v) => self.var(v),
            None => self.out.push('_'),
        }
    }

    fn arg(&mut self, a: &Arg) {
        match a {
            Arg::Var(v) => self.var(*v),
            Arg::Const(c) => push_const(self.out, c),
        }
    }

    fn args(&mut self, args: &[Arg]) {
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.arg(a);
        }
    }

    fn vars(&mut self, vars: &[Var]) {
        for (i, v) in vars.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.var(*v);
        }
    }

    fn label(&mut self, b: BlockId) {
        if b == self.g.returnblock {
            self.out.push_str("return");
        } else if b == self.g.exceptblock {
            self.out.push_str("except");
        } else {
            let n = self.block_no.get(b.0 as usize).copied().unwrap_or(u32::MAX);
            let _ = write!(self.out, "block{}", if n == u32::MAX { b.0 } else { n });
        }
    }

    fn block(&mut self, id: BlockId, b: &Block) {
        self.out.push_str("  ");
        self.label(id);
        if !b.inputargs.is_empty() {
            self.out.push('(');
            self.vars(&b.inputargs);
            self.out.push(')');
        }
        self.out.push_str(":\n");
        for op in &b.operations {
            self.out.push_str("    ");
            self.var(op.result);
            self.out.push_str(" = ");
            let name = op.opname.name();
            if is_ident(name) {
                self.out.push_str(name);
            } else {
                push_quoted(self.out, name);
            }
            self.out.push('(');
            self.args(&op.args);
            self.out.push_str(")\n");
        }
        let link_indent = match &b.exitswitch {
            Some(sw) => {
                self.out.push_str("    switch ");
                self.arg(sw);
                self.out.push('\n');
                "      "
            }
            None => "    ",
        };
        for l in &b.exits {
            self.out.push_str(link_indent);
            if let Some(c) = &l.exitcase {
                push_const(self.out, c);
                self.out.push(' ');
            }
            if l.last_exception.is_some() || l.last_exc_value.is_some() {
                self.out.push_str("catch(");
                self.optional_var(l.last_exception);
                self.out.push_str(", ");
                self.optional_var(l.last_exc_value);
                self.out.push_str(") ");
            }
            self.out.push_str("-> ");
            self.label(l.target);
            self.out.push('(');
            self.args(&l.args);
            self.out.push_str(")\n");
        }
    }
}

/// A variable's printed name: its source name (when it has one) and `_`,
/// or `v`, then its canonical number.
fn push_var_name<S: Stage>(out: &mut String, g: &FunctionGraph<S>, var_no: &[u32], v: Var) {
    let i = v.0 as usize;
    match g
        .vars
        .get(i)
        .and_then(|d| d.name.as_deref())
        .filter(|n| is_ident(n))
    {
        Some(n) => {
            out.push_str(n);
            out.push('_');
        }
        None => out.push('v'),
    }
    let n = var_no.get(i).copied().unwrap_or(u32::MAX);
    let _ = write!(out, "{}", if n == u32::MAX { v.0 } else { n });
}

/// The names the text form gives a graph's blocks and variables, for
/// other views of the same graph (`rpy show --format dot|html`), so that
/// they and the text agree.
pub struct CanonicalNames {
    /// The blocks in printing order: reverse postorder, then the return
    /// and except blocks.
    pub order: Vec<BlockId>,
    /// Per block index: `block3`, `return`, `except`.
    pub blocks: Vec<String>,
    /// Per variable index: `n_0`, `v7`.
    pub vars: Vec<String>,
}

impl CanonicalNames {
    pub fn of<S: Stage>(g: &FunctionGraph<S>) -> CanonicalNames {
        let (order, block_no, var_no) = canonical_numbering(g);
        let blocks = (0..g.blocks.len())
            .map(|i| {
                let id = BlockId(i as u32);
                if id == g.returnblock {
                    "return".to_string()
                } else if id == g.exceptblock {
                    "except".to_string()
                } else {
                    match block_no[i] {
                        u32::MAX => format!("block{i}"),
                        n => format!("block{n}"),
                    }
                }
            })
            .collect();
        let vars = (0..g.vars.len())
            .map(|i| {
                let mut name = String::new();
                push_var_name(&mut name, g, &var_no, Var(i as u32));
                name
            })
            .collect();
        CanonicalNames {
            order,
            blocks,
            vars,
        }
    }
}

/// A constant as the text form prints it (`42`, `"s"`, `@f`, `%ValueError`).
pub fn constant_text(c: &Constant) -> String {
    let mut out = String::new();
    push_const(&mut out, c);
    out
}

/// The blocks in the order `canonicalize` puts them (reverse postorder, then the
/// return and except blocks), and the canonical number of each variable and block.
fn canonical_numbering<S: Stage>(g: &FunctionGraph<S>) -> (Vec<BlockId>, Vec<u32>, Vec<u32>) {
    let mut order = g.reverse_postorder();
    order.retain(|b| *b != g.returnblock && *b != g.exceptblock);
    order.push(g.returnblock);
    order.push(g.exceptblock);
    let mut block_no = vec![u32::MAX; g.blocks.len()];
    for (i, b) in order.iter().enumerate() {
        if let Some(n) = block_no.get_mut(b.0 as usize) {
            *n = i as u32;
        }
    }
    let mut var_no = vec![u32::MAX; g.vars.len()];
    let mut next = 0u32;
    let mut number = |v: &Var| {
        if let Some(n) = var_no.get_mut(v.0 as usize) {
            if *n == u32::MAX {
                *n = next;
                next += 1;
            }
        }
    };
    for b in &order {
        let Some(b) = g.blocks.get(b.0 as usize) else {
            continue;
        };
        b.inputargs.iter().for_each(&mut number);
        for op in &b.operations {
            op.args
                .iter()
                .filter_map(Arg::as_var)
                .for_each(|v| number(&v));
            number(&op.result);
        }
        if let Some(Arg::Var(v)) = &b.exitswitch {
            number(v);
        }
        for l in &b.exits {
            l.defined_vars().for_each(|v| number(&v));
            l.args
                .iter()
                .filter_map(Arg::as_var)
                .for_each(|v| number(&v));
        }
    }
    (order, block_no, var_no)
}

/// Prints a graph in its canonical form (without building it).
fn write_graph<S: Stage>(out: &mut String, g: &FunctionGraph<S>) {
    let (order, block_no, var_no) = canonical_numbering(g);
    let mut p = Printer {
        g,
        out,
        var_no,
        block_no,
        seen: vec![false; g.vars.len()],
    };
    p.out.push_str("graph ");
    push_name(p.out, &g.name);
    p.out.push('(');
    if let Some(start) = g.blocks.get(g.startblock.0 as usize) {
        for (i, v) in start.inputargs.iter().enumerate() {
            if i > 0 {
                p.out.push_str(", ");
            }
            p.var_name(*v);
        }
    }
    p.out.push(')');
    if !g.hints.is_empty() {
        p.out.push_str(" [");
        for (k, h) in g.hints.iter().enumerate() {
            if k > 0 {
                p.out.push_str(", ");
            }
            push_quoted(p.out, h);
        }
        p.out.push(']');
    }
    p.out.push_str(" {\n");
    for id in &order {
        if *id != g.returnblock && *id != g.exceptblock {
            if let Some(b) = g.blocks.get(id.0 as usize) {
                p.block(*id, b);
            }
        }
    }
    for (kw, id) in [("returns", g.returnblock), ("raises", g.exceptblock)] {
        p.out.push_str("  ");
        p.out.push_str(kw);
        if let Some(b) = g.blocks.get(id.0 as usize) {
            if !b.inputargs.is_empty() {
                p.out.push(' ');
                p.vars(&b.inputargs);
            }
        }
        p.out.push('\n');
    }
    p.out.push_str("}\n");
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// A graph, type, function or builtin name: bare when made of name characters,
/// quoted otherwise.
fn push_name(out: &mut String, name: &str) {
    if !name.is_empty() && name.chars().all(is_name_char) {
        out.push_str(name);
    } else {
        push_quoted(out, name);
    }
}

fn push_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        push_escaped(out, c);
    }
    out.push('"');
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        ' '..='~' => out.push(c),
        _ if (c as u32) < 0x100 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        _ => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

fn push_const(out: &mut String, c: &Constant) {
    match c {
        Constant::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Constant::UInt(u) => {
            let _ = write!(out, "{u}u");
        }
        Constant::Float(f) => push_float(out, *f),
        Constant::Bool(true) => out.push_str("True"),
        Constant::Bool(false) => out.push_str("False"),
        Constant::Char(b) => {
            out.push_str("c\"");
            push_escaped(out, char::from(*b));
            out.push('"');
        }
        Constant::Str(s) => push_quoted(out, s),
        Constant::None => out.push_str("None"),
        Constant::Func(n) => {
            out.push('@');
            push_name(out, n);
        }
        Constant::Builtin(n) => {
            out.push('$');
            push_name(out, n);
        }
        Constant::Name(n) => {
            out.push('#');
            push_name(out, n);
        }
        Constant::Class(n) => {
            out.push('%');
            push_name(out, n);
        }
        Constant::LastException => out.push_str("last_exception"),
        Constant::Prebuilt(i) => {
            let _ = write!(out, "&{i}");
        }
    }
}

/// ` {name: value, ..}`: the attributes of a prebuilt instance or class.
fn push_attrs(out: &mut String, attrs: &[(String, Constant)]) {
    out.push_str(" {");
    for (k, (name, value)) in attrs.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        push_name(out, name);
        out.push_str(": ");
        push_const(out, value);
    }
    out.push('}');
}

fn push_prebuilt(out: &mut String, obj: &PrebuiltObject) {
    let items = |out: &mut String, items: &[Constant]| {
        for (k, c) in items.iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            push_const(out, c);
        }
    };
    match obj {
        PrebuiltObject::List(xs) => {
            out.push('[');
            items(out, xs);
            out.push(']');
        }
        PrebuiltObject::Tuple(xs) => {
            out.push('(');
            items(out, xs);
            out.push(')');
        }
        PrebuiltObject::Dict(pairs) => {
            out.push('{');
            for (k, (key, value)) in pairs.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                push_const(out, key);
                out.push_str(": ");
                push_const(out, value);
            }
            out.push('}');
        }
        PrebuiltObject::Instance { class, attrs } => {
            push_name(out, class);
            push_attrs(out, attrs);
        }
        PrebuiltObject::Class { name, bases, attrs } => {
            out.push('%');
            push_name(out, name);
            out.push('(');
            for (k, base) in bases.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                out.push('%');
                push_name(out, base);
            }
            out.push(')');
            push_attrs(out, attrs);
        }
        PrebuiltObject::Struct {
            ty,
            fields,
            items: its,
        } => {
            out.push_str("struct<");
            push_name(out, ty);
            out.push('>');
            push_attrs(out, fields);
            if !its.is_empty() {
                out.push_str(" [");
                items(out, its);
                out.push(']');
            }
        }
        PrebuiltObject::Array { ty, items: its } => {
            out.push_str("array<");
            push_name(out, ty);
            out.push_str("> [");
            items(out, its);
            out.push(']');
        }
    }
}

fn push_float(out: &mut String, f: f64) {
    if f.is_nan() {
        if f.to_bits() == f64::NAN.to_bits() {
            out.push_str("nan");
        } else {
            let _ = write!(out, "nan(0x{:016x})", f.to_bits());
        }
    } else {
        // Shortest form that reads back exactly; always has '.' or 'e' (or is inf).
        let _ = write!(out, "{f:?}");
    }
}

// ---------------------------------------------------------------------------
// Parsing

/// Parses one graph as `print_graph` writes it. The result is canonical.
pub fn parse_graph<S: Stage>(text: &str) -> Result<FunctionGraph<S>, TextError> {
    let mut p = Lines::new(text);
    let Some(line) = p.next_line() else {
        return Err(p.eof_error("expected 'graph', found end of text"));
    };
    let g = parse_graph_from(&mut p, line)?;
    if let Some(mut l) = p.next_line() {
        l.skip_ws();
        return Err(l.error(l.pos, "unexpected text after the graph"));
    }
    Ok(g)
}

/// Parses a program as `print_program` writes it. Its `path` is empty.
pub fn parse_program<S: Stage>(text: &str) -> Result<Program<S>, TextError> {
    let mut p = Lines::new(text);
    let mut types = TypeTable::new();
    let mut entry: Option<String> = None;
    let mut graphs = Vec::new();
    let mut prebuilt = Vec::new();
    while let Some(mut l) = p.next_line() {
        l.skip_ws();
        let start = l.pos;
        match l.ident().map(|(_, w)| w) {
            Some("type") => {
                let name_pos = l.skip_ws_pos();
                let name = l.name("a type name")?;
                l.expect("=")?;
                let body_pos = l.skip_ws_pos();
                let body = &l.text[body_pos..];
                let t = parse_container(body).map_err(|m| l.error(body_pos, m))?;
                if types.insert(name.clone(), t).is_some() {
                    return Err(l.error(name_pos, format!("type '{name}' is defined twice")));
                }
            }
            Some("prebuilt") => {
                let at = l.skip_ws_pos();
                if l.constant()? != Constant::Prebuilt(prebuilt.len() as u32) {
                    return Err(l.error(
                        at,
                        format!(
                            "expected '&{}': prebuilt objects are numbered in order from 0",
                            prebuilt.len()
                        ),
                    ));
                }
                l.expect("=")?;
                prebuilt.push(l.prebuilt_object()?);
                l.end()?;
            }
            Some("entry") => {
                if entry.is_some() {
                    return Err(l.error(start, "a second 'entry' line"));
                }
                entry = Some(l.name("the entry point's name")?);
                l.end()?;
            }
            Some("graph") => {
                l.pos = start;
                graphs.push(parse_graph_from(&mut p, l)?);
            }
            _ => {
                return Err(l.error(
                    start,
                    format!(
                        "expected 'type', 'prebuilt', 'entry' or 'graph', found {}",
                        l.found_at(start)
                    ),
                ))
            }
        }
    }
    let Some(entry) = entry else {
        return Err(p.eof_error("the program has no 'entry NAME' line"));
    };
    Ok(Program {
        path: String::new(),
        sources: Default::default(),
        graphs,
        entry,
        types,
        facts: Default::default(),
        prebuilt,
    })
}

/// The non-blank lines of a text, with their numbers.
struct Lines<'a> {
    lines: Vec<&'a str>,
    next: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines {
            lines: text.lines().collect(),
            next: 0,
        }
    }

    fn next_line(&mut self) -> Option<Line<'a>> {
        while self.next < self.lines.len() {
            let text = self.lines[self.next];
            self.next += 1;
            if !text.trim().is_empty() {
                return Some(Line {
                    text,
                    pos: 0,
                    no: self.next as u32,
                });
            }
        }
        None
    }

    fn eof_error(&self, message: impl Into<String>) -> TextError {
        match self.lines.last() {
            Some(last) => TextError {
                line: self.lines.len() as u32,
                col: last.chars().count() as u32 + 1,
                message: message.into(),
            },
            None => TextError {
                line: 1,
                col: 1,
                message: message.into(),
            },
        }
    }
}

/// A cursor in one line. `pos` is a byte offset, always on a char boundary.
struct Line<'a> {
    text: &'a str,
    pos: usize,
    no: u32,
}

/// What an argument position holds: a variable token or a constant.
enum Operand<'a> {
    Var(&'a str),
    Const(Constant),
}

const MAX_INFO_NESTING: i32 = 64;

impl<'a> Line<'a> {
    fn error(&self, at: usize, message: impl Into<String>) -> TextError {
        let at = at.min(self.text.len());
        let col = self.text.get(..at).map_or(at, |t| t.chars().count()) as u32 + 1;
        TextError {
            line: self.no,
            col,
            message: message.into(),
        }
    }

    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        let trimmed = rest.trim_start_matches([' ', '\t']);
        self.pos += rest.len() - trimmed.len();
    }

    fn skip_ws_pos(&mut self) -> usize {
        self.skip_ws();
        self.pos
    }

    /// The next character after whitespace.
    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.rest().chars().next()
    }

    /// The character right at the cursor (no whitespace skipped).
    fn peek_raw(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn found_at(&self, at: usize) -> String {
        match self.text.get(at..).and_then(|t| t.chars().next()) {
            Some(c) => format!("'{}'", c.escape_debug()),
            None => "end of line".to_string(),
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &str) -> Result<(), TextError> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.error(
                self.pos,
                format!("expected '{s}', found {}", self.found_at(self.pos)),
            ))
        }
    }

    fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    fn end(&mut self) -> Result<(), TextError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error(
                self.pos,
                format!("expected end of line, found {}", self.found_at(self.pos)),
            ))
        }
    }

    /// An identifier `[A-Za-z_][A-Za-z0-9_]*`, with its start.
    fn ident(&mut self) -> Option<(usize, &'a str)> {
        self.skip_ws();
        let rest = self.rest();
        let first = rest.chars().next()?;
        if !(first.is_ascii_alphabetic() || first == '_') {
            return None;
        }
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let start = self.pos;
        self.pos += len;
        Some((start, &rest[..len]))
    }

    /// A name as `push_name` writes it: name characters, or a quoted string.
    fn name(&mut self, what: &str) -> Result<String, TextError> {
        self.skip_ws();
        if self.peek_raw() == Some('"') {
            return self.string_lit();
        }
        let rest = self.rest();
        let len = rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len());
        if len == 0 {
            return Err(self.error(
                self.pos,
                format!("expected {what}, found {}", self.found_at(self.pos)),
            ));
        }
        self.pos += len;
        Ok(rest[..len].to_string())
    }

    /// A double-quoted string; the cursor is on the opening quote.
    fn string_lit(&mut self) -> Result<String, TextError> {
        let start = self.pos;
        self.pos += 1;
        let mut s = String::new();
        loop {
            let Some(c) = self.peek_raw() else {
                return Err(self.error(start, "unterminated string"));
            };
            let at = self.pos;
            self.pos += c.len_utf8();
            match c {
                '"' => return Ok(s),
                '\\' => {
                    let Some(e) = self.peek_raw() else {
                        return Err(self.error(start, "unterminated string"));
                    };
                    self.pos += e.len_utf8();
                    match e {
                        '"' | '\\' => s.push(e),
                        'n' => s.push('\n'),
                        't' => s.push('\t'),
                        'r' => s.push('\r'),
                        '0' => s.push('\0'),
                        'x' => {
                            let hex = self.rest().get(..2).unwrap_or("");
                            if hex.len() != 2 || !hex.chars().all(|h| h.is_ascii_hexdigit()) {
                                return Err(self.error(at, "'\\x' needs two hex digits"));
                            }
                            let b = u8::from_str_radix(hex, 16)
                                .map_err(|_| self.error(at, "'\\x' needs two hex digits"))?;
                            self.pos += 2;
                            s.push(char::from(b));
                        }
                        'u' => {
                            let rest = self.rest();
                            let digits = rest
                                .strip_prefix('{')
                                .and_then(|r| r.split_once('}'))
                                .map(|(d, _)| d)
                                .filter(|d| {
                                    !d.is_empty()
                                        && d.len() <= 6
                                        && d.chars().all(|h| h.is_ascii_hexdigit())
                                });
                            let c = digits
                                .and_then(|d| u32::from_str_radix(d, 16).ok())
                                .and_then(char::from_u32);
                            match (digits, c) {
                                (Some(d), Some(c)) => {
                                    self.pos += d.len() + 2;
                                    s.push(c);
                                }
                                _ => {
                                    return Err(self
                                        .error(at, "'\\u' needs a character code as '\\u{HEX}'"))
                                }
                            }
                        }
                        _ => {
                            return Err(
                                self.error(at, format!("unknown escape '\\{}'", e.escape_debug()))
                            )
                        }
                    }
                }
                _ => s.push(c),
            }
        }
    }

    /// A number: an int, a float (with '.' or an exponent), `inf` or `-inf`.
    fn number(&mut self) -> Result<Constant, TextError> {
        let start = self.pos;
        let bytes = self.text.as_bytes();
        let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
        let digits_from = |mut i: usize| {
            while at(i).is_ascii_digit() {
                i += 1;
            }
            i
        };
        let mut i = start;
        let negative = at(i) == b'-';
        if negative {
            i += 1;
        }
        if self.text[i..].starts_with("inf") && !is_ident_byte(at(i + 3)) {
            self.pos = i + 3;
            let inf = if negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            };
            return Ok(Constant::Float(inf));
        }
        let int_end = digits_from(i);
        if int_end == i {
            return Err(self.error(
                start,
                format!("expected a number, found {}", self.found_at(start)),
            ));
        }
        i = int_end;
        let mut is_float = false;
        if at(i) == b'.' {
            is_float = true;
            i = digits_from(i + 1);
        }
        if at(i) == b'e' || at(i) == b'E' {
            let mut j = i + 1;
            if at(j) == b'+' || at(j) == b'-' {
                j += 1;
            }
            let exp_end = digits_from(j);
            if exp_end == j {
                return Err(self.error(start, "malformed number: the exponent has no digits"));
            }
            is_float = true;
            i = exp_end;
        }
        // An unsigned word is written with a `u` suffix: `5u`.
        if !is_float && !negative && at(i) == b'u' && !is_ident_byte(at(i + 1)) {
            let text = &self.text[start..i];
            self.pos = i + 1;
            return text.parse::<u64>().map(Constant::UInt).map_err(|_| {
                self.error(start, format!("unsigned '{text}u' does not fit in 64 bits"))
            });
        }
        if is_ident_byte(at(i)) || at(i) == b'.' {
            return Err(self.error(start, "malformed number"));
        }
        let text = &self.text[start..i];
        self.pos = i;
        if is_float {
            text.parse::<f64>()
                .map(Constant::Float)
                .map_err(|_| self.error(start, format!("malformed float '{text}'")))
        } else {
            text.parse::<i64>()
                .map(Constant::Int)
                .map_err(|_| self.error(start, format!("integer '{text}' does not fit in 64 bits")))
        }
    }

    /// A variable token or a constant, with its start.
    fn operand(&mut self) -> Result<(usize, Operand<'a>), TextError> {
        self.skip_ws();
        let start = self.pos;
        let c = match self.peek_raw() {
            Some(c) => c,
            None => {
                return Err(self.error(
                    start,
                    "expected a variable or a constant, found end of line",
                ))
            }
        };
        let constant = match c {
            '"' => Constant::Str(self.string_lit()?),
            '@' | '$' | '#' | '%' => {
                self.pos += 1;
                let name = self.name("a name")?;
                match c {
                    '@' => Constant::Func(name),
                    '$' => Constant::Builtin(name),
                    '%' => Constant::Class(name),
                    _ => Constant::Name(name),
                }
            }
            '-' | '0'..='9' => self.number()?,
            '&' => {
                self.pos += 1;
                let index = match self.peek_raw() {
                    Some('0'..='9') => self.number()?,
                    _ => Constant::None,
                };
                match index {
                    Constant::Int(i) if (0..=i64::from(u32::MAX)).contains(&i) => {
                        Constant::Prebuilt(i as u32)
                    }
                    _ => {
                        return Err(self.error(
                            start,
                            "a prebuilt object is '&' and its index, a number from 0",
                        ))
                    }
                }
            }
            _ => match self.ident() {
                Some((_, "True")) => Constant::Bool(true),
                Some((_, "False")) => Constant::Bool(false),
                Some((_, "None")) => Constant::None,
                Some((_, "last_exception")) => Constant::LastException,
                Some((_, "inf")) => Constant::Float(f64::INFINITY),
                Some((_, "nan")) => self.nan_bits(start)?,
                Some((_, "c")) if self.peek_raw() == Some('"') => {
                    let s = self.string_lit()?;
                    let mut chars = s.chars();
                    match (chars.next(), chars.next()) {
                        (Some(ch), None) if (ch as u32) < 0x100 => Constant::Char(ch as u8),
                        _ => {
                            return Err(self.error(
                                start,
                                "a char constant holds exactly one character below 0x100",
                            ))
                        }
                    }
                }
                Some((_, tok)) => return Ok((start, Operand::Var(tok))),
                None => {
                    return Err(self.error(
                        start,
                        format!(
                            "expected a variable or a constant, found {}",
                            self.found_at(start)
                        ),
                    ))
                }
            },
        };
        Ok((start, Operand::Const(constant)))
    }

    /// After `nan`: the canonical NaN, or `(0x<bits>)` for another NaN.
    fn nan_bits(&mut self, start: usize) -> Result<Constant, TextError> {
        if self.peek_raw() != Some('(') {
            return Ok(Constant::Float(f64::NAN));
        }
        let rest = self.rest();
        let bits = rest
            .strip_prefix("(0x")
            .and_then(|r| r.split_once(')'))
            .map(|(h, _)| h)
            .filter(|h| !h.is_empty() && h.len() <= 16 && h.chars().all(|c| c.is_ascii_hexdigit()))
            .and_then(|h| u64::from_str_radix(h, 16).ok().map(|b| (h.len(), b)));
        match bits {
            Some((len, b)) if f64::from_bits(b).is_nan() => {
                self.pos += len + 4;
                Ok(Constant::Float(f64::from_bits(b)))
            }
            _ => Err(self.error(
                start,
                "expected 'nan' or 'nan(0x<bits>)' with the bits of a NaN",
            )),
        }
    }

    /// Constants separated by commas up to `close` (which is consumed).
    fn constants_until(&mut self, close: &str) -> Result<Vec<Constant>, TextError> {
        let mut out = Vec::new();
        if self.eat(close) {
            return Ok(out);
        }
        loop {
            out.push(self.constant()?);
            if self.eat(close) {
                return Ok(out);
            }
            self.expect(",")?;
        }
    }

    /// The rest of `%Name(%Base, ..) {attr: v, ..}`, after the `%`.
    fn prebuilt_class(&mut self) -> Result<PrebuiltObject, TextError> {
        let name = self.name("a class name")?;
        self.expect("(")?;
        let mut bases = Vec::new();
        if !self.eat(")") {
            loop {
                self.expect("%")?;
                bases.push(self.name("a base class name")?);
                if self.eat(")") {
                    break;
                }
                self.expect(",")?;
            }
        }
        self.expect("{")?;
        let attrs = self.named_constants("an attribute name")?;
        Ok(PrebuiltObject::Class { name, bases, attrs })
    }

    /// The rest of `{name: c, ..}`, after the `{`; `what` says what a
    /// name is, for errors.
    fn named_constants(&mut self, what: &str) -> Result<Vec<(String, Constant)>, TextError> {
        let mut out = Vec::new();
        if self.eat("}") {
            return Ok(out);
        }
        loop {
            let name = self.name(what)?;
            self.expect(":")?;
            out.push((name, self.constant()?));
            if self.eat("}") {
                return Ok(out);
            }
            self.expect(",")?;
        }
    }

    /// `[..]`, `(..)`, `{k: v, ..}`, `Class {attr: v, ..}` or
    /// `%Class(%Base, ..) {attr: v, ..}`.
    fn prebuilt_object(&mut self) -> Result<PrebuiltObject, TextError> {
        if self.eat("[") {
            return Ok(PrebuiltObject::List(self.constants_until("]")?));
        }
        if self.eat("(") {
            return Ok(PrebuiltObject::Tuple(self.constants_until(")")?));
        }
        if self.eat("%") {
            return self.prebuilt_class();
        }
        if self.eat("struct<") {
            let ty = self.name("a struct type name")?;
            self.expect(">")?;
            self.expect("{")?;
            let fields = self.named_constants("a field name")?;
            let items = if self.eat("[") {
                self.constants_until("]")?
            } else {
                Vec::new()
            };
            return Ok(PrebuiltObject::Struct { ty, fields, items });
        }
        if self.eat("array<") {
            let ty = self.name("an array type name")?;
            self.expect(">")?;
            self.expect("[")?;
            let items = self.constants_until("]")?;
            return Ok(PrebuiltObject::Array { ty, items });
        }
        if self.eat("{") {
            let mut pairs = Vec::new();
            if !self.eat("}") {
                loop {
                    let key = self.constant()?;
                    self.expect(":")?;
                    pairs.push((key, self.constant()?));
                    if self.eat("}") {
                        break;
                    }
                    self.expect(",")?;
                }
            }
            return Ok(PrebuiltObject::Dict(pairs));
        }
        let class = self.name("a list, tuple, dict or class name")?;
        self.expect("{")?;
        let attrs = self.named_constants("an attribute name")?;
        Ok(PrebuiltObject::Instance { class, attrs })
    }

    /// A constant (an exit case).
    fn constant(&mut self) -> Result<Constant, TextError> {
        match self.operand()? {
            (_, Operand::Const(c)) => Ok(c),
            (start, Operand::Var(tok)) => {
                Err(self.error(start, format!("expected a constant, found '{tok}'")))
            }
        }
    }

    /// The info text after `:`: up to the first `,`, `)` or `=` outside brackets.
    fn info_text(&mut self) -> Result<(usize, &'a str), TextError> {
        self.skip_ws();
        let start = self.pos;
        let bytes = self.text.as_bytes();
        let mut depth = 0i32;
        let mut i = start;
        while i < bytes.len() {
            match bytes[i] {
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    if depth > MAX_INFO_NESTING {
                        return Err(self.error(i, "variable info nested too deeply"));
                    }
                }
                b')' | b']' | b'}' => {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
                b',' | b'=' if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
        if depth != 0 {
            return Err(self.error(start, "unbalanced brackets in variable info"));
        }
        // `i` stopped on an ASCII byte or at the end: a char boundary.
        self.pos = i;
        let text = self.text[start..i].trim_end();
        if text.is_empty() {
            return Err(self.error(start, "expected variable info after ':'"));
        }
        Ok((start, text))
    }
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The source name a variable token holds: `v<N>` has none, `<name>_<N>` has
/// `name`; anything else is not a variable.
fn var_token_name(tok: &str) -> Option<Option<String>> {
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if tok.strip_prefix('v').is_some_and(all_digits) {
        return Some(None);
    }
    let (name, num) = tok.rsplit_once('_')?;
    if name.is_empty() || !all_digits(num) {
        return None;
    }
    Some(Some(name.to_string()))
}

/// Where the block being read is in its statements.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Ops,
    Switched,
    Links,
}

struct BlockSlot {
    block: Block,
    label: String,
    defined: bool,
    /// Where it was first named (for "no block named ..." errors).
    first_ref: (u32, u32),
}

struct GraphBuilder<S: Stage> {
    vars: Vec<VarData<S>>,
    var_map: HashMap<String, Var>,
    blocks: Vec<BlockSlot>,
    labels: HashMap<String, BlockId>,
    start: Option<BlockId>,
    current: Option<(BlockId, Phase)>,
    returns: Option<Vec<Var>>,
    raises: Option<Vec<Var>>,
}

const RETURN: BlockId = BlockId(0);
const EXCEPT: BlockId = BlockId(1);

impl<S: Stage> GraphBuilder<S> {
    fn new() -> Self {
        let slot = || BlockSlot {
            block: Block::default(),
            label: String::new(),
            defined: true,
            first_ref: (0, 0),
        };
        GraphBuilder {
            vars: Vec::new(),
            var_map: HashMap::new(),
            blocks: vec![slot(), slot()],
            labels: HashMap::new(),
            start: None,
            current: None,
            returns: None,
            raises: None,
        }
    }

    /// A variable token at `start`, with its info if `:` follows.
    fn var(&mut self, l: &mut Line, start: usize, tok: &str) -> Result<Var, TextError> {
        let Some(name) = var_token_name(tok) else {
            return Err(l.error(
                start,
                format!("'{tok}' is not a variable (variables are 'v<N>' or '<name>_<N>')"),
            ));
        };
        let info = if l.eat(":") {
            Some(l.info_text()?)
        } else {
            None
        };
        if let Some(&v) = self.var_map.get(tok) {
            if let Some((at, _)) = info {
                return Err(l.error(
                    at,
                    format!("'{tok}' already has its info, given where it first appears"),
                ));
            }
            return Ok(v);
        }
        let parsed = S::parse_info(info.map(|(_, t)| t))
            .map_err(|m| l.error(info.map_or(start, |(at, _)| at), m))?;
        let v = Var(self.vars.len() as u32);
        self.vars.push(VarData { name, info: parsed });
        self.var_map.insert(tok.to_string(), v);
        Ok(v)
    }

    fn arg(&mut self, l: &mut Line) -> Result<Arg, TextError> {
        match l.operand()? {
            (start, Operand::Var(tok)) => Ok(Arg::Var(self.var(l, start, tok)?)),
            (_, Operand::Const(c)) => Ok(Arg::Const(c)),
        }
    }

    /// `(ARGS)`, the cursor on the `(`.
    fn arg_list(&mut self, l: &mut Line) -> Result<Vec<Arg>, TextError> {
        l.expect("(")?;
        let mut args = Vec::new();
        if l.eat(")") {
            return Ok(args);
        }
        loop {
            args.push(self.arg(l)?);
            if l.eat(")") {
                return Ok(args);
            }
            l.expect(",")?;
        }
    }

    /// A comma-separated list of variables up to `close` (or the end of line).
    fn var_list(&mut self, l: &mut Line, close: Option<&str>) -> Result<Vec<Var>, TextError> {
        let mut vars = Vec::new();
        let done = |l: &mut Line| match close {
            Some(c) => l.eat(c),
            None => l.at_end(),
        };
        if done(l) {
            return Ok(vars);
        }
        loop {
            match l.operand()? {
                (start, Operand::Var(tok)) => vars.push(self.var(l, start, tok)?),
                (start, Operand::Const(_)) => {
                    return Err(l.error(start, "expected a variable, found a constant"))
                }
            }
            if done(l) {
                return Ok(vars);
            }
            l.expect(",")?;
        }
    }

    fn block_ref(&mut self, l: &Line, at: usize, label: &str) -> BlockId {
        if let Some(&b) = self.labels.get(label) {
            return b;
        }
        let e = l.error(at, "");
        let b = BlockId(self.blocks.len() as u32);
        self.blocks.push(BlockSlot {
            block: Block::default(),
            label: label.to_string(),
            defined: false,
            first_ref: (e.line, e.col),
        });
        self.labels.insert(label.to_string(), b);
        b
    }

    fn current_block(
        &mut self,
        l: &Line,
        at: usize,
        what: &str,
    ) -> Result<(BlockId, Phase), TextError> {
        self.current
            .ok_or_else(|| l.error(at, format!("{what} outside a block")))
    }

    /// One line of a graph body (not the closing `}`).
    fn line(&mut self, l: &mut Line) -> Result<(), TextError> {
        let start = l.skip_ws_pos();
        if l.rest().starts_with("->") {
            return self.link(l, start);
        }
        let Some((_, word)) = l.ident() else {
            return self.link(l, start);
        };
        match word {
            "True" | "False" | "None" | "inf" | "nan" | "last_exception" => {
                l.pos = start;
                self.link(l, start)
            }
            "c" if l.peek_raw() == Some('"') => {
                l.pos = start;
                self.link(l, start)
            }
            "switch" => {
                let (b, phase) = self.current_block(l, start, "'switch'")?;
                if phase != Phase::Ops {
                    return Err(l.error(
                        start,
                        "'switch' must come after the operations and before the links, once",
                    ));
                }
                let sw = self.arg(l)?;
                l.end()?;
                self.blocks[b.0 as usize].block.exitswitch = Some(sw);
                self.current = Some((b, Phase::Switched));
                Ok(())
            }
            "returns" | "raises" => {
                let vars = self.var_list(l, None)?;
                let slot = if word == "returns" {
                    &mut self.returns
                } else {
                    &mut self.raises
                };
                if slot.is_some() {
                    return Err(l.error(start, format!("a second '{word}' line")));
                }
                *slot = Some(vars);
                self.current = None;
                Ok(())
            }
            _ => {
                let after = l.pos;
                match l.peek() {
                    Some('(') => self.block_header(l, start, word),
                    Some(':') => {
                        l.eat(":");
                        let header = l.at_end();
                        l.pos = after;
                        if header {
                            self.block_header(l, start, word)
                        } else {
                            self.operation(l, start, word)
                        }
                    }
                    Some('=') => self.operation(l, start, word),
                    Some('-') if l.rest().starts_with("->") => {
                        Err(l.error(start, format!("expected a constant exit case, found '{word}'")))
                    }
                    _ => Err(l.error(
                        l.pos,
                        format!(
                            "expected ':' or '(' after a block name, or '=' after a variable, found {}",
                            l.found_at(l.pos)
                        ),
                    )),
                }
            }
        }
    }

    /// `LABEL(VARS):` or `LABEL:`; the cursor after the label.
    fn block_header(&mut self, l: &mut Line, start: usize, label: &str) -> Result<(), TextError> {
        if label == "return" || label == "except" {
            return Err(l.error(
                start,
                format!("'{label}' names the {label} block, which is not written as a block"),
            ));
        }
        let b = self.block_ref(l, start, label);
        let slot = &mut self.blocks[b.0 as usize];
        if slot.defined {
            return Err(l.error(start, format!("block '{label}' is defined twice")));
        }
        slot.defined = true;
        let inputargs = if l.eat("(") {
            self.var_list(l, Some(")"))?
        } else {
            Vec::new()
        };
        l.expect(":")?;
        l.end()?;
        self.blocks[b.0 as usize].block.inputargs = inputargs;
        self.start.get_or_insert(b);
        self.current = Some((b, Phase::Ops));
        Ok(())
    }

    /// `VAR[: INFO] = OPNAME(ARGS)`; the cursor after the variable token.
    fn operation(&mut self, l: &mut Line, start: usize, tok: &str) -> Result<(), TextError> {
        let (b, phase) = self.current_block(l, start, "an operation")?;
        if phase != Phase::Ops {
            return Err(l.error(start, "operations must come before the block's exits"));
        }
        let result = self.var(l, start, tok)?;
        l.expect("=")?;
        l.skip_ws();
        let name_at = l.pos;
        let name = if l.peek_raw() == Some('"') {
            l.string_lit()?
        } else {
            match l.ident() {
                Some((_, name)) => name.to_string(),
                None => {
                    return Err(l.error(
                        l.pos,
                        format!("expected an operation name, found {}", l.found_at(l.pos)),
                    ))
                }
            }
        };
        let opname = Opcode::from_name(&name)
            .ok_or_else(|| l.error(name_at, format!("unknown operation '{name}'")))?;
        let args = self.arg_list(l)?;
        l.end()?;
        self.blocks[b.0 as usize]
            .block
            .operations
            .push(SpaceOperation {
                opname,
                args,
                result,
                pos: None,
            });
        Ok(())
    }

    /// `[CASE] -> TARGET(ARGS)`.
    fn link(&mut self, l: &mut Line, start: usize) -> Result<(), TextError> {
        let (b, _) = self.current_block(l, start, "a link")?;
        let exitcase = if l.rest().starts_with("->") {
            None
        } else {
            Some(l.constant()?)
        };
        let (last_exception, last_exc_value) = self.link_defined_vars(l)?;
        l.expect("->")?;
        let target = match l.ident() {
            Some((_, "return")) => RETURN,
            Some((_, "except")) => EXCEPT,
            Some((at, label)) => self.block_ref(l, at, label),
            None => {
                return Err(l.error(
                    l.pos,
                    format!("expected a block name, found {}", l.found_at(l.pos)),
                ))
            }
        };
        let args = if l.peek() == Some('(') {
            self.arg_list(l)?
        } else {
            Vec::new()
        };
        l.end()?;
        self.blocks[b.0 as usize].block.exits.push(Link {
            args,
            target,
            exitcase,
            last_exception,
            last_exc_value,
        });
        self.current = Some((b, Phase::Links));
        Ok(())
    }

    /// An exception exit's `catch(CLASS_VAR, VALUE_VAR)` (either may be `_`),
    /// if present; the cursor before it.
    fn link_defined_vars(&mut self, l: &mut Line) -> Result<(Option<Var>, Option<Var>), TextError> {
        l.skip_ws();
        if !l.rest().starts_with("catch(") {
            return Ok((None, None));
        }
        l.pos += "catch".len();
        l.expect("(")?;
        let first = self.optional_link_var(l)?;
        l.expect(",")?;
        let second = self.optional_link_var(l)?;
        l.expect(")")?;
        Ok((first, second))
    }

    /// `_` or a variable that this link defines.
    fn optional_link_var(&mut self, l: &mut Line) -> Result<Option<Var>, TextError> {
        l.skip_ws();
        let rest = l.rest().as_bytes();
        if rest.first() == Some(&b'_') && !rest.get(1).copied().is_some_and(is_ident_byte) {
            l.pos += 1;
            return Ok(None);
        }
        match l.operand()? {
            (start, Operand::Var(tok)) => Ok(Some(self.var(l, start, tok)?)),
            (start, Operand::Const(_)) => Err(l.error(
                start,
                "expected a variable or '_' in 'catch(..)', found a constant",
            )),
        }
    }

    /// Fresh variables for a missing `returns`/`raises` line.
    fn default_args(&mut self, n: usize, what: &str, close: &Line) -> Result<Vec<Var>, TextError> {
        (0..n)
            .map(|_| {
                let info = S::parse_info(None).map_err(|m| {
                    close.error(close.pos, format!("the graph has no '{what}' line ({m})"))
                })?;
                self.vars.push(VarData { name: None, info });
                Ok(Var(self.vars.len() as u32 - 1))
            })
            .collect()
    }
}

/// Reads `graph NAME(PARAMS) {` from `header`, then the body up to `}`.
fn parse_graph_from<S: Stage>(
    p: &mut Lines,
    mut header: Line,
) -> Result<FunctionGraph<S>, TextError> {
    let header_start = header.skip_ws_pos();
    match header.ident() {
        Some((_, "graph")) => {}
        _ => {
            return Err(header.error(
                header_start,
                format!("expected 'graph', found {}", header.found_at(header_start)),
            ))
        }
    }
    let name = header.name("the graph's name")?;
    header.expect("(")?;
    let params_pos = header.pos;
    let mut params: Vec<&str> = Vec::new();
    if !header.eat(")") {
        loop {
            match header.ident() {
                Some((at, tok)) => {
                    if var_token_name(tok).is_none() {
                        return Err(header.error(at, format!("'{tok}' is not a variable")));
                    }
                    params.push(tok);
                }
                None => {
                    return Err(header.error(
                        header.pos,
                        format!(
                            "expected a parameter, found {}",
                            header.found_at(header.pos)
                        ),
                    ))
                }
            }
            if header.eat(")") {
                break;
            }
            header.expect(",")?;
        }
    }
    let mut hints = Vec::new();
    if header.eat("[") && !header.eat("]") {
        loop {
            header.skip_ws();
            hints.push(header.string_lit()?);
            if header.eat("]") {
                break;
            }
            header.expect(",")?;
        }
    }
    header.expect("{")?;
    header.end()?;

    let mut b = GraphBuilder::<S>::new();
    let close = loop {
        let Some(mut l) = p.next_line() else {
            return Err(p.eof_error(format!("graph '{name}' has no closing '}}'")));
        };
        let at = l.skip_ws_pos();
        if l.eat("}") {
            l.end()?;
            l.pos = at;
            break l;
        }
        b.line(&mut l)?;
    };

    let Some(startblock) = b.start else {
        return Err(header.error(header_start, format!("graph '{name}' has no blocks")));
    };
    if let Some(slot) = b.blocks.iter().find(|s| !s.defined) {
        return Err(TextError {
            line: slot.first_ref.0,
            col: slot.first_ref.1,
            message: format!("no block named '{}'", slot.label),
        });
    }
    let start_args = &b.blocks[startblock.0 as usize].block.inputargs;
    let same = params.len() == start_args.len()
        && params
            .iter()
            .zip(start_args)
            .all(|(tok, v)| b.var_map.get(*tok) == Some(v));
    if !same {
        return Err(header.error(
            params_pos,
            "the graph's parameters differ from its start block's input arguments",
        ));
    }
    let returns = match b.returns.take() {
        Some(v) => v,
        None => b.default_args(1, "returns", &close)?,
    };
    let raises = match b.raises.take() {
        Some(v) => v,
        None => b.default_args(2, "raises", &close)?,
    };
    b.blocks[RETURN.0 as usize].block.inputargs = returns;
    b.blocks[EXCEPT.0 as usize].block.inputargs = raises;
    let g = FunctionGraph {
        name,
        pos: None,
        blocks: b.blocks.into_iter().map(|s| s.block).collect(),
        vars: b.vars,
        startblock,
        returnblock: RETURN,
        exceptblock: EXCEPT,
        hints,
    };
    Ok(g.canonicalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Flow;

    /// A program with two classes of the program (one deriving from the
    /// other and from a builtin) and an instance of one.
    fn program_with_classes() -> Program<Flow> {
        Program {
            path: String::new(),
            sources: Default::default(),
            graphs: Vec::new(),
            entry: "main".into(),
            types: Default::default(),
            facts: Default::default(),
            prebuilt: vec![
                PrebuiltObject::Class {
                    name: "__main__.Node".into(),
                    bases: vec!["object".into()],
                    attrs: vec![
                        ("eval".into(), Constant::Func("Node.eval".into())),
                        ("kind".into(), Constant::Str("node".into())),
                    ],
                },
                PrebuiltObject::Class {
                    name: "ops.Add".into(),
                    bases: vec!["__main__.Node".into(), "ValueError".into()],
                    attrs: vec![],
                },
                PrebuiltObject::Class {
                    name: "a b".into(),
                    bases: vec![],
                    attrs: vec![("default".into(), Constant::Prebuilt(3))],
                },
                PrebuiltObject::Instance {
                    class: "ops.Add".into(),
                    attrs: vec![("left".into(), Constant::Int(1))],
                },
            ],
        }
    }

    #[test]
    fn prebuilt_classes_print_with_their_bases_and_attributes() {
        let text = print_program(&program_with_classes());
        assert_eq!(
            text,
            "prebuilt &0 = %__main__.Node(%object) {eval: @Node.eval, kind: \"node\"}\n\
             prebuilt &1 = %ops.Add(%__main__.Node, %ValueError) {}\n\
             prebuilt &2 = %\"a b\"() {default: &3}\n\
             prebuilt &3 = ops.Add {left: 1}\n\
             entry main\n"
        );
    }

    #[test]
    fn prebuilt_classes_round_trip() {
        let p = program_with_classes();
        let text = print_program(&p);
        let back = parse_program::<Flow>(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back, p);
    }

    #[test]
    fn a_prebuilt_class_base_needs_its_percent_sign() {
        let err = parse_program::<Flow>("prebuilt &0 = %A(B) {}\nentry f\n").unwrap_err();
        assert_eq!((err.line, err.col), (1, 18));
        assert!(err.message.contains("'%'"), "{}", err.message);
    }
}

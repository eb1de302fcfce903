//! Where each annotation came from: for every variable, the contributions
//! that generalized it, each with the operation, link or call that made it.
//!
//! Errors use this to say where two conflicting annotations were made ("an
//! int here (line 3: ...) and a str here (line 5: ...)"), and
//! `rpy show --explain` prints the chain of contributions of a variable.

use rpy_ir::annotation::SomeValue;
use rpy_ir::diag::{FileId, Pos, SourceMap};
use rpy_ir::graph::{Arg, BlockId, Constant, Flow, Program, Var};
use std::collections::BTreeSet;
use std::fmt::Write;

/// What produced one contribution to a variable's annotation.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// The result of operation `index` of `block` (an index, not its name:
    /// an origin is made for every operation flowed, and read rarely).
    Op {
        block: BlockId,
        index: usize,
        pos: Option<Pos>,
    },
    /// A value passed along a link leaving `from` (a variable of `from`, or a
    /// constant); `pos` is where the link leaves (see `link_pos`).
    Link {
        from: BlockId,
        arg: Arg,
        pos: Option<Pos>,
        /// The target block's parameter it goes to; `None` for the return
        /// block (a conflict in a function's result is shown at the `return`).
        param: Option<Var>,
    },
    /// Argument `index` of a call in graph `caller`.
    CallArg {
        caller: usize,
        index: usize,
        arg: Arg,
        pos: Option<Pos>,
    },
    /// The list of command-line arguments the entry point receives.
    Argv,
    /// The arguments the rtyper calls a low-level helper with.
    HelperArgs,
    /// The ints the collector passes a GC hook (`flow::gc_hooks`).
    CollectorArgs,
    /// An exception handler's link: what an `except` clause receives.
    Handler { from: BlockId, pos: Option<Pos> },
}

impl Origin {
    pub fn pos(&self) -> Option<Pos> {
        match self {
            Origin::Op { pos, .. }
            | Origin::Link { pos, .. }
            | Origin::CallArg { pos, .. }
            | Origin::Handler { pos, .. } => *pos,
            Origin::Argv | Origin::HelperArgs | Origin::CollectorArgs => None,
        }
    }
}

/// One generalization of a variable: the value that reached it and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Contribution {
    pub value: SomeValue,
    pub origin: Origin,
}

/// The contributions to every variable of every graph, in the order they
/// were made; or, when not recording them, only which variables received
/// any (what the annotator itself asks: `has_any`). The contributions are
/// only read to explain an error or a variable, and copying every value
/// that reached every variable was about a sixth of annotating a
/// class-heavy program (method sets of hundreds of names, and the memory
/// they fill), so a translation annotates without them and again with
/// them only when it fails (`specialize::with_known_copies`).
#[derive(Clone, Debug, Default)]
pub struct Provenance {
    contributions: Vec<Vec<Vec<Contribution>>>,
    /// When not recording: whether each variable received a value.
    received: Vec<Vec<bool>>,
    recording: bool,
}

/// A variable of one graph.
pub type GraphVar = (usize, Var);

impl Provenance {
    pub fn new(program: &Program<Flow>, recording: bool) -> Provenance {
        let graphs = program.graphs.iter();
        if recording {
            Provenance {
                contributions: graphs.map(|g| vec![Vec::new(); g.vars.len()]).collect(),
                received: Vec::new(),
                recording,
            }
        } else {
            Provenance {
                contributions: Vec::new(),
                received: graphs.map(|g| vec![false; g.vars.len()]).collect(),
                recording,
            }
        }
    }

    pub fn record(&mut self, (g, v): GraphVar, value: &SomeValue, origin: Origin) {
        if !self.recording {
            self.received[g][v.0 as usize] = true;
            return;
        }
        let list = &mut self.contributions[g][v.0 as usize];
        // A reflow that brings the same value by the same way adds nothing.
        if !list.iter().any(|c| c.value == *value && c.origin == origin) {
            list.push(Contribution {
                value: value.clone(),
                origin,
            });
        }
    }

    /// Whether any value reached `(g, v)` (recorded or not).
    pub fn has_any(&self, (g, v): GraphVar) -> bool {
        if self.recording {
            !self.contributions[g][v.0 as usize].is_empty()
        } else {
            self.received[g][v.0 as usize]
        }
    }

    /// The contributions to `(g, v)`; none when not recording.
    pub fn of(&self, (g, v): GraphVar) -> &[Contribution] {
        match self.contributions.get(g) {
            Some(vars) => &vars[v.0 as usize],
            None => &[],
        }
    }

    /// Follows `origin` back through links and calls to the operation, constant
    /// or call that first made a value of `value`'s kind: where a user should
    /// look. Returns the graph and origin found.
    pub fn root(&self, g: usize, origin: &Origin, value: &SomeValue) -> (usize, Origin) {
        let mut current = (g, origin.clone());
        let mut seen = BTreeSet::new();
        loop {
            let (cg, o) = &current;
            let source_var = match o {
                Origin::Link { param: None, .. } => return current,
                Origin::Link {
                    arg: Arg::Var(v), ..
                } => (*cg, *v),
                _ => return current,
            };
            if !seen.insert(source_var) {
                return current;
            }
            // The earliest contribution the value covers: a loop's back edge
            // contributes after the assignment before the loop.
            let next = self
                .of(source_var)
                .iter()
                .find(|c| c.value != SomeValue::Impossible && value.contains(&c.value))
                .or_else(|| self.of(source_var).first());
            match next {
                Some(c) => current = (source_var.0, c.origin.clone()),
                None => return current,
            }
        }
    }
}

/// The source position of `origin` (an origin in graph `g`): for a link,
/// the statement that wrote the constant it passes or the `return` it
/// stands for, when one is found, else where the link leaves its block.
pub fn source_pos(
    program: &Program<Flow>,
    sources: &SourceMap,
    g: usize,
    origin: &Origin,
) -> Option<Pos> {
    let Origin::Link {
        arg, pos, param, ..
    } = origin
    else {
        return origin.pos();
    };
    let graph = &program.graphs[g];
    let name_of = |v: &Var| graph.vars[v.0 as usize].name.as_deref();
    // The lines of the function's operations, in its own file: a statement
    // after the link's position with one of them in between ran in another
    // block (see `statement_pos`).
    let mut op_lines: Vec<u32> = graph
        .blocks
        .iter()
        .flat_map(|b| &b.operations)
        .filter_map(|o| o.pos)
        .filter(|p| graph.pos.is_some_and(|d| d.file == p.file))
        .map(|p| p.line)
        .collect();
    op_lines.sort_unstable();
    op_lines.dedup();
    let at = Near {
        pos: *pos,
        op_lines: &op_lines,
    };
    let found = match (arg, param) {
        // The statement writing the constant, else (a constant written as
        // `2 * 3`, or folded from a global) the nearest assignment to the
        // name: either is nearer the truth than where the link leaves.
        (Arg::Const(c), Some(p)) => constant_pos(sources, graph.pos, &at, name_of(p), c)
            .or_else(|| assignment_pos(sources, graph.pos, &at, name_of(p)?)),
        (Arg::Const(c), None) => constant_pos(sources, graph.pos, &at, None, c),
        (Arg::Var(v), None) => name_of(v).and_then(|n| return_pos(sources, graph.pos, &at, n)),
        (Arg::Var(_), Some(_)) => None,
    };
    found.or(*pos)
}

/// How a position reads in a message: `line 3: x = a + 1`.
pub fn describe_pos(pos: Option<Pos>, sources: &SourceMap) -> String {
    match pos {
        Some(p) if p.line >= 1 => {
            let line = match p.file {
                FileId::MAIN => format!("line {}", p.line),
                file => format!("line {} of {}", p.line, sources.path(file)),
            };
            match sources.line(p) {
                Some(text) => format!("{line}: {}", text.trim()),
                None => line,
            }
        }
        _ => "where the function starts".into(),
    }
}

/// One line saying what `origin` is, for `--explain`.
pub fn describe_origin(
    program: &Program<Flow>,
    g: usize,
    origin: &Origin,
    sources: &SourceMap,
) -> String {
    let graph = &program.graphs[g];
    let var_name = |v: Var| match &graph.vars[v.0 as usize].name {
        Some(n) => format!("'{n}'"),
        None => format!("v{}", v.0),
    };
    match origin {
        Origin::Op { block, index, pos } => {
            let opname = &graph.block(*block).operations[*index].opname;
            format!("the result of {opname} ({})", describe_pos(*pos, sources))
        }
        Origin::Link { from, arg, .. } => {
            let what = match arg {
                Arg::Var(v) => var_name(*v),
                Arg::Const(c) => format!("the constant {c:?}"),
            };
            let pos = source_pos(program, sources, g, origin);
            format!(
                "{what} passed on from block {} ({})",
                from.0,
                describe_pos(pos, sources)
            )
        }
        Origin::CallArg {
            caller, index, pos, ..
        } => format!(
            "argument {} of a call in {}() ({})",
            index + 1,
            program.graphs[*caller].name,
            describe_pos(*pos, sources)
        ),
        Origin::Argv => "the command-line arguments given to the entry point".into(),
        Origin::HelperArgs => "the arguments the rtyper calls the low-level helper with".into(),
        Origin::CollectorArgs => "the ints the collector passes its GC hooks".into(),
        Origin::Handler { from, pos } => format!(
            "the exception caught after block {} ({})",
            from.0,
            describe_pos(*pos, sources)
        ),
    }
}

/// The explanation of one variable: its annotation, then each contribution,
/// and under each one passed on from another variable that variable's
/// explanation, indented (each variable explained once).
pub fn explain_var(
    program: &Program<Flow>,
    provenance: &Provenance,
    annotations: &[Vec<SomeValue>],
    var: GraphVar,
    sources: &SourceMap,
) -> String {
    let mut out = String::new();
    let mut seen = BTreeSet::new();
    explain_into(
        &mut out,
        program,
        provenance,
        annotations,
        var,
        sources,
        0,
        &mut seen,
    );
    out
}

#[allow(clippy::too_many_arguments)]
fn explain_into(
    out: &mut String,
    program: &Program<Flow>,
    provenance: &Provenance,
    annotations: &[Vec<SomeValue>],
    (g, v): GraphVar,
    sources: &SourceMap,
    depth: usize,
    seen: &mut BTreeSet<GraphVar>,
) {
    let indent = "  ".repeat(depth);
    let graph = &program.graphs[g];
    let name = match &graph.vars[v.0 as usize].name {
        Some(n) => n.clone(),
        None => format!("v{}", v.0),
    };
    let _ = writeln!(
        out,
        "{indent}{}:{name} is {}",
        graph.name, annotations[g][v.0 as usize]
    );
    if !seen.insert((g, v)) {
        let _ = writeln!(out, "{indent}  (explained above)");
        return;
    }
    let contributions = provenance.of((g, v));
    if contributions.is_empty() {
        let _ = writeln!(out, "{indent}  (no value ever reaches it)");
    }
    for c in contributions {
        let _ = writeln!(
            out,
            "{indent}  <- {} from {}",
            c.value,
            describe_origin(program, g, &c.origin, sources)
        );
        let next = match &c.origin {
            Origin::Link {
                arg: Arg::Var(src), ..
            } => Some((g, *src)),
            Origin::CallArg {
                caller,
                arg: Arg::Var(src),
                ..
            } => Some((*caller, *src)),
            _ => None,
        };
        if let Some(next) = next {
            explain_into(
                out,
                program,
                provenance,
                annotations,
                next,
                sources,
                depth + 2,
                seen,
            );
        }
    }
}

/// Where a link leaves its block (the position of its last operation), and
/// the lines of every operation of the function, sorted.
pub struct Near<'a> {
    pub pos: Option<Pos>,
    pub op_lines: &'a [u32],
}

/// Where a constant passed on a link was written. Links carry no positions
/// and the flow builder keeps a constant assigned to a local in its state
/// rather than in an operation, so the function's source is searched for
/// the statement that wrote it: `NAME = LITERAL` when the link passes it to
/// a variable called NAME, `return LITERAL` when it goes to the return
/// block. Of the lines that match (by value, so `'a'` and `"a"` are alike),
/// the one nearest to where the link leaves wins, earlier lines first on a
/// tie; a line after it counts only when no operation comes in between
/// (else it ran in a later block: `x = 1` in a loop's body is not the `x =
/// 1` before the loop). `None` when no line matches (a folded constant).
pub fn constant_pos(
    sources: &SourceMap,
    def: Option<Pos>,
    near: &Near,
    target_name: Option<&str>,
    c: &Constant,
) -> Option<Pos> {
    statement_pos(sources, def, near, target_name, &|rhs| literal_is(rhs, c))
}

/// Where `name` was last assigned before `near` (or nearest after it), with
/// any value.
fn assignment_pos(sources: &SourceMap, def: Option<Pos>, near: &Near, name: &str) -> Option<Pos> {
    statement_pos(sources, def, near, Some(name), &|_| true)
}

/// Where `return NAME` was written, for a variable passed to the return
/// block (found as `constant_pos` finds a constant).
pub fn return_pos(sources: &SourceMap, def: Option<Pos>, near: &Near, name: &str) -> Option<Pos> {
    statement_pos(sources, def, near, None, &|rhs| {
        rhs.split(" #").next().unwrap_or(rhs).trim() == name
    })
}

/// The line of the function starting at `def` nearest to `near` holding
/// `TARGET = RHS` (or `return RHS` without a target) where `rhs_matches`,
/// and that is not after an operation after `near` (see `constant_pos`).
fn statement_pos(
    sources: &SourceMap,
    def: Option<Pos>,
    near: &Near,
    target_name: Option<&str>,
    rhs_matches: &dyn Fn(&str) -> bool,
) -> Option<Pos> {
    let def = def?;
    let lines: Vec<&str> = sources.text(def.file).lines().collect();
    let first = def.line as usize;
    let indent_of = |l: &str| l.len() - l.trim_start().len();
    let def_indent = indent_of(lines.get(first.checked_sub(1)?)?);
    let mut best: Option<(u32, Pos)> = None;
    for (i, line) in lines.iter().enumerate().skip(first) {
        let text = line.trim();
        if !text.is_empty() && !text.starts_with('#') && indent_of(line) <= def_indent {
            break;
        }
        let rhs = match target_name {
            Some(name) => text
                .strip_prefix(name)
                .map(str::trim_start)
                .and_then(|r| r.strip_prefix('='))
                .filter(|r| !r.starts_with('=')),
            None => text.strip_prefix("return "),
        };
        let Some(rhs) = rhs else { continue };
        if !rhs_matches(rhs.trim()) {
            continue;
        }
        let line_no = i as u32 + 1;
        if let Some(p) = near.pos {
            let between = near.op_lines.partition_point(|l| *l <= p.line);
            if near.op_lines.get(between).is_some_and(|l| *l < line_no) {
                continue;
            }
        }
        let col = (line.len() - line.trim_start().len()) as u32 + 1;
        let distance = near.pos.map_or(0, |p| {
            p.line.abs_diff(line_no) * 2 + u32::from(line_no > p.line)
        });
        if best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, Pos::in_file(def.file, line_no, col)));
        }
    }
    best.map(|(_, p)| p)
}

/// The value of a Python integer literal as written: decimal, `0x`, `0o`,
/// `0b`, Python 2's `0777` and `10L`, `_` separators, a leading `-`.
fn int_literal(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, text),
    };
    let digits = digits.trim_end_matches(['l', 'L']).replace('_', "");
    let lower = digits.to_ascii_lowercase();
    let (radix, body) = if let Some(b) = lower.strip_prefix("0x") {
        (16, b)
    } else if let Some(b) = lower.strip_prefix("0o") {
        (8, b)
    } else if let Some(b) = lower.strip_prefix("0b") {
        (2, b)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    let value = i64::from_str_radix(body, radix).ok()?;
    Some(if negative {
        value.wrapping_neg()
    } else {
        value
    })
}

/// Does the literal `text` (a statement's right-hand side) spell `c`?
fn literal_is(text: &str, c: &Constant) -> bool {
    let text = text.split(" #").next().unwrap_or(text).trim();
    let unquoted = || {
        let q = text.chars().next()?;
        (matches!(q, '\'' | '"') && text.len() >= 2 && text.ends_with(q))
            .then(|| &text[1..text.len() - 1])
    };
    match c {
        Constant::Int(n) => int_literal(text) == Some(*n),
        Constant::Float(f) => text.parse::<f64>().is_ok_and(|v| v == *f),
        Constant::Bool(b) => text == if *b { "True" } else { "False" },
        Constant::None => text == "None",
        Constant::Str(s) => unquoted().is_some_and(|u| u == s),
        Constant::Char(ch) => unquoted().is_some_and(|u| u.as_bytes() == [*ch]),
        _ => false,
    }
}

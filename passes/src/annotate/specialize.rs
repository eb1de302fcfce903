//! Specialization: one function of the source, several graphs.
//!
//! As in the original, a call of a function may run a copy of its graph made
//! for that call's "key" instead of the graph itself:
//! - a function with a `*args` parameter gets one copy per number of
//!   star-arguments (`total__star2`), so the tuple's items keep precise
//!   annotations in each;
//! - `@specialize.argtype(N, ...)`: one copy per kinds of the arguments at
//!   those positions (`max_of__int`, `max_of__str`);
//! - `@specialize.arg(N, ...)`: one copy per constant values there
//!   (`scaled__3`); a value not known when annotating is reported;
//! - `@specialize.arg_or_var(N, ...)`: the same, and one more copy
//!   (`scaled__var`) for the values known only at run time;
//! - `@specialize.call_location()`: one copy per call site
//!   (`make__at_entry_point_12`);
//! - `@specialize.memo()`: no copy, no graph: the function is run while
//!   annotating on the constant arguments of each call (by the object
//!   interpreter) and the call's result is that constant.
//!
//! A copy is the function's graph cloned under the new name (without its
//! specialization hints). The annotator borrows the program's graphs for
//! the whole of its fixpoint, so it cannot add one in the middle: a call
//! that needs a copy that does not exist yet records the request and has
//! no value yet (so has a memo call whose result built new objects: they
//! join the prebuilt table first). Such a round is provisional: it goes on
//! past what waits, to find every copy it can; `with_copies` then adds the
//! copies and objects and annotates again from the start, until a round
//! asks for nothing new. A program usually needs two rounds, one more per
//! level of copies calling specialized functions with keys only the copies
//! know (`forward__star2` calling `total__star1`). After the
//! last round, `rewrite_calls` points each call at its copy (a bound-method
//! call becomes a direct call with the instance first) and replaces each
//! memo call by its constant, and the original graphs of specialized
//! functions are dropped: later stages see ordinary graphs and calls.

use super::{Annotator, Blocked};
use crate::flow::PrebuiltTable;
use crate::language::hints::STAR_ARGS_HINT;
use crate::objinterp::{ObjInterpreter, ObjValue};
use rpy_ir::annotation::{user_class_name, Desc, Known, SomeValue};
use rpy_ir::ast::Dialect;
use rpy_ir::diag::{Diagnostic, Diagnostics};
use rpy_ir::graph::{Arg, BlockId, Constant, Flow, FunctionGraph, Program, SpaceOperation};
use rpy_ir::opcode::Opcode;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// More copies of one function than this is a specialization that never
/// ends (a constant argument that changes at every recursive call).
const MAX_COPIES_PER_FUNCTION: usize = 64;

/// The copies made so far: (function's graph name, key) -> copy's graph name.
pub(super) type Copies = BTreeMap<(String, String), String>;

/// The results of memo functions so far: (function's graph name, its
/// constant arguments) -> the result.
pub(super) type MemoTable = HashMap<(String, String), Constant>;

/// A copy a call needs and the program does not have yet.
#[derive(Clone, Debug)]
pub(super) struct CopyRequest {
    original: String,
    key: String,
    name: String,
}

/// What a call site runs once annotated: a copy of the function named in
/// the call (`bound` when the call is of a bound method, whose instance
/// becomes the first argument of the direct call), or a memo function's
/// constant result.
#[derive(Clone, Debug)]
pub(super) enum Rewrite {
    Call { copy: String, bound: bool },
    Constant(Constant),
}

/// How a function is specialized, from its graph's hints.
#[derive(Debug, Default)]
struct Policy {
    star_args: bool,
    by: Option<By>,
}

/// What a `@specialize.*` decorator keys copies by.
#[derive(Debug)]
enum By {
    ArgType(Vec<usize>),
    Arg(Vec<usize>),
    /// As `Arg`, with one more copy for the values known only at run time.
    ArgOrVar(Vec<usize>),
    Memo,
    CallLocation,
    /// A low-level helper: by the low-level types of all its arguments
    /// (`lowlevel::lowlevel_key`).
    LowLevel,
}

/// Is `hint` one of those that make a function specialized?
fn is_specialization_hint(hint: &str) -> bool {
    hint == STAR_ARGS_HINT || hint.starts_with("specialize.")
}

/// Is the graph that of a specialized function (so its calls run copies)?
pub(super) fn is_specialized(graph: &FunctionGraph<Flow>) -> bool {
    graph.hints.iter().any(|h| is_specialization_hint(h))
}

/// The specialization a graph's hints ask for; an unknown `specialize.*`
/// or one with arguments that are not positions is an error.
fn policy(graph: &FunctionGraph<Flow>) -> Result<Policy, String> {
    let mut policy = Policy::default();
    for hint in &graph.hints {
        if hint == STAR_ARGS_HINT {
            policy.star_args = true;
            continue;
        }
        let Some(rest) = hint.strip_prefix("specialize.") else {
            continue;
        };
        let (kind, args) = rest
            .strip_suffix(')')
            .and_then(|r| r.split_once('('))
            .unwrap_or((rest, ""));
        let positions = || -> Result<Vec<usize>, String> {
            let positions: Vec<usize> = args
                .split(',')
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(|a| a.parse::<usize>())
                .collect::<Result<_, _>>()
                .map_err(|_| {
                    format!(
                        "@specialize.{kind}({args}) of {}() takes argument positions (0 is the first parameter), like @specialize.{kind}(0)",
                        graph.name
                    )
                })?;
            if positions.is_empty() {
                return Err(format!(
                    "@specialize.{kind}() of {}() names no argument position; give the positions of the arguments to specialize on, like @specialize.{kind}(0)",
                    graph.name
                ));
            }
            Ok(positions)
        };
        let by = match kind {
            "argtype" => By::ArgType(positions()?),
            "arg" => By::Arg(positions()?),
            "arg_or_var" => By::ArgOrVar(positions()?),
            "memo" => By::Memo,
            "call_location" => By::CallLocation,
            "ll" => By::LowLevel,
            other => {
                return Err(format!(
                    "@specialize.{other}({args}) of {}() is not supported; rpy knows specialize.argtype, specialize.arg, specialize.arg_or_var, specialize.memo and specialize.call_location",
                    graph.name
                ))
            }
        };
        if policy.by.is_some() {
            return Err(format!(
                "{}() has two @specialize decorators; keep one",
                graph.name
            ));
        }
        policy.by = Some(by);
    }
    Ok(policy)
}

/// The kind of a value, as `argtype` keys copies: what type an instance of
/// it has in the running program (a char is a str, as in the original).
fn kind_name(value: &SomeValue) -> String {
    match value.general() {
        SomeValue::Integer { unsigned: true, .. } => "r_uint".into(),
        SomeValue::Integer { .. } => "int".into(),
        SomeValue::Bool => "bool".into(),
        SomeValue::Float => "float".into(),
        SomeValue::Char | SomeValue::String { .. } => "str".into(),
        SomeValue::Unicode { .. } => "unicode".into(),
        SomeValue::Tuple(items) => format!("tuple{}", items.len()),
        SomeValue::List(_) => "list".into(),
        SomeValue::Dict(_) => "dict".into(),
        SomeValue::Instance { class, .. } => user_class_name(&class).to_string(),
        SomeValue::Exception { classes, .. } => classes
            .iter()
            .map(|c| user_class_name(c).to_string())
            .collect::<Vec<_>>()
            .join("_"),
        SomeValue::None => "None".into(),
        SomeValue::Pbc { descs, .. } => match descs.first() {
            Some(Desc::Class(_)) => "class".into(),
            Some(Desc::Method { .. }) => "method".into(),
            Some(Desc::Frozen(_)) => "frozen".into(),
            _ => "function".into(),
        },
        other => other.describe().replace(' ', "_"),
    }
}

/// The constant a value is, when the annotator knows it (the inverse of
/// `known_constant`).
pub(crate) fn known_constant_of(value: &SomeValue) -> Option<Constant> {
    match value {
        SomeValue::Const(Known::Int(n)) => Some(Constant::Int(*n)),
        SomeValue::Const(Known::Bool(b)) => Some(Constant::Bool(*b)),
        SomeValue::Const(Known::Char(c)) => Some(Constant::Char(*c)),
        SomeValue::Const(Known::Str(s)) => Some(Constant::Str(s.clone())),
        SomeValue::None => Some(Constant::None),
        SomeValue::Pbc {
            descs,
            can_be_none: false,
        } => match &descs[..] {
            [Desc::Function(f)] => Some(Constant::Func(f.clone())),
            [Desc::Class(c)] => Some(Constant::Class(c.clone())),
            _ => None,
        },
        _ => None,
    }
}

/// A constant as a part of a graph name: letters, digits and `_`.
fn name_part(c: &Constant) -> String {
    let text = match c {
        Constant::Int(n) if *n < 0 => format!("m{}", n.unsigned_abs()),
        Constant::Int(n) => n.to_string(),
        Constant::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        Constant::Char(c) => (*c as char).to_string(),
        Constant::Str(s) => s.clone(),
        Constant::None => "None".into(),
        Constant::Func(f) => f.rsplit('.').next().unwrap_or(f).to_string(),
        Constant::Class(c) => user_class_name(c).to_string(),
        other => format!("{other:?}"),
    };
    identifier(&text)
}

/// A constant argument in a message, as the source would write it.
fn describe_constant(c: &Constant) -> String {
    match c {
        Constant::Int(n) => n.to_string(),
        Constant::Float(x) => x.to_string(),
        Constant::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        Constant::Char(c) => format!("{:?}", *c as char),
        Constant::Str(s) => format!("{s:?}"),
        Constant::None => "None".into(),
        Constant::Func(f) => format!("the function {f}"),
        Constant::Class(c) => format!("the class {}", user_class_name(c)),
        Constant::Prebuilt(i) => format!("the prebuilt object &{i}"),
        other => format!("{other:?}"),
    }
}

/// `text` with every character that cannot be in an identifier as `_`.
fn identifier(text: &str) -> String {
    let id: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if id.is_empty() {
        "empty".into()
    } else {
        id
    }
}

/// The object interpreter memo functions run in, with the values of the
/// prebuilt objects (made once per annotation round).
pub(super) struct MemoRunner<'p> {
    interp: ObjInterpreter<'p>,
    prebuilt: Vec<ObjValue>,
    /// The program's prebuilt objects and those memo results add.
    table: PrebuiltTable,
}

impl<'p> Annotator<'p> {
    /// A call of the program's function `callee` (with `bound` arguments
    /// not written in the call): the function's own graph, or the copy its
    /// specialization picks for these arguments, or a memo function's
    /// result. The call's site is operation `op` of block `b` of graph `g`.
    pub(super) fn call_function(
        &mut self,
        g: usize,
        b: BlockId,
        op: &SpaceOperation,
        callee: &str,
        args: &[SomeValue],
        bound: usize,
    ) -> Result<SomeValue, Diagnostic> {
        let Some(&cg) = self.graph_index.get(callee) else {
            return self.call(g, b, op, callee, args, bound);
        };
        let graph = self.graph(cg);
        if !is_specialized(graph) {
            return self.call(g, b, op, callee, args, bound);
        }
        let policy = policy(graph).map_err(|why| self.error(g, op.pos, why))?;
        let index = self.op_index(g, b, op);
        if let Some(By::Memo) = policy.by {
            // Objects the memo function built have no value before the
            // next round prebuilds them.
            let Some(result) = self.memo_call(g, op, graph, args, bound)? else {
                return Ok(SomeValue::Impossible);
            };
            self.rewrites
                .insert((g, b, index), Rewrite::Constant(result.clone()));
            return Ok(self.constant(&result));
        }
        let mut key = Vec::new();
        let mut name = Vec::new();
        // What a low-level helper's copy is called with (its key keeps
        // only some constants).
        let mut lowlevel_inputs = None;
        if policy.star_args {
            let n = match args.last() {
                Some(SomeValue::Tuple(items)) => items.len(),
                // The flow builder packs the star-arguments of the calls
                // that name the function; through a variable they come
                // one by one.
                _ => {
                    return Err(self.error(
                        g,
                        op.pos,
                        format!(
                            "{callee}() takes *{}, which rpy passes only in calls that name the function or method (f(...), obj.method(...)), not in calls through a variable",
                            graph
                                .params()
                                .last()
                                .and_then(|p| graph.vars[p.0 as usize].name.as_deref())
                                .unwrap_or("args")
                        ),
                    ))
                }
            };
            key.push(format!("star{n}"));
            name.push(format!("star{n}"));
        }
        let position = |this: &Self, i: usize, how: &str| {
            args.get(i).ok_or_else(|| {
                this.error(
                    g,
                    op.pos,
                    format!(
                        "@specialize.{how}({i}) of {callee}(): there is no argument {i} (it takes {})",
                        args.len()
                    ),
                )
            })
        };
        match &policy.by {
            Some(By::ArgType(positions)) => {
                for &i in positions {
                    let kind = kind_name(position(self, i, "argtype")?);
                    key.push(kind.clone());
                    name.push(identifier(&kind));
                }
            }
            Some(By::Arg(positions)) | Some(By::ArgOrVar(positions)) => {
                let or_var = matches!(policy.by, Some(By::ArgOrVar(_)));
                let how = if or_var { "arg_or_var" } else { "arg" };
                for &i in positions {
                    let value = position(self, i, how)?;
                    match known_constant_of(value) {
                        Some(c) => {
                            key.push(format!("{c:?}"));
                            name.push(name_part(&c));
                        }
                        // `arg_or_var` has one copy for the values known
                        // only at run time; `arg` has none.
                        None if or_var => {
                            key.push("var".into());
                            name.push("var".into());
                        }
                        None => return Err(self.not_constant(g, op, graph, i, value, "arg")),
                    }
                }
            }
            Some(By::CallLocation) => {
                let caller = &self.graph(g).name;
                let line = op.pos.map(|p| p.line).unwrap_or_default();
                key.push(format!("{caller}:{}:{index}", b.0));
                name.push(format!("at_{}_{line}", identifier(caller)));
            }
            Some(By::LowLevel) => {
                let (k, n, inputs) = super::lowlevel::lowlevel_key(args, false)
                    .map_err(|why| self.error(g, op.pos, format!("{callee}(): {why}")))?;
                key.push(k);
                name.push(n);
                lowlevel_inputs = Some(inputs);
            }
            Some(By::Memo) | None => {}
        }
        let key = key.join("|");
        let original = graph.name.clone();
        let id = (original.clone(), key.clone());
        let known = match policy.by {
            Some(By::LowLevel) => self.known_results.as_ref().and_then(|r| r.get(&id)),
            _ => None,
        };
        if let Some((copy, result)) = known {
            // Annotated by an earlier annotation of helpers, for the same
            // key: its result holds here too.
            let (copy, result) = (copy.clone(), result.clone());
            self.rewrites.insert(
                (g, b, index),
                Rewrite::Call {
                    copy,
                    bound: bound > 0,
                },
            );
            return Ok(result);
        }
        let Some(copy) = self.copies.get(&id).cloned() else {
            self.request_copy(g, op, original, key, name.join("_"))?;
            // No value until the copy exists (next round).
            return Ok(SomeValue::Impossible);
        };
        self.rewrites.insert(
            (g, b, index),
            Rewrite::Call {
                copy: copy.clone(),
                bound: bound > 0,
            },
        );
        if bound > 0 && self.bound_instance(g, b, op).is_none() {
            return Err(self.error(
                g,
                op.pos,
                format!(
                    "{callee}() is specialized, so a call of it as a method must read the method and call it at once (obj.{}(...)), not through a variable",
                    callee.rsplit('.').next().unwrap_or(callee)
                ),
            ));
        }
        self.call(
            g,
            b,
            op,
            &copy,
            lowlevel_inputs.as_deref().unwrap_or(args),
            bound,
        )
    }

    /// The index of `op` in block `b` of graph `g`.
    fn op_index(&self, g: usize, b: BlockId, op: &SpaceOperation) -> usize {
        self.graph(g)
            .block(b)
            .operations
            .iter()
            .position(|o| std::ptr::eq(o, op))
            .unwrap_or(usize::MAX)
    }

    /// The instance a bound-method call `op` calls its method on: the
    /// object of the `getattr` that read the method in the same block.
    fn bound_instance(&self, g: usize, b: BlockId, op: &SpaceOperation) -> Option<Arg> {
        bound_instance_in(&self.graph(g).block(b).operations, op)
    }

    /// Records that the program needs copy `key` of `original` and says
    /// why the call waits (reported only if no new round makes the copy).
    fn request_copy(
        &mut self,
        g: usize,
        op: &SpaceOperation,
        original: String,
        key: String,
        suffix: String,
    ) -> Result<(), Blocked> {
        let made = self.copies.keys().filter(|(o, _)| *o == original).count();
        if made >= MAX_COPIES_PER_FUNCTION {
            return Err(self.error(
                g,
                op.pos,
                format!(
                    "{original}() would get more than {MAX_COPIES_PER_FUNCTION} specialized copies; an argument it is specialized on takes a new value at each call (a recursion passing a changing constant?)"
                ),
            ));
        }
        let already = self
            .requested
            .iter()
            .any(|r| r.original == original && r.key == key);
        if !already {
            let base = format!("{original}__{suffix}");
            let taken = |n: &str| {
                self.graph_index.contains_key(n) || self.requested.iter().any(|r| r.name == n)
            };
            let mut name = base.clone();
            let mut k = 2;
            while taken(&name) {
                name = format!("{base}_{k}");
                k += 1;
            }
            self.requested.push(CopyRequest {
                original: original.clone(),
                key,
                name,
            });
        }
        Ok(())
    }

    /// "argument 1 of f() must be a constant ..." for `@specialize.arg`
    /// and `@specialize.memo`.
    fn not_constant(
        &self,
        g: usize,
        op: &SpaceOperation,
        callee: &FunctionGraph<Flow>,
        i: usize,
        value: &SomeValue,
        how: &str,
    ) -> Diagnostic {
        let name = callee
            .params()
            .get(i)
            .and_then(|p| callee.vars[p.0 as usize].name.clone())
            .map(|n| format!("'{n}'"))
            .unwrap_or_else(|| i.to_string());
        let def = callee
            .pos
            .map(|p| format!(" (defined at line {})", p.line))
            .unwrap_or_default();
        let why = match how {
            "memo" => format!(
                "{}(){def} is @specialize.memo(), computed while translating from constant arguments",
                callee.name
            ),
            _ => format!(
                "{}(){def} is @specialize.arg({i}), one copy per value of that argument",
                callee.name
            ),
        };
        self.error(
            g,
            op.pos,
            format!(
                "argument {name} of {}() must be a constant here: {why}; it is {} here, known only when the program runs; pass a constant (a literal, a module-level constant, a function or a class)",
                callee.name,
                value.describe()
            ),
        )
    }

    /// Runs memo function `callee` on the call's constant arguments (once
    /// per distinct arguments) and gives its result as a constant (`None`
    /// while it is an object this round built).
    fn memo_call(
        &mut self,
        g: usize,
        op: &SpaceOperation,
        callee: &'p FunctionGraph<Flow>,
        args: &[SomeValue],
        bound: usize,
    ) -> Result<Option<Constant>, Diagnostic> {
        let mut constants = Vec::new();
        for (i, value) in args.iter().enumerate() {
            let written = (i >= bound).then(|| op.args.get(i + 1 - bound)).flatten();
            let c = match written {
                Some(Arg::Const(c)) => Some(c.clone()),
                _ => known_constant_of(value),
            };
            match c {
                Some(c) => constants.push(c),
                None => return Err(self.not_constant(g, op, callee, i, value, "memo")),
            }
        }
        let key = (callee.name.clone(), format!("{constants:?}"));
        if let Some(c) = self.memo_table.get(&key) {
            return Ok(Some(c.clone()).filter(|c| !self.not_prebuilt_yet(c)));
        }
        let program = self.program;
        let runner = self.memo_runner.get_or_insert_with(|| {
            let (interp, prebuilt) = ObjInterpreter::with_prebuilt_objects(program, self.dialect);
            let table = PrebuiltTable::with_objects(program.prebuilt.clone(), &prebuilt);
            MemoRunner {
                interp,
                prebuilt,
                table,
            }
        });
        let values: Option<Vec<ObjValue>> = constants
            .iter()
            .map(|c| match c {
                Constant::Prebuilt(i) => runner.prebuilt.get(*i as usize).cloned(),
                c => ObjValue::from_constant(c, runner.interp.classes()),
            })
            .collect();
        let run = match values {
            Some(values) => runner
                .interp
                .call(&callee.name, values, &mut std::io::sink())
                .map_err(|e| format!("raised {}: {}", e.exc, e.message)),
            None => Err("could not be given its arguments".into()),
        };
        let result = run.and_then(|v| {
            runner.table.constant(&v).map_err(|what| {
                format!("returned {what}, which cannot be a constant of the translated program")
            })
        });
        let result = result.map_err(|why| {
            self.error(
                g,
                op.pos,
                format!(
                    "the memo function {}() run while translating, on {}, {why}",
                    callee.name,
                    constants
                        .iter()
                        .map(describe_constant)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        self.memo_table.insert(key, result.clone());
        Ok(Some(result).filter(|c| !self.not_prebuilt_yet(c)))
    }

    /// The functions a call through a variable holding several of them
    /// runs must all take the arguments the same way, and none may be
    /// specialized (its copy is chosen per call, which such a call does
    /// not name): the first two that differ are reported.
    pub(super) fn check_call_family(
        &self,
        g: usize,
        op: &SpaceOperation,
        descs: &[Desc],
    ) -> Result<(), Diagnostic> {
        let graphs: Vec<&FunctionGraph<Flow>> = descs
            .iter()
            .filter_map(|d| match d {
                Desc::Function(f) | Desc::Method { func: f, .. } => {
                    self.graph_index.get(f.as_str()).map(|&i| self.graph(i))
                }
                _ => None,
            })
            .collect();
        if graphs.len() < 2 {
            return Ok(());
        }
        let holder = self.family_holder(g, op);
        let def_line = |graph: &FunctionGraph<Flow>| self.def_line(graph);
        if let Some(special) = graphs.iter().find(|gr| is_specialized(gr)) {
            return Err(self.error(
                g,
                op.pos,
                format!(
                    "{holder} any of {}; {} is specialized (one copy per call's arguments), so it must be called by name, not through a variable that may hold other functions",
                    graphs
                        .iter()
                        .map(|gr| format!("{}()", gr.name))
                        .collect::<Vec<_>>()
                        .join(", "),
                    def_line(special)
                ),
            ));
        }
        let first = graphs[0];
        for other in &graphs[1..] {
            if first.params().len() != other.params().len() {
                let count = |graph: &FunctionGraph<Flow>| {
                    let n = graph.params().len();
                    format!("{n} argument{}", if n == 1 { "" } else { "s" })
                };
                return Err(self.error(
                    g,
                    op.pos,
                    format!(
                        "{holder} {}() or {}(), which take different arguments: {} takes {} and {} takes {}; the functions a variable may hold must take the same arguments",
                        first.name,
                        other.name,
                        def_line(first),
                        count(first),
                        def_line(other),
                        count(other)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The functions a call through a variable may run return values that
    /// do not join: both, with their `def` lines and what they return.
    pub(super) fn family_results_conflict(
        &self,
        g: usize,
        op: &SpaceOperation,
        (first, first_result): (&Desc, &SomeValue),
        (other, other_result): (&Desc, &SomeValue),
    ) -> Diagnostic {
        let holder = self.family_holder(g, op);
        let member = |desc: &Desc| {
            let name = match desc {
                Desc::Function(f) | Desc::Method { func: f, .. } => f.clone(),
                other => other.to_string(),
            };
            match self.graph_index.get(name.as_str()).map(|&i| self.graph(i)) {
                Some(graph) => self.def_line(graph),
                None => format!("{name}()"),
            }
        };
        self.error(
            g,
            op.pos,
            format!(
                "{holder} {} or {}, and the first returns {} but the second {}; the result of this call needs one type, so the functions a variable may hold must return the same type",
                member(first),
                member(other),
                first_result.describe(),
                other_result.describe()
            ),
        )
    }

    /// "'f' may hold" (the variable a call goes through), or "this call
    /// may run".
    fn family_holder(&self, g: usize, op: &SpaceOperation) -> String {
        match op.args.first() {
            Some(Arg::Var(v)) => match &self.graph(g).vars[v.0 as usize].name {
                Some(name) => format!("'{name}' may hold"),
                None => "this call may run".to_string(),
            },
            _ => "this call may run".to_string(),
        }
    }

    /// "f() (line 7: def f(x):)", where a function is defined.
    fn def_line(&self, graph: &FunctionGraph<Flow>) -> String {
        match graph.pos {
            Some(p) => format!(
                "{}() ({})",
                graph.name,
                super::provenance::describe_pos(Some(p), &self.program.sources)
            ),
            None => format!("{}()", graph.name),
        }
    }

    /// Is `c` an object a memo function built in this round (prebuilt
    /// from the next)?
    fn not_prebuilt_yet(&self, c: &Constant) -> bool {
        matches!(c, Constant::Prebuilt(i) if *i as usize >= self.program.prebuilt.len())
    }

    /// Will this round be redone, with copies or objects it found the
    /// program needs? Until then it only looks for more of them.
    pub(super) fn provisional_round(&self) -> bool {
        !self.requested.is_empty() || self.memo_objects_pending()
    }

    /// Did memo functions build objects the program's prebuilt table does
    /// not have yet (added before the next round)?
    pub(super) fn memo_objects_pending(&self) -> bool {
        self.memo_runner
            .as_ref()
            .is_some_and(|r| r.table.objects.len() > self.program.prebuilt.len())
    }

    /// The copies of `original` this round has, by graph index.
    pub(super) fn copies_of(&self, original: &str) -> Vec<usize> {
        self.copies
            .iter()
            .filter(|((o, _), _)| o == original)
            .filter_map(|(_, copy)| self.graph_index.get(copy.as_str()).copied())
            .collect()
    }
}

/// The instance argument of a bound-method call `op` among `operations`:
/// the object of the `getattr` that defines the called variable.
fn bound_instance_in(operations: &[SpaceOperation], op: &SpaceOperation) -> Option<Arg> {
    let method = op.args.first()?.as_var()?;
    operations
        .iter()
        .find(|o| o.result == method && o.opname == Opcode::Getattr)
        .and_then(|o| o.args.first().cloned())
}

/// Annotates `program` with the copies its calls need: a round that asks
/// for copies the program does not have adds them and annotates again
/// (see the module's comment). `finish` gets the last round's annotator,
/// the result of its start and how many rounds there were.
pub(super) fn with_copies<R>(
    program: &mut Program<Flow>,
    dialect: Dialect,
    entry: &super::Entry,
    finish: impl FnOnce(&mut Annotator<'_>, Result<usize, Diagnostics>, usize) -> R,
) -> R {
    annotate_in_rounds(program, dialect, entry, None, true, finish)
}

/// What earlier annotations found of copies: for each copy's graph name,
/// the copies its calls run, as `(original, key, copy's name)`. A copy's
/// graph depends only on its key, so what one annotation found holds for
/// another of the same originals (the rtyper annotates the low-level
/// helpers once per specialization, see `lowlevel::annotate_helper`).
#[derive(Default)]
pub struct KnownCopies {
    calls: HashMap<String, Vec<(String, String, String)>>,
    /// The result of each copy annotated so far that depends on nothing
    /// but its key (a low-level value), by `(original, key)`, with the
    /// copy's name: a later annotation calling it takes the result and
    /// names the copy, without annotating it again (the rtyper lowered
    /// it already). Shared with the annotator of each round.
    results: Arc<KnownResults>,
}

/// What `KnownCopies::results` holds.
pub(super) type KnownResults = HashMap<(String, String), (String, SomeValue)>;

impl KnownCopies {
    pub fn new() -> KnownCopies {
        KnownCopies::default()
    }
}

/// `with_copies`, adding with each copy a round asks for the copies
/// `known` says it calls (and theirs), so that one more round annotates
/// them all instead of one more round per level of calls; and recording
/// in `known` what the last round's copies call. The provenance is
/// recorded only for a round that fails (see `annotate_in_rounds`): only
/// errors read it.
pub(super) fn with_known_copies<R>(
    program: &mut Program<Flow>,
    dialect: Dialect,
    entry: &super::Entry,
    known: Option<&mut KnownCopies>,
    finish: impl FnOnce(&mut Annotator<'_>, Result<usize, Diagnostics>, usize) -> R,
) -> R {
    annotate_in_rounds(program, dialect, entry, known, false, finish)
}

/// `with_known_copies`, recording the provenance in every round when
/// `always_provenance` (`with_copies`: for `explain`, which reads it of a
/// program that annotates).
fn annotate_in_rounds<R>(
    program: &mut Program<Flow>,
    dialect: Dialect,
    entry: &super::Entry,
    mut known: Option<&mut KnownCopies>,
    always_provenance: bool,
    finish: impl FnOnce(&mut Annotator<'_>, Result<usize, Diagnostics>, usize) -> R,
) -> R {
    let mut copies = Copies::new();
    let mut memo_table = MemoTable::new();
    for round in 1.. {
        let (requested, built) = {
            // Without `always_provenance` the contributions are recorded
            // only when a round fails, by annotating it again (the same
            // program, copies and memo table give the same annotation):
            // only errors read them.
            let memo_again = (!always_provenance).then(|| memo_table.clone());
            let mut a = Annotator::new(
                program,
                dialect,
                copies.clone(),
                memo_table,
                entry.clone(),
                always_provenance,
            );
            a.known_results = known.as_ref().map(|k| Arc::clone(&k.results));
            let mut started = a.start();
            if let Some(memo_again) = memo_again {
                if a.fails(entry, &started) {
                    a = Annotator::new(
                        program,
                        dialect,
                        copies.clone(),
                        memo_again,
                        entry.clone(),
                        true,
                    );
                    a.known_results = known.as_ref().map(|k| Arc::clone(&k.results));
                    started = a.start();
                }
            }
            if (a.requested.is_empty() && !a.memo_objects_pending()) || started.is_err() {
                // Dropped first, so that recording does not copy the map.
                a.known_results = None;
                if let (Some(known), Ok(_)) = (known.as_deref_mut(), &started) {
                    record_known_copies(&a, known);
                }
                return finish(&mut a, started, round);
            }
            memo_table = std::mem::take(&mut a.memo_table);
            let built = a
                .memo_runner
                .take()
                .map(|r| r.table.objects[program.prebuilt.len()..].to_vec())
                .unwrap_or_default();
            (std::mem::take(&mut a.requested), built)
        };
        program.prebuilt.extend(built);
        for request in requested {
            let Some(original) = program.graph(&request.original) else {
                continue;
            };
            let mut copy = original.clone();
            copy.name = request.name.clone();
            copy.hints.retain(|h| !is_specialization_hint(h));
            program.graphs.push(copy);
            let name = request.name.clone();
            copies.insert((request.original, request.key), request.name);
            if let Some(known) = known.as_deref() {
                add_known_callees(program, &mut copies, known, name);
            }
        }
    }
    unreachable!("the rounds end when one needs nothing new")
}

/// Adds to `program` and `copies` the copies `known` says copy `name`
/// calls, and theirs, that it does not have yet.
fn add_known_callees(
    program: &mut Program<Flow>,
    copies: &mut Copies,
    known: &KnownCopies,
    name: String,
) {
    let mut work = vec![name];
    while let Some(name) = work.pop() {
        for (original, key, callee) in known.calls.get(&name).into_iter().flatten() {
            let id = (original.clone(), key.clone());
            if copies.contains_key(&id) {
                continue;
            }
            let Some(original) = program.graph(original) else {
                continue;
            };
            let mut copy = original.clone();
            copy.name = callee.clone();
            copy.hints.retain(|h| !is_specialization_hint(h));
            program.graphs.push(copy);
            copies.insert(id, callee.clone());
            work.push(callee.clone());
        }
    }
}

/// Records in `known` the copies each graph of the finished annotation
/// `a` calls.
fn record_known_copies(a: &Annotator<'_>, known: &mut KnownCopies) {
    let by_name: HashMap<&str, &(String, String)> = a
        .copies
        .iter()
        .map(|(id, name)| (name.as_str(), id))
        .collect();
    let mut found: BTreeMap<&str, Vec<(String, String, String)>> = BTreeMap::new();
    for (&(g, _, _), rewrite) in &a.rewrites {
        let Rewrite::Call { copy, .. } = rewrite else {
            continue;
        };
        let Some((original, key)) = by_name.get(copy.as_str()) else {
            continue;
        };
        let calls = found.entry(a.graph(g).name.as_str()).or_default();
        let callee = (original.clone(), key.clone(), copy.clone());
        if !calls.contains(&callee) {
            calls.push(callee);
        }
    }
    for (caller, calls) in found {
        known.calls.entry(caller.to_string()).or_insert(calls);
    }
    let results = Arc::make_mut(&mut known.results);
    for (id, name) in &a.copies {
        let Some(&g) = a.graph_index.get(name.as_str()) else {
            continue;
        };
        let graph = a.graph(g);
        let ret = graph.block(graph.returnblock).inputargs[0];
        let result = a.containers.resolve(&a.ann[g][ret.0 as usize]);
        if is_low_level_value(&result) {
            results
                .entry(id.clone())
                .or_insert_with(|| (name.clone(), result));
        }
    }
}

/// Whether a value of annotation `a` means the same in every annotation:
/// a low-level value, not a container or instance of one program. (Not
/// "never returns": the annotator cuts a block after such a call, which
/// `Annotator::call` arranges.)
fn is_low_level_value(a: &SomeValue) -> bool {
    matches!(
        a,
        SomeValue::Ptr(_)
            | SomeValue::LLType(_)
            | SomeValue::Integer { .. }
            | SomeValue::Bool
            | SomeValue::Float
            | SomeValue::Char
            | SomeValue::None
            | SomeValue::Const(_)
    )
}

/// Points every specialized call at its copy and replaces every memo call
/// by its result (`rewrites` by graph, block and operation index). A
/// method read only for a call that now names its copy goes too.
pub(super) fn rewrite_calls(
    graphs: &mut [FunctionGraph<Flow>],
    rewrites: &BTreeMap<(usize, BlockId, usize), Rewrite>,
) {
    let mut method_reads = Vec::new();
    // Back to front, so removing a memo call keeps the indices before it.
    for (&(g, b, index), rewrite) in rewrites.iter().rev() {
        let Some(graph) = graphs.get_mut(g) else {
            continue;
        };
        let block = graph.block_mut(b);
        if index >= block.operations.len() {
            continue;
        }
        match rewrite {
            Rewrite::Call { copy, bound } => {
                let instance = if *bound {
                    bound_instance_in(&block.operations, &block.operations[index])
                } else {
                    None
                };
                let op = &mut block.operations[index];
                if let Some(method) = op.args[0].as_var() {
                    method_reads.push((g, b, method));
                }
                op.args[0] = Arg::Const(Constant::Func(copy.clone()));
                if let Some(instance) = instance {
                    op.args.insert(1, instance);
                }
            }
            Rewrite::Constant(c) => {
                let result = block.operations.remove(index).result;
                let replace = |a: &mut Arg| {
                    if a.as_var() == Some(result) {
                        *a = Arg::Const(c.clone());
                    }
                };
                for op in &mut block.operations[index..] {
                    op.args.iter_mut().for_each(replace);
                }
                if let Some(switch) = &mut block.exitswitch {
                    replace(switch);
                }
                for link in &mut block.exits {
                    link.args.iter_mut().for_each(replace);
                }
            }
        }
    }
    for (g, b, method) in method_reads {
        let block = graphs[g].block_mut(b);
        let used = block
            .operations
            .iter()
            .flat_map(|o| &o.args)
            .chain(&block.exitswitch)
            .chain(block.exits.iter().flat_map(|l| &l.args))
            .any(|a| a.as_var() == Some(method));
        if !used {
            block
                .operations
                .retain(|o| !(o.result == method && o.opname == Opcode::Getattr));
        }
    }
}

/// The graphs of specialized functions: every call runs a copy (or, for a
/// memo function, nothing), so they leave the program once annotated.
pub(super) fn specialized_originals(program: &Program<Flow>) -> BTreeSet<String> {
    program
        .graphs
        .iter()
        .filter(|g| is_specialized(g))
        .map(|g| g.name.clone())
        .collect()
}

/// For tools that look at the program as written: each variable of a
/// specialized function's graph gets the join of its annotations in the
/// copies (a copy numbers its variables as the original does), `Object`
/// where they do not join.
pub(super) fn fold_copies_into_originals(
    ann: &mut [Vec<SomeValue>],
    copies: &HashMap<usize, Vec<usize>>,
) {
    for (&original, copy_graphs) in copies {
        for &c in copy_graphs {
            for v in 0..ann[original].len().min(ann[c].len()) {
                let joined = super::union(&ann[original][v], &ann[c][v].general())
                    .unwrap_or(SomeValue::Object);
                ann[original][v] = joined;
            }
        }
    }
}

//! The annotator: whole-program type inference over flow graphs.
//!
//! A fixpoint over the SomeXxx lattice, as the seed describes: every variable
//! starts at the bottom (`Impossible`); a block is (re)flowed when an annotation
//! reaching its input arguments generalizes; each operation's result comes from
//! the op typing rules of `rules/annotate/` and each join from the union rules.
//! Calls between the program's functions are followed: arguments generalize the
//! callee's parameters, and when a callee's return annotation generalizes,
//! every block that calls it is flowed again.
//!
//! What stays in Rust: the worklist itself, annotations of constants, and calls
//! of program functions (they need the whole program, not just the operands).

use crate::rules;
use rpy_ir::annotation::SomeValue;
use rpy_ir::diag::{Diagnostic, Diagnostics, Pos};
use rpy_ir::graph::{Annotated, Arg, BlockId, Constant, Flow, FunctionGraph, Program, Var};
use std::collections::{BTreeSet, HashMap, VecDeque};

/// The annotation of a constant.
pub fn annotate_constant(c: &Constant) -> SomeValue {
    match c {
        Constant::Int(n) => SomeValue::Integer { nonneg: *n >= 0 },
        Constant::Float(_) => SomeValue::Float,
        Constant::Bool(_) => SomeValue::Bool,
        Constant::Char(_) => SomeValue::Char,
        Constant::Str(s) if s.chars().count() == 1 => SomeValue::Char,
        Constant::Str(_) => SomeValue::String,
        Constant::None => SomeValue::None,
        Constant::Func(name) => SomeValue::Functions(vec![name.clone()]),
        Constant::Builtin(name) => SomeValue::Builtin(name.clone()),
        Constant::Name(_) => SomeValue::Object,
    }
}

/// The annotation `entry_point` receives: the command-line arguments.
pub fn argv_annotation() -> SomeValue {
    SomeValue::List(Box::new(SomeValue::String))
}

struct Annotator<'p> {
    program: &'p Program<Flow>,
    source: &'p str,
    graph_index: HashMap<&'p str, usize>,
    /// The annotation of every variable of every graph.
    ann: Vec<Vec<SomeValue>>,
    /// Blocks waiting to be flowed, and the set of them to avoid duplicates.
    pending: VecDeque<(usize, BlockId)>,
    queued: BTreeSet<(usize, BlockId)>,
    /// Blocks flowed at least once: a link reaching any other block schedules it.
    flowed: BTreeSet<(usize, BlockId)>,
    /// For each graph, the blocks that call it (reflowed when its return generalizes).
    callers: Vec<BTreeSet<(usize, BlockId)>>,
    /// Errors by (graph, block), so a reflowed block reports once.
    errors: HashMap<(usize, BlockId), Diagnostic>,
}

impl<'p> Annotator<'p> {
    fn schedule(&mut self, g: usize, b: BlockId) {
        if self.queued.insert((g, b)) {
            self.pending.push_back((g, b));
        }
    }

    fn arg_annotation(&self, g: usize, a: &Arg) -> SomeValue {
        match a {
            Arg::Var(v) => self.ann[g][v.0 as usize].clone(),
            Arg::Const(c) => annotate_constant(c),
        }
    }

    fn graph(&self, g: usize) -> &'p FunctionGraph<Flow> {
        &self.program.graphs[g]
    }

    fn error(&self, g: usize, pos: Option<Pos>, message: String) -> Diagnostic {
        let pos = pos.or(self.graph(g).pos).unwrap_or_default();
        Diagnostic::new(self.program.path.clone(), pos, message).with_source(self.source)
    }

    /// Generalizes `var` to include `value`; true when its annotation changed.
    /// A join the lattice has no rule for is reported at `pos`.
    fn generalize(
        &mut self,
        g: usize,
        var: Var,
        value: &SomeValue,
        pos: Option<Pos>,
        what: &dyn Fn() -> String,
    ) -> Result<bool, Diagnostic> {
        let old = &self.ann[g][var.0 as usize];
        let new = match union(old, value) {
            Some(u) => u,
            None => {
                return Err(self.error(
                    g,
                    pos,
                    format!(
                        "{} is {} on one path and {} on another; RPython needs one type here",
                        what(),
                        old.describe(),
                        value.describe()
                    ),
                ))
            }
        };
        let changed = new != *old;
        self.ann[g][var.0 as usize] = new;
        Ok(changed)
    }

    fn var_description(&self, g: usize, v: Var) -> String {
        match &self.graph(g).vars[v.0 as usize].name {
            Some(name) => format!("variable '{name}' in {}()", self.graph(g).name),
            None => format!("a value in {}()", self.graph(g).name),
        }
    }

    /// Flows one block: types its operations, then generalizes its successors.
    fn flow_block(&mut self, g: usize, b: BlockId) -> Result<(), Diagnostic> {
        let graph = self.graph(g);
        let block = graph.block(b);
        for op in &block.operations {
            let args: Vec<SomeValue> = op.args.iter().map(|a| self.arg_annotation(g, a)).collect();
            if let Some(i) = args.iter().position(|a| *a == SomeValue::Impossible) {
                // Not reached yet by a value: this block is flowed again when
                // it is. If it never is, the operation can never run.
                let defining_call = op.args[i].as_var().and_then(|v| {
                    block.operations.iter().find_map(|d| match d.args.first() {
                        Some(Arg::Const(Constant::Func(f))) if d.result == v => Some(f.clone()),
                        _ => None,
                    })
                });
                let why = match (defining_call, &op.args[i]) {
                    (Some(f), _) => format!("{f}() never returns"),
                    (None, Arg::Var(v)) => {
                        format!("{} never gets a value", self.var_description(g, *v))
                    }
                    (None, Arg::Const(_)) => "a constant has no value".into(),
                };
                return Err(self.error(g, op.pos, format!("'{}' can never run: {why}", op.opname)));
            }
            let result = if let (Some(Constant::Func(callee)), "simple_call") =
                (op.args[0].as_const(), op.opname.as_str())
            {
                self.call(g, b, callee, &args[1..], op.pos)?
            } else {
                rules::annotate::op_result(&op.opname, &args)
                    .ok_or_else(|| self.error(g, op.pos, describe_untypable(&op.opname, &args)))?
            };
            let desc = self.var_description(g, op.result);
            self.generalize(g, op.result, &result, op.pos, &|| desc.clone())?;
        }
        if let Some(switch) = &block.exitswitch {
            let s = self.arg_annotation(g, switch);
            if s != SomeValue::Bool {
                let pos = block.operations.last().and_then(|o| o.pos);
                return Err(self.error(
                    g,
                    pos,
                    format!("a condition must be a bool here, found {}", s.describe()),
                ));
            }
        }
        let pos = block.operations.last().and_then(|o| o.pos).or(graph.pos);
        for link in &block.exits {
            let target = graph.block(link.target);
            let mut changed =
                link.target != graph.returnblock && !self.flowed.contains(&(g, link.target));
            for (arg, &param) in link.args.iter().zip(&target.inputargs) {
                let value = self.arg_annotation(g, arg);
                let desc = if link.target == graph.returnblock {
                    format!("the value returned by {}()", graph.name)
                } else {
                    self.var_description(g, param)
                };
                changed |= self.generalize(g, param, &value, pos, &|| desc.clone())?;
            }
            if link.target == graph.returnblock {
                if changed {
                    for &(cg, cb) in &self.callers[g].clone() {
                        self.schedule(cg, cb);
                    }
                }
            } else if changed {
                self.schedule(g, link.target);
            }
        }
        Ok(())
    }

    /// A call of the program's function `callee`: generalizes its parameters
    /// and yields what it returns so far.
    fn call(
        &mut self,
        g: usize,
        b: BlockId,
        callee: &str,
        args: &[SomeValue],
        pos: Option<Pos>,
    ) -> Result<SomeValue, Diagnostic> {
        let Some(&cg) = self.graph_index.get(callee) else {
            return Err(self.error(g, pos, format!("call of unknown function '{callee}'")));
        };
        self.callers[cg].insert((g, b));
        let callee_graph = self.graph(cg);
        let params = callee_graph.params().to_vec();
        if params.len() != args.len() {
            return Err(self.error(
                g,
                pos,
                format!(
                    "{callee}() takes {} arguments but is called with {}",
                    params.len(),
                    args.len()
                ),
            ));
        }
        let mut changed = false;
        for (i, (&p, a)) in params.iter().zip(args).enumerate() {
            let desc = format!("argument {} of {callee}()", i + 1);
            changed |= self.generalize(cg, p, a, pos, &|| desc.clone())?;
        }
        if changed || !self.flowed.contains(&(cg, callee_graph.startblock)) {
            self.schedule(cg, callee_graph.startblock);
        }
        let ret = callee_graph.block(callee_graph.returnblock).inputargs[0];
        Ok(self.ann[cg][ret.0 as usize].clone())
    }
}

/// The join of two annotations: bottom and equal values are handled here,
/// everything else by the union rules.
pub fn union(a: &SomeValue, b: &SomeValue) -> Option<SomeValue> {
    match (a, b) {
        (SomeValue::Impossible, x) | (x, SomeValue::Impossible) => Some(x.clone()),
        (x, y) if x == y => Some(x.clone()),
        _ => rules::annotate::union(a, b),
    }
}

/// How the user wrote a high-level operation, for messages.
fn source_form(opname: &str) -> String {
    let form = match opname {
        "add" => "'+'",
        "sub" => "'-'",
        "mul" => "'*'",
        "div" | "truediv" => "'/'",
        "floordiv" => "'//'",
        "mod" => "'%'",
        "pow" => "'**'",
        "lshift" => "'<<'",
        "rshift" => "'>>'",
        "and_" => "'&'",
        "or_" => "'|'",
        "xor" => "'^'",
        "neg" => "'unary -'",
        "pos" => "'unary +'",
        "invert" => "'~'",
        "not_" => "'not'",
        "lt" => "'<'",
        "le" => "'<='",
        "eq" => "'=='",
        "ne" => "'!='",
        "gt" => "'>'",
        "ge" => "'>='",
        "is_" => "'is'",
        "contains" => "'in'",
        "getitem" => "indexing",
        "setitem" => "item assignment",
        "getattr" => "attribute access",
        "setattr" => "attribute assignment",
        "print_item" => "'print'",
        "bool" => "a truth test",
        _ => return format!("operation '{opname}'"),
    };
    form.to_string()
}

/// A plain sentence for an operation no rule can type.
fn describe_untypable(opname: &str, args: &[SomeValue]) -> String {
    let what: Vec<String> = args.iter().map(|a| a.describe()).collect();
    let (verb, operands) = match (opname, args.first()) {
        ("simple_call", Some(SomeValue::Builtin(name))) => {
            (format!("{name}()"), what[1..].join(", "))
        }
        _ => (source_form(opname), what.join(" and ")),
    };
    if operands.is_empty() {
        format!("{verb} cannot be applied here in RPython")
    } else {
        format!("{verb} cannot be applied to {operands} in RPython")
    }
}

/// Annotates the whole program, starting from the entry point called with the
/// command-line arguments.
pub fn annotate(program: Program<Flow>, source: &str) -> Result<Program<Annotated>, Diagnostics> {
    let ann = program
        .graphs
        .iter()
        .map(|g| vec![SomeValue::Impossible; g.vars.len()])
        .collect();
    let graph_index = program
        .graphs
        .iter()
        .enumerate()
        .map(|(i, g)| (g.name.as_str(), i))
        .collect();
    let mut a = Annotator {
        program: &program,
        source,
        graph_index,
        ann,
        pending: VecDeque::new(),
        queued: BTreeSet::new(),
        flowed: BTreeSet::new(),
        callers: vec![BTreeSet::new(); program.graphs.len()],
        errors: HashMap::new(),
    };
    let Some(&entry) = a.graph_index.get(program.entry.as_str()) else {
        return Err(Diagnostics::one(Diagnostic::new(
            program.path.clone(),
            Pos::default(),
            format!("the entry point '{}' has no graph", program.entry),
        )));
    };
    let entry_graph = a.graph(entry);
    if entry_graph.params().len() != 1 {
        return Err(Diagnostics::one(a.error(
            entry,
            None,
            format!(
                "the entry point {}() must take exactly one argument, the list of command-line arguments; it takes {}",
                entry_graph.name,
                entry_graph.params().len()
            ),
        )));
    }
    for &p in entry_graph.params() {
        a.ann[entry][p.0 as usize] = argv_annotation();
    }
    a.schedule(entry, entry_graph.startblock);
    while let Some((g, b)) = a.pending.pop_front() {
        a.queued.remove(&(g, b));
        a.flowed.insert((g, b));
        match a.flow_block(g, b) {
            Ok(()) => {
                a.errors.remove(&(g, b));
            }
            Err(d) => {
                a.errors.insert((g, b), d);
            }
        }
    }
    if !a.errors.is_empty() {
        let mut errors: Vec<((usize, BlockId), Diagnostic)> = a.errors.into_iter().collect();
        errors.sort_by_key(|e| e.0);
        let mut seen = BTreeSet::new();
        let diags = errors
            .into_iter()
            .map(|(_, d)| d)
            .filter(|d| seen.insert((d.pos, d.message.clone())))
            .collect();
        return Err(Diagnostics(diags));
    }
    let ret = entry_graph.block(entry_graph.returnblock).inputargs[0];
    match &a.ann[entry][ret.0 as usize] {
        SomeValue::Integer { .. } | SomeValue::Bool | SomeValue::Impossible => {}
        other => {
            return Err(Diagnostics::one(a.error(
                entry,
                None,
                format!(
                    "the entry point {}() must return an int (the exit status), but it returns {}",
                    entry_graph.name,
                    other.describe()
                ),
            )))
        }
    }
    let ann = a.ann;
    let Program {
        path,
        graphs,
        entry,
        types,
    } = program;
    let graphs = graphs
        .into_iter()
        .zip(ann)
        .map(|(g, ann)| g.map_stage(|v, _| ann[v.0 as usize].clone()))
        .collect();
    Ok(Program {
        path,
        graphs,
        entry,
        types,
    })
}

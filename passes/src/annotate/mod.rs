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
//! What stays in Rust (see ARCHITECTURE.md): the worklist itself, annotations
//! of constants, calls (they need the whole program, not just the operands),
//! the shared list and dict definitions (`containers`: a join of two lists
//! merges their definitions, a store generalizes every alias), the joins a
//! rule cannot spell (element-wise tuples, sets of prebuilt objects and
//! exception classes, None into any kind that can hold it), and where each
//! annotation came from (`provenance`), for errors and `--explain`.

mod container_ops;
mod containers;
mod messages;
pub mod provenance;

use crate::rules;
use containers::{Containers, Site};
use messages::describe_untypable;
use provenance::{describe_pos, GraphVar, Origin, Provenance};
use rpy_ir::annotation::{Desc, DictDef, ListDef, SomeValue};
use rpy_ir::diag::{Diagnostic, Diagnostics, Pos};
use rpy_ir::graph::{
    Annotated, Arg, Block, BlockId, Constant, Flow, FunctionGraph, Link, PrebuiltObject, Program,
    SpaceOperation, Var,
};
use std::collections::{BTreeSet, HashMap, VecDeque};

/// The annotation of a constant.
pub fn annotate_constant(c: &Constant) -> SomeValue {
    match c {
        Constant::Int(n) => SomeValue::Integer {
            nonneg: *n >= 0,
            unsigned: false,
        },
        Constant::Float(_) => SomeValue::Float,
        Constant::Bool(_) => SomeValue::Bool,
        Constant::Char(_) => SomeValue::Char,
        Constant::Str(s) if s.chars().count() == 1 => SomeValue::Char,
        Constant::Str(s) => SomeValue::String {
            can_be_none: false,
            no_nul: !s.contains('\0'),
        },
        Constant::None => SomeValue::None,
        Constant::Func(name) => SomeValue::function(name.clone()),
        Constant::Builtin(name) => SomeValue::Builtin(name.clone()),
        Constant::Class(name) => SomeValue::Pbc {
            descs: vec![Desc::Class(name.clone())],
            can_be_none: false,
        },
        // A prebuilt object's annotation needs the program (`Annotator::prebuilt`).
        Constant::Name(_) | Constant::LastException | Constant::Prebuilt(_) => SomeValue::Object,
    }
}

/// The join of two annotations, for everything but lists and dicts of two
/// different definitions (the annotator merges those, see `Annotator::join`).
/// Bottom, equal values and what a rule cannot spell are handled here,
/// everything else by the union rules.
pub fn union(a: &SomeValue, b: &SomeValue) -> Option<SomeValue> {
    use SomeValue as S;
    match (a, b) {
        (S::Impossible, x) | (x, S::Impossible) => Some(x.clone()),
        (x, y) if x == y => Some(x.clone()),
        (S::Tuple(xs), S::Tuple(ys)) if xs.len() == ys.len() => xs
            .iter()
            .zip(ys)
            .map(|(x, y)| union(x, y))
            .collect::<Option<Vec<_>>>()
            .map(S::Tuple),
        (
            S::Pbc {
                descs: d1,
                can_be_none: n1,
            },
            S::Pbc {
                descs: d2,
                can_be_none: n2,
            },
        ) => {
            let mut descs: Vec<Desc> = d1.iter().chain(d2).cloned().collect();
            descs.sort();
            descs.dedup();
            Some(S::Pbc {
                descs,
                can_be_none: *n1 || *n2,
            })
        }
        (S::Exception(c1), S::Exception(c2)) => {
            let mut classes: Vec<String> = c1.iter().chain(c2).cloned().collect();
            classes.sort();
            classes.dedup();
            Some(S::Exception(classes))
        }
        (
            S::Instance {
                class: c1,
                can_be_none: n1,
            },
            S::Instance {
                class: c2,
                can_be_none: n2,
            },
        ) if c1 == c2 => Some(S::Instance {
            class: c1.clone(),
            can_be_none: *n1 || *n2,
        }),
        (
            x @ (S::String { .. } | S::Unicode { .. } | S::Instance { .. } | S::Pbc { .. }),
            S::None,
        )
        | (
            S::None,
            x @ (S::String { .. } | S::Unicode { .. } | S::Instance { .. } | S::Pbc { .. }),
        ) => {
            let mut v = x.clone();
            if let S::String { can_be_none, .. }
            | S::Unicode { can_be_none, .. }
            | S::Instance { can_be_none, .. }
            | S::Pbc { can_be_none, .. } = &mut v
            {
                *can_be_none = true;
            }
            Some(v)
        }
        _ => rules::annotate::union(a, b),
    }
}

/// The annotation `entry_point` receives: the command-line arguments (C
/// strings, so never holding a NUL).
pub fn argv_annotation() -> SomeValue {
    SomeValue::List(ListDef {
        id: 0,
        item: Box::new(argv_item()),
        resizable: false,
    })
}

fn argv_item() -> SomeValue {
    SomeValue::String {
        can_be_none: false,
        no_nul: true,
    }
}

/// The variable known not to be None on `link`: the block switches on
/// `x is None` (or `not (x is None)`, as `x is not None` flows) and the link
/// is the case where it is not. That is the `is None` narrowing of the seed:
/// the branch gets `x` without None.
fn not_none_on(block: &Block, link: &Link) -> Option<Var> {
    let Some(Constant::Bool(case)) = &link.exitcase else {
        return None;
    };
    let switch = block.exitswitch.as_ref()?.as_var()?;
    let defining = |v: Var| block.operations.iter().find(|o| o.result == v);
    let mut op = defining(switch)?;
    let mut none_case = true;
    if op.opname == "not_" {
        op = defining(op.args.first()?.as_var()?)?;
        none_case = false;
    }
    match (op.opname.as_str(), op.args.as_slice()) {
        ("is_", [Arg::Var(x), Arg::Const(Constant::None)])
        | ("is_", [Arg::Const(Constant::None), Arg::Var(x)])
            if *case != none_case =>
        {
            Some(*x)
        }
        _ => None,
    }
}

/// Why a block cannot be flowed (yet): it is reported if it stays so.
type Blocked = Diagnostic;

struct Annotator<'p> {
    program: &'p Program<Flow>,
    source: &'p str,
    graph_index: HashMap<&'p str, usize>,
    /// The annotation of every variable of every graph.
    ann: Vec<Vec<SomeValue>>,
    containers: Containers,
    provenance: Provenance,
    /// Blocks waiting to be flowed, and the set of them to avoid duplicates.
    pending: VecDeque<(usize, BlockId)>,
    queued: BTreeSet<(usize, BlockId)>,
    /// Blocks flowed at least once: a link reaching any other block schedules it.
    flowed: BTreeSet<(usize, BlockId)>,
    /// For each graph, the blocks that call it (reflowed when its return generalizes).
    callers: Vec<BTreeSet<(usize, BlockId)>>,
    /// Errors by (graph, block), so a reflowed block reports once.
    errors: HashMap<(usize, BlockId), Blocked>,
}

/// The position a link leaves its block at: links carry none, so the last
/// operation of the source block that has one stands for it.
fn link_pos(graph: &FunctionGraph<Flow>, from: BlockId) -> Option<Pos> {
    graph
        .block(from)
        .operations
        .iter()
        .rev()
        .find_map(|o| o.pos)
}

impl<'p> Annotator<'p> {
    fn new(program: &'p Program<Flow>, source: &'p str) -> Annotator<'p> {
        Annotator {
            program,
            source,
            graph_index: program
                .graphs
                .iter()
                .enumerate()
                .map(|(i, g)| (g.name.as_str(), i))
                .collect(),
            ann: program
                .graphs
                .iter()
                .map(|g| vec![SomeValue::Impossible; g.vars.len()])
                .collect(),
            containers: Containers::default(),
            provenance: Provenance::new(program),
            pending: VecDeque::new(),
            queued: BTreeSet::new(),
            flowed: BTreeSet::new(),
            callers: vec![BTreeSet::new(); program.graphs.len()],
            errors: HashMap::new(),
        }
    }

    fn schedule(&mut self, g: usize, b: BlockId) {
        if self.queued.insert((g, b)) {
            self.pending.push_back((g, b));
        }
    }

    fn schedule_all(&mut self, readers: Vec<(usize, BlockId)>) {
        for (g, b) in readers {
            if self.flowed.contains(&(g, b)) {
                self.schedule(g, b);
            }
        }
    }

    fn var_annotation(&self, g: usize, v: Var) -> SomeValue {
        self.containers.resolve(&self.ann[g][v.0 as usize])
    }

    fn arg_annotation(&mut self, g: usize, a: &Arg) -> SomeValue {
        match a {
            Arg::Var(v) => self.var_annotation(g, *v),
            Arg::Const(c) => self.constant(c),
        }
    }

    /// The annotation of a constant, prebuilt objects included.
    fn constant(&mut self, c: &Constant) -> SomeValue {
        match c {
            Constant::Prebuilt(i) => self.prebuilt(*i, &mut BTreeSet::new()),
            other => annotate_constant(other),
        }
    }

    /// The annotation of prebuilt object `i`: its list or dict definition is
    /// the one of its site, generalized with its items (`visiting` breaks
    /// cycles between objects that refer to each other).
    fn prebuilt(&mut self, i: u32, visiting: &mut BTreeSet<u32>) -> SomeValue {
        let Some(object) = self.program.prebuilt.get(i as usize) else {
            return SomeValue::Object;
        };
        let item = |this: &mut Self, c: &Constant, visiting: &mut BTreeSet<u32>| match c {
            Constant::Prebuilt(j) if visiting.insert(*j) => this.prebuilt(*j, visiting),
            Constant::Prebuilt(_) => SomeValue::Impossible,
            other => annotate_constant(other),
        };
        visiting.insert(i);
        let value = match object {
            PrebuiltObject::Tuple(items) => {
                SomeValue::Tuple(items.iter().map(|c| item(self, c, visiting)).collect())
            }
            PrebuiltObject::List(items) => {
                let id = self.containers.at_site(Site::Prebuilt(i));
                for c in items {
                    let v = item(self, c, visiting);
                    let _ = self.generalize_part(id, false, &v);
                }
                SomeValue::List(ListDef {
                    id,
                    item: Box::new(SomeValue::Impossible),
                    resizable: false,
                })
            }
            PrebuiltObject::Dict(entries) => {
                let id = self.containers.at_site(Site::Prebuilt(i));
                for (k, v) in entries {
                    let k = item(self, k, visiting);
                    let v = item(self, v, visiting);
                    let _ = self.generalize_part(id, false, &k);
                    let _ = self.generalize_part(id, true, &v);
                }
                SomeValue::Dict(DictDef {
                    id,
                    key: Box::new(SomeValue::Impossible),
                    value: Box::new(SomeValue::Impossible),
                })
            }
            PrebuiltObject::Instance { class, .. } => SomeValue::Instance {
                class: class.clone(),
                can_be_none: false,
            },
            // A class definition: graphs name it by `Constant::Class`.
            PrebuiltObject::Class { name, .. } => annotate_constant(&Constant::Class(name.clone())),
        };
        self.containers.resolve(&value)
    }

    fn graph(&self, g: usize) -> &'p FunctionGraph<Flow> {
        &self.program.graphs[g]
    }

    fn error(&self, g: usize, pos: Option<Pos>, message: String) -> Diagnostic {
        let pos = pos.or(self.graph(g).pos).unwrap_or_default();
        Diagnostic::new(self.program.path.clone(), pos, message).with_source(self.source)
    }

    /// The join of two annotations; two lists (or dicts) meeting merge their
    /// definitions, and the readers of both are flowed again.
    fn join(&mut self, a: &SomeValue, b: &SomeValue) -> Option<SomeValue> {
        match (a, b) {
            (SomeValue::List(x), SomeValue::List(y)) => {
                self.merge_definitions(x.id, y.id)?;
                Some(self.containers.resolve(a))
            }
            (SomeValue::Dict(x), SomeValue::Dict(y)) => {
                self.merge_definitions(x.id, y.id)?;
                Some(self.containers.resolve(a))
            }
            (SomeValue::Tuple(xs), SomeValue::Tuple(ys)) if xs.len() == ys.len() => xs
                .iter()
                .zip(ys)
                .map(|(x, y)| self.join(x, y))
                .collect::<Option<Vec<_>>>()
                .map(SomeValue::Tuple),
            _ => union(a, b),
        }
    }

    /// Merges two list or dict definitions (their items joined, lists of
    /// lists merging in turn); `None` when the items do not join.
    fn merge_definitions(&mut self, a: u32, b: u32) -> Option<()> {
        let (a, b) = (self.containers.find(a), self.containers.find(b));
        if a == b {
            return Some(());
        }
        let first = self.join(
            &self.containers.part(a, false),
            &self.containers.part(b, false),
        )?;
        let second = self.join(
            &self.containers.part(a, true),
            &self.containers.part(b, true),
        )?;
        // Joining the items may have merged these very definitions.
        let (a, b) = (self.containers.find(a), self.containers.find(b));
        if a != b {
            let readers = self.containers.merge(a.min(b), a.max(b), first, second);
            self.schedule_all(readers);
        }
        Some(())
    }

    /// Generalizes part `second` of definition `id` with `value`; the two
    /// annotations that do not join when it fails.
    fn generalize_part(
        &mut self,
        id: u32,
        second: bool,
        value: &SomeValue,
    ) -> Result<(), (SomeValue, SomeValue)> {
        let old = self.containers.part(id, second);
        let new = self
            .join(&old, value)
            .ok_or_else(|| (old.clone(), value.clone()))?;
        let new = self.containers.resolve(&new);
        let readers = self.containers.set_part(id, second, new);
        self.schedule_all(readers);
        Ok(())
    }

    /// Generalizes `var` to include `value`, which came from `origin`; true
    /// when its annotation changed. A join the lattice has no rule for is
    /// reported, naming where each of the two annotations came from.
    fn generalize(
        &mut self,
        (g, var): GraphVar,
        value: &SomeValue,
        origin: Origin,
        what: &dyn Fn() -> String,
    ) -> Result<bool, Diagnostic> {
        let old = self.var_annotation(g, var);
        let Some(new) = self.join(&old, value) else {
            return Err(self.conflict((g, var), &old, value, &origin, what()));
        };
        let changed = new != old;
        if changed || self.provenance.of((g, var)).is_empty() {
            self.provenance.record((g, var), value.clone(), origin);
        }
        self.ann[g][var.0 as usize] = new;
        Ok(changed)
    }

    /// "x is an int here (line 3: ...) and a str here (line 5: ...)".
    fn conflict(
        &self,
        (g, var): GraphVar,
        old: &SomeValue,
        new: &SomeValue,
        origin: &Origin,
        what: String,
    ) -> Diagnostic {
        let (new_g, new_root) = self.provenance.root(g, origin, new);
        // The earliest contribution that cannot join the new value is what
        // the user wrote first; fall back on the first one.
        let contributions = self.provenance.of((g, var));
        let old_contribution = contributions
            .iter()
            .find(|c| union(&c.value, new).is_none())
            .or(contributions.first());
        let old_where = match old_contribution {
            Some(c) => {
                let (og, root) = self.provenance.root(g, &c.origin, &c.value);
                self.where_(og, &root)
            }
            None => "before".into(),
        };
        let message = format!(
            "{what} is {} here ({old_where}) and {} here ({}); RPython needs one type for it",
            old.describe(),
            new.describe(),
            self.where_(new_g, &new_root),
        );
        let pos =
            provenance::source_pos(self.program, self.source, new_g, &new_root).or(origin.pos());
        self.error(new_g, pos, message)
    }

    fn where_(&self, g: usize, origin: &Origin) -> String {
        match origin {
            Origin::Argv => "the command-line arguments".into(),
            o => match provenance::source_pos(self.program, self.source, g, o) {
                Some(p) => describe_pos(Some(p), self.source),
                None => format!("at the start of {}()", self.graph(g).name),
            },
        }
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
        for (index, op) in block.operations.iter().enumerate() {
            let args: Vec<SomeValue> = op.args.iter().map(|a| self.arg_annotation(g, a)).collect();
            if let Some(i) = args.iter().position(|a| *a == SomeValue::Impossible) {
                return Err(self.never_runs(g, b, op, i));
            }
            let mut ids = Vec::new();
            args.iter().for_each(|a| Containers::ids_in(a, &mut ids));
            for id in ids {
                self.containers.add_reader(id, (g, b));
            }
            let result = self.op_result(g, b, index, op, &args)?;
            let desc = self.var_description(g, op.result);
            let origin = Origin::Op {
                block: b,
                opname: op.opname.clone(),
                pos: op.pos,
            };
            self.generalize((g, op.result), &result, origin, &|| desc.clone())?;
        }
        if let Some(switch) = &block.exitswitch {
            let s = self.arg_annotation(g, switch);
            if s != SomeValue::Bool && *switch != Arg::Const(Constant::LastException) {
                return Err(self.error(
                    g,
                    link_pos(graph, b),
                    format!("a condition must be a bool here, found {}", s.describe()),
                ));
            }
        }
        let pos = link_pos(graph, b).or(graph.pos);
        for link in &block.exits {
            self.flow_link(g, b, link, pos)?;
        }
        Ok(())
    }

    /// Generalizes the target's input arguments with what `link` passes.
    fn flow_link(
        &mut self,
        g: usize,
        b: BlockId,
        link: &Link,
        pos: Option<Pos>,
    ) -> Result<(), Diagnostic> {
        let graph = self.graph(g);
        if let Some(Constant::Class(class)) = &link.exitcase {
            // An exception exit: what the handler receives.
            let caught = [
                (
                    link.last_exception,
                    annotate_constant(&Constant::Class(class.clone())),
                ),
                (
                    link.last_exc_value,
                    SomeValue::Exception(vec![class.clone()]),
                ),
            ];
            for (var, value) in caught {
                if let Some(v) = var {
                    let origin = Origin::Handler { from: b, pos };
                    self.generalize((g, v), &value, origin, &|| "the caught exception".into())?;
                }
            }
        }
        let target = graph.block(link.target);
        // A link passing a value no run can produce (the item of an empty
        // list, the result of a call that never returns) is never taken.
        let not_none = not_none_on(graph.block(b), link);
        let values: Vec<SomeValue> = link
            .args
            .iter()
            .map(|a| match a {
                Arg::Var(v) if Some(*v) == not_none => self.var_annotation(g, *v).without_none(),
                _ => self.arg_annotation(g, a),
            })
            .collect();
        if values.contains(&SomeValue::Impossible) {
            return Ok(());
        }
        let mut changed =
            link.target != graph.returnblock && !self.flowed.contains(&(g, link.target));
        for ((arg, value), &param) in link.args.iter().zip(values).zip(&target.inputargs) {
            let desc = if link.target == graph.returnblock {
                format!("the value returned by {}()", graph.name)
            } else {
                self.var_description(g, param)
            };
            // Where a constant or a returned variable was written is looked
            // up in the source only when a message needs it (`source_pos`).
            let origin = Origin::Link {
                from: b,
                arg: arg.clone(),
                pos,
                param: (link.target != graph.returnblock).then_some(param),
            };
            changed |= self.generalize((g, param), &value, origin, &|| desc.clone())?;
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
        Ok(())
    }

    /// Why `op` cannot run yet: its argument `i` has no value. The block is
    /// flowed again when one arrives; if none ever does, this is reported.
    fn never_runs(&self, g: usize, b: BlockId, op: &SpaceOperation, i: usize) -> Diagnostic {
        let block = self.graph(g).block(b);
        let defining_call = op.args[i].as_var().and_then(|v| {
            block.operations.iter().find_map(|d| match d.args.first() {
                Some(Arg::Const(Constant::Func(f))) if d.result == v => Some(f.clone()),
                _ => None,
            })
        });
        let why = match (defining_call, &op.args[i]) {
            (Some(f), _) => format!("{f}() never returns"),
            (None, Arg::Var(v)) => format!("{} never gets a value", self.var_description(g, *v)),
            (None, Arg::Const(_)) => "a constant has no value".into(),
        };
        self.error(g, op.pos, format!("'{}' can never run: {why}", op.opname))
    }

    /// The annotation of `op`'s result: containers and calls here, every
    /// other operation by the rules.
    fn op_result(
        &mut self,
        g: usize,
        b: BlockId,
        index: usize,
        op: &SpaceOperation,
        args: &[SomeValue],
    ) -> Result<SomeValue, Diagnostic> {
        let untypable = |this: &Self| this.error(g, op.pos, describe_untypable(op, args));
        match (op.opname.as_str(), args) {
            ("simple_call", [SomeValue::Pbc { descs, can_be_none }, rest @ ..]) => {
                if *can_be_none {
                    return Err(self.error(
                        g,
                        op.pos,
                        format!(
                            "calling {} needs a check that it is not None first",
                            args[0].describe()
                        ),
                    ));
                }
                let mut result = SomeValue::Impossible;
                for desc in descs {
                    let r = self.call_desc(g, b, op, desc, rest)?;
                    result = self.join(&result, &r).ok_or_else(|| {
                        self.error(
                            g,
                            op.pos,
                            format!(
                                "the functions called here return {} and {}; RPython needs one type",
                                result.describe(),
                                r.describe()
                            ),
                        )
                    })?;
                }
                Ok(result)
            }
            _ => {
                if let Some(result) = self.container_op(g, b, index, op, args) {
                    return result;
                }
                rules::annotate::op_result(&op.opname, args).ok_or_else(|| untypable(self))
            }
        }
    }

    /// A call of one prebuilt object: a function of the program or a class.
    fn call_desc(
        &mut self,
        g: usize,
        b: BlockId,
        op: &SpaceOperation,
        desc: &Desc,
        args: &[SomeValue],
    ) -> Result<SomeValue, Diagnostic> {
        match desc {
            Desc::Function(name) => self.call(g, b, op, name, args),
            // Builtin exception classes: `raise ValueError(...)` builds one.
            Desc::Class(name) if !self.graph_index.contains_key(name.as_str()) => {
                Ok(SomeValue::Exception(vec![name.clone()]))
            }
            Desc::Class(name) => Err(self.error(
                g,
                op.pos,
                format!("instantiating the class {name} is not supported yet"),
            )),
            other => Err(self.error(
                g,
                op.pos,
                format!(
                    "calling {} is not supported yet",
                    SomeValue::Pbc {
                        descs: vec![other.clone()],
                        can_be_none: false,
                    }
                    .describe()
                ),
            )),
        }
    }

    /// A call of the program's function `callee`: generalizes its parameters
    /// and yields what it returns so far.
    fn call(
        &mut self,
        g: usize,
        b: BlockId,
        op: &SpaceOperation,
        callee: &str,
        args: &[SomeValue],
    ) -> Result<SomeValue, Diagnostic> {
        let pos = op.pos;
        let Some(&cg) = self.graph_index.get(callee) else {
            return Err(self.error(g, pos, format!("call of unknown function '{callee}'")));
        };
        self.callers[cg].insert((g, b));
        let callee_graph = self.graph(cg);
        let params = callee_graph.params().to_vec();
        if params.len() != args.len() {
            let def_line = callee_graph
                .pos
                .map(|p| format!(" (defined at line {})", p.line))
                .unwrap_or_default();
            return Err(self.error(
                g,
                pos,
                format!(
                    "{callee}(){def_line} takes {} argument{} but is called with {}",
                    params.len(),
                    if params.len() == 1 { "" } else { "s" },
                    args.len()
                ),
            ));
        }
        let mut changed = false;
        for (i, (&p, a)) in params.iter().zip(args).enumerate() {
            let desc = match &callee_graph.vars[p.0 as usize].name {
                Some(n) => format!("argument '{n}' of {callee}()"),
                None => format!("argument {} of {callee}()", i + 1),
            };
            let origin = Origin::CallArg {
                caller: g,
                index: i,
                arg: op.args[i + 1].clone(),
                pos,
            };
            changed |= self.generalize((cg, p), a, origin, &|| desc.clone())?;
        }
        if changed || !self.flowed.contains(&(cg, callee_graph.startblock)) {
            self.schedule(cg, callee_graph.startblock);
        }
        let ret = callee_graph.block(callee_graph.returnblock).inputargs[0];
        Ok(self.var_annotation(cg, ret))
    }

    /// Runs the worklist to its fixpoint.
    fn run(&mut self) {
        while let Some((g, b)) = self.pending.pop_front() {
            self.queued.remove(&(g, b));
            self.flowed.insert((g, b));
            match self.flow_block(g, b) {
                Ok(()) => {
                    self.errors.remove(&(g, b));
                }
                Err(d) => {
                    self.errors.insert((g, b), d);
                }
            }
        }
    }

    /// Starts at the entry point, called with the command-line arguments.
    fn start(&mut self) -> Result<usize, Diagnostics> {
        let program = self.program;
        let Some(&entry) = self.graph_index.get(program.entry.as_str()) else {
            return Err(Diagnostics::one(Diagnostic::new(
                program.path.clone(),
                Pos::default(),
                format!("the entry point '{}' has no graph", program.entry),
            )));
        };
        let entry_graph = self.graph(entry);
        if entry_graph.params().len() != 1 {
            return Err(Diagnostics::one(self.error(
                entry,
                None,
                format!(
                    "the entry point {}() must take exactly one argument, the list of command-line arguments; it takes {}",
                    entry_graph.name,
                    entry_graph.params().len()
                ),
            )));
        }
        let argv = self.containers.at_site(Site::Argv);
        let _ = self.generalize_part(argv, false, &argv_item());
        let argv = self.containers.resolve(&argv_annotation());
        for &p in entry_graph.params() {
            let _ = self.generalize((entry, p), &argv, Origin::Argv, &String::new);
        }
        self.schedule(entry, entry_graph.startblock);
        self.run();
        Ok(entry)
    }

    /// Every error left, one per blocked block, in graph and block order.
    fn remaining_errors(&self) -> Option<Diagnostics> {
        if self.errors.is_empty() {
            return None;
        }
        let mut errors: Vec<(&(usize, BlockId), &Diagnostic)> = self.errors.iter().collect();
        errors.sort_by_key(|e| *e.0);
        let mut seen = BTreeSet::new();
        let diags = errors
            .into_iter()
            .map(|(_, d)| d.clone())
            .filter(|d| seen.insert((d.pos, d.message.clone())))
            .collect();
        Some(Diagnostics(diags))
    }

    /// Every variable's final annotation, lists and dicts brought up to date.
    fn final_annotations(&self) -> Vec<Vec<SomeValue>> {
        self.ann
            .iter()
            .map(|vars| vars.iter().map(|v| self.containers.resolve(v)).collect())
            .collect()
    }
}

/// Annotates the whole program, starting from the entry point called with the
/// command-line arguments.
pub fn annotate(program: Program<Flow>, source: &str) -> Result<Program<Annotated>, Diagnostics> {
    let mut a = Annotator::new(&program, source);
    let entry = a.start()?;
    if let Some(errors) = a.remaining_errors() {
        return Err(errors);
    }
    let entry_graph = a.graph(entry);
    let ret = entry_graph.block(entry_graph.returnblock).inputargs[0];
    match &a.var_annotation(entry, ret) {
        SomeValue::Integer { .. } | SomeValue::Bool | SomeValue::Impossible => {}
        other => {
            let root = a
                .provenance
                .of((entry, ret))
                .iter()
                .find(|c| !matches!(c.value, SomeValue::Integer { .. } | SomeValue::Bool))
                .map(|c| a.provenance.root(entry, &c.origin, &c.value));
            let pos = root
                .as_ref()
                .and_then(|(g, o)| provenance::source_pos(&program, source, *g, o));
            return Err(Diagnostics::one(a.error(
                entry,
                pos,
                format!(
                    "the entry point {}() must return an int (the exit status), but it returns {}",
                    entry_graph.name,
                    other.describe()
                ),
            )));
        }
    }
    let ann = a.final_annotations();
    let Program {
        path,
        graphs,
        entry,
        types,
        prebuilt,
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
        prebuilt,
    })
}

/// Why variables named by `query` got their annotations: `func:var` (a
/// variable of one function) or `var` (that name in every function). Each
/// SSA variable holding the name is explained: its annotation, then every
/// contribution to it with its position, following links back. Works on a
/// program that does not annotate too (what was inferred until it stopped).
pub fn explain(program: &Program<Flow>, source: &str, query: &str) -> Result<String, String> {
    let (func, var) = match query.split_once(':') {
        Some((f, v)) => (Some(f), v),
        None => (None, query),
    };
    if let Some(f) = func {
        if program.graph(f).is_none() {
            let names: Vec<&str> = program.graphs.iter().map(|g| g.name.as_str()).collect();
            return Err(format!(
                "there is no function '{f}'; the functions are: {}",
                names.join(", ")
            ));
        }
    }
    let mut a = Annotator::new(program, source);
    a.start().map_err(|d| d.to_string())?;
    let ann = a.final_annotations();
    let mut out = String::new();
    for (g, graph) in program.graphs.iter().enumerate() {
        if func.is_some_and(|f| f != graph.name) {
            continue;
        }
        // Only variables the graph still uses: reachable blocks.
        let mut used = BTreeSet::new();
        for b in graph.reverse_postorder() {
            let block = graph.block(b);
            used.extend(block.inputargs.iter().copied());
            used.extend(block.operations.iter().map(|o| o.result));
        }
        for v in used {
            if graph.vars[v.0 as usize].name.as_deref() == Some(var) {
                out.push_str(&provenance::explain_var(
                    program,
                    &a.provenance,
                    &ann,
                    (g, v),
                    source,
                ));
            }
        }
    }
    if out.is_empty() {
        return Err(format!(
            "no variable named '{var}'{}; give NAME or FUNCTION:NAME",
            func.map(|f| format!(" in {f}()")).unwrap_or_default()
        ));
    }
    if let Some(errors) = a.remaining_errors() {
        out.push_str(&format!("\n(the program does not annotate:)\n{errors}"));
    }
    Ok(out)
}

/// Annotates and returns, with the result, every variable's annotation and
/// their provenance, whether or not the program annotates: for tests that
/// check annotations against what the program does, and for tools.
pub fn annotations_of(program: &Program<Flow>, source: &str) -> Vec<Vec<SomeValue>> {
    let mut a = Annotator::new(program, source);
    let _ = a.start();
    a.final_annotations()
}

#[cfg(test)]
mod tests;

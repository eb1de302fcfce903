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
//! exception classes, None into any kind that can hold it), known values
//! (`SomeValue::Const`: folded through `bool`, `not`, `is None`, comparisons
//! and `issubclass`, so a known condition annotates one branch, the other
//! being cut from the annotated graph; the rules see general annotations),
//! what each function raises (`exceptions`: a handler around a call receives
//! the classes its callee raises), the program's classes (`classdefs`: one
//! ClassDef per class, instance attributes joined over every store and moved
//! up to the class they are used through, method calls on every override,
//! special methods, isinstance), the rlib functions no test program uses yet
//! (`rlib_calls`; the others are `rules/annotate/rlib.rules`), which copy of
//! a specialized function each call runs (`specialize`: `*args`,
//! `@specialize.argtype/arg/call_location/memo`), and where each
//! annotation came from (`provenance`), for errors and `--explain`.

mod classdefs;
mod container_ops;
mod containers;
mod exceptions;
mod externals;
pub(crate) mod frozen;
pub mod lowlevel;
mod messages;
pub mod provenance;
mod rlib_calls;
mod specialize;

use crate::simplify::simplify_graph;
use classdefs::BASE_EXCEPTION_INIT;
use containers::{Containers, Site};
use exceptions::{raised_by_operation, Hierarchy, Raised};
use fxhash::FxHashMap;
use messages::describe_untypable;
use provenance::{describe_pos, GraphVar, Origin, Provenance};
use rpy_ir::annotation::{Desc, DictDef, Known, ListDef, ProgramFacts, SomeValue};
use rpy_ir::ast::Dialect;
use rpy_ir::diag::{Diagnostic, Diagnostics, Pos};
use rpy_ir::graph::{
    Annotated, Arg, Block, BlockId, Constant, Flow, FunctionGraph, JitDriverDecl, Link,
    PrebuiltObject, Program, SpaceOperation, Var,
};
use rpy_ir::opcode::Opcode;
pub(crate) use specialize::known_constant_of;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// The annotation of a constant.
pub fn annotate_constant(c: &Constant) -> SomeValue {
    match c {
        Constant::Int(n) => SomeValue::Integer {
            nonneg: *n >= 0,
            unsigned: false,
        },
        Constant::UInt(_) => SomeValue::Integer {
            nonneg: true,
            unsigned: true,
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
            descs: [Desc::Class(name.clone())].into(),
            can_be_none: false,
        },
        // A prebuilt object's annotation needs the program (`Annotator::prebuilt`).
        Constant::Name(_) | Constant::LastException | Constant::Prebuilt(_) => SomeValue::Object,
    }
}

/// What the annotator knows of constant `c` exactly: scalars are known
/// values (`SomeValue::Const`), anything else is `annotate_constant`'s.
pub fn known_constant(c: &Constant) -> SomeValue {
    let known = match c {
        Constant::Int(n) => Known::Int(*n),
        Constant::Bool(b) => Known::Bool(*b),
        Constant::Char(b) => Known::Char(*b),
        Constant::Str(s) if s.chars().count() == 1 => {
            match s
                .chars()
                .next()
                .and_then(|ch| u8::try_from(u32::from(ch)).ok())
            {
                Some(b) => Known::Char(b),
                None => return annotate_constant(c),
            }
        }
        Constant::Str(s) => Known::Str(s.clone()),
        other => return annotate_constant(other),
    };
    SomeValue::Const(known)
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
        // Two different known values: what is known of both is their kind.
        (S::Const(_), _) | (_, S::Const(_)) => union(&a.general(), &b.general()),
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
            let mut descs: Vec<Desc> = d1.iter().chain(d2.iter()).cloned().collect();
            descs.sort();
            descs.dedup();
            Some(S::Pbc {
                descs: descs.into(),
                can_be_none: *n1 || *n2,
            })
        }
        (
            S::Exception {
                classes: c1,
                can_be_none: n1,
            },
            S::Exception {
                classes: c2,
                can_be_none: n2,
            },
        ) => {
            let mut classes: Vec<String> = c1.iter().chain(c2).cloned().collect();
            classes.sort();
            classes.dedup();
            Some(S::Exception {
                classes,
                can_be_none: *n1 || *n2,
            })
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
        // None joins the kinds that can hold it (a null pointer is a value
        // of every pointer type); no other.
        (x, S::None) | (S::None, x) if *x != S::Object => x.or_none(),
        (
            S::BuiltinMethod {
                name: n1,
                receiver: r1,
            },
            S::BuiltinMethod {
                name: n2,
                receiver: r2,
            },
        ) if n1 == n2 => union(r1, r2).map(|r| S::BuiltinMethod {
            name: n1.clone(),
            receiver: Box::new(r),
        }),
        _ => rpy_ruleset::annotate::union(a, b),
    }
}

/// The annotation `entry_point` receives: the command-line arguments (C
/// strings, so never holding a NUL).
pub fn argv_annotation() -> SomeValue {
    SomeValue::List(ListDef {
        id: 0,
        item: Box::new(argv_item()),
        resizable: false,
        can_be_none: false,
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
    if op.opname == Opcode::Not {
        op = defining(op.args.first()?.as_var()?)?;
        none_case = false;
    }
    match (op.opname, op.args.as_slice()) {
        (Opcode::Is, [Arg::Var(x), Arg::Const(Constant::None)])
        | (Opcode::Is, [Arg::Const(Constant::None), Arg::Var(x)])
            if *case != none_case =>
        {
            Some(*x)
        }
        _ => None,
    }
}

/// The operation whose result the block switches on, looked at through
/// `bool` (`if isinstance(x, C):`, `if i >= 0:`).
fn switch_test(block: &Block) -> Option<&SpaceOperation> {
    let switch = block.exitswitch.as_ref()?.as_var()?;
    let defining = |v: Var| block.operations.iter().find(|o| o.result == v);
    let op = defining(switch)?;
    if op.opname == Opcode::Bool {
        return defining(op.args.first()?.as_var()?);
    }
    Some(op)
}

/// The variable known to be a non-negative int on `link`, as the
/// original's annotator knows it: the block switches on a comparison of
/// two signed ints (through `bool`), one of them non-negative, and the
/// link is the case where the other is not below it (`x >= 0` true,
/// `x < n` false with `n` non-negative, `i == k` true with `k` one).
/// `annotation` gives the operands' annotations.
fn nonneg_on(
    block: &Block,
    link: &Link,
    mut annotation: impl FnMut(&Arg) -> SomeValue,
) -> Option<Var> {
    let Some(Constant::Bool(case)) = &link.exitcase else {
        return None;
    };
    let op = switch_test(block)?;
    let ([x, y], true) = (
        op.args.as_slice(),
        matches!(
            op.opname,
            Opcode::Lt | Opcode::Le | Opcode::Gt | Opcode::Ge | Opcode::Eq
        ),
    ) else {
        return None;
    };
    let (ax, ay) = (annotation(x), annotation(y));
    let signed = |a: &SomeValue| match a.general() {
        SomeValue::Integer { unsigned, .. } => !unsigned,
        SomeValue::Bool => true,
        _ => false,
    };
    let nonneg = |a: &SomeValue| match a {
        SomeValue::Const(Known::Int(k)) => *k >= 0,
        SomeValue::Integer { nonneg, unsigned } => *nonneg && !unsigned,
        SomeValue::Bool => true,
        _ => false,
    };
    if !signed(&ax) || !signed(&ay) {
        return None;
    }
    // `x OP y` with `y` non-negative: `x` is where the result is true for
    // `>`, `>=`, `==` and false for `<`, `<=`.
    let when_y_nonneg = matches!(op.opname, Opcode::Gt | Opcode::Ge | Opcode::Eq);
    let when_x_nonneg = matches!(op.opname, Opcode::Lt | Opcode::Le | Opcode::Eq);
    match (x, y) {
        (Arg::Var(v), _) if nonneg(&ay) && *case == when_y_nonneg => Some(*v),
        (_, Arg::Var(v)) if nonneg(&ax) && *case == when_x_nonneg => Some(*v),
        _ => None,
    }
}

/// The variable known to be an instance of a class on `link`: the block
/// switches on `isinstance(x, C)` (through `bool`) and the link is the case
/// where it is. The branch gets `x` as an instance of `C`.
fn instance_on<'b>(block: &'b Block, link: &Link) -> Option<(Var, &'b str)> {
    let Some(Constant::Bool(true)) = &link.exitcase else {
        return None;
    };
    let op = switch_test(block)?;
    match (op.opname, op.args.as_slice()) {
        (
            Opcode::SimpleCall,
            [Arg::Const(Constant::Builtin(f)), Arg::Var(x), Arg::Const(Constant::Class(c))],
        ) if f == "isinstance" => Some((*x, c.as_str())),
        _ => None,
    }
}

/// Does source line `line` bind `name` as the loop variable of a list
/// comprehension (`[... for name in ...]`)? Only Python 2 leaks that
/// variable into the function, so a conflict there is worth a note.
fn binds_in_comprehension(line: &str, name: &str) -> bool {
    let target = format!(" for {name} in ");
    line.find(&target)
        .is_some_and(|at| line[..at].rfind('[') > line[..at].rfind(']'))
}

/// How a variable of `graph` reads in a message.
fn describe_var(graph: &FunctionGraph<Flow>, v: Var) -> String {
    match &graph.vars[v.0 as usize].name {
        Some(name) => format!("variable '{name}' in {}()", graph.name),
        None => format!("a value in {}()", graph.name),
    }
}

/// Why a block cannot be flowed (yet): it is reported if it stays so.
type Blocked = Diagnostic;

/// Where annotation starts.
#[derive(Clone)]
pub(crate) enum Entry {
    /// The program's entry point, called with the command-line arguments.
    Program,
    /// A low-level helper, called with arguments of these annotations
    /// (`lowlevel::annotate_helper`).
    Helper {
        graph: String,
        inputs: Vec<SomeValue>,
        /// Functions of the program the helper is passed (an r_dict's key
        /// functions), annotated with the program: what a call of each
        /// gives.
        program_functions: Vec<(String, SomeValue)>,
    },
}

struct Annotator<'p> {
    program: &'p Program<Flow>,
    entry: Entry,
    /// The program's dialect (which special methods its operations call).
    dialect: Dialect,
    graph_index: FxHashMap<&'p str, usize>,
    /// The annotation of every variable of every graph.
    ann: Vec<Vec<SomeValue>>,
    containers: Containers,
    provenance: Provenance,
    /// Blocks waiting to be flowed, and the set of them to avoid duplicates.
    pending: VecDeque<(usize, BlockId)>,
    queued: BTreeSet<(usize, BlockId)>,
    /// Blocks flowed at least once: a link reaching any other block schedules it.
    flowed: BTreeSet<(usize, BlockId)>,
    /// The exits of each block values were passed along the last time it
    /// was flowed: the others no run takes (`cut_dead_links`).
    followed: FxHashMap<(usize, BlockId), Vec<usize>>,
    /// For each graph, the blocks that call it (reflowed when its return generalizes).
    callers: Vec<BTreeSet<(usize, BlockId)>>,
    /// Errors by (graph, block), so a reflowed block reports once.
    errors: FxHashMap<(usize, BlockId), Blocked>,
    /// Blocked blocks waiting for the result of a call, by the callee: when
    /// the callee has errors of its own, "never returns" is their echo.
    waiting_on: FxHashMap<(usize, BlockId), usize>,
    hierarchy: Hierarchy,
    /// What each graph may raise to its callers, as found so far.
    raised: Vec<Raised>,
    /// The program's classes and their instances' attributes.
    classdefs: classdefs::ClassDefs,
    /// The specialized copies the program has (`specialize`), the ones
    /// calls asked for that it does not have yet, and what each call of a
    /// specialized function becomes once annotated.
    copies: specialize::Copies,
    requested: Vec<specialize::CopyRequest>,
    rewrites: BTreeMap<(usize, BlockId, usize), specialize::Rewrite>,
    /// The results of memo functions, by function and constant arguments,
    /// and the interpreter that runs them (made at the first memo call).
    memo_table: specialize::MemoTable,
    memo_runner: Option<specialize::MemoRunner<'p>>,
    /// The key functions of each r_dict, by the dict's site id: one
    /// function each, by graph name.
    custom_keys: BTreeMap<u32, (String, String)>,
    /// The results of copies earlier annotations of low-level helpers
    /// made (`specialize::KnownCopies`).
    known_results: Option<std::sync::Arc<specialize::KnownResults>>,
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
    fn new(
        program: &'p Program<Flow>,
        dialect: Dialect,
        copies: specialize::Copies,
        memo_table: specialize::MemoTable,
        entry: Entry,
        record_provenance: bool,
    ) -> Annotator<'p> {
        Annotator {
            program,
            entry,
            dialect,
            graph_index: program.graph_positions(),
            ann: program
                .graphs
                .iter()
                .map(|g| vec![SomeValue::Impossible; g.vars.len()])
                .collect(),
            containers: Containers::default(),
            provenance: Provenance::new(program, record_provenance),
            pending: VecDeque::new(),
            queued: BTreeSet::new(),
            flowed: BTreeSet::new(),
            followed: FxHashMap::default(),
            callers: vec![BTreeSet::new(); program.graphs.len()],
            errors: FxHashMap::default(),
            waiting_on: FxHashMap::default(),
            hierarchy: Hierarchy::new(program),
            raised: vec![Raised::default(); program.graphs.len()],
            classdefs: classdefs::ClassDefs::new(program),
            copies,
            requested: Vec::new(),
            rewrites: BTreeMap::new(),
            memo_table,
            memo_runner: None,
            custom_keys: BTreeMap::new(),
            known_results: None,
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
            other => known_constant(other),
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
                    can_be_none: false,
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
                    can_be_none: false,
                })
            }
            PrebuiltObject::Instance { class, .. } if self.is_frozen_class(class) => {
                SomeValue::Pbc {
                    descs: [Desc::Frozen(frozen::frozen_name(i))].into(),
                    can_be_none: false,
                }
            }
            PrebuiltObject::Instance { class, attrs } => self.prebuilt_instance(i, class, attrs),
            // A class definition: graphs name it by `Constant::Class`.
            PrebuiltObject::Class { name, .. } => annotate_constant(&Constant::Class(name.clone())),
            // Low-level statics exist only after the rtyper: no Python value.
            PrebuiltObject::Struct { .. } | PrebuiltObject::Array { .. } => SomeValue::Object,
        };
        self.containers.resolve(&value)
    }

    fn graph(&self, g: usize) -> &'p FunctionGraph<Flow> {
        &self.program.graphs[g]
    }

    fn error(&self, g: usize, pos: Option<Pos>, message: String) -> Diagnostic {
        let pos = pos.or(self.graph(g).pos).unwrap_or_default();
        // A block waiting for a value is an error until the value arrives, so
        // errors are made often: the source map finds the line by its
        // offset, not by reading the source up to it.
        self.program.diagnostic(pos, message)
    }

    /// The join of two annotations; two lists (or dicts) meeting merge their
    /// definitions, and the readers of both are flowed again.
    fn join(&mut self, a: &SomeValue, b: &SomeValue) -> Option<SomeValue> {
        match (a, b) {
            (SomeValue::List(ListDef { id: x, .. }), SomeValue::List(ListDef { id: y, .. }))
            | (SomeValue::Dict(DictDef { id: x, .. }), SomeValue::Dict(DictDef { id: y, .. })) => {
                self.merge_definitions(*x, *y)?;
                // `a`'s None-ness is in its own annotation, which `resolve` keeps.
                let joined = self.containers.resolve(a);
                if b.can_be_none() {
                    joined.or_none()
                } else {
                    Some(joined)
                }
            }
            (SomeValue::Tuple(xs), SomeValue::Tuple(ys)) if xs.len() == ys.len() => xs
                .iter()
                .zip(ys)
                .map(|(x, y)| self.join(x, y))
                .collect::<Option<Vec<_>>>()
                .map(SomeValue::Tuple),
            (SomeValue::Instance { .. }, SomeValue::Instance { .. }) => {
                union(a, b).or_else(|| self.join_instances(a, b))
            }
            // The same method of two receivers (a known string and any
            // string, when a loop reflows it): the method of their join,
            // as the original's union of two SomeBuiltinMethods.
            (
                SomeValue::BuiltinMethod {
                    name: n1,
                    receiver: r1,
                },
                SomeValue::BuiltinMethod {
                    name: n2,
                    receiver: r2,
                },
            ) if n1 == n2 && r1 != r2 => Some(SomeValue::BuiltinMethod {
                name: n1.clone(),
                receiver: Box::new(self.join(r1, r2)?),
            }),
            // An iterator over a known string and one over any string (a
            // loop reflowed): an iterator over their join.
            (SomeValue::Iterator(x), SomeValue::Iterator(y)) if x != y => {
                Some(SomeValue::Iterator(Box::new(self.join(x, y)?)))
            }
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
        let holds_itself =
            |c: &Containers, root: u32| c.reaches(&first, root) || c.reaches(&second, root);
        if a != b && (holds_itself(&self.containers, a) || holds_itself(&self.containers, b)) {
            // One would hold the other, so the merged one would hold itself.
            return None;
        }
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
    ) -> Result<(), PartError> {
        let old = self.containers.part(id, second);
        // Items are general: a list known to hold only 0s so far is a list of ints.
        let value = &value.general();
        let new = self
            .join(&old, value)
            .ok_or_else(|| PartError::NoJoin(old.clone(), value.clone()))?;
        if self.containers.reaches(&new, self.containers.find(id)) {
            return Err(PartError::HoldsItself);
        }
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
        if self.unchanged((g, var), value) {
            return Ok(false);
        }
        let old = self.var_annotation(g, var);
        let Some(new) = self.join(&old, value) else {
            return Err(self.conflict((g, var), &old, value, &origin, what()));
        };
        let changed = new != old;
        if changed || !self.provenance.has_any((g, var)) {
            self.provenance.record((g, var), value, origin);
        }
        self.ann[g][var.0 as usize] = new;
        Ok(changed)
    }

    /// Whether generalizing `var` with `value` would change nothing: a
    /// reflow mostly brings what the variable already has, and the join
    /// would copy it only to find it unchanged (most annotations hold no
    /// list or dict, so need no copy to be compared). Callers test it
    /// before making the origin `generalize` takes.
    fn unchanged(&self, (g, var): GraphVar, value: &SomeValue) -> bool {
        let old = self.containers.resolve_cow(&self.ann[g][var.0 as usize]);
        *value == *old && self.provenance.has_any((g, var))
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
        let pos = provenance::source_pos(self.program, &self.program.sources, new_g, &new_root)
            .or(origin.pos());
        let d = self.error(new_g, pos, message);
        if let Some(note) = classdefs::unrelated_classes_note(old, new) {
            return d.with_note(note);
        }
        let name = self.graph(g).vars[var.0 as usize].name.as_deref();
        match (name, &d.source_line) {
            (Some(name), Some(line)) if binds_in_comprehension(line, name) => d.with_note(format!(
                "in Python 2 the loop variable of a list comprehension is the function's own \
                 variable, so after the comprehension '{name}' holds its last item; give the \
                 loop variable another name"
            )),
            _ => d,
        }
    }

    fn where_(&self, g: usize, origin: &Origin) -> String {
        match origin {
            Origin::Argv => "the command-line arguments".into(),
            Origin::HelperArgs => "the helper's arguments".into(),
            o => match provenance::source_pos(self.program, &self.program.sources, g, o) {
                Some(p) => describe_pos(Some(p), &self.program.sources),
                None => format!("at the start of {}()", self.graph(g).name),
            },
        }
    }

    fn var_description(&self, g: usize, v: Var) -> String {
        describe_var(self.graph(g), v)
    }

    /// Flows one block: types its operations, then generalizes its successors.
    fn flow_block(&mut self, g: usize, b: BlockId) -> Result<(), Diagnostic> {
        self.followed.remove(&(g, b));
        let graph = self.graph(g);
        let block = graph.block(b);
        let last = block.operations.len().wrapping_sub(1);
        if block
            .operations
            .first()
            .is_some_and(|op| op.opname == Opcode::FlowError)
        {
            let mut held = self.held_flow_errors(g, b);
            return Err(held.swap_remove(0));
        }
        for (index, op) in block.operations.iter().enumerate() {
            let args: Vec<SomeValue> = op.args.iter().map(|a| self.arg_annotation(g, a)).collect();
            if let Some(i) = args.iter().position(|a| *a == SomeValue::Impossible) {
                // A round that will be redone with new copies goes on past
                // what waits for them, to find every copy it can at once.
                if self.provisional_round() {
                    continue;
                }
                if let Some(callee) = self.waited_callee(g, b, op, i) {
                    if let Some(&cg) = self.graph_index.get(callee.as_str()) {
                        self.waiting_on.insert((g, b), cg);
                    }
                }
                return Err(self.never_runs(g, b, op, i));
            }
            let mut ids = Vec::new();
            args.iter().for_each(|a| Containers::ids_in(a, &mut ids));
            for id in ids {
                self.containers.add_reader(id, (g, b));
            }
            let result = self.op_result(g, b, index, op, &args)?;
            // What the operation raises and no exit of this block catches
            // leaves the function.
            let caught: Vec<&str> = if index == last && block.catches_exceptions() {
                block
                    .exits
                    .iter()
                    .filter_map(|l| match &l.exitcase {
                        Some(Constant::Class(c)) => Some(c.as_str()),
                        _ => None,
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let raised = self.raised_by(op, &args);
            // Most operations raise nothing, and most raise through no
            // handler of this block: neither needs a copy.
            if !raised.is_nothing() {
                if caught.is_empty() {
                    self.note_raised(g, &raised);
                } else {
                    let escaping = raised.escaping(&caught, &self.hierarchy);
                    self.note_raised(g, &escaping);
                }
            }
            let origin = Origin::Op {
                block: b,
                index,
                pos: op.pos,
            };
            let result_var = op.result;
            self.generalize((g, result_var), &result, origin, &|| {
                describe_var(graph, result_var)
            })?;
            // A call that never returns but raises (its callee always
            // raises, `next` of an empty container) ends the block: only the
            // handlers of what it raises are reached, as in the original. A
            // callee that returns later reflows this block; one that neither
            // returns nor raises is reported where its result is used.
            let raises = || {
                let raised = self.raised_by(op, &args);
                raised.unknown || !raised.classes.is_empty()
            };
            if result == SomeValue::Impossible
                && matches!(op.opname, Opcode::SimpleCall | Opcode::Next)
                && !self.provisional_round()
                && raises()
            {
                if index == last && block.catches_exceptions() {
                    let pos = link_pos(graph, b).or(graph.pos);
                    for (i, link) in block.exits.iter().enumerate() {
                        if link.exitcase.is_some() && self.flow_link(g, b, link, pos)? {
                            self.followed.entry((g, b)).or_default().push(i);
                        }
                    }
                }
                return Ok(());
            }
        }
        let mut known_case = None;
        if let Some(switch) = &block.exitswitch {
            let s = self.arg_annotation(g, switch);
            if s == SomeValue::Impossible && self.provisional_round() {
                return Ok(());
            }
            if s.general() != SomeValue::Bool && *switch != Arg::Const(Constant::LastException) {
                return Err(self.error(
                    g,
                    link_pos(graph, b),
                    format!("a condition must be a bool here, found {}", s.describe()),
                ));
            }
            if let Some(Known::Bool(case)) = s.known() {
                known_case = Some(Constant::Bool(*case));
            }
        }
        let pos = link_pos(graph, b).or(graph.pos);
        for (i, link) in block.exits.iter().enumerate() {
            // A known condition takes one way; the other is never annotated
            // (and is cut from the annotated graph, see `cut_dead_links`).
            if known_case.is_some() && link.exitcase != known_case {
                continue;
            }
            if self.flow_link(g, b, link, pos)? {
                self.followed.entry((g, b)).or_default().push(i);
            }
        }
        Ok(())
    }

    /// The special method `op` calls on an instance (`len(x)` calls
    /// `x.__len__()`): the instance's class, the method and its arguments.
    fn special_call(
        &self,
        op: &SpaceOperation,
        args: &[SomeValue],
    ) -> Option<(String, &'static str, Vec<SomeValue>)> {
        let (class, method, rest) = self.special_target(op, args)?;
        Some((class.to_string(), method, rest.to_vec()))
    }

    /// What `special_call` finds, borrowed from `args`.
    fn special_target<'a>(
        &self,
        op: &SpaceOperation,
        args: &'a [SomeValue],
    ) -> Option<(&'a str, &'static str, &'a [SomeValue])> {
        let (opname, operands) = match (op.opname, args) {
            (Opcode::SimpleCall, [SomeValue::Builtin(f), rest @ ..])
                if matches!(f.as_str(), "len" | "iter" | "next") =>
            {
                // The builtin of the same name as the operation.
                (Opcode::from_name(f)?, rest)
            }
            (opname, operands) => (opname, operands),
        };
        let [SomeValue::Instance { class, .. }, rest @ ..] = operands else {
            return None;
        };
        let method = self.special_method(class, opname)?;
        Some((class, method, rest))
    }

    /// What `op` may raise by itself or through the functions it calls.
    fn raised_by(&self, op: &SpaceOperation, args: &[SomeValue]) -> Raised {
        if let Some((class, method, _)) = self.special_target(op, args) {
            return self.special_raised(class, method);
        }
        match (op.opname, args) {
            (Opcode::SimpleCall, [SomeValue::Pbc { descs, .. }, ..]) => {
                let mut raised = Raised::default();
                for d in descs.iter() {
                    match d {
                        Desc::Function(f)
                        | Desc::Method { func: f, .. }
                        | Desc::FrozenMethod { func: f, .. } => {
                            raised.extend(&self.raised_by_function(f))
                        }
                        // Building an instance raises what its __init__
                        // does (an exception without one raises nothing).
                        Desc::Class(c) if self.classdefs.is_program_class(c) => {
                            match self.classdefs.class_attr(c, "__init__") {
                                Some((_, Constant::Func(init))) => {
                                    raised.extend(&self.raised_by_function(init))
                                }
                                _ => false,
                            }
                        }
                        Desc::Class(c) if self.hierarchy.is_subclass(c, "BaseException") => false,
                        _ => raised.extend(&Raised::unknown()),
                    };
                }
                raised
            }
            _ => raised_by_operation(op.opname, args),
        }
    }

    /// What calling function `f` may raise: what its graph raises, as
    /// found so far; anything when it is not the program's.
    fn raised_by_function(&self, f: &str) -> Cow<'_, Raised> {
        // A specialized function raises what any of its copies does.
        if let Some(&cg) = self.graph_index.get(f) {
            if specialize::is_specialized(self.graph(cg)) {
                let mut raised = Raised::default();
                for copy in self.copies_of(f) {
                    raised.extend(&self.raised[copy]);
                }
                return Cow::Owned(raised);
            }
        }
        match self.graph_index.get(f) {
            Some(&cg) => Cow::Borrowed(&self.raised[cg]),
            None => Cow::Owned(Raised::unknown()),
        }
    }

    /// Adds to what graph `g` raises; its callers are flowed again when that
    /// grows (their handlers receive it, and they raise it on).
    fn note_raised(&mut self, g: usize, raised: &Raised) {
        if self.raised[g].extend(raised) {
            let callers: Vec<(usize, BlockId)> = self.callers[g].iter().copied().collect();
            self.schedule_all(callers);
        }
    }

    /// Generalizes the target's input arguments with what `link` passes.
    fn flow_link(
        &mut self,
        g: usize,
        b: BlockId,
        link: &Link,
        pos: Option<Pos>,
    ) -> Result<bool, Diagnostic> {
        let graph = self.graph(g);
        if let Some(Constant::Class(class)) = &link.exitcase {
            // An exception exit: the handler receives what the block's last
            // operation raises of its class.
            let raised = match graph.block(b).operations.last() {
                Some(op) => {
                    let args: Vec<SomeValue> =
                        op.args.iter().map(|a| self.arg_annotation(g, a)).collect();
                    self.raised_by(op, &args)
                }
                None => Raised::unknown(),
            };
            let classes = raised.received_by(class, &self.hierarchy);
            if classes.is_empty() {
                // Nothing this handler catches is raised here (so far).
                return Ok(false);
            }
            let caught = [
                (
                    link.last_exception,
                    SomeValue::Pbc {
                        descs: classes.iter().cloned().map(Desc::Class).collect(),
                        can_be_none: false,
                    },
                ),
                (link.last_exc_value, SomeValue::exception(classes)),
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
        let instance = instance_on(graph.block(b), link);
        let nonneg = nonneg_on(graph.block(b), link, |a| self.arg_annotation(g, a));
        let values: Vec<SomeValue> = link
            .args
            .iter()
            .map(|a| match (a, instance) {
                (Arg::Var(v), _) if Some(*v) == not_none => {
                    self.var_annotation(g, *v).without_none()
                }
                (Arg::Var(v), Some((x, class))) if *v == x => {
                    self.narrow_to_instance(self.var_annotation(g, *v), class)
                }
                (Arg::Var(v), _) if Some(*v) == nonneg => match self.var_annotation(g, *v) {
                    SomeValue::Integer { unsigned, .. } => SomeValue::Integer {
                        nonneg: true,
                        unsigned,
                    },
                    other => other,
                },
                _ => self.arg_annotation(g, a),
            })
            .collect();
        if values.contains(&SomeValue::Impossible) {
            return Ok(false);
        }
        if link.target == graph.exceptblock {
            if let Some(value) = values.get(1) {
                self.note_raised(g, &Raised::from_value(value));
            }
        }
        let mut changed =
            link.target != graph.returnblock && !self.flowed.contains(&(g, link.target));
        for ((arg, value), &param) in link.args.iter().zip(values).zip(&target.inputargs) {
            if self.unchanged((g, param), &value) {
                continue;
            }
            let returned = link.target == graph.returnblock;
            let desc = || {
                if returned {
                    format!("the value returned by {}()", graph.name)
                } else {
                    describe_var(graph, param)
                }
            };
            // Where a constant or a returned variable was written is looked
            // up in the source only when a message needs it (`source_pos`).
            let origin = Origin::Link {
                from: b,
                arg: arg.clone(),
                pos,
                param: (link.target != graph.returnblock).then_some(param),
            };
            changed |= self.generalize((g, param), &value, origin, &desc)?;
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
        Ok(true)
    }

    /// Why `op` cannot run yet: its argument `i` has no value. The block is
    /// flowed again when one arrives; if none ever does, this is reported.
    fn never_runs(&self, g: usize, b: BlockId, op: &SpaceOperation, i: usize) -> Diagnostic {
        let why = match (self.waited_callee(g, b, op, i), &op.args[i]) {
            (Some(f), _) => format!("{f}() never returns"),
            (None, Arg::Var(v)) => format!("{} never gets a value", self.var_description(g, *v)),
            (None, Arg::Const(_)) => "a constant has no value".into(),
        };
        self.error(g, op.pos, format!("'{}' can never run: {why}", op.opname))
    }

    /// The function whose call in block `b` gives `op` its argument `i`, if
    /// that is where the argument comes from.
    fn waited_callee(&self, g: usize, b: BlockId, op: &SpaceOperation, i: usize) -> Option<String> {
        let block = self.graph(g).block(b);
        let v = op.args[i].as_var()?;
        block
            .operations
            .iter()
            .enumerate()
            .find_map(|(index, d)| match d.args.first() {
                Some(Arg::Const(Constant::Func(f))) if d.result == v => {
                    // A call of a specialized function waits on its copy.
                    match self.rewrites.get(&(g, b, index)) {
                        Some(specialize::Rewrite::Call { copy, .. }) => Some(copy.clone()),
                        _ => Some(f.clone()),
                    }
                }
                _ => None,
            })
    }

    /// The annotation of `op`'s result: known values folded, containers,
    /// calls and rlib functions here, every other operation by the rules
    /// (on the general annotations of its arguments).
    fn op_result(
        &mut self,
        g: usize,
        b: BlockId,
        index: usize,
        op: &SpaceOperation,
        args: &[SomeValue],
    ) -> Result<SomeValue, Diagnostic> {
        if let Some(folded) = self.fold(op, args) {
            return Ok(folded);
        }
        if let Some(result) = self.lowlevel_op(op, args) {
            return result.map_err(|why| self.error(g, op.pos, why));
        }
        // Calls and attributes of instances never need the general
        // annotations: they are made the first time they are asked for.
        let general = std::cell::OnceCell::<Vec<SomeValue>>::new();
        let general = || general.get_or_init(|| args.iter().map(SomeValue::general).collect());
        let untypable = |this: &Self| this.error(g, op.pos, describe_untypable(op, general()));
        if let Some(result) = rlib_calls::checked_op(op.opname, args) {
            return result.map_err(|why| self.error(g, op.pos, why));
        }
        if let Some((class, method, rest)) = self.special_call(op, args) {
            return self.call_special(g, b, op, &class, method, &rest);
        }
        if let (Opcode::SimpleCall, [SomeValue::Builtin(f), SomeValue::Instance { class, .. }]) =
            (op.opname, args)
        {
            if f == "list" {
                if let Some(item) = self.items_of_instance(g, b, op, class) {
                    return self.new_built_list(Site::Op(g, b, index), &item?, g, op);
                }
            }
        }
        if let (opname @ (Opcode::Getattr | Opcode::Setattr), Some(descs)) =
            (op.opname, args.first().and_then(frozen::frozen_descs))
        {
            let Some(Constant::Name(attr)) = op.args[1].as_const() else {
                return Err(untypable(self));
            };
            return match opname {
                Opcode::Getattr => self.frozen_getattr(g, descs, attr, op.pos),
                _ => Err(self.frozen_setattr_error(g, descs, attr, op.pos)),
            };
        }
        if let (Opcode::Getattr | Opcode::Setattr, Some(class)) = (
            op.opname,
            args.first().and_then(|o| self.attribute_class(o)),
        ) {
            let Some(Constant::Name(attr)) = op.args[1].as_const() else {
                return Err(untypable(self));
            };
            // `x.__class__` of an instance is `type(x)`: its class, or
            // one of its instantiated subclasses (the original's
            // `read_attr__class__`).
            if let (Opcode::Getattr, "__class__", [SomeValue::Instance { class, .. }, _]) =
                (op.opname, attr.as_str(), args)
            {
                return Ok(self.classes_of(g, b, class));
            }
            return match args {
                [_, _, value] => self
                    .store_attr(&class, attr, value, g, op.pos)
                    .map(|()| SomeValue::None),
                _ => self.read_attr(g, b, &class, attr, op.pos),
            };
        }
        match (op.opname, args) {
            (Opcode::SimpleCall, [SomeValue::Pbc { descs, can_be_none }, rest @ ..]) => {
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
                if descs.len() > 1 {
                    self.check_call_family(g, op, descs)?;
                }
                let mut result = SomeValue::Impossible;
                // The callee whose result the others' must join.
                let mut first: Option<&Desc> = None;
                for desc in descs.iter() {
                    let r = self.call_desc(g, b, op, desc, rest)?;
                    result = match self.join(&result, &r) {
                        Some(joined) => joined,
                        None => {
                            let first = first.unwrap_or(desc);
                            return Err(self.family_results_conflict(
                                g,
                                op,
                                (first, &result),
                                (desc, &r),
                            ));
                        }
                    };
                    if first.is_none() && r != SomeValue::Impossible {
                        first = Some(desc);
                    }
                }
                Ok(result)
            }
            // `Base.__init__(self, ...)` of a builtin exception class keeps
            // nothing RPython can read.
            (Opcode::SimpleCall, [SomeValue::Builtin(name), ..]) if name == BASE_EXCEPTION_INIT => {
                Ok(SomeValue::None)
            }
            (Opcode::SimpleCall, [SomeValue::Builtin(name), rest @ ..]) => {
                match rlib_calls::rlib_call(name, rest)
                    .or_else(|| externals::external_call(name, rest, self.dialect))
                {
                    Some(Ok(result)) => return Ok(result),
                    Some(Err(why)) => return Err(self.error(g, op.pos, why)),
                    None => {}
                }
                if let ("issubclass", [class, base]) = (name.as_str(), rest) {
                    return self.issubclass(class, base).ok_or_else(|| untypable(self));
                }
                if let ("isinstance", [value, classes]) = (name.as_str(), rest) {
                    if let Some(result) = self.isinstance(g, b, value, classes) {
                        return Ok(result);
                    }
                }
                if let ("type", [SomeValue::Instance { class, .. }]) = (name.as_str(), rest) {
                    return Ok(self.classes_of(g, b, class));
                }
                self.general_op(g, b, index, op, general())
                    .ok_or_else(|| untypable(self))?
            }
            (Opcode::Getitem, [SomeValue::Tuple(items), i]) => {
                self.tuple_item(g, op, items, i.known())
            }
            // A JIT hint (`driver.jit_merge_point(...)`): nothing at run time
            // before the JIT; its arguments may be anything.
            (Opcode::JitMarker, _) => {
                self.call_green_hooks(g, b, op, args)?;
                Ok(SomeValue::None)
            }
            (
                Opcode::Getattr,
                [SomeValue::Pbc {
                    descs,
                    can_be_none: false,
                }, _],
            ) => match (&descs[..], op.args[1].as_const()) {
                ([Desc::Class(class)], Some(Constant::Name(attr))) => self
                    .class_getattr(class, attr)
                    .ok_or_else(|| untypable(self)),
                (descs, Some(Constant::Name(attr))) => Desc::class_names(descs)
                    .and_then(|classes| self.classes_getattr(&classes, attr))
                    .ok_or_else(|| untypable(self)),
                _ => Err(untypable(self)),
            },
            _ => self
                .general_op(g, b, index, op, general())
                .ok_or_else(|| untypable(self))?,
        }
    }

    /// An operation typed on the general annotations of its arguments: a
    /// container operation, or by the rules; `None` when neither types it.
    fn general_op(
        &mut self,
        g: usize,
        b: BlockId,
        index: usize,
        op: &SpaceOperation,
        general: &[SomeValue],
    ) -> Option<Result<SomeValue, Diagnostic>> {
        if let Some(result) = self.container_op(g, b, index, op, general) {
            return Some(result);
        }
        rpy_ruleset::annotate::op_result(op.opname, general).map(Ok)
    }

    /// The result of `op` when the values of its arguments decide it: the
    /// truth of a known value, `x is None` when x is None or cannot be,
    /// comparisons of known ints and strings.
    fn fold(&self, op: &SpaceOperation, args: &[SomeValue]) -> Option<SomeValue> {
        use SomeValue as S;
        let truth = |k: &Known| match k {
            Known::Int(n) => *n != 0,
            Known::Bool(b) => *b,
            Known::Char(_) => true,
            Known::Str(s) => !s.is_empty(),
        };
        let result = match (op.opname, args) {
            (Opcode::Bool, [S::Const(k)]) => truth(k),
            (Opcode::Not, [S::Const(k)]) => !truth(k),
            (Opcode::Bool, [S::None]) => false,
            (Opcode::Not, [S::None]) => true,
            (Opcode::Is, [S::None, S::None]) => true,
            (Opcode::Is, [x, S::None]) | (Opcode::Is, [S::None, x]) if !x.can_be_none() => false,
            (cmp, [S::Const(x), S::Const(y)]) => {
                let order = match (x, y) {
                    (Known::Int(a), Known::Int(b)) => a.cmp(b),
                    (Known::Str(a), Known::Str(b)) => a.cmp(b),
                    _ => return None,
                };
                match cmp {
                    Opcode::Eq => order.is_eq(),
                    Opcode::Ne => order.is_ne(),
                    Opcode::Lt => order.is_lt(),
                    Opcode::Le => order.is_le(),
                    Opcode::Gt => order.is_gt(),
                    Opcode::Ge => order.is_ge(),
                    _ => return None,
                }
            }
            _ => return None,
        };
        Some(S::Const(Known::Bool(result)))
    }

    /// `issubclass(class, base)` of classes the annotator knows (a re-raise
    /// tests what it caught against the enclosing handlers): known when every
    /// class may be is, or none is, a subclass of `base`.
    fn issubclass(&self, class: &SomeValue, base: &SomeValue) -> Option<SomeValue> {
        let classes = |v: &SomeValue| -> Option<Vec<String>> {
            match v {
                SomeValue::Pbc {
                    descs,
                    can_be_none: false,
                } => descs
                    .iter()
                    .map(|d| match d {
                        Desc::Class(c) => Some(c.clone()),
                        _ => None,
                    })
                    .collect(),
                _ => None,
            }
        };
        let (classes, bases) = (classes(class)?, classes(base)?);
        let [base] = bases.as_slice() else {
            return None;
        };
        let derived = classes
            .iter()
            .filter(|c| self.hierarchy.is_subclass(c, base))
            .count();
        Some(if derived == classes.len() {
            SomeValue::Const(Known::Bool(true))
        } else if derived == 0 {
            SomeValue::Const(Known::Bool(false))
        } else {
            SomeValue::Bool
        })
    }

    /// At a `jit_merge_point`: the JIT will call the driver's hooks
    /// (`get_printable_location`, ...) with the green variables, so they
    /// are reached as if called here with the greens' annotations.
    fn call_green_hooks(
        &mut self,
        g: usize,
        b: BlockId,
        op: &SpaceOperation,
        args: &[SomeValue],
    ) -> Result<(), Diagnostic> {
        let (Some(Constant::Name(marker)), Some(Constant::Prebuilt(driver))) =
            (op.args[0].as_const(), op.args[1].as_const())
        else {
            return Ok(());
        };
        if marker != "jit_merge_point" {
            return Ok(());
        }
        let Some(decl) = JitDriverDecl::of(&self.program.prebuilt, *driver) else {
            return Ok(());
        };
        let Some(greens) = args.get(2..2 + decl.greens.len()) else {
            return Ok(());
        };
        let greens: Vec<SomeValue> = greens.iter().map(SomeValue::general).collect();
        for (_, hook) in &decl.green_hooks {
            self.call(g, b, op, hook, &greens, 0)?;
        }
        Ok(())
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
            Desc::Function(name) => self.call_function(g, b, op, name, args, 0),
            Desc::Method { class, func } => {
                let mut all = vec![self.instance_of(class)];
                all.extend(args.iter().cloned());
                self.call_function(g, b, op, func, &all, 1)
            }
            Desc::FrozenMethod { object, func } => {
                let mut all = vec![SomeValue::Pbc {
                    descs: [Desc::Frozen(object.clone())].into(),
                    can_be_none: false,
                }];
                all.extend(args.iter().cloned());
                self.call_function(g, b, op, func, &all, 1)
            }
            // An exception class, builtin or the program's: `raise
            // ValueError(...)` builds one, running the program's __init__.
            Desc::Class(name) if self.hierarchy.is_subclass(name, "BaseException") => {
                self.build_exception(g, b, op, name, args)
            }
            Desc::Class(name) if self.classdefs.is_program_class(name) => {
                self.instantiate_call(g, b, op, name, args)
            }
            Desc::Class(name) => Err(self.error(
                g,
                op.pos,
                format!("instantiating the class {name} is not supported"),
            )),
            other => Err(self.error(
                g,
                op.pos,
                format!(
                    "calling {} is not supported yet",
                    SomeValue::Pbc {
                        descs: [other.clone()].into(),
                        can_be_none: false,
                    }
                    .describe()
                ),
            )),
        }
    }

    /// A call of the program's function `callee`: generalizes its parameters
    /// and yields what it returns so far. The first `bound` arguments are
    /// not written in the call (the instance of a method call or of a class
    /// being built): they come from the callee, `op.args[0]`.
    fn call(
        &mut self,
        g: usize,
        b: BlockId,
        op: &SpaceOperation,
        callee: &str,
        args: &[SomeValue],
        bound: usize,
    ) -> Result<SomeValue, Diagnostic> {
        let pos = op.pos;
        let Some(&cg) = self.graph_index.get(callee) else {
            if let Entry::Helper {
                program_functions, ..
            } = &self.entry
            {
                if let Some((_, result)) = program_functions.iter().find(|(f, _)| f == callee) {
                    return Ok(result.clone());
                }
            }
            return Err(self.error(g, pos, format!("call of unknown function '{callee}'")));
        };
        self.callers[cg].insert((g, b));
        let callee_graph = self.graph(cg);
        if specialize::is_specialized(callee_graph) {
            // Constructors and special methods name no function a copy
            // could replace.
            return Err(self.error(
                g,
                pos,
                format!(
                    "{callee}() is specialized (one copy per call's arguments), which rpy supports for calls of functions and methods by name, not for this call ({})",
                    op.opname
                ),
            ));
        }
        let params = callee_graph.params().to_vec();
        if params.len() != args.len() {
            let def_line = callee_graph
                .pos
                .map(|p| format!(" (defined at line {})", p.line))
                .unwrap_or_default();
            let d = self.error(
                g,
                pos,
                format!(
                    "{callee}(){def_line} takes {} argument{} but is called with {}",
                    params.len() - bound.min(params.len()),
                    if params.len() - bound.min(params.len()) == 1 {
                        ""
                    } else {
                        "s"
                    },
                    args.len() - bound
                ),
            );
            // The flow builder binds defaults and *args where the call
            // names its callee; through a variable, arguments come as written.
            let through_variable = op.args.first().and_then(Arg::as_var).is_some_and(|v| {
                // `obj.method(...)` reads the method in the same block.
                !self
                    .graph(g)
                    .block(b)
                    .operations
                    .iter()
                    .any(|o| o.result == v && o.opname == Opcode::Getattr)
            });
            return Err(if through_variable {
                d.with_note(
                    "this call goes through a variable, which passes the arguments as written: default values and *args are filled in only where the callee is known while building the graphs (a call naming a function, or a method every class defines with the same parameters)".to_string(),
                )
            } else {
                d
            });
        }
        let mut changed = false;
        for (i, (&p, a)) in params.iter().zip(args).enumerate() {
            if self.unchanged((cg, p), a) {
                continue;
            }
            let desc = || match &callee_graph.vars[p.0 as usize].name {
                Some(n) => format!("argument '{n}' of {callee}()"),
                None => format!("argument {} of {callee}()", i + 1),
            };
            let origin = Origin::CallArg {
                caller: g,
                index: i,
                arg: op.args[(i + 1).saturating_sub(bound)].clone(),
                pos,
            };
            changed |= self.generalize((cg, p), a, origin, &desc)?;
        }
        if changed || !self.flowed.contains(&(cg, callee_graph.startblock)) {
            self.schedule(cg, callee_graph.startblock);
        }
        let ret = callee_graph.block(callee_graph.returnblock).inputargs[0];
        Ok(self.var_annotation(cg, ret))
    }

    /// Runs the worklist to its fixpoint.
    fn run(&mut self) {
        loop {
            while let Some((g, b)) = self.pending.pop_front() {
                self.queued.remove(&(g, b));
                self.flowed.insert((g, b));
                match self.flow_block(g, b) {
                    Ok(()) => {
                        self.errors.remove(&(g, b));
                        self.waiting_on.remove(&(g, b));
                    }
                    Err(d) => {
                        self.errors.insert((g, b), d);
                    }
                }
            }
            if !self.redo_class_lookups() {
                break;
            }
        }
    }

    /// Starts at the entry point, called with the command-line arguments
    /// (or at the helper `self.entry` names, with its arguments).
    fn start(&mut self) -> Result<usize, Diagnostics> {
        if let Entry::Helper { graph, inputs, .. } = self.entry.clone() {
            return self.start_helper(&graph, &inputs);
        }
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
        // The runtime builds the arguments as a list struct.
        let _ = self.containers.mark_resized(argv);
        let argv = self.containers.resolve(&argv_annotation());
        for &p in entry_graph.params() {
            let _ = self.generalize((entry, p), &argv, Origin::Argv, &String::new);
        }
        self.schedule(entry, entry_graph.startblock);
        self.start_gc_hooks();
        self.run();
        Ok(entry)
    }

    /// The errors the flow builder held for block `b` of graph `g`, a
    /// function whose graph could not be built (`held_errors_graph`);
    /// empty for any other block.
    fn held_flow_errors(&self, g: usize, b: BlockId) -> Vec<Diagnostic> {
        let block = self.graph(g).block(b);
        block
            .operations
            .iter()
            .filter(|op| op.opname == Opcode::FlowError)
            .map(|op| {
                let mut texts = op.args.iter().filter_map(|a| match a {
                    Arg::Const(Constant::Str(text)) => Some(text.clone()),
                    _ => None,
                });
                let message = texts.next().unwrap_or_default();
                let mut d = self.error(g, op.pos, message);
                d.notes.extend(texts);
                d
            })
            .collect()
    }

    /// The collector calls the GC hook graphs (`flow::gc_hooks`) with
    /// ints: they are reached as the entry point is.
    fn start_gc_hooks(&mut self) {
        let program = self.program;
        for (g, graph) in program.graphs.iter().enumerate() {
            if rpy_ir::graph::gc_hook_event(graph).is_none() {
                continue;
            }
            let int = SomeValue::Integer {
                nonneg: false,
                unsigned: false,
            };
            for &p in graph.params() {
                let _ = self.generalize((g, p), &int, Origin::CollectorArgs, &String::new);
            }
            self.schedule(g, graph.startblock);
        }
    }

    /// Every error left, one per blocked block, in graph and block order.
    fn remaining_errors(&self) -> Option<Diagnostics> {
        if self.errors.is_empty() && self.classdefs.prebuilt_errors.is_empty() {
            return None;
        }
        let mut errors: Vec<(&(usize, BlockId), &Diagnostic)> = self.errors.iter().collect();
        errors.sort_by_key(|e| *e.0);
        // A call that never returns because its callee is reported is not
        // reported again (unless every error is such an echo: a cycle).
        let failing: BTreeSet<usize> = self.errors.keys().map(|(g, _)| *g).collect();
        let echo = |key: &(usize, BlockId)| {
            self.waiting_on
                .get(key)
                .is_some_and(|cg| *cg != key.0 && failing.contains(cg))
        };
        if errors.iter().any(|(k, _)| !echo(k)) {
            errors.retain(|(k, _)| !echo(k));
        }
        // A reached function whose graph could not be built reports every
        // error its builder found; those come first, as they would have
        // before annotation, and what the annotator found besides is
        // left out: it may follow from them (an attribute a body that
        // could not be built would have set).
        let held: Vec<Diagnostic> = errors
            .iter()
            .flat_map(|(&(g, b), _)| self.held_flow_errors(g, b))
            .collect();
        let errors: Vec<Diagnostic> = if held.is_empty() {
            errors.into_iter().map(|(_, d)| d.clone()).collect()
        } else {
            held
        };
        let mut seen = BTreeSet::new();
        let diags = self
            .classdefs
            .prebuilt_errors
            .iter()
            .cloned()
            .chain(errors)
            .filter(|d| seen.insert((d.pos, d.message.clone())))
            .collect();
        Some(Diagnostics(diags))
    }

    /// The classes for the rtyper, each attribute's lists and dicts brought
    /// up to date: an attribute that got an empty list (a prebuilt
    /// instance's, or `self.items = []`) keeps the definition it had then,
    /// whose items only later stores told.
    ///
    /// An attribute that is also a class attribute (`repeat = ""` in the
    /// class, `node.repeat = c` storing chars) is the join of both, as its
    /// readers see it: the field holds the class's value until a store, so
    /// a field of chars could not hold "".
    ///
    /// An attribute nothing stores (`self.LIMIT`, read from a class
    /// attribute) is the class's, read from its vtable: no instance field
    /// (the rtyper gave it a field of no representation, and reading it
    /// failed). But when only subclasses define it (`kind = "num"` in each
    /// node class, read through the base) the base's vtable has no slot for
    /// it: it stays an instance field, which each instance gets from its
    /// class's value when it is built.
    fn exported_classdefs(&mut self) -> Vec<rpy_ir::annotation::ClassDef> {
        let mut classdefs = self.classdefs.export(&self.hierarchy);
        for c in &mut classdefs {
            let mut attrs = Vec::new();
            for (name, value) in std::mem::take(&mut c.attrs) {
                if value == SomeValue::Impossible
                    && self.classdefs.class_attr(&c.name, &name).is_some()
                {
                    continue;
                }
                let read = self.attr_as_read(&c.name, &name, &value);
                if read == SomeValue::Impossible {
                    continue;
                }
                attrs.push((name, self.containers.resolve(&read)));
            }
            c.attrs = attrs;
        }
        classdefs
    }

    /// The annotation of every prebuilt object a graph reached (the ones
    /// the fixpoint annotated; asking again changes nothing).
    fn prebuilt_annotations(&mut self) -> BTreeMap<u32, SomeValue> {
        let mut out = BTreeMap::new();
        let mut stack: Vec<u32> = Vec::new();
        let flowed: BTreeSet<usize> = self.flowed.iter().map(|&(g, _)| g).collect();
        for (g, graph) in self.program.graphs.iter().enumerate() {
            if !flowed.contains(&g) {
                continue;
            }
            for block in &graph.blocks {
                let args = block
                    .operations
                    .iter()
                    .flat_map(|op| op.args.iter())
                    .chain(block.exits.iter().flat_map(|l| l.args.iter()));
                for a in args {
                    if let Arg::Const(Constant::Prebuilt(i)) = a {
                        stack.push(*i);
                    }
                }
            }
        }
        // A class attribute read through an instance is no graph's
        // constant: the rtyper reads it from the class.
        stack.extend(self.classdefs.prebuilt_class_attrs_read());
        // A memo call becomes the object it built only after annotation
        // (`specialize::rewrite_calls`): that object is reached too.
        for rewrite in self.rewrites.values() {
            if let specialize::Rewrite::Constant(Constant::Prebuilt(i)) = rewrite {
                stack.push(*i);
            }
        }
        while let Some(i) = stack.pop() {
            if out.contains_key(&i) {
                continue;
            }
            let Some(object) = self.program.prebuilt.get(i as usize) else {
                continue;
            };
            let inner: Vec<u32> = match object {
                PrebuiltObject::List(xs) | PrebuiltObject::Tuple(xs) => xs.iter().collect(),
                PrebuiltObject::Dict(pairs) => pairs.iter().flat_map(|(k, v)| [k, v]).collect(),
                PrebuiltObject::Instance { attrs, .. } => attrs.iter().map(|(_, c)| c).collect(),
                _ => Vec::new(),
            }
            .into_iter()
            .filter_map(|c| match c {
                Constant::Prebuilt(j) => Some(*j),
                _ => None,
            })
            .collect();
            stack.extend(inner);
            let value = self.prebuilt(i, &mut BTreeSet::new());
            out.insert(i, value);
        }
        self.tuples_as_read(&mut out);
        out
    }

    /// A prebuilt tuple inside a list, a dict, an instance or another tuple
    /// is read as that container's item (or attribute): that is the
    /// annotation the rtyper builds it with (a tuple of one-char strings in
    /// a list of tuples of strings is a tuple of strings, not of chars, or
    /// the list would hold a tuple of another layout).
    fn tuples_as_read(&self, out: &mut BTreeMap<u32, SomeValue>) {
        let mut wanted: Vec<(u32, SomeValue)> = Vec::new();
        let inner = |c: &Constant| match c {
            Constant::Prebuilt(j) => Some(*j),
            _ => None,
        };
        for (&i, value) in out.iter() {
            match (self.program.prebuilt.get(i as usize), value) {
                (Some(PrebuiltObject::List(items)), SomeValue::List(def)) => {
                    for j in items.iter().filter_map(inner) {
                        wanted.push((j, (*def.item).clone()));
                    }
                }
                (Some(PrebuiltObject::Dict(pairs)), SomeValue::Dict(def)) => {
                    for (k, v) in pairs {
                        if let Some(j) = inner(k) {
                            wanted.push((j, (*def.key).clone()));
                        }
                        if let Some(j) = inner(v) {
                            wanted.push((j, (*def.value).clone()));
                        }
                    }
                }
                (Some(PrebuiltObject::Instance { class, attrs }), SomeValue::Instance { .. }) => {
                    for (name, c) in attrs {
                        if let (Some(j), Some(v)) =
                            (inner(c), self.classdefs.attr_value(class, name))
                        {
                            wanted.push((j, self.containers.resolve(v)));
                        }
                    }
                }
                _ => {}
            }
        }
        // Tuples are immutable, so they nest without cycles.
        while let Some((j, want)) = wanted.pop() {
            let Some(PrebuiltObject::Tuple(items)) = self.program.prebuilt.get(j as usize) else {
                continue;
            };
            let SomeValue::Tuple(anns) = &want else {
                continue;
            };
            if anns.len() != items.len() {
                continue;
            }
            for (c, a) in items.iter().zip(anns) {
                if let Some(k) = inner(c) {
                    wanted.push((k, a.clone()));
                }
            }
            let joined = match out.get(&j) {
                Some(own) => union(own, &want).unwrap_or(want),
                None => want,
            };
            out.insert(j, joined);
        }
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
/// command-line arguments. Specialized functions (`specialize`) become their
/// copies: the annotated program has the copies, and calls name them. Only
/// the graphs the entry point reaches are kept.
pub fn annotate(
    program: Program<Flow>,
    dialect: Dialect,
) -> Result<Program<Annotated>, Diagnostics> {
    annotate_from(program, dialect, Entry::Program, None)
}

/// `annotate` from `entry`: the program's entry point or a helper.
fn annotate_from(
    mut program: Program<Flow>,
    dialect: Dialect,
    entry: Entry,
    known: Option<&mut specialize::KnownCopies>,
) -> Result<Program<Annotated>, Diagnostics> {
    let is_program = matches!(entry, Entry::Program);
    let (ann, rewrites, reached, facts) =
        specialize::with_known_copies(&mut program, dialect, &entry, known, |a, started, _| {
            let entry = started?;
            if let Some(errors) = a.remaining_errors() {
                return Err(errors);
            }
            if is_program {
                a.check_entry_returns_int(entry)?;
            }
            let mut reached: Vec<Reach> = vec![Reach::default(); a.program.graphs.len()];
            for &(g, b) in &a.flowed {
                reached[g].blocks.insert(b);
            }
            for (&(g, b), exits) in &a.followed {
                reached[g].links.extend(exits.iter().map(|&i| (b, i)));
            }
            // Before the rewrites are taken: memo results are among them.
            let prebuilt = a.prebuilt_annotations();
            Ok((
                a.final_annotations(),
                std::mem::take(&mut a.rewrites),
                reached,
                ProgramFacts {
                    classdefs: a.exported_classdefs(),
                    prebuilt,
                    custom_keys: a
                        .custom_keys
                        .iter()
                        .map(|(&id, fns)| (a.containers.find(id), fns.clone()))
                        .collect(),
                },
            ))
        })?;
    let dropped = specialize::specialized_originals(&program);
    let mut annotated = program.try_with_graphs(|mut graphs, _, _| {
        specialize::rewrite_calls(&mut graphs, &rewrites);
        // Only what the entry point reaches is translated: a function only
        // import time called (or nothing did) has no annotations to lower; a
        // specialized function's original is never reached (its copies are).
        let graphs: Vec<FunctionGraph<Annotated>> = graphs
            .into_iter()
            .zip(ann)
            .zip(reached)
            .filter(|((g, _), reach)| {
                reach.blocks.contains(&g.startblock) && !dropped.contains(&g.name)
            })
            .map(|((g, mut ann), reach)| {
                // Each variable's annotation is taken, not copied. A helper's
                // constants stay: its operations on types and the tests the
                // annotator decided (`typeOf(l).TO._is_array`) are folded away
                // when its pointer operations are lowered (`rtype::ptr`).
                let mut g: FunctionGraph<Annotated> = g.map_stage(|v, _| {
                    match std::mem::replace(&mut ann[v.0 as usize], SomeValue::Impossible) {
                        SomeValue::Const(k) if is_program => k.general(),
                        other => other,
                    }
                });
                if cut_dead_links(&mut g, &reach) {
                    simplify_graph(&mut g);
                }
                g
            })
            .collect();
        Ok::<_, Diagnostics>(graphs)
    })?;
    annotated.facts = facts;
    Ok(annotated)
}

impl Annotator<'_> {
    /// Whether this round of annotation ends in an error `annotate_from`
    /// reports (which the provenance explains): it stopped, errors remain,
    /// or the program's entry point returns no int. A round that needs
    /// more copies is no failure yet (the next round annotates again).
    fn fails(&self, entry: &Entry, started: &Result<usize, Diagnostics>) -> bool {
        let last = self.requested.is_empty() && !self.memo_objects_pending();
        match started {
            Err(_) => true,
            Ok(_) if !last => false,
            Ok(e) => {
                self.remaining_errors().is_some()
                    || (matches!(entry, Entry::Program)
                        && self.check_entry_returns_int(*e).is_err())
            }
        }
    }

    /// The entry point's result is the exit status: an int (or a bool).
    fn check_entry_returns_int(&self, entry: usize) -> Result<(), Diagnostics> {
        let entry_graph = self.graph(entry);
        let ret = entry_graph.block(entry_graph.returnblock).inputargs[0];
        match &self.var_annotation(entry, ret).general() {
            SomeValue::Integer { .. } | SomeValue::Bool | SomeValue::Impossible => Ok(()),
            other => {
                let root = self
                    .provenance
                    .of((entry, ret))
                    .iter()
                    .find(|c| !matches!(c.value, SomeValue::Integer { .. } | SomeValue::Bool))
                    .map(|c| self.provenance.root(entry, &c.origin, &c.value));
                let pos = root.as_ref().and_then(|(g, o)| {
                    provenance::source_pos(self.program, &self.program.sources, *g, o)
                });
                Err(Diagnostics::one(self.error(
                    entry,
                    pos,
                    format!(
                        "the entry point {}() must return an int (the exit status), but it returns {}",
                        entry_graph.name,
                        other.describe()
                    ),
                )))
            }
        }
    }
}

/// What the annotator reached of one graph: the blocks it flowed and the
/// links (block, exit index) it passed values along.
#[derive(Clone, Default)]
struct Reach {
    blocks: BTreeSet<BlockId>,
    links: BTreeSet<(BlockId, usize)>,
}

/// Removes the links no run takes, as the original's `transform_dead_code`
/// does: the annotator never passed values along them (one passing the item
/// of an empty tuple, one after a call that always raises, the branch a
/// known condition rules out), so what only they reach was never annotated. A block left
/// without its normal way out, past an operation that never returns, gets
/// one raising AssertionError instead (the original's
/// `cutoff_alwaysraising_block`), and the operations after that one go.
/// True when it changed the graph.
fn cut_dead_links(g: &mut FunctionGraph<Annotated>, reach: &Reach) -> bool {
    let mut changed = false;
    for b in 0..g.blocks.len() {
        let b = BlockId(b as u32);
        // A block never annotated is only reached by dead links: it goes
        // with them.
        if b == g.returnblock || b == g.exceptblock || !reach.blocks.contains(&b) {
            continue;
        }
        let block = g.block(b);
        let live: Vec<Link> = block
            .exits
            .iter()
            .enumerate()
            .filter(|(i, _)| reach.links.contains(&(b, *i)))
            .map(|(_, l)| l.clone())
            .collect();
        if live.len() == block.exits.len() {
            continue;
        }
        changed = true;
        let catches = block.catches_exceptions();
        // The way out when the last operation returns: the exit without a
        // case in a block catching exceptions, any exit in another.
        let normal_exit_left = if catches {
            live.iter().any(|l| l.exitcase.is_none())
        } else {
            !live.is_empty()
        };
        let never_returns = block
            .operations
            .iter()
            .position(|op| *g.info(op.result) == SomeValue::Impossible);
        let mut exits = live;
        if let (false, Some(n)) = (normal_exit_left, never_returns) {
            let pos = g.block(b).operations[n].pos;
            g.block_mut(b).operations.truncate(n + 1);
            let raise = raise_assertion_error(g, pos);
            exits.insert(0, Link::new(Vec::new(), raise, None));
        }
        let block = g.block_mut(b);
        if exits.len() == 1
            && (block.exitswitch.is_some() && !catches || exits[0].exitcase.is_none())
        {
            block.exitswitch = None;
            exits[0].exitcase = None;
        }
        block.exits = exits;
    }
    changed
}

/// A new block raising AssertionError: where the annotator found that an
/// operation never returns, the program goes no further.
fn raise_assertion_error(g: &mut FunctionGraph<Annotated>, pos: Option<Pos>) -> BlockId {
    const CLASS: &str = "AssertionError";
    let block = g.add_block(Vec::new());
    let error = g.new_var(None, SomeValue::exception(vec![CLASS.into()]));
    let class = Arg::Const(Constant::Class(CLASS.into()));
    g.block_mut(block).operations.push(SpaceOperation {
        opname: Opcode::SimpleCall,
        args: vec![class.clone()],
        result: error,
        pos,
    });
    let raise = Link::new(vec![class, Arg::Var(error)], g.exceptblock, None);
    g.block_mut(block).exits.push(raise);
    // What the graph raises now includes it.
    let raised = [
        SomeValue::Pbc {
            descs: [Desc::Class(CLASS.into())].into(),
            can_be_none: false,
        },
        SomeValue::exception(vec![CLASS.into()]),
    ];
    let params = g.block(g.exceptblock).inputargs.clone();
    for (param, value) in params.into_iter().zip(raised) {
        let info = &mut g.vars[param.0 as usize].info;
        *info = union(info, &value).unwrap_or(SomeValue::Object);
    }
    block
}

/// Why variables named by `query` got their annotations: `func:var` (a
/// variable of one function) or `var` (that name in every function). Each
/// SSA variable holding the name is explained: its annotation, then every
/// contribution to it with its position, following links back. Works on a
/// program that does not annotate too (what was inferred until it stopped).
pub fn explain(program: &Program<Flow>, dialect: Dialect, query: &str) -> Result<String, String> {
    let (func, var) = match query.split_once(':') {
        Some((f, v)) => (Some(f), v),
        None => (None, query),
    };
    let mut program = program.clone();
    specialize::with_copies(&mut program, dialect, &Entry::Program, |a, started, _| {
        started.map_err(|d| d.to_string())?;
        explain_annotated(a, func, var)
    })
}

/// `explain` of an annotated program.
fn explain_annotated(a: &Annotator<'_>, func: Option<&str>, var: &str) -> Result<String, String> {
    let program = a.program;
    if let Some(f) = func {
        if program.graph(f).is_none() {
            let names: Vec<&str> = program.graphs.iter().map(|g| g.name.as_str()).collect();
            return Err(format!(
                "there is no function '{f}'; the functions are: {}",
                names.join(", ")
            ));
        }
    }
    let ann = a.final_annotations();
    // A specialized function is explained in its copies (its own graph is
    // never annotated).
    let copies: Vec<usize> = func.map(|f| a.copies_of(f)).unwrap_or_default();
    let mut out = String::new();
    for (g, graph) in program.graphs.iter().enumerate() {
        if specialize::is_specialized(graph)
            || func.is_some_and(|f| f != graph.name && !copies.contains(&g))
        {
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
                    &program.sources,
                ));
                // A value read from an instance attribute: what was stored
                // into that attribute, and where.
                let read = graph
                    .blocks
                    .iter()
                    .flat_map(|b| &b.operations)
                    .find(|o| o.result == v && o.opname == Opcode::Getattr);
                if let Some(op) = read {
                    if let (Some(Arg::Var(obj)), Some(Arg::Const(Constant::Name(attr)))) =
                        (op.args.first(), op.args.get(1))
                    {
                        if let Some(text) = a.describe_attribute(&ann[g][obj.0 as usize], attr) {
                            out.push_str(&text);
                        }
                    }
                }
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
/// A specialized function's graph gets what its copies have (the
/// program's graphs keep their indices; the copies are not returned).
pub fn annotations_of(program: &Program<Flow>, dialect: Dialect) -> Vec<Vec<SomeValue>> {
    let mut with_copies = program.clone();
    let mut ann = specialize::with_copies(&mut with_copies, dialect, &Entry::Program, |a, _, _| {
        let mut ann = a.final_annotations();
        let copies = (0..program.graphs.len())
            .map(|g| (g, a.copies_of(&program.graphs[g].name)))
            .filter(|(_, c)| !c.is_empty())
            .collect();
        specialize::fold_copies_into_originals(&mut ann, &copies);
        ann
    });
    ann.truncate(program.graphs.len());
    ann
}

#[cfg(test)]
mod tests;

/// Why the items of a list or dict could not take a value.
enum PartError {
    /// The items so far and the value do not join.
    NoJoin(SomeValue, SomeValue),
    /// The value holds the list or dict itself.
    HoldsItself,
}

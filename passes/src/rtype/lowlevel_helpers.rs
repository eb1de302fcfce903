//! Low-level helpers: graphs written in RPython that the rtyper calls
//! (the original's annlowlevel).
//!
//! The operations the optimizers and the JIT must see into (list append
//! with over-allocation, slicing, string search, checked arithmetic...)
//! are functions of pylib/rpython/rtyper/ (`rlist.py`, `rstr.py`,
//! `rint.py`, `rdict.py`), written over the lltype primitives. They are
//! flowed once per process (`flow::build_library`), then, for each helper and
//! argument kinds the rtyper asks for, annotated from those kinds
//! (`annotate::lowlevel::annotate_helper`: callees are specialized by the
//! low-level types of their arguments), their pointer operations lowered
//! (`ptr`) and rtyped like the program. The graphs join the program, so
//! they go through backendopt and the later stages with it.
//!
//! A helper's graph is named after its function and the kinds of its
//! arguments (`rpython.rtyper.rlist.ll_append__list_signed_Signed`); the
//! rtyper calls it with `direct_call(Func(name), args...)`, passing every
//! argument: a type as its `Constant::Name` (of type Void), a constant as
//! itself.

use super::ptr::lower_pointer_ops;
use crate::annotate::known_constant;
use crate::annotate::lowlevel::{
    annotate_helper_with, lltype_annotation, lowlevel_key, KnownCopies, LOWLEVEL_HINT,
};
use crate::flow::{build_library, PYLIB};
use crate::parse::parse_module_in;
use crate::simplify::simplify_program;
use fxhash::FxHashMap as HashMap;
use rpy_ir::annotation::SomeValue;
use rpy_ir::ast::Dialect;
use rpy_ir::diag::{FileId, SourceMap};
use rpy_ir::graph::{Annotated, Arg, Constant, Flow, LowLevel, PrebuiltObject, Program};
use rpy_ir::lltype::{ContainerType, LowLevelType, TypeTable};
use std::sync::OnceLock;

/// The package the helper modules are in, and its folder's parent.
const HELPER_PACKAGE: &str = "rpython.rtyper";

/// The helper modules, one per family, by the name the rtyper uses.
pub const HELPER_MODULES: &[&str] = &[
    "rlist", "rstr", "rint", "rdict", "rrepr", "rmath", "ros", "rclass",
];

/// One argument of a helper call, as the rtyper knows it.
#[derive(Clone, Debug, PartialEq)]
pub enum HelperArg {
    /// A run-time value of this low-level type.
    Value(LowLevelType),
    /// A low-level type: a value type as `LowLevelType` writes it, or a
    /// container type by name (`list_signed`); passed as a Void constant.
    Type(String),
    /// A constant known when translating (an int, a bool, a char, None);
    /// the helper's copy is specialized for it.
    Const(Constant),
    /// Another helper, passed as a function (`eqfn` of list helpers).
    Helper { module: String, func: String },
    /// A function of the program, passed as a function (an r_dict's key
    /// functions): the helper's copy calls it directly, and a call of it
    /// gives a value of type `result`.
    Program { graph: String, result: LowLevelType },
}

impl HelperArg {
    /// What the rtyper passes for this argument of a call of the helper's
    /// graph, when it is not a run-time value.
    pub fn constant(&self) -> Option<Constant> {
        match self {
            HelperArg::Value(_) => None,
            HelperArg::Type(t) => Some(Constant::Name(t.clone())),
            HelperArg::Const(c) => Some(c.clone()),
            HelperArg::Helper { module, func } => Some(Constant::Func(graph_name(module, func))),
            HelperArg::Program { graph, .. } => Some(Constant::Func(graph.clone())),
        }
    }

    /// This argument with what the rtyper passes for it, for an argument
    /// that is not a run-time value.
    pub fn fixed(self) -> (HelperArg, Arg) {
        let passed = Arg::Const(self.constant().unwrap_or(Constant::None));
        (self, passed)
    }

    fn annotation(&self) -> SomeValue {
        match self {
            HelperArg::Value(t) => lltype_annotation(t),
            HelperArg::Type(t) => SomeValue::LLType(t.clone()),
            HelperArg::Const(c) => known_constant(c),
            HelperArg::Helper { module, func } => SomeValue::function(graph_name(module, func)),
            HelperArg::Program { graph, .. } => SomeValue::function(graph.clone()),
        }
    }
}

/// Helper `func` of `module` for arguments `args`: the original's graph
/// name, the specialized graph's name (which says the kinds of the
/// arguments, see `lowlevel_key`), and the annotations it is made for.
pub fn specialized(
    module: &str,
    func: &str,
    args: &[HelperArg],
) -> Result<(String, String, Vec<SomeValue>), String> {
    let original = graph_name(module, func);
    let inputs: Vec<SomeValue> = args.iter().map(HelperArg::annotation).collect();
    let (_, suffix, inputs) =
        lowlevel_key(&inputs, true).map_err(|why| format!("{original}(): {why}"))?;
    let name = format!("{original}__{suffix}");
    Ok((original, name, inputs))
}

/// The graph name of helper `func` of module `module` (`rlist`).
fn graph_name(module: &str, func: &str) -> String {
    format!("{HELPER_PACKAGE}.{module}.{func}")
}

/// The helper modules, flowed once per process: they are the same files
/// for every translation, and annotating a helper only reads them.
static LIBRARY: OnceLock<Result<Program<Flow>, String>> = OnceLock::new();

/// The helper modules, flowed: every function a helper graph, each
/// specialized by the low-level types of its arguments.
fn library() -> Result<&'static Program<Flow>, String> {
    LIBRARY
        .get_or_init(flow_library)
        .as_ref()
        .map_err(Clone::clone)
}

/// Starts reading the helper modules on another thread, when no
/// translation of this process has yet: a caller that knows helpers will
/// be wanted (the pipeline, as the annotator starts) gets them read
/// while it works, instead of the rtyper's first helper waiting for it
/// (about a tenth of the rtyper's time on a class-heavy program). A
/// helper asked for before it is done waits for it (`OnceLock`).
pub fn read_library_in_background() {
    if LIBRARY.get().is_none() {
        std::thread::spawn(|| {
            if let Ok(library) = library() {
                call_index(library);
            }
        });
    }
}

fn flow_library() -> Result<Program<Flow>, String> {
    // The helper modules are imported by a main module in pylib/, so that
    // they are found as the package `rpython.rtyper`.
    let source: String = HELPER_MODULES
        .iter()
        .map(|m| format!("import {HELPER_PACKAGE}.{m}\n"))
        .collect();
    let path = format!("{PYLIB}/ll_helpers.py");
    let module = parse_module_in(FileId::LIBRARY_BASE, &path, &source, Dialect::Py2)
        .map_err(|d| format!("reading the low-level helpers: {d}"))?;
    let mut program = build_library(&module, &source, FileId::LIBRARY_BASE, HELPER_PACKAGE)
        .map_err(|d| format!("reading the low-level helpers: {d}"))?;
    simplify_program(&mut program);
    for g in &mut program.graphs {
        g.hints.push(LOWLEVEL_HINT.to_string());
    }
    Ok(program)
}

/// The files of the helper library, when it has been read (when no helper
/// was made, no graph names them): what a program whose graphs include
/// helpers links into its `SourceMap`.
pub fn library_sources() -> Option<&'static SourceMap> {
    LIBRARY.get()?.as_ref().ok().map(|p| &p.sources)
}

/// The graphs of the library each graph names (by `Func` constants),
/// by index, and the graphs the prebuilt objects name; made once, with
/// the library.
struct CallIndex {
    by_name: HashMap<String, usize>,
    callees: Vec<Vec<usize>>,
    from_prebuilt: Vec<usize>,
}

static CALL_INDEX: OnceLock<CallIndex> = OnceLock::new();

fn call_index(library: &Program<Flow>) -> &'static CallIndex {
    CALL_INDEX.get_or_init(|| {
        let by_name: HashMap<String, usize> = library
            .graphs
            .iter()
            .enumerate()
            .map(|(i, g)| (g.name.clone(), i))
            .collect();
        let named = |c: &Constant, out: &mut Vec<usize>| {
            if let Constant::Func(f) = c {
                out.extend(by_name.get(f));
            }
        };
        let callees = library
            .graphs
            .iter()
            .map(|g| {
                let mut out = Vec::new();
                for b in &g.blocks {
                    let args = b
                        .operations
                        .iter()
                        .flat_map(|op| op.args.iter())
                        .chain(b.exits.iter().flat_map(|l| l.args.iter()))
                        .chain(b.exitswitch.iter());
                    for a in args {
                        if let Arg::Const(c) = a {
                            named(c, &mut out);
                        }
                    }
                    for l in &b.exits {
                        if let Some(c) = &l.exitcase {
                            named(c, &mut out);
                        }
                    }
                }
                out
            })
            .collect();
        let mut from_prebuilt = Vec::new();
        for p in &library.prebuilt {
            let constants: Vec<&Constant> = match p {
                PrebuiltObject::List(items) | PrebuiltObject::Tuple(items) => {
                    items.iter().collect()
                }
                PrebuiltObject::Dict(pairs) => pairs.iter().flat_map(|(k, v)| [k, v]).collect(),
                PrebuiltObject::Instance { attrs, .. } | PrebuiltObject::Class { attrs, .. } => {
                    attrs.iter().map(|(_, c)| c).collect()
                }
                PrebuiltObject::Struct { fields, items, .. } => {
                    fields.iter().map(|(_, c)| c).chain(items).collect()
                }
                PrebuiltObject::Array { items, .. } => items.iter().collect(),
            };
            for c in constants {
                named(c, &mut from_prebuilt);
            }
        }
        CallIndex {
            by_name,
            callees,
            from_prebuilt,
        }
    })
}

/// The library with only the graphs helper `original` called with `args`
/// can reach (what it names, what they name, the helpers passed to it and
/// the functions prebuilt objects hold), in the library's order: the
/// annotator only flows what the entry reaches, and copying every helper
/// module's graphs for each specialization made the rtyper's time grow
/// with the number of specializations times the library's size.
fn library_part(original: &str, args: &[HelperArg]) -> Result<Program<Flow>, String> {
    let library = library()?;
    let index = call_index(library);
    let root = *index
        .by_name
        .get(original)
        .ok_or_else(|| format!("there is no low-level helper {original}"))?;
    let mut keep = vec![false; library.graphs.len()];
    let mut work = vec![root];
    work.extend(&index.from_prebuilt);
    for a in args {
        if let HelperArg::Helper { module, func } = a {
            work.extend(index.by_name.get(&graph_name(module, func)));
        }
    }
    while let Some(i) = work.pop() {
        if !keep[i] {
            keep[i] = true;
            work.extend(&index.callees[i]);
        }
    }
    Ok(Program {
        path: library.path.clone(),
        sources: library.sources.clone(),
        graphs: library
            .graphs
            .iter()
            .zip(&keep)
            .filter(|(_, &k)| k)
            .map(|(g, _)| g.clone())
            .collect(),
        entry: library.entry.clone(),
        types: TypeTable::new(),
        prebuilt: library.prebuilt.clone(),
        facts: library.facts.clone(),
    })
}

/// The container types of `types` a helper called with `args` can reach:
/// those its arguments point to or name, and the types their fields and
/// items point to, transitively. The annotator reads a helper's types
/// only through its values and type arguments, so this is all it can
/// ask for; copying the program's whole table (every class's instance
/// and vtable struct) for each specialization was most of the rtyper's
/// time on class-heavy programs.
fn types_reached(types: &TypeTable, args: &[HelperArg]) -> TypeTable {
    fn pointees(t: &LowLevelType, out: &mut Vec<String>) {
        match t {
            LowLevelType::Ptr(name) => out.push(name.clone()),
            LowLevelType::FuncPtr(sig) => {
                for p in &sig.params {
                    pointees(p, out);
                }
                pointees(&sig.result, out);
            }
            _ => {}
        }
    }
    let mut work = Vec::new();
    for a in args {
        match a {
            HelperArg::Value(t) => pointees(t, &mut work),
            HelperArg::Type(t) => {
                work.push(t.clone());
                if let Ok(value) = LowLevelType::parse(t) {
                    pointees(&value, &mut work);
                }
            }
            HelperArg::Const(_) | HelperArg::Helper { .. } => {}
            HelperArg::Program { result, .. } => pointees(result, &mut work),
        }
    }
    let mut out = TypeTable::new();
    while let Some(name) = work.pop() {
        if out.contains_key(&name) {
            continue;
        }
        let Some(container) = types.get(&name) else {
            continue;
        };
        match container {
            ContainerType::GcStruct { fields, var_item } => {
                for (_, t) in fields {
                    pointees(t, &mut work);
                }
                if let Some(t) = var_item {
                    pointees(t, &mut work);
                }
            }
            ContainerType::GcArray { item } => pointees(item, &mut work),
        }
        out.insert(name, container.clone());
    }
    out
}

/// What the rtyper annotates helpers through (the flowed modules are
/// shared by every translation, see `library`), and what the annotations
/// so far found of the helpers' specialized copies (see `KnownCopies`).
#[derive(Default)]
pub struct LowLevelHelpers {
    known: KnownCopies,
}

impl LowLevelHelpers {
    pub fn new() -> LowLevelHelpers {
        LowLevelHelpers::default()
    }

    /// The annotated graphs of helper `func` of `module` for arguments
    /// `args` and of the helpers it calls, before rtyping (what
    /// `RTyper::helper` lowers with the program's rtyper), and the
    /// specialized graph's name. Container types the helper uses must be
    /// in `types`.
    pub fn annotate_only(
        &mut self,
        module: &str,
        func: &str,
        args: &[HelperArg],
        types: &TypeTable,
    ) -> Result<(String, Program<Annotated>), String> {
        let (original, name, inputs) = specialized(module, func, args)?;
        let mut program = library_part(&original, args)?;
        let mut entry = program
            .graph(&original)
            .ok_or_else(|| format!("there is no low-level helper {original}"))?
            .clone();
        entry.name = name.clone();
        entry.hints.retain(|h| h != LOWLEVEL_HINT);
        program.graphs.push(entry);
        program.types = types_reached(types, args);
        let program_functions = args
            .iter()
            .filter_map(|a| match a {
                HelperArg::Program { graph, result } => {
                    Some((graph.clone(), lltype_annotation(result)))
                }
                _ => None,
            })
            .collect();
        let annotated =
            annotate_helper_with(program, &name, inputs, program_functions, &mut self.known)
                .map_err(|d| format!("annotating the helper {name}: {d}"))?;
        Ok((name, annotated))
    }
}

/// Helper `func` of `module` for arguments `args`, with the helpers it
/// calls, annotated and rtyped on their own, as a program of their
/// types: what tests run in the LLInterpreter. (A translation calls
/// `RTyper::helper`, which lowers them with the program's rtyper, so a
/// helper's `raise IndexError` raises the program's IndexError.)
pub fn rtype_alone(
    module: &str,
    func: &str,
    args: &[HelperArg],
    types: &TypeTable,
) -> Result<(String, Program<LowLevel>), String> {
    let (name, mut annotated) = LowLevelHelpers::new().annotate_only(module, func, args, types)?;
    // The program is the helpers with every type the caller gave.
    annotated.types = types.clone();
    for g in &mut annotated.graphs {
        lower_pointer_ops(g);
    }
    let lowered = super::rtype(annotated, Dialect::Py2)
        .map_err(|d| format!("rtyping the helper {name}: {d}"))?;
    Ok((name, lowered))
}

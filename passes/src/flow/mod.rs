//! The flow stage: from the AST of a program's modules to the flow graphs of
//! its translated functions.
//!
//! As in RPython, the program is first *imported*: each module's body runs,
//! with Python's semantics, before anything is translated (see
//! [`import_time`]): module-level code may build tables in loops, create and
//! mutate objects, call the module's own functions. Then `target(driver,
//! args)` is called to find the entry point. From then on module globals are
//! constants: each function reachable from the entry point gets a flow graph
//! in which a global reads as the value it had after import (an int, a
//! function, a module's attribute, or a *prebuilt* object, a list, dict or
//! instance built at import time, which goes in the program's prebuilt table).
//!
//! Graphs are built by a structured abstract interpretation of the body (see
//! [`builder`]): operations are recorded into blocks, a block ends at each
//! conditional branch (on the result of a `bool`-valued operation), and at each
//! point where paths join a new block takes every live local as an input
//! argument. Operations on constants are folded when that is exact. The same
//! builder makes the import-time graphs (module bodies, and functions as
//! import-time code calls them), where a global is read from its module
//! object when the code runs instead.
//!
//! Function bodies may use all control structures (a `for` over a `range`
//! call is a counting loop; over anything else, lists, strings, tuples, dicts
//! and iterators, it records `iter` and then `next`, whose `StopIteration`
//! ends the loop); tuple, list and dict displays, indexing, slicing without a
//! step, unpacking assignments and loop targets, `del` of names, items and
//! slices, list comprehensions (loops in the graph), methods (`getattr` then
//! `simple_call`); and exceptions (see the builder's `containers` and
//! `exceptions` parts).
//!
//! A program may be several files (see [`imports`]); the rlib modules
//! (`rpython.rlib.*`, pylib/ for CPython) have their translation meaning
//! given by [`rlib`]. Constructs RPython cannot translate are reported as
//! diagnostics at their position.

mod builder;
mod fold;
pub mod gc_hooks;
mod import_time;
mod imports;
pub use imports::{ModuleSearch, PYLIB};
pub mod closures;
mod rlib;
mod scan;
pub mod validate;

pub use validate::{check_graph_well_formed, check_program_well_formed};

use crate::language::hints::{STAR_ARGS_HINT, STATIC_METHOD_HINT};
use crate::objinterp::exceptions::ClassObj;
use crate::objinterp::ObjValue;
use fxhash::FxHashMap;
use rpy_ir::ast::{self, CmpOp, Dialect, Expr, ExprKind, Param, Stmt, StmtKind};
use rpy_ir::diag::{Diagnostic, Diagnostics, FileId, Pos, SourceMap};
use rpy_ir::graph::{Arg, Constant, Flow, FunctionGraph, PrebuiltObject, Program};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;

/// A function definition (`def`), or a module's body, as the builder reads it.
#[derive(Clone, Copy)]
pub(crate) struct FuncDef<'a> {
    pub name: &'a str,
    pub pos: Pos,
    pub params: &'a [Param],
    pub star_args: Option<&'a str>,
    /// Python 3 keyword-only parameters.
    pub kwonly: &'a [Param],
    /// The name of a `**kwargs` parameter.
    pub kwargs: Option<&'a str>,
    /// Decorators not yet applied: a module-level `def` applies them when it
    /// runs at import time, so the graphs built from a definition see none.
    pub decorators: &'a [Expr],
    pub body: &'a [Stmt],
    /// Whether this is a module's body: the names it binds are the module's
    /// globals, not locals.
    pub module_body: bool,
    /// For a class body (run once, at import time, returning its namespace
    /// as a dict): the class's name.
    pub class_body: Option<&'a str>,
    /// For a class body: the class statement's bases.
    pub bases: &'a [Expr],
    /// For a `lambda`: the expression it returns (its body is empty).
    pub lambda_result: Option<&'a Expr>,
}

impl<'a> FuncDef<'a> {
    /// The definition of a `def` statement (its decorators left to the
    /// import-time run), or `None` for another statement.
    fn of_def(s: &'a Stmt) -> Option<Self> {
        let StmtKind::FunctionDef {
            name,
            params,
            star_args,
            kwonly,
            kwargs,
            body,
            ..
        } = &s.kind
        else {
            return None;
        };
        Some(FuncDef {
            params,
            star_args: star_args.as_deref(),
            kwonly,
            kwargs: kwargs.as_deref(),
            ..FuncDef::of_body(name, s.pos, body)
        })
    }

    /// A body taking no parameters (a module's or a class's, whose callers
    /// set what kind of body it is).
    pub(crate) fn of_body(name: &'a str, pos: Pos, body: &'a [Stmt]) -> Self {
        FuncDef {
            name,
            pos,
            params: &[],
            star_args: None,
            kwonly: &[],
            kwargs: None,
            decorators: &[],
            body,
            module_body: false,
            class_body: None,
            bases: &[],
            lambda_result: None,
        }
    }

    /// The definition of a `lambda` expression, or `None` for another
    /// expression.
    fn of_lambda(e: &'a Expr) -> Option<Self> {
        let ExprKind::Lambda {
            params,
            star_args,
            kwonly,
            kwargs,
            body,
        } = &e.kind
        else {
            return None;
        };
        Some(FuncDef {
            params,
            star_args: star_args.as_deref(),
            kwonly,
            kwargs: kwargs.as_deref(),
            lambda_result: Some(body),
            ..FuncDef::of_body(LAMBDA_NAME, e.pos, &[])
        })
    }
}

/// The name Python gives every `lambda` function.
pub(crate) const LAMBDA_NAME: &str = "<lambda>";

/// What a module-level name is bound to after import.
#[derive(Clone, Debug)]
pub(crate) enum Global {
    /// A function of the program, by its graph name.
    Func(String),
    /// A value that is its own constant (an int, a str, a builtin, a class).
    Const(Constant),
    /// An object built at import time: it becomes a prebuilt constant when a
    /// translated function uses it.
    Object(ObjValue),
    /// A module: one of the program's or an rlib module (by its dotted
    /// name), or `sys`/`os`.
    Module(String),
}

/// How code being built reads and writes module globals.
#[derive(Clone)]
pub(crate) enum GlobalAccess {
    /// After import: reads are the constants of the module's globals and
    /// writes are errors (RPython's globals are constants).
    Constants,
    /// At import time: globals are attributes of the module object, read and
    /// written when the code runs.
    Live {
        /// The module object, a prebuilt constant of the import-time program.
        module: Constant,
        /// The names the module may bind (what a read looks up in the module
        /// rather than in the builtins).
        bound: Rc<HashSet<String>>,
        /// The names only their `def` or `class` statement binds (see
        /// `scan::bound_once`): what a call or an `except` clause can
        /// know of them before they run.
        defined_once: Rc<HashSet<String>>,
        /// The names only a `from module import name` binds, with the
        /// dotted name of what each imports.
        imported_once: Rc<HashMap<String, String>>,
        /// Every module object of the import-time program, by dotted name.
        modules: Rc<HashMap<String, Constant>>,
        /// Whether the module assigns globals through `globals()[name]`
        /// (`scan::assigns_through_globals`): then a name nothing else
        /// binds, and no builtin, is read from the module when the code runs.
        names_by_globals: bool,
    },
}

/// The module as seen from inside its functions.
pub(crate) struct ModuleCtx<'a> {
    /// The dotted module name.
    pub name: String,
    pub path: &'a str,
    /// The program's files, which positions name.
    pub sources: &'a SourceMap,
    pub dialect: Dialect,
    /// Whether the module is a package's `__init__` (for relative imports).
    pub is_package: bool,
    /// Whether this is the program's main module (`__main__` to Python).
    pub is_main: bool,
    pub access: GlobalAccess,
    /// What the module's import statements bind, as dotted paths (for
    /// recognizing rlib decorators).
    pub import_bindings: HashMap<String, String>,
    pub program: Rc<ProgramDefs<'a>>,
}

/// What every module of a program shares while graphs are built.
pub(crate) struct ProgramDefs<'a> {
    /// Every function definition, by graph name. Looked up for most
    /// calls and names the builder sees; where it is iterated, what comes
    /// out is sorted or only tested for membership, so FxHash's order is
    /// as good as SipHash's, and it hashes graph names several times
    /// faster.
    pub functions: FxHashMap<String, FuncDef<'a>>,
    /// The graph name of each `def` statement, by module name and position.
    pub graph_names: HashMap<(String, Pos), String>,
    /// The graphs of the methods of every class, by method name, in order
    /// of graph name.
    pub methods: HashMap<String, Vec<String>>,
    /// Each module's globals after import, by module name (empty before).
    pub globals: HashMap<String, HashMap<String, Global>>,
    /// The default values of each function's parameters as its `def`
    /// statement evaluated them at import time, by graph name, then by
    /// parameter name (empty before).
    pub defaults: HashMap<String, HashMap<String, Global>>,
    /// The hints that rlib decorators record, by graph name.
    pub hints: RefCell<HashMap<String, Vec<String>>>,
    /// The prebuilt objects translated functions refer to.
    pub prebuilt: RefCell<PrebuiltTable>,
    /// The methods each `import_from_mixin(Mixin)` statement of a class
    /// body copies, by module name and the statement's position: (method
    /// name, graph of the copy), the copies named after the class
    /// (`A.method`) as the original's copies are new functions.
    pub mixin_copies: HashMap<(String, Pos), Vec<(String, String)>>,
    /// The module of each copied method's graph.
    pub copied_methods: HashMap<String, String>,
    /// Why each module that only imports inside functions name could not
    /// be read (see `imports::ModuleSet::unresolved`).
    pub unresolved_imports: HashMap<String, String>,
    /// The names `from M import *` binds, by M's name (`scan::module_exports`).
    pub star_names: HashMap<String, Vec<String>>,
    /// The function each nested `def` is in, by graph name (both): a
    /// factory run at import time makes closures of them (see
    /// `closures.rs`).
    pub enclosing: HashMap<String, String>,
    /// What `call_args::method_signature` found for each method name it
    /// was asked about: it looks at every method of that name, and a
    /// program calls its methods many times (a class-heavy program of
    /// 10,000 lines has 240 `area` methods and over a thousand calls of
    /// them). Only `hints` (static methods) can change the answer once
    /// the definitions are collected: whatever adds hints clears it.
    pub method_signatures: RefCell<HashMap<String, Option<MethodSignature<'a>>>>,
}

/// The parameters every method of one name takes (see
/// `ProgramDefs::method_signatures`).
#[derive(Clone)]
pub(crate) struct MethodSignature<'a> {
    /// The first method's graph, in graph name order.
    pub graph: String,
    pub params: &'a [Param],
    /// The graph and parameters of every other method of that name.
    pub others: Rc<[(String, &'a [Param])]>,
    pub star: bool,
}

/// The import-time objects that translated code refers to, in order of first
/// reference, each converted once (so that sharing and cycles are kept).
#[derive(Default)]
pub(crate) struct PrebuiltTable {
    pub objects: Vec<PrebuiltObject>,
    /// Object identity (the address of the shared value) to its index; the
    /// values are kept alive in `values` so that addresses stay unique.
    ids: HashMap<usize, u32>,
    values: Vec<ObjValue>,
    /// The program classes in `objects`, by qualified name.
    classes: HashMap<String, Rc<ClassObj>>,
    /// The closures that import-time code made and translated code uses,
    /// each a graph of its own (`closures::ClosureGraphs`).
    pub closures: closures::ClosureGraphs,
    /// How many conversions are under way, one inside the other: converting
    /// an object converts what it holds first, on the Rust stack, so the
    /// nesting of the program's data must be bounded (`MAX_PREBUILT_NESTING`).
    nesting: usize,
}

/// The deepest nesting of import-time objects (a list in a list ..., a class
/// deriving from a class ...) that can become prebuilt constants. CPython
/// itself cannot print or compare data nested deeper than its recursion limit.
const MAX_PREBUILT_NESTING: usize = 1_000;

impl PrebuiltTable {
    /// A table holding `objects` already, whose values are `values` (in
    /// the same order): objects converted later get the next indices, and
    /// a value that is one of `values` is that object.
    pub fn with_objects(objects: Vec<PrebuiltObject>, values: &[ObjValue]) -> PrebuiltTable {
        let mut table = PrebuiltTable {
            objects,
            ..Default::default()
        };
        for (i, v) in values.iter().enumerate() {
            let key = match v {
                ObjValue::Class(class) => {
                    table.classes.insert(class.qualified_name(), class.clone());
                    Some(Rc::as_ptr(class) as usize)
                }
                other => import_time::identity(other),
            };
            if let Some(key) = key {
                table.ids.insert(key, i as u32);
            }
            table.values.push(v.clone());
        }
        table
    }

    /// The constant for an import-time value, adding the objects it refers
    /// to; `Err` names what cannot be a prebuilt constant.
    pub fn constant(&mut self, v: &ObjValue) -> Result<Constant, String> {
        if let Some(c) = import_time::simple_constant(v) {
            return Ok(c);
        }
        if let Some(graph) = self.closures.graph_of(v) {
            return Ok(Constant::Func(graph));
        }
        if self.nesting >= MAX_PREBUILT_NESTING {
            return Err(format!(
                "data nested more than {MAX_PREBUILT_NESTING} levels deep"
            ));
        }
        self.nesting += 1;
        let converted = self.nested_constant(v);
        self.nesting -= 1;
        converted
    }

    /// `constant` of a value that is not a simple constant, one level deeper.
    fn nested_constant(&mut self, v: &ObjValue) -> Result<Constant, String> {
        if let ObjValue::Class(class) = v {
            return self.class_constant(class);
        }
        let Some(key) = import_time::identity(v) else {
            return Err(format!(
                "a {} value (prebuilt constants are numbers, strings, functions, classes, \
                 and lists, dicts, tuples and instances holding them)",
                v.type_name()
            ));
        };
        if let Some(&id) = self.ids.get(&key) {
            return Ok(Constant::Prebuilt(id));
        }
        let id = self.objects.len() as u32;
        self.ids.insert(key, id);
        self.values.push(v.clone());
        // A placeholder until the items are converted (they may refer back).
        self.objects.push(PrebuiltObject::Tuple(Vec::new()));
        let object = import_time::prebuilt_object(v, self)?;
        self.objects[id as usize] = object;
        Ok(Constant::Prebuilt(id))
    }

    /// The constant of a program class (`Constant::Class` by qualified
    /// name), adding its definition after those of its bases the first time.
    fn class_constant(&mut self, class: &Rc<ClassObj>) -> Result<Constant, String> {
        let name = class.qualified_name();
        let key = Rc::as_ptr(class) as usize;
        if self.ids.contains_key(&key) {
            return Ok(Constant::Class(name));
        }
        let mut bases = Vec::new();
        for b in &class.bases {
            self.constant(&ObjValue::Class(b.clone()))?;
            bases.push(b.qualified_name());
        }
        // Checked after the bases are added: `class A(A)` derives from an
        // earlier class of its own name, which names would not tell apart.
        if self.classes.contains_key(&name) {
            return Err(format!(
                "a class '{name}' of the same name as a class before it (a module may define \
                 a class name once: translated code names classes by their qualified name)"
            ));
        }
        let id = self.objects.len();
        self.ids.insert(key, id as u32);
        self.values.push(ObjValue::Class(class.clone()));
        self.classes.insert(name.clone(), class.clone());
        self.objects.push(PrebuiltObject::Class {
            name: name.clone(),
            bases,
            attrs: Vec::new(),
        });
        let attrs = class.attrs.borrow().clone();
        let mut converted = Vec::new();
        for (attr, value) in attrs {
            // Where the class was defined is in its name already.
            if attr == "__module__" {
                continue;
            }
            let c = self
                .constant(&value)
                .map_err(|what| format!("{what} (in its attribute '{attr}')"))?;
            converted.push((attr, c));
        }
        if let PrebuiltObject::Class { attrs, .. } = &mut self.objects[id] {
            *attrs = converted;
        }
        Ok(Constant::Class(name))
    }

    /// The class attribute `attr` of the program class `name` (its own or
    /// a base's, looked up depth-first), when translated code uses the
    /// class.
    pub fn class_attribute(&self, name: &str, attr: &str) -> Option<Constant> {
        // A work stack rather than recursion: the chain of bases is the
        // program's, of any length.
        let mut pending = vec![name];
        while let Some(name) = pending.pop() {
            let Some(id) = self.class_id(name) else {
                continue;
            };
            let PrebuiltObject::Class { bases, attrs, .. } = &self.objects[id as usize] else {
                continue;
            };
            if let Some((_, c)) = attrs.iter().find(|(a, _)| a == attr) {
                return Some(c.clone());
            }
            pending.extend(bases.iter().rev().map(String::as_str));
        }
        None
    }

    /// The object id of the program class `name`, when translated code
    /// uses it.
    fn class_id(&self, name: &str) -> Option<u32> {
        let class = self.classes.get(name)?;
        self.ids.get(&(Rc::as_ptr(class) as usize)).copied()
    }

    /// The bases of the program class `name`, when translated code uses it.
    pub fn class_bases(&self, name: &str) -> Option<Vec<String>> {
        let class = self.classes.get(name)?;
        Some(class.bases.iter().map(|b| b.qualified_name()).collect())
    }
}

impl ModuleCtx<'_> {
    pub fn diag(&self, pos: Pos, message: impl Into<String>) -> Diagnostic {
        self.sources.diagnostic_or(self.path, pos, message)
    }

    /// The module's global `name` after import.
    pub fn global(&self, name: &str) -> Option<&Global> {
        self.program.globals.get(&self.name)?.get(name)
    }

    /// The names the module's `from M import *` statements bind.
    pub fn star_imported_names(&self, body: &[ast::Stmt]) -> Vec<String> {
        let mut stars = Vec::new();
        scan::star_imports(body, &mut stars);
        stars
            .iter()
            .filter_map(|(module, level)| self.absolute_module(module, *level))
            .filter_map(|abs| self.program.star_names.get(&abs))
            .flatten()
            .cloned()
            .collect()
    }

    /// The absolute name of the module `from <level dots><name> import`
    /// names here.
    pub fn absolute_module(&self, name: &str, level: u32) -> Option<String> {
        imports::absolute_name(&self.name, self.is_package, name, level)
    }

    /// The definition of the function whose graph is `graph`.
    pub fn function(&self, graph: &str) -> Option<&FuncDef<'_>> {
        self.program
            .functions
            .get(graph)
            .or_else(|| self.program.functions.get(&self.source_function(graph)?))
    }

    /// The nested function a closure's graph was made from (see
    /// `closures`), for graphs that are closures.
    pub fn source_function(&self, graph: &str) -> Option<String> {
        self.program.prebuilt.borrow().closures.function_of(graph)
    }

    /// The module's name as Python knows it when the program runs as a
    /// script: `__main__` for the main module (what qualifies its classes).
    pub fn python_name(&self) -> &str {
        if self.is_main {
            "__main__"
        } else {
            &self.name
        }
    }

    /// At import time, the graph name of the function or class the global
    /// `name` is while the module runs, when only its `def` or `class`
    /// statement binds it (a name rebound, `f = g`, is known only when the
    /// code runs). Its class body's graph for a class.
    pub fn import_time_definition(&self, name: &str) -> Option<String> {
        let GlobalAccess::Live { defined_once, .. } = &self.access else {
            return None;
        };
        defined_once
            .contains(name)
            .then(|| self.global_graph_name(name))
    }

    /// At import time, the graph name of the function or class of another
    /// module the global `name` is, when only a `from module import name`
    /// binds it (the function's graph is named by its dotted name).
    pub fn import_time_import(&self, name: &str) -> Option<&str> {
        let GlobalAccess::Live { imported_once, .. } = &self.access else {
            return None;
        };
        imported_once.get(name).map(String::as_str)
    }

    /// The graph name of this module's module-level function or class
    /// `name` (without the line a second definition of it gets).
    pub fn global_graph_name(&self, name: &str) -> String {
        format!("{}{name}", graph_prefix(&self.name, self.is_main))
    }
}

/// What the graph names of a module's functions and classes start with:
/// nothing for the main module, `module.` for the others.
fn graph_prefix(module: &str, is_main: bool) -> String {
    if is_main {
        String::new()
    } else {
        format!("{module}.")
    }
}

/// The graph of the body of the class whose graph name is `class`.
pub(crate) fn class_body_graph(class: &str) -> String {
    format!("<class {class}>")
}

/// Builds the flow graphs of the program whose main module is `module`:
/// imports it (and the modules it imports), calls `target`, then builds the
/// graph of the entry point and of every function it refers to,
/// transitively, in the order they are discovered (entry first). Reports
/// every error it finds.
///
/// `module`'s positions are in `FileId::MAIN`; the program's `sources`
/// number the files of the modules it imports after it.
pub fn build_flow(module: &ast::Module, source: &str) -> Result<Program<Flow>, Diagnostics> {
    build_from(module, source, FileId::MAIN, None)
}

/// Builds the flow graphs of a library of functions rather than a program:
/// imports `module` (and what it imports) without calling `target`, then
/// builds the graph of every function of the modules whose name starts
/// with `package` (and of what they refer to). The program has no entry
/// point; this is how the low-level helpers of pylib/rpython/rtyper/ are
/// read (`rtype::lowlevel_helpers`). `module`'s positions are in file
/// `main_file`, and the files it imports are numbered after it.
pub fn build_library(
    module: &ast::Module,
    source: &str,
    main_file: FileId,
    package: &str,
) -> Result<Program<Flow>, Diagnostics> {
    build_from(module, source, main_file, Some(package))
}

/// What `from M import *` binds for each program module M, computed in
/// execution order so that a module's own `import *`s are known.
fn star_names(set: &imports::ModuleSet) -> HashMap<String, Vec<String>> {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for &i in &set.order {
        let m = &set.modules[i];
        let names = {
            let star = |module: &str, level: u32| {
                imports::absolute_name(&m.name, m.is_package, module, level)
                    .and_then(|abs| out.get(&abs).cloned())
                    .unwrap_or_default()
            };
            scan::module_exports(&m.ast.body, &star)
        };
        out.insert(m.name.clone(), names);
    }
    out
}

/// `build_flow` from the entry point `target` returns, or with
/// `library_package`, `build_library` of that package.
fn build_from(
    module: &ast::Module,
    source: &str,
    main_file: FileId,
    library_package: Option<&str>,
) -> Result<Program<Flow>, Diagnostics> {
    let set = imports::Loader::load_program(module, source, main_file).map_err(sorted)?;
    let mut defs = ProgramDefs {
        functions: FxHashMap::default(),
        graph_names: HashMap::new(),
        methods: HashMap::new(),
        globals: HashMap::new(),
        defaults: HashMap::new(),
        hints: RefCell::new(HashMap::new()),
        prebuilt: RefCell::new(PrebuiltTable::default()),
        mixin_copies: HashMap::new(),
        copied_methods: HashMap::new(),
        unresolved_imports: set
            .unresolved
            .iter()
            .map(|(name, why)| {
                let message = why.iter().map(|d| d.message.as_str()).collect::<Vec<_>>();
                (name.clone(), message.join("; "))
            })
            .collect(),
        star_names: star_names(&set),
        enclosing: HashMap::new(),
        method_signatures: Default::default(),
    };
    for (i, m) in set.modules.iter().enumerate() {
        let prefix = graph_prefix(&m.name, i == 0);
        collect_defs(&m.name, &prefix, &m.ast.body, &mut defs);
    }
    // Each method's graph is `Class.name` where `<class Class>` is a class body.
    for graph in defs.functions.keys() {
        let Some((class, method)) = graph.rsplit_once('.') else {
            continue;
        };
        if defs.functions.contains_key(&class_body_graph(class)) {
            defs.methods
                .entry(method.to_string())
                .or_default()
                .push(graph.clone());
        }
    }
    for graphs in defs.methods.values_mut() {
        graphs.sort();
    }
    let imported =
        import_time::import_program(&set, &defs, library_package.is_none()).map_err(sorted)?;
    defs.globals = imported.globals;
    defs.defaults = imported.defaults;
    let defs = Rc::new(defs);

    let contexts: HashMap<&str, ModuleCtx> = set
        .modules
        .iter()
        .map(|m| {
            let ctx = ModuleCtx {
                name: m.name.clone(),
                path: &m.path,
                sources: &set.sources,
                dialect: m.ast.dialect,
                is_package: m.is_package,
                is_main: std::ptr::eq(m, &set.modules[0]),
                access: GlobalAccess::Constants,
                import_bindings: rlib::import_bindings(&m.ast.body),
                program: defs.clone(),
            };
            (m.name.as_str(), ctx)
        })
        .collect();

    let mut diags = Vec::new();
    let mut graphs: Vec<FunctionGraph<Flow>> = Vec::new();
    let entry = imported.entry;
    let roots: Vec<String> = match library_package {
        None => vec![entry.clone()],
        Some(package) => {
            let mut roots: Vec<String> = defs
                .functions
                .iter()
                .filter(|(graph, def)| {
                    def.class_body.is_none()
                        && imported
                            .function_modules
                            .get(*graph)
                            .is_some_and(|m| m.starts_with(package))
                })
                .map(|(graph, _)| graph.clone())
                .collect();
            roots.sort();
            roots
        }
    };
    let root_names: HashSet<String> = roots.iter().cloned().collect();
    let is_root = |name: &str| root_names.contains(name);
    let mut seen: HashSet<String> = roots.iter().cloned().collect();
    let mut queue: VecDeque<String> = roots.into();
    // Prebuilt objects do not change once made, so each is walked once.
    let mut walked_objects: HashSet<u32> = HashSet::new();
    let hook_graphs = match &imported.gc_hooks {
        None => Vec::new(),
        Some((hooks, get_gchooks)) => {
            let pos = defs.functions.get(get_gchooks).map(|def| def.pos);
            let hooks = defs.prebuilt.borrow_mut().constant(hooks).map_err(|why| {
                Diagnostics::one(set.sources.diagnostic_or(
                    &module.path,
                    pos.unwrap_or(Pos::new(1, 1)),
                    format!(
                        "get_gchooks() must return the GC hooks, an instance; it returned {why}"
                    ),
                ))
            })?;
            gc_hooks::gc_hook_graphs(&hooks, pos)
        }
    };
    for g in &hook_graphs {
        let mut found = Vec::new();
        referenced_functions(g, &defs.prebuilt.borrow(), &mut walked_objects, &mut found);
        for r in found {
            if seen.insert(r.clone()) {
                queue.push_back(r);
            }
        }
    }
    while let Some(name) = queue.pop_front() {
        // A closure's graph is its `def`'s, built with its cells' values.
        let source = defs
            .prebuilt
            .borrow()
            .closures
            .function_of(&name)
            .unwrap_or_else(|| name.clone());
        let (Some(def), Some(module)) = (
            defs.functions.get(&source),
            imported.function_modules.get(&source),
        ) else {
            continue;
        };
        let ctx = &contexts[module.as_str()];
        let built = builder::build_function(ctx, def, &name);
        // A root is reached; another function's errors wait for the
        // annotator to reach a call of it, and what only it refers to is
        // not built.
        if !built.diags.is_empty() && !is_root(&name) {
            graphs.push(builder::held_errors_graph(ctx, def, &name, &built.diags));
            continue;
        }
        diags.extend(built.diags);
        let mut found = built.referenced;
        for g in built.graph.iter().chain(&built.extra_graphs) {
            // Functions reached only through prebuilt objects (a table of
            // functions) are translated too.
            referenced_functions(g, &defs.prebuilt.borrow(), &mut walked_objects, &mut found);
        }
        for r in found {
            if seen.insert(r.clone()) {
                queue.push_back(r);
            }
        }
        if let Some(mut g) = built.graph {
            g.hints = defs.hints.borrow().get(&name).cloned().unwrap_or_default();
            graphs.push(g);
        }
        for g in built.extra_graphs {
            seen.insert(g.name.clone());
            graphs.push(g);
        }
    }
    if !diags.is_empty() {
        return Err(sorted(diags));
    }
    graphs.extend(hook_graphs);
    let prebuilt = std::mem::take(&mut defs.prebuilt.borrow_mut().objects);
    Ok(Program {
        path: module.path.clone(),
        sources: set.sources,
        graphs,
        entry,
        types: Default::default(),
        facts: Default::default(),
        prebuilt,
    })
}

/// Diagnostics in file and position order, each once.
fn sorted(mut diags: Vec<Diagnostic>) -> Diagnostics {
    diags.sort_by(|a, b| (&a.file, a.pos).cmp(&(&b.file, b.pos)));
    diags.dedup();
    Diagnostics(diags)
}

/// Records every `def` and `class` of a module body (at any depth of
/// module-level control flow, not inside functions) under its graph name:
/// the module's prefix and the function's name, with the line appended when
/// a module defines the name more than once. A method's graph is named
/// after its class (`Node.eval`); a class body's graph is `<class Node>`.
fn collect_defs<'a>(module: &str, prefix: &str, stmts: &'a [Stmt], defs: &mut ProgramDefs<'a>) {
    for s in stmts {
        let mut lambdas = Vec::new();
        scan::statement_lambdas(s, &mut lambdas);
        for e in lambdas {
            let graph = format!("{prefix}{LAMBDA_NAME}_{}_{}", e.pos.line, e.pos.col);
            defs.graph_names
                .insert((module.to_string(), e.pos), graph.clone());
            if let Some(def) = FuncDef::of_lambda(e) {
                defs.functions.insert(graph, def);
            }
        }
        match &s.kind {
            StmtKind::FunctionDef {
                name,
                decorators,
                star_args,
                ..
            } => {
                let graph = unique_graph_name(format!("{prefix}{name}"), s.pos, defs);
                // The annotator makes one copy of a `*args` function per
                // number of star-arguments it is called with.
                if star_args.is_some() {
                    add_hint(defs, &graph, STAR_ARGS_HINT);
                }
                // A static method takes no instance: calls by method name
                // and the class's attribute say so through this hint.
                let is_static = decorators
                    .iter()
                    .any(|d| matches!(&d.kind, ExprKind::Name(n) if n == "staticmethod"));
                if is_static {
                    add_hint(defs, &graph, STATIC_METHOD_HINT);
                }
                record_def(defs, module, s, &graph);
                if let StmtKind::FunctionDef { body, .. } = &s.kind {
                    closures::collect_nested_defs(module, &graph, body, defs);
                }
            }
            StmtKind::ClassDef {
                name, body, bases, ..
            } => {
                let class = unique_graph_name(format!("{prefix}{name}"), s.pos, defs);
                let graph = class_body_graph(&class);
                defs.graph_names
                    .insert((module.to_string(), s.pos), graph.clone());
                defs.functions.insert(
                    graph,
                    FuncDef {
                        class_body: Some(name),
                        bases,
                        ..FuncDef::of_body(name, s.pos, body)
                    },
                );
                collect_defs(module, &format!("{class}."), body, defs);
                collect_mixin_copies(module, &class, body, stmts, defs);
            }
            _ => s.for_each_nested_body(|body| collect_defs(module, prefix, body, defs)),
        }
    }
}

/// The mixin class an `import_from_mixin(Mixin)` statement names.
pub(crate) fn imported_mixin(s: &Stmt) -> Option<&str> {
    let StmtKind::Expr(Expr {
        kind: ExprKind::Call { func, args, .. },
        ..
    }) = &s.kind
    else {
        return None;
    };
    let is_import_from_mixin = match &func.kind {
        ExprKind::Name(n) => n == "import_from_mixin",
        ExprKind::Attribute { attr, .. } => attr == "import_from_mixin",
        _ => false,
    };
    match args.as_slice() {
        [Expr {
            kind: ExprKind::Name(mixin),
            ..
        }] if is_import_from_mixin => Some(mixin),
        _ => None,
    }
}

/// Records a copy of each method of the mixins the class body of `class`
/// imports (`import_from_mixin(M)`, M a class defined among `siblings`):
/// every function but the special methods other than `__init__` and
/// `__del__`, as rlib's `import_from_mixin` copies them.
fn collect_mixin_copies<'a>(
    module: &str,
    class: &str,
    body: &'a [Stmt],
    siblings: &'a [Stmt],
    defs: &mut ProgramDefs<'a>,
) {
    for s in body {
        let Some(mixin) = imported_mixin(s) else {
            continue;
        };
        let mixin_body = siblings.iter().find_map(|c| match &c.kind {
            StmtKind::ClassDef { name, body, .. } if name == mixin => Some(body),
            _ => None,
        });
        let Some(mixin_body) = mixin_body else {
            continue;
        };
        let mut copies = Vec::new();
        for m in mixin_body {
            let Some(def) = FuncDef::of_def(m) else {
                continue;
            };
            let name = def.name;
            let special = name.starts_with("__") && name != "__init__" && name != "__del__";
            if special {
                continue;
            }
            let graph = unique_graph_name(format!("{class}.{name}"), m.pos, defs);
            defs.functions.insert(graph.clone(), def);
            defs.copied_methods
                .insert(graph.clone(), module.to_string());
            copies.push((name.to_string(), graph));
        }
        defs.mixin_copies
            .insert((module.to_string(), s.pos), copies);
    }
}

/// Gives graph `graph` the hint `hint` for the annotator.
fn add_hint(defs: &ProgramDefs, graph: &str, hint: &str) {
    defs.method_signatures.borrow_mut().clear();
    defs.hints
        .borrow_mut()
        .entry(graph.to_string())
        .or_default()
        .push(hint.to_string());
}

/// Records the `def` statement `s` of `module` as graph `graph`.
fn record_def<'a>(defs: &mut ProgramDefs<'a>, module: &str, s: &'a Stmt, graph: &str) {
    defs.graph_names
        .insert((module.to_string(), s.pos), graph.to_string());
    if let Some(def) = FuncDef::of_def(s) {
        defs.functions.insert(graph.to_string(), def);
    }
}

/// `graph`, or `graph_LINE` when a function or class of that name is
/// already recorded (a module defining a name twice).
fn unique_graph_name(graph: String, pos: Pos, defs: &ProgramDefs) -> String {
    let taken = defs.functions.contains_key(&graph)
        || defs.functions.contains_key(&class_body_graph(&graph));
    if taken {
        format!("{graph}_{}", pos.line)
    } else {
        graph
    }
}

/// Adds to `out` the functions a graph refers to through constants (a
/// function may appear more than once): directly
/// and inside the prebuilt objects it uses (transitively), but not inside
/// the objects in `walked` (whose functions were found before); adds the
/// objects it walks to `walked`.
fn referenced_functions(
    g: &FunctionGraph<Flow>,
    prebuilt: &PrebuiltTable,
    walked: &mut HashSet<u32>,
    out: &mut Vec<String>,
) {
    let mut stack: Vec<Constant> = Vec::new();
    for b in &g.blocks {
        let args = b
            .operations
            .iter()
            .flat_map(|op| op.args.iter())
            .chain(b.exits.iter().flat_map(|l| l.args.iter()));
        for a in args {
            // Only these lead to functions: copying the other constants (a
            // graph holds many strings and names) would only drop them
            // below, and leaving them out keeps the order of the rest.
            if let Arg::Const(
                c @ (Constant::Func(_) | Constant::Class(_) | Constant::Prebuilt(_)),
            ) = a
            {
                stack.push(c.clone());
            }
        }
    }
    while let Some(c) = stack.pop() {
        match c {
            // Repeats are dropped where the graphs to build are queued.
            Constant::Func(f) => out.push(f),
            // A class's methods are translated with it.
            Constant::Class(name) => {
                if let Some(i) = prebuilt.class_id(&name) {
                    stack.push(Constant::Prebuilt(i));
                }
            }
            Constant::Prebuilt(i) if walked.insert(i) => match prebuilt.objects.get(i as usize) {
                Some(PrebuiltObject::List(xs)) | Some(PrebuiltObject::Tuple(xs)) => {
                    stack.extend(xs.iter().rev().cloned())
                }
                Some(PrebuiltObject::Dict(pairs)) => {
                    for (k, v) in pairs.iter().rev() {
                        stack.push(v.clone());
                        stack.push(k.clone());
                    }
                }
                Some(PrebuiltObject::Instance { class, attrs }) => {
                    stack.extend(attrs.iter().rev().map(|(_, v)| v.clone()));
                    stack.push(Constant::Class(class.clone()));
                }
                Some(PrebuiltObject::Class { bases, attrs, .. }) => {
                    stack.extend(attrs.iter().rev().map(|(_, v)| v.clone()));
                    stack.extend(bases.iter().map(|b| Constant::Class(b.clone())));
                }
                // Low-level statics exist only after the rtyper.
                Some(PrebuiltObject::Struct { .. } | PrebuiltObject::Array { .. }) | None => {}
            },
            _ => {}
        }
    }
}

/// Is this `if __name__ == '__main__':`?
pub(crate) fn is_main_guard(test: &Expr) -> bool {
    let ExprKind::Compare { left, ops } = &test.kind else {
        return false;
    };
    let [(CmpOp::Eq, right)] = ops.as_slice() else {
        return false;
    };
    let is_name = |e: &Expr| matches!(&e.kind, ExprKind::Name(n) if n == "__name__");
    let is_main = |e: &Expr| matches!(&e.kind, ExprKind::Str(s) if s == "__main__");
    (is_name(left) && is_main(right)) || (is_main(left) && is_name(right))
}

/// The first `return` statement in a body (looking into nested blocks).
pub(crate) fn first_return(stmts: &[Stmt]) -> Option<(Pos, Option<&Expr>)> {
    for s in stmts {
        match &s.kind {
            StmtKind::Return(v) => return Some((s.pos, v.as_ref())),
            StmtKind::If { body, orelse, .. }
            | StmtKind::While { body, orelse, .. }
            | StmtKind::For { body, orelse, .. } => {
                if let Some(r) = first_return(body).or_else(|| first_return(orelse)) {
                    return Some(r);
                }
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => {
                let found = first_return(body)
                    .or_else(|| handlers.iter().find_map(|h| first_return(&h.body)))
                    .or_else(|| first_return(orelse))
                    .or_else(|| first_return(finalbody));
                if found.is_some() {
                    return found;
                }
            }
            _ => {}
        }
    }
    None
}

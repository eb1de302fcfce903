//! Import time: the program's modules run, as Python runs them, before
//! anything is translated.
//!
//! Each module's body becomes a flow graph (its names are the module's
//! globals, read and written on the module object as the code runs), as do
//! the program's functions (reading globals the same way, since import-time
//! code may call them while the globals still change). The object-level
//! interpreter runs the module bodies in import order, dependencies first;
//! module objects (the program's, the rlib modules and `sys`/`os`) are the
//! import-time program's prebuilt objects. Then `target(driver, args)` is
//! called to find the entry point, and each module's globals are read back:
//! what translated functions see as constants.
//!
//! A function's import-time graph that cannot be built (it uses something
//! the builder rejects) is left out; its diagnostics are reported only if
//! import-time code calls it, since a function that only runs translated is
//! checked when its translated graph is built.

use super::imports::{external_module_constants, ModuleKind, ModuleSet};
use super::{builder, first_return, rlib, scan};
use super::{FuncDef, Global, GlobalAccess, ModuleCtx, PrebuiltTable, ProgramDefs};
use crate::objinterp::exceptions::ClassTable;
use crate::objinterp::modules;
use crate::objinterp::{ObjError, ObjInterpreter, ObjValue};
use rpy_ir::ast::{Dialect, ExprKind, Stmt, StmtKind};
use rpy_ir::diag::{Diagnostic, Pos};
use rpy_ir::graph::{Constant, Flow, FunctionGraph, PrebuiltObject, Program};
use std::collections::HashMap;
use std::rc::Rc;

/// What importing the program found.
pub(crate) struct Imported {
    /// Each module's globals after import, by module name.
    pub globals: HashMap<String, HashMap<String, Global>>,
    /// The entry point's graph name.
    pub entry: String,
    /// The module each function graph belongs to.
    pub function_modules: HashMap<String, String>,
    /// The default values each function's `def` statement evaluated, by
    /// graph name, then by parameter name.
    pub defaults: HashMap<String, HashMap<String, Global>>,
    /// What the main module's `get_gchooks()` returned: the object whose
    /// `fire_gc_*` methods the collector calls (the original's GC hooks),
    /// with the graph name of `get_gchooks`.
    pub gc_hooks: Option<(ObjValue, String)>,
}

/// The graph name of a module's body in the import-time program (not a
/// Python name, so that it cannot clash with a function's).
fn body_graph_name(module: &str) -> String {
    format!("<module {module}>")
}

/// Imports the program: runs every module body, then `target` when
/// `call_target` (a library of helpers has no entry point).
pub(crate) fn import_program(
    set: &ModuleSet,
    defs: &ProgramDefs,
    call_target: bool,
) -> Result<Imported, Vec<Diagnostic>> {
    let main = &set.modules[0];
    let dialect = main.ast.dialect;
    let function_modules: HashMap<String, String> = defs
        .graph_names
        .iter()
        .map(|((module, _), graph)| (graph.clone(), module.clone()))
        .chain(defs.copied_methods.clone())
        .collect();

    // The module objects, as prebuilt objects of the import-time program.
    let mut names: Vec<&str> = set.kinds.keys().map(String::as_str).collect();
    names.sort();
    let module_consts: Rc<HashMap<String, Constant>> = Rc::new(
        names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), Constant::Prebuilt(i as u32)))
            .collect(),
    );
    // The import-time graphs: each module body, and each function once
    // import-time code calls it.
    let mut graphs: Vec<FunctionGraph<Flow>> = Vec::new();
    let mut contexts: HashMap<&str, ModuleCtx> = HashMap::new();
    let mut diags = Vec::new();
    let mut unbuilt: HashMap<String, Vec<Diagnostic>> = HashMap::new();
    let program_defs = Rc::new(ProgramDefs {
        functions: defs.functions.clone(),
        graph_names: defs.graph_names.clone(),
        methods: defs.methods.clone(),
        globals: HashMap::new(),
        defaults: HashMap::new(),
        hints: Default::default(),
        prebuilt: Default::default(),
        mixin_copies: defs.mixin_copies.clone(),
        copied_methods: defs.copied_methods.clone(),
        unresolved_imports: defs.unresolved_imports.clone(),
        star_names: defs.star_names.clone(),
        enclosing: defs.enclosing.clone(),
        method_signatures: Default::default(),
    });
    for m in &set.modules {
        let mut bound = scan::NameList::default();
        scan::bound_names(&m.ast.body, &mut bound);
        // Python 2's list comprehensions assign their loop variables in
        // the enclosing scope: at module level, globals.
        if dialect == Dialect::Py2 {
            scan::comprehension_targets(&m.ast.body, &mut bound);
        }
        for (graph, def) in &defs.functions {
            if function_modules.get(graph) == Some(&m.name) {
                scan::global_names(def.body, &mut bound);
            }
        }
        bound.add("__name__");
        bound.add("__file__");
        let mut stars = Vec::new();
        scan::star_imports(&m.ast.body, &mut stars);
        for (module, level) in stars {
            let abs = super::imports::absolute_name(&m.name, m.is_package, &module, level);
            for n in abs
                .and_then(|a| defs.star_names.get(&a))
                .into_iter()
                .flatten()
            {
                bound.add(n);
            }
        }
        let functions = defs
            .functions
            .iter()
            .filter(|(graph, _)| function_modules.get(*graph) == Some(&m.name))
            .map(|(_, def)| def.body);
        let bound_once = scan::bound_once(&m.ast.body, functions);
        let ctx = ModuleCtx {
            name: m.name.clone(),
            path: &m.path,
            sources: &set.sources,
            dialect,
            is_package: m.is_package,
            is_main: std::ptr::eq(m, main),
            access: GlobalAccess::Live {
                module: module_consts[&m.name].clone(),
                bound: Rc::new(bound.into_vec().into_iter().collect()),
                defined_once: Rc::new(bound_once.defined),
                imported_once: Rc::new(bound_once.imported),
                modules: module_consts.clone(),
                names_by_globals: scan::assigns_through_globals(&m.ast.body),
            },
            import_bindings: rlib::import_bindings(&m.ast.body),
            program: program_defs.clone(),
        };
        let body = FuncDef {
            module_body: true,
            ..FuncDef::of_body(&m.name, Pos::in_file(m.file, 1, 1), &m.ast.body)
        };
        let built = builder::build_function(&ctx, &body, &body_graph_name(&m.name));
        diags.extend(built.diags);
        graphs.extend(built.graph);
        // The class bodies run only at import time, each once.
        let mut class_bodies: Vec<(&String, &FuncDef)> = defs
            .functions
            .iter()
            .filter(|(graph, def)| {
                def.class_body.is_some() && function_modules.get(*graph) == Some(&m.name)
            })
            .collect();
        class_bodies.sort_by_key(|(_, def)| def.pos);
        for (graph, def) in class_bodies {
            let built = builder::build_function(&ctx, def, graph);
            diags.extend(built.diags);
            graphs.extend(built.graph);
        }
        contexts.insert(&m.name, ctx);
    }
    // The hints the module bodies' decorators recorded.
    for (graph, hints) in program_defs.hints.take() {
        defs.method_signatures.borrow_mut().clear();
        defs.hints
            .borrow_mut()
            .entry(graph)
            .or_default()
            .extend(hints);
    }
    if !diags.is_empty() {
        return Err(diags);
    }

    // Each run starts from fresh module objects; a run that calls a
    // function with no graph yet builds it and starts again (module bodies
    // are deterministic, so the run is the same up to there).
    let missing_function = |e: &ObjError| -> Option<String> {
        // A call from a graph, or the call of `target` itself.
        e.message
            .strip_prefix("the program has no graph for the function '")
            .or_else(|| e.message.strip_prefix("no graph named '"))
            .and_then(|rest| rest.strip_suffix('\''))
            .map(str::to_string)
    };
    loop {
        let objects = fresh_module_objects(set, &names, dialect);
        let module_value = |name: &str| -> Option<ObjValue> {
            let i = names.iter().position(|n| *n == name)?;
            Some(objects[i].clone())
        };
        let program = Program {
            path: main.path.clone(),
            sources: set.sources.clone(),
            graphs: graphs.clone(),
            entry: String::new(),
            types: Default::default(),
            facts: Default::default(),
            prebuilt: Vec::new(),
        };
        // Import-time code is Python: its ints are unbounded.
        let mut interp = ObjInterpreter::with_prebuilt_values(&program, dialect, objects.clone())
            .with_python_ints();
        // Output at import time goes to the translator's terminal, not to
        // the translated program's: it is not part of the program.
        let mut out: Vec<u8> = Vec::new();
        let mut run = || -> Result<(String, Option<(ObjValue, String)>), RunFailure> {
            for &i in &set.order {
                let m = &set.modules[i];
                interp
                    .call(&body_graph_name(&m.name), Vec::new(), &mut out)
                    .map_err(|e| RunFailure::Raised(Box::new(e), m.name.clone()))?;
                if let (Some((parent, child)), Some(obj)) =
                    (m.name.rsplit_once('.'), module_value(&m.name))
                {
                    if let Some(p) = module_value(parent) {
                        modules::set(&p, child, obj);
                    }
                }
            }
            if !call_target {
                return Ok((String::new(), None));
            }
            let main_obj = module_value(&main.name).expect("the main module has an object");
            let entry = find_entry(set, defs, &main_obj, &unbuilt, &mut interp, &mut out)?;
            let hooks = gc_hooks(&main_obj, &mut interp, &mut out)
                .map_err(|e| RunFailure::Raised(Box::new(e), main.name.clone()))?;
            Ok((entry, hooks))
        };
        let failure = match run() {
            Ok((entry, gc_hooks)) => {
                let mut globals = HashMap::new();
                for name in &names {
                    let Some(obj) = module_value(name) else {
                        continue;
                    };
                    let attrs = modules::attributes(&obj)
                        .into_iter()
                        .map(|(k, v)| (k, global_of(&v)))
                        .collect();
                    globals.insert(name.to_string(), attrs);
                }
                let defaults = interp
                    .function_defaults()
                    .into_iter()
                    .filter_map(|(graph, values)| {
                        let def = defs.functions.get(&*graph)?;
                        Some((graph.to_string(), named_defaults(def, &values)))
                    })
                    .collect();
                return Ok(Imported {
                    globals,
                    entry,
                    function_modules,
                    defaults,
                    gc_hooks,
                });
            }
            Err(f) => f,
        };
        let (e, module) = match failure {
            RunFailure::Diagnostics(d) => return Err(d),
            RunFailure::Raised(e, module) => (e, module),
        };
        let Some(f) = missing_function(&e).filter(|f| !unbuilt.contains_key(f)) else {
            if let Some(d) = missing_function(&e).and_then(|f| unbuilt.get(&f)) {
                return Err(d.clone());
            }
            let pos = position_of(set, &program, &e);
            return Err(vec![set.sources.diagnostic(
                pos,
                format!(
                    "importing the module '{module}' raised {}; module-level code runs when the program is imported, with Python's semantics, and must not fail",
                    e.exception_line()
                ),
            )]);
        };
        let def = defs.functions.get(&f);
        let ctx = function_modules
            .get(&f)
            .and_then(|m| contexts.get(m.as_str()));
        let (Some(def), Some(ctx)) = (def, ctx) else {
            return Err(vec![Diagnostic::new(
                &main.path,
                Pos::new(1, 1),
                format!("internal error in the import-time run: no function '{f}'"),
            )]);
        };
        let built = builder::build_function(ctx, def, &f);
        match built.graph {
            Some(g) if built.diags.is_empty() => graphs.push(g),
            _ => {
                unbuilt.insert(f, built.diags);
            }
        }
    }
}

/// Why an import-time run stopped.
enum RunFailure {
    /// The program raised (or called a function with no graph yet), in the
    /// named module's import.
    Raised(Box<ObjError>, String),
    Diagnostics(Vec<Diagnostic>),
}

/// New module objects for a run: the program's empty but for `__name__`
/// and `__file__`,
/// the rlib modules with their names, packages holding their rlib and
/// external submodules.
fn fresh_module_objects(set: &ModuleSet, names: &[&str], dialect: Dialect) -> Vec<ObjValue> {
    let objects = modules::module_objects(names);
    let module_value = |name: &str| -> Option<ObjValue> {
        let i = names.iter().position(|n| *n == name)?;
        Some(objects[i].clone())
    };
    let classes = ClassTable::builtin(dialect);
    for (name, kind) in &set.kinds {
        let Some(m) = module_value(name) else {
            continue;
        };
        let constants: Vec<(String, Constant)> = match kind {
            ModuleKind::Rlib => rlib::module_attributes(name),
            ModuleKind::External => external_module_constants(name, dialect),
            // A module read from a file knows where it is (`py.path.local(__file__)`).
            ModuleKind::Program(i) => vec![(
                "__file__".to_string(),
                Constant::Str(set.modules[*i].path.clone()),
            )],
        };
        for (attr, value) in constants {
            if let Some(v) = ObjValue::from_constant(&value, &classes) {
                modules::set(&m, &attr, v);
            }
        }
        if !matches!(kind, ModuleKind::Program(_)) {
            // Packages that are not executed hold their submodules at once.
            if let Some((parent, child)) = name.rsplit_once('.') {
                if let Some(p) = module_value(parent) {
                    modules::set(&p, child, m.clone());
                }
            }
        }
    }
    for (name, obj) in names.iter().zip(&objects) {
        modules::set(obj, "__name__", ObjValue::str(name));
    }
    objects
}

/// Where an import-time failure happened: the file and the position of the
/// function (or module body) that was running.
fn position_of(set: &ModuleSet, program: &Program<Flow>, e: &ObjError) -> Pos {
    let owner = set
        .modules
        .iter()
        .find(|m| e.graph == body_graph_name(&m.name))
        .unwrap_or(&set.modules[0]);
    e.pos
        .or_else(|| program.graph(&e.graph).and_then(|g| g.pos))
        .unwrap_or(Pos::in_file(owner.file, 1, 1))
}

/// A function's `__defaults__` tuple by the names of the parameters it is
/// for (the last ones).
fn named_defaults(def: &FuncDef, values: &ObjValue) -> HashMap<String, Global> {
    let ObjValue::Tuple(values) = values else {
        return HashMap::new();
    };
    let first = def.params.len().saturating_sub(values.len());
    def.params[first..]
        .iter()
        .zip(values.iter())
        .map(|(p, v)| (p.name.clone(), global_of(v)))
        .collect()
}

/// What a module's global is, for translated code.
fn global_of(v: &ObjValue) -> Global {
    if let Some(name) = modules::module_name(v) {
        return Global::Module(name);
    }
    match v {
        ObjValue::Func(f) => Global::Func(f.to_string()),
        _ => match simple_constant(v) {
            Some(c) => Global::Const(c),
            None => Global::Object(v.clone()),
        },
    }
}

/// The constant of a value that is its own constant (not an object with an
/// identity): numbers, strings, None, functions, builtins, builtin classes.
/// (A program class is a `PrebuiltTable` entry, its definition with it.)
pub(crate) fn simple_constant(v: &ObjValue) -> Option<Constant> {
    Some(match v {
        ObjValue::Int(i) => Constant::Int(*i),
        ObjValue::UInt(u) => Constant::UInt(*u),
        ObjValue::Bool(b) => Constant::Bool(*b),
        ObjValue::Float(f) => Constant::Float(*f),
        ObjValue::Str(s) => Constant::Str(rpy_ir::graph::str_of_bytes(s)),
        ObjValue::None => Constant::None,
        ObjValue::Func(f) => Constant::Func(f.to_string()),
        // Its graph's hint says it is static (see `collect_defs`).
        ObjValue::StaticMethod(f) => Constant::Func(f.to_string()),
        // Import-time code has `NotImplemented`; translated code does not.
        ObjValue::Builtin(b) if &**b == "NotImplemented" => return None,
        ObjValue::Builtin(b) => Constant::Builtin(b.to_string()),
        ObjValue::Class(c) if c.module.is_none() => Constant::Class(c.name.to_string()),
        _ => return None,
    })
}

/// The identity of a mutable or shared object (its address), for keeping
/// one prebuilt constant per object.
pub(crate) fn identity(v: &ObjValue) -> Option<usize> {
    match v {
        ObjValue::List(l) => Some(Rc::as_ptr(l) as *const () as usize),
        ObjValue::Dict(d) => Some(Rc::as_ptr(d) as *const () as usize),
        ObjValue::Tuple(t) => Some(Rc::as_ptr(t) as *const () as usize),
        ObjValue::Instance(i) => Some(Rc::as_ptr(i) as *const () as usize),
        _ => None,
    }
}

/// The prebuilt object of an import-time object, its items converted
/// through `table` (so that shared and cyclic references stay so).
pub(crate) fn prebuilt_object(
    v: &ObjValue,
    table: &mut PrebuiltTable,
) -> Result<PrebuiltObject, String> {
    if modules::module_name(v).is_some() {
        return Err("a module".to_string());
    }
    let items = |xs: &[ObjValue], table: &mut PrebuiltTable| -> Result<Vec<Constant>, String> {
        xs.iter().map(|x| table.constant(x)).collect()
    };
    Ok(match v {
        ObjValue::List(l) => {
            let xs = l.borrow().clone();
            PrebuiltObject::List(items(&xs, table)?)
        }
        ObjValue::Tuple(t) => PrebuiltObject::Tuple(items(t, table)?),
        ObjValue::Dict(d) => {
            let entries = d.borrow().entries().to_vec();
            let mut pairs = Vec::new();
            for (k, x) in entries {
                pairs.push((table.constant(&k)?, table.constant(&x)?));
            }
            PrebuiltObject::Dict(pairs)
        }
        ObjValue::Instance(i) => {
            let Constant::Class(class) = table.constant(&ObjValue::Class(i.class.clone()))? else {
                return Err(format!("an instance of '{}'", i.class.name));
            };
            let attrs = i.attrs.borrow().clone();
            let mut out = Vec::new();
            for (name, x) in attrs {
                out.push((name, table.constant(&x)?));
            }
            PrebuiltObject::Instance { class, attrs: out }
        }
        other => return Err(format!("a {} value", other.type_name())),
    })
}

/// Calls `target(driver, args)` and returns the graph name of the entry
/// point it returns.
#[allow(clippy::too_many_arguments)]
fn find_entry(
    set: &ModuleSet,
    defs: &ProgramDefs,
    main_obj: &ObjValue,
    unbuilt: &HashMap<String, Vec<Diagnostic>>,
    interp: &mut ObjInterpreter,
    out: &mut Vec<u8>,
) -> Result<String, RunFailure> {
    let main = &set.modules[0];
    let diag = |pos: Pos, message: &str| {
        RunFailure::Diagnostics(vec![set.sources.diagnostic_or(&main.path, pos, message)])
    };
    // `target` may be a function a factory made (`entry_point, target =
    // make_target_definition(...)`): a closure, called with its cells.
    let (target, cells) = match &modules::get(main_obj, "target") {
        Some(ObjValue::Func(f)) => (f.to_string(), None),
        Some(ObjValue::BoundMethod(m)) if defs.enclosing.contains_key(&*m.func) => {
            (m.func.to_string(), Some(m.receiver.clone()))
        }
        _ => {
            return Err(diag(
                Pos::new(1, 1),
                "the module defines no function 'target'; a program must define `target(driver, args)` returning its entry point function",
            ))
        }
    };
    let Some(def) = defs.functions.get(&target) else {
        return Err(diag(
            Pos::new(1, 1),
            "'target' is not a function of the program",
        ));
    };
    // A wrong entry point is blamed on what `target` returns.
    let (returned_pos, returned) = returned_name(def);
    let blame = returned_pos.unwrap_or(def.pos);
    let result = if let Some(held) = unbuilt.get(&target) {
        // `target()` sets module globals (`global functions`), which the
        // program reads once it runs: the original runs target() before it
        // builds any graph. Without it the entry point would read names no
        // one set; what stops the body from running is the error.
        if let Some(names) = declared_globals(def.body) {
            let mut diags = held.clone();
            diags.push(set.sources.diagnostic_or(
                &main.path,
                def.pos,
                format!(
                    "'target' sets the module's {names} (a `global` statement), which the program reads after it has run; rpy runs target() at import time, as the original does, but cannot run this one (the errors in its body)"
                ),
            ));
            return Err(RunFailure::Diagnostics(diags));
        }
        // A body the builder cannot run yet: the entry point is what its
        // `return` statement names.
        returned.and_then(|n| modules::get(main_obj, &n))
    } else {
        let driver = modules::driver();
        let args = ObjValue::list(Vec::new());
        let mut call_args = vec![driver, args];
        if def.star_args.is_some() {
            // `def target(*args)`: what its named parameters leave is its tuple.
            let rest = call_args.split_off(def.params.len().min(call_args.len()));
            call_args.push(ObjValue::tuple(rest));
        }
        call_args.splice(0..0, cells);
        match interp.call(&target, call_args, out) {
            Ok(v) => Some(v),
            Err(e) => return Err(RunFailure::Raised(Box::new(e), main.name.clone())),
        }
    };
    let entry = match &result {
        Some(ObjValue::Tuple(t)) => {
            // `(entry_point, [int])`: argument types, which the original
            // takes to build a library its test harness calls from Python
            // (its standalone executables come from `(entry_point, None)`).
            if t.get(1)
                .is_some_and(|types| !matches!(types, ObjValue::None))
            {
                return Err(diag(
                    blame,
                    "'target' returns argument types for the entry point: the original builds a library from such a target, for its test harness to call; rpy builds an executable, whose entry point takes the command line (`def entry_point(argv)`, and `return entry_point, None`)",
                ));
            }
            t.first().cloned()
        }
        other => other.clone(),
    };
    match &entry {
        Some(ObjValue::Func(f)) if defs.functions.contains_key(&**f) => Ok(f.to_string()),
        Some(ObjValue::BoundMethod(m)) if defs.enclosing.contains_key(&*m.func) => Err(diag(
            blame,
            "the entry point 'target' returns is a function a factory made (a closure); rpy takes the entry point as a function of its module (`def entry_point(argv)` at module level)",
        )),
        _ => Err(diag(
            blame,
            "'target' must return the entry point, a function of the program (`return entry_point` or `return entry_point, None`)",
        )),
    }
}

/// What the main module's `get_gchooks()` returns, as the original's
/// driver asks the target for its GC hooks, with the function's graph
/// name; `None` without the function or when it returns None.
fn gc_hooks(
    main_obj: &ObjValue,
    interp: &mut ObjInterpreter,
    out: &mut Vec<u8>,
) -> Result<Option<(ObjValue, String)>, ObjError> {
    let f = match &modules::get(main_obj, "get_gchooks") {
        Some(ObjValue::Func(f)) => f.to_string(),
        _ => return Ok(None),
    };
    match interp.call(&f, Vec::new(), out)? {
        ObjValue::None => Ok(None),
        hooks => Ok(Some((hooks, f))),
    }
}

/// The names a function's `global` statements declare, quoted and joined
/// for a message (`None` when there are none): what it sets in its module.
fn declared_globals(stmts: &[Stmt]) -> Option<String> {
    fn collect(stmts: &[Stmt], out: &mut Vec<String>) {
        for s in stmts {
            if let StmtKind::Global(names) = &s.kind {
                out.extend(names.iter().cloned());
            }
            s.for_each_nested_body(|body| collect(body, out));
        }
    }
    let mut names = Vec::new();
    collect(stmts, &mut names);
    if names.is_empty() {
        return None;
    }
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    Some(format!(
        "{} {}",
        if names.len() == 1 {
            "global"
        } else {
            "globals"
        },
        quoted.join(", ")
    ))
}

/// The name `target`'s first `return` statement returns (`return f` or
/// `return f, None`), with the position of the returned value.
fn returned_name(def: &FuncDef) -> (Option<Pos>, Option<String>) {
    let Some((pos, value)) = first_return(def.body) else {
        return (None, None);
    };
    let Some(value) = value else {
        return (Some(pos), None);
    };
    let name = match &value.kind {
        ExprKind::Name(n) => Some(n.clone()),
        ExprKind::Tuple(items) => match items.first().map(|i| &i.kind) {
            Some(ExprKind::Name(n)) => Some(n.clone()),
            _ => None,
        },
        _ => None,
    };
    (Some(value.pos), name)
}

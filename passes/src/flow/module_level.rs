//! Module globals and module-level statements in the builder.
//!
//! A name that is not a local is a module global. At import time
//! (`GlobalAccess::Live`) it is read and written as an attribute of the
//! module object when the code runs, and a module body's `def`, `import` and
//! `from ... import` statements bind module attributes. After import
//! (`GlobalAccess::Constants`) a global reads as the constant it holds (a
//! function, a value, a prebuilt object) and `module.attr` as the module's
//! attribute; writing a global, or defining a function or importing inside a
//! function, is what RPython cannot translate and is reported.

use super::{Arg, Constant, FnBuilder, Pos, Stmt, StmtKind};
use crate::flow::scan::{bound_names, NameList};
use crate::flow::{closures, rlib, FuncDef, Global, GlobalAccess};
use crate::language::import_time_builtins::{IMPORT_STAR, MAKE_CLOSURE, NEW_CELLS};
use crate::language::special_names::DEFAULTS_ATTRIBUTE;
use rpy_ir::ast::{Expr, ExprKind, Param};
use rpy_ir::opcode::Opcode;

/// Special methods RPython never calls implicitly: a class defining one
/// would behave differently once translated.
const UNTRANSLATABLE_METHODS: &[&str] = &[
    "__getattr__",
    "__setattr__",
    "__getattribute__",
    "__delattr__",
];

impl FnBuilder<'_, '_> {
    /// The value of the module global `name`, or `None` when the module
    /// does not bind it (a builtin, or an undefined name).
    pub(super) fn load_global(&mut self, name: &str, pos: Pos) -> Option<Arg> {
        match &self.m.access {
            GlobalAccess::Live { module, bound, .. } => {
                if !bound.contains(name) {
                    return None;
                }
                let args = vec![
                    Arg::Const(module.clone()),
                    Arg::Const(Constant::Name(name.to_string())),
                ];
                Some(Arg::Var(self.emit(Opcode::Getattr, args, pos)))
            }
            GlobalAccess::Constants => {
                let g = self.m.global(name)?.clone();
                Some(self.global_value(&g, name, pos))
            }
        }
    }

    /// `globals()` at import time, as the subscripted dict of
    /// `globals()[name]`: the module object, whose attributes are its
    /// globals (read and written as `getattr`/`setattr`). `None` for other
    /// expressions, and after import, where globals are constants.
    pub(super) fn globals_dict(&mut self, e: &Expr) -> Option<Arg> {
        let GlobalAccess::Live { module, .. } = &self.m.access else {
            return None;
        };
        if !crate::flow::scan::is_globals_call(e) || self.is_local("globals") {
            return None;
        }
        Some(Arg::Const(module.clone()))
    }

    /// Whether `name` is a module global here (so it hides a builtin).
    pub(super) fn is_module_global(&self, name: &str) -> bool {
        match &self.m.access {
            GlobalAccess::Live { bound, .. } => bound.contains(name),
            GlobalAccess::Constants => self.m.global(name).is_some(),
        }
    }

    /// The constant a global's value is in translated code.
    pub(super) fn global_value(&mut self, g: &Global, shown: &str, pos: Pos) -> Arg {
        match g {
            Global::Func(graph) => {
                // Repeats are dropped where the graphs to build are queued.
                self.referenced.push(graph.clone());
                Arg::Const(Constant::Func(graph.clone()))
            }
            Global::Const(c) => Arg::Const(c.clone()),
            Global::Object(v) => {
                let converted = self.m.program.prebuilt.borrow_mut().constant(v);
                match converted {
                    Ok(c) => Arg::Const(c),
                    Err(what) => {
                        self.error(
                            pos,
                            format!(
                                "'{shown}' cannot be a prebuilt constant of translated code: it holds {what}"
                            ),
                        );
                        Arg::Const(Constant::None)
                    }
                }
            }
            Global::Module(m) => {
                self.error(
                    pos,
                    format!(
                        "the module '{m}' is not a value in translated code; use its attributes (`{shown}.name`) directly"
                    ),
                );
                Arg::Const(Constant::None)
            }
        }
    }

    /// The module a (non-local) name or attribute chain names after import.
    fn module_named(&self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Name(n) if self.local_modules.contains_key(n) => {
                self.local_modules.get(n).cloned()
            }
            ExprKind::Name(n) if !self.is_local(n) => match self.m.global(n)? {
                Global::Module(m) => Some(m.clone()),
                _ => None,
            },
            ExprKind::Attribute { value, attr } => {
                let m = self.module_named(value)?;
                match self.m.program.globals.get(&m)?.get(attr)? {
                    Global::Module(sub) => Some(sub.clone()),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `module.attr` in translated code: the module's attribute as a
    /// constant. `None` when `value` is not a module (an ordinary getattr).
    pub(super) fn module_attribute(&mut self, value: &Expr, attr: &str, pos: Pos) -> Option<Arg> {
        if !matches!(self.m.access, GlobalAccess::Constants) {
            return None;
        }
        let m = self.module_named(value)?;
        let found = self
            .m
            .program
            .globals
            .get(&m)
            .and_then(|g| g.get(attr))
            .cloned();
        Some(match found {
            Some(g) => self.global_value(&g, &format!("{m}.{attr}"), pos),
            None => {
                let hint = match (m.as_str(), attr) {
                    ("sys", "stdout" | "stderr" | "stdin") => {
                        "; RPython has no file objects for the standard streams: write with \
                         os.write(1, text) (2 for stderr), read with os.read(0, n)"
                    }
                    _ => "",
                };
                self.error(
                    pos,
                    format!("module '{m}' has no attribute '{attr}' after import{hint}"),
                );
                Arg::Const(Constant::None)
            }
        })
    }

    /// Assigns the module global `name` (declared `global`, or bound by a
    /// module body).
    pub(super) fn store_global(&mut self, name: &str, value: Arg, pos: Pos) {
        match &self.m.access {
            GlobalAccess::Live { module, .. } => {
                let args = vec![
                    Arg::Const(module.clone()),
                    Arg::Const(Constant::Name(name.to_string())),
                    value,
                ];
                self.emit(Opcode::Setattr, args, pos);
            }
            GlobalAccess::Constants => self.error(
                pos,
                format!(
                    "cannot assign to the global '{name}' in translated code: module globals are constants once the program is imported; keep the changing value in an attribute of a prebuilt instance or an item of a prebuilt list"
                ),
            ),
        }
    }

    /// `def` statements: at module level, binding the function (after its
    /// decorators: rlib ones become hints on its graph, others are called
    /// at import time); inside a function, the nested function as a
    /// constant when it has no defaults and no decorators (as the
    /// original's flow space makes a function whose code and defaults are
    /// constants; reading a variable of the enclosing function is an error
    /// where the nested graph reads it), else an error.
    pub(super) fn def_stmt(&mut self, s: &Stmt) {
        let StmtKind::FunctionDef {
            name,
            decorators,
            params,
            ..
        } = &s.kind
        else {
            return;
        };
        if let (Some(class), true) = (
            &self.class_body,
            UNTRANSLATABLE_METHODS.contains(&name.as_str()),
        ) {
            self.error(
                s.pos,
                format!(
                    "'{class}.{name}': RPython does not call '{name}', so attribute access would not do what this class says; give '{class}' its attributes explicitly and call an ordinary method"
                ),
            );
        }
        if self.keeps_cells {
            return self.make_closure(s);
        }
        let key = (self.m.name.clone(), s.pos);
        if !self.module_body && self.class_body.is_none() {
            let constant_def = decorators.is_empty() && params.iter().all(|p| p.default.is_none());
            if let (true, Some(graph)) = (constant_def, self.m.program.graph_names.get(&key)) {
                let value = Arg::Const(Constant::Func(graph.clone()));
                self.store_name(name, value, s.pos);
                return;
            }
            self.error(
                s.pos,
                format!(
                    "'def {name}' inside a function makes a new function each time it runs, which RPython cannot translate; define '{name}' at module level and pass it what it needs as arguments"
                ),
            );
            // Bound all the same, so that its uses are not reported too.
            self.store_name(name, Arg::Const(Constant::Func(name.clone())), s.pos);
            return;
        }
        let Some(graph) = self.m.program.graph_names.get(&key).cloned() else {
            self.internal(&format!("the definition of '{name}' was not collected"));
            return;
        };
        let mut value = Arg::Const(Constant::Func(graph.clone()));
        self.set_defaults(&value, params, s.pos);
        let mut hints = Vec::new();
        for d in decorators.iter().rev() {
            if let Some(h) = rlib::decorator_hint(d, &self.m.import_bindings) {
                hints.insert(0, h);
                continue;
            }
            self.push(value);
            let f = self.expr(d);
            let v = self.pop();
            value = Arg::Var(self.emit(Opcode::SimpleCall, vec![f, v], d.pos));
        }
        if !hints.is_empty() {
            self.m.program.method_signatures.borrow_mut().clear();
            self.m
                .program
                .hints
                .borrow_mut()
                .entry(graph)
                .or_default()
                .extend(hints);
        }
        self.store_name(name, value, s.pos);
    }

    /// Evaluates the defaults of a `def` statement's parameters as it runs,
    /// at import time, and stores them as the function's `__defaults__`:
    /// what calls that leave those parameters out pass (see `call_args`).
    fn set_defaults(&mut self, function: &Arg, params: &[Param], pos: Pos) {
        let defaults: Vec<Expr> = params.iter().filter_map(|p| p.default.clone()).collect();
        if defaults.is_empty() {
            return;
        }
        let values = self.expr_list(&defaults);
        let tuple = Arg::Var(self.emit(Opcode::Newtuple, values, pos));
        let name = Arg::Const(Constant::Name(DEFAULTS_ATTRIBUTE.to_string()));
        self.emit(Opcode::Setattr, vec![function.clone(), name, tuple], pos);
    }

    /// A `lambda` expression: in a module or class body, the function
    /// collected for it (`collect_defs`), its defaults evaluated as it runs
    /// at import time; inside a function, where it would close over the
    /// function's variables, an error.
    pub(super) fn lambda(&mut self, params: &[Param], pos: Pos) -> Arg {
        let key = (self.m.name.clone(), pos);
        let graph = match self.m.program.graph_names.get(&key) {
            Some(graph) if self.module_body || self.class_body.is_some() => graph.clone(),
            _ => {
                self.error(
                    pos,
                    "a lambda inside a function makes a new function each time it runs, which RPython cannot translate; define it with 'def' at module level and pass it what it needs as arguments",
                );
                return Arg::Const(Constant::None);
            }
        };
        let value = Arg::Const(Constant::Func(graph));
        self.set_defaults(&value, params, pos);
        value
    }

    /// `Class.attr` of a program class after import: the attribute's
    /// constant (classes are constants then, as the original's flow space
    /// folds a `getattr` on a constant). `None` for anything else.
    pub(super) fn class_attribute(&self, obj: &Arg, attr: &str) -> Option<Constant> {
        let Arg::Const(Constant::Class(class)) = obj else {
            return None;
        };
        if !matches!(self.m.access, GlobalAccess::Constants) {
            return None;
        }
        self.m
            .program
            .prebuilt
            .borrow()
            .class_attribute(class, attr)
    }

    /// `class` statements: at module level, the class the body's namespace
    /// makes (`type(name, bases, namespace)`, the body being a graph of its
    /// own run once, at import time); inside a function or a class body, an
    /// error.
    pub(super) fn class_stmt(&mut self, s: &Stmt) {
        let StmtKind::ClassDef {
            name,
            bases,
            decorators,
            ..
        } = &s.kind
        else {
            return;
        };
        if let Some(outer) = &self.class_body {
            let message = format!(
                "class '{name}' inside the class '{outer}': RPython does not translate nested classes; define '{name}' at module level"
            );
            self.error(s.pos, message);
            return;
        }
        if !self.module_body {
            self.error(
                s.pos,
                format!(
                    "'class {name}' inside a function makes a new class each time it runs, which RPython cannot translate; define '{name}' at module level"
                ),
            );
            self.store_name(name, Arg::Const(Constant::Class(name.clone())), s.pos);
            return;
        }
        if let Some(d) = decorators.first() {
            self.error(
                d.pos,
                format!(
                    "a decorator on the class '{name}' would replace the class at import time, which RPython does not translate; call what the decorator does on the class after the class statement"
                ),
            );
            return;
        }
        for b in bases {
            let ExprKind::Name(base) = &b.kind else {
                continue;
            };
            let builtin = super::BUILTINS.contains(&base.as_str())
                || super::LATER_BUILTINS.contains(&base.as_str());
            if builtin && self.is_builtin_visible(base) && self.builtin_class(base).is_none() {
                self.error(
                    b.pos,
                    format!(
                        "the class '{name}' derives from the builtin '{base}', which RPython cannot translate; derive from object (or an exception class) and keep the '{base}' value in an attribute"
                    ),
                );
                return;
            }
        }
        let key = (self.m.name.clone(), s.pos);
        let Some(body_graph) = self.m.program.graph_names.get(&key).cloned() else {
            self.internal(&format!("the class '{name}' was not collected"));
            return;
        };
        let base_values = self.expr_list(bases);
        let base_tuple = Arg::Var(self.emit(Opcode::Newtuple, base_values, s.pos));
        self.push(base_tuple);
        let namespace = self.emit(
            Opcode::SimpleCall,
            vec![Arg::Const(Constant::Func(body_graph))],
            s.pos,
        );
        let base_tuple = self.pop();
        let class = self.emit(
            Opcode::SimpleCall,
            vec![
                Arg::Const(Constant::Builtin("type".into())),
                Arg::Const(Constant::Str(name.clone())),
                base_tuple,
                Arg::Var(namespace),
            ],
            s.pos,
        );
        self.store_name(name, Arg::Var(class), s.pos);
    }

    /// The end of a class body: its namespace, a dict of every name it
    /// bound (and `__module__`), which the class statement makes the class
    /// from. A name bound on some paths only is an error: the class's
    /// attributes must not depend on how its body ran.
    pub(super) fn class_namespace(&mut self, body: &[Stmt], pos: Pos) -> Arg {
        let class = self.class_body.clone().unwrap_or_default();
        let namespace = Arg::Var(self.emit(Opcode::Newdict, Vec::new(), pos));
        let module = Arg::Const(Constant::Str(self.m.python_name().to_string()));
        let key = Arg::Const(Constant::Str("__module__".into()));
        self.emit(Opcode::Setitem, vec![namespace.clone(), key, module], pos);
        for (i, name) in self.slots.clone().into_iter().enumerate() {
            if name == "__metaclass__" {
                self.error(
                    pos,
                    format!(
                        "the class '{class}' sets __metaclass__: RPython does not translate metaclasses; build what the metaclass would at import time with ordinary code"
                    ),
                );
            }
            match self.state.env[i].clone() {
                Some(value) => {
                    let key = Arg::Const(Constant::Str(name));
                    self.emit(Opcode::Setitem, vec![namespace.clone(), key, value], pos);
                }
                None if self.state.maybe[i] => self.error(
                    binding_position(body, &name).unwrap_or(pos),
                    format!(
                        "the class '{class}' defines '{name}' on some paths of its body only; RPython needs a class's attributes fixed, so define '{name}' on every path (or give it a default value first)"
                    ),
                ),
                // Bound, then deleted (`del x`, or Python 3's `except E as x`).
                None => {}
            }
        }
        namespace
    }

    /// `import_from_mixin(Mixin)` in a class body: binds each method the
    /// class's copy of the mixin has (see `collect_mixin_copies`).
    pub(super) fn import_from_mixin(&mut self, s: &Stmt) {
        let copies = self
            .m
            .program
            .mixin_copies
            .get(&(self.m.name.clone(), s.pos))
            .cloned();
        match (copies, &self.class_body) {
            (Some(copies), Some(_)) => {
                for (name, graph) in copies {
                    self.copy_defaults(&graph, s.pos);
                    self.store_name(&name, Arg::Const(Constant::Func(graph)), s.pos);
                }
            }
            _ => self.error(
                s.pos,
                "import_from_mixin(M) copies the methods of a class M defined in the same module, at the level of the class body that calls it; define the mixin there and call it in the class body",
            ),
        }
    }

    /// A mixin method's copy `copy` has the defaults of the method it copies
    /// (as rlib's copy of a function keeps them).
    fn copy_defaults(&mut self, copy: &str, pos: Pos) {
        let Some(def) = self.m.function(copy) else {
            return;
        };
        if def.params.iter().all(|p| p.default.is_none()) {
            return;
        }
        let key = (self.m.name.clone(), def.pos);
        let Some(original) = self.m.program.graph_names.get(&key).cloned() else {
            return;
        };
        let name = Arg::Const(Constant::Name(DEFAULTS_ATTRIBUTE.to_string()));
        let original = Arg::Const(Constant::Func(original));
        let defaults = self.op(Opcode::Getattr, vec![original, name.clone()], pos);
        let copy = Arg::Const(Constant::Func(copy.to_string()));
        self.emit(Opcode::Setattr, vec![copy, name, defaults], pos);
    }

    /// The module a `from MODULE import ...` reads, absolute; `None` for
    /// `__future__` (nothing to bind) and for a module not loaded
    /// (reported).
    fn imported_from_module(&mut self, module: &str, level: u32) -> Option<String> {
        if module == "__future__" {
            return None;
        }
        let base = self.m.absolute_module(module, level);
        if base.is_none() {
            self.internal(&format!("the module '{module}' was not loaded"));
        }
        base
    }

    /// `import` and `from ... import` statements: in a module body, binding
    /// module objects and their attributes; inside a function, an error.
    pub(super) fn import_stmt(&mut self, s: &Stmt) {
        let GlobalAccess::Live { modules, .. } = &self.m.access else {
            self.function_import(s);
            return;
        };
        if !self.module_body {
            self.error(
                s.pos,
                "import statements inside functions cannot be translated; import at module level",
            );
            return;
        }
        let modules = modules.clone();
        let module_const = |name: &str| modules.get(name).cloned();
        match &s.kind {
            StmtKind::Import(aliases) => {
                for a in aliases {
                    let (bound, module) = import_binding(a);
                    match module_const(module) {
                        Some(c) => self.store_name(bound, Arg::Const(c), s.pos),
                        None => self.internal(&format!("the module '{module}' was not loaded")),
                    }
                }
            }
            StmtKind::ImportFrom {
                module,
                names,
                level,
            } => {
                let Some(base) = self.imported_from_module(module, *level) else {
                    return;
                };
                for a in names {
                    let bound = a.asname.as_ref().unwrap_or(&a.name);
                    if a.name == "*" {
                        // Each name the module exports, read from its
                        // module object when this statement runs.
                        let Some(m) = module_const(&base) else {
                            self.internal(&format!("the module '{base}' was not loaded"));
                            continue;
                        };
                        let names = self.m.program.star_names.get(&base).cloned();
                        for name in names.unwrap_or_default() {
                            let args = vec![
                                Arg::Const(m.clone()),
                                Arg::Const(Constant::Name(name.clone())),
                            ];
                            let value = Arg::Var(self.emit(Opcode::Getattr, args, s.pos));
                            self.store_name(&name, value, s.pos);
                        }
                        // And, as Python does, every name the module has
                        // when the statement runs: a module may bind names
                        // through `globals()` that no statement shows.
                        if let GlobalAccess::Live { module: here, .. } = &self.m.access {
                            let copy = Constant::Builtin(IMPORT_STAR.to_string());
                            let args =
                                vec![Arg::Const(copy), Arg::Const(here.clone()), Arg::Const(m)];
                            self.emit(Opcode::SimpleCall, args, s.pos);
                        }
                        continue;
                    }
                    let sub = if base.is_empty() {
                        a.name.clone()
                    } else {
                        format!("{base}.{}", a.name)
                    };
                    let value = match (module_const(&sub), module_const(&base)) {
                        (Some(c), _) => Arg::Const(c),
                        (None, Some(m)) => {
                            let args =
                                vec![Arg::Const(m), Arg::Const(Constant::Name(a.name.clone()))];
                            Arg::Var(self.emit(Opcode::Getattr, args, s.pos))
                        }
                        (None, None) => {
                            self.internal(&format!("the module '{base}' was not loaded"));
                            continue;
                        }
                    };
                    self.store_name(bound, value, s.pos);
                }
            }
            _ => {}
        }
    }
}

impl FnBuilder<'_, '_> {
    /// An import statement in a translated function (after import): the
    /// modules it names were imported with the program (`imports`), so it
    /// binds its names to the constants of their attributes, and a name
    /// bound to a module to that module (read through as `module.attr`).
    /// A module that could not be read is reported here, where a
    /// translated function reaches its import.
    fn function_import(&mut self, s: &Stmt) {
        let program = self.m.program.clone();
        let unresolved = |name: &str| {
            crate::flow::imports::with_parents(name)
                .into_iter()
                .find_map(|n| program.unresolved_imports.get(&n).cloned())
        };
        match &s.kind {
            StmtKind::Import(aliases) => {
                for a in aliases {
                    let (bound, module) = import_binding(a);
                    if let Some(why) = unresolved(&a.name) {
                        self.error(s.pos, why);
                        // Bound all the same, so that its uses are not reported too.
                        self.store_name(bound, Arg::Const(Constant::None), s.pos);
                        continue;
                    }
                    self.local_modules
                        .insert(bound.to_string(), module.to_string());
                }
            }
            StmtKind::ImportFrom {
                module,
                names,
                level,
            } => {
                let Some(base) = self.imported_from_module(module, *level) else {
                    return;
                };
                if let Some(why) = unresolved(&base) {
                    self.error(s.pos, why);
                    for a in names {
                        let bound = a.asname.as_ref().unwrap_or(&a.name);
                        self.store_name(bound, Arg::Const(Constant::None), s.pos);
                    }
                    return;
                }
                for a in names {
                    let bound = a.asname.as_ref().unwrap_or(&a.name);
                    if a.name == "*" {
                        self.error(
                            s.pos,
                            format!("'from {module} import *' inside a function is not Python 2.7 or 3; import the names you use"),
                        );
                        continue;
                    }
                    let found = program
                        .globals
                        .get(&base)
                        .and_then(|g| g.get(&a.name))
                        .cloned();
                    match found {
                        Some(Global::Module(sub)) => {
                            self.local_modules.insert(bound.clone(), sub);
                        }
                        Some(g) => {
                            let value = self.global_value(&g, &format!("{base}.{}", a.name), s.pos);
                            self.store_name(bound, value, s.pos);
                        }
                        None => {
                            let why = unresolved(&format!("{base}.{}", a.name)).unwrap_or_else(|| {
                                format!("cannot import name '{}' from '{base}': the module has no such attribute after import", a.name)
                            });
                            self.error(s.pos, why);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// The position of the innermost statement of `stmts` that binds `name`
/// (the first one).
fn binding_position(stmts: &[Stmt], name: &str) -> Option<Pos> {
    for s in stmts {
        let mut names = NameList::default();
        bound_names(std::slice::from_ref(s), &mut names);
        if !names.contains(name) {
            continue;
        }
        let mut inner = None;
        s.for_each_nested_body(|body| {
            if inner.is_none() {
                inner = binding_position(body, name);
            }
        });
        return inner.or(Some(s.pos));
    }
    None
}

/// The name `import NAME [as ALIAS]` binds, and the module it is bound to
/// (`import a.b` binds `a`, the top package).
fn import_binding(a: &rpy_ir::ast::Alias) -> (&str, &str) {
    match &a.asname {
        Some(n) => (n.as_str(), a.name.as_str()),
        None => {
            let top = a.name.split('.').next().unwrap_or(&a.name);
            (top, top)
        }
    }
}

/// Closures (see `flow/closures.rs`): the cells an enclosing function keeps
/// at import time, the closures its nested `def`s make, and the reads of
/// the enclosing function's names in a nested function.
impl FnBuilder<'_, '_> {
    /// At the start of a function that keeps cells: a new cells object,
    /// holding the parameters.
    pub(super) fn start_cells(&mut self, def: &FuncDef) {
        if !self.keeps_cells {
            return;
        }
        let pos = def.pos;
        let cells = Arg::Const(Constant::Builtin(NEW_CELLS.to_string()));
        let cells = Arg::Var(self.emit(Opcode::SimpleCall, vec![cells], pos));
        self.store_name(closures::CELLS_LOCAL, cells, pos);
        let params: Vec<String> = def
            .params
            .iter()
            .map(|p| p.name.clone())
            .chain(def.star_args.map(str::to_string))
            .collect();
        for p in params {
            self.store_cell(&p, pos);
        }
    }

    /// Stores the local `name`'s new value in the cells object too. Both
    /// are read as locals, which settles a pending edge first (after an
    /// `if`, the paths stay apart until an operation is recorded).
    pub(super) fn store_cell(&mut self, name: &str, pos: Pos) {
        let cells = self.load_name(closures::CELLS_LOCAL, pos);
        let value = self.load_name(name, pos);
        let args = vec![cells, Arg::Const(Constant::Name(name.to_string())), value];
        self.emit(Opcode::Setattr, args, pos);
    }

    /// A nested `def` in a function that keeps cells (at import time):
    /// the closure of its graph over this call's cells, its defaults
    /// evaluated as the statement runs.
    fn make_closure(&mut self, s: &Stmt) {
        let StmtKind::FunctionDef {
            name,
            params,
            decorators,
            ..
        } = &s.kind
        else {
            return;
        };
        if let Some(d) = decorators.first() {
            self.error(
                d.pos,
                format!("a decorator on the nested function '{name}' is not supported: decorate the function the factory returns at module level"),
            );
            return;
        }
        let key = (self.m.name.clone(), s.pos);
        let Some(graph) = self.m.program.graph_names.get(&key).cloned() else {
            self.internal(&format!("the definition of '{name}' was not collected"));
            return;
        };
        let function = Arg::Const(Constant::Func(graph));
        self.set_defaults(&function, params, s.pos);
        let cells = self.load_name(closures::CELLS_LOCAL, s.pos);
        let make = Arg::Const(Constant::Builtin(MAKE_CLOSURE.to_string()));
        let closure = Arg::Var(self.emit(Opcode::SimpleCall, vec![make, function, cells], s.pos));
        self.store_name(name, closure, s.pos);
    }

    /// A read of the enclosing function's `name` in a nested function: at
    /// import time from the cells it runs with, after import the constant
    /// its cell holds in the closure being built.
    pub(super) fn load_free(&mut self, name: &str, pos: Pos) -> Arg {
        if matches!(self.m.access, GlobalAccess::Live { .. }) {
            let cells = self.load_name(closures::CELLS_LOCAL, pos);
            let args = vec![cells, Arg::Const(Constant::Name(name.to_string()))];
            return Arg::Var(self.emit(Opcode::Getattr, args, pos));
        }
        let cell = self
            .m
            .program
            .prebuilt
            .borrow()
            .closures
            .cell(&self.g.name, name);
        let value = match cell {
            Some(Some(v)) => v,
            Some(None) => {
                self.error(
                    pos,
                    format!("free variable '{name}' referenced before assignment in enclosing scope: the factory that made this function never assigned it"),
                );
                return Arg::Const(Constant::None);
            }
            None => {
                let function = self.g.name.clone();
                self.error(
                    pos,
                    format!("'{name}' is a variable of the function that '{function}' is nested in: a closure, which RPython translates only when a factory called at module level made it (its variables are constants then); pass '{name}' to '{function}' as an argument"),
                );
                return Arg::Const(Constant::None);
            }
        };
        if let Some(module) = crate::objinterp::modules::module_name(&value) {
            return self.global_value(&Global::Module(module), name, pos);
        }
        let converted = self.m.program.prebuilt.borrow_mut().constant(&value);
        match converted {
            Ok(c) => {
                if let Constant::Func(f) = &c {
                    self.referenced.push(f.clone());
                }
                Arg::Const(c)
            }
            Err(what) => {
                self.error(
                    pos,
                    format!("'{name}' cannot be a prebuilt constant of translated code: it holds {what}"),
                );
                Arg::Const(Constant::None)
            }
        }
    }
}

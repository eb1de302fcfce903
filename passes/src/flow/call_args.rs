//! Keyword arguments and default values in calls, bound while building.
//!
//! RPython's defaults are values fixed when the program is imported, and
//! its calls go to functions the translation knows; so a call whose callee
//! is known here (a function of the program, a class of the program, whose
//! `__init__` it runs, or a method called as `obj.name(...)` when every
//! method of that name in the program has the same parameters) becomes a
//! `simple_call` with every parameter's value in order: positional
//! arguments, then keyword arguments by name, then the defaults of the
//! parameters left: the values the `def` statement computed at import time
//! (read from the function's `__defaults__` when the call itself runs at
//! import time). A call with keywords to anything else is reported.

use super::{FnBuilder, FuncDef};
use crate::flow::{class_body_graph, rlib, Global, GlobalAccess, MethodSignature};
use crate::language::hints::STATIC_METHOD_HINT;
use crate::language::rlib::jitdriver_params;
use crate::language::special_names::DEFAULTS_ATTRIBUTE;
use rpy_ir::ast::{Expr, ExprKind, Keyword, Param};
use rpy_ir::diag::Pos;
use rpy_ir::graph::{Arg, Constant};
use rpy_ir::opcode::Opcode;
use std::rc::Rc;

/// The parameters a call binds its arguments to.
pub(super) struct Signature<'a> {
    /// What the callee is called in messages (`f`, `Node.__init__`).
    pub shown: String,
    /// The graph of the function whose defaults a call leaving parameters
    /// out passes (`None` for a builtin's, whose defaults are `params`').
    pub graph: Option<String>,
    /// Whether, at import time, the callee's value holds the defaults (a
    /// method bound to its instance: which of the methods of that name it
    /// is shows only then), rather than the function `graph`.
    pub defaults_from_callee: bool,
    /// The parameters the caller supplies (after `self` for a method or a
    /// constructor).
    pub params: &'a [Param],
    /// For a method call: the graph and parameters of every other method
    /// of that name (same names, maybe other defaults).
    pub others: Rc<[(String, &'a [Param])]>,
    /// Whether the callee has a `*args` parameter after `params`.
    pub star: bool,
    /// The callee's Python 3 keyword-only parameters, which RPython has
    /// not: a call naming one is told so.
    pub kwonly: &'a [Param],
}

impl<'a> FnBuilder<'_, 'a> {
    /// The signature of the callee of `func(...)`, whose value is `f`, when
    /// it is known while building.
    pub(super) fn signature(&self, func: &Expr, f: &Arg) -> Option<Signature<'a>> {
        let program = self.m.program.clone();
        let def_of = |graph: &str, skip: usize| -> Option<Signature<'a>> {
            let source = || program.prebuilt.borrow().closures.function_of(graph);
            let def: &FuncDef<'a> = match program.functions.get(graph) {
                Some(def) => def,
                None => program.functions.get(&source()?)?,
            };
            if def.params.len() < skip {
                return None;
            }
            // The definitions outlive the builder (they borrow the ASTs).
            let params: &'a [Param] = def.params;
            Some(Signature {
                shown: graph.to_string(),
                graph: Some(graph.to_string()),
                // The function itself holds them (the name may hold what a
                // decorator made of it; a class holds its `__init__`'s).
                defaults_from_callee: false,
                params: &params[skip..],
                others: Rc::new([]),
                star: def.star_args.is_some(),
                kwonly: def.kwonly,
            })
        };
        let rlib = match f {
            Arg::Const(Constant::Builtin(b)) => Some(b.clone()),
            _ => rlib::rlib_function(func, &self.m.import_bindings),
        };
        if rlib.as_deref() == Some("JitDriver") {
            return Some(Signature {
                shown: "JitDriver".to_string(),
                graph: None,
                defaults_from_callee: false,
                params: jitdriver_params(),
                others: Rc::new([]),
                star: false,
                kwonly: &[],
            });
        }
        match f {
            Arg::Const(Constant::Func(graph)) => return def_of(graph, 0),
            Arg::Const(Constant::Class(class)) => {
                let init = self.class_init(class)?;
                return def_of(&init, 1);
            }
            _ => {}
        }
        match &func.kind {
            // At import time a module-level name is read when the code
            // runs: known here only when its `def` or `class` statement
            // alone binds it.
            ExprKind::Name(n) if !self.is_local(n) => {
                let imported = self.m.import_time_import(n);
                let mut graph = match imported {
                    Some(imported) => imported.to_string(),
                    None => self.m.import_time_definition(n)?,
                };
                // A class of this module runs its own `__init__` or the one
                // of its first base (when that is a class of this module too).
                let mut seen = Vec::new();
                while let Some(class) = program.functions.get(&class_body_graph(&graph)) {
                    if seen.contains(&graph) {
                        return None;
                    }
                    seen.push(graph.clone());
                    let init = format!("{graph}.__init__");
                    if program.functions.contains_key(&init) {
                        return def_of(&init, 1);
                    }
                    let Some(ExprKind::Name(base)) = class.bases.first().map(|b| &b.kind) else {
                        return None;
                    };
                    // An imported class's bases are names of its own module.
                    if imported.is_some() {
                        return None;
                    }
                    graph = self.m.import_time_definition(base)?;
                }
                def_of(&graph, 0)
            }
            // A function of a module (`os.read(fd, n)`) is no method,
            // whatever the program's methods of that name take.
            ExprKind::Attribute { .. } if matches!(f, Arg::Const(_)) => None,
            ExprKind::Attribute { value, .. }
                if matches!(&value.kind, ExprKind::Name(n)
                    if !self.is_local(n) && self.m.import_bindings.contains_key(n)) =>
            {
                None
            }
            ExprKind::Attribute { attr, .. } => self.method_signature(attr),
            _ => None,
        }
    }

    /// The graph of the `__init__` a program class runs (its own or a
    /// base's), when the class is known after import.
    fn class_init(&self, class: &str) -> Option<String> {
        match self
            .m
            .program
            .prebuilt
            .borrow()
            .class_attribute(class, "__init__")?
        {
            Constant::Func(graph) => Some(graph),
            _ => None,
        }
    }

    /// The parameters of the methods named `name`, when the program
    /// defines some and all have parameters of the same names after `self`
    /// (and all or none a `*args`, which a builtin type's method of that
    /// name must not be taken for).
    fn method_signature(&self, name: &str) -> Option<Signature<'a>> {
        let program = &self.m.program;
        let cached = program.method_signatures.borrow().get(name).cloned();
        let found = match cached {
            Some(found) => found,
            None => {
                let found = self.find_method_signature(name);
                program
                    .method_signatures
                    .borrow_mut()
                    .insert(name.to_string(), found.clone());
                found
            }
        };
        found.map(|m| Signature {
            shown: m.graph.clone(),
            graph: Some(m.graph),
            defaults_from_callee: true,
            params: m.params,
            others: m.others,
            star: m.star,
            kwonly: &[],
        })
    }

    /// `method_signature` from the definitions (it keeps what this finds).
    fn find_method_signature(&self, name: &str) -> Option<MethodSignature<'a>> {
        let program = self.m.program.clone();
        let same_names = |a: &[Param], b: &[Param]| {
            a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p.name == q.name)
        };
        let mut found: Option<(&String, &'a [Param])> = None;
        let mut others = Vec::new();
        let mut star = None;
        let hints = program.hints.borrow();
        for graph in program.methods.get(name)? {
            let def: &FuncDef<'a> = &program.functions[graph];
            let is_static = hints
                .get(graph)
                .is_some_and(|h| h.iter().any(|h| h == STATIC_METHOD_HINT));
            let skip = usize::from(!is_static);
            if def.params.len() < skip {
                return None;
            }
            let has_star = def.star_args.is_some();
            if *star.get_or_insert(has_star) != has_star
                || (has_star && crate::language::builtins::is_builtin_method_name(name))
            {
                return None;
            }
            let params: &'a [Param] = &def.params[skip..];
            match found {
                None => found = Some((graph, params)),
                Some((_, first)) if same_names(first, params) => {
                    others.push((graph.clone(), params))
                }
                Some(_) => return None,
            }
        }
        found.map(|(graph, params)| MethodSignature {
            graph: graph.clone(),
            params,
            others: others.into(),
            star: star.unwrap_or(false),
        })
    }

    /// The arguments of a call to `sig` in parameter order: `positional`,
    /// then `keywords` by name (their values `keyword_values`), then the
    /// defaults of the rest. Errors are reported at `pos`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bind_arguments(
        &mut self,
        sig: &Signature,
        callee: &Arg,
        mut positional: Vec<Arg>,
        star: Option<(Arg, Pos)>,
        keywords: &[Keyword],
        keyword_values: Vec<Arg>,
        pos: Pos,
    ) -> Vec<Arg> {
        let n = sig.params.len();
        let mut bound: Vec<Option<Arg>> = vec![None; n];
        // A `*` tuple whose items are not known here fills the parameters
        // the positional arguments leave, item by item, and the callee's
        // own `*args` with the rest (its length is the annotator's to know,
        // as RPython requires). A parameter with a default takes item `k`
        // as `(t[k:k + 1] + (default,))[0]`: the item when the tuple has
        // it, else the default, decided by the annotator per length (a
        // forwarding `*args` function has one copy per length).
        let mut star = star;
        if let Some((t, star_pos)) = star.clone() {
            if !keywords.is_empty() {
                self.error(
                    star_pos,
                    "a call cannot mix '*' with keyword arguments here; pass the arguments by position",
                );
            } else if positional.len() < n {
                let missing = n - positional.len();
                self.push(t.clone());
                for k in 0..missing {
                    let index = positional.len();
                    let item = match &sig.params[index].default {
                        Some(d) => {
                            let default = self.bound_default(sig, callee, index, d, pos);
                            let t = self.top();
                            let [from, to] =
                                [k, k + 1].map(|b| Arg::Const(Constant::Int(b as i64)));
                            let own = self.op(Opcode::Getslice, vec![t, from, to], star_pos);
                            let fallback = self.op(Opcode::Newtuple, vec![default], star_pos);
                            let padded = self.op(Opcode::Add, vec![own, fallback], star_pos);
                            self.op(
                                Opcode::Getitem,
                                vec![padded, Arg::Const(Constant::Int(0))],
                                star_pos,
                            )
                        }
                        None => {
                            let t = self.top();
                            self.op(
                                Opcode::Getitem,
                                vec![t, Arg::Const(Constant::Int(k as i64))],
                                star_pos,
                            )
                        }
                    };
                    positional.push(item);
                }
                let t = self.pop();
                star = sig.star.then(|| {
                    let rest = Arg::Var(self.emit(
                        Opcode::Getslice,
                        vec![
                            t,
                            Arg::Const(Constant::Int(missing as i64)),
                            Arg::Const(Constant::None),
                        ],
                        star_pos,
                    ));
                    (rest, star_pos)
                });
            } else if !sig.star {
                self.error(
                    star_pos,
                    format!(
                        "'*' passes more arguments than {}() has parameters left for",
                        sig.shown
                    ),
                );
                star = None;
            }
        }
        // The callee's `*args` tuple: the positional arguments beyond its
        // parameters, then the call's own `*` tuple.
        let rest = if sig.star {
            let extra = positional.split_off(n.min(positional.len()));
            Some(self.star_tuple(extra, star.as_ref().map(|s| s.0.clone()), pos))
        } else {
            None
        };
        // By position alone, a wrong count is reported as Python 2 words it.
        let required = sig.params.iter().filter(|p| p.default.is_none()).count();
        let given = positional.len();
        if keywords.is_empty() && (given > n || given < required) {
            let plural = |k: usize| if k == 1 { "argument" } else { "arguments" };
            let takes = match (required == n, sig.star) {
                (_, true) => format!("at least {required} {}", plural(required)),
                (true, false) => format!("exactly {n} {}", plural(n)),
                (false, false) if given > n => format!("at most {n} {}", plural(n)),
                (false, false) => format!("at least {required} {}", plural(required)),
            };
            self.error(
                pos,
                format!("{}() takes {takes} ({given} given)", sig.shown),
            );
            return vec![Arg::Const(Constant::None); n + usize::from(sig.star)];
        }
        if positional.len() > n {
            self.error(
                pos,
                format!(
                    "{}() takes {n} argument{} but {} were given",
                    sig.shown,
                    if n == 1 { "" } else { "s" },
                    positional.len()
                ),
            );
        }
        for (slot, v) in bound.iter_mut().zip(positional) {
            *slot = Some(v);
        }
        for (k, v) in keywords.iter().zip(keyword_values) {
            match sig.params.iter().position(|p| p.name == k.name) {
                None if sig.kwonly.iter().any(|p| p.name == k.name) => self.error(
                    k.value.pos,
                    format!(
                        "the parameter '{}' of {}() is keyword-only (after '*'), which RPython does not support; make it an ordinary parameter",
                        k.name, sig.shown
                    ),
                ),
                None => self.error(
                    k.value.pos,
                    format!("{}() has no parameter named '{}'", sig.shown, k.name),
                ),
                Some(i) if bound[i].is_some() => self.error(
                    k.value.pos,
                    format!(
                        "{}() got multiple values for the argument '{}'",
                        sig.shown, k.name
                    ),
                ),
                Some(i) => bound[i] = Some(v),
            }
        }
        let mut out = Vec::with_capacity(n);
        for (i, (p, v)) in sig.params.iter().zip(bound).enumerate() {
            let value = match (v, &p.default) {
                (Some(v), _) => v,
                (None, Some(d)) => self.bound_default(sig, callee, i, d, pos),
                (None, None) => {
                    self.error(
                        pos,
                        format!(
                            "{}() is missing a value for the parameter '{}'",
                            sig.shown, p.name
                        ),
                    );
                    Arg::Const(Constant::None)
                }
            };
            out.push(value);
        }
        out.extend(rest);
        out
    }

    /// The default of parameter `i` (whose default expression is `d`),
    /// which every method a call by that name may run must share.
    fn bound_default(
        &mut self,
        sig: &Signature,
        callee: &Arg,
        i: usize,
        d: &Expr,
        pos: Pos,
    ) -> Arg {
        let p = &sig.params[i];
        let value = self.default_value(sig, callee, p, d, pos);
        let same_elsewhere = sig.others.iter().all(|(other, o)| {
            o.get(i).is_some_and(|q| {
                self.same_default(sig.graph.as_deref().unwrap_or(""), other, &q.name)
            })
        });
        if !same_elsewhere {
            self.error(
                pos,
                format!(
                    "the program's methods named '{}' have different defaults for '{}', and which one runs is known only when the program runs; pass '{}' explicitly",
                    sig.shown.rsplit('.').next().unwrap_or(&sig.shown), p.name, p.name
                ),
            );
        }
        value
    }

    /// The `*args` tuple of a call: `extra` then the items of `star`.
    fn star_tuple(&mut self, extra: Vec<Arg>, star: Option<Arg>, pos: Pos) -> Arg {
        match star {
            None => Arg::Var(self.emit(Opcode::Newtuple, extra, pos)),
            Some(t) if extra.is_empty() => t,
            Some(t) => {
                self.push(t);
                let head = Arg::Var(self.emit(Opcode::Newtuple, extra, pos));
                let t = self.pop();
                self.op(Opcode::Add, vec![head, t], pos)
            }
        }
    }

    /// The items of a tuple known while building: one this block built, or
    /// a prebuilt tuple.
    pub(super) fn tuple_items(&self, t: &Arg) -> Option<Vec<Arg>> {
        if let Some(items) = self.known_tuple(t) {
            return Some(items);
        }
        let Arg::Const(Constant::Prebuilt(i)) = t else {
            return None;
        };
        match self.m.program.prebuilt.borrow().objects.get(*i as usize)? {
            rpy_ir::graph::PrebuiltObject::Tuple(items) => {
                Some(items.iter().cloned().map(Arg::Const).collect())
            }
            _ => None,
        }
    }

    /// The value a call of `sig` (whose value is `callee`) passes for the
    /// parameter `p` it leaves out, whose default is `d`: the value the
    /// function's `def` statement evaluated at import time. At import time
    /// itself, the function's `__defaults__` is read when the call runs.
    fn default_value(
        &mut self,
        sig: &Signature,
        callee: &Arg,
        p: &Param,
        d: &Expr,
        pos: Pos,
    ) -> Arg {
        let Some(graph) = &sig.graph else {
            // A builtin's parameters (JitDriver's) have literal defaults.
            return Arg::Const(literal(d).unwrap_or(Constant::None));
        };
        match &self.m.access {
            GlobalAccess::Constants => match self.import_time_default(graph, &p.name).cloned() {
                Some(value) => self.global_value(&value, &p.name, d.pos),
                None => {
                    self.internal(&format!(
                        "the default of '{}' in {}() was not evaluated at import time",
                        p.name, sig.shown
                    ));
                    Arg::Const(Constant::None)
                }
            },
            GlobalAccess::Live { .. } => {
                // The defaults are the last parameters'.
                let index = sig
                    .params
                    .iter()
                    .take_while(|q| q.name != p.name)
                    .filter(|q| q.default.is_some())
                    .count();
                let holder = if sig.defaults_from_callee {
                    callee.clone()
                } else {
                    Arg::Const(Constant::Func(graph.clone()))
                };
                let name = Arg::Const(Constant::Name(DEFAULTS_ATTRIBUTE.to_string()));
                let defaults = self.op(Opcode::Getattr, vec![holder, name], pos);
                self.op(
                    Opcode::Getitem,
                    vec![defaults, Arg::Const(Constant::Int(index as i64))],
                    pos,
                )
            }
        }
    }

    /// The value the parameter `param` of the function `graph` defaults
    /// to, as its `def` statement evaluated it at import time.
    fn import_time_default(&self, graph: &str, param: &str) -> Option<&Global> {
        let defaults = &self.m.program.defaults;
        match defaults.get(graph) {
            Some(d) => d.get(param),
            // A closure has the defaults its `def` statement evaluated.
            None => defaults.get(&self.m.source_function(graph)?)?.get(param),
        }
    }

    /// Whether the defaults of `param` in the functions `graph` and
    /// `other` are the same value (both evaluated at import time, or both
    /// not yet).
    fn same_default(&self, graph: &str, other: &str, param: &str) -> bool {
        match (
            self.import_time_default(graph, param),
            self.import_time_default(other, param),
        ) {
            (None, None) => true,
            (Some(Global::Const(a)), Some(Global::Const(b))) => a == b,
            (Some(Global::Func(a)), Some(Global::Func(b))) => a == b,
            (Some(Global::Module(a)), Some(Global::Module(b))) => a == b,
            (Some(Global::Object(a)), Some(Global::Object(b))) => {
                crate::flow::import_time::identity(a)
                    .is_some_and(|id| crate::flow::import_time::identity(b) == Some(id))
            }
            _ => false,
        }
    }
}

/// A builtin's default value, a literal.
fn literal(d: &Expr) -> Option<Constant> {
    match &d.kind {
        ExprKind::Int(i) => Some(Constant::Int(*i)),
        ExprKind::Float(f) => Some(Constant::Float(*f)),
        ExprKind::Str(s) => Some(Constant::Str(s.clone())),
        ExprKind::Bool(b) => Some(Constant::Bool(*b)),
        ExprKind::None => Some(Constant::None),
        _ => None,
    }
}

/// The merge-point hints of a `JitDriver`, which name the loop's variables
/// by keyword.
const JIT_MARKERS: &[&str] = &["jit_merge_point", "can_enter_jit"];

impl FnBuilder<'_, '_> {
    /// `driver.jit_merge_point(name=value, ...)` (or `can_enter_jit`) on a
    /// prebuilt `JitDriver`: the original's `jit_marker` operation, its
    /// arguments the hint's name, the driver, then the values of the
    /// driver's greens and reds in their declared order. `None` when `func`
    /// is not such a hint.
    pub(super) fn jit_marker_call(
        &mut self,
        func: &Expr,
        args: &[Expr],
        keywords: &[Keyword],
        pos: Pos,
    ) -> Option<Arg> {
        let ExprKind::Attribute { value, attr } = &func.kind else {
            return None;
        };
        if !JIT_MARKERS.contains(&attr.as_str())
            || !matches!(self.m.access, GlobalAccess::Constants)
        {
            return None;
        }
        let driver = self.expr(value);
        let variables = match &driver {
            Arg::Const(Constant::Prebuilt(i)) => self.jitdriver_variables(*i),
            _ => None,
        };
        let Some(variables) = variables else {
            // Not a prebuilt driver: an ordinary method call.
            let method = self.op(
                Opcode::Getattr,
                vec![driver, Arg::Const(Constant::Name(attr.clone()))],
                func.pos,
            );
            self.push(method);
            let vals = self.expr_list(args);
            let method = self.pop();
            if let Some(k) = keywords.first() {
                self.error(k.value.pos, format!("'{attr}' names a JitDriver's variables by keyword and needs a JitDriver built at import time; create the driver at module level"));
            }
            let mut call = vec![method];
            call.extend(vals);
            return Some(self.op(Opcode::SimpleCall, call, pos));
        };
        if let Some(a) = args.first() {
            self.error(
                a.pos,
                format!("{attr}() takes the driver's variables as keyword arguments (name=value), not by position"),
            );
        }
        self.push(driver);
        let exprs: Vec<Expr> = keywords.iter().map(|k| k.value.clone()).collect();
        let vals = self.expr_list(&exprs);
        let driver = self.pop();
        let (variables, autoreds) = variables;
        let mut ordered = Vec::new();
        let mut missing = Vec::new();
        for v in &variables {
            // A green written 'frame.field' is passed as 'field'.
            let short = v.rsplit('.').next().unwrap_or(v);
            match keywords.iter().position(|k| k.name == short) {
                Some(i) => ordered.push(vals[i].clone()),
                None => missing.push(short.to_string()),
            }
        }
        let mut extra: Vec<&str> = Vec::new();
        for (k, v) in keywords.iter().zip(&vals) {
            if variables
                .iter()
                .any(|n| n.rsplit('.').next() == Some(k.name.as_str()))
            {
                continue;
            }
            if autoreds {
                // With reds='auto' the reds are whatever else is passed.
                ordered.push(v.clone());
            } else {
                extra.push(k.name.as_str());
            }
        }
        if !missing.is_empty() || !extra.is_empty() {
            let quoted = |names: &[&str]| {
                names
                    .iter()
                    .map(|n| format!("'{n}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let mut wrong = Vec::new();
            if !missing.is_empty() {
                let names: Vec<&str> = missing.iter().map(String::as_str).collect();
                wrong.push(format!("{} missing", quoted(&names)));
            }
            if !extra.is_empty() {
                wrong.push(format!("{} not declared", quoted(&extra)));
            }
            self.error(
                pos,
                format!(
                    "{attr}() must name exactly the driver's greens and reds by keyword ({}); pass each declared variable as name=value",
                    wrong.join(", ")
                ),
            );
        }
        if autoreds {
            // reds='auto' (targetjitstandalone.py's `driver.jit_merge_point()`
            // with no arguments): the original's JIT makes the variables
            // live at the merge point its reds; rpy passes every local
            // certainly assigned here and not named by a keyword, so that
            // what the loop reads after the merge point is a red.
            self.settle();
            for (slot, value) in self.slots.iter().zip(&self.state.env) {
                let named = keywords.iter().any(|k| k.name == *slot);
                if let (false, Some(Arg::Var(v))) = (named, value) {
                    if !ordered.contains(&Arg::Var(*v)) {
                        ordered.push(Arg::Var(*v));
                    }
                }
            }
        }
        let mut call = vec![Arg::Const(Constant::Name(attr.clone())), driver];
        call.extend(ordered);
        Some(Arg::Var(self.emit(Opcode::JitMarker, call, pos)))
    }

    /// The greens then reds of the prebuilt `JitDriver` `&i`, by name, and
    /// whether its reds are 'auto' (not listed).
    fn jitdriver_variables(&self, i: u32) -> Option<(Vec<String>, bool)> {
        let table = self.m.program.prebuilt.borrow();
        let decl = rpy_ir::graph::JitDriverDecl::of(&table.objects, i)?;
        let mut names = decl.greens;
        names.extend(decl.reds);
        Some((names, decl.autoreds))
    }
}

#[cfg(test)]
mod tests {
    use crate::flow::build_flow;
    use crate::parse::parse_module;
    use rpy_ir::ast::Dialect;
    use rpy_ir::graph::{Arg, Constant, Flow, Program};
    use rpy_ir::opcode::Opcode;

    const TARGET: &str = "\n\ndef target(*args):\n    return entry_point, None\n";

    fn flow(body: &str) -> Result<Program<Flow>, String> {
        let text = format!("{body}{TARGET}");
        let module = parse_module("t.py", &text, Dialect::Py3).map_err(|d| d.to_string())?;
        build_flow(&module, &text).map_err(|d| d.to_string())
    }

    /// The arguments of every `simple_call` of `callee` in `graph`.
    fn calls_of(p: &Program<Flow>, graph: &str, callee: &Constant) -> Vec<Vec<Arg>> {
        let g = p.graph(graph).unwrap();
        g.blocks
            .iter()
            .flat_map(|b| &b.operations)
            .filter(|op| {
                op.opname == Opcode::SimpleCall && op.args[0] == Arg::Const(callee.clone())
            })
            .map(|op| op.args[1..].to_vec())
            .collect()
    }

    fn consts(xs: &[Constant]) -> Vec<Arg> {
        xs.iter().cloned().map(Arg::Const).collect()
    }

    #[test]
    fn keywords_and_defaults_become_positional_arguments() {
        let p = flow(
            "K = 7\n\ndef f(a, b=2, c=K, d=-1):\n    return a + b + c + d\n\n\
             def entry_point(argv):\n    return f(1) + f(1, d=4) + f(c=3, a=0)\n",
        )
        .unwrap();
        use Constant::Int;
        assert_eq!(
            calls_of(&p, "entry_point", &Constant::Func("f".into())),
            vec![
                consts(&[Int(1), Int(2), Int(7), Int(-1)]),
                consts(&[Int(1), Int(2), Int(7), Int(4)]),
                consts(&[Int(0), Int(2), Int(3), Int(-1)]),
            ]
        );
    }

    #[test]
    fn defaults_are_the_values_import_time_computed() {
        // A computed default, and a list default: one prebuilt object
        // every call shares, as Python's one default object.
        let p = flow(
            "K = 3\n\ndef f(a, b=K * 2 + 1, c=[]):\n    return a + b + len(c)\n\n\
             def entry_point(argv):\n    return f(1) + f(2)\n",
        )
        .unwrap();
        let calls = calls_of(&p, "entry_point", &Constant::Func("f".into()));
        assert_eq!(calls.len(), 2);
        for (call, a) in calls.iter().zip([1, 2]) {
            assert_eq!(call[..2], consts(&[Constant::Int(a), Constant::Int(7)]));
            assert!(matches!(call[2], Arg::Const(Constant::Prebuilt(_))));
        }
        assert_eq!(calls[0][2], calls[1][2]);
    }

    #[test]
    fn a_constructor_binds_its_init_without_self() {
        let p = flow(
            "class P(object):\n    def __init__(self, x, y=0):\n        self.x = x + y\n\n\
             class Q(P):\n    pass\n\n\
             def entry_point(argv):\n    return Q(y=5, x=1).x\n",
        )
        .unwrap();
        assert_eq!(
            calls_of(&p, "entry_point", &Constant::Class("__main__.Q".into())),
            vec![consts(&[Constant::Int(1), Constant::Int(5)])]
        );
    }

    #[test]
    fn a_method_named_like_a_builtin_types_gets_no_defaults_by_position() {
        // `l.pop()` may be a list's: the program's `pop(self, i=0)` must not
        // fill in its default; `s.size()` is only the program's.
        let p = flow(
            "class Stack(object):\n    def __init__(self):\n        self.items = [1]\n\n\
             \x20   def pop(self, i=0):\n        return self.items[i]\n\n\
             \x20   def size(self, extra=0):\n        return len(self.items) + extra\n\n\
             def entry_point(argv):\n    l = [1, 2]\n    s = Stack()\n    return l.pop() + s.size()\n",
        )
        .unwrap();
        let g = p.graph("entry_point").unwrap();
        let calls: Vec<usize> = g
            .blocks
            .iter()
            .flat_map(|b| &b.operations)
            .filter(|op| op.opname == Opcode::SimpleCall && op.args[0].as_var().is_some())
            .map(|op| op.args.len() - 1)
            .collect();
        assert_eq!(calls, vec![0, 1]);
    }

    #[test]
    fn binding_errors_name_the_parameter() {
        let body = |call: &str| {
            format!("def f(a, b=[]):\n    return a\n\ndef entry_point(argv):\n    return {call}\n")
        };
        for (call, message) in [
            ("f(1, a=2)", "f() got multiple values for the argument 'a'"),
            ("f(b=2)", "f() is missing a value for the parameter 'a'"),
            ("f(1, 2, 3)", "f() takes at most 2 arguments (3 given)"),
            ("f(1, 2, 3, b=4)", "f() takes 2 arguments but 3 were given"),
        ] {
            let err = flow(&body(call)).unwrap_err();
            assert!(err.contains(message), "{call}: {err}");
        }
    }
}

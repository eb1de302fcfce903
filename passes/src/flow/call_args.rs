//! Keyword arguments and default values in calls, bound while building.
//!
//! RPython's defaults are values fixed when the program is imported, and
//! its calls go to functions the translation knows; so a call whose callee
//! is known here (a function of the program, a class of the program, whose
//! `__init__` it runs, or a method called as `obj.name(...)` when every
//! method of that name in the program has the same parameters) becomes a
//! `simple_call` with every parameter's value in order: positional
//! arguments, then keyword arguments by name, then the defaults of the
//! parameters left, which must be constants (a literal or a module
//! constant). A call with keywords to anything else is reported.

use super::{FnBuilder, FuncDef};
use crate::flow::{Global, GlobalAccess};
use rpy_ir::ast::{Expr, ExprKind, Keyword, Param, UnaryOp};
use rpy_ir::diag::Pos;
use rpy_ir::graph::{Arg, Constant};

/// The parameters a call binds its arguments to.
pub(super) struct Signature<'a> {
    /// What the callee is called in messages (`f`, `Node.__init__`).
    pub shown: String,
    /// The parameters the caller supplies (after `self` for a method or a
    /// constructor).
    pub params: &'a [Param],
    /// For a method call: the parameters of every other method of that
    /// name (same names, maybe other defaults).
    pub others: Vec<&'a [Param]>,
}

impl<'a> FnBuilder<'_, 'a> {
    /// The signature of the callee of `func(...)`, whose value is `f`, when
    /// it is known while building.
    pub(super) fn signature(&self, func: &Expr, f: &Arg) -> Option<Signature<'a>> {
        let program = self.m.program.clone();
        let def_of = |graph: &str, skip: usize| -> Option<Signature<'a>> {
            let def: &FuncDef<'a> = program.functions.get(graph)?;
            if def.star_args.is_some() || def.params.len() < skip {
                return None;
            }
            // The definitions outlive the builder (they borrow the ASTs).
            let params: &'a [Param] = def.params;
            Some(Signature {
                shown: graph.to_string(),
                params: &params[skip..],
                others: Vec::new(),
            })
        };
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
            // runs; its `def` or `class` statement says what it is.
            ExprKind::Name(n) if matches!(self.m.access, GlobalAccess::Live { .. }) => {
                if self.is_local(n) {
                    return None;
                }
                let prefix = if self.m.is_main {
                    String::new()
                } else {
                    format!("{}.", self.m.name)
                };
                let graph = format!("{prefix}{n}");
                if program.functions.contains_key(&format!("<class {graph}>")) {
                    return def_of(&format!("{graph}.__init__"), 1);
                }
                def_of(&graph, 0)
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
    /// defines some and all have parameters of the same names after `self`.
    fn method_signature(&self, name: &str) -> Option<Signature<'a>> {
        let program = self.m.program.clone();
        let names = |ps: &[Param]| ps.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
        let mut found: Option<(&String, &'a [Param])> = None;
        let mut others = Vec::new();
        let mut graphs: Vec<&String> = program.functions.keys().collect();
        graphs.sort();
        for graph in graphs {
            let Some(class) = graph.strip_suffix(&format!(".{name}")) else {
                continue;
            };
            if !program.functions.contains_key(&format!("<class {class}>")) {
                continue;
            }
            let def: &FuncDef<'a> = &program.functions[graph];
            if def.params.is_empty() || def.star_args.is_some() {
                return None;
            }
            let params: &'a [Param] = &def.params[1..];
            match found {
                None => found = Some((graph, params)),
                Some((_, first)) if names(first) == names(params) => others.push(params),
                Some(_) => return None,
            }
        }
        found.map(|(graph, params)| Signature {
            shown: graph.clone(),
            params,
            others,
        })
    }

    /// The arguments of a call to `sig` in parameter order: `positional`,
    /// then `keywords` by name (their values `keyword_values`), then the
    /// defaults of the rest. Errors are reported at `pos`.
    pub(super) fn bind_arguments(
        &mut self,
        sig: &Signature,
        positional: Vec<Arg>,
        keywords: &[Keyword],
        keyword_values: Vec<Arg>,
        pos: Pos,
    ) -> Vec<Arg> {
        let n = sig.params.len();
        let mut bound: Vec<Option<Arg>> = vec![None; n];
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
                (None, Some(d)) => {
                    let value = self.default_value(sig, p, d);
                    let same_elsewhere = sig.others.iter().all(|o| {
                        o.get(i)
                            .and_then(|q| q.default.as_ref())
                            .and_then(|d| self.constant_default(d))
                            == value.as_const().cloned()
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
        out
    }

    /// The value of a parameter's default: a literal, or a module constant.
    fn default_value(&mut self, sig: &Signature, p: &Param, d: &Expr) -> Arg {
        match self.constant_default(d) {
            Some(c) => Arg::Const(c),
            None => {
                self.error(
                    d.pos,
                    format!(
                        "the default value of '{}' in {}() must be a constant (a literal or a module constant) for a call to leave it out; pass the argument explicitly",
                        p.name, sig.shown
                    ),
                );
                Arg::Const(Constant::None)
            }
        }
    }

    /// A default value's constant, when it is a literal or a module constant.
    fn constant_default(&self, d: &Expr) -> Option<Constant> {
        match &d.kind {
            ExprKind::Int(i) => Some(Constant::Int(*i)),
            ExprKind::Float(f) => Some(Constant::Float(*f)),
            ExprKind::Str(s) => Some(Constant::Str(s.clone())),
            ExprKind::Bool(b) => Some(Constant::Bool(*b)),
            ExprKind::None => Some(Constant::None),
            ExprKind::UnaryOp {
                op: UnaryOp::Neg,
                operand,
            } => match &operand.kind {
                ExprKind::Int(i) => i.checked_neg().map(Constant::Int),
                ExprKind::Float(f) => Some(Constant::Float(-f)),
                _ => None,
            },
            ExprKind::Name(n) => match self.m.global(n) {
                Some(Global::Const(c)) => Some(c.clone()),
                _ => None,
            },
            _ => None,
        }
    }
}

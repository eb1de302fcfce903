//! The flow stage: from the AST of a module to the flow graphs of its program.
//!
//! The module is read statically, as if imported: its functions, its constant
//! globals and the `target` function that names the entry point. Then, starting
//! from the entry point, each function that is called (transitively) gets a flow
//! graph, built by a structured abstract interpretation of its body (see
//! [`builder`]): operations are recorded into blocks, a block ends at each
//! conditional branch (on the result of a `bool`-valued operation), and at each
//! point where paths join a new block takes every live local as an input
//! argument. Operations on constants are folded when that is exact.
//!
//! This is the walking-skeleton subset: ints, floats, strs, bools and None;
//! arithmetic and comparisons; if/while/for-over-range with break, continue and
//! else; calls of module functions and a few builtins; print. Everything else is
//! reported as a diagnostic at the construct's position.

mod builder;
mod fold;
mod scan;
pub mod validate;

pub use validate::{check_graph_well_formed, check_program_well_formed};

use rpy_ir::ast::{self, CmpOp, Dialect, Expr, ExprKind, Param, Stmt, StmtKind};
use rpy_ir::diag::{Diagnostic, Diagnostics, Pos};
use rpy_ir::graph::{Constant, Flow, Program};
use std::collections::{HashMap, HashSet, VecDeque};

/// A module-level function definition, as the builder reads it.
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
    pub decorators: &'a [Expr],
    pub body: &'a [Stmt],
}

/// What a module-level name is bound to after import.
pub(crate) enum Global<'a> {
    Func(FuncDef<'a>),
    Const(Constant),
    /// An imported module that is recorded but not usable yet (`sys`, `os`).
    Module(String),
}

/// The module as seen from inside its functions.
pub(crate) struct ModuleCtx<'a> {
    pub path: &'a str,
    pub source: &'a str,
    pub dialect: Dialect,
    pub globals: HashMap<String, Global<'a>>,
}

impl ModuleCtx<'_> {
    pub fn diag(&self, pos: Pos, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.path, pos, message).with_source(self.source)
    }
}

/// Builds the flow graphs of the program a module defines: the entry point that
/// `target` returns and every module function it calls, transitively, in the
/// order they are discovered (entry first). Reports every error it finds.
pub fn build_flow(module: &ast::Module, source: &str) -> Result<Program<Flow>, Diagnostics> {
    let mut diags = Vec::new();
    let ctx = read_module(module, source, &mut diags);
    let entry = find_entry(&ctx, &mut diags);

    let mut graphs = Vec::new();
    if let Some(entry) = &entry {
        let mut queue: VecDeque<String> = VecDeque::from([entry.clone()]);
        let mut seen: HashSet<String> = HashSet::from([entry.clone()]);
        while let Some(name) = queue.pop_front() {
            let Some(Global::Func(def)) = ctx.globals.get(&name) else {
                continue;
            };
            let built = builder::build_function(&ctx, def);
            diags.extend(built.diags);
            for r in built.referenced {
                if seen.insert(r.clone()) {
                    queue.push_back(r);
                }
            }
            if let Some(g) = built.graph {
                graphs.push(g);
            }
        }
    }

    if !diags.is_empty() || entry.is_none() {
        diags.sort_by_key(|d| d.pos);
        diags.dedup();
        return Err(Diagnostics(diags));
    }
    Ok(Program {
        path: module.path.clone(),
        graphs,
        entry: entry.unwrap_or_default(),
        types: Default::default(),
    })
}

/// Is this `if __name__ == '__main__':`?
fn is_main_guard(test: &Expr) -> bool {
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

/// The value of a module-level constant expression: literals, possibly negated,
/// earlier constants, and folded arithmetic on them.
fn const_value(e: &Expr, globals: &HashMap<String, Global>, dialect: Dialect) -> Option<Constant> {
    match &e.kind {
        ExprKind::Int(i) => Some(Constant::Int(*i)),
        ExprKind::Float(f) => Some(Constant::Float(*f)),
        ExprKind::Str(s) => Some(Constant::Str(s.clone())),
        ExprKind::Bool(b) => Some(Constant::Bool(*b)),
        ExprKind::None => Some(Constant::None),
        ExprKind::Name(n) => match globals.get(n) {
            Some(Global::Const(c)) => Some(c.clone()),
            _ => None,
        },
        ExprKind::UnaryOp { op, operand } => {
            let a = const_value(operand, globals, dialect)?;
            let name = match op {
                ast::UnaryOp::Neg => "neg",
                ast::UnaryOp::Pos => "pos",
                ast::UnaryOp::Invert => "invert",
                ast::UnaryOp::Not => "not_",
            };
            fold::fold(name, &[&a])
        }
        ExprKind::BinOp { op, left, right } => {
            let a = const_value(left, globals, dialect)?;
            let b = const_value(right, globals, dialect)?;
            let name = builder::binop_name(*op, dialect);
            fold::fold(name, &[&a, &b])
        }
        _ => None,
    }
}

/// Reads the module's top level: functions, constants and imports.
fn read_module<'a>(
    module: &'a ast::Module,
    source: &'a str,
    diags: &mut Vec<Diagnostic>,
) -> ModuleCtx<'a> {
    let mut ctx = ModuleCtx {
        path: &module.path,
        source,
        dialect: module.dialect,
        globals: HashMap::new(),
    };
    for s in &module.body {
        match &s.kind {
            StmtKind::FunctionDef {
                name,
                params,
                star_args,
                kwonly,
                kwargs,
                decorators,
                body,
            } => {
                ctx.globals.insert(
                    name.clone(),
                    Global::Func(FuncDef {
                        name,
                        pos: s.pos,
                        params,
                        star_args: star_args.as_deref(),
                        kwonly,
                        kwargs: kwargs.as_deref(),
                        decorators,
                        body,
                    }),
                );
            }
            StmtKind::Import(aliases) => {
                for a in aliases {
                    let top = a.name.split('.').next().unwrap_or(&a.name);
                    if top == "sys" || top == "os" {
                        let bound = a.asname.clone().unwrap_or_else(|| top.to_string());
                        ctx.globals.insert(bound, Global::Module(a.name.clone()));
                    } else {
                        diags.push(ctx.diag(
                            s.pos,
                            format!(
                                "importing '{}' is not supported yet (walking skeleton); only 'sys' and 'os' may be imported",
                                a.name
                            ),
                        ));
                    }
                }
            }
            StmtKind::ImportFrom { module: m, .. } if m == "__future__" => {}
            StmtKind::ImportFrom {
                module: m, level, ..
            } => {
                let dots = ".".repeat(*level as usize);
                diags.push(ctx.diag(
                    s.pos,
                    format!(
                        "importing from '{dots}{m}' is not supported yet (walking skeleton); only 'sys', 'os' and '__future__' may be imported"
                    ),
                ));
            }
            StmtKind::Assign { targets, value } => {
                let v = const_value(value, &ctx.globals, ctx.dialect);
                let Some(v) = v else {
                    diags.push(ctx.diag(
                        value.pos,
                        "module-level assignments must assign a constant (an int, float, str, bool or None) in this stage; other module-level values are not supported yet (walking skeleton)",
                    ));
                    continue;
                };
                for t in targets {
                    match &t.kind {
                        ExprKind::Name(n) => {
                            ctx.globals.insert(n.clone(), Global::Const(v.clone()));
                        }
                        _ => diags.push(ctx.diag(
                            t.pos,
                            "module-level assignments must assign to a plain name in this stage",
                        )),
                    }
                }
            }
            StmtKind::Expr(e) if const_value(e, &HashMap::new(), module.dialect).is_some() => {}
            StmtKind::Pass => {}
            StmtKind::If { test, .. } if is_main_guard(test) => {}
            other => {
                let what = match other {
                    StmtKind::ClassDef { .. } => "class definitions are",
                    StmtKind::If { .. } => {
                        "module-level 'if' statements (other than `if __name__ == '__main__':`) are"
                    }
                    StmtKind::While { .. } | StmtKind::For { .. } => "module-level loops are",
                    StmtKind::Try { .. } => "try statements are",
                    StmtKind::Expr(_) => {
                        "module-level expression statements (other than docstrings) are"
                    }
                    StmtKind::Print { .. } => "module-level print statements are",
                    StmtKind::AugAssign { .. } => "module-level augmented assignments are",
                    StmtKind::Assert { .. } => "assert statements are",
                    StmtKind::Raise { .. } => "raise statements are",
                    StmtKind::Del(_) => "del statements are",
                    StmtKind::Global(_) => "module-level 'global' statements are",
                    StmtKind::With { .. } => "module-level 'with' statements are",
                    StmtKind::Exec { .. } => "module-level 'exec' statements are",
                    StmtKind::PrintTo { .. } => "module-level print statements are",
                    _ => "this kind of module-level statement is",
                };
                diags.push(ctx.diag(
                    s.pos,
                    format!("{what} not supported yet (walking skeleton)"),
                ));
            }
        }
    }
    ctx
}

/// Finds the name of the entry point: what `target(...)` returns.
fn find_entry(ctx: &ModuleCtx, diags: &mut Vec<Diagnostic>) -> Option<String> {
    let Some(Global::Func(target)) = ctx.globals.get("target") else {
        diags.push(ctx.diag(
            Pos::new(1, 1),
            "the module defines no function 'target'; a program must define `target(driver, args)` returning its entry point function",
        ));
        return None;
    };
    let Some(ret) = first_return(target.body) else {
        diags.push(ctx.diag(
            target.pos,
            "'target' must return the entry point function (`return entry_point` or `return entry_point, None`)",
        ));
        return None;
    };
    let (pos, value) = ret;
    let named = value.and_then(|v| match &v.kind {
        ExprKind::Name(n) => Some((v.pos, n)),
        ExprKind::Tuple(items) => match items.first().map(|i| &i.kind) {
            Some(ExprKind::Name(n)) => Some((items[0].pos, n)),
            _ => None,
        },
        _ => None,
    });
    let Some((npos, name)) = named else {
        diags.push(ctx.diag(
            value.map_or(pos, |v| v.pos),
            "'target' must return the entry point function by its module-level name (`return entry_point` or `return entry_point, None`)",
        ));
        return None;
    };
    match ctx.globals.get(name.as_str()) {
        Some(Global::Func(_)) => Some(name.clone()),
        _ => {
            diags.push(ctx.diag(
                npos,
                format!(
                    "'target' returns '{name}', which is not a function defined at module level"
                ),
            ));
            None
        }
    }
}

/// The first `return` statement in a body (looking into nested blocks).
fn first_return(stmts: &[Stmt]) -> Option<(Pos, Option<&Expr>)> {
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

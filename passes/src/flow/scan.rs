//! Syntactic scans of a function body: which names it binds (its locals, as
//! Python decides them) and which it declares `global`.

use rpy_ir::ast::{Expr, ExprKind, Stmt, StmtKind};

/// Adds `name` to `out` unless already there (keeping first-appearance order).
fn add(out: &mut Vec<String>, name: &str) {
    if !out.iter().any(|n| n == name) {
        out.push(name.to_string());
    }
}

/// The names a target expression binds (`x`, `a, b = ...`); subscripts and
/// attributes bind none.
fn target_names(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Name(n) => add(out, n),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            for item in items {
                target_names(item, out);
            }
        }
        ExprKind::Starred(inner) => target_names(inner, out),
        _ => {}
    }
}

/// Every name bound by the statements (not looking into nested function or
/// class bodies), in order of first appearance.
pub(crate) fn bound_names(stmts: &[Stmt], out: &mut Vec<String>) {
    for s in stmts {
        match &s.kind {
            StmtKind::FunctionDef { name, .. } | StmtKind::ClassDef { name, .. } => add(out, name),
            StmtKind::Assign { targets, .. } => {
                for t in targets {
                    target_names(t, out);
                }
            }
            StmtKind::AugAssign { target, .. } => target_names(target, out),
            StmtKind::If { body, orelse, .. } | StmtKind::While { body, orelse, .. } => {
                bound_names(body, out);
                bound_names(orelse, out);
            }
            StmtKind::For {
                target,
                body,
                orelse,
                ..
            } => {
                target_names(target, out);
                bound_names(body, out);
                bound_names(orelse, out);
            }
            StmtKind::Import(aliases) => {
                for a in aliases {
                    let bound = match &a.asname {
                        Some(n) => n.as_str(),
                        None => a.name.split('.').next().unwrap_or(&a.name),
                    };
                    add(out, bound);
                }
            }
            StmtKind::ImportFrom { names, .. } => {
                for a in names {
                    add(out, a.asname.as_ref().unwrap_or(&a.name));
                }
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => {
                bound_names(body, out);
                for h in handlers {
                    if let Some(n) = &h.name {
                        add(out, n);
                    }
                    bound_names(&h.body, out);
                }
                bound_names(orelse, out);
                bound_names(finalbody, out);
            }
            StmtKind::Del(targets) => {
                for t in targets {
                    target_names(t, out);
                }
            }
            StmtKind::Return(_)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Pass
            | StmtKind::Print { .. }
            | StmtKind::Expr(_)
            | StmtKind::Global(_)
            | StmtKind::Assert { .. }
            | StmtKind::Raise { .. }
            | StmtKind::Exec { .. }
            | StmtKind::PrintTo { .. }
            | StmtKind::Nonlocal(_) => {}
            StmtKind::With { items, body } => {
                for item in items {
                    if let Some(t) = &item.target {
                        target_names(t, out);
                    }
                }
                bound_names(body, out);
            }
        }
    }
}

/// Every name declared `global` anywhere in the statements (not looking into
/// nested function or class bodies).
pub(crate) fn global_names(stmts: &[Stmt], out: &mut Vec<String>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Global(names) => {
                for n in names {
                    add(out, n);
                }
            }
            StmtKind::With { body, .. } => global_names(body, out),
            StmtKind::If { body, orelse, .. }
            | StmtKind::While { body, orelse, .. }
            | StmtKind::For { body, orelse, .. } => {
                global_names(body, out);
                global_names(orelse, out);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => {
                global_names(body, out);
                for h in handlers {
                    global_names(&h.body, out);
                }
                global_names(orelse, out);
                global_names(finalbody, out);
            }
            _ => {}
        }
    }
}

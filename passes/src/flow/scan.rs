//! Syntactic scans of a function body: which names it binds (its locals, as
//! Python decides them) and which it declares `global`.

use fxhash::FxHashSet;
use rpy_ir::ast::{Expr, ExprKind, Stmt, StmtKind};
use std::collections::HashMap;

/// Names in order of first appearance, each once. Membership is a hash probe:
/// a module body binds one name per function, and a linear search per name
/// made the flow stage quadratic in the number of functions. The set is
/// never iterated (the order is `order`'s), so it hashes with FxHash, which
/// is several times faster than the default SipHash on short names.
#[derive(Default, Debug, Clone)]
pub(crate) struct NameList {
    order: Vec<String>,
    seen: FxHashSet<String>,
}

impl NameList {
    /// Adds `name` unless already there.
    pub(crate) fn add(&mut self, name: &str) {
        if !self.seen.contains(name) {
            self.seen.insert(name.to_string());
            self.order.push(name.to_string());
        }
    }

    pub(crate) fn contains(&self, name: &str) -> bool {
        self.seen.contains(name)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &String> {
        self.order.iter()
    }

    pub(crate) fn into_vec(self) -> Vec<String> {
        self.order
    }
}

/// The names a target expression binds (`x`, `a, b = ...`); subscripts and
/// attributes bind none.
pub(crate) fn target_names(e: &Expr, out: &mut NameList) {
    match &e.kind {
        ExprKind::Name(n) => out.add(n),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            for item in items {
                target_names(item, out);
            }
        }
        ExprKind::Starred(inner) => target_names(inner, out),
        _ => {}
    }
}

/// The module-level names one statement of the module body binds and
/// nothing else does (no assignment, import, second definition, nor a
/// function's `global` statement): while the module runs, such a name is
/// what its statement bound, once that has run.
pub(crate) struct BoundOnce {
    /// Names a `def` or `class` statement binds.
    pub defined: std::collections::HashSet<String>,
    /// Names a top-level `from module import name` binds, with the dotted
    /// name of what they import (`module.name`).
    pub imported: HashMap<String, String>,
}

/// `BoundOnce` of a module; `functions` are the bodies of its functions.
pub(crate) fn bound_once<'a>(
    module_body: &[Stmt],
    functions: impl Iterator<Item = &'a [Stmt]>,
) -> BoundOnce {
    let mut bindings: HashMap<String, usize> = Default::default();
    let mut count = |names: NameList| {
        for n in names.into_vec() {
            *bindings.entry(n).or_default() += 1;
        }
    };
    for s in module_body {
        let mut names = NameList::default();
        bound_names(std::slice::from_ref(s), &mut names);
        count(names);
    }
    for body in functions {
        let mut names = NameList::default();
        global_names(body, &mut names);
        count(names);
    }
    let once = |n: &String| bindings.get(n) == Some(&1);
    let defined = module_body
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::FunctionDef { name, .. } | StmtKind::ClassDef { name, .. } => Some(name),
            _ => None,
        })
        .filter(|n| once(n))
        .cloned()
        .collect();
    let mut imported = HashMap::new();
    for s in module_body {
        if let StmtKind::ImportFrom {
            module,
            names,
            level: 0,
        } = &s.kind
        {
            for a in names {
                let bound = a.asname.as_ref().unwrap_or(&a.name);
                if once(bound) {
                    imported.insert(bound.clone(), format!("{module}.{}", a.name));
                }
            }
        }
    }
    BoundOnce { defined, imported }
}

pub(crate) fn bound_names(stmts: &[Stmt], out: &mut NameList) {
    for s in stmts {
        match &s.kind {
            StmtKind::FunctionDef { name, .. } | StmtKind::ClassDef { name, .. } => out.add(name),
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
                    out.add(bound);
                }
            }
            StmtKind::ImportFrom { names, .. } => {
                for a in names {
                    out.add(a.asname.as_ref().unwrap_or(&a.name));
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
                        out.add(n);
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
pub(crate) fn global_names(stmts: &[Stmt], out: &mut NameList) {
    for s in stmts {
        match &s.kind {
            StmtKind::Global(names) => {
                for n in names {
                    out.add(n);
                }
            }
            _ => s.for_each_nested_body(|body| global_names(body, out)),
        }
    }
}

/// The names bound by the `for` targets of list comprehensions anywhere in the
/// statements' expressions (not looking into nested function or class
/// bodies): Python 2 makes them locals of the enclosing function.
pub(crate) fn comprehension_targets(stmts: &[Stmt], out: &mut NameList) {
    for s in stmts {
        match &s.kind {
            StmtKind::Expr(e) => expr_comprehension_targets(e, out),
            StmtKind::Return(v) => v.iter().for_each(|e| expr_comprehension_targets(e, out)),
            StmtKind::Assign { targets, value } => {
                targets
                    .iter()
                    .for_each(|e| expr_comprehension_targets(e, out));
                expr_comprehension_targets(value, out);
            }
            StmtKind::AugAssign { target, value, .. } => {
                expr_comprehension_targets(target, out);
                expr_comprehension_targets(value, out);
            }
            StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
                expr_comprehension_targets(test, out);
                comprehension_targets(body, out);
                comprehension_targets(orelse, out);
            }
            StmtKind::For {
                iter, body, orelse, ..
            } => {
                expr_comprehension_targets(iter, out);
                comprehension_targets(body, out);
                comprehension_targets(orelse, out);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => {
                comprehension_targets(body, out);
                for h in handlers {
                    comprehension_targets(&h.body, out);
                }
                comprehension_targets(orelse, out);
                comprehension_targets(finalbody, out);
            }
            StmtKind::With { items, body } => {
                for item in items {
                    expr_comprehension_targets(&item.context, out);
                }
                comprehension_targets(body, out);
            }
            StmtKind::Print { values, .. } => values
                .iter()
                .for_each(|e| expr_comprehension_targets(e, out)),
            StmtKind::Assert { test, msg } => {
                expr_comprehension_targets(test, out);
                msg.iter().for_each(|e| expr_comprehension_targets(e, out));
            }
            _ => {}
        }
    }
}

fn expr_comprehension_targets(e: &Expr, out: &mut NameList) {
    match &e.kind {
        ExprKind::ListComp { elt, generators } => {
            for g in generators {
                target_names(&g.target, out);
                expr_comprehension_targets(&g.iter, out);
                g.ifs
                    .iter()
                    .for_each(|c| expr_comprehension_targets(c, out));
            }
            expr_comprehension_targets(elt, out);
        }
        ExprKind::BinOp { left, right, .. } => {
            expr_comprehension_targets(left, out);
            expr_comprehension_targets(right, out);
        }
        ExprKind::UnaryOp { operand, .. } => expr_comprehension_targets(operand, out),
        ExprKind::BoolOp { values, .. } | ExprKind::Tuple(values) | ExprKind::List(values) => {
            values
                .iter()
                .for_each(|x| expr_comprehension_targets(x, out))
        }
        ExprKind::Compare { left, ops } => {
            expr_comprehension_targets(left, out);
            ops.iter()
                .for_each(|(_, r)| expr_comprehension_targets(r, out));
        }
        ExprKind::Call { func, args, .. } => {
            expr_comprehension_targets(func, out);
            args.iter().for_each(|x| expr_comprehension_targets(x, out));
        }
        ExprKind::Attribute { value, .. } => expr_comprehension_targets(value, out),
        ExprKind::Subscript { value, index } => {
            expr_comprehension_targets(value, out);
            expr_comprehension_targets(index, out);
        }
        ExprKind::Slice {
            value,
            lower,
            upper,
        } => {
            expr_comprehension_targets(value, out);
            lower
                .iter()
                .for_each(|x| expr_comprehension_targets(x, out));
            upper
                .iter()
                .for_each(|x| expr_comprehension_targets(x, out));
        }
        ExprKind::Dict(entries) => {
            for (k, v) in entries {
                expr_comprehension_targets(k, out);
                expr_comprehension_targets(v, out);
            }
        }
        ExprKind::IfExp { test, body, orelse } => {
            expr_comprehension_targets(test, out);
            expr_comprehension_targets(body, out);
            expr_comprehension_targets(orelse, out);
        }
        _ => {}
    }
}

/// Is `e` a call of the builtin `globals()`?
pub(crate) fn is_globals_call(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call { func, args, keywords, .. }
        if args.is_empty() && keywords.is_empty()
            && matches!(&func.kind, ExprKind::Name(n) if n == "globals"))
}

/// Does any statement of `stmts` (at any depth, functions included) assign
/// a global through `globals()[name] = value`? Such a module binds names
/// no statement names, so its import-time code reads every name it does
/// not know otherwise from the module.
pub(crate) fn assigns_through_globals(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Assign { targets, .. } => targets.iter().any(
            |t| matches!(&t.kind, ExprKind::Subscript { value, .. } if is_globals_call(value)),
        ),
        StmtKind::FunctionDef { body, .. } | StmtKind::ClassDef { body, .. } => {
            assigns_through_globals(body)
        }
        _ => {
            let mut found = false;
            s.for_each_nested_body(|b| found |= assigns_through_globals(b));
            found
        }
    })
}

/// The `lambda` expressions of the statement `s` itself (not of the bodies
/// nested in it, nor inside another lambda, whose free names would be a
/// closure): those a module or class body makes when it runs.
pub(crate) fn statement_lambdas<'a>(s: &'a Stmt, out: &mut Vec<&'a Expr>) {
    match &s.kind {
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => expr_lambdas(e, out),
        StmtKind::Assign { targets, value } => {
            targets.iter().for_each(|t| expr_lambdas(t, out));
            expr_lambdas(value, out);
        }
        StmtKind::AugAssign { target, value, .. } => {
            expr_lambdas(target, out);
            expr_lambdas(value, out);
        }
        StmtKind::If { test, .. } | StmtKind::While { test, .. } => expr_lambdas(test, out),
        StmtKind::For { iter, .. } => expr_lambdas(iter, out),
        StmtKind::Print { values, .. } => values.iter().for_each(|e| expr_lambdas(e, out)),
        _ => {}
    }
}

fn expr_lambdas<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    let each = |items: &'a [Expr], out: &mut Vec<&'a Expr>| {
        items.iter().for_each(|x| expr_lambdas(x, out))
    };
    match &e.kind {
        ExprKind::Lambda { .. } => out.push(e),
        ExprKind::BinOp { left, right, .. } => {
            expr_lambdas(left, out);
            expr_lambdas(right, out);
        }
        ExprKind::UnaryOp { operand, .. } => expr_lambdas(operand, out),
        ExprKind::BoolOp { values, .. }
        | ExprKind::Tuple(values)
        | ExprKind::List(values)
        | ExprKind::Set(values) => each(values, out),
        ExprKind::Compare { left, ops } => {
            expr_lambdas(left, out);
            ops.iter().for_each(|(_, r)| expr_lambdas(r, out));
        }
        ExprKind::Call {
            func,
            args,
            keywords,
            star_args,
            kwargs,
        } => {
            expr_lambdas(func, out);
            each(args, out);
            keywords.iter().for_each(|k| expr_lambdas(&k.value, out));
            star_args.iter().for_each(|x| expr_lambdas(x, out));
            kwargs.iter().for_each(|x| expr_lambdas(x, out));
        }
        ExprKind::Attribute { value, .. } => expr_lambdas(value, out),
        ExprKind::Subscript { value, index } => {
            expr_lambdas(value, out);
            expr_lambdas(index, out);
        }
        ExprKind::Slice {
            value,
            lower,
            upper,
        } => {
            expr_lambdas(value, out);
            lower.iter().for_each(|x| expr_lambdas(x, out));
            upper.iter().for_each(|x| expr_lambdas(x, out));
        }
        ExprKind::Dict(entries) => {
            for (k, v) in entries {
                expr_lambdas(k, out);
                expr_lambdas(v, out);
            }
        }
        ExprKind::IfExp { test, body, orelse } => {
            expr_lambdas(test, out);
            expr_lambdas(body, out);
            expr_lambdas(orelse, out);
        }
        ExprKind::ListComp { elt, generators } | ExprKind::SetComp { elt, generators } => {
            expr_lambdas(elt, out);
            for g in generators {
                expr_lambdas(&g.iter, out);
                each(&g.ifs, out);
            }
        }
        _ => {}
    }
}

/// The `from M import *` statements of a module body (outside its function
/// and class bodies and its `if __name__ == '__main__':` block), as the
/// module named and its level of leading dots.
pub(crate) fn star_imports(stmts: &[Stmt], out: &mut Vec<(String, u32)>) {
    for s in stmts {
        match &s.kind {
            StmtKind::ImportFrom {
                module,
                names,
                level,
            } if names.iter().any(|a| a.name == "*") => out.push((module.clone(), *level)),
            StmtKind::If { test, orelse, .. } if super::is_main_guard(test) => {
                star_imports(orelse, out)
            }
            StmtKind::FunctionDef { .. } | StmtKind::ClassDef { .. } => {}
            _ => s.for_each_nested_body(|b| star_imports(b, out)),
        }
    }
}

/// The names `from M import *` binds, M's body being `stmts`: the strings
/// of a literal `__all__ = [...]` (or tuple) when M has one, else every
/// name M's body binds that does not start with an underscore (outside
/// its `if __name__ == '__main__':` block, which does not run on import),
/// beside what M's own `import *`s bind (`star`, the names each module
/// exports by name).
pub(crate) fn module_exports(
    stmts: &[Stmt],
    star: &dyn Fn(&str, u32) -> Vec<String>,
) -> Vec<String> {
    for s in stmts {
        if let StmtKind::Assign { targets, value } = &s.kind {
            let is_all = targets
                .iter()
                .any(|t| matches!(&t.kind, ExprKind::Name(n) if n == "__all__"));
            if let (true, ExprKind::List(items) | ExprKind::Tuple(items)) = (is_all, &value.kind) {
                return items
                    .iter()
                    .filter_map(|e| match &e.kind {
                        ExprKind::Str(s) => Some(s.clone()),
                        _ => None,
                    })
                    .collect();
            }
        }
    }
    let mut names = NameList::default();
    for s in stmts {
        match &s.kind {
            StmtKind::If { test, orelse, .. } if super::is_main_guard(test) => {
                bound_names(orelse, &mut names)
            }
            _ => bound_names(std::slice::from_ref(s), &mut names),
        }
    }
    let mut stars = Vec::new();
    star_imports(stmts, &mut stars);
    for (module, level) in stars {
        for n in star(&module, level) {
            names.add(&n);
        }
    }
    names
        .into_vec()
        .into_iter()
        .filter(|n| !n.starts_with('_') && n != "*")
        .collect()
}

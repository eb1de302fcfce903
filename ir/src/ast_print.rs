//! The AST printer: writes a `Module` back as Python source of its dialect.
//!
//! The output is what `rpy show --stage parse` displays, and it parses back to
//! the same tree (positions aside): operators get parentheses only where
//! precedence or associativity needs them, strings are escaped so that every
//! character below U+0100 reads back the same in both dialects, floats are
//! written in their shortest exact form. Indentation is four spaces; an empty
//! body (which the parser never produces) prints as `pass`. Never panics.

use crate::ast::*;

/// Writes a whole module as source text of `m.dialect`, one statement per line.
pub fn print_module(m: &Module) -> String {
    let mut p = Printer {
        out: String::new(),
        dialect: m.dialect,
        indent: 0,
    };
    p.stmts(&m.body);
    p.out
}

/// Writes one expression; a tuple of two or more items gets parentheses, so
/// the text is an expression in any context.
pub fn print_expr(e: &Expr) -> String {
    let mut out = String::new();
    expr(&mut out, e, P_TEST);
    out
}

// Precedence levels, loosest first: an expression of level `p` printed where
// the grammar asks for level `min` is parenthesized when `p < min`.
/// A bare tuple `a, b` (a statement's expression list).
const P_TUPLE: u8 = 0;
/// `lambda` and `x if c else y`: the grammar's `test`.
const P_TEST: u8 = 1;
const P_OR: u8 = 2;
const P_AND: u8 = 3;
const P_NOT: u8 = 4;
const P_CMP: u8 = 5;
const P_BITOR: u8 = 6;
const P_BITXOR: u8 = 7;
const P_BITAND: u8 = 8;
const P_SHIFT: u8 = 9;
const P_ARITH: u8 = 10;
const P_TERM: u8 = 11;
/// Unary `-`, `+`, `~`, and negative number literals.
const P_FACTOR: u8 = 12;
const P_POWER: u8 = 13;
/// Calls, subscripts, attributes.
const P_TRAILER: u8 = 14;
const P_ATOM: u8 = 15;

fn binop_prec(op: BinOp) -> u8 {
    match op {
        BinOp::BitOr => P_BITOR,
        BinOp::BitXor => P_BITXOR,
        BinOp::BitAnd => P_BITAND,
        BinOp::LShift | BinOp::RShift => P_SHIFT,
        BinOp::Add | BinOp::Sub => P_ARITH,
        BinOp::Mul | BinOp::Div | BinOp::FloorDiv | BinOp::Mod => P_TERM,
        BinOp::Pow => P_POWER,
    }
}

fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Tuple(items) if items.len() >= 2 => P_TUPLE,
        // Bare only as a statement or the value of an assignment.
        ExprKind::Yield(_) | ExprKind::YieldFrom(_) => P_TUPLE,
        ExprKind::Lambda { .. } | ExprKind::IfExp { .. } => P_TEST,
        ExprKind::BoolOp { op: BoolOp::Or, .. } => P_OR,
        ExprKind::BoolOp {
            op: BoolOp::And, ..
        } => P_AND,
        ExprKind::UnaryOp {
            op: UnaryOp::Not, ..
        } => P_NOT,
        ExprKind::UnaryOp { .. } => P_FACTOR,
        ExprKind::Compare { .. } => P_CMP,
        ExprKind::BinOp { op, .. } => binop_prec(*op),
        ExprKind::Int(v) if *v < 0 => P_FACTOR,
        ExprKind::Float(f) if f.is_sign_negative() && !f.is_nan() => P_FACTOR,
        ExprKind::Call { .. }
        | ExprKind::Attribute { .. }
        | ExprKind::Subscript { .. }
        | ExprKind::Slice { .. } => P_TRAILER,
        _ => P_ATOM,
    }
}

/// Writes `e` where the grammar expects an expression of level `min`.
fn expr(out: &mut String, e: &Expr, min: u8) {
    if prec(e) < min {
        out.push('(');
        expr_bare(out, e);
        out.push(')');
    } else {
        expr_bare(out, e);
    }
}

/// Writes `items` separated by ", ", each at level `min`.
fn list(out: &mut String, items: &[Expr], min: u8) {
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        expr(out, e, min);
    }
}

/// Writes `e` without outer parentheses (a tuple of two or more items bare).
fn expr_bare(out: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Name(n) => out.push_str(n),
        ExprKind::Int(v) => out.push_str(&v.to_string()),
        ExprKind::Float(f) => float(out, *f),
        ExprKind::Str(s) => string(out, s),
        ExprKind::BigInt(s) => out.push_str(s),
        ExprKind::WideStr(s) => {
            out.push('u');
            string(out, s);
        }
        ExprKind::Yield(v) => {
            out.push_str("yield");
            if let Some(v) = v {
                out.push(' ');
                expr(out, v, P_TUPLE);
            }
        }
        ExprKind::YieldFrom(v) => {
            out.push_str("yield from ");
            expr(out, v, P_TEST);
        }
        ExprKind::Set(items) => {
            if items.is_empty() {
                // Not from the parser: `{}` is a dict.
                out.push_str("set()");
            } else {
                out.push('{');
                list(out, items, P_TEST);
                out.push('}');
            }
        }
        ExprKind::SetComp { elt, generators } => {
            out.push('{');
            expr(out, elt, P_TEST);
            comp_clauses(out, generators, P_OR);
            out.push('}');
        }
        ExprKind::DictComp {
            key,
            value,
            generators,
        } => {
            out.push('{');
            expr(out, key, P_TEST);
            out.push_str(": ");
            expr(out, value, P_TEST);
            comp_clauses(out, generators, P_OR);
            out.push('}');
        }
        ExprKind::GeneratorExp { elt, generators } => {
            out.push('(');
            expr(out, elt, P_TEST);
            comp_clauses(out, generators, P_OR);
            out.push(')');
        }
        ExprKind::Repr(v) => {
            out.push('`');
            expr(out, v, P_TUPLE);
            out.push('`');
        }
        ExprKind::Ellipsis => out.push_str("..."),
        ExprKind::SliceItem { lower, upper, step } => {
            if let Some(lo) = lower {
                expr(out, lo, P_TEST);
            }
            out.push(':');
            if let Some(hi) = upper {
                expr(out, hi, P_TEST);
            }
            if let Some(st) = step {
                out.push(':');
                expr(out, st, P_TEST);
            }
        }
        ExprKind::Starred(v) => {
            out.push('*');
            expr(out, v, P_BITOR);
        }
        ExprKind::Bool(true) => out.push_str("True"),
        ExprKind::Bool(false) => out.push_str("False"),
        ExprKind::None => out.push_str("None"),
        ExprKind::BinOp { op, left, right } => {
            let p = binop_prec(*op);
            let (lmin, rmin) = if *op == BinOp::Pow {
                // `a ** b`: the left operand is a primary, the right a unary
                // expression (`2 ** -1`), right-associative.
                (P_TRAILER, P_FACTOR)
            } else {
                (p, p + 1)
            };
            expr(out, left, lmin);
            out.push(' ');
            out.push_str(op.symbol());
            out.push(' ');
            expr(out, right, rmin);
        }
        ExprKind::UnaryOp { op, operand } => {
            let (sym, min) = match op {
                UnaryOp::Not => ("not ", P_NOT),
                UnaryOp::Neg => ("-", P_FACTOR),
                UnaryOp::Pos => ("+", P_FACTOR),
                UnaryOp::Invert => ("~", P_FACTOR),
            };
            out.push_str(sym);
            let start = out.len();
            expr(out, operand, min);
            // `- -x` rather than `--x`, which reads like a decrement.
            if matches!(op, UnaryOp::Neg | UnaryOp::Pos)
                && out.as_bytes().get(start) == sym.as_bytes().first()
            {
                out.insert(start, ' ');
            }
        }
        ExprKind::BoolOp { op, values } => {
            let (word, min) = match op {
                BoolOp::And => (" and ", P_NOT),
                BoolOp::Or => (" or ", P_AND),
            };
            if values.is_empty() {
                // Not from the parser: the value of an empty and/or.
                out.push_str(if *op == BoolOp::And { "True" } else { "False" });
            }
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    out.push_str(word);
                }
                expr(out, v, min);
            }
        }
        ExprKind::Compare { left, ops } => {
            expr(out, left, P_BITOR);
            for (op, right) in ops {
                out.push(' ');
                out.push_str(op.symbol());
                out.push(' ');
                expr(out, right, P_BITOR);
            }
        }
        ExprKind::Call {
            func,
            args,
            keywords,
            star_args,
            kwargs,
        } => {
            expr(out, func, P_TRAILER);
            out.push('(');
            call_args(out, args, keywords, star_args.as_deref(), kwargs.as_deref());
            out.push(')');
        }
        ExprKind::Attribute { value, attr } => {
            // `1.x` would read as a float literal.
            if matches!(value.kind, ExprKind::Int(_) | ExprKind::BigInt(_)) {
                out.push('(');
                expr_bare(out, value);
                out.push(')');
            } else {
                expr(out, value, P_TRAILER);
            }
            out.push('.');
            out.push_str(attr);
        }
        ExprKind::Subscript { value, index } => {
            expr(out, value, P_TRAILER);
            out.push('[');
            match &index.kind {
                // `a[i, j]`, `a[i,]`: the index is a tuple without parentheses.
                ExprKind::Tuple(items) if !items.is_empty() => {
                    list(out, items, P_TEST);
                    if items.len() == 1 {
                        out.push(',');
                    }
                }
                _ => expr(out, index, P_TEST),
            }
            out.push(']');
        }
        ExprKind::Slice {
            value,
            lower,
            upper,
        } => {
            expr(out, value, P_TRAILER);
            out.push('[');
            if let Some(lo) = lower {
                expr(out, lo, P_TEST);
            }
            out.push(':');
            if let Some(hi) = upper {
                expr(out, hi, P_TEST);
            }
            out.push(']');
        }
        ExprKind::Tuple(items) => match items.len() {
            0 => out.push_str("()"),
            1 => {
                out.push('(');
                expr(out, &items[0], P_TEST);
                out.push_str(",)");
            }
            _ => list(out, items, P_TEST),
        },
        ExprKind::List(items) => {
            out.push('[');
            list(out, items, P_TEST);
            out.push(']');
        }
        ExprKind::Dict(items) => {
            out.push('{');
            for (i, (k, v)) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                expr(out, k, P_TEST);
                out.push_str(": ");
                expr(out, v, P_TEST);
            }
            out.push('}');
        }
        ExprKind::IfExp { test, body, orelse } => {
            expr(out, body, P_OR);
            out.push_str(" if ");
            expr(out, test, P_OR);
            out.push_str(" else ");
            expr(out, orelse, P_TEST);
        }
        ExprKind::ListComp { elt, generators } => {
            out.push('[');
            expr(out, elt, P_TEST);
            comp_clauses(out, generators, P_OR);
            out.push(']');
        }
        ExprKind::Lambda {
            params: ps,
            star_args,
            kwonly,
            kwargs,
            body,
        } => {
            out.push_str("lambda");
            let mut t = String::new();
            params(&mut t, ps, star_args.as_deref(), kwonly, kwargs.as_deref());
            if !t.is_empty() {
                out.push(' ');
                out.push_str(&t);
            }
            out.push_str(": ");
            expr(out, body, P_TEST);
        }
    }
}

/// The `for ... in ... if ...` clauses of a comprehension, iterables at `iter_min`.
fn comp_clauses(out: &mut String, generators: &[Comprehension], iter_min: u8) {
    for g in generators {
        out.push_str(" for ");
        target_list(out, &g.target);
        out.push_str(" in ");
        expr(out, &g.iter, iter_min);
        for c in &g.ifs {
            out.push_str(" if ");
            expr(out, c, P_OR);
        }
    }
}

/// An expression list where a bare `yield` is not allowed (`return`, `for ... in`).
fn expr_no_yield(out: &mut String, e: &Expr) {
    let min = match e.kind {
        ExprKind::Yield(_) | ExprKind::YieldFrom(_) => P_TEST,
        _ => P_TUPLE,
    };
    expr(out, e, min);
}

/// The target of a `for` (statement or comprehension): a bare tuple of
/// bitwise-or expressions, so that `in` ends it.
fn target_list(out: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Tuple(items) if items.len() >= 2 => list(out, items, P_BITOR),
        _ => expr(out, e, P_BITOR),
    }
}

fn call_args(
    out: &mut String,
    args: &[Expr],
    keywords: &[Keyword],
    star: Option<&Expr>,
    kwargs: Option<&Expr>,
) {
    list(out, args, P_TEST);
    let mut first = args.is_empty();
    for k in keywords {
        if !first {
            out.push_str(", ");
        }
        first = false;
        out.push_str(&k.name);
        out.push('=');
        expr(out, &k.value, P_TEST);
    }
    if let Some(s) = star {
        if !first {
            out.push_str(", ");
        }
        out.push('*');
        expr(out, s, P_TEST);
        first = false;
    }
    if let Some(k) = kwargs {
        if !first {
            out.push_str(", ");
        }
        out.push_str("**");
        expr(out, k, P_TEST);
    }
}

/// A Python 2 tuple parameter's pattern: names and parenthesized tuples.
fn unpack_pattern(out: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Tuple(items) => {
            out.push('(');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                unpack_pattern(out, item);
            }
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        _ => expr(out, e, P_ATOM),
    }
}

fn params(
    out: &mut String,
    ps: &[Param],
    star: Option<&str>,
    kwonly: &[Param],
    kwargs: Option<&str>,
) {
    let mut first = true;
    let mut sep = |out: &mut String| {
        if !first {
            out.push_str(", ");
        }
        first = false;
    };
    let one = |out: &mut String, p: &Param| {
        match &p.unpack {
            Some(u) => unpack_pattern(out, u),
            None => out.push_str(&p.name),
        }
        if let Some(d) = &p.default {
            out.push('=');
            expr(out, d, P_TEST);
        }
    };
    for p in ps {
        sep(out);
        one(out, p);
    }
    if star.is_some() || !kwonly.is_empty() {
        sep(out);
        out.push('*');
        out.push_str(star.unwrap_or(""));
    }
    for p in kwonly {
        sep(out);
        one(out, p);
    }
    if let Some(k) = kwargs {
        sep(out);
        out.push_str("**");
        out.push_str(k);
    }
}

/// A float in its shortest form that reads back exactly (`1.0`, `0.1`,
/// `1e+300` as `1e300`); infinities overflow a literal.
fn float(out: &mut String, f: f64) {
    if f.is_nan() {
        out.push_str("(1e999 - 1e999)");
    } else if f.is_infinite() {
        out.push_str(if f < 0.0 { "-1e999" } else { "1e999" });
    } else {
        // Debug always has a '.' or an exponent, and is the shortest
        // representation that parses back to the same value.
        out.push_str(&format!("{:?}", f));
    }
}

/// A string literal that reads back as the same characters in both dialects:
/// printable ASCII as itself, everything else as an escape (`\xHH` for the
/// characters below U+0100, which is what rpy strings hold).
fn string(out: &mut String, s: &str) {
    let q = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push(q);
}

struct Printer {
    out: String,
    dialect: Dialect,
    indent: usize,
}

impl Printer {
    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// `header:` and the indented body (`pass` if empty).
    fn block(&mut self, header: &str, body: &[Stmt]) {
        self.line(&format!("{}:", header));
        self.indent += 1;
        self.body(body);
        self.indent -= 1;
    }

    fn body(&mut self, body: &[Stmt]) {
        if body.is_empty() {
            self.line("pass");
        }
        self.stmts(body);
    }

    /// Statements, with a blank line around each definition for the reader.
    fn stmts(&mut self, body: &[Stmt]) {
        let mut prev_def = false;
        for (i, s) in body.iter().enumerate() {
            let is_def = matches!(
                s.kind,
                StmtKind::FunctionDef { .. } | StmtKind::ClassDef { .. }
            );
            if i > 0 && (is_def || prev_def) {
                // Two blank lines at the top level, one inside a block (PEP 8).
                self.out
                    .push_str(if self.indent == 0 { "\n\n" } else { "\n" });
            }
            self.stmt(s);
            prev_def = is_def;
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        let mut t = String::new();
        match &s.kind {
            StmtKind::FunctionDef {
                name,
                params: ps,
                star_args,
                kwonly,
                kwargs,
                decorators,
                body,
            } => {
                self.decorators(decorators);
                t.push_str("def ");
                t.push_str(name);
                t.push('(');
                params(&mut t, ps, star_args.as_deref(), kwonly, kwargs.as_deref());
                t.push(')');
                self.block(&t, body);
            }
            StmtKind::ClassDef {
                name,
                bases,
                decorators,
                body,
            } => {
                self.decorators(decorators);
                t.push_str("class ");
                t.push_str(name);
                if !bases.is_empty() {
                    t.push('(');
                    list(&mut t, bases, P_TEST);
                    t.push(')');
                }
                self.block(&t, body);
            }
            StmtKind::Return(v) => {
                t.push_str("return");
                if let Some(v) = v {
                    t.push(' ');
                    expr_no_yield(&mut t, v);
                }
                self.line(&t);
            }
            StmtKind::Assign { targets, value } => {
                for target in targets {
                    expr(&mut t, target, P_TUPLE);
                    t.push_str(" = ");
                }
                expr(&mut t, value, P_TUPLE);
                self.line(&t);
            }
            StmtKind::AugAssign { target, op, value } => {
                expr(&mut t, target, P_TEST);
                t.push(' ');
                t.push_str(op.symbol());
                t.push_str("= ");
                expr(&mut t, value, P_TUPLE);
                self.line(&t);
            }
            StmtKind::If { .. } => self.if_chain(s, "if"),
            StmtKind::While { test, body, orelse } => {
                t.push_str("while ");
                expr(&mut t, test, P_TEST);
                self.block(&t, body);
                if !orelse.is_empty() {
                    self.block("else", orelse);
                }
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => {
                t.push_str("for ");
                target_list(&mut t, target);
                t.push_str(" in ");
                expr_no_yield(&mut t, iter);
                self.block(&t, body);
                if !orelse.is_empty() {
                    self.block("else", orelse);
                }
            }
            StmtKind::Break => self.line("break"),
            StmtKind::Continue => self.line("continue"),
            StmtKind::Pass => self.line("pass"),
            StmtKind::Print { values, newline } => {
                match self.dialect {
                    Dialect::Py2 => {
                        t.push_str("print");
                        if !values.is_empty() {
                            t.push(' ');
                            list(&mut t, values, P_TEST);
                            if !newline {
                                t.push(',');
                            }
                        }
                    }
                    // Not from the parser: the Python 3 spelling.
                    Dialect::Py3 => {
                        t.push_str("print(");
                        list(&mut t, values, P_TEST);
                        if !newline {
                            if !values.is_empty() {
                                t.push_str(", ");
                            }
                            t.push_str("end=' '");
                        }
                        t.push(')');
                    }
                }
                self.line(&t);
            }
            StmtKind::Expr(e) => {
                expr(&mut t, e, P_TUPLE);
                self.line(&t);
            }
            StmtKind::Global(names) => {
                t.push_str("global ");
                t.push_str(&names.join(", "));
                self.line(&t);
            }
            StmtKind::Import(names) => {
                t.push_str("import ");
                aliases(&mut t, names);
                self.line(&t);
            }
            StmtKind::ImportFrom {
                module,
                names,
                level,
            } => {
                t.push_str("from ");
                for _ in 0..*level {
                    t.push('.');
                }
                t.push_str(module);
                t.push_str(" import ");
                aliases(&mut t, names);
                self.line(&t);
            }
            StmtKind::Assert { test, msg } => {
                t.push_str("assert ");
                expr(&mut t, test, P_TEST);
                if let Some(m) = msg {
                    t.push_str(", ");
                    expr(&mut t, m, P_TEST);
                }
                self.line(&t);
            }
            StmtKind::Raise {
                exc,
                arg,
                tb,
                cause,
            } => {
                t.push_str("raise");
                if let Some(e) = exc {
                    t.push(' ');
                    match (arg, self.dialect) {
                        (None, _) if tb.is_none() => expr(&mut t, e, P_TEST),
                        (_, Dialect::Py2) => {
                            expr(&mut t, e, P_TEST);
                            t.push_str(", ");
                            match arg {
                                Some(a) => expr(&mut t, a, P_TEST),
                                None => t.push_str("None"),
                            }
                            if let Some(tb) = tb {
                                t.push_str(", ");
                                expr(&mut t, tb, P_TEST);
                            }
                        }
                        (None, Dialect::Py3) => expr(&mut t, e, P_TEST),
                        // Not from the parser: the Python 3 spelling.
                        (Some(a), Dialect::Py3) => {
                            expr(&mut t, e, P_TRAILER);
                            t.push('(');
                            expr(&mut t, a, P_TEST);
                            t.push(')');
                        }
                    }
                    if let Some(c) = cause {
                        t.push_str(" from ");
                        expr(&mut t, c, P_TEST);
                    }
                }
                self.line(&t);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => self.try_stmt(body, handlers, orelse, finalbody),
            StmtKind::Del(targets) => {
                t.push_str("del ");
                list(&mut t, targets, P_BITOR);
                self.line(&t);
            }
            StmtKind::With { items, body } => {
                t.push_str("with ");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        t.push_str(", ");
                    }
                    expr(&mut t, &item.context, P_TEST);
                    if let Some(target) = &item.target {
                        t.push_str(" as ");
                        expr(&mut t, target, P_BITOR);
                    }
                }
                self.block(&t, body);
            }
            StmtKind::Exec {
                code,
                globals,
                locals,
            } => {
                match self.dialect {
                    Dialect::Py2 => {
                        t.push_str("exec ");
                        expr(&mut t, code, P_BITOR);
                        if let Some(g) = globals {
                            t.push_str(" in ");
                            expr(&mut t, g, P_TEST);
                            if let Some(l) = locals {
                                t.push_str(", ");
                                expr(&mut t, l, P_TEST);
                            }
                        }
                    }
                    // Not from the parser: the Python 3 spelling.
                    Dialect::Py3 => {
                        t.push_str("exec(");
                        expr(&mut t, code, P_TEST);
                        for e in globals.iter().chain(locals) {
                            t.push_str(", ");
                            expr(&mut t, e, P_TEST);
                        }
                        t.push(')');
                    }
                }
                self.line(&t);
            }
            StmtKind::PrintTo {
                dest,
                values,
                newline,
            } => {
                match self.dialect {
                    Dialect::Py2 => {
                        t.push_str("print >>");
                        expr(&mut t, dest, P_TEST);
                        if !values.is_empty() {
                            t.push_str(", ");
                            list(&mut t, values, P_TEST);
                            if !newline {
                                t.push(',');
                            }
                        }
                    }
                    // Not from the parser: the Python 3 spelling.
                    Dialect::Py3 => {
                        t.push_str("print(");
                        for v in values {
                            expr(&mut t, v, P_TEST);
                            t.push_str(", ");
                        }
                        if !newline {
                            t.push_str("end=' ', ");
                        }
                        t.push_str("file=");
                        expr(&mut t, dest, P_TEST);
                        t.push(')');
                    }
                }
                self.line(&t);
            }
            StmtKind::Nonlocal(names) => {
                t.push_str("nonlocal ");
                t.push_str(&names.join(", "));
                self.line(&t);
            }
        }
    }

    fn decorators(&mut self, decorators: &[Expr]) {
        for d in decorators {
            let mut t = String::from("@");
            expr(&mut t, d, P_TEST);
            self.line(&t);
        }
    }

    /// An `if` whose else branch is a single `if` prints as `elif`: the parser
    /// builds the same tree from both.
    fn if_chain(&mut self, s: &Stmt, keyword: &str) {
        let StmtKind::If { test, body, orelse } = &s.kind else {
            return;
        };
        let mut t = format!("{} ", keyword);
        expr(&mut t, test, P_TEST);
        self.block(&t, body);
        match orelse.as_slice() {
            [] => {}
            [s2] if matches!(s2.kind, StmtKind::If { .. }) => self.if_chain(s2, "elif"),
            _ => self.block("else", orelse),
        }
    }

    fn try_stmt(
        &mut self,
        body: &[Stmt],
        handlers: &[ExceptHandler],
        orelse: &[Stmt],
        finalbody: &[Stmt],
    ) {
        if handlers.is_empty() {
            // Not from the parser (an `else` needs a handler, and a `try`
            // needs a handler or a `finally`): the same behaviour, valid.
            let mut merged: Vec<Stmt> = body.to_vec();
            merged.extend_from_slice(orelse);
            self.block("try", &merged);
            self.block("finally", finalbody);
            return;
        }
        self.block("try", body);
        for h in handlers {
            let mut t = String::from("except");
            if let Some(typ) = &h.typ {
                t.push(' ');
                expr(&mut t, typ, P_TEST);
                if let Some(n) = &h.name {
                    t.push_str(" as ");
                    t.push_str(n);
                }
            }
            self.block(&t, &h.body);
        }
        if !orelse.is_empty() {
            self.block("else", orelse);
        }
        if !finalbody.is_empty() {
            self.block("finally", finalbody);
        }
    }
}

fn aliases(out: &mut String, names: &[Alias]) {
    for (i, a) in names.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&a.name);
        if let Some(n) = &a.asname {
            out.push_str(" as ");
            out.push_str(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Pos;

    fn e(kind: ExprKind) -> Expr {
        Expr {
            pos: Pos::default(),
            kind,
        }
    }

    fn name(n: &str) -> Expr {
        e(ExprKind::Name(n.to_string()))
    }

    fn bin(op: BinOp, l: Expr, r: Expr) -> Expr {
        e(ExprKind::BinOp {
            op,
            left: Box::new(l),
            right: Box::new(r),
        })
    }

    fn un(op: UnaryOp, x: Expr) -> Expr {
        e(ExprKind::UnaryOp {
            op,
            operand: Box::new(x),
        })
    }

    #[test]
    fn precedence_and_associativity() {
        let (a, b, c) = (name("a"), name("b"), name("c"));
        let sub = |l, r| bin(BinOp::Sub, l, r);
        let pow = |l, r| bin(BinOp::Pow, l, r);
        assert_eq!(
            print_expr(&sub(sub(a.clone(), b.clone()), c.clone())),
            "a - b - c"
        );
        assert_eq!(
            print_expr(&sub(a.clone(), sub(b.clone(), c.clone()))),
            "a - (b - c)"
        );
        assert_eq!(
            print_expr(&pow(a.clone(), pow(b.clone(), c.clone()))),
            "a ** b ** c"
        );
        assert_eq!(
            print_expr(&pow(pow(a.clone(), b.clone()), c.clone())),
            "(a ** b) ** c"
        );
        assert_eq!(
            print_expr(&un(UnaryOp::Neg, pow(a.clone(), b.clone()))),
            "-a ** b"
        );
        assert_eq!(
            print_expr(&pow(un(UnaryOp::Neg, a.clone()), b.clone())),
            "(-a) ** b"
        );
        assert_eq!(
            print_expr(&pow(a.clone(), un(UnaryOp::Neg, b.clone()))),
            "a ** -b"
        );
        assert_eq!(
            print_expr(&pow(e(ExprKind::Int(-2)), b.clone())),
            "(-2) ** b"
        );
        assert_eq!(
            print_expr(&e(ExprKind::Int(i64::MIN))),
            "-9223372036854775808"
        );
        assert_eq!(
            print_expr(&un(UnaryOp::Not, bin(BinOp::Add, a.clone(), b))),
            "not a + b"
        );
        assert_eq!(
            print_expr(&e(ExprKind::Attribute {
                value: Box::new(e(ExprKind::Int(1))),
                attr: "real".into()
            })),
            "(1).real"
        );
        assert_eq!(print_expr(&e(ExprKind::Tuple(vec![a.clone()]))), "(a,)");
        assert_eq!(print_expr(&e(ExprKind::Tuple(vec![]))), "()");
    }

    #[test]
    fn literals() {
        assert_eq!(print_expr(&e(ExprKind::Float(1.0))), "1.0");
        assert_eq!(print_expr(&e(ExprKind::Float(1e300))), "1e300");
        assert_eq!(print_expr(&e(ExprKind::Float(-0.0))), "-0.0");
        assert_eq!(print_expr(&e(ExprKind::Float(f64::INFINITY))), "1e999");
        assert_eq!(
            print_expr(&e(ExprKind::Str("it's \\ \"x\"\n\u{7f}\u{ff}".into()))),
            "'it\\'s \\\\ \"x\"\\n\\x7f\\xff'"
        );
        assert_eq!(print_expr(&e(ExprKind::Str("it's".into()))), "\"it's\"");
    }

    #[test]
    fn never_panics_on_odd_trees() {
        let odd = Module {
            path: "odd.py".into(),
            dialect: Dialect::Py3,
            body: vec![
                Stmt {
                    pos: Pos::default(),
                    kind: StmtKind::Print {
                        values: vec![],
                        newline: false,
                    },
                },
                Stmt {
                    pos: Pos::default(),
                    kind: StmtKind::Try {
                        body: vec![],
                        handlers: vec![],
                        orelse: vec![],
                        finalbody: vec![],
                    },
                },
                Stmt {
                    pos: Pos::default(),
                    kind: StmtKind::Expr(e(ExprKind::BoolOp {
                        op: BoolOp::Or,
                        values: vec![],
                    })),
                },
            ],
        };
        let s = print_module(&odd);
        assert!(s.contains("print(end=' ')"));
        assert!(s.contains("finally:"));
    }
}

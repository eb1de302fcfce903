//! What the grammar's actions call: building AST nodes, and the checks the
//! grammar itself is too permissive for (assignment targets, argument order,
//! dialect-only forms). Checks record an error in `Ctx` and build a best-effort
//! node so parsing goes on and every such error is reported.

use rpy_ir::ast::*;
use rpy_ir::diag::Pos;

/// State shared by the grammar's actions.
pub struct Ctx {
    pub dialect: Dialect,
    pub errors: Vec<(Pos, String)>,
}

impl Ctx {
    pub fn new(dialect: Dialect) -> Ctx {
        Ctx {
            dialect,
            errors: Vec::new(),
        }
    }

    pub fn error(&mut self, pos: Pos, msg: impl Into<String>) {
        self.errors.push((pos, msg.into()));
    }

    /// Errors still pending once the parse is over (none at present).
    pub fn finish(&mut self) {}
}

/// The text of `-2**63` without its sign: the one literal that fits a
/// machine word only when negated.
const MIN_INT_DIGITS: &str = "9223372036854775808";

/// One argument of a call, before the order checks.
pub enum Arg {
    Pos(Expr),
    Kw(Box<(Expr, Expr)>),
    Star(Pos, Expr),
    DoubleStar(Pos, Box<Expr>),
    /// A generator expression without its own parentheses (`f(x for x in y)`).
    Gen(Box<Expr>),
}

/// One parameter of a def or lambda, before the order checks.
pub enum ParamItem {
    Plain(Box<Param>),
    Star(Pos, Option<String>),
    DoubleStar(Pos, String),
}

/// One item between the brackets of a subscript.
pub enum Sub {
    Index(Expr),
    /// Position, lower, upper, and the step if a second colon was written
    /// (boxed to keep the parser's stack entries small).
    Slice(Box<SliceParts>),
}

pub type SliceParts = (Pos, Option<Expr>, Option<Expr>, Option<Option<Expr>>);

/// Which comprehension `make_comp` builds.
pub enum CompKind {
    List,
    Set,
    Gen,
    /// A dict comprehension; the element passed is the key, this the value.
    Dict(Expr),
}

pub enum CompClause {
    For(Box<(Expr, Expr)>),
    If(Expr),
}

pub fn expr(pos: Pos, kind: ExprKind) -> Expr {
    Expr { pos, kind }
}

pub fn stmt(pos: Pos, kind: StmtKind) -> Stmt {
    Stmt { pos, kind }
}

pub fn binop(pos: Pos, op: BinOp, left: Expr, right: Expr) -> Expr {
    expr(
        pos,
        ExprKind::BinOp {
            op,
            left: Box::new(left),
            right: Box::new(right),
        },
    )
}

pub fn unary(pos: Pos, op: UnaryOp, operand: Expr) -> Expr {
    expr(
        pos,
        ExprKind::UnaryOp {
            op,
            operand: Box::new(operand),
        },
    )
}

/// `-x`: a negated number literal folds into a negative literal, as in Python 2
/// (which is what lets `-9223372036854775808` be written).
pub fn negate(ctx: &mut Ctx, pos: Pos, operand: Expr) -> Expr {
    let _ = ctx;
    match operand.kind {
        ExprKind::BigInt(ref s) if s == MIN_INT_DIGITS => expr(pos, ExprKind::Int(i64::MIN)),
        ExprKind::Int(v) => {
            match v.checked_neg() {
                Some(n) => expr(pos, ExprKind::Int(n)),
                // -(-2**63) is 2**63, which no literal can hold: keep the
                // negation as an operation instead of wrapping it silently.
                None => unary(pos, UnaryOp::Neg, operand),
            }
        }
        ExprKind::Float(f) => expr(pos, ExprKind::Float(-f)),
        _ => unary(pos, UnaryOp::Neg, operand),
    }
}

/// An integer literal; one beyond a machine word becomes a `BigInt` (written
/// in decimal), which the flow builder rejects inside functions.
pub fn int_lit(ctx: &mut Ctx, pos: Pos, v: u64) -> Expr {
    let _ = ctx;
    if v <= i64::MAX as u64 {
        expr(pos, ExprKind::Int(v as i64))
    } else {
        expr(pos, ExprKind::BigInt(v.to_string()))
    }
}

/// A string literal: a byte string unless a character is at or above U+0100.
pub fn str_lit(pos: Pos, s: String) -> Expr {
    if s.chars().any(|c| c as u32 >= 0x100) {
        expr(pos, ExprKind::WideStr(s))
    } else {
        expr(pos, ExprKind::Str(s))
    }
}

pub fn boolop(pos: Pos, op: BoolOp, first: Expr, rest: Vec<Expr>) -> Expr {
    let mut values = Vec::with_capacity(rest.len() + 1);
    values.push(first);
    values.extend(rest);
    expr(pos, ExprKind::BoolOp { op, values })
}

pub fn compare(pos: Pos, left: Expr, ops: Vec<(CmpOp, Expr)>) -> Expr {
    expr(
        pos,
        ExprKind::Compare {
            left: Box::new(left),
            ops,
        },
    )
}

/// A comma list: one expression unless there was a comma.
pub fn tuple_or_single(pos: Pos, (mut v, trailing): (Vec<Expr>, bool)) -> Expr {
    if v.len() == 1 && !trailing {
        v.pop()
            .unwrap_or_else(|| expr(pos, ExprKind::Tuple(vec![])))
    } else {
        expr(pos, ExprKind::Tuple(v))
    }
}

fn describe(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Name(_) => "a name",
        ExprKind::Int(_)
        | ExprKind::BigInt(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::WideStr(_)
        | ExprKind::Ellipsis => "a literal",
        ExprKind::Bool(true) => "True",
        ExprKind::Bool(false) => "False",
        ExprKind::None => "None",
        ExprKind::BinOp { .. } | ExprKind::UnaryOp { .. } => "an operator expression",
        ExprKind::BoolOp { .. } => "an 'and'/'or' expression",
        ExprKind::Compare { .. } => "a comparison",
        ExprKind::Call { .. } => "a function call",
        ExprKind::Attribute { .. } => "an attribute",
        ExprKind::Subscript { .. } | ExprKind::Slice { .. } | ExprKind::SliceItem { .. } => {
            "an item"
        }
        ExprKind::Tuple(_) => "a tuple",
        ExprKind::List(_) => "a list",
        ExprKind::Dict(_) => "a dict display",
        ExprKind::IfExp { .. } => "a conditional expression",
        ExprKind::ListComp { .. } => "a list comprehension",
        ExprKind::Lambda { .. } => "a lambda",
        ExprKind::Yield(_) | ExprKind::YieldFrom(_) => "a yield expression",
        ExprKind::Set(_) => "a set display",
        ExprKind::SetComp { .. } => "a set comprehension",
        ExprKind::DictComp { .. } => "a dict comprehension",
        ExprKind::GeneratorExp { .. } => "a generator expression",
        ExprKind::Repr(_) => "a backquote expression",
        ExprKind::Starred(_) => "a starred expression",
    }
}

/// Checks that `e` can be assigned to (`verb` = "assign to") or deleted.
pub fn check_target(ctx: &mut Ctx, e: &Expr, verb: &str) {
    match &e.kind {
        ExprKind::Name(_)
        | ExprKind::Attribute { .. }
        | ExprKind::Subscript { .. }
        | ExprKind::Slice { .. } => {}
        ExprKind::Starred(inner) => check_target(ctx, inner, verb),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            for item in items {
                check_target(ctx, item, verb);
            }
        }
        _ => ctx.error(e.pos, format!("cannot {} {}", verb, describe(e))),
    }
}

pub fn expr_or_assign(ctx: &mut Ctx, pos: Pos, first: Expr, rest: Vec<Expr>) -> Stmt {
    if rest.is_empty() {
        return stmt(pos, StmtKind::Expr(first));
    }
    let mut targets = Vec::with_capacity(rest.len());
    targets.push(first);
    targets.extend(rest);
    let value = targets.pop().unwrap_or_else(|| expr(pos, ExprKind::None));
    for t in &targets {
        check_target(ctx, t, "assign to");
    }
    stmt(pos, StmtKind::Assign { targets, value })
}

pub fn aug_assign(ctx: &mut Ctx, pos: Pos, target: Expr, op: BinOp, value: Expr) -> Stmt {
    match &target.kind {
        ExprKind::Name(_)
        | ExprKind::Attribute { .. }
        | ExprKind::Subscript { .. }
        | ExprKind::Slice { .. } => {}
        _ => ctx.error(
            target.pos,
            format!(
                "cannot use {} as the target of an augmented assignment",
                describe(&target)
            ),
        ),
    }
    stmt(pos, StmtKind::AugAssign { target, op, value })
}

/// `x: T = v` (annotations are dropped); `x: T` alone does nothing.
pub fn ann_assign(ctx: &mut Ctx, pos: Pos, target: Expr, value: Option<Expr>) -> Stmt {
    match &target.kind {
        ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => {}
        _ => ctx.error(target.pos, format!("cannot annotate {}", describe(&target))),
    }
    match value {
        Some(value) => stmt(
            pos,
            StmtKind::Assign {
                targets: vec![target],
                value,
            },
        ),
        None => stmt(pos, StmtKind::Pass),
    }
}

pub fn del(ctx: &mut Ctx, pos: Pos, targets: Vec<Expr>) -> Stmt {
    for t in &targets {
        check_target(ctx, t, "delete");
    }
    stmt(pos, StmtKind::Del(targets))
}

pub fn make_call(ctx: &mut Ctx, pos: Pos, func: Expr, items: Vec<Arg>) -> Expr {
    let (args, keywords, star_args, kwargs) = split_args(ctx, items);
    expr(
        pos,
        ExprKind::Call {
            func: Box::new(func),
            args,
            keywords,
            star_args: star_args.map(Box::new),
            kwargs: kwargs.map(Box::new),
        },
    )
}

type SplitArgs = (Vec<Expr>, Vec<Keyword>, Option<Expr>, Option<Expr>);

fn split_args(ctx: &mut Ctx, items: Vec<Arg>) -> SplitArgs {
    let mut args = Vec::new();
    let mut keywords: Vec<Keyword> = Vec::new();
    let mut star_args = None;
    let mut kwargs: Option<Expr> = None;
    let n = items.len();
    for item in items {
        match item {
            Arg::Pos(e) => {
                if kwargs.is_some() {
                    ctx.error(e.pos, "positional argument follows **kwargs");
                } else if !keywords.is_empty() {
                    ctx.error(e.pos, "positional argument follows a keyword argument");
                } else if star_args.is_some() {
                    ctx.error(e.pos, "positional argument follows *args");
                }
                args.push(e);
            }
            Arg::Kw(kv) => match *kv {
                (
                    Expr {
                        kind: ExprKind::Name(name),
                        pos,
                    },
                    value,
                ) => {
                    if keywords.iter().any(|kw| kw.name == name) {
                        ctx.error(pos, format!("keyword argument '{}' repeated", name));
                    }
                    keywords.push(Keyword { name, value });
                }
                (k, _) => ctx.error(k.pos, "a keyword argument's name must be a plain name"),
            },
            Arg::Star(p, e) => {
                if star_args.is_some() {
                    ctx.error(p, "only one *args is allowed in a call");
                } else if kwargs.is_some() {
                    ctx.error(p, "*args follows **kwargs");
                } else {
                    star_args = Some(e);
                }
            }
            Arg::DoubleStar(p, e) => {
                if kwargs.is_some() {
                    ctx.error(p, "only one **kwargs is allowed in a call");
                } else {
                    kwargs = Some(*e);
                }
            }
            Arg::Gen(g) => {
                if n != 1 {
                    ctx.error(
                        g.pos,
                        "a generator expression must be parenthesized if it is not the sole argument",
                    );
                }
                args.push(*g);
            }
        }
    }
    (args, keywords, star_args, kwargs)
}

/// The parameters of a def or lambda, split by kind.
pub struct Params {
    pub params: Vec<Param>,
    pub star_args: Option<String>,
    pub kwonly: Vec<Param>,
    pub kwargs: Option<String>,
}

/// A Python 2 tuple parameter `(a, b)`: a synthetic name (filled in by
/// `make_params` from its position) with the pattern in `unpack`.
pub fn tuple_param(
    ctx: &mut Ctx,
    pos: Pos,
    items: (Vec<Expr>, bool),
    default: Option<Expr>,
) -> ParamItem {
    if ctx.dialect == Dialect::Py3 {
        ctx.error(pos, "tuple parameters are Python 2 syntax");
    }
    let unpack = tuple_or_single(pos, items);
    match unpack.kind {
        // `def f((a))` is just `def f(a)`.
        ExprKind::Name(name) => ParamItem::Plain(Box::new(Param {
            pos,
            name,
            default,
            unpack: None,
        })),
        _ => ParamItem::Plain(Box::new(Param {
            pos,
            name: String::new(),
            default,
            unpack: Some(unpack),
        })),
    }
}

fn unpack_names<'e>(e: &'e Expr, out: &mut Vec<(Pos, &'e str)>) {
    match &e.kind {
        ExprKind::Name(n) => out.push((e.pos, n)),
        ExprKind::Tuple(items) => items.iter().for_each(|i| unpack_names(i, out)),
        _ => {}
    }
}

pub fn make_params(ctx: &mut Ctx, items: Vec<ParamItem>) -> Params {
    let mut params: Vec<Param> = Vec::new();
    let mut kwonly: Vec<Param> = Vec::new();
    let mut star: Option<String> = None;
    let mut kwargs: Option<String> = None;
    let mut seen_star = false;
    let mut star_pos = Pos::default();
    let mut seen_default = false;
    let mut names: Vec<String> = Vec::new();
    let mut check_dup = |ctx: &mut Ctx, pos: Pos, name: &str| {
        if names.iter().any(|n| n == name) {
            ctx.error(pos, format!("duplicate parameter '{}'", name));
        } else {
            names.push(name.to_string());
        }
    };
    for item in items {
        if kwargs.is_some() {
            let pos = match &item {
                ParamItem::Plain(p) => p.pos,
                ParamItem::Star(p, _) | ParamItem::DoubleStar(p, _) => *p,
            };
            ctx.error(pos, "no parameter may follow '**kwargs'");
        }
        match item {
            ParamItem::Plain(p) => {
                let mut p = *p;
                if let Some(u) = &p.unpack {
                    let mut inner = Vec::new();
                    unpack_names(u, &mut inner);
                    for (q, n) in inner {
                        check_dup(ctx, q, n);
                    }
                    p.name = format!(".{}", params.len());
                } else {
                    check_dup(ctx, p.pos, &p.name);
                }
                if seen_star {
                    kwonly.push(p);
                    continue;
                } else if p.default.is_some() {
                    seen_default = true;
                } else if seen_default {
                    ctx.error(
                        p.pos,
                        format!(
                            "parameter '{}' without a default follows a parameter with a default",
                            p.name
                        ),
                    );
                }
                params.push(p);
            }
            ParamItem::Star(pos, name) => {
                if seen_star {
                    ctx.error(pos, "only one '*' parameter is allowed");
                }
                seen_star = true;
                star_pos = pos;
                if let Some(n) = name {
                    check_dup(ctx, pos, &n);
                    star = Some(n);
                }
            }
            ParamItem::DoubleStar(pos, name) => {
                check_dup(ctx, pos, &name);
                kwargs = Some(name);
            }
        }
    }
    if seen_star && star.is_none() && kwonly.is_empty() {
        ctx.error(
            star_pos,
            "a bare '*' must be followed by keyword-only parameters",
        );
    }
    Params {
        params,
        star_args: star,
        kwonly,
        kwargs,
    }
}

pub fn make_def(
    ctx: &mut Ctx,
    pos: Pos,
    name: &str,
    items: Vec<ParamItem>,
    body: Vec<Stmt>,
) -> Stmt {
    let p = make_params(ctx, items);
    stmt(
        pos,
        StmtKind::FunctionDef {
            name: name.to_string(),
            params: p.params,
            star_args: p.star_args,
            kwonly: p.kwonly,
            kwargs: p.kwargs,
            decorators: Vec::new(),
            body,
        },
    )
}

pub fn make_lambda(ctx: &mut Ctx, pos: Pos, items: Vec<ParamItem>, body: Expr) -> Expr {
    let p = make_params(ctx, items);
    expr(
        pos,
        ExprKind::Lambda {
            params: p.params,
            star_args: p.star_args,
            kwonly: p.kwonly,
            kwargs: p.kwargs,
            body: Box::new(body),
        },
    )
}

pub fn make_class(
    ctx: &mut Ctx,
    pos: Pos,
    name: &str,
    args: Option<Vec<Arg>>,
    body: Vec<Stmt>,
) -> Stmt {
    let mut bases = Vec::new();
    for a in args.unwrap_or_default() {
        match a {
            Arg::Pos(e) => bases.push(e),
            Arg::Kw(kv) => ctx.error(
                kv.0.pos,
                "keyword arguments in a class statement (such as metaclass=...) are not supported",
            ),
            Arg::Star(p, _) | Arg::DoubleStar(p, _) => {
                ctx.error(p, "'*' in a class statement's bases is not supported")
            }
            Arg::Gen(g) => bases.push(*g),
        }
    }
    stmt(
        pos,
        StmtKind::ClassDef {
            name: name.to_string(),
            bases,
            decorators: Vec::new(),
            body,
        },
    )
}

pub fn decorate(decs: Vec<Expr>, mut s: Stmt) -> Stmt {
    match &mut s.kind {
        StmtKind::FunctionDef { decorators, .. } | StmtKind::ClassDef { decorators, .. } => {
            *decorators = decs
        }
        _ => {}
    }
    s
}

pub fn make_subscript(
    _ctx: &mut Ctx,
    pos: Pos,
    value: Expr,
    (mut items, trailing): (Vec<Sub>, bool),
) -> Expr {
    if items.len() == 1 && !trailing {
        match items.pop() {
            Some(Sub::Index(index)) => {
                return expr(
                    pos,
                    ExprKind::Subscript {
                        value: Box::new(value),
                        index: Box::new(index),
                    },
                )
            }
            Some(Sub::Slice(parts)) => {
                let (spos, lower, upper, step) = *parts;
                if let Some(Some(step)) = step {
                    let item = slice_item(spos, lower, upper, Some(step));
                    return expr(
                        pos,
                        ExprKind::Subscript {
                            value: Box::new(value),
                            index: Box::new(item),
                        },
                    );
                }
                return expr(
                    pos,
                    ExprKind::Slice {
                        value: Box::new(value),
                        lower: lower.map(Box::new),
                        upper: upper.map(Box::new),
                    },
                );
            }
            None => {}
        }
    }
    // `a[i, j]`: the index is a tuple.
    let tpos = match items.first() {
        Some(Sub::Index(e)) => e.pos,
        Some(Sub::Slice(parts)) => parts.0,
        None => pos,
    };
    let mut elts = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Sub::Index(e) => elts.push(e),
            Sub::Slice(parts) => {
                let (spos, lower, upper, step) = *parts;
                elts.push(slice_item(spos, lower, upper, step.flatten()));
            }
        }
    }
    expr(
        pos,
        ExprKind::Subscript {
            value: Box::new(value),
            index: Box::new(expr(tpos, ExprKind::Tuple(elts))),
        },
    )
}

fn slice_item(pos: Pos, lower: Option<Expr>, upper: Option<Expr>, step: Option<Expr>) -> Expr {
    expr(
        pos,
        ExprKind::SliceItem {
            lower: lower.map(Box::new),
            upper: upper.map(Box::new),
            step: step.map(Box::new),
        },
    )
}

pub fn make_comp(
    ctx: &mut Ctx,
    pos: Pos,
    elt: Expr,
    (target, iter, rest): (Expr, Expr, Vec<CompClause>),
    kind: CompKind,
) -> Expr {
    check_target(ctx, &target, "assign to");
    let mut generators = vec![Comprehension {
        target,
        iter,
        ifs: Vec::new(),
    }];
    for clause in rest {
        match clause {
            CompClause::For(ti) => {
                let (target, iter) = *ti;
                check_target(ctx, &target, "assign to");
                generators.push(Comprehension {
                    target,
                    iter,
                    ifs: Vec::new(),
                });
            }
            CompClause::If(cond) => {
                if let Some(g) = generators.last_mut() {
                    g.ifs.push(cond);
                }
            }
        }
    }
    let elt = Box::new(elt);
    let kind = match kind {
        CompKind::List => ExprKind::ListComp { elt, generators },
        CompKind::Set => ExprKind::SetComp { elt, generators },
        CompKind::Gen => ExprKind::GeneratorExp { elt, generators },
        CompKind::Dict(value) => ExprKind::DictComp {
            key: elt,
            value: Box::new(value),
            generators,
        },
    };
    expr(pos, kind)
}

/// A construct that is parsed only to be rejected; yields a placeholder.
pub fn unsupported(ctx: &mut Ctx, pos: Pos, msg: &str) -> Expr {
    ctx.error(pos, msg);
    expr(pos, ExprKind::None)
}

/// The most `elif` branches one `if` may have: each nests one level deeper in
/// the tree, and the tree must stay shallow enough to walk recursively.
const MAX_ELIFS: usize = 1000;

pub fn make_if(
    ctx: &mut Ctx,
    pos: Pos,
    test: Expr,
    body: Vec<Stmt>,
    mut elifs: Vec<(Pos, Expr, Vec<Stmt>)>,
    orelse: Option<Vec<Stmt>>,
) -> Stmt {
    if elifs.len() > MAX_ELIFS {
        ctx.error(
            elifs[MAX_ELIFS].0,
            format!("too many 'elif' branches (more than {})", MAX_ELIFS),
        );
        elifs.truncate(MAX_ELIFS);
    }
    let mut orelse = orelse.unwrap_or_default();
    for (p, t, b) in elifs.into_iter().rev() {
        orelse = vec![stmt(
            p,
            StmtKind::If {
                test: t,
                body: b,
                orelse,
            },
        )];
    }
    stmt(pos, StmtKind::If { test, body, orelse })
}

pub fn make_for(
    ctx: &mut Ctx,
    pos: Pos,
    target: Expr,
    iter: Expr,
    body: Vec<Stmt>,
    orelse: Option<Vec<Stmt>>,
) -> Stmt {
    check_target(ctx, &target, "assign to");
    stmt(
        pos,
        StmtKind::For {
            target,
            iter,
            body,
            orelse: orelse.unwrap_or_default(),
        },
    )
}

pub fn make_try(
    ctx: &mut Ctx,
    pos: Pos,
    body: Vec<Stmt>,
    handlers: Vec<ExceptHandler>,
    orelse: Option<Vec<Stmt>>,
    finalbody: Option<Vec<Stmt>>,
) -> Stmt {
    let n = handlers.len();
    for (i, h) in handlers.iter().enumerate() {
        if h.typ.is_none() && i + 1 < n {
            ctx.error(h.pos, "a bare 'except:' must be the last except clause");
        }
    }
    stmt(
        pos,
        StmtKind::Try {
            body,
            handlers,
            orelse: orelse.unwrap_or_default(),
            finalbody: finalbody.unwrap_or_default(),
        },
    )
}

/// `except E, e:` — Python 2 only; the bound target must be a plain name.
pub fn except_comma(
    ctx: &mut Ctx,
    pos: Pos,
    typ: Expr,
    name: Expr,
    body: Vec<Stmt>,
) -> ExceptHandler {
    if ctx.dialect == Dialect::Py3 {
        ctx.error(
            name.pos,
            "'except E, e:' is Python 2 syntax; use 'except E as e:' (or parse as Python 2)",
        );
    }
    let name = match name.kind {
        ExprKind::Name(n) => Some(n),
        _ => {
            ctx.error(
                name.pos,
                "only a plain name can receive the exception in 'except E, name:'",
            );
            None
        }
    };
    ExceptHandler {
        pos,
        typ: Some(typ),
        name,
        body,
    }
}

/// `raise E, x [, tb]` — Python 2 only.
pub fn raise_comma(ctx: &mut Ctx, pos: Pos, exc: Expr, arg: Expr, tb: Option<Expr>) -> Stmt {
    if ctx.dialect == Dialect::Py3 {
        ctx.error(
            arg.pos,
            "'raise E, x' is Python 2 syntax; use 'raise E(x)' (or parse as Python 2)",
        );
    }
    stmt(
        pos,
        StmtKind::Raise {
            exc: Some(exc),
            arg: Some(arg),
            tb,
            cause: None,
        },
    )
}

pub fn import_from(
    ctx: &mut Ctx,
    pos: Pos,
    level: u32,
    module: Option<String>,
    names: Vec<Alias>,
) -> Stmt {
    if level == 0 && module.is_none() {
        ctx.error(pos, "expected a module name after 'from'");
    }
    stmt(
        pos,
        StmtKind::ImportFrom {
            module: module.unwrap_or_default(),
            names,
            level,
        },
    )
}

/// `exec code [in globals [, locals]]` (Python 2).
pub fn make_exec(pos: Pos, code: Expr, globals: Option<Expr>, locals: Option<Expr>) -> Stmt {
    stmt(
        pos,
        StmtKind::Exec {
            code,
            globals,
            locals,
        },
    )
}

pub fn make_with(
    ctx: &mut Ctx,
    pos: Pos,
    first: WithItem,
    rest: Vec<WithItem>,
    body: Vec<Stmt>,
) -> Stmt {
    let mut items = Vec::with_capacity(rest.len() + 1);
    items.push(first);
    items.extend(rest);
    for item in &items {
        if let Some(t) = &item.target {
            check_target(ctx, t, "assign to");
        }
    }
    stmt(pos, StmtKind::With { items, body })
}

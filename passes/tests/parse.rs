//! Tests of the parse stage: source text to AST, both dialects, and the
//! diagnostics for bad input.

use rpy_ir::ast::*;
use rpy_ir::diag::{Diagnostics, Pos};
use rpy_passes::parse::{detect_dialect, parse_module};

// ------------------------------------------------------------------ rendering

/// A compact s-expression rendering of the AST, without positions.
fn ex(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Name(n) => n.clone(),
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Float(f) => format!("{:?}", f),
        ExprKind::Str(s) => format!("{:?}", s),
        ExprKind::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        ExprKind::None => "None".to_string(),
        ExprKind::BinOp { op, left, right } => {
            format!("({} {} {})", op.symbol(), ex(left), ex(right))
        }
        ExprKind::UnaryOp { op, operand } => {
            let o = match op {
                UnaryOp::Neg => "neg",
                UnaryOp::Pos => "pos",
                UnaryOp::Not => "not",
                UnaryOp::Invert => "inv",
            };
            format!("({} {})", o, ex(operand))
        }
        ExprKind::BoolOp { op, values } => {
            let o = match op {
                BoolOp::And => "and",
                BoolOp::Or => "or",
            };
            format!("({} {})", o, exs(values))
        }
        ExprKind::Compare { left, ops } => {
            let mut s = format!("(cmp {}", ex(left));
            for (op, e) in ops {
                s += &format!(" {} {}", op.symbol(), ex(e));
            }
            s + ")"
        }
        ExprKind::Call {
            func,
            args,
            keywords,
            star_args,
            kwargs,
        } => {
            let mut parts = vec![ex(func)];
            parts.extend(args.iter().map(ex));
            parts.extend(
                keywords
                    .iter()
                    .map(|k| format!("{}={}", k.name, ex(&k.value))),
            );
            if let Some(s) = star_args {
                parts.push(format!("*{}", ex(s)));
            }
            if let Some(k) = kwargs {
                parts.push(format!("**{}", ex(k)));
            }
            format!("(call {})", parts.join(" "))
        }
        ExprKind::Attribute { value, attr } => format!("{}.{}", ex(value), attr),
        ExprKind::Subscript { value, index } => format!("{}[{}]", ex(value), ex(index)),
        ExprKind::Slice {
            value,
            lower,
            upper,
        } => format!(
            "{}[{}:{}]",
            ex(value),
            lower.as_ref().map(|e| ex(e)).unwrap_or_default(),
            upper.as_ref().map(|e| ex(e)).unwrap_or_default()
        ),
        ExprKind::Tuple(v) => format!("(tuple{}{})", if v.is_empty() { "" } else { " " }, exs(v)),
        ExprKind::List(v) => format!("[{}]", exs(v)),
        ExprKind::Dict(items) => format!(
            "{{{}}}",
            items
                .iter()
                .map(|(k, v)| format!("{}: {}", ex(k), ex(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ExprKind::IfExp { test, body, orelse } => {
            format!("(ifexp {} {} {})", ex(test), ex(body), ex(orelse))
        }
        ExprKind::ListComp { elt, generators } => {
            let mut s = format!("(listcomp {}", ex(elt));
            for g in generators {
                s += &format!(" (for {} {}", ex(&g.target), ex(&g.iter));
                for c in &g.ifs {
                    s += &format!(" (if {})", ex(c));
                }
                s += ")";
            }
            s + ")"
        }
        ExprKind::Lambda {
            params,
            star_args,
            body,
            ..
        } => {
            format!("(lambda ({}) {})", params_str(params, star_args), ex(body))
        }
        // The newer nodes read as their source text.
        _ => format!("<{}>", rpy_ir::ast_print::print_expr(e)),
    }
}

fn exs(v: &[Expr]) -> String {
    v.iter().map(ex).collect::<Vec<_>>().join(" ")
}

fn params_str(params: &[Param], star: &Option<String>) -> String {
    let mut parts: Vec<String> = params
        .iter()
        .map(|p| match &p.default {
            Some(d) => format!("{}={}", p.name, ex(d)),
            None => p.name.clone(),
        })
        .collect();
    if let Some(s) = star {
        parts.push(format!("*{}", s));
    }
    parts.join(" ")
}

fn block(v: &[Stmt]) -> String {
    v.iter().map(st).collect::<Vec<_>>().join(" ")
}

fn st(s: &Stmt) -> String {
    match &s.kind {
        StmtKind::FunctionDef {
            name,
            params,
            star_args,
            decorators,
            body,
            ..
        } => {
            let decs: String = decorators.iter().map(|d| format!("@{} ", ex(d))).collect();
            format!(
                "({}def {} ({}) {})",
                decs,
                name,
                params_str(params, star_args),
                block(body)
            )
        }
        StmtKind::ClassDef {
            name,
            bases,
            decorators,
            body,
        } => {
            let decs: String = decorators.iter().map(|d| format!("@{} ", ex(d))).collect();
            format!("({}class {} ({}) {})", decs, name, exs(bases), block(body))
        }
        StmtKind::Return(None) => "(return)".to_string(),
        StmtKind::Return(Some(e)) => format!("(return {})", ex(e)),
        StmtKind::Assign { targets, value } => format!("(= {} {})", exs(targets), ex(value)),
        StmtKind::AugAssign { target, op, value } => {
            format!("({}= {} {})", op.symbol(), ex(target), ex(value))
        }
        StmtKind::If { test, body, orelse } => {
            if orelse.is_empty() {
                format!("(if {} ({}))", ex(test), block(body))
            } else {
                format!("(if {} ({}) ({}))", ex(test), block(body), block(orelse))
            }
        }
        StmtKind::While { test, body, orelse } => {
            format!("(while {} ({}) ({}))", ex(test), block(body), block(orelse))
        }
        StmtKind::For {
            target,
            iter,
            body,
            orelse,
        } => format!(
            "(for {} {} ({}) ({}))",
            ex(target),
            ex(iter),
            block(body),
            block(orelse)
        ),
        StmtKind::Break => "(break)".to_string(),
        StmtKind::Continue => "(continue)".to_string(),
        StmtKind::Pass => "(pass)".to_string(),
        StmtKind::Print { values, newline } => {
            format!("(print{} {})", if *newline { "" } else { "," }, exs(values))
        }
        StmtKind::Expr(e) => ex(e),
        StmtKind::Global(names) => format!("(global {})", names.join(" ")),
        StmtKind::Import(names) => format!("(import {})", aliases(names)),
        StmtKind::ImportFrom {
            module,
            names,
            level,
        } => format!(
            "(from {}{} {})",
            ".".repeat(*level as usize),
            module,
            aliases(names)
        ),
        StmtKind::Assert { test, msg } => match msg {
            Some(m) => format!("(assert {} {})", ex(test), ex(m)),
            None => format!("(assert {})", ex(test)),
        },
        StmtKind::Raise { exc, arg, .. } => {
            let mut s = "(raise".to_string();
            if let Some(e) = exc {
                s += &format!(" {}", ex(e));
            }
            if let Some(a) = arg {
                s += &format!(" , {}", ex(a));
            }
            s + ")"
        }
        StmtKind::Try {
            body,
            handlers,
            orelse,
            finalbody,
        } => {
            let mut s = format!("(try ({})", block(body));
            for h in handlers {
                s += " (except";
                if let Some(t) = &h.typ {
                    s += &format!(" {}", ex(t));
                }
                if let Some(n) = &h.name {
                    s += &format!(" as {}", n);
                }
                s += &format!(" ({}))", block(&h.body));
            }
            if !orelse.is_empty() {
                s += &format!(" (else {})", block(orelse));
            }
            if !finalbody.is_empty() {
                s += &format!(" (finally {})", block(finalbody));
            }
            s + ")"
        }
        StmtKind::Del(v) => format!("(del {})", exs(v)),
        // The newer nodes read as their source text.
        _ => {
            let m = Module {
                path: String::new(),
                dialect: Dialect::Py2,
                body: vec![s.clone()],
            };
            format!("<{}>", rpy_ir::ast_print::print_module(&m).trim_end())
        }
    }
}

fn aliases(v: &[Alias]) -> String {
    v.iter()
        .map(|a| match &a.asname {
            Some(n) => format!("{} as {}", a.name, n),
            None => a.name.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

// ------------------------------------------------------------------ helpers

fn parse(d: Dialect, src: &str) -> Module {
    match parse_module("t.py", src, d) {
        Ok(m) => m,
        Err(e) => panic!("parse failed for {:?}:\n{}", src, e),
    }
}

/// Parses `src` and renders it; statements are separated by newlines.
fn render(d: Dialect, src: &str) -> String {
    let m = parse(d, src);
    m.body.iter().map(st).collect::<Vec<_>>().join("\n")
}

fn p2(src: &str) -> String {
    render(Dialect::Py2, src)
}

fn p3(src: &str) -> String {
    render(Dialect::Py3, src)
}

/// Renders the expression statement `src` in both dialects (which must agree).
fn expr(src: &str) -> String {
    let a = p2(src);
    let b = p3(src);
    assert_eq!(a, b, "dialects disagree on {:?}", src);
    a
}

fn err(d: Dialect, src: &str) -> Diagnostics {
    match parse_module("prog.py", src, d) {
        Ok(m) => panic!("expected an error for {:?}, got {:?}", src, m.body),
        Err(e) => e,
    }
}

/// The first diagnostic as "line:col: message".
fn err1(d: Dialect, src: &str) -> String {
    let e = err(d, src);
    let d = &e.0[0];
    assert_eq!(d.file, "prog.py");
    format!("{}:{}: {}", d.pos.line, d.pos.col, d.message)
}

fn e2(src: &str) -> String {
    err1(Dialect::Py2, src)
}

fn e3(src: &str) -> String {
    err1(Dialect::Py3, src)
}

// ------------------------------------------------------------------ expressions

#[test]
fn literals() {
    assert_eq!(expr("1"), "1");
    assert_eq!(expr("0x1F"), "31");
    assert_eq!(expr("0X1f"), "31");
    assert_eq!(expr("0o777"), "511");
    assert_eq!(expr("0b101"), "5");
    assert_eq!(expr("1.5"), "1.5");
    assert_eq!(expr("1e10"), "10000000000.0");
    assert_eq!(expr(".5"), "0.5");
    assert_eq!(expr("5."), "5.0");
    assert_eq!(expr("1.5e-3"), "0.0015");
    assert_eq!(expr("1E+2"), "100.0");
    assert_eq!(expr("07.5"), "7.5");
    assert_eq!(expr("True, False, None"), "(tuple True False None)");
    assert_eq!(expr("9223372036854775807"), "9223372036854775807");
    assert_eq!(expr("-9223372036854775808"), "-9223372036854775808");
    assert_eq!(expr("-5"), "-5");
    assert_eq!(expr("-x"), "(neg x)");
    assert_eq!(expr("-2.5"), "-2.5");
}

#[test]
fn py2_int_literals() {
    assert_eq!(p2("0777"), "511");
    assert_eq!(p2("00"), "0");
    assert_eq!(p2("10L"), "10");
    assert_eq!(p2("10l"), "10");
    assert_eq!(p2("0x10L"), "16");
    assert_eq!(p2("0"), "0");
}

#[test]
fn py3_int_literals() {
    assert_eq!(p3("1_000_000"), "1000000");
    assert_eq!(p3("0x_ff"), "255");
    assert_eq!(p3("1_0.5"), "10.5");
    assert_eq!(p3("00"), "0");
}

#[test]
fn strings() {
    assert_eq!(expr(r#"'abc'"#), r#""abc""#);
    assert_eq!(expr(r#""a'b""#), r#""a'b""#);
    assert_eq!(expr(r#"'a\'b\"c'"#), r#""a'b\"c""#);
    assert_eq!(
        expr(r#"'\n\t\\\a\b\f\v\r\0'"#),
        r#""\n\t\\\u{7}\u{8}\u{c}\u{b}\r\0""#
    );
    assert_eq!(expr(r#"'\x41\101\7'"#), r#""AA\u{7}""#);
    assert_eq!(expr(r#"'\xff'"#), "\"\u{ff}\"");
    assert_eq!(expr(r#"'\q\d'"#), r#""\\q\\d""#);
    assert_eq!(expr(r#"r'\n\'x'"#), r#""\\n\\'x""#);
    assert_eq!(expr(r#"R"\d""#), r#""\\d""#);
    assert_eq!(expr(r#"b'ab' b"c""#), r#""abc""#);
    assert_eq!(expr(r#"u'x'"#), r#""x""#);
    assert_eq!(expr(r#"br'\d'"#), r#""\\d""#);
    assert_eq!(expr("'a' 'b'  \"c\""), r#""abc""#);
    assert_eq!(expr("('a'\n 'b')"), r#""ab""#);
    assert_eq!(expr("'''a\nb'''"), r#""a\nb""#);
    assert_eq!(expr("\"\"\"a\"b\"\"c\"\"\""), r#""a\"b\"\"c""#);
    assert_eq!(expr("'a\\\nb'"), r#""ab""#);
    assert_eq!(expr("'''a\r\nb'''"), r#""a\nb""#);
    assert_eq!(expr("''"), r#""""#);
    assert_eq!(expr("''''''"), r#""""#);
}

#[test]
fn string_dialects() {
    // Python 2 str: the UTF-8 bytes of the source, one char per byte.
    assert_eq!(p2("'é'"), "\"\u{c3}\u{a9}\"");
    assert_eq!(p2("u'é'"), "\"é\"");
    assert_eq!(p2(r#"u'\u00e9'"#), "\"é\"");
    assert_eq!(p2(r#"'\u00e9'"#), r#""\\u00e9""#);
    assert_eq!(p2(r#"ur'\d'"#), r#""\\d""#);
    // Python 3 str: characters, which must be below U+0100.
    assert_eq!(p3("'é'"), "\"é\"");
    assert_eq!(p3(r#"'\u00e9'"#), "\"é\"");
    assert_eq!(p3(r#"b'\u00e9'"#), r#""\\u00e9""#);
    assert_eq!(p3(r#"rb'\d'"#), r#""\\d""#);
    // unicode_literals makes py2 plain strings unicode.
    assert_eq!(
        p2("from __future__ import unicode_literals\n'é'"),
        "(from __future__ unicode_literals)\n\"é\""
    );
}

#[test]
fn precedence() {
    assert_eq!(expr("a + b * c"), "(+ a (* b c))");
    assert_eq!(expr("a * b + c"), "(+ (* a b) c)");
    assert_eq!(expr("a - b - c"), "(- (- a b) c)");
    assert_eq!(expr("a ** b ** c"), "(** a (** b c))");
    assert_eq!(expr("-a ** b"), "(neg (** a b))");
    assert_eq!(expr("-2 ** 2"), "(neg (** 2 2))");
    assert_eq!(expr("a ** -b"), "(** a (neg b))");
    assert_eq!(expr("~a + +b"), "(+ (inv a) (pos b))");
    assert_eq!(
        expr("a | b ^ c & d << e + f"),
        "(| a (^ b (& c (<< d (+ e f)))))"
    );
    assert_eq!(expr("a >> 1 << 2"), "(<< (>> a 1) 2)");
    assert_eq!(expr("a / b // c % d"), "(% (// (/ a b) c) d)");
    assert_eq!(expr("not a == b"), "(not (cmp a == b))");
    assert_eq!(expr("a and b or c and d"), "(or (and a b) (and c d))");
    assert_eq!(expr("a or b or c"), "(or a b c)");
    assert_eq!(expr("not not a"), "(not (not a))");
    assert_eq!(expr("a and not b"), "(and a (not b))");
    assert_eq!(expr("(a + b) * c"), "(* (+ a b) c)");
    assert_eq!(expr("a if b else c"), "(ifexp b a c)");
    assert_eq!(
        expr("a if b else c if d else e"),
        "(ifexp b a (ifexp d c e))"
    );
    assert_eq!(
        expr("a or b if c or d else e"),
        "(ifexp (or c d) (or a b) e)"
    );
    assert_eq!(expr("lambda: 1"), "(lambda () 1)");
    assert_eq!(expr("lambda x, y=2: x + y"), "(lambda (x y=2) (+ x y))");
    assert_eq!(
        expr("lambda x: a if x else b"),
        "(lambda (x) (ifexp x a b))"
    );
}

#[test]
fn comparisons() {
    assert_eq!(expr("a < b"), "(cmp a < b)");
    assert_eq!(expr("a < b <= c"), "(cmp a < b <= c)");
    assert_eq!(expr("a == b != c > d >= e"), "(cmp a == b != c > d >= e)");
    assert_eq!(expr("a is b"), "(cmp a is b)");
    assert_eq!(expr("a is not b"), "(cmp a is not b)");
    assert_eq!(expr("a in b"), "(cmp a in b)");
    assert_eq!(expr("a not in b"), "(cmp a not in b)");
    assert_eq!(expr("a is not None"), "(cmp a is not None)");
    assert_eq!(p2("a <> b"), "(cmp a != b)");
    assert_eq!(expr("a + 1 < b * 2"), "(cmp (+ a 1) < (* b 2))");
}

#[test]
fn trailers() {
    assert_eq!(expr("f()"), "(call f)");
    assert_eq!(expr("f(a, b)"), "(call f a b)");
    assert_eq!(expr("f(a, b,)"), "(call f a b)");
    assert_eq!(expr("f(a, k=1, j=x+1)"), "(call f a k=1 j=(+ x 1))");
    assert_eq!(expr("f(*args)"), "(call f *args)");
    assert_eq!(expr("f(a, *args)"), "(call f a *args)");
    assert_eq!(expr("f(a, *args, k=2)"), "(call f a k=2 *args)");
    assert_eq!(expr("a.b.c"), "a.b.c");
    assert_eq!(expr("a.b(c).d[e]"), "(call a.b c).d[e]");
    assert_eq!(expr("a[1]"), "a[1]");
    assert_eq!(expr("a[i][j]"), "a[i][j]");
    assert_eq!(expr("a[1, 2]"), "a[(tuple 1 2)]");
    assert_eq!(expr("a[1,]"), "a[(tuple 1)]");
    assert_eq!(expr("a[i:j]"), "a[i:j]");
    assert_eq!(expr("a[:j]"), "a[:j]");
    assert_eq!(expr("a[i:]"), "a[i:]");
    assert_eq!(expr("a[:]"), "a[:]");
    assert_eq!(expr("a[i:j:]"), "a[i:j]");
    assert_eq!(expr("a[i+1:-1]"), "a[(+ i 1):-1]");
    assert_eq!(expr("f(x)(y)"), "(call (call f x) y)");
    assert_eq!(expr("'%s' % x"), "(% \"%s\" x)");
    assert_eq!(expr("'a'.join(x)"), "(call \"a\".join x)");
}

#[test]
fn displays() {
    assert_eq!(expr("()"), "(tuple)");
    assert_eq!(expr("(1,)"), "(tuple 1)");
    assert_eq!(expr("(1, 2)"), "(tuple 1 2)");
    assert_eq!(expr("1, 2"), "(tuple 1 2)");
    assert_eq!(expr("1,"), "(tuple 1)");
    assert_eq!(expr("(1)"), "1");
    assert_eq!(expr("((1, 2), 3)"), "(tuple (tuple 1 2) 3)");
    assert_eq!(expr("[]"), "[]");
    assert_eq!(expr("[1]"), "[1]");
    assert_eq!(expr("[1, 2,]"), "[1 2]");
    assert_eq!(expr("{}"), "{}");
    assert_eq!(expr("{1: 2}"), "{1: 2}");
    assert_eq!(expr("{'a': 1, 'b': [2],}"), "{\"a\": 1, \"b\": [2]}");
    assert_eq!(expr("[x * 2 for x in xs]"), "(listcomp (* x 2) (for x xs))");
    assert_eq!(
        expr("[x for x in xs if x if y > 0]"),
        "(listcomp x (for x xs (if x) (if (cmp y > 0))))"
    );
    assert_eq!(
        expr("[(i, j) for i in range(3) for j in range(i) if i != j]"),
        "(listcomp (tuple i j) (for i (call range 3)) (for j (call range i) (if (cmp i != j))))"
    );
    assert_eq!(
        expr("[a for a, b in pairs]"),
        "(listcomp a (for (tuple a b) pairs))"
    );
    assert_eq!(
        expr("[a if c else b for a in xs]"),
        "(listcomp (ifexp c a b) (for a xs))"
    );
}

#[test]
fn nested_forms() {
    assert_eq!(
        expr("[x for x in y if x not in z]"),
        "(listcomp x (for x y (if (cmp x not in z))))"
    );
    assert_eq!(
        expr("[x for x in (a if b else c)]"),
        "(listcomp x (for x (ifexp b a c)))"
    );
    assert_eq!(
        expr("for x in a if b else c: pass"),
        "(for x (ifexp b a c) ((pass)) ())"
    );
    assert_eq!(
        expr("def f(key=lambda x: x, n=-1): pass"),
        "(def f (key=(lambda (x) x) n=-1) (pass))"
    );
    assert_eq!(
        expr("d = {'a': lambda x: x, 'b': [1, {2: 3}]}"),
        "(= d {\"a\": (lambda (x) x), \"b\": [1 {2: 3}]})"
    );
    assert_eq!(expr("a[x if y else z]"), "a[(ifexp y x z)]");
    assert_eq!(expr("f(x=a if b else c)"), "(call f x=(ifexp b a c))");
    assert_eq!(expr("f(lambda: 0)"), "(call f (lambda () 0))");
    assert_eq!(expr("not a in b"), "(not (cmp a in b))");
    assert_eq!(
        expr("-a.b(c)[d] ** -e"),
        "(neg (** (call a.b c)[d] (neg e)))"
    );
    assert_eq!(
        expr("x = y if z else (lambda: w)"),
        "(= x (ifexp z y (lambda () w)))"
    );
    assert_eq!(
        expr("a = [[0] * n for _ in range(m)]"),
        "(= a (listcomp (* [0] n) (for _ (call range m))))"
    );
}

// ------------------------------------------------------------------ statements

#[test]
fn simple_statements() {
    assert_eq!(expr("pass"), "(pass)");
    assert_eq!(expr("x = 1"), "(= x 1)");
    assert_eq!(expr("a = b = 1"), "(= a b 1)");
    assert_eq!(expr("a, b = t"), "(= (tuple a b) t)");
    assert_eq!(expr("a, b = b, a"), "(= (tuple a b) (tuple b a))");
    assert_eq!(expr("(a, b), c = t"), "(= (tuple (tuple a b) c) t)");
    assert_eq!(expr("[a, b] = t"), "(= [a b] t)");
    assert_eq!(expr("a, = t"), "(= (tuple a) t)");
    assert_eq!(expr("x.y = z[1] = 2"), "(= x.y z[1] 2)");
    assert_eq!(expr("a[1:2] = b"), "(= a[1:2] b)");
    assert_eq!(expr("x = 1; y = 2;"), "(= x 1)\n(= y 2)");
    for (op, sym) in [
        ("+=", "+"),
        ("-=", "-"),
        ("*=", "*"),
        ("/=", "/"),
        ("//=", "//"),
        ("%=", "%"),
        ("**=", "**"),
        ("<<=", "<<"),
        (">>=", ">>"),
        ("&=", "&"),
        ("|=", "|"),
        ("^=", "^"),
    ] {
        assert_eq!(expr(&format!("x {} 2", op)), format!("({}= x 2)", sym));
    }
    assert_eq!(expr("a.b[1] += 2"), "(+= a.b[1] 2)");
    assert_eq!(expr("del a"), "(del a)");
    assert_eq!(expr("del a, b[1], c.d"), "(del a b[1] c.d)");
    assert_eq!(expr("del a[1:]"), "(del a[1:])");
    assert_eq!(expr("return"), "(return)");
    assert_eq!(expr("return x"), "(return x)");
    assert_eq!(expr("return x, y"), "(return (tuple x y))");
    assert_eq!(expr("global a"), "(global a)");
    assert_eq!(expr("global a, b"), "(global a b)");
    assert_eq!(expr("assert x"), "(assert x)");
    assert_eq!(expr("assert x, 'msg'"), "(assert x \"msg\")");
    assert_eq!(expr("break; continue"), "(break)\n(continue)");
    assert_eq!(expr("f(x)"), "(call f x)");
    assert_eq!(expr("'''docstring'''"), "\"docstring\"");
}

#[test]
fn raise_statements() {
    assert_eq!(expr("raise"), "(raise)");
    assert_eq!(expr("raise E"), "(raise E)");
    assert_eq!(expr("raise E(x)"), "(raise (call E x))");
    assert_eq!(p2("raise E, x"), "(raise E , x)");
    assert_eq!(p2("raise E, (a, b)"), "(raise E , (tuple a b))");
}

#[test]
fn imports() {
    assert_eq!(expr("import os"), "(import os)");
    assert_eq!(expr("import os.path"), "(import os.path)");
    assert_eq!(expr("import a.b as c, d"), "(import a.b as c, d)");
    assert_eq!(
        expr("from rpython.rlib.jit import JitDriver, promote as p"),
        "(from rpython.rlib.jit JitDriver, promote as p)"
    );
    assert_eq!(expr("from . import x"), "(from . x)");
    assert_eq!(expr("from .. import x"), "(from .. x)");
    assert_eq!(expr("from ... import x"), "(from ... x)");
    assert_eq!(expr("from .... import x"), "(from .... x)");
    assert_eq!(expr("from .mod import x"), "(from .mod x)");
    assert_eq!(expr("from ..a.b import x"), "(from ..a.b x)");
    assert_eq!(expr("from m import *"), "(from m *)");
    assert_eq!(
        expr("from m import (a,\n    b as c,\n)"),
        "(from m a, b as c)"
    );
    let m = parse(Dialect::Py2, "from ..a import b");
    assert_eq!(
        m.body[0].kind,
        StmtKind::ImportFrom {
            module: "a".to_string(),
            names: vec![Alias {
                name: "b".to_string(),
                asname: None
            }],
            level: 2
        }
    );
}

#[test]
fn compound_statements() {
    assert_eq!(expr("if x: pass"), "(if x ((pass)))");
    assert_eq!(
        expr("if x:\n    a = 1\n    b = 2\nelse:\n    c = 3\n"),
        "(if x ((= a 1) (= b 2)) ((= c 3)))"
    );
    assert_eq!(
        expr("if a:\n  x\nelif b:\n  y\nelif c:\n  z\nelse:\n  w"),
        "(if a (x) ((if b (y) ((if c (z) (w))))))"
    );
    assert_eq!(
        expr("while x > 0:\n    x -= 1\nelse:\n    pass"),
        "(while (cmp x > 0) ((-= x 1)) ((pass)))"
    );
    assert_eq!(expr("while 1: break"), "(while 1 ((break)) ())");
    assert_eq!(
        expr("for i in range(10):\n    f(i)\nelse:\n    g()"),
        "(for i (call range 10) ((call f i)) ((call g)))"
    );
    assert_eq!(
        expr("for k, v in d.items(): pass"),
        "(for (tuple k v) (call d.items) ((pass)) ())"
    );
    assert_eq!(
        expr("for x in 1, 2: pass"),
        "(for x (tuple 1 2) ((pass)) ())"
    );
    assert_eq!(
        expr("if a:\n    if b:\n        x\nelse:\n    y\n"),
        "(if a ((if b (x))) (y))"
    );
}

#[test]
fn try_statements() {
    assert_eq!(
        expr("try:\n    f()\nexcept:\n    pass\n"),
        "(try ((call f)) (except ((pass))))"
    );
    assert_eq!(
        expr("try:\n    f()\nexcept E as e:\n    g(e)\nexcept (A, B):\n    pass\nelse:\n    h()\nfinally:\n    k()\n"),
        "(try ((call f)) (except E as e ((call g e))) (except (tuple A B) ((pass))) (else (call h)) (finally (call k)))"
    );
    assert_eq!(
        expr("try:\n    f()\nfinally:\n    g()\n"),
        "(try ((call f)) (finally (call g)))"
    );
    assert_eq!(
        p2("try:\n    f()\nexcept ValueError, e:\n    pass\n"),
        "(try ((call f)) (except ValueError as e ((pass))))"
    );
    assert_eq!(
        p2("try: f()\nexcept (A, B), e: pass\n"),
        "(try ((call f)) (except (tuple A B) as e ((pass))))"
    );
}

#[test]
fn defs_and_classes() {
    assert_eq!(expr("def f(): pass"), "(def f () (pass))");
    assert_eq!(
        expr("def f(a, b=1, *args):\n    return a\n"),
        "(def f (a b=1 *args) (return a))"
    );
    assert_eq!(expr("def f(a, b,): pass"), "(def f (a b) (pass))");
    assert_eq!(expr("def f(*args): pass"), "(def f (*args) (pass))");
    assert_eq!(
        expr("@dec\n@mod.dec(1)\ndef f(x):\n    pass\n"),
        "(@dec @(call mod.dec 1) def f (x) (pass))"
    );
    assert_eq!(expr("class A: pass"), "(class A () (pass))");
    assert_eq!(expr("class A(): pass"), "(class A () (pass))");
    assert_eq!(
        expr("class A(B, C):\n    x = 1\n    def m(self):\n        return self.x\n"),
        "(class A (B C) (= x 1) (def m (self) (return self.x)))"
    );
    assert_eq!(
        expr("@d\nclass A(object):\n    pass\n"),
        "(@d class A (object) (pass))"
    );
    assert_eq!(
        p3("def f(x: int, y: str = 'a') -> int:\n    z: int = 1\n    w: int\n    return x\n"),
        "(def f (x y=\"a\") (= z 1) (pass) (return x))"
    );
}

#[test]
fn print_statement_py2() {
    assert_eq!(p2("print"), "(print )");
    assert_eq!(p2("print x"), "(print x)");
    assert_eq!(p2("print x, y"), "(print x y)");
    assert_eq!(p2("print x,"), "(print, x)");
    assert_eq!(p2("print(x)"), "(print x)");
    assert_eq!(p2("print(a, b)"), "(print (tuple a b))");
    assert_eq!(p2("print (a), b"), "(print a b)");
    assert_eq!(p2("print 'a' % x"), "(print (% \"a\" x))");
    // With print_function, print is an ordinary name.
    assert_eq!(
        p2("from __future__ import print_function\nprint(a, b)"),
        "(from __future__ print_function)\n(call print a b)"
    );
}

#[test]
fn print_is_a_function_in_py3() {
    assert_eq!(p3("print(x)"), "(call print x)");
    assert_eq!(p3("print(a, b, end='')"), "(call print a b end=\"\")");
    assert_eq!(p3("print()"), "(call print)");
    assert_eq!(p3("print = 3"), "(= print 3)");
    assert_eq!(p3("exec = 3"), "(= exec 3)");
    assert_eq!(p2("nonlocal = 3"), "(= nonlocal 3)");
}

#[test]
fn layout() {
    // Comments, blank lines, implicit and explicit line joining.
    let src = "# comment\n\nx = (1 +\n     2)  # trailing\n\n   # indented comment\ny = [1,\n\n 2]\nz = 1 + \\\n    2\nif x:\n\n    # c\n    a = 1\n\n    b = 2\n";
    assert_eq!(
        p2(src),
        "(= x (+ 1 2))\n(= y [1 2])\n(= z (+ 1 2))\n(if x ((= a 1) (= b 2)))"
    );
    // No trailing newline; CRLF line ends; tabs.
    assert_eq!(
        p2("if x:\r\n\ty = 1\r\n\tz = 2"),
        "(if x ((= y 1) (= z 2)))"
    );
    assert_eq!(p2(""), "");
    assert_eq!(p2("\n\n# only a comment"), "");
    assert_eq!(p2("\u{feff}x = 1\n"), "(= x 1)");
    // Deeply nested blocks closed at once.
    assert_eq!(
        p2("def f():\n  if a:\n    while b:\n      c\nd\n"),
        "(def f () (if a ((while b (c) ()))))\nd"
    );
}

#[test]
fn positions() {
    let m = parse(Dialect::Py2, "x = 1\nif y:\n    z = f(a, b) + 1\n");
    let s0 = &m.body[0];
    assert_eq!(s0.pos, Pos::new(1, 1));
    let StmtKind::Assign { targets, value } = &s0.kind else {
        panic!()
    };
    assert_eq!(targets[0].pos, Pos::new(1, 1));
    assert_eq!(value.pos, Pos::new(1, 5));
    let StmtKind::If { test, body, .. } = &m.body[1].kind else {
        panic!()
    };
    assert_eq!(m.body[1].pos, Pos::new(2, 1));
    assert_eq!(test.pos, Pos::new(2, 4));
    assert_eq!(body[0].pos, Pos::new(3, 5));
    let StmtKind::Assign { value, .. } = &body[0].kind else {
        panic!()
    };
    // The BinOp starts at the call, which starts at `f`.
    assert_eq!(value.pos, Pos::new(3, 9));
    let ExprKind::BinOp { left, right, .. } = &value.kind else {
        panic!()
    };
    assert_eq!(left.pos, Pos::new(3, 9));
    assert_eq!(right.pos, Pos::new(3, 19));
    let ExprKind::Call { args, .. } = &left.kind else {
        panic!()
    };
    assert_eq!(args[1].pos, Pos::new(3, 14));
    // Columns count characters, not bytes.
    let m = parse(Dialect::Py3, "s = 'éé' + x\n");
    let StmtKind::Assign { value, .. } = &m.body[0].kind else {
        panic!()
    };
    let ExprKind::BinOp { right, .. } = &value.kind else {
        panic!()
    };
    assert_eq!(right.pos, Pos::new(1, 12));
    // Decorated defs are at `def`; parameters at their names; handlers at `except`.
    let m = parse(
        Dialect::Py2,
        "@d\ndef f(a, b=1):\n  try: pass\n  except E, e: pass\n",
    );
    let StmtKind::FunctionDef {
        params,
        decorators,
        body,
        ..
    } = &m.body[0].kind
    else {
        panic!()
    };
    assert_eq!(m.body[0].pos, Pos::new(2, 1));
    assert_eq!(decorators[0].pos, Pos::new(1, 2));
    assert_eq!(params[1].pos, Pos::new(2, 10));
    let StmtKind::Try { handlers, .. } = &body[0].kind else {
        panic!()
    };
    assert_eq!(handlers[0].pos, Pos::new(4, 3));
    // A string spanning lines keeps its start; the next token is on the right line.
    let m = parse(Dialect::Py2, "x = '''a\nb''' + y\n");
    let StmtKind::Assign { value, .. } = &m.body[0].kind else {
        panic!()
    };
    let ExprKind::BinOp { left, right, .. } = &value.kind else {
        panic!()
    };
    assert_eq!(left.pos, Pos::new(1, 5));
    assert_eq!(right.pos, Pos::new(2, 8));
    // elif at its own position.
    let m = parse(Dialect::Py2, "if a: pass\nelif b: pass\n");
    let StmtKind::If { orelse, .. } = &m.body[0].kind else {
        panic!()
    };
    assert_eq!(orelse[0].pos, Pos::new(2, 1));
}

#[test]
fn module_fields() {
    let m = parse(Dialect::Py3, "x = 1\n");
    assert_eq!(m.path, "t.py");
    assert_eq!(m.dialect, Dialect::Py3);
}

// ------------------------------------------------------------------ errors

#[test]
fn syntax_errors() {
    assert_eq!(
        e2("if x:\n    y = 1\n  z = 2\n"),
        "3:3: inconsistent indentation: this line's indentation matches no enclosing block"
    );
    assert_eq!(e2("x = 'abc\n"), "1:5: unterminated string literal");
    assert_eq!(
        e2("x = '''abc\n\n"),
        "1:5: unterminated triple-quoted string literal"
    );
    assert_eq!(
        e2("x = 1 +\n"),
        "1:8: unexpected end of line here; expected an expression"
    );
    assert_eq!(
        e2("x = else\n"),
        "1:5: unexpected 'else' here; expected an expression"
    );
    assert_eq!(
        e2("if x\n    y\n"),
        "1:5: unexpected end of line here; expected ':'"
    );
    assert_eq!(e2("  x = 1\n"), "1:3: unexpected indentation");
    assert_eq!(e2("if x:\ny = 1\n"), "2:1: expected an indented block here");
    assert_eq!(
        e2("def f():\n"),
        "1:9: unexpected end of file; expected an indented block"
    );
    assert_eq!(
        e2("f(a b)\n"),
        "1:5: unexpected name 'b' here; expected ')' or ','"
    );
    assert_eq!(e2("x = (1, 2\n"), "1:5: '(' was never closed");
    let e = err(Dialect::Py2, "x = (1, 2\ny = 3\n");
    assert_eq!(
        format!("{}:{}: {}", e.0[0].pos.line, e.0[0].pos.col, e.0[0].message),
        "2:1: unexpected name 'y' here; expected ')' or ','"
    );
    assert_eq!(
        e.0[0].notes,
        vec!["the '(' at line 1, column 5 is not closed"]
    );
    assert_eq!(
        e2("x = (1]\n"),
        "1:7: closing ']' does not match the opening '(' at line 1, column 5"
    );
    assert_eq!(e2("x = 1)\n"), "1:6: unmatched closing ')'");
    assert_eq!(e2("x = $\n"), "1:5: unexpected character '$'");
    assert_eq!(
        e2("x = 1 \\ y\n"),
        "1:7: unexpected character after a line continuation backslash"
    );
    assert_eq!(
        e2("else:\n  pass\n"),
        "1:1: unexpected 'else': it does not follow an 'if', 'for', 'while' or 'try' block"
    );
    assert_eq!(
        e2("if x:\n  pass\nx = 1\nelif y: pass\n"),
        "4:1: unexpected 'elif': it does not follow an 'if' block"
    );
    assert_eq!(
        e2("def f():\n  x = 1\n  except: pass\n"),
        "3:3: unexpected 'except': it does not follow a 'try' block"
    );
    assert_eq!(e2("x = 1\n)"), "2:1: unmatched closing ')'");
    assert_eq!(
        e2("x = 1\n= 2\n"),
        "2:1: unexpected '=' here; expected a statement"
    );
    assert_eq!(
        e2("def (x): pass\n"),
        "1:5: unexpected '(' here; expected a name"
    );
    assert_eq!(
        e2("x = 1 2\n"),
        "1:7: unexpected number here; expected end of line"
    );
    assert_eq!(e2("x = 123abc\n"), "1:5: invalid number literal");
    assert_eq!(
        e2("try:\n  pass\n"),
        "2:7: unexpected end of file; expected 'except' or 'finally'"
    );
    assert_eq!(
        e2("def f(x)\n  pass\n"),
        "1:9: unexpected end of line here; expected ':'"
    );
    assert_eq!(
        e2("from x import\n"),
        "1:14: unexpected end of line here; expected a name"
    );
    let e = err(Dialect::Py3, "print 'a'\n");
    assert_eq!(
        e.0[0].notes,
        vec!["in Python 3 'print' is a function: print(...); or parse the file as Python 2"]
    );
}

#[test]
fn syntax_error_reports_earliest() {
    // A syntax error before an unterminated string is the one reported.
    let e = err(Dialect::Py2, "x = = 1\ny = 'abc\n");
    assert_eq!(e.0.len(), 1);
    assert_eq!(e.0[0].pos, Pos::new(1, 5));
}

#[test]
fn diagnostic_display() {
    let e = err(Dialect::Py2, "x = 1\nif x\n    pass\n");
    assert_eq!(
        e.to_string(),
        "prog.py:2:5: error: unexpected end of line here; expected ':'\n 2 | if x\n   |     ^"
    );
}

#[test]
fn semantic_errors_are_all_reported() {
    // Integer literals beyond a machine word parse (as BigInt); the flow
    // builder rejects them inside functions.
    let e = err(
        Dialect::Py2,
        "f() = 1\nx = 99999999999999999999\ny + 1 += 2\nz = 9223372036854775808\n",
    );
    let got: Vec<String> =
        e.0.iter()
            .map(|d| format!("{}:{}: {}", d.pos.line, d.pos.col, d.message))
            .collect();
    assert_eq!(
        got,
        vec![
            "1:1: cannot assign to a function call",
            "3:1: cannot use an operator expression as the target of an augmented assignment",
        ]
    );
}

fn ok(d: Dialect, src: &str) -> Module {
    match parse_module("prog.py", src, d) {
        Ok(m) => m,
        Err(e) => panic!("expected {:?} to parse, got {}", src, e),
    }
}

/// The kind of the one statement of `src`.
fn one(d: Dialect, src: &str) -> StmtKind {
    let m = ok(d, src);
    assert_eq!(m.body.len(), 1, "{:?}", m.body);
    m.body[0].kind.clone()
}

/// The expression of an expression statement, or the value of an assignment.
fn one_expr(d: Dialect, src: &str) -> ExprKind {
    match one(d, src) {
        StmtKind::Expr(e) => e.kind,
        StmtKind::Assign { value, .. } => value.kind,
        other => panic!("not an expression statement: {:?}", other),
    }
}

/// Full Python syntax parses: only the flow builder rejects, inside RPython
/// functions, what cannot be translated.
#[test]
fn full_python_syntax_is_accepted() {
    use Dialect::*;
    assert!(matches!(
        one(Py2, "exec 'x = 1'\n"),
        StmtKind::Exec { globals: None, .. }
    ));
    assert!(matches!(
        one(Py2, "exec code in g, l\n"),
        StmtKind::Exec {
            globals: Some(_),
            locals: Some(_),
            ..
        }
    ));
    assert!(matches!(one_expr(Py2, "x = `y`\n"), ExprKind::Repr(_)));
    assert!(matches!(
        one(Py2, "print >>f, x,\n"),
        StmtKind::PrintTo { newline: false, .. }
    ));
    assert!(matches!(one(Py2, "print >>f\n"), StmtKind::PrintTo { .. }));
    let m = ok(Py3, "def f():\n    nonlocal x\n");
    assert!(matches!(&m.body[0].kind, StmtKind::FunctionDef { body, .. }
        if matches!(body[0].kind, StmtKind::Nonlocal(_))));
    match one(Py2, "with f() as g, h: pass\n") {
        StmtKind::With { items, .. } => {
            assert_eq!(items.len(), 2);
            assert!(items[0].target.is_some() && items[1].target.is_none());
        }
        other => panic!("{:?}", other),
    }
    for (d, src) in [
        (Py3, "def f():\n  yield 1\n"),
        (Py2, "def f():\n  yield\n"),
        (Py2, "def f():\n  x = yield y\n"),
        (Py2, "def f():\n  x = (yield)\n"),
        (Py3, "def f():\n  yield from g()\n"),
    ] {
        ok(d, src);
    }
    assert!(matches!(
        one_expr(Py2, "x = a[1:2:3]\n"),
        ExprKind::Subscript { index, .. }
            if matches!(index.kind, ExprKind::SliceItem { step: Some(_), .. })
    ));
    assert!(matches!(
        one_expr(Py2, "x = a[::2]\n"),
        ExprKind::Subscript { .. }
    ));
    assert!(matches!(
        one_expr(Py2, "x = a[1:2, 3]\n"),
        ExprKind::Subscript { index, .. } if matches!(&index.kind, ExprKind::Tuple(v) if v.len() == 2)
    ));
    assert!(matches!(
        one_expr(Py2, "f(x for x in y)\n"),
        ExprKind::Call { args, .. } if matches!(args[0].kind, ExprKind::GeneratorExp { .. })
    ));
    assert!(matches!(one_expr(Py2, "x = {1, 2}\n"), ExprKind::Set(_)));
    assert!(matches!(
        one_expr(Py2, "x = {k: v for k in y}\n"),
        ExprKind::DictComp { .. }
    ));
    assert!(matches!(
        one_expr(Py2, "x = {k for k in y}\n"),
        ExprKind::SetComp { .. }
    ));
    assert!(matches!(
        one_expr(Py2, "f(*a, **kw)\n"),
        ExprKind::Call {
            star_args: Some(_),
            kwargs: Some(_),
            ..
        }
    ));
    assert!(matches!(
        one(Py2, "def f(a, *b, **kw): pass\n"),
        StmtKind::FunctionDef { kwargs: Some(k), .. } if k == "kw"
    ));
    assert!(matches!(
        one(Py3, "def f(a, *, b, c=1, **k): pass\n"),
        StmtKind::FunctionDef { kwonly, star_args: None, .. } if kwonly.len() == 2
    ));
    match one(Py2, "def f((a, (b, c)), d=1): pass\n") {
        StmtKind::FunctionDef { params, .. } => {
            assert_eq!(params[0].name, ".0");
            assert!(params[0].unpack.is_some());
            assert_eq!(params[1].name, "d");
        }
        other => panic!("{:?}", other),
    }
    assert!(matches!(
        one_expr(Py2, "x = lambda (a, b), c=1, *d, **e: a\n"),
        ExprKind::Lambda {
            star_args: Some(_),
            kwargs: Some(_),
            ..
        }
    ));
    assert!(matches!(
        one(Py2, "raise E, v, tb\n"),
        StmtKind::Raise { tb: Some(_), .. }
    ));
    assert!(matches!(
        one(Py3, "raise E from c\n"),
        StmtKind::Raise { cause: Some(_), .. }
    ));
    assert!(matches!(
        one_expr(Py2, "x = 1if y else 2\n"),
        ExprKind::IfExp { .. }
    ));
    assert!(matches!(
        one_expr(Py2, "x = [a for a in b, c]\n"),
        ExprKind::ListComp { generators, .. }
            if matches!(generators[0].iter.kind, ExprKind::Tuple(_))
    ));
    assert!(matches!(one_expr(Py3, "x = ...\n"), ExprKind::Ellipsis));
    assert!(matches!(
        one_expr(Py2, "x = a[...]\n"),
        ExprKind::Subscript { .. }
    ));
    assert!(matches!(
        one_expr(Py2, "x = 99999999999999999999\n"),
        ExprKind::BigInt(s) if s == "99999999999999999999"
    ));
    assert!(matches!(
        one_expr(Py2, "x = 0xFFFFFFFFFFFFFFFFFFL\n"),
        ExprKind::BigInt(s) if s == "0xFFFFFFFFFFFFFFFFFF"
    ));
    assert!(matches!(
        one_expr(Py2, "x = -9223372036854775808\n"),
        ExprKind::Int(i64::MIN)
    ));
    assert!(matches!(
        one_expr(Py2, "x = u'\\u20ac'\n"),
        ExprKind::WideStr(s) if s == "\u{20ac}"
    ));
    assert!(matches!(
        one(Py2, "@a.b(c)[d]\ndef f(): pass\n"),
        StmtKind::FunctionDef { decorators, .. } if decorators.len() == 1
    ));
    assert_eq!(ok(Py2, "x = bR'a' Ur'b'\n").body.len(), 1);
}

#[test]
fn future_imports_must_be_real_statements() {
    // Mentioning print_function in a string or after other code does not
    // make `print` a function.
    let src = "s = 'from __future__ import print_function'\nprint s\n";
    assert!(matches!(
        ok(Dialect::Py2, src).body[1].kind,
        StmtKind::Print { .. }
    ));
    let src = "import os\nfrom __future__ import print_function\nprint x\n";
    assert!(matches!(
        ok(Dialect::Py2, src).body[2].kind,
        StmtKind::Print { .. }
    ));
    // After comments and the docstring it counts, parenthesized too.
    let src = "# c\n\"\"\"doc\nstring\"\"\"\nfrom __future__ import (absolute_import,\n    print_function)\nprint(x, end='')\n";
    assert!(matches!(
        ok(Dialect::Py2, src).body[2].kind,
        StmtKind::Expr(_)
    ));
}

#[test]
fn coding_cookies() {
    use rpy_passes::parse::decode_source;
    let latin1 = b"# -*- coding: latin-1 -*-\nx = u'\xe9'\n";
    assert_eq!(
        decode_source(latin1),
        "# -*- coding: latin-1 -*-\nx = u'\u{e9}'\n"
    );
    let utf8 = "# coding: utf-8\nx = '\u{e9}'\n".as_bytes();
    assert_eq!(decode_source(utf8), "# coding: utf-8\nx = '\u{e9}'\n");
    let l15 = b"#!/usr/bin/env python\n# vim: set fileencoding=iso-8859-15 :\nx = '\xa4'\n";
    assert!(decode_source(l15).contains('\u{20ac}'));
    // No cookie: UTF-8, invalid bytes replaced.
    assert_eq!(decode_source(b"x = 1\n"), "x = 1\n");
}

#[test]
fn rejected_constructs() {
    assert_eq!(
        e2("def f(a=1, b): pass\n"),
        "1:12: parameter 'b' without a default follows a parameter with a default"
    );
    assert_eq!(e2("def f(a, a): pass\n"), "1:10: duplicate parameter 'a'");
    assert_eq!(
        e2("f(k=1, x)\n"),
        "1:8: positional argument follows a keyword argument"
    );
    assert_eq!(e2("f(k=1, k=2)\n"), "1:8: keyword argument 'k' repeated");
    assert_eq!(
        e2("f(a.b=1)\n"),
        "1:3: a keyword argument's name must be a plain name"
    );
    assert_eq!(e2("x = 1j\n"), "1:5: complex numbers are not supported");
    assert_eq!(e3("x = f'a'\n"), "1:5: f-strings are not supported");
    assert_eq!(
        e2("try: pass\nexcept: pass\nexcept E: pass\n"),
        "2:1: a bare 'except:' must be the last except clause"
    );
    assert_eq!(e2("1 = x\n"), "1:1: cannot assign to a literal");
    assert_eq!(e2("None = x\n"), "1:1: cannot assign to None");
    assert_eq!(
        e2("for f() in x: pass\n"),
        "1:5: cannot assign to a function call"
    );
    assert_eq!(e2("del f()\n"), "1:5: cannot delete a function call");
    assert_eq!(
        e2("x = a @ b\n"),
        "1:5: the matrix multiplication operator '@' is not supported"
    );
    assert_eq!(
        e2("from import x\n"),
        "1:1: expected a module name after 'from'"
    );
    assert_eq!(
        e2("class A(metaclass=M): pass\n"),
        "1:9: keyword arguments in a class statement (such as metaclass=...) are not supported"
    );
    assert_eq!(
        e2("f(x for x in y, 1)\n"),
        "1:3: a generator expression must be parenthesized if it is not the sole argument"
    );
    assert_eq!(
        e3("def f(a, *): pass\n"),
        "1:10: a bare '*' must be followed by keyword-only parameters"
    );
}

#[test]
fn dialect_errors() {
    // Python 2 syntax in Python 3 mode.
    assert_eq!(
        e3("x = 0777\n"),
        "1:5: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers"
    );
    assert_eq!(
        e3("x = 10L\n"),
        "1:5: the 'L' suffix on integer literals is Python 2 syntax"
    );
    assert_eq!(
        e3("x = ur'a'\n"),
        "1:5: the 'ur' string prefix is Python 2 syntax"
    );
    assert_eq!(e3("x = a <> b\n"), "1:7: '<>' is Python 2 syntax; use '!='");
    assert_eq!(
        e3("try: pass\nexcept E, e: pass\n"),
        "2:11: 'except E, e:' is Python 2 syntax; use 'except E as e:' (or parse as Python 2)"
    );
    assert_eq!(
        e3("raise E, 'x'\n"),
        "1:10: 'raise E, x' is Python 2 syntax; use 'raise E(x)' (or parse as Python 2)"
    );
    assert_eq!(
        e3("print x\n"),
        "1:7: unexpected name 'x' here; expected end of line"
    );
    // Python 3 syntax in Python 2 mode.
    assert_eq!(
        e2("x = 1_000\n"),
        "1:5: underscores in number literals are Python 3 syntax"
    );
    assert_eq!(
        e2("x = rb'a'\n"),
        "1:5: the 'rb' string prefix is Python 3 syntax; use 'br'"
    );
    let e = err(Dialect::Py2, "print('a', end='')\n");
    assert_eq!(e.0[0].pos, Pos::new(1, 15));
    assert!(e.0[0].notes[0].contains("print_function"), "{:?}", e.0[0]);
}

#[test]
fn string_errors() {
    // Characters at or above U+0100 make a wide string, which parses (the
    // flow builder rejects it inside functions).
    assert!(matches!(
        one_expr(Dialect::Py3, "x = '€'\n"),
        ExprKind::WideStr(_)
    ));
    assert!(matches!(
        one_expr(Dialect::Py3, r#"x = '\u20ac'"#),
        ExprKind::WideStr(_)
    ));
    assert_eq!(
        e3("x = b'é'\n"),
        "1:7: bytes literals may only contain ASCII characters"
    );
    assert_eq!(
        e2(r#"x = '\x4'"#),
        "1:6: invalid \\x escape: expected 2 hex digits"
    );
    assert_eq!(
        e3("x = b'a' 'b'\n"),
        "1:10: cannot concatenate a bytes literal and a str literal"
    );
    // Python 2 byte strings hold any UTF-8 text (as bytes).
    assert_eq!(p2("x = '€'"), format!("(= x {:?})", "\u{e2}\u{82}\u{ac}"));
}

// ------------------------------------------------------------------ dialect detection

#[test]
fn detect() {
    use Dialect::*;
    let cases: &[(&str, Dialect)] = &[
        ("print x\n", Py2),
        ("print\n", Py2),
        ("print 'a', b\n", Py2),
        ("print >>sys.stderr, 'x'\n", Py2),
        ("if x: print x\n", Py2),
        ("try: pass\nexcept E, e: pass\n", Py2),
        ("x = `y`\n", Py2),
        ("x = 0777\n", Py2),
        ("x = 10L\n", Py2),
        ("x = ur'a'\n", Py2),
        ("x = a <> b\n", Py2),
        ("raise E, 'msg'\n", Py2),
        ("exec code\n", Py2),
        ("print('x', end='')\n", Py3),
        ("def f():\n    nonlocal x\n", Py3),
        ("def f(x: int) -> int: return x\n", Py3),
        ("x = 1_000\n", Py3),
        ("raise E from e\n", Py3),
        ("x = rb'a'\n", Py3),
        // print called as a function throughout, without print_function: Py3.
        ("print(x)\n", Py3),
        ("print(x)\nprint(y)\n", Py3),
        ("from __future__ import print_function\nprint(x)\n", Py2),
        ("x = 1\n", Py2),
        ("try: pass\nexcept E as e: pass\n", Py2),
        ("", Py2),
        // Py2 markers win over Py3 ones.
        ("print('x', end='')\nprint y\n", Py2),
        ("def f(x=lambda: 1): pass\n", Py2),
        ("from ... import x\n", Py2),
        ("except (A, B) as e", Py2),
        (
            "from __future__ import print_function\nprint('x', end='')\n",
            Py2,
        ),
    ];
    for (src, want) in cases {
        assert_eq!(detect_dialect(src), *want, "detect_dialect({:?})", src);
    }
}

// ------------------------------------------------------------------ programs

#[test]
fn a_complete_program() {
    let src = r#"
import os
from rpython.rlib.jit import JitDriver

jitdriver = JitDriver(greens=['pc', 'code'], reds=['acc'])

class Op(object):
    """An operation."""
    def __init__(self, name, arg=0):
        self.name = name
        self.arg = arg

    def __repr__(self):
        return '%s(%d)' % (self.name, self.arg)

def interpret(code):
    pc = 0
    acc = 0
    while pc < len(code):
        jitdriver.jit_merge_point(pc=pc, code=code, acc=acc)
        op = code[pc]
        if op.name == 'add':
            acc += op.arg
        elif op.name == 'jnz':
            if acc != 0:
                pc = op.arg
                continue
        else:
            raise ValueError, op.name
        pc += 1
    return acc

def entry_point(argv):
    try:
        n = int(argv[1])
    except (IndexError, ValueError), e:
        print "usage: %s N" % (argv[0],)
        return 1
    code = [Op('add', n), Op('add', -1), Op('jnz', 1)]
    print interpret(code)
    return 0

def target(driver, args):
    return entry_point, None
"#;
    let m = parse(Dialect::Py2, src);
    assert_eq!(m.body.len(), 7);
    assert_eq!(detect_dialect(src), Dialect::Py2);
}

/// Every `.py` file under `tests/programs` parses: in the dialect its
/// directory names (`py2/`, `py3/`), else in the detected one.
#[test]
fn test_programs_parse() {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().and_then(|e| e.to_str()) == Some("py") {
                out.push(p);
            }
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/programs");
    let mut paths = Vec::new();
    walk(&dir, &mut paths);
    paths.sort();
    let mut failures = Vec::new();
    for path in paths {
        let Ok(src) = std::fs::read_to_string(&path) else {
            continue;
        };
        let name = path.display().to_string();
        let in_dir = |d: &str| path.components().any(|c| c.as_os_str() == d);
        let dialect = if in_dir("py2") {
            Dialect::Py2
        } else if in_dir("py3") {
            Dialect::Py3
        } else {
            detect_dialect(&src)
        };
        if let Err(e) = parse_module(&name, &src, dialect) {
            failures.push(e.to_string());
        }
        if dialect == Dialect::Py2 && detect_dialect(&src) != Dialect::Py2 {
            failures.push(format!("{}: detected as Python 3", name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ------------------------------------------------------------------ robustness

mod robustness {
    use super::*;
    use proptest::prelude::*;

    const SOUP: &[&str] = &[
        "x",
        "y",
        "f",
        "1",
        "0777",
        "1.5",
        "'s'",
        "\"\"\"",
        "'",
        "\"",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        ".",
        ";",
        "=",
        "+",
        "-",
        "*",
        "**",
        "/",
        "//",
        "%",
        "<",
        ">",
        "==",
        "!=",
        "<>",
        "+=",
        "if",
        "elif",
        "else",
        "for",
        "in",
        "while",
        "def",
        "class",
        "return",
        "print",
        "not",
        "and",
        "or",
        "is",
        "lambda",
        "try",
        "except",
        "finally",
        "raise",
        "import",
        "from",
        "as",
        "pass",
        "del",
        "global",
        "@",
        "`",
        "\\",
        "\n",
        "\n    ",
        "\n  ",
        "\t",
        " ",
        "#c",
        "9223372036854775808",
        "-",
        "r'\\'",
        "u'\\u1234'",
        "b'\\xff'",
        "é",
        "€",
        "0x",
        "1e",
        "1_",
        "...",
        "->",
        "\r",
    ];

    fn check(src: &str) {
        for d in [Dialect::Py2, Dialect::Py3] {
            if let Err(e) = parse_module("p.py", src, d) {
                // Every error has a real position and renders.
                for diag in &e.0 {
                    assert!(diag.pos.line >= 1 && diag.pos.col >= 1, "{:?}", diag);
                    assert!(!diag.message.is_empty());
                }
                let _ = e.to_string();
            }
        }
        let _ = detect_dialect(src);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let src = String::from_utf8_lossy(&bytes).into_owned();
            check(&src);
        }

        #[test]
        fn random_ascii_never_panics(src in "[ -~\n\t\r]{0,200}") {
            check(&src);
        }

        #[test]
        fn token_soup_never_panics(idx in proptest::collection::vec(0..SOUP.len(), 0..60)) {
            let src: String = idx.iter().map(|&i| SOUP[i]).collect::<Vec<_>>().join(" ");
            check(&src);
            let src: String = idx.iter().map(|&i| SOUP[i]).collect();
            check(&src);
        }
    }
}

#[test]
fn nesting_limits() {
    // Long operator chains and deep nesting up to the limit parse (and the
    // tree they build can be dropped on a test thread's stack)...
    let src = format!("x = {}1\n", "1 + ".repeat(1900));
    parse(Dialect::Py2, &src);
    let src = format!("x = {}y\n", "-".repeat(1900));
    parse(Dialect::Py2, &src);
    let src = format!("x = {}0{}\n", "(".repeat(200), ")".repeat(200));
    parse(Dialect::Py2, &src);
    // ...a big table is flat, however long...
    let src = format!("t = [{}]\n", "-1, (2, 3), f(x.y), ".repeat(5000));
    parse(Dialect::Py2, &src);
    // ...and beyond the limits is an error, not a stack overflow.
    for src in [
        format!("x = {}1\n", "1 + ".repeat(100_000)),
        format!("x = {}y\n", "-".repeat(100_000)),
        format!("x = y{}\n", ".a".repeat(100_000)),
        format!("x = {}1\n", "2 ** ".repeat(100_000)),
        format!("x = f{}\n", "(1)".repeat(100_000)),
        format!("x = {}1\n", "lambda: ".repeat(100_000)),
        format!("x = {}1\n", "lambda a, b: ".repeat(100_000)),
        format!("x = {}1\n", "not ".repeat(100_000)),
        format!("x = 1 {}\n", "if a else 1 ".repeat(100_000)),
        format!(
            "x = {}1{}\n",
            ("(".to_string() + &"1 + ".repeat(19)).repeat(150),
            ")".repeat(150)
        ),
    ] {
        let e = err(Dialect::Py2, &src);
        assert!(
            e.0[0].message.starts_with("expression too complex"),
            "{}",
            e.0[0].message
        );
    }
    let src = format!("x = {}0{}\n", "(".repeat(300), ")".repeat(300));
    assert_eq!(e2(&src), "1:205: too many nested brackets (more than 200)");
    let mut src = String::new();
    for i in 0..150 {
        src += &format!("{}if x:\n", " ".repeat(i));
    }
    src += &format!("{}pass\n", " ".repeat(150));
    assert_eq!(
        e2(&src),
        "102:102: too many levels of indentation (more than 100)"
    );
    let mut src = "if x == 0: pass\n".to_string();
    for i in 0..1500 {
        src += &format!("elif x == {}: pass\n", i);
    }
    assert_eq!(
        e2(&src),
        "1002:1: too many 'elif' branches (more than 1000)"
    );
}

// ------------------------------------------------------------------ speed

/// Run with `cargo test --release -p rpy-passes --test parse -- --ignored --nocapture`.
#[test]
#[ignore]
fn speed_10k_lines() {
    let chunk = r#"
class Node%d(object):
    def __init__(self, a, b=1, *rest):
        self.a = a
        self.b = [x * 2 for x in range(b) if x %% 3 != 0]
        self.c = {'k': (a, b), 'j': -1.5e3}

    def run(self, n):
        total = 0
        while n > 0:
            if n & 1 and not self.a is None:
                total += self.b[n %% len(self.b)] if self.b else 0
            elif n in (2, 3, 5):
                total = total << 1 | 1
            else:
                try:
                    total -= int('%%d' %% n)
                except ValueError, e:
                    print "bad", e
            n -= 1
        return total, self.c["k"][0:2]
"#;
    let mut src = String::new();
    let mut i = 0;
    while src.lines().count() < 10_000 {
        src += &chunk.replace("%d", &i.to_string()).replace("%%", "%");
        i += 1;
    }
    let lines = src.lines().count();
    // Warm up, then time the best of a few runs.
    parse(Dialect::Py2, &src);
    let mut best = std::time::Duration::MAX;
    for _ in 0..5 {
        let t = std::time::Instant::now();
        let m = parse(Dialect::Py2, &src);
        best = best.min(t.elapsed());
        assert!(!m.body.is_empty());
    }
    let t = std::time::Instant::now();
    let lexed = rpy_passes::parse::lexer::lex(
        &src,
        rpy_passes::parse::lexer::Mode::Py2,
        rpy_ir::diag::FileId::MAIN,
    );
    let lex = t.elapsed();
    println!("lexed {} tokens in {:?}", lexed.tokens.len(), lex);
    let t = std::time::Instant::now();
    let _ = detect_dialect(&src);
    let detect = t.elapsed();
    println!(
        "parsed {} lines in {:?} (detect_dialect: {:?})",
        lines, best, detect
    );
    assert!(best.as_millis() < 100, "too slow: {:?}", best);
}

//! The AST printer against the parser: printing a tree and parsing the text
//! gives the tree back (positions aside), for random well-formed trees of both
//! dialects and for every program of the test and benchmark suites.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use rpy_ir::ast::*;
use rpy_ir::ast_print::{print_expr, print_module};
use rpy_ir::diag::Pos;
use rpy_passes::parse::{detect_dialect, parse_module};

// ------------------------------------------------------------ positions

/// Sets every position in `m` to the default, so trees compare by shape.
fn zero_positions(m: &mut Module) {
    for s in &mut m.body {
        zero_stmt(s);
    }
}

fn zero_stmts(v: &mut [Stmt]) {
    for s in v {
        zero_stmt(s);
    }
}

fn zero_exprs(v: &mut [Expr]) {
    for e in v {
        zero_expr(e);
    }
}

fn zero_params(v: &mut [Param]) {
    for p in v {
        p.pos = Pos::default();
        if let Some(d) = &mut p.default {
            zero_expr(d);
        }
        if let Some(u) = &mut p.unpack {
            zero_expr(u);
        }
    }
}

fn zero_stmt(s: &mut Stmt) {
    s.pos = Pos::default();
    match &mut s.kind {
        StmtKind::FunctionDef {
            params,
            kwonly,
            decorators,
            body,
            ..
        } => {
            zero_params(params);
            zero_params(kwonly);
            zero_exprs(decorators);
            zero_stmts(body);
        }
        StmtKind::ClassDef {
            bases,
            decorators,
            body,
            ..
        } => {
            zero_exprs(bases);
            zero_exprs(decorators);
            zero_stmts(body);
        }
        StmtKind::Return(v) => {
            if let Some(e) = v {
                zero_expr(e);
            }
        }
        StmtKind::Assign { targets, value } => {
            zero_exprs(targets);
            zero_expr(value);
        }
        StmtKind::AugAssign { target, value, .. } => {
            zero_expr(target);
            zero_expr(value);
        }
        StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
            zero_expr(test);
            zero_stmts(body);
            zero_stmts(orelse);
        }
        StmtKind::For {
            target,
            iter,
            body,
            orelse,
        } => {
            zero_expr(target);
            zero_expr(iter);
            zero_stmts(body);
            zero_stmts(orelse);
        }
        StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Pass
        | StmtKind::Global(_)
        | StmtKind::Import(_)
        | StmtKind::ImportFrom { .. } => {}
        StmtKind::Print { values, .. } => zero_exprs(values),
        StmtKind::Expr(e) => zero_expr(e),
        StmtKind::Assert { test, msg } => {
            zero_expr(test);
            if let Some(m) = msg {
                zero_expr(m);
            }
        }
        StmtKind::Raise {
            exc,
            arg,
            tb,
            cause,
        } => {
            for e in [exc, arg, tb, cause].into_iter().flatten() {
                zero_expr(e);
            }
        }
        StmtKind::With { items, body } => {
            for item in items {
                zero_expr(&mut item.context);
                if let Some(t) = &mut item.target {
                    zero_expr(t);
                }
            }
            zero_stmts(body);
        }
        StmtKind::Exec {
            code,
            globals,
            locals,
        } => {
            zero_expr(code);
            for e in [globals, locals].into_iter().flatten() {
                zero_expr(e);
            }
        }
        StmtKind::PrintTo { dest, values, .. } => {
            zero_expr(dest);
            zero_exprs(values);
        }
        StmtKind::Nonlocal(_) => {}
        StmtKind::Try {
            body,
            handlers,
            orelse,
            finalbody,
        } => {
            zero_stmts(body);
            for h in handlers {
                h.pos = Pos::default();
                if let Some(t) = &mut h.typ {
                    zero_expr(t);
                }
                zero_stmts(&mut h.body);
            }
            zero_stmts(orelse);
            zero_stmts(finalbody);
        }
        StmtKind::Del(targets) => zero_exprs(targets),
    }
}

fn zero_expr(e: &mut Expr) {
    e.pos = Pos::default();
    match &mut e.kind {
        ExprKind::Name(_)
        | ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::None => {}
        ExprKind::BinOp { left, right, .. } => {
            zero_expr(left);
            zero_expr(right);
        }
        ExprKind::UnaryOp { operand, .. } => zero_expr(operand),
        ExprKind::BoolOp { values, .. } => zero_exprs(values),
        ExprKind::Compare { left, ops } => {
            zero_expr(left);
            for (_, r) in ops {
                zero_expr(r);
            }
        }
        ExprKind::Call {
            func,
            args,
            keywords,
            star_args,
            kwargs,
        } => {
            zero_expr(func);
            zero_exprs(args);
            for k in keywords {
                zero_expr(&mut k.value);
            }
            if let Some(s) = star_args {
                zero_expr(s);
            }
            if let Some(s) = kwargs {
                zero_expr(s);
            }
        }
        ExprKind::Attribute { value, .. } => zero_expr(value),
        ExprKind::Subscript { value, index } => {
            zero_expr(value);
            zero_expr(index);
        }
        ExprKind::Slice {
            value,
            lower,
            upper,
        } => {
            zero_expr(value);
            if let Some(l) = lower {
                zero_expr(l);
            }
            if let Some(u) = upper {
                zero_expr(u);
            }
        }
        ExprKind::Tuple(v) | ExprKind::List(v) => zero_exprs(v),
        ExprKind::Dict(items) => {
            for (k, v) in items {
                zero_expr(k);
                zero_expr(v);
            }
        }
        ExprKind::IfExp { test, body, orelse } => {
            zero_expr(test);
            zero_expr(body);
            zero_expr(orelse);
        }
        ExprKind::ListComp { elt, generators } => {
            zero_expr(elt);
            for g in generators {
                zero_expr(&mut g.target);
                zero_expr(&mut g.iter);
                zero_exprs(&mut g.ifs);
            }
        }
        ExprKind::Lambda {
            params,
            kwonly,
            body,
            ..
        } => {
            zero_params(params);
            zero_params(kwonly);
            zero_expr(body);
        }
        ExprKind::BigInt(_) | ExprKind::WideStr(_) | ExprKind::Ellipsis => {}
        ExprKind::Yield(v) => {
            if let Some(v) = v {
                zero_expr(v);
            }
        }
        ExprKind::YieldFrom(v) | ExprKind::Repr(v) | ExprKind::Starred(v) => zero_expr(v),
        ExprKind::Set(v) => zero_exprs(v),
        ExprKind::SetComp { elt, generators } | ExprKind::GeneratorExp { elt, generators } => {
            zero_expr(elt);
            zero_generators(generators);
        }
        ExprKind::DictComp {
            key,
            value,
            generators,
        } => {
            zero_expr(key);
            zero_expr(value);
            zero_generators(generators);
        }
        ExprKind::SliceItem { lower, upper, step } => {
            for e in [lower, upper, step].into_iter().flatten() {
                zero_expr(e);
            }
        }
    }
}

fn zero_generators(generators: &mut [Comprehension]) {
    for g in generators {
        zero_expr(&mut g.target);
        zero_expr(&mut g.iter);
        zero_exprs(&mut g.ifs);
    }
}

// ------------------------------------------------------------ round trip

fn dialect_name(d: Dialect) -> &'static str {
    match d {
        Dialect::Py2 => "py2",
        Dialect::Py3 => "py3",
    }
}

/// Prints `m`, parses the text in `m.dialect`, and checks both properties:
/// the same tree comes back, and printing it again gives the same text.
fn check_roundtrip(m: &Module) -> Result<(), String> {
    let mut want = m.clone();
    zero_positions(&mut want);
    let text = print_module(m);
    let mut back = match parse_module(&m.path, &text, m.dialect) {
        Ok(back) => back,
        Err(d) => {
            return Err(format!(
                "the printed {} text does not parse: {}\n--- text:\n{}",
                dialect_name(m.dialect),
                d,
                text
            ))
        }
    };
    zero_positions(&mut back);
    if back != want {
        return Err(format!(
            "the printed text parses to another tree\n--- text:\n{}\n--- want:\n{:?}\n--- got:\n{:?}",
            text, want, back
        ));
    }
    let again = print_module(&back);
    if again != text {
        return Err(format!(
            "printing the reparsed tree gives other text\n--- first:\n{}\n--- second:\n{}",
            text, again
        ));
    }
    Ok(())
}

/// Parses `src` (which must parse), then checks the round trip of its tree.
fn check_source(path: &str, src: &str, dialect: Dialect) {
    let m = parse_module(path, src, dialect).unwrap_or_else(|d| {
        panic!(
            "{} does not parse as {}: {}",
            path,
            dialect_name(dialect),
            d
        )
    });
    if let Err(e) = check_roundtrip(&m) {
        panic!("{}: {}", path, e);
    }
}

// ------------------------------------------------------------ hand-written cases

#[test]
fn print_statements_py2() {
    let src = "print\nprint a\nprint a, b,\nprint (a, b)\nprint (a, b), c\nprint -1, (a)\n";
    let m = parse_module("t.py", src, Dialect::Py2).unwrap();
    assert_eq!(
        print_module(&m),
        "print\nprint a\nprint a, b,\nprint (a, b)\nprint (a, b), c\nprint -1, a\n"
    );
    check_source("t.py", src, Dialect::Py2);
}

#[test]
fn python2_only_forms() {
    let src = "\
try:
    raise E, x
except E, e:
    raise
except (A, B):
    pass
except:
    raise E
big = 10L + 0777 + -9223372036854775808
if a <> b:
    pass
";
    let m = parse_module("t.py", src, Dialect::Py2).unwrap();
    let text = print_module(&m);
    assert!(text.contains("raise E, x\n"), "{}", text);
    assert!(text.contains("except E as e:\n"), "{}", text);
    assert!(text.contains("except (A, B):\n"), "{}", text);
    assert!(
        text.contains("big = 10 + 511 + -9223372036854775808\n"),
        "{}",
        text
    );
    check_source("t.py", src, Dialect::Py2);
}

#[test]
fn precedence_cases() {
    let cases = [
        "a - b - c",
        "a - (b - c)",
        "a ** b ** c",
        "(a ** b) ** c",
        "-a ** 2",
        "(-a) ** 2",
        "(-2) ** 2",
        "2 ** -1",
        "- -a",
        "-+a + +-a - -1",
        "not a == b",
        "(not a) == b",
        "a < b < c",
        "(a < b) < c",
        "a < (b < c)",
        "a or b and c",
        "(a or b) and c",
        "a or (b or c)",
        "not (a and b)",
        "a if b else c if d else e",
        "(a if b else c) if d else e",
        "lambda: (a, b)",
        "(lambda x=1: x)(2)",
        "f(lambda: 1, *args)",
        "x[1:2], x[:], x[a:], x[:b], x[1, 2], x[1,], x[()]",
        "(1).real + 1.5.real + 'abc'.join(x)",
        "[(a, b) for a, b in (x, y) if a if (lambda: b)]",
        "{1: (2, 3), 'k': [4]}",
        "a | b ^ c & d << e + f * g",
        "((a | b) ^ c) & (d << e) + f * g",
        "a << b >> c",
        "a * b // c % d / e",
        "a * (b // c)",
        "~a + +b - -c",
        "a is not b, a not in b",
        "-1.5e300 * 1e-7",
        "-9223372036854775808 - 9223372036854775807",
    ];
    for src in cases {
        for d in [Dialect::Py2, Dialect::Py3] {
            let m = parse_module("t.py", src, d).unwrap();
            assert_eq!(print_module(&m), format!("{}\n", src), "{}", src);
            check_source("t.py", src, d);
        }
    }
}

#[test]
fn statements_cases() {
    let src = "\
from __future__ import print_function
from ..a.b import c as d, e
from . import f
from .... import g
from m import *
import a.b.c as abc, os


@dec
@dec2(1)
class C(A, B):
    x = 1

    @staticmethod
    def f(a, b=2, *args):
        global q, r
        del a, b[1], (c, d)
        assert a, 'msg'
        return a, b


class D:
    pass


def g():
    for x, y in z:
        continue
    else:
        pass
    while True:
        break
    else:
        pass
    if a:
        pass
    elif b:
        pass
    elif c:
        pass
    else:
        x += 1
    try:
        pass
    except E as e:
        pass
    else:
        pass
    finally:
        pass
    try:
        pass
    finally:
        pass
    a = b = c, d
    [a, (b, c)] = x
    return
";
    for d in [Dialect::Py2, Dialect::Py3] {
        let m = parse_module("t.py", src, d).unwrap();
        assert_eq!(print_module(&m), src);
        check_source("t.py", src, d);
    }
}

#[test]
fn strings_round_trip_in_both_dialects() {
    let all: String = (0u32..256).filter_map(char::from_u32).collect();
    let cases = [
        all.as_str(),
        "",
        "'",
        "\"",
        "'\"",
        "\\",
        "\\x41",
        "\x00\x01\x7f\u{80}\u{ff}",
        "caf\u{e9}",
    ];
    for s in cases {
        for d in [Dialect::Py2, Dialect::Py3] {
            let m = Module {
                path: "t.py".into(),
                dialect: d,
                body: vec![Stmt {
                    pos: Pos::default(),
                    kind: StmtKind::Expr(Expr {
                        pos: Pos::default(),
                        kind: ExprKind::Str(s.to_string()),
                    }),
                }],
            };
            check_roundtrip(&m).unwrap();
        }
    }
    // A Python 2 file with unicode_literals reads strings as unicode.
    let src = "from __future__ import unicode_literals\nx = 'caf\\xe9\\x00'\n";
    check_source("t.py", src, Dialect::Py2);
}

#[test]
fn floats_round_trip() {
    let vals = [
        0.0,
        -0.0,
        1.0,
        0.1,
        1e16,
        1e17,
        1e-7,
        5e-324,
        f64::MAX,
        f64::MIN_POSITIVE,
        -2.5,
        123456.789,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    for v in vals {
        let text = print_expr(&Expr {
            pos: Pos::default(),
            kind: ExprKind::Float(v),
        });
        let m = parse_module("t.py", &text, Dialect::Py3).unwrap();
        match &m.body[0].kind {
            StmtKind::Expr(Expr {
                kind: ExprKind::Float(f),
                ..
            }) => assert_eq!(f.to_bits(), v.to_bits(), "{}", text),
            other => panic!("{} parsed as {:?}", text, other),
        }
    }
}

// ------------------------------------------------------------ test programs

fn collect_py(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_py(&p, out);
        } else if p.extension().is_some_and(|e| e == "py") {
            out.push(p);
        }
    }
}

#[test]
fn test_and_bench_programs_round_trip() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    collect_py(&root.join("tests/programs"), &mut files);
    collect_py(&root.join("benches/programs"), &mut files);
    assert!(!files.is_empty(), "no test programs found");
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        let in_dir = |name: &str| f.components().any(|c| c.as_os_str() == name);
        let dialect = if in_dir("py2") {
            Dialect::Py2
        } else if in_dir("py3") {
            Dialect::Py3
        } else {
            detect_dialect(&src)
        };
        check_source(&f.display().to_string(), &src, dialect);
    }
}

// ------------------------------------------------------------ random trees

const NAMES: &[&str] = &["a", "b", "x", "y", "foo", "bar_1", "_z", "Cls", "E"];

fn pos0() -> Pos {
    Pos::default()
}

fn ex(kind: ExprKind) -> Expr {
    Expr { pos: pos0(), kind }
}

fn st(kind: StmtKind) -> Stmt {
    Stmt { pos: pos0(), kind }
}

fn name_s() -> impl Strategy<Value = String> + Clone {
    prop::sample::select(NAMES).prop_map(String::from)
}

fn dotted_s() -> impl Strategy<Value = String> + Clone {
    prop::collection::vec(name_s(), 1..4).prop_map(|v| v.join("."))
}

fn leaf_s() -> BoxedStrategy<Expr> {
    let int = prop_oneof![
        any::<i64>(),
        0i64..100,
        Just(i64::MIN),
        Just(i64::MAX),
        Just(-1i64)
    ];
    let float = prop_oneof![
        any::<f64>().prop_filter("NaN does not compare equal", |f| !f.is_nan()),
        prop::sample::select(vec![0.0, -0.0, 0.5, 1.0, 1e16, 1e-7, -2.5, f64::INFINITY]),
    ];
    let string = prop::collection::vec(0u32..256, 0..8)
        .prop_map(|v| v.into_iter().filter_map(char::from_u32).collect::<String>());
    prop_oneof![
        4 => name_s().prop_map(|n| ex(ExprKind::Name(n))),
        2 => int.prop_map(|v| ex(ExprKind::Int(v))),
        1 => float.prop_map(|v| ex(ExprKind::Float(v))),
        2 => string.prop_map(|s| ex(ExprKind::Str(s))),
        1 => any::<bool>().prop_map(|b| ex(ExprKind::Bool(b))),
        1 => Just(ex(ExprKind::None)),
    ]
    .boxed()
}

fn binop_s() -> impl Strategy<Value = BinOp> + Clone {
    prop::sample::select(vec![
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::FloorDiv,
        BinOp::Mod,
        BinOp::Pow,
        BinOp::LShift,
        BinOp::RShift,
        BinOp::BitAnd,
        BinOp::BitOr,
        BinOp::BitXor,
    ])
}

fn cmpop_s() -> impl Strategy<Value = CmpOp> + Clone {
    prop::sample::select(vec![
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Gt,
        CmpOp::Ge,
        CmpOp::Is,
        CmpOp::IsNot,
        CmpOp::In,
        CmpOp::NotIn,
    ])
}

/// Parameters as the parser accepts them: distinct names, and the ones with
/// a default after the ones without.
fn params_s(inner: BoxedStrategy<Expr>) -> impl Strategy<Value = Vec<Param>> + Clone {
    prop::collection::vec((name_s(), prop::option::of(inner)), 0..4).prop_map(|v| {
        let mut seen: Vec<String> = Vec::new();
        let mut plain = Vec::new();
        let mut defaulted = Vec::new();
        for (name, default) in v {
            if seen.contains(&name) {
                continue;
            }
            seen.push(name.clone());
            let p = Param {
                pos: pos0(),
                name,
                default,
                unpack: None,
            };
            if p.default.is_some() {
                defaulted.push(p);
            } else {
                plain.push(p);
            }
        }
        plain.extend(defaulted);
        plain
    })
}

/// What can be assigned to: names, attributes, items, slices, and tuples and
/// lists of those.
fn target_s(inner: BoxedStrategy<Expr>) -> BoxedStrategy<Expr> {
    let simple = prop_oneof![
        3 => name_s().prop_map(|n| ex(ExprKind::Name(n))),
        1 => (inner.clone(), name_s()).prop_map(|(v, attr)| ex(ExprKind::Attribute {
            value: Box::new(v),
            attr,
        })),
        1 => (inner.clone(), inner.clone()).prop_map(|(v, i)| ex(ExprKind::Subscript {
            value: Box::new(v),
            index: Box::new(i),
        })),
        1 => (inner.clone(), prop::option::of(inner.clone()), prop::option::of(inner))
            .prop_map(|(v, lo, hi)| ex(ExprKind::Slice {
                value: Box::new(v),
                lower: lo.map(Box::new),
                upper: hi.map(Box::new),
            })),
    ]
    .boxed();
    let nested = prop_oneof![
        simple.clone(),
        prop::collection::vec(simple.clone(), 0..3).prop_map(|v| ex(ExprKind::Tuple(v))),
    ];
    prop_oneof![
        4 => simple,
        1 => prop::collection::vec(nested.clone(), 0..4).prop_map(|v| ex(ExprKind::Tuple(v))),
        1 => prop::collection::vec(nested, 0..3).prop_map(|v| ex(ExprKind::List(v))),
    ]
    .boxed()
}

fn simple_target_s(inner: BoxedStrategy<Expr>) -> BoxedStrategy<Expr> {
    target_s(inner)
        .prop_filter("a single target", |t| {
            !matches!(t.kind, ExprKind::Tuple(_) | ExprKind::List(_))
        })
        .boxed()
}

fn expr_s() -> BoxedStrategy<Expr> {
    leaf_s()
        .prop_recursive(4, 48, 4, |inner| {
            let target = target_s(inner.clone());
            let generator = (
                target,
                inner.clone(),
                prop::collection::vec(inner.clone(), 0..2),
            )
                .prop_map(|(target, iter, ifs)| Comprehension { target, iter, ifs });
            let keywords = prop::collection::vec((name_s(), inner.clone()), 0..3).prop_map(|v| {
                let mut out: Vec<Keyword> = Vec::new();
                for (name, value) in v {
                    if !out.iter().any(|k| k.name == name) {
                        out.push(Keyword { name, value });
                    }
                }
                out
            });
            prop_oneof![
                3 => (binop_s(), inner.clone(), inner.clone()).prop_map(|(op, l, r)| {
                    ex(ExprKind::BinOp { op, left: Box::new(l), right: Box::new(r) })
                }),
                2 => (
                    prop::sample::select(vec![
                        UnaryOp::Neg,
                        UnaryOp::Pos,
                        UnaryOp::Not,
                        UnaryOp::Invert
                    ]),
                    inner.clone()
                )
                    .prop_map(|(op, x)| {
                        // The parser folds `-` of a number literal into the
                        // literal: such a node has no source form.
                        let op = match (op, &x.kind) {
                            (UnaryOp::Neg, ExprKind::Int(_) | ExprKind::Float(_)) => {
                                UnaryOp::Invert
                            }
                            _ => op,
                        };
                        ex(ExprKind::UnaryOp { op, operand: Box::new(x) })
                    }),
                1 => (any::<bool>(), prop::collection::vec(inner.clone(), 2..4)).prop_map(
                    |(and, values)| ex(ExprKind::BoolOp {
                        op: if and { BoolOp::And } else { BoolOp::Or },
                        values,
                    })
                ),
                1 => (inner.clone(), prop::collection::vec((cmpop_s(), inner.clone()), 1..3))
                    .prop_map(|(l, ops)| ex(ExprKind::Compare { left: Box::new(l), ops })),
                2 => (
                    inner.clone(),
                    prop::collection::vec(inner.clone(), 0..3),
                    keywords,
                    prop::option::of(inner.clone()),
                    prop::option::of(inner.clone())
                )
                    .prop_map(|(f, args, keywords, star, kwargs)| ex(ExprKind::Call {
                        func: Box::new(f),
                        args,
                        keywords,
                        star_args: star.map(Box::new),
                        kwargs: kwargs.map(Box::new),
                    })),
                1 => (inner.clone(), name_s()).prop_map(|(v, attr)| ex(ExprKind::Attribute {
                    value: Box::new(v),
                    attr,
                })),
                1 => (inner.clone(), inner.clone()).prop_map(|(v, i)| ex(ExprKind::Subscript {
                    value: Box::new(v),
                    index: Box::new(i),
                })),
                1 => (
                    inner.clone(),
                    prop::option::of(inner.clone()),
                    prop::option::of(inner.clone())
                )
                    .prop_map(|(v, lo, hi)| ex(ExprKind::Slice {
                        value: Box::new(v),
                        lower: lo.map(Box::new),
                        upper: hi.map(Box::new),
                    })),
                2 => prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(|v| ex(ExprKind::Tuple(v))),
                1 => prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(|v| ex(ExprKind::List(v))),
                1 => prop::collection::vec((inner.clone(), inner.clone()), 0..3)
                    .prop_map(|v| ex(ExprKind::Dict(v))),
                1 => (inner.clone(), inner.clone(), inner.clone()).prop_map(|(t, b, o)| {
                    ex(ExprKind::IfExp {
                        test: Box::new(t),
                        body: Box::new(b),
                        orelse: Box::new(o),
                    })
                }),
                1 => (inner.clone(), prop::collection::vec(generator.clone(), 1..3)).prop_map(
                    |(elt, generators)| ex(ExprKind::ListComp { elt: Box::new(elt), generators })
                ),
                1 => (params_s(inner.clone()), prop::option::of(name_s()), inner.clone())
                    .prop_map(|(params, star, body)| {
                        let star_args = star.filter(|s| !params.iter().any(|p| &p.name == s));
                        ex(ExprKind::Lambda {
                            params,
                            star_args,
                            kwonly: vec![],
                            kwargs: None,
                            body: Box::new(body),
                        })
                    }),
                1 => prop::collection::vec(inner.clone(), 1..4).prop_map(|v| ex(ExprKind::Set(v))),
                1 => (inner.clone(), prop::collection::vec(generator.clone(), 1..3)).prop_map(
                    |(elt, generators)| ex(ExprKind::SetComp { elt: Box::new(elt), generators })
                ),
                1 => (inner.clone(), prop::collection::vec(generator.clone(), 1..3)).prop_map(
                    |(elt, generators)| ex(ExprKind::GeneratorExp {
                        elt: Box::new(elt),
                        generators,
                    })
                ),
                1 => (inner.clone(), inner.clone(), prop::collection::vec(generator.clone(), 1..3))
                    .prop_map(|(key, value, generators)| ex(ExprKind::DictComp {
                        key: Box::new(key),
                        value: Box::new(value),
                        generators,
                    })),
                1 => (
                    inner.clone(),
                    prop::option::of(inner.clone()),
                    prop::option::of(inner.clone()),
                    inner.clone()
                )
                    .prop_map(|(v, lo, hi, step)| ex(ExprKind::Subscript {
                        value: Box::new(v),
                        index: Box::new(ex(ExprKind::SliceItem {
                            lower: lo.map(Box::new),
                            upper: hi.map(Box::new),
                            step: Some(Box::new(step)),
                        })),
                    })),
                1 => (
                    inner.clone(),
                    prop::option::of(inner.clone()),
                    prop::option::of(inner.clone()),
                    prop::collection::vec(inner, 0..2)
                )
                    .prop_map(|(v, lo, hi, rest)| {
                        let mut items = vec![ex(ExprKind::SliceItem {
                            lower: lo.map(Box::new),
                            upper: hi.map(Box::new),
                            step: None,
                        })];
                        items.extend(rest);
                        ex(ExprKind::Subscript {
                            value: Box::new(v),
                            index: Box::new(ex(ExprKind::Tuple(items))),
                        })
                    }),
            ]
        })
        .boxed()
}

fn alias_s(name: BoxedStrategy<String>) -> impl Strategy<Value = Alias> + Clone {
    (name, prop::option::of(name_s())).prop_map(|(name, asname)| Alias { name, asname })
}

/// One statement, nesting compound statements `depth` deep.
fn stmt_s(dialect: Dialect, depth: u32) -> BoxedStrategy<Stmt> {
    let e = expr_s();
    let target = target_s(e.clone());
    let simple_target = simple_target_s(e.clone());
    let py2 = dialect == Dialect::Py2;
    let raise = prop_oneof![
        Just((None, None, None)),
        e.clone().prop_map(|x| (Some(x), None, None)),
        (e.clone(), e.clone()).prop_map(move |(x, a)| (
            Some(x),
            if py2 { Some(a) } else { None },
            None
        )),
        (e.clone(), e.clone(), e.clone()).prop_map(move |(x, a, t)| {
            if py2 {
                (Some(x), Some(a), Some(t))
            } else {
                (Some(x), None, None)
            }
        }),
    ]
    .prop_map(move |(exc, arg, tb)| {
        let cause = if !py2 && exc.is_some() && arg.is_none() {
            Some(ex(ExprKind::Name("c".into())))
        } else {
            None
        };
        st(StmtKind::Raise {
            exc,
            arg,
            tb,
            cause,
        })
    });
    let yield_stmt = prop::option::of(e.clone())
        .prop_map(|v| st(StmtKind::Expr(ex(ExprKind::Yield(v.map(Box::new))))));
    let exec = (
        e.clone(),
        prop::option::of((e.clone(), prop::option::of(e.clone()))),
    )
        .prop_map(|(code, g)| {
            let (globals, locals) = match g {
                Some((g, l)) => (Some(g), l),
                None => (None, None),
            };
            st(StmtKind::Exec {
                code,
                globals,
                locals,
            })
        });
    let print_to = (
        e.clone(),
        prop::collection::vec(e.clone(), 0..3),
        any::<bool>(),
    )
        .prop_map(|(dest, values, newline)| {
            let newline = newline || values.is_empty();
            st(StmtKind::PrintTo {
                dest,
                values,
                newline,
            })
        });
    let print = prop_oneof![
        Just((vec![], true)),
        (prop::collection::vec(e.clone(), 1..4), any::<bool>()),
    ]
    .prop_map(|(values, newline)| st(StmtKind::Print { values, newline }));
    let import_from = (
        0u32..5,
        prop::option::of(dotted_s()),
        prop_oneof![
            3 => prop::collection::vec(alias_s(name_s().boxed()), 1..3),
            1 => Just(vec![Alias { name: "*".into(), asname: None }]),
        ],
    )
        .prop_map(|(level, module, names)| {
            let module = match (level, module) {
                (0, None) => "m".to_string(),
                (_, m) => m.unwrap_or_default(),
            };
            st(StmtKind::ImportFrom {
                module,
                names,
                level,
            })
        });
    let simple = prop_oneof![
        1 => prop::option::of(e.clone()).prop_map(|v| st(StmtKind::Return(v))),
        4 => (prop::collection::vec(target.clone(), 1..3), e.clone())
            .prop_map(|(targets, value)| st(StmtKind::Assign { targets, value })),
        2 => (simple_target, binop_s(), e.clone())
            .prop_map(|(target, op, value)| st(StmtKind::AugAssign { target, op, value })),
        1 => Just(st(StmtKind::Break)),
        1 => Just(st(StmtKind::Continue)),
        1 => Just(st(StmtKind::Pass)),
        4 => e.clone().prop_map(|x| st(StmtKind::Expr(x))),
        1 => prop::collection::vec(name_s(), 1..3).prop_map(|v| st(StmtKind::Global(v))),
        1 => prop::collection::vec(alias_s(dotted_s().boxed()), 1..3)
            .prop_map(|v| st(StmtKind::Import(v))),
        1 => import_from,
        1 => (e.clone(), prop::option::of(e.clone()))
            .prop_map(|(test, msg)| st(StmtKind::Assert { test, msg })),
        1 => raise,
        1 => prop::collection::vec(target.clone(), 1..3).prop_map(|v| st(StmtKind::Del(v))),
    ]
    .boxed();
    let simple = if py2 {
        prop_oneof![10 => simple, 1 => print, 1 => exec, 1 => print_to, 1 => yield_stmt].boxed()
    } else {
        prop_oneof![
            10 => simple,
            1 => yield_stmt,
            1 => prop::collection::vec(name_s(), 1..3).prop_map(|v| st(StmtKind::Nonlocal(v))),
        ]
        .boxed()
    };
    if depth == 0 {
        return simple;
    }
    let body = || prop::collection::vec(stmt_s(dialect, depth - 1), 1..3);
    let orelse = || {
        prop_oneof![
            2 => Just(vec![]),
            1 => body(),
        ]
    };
    let handler = (
        prop::option::of((e.clone(), prop::option::of(name_s()))),
        body(),
    )
        .prop_map(|(typ, body)| {
            let (typ, name) = match typ {
                Some((t, n)) => (Some(t), n),
                None => (None, None),
            };
            ExceptHandler {
                pos: pos0(),
                typ,
                name,
                body,
            }
        });
    let try_stmt = (
        body(),
        prop::collection::vec(handler, 0..3),
        orelse(),
        orelse(),
    )
        .prop_map(|(body, mut handlers, mut orelse, mut finalbody)| {
            // Only the last handler may be a bare `except:`.
            let n = handlers.len();
            for h in handlers.iter_mut().take(n.saturating_sub(1)) {
                if h.typ.is_none() {
                    h.typ = Some(ex(ExprKind::Name("E".into())));
                }
            }
            if handlers.is_empty() {
                orelse.clear();
                if finalbody.is_empty() {
                    finalbody.push(st(StmtKind::Pass));
                }
            }
            st(StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            })
        });
    let funcdef = (
        name_s(),
        params_s(e.clone()),
        prop::option::of(name_s()),
        prop::option::of(name_s()),
        prop::collection::vec(e.clone(), 0..2),
        body(),
    )
        .prop_map(|(name, params, star, kw, decorators, body)| {
            let star_args = star.filter(|s| !params.iter().any(|p| &p.name == s));
            let kwargs = kw
                .filter(|k| !params.iter().any(|p| &p.name == k) && star_args.as_ref() != Some(k));
            st(StmtKind::FunctionDef {
                name,
                params,
                star_args,
                kwonly: vec![],
                kwargs,
                decorators,
                body,
            })
        });
    let with_item = (e.clone(), prop::option::of(target.clone()))
        .prop_map(|(context, target)| WithItem { context, target });
    let with = (prop::collection::vec(with_item, 1..3), body())
        .prop_map(|(items, body)| st(StmtKind::With { items, body }));
    let classdef = (
        name_s(),
        prop::collection::vec(e.clone(), 0..3),
        prop::collection::vec(e.clone(), 0..2),
        body(),
    )
        .prop_map(|(name, bases, decorators, body)| {
            st(StmtKind::ClassDef {
                name,
                bases,
                decorators,
                body,
            })
        });
    let compound = prop_oneof![
        2 => (e.clone(), body(), orelse())
            .prop_map(|(test, body, orelse)| st(StmtKind::If { test, body, orelse })),
        // An `if` in an else branch alone: printed as `elif`.
        1 => (e.clone(), body(), e.clone(), body(), orelse()).prop_map(
            |(test, body, t2, b2, o2)| st(StmtKind::If {
                test,
                body,
                orelse: vec![st(StmtKind::If { test: t2, body: b2, orelse: o2 })],
            })
        ),
        1 => (e.clone(), body(), orelse())
            .prop_map(|(test, body, orelse)| st(StmtKind::While { test, body, orelse })),
        1 => (target, e, body(), orelse()).prop_map(|(target, iter, body, orelse)| {
            st(StmtKind::For { target, iter, body, orelse })
        }),
        1 => try_stmt,
        1 => funcdef,
        1 => classdef,
        1 => with,
    ];
    prop_oneof![2 => simple, 1 => compound].boxed()
}

fn module_s(dialect: Dialect) -> impl Strategy<Value = Module> {
    prop::collection::vec(stmt_s(dialect, 2), 1..5).prop_map(move |body| Module {
        path: "random.py".into(),
        dialect,
        body,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_py2_modules_round_trip(m in module_s(Dialect::Py2)) {
        if let Err(e) = check_roundtrip(&m) {
            return Err(TestCaseError::fail(e));
        }
    }

    #[test]
    fn random_py3_modules_round_trip(m in module_s(Dialect::Py3)) {
        if let Err(e) = check_roundtrip(&m) {
            return Err(TestCaseError::fail(e));
        }
    }

    #[test]
    fn random_expressions_round_trip(e in expr_s()) {
        // As an expression statement, and through print_expr.
        for dialect in [Dialect::Py2, Dialect::Py3] {
            let m = Module {
                path: "e.py".into(),
                dialect,
                body: vec![st(StmtKind::Expr(e.clone()))],
            };
            if let Err(err) = check_roundtrip(&m) {
                return Err(TestCaseError::fail(err));
            }
            let text = print_expr(&e);
            let back = parse_module("e.py", &text, dialect)
                .map_err(|d| TestCaseError::fail(format!("{}: {}", text, d)))?;
            let mut want = e.clone();
            zero_expr(&mut want);
            match back.body.as_slice() {
                [Stmt { kind: StmtKind::Expr(got), .. }] => {
                    let mut got = got.clone();
                    zero_expr(&mut got);
                    prop_assert_eq!(got, want, "{}", text);
                }
                other => return Err(TestCaseError::fail(format!("{}: {:?}", text, other))),
            }
        }
    }
}

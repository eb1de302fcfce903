//! Random well-typed integer programs: CPython, the LLInterpreter and the
//! native executable must print the same thing.
//!
//! Values stay below 2**32 (every assignment reduces modulo a positive
//! constant), so CPython's unbounded ints and rpy's machine words agree; the
//! divisors are kept positive and non-zero.

mod support;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rpy::pipeline::Source;
use rpy_ir::ast::Dialect;
use std::process::Command;

#[derive(Clone, Debug)]
enum Expr {
    Var(usize),
    Lit(i64),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    /// `a // (b % 7 + 1)` or `a % (b % 7 + 1)`: a positive divisor.
    Div(&'static str, Box<Expr>, Box<Expr>),
    Cond(&'static str, Box<Expr>, Box<Expr>, Box<Expr>, Box<Expr>),
}

impl Expr {
    fn render(&self) -> String {
        match self {
            Expr::Var(i) => format!("v{i}"),
            Expr::Lit(n) => format!("{n}"),
            Expr::Bin(op, a, b) => format!("({} {op} {})", a.render(), b.render()),
            Expr::Div(op, a, b) => format!("({} {op} ({} % 7 + 1))", a.render(), b.render()),
            Expr::Cond(op, a, b, c, d) => format!(
                "({} if {} {op} {} else {})",
                c.render(),
                a.render(),
                b.render(),
                d.render()
            ),
        }
    }
}

fn expr(nvars: usize) -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        (0..nvars).prop_map(Expr::Var),
        prop_oneof![Just(0i64), Just(1), Just(2), Just(-1), -1000i64..1000].prop_map(Expr::Lit),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (
                prop_oneof![
                    Just("+"),
                    Just("-"),
                    Just("*"),
                    Just("&"),
                    Just("|"),
                    Just("^")
                ],
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(op, a, b)| Expr::Bin(op, Box::new(a), Box::new(b))),
            (
                prop_oneof![Just("//"), Just("%")],
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(op, a, b)| Expr::Div(op, Box::new(a), Box::new(b))),
            (
                prop_oneof![Just("<"), Just("<="), Just("=="), Just("!="), Just(">")],
                inner.clone(),
                inner.clone(),
                inner.clone(),
                inner
            )
                .prop_map(|(op, a, b, c, d)| Expr::Cond(
                    op,
                    Box::new(a),
                    Box::new(b),
                    Box::new(c),
                    Box::new(d)
                )),
        ]
    })
}

/// A function of three int parameters: a few assignments and a bounded loop.
fn function(index: usize) -> impl Strategy<Value = String> {
    (
        proptest::collection::vec((0..3usize, expr(3)), 1..5),
        expr(3),
        1i64..6,
        expr(3),
    )
        .prop_map(move |(assigns, cond, iterations, ret)| {
            let mut s = format!("def f{index}(v0, v1, v2):\n");
            s += &format!("    for i in range({iterations}):\n");
            for (target, e) in &assigns {
                s += &format!("        v{target} = {} % 65536\n", e.render());
            }
            s += &format!(
                "        if {} % 3 == 0:\n            v2 = v2 + i\n",
                cond.render()
            );
            s += &format!("    return {} % 1000003\n", ret.render());
            s
        })
}

fn program() -> impl Strategy<Value = String> {
    proptest::collection::vec(any::<u8>(), 4).prop_flat_map(|_| {
        (function(0), function(1), function(2), function(3)).prop_map(|(a, b, c, d)| {
            let mut s = String::from("import sys\n\n");
            for f in [a, b, c, d] {
                s += &f;
                s += "\n";
            }
            s += "def entry_point(argv):\n    x = int(argv[1])\n";
            for i in 0..4 {
                s += &format!("    print(str(f{i}(x, x + {i}, 7 - x)))\n");
            }
            s += "    return 0\n\ndef target(*args):\n    return entry_point\n\n";
            s += "if __name__ == '__main__':\n    sys.exit(entry_point(sys.argv))\n";
            s
        })
    })
}

#[test]
fn random_programs_agree_with_cpython() {
    let Some(python) = support::oracle(Dialect::Py3) else {
        eprintln!("skipping: python3 is not on this machine");
        return;
    };
    let dir = support::ScratchDir::new("random");
    let mut runner = TestRunner::new(Config {
        cases: 12,
        ..Config::default()
    });
    let case = std::cell::Cell::new(0);
    runner
        .run(&program(), |text| {
            case.set(case.get() + 1);
            let case = case.get();
            let file = dir.join(format!("case{case}.py"));
            std::fs::write(&file, &text).unwrap();
            let src = Source {
                path: file.to_string_lossy().into_owned(),
                text: text.clone(),
                dialect: Dialect::Py3,
                gc: rpy_ir::llops::GcKind::default(),
                jit: false,
            };
            for x in ["3", "-5"] {
                let expected = support::run(Command::new(&python).arg(&file).arg(x));
                let argv = vec![src.path.clone(), x.to_string()];
                let got = support::interp(&src, &argv);
                prop_assert_eq!(&got, &expected, "LLInterpreter on x={}:\n{}", x, text);
            }
            let exe = support::build(&src, &format!("case{case}"));
            for x in ["3", "-5"] {
                let expected = support::run(Command::new(&python).arg(&file).arg(x));
                let got = support::run(Command::new(&exe).arg(x));
                prop_assert_eq!(&got, &expected, "executable on x={}:\n{}", x, text);
            }
            Ok(())
        })
        .unwrap();
}

//! Edge cases of the operations' Python semantics (expected values are
//! CPython's), and whole flow graphs run through the interpreter.

use super::ops::{binary, call_builtin, compare, contains, getitem, setitem, unary, Op};
use super::*;
use rpy_ir::ast::Dialect::{Py2, Py3};

fn i(x: i64) -> ObjValue {
    ObjValue::Int(x)
}
fn f(x: f64) -> ObjValue {
    ObjValue::Float(x)
}
fn b(x: bool) -> ObjValue {
    ObjValue::Bool(x)
}
fn s(x: &str) -> ObjValue {
    ObjValue::str(x)
}

fn bin(op: Op, x: ObjValue, y: ObjValue, d: Dialect) -> ObjValue {
    binary(op, &x, &y, d).unwrap_or_else(|e| panic!("{op:?}({x:?}, {y:?}): {e:?}"))
}

fn bin_err(op: Op, x: ObjValue, y: ObjValue, d: Dialect) -> String {
    match binary(op, &x, &y, d) {
        Ok(v) => panic!("{op:?}({x:?}, {y:?}) gave {v:?}"),
        Err(e) => format!("{}: {}", e.exc, e.msg),
    }
}

fn text(v: &ObjValue, d: Dialect) -> String {
    String::from_utf8(v.to_str(d)).unwrap()
}

/// CPython of `dialect` run on `code`, its output lines; `None` without it.
pub(super) fn cpython(dialect: Dialect, code: &str) -> Option<Vec<String>> {
    let python = match dialect {
        Dialect::Py2 => "/root/.pyenv/versions/2.7.18/bin/python2.7",
        Dialect::Py3 => "python3",
    };
    let out = std::process::Command::new(python)
        .arg("-c")
        .arg(code)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect(),
    )
}

fn builtin(name: &str, args: &[ObjValue], d: Dialect) -> Result<ObjValue, String> {
    call_builtin(name, args, d).map_err(|e| format!("{}: {}", e.exc, e.msg))
}

#[test]
fn op_names_round_trip() {
    for op in Op::ALL {
        assert_eq!(Op::from_name(op.name()), Some(op));
    }
    assert_eq!(Op::from_name("int_add"), None);
}

#[test]
fn floor_division_and_modulo_signs() {
    // (a, b, a // b, a % b) as CPython computes them.
    for (a, b2, q, r) in [
        (7, 2, 3, 1),
        (-7, 2, -4, 1),
        (7, -2, -4, -1),
        (-7, -2, 3, -1),
        (6, 3, 2, 0),
        (-6, 3, -2, 0),
        (0, -5, 0, 0),
    ] {
        for d in [Py2, Py3] {
            assert_eq!(bin(Op::FloorDiv, i(a), i(b2), d), i(q), "{a} // {b2}");
            assert_eq!(bin(Op::Mod, i(a), i(b2), d), i(r), "{a} % {b2}");
        }
        assert_eq!(bin(Op::Div, i(a), i(b2), Py2), i(q), "py2 {a} / {b2}");
    }
    assert_eq!(bin(Op::FloorDiv, i(i64::MIN), i(-1), Py3), i(i64::MIN));
    assert_eq!(bin(Op::Mod, i(i64::MIN), i(-1), Py3), i(0));
    // Floats: the result of % has the divisor's sign, // floors.
    assert_eq!(bin(Op::Mod, f(-7.5), i(2), Py3), f(0.5));
    assert_eq!(bin(Op::Mod, f(7.5), i(-2), Py3), f(-0.5));
    assert_eq!(bin(Op::FloorDiv, f(-7.5), i(2), Py3), f(-4.0));
    assert_eq!(bin(Op::FloorDiv, f(7.5), f(-2.0), Py2), f(-4.0));
    let m = bin(Op::Mod, f(-0.0), i(2), Py3);
    assert!(matches!(m, ObjValue::Float(x) if x == 0.0 && x.is_sign_positive()));
    let m = bin(Op::Mod, f(0.0), i(-2), Py3);
    assert!(matches!(m, ObjValue::Float(x) if x == 0.0 && x.is_sign_negative()));
    // 0.1 // 0.1 style cases CPython rounds carefully.
    assert_eq!(bin(Op::FloorDiv, f(1.0), f(0.1), Py3), f(9.0));
    assert_eq!(bin(Op::Mod, f(1.0), f(0.1), Py3), f(0.09999999999999995));
    // Division: py2 `div` floors ints, true division elsewhere.
    assert_eq!(bin(Op::Div, i(7), i(2), Py2), i(3));
    assert_eq!(bin(Op::Div, f(7.0), i(2), Py2), f(3.5));
    assert_eq!(bin(Op::TrueDiv, i(7), i(2), Py3), f(3.5));
    assert_eq!(bin(Op::TrueDiv, b(true), i(2), Py3), f(0.5));
}

#[test]
fn zero_division_messages() {
    let z = "ZeroDivisionError: ";
    assert_eq!(
        bin_err(Op::FloorDiv, i(1), i(0), Py3),
        format!("{z}integer division or modulo by zero")
    );
    assert_eq!(
        bin_err(Op::TrueDiv, i(1), i(0), Py3),
        format!("{z}division by zero")
    );
    assert_eq!(
        bin_err(Op::Mod, i(1), i(0), Py3),
        format!("{z}integer modulo by zero")
    );
    assert_eq!(
        bin_err(Op::Mod, i(1), i(0), Py2),
        format!("{z}integer division or modulo by zero")
    );
    assert_eq!(
        bin_err(Op::Div, i(1), i(0), Py2),
        format!("{z}integer division or modulo by zero")
    );
    assert_eq!(
        bin_err(Op::Div, f(1.0), i(0), Py2),
        format!("{z}float division by zero")
    );
    assert_eq!(
        bin_err(Op::TrueDiv, f(1.0), f(0.0), Py3),
        format!("{z}float division by zero")
    );
    assert_eq!(
        bin_err(Op::FloorDiv, f(1.0), i(0), Py3),
        format!("{z}float floor division by zero")
    );
    assert_eq!(
        bin_err(Op::FloorDiv, f(1.0), i(0), Py2),
        format!("{z}float divmod()")
    );
    assert_eq!(
        bin_err(Op::Mod, f(1.0), b(false), Py3),
        format!("{z}float modulo")
    );
    assert_eq!(
        bin_err(Op::Pow, i(0), i(-1), Py3),
        format!("{z}0.0 cannot be raised to a negative power")
    );
}

#[test]
fn power_shifts_and_wrapping() {
    assert_eq!(bin(Op::Pow, i(2), i(10), Py3), i(1024));
    assert_eq!(bin(Op::Pow, i(-3), i(3), Py3), i(-27));
    assert_eq!(bin(Op::Pow, i(7), i(0), Py3), i(1));
    assert_eq!(bin(Op::Pow, i(10), i(-2), Py3), f(0.01));
    assert_eq!(bin(Op::Pow, i(2), f(0.5), Py3), f(std::f64::consts::SQRT_2));
    assert_eq!(bin(Op::Pow, i(2), i(64), Py3), i(0), "machine words wrap");
    assert_eq!(bin(Op::Add, i(i64::MAX), i(1), Py3), i(i64::MIN));
    assert_eq!(bin(Op::Mul, i(i64::MAX), i(2), Py3), i(-2));
    assert_eq!(bin(Op::LShift, i(1), i(3), Py3), i(8));
    assert_eq!(bin(Op::RShift, i(-7), i(1), Py3), i(-4));
    assert_eq!(bin(Op::RShift, i(-7), i(100), Py3), i(-1));
    assert_eq!(bin(Op::LShift, i(1), i(64), Py3), i(0));
    assert_eq!(
        bin_err(Op::LShift, i(1), i(-1), Py3),
        "ValueError: negative shift count"
    );
    assert_eq!(
        bin_err(Op::Pow, f(2.0), i(100000), Py3),
        "OverflowError: (34, 'Numerical result out of range')"
    );
    assert_eq!(
        bin_err(Op::Pow, f(-8.0), f(0.5), Py2),
        "ValueError: negative number cannot be raised to a fractional power"
    );
}

#[test]
fn bools_are_ints() {
    assert_eq!(bin(Op::Add, b(true), b(true), Py3), i(2));
    assert_eq!(bin(Op::And, b(true), b(false), Py3), b(false));
    assert_eq!(bin(Op::Or, b(true), b(false), Py3), b(true));
    assert_eq!(bin(Op::Xor, b(true), b(true), Py3), b(false));
    assert_eq!(bin(Op::And, b(true), i(3), Py3), i(1));
    assert_eq!(bin(Op::Mul, i(3), b(true), Py3), i(3));
    assert_eq!(bin(Op::Add, b(true), f(0.5), Py3), f(1.5));
    assert_eq!(unary(Op::Neg, &b(true)).unwrap(), i(-1));
    assert_eq!(unary(Op::Pos, &b(true)).unwrap(), i(1));
    assert_eq!(unary(Op::Invert, &b(true)).unwrap(), i(-2));
    assert_eq!(unary(Op::Not, &i(0)).unwrap(), b(true));
    assert_eq!(unary(Op::Bool, &s("")).unwrap(), b(false));
    assert_eq!(unary(Op::Bool, &f(-0.0)).unwrap(), b(false));
    assert_eq!(builtin("abs", &[b(true)], Py3), Ok(i(1)));
    assert_eq!(builtin("int", &[b(true)], Py3), Ok(i(1)));
    assert_eq!(
        unary(Op::Invert, &f(1.5)).map_err(|e| e.msg),
        Err("bad operand type for unary ~: 'float'".into())
    );
}

#[test]
fn float_formatting_per_dialect() {
    for (x, py3, py2) in [
        (0.1 + 0.2, "0.30000000000000004", "0.3"),
        (1.0 / 3.0, "0.3333333333333333", "0.333333333333"),
        (123456789012.0, "123456789012.0", "1.23456789012e+11"),
        (1e16, "1e+16", "1e+16"),
        (-0.0, "-0.0", "-0.0"),
        (2.5, "2.5", "2.5"),
        (1e-5, "1e-05", "1e-05"),
        (f64::INFINITY, "inf", "inf"),
    ] {
        assert_eq!(text(&f(x), Py3), py3);
        assert_eq!(text(&f(x), Py2), py2);
    }
    // repr of a float is the short form in both dialects.
    let l = ObjValue::list(vec![f(0.1 + 0.2), s("a'b"), i(3), ObjValue::None]);
    assert_eq!(text(&l, Py2), "[0.30000000000000004, \"a'b\", 3, None]");
    assert_eq!(
        text(&ObjValue::list(vec![s("\u{e9}")]), Py2),
        "['\\xc3\\xa9']"
    );
    assert_eq!(text(&ObjValue::list(vec![s("\u{e9}")]), Py3), "['\u{e9}']");
    assert_eq!(text(&b(true), Py2), "True");
}

#[test]
fn string_operations() {
    assert_eq!(bin(Op::Add, s("ab"), s("cd"), Py3), s("abcd"));
    assert_eq!(bin(Op::Mul, s("ab"), i(3), Py3), s("ababab"));
    assert_eq!(bin(Op::Mul, i(2), s("ab"), Py3), s("abab"));
    assert_eq!(bin(Op::Mul, s("ab"), i(-2), Py3), s(""));
    assert_eq!(bin(Op::Mul, s("ab"), b(true), Py3), s("ab"));
    assert_eq!(
        bin_err(Op::Mul, s("a"), f(1.5), Py3),
        "TypeError: can't multiply sequence by non-int of type 'float'"
    );
    assert_eq!(
        bin_err(Op::Add, s("a"), i(1), Py3),
        "TypeError: can only concatenate str (not \"int\") to str"
    );
    assert_eq!(
        bin_err(Op::Add, s("a"), i(1), Py2),
        "TypeError: cannot concatenate 'str' and 'int' objects"
    );
    assert_eq!(
        bin_err(Op::Add, i(1), s("a"), Py3),
        "TypeError: unsupported operand type(s) for +: 'int' and 'str'"
    );
    // Bytewise comparisons.
    let lt = |x: &str, y: &str| compare(Op::Lt, &s(x), &s(y), Py3).unwrap();
    assert_eq!(lt("pea", "pear"), b(true));
    assert_eq!(lt("Z", "a"), b(true));
    assert_eq!(lt("", ""), b(false));
    assert_eq!(lt("\u{e9}", "z"), b(false));
    assert_eq!(compare(Op::Eq, &s("a"), &i(1), Py3).unwrap(), b(false));
    assert_eq!(compare(Op::Ne, &s("a"), &i(1), Py3).unwrap(), b(true));
    assert_eq!(
        compare(Op::Lt, &s("a"), &i(1), Py3).map_err(|e| e.msg),
        Err("'<' not supported between instances of 'str' and 'int'".into())
    );
    assert_eq!(compare(Op::Lt, &s("a"), &i(1), Py2).unwrap(), b(false));
    assert_eq!(
        compare(Op::Lt, &ObjValue::None, &i(-5), Py2).unwrap(),
        b(true)
    );
    // Indexing, with negative indexes.
    assert_eq!(getitem(&s("pear"), &i(-1), Py3).unwrap(), s("r"));
    assert_eq!(getitem(&s("pear"), &i(0), Py3).unwrap(), s("p"));
    assert_eq!(getitem(&s("pear"), &b(true), Py3).unwrap(), s("e"));
    for k in [4, -5] {
        assert_eq!(
            getitem(&s("pear"), &i(k), Py3).map_err(|e| format!("{}: {}", e.exc, e.msg)),
            Err("IndexError: string index out of range".into())
        );
    }
    assert_eq!(contains(&s("pear"), &s("ea")).unwrap(), b(true));
    assert_eq!(contains(&s("pear"), &s("")).unwrap(), b(true));
    assert_eq!(contains(&s("pear"), &s("x")).unwrap(), b(false));
    assert_eq!(
        contains(&s("pear"), &i(1)).map_err(|e| e.msg),
        Err("'in <string>' requires string as left operand, not int".into())
    );
    // %-formatting with one value.
    assert_eq!(bin(Op::Mod, s("n=%d!"), i(-42), Py3), s("n=-42!"));
    assert_eq!(bin(Op::Mod, s("[%5s]"), s("ab"), Py3), s("[   ab]"));
    assert_eq!(bin(Op::Mod, s("[%-4d]"), i(7), Py3), s("[7   ]"));
    assert_eq!(bin(Op::Mod, s("%05d"), i(-42), Py3), s("-0042"));
    assert_eq!(
        bin_err(Op::Mod, s("%d %d"), i(1), Py3),
        "TypeError: not enough arguments for format string"
    );
    assert_eq!(bin(Op::Mod, s("%.3f%%"), f(2.0 / 3.0), Py3), s("0.667%"));
    assert_eq!(bin(Op::Mod, s("%x"), i(255), Py3), s("ff"));
    assert_eq!(bin(Op::Mod, s("%s"), f(0.1 + 0.2), Py2), s("0.3"));
    assert_eq!(bin(Op::Mod, s("%r"), s("a"), Py3), s("'a'"));
    assert_eq!(bin(Op::Mod, s("%e"), f(12345.678), Py3), s("1.234568e+04"));
    assert_eq!(bin(Op::Mod, s("%g"), f(0.0001), Py3), s("0.0001"));
    assert_eq!(bin(Op::Mod, s("%06.2f"), f(-1.23456), Py3), s("-01.23"));
}

#[test]
fn mixed_number_comparisons_are_exact() {
    let cmp = |op, x: ObjValue, y: ObjValue| compare(op, &x, &y, Py3).unwrap();
    assert_eq!(cmp(Op::Eq, i(1), f(1.0)), b(true));
    assert_eq!(cmp(Op::Eq, b(true), f(1.0)), b(true));
    assert_eq!(cmp(Op::Lt, i(1), f(1.5)), b(true));
    assert_eq!(cmp(Op::Gt, i(-1), f(-1.5)), b(true));
    assert_eq!(cmp(Op::Lt, b(false), b(true)), b(true));
    // 2**53 + 1 is not equal to the float 2**53 (which it rounds to).
    let big = (1i64 << 53) + 1;
    assert_eq!(cmp(Op::Eq, i(big), f((1i64 << 53) as f64)), b(false));
    assert_eq!(cmp(Op::Gt, i(big), f((1i64 << 53) as f64)), b(true));
    assert_eq!(cmp(Op::Lt, i(i64::MAX), f(9.3e18)), b(true));
    assert_eq!(cmp(Op::Eq, f(f64::NAN), f(f64::NAN)), b(false));
    assert_eq!(cmp(Op::Ne, i(1), f(f64::NAN)), b(true));
    assert_eq!(cmp(Op::Le, i(1), f(f64::NAN)), b(false));
    assert_eq!(cmp(Op::Is, ObjValue::None, ObjValue::None), b(true));
    assert_eq!(cmp(Op::Is, i(1), b(true)), b(false));
}

#[test]
fn builtins() {
    assert_eq!(builtin("int", &[s(" -17 ")], Py3), Ok(i(-17)));
    assert_eq!(builtin("int", &[s("+5")], Py2), Ok(i(5)));
    assert_eq!(builtin("int", &[s("1_0")], Py3), Ok(i(10)));
    assert_eq!(
        builtin("int", &[s("1_0")], Py2),
        Err("ValueError: invalid literal for int() with base 10: '1_0'".into())
    );
    assert_eq!(
        builtin("int", &[s("abc")], Py3),
        Err("ValueError: invalid literal for int() with base 10: 'abc'".into())
    );
    assert_eq!(builtin("int", &[s("ff"), i(16)], Py3), Ok(i(255)));
    assert_eq!(builtin("int", &[s("0x1F"), i(0)], Py3), Ok(i(31)));
    assert_eq!(builtin("int", &[s("-101"), i(2)], Py3), Ok(i(-5)));
    assert_eq!(
        builtin("int", &[s("z"), i(16)], Py3),
        Err("ValueError: invalid literal for int() with base 16: 'z'".into())
    );
    assert_eq!(builtin("int", &[f(-2.7)], Py3), Ok(i(-2)));
    assert_eq!(
        builtin("int", &[f(f64::NAN)], Py3),
        Err("ValueError: cannot convert float NaN to integer".into())
    );
    assert_eq!(builtin("float", &[s(" 2.5 ")], Py3), Ok(f(2.5)));
    assert_eq!(builtin("float", &[s("1e3")], Py2), Ok(f(1000.0)));
    assert_eq!(
        builtin("float", &[s("z")], Py3),
        Err("ValueError: could not convert string to float: 'z'".into())
    );
    assert_eq!(
        builtin("float", &[s("z")], Py2),
        Err("ValueError: could not convert string to float: z".into())
    );
    assert_eq!(
        builtin("str", &[f(1.0 / 3.0)], Py2),
        Ok(s("0.333333333333"))
    );
    assert_eq!(builtin("str", &[ObjValue::None], Py3), Ok(s("None")));
    assert_eq!(builtin("len", &[s("pear")], Py3), Ok(i(4)));
    assert_eq!(
        builtin("len", &[i(1)], Py3),
        Err("TypeError: object of type 'int' has no len()".into())
    );
    assert_eq!(builtin("min", &[i(3), f(1.5), i(2)], Py3), Ok(f(1.5)));
    assert_eq!(
        builtin("max", &[i(1), b(true)], Py3),
        Ok(i(1)),
        "the first of equals"
    );
    assert_eq!(builtin("max", &[s("pear")], Py3), Ok(s("r")));
    assert_eq!(
        builtin("min", &[s("")], Py3),
        Err("ValueError: min() arg is an empty sequence".into())
    );
    assert_eq!(builtin("ord", &[s("a")], Py3), Ok(i(97)));
    assert_eq!(
        builtin("ord", &[s("ab")], Py3),
        Err("TypeError: ord() expected a character, but string of length 2 found".into())
    );
    assert_eq!(builtin("chr", &[i(65)], Py2), Ok(s("A")));
    // A str holds bytes: chr(233) is the one byte 0xe9 in both dialects;
    // a Python 3 char beyond 255 is outside rpy's str, which says so.
    assert_eq!(builtin("chr", &[i(233)], Py3), Ok(ObjValue::str([0xe9])));
    assert_eq!(builtin("ord", &[ObjValue::str([0xe9])], Py3), Ok(i(233)));
    assert_eq!(
        builtin("chr", &[i(0x4e2d)], Py3),
        Err(
            "NotImplementedError: rpy: chr() of a code point above 0xff, which a Python 3 str \
             of rpy cannot hold"
                .into()
        )
    );
    assert_eq!(
        builtin("chr", &[i(256)], Py2),
        Err("ValueError: chr() arg not in range(256)".into())
    );
    assert_eq!(
        builtin("chr", &[i(-1)], Py3),
        Err("ValueError: chr() arg not in range(0x110000)".into())
    );
    assert_eq!(builtin("abs", &[f(-0.0)], Py3), Ok(f(0.0)));
    assert_eq!(builtin("bool", &[], Py3), Ok(b(false)));
}

#[test]
fn lists() {
    let l = ObjValue::list(vec![i(1), i(2), i(3)]);
    assert_eq!(getitem(&l, &i(-1), Py3).unwrap(), i(3));
    setitem(&l, &i(0), s("x"), Py3).unwrap();
    assert_eq!(getitem(&l, &i(0), Py3).unwrap(), s("x"));
    assert_eq!(
        setitem(&l, &i(3), i(0), Py3).map_err(|e| e.msg),
        Err("list assignment index out of range".into())
    );
    assert_eq!(
        getitem(&l, &i(3), Py3).map_err(|e| e.msg),
        Err("list index out of range".into())
    );
    assert_eq!(contains(&l, &i(2)).unwrap(), b(true));
    assert_eq!(contains(&l, &f(2.0)).unwrap(), b(true));
    assert_eq!(
        bin(Op::Mul, l.clone(), i(2), Py3).to_str(Py3),
        b"['x', 2, 3, 'x', 2, 3]"
    );
    assert_eq!(builtin("len", std::slice::from_ref(&l), Py3), Ok(i(3)));
    assert_eq!(
        setitem(&s("ab"), &i(0), s("x"), Py3).map_err(|e| e.msg),
        Err("'str' object does not support item assignment".into())
    );
}

// ---- whole graphs ------------------------------------------------------------

fn program(src: &str, dialect: Dialect) -> Program<Flow> {
    let m = crate::parse::parse_module("t.py", src, dialect).unwrap_or_else(|e| panic!("{e}"));
    let mut p = crate::flow::build_flow(&m, src).unwrap_or_else(|e| panic!("{e}"));
    crate::simplify::simplify_program(&mut p);
    p
}

fn run_main(src: &str, dialect: Dialect, argv: &[&str]) -> (Result<i64, ObjError>, String) {
    let p = program(src, dialect);
    let argv: Vec<String> = argv.iter().map(|a| a.to_string()).collect();
    let mut out = Vec::new();
    let r = ObjInterpreter::new(&p, dialect).run_entry(&argv, &mut out);
    (r, String::from_utf8(out).unwrap())
}

const TARGET: &str = "\ndef target(*args):\n    return entry_point\n";

#[test]
fn runs_a_program_with_argv() {
    let src = format!(
        "
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

def entry_point(argv):
    n = int(argv[1])
    print(fib(n), 7 / 2, str(0.1 + 0.2), len(argv))
    return n + 1
{TARGET}"
    );
    let (r, out) = run_main(&src, Py3, &["prog", "15"]);
    assert_eq!(r, Ok(16));
    assert_eq!(out, "610 3.5 0.30000000000000004 2\n");
}

#[test]
fn deep_recursion_does_not_use_the_rust_stack() {
    let src = format!(
        "
def down(n):
    if n == 0:
        return 0
    return down(n - 1) + 1

def entry_point(argv):
    print down(50000)
    return 0
{TARGET}"
    );
    let p = program(&src, Py2);
    let mut out = Vec::new();
    let r = ObjInterpreter::new(&p, Py2)
        .with_max_depth(100_000)
        .run_entry(&["prog".to_string()], &mut out);
    assert_eq!(r, Ok(0));
    assert_eq!(out, b"50000\n");
    // And the recursion limit is an error, not a crash.
    let p = program(&src, Py2);
    let mut it = ObjInterpreter::new(&p, Py2).with_max_depth(100);
    let e = it.call("down", vec![i(1000)], &mut Vec::new()).unwrap_err();
    // (Python 2's recursion limit raises RuntimeError.)
    assert_eq!(e.exc, "RuntimeError");
    assert_eq!(e.traceback.len(), 100);
}

#[test]
fn nested_calls_count_towards_the_recursion_limit() {
    // `list(x)` on an instance calls its `__iter__` from inside the
    // operation; one that lists itself again recurses through such nested
    // calls, which the limit must stop as it stops plain recursion.
    let src = format!(
        "
class Endless(object):
    def __iter__(self):
        return iter(list(self))

def entry_point(argv):
    print len(list(Endless()))
    return 0
{TARGET}"
    );
    let p = program(&src, Py2);
    let mut it = ObjInterpreter::new(&p, Py2).with_max_depth(60);
    let e = it
        .call(
            "entry_point",
            vec![ObjValue::list(Vec::new())],
            &mut Vec::new(),
        )
        .unwrap_err();
    // (Python 2's recursion limit raises RuntimeError.)
    assert_eq!(e.exc, "RuntimeError", "{e}");
    // Under the default limit, the nesting's own limit stops it first.
    let e = ObjInterpreter::new(&p, Py2)
        .call(
            "entry_point",
            vec![ObjValue::list(Vec::new())],
            &mut Vec::new(),
        )
        .unwrap_err();
    assert_eq!(e.exc, "RuntimeError", "{e}");
}

#[test]
fn errors_name_the_exception_and_the_graph() {
    let src = format!(
        "
def half(a, b):
    return a // b

def entry_point(argv):
    print half(7, len(argv) - 1)
    return 0
{TARGET}"
    );
    let (r, out) = run_main(&src, Py2, &["prog"]);
    let e = r.unwrap_err();
    assert_eq!(out, "");
    assert_eq!(
        e.exception_line(),
        "ZeroDivisionError: integer division or modulo by zero"
    );
    assert_eq!(e.graph, "half");
    assert_eq!(*e.traceback, ["entry_point", "half"]);
    assert_eq!(e.op.as_deref(), Some("floordiv"));
    assert!(e.to_string().contains("in graph 'half'"), "{e}");

    let (r, _) = run_main(&src.replace("argv) - 1", "argv[5])"), Py2, &["prog"]);
    assert_eq!(
        r.unwrap_err().exception_line(),
        "IndexError: list index out of range"
    );
}

#[test]
fn step_limit_stops_endless_loops() {
    let src = format!(
        "
def entry_point(argv):
    n = 0
    while len(argv) > 0:
        n = n + 1
    return n
{TARGET}"
    );
    let p = program(&src, Py3);
    let mut it = ObjInterpreter::new(&p, Py3).with_step_limit(10_000);
    let e = it
        .run_entry(&["x".to_string()], &mut Vec::new())
        .unwrap_err();
    assert_eq!(e.exc, "StepLimit");
}

#[test]
fn unknown_function_is_an_error() {
    let src = format!("\ndef entry_point(argv):\n    return 0\n{TARGET}");
    let p = program(&src, Py3);
    let e = ObjInterpreter::new(&p, Py3)
        .call("nope", vec![], &mut Vec::new())
        .unwrap_err();
    assert_eq!(e.exc, "NameError");
    let e = ObjInterpreter::new(&p, Py3)
        .call("entry_point", vec![], &mut Vec::new())
        .unwrap_err();
    assert_eq!(
        e.exception_line(),
        "TypeError: entry_point() takes 1 positional argument but 0 were given"
    );
}

#[test]
fn generic_operations_on_instances_call_the_class_methods() {
    // The iterator method is `next` in Python 2 and `__next__` in Python 3;
    // the other dialect's name is an ordinary method.
    for (dialect, next_name, other_name) in [(Py2, "next", "__next__"), (Py3, "__next__", "next")] {
        let src = format!(
            "
class Box(object):
    def __init__(self):
        self.items = [3, 4]
    def __len__(self):
        return 10
    def __getitem__(self, i):
        return self.items[i] * 2
    def __setitem__(self, i, v):
        self.items[i] = v + 1
    def __iter__(self):
        self.pos = 0
        return self
    def {next_name}(self):
        if self.pos >= len(self.items):
            raise StopIteration
        self.pos += 1
        return self.items[self.pos - 1]
    def {other_name}(self):
        return -1

def entry_point(argv):
    b = Box()
    b[0] = 5
    total = len(b) + b[1]
    for x in b:
        total = total * 100 + x
    return total
{TARGET}"
        );
        let (r, _) = run_main(&src, dialect, &["prog"]);
        // 10 + 4 * 2 = 18; then the items 6 and 4.
        assert_eq!(r, Ok(180604), "{dialect:?}");
    }
    let src = format!(
        "
class Empty(object):
    pass

def entry_point(argv):
    return len(Empty())
{TARGET}"
    );
    let (r, _) = run_main(&src, Py3, &["prog"]);
    assert_eq!(r.map_err(|e| e.exc), Err("TypeError".to_string()));
}

#[test]
fn membership_and_deletion_on_instances_call_the_class_methods() {
    let src = format!(
        "
class Bag(object):
    def __init__(self):
        self.items = [1, 2, 3]
    def __contains__(self, x):
        return x in self.items
    def __delitem__(self, i):
        del self.items[i]

def entry_point(argv):
    b = Bag()
    del b[0]
    return (1 in b) * 10 + (2 in b)
{TARGET}"
    );
    for dialect in [Py2, Py3] {
        let (r, _) = run_main(&src, dialect, &["prog"]);
        // The items left are 2 and 3: 1 is not in, 2 is.
        assert_eq!(r, Ok(1), "{dialect:?}");
    }
}

#[test]
fn unsigned_words() {
    let u = ObjValue::UInt;
    // Wrapping, unsigned order, and an int operand taken modulo 2**64.
    assert_eq!(bin(Op::Sub, u(1), u(2), Py2), u(u64::MAX));
    assert_eq!(bin(Op::Add, u(1), i(-1), Py3), u(0));
    assert_eq!(bin(Op::LShift, u(1), i(64), Py2), u(0));
    assert_eq!(bin(Op::FloorDiv, u(u64::MAX), u(2), Py3), u(u64::MAX / 2));
    assert_eq!(
        bin_err(Op::Mod, u(3), u(0), Py2),
        "ZeroDivisionError: long division or modulo by zero"
    );
    assert_eq!(compare(Op::Gt, &u(0), &i(-1), Py3), Ok(b(true)));
    assert_eq!(compare(Op::Lt, &u(u64::MAX), &u(1), Py2), Ok(b(false)));
    assert_eq!(unary(Op::Invert, &u(0)), Ok(u(u64::MAX)));
    assert_eq!(text(&u(5), Py2), "5");
    assert_eq!(text(&u(5), Py3), "5");
    // hash as CPython 2.7 computes it (without -R).
    let code = "print(hash(-1))\nprint(hash(''))\nprint(hash('a'))\nprint(hash((1, 2)))\n\
                print(hash(-1.0))\nprint(hash(9.21e18))\nprint(hash(-2.0 ** 63))\n";
    let Some(expected) = cpython(Py2, code) else {
        eprintln!("no CPython 2.7: hash not compared");
        return;
    };
    let hashed = [
        i(-1),
        s(""),
        s("a"),
        ObjValue::tuple(vec![i(1), i(2)]),
        f(-1.0),
        f(9.21e18),
        f(-(2.0f64.powi(63))),
    ];
    let ours: Vec<String> = hashed
        .iter()
        .map(|x| text(&builtin("hash", std::slice::from_ref(x), Py2).unwrap(), Py2))
        .collect();
    assert_eq!(ours, expected);
}

#[test]
fn r_dict_calls_the_program_key_functions() {
    // Keys equal modulo 10; an exception in key_eq reaches the caller's
    // handler (setitem may raise KeyError).
    let src = format!(
        "
from rpython.rlib.objectmodel import r_dict

def eq(a, b):
    if b < 0:
        raise KeyError(b)
    return a % 10 == b % 10

def h(a):
    return a % 10

def bad_hash(a):
    return 'x'

def entry_point(argv):
    d = r_dict(eq, h)
    d[3] = 1
    d[13] = 2
    try:
        d[-7] = 5
    except KeyError:
        d[23] = d[3] + 10
    return d[33] * 100 + len(d)
{TARGET}"
    );
    let (r, _) = run_main(&src, Py3, &["prog"]);
    assert_eq!(r, Ok(1201));
    // An exception a key function does not catch has its frames in the
    // traceback; one a handler caught leaves none behind.
    let uncaught = src.replace(
        "    except KeyError:\n        d[23]",
        "    except IndexError:\n        d[23]",
    );
    let e = run_main(&uncaught, Py3, &["prog"]).0.unwrap_err();
    assert_eq!(
        (e.exc.as_str(), &e.traceback[..]),
        (
            "KeyError",
            &["entry_point".to_string(), "eq".to_string()][..]
        )
    );
    let caught_then_fails = src.replace("return d[33] * 100", "return d[99] * 100");
    let e = run_main(&caught_then_fails, Py3, &["prog"]).0.unwrap_err();
    assert_eq!(
        (e.exc.as_str(), &e.traceback[..]),
        ("KeyError", &["entry_point".to_string()][..])
    );
    let src = src.replace("r_dict(eq, h)", "r_dict(eq, bad_hash)");
    let (r, _) = run_main(&src, Py3, &["prog"]);
    assert_eq!(r.map_err(|e| e.exc), Err("TypeError".to_string()));
}

#[test]
fn the_default_recursion_limit_is_cpythons() {
    // CPython counts every frame: entry_point and 999 calls of down fit in
    // its limit of 1,000, one more does not.
    let src = format!(
        "
def down(n):
    if n == 0:
        return 0
    return down(n - 1) + 1

def entry_point(argv):
    print down(int(argv[1]))
    return 0
{TARGET}"
    );
    let (r, out) = run_main(&src, Py2, &["prog", "998"]);
    assert_eq!((r, out.as_str()), (Ok(0), "998\n"));
    let (r, _) = run_main(&src, Py2, &["prog", "999"]);
    assert_eq!(r.unwrap_err().exc, "RuntimeError");
}

#[test]
fn a_program_that_outgrows_the_heap_limit_gets_memory_error() {
    let src = format!(
        "
def entry_point(argv):
    items = []
    while True:
        items.append('x' * 10000 + str(len(items)))
    return 0
{TARGET}"
    );
    let p = program(&src, Py2);
    let limit = rpy_llinterp::heap_limit::resident_bytes()
        .expect("Linux tells the resident memory")
        + (64 << 20);
    let e = ObjInterpreter::new(&p, Py2)
        .with_heap_limit(limit)
        .run_entry(&["prog".to_string()], &mut Vec::new())
        .unwrap_err();
    assert_eq!(e.exc, "MemoryError", "{e}");
    assert!(rpy_llinterp::heap_limit::resident_bytes().unwrap() < limit + (256 << 20));
}

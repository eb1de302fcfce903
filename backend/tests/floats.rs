//! Float formatting, parsing and arithmetic of the runtime against CPython 3
//! (`repr`) and CPython 2.7 (`str`), run as oracles from the test.

mod common;
use common::*;
use rpy_ir::opcode::Opcode;
use std::process::Command;

const PYTHON2: &str = "/root/.pyenv/versions/2.7.18/bin/python2.7";

/// Runs `python -c script args...` and returns its output lines, or `None`
/// (with a note) when that interpreter is not installed.
fn oracle(python: &str, script: &str, args: &[String]) -> Option<Vec<String>> {
    match Command::new(python)
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
    {
        Ok(out) => {
            assert!(
                out.status.success(),
                "{python} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            Some(
                String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .map(String::from)
                    .collect(),
            )
        }
        Err(e) => {
            eprintln!("note: {python} not available ({e}); skipping that oracle");
            None
        }
    }
}

fn tricky_values(rng: &mut Rng) -> Vec<String> {
    let mut vals: Vec<String> = [
        "0.0",
        "-0.0",
        "inf",
        "-inf",
        "nan",
        "-nan",
        "1.0",
        "-1.0",
        "0.1",
        "0.2",
        "0.3",
        "1e16",
        "1e15",
        "9999999999999998.0",
        "1e17",
        "123456789012345.6",
        "1234567890123456.7",
        "0.0001",
        "0.00001",
        "0.00012345",
        "1.5e-7",
        "5e-324",
        "1e-323",
        "2.2250738585072014e-308",
        "2.225073858507201e-308",
        "1.7976931348623157e308",
        "9007199254740993",
        "9007199254740992",
        "1e22",
        "1e23",
        "123456789012.0",
        "1234567890123.0",
        "100.0",
        "1e-5",
        "3.14159",
        "0.333333333333333333",
        "2.5",
        "1e100",
        "1e-100",
        "123.456",
        " 42 ",
        "1_000.5",
        "+.5",
        "5.",
        "1E5",
        "Infinity",
        "-iNF",
        "NaN",
        "1e500",
        "-1e500",
        "4.35",
        "0.1e-3",
        "1e+300",
        "999999999999.5",
        "99999999999.95",
        "0.5e-4",
        "1234567890123456789",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // Powers of two (rounding intervals are lopsided there), and their neighbours.
    for k in (-1074..=1023).step_by(3) {
        let bits = if k >= -1022 {
            ((k + 1023) as u64) << 52
        } else {
            1u64 << (k + 1074)
        };
        let x = f64::from_bits(bits);
        vals.push(format!("{x:e}"));
        vals.push(format!("{:e}", f64::from_bits(x.to_bits() + 1)));
        vals.push(format!("{:e}", -f64::from_bits(x.to_bits() - 1)));
    }
    // Random bit patterns.
    while vals.len() < 3500 {
        let x = f64::from_bits(rng.next());
        if x.is_finite() {
            vals.push(format!("{x:e}"));
        }
    }
    // Decimal fractions with few digits.
    for _ in 0..300 {
        let m = rng.below(1_000_000) as f64;
        let e = rng.below(40) as i32 - 20;
        vals.push(format!("{m}e{e}"));
    }
    vals
}

#[test]
fn float_formatting_and_parsing_match_cpython() {
    // entry(argv): for each argument a: x = float(a); print(repr(x), str2(x))
    let (mut g, ps) = G::new("entry", &[list_t()], T::Signed);
    let argv = ps[0];
    let (lp, lv) = g.block(&[list_t(), T::Signed]);
    let (body, bv) = g.block(&[list_t(), T::Signed]);
    g.goto(lp, vec![v(argv), int(1)]);
    g.cur = lp;
    let n = g.op(Opcode::Getfield, vec![v(lv[0]), name("length")], T::Signed);
    let c = g.op(Opcode::IntLt, vec![v(lv[1]), v(n)], T::Bool);
    let ret = g.ret();
    g.branch(v(c), (body, vec![v(lv[0]), v(lv[1])]), (ret, vec![int(0)]));
    g.cur = body;
    let a = g.str_list_item(v(bv[0]), v(bv[1]));
    let x = g.call("rpy_str_to_float", vec![v(a)], T::Float);
    let r3 = g.call("rpy_str_from_float", vec![v(x)], str_t());
    let r2 = g.call("rpy_str_from_float_py2", vec![v(x)], str_t());
    g.print(v(r3));
    g.print(s(" "));
    g.print(v(r2));
    g.print(s_nl());
    let i2 = g.op(Opcode::IntAdd, vec![v(bv[1]), int(1)], T::Signed);
    g.goto(lp, vec![v(bv[0]), v(i2)]);
    let exe = build(&program(vec![g], base_types()), "floats");

    let vals = tricky_values(&mut Rng(0x9e37_79b9_7f4a_7c15));
    let out = run(&exe, &vals);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), vals.len());
    let (ours3, ours2): (Vec<&str>, Vec<&str>) =
        lines.iter().map(|l| l.split_once(' ').unwrap()).unzip();
    if let Some(py3) = oracle(
        "python3",
        "import sys\nfor a in sys.argv[1:]: print(repr(float(a)))",
        &vals,
    ) {
        for (i, val) in vals.iter().enumerate() {
            assert_eq!(ours3[i], py3[i], "repr(float({val:?}))");
        }
    }
    let no_underscores: Vec<String> = vals.iter().map(|s| s.replace('_', "")).collect();
    if let Some(py2) = oracle(
        PYTHON2,
        "import sys\nfor a in sys.argv[1:]: print str(float(a))",
        &no_underscores,
    ) {
        for (i, val) in vals.iter().enumerate() {
            assert_eq!(ours2[i], py2[i], "Python 2 str(float({val:?}))");
        }
    }
}

#[test]
fn float_operations_match_cpython() {
    // entry(argv): for each pair (x, y): print x % y, x // y, x + y,
    // x - y, x * y, x / y, -x, abs(x), x < y, x == y, int(x), float(int(x)),
    // pow(|x| + 1, 1.37) and a float constant expression.
    let (mut g, ps) = G::new("entry", &[list_t()], T::Signed);
    let argv = ps[0];
    let (lp, lv) = g.block(&[list_t(), T::Signed]);
    let (body, bv) = g.block(&[list_t(), T::Signed]);
    g.goto(lp, vec![v(argv), int(1)]);
    g.cur = lp;
    let n = g.op(Opcode::Getfield, vec![v(lv[0]), name("length")], T::Signed);
    let c = g.op(Opcode::IntLt, vec![v(lv[1]), v(n)], T::Bool);
    let ret = g.ret();
    g.branch(v(c), (body, vec![v(lv[0]), v(lv[1])]), (ret, vec![int(0)]));
    g.cur = body;
    let a = g.str_list_item(v(bv[0]), v(bv[1]));
    let x = g.call("rpy_str_to_float", vec![v(a)], T::Float);
    let i1 = g.op(Opcode::IntAdd, vec![v(bv[1]), int(1)], T::Signed);
    let b = g.str_list_item(v(bv[0]), v(i1));
    let y = g.call("rpy_str_to_float", vec![v(b)], T::Float);
    let mut results = Vec::new();
    for op in [
        Opcode::FloatPyMod,
        Opcode::FloatPyDiv,
        Opcode::FloatAdd,
        Opcode::FloatSub,
        Opcode::FloatMul,
        Opcode::FloatTruediv,
    ] {
        results.push(g.op(op, vec![v(x), v(y)], T::Float));
    }
    results.push(g.op(Opcode::FloatNeg, vec![v(x)], T::Float));
    results.push(g.op(Opcode::FloatAbs, vec![v(x)], T::Float));
    for op in [Opcode::FloatLt, Opcode::FloatEq, Opcode::FloatGe] {
        let c = g.op(op, vec![v(x), v(y)], T::Bool);
        results.push(g.op(Opcode::CastBoolToFloat, vec![v(c)], T::Float));
    }
    let xi = g.op(Opcode::CastFloatToInt, vec![v(x)], T::Signed);
    results.push(g.op(Opcode::CastIntToFloat, vec![v(xi)], T::Float));
    let ax0 = g.op(Opcode::FloatAbs, vec![v(x)], T::Float);
    let ax = g.op(Opcode::FloatAdd, vec![v(ax0), float(1.0)], T::Float);
    results.push(g.call("rpy_float_pow", vec![v(ax), float(1.37)], T::Float));
    results.push(g.op(Opcode::FloatMul, vec![v(x), float(0.1)], T::Float));
    results.push(g.op(Opcode::FloatAdd, vec![v(x), float(-1e-300)], T::Float));
    for r in results {
        let fs = g.call("rpy_str_from_float", vec![v(r)], str_t());
        g.print(v(fs));
        g.print(s(" "));
    }
    g.print(s_nl());
    let i2 = g.op(Opcode::IntAdd, vec![v(bv[1]), int(2)], T::Signed);
    g.goto(lp, vec![v(bv[0]), v(i2)]);
    let exe = build(&program(vec![g], base_types()), "float_ops");

    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut args = Vec::new();
    let fixed = [
        (7.5, 2.0),
        (-7.5, 2.0),
        (7.5, -2.0),
        (-7.5, -2.0),
        (0.0, 3.0),
        (-0.0, 3.0),
        (0.0, -3.0),
        (6.0, 3.0),
        (-6.0, 3.0),
        (1.0, 0.1),
        (1e-300, 1e300),
        (-1e-300, 1e300),
        (3.0, 1e-300),
    ];
    for (x, y) in fixed {
        args.push(format!("{x:e}"));
        args.push(format!("{y:e}"));
    }
    for _ in 0..400 {
        let mut f = || {
            let m = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 10.0;
            let e = rng.below(30) as i32 - 15;
            let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
            sign * m * 10f64.powi(e)
        };
        let (x, y) = (f(), f());
        if y != 0.0 {
            args.push(format!("{x:e}"));
            args.push(format!("{y:e}"));
        }
    }
    let out = run(&exe, &args);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let script = "import sys, math\n\
        a = sys.argv[1:]\n\
        for i in range(0, len(a), 2):\n\
        \x20   x, y = float(a[i]), float(a[i+1])\n\
        \x20   r = [x % y, x // y, x + y, x - y, x * y, x / y, -x, abs(x),\n\
        \x20        float(x < y), float(x == y), float(x >= y), float(int(x)), math.pow(abs(x) + 1.0, 1.37),\n\
        \x20        x * 0.1, x + -1e-300]\n\
        \x20   print(''.join(repr(v) + ' ' for v in r))";
    if let Some(py) = oracle("python3", script, &args) {
        let ours: Vec<&str> = out.stdout.lines().collect();
        assert_eq!(ours.len(), py.len());
        for (i, (o, p)) in ours.iter().zip(&py).enumerate() {
            assert_eq!(o, p, "x = {}, y = {}", args[2 * i], args[2 * i + 1]);
        }
    }
}

#[test]
fn float_errors_are_fatal_value_errors() {
    let (mut g, ps) = G::new("entry", &[list_t()], T::Signed);
    g.print(s("before\n"));
    let a = g.str_list_item(v(ps[0]), int(1));
    let x = g.call("rpy_str_to_float", vec![v(a)], T::Float);
    let r = g.call("rpy_str_from_float", vec![v(x)], str_t());
    g.print(v(r));
    let ret = g.ret();
    g.goto(ret, vec![int(0)]);
    let exe = build(&program(vec![g], base_types()), "float_errors");
    for bad in [
        "abc", "", "1e", "1__0", "0x10", "nan(1)", "1.5 x", "--1", "it's", ". 5",
    ] {
        let out = run(&exe, &[bad]);
        assert_eq!(out.status, 1, "{bad:?}");
        assert_eq!(out.stdout, "before\n");
        let py = oracle(
            "python3",
            "import sys\ntry: float(sys.argv[1])\nexcept ValueError as e: print('ValueError: %s' % e)",
            &[bad.to_string()],
        );
        let expected = match py {
            Some(lines) => format!("fatal RPython error: {}\n", lines[0]),
            None => continue,
        };
        assert_eq!(out.stderr, expected, "{bad:?}");
    }
}

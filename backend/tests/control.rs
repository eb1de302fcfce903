//! Links (parallel assignment), calls, Void values, structs and arrays.

mod common;
use common::*;
use rpy_ir::lltype::{ContainerType, LowLevelType};
use rpy_ir::opcode::Opcode;

/// rotate(a, b, c, n): n times (a, b, c) = (b, c, a); returns a*100 + b*10 + c.
fn rotate() -> G {
    let (mut g, ps) = G::new(
        "rotate",
        &[T::Signed, T::Signed, T::Signed, T::Signed],
        T::Signed,
    );
    let (lp, lv) = g.block(&[T::Signed, T::Signed, T::Signed, T::Signed]);
    g.goto(lp, ps.iter().map(|p| v(*p)).collect());
    g.cur = lp;
    let c = g.op(Opcode::IntGt, vec![v(lv[3]), int(0)], T::Bool);
    let n1 = g.op(Opcode::IntSub, vec![v(lv[3]), int(1)], T::Signed);
    let (done, dv) = g.block(&[T::Signed, T::Signed, T::Signed]);
    g.branch(
        v(c),
        (lp, vec![v(lv[1]), v(lv[2]), v(lv[0]), v(n1)]),
        (done, vec![v(lv[0]), v(lv[1]), v(lv[2])]),
    );
    g.cur = done;
    let a = g.op(Opcode::IntMul, vec![v(dv[0]), int(100)], T::Signed);
    let b = g.op(Opcode::IntMul, vec![v(dv[1]), int(10)], T::Signed);
    let ab = g.op(Opcode::IntAdd, vec![v(a), v(b)], T::Signed);
    let r = g.op(Opcode::IntAdd, vec![v(ab), v(dv[2])], T::Signed);
    let ret = g.ret();
    g.goto(ret, vec![v(r)]);
    g
}

/// fib(n, unused: Void): (a, b) = (b, a + b) n times, looping back to the
/// start block itself (whose input arguments are the parameters).
fn fib() -> G {
    let (mut g, ps) = G::new(
        "fib",
        &[T::Signed, T::Void, T::Signed, T::Signed],
        T::Signed,
    );
    let start = g.start();
    let c = g.op(Opcode::IntEq, vec![v(ps[0]), int(0)], T::Bool);
    let n1 = g.op(Opcode::IntSub, vec![v(ps[0]), int(1)], T::Signed);
    let s = g.op(Opcode::IntAdd, vec![v(ps[2]), v(ps[3])], T::Signed);
    let ret = g.ret();
    g.branch(
        v(c),
        (ret, vec![v(ps[2])]),
        (start, vec![v(n1), v(ps[1]), v(ps[3]), v(s)]),
    );
    g
}

/// A Void function: prints its argument twice, returns nothing.
fn twice() -> G {
    let (mut g, ps) = G::new("mod.twice", &[str_t()], T::Void);
    g.print(v(ps[0]));
    g.print(v(ps[0]));
    let ret = g.ret();
    g.goto(ret, vec![none()]);
    g
}

#[test]
fn links_calls_and_memory() {
    let mut types = base_types();
    types.insert(
        "point".into(),
        ContainerType::GcStruct {
            fields: vec![
                ("flag".into(), T::Bool),
                ("x".into(), T::Float),
                ("c".into(), T::Char),
                ("n".into(), T::Signed),
                ("nothing".into(), T::Void),
                ("next".into(), T::Ptr("point".into())),
                ("name".into(), str_t()),
            ],
            var_item: None,
        },
    );
    types.insert("ints".into(), ContainerType::GcArray { item: T::Signed });
    types.insert(
        "bytes.with-odd name".into(),
        ContainerType::GcStruct {
            fields: vec![
                ("tag".into(), T::Bool),
                ("length".into(), T::Signed),
                ("b".into(), T::Char),
            ],
            var_item: Some(T::Char),
        },
    );
    let point = T::Ptr("point".into());
    let ints = T::Ptr("ints".into());
    let odd = T::Ptr("bytes.with-odd name".into());

    let (mut g, _) = G::new("entry", &[list_t()], T::Signed);
    for n in [0, 1, 2, 3, 4] {
        let r = g.op(
            Opcode::DirectCall,
            vec![func("rotate"), int(1), int(2), int(3), int(n)],
            T::Signed,
        );
        g.print_int(v(r));
    }
    let unit = g.op(Opcode::SameAs, vec![none()], T::Void);
    let r = g.op(
        Opcode::DirectCall,
        vec![func("fib"), int(90), v(unit), int(0), int(1)],
        T::Signed,
    );
    g.print_int(v(r));
    g.op(
        Opcode::DirectCall,
        vec![func("mod.twice"), s("tw")],
        T::Void,
    );
    g.print(s_nl());

    // A struct: set every field, read them back.
    let p = g.op(Opcode::Malloc, vec![name("point")], point.clone());
    let q = g.op(Opcode::Malloc, vec![name("point")], point.clone());
    let zero = g.op(Opcode::Getfield, vec![v(q), name("n")], T::Signed);
    g.print_int(v(zero));
    let isnull = g.op(Opcode::PtrIszero, vec![v(q)], T::Bool);
    let isnull = g.op(Opcode::CastBoolToInt, vec![v(isnull)], T::Signed);
    g.print_int(v(isnull));
    g.op(
        Opcode::Setfield,
        vec![v(p), name("flag"), boolean(true)],
        T::Void,
    );
    g.op(
        Opcode::Setfield,
        vec![v(p), name("x"), float(-2.5)],
        T::Void,
    );
    g.op(Opcode::Setfield, vec![v(p), name("c"), chr(b'Q')], T::Void);
    g.op(
        Opcode::Setfield,
        vec![v(p), name("n"), int(i64::MIN)],
        T::Void,
    );
    g.op(
        Opcode::Setfield,
        vec![v(p), name("nothing"), none()],
        T::Void,
    );
    g.op(Opcode::Setfield, vec![v(p), name("next"), v(q)], T::Void);
    g.op(Opcode::Setfield, vec![v(q), name("next"), none()], T::Void);
    g.op(Opcode::Setfield, vec![v(p), name("name"), s("pt")], T::Void);
    let f = g.op(Opcode::Getfield, vec![v(p), name("flag")], T::Bool);
    let f = g.op(Opcode::CastBoolToInt, vec![v(f)], T::Signed);
    g.print_int(v(f));
    let x = g.op(Opcode::Getfield, vec![v(p), name("x")], T::Float);
    let xs = g.call("rpy_str_from_float", vec![v(x)], str_t());
    g.print(v(xs));
    g.print(s_nl());
    let c = g.op(Opcode::Getfield, vec![v(p), name("c")], T::Char);
    let cs = g.call("rpy_str_from_char", vec![v(c)], str_t());
    g.print(v(cs));
    g.print(s_nl());
    let n = g.op(Opcode::Getfield, vec![v(p), name("n")], T::Signed);
    g.print_int(v(n));
    g.op(Opcode::Getfield, vec![v(p), name("nothing")], T::Void);
    let nx = g.op(Opcode::Getfield, vec![v(p), name("next")], point.clone());
    let same = g.op(Opcode::PtrEq, vec![v(nx), v(q)], T::Bool);
    let same = g.op(Opcode::CastBoolToInt, vec![v(same)], T::Signed);
    g.print_int(v(same));
    let nn = g.op(Opcode::Getfield, vec![v(nx), name("next")], point.clone());
    let end = g.op(Opcode::PtrEq, vec![v(nn), none()], T::Bool);
    let end = g.op(Opcode::CastBoolToInt, vec![v(end)], T::Signed);
    g.print_int(v(end));
    let nm = g.op(Opcode::Getfield, vec![v(p), name("name")], str_t());
    g.print(v(nm));
    g.print(s_nl());

    // An array: a[i] = i*i for i < 10, then the sum over getarraysize.
    let a = g.op(
        Opcode::MallocVarsize,
        vec![name("ints"), int(10)],
        ints.clone(),
    );
    let (fill, fv) = g.block(&[ints.clone(), T::Signed]);
    let (sum, sv) = g.block(&[ints.clone(), T::Signed, T::Signed]);
    let (done, dv) = g.block(&[T::Signed, odd.clone()]);
    g.goto(fill, vec![v(a), int(0)]);
    g.cur = fill;
    let sq = g.op(Opcode::IntMul, vec![v(fv[1]), v(fv[1])], T::Signed);
    g.op(
        Opcode::Setarrayitem,
        vec![v(fv[0]), v(fv[1]), v(sq)],
        T::Void,
    );
    let i1 = g.op(Opcode::IntAdd, vec![v(fv[1]), int(1)], T::Signed);
    let more = g.op(Opcode::IntLt, vec![v(i1), int(10)], T::Bool);
    g.branch(
        v(more),
        (fill, vec![v(fv[0]), v(i1)]),
        (sum, vec![v(fv[0]), int(0), int(0)]),
    );
    g.cur = sum;
    let len = g.op(Opcode::Getarraysize, vec![v(sv[0])], T::Signed);
    let more = g.op(Opcode::IntLt, vec![v(sv[1]), v(len)], T::Bool);
    let item = g.op(Opcode::Getarrayitem, vec![v(sv[0]), v(sv[1])], T::Signed);
    let acc = g.op(Opcode::IntAdd, vec![v(sv[2]), v(item)], T::Signed);
    let i1 = g.op(Opcode::IntAdd, vec![v(sv[1]), int(1)], T::Signed);
    let odd_obj = g.op(
        Opcode::MallocVarsize,
        vec![name("bytes.with-odd name"), int(5)],
        odd.clone(),
    );
    g.branch(
        v(more),
        (sum, vec![v(sv[0]), v(i1), v(acc)]),
        (done, vec![v(sv[2]), v(odd_obj)]),
    );
    g.cur = done;
    g.print_int(v(dv[0]));
    g.op(
        Opcode::Setarrayitem,
        vec![v(dv[1]), int(4), chr(b'!')],
        T::Void,
    );
    g.op(
        Opcode::Setfield,
        vec![v(dv[1]), name("b"), chr(b'?')],
        T::Void,
    );
    let l = g.op(Opcode::Getarraysize, vec![v(dv[1])], T::Signed);
    g.print_int(v(l));
    let it = g.op(Opcode::Getarrayitem, vec![v(dv[1]), int(4)], T::Char);
    let it = g.op(Opcode::CastCharToInt, vec![v(it)], T::Signed);
    g.print_int(v(it));
    let it0 = g.op(Opcode::Getarrayitem, vec![v(dv[1]), int(0)], T::Char);
    let it0 = g.op(Opcode::CastCharToInt, vec![v(it0)], T::Signed);
    g.print_int(v(it0));
    let ret = g.ret();
    g.goto(ret, vec![int(0)]);

    let p = program(vec![g, rotate(), fib(), twice()], types);
    let c = common::c_source(&p).unwrap();
    assert!(
        c.contains("static void rpy_g_mod_twice(struct S_rpy_string *v0)"),
        "{c}"
    );
    assert!(c.contains("struct S_bytes_with_odd_name {"));
    let exe = build(&p, "control");
    let out = run(&exe, &[] as &[&str]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let rot = |n: i64| {
        let mut t = (1, 2, 3);
        for _ in 0..n {
            t = (t.1, t.2, t.0);
        }
        t.0 * 100 + t.1 * 10 + t.2
    };
    let (mut a, mut b) = (0i64, 1i64);
    for _ in 0..90 {
        (a, b) = (b, a.wrapping_add(b));
    }
    let expected = format!(
        "{}\n{}\n{}\n{}\n{}\n{a}\ntwtw\n0\n0\n1\n-2.5\nQ\n{}\n1\n1\npt\n285\n5\n33\n0\n",
        rot(0),
        rot(1),
        rot(2),
        rot(3),
        rot(4),
        i64::MIN
    );
    assert_eq!(out.stdout, expected);
}

#[test]
fn bad_programs_are_diagnostics() {
    let (mut g, _) = G::new("entry", &[list_t()], T::Signed);
    g.op(Opcode::Add, vec![int(1), int(2)], T::Signed);
    let ret = g.ret();
    g.goto(ret, vec![int(0)]);
    let err = common::c_source(&program(vec![g], base_types())).unwrap_err();
    assert!(
        err.message.contains("unknown low-level operation 'add'"),
        "{}",
        err.message
    );

    let (mut g, _) = G::new("entry", &[list_t()], T::Signed);
    g.op(Opcode::DirectCall, vec![func("missing")], T::Signed);
    let ret = g.ret();
    g.goto(ret, vec![int(0)]);
    let err = common::c_source(&program(vec![g], base_types())).unwrap_err();
    assert!(err.message.contains("'missing'"), "{}", err.message);

    let mut types = base_types();
    types.insert(
        "rpy_string".into(),
        ContainerType::GcArray {
            item: LowLevelType::Char,
        },
    );
    let (mut g, _) = G::new("entry", &[list_t()], T::Signed);
    let ret = g.ret();
    g.goto(ret, vec![int(0)]);
    assert!(common::c_source(&program(vec![g], types)).is_err());
}

/// chain_length(n) of the Collatz benchmark, as the rtyper lowers it.
fn chain_length() -> G {
    let (mut g, ps) = G::new("chain_length", &[T::Signed], T::Signed);
    let (lp, lv) = g.block(&[T::Signed, T::Signed]);
    let (body, bv) = g.block(&[T::Signed, T::Signed]);
    let (even, ev) = g.block(&[T::Signed, T::Signed]);
    let (odd, ov) = g.block(&[T::Signed, T::Signed]);
    let (inc, iv) = g.block(&[T::Signed, T::Signed]);
    g.goto(lp, vec![v(ps[0]), int(1)]);
    g.cur = lp;
    let c = g.op(Opcode::IntNe, vec![v(lv[0]), int(1)], T::Bool);
    let ret = g.ret();
    g.branch(
        v(c),
        (body, vec![v(lv[0]), v(lv[1])]),
        (ret, vec![v(lv[1])]),
    );
    g.cur = body;
    let r = g.op(Opcode::IntPyMod, vec![v(bv[0]), int(2)], T::Signed);
    let z = g.op(Opcode::IntEq, vec![v(r), int(0)], T::Bool);
    g.branch(
        v(z),
        (even, vec![v(bv[0]), v(bv[1])]),
        (odd, vec![v(bv[0]), v(bv[1])]),
    );
    g.cur = even;
    let h = g.op(Opcode::IntPyDiv, vec![v(ev[0]), int(2)], T::Signed);
    g.goto(inc, vec![v(h), v(ev[1])]);
    g.cur = odd;
    let t = g.op(Opcode::IntMul, vec![int(3), v(ov[0])], T::Signed);
    let t1 = g.op(Opcode::IntAdd, vec![v(t), int(1)], T::Signed);
    g.goto(inc, vec![v(t1), v(ov[1])]);
    g.cur = inc;
    let s2 = g.op(Opcode::IntAdd, vec![v(iv[1]), int(1)], T::Signed);
    g.goto(lp, vec![v(iv[0]), v(s2)]);
    g
}

/// The Collatz benchmark against benches/programs/collatz.c; prints the
/// times (run with --ignored --nocapture).
#[test]
#[ignore]
fn tight_loop_is_as_fast_as_c() {
    let (mut g, ps) = G::new("entry", &[list_t()], T::Signed);
    let a1 = g.str_list_item(v(ps[0]), int(1));
    let limit = g.call("rpy_str_to_int", vec![v(a1)], T::Signed);
    let state = [T::Signed, T::Signed, T::Signed, T::Signed];
    let (lp, lv) = g.block(&state);
    let (body, bv) = g.block(&state);
    let (better, btv) = g.block(&state);
    let (next, nv) = g.block(&state);
    let (done, dv) = g.block(&[T::Signed, T::Signed, T::Signed]);
    g.goto(lp, vec![v(limit), int(1), int(1), int(1)]);
    g.cur = lp;
    let c = g.op(Opcode::IntLt, vec![v(lv[1]), v(lv[0])], T::Bool);
    let all: Vec<_> = lv.iter().map(|x| v(*x)).collect();
    g.branch(
        v(c),
        (body, all),
        (done, vec![v(lv[0]), v(lv[2]), v(lv[3])]),
    );
    g.cur = body;
    let len = g.op(
        Opcode::DirectCall,
        vec![func("chain_length"), v(bv[1])],
        T::Signed,
    );
    let gt = g.op(Opcode::IntGt, vec![v(len), v(bv[3])], T::Bool);
    g.branch(
        v(gt),
        (better, vec![v(bv[0]), v(bv[1]), v(bv[1]), v(len)]),
        (next, bv.iter().map(|x| v(*x)).collect()),
    );
    g.cur = better;
    g.goto(next, btv.iter().map(|x| v(*x)).collect());
    g.cur = next;
    let i1 = g.op(Opcode::IntAdd, vec![v(nv[1]), int(1)], T::Signed);
    g.goto(lp, vec![v(nv[0]), v(i1), v(nv[2]), v(nv[3])]);
    g.cur = done;
    for (text, x) in [("longest below ", dv[0]), (": ", dv[1]), (" (", dv[2])] {
        g.print(s(text));
        let xs = g.call("rpy_str_from_int", vec![v(x)], str_t());
        g.print(v(xs));
    }
    g.print(s(" steps)\n"));
    let ret = g.ret();
    g.goto(ret, vec![int(0)]);
    let exe = build(&program(vec![g, chain_length()], base_types()), "collatz");

    let c_src = concat!(env!("CARGO_MANIFEST_DIR"), "/../benches/programs/collatz.c");
    let c_exe = exe.path.with_file_name("collatz_c");
    let st = std::process::Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&c_exe)
        .arg(c_src)
        .status()
        .unwrap();
    assert!(st.success());
    let time = |exe: &std::path::PathBuf| {
        let t = std::time::Instant::now();
        let out = std::process::Command::new(exe)
            .arg("3000000")
            .output()
            .unwrap();
        (t.elapsed(), out.stdout)
    };
    let (tc, oc) = time(&c_exe);
    let (tr, or) = time(&exe.path);
    assert_eq!(oc, or);
    println!(
        "plain C: {tc:?}, generated: {tr:?}, ratio {:.2}",
        tr.as_secs_f64() / tc.as_secs_f64()
    );
}

/// depth(n) = 0 if n == 0 else 1 + depth(n - 1), through a second graph
/// (mutual recursion).
fn depth_graphs() -> (G, G) {
    let (mut g, ps) = G::new("depth", &[T::Signed], T::Signed);
    let (rec, rv) = g.block(&[T::Signed]);
    let z = g.op(Opcode::IntEq, vec![v(ps[0]), int(0)], T::Bool);
    let ret = g.ret();
    g.branch(v(z), (ret, vec![int(0)]), (rec, vec![v(ps[0])]));
    g.cur = rec;
    let n1 = g.op(Opcode::IntSub, vec![v(rv[0]), int(1)], T::Signed);
    let d = g.op(
        Opcode::DirectCall,
        vec![func("depth_helper"), v(n1)],
        T::Signed,
    );
    // A side effect after the call keeps the C compiler from making a loop of it.
    let (neg, _) = g.block(&[]);
    let (pos, pv) = g.block(&[T::Signed]);
    let c = g.op(Opcode::IntLt, vec![v(d), int(0)], T::Bool);
    g.branch(v(c), (neg, vec![]), (pos, vec![v(d)]));
    g.cur = neg;
    g.print(s("negative\n"));
    g.goto(ret, vec![int(-1)]);
    g.cur = pos;
    let d1 = g.op(Opcode::IntAdd, vec![v(pv[0]), int(1)], T::Signed);
    g.goto(ret, vec![v(d1)]);
    let (mut h, hp) = G::new("depth_helper", &[T::Signed], T::Signed);
    let d = h.op(Opcode::DirectCall, vec![func("depth"), v(hp[0])], T::Signed);
    let ret = h.ret();
    h.goto(ret, vec![v(d)]);
    (g, h)
}

#[test]
fn deep_recursion_is_a_fatal_error() {
    let (mut g, ps) = G::new("entry", &[list_t()], T::Signed);
    g.print(s("start\n"));
    let a = g.str_list_item(v(ps[0]), int(1));
    let n = g.call("rpy_str_to_int", vec![v(a)], T::Signed);
    let d = g.op(Opcode::DirectCall, vec![func("depth"), v(n)], T::Signed);
    g.print_int(v(d));
    // A small recursive function the C compiler inlines into main().
    let f = g.op(Opcode::DirectCall, vec![func("fib"), int(20)], T::Signed);
    g.print_int(v(f));
    let r = g.op(
        Opcode::DirectCall,
        vec![func("rotate"), int(1), int(2), int(3), int(1)],
        T::Signed,
    );
    let ret = g.ret();
    g.goto(ret, vec![v(r)]);
    let (d, h) = depth_graphs();
    let p = program(vec![g, d, h, rotate(), rec_fib()], base_types());
    let c = common::c_source(&p).unwrap();
    assert_eq!(
        c.matches("    RPY_STACK_CHECK();").count(),
        3,
        "only depth, depth_helper and fib check"
    );
    let exe = build(&p, "recursion");
    let out = run(&exe, &["10000"]);
    assert_eq!(
        (out.status, out.stdout.as_str()),
        (231, "start\n10000\n6765\n"),
        "{}",
        out.stderr
    );
    let out = run(&exe, &["1000000000"]);
    assert_eq!(out.status, 1);
    assert_eq!(out.stdout, "start\n");
    assert_eq!(
        out.stderr,
        "fatal RPython error: RecursionError: maximum recursion depth exceeded\n"
    );
}

/// fib(n) = n if n < 2 else fib(n - 1) + fib(n - 2)
fn rec_fib() -> G {
    let (mut f, fp) = G::new("fib", &[T::Signed], T::Signed);
    let (rec, rv) = f.block(&[T::Signed]);
    let c = f.op(Opcode::IntLt, vec![v(fp[0]), int(2)], T::Bool);
    let ret = f.ret();
    f.branch(v(c), (ret, vec![v(fp[0])]), (rec, vec![v(fp[0])]));
    f.cur = rec;
    let n1 = f.op(Opcode::IntSub, vec![v(rv[0]), int(1)], T::Signed);
    let a = f.op(Opcode::DirectCall, vec![func("fib"), v(n1)], T::Signed);
    let n2 = f.op(Opcode::IntSub, vec![v(rv[0]), int(2)], T::Signed);
    let b = f.op(Opcode::DirectCall, vec![func("fib"), v(n2)], T::Signed);
    let r = f.op(Opcode::IntAdd, vec![v(a), v(b)], T::Signed);
    f.goto(ret, vec![v(r)]);
    f
}

/// Recursive fib against benches/programs/fib.c (the stack check's cost);
/// prints the times (run with --ignored --nocapture).
#[test]
#[ignore]
fn recursive_calls_are_as_fast_as_c() {
    let (mut g, ps) = G::new("entry", &[list_t()], T::Signed);
    let a1 = g.str_list_item(v(ps[0]), int(1));
    let n = g.call("rpy_str_to_int", vec![v(a1)], T::Signed);
    let r = g.op(Opcode::DirectCall, vec![func("fib"), v(n)], T::Signed);
    g.print(s("fib("));
    let ns = g.call("rpy_str_from_int", vec![v(n)], str_t());
    g.print(v(ns));
    g.print(s(") = "));
    let rs = g.call("rpy_str_from_int", vec![v(r)], str_t());
    g.print(v(rs));
    g.print(s_nl());
    let ret = g.ret();
    g.goto(ret, vec![int(0)]);
    let exe = build(&program(vec![g, rec_fib()], base_types()), "fib");
    let c_src = concat!(env!("CARGO_MANIFEST_DIR"), "/../benches/programs/fib.c");
    let c_exe = exe.path.with_file_name("fib_c");
    let st = std::process::Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&c_exe)
        .arg(c_src)
        .status()
        .unwrap();
    assert!(st.success());
    let time = |exe: &std::path::PathBuf| {
        let t = std::time::Instant::now();
        let out = std::process::Command::new(exe).arg("38").output().unwrap();
        (t.elapsed(), out.stdout)
    };
    let (tc, oc) = time(&c_exe);
    let (tr, or) = time(&exe.path);
    assert_eq!(oc, or);
    println!(
        "plain C: {tc:?}, generated: {tr:?}, ratio {:.2}",
        tr.as_secs_f64() / tc.as_secs_f64()
    );
}

/// fib(i) for i in 0..=n, as tests/programs/*/fib.py: the C compiler inlines
/// the recursive function into main(), next to the stack probe of main.
#[test]
fn recursion_inlined_into_main() {
    let (mut g, _) = G::new("entry", &[list_t()], T::Signed);
    let (lp, lv) = g.block(&[T::Signed]);
    let (body, bv) = g.block(&[T::Signed]);
    g.goto(lp, vec![int(0)]);
    g.cur = lp;
    let c = g.op(Opcode::IntLt, vec![v(lv[0]), int(21)], T::Bool);
    let ret = g.ret();
    g.branch(v(c), (body, vec![v(lv[0])]), (ret, vec![int(0)]));
    g.cur = body;
    let f = g.op(Opcode::DirectCall, vec![func("fib"), v(bv[0])], T::Signed);
    let fs = g.call("rpy_str_from_int", vec![v(f)], str_t());
    g.print(v(fs));
    g.print(s(" "));
    let i1 = g.op(Opcode::IntAdd, vec![v(bv[0]), int(1)], T::Signed);
    g.goto(lp, vec![v(i1)]);
    let exe = build(&program(vec![g, rec_fib()], base_types()), "fib_loop");
    let out = run(&exe, &[] as &[&str]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "0 1 1 2 3 5 8 13 21 34 55 89 144 233 377 610 987 1597 2584 4181 6765 "
    );
}

//! Tests of the LLInterpreter on hand-built low-level programs, and of its
//! number/string conversions against real CPython.

use rpy_ir::graph::{
    Arg, BlockId, Constant, FunctionGraph, Link, LowLevel, Program, SpaceOperation, Var,
};
use rpy_ir::llops::RUNTIME_FUNCS;
use rpy_ir::lltype::{self, ContainerType, LowLevelType as T, TypeTable};
use rpy_ir::opcode::Opcode;
use rpy_llinterp::{pystr, LlError, LlErrorKind, LlInterpreter, LlValue};
use std::process::Command;
use std::time::Instant;

type G = FunctionGraph<LowLevel>;

fn str_t() -> T {
    T::Ptr(lltype::STR.into())
}

fn strlist_t() -> T {
    T::Ptr(lltype::list_type_names(&str_t()).0)
}

fn v(x: Var) -> Arg {
    Arg::Var(x)
}

fn int(n: i64) -> Arg {
    Arg::Const(Constant::Int(n))
}

fn s(text: &str) -> Arg {
    Arg::Const(Constant::Str(text.into()))
}

fn name(n: &str) -> Arg {
    Arg::Const(Constant::Name(n.into()))
}

fn func(n: &str) -> Arg {
    Arg::Const(Constant::Func(n.into()))
}

fn builtin(n: &str) -> Arg {
    Arg::Const(Constant::Builtin(n.into()))
}

/// Appends `result = opname(args)` to block `b`.
fn op(g: &mut G, b: BlockId, opname: Opcode, args: Vec<Arg>, ty: T) -> Var {
    let r = g.new_var(None, ty);
    g.block_mut(b).operations.push(SpaceOperation {
        opname,
        args,
        result: r,
        pos: None,
    });
    r
}

fn call_rt(g: &mut G, b: BlockId, rt: &str, mut args: Vec<Arg>, ty: T) -> Var {
    args.insert(0, builtin(rt));
    op(g, b, Opcode::DirectCall, args, ty)
}

fn goto(g: &mut G, from: BlockId, args: Vec<Arg>, to: BlockId) {
    g.block_mut(from).exits.push(Link::new(args, to, None));
}

fn branch(
    g: &mut G,
    from: BlockId,
    cond: Var,
    if_true: (Vec<Arg>, BlockId),
    if_false: (Vec<Arg>, BlockId),
) {
    let b = g.block_mut(from);
    b.exitswitch = Some(Arg::Var(cond));
    b.exits.push(Link::new(
        if_false.0,
        if_false.1,
        Some(Constant::Bool(false)),
    ));
    b.exits
        .push(Link::new(if_true.0, if_true.1, Some(Constant::Bool(true))));
}

fn ret(g: &mut G, from: BlockId, value: Arg) {
    let r = g.returnblock;
    goto(g, from, vec![value], r);
}

fn types() -> TypeTable {
    let mut t = TypeTable::new();
    t.insert(lltype::STR.into(), lltype::str_type());
    lltype::add_list_type(&mut t, &str_t());
    t
}

fn program(graphs: Vec<G>, types: TypeTable) -> Program<LowLevel> {
    Program {
        path: "test.py".into(),
        sources: Default::default(),
        entry: graphs[0].name.clone(),
        graphs,
        types,
        facts: Default::default(),
        prebuilt: Vec::new(),
    }
}

/// A graph with typed parameters; returns it with its start block and params.
fn graph(gname: &str, params: &[T], result: T) -> (G, BlockId, Vec<Var>) {
    let names: Vec<String> = (0..params.len()).map(|i| format!("a{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut g = G::new(gname, &refs, T::Void);
    for (p, t) in g.params().to_vec().iter().zip(params) {
        g.vars[p.0 as usize].info = t.clone();
    }
    let rv = g.block(g.returnblock).inputargs[0];
    g.vars[rv.0 as usize].info = result;
    let start = g.startblock;
    let ps = g.params().to_vec();
    (g, start, ps)
}

fn run(
    p: &Program<LowLevel>,
    gname: &str,
    args: Vec<LlValue>,
) -> (Result<LlValue, LlError>, String) {
    let mut interp = LlInterpreter::new(p);
    let mut out = Vec::new();
    let r = interp.call(gname, args, &mut out);
    (r, String::from_utf8_lossy(&out).into_owned())
}

/// An argument of `rt_call`: a value, or a string made in the interpreter
/// that runs the call (an interpreter's objects are its own).
enum RtArg {
    Value(LlValue),
    Str(Vec<u8>),
}

impl From<LlValue> for RtArg {
    fn from(v: LlValue) -> RtArg {
        RtArg::Value(v)
    }
}

/// What `rt_call` gives: the result, the output, and the result's text
/// when it is a string.
type RtResult = (Result<LlValue, LlError>, String, Option<String>);

/// Calls one runtime function through a one-operation graph.
fn rt_call<A: Into<RtArg>>(rt: &str, args: Vec<A>) -> RtResult {
    let f = RUNTIME_FUNCS.iter().find(|f| f.name == rt).unwrap();
    let params: Vec<T> = f.args.iter().map(|a| a.lltype()).collect();
    let (mut g, b, ps) = graph("f", &params, f.result.lltype());
    let r = call_rt(
        &mut g,
        b,
        rt,
        ps.iter().map(|p| v(*p)).collect(),
        f.result.lltype(),
    );
    ret(&mut g, b, v(r));
    let p = program(vec![g], types());
    let mut interp = LlInterpreter::new(&p);
    let args = args
        .into_iter()
        .map(|a| match a.into() {
            RtArg::Value(v) => v,
            RtArg::Str(text) => interp.new_string(&text),
        })
        .collect();
    let mut out = Vec::new();
    let r = interp.call("f", args, &mut out);
    let text = r.as_ref().ok().and_then(|v| interp.string_text(v));
    (r, String::from_utf8_lossy(&out).into_owned(), text)
}

/// A string argument of `rt_call`.
fn string(text: &[u8]) -> RtArg {
    RtArg::Str(text.to_vec())
}

fn fatal_message(r: Result<LlValue, LlError>) -> String {
    let e = r.expect_err("expected an error");
    assert_eq!(e.kind, LlErrorKind::Fatal, "{e}");
    e.message
}

fn internal_message(r: Result<LlValue, LlError>) -> String {
    let e = r.expect_err("expected an error");
    assert_eq!(e.kind, LlErrorKind::Internal, "{e}");
    e.message
}

// ---------------------------------------------------------------- programs

fn fib_graph() -> G {
    // fib(n): if n < 2: return n; return fib(n - 1) + fib(n - 2)
    let (mut g, start, ps) = graph("fib", &[T::Signed], T::Signed);
    let n = ps[0];
    let c = op(&mut g, start, Opcode::IntLt, vec![v(n), int(2)], T::Bool);
    let n2 = g.new_var(None, T::Signed);
    let rec = g.add_block(vec![n2]);
    let rb = g.returnblock;
    branch(&mut g, start, c, (vec![v(n)], rb), (vec![v(n)], rec));
    let a = op(&mut g, rec, Opcode::IntSub, vec![v(n2), int(1)], T::Signed);
    let fa = op(
        &mut g,
        rec,
        Opcode::DirectCall,
        vec![func("fib"), v(a)],
        T::Signed,
    );
    let b = op(&mut g, rec, Opcode::IntSub, vec![v(n2), int(2)], T::Signed);
    let fb = op(
        &mut g,
        rec,
        Opcode::DirectCall,
        vec![func("fib"), v(b)],
        T::Signed,
    );
    let sum = op(&mut g, rec, Opcode::IntAdd, vec![v(fa), v(fb)], T::Signed);
    ret(&mut g, rec, v(sum));
    g
}

#[test]
fn fib_recursion_is_fast() {
    let p = program(vec![fib_graph()], types());
    let mut interp = LlInterpreter::new(&p);
    let mut out = Vec::new();
    assert_eq!(
        interp.call("fib", vec![LlValue::Signed(10)], &mut out),
        Ok(LlValue::Signed(55))
    );
    let t = Instant::now();
    let r = interp.call("fib", vec![LlValue::Signed(25)], &mut out);
    let dt = t.elapsed();
    println!("fib(25) took {dt:?}");
    assert_eq!(r, Ok(LlValue::Signed(75025)));
    assert!(dt.as_secs_f64() < 3.0, "fib(25) took {dt:?}");
}

#[test]
fn links_assign_in_parallel() {
    // loop(i, a, b): i2 = i - 1; if i2 > 0: loop(i2, b, a) else return a * 10 + b
    let (mut g, start, ps) = graph("swap", &[T::Signed, T::Signed, T::Signed], T::Signed);
    let i = g.new_var(None, T::Signed);
    let a = g.new_var(None, T::Signed);
    let b = g.new_var(None, T::Signed);
    let lp = g.add_block(vec![i, a, b]);
    goto(&mut g, start, ps.iter().map(|p| v(*p)).collect(), lp);
    let i2 = op(&mut g, lp, Opcode::IntSub, vec![v(i), int(1)], T::Signed);
    let c = op(&mut g, lp, Opcode::IntGt, vec![v(i2), int(0)], T::Bool);
    let a2 = g.new_var(None, T::Signed);
    let b2 = g.new_var(None, T::Signed);
    let done = g.add_block(vec![a2, b2]);
    branch(
        &mut g,
        lp,
        c,
        (vec![v(i2), v(b), v(a)], lp),
        (vec![v(a), v(b)], done),
    );
    let t = op(
        &mut g,
        done,
        Opcode::IntMul,
        vec![v(a2), int(10)],
        T::Signed,
    );
    let r = op(&mut g, done, Opcode::IntAdd, vec![v(t), v(b2)], T::Signed);
    ret(&mut g, done, v(r));
    let p = program(vec![g], types());
    let call = |n: i64| {
        run(
            &p,
            "swap",
            vec![LlValue::Signed(n), LlValue::Signed(1), LlValue::Signed(2)],
        )
        .0
    };
    // n - 1 swaps.
    assert_eq!(call(1), Ok(LlValue::Signed(12)));
    assert_eq!(call(2), Ok(LlValue::Signed(21)));
    assert_eq!(call(3), Ok(LlValue::Signed(12)));
    assert_eq!(call(10), Ok(LlValue::Signed(21)));
}

#[test]
fn deep_recursion_uses_no_rust_stack() {
    // down(n): if n == 0: return 0; return down(n - 1) + 1
    let (mut g, start, ps) = graph("down", &[T::Signed], T::Signed);
    let c = op(
        &mut g,
        start,
        Opcode::IntEq,
        vec![v(ps[0]), int(0)],
        T::Bool,
    );
    let n = g.new_var(None, T::Signed);
    let rec = g.add_block(vec![n]);
    let rb = g.returnblock;
    branch(&mut g, start, c, (vec![int(0)], rb), (vec![v(ps[0])], rec));
    let m = op(&mut g, rec, Opcode::IntSub, vec![v(n), int(1)], T::Signed);
    let r = op(
        &mut g,
        rec,
        Opcode::DirectCall,
        vec![func("down"), v(m)],
        T::Signed,
    );
    let r1 = op(&mut g, rec, Opcode::IntAdd, vec![v(r), int(1)], T::Signed);
    ret(&mut g, rec, v(r1));
    let p = program(vec![g], types());
    assert_eq!(
        run(&p, "down", vec![LlValue::Signed(100_000)]).0,
        Ok(LlValue::Signed(100_000))
    );

    let mut interp = LlInterpreter::new(&p);
    interp.set_max_depth(1000);
    let e = interp
        .call("down", vec![LlValue::Signed(5000)], &mut Vec::new())
        .unwrap_err();
    assert_eq!(e.kind, LlErrorKind::Fatal);
    assert!(
        e.message.contains("maximum recursion depth"),
        "{}",
        e.message
    );
    assert_eq!(e.traceback.len(), 1000);
}

#[test]
fn argv_and_printing() {
    // entry_point(argv): n = int(argv[1]); print(argv[0], ": ", str(n * 2), "\n");
    //                    return len(argv) + items[2] length via getfield/getarrayitem
    let (mut g, b, ps) = graph("entry_point", &[strlist_t()], T::Signed);
    let argv = ps[0];
    let (_, arr) = lltype::list_type_names(&str_t());
    let items = op(
        &mut g,
        b,
        Opcode::Getfield,
        vec![v(argv), name("items")],
        T::Ptr(arr),
    );
    let a1 = op(
        &mut g,
        b,
        Opcode::Getarrayitem,
        vec![v(items), int(1)],
        str_t(),
    );
    let n = call_rt(&mut g, b, "rpy_str_to_int", vec![v(a1)], T::Signed);
    let n2 = op(&mut g, b, Opcode::IntMul, vec![v(n), int(2)], T::Signed);
    let sn = call_rt(&mut g, b, "rpy_str_from_int", vec![v(n2)], str_t());
    let a0 = op(
        &mut g,
        b,
        Opcode::Getarrayitem,
        vec![v(items), int(0)],
        str_t(),
    );
    for piece in [v(a0), s(": "), v(sn), s("\n")] {
        call_rt(&mut g, b, "rpy_print_str", vec![piece], T::Void);
    }
    let len = op(
        &mut g,
        b,
        Opcode::Getfield,
        vec![v(argv), name("length")],
        T::Signed,
    );
    let it2 = op(
        &mut g,
        b,
        Opcode::Getarrayitem,
        vec![v(items), int(2)],
        str_t(),
    );
    let l2 = op(
        &mut g,
        b,
        Opcode::Getfield,
        vec![v(it2), name("length")],
        T::Signed,
    );
    let l2b = op(&mut g, b, Opcode::Getarraysize, vec![v(it2)], T::Signed);
    let x = op(&mut g, b, Opcode::IntMul, vec![v(len), int(100)], T::Signed);
    let y = op(&mut g, b, Opcode::IntAdd, vec![v(x), v(l2)], T::Signed);
    let z = op(&mut g, b, Opcode::IntAdd, vec![v(y), v(l2b)], T::Signed);
    ret(&mut g, b, v(z));
    let p = program(vec![g], types());
    let mut interp = LlInterpreter::new(&p);
    let mut out = Vec::new();
    let argv: Vec<String> = ["prog", " 21 ", "hello"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let status = interp.run_entry(&argv, &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "prog: 42\n");
    assert_eq!(status, 310);

    let argv: Vec<String> = ["prog", "x1"].iter().map(|s| s.to_string()).collect();
    let e = LlInterpreter::new(&p)
        .run_entry(&argv, &mut Vec::new())
        .unwrap_err();
    assert_eq!(
        e.message,
        "fatal RPython error: ValueError: invalid literal for int() with base 10: 'x1'"
    );
    assert_eq!(e.graph, "entry_point");
}

#[test]
fn string_runtime_functions() {
    let text = |r: RtResult| r.2.unwrap();
    assert_eq!(
        text(rt_call("rpy_str_from_int", vec![LlValue::Signed(i64::MIN)])),
        "-9223372036854775808"
    );
    assert_eq!(
        text(rt_call("rpy_str_from_int", vec![LlValue::Signed(i64::MAX)])),
        "9223372036854775807"
    );
    assert_eq!(
        text(rt_call("rpy_str_from_int", vec![LlValue::Signed(0)])),
        "0"
    );
    assert_eq!(
        text(rt_call("rpy_str_from_char", vec![LlValue::Char(b'x')])),
        "x"
    );
    assert_eq!(
        text(rt_call("rpy_str_from_bool", vec![LlValue::Bool(true)])),
        "True"
    );
    assert_eq!(
        text(rt_call("rpy_str_from_bool", vec![LlValue::Bool(false)])),
        "False"
    );
    assert_eq!(
        text(rt_call("rpy_str_from_float", vec![LlValue::Float(0.1)])),
        "0.1"
    );
    assert_eq!(
        text(rt_call("rpy_str_from_float_py2", vec![LlValue::Float(0.1)])),
        "0.1"
    );
    assert_eq!(
        text(rt_call("rpy_str_from_float_py2", vec![LlValue::Float(2.0)])),
        "2.0"
    );

    let val = |r: RtResult| r.0.unwrap();
    assert_eq!(
        val(rt_call("rpy_str_to_int", vec![string(b" -42\n")])),
        LlValue::Signed(-42)
    );
    assert_eq!(
        val(rt_call(
            "rpy_str_to_int",
            vec![string(b"-9223372036854775808")]
        )),
        LlValue::Signed(i64::MIN)
    );
    assert_eq!(
        val(rt_call("rpy_str_to_float", vec![string(b" 1.5e3 ")])),
        LlValue::Float(1500.0)
    );
    let (r, out, _) = rt_call("rpy_print_str", vec![LlValue::Ptr(None)]);
    assert_eq!((r, out.as_str()), (Ok(LlValue::Void), "None"));
    assert_eq!(
        fatal_message(rt_call("rpy_int_pow", vec![LlValue::Signed(2), LlValue::Signed(-1)]).0),
        "fatal RPython error: ValueError: integer power with a negative exponent"
    );
    let (r, out, _) = rt_call("rpy_print_str", vec![string(b"hi\n")]);
    assert_eq!((r, out.as_str()), (Ok(LlValue::Void), "hi\n"));
    assert_eq!(
        val(rt_call(
            "rpy_int_pow",
            vec![LlValue::Signed(3), LlValue::Signed(5)]
        )),
        LlValue::Signed(243)
    );
    assert_eq!(
        val(rt_call(
            "rpy_int_pow",
            vec![LlValue::Signed(2), LlValue::Signed(64)]
        )),
        LlValue::Signed(0)
    );
    assert_eq!(
        val(rt_call(
            "rpy_float_pow",
            vec![LlValue::Float(2.0), LlValue::Float(0.5)]
        )),
        LlValue::Float(2f64.sqrt())
    );

    assert_eq!(
        fatal_message(rt_call("rpy_str_to_int", vec![string(b"abc")]).0),
        "fatal RPython error: ValueError: invalid literal for int() with base 10: 'abc'"
    );
    assert_eq!(
        fatal_message(rt_call("rpy_str_to_int", vec![string(b"9223372036854775808")]).0),
        "fatal RPython error: ValueError: invalid literal for int() with base 10: '9223372036854775808'"
    );
    assert_eq!(
        fatal_message(rt_call("rpy_str_to_float", vec![string(b"1.2.3")]).0),
        "fatal RPython error: ValueError: could not convert string to float: '1.2.3'"
    );
}

#[test]
fn string_constants_are_prebuilt_once() {
    let (mut g, b, _) = graph("k", &[], str_t());
    ret(&mut g, b, s("hello"));
    let p = program(vec![g], types());
    let mut interp = LlInterpreter::new(&p);
    let mut out = Vec::new();
    let x = interp.call("k", vec![], &mut out).unwrap();
    let y = interp.call("k", vec![], &mut out).unwrap();
    assert_eq!(interp.string_text(&x).as_deref(), Some("hello"));
    assert_eq!(x, y, "the same constant is the same object");
    assert_ne!(x, interp.new_string(b"hello"));
}

#[test]
fn structs_and_arrays() {
    let mut t = types();
    t.insert(
        "point".into(),
        ContainerType::GcStruct {
            fields: vec![
                ("x".into(), T::Signed),
                ("f".into(), T::Float),
                ("b".into(), T::Bool),
                ("c".into(), T::Char),
                ("next".into(), T::Ptr("point".into())),
            ],
            var_item: None,
        },
    );
    t.insert("ints".into(), ContainerType::GcArray { item: T::Signed });
    // mk(n): p = malloc(point); a = malloc_varsize(ints, n); a[n-1] = 7; p.x = a[n-1] + len(a)
    //        return p.x * 1000 + (p.f == 0.0) * 100 + (not p.b) * 10 + (p.next is zero -> via c == '\0')
    let (mut g, b, ps) = graph("mk", &[T::Signed], T::Signed);
    let pt = T::Ptr("point".into());
    let p = op(&mut g, b, Opcode::Malloc, vec![name("point")], pt.clone());
    let a = op(
        &mut g,
        b,
        Opcode::MallocVarsize,
        vec![name("ints"), v(ps[0])],
        T::Ptr("ints".into()),
    );
    let last = op(&mut g, b, Opcode::IntSub, vec![v(ps[0]), int(1)], T::Signed);
    op(
        &mut g,
        b,
        Opcode::Setarrayitem,
        vec![v(a), v(last), int(7)],
        T::Void,
    );
    let item = op(
        &mut g,
        b,
        Opcode::Getarrayitem,
        vec![v(a), v(last)],
        T::Signed,
    );
    let item0 = op(
        &mut g,
        b,
        Opcode::Getarrayitem,
        vec![v(a), int(0)],
        T::Signed,
    );
    let size = op(&mut g, b, Opcode::Getarraysize, vec![v(a)], T::Signed);
    let len = op(
        &mut g,
        b,
        Opcode::Getfield,
        vec![v(a), name("length")],
        T::Signed,
    );
    let x = op(&mut g, b, Opcode::IntAdd, vec![v(item), v(size)], T::Signed);
    let x = op(&mut g, b, Opcode::IntAdd, vec![v(x), v(len)], T::Signed);
    let x = op(&mut g, b, Opcode::IntAdd, vec![v(x), v(item0)], T::Signed);
    op(
        &mut g,
        b,
        Opcode::Setfield,
        vec![v(p), name("x"), v(x)],
        T::Void,
    );
    let px = op(
        &mut g,
        b,
        Opcode::Getfield,
        vec![v(p), name("x")],
        T::Signed,
    );
    let pf = op(&mut g, b, Opcode::Getfield, vec![v(p), name("f")], T::Float);
    let fz = op(
        &mut g,
        b,
        Opcode::FloatEq,
        vec![v(pf), Arg::Const(Constant::Float(0.0))],
        T::Bool,
    );
    let pb = op(&mut g, b, Opcode::Getfield, vec![v(p), name("b")], T::Bool);
    let nb = op(&mut g, b, Opcode::BoolNot, vec![v(pb)], T::Bool);
    let pc = op(&mut g, b, Opcode::Getfield, vec![v(p), name("c")], T::Char);
    let cz = op(
        &mut g,
        b,
        Opcode::CharEq,
        vec![v(pc), Arg::Const(Constant::Char(0))],
        T::Bool,
    );
    let r = op(&mut g, b, Opcode::IntMul, vec![v(px), int(1000)], T::Signed);
    let fz = op(&mut g, b, Opcode::CastBoolToInt, vec![v(fz)], T::Signed);
    let fz = op(&mut g, b, Opcode::IntMul, vec![v(fz), int(100)], T::Signed);
    let nb = op(&mut g, b, Opcode::CastBoolToInt, vec![v(nb)], T::Signed);
    let nb = op(&mut g, b, Opcode::IntMul, vec![v(nb), int(10)], T::Signed);
    let r = op(&mut g, b, Opcode::IntAdd, vec![v(r), v(fz)], T::Signed);
    let r = op(&mut g, b, Opcode::IntAdd, vec![v(r), v(nb)], T::Signed);
    let r = op(&mut g, b, Opcode::IntAdd, vec![v(r), v(cz)], T::Signed);
    ret(&mut g, b, v(r));
    // p.next.x: a null dereference.
    let (mut h, hb, _) = graph("null", &[], T::Signed);
    let p2 = op(&mut h, hb, Opcode::Malloc, vec![name("point")], pt.clone());
    let nx = op(&mut h, hb, Opcode::Getfield, vec![v(p2), name("next")], pt);
    let xx = op(
        &mut h,
        hb,
        Opcode::Getfield,
        vec![v(nx), name("x")],
        T::Signed,
    );
    ret(&mut h, hb, v(xx));
    let prog = program(vec![g, h], t);
    assert_eq!(
        run(&prog, "mk", vec![LlValue::Signed(3)]).0,
        Ok(LlValue::Signed(13_111))
    );
    let m = internal_message(run(&prog, "mk", vec![LlValue::Signed(0)]).0);
    assert!(m.contains("out of bounds"), "{m}");
    let m = internal_message(run(&prog, "null", vec![]).0);
    assert!(m.contains("null pointer"), "{m}");
}

#[test]
fn switches_on_ints_and_chars() {
    // sw(n): switch n { 1 => 10, 2 => 20, default => 99 }
    let (mut g, b, ps) = graph("sw", &[T::Signed], T::Signed);
    let rb = g.returnblock;
    g.block_mut(b).exitswitch = Some(v(ps[0]));
    for (case, val) in [
        (Constant::Int(1), 10),
        (Constant::Int(2), 20),
        (Constant::Name("default".into()), 99),
    ] {
        g.block_mut(b)
            .exits
            .push(Link::new(vec![int(val)], rb, Some(case)));
    }
    // ch(c): switch c { 'a' => 1, 'b' => 2 } (no default)
    let (mut h, hb, hs) = graph("ch", &[T::Char], T::Signed);
    let hr = h.returnblock;
    h.block_mut(hb).exitswitch = Some(v(hs[0]));
    for (case, val) in [(Constant::Char(b'a'), 1), (Constant::Char(b'b'), 2)] {
        h.block_mut(hb)
            .exits
            .push(Link::new(vec![int(val)], hr, Some(case)));
    }
    let p = program(vec![g, h], types());
    for (n, r) in [(1, 10), (2, 20), (3, 99), (-1, 99)] {
        assert_eq!(
            run(&p, "sw", vec![LlValue::Signed(n)]).0,
            Ok(LlValue::Signed(r))
        );
    }
    assert_eq!(
        run(&p, "ch", vec![LlValue::Char(b'b')]).0,
        Ok(LlValue::Signed(2))
    );
    internal_message(run(&p, "ch", vec![LlValue::Char(b'z')]).0);
}

/// A graph computing one binary operation on its two parameters.
fn binop(opname: &str, t: T, r: T) -> Program<LowLevel> {
    let opname = Opcode::from_name(opname).expect("an operation of the table");
    let (mut g, b, ps) = graph("f", &[t.clone(), t], r.clone());
    let x = op(&mut g, b, opname, vec![v(ps[0]), v(ps[1])], r);
    ret(&mut g, b, v(x));
    program(vec![g], types())
}

#[test]
fn integer_operations_follow_eval_int() {
    let cases: &[(&str, i64, i64, LlValue)] = &[
        ("int_add", i64::MAX, 1, LlValue::Signed(i64::MIN)),
        ("int_floordiv", -7, 2, LlValue::Signed(-3)),
        ("int_mod", -7, 2, LlValue::Signed(-1)),
        ("int_py_div", -7, 2, LlValue::Signed(-4)),
        ("int_py_mod", -7, 2, LlValue::Signed(1)),
        ("int_lshift", 1, 63, LlValue::Signed(i64::MIN)),
        ("int_rshift", -8, 1, LlValue::Signed(-4)),
        ("int_lt", 1, 2, LlValue::Bool(true)),
        ("int_ge", 1, 2, LlValue::Bool(false)),
    ];
    for (name, x, y, want) in cases {
        let ty = if matches!(want, LlValue::Bool(_)) {
            T::Bool
        } else {
            T::Signed
        };
        let p = binop(name, T::Signed, ty);
        assert_eq!(
            run(&p, "f", vec![LlValue::Signed(*x), LlValue::Signed(*y)])
                .0
                .as_ref(),
            Ok(want),
            "{name}"
        );
    }
    for (name, x, y) in [("int_lshift", 1, 64), ("int_rshift", 1, -1)] {
        let p = binop(name, T::Signed, T::Signed);
        let m = internal_message(run(&p, "f", vec![LlValue::Signed(x), LlValue::Signed(y)]).0);
        assert!(m.contains(name), "{m}");
    }
    // Division by zero is Python's ZeroDivisionError; MIN / -1 wraps (as in C).
    for name in ["int_floordiv", "int_mod", "int_py_div", "int_py_mod"] {
        let p = binop(name, T::Signed, T::Signed);
        let e = run(&p, "f", vec![LlValue::Signed(7), LlValue::Signed(0)])
            .0
            .unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str(), e.op.as_deref()),
            (
                LlErrorKind::Fatal,
                "fatal RPython error: ZeroDivisionError: integer division or modulo by zero",
                Some(name)
            )
        );
        let want = if name.ends_with("div") { i64::MIN } else { 0 };
        assert_eq!(
            run(
                &p,
                "f",
                vec![LlValue::Signed(i64::MIN), LlValue::Signed(-1)]
            )
            .0,
            Ok(LlValue::Signed(want)),
            "{name}"
        );
    }
    // Unary ops and Bool arguments.
    let (mut g, b, ps) = graph("f", &[T::Signed, T::Bool], T::Signed);
    let n = op(&mut g, b, Opcode::IntNeg, vec![v(ps[0])], T::Signed);
    let a = op(&mut g, b, Opcode::IntAbs, vec![v(n)], T::Signed);
    let i = op(&mut g, b, Opcode::IntInvert, vec![v(a)], T::Signed);
    let t = op(&mut g, b, Opcode::IntIsTrue, vec![v(i)], T::Bool);
    let nt = op(&mut g, b, Opcode::BoolNot, vec![v(ps[1])], T::Bool);
    let bi = op(&mut g, b, Opcode::CastBoolToInt, vec![v(t)], T::Signed);
    let s1 = op(&mut g, b, Opcode::IntAdd, vec![v(i), v(bi)], T::Signed);
    let s2 = op(&mut g, b, Opcode::IntAdd, vec![v(s1), v(nt)], T::Signed);
    ret(&mut g, b, v(s2));
    let p = program(vec![g], types());
    // ~5 + 1 + 0 = -5
    assert_eq!(
        run(&p, "f", vec![LlValue::Signed(5), LlValue::Bool(true)]).0,
        Ok(LlValue::Signed(-5))
    );
    assert_eq!(
        run(
            &p,
            "f",
            vec![LlValue::Signed(i64::MIN), LlValue::Bool(false)]
        )
        .0,
        Ok(LlValue::Signed(i64::MIN + 1))
    );
}

#[test]
fn float_and_char_operations() {
    let f = |name: &str, x: f64, y: f64| {
        let p = binop(name, T::Float, T::Float);
        match run(&p, "f", vec![LlValue::Float(x), LlValue::Float(y)])
            .0
            .unwrap()
        {
            LlValue::Float(r) => r,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(f("float_add", 0.1, 0.2), 0.1 + 0.2);
    assert_eq!(f("float_truediv", 1.0, 4.0), 0.25);
    assert_eq!(f("float_py_div", 7.5, 2.0), 3.0);
    assert_eq!(f("float_py_div", -7.5, 2.0), -4.0);
    assert_eq!(f("float_py_mod", -7.5, 2.0), 0.5);
    assert_eq!(f("float_py_mod", 7.5, -2.0), -0.5);
    let z = f("float_py_mod", 6.0, -2.0);
    assert!(z == 0.0 && z.is_sign_negative());
    let p = binop("float_lt", T::Float, T::Bool);
    assert_eq!(
        run(&p, "f", vec![LlValue::Float(1.0), LlValue::Float(f64::NAN)]).0,
        Ok(LlValue::Bool(false))
    );
    let p = binop("char_lt", T::Char, T::Bool);
    assert_eq!(
        run(&p, "f", vec![LlValue::Char(b'a'), LlValue::Char(0xff)]).0,
        Ok(LlValue::Bool(true))
    );

    // casts: int(float(n) * 1.5) + ord(chr(n))
    let (mut g, b, ps) = graph("c", &[T::Signed], T::Signed);
    let x = op(&mut g, b, Opcode::CastIntToFloat, vec![v(ps[0])], T::Float);
    let y = op(
        &mut g,
        b,
        Opcode::FloatMul,
        vec![v(x), Arg::Const(Constant::Float(1.5))],
        T::Float,
    );
    let y = op(&mut g, b, Opcode::FloatNeg, vec![v(y)], T::Float);
    let y = op(&mut g, b, Opcode::FloatAbs, vec![v(y)], T::Float);
    let i = op(&mut g, b, Opcode::CastFloatToInt, vec![v(y)], T::Signed);
    let c = op(&mut g, b, Opcode::CastIntToChar, vec![v(ps[0])], T::Char);
    let o = op(&mut g, b, Opcode::CastCharToInt, vec![v(c)], T::Signed);
    let r = op(&mut g, b, Opcode::IntAdd, vec![v(i), v(o)], T::Signed);
    let r = op(&mut g, b, Opcode::SameAs, vec![v(r)], T::Signed);
    ret(&mut g, b, v(r));
    let p = program(vec![g], types());
    assert_eq!(
        run(&p, "c", vec![LlValue::Signed(65)]).0,
        Ok(LlValue::Signed(97 + 65))
    );
    assert_eq!(
        run(&p, "c", vec![LlValue::Signed(300)]).0,
        Ok(LlValue::Signed(450 + 44))
    );
}

#[test]
fn errors_name_what_failed() {
    // Bad operations.
    let (mut k, kb, _) = graph("bad", &[], T::Signed);
    // A high-level operation has no place in a low-level graph.
    let r = op(&mut k, kb, Opcode::Getattr, vec![int(1)], T::Signed);
    ret(&mut k, kb, v(r));
    let (mut m, mb, _) = graph("mismatch", &[], T::Signed);
    let r = op(
        &mut m,
        mb,
        Opcode::IntAdd,
        vec![int(1), Arg::Const(Constant::Float(1.0))],
        T::Signed,
    );
    ret(&mut m, mb, v(r));
    let (mut u, ub, _) = graph("missing", &[], T::Signed);
    let r = op(
        &mut u,
        ub,
        Opcode::DirectCall,
        vec![func("nowhere")],
        T::Signed,
    );
    ret(&mut u, ub, v(r));
    let p = program(vec![k, m, u], types());
    assert!(internal_message(run(&p, "bad", vec![]).0).contains("getattr"));
    assert!(internal_message(run(&p, "mismatch", vec![]).0).contains("int_add"));
    assert!(internal_message(run(&p, "missing", vec![]).0).contains("nowhere"));
    assert!(internal_message(run(&p, "nograph", vec![]).0).contains("nograph"));
    assert!(internal_message(run(&p, "bad", vec![LlValue::Signed(1)]).0).contains("arguments"));
}

// ------------------------------------------------------ against CPython

const PY2: &str = "/root/.pyenv/versions/2.7.18/bin/python2.7";

/// Runs `python -c script`, feeding `input`; `None` (with a printed reason)
/// when that Python is not available.
fn python(exe: &str, script: &str, input: &str) -> Option<String> {
    use std::io::Write;
    let child = Command::new(exe)
        .arg("-c")
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            println!("skipping the CPython comparison: cannot run {exe}: {e}");
            return None;
        }
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{exe} failed");
    Some(String::from_utf8(out.stdout).unwrap())
}

fn tricky_floats() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.1,
        0.2,
        0.1 + 0.2,
        1.0 / 3.0,
        2.0 / 3.0,
        0.5,
        1.5,
        100.0,
        1e15,
        1e16,
        1e17,
        9999999999999998.0,
        1e22,
        1e23,
        1e-4,
        1e-5,
        0.0001234,
        0.00001234,
        1.5e-7,
        123456789.0,
        1234567890123.0,
        1234567890125.0,
        1234567890135.0,
        123456789012.0,
        999999999999.5,
        9999999999995.0,
        0.999999999999,
        0.9999999999995,
        1e12,
        1e11,
        12345678901234567.0,
        5e-324,
        2.2250738585072014e-308,
        f64::MAX,
        f64::MIN_POSITIVE,
        f64::EPSILON,
        std::f64::consts::PI,
        std::f64::consts::E,
        1e300 * 10.0,
        -1e300 * 10.0,
        f64::NAN,
        4.35,
        0.3,
        2.675,
        1e-310,
        123.456,
        -123.456e-20,
        9007199254740993.0,
        (1u64 << 63) as f64,
        0.000_099_999_999_999_999_99,
        1e100,
        1.7976931348623157e308,
        f64::from_bits(2),
        1e-7,
        12.0,
        1e5,
        99999999999.5,
        99999999999.95,
        12345678901.0,
        999999999999.0,
        1e6 + 0.5,
        3.0e15 + 0.5,
    ];
    // Powers of ten and their neighbours, and a deterministic pseudo-random spread.
    for e in -20..25 {
        let x = 10f64.powi(e);
        v.push(x);
        v.push(f64::from_bits(x.to_bits() + 1));
        v.push(f64::from_bits(x.to_bits() - 1));
    }
    let mut seed: u64 = 0x9e3779b97f4a7c15;
    for _ in 0..300 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let x = f64::from_bits(seed);
        if x.is_finite() {
            v.push(x);
        }
        let m = (seed >> 11) as f64 / (1u64 << 53) as f64;
        v.push(m * 10f64.powi((seed % 40) as i32 - 20));
    }
    v
}

#[test]
fn float_repr_matches_python3() {
    let values = tricky_floats();
    let input: String = values
        .iter()
        .map(|x| format!("{}\n", x.to_bits()))
        .collect();
    let script = "import sys, struct\nfor l in sys.stdin:\n    print(repr(struct.unpack('<d', struct.pack('<Q', int(l)))[0]))";
    let Some(out) = python("python3", script, &input) else {
        return;
    };
    let mut checked = 0;
    for (x, want) in values.iter().zip(out.lines()) {
        assert_eq!(
            pystr::float_repr(*x),
            want,
            "repr of bits {:#x}",
            x.to_bits()
        );
        checked += 1;
    }
    assert_eq!(checked, values.len());
    // And through the interpreter's runtime function.
    for x in &values[..10] {
        let r = rt_call("rpy_str_from_float", vec![LlValue::Float(*x)]).2;
        assert_eq!(r.unwrap(), pystr::float_repr(*x));
    }
}

#[test]
fn float_str_matches_python2() {
    let values = tricky_floats();
    let input: String = values
        .iter()
        .map(|x| format!("{}\n", x.to_bits()))
        .collect();
    let script = "import sys, struct\nfor l in sys.stdin:\n    print(str(struct.unpack('<d', struct.pack('<Q', int(l)))[0]))";
    if !std::path::Path::new(PY2).exists() {
        println!("skipping the CPython 2.7 comparison: {PY2} is absent");
        return;
    }
    let Some(out) = python(PY2, script, &input) else {
        return;
    };
    for (x, want) in values.iter().zip(out.lines()) {
        assert_eq!(
            pystr::float_str_py2(*x),
            want,
            "str of bits {:#x}",
            x.to_bits()
        );
    }
    for x in &values[..10] {
        let r = rt_call("rpy_str_from_float_py2", vec![LlValue::Float(*x)]).2;
        assert_eq!(r.unwrap(), pystr::float_str_py2(*x));
    }
    // %.Ng for other precisions.
    let script = "import sys, struct\nfor l in sys.stdin:\n    x = struct.unpack('<d', struct.pack('<Q', int(l)))[0]\n    print(' '.join('%%.%dg' % p % x for p in (1, 2, 6, 17)))";
    let Some(out) = python(PY2, script, &input) else {
        return;
    };
    for (x, want) in values.iter().zip(out.lines()) {
        let got: Vec<String> = [1, 2, 6, 17]
            .iter()
            .map(|p| pystr::format_g(*x, *p))
            .collect();
        assert_eq!(got.join(" "), want, "%g of bits {:#x}", x.to_bits());
    }
}

fn tricky_numeric_strings() -> Vec<&'static str> {
    vec![
        "0", "-0", "+0", "42", " 42", "42 ", "\t\n42\x0b\x0c\r", "-42", "+42", "- 42", "+-1", "--1", "",
        " ", "+", "-", "abc", "1a", "0x10", "1_000", "1__000", "_1", "1_", "0_0", "007", "00",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "99999999999999999999999", "000000000000000000000000000001", "1.5", "1e5", "1.", ".5", "1.e5",
        ".e5", "e5", "1e", "1e+", "1e-5", "1E5", "inf", "-inf", "+inf", "Infinity", "-iNfInItY", "nan",
        "-nan", "NaN", "nan(1)", "infinit", "1_0.5_0e1_0", "1_.5", "1._5", "1e_5", "1.5.", "1.2.3",
        "  1.5  ", "1e400", "-1e400", "1e-400", "0.1", "2.675", "1\x00", "\x1c1", "a'b", "a\"b", "a'\"b",
        "back\\slash", "caf\u{e9}",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "123456789012345678901234567890.123456789e-10",
    ]
}

#[test]
fn int_and_float_parsing_match_python3() {
    let strs = tricky_numeric_strings();
    // Strings go to Python as hex of their UTF-8 bytes.
    let input: String = strs
        .iter()
        .map(|s| s.bytes().map(|b| format!("{b:02x}")).collect::<String>() + "\n")
        .collect();
    let script = r#"
import sys
for l in sys.stdin:
    s = bytes.fromhex(l.strip()).decode('utf-8')
    try:
        n = int(s)
        r1 = 'I ' + str(n) if -2**63 <= n < 2**63 else 'BIG'
    except ValueError as e:
        r1 = 'E ' + str(e)
    try:
        r2 = 'F ' + repr(float(s))
    except ValueError as e:
        r2 = 'E ' + str(e)
    print((r1 + '\x01' + r2).encode('unicode_escape').decode('ascii'))
"#;
    let Some(out) = python("python3", script, &input) else {
        return;
    };
    let unescape = |t: &str| -> String {
        // Python's unicode_escape of our ASCII-or-latin text: undo \\xNN, \\n, \\t, \\r, \\\\.
        let mut r = Vec::new();
        let b = t.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'\\' {
                match b[i + 1] {
                    b'x' => {
                        let c = u32::from_str_radix(&t[i + 2..i + 4], 16).unwrap();
                        let mut buf = [0; 4];
                        r.extend_from_slice(
                            char::from_u32(c).unwrap().encode_utf8(&mut buf).as_bytes(),
                        );
                        i += 4;
                        continue;
                    }
                    b'n' => r.push(b'\n'),
                    b't' => r.push(b'\t'),
                    b'r' => r.push(b'\r'),
                    b'\\' => r.push(b'\\'),
                    other => panic!("escape {other}"),
                }
                i += 2;
            } else {
                r.push(b[i]);
                i += 1;
            }
        }
        String::from_utf8(r).unwrap()
    };
    let mut n = 0;
    for (s, line) in strs.iter().zip(out.lines()) {
        let line = unescape(line);
        let (want_int, want_float) = line.split_once('\x01').unwrap();
        // A Python 3 str of rpy holds each char (below U+0100) as a byte.
        let s = &rpy_ir::graph::str_bytes(s);
        let got_int = match pystr::parse_int(s) {
            Ok(v) => format!("I {v}"),
            Err(e) => format!("E {}", e.strip_prefix("ValueError: ").unwrap()),
        };
        if want_int == "BIG" {
            assert_eq!(
                got_int,
                format!("E {}", pystr::int_error_message(s)),
                "int({s:?})"
            );
        } else {
            assert_eq!(got_int, want_int, "int({s:?})");
        }
        let got_float = match pystr::parse_float(s) {
            Ok(v) => format!("F {}", pystr::float_repr(v)),
            Err(e) => format!("E {}", e.strip_prefix("ValueError: ").unwrap()),
        };
        assert_eq!(got_float, want_float, "float({s:?})");
        n += 1;
    }
    assert_eq!(n, strs.len());
}

/// A string constant is a prebuilt rpy_string wherever a pointer is read:
/// inlining leaves `getarraysize("abc")` and `getarrayitem("abc", 1)`.
#[test]
fn string_constants_are_read_as_arrays() {
    let (mut g, b, _) = graph("f", &[], T::Signed);
    let n = op(&mut g, b, Opcode::Getarraysize, vec![s("abc")], T::Signed);
    let c = op(
        &mut g,
        b,
        Opcode::Getarrayitem,
        vec![s("abc"), int(1)],
        T::Char,
    );
    let code = op(&mut g, b, Opcode::CastCharToInt, vec![v(c)], T::Signed);
    let r = op(&mut g, b, Opcode::IntAdd, vec![v(n), v(code)], T::Signed);
    ret(&mut g, b, v(r));
    let p = program(vec![g], types());
    let (r, _) = run(&p, "f", vec![]);
    assert_eq!(r.unwrap(), LlValue::Signed(3 + b'b' as i64));
}

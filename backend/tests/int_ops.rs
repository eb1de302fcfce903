//! Integer operations of generated C against `llops::eval_int`, on many
//! random and edge values: one compiled program, run once per operation.

mod common;
use common::*;
use rpy_ir::graph::Constant;
use rpy_ir::llops::eval_int;
use rpy_ir::opcode::Opcode;

/// (operation, arity, constant second argument)
const OPS: &[(Opcode, usize, Option<i64>)] = &[
    (Opcode::IntAdd, 2, None),
    (Opcode::IntSub, 2, None),
    (Opcode::IntMul, 2, None),
    (Opcode::IntFloordiv, 2, None),
    (Opcode::IntMod, 2, None),
    (Opcode::IntPyDiv, 2, None),
    (Opcode::IntPyMod, 2, None),
    (Opcode::IntAnd, 2, None),
    (Opcode::IntOr, 2, None),
    (Opcode::IntXor, 2, None),
    (Opcode::IntLshift, 2, None),
    (Opcode::IntRshift, 2, None),
    (Opcode::IntNeg, 1, None),
    (Opcode::IntInvert, 1, None),
    (Opcode::IntAbs, 1, None),
    (Opcode::IntLt, 2, None),
    (Opcode::IntLe, 2, None),
    (Opcode::IntEq, 2, None),
    (Opcode::IntNe, 2, None),
    (Opcode::IntGt, 2, None),
    (Opcode::IntGe, 2, None),
    (Opcode::IntIsTrue, 1, None),
    (Opcode::IntAdd, 2, Some(i64::MIN)),
    (Opcode::IntSub, 2, Some(i64::MIN)),
    (Opcode::IntMul, 2, Some(-7)),
    (Opcode::IntPyDiv, 2, Some(7)),
    (Opcode::IntPyDiv, 2, Some(-7)),
    (Opcode::IntPyMod, 2, Some(7)),
    (Opcode::IntPyMod, 2, Some(-7)),
    (Opcode::IntFloordiv, 2, Some(10)),
    (Opcode::IntMod, 2, Some(-10)),
    (Opcode::IntLshift, 2, Some(63)),
    (Opcode::IntRshift, 2, Some(63)),
    (Opcode::IntAnd, 2, Some(i64::MAX)),
    (Opcode::IntPyDiv, 2, Some(8)),
    (Opcode::IntPyMod, 2, Some(2)),
    (Opcode::IntPyDiv, 2, Some(1)),
    (Opcode::IntPyMod, 2, Some(1)),
    (Opcode::IntPyDiv, 2, Some(1 << 62)),
    (Opcode::IntPyMod, 2, Some(1 << 62)),
    (Opcode::IntPyDiv, 2, Some(i64::MIN)),
    (Opcode::IntPyMod, 2, Some(i64::MIN)),
    (Opcode::IntFloordiv, 2, Some(i64::MIN)),
    (Opcode::IntMod, 2, Some(i64::MIN)),
    (Opcode::IntPyDiv, 2, Some(-1)),
    (Opcode::IntPyMod, 2, Some(-1)),
    (Opcode::IntPyDiv, 2, Some(-8)),
    (Opcode::IntPyMod, 2, Some(-8)),
    (Opcode::IntFloordiv, 2, Some(-16)),
    (Opcode::IntMod, 2, Some(16)),
];

fn is_compare(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::IntLt
            | Opcode::IntLe
            | Opcode::IntEq
            | Opcode::IntNe
            | Opcode::IntGt
            | Opcode::IntGe
            | Opcode::IntIsTrue
    )
}

#[test]
fn int_ops_match_eval_int() {
    // entry(argv): k = int(argv[1]); for i in 2, 4, ...: x, y = argv[i], argv[i+1];
    // print(OP_k(x, y)) -- the operation is chosen by a switch on k.
    let (mut g, ps) = G::new("entry", &[list_t()], T::Signed);
    let argv = ps[0];
    let state = [list_t(), T::Signed, T::Signed, T::Signed];
    let (lp, lv) = g.block(&state);
    let (body, bv) = g.block(&state);
    let (pr, prv) = g.block(&[list_t(), T::Signed, T::Signed, T::Signed, T::Signed]);

    let s1 = g.str_list_item(v(argv), int(1));
    let k = g.call("rpy_str_to_int", vec![v(s1)], T::Signed);
    let n = g.op(Opcode::Getfield, vec![v(argv), name("length")], T::Signed);
    g.goto(lp, vec![v(argv), v(k), v(n), int(2)]);

    g.cur = lp;
    let c = g.op(Opcode::IntLt, vec![v(lv[3]), v(lv[2])], T::Bool);
    let ret = g.ret();
    g.branch(
        v(c),
        (body, lv.iter().map(|x| v(*x)).collect()),
        (ret, vec![int(0)]),
    );

    g.cur = body;
    let sx = g.str_list_item(v(bv[0]), v(bv[3]));
    let x = g.call("rpy_str_to_int", vec![v(sx)], T::Signed);
    let i1 = g.op(Opcode::IntAdd, vec![v(bv[3]), int(1)], T::Signed);
    let sy = g.str_list_item(v(bv[0]), v(i1));
    let y = g.call("rpy_str_to_int", vec![v(sy)], T::Signed);
    let mut cases = Vec::new();
    let mut op_blocks = Vec::new();
    for (j, _) in OPS.iter().enumerate() {
        let (b, vars) = g.block(&[
            list_t(),
            T::Signed,
            T::Signed,
            T::Signed,
            T::Signed,
            T::Signed,
        ]);
        let mut args: Vec<_> = bv.iter().map(|x| v(*x)).collect();
        args.push(v(x));
        args.push(v(y));
        cases.push((Some(Constant::Int(j as i64)), b, args));
        op_blocks.push((b, vars));
    }
    cases.push((Some(Constant::Name("default".into())), ret, vec![int(99)]));
    g.switch(v(bv[1]), cases);

    for ((op, arity, konst), (b, vars)) in OPS.iter().zip(op_blocks) {
        g.cur = b;
        let mut args = vec![v(vars[4])];
        if *arity == 2 {
            args.push(konst.map_or(v(vars[5]), int));
        }
        let mut r = g.op(*op, args, if is_compare(*op) { T::Bool } else { T::Signed });
        if is_compare(*op) {
            r = g.op(Opcode::CastBoolToInt, vec![v(r)], T::Signed);
        }
        g.goto(
            pr,
            vec![v(vars[0]), v(vars[1]), v(vars[2]), v(vars[3]), v(r)],
        );
    }

    g.cur = pr;
    let rs = g.call("rpy_str_from_int", vec![v(prv[4])], str_t());
    g.print(v(rs));
    g.print(s_nl());
    let i2 = g.op(Opcode::IntAdd, vec![v(prv[3]), int(2)], T::Signed);
    g.goto(lp, vec![v(prv[0]), v(prv[1]), v(prv[2]), v(i2)]);

    let exe = build(&program(vec![g], base_types()), "int_ops");

    let mut rng = Rng(0x1234_5678_9abc_def1);
    for (j, (op, _, konst)) in OPS.iter().enumerate() {
        let mut args = vec![j.to_string()];
        let mut expected = String::new();
        let mut count = 0;
        while count < 400 {
            let x = rng.int();
            let y = if op.name().contains("shift") && konst.is_none() {
                rng.below(64) as i64
            } else {
                rng.int()
            };
            let yy = konst.unwrap_or(y);
            let Some(r) = eval_int(*op, &[x, yy]).or_else(|| eval_int(*op, &[x])) else {
                continue;
            };
            args.push(x.to_string());
            args.push(y.to_string());
            expected.push_str(&format!("{r}\n"));
            count += 1;
        }
        let out = run(&exe, &args);
        assert_eq!(out.status, 0, "{op}: {}", out.stderr);
        if out.stdout != expected {
            for ((line, exp), k) in out.stdout.lines().zip(expected.lines()).zip(0..) {
                assert_eq!(
                    line,
                    exp,
                    "{op}({}, {}) const {konst:?}",
                    args[1 + 2 * k],
                    args[2 + 2 * k]
                );
            }
            panic!("{op}: output lengths differ");
        }
    }
    // An unknown operation index takes the default exit.
    assert_eq!(run(&exe, &["1000"]).status, 0);
    assert_eq!(run(&exe, &["1000", "1", "2"]).status, 99);
}

//! The e-graph optimizer: small blocks in, operations out; every opt rule
//! fires somewhere; random pure integer blocks mean the same before and after.

use proptest::prelude::*;
use rpy_ir::graph::{Arg, BlockId, Constant, FunctionGraph, Link, LowLevel, SpaceOperation, Var};
use rpy_ir::llops::eval_int;
use rpy_ir::lltype::LowLevelType;
use rpy_ir::opcode::Opcode;
use rpy_passes::backendopt::{optimize_graph, IntBound};
use rpy_ruleset::opt::{check_rule, Pat, RuleCheck, Ty, OPT_RULES};
use rpy_ruleset::{fire_count, RULES};

const S: LowLevelType = LowLevelType::Signed;
const B: LowLevelType = LowLevelType::Bool;

/// A graph whose start block takes `inputs` and exits to an end block (taking
/// the link's arguments) that returns.
struct Builder {
    g: FunctionGraph<LowLevel>,
}

impl Builder {
    fn new(inputs: &[LowLevelType]) -> (Builder, Vec<Var>) {
        let mut g = FunctionGraph::<LowLevel>::new("f", &[], S);
        let vars: Vec<Var> = inputs.iter().map(|t| g.new_var(None, t.clone())).collect();
        g.block_mut(g.startblock).inputargs = vars.clone();
        (Builder { g }, vars)
    }

    fn op(&mut self, name: Opcode, args: Vec<Arg>, ty: LowLevelType) -> Var {
        let r = self.g.new_var(None, ty);
        let start = self.g.startblock;
        self.g.block_mut(start).operations.push(SpaceOperation {
            opname: name,
            args,
            result: r,
            pos: None,
        });
        r
    }

    /// Ends the start block: one link passing `outs` to an end block.
    fn finish(mut self, outs: Vec<Arg>) -> FunctionGraph<LowLevel> {
        let types: Vec<LowLevelType> = outs.iter().map(|a| arg_type(&self.g, a)).collect();
        let end_args: Vec<Var> = types
            .iter()
            .map(|t| self.g.new_var(None, t.clone()))
            .collect();
        let end = self.g.add_block(end_args);
        let start = self.g.startblock;
        self.g.block_mut(start).exits = vec![Link::new(outs, end, None)];
        self.g
    }
}

fn arg_type(g: &FunctionGraph<LowLevel>, a: &Arg) -> LowLevelType {
    match a {
        Arg::Var(v) => g.info(*v).clone(),
        Arg::Const(Constant::Bool(_)) => B,
        _ => S,
    }
}

fn v(x: Var) -> Arg {
    Arg::Var(x)
}
fn int(c: i64) -> Arg {
    Arg::Const(Constant::Int(c))
}

fn ops_text(g: &FunctionGraph<LowLevel>) -> Vec<String> {
    g.block(g.startblock)
        .operations
        .iter()
        .map(|op| {
            let args: Vec<String> = op
                .args
                .iter()
                .map(|a| match a {
                    Arg::Var(v) => format!("v{}", v.0),
                    Arg::Const(Constant::Int(c)) => c.to_string(),
                    Arg::Const(Constant::Bool(b)) => b.to_string(),
                    Arg::Const(c) => format!("{c:?}"),
                })
                .collect();
            format!("{}({})", op.opname, args.join(", "))
        })
        .collect()
}

fn exit_args(g: &FunctionGraph<LowLevel>) -> Vec<Arg> {
    g.block(g.startblock).exits[0].args.clone()
}

/// What running the start block did: the values passed on (by the link the
/// exitswitch picks) and the arguments each non-pure operation saw, in order.
#[derive(Debug, PartialEq)]
struct Run {
    link: usize,
    outs: Vec<i64>,
    effects: Vec<(String, Vec<i64>)>,
}

/// Runs the start block with `eval_int`; `None` when some operation is
/// undefined on these inputs. `direct_call` stands for an opaque operation:
/// it records its arguments and yields a mix of them.
fn run(g: &FunctionGraph<LowLevel>, inputs: &[i64]) -> Option<Run> {
    let block = g.block(g.startblock);
    let mut env = std::collections::HashMap::new();
    for (var, x) in block.inputargs.iter().zip(inputs) {
        env.insert(*var, *x);
    }
    let val = |env: &std::collections::HashMap<Var, i64>, a: &Arg| -> i64 {
        match a {
            Arg::Var(v) => env[v],
            Arg::Const(Constant::Int(c)) => *c,
            Arg::Const(Constant::Bool(b)) => *b as i64,
            _ => 0,
        }
    };
    let mut effects = Vec::new();
    for op in &block.operations {
        let args: Vec<i64> = op.args.iter().map(|a| val(&env, a)).collect();
        let r = if op.opname == Opcode::DirectCall {
            effects.push((op.opname.name().to_string(), args[1..].to_vec()));
            args.iter()
                .fold(0x1234_5678i64, |h, x| h.wrapping_mul(31).wrapping_add(*x))
        } else {
            eval_int(op.opname, &args)?
        };
        env.insert(op.result, r);
    }
    let link = match &block.exitswitch {
        None => 0,
        Some(s) => {
            let x = val(&env, s);
            block
                .exits
                .iter()
                .position(|l| l.exitcase == Some(Constant::Bool(x != 0)))
                .expect("an exit for the switch value")
        }
    };
    let outs = block.exits[link]
        .args
        .iter()
        .map(|a| val(&env, a))
        .collect();
    Some(Run {
        link,
        outs,
        effects,
    })
}

#[test]
fn multiplying_by_eight_is_a_shift() {
    let (mut b, x) = Builder::new(&[S]);
    let r = b.op(Opcode::IntMul, vec![v(x[0]), int(8)], S);
    let mut g = b.finish(vec![v(r)]);
    optimize_graph(&mut g);
    assert_eq!(ops_text(&g), vec![format!("int_lshift(v{}, 3)", x[0].0)]);
}

#[test]
fn constant_additions_fold() {
    let (mut b, x) = Builder::new(&[S]);
    let a = b.op(Opcode::IntAdd, vec![v(x[0]), int(1)], S);
    let r = b.op(Opcode::IntAdd, vec![v(a), int(2)], S);
    let mut g = b.finish(vec![v(r)]);
    optimize_graph(&mut g);
    assert_eq!(ops_text(&g), vec![format!("int_add(v{}, 3)", x[0].0)]);
}

#[test]
fn subtracting_a_constant_then_adding_folds() {
    let (mut b, x) = Builder::new(&[S]);
    let a = b.op(Opcode::IntSub, vec![v(x[0]), int(5)], S);
    let r = b.op(Opcode::IntAdd, vec![int(7), v(a)], S);
    let mut g = b.finish(vec![v(r)]);
    optimize_graph(&mut g);
    assert_eq!(ops_text(&g), vec![format!("int_add(v{}, 2)", x[0].0)]);
}

#[test]
fn x_minus_x_is_a_constant_and_dead_ops_go() {
    let (mut b, x) = Builder::new(&[S, S]);
    let s = b.op(Opcode::IntAdd, vec![v(x[0]), v(x[1])], S);
    let r = b.op(Opcode::IntSub, vec![v(s), v(x[1])], S);
    let z = b.op(Opcode::IntSub, vec![v(r), v(x[0])], S);
    let mut g = b.finish(vec![v(r), v(z)]);
    optimize_graph(&mut g);
    assert!(ops_text(&g).is_empty(), "{:?}", ops_text(&g));
    assert_eq!(exit_args(&g), vec![v(x[0]), int(0)]);
}

#[test]
fn comparing_with_itself_is_a_bool_constant() {
    let (mut b, x) = Builder::new(&[S]);
    let lt = b.op(Opcode::IntLt, vec![v(x[0]), v(x[0])], B);
    let ge = b.op(Opcode::IntGe, vec![v(x[0]), v(x[0])], B);
    let mut g = b.finish(vec![v(lt), v(ge)]);
    optimize_graph(&mut g);
    assert!(ops_text(&g).is_empty());
    assert_eq!(
        exit_args(&g),
        vec![
            Arg::Const(Constant::Bool(false)),
            Arg::Const(Constant::Bool(true))
        ]
    );
}

#[test]
fn python_division_by_a_power_of_two_is_a_shift() {
    let (mut b, x) = Builder::new(&[S]);
    let d = b.op(Opcode::IntPyDiv, vec![v(x[0]), int(16)], S);
    let m = b.op(Opcode::IntPyMod, vec![v(x[0]), int(16)], S);
    let mut g = b.finish(vec![v(d), v(m)]);
    optimize_graph(&mut g);
    assert_eq!(
        ops_text(&g),
        vec![
            format!("int_rshift(v{}, 4)", x[0].0),
            format!("int_and(v{}, 15)", x[0].0)
        ]
    );
}

#[test]
fn bounds_let_c_division_become_a_shift() {
    let (mut b, x) = Builder::new(&[S]);
    let m = b.op(Opcode::IntAnd, vec![v(x[0]), int(255)], S);
    let d = b.op(Opcode::IntFloordiv, vec![v(m), int(4)], S);
    let r = b.op(Opcode::IntMod, vec![v(m), int(8)], S);
    let mut g = b.finish(vec![v(d), v(r)]);
    optimize_graph(&mut g);
    let m = m.0;
    assert_eq!(
        ops_text(&g),
        vec![
            format!("int_and(v{}, 255)", x[0].0),
            format!("int_rshift(v{m}, 2)"),
            format!("int_and(v{}, 7)", x[0].0),
        ]
    );
}

#[test]
fn c_division_of_an_unknown_value_stays() {
    let (mut b, x) = Builder::new(&[S]);
    let d = b.op(Opcode::IntFloordiv, vec![v(x[0]), int(4)], S);
    let mut g = b.finish(vec![v(d)]);
    optimize_graph(&mut g);
    assert_eq!(ops_text(&g), vec![format!("int_floordiv(v{}, 4)", x[0].0)]);
}

#[test]
fn division_by_zero_is_not_folded() {
    let (mut b, _) = Builder::new(&[]);
    let d = b.op(Opcode::IntFloordiv, vec![int(7), int(0)], S);
    let mut g = b.finish(vec![v(d)]);
    optimize_graph(&mut g);
    assert_eq!(ops_text(&g), vec!["int_floordiv(7, 0)".to_string()]);
}

#[test]
fn constants_fold_through_bounds() {
    let (mut b, x) = Builder::new(&[S]);
    let a = b.op(Opcode::IntAnd, vec![v(x[0]), int(7)], S);
    let c = b.op(Opcode::IntLt, vec![v(a), int(8)], B);
    let k = b.op(Opcode::IntMul, vec![int(6), int(7)], S);
    let mut g = b.finish(vec![v(c), v(k)]);
    optimize_graph(&mut g);
    assert!(ops_text(&g).is_empty());
    assert_eq!(
        exit_args(&g),
        vec![Arg::Const(Constant::Bool(true)), int(42)]
    );
}

#[test]
fn other_operations_keep_their_order_and_arguments() {
    let (mut b, x) = Builder::new(&[S]);
    let a = b.op(Opcode::IntMul, vec![v(x[0]), int(2)], S);
    let c1 = b.op(
        Opcode::DirectCall,
        vec![Arg::Const(Constant::Builtin("probe".into())), v(a)],
        S,
    );
    let s = b.op(Opcode::IntAdd, vec![v(c1), int(0)], S);
    let c2 = b.op(
        Opcode::DirectCall,
        vec![Arg::Const(Constant::Builtin("probe".into())), v(s), v(a)],
        S,
    );
    let mut g = b.finish(vec![v(c2)]);
    let before = run(&g, &[21]).unwrap();
    optimize_graph(&mut g);
    assert_eq!(run(&g, &[21]).unwrap(), before);
    let text = ops_text(&g);
    assert_eq!(text.len(), 3, "{text:?}");
    assert_eq!(text[0], format!("int_lshift(v{}, 1)", x[0].0));
    assert!(text[1].starts_with("direct_call"));
    assert_eq!(
        text[2],
        format!("direct_call(Builtin(\"probe\"), v{}, v{})", c1.0, a.0)
    );
}

#[test]
fn same_as_is_removed() {
    let (mut b, x) = Builder::new(&[S]);
    let c = b.op(Opcode::SameAs, vec![v(x[0])], S);
    let mut g = b.finish(vec![v(c)]);
    optimize_graph(&mut g);
    assert!(ops_text(&g).is_empty());
    assert_eq!(exit_args(&g), vec![v(x[0])]);
}

#[test]
fn the_exitswitch_follows_its_value() {
    let (mut b, x) = Builder::new(&[S]);
    let d = b.op(Opcode::IntSub, vec![v(x[0]), v(x[0])], S);
    let t = b.op(Opcode::IntEq, vec![v(d), int(0)], B);
    let mut g = b.finish(vec![v(x[0])]);
    let start = g.startblock;
    let link = g.block(start).exits[0].clone();
    g.block_mut(start).exitswitch = Some(v(t));
    g.block_mut(start).exits = vec![
        Link {
            exitcase: Some(Constant::Bool(false)),
            ..link.clone()
        },
        Link {
            exitcase: Some(Constant::Bool(true)),
            ..link
        },
    ];
    optimize_graph(&mut g);
    assert_eq!(
        g.block(start).exitswitch,
        Some(Arg::Const(Constant::Bool(true)))
    );
}

/// Builds one block holding an instance of each rule's pattern, with
/// variables that are constants (or facts) bound to values where the rule
/// applies, and runs the optimizer on it.
fn instantiate(rule_index: usize) -> FunctionGraph<LowLevel> {
    let rule = &OPT_RULES[rule_index];
    let inputs = applicable_inputs(rule_index)
        .unwrap_or_else(|| panic!("rule {} applies to no sample input", rule.name));
    // Variables asked for facts become constants: their bounds are exact.
    let mut fact_vars = std::collections::HashSet::new();
    for step in rule.steps {
        let e = match step {
            rpy_ruleset::opt::Step::Check(e) | rpy_ruleset::opt::Step::Let(_, e) => e,
        };
        collect_fact_slots(e, &mut fact_vars);
    }
    let types: Vec<LowLevelType> = rule
        .vars
        .iter()
        .map(|var| if var.ty == Ty::Bool { B } else { S })
        .collect();
    let (mut b, leaves) = Builder::new(&types);
    let arg_of = |i: usize| -> Arg {
        let var = &rule.vars[i];
        if var.const_only || fact_vars.contains(&i) {
            if var.ty == Ty::Bool {
                Arg::Const(Constant::Bool(inputs[i] != 0))
            } else {
                int(inputs[i])
            }
        } else {
            v(leaves[i])
        }
    };
    fn build(b: &mut Builder, p: &Pat, arg_of: &dyn Fn(usize) -> Arg) -> Arg {
        match p {
            Pat::Var(i) => arg_of(*i),
            Pat::Int(c) => int(*c),
            Pat::Bool(c) => Arg::Const(Constant::Bool(*c)),
            Pat::Op(name, args) => {
                let args: Vec<Arg> = args.iter().map(|a| build(b, a, arg_of)).collect();
                let (_, _, res) = rpy_passes::backendopt::egraph::int_sig(*name).unwrap();
                v(b.op(*name, args, if res { B } else { S }))
            }
        }
    }
    let root = build(&mut b, &rule.lhs, &arg_of);
    b.finish(vec![root])
}

fn collect_fact_slots(e: &rpy_ruleset::opt::Expr, out: &mut std::collections::HashSet<usize>) {
    use rpy_ruleset::opt::Expr;
    match e {
        Expr::Fact(_, slot, arg) => {
            out.insert(*slot);
            if let Some(a) = arg {
                collect_fact_slots(a, out);
            }
        }
        Expr::Un(_, a) | Expr::HighestBit(a) => collect_fact_slots(a, out),
        Expr::Bin(_, a, b) => {
            collect_fact_slots(a, out);
            collect_fact_slots(b, out);
        }
        _ => {}
    }
}

/// Inputs (by slot) for which the rule applies, from small sample values.
fn applicable_inputs(rule_index: usize) -> Option<Vec<i64>> {
    let rule = &OPT_RULES[rule_index];
    let pool: Vec<i64> = vec![5, 3, 8, 1, 0, 2, 4, 64, 7, 100, -1, -8, 16, 255];
    let n = rule.vars.len();
    let mut idx = vec![0usize; n];
    loop {
        let inputs: Vec<i64> = idx
            .iter()
            .zip(rule.vars)
            .map(|(i, var)| {
                if var.ty == Ty::Bool {
                    pool[*i] & 1
                } else {
                    pool[*i]
                }
            })
            .collect();
        if check_rule(rule_index, &inputs) == RuleCheck::Agree {
            return Some(inputs);
        }
        // Next combination.
        let mut k = 0;
        loop {
            if k == n {
                return None;
            }
            idx[k] += 1;
            if idx[k] < pool.len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}

#[test]
fn every_opt_rule_fires_and_keeps_the_meaning() {
    for (i, rule) in OPT_RULES.iter().enumerate() {
        let mut g = instantiate(i);
        let inputs: Vec<i64> = g
            .block(g.startblock)
            .inputargs
            .iter()
            .map(|v| if *g.info(*v) == B { 1 } else { 12345 })
            .collect();
        let before = run(&g, &inputs);
        optimize_graph(&mut g);
        if let Some(before) = before {
            assert_eq!(run(&g, &inputs), Some(before), "rule {}", rule.name);
        }
    }
    let silent: Vec<&str> = OPT_RULES
        .iter()
        .filter(|r| fire_count(r.rule) == 0)
        .map(|r| r.name)
        .collect();
    assert!(silent.is_empty(), "opt rules that never fired: {silent:?}");
    assert!(RULES.len() > OPT_RULES.len());
}

/// One operation of a random block: an op name and argument choices (an
/// index into earlier values of the right type, or a constant).
#[derive(Clone, Debug)]
struct RandOp {
    op: usize,
    args: [(bool, usize, i64); 2],
}

const INT_OPS: &[Opcode] = &[
    Opcode::IntAdd,
    Opcode::IntSub,
    Opcode::IntMul,
    Opcode::IntAnd,
    Opcode::IntOr,
    Opcode::IntXor,
    Opcode::IntLshift,
    Opcode::IntRshift,
    Opcode::IntFloordiv,
    Opcode::IntMod,
    Opcode::IntPyDiv,
    Opcode::IntPyMod,
    Opcode::IntNeg,
    Opcode::IntInvert,
    Opcode::IntAbs,
    Opcode::IntLt,
    Opcode::IntLe,
    Opcode::IntEq,
    Opcode::IntNe,
    Opcode::IntGt,
    Opcode::IntGe,
    Opcode::IntIsTrue,
    Opcode::BoolNot,
    Opcode::CastBoolToInt,
    Opcode::SameAs,
    Opcode::DirectCall,
];

fn interesting() -> impl Strategy<Value = i64> {
    prop_oneof![
        prop::sample::select(vec![
            0i64,
            1,
            -1,
            2,
            3,
            4,
            7,
            8,
            16,
            63,
            64,
            65,
            255,
            -8,
            i64::MIN,
            i64::MAX,
            1 << 32,
            100
        ]),
        -70i64..70,
        any::<i64>(),
    ]
}

fn rand_op() -> impl Strategy<Value = RandOp> {
    (
        0..INT_OPS.len(),
        (any::<bool>(), any::<usize>(), interesting()),
        (any::<bool>(), any::<usize>(), interesting()),
    )
        .prop_map(|(op, a, b)| RandOp { op, args: [a, b] })
}

/// Builds a block from random choices: each operation takes earlier values
/// of the type it needs (or constants) and defines a new one.
fn random_block(ops: &[RandOp], outs: &[usize], switch: bool) -> FunctionGraph<LowLevel> {
    let (mut b, inputs) = Builder::new(&[S, S, B]);
    let mut ints: Vec<Var> = inputs[..2].to_vec();
    let mut bools: Vec<Var> = vec![inputs[2]];
    for r in ops {
        let name = INT_OPS[r.op];
        let pick =
            |(is_const, i, c): (bool, usize, i64), want_bool: bool, ints: &[Var], bools: &[Var]| {
                if want_bool {
                    if is_const && i % 4 == 0 {
                        Arg::Const(Constant::Bool(c & 1 == 1))
                    } else {
                        v(bools[i % bools.len()])
                    }
                } else if is_const {
                    int(c)
                } else {
                    v(ints[i % ints.len()])
                }
            };
        let (arg_tys, res): (Vec<bool>, bool) = match name {
            Opcode::SameAs => (vec![false], false),
            Opcode::DirectCall => (vec![false, false], false),
            _ => {
                let (_, a, r) = rpy_passes::backendopt::egraph::int_sig(name).unwrap();
                (a, r)
            }
        };
        let mut args: Vec<Arg> = arg_tys
            .iter()
            .zip(r.args)
            .map(|(t, choice)| pick(choice, *t, &ints, &bools))
            .collect();
        if name == Opcode::DirectCall {
            args.insert(0, Arg::Const(Constant::Builtin("probe".into())));
        }
        let out = b.op(name, args, if res { B } else { S });
        if res {
            bools.push(out);
        } else {
            ints.push(out);
        }
    }
    let all: Vec<Var> = ints.iter().chain(&bools).copied().collect();
    let outs: Vec<Arg> = outs.iter().map(|i| v(all[i % all.len()])).collect();
    let mut g = b.finish(outs);
    if switch {
        let start = g.startblock;
        let link = g.block(start).exits[0].clone();
        let mut other = link.clone();
        other.args.reverse();
        // Both links go to the end block, so their argument types must agree.
        if other
            .args
            .iter()
            .zip(&link.args)
            .all(|(a, b)| arg_type(&g, a) == arg_type(&g, b))
        {
            g.block_mut(start).exitswitch = Some(v(*bools.last().unwrap()));
            g.block_mut(start).exits = vec![
                Link {
                    exitcase: Some(Constant::Bool(false)),
                    ..other
                },
                Link {
                    exitcase: Some(Constant::Bool(true)),
                    ..link
                },
            ];
        }
    }
    g
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_blocks_mean_the_same_after_optimizing(
        ops in prop::collection::vec(rand_op(), 1..14),
        outs in prop::collection::vec(any::<usize>(), 1..5),
        switch in any::<bool>(),
        inputs in prop::collection::vec((interesting(), interesting(), any::<bool>()), 1..6),
    ) {
        let g0 = random_block(&ops, &outs, switch);
        let mut g = g0.clone();
        optimize_graph(&mut g);
        for (x, y, c) in inputs {
            let inp = [x, y, c as i64];
            if let Some(before) = run(&g0, &inp) {
                let after = run(&g, &inp);
                prop_assert_eq!(after, Some(before), "inputs {:?}", inp);
            }
        }
    }

    #[test]
    fn int_bounds_transfer_contains_every_result(
        op in prop::sample::select(vec![
            Opcode::IntAdd, Opcode::IntSub, Opcode::IntMul, Opcode::IntAnd, Opcode::IntOr, Opcode::IntXor, Opcode::IntLshift,
            Opcode::IntRshift, Opcode::IntFloordiv, Opcode::IntMod, Opcode::IntPyDiv, Opcode::IntPyMod, Opcode::IntNeg,
            Opcode::IntInvert, Opcode::IntAbs, Opcode::IntLt, Opcode::IntLe, Opcode::IntEq, Opcode::IntNe, Opcode::IntGt, Opcode::IntGe,
            Opcode::IntIsTrue,
        ]),
        x in interesting(), y in interesting(),
        dx in 0i64..1000, dy in 0i64..70, ex in 0i64..1000, ey in 0i64..70,
        mx in any::<u64>(), my in any::<u64>(),
    ) {
        let arity = if matches!(op, Opcode::IntNeg | Opcode::IntInvert | Opcode::IntAbs | Opcode::IntIsTrue) { 1 } else { 2 };
        let vals = [x, y];
        let Some(r) = eval_int(op, &vals[..arity]) else { return Ok(()); };
        let bound = |v: i64, d: i64, e: i64, m: u64| {
            let range = IntBound::range(v.saturating_sub(d), v.saturating_add(e));
            // Known bits: those of v outside the random unknown mask.
            let bits = IntBound::bits(!(v as u64) & !m, (v as u64) & !m).unwrap();
            range.intersect(&bits).unwrap()
        };
        let bx = bound(x, dx, ex, mx);
        let by = bound(y, dy, ey, my);
        prop_assert!(bx.contains(x) && by.contains(y));
        let args = [bx, by];
        let b = rpy_ir::intbound::transfer(op.name(), &args[..arity]).unwrap_or_else(IntBound::unbounded);
        prop_assert!(b.contains(r), "{}({:?}) = {} not in {:?} (args {:?})", op, &vals[..arity], r, b, &args[..arity]);
    }
}

#[test]
fn optimize_reports_what_it_did() {
    let (mut b, x) = Builder::new(&[S]);
    let r = b.op(Opcode::IntMul, vec![v(x[0]), int(8)], S);
    let g = b.finish(vec![v(r)]);
    let mut p = rpy_ir::graph::Program {
        path: "t.py".into(),
        sources: Default::default(),
        graphs: vec![g],
        entry: "f".into(),
        types: Default::default(),
        facts: Default::default(),
        prebuilt: Vec::new(),
    };
    let stats = rpy_passes::backendopt::optimize(&mut p);
    assert_eq!(stats.blocks, 1);
    assert_eq!(stats.blocks_changed, 1);
    assert!(stats.rule_fires >= 1);
    let _ = BlockId(0);
}

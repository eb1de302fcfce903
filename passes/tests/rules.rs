//! The rules: every opt rule is right on random and edge values; the
//! annotate and rtype rules answer as expected; bad rules fail the build
//! with file:line and a plain message.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use rpy_ir::annotation::{DictDef, ListDef, SomeValue};
use rpy_ir::graph::Constant;
use rpy_ir::lltype::LowLevelType;
use rpy_ir::opcode::Opcode;
use rpy_rulec::{compile_one, Kind};
use rpy_ruleset::opt::{check_all, check_rule, edge_values, RuleCheck, Ty, OPT_RULES};
use rpy_ruleset::rtype::Lowered;
use rpy_ruleset::{annotate, rtype, RuleKind, RULES};

/// A value for a rule variable: an edge value, a small int, any int, or a
/// copy of an earlier variable (so `x - x` patterns are reached).
#[derive(Clone, Debug)]
enum Pick {
    Edge(usize),
    Small(i64),
    Any(i64),
    Copy(usize),
}

fn pick() -> impl Strategy<Value = Pick> {
    prop_oneof![
        3 => any::<usize>().prop_map(Pick::Edge),
        3 => (-70i64..70).prop_map(Pick::Small),
        2 => any::<i64>().prop_map(Pick::Any),
        2 => any::<usize>().prop_map(Pick::Copy),
    ]
}

fn inputs_for(rule: usize, picks: &[Pick], edges: &[i64]) -> Vec<i64> {
    let vars = OPT_RULES[rule].vars;
    let mut out: Vec<i64> = Vec::new();
    for (k, var) in vars.iter().enumerate() {
        let x = match &picks[k % picks.len()] {
            Pick::Edge(i) => edges[i % edges.len()],
            Pick::Small(v) | Pick::Any(v) => *v,
            Pick::Copy(i) if k > 0 => out[i % k],
            Pick::Copy(i) => edges[i % edges.len()],
        };
        out.push(if var.ty == Ty::Bool { x & 1 } else { x });
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Every opt rule, on the same random inputs: never a disagreement.
    #[test]
    fn opt_rules_never_disagree(picks in prop::collection::vec(pick(), 4)) {
        let edges = edge_values();
        for (i, rule) in OPT_RULES.iter().enumerate() {
            let inputs = inputs_for(i, &picks, &edges);
            let r = check_rule(i, &inputs);
            prop_assert!(
                !matches!(r, RuleCheck::Disagree { .. }),
                "rule {} on {:?}: {:?}", rule.name, inputs, r
            );
        }
    }
}

#[test]
fn opt_rules_agree_on_all_pairs_of_edge_values() {
    let mut edges: Vec<i64> = vec![0, 1, -1, 2, -2, 3, 4, 7, 8, 63, 64, 255, 256, -256];
    edges.extend([
        i64::MIN,
        i64::MAX,
        i64::MIN + 1,
        i64::MAX - 1,
        1 << 32,
        (1 << 62) + 1,
    ]);
    for (i, rule) in OPT_RULES.iter().enumerate() {
        let n = rule.vars.len();
        let combos = edges.len().pow(n.min(3) as u32);
        for c in 0..combos {
            let mut k = c;
            let inputs: Vec<i64> = rule
                .vars
                .iter()
                .map(|var| {
                    let x = edges[k % edges.len()];
                    k /= edges.len();
                    if var.ty == Ty::Bool {
                        x & 1
                    } else {
                        x
                    }
                })
                .collect();
            let r = check_rule(i, &inputs);
            assert!(
                !matches!(r, RuleCheck::Disagree { .. }),
                "rule {} on {inputs:?}: {r:?}",
                rule.name
            );
        }
    }
}

/// Each rule applies to a fair share of the random inputs (so the test above
/// is not vacuous).
#[test]
fn opt_rules_apply_to_a_fair_share_of_inputs() {
    let edges = edge_values();
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = prop::collection::vec(pick(), 4);
    let samples: Vec<Vec<Pick>> = (0..20_000)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect();
    for (i, rule) in OPT_RULES.iter().enumerate() {
        let agree = samples
            .iter()
            .filter(|p| check_rule(i, &inputs_for(i, p, &edges)) == RuleCheck::Agree)
            .count();
        assert!(
            agree * 500 >= samples.len(),
            "rule {} applies to only {agree} of {} inputs",
            rule.name,
            samples.len()
        );
    }
}

#[test]
fn check_all_finds_no_failures() {
    assert_eq!(check_all(500), Vec::<String>::new());
}

#[test]
fn check_rule_reports_disagreement_and_undefinedness() {
    let sub_self = OPT_RULES.iter().position(|r| r.name == "sub_self").unwrap();
    assert_eq!(check_rule(sub_self, &[5]), RuleCheck::Agree);
    let py_div = OPT_RULES
        .iter()
        .position(|r| r.name == "py_div_pow2")
        .unwrap();
    assert_eq!(check_rule(py_div, &[-7, 4]), RuleCheck::Agree);
    assert_eq!(check_rule(py_div, &[-7, 3]), RuleCheck::NotApplicable);
    assert_eq!(check_rule(py_div, &[-7, 0]), RuleCheck::NotApplicable);
    let floordiv = OPT_RULES
        .iter()
        .position(|r| r.name == "floordiv_pow2_nonneg")
        .unwrap();
    // C division rounds toward zero: -7 / 4 is -1, -7 >> 2 is -2; the fact
    // keeps the rule away from negative x.
    assert_eq!(check_rule(floordiv, &[-7, 4]), RuleCheck::NotApplicable);
    assert_eq!(check_rule(floordiv, &[7, 4]), RuleCheck::Agree);
}

#[test]
fn rule_table_lists_every_kind() {
    let count = |k| RULES.iter().filter(|r| r.kind == k).count();
    assert!(count(RuleKind::Annotate) >= 40);
    assert!(count(RuleKind::Rtype) >= 40);
    assert_eq!(count(RuleKind::Opt), OPT_RULES.len());
    assert!(OPT_RULES.len() >= 40);
    for r in RULES {
        assert!(!r.doc.is_empty(), "{} has no comment", r.name);
        assert!(r.file.starts_with("rules/"));
        assert!(r.text.starts_with(r.name));
    }
    let mul = &RULES[OPT_RULES
        .iter()
        .find(|r| r.name == "mul_pow2_const")
        .unwrap()
        .rule];
    assert_eq!(mul.file, "rules/opt/arith.rules");
    assert!(mul.text.contains("highest_bit(C)"));
}

#[test]
fn union_is_the_join() {
    let int = SomeValue::int();
    let nn = SomeValue::nonneg_int();
    let s = SomeValue::string();
    assert_eq!(annotate::union(&nn, &int), Some(int.clone()));
    assert_eq!(annotate::union(&nn, &nn), Some(nn.clone()));
    assert_eq!(annotate::union(&SomeValue::Bool, &nn), Some(nn.clone()));
    assert_eq!(annotate::union(&int, &SomeValue::Bool), Some(int.clone()));
    assert_eq!(
        annotate::union(&SomeValue::Impossible, &SomeValue::Float),
        Some(SomeValue::Float)
    );
    assert_eq!(annotate::union(&s, &SomeValue::Char), Some(s.clone()));
    assert_eq!(
        annotate::union(&SomeValue::Float, &int),
        Some(SomeValue::Float)
    );
    // Strings: None if either may be, free of NULs only if both are.
    let no_nul = SomeValue::String {
        can_be_none: false,
        no_nul: true,
    };
    let nullable = SomeValue::String {
        can_be_none: true,
        no_nul: false,
    };
    assert_eq!(annotate::union(&no_nul, &s), Some(s.clone()));
    assert_eq!(annotate::union(&no_nul, &nullable), Some(nullable.clone()));
    // r_uint arithmetic stays unsigned through a join.
    let unsigned = SomeValue::Integer {
        nonneg: true,
        unsigned: true,
    };
    assert_eq!(
        annotate::union(&nn, &unsigned),
        Some(SomeValue::Integer {
            nonneg: true,
            unsigned: true
        })
    );
    // Lists are joined by the annotator (their definitions merge), not by a
    // rule; ints and strings never join.
    let l = |v: SomeValue, id| {
        SomeValue::List(ListDef {
            id,
            item: Box::new(v),
            resizable: true,
            can_be_none: false,
        })
    };
    assert_eq!(annotate::union(&l(int.clone(), 0), &l(s.clone(), 1)), None);
    assert_eq!(annotate::union(&s, &int), None);
    // None joins a list or a dict (in Rust: no rule spells the kinds that
    // can hold None) as it joins a string: the same definition, which may
    // now be None.
    let join = rpy_passes::annotate::union;
    let strs = l(s.clone(), 2);
    let joined = join(&SomeValue::None, &strs).unwrap();
    assert!(joined.can_be_none() && joined.contains(&strs));
    assert_eq!(joined.without_none(), strs);
    let dict = SomeValue::Dict(DictDef {
        id: 3,
        key: Box::new(s.clone()),
        value: Box::new(int.clone()),
        can_be_none: false,
    });
    let joined = join(&dict, &SomeValue::None).unwrap();
    assert!(joined.can_be_none() && !dict.contains(&joined));
    assert_eq!(joined.describe(), "a dict from strs to ints or None");
}

#[test]
fn op_results_follow_the_rules() {
    use SomeValue as V;
    let int = V::int();
    let nn = V::nonneg_int();
    let s = V::string();
    let r = annotate::op_result;
    assert_eq!(r(Opcode::Add, &[nn.clone(), nn.clone()]), Some(nn.clone()));
    assert_eq!(
        r(Opcode::Add, &[nn.clone(), int.clone()]),
        Some(int.clone())
    );
    assert_eq!(r(Opcode::Add, &[V::Bool, V::Bool]), Some(nn.clone()));
    assert_eq!(r(Opcode::And, &[V::Bool, V::Bool]), Some(V::Bool));
    assert_eq!(r(Opcode::And, &[int.clone(), nn.clone()]), Some(nn.clone()));
    assert_eq!(r(Opcode::Mod, &[int.clone(), nn.clone()]), Some(nn.clone()));
    assert_eq!(r(Opcode::Sub, &[nn.clone(), nn.clone()]), Some(int.clone()));
    assert_eq!(
        r(Opcode::Truediv, &[int.clone(), int.clone()]),
        Some(V::Float)
    );
    assert_eq!(r(Opcode::Add, &[V::Float, int.clone()]), Some(V::Float));
    assert_eq!(r(Opcode::Mul, &[V::Bool, V::Float]), Some(V::Float));
    assert_eq!(r(Opcode::Lt, &[int.clone(), V::Bool]), Some(V::Bool));
    assert_eq!(r(Opcode::Add, &[s.clone(), V::Char]), Some(s.clone()));
    assert_eq!(r(Opcode::Getitem, &[s.clone(), int.clone()]), Some(V::Char));
    assert_eq!(r(Opcode::Contains, &[s.clone(), V::Char]), Some(V::Bool));
    assert_eq!(r(Opcode::Contains, &[int.clone(), V::Char]), None);
    assert_eq!(r(Opcode::Mul, &[s.clone(), int.clone()]), Some(s.clone()));
    let strs = V::List(ListDef {
        id: 0,
        item: Box::new(s.clone()),
        resizable: false,
        can_be_none: false,
    });
    assert_eq!(
        r(Opcode::Getitem, &[strs.clone(), nn.clone()]),
        Some(s.clone())
    );
    let len = V::Builtin("len".into());
    assert_eq!(
        r(Opcode::SimpleCall, &[len.clone(), s.clone()]),
        Some(nn.clone())
    );
    assert_eq!(
        r(Opcode::SimpleCall, &[len.clone(), strs]),
        Some(nn.clone())
    );
    assert_eq!(r(Opcode::SimpleCall, &[len, V::Char]), Some(nn.clone()));
    assert_eq!(
        r(Opcode::SimpleCall, &[V::Builtin("str".into()), V::Float]),
        Some(s.clone())
    );
    assert_eq!(
        r(Opcode::SimpleCall, &[V::Builtin("ord".into()), V::Char]),
        Some(nn.clone())
    );
    assert_eq!(
        r(Opcode::SimpleCall, &[V::Builtin("chr".into()), int.clone()]),
        Some(V::Char)
    );
    assert_eq!(
        r(Opcode::PrintItem, std::slice::from_ref(&int)),
        Some(V::None)
    );
    assert_eq!(r(Opcode::Eq, &[s.clone(), V::None]), Some(V::Bool));
    assert_eq!(r(Opcode::Add, &[s, int.clone()]), None);
    assert_eq!(r(Opcode::IntAdd, &[int]), None);
}

#[test]
fn lowering_follows_the_rules() {
    use LowLevelType as T;
    let s = T::Signed;
    let st = T::Ptr("rpy_string".into());
    let none = [None, None];
    assert_eq!(
        rtype::lower(Opcode::Add, &[s.clone(), s.clone()], &none, true),
        Some(Lowered::Op {
            opname: Opcode::IntAdd,
            args: vec![Lowered::Arg(0), Lowered::Arg(1)]
        })
    );
    assert_eq!(
        rtype::lower(Opcode::Truediv, &[s.clone(), s.clone()], &none, true),
        Some(Lowered::Op {
            opname: Opcode::FloatTruediv,
            args: vec![
                Lowered::Op {
                    opname: Opcode::CastIntToFloat,
                    args: vec![Lowered::Arg(0)]
                },
                Lowered::Op {
                    opname: Opcode::CastIntToFloat,
                    args: vec![Lowered::Arg(1)]
                },
            ]
        })
    );
    assert_eq!(
        rtype::lower(Opcode::Add, &[st.clone(), st.clone()], &none, true),
        Some(Lowered::Helper {
            module: "rstr",
            func: "ll_strconcat",
            args: vec![Lowered::Arg(0), Lowered::Arg(1)]
        })
    );
    let len = [Some(Constant::Builtin("len".into())), None];
    assert_eq!(
        rtype::lower(Opcode::SimpleCall, &[T::Void, st.clone()], &len, true),
        Some(Lowered::Op {
            opname: Opcode::Getarraysize,
            args: vec![Lowered::Arg(1)]
        })
    );
    let str_ = [Some(Constant::Builtin("str".into())), None];
    let py2 = rtype::lower(Opcode::SimpleCall, &[T::Void, T::Float], &str_, true);
    let py3 = rtype::lower(Opcode::SimpleCall, &[T::Void, T::Float], &str_, false);
    assert_eq!(
        py2,
        Some(Lowered::Call {
            func: "rpy_str_from_float_py2",
            args: vec![Lowered::Arg(1)]
        })
    );
    assert_eq!(
        py3,
        Some(Lowered::Call {
            func: "rpy_str_from_float",
            args: vec![Lowered::Arg(1)]
        })
    );
    assert_eq!(
        rtype::lower(Opcode::Add, &[s.clone(), T::Float], &none, true),
        None
    );
}

#[test]
fn conversions_chain() {
    use LowLevelType as T;
    assert_eq!(
        rtype::convert(&T::Bool, &T::Signed),
        Some(Lowered::Op {
            opname: Opcode::CastBoolToInt,
            args: vec![Lowered::Arg(0)]
        })
    );
    assert_eq!(
        rtype::convert(&T::Char, &T::Ptr("rpy_string".into())),
        Some(Lowered::Call {
            func: "rpy_str_from_char",
            args: vec![Lowered::Arg(0)]
        })
    );
    // No direct rule from Char to Float, nor a chain.
    assert_eq!(rtype::convert(&T::Char, &T::Float), None);
    assert!(rtype::convert(&T::Bool, &T::Float).is_some());
}

/// Compiles `text` as a rule file of `kind` and returns the first error.
fn error_of(kind: Kind, text: &str) -> String {
    match compile_one(kind, "rules/x/bad.rules", text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(errors) => errors[0].to_string(),
    }
}

#[test]
fn bad_rules_are_build_errors_with_file_and_line() {
    let cases: &[(Kind, &str, &str)] = &[
        (
            Kind::Opt,
            "# ok\nadd_zero: int_add(x, 0) => x\n\n# bad\nbad: int_frobnicate(x) => x\n",
            "rules/x/bad.rules:5: rule 'bad': unknown operation 'int_frobnicate'",
        ),
        (
            Kind::Opt,
            "# bad\nbad: int_add(x, 0) => y\n",
            "rules/x/bad.rules:2: rule 'bad': unbound variable 'y'",
        ),
        (
            Kind::Opt,
            "# bad\nbad: int_add(x) => x\n",
            "rules/x/bad.rules:2: rule 'bad': 'int_add' takes 2 arguments, not 1",
        ),
        (
            Kind::Opt,
            "# a\ndup: int_add(x, 0) => x\n# b\ndup: int_or(x, 0) => x\n",
            "rules/x/bad.rules:4: rule 'dup': duplicate rule name (first defined at rules/x/bad.rules:2)",
        ),
        (
            Kind::Opt,
            "# bad\nbad: int_lt(x, x) => 0\n",
            "rules/x/bad.rules:2: rule 'bad': 0 is an integer where a Bool value is needed",
        ),
        (
            Kind::Opt,
            "# bad\nbad: int_add(x, y)\n    check x > 0\n    => x\n",
            "rules/x/bad.rules:3: rule 'bad': 'x' can be any value, not only a constant",
        ),
        (
            Kind::Opt,
            "# bad\nbad: int_lshift(x, 1) => int_mul(x, 2)\n",
            "rules/x/bad.rules:2: rule 'bad': the result costs more than the pattern (3 > 1)",
        ),
        (
            Kind::Opt,
            "# bad\nbad: int_add(x, 0) => int_lt(x, 0)\n",
            "rules/x/bad.rules:2: rule 'bad': the result 'int_lt(...)' is Bool where Signed is needed",
        ),
        (
            Kind::Opt,
            "bad: int_add(x, 0) => x\n",
            "rules/x/bad.rules:1: rule 'bad': needs a one-line '# comment'",
        ),
        (
            Kind::Opt,
            "# bad\nbad: int_add(x, 0) =>\n",
            "rules/x/bad.rules:2: syntax error",
        ),
        (
            Kind::Opt,
            "# bad\nbad: int_add(x, C)\n    check x.known_positive()\n    => x\n",
            "rules/x/bad.rules:3: rule 'bad': unknown fact 'known_positive'",
        ),
        (
            Kind::Annotate,
            "# bad\nbad: add(SomeInt, SomeInteger) => SomeInteger\n",
            "rules/x/bad.rules:2: rule 'bad': unknown annotation 'SomeInt'",
        ),
        (
            Kind::Annotate,
            "# bad\nbad: add(SomeInteger(nonneg=a), SomeInteger) => SomeInteger(nonneg = a and b)\n",
            "rules/x/bad.rules:2: rule 'bad': unbound variable 'b'",
        ),
        (
            Kind::Annotate,
            "# bad\nbad: frob(SomeInteger) => SomeInteger\n",
            "rules/x/bad.rules:2: rule 'bad': unknown operation 'frob'",
        ),
        (
            Kind::Annotate,
            "# bad\nbad: add(SomeInteger) => SomeInteger\n",
            "rules/x/bad.rules:2: rule 'bad': 'add' takes 2 argument(s), not 1",
        ),
        (
            Kind::Annotate,
            "# bad\nbad: simple_call(SomeBuiltin(lenn), _) => SomeInteger\n",
            "rules/x/bad.rules:2: rule 'bad': unknown builtin 'lenn'",
        ),
        (
            Kind::Rtype,
            "# bad\nbad: add(x: Sigend, y: Signed) => int_add(x, y)\n",
            "rules/x/bad.rules:2: rule 'bad': unknown low-level type 'Sigend'",
        ),
        (
            Kind::Rtype,
            "# bad\nbad: add(x: Float, y: Signed) => int_add(x, y)\n",
            "rules/x/bad.rules:2: rule 'bad': 'int_add' does not take (Float, Signed)",
        ),
        (
            Kind::Rtype,
            "# bad\nbad: neg(x: Signed) => call rpy_print_str(x)\n",
            "rules/x/bad.rules:2: rule 'bad': argument 1 of 'rpy_print_str' is Signed but must be Ptr(rpy_string)",
        ),
        (
            Kind::Rtype,
            "# bad\nbad: add(x: Signed, y: Signed) => call rpy_frob(x, y)\n",
            "rules/x/bad.rules:2: rule 'bad': unknown runtime function 'rpy_frob'",
        ),
        (
            Kind::Rtype,
            "# bad\nbad: add(x: Signed, y: Signed) => call rstr.ll_frob(x, y)\n",
            "rules/x/bad.rules:2: rule 'bad': the helper module 'rstr' has no function 'll_frob'",
        ),
        (
            Kind::Rtype,
            "# bad\nbad: add(x: Signed, y: Signed) => call rfrob.ll_add(x, y)\n",
            "rules/x/bad.rules:2: rule 'bad': no low-level helper module 'rfrob'",
        ),
        (
            Kind::Rtype,
            "# bad\nbad: convert(x: Bool) -> Float => cast_bool_to_int(x)\n",
            "rules/x/bad.rules:2: rule 'bad': the result is Signed, not Float",
        ),
        (
            Kind::Rtype,
            "# bad\nbad: neg(x: Signed)\n    check py4\n    => int_neg(x)\n",
            "rules/x/bad.rules:3: rule 'bad': py4: lowering rules can only check py2 or py3",
        ),
    ];
    for (kind, text, want) in cases {
        let got = error_of(*kind, text);
        assert!(
            got.starts_with(want),
            "for:\n{text}\nwant: {want}\ngot:  {got}"
        );
    }
}

#[test]
fn the_real_rule_files_compile() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules");
    let generated = rpy_rulec::compile_dir(&dir).expect("the rules compile");
    assert_eq!(generated.counts.iter().sum::<usize>(), RULES.len());
    assert_eq!(generated.counts[2], OPT_RULES.len());
}

/// `rpy rules --prove`'s proofs: every opt rule holds for all 64-bit
/// inputs, by z3 (skipped, saying so, where z3 is not installed; `.ci/run`
/// installs it).
#[test]
fn every_opt_rule_is_proven_by_z3() {
    use rpy_passes::rule_proofs::{prove_all, z3_available, Proof, RuleProof};
    if !z3_available() {
        eprintln!(
            "SKIPPED every_opt_rule_is_proven_by_z3: z3 is not installed (apt-get install z3)"
        );
        return;
    }
    let failures: Vec<String> = prove_all()
        .into_iter()
        .filter(|p| p.proof != Proof::Proven)
        .map(|RuleProof { rule, proof, .. }| {
            format!(
                "{}:{} {}: {proof:?}",
                rule.info().file,
                rule.info().line,
                rule.name
            )
        })
        .collect();
    assert!(
        failures.is_empty(),
        "rules not proven:\n{}",
        failures.join("\n")
    );
}

/// A wrong rule, a rule whose check makes it right, and one whose fact
/// makes it right: the prover tells them apart, with a counterexample the
/// rule's evaluation confirms, as one query and by cases.
#[test]
fn the_prover_finds_a_counterexample_to_a_wrong_rule() {
    use rpy_passes::rule_proofs::{prove, prove_by_cases, z3_available, Proof};
    use rpy_ruleset::opt::{BinOp, Expr, Fact, OptRule, OptVar, Pat, Res, Step};
    if !z3_available() {
        eprintln!("SKIPPED the_prover_finds_a_counterexample_to_a_wrong_rule: z3 is not installed");
        return;
    }
    const X: OptVar = OptVar {
        name: "x",
        ty: Ty::Signed,
        const_only: false,
    };
    const C: OptVar = OptVar {
        name: "C",
        ty: Ty::Signed,
        const_only: true,
    };
    // int_add(x, C) => x: wrong unless C == 0.
    static WRONG: OptRule = OptRule {
        rule: 0,
        name: "wrong",
        vars: &[X, C],
        slots: 2,
        lhs: Pat::Op(Opcode::IntAdd, &[Pat::Var(0), Pat::Var(1)]),
        steps: &[],
        rhs: Res::Var(0),
        ty: Ty::Signed,
    };
    static CHECKED: OptRule = OptRule {
        steps: &[Step::Check(Expr::Bin(
            BinOp::Eq,
            &Expr::Slot(1),
            &Expr::Lit(0),
        ))],
        name: "checked",
        ..WRONG
    };
    // int_floordiv(x, 2) => int_rshift(x, 1): right only for x >= 0.
    static SHIFT: OptRule = OptRule {
        rule: 0,
        name: "shift",
        vars: &[X],
        slots: 1,
        lhs: Pat::Op(Opcode::IntFloordiv, &[Pat::Var(0), Pat::Int(2)]),
        steps: &[],
        rhs: Res::Op(
            Opcode::IntRshift,
            &[Res::Var(0), Res::Const(Expr::Lit(1), Ty::Signed)],
        ),
        ty: Ty::Signed,
    };
    static SHIFT_NONNEG: OptRule = OptRule {
        steps: &[Step::Check(Expr::Fact(Fact::Nonneg, 0, None))],
        name: "shift_nonneg",
        ..SHIFT
    };
    // int_add(x, C) => x where C == 100: no small value, no power of two,
    // so only the last of the cases of C holds it.
    static WRONG_AT_100: OptRule = OptRule {
        steps: &[Step::Check(Expr::Bin(
            BinOp::Eq,
            &Expr::Slot(1),
            &Expr::Lit(100),
        ))],
        name: "wrong_at_100",
        ..WRONG
    };
    match prove(&WRONG) {
        Proof::Counterexample { inputs, confirmed } => {
            assert!(confirmed);
            assert_eq!(inputs[1].0, "C");
            assert_ne!(inputs[1].1, 0);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(prove(&CHECKED), Proof::Proven);
    match prove(&SHIFT) {
        Proof::Counterexample { inputs, confirmed } => {
            assert!(confirmed);
            assert!(inputs[0].1 < 0, "{inputs:?}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(prove(&SHIFT_NONNEG), Proof::Proven);
    // What a rule too slow for one query is proven by: the cases of one
    // variable, which cover every word.
    assert_eq!(prove_by_cases(&CHECKED), Proof::Proven);
    match prove_by_cases(&WRONG_AT_100) {
        Proof::Counterexample { inputs, confirmed } => {
            assert!(confirmed);
            assert_eq!(inputs[1], ("C", 100));
        }
        other => panic!("{other:?}"),
    }
}

//! The rule compiler on its own: parsing, checking and what it generates.

use rpy_rulec::{compile_one, compile_sources, parse_file, Ast, Kind, Source};

#[test]
fn a_rule_parses_into_pattern_steps_and_result() {
    let text = "\
# x * 2**k is a shift
mul_pow2_const: int_mul(x, C)
    check C > 0 and C & (C - 1) == 0   # a power of two
    shift = highest_bit(C)
    => int_lshift(x, shift)
";
    let rules = parse_file("t.rules", text).unwrap();
    assert_eq!(rules.len(), 1);
    let r = &rules[0];
    assert_eq!(r.name, "mul_pow2_const");
    assert_eq!(r.line, 2);
    assert_eq!(r.doc.as_deref(), Some("x * 2**k is a shift"));
    assert_eq!(r.steps.len(), 2);
    assert_eq!(r.head.to_string(), "int_mul(x, C)");
    // `&` binds tighter than `==`, and `and` looser than both, as in Python.
    match &r.steps[0] {
        rpy_rulec::Step::Check(e) => {
            assert_eq!(e.to_string(), "((C > 0) and ((C & (C - 1)) == 0))")
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(r.result.ast, Ast::Call { ref name, .. } if name == "int_lshift"));
}

#[test]
fn one_line_rules_and_every_argument_form_parse() {
    let text = "\
# a
add_signed: add(x: Signed, y: Ptr(rpy_string)) => call rpy_print_str(\"\\n\")
# b
len_str: simple_call($len, _) => getarraysize(x)
# c
u: union(SomeInteger(nonneg=a), SomeList(_)) => SomeInteger(nonneg = a and not b)
# d
c: convert(x: Bool) -> Signed => cast_bool_to_int(x)
# e
n: int_add(x, -9223372036854775808) => x.known_bits_zero(~0x10)
";
    let rules = parse_file("t.rules", text).unwrap();
    let heads: Vec<String> = rules.iter().map(|r| r.head.to_string()).collect();
    assert_eq!(
        heads,
        [
            "add(x: Signed, y: Ptr(rpy_string))",
            "simple_call($len, _)",
            "union(SomeInteger(nonneg=a), SomeList(_))",
            "convert(x: Bool)",
            "int_add(x, -9223372036854775808)",
        ]
    );
    assert_eq!(rules[0].result.to_string(), "call rpy_print_str(\"\\n\")");
    assert!(rules[3].target.is_some());
    assert_eq!(rules[4].result.to_string(), "x.known_bits_zero(~16)");
}

#[test]
fn syntax_errors_name_the_line() {
    let text = "# ok\nok: int_add(x, 0) => x\n\n# bad\nbad: int_add(x, 0 => x\n";
    let e = parse_file("rules/opt/t.rules", text).unwrap_err();
    assert_eq!(e.file, "rules/opt/t.rules");
    assert_eq!(e.line, 5);
    assert!(e.message.starts_with("syntax error"), "{}", e.message);
}

#[test]
fn all_errors_are_reported_sorted() {
    let text = "# a\na: int_foo(x) => x\n# b\nb: int_add(x, 0) => y\n";
    let errors = compile_one(Kind::Opt, "f.rules", text).unwrap_err();
    let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        shown,
        [
            "f.rules:2: rule 'a': unknown operation 'int_foo'",
            "f.rules:4: rule 'b': unbound variable 'y'",
        ]
    );
}

#[test]
fn opt_rules_become_data() {
    let text = "\
# x + C1 + C2
add_add: int_add(int_add(x, C1), C2) => int_add(x, C1 + C2)
";
    let g = compile_one(Kind::Opt, "a.rules", text).unwrap();
    assert_eq!(g.counts, [0, 0, 1]);
    assert!(g.opt.contains("name: \"add_add\""), "{}", g.opt);
    assert!(g.opt.contains(
        "Pat::Op(Opcode::IntAdd, &[Pat::Op(Opcode::IntAdd, &[Pat::Var(0), Pat::Var(1)]), Pat::Var(2)])"
    ));
    assert!(g
        .opt
        .contains("Res::Const(Expr::Bin(BinOp::Add, &Expr::Slot(1), &Expr::Slot(2)), Ty::Signed)"));
    assert!(g.info.contains("RuleKind::Opt"));
}

#[test]
fn rules_of_all_kinds_compile_together() {
    let src = |kind, file: &str, text: &str| Source {
        kind,
        file: file.into(),
        text: text.into(),
    };
    let g = compile_sources(&[
        src(Kind::Opt, "o.rules", "# o\nadd_zero: int_add(x, 0) => x\n"),
        src(
            Kind::Annotate,
            "a.rules",
            "# a\nunion_int_int: union(SomeInteger(nonneg=a), SomeInteger(nonneg=b)) => SomeInteger(nonneg = a and b)\n",
        ),
        src(Kind::Rtype, "r.rules", "# r\nadd_signed: add(x: Signed, y: Signed) => int_add(x, y)\n"),
    ])
    .unwrap();
    // Annotate rules come first, then rtype, then opt.
    assert_eq!(g.counts, [1, 1, 1]);
    let names: Vec<usize> = ["union_int_int", "add_signed", "add_zero"]
        .iter()
        .map(|n| g.info.find(n).unwrap())
        .collect();
    assert!(names[0] < names[1] && names[1] < names[2]);
    assert!(g.annotate.contains("fn rule_0"));
    assert!(g.rtype.contains("fn rule_1"));
}

#[test]
fn the_project_rules_compile() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules");
    let g = rpy_rulec::compile_dir(&dir).unwrap_or_else(|errors| {
        panic!(
            "{}",
            errors
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    assert!(
        g.counts[0] >= 40 && g.counts[1] >= 40 && g.counts[2] >= 40,
        "{:?}",
        g.counts
    );
}

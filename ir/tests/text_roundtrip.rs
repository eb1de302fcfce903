//! The text format of every graph stage: hand-written examples, error messages,
//! and property tests that printing and parsing are inverse on random graphs and
//! that the parser never panics.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rpy_ir::annotation::{Desc, ListDef, SomeValue};
use rpy_ir::diag::Pos;
use rpy_ir::graph::*;
use rpy_ir::lltype::{self, LowLevelType, TypeTable};
use rpy_ir::opcode::Opcode;
use rpy_ir::text::*;

fn var(v: Var) -> Arg {
    Arg::Var(v)
}

fn int(i: i64) -> Arg {
    Arg::Const(Constant::Int(i))
}

fn op<S: Stage>(
    g: &mut FunctionGraph<S>,
    b: BlockId,
    opname: Opcode,
    args: Vec<Arg>,
    info: S::VarInfo,
) -> Var {
    let result = g.new_var(None, info);
    g.block_mut(b).operations.push(SpaceOperation {
        opname,
        args,
        result,
        pos: Some(Pos::new(3, 7)),
    });
    result
}

fn link(target: BlockId, args: Vec<Arg>, exitcase: Option<Constant>) -> Link {
    Link::new(args, target, exitcase)
}

/// `parse(print(g)) == canonicalize(g)` modulo positions, and printing is stable.
fn assert_round_trip<S: Stage>(g: &FunctionGraph<S>) -> String {
    let text = print_graph(g);
    let parsed = parse_graph::<S>(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut expected = g.canonicalize();
    strip_positions(&mut expected);
    assert_eq!(parsed, expected, "\n{text}");
    assert_eq!(print_graph(&parsed), text);
    text
}

/// fib over a given stage, built with the graph API.
fn fib<S: Stage>(
    int_info: S::VarInfo,
    bool_info: S::VarInfo,
    other: S::VarInfo,
) -> FunctionGraph<S> {
    let mut g = FunctionGraph::<S>::new("fib", &["n"], int_info.clone());
    g.pos = Some(Pos::new(1, 1));
    let start = g.startblock;
    let n = g.params()[0];
    let n1 = g.new_var(Some("n".into()), int_info.clone());
    let recurse = g.add_block(vec![n1]);
    let cond = op(&mut g, start, Opcode::Lt, vec![var(n), int(2)], bool_info);
    g.block_mut(start).exitswitch = Some(var(cond));
    let ret = g.returnblock;
    g.block_mut(start).exits = vec![
        link(recurse, vec![var(n)], Some(Constant::Bool(false))),
        link(ret, vec![var(n)], Some(Constant::Bool(true))),
    ];
    let a = op(
        &mut g,
        recurse,
        Opcode::Sub,
        vec![var(n1), int(1)],
        int_info.clone(),
    );
    let fa = op(
        &mut g,
        recurse,
        Opcode::SimpleCall,
        vec![Arg::Const(Constant::Func("fib".into())), var(a)],
        int_info.clone(),
    );
    let b = op(
        &mut g,
        recurse,
        Opcode::Sub,
        vec![var(n1), int(2)],
        int_info.clone(),
    );
    let fb = op(
        &mut g,
        recurse,
        Opcode::SimpleCall,
        vec![Arg::Const(Constant::Func("fib".into())), var(b)],
        int_info.clone(),
    );
    let s = op(
        &mut g,
        recurse,
        Opcode::Add,
        vec![var(fa), var(fb)],
        int_info,
    );
    let _ = op(
        &mut g,
        recurse,
        Opcode::SimpleCall,
        vec![
            Arg::Const(Constant::Builtin("print".into())),
            Arg::Const(Constant::Str("fib \"done\"\\\n".into())),
        ],
        other.clone(),
    );
    g.block_mut(recurse).exits = vec![link(ret, vec![var(s)], None)];
    let exc = g.exceptblock;
    for v in g.block(exc).inputargs.clone() {
        g.vars[v.0 as usize].info = other.clone();
    }
    g
}

#[test]
fn flow_graph_text() {
    let g = fib::<Flow>((), (), ());
    let text = assert_round_trip(&g);
    assert_eq!(
        text,
        r#"graph fib(n_0) {
  block0(n_0):
    v1 = lt(n_0, 2)
    switch v1
      False -> block1(n_0)
      True -> return(n_0)
  block1(n_2):
    v3 = sub(n_2, 1)
    v4 = simple_call(@fib, v3)
    v5 = sub(n_2, 2)
    v6 = simple_call(@fib, v5)
    v7 = add(v4, v6)
    v8 = simple_call($print, "fib \"done\"\\\x0a")
    -> return(v7)
  returns v9
  raises v10, v11
}
"#
    );
}

#[test]
fn annotated_graph_text() {
    let g = fib::<Annotated>(SomeValue::int(), SomeValue::Bool, SomeValue::None);
    let text = assert_round_trip(&g);
    assert_eq!(
        text,
        r#"graph fib(n_0) {
  block0(n_0: SomeInteger(nonneg=false)):
    v1: SomeBool = lt(n_0, 2)
    switch v1
      False -> block1(n_0)
      True -> return(n_0)
  block1(n_2: SomeInteger(nonneg=false)):
    v3: SomeInteger(nonneg=false) = sub(n_2, 1)
    v4: SomeInteger(nonneg=false) = simple_call(@fib, v3)
    v5: SomeInteger(nonneg=false) = sub(n_2, 2)
    v6: SomeInteger(nonneg=false) = simple_call(@fib, v5)
    v7: SomeInteger(nonneg=false) = add(v4, v6)
    v8: SomeNone = simple_call($print, "fib \"done\"\\\x0a")
    -> return(v7)
  returns v9: SomeInteger(nonneg=false)
  raises v10: SomeNone, v11: SomeNone
}
"#
    );
}

#[test]
fn low_level_graph_text() {
    let g = fib::<LowLevel>(LowLevelType::Signed, LowLevelType::Bool, LowLevelType::Void);
    let text = assert_round_trip(&g);
    assert!(text.contains("  block0(n_0: Signed):\n    v1: Bool = lt(n_0, 2)\n"));
    assert!(text.contains("    v8: Void = simple_call($print, "));
    assert!(text.contains("  returns v9: Signed\n  raises v10: Void, v11: Void\n}\n"));
}

#[test]
fn hand_written_low_level_graph_reads_back_exactly() {
    let text = r#"graph "main entry"() {
  block0:
    v0: Ptr(rpy_string) = direct_call($rpy_str_from_int, 42)
    v1: Void = direct_call($rpy_print_str, v0)
    v2: Signed = getfield(v0, #length)
    v3: Char = getarrayitem(v0, 0)
    v4: Bool = char_eq(v3, c"\xff")
    v5: Float = float_add(1.5, -0.0)
    switch v2
      0 -> block1()
      -9223372036854775808 -> except($ValueError, v0)
      7 -> return(v5)
  block1:
    -> return(nan)
  returns v6: Float
  raises v7: Ptr(exc_type), v8: Ptr(exc_value)
}
"#;
    let g = parse_graph::<LowLevel>(text).unwrap();
    assert_eq!(print_graph(&g), text);
    assert_eq!(g.name, "main entry");
    assert!(g.params().is_empty());
    let start = g.block(g.startblock);
    assert_eq!(start.operations.len(), 6);
    assert_eq!(start.operations[0].pos, None);
    assert_eq!(
        start.operations[4].args[1],
        Arg::Const(Constant::Char(0xff))
    );
    assert_eq!(
        start.operations[5].args,
        vec![
            Arg::Const(Constant::Float(1.5)),
            Arg::Const(Constant::Float(-0.0))
        ]
    );
    assert_eq!(start.exitswitch, Some(Arg::Var(Var(2))));
    let cases: Vec<_> = start.exits.iter().map(|l| l.exitcase.clone()).collect();
    assert_eq!(
        cases,
        vec![
            Some(Constant::Int(0)),
            Some(Constant::Int(i64::MIN)),
            Some(Constant::Int(7))
        ]
    );
    assert_eq!(start.exits[1].target, g.exceptblock);
    assert_eq!(start.exits[2].target, g.returnblock);
    assert_eq!(g.info(Var(0)), &LowLevelType::Ptr("rpy_string".into()));
    assert_eq!(g.block(g.returnblock).inputargs.len(), 1);
    assert_eq!(g.block(g.exceptblock).inputargs.len(), 2);
    assert_eq!(
        g.info(g.block(g.exceptblock).inputargs[1]),
        &LowLevelType::Ptr("exc_value".into())
    );
}

#[test]
fn hand_written_text_is_canonicalized() {
    // Blocks out of order, free variable numbering, a dead block, no
    // returns/raises lines (fine for flow graphs), omitted empty link args.
    let text = "
graph loop(i_7, x_3) {
  entry(i_7, x_3):
    -> head(i_7, x_3)

  tail(a_11, b_14):
    foo_9 = add(a_11, 1)
    -> head(foo_9, b_14)
  dead:
    -> return(0)
  head(a_1, b_4):
    c_2 = lt(a_1, b_4)
    switch c_2
      True -> tail(a_1, b_4)
      False -> done
  done:
    -> return(None)
}";
    let g = parse_graph::<Flow>(text).unwrap();
    assert_eq!(g.blocks.len(), 6);
    assert_eq!(
        print_graph(&g),
        "graph loop(i_0, x_1) {
  block0(i_0, x_1):
    -> block1(i_0, x_1)
  block1(a_2, b_3):
    c_4 = lt(a_2, b_3)
    switch c_4
      True -> block3(a_2, b_3)
      False -> block2()
  block2:
    -> return(None)
  block3(a_5, b_6):
    foo_7 = add(a_5, 1)
    -> block1(foo_7, b_6)
  returns v8
  raises v9, v10
}
"
    );
}

#[test]
fn every_constant_kind_round_trips() {
    let consts = vec![
        Constant::Int(0),
        Constant::Int(-1),
        Constant::Int(i64::MAX),
        Constant::Int(i64::MIN),
        Constant::Float(0.0),
        Constant::Float(-0.0),
        Constant::Float(1.0),
        Constant::Float(0.1),
        Constant::Float(1e300),
        Constant::Float(-1e-300),
        Constant::Float(5e-324),
        Constant::Float(f64::MAX),
        Constant::Float(f64::INFINITY),
        Constant::Float(f64::NEG_INFINITY),
        Constant::Float(f64::NAN),
        Constant::Float(-f64::NAN),
        Constant::Float(f64::from_bits(0x7ff0_0000_0000_0001)),
        Constant::Bool(true),
        Constant::Bool(false),
        Constant::Char(b'a'),
        Constant::Char(b'"'),
        Constant::Char(b'\\'),
        Constant::Char(0),
        Constant::Char(0xff),
        Constant::Str(String::new()),
        Constant::Str("\"\\\u{0}\u{7f}\u{80}\u{ff} ~".into()),
        Constant::Str("\u{100}\u{10ffff}".into()),
        Constant::None,
        Constant::Func("f".into()),
        Constant::Func("Class.method".into()),
        Constant::Func("<lambda>".into()),
        Constant::Builtin("len".into()),
        Constant::Builtin("".into()),
        Constant::Name("x y\"".into()),
        Constant::Class("ValueError".into()),
        Constant::Class("mod.My Error".into()),
    ];
    let mut g = FunctionGraph::<Flow>::new("consts", &[], ());
    let start = g.startblock;
    let r = op(
        &mut g,
        start,
        Opcode::Newtuple,
        consts.iter().cloned().map(Arg::Const).collect(),
        (),
    );
    let ret = g.returnblock;
    g.block_mut(start).exits = vec![link(ret, vec![var(r)], None)];
    let text = assert_round_trip(&g);
    assert!(text.contains("newtuple(0, -1, 9223372036854775807, -9223372036854775808, 0.0, -0.0, 1.0, 0.1, 1e300, -1e-300, 5e-324, 1.7976931348623157e308, inf, -inf, nan, nan(0xfff8000000000000), nan(0x7ff0000000000001), True, False, c\"a\", c\"\\\"\", c\"\\\\\", c\"\\x00\", c\"\\xff\", \"\", \"\\\"\\\\\\x00\\x7f\\x80\\xff ~\", \"\\u{100}\\u{10ffff}\", None, @f, @Class.method, @\"<lambda>\", $len, $\"\", #\"x y\\\"\", %ValueError, %\"mod.My Error\")"), "{text}");
}

#[test]
fn names_that_are_not_identifiers_are_not_printed() {
    let mut g = FunctionGraph::<Flow>::new("f", &["a b", "", "ok"], ());
    let ret = g.returnblock;
    let start = g.startblock;
    let p = g.params()[2];
    g.block_mut(start).exits = vec![link(ret, vec![var(p)], None)];
    let text = print_graph(&g);
    assert!(text.starts_with("graph f(v0, v1, ok_2) {\n"), "{text}");
    let back = parse_graph::<Flow>(&text).unwrap();
    assert_eq!(back.vars[0].name, None);
    assert_eq!(back.vars[2].name.as_deref(), Some("ok"));
}

#[test]
fn ill_formed_graphs_still_round_trip() {
    // A variable used before any definition, an exit case without exitswitch,
    // a block without exits, a constant exitswitch, a return link with 2 args.
    let mut g = FunctionGraph::<Annotated>::new("odd", &[], SomeValue::int());
    let start = g.startblock;
    let stray = g.new_var(Some("stray".into()), SomeValue::string());
    let r = op(
        &mut g,
        start,
        Opcode::SameAs,
        vec![var(stray)],
        SomeValue::Bool,
    );
    let empty = g.add_block(vec![]);
    let other = g.add_block(vec![]);
    g.block_mut(other).exitswitch = Some(Arg::Const(Constant::Bool(true)));
    let ret = g.returnblock;
    g.block_mut(other).exits = vec![link(
        ret,
        vec![var(r), var(stray)],
        Some(Constant::Bool(true)),
    )];
    g.block_mut(start).exits = vec![
        link(empty, vec![], Some(Constant::Int(3))),
        link(other, vec![], None),
    ];
    let text = assert_round_trip(&g);
    assert!(
        text.contains("v1: SomeBool = same_as(stray_0: SomeString)"),
        "{text}"
    );
}

#[test]
fn program_round_trips_with_type_table() {
    let mut types = TypeTable::new();
    types.insert(lltype::STR.into(), lltype::str_type());
    lltype::add_list_type(&mut types, &LowLevelType::Ptr(lltype::STR.into()));
    lltype::add_list_type(&mut types, &LowLevelType::Signed);
    let g = fib::<LowLevel>(LowLevelType::Signed, LowLevelType::Bool, LowLevelType::Void);
    let mut main = FunctionGraph::<LowLevel>::new("main", &[], LowLevelType::Signed);
    let start = main.startblock;
    let l = op(
        &mut main,
        start,
        Opcode::Malloc,
        vec![Arg::Const(Constant::Name("list_signed".into()))],
        LowLevelType::Ptr("list_signed".into()),
    );
    let ret = main.returnblock;
    main.block_mut(start).exits = vec![link(ret, vec![var(l)], None)];
    let p = Program {
        path: "prog.py".into(),
        sources: Default::default(),
        graphs: vec![main, g],
        entry: "main".into(),
        types,
        facts: Default::default(),
        prebuilt: Vec::new(),
    };
    let text = print_program(&p);
    assert!(
        text.starts_with(
            "type array_rpy_string = GcArray(Ptr(rpy_string))
type array_signed = GcArray(Signed)
type list_rpy_string = GcStruct { length: Signed, items: Ptr(array_rpy_string) }
type list_signed = GcStruct { length: Signed, items: Ptr(array_signed) }
type rpy_string = GcStruct { hash: Signed, length: Signed, ..Array(Char) }
entry main

graph main() {
  block0:
    v0: Ptr(list_signed) = malloc(#list_signed)
    -> return(v0)
"
        ),
        "{text}"
    );
    let back = parse_program::<LowLevel>(&text).unwrap();
    let mut expected = p.clone();
    expected.path = String::new();
    for g in &mut expected.graphs {
        *g = g.canonicalize();
        strip_positions(g);
    }
    assert_eq!(back, expected);
    assert_eq!(print_program(&back), text);
}

#[test]
fn program_without_types() {
    let p = Program::<Flow> {
        path: String::new(),
        sources: Default::default(),
        graphs: vec![],
        entry: String::new(),
        types: TypeTable::new(),
        prebuilt: Vec::new(),
        facts: Default::default(),
    };
    let text = print_program(&p);
    assert_eq!(text, "entry \"\"\n");
    assert_eq!(parse_program::<Flow>(&text).unwrap(), p);
}

fn err<S: Stage>(text: &str) -> String {
    match parse_graph::<S>(text) {
        Ok(g) => panic!("parsed: {g:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn parse_errors_name_line_and_column() {
    assert_eq!(err::<Flow>(""), "1:1: expected 'graph', found end of text");
    assert_eq!(
        err::<Flow>("grph f() {"),
        "1:1: expected 'graph', found 'g'"
    );
    assert_eq!(
        err::<Flow>("graph f() {\n  block0:\n    -> return(1)\n"),
        "3:17: graph 'f' has no closing '}'"
    );
    assert_eq!(
        err::<Flow>("graph f() {\n  block0:\n    -> nowhere()\n}"),
        "3:8: no block named 'nowhere'"
    );
    assert_eq!(
        err::<Annotated>("graph f() {\n  block0:\n    v1 = add(1, 2)\n}"),
        "3:5: annotated variables need ': SomeXxx'"
    );
    assert_eq!(
        err::<Annotated>("graph f() {\n  block0:\n    v1: SomeBoo = add(1, 2)\n}"),
        "3:9: unknown annotation 'SomeBoo'"
    );
    assert_eq!(
        err::<Flow>("graph f() {\n  block0:\n    v1: Signed = add(1, 2)\n}"),
        "3:9: flow graphs carry no variable info, found ': Signed'"
    );
    assert_eq!(
        err::<Flow>("graph f() {\n  block0:\n    v1 = add(1, \"ab)\n}"),
        "3:17: unterminated string"
    );
    assert_eq!(
        err::<Flow>("graph f() {\n  block0:\n    x = add(1, 2)\n}"),
        "3:5: 'x' is not a variable (variables are 'v<N>' or '<name>_<N>')"
    );
    assert_eq!(
        err::<Flow>("graph f() {\n  block0:\n    v1 = add(99999999999999999999)\n}"),
        "3:14: integer '99999999999999999999' does not fit in 64 bits"
    );
    assert_eq!(
        err::<Flow>("graph f() {\n  block0:\n    -> return(1)\n    v1 = add(1, 2)\n}"),
        "4:5: operations must come before the block's exits"
    );
    assert_eq!(
        err::<Flow>("graph f() {\n  v1 = add(1, 2)\n}"),
        "2:3: an operation outside a block"
    );
    assert_eq!(
        err::<Flow>("graph f() {\n  b:\n  b:\n}"),
        "3:3: block 'b' is defined twice"
    );
    assert_eq!(
        err::<Flow>("graph f(v0) {\n  b(v1):\n}"),
        "1:9: the graph's parameters differ from its start block's input arguments"
    );
    assert_eq!(
        err::<Flow>("graph f() {\n  b:\n    v1 -> return()\n}"),
        "3:5: expected a constant exit case, found 'v1'"
    );
    assert_eq!(
        err::<Flow>("graph f() {\n  b:\n    switch c\"ab\"\n}"),
        "3:12: a char constant holds exactly one character below 0x100"
    );
    assert_eq!(
        err::<Flow>("graph f() {\n  b:\n    -> return(\"\\q\")\n}"),
        "3:16: unknown escape '\\q'"
    );
    assert_eq!(
        err::<LowLevel>("graph f() {\n  b:\n    -> return()\n}"),
        "4:1: the graph has no 'returns' line (low-level variables need ': Type')"
    );
    assert_eq!(
        err::<Flow>("graph f() {\n}"),
        "1:1: graph 'f' has no blocks"
    );
    assert_eq!(
        err::<Flow>("graph f() {\n  b:\n}\ngraph g() {\n"),
        "4:1: unexpected text after the graph"
    );
    assert_eq!(
        err::<Flow>("graph f() {\n  return:\n}"),
        "2:3: 'return' names the return block, which is not written as a block"
    );
    assert_eq!(
        err::<Annotated>("graph f() {\n  b(v0: SomeList(SomeList(SomeBool):\n}"),
        "2:9: unbalanced brackets in variable info"
    );
    assert_eq!(
        err::<Annotated>("graph f() {\n  b(v0: SomeBool):\n    -> return(v0: SomeBool)\n}"),
        "3:19: 'v0' already has its info, given where it first appears"
    );
    let e = parse_program::<Flow>("type t = GcFoo\nentry f\n").unwrap_err();
    assert_eq!(e.to_string(), "1:10: unknown container type 'GcFoo'");
    let e = parse_program::<Flow>("graph f() {\n  b:\n}\n").unwrap_err();
    assert_eq!(e.to_string(), "3:2: the program has no 'entry NAME' line");
    let e = parse_program::<Flow>("entry f\nentry g\n").unwrap_err();
    assert_eq!(e.to_string(), "2:1: a second 'entry' line");
}

#[test]
fn deep_info_nesting_is_an_error_not_a_crash() {
    let deep = format!(
        "graph f() {{\n  b(v0: {}SomeBool{}):\n}}",
        "SomeList(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert!(err::<Annotated>(&deep).contains("nested too deeply"));
}

#[test]
fn printing_a_large_graph_is_fast() {
    let mut g = FunctionGraph::<LowLevel>::new("big", &["x"], LowLevelType::Signed);
    let start = g.startblock;
    let mut prev = g.params()[0];
    for i in 0..10_000 {
        prev = op(
            &mut g,
            start,
            Opcode::IntAdd,
            vec![var(prev), int(i)],
            LowLevelType::Signed,
        );
    }
    let ret = g.returnblock;
    g.block_mut(start).exits = vec![link(ret, vec![var(prev)], None)];
    let _ = print_graph(&g); // warm up
    let t = std::time::Instant::now();
    let text = print_graph(&g);
    let printed = t.elapsed();
    let t = std::time::Instant::now();
    let back = parse_graph::<LowLevel>(&text).unwrap();
    let parsed = t.elapsed();
    eprintln!("10k ops: print {printed:?}, parse {parsed:?}");
    assert_eq!(back.blocks[0].operations.len(), 10_000);
    // Generous bound against noisy machines; typically a few ms.
    assert!(printed.as_millis() < 100, "printing took {printed:?}");
}

// ---------------------------------------------------------------------------
// Random graphs

#[derive(Clone, Debug)]
enum ArgSpec {
    /// The n-th (modulo) variable available in the block.
    Var(usize),
    Const(Constant),
}

#[derive(Clone, Debug)]
struct LinkSpec {
    /// Modulo the number of blocks + 2: the last two are return and except.
    target: usize,
    args: Vec<ArgSpec>,
}

#[derive(Clone, Debug)]
enum ExitSpec {
    Goto(LinkSpec),
    BoolSwitch(ArgSpec, LinkSpec, LinkSpec),
    IntSwitch(ArgSpec, Vec<(i64, LinkSpec)>),
    AnySwitch(ArgSpec, Vec<(Constant, LinkSpec)>),
    /// `switch last_exception`: the normal link, then exception exits by class,
    /// each defining (or not) its class and value variables.
    CatchSwitch(LinkSpec, Vec<(String, bool, bool, LinkSpec)>),
}

/// An operation: opname, args, result name, position.
type OpSpec = (Opcode, Vec<ArgSpec>, Option<String>, Option<(u32, u32)>);

#[derive(Clone, Debug)]
struct BlockSpec {
    inputs: Vec<Option<String>>,
    ops: Vec<OpSpec>,
    exit: ExitSpec,
}

#[derive(Clone, Debug)]
struct GraphSpec {
    name: String,
    pos: Option<(u32, u32)>,
    blocks: Vec<BlockSpec>,
    special_names: Vec<Option<String>>,
}

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>(),
        any::<u64>().prop_map(f64::from_bits),
        prop::sample::select(vec![
            0.0,
            -0.0,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            f64::MIN,
            1e16,
            1e-7,
            0.1,
            123456789.0,
        ]),
    ]
}

fn latin1_string() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just('"'),
            Just('\\'),
            (0x20u8..0x7f).prop_map(char::from),
            any::<u8>().prop_map(char::from),
        ],
        0..8,
    )
    .prop_map(|cs| cs.into_iter().collect())
}

fn symbol() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z_][a-z0-9_.]{0,6}",
        1 => prop::sample::select(vec!["", "a b", "f\"x", "<lambda>", "\u{e9}t\u{e9}", "1"])
            .prop_map(String::from),
    ]
}

fn constant() -> impl Strategy<Value = Constant> {
    prop_oneof![
        any::<i64>().prop_map(Constant::Int),
        (-3i64..3).prop_map(Constant::Int),
        float().prop_map(Constant::Float),
        any::<bool>().prop_map(Constant::Bool),
        any::<u8>().prop_map(Constant::Char),
        latin1_string().prop_map(Constant::Str),
        Just(Constant::None),
        symbol().prop_map(Constant::Func),
        symbol().prop_map(Constant::Builtin),
        symbol().prop_map(Constant::Name),
        symbol().prop_map(Constant::Class),
        Just(Constant::LastException),
    ]
}

fn arg_spec() -> impl Strategy<Value = ArgSpec> {
    prop_oneof![
        3 => any::<usize>().prop_map(ArgSpec::Var),
        1 => constant().prop_map(ArgSpec::Const),
    ]
}

fn var_name() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        2 => Just(None),
        1 => prop::sample::select(vec![
            "n", "x", "v", "v1", "x_1", "x_", "_", "True", "None", "inf", "nan", "c", "switch",
            "returns", "raises", "return", "except", "block0", "graph", "catch",
            "last_exception",
        ])
        .prop_map(|s| Some(s.to_string())),
        1 => "[a-zA-Z_][a-zA-Z0-9_]{0,5}".prop_map(Some),
    ]
}

fn link_spec() -> impl Strategy<Value = LinkSpec> {
    (any::<usize>(), prop::collection::vec(arg_spec(), 0..4))
        .prop_map(|(target, args)| LinkSpec { target, args })
}

fn exit_spec() -> impl Strategy<Value = ExitSpec> {
    prop_oneof![
        link_spec().prop_map(ExitSpec::Goto),
        (arg_spec(), link_spec(), link_spec()).prop_map(|(s, f, t)| ExitSpec::BoolSwitch(s, f, t)),
        (
            arg_spec(),
            prop::collection::vec((any::<i64>(), link_spec()), 1..4)
        )
            .prop_map(|(s, ls)| ExitSpec::IntSwitch(s, ls)),
        (
            arg_spec(),
            prop::collection::vec((constant(), link_spec()), 1..3)
        )
            .prop_map(|(s, ls)| ExitSpec::AnySwitch(s, ls)),
        (
            link_spec(),
            prop::collection::vec((symbol(), any::<bool>(), any::<bool>(), link_spec()), 1..3)
        )
            .prop_map(|(normal, ls)| ExitSpec::CatchSwitch(normal, ls)),
    ]
}

fn opname() -> impl Strategy<Value = Opcode> {
    prop::sample::select(Opcode::ALL.to_vec())
}

fn block_spec() -> impl Strategy<Value = BlockSpec> {
    (
        prop::collection::vec(var_name(), 0..4),
        prop::collection::vec(
            (
                opname(),
                prop::collection::vec(arg_spec(), 0..4),
                var_name(),
                prop::option::of((1u32..100, 1u32..100)),
            ),
            0..6,
        ),
        exit_spec(),
    )
        .prop_map(|(inputs, ops, exit)| BlockSpec { inputs, ops, exit })
}

fn graph_spec() -> impl Strategy<Value = GraphSpec> {
    (
        symbol(),
        prop::option::of((1u32..100, 1u32..100)),
        prop::collection::vec(block_spec(), 1..7),
        prop::collection::vec(var_name(), 3),
    )
        .prop_map(|(name, pos, blocks, special_names)| GraphSpec {
            name,
            pos,
            blocks,
            special_names,
        })
}

fn some_value() -> impl Strategy<Value = SomeValue> {
    let ident = "[a-z_][a-z0-9_]{0,4}";
    let leaf = prop_oneof![
        Just(SomeValue::Impossible),
        (any::<bool>(), any::<bool>())
            .prop_map(|(nonneg, unsigned)| SomeValue::Integer { nonneg, unsigned }),
        Just(SomeValue::Bool),
        Just(SomeValue::Float),
        Just(SomeValue::Char),
        (any::<bool>(), any::<bool>()).prop_map(|(can_be_none, no_nul)| SomeValue::String {
            can_be_none,
            no_nul
        }),
        Just(SomeValue::None),
        (prop::collection::btree_set(ident, 1..3), any::<bool>()).prop_map(|(s, can_be_none)| {
            SomeValue::Pbc {
                descs: s.into_iter().map(Desc::Function).collect(),
                can_be_none,
            }
        }),
        (ident, any::<bool>())
            .prop_map(|(class, can_be_none)| SomeValue::Instance { class, can_be_none }),
        ident.prop_map(SomeValue::Builtin),
        Just(SomeValue::Object),
    ];
    leaf.prop_recursive(3, 8, 2, |inner| {
        prop_oneof![
            (inner.clone(), any::<bool>(), 0u32..5).prop_map(|(v, resizable, id)| {
                SomeValue::List(ListDef {
                    id,
                    item: Box::new(v),
                    resizable,
                    can_be_none: false,
                })
            }),
            prop::collection::vec(inner.clone(), 0..3).prop_map(SomeValue::Tuple),
            inner.prop_map(|v| SomeValue::Iterator(Box::new(v))),
        ]
    })
}

fn ll_type() -> impl Strategy<Value = LowLevelType> {
    prop_oneof![
        Just(LowLevelType::Void),
        Just(LowLevelType::Signed),
        Just(LowLevelType::Unsigned),
        Just(LowLevelType::Float),
        Just(LowLevelType::Bool),
        Just(LowLevelType::Char),
        "[a-z_][a-z0-9_]{0,8}".prop_map(LowLevelType::Ptr),
    ]
}

/// Builds a well-formed graph from a spec; variable `i` gets `infos[i % len]`.
fn build<S: Stage>(spec: &GraphSpec, infos: &[S::VarInfo]) -> FunctionGraph<S> {
    let mut count = 0usize;
    let mut next_info = || {
        count += 1;
        infos[(count - 1) % infos.len()].clone()
    };
    let mut g = FunctionGraph::<S>::new(spec.name.clone(), &[], next_info());
    g.pos = spec.pos.map(|(l, c)| Pos::new(l, c));
    // Return and except blocks' variables: names and infos from the spec.
    let specials: Vec<Var> = [g.returnblock, g.exceptblock]
        .iter()
        .flat_map(|b| g.block(*b).inputargs.clone())
        .collect();
    for (v, name) in specials.iter().zip(&spec.special_names) {
        g.vars[v.0 as usize].name = name.clone();
        g.vars[v.0 as usize].info = next_info();
    }
    let mut ids = Vec::new();
    for (i, b) in spec.blocks.iter().enumerate() {
        let inputs: Vec<Var> = b
            .inputs
            .iter()
            .map(|n| g.new_var(n.clone(), next_info()))
            .collect();
        if i == 0 {
            g.block_mut(g.startblock).inputargs = inputs;
            ids.push(g.startblock);
        } else {
            ids.push(g.add_block(inputs));
        }
    }
    let nblocks = ids.len();
    let target_of = |t: usize, g: &FunctionGraph<S>| match t % (nblocks + 2) {
        t if t < nblocks => ids[t],
        t if t == nblocks => g.returnblock,
        _ => g.exceptblock,
    };
    for (i, b) in spec.blocks.iter().enumerate() {
        let id = ids[i];
        let mut avail: Vec<Var> = g.block(id).inputargs.clone();
        let resolve = |a: &ArgSpec, avail: &[Var]| match a {
            ArgSpec::Var(k) if !avail.is_empty() => Arg::Var(avail[k % avail.len()]),
            ArgSpec::Var(k) => Arg::Const(Constant::Int(*k as i64)),
            ArgSpec::Const(c) => Arg::Const(c.clone()),
        };
        for (opname, args, name, pos) in &b.ops {
            let args = args.iter().map(|a| resolve(a, &avail)).collect();
            let result = g.new_var(name.clone(), next_info());
            g.block_mut(id).operations.push(SpaceOperation {
                opname: *opname,
                args,
                result,
                pos: pos.map(|(l, c)| Pos::new(l, c)),
            });
            avail.push(result);
        }
        let make_link = |l: &LinkSpec, case: Option<Constant>, g: &FunctionGraph<S>| {
            let target = target_of(l.target, g);
            let arity = g.block(target).inputargs.len();
            let args = (0..arity)
                .map(|j| match l.args.get(j) {
                    Some(a) => resolve(a, &avail),
                    None => resolve(&ArgSpec::Var(j), &avail),
                })
                .collect();
            Link::new(args, target, case)
        };
        let (switch, exits) = match &b.exit {
            ExitSpec::Goto(l) => (None, vec![make_link(l, None, &g)]),
            ExitSpec::BoolSwitch(s, f, t) => (
                Some(resolve(s, &avail)),
                vec![
                    make_link(f, Some(Constant::Bool(false)), &g),
                    make_link(t, Some(Constant::Bool(true)), &g),
                ],
            ),
            ExitSpec::IntSwitch(s, ls) => (
                Some(resolve(s, &avail)),
                ls.iter()
                    .map(|(c, l)| make_link(l, Some(Constant::Int(*c)), &g))
                    .collect(),
            ),
            ExitSpec::AnySwitch(s, ls) => (
                Some(resolve(s, &avail)),
                ls.iter()
                    .map(|(c, l)| make_link(l, Some(c.clone()), &g))
                    .collect(),
            ),
            ExitSpec::CatchSwitch(normal, catches) => {
                let mut exits = vec![make_link(normal, None, &g)];
                for (class, has_type, has_value, l) in catches {
                    let mut link = make_link(l, Some(Constant::Class(class.clone())), &g);
                    let mut own = Vec::new();
                    if *has_type {
                        let v = g.new_var(Some("etype".into()), next_info());
                        link.last_exception = Some(v);
                        own.push(Arg::Var(v));
                    }
                    if *has_value {
                        let v = g.new_var(None, next_info());
                        link.last_exc_value = Some(v);
                        own.push(Arg::Var(v));
                    }
                    // Pass the link's own variables on in place of the first arguments.
                    for (slot, v) in link.args.iter_mut().zip(own) {
                        *slot = v;
                    }
                    exits.push(link);
                }
                (Some(Arg::Const(Constant::LastException)), exits)
            }
        };
        let blk = g.block_mut(id);
        blk.exitswitch = switch;
        blk.exits = exits;
    }
    g
}

fn check_round_trip<S: Stage>(g: &FunctionGraph<S>) -> Result<(), TestCaseError> {
    let text = print_graph(g);
    let parsed =
        parse_graph::<S>(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    let canonical = g.canonicalize();
    // `is_canonical` says exactly when canonicalizing changes nothing.
    prop_assert_eq!(g.is_canonical(), canonical == *g);
    prop_assert!(canonical.is_canonical(), "\n{}", text);
    let mut in_place = g.clone();
    in_place.make_canonical();
    prop_assert_eq!(&in_place, &canonical);
    let mut expected = canonical;
    strip_positions(&mut expected);
    prop_assert_eq!(&parsed, &expected, "\n{}", text);
    prop_assert_eq!(print_graph(&parsed), text.clone());
    prop_assert_eq!(print_graph(&g.canonicalize()), text);
    Ok(())
}

/// Whatever the text, parsing returns; and what parses prints back to itself.
fn check_parse_is_total<S: Stage>(text: &str) -> Result<(), TestCaseError> {
    if let Ok(g) = parse_graph::<S>(text) {
        let printed = print_graph(&g);
        let again = parse_graph::<S>(&printed)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
        prop_assert_eq!(again, g);
    }
    if let Ok(p) = parse_program::<S>(text) {
        let printed = print_program(&p);
        let again = parse_program::<S>(&printed)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
        prop_assert_eq!(again, p);
    }
    Ok(())
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize, usize),
    Insert(usize, char),
    Replace(usize, char),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let ch = prop_oneof![
        prop::sample::select(vec![
            '(', ')', ',', ':', '=', '-', '>', '"', '\\', ' ', '\n', '{', '}', '_', '0', 'v', 'x',
            '.', 'e', '@', '$', '#', 'c', '\u{e9}', '\t', '\r',
        ]),
        any::<char>(),
    ];
    prop_oneof![
        (any::<usize>(), 1usize..4).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), ch.clone()).prop_map(|(a, c)| Mutation::Insert(a, c)),
        (any::<usize>(), ch).prop_map(|(a, c)| Mutation::Replace(a, c)),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn mutate(text: &str, muts: &[Mutation]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for m in muts {
        let n = chars.len().max(1);
        match m {
            Mutation::Delete(a, k) => {
                let a = a % n;
                let end = (a + k).min(chars.len());
                if a < end {
                    chars.drain(a..end);
                }
            }
            Mutation::Insert(a, c) => chars.insert(a % (chars.len() + 1), *c),
            Mutation::Replace(a, c) => {
                if !chars.is_empty() {
                    chars[a % n] = *c;
                }
            }
            Mutation::DuplicateLine(a) | Mutation::SwapLines(a, _) => {
                let s: String = chars.iter().collect();
                let mut lines: Vec<&str> = s.split('\n').collect();
                let i = a % lines.len();
                if let Mutation::SwapLines(_, b) = m {
                    let j = b % lines.len();
                    lines.swap(i, j);
                } else {
                    lines.insert(i, lines[i]);
                }
                chars = lines.join("\n").chars().collect();
            }
            Mutation::Truncate(a) => chars.truncate(a % n),
        }
    }
    chars.into_iter().collect()
}

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "graph",
            " ",
            "f",
            "(",
            ")",
            "{",
            "}",
            "\n",
            "block0",
            "b",
            ":",
            "v1",
            "x_2",
            "=",
            "add",
            ",",
            "->",
            "return",
            "except",
            "switch",
            "True",
            "None",
            "1",
            "-",
            "1.5e3",
            "inf",
            "nan",
            "nan(0x7ff8000000000001)",
            "\"",
            "\\x",
            "\\u{",
            "c\"",
            "@",
            "$",
            "#",
            "SomeBool",
            "SomeInteger(nonneg=true)",
            "Signed",
            "Ptr(",
            "returns",
            "raises",
            "type",
            "entry",
            "GcArray(Signed)",
            "GcStruct {",
            "e",
            ".",
        ]),
        0..60,
    )
    .prop_map(|ts| ts.concat())
}

fn program_strategy<S: Stage>(
    infos: impl Strategy<Value = Vec<S::VarInfo>>,
) -> impl Strategy<Value = Program<S>> {
    prop::collection::vec((graph_spec(), infos), 0..4).prop_map(|specs| {
        let graphs: Vec<FunctionGraph<S>> = specs.iter().map(|(s, i)| build::<S>(s, i)).collect();
        let mut types = TypeTable::new();
        types.insert(lltype::STR.into(), lltype::str_type());
        lltype::add_list_type(&mut types, &LowLevelType::Signed);
        lltype::add_list_type(&mut types, &LowLevelType::Ptr(lltype::STR.into()));
        Program {
            path: "x.py".into(),
            sources: Default::default(),
            entry: graphs.first().map_or("main".into(), |g| g.name.clone()),
            graphs,
            types,
            facts: Default::default(),
            prebuilt: Vec::new(),
        }
    })
}

fn check_program<S: Stage>(p: &Program<S>) -> Result<(), TestCaseError> {
    let text = print_program(p);
    let back =
        parse_program::<S>(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    let mut expected = p.clone();
    expected.path = String::new();
    for g in &mut expected.graphs {
        *g = g.canonicalize();
        strip_positions(g);
    }
    prop_assert_eq!(&back, &expected);
    prop_assert_eq!(print_program(&back), text);
    Ok(())
}

fn flow_infos() -> impl Strategy<Value = Vec<()>> {
    Just(vec![()])
}

fn annotated_infos() -> impl Strategy<Value = Vec<SomeValue>> {
    prop::collection::vec(some_value(), 1..6)
}

fn low_level_infos() -> impl Strategy<Value = Vec<LowLevelType>> {
    prop::collection::vec(ll_type(), 1..6)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn flow_graphs_round_trip(spec in graph_spec(), infos in flow_infos()) {
        check_round_trip(&build::<Flow>(&spec, &infos))?;
    }

    #[test]
    fn annotated_graphs_round_trip(spec in graph_spec(), infos in annotated_infos()) {
        check_round_trip(&build::<Annotated>(&spec, &infos))?;
    }

    #[test]
    fn low_level_graphs_round_trip(spec in graph_spec(), infos in low_level_infos()) {
        check_round_trip(&build::<LowLevel>(&spec, &infos))?;
    }

    #[test]
    fn flow_programs_round_trip(p in program_strategy::<Flow>(flow_infos())) {
        check_program(&p)?;
    }

    #[test]
    fn annotated_programs_round_trip(p in program_strategy::<Annotated>(annotated_infos())) {
        check_program(&p)?;
    }

    #[test]
    fn low_level_programs_round_trip(p in program_strategy::<LowLevel>(low_level_infos())) {
        check_program(&p)?;
    }

    #[test]
    fn parsing_arbitrary_text_never_panics(text in "(?s).{0,200}") {
        check_parse_is_total::<Flow>(&text)?;
        check_parse_is_total::<Annotated>(&text)?;
        check_parse_is_total::<LowLevel>(&text)?;
    }

    #[test]
    fn parsing_token_soup_never_panics(text in token_soup()) {
        check_parse_is_total::<Flow>(&text)?;
        check_parse_is_total::<Annotated>(&text)?;
        check_parse_is_total::<LowLevel>(&text)?;
    }

    #[test]
    fn parsing_mutated_flow_text_never_panics(
        spec in graph_spec(),
        muts in prop::collection::vec(mutation(), 1..5),
    ) {
        let text = mutate(&print_graph(&build::<Flow>(&spec, &[()])), &muts);
        check_parse_is_total::<Flow>(&text)?;
    }

    #[test]
    fn parsing_mutated_annotated_text_never_panics(
        spec in graph_spec(),
        infos in annotated_infos(),
        muts in prop::collection::vec(mutation(), 1..5),
    ) {
        let text = mutate(&print_graph(&build::<Annotated>(&spec, &infos)), &muts);
        check_parse_is_total::<Annotated>(&text)?;
    }

    #[test]
    fn parsing_mutated_program_text_never_panics(
        p in program_strategy::<LowLevel>(low_level_infos()),
        muts in prop::collection::vec(mutation(), 1..5),
    ) {
        let text = mutate(&print_program(&p), &muts);
        check_parse_is_total::<LowLevel>(&text)?;
    }
}

#[test]
fn exception_exits_read_back_with_their_own_variables() {
    let text = "\
graph f(x_0) {
  block0(x_0):
    v1 = simple_call(@g, x_0)
    switch last_exception
      -> return(v1)
      %ValueError catch(etype_2, v3) -> block1(v3)
      %Exception catch(_, v4) -> except(%RuntimeError, v4)
  block1(v5):
    -> return(v5)
  returns v6
  raises v7, v8
}
";
    let g = parse_graph::<Flow>(text).unwrap_or_else(|e| panic!("{e}"));
    let start = g.block(g.startblock);
    assert!(start.catches_exceptions());
    assert_eq!(start.exits[0].exitcase, None);
    assert_eq!(start.exits[0].last_exception, None);
    assert_eq!(
        start.exits[1].exitcase,
        Some(Constant::Class("ValueError".into()))
    );
    let (etype, evalue) = (start.exits[1].last_exception, start.exits[1].last_exc_value);
    assert!(etype.is_some() && evalue.is_some() && etype != evalue);
    assert_eq!(start.exits[1].args, vec![Arg::Var(evalue.unwrap())]);
    assert_eq!(start.exits[2].last_exception, None);
    assert_eq!(
        start.exits[2].args[0],
        Arg::Const(Constant::Class("RuntimeError".into()))
    );
    assert_eq!(print_graph(&g), text);
    assert_round_trip(&g);
}

#[test]
fn catch_lists_take_variables_or_underscores() {
    let bad = "\
graph f() {
  block0:
    v1 = simple_call(@g)
    switch last_exception
      -> return(v1)
      %ValueError catch(3, v2) -> return(v2)
}
";
    assert_eq!(
        err::<Flow>(bad),
        "6:25: expected a variable or '_' in 'catch(..)', found a constant"
    );
}

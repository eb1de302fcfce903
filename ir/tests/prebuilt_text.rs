//! The text form of prebuilt objects (`prebuilt &N = ...`, `&N` operands) and
//! of graph hints: printing then parsing gives the program back, and bad
//! text is an error naming the line and column.

use rpy_ir::graph::{Arg, Constant, Flow, FunctionGraph, Link, PrebuiltObject, Program};
use rpy_ir::text::{parse_program, print_program};

/// A program whose graph returns `&2`, an instance referring to a list, a
/// dict and (through the list) to itself.
fn program() -> Program<Flow> {
    let mut g = FunctionGraph::<Flow>::new("entry_point", &["argv"], ());
    g.hints = vec!["elidable".into(), "specialize.argtype(0)".into()];
    let start = g.startblock;
    let ret = g.returnblock;
    g.block_mut(start).exits = vec![Link::new(
        vec![Arg::Const(Constant::Prebuilt(2))],
        ret,
        None,
    )];
    Program {
        path: String::new(),
        sources: Default::default(),
        graphs: vec![g.canonicalize()],
        entry: "entry_point".into(),
        types: Default::default(),
        facts: Default::default(),
        prebuilt: vec![
            PrebuiltObject::List(vec![
                Constant::Int(1),
                Constant::Str("two".into()),
                Constant::Prebuilt(2),
            ]),
            PrebuiltObject::Dict(vec![(
                Constant::Str("k".into()),
                Constant::Func("f".into()),
            )]),
            PrebuiltObject::Instance {
                class: "interp.Frame".into(),
                attrs: vec![
                    ("stack".into(), Constant::Prebuilt(0)),
                    ("names".into(), Constant::Prebuilt(1)),
                    ("pc".into(), Constant::Int(0)),
                ],
            },
            PrebuiltObject::Tuple(vec![]),
            PrebuiltObject::Instance {
                class: "Empty".into(),
                attrs: vec![],
            },
        ],
    }
}

#[test]
fn prebuilt_objects_and_hints_print_as_documented() {
    let text = print_program(&program());
    assert_eq!(
        text,
        "prebuilt &0 = [1, \"two\", &2]\n\
         prebuilt &1 = {\"k\": @f}\n\
         prebuilt &2 = interp.Frame {stack: &0, names: &1, pc: 0}\n\
         prebuilt &3 = ()\n\
         prebuilt &4 = Empty {}\n\
         entry entry_point\n\
         \n\
         graph entry_point(argv_0) [\"elidable\", \"specialize.argtype(0)\"] {\n\
         \x20 block0(argv_0):\n\
         \x20   -> return(&2)\n\
         \x20 returns v1\n\
         \x20 raises v2, v3\n\
         }\n"
    );
}

#[test]
fn prebuilt_objects_and_hints_round_trip() {
    let p = program();
    let text = print_program(&p);
    let back = parse_program::<Flow>(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back, p);
}

#[test]
fn prebuilt_objects_must_be_numbered_in_order() {
    let err = parse_program::<Flow>("prebuilt &1 = []\nentry f\n").unwrap_err();
    assert_eq!((err.line, err.col), (1, 10));
    assert!(err.message.contains("'&0'"), "{}", err.message);
}

#[test]
fn a_prebuilt_operand_needs_an_index() {
    let text = "entry f\ngraph f() {\n  block0():\n    -> return(&x)\n}\n";
    let err = parse_program::<Flow>(text).unwrap_err();
    assert_eq!(err.line, 4);
    assert!(err.message.contains("'&'"), "{}", err.message);
}

#[test]
fn low_level_statics_round_trip() {
    use rpy_ir::graph::LowLevel;
    let text = "type inst_Node = GcStruct { typeptr: Ptr(vtable_Node), eval: Func(Ptr(inst_Node) -> Signed) }\n\
                type vtable_Node = GcStruct { subclassrange_min: Signed, subclassrange_max: Signed }\n\
                type array_signed = GcArray(Signed)\n\
                prebuilt &0 = struct<vtable_Node> {subclassrange_min: 0, subclassrange_max: 1}\n\
                prebuilt &1 = struct<inst_Node> {typeptr: &0, eval: @Node.eval}\n\
                prebuilt &2 = array<array_signed> [1, 2, 3]\n\
                prebuilt &3 = struct<rpy_string> {hash: 0, length: 2} [c\"a\", c\"b\"]\n\
                entry f\n";
    let p = parse_program::<LowLevel>(text).unwrap();
    assert!(matches!(&p.prebuilt[1], PrebuiltObject::Struct { ty, .. } if ty == "inst_Node"));
    assert!(matches!(&p.prebuilt[2], PrebuiltObject::Array { items, .. } if items.len() == 3));
    let printed = print_program(&p);
    assert_eq!(parse_program::<LowLevel>(&printed).unwrap(), p);
}

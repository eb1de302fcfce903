//! The low-level helpers of pylib/rpython/rtyper/: each annotates, rtypes
//! and runs in the LLInterpreter with CPython's semantics.

use rpy_ir::graph::{Constant, LowLevel, Program};
use rpy_ir::lltype::{self, LowLevelType, TypeTable};
use rpy_passes::llinterp::{LlInterpreter, LlValue};
use rpy_passes::rtype::lowlevel_helpers::{HelperArg, LowLevelHelpers};

fn signed_list_types() -> (TypeTable, String) {
    let mut types = TypeTable::new();
    types.insert(lltype::STR.into(), lltype::str_type());
    let list = lltype::add_list_type(&mut types, &LowLevelType::Signed);
    (types, list)
}

#[test]
fn smoke_append() {
    let (mut types, list) = signed_list_types();
    let mut helpers = LowLevelHelpers::new();
    let ptr = LowLevelType::Ptr(list.clone());
    let (newlist, _) = helpers
        .specialize(
            "rlist",
            "ll_newlist",
            &[
                HelperArg::Type(list.clone()),
                HelperArg::Value(LowLevelType::Signed),
            ],
            &mut types,
        )
        .unwrap();
    let (append, _) = helpers
        .specialize(
            "rlist",
            "ll_append",
            &[
                HelperArg::Value(ptr.clone()),
                HelperArg::Value(LowLevelType::Signed),
            ],
            &mut types,
        )
        .unwrap();
    let (len, _) = helpers
        .specialize(
            "rlist",
            "ll_len",
            &[HelperArg::Value(ptr.clone())],
            &mut types,
        )
        .unwrap();
    let program: Program<LowLevel> = Program {
        path: "helpers".into(),
        graphs: helpers.take_graphs(),
        entry: String::new(),
        types,
        prebuilt: Vec::new(),
    };
    println!("{}", rpy_ir::text::print_program(&program));
    let mut interp = LlInterpreter::new(&program);
    let mut out = Vec::new();
    let l = interp
        .call(&newlist, vec![LlValue::Void, LlValue::Signed(0)], &mut out)
        .unwrap();
    for i in 0..20 {
        interp
            .call(&append, vec![l.clone(), LlValue::Signed(i)], &mut out)
            .unwrap();
    }
    let n = interp.call(&len, vec![l.clone()], &mut out).unwrap();
    assert_eq!(n, LlValue::Signed(20));
    let _ = Constant::None;
}

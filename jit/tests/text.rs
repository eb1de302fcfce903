//! Parser and printer: round trips and error messages.

use rpy_jit::text::{parse, print, print_header};

fn roundtrip(src: &str) {
    let t = parse(src).unwrap_or_else(|e| panic!("{e}"));
    let printed = print(&t);
    let again = parse(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    assert_eq!(print(&again), printed);
    assert_eq!(again.ops, t.ops);
}

#[test]
fn roundtrip_arith_and_guards() {
    roundtrip(
        "[i0, i1]\ni2 = int_add(i0, 1)\ni3 = int_lt(i2, i1)\nguard_true(i3) [i0, i2]\ni4 = int_add_ovf(i2, -5)\nguard_no_overflow() []\nfinish(i4)\n",
    );
}

#[test]
fn roundtrip_header_and_memory() {
    let src = "struct node { value: Signed, next: Ptr(node), flag: Bool, f: Float }
class BoxedInteger(node)
array ints = Signed
field value = node.value
call max = int_max

[p0, i1, f2]
guard_class(p0, ConstClass(BoxedInteger)) [p0]
i3 = getfield_gc_i(p0, descr=value)
p4 = new_with_vtable(descr=BoxedInteger)
setfield_gc(p4, i3, descr=value)
setfield_gc(p4, f2, descr=node.f)
p5 = new_array(3, descr=ints)
setarrayitem_gc(p5, 0, i3, descr=ints)
i6 = getarrayitem_gc_i(p5, 0, descr=ints)
i7 = call_i(i6, i1, descr=max)
i8 = arraylen_gc(p5, descr=ints)
guard_nonnull(p4) []
f9 = float_add(f2, 1.5)
setfield_gc(p4, ConstPtr(null), descr=node.next)
label(p0, i1, f9)
jump(p4, i7, f9)
";
    roundtrip(src);
    let t = parse(src).unwrap();
    let printed = print(&t);
    assert!(printed.starts_with("struct node { value: Signed, next: Ptr(node), flag: Bool, f: Float }\nclass BoxedInteger(node)\n"));
    assert!(printed.contains("guard_class(p0, ConstClass(BoxedInteger)) [p0]"));
    assert!(printed.contains("f9 = float_add(f2, 1.5)"));
}

#[test]
fn comments_and_blank_lines_are_ignored() {
    let t = parse("# a trace\n[i0]   # inputs\n\ni1 = int_mul(i0, 0x10)  # times 16\nfinish(i1)\n")
        .unwrap();
    assert_eq!(print(&t), "[i0]\ni1 = int_mul(i0, 16)\nfinish(i1)\n");
}

#[test]
fn roundtrip_resume_data() {
    roundtrip(
        "struct node { value: Signed, next: Ptr(node) }
array nodes = Ptr(node)

[i0, p9]
i1 = int_lt(i0, 10)
guard_true(i1) [p2, i0, p3] virtual p2 = new(descr=node) {node.value: i0, node.next: p2} virtual p3 = new_array(2, descr=nodes) {1: p2, 0: p9}
p2 = new(descr=node)
finish(p2)
",
    );
}

#[test]
fn resume_data_errors() {
    let h = "struct node { value: Signed, next: Ptr(node) }\narray nodes = Ptr(node)\n[i0]\n";
    let cases = [
        (
            "guard_true(i0) [p1] virtual i1 = new(descr=node) {}",
            "4:29: virtual object 'i1' must be a 'p' box",
        ),
        (
            "guard_true(i0) [p1] virtual p1 = int_add(descr=node) {}",
            "4:34: a virtual object is made by new, new_with_vtable or new_array, not 'int_add'",
        ),
        (
            "guard_true(i0) [p1] virtual p1 = new(descr=nodes) {}",
            "4:44: 'new' cannot allocate 'nodes'",
        ),
        (
            "guard_true(i0) [p1] virtual p1 = new_array(2, descr=nodes) {2: i0}",
            "4:61: expected an index below 2",
        ),
        (
            "guard_true(i0) [p1] virtual p1 = new(descr=node) {node.value: p1}",
            "4:63: this slot holds an integer",
        ),
        (
            "guard_true(i0) [p1] virtual p1 = new(descr=node) {node.nope: i0}",
            "4:51: struct 'node' has no field 'nope'",
        ),
        (
            "guard_true(i0) [p1] virtual p1 = new(descr=node) {} virtual p1 = new(descr=node) {}",
            "4:61: virtual object 'p1' is described twice",
        ),
        (
            "guard_true(i0) [i0] virtual i0 = new(descr=node) {}",
            "4:29: virtual object 'i0' must be a 'p' box",
        ),
        (
            "guard_true(i0) [p1] virtual p1 = new(descr=node) {}\ni2 = ptr_eq(p1, p1)",
            "5:13: box 'p1' is a virtual object of a guard's resume data: it has no value here",
        ),
    ];
    for (body, want) in cases {
        assert_eq!(err(&format!("{h}{body}\n")), want, "{body}");
    }
}

fn err(src: &str) -> String {
    parse(src).map(|_| ()).unwrap_err().to_string()
}

#[test]
fn errors_have_line_and_column() {
    assert_eq!(
        err("[i0]\ni1 = int_foo(i0)\n"),
        "2:6: unknown operation 'int_foo'"
    );
    assert_eq!(
        err("[i0]\ni1 = int_add(i0, i9)\n"),
        "2:18: box 'i9' is not defined"
    );
    assert_eq!(
        err("[i0]\ni1 = int_add(i0)\n"),
        "2:6: 'int_add' takes 2 argument(s), not 1"
    );
    assert_eq!(
        err("[i0]\np1 = int_add(i0, 1)\n"),
        "2:1: 'int_add' yields an integer: its box must start with 'i'"
    );
    assert_eq!(
        err("[i0]\ni1 = int_add(i0, 1\n"),
        "2:19: expected ',' or ')' before the end of the line"
    );
    assert_eq!(
        err("[p0]\ni1 = getfield_gc_i(p0, descr=nope)\n"),
        "2:30: no descr 'nope' in the header"
    );
    assert_eq!(err("[i0, i0]\n"), "1:6: box 'i0' is defined twice");
    assert_eq!(
        err("[f0]\ni1 = int_add(f0, 1)\n"),
        "2:14: 'int_add' wants an integer here"
    );
    assert_eq!(
        err("[i0]\nint_add(i0, 1)\n"),
        "2:1: 'int_add' yields an integer: write 'iN = int_add(...)'"
    );
    assert_eq!(
        err("struct s { a: Nope }\n"),
        "1:15: unknown low-level type 'Nope'"
    );
    assert_eq!(
        err("struct s { a: Ptr(t) }\n"),
        "1:8: no type 't' (declare it before it is used)"
    );
    assert_eq!(
        err("[i0]\nstruct s { a: Signed }\n"),
        "2:1: declarations come before the trace"
    );
    assert_eq!(
        err("struct s { a: Signed }\n[p0]\ni1 = getfield_gc_i(p0, descr=s.b)\n"),
        "3:30: struct 's' has no field 'b'"
    );
    assert_eq!(
        err("struct s { a: Float }\n[p0]\ni1 = getfield_gc_i(p0, descr=s.a)\n"),
        "3:6: the field holds a float; use the '_f' form"
    );
    assert_eq!(
        err("call f = nosuch\n").split(" (").next().unwrap(),
        "1:6: no native function 'nosuch'"
    );
    assert_eq!(
        err("[i0]\ni1 = int_add(i0, 1) [i0]\n"),
        "2:6: 'int_add' is not a guard: it takes no fail args"
    );
}

#[test]
fn garbage_never_panics() {
    for s in [
        "[",
        "]",
        "[i0",
        "i1 =",
        "= int_add()",
        "guard_true(",
        "struct",
        "struct x {",
        "class c(",
        "[i0]\ni1 = int_add(i0, 99999999999999999999)",
        "[i0]\nguard_true(i0) [",
        "[i0]\nguard_true(i0) [p1] virtual",
        "[i0]\nguard_true(i0) [p1] virtual p1 = new(",
        "[i0]\nguard_true(i0) [p1] virtual p1 = new_array(x, descr=",
        "[i0]\nguard_true(i0) [p1] virtual p1 = new(descr=q) {",
        "\u{1F600}(",
        "[i0]\ni1 = int_add(i0, -)",
    ] {
        let _ = parse(s);
    }
}

/// A program's types (`type NAME = ...`, as the JIT log's header prints
/// them) may point to each other in any order; their descrs are made as
/// the trace names them, with the program's type ids (places in the
/// table, from 1); a header declares program types or its own, not both.
#[test]
fn program_types_are_declared_with_type() {
    let src = "type node = GcStruct { next: Ptr(node), box: Ptr(box_t) }\n\
               type box_t = GcStruct { value: Signed }\n\
               type chars = GcStruct { hash: Signed, length: Signed, ..Array(Char) }\n\
               [p0, p1]\n\
               p2 = getfield_gc_r(p0, descr=node.box)\n\
               i3 = getfield_gc_i(p2, descr=box_t.value)\n\
               i4 = getarrayitem_gc_i(p1, i3, descr=chars[])\n\
               p5 = new(descr=box_t)\n\
               finish(i4, p5)\n";
    let t = parse(src).unwrap();
    let h = &t.header;
    assert!(h.is_program());
    let id = |name: &str| match h.descrs[h.descr(name).unwrap()].data {
        rpy_jit::trace::DescrData::Size { type_id, .. }
        | rpy_jit::trace::DescrData::Array { type_id, .. } => type_id,
        _ => panic!("{name} is not a type's descr"),
    };
    // box_t, chars, node: in the order of their names.
    assert_eq!((id("box_t"), id("chars[]")), (1, 2));
    assert_eq!(print_header(h), "type box_t = GcStruct { value: Signed }\ntype chars = GcStruct { hash: Signed, length: Signed, ..Array(Char) }\ntype node = GcStruct { next: Ptr(node), box: Ptr(box_t) }\n");
    assert_eq!(
        err("type a = GcStruct { b: Ptr(missing) }\n[i0]\nfinish(i0)\n"),
        "2:1: type 'a' points to 'missing', which no `type` declares"
    );
    assert_eq!(
        err("type a = GcStruct { v: Signed }\nstruct s { v: Signed }\n"),
        "2:8: a header declares program types (`type`) or its own (`struct`, `array`, `class`), not both"
    );
    assert_eq!(
        err("[p0]\ni1 = getfield_gc_i(ConstPtr(0x10), descr=s.v)\n").split(':').nth(2).map(str::trim),
        Some("ConstPtr(0x10) names an object of the run that recorded the trace; a text trace makes its objects when it runs")
    );
}

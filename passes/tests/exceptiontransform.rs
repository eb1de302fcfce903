//! The exception transform on small hand-written programs: which calls get
//! a test of the exception state (only those that can raise, transitively,
//! and indirect calls by the signatures of graphs whose address is taken),
//! and what it reports. The programs' behaviour before and after, and as
//! executables, is tested in `backend/tests/lowlevel_programs.rs`.

use rpy_ir::graph::LowLevel;
use rpy_ir::text::{parse_program, print_graph};
use rpy_llinterp::LlInterpreter;
use rpy_passes::exceptiontransform::transform;

const TYPES: &str = "\
type array_rpy_string = GcArray(Ptr(rpy_string))
type list_rpy_string = GcStruct { length: Signed, items: Ptr(array_rpy_string) }
type rpy_string = GcStruct { hash: Signed, length: Signed, ..Array(Char) }
type object = GcStruct { typeptr: Ptr(object_vtable) }
type object_vtable = GcStruct { subclassrange_min: Signed, subclassrange_max: Signed, name: Ptr(rpy_string) }
type array_fn = GcArray(Func(Signed -> Signed))
prebuilt &0 = struct<object_vtable> {subclassrange_min: 1, subclassrange_max: 2, name: \"ValueError\"}
prebuilt &1 = struct<object> {typeptr: &0}
";

/// `mid` calls a graph that never raises (`leaf`, also under a handler), a
/// runtime function, a graph that raises (`raiser`, whose result it uses),
/// and a function pointer from the table `&2` (`TABLE` says what it
/// holds).
fn program(table: &str) -> String {
    format!(
        "{TYPES}prebuilt &2 = array<array_fn> [{table}]
entry mid

graph leaf(n_0) {{
  block0(n_0: Signed):
    v1: Signed = int_add(n_0, 1)
    -> return(v1)
  returns v2: Signed
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}}

graph calls_leaf(n_0) {{
  block0(n_0: Signed):
    v1: Signed = direct_call(@leaf, n_0)
    -> return(v1)
  returns v2: Signed
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}}

graph raiser(n_0) {{
  block0(n_0: Signed):
    v1: Bool = int_gt(n_0, 2)
    switch v1
      False -> return(n_0)
      True -> except(&0, &1)
  returns v2: Signed
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}}

graph mid(argv_0) {{
  block0(argv_0: Ptr(list_rpy_string)):
    v1: Signed = direct_call(@calls_leaf, 1)
    switch last_exception
      -> block1(v1)
      &0 -> return(-1)
  block1(a_2: Signed):
    v3: Ptr(rpy_string) = direct_call($rpy_str_from_int, a_2)
    f_4: Func(Signed -> Signed) = getarrayitem(&2, 0)
    v5: Signed = indirect_call(f_4, a_2)
    v6: Signed = direct_call(@raiser, v5)
    v7: Signed = int_add(v6, 1)
    -> return(v7)
  returns v8: Signed
  raises v9: Ptr(object_vtable), v10: Ptr(object)
}}
"
    )
}

fn mid_after(table: &str) -> String {
    let p = parse_program::<LowLevel>(&program(table)).unwrap();
    let after = transform(p).unwrap();
    print_graph(after.graph("mid").unwrap())
}

#[test]
fn only_calls_that_can_raise_are_tested() {
    // The table holds a graph that never raises: only the call of `raiser`
    // is followed by a test, and the handler around `calls_leaf` is gone.
    let mid = mid_after("@leaf");
    assert_eq!(mid.matches("exc_occurred").count(), 1, "{mid}");
    assert!(!mid.contains("exc_type"), "{mid}");
    let test = mid.find("exc_occurred").unwrap();
    assert!(mid[..test].contains("@raiser"), "{mid}");
    // Once `raiser`'s address is taken, a call through any pointer of its
    // signature can raise.
    let mid = mid_after("@leaf, @raiser");
    assert_eq!(mid.matches("exc_occurred").count(), 2, "{mid}");
}

#[test]
fn the_transformed_program_behaves_the_same() {
    for table in ["@leaf", "@raiser"] {
        let p = parse_program::<LowLevel>(&program(table)).unwrap();
        let after = transform(p.clone()).unwrap();
        let argv = ["prog".to_string()];
        // The same result, or the same error (found at another place).
        let outcome =
            |r: Result<i64, rpy_llinterp::LlError>| r.map_err(|e| (e.kind, e.message, e.traceback));
        let run_before = LlInterpreter::new(&p).run_entry(&argv, &mut Vec::new());
        let run_after = LlInterpreter::new(&after).run_entry(&argv, &mut Vec::new());
        assert_eq!(outcome(run_before), outcome(run_after), "{table}");
    }
    // a = leaf(1) = 2; through the table, leaf(2) = 3 makes raiser raise,
    // uncaught; raiser(2) = 2 does not, and 2 + 1 is returned.
    let run = |table: &str| {
        let p = parse_program::<LowLevel>(&program(table)).unwrap();
        let after = transform(p).unwrap();
        let result = LlInterpreter::new(&after).run_entry(&["prog".into()], &mut Vec::new());
        result.map_err(|e| e.message)
    };
    assert_eq!(run("@leaf"), Err("ValueError".to_string()));
    assert_eq!(run("@raiser"), Ok(3));
}

#[test]
fn a_handler_must_name_a_vtable_static() {
    // `mid` catches what `raiser` raises with the function table as class.
    let text = program("@leaf").replace(
        "    v6: Signed = direct_call(@raiser, v5)\n    v7: Signed = int_add(v6, 1)\n    \
         -> return(v7)",
        "    v6: Signed = direct_call(@raiser, v5)\n    switch last_exception\n      \
         -> return(v6)\n      &2 -> return(-2)",
    );
    let p = parse_program::<LowLevel>(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let err = transform(p).unwrap_err();
    assert!(
        err.message.contains("in function 'mid'") && err.message.contains("vtable static"),
        "{}",
        err.message
    );
}

#[test]
fn a_call_under_a_handler_of_every_class_raises_nothing_out() {
    // `guarded` catches what `raiser` raises with the handler of the only
    // class, so calling `guarded` needs no test; `rethrows` passes it on.
    let text = format!(
        "{}
graph guarded(n_0) {{
  block0(n_0: Signed):
    v1: Signed = direct_call(@raiser, n_0)
    switch last_exception
      -> return(v1)
      &0 -> return(-1)
  returns v2: Signed
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}}

graph rethrows(n_0) {{
  block0(n_0: Signed):
    v1: Signed = direct_call(@raiser, n_0)
    switch last_exception
      -> return(v1)
      &0 catch(e_2: Ptr(object_vtable), v_3: Ptr(object)) -> except(e_2, v_3)
  returns v4: Signed
  raises v5: Ptr(object_vtable), v6: Ptr(object)
}}

graph top(n_0) {{
  block0(n_0: Signed):
    v1: Signed = direct_call(@guarded, n_0)
    v2: Signed = direct_call(@rethrows, v1)
    v3: Signed = int_add(v2, 1)
    -> return(v3)
  returns v4: Signed
  raises v5: Ptr(object_vtable), v6: Ptr(object)
}}
",
        program("@leaf")
    );
    let p = parse_program::<LowLevel>(&text).unwrap_or_else(|e| panic!("{e}"));
    let after = transform(p).unwrap();
    let top = print_graph(after.graph("top").unwrap());
    assert_eq!(top.matches("exc_occurred").count(), 1, "{top}");
    let test = top.find("exc_occurred").unwrap();
    assert!(top[..test].contains("@rethrows"), "{top}");
}

#[test]
fn a_call_whose_result_is_returned_is_not_tested() {
    // `tail` returns what `raiser` gives, through a cast in `cast_tail`;
    // `void_tail` ends with a call of a Void graph that raises: none of
    // them tests the state after the call (the caller does), as in the
    // original's exception transform. `used` reads the result first, and
    // tests.
    let text = format!(
        "type holder = GcStruct {{ typeptr: Ptr(object_vtable) }}
type holder2 = GcStruct {{ typeptr: Ptr(object_vtable), value: Signed }}
{}

graph tail(n_0) {{
  block0(n_0: Signed):
    v1: Signed = direct_call(@raiser, n_0)
    -> return(v1)
  returns v2: Signed
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}}

graph make(n_0) {{
  block0(n_0: Signed):
    v1: Bool = int_gt(n_0, 2)
    switch v1
      False -> block1()
      True -> except(&0, &1)
  block1():
    v2: Ptr(holder2) = malloc(#holder2)
    -> return(v2)
  returns v3: Ptr(holder2)
  raises v4: Ptr(object_vtable), v5: Ptr(object)
}}

graph cast_tail(n_0) {{
  block0(n_0: Signed):
    v1: Ptr(holder2) = direct_call(@make, n_0)
    v2: Ptr(holder) = cast_pointer(v1)
    -> return(v2)
  returns v3: Ptr(holder)
  raises v4: Ptr(object_vtable), v5: Ptr(object)
}}

graph void_raiser(n_0) {{
  block0(n_0: Signed):
    v1: Bool = int_gt(n_0, 2)
    switch v1
      False -> return(None)
      True -> except(&0, &1)
  returns v2: Void
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}}

graph void_tail(n_0) {{
  block0(n_0: Signed):
    v1: Void = direct_call(@void_raiser, n_0)
    -> return(None)
  returns v2: Void
  raises v3: Ptr(object_vtable), v4: Ptr(object)
}}

graph used(n_0) {{
  block0(n_0: Signed):
    v1: Signed = direct_call(@tail, n_0)
    v2: Signed = int_add(v1, 1)
    -> return(v2)
  returns v3: Signed
  raises v4: Ptr(object_vtable), v5: Ptr(object)
}}
",
        program("@leaf")
    );
    let p = parse_program::<LowLevel>(&text).unwrap_or_else(|e| panic!("{e}"));
    let after = transform(p.clone()).unwrap();
    for name in ["tail", "cast_tail", "void_tail"] {
        let g = print_graph(after.graph(name).unwrap());
        assert!(!g.contains("exc_occurred"), "{g}");
    }
    let used = print_graph(after.graph("used").unwrap());
    assert_eq!(used.matches("exc_occurred").count(), 1, "{used}");
    // What `used` returns, and the exception `tail` passes on, are the same
    // before and after.
    for graph in ["used", "cast_tail", "void_tail"] {
        for n in [1, 3] {
            let args = vec![rpy_llinterp::LlValue::Signed(n)];
            let before = LlInterpreter::new(&p)
                .call(graph, args.clone(), &mut Vec::new())
                .map(|v| v.kind())
                .map_err(|e| e.message);
            let after = LlInterpreter::new(&after)
                .call(graph, args, &mut Vec::new())
                .map(|v| v.kind())
                .map_err(|e| e.message);
            assert_eq!(before, after, "{graph}({n})");
            assert_eq!(after.is_err(), n == 3, "{graph}({n}): {after:?}");
        }
    }
    let result = |p| {
        LlInterpreter::new(p)
            .call(
                "used",
                vec![rpy_llinterp::LlValue::Signed(1)],
                &mut Vec::new(),
            )
            .map_err(|e| e.message)
    };
    assert_eq!(result(&after), Ok(rpy_llinterp::LlValue::Signed(2)));
}

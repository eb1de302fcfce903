//! The string runtime functions, fatal errors, the argument list and a
//! switch on a Char. (String concatenation, repetition, indexing and
//! comparison are RPython helpers, tested in passes/tests/ll_helpers.rs.)

mod common;
use common::*;
use rpy_ir::graph::Constant;
use rpy_ir::opcode::Opcode;

#[test]
fn string_functions() {
    let (mut g, ps) = G::new("entry", &[list_t()], T::Signed);
    let argv = ps[0];
    let line = |g: &mut G, x: rpy_ir::graph::Var| {
        g.print(v(x));
        g.print(s_nl());
    };
    for n in [i64::MIN, i64::MAX, 0, -123, 1_000_000] {
        let r = g.call("rpy_str_from_int", vec![int(n)], str_t());
        line(&mut g, r);
    }
    let r = g.call("rpy_str_from_char", vec![chr(b'x')], str_t());
    line(&mut g, r);
    for b in [true, false] {
        let r = g.call("rpy_str_from_bool", vec![boolean(b)], str_t());
        line(&mut g, r);
    }
    for (x, y) in [
        (3, 40),
        (2, 63),
        (2, 64),
        (-3, 3),
        (7, 0),
        (0, 0),
        (-1, 1001),
    ] {
        let r = g.call("rpy_int_pow", vec![int(x), int(y)], T::Signed);
        g.print_int(v(r));
    }
    for t in [
        " -42 ",
        "+7",
        "1_000",
        "-9223372036854775808",
        "9223372036854775807",
        "\t0\n",
    ] {
        let r = g.call("rpy_str_to_int", vec![s(t)], T::Signed);
        g.print_int(v(r));
    }
    // Bytes that need escaping in C, printed as they are; the same constant
    // twice is one C object.
    g.print(s("q\"b\\s??=\t\0z\u{e9}\n"));
    g.print(s("q\"b\\s??=\t\0z\u{e9}\n"));
    // The length of a constant string, and a string built item by item.
    let n = g.op(Opcode::Getarraysize, vec![s("four")], T::Signed);
    g.print_int(v(n));
    let n2 = g.op(
        Opcode::Getfield,
        vec![s("seven!!"), name("length")],
        T::Signed,
    );
    g.print_int(v(n2));
    let built = g.op(
        Opcode::MallocVarsize,
        vec![name("rpy_string"), int(3)],
        str_t(),
    );
    for (i, c) in b"xyz".iter().enumerate() {
        g.op(
            Opcode::Setarrayitem,
            vec![v(built), int(i as i64), chr(*c)],
            T::Void,
        );
    }
    line(&mut g, built);
    let c1 = g.op(Opcode::Getarrayitem, vec![v(built), int(1)], T::Char);
    let ci = g.op(Opcode::CastCharToInt, vec![v(c1)], T::Signed);
    g.print_int(v(ci));
    // The argument list: its length, then each argument, the last one at
    // length - 1.
    let argc = g.op(Opcode::Getfield, vec![v(argv), name("length")], T::Signed);
    g.print_int(v(argc));
    let items = g.op(
        Opcode::Getfield,
        vec![v(argv), name("items")],
        T::Ptr("array_rpy_string".into()),
    );
    let cap = g.op(Opcode::Getarraysize, vec![v(items)], T::Signed);
    g.print_int(v(cap));
    let a1 = g.op(Opcode::Getarrayitem, vec![v(items), int(1)], str_t());
    line(&mut g, a1);
    let last_index = g.op(Opcode::IntSub, vec![v(argc), int(1)], T::Signed);
    let last = g.str_list_item(v(argv), v(last_index));
    line(&mut g, last);
    let ret = g.ret();
    g.goto(ret, vec![int(3)]);

    let p = program(vec![g], base_types());
    let c = common::c_source(&p).unwrap();
    assert_eq!(
        c.matches("\"q\\\"b\\\\s\\?\\?=").count(),
        1,
        "deduplicated constant"
    );
    let exe = build(&p, "strings");
    let out = run(&exe, &["first arg", "sec\u{f6}nd"]);
    assert_eq!(out.status, 3, "{}", out.stderr);
    let expected = "-9223372036854775808\n9223372036854775807\n0\n-123\n1000000\n\
        x\nTrue\nFalse\n\
        -6289078614652622815\n-9223372036854775808\n0\n-27\n1\n1\n-1\n\
        -42\n7\n1000\n-9223372036854775808\n9223372036854775807\n0\n\
        q\"b\\s??=\t\0z\u{e9}\nq\"b\\s??=\t\0z\u{e9}\n\
        4\n7\nxyz\n121\n\
        3\n3\nfirst arg\nsec\u{f6}nd\n";
    // The constant's "\u{e9}" is an RPython str's byte 0xe9 (one byte, not
    // its UTF-8); the argument is the UTF-8 it was given.
    let expected: Vec<u8> = expected
        .split_inclusive("z\u{e9}")
        .flat_map(|part| match part.strip_suffix('\u{e9}') {
            Some(head) => head.bytes().chain([0xe9]).collect::<Vec<u8>>(),
            None => part.bytes().collect(),
        })
        .collect();
    assert_eq!(out.stdout_bytes, expected);
    assert_eq!(3i64.wrapping_pow(40), -6289078614652622815);
}

/// A one-byte string the runtime makes is the prebuilt string of its char,
/// as `str(c)` of a char is: `str(7)` allocates nothing.
#[test]
fn one_byte_strings_from_the_runtime_are_prebuilt() {
    let (mut g, _) = G::new("entry", &[list_t()], T::Signed);
    let digit = g.call("rpy_str_from_int", vec![int(7)], str_t());
    let char_string = g.call("rpy_str_from_char", vec![chr(b'7')], str_t());
    let same = g.op(Opcode::PtrEq, vec![v(digit), v(char_string)], T::Bool);
    let same = g.op(Opcode::CastBoolToInt, vec![v(same)], T::Signed);
    g.print_int(v(same));
    let ret = g.ret();
    g.goto(ret, vec![int(0)]);
    let exe = build(&program(vec![g], base_types()), "one_byte_strings");
    let out = run::<&str>(&exe, &[]);
    assert_eq!(out.stdout, "1\n", "{}", out.stderr);
}

#[test]
fn fatal_errors_and_char_switch() {
    // entry(argv): print "before"; switch argv[1][0]: 'i' -> int(argv[2]),
    // 'g' -> argv[2][10], 'z' -> 1 // int(argv[2]), otherwise return 7.
    // (Indexes are not checked: every run below passes what is read.)
    let (mut g, ps) = G::new("entry", &[list_t()], T::Signed);
    let argv = ps[0];
    g.print(s("before\n"));
    let a1 = g.str_list_item(v(argv), int(1));
    let mode = g.op(Opcode::Getarrayitem, vec![v(a1), int(0)], T::Char);
    let mut cases = Vec::new();
    let mut blocks = Vec::new();
    for c in [b'i', b'g', b'z'] {
        let (b, bv) = g.block(&[list_t()]);
        cases.push((Some(Constant::Char(c)), b, vec![v(argv)]));
        blocks.push((c, b, bv[0]));
    }
    let ret = g.ret();
    cases.push((Some(Constant::Name("default".into())), ret, vec![int(7)]));
    g.switch(v(mode), cases);
    for (c, b, a) in blocks {
        g.cur = b;
        let a2 = g.str_list_item(v(a), int(2));
        match c {
            b'i' => {
                let n = g.call("rpy_str_to_int", vec![v(a2)], T::Signed);
                g.print_int(v(n));
            }
            b'g' => {
                let ch = g.op(Opcode::Getarrayitem, vec![v(a2), int(10)], T::Char);
                let r = g.call("rpy_str_from_char", vec![v(ch)], str_t());
                g.print(v(r));
            }
            b'z' => {
                let n = g.call("rpy_str_to_int", vec![v(a2)], T::Signed);
                let q = g.op(Opcode::IntPyDiv, vec![int(1), v(n)], T::Signed);
                g.print_int(v(q));
            }
            _ => unreachable!("one block per case"),
        }
        g.goto(ret, vec![int(0)]);
    }
    let exe = build(&program(vec![g], base_types()), "fatal");
    let fatal = |args: &[&str], msg: &str| {
        let out = run(&exe, args);
        assert_eq!(out.status, 1, "{args:?}: {}", out.stderr);
        assert_eq!(out.stdout, "before\n", "{args:?}");
        assert_eq!(
            out.stderr,
            format!("fatal RPython error: {msg}\n"),
            "{args:?}"
        );
    };
    fatal(
        &["i", "abc"],
        "ValueError: invalid literal for int() with base 10: 'abc'",
    );
    fatal(
        &["i", "it's"],
        "ValueError: invalid literal for int() with base 10: \"it's\"",
    );
    fatal(
        &["i", " 1 2"],
        "ValueError: invalid literal for int() with base 10: ' 1 2'",
    );
    fatal(
        &["i", "1__0"],
        "ValueError: invalid literal for int() with base 10: '1__0'",
    );
    fatal(
        &["i", "9223372036854775808"],
        "ValueError: invalid literal for int() with base 10: '9223372036854775808'",
    );
    fatal(
        &["i", "-9223372036854775809"],
        "ValueError: invalid literal for int() with base 10: '-9223372036854775809'",
    );
    fatal(
        &["i", ""],
        "ValueError: invalid literal for int() with base 10: ''",
    );
    fatal(
        &["i", "\t+"],
        "ValueError: invalid literal for int() with base 10: '\\t+'",
    );
    fatal(
        &["z", "0"],
        "ZeroDivisionError: integer division or modulo by zero",
    );
    let out = run(&exe, &["i", " -17\n"]);
    assert_eq!((out.status, out.stdout.as_str()), (0, "before\n-17\n"));
    let out = run(&exe, &["g", "0123456789abc"]);
    assert_eq!((out.status, out.stdout.as_str()), (0, "before\na"));
    let out = run(&exe, &["q"]);
    assert_eq!((out.status, out.stdout.as_str()), (7, "before\n"));
}

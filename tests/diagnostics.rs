//! Bad input: every error names file:line:column, says what is wrong in a plain
//! sentence, exits with status 1, and never panics or leaves an output file.

mod support;

use std::process::Command;

/// Runs `rpy translate` on `source` and returns (stderr, status, whether an
/// output file was written).
fn translate(name: &str, source: &str, flag: &str) -> (String, i32, bool) {
    translate_bytes(name, source.as_bytes(), &[flag])
}

/// `translate` of raw bytes (a binary file, bad UTF-8), with `flags`.
fn translate_bytes(name: &str, source: &[u8], flags: &[&str]) -> (String, i32, bool) {
    let dir = support::ScratchDir::new(&format!("diag-{name}"));
    let file = dir.join(format!("{name}.py"));
    std::fs::write(&file, source).unwrap();
    let exe = dir.join(name);
    let out = Command::new(env!("CARGO_BIN_EXE_rpy"))
        .arg("translate")
        .args(flags)
        .arg(&file)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).replace(&*dir.to_string_lossy(), "DIR");
    (stderr, out.status.code().unwrap_or(-1), exe.exists())
}

fn check(name: &str, source: &str, flag: &str) -> String {
    let (stderr, status, written) = translate(name, source, flag);
    assert_eq!(status, 1, "{name}: exit status; stderr:\n{stderr}");
    assert!(!written, "{name}: an output file was written");
    assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    assert!(
        stderr.starts_with(&format!("DIR/{name}.py:")),
        "{name}: no file:line:col: {stderr}"
    );
    stderr
}

macro_rules! diagnostic_test {
    ($name:ident, $flag:literal, $source:expr) => {
        #[test]
        fn $name() {
            let stderr = check(stringify!($name), $source, $flag);
            insta::with_settings!({
                snapshot_path => support::root().join("snapshots"),
                prepend_module_to_snapshot => false,
                omit_expression => true,
            }, {
                insta::assert_snapshot!(concat!("diagnostic__", stringify!($name)), stderr);
            });
        }
    };
}

const ENTRY: &str = "\ndef target(*args):\n    return entry_point\n";

diagnostic_test!(
    syntax_error,
    "--py3",
    "def entry_point(argv):\n    x = (1 +\n    return 0\n"
);

diagnostic_test!(
    bad_indentation,
    "--py2",
    "def entry_point(argv):\n        x = 1\n    return x\n"
);

// Classes: defined at module level, with fixed attributes, no metaclasses.

diagnostic_test!(
    class_inside_a_function,
    "--py3",
    &format!("def entry_point(argv):\n    class A(object):\n        pass\n    return 0\n{ENTRY}")
);

diagnostic_test!(
    class_attribute_defined_conditionally,
    "--py2",
    &format!(
        "import sys\n\nclass Config(object):\n    if len(sys.argv) > 5:\n        verbose = True\n\n    def show(self):\n        return 0\n\ndef entry_point(argv):\n    return Config().show()\n{ENTRY}"
    )
);

diagnostic_test!(
    class_with_getattr,
    "--py3",
    &format!(
        "class Proxy(object):\n    def __getattr__(self, name):\n        return 0\n\ndef entry_point(argv):\n    return Proxy().size\n{ENTRY}"
    )
);

diagnostic_test!(
    super_call,
    "--py3",
    &format!(
        "class A(object):\n    def __init__(self):\n        self.x = 1\n\nclass B(A):\n    def __init__(self):\n        super().__init__()\n\ndef entry_point(argv):\n    return B().x\n{ENTRY}"
    )
);

diagnostic_test!(
    class_derives_from_a_builtin_type,
    "--py3",
    &format!(
        "class Stack(list):\n    pass\n\ndef entry_point(argv):\n    return len(Stack())\n{ENTRY}"
    )
);

diagnostic_test!(
    class_with_metaclass,
    "--py2",
    &format!(
        "class Meta(type):\n    pass\n\nclass A(object):\n    __metaclass__ = Meta\n\ndef entry_point(argv):\n    return 0\n{ENTRY}"
    )
);

diagnostic_test!(
    class_nested_in_a_class,
    "--py3",
    &format!(
        "class Outer(object):\n    class Inner(object):\n        pass\n\ndef entry_point(argv):\n    return 0\n{ENTRY}"
    )
);

diagnostic_test!(
    int_and_str_mixed,
    "--py3",
    &format!(
        "def entry_point(argv):\n    x = 1\n    if len(argv) > 1:\n        x = 'one'\n    print(x)\n    return 0\n{ENTRY}"
    )
);

diagnostic_test!(
    str_plus_int,
    "--py2",
    &format!("def entry_point(argv):\n    print 'n = ' + len(argv)\n    return 0\n{ENTRY}")
);

diagnostic_test!(
    undefined_name,
    "--py3",
    &format!("def entry_point(argv):\n    return undefined_thing(3)\n{ENTRY}")
);

diagnostic_test!(
    missing_target,
    "--py3",
    "def entry_point(argv):\n    return 0\n"
);

diagnostic_test!(
    entry_returns_float,
    "--py3",
    &format!("def entry_point(argv):\n    return 1.5\n{ENTRY}")
);

diagnostic_test!(
    entry_takes_two_arguments,
    "--py3",
    &format!("def entry_point(argv, extra):\n    return 0\n{ENTRY}")
);

diagnostic_test!(
    call_never_returns,
    "--py3",
    &format!(
        "def spin(x):\n    return spin(x)\n\ndef entry_point(argv):\n    print(spin(1))\n    return 0\n{ENTRY}"
    )
);

diagnostic_test!(
    unpack_count_mismatch,
    "--py3",
    &format!("def entry_point(argv):\n    a, b = 1, 2, 3\n    return a + b\n{ENTRY}")
);

diagnostic_test!(
    slice_with_step,
    "--py2",
    &format!("def entry_point(argv):\n    print argv[::2]\n    return 0\n{ENTRY}")
);

diagnostic_test!(
    dict_comprehension,
    "--py3",
    &format!(
        "def entry_point(argv):\n    d = {{a: len(a) for a in argv}}\n    return len(d)\n{ENTRY}"
    )
);

// Calls: keyword arguments and defaults are bound while building.

diagnostic_test!(
    keyword_argument_unknown,
    "--py3",
    &format!(
        "def area(width, height=1):\n    return width * height\n\ndef entry_point(argv):\n    return area(3, depth=2)\n{ENTRY}"
    )
);

diagnostic_test!(
    keyword_argument_to_unknown_callee,
    "--py3",
    &format!("def entry_point(argv):\n    f = len\n    return f(argv, start=1)\n{ENTRY}")
);

diagnostic_test!(
    method_defaults_differ,
    "--py2",
    &format!(
        "class A(object):\n    def show(self, prefix='a'):\n        return prefix\n\nclass B(object):\n    def show(self, prefix='b'):\n        return prefix\n\ndef entry_point(argv):\n    x = A()\n    print x.show()\n    return 0\n{ENTRY}"
    )
);

diagnostic_test!(
    jit_merge_point_misses_a_variable,
    "--py3",
    &format!(
        "from rpython.rlib.jit import JitDriver\n\ndriver = JitDriver(greens=['pc'], reds=['acc'])\n\ndef entry_point(argv):\n    pc = 0\n    acc = 0\n    while pc < 3:\n        driver.jit_merge_point(pc=pc)\n        acc += pc\n        pc += 1\n    return acc\n{ENTRY}"
    )
);

diagnostic_test!(
    class_attribute_assigned_in_translated_code,
    "--py3",
    &format!(
        "class Config(object):\n    level = 0\n\ndef entry_point(argv):\n    Config.level = len(argv)\n    return 0\n{ENTRY}"
    )
);

// Containers: a list or dict whose items would hold itself has no finite
// annotation (the fuzzer found the annotator recursing forever on these).

diagnostic_test!(
    list_that_holds_itself,
    "--py3",
    &format!("def entry_point(argv):\n    l = []\n    l.append(l)\n    return len(l)\n{ENTRY}")
);

diagnostic_test!(
    dict_that_holds_itself_through_a_list,
    "--py2",
    &format!(
        "def entry_point(argv):\n    d = {{}}\n    d[\"k\"] = [d]\n    return len(d)\n{ENTRY}"
    )
);

// Exceptions: what RPython cannot raise or catch.

diagnostic_test!(
    raise_not_a_class,
    "--py3",
    &format!("def entry_point(argv):\n    if len(argv) > 3:\n        raise 'too many arguments'\n    return 0\n{ENTRY}")
);

diagnostic_test!(
    except_class_not_constant,
    "--py3",
    &format!(
        "def pick(n):\n    return ValueError\n\ndef entry_point(argv):\n    try:\n        return int(argv[0])\n    except pick(1):\n        return 1\n{ENTRY}"
    )
);

diagnostic_test!(
    bare_raise_outside_except,
    "--py2",
    &format!("def entry_point(argv):\n    if len(argv) > 3:\n        raise\n    return 0\n{ENTRY}")
);

diagnostic_test!(
    raise_with_traceback,
    "--py2",
    &format!(
        "def entry_point(argv):\n    if len(argv) > 3:\n        raise ValueError, 'x', None\n    return 0\n{ENTRY}"
    )
);

// Import time: module-level code runs first; afterwards globals are constants.

diagnostic_test!(
    global_assigned_in_translated_code,
    "--py2",
    &format!(
        "COUNT = 0\n\ndef bump():\n    global COUNT\n    COUNT = COUNT + 1\n    return COUNT\n\ndef entry_point(argv):\n    return bump()\n{ENTRY}"
    )
);

diagnostic_test!(
    def_inside_a_function,
    "--py3",
    &format!(
        "def entry_point(argv):\n    def helper(x, step=1):\n        return x + step\n    return helper(len(argv))\n{ENTRY}"
    )
);

diagnostic_test!(
    module_level_code_raises,
    "--py3",
    &format!(
        "TABLE = [1, 2, 3]\nFOURTH = TABLE[3]\n\ndef entry_point(argv):\n    return FOURTH\n{ENTRY}"
    )
);

diagnostic_test!(
    import_of_a_missing_module,
    "--py3",
    &format!("import numbers_helper\n\ndef entry_point(argv):\n    return 0\n{ENTRY}")
);

diagnostic_test!(
    import_of_an_rpython_module_rpy_lacks,
    "--py2",
    &format!("import rpython.rlib.rnothing\n\ndef entry_point(argv):\n    return 0\n{ENTRY}")
);

// An import inside a function is resolved when translation reaches it:
// the error names the function's import, not the module's first line.
diagnostic_test!(
    import_of_a_missing_module_in_a_translated_function,
    "--py2",
    &format!("def load():\n    from numbers_helper import value\n    return value\n\ndef entry_point(argv):\n    return load()\n{ENTRY}")
);

diagnostic_test!(
    exec_in_translated_code,
    "--py2",
    &format!("def entry_point(argv):\n    exec 'x = 1'\n    return 0\n{ENTRY}")
);

diagnostic_test!(
    target_returns_no_function,
    "--py3",
    "LIMIT = 3\n\ndef entry_point(argv):\n    return 0\n\ndef target(driver, args):\n    return LIMIT\n"
);

diagnostic_test!(
    starred_assignment_target,
    "--py3",
    &format!("def entry_point(argv):\n    first, *rest = argv\n    return len(rest)\n{ENTRY}")
);

diagnostic_test!(
    import_from_mixin_of_an_unknown_class,
    "--py2",
    &format!("from rpython.rlib.objectmodel import import_from_mixin\n\nclass A(object):\n    import_from_mixin(Missing)\n\ndef entry_point(argv):\n    return 0\n{ENTRY}")
);

// Generators: iterated only, in translated code.

diagnostic_test!(
    generator_send,
    "--py3",
    &format!(
        "def numbers():\n    yield 1\n\ndef entry_point(argv):\n    gen = numbers()\n    next(gen)\n    gen.send(5)\n    return 0\n{ENTRY}"
    )
);

diagnostic_test!(
    generator_returns_a_value,
    "--py3",
    &format!(
        "def numbers(n):\n    yield n\n    return n + 1\n\ndef entry_point(argv):\n    for x in numbers(2):\n        print(x)\n    return 0\n{ENTRY}"
    )
);

diagnostic_test!(
    generator_at_import_time,
    "--py2",
    &format!(
        "def numbers():\n    yield 1\n    yield 2\n\nTABLE = []\nfor n in numbers():\n    TABLE.append(n)\n\ndef entry_point(argv):\n    return len(TABLE)\n{ENTRY}"
    )
);

diagnostic_test!(
    yield_inside_an_expression,
    "--py2",
    &format!("def numbers():\n    print (yield 1)\n\ndef entry_point(argv):\n    for x in numbers():\n        pass\n    return 0\n{ENTRY}")
);

diagnostic_test!(
    yield_from,
    "--py3",
    &format!("def inner():\n    yield 1\n\ndef outer():\n    yield 0\n    yield from inner()\n\ndef entry_point(argv):\n    for x in outer():\n        print(x)\n    return 0\n{ENTRY}")
);

/// An error in an imported module names that module's file.
#[test]
fn error_in_an_imported_module_names_its_file() {
    let name = "imported_module_error";
    let dir = support::ScratchDir::new(&format!("diag-{name}"));
    std::fs::write(
        dir.join("counter.py"),
        "TOTAL = 0\n\ndef add(n):\n    global TOTAL\n    TOTAL = TOTAL + n\n    return TOTAL\n",
    )
    .unwrap();
    let main = format!(
        "import counter\n\ndef entry_point(argv):\n    return counter.add(len(argv))\n{ENTRY}"
    );
    let (stderr, status, written) = translate(name, &main, "--py3");
    assert_eq!(status, 1, "stderr:\n{stderr}");
    assert!(!written);
    assert!(stderr.starts_with("DIR/counter.py:5:5:"), "{stderr}");
    insta::with_settings!({
        snapshot_path => support::root().join("snapshots"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!("diagnostic__imported_module_error", stderr);
    });
}

diagnostic_test!(
    class_derives_from_an_earlier_class_of_its_name,
    "--py3",
    &format!("class A(object):\n    pass\nclass A(A):\n    pass\ndef entry_point(argv):\n    A()\n    return 0\n{ENTRY}")
);

#[test]
fn an_error_on_a_long_line_shows_a_window_around_the_column() {
    // 200 KB on one line, the error near its middle.
    let padding = "a".repeat(100_000);
    let source = format!(
        "def entry_point(argv):\n    x = ['{padding}', undefined_name, '{padding}']\n    return 0\n{ENTRY}"
    );
    let stderr = check("long_line", &source, "--py3");
    assert!(stderr.len() < 1_000, "{} bytes of stderr", stderr.len());
    let lines: Vec<&str> = stderr.lines().collect();
    let caret = lines[2].find('^').unwrap();
    assert!(lines[1][caret..].starts_with("undefined_name"), "{stderr}");
}

#[test]
fn control_bytes_of_a_binary_file_are_escaped() {
    let (stderr, status, written) = translate_bytes(
        "binary",
        b"def entry_point(argv):\n    x = \x1b[2J\x07\x00\x01\n",
        &[],
    );
    assert_eq!(status, 1, "{stderr}");
    assert!(!written);
    assert!(
        !stderr.bytes().any(|b| b < 0x20 && b != b'\n' && b != b'\t'),
        "{stderr:?}"
    );
    assert!(stderr.contains("\\x1b"), "{stderr}");
}

#[test]
fn invalid_utf8_is_reported_at_its_byte() {
    let (stderr, status, written) =
        translate_bytes("latin", b"# a comment\nx = '\xe9t\xe9'\n", &[]);
    assert_eq!(status, 1, "{stderr}");
    assert!(!written);
    assert!(
        stderr.starts_with("DIR/latin.py:2:6: error: invalid UTF-8 at byte 17 (0xe9)"),
        "{stderr}"
    );
    assert!(!stderr.contains('\u{fffd}'), "{stderr}");
}

#[test]
fn an_rtyper_error_points_at_the_expression_and_names_what_it_cannot_represent() {
    // It used to point at `def entry_point` and speak of "a value in
    // entry_point()" and "a choice of 2 prebuilt objects".
    let stderr = check(
        "rtyper_choice",
        "class A(object):
    pass
def g():
    return A()
def entry_point(argv):
    n = len(argv)
    print((A if n > 1 else g)() is None)
    return 0
def target(*a):
    return entry_point, None
",
        "--py3",
    );
    assert_eq!(
        stderr,
        "DIR/rtyper_choice.py:7:11: error: the value of this expression in entry_point(): \
the rtyper cannot represent a choice between the function g and the class __main__.A yet
 7 |     print((A if n > 1 else g)() is None)
   |           ^
"
    );
}

// A function defined inside a translated function may not read its
// variables: only factories run at import time make closures.
diagnostic_test!(
    nested_def_in_translated_code,
    "--py3",
    &format!("def entry_point(argv):\n    n = len(argv)\n    def add(x):\n        return x + n\n    return add(1)\n{ENTRY}")
);

// The factory never assigned the name its closure reads.
diagnostic_test!(
    closure_cell_never_assigned,
    "--py3",
    &format!("def make(flag):\n    def get():\n        return value\n    if flag:\n        value = 1\n    return get\n\nget = make(False)\n\ndef entry_point(argv):\n    return get()\n{ENTRY}")
);

// getattr() translates only with a name known while building.
diagnostic_test!(
    getattr_with_a_run_time_name,
    "--py3",
    &format!("class A(object):\n    x = 1\n\ndef entry_point(argv):\n    return getattr(A(), argv[0])\n{ENTRY}")
);

// target(): run at import time, as the original runs it before flowing.

// A target that sets module globals (targetvarsized.py's `global
// functions`, filled by exec'ing a source file) and cannot run: its
// errors, and why they matter, not the entry point's "name 'functions'
// is not defined".
diagnostic_test!(
    target_sets_globals_but_cannot_run,
    "--py2",
    "def entry_point(argv):\n    for f in functions:\n        f()\n    return 0\n\ndef target(driver, args, config):\n    global functions\n    functions = []\n    exec('def g(): pass')\n    return entry_point, None\n"
);

// A target made by a factory (targetrpystone.py's `entry_point, target,
// run = make_target_definition(LOOPS)`) is called; an entry point made by
// one is reported.
diagnostic_test!(
    target_returns_a_closure,
    "--py2",
    "def make(n):\n    def entry_point(argv):\n        print n\n        return 0\n    def target(*args):\n        return entry_point, None\n    return entry_point, target\n\nentry_point, target = make(3)\n"
);

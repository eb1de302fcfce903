//! The annotator on small programs: the annotations it infers, the errors
//! it reports (with where each conflicting annotation came from), and
//! `explain`.

use super::{annotate, explain};
use crate::flow::build_flow;
use crate::parse::parse_module;
use crate::simplify::simplify_program;
use rpy_ir::annotation::{Desc, SomeValue};
use rpy_ir::ast::Dialect;
use rpy_ir::graph::{Flow, Program};
use rpy_ir::opcode::Opcode;

const TARGET: &str = "\n\ndef target(*args):\n    return entry_point, None\n";

fn flow(body: &str) -> Program<Flow> {
    let text = format!("{body}{TARGET}");
    let module = parse_module("t.py", &text, Dialect::Py3).unwrap_or_else(|d| panic!("{d}"));
    let mut program = build_flow(&module, &text).unwrap_or_else(|d| panic!("{d}"));
    simplify_program(&mut program);
    program
}

/// The annotation of the variable `name` in function `func` (joined over
/// its SSA copies that are defined).
fn annotation_of(body: &str, func: &str, name: &str) -> SomeValue {
    let program = flow(body);
    let annotated = annotate(program, Dialect::Py3).unwrap_or_else(|d| panic!("{d}"));
    let g = annotated.graph(func).unwrap();
    let mut found = SomeValue::Impossible;
    for v in &g.vars {
        if v.name.as_deref() == Some(name) && v.info != SomeValue::Impossible {
            found = super::union(&found, &v.info).unwrap_or(SomeValue::Object);
        }
    }
    found
}

fn error_of(body: &str) -> String {
    let program = flow(body);
    match annotate(program, Dialect::Py3) {
        Ok(_) => panic!("annotated without an error:\n{body}"),
        Err(d) => d.to_string(),
    }
}

#[test]
fn a_list_item_generalized_through_one_alias_is_seen_by_every_alias() {
    let body = "def fill(l):\n    l.append(-1)\n    return 0\n\n\
                def entry_point(argv):\n    xs = [1, 2]\n    ys = xs\n    fill(ys)\n    \
                first = xs[0]\n    return first\n";
    let first = annotation_of(body, "entry_point", "first");
    assert_eq!(first, SomeValue::int(), "{first}");
    let xs = annotation_of(body, "entry_point", "xs");
    let SomeValue::List(def) = xs else {
        panic!("{xs}")
    };
    assert!(def.resizable);
    assert_eq!(*def.item, SomeValue::int());
}

// The concatenation is of a constant and a variable: two constants fold
// while the flow graph is built.
#[test]
fn constants_carry_no_nul_and_concatenation_keeps_it() {
    let body =
        "def entry_point(argv):\n    s = \"ab\"\n    t = s + argv[0]\n    print(t)\n    return 0\n";
    assert_eq!(
        annotation_of(body, "entry_point", "t"),
        SomeValue::String {
            can_be_none: false,
            no_nul: true
        }
    );
}

#[test]
fn the_str_methods_of_the_language_are_typed() {
    let body = "def entry_point(argv):\n    s = argv[0]\n    \
                parts = s.rsplit(\",\", 1)\n    \
                at = s.find(\"a\", 1) + s.rfind(\"b\", 0, 3) + s.count(\"c\", 2)\n    \
                flags = s.isalnum() or s.isupper() or s.islower()\n    \
                swapped = s.replace(\"ab\", \"cd\")\n    \
                print(parts[0] + swapped + str(at) + str(flags))\n    return 0\n";
    let no_nul_str = SomeValue::String {
        can_be_none: false,
        no_nul: true,
    };
    let SomeValue::List(parts) = annotation_of(body, "entry_point", "parts") else {
        panic!("rsplit gives a list")
    };
    assert_eq!(*parts.item, no_nul_str);
    assert_eq!(annotation_of(body, "entry_point", "at"), SomeValue::int());
    assert_eq!(annotation_of(body, "entry_point", "flags"), SomeValue::Bool);
    // Replacing with a string free of NULs in one free of NULs keeps it so.
    assert_eq!(annotation_of(body, "entry_point", "swapped"), no_nul_str);
}

/// A char's lower() is a char, so `ord()` takes it; in Python 3 its
/// upper() is a str ('ß'.upper() is 'SS'), and `ord()` of that says so.
#[test]
fn a_chars_lower_is_a_char_and_its_python3_upper_a_str() {
    let body = "def entry_point(argv):\n    s = argv[0]\n    low = s[0].lower()\n    \
                up = s[0].upper()\n    print(ord(low))\n    print(up)\n    return 0\n";
    assert_eq!(annotation_of(body, "entry_point", "low"), SomeValue::Char);
    assert!(matches!(
        annotation_of(body, "entry_point", "up"),
        SomeValue::String { .. }
    ));
    let err =
        error_of("def entry_point(argv):\n    print(ord(argv[0][0].upper()))\n    return 0\n");
    assert!(
        err.contains("ord() cannot be applied to a str in RPython: it needs a char"),
        "{err}"
    );
    assert!(err.contains("'ß'.upper() is 'SS'"), "{err}");
}

/// A variable may hold the last exception caught or None; an exception
/// raised again by a `finally` reaches an outer handler as the handler's
/// class only.
#[test]
fn a_caught_exception_joins_none_and_a_reraised_one_narrows_to_its_handler() {
    let body = "class Short(Exception):\n    def __init__(self, n):\n        self.n = n\n\n\
                def take(d, k):\n    d[k] -= 1\n    if d[k] < 0:\n        raise Short(d[k])\n\n\
                def entry_point(argv):\n    d = {'a': 1}\n    last = None\n    \
                for i in range(3):\n        try:\n            try:\n                \
                take(d, 'a')\n            finally:\n                print(i)\n        \
                except Short as e:\n            short = e.n\n            last = e\n    \
                if last is not None:\n        print(last.n)\n    return 0\n";
    assert_eq!(
        annotation_of(body, "entry_point", "last"),
        SomeValue::Exception {
            classes: vec!["__main__.Short".into()],
            can_be_none: true,
        }
    );
    assert_eq!(
        annotation_of(body, "entry_point", "short"),
        SomeValue::int()
    );
}

/// A comparison with a non-negative int makes the other operand
/// non-negative on the branch where it is not below it, as the original's
/// annotator has it: `i >= 0` true, `i < 0` false, `k == n` true.
#[test]
fn a_comparison_with_a_nonnegative_int_narrows_the_other_operand() {
    let body = "def f(i, n):\n    if i >= 0:\n        ge = i\n    else:\n        ge = 0\n    \
                if i < 0:\n        lt = 0\n    else:\n        lt = i\n    \
                if n == len([1]):\n        eq = n\n    else:\n        eq = 0\n    \
                if i > n:\n        gt = i\n    else:\n        gt = 0\n    \
                return ge + lt + eq + gt\n\n\
                def entry_point(argv):\n    return f(len(argv) - 2, 1 - len(argv))\n";
    let nonneg = SomeValue::Integer {
        nonneg: true,
        unsigned: false,
    };
    for name in ["ge", "lt", "eq"] {
        assert_eq!(annotation_of(body, "f", name), nonneg, "{name}");
    }
    // n may be negative: i > n says nothing.
    assert_eq!(annotation_of(body, "f", "gt"), SomeValue::int());
}

#[test]
fn a_prebuilt_object_is_frozen_only_when_its_freeze_returns_true() {
    let program = |answer: &str| {
        format!(
            "class C(object):\n    def __init__(self, n):\n        self.n = n\n    \
             def _freeze_(self):\n        return {answer}\n\n\
             ONE = C(1)\nTWO = C(2)\n\n\
             def entry_point(argv):\n    c = ONE if len(argv) else TWO\n    k = c.n\n    \
             print(k)\n    return 0\n"
        )
    };
    let frozen = program("True");
    let c = annotation_of(&frozen, "entry_point", "c");
    assert!(
        matches!(&c, SomeValue::Pbc { descs, can_be_none: false }
            if descs.len() == 2 && descs.iter().all(|d| matches!(d, Desc::Frozen(_)))),
        "{c}"
    );
    assert_eq!(
        annotation_of(&frozen, "entry_point", "k"),
        SomeValue::nonneg_int()
    );
    assert_eq!(
        annotation_of(&program("False"), "entry_point", "c"),
        instance("C")
    );
}

#[test]
fn only_what_the_entry_point_reaches_is_kept_and_runtime_hooks_are_reached() {
    let body = "from rpython.rlib.jit import JitDriver\n\n\
                def location(pc):\n    return \"pc \" + str(pc)\n\n\
                driver = JitDriver(greens=[\"pc\"], reds=[\"n\"], get_printable_location=location)\n\n\
                def setup(k):\n    return k * 2\n\nTABLE = [setup(1)]\n\n\
                class Handle(object):\n    def __init__(self, fd):\n        self.fd = fd\n    \
                def __del__(self):\n        self.fd = -1\n\n\
                def entry_point(argv):\n    pc = 0\n    n = len(argv)\n    h = Handle(n)\n    \
                while pc < n:\n        driver.jit_merge_point(pc=pc, n=n)\n        pc += 1\n    \
                return TABLE[0] + h.fd\n";
    let program = flow(body);
    let annotated = annotate(program, Dialect::Py3).unwrap_or_else(|d| panic!("{d}"));
    assert!(annotated.graph("setup").is_none(), "import time only");
    let location = annotated.graph("location").expect("the JIT calls it");
    assert_eq!(
        *location.info(location.params()[0]),
        SomeValue::nonneg_int()
    );
    let del = annotated.graph("Handle.__del__").expect("the GC calls it");
    assert_eq!(*del.info(del.params()[0]), instance("Handle"));
}

#[test]
fn what_no_run_reaches_is_cut_and_a_call_that_never_returns_raises() {
    let body = "def fail(n):\n    raise ValueError\n\n\
                def entry_point(argv):\n    total = 0\n    for x in []:\n        total += x\n    \
                if len(argv) > 5:\n        fail(1)\n        total = 3\n    return total\n";
    let program = flow(body);
    let annotated = annotate(program, Dialect::Py3).unwrap_or_else(|d| panic!("{d}"));
    let g = annotated.graph("entry_point").unwrap();
    for block in &g.blocks {
        for v in &block.inputargs {
            assert_ne!(
                *g.info(*v),
                SomeValue::Impossible,
                "{}",
                rpy_ir::text::print_graph(g)
            );
        }
    }
    // The loop body over the empty list and what follows fail(1) are gone;
    // each place the program cannot go past raises AssertionError.
    let text = rpy_ir::text::print_graph(g);
    assert!(!text.contains("return(3)"), "{text}");
    assert_eq!(
        text.matches("simple_call(%AssertionError)").count(),
        2,
        "{text}"
    );
}

#[test]
fn isinstance_of_a_builtin_type_is_known_from_the_annotation() {
    // Each copy keeps only its own type's branch: len() of an int or + of
    // a str and an int would not annotate.
    let body = "from rpython.rlib.objectmodel import specialize\n\n\
                @specialize.argtype(0)\ndef size(x):\n    if isinstance(x, int):\n        \
                return x + 1\n    if isinstance(x, bool):\n        return 0\n    return len(x)\n\n\
                def entry_point(argv):\n    return size(len(argv)) + size(argv[0])\n";
    let program = flow(body);
    let annotated = annotate(program, Dialect::Py3).unwrap_or_else(|d| panic!("{d}"));
    for copy in ["size__int", "size__str"] {
        let g = annotated.graph(copy).unwrap();
        let text = rpy_ir::text::print_graph(g);
        assert!(!text.contains("switch"), "one branch only:\n{text}");
    }
}

/// A helper first flowed with a known string and later with any string:
/// the bound method `src.find` it read from the known string generalizes
/// to the method of any string (it used to be a conflict of two `find`s).
#[test]
fn a_method_of_a_known_string_generalizes_with_its_receiver() {
    let body = "def count_lines(src):\n    n = 0\n    i = 0\n    while i < len(src):\n        \
                end = src.find(\"\\n\", i)\n        if end < 0:\n            break\n        \
                n += 1\n        i = end + 1\n    return n\n\n\
                def run(src):\n    return count_lines(src)\n\n\
                def entry_point(argv):\n    n = run(\"a\\nb\\n\")\n    \
                for s in [\"x\\n\", \"y\"]:\n        n += run(s)\n    return n\n";
    assert_eq!(annotation_of(body, "count_lines", "end"), SomeValue::int());
}

/// As in the original, looking a key up generalizes the dict's keys and
/// looking an item up generalizes the list's items: a dict built with
/// one-char keys and looked up with any string has string keys (it used to
/// stay a dict of chars, which the rtyper could not look a string up in).
#[test]
fn a_key_looked_up_generalizes_the_keys_of_the_dict() {
    let string = |v: &SomeValue| {
        matches!(
            v,
            SomeValue::String {
                can_be_none: false,
                ..
            }
        )
    };
    for lookup in [
        "k in table",
        "table[k]",
        "table.get(k, 0)",
        "table.pop(k, 0)",
        "table.pop(k)",
    ] {
        let body = format!(
            "def entry_point(argv):\n    table = {{\"a\": 1, \"b\": 2}}\n    \
             k = argv[0]\n    x = {lookup}\n    return 0\n"
        );
        let table = annotation_of(&body, "entry_point", "table");
        let SomeValue::Dict(def) = table else {
            panic!("{table}")
        };
        assert!(string(&def.key), "{lookup}: {}", def.key);
    }
    for lookup in [
        "k in letters",
        "letters.index(k)",
        "letters.count(k)",
        "letters.remove(k)",
    ] {
        let body = format!(
            "def entry_point(argv):\n    letters = [\"a\", \"b\"]\n    \
             k = argv[0]\n    x = {lookup}\n    return 0\n"
        );
        let letters = annotation_of(&body, "entry_point", "letters");
        let SomeValue::List(def) = letters else {
            panic!("{letters}")
        };
        assert!(string(&def.item), "{lookup}: {}", def.item);
    }
}

/// The classes handed to the rtyper have their attributes' lists brought
/// up to date: a prebuilt instance's empty list that the program appends
/// strings to is a list of strs there (it was the list of nothing it was
/// when first seen, and the rtyper typed the field `list_void`).
#[test]
fn exported_class_attributes_have_their_lists_up_to_date() {
    let body = "class Stats(object):\n    def __init__(self):\n        self.names = []\n\n\
                STATS = Stats()\n\n\
                def entry_point(argv):\n    STATS.names.append(argv[0])\n    \
                return len(STATS.names)\n";
    let annotated = annotated(body);
    let stats = annotated
        .facts
        .classdefs
        .iter()
        .find(|c| c.name == "t.Stats" || c.name.ends_with(".Stats"))
        .expect("the class Stats");
    let names = &stats.attrs.iter().find(|(n, _)| n == "names").unwrap().1;
    let SomeValue::List(def) = names else {
        panic!("{names}")
    };
    assert!(matches!(*def.item, SomeValue::String { .. }), "{names}");
}

/// A prebuilt tuple in a table of tuples is handed to the rtyper as the
/// table's item: ("x", "1") in a list that also holds ("yy", "22") is a
/// tuple of strs, not of chars (the rtyper built it as a tuple of chars and
/// the list held a tuple of another layout).
#[test]
fn a_prebuilt_tuple_in_a_list_has_the_list_item_annotation() {
    let body = "TABLE = [(\"x\", \"1\"), (\"yy\", \"22\")]\n\n\
                def entry_point(argv):\n    n = 0\n    for k, v in TABLE:\n        \
                n += len(k + v)\n    return n\n";
    let annotated = annotated(body);
    let tuples: Vec<&SomeValue> = annotated
        .facts
        .prebuilt
        .values()
        .filter(|v| matches!(v, SomeValue::Tuple(_)))
        .collect();
    assert_eq!(tuples.len(), 2, "{tuples:?}");
    for t in tuples {
        let SomeValue::Tuple(items) = t else {
            unreachable!()
        };
        assert!(
            items.iter().all(|i| matches!(i, SomeValue::String { .. })),
            "{t}"
        );
    }
}

/// A class attribute read through instances and never stored on one is
/// the class's: it is no attribute of the instances handed to the rtyper
/// (which made it a field of no representation, and `self.LIMIT` failed
/// with "a value with no representation cannot become Signed").
#[test]
fn a_class_attribute_only_read_through_instances_is_no_instance_field() {
    let body = "class Config(object):\n    LIMIT = 3\n\n    def __init__(self, n):\n        \
                self.n = n\n\n    def big(self):\n        return self.n > self.LIMIT\n\n\
                def entry_point(argv):\n    if Config(len(argv)).big():\n        return 1\n    \
                return 0\n";
    let annotated = annotated(body);
    let config = annotated
        .facts
        .classdefs
        .iter()
        .find(|c| c.name.ends_with(".Config"))
        .expect("the class Config");
    let names: Vec<&str> = config.attrs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["n"]);
}

/// An instance attribute that is also a class attribute is handed to the
/// rtyper as its readers see it, the class's value joined in: chars
/// stored over a class default of "" make a str attribute (the rtyper made
/// it a char field, which could not hold the default).
#[test]
fn an_attribute_with_a_class_default_includes_the_default() {
    let body = "class Node(object):\n    repeat = \"\"\n\n    def __init__(self, ch):\n        \
                self.ch = ch\n\n\
                def entry_point(argv):\n    n = Node(argv[0][0])\n    n.repeat = \"*\"\n    \
                return len(n.repeat)\n";
    let annotated = annotated(body);
    let node = annotated
        .facts
        .classdefs
        .iter()
        .find(|c| c.name.ends_with(".Node"))
        .expect("the class Node");
    let repeat = &node.attrs.iter().find(|(n, _)| n == "repeat").unwrap().1;
    assert!(matches!(repeat, SomeValue::String { .. }), "{repeat}");
}

/// A class attribute only subclasses define, read through their base,
/// stays an attribute of the base's instances (the base's vtable has no
/// slot for it); one the class itself defines and nothing stores is not.
#[test]
fn a_class_attribute_of_subclasses_only_read_through_the_base_is_an_instance_attribute() {
    let body = "class Node(object):\n    LIMIT = 3\n\n\
                class Num(Node):\n    kind = \"num\"\n\n\
                class Str(Node):\n    kind = \"str\"\n\n\
                def entry_point(argv):\n    nodes = [Num(), Str()]\n    n = 0\n    \
                for node in nodes:\n        n += len(node.kind) + node.LIMIT\n    return n\n";
    let annotated = annotated(body);
    let node = annotated
        .facts
        .classdefs
        .iter()
        .find(|c| c.name.ends_with(".Node"))
        .expect("the class Node");
    let names: Vec<&str> = node.attrs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["kind"]);
    assert!(matches!(node.attrs[0].1, SomeValue::String { .. }));
}

#[test]
fn a_method_read_again_on_a_generalized_receiver_is_the_method_of_the_join() {
    // `s.isdigit` is first read on the known "ab", then on any str when
    // the second path reaches the block: one method of the joined string.
    let body = "def f(n):\n    s = \"ab\"\n    if n > 3:\n        s = \"x\" * n\n    \
                if n == 2:\n        n = 1\n    m = s.isdigit\n    return m()\n\n\
                def entry_point(argv):\n    f(len(argv))\n    return 0\n";
    let m = annotation_of(body, "f", "m");
    let SomeValue::BuiltinMethod { name, receiver } = m else {
        panic!("{m}")
    };
    assert_eq!(name, "isdigit");
    assert!(matches!(*receiver, SomeValue::String { .. }), "{receiver}");
}

#[test]
fn a_function_returning_str_or_none_returns_a_nullable_str() {
    let body = "def find(n):\n    if n > 1:\n        return \"many\"\n    return None\n\n\
                def entry_point(argv):\n    r = find(len(argv))\n    return 0\n";
    assert_eq!(
        annotation_of(body, "entry_point", "r"),
        SomeValue::String {
            can_be_none: true,
            no_nul: true
        }
    );
}

#[test]
fn a_call_through_a_variable_calls_every_function_it_may_hold() {
    let body = "def one(x):\n    return x + 1\n\ndef two(x):\n    return x * 2\n\n\
                def entry_point(argv):\n    f = one\n    if len(argv) > 1:\n        f = two\n    \
                r = f(len(argv))\n    return r\n";
    assert_eq!(
        annotation_of(body, "entry_point", "r"),
        SomeValue::nonneg_int()
    );
    let f = annotation_of(body, "entry_point", "f");
    assert_eq!(f.to_string(), "SomePBC(one, two)");
}

/// The annotated program of `body` (panics when it does not annotate).
fn annotated(body: &str) -> Program<rpy_ir::graph::Annotated> {
    let program = flow(body);
    annotate(program, Dialect::Py3).unwrap_or_else(|d| panic!("{d}"))
}

/// The functions the calls of graph `func` name, in order.
fn callees(program: &Program<rpy_ir::graph::Annotated>, func: &str) -> Vec<String> {
    program
        .graph(func)
        .unwrap()
        .blocks
        .iter()
        .flat_map(|b| &b.operations)
        .filter(|o| o.opname == Opcode::SimpleCall)
        .filter_map(|o| match o.args.first() {
            Some(rpy_ir::graph::Arg::Const(rpy_ir::graph::Constant::Func(f))) => Some(f.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_star_args_function_gets_one_copy_per_number_of_star_arguments() {
    let body = "def total(first, *rest):\n    t = first\n    for r in rest:\n        t += r\n    \
                return t\n\n\
                def entry_point(argv):\n    a = total(1)\n    b = total(2, 3, len(argv))\n    \
                c = total(4, 5, 6)\n    return a + b + c\n";
    let program = annotated(body);
    assert_eq!(
        callees(&program, "entry_point"),
        ["total__star0", "total__star2", "total__star2"]
    );
    assert!(program.graph("total").is_none(), "the original is dropped");
    let copy = program.graph("total__star2").unwrap();
    let rest = copy.params()[1];
    assert_eq!(
        copy.info(rest).to_string(),
        "SomeTuple(SomeInteger(nonneg=true), SomeInteger(nonneg=true))"
    );
    assert!(copy.hints.is_empty(), "{:?}", copy.hints);
}

#[test]
fn a_copy_calls_the_copies_its_own_arguments_pick() {
    // forward__star2 passes a tuple of one item on: total__star1, a copy
    // only the second round can know it needs.
    let body = "def total(first, *rest):\n    return first + len(rest)\n\n\
                def forward(*args):\n    return total(args[0], *args[1:])\n\n\
                def entry_point(argv):\n    return forward(len(argv), 2)\n";
    let program = annotated(body);
    assert_eq!(callees(&program, "entry_point"), ["forward__star2"]);
    assert_eq!(callees(&program, "forward__star2"), ["total__star1"]);
}

#[test]
fn one_round_finds_every_copy_its_calls_need() {
    // Each call waits for its copy, and the round goes on past it: two
    // rounds (one to find the copies, one with them), not one per call.
    let calls: String = (0..12)
        .map(|i| format!("    t += total({}) % 7\n", vec!["i"; i + 1].join(", ")))
        .collect();
    let body = format!(
        "def total(first, *rest):\n    return first + len(rest)\n\n\
         def entry_point(argv):\n    i = len(argv)\n    t = 0\n{calls}    return t\n"
    );
    let mut program = flow(&body);
    let rounds = super::specialize::with_copies(
        &mut program,
        Dialect::Py3,
        &super::Entry::Program,
        |a, started, rounds| {
            started.unwrap();
            assert!(a.remaining_errors().is_none());
            rounds
        },
    );
    assert_eq!(rounds, 2);
    assert_eq!(annotated(&body).graphs.len(), 13);
}

#[test]
fn explain_of_a_specialized_function_explains_its_copies() {
    let body = "def total(first, *rest):\n    return first + len(rest)\n\n\
                def entry_point(argv):\n    return total(1) + total(2, \"a\")\n";
    let program = flow(body);
    let out = explain(&program, Dialect::Py3, "total:rest").unwrap();
    assert!(out.contains("total__star0:rest is SomeTuple()"), "{out}");
    assert!(
        out.contains("total__star1:rest is SomeTuple(SomeChar)"),
        "{out}"
    );
    assert!(!out.contains("total:rest"), "{out}");
}

#[test]
fn a_memo_call_becomes_its_result() {
    let body = "from rpython.rlib.objectmodel import specialize\n\n\
                @specialize.memo()\ndef width(name):\n    return len(name) * 2\n\n\
                def entry_point(argv):\n    w = width(\"abc\")\n    return w + len(argv)\n";
    let program = annotated(body);
    assert!(callees(&program, "entry_point").is_empty());
    assert!(program.graph("width").is_none());
    let text = rpy_ir::text::print_graph(program.graph("entry_point").unwrap());
    assert!(text.contains("add(6, "), "{text}");
}

#[test]
fn arg_or_var_makes_one_more_copy_for_run_time_values() {
    let body = "from rpython.rlib.objectmodel import specialize\n\n\
                @specialize.arg_or_var(1)\ndef scale(x, k):\n    return x * k\n\n\
                def entry_point(argv):\n    \
                return scale(2, 3) + scale(2, len(argv)) + scale(1, 3)\n";
    let program = annotated(body);
    assert_eq!(
        callees(&program, "entry_point"),
        ["scale__3", "scale__var", "scale__3"]
    );
}

#[test]
fn a_specialized_method_call_becomes_a_direct_call_of_its_copy() {
    let body = "from rpython.rlib.objectmodel import specialize\n\n\
                class Log(object):\n    def __init__(self):\n        self.n = 0\n\n    \
                @specialize.argtype(1)\n    def put(self, x):\n        \
                self.n += 1\n        return str(x)\n\n\
                def entry_point(argv):\n    log = Log()\n    \
                return len(log.put(3) + log.put(\"a\") + log.put(0.5))\n";
    let program = annotated(body);
    assert_eq!(
        callees(&program, "entry_point"),
        ["Log.put__int", "Log.put__str", "Log.put__float"]
    );
    let entry = rpy_ir::text::print_graph(program.graph("entry_point").unwrap());
    // The instance is the first argument; the method is not read any more.
    assert!(entry.contains("simple_call(@Log.put__int, log_"), "{entry}");
    assert!(!entry.contains("getattr"), "{entry}");
}

#[test]
fn a_memo_function_that_raises_is_reported() {
    let body = "from rpython.rlib.objectmodel import specialize\n\n\
                @specialize.memo()\ndef pick(n):\n    return [1, 2][n]\n\n\
                def entry_point(argv):\n    return pick(5)\n";
    let e = error_of(body);
    assert!(
        e.contains("the memo function pick() run while translating, on 5, raised IndexError"),
        "{e}"
    );
}

#[test]
fn a_specialized_method_read_into_a_variable_is_reported() {
    let body = "class Acc(object):\n    def __init__(self):\n        self.n = 0\n\n    \
                def add(self, *xs):\n        self.n += len(xs)\n        return self.n\n\n\
                def entry_point(argv):\n    acc = Acc()\n    m = acc.add\n    \
                if len(argv) > 1:\n        acc = Acc()\n    return m(1, 2)\n";
    let e = error_of(body);
    assert!(
        e.contains("Acc.add() takes *xs, which rpy passes only in calls that name"),
        "{e}"
    );
}

#[test]
fn a_conflict_names_where_each_annotation_came_from() {
    let body = "def entry_point(argv):\n    x = len(argv)\n    if len(argv) > 1:\n        \
                x = argv[1] + \"!\"\n    print(x)\n    return 0\n";
    let e = error_of(body);
    assert!(
        e.contains("is a non-negative int here (line 2: x = len(argv))"),
        "{e}"
    );
    assert!(
        e.contains("and a str here (line 4: x = argv[1] + \"!\")"),
        "{e}"
    );
}

#[test]
fn a_parameter_conflict_names_both_calls() {
    let body = "def show(value):\n    print(value)\n    return 0\n\n\
                def entry_point(argv):\n    show(len(argv))\n    show(argv[0])\n    return 0\n";
    let e = error_of(body);
    assert!(e.contains("argument 'value' of show()"), "{e}");
    assert!(e.contains("line 6: show(len(argv))"), "{e}");
    assert!(e.contains("line 7: show(argv[0])"), "{e}");
}

#[test]
fn every_blocked_block_is_reported() {
    let body =
        "def entry_point(argv):\n    n = len(argv)\n    if n > 1:\n        print(n + \"a\")\n    \
                else:\n        print(n - 1.5 + argv)\n    return 0\n";
    let e = error_of(body);
    assert!(e.contains("t.py:4:"), "{e}");
    assert!(e.contains("t.py:6:"), "{e}");
}

#[test]
fn explain_follows_contributions_back_to_their_lines() {
    let body = "def entry_point(argv):\n    x = 0\n    i = 0\n    while i < len(argv):\n        \
                x = x + i\n        i = i + 1\n    return x\n";
    let program = flow(body);
    let out = explain(&program, Dialect::Py3, "entry_point:x").unwrap();
    assert!(
        out.contains("entry_point:x is SomeInteger(nonneg=true)"),
        "{out}"
    );
    assert!(out.contains("line 5: x = x + i"), "{out}");
    let err = explain(&program, Dialect::Py3, "nowhere:x").unwrap_err();
    assert!(err.contains("there is no function 'nowhere'"), "{err}");
    let err = explain(&program, Dialect::Py3, "zzz").unwrap_err();
    assert!(err.contains("no variable named 'zzz'"), "{err}");
}

#[test]
fn explain_places_a_constant_at_the_statement_that_wrote_it() {
    // A hex literal and a folded product are not written as the constant's
    // decimal digits; they are still the statements that wrote it, not the
    // `if` where the link leaves the block.
    let body = "def entry_point(argv):\n    x = 0x10\n    m = 2 * 3\n    y = len(argv)\n    \
                if y > 1:\n        x = 3\n        m = 0o17\n    print(x + m)\n    return 0\n";
    let program = flow(body);
    let out = explain(&program, Dialect::Py3, "entry_point:x").unwrap();
    assert!(
        out.contains("Int(16) passed on from block 0 (line 2: x = 0x10)"),
        "{out}"
    );
    assert!(
        out.contains("Int(3) passed on from block 0 (line 6: x = 3)"),
        "{out}"
    );
    let out = explain(&program, Dialect::Py3, "entry_point:m").unwrap();
    assert!(
        out.contains("Int(6) passed on from block 0 (line 3: m = 2 * 3)"),
        "{out}"
    );
    assert!(
        out.contains("Int(15) passed on from block 0 (line 7: m = 0o17)"),
        "{out}"
    );
}

#[test]
fn explain_places_a_constant_before_a_loop_not_at_the_same_constant_in_its_body() {
    // The `x = 1` in the loop is nearer to where block 0's link leaves
    // (line 7) than the `x = 1` that block wrote (line 2), but the loop's
    // operations run in between: it belongs to a later block.
    let body = "def entry_point(argv):\n    x = 1\n    n = len(argv)\n    a = n + 1\n    \
                b = n + 2\n    c = n + 3\n    d = n + 4\n    while n > 0:\n        n -= 1\n        \
                if n == 5:\n            x = 1\n        else:\n            x = x * 2\n    \
                print(x + a + b + c + d)\n    return 0\n";
    let program = flow(body);
    let out = explain(&program, Dialect::Py3, "entry_point:x").unwrap();
    assert!(
        out.contains("Int(1) passed on from block 0 (line 2: x = 1)"),
        "{out}"
    );
    assert!(!out.contains("block 0 (line 11"), "{out}");
}

#[test]
fn is_not_none_narrows_the_branch_where_it_holds() {
    let body = "def find(n):\n    if n > 1:\n        return \"many\"\n    return None\n\n\
                def entry_point(argv):\n    r = find(len(argv))\n    if r is not None:\n        \
                print(r + \"!\")\n    if r is None:\n        return 1\n    return len(r)\n";
    let program = flow(body);
    let annotated = annotate(program, Dialect::Py3).unwrap_or_else(|d| panic!("{d}"));
    let g = annotated.graph("entry_point").unwrap();
    let narrowed = SomeValue::String {
        can_be_none: false,
        no_nul: true,
    };
    let nullable = SomeValue::String {
        can_be_none: true,
        no_nul: true,
    };
    let infos: Vec<&SomeValue> = g
        .vars
        .iter()
        .filter(|v| v.name.as_deref() == Some("r"))
        .map(|v| &v.info)
        .collect();
    assert!(infos.contains(&&narrowed), "{infos:?}");
    assert!(infos.contains(&&nullable), "{infos:?}");
}

const RLIB: &str = "from rpython.rlib.rarithmetic import r_uint, intmask, ovfcheck\n\n";

#[test]
fn rlib_functions_give_machine_words() {
    let body = format!(
        "{RLIB}def entry_point(argv):\n    u = r_uint(len(argv))\n    w = u * u + u\n    \
         s = intmask(w)\n    c = ovfcheck(len(argv))\n    return s + c\n"
    );
    let unsigned = SomeValue::Integer {
        nonneg: true,
        unsigned: true,
    };
    assert_eq!(annotation_of(&body, "entry_point", "u"), unsigned);
    assert_eq!(annotation_of(&body, "entry_point", "s"), SomeValue::int());
    assert_eq!(
        annotation_of(&body, "entry_point", "c"),
        SomeValue::nonneg_int()
    );
}

#[test]
fn ovfcheck_of_unsigned_arithmetic_is_reported() {
    let body = format!(
        "{RLIB}def entry_point(argv):\n    u = r_uint(len(argv))\n    try:\n        \
         v = ovfcheck(u + u)\n    except OverflowError:\n        v = u\n    return intmask(v)\n"
    );
    let e = error_of(&body);
    assert!(e.contains("ovfcheck() checks signed arithmetic"), "{e}");
}

#[test]
fn a_known_condition_annotates_only_the_branch_it_takes() {
    // The other branch mixes types: no run of this program takes it.
    let body = "def pick(n, fast):\n    if fast:\n        y = n + 1\n    else:\n        \
                y = \"slow\"\n    return y\n\n\
                def entry_point(argv):\n    return pick(len(argv), True)\n";
    let program = flow(body);
    let annotated = annotate(program, Dialect::Py3).unwrap_or_else(|d| panic!("{d}"));
    // The branch not taken is cut from the annotated graph.
    let printed = rpy_ir::text::print_graph(annotated.graph("pick").unwrap());
    assert!(!printed.contains("slow"), "{printed}");
    assert!(!printed.contains("switch"), "{printed}");
    // The same holds for what translated code knows of itself.
    let body = "from rpython.rlib.objectmodel import we_are_translated\n\n\
                def entry_point(argv):\n    if we_are_translated():\n        return len(argv)\n    \
                return \"untranslated\"\n";
    let program = flow(body);
    let annotated = annotate(program, Dialect::Py3).unwrap_or_else(|d| panic!("{d}"));
    let printed = rpy_ir::text::print_graph(annotated.graph("entry_point").unwrap());
    assert!(!printed.contains("untranslated"), "{printed}");
}

#[test]
fn a_flag_passed_as_the_same_constant_everywhere_is_known() {
    let body = "def show(n, verbose):\n    if verbose:\n        return n + 1\n    \
                return \"quiet\"\n\n\
                def entry_point(argv):\n    a = show(len(argv), True)\n    \
                b = show(2, True)\n    return a + b\n";
    // Only the `verbose` branch is annotated, so show() returns an int.
    assert_eq!(
        annotation_of(body, "entry_point", "a"),
        SomeValue::nonneg_int()
    );
    let mixed = body.replace("b = show(2, True)", "b = show(2, len(argv) > 1)");
    let e = error_of(&mixed);
    assert!(e.contains("the value returned by show()"), "{e}");
}

#[test]
fn is_none_of_a_value_that_cannot_be_none_is_false() {
    let body = "def entry_point(argv):\n    s = argv[0]\n    if s is None:\n        \
                return s\n    return len(s)\n";
    // `return s` (a str) would conflict with the int return if it were annotated.
    assert_eq!(
        annotation_of(body, "entry_point", "s"),
        SomeValue::String {
            can_be_none: false,
            no_nul: true
        }
    );
}

/// The classes the handler of `func` receives: its `e` variable.
fn caught_in(body: &str, func: &str) -> String {
    annotation_of(body, func, "e").to_string()
}

#[test]
fn a_handler_around_a_call_receives_what_the_callee_raises() {
    let body = "def check(n):\n    if n < 0:\n        raise ValueError(\"negative\")\n    \
                if n == 0:\n        raise ZeroDivisionError(\"zero\")\n    return n\n\n\
                def twice(n):\n    return check(n) + check(n - 1)\n\n\
                def entry_point(argv):\n    try:\n        twice(len(argv))\n    \
                except Exception as e:\n        print(str(e))\n        return 1\n    return 0\n";
    assert_eq!(
        caught_in(body, "entry_point"),
        "SomeException(ValueError, ZeroDivisionError)"
    );
    // An operation's own exception is known too.
    let index = "def at(s, i):\n    return s[i]\n\n\
                 def entry_point(argv):\n    try:\n        at(argv, 3)\n    \
                 except LookupError as e:\n        print(str(e))\n    return 0\n";
    assert_eq!(caught_in(index, "entry_point"), "SomeException(IndexError)");
}

#[test]
fn a_handler_nothing_raised_reaches_is_cut() {
    let body =
        "def check(n):\n    if n < 0:\n        raise ValueError(\"negative\")\n    return n\n\n\
                def entry_point(argv):\n    try:\n        check(len(argv))\n    \
                except KeyError:\n        print(\"never\")\n    return 0\n";
    let program = flow(body);
    let annotated = annotate(program, Dialect::Py3).unwrap_or_else(|d| panic!("{d}"));
    let printed = rpy_ir::text::print_graph(annotated.graph("entry_point").unwrap());
    assert!(!printed.contains("never"), "{printed}");
}

#[test]
fn dividing_by_a_known_nonzero_value_cannot_raise() {
    let body = "def part(n, d):\n    try:\n        return n // d\n    \
                except ZeroDivisionError:\n        print(\"by zero\")\n        return -1\n\n\
                def entry_point(argv):\n    return part(len(argv), 2)\n";
    let graph_text = |body: &str| {
        let program = flow(body);
        let annotated = annotate(program, Dialect::Py3).unwrap_or_else(|d| panic!("{d}"));
        rpy_ir::text::print_graph(annotated.graph("part").unwrap())
    };
    let printed = graph_text(body);
    assert!(!printed.contains("by zero"), "{printed}");
    let printed = graph_text(&body.replace("len(argv), 2", "len(argv), 0"));
    assert!(printed.contains("by zero"), "{printed}");
}

#[test]
fn a_call_that_never_returns_because_the_callee_fails_is_reported_once() {
    let body = "def bad(n):\n    return n + \"x\"\n\n\
                def entry_point(argv):\n    r = bad(len(argv))\n    print(r)\n    return 0\n";
    let e = error_of(body);
    assert!(e.contains("'+' cannot be applied"), "{e}");
    assert!(!e.contains("never returns"), "{e}");
    // A function that really never returns is still reported.
    let body = "def spin(n):\n    return spin(n)\n\n\
                def entry_point(argv):\n    r = spin(len(argv))\n    print(r)\n    return 0\n";
    let e = error_of(body);
    assert!(e.contains("spin() never returns"), "{e}");
}

#[test]
fn a_handler_receives_the_programs_own_exception_classes() {
    let body = "class Negative(ValueError):\n    pass\n\n\
                def check(n):\n    if n < 0:\n        raise Negative(\"below zero\")\n    return n\n\n\
                def entry_point(argv):\n    try:\n        check(len(argv) - 5)\n    \
                except ValueError as e:\n        print(str(e))\n        return 1\n    return 0\n";
    assert_eq!(
        caught_in(body, "entry_point"),
        "SomeException(__main__.Negative)"
    );
}

const SHAPES: &str =
    "class Shape(object):\n    sides = 0\n\n    def __init__(self, name):\n        \
self.name = name\n\n    def area(self):\n        return 0\n\n\
class Square(Shape):\n    sides = 4\n\n    def __init__(self, side):\n        \
Shape.__init__(self, 'square')\n        self.side = side\n\n    def area(self):\n        \
return self.side * self.side\n\n\
class Rect(Shape):\n    def __init__(self, w):\n        Shape.__init__(self, 'rect')\n        \
self.w = w\n\n    def area(self):\n        return self.w * 1.5\n\n";

fn instance(class: &str) -> SomeValue {
    SomeValue::Instance {
        class: format!("__main__.{class}"),
        can_be_none: false,
    }
}

#[test]
fn instances_of_two_subclasses_join_at_their_common_base() {
    let body = format!(
        "{SHAPES}def pick(n):\n    if n > 1:\n        return Square(2)\n    return Rect(3)\n\n\
         def entry_point(argv):\n    s = pick(len(argv))\n    return 0\n"
    );
    assert_eq!(annotation_of(&body, "entry_point", "s"), instance("Shape"));
}

#[test]
fn a_method_call_through_a_base_calls_every_override_with_instances() {
    let body = format!(
        "{SHAPES}def entry_point(argv):\n    if len(argv) > 1:\n        s = Square(2)\n    \
         else:\n        s = Rect(3)\n    a = s.area()\n    return 0\n"
    );
    // Square.area gives an int, Rect.area a float: the call gives their join.
    assert_eq!(annotation_of(&body, "entry_point", "a"), SomeValue::Float);
    // Each override runs with self of its own class.
    assert_eq!(annotation_of(&body, "Rect.area", "self"), instance("Rect"));
}

#[test]
fn an_attribute_is_the_union_of_what_is_stored_and_class_attributes() {
    let body = format!(
        "{SHAPES}def entry_point(argv):\n    s = Square(2)\n    s.side = -1\n    \
         n = s.side\n    k = s.sides\n    return 0\n"
    );
    assert_eq!(annotation_of(&body, "entry_point", "n"), SomeValue::int());
    let k = annotation_of(&body, "entry_point", "k");
    assert_eq!(k.general(), SomeValue::nonneg_int(), "{k}");
}

#[test]
fn an_attribute_read_through_a_base_moves_up_from_the_subclass() {
    let body = "class A(object):\n    pass\n\nclass B(A):\n    def __init__(self):\n        \
                self.x = 1\n\n\
                def read(a):\n    return a.x\n\n\
                def entry_point(argv):\n    b = B()\n    y = read(A())\n    z = read(b)\n    \
                return 0\n";
    assert_eq!(
        annotation_of(body, "entry_point", "y").general(),
        SomeValue::nonneg_int()
    );
}

#[test]
fn generalizing_an_attribute_reflows_its_readers() {
    let body = "class Box(object):\n    def __init__(self):\n        self.v = 0\n\n\
                def read(b):\n    return b.v\n\n\
                def entry_point(argv):\n    b = Box()\n    r = read(b)\n    b.v = -5\n    \
                return 0\n";
    assert_eq!(annotation_of(body, "entry_point", "r"), SomeValue::int());
}

#[test]
fn isinstance_narrows_the_branch_where_it_holds() {
    let body = format!(
        "{SHAPES}def entry_point(argv):\n    if len(argv) > 1:\n        s = Square(2)\n    \
         else:\n        s = Rect(3)\n    if isinstance(s, Square):\n        \
         return side_of(s)\n    return 0\n\n\
         def side_of(square):\n    return square.side\n"
    );
    assert_eq!(
        annotation_of(&body, "side_of", "square"),
        instance("Square")
    );
}

#[test]
fn class_errors_say_what_to_do() {
    let unset = error_of(
        "class P(object):\n    def __init__(self):\n        self.x = 1\n\n\
         def entry_point(argv):\n    p = P()\n    return p.y\n",
    );
    assert!(unset.contains("no code sets it"), "{unset}");
    let unrelated = error_of(
        "class A(object):\n    pass\n\nclass B(object):\n    pass\n\n\
         def entry_point(argv):\n    x = A()\n    if len(argv) > 1:\n        x = B()\n    \
         print(x)\n    return 0\n",
    );
    assert!(unrelated.contains("no common base class"), "{unrelated}");
}

#[test]
fn an_exception_class_of_the_program_runs_its_init_and_has_its_attributes() {
    let body = "class Err(Exception):\n    def __init__(self, code):\n        \
                Exception.__init__(self, 'failed')\n        self.code = code\n\n\
                def check(n):\n    if n > 3:\n        raise Err(-n)\n    return n\n\n\
                def entry_point(argv):\n    try:\n        check(len(argv))\n    \
                except Err as e:\n        c = e.code\n        return c\n    return 0\n";
    assert_eq!(annotation_of(body, "entry_point", "c"), SomeValue::int());
}

#[test]
fn a_method_only_subclasses_define_is_called_through_the_base() {
    let body = "class Op(object):\n    pass\n\n\
                class Inc(Op):\n    def run(self, v):\n        return v + 1\n\n\
                class Neg(Op):\n    def run(self, v):\n        return 0.0 - v\n\n\
                def pick(n):\n    if n > 1:\n        return Inc()\n    return Neg()\n\n\
                def entry_point(argv):\n    op = pick(len(argv))\n    r = op.run(3)\n    \
                return 0\n";
    assert_eq!(annotation_of(body, "entry_point", "r"), SomeValue::Float);
    assert_eq!(annotation_of(body, "Neg.run", "self"), instance("Neg"));
}

#[test]
fn operations_on_an_instance_call_its_special_methods() {
    let body = "class Bag(object):\n    def __init__(self):\n        self.items = [1.5]\n\n    \
                def __len__(self):\n        return len(self.items)\n\n    \
                def __getitem__(self, i):\n        return self.items[i]\n\n    \
                def __iter__(self):\n        return Walk(self)\n\n\
                class Walk(object):\n    def __init__(self, bag):\n        self.bag = bag\n        \
                self.at = 0\n\n    def __next__(self):\n        if self.at >= len(self.bag):\n            \
                raise StopIteration\n        self.at += 1\n        return self.bag[self.at - 1]\n\n\
                def entry_point(argv):\n    b = Bag()\n    n = len(b)\n    first = b[0]\n    \
                last = 0.0\n    for v in b:\n        last = v\n    return n + int(last)\n";
    assert_eq!(
        annotation_of(body, "entry_point", "n"),
        SomeValue::nonneg_int()
    );
    assert_eq!(
        annotation_of(body, "entry_point", "first"),
        SomeValue::Float
    );
    assert_eq!(annotation_of(body, "entry_point", "last"), SomeValue::Float);
}

#[test]
fn a_prebuilt_instance_attribute_that_conflicts_with_a_store_is_reported() {
    let body = "class Config(object):\n    pass\n\nCONFIG = Config()\nCONFIG.level = 3\n\n\
                def entry_point(argv):\n    c = Config()\n    c.level = 'high'\n    \
                print(CONFIG.level)\n    return 0\n";
    let e = error_of(body);
    assert!(e.contains("attribute 'level' of Config instances"), "{e}");
    assert!(e.contains("built at import time"), "{e}");
}

#[test]
fn slice_assignment_stores_the_source_items_and_resizes() {
    let body = "def entry_point(argv):\n    l = [1, 2, 3]\n    l[1:2] = [-4, -5]\n    \
                x = l[0]\n    return x\n";
    assert_eq!(annotation_of(body, "entry_point", "x"), SomeValue::int());
    let SomeValue::List(def) = annotation_of(body, "entry_point", "l") else {
        panic!("not a list")
    };
    assert!(def.resizable);
}

#[test]
fn explain_shows_what_an_attribute_read_was_stored() {
    let body = "class Box(object):\n    def __init__(self, v):\n        self.v = v\n\n    \
                def bump(self):\n        self.v = self.v - 10\n\n\
                def entry_point(argv):\n    b = Box(len(argv))\n    b.bump()\n    got = b.v\n    \
                return got\n";
    let program = flow(body);
    let out = explain(&program, Dialect::Py3, "entry_point:got").unwrap();
    assert!(out.contains("attribute 'v' of Box instances"), "{out}");
    assert!(out.contains("line 3: self.v = v"), "{out}");
    assert!(out.contains("line 6: self.v = self.v - 10"), "{out}");
}

#[test]
fn list_of_an_iterable_instance_holds_what_its_iterator_gives() {
    let body = "class Count(object):\n    def __init__(self, n):\n        self.n = n\n\n    \
                def __iter__(self):\n        return self\n\n    def __next__(self):\n        \
                if self.n <= 0:\n            raise StopIteration\n        self.n -= 1\n        \
                return self.n * 0.5\n\n\
                def entry_point(argv):\n    xs = list(Count(3))\n    return len(xs)\n";
    let SomeValue::List(def) = annotation_of(body, "entry_point", "xs") else {
        panic!("not a list")
    };
    assert_eq!(*def.item, SomeValue::Float);
}

#[test]
fn an_r_dict_calls_its_key_functions_with_the_key_annotation() {
    let body = "from rpython.rlib.objectmodel import r_dict\n\n\
                def eq(a, b):\n    return a == b\n\n\
                def h(k):\n    return k % 7\n\n\
                def entry_point(argv):\n    d = r_dict(eq, h)\n    d[len(argv)] = 'x'\n    \
                d[-1] = 'y'\n    return len(d)\n";
    assert_eq!(annotation_of(body, "h", "k"), SomeValue::int());
    assert_eq!(annotation_of(body, "eq", "b"), SomeValue::int());
}

#[test]
fn a_method_of_a_second_base_is_found() {
    let body = "class Named(object):\n    def __init__(self):\n        self.n = 1\n\n\
                class Loud(object):\n    def shout(self):\n        return 'hey'\n\n\
                class Dog(Named, Loud):\n    pass\n\n\
                def entry_point(argv):\n    s = Dog().shout()\n    return len(s)\n";
    let s = annotation_of(body, "entry_point", "s");
    assert!(matches!(s.general(), SomeValue::String { .. }), "{s}");
}

#[test]
fn isinstance_of_a_second_base_holds() {
    let body = "class Named(object):\n    pass\n\n\
                class Loud(object):\n    pass\n\n\
                class Dog(Named, Loud):\n    pass\n\n\
                def entry_point(argv):\n    d = Dog()\n    if isinstance(d, Loud):\n        \
                return 1\n    return 0\n";
    let program = flow(body);
    let annotated = annotate(program, Dialect::Py3).unwrap_or_else(|d| panic!("{d}"));
    let g = annotated.graph("entry_point").unwrap();
    let ret = g.block(g.returnblock).inputargs[0];
    // Only `return 1` is taken: the isinstance is known true.
    assert_eq!(
        g.vars[ret.0 as usize].info,
        SomeValue::nonneg_int(),
        "{}",
        g.vars[ret.0 as usize].info
    );
    let returns_one = g.blocks.iter().flat_map(|b| &b.exits).any(|l| {
        l.target == g.returnblock
            && l.args == [rpy_ir::graph::Arg::Const(rpy_ir::graph::Constant::Int(1))]
    });
    let returns_zero = g.blocks.iter().flat_map(|b| &b.exits).any(|l| {
        l.target == g.returnblock
            && l.args == [rpy_ir::graph::Arg::Const(rpy_ir::graph::Constant::Int(0))]
    });
    assert!(returns_one && !returns_zero);
}

#[test]
fn a_python_2_loop_calls_next_not_dunder_next() {
    // CPython 2's `for` calls `next`; a `__next__` beside it is an ordinary
    // method there, and taking it would make `x` a string.
    let text = format!(
        "class Count(object):\n    def __init__(self):\n        self.i = 0\n\n\
         \x20   def __iter__(self):\n        return self\n\n\
         \x20   def next(self):\n        if self.i == 3:\n            raise StopIteration\n\
         \x20       self.i += 1\n        return self.i\n\n\
         \x20   def __next__(self):\n        return 'not called in Python 2'\n\n\
         def entry_point(argv):\n    t = 0\n    for x in Count():\n        t += x\n    return t\n{TARGET}"
    );
    let module = parse_module("t.py", &text, Dialect::Py2).unwrap_or_else(|d| panic!("{d}"));
    let mut program = build_flow(&module, &text).unwrap_or_else(|d| panic!("{d}"));
    simplify_program(&mut program);
    let annotated = annotate(program, Dialect::Py2).unwrap_or_else(|d| panic!("{d}"));
    let g = annotated.graph("entry_point").unwrap();
    let xs: Vec<&SomeValue> = g
        .vars
        .iter()
        .filter(|v| v.name.as_deref() == Some("x") && v.info != SomeValue::Impossible)
        .map(|v| &v.info)
        .collect();
    assert!(!xs.is_empty());
    assert!(
        xs.iter().all(|x| matches!(x, SomeValue::Integer { .. })),
        "{xs:?}"
    );
}

#[test]
fn a_key_looked_up_generalizes_the_keys_of_a_dict() {
    // Built with one-char keys, looked up with longer strings: str keys,
    // for every way of looking up.
    for lookup in [
        "d.get(\"ab\", 3)",
        "d[\"ab\"]",
        "1 if \"ab\" in d else 0",
        "d.pop(\"ab\", 3)",
    ] {
        let body = format!(
            "def entry_point(argv):\n    d = {{\"a\": 1}}\n    x = {lookup}\n    return x\n"
        );
        let d = annotation_of(&body, "entry_point", "d");
        let SomeValue::Dict(def) = d else {
            panic!("{d}")
        };
        assert!(
            matches!(*def.key, SomeValue::String { .. }),
            "{lookup}: {}",
            def.key
        );
    }
}

#[test]
fn unpacking_a_tuple_raises_nothing_to_a_finally() {
    // Reading a tuple at a known index in range cannot fail: the `finally`
    // receives nothing from it, and f raises nothing.
    let body = "def f(t):\n    n = 0\n    try:\n        n, s = t\n    finally:\n        \
                n = n + 1\n    return n\n\n\
                def entry_point(argv):\n    return f((len(argv), argv[0]))\n";
    let program = flow(body);
    let annotated = annotate(program, Dialect::Py3).unwrap_or_else(|d| panic!("{d}"));
    let g = annotated.graph("f").unwrap();
    let raised = g.block(g.exceptblock).inputargs[0];
    assert_eq!(*g.info(raised), SomeValue::Impossible);
}

#[test]
fn an_iterator_over_a_generalized_string_is_an_iterator_over_the_join() {
    // The loop's iterator is first made over the known "ab", then over
    // any string when the second path reaches the block.
    let body = "def f(n):\n    s = \"ab\"\n    if n > 3:\n        s = \"x\" * n\n    \
                if n == 2:\n        n = 1\n    for c in s:\n        n = n + 1\n    return n\n\n\
                def entry_point(argv):\n    return f(len(argv))\n";
    let program = flow(body);
    annotate(program, Dialect::Py3).unwrap_or_else(|d| panic!("{d}"));
}

/// A function whose graph cannot be built (an unknown module imported
/// inside it) is an error only where the annotator reaches a call of it:
/// not when a constant condition cuts the only call, as it cuts gcbench's
/// `time_parallel_constructions`; then every error of its body is shown.
#[test]
fn a_function_that_cannot_be_built_is_an_error_only_when_reached() {
    let program = |threads: &str| {
        format!(
            "THREADS = {threads}\n\n\
             def parallel(n):\n    import threading\n    return threading.active_count() + n + undefined_name\n\n\
             def entry_point(argv):\n    if THREADS:\n        return parallel(len(argv))\n    return 0"
        )
    };
    let annotated = annotated(&program("False"));
    assert!(annotated.graph("parallel").is_none());
    let error = error_of(&program("True"));
    assert!(
        error.contains("t.py:4:5: error: no module named 'threading'"),
        "{error}"
    );
    assert!(
        error.contains("t.py:5:43: error: name 'undefined_name' is not defined"),
        "{error}"
    );
}

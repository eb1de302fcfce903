//! The annotation is sound: for random well-typed programs, every value a
//! variable takes when the flow graphs run in the object-level interpreter
//! is contained in the annotation the annotator gave that variable.
//!
//! The programs mix ints (kept small, so no machine-word wrap-around makes a
//! "non-negative" sum negative), floats, strings, chars, bools, lists that
//! are appended to and indexed, and calls of helper functions from several
//! places with different argument annotations, and instances of a small
//! class hierarchy (a base and two subclasses overriding a method, one with
//! an attribute of its own) held in one variable, with method calls through
//! the base, bound methods kept in a variable and isinstance narrowing,
//! and a `*args` function called with different numbers of star-arguments
//! (one specialized copy each; the original's variables are checked
//! against the join of the copies').

mod support;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rpy::pipeline::{run_until, Source, StageName, StageOutput, Timings};
use rpy_ir::annotation::{Known, SomeValue};
use rpy_ir::ast::Dialect;
use rpy_passes::objinterp::exceptions::{ClassObj, InstanceObj};
use rpy_passes::objinterp::{ObjInterpreter, ObjValue};
use std::cell::RefCell;
use std::rc::Rc;

/// One statement of the entry point's loop body, over the locals
/// `a`, `b` (ints), `x` (a float), `s` (a str), `c` (a char), `items` (a
/// list of ints) and `sh` (a Shape).
fn statement() -> impl Strategy<Value = String> {
    let int_expr = prop_oneof![
        Just("a + b"),
        Just("a - b"),
        Just("a * 3"),
        Just("a // (b % 5 + 1)"),
        Just("a % 7"),
        Just("a & b"),
        Just("a ^ 5"),
        Just("len(s)"),
        Just("len(items)"),
        Just("items[a % len(items)]"),
        Just("ord(c)"),
        Just("twice(a)"),
        Just("flagged(a, True)"),
        Just("total(a) + total(b, a, 3)"),
        Just("total(a, len(s))"),
        Just("int(x)"),
        Just("-a"),
        Just("int(a < b)"),
    ];
    prop_oneof![
        (prop_oneof![Just("a"), Just("b")], int_expr)
            .prop_map(|(t, e)| format!("{t} = ({e}) % 1000")),
        prop_oneof![
            Just("x = x * 0.5 + a"),
            Just("x = x - b / 4.0"),
            Just("x = x + half(x)"),
        ]
        .prop_map(String::from),
        prop_oneof![
            Just("s = s + str(a)"),
            Just("s = s + c"),
            Just("s = pick(s, \"t\")"),
            Just("c = s[a % len(s)]"),
            Just("s = str(x)"),
        ]
        .prop_map(|st| format!("{st}\n        if len(s) > 30:\n            s = \"r\"")),
        Just("items.append(a % 50)".to_string()),
        prop_oneof![
            Just(
                "except ValueError as e:\n            s = s + str(e)\n            a = 1\n        \
                 except IndexError:\n            a = 3"
            ),
            Just(
                "except LookupError as e:\n            s = str(e)\n            b = 2\n        \
                 except Exception:\n            a = 4"
            ),
            Just("except Exception as e:\n            s = s + str(e)\n            a = 5"),
        ]
        .prop_map(|handler| format!("try:\n            a = checked(a * 3 - b)\n        {handler}")),
        Just("if items[0] > a:\n            items.append(b)".to_string()),
        prop_oneof![
            Just("sh = Square(a % 10)"),
            Just("sh = Label(b % 10, c)"),
            Just("sh = Shape(3)"),
            Just("a = sh.area() % 1000"),
            Just("b = sh.grow(a % 5) % 1000"),
            Just("m = sh.area\n        b = m() % 1000"),
            Just("if isinstance(sh, Label):\n            s = s + sh.text"),
            Just("if isinstance(sh, Square):\n            a = sh.area() + sh.size"),
        ]
        .prop_map(String::from),
    ]
}

fn program() -> impl Strategy<Value = String> {
    (proptest::collection::vec(statement(), 1..8), 1i64..6).prop_map(|(body, iterations)| {
        let mut s = String::from(
            "import sys\n\n\n\
             class Shape(object):\n    def __init__(self, size):\n        self.size = size\n\n    \
             def area(self):\n        return self.size\n\n    \
             def grow(self, k):\n        self.size = (self.size + k) % 100\n        \
             return self.size\n\n\n\
             class Square(Shape):\n    def area(self):\n        return self.size * self.size\n\n\n\
             class Label(Shape):\n    def __init__(self, size, text):\n        \
             Shape.__init__(self, size)\n        self.text = text\n\n    \
             def area(self):\n        return len(self.text) - 1\n\n\n\
             def twice(v):\n    return v + v\n\n\ndef half(v):\n    return v * 0.5\n\n\n\
             def total(first, *rest):\n    t = first\n    for r in rest:\n        \
             t = t + r\n    return t % 1000\n\n\n\
             def pick(p, q):\n    if len(p) > len(q):\n        return p\n    return q\n\n\n\
             def flagged(v, loud):\n    if loud:\n        return v + 1\n    return \"quiet\"\n\n\n\
             def checked(v):\n    if v > 500:\n        raise ValueError(\"big\")\n    \
             if v < -500:\n        raise IndexError(\"small\")\n    return v % 1000\n\n\n\
             def entry_point(argv):\n    a = len(argv)\n    b = 7\n    x = 0.25\n    \
             s = argv[0]\n    c = \"k\"\n    items = [1, a]\n    sh = Shape(a)\n    i = 0\n",
        );
        s += &format!("    while i < {iterations}:\n");
        for st in &body {
            s += &format!("        {st}\n");
        }
        s += "        i = i + 1\n";
        s += "    print(a + b)\n    print(s)\n    print(len(items))\n    return 0\n\n\n";
        s += "def target(*args):\n    return entry_point, None\n";
        s
    })
}

/// Is `value` one of the values of annotation `a`?
fn contained(value: &ObjValue, a: &SomeValue) -> bool {
    use SomeValue as S;
    match (value, a) {
        (_, S::Object) => true,
        // A known value is that value and no other.
        (ObjValue::Int(n), S::Const(Known::Int(k))) => n == k,
        (ObjValue::Bool(b), S::Const(Known::Bool(k))) => b == k,
        (ObjValue::Str(s), S::Const(Known::Char(k))) => **s == [*k],
        (ObjValue::Str(s), S::Const(Known::Str(k))) => **s == *k.as_bytes(),
        (_, S::Const(_)) => false,
        (ObjValue::Int(n), S::Integer { nonneg, .. }) => !nonneg || *n >= 0,
        (ObjValue::UInt(_), S::Integer { unsigned, .. }) => *unsigned,
        (ObjValue::Int(_), S::Float) => true,
        (ObjValue::Bool(_), S::Bool | S::Integer { .. } | S::Float) => true,
        (ObjValue::Float(_), S::Float) => true,
        (ObjValue::Str(s), S::Char) => s.len() == 1,
        (ObjValue::Str(s), S::String { no_nul, .. }) => !no_nul || !s.contains(&0),
        (ObjValue::None, a) => a.can_be_none(),
        (ObjValue::List(items), S::List(def)) => {
            items.borrow().iter().all(|i| contained(i, &def.item))
        }
        (ObjValue::Tuple(items), S::Tuple(anns)) => {
            items.len() == anns.len() && items.iter().zip(anns).all(|(i, a)| contained(i, a))
        }
        (ObjValue::Func(name), S::Pbc { descs, .. }) => descs
            .iter()
            .any(|d| matches!(d, rpy_ir::annotation::Desc::Function(f) if **f == **name)),
        (ObjValue::Builtin(name), S::Builtin(b)) => **name == **b,
        // A bound method of a builtin type: the receiver is checked where it
        // was read.
        (ObjValue::Method(_), S::BuiltinMethod { .. }) => true,
        (ObjValue::Iter(_), S::Iterator(_)) => true,
        // An exception instance or class is of one of the classes (or of a
        // subclass of one).
        (ObjValue::Instance(inst), S::Exception { classes, .. }) => {
            derives_from(&inst.class, classes)
        }
        (ObjValue::Instance(inst), S::Instance { class, .. }) => {
            derives_from(&inst.class, std::slice::from_ref(class))
        }
        // A bound method of a program class: its function is one of the
        // methods, bound to an instance of the class that method takes.
        (ObjValue::BoundMethod(bound), S::Pbc { descs, .. }) => descs.iter().any(|d| match d {
            rpy_ir::annotation::Desc::Method { class, func } => {
                **func == *bound.func
                    && contained(
                        &bound.receiver,
                        &S::Instance {
                            class: class.clone(),
                            can_be_none: false,
                        },
                    )
            }
            _ => false,
        }),
        (ObjValue::Class(class), S::Pbc { descs, .. }) => {
            let names: Vec<String> = descs
                .iter()
                .filter_map(|d| match d {
                    rpy_ir::annotation::Desc::Class(c) => Some(c.clone()),
                    _ => None,
                })
                .collect();
            derives_from(class, &names)
        }
        _ => false,
    }
}

fn derives_from(class: &ClassObj, names: &[String]) -> bool {
    names
        .iter()
        .any(|n| **n == *class.name || **n == class.qualified_name())
        || class.bases.iter().any(|b| derives_from(b, names))
}

/// Runs `text` and checks every recorded value against its annotation;
/// returns how many values were checked.
fn check_program(text: &str) -> Result<usize, TestCaseError> {
    let src = Source {
        path: "random.py".into(),
        text: text.to_string(),
        dialect: Dialect::Py3,
        gc: rpy_ir::llops::GcKind::default(),
        jit: false,
    };
    let flow = match run_until(&src, StageName::Flow, &mut Timings::default()) {
        Ok(StageOutput::Flow(flow)) => flow,
        other => {
            return Err(TestCaseError::fail(format!(
                "no flow graphs: {:?}\n{text}",
                other.err()
            )))
        }
    };
    if let Err(d) = rpy_passes::annotate::annotate(flow.clone(), src.dialect) {
        return Err(TestCaseError::fail(format!(
            "does not annotate:\n{d}\n{text}"
        )));
    }
    let annotations = rpy_passes::annotate::annotations_of(&flow, src.dialect);
    let mut interp = ObjInterpreter::new(&flow, Dialect::Py3)
        .with_step_limit(200_000)
        .with_recording();
    let argv = vec!["random.py".to_string(), "xyz".to_string()];
    interp
        .run_entry(&argv, &mut Vec::new())
        .map_err(|e| TestCaseError::fail(format!("run failed: {}\n{text}", e.exception_line())))?;
    let seen = interp.recorded();
    for (g, v, value) in seen.iter() {
        let a = &annotations[*g][*v];
        prop_assert!(
            contained(value, a),
            "{}() v{} took {:?} outside its annotation {}\n{}",
            flow.graphs[*g].name,
            v,
            String::from_utf8_lossy(&value.to_repr(Dialect::Py3)),
            a,
            text
        );
    }
    Ok(seen.len())
}

#[test]
fn every_value_a_variable_takes_is_in_its_annotation() {
    let mut runner = TestRunner::new(Config {
        cases: 64,
        ..Config::default()
    });
    let checked = RefCell::new(0usize);
    runner
        .run(&program(), |text| {
            *checked.borrow_mut() += check_program(&text)?;
            Ok(())
        })
        .unwrap();
    assert!(
        *checked.borrow() > 1000,
        "only {} values checked",
        checked.borrow()
    );
}

#[test]
fn a_wrong_annotation_is_caught() {
    // The check itself can fail: an int is not in a non-negative annotation
    // when it is negative, a str with a NUL not in a no_nul one.
    assert!(!contained(&ObjValue::Int(-1), &SomeValue::nonneg_int()));
    assert!(!contained(
        &ObjValue::str(b"a\0"),
        &SomeValue::String {
            can_be_none: false,
            no_nul: true
        }
    ));
    assert!(!contained(&ObjValue::None, &SomeValue::string()));
    assert!(!contained(&ObjValue::Float(1.0), &SomeValue::int()));
    assert!(!contained(
        &ObjValue::Int(4),
        &SomeValue::Const(Known::Int(5))
    ));
    assert!(!contained(
        &ObjValue::str(b"b"),
        &SomeValue::Const(Known::Char(b'a'))
    ));
    let base = Rc::new(ClassObj::new("Shape", Some("__main__"), Vec::new()));
    let square = ObjValue::Instance(Rc::new(InstanceObj {
        class: Rc::new(ClassObj::new(
            "Square",
            Some("__main__"),
            vec![base.clone()],
        )),
        attrs: RefCell::new(Default::default()),
    }));
    let shape = ObjValue::Instance(Rc::new(InstanceObj {
        class: base,
        attrs: RefCell::new(Default::default()),
    }));
    let of = |class: &str| SomeValue::Instance {
        class: format!("__main__.{class}"),
        can_be_none: false,
    };
    assert!(contained(&square, &of("Shape")));
    assert!(!contained(&shape, &of("Square")));
}

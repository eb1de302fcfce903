//! Classes, instances and exceptions of the object-level interpreter.
//!
//! A class object is a name, its bases and an attribute dict; an instance is
//! its class and an attribute dict of its own. Both are compared by identity,
//! as in Python. The builtin exception classes are class objects like any
//! other, built once per interpreter from the dialect's hierarchy
//! (`language::exceptions::builtin_exception_base`); an exception instance keeps
//! its constructor arguments under `args`.
//!
//! An exception raised by an operation (an [`Exc`]: class name and message)
//! becomes an instance of that builtin class with the message as its only
//! argument, so that handlers and `str(e)` see what CPython shows.

use super::ops::{exc, Exc, OpResult};
use super::value::ObjValue;
use crate::language::exceptions::{builtin_exception_base, BUILTIN_EXCEPTIONS};
use rpy_ir::ast::Dialect;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// A class: its name, the module of a program class, its bases (in order)
/// and class attributes.
#[derive(Debug)]
pub struct ClassObj {
    pub name: Rc<str>,
    /// The module that defines a class of the program (`__main__` for the
    /// main program's); `None` for builtin classes.
    pub module: Option<Rc<str>>,
    pub bases: Vec<Rc<ClassObj>>,
    pub attrs: RefCell<BTreeMap<String, ObjValue>>,
}

impl PartialEq for ClassObj {
    /// Identity: two classes of one name are still two classes.
    fn eq(&self, other: &ClassObj) -> bool {
        std::ptr::eq(self, other)
    }
}

impl ClassObj {
    /// A class without attributes yet.
    pub fn new(name: &str, module: Option<&str>, bases: Vec<Rc<ClassObj>>) -> ClassObj {
        ClassObj {
            name: Rc::from(name),
            module: module.map(Rc::from),
            bases,
            attrs: RefCell::new(BTreeMap::new()),
        }
    }

    /// The name constants know the class by: a builtin's own name, a
    /// program class's `module.Name` (as CPython prints an uncaught
    /// exception's class).
    pub fn qualified_name(&self) -> String {
        match &self.module {
            Some(m) => format!("{m}.{}", self.name),
            None => self.name.to_string(),
        }
    }

    /// `issubclass(self, other)`: `other` is `self` or one of its ancestors.
    pub fn is_subclass_of(&self, other: &ClassObj) -> bool {
        self == other || self.bases.iter().any(|b| b.is_subclass_of(other))
    }

    /// `repr(cls)`: builtin exception classes are `<class 'ValueError'>`
    /// (Python 2: `<type 'exceptions.ValueError'>`), `object` is `<class
    /// 'object'>` (`<type 'object'>`), the program's `<class '__main__.C'>`
    /// (Python 2's old-style classes: `<class __main__.C>`, without the
    /// address CPython adds).
    pub fn repr(&self, dialect: Dialect) -> String {
        let name = self.qualified_name();
        match (dialect, &self.module) {
            (Dialect::Py2, None) if self.is_exception_class() => {
                format!("<type 'exceptions.{name}'>")
            }
            (Dialect::Py2, None) => format!("<type '{name}'>"),
            (Dialect::Py2, Some(_)) if !self.is_new_style() => format!("<class {name}>"),
            _ => format!("<class '{name}'>"),
        }
    }

    /// Whether the class derives from `object` (Python 2's new-style
    /// classes; every class in Python 3). Builtin classes are.
    pub fn is_new_style(&self) -> bool {
        self.module.is_none() || self.bases.iter().any(|b| b.is_new_style())
    }

    /// A class attribute, looked up in the class and then in its bases
    /// depth-first, left to right (the method resolution order of the
    /// single-inheritance classes RPython allows).
    pub fn lookup(&self, name: &str) -> Option<ObjValue> {
        if let Some(v) = self.attrs.borrow().get(name) {
            return Some(v.clone());
        }
        self.bases.iter().find_map(|b| b.lookup(name))
    }

    /// Does this class derive from `BaseException`?
    pub fn is_exception_class(&self) -> bool {
        self.name.as_ref() == "BaseException" || self.bases.iter().any(|b| b.is_exception_class())
    }
}

/// A function of the program found in an instance's class, bound to the
/// instance (`obj.method`): calling it calls the function with the
/// instance first.
#[derive(Debug, PartialEq)]
pub struct BoundMethodObj {
    pub receiver: ObjValue,
    pub func: Rc<str>,
}

/// An instance: its class and its own attributes.
#[derive(Debug)]
pub struct InstanceObj {
    pub class: Rc<ClassObj>,
    pub attrs: RefCell<BTreeMap<String, ObjValue>>,
}

impl PartialEq for InstanceObj {
    fn eq(&self, other: &InstanceObj) -> bool {
        std::ptr::eq(self, other)
    }
}

impl InstanceObj {
    /// The constructor arguments of an exception instance (its `args`).
    pub fn exception_args(&self) -> Vec<ObjValue> {
        match self.attrs.borrow().get("args") {
            Some(ObjValue::Tuple(items)) => items.to_vec(),
            _ => Vec::new(),
        }
    }

    /// `str(e)` of an exception: empty without arguments, `str` of the only
    /// one (`repr` for `KeyError`, as CPython shows a missing key), else the
    /// `repr` of the argument tuple.
    pub fn exception_str(&self, dialect: Dialect) -> Vec<u8> {
        let args = self.exception_args();
        match args.as_slice() {
            [] => Vec::new(),
            [one] if self.class.module.is_none() && self.class.name.as_ref() == "KeyError" => {
                one.to_repr(dialect)
            }
            [one] => one.to_str(dialect),
            _ => tuple_repr(&args, dialect),
        }
    }

    /// `repr(e)`: `ValueError('x')` (Python 2 writes the argument tuple,
    /// `ValueError('x',)`).
    pub fn exception_repr(&self, dialect: Dialect) -> Vec<u8> {
        let args = self.exception_args();
        let mut out = self.class.name.as_bytes().to_vec();
        match (dialect, args.as_slice()) {
            (Dialect::Py2, _) => out.extend(tuple_repr(&args, dialect)),
            (Dialect::Py3, _) => {
                let inner = tuple_repr(&args, dialect);
                // Python 3 drops the one-element tuple's trailing comma.
                let inner = if args.len() == 1 {
                    let mut t = inner;
                    t.remove(t.len() - 2);
                    t
                } else {
                    inner
                };
                out.extend(inner);
            }
        }
        out
    }
}

/// `repr` of a tuple of `items`: `()`, `(x,)`, `(x, y)`.
fn tuple_repr(items: &[ObjValue], dialect: Dialect) -> Vec<u8> {
    let mut out = b"(".to_vec();
    for (k, item) in items.iter().enumerate() {
        if k > 0 {
            out.extend_from_slice(b", ");
        }
        out.extend(item.to_repr(dialect));
    }
    if items.len() == 1 {
        out.push(b',');
    }
    out.push(b')');
    out
}

/// The classes an interpreter knows by name: `object` and the builtin
/// exceptions of its dialect, and the program's classes by qualified name
/// (those of `Program::prebuilt`, see `modules::materialize`).
#[derive(Clone)]
pub struct ClassTable {
    classes: HashMap<String, Rc<ClassObj>>,
}

impl ClassTable {
    /// `object` and the builtin exception classes of `dialect`.
    pub fn builtin(dialect: Dialect) -> ClassTable {
        let mut table = ClassTable {
            classes: HashMap::new(),
        };
        let object = Rc::new(ClassObj::new("object", None, Vec::new()));
        table.add(object.clone());
        table.add(super::rlib::JITDRIVER_CLASS.with(Rc::clone));
        // BUILTIN_EXCEPTIONS lists every base before the classes deriving from it.
        for &name in BUILTIN_EXCEPTIONS {
            let Some(base) = builtin_exception_base(name, dialect) else {
                continue;
            };
            let base = match base {
                Some(b) => table.classes.get(b).cloned(),
                None => Some(object.clone()),
            };
            table.add(Rc::new(ClassObj::new(
                name,
                None,
                base.into_iter().collect(),
            )));
        }
        if let Some(base) = table.get("BaseException") {
            base.attrs.borrow_mut().insert(
                "__init__".to_string(),
                ObjValue::Builtin(Rc::from(BASE_EXCEPTION_INIT)),
            );
        }
        table
    }

    /// Adds a class under its qualified name (replacing one of that name).
    pub fn add(&mut self, class: Rc<ClassObj>) {
        self.classes.insert(class.qualified_name(), class);
    }

    pub fn get(&self, name: &str) -> Option<Rc<ClassObj>> {
        self.classes.get(name).cloned()
    }

    /// The exception instance an operation's [`Exc`] stands for, `None` when
    /// its class is not a Python class of the dialect (the interpreter's own
    /// limits, which no handler may catch). Python 2 has no RecursionError:
    /// its recursion limit raises RuntimeError.
    pub fn instance_of_exc(&self, e: &Exc) -> Option<ObjValue> {
        let class = match self.get(e.exc) {
            None if e.exc == "RecursionError" => self.get("RuntimeError")?,
            class => class?,
        };
        let args = if e.msg.is_empty() {
            Vec::new()
        } else {
            vec![ObjValue::str(&e.msg)]
        };
        Some(new_exception(class, args))
    }
}

/// A new instance of the exception class `class` built with `args`.
pub fn new_exception(class: Rc<ClassObj>, args: Vec<ObjValue>) -> ObjValue {
    let mut attrs = BTreeMap::new();
    attrs.insert("args".to_string(), ObjValue::tuple(args));
    ObjValue::Instance(Rc::new(InstanceObj {
        class,
        attrs: RefCell::new(attrs),
    }))
}

/// Does the exception `value` match the handler class `handler`?
pub fn exception_matches(value: &ObjValue, handler: &ClassObj) -> bool {
    match value {
        ObjValue::Instance(inst) => inst.class.is_subclass_of(handler),
        ObjValue::Class(class) => class.is_subclass_of(handler),
        _ => false,
    }
}

/// The builtin `BaseException.__init__`, which a program's exception class
/// calls as `Base.__init__(self, args...)`: it sets the instance's `args`.
const BASE_EXCEPTION_INIT: &str = "BaseException.__init__";

/// What calling a class does.
pub enum Instantiation {
    /// The instance is complete.
    Done(ObjValue),
    /// The instance, and the program's `__init__` function to call with it
    /// and the arguments (the call's value is then the instance).
    Init(ObjValue, Rc<str>),
}

/// `cls(args...)`: a new instance. An exception instance keeps `args` (as
/// `BaseException.__new__` does, whatever `__init__` does); a class of the
/// program with an `__init__` has it called; without one, a class that is
/// not an exception takes no arguments.
pub fn instantiate(
    class: &Rc<ClassObj>,
    args: &[ObjValue],
    dialect: Dialect,
) -> Result<Instantiation, Exc> {
    let driver_class = super::rlib::JITDRIVER_CLASS.with(Rc::clone);
    if !Rc::ptr_eq(class, &driver_class)
        && class.is_subclass_of(&driver_class)
        && class.lookup("__init__").is_none()
    {
        return super::rlib::jitdriver_of_subclass(class, args).map(Instantiation::Done);
    }
    // BaseException's own `__init__` only sets `args`, done here.
    let init = class
        .lookup("__init__")
        .filter(|i| !matches!(i, ObjValue::Builtin(b) if b.as_ref() == BASE_EXCEPTION_INIT));
    let instance = if class.is_exception_class() {
        // Python 2 keeps the arguments only when no `__init__` of the
        // program replaces BaseException's (which sets them).
        let keeps_args = dialect == Dialect::Py3 || init.is_none();
        new_exception(
            class.clone(),
            if keeps_args {
                args.to_vec()
            } else {
                Vec::new()
            },
        )
    } else {
        ObjValue::Instance(Rc::new(InstanceObj {
            class: class.clone(),
            attrs: RefCell::new(BTreeMap::new()),
        }))
    };
    match init {
        Some(ObjValue::Func(ref init)) => Ok(Instantiation::Init(instance, init.clone())),
        Some(other) => Err(exc(
            "TypeError",
            format!("'{}' object is not callable", other.type_name()),
        )),
        None if class.is_exception_class() || args.is_empty() => Ok(Instantiation::Done(instance)),
        None => Err(exc(
            "TypeError",
            match dialect {
                Dialect::Py2 if class.is_new_style() => "object() takes no parameters".to_string(),
                Dialect::Py2 => "this constructor takes no arguments".to_string(),
                Dialect::Py3 => format!("{}() takes no arguments", class.name),
            },
        )),
    }
}

/// `type(name, bases, namespace)`: the class a `class` statement makes,
/// its module taken from the namespace's `__module__`.
fn new_class(name: &[u8], bases: &[ObjValue], namespace: &ObjValue) -> OpResult {
    let ObjValue::Dict(ns) = namespace else {
        return Err(exc("TypeError", "type() argument 3 must be dict"));
    };
    let mut base_classes = Vec::new();
    for b in bases {
        match b {
            ObjValue::Class(c) => base_classes.push(c.clone()),
            // rlib's JitDriver is a builtin function here (`$JitDriver`); a
            // class deriving from it declares a driver's variables.
            ObjValue::Builtin(f) if f.as_ref() == "JitDriver" => {
                base_classes.push(super::rlib::JITDRIVER_CLASS.with(Rc::clone))
            }
            other => {
                return Err(exc(
                    "TypeError",
                    format!("a class cannot derive from a {} value", other.type_name()),
                ))
            }
        }
    }
    let mut attrs = BTreeMap::new();
    for (k, v) in ns.borrow().entries() {
        if let ObjValue::Str(k) = k {
            attrs.insert(String::from_utf8_lossy(k).into_owned(), v.clone());
        }
    }
    let module = match attrs.get("__module__") {
        Some(ObjValue::Str(m)) => String::from_utf8_lossy(m).into_owned(),
        _ => "__main__".to_string(),
    };
    let class = ClassObj::new(&String::from_utf8_lossy(name), Some(&module), base_classes);
    *class.attrs.borrow_mut() = attrs;
    Ok(ObjValue::Class(Rc::new(class)))
}

/// The builtins that take classes: `type(x)` of an instance and
/// `issubclass(cls, base)`; `None` for the others (or other arguments).
pub fn call_builtin(name: &str, args: &[ObjValue]) -> Option<OpResult> {
    match (name, args) {
        ("type", [ObjValue::Instance(inst)]) => Some(Ok(ObjValue::Class(inst.class.clone()))),
        ("staticmethod", [ObjValue::Func(f)]) => Some(Ok(ObjValue::StaticMethod(f.clone()))),
        (BASE_EXCEPTION_INIT, [ObjValue::Instance(inst), rest @ ..]) => {
            inst.attrs
                .borrow_mut()
                .insert("args".to_string(), ObjValue::tuple(rest.to_vec()));
            Some(Ok(ObjValue::None))
        }
        ("type", [ObjValue::Str(name), ObjValue::Tuple(bases), namespace]) => {
            Some(new_class(name, bases, namespace))
        }
        ("issubclass", [ObjValue::Class(class), ObjValue::Class(base)]) => {
            Some(Ok(ObjValue::Bool(class.is_subclass_of(base))))
        }
        // A checked operation whose operands were constants folded to its value.
        ("ovfcheck", [ObjValue::Int(i)]) => Some(Ok(ObjValue::Int(*i))),
        ("isinstance", [value, ObjValue::Class(base)]) => {
            Some(Ok(ObjValue::Bool(is_instance(value, base))))
        }
        // An r_uint is an int in Python 3's stand-in only: not decided here.
        ("isinstance", [ObjValue::UInt(_), ObjValue::Builtin(ty)]) if &**ty == "int" => None,
        ("isinstance", [value, ObjValue::Builtin(ty)]) => {
            let holds = match (&**ty, value) {
                ("int", ObjValue::Int(_) | ObjValue::Bool(_))
                | ("bool", ObjValue::Bool(_))
                | ("float", ObjValue::Float(_))
                | ("str", ObjValue::Str(_))
                | ("list", ObjValue::List(_))
                | ("dict", ObjValue::Dict(_))
                | ("tuple", ObjValue::Tuple(_)) => true,
                ("int" | "bool" | "float" | "str" | "list" | "dict" | "tuple", _) => false,
                _ => return None,
            };
            Some(Ok(ObjValue::Bool(holds)))
        }
        ("isinstance", [value, ObjValue::Tuple(bases)]) => {
            Some(Ok(ObjValue::Bool(bases.iter().any(
                |b| matches!(b, ObjValue::Class(base) if is_instance(value, base)),
            ))))
        }
        _ => None,
    }
}

/// `isinstance(value, base)` for a class `base`.
fn is_instance(value: &ObjValue, base: &ClassObj) -> bool {
    match value {
        ObjValue::Instance(inst) => inst.class.is_subclass_of(base),
        // Every value is an object.
        _ => base.module.is_none() && base.name.as_ref() == "object",
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::cpython;
    use super::*;

    #[test]
    fn the_builtin_hierarchy_is_cpythons() {
        for dialect in [Dialect::Py2, Dialect::Py3] {
            let names: Vec<&str> = BUILTIN_EXCEPTIONS
                .iter()
                .copied()
                .filter(|n| builtin_exception_base(n, dialect).is_some())
                .collect();
            let code = format!(
                "import sys\nfor n in {names:?}:\n    c = getattr(__builtins__, n)\n    sys.stdout.write('%s %s\\n' % (n, c.__bases__[0].__name__ if c.__bases__[0] is not object else '-'))\n"
            );
            let Some(lines) = cpython(dialect, &code) else {
                eprintln!("no CPython for {dialect:?}: hierarchy not compared");
                continue;
            };
            let ours: Vec<String> = names
                .iter()
                .map(|n| {
                    let base = builtin_exception_base(n, dialect).flatten().unwrap_or("-");
                    format!("{n} {base}")
                })
                .collect();
            assert_eq!(ours, lines, "{dialect:?}");
        }
    }

    #[test]
    fn str_and_repr_of_exceptions_are_cpythons() {
        let cases: &[(&str, Vec<ObjValue>)] = &[
            ("ValueError", vec![]),
            ("ValueError", vec![ObjValue::str("bad")]),
            ("KeyError", vec![ObjValue::str("k")]),
            ("KeyError", vec![ObjValue::Int(3)]),
            ("IndexError", vec![ObjValue::Int(1), ObjValue::str("two")]),
        ];
        for dialect in [Dialect::Py2, Dialect::Py3] {
            let table = ClassTable::builtin(dialect);
            let exprs: Vec<String> = cases
                .iter()
                .map(|(class, args)| {
                    let args: Vec<String> = args
                        .iter()
                        .map(|a| String::from_utf8_lossy(&a.to_repr(dialect)).into_owned())
                        .collect();
                    format!("{class}({})", args.join(", "))
                })
                .collect();
            let code = exprs
                .iter()
                .map(|e| format!("e = {e}\nprint(str(e))\nprint(repr(e))\n"))
                .collect::<String>();
            let Some(expected) = cpython(dialect, &code) else {
                eprintln!("no CPython for {dialect:?}: str/repr not compared");
                continue;
            };
            let mut ours = Vec::new();
            for (class, args) in cases {
                let e = new_exception(table.get(class).unwrap(), args.clone());
                ours.push(String::from_utf8_lossy(&e.to_str(dialect)).into_owned());
                ours.push(String::from_utf8_lossy(&e.to_repr(dialect)).into_owned());
            }
            assert_eq!(ours, expected, "{dialect:?}");
        }
    }

    /// A program class `name(base)` of `__main__` with the given attributes.
    fn program_class(name: &str, base: Rc<ClassObj>, attrs: &[(&str, ObjValue)]) -> Rc<ClassObj> {
        let class = ClassObj::new(name, Some("__main__"), vec![base]);
        for (k, v) in attrs {
            class.attrs.borrow_mut().insert(k.to_string(), v.clone());
        }
        Rc::new(class)
    }

    /// For each dialect with a CPython: the lines `ours` gives (from the
    /// dialect's builtin classes) are those CPython prints for `code`.
    fn assert_cpython_prints(code: &str, ours: impl Fn(Dialect, &ClassTable) -> Vec<String>) {
        for dialect in [Dialect::Py2, Dialect::Py3] {
            let Some(expected) = cpython(dialect, code) else {
                eprintln!("no CPython for {dialect:?}: not compared");
                continue;
            };
            let ours = ours(dialect, &ClassTable::builtin(dialect));
            assert_eq!(ours, expected, "{dialect:?}");
        }
    }

    #[test]
    fn program_exception_args_are_cpythons() {
        // `class E(Exception)` with an `__init__` that does not call the
        // base's, and `class F(Exception)` without one: str() of each.
        let code = "class E(Exception):\n    def __init__(self, m):\n        self.m = m\nclass F(Exception):\n    pass\nprint(repr(str(E('x'))))\nprint(repr(str(F('y'))))\n";
        assert_cpython_prints(code, |dialect, table| {
            let exception = table.get("Exception").unwrap();
            let init = ObjValue::Func(Rc::from("E.__init__"));
            let e = program_class("E", exception.clone(), &[("__init__", init)]);
            let f = program_class("F", exception, &[]);
            let mut ours = Vec::new();
            for (class, arg) in [(e, "x"), (f, "y")] {
                let instance = match instantiate(&class, &[ObjValue::str(arg)], dialect) {
                    Ok(Instantiation::Init(v, _)) | Ok(Instantiation::Done(v)) => v,
                    Err(e) => panic!("{}: {}", e.exc, e.msg),
                };
                ours.push(
                    String::from_utf8(ObjValue::str(instance.to_str(dialect)).to_repr(dialect))
                        .unwrap(),
                );
            }
            ours
        });
    }

    #[test]
    fn a_class_without_init_takes_no_arguments_as_cpython_says() {
        let code = "class A(object):\n    pass\ntry:\n    A(1)\nexcept TypeError as e:\n    print(str(e))\n";
        assert_cpython_prints(code, |dialect, table| {
            let a = program_class("A", table.get("object").unwrap(), &[]);
            assert!(matches!(
                instantiate(&a, &[], dialect),
                Ok(Instantiation::Done(_))
            ));
            let Err(e) = instantiate(&a, &[ObjValue::Int(1)], dialect) else {
                panic!("A(1) built an instance");
            };
            assert_eq!(e.exc, "TypeError", "{dialect:?}");
            vec![e.msg]
        });
    }

    #[test]
    fn class_reprs_are_cpythons() {
        let code = "class A(object):\n    pass\nprint(repr(A))\nprint(repr(object))\nprint(repr(ValueError))\n";
        assert_cpython_prints(code, |dialect, table| {
            let object = table.get("object").unwrap();
            let a = program_class("A", object.clone(), &[]);
            [a, object, table.get("ValueError").unwrap()]
                .iter()
                .map(|c| c.repr(dialect))
                .collect()
        });
    }

    #[test]
    fn methods_bind_through_instances_and_not_through_classes() {
        let table = ClassTable::builtin(Dialect::Py3);
        let base = program_class(
            "Base",
            table.get("object").unwrap(),
            &[
                ("show", ObjValue::Func(Rc::from("Base.show"))),
                ("kind", ObjValue::str("base")),
            ],
        );
        let derived = program_class(
            "Derived",
            base.clone(),
            &[("kind", ObjValue::str("derived"))],
        );
        let Ok(Instantiation::Done(obj)) = instantiate(&derived, &[], Dialect::Py3) else {
            panic!("Derived() failed");
        };
        let name = |n: &str| ObjValue::str(n);
        let get = |o: &ObjValue, n: &str| super::super::modules::getattr(o, &name(n)).unwrap();
        match &get(&obj, "show") {
            Ok(ObjValue::BoundMethod(m)) => {
                assert_eq!(&*m.func, "Base.show");
                assert_eq!(m.receiver, obj);
            }
            other => panic!("obj.show gave {other:?}"),
        }
        assert_eq!(get(&obj, "kind"), Ok(ObjValue::str("derived")));
        // An instance attribute hides the class's.
        super::super::modules::setattr(&obj, &name("kind"), &ObjValue::Int(3));
        assert_eq!(get(&obj, "kind"), Ok(ObjValue::Int(3)));
        let class = ObjValue::Class(derived);
        assert_eq!(
            get(&class, "show"),
            Ok(ObjValue::Func(Rc::from("Base.show")))
        );
        assert_eq!(get(&class, "kind"), Ok(ObjValue::str("derived")));
        let missing = get(&class, "nothing").unwrap_err();
        assert_eq!(
            missing.msg,
            "type object 'Derived' has no attribute 'nothing'"
        );
    }

    #[test]
    fn handlers_match_by_class_and_base() {
        let table = ClassTable::builtin(Dialect::Py2);
        let e = table
            .instance_of_exc(&exc("ZeroDivisionError", "by zero"))
            .unwrap();
        for (handler, matches) in [
            ("ZeroDivisionError", true),
            ("ArithmeticError", true),
            ("StandardError", true),
            ("Exception", true),
            ("BaseException", true),
            ("LookupError", false),
            ("OverflowError", false),
        ] {
            let h = table.get(handler).unwrap();
            assert_eq!(exception_matches(&e, &h), matches, "{handler}");
        }
        // An interpreter limit is no Python exception: nothing catches it.
        assert!(table.instance_of_exc(&exc("StepLimit", "")).is_none());
    }
}

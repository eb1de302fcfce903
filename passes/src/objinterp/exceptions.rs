//! Classes, instances and exceptions of the object-level interpreter.
//!
//! A class object is a name, its bases and an attribute dict; an instance is
//! its class and an attribute dict of its own. Both are compared by identity,
//! as in Python. The builtin exception classes are class objects like any
//! other, built once per interpreter from the dialect's hierarchy
//! (`flow::exceptions::builtin_exception_base`); an exception instance keeps
//! its constructor arguments under `args`.
//!
//! An exception raised by an operation (an [`Exc`]: class name and message)
//! becomes an instance of that builtin class with the message as its only
//! argument, so that handlers and `str(e)` see what CPython shows.

use super::ops::{self, exc, Exc, Op, OpResult};
use super::value::ObjValue;
use crate::flow::{builtin_exception_base, BUILTIN_EXCEPTIONS};
use rpy_ir::ast::Dialect;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// A class: its name, bases (in order) and class attributes.
#[derive(Debug)]
pub struct ClassObj {
    pub name: Rc<str>,
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
    /// `issubclass(self, other)`: `other` is `self` or one of its ancestors.
    pub fn is_subclass_of(&self, other: &ClassObj) -> bool {
        self == other || self.bases.iter().any(|b| b.is_subclass_of(other))
    }

    /// `repr(cls)`: builtin classes are `<class 'ValueError'>` (Python 2:
    /// `<type 'exceptions.ValueError'>`), the program's `<class '__main__.C'>`.
    pub fn repr(&self, dialect: Dialect) -> String {
        let builtin = builtin_exception_base(&self.name, dialect).is_some();
        match (builtin, dialect) {
            (true, Dialect::Py2) => format!("<type 'exceptions.{}'>", self.name),
            (true, Dialect::Py3) => format!("<class '{}'>", self.name),
            (false, _) => format!("<class '__main__.{}'>", self.name),
        }
    }

    /// Does this class derive from `BaseException`?
    pub fn is_exception_class(&self) -> bool {
        self.name.as_ref() == "BaseException" || self.bases.iter().any(|b| b.is_exception_class())
    }
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
    /// The constructor arguments of an exception instance (stored as a list
    /// until the interpreter has tuples).
    pub fn exception_args(&self) -> Vec<ObjValue> {
        match self.attrs.borrow().get("args") {
            Some(ObjValue::List(items)) => items.borrow().clone(),
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
            [one] if self.class.name.as_ref() == "KeyError" => one.to_repr(dialect),
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

/// The classes an interpreter knows by name: the builtin exceptions of its
/// dialect (program classes join them as the program defines them).
pub struct ClassTable {
    classes: HashMap<String, Rc<ClassObj>>,
}

impl ClassTable {
    /// The builtin exception classes of `dialect`.
    pub fn builtin(dialect: Dialect) -> ClassTable {
        let mut table = ClassTable {
            classes: HashMap::new(),
        };
        // BUILTIN_EXCEPTIONS lists every base before the classes deriving from it.
        for &name in BUILTIN_EXCEPTIONS {
            let Some(base) = builtin_exception_base(name, dialect) else {
                continue;
            };
            let bases = base
                .and_then(|b| table.classes.get(b).cloned())
                .into_iter()
                .collect();
            table.define(name, bases);
        }
        table
    }

    /// Adds a class (replacing one of the same name) and returns it.
    pub fn define(&mut self, name: &str, bases: Vec<Rc<ClassObj>>) -> Rc<ClassObj> {
        let class = Rc::new(ClassObj {
            name: Rc::from(name),
            bases,
            attrs: RefCell::new(BTreeMap::new()),
        });
        self.classes.insert(name.to_string(), class.clone());
        class
    }

    pub fn get(&self, name: &str) -> Option<Rc<ClassObj>> {
        self.classes.get(name).cloned()
    }

    /// The exception instance an operation's [`Exc`] stands for, `None` when
    /// its class is not a Python class of the dialect (the interpreter's own
    /// limits, which no handler may catch).
    pub fn instance_of_exc(&self, e: &Exc) -> Option<ObjValue> {
        let class = self.get(e.exc)?;
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
    attrs.insert("args".to_string(), ObjValue::list(args));
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

/// `cls(args...)`: an instance of an exception class holding `args`.
pub fn instantiate(class: &Rc<ClassObj>, args: &[ObjValue]) -> OpResult {
    if !class.is_exception_class() {
        return Err(exc(
            "TypeError",
            format!(
                "cannot build an instance of the class '{}' in this interpreter yet",
                class.name
            ),
        ));
    }
    Ok(new_exception(class.clone(), args.to_vec()))
}

/// The builtins that take classes: `type(x)` of an instance and
/// `issubclass(cls, base)`; `None` for the others (or other arguments).
pub fn call_builtin(name: &str, args: &[ObjValue]) -> Option<OpResult> {
    match (name, args) {
        ("type", [ObjValue::Instance(inst)]) => Some(Ok(ObjValue::Class(inst.class.clone()))),
        ("issubclass", [ObjValue::Class(class), ObjValue::Class(base)]) => {
            Some(Ok(ObjValue::Bool(class.is_subclass_of(base))))
        }
        // A checked operation whose operands were constants folded to its value.
        ("ovfcheck", [ObjValue::Int(i)]) => Some(Ok(ObjValue::Int(*i))),
        ("isinstance", [value, ObjValue::Class(base)]) => Some(Ok(ObjValue::Bool(match value {
            ObjValue::Instance(inst) => inst.class.is_subclass_of(base),
            _ => false,
        }))),
        _ => None,
    }
}

/// The overflow-checking operations `ovfcheck(x OP y)` becomes (`add_ovf`,
/// ...): Python's result when it fits a machine word, else OverflowError as
/// `rpython.rlib.rarithmetic.ovfcheck` raises it. `None` for other names.
pub fn overflow_checked(name: &str, args: &[ObjValue], dialect: Dialect) -> Option<OpResult> {
    let op = name.strip_suffix("_ovf")?;
    let ints: Vec<i64> = args.iter().map(ObjValue::as_int).collect::<Option<_>>()?;
    let overflow = || exc("OverflowError", "signed integer expression did overflow");
    let result = match (op, ints.as_slice()) {
        ("add", [a, b]) => a.checked_add(*b),
        ("sub", [a, b]) => a.checked_sub(*b),
        ("mul", [a, b]) => a.checked_mul(*b),
        ("neg", [a]) => a.checked_neg(),
        ("abs", [a]) => a.checked_abs(),
        ("lshift", [a, b]) if (0..64).contains(b) => {
            let r = a.wrapping_shl(*b as u32);
            (r >> b == *a).then_some(r)
        }
        ("lshift", [_, b]) if *b < 0 => {
            return Some(Err(exc("ValueError", "negative shift count")))
        }
        ("lshift", [a, _]) => (*a == 0).then_some(0),
        // Only MIN // -1 overflows; division by zero raises as usual.
        ("floordiv" | "mod", [a, b]) if *a == i64::MIN && *b == -1 => {
            return Some(if op == "mod" {
                Ok(ObjValue::Int(0))
            } else {
                Err(overflow())
            })
        }
        ("floordiv", [a, b]) => {
            return Some(ops::binary(
                Op::FloorDiv,
                &ObjValue::Int(*a),
                &ObjValue::Int(*b),
                dialect,
            ))
        }
        ("mod", [a, b]) => {
            return Some(ops::binary(
                Op::Mod,
                &ObjValue::Int(*a),
                &ObjValue::Int(*b),
                dialect,
            ))
        }
        _ => return None,
    };
    Some(result.map(ObjValue::Int).ok_or_else(overflow))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// CPython of `dialect` run on `code`, its output lines; `None` without it.
    fn cpython(dialect: Dialect, code: &str) -> Option<Vec<String>> {
        let python = match dialect {
            Dialect::Py2 => "/root/.pyenv/versions/2.7.18/bin/python2.7",
            Dialect::Py3 => "python3",
        };
        let out = Command::new(python).arg("-c").arg(code).output().ok()?;
        if !out.status.success() {
            return None;
        }
        Some(
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::to_string)
                .collect(),
        )
    }

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

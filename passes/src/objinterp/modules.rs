//! Module objects, prebuilt objects and attribute access on instances.
//!
//! A module is an instance of the class `module` (one class object shared
//! by every module, as in Python), its globals being its attributes: the
//! flow builder's import-time graphs read and write them with `getattr` and
//! `setattr`. A program's prebuilt objects (`Program::prebuilt`) become
//! values once, when the interpreter starts, so that every reference to one
//! is the same mutable object.

use super::containers::DictObj;
use super::exceptions::{BoundMethodObj, ClassObj, ClassTable, InstanceObj};
use super::ops::{exc, OpResult};
use super::value::ObjValue;
use rpy_ir::ast::Dialect;
use rpy_ir::graph::{Constant, PrebuiltObject};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use std::rc::Rc;

thread_local! {
    /// The class of every module object.
    static MODULE_CLASS: Rc<ClassObj> = Rc::new(ClassObj::new("module", None, Vec::new()));
}

thread_local! {
    /// The class of the cells objects of enclosing functions at import
    /// time (see `flow/closures.rs`).
    static CELLS_CLASS: Rc<ClassObj> = Rc::new(ClassObj::new("cells", None, Vec::new()));
}

/// The closure builtins of import-time graphs (`flow/closures.rs`): a new
/// cells object, and a nested function's graph bound to one (called with
/// the cells first, as a bound method is with its instance). `None` for
/// other names.
pub fn closure_builtin(name: &str, args: &[ObjValue]) -> Option<OpResult> {
    use crate::language::import_time_builtins::{IMPORT_STAR, MAKE_CLOSURE, NEW_CELLS};
    match (name, args) {
        (IMPORT_STAR, [here, source]) => {
            let all = get(source, "__all__");
            let exported: Vec<(String, ObjValue)> = match &all {
                Some(ObjValue::List(l)) => names_of(source, &l.borrow()),
                Some(ObjValue::Tuple(t)) => names_of(source, t),
                _ => attributes(source)
                    .into_iter()
                    .filter(|(n, _)| !n.starts_with('_'))
                    .collect(),
            };
            for (n, v) in exported {
                set(here, &n, v);
            }
            Some(Ok(ObjValue::None))
        }
        (NEW_CELLS, []) => Some(Ok(new_instance(CELLS_CLASS.with(Rc::clone)))),
        (MAKE_CLOSURE, [ObjValue::Func(f), cells]) => {
            Some(Ok(ObjValue::BoundMethod(Rc::new(BoundMethodObj {
                receiver: cells.clone(),
                func: f.clone(),
            }))))
        }
        _ => None,
    }
}

/// The attributes of `module` that the names of `names` (strs) name.
fn names_of(module: &ObjValue, names: &[ObjValue]) -> Vec<(String, ObjValue)> {
    names
        .iter()
        .filter_map(|n| match n {
            ObjValue::Str(s) => {
                let n = String::from_utf8_lossy(s).into_owned();
                get(module, &n).map(|v| (n, v))
            }
            _ => None,
        })
        .collect()
}

fn new_instance(class: Rc<ClassObj>) -> ObjValue {
    ObjValue::Instance(Rc::new(InstanceObj {
        class,
        attrs: RefCell::new(BTreeMap::new()),
    }))
}

/// New, empty module objects, one per name.
pub fn module_objects(names: &[&str]) -> Vec<ObjValue> {
    names
        .iter()
        .map(|_| new_instance(MODULE_CLASS.with(Rc::clone)))
        .collect()
}

/// The object `target(driver, args)` receives as its driver: an object
/// with no attributes (rpy's translation driver offers none to the program).
pub fn driver() -> ObjValue {
    new_instance(Rc::new(ClassObj::new(
        "TranslationDriver",
        None,
        Vec::new(),
    )))
}

/// The module behind a value, if it is a module object.
fn as_module(v: &ObjValue) -> Option<&InstanceObj> {
    match v {
        ObjValue::Instance(i) if MODULE_CLASS.with(|m| Rc::ptr_eq(&i.class, m)) => Some(i),
        _ => None,
    }
}

/// The dotted name of a module object.
pub fn module_name(v: &ObjValue) -> Option<String> {
    let m = as_module(v)?;
    match m.attrs.borrow().get("__name__") {
        Some(ObjValue::Str(s)) => Some(String::from_utf8_lossy(s).into_owned()),
        _ => None,
    }
}

/// Sets an attribute of an object with an attribute dict (a module).
pub fn set(obj: &ObjValue, name: &str, value: ObjValue) {
    if let ObjValue::Instance(i) = obj {
        i.attrs.borrow_mut().insert(name.to_string(), value);
    }
}

/// An attribute of an instance's own dict (a module's global).
pub fn get(obj: &ObjValue, name: &str) -> Option<ObjValue> {
    match obj {
        ObjValue::Instance(i) => i.attrs.borrow().get(name).cloned(),
        _ => None,
    }
}

/// The attributes of an instance's own dict, in name order.
pub fn attributes(obj: &ObjValue) -> Vec<(String, ObjValue)> {
    match obj {
        ObjValue::Instance(i) => i
            .attrs
            .borrow()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        _ => Vec::new(),
    }
}

/// The attribute name of a `getattr`/`setattr` operation.
fn attr_name(name: &ObjValue) -> String {
    String::from_utf8_lossy(&name.to_str(Dialect::Py3)).into_owned()
}

/// `obj.name` on a module, instance or class: its own attribute, else its
/// class's (through the bases, in order), a function found in the class
/// bound to the instance. `None` for other values.
pub fn getattr(obj: &ObjValue, name: &ObjValue) -> Option<OpResult> {
    let inst = match obj {
        ObjValue::Instance(inst) => inst,
        ObjValue::Class(class) => return Some(class_getattr(class, &attr_name(name))),
        _ => return None,
    };
    let n = attr_name(name);
    if let Some(v) = inst.attrs.borrow().get(&n) {
        return Some(Ok(v.clone()));
    }
    if let Some(module) = as_module(obj).and_then(|_| module_name(obj)) {
        return Some(Err(exc(
            "AttributeError",
            format!("module '{module}' has no attribute '{n}'"),
        )));
    }
    if n == "__class__" && as_module(obj).is_none() {
        return Some(Ok(ObjValue::Class(inst.class.clone())));
    }
    match inst.class.lookup(&n) {
        Some(ObjValue::Func(ref f)) => Some(Ok(ObjValue::BoundMethod(Rc::new(BoundMethodObj {
            receiver: obj.clone(),
            func: f.clone(),
        })))),
        Some(ObjValue::StaticMethod(ref f)) => Some(Ok(ObjValue::Func(f.clone()))),
        Some(v) => Some(Ok(v)),
        None => Some(Err(exc(
            "AttributeError",
            format!("'{}' object has no attribute '{n}'", inst.class.name),
        ))),
    }
}

/// `cls.name`: a class attribute (a method is its plain function, as
/// Python 3 gives it and as Python 2's unbound method calls it), or
/// `__name__`.
fn class_getattr(class: &ClassObj, name: &str) -> OpResult {
    match class.lookup(name) {
        Some(ObjValue::StaticMethod(ref f)) => Ok(ObjValue::Func(f.clone())),
        Some(v) => Ok(v),
        None if name == "__name__" => Ok(ObjValue::str(class.name.as_bytes())),
        None => Err(exc(
            "AttributeError",
            format!("type object '{}' has no attribute '{name}'", class.name),
        )),
    }
}

/// `obj.name = value` on a module, instance or class. `None` for other
/// values.
pub fn setattr(obj: &ObjValue, name: &ObjValue, value: &ObjValue) -> Option<OpResult> {
    let attrs = match obj {
        ObjValue::Instance(inst) => &inst.attrs,
        ObjValue::Class(class) => &class.attrs,
        _ => return None,
    };
    attrs.borrow_mut().insert(attr_name(name), value.clone());
    Some(Ok(ObjValue::None))
}

/// The values of a program's prebuilt objects, each made once, its classes
/// added to `classes`; an error names a class the program does not define.
pub fn materialize(
    prebuilt: &[PrebuiltObject],
    classes: &mut ClassTable,
    static_methods: &HashSet<&str>,
) -> Result<Vec<ObjValue>, String> {
    // First the classes (each after its bases), then an empty object for
    // each other, so that items may refer to any.
    let mut values = Vec::with_capacity(prebuilt.len());
    for p in prebuilt {
        if let PrebuiltObject::Class { name, bases, .. } = p {
            let bases = bases
                .iter()
                .map(|b| {
                    classes.get(b).ok_or_else(|| {
                        format!("the base '{b}' of the class '{name}' is not defined")
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let (module, short) = name.rsplit_once('.').unwrap_or(("__main__", name));
            classes.add(Rc::new(ClassObj::new(short, Some(module), bases)));
        }
    }
    for p in prebuilt {
        values.push(match p {
            PrebuiltObject::Class { name, .. } => match classes.get(name) {
                Some(c) => ObjValue::Class(c),
                None => return Err(format!("the class '{name}' is not defined")),
            },
            PrebuiltObject::List(_) => ObjValue::list(Vec::new()),
            // Tuples are immutable: made below, once their items exist.
            PrebuiltObject::Tuple(_) => ObjValue::None,
            PrebuiltObject::Dict(_) => ObjValue::Dict(Rc::new(RefCell::new(DictObj::default()))),
            PrebuiltObject::Instance { class, .. } => {
                let c = classes.get(class).ok_or_else(|| {
                    format!("the prebuilt instance's class '{class}' is not defined")
                })?;
                new_instance(c)
            }
            PrebuiltObject::Struct { .. } | PrebuiltObject::Array { .. } => {
                return Err("a low-level static is not a Python object".into())
            }
        });
    }
    let value = |c: &Constant, values: &[ObjValue]| -> Result<ObjValue, String> {
        match c {
            Constant::Prebuilt(i) => values
                .get(*i as usize)
                .cloned()
                .ok_or_else(|| format!("there is no prebuilt object &{i}")),
            other => ObjValue::from_constant(other, classes)
                .ok_or_else(|| format!("the constant {other:?} is not a value")),
        }
    };
    // Tuples in order (a tuple may hold an earlier tuple, not itself).
    for (i, p) in prebuilt.iter().enumerate() {
        if let PrebuiltObject::Tuple(items) = p {
            let items = items
                .iter()
                .map(|c| value(c, &values))
                .collect::<Result<Vec<_>, _>>()?;
            values[i] = ObjValue::tuple(items);
        }
    }
    for (i, p) in prebuilt.iter().enumerate() {
        match (p, &values[i]) {
            (PrebuiltObject::List(items), ObjValue::List(l)) => {
                let items = items
                    .iter()
                    .map(|c| value(c, &values))
                    .collect::<Result<Vec<_>, _>>()?;
                *l.borrow_mut() = items;
            }
            (PrebuiltObject::Dict(pairs), ObjValue::Dict(d)) => {
                for (k, v) in pairs {
                    let (k, v) = (value(k, &values)?, value(v, &values)?);
                    d.borrow_mut().set(k, v).map_err(|e| e.msg)?;
                }
            }
            (PrebuiltObject::Instance { attrs, .. }, obj) => {
                for (name, v) in attrs {
                    set(obj, name, value(v, &values)?);
                }
            }
            (PrebuiltObject::Class { attrs, .. }, ObjValue::Class(c)) => {
                for (name, v) in attrs {
                    let v = match value(v, &values)? {
                        ObjValue::Func(ref f) if static_methods.contains(&**f) => {
                            ObjValue::StaticMethod(f.clone())
                        }
                        v => v,
                    };
                    c.attrs.borrow_mut().insert(name.clone(), v);
                }
            }
            _ => {}
        }
    }
    Ok(values)
}

//! The values of the object-level interpreter and their Python-level
//! conversions to text (`str()` and `repr()`) and truth.

use super::containers::{DictObj, DictPart, IterObj, MethodObj, RangeObj};
use super::exceptions::{BoundMethodObj, ClassObj, ClassTable, InstanceObj};
use rpy_ir::ast::Dialect;
use rpy_ir::graph::Constant;
use rpy_llinterp::pystr::{float_repr, float_str_py2, repr_str};
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

/// A Python object, as far as the flow stage's programs can make one.
///
/// Strings are RPython strings: bytes. Lists are shared and mutable, as in
/// Python; every other value is immutable and compared by value.
#[derive(Clone, PartialEq)]
pub enum ObjValue {
    /// A machine-word integer (RPython's `int`; arithmetic wraps).
    Int(i64),
    /// An unsigned machine word (rlib's `r_uint`; arithmetic wraps modulo
    /// 2**64, comparisons are unsigned).
    UInt(u64),
    Bool(bool),
    Float(f64),
    Str(Rc<[u8]>),
    None,
    List(Rc<RefCell<Vec<ObjValue>>>),
    /// A function of the program, by its graph name.
    Func(Rc<str>),
    /// A builtin function (`len`, `str`, ...), by name.
    Builtin(Rc<str>),
    /// A class (see `exceptions`: builtin exception classes and program classes).
    Class(Rc<ClassObj>),
    /// An instance of a class.
    Instance(Rc<InstanceObj>),
    /// A tuple (immutable, compared by value).
    Tuple(Rc<[ObjValue]>),
    /// A dict, shared and mutable like a list.
    Dict(Rc<RefCell<DictObj>>),
    /// An `r_dict(key_eq, key_hash)` of rlib.objectmodel.
    RDict(Rc<RefCell<super::rdict::RDictObj>>),
    /// A Python 3 view of a dict's keys, values or items.
    DictView(Rc<RefCell<DictObj>>, DictPart),
    /// A Python 3 `range` or Python 2 `xrange` object.
    Range(Rc<RangeObj>),
    /// An iterator (`iter(x)`, `enumerate`, `reversed`, ...).
    Iter(Rc<RefCell<IterObj>>),
    /// A method of a builtin type bound to its receiver (`l.append`).
    Method(Rc<MethodObj>),
    /// A method of a program class bound to an instance (`obj.eval`).
    BoundMethod(Rc<BoundMethodObj>),
    /// `staticmethod(f)`: a class attribute that is the function `f`
    /// whether read through the class or an instance.
    StaticMethod(Rc<str>),
}

impl ObjValue {
    /// A string value holding the bytes of `s`.
    pub fn str(s: impl AsRef<[u8]>) -> ObjValue {
        ObjValue::Str(Rc::from(s.as_ref()))
    }

    /// A new tuple holding `items`.
    pub fn tuple(items: Vec<ObjValue>) -> ObjValue {
        ObjValue::Tuple(Rc::from(items))
    }

    /// A new list holding `items`.
    pub fn list(items: Vec<ObjValue>) -> ObjValue {
        ObjValue::List(Rc::new(RefCell::new(items)))
    }

    /// The value of a constant of a flow graph; `None` for a class `classes`
    /// does not know and for the `last_exception` marker, which is no value.
    pub fn from_constant(c: &Constant, classes: &ClassTable) -> Option<ObjValue> {
        Some(match c {
            Constant::Int(i) => ObjValue::Int(*i),
            Constant::UInt(u) => ObjValue::UInt(*u),
            Constant::Float(f) => ObjValue::Float(*f),
            Constant::Bool(b) => ObjValue::Bool(*b),
            Constant::Char(c) => ObjValue::str([*c]),
            Constant::Str(s) => ObjValue::str(rpy_ir::graph::str_bytes(s)),
            Constant::None => ObjValue::None,
            Constant::Func(f) => ObjValue::Func(Rc::from(f.as_str())),
            Constant::Builtin(b) => ObjValue::Builtin(Rc::from(b.as_str())),
            // A field name (getattr's second argument) reads as its string.
            Constant::Name(n) => ObjValue::str(n),
            Constant::Class(n) => ObjValue::Class(classes.get(n)?),
            Constant::LastException => return None,
            // Prebuilt objects are the interpreter's (see `modules::materialize`).
            Constant::Prebuilt(_) => return None,
        })
    }

    /// Python's name of the value's type, as error messages show it.
    pub fn type_name(&self) -> &'static str {
        match self {
            ObjValue::Int(_) => "int",
            ObjValue::UInt(_) => "r_uint",
            ObjValue::Bool(_) => "bool",
            ObjValue::Float(_) => "float",
            ObjValue::Str(_) => "str",
            ObjValue::None => "NoneType",
            ObjValue::List(_) => "list",
            ObjValue::Func(_) => "function",
            ObjValue::Builtin(b) if &**b == "NotImplemented" => "NotImplementedType",
            ObjValue::Builtin(_) => "builtin_function_or_method",
            ObjValue::Class(_) => "type",
            ObjValue::Instance(_) => "instance",
            ObjValue::Tuple(_) => "tuple",
            ObjValue::Dict(_) => "dict",
            ObjValue::RDict(_) => "r_dict",
            ObjValue::DictView(_, part) => part.view_name(),
            ObjValue::Range(r) if r.xrange => "xrange",
            ObjValue::Range(_) => "range",
            ObjValue::Iter(it) => it.borrow().type_name(),
            ObjValue::Method(_) => "builtin_function_or_method",
            ObjValue::BoundMethod(_) => "method",
            ObjValue::StaticMethod(_) => "staticmethod",
        }
    }

    /// Python's truth value (`bool(x)`).
    pub fn truth(&self) -> bool {
        match self {
            ObjValue::Int(i) => *i != 0,
            ObjValue::UInt(u) => *u != 0,
            ObjValue::Bool(b) => *b,
            ObjValue::Float(f) => *f != 0.0,
            ObjValue::Str(s) => !s.is_empty(),
            ObjValue::None => false,
            ObjValue::List(l) => !l.borrow().is_empty(),
            ObjValue::Tuple(t) => !t.is_empty(),
            ObjValue::Dict(d) | ObjValue::DictView(d, _) => !d.borrow().is_empty(),
            ObjValue::RDict(d) => !d.borrow().is_empty(),
            ObjValue::Range(r) => !r.is_empty(),
            ObjValue::Iter(_)
            | ObjValue::Method(_)
            | ObjValue::BoundMethod(_)
            | ObjValue::StaticMethod(_) => true,
            ObjValue::Func(_)
            | ObjValue::Builtin(_)
            | ObjValue::Class(_)
            | ObjValue::Instance(_) => true,
        }
    }

    /// The integer value of an int or a bool (bools are ints in Python).
    pub fn as_int(&self) -> Option<i64> {
        match self {
            ObjValue::Int(i) => Some(*i),
            ObjValue::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }

    /// `str(x)` in the dialect, as bytes.
    pub fn to_str(&self, dialect: Dialect) -> Vec<u8> {
        match self {
            ObjValue::Str(s) => s.to_vec(),
            ObjValue::Float(f) => Self::str_of_float(*f, dialect).into_bytes(),
            ObjValue::Instance(i) if i.class.is_exception_class() => i.exception_str(dialect),
            _ => self.to_repr(dialect),
        }
    }

    /// `repr(x)` in the dialect, as bytes. The repr of data nested deeper
    /// than the recursion limit is cut short there (`nesting`: the
    /// operation raises RecursionError).
    pub fn to_repr(&self, dialect: Dialect) -> Vec<u8> {
        match self {
            ObjValue::List(_)
            | ObjValue::Tuple(_)
            | ObjValue::Dict(_)
            | ObjValue::DictView(..)
            | ObjValue::BoundMethod(_) => {
                super::nesting::nested("while getting the repr of an object", Vec::new, || {
                    self.repr_of_any(dialect)
                })
            }
            _ => self.repr_of_any(dialect),
        }
    }

    /// `to_repr` without the bound on nesting.
    fn repr_of_any(&self, dialect: Dialect) -> Vec<u8> {
        match self {
            ObjValue::Int(i) => i.to_string().into_bytes(),
            // pylib's `r_uint.__repr__` (and `__str__`): the digits, as the
            // translated program writes them.
            ObjValue::UInt(u) => u.to_string().into_bytes(),
            ObjValue::Bool(true) => b"True".to_vec(),
            ObjValue::Bool(false) => b"False".to_vec(),
            // `repr` of a float is the shortest round-tripping form in both
            // dialects; only Python 2's `str` differs (handled below).
            ObjValue::Float(f) => float_repr(*f).into_bytes(),
            ObjValue::Str(s) => repr_str(s, dialect == Dialect::Py3),
            ObjValue::None => b"None".to_vec(),
            ObjValue::List(l) => {
                let mut out = b"[".to_vec();
                for (k, item) in l.borrow().iter().enumerate() {
                    if k > 0 {
                        out.extend_from_slice(b", ");
                    }
                    out.extend(item.to_repr(dialect));
                }
                out.push(b']');
                out
            }
            ObjValue::Func(f) => format!("<function {f}>").into_bytes(),
            ObjValue::Builtin(b) if &**b == "NotImplemented" => b"NotImplemented".to_vec(),
            ObjValue::Builtin(b) => format!("<built-in function {b}>").into_bytes(),
            ObjValue::Class(c) => c.repr(dialect).into_bytes(),
            ObjValue::Instance(i) if i.class.is_exception_class() => i.exception_repr(dialect),
            ObjValue::Instance(i) => format!("<{} object>", i.class.qualified_name()).into_bytes(),
            ObjValue::StaticMethod(_) => b"<staticmethod object>".to_vec(),
            ObjValue::RDict(_) => b"<r_dict object>".to_vec(),
            ObjValue::BoundMethod(m) => {
                let receiver = String::from_utf8_lossy(&m.receiver.to_repr(dialect)).into_owned();
                format!("<bound method {} of {receiver}>", m.func).into_bytes()
            }
            ObjValue::Tuple(_)
            | ObjValue::Dict(_)
            | ObjValue::DictView(..)
            | ObjValue::Range(_)
            | ObjValue::Iter(_)
            | ObjValue::Method(_) => super::containers::repr(self, dialect).unwrap_or_default(),
        }
    }

    /// `str(x)` of a float: Python 3's shortest repr, Python 2's `'%.12g'` rule.
    pub fn str_of_float(f: f64, dialect: Dialect) -> String {
        match dialect {
            Dialect::Py2 => float_str_py2(f),
            Dialect::Py3 => float_repr(f),
        }
    }
}

/// The int an integral float equals, when an int holds it: such a float
/// and that int are one dict key and hash alike, as in Python.
pub fn integral_float(f: f64) -> Option<i64> {
    // 2**63 is exactly representable; every float below it in magnitude
    // with no fraction converts without loss.
    const TWO_TO_63: f64 = 9_223_372_036_854_775_808.0;
    (f.fract() == 0.0 && (-TWO_TO_63..TWO_TO_63).contains(&f)).then_some(f as i64)
}

impl fmt::Debug for ObjValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObjValue::Int(i) => write!(f, "Int({i})"),
            ObjValue::UInt(u) => write!(f, "UInt({u})"),
            ObjValue::Bool(b) => write!(f, "Bool({b})"),
            ObjValue::Float(x) => write!(f, "Float({x:?})"),
            ObjValue::Str(s) => write!(f, "Str({:?})", String::from_utf8_lossy(s)),
            ObjValue::None => write!(f, "None"),
            ObjValue::List(l) => write!(f, "List({:?})", l.borrow()),
            ObjValue::Func(n) => write!(f, "Func({n})"),
            ObjValue::Builtin(n) => write!(f, "Builtin({n})"),
            ObjValue::Class(c) => write!(f, "Class({})", c.qualified_name()),
            ObjValue::Instance(i) => write!(f, "Instance({})", i.class.qualified_name()),
            ObjValue::Tuple(t) => write!(f, "Tuple({:?})", &t[..]),
            ObjValue::Dict(d) => write!(f, "Dict({:?})", d.borrow().entries()),
            ObjValue::DictView(d, part) => {
                write!(f, "{}({:?})", part.view_name(), d.borrow().entries())
            }
            ObjValue::Range(r) => write!(f, "{}", r.repr()),
            ObjValue::Iter(it) => write!(f, "Iter({})", it.borrow().type_name()),
            ObjValue::Method(m) => write!(f, "Method({:?}.{})", m.receiver, m.name),
            ObjValue::BoundMethod(m) => write!(f, "BoundMethod({:?}.{})", m.receiver, m.func),
            ObjValue::StaticMethod(n) => write!(f, "StaticMethod({n})"),
            ObjValue::RDict(d) => write!(f, "RDict({} items)", d.borrow().len()),
        }
    }
}

/// Freeing a value frees what only it holds, and Rust's own drop does that
/// by recursion: a chain as long as the program likes (a linked list of
/// 100,000 instances, a list nested 200,000 deep) would be freed by a
/// recursion as deep, which overflows rpy's stack. So the values a dropped
/// container alone holds are moved out onto a work list and freed one at a
/// time, each after its own such values have been moved out in turn: no
/// drop recurses more than one level.
impl Drop for ObjValue {
    fn drop(&mut self) {
        let mut pending = Vec::new();
        self.release_sole_contents(&mut pending);
        while let Some(mut value) = pending.pop() {
            value.release_sole_contents(&mut pending);
            // `value` is freed here; its contents are on `pending` by now.
        }
    }
}

impl ObjValue {
    /// Moves onto `out` the values held by this value's container when
    /// this is the container's last reference (so it is about to be freed);
    /// a shared container keeps its contents.
    fn release_sole_contents(&mut self, out: &mut Vec<ObjValue>) {
        match self {
            ObjValue::List(list) => {
                if let Some(items) = Rc::get_mut(list) {
                    out.append(items.get_mut());
                }
            }
            ObjValue::Tuple(items) => {
                if let Some(items) = Rc::get_mut(items) {
                    out.extend(items.iter_mut().map(take_value));
                }
            }
            ObjValue::Instance(instance) => {
                if let Some(instance) = Rc::get_mut(instance) {
                    out.extend(std::mem::take(instance.attrs.get_mut()).into_values());
                }
            }
            ObjValue::Dict(dict) | ObjValue::DictView(dict, _) => {
                if let Some(dict) = Rc::get_mut(dict) {
                    let entries = std::mem::take(dict.get_mut()).into_entries();
                    out.extend(entries.into_iter().flat_map(|(k, v)| [k, v]));
                }
            }
            ObjValue::RDict(dict) => {
                if let Some(dict) = Rc::get_mut(dict) {
                    out.extend(dict.get_mut().take_contents());
                }
            }
            ObjValue::Iter(iter) => {
                if let Some(iter) = Rc::get_mut(iter) {
                    match iter.get_mut() {
                        IterObj::Seq { seq, .. } | IterObj::Reversed { seq, .. } => {
                            out.push(take_value(seq))
                        }
                        // An Rc that is no `ObjValue` is passed on as a copy:
                        // once this iterator is freed, the copy is the last one.
                        IterObj::Dict { dict, part, .. } => {
                            out.push(ObjValue::DictView(dict.clone(), *part))
                        }
                        IterObj::Enumerate { inner, .. } => out.push(ObjValue::Iter(inner.clone())),
                        IterObj::Zip(inners) => {
                            out.extend(std::mem::take(inners).into_iter().map(ObjValue::Iter))
                        }
                    }
                }
            }
            ObjValue::Method(method) => {
                if let Some(method) = Rc::get_mut(method) {
                    out.push(take_value(&mut method.receiver));
                }
            }
            ObjValue::BoundMethod(method) => {
                if let Some(method) = Rc::get_mut(method) {
                    out.push(take_value(&mut method.receiver));
                }
            }
            ObjValue::Int(_)
            | ObjValue::UInt(_)
            | ObjValue::Bool(_)
            | ObjValue::Float(_)
            | ObjValue::Str(_)
            | ObjValue::None
            | ObjValue::Func(_)
            | ObjValue::Builtin(_)
            | ObjValue::Class(_)
            | ObjValue::Range(_)
            | ObjValue::StaticMethod(_) => {}
        }
    }
}

/// Moves the value out of a slot, leaving `None` in its place.
fn take_value(slot: &mut ObjValue) -> ObjValue {
    std::mem::replace(slot, ObjValue::None)
}

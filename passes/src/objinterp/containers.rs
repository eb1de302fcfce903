//! Tuples, dicts, ranges, iterators and the methods of lists, dicts and
//! strings in the object-level interpreter, with each dialect's semantics:
//! Python 2's `range`, `zip`, `keys()`, `values()` and `items()` give lists,
//! Python 3's give a range object, an iterator and views of the dict; both
//! iterate the same. Dicts keep insertion order (CPython 3.7+; programs
//! checked against CPython 2.7 must not print an unsorted dict's order).

use super::ops::{equal, exc, type_error, Exc, Op, OpResult};
use super::value::{integral_float, ObjValue};
use crate::language::builtins::{builtin_methods, BuiltinType};
use rpy_ir::ast::Dialect;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

// ---- dicts ---------------------------------------------------------------

/// A dict key as Python hashes and compares it: equal numbers are one key
/// (`1`, `1.0` and `True`), strings by value, tuples item by item, functions
/// and classes by identity.
#[derive(Clone, Debug)]
enum HashKey {
    Int(i64),
    Float(u64),
    Str(Rc<[u8]>),
    None,
    /// A tuple, by its items, with their combined hash: compared and
    /// hashed without recursion, so that a tuple nested 100,000 deep is a
    /// key as under CPython.
    Tuple(i64, Rc<[ObjValue]>),
    Named(&'static str, Rc<str>),
    Identity(usize),
}

impl PartialEq for HashKey {
    fn eq(&self, other: &HashKey) -> bool {
        use HashKey as K;
        match (self, other) {
            (K::Int(a), K::Int(b)) => a == b,
            (K::Float(a), K::Float(b)) => a == b,
            (K::Str(a), K::Str(b)) => a == b,
            (K::None, K::None) => true,
            (K::Tuple(h, a), K::Tuple(g, b)) => h == g && tuple_keys_equal(a, b),
            (K::Named(k, a), K::Named(l, b)) => k == l && a == b,
            (K::Identity(a), K::Identity(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for HashKey {}

impl std::hash::Hash for HashKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            HashKey::Int(i) => i.hash(state),
            HashKey::Float(f) => f.hash(state),
            HashKey::Str(s) => s.hash(state),
            HashKey::None => {}
            HashKey::Tuple(h, _) => h.hash(state),
            HashKey::Named(k, n) => (k, n).hash(state),
            HashKey::Identity(a) => a.hash(state),
        }
    }
}

/// Whether two tuples of hashable items are one key: item by item, a
/// tuple the same object as the other's at once (as CPython's comparison
/// of items starts with identity), over a work list rather than by
/// recursion. Tuples that are not the same object compared deeper than
/// the recursion limit are not one key, and the operation raises
/// RecursionError, as CPython's comparison does (`nesting`).
fn tuple_keys_equal(a: &Rc<[ObjValue]>, b: &Rc<[ObjValue]>) -> bool {
    let mut pending = vec![(a.clone(), b.clone(), 1)];
    while let Some((a, b, depth)) = pending.pop() {
        if Rc::ptr_eq(&a, &b) {
            continue;
        }
        if depth > super::nesting::MAX_NESTING {
            super::nesting::record_overflow("in comparison");
            return false;
        }
        if a.len() != b.len() {
            return false;
        }
        for (x, y) in a.iter().zip(b.iter()) {
            match (x, y) {
                (ObjValue::Tuple(p), ObjValue::Tuple(q)) => {
                    pending.push((p.clone(), q.clone(), depth + 1))
                }
                (ObjValue::Tuple(_), _) | (_, ObjValue::Tuple(_)) => return false,
                // Both were hashable when the keys were made.
                _ => {
                    if hash_key(x).ok() != hash_key(y).ok() {
                        return false;
                    }
                }
            }
        }
    }
    true
}

fn hash_key(v: &ObjValue) -> Result<HashKey, Exc> {
    Ok(match v {
        ObjValue::Int(i) => HashKey::Int(*i),
        // An r_uint equal to an int is the same key; a larger one is its own.
        ObjValue::UInt(u) => match i64::try_from(*u) {
            Ok(i) => HashKey::Int(i),
            Err(_) => HashKey::Named("r_uint", Rc::from(u.to_string())),
        },
        ObjValue::Bool(b) => HashKey::Int(i64::from(*b)),
        ObjValue::Float(f) => match integral_float(*f) {
            Some(i) => HashKey::Int(i),
            None => HashKey::Float(f.to_bits()),
        },
        ObjValue::Str(s) => HashKey::Str(s.clone()),
        ObjValue::None => HashKey::None,
        ObjValue::Tuple(items) => {
            // Each item not a tuple is a key of its own; the tuples in
            // it are walked by `fold_tuple_hash`'s stack.
            let h = super::rlib::fold_tuple_hash(v, &mut |item| {
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                std::hash::Hash::hash(&hash_key(item)?, &mut hasher);
                Ok(std::hash::Hasher::finish(&hasher) as i64)
            })?;
            HashKey::Tuple(h, items.clone())
        }
        ObjValue::Func(f) => HashKey::Named("function", f.clone()),
        ObjValue::Builtin(f) => HashKey::Named("builtin", f.clone()),
        ObjValue::Class(c) => HashKey::Identity(Rc::as_ptr(c) as usize),
        ObjValue::Instance(i) => HashKey::Identity(Rc::as_ptr(i) as *const u8 as usize),
        ObjValue::Range(r) => HashKey::Identity(Rc::as_ptr(r) as usize),
        ObjValue::Iter(i) => HashKey::Identity(Rc::as_ptr(i) as *const u8 as usize),
        ObjValue::Method(m) => HashKey::Identity(Rc::as_ptr(m) as usize),
        ObjValue::BoundMethod(m) => HashKey::Identity(Rc::as_ptr(m) as usize),
        ObjValue::StaticMethod(f) => HashKey::Named("staticmethod", f.clone()),
        ObjValue::List(_) | ObjValue::Dict(_) | ObjValue::RDict(_) | ObjValue::DictView(..) => {
            return Err(type_error(format!("unhashable type: '{}'", v.type_name())))
        }
    })
}

/// An insertion-ordered dict.
#[derive(Default, PartialEq)]
pub struct DictObj {
    entries: Vec<(ObjValue, ObjValue)>,
    index: HashMap<HashKey, usize>,
}

impl DictObj {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn entries(&self) -> &[(ObjValue, ObjValue)] {
        &self.entries
    }

    /// The (key, value) pairs, in insertion order, given up by the dict.
    pub fn into_entries(self) -> Vec<(ObjValue, ObjValue)> {
        self.entries
    }

    pub fn get(&self, key: &ObjValue) -> Result<Option<ObjValue>, Exc> {
        let k = hash_key(key)?;
        Ok(self.index.get(&k).map(|&i| self.entries[i].1.clone()))
    }

    /// Sets `key` to `value`; an existing key keeps its place (and the key
    /// object first stored, as in CPython). A lookup that compared keys
    /// nested deeper than the recursion limit (`tuple_keys_equal`) does not
    /// know whether the key is there: it raises RecursionError and leaves
    /// the dict as it was, as CPython's does.
    pub fn set(&mut self, key: ObjValue, value: ObjValue) -> Result<(), Exc> {
        let k = hash_key(&key)?;
        let overflowed_before = super::nesting::overflowed();
        let found = self.index.get(&k).copied();
        if !overflowed_before && super::nesting::overflowed() {
            return Err(super::ops::recursion_error("in comparison"));
        }
        match found {
            Some(i) => self.entries[i].1 = value,
            None => {
                self.index.insert(k, self.entries.len());
                self.entries.push((key, value));
            }
        }
        Ok(())
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &ObjValue) -> Result<Option<ObjValue>, Exc> {
        let k = hash_key(key)?;
        let Some(i) = self.index.remove(&k) else {
            return Ok(None);
        };
        let (_, v) = self.entries.remove(i);
        for pos in self.index.values_mut() {
            if *pos > i {
                *pos -= 1;
            }
        }
        Ok(Some(v))
    }
}

fn new_dict(d: DictObj) -> ObjValue {
    ObjValue::Dict(Rc::new(RefCell::new(d)))
}

fn key_error(key: &ObjValue, dialect: Dialect) -> Exc {
    exc(
        "KeyError",
        String::from_utf8_lossy(&key.to_repr(dialect)).into_owned(),
    )
}

/// Which part of a dict a view or iterator shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DictPart {
    Keys,
    Values,
    Items,
}

impl DictPart {
    fn pick(self, (k, v): &(ObjValue, ObjValue)) -> ObjValue {
        match self {
            DictPart::Keys => k.clone(),
            DictPart::Values => v.clone(),
            DictPart::Items => ObjValue::tuple(vec![k.clone(), v.clone()]),
        }
    }

    /// The Python 3 view's type name.
    pub fn view_name(self) -> &'static str {
        match self {
            DictPart::Keys => "dict_keys",
            DictPart::Values => "dict_values",
            DictPart::Items => "dict_items",
        }
    }
}

// ---- ranges --------------------------------------------------------------

/// A Python 3 `range` or Python 2 `xrange` object.
#[derive(Debug, PartialEq)]
pub struct RangeObj {
    pub start: i64,
    pub stop: i64,
    pub step: i64,
    /// `xrange` (Python 2) rather than `range` (Python 3): only the repr differs.
    pub xrange: bool,
}

impl RangeObj {
    pub fn len(&self) -> usize {
        let (lo, hi, step) = if self.step > 0 {
            (self.start, self.stop, self.step)
        } else {
            (self.stop, self.start, -self.step)
        };
        if lo >= hi {
            0
        } else {
            ((hi as i128 - lo as i128 - 1) / step as i128 + 1) as usize
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn item(&self, i: usize) -> ObjValue {
        ObjValue::Int(self.start.wrapping_add((i as i64).wrapping_mul(self.step)))
    }

    /// `range(0, 3)`; Python 2 shows an `xrange` with its stop normalized to
    /// just past its last item and leaves out a default start and step.
    pub fn repr(&self) -> String {
        let (start, step) = (self.start, self.step);
        if !self.xrange {
            return match step {
                1 => format!("range({start}, {})", self.stop),
                _ => format!("range({start}, {}, {step})", self.stop),
            };
        }
        let stop = start.wrapping_add((self.len() as i64).wrapping_mul(step));
        match (start, step) {
            (0, 1) => format!("xrange({stop})"),
            (_, 1) => format!("xrange({start}, {stop})"),
            _ => format!("xrange({start}, {stop}, {step})"),
        }
    }
}

// ---- iterators -----------------------------------------------------------

/// The state of an iterator.
#[derive(PartialEq)]
pub enum IterObj {
    /// Over a list, tuple, string or range by index; a list is read live, so
    /// appending while iterating is seen, as in Python.
    Seq {
        seq: ObjValue,
        pos: usize,
    },
    /// Over a dict; changing its size while iterating is an error.
    Dict {
        dict: Rc<RefCell<DictObj>>,
        part: DictPart,
        pos: usize,
        len: usize,
    },
    Reversed {
        seq: ObjValue,
        left: usize,
    },
    Enumerate {
        inner: Rc<RefCell<IterObj>>,
        count: i64,
    },
    Zip(Vec<Rc<RefCell<IterObj>>>),
}

impl IterObj {
    pub fn type_name(&self) -> &'static str {
        match self {
            IterObj::Seq { .. } => "iterator",
            IterObj::Dict { .. } => "dictionary-iterator",
            IterObj::Reversed { .. } => "reversed",
            IterObj::Enumerate { .. } => "enumerate",
            IterObj::Zip(_) => "zip",
        }
    }

    /// The next item, `None` when exhausted.
    fn next(&mut self) -> Result<Option<ObjValue>, Exc> {
        match self {
            IterObj::Seq { seq, pos } => {
                let item = seq_item(seq, *pos);
                if item.is_some() {
                    *pos += 1;
                }
                Ok(item)
            }
            IterObj::Dict {
                dict,
                part,
                pos,
                len,
            } => {
                let d = dict.borrow();
                if d.len() != *len {
                    *len = usize::MAX; // stays broken, as in CPython
                    return Err(exc(
                        "RuntimeError",
                        "dictionary changed size during iteration",
                    ));
                }
                let item = d.entries().get(*pos).map(|e| part.pick(e));
                *pos += 1;
                Ok(item)
            }
            IterObj::Reversed { seq, left } => {
                if *left == 0 {
                    return Ok(None);
                }
                *left -= 1;
                Ok(seq_item(seq, *left))
            }
            IterObj::Enumerate { inner, count } => {
                let item = inner.borrow_mut().next()?;
                Ok(item.map(|x| {
                    let i = *count;
                    *count += 1;
                    ObjValue::tuple(vec![ObjValue::Int(i), x])
                }))
            }
            IterObj::Zip(its) => {
                let mut items = Vec::with_capacity(its.len());
                for it in its.iter() {
                    match it.borrow_mut().next()? {
                        Some(x) => items.push(x),
                        None => return Ok(None),
                    }
                }
                Ok(Some(ObjValue::tuple(items)))
            }
        }
    }
}

/// Item `i` of a sequence, `None` past its end.
fn seq_item(seq: &ObjValue, i: usize) -> Option<ObjValue> {
    match seq {
        ObjValue::List(l) => l.borrow().get(i).cloned(),
        ObjValue::Tuple(t) => t.get(i).cloned(),
        ObjValue::Str(s) => s.get(i).map(|b| ObjValue::str([*b])),
        ObjValue::Range(r) => (i < r.len()).then(|| r.item(i)),
        _ => None,
    }
}

fn seq_len(seq: &ObjValue) -> Option<usize> {
    Some(match seq {
        ObjValue::List(l) => l.borrow().len(),
        ObjValue::Tuple(t) => t.len(),
        ObjValue::Str(s) => s.len(),
        ObjValue::Range(r) => r.len(),
        _ => return None,
    })
}

fn new_iter(state: IterObj) -> ObjValue {
    ObjValue::Iter(Rc::new(RefCell::new(state)))
}

fn not_iterable(v: &ObjValue) -> Exc {
    type_error(format!("'{}' object is not iterable", v.type_name()))
}

/// `iter(x)`.
pub fn iter(x: &ObjValue) -> OpResult {
    Ok(match x {
        ObjValue::List(_) | ObjValue::Tuple(_) | ObjValue::Str(_) | ObjValue::Range(_) => {
            new_iter(IterObj::Seq {
                seq: x.clone(),
                pos: 0,
            })
        }
        ObjValue::Dict(d) => dict_iter(d, DictPart::Keys),
        ObjValue::DictView(d, part) => dict_iter(d, *part),
        ObjValue::Iter(_) => x.clone(),
        other => return Err(not_iterable(other)),
    })
}

fn dict_iter(d: &Rc<RefCell<DictObj>>, part: DictPart) -> ObjValue {
    let len = d.borrow().len();
    new_iter(IterObj::Dict {
        dict: d.clone(),
        part,
        pos: 0,
        len,
    })
}

fn iter_state(x: &ObjValue) -> Result<Rc<RefCell<IterObj>>, Exc> {
    match &iter(x)? {
        ObjValue::Iter(it) => Ok(it.clone()),
        _ => Err(not_iterable(x)),
    }
}

/// `next(it)`: raises `StopIteration` when the iterator is exhausted.
pub fn next(it: &ObjValue) -> OpResult {
    match it {
        ObjValue::Iter(state) => match state.borrow_mut().next()? {
            Some(x) => Ok(x),
            None => Err(exc("StopIteration", "")),
        },
        other => Err(type_error(format!(
            "'{}' object is not an iterator",
            other.type_name()
        ))),
    }
}

/// Every item of an iterable, in order.
pub fn items_of(x: &ObjValue) -> Result<Vec<ObjValue>, Exc> {
    let it = iter_state(x)?;
    let mut out = Vec::new();
    while let Some(v) = it.borrow_mut().next()? {
        out.push(v);
    }
    Ok(out)
}

// ---- operations ----------------------------------------------------------

/// The container operations: displays, slices, `del`, `iter` and `next`.
pub fn operation(op: Op, args: &[ObjValue], dialect: Dialect) -> OpResult {
    match (op, args) {
        (Op::NewTuple, items) => Ok(ObjValue::tuple(items.to_vec())),
        (Op::NewList, items) => Ok(ObjValue::list(items.to_vec())),
        (Op::NewDict, []) => Ok(new_dict(DictObj::default())),
        (Op::GetSlice, [obj, lo, hi]) => getslice(obj, lo, hi),
        (Op::DelItem, [obj, key]) => delitem(obj, key, dialect),
        (Op::DelSlice, [obj, lo, hi]) => delslice(obj, lo, hi),
        (Op::SetSlice, [obj, lo, hi, value]) => setslice(obj, lo, hi, value),
        (Op::Iter, [x]) => iter(x),
        (Op::Next, [it]) => next(it),
        _ => Err(exc(
            "InternalError",
            format!("'{}' cannot take {} arguments", op.name(), args.len()),
        )),
    }
}

/// The range `lo:hi` selects of a sequence of `len` items, as Python clamps it.
pub(super) fn slice_range(len: usize, lo: &ObjValue, hi: &ObjValue) -> Result<(usize, usize), Exc> {
    let bound = |v: &ObjValue, default: usize| -> Result<usize, Exc> {
        match v {
            ObjValue::None => Ok(default),
            other => {
                let i = other.as_int().ok_or_else(|| {
                    type_error("slice indices must be integers or None or have an __index__ method")
                })?;
                let n = len as i64;
                let i = if i < 0 { (i + n).max(0) } else { i.min(n) };
                Ok(i as usize)
            }
        }
    };
    let a = bound(lo, 0)?;
    let b = bound(hi, len)?;
    Ok((a, b.max(a)))
}

/// `obj[lo:hi]`.
pub fn getslice(obj: &ObjValue, lo: &ObjValue, hi: &ObjValue) -> OpResult {
    let Some(len) = seq_len(obj) else {
        return Err(type_error(format!(
            "'{}' object is not subscriptable",
            obj.type_name()
        )));
    };
    let (a, b) = slice_range(len, lo, hi)?;
    Ok(match obj {
        ObjValue::List(l) => ObjValue::list(l.borrow()[a..b].to_vec()),
        ObjValue::Tuple(t) => ObjValue::tuple(t[a..b].to_vec()),
        ObjValue::Str(s) => ObjValue::str(&s[a..b]),
        ObjValue::Range(r) => ObjValue::Range(Rc::new(RangeObj {
            start: r.start + a as i64 * r.step,
            stop: r.start + b as i64 * r.step,
            step: r.step,
            xrange: r.xrange,
        })),
        _ => unreachable!("seq_len answers only for sequences"),
    })
}

/// `del obj[key]`.
pub fn delitem(obj: &ObjValue, key: &ObjValue, dialect: Dialect) -> OpResult {
    match obj {
        ObjValue::List(l) => {
            let mut l = l.borrow_mut();
            let i = key.as_int().ok_or_else(|| {
                type_error(format!(
                    "list indices must be integers, not {}",
                    key.type_name()
                ))
            })?;
            let n = l.len() as i64;
            let k = if i < 0 { i + n } else { i };
            if !(0..n).contains(&k) {
                return Err(exc("IndexError", "list assignment index out of range"));
            }
            l.remove(k as usize);
            Ok(ObjValue::None)
        }
        ObjValue::Dict(d) => match d.borrow_mut().remove(key)? {
            Some(_) => Ok(ObjValue::None),
            None => Err(key_error(key, dialect)),
        },
        other => Err(type_error(match dialect {
            Dialect::Py2 => format!(
                "'{}' object doesn't support item deletion",
                other.type_name()
            ),
            Dialect::Py3 => format!(
                "'{}' object does not support item deletion",
                other.type_name()
            ),
        })),
    }
}

/// `del obj[lo:hi]`.
pub fn delslice(obj: &ObjValue, lo: &ObjValue, hi: &ObjValue) -> OpResult {
    match obj {
        ObjValue::List(l) => {
            let mut l = l.borrow_mut();
            let (a, b) = slice_range(l.len(), lo, hi)?;
            l.drain(a..b);
            Ok(ObjValue::None)
        }
        other => Err(type_error(format!(
            "'{}' object does not support item deletion",
            other.type_name()
        ))),
    }
}

/// `obj[lo:hi] = value`: the list's items from `lo` to `hi` replaced by
/// the items of `value`.
pub fn setslice(obj: &ObjValue, lo: &ObjValue, hi: &ObjValue, value: &ObjValue) -> OpResult {
    match obj {
        ObjValue::List(l) => {
            // Read first: `l[a:b] = l` replaces the slice with the old list.
            let items = items_of(value)?;
            let mut l = l.borrow_mut();
            let (a, b) = slice_range(l.len(), lo, hi)?;
            l.splice(a..b, items);
            Ok(ObjValue::None)
        }
        other => Err(type_error(format!(
            "'{}' object does not support slice assignment",
            other.type_name()
        ))),
    }
}

/// `obj[key]` of a tuple, dict or range (lists and strings are in `ops`).
pub fn getitem(obj: &ObjValue, key: &ObjValue, dialect: Dialect) -> Option<OpResult> {
    let index = |len: usize, what: &str| -> Result<usize, Exc> {
        let i = key.as_int().ok_or_else(|| {
            type_error(format!(
                "{what} indices must be integers, not {}",
                key.type_name()
            ))
        })?;
        let n = len as i64;
        let k = if i < 0 { i + n } else { i };
        if (0..n).contains(&k) {
            Ok(k as usize)
        } else {
            Err(exc("IndexError", format!("{what} index out of range")))
        }
    };
    Some(match obj {
        ObjValue::Tuple(t) => index(t.len(), "tuple").map(|i| t[i].clone()),
        ObjValue::Range(r) => {
            let what = if r.xrange {
                "xrange object"
            } else {
                "range object"
            };
            index(r.len(), what).map(|i| r.item(i))
        }
        ObjValue::Dict(d) => match d.borrow().get(key) {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(key_error(key, dialect)),
            Err(e) => Err(e),
        },
        _ => return None,
    })
}

/// `dict[key] = value`.
pub fn setitem(obj: &ObjValue, key: &ObjValue, value: ObjValue) -> Option<OpResult> {
    match obj {
        ObjValue::Dict(d) => Some(
            d.borrow_mut()
                .set(key.clone(), value)
                .map(|()| ObjValue::None),
        ),
        _ => None,
    }
}

/// `item in container` for tuples, dicts, views and ranges.
pub fn contains(container: &ObjValue, item: &ObjValue) -> Option<OpResult> {
    Some(match container {
        ObjValue::Tuple(t) => Ok(ObjValue::Bool(t.iter().any(|x| equal(x, item)))),
        ObjValue::Dict(d) | ObjValue::DictView(d, DictPart::Keys) => {
            d.borrow().get(item).map(|v| ObjValue::Bool(v.is_some()))
        }
        ObjValue::DictView(..) | ObjValue::Range(_) | ObjValue::Iter(_) => {
            items_of(container).map(|xs| ObjValue::Bool(xs.iter().any(|x| equal(x, item))))
        }
        _ => return None,
    })
}

/// `len(x)` of a tuple, dict, view or range.
pub fn len(x: &ObjValue) -> Option<usize> {
    match x {
        ObjValue::Tuple(t) => Some(t.len()),
        ObjValue::Dict(d) | ObjValue::DictView(d, _) => Some(d.borrow().len()),
        ObjValue::Range(r) => Some(r.len()),
        _ => None,
    }
}

/// `a == b` for tuples, dicts and ranges; `None` for other values.
pub fn equal_containers(a: &ObjValue, b: &ObjValue) -> Option<bool> {
    Some(match (a, b) {
        // A tuple is equal to itself without comparing its items, as in
        // CPython (whose item comparisons start with identity).
        (ObjValue::Tuple(x), ObjValue::Tuple(y)) => {
            Rc::ptr_eq(x, y)
                || (x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| equal(p, q)))
        }
        (ObjValue::Dict(x), ObjValue::Dict(y)) => {
            Rc::ptr_eq(x, y) || {
                let (x, y) = (x.borrow(), y.borrow());
                x.len() == y.len()
                    && x.entries().iter().all(|(k, v)| match y.get(k) {
                        Ok(Some(w)) => equal(v, &w),
                        _ => false,
                    })
            }
        }
        (ObjValue::Range(x), ObjValue::Range(y)) => {
            let (n, m) = (x.len(), y.len());
            n == m && (n == 0 || (x.start == y.start && (n == 1 || x.step == y.step)))
        }
        _ => return None,
    })
}

// ---- builtins ------------------------------------------------------------

fn arity(name: &str, args: &[ObjValue], min: usize, max: usize) -> Result<(), Exc> {
    if (min..=max).contains(&args.len()) {
        Ok(())
    } else {
        Err(type_error(format!(
            "{name}() takes from {min} to {max} arguments ({} given)",
            args.len()
        )))
    }
}

/// The container builtins: `range`, `xrange`, `list`, `dict`, `enumerate`,
/// `zip`, `reversed`; `None` for any other name.
pub fn call_builtin(name: &str, args: &[ObjValue], dialect: Dialect) -> Option<OpResult> {
    Some(match name {
        "range" | "xrange" => range(name, args, dialect),
        "list" => arity(name, args, 0, 1).and_then(|()| match args.first() {
            None => Ok(ObjValue::list(Vec::new())),
            Some(x) => items_of(x).map(ObjValue::list),
        }),
        "enumerate" => arity(name, args, 1, 1).and_then(|()| {
            Ok(new_iter(IterObj::Enumerate {
                inner: iter_state(&args[0])?,
                count: 0,
            }))
        }),
        "zip" => {
            let its = args.iter().map(iter_state).collect::<Result<Vec<_>, _>>();
            its.and_then(|its| {
                let z = new_iter(IterObj::Zip(its));
                match dialect {
                    Dialect::Py2 => items_of(&z).map(ObjValue::list),
                    Dialect::Py3 => Ok(z),
                }
            })
        }
        "dict" => arity(name, args, 0, 1).and_then(|()| dict_of(args.first())),
        "reversed" => arity(name, args, 1, 1).and_then(|()| match seq_len(&args[0]) {
            Some(left) => Ok(new_iter(IterObj::Reversed {
                seq: args[0].clone(),
                left,
            })),
            None => Err(type_error(match dialect {
                Dialect::Py2 => "argument to reversed() must be a sequence".to_string(),
                Dialect::Py3 => format!("'{}' object is not reversible", args[0].type_name()),
            })),
        }),
        _ => return None,
    })
}

/// `dict()`, `dict(d)` (a copy) or `dict(pairs)`: each item of `pairs` a
/// sequence of two, the later of equal keys winning, as CPython builds it.
fn dict_of(source: Option<&ObjValue>) -> OpResult {
    let mut dict = DictObj::default();
    match source {
        None => {}
        Some(ObjValue::Dict(d)) => {
            for (k, v) in d.borrow().entries() {
                dict.set(k.clone(), v.clone())?;
            }
        }
        Some(pairs) => {
            for (i, item) in items_of(pairs)?.into_iter().enumerate() {
                let pair = items_of(&item).map_err(|_| {
                    type_error(format!(
                        "cannot convert dictionary update sequence element #{i} to a sequence"
                    ))
                })?;
                let [key, value] = <[ObjValue; 2]>::try_from(pair).map_err(|pair| {
                    exc(
                        "ValueError",
                        format!(
                            "dictionary update sequence element #{i} has length {}; 2 is required",
                            pair.len()
                        ),
                    )
                })?;
                dict.set(key, value)?;
            }
        }
    }
    Ok(new_dict(dict))
}

/// `range(...)`: a list in Python 2, a range object in Python 3;
/// `xrange(...)` is Python 2's range object.
fn range(name: &str, args: &[ObjValue], dialect: Dialect) -> OpResult {
    arity(name, args, 1, 3)?;
    let ints = args
        .iter()
        .map(|a| {
            a.as_int().ok_or_else(|| {
                type_error(format!(
                    "'{}' object cannot be interpreted as an integer",
                    a.type_name()
                ))
            })
        })
        .collect::<Result<Vec<i64>, _>>()?;
    let (start, stop, step) = match ints.as_slice() {
        [stop] => (0, *stop, 1),
        [start, stop] => (*start, *stop, 1),
        [start, stop, step] => (*start, *stop, *step),
        _ => unreachable!("arity checked"),
    };
    if step == 0 {
        return Err(exc(
            "ValueError",
            format!("{name}() arg 3 must not be zero"),
        ));
    }
    let r = RangeObj {
        start,
        stop,
        step,
        xrange: name == "xrange",
    };
    if name == "range" && dialect == Dialect::Py2 {
        return Ok(ObjValue::list((0..r.len()).map(|i| r.item(i)).collect()));
    }
    Ok(ObjValue::Range(Rc::new(r)))
}

// ---- methods -------------------------------------------------------------

/// A method of a builtin type bound to its receiver (`l.append`).
#[derive(Debug, PartialEq)]
pub struct MethodObj {
    pub receiver: ObjValue,
    pub name: &'static str,
}

/// `obj.name` for a method of a list, dict, tuple or str; `None` when the
/// value's type has no such method.
pub fn method(obj: &ObjValue, name: &str, dialect: Dialect) -> Option<ObjValue> {
    let ty = match obj {
        ObjValue::List(_) => BuiltinType::List,
        ObjValue::Dict(_) => BuiltinType::Dict,
        ObjValue::Tuple(_) => BuiltinType::Tuple,
        ObjValue::Str(_) => BuiltinType::Str,
        _ => return None,
    };
    let name = builtin_methods(ty, dialect).find(|m| *m == name)?;
    Some(ObjValue::Method(Rc::new(MethodObj {
        receiver: obj.clone(),
        name,
    })))
}

fn method_arity(m: &MethodObj, args: &[ObjValue], min: usize, max: usize) -> Result<(), Exc> {
    if (min..=max).contains(&args.len()) {
        return Ok(());
    }
    let takes = if min == max {
        match min {
            0 => "no arguments".to_string(),
            1 => "exactly one argument".to_string(),
            n => format!("exactly {n} arguments"),
        }
    } else {
        format!("at most {max} arguments")
    };
    Err(type_error(format!(
        "{}() takes {takes} ({} given)",
        m.name,
        args.len()
    )))
}

/// Calls a bound method of a builtin type.
pub fn call_method(m: &MethodObj, args: &[ObjValue], dialect: Dialect) -> OpResult {
    match &m.receiver {
        ObjValue::List(l) => list_method(m, l, args, dialect),
        ObjValue::Dict(d) => dict_method(m, d, args, dialect),
        ObjValue::Tuple(t) => {
            let items = ObjValue::list(t.to_vec());
            match &items {
                ObjValue::List(l) => list_method(m, l, args, dialect),
                _ => unreachable!("ObjValue::list makes a list"),
            }
        }
        ObjValue::Str(s) => super::strmethods::call(m.name, s, args, dialect),
        other => Err(type_error(format!(
            "'{}' object has no method '{}'",
            other.type_name(),
            m.name
        ))),
    }
}

fn list_method(
    m: &MethodObj,
    l: &Rc<RefCell<Vec<ObjValue>>>,
    args: &[ObjValue],
    dialect: Dialect,
) -> OpResult {
    let int_arg = |v: &ObjValue| {
        v.as_int().ok_or_else(|| {
            type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                v.type_name()
            ))
        })
    };
    match m.name {
        "append" => {
            method_arity(m, args, 1, 1)?;
            l.borrow_mut().push(args[0].clone());
            Ok(ObjValue::None)
        }
        "extend" => {
            method_arity(m, args, 1, 1)?;
            let items = items_of(&args[0])?;
            l.borrow_mut().extend(items);
            Ok(ObjValue::None)
        }
        "insert" => {
            method_arity(m, args, 2, 2)?;
            let mut items = l.borrow_mut();
            let n = items.len() as i64;
            let i = int_arg(&args[0])?;
            let i = if i < 0 { (i + n).max(0) } else { i.min(n) };
            items.insert(i as usize, args[1].clone());
            Ok(ObjValue::None)
        }
        "pop" => {
            method_arity(m, args, 0, 1)?;
            let mut items = l.borrow_mut();
            if items.is_empty() {
                return Err(exc("IndexError", "pop from empty list"));
            }
            let n = items.len() as i64;
            let i = match args.first() {
                Some(a) => int_arg(a)?,
                None => -1,
            };
            let k = if i < 0 { i + n } else { i };
            if !(0..n).contains(&k) {
                return Err(exc("IndexError", "pop index out of range"));
            }
            Ok(items.remove(k as usize))
        }
        "reverse" => {
            method_arity(m, args, 0, 0)?;
            l.borrow_mut().reverse();
            Ok(ObjValue::None)
        }
        "index" => {
            method_arity(m, args, 1, 1)?;
            match l.borrow().iter().position(|x| equal(x, &args[0])) {
                Some(i) => Ok(ObjValue::Int(i as i64)),
                None => Err(exc(
                    "ValueError",
                    match m.receiver {
                        ObjValue::Tuple(_) => "tuple.index(x): x not in tuple".to_string(),
                        _ => format!(
                            "{} is not in list",
                            String::from_utf8_lossy(&args[0].to_repr(dialect))
                        ),
                    },
                )),
            }
        }
        "count" => {
            method_arity(m, args, 1, 1)?;
            let n = l.borrow().iter().filter(|x| equal(x, &args[0])).count();
            Ok(ObjValue::Int(n as i64))
        }
        "remove" => {
            method_arity(m, args, 1, 1)?;
            let pos = l.borrow().iter().position(|x| equal(x, &args[0]));
            match pos {
                Some(i) => {
                    l.borrow_mut().remove(i);
                    Ok(ObjValue::None)
                }
                None => Err(exc("ValueError", "list.remove(x): x not in list")),
            }
        }
        other => Err(type_error(format!("list has no method '{other}'"))),
    }
}

fn dict_method(
    m: &MethodObj,
    d: &Rc<RefCell<DictObj>>,
    args: &[ObjValue],
    dialect: Dialect,
) -> OpResult {
    let part_of = |name: &str| match name {
        "keys" | "iterkeys" => DictPart::Keys,
        "values" | "itervalues" => DictPart::Values,
        _ => DictPart::Items,
    };
    match m.name {
        "get" => {
            method_arity(m, args, 1, 2)?;
            let v = d.borrow().get(&args[0])?;
            Ok(v.unwrap_or_else(|| args.get(1).cloned().unwrap_or(ObjValue::None)))
        }
        "has_key" => {
            method_arity(m, args, 1, 1)?;
            Ok(ObjValue::Bool(d.borrow().get(&args[0])?.is_some()))
        }
        "keys" | "values" | "items" => {
            method_arity(m, args, 0, 0)?;
            let part = part_of(m.name);
            match dialect {
                Dialect::Py2 => Ok(ObjValue::list(
                    d.borrow().entries().iter().map(|e| part.pick(e)).collect(),
                )),
                Dialect::Py3 => Ok(ObjValue::DictView(d.clone(), part)),
            }
        }
        "iterkeys" | "itervalues" | "iteritems" => {
            method_arity(m, args, 0, 0)?;
            Ok(dict_iter(d, part_of(m.name)))
        }
        "setdefault" => {
            method_arity(m, args, 1, 2)?;
            let existing = d.borrow().get(&args[0])?;
            match existing {
                Some(v) => Ok(v),
                None => {
                    let v = args.get(1).cloned().unwrap_or(ObjValue::None);
                    d.borrow_mut().set(args[0].clone(), v.clone())?;
                    Ok(v)
                }
            }
        }
        "pop" => {
            method_arity(m, args, 1, 2)?;
            let removed = d.borrow_mut().remove(&args[0])?;
            match (removed, args.get(1)) {
                (Some(v), _) => Ok(v),
                (None, Some(default)) => Ok(default.clone()),
                (None, None) => Err(key_error(&args[0], dialect)),
            }
        }
        "clear" => {
            method_arity(m, args, 0, 0)?;
            *d.borrow_mut() = DictObj::default();
            Ok(ObjValue::None)
        }
        "copy" => {
            method_arity(m, args, 0, 0)?;
            let mut copy = DictObj::default();
            for (k, v) in d.borrow().entries() {
                copy.set(k.clone(), v.clone())?;
            }
            Ok(new_dict(copy))
        }
        "update" => {
            method_arity(m, args, 1, 1)?;
            let ObjValue::Dict(other) = &args[0] else {
                return Err(type_error(format!(
                    "update() needs a dict, not '{}'",
                    args[0].type_name()
                )));
            };
            let entries = other.borrow().entries().to_vec();
            let mut target = d.borrow_mut();
            for (k, v) in entries {
                target.set(k, v)?;
            }
            Ok(ObjValue::None)
        }
        other => Err(type_error(format!("dict has no method '{other}'"))),
    }
}

/// `repr()` of a tuple, dict, view or range; `None` for other values.
pub fn repr(x: &ObjValue, dialect: Dialect) -> Option<Vec<u8>> {
    let joined = |items: &mut dyn Iterator<Item = Vec<u8>>| {
        let mut out = Vec::new();
        for (k, item) in items.enumerate() {
            if k > 0 {
                out.extend_from_slice(b", ");
            }
            out.extend(item);
        }
        out
    };
    Some(match x {
        ObjValue::Tuple(t) => {
            let mut out = b"(".to_vec();
            out.extend(joined(&mut t.iter().map(|i| i.to_repr(dialect))));
            if t.len() == 1 {
                out.push(b',');
            }
            out.push(b')');
            out
        }
        ObjValue::Dict(d) => {
            let d = d.borrow();
            let mut out = b"{".to_vec();
            out.extend(joined(&mut d.entries().iter().map(|(k, v)| {
                let mut e = k.to_repr(dialect);
                e.extend_from_slice(b": ");
                e.extend(v.to_repr(dialect));
                e
            })));
            out.push(b'}');
            out
        }
        ObjValue::DictView(d, part) => {
            let d = d.borrow();
            let mut out = format!("{}([", part.view_name()).into_bytes();
            out.extend(joined(
                &mut d.entries().iter().map(|e| part.pick(e).to_repr(dialect)),
            ));
            out.extend_from_slice(b"])");
            out
        }
        ObjValue::Range(r) => r.repr().into_bytes(),
        ObjValue::Iter(it) => format!("<{} object>", it.borrow().type_name()).into_bytes(),
        ObjValue::Method(m) => format!(
            "<built-in method {} of {} object>",
            m.name,
            m.receiver.type_name()
        )
        .into_bytes(),
        _ => return None,
    })
}

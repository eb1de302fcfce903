//! `r_dict(key_eq, key_hash)` of rlib.objectmodel: a dict whose keys are
//! compared with the program's `key_eq` and hashed with its `key_hash`.
//!
//! Every lookup calls those functions (graphs of the program) as the
//! translated dict does: the key's hash first, then `key_eq` against each
//! stored key of that hash, in insertion order. Items keep insertion order.

use super::containers::{self, MethodObj};
use super::ops::{exc, Exc, Op};
use super::{ObjInterpreter, ObjValue, Stop};
use std::io::Write;
use std::rc::Rc;

/// An `r_dict`'s functions and items.
#[derive(Debug, PartialEq)]
pub struct RDictObj {
    key_eq: ObjValue,
    key_hash: ObjValue,
    /// (hash, key, value), in insertion order.
    entries: Vec<(i64, ObjValue, ObjValue)>,
}

impl RDictObj {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Empties the dict, giving up its functions, keys and values.
    pub fn take_contents(&mut self) -> Vec<ObjValue> {
        let mut contents = vec![
            std::mem::replace(&mut self.key_eq, ObjValue::None),
            std::mem::replace(&mut self.key_hash, ObjValue::None),
        ];
        for (_, key, value) in std::mem::take(&mut self.entries) {
            contents.extend([key, value]);
        }
        contents
    }

    /// The keys, values or (key, value) tuples, in insertion order.
    fn part(&self, name: &str) -> Vec<ObjValue> {
        self.entries
            .iter()
            .map(|(_, k, v)| match name {
                "values" => v.clone(),
                "items" => ObjValue::tuple(vec![k.clone(), v.clone()]),
                _ => k.clone(),
            })
            .collect()
    }
}

/// The methods of an r_dict the interpreter runs.
const RDICT_METHODS: &[&str] = &["get", "keys", "values", "items"];

/// `r_dict(key_eq, key_hash)` (the other parameters only tune the
/// translated dict).
pub fn new_rdict(args: &[ObjValue]) -> Result<ObjValue, Exc> {
    match args {
        [key_eq, key_hash, ..] if args.len() <= 4 => Ok(ObjValue::RDict(Rc::new(
            std::cell::RefCell::new(RDictObj {
                key_eq: key_eq.clone(),
                key_hash: key_hash.clone(),
                entries: Vec::new(),
            }),
        ))),
        _ => Err(exc(
            "TypeError",
            format!(
                "r_dict() takes the key_eq and key_hash functions ({} arguments given)",
                args.len()
            ),
        )),
    }
}

/// `d.name` of an r_dict: one of its methods.
pub fn method(d: &ObjValue, name: &str) -> Option<ObjValue> {
    let name = RDICT_METHODS.iter().find(|m| **m == name)?;
    Some(ObjValue::Method(Rc::new(MethodObj {
        receiver: d.clone(),
        name,
    })))
}

impl ObjInterpreter<'_> {
    /// The operation `op` when its first argument (the container of
    /// `contains`) is an r_dict, or a method call of one; `None` otherwise.
    pub(super) fn rdict_operation(
        &self,
        op: Op,
        args: &[ObjValue],
        out: &mut dyn Write,
    ) -> Option<Result<ObjValue, Stop>> {
        let (d, rest, method) = match (op, args) {
            (Op::SimpleCall, [ObjValue::Method(m), rest @ ..]) => match &m.receiver {
                ObjValue::RDict(d) => (d, rest, Some(m.name)),
                _ => return None,
            },
            (Op::SimpleCall, [ObjValue::Builtin(b), ObjValue::RDict(d)]) if b.as_ref() == "len" => {
                return Some(Ok(ObjValue::Int(d.borrow().len() as i64)))
            }
            (_, [ObjValue::RDict(d), rest @ ..]) => (d, rest, None),
            _ => return None,
        };
        let r = match (op, method, rest) {
            (_, Some("get"), [key, default @ ..]) if default.len() <= 1 => {
                self.rdict_find(d, key, out).map(|(_, found)| match found {
                    Some(i) => d.borrow().entries[i].2.clone(),
                    None => default.first().cloned().unwrap_or(ObjValue::None),
                })
            }
            (_, Some(part), []) => Ok(ObjValue::list(d.borrow().part(part))),
            (Op::GetAttr, None, [ObjValue::Str(name)]) => {
                let name = String::from_utf8_lossy(name);
                self::method(&args[0], &name).ok_or_else(|| {
                    Stop::Raise(exc(
                        "AttributeError",
                        format!("'r_dict' object has no attribute '{name}'"),
                    ))
                })
            }
            (Op::GetItem, None, [key]) => self
                .rdict_index(d, key, out)
                .map(|i| d.borrow().entries[i].2.clone()),
            (Op::SetItem, None, [key, value]) => self.rdict_find(d, key, out).map(|(h, found)| {
                let mut d = d.borrow_mut();
                match found {
                    Some(i) => d.entries[i].2 = value.clone(),
                    None => d.entries.push((h, key.clone(), value.clone())),
                }
                ObjValue::None
            }),
            (Op::DelItem, None, [key]) => self.rdict_index(d, key, out).map(|i| {
                d.borrow_mut().entries.remove(i);
                ObjValue::None
            }),
            (Op::Contains, None, [key]) => self
                .rdict_find(d, key, out)
                .map(|(_, found)| ObjValue::Bool(found.is_some())),
            (Op::Iter, None, []) => {
                containers::iter(&ObjValue::list(d.borrow().part("keys"))).map_err(Stop::Raise)
            }
            (Op::Bool, None, []) => Ok(ObjValue::Bool(!d.borrow().is_empty())),
            _ => Err(Stop::Raise(exc(
                "TypeError",
                format!(
                    "the operation '{}' is not supported on an r_dict",
                    method.unwrap_or(op.name())
                ),
            ))),
        };
        Some(r)
    }

    /// The index of the entry whose key equals `key`; KeyError without one.
    fn rdict_index(
        &self,
        d: &Rc<std::cell::RefCell<RDictObj>>,
        key: &ObjValue,
        out: &mut dyn Write,
    ) -> Result<usize, Stop> {
        self.rdict_find(d, key, out)?.1.ok_or_else(|| {
            let text = String::from_utf8_lossy(&key.to_repr(self.dialect)).into_owned();
            Stop::Raise(exc("KeyError", text))
        })
    }

    /// The hash of `key` and the index of the entry whose key equals it,
    /// by the r_dict's own functions.
    fn rdict_find(
        &self,
        d: &Rc<std::cell::RefCell<RDictObj>>,
        key: &ObjValue,
        out: &mut dyn Write,
    ) -> Result<(i64, Option<usize>), Stop> {
        let (key_eq, key_hash) = {
            let d = d.borrow();
            (d.key_eq.clone(), d.key_hash.clone())
        };
        let hashed = self.call_value(&key_hash, vec![key.clone()], out)?;
        let h = hashed.as_int().ok_or_else(|| {
            Stop::Raise(exc(
                "TypeError",
                format!(
                    "an r_dict's key_hash returned a {}, not an int",
                    hashed.type_name()
                ),
            ))
        })?;
        let candidates: Vec<(usize, ObjValue)> = d
            .borrow()
            .entries
            .iter()
            .enumerate()
            .filter(|(_, (eh, _, _))| *eh == h)
            .map(|(i, (_, k, _))| (i, k.clone()))
            .collect();
        for (i, k) in candidates {
            if self.call_value(&key_eq, vec![k, key.clone()], out)?.truth() {
                return Ok((h, Some(i)));
            }
        }
        Ok((h, None))
    }
}

//! Operations that make, fill or read lists, dicts, tuples and iterators:
//! they need the annotator's table of container definitions (a new list is
//! the definition of its site; storing an item generalizes it and reflows
//! every reader), which rules cannot reach. Builtins that return a list in
//! RPython (`range`, `enumerate`, `zip`, `list`, `dict.items()`, `str.split()`)
//! make one at their call's site, as the original's annotator does.

use super::containers::Site;
use super::{union, Annotator, PartError};
use crate::language::builtins::{builtin_methods, BuiltinType};
use rpy_ir::annotation::{Desc, DictDef, Known, ListDef, SomeValue};
use rpy_ir::ast::Dialect;
use rpy_ir::diag::Diagnostic;
use rpy_ir::graph::{BlockId, Constant, SpaceOperation};
use rpy_ir::opcode::Opcode;

/// Methods of the language's builtin types that RPython leaves out: the
/// flow builder and the object interpreter know them (CPython runs them), the
/// annotator reports them with what to write instead (`messages.rs`).
const NOT_IN_RPYTHON: &[&str] = &["has_key"];

/// What iterating over `container` yields, if it can be iterated.
fn element(container: &SomeValue) -> Option<SomeValue> {
    match container {
        SomeValue::List(def) => Some((*def.item).clone()),
        SomeValue::Dict(def) => Some((*def.key).clone()),
        SomeValue::String { .. } | SomeValue::Char => Some(SomeValue::Char),
        SomeValue::Tuple(items) => items
            .iter()
            .try_fold(SomeValue::Impossible, |acc, i| union(&acc, i)),
        _ => None,
    }
}

/// `list` itself, or an iterator over it for the `iter...` methods.
fn iterator_if(method: &str, list: SomeValue) -> SomeValue {
    if method.starts_with("iter") {
        SomeValue::Iterator(Box::new(list))
    } else {
        list
    }
}

fn nonneg() -> SomeValue {
    SomeValue::nonneg_int()
}

fn string(no_nul: bool) -> SomeValue {
    SomeValue::String {
        can_be_none: false,
        no_nul,
    }
}

impl Annotator<'_> {
    /// What iterating `container` gives; a tuple's items joined as the
    /// annotator joins them (instances of two classes are one of their
    /// common base, as the original's `unionof` of the items).
    fn element(&mut self, container: &SomeValue) -> Option<SomeValue> {
        match container {
            SomeValue::Tuple(items) => items
                .iter()
                .try_fold(SomeValue::Impossible, |acc, i| self.join(&acc, i)),
            _ => element(container),
        }
    }

    /// The result of `op` when it is a container operation; `None` for any
    /// other operation (the rules type it).
    pub(super) fn container_op(
        &mut self,
        g: usize,
        b: BlockId,
        index: usize,
        op: &SpaceOperation,
        args: &[SomeValue],
    ) -> Option<Result<SomeValue, Diagnostic>> {
        use SomeValue as S;
        let site = Site::Op(g, b, index);
        let builtin = match args.first() {
            Some(S::Builtin(name)) if op.opname == Opcode::SimpleCall => Some(name.as_str()),
            _ => None,
        };
        Some(match (op.opname, builtin, args) {
            (Opcode::Newlist, _, items) => {
                let id = self.containers.at_site(site);
                for item in items {
                    if let Err(e) = self.store_item(g, op, id, false, item) {
                        return Some(Err(e));
                    }
                }
                Ok(self.containers.resolve(&S::List(ListDef {
                    id,
                    item: Box::new(S::Impossible),
                    resizable: false,
                    can_be_none: false,
                })))
            }
            (Opcode::Newtuple, _, items) => Ok(S::Tuple(items.to_vec())),
            // `r_dict(key_eq, key_hash)`: a dict whose keys the program's
            // functions compare and hash. They are called with the key
            // annotation, and again when it generalizes (this block reads
            // the dict), as the original's r_dict does.
            (Opcode::SimpleCall, Some("r_dict"), [_, eq @ S::Pbc { .. }, hash @ S::Pbc { .. }]) => {
                let id = self.containers.at_site(site);
                self.containers.add_reader(id, (g, b));
                if let (S::Pbc { descs: eqs, .. }, S::Pbc { descs: hashes, .. }) = (eq, hash) {
                    let ([Desc::Function(eq_fn)], [Desc::Function(hash_fn)]) =
                        (&eqs[..], &hashes[..])
                    else {
                        return Some(Err(self.error(
                            g,
                            op.pos,
                            "an r_dict's key functions must each be one function of the program"
                                .into(),
                        )));
                    };
                    self.custom_keys
                        .insert(id, (eq_fn.clone(), hash_fn.clone()));
                }
                let key = self.containers.part(id, false);
                if key != S::Impossible {
                    for (functions, args) in
                        [(eq, vec![key.clone(), key.clone()]), (hash, vec![key])]
                    {
                        let S::Pbc { descs, .. } = functions else {
                            continue;
                        };
                        for desc in descs.clone().iter() {
                            if let Err(e) = self.call_desc(g, b, op, desc, &args) {
                                return Some(Err(e));
                            }
                        }
                    }
                }
                Ok(self.containers.resolve(&S::Dict(DictDef {
                    id,
                    key: Box::new(S::Impossible),
                    value: Box::new(S::Impossible),
                    can_be_none: false,
                })))
            }
            (Opcode::Newdict, _, []) => {
                let id = self.containers.at_site(site);
                Ok(self.containers.resolve(&S::Dict(DictDef {
                    id,
                    key: Box::new(S::Impossible),
                    value: Box::new(S::Impossible),
                    can_be_none: false,
                })))
            }
            (Opcode::Getslice, _, [S::Tuple(items), _, _]) => self.tuple_slice(g, op, items),
            // As in the original, a key looked up generalizes the dict's
            // keys (a dict of chars looked up with a str is a dict of strs),
            // and an item looked for generalizes the list's items.
            (Opcode::Getitem, _, [S::Dict(def), key]) => self
                .store_item(g, op, def.id, false, key)
                .map(|()| self.containers.part(def.id, true)),
            (Opcode::Contains, _, [S::Dict(def), key]) => {
                self.store_item(g, op, def.id, false, key).map(|()| S::Bool)
            }
            (Opcode::Contains, _, [S::List(def), item]) => self
                .store_item(g, op, def.id, false, item)
                .map(|()| S::Bool),
            (Opcode::Setitem, _, [S::List(def), S::Integer { .. } | S::Bool, value]) => self
                .store_item(g, op, def.id, false, value)
                .map(|()| S::None),
            (Opcode::Setitem, _, [S::Dict(def), key, value]) => self
                .store_item(g, op, def.id, false, key)
                .and_then(|()| self.store_item(g, op, def.id, true, value))
                .map(|()| S::None),
            (Opcode::Delitem, _, [S::List(def), S::Integer { .. } | S::Bool])
            | (Opcode::Delslice, _, [S::List(def), _, _]) => {
                self.resized(def.id);
                Ok(S::None)
            }
            (Opcode::Delitem, _, [S::Dict(def), key]) => {
                self.store_item(g, op, def.id, false, key).map(|()| S::None)
            }
            // `l[a:b] = other`: other's items go into l, whose length changes
            // (this block reads other, so it is flowed again when other's
            // items generalize).
            (Opcode::Setslice, _, [S::List(def), _, _, S::List(source)]) => {
                if let Err(e) = self.store_item(g, op, def.id, false, &source.item) {
                    return Some(Err(e));
                }
                self.resized(def.id);
                Ok(S::None)
            }
            (Opcode::Getslice, _, [S::List(def), _, _]) => self.new_list(site, &def.item, g, op),
            (Opcode::Add, _, [S::List(x), S::List(y)]) => self
                .new_list(site, &x.item, g, op)
                .and_then(|_| self.new_list(site, &y.item, g, op)),
            (Opcode::Mul, _, [S::List(def), S::Integer { .. } | S::Bool])
            | (Opcode::Mul, _, [S::Integer { .. } | S::Bool, S::List(def)]) => {
                self.new_list(site, &def.item, g, op)
            }
            // len() of a tuple is known: the number of its items (so
            // that `if len(args) == 0: return` cuts the rest of a
            // function specialized for no `*args`, as the original's
            // constant length does).
            (Opcode::SimpleCall, Some("len"), [_, S::Tuple(items)]) => {
                Ok(S::Const(Known::Int(items.len() as i64)))
            }
            (Opcode::Add, _, [S::Tuple(x), S::Tuple(y)]) => {
                Ok(S::Tuple(x.iter().chain(y).cloned().collect()))
            }
            // Tuples compare item by item: each pair must be comparable.
            (Opcode::Lt | Opcode::Le | Opcode::Gt | Opcode::Ge, _, [S::Tuple(x), S::Tuple(y)]) => {
                let comparable = x.iter().zip(y).all(|(a, b)| {
                    rpy_ruleset::annotate::op_result(op.opname, &[a.clone(), b.clone()]).is_some()
                });
                if !comparable {
                    return None;
                }
                Ok(S::Bool)
            }
            (Opcode::Iter, _, [S::Iterator(_)]) => Ok(args[0].clone()),
            (Opcode::Iter, _, [c]) if self.element(c).is_some() => {
                Ok(S::Iterator(Box::new(c.clone())))
            }
            (Opcode::Next, _, [S::Iterator(c)]) => self.element(c).map(Ok)?,
            (Opcode::SimpleCall, Some("range" | "xrange"), [_, bounds @ ..])
                if !bounds.is_empty()
                    && bounds
                        .iter()
                        .all(|a| matches!(a, S::Integer { .. } | S::Bool)) =>
            {
                let all_nonneg = bounds
                    .iter()
                    .all(|a| matches!(a, S::Integer { nonneg: true, .. } | S::Bool));
                let item = if all_nonneg { nonneg() } else { S::int() };
                self.new_built_list(site, &item, g, op)
            }
            (Opcode::SimpleCall, Some("list"), [_]) => {
                self.new_built_list(site, &S::Impossible, g, op)
            }
            (Opcode::SimpleCall, Some("list"), [_, c]) => match self.element(c) {
                Some(item) => self.new_built_list(site, &item, g, op),
                None => return None,
            },
            (Opcode::SimpleCall, Some("enumerate"), [_, c]) => match self.element(c) {
                Some(item) => self.new_built_list(site, &S::Tuple(vec![nonneg(), item]), g, op),
                None => return None,
            },
            (Opcode::SimpleCall, Some("zip"), [_, a, b]) => {
                match (self.element(a), self.element(b)) {
                    (Some(x), Some(y)) => self.new_built_list(site, &S::Tuple(vec![x, y]), g, op),
                    _ => return None,
                }
            }
            (Opcode::SimpleCall, Some("reversed"), [_, c @ S::List(_)]) => {
                Ok(S::Iterator(Box::new(c.clone())))
            }
            (Opcode::Getattr, _, [receiver, S::Object]) => {
                let Some(Constant::Name(name)) = op.args[1].as_const() else {
                    return None;
                };
                let ty = match receiver {
                    S::List(_) => BuiltinType::List,
                    S::Dict(_) => BuiltinType::Dict,
                    S::String { .. } | S::Char => BuiltinType::Str,
                    _ => return None,
                };
                if NOT_IN_RPYTHON.contains(&name.as_str())
                    || !builtin_methods(ty, self.dialect).any(|m| m == name)
                {
                    return None;
                }
                Ok(S::BuiltinMethod {
                    name: name.clone(),
                    receiver: Box::new(receiver.clone()),
                })
            }
            (Opcode::SimpleCall, _, [S::BuiltinMethod { name, receiver }, rest @ ..]) => {
                return self.call_method(g, op, site, name, receiver, rest)
            }
            _ => return None,
        })
    }

    /// Item `index` (it must be known) of a tuple.
    pub(super) fn tuple_item(
        &self,
        g: usize,
        op: &SpaceOperation,
        items: &[SomeValue],
        index: Option<&Known>,
    ) -> Result<SomeValue, Diagnostic> {
        let Some(Known::Int(i)) = index else {
            return Err(self.error(
                g,
                op.pos,
                "a tuple can only be indexed by a constant in RPython".into(),
            ));
        };
        let n = items.len() as i64;
        let k = if *i < 0 { i + n } else { *i };
        match usize::try_from(k).ok().and_then(|k| items.get(k)) {
            Some(item) => Ok(item.clone()),
            None => Err(self.error(
                g,
                op.pos,
                format!("index {i} is out of range for a tuple of {n} items"),
            )),
        }
    }

    /// A tuple sliced by constant bounds (`None` for a missing one).
    fn tuple_slice(
        &self,
        g: usize,
        op: &SpaceOperation,
        items: &[SomeValue],
    ) -> Result<SomeValue, Diagnostic> {
        let n = items.len() as i64;
        let bound = |i: usize, default: i64| match op.args[i].as_const() {
            Some(Constant::Int(k)) => Some((if *k < 0 { k + n } else { *k }).clamp(0, n)),
            Some(Constant::None) => Some(default),
            _ => None,
        };
        match (bound(1, 0), bound(2, n)) {
            (Some(lo), Some(hi)) => Ok(SomeValue::Tuple(
                items[lo as usize..hi.max(lo) as usize].to_vec(),
            )),
            _ => Err(self.error(
                g,
                op.pos,
                "a tuple can only be sliced by constants in RPython".into(),
            )),
        }
    }

    /// A list that the rtyper's helpers build as a list struct (range(),
    /// list(), enumerate, zip, a dict's keys, split...): resizable from the
    /// start, so it never becomes a fixed-size array (which only literals,
    /// `l * n`, slices, concatenations and prebuilt lists become).
    pub(super) fn new_built_list(
        &mut self,
        site: Site,
        item: &SomeValue,
        g: usize,
        op: &SpaceOperation,
    ) -> Result<SomeValue, Diagnostic> {
        let list = self.new_list(site, item, g, op)?;
        let SomeValue::List(def) = &list else {
            return Ok(list);
        };
        self.resized(def.id);
        Ok(self.containers.resolve(&list))
    }

    /// The list made at `site`, its items generalized with `item`.
    pub(super) fn new_list(
        &mut self,
        site: Site,
        item: &SomeValue,
        g: usize,
        op: &SpaceOperation,
    ) -> Result<SomeValue, Diagnostic> {
        let id = self.containers.at_site(site);
        self.store_item(g, op, id, false, item)?;
        Ok(self.containers.resolve(&SomeValue::List(ListDef {
            id,
            item: Box::new(SomeValue::Impossible),
            resizable: false,
            can_be_none: false,
        })))
    }

    fn resized(&mut self, id: u32) {
        let readers = self.containers.mark_resized(id);
        self.schedule_all(readers);
    }

    /// Generalizes the items of list or dict `id` (`second`: a dict's values)
    /// with `value`, stored by `op`.
    pub(super) fn store_item(
        &mut self,
        g: usize,
        op: &SpaceOperation,
        id: u32,
        second: bool,
        value: &SomeValue,
    ) -> Result<(), Diagnostic> {
        match self.generalize_part(id, second, value) {
            Ok(()) => Ok(()),
            Err(PartError::HoldsItself) => Err(self.error(
                g,
                op.pos,
                format!(
                    "this {} would hold itself (directly or through the lists and dicts in it); {}",
                    if second { "dict" } else { "container" },
                    "the items of an RPython list or dict cannot hold the list or dict itself"
                ),
            )),
            Err(PartError::NoJoin(old, new)) => {
                let d = self.error(
                    g,
                    op.pos,
                    format!(
                        "this {} holds {} and here gets {}; {}",
                        if second { "dict" } else { "container" },
                        old.describe(),
                        new.describe(),
                        "the items of an RPython list or dict all have one type"
                    ),
                );
                Err(match super::classdefs::unrelated_classes_note(&old, &new) {
                    Some(note) => d.with_note(note),
                    None => d,
                })
            }
        }
    }

    /// A call of a builtin method; `None` when RPython has no such method
    /// with these arguments.
    fn call_method(
        &mut self,
        g: usize,
        op: &SpaceOperation,
        site: Site,
        name: &str,
        receiver: &SomeValue,
        args: &[SomeValue],
    ) -> Option<Result<SomeValue, Diagnostic>> {
        use SomeValue as S;
        let int = |a: &S| matches!(a, S::Integer { .. } | S::Bool);
        // A char's method that gives one char gives a char, as in RPython,
        // so that `ord(text[i].lower())` is typed. Python 3's upper() of
        // 'ß' is 'SS', so there a char's upper() is a string.
        if let (S::Char, "lower" | "upper", []) = (receiver, name, args) {
            if name == "lower" || self.dialect == Dialect::Py2 {
                return Some(Ok(S::Char));
            }
        }
        // A char has the methods of a string.
        let widened;
        let receiver = match receiver {
            S::Char => {
                widened = string(false);
                &widened
            }
            other => other,
        };
        Some(match (receiver, name, args) {
            (S::List(def), "append", [item]) => {
                self.resized(def.id);
                self.store_item(g, op, def.id, false, item)
                    .map(|()| S::None)
            }
            (S::List(def), "insert", [i, item]) if int(i) => {
                self.resized(def.id);
                self.store_item(g, op, def.id, false, item)
                    .map(|()| S::None)
            }
            (S::List(def), "pop", []) => {
                self.resized(def.id);
                Ok((*def.item).clone())
            }
            (S::List(def), "pop", [i]) if int(i) => {
                self.resized(def.id);
                Ok((*def.item).clone())
            }
            (S::List(def), "extend", [S::List(other)]) => {
                self.resized(def.id);
                self.store_item(g, op, def.id, false, &other.item)
                    .map(|()| S::None)
            }
            (S::List(_), "reverse", []) => Ok(S::None),
            (S::List(def), "remove", [item]) => {
                self.resized(def.id);
                self.store_item(g, op, def.id, false, item)
                    .map(|()| S::None)
            }
            (S::List(def), "index" | "count", [item]) => self
                .store_item(g, op, def.id, false, item)
                .map(|()| nonneg()),
            // Python 2's iterkeys() and friends iterate over what keys() and
            // friends return.
            (S::Dict(def), "keys" | "iterkeys", []) => self
                .new_built_list(site, &def.key, g, op)
                .map(|l| iterator_if(name, l)),
            (S::Dict(def), "values" | "itervalues", []) => self
                .new_built_list(site, &def.value, g, op)
                .map(|l| iterator_if(name, l)),
            (S::Dict(def), "items" | "iteritems", []) => {
                let pair = S::Tuple(vec![(*def.key).clone(), (*def.value).clone()]);
                self.new_built_list(site, &pair, g, op)
                    .map(|l| iterator_if(name, l))
            }
            // As in the original, a default is a value the dict may give:
            // it generalizes the dict's values (None when there is none).
            (S::Dict(def), "get", [key]) => {
                if let Err(e) = self.store_item(g, op, def.id, false, key) {
                    return Some(Err(e));
                }
                if union(&def.value, &S::None).is_none() {
                    return Some(Err(self.error(
                        g,
                        op.pos,
                        format!(
                            "dict.get() without a default gives None for a missing key, and \
                             the values of this dict are {}, which cannot be None; give a \
                             default of their type (d.get(key, default))",
                            def.value.describe_plural()
                        ),
                    )));
                }
                self.store_item(g, op, def.id, true, &S::None)
                    .map(|()| self.containers.part(def.id, true))
            }
            (S::Dict(def), "get" | "pop", [key, default]) => {
                if name == "pop" {
                    self.resized(def.id);
                }
                self.store_item(g, op, def.id, false, key)
                    .and_then(|()| self.store_item(g, op, def.id, true, default))
                    .map(|()| self.containers.part(def.id, true))
            }
            (S::Dict(def), "pop", [key]) => self
                .store_item(g, op, def.id, false, key)
                .map(|()| self.containers.part(def.id, true)),
            (S::Dict(def), "setdefault", [key, default]) => self
                .store_item(g, op, def.id, false, key)
                .and_then(|()| self.store_item(g, op, def.id, true, default))
                .map(|()| self.containers.part(def.id, true)),
            (S::Dict(_), "clear", []) => Ok(S::None),
            (S::Dict(def), "update", [S::Dict(other)]) => self
                .store_item(g, op, def.id, false, &other.key)
                .and_then(|()| self.store_item(g, op, def.id, true, &other.value))
                .map(|()| S::None),
            (S::Dict(def), "copy", []) => {
                let id = self.containers.at_site(site);
                let copied = self
                    .generalize_part(id, false, &def.key)
                    .and_then(|()| self.generalize_part(id, true, &def.value));
                copied.ok()?;
                Ok(self.containers.resolve(&S::Dict(DictDef {
                    id,
                    key: Box::new(S::Impossible),
                    value: Box::new(S::Impossible),
                    can_be_none: false,
                })))
            }
            (S::String { no_nul, .. }, "join", [S::List(def)])
                if matches!(*def.item, S::String { .. } | S::Char | S::Impossible) =>
            {
                let items_no_nul = matches!(*def.item, S::String { no_nul: true, .. });
                Ok(string(*no_nul && items_no_nul))
            }
            (S::String { no_nul, .. }, "splitlines", [] | [_]) => {
                self.new_built_list(site, &string(*no_nul), g, op)
            }
            (S::String { no_nul, .. }, "split" | "rsplit", [] | [_] | [_, _]) => {
                self.new_built_list(site, &string(*no_nul), g, op)
            }
            (
                S::String { no_nul, .. },
                "strip" | "lstrip" | "rstrip" | "lower" | "upper",
                [] | [_],
            ) => Ok(string(*no_nul)),
            // The result holds a NUL only if the string or the replacement does.
            (S::String { no_nul, .. }, "replace", [_, new]) => Ok(string(
                *no_nul && matches!(new, S::String { no_nul: true, .. }),
            )),
            (S::String { .. } | S::Char, "startswith" | "endswith", [_])
            | (
                S::String { .. } | S::Char,
                "isdigit" | "isalpha" | "isspace" | "isalnum" | "isupper" | "islower",
                [],
            ) => Ok(S::Bool),
            (S::String { .. } | S::Char, "find" | "rfind", [_] | [_, _] | [_, _, _]) => {
                Ok(S::int())
            }
            (S::String { .. } | S::Char, "count", [_] | [_, _] | [_, _, _]) => Ok(nonneg()),
            _ => return None,
        })
    }
}

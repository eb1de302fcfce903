//! Dicts (the original's `rordereddict.py`): an insertion-ordered
//! open-addressing table, whose layout and helpers are in
//! `pylib/rpython/rtyper/rdict.py`. Every dict operation is a call of one
//! of those helpers, passed the functions that hash and compare the
//! dict's keys. A missing key raises KeyError wherever it is caught, the
//! caller's handler too, as in the original (the lookup finds out anyway,
//! so checking costs nothing). An iterator over a dict is the list iterator's
//! struct (the dict and the next entry's position), stepped by a helper
//! that skips the holes of deleted entries.

use super::{GraphTyper, HelperArg, RTyper};
use rpy_ir::annotation::{DictDef, SomeValue};
use rpy_ir::graph::{Arg, Constant, PrebuiltObject, SpaceOperation};
use rpy_ir::lltype::{ContainerType, LowLevelType};
use rpy_ir::opcode::Opcode;

/// The parallel arrays of a dict's entries, with the type of their
/// items (`None`: the key or value type), then the slot table.
const ENTRY_ARRAYS: [(&str, Option<LowLevelType>); 5] = [
    ("keys", None),
    ("values", None),
    ("live", Some(LowLevelType::Bool)),
    ("hashes", Some(LowLevelType::Signed)),
    ("indexes", Some(LowLevelType::Signed)),
];

impl RTyper<'_> {
    /// The struct type of dicts of `def` (see rdict.py), registered with
    /// its arrays the first time; named after the key and value types.
    pub fn dict_lltype(&mut self, def: &DictDef) -> Result<LowLevelType, String> {
        let (key, value) = self.dict_entry_lltypes(def)?;
        let name = format!(
            "dict_{}_{}",
            super::repr::type_tag(&key),
            super::repr::type_tag(&value)
        );
        if !self.types.contains_key(&name) {
            let mut fields = vec![
                ("num_items".to_string(), LowLevelType::Signed),
                ("num_used".to_string(), LowLevelType::Signed),
            ];
            for (array, item) in ENTRY_ARRAYS {
                let item = match (array, item) {
                    ("keys", _) => key.clone(),
                    ("values", _) => value.clone(),
                    (_, Some(t)) => t,
                    (_, None) => unreachable!("every other array names its item type"),
                };
                let array_name = format!("{name}_{array}");
                self.types
                    .insert(array_name.clone(), ContainerType::GcArray { item });
                fields.push((array.to_string(), LowLevelType::Ptr(array_name)));
            }
            self.types.insert(
                name.clone(),
                ContainerType::GcStruct {
                    fields,
                    var_item: None,
                },
            );
        }
        Ok(LowLevelType::Ptr(name))
    }
}

impl RTyper<'_> {
    /// The types a dict stores its keys and values as (`stored_lltype`),
    /// except that the keys of an r_dict stay their own type: its key
    /// functions take them as the program declared them.
    pub(super) fn dict_entry_lltypes(
        &mut self,
        def: &DictDef,
    ) -> Result<(LowLevelType, LowLevelType), String> {
        let key = if self.facts.custom_keys.contains_key(&def.id) {
            self.lltype_of(&def.key)?
        } else {
            self.stored_lltype(&def.key)?
        };
        Ok((key, self.stored_lltype(&def.value)?))
    }

    /// The static of prebuilt dict `&i` with `pairs`: its table built
    /// now, as rdict.py's helpers would have built it by inserting the
    /// pairs in order, each key hashed here as its `hashfn` hashes it.
    /// (Keeping only the entries and building the slots at first use
    /// would cost every helper a test; the hash functions are small.)
    pub(super) fn dict_static(
        &mut self,
        i: u32,
        pairs: &[(Constant, Constant)],
        annotation: Option<SomeValue>,
    ) -> Result<PrebuiltObject, String> {
        let Some(SomeValue::Dict(def)) = annotation else {
            return Err(format!("the prebuilt dict &{i} was never annotated"));
        };
        let LowLevelType::Ptr(dict) = self.dict_lltype(&def)? else {
            return Err("a dict with no struct type".into());
        };
        let (key_ty, value_ty) = self.dict_entry_lltypes(&def)?;
        let mut n_slots = MIN_SLOTS;
        while usable(n_slots) < pairs.len().max(1) {
            n_slots <<= 1;
        }
        let mut indexes = vec![Constant::Int(FREE); n_slots];
        let (mut keys, mut values, mut hashes) = (vec![], vec![], vec![]);
        for (entry, (k, v)) in pairs.iter().enumerate() {
            let key = self.field_constant(k, &key_ty)?;
            let h = constant_hash(&key)?;
            let slot = free_slot(&indexes, h);
            indexes[slot] = Constant::Int(entry as i64);
            keys.push(key);
            values.push(self.field_constant(v, &value_ty)?);
            hashes.push(Constant::Int(h));
        }
        let n_entries = usable(n_slots);
        let pad = |mut items: Vec<Constant>, zero: Constant| {
            items.resize(n_entries, zero);
            items
        };
        let live = pad(
            vec![Constant::Bool(true); pairs.len()],
            Constant::Bool(false),
        );
        let arrays = [
            ("keys", pad(keys, super::statics::zero_constant(&key_ty))),
            (
                "values",
                pad(values, super::statics::zero_constant(&value_ty)),
            ),
            ("live", live),
            ("hashes", pad(hashes, Constant::Int(0))),
            ("indexes", indexes),
        ];
        let n = Constant::Int(pairs.len() as i64);
        let mut fields = vec![("num_items".to_string(), n.clone()), ("num_used".into(), n)];
        for (array, items) in arrays {
            let a = self.reserve_static();
            self.statics[a as usize] = PrebuiltObject::Array {
                ty: format!("{dict}_{array}"),
                items,
            };
            fields.push((array.to_string(), Constant::Prebuilt(a)));
        }
        Ok(PrebuiltObject::Struct {
            ty: dict,
            fields,
            items: Vec::new(),
        })
    }
}

/// rdict.py's constants: an empty slot, the smallest table.
const FREE: i64 = -1;
const MIN_SLOTS: usize = 8;

/// rdict.py's `_ll_usable`: the entries a table of `n_slots` holds.
fn usable(n_slots: usize) -> usize {
    (n_slots << 1) / 3
}

/// rdict.py's `_ll_free_slot`: where a new entry of hash `h` goes in a
/// table with no deleted slots.
fn free_slot(indexes: &[Constant], h: i64) -> usize {
    let mask = indexes.len() as i64 - 1;
    let mut i = h & mask;
    let mut perturb = if h < 0 { !h } else { h };
    while indexes[i as usize] != Constant::Int(FREE) {
        i = i.wrapping_mul(5).wrapping_add(perturb).wrapping_add(1) & mask;
        perturb >>= 5;
    }
    i as usize
}

/// The hash `key_functions`' hash function gives a low-level key
/// constant.
fn constant_hash(key: &Constant) -> Result<i64, String> {
    match key {
        Constant::Int(n) => Ok(*n),
        // rdict.py's `ll_hash_uint`: the word read as signed.
        Constant::UInt(u) => Ok(*u as i64),
        Constant::Bool(b) => Ok(*b as i64),
        Constant::Char(c) => Ok(*c as i64),
        Constant::Str(s) => Ok(string_hash(&rpy_ir::graph::str_bytes(s))),
        other => Err(format!(
            "the rtyper cannot hash the prebuilt key {other:?} yet"
        )),
    }
}

/// rstr.py's `ll_strhash`: CPython 2's string hash, 0 made nonzero.
fn string_hash(chars: &[u8]) -> i64 {
    let Some(&first) = chars.first() else {
        return -1;
    };
    let mut x = (first as i64) << 7;
    for &c in chars {
        x = 1000003i64.wrapping_mul(x) ^ c as i64;
    }
    x ^= chars.len() as i64;
    if x == 0 {
        29872897
    } else {
        x
    }
}

/// How the helpers hash and compare a dict's keys.
struct KeyFunctions {
    hash: HelperArg,
    eq: HelperArg,
}

fn helper(module: &str, func: &str) -> HelperArg {
    HelperArg::Helper {
        module: module.into(),
        func: func.into(),
    }
}

fn key_functions(key: &SomeValue) -> Result<KeyFunctions, String> {
    let primitive = |hash| KeyFunctions {
        hash: helper("rdict", hash),
        eq: HelperArg::Const(Constant::None),
    };
    match key {
        SomeValue::Const(k) => key_functions(&k.general()),
        SomeValue::Integer { unsigned: true, .. } => Ok(primitive("ll_hash_uint")),
        SomeValue::Integer { .. } | SomeValue::Impossible => Ok(primitive("ll_hash_int")),
        SomeValue::Char => Ok(primitive("ll_hash_char")),
        SomeValue::String { .. } => Ok(KeyFunctions {
            hash: helper("rstr", "ll_strhash"),
            eq: helper("rstr", "ll_streq"),
        }),
        // An instance is its identity.
        SomeValue::Instance { .. } => Ok(primitive("ll_hash_identity")),
        // hash() and == of a tuple are lowered item by item by the rtyper.
        SomeValue::Tuple(_) => Ok(KeyFunctions {
            hash: helper("rdict", "ll_hash_any"),
            eq: helper("rdict", "ll_eq_any"),
        }),
        other => Err(format!(
            "the rtyper cannot hash dict keys that are {} yet",
            other.describe_plural()
        )),
    }
}

/// One argument of a dict helper call.
enum DictOperand {
    /// Operand `n` of the operation, as it is.
    Arg(usize),
    /// Operand `n` converted to the dict's key type.
    Key(usize),
    /// Operand `n` converted to the dict's value type.
    Value(usize),
    /// The type of the operation's result (a dict or list type).
    ResultType,
    /// None as a value of the dict's value type (`d.get(key)`).
    NoneValue,
    /// The dict's key hash and equality functions (two arguments).
    KeyFunctions,
}

use DictOperand::{Arg as A, Key, KeyFunctions as KeyFns, NoneValue, ResultType, Value};

impl GraphTyper<'_, '_, '_> {
    fn dict_def(&self, a: &Arg) -> Option<DictDef> {
        match self.annotation(a) {
            SomeValue::Dict(def) => Some(def),
            _ => None,
        }
    }

    /// Lowers the dict operations; false when `op` is none.
    pub(super) fn lower_dict_op(&mut self, op: &SpaceOperation) -> Result<bool, String> {
        let first = op
            .args
            .first()
            .cloned()
            .unwrap_or(Arg::Const(Constant::None));
        let is_r_dict = self.builtin_of(&first).as_deref() == Some("r_dict");
        if op.opname == Opcode::Newdict || (op.opname == Opcode::SimpleCall && is_r_dict) {
            return self.call_dict_helper(op, "ll_newdict", None, &[ResultType]);
        }
        if op.opname == Opcode::SimpleCall && op.args.len() == 2 {
            if let (Arg::Const(Constant::Builtin(b)), Some(def)) =
                (&first, self.dict_def(&op.args[1]))
            {
                let (func, operands): (&str, &[DictOperand]) = match b.as_str() {
                    "len" => ("ll_dict_len", &[A(1)]),
                    "dict" => ("ll_dict_copy", &[A(1), KeyFns]),
                    "bool" if def.can_be_none => ("ll_dict_bool_nullable", &[A(1)]),
                    "bool" => ("ll_dict_bool", &[A(1)]),
                    _ => return Ok(false),
                };
                return self.call_dict_helper(op, func, Some(&def), operands);
            }
        }
        if op.opname == Opcode::Iter && matches!(self.annotation(&first), SomeValue::Iterator(_)) {
            // `for k in d.iterkeys()`: an iterator is its own iterator.
            let (from, want) = (self.type_of(&first), self.graph.info(op.result).clone());
            self.finish((first, from), Some((op.result, want)))?;
            return Ok(true);
        }
        if op.opname == Opcode::Next {
            let SomeValue::Iterator(container) = self.annotation(&first) else {
                return Ok(false);
            };
            if !matches!(*container, SomeValue::Dict(_)) {
                return Ok(false);
            }
            return self.call_dict_helper(op, "ll_dictiter_nextkey", None, &[A(0)]);
        }
        if let SomeValue::BuiltinMethod { name, receiver } = self.annotation(&first) {
            let SomeValue::Dict(def) = *receiver else {
                return Ok(false);
            };
            return self.lower_dict_method(op, &name, &def);
        }
        let Some(def) = self.dict_def(&first) else {
            return Ok(false);
        };
        let nargs = op.args.len();
        let (func, operands): (&str, &[DictOperand]) = match (op.opname, nargs) {
            (Opcode::Getitem, 2) => ("ll_dict_getitem_checked", &[A(0), Key(1), KeyFns]),
            (Opcode::Setitem, 3) => ("ll_dict_setitem", &[A(0), Key(1), Value(2), KeyFns]),
            (Opcode::Delitem, 2) => ("ll_dict_delitem_checked", &[A(0), Key(1), KeyFns]),
            (Opcode::Contains, 2) => ("ll_dict_contains", &[A(0), Key(1), KeyFns]),
            (Opcode::Bool, 1) if def.can_be_none => ("ll_dict_bool_nullable", &[A(0)]),
            (Opcode::Not, 1) if def.can_be_none => ("ll_dict_is_empty_nullable", &[A(0)]),
            (Opcode::Bool, 1) => ("ll_dict_bool", &[A(0)]),
            (Opcode::Not, 1) => ("ll_dict_is_empty", &[A(0)]),
            (Opcode::Iter, 1) => {
                self.new_iterator(first, op)?;
                return Ok(true);
            }
            _ => return Ok(false),
        };
        self.call_dict_helper(op, func, Some(&def), operands)
    }

    /// `d.name(args...)`.
    fn lower_dict_method(
        &mut self,
        op: &SpaceOperation,
        name: &str,
        def: &DictDef,
    ) -> Result<bool, String> {
        let (func, operands): (&str, &[DictOperand]) = match (name, op.args.len()) {
            ("get", 2) => ("ll_dict_get", &[A(0), Key(1), NoneValue, KeyFns]),
            ("get", 3) => ("ll_dict_get", &[A(0), Key(1), Value(2), KeyFns]),
            ("setdefault", 3) => ("ll_dict_setdefault", &[A(0), Key(1), Value(2), KeyFns]),
            ("pop", 2) => ("ll_dict_pop_checked", &[A(0), Key(1), KeyFns]),
            ("pop", 3) => ("ll_dict_pop_default", &[A(0), Key(1), Value(2), KeyFns]),
            ("clear", 1) => ("ll_dict_clear", &[A(0)]),
            ("copy", 1) => ("ll_dict_copy", &[A(0), KeyFns]),
            ("update", 2) => ("ll_dict_update", &[A(0), A(1), KeyFns]),
            ("keys", 1) => ("ll_dict_keys", &[ResultType, A(0)]),
            ("values", 1) => ("ll_dict_values", &[ResultType, A(0)]),
            ("items", 1) => ("ll_dict_items", &[ResultType, A(0)]),
            // Python 2's iterkeys() and friends iterate over the list
            // keys() and friends make (as the annotator says).
            (iter @ ("iterkeys" | "itervalues" | "iteritems"), 1) => {
                let list_func = match iter {
                    "iterkeys" => "ll_dict_keys",
                    "itervalues" => "ll_dict_values",
                    _ => "ll_dict_items",
                };
                let LowLevelType::Ptr(iter_ty) = self.graph.info(op.result).clone() else {
                    return Err(format!("{name}() gives no iterator struct"));
                };
                let list_ty = self
                    .rt
                    .types
                    .get(&iter_ty)
                    .and_then(|t| t.field_type("container"))
                    .cloned()
                    .ok_or_else(|| format!("{name}() gives no iterator over a list"))?;
                let LowLevelType::Ptr(list_name) = &list_ty else {
                    return Err(format!("{name}() gives no iterator over a list"));
                };
                let (graph, _) = self.rt.helper(
                    "rdict",
                    list_func,
                    &[
                        HelperArg::Type(list_name.clone()),
                        HelperArg::Value(self.type_of(&op.args[0])),
                    ],
                )?;
                let list = self.emit(
                    Opcode::DirectCall,
                    vec![
                        Arg::Const(Constant::Func(graph)),
                        Arg::Const(Constant::Name(list_name.clone())),
                        op.args[0].clone(),
                    ],
                    list_ty.clone(),
                    None,
                );
                self.new_iterator(Arg::Var(list), op)?;
                return Ok(true);
            }
            _ => return Ok(false),
        };
        self.call_dict_helper(op, func, Some(def), operands)
    }

    /// `op` as a call of rdict's helper `func` with `operands`; `def` is
    /// the dict whose key functions and types they use.
    fn call_dict_helper(
        &mut self,
        op: &SpaceOperation,
        func: &str,
        def: Option<&DictDef>,
        operands: &[DictOperand],
    ) -> Result<bool, String> {
        let mut helper_args = Vec::new();
        let mut call_args = Vec::new();
        for operand in operands {
            match operand {
                A(i) => {
                    helper_args.push(HelperArg::Value(self.type_of(&op.args[*i])));
                    call_args.push(op.args[*i].clone());
                }
                Key(_) | Value(_) | NoneValue => {
                    let def = def.ok_or_else(|| format!("{func}() of no dict"))?;
                    // What the dict's keys or values array holds.
                    let (key_ty, value_ty) = self.rt.dict_entry_lltypes(def)?;
                    let (ty, value) = match operand {
                        Key(i) => (key_ty, op.args[*i].clone()),
                        Value(i) => (value_ty, op.args[*i].clone()),
                        _ => (value_ty, Arg::Const(Constant::None)),
                    };
                    call_args.push(self.arg_as(&value, &ty)?);
                    helper_args.push(HelperArg::Value(ty));
                }
                ResultType => {
                    let LowLevelType::Ptr(t) = self.graph.info(op.result).clone() else {
                        return Err(format!("{func}() needs a container result"));
                    };
                    call_args.push(Arg::Const(Constant::Name(t.clone())));
                    helper_args.push(HelperArg::Type(t));
                }
                KeyFns => {
                    let def = def.ok_or_else(|| format!("{func}() of no dict"))?;
                    let fns = match self.rt.facts.custom_keys.get(&def.id) {
                        Some((eq, hash)) => KeyFunctions {
                            hash: HelperArg::Program {
                                graph: hash.clone(),
                                result: self.rt.signature(hash)?.1,
                            },
                            eq: HelperArg::Program {
                                graph: eq.clone(),
                                result: self.rt.signature(eq)?.1,
                            },
                        },
                        None => key_functions(&def.key)?,
                    };
                    for h in [fns.hash, fns.eq] {
                        call_args.push(Arg::Const(h.constant().unwrap_or(Constant::None)));
                        helper_args.push(h);
                    }
                }
            }
        }
        let (graph, result) = self.rt.helper("rdict", func, &helper_args)?;
        let mut all = vec![Arg::Const(Constant::Func(graph))];
        all.extend(call_args);
        self.emit_into(Opcode::DirectCall, all, result, op.result)?;
        Ok(true)
    }
}

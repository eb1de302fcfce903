//! Operations of lists, strings and ints that need a loop or a check:
//! calls of the low-level helpers of `pylib/rpython/rtyper/` (`rlist.py`,
//! `rstr.py`, `rint.py`), which join the program as graphs so that the
//! optimizers and the JIT see into them. An operation whose exception a
//! handler of the same function catches calls the checked helper; the
//! others call the unchecked one, as in the original.

use super::{GraphTyper, HelperArg};
use rpy_ir::annotation::SomeValue;
use rpy_ir::graph::{Arg, Constant, SpaceOperation};
use rpy_ir::lltype::{self, LowLevelType};
use rpy_ir::opcode::Opcode;

/// What a helper argument is: one of the operation's operands (by
/// position), or a value the rtyper supplies.
enum Operand {
    Arg(usize),
    /// The low-level type of the operation's result (a list type, `STR`).
    ResultType,
    /// The struct type of the items of the operation's result, a list of
    /// tuples (`enumerate`, `zip`).
    ResultItemType,
    /// The item equality of the list operand `n` (None for primitives,
    /// the string comparison for strings).
    EqFn(usize),
    /// The item ordering of the list operand `n` (None for primitives,
    /// the string comparison `ll_strcmp` for strings).
    CmpFn(usize),
    Int(i64),
    Bool(bool),
    /// Operand `n`, or the int when it is None (a slice bound left out).
    OrInt(usize, i64),
    /// Operand `n` as an item of the list operand 0 (a char where the
    /// items are strings).
    Item(usize),
    /// Operand `n`, a list, as a list of the type of list operand 0.
    SameList(usize),
    /// Operand `n` as a value of the operation's result type.
    AsResult(usize),
    /// Whether the program is Python 2 (a constant).
    Py2,
    /// The `rstr` helper of Python 3's char class of the method `is...`
    /// (`ll_char_isdigit_py3`), passed as a function.
    CharClassPy3(String),
}

use Operand::{
    Arg as A, AsResult, Bool as B, CharClassPy3, CmpFn, EqFn, Int as I, Item, OrInt, Py2,
    ResultItemType, ResultType, SameList,
};

/// The helper a Python 3 program calls instead of the string helper
/// `func`, whose char classes are ASCII's: its twin in `rstr.py` classifies
/// and converts the chars as CPython 3 does their code points.
fn py3_twin(func: &str) -> Option<&'static str> {
    Some(match func {
        "ll_char_lower" => "ll_char_lower_py3",
        "ll_char_isdigit" => "ll_char_isdigit_py3",
        "ll_char_isalpha" => "ll_char_isalpha_py3",
        "ll_char_isalnum" => "ll_char_isalnum_py3",
        "ll_char_isspace" => "ll_char_isspace_py3",
        "ll_char_isupper" => "ll_char_isupper_py3",
        "ll_char_islower" => "ll_char_islower_py3",
        "ll_upper" => "ll_upper_py3",
        "ll_lower" => "ll_lower_py3",
        "ll_strip" => "ll_strip_py3",
        "ll_split_whitespace" => "ll_split_whitespace_py3",
        "ll_rsplit_whitespace" => "ll_rsplit_whitespace_py3",
        _ => return None,
    })
}

impl GraphTyper<'_, '_, '_> {
    /// Lowers `op` to a helper call when it is an operation a helper
    /// implements; `checked` when a handler catches its exception.
    pub(super) fn lower_by_helper(
        &mut self,
        op: &SpaceOperation,
        checked: bool,
    ) -> Result<bool, String> {
        let kinds: Vec<Kind> = op.args.iter().map(|a| self.kind(a)).collect();
        let method = match self.annotation(op.args.first().unwrap_or(&Arg::Const(Constant::None))) {
            SomeValue::BuiltinMethod { name, receiver } => Some((name, self.kind_of(&receiver))),
            _ => None,
        };
        use Kind::*;
        let nargs = op.args.len();
        // The helpers are written with RPython's str semantics, whatever
        // the program's dialect; a Python 3 program's own code gets CPython
        // 3's.
        let in_helper = self
            .graph
            .pos
            .is_some_and(|p| p.file >= rpy_ir::diag::FileId::LIBRARY_BASE);
        let py2 = self.rt.py2 || in_helper;
        // A string or list that may be None is a pointer that may be null.
        let nullable = |i: usize| {
            op.args
                .get(i)
                .is_some_and(|a| self.annotation_ref(a).can_be_none())
        };
        // range()'s third argument: a nonzero constant needs no check.
        let nonzero_constant_step =
            matches!(op.args.get(3), Some(Arg::Const(Constant::Int(step))) if *step != 0);
        let (module, func, operands): (&str, &str, Vec<Operand>) = match (
            op.opname,
            kinds.as_slice(),
            method.as_ref().map(|(n, k)| (n.as_str(), *k)),
        ) {
            // Methods: `simple_call(m, args...)` where m is the receiver.
            (Opcode::SimpleCall, _, Some((name, List))) => match (name, nargs) {
                ("append", 2) => ("rlist", "ll_append", vec![A(0), Item(1)]),
                ("pop", 1) if checked => ("rlist", "ll_pop_end_checked", vec![A(0)]),
                ("pop", 1) => ("rlist", "ll_pop_end", vec![A(0)]),
                ("pop", 2) if checked => ("rlist", "ll_pop_checked", vec![A(0), A(1)]),
                ("pop", 2) => ("rlist", "ll_pop", vec![A(0), A(1)]),
                ("insert", 3) => ("rlist", "ll_insert", vec![A(0), A(1), Item(2)]),
                ("extend", 2) => ("rlist", "ll_extend", vec![A(0), A(1)]),
                ("reverse", 1) => ("rlist", "ll_reverse", vec![A(0)]),
                ("index", 2) => ("rlist", "ll_index", vec![A(0), Item(1), EqFn(0)]),
                ("count", 2) => ("rlist", "ll_count", vec![A(0), Item(1), EqFn(0)]),
                ("remove", 2) => ("rlist", "ll_remove", vec![A(0), Item(1), EqFn(0)]),
                _ => return Ok(false),
            },
            (Opcode::SimpleCall, _, Some((name, receiver @ (Str | Char)))) => {
                let char_receiver = receiver == Char;
                let arg_kind = kinds.get(1).copied();
                match (name, nargs, arg_kind) {
                    // Python 3's upper() of '\xdf' is 'SS': a string.
                    ("upper", 1, _) if char_receiver && !py2 => {
                        ("rstr", "ll_char_upper_py3", vec![ResultType, A(0)])
                    }
                    ("upper", 1, _) if char_receiver => ("rstr", "ll_char_upper", vec![A(0)]),
                    ("lower", 1, _) if char_receiver => ("rstr", "ll_char_lower", vec![A(0)]),
                    ("isdigit", 1, _) if char_receiver => ("rstr", "ll_char_isdigit", vec![A(0)]),
                    ("isalpha", 1, _) if char_receiver => ("rstr", "ll_char_isalpha", vec![A(0)]),
                    ("isalnum", 1, _) if char_receiver => ("rstr", "ll_char_isalnum", vec![A(0)]),
                    ("isspace", 1, _) if char_receiver => ("rstr", "ll_char_isspace", vec![A(0)]),
                    ("isupper", 1, _) if char_receiver => ("rstr", "ll_char_isupper", vec![A(0)]),
                    ("islower", 1, _) if char_receiver => ("rstr", "ll_char_islower", vec![A(0)]),
                    // Python 3's classes of a string: every char's, by the
                    // char class helpers.
                    ("isdigit" | "isalpha" | "isalnum" | "isspace", 1, _) if !py2 => (
                        "rstr",
                        "_ll_all_chars",
                        vec![A(0), CharClassPy3(name.to_string())],
                    ),
                    ("isupper" | "islower", 1, _) if !py2 => {
                        let other = if name == "isupper" {
                            "islower"
                        } else {
                            "isupper"
                        };
                        (
                            "rstr",
                            "_ll_cased",
                            vec![
                                A(0),
                                CharClassPy3(name.to_string()),
                                CharClassPy3(other.to_string()),
                            ],
                        )
                    }
                    ("upper", 1, _) => ("rstr", "ll_upper", vec![A(0)]),
                    ("lower", 1, _) => ("rstr", "ll_lower", vec![A(0)]),
                    ("isdigit", 1, _) => ("rstr", "ll_isdigit", vec![A(0)]),
                    ("isalpha", 1, _) => ("rstr", "ll_isalpha", vec![A(0)]),
                    ("isalnum", 1, _) => ("rstr", "ll_isalnum", vec![A(0)]),
                    ("isspace", 1, _) => ("rstr", "ll_isspace", vec![A(0)]),
                    ("isupper", 1, _) => ("rstr", "ll_isupper", vec![A(0)]),
                    ("islower", 1, _) => ("rstr", "ll_islower", vec![A(0)]),
                    ("join", 2, _) => ("rstr", "ll_join", vec![A(0), A(1)]),
                    ("strip", 1, _) => ("rstr", "ll_strip", vec![A(0), B(true), B(true)]),
                    ("lstrip", 1, _) => ("rstr", "ll_strip", vec![A(0), B(true), B(false)]),
                    ("rstrip", 1, _) => ("rstr", "ll_strip", vec![A(0), B(false), B(true)]),
                    ("strip", 2, _) => {
                        ("rstr", "ll_strip_chars", vec![A(0), A(1), B(true), B(true)])
                    }
                    ("lstrip", 2, _) => (
                        "rstr",
                        "ll_strip_chars",
                        vec![A(0), A(1), B(true), B(false)],
                    ),
                    ("rstrip", 2, _) => (
                        "rstr",
                        "ll_strip_chars",
                        vec![A(0), A(1), B(false), B(true)],
                    ),
                    ("split", 1, _) => {
                        ("rstr", "ll_split_whitespace", vec![ResultType, A(0), I(-1)])
                    }
                    ("rsplit", 1, _) => (
                        "rstr",
                        "ll_rsplit_whitespace",
                        vec![ResultType, A(0), I(-1)],
                    ),
                    ("split", 2, _) => ("rstr", "ll_split", vec![ResultType, A(0), A(1), I(-1)]),
                    ("rsplit", 2, _) => ("rstr", "ll_rsplit", vec![ResultType, A(0), A(1), I(-1)]),
                    ("split", 3, _) => ("rstr", "ll_split", vec![ResultType, A(0), A(1), A(2)]),
                    ("rsplit", 3, _) => ("rstr", "ll_rsplit", vec![ResultType, A(0), A(1), A(2)]),
                    ("splitlines", 1, _) => (
                        "rstr",
                        "ll_splitlines",
                        vec![ResultType, A(0), B(false), Py2],
                    ),
                    ("splitlines", 2, _) => {
                        ("rstr", "ll_splitlines", vec![ResultType, A(0), A(1), Py2])
                    }
                    ("startswith", 2, Some(Char)) => {
                        ("rstr", "ll_startswith_char", vec![A(0), A(1)])
                    }
                    ("endswith", 2, Some(Char)) => ("rstr", "ll_endswith_char", vec![A(0), A(1)]),
                    ("startswith", 2, _) => ("rstr", "ll_startswith", vec![A(0), A(1)]),
                    ("endswith", 2, _) => ("rstr", "ll_endswith", vec![A(0), A(1)]),
                    ("replace", 3, _) => ("rstr", "ll_replace", vec![A(0), A(1), A(2), I(-1)]),
                    ("replace", 4, _) => ("rstr", "ll_replace", vec![A(0), A(1), A(2), A(3)]),
                    (search @ ("find" | "rfind" | "count"), 2..=4, kind) => {
                        let func = match (search, kind == Some(Char)) {
                            ("find", true) => "ll_find_char",
                            ("rfind", true) => "ll_rfind_char",
                            ("count", true) => "ll_count_char",
                            ("find", false) => "ll_find",
                            ("rfind", false) => "ll_rfind",
                            _ => "ll_count",
                        };
                        let start = if nargs > 2 { A(2) } else { I(0) };
                        let end = if nargs > 3 { A(3) } else { I(i64::MAX) };
                        ("rstr", func, vec![A(0), A(1), start, end])
                    }
                    _ => return Ok(false),
                }
            }
            // Operations on lists.
            (Opcode::Getitem, [List, _], _) if checked => {
                ("rlist", "ll_getitem_checked", vec![A(0), A(1)])
            }
            (Opcode::Setitem, [List, _, _], _) if checked => {
                ("rlist", "ll_setitem_checked", vec![A(0), A(1), Item(2)])
            }
            (Opcode::Delitem, [List, _], _) if checked => {
                ("rlist", "ll_delitem_checked", vec![A(0), A(1)])
            }
            (Opcode::Delitem, [List, _], _) => ("rlist", "ll_delitem", vec![A(0), A(1)]),
            (Opcode::Contains, [List, _], _) => {
                ("rlist", "ll_contains", vec![A(0), Item(1), EqFn(0)])
            }
            (Opcode::Mul, [List, Int], _) => ("rlist", "ll_mul", vec![ResultType, A(0), A(1)]),
            (Opcode::Mul, [Int, List], _) => ("rlist", "ll_mul", vec![ResultType, A(1), A(0)]),
            (Opcode::Add, [List, List], _) => {
                ("rlist", "ll_concat", vec![AsResult(0), AsResult(1)])
            }
            (Opcode::Eq, [List, List], _) => ("rlist", "ll_eq", vec![A(0), A(1), EqFn(0)]),
            (Opcode::Getslice, [List, _, None_], _) => (
                "rlist",
                "ll_getslice_startonly",
                vec![ResultType, A(0), OrInt(1, 0)],
            ),
            (Opcode::Getslice, [List, _, _], _) => (
                "rlist",
                "ll_getslice",
                vec![ResultType, A(0), OrInt(1, 0), OrInt(2, i64::MAX)],
            ),
            (Opcode::Setslice, [List, _, _, List], _) => (
                "rlist",
                "ll_setslice",
                vec![A(0), OrInt(1, 0), OrInt(2, i64::MAX), SameList(3)],
            ),
            (Opcode::Delslice, [List, _, _], _) => (
                "rlist",
                "ll_delslice",
                vec![A(0), OrInt(1, 0), OrInt(2, i64::MAX)],
            ),
            (Opcode::SimpleCall, [Builtin("list"), List], _) => {
                ("rlist", "ll_copy", vec![AsResult(1)])
            }
            (Opcode::SimpleCall, [Builtin("list")], _) => {
                ("rlist", "ll_newlist", vec![ResultType, I(0)])
            }
            (Opcode::SimpleCall, [Builtin("range" | "xrange"), _], _) => {
                ("rlist", "ll_range", vec![ResultType, I(0), A(1), I(1)])
            }
            (Opcode::SimpleCall, [Builtin("range" | "xrange"), _, _], _) => {
                ("rlist", "ll_range", vec![ResultType, A(1), A(2), I(1)])
            }
            (Opcode::SimpleCall, [Builtin("range" | "xrange"), _, _, _], _)
                if nonzero_constant_step =>
            {
                ("rlist", "ll_range", vec![ResultType, A(1), A(2), A(3)])
            }
            // Python 2's xrange() says so in its zero-step message.
            (Opcode::SimpleCall, [Builtin(range @ ("range" | "xrange")), _, _, _], _) => (
                "rlist",
                "ll_range_step",
                vec![
                    ResultType,
                    A(1),
                    A(2),
                    A(3),
                    Py2,
                    Operand::Bool(*range == "xrange"),
                ],
            ),
            (Opcode::SimpleCall, [Builtin("enumerate"), List], _) => (
                "rlist",
                "ll_enumerate",
                vec![ResultType, ResultItemType, A(1)],
            ),
            (Opcode::SimpleCall, [Builtin("enumerate"), Str], _) => (
                "rstr",
                "ll_enumerate",
                vec![ResultType, ResultItemType, A(1)],
            ),
            (Opcode::SimpleCall, [Builtin("zip"), List, List], _) => (
                "rlist",
                "ll_zip",
                vec![ResultType, ResultItemType, A(1), A(2)],
            ),
            (Opcode::SimpleCall, [Builtin("min"), Int | Bool | Float, Int | Bool | Float], _) => {
                ("rint", "ll_min", vec![AsResult(1), AsResult(2)])
            }
            (Opcode::SimpleCall, [Builtin("max"), Int | Bool | Float, Int | Bool | Float], _) => {
                ("rint", "ll_max", vec![AsResult(1), AsResult(2)])
            }
            (Opcode::SimpleCall, [Builtin("min"), List], _) => {
                ("rlist", "ll_min", vec![A(1), CmpFn(1)])
            }
            (Opcode::SimpleCall, [Builtin("max"), List], _) => {
                ("rlist", "ll_max", vec![A(1), CmpFn(1)])
            }
            // int() and float() of a string raise ValueError wherever it
            // is caught.
            (Opcode::SimpleCall, [Builtin("float"), Str | Char], _) => {
                ("rrepr", "ll_float_checked", vec![A(1), Py2])
            }
            (Opcode::SimpleCall, [Builtin("int"), Str | Char], _) => {
                ("rrepr", "ll_int_checked", vec![A(1), Py2])
            }
            (Opcode::SimpleCall, [Builtin("int"), Str | Char, Int], _) => {
                ("rrepr", "ll_int_base_checked", vec![A(1), AsResult(2), Py2])
            }
            // Operations on strings.
            // The truth of a string that may be None tests the pointer
            // before the length, as the original's ll_str_is_true does.
            (Opcode::Bool, [Str], _) if nullable(0) => ("rstr", "ll_str_is_true", vec![A(0)]),
            (Opcode::Not, [Str], _) if nullable(0) => ("rstr", "ll_str_is_false", vec![A(0)]),
            (Opcode::SimpleCall, [Builtin("bool"), Str], _) if nullable(1) => {
                ("rstr", "ll_str_is_true", vec![A(1)])
            }
            // So does a list's.
            (Opcode::Bool, [List], _) if nullable(0) => ("rlist", "ll_bool_nullable", vec![A(0)]),
            (Opcode::Not, [List], _) if nullable(0) => {
                ("rlist", "ll_is_empty_nullable", vec![A(0)])
            }
            (Opcode::SimpleCall, [Builtin("bool"), List], _) if nullable(1) => {
                ("rlist", "ll_bool_nullable", vec![A(1)])
            }
            // A char indexed is its one-char string indexed.
            (Opcode::Getitem, [Str | Char, _], _) if checked => {
                ("rstr", "ll_getitem_checked", vec![A(0), A(1)])
            }
            (Opcode::SimpleCall, [Builtin("chr"), Int], _) if !py2 => {
                ("rstr", "ll_chr_py3", vec![A(1)])
            }
            (Opcode::SimpleCall, [Builtin("chr"), Int], _) if checked => {
                ("rstr", "ll_chr_checked", vec![A(1)])
            }
            (Opcode::SimpleCall, [Builtin("hash"), Str], _) => ("rstr", "ll_strhash", vec![A(1)]),
            (Opcode::SimpleCall, [Builtin("hash"), Int | Bool], _) => {
                ("rint", "ll_int_hash", vec![AsResult(1)])
            }
            // Integer operations that raise where a handler catches it.
            (Opcode::Floordiv | Opcode::Div, [Int, Int], _) if checked => {
                ("rint", "ll_int_floordiv_zer", vec![A(0), A(1)])
            }
            (Opcode::Mod, [Int, Int], _) if checked => ("rint", "ll_int_mod_zer", vec![A(0), A(1)]),
            (Opcode::AddOvf, [Int, Int], _) => ("rint", "ll_int_add_ovf", vec![A(0), A(1)]),
            (Opcode::SubOvf, [Int, Int], _) => ("rint", "ll_int_sub_ovf", vec![A(0), A(1)]),
            (Opcode::MulOvf, [Int, Int], _) => ("rint", "ll_int_mul_ovf", vec![A(0), A(1)]),
            (Opcode::NegOvf, [Int], _) => ("rint", "ll_int_neg_ovf", vec![A(0)]),
            (Opcode::AbsOvf, [Int], _) => ("rint", "ll_int_abs_ovf", vec![A(0)]),
            (Opcode::FloordivOvf, [Int, Int], _) => {
                ("rint", "ll_int_floordiv_ovf_zer", vec![A(0), A(1)])
            }
            (Opcode::ModOvf, [Int, Int], _) => ("rint", "ll_int_mod_ovf_zer", vec![A(0), A(1)]),
            _ => return Ok(false),
        };
        let mut helper_args = Vec::new();
        let mut call_args = Vec::new();
        let func = match py3_twin(func) {
            Some(twin) if !py2 => twin,
            _ => func,
        };
        let result_type = self.graph.info(op.result).clone();
        for operand in &operands {
            match operand {
                A(i) => {
                    let a = &op.args[*i];
                    let mut ty = self.type_of(a);
                    let mut value = a.clone();
                    // A char where a string helper takes a string (its
                    // `_char` variants and list items aside) is a string.
                    if ty == LowLevelType::Char
                        && matches!(module, "rstr" | "rrepr")
                        && !func.contains("char")
                    {
                        ty = LowLevelType::Ptr(lltype::STR.into());
                        value = self.arg_as(a, &ty)?;
                    }
                    helper_args.push(HelperArg::Value(ty));
                    call_args.push(value);
                }
                ResultType => {
                    let LowLevelType::Ptr(t) = &result_type else {
                        return Err(format!("{func}() needs a container result"));
                    };
                    helper_args.push(HelperArg::Type(t.clone()));
                    call_args.push(Arg::Const(Constant::Name(t.clone())));
                }
                ResultItemType => {
                    let item = self.list_item_type(&result_type)?;
                    let LowLevelType::Ptr(t) = item else {
                        return Err(format!("{func}() needs a list of structs"));
                    };
                    helper_args.push(HelperArg::Type(t.clone()));
                    call_args.push(Arg::Const(Constant::Name(t)));
                }
                EqFn(i) | CmpFn(i) => {
                    // A method's operand 0 is the list it is bound to.
                    let list = match self.annotation(&op.args[*i]) {
                        SomeValue::BuiltinMethod { receiver, .. } => *receiver,
                        other => other,
                    };
                    let item = match list {
                        SomeValue::List(def) => self.kind_of(&def.item),
                        _ => Kind::Other,
                    };
                    let compare = matches!(operand, CmpFn(_));
                    let h = match item {
                        Kind::Str => HelperArg::Helper {
                            module: "rstr".into(),
                            func: if compare { "ll_strcmp" } else { "ll_streq" }.into(),
                        },
                        _ => HelperArg::Const(Constant::None),
                    };
                    call_args.push(Arg::Const(h.constant().unwrap_or(Constant::None)));
                    helper_args.push(h);
                }
                OrInt(i, n) if self.kind(&op.args[*i]) == Kind::None_ => {
                    helper_args.push(HelperArg::Value(LowLevelType::Signed));
                    call_args.push(Arg::Const(Constant::Int(*n)));
                }
                OrInt(i, _) => {
                    let a = &op.args[*i];
                    helper_args.push(HelperArg::Value(self.type_of(a)));
                    call_args.push(a.clone());
                }
                AsResult(i) => {
                    let value = self.arg_as(&op.args[*i], &result_type)?;
                    helper_args.push(HelperArg::Value(result_type.clone()));
                    call_args.push(value);
                }
                Item(i) | SameList(i) => {
                    let list_ty = self.type_of(&op.args[0]);
                    let a = &op.args[*i];
                    let want = match operand {
                        SameList(_) => list_ty,
                        _ => self.list_item_type(&list_ty)?,
                    };
                    let value = self.arg_as(a, &want)?;
                    helper_args.push(HelperArg::Value(want));
                    call_args.push(value);
                }
                I(n) => {
                    helper_args.push(HelperArg::Value(LowLevelType::Signed));
                    call_args.push(Arg::Const(Constant::Int(*n)));
                }
                Py2 => {
                    let py2 = HelperArg::Const(Constant::Bool(self.rt.py2));
                    call_args.push(Arg::Const(Constant::Bool(self.rt.py2)));
                    helper_args.push(py2);
                }
                B(b) => {
                    helper_args.push(HelperArg::Const(Constant::Bool(*b)));
                    call_args.push(Arg::Const(Constant::Bool(*b)));
                }
                CharClassPy3(method) => {
                    let h = HelperArg::Helper {
                        module: "rstr".into(),
                        func: format!("ll_char_{method}_py3"),
                    };
                    call_args.push(Arg::Const(h.constant().unwrap_or(Constant::None)));
                    helper_args.push(h);
                }
            }
        }
        let (graph, result) = self.rt.helper(module, func, &helper_args)?;
        let mut all = vec![Arg::Const(Constant::Func(graph))];
        all.extend(call_args);
        self.emit_into(Opcode::DirectCall, all, result, op.result)?;
        Ok(true)
    }

    fn kind(&self, a: &Arg) -> Kind {
        if let Arg::Const(Constant::Builtin(b)) = a {
            return Kind::Builtin(builtin_name(b));
        }
        if let Arg::Const(Constant::None) = a {
            return Kind::None_;
        }
        self.kind_of(&self.annotation_ref(a))
    }

    fn kind_of(&self, a: &SomeValue) -> Kind {
        match a {
            SomeValue::List(_) => Kind::List,
            SomeValue::String { .. } => Kind::Str,
            SomeValue::Char => Kind::Char,
            SomeValue::Integer { .. } => Kind::Int,
            SomeValue::Bool => Kind::Bool,
            SomeValue::Float => Kind::Float,
            SomeValue::None => Kind::None_,
            SomeValue::Const(k) => self.kind_of(&k.general()),
            SomeValue::Builtin(b) => Kind::Builtin(builtin_name(b)),
            _ => Kind::Other,
        }
    }
}

/// The builtins helper calls are chosen by (an alias by the name it
/// stands for).
pub(super) fn builtin_name(b: &str) -> &'static str {
    match b {
        "list" => "list",
        // compute_hash() is hash() in the translated program and in the
        // oracle (pylib's objectmodel).
        "hash" | "compute_hash" => "hash",
        "enumerate" => "enumerate",
        "chr" => "chr",
        "int" => "int",
        "float" => "float",
        "min" => "min",
        "max" => "max",
        "range" => "range",
        "xrange" => "xrange",
        "zip" => "zip",
        "bool" => "bool",
        _ => "",
    }
}

/// What the helper table needs to know of an operand.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    List,
    Str,
    Char,
    Int,
    Bool,
    Float,
    None_,
    Builtin(&'static str),
    Other,
}

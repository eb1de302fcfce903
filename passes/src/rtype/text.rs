//! The text of values: `repr()` of every value the rtyper represents, and
//! `str()` and printing of the values the rules of `rules/rtype/` do not
//! cover (containers, None). A container's text is a helper of
//! `pylib/rpython/rtyper/rrepr.py` whose `repr()` of each item comes back
//! here, so nested containers need no table of their own.

use super::repr::{family, Family};
use super::{GraphTyper, HelperArg};
use rpy_ir::graph::{Arg, Constant, SpaceOperation};
use rpy_ir::lltype::{self, LowLevelType};
use rpy_ir::opcode::Opcode;

impl GraphTyper<'_, '_, '_> {
    /// Lowers `repr(x)`, and `str(x)` and `print_item(x)` of an `x` the
    /// rules have no case for.
    pub(super) fn lower_text_op(&mut self, op: &SpaceOperation) -> Result<bool, String> {
        let builtin = match op.args.first() {
            Some(Arg::Const(Constant::Builtin(b))) => b.as_str(),
            _ => "",
        };
        match (op.opname, builtin, op.args.as_slice()) {
            (Opcode::SimpleCall, "repr", [_, x]) => {
                let text = self.repr_of(x)?;
                self.finish_str(text, op)?;
                Ok(true)
            }
            (Opcode::SimpleCall, "str", [_, x]) if !self.rules_print(&self.type_of(x)) => {
                let text = self.repr_of(x)?;
                self.finish_str(text, op)?;
                Ok(true)
            }
            (Opcode::PrintItem, _, [x]) if !self.rules_print(&self.type_of(x)) => {
                let text = self.repr_of(x)?;
                self.print_str(text)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Whether `rules/rtype/` prints a value of type `ty` (and so takes
    /// its `str()`): asked of the rules, not listed again here.
    fn rules_print(&self, ty: &LowLevelType) -> bool {
        rpy_ruleset::rtype::lower(
            Opcode::PrintItem,
            std::slice::from_ref(ty),
            &[None],
            self.rt.py2,
        )
        .is_some()
    }

    /// Prints the string `text`, as the rules print a string.
    fn print_str(&mut self, text: Arg) -> Result<(), String> {
        let str_ty = LowLevelType::Ptr(lltype::STR.into());
        let text = self.arg_as(&text, &str_ty)?;
        let tree = rpy_ruleset::rtype::lower(
            Opcode::PrintItem,
            std::slice::from_ref(&str_ty),
            &[None],
            self.rt.py2,
        )
        .ok_or("no rule prints a string")?;
        self.materialize(&tree, &[(text, str_ty)], None)?;
        Ok(())
    }

    /// Makes the string `text` the result of `op`.
    fn finish_str(&mut self, text: Arg, op: &SpaceOperation) -> Result<(), String> {
        let str_ty = LowLevelType::Ptr(lltype::STR.into());
        let text = self.arg_as(&text, &str_ty)?;
        let want = self.graph.info(op.result).clone();
        self.finish((text, str_ty), Some((op.result, want)))?;
        Ok(())
    }

    /// `repr(a)`, as CPython writes it.
    pub(super) fn repr_of(&mut self, a: &Arg) -> Result<Arg, String> {
        let ty = self.type_of(a);
        let str_ty = LowLevelType::Ptr(lltype::STR.into());
        let string_type = HelperArg::Type(lltype::STR.into());
        let py2 = HelperArg::Const(Constant::Bool(self.rt.py2));
        match &ty {
            LowLevelType::Void => Ok(Arg::Const(Constant::Str("None".into()))),
            LowLevelType::Signed | LowLevelType::Bool | LowLevelType::Unsigned => self.str_of(a),
            // Python 2's repr() of a float is Python 3's str().
            LowLevelType::Float => self.str_by_rules(a, false),
            LowLevelType::Char => self.call_helper(
                "rrepr",
                "ll_char_repr",
                vec![
                    string_type.fixed(),
                    (HelperArg::Value(ty.clone()), a.clone()),
                    py2.fixed(),
                ],
            ),
            LowLevelType::Ptr(t) if t == lltype::STR => self.call_helper(
                "rrepr",
                "ll_str_repr",
                vec![
                    string_type.fixed(),
                    (HelperArg::Value(str_ty), a.clone()),
                    py2.fixed(),
                ],
            ),
            _ if family(&ty) == Family::Tuple => self.tuple_repr(a),
            _ if matches!(family(&ty), Family::List | Family::Dict) => {
                let func = if family(&ty) == Family::List {
                    "ll_list_repr"
                } else {
                    "ll_dict_repr"
                };
                let list_of_str = lltype::add_list_type(&mut self.rt.types, &str_ty);
                self.call_helper(
                    "rrepr",
                    func,
                    vec![
                        string_type.fixed(),
                        HelperArg::Type(list_of_str).fixed(),
                        (HelperArg::Value(ty.clone()), a.clone()),
                    ],
                )
            }
            _ => Err(format!(
                "the rtyper cannot write the text of {} yet",
                self.annotation(a).describe()
            )),
        }
    }

    /// `repr()` of a tuple: `(a, b)`, `(a,)`.
    fn tuple_repr(&mut self, t: &Arg) -> Result<Arg, String> {
        let items = self.tuple_items(t)?;
        let mut text = Arg::Const(Constant::Str("(".into()));
        for (i, (item, _)) in items.iter().enumerate() {
            if i > 0 {
                text = self.concat(text, Arg::Const(Constant::Str(", ".into())))?;
            }
            let item = self.repr_of(item)?;
            text = self.concat(text, item)?;
        }
        let closing = if items.len() == 1 { ",)" } else { ")" };
        self.concat(text, Arg::Const(Constant::Str(closing.into())))
    }
}

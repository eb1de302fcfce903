//! String formatting with a constant format (the original's
//! `rstr.do_stringformat`): `"%s=%d" % (name, n)` is split at translation
//! time into its literal pieces and conversions, and becomes the
//! concatenation of the pieces and of `str()` of each value.

use super::GraphTyper;
use rpy_ir::annotation::SomeValue;
use rpy_ir::graph::{Arg, Constant, SpaceOperation};
use rpy_ir::lltype::{self, LowLevelType};
use rpy_ir::opcode::Opcode;
use rpy_llinterp::pystr::FormatSpec;

/// One part of a format string.
#[derive(Debug, PartialEq)]
enum Piece {
    Literal(String),
    /// A conversion of the next value.
    Value(FormatSpec),
}

/// The pieces of `format`, or why it is not supported.
fn parse_format(format: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut literal = Vec::new();
    let bytes = &rpy_ir::graph::str_bytes(format)[..];
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        i += 1;
        if c != b'%' {
            literal.push(c);
            continue;
        }
        let spec = FormatSpec::parse(bytes, &mut i)
            .ok_or("a format string ends in an incomplete '%' conversion")?;
        match spec.conv {
            b'%' => literal.push(b'%'),
            b's' | b'r' | b'c' | b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'e' | b'E' | b'f'
            | b'F' | b'g' | b'G' => {
                if !literal.is_empty() {
                    let text = rpy_ir::graph::str_of_bytes(&std::mem::take(&mut literal));
                    pieces.push(Piece::Literal(text));
                }
                pieces.push(Piece::Value(spec));
            }
            other => {
                return Err(format!(
                    "the format '%{}' is not supported (the conversions are s r c d i u x X o e E f F g G)",
                    other as char
                ))
            }
        }
    }
    if !literal.is_empty() {
        pieces.push(Piece::Literal(rpy_ir::graph::str_of_bytes(&literal)));
    }
    Ok(pieces)
}

impl GraphTyper<'_, '_, '_> {
    /// Lowers `format % values` with a constant format; false for any
    /// other operation.
    pub(super) fn lower_string_format(&mut self, op: &SpaceOperation) -> Result<bool, String> {
        let (Some(Arg::Const(Constant::Str(format))), Some(values)) =
            (op.args.first(), op.args.get(1))
        else {
            return Ok(false);
        };
        if op.opname != Opcode::Mod {
            return Ok(false);
        }
        let pieces = parse_format(format)?;
        let values: Vec<Arg> = match self.annotation(values) {
            SomeValue::Tuple(_) => self
                .tuple_items(values)?
                .into_iter()
                .map(|(item, _)| item)
                .collect(),
            _ => vec![values.clone()],
        };
        let wanted = pieces
            .iter()
            .filter(|p| matches!(p, Piece::Value(_)))
            .count();
        if wanted != values.len() {
            return Err(format!(
                "the format has {wanted} conversions for {} values",
                values.len()
            ));
        }
        let mut values = values.into_iter();
        let mut result: Option<Arg> = None;
        for piece in pieces {
            let part = match piece {
                Piece::Literal(text) => Arg::Const(Constant::Str(text)),
                Piece::Value(spec) => {
                    let v = values.next().ok_or("too few values for the format")?;
                    self.format_value(&spec, &v)?
                }
            };
            result = Some(match result {
                None => part,
                Some(prev) => self.concat(prev, part)?,
            });
        }
        let result = result.unwrap_or(Arg::Const(Constant::Str(String::new())));
        let str_ty = LowLevelType::Ptr(lltype::STR.into());
        let result = self.arg_as(&result, &str_ty)?;
        let want = self.graph.info(op.result).clone();
        self.finish((result, str_ty), Some((op.result, want)))?;
        Ok(true)
    }

    /// The text of one conversion `spec` of the value `v`.
    fn format_value(&mut self, spec: &FormatSpec, v: &Arg) -> Result<Arg, String> {
        let ty = self.type_of(v);
        match spec.conv {
            b's' | b'r' => {
                let text = if spec.conv == b's' {
                    self.str_of(v)?
                } else {
                    self.repr_of(v)?
                };
                self.padded(spec, text)
            }
            b'c' => {
                let c = match ty {
                    LowLevelType::Char => v.clone(),
                    LowLevelType::Signed | LowLevelType::Bool => {
                        let n = self.arg_as(v, &LowLevelType::Signed)?;
                        Arg::Var(self.emit(
                            Opcode::CastIntToChar,
                            vec![n],
                            LowLevelType::Char,
                            None,
                        ))
                    }
                    _ => {
                        return Err(format!(
                            "'%c' of a {ty} is not supported: it takes a char or an int"
                        ))
                    }
                };
                let text = self.str_of(&c)?;
                self.padded(spec, text)
            }
            b'd' | b'i' | b'u' if ty == LowLevelType::Unsigned && spec.is_bare() => self.str_of(v),
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' if ty == LowLevelType::Unsigned => {
                let name = self.int_format_function("rpy_format_uint", spec);
                Ok(self.runtime_format(name, v.clone(), spec))
            }
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => {
                if !matches!(ty, LowLevelType::Signed | LowLevelType::Bool) {
                    return Err(format!(
                        "'%{}' of a {ty} is not supported yet",
                        spec.conv as char
                    ));
                }
                let n = self.arg_as(v, &LowLevelType::Signed)?;
                if spec.is_bare() && spec.conv != b'x' && spec.conv != b'X' && spec.conv != b'o' {
                    return self.str_of(&n);
                }
                let name = self.int_format_function("rpy_format_int", spec);
                Ok(self.runtime_format(name, n, spec))
            }
            _ => {
                if !matches!(
                    ty,
                    LowLevelType::Signed | LowLevelType::Bool | LowLevelType::Float
                ) {
                    return Err(format!(
                        "'%{}' of a {ty} is not supported yet",
                        spec.conv as char
                    ));
                }
                let x = self.arg_as(v, &LowLevelType::Float)?;
                Ok(self.runtime_format("rpy_format_float", x, spec))
            }
        }
    }

    /// `text` padded and cut as `spec`'s width and precision say (itself
    /// for a bare conversion).
    fn padded(&mut self, spec: &FormatSpec, text: Arg) -> Result<Arg, String> {
        if spec.is_bare() {
            return Ok(text);
        }
        let text = self.arg_as(&text, &LowLevelType::Ptr(lltype::STR.into()))?;
        Ok(self.runtime_format("rpy_format_str", text, spec))
    }

    /// The runtime's formatting function `name` of `value` and `spec`'s
    /// text: the string it makes.
    /// The runtime function of an integer conversion: Python 2's variant
    /// where the alternate octal form differs.
    fn int_format_function(&self, name: &'static str, spec: &FormatSpec) -> &'static str {
        match (self.rt.py2, spec.conv, spec.flags.contains(&b'#'), name) {
            (true, b'o', true, "rpy_format_int") => "rpy_format_int_py2",
            (true, b'o', true, _) => "rpy_format_uint_py2",
            _ => name,
        }
    }

    fn runtime_format(&mut self, name: &str, value: Arg, spec: &FormatSpec) -> Arg {
        let args = vec![
            Arg::Const(Constant::Builtin(name.into())),
            value,
            Arg::Const(Constant::Str(spec.text())),
        ];
        Arg::Var(self.emit(
            Opcode::DirectCall,
            args,
            LowLevelType::Ptr(lltype::STR.into()),
            None,
        ))
    }

    /// `a + b` of two strings, by the rules.
    pub(super) fn concat(&mut self, a: Arg, b: Arg) -> Result<Arg, String> {
        let str_ty = LowLevelType::Ptr(lltype::STR.into());
        let a = self.arg_as(&a, &str_ty)?;
        let b = self.arg_as(&b, &str_ty)?;
        let tree = rpy_ruleset::rtype::lower(
            Opcode::Add,
            &[str_ty.clone(), str_ty.clone()],
            &[None, None],
            self.rt.py2,
        )
        .ok_or("no rule concatenates strings")?;
        Ok(self
            .materialize(&tree, &[(a, str_ty.clone()), (b, str_ty)], None)?
            .0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_split_into_literals_and_conversions() {
        let pieces = parse_format("%s=%-5.2f%%").unwrap();
        let shown: Vec<String> = pieces
            .iter()
            .map(|p| match p {
                Piece::Literal(t) => format!("literal {t}"),
                Piece::Value(spec) => format!("value {}", spec.text()),
            })
            .collect();
        assert_eq!(
            shown,
            ["value %s", "literal =", "value %-5.2f", "literal %"]
        );
        assert!(parse_format("%q").is_err());
        assert!(parse_format("50%").is_err());
    }
}

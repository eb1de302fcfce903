//! String formatting with a constant format (the original's
//! `rstr.do_stringformat`): `"%s=%d" % (name, n)` is split at translation
//! time into its literal pieces and conversions, and becomes the
//! concatenation of the pieces and of `str()` of each value.

use super::GraphTyper;
use crate::rules;
use rpy_ir::annotation::SomeValue;
use rpy_ir::graph::{Arg, Constant, SpaceOperation};
use rpy_ir::lltype::{self, LowLevelType};

/// One part of a format string.
#[derive(Debug, PartialEq)]
enum Piece {
    Literal(String),
    /// A conversion (`s`, `d`, `i`, `r`) of the next value.
    Value(char),
}

/// The pieces of `format`, or why it is not supported.
fn parse_format(format: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            literal.push(c);
            continue;
        }
        match chars.next() {
            Some('%') => literal.push('%'),
            Some(conv @ ('s' | 'd' | 'i' | 'r')) => {
                if !literal.is_empty() {
                    pieces.push(Piece::Literal(std::mem::take(&mut literal)));
                }
                pieces.push(Piece::Value(conv));
            }
            Some(other) => {
                return Err(format!(
                    "the format '%{other}' is not supported yet (only %s, %d, %i, %r and %%)"
                ))
            }
            None => return Err("a format string ends in a lone '%'".into()),
        }
    }
    if !literal.is_empty() {
        pieces.push(Piece::Literal(literal));
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
        if op.opname != "mod" {
            return Ok(false);
        }
        let pieces = parse_format(format)?;
        let values: Vec<Arg> = match self.annotation(values) {
            SomeValue::Tuple(items) => {
                let LowLevelType::Ptr(tuple) = self.type_of(values) else {
                    return Err("a tuple with no struct type".into());
                };
                let fields = match self.rt.types.get(&tuple) {
                    Some(lltype::ContainerType::GcStruct { fields, .. }) => fields.clone(),
                    _ => return Err(format!("{tuple} is no tuple struct")),
                };
                let mut out = Vec::new();
                for ((name, ty), _) in fields.into_iter().zip(&items) {
                    let v = self.emit(
                        "getfield",
                        vec![values.clone(), Arg::Const(Constant::Name(name))],
                        ty,
                        None,
                    );
                    out.push(Arg::Var(v));
                }
                out
            }
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
                Piece::Value(conv) => {
                    let v = values.next().ok_or("too few values for the format")?;
                    let ty = self.type_of(&v);
                    match (conv, &ty) {
                        ('r', LowLevelType::Ptr(t)) if t == lltype::STR => {
                            return Err("'%r' of a string is not supported yet".into())
                        }
                        ('d' | 'i', t)
                            if *t != LowLevelType::Signed && *t != LowLevelType::Bool =>
                        {
                            return Err(format!("'%{conv}' of a {t} is not supported yet"))
                        }
                        _ => {}
                    }
                    let v = if ('d' == conv || 'i' == conv) && ty == LowLevelType::Bool {
                        self.arg_as(&v, &LowLevelType::Signed)?
                    } else {
                        v
                    };
                    self.str_of(&v)?
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

    /// `a + b` of two strings, by the rules.
    fn concat(&mut self, a: Arg, b: Arg) -> Result<Arg, String> {
        let str_ty = LowLevelType::Ptr(lltype::STR.into());
        let a = self.arg_as(&a, &str_ty)?;
        let b = self.arg_as(&b, &str_ty)?;
        let tree = rules::rtype::lower(
            "add",
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
        assert_eq!(
            parse_format("%s=%d%%").unwrap(),
            vec![
                Piece::Value('s'),
                Piece::Literal("=".into()),
                Piece::Value('d'),
                Piece::Literal("%".into())
            ]
        );
        assert!(parse_format("%5.2f").is_err());
        assert!(parse_format("50%").is_err());
    }
}

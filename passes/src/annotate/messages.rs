//! How the annotator's errors read: operations named as the user wrote them,
//! and a plain sentence for an operation no rule can type.

use rpy_ir::annotation::SomeValue;
use rpy_ir::graph::{Constant, SpaceOperation};
use rpy_ir::opcode::Opcode;

/// How the user wrote a high-level operation, for messages.
pub fn source_form(opname: Opcode) -> String {
    let form = match opname {
        Opcode::Add => "'+'",
        Opcode::Sub => "'-'",
        Opcode::Mul => "'*'",
        Opcode::Div | Opcode::Truediv => "'/'",
        Opcode::Floordiv => "'//'",
        Opcode::Mod => "'%'",
        Opcode::Pow => "'**'",
        Opcode::Lshift => "'<<'",
        Opcode::Rshift => "'>>'",
        Opcode::And => "'&'",
        Opcode::Or => "'|'",
        Opcode::Xor => "'^'",
        Opcode::Neg => "'unary -'",
        Opcode::Pos => "'unary +'",
        Opcode::Invert => "'~'",
        Opcode::Not => "'not'",
        Opcode::Lt => "'<'",
        Opcode::Le => "'<='",
        Opcode::Eq => "'=='",
        Opcode::Ne => "'!='",
        Opcode::Gt => "'>'",
        Opcode::Ge => "'>='",
        Opcode::Is => "'is'",
        Opcode::Contains => "'in'",
        Opcode::Getitem => "indexing",
        Opcode::Setitem => "item assignment",
        Opcode::Getattr => "attribute access",
        Opcode::Setattr => "attribute assignment",
        Opcode::PrintItem => "'print'",
        Opcode::Bool => "a truth test",
        _ => return format!("operation '{opname}'"),
    };
    form.to_string()
}

/// A plain sentence for an operation no rule can type.
pub fn describe_untypable(op: &SpaceOperation, args: &[SomeValue]) -> String {
    let what: Vec<String> = args.iter().map(|a| a.describe()).collect();
    match (
        op.opname,
        args.first(),
        op.args.get(1).and_then(|a| a.as_const()),
    ) {
        (Opcode::SimpleCall, Some(SomeValue::Builtin(name)), _)
            if name == "ord" && matches!(args.get(1), Some(SomeValue::String { .. })) =>
        {
            "ord() cannot be applied to a str in RPython: it needs a char, a string \
             known to be one character (s[i], chr(n), c.lower()); in Python 3 a char's \
             upper() is a str, as 'ß'.upper() is 'SS'"
                .into()
        }
        (Opcode::SimpleCall, Some(SomeValue::Builtin(name)), _) => {
            sentence(&format!("{name}()"), &what[1..].join(", "))
        }
        (Opcode::SimpleCall, Some(callee), _)
            if !matches!(
                callee,
                SomeValue::Pbc { .. } | SomeValue::BuiltinMethod { .. }
            ) =>
        {
            format!(
                "{} cannot be called: only functions, classes and methods can",
                callee.describe()
            )
        }
        (Opcode::Iter, Some(SomeValue::Tuple(items)), _) => format!(
            "a loop over a tuple gives its items one after another, so in RPython they need \
             one type; this tuple holds {}",
            items
                .iter()
                .map(SomeValue::describe)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        (Opcode::Getattr, Some(SomeValue::Dict(_)), Some(Constant::Name(attr)))
            if attr == "has_key" =>
        {
            "dicts have no has_key() in RPython; test 'key in d' instead".into()
        }
        (Opcode::Getattr, Some(obj), Some(Constant::Name(attr))) => {
            format!("{} has no attribute '{attr}' in RPython", obj.describe())
        }
        _ => sentence(&source_form(op.opname), &what.join(" and ")),
    }
}

fn sentence(verb: &str, operands: &str) -> String {
    if operands.is_empty() {
        format!("{verb} cannot be applied here in RPython")
    } else {
        format!("{verb} cannot be applied to {operands} in RPython")
    }
}

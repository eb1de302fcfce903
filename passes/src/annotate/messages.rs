//! How the annotator's errors read: operations named as the user wrote them,
//! and a plain sentence for an operation no rule can type.

use rpy_ir::annotation::SomeValue;
use rpy_ir::graph::{Constant, SpaceOperation};

/// How the user wrote a high-level operation, for messages.
pub fn source_form(opname: &str) -> String {
    let form = match opname {
        "add" => "'+'",
        "sub" => "'-'",
        "mul" => "'*'",
        "div" | "truediv" => "'/'",
        "floordiv" => "'//'",
        "mod" => "'%'",
        "pow" => "'**'",
        "lshift" => "'<<'",
        "rshift" => "'>>'",
        "and_" => "'&'",
        "or_" => "'|'",
        "xor" => "'^'",
        "neg" => "'unary -'",
        "pos" => "'unary +'",
        "invert" => "'~'",
        "not_" => "'not'",
        "lt" => "'<'",
        "le" => "'<='",
        "eq" => "'=='",
        "ne" => "'!='",
        "gt" => "'>'",
        "ge" => "'>='",
        "is_" => "'is'",
        "contains" => "'in'",
        "getitem" => "indexing",
        "setitem" => "item assignment",
        "getattr" => "attribute access",
        "setattr" => "attribute assignment",
        "print_item" => "'print'",
        "bool" => "a truth test",
        _ => return format!("operation '{opname}'"),
    };
    form.to_string()
}

/// A plain sentence for an operation no rule can type.
pub fn describe_untypable(op: &SpaceOperation, args: &[SomeValue]) -> String {
    let what: Vec<String> = args.iter().map(|a| a.describe()).collect();
    match (
        op.opname.as_str(),
        args.first(),
        op.args.get(1).and_then(|a| a.as_const()),
    ) {
        ("simple_call", Some(SomeValue::Builtin(name)), _) => {
            sentence(&format!("{name}()"), &what[1..].join(", "))
        }
        ("simple_call", Some(callee), _)
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
        ("iter", Some(SomeValue::Tuple(items)), _) => format!(
            "a loop over a tuple gives its items one after another, so in RPython they need \
             one type; this tuple holds {}",
            items
                .iter()
                .map(SomeValue::describe)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ("getattr", Some(SomeValue::Dict(_)), Some(Constant::Name(attr))) if attr == "has_key" => {
            "dicts have no has_key() in RPython; test 'key in d' instead".into()
        }
        ("getattr", Some(obj), Some(Constant::Name(attr))) => {
            format!("{} has no attribute '{attr}' in RPython", obj.describe())
        }
        _ => sentence(&source_form(&op.opname), &what.join(" and ")),
    }
}

fn sentence(verb: &str, operands: &str) -> String {
    if operands.is_empty() {
        format!("{verb} cannot be applied here in RPython")
    } else {
        format!("{verb} cannot be applied to {operands} in RPython")
    }
}

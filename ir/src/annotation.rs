//! Annotations: the SomeXxx lattice the annotator infers, one value per variable.
//!
//! `Impossible` is the bottom (no value reaches here yet), `Object` the top (the
//! annotator could not find one type: always an error in RPython). How two
//! annotations join and what each operation yields are rules in
//! `rules/annotate/`; this module only defines the values and their text form.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SomeValue {
    /// Bottom: no value has reached this variable yet.
    Impossible,
    /// A machine-word integer; `nonneg` when it is known to be >= 0.
    Integer {
        nonneg: bool,
    },
    Bool,
    Float,
    /// A string of length 1.
    Char,
    String,
    /// A list whose items all have the given annotation.
    List(Box<SomeValue>),
    None,
    /// One of a set of functions of the program (by graph name), sorted.
    Functions(Vec<String>),
    /// A builtin function, by name.
    Builtin(String),
    /// Top: the annotator found values of incompatible types here.
    Object,
}

impl SomeValue {
    pub fn int() -> SomeValue {
        SomeValue::Integer { nonneg: false }
    }
    pub fn nonneg_int() -> SomeValue {
        SomeValue::Integer { nonneg: true }
    }

    /// The name of this annotation's kind, as rules and messages spell it.
    pub fn kind_name(&self) -> &'static str {
        match self {
            SomeValue::Impossible => "SomeImpossibleValue",
            SomeValue::Integer { .. } => "SomeInteger",
            SomeValue::Bool => "SomeBool",
            SomeValue::Float => "SomeFloat",
            SomeValue::Char => "SomeChar",
            SomeValue::String => "SomeString",
            SomeValue::List(_) => "SomeList",
            SomeValue::None => "SomeNone",
            SomeValue::Functions(_) => "SomePBC",
            SomeValue::Builtin(_) => "SomeBuiltin",
            SomeValue::Object => "SomeObject",
        }
    }

    /// A short description for error messages ("an int", "a str", ...).
    pub fn describe(&self) -> String {
        match self {
            SomeValue::Impossible => "no value".into(),
            SomeValue::Integer { nonneg: true } => "a non-negative int".into(),
            SomeValue::Integer { nonneg: false } => "an int".into(),
            SomeValue::Bool => "a bool".into(),
            SomeValue::Float => "a float".into(),
            SomeValue::Char => "a str of length 1".into(),
            SomeValue::String => "a str".into(),
            SomeValue::List(item) => format!("a list of {}", item.describe_plural()),
            SomeValue::None => "None".into(),
            SomeValue::Functions(names) => format!("the function {}", names.join(" or ")),
            SomeValue::Builtin(name) => format!("the builtin {name}"),
            SomeValue::Object => "a value of mixed types".into(),
        }
    }

    fn describe_plural(&self) -> String {
        match self {
            SomeValue::Integer { .. } => "ints".into(),
            SomeValue::Bool => "bools".into(),
            SomeValue::Float => "floats".into(),
            SomeValue::Char | SomeValue::String => "strs".into(),
            other => other.describe(),
        }
    }

    /// Parses the text `Display` writes.
    pub fn parse(text: &str) -> Result<SomeValue, String> {
        let text = text.trim();
        let (head, inner) = match text.find('(') {
            Some(i) if text.ends_with(')') => (&text[..i], Some(&text[i + 1..text.len() - 1])),
            _ => (text, None),
        };
        let v = match (head, inner) {
            ("SomeImpossibleValue", None) => SomeValue::Impossible,
            ("SomeInteger", Some("nonneg=true")) => SomeValue::nonneg_int(),
            ("SomeInteger", Some("nonneg=false")) => SomeValue::int(),
            ("SomeBool", None) => SomeValue::Bool,
            ("SomeFloat", None) => SomeValue::Float,
            ("SomeChar", None) => SomeValue::Char,
            ("SomeString", None) => SomeValue::String,
            ("SomeList", Some(item)) => SomeValue::List(Box::new(SomeValue::parse(item)?)),
            ("SomeNone", None) => SomeValue::None,
            ("SomePBC", Some(names)) => {
                SomeValue::Functions(names.split(',').map(|s| s.trim().to_string()).collect())
            }
            ("SomeBuiltin", Some(name)) => SomeValue::Builtin(name.trim().to_string()),
            ("SomeObject", None) => SomeValue::Object,
            _ => return Err(format!("unknown annotation '{text}'")),
        };
        Ok(v)
    }
}

impl fmt::Display for SomeValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SomeValue::Integer { nonneg } => write!(f, "SomeInteger(nonneg={nonneg})"),
            SomeValue::List(item) => write!(f, "SomeList({item})"),
            SomeValue::Functions(names) => write!(f, "SomePBC({})", names.join(", ")),
            SomeValue::Builtin(name) => write!(f, "SomeBuiltin({name})"),
            other => f.write_str(other.kind_name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips() {
        let values = [
            SomeValue::Impossible,
            SomeValue::int(),
            SomeValue::nonneg_int(),
            SomeValue::Bool,
            SomeValue::Float,
            SomeValue::Char,
            SomeValue::String,
            SomeValue::List(Box::new(SomeValue::String)),
            SomeValue::None,
            SomeValue::Functions(vec!["f".into(), "g".into()]),
            SomeValue::Builtin("len".into()),
            SomeValue::Object,
        ];
        for v in values {
            assert_eq!(SomeValue::parse(&v.to_string()), Ok(v.clone()), "{v}");
        }
    }
}

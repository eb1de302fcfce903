//! Annotations: the SomeXxx lattice the annotator infers, one value per variable.
//!
//! `Impossible` is the bottom (no value reaches here yet), `Object` the top (the
//! annotator could not find one type: always an error in RPython). How two
//! annotations join and what each operation yields are rules in
//! `rules/annotate/` (plus the annotator's Rust for what needs the whole
//! program: shared list and dict definitions, class hierarchies, calls); this
//! module only defines the values, their order and their text form.
//!
//! Lists and dicts are mutable and aliased: every alias of one list must agree
//! on its item annotation, so a `ListDef` carries the id of its entry in the
//! annotator's table, which holds the authoritative item (generalizing it
//! through one alias reflows every reader). The `item` stored here is the
//! table's value when the annotation was last read; in an annotated program
//! it is the final one.

use crate::lltype::LowLevelType;
use std::fmt;
use std::sync::Arc;

/// A list's shared definition: which table entry, its items, and whether it
/// may change length (a list that is never appended to, popped or extended is
/// fixed-size, and the rtyper gives it a plain array).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ListDef {
    pub id: u32,
    pub item: Box<SomeValue>,
    pub resizable: bool,
    /// Whether None may be here instead of a list. A property of the value,
    /// not of the shared definition: the annotator's table does not hold it
    /// and resolving a value against the table keeps it.
    pub can_be_none: bool,
}

/// What the annotator hands the rtyper besides the annotated graphs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProgramFacts {
    /// The program's classes, bases before the classes deriving from them.
    pub classdefs: Vec<ClassDef>,
    /// The annotation of each prebuilt object the graphs use (directly or
    /// through other prebuilt objects), by index: a prebuilt list's item
    /// annotation is its list definition's, which its constant items alone
    /// do not tell.
    pub prebuilt: std::collections::BTreeMap<u32, SomeValue>,
    /// The key functions of each `r_dict` (its equality, then its hash:
    /// functions of the program, by graph name), by the dict definition's
    /// id.
    pub custom_keys: std::collections::BTreeMap<u32, (String, String)>,
}

/// What the annotator learned of one class of the program, for the rtyper.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassDef {
    /// The qualified name (`__main__.Node`).
    pub name: String,
    /// The base whose instance layout this class extends: its first base
    /// that is a program class or a builtin exception class; `None` when it
    /// derives from `object` alone.
    pub base: Option<String>,
    /// The instance attributes this class holds (those of its bases are
    /// theirs), with the union of what is stored into them, by name.
    pub attrs: Vec<(String, SomeValue)>,
    /// Instances of it are built (or prebuilt).
    pub instantiated: bool,
    /// The fields its `_immutable_fields_` declares, as written there
    /// (`"code"`, `"consts[*]"`: the list the field holds never changes
    /// either); every field when it says `_immutable_ = True` (`"*"`). The
    /// JIT folds reads of them from constant objects.
    pub immutable_fields: Vec<String>,
}

/// A dict's shared definition: which table entry, its keys and its values.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DictDef {
    pub id: u32,
    pub key: Box<SomeValue>,
    pub value: Box<SomeValue>,
    /// Whether None may be here instead of a dict (see `ListDef`).
    pub can_be_none: bool,
}

/// One prebuilt object a `SomePBC` may be.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Desc {
    /// A function of the program, by graph name.
    Function(String),
    /// A method `func` bound to an instance of `class` (or a subclass).
    Method { class: String, func: String },
    /// A class of the program (calling it builds an instance).
    Class(String),
    /// A frozen prebuilt object (an instance built at import time whose class
    /// has a `_freeze_` returning True: its attributes are constants), by
    /// the name the flow graphs print it by (`&3`).
    Frozen(String),
    /// A method `func` of a frozen object's class, bound to `object`.
    FrozenMethod { object: String, func: String },
}

impl fmt::Display for Desc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Desc::Function(name) => f.write_str(name),
            Desc::Method { class, func } => write!(f, "method:{func}@{class}"),
            Desc::Class(name) => write!(f, "class:{name}"),
            Desc::Frozen(name) => write!(f, "frozen:{name}"),
            Desc::FrozenMethod { object, func } => write!(f, "frozen-method:{func}@{object}"),
        }
    }
}

impl Desc {
    /// The class names of `descs` when every one is a class (a variable
    /// holding one of these classes), else `None`.
    pub fn class_names(descs: &[Desc]) -> Option<Vec<&str>> {
        descs
            .iter()
            .map(|d| match d {
                Desc::Class(c) => Some(c.as_str()),
                _ => None,
            })
            .collect()
    }

    fn parse(text: &str) -> Result<Desc, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("an empty name in SomePBC(...)".into());
        }
        Ok(if let Some(m) = text.strip_prefix("frozen-method:") {
            let (func, object) = m
                .split_once('@')
                .ok_or_else(|| format!("'{text}' needs the form frozen-method:func@object"))?;
            Desc::FrozenMethod {
                object: object.into(),
                func: func.into(),
            }
        } else if let Some(m) = text.strip_prefix("method:") {
            let (func, class) = m
                .split_once('@')
                .ok_or_else(|| format!("'{text}' needs the form method:func@Class"))?;
            Desc::Method {
                class: class.into(),
                func: func.into(),
            }
        } else if let Some(c) = text.strip_prefix("class:") {
            Desc::Class(c.into())
        } else if let Some(o) = text.strip_prefix("frozen:") {
            Desc::Frozen(o.into())
        } else {
            Desc::Function(text.into())
        })
    }
}

/// A value the annotator knows exactly, the original's `.const`: a scalar
/// every run gives this variable. It comes from constants in the graphs and
/// from operations on known values (`we_are_translated()`, `x is None` on a
/// value that cannot be None), and lets the annotator follow only the branch
/// a known condition takes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Known {
    Int(i64),
    Bool(bool),
    /// A string of length 1, by its byte.
    Char(u8),
    Str(String),
}

impl Known {
    /// The annotation of every value of this one's kind (`5` -> a
    /// non-negative int).
    pub fn general(&self) -> SomeValue {
        match self {
            Known::Int(n) => SomeValue::Integer {
                nonneg: *n >= 0,
                unsigned: false,
            },
            Known::Bool(_) => SomeValue::Bool,
            Known::Char(_) => SomeValue::Char,
            Known::Str(s) => SomeValue::String {
                can_be_none: false,
                no_nul: !s.contains('\0'),
            },
        }
    }

    /// The value as the text form writes it after `const=`.
    fn literal(&self) -> String {
        match self {
            Known::Int(n) => n.to_string(),
            Known::Bool(b) => b.to_string(),
            Known::Char(c) => format!("{:?}", String::from(*c as char)),
            Known::Str(s) => format!("{s:?}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SomeValue {
    /// Bottom: no value has reached this variable yet.
    Impossible,
    /// A machine-word integer; `nonneg` when it is known to be >= 0,
    /// `unsigned` for an `r_uint` (arithmetic modulo 2**64).
    Integer {
        nonneg: bool,
        unsigned: bool,
    },
    Bool,
    Float,
    /// A string of length 1.
    Char,
    /// A byte string; `can_be_none` when None may be here too, `no_nul` when
    /// it is known to hold no NUL character.
    String {
        can_be_none: bool,
        no_nul: bool,
    },
    /// A unicode string, with the same flags.
    Unicode {
        can_be_none: bool,
        no_nul: bool,
    },
    /// A tuple of fixed length, one annotation per item.
    Tuple(Vec<SomeValue>),
    List(ListDef),
    Dict(DictDef),
    /// An iterator over the given container (a list, dict, string or tuple).
    Iterator(Box<SomeValue>),
    /// An instance of `class` or of one of its subclasses.
    Instance {
        class: String,
        can_be_none: bool,
    },
    /// One of a set of prebuilt objects (sorted), or None when `can_be_none`.
    /// Shared: a method set holds every override of a method, and the
    /// annotator reads it at every call, so a copy is a reference count.
    Pbc {
        descs: Arc<[Desc]>,
        can_be_none: bool,
    },
    None,
    /// An exception caught by a handler: an instance of one of these classes
    /// (sorted), as `except (A, B) as e` receives; with `can_be_none`, or
    /// None (a variable that holds the last one caught, or nothing yet).
    Exception {
        classes: Vec<String>,
        can_be_none: bool,
    },
    /// A builtin function, by name.
    Builtin(String),
    /// A builtin method (`append`, `join`, ...) bound to a receiver.
    BuiltinMethod {
        name: String,
        receiver: Box<SomeValue>,
    },
    /// A low-level pointer (`Ptr(list_signed)`), the value of low-level
    /// helper code (`rpython/rtyper/` in pylib): a null pointer is a value
    /// of its type, so it can be None.
    Ptr(LowLevelType),
    /// A low-level type, known while annotating (helper code names types
    /// with `typeOf(p)`, `.TO`, a field's type `T.items` and constant
    /// arguments): a value type as `LowLevelType` writes it (`Signed`,
    /// `Ptr(list_signed)`) or a container type by its name (`list_signed`).
    LLType(String),
    /// Top: the annotator found values of incompatible types here.
    Object,
    /// One known value, below the annotation of its kind (`Known::general`).
    /// Only a variable's own annotation is ever one: the items of tuples,
    /// lists and dicts are general.
    Const(Known),
}

impl SomeValue {
    pub fn int() -> SomeValue {
        SomeValue::Integer {
            nonneg: false,
            unsigned: false,
        }
    }
    pub fn nonneg_int() -> SomeValue {
        SomeValue::Integer {
            nonneg: true,
            unsigned: false,
        }
    }
    /// A string that is never None and may hold NULs.
    pub fn string() -> SomeValue {
        SomeValue::String {
            can_be_none: false,
            no_nul: false,
        }
    }
    /// One function, as a `SomePBC`.
    pub fn function(name: impl Into<String>) -> SomeValue {
        SomeValue::Pbc {
            descs: Arc::new([Desc::Function(name.into())]),
            can_be_none: false,
        }
    }

    /// This annotation without what is known of its exact value: what the
    /// rules type operations on, and what later stages receive.
    pub fn general(&self) -> SomeValue {
        match self {
            SomeValue::Const(k) => k.general(),
            other => other.clone(),
        }
    }

    /// The value this annotation knows exactly, if any.
    pub fn known(&self) -> Option<&Known> {
        match self {
            SomeValue::Const(k) => Some(k),
            _ => None,
        }
    }

    /// The name of this annotation's kind, as rules and messages spell it.
    pub fn kind_name(&self) -> &'static str {
        match self {
            SomeValue::Const(k) => k.general().kind_name(),
            SomeValue::Impossible => "SomeImpossibleValue",
            SomeValue::Integer { .. } => "SomeInteger",
            SomeValue::Bool => "SomeBool",
            SomeValue::Float => "SomeFloat",
            SomeValue::Char => "SomeChar",
            SomeValue::String { .. } => "SomeString",
            SomeValue::Unicode { .. } => "SomeUnicodeString",
            SomeValue::Tuple(_) => "SomeTuple",
            SomeValue::List(_) => "SomeList",
            SomeValue::Dict(_) => "SomeDict",
            SomeValue::Iterator(_) => "SomeIterator",
            SomeValue::Instance { .. } => "SomeInstance",
            SomeValue::Pbc { .. } => "SomePBC",
            SomeValue::None => "SomeNone",
            SomeValue::Exception { .. } => "SomeException",
            SomeValue::Builtin(_) => "SomeBuiltin",
            SomeValue::BuiltinMethod { .. } => "SomeBuiltinMethod",
            SomeValue::Ptr(_) => "SomePtr",
            SomeValue::LLType(_) => "SomeLLType",
            SomeValue::Object => "SomeObject",
        }
    }

    /// Can None be a value of this annotation?
    /// An exception of one of `classes` (sorted), never None.
    pub fn exception(classes: Vec<String>) -> SomeValue {
        SomeValue::Exception {
            classes,
            can_be_none: false,
        }
    }

    pub fn can_be_none(&self) -> bool {
        match self {
            SomeValue::None | SomeValue::Ptr(_) => true,
            SomeValue::String { can_be_none, .. }
            | SomeValue::Unicode { can_be_none, .. }
            | SomeValue::Instance { can_be_none, .. }
            | SomeValue::Exception { can_be_none, .. }
            | SomeValue::Pbc { can_be_none, .. } => *can_be_none,
            SomeValue::List(def) => def.can_be_none,
            SomeValue::Dict(def) => def.can_be_none,
            SomeValue::Object => true,
            _ => false,
        }
    }

    /// This annotation with None among its values, if its kind can hold
    /// None (a str, unicode, instance, prebuilt object, list, dict or
    /// low-level pointer).
    pub fn or_none(&self) -> Option<SomeValue> {
        let mut v = self.clone();
        match &mut v {
            SomeValue::String { can_be_none, .. }
            | SomeValue::Unicode { can_be_none, .. }
            | SomeValue::Instance { can_be_none, .. }
            | SomeValue::Exception { can_be_none, .. }
            | SomeValue::Pbc { can_be_none, .. } => *can_be_none = true,
            SomeValue::List(def) => def.can_be_none = true,
            SomeValue::Dict(def) => def.can_be_none = true,
            SomeValue::None | SomeValue::Ptr(_) | SomeValue::Object => {}
            _ => return None,
        }
        Some(v)
    }

    /// This annotation without None (what `x is not None` leaves of it).
    pub fn without_none(&self) -> SomeValue {
        let mut v = self.clone();
        match &mut v {
            SomeValue::String { can_be_none, .. }
            | SomeValue::Unicode { can_be_none, .. }
            | SomeValue::Instance { can_be_none, .. }
            | SomeValue::Exception { can_be_none, .. }
            | SomeValue::Pbc { can_be_none, .. } => *can_be_none = false,
            SomeValue::List(def) => def.can_be_none = false,
            SomeValue::Dict(def) => def.can_be_none = false,
            SomeValue::None => return SomeValue::Impossible,
            _ => {}
        }
        v
    }

    /// A short description for error messages ("an int", "a str", ...).
    pub fn describe(&self) -> String {
        let or_none = |s: String| {
            if self.can_be_none() {
                format!("{s} or None")
            } else {
                s
            }
        };
        match self {
            SomeValue::Impossible => "no value".into(),
            SomeValue::Integer { unsigned: true, .. } => "an unsigned int (r_uint)".into(),
            SomeValue::Integer { nonneg: true, .. } => "a non-negative int".into(),
            SomeValue::Integer { .. } => "an int".into(),
            SomeValue::Bool => "a bool".into(),
            SomeValue::Float => "a float".into(),
            SomeValue::Char => "a str of length 1".into(),
            SomeValue::String { .. } => or_none("a str".into()),
            SomeValue::Unicode { .. } => or_none("a unicode string".into()),
            SomeValue::Tuple(items) => {
                let items: Vec<String> = items.iter().map(|i| i.describe()).collect();
                format!("a tuple ({})", items.join(", "))
            }
            SomeValue::List(def) => or_none(format!("a list of {}", def.item.describe_plural())),
            SomeValue::Dict(def) => or_none(format!(
                "a dict from {} to {}",
                def.key.describe_plural(),
                def.value.describe_plural()
            )),
            SomeValue::Iterator(over) => format!("an iterator over {}", over.describe()),
            SomeValue::Instance { class, .. } => {
                or_none(format!("an instance of {}", user_class_name(class)))
            }
            SomeValue::Pbc { descs, .. } => {
                let names: Vec<String> = descs
                    .iter()
                    .map(|d| match d {
                        Desc::Function(n) => format!("the function {n}"),
                        Desc::Method { func, .. } => format!("the method {func}"),
                        Desc::Class(c) => format!("the class {}", user_class_name(c)),
                        Desc::Frozen(o) => format!("the prebuilt object {o}"),
                        Desc::FrozenMethod { object, func } => {
                            format!("the method {func} of the prebuilt object {object}")
                        }
                    })
                    .collect();
                or_none(names.join(" or "))
            }
            SomeValue::None => "None".into(),
            SomeValue::Exception { classes, .. } => {
                or_none(format!("an exception ({})", classes.join(" or ")))
            }
            SomeValue::Builtin(name) => format!("the builtin {name}"),
            SomeValue::BuiltinMethod { name, receiver } => {
                format!("the method {name} of {}", receiver.describe())
            }
            SomeValue::Ptr(t) => format!("a low-level pointer {t}"),
            SomeValue::LLType(t) => format!("the low-level type {t}"),
            SomeValue::Object => "a value of mixed types".into(),
            SomeValue::Const(k) => k.general().describe(),
        }
    }

    /// How several values of this annotation read in a message ("ints").
    pub fn describe_plural(&self) -> String {
        match self {
            SomeValue::Integer { .. } => "ints".into(),
            SomeValue::Bool => "bools".into(),
            SomeValue::Float => "floats".into(),
            SomeValue::Char | SomeValue::String { .. } => "strs".into(),
            SomeValue::Impossible => "nothing yet".into(),
            SomeValue::Const(k) => k.general().describe_plural(),
            other => other.describe(),
        }
    }

    /// Is every value of `other` also a value of `self`? (The lattice order,
    /// for what the rules can decide without the class hierarchy: instances
    /// are contained only in instances of the same class.)
    pub fn contains(&self, other: &SomeValue) -> bool {
        use SomeValue as S;
        match (self, other) {
            (_, S::Impossible) | (S::Object, _) => true,
            (a, b) if a == b => true,
            (S::Const(_), _) => false,
            (a, S::Const(k)) => a.contains(&k.general()),
            (
                S::Integer {
                    nonneg: n1,
                    unsigned: u1,
                },
                S::Integer {
                    nonneg: n2,
                    unsigned: u2,
                },
            ) => u1 == u2 && (!n1 || *n2),
            (S::Integer { nonneg, unsigned }, S::Bool) => !unsigned || *nonneg,
            (S::Float, S::Integer { .. } | S::Bool) => true,
            (S::String { .. }, S::Char) => true,
            (
                S::String {
                    can_be_none: c1,
                    no_nul: z1,
                },
                S::String {
                    can_be_none: c2,
                    no_nul: z2,
                },
            )
            | (
                S::Unicode {
                    can_be_none: c1,
                    no_nul: z1,
                },
                S::Unicode {
                    can_be_none: c2,
                    no_nul: z2,
                },
            ) => (*c1 || !c2) && (!z1 || *z2),
            (S::Tuple(a), S::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.contains(y))
            }
            (S::List(a), S::List(b)) => a.id == b.id && (a.can_be_none || !b.can_be_none),
            (S::Dict(a), S::Dict(b)) => a.id == b.id && (a.can_be_none || !b.can_be_none),
            (S::Iterator(a), S::Iterator(b)) => a.contains(b),
            (
                S::Instance {
                    class: c1,
                    can_be_none: n1,
                },
                S::Instance {
                    class: c2,
                    can_be_none: n2,
                },
            ) => c1 == c2 && (*n1 || !n2),
            (
                S::Pbc {
                    descs: d1,
                    can_be_none: n1,
                },
                S::Pbc {
                    descs: d2,
                    can_be_none: n2,
                },
            ) => d2.iter().all(|d| d1.contains(d)) && (*n1 || !n2),
            (
                S::Exception {
                    classes: a,
                    can_be_none: n1,
                },
                S::Exception {
                    classes: b,
                    can_be_none: n2,
                },
            ) => b.iter().all(|c| a.contains(c)) && (*n1 || !n2),
            (a, S::None) => a.can_be_none(),
            _ => false,
        }
    }

    /// Parses the text `Display` writes.
    pub fn parse(text: &str) -> Result<SomeValue, String> {
        let text = text.trim();
        let (head, inner) = match text.find('(') {
            Some(i) if text.ends_with(')') => (&text[..i], Some(&text[i + 1..text.len() - 1])),
            _ => (text, None),
        };
        let parts = inner.map(split_top_level).unwrap_or_default();
        if let [part] = parts.as_slice() {
            if let Some(literal) = part.strip_prefix("const=") {
                return parse_known(head, literal)
                    .map(SomeValue::Const)
                    .ok_or_else(|| format!("'{literal}' is not a constant of {head} in '{text}'"));
            }
        }
        let flags = |allowed: &[&str]| -> Result<Vec<&str>, String> {
            let mut set = Vec::new();
            for p in &parts {
                let name = p.strip_suffix("=true").unwrap_or("");
                if !allowed.contains(&name) {
                    return Err(format!("unknown flag '{p}' in '{text}'"));
                }
                set.push(name);
            }
            Ok(set)
        };
        let v = match (head, inner) {
            ("SomeImpossibleValue", None) => SomeValue::Impossible,
            ("SomeInteger", Some(_)) => {
                let mut nonneg = None;
                let mut unsigned = false;
                for p in &parts {
                    match *p {
                        "nonneg=true" => nonneg = Some(true),
                        "nonneg=false" => nonneg = Some(false),
                        "unsigned=true" => unsigned = true,
                        _ => return Err(format!("unknown flag '{p}' in '{text}'")),
                    }
                }
                let nonneg = nonneg.ok_or_else(|| format!("'{text}' needs nonneg=..."))?;
                SomeValue::Integer { nonneg, unsigned }
            }
            ("SomeBool", None) => SomeValue::Bool,
            ("SomeFloat", None) => SomeValue::Float,
            ("SomeChar", None) => SomeValue::Char,
            ("SomeString" | "SomeUnicodeString", _) => {
                let set = flags(&["can_be_None", "no_nul"])?;
                let can_be_none = set.contains(&"can_be_None");
                let no_nul = set.contains(&"no_nul");
                if head == "SomeString" {
                    SomeValue::String {
                        can_be_none,
                        no_nul,
                    }
                } else {
                    SomeValue::Unicode {
                        can_be_none,
                        no_nul,
                    }
                }
            }
            ("SomeTuple", Some(_)) => SomeValue::Tuple(
                parts
                    .iter()
                    .map(|p| SomeValue::parse(p))
                    .collect::<Result<_, _>>()?,
            ),
            ("SomeList", Some(_)) => {
                let (item, rest) = parts.split_first().ok_or("SomeList() needs an item")?;
                let mut resizable = true;
                let mut id = None;
                let mut can_be_none = false;
                for p in rest {
                    match *p {
                        "fixed" => resizable = false,
                        "can_be_None=true" => can_be_none = true,
                        _ => id = Some(parse_id(p, text)?),
                    }
                }
                SomeValue::List(ListDef {
                    id: id.ok_or_else(|| format!("'{text}' needs id=N"))?,
                    item: Box::new(SomeValue::parse(item)?),
                    resizable,
                    can_be_none,
                })
            }
            ("SomeDict", Some(_)) => {
                let (can_be_none, parts) = match parts.as_slice() {
                    [rest @ .., "can_be_None=true"] => (true, rest),
                    all => (false, all),
                };
                let [key, value, id] = parts else {
                    return Err(format!("'{text}' needs a key, a value and id=N"));
                };
                SomeValue::Dict(DictDef {
                    id: parse_id(id, text)?,
                    key: Box::new(SomeValue::parse(key)?),
                    value: Box::new(SomeValue::parse(value)?),
                    can_be_none,
                })
            }
            ("SomeIterator", Some(over)) => SomeValue::Iterator(Box::new(SomeValue::parse(over)?)),
            ("SomeInstance", Some(_)) => {
                let (class, rest) = parts.split_first().ok_or("SomeInstance() needs a class")?;
                let can_be_none = match rest {
                    [] => false,
                    ["can_be_None=true"] => true,
                    _ => return Err(format!("unknown flags in '{text}'")),
                };
                SomeValue::Instance {
                    class: class.to_string(),
                    can_be_none,
                }
            }
            ("SomePBC", Some(_)) => {
                let mut descs = Vec::new();
                let mut can_be_none = false;
                for p in &parts {
                    if *p == "None" {
                        can_be_none = true;
                    } else {
                        descs.push(Desc::parse(p)?);
                    }
                }
                SomeValue::Pbc {
                    descs: descs.into(),
                    can_be_none,
                }
            }
            ("SomeNone", None) => SomeValue::None,
            ("SomeException", Some(_)) => {
                let can_be_none = parts.last() == Some(&"None");
                let classes = &parts[..parts.len() - usize::from(can_be_none)];
                SomeValue::Exception {
                    classes: classes.iter().map(|p| p.to_string()).collect(),
                    can_be_none,
                }
            }
            ("SomeBuiltin", Some(name)) => SomeValue::Builtin(name.trim().to_string()),
            ("SomeBuiltinMethod", Some(_)) => {
                let [name, receiver] = parts.as_slice() else {
                    return Err(format!("'{text}' needs a name and a receiver"));
                };
                SomeValue::BuiltinMethod {
                    name: name.to_string(),
                    receiver: Box::new(SomeValue::parse(receiver)?),
                }
            }
            ("SomePtr", Some(t)) => SomeValue::Ptr(LowLevelType::parse(t)?),
            ("SomeLLType", Some(t)) => SomeValue::LLType(t.trim().to_string()),
            ("SomeObject", None) => SomeValue::Object,
            _ => return Err(format!("unknown annotation '{text}'")),
        };
        Ok(v)
    }
}

/// The known value `literal` (what follows `const=`) of the kind `head`.
fn parse_known(head: &str, literal: &str) -> Option<Known> {
    match head {
        "SomeInteger" => literal.parse().ok().map(Known::Int),
        "SomeBool" => literal.parse().ok().map(Known::Bool),
        "SomeString" => unquote(literal).map(Known::Str),
        "SomeChar" => {
            let s = unquote(literal)?;
            let mut chars = s.chars();
            let c = u8::try_from(u32::from(chars.next()?)).ok()?;
            chars.next().is_none().then_some(Known::Char(c))
        }
        _ => None,
    }
}

/// The string a `"..."` literal as Rust's `{:?}` writes it spells.
fn unquote(literal: &str) -> Option<String> {
    let body = literal.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            '0' => '\0',
            'u' => {
                let rest: String = chars.by_ref().take_while(|&c| c != '}').collect();
                let hex = rest.strip_prefix('{')?;
                char::from_u32(u32::from_str_radix(hex, 16).ok()?)?
            }
            other => other,
        });
    }
    Some(out)
}

fn parse_id(part: &str, text: &str) -> Result<u32, String> {
    part.strip_prefix("id=")
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("'{part}' in '{text}' should be id=N"))
}

/// Splits `a, B(c, d), e` at the commas outside parentheses and string
/// literals.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut in_string = false;
    let mut escaped = false;
    for (i, ch) in text.char_indices() {
        if in_string {
            match ch {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match ch {
            '"' => in_string = true,
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() || !parts.is_empty() {
        parts.push(last);
    }
    parts
}

/// Writes `Head(flag=true, ...)` for the set flags, or just `Head` when none is.
fn write_flags(f: &mut fmt::Formatter<'_>, head: &str, flags: &[(&str, bool)]) -> fmt::Result {
    let set: Vec<String> = flags
        .iter()
        .filter(|(_, on)| *on)
        .map(|(name, _)| format!("{name}=true"))
        .collect();
    if set.is_empty() {
        f.write_str(head)
    } else {
        write!(f, "{head}({})", set.join(", "))
    }
}

impl fmt::Display for SomeValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SomeValue::Integer { nonneg, unsigned } => {
                write!(f, "SomeInteger(nonneg={nonneg}")?;
                if *unsigned {
                    f.write_str(", unsigned=true")?;
                }
                f.write_str(")")
            }
            SomeValue::String {
                can_be_none,
                no_nul,
            } => write_flags(
                f,
                "SomeString",
                &[("can_be_None", *can_be_none), ("no_nul", *no_nul)],
            ),
            SomeValue::Unicode {
                can_be_none,
                no_nul,
            } => write_flags(
                f,
                "SomeUnicodeString",
                &[("can_be_None", *can_be_none), ("no_nul", *no_nul)],
            ),
            SomeValue::Tuple(items) => {
                let items: Vec<String> = items.iter().map(|i| i.to_string()).collect();
                write!(f, "SomeTuple({})", items.join(", "))
            }
            SomeValue::List(def) => {
                let fixed = if def.resizable { "" } else { ", fixed" };
                let none = if def.can_be_none {
                    ", can_be_None=true"
                } else {
                    ""
                };
                write!(f, "SomeList({}{fixed}, id={}{none})", def.item, def.id)
            }
            SomeValue::Dict(def) => {
                let none = if def.can_be_none {
                    ", can_be_None=true"
                } else {
                    ""
                };
                write!(
                    f,
                    "SomeDict({}, {}, id={}{none})",
                    def.key, def.value, def.id
                )
            }
            SomeValue::Iterator(over) => write!(f, "SomeIterator({over})"),
            SomeValue::Instance { class, can_be_none } => {
                let none = if *can_be_none {
                    ", can_be_None=true"
                } else {
                    ""
                };
                write!(f, "SomeInstance({class}{none})")
            }
            SomeValue::Pbc { descs, can_be_none } => {
                let mut names: Vec<String> = descs.iter().map(|d| d.to_string()).collect();
                if *can_be_none {
                    names.push("None".into());
                }
                write!(f, "SomePBC({})", names.join(", "))
            }
            SomeValue::Exception {
                classes,
                can_be_none,
            } => {
                let none = if *can_be_none { ", None" } else { "" };
                write!(f, "SomeException({}{none})", classes.join(", "))
            }
            SomeValue::Builtin(name) => write!(f, "SomeBuiltin({name})"),
            SomeValue::BuiltinMethod { name, receiver } => {
                write!(f, "SomeBuiltinMethod({name}, {receiver})")
            }
            SomeValue::Const(k) => {
                write!(f, "{}(const={})", k.general().kind_name(), k.literal())
            }
            SomeValue::Ptr(t) => write!(f, "SomePtr({t})"),
            SomeValue::LLType(t) => write!(f, "SomeLLType({t})"),
            other => f.write_str(other.kind_name()),
        }
    }
}

/// A class as messages name it: the main module's classes by their own
/// name, the others' with their module (`shapes.Square`).
pub fn user_class_name(class: &str) -> &str {
    class.strip_prefix("__main__.").unwrap_or(class)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(item: SomeValue, resizable: bool, id: u32) -> SomeValue {
        SomeValue::List(ListDef {
            id,
            item: Box::new(item),
            resizable,
            can_be_none: false,
        })
    }

    fn samples() -> Vec<SomeValue> {
        vec![
            SomeValue::Impossible,
            SomeValue::int(),
            SomeValue::nonneg_int(),
            SomeValue::Integer {
                nonneg: true,
                unsigned: true,
            },
            SomeValue::Bool,
            SomeValue::Float,
            SomeValue::Char,
            SomeValue::string(),
            SomeValue::String {
                can_be_none: true,
                no_nul: true,
            },
            SomeValue::Unicode {
                can_be_none: false,
                no_nul: true,
            },
            SomeValue::Tuple(vec![]),
            SomeValue::Tuple(vec![SomeValue::int(), list(SomeValue::string(), false, 3)]),
            list(SomeValue::string(), true, 0),
            SomeValue::List(ListDef {
                id: 4,
                item: Box::new(SomeValue::int()),
                resizable: false,
                can_be_none: true,
            }),
            SomeValue::Dict(DictDef {
                id: 8,
                key: Box::new(SomeValue::string()),
                value: Box::new(SomeValue::int()),
                can_be_none: true,
            }),
            SomeValue::Dict(DictDef {
                id: 7,
                key: Box::new(SomeValue::Char),
                value: Box::new(SomeValue::Tuple(vec![SomeValue::Float, SomeValue::Bool])),
                can_be_none: false,
            }),
            SomeValue::Iterator(Box::new(list(SomeValue::int(), true, 1))),
            SomeValue::Instance {
                class: "mod.Node".into(),
                can_be_none: true,
            },
            SomeValue::None,
            SomeValue::function("f"),
            SomeValue::Pbc {
                descs: [
                    Desc::Function("f".into()),
                    Desc::Method {
                        class: "A".into(),
                        func: "A.run".into(),
                    },
                    Desc::Class("B".into()),
                    Desc::Frozen("config".into()),
                    Desc::FrozenMethod {
                        object: "&2".into(),
                        func: "Space.wrap".into(),
                    },
                ]
                .into(),
                can_be_none: true,
            },
            SomeValue::exception(vec!["KeyError".into(), "ValueError".into()]),
            SomeValue::Exception {
                classes: vec!["KeyError".into()],
                can_be_none: true,
            },
            SomeValue::Builtin("len".into()),
            SomeValue::BuiltinMethod {
                name: "append".into(),
                receiver: Box::new(list(SomeValue::int(), true, 2)),
            },
            SomeValue::Ptr(LowLevelType::Ptr("list_signed".into())),
            SomeValue::Ptr(LowLevelType::parse("Func(Signed -> Bool)").unwrap()),
            SomeValue::LLType("list_signed".into()),
            SomeValue::LLType("Ptr(array_signed)".into()),
            SomeValue::Object,
            SomeValue::Const(Known::Int(-5)),
            SomeValue::Const(Known::Bool(true)),
            SomeValue::Const(Known::Char(b'(')),
            SomeValue::Const(Known::Char(0xe9)),
            SomeValue::Const(Known::Str("a, \"b\")\\\n\0\u{1}é".into())),
            SomeValue::Tuple(vec![
                SomeValue::Const(Known::Str("x, y".into())),
                SomeValue::Const(Known::Int(0)),
            ]),
        ]
    }

    #[test]
    fn text_round_trips() {
        for v in samples() {
            assert_eq!(SomeValue::parse(&v.to_string()), Ok(v.clone()), "{v}");
        }
    }

    #[test]
    fn order_has_bottom_and_top_and_is_reflexive() {
        for v in samples() {
            assert!(v.contains(&v), "{v}");
            assert!(v.contains(&SomeValue::Impossible), "{v}");
            assert!(SomeValue::Object.contains(&v), "{v}");
        }
        assert!(SomeValue::int().contains(&SomeValue::nonneg_int()));
        assert!(!SomeValue::nonneg_int().contains(&SomeValue::int()));
        assert!(SomeValue::Float.contains(&SomeValue::Bool));
        assert!(!SomeValue::string().contains(&SomeValue::None));
        assert!(SomeValue::String {
            can_be_none: true,
            no_nul: false
        }
        .contains(&SomeValue::None));
    }

    #[test]
    fn a_known_value_is_below_its_kind_and_nothing_else() {
        let five = SomeValue::Const(Known::Int(5));
        assert!(SomeValue::nonneg_int().contains(&five));
        assert!(SomeValue::int().contains(&five));
        assert!(!five.contains(&SomeValue::nonneg_int()));
        assert!(!five.contains(&SomeValue::Const(Known::Int(6))));
        assert!(!SomeValue::nonneg_int().contains(&SomeValue::Const(Known::Int(-1))));
        assert!(!SomeValue::Bool.contains(&five));
        let nul = SomeValue::Const(Known::Str("a\0".into()));
        assert_eq!(nul.general(), SomeValue::string());
        assert_eq!(nul.to_string(), "SomeString(const=\"a\\0\")");
        assert_eq!(five.describe(), "a non-negative int");
    }

    #[test]
    fn bad_text_is_an_error() {
        for bad in [
            "SomeInteger(nonneg=maybe)",
            "SomeList(SomeString)",
            "SomeString(nul=true)",
            "SomeDict(SomeChar)",
            "SomeWhatever",
            "SomeInteger(const=x)",
            "SomeChar(const=\"ab\")",
            "SomeString(const=\"open)",
            "SomeFloat(const=1)",
        ] {
            assert!(SomeValue::parse(bad).is_err(), "{bad}");
        }
    }
}

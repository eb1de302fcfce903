//! Low-level types and their memory layout.
//!
//! Primitive types are values in a register; containers (`GcStruct`, `GcArray`)
//! live in memory and are reached through `Ptr(name)`, where `name` refers to the
//! program's `TypeTable`. The layout computed here (sizes, alignment, field
//! offsets) is the one the C backend emits and every other consumer assumes, so
//! an object made by one is read correctly by the others.

use std::collections::BTreeMap;
use std::fmt;

#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum LowLevelType {
    /// No value (the result of an operation done for its effect).
    Void,
    /// A signed machine word (i64).
    Signed,
    /// An unsigned machine word (u64).
    Unsigned,
    /// An IEEE double.
    Float,
    Bool,
    /// One byte.
    Char,
    /// A GC pointer to the named container type.
    Ptr(String),
    /// A pointer to a function of this signature (a method slot of a
    /// vtable, a member of a call family).
    FuncPtr(Box<FuncSig>),
}

/// The parameter and result types of a function pointer.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct FuncSig {
    pub params: Vec<LowLevelType>,
    pub result: LowLevelType,
}

impl FuncSig {
    /// This signature with every GC pointer type made one. A call through
    /// a vtable slot is typed by the slot's class, while the method it
    /// reaches takes an instance of a subclass: the analyses that ask
    /// which graphs a function pointer may reach (which can raise, what
    /// each may write) match pointer calls and graphs by this shape.
    pub fn pointer_shape(&self) -> FuncSig {
        let erase = |t: &LowLevelType| match t {
            LowLevelType::Ptr(_) => LowLevelType::Ptr(String::new()),
            other => other.clone(),
        };
        FuncSig {
            params: self.params.iter().map(erase).collect(),
            result: erase(&self.result),
        }
    }
}

/// `text` split at its commas that are outside parentheses.
pub fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, ch) in text.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// The zero value of type `t` as a constant: 0, 0.0, False, `'\0'`, and
/// `None` (null, or nothing for Void) for pointers. What a field of a static
/// holds when nothing was stored in it, and the error value a graph returns
/// with an exception pending after `exceptiontransform`.
pub fn zero_constant(t: &LowLevelType) -> crate::graph::Constant {
    use crate::graph::Constant;
    match t {
        LowLevelType::Signed | LowLevelType::Unsigned => Constant::Int(0),
        LowLevelType::Float => Constant::Float(0.0),
        LowLevelType::Bool => Constant::Bool(false),
        LowLevelType::Char => Constant::Char(0),
        LowLevelType::Void | LowLevelType::Ptr(_) | LowLevelType::FuncPtr(_) => Constant::None,
    }
}

impl LowLevelType {
    pub fn parse(text: &str) -> Result<LowLevelType, String> {
        let text = text.trim();
        Ok(match text {
            "Void" => LowLevelType::Void,
            "Signed" => LowLevelType::Signed,
            "Unsigned" => LowLevelType::Unsigned,
            "Float" => LowLevelType::Float,
            "Bool" => LowLevelType::Bool,
            "Char" => LowLevelType::Char,
            _ => {
                if let Some(sig) = text.strip_prefix("Func(").and_then(|t| t.strip_suffix(')')) {
                    let (params, result) = sig
                        .rsplit_once("->")
                        .ok_or_else(|| format!("function type '{text}' needs '-> Result'"))?;
                    let params = if params.trim().is_empty() {
                        Vec::new()
                    } else {
                        split_top_level(params)
                            .into_iter()
                            .map(LowLevelType::parse)
                            .collect::<Result<_, _>>()?
                    };
                    return Ok(LowLevelType::FuncPtr(Box::new(FuncSig {
                        params,
                        result: LowLevelType::parse(result)?,
                    })));
                }
                match text.strip_prefix("Ptr(").and_then(|t| t.strip_suffix(')')) {
                    Some(name) if !name.is_empty() => LowLevelType::Ptr(name.trim().to_string()),
                    _ => return Err(format!("unknown low-level type '{text}'")),
                }
            }
        })
    }

    /// Size and alignment in bytes (x86-64 System V).
    pub fn size_align(&self) -> (usize, usize) {
        match self {
            LowLevelType::Void => (0, 1),
            LowLevelType::Bool | LowLevelType::Char => (1, 1),
            LowLevelType::Signed
            | LowLevelType::Unsigned
            | LowLevelType::Float
            | LowLevelType::Ptr(_)
            | LowLevelType::FuncPtr(_) => (8, 8),
        }
    }
}

impl fmt::Display for LowLevelType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LowLevelType::Void => f.write_str("Void"),
            LowLevelType::Signed => f.write_str("Signed"),
            LowLevelType::Unsigned => f.write_str("Unsigned"),
            LowLevelType::Float => f.write_str("Float"),
            LowLevelType::Bool => f.write_str("Bool"),
            LowLevelType::Char => f.write_str("Char"),
            LowLevelType::Ptr(name) => write!(f, "Ptr({name})"),
            LowLevelType::FuncPtr(sig) => {
                f.write_str("Func(")?;
                for (i, p) in sig.params.iter().enumerate() {
                    write!(f, "{}{p}", if i == 0 { "" } else { ", " })?;
                }
                if !sig.params.is_empty() {
                    f.write_str(" ")?;
                }
                write!(f, "-> {})", sig.result)
            }
        }
    }
}

/// A type that lives in GC memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ContainerType {
    /// A struct; when `var_item` is set, it ends in an inline array of that item
    /// type whose length is the `length` field (which must be among `fields`).
    GcStruct {
        fields: Vec<(String, LowLevelType)>,
        var_item: Option<LowLevelType>,
    },
    /// An array with a length header.
    GcArray { item: LowLevelType },
}

/// Where each field of a container sits in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Size of the fixed part (for a varsized container: without any items).
    pub fixed_size: usize,
    pub align: usize,
    /// Byte offset of each named field (an array's length is the field `length`).
    pub field_offsets: Vec<(String, usize)>,
    /// For varsized containers: offset of item 0 and the size of one item.
    pub items: Option<(usize, usize)>,
}

impl Layout {
    pub fn offset_of(&self, field: &str) -> Option<usize> {
        self.field_offsets
            .iter()
            .find(|(n, _)| n == field)
            .map(|(_, o)| *o)
    }
}

fn align_up(n: usize, align: usize) -> usize {
    n.div_ceil(align) * align
}

impl ContainerType {
    /// Every GC object starts with one header word, used by the GC (type id and
    /// flags); fields follow it.
    pub const GC_HEADER_SIZE: usize = 8;

    pub fn layout(&self) -> Layout {
        let mut offset = Self::GC_HEADER_SIZE;
        let mut align = 8;
        let mut field_offsets = Vec::new();
        let mut place = |name: &str, t: &LowLevelType, offset: &mut usize| {
            let (s, a) = t.size_align();
            *offset = align_up(*offset, a);
            field_offsets.push((name.to_string(), *offset));
            *offset += s;
            align = align.max(a);
        };
        let (fields, var_item): (Vec<(String, LowLevelType)>, Option<&LowLevelType>) = match self {
            ContainerType::GcStruct { fields, var_item } => (fields.clone(), var_item.as_ref()),
            ContainerType::GcArray { item } => (
                vec![("length".to_string(), LowLevelType::Signed)],
                Some(item),
            ),
        };
        for (name, t) in &fields {
            place(name, t, &mut offset);
        }
        let items = var_item.map(|item| {
            let (s, a) = item.size_align();
            offset = align_up(offset, a);
            (offset, s)
        });
        Layout {
            fixed_size: align_up(offset, align),
            align,
            field_offsets,
            items,
        }
    }

    pub fn field_type(&self, field: &str) -> Option<&LowLevelType> {
        match self {
            ContainerType::GcStruct { fields, .. } => {
                fields.iter().find(|(n, _)| n == field).map(|(_, t)| t)
            }
            ContainerType::GcArray { .. } => (field == "length").then_some(&LowLevelType::Signed),
        }
    }

    pub fn item_type(&self) -> Option<&LowLevelType> {
        match self {
            ContainerType::GcStruct { var_item, .. } => var_item.as_ref(),
            ContainerType::GcArray { item } => Some(item),
        }
    }
}

impl fmt::Display for ContainerType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContainerType::GcStruct { fields, var_item } => {
                f.write_str("GcStruct {")?;
                for (i, (n, t)) in fields.iter().enumerate() {
                    write!(f, "{}{n}: {t}", if i == 0 { " " } else { ", " })?;
                }
                if let Some(item) = var_item {
                    write!(f, ", ..Array({item})")?;
                }
                f.write_str(" }")
            }
            ContainerType::GcArray { item } => write!(f, "GcArray({item})"),
        }
    }
}

/// The named container types of a program.
pub type TypeTable = BTreeMap<String, ContainerType>;

/// Parses one `ContainerType` as `Display` writes it.
pub fn parse_container(text: &str) -> Result<ContainerType, String> {
    let text = text.trim();
    if let Some(item) = text
        .strip_prefix("GcArray(")
        .and_then(|t| t.strip_suffix(')'))
    {
        return Ok(ContainerType::GcArray {
            item: LowLevelType::parse(item)?,
        });
    }
    let body = text
        .strip_prefix("GcStruct {")
        .and_then(|t| t.strip_suffix('}'))
        .ok_or_else(|| format!("unknown container type '{text}'"))?;
    let mut fields = Vec::new();
    let mut var_item = None;
    for part in split_top_level(body)
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        if let Some(item) = part
            .strip_prefix("..Array(")
            .and_then(|t| t.strip_suffix(')'))
        {
            var_item = Some(LowLevelType::parse(item)?);
            continue;
        }
        let (name, ty) = part
            .split_once(':')
            .ok_or_else(|| format!("field '{part}' needs 'name: Type'"))?;
        fields.push((name.trim().to_string(), LowLevelType::parse(ty)?));
    }
    Ok(ContainerType::GcStruct { fields, var_item })
}

/// The root of every instance: `object`, whose one field `typeptr` points
/// to the instance's class, a static `object_vtable` (or a struct that
/// begins like it). A class's instance struct holds its base's fields first
/// (flattened, so a pointer to it is a pointer to its base part), then its
/// own; its vtable likewise extends its base's vtable with its method slots
/// and class attributes. Every class has an id range: a class's id is
/// `subclassrange_min`, and its subclasses' ids are in
/// `subclassrange_min..subclassrange_max`, so `isinstance` and matching an
/// exception are two comparisons.
pub const OBJECT: &str = "object";
pub const OBJECT_VTABLE: &str = "object_vtable";
/// The field of every instance that points to its vtable.
pub const TYPEPTR: &str = "typeptr";
pub const SUBCLASSRANGE_MIN: &str = "subclassrange_min";
pub const SUBCLASSRANGE_MAX: &str = "subclassrange_max";
/// The vtable field holding the class's name (a string), for uncaught
/// exceptions.
pub const CLASS_NAME: &str = "name";
/// The field of `BaseException`'s instance struct (so of every exception
/// instance, base fields first) holding `str()` of the argument it was
/// built with (null or empty without one): what an uncaught exception's
/// report prints after the class's name.
pub const EXC_MESSAGE: &str = "exc_message";

/// The fields of the root vtable, which every vtable begins with.
pub fn object_vtable_fields() -> Vec<(String, LowLevelType)> {
    vec![
        (SUBCLASSRANGE_MIN.into(), LowLevelType::Signed),
        (SUBCLASSRANGE_MAX.into(), LowLevelType::Signed),
        (CLASS_NAME.into(), LowLevelType::Ptr(STR.into())),
    ]
}

/// Adds `object` and `object_vtable` to `types`.
pub fn add_object_types(types: &mut TypeTable) {
    types.insert(
        OBJECT_VTABLE.into(),
        ContainerType::GcStruct {
            fields: object_vtable_fields(),
            var_item: None,
        },
    );
    types.insert(
        OBJECT.into(),
        ContainerType::GcStruct {
            fields: vec![(TYPEPTR.into(), LowLevelType::Ptr(OBJECT_VTABLE.into()))],
            var_item: None,
        },
    );
}

/// The string type every program uses: a hash cache, a length, the bytes.
pub const STR: &str = "rpy_string";

pub fn str_type() -> ContainerType {
    ContainerType::GcStruct {
        fields: vec![
            ("hash".into(), LowLevelType::Signed),
            ("length".into(), LowLevelType::Signed),
        ],
        var_item: Some(LowLevelType::Char),
    }
}

/// The name of the resizable-list struct type for items of type `item`, and the
/// name of its items array.
pub fn list_type_names(item: &LowLevelType) -> (String, String) {
    let tag = match item {
        LowLevelType::Ptr(name) => name.clone(),
        other => other.to_string().to_lowercase(),
    };
    (format!("list_{tag}"), format!("array_{tag}"))
}

/// Adds the list struct and its items array for `item` to `types`; returns the
/// list type name.
pub fn add_list_type(types: &mut TypeTable, item: &LowLevelType) -> String {
    let (list, array) = list_type_names(item);
    // The rtyper asks for a list's type at every variable holding one:
    // most times it is there already, and would be made again the same.
    if types.contains_key(&list) && types.contains_key(&array) {
        return list;
    }
    let array = add_fixed_list_type(types, item);
    types.insert(
        list.clone(),
        ContainerType::GcStruct {
            fields: vec![
                ("length".into(), LowLevelType::Signed),
                ("items".into(), LowLevelType::Ptr(array)),
            ],
            var_item: None,
        },
    );
    list
}

/// Adds the array type of a list of `item`s that never changes length (the
/// resizable list's items array: such a list is that array itself, as the
/// original's FixedSizeListRepr); returns its name.
pub fn add_fixed_list_type(types: &mut TypeTable, item: &LowLevelType) -> String {
    let array = list_type_names(item).1;
    if !types.contains_key(&array) {
        types.insert(array.clone(), ContainerType::GcArray { item: item.clone() });
    }
    array
}

// The names of the structs the rtyper makes for a class; the JIT's
// codewriter finds a class's fields by them.

/// The name of the instance struct of `class`.
pub fn inst_type(class: &str) -> String {
    format!("inst_{}", type_tag(class))
}

/// The name of the vtable struct of `class`.
pub fn vtable_type(class: &str) -> String {
    format!("vtable_{}", type_tag(class))
}

fn type_tag(class: &str) -> String {
    crate::annotation::user_class_name(class).replace('.', "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_layout_is_header_hash_length_bytes() {
        let l = str_type().layout();
        assert_eq!(l.offset_of("hash"), Some(8));
        assert_eq!(l.offset_of("length"), Some(16));
        assert_eq!(l.items, Some((24, 1)));
        assert_eq!(l.fixed_size, 24);
    }

    #[test]
    fn mixed_fields_are_aligned() {
        let t = ContainerType::GcStruct {
            fields: vec![
                ("flag".into(), LowLevelType::Bool),
                ("x".into(), LowLevelType::Float),
                ("c".into(), LowLevelType::Char),
            ],
            var_item: None,
        };
        let l = t.layout();
        assert_eq!(l.offset_of("flag"), Some(8));
        assert_eq!(l.offset_of("x"), Some(16));
        assert_eq!(l.offset_of("c"), Some(24));
        assert_eq!(l.fixed_size, 32);
    }

    #[test]
    fn function_pointer_types_round_trip() {
        for text in [
            "Func(-> Void)",
            "Func(Signed, Ptr(a) -> Bool)",
            "Func(Func(Signed -> Signed) -> Float)",
        ] {
            let t = LowLevelType::parse(text).unwrap();
            assert!(matches!(t, LowLevelType::FuncPtr(_)));
            assert_eq!(t.to_string(), text);
        }
        let vtable = ContainerType::GcStruct {
            fields: vec![
                ("name".into(), LowLevelType::Ptr(STR.into())),
                (
                    "eval".into(),
                    LowLevelType::parse("Func(Ptr(a), Signed -> Signed)").unwrap(),
                ),
            ],
            var_item: None,
        };
        assert_eq!(parse_container(&vtable.to_string()), Ok(vtable));
    }

    #[test]
    fn container_text_round_trips() {
        let mut types = TypeTable::new();
        types.insert(STR.into(), str_type());
        add_list_type(&mut types, &LowLevelType::Ptr(STR.into()));
        for t in types.values() {
            assert_eq!(parse_container(&t.to_string()).as_ref(), Ok(t));
        }
    }
}

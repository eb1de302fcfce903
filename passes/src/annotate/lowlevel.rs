//! Low-level helper code: what the annotator knows of low-level pointers
//! and types, the original's `SomePtr` and annlowlevel.
//!
//! The helpers of pylib/rpython/rtyper/ are RPython over the lltype
//! primitives: a value is a pointer (`SomeValue::Ptr`) whose fields
//! (`p.length`), items (`p[i]`) and length (`len(p)`) have the annotation
//! of their low-level type; `malloc(T)` / `malloc(T, n)` allocate; a null
//! pointer is None. Types are constants the annotator folds
//! (`SomeValue::LLType`): `typeOf(p)`, `T.TO` of a pointer type, a
//! struct's field type `T.items`, an array's item type `T.OF`, whether a
//! type is an array (`T._is_array`, a constant bool), and the
//! types the rtyper passes as arguments. Every helper is specialized by the
//! low-level types of its arguments (`lowlevel_key`), as the original's
//! low-level annotator policy does, so one helper serves every list type.
//! `annotate_helper` annotates a helper from the annotations of its
//! arguments, the original's `annotate_helper`.

use super::provenance::Origin;
pub use super::specialize::KnownCopies;
use super::{Annotator, Entry};
use rpy_ir::annotation::{Desc, Known, SomeValue};
use rpy_ir::ast::Dialect;
use rpy_ir::diag::{Diagnostic, Diagnostics, Pos};
use rpy_ir::graph::{Annotated, Arg, Constant, Flow, Program, SpaceOperation};
use rpy_ir::lltype::{ContainerType, LowLevelType};
use rpy_ir::opcode::Opcode;

/// The hint every helper graph carries: specialized by `lowlevel_key`.
pub const LOWLEVEL_HINT: &str = "specialize.ll";

/// The annotation of a value of low-level type `t`.
pub fn lltype_annotation(t: &LowLevelType) -> SomeValue {
    match t {
        LowLevelType::Void => SomeValue::None,
        LowLevelType::Signed => SomeValue::int(),
        LowLevelType::Unsigned => SomeValue::Integer {
            nonneg: true,
            unsigned: true,
        },
        LowLevelType::Float => SomeValue::Float,
        LowLevelType::Bool => SomeValue::Bool,
        LowLevelType::Char => SomeValue::Char,
        LowLevelType::Ptr(_) | LowLevelType::FuncPtr(_) => SomeValue::Ptr(t.clone()),
    }
}

/// The low-level type of a value of annotation `a` in helper code (`None`
/// for what is not a low-level value: a type, a function, None).
pub fn annotation_lltype(a: &SomeValue) -> Option<LowLevelType> {
    Some(match a.general() {
        SomeValue::Integer { unsigned: true, .. } => LowLevelType::Unsigned,
        SomeValue::Integer { .. } => LowLevelType::Signed,
        SomeValue::Bool => LowLevelType::Bool,
        SomeValue::Float => LowLevelType::Float,
        SomeValue::Char => LowLevelType::Char,
        SomeValue::Ptr(t) => t,
        _ => return None,
    })
}

/// The key of a helper's copy for arguments `args`, the suffix of its
/// graph name, and the annotations its parameters get: a value by its
/// low-level type (`list_signed`, `Signed`), a type constant by the type
/// (`T_list_signed`), a function by its name, None as None. A known bool
/// (a flag such as `overallocate`) is kept, so that the copy folds what it
/// decides (`Bool_True`); so is every known value when `keep_constants`
/// (the arguments the rtyper gives, `Signed_0`); other known values are
/// generalized, so that a helper called with a literal 0 does not get a
/// copy of its own. Distinct keys give distinct suffixes, and a copy's
/// graph depends only on its key, so graphs of one name made by separate
/// requests are the same.
pub fn lowlevel_key(
    args: &[SomeValue],
    keep_constants: bool,
) -> Result<(String, String, Vec<SomeValue>), String> {
    let mut key = Vec::new();
    let mut name = Vec::new();
    let mut inputs = Vec::new();
    for a in args {
        let kept = match a {
            SomeValue::Const(Known::Bool(_)) => true,
            SomeValue::Const(_) => keep_constants,
            _ => false,
        };
        let (k, n) = match (a, annotation_lltype(a)) {
            (SomeValue::Const(known), Some(t)) if kept => {
                let shown = match known {
                    Known::Int(n) if *n < 0 => format!("m{}", n.unsigned_abs()),
                    Known::Int(n) => n.to_string(),
                    Known::Bool(b) => if *b { "True" } else { "False" }.to_string(),
                    Known::Char(c) => format!("chr{c}"),
                    Known::Str(_) => return Err(format!("a helper cannot take {}", a.describe())),
                };
                (format!("{t} {a}"), format!("{t}_{shown}"))
            }
            (_, Some(LowLevelType::Ptr(container))) => (format!("Ptr({container})"), container),
            (_, Some(t)) => (t.to_string(), identifier(&t.to_string())),
            (SomeValue::LLType(t), None) => (format!("type {t}"), format!("T_{}", identifier(t))),
            (SomeValue::None, None) => ("None".into(), "None".into()),
            (
                SomeValue::Pbc {
                    descs,
                    can_be_none: false,
                },
                None,
            ) => match &descs[..] {
                [Desc::Function(f)] => (
                    format!("function {f}"),
                    identifier(f.rsplit('.').next().unwrap_or(f)),
                ),
                _ => return Err(format!("a helper cannot take {}", a.describe())),
            },
            _ => return Err(format!("a helper cannot take {}", a.describe())),
        };
        key.push(k);
        name.push(n);
        inputs.push(if kept { a.clone() } else { a.general() });
    }
    Ok((key.join("|"), name.join("_"), inputs))
}

/// `text` with what cannot be in an identifier as `_`.
fn identifier(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The container type a pointer type points to.
fn pointee(t: &LowLevelType) -> Option<&str> {
    match t {
        LowLevelType::Ptr(name) => Some(name),
        _ => None,
    }
}

/// A type constant as a value type, or `None` for a container's name.
fn value_type(text: &str) -> Option<LowLevelType> {
    LowLevelType::parse(text).ok()
}

impl Annotator<'_> {
    /// Starts at helper `graph`, its parameters annotated `inputs`.
    pub(super) fn start_helper(
        &mut self,
        graph: &str,
        inputs: &[SomeValue],
    ) -> Result<usize, Diagnostics> {
        let Some(&g) = self.graph_index.get(graph) else {
            return Err(Diagnostics::one(Diagnostic::new(
                self.program.path.clone(),
                Pos::default(),
                format!("no low-level helper named '{graph}'"),
            )));
        };
        let params = self.graph(g).params().to_vec();
        if params.len() != inputs.len() {
            return Err(Diagnostics::one(self.error(
                g,
                None,
                format!(
                    "the helper {graph}() takes {} arguments, not {}",
                    params.len(),
                    inputs.len()
                ),
            )));
        }
        for (&p, input) in params.iter().zip(inputs) {
            self.generalize((g, p), input, Origin::HelperArgs, &String::new)
                .map_err(Diagnostics::one)?;
        }
        self.schedule(g, self.graph(g).startblock);
        self.run();
        Ok(g)
    }

    fn container(&self, name: &str) -> Result<&ContainerType, String> {
        self.program
            .types
            .get(name)
            .ok_or_else(|| format!("the low-level type '{name}' is not known to the helpers"))
    }

    /// The annotation of an operation of helper code on pointers and
    /// types; `None` when no operand is one.
    pub(super) fn lowlevel_op(
        &self,
        op: &SpaceOperation,
        args: &[SomeValue],
    ) -> Option<Result<SomeValue, String>> {
        use SomeValue as S;
        let name_arg = |i: usize| match op.args.get(i) {
            Some(Arg::Const(Constant::Name(n))) => Some(n.as_str()),
            _ => None,
        };
        let builtin = match args.first() {
            Some(S::Builtin(b)) if op.opname == Opcode::SimpleCall => Some(b.as_str()),
            _ => None,
        };
        Some(match (op.opname, builtin, args) {
            (Opcode::Getattr, _, [S::Ptr(p), _]) => self
                .field_type(p, name_arg(1)?)
                .map(|t| lltype_annotation(&t)),
            (Opcode::Setattr, _, [S::Ptr(p), _, _]) => {
                self.field_type(p, name_arg(1)?).map(|_| S::None)
            }
            (Opcode::Getitem, _, [S::Ptr(p), index]) => self
                .item_type(p)
                .and_then(|t| int_index(index).map(|()| lltype_annotation(&t))),
            (Opcode::Setitem, _, [S::Ptr(p), index, _]) => self
                .item_type(p)
                .and_then(|_| int_index(index).map(|()| S::None)),
            (_, Some("len"), [_, S::Ptr(p)]) => self.item_type(p).map(|_| S::nonneg_int()),
            // The runtime's conversion of a string a helper has checked.
            (_, Some("float"), [_, S::Ptr(LowLevelType::Ptr(t))]) if t == rpy_ir::lltype::STR => {
                Ok(S::Float)
            }
            (Opcode::Bool, _, [S::Ptr(_)])
            | (Opcode::Is | Opcode::Eq | Opcode::Ne, _, [S::Ptr(_), _]) => Ok(S::Bool),
            (Opcode::Is | Opcode::Eq | Opcode::Ne, _, [_, S::Ptr(_)]) => Ok(S::Bool),
            (_, Some("malloc"), [_, S::LLType(t), rest @ ..]) => self.malloc(t, rest),
            (_, Some("nullptr"), [_, S::LLType(t)]) => match value_type(t) {
                None => Ok(S::Ptr(LowLevelType::Ptr(t.clone()))),
                Some(_) => Err(format!("nullptr() takes a container type, not {t}")),
            },
            (_, Some("typeOf"), [_, value]) => annotation_lltype(value)
                .map(|t| S::LLType(t.to_string()))
                .ok_or_else(|| format!("typeOf() of {} has no low-level type", value.describe())),
            (Opcode::Getattr, _, [S::LLType(t), _]) => self.type_attribute(t, name_arg(1)?),
            _ => return None,
        })
    }

    /// The type of field `field` of the struct `p` points to.
    fn field_type(&self, p: &LowLevelType, field: &str) -> Result<LowLevelType, String> {
        let container = pointee(p).ok_or("a function pointer has no fields")?;
        self.container(container)?
            .field_type(field)
            .cloned()
            .ok_or_else(|| format!("the low-level type '{container}' has no field '{field}'"))
    }

    /// The item type of the array (or varsized struct) `p` points to.
    fn item_type(&self, p: &LowLevelType) -> Result<LowLevelType, String> {
        let container = pointee(p).ok_or("a function pointer has no items")?;
        self.container(container)?
            .item_type()
            .cloned()
            .ok_or_else(|| format!("the low-level type '{container}' has no items"))
    }

    /// `malloc(T)` of a fixed-size container, `malloc(T, n)` of a varsized one.
    fn malloc(&self, t: &str, rest: &[SomeValue]) -> Result<SomeValue, String> {
        if value_type(t).is_some() {
            return Err(format!("malloc() takes a container type, not {t}"));
        }
        let varsized = self.container(t)?.item_type().is_some();
        match (varsized, rest) {
            (false, []) => Ok(SomeValue::Ptr(LowLevelType::Ptr(t.to_string()))),
            (true, [n]) => int_index(n).map(|()| SomeValue::Ptr(LowLevelType::Ptr(t.to_string()))),
            (true, _) => Err(format!(
                "malloc({t}, n) of a varsized type needs its length"
            )),
            (false, _) => Err(format!("malloc({t}) of a fixed-size type takes no length")),
        }
    }

    /// `T.TO` of a pointer type, `T.OF` of an array type, `T.field` of a
    /// struct type.
    fn type_attribute(&self, t: &str, attr: &str) -> Result<SomeValue, String> {
        // `T._is_array`: a constant, so that a helper's branch on whether
        // a list is the array of a list that never changes length folds.
        if attr == "_is_array" {
            let is_array = value_type(t).is_none()
                && matches!(self.container(t)?, ContainerType::GcArray { .. });
            return Ok(SomeValue::Const(Known::Bool(is_array)));
        }
        if let Some(value) = value_type(t) {
            return match (pointee(&value), attr) {
                (Some(container), "TO") => Ok(SomeValue::LLType(container.to_string())),
                _ => Err(format!("the low-level type {t} has no attribute '{attr}'")),
            };
        }
        let container = self.container(t)?;
        let found = match (container, attr) {
            (ContainerType::GcArray { item }, "OF") => Some(item),
            (ContainerType::GcStruct { var_item, .. }, "OF") => var_item.as_ref(),
            (c, field) => c.field_type(field),
        };
        found
            .map(|ty| SomeValue::LLType(ty.to_string()))
            .ok_or_else(|| format!("the low-level type '{t}' has no field '{attr}'"))
    }
}

/// An index or a length must be an int.
fn int_index(a: &SomeValue) -> Result<(), String> {
    match a.general() {
        SomeValue::Integer {
            unsigned: false, ..
        }
        | SomeValue::Bool => Ok(()),
        other => Err(format!(
            "an index or length must be an int, not {}",
            other.describe()
        )),
    }
}

/// Annotates the helper graph `entry` of `program` (a library of helpers,
/// see `flow::build_library`) called with arguments of annotations
/// `inputs`, and every helper it calls, each callee specialized by the
/// low-level types of its arguments: the graphs of the result are those
/// `entry` reaches.
pub fn annotate_helper(
    program: Program<Flow>,
    entry: &str,
    inputs: Vec<SomeValue>,
) -> Result<Program<Annotated>, Diagnostics> {
    annotate_helper_with(program, entry, inputs, Vec::new(), &mut KnownCopies::new())
}

/// `annotate_helper`, making at once the copies `known` (what earlier
/// annotations of helpers found) says the copies it needs call, and
/// adding to `known` what this one finds: the rtyper annotates a helper
/// per specialization, most of them calling copies an earlier one made.
pub fn annotate_helper_with(
    program: Program<Flow>,
    entry: &str,
    inputs: Vec<SomeValue>,
    program_functions: Vec<(String, SomeValue)>,
    known: &mut KnownCopies,
) -> Result<Program<Annotated>, Diagnostics> {
    super::annotate_from(
        program,
        Dialect::Py2,
        Entry::Helper {
            graph: entry.to_string(),
            inputs,
            program_functions,
        },
        Some(known),
    )
}

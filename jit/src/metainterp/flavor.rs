//! How the LLInterpreter's values are words: compiled loops of
//! `rpy interp --jit` run on the LLInterpreter's own memory (its objects
//! are laid out as the C backend lays them out, and a pointer is an
//! address), so a value is handed to a trace as its word and back.

use rpy_ir::lltype::LowLevelType;
use rpy_llinterp::{LlValue, ObjRef};

use crate::interp::RunValue;

/// What an int-bank register or a word in memory holds, to turn the word
/// back into the interpreter's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    Signed,
    Bool,
    Char,
    /// A function pointer: a graph index plus one, 0 for null.
    Func,
    Float,
    Ref,
}

impl Flavor {
    pub fn of_value(v: &LlValue) -> Option<Flavor> {
        Some(match v {
            LlValue::Void => return None,
            LlValue::Signed(_) => Flavor::Signed,
            LlValue::Bool(_) => Flavor::Bool,
            LlValue::Char(_) => Flavor::Char,
            LlValue::Func(_) => Flavor::Func,
            LlValue::Float(_) => Flavor::Float,
            LlValue::Ptr(_) => Flavor::Ref,
        })
    }

    /// The kind of trace box that holds it.
    pub fn kind(self) -> crate::trace::Kind {
        match self {
            Flavor::Float => crate::trace::Kind::Float,
            Flavor::Ref => crate::trace::Kind::Ref,
            _ => crate::trace::Kind::Int,
        }
    }

    pub fn of_type(t: &LowLevelType) -> Option<Flavor> {
        Some(match t {
            LowLevelType::Void => return None,
            LowLevelType::Signed | LowLevelType::Unsigned => Flavor::Signed,
            LowLevelType::Bool => Flavor::Bool,
            LowLevelType::Char => Flavor::Char,
            LowLevelType::FuncPtr(_) => Flavor::Func,
            LowLevelType::Float => Flavor::Float,
            LowLevelType::Ptr(_) => Flavor::Ref,
        })
    }
}

/// The word a value is in memory (a function pointer is its graph's index
/// plus one, as the LLInterpreter stores it).
pub fn to_run(v: &LlValue) -> RunValue {
    match v {
        LlValue::Float(x) => RunValue::Float(*x),
        LlValue::Ptr(_) => RunValue::Ref(v.word() as usize),
        _ => RunValue::Int(v.word() as i64),
    }
}

/// The interpreter's value of a word of `flavor`.
pub fn to_ll(bits: u64, flavor: Flavor) -> LlValue {
    match flavor {
        Flavor::Signed => LlValue::Signed(bits as i64),
        Flavor::Bool => LlValue::Bool(bits & 0xff != 0),
        Flavor::Char => LlValue::Char(bits as u8),
        Flavor::Func => LlValue::func_of_word(bits).unwrap_or(LlValue::Func(None)),
        Flavor::Float => LlValue::Float(f64::from_bits(bits)),
        Flavor::Ref => LlValue::Ptr(ObjRef::from_addr(bits as usize)),
    }
}

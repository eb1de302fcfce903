//! The names of every operation a graph can hold, as one enum.
//!
//! A graph operation's name is an `Opcode`, not a string: passes compare
//! and match variants (a misspelt name is a compile error, not a silent
//! mismatch), and every operation that exists is in this one list. What an
//! operation means is in two tables keyed by it: the high-level (flow)
//! operations' arities in [`HIGH_LEVEL`] below, and the low-level
//! operations' signatures and effects in `llops::LL_OPS`. The text format
//! keeps the names (`Opcode::name`, `Opcode::from_name`).

use fxhash::FxHashMap;
use std::fmt;
use std::sync::OnceLock;

macro_rules! opcodes {
    ($($(#[$doc:meta])* $variant:ident = $name:literal,)*) => {
        /// One operation of a flow, annotated or low-level graph.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $($(#[$doc])* $variant,)*
        }

        impl Opcode {
            /// Every operation, in the table's order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant,)*];

            /// The name the text format and diagnostics use.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Opcode::$variant => $name,)*
                }
            }

            /// The Rust path of the variant (`IntAdd`), for code generators
            /// that write Rust naming an operation.
            pub const fn variant_name(self) -> &'static str {
                match self {
                    $(Opcode::$variant => stringify!($variant),)*
                }
            }
        }
    };
}

opcodes! {
    // High-level operations, made by the flow builder (Python's operator
    // module names, as the original's flow space).
    Add = "add",
    Sub = "sub",
    Mul = "mul",
    Div = "div",
    Truediv = "truediv",
    Floordiv = "floordiv",
    Mod = "mod",
    Pow = "pow",
    Lshift = "lshift",
    Rshift = "rshift",
    And = "and_",
    Or = "or_",
    Xor = "xor",
    Neg = "neg",
    Pos = "pos",
    Invert = "invert",
    Not = "not_",
    Bool = "bool",
    Abs = "abs",
    Len = "len",
    Hash = "hash",
    Iter = "iter",
    Next = "next",
    Lt = "lt",
    Le = "le",
    Eq = "eq",
    Ne = "ne",
    Gt = "gt",
    Ge = "ge",
    Is = "is_",
    Contains = "contains",
    Getitem = "getitem",
    Setitem = "setitem",
    Delitem = "delitem",
    /// `obj[lower:upper]`, a missing bound being None.
    Getslice = "getslice",
    Setslice = "setslice",
    Delslice = "delslice",
    Getattr = "getattr",
    Setattr = "setattr",
    PrintItem = "print_item",
    PrintNewline = "print_newline",
    SimpleCall = "simple_call",
    Newlist = "newlist",
    Newtuple = "newtuple",
    Newdict = "newdict",
    /// `ovfcheck(x OP y)`, fused by the flow builder: OP raising OverflowError.
    AddOvf = "add_ovf",
    SubOvf = "sub_ovf",
    MulOvf = "mul_ovf",
    LshiftOvf = "lshift_ovf",
    FloordivOvf = "floordiv_ovf",
    ModOvf = "mod_ovf",
    NegOvf = "neg_ovf",
    AbsOvf = "abs_ovf",
    /// What stands for a function whose graph could not be built (its
    /// arguments are a diagnostic's message and notes): the annotator
    /// reports it if a call reaches it.
    FlowError = "flow_error",

    // Low-level operations, made by the rtyper and the transforms after it
    // (`llops::LL_OPS` says what each takes, yields and does).
    IntAdd = "int_add",
    IntSub = "int_sub",
    IntMul = "int_mul",
    IntFloordiv = "int_floordiv",
    IntMod = "int_mod",
    IntPyDiv = "int_py_div",
    IntPyMod = "int_py_mod",
    IntAnd = "int_and",
    IntOr = "int_or",
    IntXor = "int_xor",
    IntLshift = "int_lshift",
    IntRshift = "int_rshift",
    IntNeg = "int_neg",
    IntInvert = "int_invert",
    IntAbs = "int_abs",
    IntLt = "int_lt",
    IntLe = "int_le",
    IntEq = "int_eq",
    IntNe = "int_ne",
    IntGt = "int_gt",
    IntGe = "int_ge",
    IntIsTrue = "int_is_true",
    BoolNot = "bool_not",
    CastBoolToInt = "cast_bool_to_int",
    CastBoolToFloat = "cast_bool_to_float",
    CastIntToFloat = "cast_int_to_float",
    CastFloatToInt = "cast_float_to_int",
    CastCharToInt = "cast_char_to_int",
    CastIntToChar = "cast_int_to_char",
    UintAdd = "uint_add",
    UintSub = "uint_sub",
    UintMul = "uint_mul",
    UintFloordiv = "uint_floordiv",
    UintMod = "uint_mod",
    UintAnd = "uint_and",
    UintOr = "uint_or",
    UintXor = "uint_xor",
    UintLshift = "uint_lshift",
    UintRshift = "uint_rshift",
    UintInvert = "uint_invert",
    UintLt = "uint_lt",
    UintLe = "uint_le",
    UintEq = "uint_eq",
    UintNe = "uint_ne",
    UintGt = "uint_gt",
    UintGe = "uint_ge",
    UintIsTrue = "uint_is_true",
    CastIntToUint = "cast_int_to_uint",
    CastUintToInt = "cast_uint_to_int",
    CastBoolToUint = "cast_bool_to_uint",
    CastUintToFloat = "cast_uint_to_float",
    CastFloatToUint = "cast_float_to_uint",
    FloatAdd = "float_add",
    FloatSub = "float_sub",
    FloatMul = "float_mul",
    FloatTruediv = "float_truediv",
    FloatPyDiv = "float_py_div",
    FloatPyMod = "float_py_mod",
    FloatNeg = "float_neg",
    FloatAbs = "float_abs",
    FloatLt = "float_lt",
    FloatLe = "float_le",
    FloatEq = "float_eq",
    FloatNe = "float_ne",
    FloatGt = "float_gt",
    FloatGe = "float_ge",
    FloatIsTrue = "float_is_true",
    CharEq = "char_eq",
    CharNe = "char_ne",
    CharLt = "char_lt",
    CharLe = "char_le",
    CharGt = "char_gt",
    CharGe = "char_ge",
    SameAs = "same_as",
    Malloc = "malloc",
    MallocVarsize = "malloc_varsize",
    Getfield = "getfield",
    Setfield = "setfield",
    Getarrayitem = "getarrayitem",
    Setarrayitem = "setarrayitem",
    Getarraysize = "getarraysize",
    DirectCall = "direct_call",
    IndirectCall = "indirect_call",
    CastPointer = "cast_pointer",
    PtrEq = "ptr_eq",
    PtrNe = "ptr_ne",
    PtrIszero = "ptr_iszero",
    PtrNonzero = "ptr_nonzero",
    IntBetween = "int_between",
    /// Both levels: the flow builder makes it from a JitDriver's methods
    /// and the rtyper keeps it.
    JitMarker = "jit_marker",
    JitPromote = "jit_promote",
    JitWeAreJitted = "jit_we_are_jitted",
    ExcOccurred = "exc_occurred",
    ExcType = "exc_type",
    ExcValue = "exc_value",
    ExcSet = "exc_set",
    ExcClear = "exc_clear",
    GcSaveRoot = "gc_save_root",
    GcReload = "gc_reload",
    GcWriteBarrier = "gc_write_barrier",
    GcWriteBarrierItem = "gc_write_barrier_item",
}

/// The high-level operations with their least and most numbers of
/// arguments (`usize::MAX`: any number): what the flow builder may make
/// and the annotator and the rules of `rules/annotate` and `rules/rtype`
/// may name.
pub const HIGH_LEVEL: &[(Opcode, usize, usize)] = {
    use Opcode::*;
    &[
        (Add, 2, 2),
        (Sub, 2, 2),
        (Mul, 2, 2),
        (Div, 2, 2),
        (Truediv, 2, 2),
        (Floordiv, 2, 2),
        (Mod, 2, 2),
        (Pow, 2, 2),
        (Lshift, 2, 2),
        (Rshift, 2, 2),
        (And, 2, 2),
        (Or, 2, 2),
        (Xor, 2, 2),
        (Neg, 1, 1),
        (Pos, 1, 1),
        (Invert, 1, 1),
        (Not, 1, 1),
        (Bool, 1, 1),
        (Abs, 1, 1),
        (Len, 1, 1),
        (Hash, 1, 1),
        (Iter, 1, 1),
        (Next, 1, 1),
        (Lt, 2, 2),
        (Le, 2, 2),
        (Eq, 2, 2),
        (Ne, 2, 2),
        (Gt, 2, 2),
        (Ge, 2, 2),
        (Is, 2, 2),
        (Contains, 2, 2),
        (Getitem, 2, 2),
        (Setitem, 3, 3),
        (Delitem, 2, 2),
        (Getslice, 3, 3),
        (Setslice, 4, 4),
        (Delslice, 3, 3),
        (Getattr, 2, 2),
        (Setattr, 3, 3),
        (PrintItem, 1, 1),
        (PrintNewline, 0, 0),
        (SimpleCall, 1, usize::MAX),
        (Newlist, 0, usize::MAX),
        (Newtuple, 0, usize::MAX),
        (Newdict, 0, usize::MAX),
        (AddOvf, 2, 2),
        (SubOvf, 2, 2),
        (MulOvf, 2, 2),
        (LshiftOvf, 2, 2),
        (FloordivOvf, 2, 2),
        (ModOvf, 2, 2),
        (NegOvf, 1, 1),
        (AbsOvf, 1, 1),
        (FlowError, 0, usize::MAX),
        (JitMarker, 1, usize::MAX),
    ]
};

impl Opcode {
    /// The operation of this name, if there is one.
    pub fn from_name(name: &str) -> Option<Opcode> {
        static INDEX: OnceLock<FxHashMap<&'static str, Opcode>> = OnceLock::new();
        INDEX
            .get_or_init(|| Opcode::ALL.iter().map(|&op| (op.name(), op)).collect())
            .get(name)
            .copied()
    }

    /// The least and most numbers of arguments of a high-level operation;
    /// `None` for an operation only low-level graphs hold.
    pub fn high_level_arity(self) -> Option<(usize, usize)> {
        static INDEX: OnceLock<Vec<Option<(usize, usize)>>> = OnceLock::new();
        INDEX.get_or_init(|| {
            let mut index = vec![None; Opcode::ALL.len()];
            for &(op, lo, hi) in HIGH_LEVEL {
                index[op as usize] = Some((lo, hi));
            }
            index
        })[self as usize]
    }

    /// The high-level operation that `ovfcheck(x OP y)` fuses `self` into.
    pub fn with_overflow_check(self) -> Option<Opcode> {
        use Opcode::*;
        Some(match self {
            Add => AddOvf,
            Sub => SubOvf,
            Mul => MulOvf,
            Lshift => LshiftOvf,
            Floordiv => FloordivOvf,
            Mod => ModOvf,
            Neg => NegOvf,
            Abs => AbsOvf,
            _ => return None,
        })
    }
}

impl Opcode {
    /// The operation an `ovfcheck` fused op checks (`add` for `add_ovf`).
    /// A match, not a search of `with_overflow_check`: the annotator asks
    /// it of every operation it types.
    pub fn without_overflow_check(self) -> Option<Opcode> {
        use Opcode::*;
        Some(match self {
            AddOvf => Add,
            SubOvf => Sub,
            MulOvf => Mul,
            LshiftOvf => Lshift,
            FloordivOvf => Floordiv,
            ModOvf => Mod,
            NegOvf => Neg,
            AbsOvf => Abs,
            _ => return None,
        })
    }
}

impl Opcode {
    /// The int comparison a char comparison is (chars compare as the
    /// bytes they are).
    pub fn char_compare_as_int(self) -> Option<Opcode> {
        use Opcode::*;
        Some(match self {
            CharEq => IntEq,
            CharNe => IntNe,
            CharLt => IntLt,
            CharLe => IntLe,
            CharGt => IntGt,
            CharGe => IntGe,
            _ => return None,
        })
    }
}

/// By name, so that jitcodes embedded in an executable read the same
/// whatever the order of this table.
impl serde::Serialize for Opcode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Opcode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Opcode, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Opcode::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown operation '{name}'")))
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found_again() {
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_name(op.name()), Some(op), "{op:?}");
        }
        assert_eq!(Opcode::from_name("int_addd"), None);
    }

    #[test]
    fn overflow_checks_are_inverse() {
        for &op in Opcode::ALL {
            if let Some(checked) = op.with_overflow_check() {
                assert_eq!(checked.without_overflow_check(), Some(op));
            }
            if let Some(plain) = op.without_overflow_check() {
                assert_eq!(plain.with_overflow_check(), Some(op));
            }
        }
    }

    #[test]
    fn every_operation_is_high_level_or_low_level() {
        for &op in Opcode::ALL {
            assert!(
                op.high_level_arity().is_some() || crate::llops::info(op).is_some(),
                "{op} is in neither table"
            );
        }
    }
}

//! The trace IR: operations of the tracing JIT, boxes, constants, descrs and
//! the header that declares the types the descrs name.
//!
//! A [`Trace`] is a list of input boxes and a list of [`Op`]s. Every box is
//! defined once (an input, or the result of one operation) and has a kind:
//! `i` (a machine word), `f` (a double) or `p` (a GC pointer). Constants are
//! [`Value`]s too. Memory-touching operations carry a descr that says where
//! in an object they read or write, computed from `rpy_ir::lltype` layouts.

use std::collections::HashMap;
use std::sync::Arc;

use rpy_ir::lltype::{ContainerType, Layout, LowLevelType, TypeTable};

use crate::calls::{self, NativeFunc};

/// What a box or an operation result holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Kind {
    Int,
    Float,
    Ref,
    /// No result.
    Void,
}

impl Kind {
    /// The letter box names start with.
    pub fn prefix(self) -> char {
        match self {
            Kind::Int => 'i',
            Kind::Float => 'f',
            Kind::Ref => 'p',
            Kind::Void => 'v',
        }
    }

    pub fn from_prefix(c: char) -> Option<Kind> {
        match c {
            'i' => Some(Kind::Int),
            'f' => Some(Kind::Float),
            'p' | 'r' => Some(Kind::Ref),
            _ => None,
        }
    }

    /// The kind a value of this low-level type has in a trace.
    pub fn of_lltype(t: &LowLevelType) -> Kind {
        match t {
            LowLevelType::Float => Kind::Float,
            LowLevelType::Ptr(_) => Kind::Ref,
            LowLevelType::Void => Kind::Void,
            _ => Kind::Int,
        }
    }
}

/// Which descr an operation needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescrNeed {
    None,
    Field,
    Array,
    /// A struct (`new`).
    Size,
    /// A class (`new_with_vtable`).
    Class,
    Call,
    /// The string array `str` (`array str = Char`), implied: string
    /// operations are written without a descr, as in PyPy.
    Str,
    /// The unicode array `unicode` (`array unicode = Signed`: a code point
    /// a word), implied like [`DescrNeed::Str`].
    Unicode,
}

impl DescrNeed {
    /// Whether a descr describing `data` is of this kind.
    pub fn admits(self, data: &DescrData) -> bool {
        matches!(
            (self, data),
            (DescrNeed::Field, DescrData::Field { .. })
                | (DescrNeed::Array, DescrData::Array { .. })
                | (DescrNeed::Size, DescrData::Size { .. })
                | (DescrNeed::Class, DescrData::Class { .. })
                | (
                    DescrNeed::Call,
                    DescrData::Call { .. } | DescrData::Residual(_)
                )
                | (DescrNeed::Str | DescrNeed::Unicode, DescrData::Array { .. })
        )
    }

    /// Whether the descr is implied (string operations) rather than written.
    pub fn is_implied(self) -> bool {
        matches!(self, DescrNeed::Str | DescrNeed::Unicode)
    }
}

/// The array names and item types string operations imply.
pub const STR_ARRAY: (&str, LowLevelType) = ("str", LowLevelType::Char);
pub const UNICODE_ARRAY: (&str, LowLevelType) = ("unicode", LowLevelType::Signed);

/// The array operation a string operation is, on its implied array:
/// strings are GC arrays of characters (`newstr` is `new_array`, `strlen`
/// `arraylen_gc`, ...). `None` for the others (and for `copystrcontent`,
/// which has no array twin).
pub fn array_equivalent(op: Opcode) -> Option<Opcode> {
    use Opcode::*;
    Some(match op {
        Newstr | Newunicode => NewArray,
        Strlen | Unicodelen => ArraylenGc,
        Strgetitem | Unicodegetitem => GetarrayitemGcI,
        Strsetitem | Unicodesetitem => SetarrayitemGc,
        _ => return None,
    })
}

/// One entry of the operation table.
#[derive(Clone, Copy, Debug)]
pub struct OpInfo {
    pub name: &'static str,
    /// The kinds of the arguments, one letter each (`i`, `f`, `r`, `a` for
    /// any); `*` for any number of any kind.
    pub args: &'static str,
    pub result: Kind,
    /// No side effect and no dependence on memory: may be folded and CSE'd.
    pub pure: bool,
    /// May be removed when its result is unused (pure ops, reads, allocations).
    pub removable: bool,
    pub guard: bool,
    pub descr: DescrNeed,
}

impl OpInfo {
    pub fn arity(&self) -> Option<usize> {
        (self.args != "*").then_some(self.args.len())
    }
}

const fn op(name: &'static str, args: &'static str, result: Kind, kind: u8) -> OpInfo {
    // kind: 0 pure, 1 removable (reads, allocations), 2 side effect, 3 guard
    OpInfo {
        name,
        args,
        result,
        pure: kind == 0,
        removable: kind <= 1,
        guard: kind == 3,
        descr: DescrNeed::None,
    }
}

const fn with(mut o: OpInfo, d: DescrNeed) -> OpInfo {
    o.descr = d;
    o
}

use DescrNeed as D;
use Kind::{Float as F, Int as I, Ref as R, Void as V};

macro_rules! trace_ops {
    ($($(#[$doc:meta])* $variant:ident = $info:expr,)*) => {
        /// An operation of a trace; [`OPS`] (indexed by it) says what it
        /// takes and does.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $($(#[$doc])* $variant,)*
        }

        impl Opcode {
            /// Every trace operation, in the table's order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant,)*];
        }

        /// Every operation a trace may contain, in `Opcode`'s order.
        pub static OPS: &[OpInfo] = &[$($info,)*];
    };
}

trace_ops! {
    // integer arithmetic (llops::eval_int semantics: int_floordiv and int_mod
    // are C's, truncating; int_py_div / int_py_mod floor)
    IntAdd = op("int_add", "ii", I, 0),
    IntSub = op("int_sub", "ii", I, 0),
    IntMul = op("int_mul", "ii", I, 0),
    IntFloordiv = op("int_floordiv", "ii", I, 0),
    IntMod = op("int_mod", "ii", I, 0),
    IntPyDiv = op("int_py_div", "ii", I, 0),
    IntPyMod = op("int_py_mod", "ii", I, 0),
    IntAnd = op("int_and", "ii", I, 0),
    IntOr = op("int_or", "ii", I, 0),
    IntXor = op("int_xor", "ii", I, 0),
    IntLshift = op("int_lshift", "ii", I, 0),
    IntRshift = op("int_rshift", "ii", I, 0),
    UintRshift = op("uint_rshift", "ii", I, 0),
    IntLt = op("int_lt", "ii", I, 0),
    IntLe = op("int_le", "ii", I, 0),
    IntEq = op("int_eq", "ii", I, 0),
    IntNe = op("int_ne", "ii", I, 0),
    IntGt = op("int_gt", "ii", I, 0),
    IntGe = op("int_ge", "ii", I, 0),
    UintLt = op("uint_lt", "ii", I, 0),
    UintLe = op("uint_le", "ii", I, 0),
    UintGt = op("uint_gt", "ii", I, 0),
    UintGe = op("uint_ge", "ii", I, 0),
    IntNeg = op("int_neg", "i", I, 0),
    IntInvert = op("int_invert", "i", I, 0),
    IntAbs = op("int_abs", "i", I, 0),
    IntIsTrue = op("int_is_true", "i", I, 0),
    IntIsZero = op("int_is_zero", "i", I, 0),
    IntForceGeZero = op("int_force_ge_zero", "i", I, 0),
    SameAsI = op("same_as_i", "i", I, 0),
    // overflow-checking forms: set the overflow flag the next
    // guard_no_overflow / guard_overflow reads
    IntAddOvf = op("int_add_ovf", "ii", I, 2),
    IntSubOvf = op("int_sub_ovf", "ii", I, 2),
    IntMulOvf = op("int_mul_ovf", "ii", I, 2),
    // floats
    FloatAdd = op("float_add", "ff", F, 0),
    FloatSub = op("float_sub", "ff", F, 0),
    FloatMul = op("float_mul", "ff", F, 0),
    FloatTruediv = op("float_truediv", "ff", F, 0),
    FloatNeg = op("float_neg", "f", F, 0),
    FloatAbs = op("float_abs", "f", F, 0),
    FloatLt = op("float_lt", "ff", I, 0),
    FloatLe = op("float_le", "ff", I, 0),
    FloatEq = op("float_eq", "ff", I, 0),
    FloatNe = op("float_ne", "ff", I, 0),
    FloatGt = op("float_gt", "ff", I, 0),
    FloatGe = op("float_ge", "ff", I, 0),
    CastIntToFloat = op("cast_int_to_float", "i", F, 0),
    CastFloatToInt = op("cast_float_to_int", "f", I, 0),
    SameAsF = op("same_as_f", "f", F, 0),
    // pointers
    PtrEq = op("ptr_eq", "rr", I, 0),
    PtrNe = op("ptr_ne", "rr", I, 0),
    InstancePtrEq = op("instance_ptr_eq", "rr", I, 0),
    InstancePtrNe = op("instance_ptr_ne", "rr", I, 0),
    SameAsR = op("same_as_r", "r", R, 0),
    // guards
    GuardTrue = op("guard_true", "i", V, 3),
    GuardFalse = op("guard_false", "i", V, 3),
    GuardValue = op("guard_value", "aa", V, 3),
    GuardClass = op("guard_class", "ri", V, 3),
    GuardNonnull = op("guard_nonnull", "r", V, 3),
    GuardIsnull = op("guard_isnull", "r", V, 3),
    GuardNonnullClass = op("guard_nonnull_class", "ri", V, 3),
    GuardNoOverflow = op("guard_no_overflow", "", V, 3),
    GuardOverflow = op("guard_overflow", "", V, 3),
    GuardNoException = op("guard_no_exception", "", V, 3),
    GuardNotForced = op("guard_not_forced", "", V, 3),
    // memory
    GetfieldGcI = with(op("getfield_gc_i", "r", I, 1), D::Field),
    GetfieldGcF = with(op("getfield_gc_f", "r", F, 1), D::Field),
    GetfieldGcR = with(op("getfield_gc_r", "r", R, 1), D::Field),
    GetfieldRawI = with(op("getfield_raw_i", "i", I, 1), D::Field),
    GetfieldRawF = with(op("getfield_raw_f", "i", F, 1), D::Field),
    SetfieldGc = with(op("setfield_gc", "ra", V, 2), D::Field),
    SetfieldRaw = with(op("setfield_raw", "ia", V, 2), D::Field),
    GetarrayitemGcI = with(op("getarrayitem_gc_i", "ri", I, 1), D::Array),
    GetarrayitemGcF = with(op("getarrayitem_gc_f", "ri", F, 1), D::Array),
    GetarrayitemGcR = with(op("getarrayitem_gc_r", "ri", R, 1), D::Array),
    GetarrayitemRawI = with(op("getarrayitem_raw_i", "ii", I, 1), D::Array),
    GetarrayitemRawF = with(op("getarrayitem_raw_f", "ii", F, 1), D::Array),
    SetarrayitemGc = with(op("setarrayitem_gc", "ria", V, 2), D::Array),
    SetarrayitemRaw = with(op("setarrayitem_raw", "iia", V, 2), D::Array),
    ArraylenGc = with(op("arraylen_gc", "r", I, 1), D::Array),
    New = with(op("new", "", R, 1), D::Size),
    NewWithVtable = with(op("new_with_vtable", "", R, 1), D::Class),
    NewArray = with(op("new_array", "i", R, 1), D::Array),
    NewArrayClear = with(op("new_array_clear", "i", R, 1), D::Array),
    // strings and unicode strings: arrays of characters, the array implied
    // (copy*content(source, dest, source_start, dest_start, length))
    Newstr = with(op("newstr", "i", R, 1), D::Str),
    Strlen = with(op("strlen", "r", I, 1), D::Str),
    Strgetitem = with(op("strgetitem", "ri", I, 1), D::Str),
    Strsetitem = with(op("strsetitem", "rii", V, 2), D::Str),
    Copystrcontent = with(op("copystrcontent", "rriii", V, 2), D::Str),
    Newunicode = with(op("newunicode", "i", R, 1), D::Unicode),
    Unicodelen = with(op("unicodelen", "r", I, 1), D::Unicode),
    Unicodegetitem = with(op("unicodegetitem", "ri", I, 1), D::Unicode),
    Unicodesetitem = with(op("unicodesetitem", "rii", V, 2), D::Unicode),
    Copyunicodecontent = with(op("copyunicodecontent", "rriii", V, 2), D::Unicode),
    // calls: the descr names the native function
    CallI = with(op("call_i", "*", I, 2), D::Call),
    CallF = with(op("call_f", "*", F, 2), D::Call),
    CallR = with(op("call_r", "*", R, 2), D::Call),
    CallN = with(op("call_n", "*", V, 2), D::Call),
    CallPureI = with(op("call_pure_i", "*", I, 0), D::Call),
    CallPureF = with(op("call_pure_f", "*", F, 0), D::Call),
    CallPureR = with(op("call_pure_r", "*", R, 0), D::Call),
    CallPureN = with(op("call_pure_n", "*", V, 0), D::Call),
    CallMayForceI = with(op("call_may_force_i", "*", I, 2), D::Call),
    CallMayForceF = with(op("call_may_force_f", "*", F, 2), D::Call),
    CallMayForceR = with(op("call_may_force_r", "*", R, 2), D::Call),
    CallMayForceN = with(op("call_may_force_n", "*", V, 2), D::Call),
    // control
    Label = op("label", "*", V, 2),
    Jump = op("jump", "*", V, 2),
    Finish = op("finish", "*", V, 2),
}

impl Opcode {
    pub fn info(self) -> &'static OpInfo {
        &OPS[self as usize]
    }

    pub fn name(self) -> &'static str {
        OPS[self as usize].name
    }
}

/// The families of trace operations that passes ask about.
impl Opcode {
    /// `call_*`, `call_pure_*` and `call_may_force_*`.
    pub fn is_call(self) -> bool {
        self.info().descr == DescrNeed::Call
    }

    /// `call_pure_*`: a call of an elidable function.
    pub fn is_pure_call(self) -> bool {
        use Opcode::*;
        matches!(self, CallPureI | CallPureF | CallPureR | CallPureN)
    }

    /// `same_as_i`, `same_as_f`, `same_as_r`.
    pub fn is_same_as(self) -> bool {
        matches!(self, Opcode::SameAsI | Opcode::SameAsF | Opcode::SameAsR)
    }

    /// The arithmetic that sets the overflow flag a guard reads.
    pub fn is_overflow_checked(self) -> bool {
        matches!(
            self,
            Opcode::IntAddOvf | Opcode::IntSubOvf | Opcode::IntMulOvf
        )
    }

    /// The plain operation of an overflow-checking one (`int_add` of
    /// `int_add_ovf`).
    pub fn without_overflow_check(self) -> Option<Opcode> {
        Some(match self {
            Opcode::IntAddOvf => Opcode::IntAdd,
            Opcode::IntSubOvf => Opcode::IntSub,
            Opcode::IntMulOvf => Opcode::IntMul,
            _ => return None,
        })
    }

    /// `same_as_i`, `same_as_f` or `same_as_r`, for a value of `kind`.
    pub fn same_as(kind: Kind) -> Opcode {
        match kind {
            Kind::Float => Opcode::SameAsF,
            Kind::Ref => Opcode::SameAsR,
            _ => Opcode::SameAsI,
        }
    }

    /// `call_*` (or `call_pure_*`) for a result of `kind`.
    pub fn call(kind: Kind, pure: bool) -> Opcode {
        use Opcode::*;
        match (kind, pure) {
            (Kind::Int, false) => CallI,
            (Kind::Float, false) => CallF,
            (Kind::Ref, false) => CallR,
            (Kind::Void, false) => CallN,
            (Kind::Int, true) => CallPureI,
            (Kind::Float, true) => CallPureF,
            (Kind::Ref, true) => CallPureR,
            (Kind::Void, true) => CallPureN,
        }
    }

    /// `getfield_gc_*` for a field of `kind`.
    pub fn getfield_gc(kind: Kind) -> Opcode {
        match kind {
            Kind::Float => Opcode::GetfieldGcF,
            Kind::Ref => Opcode::GetfieldGcR,
            _ => Opcode::GetfieldGcI,
        }
    }

    /// `getarrayitem_gc_*` for items of `kind`.
    pub fn getarrayitem_gc(kind: Kind) -> Opcode {
        match kind {
            Kind::Float => Opcode::GetarrayitemGcF,
            Kind::Ref => Opcode::GetarrayitemGcR,
            _ => Opcode::GetarrayitemGcI,
        }
    }

    /// An allocation: `new*` and `newstr`/`newunicode`.
    pub fn is_allocation(self) -> bool {
        use Opcode::*;
        matches!(
            self,
            New | NewWithVtable | NewArray | NewArrayClear | Newstr | Newunicode
        )
    }

    /// A read of a field or an item (`getfield_*`, `getarrayitem_*`).
    pub fn is_load(self) -> bool {
        use Opcode::*;
        matches!(
            self,
            GetfieldGcI
                | GetfieldGcF
                | GetfieldGcR
                | GetfieldRawI
                | GetfieldRawF
                | GetarrayitemGcI
                | GetarrayitemGcF
                | GetarrayitemGcR
                | GetarrayitemRawI
                | GetarrayitemRawF
        )
    }

    /// An access to memory outside the GC heap (`*_raw*`): its address is a word.
    pub fn is_raw(self) -> bool {
        use Opcode::*;
        matches!(
            self,
            GetfieldRawI
                | GetfieldRawF
                | SetfieldRaw
                | GetarrayitemRawI
                | GetarrayitemRawF
                | SetarrayitemRaw
        )
    }

    /// The graph operation of the same name and meaning (`int_add`,
    /// `float_lt`...), whose value `llops::eval_int`/`eval_float` give.
    pub fn graph_twin(self) -> Option<rpy_ir::opcode::Opcode> {
        static TWINS: std::sync::OnceLock<Vec<Option<rpy_ir::opcode::Opcode>>> =
            std::sync::OnceLock::new();
        TWINS.get_or_init(|| {
            Opcode::ALL
                .iter()
                .map(|op| rpy_ir::opcode::Opcode::from_name(op.name()))
                .collect()
        })[self as usize]
    }

    /// The trace operation of the same name as graph operation `op`.
    pub fn twin_of(op: rpy_ir::opcode::Opcode) -> Option<Opcode> {
        static TWINS: std::sync::OnceLock<Vec<Option<Opcode>>> = std::sync::OnceLock::new();
        TWINS.get_or_init(|| {
            rpy_ir::opcode::Opcode::ALL
                .iter()
                .map(|g| opcode(g.name()))
                .collect()
        })[op as usize]
    }

    /// The comparisons that are true when their operands differ.
    pub fn is_not_equal(self) -> bool {
        use Opcode::*;
        matches!(self, IntNe | FloatNe | PtrNe | InstancePtrNe)
    }
}

impl std::fmt::Display for Opcode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

static OP_INDEX: std::sync::OnceLock<HashMap<&'static str, Opcode>> = std::sync::OnceLock::new();

/// The opcode of the operation called `name`.
pub fn opcode(name: &str) -> Option<Opcode> {
    OP_INDEX
        .get_or_init(|| Opcode::ALL.iter().map(|&op| (op.name(), op)).collect())
        .get(name)
        .copied()
}

pub type BoxId = usize;
pub type DescrId = usize;

/// An operation argument: a box or a constant. (Ordered only so that the
/// arguments of a commutative operation can be put in one order.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    Box(BoxId),
    Int(i64),
    /// A double, by its bits (so values hash and compare exactly).
    Float(u64),
    NullPtr,
    /// `ConstPtr(0x...)`: a GC object the trace was recorded against (a
    /// green code object, a static), by address: the meta-interpreter's
    /// traces name the interpreter's objects; a text trace cannot (its
    /// objects are made when it runs).
    ConstPtr(u64),
    /// `ConstClass(name)`: the class's vtable id, as an integer.
    Class(DescrId),
}

impl Value {
    pub fn float(f: f64) -> Value {
        Value::Float(f.to_bits())
    }

    pub fn as_box(self) -> Option<BoxId> {
        match self {
            Value::Box(b) => Some(b),
            _ => None,
        }
    }

    pub fn is_const(self) -> bool {
        !matches!(self, Value::Box(_))
    }
}

/// One operation.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    pub opcode: Opcode,
    pub args: Vec<Value>,
    pub result: Option<BoxId>,
    pub descr: Option<DescrId>,
    /// For guards: the values saved when the guard fails; what is handed
    /// back, unless `resume` says how to build it from them.
    pub fail_args: Option<Vec<Value>>,
    /// For guards whose fail args name objects the optimizer removed
    /// (virtuals): how to allocate them when the guard fails.
    pub resume: Option<Box<Resume>>,
}

/// How a failing guard builds the values it hands back from the values it
/// saved (its fail args): the objects the optimizer kept virtual are
/// allocated and filled only then, so the loop itself never allocates them.
#[derive(Clone, Debug, PartialEq)]
pub struct Resume {
    /// The values handed back, one per fail arg of the guard as traced.
    pub values: Vec<ResumeValue>,
    pub objects: Vec<VirtualObject>,
    /// Field stores the trace did before the guard that the optimizer
    /// delayed (their value is a virtual object, kept virtual past the
    /// guard): done when the guard fails, after the objects are built.
    pub pending: Vec<PendingStore>,
}

/// A delayed `setfield_gc(target, value, descr)` of a guard's resume data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PendingStore {
    pub target: ResumeValue,
    /// The field descr.
    pub descr: DescrId,
    pub value: ResumeValue,
}

impl Resume {
    /// Whether every index is in range, for a guard with `saved` fail args.
    pub fn is_well_formed(&self, saved: usize) -> bool {
        let ok = |v: &ResumeValue| match *v {
            ResumeValue::Saved(i) => i < saved,
            ResumeValue::Object(k) => k < self.objects.len(),
        };
        self.values.iter().all(ok)
            && self
                .objects
                .iter()
                .all(|o| o.fields.iter().all(|(_, v)| ok(v)))
            && self.pending.iter().all(|p| ok(&p.target) && ok(&p.value))
    }
}

/// One value a failing guard hands back or stores into a virtual object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResumeValue {
    /// The guard's fail arg at this index.
    Saved(usize),
    /// The object at this index of [`Resume::objects`].
    Object(usize),
}

/// An object to allocate when a guard fails.
#[derive(Clone, Debug, PartialEq)]
pub struct VirtualObject {
    /// The box that stood for it in the trace (its name when printed).
    pub name: BoxId,
    /// `new`, `new_with_vtable`, `new_array` or `new_array_clear`.
    pub opcode: Opcode,
    pub descr: DescrId,
    /// The length of an array.
    pub length: usize,
    /// The fields (items) stored into it; the others stay zero.
    pub fields: Vec<(FieldSlot, ResumeValue)>,
}

/// Where in an object a value is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FieldSlot {
    /// A struct field, by its descr.
    Field(DescrId),
    /// An array item, by its index.
    Item(usize),
}

impl Op {
    pub fn new(opcode: Opcode, args: Vec<Value>, result: Option<BoxId>) -> Op {
        Op {
            opcode,
            args,
            result,
            descr: None,
            fail_args: None,
            resume: None,
        }
    }

    pub fn info(&self) -> &'static OpInfo {
        self.opcode.info()
    }

    pub fn name(&self) -> &'static str {
        self.opcode.name()
    }

    pub fn is_guard(&self) -> bool {
        self.opcode.info().guard
    }

    /// Whether this is a string operation (`newstr`, `strlen`, ...,
    /// `copyunicodecontent`): one whose array descr is implied.
    pub fn is_string_op(&self) -> bool {
        self.opcode.info().descr.is_implied()
    }
}

/// A box: its printed name and its kind.
#[derive(Clone, Debug, PartialEq)]
pub struct BoxInfo {
    name: BoxName,
    pub kind: Kind,
}

/// A box name: as written in a parsed trace, or the kind's letter and a
/// number. The optimizer names every box it makes and copies the names of
/// the boxes it keeps: with a string per box, that was a fifth of the
/// mallocs of optimizing a loop.
#[derive(Clone, Debug, PartialEq)]
enum BoxName {
    Given(Arc<str>),
    Numbered(u64),
}

impl BoxInfo {
    /// A box called `name` (which starts with its kind's letter).
    pub fn named(name: &str, kind: Kind) -> BoxInfo {
        BoxInfo {
            name: BoxName::Given(name.into()),
            kind,
        }
    }

    /// The box `i<n>` (`f<n>`, `p<n>`: the kind's letter).
    pub fn numbered(n: u64, kind: Kind) -> BoxInfo {
        BoxInfo {
            name: BoxName::Numbered(n),
            kind,
        }
    }

    /// The printed name.
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        match &self.name {
            BoxName::Given(s) => std::borrow::Cow::Borrowed(s),
            BoxName::Numbered(n) => std::borrow::Cow::Owned(format!("{}{n}", self.kind.prefix())),
        }
    }

    /// The number in the name (`17` of `i17`), if it is the letter and a
    /// number.
    pub fn number(&self) -> Option<u64> {
        match &self.name {
            BoxName::Given(s) => s.get(1..)?.parse().ok(),
            BoxName::Numbered(n) => Some(*n),
        }
    }
}

/// What a descr describes.
#[derive(Clone, Debug, PartialEq)]
pub enum DescrData {
    /// A field of a struct: where it is and what it holds.
    Field {
        strukt: String,
        field: String,
        offset: usize,
        ty: LowLevelType,
    },
    /// A GC array type (also used for raw arrays of the same item, which
    /// have no header: item i at `i * item_size`).
    Array {
        item: LowLevelType,
        length_offset: usize,
        items_offset: usize,
        item_size: usize,
        type_id: u64,
    },
    /// A struct, for `new`.
    Size {
        strukt: String,
        size: usize,
        align: usize,
        type_id: u64,
    },
    /// A class: a struct and its vtable id, for `new_with_vtable`,
    /// `guard_class` and `ConstClass(name)`.
    Class {
        strukt: String,
        size: usize,
        align: usize,
        type_id: u64,
    },
    /// A native function from the registry in [`crate::calls`].
    Call { func: &'static NativeFunc },
    /// A function of the traced program that the trace calls as it is
    /// (a residual call): whoever runs the trace runs it, through
    /// [`crate::interp::ResidualCalls`]. Only the meta-interpreter makes
    /// these; the text syntax has no way to name one.
    Residual(ResidualCall),
}

/// Where an array's length and items are, and its type id.
#[derive(Clone, Copy, Debug)]
pub struct ArrayShape {
    pub length_offset: usize,
    pub items_offset: usize,
    pub item_size: usize,
    pub type_id: u64,
}

impl DescrData {
    /// A struct's or class's size, alignment and type id: what `new`
    /// allocates.
    pub fn object(&self) -> Option<(usize, usize, u64)> {
        match self {
            DescrData::Size {
                size,
                align,
                type_id,
                ..
            }
            | DescrData::Class {
                size,
                align,
                type_id,
                ..
            } => Some((*size, *align, *type_id)),
            _ => None,
        }
    }

    /// An array's shape: what `new_array` allocates.
    pub fn array(&self) -> Option<ArrayShape> {
        match *self {
            DescrData::Array {
                length_offset,
                items_offset,
                item_size,
                type_id,
                ..
            } => Some(ArrayShape {
                length_offset,
                items_offset,
                item_size,
                type_id,
            }),
            _ => None,
        }
    }
}

/// A residual call's signature, and its number among the run's residual
/// calls (what [`crate::interp::ResidualCalls::call`] is told).
#[derive(Clone, Debug, PartialEq)]
pub struct ResidualCall {
    pub index: usize,
    pub args: Vec<Kind>,
    pub result: Kind,
    /// The call may raise: a `guard_no_exception` follows it.
    pub can_raise: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Descr {
    pub name: String,
    pub data: DescrData,
}

/// One declaration of the header, kept in source order for printing.
#[derive(Clone, Debug, PartialEq)]
pub enum Decl {
    Struct {
        name: String,
        fields: Vec<(String, LowLevelType)>,
    },
    Array {
        name: String,
        item: LowLevelType,
    },
    Class {
        name: String,
        strukt: String,
    },
    Field {
        name: String,
        strukt: String,
        field: String,
    },
    Call {
        name: String,
        func: String,
    },
    /// A residual call of a program (`residual NAME = INDEX(KINDS) ->
    /// KIND [raises]`): what the JIT log's header declares for the calls
    /// its traces make, which a replay plays back (see `crate::replay`).
    Residual {
        name: String,
        call: ResidualCall,
    },
    /// A type of a program (`type NAME = GcStruct {...}`): what the JIT
    /// log's header declares, so a logged trace reads back with the type
    /// ids and descrs its program had (see [`Header::of_program`]).
    ProgramType {
        name: String,
        ty: ContainerType,
    },
}

/// The types and descrs a trace names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Header {
    pub decls: Vec<Decl>,
    pub types: TypeTable,
    pub descrs: Vec<Descr>,
    by_name: HashMap<String, DescrId>,
    next_type_id: u64,
    /// How many `type` declarations the header has (0 unless it is a
    /// program's, as the JIT log prints it).
    program_types: u64,
}

impl Header {
    pub fn descr(&self, name: &str) -> Option<DescrId> {
        self.by_name.get(name).copied()
    }

    fn add_descr(&mut self, name: &str, data: DescrData) -> Result<DescrId, String> {
        if self.by_name.contains_key(name) {
            return Err(format!("'{name}' is declared twice"));
        }
        let id = self.descrs.len();
        self.descrs.push(Descr {
            name: name.to_string(),
            data,
        });
        self.by_name.insert(name.to_string(), id);
        Ok(id)
    }

    fn layout_of(&self, strukt: &str) -> Result<Layout, String> {
        self.types
            .get(strukt)
            .map(ContainerType::layout)
            .ok_or_else(|| format!("no struct '{strukt}'"))
    }

    fn check_type(&self, t: &LowLevelType) -> Result<(), String> {
        match t {
            LowLevelType::Ptr(n) if !self.types.contains_key(n) => {
                Err(format!("no type '{n}' (declare it before it is used)"))
            }
            _ => Ok(()),
        }
    }

    /// Adds one declaration; an error message when it does not fit.
    pub fn declare(&mut self, decl: Decl) -> Result<(), String> {
        let program = matches!(decl, Decl::ProgramType { .. });
        let own_type = matches!(
            decl,
            Decl::Struct { .. } | Decl::Array { .. } | Decl::Class { .. }
        );
        if (program && self.next_type_id > self.program_types)
            || (own_type && self.program_types > 0)
        {
            return Err("a header declares program types (`type`) or its own (`struct`, `array`, `class`), not both".into());
        }
        match &decl {
            Decl::ProgramType { name, ty } => {
                if self.types.insert(name.clone(), ty.clone()).is_some() {
                    return Err(format!("type '{name}' is declared twice"));
                }
                self.program_types += 1;
                self.next_type_id = self.program_types;
                // What the program's types name is checked once all are
                // declared (they may point to each other in any order).
                return Ok(());
            }
            Decl::Struct { name, fields } => {
                if self.types.contains_key(name) {
                    return Err(format!("type '{name}' is declared twice"));
                }
                // a struct may point to itself
                self.types.insert(
                    name.clone(),
                    ContainerType::GcStruct {
                        fields: fields.clone(),
                        var_item: None,
                    },
                );
                for (_, t) in fields {
                    if let Err(e) = self.check_type(t) {
                        self.types.remove(name);
                        return Err(e);
                    }
                }
                let layout = self.layout_of(name)?;
                self.next_type_id += 1;
                let data = DescrData::Size {
                    strukt: name.clone(),
                    size: layout.fixed_size,
                    align: layout.align,
                    type_id: self.next_type_id,
                };
                if let Err(e) = self.add_descr(name, data) {
                    self.types.remove(name);
                    return Err(e);
                }
            }
            Decl::Array { name, item } => {
                if self.types.contains_key(name) {
                    return Err(format!("type '{name}' is declared twice"));
                }
                self.check_type(item)?;
                let ct = ContainerType::GcArray { item: item.clone() };
                let layout = ct.layout();
                let (items_offset, item_size) = layout.items.unwrap_or((16, 8));
                self.next_type_id += 1;
                self.add_descr(
                    name,
                    DescrData::Array {
                        item: item.clone(),
                        length_offset: layout.offset_of("length").unwrap_or(8),
                        items_offset,
                        item_size,
                        type_id: self.next_type_id,
                    },
                )?;
                self.types.insert(name.clone(), ct);
            }
            Decl::Class { name, strukt } => {
                let layout = self.layout_of(strukt)?;
                self.next_type_id += 1;
                self.add_descr(
                    name,
                    DescrData::Class {
                        strukt: strukt.clone(),
                        size: layout.fixed_size,
                        align: layout.align,
                        type_id: self.next_type_id,
                    },
                )?;
            }
            Decl::Field {
                name,
                strukt,
                field,
            } => {
                let data = self.field_data(strukt, field)?;
                self.add_descr(name, data)?;
            }
            Decl::Residual { name, call } => {
                if self.descr(name).is_some() {
                    return Err(format!("'{name}' is declared twice"));
                }
                self.add_descr(name, DescrData::Residual(call.clone()))?;
            }
            Decl::Call { name, func } => {
                let f = calls::lookup(func).ok_or_else(|| {
                    format!(
                        "no native function '{func}' (known: {})",
                        calls::names().join(", ")
                    )
                })?;
                self.add_descr(name, DescrData::Call { func: f })?;
            }
        }
        self.decls.push(decl);
        Ok(())
    }

    fn field_data(&self, strukt: &str, field: &str) -> Result<DescrData, String> {
        let ct = self
            .types
            .get(strukt)
            .ok_or_else(|| format!("no struct '{strukt}'"))?;
        let ty = ct
            .field_type(field)
            .ok_or_else(|| format!("struct '{strukt}' has no field '{field}'"))?
            .clone();
        let offset = ct.layout().offset_of(field).unwrap_or(0);
        Ok(DescrData::Field {
            strukt: strukt.to_string(),
            field: field.to_string(),
            offset,
            ty,
        })
    }

    /// The descr called `name`; `struct.field` names a field without a
    /// `field` declaration (it is added on first use).
    pub fn resolve_descr(&mut self, name: &str) -> Result<DescrId, String> {
        if let Some(id) = self.descr(name) {
            return Ok(id);
        }
        if let Some((s, f)) = name.split_once('.') {
            let data = self.field_data(s, f)?;
            return self.add_descr(name, data);
        }
        // A program's types get their descrs when a trace names them, as
        // the meta-interpreter makes them.
        if self.program_types > 0 {
            if let Some(base) = name.strip_suffix("[]") {
                return self.array_descr(base);
            }
            match self.types.get(name) {
                Some(ContainerType::GcArray { .. }) => return self.array_descr(name),
                Some(ContainerType::GcStruct { .. }) => return self.size_descr(name),
                None => {}
            }
        }
        Err(format!("no descr '{name}' in the header"))
    }

    /// The descr of the array a string operation needing `need` implies
    /// (`str` or `unicode`), declared on first use.
    pub fn string_descr(&mut self, need: DescrNeed) -> Result<DescrId, String> {
        let (name, item) = match need {
            DescrNeed::Unicode => UNICODE_ARRAY,
            _ => STR_ARRAY,
        };
        if let Some(id) = self.descr(name) {
            return match &self.descrs[id].data {
                DescrData::Array { item: t, .. } if *t == item => Ok(id),
                _ => Err(format!(
                    "'{name}' is the array string operations use: it must be 'array {name} = {item}'"
                )),
            };
        }
        self.declare(Decl::Array {
            name: name.to_string(),
            item,
        })?;
        self.descr(name)
            .ok_or_else(|| format!("'{name}' was not declared"))
    }

    /// A header over a program's container types, whose descrs are made as
    /// a trace recorded from the program names them (`field_descr`,
    /// `size_descr`, `array_descr`): the meta-interpreter's. A type's id
    /// (the word an object's GC header holds) is its position in the
    /// table, from 1.
    pub fn of_program(types: TypeTable) -> Header {
        let next_type_id = types.len() as u64;
        Header {
            types,
            next_type_id,
            program_types: next_type_id,
            ..Header::default()
        }
    }

    /// Makes the descr of every program type that has none (a struct's
    /// size, an array's or a varsized struct's items), so that every object
    /// of the program can be named by type.
    pub fn describe_program_types(&mut self) -> Result<(), String> {
        let types: Vec<(String, bool)> = self
            .types
            .iter()
            .map(|(n, ct)| {
                let items = matches!(
                    ct,
                    ContainerType::GcArray { .. }
                        | ContainerType::GcStruct {
                            var_item: Some(_),
                            ..
                        }
                );
                (n.clone(), items)
            })
            .collect();
        for (name, items) in types {
            if items {
                self.array_descr(&name)?;
            } else {
                self.size_descr(&name)?;
            }
        }
        Ok(())
    }

    /// Whether the header is a program's (its types declared by `type`).
    pub fn is_program(&self) -> bool {
        self.program_types > 0
    }

    /// Checks that every type a program type points to is declared (after
    /// the header's last `type`).
    pub fn check_program_types(&self) -> Result<(), String> {
        for (name, ct) in &self.types {
            let named = match ct {
                ContainerType::GcStruct { fields, var_item } => fields
                    .iter()
                    .map(|(_, t)| t)
                    .chain(var_item)
                    .collect::<Vec<_>>(),
                ContainerType::GcArray { item } => vec![item],
            };
            for t in named {
                if let LowLevelType::Ptr(n) = t {
                    if !self.types.contains_key(n) {
                        return Err(format!(
                            "type '{name}' points to '{n}', which no `type` declares"
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The id of a program type (see [`Header::of_program`]).
    pub fn program_type_id(&self, name: &str) -> Option<u64> {
        self.types
            .keys()
            .position(|k| k == name)
            .map(|i| i as u64 + 1)
    }

    /// The program type whose id is `id`.
    pub fn program_type_name(&self, id: u64) -> Option<&str> {
        let index = usize::try_from(id.checked_sub(1)?).ok()?;
        self.types.keys().nth(index).map(String::as_str)
    }

    /// The descr of field `field` of struct `strukt`. An instance struct
    /// begins with its base class's fields, so one field may be reached
    /// through several structs (`inst_W_Int.typeptr`,
    /// `inst_W_Object.typeptr`): the descr is the one of the smallest
    /// struct that holds the field and whose fields begin `strukt`'s (as
    /// the LLInterpreter's `is_part`), so that the optimizer sees one
    /// field, not two that never alias.
    pub fn field_descr(&mut self, strukt: &str, field: &str) -> Result<DescrId, String> {
        let Some(ContainerType::GcStruct { fields, .. }) = self.types.get(strukt) else {
            return self.resolve_descr(&format!("{strukt}.{field}"));
        };
        let Some(at) = fields.iter().position(|(f, _)| f == field) else {
            return Err(format!("struct '{strukt}' has no field '{field}'"));
        };
        let own = fields;
        let base = self
            .types
            .iter()
            .filter_map(|(name, ct)| match ct {
                ContainerType::GcStruct {
                    fields,
                    var_item: None,
                } if fields.len() > at && own.starts_with(fields) => Some((fields.len(), name)),
                _ => None,
            })
            .min()
            .map_or_else(|| strukt.to_string(), |(_, name)| name.clone());
        self.resolve_descr(&format!("{base}.{field}"))
    }

    /// The descr of residual call `call`, named `name`; the same descr
    /// for the same name.
    pub fn residual_descr(&mut self, name: &str, call: ResidualCall) -> Result<DescrId, String> {
        match self.descr(name) {
            Some(id) => Ok(id),
            None => self.add_descr(name, DescrData::Residual(call)),
        }
    }

    /// The descr `new` allocates a program struct by.
    pub fn size_descr(&mut self, strukt: &str) -> Result<DescrId, String> {
        if let Some(id) = self.descr(strukt) {
            return Ok(id);
        }
        let ct = self
            .types
            .get(strukt)
            .ok_or_else(|| format!("no struct '{strukt}'"))?;
        let ContainerType::GcStruct { fields, .. } = ct else {
            return Err(format!("'{strukt}' is an array"));
        };
        let fields = fields.clone();
        let layout = ct.layout();
        let type_id = self.program_type_id(strukt).unwrap_or(0);
        let id = self.add_descr(
            strukt,
            DescrData::Size {
                strukt: strukt.to_string(),
                size: layout.fixed_size,
                align: layout.align,
                type_id,
            },
        )?;
        self.decls.push(Decl::Struct {
            name: strukt.to_string(),
            fields,
        });
        Ok(id)
    }

    /// The descr of the items of a program array, or of a varsized
    /// struct's inline items (named `strukt[]`).
    pub fn array_descr(&mut self, name: &str) -> Result<DescrId, String> {
        let ct = self
            .types
            .get(name)
            .ok_or_else(|| format!("no type '{name}'"))?;
        let (descr_name, item) = match ct {
            ContainerType::GcArray { item } => (name.to_string(), item.clone()),
            ContainerType::GcStruct {
                var_item: Some(item),
                ..
            } => (format!("{name}[]"), item.clone()),
            ContainerType::GcStruct { .. } => return Err(format!("'{name}' has no items")),
        };
        if let Some(id) = self.descr(&descr_name) {
            return Ok(id);
        }
        let layout = ct.layout();
        let Some((items_offset, item_size)) = layout.items else {
            return Err(format!("'{name}' has no items"));
        };
        let type_id = self.program_type_id(name).unwrap_or(0);
        let length_offset = layout.offset_of("length").unwrap_or(8);
        let is_array = matches!(ct, ContainerType::GcArray { .. });
        let id = self.add_descr(
            &descr_name,
            DescrData::Array {
                item: item.clone(),
                length_offset,
                items_offset,
                item_size,
                type_id,
            },
        )?;
        if is_array {
            self.decls.push(Decl::Array {
                name: name.to_string(),
                item,
            });
        }
        Ok(id)
    }

    /// The vtable id of a class descr.
    pub fn class_id(&self, d: DescrId) -> Option<u64> {
        match self.descrs.get(d)?.data {
            DescrData::Class { type_id, .. } => Some(type_id),
            _ => None,
        }
    }
}

/// A trace: the header it refers to, its boxes, inputs and operations.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub header: Arc<Header>,
    pub boxes: Vec<BoxInfo>,
    pub inputs: Vec<BoxId>,
    pub ops: Vec<Op>,
}

impl Trace {
    pub fn new(header: Arc<Header>) -> Trace {
        Trace {
            header,
            boxes: Vec::new(),
            inputs: Vec::new(),
            ops: Vec::new(),
        }
    }

    pub fn kind(&self, v: Value) -> Kind {
        match v {
            Value::Box(b) => self.boxes[b].kind,
            Value::Int(_) | Value::Class(_) => Kind::Int,
            Value::Float(_) => Kind::Float,
            Value::NullPtr | Value::ConstPtr(_) => Kind::Ref,
        }
    }

    /// A new box with a fresh name (`i17`: the kind's letter and the
    /// smallest number above every name in use).
    pub fn new_box(&mut self, kind: Kind) -> BoxId {
        let n = self
            .boxes
            .iter()
            .filter_map(BoxInfo::number)
            .max()
            .map_or(0, |m| m + 1);
        self.boxes.push(BoxInfo::numbered(n, kind));
        self.boxes.len() - 1
    }
}

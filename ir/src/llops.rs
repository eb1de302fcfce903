//! The low-level operations: what each takes and yields, whether it is pure,
//! and the meaning of the integer ones.
//!
//! This table is the contract between the rtyper (which emits these operations),
//! the optimizers (which rewrite them), the LLInterpreter and the C backend
//! (which execute them). `eval_int` is the one definition of integer semantics:
//! the LLInterpreter, constant folding and the rule checks all call it.

use crate::lltype::LowLevelType;
use crate::opcode::Opcode;
use fxhash::FxHashMap;
use std::sync::OnceLock;

/// What an operation needs of its arguments and yields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Signature {
    /// Integer arithmetic on Signed words, yielding Signed.
    IntBinary,
    IntUnary,
    /// Integer comparison, yielding Bool.
    IntCompare,
    /// Unsigned word arithmetic (r_uint), wrapping modulo 2**64, yielding Unsigned.
    UintBinary,
    UintUnary,
    /// Unsigned comparison, yielding Bool.
    UintCompare,
    /// An Unsigned word shifted by a Signed count, yielding Unsigned.
    UintShift,
    FloatBinary,
    FloatUnary,
    FloatCompare,
    CharCompare,
    /// A conversion from one primitive type to another.
    Cast(LowLevelType, LowLevelType),
    /// Anything else: the result type is given by the operation's creator.
    Special,
}

/// What an operation does besides yielding its result: the flags the
/// transforms and optimizers need (the original's lloperation table has
/// `canraise`, `canmallocgc`, `sideeffects`, `canfold`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Nothing: may be folded, reordered, deduplicated or removed when unused.
    Pure,
    /// Reads the heap (a field, an item, a length): removable when unused,
    /// not movable across a write that may alias it.
    ReadsHeap,
    /// Writes the heap.
    WritesHeap,
    /// Allocates, so may start a collection.
    Allocates,
    /// Calls a graph or a runtime function: may raise, collect, and read
    /// and write anything (what the callee does says more).
    Calls,
    /// Touches other state (the exception state, the GC's shadow stack) or
    /// is a hint kept for the JIT: never removed or moved.
    Other,
}

#[derive(Clone, Debug)]
pub struct LlOp {
    pub opcode: Opcode,
    pub sig: Signature,
    pub effect: Effect,
}

impl LlOp {
    pub fn name(&self) -> &'static str {
        self.opcode.name()
    }

    /// No side effect and no dependence on memory: may be folded, reordered,
    /// deduplicated or removed when unused.
    pub fn pure(&self) -> bool {
        self.effect == Effect::Pure
    }

    /// Only calls raise in a low-level graph (see [`can_raise`]).
    pub fn can_raise(&self) -> bool {
        self.effect == Effect::Calls
    }

    /// May start a collection: an allocation, or a call (of a graph that
    /// allocates, or of `gc.collect()`).
    pub fn can_collect(&self) -> bool {
        matches!(self.effect, Effect::Allocates | Effect::Calls)
    }

    pub fn reads_heap(&self) -> bool {
        matches!(self.effect, Effect::ReadsHeap | Effect::Calls)
    }

    pub fn writes_heap(&self) -> bool {
        matches!(self.effect, Effect::WritesHeap | Effect::Calls)
    }

    /// `eval_int` or `eval_float` gives its value from constant arguments
    /// (where it is defined for them).
    pub fn can_fold(&self) -> bool {
        self.pure()
            && match self.sig {
                Signature::Special => matches!(self.opcode, Opcode::SameAs | Opcode::IntBetween),
                // Characters are compared as the words they are.
                Signature::Cast(..) => {
                    !matches!(self.opcode, Opcode::CastCharToInt | Opcode::CastIntToChar)
                }
                _ => true,
            }
    }
}

macro_rules! ops {
    ($($variant:ident => $sig:expr, $effect:ident;)*) => {
        pub const LL_OPS: &[LlOp] = &[$(LlOp { opcode: Opcode::$variant, sig: $sig, effect: Effect::$effect }),*];
    };
}

use Signature::*;
ops! {
    IntAdd => IntBinary, Pure;
    IntSub => IntBinary, Pure;
    IntMul => IntBinary, Pure;
    // C division: truncates toward zero. Python's floor division is int_py_div.
    IntFloordiv => IntBinary, Pure;
    IntMod => IntBinary, Pure;
    IntPyDiv => IntBinary, Pure;
    IntPyMod => IntBinary, Pure;
    IntAnd => IntBinary, Pure;
    IntOr => IntBinary, Pure;
    IntXor => IntBinary, Pure;
    IntLshift => IntBinary, Pure;
    IntRshift => IntBinary, Pure;
    IntNeg => IntUnary, Pure;
    IntInvert => IntUnary, Pure;
    IntAbs => IntUnary, Pure;
    IntLt => IntCompare, Pure;
    IntLe => IntCompare, Pure;
    IntEq => IntCompare, Pure;
    IntNe => IntCompare, Pure;
    IntGt => IntCompare, Pure;
    IntGe => IntCompare, Pure;
    IntIsTrue => Cast(LowLevelType::Signed, LowLevelType::Bool), Pure;
    BoolNot => Cast(LowLevelType::Bool, LowLevelType::Bool), Pure;
    CastBoolToInt => Cast(LowLevelType::Bool, LowLevelType::Signed), Pure;
    CastBoolToFloat => Cast(LowLevelType::Bool, LowLevelType::Float), Pure;
    CastIntToFloat => Cast(LowLevelType::Signed, LowLevelType::Float), Pure;
    CastFloatToInt => Cast(LowLevelType::Float, LowLevelType::Signed), Pure;
    CastCharToInt => Cast(LowLevelType::Char, LowLevelType::Signed), Pure;
    CastIntToChar => Cast(LowLevelType::Signed, LowLevelType::Char), Pure;
    // r_uint: the same words as Signed, read as unsigned (PyPy's uint_* names).
    UintAdd => UintBinary, Pure;
    UintSub => UintBinary, Pure;
    UintMul => UintBinary, Pure;
    UintFloordiv => UintBinary, Pure;
    UintMod => UintBinary, Pure;
    UintAnd => UintBinary, Pure;
    UintOr => UintBinary, Pure;
    UintXor => UintBinary, Pure;
    UintLshift => UintShift, Pure;
    UintRshift => UintShift, Pure;
    UintInvert => UintUnary, Pure;
    UintLt => UintCompare, Pure;
    UintLe => UintCompare, Pure;
    UintEq => UintCompare, Pure;
    UintNe => UintCompare, Pure;
    UintGt => UintCompare, Pure;
    UintGe => UintCompare, Pure;
    UintIsTrue => Cast(LowLevelType::Unsigned, LowLevelType::Bool), Pure;
    CastIntToUint => Cast(LowLevelType::Signed, LowLevelType::Unsigned), Pure;
    CastUintToInt => Cast(LowLevelType::Unsigned, LowLevelType::Signed), Pure;
    CastBoolToUint => Cast(LowLevelType::Bool, LowLevelType::Unsigned), Pure;
    CastUintToFloat => Cast(LowLevelType::Unsigned, LowLevelType::Float), Pure;
    CastFloatToUint => Cast(LowLevelType::Float, LowLevelType::Unsigned), Pure;
    FloatAdd => FloatBinary, Pure;
    FloatSub => FloatBinary, Pure;
    FloatMul => FloatBinary, Pure;
    FloatTruediv => FloatBinary, Pure;
    FloatPyDiv => FloatBinary, Pure;
    FloatPyMod => FloatBinary, Pure;
    FloatNeg => FloatUnary, Pure;
    FloatAbs => FloatUnary, Pure;
    FloatLt => FloatCompare, Pure;
    FloatLe => FloatCompare, Pure;
    FloatEq => FloatCompare, Pure;
    FloatNe => FloatCompare, Pure;
    FloatGt => FloatCompare, Pure;
    FloatGe => FloatCompare, Pure;
    FloatIsTrue => Cast(LowLevelType::Float, LowLevelType::Bool), Pure;
    CharEq => CharCompare, Pure;
    CharNe => CharCompare, Pure;
    CharLt => CharCompare, Pure;
    CharLe => CharCompare, Pure;
    CharGt => CharCompare, Pure;
    CharGe => CharCompare, Pure;
    // same_as(x): x itself; the result type is x's.
    SameAs => Special, Pure;
    // malloc(Name(T)) -> Ptr(T); malloc_varsize(Name(T), n) -> Ptr(T) with n items.
    Malloc => Special, Allocates;
    MallocVarsize => Special, Allocates;
    // getfield(p, Name(f)); setfield(p, Name(f), v).
    Getfield => Special, ReadsHeap;
    Setfield => Special, WritesHeap;
    // Items of a GcArray or of a varsized GcStruct: getarrayitem(p, i), setarrayitem(p, i, v),
    // getarraysize(p) (the `length` field).
    Getarrayitem => Special, ReadsHeap;
    Setarrayitem => Special, WritesHeap;
    Getarraysize => Special, ReadsHeap;
    // direct_call(Func(graph) | Builtin(runtime function), args...).
    DirectCall => Special, Calls;
    // indirect_call(f, args...): a call through a function pointer (`FuncPtr`).
    IndirectCall => Special, Calls;
    // cast_pointer(p): p as a pointer to another part of the same object
    // (an instance as its base class or back); the result's type says which.
    CastPointer => Special, Pure;
    // Pointer identity and nullness (GC and function pointers alike).
    PtrEq => Special, Pure;
    PtrNe => Special, Pure;
    PtrIszero => Special, Pure;
    PtrNonzero => Special, Pure;
    // int_between(a, x, b): a <= x < b (Bool); how a caught exception's class
    // id is tested against a handler's subclass range.
    IntBetween => Special, Pure;
    // jit_marker(Name(kind), driver, K, live values...) -> Void: a JitDriver's
    // `jit_merge_point` or `can_enter_jit` (kind) with the loop's variables,
    // its K greens first, then its reds. Nothing at run time without a JIT; kept (not pure) so
    // that the JIT's codewriter finds the interpreter's loop.
    JitMarker => Special, Other;
    // jit_promote(x) -> x: `jit.promote(x)`. x itself without a JIT; the
    // tracer guards x's value (`guard_value`) and the trace goes on with
    // it as a constant. Kept (not pure), or the hint would be folded away
    // before the JIT's codewriter sees it.
    JitPromote => Special, Other;
    // jit_we_are_jitted() -> Bool: `jit.we_are_jitted()`. False in the
    // executable and the LLInterpreter; the JIT's codewriter makes it True
    // in the jitcodes, so traces and the blackhole take the branch written
    // for them (the original's `_we_are_jitted` symbolic). Kept (not pure),
    // or it would be folded before the codewriter sees it.
    JitWeAreJitted => Special, Other;
    // The global exception state of a program after `exceptiontransform`
    // (the original's exception data: a class and an instance, both null
    // when no exception is pending).
    // exc_occurred() -> Bool: whether an exception is pending.
    ExcOccurred => Special, Other;
    // exc_type() -> Ptr(object_vtable): the pending exception's class.
    ExcType => Special, Other;
    // exc_value() -> Ptr(object): the pending exception instance.
    ExcValue => Special, Other;
    // exc_set(etype, evalue) -> Void: raise: the exception becomes pending.
    ExcSet => Special, Other;
    // exc_clear() -> Void: the pending exception was caught.
    ExcClear => Special, Other;
    // The GC's operations, inserted by `gctransform` (absent with `--gc=none`).
    // gc_save_root(Int(k), p) -> Void: p is stored in slot k of the graph's
    // shadow-stack frame, where the collector finds it (and updates it when
    // it moves the object) during the collecting operation that follows.
    GcSaveRoot => Special, Other;
    // gc_reload(Int(k), p) -> Ptr: p as the collector left it in slot k
    // (the same object, perhaps at a new address); p itself must not be
    // used after a collection, so it is named only to say which value this is.
    GcReload => Special, Other;
    // gc_write_barrier(p) -> Void: p, which may be an old object, is about
    // to get a GC pointer stored in it; if it is old and not yet
    // remembered, the collector remembers it, so that the next minor
    // collection finds the young objects it points to.
    GcWriteBarrier => Special, Other;
    // gc_write_barrier_item(a, i) -> Void: item i of the array a, which may
    // be old, is about to get a GC pointer; a large old array only marks
    // the card of that item, so that the next minor collection scans that
    // card and not the whole array.
    GcWriteBarrierItem => Special, Other;
}

/// The operations that may raise an exception in a low-level graph: only
/// calls. An operation that raises in Python (`//` by zero, an index out of
/// range, a missing key) is lowered to a call of an ll helper that checks
/// and raises, where a handler catches it, so the exception transform and
/// the JIT only look at calls.
pub fn can_raise(op: Opcode) -> bool {
    info(op).is_some_and(LlOp::can_raise)
}

/// A function of the runtime that low-level graphs call with
/// `direct_call(Builtin(name), args...)`. The C backend implements each in its
/// runtime, the LLInterpreter natively; both must agree exactly.
#[derive(Clone, Debug)]
pub struct RuntimeFunc {
    pub name: &'static str,
    pub args: &'static [RtType],
    pub result: RtType,
    /// What it does, for readers of the generated C and of rules.
    pub doc: &'static str,
}

/// The low-level types runtime functions take; `Str` is `Ptr(rpy_string)`,
/// `Object` a pointer to any instance, `Ptr(object)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtType {
    Void,
    Signed,
    Float,
    Bool,
    Char,
    Str,
    Unsigned,
    Object,
}

impl RtType {
    pub fn lltype(self) -> LowLevelType {
        match self {
            RtType::Void => LowLevelType::Void,
            RtType::Signed => LowLevelType::Signed,
            RtType::Float => LowLevelType::Float,
            RtType::Bool => LowLevelType::Bool,
            RtType::Char => LowLevelType::Char,
            RtType::Unsigned => LowLevelType::Unsigned,
            RtType::Str => LowLevelType::Ptr(crate::lltype::STR.to_string()),
            RtType::Object => LowLevelType::Ptr(crate::lltype::OBJECT.to_string()),
        }
    }
}

macro_rules! runtime {
    ($($name:literal ($($arg:ident),*) -> $res:ident, $doc:literal;)*) => {
        pub const RUNTIME_FUNCS: &[RuntimeFunc] = &[$(RuntimeFunc {
            name: $name,
            args: &[$(RtType::$arg),*],
            result: RtType::$res,
            doc: $doc,
        }),*];
    };
}

runtime! {
    "rpy_str_from_int" (Signed) -> Str, "str() of an int, in decimal";
    "rpy_str_from_uint" (Unsigned) -> Str, "str() of an r_uint, in decimal";
    "rpy_str_from_float" (Float) -> Str, "str() of a float as Python 3 does: the shortest repr that round-trips";
    "rpy_str_from_float_py2" (Float) -> Str, "str() of a float as Python 2 does: '%.12g', with '.0' added to integral values";
    "rpy_format_int" (Signed, Str) -> Str, "one '%' conversion (d i u x X o, with flags, width and precision) of an int; the second argument is the conversion's text, as '%05x'";
    "rpy_format_uint" (Unsigned, Str) -> Str, "one '%' conversion (d i u x X o, with flags, width and precision) of an r_uint";
    "rpy_format_int_py2" (Signed, Str) -> Str, "rpy_format_int as Python 2 formats: the alternate form of 'o' ('%#o') starts with '0', not '0o'";
    "rpy_format_uint_py2" (Unsigned, Str) -> Str, "rpy_format_uint as Python 2 formats ('%#o' starts with '0')";
    "rpy_int_hex" (Signed) -> Str, "hex() of an int: '0x' and its hexadecimal digits, after a '-' when negative";
    "rpy_int_oct" (Signed) -> Str, "oct() of an int as Python 3 writes it: '0o' and its octal digits";
    "rpy_int_oct_py2" (Signed) -> Str, "oct() of an int as Python 2 writes it: '0' and its octal digits, '0' for zero";
    "rpy_format_float" (Float, Str) -> Str, "one '%' conversion (e E f F g G, with flags, width and precision) of a float, as C's printf writes it";
    "rpy_format_str" (Str, Str) -> Str, "a string padded and cut as a '%s' conversion's width and precision say";
    "rpy_str_from_char" (Char) -> Str, "a one-character string";
    "rpy_str_from_bool" (Bool) -> Str, "'True' or 'False'";
    "rpy_str_to_int" (Str) -> Signed, "int() of a string: optional whitespace and sign, decimal digits; anything else is a fatal ValueError";
    "rpy_str_to_float" (Str) -> Float, "float() of a string; a malformed one is a fatal ValueError";
    "rpy_print_str" (Str) -> Void, "writes the string's bytes to standard output";
    "rpy_print_char" (Char) -> Void, "writes one byte to standard output";
    "rpy_print_str_utf8" (Str) -> Void, "writes a Python 3 program's string to standard output as CPython 3 does on a UTF-8 terminal: each char (a code below 256) in UTF-8";
    "rpy_print_char_utf8" (Char) -> Void, "writes a Python 3 program's char in UTF-8 (one or two bytes)";
    "rpy_int_pow" (Signed, Signed) -> Signed, "x ** y for y >= 0, wrapping";
    "rpy_int_highest_bit" (Signed) -> Signed, "highest_bit(n) of a power of two: the index of its one set bit";
    "rpy_float_pow" (Float, Float) -> Float, "x ** y as C's pow()";
    "rpy_math_acos" (Float) -> Float, "math.acos(x): C's acos(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_acosh" (Float) -> Float, "math.acosh(x): C's acosh(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_asin" (Float) -> Float, "math.asin(x): C's asin(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_asinh" (Float) -> Float, "math.asinh(x): C's asinh(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_atan" (Float) -> Float, "math.atan(x): C's atan(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_atanh" (Float) -> Float, "math.atanh(x): C's atanh(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_ceil" (Float) -> Float, "math.ceil(x): C's ceil(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_cos" (Float) -> Float, "math.cos(x): C's cos(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_cosh" (Float) -> Float, "math.cosh(x): C's cosh(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_erf" (Float) -> Float, "math.erf(x): C's erf(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_erfc" (Float) -> Float, "math.erfc(x): C's erfc(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_exp" (Float) -> Float, "math.exp(x): C's exp(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_expm1" (Float) -> Float, "math.expm1(x): C's expm1(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_fabs" (Float) -> Float, "math.fabs(x): C's fabs(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_floor" (Float) -> Float, "math.floor(x): C's floor(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_log" (Float) -> Float, "math.log(x): C's log(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_log10" (Float) -> Float, "math.log10(x): C's log10(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_log1p" (Float) -> Float, "math.log1p(x): C's log1p(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_log2" (Float) -> Float, "math.log2(x): C's log2(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_sin" (Float) -> Float, "math.sin(x): C's sin(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_sinh" (Float) -> Float, "math.sinh(x): C's sinh(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_sqrt" (Float) -> Float, "math.sqrt(x): C's sqrt(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_tan" (Float) -> Float, "math.tan(x): C's tan(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_tanh" (Float) -> Float, "math.tanh(x): C's tanh(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_trunc" (Float) -> Float, "math.trunc(x): C's trunc(); the rtyper checks the result for domain and range errors where a handler catches them";
    "rpy_math_atan2" (Float, Float) -> Float, "math.atan2(x, y): C's atan2(); checked as the one-argument functions are";
    "rpy_math_copysign" (Float, Float) -> Float, "math.copysign(x, y): C's copysign(); checked as the one-argument functions are";
    "rpy_math_fmod" (Float, Float) -> Float, "math.fmod(x, y): C's fmod(); checked as the one-argument functions are";
    "rpy_math_hypot" (Float, Float) -> Float, "math.hypot(x, y): C's hypot(); checked as the one-argument functions are";
    "rpy_math_pow" (Float, Float) -> Float, "math.pow(x, y): C's pow(); checked as the one-argument functions are";
    "rpy_math_ldexp" (Float, Signed) -> Float, "math.ldexp(x, e): C's ldexp(), the exponent clamped to a C int";
    "rpy_time_time" () -> Float, "time.time(): seconds since the epoch (CLOCK_REALTIME)";
    "rpy_time_clock" () -> Float, "time.clock() (Python 2) and time.process_time(): the process's CPU time in seconds";
    "rpy_time_monotonic" () -> Float, "time.perf_counter() and time.monotonic(): CLOCK_MONOTONIC in seconds";
    "rpy_time_sleep" (Float) -> Void, "time.sleep(seconds)";
    "rpy_gc_collect_now" (Signed) -> Void, "gc.collect(generation): a minor collection, and for a generation other than 0 a major one; the only runtime function that collects (gctransform saves the roots around it)";
    "rpy_gc_set_enabled" (Bool) -> Void, "gc.enable()/gc.disable(): whether the collector starts major collections by itself";
    "rpy_gc_isenabled" () -> Bool, "gc.isenabled()";
    "rpy_gc_identityhash" (Object) -> Signed, "compute_identity_hash(x) of an instance (0 for None): a number the object's GC header keeps from the first time it is asked for, so that it stays when the collector moves the object";
    "rpy_gc_unique_id" (Object) -> Signed, "compute_unique_id(x) of an instance (0 for None): its identity hash, unique among the first 2**24 objects given one; a fatal NotImplementedError once more have been, as an id could then repeat";
    "rpy_jit_set_param_int" (Str, Signed) -> Void, "jit.set_param(driver, name, n): tunes the JIT of a program translated with one (nothing otherwise)";
    "rpy_jit_set_param_str" (Str, Str) -> Void, "jit.set_param(driver, name, text): as rpy_jit_set_param_int, for enable_opts (or 'default')";
    "rpy_os_write" (Signed, Str) -> Signed, "os.write(fd, s): the count written, or -1 (errno in rpy_os_errno); standard output is flushed first";
    "rpy_os_read" (Signed, Signed) -> Str, "os.read(fd, n): at most n bytes, or null (errno in rpy_os_errno)";
    "rpy_os_open" (Str, Signed, Signed) -> Signed, "os.open(path, flags, mode): a file descriptor, or -1";
    "rpy_os_close" (Signed) -> Signed, "os.close(fd): 0, or -1";
    "rpy_os_lseek" (Signed, Signed, Signed) -> Signed, "os.lseek(fd, offset, whence): the new position, or -1";
    "rpy_os_unlink" (Str) -> Signed, "os.unlink(path): 0, or -1";
    "rpy_os_errno" () -> Signed, "the errno of the last os call that failed";
    "rpy_os_strerror" (Signed) -> Str, "os.strerror(code): C's strerror()";
    "rpy_os_getenv" (Str) -> Str, "os.getenv(name): its value, or null when it is not set";
    "rpy_os_getpid" () -> Signed, "os.getpid()";
    "rpy_os_isatty" (Signed) -> Bool, "os.isatty(fd)";
    "rpy_os_path_kind" (Str) -> Signed, "what is at a path: 0 nothing, 1 a file (not a directory), 2 a directory (os.path.exists, isfile, isdir)";
    "rpy_os_path_join" (Str, Str) -> Str, "os.path.join(a, b) as posixpath does it";
    "rpy_os_path_dirname" (Str) -> Str, "os.path.dirname(p) as posixpath does it";
    "rpy_os_path_basename" (Str) -> Str, "os.path.basename(p) as posixpath does it";
}

/// The original's JIT parameters (`rlib.jit.PARAMETERS`): what
/// `jit.set_param` may name (the rtyper checks a program's names, the
/// JIT's runtime applies them). rpy's JIT uses threshold, function_threshold,
/// trace_eagerness, trace_limit and enable_opts, and ignores the others.
pub const JIT_PARAMETERS: &[&str] = &[
    "threshold",
    "function_threshold",
    "trace_eagerness",
    "decay",
    "trace_limit",
    "inlining",
    "loop_longevity",
    "retrace_limit",
    "pureop_historylength",
    "max_retrace_guards",
    "max_unroll_loops",
    "disable_unrolling",
    "enable_opts",
    "max_unroll_recursion",
    "vec",
    "vec_all",
    "vec_cost",
];

pub fn runtime_func(name: &str) -> Option<&'static RuntimeFunc> {
    // Every pass asks for operations by name, many times each: a table
    // made once, not a walk of the list per question.
    static INDEX: OnceLock<FxHashMap<&'static str, &'static RuntimeFunc>> = OnceLock::new();
    INDEX
        .get_or_init(|| {
            let mut index = FxHashMap::default();
            for f in RUNTIME_FUNCS {
                index.entry(f.name).or_insert(f);
            }
            index
        })
        .get(name)
        .copied()
}

/// What low-level operation `op` takes, yields and does; `None` for an
/// operation only high-level graphs hold.
pub fn info(op: Opcode) -> Option<&'static LlOp> {
    static INDEX: OnceLock<Vec<Option<&'static LlOp>>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index = vec![None; Opcode::ALL.len()];
        for ll in LL_OPS {
            index[ll.opcode as usize] = Some(ll);
        }
        index
    })[op as usize]
}

/// The result type of a primitive operation applied to arguments of the given
/// types, or `None` when the types do not fit (or the op is `Special`).
pub fn result_type(name: Opcode, args: &[LowLevelType]) -> Option<LowLevelType> {
    use LowLevelType as T;
    let op = info(name)?;
    let all = |t: &T, n: usize| args.len() == n && args.iter().all(|a| a == t);
    match &op.sig {
        IntBinary if all(&T::Signed, 2) => Some(T::Signed),
        IntUnary if all(&T::Signed, 1) => Some(T::Signed),
        IntCompare if all(&T::Signed, 2) => Some(T::Bool),
        UintBinary if all(&T::Unsigned, 2) => Some(T::Unsigned),
        UintUnary if all(&T::Unsigned, 1) => Some(T::Unsigned),
        UintCompare if all(&T::Unsigned, 2) => Some(T::Bool),
        UintShift if args == [T::Unsigned, T::Signed] => Some(T::Unsigned),
        FloatBinary if all(&T::Float, 2) => Some(T::Float),
        FloatUnary if all(&T::Float, 1) => Some(T::Float),
        FloatCompare if all(&T::Float, 2) => Some(T::Bool),
        CharCompare if all(&T::Char, 2) => Some(T::Bool),
        Cast(from, to) if all(from, 1) => Some(to.clone()),
        Special if name == Opcode::SameAs && args.len() == 1 => Some(args[0].clone()),
        Special
            if matches!(name, Opcode::PtrEq | Opcode::PtrNe)
                && args.len() == 2
                && args.iter().all(is_pointer) =>
        {
            Some(T::Bool)
        }
        Special if name == Opcode::IntBetween && all(&T::Signed, 3) => Some(T::Bool),
        Special
            if matches!(name, Opcode::PtrIszero | Opcode::PtrNonzero)
                && args.len() == 1
                && is_pointer(&args[0]) =>
        {
            Some(T::Bool)
        }
        _ => None,
    }
}

fn is_pointer(t: &LowLevelType) -> bool {
    matches!(t, LowLevelType::Ptr(_) | LowLevelType::FuncPtr(_))
}

/// The argument types and result type (`true` for Bool, `false` for Signed)
/// of a pure integer operation, exactly the operations `eval_int` defines on
/// Signed and Bool values; `None` for any other. The integer rewrite rules may
/// use these, and the e-graph optimizes them.
pub fn int_signature(name: Opcode) -> Option<(Vec<bool>, bool)> {
    let op = info(name)?;
    if !op.pure() {
        return None;
    }
    let ty = |t: &LowLevelType| match t {
        LowLevelType::Signed => Some(false),
        LowLevelType::Bool => Some(true),
        _ => None,
    };
    match &op.sig {
        IntBinary => Some((vec![false, false], false)),
        IntUnary => Some((vec![false], false)),
        IntCompare => Some((vec![false, false], true)),
        Cast(from, to) => Some((vec![ty(from)?], ty(to)?)),
        _ => None,
    }
}

/// Python's floor division on machine words; `None` for a zero divisor and for
/// `MIN // -1`, whose result does not fit a word.
pub fn py_div(x: i64, y: i64) -> Option<i64> {
    let q = x.checked_div(y)?;
    Some(if (x % y != 0) && ((x < 0) != (y < 0)) {
        q - 1
    } else {
        q
    })
}

/// Python's modulo on machine words: the result has the divisor's sign.
pub fn py_mod(x: i64, y: i64) -> Option<i64> {
    let r = x.checked_rem(y)?;
    Some(if r != 0 && ((r < 0) != (y < 0)) {
        r + y
    } else {
        r
    })
}

/// Python's float floor division: derived from the same `fmod` as `%`, so
/// that `x == q*y + r` holds as closely as floats allow (`1.0 // 0.1` is 9.0,
/// where `floor(1.0 / 0.1)` would give 10.0).
pub fn py_float_div(x: f64, y: f64) -> f64 {
    let m = x % y;
    let mut q = (x - m) / y;
    if m != 0.0 && ((y < 0.0) != (m < 0.0)) {
        q -= 1.0;
    }
    if q == 0.0 {
        return (0.0f64).copysign(x / y);
    }
    let f = q.floor();
    if q - f > 0.5 {
        f + 1.0
    } else {
        f
    }
}

/// Python's float `%`: C's `fmod`, moved to the divisor's sign; a zero
/// result takes the divisor's sign too.
pub fn py_float_mod(x: f64, y: f64) -> f64 {
    let m = x % y;
    if m != 0.0 {
        if (y < 0.0) != (m < 0.0) {
            m + y
        } else {
            m
        }
    } else {
        0.0f64.copysign(y)
    }
}

/// The runtime function of `gc.collect()`: the one runtime function that
/// collects.
pub const GC_COLLECT_NOW: &str = "rpy_gc_collect_now";

/// Whether operation `op` itself may start a collection (a call of a
/// program graph may too, through what it runs): an allocation, or
/// `gc.collect()`. After one, the collector may move young objects and run
/// the program's destructors and GC hooks.
pub fn starts_collection(op: &crate::graph::SpaceOperation) -> bool {
    use crate::graph::{Arg, Constant};
    match op.opname {
        Opcode::Malloc | Opcode::MallocVarsize => true,
        Opcode::DirectCall => matches!(
            op.args.first(),
            Some(Arg::Const(Constant::Builtin(f))) if f == GC_COLLECT_NOW
        ),
        _ => false,
    }
}

/// Whether the pure integer operation `opname` is defined for every input
/// (division, modulo and shifts are not: see [`eval_int`]), so that it may
/// be computed wherever its arguments are, even where the program would
/// not have reached it.
pub fn defined_for_every_input(opname: Opcode) -> bool {
    use Opcode::*;
    !matches!(
        opname,
        IntFloordiv
            | IntMod
            | IntPyDiv
            | IntPyMod
            | IntLshift
            | IntRshift
            | UintFloordiv
            | UintMod
            | UintLshift
            | UintRshift
    )
}

/// The value of a pure integer operation (Bool results as 0/1, Bool arguments
/// as 0/1). `None` when the operation is not an integer one, or its result is
/// undefined for these arguments (division by zero, `MIN / -1`, a shift count
/// outside 0..64): those cases are never rewritten or folded.
pub fn eval_int(name: Opcode, args: &[i64]) -> Option<i64> {
    let b = |c: bool| Some(c as i64);
    match (name, args) {
        (Opcode::IntAdd, &[x, y]) => Some(x.wrapping_add(y)),
        (Opcode::IntSub, &[x, y]) => Some(x.wrapping_sub(y)),
        (Opcode::IntMul, &[x, y]) => Some(x.wrapping_mul(y)),
        (Opcode::IntFloordiv, &[x, y]) => x.checked_div(y),
        (Opcode::IntMod, &[x, y]) => x.checked_rem(y),
        (Opcode::IntPyDiv, &[x, y]) => py_div(x, y),
        (Opcode::IntPyMod, &[x, y]) => py_mod(x, y),
        (Opcode::IntAnd, &[x, y]) => Some(x & y),
        (Opcode::IntOr, &[x, y]) => Some(x | y),
        (Opcode::IntXor, &[x, y]) => Some(x ^ y),
        (Opcode::IntLshift, &[x, y]) if (0..64).contains(&y) => Some(x.wrapping_shl(y as u32)),
        (Opcode::IntRshift, &[x, y]) if (0..64).contains(&y) => Some(x >> y),
        (Opcode::IntNeg, &[x]) => Some(x.wrapping_neg()),
        (Opcode::IntInvert, &[x]) => Some(!x),
        (Opcode::IntAbs, &[x]) => Some(x.wrapping_abs()),
        (Opcode::IntLt, &[x, y]) => b(x < y),
        (Opcode::IntLe, &[x, y]) => b(x <= y),
        (Opcode::IntEq, &[x, y]) => b(x == y),
        (Opcode::IntNe, &[x, y]) => b(x != y),
        (Opcode::IntGt, &[x, y]) => b(x > y),
        (Opcode::IntGe, &[x, y]) => b(x >= y),
        (Opcode::IntIsTrue, &[x]) => b(x != 0),
        (Opcode::BoolNot, &[x]) => b(x == 0),
        (Opcode::CastBoolToInt, &[x]) | (Opcode::SameAs, &[x]) => Some(x),
        (Opcode::IntBetween, &[lo, x, hi]) => b(lo <= x && x < hi),
        (name, args) if is_unsigned(name) => eval_uint(name, args),
        _ => None,
    }
}

/// A float operation on words (a Float is its bits; an int a word); `None`
/// for a name that is not one. The executables' JIT runs float operations
/// with it; the LLInterpreter compiles its own (`llinterp::code`), which
/// must agree.
pub fn eval_float(name: Opcode, args: &[u64]) -> Option<u64> {
    let f = |i: usize| f64::from_bits(args[i]);
    let fw = |x: f64| Some(x.to_bits());
    let b = |c: bool| Some(c as u64);
    Some(match (name, args.len()) {
        (Opcode::FloatAdd, 2) => return fw(f(0) + f(1)),
        (Opcode::FloatSub, 2) => return fw(f(0) - f(1)),
        (Opcode::FloatMul, 2) => return fw(f(0) * f(1)),
        (Opcode::FloatTruediv, 2) => return fw(f(0) / f(1)),
        (Opcode::FloatPyDiv, 2) => return fw(py_float_div(f(0), f(1))),
        (Opcode::FloatPyMod, 2) => {
            let (x, y) = (f(0), f(1));
            let m = x % y;
            let m = if m != 0.0 {
                if (y < 0.0) != (m < 0.0) {
                    m + y
                } else {
                    m
                }
            } else {
                0.0f64.copysign(y)
            };
            return fw(m);
        }
        (Opcode::FloatNeg, 1) => return fw(-f(0)),
        (Opcode::FloatAbs, 1) => return fw(f(0).abs()),
        (Opcode::FloatLt, 2) => return b(f(0) < f(1)),
        (Opcode::FloatLe, 2) => return b(f(0) <= f(1)),
        (Opcode::FloatEq, 2) => return b(f(0) == f(1)),
        (Opcode::FloatNe, 2) => return b(f(0) != f(1)),
        (Opcode::FloatGt, 2) => return b(f(0) > f(1)),
        (Opcode::FloatGe, 2) => return b(f(0) >= f(1)),
        (Opcode::FloatIsTrue, 1) => return b(f(0) != 0.0),
        (Opcode::CastBoolToFloat, 1) | (Opcode::CastIntToFloat, 1) => {
            (args[0] as i64 as f64).to_bits()
        }
        (Opcode::CastUintToFloat, 1) => (args[0] as f64).to_bits(),
        // C's conversion, as GenC's cast (saturating where C is undefined).
        (Opcode::CastFloatToInt, 1) => f(0) as i64 as u64,
        (Opcode::CastFloatToUint, 1) => f(0) as u64,
        _ => return None,
    })
}

/// An operation on Unsigned words, or a cast from or to one.
fn is_unsigned(op: Opcode) -> bool {
    info(op).is_some_and(|ll| match &ll.sig {
        UintBinary | UintUnary | UintCompare | UintShift => true,
        Cast(from, to) => *from == LowLevelType::Unsigned || *to == LowLevelType::Unsigned,
        _ => false,
    })
}

/// The unsigned operations of `eval_int`: an Unsigned value is the same
/// 64-bit word as a Signed one, read as `u64`.
fn eval_uint(name: Opcode, args: &[i64]) -> Option<i64> {
    let u = |x: i64| x as u64;
    let w = |x: u64| Some(x as i64);
    let b = |c: bool| Some(c as i64);
    match (name, args) {
        (Opcode::UintAdd, &[x, y]) => w(u(x).wrapping_add(u(y))),
        (Opcode::UintSub, &[x, y]) => w(u(x).wrapping_sub(u(y))),
        (Opcode::UintMul, &[x, y]) => w(u(x).wrapping_mul(u(y))),
        (Opcode::UintFloordiv, &[x, y]) => w(u(x).checked_div(u(y))?),
        (Opcode::UintMod, &[x, y]) => w(u(x).checked_rem(u(y))?),
        (Opcode::UintAnd, &[x, y]) => Some(x & y),
        (Opcode::UintOr, &[x, y]) => Some(x | y),
        (Opcode::UintXor, &[x, y]) => Some(x ^ y),
        (Opcode::UintLshift, &[x, y]) if (0..64).contains(&y) => w(u(x) << y),
        (Opcode::UintRshift, &[x, y]) if (0..64).contains(&y) => w(u(x) >> y),
        (Opcode::UintInvert, &[x]) => Some(!x),
        (Opcode::UintLt, &[x, y]) => b(u(x) < u(y)),
        (Opcode::UintLe, &[x, y]) => b(u(x) <= u(y)),
        (Opcode::UintEq, &[x, y]) => b(x == y),
        (Opcode::UintNe, &[x, y]) => b(x != y),
        (Opcode::UintGt, &[x, y]) => b(u(x) > u(y)),
        (Opcode::UintGe, &[x, y]) => b(u(x) >= u(y)),
        (Opcode::UintIsTrue, &[x]) => b(x != 0),
        (Opcode::CastUintToInt | Opcode::CastIntToUint | Opcode::CastBoolToUint, &[x]) => Some(x),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsigned_operations_read_the_word_as_u64() {
        let max = -1i64; // 2**64 - 1 as an Unsigned word
        assert_eq!(eval_int(Opcode::UintLt, &[1, max]), Some(1));
        assert_eq!(eval_int(Opcode::IntLt, &[1, max]), Some(0));
        assert_eq!(eval_int(Opcode::UintFloordiv, &[max, 2]), Some(i64::MAX));
        assert_eq!(eval_int(Opcode::UintMod, &[max, 10]), Some(5));
        assert_eq!(eval_int(Opcode::UintRshift, &[max, 63]), Some(1));
        assert_eq!(eval_int(Opcode::UintAdd, &[max, 1]), Some(0));
        assert_eq!(eval_int(Opcode::UintFloordiv, &[1, 0]), None);
        assert_eq!(eval_int(Opcode::CastUintToInt, &[max]), Some(-1));
    }

    #[test]
    fn float_operations_on_words_follow_python() {
        let w = |x: f64| x.to_bits();
        let f = |bits: Option<u64>| f64::from_bits(bits.unwrap());
        assert_eq!(f(eval_float(Opcode::FloatPyMod, &[w(-7.5), w(2.0)])), 0.5);
        assert_eq!(f(eval_float(Opcode::FloatPyDiv, &[w(-7.5), w(2.0)])), -4.0);
        assert_eq!(
            eval_float(Opcode::CastFloatToInt, &[w(-2.7)]),
            Some(-2i64 as u64)
        );
        assert_eq!(f(eval_float(Opcode::CastIntToFloat, &[-3i64 as u64])), -3.0);
        assert_eq!(eval_float(Opcode::FloatLt, &[w(1.0), w(2.0)]), Some(1));
        assert_eq!(eval_float(Opcode::IntAdd, &[1, 2]), None);
    }

    #[test]
    fn python_division_floors() {
        assert_eq!(py_div(7, 2), Some(3));
        assert_eq!(py_div(-7, 2), Some(-4));
        assert_eq!(py_div(7, -2), Some(-4));
        assert_eq!(py_div(-7, -2), Some(3));
        assert_eq!(py_mod(-7, 2), Some(1));
        assert_eq!(py_mod(7, -2), Some(-1));
        assert_eq!(py_div(i64::MIN, -1), None);
        assert_eq!(py_div(1, 0), None);
    }

    #[test]
    fn python_float_division_floors_like_cpython() {
        assert_eq!(py_float_div(1.0, 0.1), 9.0);
        assert_eq!(py_float_div(7.5, 2.0), 3.0);
        assert_eq!(py_float_div(-7.5, 2.0), -4.0);
        assert_eq!(py_float_div(7.5, -2.0), -4.0);
        assert!(py_float_div(-0.5, 2.0) == -1.0);
        assert!(py_float_div(0.0, -2.0).is_sign_negative());
    }

    #[test]
    fn every_primitive_op_has_a_result_type() {
        for op in LL_OPS {
            let args: Vec<LowLevelType> = match &op.sig {
                IntBinary | IntCompare => vec![LowLevelType::Signed; 2],
                IntUnary => vec![LowLevelType::Signed],
                FloatBinary | FloatCompare => vec![LowLevelType::Float; 2],
                FloatUnary => vec![LowLevelType::Float],
                CharCompare => vec![LowLevelType::Char; 2],
                UintBinary | UintCompare => vec![LowLevelType::Unsigned; 2],
                UintUnary => vec![LowLevelType::Unsigned],
                UintShift => vec![LowLevelType::Unsigned, LowLevelType::Signed],
                Cast(from, _) => vec![from.clone()],
                Special => continue,
            };
            assert!(result_type(op.opcode, &args).is_some(), "{}", op.name());
        }
    }
}

/// The collectors a program can be translated with (`rpy translate --gc=NAME`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GcKind {
    /// No collector: objects are never freed (bump allocation in chunks).
    None,
    /// The precise generational collector of the C runtime: a bump-pointer
    /// nursery with copying minor collections, a mark-and-sweep old generation.
    #[default]
    Generational,
}

impl GcKind {
    pub const ALL: [GcKind; 2] = [GcKind::None, GcKind::Generational];

    pub fn name(self) -> &'static str {
        match self {
            GcKind::None => "none",
            GcKind::Generational => "generational",
        }
    }

    pub fn from_name(name: &str) -> Option<GcKind> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

//! The low-level operations: what each takes and yields, whether it is pure,
//! and the meaning of the integer ones.
//!
//! This table is the contract between the rtyper (which emits these operations),
//! the optimizers (which rewrite them), the LLInterpreter and the C backend
//! (which execute them). `eval_int` is the one definition of integer semantics:
//! the LLInterpreter, constant folding and the rule checks all call it.

use crate::lltype::LowLevelType;
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

#[derive(Clone, Debug)]
pub struct LlOp {
    pub name: &'static str,
    pub sig: Signature,
    /// No side effect and no dependence on memory: may be folded, reordered,
    /// deduplicated or removed when unused.
    pub pure: bool,
}

macro_rules! ops {
    ($($name:literal => $sig:expr, $pure:literal;)*) => {
        pub const LL_OPS: &[LlOp] = &[$(LlOp { name: $name, sig: $sig, pure: $pure }),*];
    };
}

use Signature::*;
ops! {
    "int_add" => IntBinary, true;
    "int_sub" => IntBinary, true;
    "int_mul" => IntBinary, true;
    // C division: truncates toward zero. Python's floor division is int_py_div.
    "int_floordiv" => IntBinary, true;
    "int_mod" => IntBinary, true;
    "int_py_div" => IntBinary, true;
    "int_py_mod" => IntBinary, true;
    "int_and" => IntBinary, true;
    "int_or" => IntBinary, true;
    "int_xor" => IntBinary, true;
    "int_lshift" => IntBinary, true;
    "int_rshift" => IntBinary, true;
    "int_neg" => IntUnary, true;
    "int_invert" => IntUnary, true;
    "int_abs" => IntUnary, true;
    "int_lt" => IntCompare, true;
    "int_le" => IntCompare, true;
    "int_eq" => IntCompare, true;
    "int_ne" => IntCompare, true;
    "int_gt" => IntCompare, true;
    "int_ge" => IntCompare, true;
    "int_is_true" => Cast(LowLevelType::Signed, LowLevelType::Bool), true;
    "bool_not" => Cast(LowLevelType::Bool, LowLevelType::Bool), true;
    "cast_bool_to_int" => Cast(LowLevelType::Bool, LowLevelType::Signed), true;
    "cast_bool_to_float" => Cast(LowLevelType::Bool, LowLevelType::Float), true;
    "cast_int_to_float" => Cast(LowLevelType::Signed, LowLevelType::Float), true;
    "cast_float_to_int" => Cast(LowLevelType::Float, LowLevelType::Signed), true;
    "cast_char_to_int" => Cast(LowLevelType::Char, LowLevelType::Signed), true;
    "cast_int_to_char" => Cast(LowLevelType::Signed, LowLevelType::Char), true;
    // r_uint: the same words as Signed, read as unsigned (PyPy's uint_* names).
    "uint_add" => UintBinary, true;
    "uint_sub" => UintBinary, true;
    "uint_mul" => UintBinary, true;
    "uint_floordiv" => UintBinary, true;
    "uint_mod" => UintBinary, true;
    "uint_and" => UintBinary, true;
    "uint_or" => UintBinary, true;
    "uint_xor" => UintBinary, true;
    "uint_lshift" => UintShift, true;
    "uint_rshift" => UintShift, true;
    "uint_invert" => UintUnary, true;
    "uint_lt" => UintCompare, true;
    "uint_le" => UintCompare, true;
    "uint_eq" => UintCompare, true;
    "uint_ne" => UintCompare, true;
    "uint_gt" => UintCompare, true;
    "uint_ge" => UintCompare, true;
    "uint_is_true" => Cast(LowLevelType::Unsigned, LowLevelType::Bool), true;
    "cast_int_to_uint" => Cast(LowLevelType::Signed, LowLevelType::Unsigned), true;
    "cast_uint_to_int" => Cast(LowLevelType::Unsigned, LowLevelType::Signed), true;
    "cast_bool_to_uint" => Cast(LowLevelType::Bool, LowLevelType::Unsigned), true;
    "cast_uint_to_float" => Cast(LowLevelType::Unsigned, LowLevelType::Float), true;
    "cast_float_to_uint" => Cast(LowLevelType::Float, LowLevelType::Unsigned), true;
    "float_add" => FloatBinary, true;
    "float_sub" => FloatBinary, true;
    "float_mul" => FloatBinary, true;
    "float_truediv" => FloatBinary, true;
    "float_py_div" => FloatBinary, true;
    "float_py_mod" => FloatBinary, true;
    "float_neg" => FloatUnary, true;
    "float_abs" => FloatUnary, true;
    "float_lt" => FloatCompare, true;
    "float_le" => FloatCompare, true;
    "float_eq" => FloatCompare, true;
    "float_ne" => FloatCompare, true;
    "float_gt" => FloatCompare, true;
    "float_ge" => FloatCompare, true;
    "float_is_true" => Cast(LowLevelType::Float, LowLevelType::Bool), true;
    "char_eq" => CharCompare, true;
    "char_ne" => CharCompare, true;
    "char_lt" => CharCompare, true;
    "char_le" => CharCompare, true;
    "char_gt" => CharCompare, true;
    "char_ge" => CharCompare, true;
    // same_as(x): x itself; the result type is x's.
    "same_as" => Special, true;
    // malloc(Name(T)) -> Ptr(T); malloc_varsize(Name(T), n) -> Ptr(T) with n items.
    "malloc" => Special, false;
    "malloc_varsize" => Special, false;
    // getfield(p, Name(f)); setfield(p, Name(f), v).
    "getfield" => Special, false;
    "setfield" => Special, false;
    // Items of a GcArray or of a varsized GcStruct: getarrayitem(p, i), setarrayitem(p, i, v),
    // getarraysize(p) (the `length` field).
    "getarrayitem" => Special, false;
    "setarrayitem" => Special, false;
    "getarraysize" => Special, false;
    // direct_call(Func(graph) | Builtin(runtime function), args...).
    "direct_call" => Special, false;
    // indirect_call(f, args...): a call through a function pointer (`FuncPtr`).
    "indirect_call" => Special, false;
    // cast_pointer(p): p as a pointer to another part of the same object
    // (an instance as its base class or back); the result's type says which.
    "cast_pointer" => Special, true;
    // Pointer identity and nullness (GC and function pointers alike).
    "ptr_eq" => Special, true;
    "ptr_ne" => Special, true;
    "ptr_iszero" => Special, true;
    "ptr_nonzero" => Special, true;
    // int_between(a, x, b): a <= x < b (Bool); how a caught exception's class
    // id is tested against a handler's subclass range.
    "int_between" => Special, true;
    // jit_marker(Name(kind), driver, K, live values...) -> Void: a JitDriver's
    // `jit_merge_point` or `can_enter_jit` (kind) with the loop's variables,
    // its K greens first, then its reds. Nothing at run time without a JIT; kept (not pure) so
    // that the JIT's codewriter finds the interpreter's loop.
    "jit_marker" => Special, false;
    // jit_promote(x) -> x: `jit.promote(x)`. x itself without a JIT; the
    // tracer guards x's value (`guard_value`) and the trace goes on with
    // it as a constant. Kept (not pure), or the hint would be folded away
    // before the JIT's codewriter sees it.
    "jit_promote" => Special, false;
    // The global exception state of a program after `exceptiontransform`
    // (the original's exception data: a class and an instance, both null
    // when no exception is pending).
    // exc_occurred() -> Bool: whether an exception is pending.
    "exc_occurred" => Special, false;
    // exc_type() -> Ptr(object_vtable): the pending exception's class.
    "exc_type" => Special, false;
    // exc_value() -> Ptr(object): the pending exception instance.
    "exc_value" => Special, false;
    // exc_set(etype, evalue) -> Void: raise: the exception becomes pending.
    "exc_set" => Special, false;
    // exc_clear() -> Void: the pending exception was caught.
    "exc_clear" => Special, false;
    // The GC's operations, inserted by `gctransform` (absent with `--gc=none`).
    // gc_save_root(Int(k), p) -> Void: p is stored in slot k of the graph's
    // shadow-stack frame, where the collector finds it (and updates it when
    // it moves the object) during the collecting operation that follows.
    "gc_save_root" => Special, false;
    // gc_reload(Int(k), p) -> Ptr: p as the collector left it in slot k
    // (the same object, perhaps at a new address); p itself must not be
    // used after a collection, so it is named only to say which value this is.
    "gc_reload" => Special, false;
    // gc_write_barrier(p) -> Void: p, which may be an old object, is about
    // to get a GC pointer stored in it; if it is old and not yet
    // remembered, the collector remembers it, so that the next minor
    // collection finds the young objects it points to.
    "gc_write_barrier" => Special, false;
    // gc_write_barrier_item(a, i) -> Void: item i of the array a, which may
    // be old, is about to get a GC pointer; a large old array only marks
    // the card of that item, so that the next minor collection scans that
    // card and not the whole array.
    "gc_write_barrier_item" => Special, false;
}

/// The operations that may raise an exception in a low-level graph: only
/// calls. An operation that raises in Python (`//` by zero, an index out of
/// range, a missing key) is lowered to a call of an ll helper that checks
/// and raises, where a handler catches it, so the exception transform and
/// the JIT only look at calls.
pub fn can_raise(name: &str) -> bool {
    matches!(name, "direct_call" | "indirect_call")
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

/// The low-level types runtime functions take; `Str` is `Ptr(rpy_string)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtType {
    Void,
    Signed,
    Float,
    Bool,
    Char,
    Str,
    Unsigned,
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

pub fn lookup(name: &str) -> Option<&'static LlOp> {
    static INDEX: OnceLock<FxHashMap<&'static str, &'static LlOp>> = OnceLock::new();
    INDEX
        .get_or_init(|| {
            let mut index = FxHashMap::default();
            for op in LL_OPS {
                index.entry(op.name).or_insert(op);
            }
            index
        })
        .get(name)
        .copied()
}

/// The result type of a primitive operation applied to arguments of the given
/// types, or `None` when the types do not fit (or the op is `Special`).
pub fn result_type(name: &str, args: &[LowLevelType]) -> Option<LowLevelType> {
    use LowLevelType as T;
    let op = lookup(name)?;
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
        Special if name == "same_as" && args.len() == 1 => Some(args[0].clone()),
        Special
            if matches!(name, "ptr_eq" | "ptr_ne")
                && args.len() == 2
                && args.iter().all(is_pointer) =>
        {
            Some(T::Bool)
        }
        Special if name == "int_between" && all(&T::Signed, 3) => Some(T::Bool),
        Special
            if matches!(name, "ptr_iszero" | "ptr_nonzero")
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
pub fn int_signature(name: &str) -> Option<(Vec<bool>, bool)> {
    let op = lookup(name)?;
    if !op.pure {
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

/// Whether the pure integer operation `opname` is defined for every input
/// (division, modulo and shifts are not: see [`eval_int`]), so that it may
/// be computed wherever its arguments are, even where the program would
/// not have reached it.
/// The runtime function of `gc.collect()`: the one runtime function that
/// collects.
pub const GC_COLLECT_NOW: &str = "rpy_gc_collect_now";

/// Whether operation `op` itself may start a collection (a call of a
/// program graph may too, through what it runs): an allocation, or
/// `gc.collect()`. After one, the collector may move young objects and run
/// the program's destructors and GC hooks.
pub fn starts_collection(op: &crate::graph::SpaceOperation) -> bool {
    use crate::graph::{Arg, Constant};
    match op.opname.as_str() {
        "malloc" | "malloc_varsize" => true,
        "direct_call" => matches!(
            op.args.first(),
            Some(Arg::Const(Constant::Builtin(f))) if f == GC_COLLECT_NOW
        ),
        _ => false,
    }
}

pub fn defined_for_every_input(opname: &str) -> bool {
    !(opname.contains("div") || opname.contains("mod") || opname.contains("shift"))
}

/// The value of a pure integer operation (Bool results as 0/1, Bool arguments
/// as 0/1). `None` when the operation is not an integer one, or its result is
/// undefined for these arguments (division by zero, `MIN / -1`, a shift count
/// outside 0..64): those cases are never rewritten or folded.
pub fn eval_int(name: &str, args: &[i64]) -> Option<i64> {
    let b = |c: bool| Some(c as i64);
    match (name, args) {
        ("int_add", &[x, y]) => Some(x.wrapping_add(y)),
        ("int_sub", &[x, y]) => Some(x.wrapping_sub(y)),
        ("int_mul", &[x, y]) => Some(x.wrapping_mul(y)),
        ("int_floordiv", &[x, y]) => x.checked_div(y),
        ("int_mod", &[x, y]) => x.checked_rem(y),
        ("int_py_div", &[x, y]) => py_div(x, y),
        ("int_py_mod", &[x, y]) => py_mod(x, y),
        ("int_and", &[x, y]) => Some(x & y),
        ("int_or", &[x, y]) => Some(x | y),
        ("int_xor", &[x, y]) => Some(x ^ y),
        ("int_lshift", &[x, y]) if (0..64).contains(&y) => Some(x.wrapping_shl(y as u32)),
        ("int_rshift", &[x, y]) if (0..64).contains(&y) => Some(x >> y),
        ("int_neg", &[x]) => Some(x.wrapping_neg()),
        ("int_invert", &[x]) => Some(!x),
        ("int_abs", &[x]) => Some(x.wrapping_abs()),
        ("int_lt", &[x, y]) => b(x < y),
        ("int_le", &[x, y]) => b(x <= y),
        ("int_eq", &[x, y]) => b(x == y),
        ("int_ne", &[x, y]) => b(x != y),
        ("int_gt", &[x, y]) => b(x > y),
        ("int_ge", &[x, y]) => b(x >= y),
        ("int_is_true", &[x]) => b(x != 0),
        ("bool_not", &[x]) => b(x == 0),
        ("cast_bool_to_int", &[x]) | ("same_as", &[x]) => Some(x),
        ("int_between", &[lo, x, hi]) => b(lo <= x && x < hi),
        (name, args) if name.contains("uint") => eval_uint(name, args),
        _ => None,
    }
}

/// A float operation on words (a Float is its bits; an int a word); `None`
/// for a name that is not one. The executables' JIT runs float operations
/// with it; the LLInterpreter compiles its own (`llinterp::code`), which
/// must agree.
pub fn eval_float(name: &str, args: &[u64]) -> Option<u64> {
    let f = |i: usize| f64::from_bits(args[i]);
    let fw = |x: f64| Some(x.to_bits());
    let b = |c: bool| Some(c as u64);
    Some(match (name, args.len()) {
        ("float_add", 2) => return fw(f(0) + f(1)),
        ("float_sub", 2) => return fw(f(0) - f(1)),
        ("float_mul", 2) => return fw(f(0) * f(1)),
        ("float_truediv", 2) => return fw(f(0) / f(1)),
        ("float_py_div", 2) => return fw(py_float_div(f(0), f(1))),
        ("float_py_mod", 2) => {
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
        ("float_neg", 1) => return fw(-f(0)),
        ("float_abs", 1) => return fw(f(0).abs()),
        ("float_lt", 2) => return b(f(0) < f(1)),
        ("float_le", 2) => return b(f(0) <= f(1)),
        ("float_eq", 2) => return b(f(0) == f(1)),
        ("float_ne", 2) => return b(f(0) != f(1)),
        ("float_gt", 2) => return b(f(0) > f(1)),
        ("float_ge", 2) => return b(f(0) >= f(1)),
        ("float_is_true", 1) => return b(f(0) != 0.0),
        ("cast_bool_to_float", 1) | ("cast_int_to_float", 1) => (args[0] as i64 as f64).to_bits(),
        ("cast_uint_to_float", 1) => (args[0] as f64).to_bits(),
        // C's conversion, as GenC's cast (saturating where C is undefined).
        ("cast_float_to_int", 1) => f(0) as i64 as u64,
        ("cast_float_to_uint", 1) => f(0) as u64,
        _ => return None,
    })
}

/// The unsigned operations of `eval_int`: an Unsigned value is the same
/// 64-bit word as a Signed one, read as `u64`.
fn eval_uint(name: &str, args: &[i64]) -> Option<i64> {
    let u = |x: i64| x as u64;
    let w = |x: u64| Some(x as i64);
    let b = |c: bool| Some(c as i64);
    match (name, args) {
        ("uint_add", &[x, y]) => w(u(x).wrapping_add(u(y))),
        ("uint_sub", &[x, y]) => w(u(x).wrapping_sub(u(y))),
        ("uint_mul", &[x, y]) => w(u(x).wrapping_mul(u(y))),
        ("uint_floordiv", &[x, y]) => w(u(x).checked_div(u(y))?),
        ("uint_mod", &[x, y]) => w(u(x).checked_rem(u(y))?),
        ("uint_and", &[x, y]) => Some(x & y),
        ("uint_or", &[x, y]) => Some(x | y),
        ("uint_xor", &[x, y]) => Some(x ^ y),
        ("uint_lshift", &[x, y]) if (0..64).contains(&y) => w(u(x) << y),
        ("uint_rshift", &[x, y]) if (0..64).contains(&y) => w(u(x) >> y),
        ("uint_invert", &[x]) => Some(!x),
        ("uint_lt", &[x, y]) => b(u(x) < u(y)),
        ("uint_le", &[x, y]) => b(u(x) <= u(y)),
        ("uint_eq", &[x, y]) => b(x == y),
        ("uint_ne", &[x, y]) => b(x != y),
        ("uint_gt", &[x, y]) => b(u(x) > u(y)),
        ("uint_ge", &[x, y]) => b(u(x) >= u(y)),
        ("uint_is_true", &[x]) => b(x != 0),
        ("cast_uint_to_int" | "cast_int_to_uint" | "cast_bool_to_uint", &[x]) => Some(x),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsigned_operations_read_the_word_as_u64() {
        let max = -1i64; // 2**64 - 1 as an Unsigned word
        assert_eq!(eval_int("uint_lt", &[1, max]), Some(1));
        assert_eq!(eval_int("int_lt", &[1, max]), Some(0));
        assert_eq!(eval_int("uint_floordiv", &[max, 2]), Some(i64::MAX));
        assert_eq!(eval_int("uint_mod", &[max, 10]), Some(5));
        assert_eq!(eval_int("uint_rshift", &[max, 63]), Some(1));
        assert_eq!(eval_int("uint_add", &[max, 1]), Some(0));
        assert_eq!(eval_int("uint_floordiv", &[1, 0]), None);
        assert_eq!(eval_int("cast_uint_to_int", &[max]), Some(-1));
    }

    #[test]
    fn float_operations_on_words_follow_python() {
        let w = |x: f64| x.to_bits();
        let f = |bits: Option<u64>| f64::from_bits(bits.unwrap());
        assert_eq!(f(eval_float("float_py_mod", &[w(-7.5), w(2.0)])), 0.5);
        assert_eq!(f(eval_float("float_py_div", &[w(-7.5), w(2.0)])), -4.0);
        assert_eq!(
            eval_float("cast_float_to_int", &[w(-2.7)]),
            Some(-2i64 as u64)
        );
        assert_eq!(f(eval_float("cast_int_to_float", &[-3i64 as u64])), -3.0);
        assert_eq!(eval_float("float_lt", &[w(1.0), w(2.0)]), Some(1));
        assert_eq!(eval_float("int_add", &[1, 2]), None);
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
            assert!(result_type(op.name, &args).is_some(), "{}", op.name);
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

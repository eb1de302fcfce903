//! What each operation may raise, in RPython: the one table the flow
//! builder gives exception exits by and the annotator computes what
//! handlers receive from.

use super::builtins::BuiltinType;
use super::rlib::UNTRANSLATED_HINTS;
use rpy_ir::opcode::Opcode;

/// What an operand is, as far as what an operation raises depends on it.
/// The flow builder knows only constants; the annotator knows more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand<'a> {
    /// Nothing is known of it (a variable, to the flow builder).
    Unknown,
    /// A dict: indexing it raises KeyError.
    Dict,
    /// Some other known kind of value (a list, tuple, string, number...):
    /// indexing it raises IndexError.
    Other,
    /// A number known not to be zero: dividing by it cannot fail.
    NonZero,
    /// A builtin function, by name.
    Builtin(&'a str),
    /// A builtin type's method bound to its receiver.
    Method(BuiltinType, &'a str),
    /// A builtin class: building an exception runs no code of the program.
    BuiltinClass,
    /// A function or class of the program: calling it runs its code.
    Program,
}

/// What an operation may raise by itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Raises {
    Nothing,
    /// Exceptions of these builtin classes (or their subclasses).
    Only(&'static [&'static str]),
    /// What the called code of the program raises (the annotator follows
    /// the call; the flow builder takes it as anything).
    Callee,
    /// Anything: nothing is known of what it may raise.
    Anything,
}

/// What the operation `opname` may raise by itself on `operands`, in
/// RPython: the one table the flow builder gives exception exits by and
/// the annotator computes what handlers receive from. An operation on
/// ints or strings that cannot fail raises nothing; an operation not
/// listed may raise anything.
pub fn operation_raises(opname: Opcode, operands: &[Operand]) -> Raises {
    use Operand as O;
    const NOTHING: Raises = Raises::Nothing;
    match (opname, operands) {
        // Arithmetic on a value the flow builder knows nothing of may be
        // `1 + "a"` (TypeError), a shift by a negative count (ValueError),
        // a division by zero, or a `%` format that fails in any way:
        // import-time code in a `try` must see it. Annotated operands are
        // never `Unknown`: to the annotator, arithmetic on ints, floats and
        // strings raises only what the rules below say.
        (
            Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::And
            | Opcode::Or
            | Opcode::Xor
            | Opcode::Neg
            | Opcode::Pos
            | Opcode::Invert
            | Opcode::Abs,
            _,
        ) if operands.contains(&O::Unknown) => Raises::Only(&["TypeError"]),
        (Opcode::Lshift | Opcode::Rshift, _) if operands.contains(&O::Unknown) => {
            Raises::Only(&["TypeError", "ValueError"])
        }
        (Opcode::Div | Opcode::Truediv | Opcode::Floordiv, [O::Unknown, O::NonZero]) => {
            Raises::Only(&["TypeError"])
        }
        (Opcode::Div | Opcode::Truediv | Opcode::Floordiv, _) if operands.contains(&O::Unknown) => {
            Raises::Only(&["TypeError", "ZeroDivisionError"])
        }
        (Opcode::Mod, _) if operands.contains(&O::Unknown) => Raises::Anything,
        (Opcode::Pow, _) if operands.contains(&O::Unknown) => Raises::Only(&[
            "TypeError",
            "ZeroDivisionError",
            "ValueError",
            "OverflowError",
        ]),
        // `3 in 5`: a number is no container.
        (Opcode::Contains, [O::NonZero, _]) => Raises::Only(&["TypeError"]),
        // Dividing by a number known not to be zero cannot fail.
        (Opcode::Div | Opcode::Truediv | Opcode::Floordiv | Opcode::Mod, [_, O::NonZero]) => {
            NOTHING
        }
        (Opcode::Div | Opcode::Truediv | Opcode::Floordiv | Opcode::Mod, _) => {
            Raises::Only(&["ZeroDivisionError"])
        }
        // A comparison (or `in`) of values the flow builder knows nothing
        // of may run a class's `__eq__`/`__lt__` (which may raise
        // anything), compare `1 < "a"` (TypeError in Python 3) or walk
        // data nested too deep (RecursionError): import-time code in a
        // `try` must see it. Of annotated operands (never `Unknown`) it
        // raises nothing, unless a special method runs (the annotator
        // asks the method's graph).
        (
            Opcode::Lt
            | Opcode::Le
            | Opcode::Eq
            | Opcode::Ne
            | Opcode::Gt
            | Opcode::Ge
            | Opcode::Contains,
            _,
        ) if operands.contains(&O::Unknown) => Raises::Anything,
        // So may `str`, `repr` and `hash` of such a value (a class's
        // `__str__`, a list nested too deep to print).
        (Opcode::SimpleCall, [O::Builtin("str" | "repr" | "hash"), rest @ ..])
            if rest.contains(&O::Unknown) =>
        {
            Raises::Anything
        }
        // `0 ** -1`, `(-8.0) ** 0.5` (Python 2), `10.0 ** 400`.
        (Opcode::Pow, _) => Raises::Only(&["ZeroDivisionError", "ValueError", "OverflowError"]),
        (
            Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::And
            | Opcode::Or
            | Opcode::Xor
            | Opcode::Lshift
            | Opcode::Rshift
            | Opcode::Neg
            | Opcode::Pos
            | Opcode::Invert
            | Opcode::Not
            | Opcode::Bool
            | Opcode::Abs
            | Opcode::Lt
            | Opcode::Le
            | Opcode::Eq
            | Opcode::Ne
            | Opcode::Gt
            | Opcode::Ge
            | Opcode::Is
            | Opcode::Contains
            | Opcode::PrintItem
            | Opcode::PrintNewline
            | Opcode::Newlist
            | Opcode::Newtuple
            | Opcode::Newdict
            | Opcode::Iter
            | Opcode::Getattr
            | Opcode::Setattr
            | Opcode::Getslice
            | Opcode::Setslice
            | Opcode::Delslice
            | Opcode::JitMarker,
            _,
        ) => NOTHING,
        (Opcode::FloordivOvf | Opcode::ModOvf, _) => {
            Raises::Only(&["OverflowError", "ZeroDivisionError"])
        }
        (op, _) if op.without_overflow_check().is_some() => Raises::Only(&["OverflowError"]),
        // A class's `__setitem__` may raise what `__getitem__` may.
        (Opcode::Getitem | Opcode::Setitem | Opcode::Delitem, [O::Dict, ..]) => {
            Raises::Only(&["KeyError"])
        }
        // Indexing a value nothing is known of may run a class's
        // `__getitem__` (anything), or compare a key with a dict's keys
        // (RecursionError for tuples nested too deep), at import time.
        (Opcode::Getitem | Opcode::Setitem | Opcode::Delitem, [O::Unknown, ..]) => Raises::Anything,
        (Opcode::Getitem | Opcode::Setitem | Opcode::Delitem, _) => Raises::Only(&["IndexError"]),
        (Opcode::Next, _) => Raises::Only(&["StopIteration"]),
        (Opcode::SimpleCall, [O::Builtin(name), ..]) => builtin_raises(name),
        (Opcode::SimpleCall, [O::Method(ty, name), ..]) => method_raises(*ty, name),
        (Opcode::SimpleCall, [O::BuiltinClass, ..]) => NOTHING,
        (Opcode::SimpleCall, [O::Program, ..]) => Raises::Callee,
        _ => Raises::Anything,
    }
}

/// What calling the builtin function `name` may raise.
fn builtin_raises(name: &str) -> Raises {
    match name {
        // `range(0, 9, 0)` and `min([])` raise ValueError too.
        "int" | "float" | "chr" | "unichr" | "range" | "xrange" | "min" | "max" => {
            Raises::Only(&["ValueError"])
        }
        "len" | "str" | "repr" | "bool" | "abs" | "ord" | "list" | "enumerate" | "zip"
        | "reversed" | "intmask" | "widen" | "r_uint" | "r_int" | "r_longlong" | "r_ulonglong"
        | "ovfcheck" | "we_are_translated" | "we_are_jitted" | "promote" | "promote_string"
        | "hint" | "isconstant" | "isvirtual" | "isinstance" | "issubclass" | "type" | "hash"
        | "hex" | "oct" => Raises::Nothing,
        n if UNTRANSLATED_HINTS.contains(&n) => Raises::Nothing,
        // The standard modules: math's domain and range errors, the
        // system calls' OSError; the clocks and the pure path functions
        // cannot fail.
        "math.isinf" | "math.isnan" | "math.isfinite" | "math.copysign" | "math.atan2"
        | "math.degrees" | "math.radians" | "math.fabs" => Raises::Nothing,
        n if n.starts_with("math.") => Raises::Only(&["ValueError", "OverflowError"]),
        "time.time" | "time.clock" | "time.perf_counter" | "time.process_time"
        | "time.monotonic" | "time.sleep" | "os.getpid" | "os.isatty" | "os.getenv"
        | "os.strerror" | "os.path.join" | "os.path.dirname" | "os.path.basename"
        | "os.path.exists" | "os.path.isdir" | "os.path.isfile" | "gc.collect" | "gc.enable"
        | "gc.disable" | "gc.isenabled" => Raises::Nothing,
        n if n.starts_with("os.") => Raises::Only(&["OSError"]),
        _ => Raises::Anything,
    }
}

/// What calling the method `name` of a builtin type may raise.
fn method_raises(ty: BuiltinType, name: &str) -> Raises {
    use BuiltinType as T;
    match (ty, name) {
        (T::List, "pop") => Raises::Only(&["IndexError"]),
        (T::List, "index" | "remove") => Raises::Only(&["ValueError"]),
        (T::Dict, "pop") => Raises::Only(&["KeyError"]),
        (
            T::List | T::Dict,
            "append" | "insert" | "extend" | "reverse" | "count" | "keys" | "values" | "items"
            | "iterkeys" | "itervalues" | "iteritems" | "get" | "clear" | "copy" | "setdefault",
        )
        | (
            T::Str,
            "join" | "strip" | "lstrip" | "rstrip" | "lower" | "upper" | "startswith" | "endswith"
            | "find" | "rfind" | "count" | "replace" | "isdigit" | "isalpha" | "isspace"
            | "isalnum" | "isupper" | "islower",
        ) => Raises::Nothing,
        _ => Raises::Anything,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_indexing_raises_depends_on_what_is_known_of_the_receiver() {
        use Operand as O;
        let getitem = |receiver| operation_raises(Opcode::Getitem, &[receiver, O::Unknown]);
        assert_eq!(getitem(O::Dict), Raises::Only(&["KeyError"]));
        assert_eq!(getitem(O::Other), Raises::Only(&["IndexError"]));
        assert_eq!(getitem(O::Unknown), Raises::Anything);
        // Dividing a number by a non-zero one (`x // 2` of an annotated
        // int); of a value nothing is known of, see the arithmetic test.
        assert_eq!(
            operation_raises(Opcode::Floordiv, &[O::Other, O::NonZero]),
            Raises::Nothing
        );
        assert_eq!(
            operation_raises(Opcode::SimpleCall, &[O::Program]),
            Raises::Callee
        );
        assert_eq!(
            operation_raises(Opcode::SimpleCall, &[O::Unknown]),
            Raises::Anything
        );
        assert_eq!(operation_raises(Opcode::SimpleCall, &[]), Raises::Anything);
    }

    #[test]
    fn arithmetic_raises_type_error_only_of_values_nothing_is_known_of() {
        use Operand as O;
        for op in [
            Opcode::Add,
            Opcode::Sub,
            Opcode::Mul,
            Opcode::And,
            Opcode::Xor,
        ] {
            // The flow builder's variable: `1 + "a"` at import time.
            assert_eq!(
                operation_raises(op, &[O::Unknown, O::NonZero]),
                Raises::Only(&["TypeError"])
            );
            // The annotator's ints and strings.
            assert_eq!(operation_raises(op, &[O::Other, O::Other]), Raises::Nothing);
        }
        assert_eq!(
            operation_raises(Opcode::Neg, &[O::Unknown]),
            Raises::Only(&["TypeError"])
        );
        assert_eq!(
            operation_raises(Opcode::Lshift, &[O::Unknown, O::Other]),
            Raises::Only(&["TypeError", "ValueError"])
        );
        assert_eq!(
            operation_raises(Opcode::Floordiv, &[O::Unknown, O::NonZero]),
            Raises::Only(&["TypeError"])
        );
        assert_eq!(
            operation_raises(Opcode::Floordiv, &[O::Other, O::Other]),
            Raises::Only(&["ZeroDivisionError"])
        );
        assert_eq!(
            operation_raises(Opcode::Floordiv, &[O::Other, O::NonZero]),
            Raises::Nothing
        );
        assert_eq!(
            operation_raises(Opcode::Mod, &[O::Unknown, O::NonZero]),
            Raises::Anything
        );
        // The checked operation raises what it did.
        assert_eq!(
            operation_raises(Opcode::AddOvf, &[O::Unknown, O::Unknown]),
            Raises::Only(&["OverflowError"])
        );
    }

    #[test]
    fn a_number_is_no_container() {
        use Operand as O;
        assert_eq!(
            operation_raises(Opcode::Contains, &[O::NonZero, O::NonZero]),
            Raises::Only(&["TypeError"])
        );
        assert_eq!(
            operation_raises(Opcode::Contains, &[O::Other, O::NonZero]),
            Raises::Nothing
        );
    }

    #[test]
    fn a_comparison_raises_only_of_values_nothing_is_known_of() {
        use Operand as O;
        for op in [
            Opcode::Lt,
            Opcode::Le,
            Opcode::Eq,
            Opcode::Ne,
            Opcode::Gt,
            Opcode::Ge,
            Opcode::Contains,
        ] {
            // The flow builder's variable: a class's method may run.
            assert_eq!(
                operation_raises(op, &[O::Unknown, O::NonZero]),
                Raises::Anything
            );
            // The annotator's ints, strings, instances without the method.
            assert_eq!(operation_raises(op, &[O::Other, O::Other]), Raises::Nothing);
        }
        let call = |f, x| operation_raises(Opcode::SimpleCall, &[O::Builtin(f), x]);
        assert_eq!(call("repr", O::Unknown), Raises::Anything);
        assert_eq!(call("repr", O::Other), Raises::Nothing);
        assert_eq!(call("len", O::Unknown), Raises::Nothing);
    }
}

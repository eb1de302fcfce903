//! Exception classes as the annotator sees them: the class hierarchy (the
//! builtin exceptions' and the program's own classes'), and what each
//! function may raise, so that a handler around a call receives the classes
//! its callee raises (`SomeException` of their union) rather than just the
//! class it names.

use crate::flow::builtin_is_subclass;
use fxhash::FxHashMap;
use rpy_ir::annotation::{Desc, Known, SomeValue};
use rpy_ir::ast::Dialect;
use rpy_ir::graph::{Flow, PrebuiltObject, Program};
use std::cell::RefCell;
use std::collections::BTreeSet;

/// Which class derives from which.
#[derive(Debug, Default)]
pub struct Hierarchy {
    /// The bases of each class of the program, by qualified name.
    bases: FxHashMap<String, Vec<String>>,
    /// `is_subclass` of the program's classes, by class then ancestor, as
    /// answered so far: the walk up to the builtin classes is asked again
    /// for every method call (is `self` an exception?).
    answers: RefCell<FxHashMap<String, FxHashMap<String, bool>>>,
}

impl Hierarchy {
    pub fn new(program: &Program<Flow>) -> Hierarchy {
        let bases = program
            .prebuilt
            .iter()
            .filter_map(|p| match p {
                PrebuiltObject::Class { name, bases, .. } => Some((name.clone(), bases.clone())),
                _ => None,
            })
            .collect();
        Hierarchy {
            bases,
            answers: RefCell::default(),
        }
    }

    /// Is `class` `ancestor` or derived from it? A builtin class is looked
    /// up in both dialects' hierarchies (a program's graphs do not say which
    /// it was written in; the two differ only in StandardError and the
    /// OSError family, and each program names only its own dialect's).
    pub fn is_subclass(&self, class: &str, ancestor: &str) -> bool {
        if class == ancestor {
            return true;
        }
        match self.bases.get(class) {
            Some(bases) => {
                let known = self
                    .answers
                    .borrow()
                    .get(class)
                    .and_then(|a| a.get(ancestor).copied());
                known.unwrap_or_else(|| {
                    let answer = bases.iter().any(|b| self.is_subclass(b, ancestor));
                    self.answers
                        .borrow_mut()
                        .entry(class.to_string())
                        .or_default()
                        .insert(ancestor.to_string(), answer);
                    answer
                })
            }
            None => {
                builtin_is_subclass(class, ancestor, Dialect::Py2)
                    || builtin_is_subclass(class, ancestor, Dialect::Py3)
            }
        }
    }
}

/// What a function, or one operation, may raise.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Raised {
    /// The classes known to be raised.
    pub classes: BTreeSet<String>,
    /// Something whose class is not known may be raised too.
    pub unknown: bool,
}

impl Raised {
    pub fn of(classes: &[&str]) -> Raised {
        Raised {
            classes: classes.iter().map(|c| c.to_string()).collect(),
            unknown: false,
        }
    }

    pub fn unknown() -> Raised {
        Raised {
            classes: BTreeSet::new(),
            unknown: true,
        }
    }

    /// Adds `other`; true when that changed anything.
    pub fn extend(&mut self, other: &Raised) -> bool {
        let before = (self.classes.len(), self.unknown);
        self.classes.extend(other.classes.iter().cloned());
        self.unknown |= other.unknown;
        before != (self.classes.len(), self.unknown)
    }

    /// What a raised value of annotation `value` is.
    pub fn from_value(value: &SomeValue) -> Raised {
        match value {
            SomeValue::Exception(classes) => Raised {
                classes: classes.iter().cloned().collect(),
                unknown: false,
            },
            SomeValue::Pbc { descs, .. } if descs.iter().all(|d| matches!(d, Desc::Class(_))) => {
                Raised {
                    classes: descs
                        .iter()
                        .filter_map(|d| match d {
                            Desc::Class(c) => Some(c.clone()),
                            _ => None,
                        })
                        .collect(),
                    unknown: false,
                }
            }
            SomeValue::Impossible => Raised::default(),
            _ => Raised::unknown(),
        }
    }

    /// What is left of it once handlers for `caught` have run: the classes
    /// none of them surely catches.
    pub fn escaping(&self, caught: &[&str], hierarchy: &Hierarchy) -> Raised {
        Raised {
            classes: self
                .classes
                .iter()
                .filter(|c| !caught.iter().any(|h| hierarchy.is_subclass(c, h)))
                .cloned()
                .collect(),
            unknown: self.unknown,
        }
    }

    /// The classes a handler for `handler` receives of it: those derived
    /// from `handler`, and `handler` itself when a base of it or an unknown
    /// class may be raised (the instance may then be of any subclass, which
    /// `handler` stands for). Empty when nothing raised reaches the handler.
    pub fn received_by(&self, handler: &str, hierarchy: &Hierarchy) -> Vec<String> {
        let mut out: BTreeSet<String> = self
            .classes
            .iter()
            .filter(|c| hierarchy.is_subclass(c, handler))
            .cloned()
            .collect();
        let wider = self
            .classes
            .iter()
            .any(|c| c != handler && hierarchy.is_subclass(handler, c));
        if self.unknown || wider {
            out.insert(handler.to_string());
        }
        // A class and its subclass: the base covers both.
        let all: Vec<String> = out.iter().cloned().collect();
        out.retain(|c| !all.iter().any(|b| b != c && hierarchy.is_subclass(c, b)));
        out.into_iter().collect()
    }
}

/// What operation `opname` raises by itself (not through a call of the
/// program's functions) on arguments of these annotations, in RPython: an
/// operation on ints or strings that cannot fail raises nothing.
pub fn raised_by_operation(opname: &str, args: &[SomeValue]) -> Raised {
    use SomeValue as S;
    if let ("div" | "truediv" | "floordiv" | "mod" | "divmod", [_, divisor]) = (opname, args) {
        return match divisor.known() {
            Some(Known::Int(d)) if *d != 0 => Raised::default(),
            _ => Raised::of(&["ZeroDivisionError"]),
        };
    }
    // Only kinds no known value has are told apart here (a dict, a builtin,
    // a method, a prebuilt object), so the arguments need not be made general.
    match (opname, args) {
        (
            "add" | "sub" | "mul" | "and_" | "or_" | "xor" | "lshift" | "rshift" | "neg" | "pos"
            | "invert" | "not_" | "bool" | "abs" | "lt" | "le" | "eq" | "ne" | "gt" | "ge" | "is_"
            | "contains" | "print_item" | "print_newline" | "newlist" | "newtuple" | "newdict"
            | "iter" | "getattr",
            _,
        ) => Raised::default(),
        ("floordiv_ovf" | "mod_ovf", _) => Raised::of(&["OverflowError", "ZeroDivisionError"]),
        (op, _) if op.ends_with("_ovf") => Raised::of(&["OverflowError"]),
        ("getitem" | "setitem" | "delitem", [S::Dict(_), ..]) => Raised::of(&["KeyError"]),
        ("getitem" | "setitem" | "delitem", _) => Raised::of(&["IndexError"]),
        ("getslice" | "delslice", _) => Raised::default(),
        ("next", _) => Raised::of(&["StopIteration"]),
        ("simple_call", [S::Builtin(name), ..]) => match name.as_str() {
            "int" | "float" | "chr" | "unichr" => Raised::of(&["ValueError"]),
            "len" | "str" | "repr" | "bool" | "abs" | "ord" | "list" | "enumerate" | "zip"
            | "reversed" | "intmask" | "widen" | "r_uint" | "r_int" | "r_longlong"
            | "r_ulonglong" | "ovfcheck" | "we_are_translated" | "we_are_jitted" | "promote"
            | "promote_string" | "hint" | "isconstant" | "isvirtual" | "issubclass"
            | "debug_print" | "debug_start" | "debug_stop" => Raised::default(),
            _ => Raised::unknown(),
        },
        ("simple_call", [S::BuiltinMethod { name, receiver }, ..]) => {
            match (receiver.as_ref(), name.as_str()) {
                (S::List(_), "pop") => Raised::of(&["IndexError"]),
                (S::List(_), "index" | "remove") => Raised::of(&["ValueError"]),
                (S::Dict(_), "pop") => Raised::of(&["KeyError"]),
                (
                    S::List(_) | S::Dict(_),
                    "append" | "insert" | "extend" | "reverse" | "count" | "keys" | "values"
                    | "items" | "iterkeys" | "itervalues" | "iteritems" | "get" | "clear" | "copy"
                    | "setdefault",
                )
                | (
                    S::String { .. } | S::Char,
                    "join" | "strip" | "lstrip" | "rstrip" | "lower" | "upper" | "startswith"
                    | "endswith" | "find" | "rfind" | "count" | "replace" | "isdigit" | "isalpha"
                    | "isspace",
                ) => Raised::default(),
                // What is not known not to raise may raise anything.
                _ => Raised::unknown(),
            }
        }
        // Building a builtin exception raises nothing; calls of the
        // program's functions are the callee's business (`Annotator::raised`).
        ("simple_call", [S::Pbc { .. }, ..]) => Raised::default(),
        _ => Raised::unknown(),
    }
}

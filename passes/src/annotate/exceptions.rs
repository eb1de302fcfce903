//! Exception classes as the annotator sees them: the class hierarchy (the
//! builtin exceptions' and the program's own classes'), and what each
//! function may raise, so that a handler around a call receives the classes
//! its callee raises (`SomeException` of their union) rather than just the
//! class it names.

use crate::language::builtins::BuiltinType;
use crate::language::exceptions::builtin_is_subclass;
use crate::language::raises::{operation_raises, Operand, Raises};
use fxhash::FxHashMap;
use rpy_ir::annotation::{Desc, Known, SomeValue};
use rpy_ir::ast::Dialect;
use rpy_ir::graph::{Flow, PrebuiltObject, Program};
use rpy_ir::opcode::Opcode;
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

    /// The first base of a program class that is not a program class
    /// (`object`, or the builtin exception class it derives from).
    pub fn builtin_base(&self, class: &str) -> Option<&str> {
        self.bases
            .get(class)?
            .iter()
            .find(|b| !self.bases.contains_key(*b))
            .map(String::as_str)
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
        // Mostly it has them already: only a new class is copied.
        for c in &other.classes {
            if !self.classes.contains(c) {
                self.classes.insert(c.clone());
            }
        }
        self.unknown |= other.unknown;
        before != (self.classes.len(), self.unknown)
    }

    /// Whether nothing is raised.
    pub fn is_nothing(&self) -> bool {
        self.classes.is_empty() && !self.unknown
    }

    /// What a raised value of annotation `value` is.
    pub fn from_value(value: &SomeValue) -> Raised {
        match value {
            SomeValue::Exception { classes, .. } => Raised {
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
/// program's functions, `Annotator::raised`) on arguments of these
/// annotations: the flow builder's table (`language::raises`), told what the
/// annotations say of the operands.
pub fn raised_by_operation(opname: Opcode, args: &[SomeValue]) -> Raised {
    // A tuple read at a known index within its length (`a, b = t`): the
    // table cannot tell it from a list's, which may raise IndexError.
    if let (Opcode::Getitem, [SomeValue::Tuple(items), index]) = (opname, args) {
        if let Some(Known::Int(i)) = index.known() {
            let n = items.len() as i64;
            if (-n..n).contains(i) {
                return Raised::default();
            }
        }
    }
    // Only kinds no known value has are told apart (a dict, a builtin, a
    // method, a prebuilt object), so the arguments need not be made general.
    let operands: Vec<Operand> = args
        .iter()
        .map(|v| match v.known() {
            Some(Known::Int(d)) if *d != 0 => Operand::NonZero,
            _ => operand(v),
        })
        .collect();
    match operation_raises(opname, &operands) {
        Raises::Nothing | Raises::Callee => Raised::default(),
        Raises::Only(classes) => Raised::of(classes),
        Raises::Anything => Raised::unknown(),
    }
}

/// What the table of raised exceptions needs to know of an operand.
fn operand(v: &SomeValue) -> Operand<'_> {
    use SomeValue as S;
    match v {
        S::Dict(_) => Operand::Dict,
        S::Builtin(name) => Operand::Builtin(name),
        S::BuiltinMethod { name, receiver } => match receiver.as_ref() {
            S::List(_) => Operand::Method(BuiltinType::List, name),
            S::Dict(_) => Operand::Method(BuiltinType::Dict, name),
            S::String { .. } | S::Char => Operand::Method(BuiltinType::Str, name),
            _ => Operand::Other,
        },
        // Building a builtin exception raises nothing; calls of the
        // program's functions are the callee's business.
        S::Pbc { .. } => Operand::Program,
        _ => Operand::Other,
    }
}

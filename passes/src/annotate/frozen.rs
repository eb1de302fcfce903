//! Frozen prebuilt objects, the original's FrozenDesc: an instance built at
//! import time whose class has a `_freeze_` method returning True is not an
//! instance to the annotator but a prebuilt constant (`Desc::Frozen`), like
//! a function. Reading an attribute of one gives the attribute's value as a
//! constant (the union over every object the variable may hold), a method
//! read on one is bound to it (`Desc::FrozenMethod`), and storing into one
//! is an error: the translated program cannot change it.
//!
//! Interpreters use them for configuration and for the "space" object the
//! whole interpreter is written against: many attribute reads that fold to
//! constants, and no instance layout at run time.

use super::Annotator;
use rpy_ir::annotation::{user_class_name, Desc, SomeValue};
use rpy_ir::diag::{Diagnostic, Pos};
use rpy_ir::graph::{Arg, Constant, Flow, PrebuiltObject, Program};

/// The name a frozen object is known by: the one the flow graphs print
/// its constant with, so a message can be matched to the graph.
pub(super) fn frozen_name(index: u32) -> String {
    format!("&{index}")
}

pub(crate) fn frozen_index(name: &str) -> Option<u32> {
    name.strip_prefix('&')?.parse().ok()
}

impl<'p> Annotator<'p> {
    /// Whether instances of `class` are frozen: the class (or a base) has a
    /// `_freeze_` method, and every return of it returns True.
    pub(super) fn is_frozen_class(&self, class: &str) -> bool {
        // rlib's JitDriver (built in here) freezes itself, as in RPython.
        if class == "JitDriver" {
            return true;
        }
        let Some((_, Constant::Func(freeze))) = self.classdefs.class_attr(class, "_freeze_") else {
            return false;
        };
        let Some(&g) = self.graph_index.get(freeze.as_str()) else {
            return false;
        };
        let graph = self.graph(g);
        let mut returns = graph
            .blocks
            .iter()
            .flat_map(|b| &b.exits)
            .filter(|l| l.target == graph.returnblock)
            .peekable();
        returns.peek().is_some()
            && returns.all(|l| matches!(l.args.as_slice(), [Arg::Const(Constant::Bool(true))]))
    }

    /// `object.name` of a variable that holds one of the frozen objects
    /// `descs`: the union of what each holds there.
    pub(super) fn frozen_getattr(
        &mut self,
        g: usize,
        descs: &[Desc],
        name: &str,
        pos: Option<Pos>,
    ) -> Result<SomeValue, Diagnostic> {
        let mut result = SomeValue::Impossible;
        for desc in descs {
            let Desc::Frozen(object) = desc else {
                continue;
            };
            let value = self.frozen_attribute(g, object, name, pos)?;
            result = self.join(&result, &value).ok_or_else(|| {
                self.error(
                    g,
                    pos,
                    format!(
                        "attribute '{name}' of the prebuilt objects this variable may hold is {} \
                         in one and {} in another; RPython needs one type for it",
                        result.describe(),
                        value.describe()
                    ),
                )
            })?;
        }
        Ok(result)
    }

    /// Attribute `name` of the frozen object `object`: its own value, else
    /// its class's (a function there is a method bound to the object).
    fn frozen_attribute(
        &mut self,
        g: usize,
        object: &str,
        name: &str,
        pos: Option<Pos>,
    ) -> Result<SomeValue, Diagnostic> {
        let Some((class, attrs)) = self.frozen_object(object) else {
            return Err(self.error(g, pos, format!("unknown prebuilt object {object}")));
        };
        if let Some((_, c)) = attrs.iter().find(|(n, _)| n == name) {
            return Ok(self.constant(c));
        }
        match self.classdefs.class_attr(class, name) {
            Some((_, Constant::Func(func))) => Ok(SomeValue::Pbc {
                descs: [Desc::FrozenMethod {
                    object: object.to_string(),
                    func: func.clone(),
                }]
                .into(),
                can_be_none: false,
            }),
            Some((_, value)) => {
                let value = value.clone();
                Ok(self.constant(&value))
            }
            None => Err(self.error(
                g,
                pos,
                format!(
                    "the prebuilt object {object} (a frozen {}) has no attribute '{name}': \
                     it was not set before the program started and its class has none",
                    user_class_name(class)
                ),
            )),
        }
    }

    /// The error for `object.name = ...` on the frozen objects `descs`.
    pub(super) fn frozen_setattr_error(
        &self,
        g: usize,
        descs: &[Desc],
        name: &str,
        pos: Option<Pos>,
    ) -> Diagnostic {
        let objects: Vec<String> = descs
            .iter()
            .filter_map(|d| match d {
                Desc::Frozen(object) => Some(match self.frozen_object(object) {
                    Some((class, _)) => format!("a prebuilt {} ({object})", user_class_name(class)),
                    None => object.clone(),
                }),
                _ => None,
            })
            .collect();
        self.error(
            g,
            pos,
            format!(
                "cannot set attribute '{name}' of {}: its class's _freeze_ returns True, so it \
                 is a constant of the translated program; drop _freeze_ to make it a mutable \
                 prebuilt instance",
                objects.join(" or ")
            ),
        )
    }

    /// The class and attributes of the frozen object `object`.
    fn frozen_object(&self, object: &str) -> Option<(&'p str, &'p [(String, Constant)])> {
        let program: &'p Program<Flow> = self.program;
        match frozen_index(object).and_then(|i| program.prebuilt.get(i as usize)) {
            Some(PrebuiltObject::Instance { class, attrs }) => Some((class, attrs)),
            _ => None,
        }
    }
}

/// A variable holding only frozen objects: their descs.
pub(super) fn frozen_descs(value: &SomeValue) -> Option<&[Desc]> {
    match value {
        SomeValue::Pbc {
            descs,
            can_be_none: false,
        } if !descs.is_empty() && descs.iter().all(|d| matches!(d, Desc::Frozen(_))) => Some(descs),
        _ => None,
    }
}

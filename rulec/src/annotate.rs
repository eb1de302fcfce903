//! Annotation rules (`rules/annotate`): the lattice join (`union(A, B)`) and
//! what each high-level operation yields (`add(A, B) => R`), compiled to Rust
//! functions over `SomeValue`.
//!
//! Patterns: a kind by name (`SomeInteger`, `SomeString`, `SomeTuple`, ...:
//! any value of it), kinds with bool fields with some of them fixed or bound
//! (`SomeInteger(nonneg=a)`, `SomeString(can_be_None=false, no_nul=n)`),
//! `SomeList(p)` and `SomeIterator(p)` (p a nested pattern or a name binding
//! the item / the container), `SomePBC(f)` (f binds the prebuilt objects of a
//! value that cannot be None), `SomeBuiltin(len)` (a builtin name literal),
//! `_` (anything) and `x` (anything, bound).

use crate::syntax::{Ast, BinOp, Node, Step, UnOp};
use crate::tables::{hl_op, BUILTINS};
use crate::{Located, RuleError};
use rpy_ir::opcode::Opcode;
use std::collections::BTreeMap;
use std::fmt::Write;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum VTy {
    /// A SomeValue (`&SomeValue` in the generated code).
    Value,
    /// A bool field (`bool`).
    Flag,
    /// A set of prebuilt objects (`&Vec<Desc>`).
    Descs,
}

/// An annotation kind as rules spell it: its `SomeValue` variant and the
/// bool fields a rule may name (rule spelling, Rust field).
struct Kind {
    name: &'static str,
    variant: &'static str,
    flags: &'static [(&'static str, &'static str)],
}

/// The kinds a rule can match or build by name alone (with flags where they
/// have them). `SomeList`, `SomeIterator`, `SomePBC` and `SomeBuiltin` take
/// a nested argument and are handled on their own; every other kind
/// (tuples, dicts, instances, exceptions, builtin methods) can be matched by
/// name but only built by the annotator, which owns their definitions.
const KINDS: &[Kind] = &[
    Kind {
        name: "SomeImpossibleValue",
        variant: "Impossible",
        flags: &[],
    },
    Kind {
        name: "SomeInteger",
        variant: "Integer",
        flags: &[("nonneg", "nonneg"), ("unsigned", "unsigned")],
    },
    Kind {
        name: "SomeBool",
        variant: "Bool",
        flags: &[],
    },
    Kind {
        name: "SomeFloat",
        variant: "Float",
        flags: &[],
    },
    Kind {
        name: "SomeChar",
        variant: "Char",
        flags: &[],
    },
    Kind {
        name: "SomeString",
        variant: "String",
        flags: &[("can_be_None", "can_be_none"), ("no_nul", "no_nul")],
    },
    Kind {
        name: "SomeUnicodeString",
        variant: "Unicode",
        flags: &[("can_be_None", "can_be_none"), ("no_nul", "no_nul")],
    },
    Kind {
        name: "SomeNone",
        variant: "None",
        flags: &[],
    },
    Kind {
        name: "SomeObject",
        variant: "Object",
        flags: &[],
    },
];

/// Kinds a pattern may name without arguments to match any value of them.
const MATCH_ONLY_KINDS: &[&str] = &[
    "SomeTuple",
    "SomeList",
    "SomeDict",
    "SomeIterator",
    "SomeInstance",
    "SomePBC",
    "SomeException",
    "SomeBuiltin",
    "SomeBuiltinMethod",
];

struct Ctx<'a> {
    rule: &'a Located,
    vars: BTreeMap<String, VTy>,
    code: String,
    tmp: usize,
}

impl Ctx<'_> {
    fn err<T>(&self, line: u32, msg: impl Into<String>) -> Result<T, RuleError> {
        Err(self.rule.error(line, msg))
    }

    fn bind(&mut self, name: &str, ty: VTy, line: u32) -> Result<(), RuleError> {
        if self.vars.insert(name.to_string(), ty).is_some() {
            return self.err(line, format!("'{name}' is bound twice"));
        }
        Ok(())
    }

    fn fresh(&mut self) -> String {
        self.tmp += 1;
        format!("t{}", self.tmp)
    }

    /// The (rule field, Rust field, value) of each `field=value` argument of
    /// a kind with flags.
    fn flag_args<'n>(
        &self,
        kind: &Kind,
        args: &'n [Node],
    ) -> Result<Vec<(&'static str, &'n Node)>, RuleError> {
        let mut out = Vec::new();
        for a in args {
            let Ast::Kw { name, value } = &a.ast else {
                return self.err(
                    a.line,
                    format!("{} takes only field=value arguments", kind.name),
                );
            };
            let Some((_, field)) = kind.flags.iter().find(|(n, _)| n == name) else {
                let known: Vec<&str> = kind.flags.iter().map(|(n, _)| *n).collect();
                return self.err(
                    a.line,
                    format!(
                        "{} has no field '{name}' (it has: {})",
                        kind.name,
                        known.join(", ")
                    ),
                );
            };
            out.push((*field, &**value));
        }
        Ok(out)
    }

    /// Emits code that returns None unless `val` (an expression of type
    /// `&SomeValue`) matches `node`, binding its variables.
    fn pattern(&mut self, node: &Node, val: &str) -> Result<(), RuleError> {
        let line = node.line;
        let (name, args): (&str, &[Node]) = match &node.ast {
            Ast::Wild => return Ok(()),
            Ast::Ident(n) if !n.starts_with("Some") => {
                self.bind(n, VTy::Value, line)?;
                let _ = writeln!(self.code, "    let {n}: &SomeValue = {val};");
                return Ok(());
            }
            Ast::Ident(n) => (n.as_str(), &[]),
            Ast::Call {
                name,
                args,
                runtime: false,
            } => (name.as_str(), args.as_slice()),
            _ => return self.err(line, format!("{node} is not an annotation pattern")),
        };
        if let Some(kind) = KINDS.iter().find(|k| k.name == name) {
            if kind.flags.is_empty() && !args.is_empty() {
                return self.err(line, format!("{name} takes no arguments"));
            }
            let mut fields = Vec::new();
            let mut binds = Vec::new();
            for (field, value) in self.flag_args(kind, args)? {
                match &value.ast {
                    Ast::Bool(b) => fields.push(format!("{field}: {b}")),
                    Ast::Ident(v) => {
                        self.bind(v, VTy::Flag, line)?;
                        fields.push(format!("{field}: {v}"));
                        binds.push(format!("    let {v}: bool = *{v};"));
                    }
                    _ => return self.err(line, "a field takes a name or true/false in a pattern"),
                }
            }
            let body = if kind.flags.is_empty() {
                String::new()
            } else {
                fields.push("..".into());
                format!(" {{ {} }}", fields.join(", "))
            };
            let _ = writeln!(
                self.code,
                "    let SomeValue::{}{body} = {val} else {{ return None; }};",
                kind.variant
            );
            for b in binds {
                let _ = writeln!(self.code, "{b}");
            }
            return Ok(());
        }
        match (name, args) {
            ("SomeList" | "SomeIterator", [item]) => {
                let t = self.fresh();
                let (variant, inner) = if name == "SomeList" {
                    ("List", format!("&*{t}.item"))
                } else {
                    ("Iterator", format!("&**{t}"))
                };
                let _ = writeln!(
                    self.code,
                    "    let SomeValue::{variant}({t}) = {val} else {{ return None; }};"
                );
                self.pattern(item, &inner)?;
            }
            (
                "SomePBC",
                [Node {
                    ast: Ast::Ident(v), ..
                }],
            ) => {
                self.bind(v, VTy::Descs, line)?;
                let _ = writeln!(
                    self.code,
                    "    let SomeValue::Pbc {{ descs: {v}, can_be_none: false }} = {val} else {{ return None; }};"
                );
            }
            (
                "SomeBuiltin",
                [Node {
                    ast: Ast::Ident(b), ..
                }],
            ) => {
                if !BUILTINS.contains(&b.as_str()) {
                    return self.err(line, format!("unknown builtin '{b}'"));
                }
                let t = self.fresh();
                let _ = writeln!(
                    self.code,
                    "    let SomeValue::Builtin({t}) = {val} else {{ return None; }};\n    if {t} != {b:?} {{ return None; }}"
                );
            }
            (kind, []) if MATCH_ONLY_KINDS.contains(&kind) => {
                let _ = writeln!(
                    self.code,
                    "    if ({val}).kind_name() != {kind:?} {{ return None; }}"
                );
            }
            ("SomeList" | "SomeIterator", _) => {
                return self.err(line, format!("{name} takes one argument, the item pattern"))
            }
            ("SomePBC", _) => {
                return self.err(
                    line,
                    "SomePBC takes no argument or a name binding the prebuilt objects",
                )
            }
            ("SomeBuiltin", _) => {
                return self.err(line, "SomeBuiltin takes no argument or a builtin name")
            }
            (other, _) if MATCH_ONLY_KINDS.contains(&other) => {
                return self.err(
                    line,
                    format!("{other} is matched by name only, without arguments"),
                )
            }
            (other, _) => return self.err(line, format!("unknown annotation '{other}'")),
        }
        Ok(())
    }

    fn flag(&self, node: &Node) -> Result<String, RuleError> {
        let line = node.line;
        Ok(match &node.ast {
            Ast::Bool(b) => b.to_string(),
            Ast::Ident(v) => match self.vars.get(v) {
                Some(VTy::Flag) => v.clone(),
                Some(_) => return self.err(line, format!("'{v}' is not a bool field")),
                None => return self.err(line, format!("unbound variable '{v}'")),
            },
            Ast::Un(UnOp::Not, a) => format!("!({})", self.flag(a)?),
            Ast::Bin(BinOp::And, a, b) => format!("({} && {})", self.flag(a)?, self.flag(b)?),
            Ast::Bin(BinOp::Or, a, b) => format!("({} || {})", self.flag(a)?, self.flag(b)?),
            _ => {
                return self.err(
                    line,
                    format!("{node} is not a truth value (use and, or, not, true, false)"),
                )
            }
        })
    }

    fn descs(&self, node: &Node) -> Result<String, RuleError> {
        let line = node.line;
        Ok(match &node.ast {
            Ast::Ident(v) => match self.vars.get(v) {
                Some(VTy::Descs) => format!("{v}.clone()"),
                Some(_) => {
                    return self.err(line, format!("'{v}' is not a set of prebuilt objects"))
                }
                None => return self.err(line, format!("unbound variable '{v}'")),
            },
            Ast::Bin(BinOp::BitOr, a, b) => {
                format!(
                    "super::descs_union(&{}, &{})",
                    self.descs(a)?,
                    self.descs(b)?
                )
            }
            _ => {
                return self.err(
                    line,
                    format!("{node} is not a set of prebuilt objects (use f | g)"),
                )
            }
        })
    }

    /// The Rust expression (of type `SomeValue`) for a result.
    fn result(&self, node: &Node) -> Result<String, RuleError> {
        let line = node.line;
        let (name, args): (&str, &[Node]) = match &node.ast {
            Ast::Ident(v) if !v.starts_with("Some") => {
                return match self.vars.get(v) {
                    Some(VTy::Value) => Ok(format!("{v}.clone()")),
                    Some(_) => self.err(line, format!("'{v}' is not an annotation")),
                    None => self.err(line, format!("unbound variable '{v}'")),
                };
            }
            Ast::Ident(n) => (n.as_str(), &[]),
            Ast::Call {
                name,
                args,
                runtime: false,
            } => (name.as_str(), args.as_slice()),
            _ => return self.err(line, format!("{node} is not an annotation")),
        };
        if let Some(kind) = KINDS.iter().find(|k| k.name == name) {
            if kind.flags.is_empty() {
                if !args.is_empty() {
                    return self.err(line, format!("{name} takes no arguments"));
                }
                return Ok(format!("SomeValue::{}", kind.variant));
            }
            let given = self.flag_args(kind, args)?;
            let mut fields = Vec::new();
            for (_, field) in kind.flags {
                let value = match given.iter().find(|(f, _)| f == field) {
                    Some((_, v)) => self.flag(v)?,
                    None => "false".into(),
                };
                fields.push(format!("{field}: {value}"));
            }
            return Ok(format!(
                "SomeValue::{} {{ {} }}",
                kind.variant,
                fields.join(", ")
            ));
        }
        Ok(match name {
            "union" => {
                let [a, b] = args else {
                    return self.err(line, "union takes 2 arguments");
                };
                format!("union(&{}, &{})?", self.result(a)?, self.result(b)?)
            }
            "SomeIterator" => {
                let [over] = args else {
                    return self.err(line, "SomeIterator takes one argument, the container");
                };
                format!("SomeValue::Iterator(Box::new({}))", self.result(over)?)
            }
            "SomePBC" => {
                let [set] = args else {
                    return self.err(line, "SomePBC takes one argument, the prebuilt objects");
                };
                format!(
                    "SomeValue::Pbc {{ descs: {}, can_be_none: false }}",
                    self.descs(set)?
                )
            }
            "SomeBuiltin" => match args {
                [Node {
                    ast: Ast::Ident(b), ..
                }] if BUILTINS.contains(&b.as_str()) => {
                    format!("SomeValue::Builtin({b:?}.to_string())")
                }
                _ => return self.err(line, "SomeBuiltin takes a builtin name"),
            },
            other if MATCH_ONLY_KINDS.contains(&other) => {
                return self.err(
                    line,
                    format!("a rule cannot build a new {other}: the annotator owns its definition; return a bound value instead"),
                )
            }
            other => return self.err(line, format!("unknown annotation '{other}'")),
        })
    }
}

struct Compiled {
    op: String,
    index: usize,
    code: String,
}

fn compile_rule(rule: &Located) -> Result<Compiled, RuleError> {
    let raw = &rule.raw;
    let mut cx = Ctx {
        rule,
        vars: BTreeMap::new(),
        code: String::new(),
        tmp: 0,
    };
    if let Some((_, line)) = &raw.target {
        return cx.err(*line, "annotation rules have no '-> Type'");
    }
    let Ast::Call {
        name: op,
        args,
        runtime: false,
    } = &raw.head.ast
    else {
        return cx.err(
            raw.head.line,
            "the pattern must be an operation or union(A, B)",
        );
    };
    let (lo, hi) = if op == "union" {
        (2, 2)
    } else {
        match hl_op(op) {
            Some(a) => a,
            None => return cx.err(raw.head.line, format!("unknown operation '{op}'")),
        }
    };
    if args.len() < lo || args.len() > hi {
        let want = if lo == hi {
            format!("{lo}")
        } else {
            format!("at least {lo}")
        };
        return cx.err(
            raw.head.line,
            format!("'{op}' takes {want} argument(s), not {}", args.len()),
        );
    }
    let n = args.len();
    let names: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let _ = writeln!(
        cx.code,
        "    let [{}] = args else {{ return None; }};",
        names.join(", ")
    );
    for (i, a) in args.iter().enumerate() {
        cx.pattern(a, &format!("*a{i}"))?;
    }
    for s in &raw.steps {
        match s {
            Step::Check(e) => {
                let c = cx.flag(e)?;
                let _ = writeln!(cx.code, "    if !({c}) {{ return None; }}");
            }
            Step::Let { name, value, line } => {
                let c = cx.flag(value)?;
                cx.bind(name, VTy::Flag, *line)?;
                let _ = writeln!(cx.code, "    let {name}: bool = {c};");
            }
        }
    }
    let r = cx.result(&raw.result)?;
    let _ = writeln!(cx.code, "    let result = {r};");
    let _ = writeln!(
        cx.code,
        "    super::fire({});\n    Some(result)",
        rule.index
    );
    Ok(Compiled {
        op: op.clone(),
        index: rule.index,
        code: cx.code,
    })
}

pub(crate) fn compile(rules: &[&Located]) -> Result<String, Vec<RuleError>> {
    let compiled = crate::compile_each(rules, compile_rule)?;
    let mut s = String::new();
    s.push_str("// Generated by rpy-rulec from rules/annotate/*.rules. Do not edit.\n");
    for c in &compiled {
        let _ = writeln!(
            s,
            "#[allow(unused_variables, clippy::all)]\nfn rule_{}(args: &[&SomeValue]) -> Option<SomeValue> {{\n{}}}\n",
            c.index, c.code
        );
    }
    let mut by_op: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for c in &compiled {
        by_op.entry(&c.op).or_default().push(c.index);
    }
    s.push_str("type AnnRule = fn(&[&SomeValue]) -> Option<SomeValue>;\n\n");
    s.push_str("/// The rules for one operation (or `union`), in file order.\n");
    s.push_str("fn rules_for(opname: Opcode) -> &'static [AnnRule] {\n    match opname {\n");
    let mut union_rules = "&[]".to_string();
    for (op, idx) in &by_op {
        let fns: Vec<String> = idx.iter().map(|i| format!("rule_{i}")).collect();
        match Opcode::from_name(op) {
            Some(opcode) => {
                let variant = opcode.variant_name();
                let _ = writeln!(s, "        Opcode::{variant} => &[{}],", fns.join(", "));
            }
            // `union` is the one head that is not an operation.
            None => union_rules = format!("&[{}]", fns.join(", ")),
        }
    }
    s.push_str("        _ => &[],\n    }\n}\n\n");
    s.push_str("/// The rules of the lattice join, `union(A, B)`, in file order.\n");
    let _ = writeln!(s, "static UNION_RULES: &[AnnRule] = {union_rules};");
    Ok(s)
}

//! Annotation rules (`rules/annotate`): the lattice join (`union(A, B)`) and
//! what each high-level operation yields (`add(A, B) => R`), compiled to Rust
//! functions over `SomeValue`.
//!
//! Patterns: `SomeInteger` (any int), `SomeInteger(nonneg=a)` (binds a bool),
//! `SomeInteger(nonneg=true)`, `SomeList(p)` (p a nested pattern or a name
//! binding the item annotation), `SomePBC` / `SomePBC(f)` (f binds the function
//! names), `SomeBuiltin` / `SomeBuiltin(len)` (a builtin name literal),
//! `SomeBool`, `SomeFloat`, `SomeChar`, `SomeString`, `SomeNone`,
//! `SomeImpossibleValue`, `SomeObject`, `_` (anything) and `x` (anything, bound).

use crate::syntax::{Ast, BinOp, Node, Step, UnOp};
use crate::tables::{hl_op, BUILTINS};
use crate::{Located, RuleError};
use std::collections::BTreeMap;
use std::fmt::Write;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum VTy {
    /// A SomeValue (`&SomeValue` in the generated code).
    Value,
    /// A bool field (`bool`).
    Flag,
    /// A set of function names (`&Vec<String>`).
    Names,
}

const UNIT_KINDS: &[(&str, &str)] = &[
    ("SomeBool", "SomeValue::Bool"),
    ("SomeFloat", "SomeValue::Float"),
    ("SomeChar", "SomeValue::Char"),
    ("SomeString", "SomeValue::String"),
    ("SomeNone", "SomeValue::None"),
    ("SomeImpossibleValue", "SomeValue::Impossible"),
    ("SomeObject", "SomeValue::Object"),
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
        if let Some((_, ctor)) = UNIT_KINDS.iter().find(|(n, _)| *n == name) {
            if !args.is_empty() {
                return self.err(line, format!("{name} takes no arguments"));
            }
            let _ = writeln!(self.code, "    let {ctor} = {val} else {{ return None; }};");
            return Ok(());
        }
        match name {
            "SomeInteger" => match args {
                [] => {
                    let _ = writeln!(
                        self.code,
                        "    let SomeValue::Integer {{ .. }} = {val} else {{ return None; }};"
                    );
                }
                [Node {
                    ast: Ast::Kw { name: field, value },
                    ..
                }] if field == "nonneg" => match &value.ast {
                    Ast::Bool(b) => {
                        let _ = writeln!(
                            self.code,
                            "    let SomeValue::Integer {{ nonneg: {b} }} = {val} else {{ return None; }};"
                        );
                    }
                    Ast::Ident(v) => {
                        self.bind(v, VTy::Flag, line)?;
                        let _ = writeln!(
                            self.code,
                            "    let SomeValue::Integer {{ nonneg: {v} }} = {val} else {{ return None; }};\n    let {v}: bool = *{v};"
                        );
                    }
                    _ => return self.err(line, "nonneg= takes a name or true/false in a pattern"),
                },
                _ => return self.err(line, "SomeInteger takes one argument, nonneg=..."),
            },
            "SomeList" => {
                let [item] = args else {
                    return self.err(line, "SomeList takes one argument, the item pattern");
                };
                let t = self.fresh();
                let _ = writeln!(
                    self.code,
                    "    let SomeValue::List({t}) = {val} else {{ return None; }};"
                );
                self.pattern(item, &format!("&**{t}"))?;
            }
            "SomePBC" => match args {
                [] => {
                    let _ = writeln!(
                        self.code,
                        "    let SomeValue::Functions(_) = {val} else {{ return None; }};"
                    );
                }
                [Node {
                    ast: Ast::Ident(v), ..
                }] => {
                    self.bind(v, VTy::Names, line)?;
                    let _ = writeln!(
                        self.code,
                        "    let SomeValue::Functions({v}) = {val} else {{ return None; }};"
                    );
                }
                _ => {
                    return self.err(
                        line,
                        "SomePBC takes no argument or a name binding the functions",
                    )
                }
            },
            "SomeBuiltin" => match args {
                [] => {
                    let _ = writeln!(
                        self.code,
                        "    let SomeValue::Builtin(_) = {val} else {{ return None; }};"
                    );
                }
                [Node {
                    ast: Ast::Ident(b), ..
                }] => {
                    if !BUILTINS.contains(&b.as_str()) {
                        return self.err(line, format!("unknown builtin '{b}'"));
                    }
                    let t = self.fresh();
                    let _ = writeln!(
                        self.code,
                        "    let SomeValue::Builtin({t}) = {val} else {{ return None; }};\n    if {t} != {b:?} {{ return None; }}"
                    );
                }
                _ => return self.err(line, "SomeBuiltin takes no argument or a builtin name"),
            },
            other => return self.err(line, format!("unknown annotation '{other}'")),
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

    fn names(&self, node: &Node) -> Result<String, RuleError> {
        let line = node.line;
        Ok(match &node.ast {
            Ast::Ident(v) => match self.vars.get(v) {
                Some(VTy::Names) => format!("{v}.clone()"),
                Some(_) => return self.err(line, format!("'{v}' is not a set of functions")),
                None => return self.err(line, format!("unbound variable '{v}'")),
            },
            Ast::Bin(BinOp::BitOr, a, b) => {
                format!(
                    "super::names_union(&{}, &{})",
                    self.names(a)?,
                    self.names(b)?
                )
            }
            _ => {
                return self.err(
                    line,
                    format!("{node} is not a set of functions (use f | g)"),
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
        if let Some((_, ctor)) = UNIT_KINDS.iter().find(|(n, _)| *n == name) {
            if !args.is_empty() {
                return self.err(line, format!("{name} takes no arguments"));
            }
            return Ok(ctor.to_string());
        }
        Ok(match name {
            "union" => {
                let [a, b] = args else {
                    return self.err(line, "union takes 2 arguments");
                };
                format!("union(&{}, &{})?", self.result(a)?, self.result(b)?)
            }
            "SomeInteger" => match args {
                [] => "SomeValue::Integer { nonneg: false }".into(),
                [Node {
                    ast: Ast::Kw { name: field, value },
                    ..
                }] if field == "nonneg" => {
                    format!("SomeValue::Integer {{ nonneg: {} }}", self.flag(value)?)
                }
                _ => return self.err(line, "SomeInteger takes one argument, nonneg=..."),
            },
            "SomeList" => {
                let [item] = args else {
                    return self.err(line, "SomeList takes one argument, the item annotation");
                };
                format!("SomeValue::List(Box::new({}))", self.result(item)?)
            }
            "SomePBC" => {
                let [set] = args else {
                    return self.err(line, "SomePBC takes one argument, the functions");
                };
                format!("SomeValue::Functions({})", self.names(set)?)
            }
            "SomeBuiltin" => match args {
                [Node {
                    ast: Ast::Ident(b), ..
                }] if BUILTINS.contains(&b.as_str()) => {
                    format!("SomeValue::Builtin({b:?}.to_string())")
                }
                _ => return self.err(line, "SomeBuiltin takes a builtin name"),
            },
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
    s.push_str("fn rules_for(opname: &str) -> &'static [AnnRule] {\n    match opname {\n");
    for (op, idx) in &by_op {
        let fns: Vec<String> = idx.iter().map(|i| format!("rule_{i}")).collect();
        let _ = writeln!(s, "        {op:?} => &[{}],", fns.join(", "));
    }
    s.push_str("        _ => &[],\n    }\n}\n");
    Ok(s)
}

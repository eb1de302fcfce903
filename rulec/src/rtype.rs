//! Lowering rules (`rules/rtype`): how a high-level operation on arguments of
//! given low-level types becomes low-level operations and runtime calls, and
//! how a value of one low-level type converts to another.
//!
//! Patterns: `add(x: Signed, y: Signed)`, `_: Float` (typed, unbound),
//! `$len` (a constant argument that is the builtin `len`), `x` / `_` (any
//! type). Results: an argument, an operation `int_add(x, y)`, a runtime call
//! `call rpy_str_concat(x, y)`, constants `0`, `1.5`, `true`, `"\n"`, `'a'`
//! (a Char) and `Name(length)` (a field name). Checks: `check py2`,
//! `check py3`, with and/or/not. Conversions: `convert(x: Bool) -> Signed => ...`.

use crate::syntax::{Ast, BinOp, Node, Step, UnOp};
use crate::tables::{hl_op, lltype, BUILTINS};
use crate::{int_lit, Located, RuleError};
use rpy_ir::llops::{info, result_type, runtime_func, Signature};
use rpy_ir::lltype::{LowLevelType, STR};
use rpy_ir::opcode::Opcode;
use std::collections::BTreeMap;
use std::fmt::Write;

fn ty_spec(t: &LowLevelType) -> String {
    match t {
        LowLevelType::Void => "TySpec::Void".into(),
        LowLevelType::Signed => "TySpec::Signed".into(),
        LowLevelType::Unsigned => "TySpec::Unsigned".into(),
        LowLevelType::Float => "TySpec::Float".into(),
        LowLevelType::Bool => "TySpec::Bool".into(),
        LowLevelType::Char => "TySpec::Char".into(),
        LowLevelType::Ptr(n) => format!("TySpec::Ptr({n:?})"),
        // `tables::lltype` gives a rule no function pointer type to name.
        LowLevelType::FuncPtr(_) => unreachable!("a rule named a function pointer type"),
    }
}

struct Ctx<'a> {
    rule: &'a Located,
    /// Bound argument names: index and type (None: any type).
    vars: BTreeMap<String, (usize, Option<LowLevelType>)>,
}

impl Ctx<'_> {
    fn err<T>(&self, line: u32, msg: impl Into<String>) -> Result<T, RuleError> {
        Err(self.rule.error(line, msg))
    }

    fn bind(
        &mut self,
        name: &str,
        i: usize,
        t: Option<LowLevelType>,
        line: u32,
    ) -> Result<(), RuleError> {
        if name == "_" {
            return Ok(());
        }
        if self.vars.insert(name.to_string(), (i, t)).is_some() {
            return self.err(line, format!("'{name}' is bound twice"));
        }
        Ok(())
    }

    /// The generated condition for argument `i` matching `node`.
    fn arg_pattern(&mut self, node: &Node, i: usize) -> Result<Option<String>, RuleError> {
        let line = node.line;
        match &node.ast {
            Ast::Typed { name, ty } => {
                let t = lltype(ty).or_else(|m| self.err(line, m))?;
                let cond = format!("{}.matches(&args[{i}])", ty_spec(&t));
                self.bind(name, i, Some(t), line)?;
                Ok(Some(cond))
            }
            Ast::Dollar(b) => {
                if !BUILTINS.contains(&b.as_str()) {
                    return self.err(line, format!("unknown builtin '{b}'"));
                }
                Ok(Some(format!(
                    "matches!(consts.get({i}), Some(Some(Constant::Builtin(n))) if n == {b:?})"
                )))
            }
            Ast::Wild => Ok(None),
            Ast::Ident(n) => {
                self.bind(n, i, None, line)?;
                Ok(None)
            }
            _ => self.err(
                line,
                format!("{node} is not an argument pattern (use x: Type, $builtin or _)"),
            ),
        }
    }

    fn guard(&self, node: &Node) -> Result<String, RuleError> {
        let line = node.line;
        Ok(match &node.ast {
            Ast::Ident(n) if n == "py2" => "py2".into(),
            Ast::Ident(n) if n == "py3" => "!py2".into(),
            Ast::Bool(b) => b.to_string(),
            Ast::Un(UnOp::Not, a) => format!("!({})", self.guard(a)?),
            Ast::Bin(BinOp::And, a, b) => format!("({} && {})", self.guard(a)?, self.guard(b)?),
            Ast::Bin(BinOp::Or, a, b) => format!("({} || {})", self.guard(a)?, self.guard(b)?),
            _ => {
                return self.err(
                    line,
                    format!("{node}: lowering rules can only check py2 or py3"),
                )
            }
        })
    }

    /// The generated `Lowered` expression for a result, and its type when known.
    fn result(&self, node: &Node) -> Result<(String, Option<LowLevelType>), RuleError> {
        let line = node.line;
        Ok(match &node.ast {
            Ast::Ident(n) => match self.vars.get(n) {
                Some((i, t)) => (format!("Lowered::Arg({i})"), t.clone()),
                None => return self.err(line, format!("unbound variable '{n}'")),
            },
            Ast::Int(v) => {
                let v =
                    i64::try_from(*v).or_else(|_| self.err(line, "integer literal too large"))?;
                (
                    format!("Lowered::Const(Constant::Int({}))", int_lit(v)),
                    Some(LowLevelType::Signed),
                )
            }
            Ast::Un(UnOp::Neg, inner) if matches!(inner.ast, Ast::Int(_)) => {
                let Ast::Int(v) = inner.ast else {
                    unreachable!()
                };
                let v =
                    i64::try_from(-v).or_else(|_| self.err(line, "integer literal too large"))?;
                (
                    format!("Lowered::Const(Constant::Int({}))", int_lit(v)),
                    Some(LowLevelType::Signed),
                )
            }
            Ast::Float(f) => (
                format!("Lowered::Const(Constant::Float({f:?}))"),
                Some(LowLevelType::Float),
            ),
            Ast::Bool(b) => (
                format!("Lowered::Const(Constant::Bool({b}))"),
                Some(LowLevelType::Bool),
            ),
            Ast::Str(s) => (
                format!("Lowered::Const(Constant::Str({s:?}.to_string()))"),
                Some(LowLevelType::Ptr(STR.to_string())),
            ),
            Ast::Char(c) => (
                format!("Lowered::Const(Constant::Char({c}))"),
                Some(LowLevelType::Char),
            ),
            Ast::Call {
                name,
                args,
                runtime: false,
            } if name == "Name" => match args.as_slice() {
                [Node {
                    ast: Ast::Ident(f), ..
                }] => (
                    format!("Lowered::Const(Constant::Name({f:?}.to_string()))"),
                    Some(LowLevelType::Void),
                ),
                _ => return self.err(line, "Name(...) takes one field name"),
            },
            Ast::Call {
                name,
                args,
                runtime: true,
            } if name.contains('.') => {
                let (module, func) = name.split_once('.').expect("a dotted name");
                if let Err(why) = check_helper_exists(module, func) {
                    return self.err(line, why);
                }
                let mut codes = Vec::new();
                for a in args {
                    codes.push(self.result(a)?.0);
                }
                // The helper's result type is known once it is specialized
                // for its arguments' types, when the rtyper runs.
                (
                    format!(
                        "Lowered::Helper {{ module: {module:?}, func: {func:?}, args: vec![{}] }}",
                        codes.join(", ")
                    ),
                    None,
                )
            }
            Ast::Call {
                name,
                args,
                runtime: true,
            } => {
                let Some(f) = runtime_func(name) else {
                    return self.err(line, format!("unknown runtime function '{name}'"));
                };
                if f.args.len() != args.len() {
                    return self.err(
                        line,
                        format!(
                            "runtime function '{name}' takes {} argument(s), not {}",
                            f.args.len(),
                            args.len()
                        ),
                    );
                }
                let mut codes = Vec::new();
                for (k, (a, want)) in args.iter().zip(f.args).enumerate() {
                    let (c, t) = self.result(a)?;
                    if let Some(t) = t {
                        if t != want.lltype() {
                            return self.err(
                                a.line,
                                format!(
                                    "argument {} of '{name}' is {} but must be {}",
                                    k + 1,
                                    t,
                                    want.lltype()
                                ),
                            );
                        }
                    }
                    codes.push(c);
                }
                (
                    format!(
                        "Lowered::Call {{ func: {name:?}, args: vec![{}] }}",
                        codes.join(", ")
                    ),
                    Some(f.result.lltype()),
                )
            }
            Ast::Call {
                name,
                args,
                runtime: false,
            } => {
                let Some(op) = Opcode::from_name(name).and_then(info) else {
                    return if hl_op(name).is_some() {
                        self.err(
                            line,
                            format!(
                                "'{name}' is a high-level operation; results use low-level ones"
                            ),
                        )
                    } else {
                        self.err(line, format!("unknown operation '{name}'"))
                    };
                };
                let mut codes = Vec::new();
                let mut tys = Vec::new();
                for a in args {
                    let (c, t) = self.result(a)?;
                    codes.push(c);
                    tys.push(t);
                }
                let code = format!(
                    "Lowered::Op {{ opname: Opcode::{}, args: vec![{}] }}",
                    op.opcode.variant_name(),
                    codes.join(", ")
                );
                let ty = if op.sig == Signature::Special {
                    let (arity, ty): (Option<usize>, Option<LowLevelType>) = match name.as_str() {
                        "same_as" => (Some(1), tys.first().cloned().flatten()),
                        "getarraysize" => (Some(1), Some(LowLevelType::Signed)),
                        "getfield" | "getarrayitem" | "malloc_varsize" => (Some(2), None),
                        "malloc" => (Some(1), None),
                        "setfield" | "setarrayitem" => (Some(3), Some(LowLevelType::Void)),
                        _ => (None, None),
                    };
                    if let Some(n) = arity {
                        if n != args.len() {
                            return self.err(
                                line,
                                format!("'{name}' takes {n} argument(s), not {}", args.len()),
                            );
                        }
                    }
                    ty
                } else {
                    let arity = match &op.sig {
                        Signature::IntBinary
                        | Signature::IntCompare
                        | Signature::UintBinary
                        | Signature::UintCompare
                        | Signature::UintShift
                        | Signature::FloatBinary
                        | Signature::FloatCompare
                        | Signature::CharCompare => 2,
                        _ => 1,
                    };
                    if arity != args.len() {
                        return self.err(
                            line,
                            format!("'{name}' takes {arity} argument(s), not {}", args.len()),
                        );
                    }
                    if tys.iter().all(|t| t.is_some()) {
                        let known: Vec<LowLevelType> =
                            tys.iter().map(|t| t.clone().unwrap()).collect();
                        match result_type(op.opcode, &known) {
                            Some(t) => Some(t),
                            None => {
                                let shown: Vec<String> =
                                    known.iter().map(|t| t.to_string()).collect();
                                return self.err(
                                    line,
                                    format!("'{name}' does not take ({})", shown.join(", ")),
                                );
                            }
                        }
                    } else {
                        None
                    }
                };
                (code, ty)
            }
            _ => return self.err(line, format!("{node} is not a lowering result")),
        })
    }
}

struct Compiled {
    op: String,
    index: usize,
    code: String,
    /// For conversion rules: from and to.
    conv: Option<(LowLevelType, LowLevelType)>,
}

fn compile_rule(rule: &Located) -> Result<Compiled, RuleError> {
    let raw = &rule.raw;
    let mut cx = Ctx {
        rule,
        vars: BTreeMap::new(),
    };
    let Ast::Call {
        name: op,
        args,
        runtime: false,
    } = &raw.head.ast
    else {
        return cx.err(
            raw.head.line,
            "the pattern must be an operation, like add(x: Signed, y: Signed)",
        );
    };
    let mut code = String::new();
    if op == "convert" {
        let [arg] = args.as_slice() else {
            return cx.err(
                raw.head.line,
                "convert takes one argument, convert(x: Type) -> Type",
            );
        };
        let Ast::Typed { name, ty } = &arg.ast else {
            return cx.err(
                arg.line,
                "convert's argument needs a type: convert(x: Type) -> Type",
            );
        };
        let from = lltype(ty).or_else(|m| cx.err(arg.line, m))?;
        let Some((target, tline)) = &raw.target else {
            return cx.err(
                raw.head.line,
                "a conversion needs its target type: convert(x: Type) -> Type",
            );
        };
        let to = lltype(target).or_else(|m| cx.err(*tline, m))?;
        if !raw.steps.is_empty() {
            return cx.err(raw.line, "conversions have no checks");
        }
        cx.bind(name, 0, Some(from.clone()), arg.line)?;
        let (r, t) = cx.result(&raw.result)?;
        if let Some(t) = t {
            if t != to {
                return cx.err(raw.result.line, format!("the result is {t}, not {to}"));
            }
        }
        let _ = writeln!(code, "    {r}");
        return Ok(Compiled {
            op: "convert".into(),
            index: rule.index,
            code,
            conv: Some((from, to)),
        });
    }
    if let Some((_, line)) = &raw.target {
        return cx.err(*line, "only convert(...) rules have '-> Type'");
    }
    let Some((lo, hi)) = hl_op(op) else {
        return cx.err(raw.head.line, format!("unknown operation '{op}'"));
    };
    if args.len() < lo || args.len() > hi {
        return cx.err(
            raw.head.line,
            format!("'{op}' cannot take {} argument(s)", args.len()),
        );
    }
    let _ = writeln!(
        code,
        "    if args.len() != {} {{ return None; }}",
        args.len()
    );
    for (i, a) in args.iter().enumerate() {
        if let Some(cond) = cx.arg_pattern(a, i)? {
            let _ = writeln!(code, "    if !{cond} {{ return None; }}");
        }
    }
    for s in &raw.steps {
        match s {
            Step::Check(e) => {
                let g = cx.guard(e)?;
                let _ = writeln!(code, "    if !({g}) {{ return None; }}");
            }
            Step::Let { line, .. } => {
                return cx.err(*line, "lowering rules have no 'name = ...' lines")
            }
        }
    }
    let (r, _) = cx.result(&raw.result)?;
    let _ = writeln!(code, "    super::fire({});\n    Some({r})", rule.index);
    Ok(Compiled {
        op: op.clone(),
        index: rule.index,
        code,
        conv: None,
    })
}

pub(crate) fn compile(rules: &[&Located]) -> Result<String, Vec<RuleError>> {
    let compiled = crate::compile_each(rules, compile_rule)?;
    let mut s = String::new();
    s.push_str("// Generated by rpy-rulec from rules/rtype/*.rules. Do not edit.\n");
    let mut by_op: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut convs = Vec::new();
    for c in &compiled {
        if let Some((from, to)) = &c.conv {
            let _ = writeln!(
                s,
                "#[allow(clippy::all)]\nfn conv_{}() -> Lowered {{\n{}}}\n",
                c.index, c.code
            );
            convs.push(format!(
                "    Conversion {{ rule: {}, from: {}, to: {}, build: conv_{} }},",
                c.index,
                ty_spec(from),
                ty_spec(to),
                c.index
            ));
        } else {
            let _ = writeln!(
                s,
                "#[allow(unused_variables, clippy::all)]\nfn rule_{}(args: &[LowLevelType], consts: &[Option<Constant>], py2: bool) -> Option<Lowered> {{\n{}}}\n",
                c.index, c.code
            );
            by_op.entry(&c.op).or_default().push(c.index);
        }
    }
    s.push_str(
        "type RtRule = fn(&[LowLevelType], &[Option<Constant>], bool) -> Option<Lowered>;\n\n",
    );
    s.push_str("/// The lowering rules for one operation, in file order.\n");
    s.push_str("fn rules_for(opname: Opcode) -> &'static [RtRule] {\n    match opname {\n");
    for (op, idx) in &by_op {
        let fns: Vec<String> = idx.iter().map(|i| format!("rule_{i}")).collect();
        let variant =
            Opcode::from_name(op).map_or(op.to_string(), |o| o.variant_name().to_string());
        let _ = writeln!(s, "        Opcode::{variant} => &[{}],", fns.join(", "));
    }
    s.push_str("        _ => &[],\n    }\n}\n\n");
    s.push_str(
        "/// The conversion rules, in file order.\nstatic CONVERSIONS: &[Conversion] = &[\n",
    );
    for c in convs {
        s.push_str(&c);
        s.push('\n');
    }
    s.push_str("];\n");
    Ok(s)
}

/// The folder of the low-level helper modules (`rstr` is `rstr.py` there).
const HELPER_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../pylib/rpython/rtyper");

/// A rule's `call module.func(...)` must name a helper that exists.
fn check_helper_exists(module: &str, func: &str) -> Result<(), String> {
    let path = format!("{HELPER_DIR}/{module}.py");
    let source = std::fs::read_to_string(&path)
        .map_err(|_| format!("no low-level helper module '{module}' ({path})"))?;
    let def = format!("def {func}(");
    if source.lines().any(|l| l.starts_with(&def)) {
        Ok(())
    } else {
        Err(format!(
            "the helper module '{module}' has no function '{func}'"
        ))
    }
}

//! Integer rewrite rules (`rules/opt`): checking and code generation.
//!
//! A rule is compiled to data (`rpy_ruleset::opt::OptRule`): the pattern
//! tree, the checks and lets as small expression trees, the result tree. The
//! e-graph optimizer, the trace optimizer and the rule checker all interpret
//! that data; one rule, every optimizer.

use crate::syntax::{Ast, BinOp, Node, Step, UnOp};
use crate::tables::{op_cost, opt_op};
use crate::{int_lit, Located, RuleError};
use rpy_ir::opcode::Opcode;
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Signed,
    Bool,
}

impl Ty {
    fn of(is_bool: bool) -> Ty {
        if is_bool {
            Ty::Bool
        } else {
            Ty::Signed
        }
    }
    fn name(self) -> &'static str {
        match self {
            Ty::Signed => "Signed",
            Ty::Bool => "Bool",
        }
    }
}

/// Expression types: integers, or truth values (evaluated as 0/1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ETy {
    Int,
    Bool,
}

impl ETy {
    fn name(self) -> &'static str {
        match self {
            ETy::Int => "an integer",
            ETy::Bool => "a truth value",
        }
    }
}

struct Var {
    name: String,
    ty: Ty,
    const_only: bool,
}

#[derive(Debug)]
enum Pat {
    Var(usize),
    Int(i64),
    Bool(bool),
    Op(String, Vec<Pat>),
}

#[derive(Debug)]
enum Expr {
    Slot(usize),
    Lit(i64),
    Un(&'static str, Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    HighestBit(Box<Expr>),
    Fact(&'static str, usize, Option<Box<Expr>>),
}

#[derive(Debug)]
enum Res {
    Var(usize),
    Const(Expr, Ty),
    Op(String, Vec<Res>),
}

enum CStep {
    Check(Expr),
    Let(usize, Expr),
}

struct Checked {
    index: usize,
    name: String,
    vars: Vec<Var>,
    lets: Vec<(String, ETy)>,
    lhs: Pat,
    steps: Vec<CStep>,
    rhs: Res,
    ty: Ty,
}

const FACTS: &[(&str, &str, usize)] = &[
    ("known_ge_const", "GeConst", 1),
    ("known_gt_const", "GtConst", 1),
    ("known_le_const", "LeConst", 1),
    ("known_lt_const", "LtConst", 1),
    ("known_nonneg", "Nonneg", 0),
    ("known_bits_zero", "BitsZero", 1),
];

struct Ctx<'a> {
    rule: &'a Located,
    vars: Vec<Var>,
    lets: Vec<(String, ETy)>,
}

impl Ctx<'_> {
    fn err<T>(&self, line: u32, msg: impl Into<String>) -> Result<T, RuleError> {
        Err(self.rule.error(line, msg))
    }

    fn op_sig(
        &self,
        node: &Node,
        name: &str,
        nargs: usize,
    ) -> Result<(Vec<bool>, bool), RuleError> {
        let Some(sig) = opt_op(name) else {
            return if Opcode::from_name(name)
                .and_then(rpy_ir::llops::info)
                .is_some()
            {
                self.err(
                    node.line,
                    format!("'{name}' is not a pure integer operation; integer rules use int_*, int_is_true, bool_not and cast_bool_to_int"),
                )
            } else {
                self.err(node.line, format!("unknown operation '{name}'"))
            };
        };
        if sig.0.len() != nargs {
            return self.err(
                node.line,
                format!(
                    "'{name}' takes {} argument{}, not {nargs}",
                    sig.0.len(),
                    if sig.0.len() == 1 { "" } else { "s" }
                ),
            );
        }
        Ok(sig)
    }

    fn pattern(&mut self, node: &Node, want: Ty) -> Result<Pat, RuleError> {
        match &node.ast {
            Ast::Call {
                name,
                args,
                runtime: false,
            } => {
                let (arg_tys, res) = self.op_sig(node, name, args.len())?;
                if Ty::of(res) != want {
                    return self.err(
                        node.line,
                        format!(
                            "'{name}' yields {} where {} is needed",
                            Ty::of(res).name(),
                            want.name()
                        ),
                    );
                }
                let mut pats = Vec::new();
                for (a, t) in args.iter().zip(arg_tys) {
                    pats.push(self.pattern(a, Ty::of(t))?);
                }
                Ok(Pat::Op(name.clone(), pats))
            }
            Ast::Ident(name) => {
                if let Some(i) = self.vars.iter().position(|v| &v.name == name) {
                    if self.vars[i].ty != want {
                        return self.err(
                            node.line,
                            format!(
                                "'{name}' is used as {} and as {}",
                                self.vars[i].ty.name(),
                                want.name()
                            ),
                        );
                    }
                    return Ok(Pat::Var(i));
                }
                self.vars.push(Var {
                    name: name.clone(),
                    ty: want,
                    const_only: name.starts_with('C'),
                });
                Ok(Pat::Var(self.vars.len() - 1))
            }
            Ast::Wild => {
                self.vars.push(Var {
                    name: format!("_{}", self.vars.len()),
                    ty: want,
                    const_only: false,
                });
                Ok(Pat::Var(self.vars.len() - 1))
            }
            Ast::Bool(b) if want == Ty::Bool => Ok(Pat::Bool(*b)),
            _ => {
                // A constant expression: folded now.
                let v = self.const_value(node)?;
                match want {
                    Ty::Signed => Ok(Pat::Int(v)),
                    Ty::Bool => self.err(
                        node.line,
                        format!("a Bool argument is matched with true or false, not {node}"),
                    ),
                }
            }
        }
    }

    /// Folds a closed integer expression (a literal, `-1`, `1 << 63`).
    fn const_value(&mut self, node: &Node) -> Result<i64, RuleError> {
        let (e, t) = self.expr(node)?;
        if t != ETy::Int {
            return self.err(node.line, format!("{node} is not an integer"));
        }
        fold(&e).ok_or_else(|| {
            self.rule.error(
                node.line,
                format!("{node} is not a constant integer (patterns match variables, operations or literals)"),
            )
        })
    }

    fn int_literal(&self, node: &Node, v: i128, negated: bool) -> Result<i64, RuleError> {
        let v = if negated { -v } else { v };
        i64::try_from(v)
            .or_else(|_| self.err(node.line, format!("{v} does not fit a 64-bit signed word")))
    }

    fn expr(&mut self, node: &Node) -> Result<(Expr, ETy), RuleError> {
        let line = node.line;
        match &node.ast {
            Ast::Int(v) => Ok((Expr::Lit(self.int_literal(node, *v, false)?), ETy::Int)),
            Ast::Bool(b) => Ok((Expr::Lit(*b as i64), ETy::Bool)),
            Ast::Un(UnOp::Neg, inner) if matches!(inner.ast, Ast::Int(_)) => {
                let Ast::Int(v) = inner.ast else {
                    unreachable!()
                };
                Ok((Expr::Lit(self.int_literal(node, v, true)?), ETy::Int))
            }
            Ast::Ident(name) => {
                if let Some(i) = self.vars.iter().position(|v| &v.name == name) {
                    let v = &self.vars[i];
                    if !v.const_only {
                        return self.err(
                            line,
                            format!(
                                "'{name}' can be any value, not only a constant: only names starting with C \
                                 (matching constants) can be used in expressions; ask facts about '{name}' \
                                 with methods like {name}.known_nonneg()"
                            ),
                        );
                    }
                    let t = match v.ty {
                        Ty::Signed => ETy::Int,
                        Ty::Bool => ETy::Bool,
                    };
                    return Ok((Expr::Slot(i), t));
                }
                if let Some(j) = self.lets.iter().position(|(n, _)| n == name) {
                    return Ok((Expr::Slot(self.vars.len() + j), self.lets[j].1));
                }
                self.err(line, format!("unbound variable '{name}'"))
            }
            Ast::Un(op, inner) => {
                let (e, t) = self.expr(inner)?;
                let (want, res, name) = match op {
                    UnOp::Not => (ETy::Bool, ETy::Bool, "Not"),
                    UnOp::Neg => (ETy::Int, ETy::Int, "Neg"),
                    UnOp::Invert => (ETy::Int, ETy::Int, "Invert"),
                };
                if t != want {
                    return self.err(line, format!("{node}: the operand must be {}", want.name()));
                }
                Ok((Expr::Un(name, Box::new(e)), res))
            }
            Ast::Bin(op, a, b) => {
                let (ea, ta) = self.expr(a)?;
                let (eb, tb) = self.expr(b)?;
                let res = match op {
                    BinOp::And | BinOp::Or => {
                        if ta != ETy::Bool || tb != ETy::Bool {
                            return self.err(
                                line,
                                format!("'{}' needs truth values on both sides", op.symbol()),
                            );
                        }
                        ETy::Bool
                    }
                    BinOp::Eq | BinOp::Ne => {
                        if ta != tb {
                            return self.err(
                                line,
                                format!("{node} compares {} with {}", ta.name(), tb.name()),
                            );
                        }
                        ETy::Bool
                    }
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                        if ta != ETy::Int || tb != ETy::Int {
                            return self.err(
                                line,
                                format!("'{}' needs integers on both sides", op.symbol()),
                            );
                        }
                        ETy::Bool
                    }
                    _ => {
                        if ta != ETy::Int || tb != ETy::Int {
                            return self.err(
                                line,
                                format!("'{}' needs integers on both sides", op.symbol()),
                            );
                        }
                        ETy::Int
                    }
                };
                Ok((Expr::Bin(*op, Box::new(ea), Box::new(eb)), res))
            }
            Ast::Call {
                name,
                args,
                runtime: false,
            } if name == "highest_bit" => {
                if args.len() != 1 {
                    return self.err(line, "highest_bit takes 1 argument");
                }
                let (e, t) = self.expr(&args[0])?;
                if t != ETy::Int {
                    return self.err(line, "highest_bit needs an integer");
                }
                Ok((Expr::HighestBit(Box::new(e)), ETy::Int))
            }
            Ast::Call { name, .. } => {
                if opt_op(name).is_some() {
                    self.err(
                        line,
                        format!("operation '{name}' cannot be used inside an expression"),
                    )
                } else {
                    self.err(
                        line,
                        format!("unknown function '{name}' (expressions can use highest_bit)"),
                    )
                }
            }
            Ast::Method { recv, name, args } => {
                let Ast::Ident(var) = &recv.ast else {
                    return self.err(
                        line,
                        format!("facts are asked of a variable: x.{name}(...)"),
                    );
                };
                let Some(slot) = self.vars.iter().position(|v| &v.name == var) else {
                    return self.err(line, format!("unbound variable '{var}'"));
                };
                let Some((_, variant, nargs)) = FACTS.iter().find(|(n, _, _)| n == name) else {
                    let names: Vec<&str> = FACTS.iter().map(|f| f.0).collect();
                    return self.err(
                        line,
                        format!("unknown fact '{name}' (known: {})", names.join(", ")),
                    );
                };
                if args.len() != *nargs {
                    return self.err(
                        line,
                        format!("{name} takes {nargs} argument(s), not {}", args.len()),
                    );
                }
                let arg = match args.first() {
                    Some(a) => {
                        let (e, t) = self.expr(a)?;
                        if t != ETy::Int {
                            return self.err(line, format!("{name} needs an integer"));
                        }
                        Some(Box::new(e))
                    }
                    None => None,
                };
                Ok((Expr::Fact(variant, slot, arg), ETy::Bool))
            }
            _ => self.err(line, format!("{node} is not allowed in an integer rule")),
        }
    }

    fn result(&mut self, node: &Node, want: Ty) -> Result<Res, RuleError> {
        match &node.ast {
            Ast::Call {
                name,
                args,
                runtime: false,
            } if name != "highest_bit" => {
                let (arg_tys, res) = self.op_sig(node, name, args.len())?;
                if Ty::of(res) != want {
                    return self.err(
                        node.line,
                        format!(
                            "the result '{name}(...)' is {} where {} is needed",
                            Ty::of(res).name(),
                            want.name()
                        ),
                    );
                }
                let mut rs = Vec::new();
                for (a, t) in args.iter().zip(arg_tys) {
                    rs.push(self.result(a, Ty::of(t))?);
                }
                Ok(Res::Op(name.clone(), rs))
            }
            Ast::Ident(name) if self.vars.iter().any(|v| &v.name == name) => {
                let i = self.vars.iter().position(|v| &v.name == name).unwrap();
                if self.vars[i].ty != want {
                    return self.err(
                        node.line,
                        format!(
                            "'{name}' is {} where {} is needed",
                            self.vars[i].ty.name(),
                            want.name()
                        ),
                    );
                }
                Ok(Res::Var(i))
            }
            _ => {
                let (e, t) = self.expr(node)?;
                let ok = matches!((want, t), (Ty::Signed, ETy::Int) | (Ty::Bool, ETy::Bool));
                if !ok {
                    return self.err(
                        node.line,
                        format!(
                            "{node} is {} where a {} value is needed",
                            t.name(),
                            want.name()
                        ),
                    );
                }
                Ok(Res::Const(e, want))
            }
        }
    }
}

fn fold(e: &Expr) -> Option<i64> {
    Some(match e {
        Expr::Lit(v) => *v,
        Expr::Un("Neg", a) => UnOp::Neg.apply(fold(a)?),
        Expr::Un("Invert", a) => UnOp::Invert.apply(fold(a)?),
        Expr::Bin(op, a, b) => op.apply(fold(a)?, fold(b)?)?,
        _ => return None,
    })
}

fn pat_cost(p: &Pat) -> u32 {
    match p {
        Pat::Op(name, args) => {
            Opcode::from_name(name).map_or(1, op_cost) + args.iter().map(pat_cost).sum::<u32>()
        }
        _ => 0,
    }
}

fn res_cost(r: &Res) -> u32 {
    match r {
        Res::Op(name, args) => {
            Opcode::from_name(name).map_or(1, op_cost) + args.iter().map(res_cost).sum::<u32>()
        }
        _ => 0,
    }
}

fn check(rule: &Located) -> Result<Checked, RuleError> {
    let raw = &rule.raw;
    let mut cx = Ctx {
        rule,
        vars: Vec::new(),
        lets: Vec::new(),
    };
    if let Some((_, line)) = &raw.target {
        return cx.err(*line, "integer rules have no '-> Type'");
    }
    let Ast::Call {
        name,
        runtime: false,
        ..
    } = &raw.head.ast
    else {
        return cx.err(
            raw.head.line,
            "the pattern must be an operation, like int_add(x, 0)",
        );
    };
    let ty = match opt_op(name) {
        Some((_, b)) => Ty::of(b),
        None => Ty::Signed, // op_sig reports the error below
    };
    let lhs = cx.pattern(&raw.head, ty)?;
    let mut steps = Vec::new();
    for s in &raw.steps {
        match s {
            Step::Check(e) => {
                let (ex, t) = cx.expr(e)?;
                if t != ETy::Bool {
                    return cx.err(e.line, format!("check {e}: a check must be a truth value"));
                }
                steps.push(CStep::Check(ex));
            }
            Step::Let { name, value, line } => {
                if cx.vars.iter().any(|v| &v.name == name) || cx.lets.iter().any(|(n, _)| n == name)
                {
                    return cx.err(*line, format!("'{name}' is already bound"));
                }
                let (ex, t) = cx.expr(value)?;
                let slot = cx.vars.len() + cx.lets.len();
                cx.lets.push((name.clone(), t));
                steps.push(CStep::Let(slot, ex));
            }
        }
    }
    let rhs = cx.result(&raw.result, ty)?;
    let (lc, rc) = (pat_cost(&lhs), res_cost(&rhs));
    if rc > lc {
        return cx.err(
            raw.result.line,
            format!("the result costs more than the pattern ({rc} > {lc}); rules must not make code more expensive"),
        );
    }
    Ok(Checked {
        index: rule.index,
        name: raw.name.clone(),
        vars: cx.vars,
        lets: cx.lets,
        lhs,
        steps,
        rhs,
        ty,
    })
}

/// The `Opcode` variant of an operation the checker found in `LL_OPS`.
fn variant(name: &str) -> String {
    Opcode::from_name(name).map_or(name.to_string(), |op| op.variant_name().to_string())
}

fn gen_pat(p: &Pat) -> String {
    match p {
        Pat::Var(i) => format!("Pat::Var({i})"),
        Pat::Int(v) => format!("Pat::Int({})", int_lit(*v)),
        Pat::Bool(b) => format!("Pat::Bool({b})"),
        Pat::Op(name, args) => format!(
            "Pat::Op(Opcode::{}, &[{}])",
            variant(name),
            args.iter().map(gen_pat).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn gen_expr(e: &Expr) -> String {
    match e {
        Expr::Slot(i) => format!("Expr::Slot({i})"),
        Expr::Lit(v) => format!("Expr::Lit({})", int_lit(*v)),
        Expr::Un(op, a) => format!("Expr::Un(UnOp::{op}, &{})", gen_expr(a)),
        Expr::Bin(op, a, b) => format!(
            "Expr::Bin(BinOp::{}, &{}, &{})",
            op.variant(),
            gen_expr(a),
            gen_expr(b)
        ),
        Expr::HighestBit(a) => format!("Expr::HighestBit(&{})", gen_expr(a)),
        Expr::Fact(f, slot, arg) => format!(
            "Expr::Fact(Fact::{f}, {slot}, {})",
            match arg {
                Some(a) => format!("Some(&{})", gen_expr(a)),
                None => "None".into(),
            }
        ),
    }
}

fn gen_res(r: &Res) -> String {
    match r {
        Res::Var(i) => format!("Res::Var({i})"),
        Res::Const(e, t) => format!("Res::Const({}, Ty::{})", gen_expr(e), t.name()),
        Res::Op(name, args) => format!(
            "Res::Op(Opcode::{}, &[{}])",
            variant(name),
            args.iter().map(gen_res).collect::<Vec<_>>().join(", ")
        ),
    }
}

pub(crate) fn compile(rules: &[&Located]) -> Result<String, Vec<RuleError>> {
    let checked = crate::compile_each(rules, check)?;
    let mut s = String::new();
    s.push_str("// Generated by rpy-rulec from rules/opt/*.rules. Do not edit.\n");
    s.push_str("/// The integer rewrite rules, in file order.\n");
    s.push_str("pub static OPT_RULES: &[OptRule] = &[\n");
    for c in &checked {
        let vars: Vec<String> = c
            .vars
            .iter()
            .map(|v| {
                format!(
                    "OptVar {{ name: {:?}, ty: Ty::{}, const_only: {} }}",
                    v.name,
                    v.ty.name(),
                    v.const_only
                )
            })
            .collect();
        let steps: Vec<String> = c
            .steps
            .iter()
            .map(|st| match st {
                CStep::Check(e) => format!("Step::Check({})", gen_expr(e)),
                CStep::Let(slot, e) => format!("Step::Let({slot}, {})", gen_expr(e)),
            })
            .collect();
        let _ = writeln!(
            s,
            "    OptRule {{ rule: {}, name: {:?}, vars: &[{}], slots: {}, lhs: {}, steps: &[{}], rhs: {}, ty: Ty::{} }},",
            c.index,
            c.name,
            vars.join(", "),
            c.vars.len() + c.lets.len(),
            gen_pat(&c.lhs),
            steps.join(", "),
            gen_res(&c.rhs),
            c.ty.name()
        );
    }
    s.push_str("];\n\n");
    s.push_str(
        "/// The cost of an operation: what extraction minimizes and rules may not increase.\n",
    );
    s.push_str("pub fn op_cost(op: Opcode) -> u64 {\n    match op {\n");
    let mut by_cost: std::collections::BTreeMap<u32, Vec<&str>> = Default::default();
    for op in rpy_ir::llops::LL_OPS {
        if opt_op(op.name()).is_some() {
            by_cost
                .entry(op_cost(op.opcode))
                .or_default()
                .push(op.opcode.variant_name());
        }
    }
    for (cost, variants) in &by_cost {
        let pats: Vec<String> = variants.iter().map(|v| format!("Opcode::{v}")).collect();
        let _ = writeln!(s, "        {} => {cost},", pats.join(" | "));
    }
    s.push_str("        _ => 1,\n    }\n}\n");
    Ok(s)
}

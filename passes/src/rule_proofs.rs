//! Proofs of the integer rules of `rules/opt` with an SMT solver (`rpy
//! rules --prove`): each rule becomes one query over 64-bit bit-vectors
//! asking for inputs where the rule fires (its pattern is defined, its
//! checks hold) and its result is undefined or differs from its pattern.
//! z3 answering `unsat` proves the rule for all 64-bit inputs; `sat`
//! comes with a counterexample, which is checked again on the rule with
//! `eval_int` (`rules::opt::check_rule`), so a fault of this encoding
//! cannot pass for a wrong rule.
//!
//! The encoding follows `llops::eval_int` and `rules::opt::eval_expr`
//! operation by operation: arithmetic wraps (`bvadd`, `bvmul`), C
//! division truncates (`bvsdiv`, `bvsrem`), Python's floors, Bool values
//! are the words 0 and 1; what `eval_int` leaves undefined (a zero
//! divisor, `MIN / -1`, a shift count outside 0..64, `highest_bit` of a
//! non-positive value) is a definedness condition, short-circuited for
//! `and` and `or` as the checks are evaluated. A fact a check asks of a
//! value's IntBound (`x.known_nonneg()`) may be false even where the value
//! has the property, but is true only where it has it: each is a fresh
//! truth value that implies the property, so a proof holds whatever the
//! optimizer knows.
//!
//! z3 runs as a separate program (`z3 -in`); the Debian package `z3`
//! provides it. Most rules take milliseconds. Those of 64-bit division by
//! a power of two or by `1 << n` took 10 to 40 seconds each as one query,
//! as z3 bit-blasts a divider for an unknown divisor; with the divisor (or
//! shift count) fixed, each takes milliseconds. So a rule z3 does not
//! settle within [`QUICK_SECS`] is proven by cases of one variable: each
//! value of 0..64, each power of two, and every other value, which
//! together cover all 64-bit words ([`value_cases`]); it is proven when
//! every case is `unsat`. The variables are tried from the last (the
//! divisor or count, in the rules as written) to the first; each case has
//! the time limit [`TIMEOUT_SECS`], and a rule no split settles is
//! reported as not proven. `prove_all` proves the rules on every core.

use rpy_ir::opcode::Opcode;
use rpy_ruleset::opt::{BinOp, Expr, Fact, OptRule, Pat, Res, Step, Ty, UnOp, OPT_RULES};
use std::io::Write;
use std::process::{Command, Stdio};

/// The time limit of one query, in seconds.
pub const TIMEOUT_SECS: u32 = 300;

/// How long the whole rule's query may take before the rule is proven by
/// cases instead, in seconds.
pub const QUICK_SECS: u32 = 2;

/// What the solver said of one rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proof {
    /// No input makes the rule wrong.
    Proven,
    /// Inputs (each pattern variable's name and value) where the rule
    /// fires and its result is undefined or differs; `confirmed` when
    /// evaluating the rule on them with `eval_int` agrees.
    Counterexample {
        inputs: Vec<(&'static str, i64)>,
        confirmed: bool,
    },
    /// The solver gave no answer (a time-out), or the rule uses an
    /// operation the encoding does not know.
    Unknown(String),
}

/// Whether the z3 program can be run.
pub fn z3_available() -> bool {
    Command::new("z3")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn lit(v: i64) -> String {
    format!("#x{:016x}", v as u64)
}

const ZERO: &str = "#x0000000000000000";
const ONE: &str = "#x0000000000000001";
const MIN: &str = "#x8000000000000000";
const MINUS_ONE: &str = "#xffffffffffffffff";

fn bool_word(cond: String) -> String {
    format!("(ite {cond} {ONE} {ZERO})")
}

fn and(parts: &[String]) -> String {
    match parts {
        [] => "true".into(),
        [one] => one.clone(),
        _ => format!("(and {})", parts.join(" ")),
    }
}

/// A term: its 64-bit value and the condition under which it is defined.
struct Term {
    value: String,
    defined: String,
}

/// The query being built: declarations and assertions.
struct Query {
    decls: Vec<String>,
    asserts: Vec<String>,
    fresh: usize,
    /// Each pattern variable's type (facts of a let slot are never known).
    vars: usize,
}

impl Query {
    fn fresh_word(&mut self) -> String {
        self.fresh += 1;
        let name = format!("t{}", self.fresh);
        self.decls
            .push(format!("(declare-const {name} (_ BitVec 64))"));
        name
    }
}

fn slot(i: usize) -> String {
    format!("s{i}")
}

/// The value of operation `name` on `args`, as `eval_int` defines it.
fn op(name: Opcode, args: Vec<Term>) -> Result<Term, String> {
    let defined: Vec<String> = args.iter().map(|a| a.defined.clone()).collect();
    let v: Vec<&str> = args.iter().map(|a| a.value.as_str()).collect();
    let div_ok = |x: &str, y: &str| {
        format!("(and (not (= {y} {ZERO})) (not (and (= {x} {MIN}) (= {y} {MINUS_ONE}))))")
    };
    let shift_ok = |y: &str| format!("(and (bvsge {y} {ZERO}) (bvslt {y} {}))", lit(64));
    let (value, extra) = match (name, v.as_slice()) {
        (Opcode::IntAdd, [x, y]) => (format!("(bvadd {x} {y})"), None),
        (Opcode::IntSub, [x, y]) => (format!("(bvsub {x} {y})"), None),
        (Opcode::IntMul, [x, y]) => (format!("(bvmul {x} {y})"), None),
        (Opcode::IntFloordiv, [x, y]) => (format!("(bvsdiv {x} {y})"), Some(div_ok(x, y))),
        (Opcode::IntMod, [x, y]) => (format!("(bvsrem {x} {y})"), Some(div_ok(x, y))),
        (Opcode::IntPyDiv, [x, y]) => (
            format!(
                "(ite (and (not (= (bvsrem {x} {y}) {ZERO})) (not (= (bvslt {x} {ZERO}) (bvslt {y} {ZERO})))) (bvsub (bvsdiv {x} {y}) {ONE}) (bvsdiv {x} {y}))"
            ),
            Some(div_ok(x, y)),
        ),
        (Opcode::IntPyMod, [x, y]) => (
            format!(
                "(ite (and (not (= (bvsrem {x} {y}) {ZERO})) (not (= (bvslt (bvsrem {x} {y}) {ZERO}) (bvslt {y} {ZERO})))) (bvadd (bvsrem {x} {y}) {y}) (bvsrem {x} {y}))"
            ),
            Some(div_ok(x, y)),
        ),
        (Opcode::IntAnd, [x, y]) => (format!("(bvand {x} {y})"), None),
        (Opcode::IntOr, [x, y]) => (format!("(bvor {x} {y})"), None),
        (Opcode::IntXor, [x, y]) => (format!("(bvxor {x} {y})"), None),
        (Opcode::IntLshift, [x, y]) => (format!("(bvshl {x} {y})"), Some(shift_ok(y))),
        (Opcode::IntRshift, [x, y]) => (format!("(bvashr {x} {y})"), Some(shift_ok(y))),
        (Opcode::IntNeg, [x]) => (format!("(bvneg {x})"), None),
        (Opcode::IntInvert, [x]) => (format!("(bvnot {x})"), None),
        (Opcode::IntAbs, [x]) => (format!("(ite (bvslt {x} {ZERO}) (bvneg {x}) {x})"), None),
        (Opcode::IntLt, [x, y]) => (bool_word(format!("(bvslt {x} {y})")), None),
        (Opcode::IntLe, [x, y]) => (bool_word(format!("(bvsle {x} {y})")), None),
        (Opcode::IntEq, [x, y]) => (bool_word(format!("(= {x} {y})")), None),
        (Opcode::IntNe, [x, y]) => (bool_word(format!("(not (= {x} {y}))")), None),
        (Opcode::IntGt, [x, y]) => (bool_word(format!("(bvsgt {x} {y})")), None),
        (Opcode::IntGe, [x, y]) => (bool_word(format!("(bvsge {x} {y})")), None),
        (Opcode::IntIsTrue, [x]) => (bool_word(format!("(not (= {x} {ZERO}))")), None),
        (Opcode::BoolNot, [x]) => (bool_word(format!("(= {x} {ZERO})")), None),
        (Opcode::CastBoolToInt | Opcode::SameAs, [x]) => (x.to_string(), None),
        (Opcode::IntBetween, [lo, x, hi]) => (
            bool_word(format!("(and (bvsle {lo} {x}) (bvslt {x} {hi}))")),
            None,
        ),
        _ => {
            return Err(format!(
                "the operation {name}/{} has no SMT encoding",
                args.len()
            ))
        }
    };
    let mut defined = defined;
    defined.extend(extra);
    Ok(Term {
        value,
        defined: and(&defined),
    })
}

fn pat(p: &Pat) -> Result<Term, String> {
    match p {
        Pat::Var(i) => Ok(Term {
            value: slot(*i),
            defined: "true".into(),
        }),
        Pat::Int(v) => Ok(Term {
            value: lit(*v),
            defined: "true".into(),
        }),
        Pat::Bool(b) => Ok(Term {
            value: lit(*b as i64),
            defined: "true".into(),
        }),
        Pat::Op(name, args) => op(*name, args.iter().map(pat).collect::<Result<_, _>>()?),
    }
}

/// An expression of a check or let, as `eval_expr` evaluates it.
fn expr(e: &Expr, q: &mut Query) -> Term {
    match e {
        Expr::Slot(i) => Term {
            value: slot(*i),
            defined: "true".into(),
        },
        Expr::Lit(v) => Term {
            value: lit(*v),
            defined: "true".into(),
        },
        Expr::Un(op, a) => {
            let a = expr(a, q);
            let x = &a.value;
            let value = match op {
                UnOp::Not => bool_word(format!("(= {x} {ZERO})")),
                UnOp::Neg => format!("(bvneg {x})"),
                UnOp::Invert => format!("(bvnot {x})"),
            };
            Term {
                value,
                defined: a.defined,
            }
        }
        Expr::Bin(op, a, b) => {
            let a = expr(a, q);
            let b = expr(b, q);
            let (x, y) = (&a.value, &b.value);
            let truth = |t: &str| format!("(not (= {t} {ZERO}))");
            let both = and(&[a.defined.clone(), b.defined.clone()]);
            let shift_ok = format!("(and (bvsge {y} {ZERO}) (bvslt {y} {}))", lit(64));
            let (value, defined) = match op {
                // Short-circuit: the right side matters only when the
                // left does not decide.
                BinOp::And => (
                    bool_word(format!("(and {} {})", truth(x), truth(y))),
                    format!("(and {} (or (= {x} {ZERO}) {}))", a.defined, b.defined),
                ),
                BinOp::Or => (
                    bool_word(format!("(or {} {})", truth(x), truth(y))),
                    format!("(and {} (or {} {}))", a.defined, truth(x), b.defined),
                ),
                BinOp::Eq => (bool_word(format!("(= {x} {y})")), both),
                BinOp::Ne => (bool_word(format!("(not (= {x} {y}))")), both),
                BinOp::Lt => (bool_word(format!("(bvslt {x} {y})")), both),
                BinOp::Le => (bool_word(format!("(bvsle {x} {y})")), both),
                BinOp::Gt => (bool_word(format!("(bvsgt {x} {y})")), both),
                BinOp::Ge => (bool_word(format!("(bvsge {x} {y})")), both),
                BinOp::BitOr => (format!("(bvor {x} {y})"), both),
                BinOp::BitXor => (format!("(bvxor {x} {y})"), both),
                BinOp::BitAnd => (format!("(bvand {x} {y})"), both),
                BinOp::Shl => (format!("(bvshl {x} {y})"), and(&[both, shift_ok])),
                BinOp::Shr => (format!("(bvashr {x} {y})"), and(&[both, shift_ok])),
                BinOp::Add => (format!("(bvadd {x} {y})"), both),
                BinOp::Sub => (format!("(bvsub {x} {y})"), both),
                BinOp::Mul => (format!("(bvmul {x} {y})"), both),
            };
            Term { value, defined }
        }
        Expr::HighestBit(a) => {
            let a = expr(a, q);
            let x = &a.value;
            let mut value = lit(0);
            for k in 1..63 {
                value = format!("(ite (= ((_ extract {k} {k}) {x}) #b1) {} {value})", lit(k));
            }
            Term {
                value,
                defined: format!("(and {} (bvsgt {x} {ZERO}))", a.defined),
            }
        }
        Expr::Fact(fact, s, arg) => {
            let arg = match arg {
                Some(e) => expr(e, q),
                None => Term {
                    value: lit(0),
                    defined: "true".into(),
                },
            };
            let known = q.fresh_word();
            q.asserts
                .push(format!("(or (= {known} {ZERO}) (= {known} {ONE}))"));
            if *s < q.vars {
                let (x, c) = (slot(*s), &arg.value);
                let property = match fact {
                    Fact::GeConst => format!("(bvsge {x} {c})"),
                    Fact::GtConst => format!("(bvsgt {x} {c})"),
                    Fact::LeConst => format!("(bvsle {x} {c})"),
                    Fact::LtConst => format!("(bvslt {x} {c})"),
                    Fact::Nonneg => format!("(bvsge {x} {ZERO})"),
                    Fact::BitsZero => format!("(= (bvand {x} {c}) {ZERO})"),
                };
                q.asserts.push(format!("(=> (= {known} {ONE}) {property})"));
            } else {
                q.asserts.push(format!("(= {known} {ZERO})"));
            }
            Term {
                value: known,
                defined: arg.defined,
            }
        }
    }
}

fn res(r: &Res, q: &mut Query) -> Result<Term, String> {
    match r {
        Res::Var(i) => Ok(Term {
            value: slot(*i),
            defined: "true".into(),
        }),
        Res::Const(e, Ty::Signed) => Ok(expr(e, q)),
        Res::Const(e, Ty::Bool) => {
            let t = expr(e, q);
            Ok(Term {
                value: bool_word(format!("(not (= {} {ZERO}))", t.value)),
                defined: t.defined,
            })
        }
        Res::Op(name, args) => {
            let args = args
                .iter()
                .map(|a| res(a, q))
                .collect::<Result<Vec<_>, _>>()?;
            op(*name, args)
        }
    }
}

/// The SMT-LIB query for `rule`: satisfiable exactly when some input makes
/// it wrong.
pub fn query(rule: &OptRule) -> Result<String, String> {
    query_in_case(rule, None)
}

/// `query`, restricted to the inputs where `case` (an SMT-LIB Bool term
/// over the slots) holds.
fn query_in_case(rule: &OptRule, case: Option<&str>) -> Result<String, String> {
    let mut q = Query {
        decls: Vec::new(),
        asserts: Vec::new(),
        fresh: 0,
        vars: rule.vars.len(),
    };
    for i in 0..rule.slots {
        q.decls
            .push(format!("(declare-const {} (_ BitVec 64))", slot(i)));
    }
    for (i, v) in rule.vars.iter().enumerate() {
        if v.ty == Ty::Bool {
            q.asserts
                .push(format!("(or (= {0} {ZERO}) (= {0} {ONE}))", slot(i)));
        }
    }
    let lhs = pat(&rule.lhs)?;
    q.asserts.push(lhs.defined.clone());
    for step in rule.steps {
        match step {
            Step::Check(e) => {
                let t = expr(e, &mut q);
                q.asserts.push(t.defined);
                q.asserts.push(format!("(= {} {ONE})", t.value));
            }
            Step::Let(s, e) => {
                let t = expr(e, &mut q);
                q.asserts.push(t.defined);
                q.asserts.push(format!("(= {} {})", slot(*s), t.value));
            }
        }
    }
    let rhs = res(&rule.rhs, &mut q)?;
    q.asserts.push(format!(
        "(not (and {} (= {} {})))",
        rhs.defined, rhs.value, lhs.value
    ));
    let mut text = format!(
        "; rule {}\n(set-option :produce-models true)\n(set-logic QF_BV)\n",
        rule.name
    );
    for d in &q.decls {
        text += d;
        text += "\n";
    }
    for a in q.asserts.iter().map(String::as_str).chain(case) {
        text += &format!("(assert {a})\n");
    }
    text += "(check-sat)\n";
    if rule.vars.is_empty() {
        return Ok(text);
    }
    let names: Vec<String> = (0..rule.vars.len()).map(slot).collect();
    text += &format!("(get-value ({}))\n", names.join(" "));
    Ok(text)
}

/// Runs z3 on `text` for at most `seconds`; its standard output.
fn run_z3(text: &str, seconds: u32) -> Result<String, String> {
    let mut child = Command::new("z3")
        .args(["-in", "-smt2", &format!("-T:{seconds}")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run z3: {e}"))?;
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(text.as_bytes())
        .map_err(|e| format!("cannot write to z3: {e}"))?;
    let out = child
        .wait_with_output()
        .map_err(|e| format!("z3 failed: {e}"))?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The values of `(get-value (s0 s1 ...))`'s answer, by slot.
fn model_values(answer: &str, n: usize) -> Option<Vec<i64>> {
    let mut values = vec![None; n];
    let mut rest = answer;
    while let Some(open) = rest.find("(s") {
        rest = &rest[open + 2..];
        let end = rest.find(')')?;
        let (index, value) = rest[..end].trim().split_once(char::is_whitespace)?;
        let index: usize = index.parse().ok()?;
        let value = value.trim();
        let word = if let Some(hex) = value.strip_prefix("#x") {
            u64::from_str_radix(hex, 16).ok()?
        } else if let Some(bin) = value.strip_prefix("#b") {
            u64::from_str_radix(bin, 2).ok()?
        } else {
            return None;
        };
        *values.get_mut(index)? = Some(word as i64);
        rest = &rest[end..];
    }
    values.into_iter().collect()
}

/// Proves rule `rule` with z3: as one query, or by the cases of one of
/// its variables when that query takes longer than [`QUICK_SECS`].
pub fn prove(rule: &OptRule) -> Proof {
    match prove_case(rule, None, QUICK_SECS) {
        Answer::Settled(proof) => proof,
        Answer::NotInTime(_) => prove_by_cases(rule),
    }
}

/// What z3 made of one query.
enum Answer {
    /// A proof, a counterexample, or a query that cannot be asked.
    Settled(Proof),
    /// No answer within the time limit: why, for the report.
    NotInTime(String),
}

impl Answer {
    fn into_proof(self) -> Proof {
        match self {
            Answer::Settled(proof) => proof,
            Answer::NotInTime(why) => Proof::Unknown(why),
        }
    }
}

/// Proves `rule` for every value of one of its integer variables in turn
/// (see the module's comment); what `prove` falls back to.
pub fn prove_by_cases(rule: &OptRule) -> Proof {
    let mut why = format!("z3 answered nothing in {QUICK_SECS} s for the whole rule");
    for (i, var) in rule.vars.iter().enumerate().rev() {
        if var.ty == Ty::Bool {
            continue;
        }
        let mut outcome = Proof::Proven;
        for case in value_cases(&slot(i)) {
            outcome = prove_case(rule, Some(&case), TIMEOUT_SECS).into_proof();
            if outcome != Proof::Proven {
                break;
            }
        }
        match outcome {
            Proof::Unknown(unsettled) => {
                why = format!("{why}; by the cases of '{}': {unsettled}", var.name)
            }
            settled => return settled,
        }
    }
    Proof::Unknown(why)
}

/// Terms that split the values of the 64-bit word `var`: each value of
/// 0..64, each power of two from 64 up, and all other values. Some case
/// holds for every word.
fn value_cases(var: &str) -> Vec<String> {
    let values: Vec<u64> = (0..64).chain((6..64).map(|k| 1u64 << k)).collect();
    let equals: Vec<String> = values
        .iter()
        .map(|&v| format!("(= {var} {})", lit(v as i64)))
        .collect();
    let others = format!(
        "(and {})",
        equals
            .iter()
            .map(|e| format!("(not {e})"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    equals.into_iter().chain([others]).collect()
}

/// One z3 query for `rule` (restricted to `case`), answered within `seconds`.
fn prove_case(rule: &OptRule, case: Option<&str>, seconds: u32) -> Answer {
    let text = match query_in_case(rule, case) {
        Ok(t) => t,
        Err(e) => return Answer::Settled(Proof::Unknown(e)),
    };
    let out = match run_z3(&text, seconds) {
        Ok(o) => o,
        Err(e) => return Answer::Settled(Proof::Unknown(e)),
    };
    let mut lines = out.lines();
    let proof = match lines.next().map(str::trim) {
        Some("unsat") => Proof::Proven,
        Some("sat") => {
            let rest: String = lines.collect::<Vec<_>>().join(" ");
            let Some(values) = model_values(&rest, rule.vars.len()) else {
                return Answer::Settled(Proof::Unknown(format!(
                    "z3 found a counterexample but gave no model: {out}"
                )));
            };
            let confirmed = matches!(
                rpy_ruleset::opt::check_opt_rule(rule, &values),
                rpy_ruleset::opt::RuleCheck::Disagree { .. }
            );
            Proof::Counterexample {
                inputs: rule.vars.iter().map(|v| v.name).zip(values).collect(),
                confirmed,
            }
        }
        other => {
            return Answer::NotInTime(format!(
                "z3 answered {:?} (time limit {seconds} s)",
                other.unwrap_or("nothing")
            ))
        }
    };
    Answer::Settled(proof)
}

/// One rule's proof and how long it took.
pub struct RuleProof {
    pub rule: &'static OptRule,
    pub proof: Proof,
    pub elapsed: std::time::Duration,
}

/// Proves every rule of `rules/opt`, on every core: each rule, its
/// outcome and time, in file order.
pub fn prove_all() -> Vec<RuleProof> {
    use rayon::prelude::*;
    OPT_RULES
        .par_iter()
        .map(|rule| {
            let started = std::time::Instant::now();
            let proof = prove(rule);
            RuleProof {
                rule,
                proof,
                elapsed: started.elapsed(),
            }
        })
        .collect()
}

//! `rewrite`: the integer rewrite rules of `rules/opt/` — the same rules the
//! translation-time e-graph uses — applied by a forward matcher. An
//! operation is matched against every rule whose pattern has its name at
//! the root; nested patterns are matched through the operations that define
//! the arguments. Facts (`x.known_nonneg()`, ...) are answered from the
//! bounds `intbounds` computed. The first rule that fires replaces the
//! operation: by a value (the result box then stands for it), or by new
//! operations, which go through the whole chain again.

use rpy_passes::rules::opt::{eval_expr, BoundFacts, Facts, OptRule, Pat, Res, Ty, OPT_RULES};

use crate::trace::{opcode, BoxId, Kind, Op, Opcode, Value, OPS};

use super::{IntBound, Next, Optimization, Shared, WordMap};

/// A rule's pattern with trace opcodes in place of operation names
/// (comparing names was a tenth of the matcher's time).
enum CompiledPat {
    Var(usize),
    Int(i64),
    Op(Opcode, Vec<CompiledPat>),
}

impl CompiledPat {
    /// `None` when the pattern names an operation traces do not have: the
    /// rule cannot match a trace.
    fn of(p: &Pat) -> Option<CompiledPat> {
        Some(match p {
            Pat::Var(i) => CompiledPat::Var(*i),
            Pat::Int(c) => CompiledPat::Int(*c),
            Pat::Bool(b) => CompiledPat::Int(*b as i64),
            Pat::Op(name, args) => CompiledPat::Op(
                opcode(trace_name(name))?,
                args.iter().map(CompiledPat::of).collect::<Option<_>>()?,
            ),
        })
    }
}

struct CompiledRule {
    rule: &'static OptRule,
    lhs: CompiledPat,
}

/// The rules whose pattern is rooted at each operation (by opcode), in
/// file order: the matcher looks only at those, not at every rule for every
/// operation.
fn rules_for(code: Opcode) -> &'static [CompiledRule] {
    static BY_ROOT: std::sync::LazyLock<Vec<Vec<CompiledRule>>> = std::sync::LazyLock::new(|| {
        let mut by_root: Vec<Vec<CompiledRule>> = OPS.iter().map(|_| Vec::new()).collect();
        for rule in OPT_RULES {
            // the pattern must match trace operations, and the result
            // be expressible in the trace
            if let Some(lhs @ CompiledPat::Op(code, _)) = CompiledPat::of(&rule.lhs) {
                if expressible(&rule.rhs) {
                    by_root[code].push(CompiledRule { rule, lhs });
                }
            }
        }
        by_root
    });
    &BY_ROOT[code]
}

/// Whether every operation of a rule's result has a trace opcode.
fn expressible(r: &Res) -> bool {
    match r {
        Res::Op(name, args) => opcode(trace_name(name)).is_some() && args.iter().all(expressible),
        _ => true,
    }
}

/// The trace name of a rule's operation (rules speak `llops`).
fn trace_name(rule_op: &str) -> &str {
    match rule_op {
        "bool_not" => "int_is_zero",
        n => n,
    }
}

struct Matcher<'a> {
    sh: &'a Shared,
    rule: &'static OptRule,
    vals: &'a mut [Option<Value>],
}

/// Rules with at most this many variables are matched without allocating
/// (most rules do not match: the attempt must be cheap).
const INLINE_VARS: usize = 8;

impl Matcher<'_> {
    fn bind(&mut self, slot: usize, v: Value) -> bool {
        let var = &self.rule.vars[slot];
        if var.const_only && !matches!(v, Value::Int(_)) {
            return false;
        }
        if var.ty == Ty::Bool && !self.sh.bound(v).is_bool() {
            return false;
        }
        match self.vals[slot] {
            Some(old) => old == v,
            None => {
                self.vals[slot] = Some(v);
                true
            }
        }
    }

    fn value(&mut self, p: &CompiledPat, v: Value) -> bool {
        let v = self.sh.resolve(v);
        match p {
            CompiledPat::Var(i) => self.bind(*i, v),
            CompiledPat::Int(c) => v == Value::Int(*c),
            CompiledPat::Op(..) => {
                let sh = self.sh;
                match sh.def_of(v) {
                    Some(def) => self.op(p, def),
                    None => false,
                }
            }
        }
    }

    fn op(&mut self, p: &CompiledPat, op: &Op) -> bool {
        let CompiledPat::Op(code, args) = p else {
            return false;
        };
        if op.opcode != *code || args.len() != op.args.len() {
            return false;
        }
        args.iter().zip(&op.args).all(|(p, v)| self.value(p, *v))
    }
}

/// Tries `rule` on `op`; the replacement when it fires.
fn try_rule(sh: &mut Shared, compiled: &CompiledRule, op: &Op) -> Option<Vec<Op>> {
    let rule = compiled.rule;
    let mut inline = [None; INLINE_VARS];
    let mut spilled = Vec::new();
    let n = rule.vars.len();
    let vals: &mut [Option<Value>] = if n <= INLINE_VARS {
        &mut inline[..n]
    } else {
        spilled.resize(n, None);
        &mut spilled
    };
    let mut m = Matcher { sh, rule, vals };
    if !m.op(&compiled.lhs, op) {
        return None;
    }
    let vals: Vec<Value> = m.vals.iter().map(|v| v.unwrap_or(Value::Int(0))).collect();
    let mut slots: Vec<Option<i64>> = vals
        .iter()
        .map(|v| match v {
            Value::Int(c) => Some(*c),
            _ => None,
        })
        .collect();
    let bounds: Vec<IntBound> = vals.iter().map(|v| sh.bound(*v)).collect();
    let facts = BoundFacts(&bounds);
    if !rule.try_steps(&mut slots, &facts) {
        return None;
    }
    let mut new_ops = Vec::new();
    let result = build(
        sh,
        &rule.rhs,
        &vals,
        &slots,
        &facts,
        op.result,
        &mut new_ops,
    )?;
    rpy_passes::rules::fire(rule.rule);
    match (result, op.result) {
        (Built::Value(v), Some(r)) => {
            sh.make_equal(r, v);
        }
        (Built::Value(_), None) => return None,
        (Built::Op, _) => {}
    }
    Some(new_ops)
}

enum Built {
    /// An existing value or a constant.
    Value(Value),
    /// The root operation, pushed last into the new ops.
    Op,
}

fn build(
    sh: &mut Shared,
    r: &Res,
    vals: &[Value],
    slots: &[Option<i64>],
    facts: &dyn Facts,
    root: Option<usize>,
    out: &mut Vec<Op>,
) -> Option<Built> {
    Some(match r {
        Res::Var(i) => Built::Value(vals.get(*i).copied()?),
        Res::Const(e, ty) => {
            let v = eval_expr(e, slots, facts)?;
            Built::Value(Value::Int(if *ty == Ty::Bool {
                (v != 0) as i64
            } else {
                v
            }))
        }
        Res::Op(name, args) => {
            let mut argv = Vec::new();
            for a in args.iter() {
                match build(sh, a, vals, slots, facts, None, out)? {
                    Built::Value(v) => argv.push(v),
                    Built::Op => {
                        let last = out.last()?;
                        argv.push(Value::Box(last.result?));
                    }
                }
            }
            let result = match root {
                Some(r) => r,
                None => sh.new_box(Kind::Int),
            };
            out.push(Op::new(opcode(trace_name(name))?, argv, Some(result)));
            Built::Op
        }
    })
}

/// The `rewrite` optimization: the rules, and the class known of each
/// object (as PyPy's rewrite keeps it): after `guard_class(p, C)` or
/// `p = new_with_vtable(descr=C)`, a `guard_class(p, C)` or a
/// `guard_nonnull(p)` proves nothing new and goes.
#[derive(Clone, Default)]
pub struct OptRewrite {
    known_class: WordMap<BoxId, u64>,
}

impl OptRewrite {
    /// What to do with `op` as far as classes go.
    fn classes(&mut self, op: &Op, sh: &Shared) -> ClassStep {
        let header = &sh.trace.header;
        let object = || op.args.first().and_then(|v| sh.resolve(*v).as_box());
        match op.name() {
            "label" => {
                self.known_class.clear();
                ClassStep::Emit
            }
            "new_with_vtable" => match (op.result, op.descr.and_then(|d| header.class_id(d))) {
                (Some(r), Some(c)) => ClassStep::EmitKnowing(r, c),
                _ => ClassStep::Emit,
            },
            "guard_class" | "guard_nonnull_class" => {
                let class = match op.args.get(1).map(|v| sh.resolve(*v)) {
                    Some(Value::Class(d)) => header.class_id(d),
                    Some(Value::Int(c)) => Some(c as u64),
                    _ => None,
                };
                match (object(), class) {
                    (Some(p), Some(c)) if self.known_class.get(&p) == Some(&c) => ClassStep::Drop,
                    (Some(p), Some(c)) => ClassStep::EmitKnowing(p, c),
                    _ => ClassStep::Emit,
                }
            }
            "guard_nonnull" => match object() {
                Some(p) if self.known_class.contains_key(&p) => ClassStep::Drop,
                _ => ClassStep::Emit,
            },
            _ => ClassStep::NotMine,
        }
    }
}

/// What [`OptRewrite::classes`] decided.
enum ClassStep {
    NotMine,
    Emit,
    /// Emit, then the box has this class id.
    EmitKnowing(BoxId, u64),
    /// Proven: drop the guard.
    Drop,
}

impl Optimization for OptRewrite {
    fn name(&self) -> &'static str {
        "rewrite"
    }

    fn fork(&self, _: &mut super::Forks) -> Box<dyn Optimization> {
        Box::new(self.clone())
    }

    fn propagate(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        match self.classes(&op, sh) {
            ClassStep::NotMine => {}
            ClassStep::Emit => return next.emit(op, sh),
            ClassStep::EmitKnowing(b, c) => {
                next.emit(op, sh);
                self.known_class.insert(b, c);
                return;
            }
            ClassStep::Drop => return,
        }
        if op.info().pure && op.result.is_some() {
            for rule in rules_for(op.opcode) {
                if let Some(new_ops) = try_rule(sh, rule, &op) {
                    for o in new_ops {
                        sh.send_extra(o);
                    }
                    return;
                }
            }
        }
        next.emit(op, sh);
    }
}

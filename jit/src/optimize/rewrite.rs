//! `rewrite`: the integer rewrite rules of `rules/opt/` — the same rules the
//! translation-time e-graph uses — applied by a forward matcher. An
//! operation is matched against every rule whose pattern has its name at
//! the root; nested patterns are matched through the operations that define
//! the arguments. Facts (`x.known_nonneg()`, ...) are answered from the
//! bounds `intbounds` computed. The first rule that fires replaces the
//! operation: by a value (the result box then stands for it), or by new
//! operations, which go through the whole chain again.

use rpy_ir::opcode::Opcode as GraphOpcode;
use rpy_ruleset::opt::{eval_expr, BoundFacts, Facts, OptRule, Pat, Res, Ty, OPT_RULES};

use crate::trace::{array_equivalent, opcode, BoxId, Kind, Op, Opcode, Value, OPS};

use super::{IntBound, Next, Optimization, Shared};

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
            // a trace's truth values are its integers 0 and 1: the cast is
            // its operand (a `Bool` variable binds only a value bound 0..1)
            Pat::Op(name, args) if *name == GraphOpcode::CastBoolToInt => {
                CompiledPat::of(args.first()?)?
            }
            Pat::Op(name, args) => CompiledPat::Op(
                opcode(trace_name(name.name()))?,
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
                    by_root[code as usize].push(CompiledRule { rule, lhs });
                }
            }
        }
        by_root
    });
    &BY_ROOT[code as usize]
}

/// Whether every operation of a rule's result has a trace opcode.
fn expressible(r: &Res) -> bool {
    match r {
        Res::Op(name, args) if *name == GraphOpcode::CastBoolToInt => args.iter().all(expressible),
        Res::Op(name, args) => {
            opcode(trace_name(name.name())).is_some() && args.iter().all(expressible)
        }
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

/// The plain operation of an overflow-checking one.
fn plain_of_checked(code: Opcode) -> Option<Opcode> {
    static PLAIN: std::sync::LazyLock<Vec<Option<Opcode>>> = std::sync::LazyLock::new(|| {
        OPS.iter()
            .map(|o| o.name.strip_suffix("_ovf").and_then(opcode))
            .collect()
    });
    PLAIN[code as usize]
}

/// Whether `v` is 0 or 1: by its bound (with `intbounds` before), or by
/// being the result of a comparison or truth test (without it).
fn is_truth_value(sh: &Shared, v: Value) -> bool {
    sh.bound(v).is_bool()
        || sh.def_of(v).is_some_and(|d| {
            matches!(
                d.name(),
                "int_lt"
                    | "int_le"
                    | "int_eq"
                    | "int_ne"
                    | "int_gt"
                    | "int_ge"
                    | "uint_lt"
                    | "uint_le"
                    | "uint_gt"
                    | "uint_ge"
                    | "int_is_true"
                    | "int_is_zero"
                    | "ptr_eq"
                    | "ptr_ne"
                    | "instance_ptr_eq"
                    | "instance_ptr_ne"
                    | "float_lt"
                    | "float_le"
                    | "float_eq"
                    | "float_ne"
                    | "float_gt"
                    | "float_ge"
            )
        })
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
        if var.ty == Ty::Bool && !is_truth_value(self.sh, v) {
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
                    Some(def) => self.op(p, def, true),
                    None => false,
                }
            }
        }
    }

    /// Whether `op` matches `p`; a nested one (the definition of an
    /// argument) may be the checked twin of `p`'s operation once its
    /// `guard_no_overflow` passed: its value is the plain one's.
    fn op(&mut self, p: &CompiledPat, op: &Op, nested: bool) -> bool {
        let CompiledPat::Op(code, args) = p else {
            return false;
        };
        let same_op = op.opcode == *code
            || nested
                && self.sh.any_passed_overflow_check()
                && plain_of_checked(op.opcode) == Some(*code)
                && op
                    .result
                    .is_some_and(|r| self.sh.passed_overflow_check(Value::Box(r)));
        if !same_op || args.len() != op.args.len() {
            return false;
        }
        args.iter().zip(&op.args).all(|(p, v)| self.value(p, *v))
    }
}

/// Tries `rule` on `op`; the replacement when it fires.
/// `slots` is a buffer for the rule's checks, reused from one match to
/// the next (a match is tried for nearly every rule of an operation).
fn try_rule(
    sh: &mut Shared,
    compiled: &CompiledRule,
    op: &Op,
    slots: &mut Vec<Option<i64>>,
) -> Option<Vec<Op>> {
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
    if !m.op(&compiled.lhs, op, false) {
        return None;
    }
    // the matched values and their bounds, without allocating for the
    // usual few variables (most matches fail their checks)
    let (mut inline_vals, mut inline_bounds) = (
        [Value::Int(0); INLINE_VARS],
        [IntBound::unbounded(); INLINE_VARS],
    );
    let (mut spilled_vals, mut spilled_bounds) = (Vec::new(), Vec::new());
    let (vals, bounds): (&mut [Value], &mut [IntBound]) = if n <= INLINE_VARS {
        (&mut inline_vals[..n], &mut inline_bounds[..n])
    } else {
        spilled_vals.resize(n, Value::Int(0));
        spilled_bounds.resize(n, IntBound::unbounded());
        (&mut spilled_vals, &mut spilled_bounds)
    };
    for ((v, b), matched) in vals.iter_mut().zip(bounds.iter_mut()).zip(m.vals.iter()) {
        *v = matched.unwrap_or(Value::Int(0));
        *b = sh.bound(*v);
    }
    slots.clear();
    slots.extend(vals.iter().map(|v| match v {
        Value::Int(c) => Some(*c),
        _ => None,
    }));
    let facts = BoundFacts(bounds);
    if !rule.try_steps(slots, &facts) {
        return None;
    }
    let mut new_ops = Vec::new();
    let result = build(sh, &rule.rhs, vals, slots, &facts, op.result, &mut new_ops)?;
    rpy_ruleset::fire(rule.rule);
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
        // the cast of a truth value is the value (0 or 1) in a trace
        Res::Op(name, args) if *name == GraphOpcode::CastBoolToInt => {
            build(sh, args.first()?, vals, slots, facts, root, out)?
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
            out.push(Op::new(
                opcode(trace_name(name.name()))?,
                argv,
                Some(result),
            ));
            Built::Op
        }
    })
}

/// The `rewrite` optimization: the rules, and the guards on pointers (as
/// PyPy's rewrite does them), from the facts [`Shared::pointer`] keeps: a
/// pointer is known non-null after `guard_nonnull`, `guard_true(ptr_ne(p,
/// NULL))`, an allocation or a memory access through it, and of a class
/// after `guard_class` or `new_with_vtable`. A guard those facts prove
/// goes; a null check they decide folds; a `guard_class` right after a
/// `guard_nonnull` of the same object with the same fail args becomes one
/// `guard_nonnull_class`.
#[derive(Clone, Default)]
pub struct OptRewrite {
    /// The object and output index of the last `guard_nonnull` emitted, a
    /// `guard_class` may merge into.
    last_nonnull_guard: Option<(BoxId, usize)>,
    /// The buffer of [`try_rule`]'s check slots.
    rule_slots: Vec<Option<i64>>,
}

/// What [`OptRewrite::pointers`] decided.
enum PtrStep {
    /// Not a pointer operation: on to the rules.
    NotMine,
    /// Emit it.
    Emit,
    /// Proven, or merged into an earlier guard: drop it.
    Drop,
    /// Its result is this constant.
    Fold(i64),
}

impl OptRewrite {
    /// What to do with `op` as far as pointer facts go.
    fn pointers(&mut self, op: &Op, sh: &mut Shared) -> PtrStep {
        let object = op.args.first().map(|v| sh.resolve(*v));
        let name = op.opcode;
        match name {
            Opcode::Label => {
                sh.forget_pointers();
                self.last_nonnull_guard = None;
                PtrStep::Emit
            }
            Opcode::GuardClass | Opcode::GuardNonnullClass => {
                let (Some(p), Some(class)) = (object, sh.class_named(op.args[1])) else {
                    return PtrStep::Emit;
                };
                if sh.pointer(p).class == Some(class) {
                    return PtrStep::Drop;
                }
                let merged = name == Opcode::GuardClass && self.merge_class_guard(op, sh);
                sh.learn_class(p, class);
                if merged {
                    PtrStep::Drop
                } else {
                    PtrStep::Emit
                }
            }
            Opcode::GuardNonnull => match object {
                Some(p) if sh.pointer(p).nonnull || matches!(p, Value::Class(_)) => PtrStep::Drop,
                _ => PtrStep::Emit,
            },
            Opcode::GuardIsnull if object == Some(Value::NullPtr) => PtrStep::Drop,
            Opcode::PtrEq | Opcode::PtrNe | Opcode::InstancePtrEq | Opcode::InstancePtrNe => {
                if sh.never_alias(op.args[0], op.args[1]) {
                    PtrStep::Fold(name.is_not_equal() as i64)
                } else {
                    PtrStep::Emit
                }
            }
            _ => PtrStep::NotMine,
        }
    }

    /// Turns the `guard_nonnull` just emitted for `op`'s object into a
    /// `guard_nonnull_class`, when failing there is the same as failing at
    /// `op`: the same fail args, and nothing between the two that a run
    /// could tell apart (no guard, no side effect).
    fn merge_class_guard(&mut self, op: &Op, sh: &mut Shared) -> bool {
        let Some((p, at)) = self.last_nonnull_guard else {
            return false;
        };
        let ops = &sh.trace.ops;
        let mergeable = Value::Box(p) == sh.resolve(op.args[0])
            && ops.get(at).is_some_and(|g| {
                g.opcode == Opcode::GuardNonnull
                    && g.args == [Value::Box(p)]
                    && g.resume.is_none()
                    && g.fail_args == op.fail_args
            })
            && ops[at + 1..]
                .iter()
                .all(|o| !o.is_guard() && (o.info().pure || o.info().removable));
        if mergeable {
            let g = &mut sh.trace.ops[at];
            g.opcode = Opcode::GuardNonnullClass;
            g.args.push(op.args[1]);
        }
        mergeable
    }

    /// What `op`, once emitted, teaches about pointers (asked before it is
    /// emitted, so that the operation need not be copied).
    fn lesson(&self, op: &Op, sh: &Shared) -> Lesson {
        let first = || op.args.first().map_or(Value::NullPtr, |v| sh.resolve(*v));
        // a string operation teaches what its array operation does
        match array_equivalent(op.opcode).unwrap_or(op.opcode) {
            Opcode::NewWithVtable => match (
                op.result,
                op.descr.and_then(|d| sh.trace.header.class_id(d)),
            ) {
                (Some(r), Some(c)) => Lesson::Class(Value::Box(r), c),
                _ => Lesson::Nothing,
            },
            Opcode::New | Opcode::NewArray | Opcode::NewArrayClear => op
                .result
                .map_or(Lesson::Nothing, |r| Lesson::NonNull(Value::Box(r))),
            Opcode::GuardNonnull => Lesson::NonNullGuard(first()),
            Opcode::GuardTrue | Opcode::GuardFalse => {
                let truth = op.opcode == Opcode::GuardTrue;
                let Some(def) = sh.def_of(op.args[0]) else {
                    return Lesson::Nothing;
                };
                let checks_nonnull = match def.opcode {
                    Opcode::PtrNe | Opcode::InstancePtrNe => truth,
                    Opcode::PtrEq | Opcode::InstancePtrEq => !truth,
                    _ => false,
                };
                if !checks_nonnull {
                    return Lesson::Nothing;
                }
                match (sh.resolve(def.args[0]), sh.resolve(def.args[1])) {
                    (p, Value::NullPtr) | (Value::NullPtr, p) => Lesson::NonNull(p),
                    _ => Lesson::Nothing,
                }
            }
            // an access through a null pointer is undefined: one that
            // happened proves the pointer non-null
            Opcode::GetfieldGcI
            | Opcode::GetfieldGcF
            | Opcode::GetfieldGcR
            | Opcode::SetfieldGc
            | Opcode::GetarrayitemGcI
            | Opcode::GetarrayitemGcF
            | Opcode::GetarrayitemGcR
            | Opcode::SetarrayitemGc
            | Opcode::ArraylenGc => Lesson::NonNull(first()),
            _ => Lesson::Nothing,
        }
    }

    fn learn(&mut self, lesson: Lesson, sh: &mut Shared) {
        match lesson {
            Lesson::Nothing => {}
            Lesson::NonNull(p) => sh.learn_nonnull(p),
            Lesson::Class(p, c) => sh.learn_class(p, c),
            Lesson::NonNullGuard(p) => {
                sh.learn_nonnull(p);
                let last = sh.trace.ops.len().checked_sub(1);
                if let (Value::Box(b), Some(at)) = (p, last) {
                    if sh.trace.ops[at].opcode == Opcode::GuardNonnull {
                        self.last_nonnull_guard = Some((b, at));
                    }
                }
            }
        }
    }
}

/// What an operation teaches about pointers once it passed.
enum Lesson {
    Nothing,
    NonNull(Value),
    Class(Value, u64),
    /// A `guard_nonnull` that a `guard_class` may merge into.
    NonNullGuard(Value),
}

impl Optimization for OptRewrite {
    fn name(&self) -> &'static str {
        "rewrite"
    }

    fn fork(&self, _: &mut super::Forks) -> Box<dyn Optimization> {
        Box::new(self.clone())
    }

    fn propagate(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let info = op.info();
        if info.pure && info.result == Kind::Int && !info.args.contains('r') {
            // integer arithmetic: no pointer facts to use or learn
            return self.rules(op, sh, next);
        }
        match self.pointers(&op, sh) {
            PtrStep::NotMine => {}
            PtrStep::Emit => {
                let lesson = self.lesson(&op, sh);
                next.emit(op, sh);
                return self.learn(lesson, sh);
            }
            PtrStep::Drop => return,
            PtrStep::Fold(c) => {
                if let Some(r) = op.result {
                    sh.make_equal(r, Value::Int(c));
                }
                return;
            }
        }
        if op.info().pure && op.result.is_some() {
            return self.rules(op, sh, next);
        }
        let lesson = self.lesson(&op, sh);
        next.emit(op, sh);
        self.learn(lesson, sh);
    }
}

impl OptRewrite {
    /// A pure operation: the first rule that fires replaces it, or it is
    /// emitted (a pure operation teaches nothing about pointers).
    fn rules(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let mut op = op;
        if op.result.is_some() {
            for rule in rules_for(op.opcode) {
                if let Some(new_ops) = try_rule(sh, rule, &op, &mut self.rule_slots) {
                    for o in new_ops {
                        sh.send_extra(o);
                    }
                    return;
                }
            }
            let rewritten = match op.opcode {
                Opcode::IntFloordiv | Opcode::IntMod => divide_by_power_of_two(&op, sh),
                _ => trace_only_rewrite(&op, sh),
            };
            match (rewritten, op.result) {
                (Some(Rewritten::Ops(ops)), _) => {
                    for o in ops {
                        sh.send_extra(o);
                    }
                    return;
                }
                (Some(Rewritten::Value(v)), Some(r)) => return sh.make_equal(r, v),
                _ => {}
            }
            // a commutative operation with its constant first: the rules
            // are written with it second (`(3 + x) - 3`, `(57 | x) | 504`)
            if COMMUTATIVE.contains(&op.name())
                && sh.resolve(op.args[0]).is_const()
                && !sh.resolve(op.args[1]).is_const()
            {
                op.args.swap(0, 1);
                return sh.send_extra(op);
            }
        }
        next.emit(op, sh);
    }
}

/// What a trace-only rewrite replaces an operation by.
enum Rewritten {
    /// Other operations, in order, the last with the same result box.
    Ops(Vec<Op>),
    /// An existing value.
    Value(Value),
}

/// The integer operations whose operands may be swapped.
const COMMUTATIVE: &[&str] = &[
    "int_add", "int_mul", "int_and", "int_or", "int_xor", "int_eq", "int_ne",
];

/// The rewrites of operations the rule language does not have (it speaks
/// `llops`, which has no unsigned shift and no `int_is_zero` of a word,
/// and its facts compare a value with constants, not two values' bits):
/// `not(not x)` is `int_is_true(x)`; of values sharing no bit, `x + y` and
/// `x ^ y` are `x | y` and `(x | y) - y` is `x`; `x & y` and `x | y` are
/// `x` when `y`'s known bits leave `x` as it is;
/// `(x >>u C) << C` and `(x << C) >>u C` are masks, and `x == 0` is
/// `int_is_zero(x)` (one form, so that `pure` finds either as the other
/// and the rules over `bool_not` see it); of floats (the rules are of
/// integers), `-(-x)` is `x`, `abs(abs(x))` and `abs(-x)` are `abs(x)`,
/// `x * 1.0` is `x`, and `x / 2**k` is `x * 2**-k` when that is exact.
fn trace_only_rewrite(op: &Op, sh: &Shared) -> Option<Rewritten> {
    let shift_pair = |inner: &str| -> Option<(Value, i64)> {
        let c = match sh.resolve(*op.args.get(1)?) {
            Value::Int(c) if (0..64).contains(&c) => c,
            _ => return None,
        };
        let def = sh.def_of(op.args[0])?;
        (def.name() == inner && sh.resolve(def.args[1]) == Value::Int(c))
            .then(|| (sh.resolve(def.args[0]), c))
    };
    let mask = |x: Value, m: i64| {
        Some(Rewritten::Ops(vec![Op::new(
            Opcode::IntAnd,
            vec![x, Value::Int(m)],
            op.result,
        )]))
    };
    match op.opcode {
        Opcode::IntLshift => {
            let (x, c) = shift_pair("uint_rshift")?;
            mask(x, -1 << c)
        }
        Opcode::UintRshift => {
            let (x, c) = shift_pair("int_lshift")?;
            mask(x, (u64::MAX >> c) as i64)
        }
        // floats: only what is exact for every value, NaNs included
        Opcode::FloatNeg => {
            let def = sh.def_of(op.args[0])?;
            (def.opcode == Opcode::FloatNeg).then(|| Rewritten::Value(def.args[0]))
        }
        Opcode::FloatAbs => {
            let def = sh.def_of(op.args[0])?;
            match def.opcode {
                Opcode::FloatAbs => Some(Rewritten::Value(op.args[0])),
                Opcode::FloatNeg => Some(Rewritten::Ops(vec![Op::new(
                    Opcode::FloatAbs,
                    vec![def.args[0]],
                    op.result,
                )])),
                _ => None,
            }
        }
        Opcode::FloatMul => match (sh.resolve(op.args[0]), sh.resolve(op.args[1])) {
            (x, Value::Float(one)) | (Value::Float(one), x) if f64::from_bits(one) == 1.0 => {
                Some(Rewritten::Value(x))
            }
            _ => None,
        },
        Opcode::FloatTruediv => {
            // by a power of two whose reciprocal is exact: a multiplication
            let Value::Float(bits) = sh.resolve(op.args[1]) else {
                return None;
            };
            let c = f64::from_bits(bits);
            let r = 1.0 / c;
            let power_of_two = c.is_normal() && bits & ((1 << 52) - 1) == 0;
            (power_of_two && r.is_finite() && r != 0.0 && r * c == 1.0).then(|| {
                Rewritten::Ops(vec![Op::new(
                    Opcode::FloatMul,
                    vec![op.args[0], Value::float(r)],
                    op.result,
                )])
            })
        }
        Opcode::IntEq => {
            let x = match (sh.resolve(op.args[0]), sh.resolve(op.args[1])) {
                (x, Value::Int(0)) | (Value::Int(0), x) => x,
                _ => return None,
            };
            Some(Rewritten::Ops(vec![Op::new(
                Opcode::IntIsZero,
                vec![x],
                op.result,
            )]))
        }
        Opcode::IntIsZero => {
            // not(not x) of a word: its truth
            let def = sh.def_of(op.args[0])?;
            (def.opcode == Opcode::IntIsZero).then(|| {
                Rewritten::Ops(vec![Op::new(
                    Opcode::IntIsTrue,
                    vec![def.args[0]],
                    op.result,
                )])
            })
        }
        Opcode::IntAnd | Opcode::IntOr => {
            // x & y is x when y's possible zeros are zeros of x; x | y is x
            // when y's possible ones are ones of x (known bits of boxes:
            // the rules see only constant masks)
            let (x, y) = (sh.resolve(op.args[0]), sh.resolve(op.args[1]));
            let covers = |a: Value, b: Value| {
                let (ba, bb) = (sh.bound(a), sh.bound(b));
                match op.opcode {
                    Opcode::IntAnd => !bb.ones & !ba.zeros == 0,
                    _ => !bb.zeros & !ba.ones == 0,
                }
            };
            if covers(x, y) {
                Some(Rewritten::Value(x))
            } else if covers(y, x) {
                Some(Rewritten::Value(y))
            } else {
                None
            }
        }
        Opcode::IntAdd | Opcode::IntXor => {
            // no bit may be one in both: no carry, the same as x | y (one
            // form, so that `pure` finds the others as it)
            let (x, y) = (op.args[0], op.args[1]);
            disjoint_bits(sh, x, y)
                .then(|| Rewritten::Ops(vec![Op::new(Opcode::IntOr, vec![x, y], op.result)]))
        }
        Opcode::IntSub => {
            // (x | y) - y is x when x and y share no bit
            let y = sh.resolve(op.args[1]);
            let def = sh.def_of(op.args[0])?;
            if def.opcode != Opcode::IntOr {
                return None;
            }
            let (a, b) = (sh.resolve(def.args[0]), sh.resolve(def.args[1]));
            let x = if b == y {
                a
            } else if a == y {
                b
            } else {
                return None;
            };
            disjoint_bits(sh, x, y).then_some(Rewritten::Value(x))
        }
        _ => None,
    }
}

/// Whether no bit can be one in both `x` and `y`, by their known bits.
fn disjoint_bits(sh: &Shared, x: Value, y: Value) -> bool {
    let may_be_one = |v: Value| !sh.bound(v).zeros;
    may_be_one(x) & may_be_one(y) == 0
}

/// `x / 2**k` and `x % 2**k` of a word of any sign, as C divides
/// (truncating): shifts, with `2**k - 1` added to a negative dividend
/// first (`(x + bias) >> k`; the remainder is `x - ((x + bias) & -2**k)`),
/// as PyPy's `intdiv` does. (Of a non-negative dividend, the rules' plain
/// shift and mask come first.)
fn divide_by_power_of_two(op: &Op, sh: &mut Shared) -> Option<Rewritten> {
    let Value::Int(c) = sh.resolve(op.args[1]) else {
        return None;
    };
    if c <= 1 || c & (c - 1) != 0 {
        return None;
    }
    let k = c.trailing_zeros() as i64;
    let x = sh.resolve(op.args[0]);
    let mut ops = Vec::new();
    let mut step = |sh: &mut Shared, name: Opcode, args: Vec<Value>, result: Option<usize>| {
        let r = result.unwrap_or_else(|| sh.new_box(Kind::Int));
        ops.push(Op::new(name, args, Some(r)));
        Value::Box(r)
    };
    let sign = step(sh, Opcode::IntRshift, vec![x, Value::Int(63)], None);
    let bias = step(sh, Opcode::IntAnd, vec![sign, Value::Int(c - 1)], None);
    let biased = step(sh, Opcode::IntAdd, vec![x, bias], None);
    if op.opcode == Opcode::IntFloordiv {
        step(
            sh,
            Opcode::IntRshift,
            vec![biased, Value::Int(k)],
            op.result,
        );
    } else {
        let multiple = step(sh, Opcode::IntAnd, vec![biased, Value::Int(-c)], None);
        step(sh, Opcode::IntSub, vec![x, multiple], op.result);
    }
    Some(Rewritten::Ops(ops))
}

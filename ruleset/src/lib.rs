//! The rules of `rules/`, compiled by `build.rs` (through `rpy-rulec`) into
//! Rust and included here, with the support code they run on.
//!
//! - [`annotate`]: the lattice join and the result annotation of each
//!   high-level operation;
//! - [`rtype`]: how each high-level operation on given low-level types is
//!   lowered, and how one low-level type converts to another;
//! - [`opt`]: the integer rewrites, as data the e-graph optimizer (and a
//!   forward trace matcher) interpret, and [`opt::check_rule`] which checks a
//!   rule on concrete values with `eval_int`.
//!
//! Every rule has a fire counter, incremented each time the rule applies
//! (annotate, rtype, and every e-graph match whose checks pass);
//! [`fire_count`] reads it and [`reset_fire_counts`] zeroes them all.

use std::sync::atomic::{AtomicU64, Ordering};

/// Which stage a rule belongs to (the directory of its file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleKind {
    Annotate,
    Rtype,
    Opt,
}

/// One rule: where it is written and what it says.
#[derive(Clone, Copy, Debug)]
pub struct RuleInfo {
    pub name: &'static str,
    pub kind: RuleKind,
    /// `rules/<kind>/<topic>.rules`.
    pub file: &'static str,
    pub line: u32,
    /// The rule's source text.
    pub text: &'static str,
    /// The one-line comment above the rule: what it does.
    pub doc: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/rules_info.rs"));

static FIRE_COUNTS: [AtomicU64; RULE_COUNT] = [const { AtomicU64::new(0) }; RULE_COUNT];

/// How often rule `index` (into [`RULES`]) has fired since the last reset.
pub fn fire_count(index: usize) -> u64 {
    FIRE_COUNTS
        .get(index)
        .map_or(0, |c| c.load(Ordering::Relaxed))
}

/// Sets every fire counter to zero.
pub fn reset_fire_counts() {
    for c in &FIRE_COUNTS {
        c.store(0, Ordering::Relaxed);
    }
}

/// Counts one firing of rule `index`.
#[inline]
pub fn fire(index: usize) {
    if let Some(c) = FIRE_COUNTS.get(index) {
        c.fetch_add(1, Ordering::Relaxed);
    }
}

/// The index of the rule called `name`.
pub fn rule_index(name: &str) -> Option<usize> {
    RULES.iter().position(|r| r.name == name)
}

/// The sorted union of two sets of prebuilt objects; generated code calls it
/// for a rule that joins `SomePBC`s.
#[allow(dead_code)]
fn descs_union(
    a: &[rpy_ir::annotation::Desc],
    b: &[rpy_ir::annotation::Desc],
) -> std::sync::Arc<[rpy_ir::annotation::Desc]> {
    let mut v: Vec<_> = a.iter().chain(b).cloned().collect();
    v.sort();
    v.dedup();
    v.into()
}

/// The annotator's rules.
pub mod annotate {
    use rpy_ir::annotation::SomeValue;
    use rpy_ir::opcode::Opcode;

    include!(concat!(env!("OUT_DIR"), "/rules_annotate.rs"));

    /// The join of two annotations: equal values and the bottom
    /// (`SomeImpossibleValue`) are handled here; otherwise the first union
    /// rule matching (a, b), else the first matching (b, a). `None` when no
    /// rule joins them (the annotator reports that).
    pub fn union(a: &SomeValue, b: &SomeValue) -> Option<SomeValue> {
        match (a, b) {
            (SomeValue::Impossible, x) | (x, SomeValue::Impossible) => return Some(x.clone()),
            (x, y) if x == y => return Some(x.clone()),
            _ => {}
        }
        let rules = UNION_RULES;
        rules
            .iter()
            .find_map(|r| r(&[a, b]))
            .or_else(|| rules.iter().find_map(|r| r(&[b, a])))
    }

    /// The annotation of the result of `opname` applied to `args` (for
    /// `simple_call`, `args[0]` is the callee): the first rule of that
    /// operation that matches. When none does, the arguments are widened
    /// once (SomeBool to SomeInteger(nonneg=true), SomeChar to SomeString)
    /// and the rules are tried again.
    pub fn op_result(opname: Opcode, args: &[SomeValue]) -> Option<SomeValue> {
        let rules = rules_for(opname);
        let refs: Vec<&SomeValue> = args.iter().collect();
        if let Some(r) = rules.iter().find_map(|r| r(&refs)) {
            return Some(r);
        }
        let widened: Vec<SomeValue> = args.iter().map(widen).collect();
        if widened.as_slice() == args {
            return None;
        }
        let refs: Vec<&SomeValue> = widened.iter().collect();
        rules.iter().find_map(|r| r(&refs))
    }

    /// The annotation one step up: a bool is a non-negative int, a char a string.
    pub fn widen(v: &SomeValue) -> SomeValue {
        match v {
            SomeValue::Bool => SomeValue::nonneg_int(),
            SomeValue::Char => SomeValue::string(),
            other => other.clone(),
        }
    }
}

/// The rtyper's rules.
pub mod rtype {
    use rpy_ir::graph::Constant;
    use rpy_ir::lltype::LowLevelType;
    use rpy_ir::opcode::Opcode;

    /// What a high-level operation becomes: a tree whose leaves are the
    /// operation's arguments (by position) and constants.
    #[derive(Clone, Debug, PartialEq)]
    pub enum Lowered {
        Arg(usize),
        Const(Constant),
        Op {
            opname: Opcode,
            args: Vec<Lowered>,
        },
        /// `direct_call(Builtin(func), args...)` of a runtime function.
        Call {
            func: &'static str,
            args: Vec<Lowered>,
        },
        /// `direct_call` of low-level helper `func` of module `module`
        /// (`rtype::lowlevel_helpers`), specialized for the arguments' types.
        Helper {
            module: &'static str,
            func: &'static str,
            args: Vec<Lowered>,
        },
    }

    impl Lowered {
        /// This tree with every `Arg(0)` replaced by `value`.
        pub fn substitute(&self, value: &Lowered) -> Lowered {
            match self {
                Lowered::Arg(0) => value.clone(),
                Lowered::Arg(_) | Lowered::Const(_) => self.clone(),
                Lowered::Op { opname, args } => Lowered::Op {
                    opname: *opname,
                    args: args.iter().map(|a| a.substitute(value)).collect(),
                },
                Lowered::Call { func, args } => Lowered::Call {
                    func,
                    args: args.iter().map(|a| a.substitute(value)).collect(),
                },
                Lowered::Helper { module, func, args } => Lowered::Helper {
                    module,
                    func,
                    args: args.iter().map(|a| a.substitute(value)).collect(),
                },
            }
        }
    }

    /// A low-level type as generated code spells it (without allocating).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum TySpec {
        Void,
        Signed,
        Unsigned,
        Float,
        Bool,
        Char,
        Ptr(&'static str),
    }

    impl TySpec {
        pub fn matches(&self, t: &LowLevelType) -> bool {
            match (self, t) {
                (TySpec::Void, LowLevelType::Void)
                | (TySpec::Signed, LowLevelType::Signed)
                | (TySpec::Unsigned, LowLevelType::Unsigned)
                | (TySpec::Float, LowLevelType::Float)
                | (TySpec::Bool, LowLevelType::Bool)
                | (TySpec::Char, LowLevelType::Char) => true,
                (TySpec::Ptr(a), LowLevelType::Ptr(b)) => a == b,
                _ => false,
            }
        }
    }

    /// A conversion rule: `convert(x: from) -> to`.
    pub struct Conversion {
        pub rule: usize,
        pub from: TySpec,
        pub to: TySpec,
        build: fn() -> Lowered,
    }

    include!(concat!(env!("OUT_DIR"), "/rules_rtype.rs"));

    /// The lowering of `opname` on arguments of types `args` (with the
    /// constant arguments in `const_args`, `None` for variables): the first
    /// rule of that operation whose argument patterns and `check py2`/`py3`
    /// guards match. Conversions to other types are the caller's job.
    pub fn lower(
        opname: Opcode,
        args: &[LowLevelType],
        const_args: &[Option<Constant>],
        py2: bool,
    ) -> Option<Lowered> {
        rules_for(opname)
            .iter()
            .find_map(|r| r(args, const_args, py2))
    }

    /// How a value of type `from` becomes one of type `to`, as a tree over
    /// `Arg(0)` (the value): a conversion rule from `from` to `to`, else two
    /// chained (`from` -> some type -> `to`). `None` when there is neither.
    pub fn convert(from: &LowLevelType, to: &LowLevelType) -> Option<Lowered> {
        if let Some(c) = CONVERSIONS
            .iter()
            .find(|c| c.from.matches(from) && c.to.matches(to))
        {
            super::fire(c.rule);
            return Some((c.build)());
        }
        for first in CONVERSIONS.iter().filter(|c| c.from.matches(from)) {
            if let Some(second) = CONVERSIONS
                .iter()
                .find(|c| c.from == first.to && c.to.matches(to))
            {
                super::fire(first.rule);
                super::fire(second.rule);
                return Some((second.build)().substitute(&(first.build)()));
            }
        }
        None
    }
}

/// The integer rewrite rules of `rules/opt`, as data.
///
/// A rule binds variables by matching its pattern [`Pat`] against a term
/// (slots `0..vars.len()`, in order of first appearance; names starting with
/// `C` only match constants), runs its [`Step`]s (a check that fails, or an
/// expression that is undefined, stops the rule; a let fills the next slot),
/// and then the term equals its result [`Res`]. [`OptRule::try_steps`] runs
/// the steps given what is known of the matched values; the e-graph pass in
/// `backendopt` and the trace optimizer both use it.
pub mod opt {
    use rpy_ir::llops::eval_int;
    use rpy_ir::opcode::Opcode;

    /// The type of a value in an integer rule.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Ty {
        Signed,
        Bool,
    }

    #[derive(Clone, Copy, Debug)]
    pub struct OptVar {
        pub name: &'static str,
        pub ty: Ty,
        /// The name starts with `C`: only a constant matches.
        pub const_only: bool,
    }

    /// A pattern: a variable (slot), a literal, or an operation on patterns.
    #[derive(Clone, Copy, Debug)]
    pub enum Pat {
        Var(usize),
        Int(i64),
        Bool(bool),
        Op(Opcode, &'static [Pat]),
    }

    /// The operators of checks and lets, and their meaning: one definition,
    /// shared with the rule compiler (which folds constant expressions).
    pub use rpy_ir::rule_ops::{BinOp, UnOp};

    /// What a check can ask of a matched value's IntBound.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Fact {
        /// `x.known_ge_const(c)`: x >= c for every value x can have.
        GeConst,
        GtConst,
        LeConst,
        LtConst,
        /// `x.known_nonneg()`: x >= 0.
        Nonneg,
        /// `x.known_bits_zero(mask)`: every bit of mask is 0 in x.
        BitsZero,
    }

    /// An expression of a check, a let or a constant result. Truth values
    /// are 0 and 1; arithmetic wraps; shifts by a count outside 0..64 and
    /// `highest_bit` of a non-positive value are undefined.
    #[derive(Clone, Copy, Debug)]
    pub enum Expr {
        Slot(usize),
        Lit(i64),
        Un(UnOp, &'static Expr),
        Bin(BinOp, &'static Expr, &'static Expr),
        /// The index of the highest set bit of a positive value.
        HighestBit(&'static Expr),
        Fact(Fact, usize, Option<&'static Expr>),
    }

    #[derive(Clone, Copy, Debug)]
    pub enum Step {
        Check(Expr),
        Let(usize, Expr),
    }

    /// A result: a matched value, a constant computed from the slots, or an
    /// operation on results.
    #[derive(Clone, Copy, Debug)]
    pub enum Res {
        Var(usize),
        Const(Expr, Ty),
        Op(Opcode, &'static [Res]),
    }

    #[derive(Clone, Copy, Debug)]
    pub struct OptRule {
        /// The index into [`super::RULES`].
        pub rule: usize,
        pub name: &'static str,
        /// The pattern's variables, by slot.
        pub vars: &'static [OptVar],
        /// Pattern variables plus lets.
        pub slots: usize,
        pub lhs: Pat,
        pub steps: &'static [Step],
        pub rhs: Res,
        /// The type of the matched term (and of the result).
        pub ty: Ty,
    }

    include!(concat!(env!("OUT_DIR"), "/rules_opt.rs"));

    /// Answers the facts a check asks about a matched value.
    pub trait Facts {
        fn fact(&self, slot: usize, fact: Fact, arg: i64) -> bool;
    }

    /// Facts of concrete values: a value's bound is the value itself.
    pub struct ConcreteFacts<'a>(pub &'a [Option<i64>]);

    impl Facts for ConcreteFacts<'_> {
        fn fact(&self, slot: usize, fact: Fact, arg: i64) -> bool {
            let Some(v) = self.0.get(slot).copied().flatten() else {
                return false;
            };
            match fact {
                Fact::GeConst => v >= arg,
                Fact::GtConst => v > arg,
                Fact::LeConst => v <= arg,
                Fact::LtConst => v < arg,
                Fact::Nonneg => v >= 0,
                Fact::BitsZero => v & arg == 0,
            }
        }
    }

    /// Facts of matched values from their integer bounds: what both
    /// optimizers (the e-graph and the trace's `rewrite`) ask.
    pub struct BoundFacts<'a>(pub &'a [rpy_ir::intbound::IntBound]);

    impl Facts for BoundFacts<'_> {
        fn fact(&self, slot: usize, fact: Fact, arg: i64) -> bool {
            let Some(b) = self.0.get(slot) else {
                return false;
            };
            match fact {
                Fact::GeConst => b.known_ge_const(arg),
                Fact::GtConst => b.known_gt_const(arg),
                Fact::LeConst => b.known_le_const(arg),
                Fact::LtConst => b.known_lt_const(arg),
                Fact::Nonneg => b.known_nonneg(),
                Fact::BitsZero => b.known_bits_zero(arg),
            }
        }
    }

    /// Evaluates an expression; `None` when it is undefined or needs a
    /// slot whose value is unknown.
    #[inline]
    pub fn eval_expr(e: &Expr, slots: &[Option<i64>], facts: &dyn Facts) -> Option<i64> {
        Some(match e {
            Expr::Slot(i) => slots.get(*i).copied().flatten()?,
            Expr::Lit(v) => *v,
            Expr::Un(op, a) => op.apply(eval_expr(a, slots, facts)?),
            Expr::Bin(op, a, b) => {
                let a = eval_expr(a, slots, facts)?;
                // `and`/`or` short-circuit, like Python's.
                match op {
                    BinOp::And if a == 0 => return Some(0),
                    BinOp::Or if a != 0 => return Some(1),
                    _ => {}
                }
                op.apply(a, eval_expr(b, slots, facts)?)?
            }
            Expr::HighestBit(a) => {
                let a = eval_expr(a, slots, facts)?;
                if a <= 0 {
                    return None;
                }
                63 - a.leading_zeros() as i64
            }
            Expr::Fact(f, slot, arg) => {
                let arg = match arg {
                    Some(a) => eval_expr(a, slots, facts)?,
                    None => 0,
                };
                facts.fact(*slot, *f, arg) as i64
            }
        })
    }

    impl OptRule {
        /// Runs the checks and lets. `slots` holds, for each pattern
        /// variable, its constant value when known (it must be for `C`
        /// names), and is filled with the lets. False when a check fails or
        /// an expression is undefined.
        #[inline]
        pub fn try_steps(&self, slots: &mut Vec<Option<i64>>, facts: &dyn Facts) -> bool {
            slots.resize(self.slots, None);
            for (i, v) in self.vars.iter().enumerate() {
                if v.const_only && slots[i].is_none() {
                    return false;
                }
            }
            for step in self.steps {
                match step {
                    Step::Check(e) => {
                        if eval_expr(e, slots, facts) != Some(1) {
                            return false;
                        }
                    }
                    Step::Let(slot, e) => match eval_expr(e, slots, facts) {
                        Some(v) => slots[*slot] = v.into(),
                        None => return false,
                    },
                }
            }
            true
        }

        /// The rule's source line and text.
        pub fn info(&self) -> &'static super::RuleInfo {
            &super::RULES[self.rule]
        }
    }

    /// The rule called `name`.
    pub fn find(name: &str) -> Option<&'static OptRule> {
        OPT_RULES.iter().find(|r| r.name == name)
    }

    /// What [`check_rule`] found.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum RuleCheck {
        /// The pattern does not match these values, a check fails, or the
        /// pattern's value is undefined: the rule would not fire.
        NotApplicable,
        /// The rule fires and both sides have the same value.
        Agree,
        /// The rule fires but the result differs (`rhs: None`: the result
        /// is undefined where the pattern was defined).
        Disagree { lhs: i64, rhs: Option<i64> },
    }

    fn eval_pat(p: &Pat, inputs: &[i64]) -> Option<i64> {
        match p {
            Pat::Var(i) => inputs.get(*i).copied(),
            Pat::Int(v) => Some(*v),
            Pat::Bool(b) => Some(*b as i64),
            Pat::Op(name, args) => {
                let vals: Option<Vec<i64>> = args.iter().map(|a| eval_pat(a, inputs)).collect();
                eval_int(*name, &vals?)
            }
        }
    }

    fn eval_res(r: &Res, slots: &[Option<i64>], facts: &dyn Facts) -> Option<i64> {
        match r {
            Res::Var(i) => slots.get(*i).copied().flatten(),
            Res::Const(e, Ty::Bool) => eval_expr(e, slots, facts).map(|v| (v != 0) as i64),
            Res::Const(e, Ty::Signed) => eval_expr(e, slots, facts),
            Res::Op(name, args) => {
                let vals: Option<Vec<i64>> =
                    args.iter().map(|a| eval_res(a, slots, facts)).collect();
                eval_int(*name, &vals?)
            }
        }
    }

    /// Checks rule `index` (into [`OPT_RULES`]) on concrete values: `inputs`
    /// gives each pattern variable's value, by slot (constants too; Bool
    /// variables must be 0 or 1). Evaluates the pattern with `eval_int`, runs
    /// the checks (facts are asked of the concrete values), evaluates the
    /// result, and compares. Does not count as a firing.
    pub fn check_rule(index: usize, inputs: &[i64]) -> RuleCheck {
        check_opt_rule(&OPT_RULES[index], inputs)
    }

    /// [`check_rule`] of a rule given itself, not its index (one not in
    /// [`OPT_RULES`] too).
    pub fn check_opt_rule(rule: &OptRule, inputs: &[i64]) -> RuleCheck {
        if inputs.len() < rule.vars.len() {
            return RuleCheck::NotApplicable;
        }
        let inputs = &inputs[..rule.vars.len()];
        for (v, x) in rule.vars.iter().zip(inputs) {
            if v.ty == Ty::Bool && !(0..=1).contains(x) {
                return RuleCheck::NotApplicable;
            }
        }
        let Some(lhs) = eval_pat(&rule.lhs, inputs) else {
            return RuleCheck::NotApplicable;
        };
        let mut slots: Vec<Option<i64>> = inputs.iter().map(|v| Some(*v)).collect();
        let known = slots.clone();
        if !rule.try_steps(&mut slots, &ConcreteFacts(&known)) {
            return RuleCheck::NotApplicable;
        }
        match eval_res(&rule.rhs, &slots, &ConcreteFacts(&known)) {
            Some(rhs) if rhs == lhs => RuleCheck::Agree,
            rhs => RuleCheck::Disagree { lhs, rhs },
        }
    }

    /// Interesting 64-bit values: 0, ±1, the extremes, powers of two and
    /// their neighbours.
    pub fn edge_values() -> Vec<i64> {
        let mut v = vec![
            0,
            1,
            -1,
            2,
            -2,
            3,
            i64::MIN,
            i64::MAX,
            i64::MIN + 1,
            i64::MAX - 1,
        ];
        for k in 1..63 {
            let p = 1i64 << k;
            v.extend([p, p - 1, p + 1, -p, -p + 1, -p - 1]);
        }
        v.extend([63, 64, 65, -63, -64]);
        v.sort();
        v.dedup();
        v
    }

    /// Checks every rule on `samples` inputs each (edge values, random
    /// values, and inputs that repeat a value so `x - x` patterns are
    /// reached); the failures, as sentences.
    pub fn check_all(samples: usize) -> Vec<String> {
        let edges = edge_values();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            // xorshift64*
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_F491_4F6C_DD1D)
        };
        let mut failures = Vec::new();
        for (i, rule) in OPT_RULES.iter().enumerate() {
            let n = rule.vars.len();
            for s in 0..samples {
                let inputs: Vec<i64> = (0..n)
                    .map(|k| {
                        let r = next();
                        let v = match (s + k) % 3 {
                            0 => edges[(r as usize) % edges.len()],
                            1 => r as i64,
                            _ => (r % 130) as i64 - 65,
                        };
                        if rule.vars[k].ty == Ty::Bool {
                            v & 1
                        } else {
                            v
                        }
                    })
                    .collect();
                if let RuleCheck::Disagree { lhs, rhs } = check_rule(i, &inputs) {
                    let info = rule.info();
                    failures.push(format!(
                        "{}:{}: rule '{}' with {:?}: pattern gives {lhs}, result gives {}",
                        info.file,
                        info.line,
                        rule.name,
                        rule.vars
                            .iter()
                            .map(|v| v.name)
                            .zip(&inputs)
                            .collect::<Vec<_>>(),
                        rhs.map_or("undefined".to_string(), |r| r.to_string())
                    ));
                    break;
                }
            }
        }
        failures
    }
}

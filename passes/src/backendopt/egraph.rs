//! The e-graph of one block's pure integer operations, and the opt rules as
//! egg rewrites over it.
//!
//! Nodes are integer and Bool constants, leaves (values the e-graph does not
//! look into: block inputs and results of other operations) and pure integer
//! operations. Each e-class carries its type and an [`IntBound`]; a class
//! whose bound is one value gets that constant as a node (constant folding,
//! through `eval_int` in the transfer functions). Rules run as conditional
//! rewrites: the pattern is searched by egg, the checks and lets run on the
//! classes' constants and bounds, and the result is added and merged.

use egg::{
    Analysis, Applier, CostFunction, DidMerge, EGraph, ENodeOrVar, Id, Language, Pattern,
    PatternAst, RecExpr, Rewrite, Subst, Symbol,
};
use rpy_ir::intbound::{transfer, IntBound};
use rpy_ir::llops::int_signature;
use rpy_ir::opcode::Opcode;
use rpy_ruleset::opt::{BoundFacts, OptRule, Pat, Res, Ty, OPT_RULES};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    Int(i64),
    Bool(bool),
    /// A value not looked into: the variable's number, and whether it is a Bool.
    Leaf(u32, bool),
    Op1(Opcode, [Id; 1]),
    Op2(Opcode, [Id; 2]),
}

impl Language for Node {
    fn matches(&self, other: &Self) -> bool {
        match (self, other) {
            (Node::Int(a), Node::Int(b)) => a == b,
            (Node::Bool(a), Node::Bool(b)) => a == b,
            (Node::Leaf(a, _), Node::Leaf(b, _)) => a == b,
            (Node::Op1(a, _), Node::Op1(b, _)) | (Node::Op2(a, _), Node::Op2(b, _)) => a == b,
            _ => false,
        }
    }

    fn children(&self) -> &[Id] {
        match self {
            Node::Op1(_, c) => c,
            Node::Op2(_, c) => c,
            _ => &[],
        }
    }

    fn children_mut(&mut self) -> &mut [Id] {
        match self {
            Node::Op1(_, c) => c,
            Node::Op2(_, c) => c,
            _ => &mut [],
        }
    }
}

/// The argument types (true: Bool) and result type of a pure integer
/// operation, as `eval_int` defines it; `None` for any other operation.
pub fn int_sig(name: Opcode) -> Option<(Opcode, Vec<bool>, bool)> {
    let (args, res) = int_signature(name)?;
    Some((name, args, res))
}

fn result_is_bool(op: Opcode) -> bool {
    int_sig(op).is_some_and(|s| s.2)
}

/// What an e-class knows: whether it is a Bool, and the bound of its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassData {
    pub is_bool: bool,
    pub bound: IntBound,
}

#[derive(Default)]
pub struct IntAnalysis;

impl Analysis<Node> for IntAnalysis {
    type Data = ClassData;

    fn make(egraph: &EGraph<Node, Self>, enode: &Node) -> ClassData {
        match enode {
            Node::Int(v) => ClassData {
                is_bool: false,
                bound: IntBound::constant(*v),
            },
            Node::Bool(b) => ClassData {
                is_bool: true,
                bound: IntBound::constant(*b as i64),
            },
            Node::Leaf(_, is_bool) => ClassData {
                is_bool: *is_bool,
                bound: if *is_bool {
                    IntBound::boolean()
                } else {
                    IntBound::unbounded()
                },
            },
            Node::Op1(op, _) | Node::Op2(op, _) => {
                let args: Vec<IntBound> = enode
                    .children()
                    .iter()
                    .map(|c| egraph[*c].data.bound)
                    .collect();
                let is_bool = result_is_bool(*op);
                let mut bound = transfer(op.name(), &args).unwrap_or_else(IntBound::unbounded);
                if is_bool {
                    bound = bound
                        .intersect(&IntBound::boolean())
                        .unwrap_or_else(IntBound::boolean);
                }
                ClassData { is_bool, bound }
            }
        }
    }

    fn merge(&mut self, a: &mut ClassData, b: ClassData) -> DidMerge {
        // Both describe one value; where they contradict, the code computing
        // it is unreachable (or undefined), and either bound will do.
        let new = a.bound.intersect(&b.bound).unwrap_or(a.bound);
        let changed_a = new != a.bound;
        let changed_b = new != b.bound;
        a.bound = new;
        DidMerge(changed_a, changed_b)
    }

    fn modify(egraph: &mut EGraph<Node, Self>, id: Id) {
        let data = egraph[id].data;
        if let Some(c) = data.bound.get_constant() {
            let node = if data.is_bool {
                match c {
                    0 => Node::Bool(false),
                    1 => Node::Bool(true),
                    _ => return,
                }
            } else {
                Node::Int(c)
            };
            let k = egraph.add(node);
            egraph.union(id, k);
        }
    }
}

/// Extraction cost: operations by `op_cost`, constants and leaves free.
pub struct OpCost;

impl CostFunction<Node> for OpCost {
    type Cost = u64;
    fn cost<C>(&mut self, enode: &Node, mut costs: C) -> u64
    where
        C: FnMut(Id) -> u64,
    {
        let own = match enode {
            Node::Op1(op, _) | Node::Op2(op, _) => rpy_ruleset::opt::op_cost(*op),
            _ => 0,
        };
        enode.fold(own, |s, id| s.saturating_add(costs(id)))
    }
}

fn op_node(op: Opcode, children: &[Id]) -> Node {
    match children {
        [a] => Node::Op1(op, [*a]),
        [a, b] => Node::Op2(op, [*a, *b]),
        _ => unreachable!("integer operations take one or two arguments"),
    }
}

fn slot_var(i: usize) -> egg::Var {
    format!("?v{i}").parse().expect("a pattern variable")
}

fn add_pat(ast: &mut PatternAst<Node>, p: &Pat) -> Id {
    match p {
        Pat::Var(i) => ast.add(ENodeOrVar::Var(slot_var(*i))),
        Pat::Int(v) => ast.add(ENodeOrVar::ENode(Node::Int(*v))),
        Pat::Bool(b) => ast.add(ENodeOrVar::ENode(Node::Bool(*b))),
        Pat::Op(name, args) => {
            let ids: Vec<Id> = args.iter().map(|a| add_pat(ast, a)).collect();
            ast.add(ENodeOrVar::ENode(op_node(*name, &ids)))
        }
    }
}

/// Applies one opt rule to a match: checks, lets, then the result.
struct RuleApplier {
    rule: &'static OptRule,
    vars: Vec<egg::Var>,
    fires: Arc<AtomicU64>,
}

impl RuleApplier {
    fn build(
        &self,
        egraph: &mut EGraph<Node, IntAnalysis>,
        r: &Res,
        ids: &[Id],
        slots: &[Option<i64>],
        facts: &BoundFacts<'_>,
    ) -> Option<Id> {
        Some(match r {
            Res::Var(i) => ids[*i],
            Res::Const(e, ty) => {
                let v = rpy_ruleset::opt::eval_expr(e, slots, facts)?;
                egraph.add(match ty {
                    Ty::Signed => Node::Int(v),
                    Ty::Bool => Node::Bool(v != 0),
                })
            }
            Res::Op(name, args) => {
                let mut children = Vec::with_capacity(args.len());
                for a in args.iter() {
                    children.push(self.build(egraph, a, ids, slots, facts)?);
                }
                egraph.add(op_node(*name, &children))
            }
        })
    }
}

impl Applier<Node, IntAnalysis> for RuleApplier {
    fn apply_one(
        &self,
        egraph: &mut EGraph<Node, IntAnalysis>,
        eclass: Id,
        subst: &Subst,
        _searcher_ast: Option<&PatternAst<Node>>,
        _rule_name: Symbol,
    ) -> Vec<Id> {
        let ids: Vec<Id> = self.vars.iter().map(|v| subst[*v]).collect();
        let bounds: Vec<IntBound> = ids.iter().map(|id| egraph[*id].data.bound).collect();
        let mut slots: Vec<Option<i64>> = bounds.iter().map(|b| b.get_constant()).collect();
        let facts = BoundFacts(&bounds);
        if !self.rule.try_steps(&mut slots, &facts) {
            return vec![];
        }
        let Some(new) = self.build(egraph, &self.rule.rhs, &ids, &slots, &facts) else {
            return vec![];
        };
        rpy_ruleset::fire(self.rule.rule);
        self.fires.fetch_add(1, Ordering::Relaxed);
        if egraph.union(eclass, new) {
            vec![new]
        } else {
            vec![]
        }
    }
}

/// The operations whose arguments may be swapped.
const COMMUTATIVE: &[Opcode] = &[
    Opcode::IntAdd,
    Opcode::IntMul,
    Opcode::IntAnd,
    Opcode::IntOr,
    Opcode::IntXor,
    Opcode::IntEq,
    Opcode::IntNe,
];

/// Every opt rule as an egg rewrite (plus commutativity of the commutative
/// operations, which lets one rule match both argument orders). `fires`
/// counts the rule applications of this set.
pub fn rewrites(fires: &Arc<AtomicU64>) -> Vec<Rewrite<Node, IntAnalysis>> {
    let mut out = Vec::new();
    for rule in OPT_RULES {
        let mut ast = PatternAst::<Node>::default();
        add_pat(&mut ast, &rule.lhs);
        let applier = RuleApplier {
            rule,
            vars: (0..rule.vars.len()).map(slot_var).collect(),
            fires: fires.clone(),
        };
        out.push(
            Rewrite::new(rule.name, Pattern::new(ast), applier)
                .expect("an opt rule's result only uses its pattern's variables"),
        );
    }
    for &op in COMMUTATIVE {
        let mut lhs: RecExpr<ENodeOrVar<Node>> = RecExpr::default();
        let a = lhs.add(ENodeOrVar::Var(slot_var(0)));
        let b = lhs.add(ENodeOrVar::Var(slot_var(1)));
        lhs.add(ENodeOrVar::ENode(Node::Op2(op, [a, b])));
        let mut rhs: RecExpr<ENodeOrVar<Node>> = RecExpr::default();
        let b2 = rhs.add(ENodeOrVar::Var(slot_var(1)));
        let a2 = rhs.add(ENodeOrVar::Var(slot_var(0)));
        rhs.add(ENodeOrVar::ENode(Node::Op2(op, [b2, a2])));
        out.push(
            Rewrite::new(
                format!("commute_{op}"),
                Pattern::new(lhs),
                Pattern::new(rhs),
            )
            .expect("commutativity"),
        );
    }
    out
}

/// The rewrites of [`rewrites`] with what runs them fast: each indexed by
/// the operation at its pattern's root, so that a round searches a rule
/// only in the classes holding that operation (egg's own search looks at
/// every class of the node's enum variant, which for `Op2` is nearly all of
/// them, and its `Runner` reads the clock around every rule for its time
/// limit; for the thousands of small e-graphs a program makes, one per
/// block, those were most of the pass's time).
pub struct RuleSet {
    rewrites: Vec<Rewrite<Node, IntAnalysis>>,
    /// The operation at the root of each rewrite's pattern (`None`: the
    /// root is a variable or a constant, searched in every class).
    roots: Vec<Option<Opcode>>,
}

/// egg's `BackoffScheduler` defaults: a rule matching more than this many
/// times in one round is left out for a few rounds (its limit and ban
/// doubling each time), so that commutativity over a large function does
/// not fill the e-graph before the rules that shrink it run.
const MATCH_LIMIT: usize = 1_000;
const BAN_LENGTH: usize = 5;

impl RuleSet {
    /// The opt rules and commutativity; `fires` counts rule applications.
    pub fn new(fires: &Arc<AtomicU64>) -> RuleSet {
        let mut roots: Vec<Option<Opcode>> = OPT_RULES
            .iter()
            .map(|rule| match &rule.lhs {
                Pat::Op(name, _) => Some(*name),
                _ => None,
            })
            .collect();
        roots.extend(COMMUTATIVE.iter().map(|&op| Some(op)));
        let rewrites = rewrites(fires);
        debug_assert_eq!(rewrites.len(), roots.len());
        RuleSet { rewrites, roots }
    }

    /// Runs the rules on `eg` to a fixpoint, or until `iter_limit` rounds or
    /// `node_limit` e-nodes: as egg's `Runner` with its default scheduler
    /// does (search every rule, then apply every match, then rebuild), with
    /// no time limit (the node and round limits bound the work).
    pub fn run(
        &self,
        mut eg: EGraph<Node, IntAnalysis>,
        node_limit: usize,
        iter_limit: usize,
    ) -> EGraph<Node, IntAnalysis> {
        eg.rebuild();
        // Per rewrite: the round until which it is banned, and how often
        // it was.
        let mut banned_until = vec![0usize; self.rewrites.len()];
        let mut times_banned = vec![0u32; self.rewrites.len()];
        let mut by_op: fxhash::FxHashMap<Opcode, Vec<Id>> = Default::default();
        for round in 0..iter_limit {
            if eg.total_size() > node_limit {
                break;
            }
            let (nodes, classes) = (eg.total_size(), eg.number_of_classes());
            // The classes holding each operation.
            by_op.values_mut().for_each(Vec::clear);
            for class in eg.classes() {
                for node in &class.nodes {
                    if let Node::Op1(op, _) | Node::Op2(op, _) = node {
                        let ids = by_op.entry(*op).or_default();
                        if ids.last() != Some(&class.id) {
                            ids.push(class.id);
                        }
                    }
                }
            }
            let mut found = Vec::new();
            let mut any_banned = false;
            for (i, rw) in self.rewrites.iter().enumerate() {
                if round < banned_until[i] {
                    any_banned = true;
                    continue;
                }
                let limit = MATCH_LIMIT << times_banned[i];
                let matches = match self.roots[i] {
                    Some(op) => {
                        let Some(ids) = by_op.get(&op) else { continue };
                        let mut out = Vec::new();
                        let mut total = 0;
                        for id in ids {
                            if total > limit {
                                break;
                            }
                            if let Some(m) =
                                rw.searcher
                                    .search_eclass_with_limit(&eg, *id, limit + 1 - total)
                            {
                                total += m.substs.len();
                                out.push(m);
                            }
                        }
                        out
                    }
                    None => rw.search_with_limit(&eg, limit + 1),
                };
                let total: usize = matches.iter().map(|m| m.substs.len()).sum();
                if total > limit {
                    times_banned[i] += 1;
                    banned_until[i] = round + (BAN_LENGTH << times_banned[i]);
                    any_banned = true;
                    continue;
                }
                if total > 0 {
                    found.push((i, matches));
                }
            }
            for (i, matches) in &found {
                self.rewrites[*i].apply(&mut eg, matches);
                if eg.total_size() > node_limit {
                    break;
                }
            }
            eg.rebuild();
            if eg.total_size() == nodes && eg.number_of_classes() == classes {
                // Nothing changed: a fixpoint, unless a banned rule may
                // still do something (egg's scheduler then lifts the bans).
                if !any_banned {
                    break;
                }
                banned_until.iter_mut().for_each(|b| *b = 0);
            }
        }
        eg
    }
}

/// Whether an e-class's nodes are one operation, as written or with its
/// two arguments swapped (what the commutativity rules add): extraction
/// prefers the program's own spelling, so such a class gives back the
/// operation it was made from.
pub fn one_operation(nodes: &[Node]) -> bool {
    match nodes {
        [_] => true,
        [Node::Op2(op, [a, b]), rest @ ..] => rest.iter().all(|n| {
            matches!(n, Node::Op2(o, [c, d])
                if o == op && ((c == a && d == b) || (c == b && d == a)))
        }),
        _ => false,
    }
}

//! The exception transform: exceptions become explicit data flow, as the
//! seed's "preparing the graphs for source generation" describes and as
//! CPython does it. A program keeps one global exception state, a pending
//! exception's class and instance (both null when none is pending):
//!
//! - a raise (a link into a graph's except block) becomes `exc_set(etype,
//!   evalue)` and a return of an error value of the graph's result type (0,
//!   0.0, False, a null pointer, or nothing for Void);
//! - after each call that can raise, `exc_occurred()` is tested: when an
//!   exception is pending, the caller goes to the first handler of the
//!   block whose class's subclass range holds the exception's class id
//!   (`int_between(min, subclassrange_min, max)`), clearing the state
//!   (`exc_clear`) and reading `exc_type`/`exc_value` for the handler's
//!   `last_exception`/`last_exc_value`; when no handler matches, or the call
//!   is not in a `try`, it returns its own error value with the state left
//!   set, so the exception goes on up.
//!
//! Calls that cannot raise get no test: runtime functions (whose errors are
//! fatal in the runtime), and graphs that never reach their except block,
//! neither themselves nor through a call (computed to a fixpoint). A call
//! through a function pointer can raise when some graph whose address the
//! program takes, of that pointer's signature, can.
//!
//! The except block of each graph stays (every graph has one), but nothing
//! links to it any more: `Program<ExceptionsExplicit>` says so in its type.
//! The new blocks are simplified (`simplify`) as the flow and backendopt
//! stages' are: a handler's block merges into the block it goes to.

use fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use rpy_ir::diag::{Diagnostic, Pos, SourceMap};
use rpy_ir::graph::{
    Arg, Block, BlockId, Constant, ExceptionsExplicit, FunctionGraph, Link, LowLevel, Program,
    SpaceOperation, Var,
};
use rpy_ir::llops;
use rpy_ir::lltype::{self, FuncSig, LowLevelType};
use rpy_ir::opcode::Opcode;

/// Makes the exceptions of every graph of `program` explicit.
pub fn transform(program: Program<LowLevel>) -> Result<Program<ExceptionsExplicit>, Diagnostic> {
    let raising = RaiseAnalysis::new(&program);
    crate::parallel_graphs::try_map_graphs(program, |path, sources, g| {
        let mut g = GraphTransform {
            raising: &raising,
            path,
            sources,
            g: g.map_stage(|_, t| t.clone()),
            raise_block: None,
        }
        .run()?;
        crate::simplify::simplify_graph(&mut g);
        Ok(g)
    })
}

/// Which graphs can raise, and which function pointer signatures (by
/// `FuncSig::pointer_shape`).
pub struct RaiseAnalysis {
    graphs: HashSet<String>,
    sigs: HashSet<FuncSig>,
    /// The subclass id range of each vtable static, by its index: what a
    /// handler whose exitcase names it catches.
    ranges: HashMap<u32, (i64, i64)>,
    /// The statics of the handlers that catch every class of the program
    /// (their subclass range holds every class id).
    catch_all: HashSet<u32>,
}

impl RaiseAnalysis {
    /// Computes, to a fixpoint, the graphs that can leave through their
    /// except block: those that link to it, and those calling one that can.
    pub fn new(program: &Program<LowLevel>) -> RaiseAnalysis {
        let taken = program.address_taken();
        let taken_sigs: Vec<(String, FuncSig)> = program
            .graphs
            .iter()
            .filter(|g| taken.contains(g.name.as_str()))
            .map(|g| (g.name.clone(), g.func_sig().pointer_shape()))
            .collect();
        let ranges = handler_ranges(program);
        let lowest = ranges.values().map(|r| r.0).min();
        let highest = ranges.values().map(|r| r.1).max();
        let catch_all = ranges
            .iter()
            .filter(|(_, r)| Some(r.0) <= lowest && Some(r.1) >= highest)
            .map(|(i, _)| *i)
            .collect();
        let mut a = RaiseAnalysis {
            graphs: HashSet::default(),
            sigs: HashSet::default(),
            ranges,
            catch_all,
        };
        // The least fixpoint, by a worklist: a graph is looked at again
        // only when a graph it calls directly, or a pointer shape it calls
        // through, is found to raise.
        let position: HashMap<&str, usize> = program.graph_positions();
        let mut callers: Vec<Vec<usize>> = vec![Vec::new(); program.graphs.len()];
        let mut shape_users: HashMap<FuncSig, Vec<usize>> = HashMap::default();
        for (i, g) in program.graphs.iter().enumerate() {
            for op in g.blocks.iter().flat_map(|b| &b.operations) {
                if !llops::can_raise(op.opname) {
                    continue;
                }
                match op.args.first() {
                    Some(Arg::Const(Constant::Func(f))) => {
                        if let Some(&c) = position.get(f.as_str()) {
                            callers[c].push(i);
                        }
                    }
                    Some(Arg::Var(v)) => {
                        if let LowLevelType::FuncPtr(sig) = g.info(*v) {
                            shape_users.entry(sig.pointer_shape()).or_default().push(i);
                        }
                    }
                    _ => {}
                }
            }
        }
        let shape_of: HashMap<&str, &FuncSig> =
            taken_sigs.iter().map(|(n, s)| (n.as_str(), s)).collect();
        let mut raises = vec![false; program.graphs.len()];
        let mut work: Vec<usize> = Vec::new();
        for (i, g) in program.graphs.iter().enumerate() {
            if a.graph_raises(g) {
                raises[i] = true;
                a.graphs.insert(g.name.clone());
                work.push(i);
            }
        }
        while let Some(i) = work.pop() {
            let mut again: Vec<usize> = callers[i].clone();
            if let Some(sig) = shape_of.get(program.graphs[i].name.as_str()) {
                if a.sigs.insert((*sig).clone()) {
                    again.extend(shape_users.get(*sig).into_iter().flatten());
                }
            }
            for j in again {
                if !raises[j] && a.graph_raises(&program.graphs[j]) {
                    raises[j] = true;
                    a.graphs.insert(program.graphs[j].name.clone());
                    work.push(j);
                }
            }
        }
        a
    }

    fn graph_raises(&self, g: &FunctionGraph<LowLevel>) -> bool {
        g.blocks.iter().any(|block| {
            // A call under a handler of every class raises nothing out
            // (what the handler raises again links to the except block).
            let caught_all = block.catches_exceptions()
                && !block.operations.is_empty()
                && block.exits.iter().skip(1).any(|l| match &l.exitcase {
                    Some(Constant::Prebuilt(i)) => self.catch_all.contains(i),
                    _ => false,
                });
            let unguarded = block.operations.len() - usize::from(caught_all);
            block.exits.iter().any(|l| l.target == g.exceptblock)
                || block.operations[..unguarded]
                    .iter()
                    .any(|op| self.op_can_raise(op, |v| g.info(v)))
        })
    }

    /// Whether the graph named `name` can raise.
    pub fn graph_can_raise(&self, name: &str) -> bool {
        self.graphs.contains(name)
    }

    /// Whether `op` may leave with an exception pending; `ty` gives the
    /// types of its graph's variables.
    pub fn op_can_raise<'t>(
        &self,
        op: &SpaceOperation,
        ty: impl Fn(Var) -> &'t LowLevelType,
    ) -> bool {
        if !llops::can_raise(op.opname) {
            return false;
        }
        match op.args.first() {
            Some(Arg::Const(Constant::Func(f))) => self.graphs.contains(f),
            Some(Arg::Const(Constant::Builtin(_))) => false,
            Some(Arg::Var(v)) => match ty(*v) {
                LowLevelType::FuncPtr(sig) => self.sigs.contains(&sig.pointer_shape()),
                _ => true,
            },
            _ => true,
        }
    }
}

/// The subclass id range of each vtable static, by its index: what a
/// handler whose exitcase names it catches.
fn handler_ranges(program: &Program<LowLevel>) -> HashMap<u32, (i64, i64)> {
    program
        .prebuilt
        .iter()
        .enumerate()
        .filter_map(|(i, obj)| Some((i as u32, obj.subclass_range()?)))
        .collect()
}

type G = FunctionGraph<ExceptionsExplicit>;

struct GraphTransform<'a> {
    raising: &'a RaiseAnalysis,
    path: &'a str,
    sources: &'a SourceMap,
    g: G,
    /// The block a raise goes to: `exc_set` of its two arguments, then the
    /// error return (made when first needed).
    raise_block: Option<BlockId>,
}

impl GraphTransform<'_> {
    fn run(mut self) -> Result<G, Diagnostic> {
        for b in self.g.reverse_postorder() {
            if b != self.g.returnblock && b != self.g.exceptblock {
                self.block(b)?;
            }
        }
        // Every raise, the program's own and the re-raises the handlers
        // pass on, now sets the state and returns.
        let except = self.g.exceptblock;
        for b in 0..self.g.blocks.len() {
            for i in 0..self.g.blocks[b].exits.len() {
                if self.g.blocks[b].exits[i].target == except {
                    let target = self.raise_block();
                    self.g.blocks[b].exits[i].target = target;
                }
            }
        }
        Ok(self.g)
    }

    fn result_type(&self) -> LowLevelType {
        self.g
            .info(self.g.block(self.g.returnblock).inputargs[0])
            .clone()
    }

    /// The link that leaves the graph with the pending exception.
    fn propagate(&self, exitcase: Option<Constant>) -> Link {
        Link::new(
            vec![Arg::Const(lltype::zero_constant(&self.result_type()))],
            self.g.returnblock,
            exitcase,
        )
    }

    fn raise_block(&mut self) -> BlockId {
        if let Some(b) = self.raise_block {
            return b;
        }
        let types: Vec<LowLevelType> = self
            .g
            .block(self.g.exceptblock)
            .inputargs
            .iter()
            .map(|v| self.g.info(*v).clone())
            .collect();
        let args: Vec<Var> = types.into_iter().map(|t| self.g.new_var(None, t)).collect();
        let b = self.g.add_block(args.clone());
        let set = self.new_op(
            Opcode::ExcSet,
            args.into_iter().map(Arg::Var).collect(),
            LowLevelType::Void,
            None,
        );
        let propagate = self.propagate(None);
        let block = self.g.block_mut(b);
        block.operations.push(set);
        block.exits.push(propagate);
        self.raise_block = Some(b);
        b
    }

    fn new_op(
        &mut self,
        opname: Opcode,
        args: Vec<Arg>,
        ty: LowLevelType,
        pos: Option<Pos>,
    ) -> SpaceOperation {
        SpaceOperation {
            opname,
            args,
            result: self.g.new_var(None, ty),
            pos,
        }
    }

    fn can_raise(&self, op: &SpaceOperation) -> bool {
        self.raising.op_can_raise(op, |v| self.g.info(v))
    }

    /// Adds the exception tests after the raising calls of block `b`,
    /// splitting it after each.
    fn block(&mut self, mut b: BlockId) -> Result<(), Diagnostic> {
        loop {
            let block = self.g.block(b);
            let catching = block.catches_exceptions();
            if catching && (block.operations.is_empty() || block.exits.is_empty()) {
                return Err(self.sources.diagnostic_or(
                    self.path,
                    self.g.pos.unwrap_or_default(),
                    format!(
                        "exceptiontransform, in function '{}': a block switching on \
                         last_exception needs an operation and a normal exit",
                        self.g.name
                    ),
                ));
            }
            let guarded = block.operations.len() - usize::from(catching);
            let unguarded_call = block.operations[..guarded]
                .iter()
                .position(|op| self.can_raise(op));
            if let Some(i) = unguarded_call {
                if !catching && self.returns_result_of(b, i) {
                    return Ok(());
                }
                b = self.split_after_call(b, i);
                continue;
            }
            if catching {
                let last = block
                    .operations
                    .last()
                    .expect("a catching block has an operation");
                if self.can_raise(last) {
                    self.dispatch(b)?;
                } else {
                    let block = self.g.block_mut(b);
                    block.exitswitch = None;
                    block.exits.truncate(1);
                }
            }
            return Ok(());
        }
    }

    /// Whether block `b` ends with its raising operation `i` and returns
    /// what it gives (or nothing, in a Void graph), the operations after it
    /// only casts of its result: the graph then needs no test after it, as
    /// in the original's exception transform. When an exception is
    /// pending, the value returned is whatever the callee returned with it
    /// (its error value), and every caller tests the state, not the value,
    /// before using it; an untested call in tail position lets the C
    /// compiler make it a jump.
    fn returns_result_of(&self, b: BlockId, i: usize) -> bool {
        let block = self.g.block(b);
        let [exit] = block.exits.as_slice() else {
            return false;
        };
        if exit.target != self.g.returnblock || block.exitswitch.is_some() {
            return false;
        }
        let mut value = block.operations[i].result;
        for op in &block.operations[i + 1..] {
            let is_cast = matches!(op.opname, Opcode::CastPointer | Opcode::SameAs)
                && op.args.len() == 1
                && op.args[0] == Arg::Var(value);
            if !is_cast {
                return false;
            }
            value = op.result;
        }
        self.result_type() == LowLevelType::Void || exit.args == [Arg::Var(value)]
    }

    /// Splits block `b` after its operation `i`, a call that can raise and
    /// that no handler of `b` guards: `b` keeps the operations up to the
    /// call and tests the state, returning when an exception is pending; a
    /// new block (returned) takes the rest.
    fn split_after_call(&mut self, b: BlockId, i: usize) -> BlockId {
        let pos = self.g.block(b).operations[i].pos;
        let mut tail = Block {
            inputargs: Vec::new(),
            operations: self.g.block_mut(b).operations.split_off(i + 1),
            exitswitch: self.g.block_mut(b).exitswitch.take(),
            exits: std::mem::take(&mut self.g.block_mut(b).exits),
        };
        let block = self.g.block(b);
        let defined: HashSet<Var> = block
            .inputargs
            .iter()
            .copied()
            .chain(block.operations.iter().map(|op| op.result))
            .collect();
        let live = used_vars(&tail, &defined);
        let fresh = self.fresh_copies(&live);
        let map: HashMap<Var, Var> = live.iter().copied().zip(fresh.iter().copied()).collect();
        rename_block(&mut tail, &map);
        tail.inputargs = fresh;
        self.g.blocks.push(tail);
        let tail_id = BlockId(self.g.blocks.len() as u32 - 1);
        let test = self.new_op(Opcode::ExcOccurred, vec![], LowLevelType::Bool, pos);
        let occurred = test.result;
        let propagate = self.propagate(Some(Constant::Bool(true)));
        let block = self.g.block_mut(b);
        block.operations.push(test);
        block.exitswitch = Some(Arg::Var(occurred));
        block.exits = vec![
            Link::new(
                live.into_iter().map(Arg::Var).collect(),
                tail_id,
                Some(Constant::Bool(false)),
            ),
            propagate,
        ];
        tail_id
    }

    /// New variables of the same types (and names) as `vars`.
    fn fresh_copies(&mut self, vars: &[Var]) -> Vec<Var> {
        vars.iter()
            .map(|v| {
                let d = self.g.vars[v.0 as usize].clone();
                self.g.new_var(d.name, d.info)
            })
            .collect()
    }

    /// Block `b` ends in a call whose exceptions its handlers (exits 1..)
    /// catch: after the call, test the state; when set, try each handler's
    /// subclass range in order, and propagate when none matches.
    fn dispatch(&mut self, b: BlockId) -> Result<(), Diagnostic> {
        let pos = self.g.block(b).operations.last().and_then(|op| op.pos);
        let mut exits = std::mem::take(&mut self.g.block_mut(b).exits);
        let handlers = exits.split_off(1);
        let mut normal = exits.pop().expect("a catching block has a normal exit");
        normal.exitcase = Some(Constant::Bool(false));
        // What the handlers pass on from the block (not the variables the
        // handler links define).
        let mut live = Vec::new();
        for h in &handlers {
            let own: Vec<Var> = h.defined_vars().collect();
            for v in h.args.iter().filter_map(Arg::as_var) {
                if !own.contains(&v) && !live.contains(&v) {
                    live.push(v);
                }
            }
        }
        let etype_t = LowLevelType::Ptr(lltype::OBJECT_VTABLE.into());
        // The first test block reads the exception's class and its id.
        let (first, first_live) = self.block_with_copies(&live, &[]);
        let read = self.new_op(Opcode::ExcType, vec![], etype_t.clone(), pos);
        let etype = read.result;
        let id_op = self.new_op(
            Opcode::Getfield,
            vec![
                Arg::Var(etype),
                Arg::Const(Constant::Name(lltype::SUBCLASSRANGE_MIN.into())),
            ],
            LowLevelType::Signed,
            pos,
        );
        let id = id_op.result;
        self.g.block_mut(first).operations.extend([read, id_op]);
        let (mut test, mut test_live, mut etype, mut id) = (first, first_live, etype, id);
        let count = handlers.len();
        for (k, h) in handlers.into_iter().enumerate() {
            let range = match &h.exitcase {
                Some(Constant::Prebuilt(i)) => self.raising.ranges.get(i).copied(),
                _ => None,
            };
            let (lo, hi) = range.ok_or_else(|| {
                self.sources.diagnostic_or(
                    self.path,
                    pos.or(self.g.pos).unwrap_or_default(),
                    format!(
                        "exceptiontransform, in function '{}': a handler's exit case must be a \
                         vtable static (with subclassrange_min and subclassrange_max), not {:?}",
                        self.g.name, h.exitcase
                    ),
                )
            })?;
            let between = self.new_op(
                Opcode::IntBetween,
                vec![
                    Arg::Const(Constant::Int(lo)),
                    Arg::Var(id),
                    Arg::Const(Constant::Int(hi)),
                ],
                LowLevelType::Bool,
                pos,
            );
            let matched = between.result;
            let caught = self.caught(&live, &test_live, etype, h, pos);
            let (mismatch, next) = if k + 1 == count {
                (self.propagate(Some(Constant::Bool(false))), None)
            } else {
                let (next, next_live) = self.block_with_copies(&test_live, &[etype, id]);
                let args = test_live
                    .iter()
                    .chain([&etype, &id])
                    .copied()
                    .map(Arg::Var)
                    .collect();
                (
                    Link::new(args, next, Some(Constant::Bool(false))),
                    Some((next, next_live)),
                )
            };
            let block = self.g.block_mut(test);
            block.operations.push(between);
            block.exitswitch = Some(Arg::Var(matched));
            block.exits = vec![mismatch, caught];
            if let Some((next, mut next_live)) = next {
                id = next_live.pop().expect("the id");
                etype = next_live.pop().expect("the class");
                (test, test_live) = (next, next_live);
            }
        }
        let test = self.new_op(Opcode::ExcOccurred, vec![], LowLevelType::Bool, pos);
        let occurred = test.result;
        let block = self.g.block_mut(b);
        block.operations.push(test);
        block.exitswitch = Some(Arg::Var(occurred));
        block.exits = vec![
            normal,
            Link::new(
                live.into_iter().map(Arg::Var).collect(),
                first,
                Some(Constant::Bool(true)),
            ),
        ];
        Ok(())
    }
}

impl GraphTransform<'_> {
    /// A new block whose input arguments are copies of `vars` then of
    /// `extra`; returns it and its input arguments.
    fn block_with_copies(&mut self, vars: &[Var], extra: &[Var]) -> (BlockId, Vec<Var>) {
        let all: Vec<Var> = vars.iter().chain(extra).copied().collect();
        let copies = self.fresh_copies(&all);
        (self.g.add_block(copies.clone()), copies)
    }

    /// The link from a test block to handler `h` once its range matched:
    /// a block that reads the instance, clears the state and follows `h`
    /// with its own variables bound. `live` are the original variables
    /// `h` passes on, `test_live` their copies in the test block, `etype`
    /// the pending class there. A handler that only re-raises propagates
    /// directly, leaving the state as it is.
    fn caught(
        &mut self,
        live: &[Var],
        test_live: &[Var],
        etype: Var,
        h: Link,
        pos: Option<Pos>,
    ) -> Link {
        let reraise = h.target == self.g.exceptblock
            && matches!((h.last_exception, h.last_exc_value),
                (Some(t), Some(v)) if h.args == [Arg::Var(t), Arg::Var(v)]);
        if reraise {
            return self.propagate(Some(Constant::Bool(true)));
        }
        // The class goes along only when the handler reads it.
        let class: &[Var] = if h.last_exception.is_some() {
            &[etype]
        } else {
            &[]
        };
        let (block, copies) = self.block_with_copies(test_live, class);
        let mut map: HashMap<Var, Var> = live.iter().copied().zip(copies.iter().copied()).collect();
        if let Some(v) = h.last_exception {
            map.insert(v, copies[copies.len() - 1]);
        }
        let mut ops = Vec::new();
        if let Some(v) = h.last_exc_value {
            let read = self.new_op(Opcode::ExcValue, vec![], self.g.info(v).clone(), pos);
            map.insert(v, read.result);
            ops.push(read);
        }
        ops.push(self.new_op(Opcode::ExcClear, vec![], LowLevelType::Void, pos));
        let args = h.args.iter().map(|a| rename_arg(a, &map)).collect();
        let b = self.g.block_mut(block);
        b.operations = ops;
        b.exits = vec![Link::new(args, h.target, None)];
        let args = test_live
            .iter()
            .chain(class)
            .copied()
            .map(Arg::Var)
            .collect();
        Link::new(args, block, Some(Constant::Bool(true)))
    }
}

/// The variables of `defined` that `block` reads (its operations, its
/// exitswitch, its links' arguments but not the variables a link defines),
/// in order of first use.
fn used_vars(block: &Block, defined: &HashSet<Var>) -> Vec<Var> {
    let mut seen = HashSet::default();
    let mut used = Vec::new();
    let args = block
        .operations
        .iter()
        .flat_map(|op| &op.args)
        .chain(&block.exitswitch)
        .chain(block.exits.iter().flat_map(|l| &l.args));
    for v in args.filter_map(Arg::as_var) {
        if defined.contains(&v) && seen.insert(v) {
            used.push(v);
        }
    }
    used
}

fn rename_arg(a: &Arg, map: &HashMap<Var, Var>) -> Arg {
    match a {
        Arg::Var(v) => Arg::Var(*map.get(v).unwrap_or(v)),
        Arg::Const(_) => a.clone(),
    }
}

/// Renames the variables `block` reads by `map`.
fn rename_block(block: &mut Block, map: &HashMap<Var, Var>) {
    for op in &mut block.operations {
        for a in &mut op.args {
            *a = rename_arg(a, map);
        }
    }
    if let Some(sw) = &mut block.exitswitch {
        *sw = rename_arg(sw, map);
    }
    for l in &mut block.exits {
        for a in &mut l.args {
            *a = rename_arg(a, map);
        }
    }
}

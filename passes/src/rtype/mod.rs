//! The RPython typer: annotated graphs to low-level graphs (the seed's
//! RTyper, `rtyper.py`).
//!
//! Each annotation gets a representation, a low-level type (`repr.rs`);
//! each high-level operation becomes low-level operations. A family of
//! values is one module: classes and instances (`classes.rs`,
//! `instances.rs`), calls of functions, methods and classes (`calls.rs`),
//! exceptions on links (`exceptions.rs`), tuples (`tuples.rs`), lists and
//! their iterators (`lists.rs`), prebuilt objects as static data
//! (`statics.rs`). What a rule can state (operations on numbers, chars and
//! strings, conversions between primitive types) is a rule of
//! `rules/rtype/`; this module keeps what a rule cannot: which
//! conversions to try when no rule matches the operand types as they are,
//! and turning a rule's result tree into operations.

mod calls;
mod classes;
mod dicts;
mod exceptions;
mod externals;
mod frozen;
mod fusions;
mod instances;
mod iterables;
mod lists;
mod methods;
mod repr;
mod rlib;
mod statics;
mod strings;
mod text;
mod tuples;

pub mod lowlevel_helpers;
mod ptr;

pub use classes::{ClassTable, EXC_MESSAGE};
pub use lowlevel_helpers::HelperArg;
pub use repr::const_lltype;
pub use rpy_ir::lltype::{inst_type, vtable_type};

use fxhash::FxHashMap as HashMap;
use rpy_ir::annotation::{ProgramFacts, SomeValue};
use rpy_ir::ast::Dialect;
use rpy_ir::diag::{Diagnostics, Pos};
use rpy_ir::graph::{
    Annotated, Arg, BlockId, Constant, FunctionGraph, Link, LowLevel, PrebuiltObject, Program,
    SpaceOperation, Var,
};
use rpy_ir::llops;
use rpy_ir::lltype::{self, LowLevelType, TypeTable};
use rpy_ir::opcode::Opcode;
use rpy_ruleset::rtype::Lowered;

/// The state of one translation's rtyping: the types, classes and statics
/// made so far, shared by the graphs.
pub struct RTyper<'p> {
    pub types: TypeTable,
    pub classes: ClassTable,
    facts: &'p ProgramFacts,
    /// The annotated program's prebuilt objects (high-level).
    hl_prebuilt: &'p [PrebuiltObject],
    /// The annotated graphs, by name: their annotations say what a value
    /// is beyond its low-level type (which functions a PBC holds).
    annotated: HashMap<&'p str, &'p FunctionGraph<Annotated>>,
    /// The low-level program's statics, and which high-level prebuilt
    /// object or class each stands for.
    statics: Vec<PrebuiltObject>,
    static_of_prebuilt: HashMap<u32, u32>,
    vtable_static: HashMap<String, u32>,
    /// The low-level parameter and result types of every graph, by name.
    signatures: HashMap<String, (Vec<LowLevelType>, LowLevelType)>,
    /// The high-level prebuilt object each static stands for.
    prebuilt_of_static: HashMap<u32, u32>,
    py2: bool,
    /// The low-level helpers this translation called, and their graphs.
    helpers: lowlevel_helpers::LowLevelHelpers,
    helper_graphs: Vec<FunctionGraph<LowLevel>>,
    /// The frozen objects variables hold several of, and what is read
    /// from them.
    frozen: frozen::FrozenFamilies,
}

impl<'p> RTyper<'p> {
    /// The graph of low-level helper `func` of `module` (`rlist`, `rstr`,
    /// `rint`) for arguments `args`: annotated and lowered the first time
    /// with the helpers it calls, the graphs joining the program; its name
    /// and result type.
    pub fn helper(
        &mut self,
        module: &str,
        func: &str,
        args: &[HelperArg],
    ) -> Result<(String, LowLevelType), String> {
        let (_, name, _) = lowlevel_helpers::specialized(module, func, args)?;
        if let Some((_, result)) = self.signatures.get(&name) {
            return Ok((name, result.clone()));
        }
        let (_, mut annotated) = self
            .helpers
            .annotate_only(module, func, args, &self.types)?;
        let fresh: Vec<usize> = (0..annotated.graphs.len())
            .filter(|&i| !self.signatures.contains_key(&annotated.graphs[i].name))
            .collect();
        for &i in &fresh {
            ptr::lower_pointer_ops(&mut annotated.graphs[i]);
            let g = &annotated.graphs[i];
            let sig = self.signature_of(g)?;
            self.signatures.insert(g.name.clone(), sig);
        }
        for &i in &fresh {
            let lowered = self
                .lower_annotated(&annotated.graphs[i])
                .map_err(|(_, e)| format!("in the low-level helper: {e}"))?;
            self.helper_graphs.push(lowered);
        }
        let result = self
            .signatures
            .get(&name)
            .map(|s| s.1.clone())
            .ok_or_else(|| format!("the helper {name} has no graph"))?;
        Ok((name, result))
    }

    fn annotated_graph(&self, name: &str) -> Option<&'p FunctionGraph<Annotated>> {
        self.annotated.get(name).copied()
    }

    /// The low-level signature of graph `name`, found from its
    /// annotations the first time it is asked.
    pub fn signature(&mut self, name: &str) -> Result<(Vec<LowLevelType>, LowLevelType), String> {
        if let Some(sig) = self.signatures.get(name) {
            return Ok(sig.clone());
        }
        let g = self
            .annotated_graph(name)
            .ok_or_else(|| format!("call of {name}(), which is never annotated"))?;
        let sig = self.signature_of(g)?;
        self.signatures.insert(name.to_string(), sig.clone());
        Ok(sig)
    }

    /// The low-level parameter and result types of an annotated graph.
    fn signature_of(
        &mut self,
        g: &FunctionGraph<Annotated>,
    ) -> Result<(Vec<LowLevelType>, LowLevelType), String> {
        let params = g
            .params()
            .iter()
            .map(|v| self.lltype_of(g.info(*v)))
            .collect::<Result<Vec<_>, _>>()?;
        let result = self.lltype_of(g.info(g.block(g.returnblock).inputargs[0]))?;
        Ok((params, result))
    }

    /// Lowers one annotated graph; an error comes with where it was found.
    fn lower_annotated(
        &mut self,
        g: &FunctionGraph<Annotated>,
    ) -> Result<FunctionGraph<LowLevel>, (Option<Pos>, String)> {
        let mut failure = None;
        let mut lg: FunctionGraph<LowLevel> = g.map_stage_ref(|v, a| {
            self.lltype_of(a).unwrap_or_else(|e| {
                let name = match &g.vars[v.0 as usize].name {
                    Some(name) => format!("variable '{name}'"),
                    None => "the value of this expression".into(),
                };
                failure.get_or_insert((v, format!("{name} in {}(): {e}", g.name)));
                LowLevelType::Void
            })
        });
        if let Some((v, msg)) = failure {
            return Err((position_of(g, v).or(g.pos), msg));
        }
        // A function called through a pointer returns the result type
        // the pointer's family shares (`family_signature`); its returns
        // are converted to it.
        let ret = lg.block(lg.returnblock).inputargs[0];
        if let Some((_, result)) = self.signatures.get(&g.name) {
            lg.vars[ret.0 as usize].info = result.clone();
        }
        exceptions::type_except_block(&mut lg);
        let mut typer = GraphTyper::new(lg, g, self);
        match typer.lower_graph() {
            Ok(()) => Ok(typer.graph),
            Err(msg) => Err((
                typer.pos.or(typer.graph.pos),
                format!("in {}(): {msg}", typer.graph.name),
            )),
        }
    }
}

/// Where a variable of `g` is in the source: the operation that makes it,
/// or else (a block's input, such as the value of an `if` expression) the
/// first operation that uses it.
fn position_of(g: &FunctionGraph<Annotated>, v: Var) -> Option<Pos> {
    let ops = || g.blocks.iter().flat_map(|b| &b.operations);
    ops()
        .find(|op| op.result == v)
        .or_else(|| ops().find(|op| op.args.contains(&Arg::Var(v))))
        .and_then(|op| op.pos)
}

/// Lowers one graph.
pub struct GraphTyper<'r, 'p, 'a> {
    graph: FunctionGraph<LowLevel>,
    /// The same graph annotated: variables have the same numbers.
    ann: &'a FunctionGraph<Annotated>,
    rt: &'r mut RTyper<'p>,
    /// Operations of the block being rewritten.
    out: Vec<SpaceOperation>,
    pos: Option<Pos>,
    /// The operation being lowered raises to a handler of this graph
    /// (it ends a block switching on `last_exception`).
    checked: bool,
    /// The blocks the rtyper put on links, with their operations, which
    /// go in once every original block is lowered.
    new_blocks: Vec<(BlockId, Vec<SpaceOperation>)>,
    /// Variables the rtyper made as copies of the graph's (the inputs of
    /// blocks it put on links), with the variable each copies.
    copies: HashMap<Var, Var>,
}

impl<'r, 'p, 'a> GraphTyper<'r, 'p, 'a> {
    fn new(
        graph: FunctionGraph<LowLevel>,
        ann: &'a FunctionGraph<Annotated>,
        rt: &'r mut RTyper<'p>,
    ) -> Self {
        GraphTyper {
            graph,
            ann,
            rt,
            out: Vec::new(),
            pos: None,
            checked: false,
            new_blocks: Vec::new(),
            copies: HashMap::default(),
        }
    }
}

impl<'a> GraphTyper<'_, '_, 'a> {
    /// What the annotator knew of `a`, borrowed when it is a variable's:
    /// for the callers that only look into it (a method call's callee may
    /// be a set of hundreds of methods, each two names).
    fn annotation_ref(&self, a: &Arg) -> std::borrow::Cow<'a, SomeValue> {
        if let Arg::Var(v) = a {
            let original = self.copies.get(v).unwrap_or(v);
            if let Some(data) = self.ann.vars.get(original.0 as usize) {
                return std::borrow::Cow::Borrowed(&data.info);
            }
        }
        std::borrow::Cow::Owned(self.annotation(a))
    }
}

impl GraphTyper<'_, '_, '_> {
    fn type_of(&self, a: &Arg) -> LowLevelType {
        match a {
            Arg::Var(v) => self.graph.info(*v).clone(),
            Arg::Const(Constant::Prebuilt(i)) => self.rt.static_type(*i),
            Arg::Const(c) => const_lltype(c),
        }
    }

    /// What the annotator knew of `a`.
    fn annotation(&self, a: &Arg) -> SomeValue {
        match a {
            Arg::Var(v) => {
                let original = self.copies.get(v).unwrap_or(v);
                match self.ann.vars.get(original.0 as usize) {
                    Some(data) => data.info.clone(),
                    None => SomeValue::Impossible,
                }
            }
            Arg::Const(Constant::Prebuilt(i)) => self
                .rt
                .prebuilt_of_static
                .get(i)
                .and_then(|hl| self.rt.facts.prebuilt.get(hl))
                .cloned()
                .unwrap_or(SomeValue::Object),
            Arg::Const(Constant::Class(c)) => SomeValue::Pbc {
                descs: [rpy_ir::annotation::Desc::Class(c.clone())].into(),
                can_be_none: false,
            },
            Arg::Const(Constant::Func(f)) => SomeValue::function(f.clone()),
            Arg::Const(c) => repr::constant_annotation(c),
        }
    }

    /// The builtin `a` is (`list`, `r_dict`), as a constant or as what
    /// the annotator knew a variable to be.
    fn builtin_of(&self, a: &Arg) -> Option<String> {
        match a {
            Arg::Const(Constant::Builtin(b)) => Some(b.clone()),
            _ => match &*self.annotation_ref(a) {
                SomeValue::Builtin(b) => Some(b.clone()),
                _ => None,
            },
        }
    }

    /// A new variable standing for `v` in another block.
    fn copy_var(&mut self, v: Var) -> Var {
        let info = self.graph.info(v).clone();
        let name = self.graph.vars[v.0 as usize].name.clone();
        let fresh = self.graph.new_var(name, info);
        let original = *self.copies.get(&v).unwrap_or(&v);
        self.copies.insert(fresh, original);
        fresh
    }

    fn emit(&mut self, opname: Opcode, args: Vec<Arg>, ty: LowLevelType, dest: Option<Var>) -> Var {
        let result = match dest {
            Some(v) => v,
            None => self.graph.new_var(None, ty),
        };
        self.out.push(SpaceOperation {
            opname,
            args,
            result,
            pos: self.pos,
        });
        result
    }

    /// A call of helper `func` of module `module` (`rlist`): each argument
    /// what the helper is specialized by and what is passed.
    fn call_helper(
        &mut self,
        module: &str,
        func: &str,
        args: Vec<(HelperArg, Arg)>,
    ) -> Result<Arg, String> {
        let (specialized, passed): (Vec<HelperArg>, Vec<Arg>) = args.into_iter().unzip();
        let (graph, result) = self.rt.helper(module, func, &specialized)?;
        let mut all = vec![Arg::Const(Constant::Func(graph))];
        all.extend(passed);
        Ok(Arg::Var(self.emit(Opcode::DirectCall, all, result, None)))
    }

    /// Emits an operation whose value is `dest` converted from `ty`.
    fn emit_into(
        &mut self,
        opname: Opcode,
        args: Vec<Arg>,
        ty: LowLevelType,
        dest: Var,
    ) -> Result<(), String> {
        let want = self.graph.info(dest).clone();
        if want == ty {
            self.emit(opname, args, ty, Some(dest));
        } else {
            let v = self.emit(opname, args, ty.clone(), None);
            self.finish((Arg::Var(v), ty), Some((dest, want)))?;
        }
        Ok(())
    }

    /// The type an operation produces when it is not a plain primitive.
    fn special_result_type(
        &self,
        opname: Opcode,
        args: &[(Arg, LowLevelType)],
    ) -> Option<LowLevelType> {
        let container = |i: usize| match args.get(i).map(|a| &a.1) {
            Some(LowLevelType::Ptr(name)) => self.rt.types.get(name),
            _ => None,
        };
        match opname {
            Opcode::Getarraysize => Some(LowLevelType::Signed),
            Opcode::Getarrayitem => container(0)?.item_type().cloned(),
            Opcode::Getfield => match args.get(1).map(|a| &a.0) {
                Some(Arg::Const(Constant::Name(f))) => container(0)?.field_type(f).cloned(),
                _ => None,
            },
            Opcode::Setfield | Opcode::Setarrayitem => Some(LowLevelType::Void),
            Opcode::JitWeAreJitted => Some(LowLevelType::Bool),
            _ => None,
        }
    }

    /// Turns a rule's result tree into operations; the root's value goes into
    /// `dest` when given.
    fn materialize(
        &mut self,
        tree: &Lowered,
        args: &[(Arg, LowLevelType)],
        dest: Option<(Var, LowLevelType)>,
    ) -> Result<(Arg, LowLevelType), String> {
        let (opname, children, result_type): (Opcode, Vec<(Arg, LowLevelType)>, LowLevelType) =
            match tree {
                Lowered::Arg(i) => {
                    let a = args[*i].clone();
                    return self.finish(a, dest);
                }
                Lowered::Const(c) => {
                    let a = (Arg::Const(c.clone()), const_lltype(c));
                    return self.finish(a, dest);
                }
                Lowered::Op { opname, args: sub } => {
                    let children = sub
                        .iter()
                        .map(|t| self.materialize(t, args, None))
                        .collect::<Result<Vec<_>, _>>()?;
                    let types: Vec<LowLevelType> = children.iter().map(|c| c.1.clone()).collect();
                    let ty = llops::result_type(*opname, &types)
                        .or_else(|| self.special_result_type(*opname, &children))
                        .ok_or_else(|| {
                            format!("the lowering uses {opname} on types that do not fit it")
                        })?;
                    (*opname, children, ty)
                }
                Lowered::Helper {
                    module,
                    func,
                    args: sub,
                } => {
                    let children = sub
                        .iter()
                        .map(|t| self.materialize(t, args, None))
                        .collect::<Result<Vec<_>, _>>()?;
                    let kinds: Vec<HelperArg> = children
                        .iter()
                        .map(|c| HelperArg::Value(c.1.clone()))
                        .collect();
                    let (graph, result) = self.rt.helper(module, func, &kinds)?;
                    let mut call = vec![(Arg::Const(Constant::Func(graph)), LowLevelType::Void)];
                    call.extend(children);
                    (Opcode::DirectCall, call, result)
                }
                Lowered::Call { func, args: sub } => {
                    let f = llops::runtime_func(func)
                        .ok_or_else(|| format!("unknown runtime function {func}"))?;
                    let mut children = vec![(
                        Arg::Const(Constant::Builtin(func.to_string())),
                        LowLevelType::Void,
                    )];
                    for (t, want) in sub.iter().zip(f.args) {
                        let (a, ty) = self.materialize(t, args, None)?;
                        let a = self.convert(a, &ty, &want.lltype())?;
                        children.push((a, want.lltype()));
                    }
                    (Opcode::DirectCall, children, f.result.lltype())
                }
            };
        let child_args: Vec<Arg> = children.into_iter().map(|c| c.0).collect();
        match dest {
            Some((v, ref want)) if *want == result_type => {
                self.emit(opname, child_args, result_type.clone(), Some(v));
                Ok((Arg::Var(v), result_type))
            }
            _ => {
                let v = self.emit(opname, child_args, result_type.clone(), None);
                self.finish((Arg::Var(v), result_type), dest)
            }
        }
    }

    /// Puts a computed value into `dest`, converting it to `dest`'s type.
    fn finish(
        &mut self,
        value: (Arg, LowLevelType),
        dest: Option<(Var, LowLevelType)>,
    ) -> Result<(Arg, LowLevelType), String> {
        let Some((v, want)) = dest else {
            return Ok(value);
        };
        let converted = self.convert(value.0, &value.1, &want)?;
        self.emit(Opcode::SameAs, vec![converted], want.clone(), Some(v));
        Ok((Arg::Var(v), want))
    }

    /// `value` of type `from` as a value of type `to`.
    fn convert(
        &mut self,
        value: Arg,
        from: &LowLevelType,
        to: &LowLevelType,
    ) -> Result<Arg, String> {
        if from == to {
            return Ok(value);
        }
        if *to == LowLevelType::Void {
            // A value of no representation: what flows is known statically.
            return Ok(Arg::Const(Constant::None));
        }
        if let Arg::Const(c) = &value {
            if let Some(c) = self.rt.ll_constant_as(c, to)? {
                return Ok(Arg::Const(c));
            }
        }
        if let (LowLevelType::Ptr(a), LowLevelType::Ptr(b)) = (from, to) {
            // A list of no possible item (`[]` that nothing was put in) is
            // empty: as a list of another type, a new empty one.
            let (void_list, void_array) = lltype::list_type_names(&LowLevelType::Void);
            if (a == &void_list || a == &void_array) && repr::family(to) == repr::Family::List {
                return self.call_helper(
                    "rlist",
                    "ll_newlist",
                    vec![
                        HelperArg::Type(b.clone()).fixed(),
                        (
                            HelperArg::Value(LowLevelType::Signed),
                            Arg::Const(Constant::Int(0)),
                        ),
                    ],
                );
            }
            // A list that never changes length where one that does is
            // wanted, or the other way round (`a + b` of one of each): a
            // copy of the other kind.
            if repr::family(from) == repr::Family::List
                && repr::family(to) == repr::Family::List
                && self.list_item_type(from).ok() == self.list_item_type(to).ok()
            {
                return self.call_helper(
                    "rlist",
                    "ll_convert",
                    vec![
                        HelperArg::Type(b.clone()).fixed(),
                        (HelperArg::Value(from.clone()), value),
                    ],
                );
            }
            // A tuple as a tuple of wider item types: a new one, item by
            // item converted.
            if repr::family(from) == repr::Family::Tuple && repr::family(to) == repr::Family::Tuple
            {
                return self.convert_tuple(value, b);
            }
            if repr::same_object_family(a, b) {
                let v = self.emit(Opcode::CastPointer, vec![value], to.clone(), None);
                return Ok(Arg::Var(v));
            }
        }
        if *from == LowLevelType::Void {
            // A variable of no representation whose one value the
            // annotation knows (a parameter every caller leaves at its
            // default None): that value as a `to` (the original's
            // conversion from NoneRepr).
            if let Some(c) = self.void_value(&value) {
                if let Some(c) = self.rt.ll_constant_as(&c, to)? {
                    return Ok(Arg::Const(c));
                }
            }
            return Err(format!("a value with no representation cannot become {to}"));
        }
        let tree = rpy_ruleset::rtype::convert(from, to)
            .ok_or_else(|| format!("no conversion from {from} to {to}"))?;
        Ok(self.materialize(&tree, &[(value, from.clone())], None)?.0)
    }

    /// `a` converted to type `to`.
    fn arg_as(&mut self, a: &Arg, to: &LowLevelType) -> Result<Arg, String> {
        let from = self.type_of(a);
        self.convert(a.clone(), &from, to)
    }

    /// Lowers one high-level operation.
    fn lower_op(&mut self, op: &SpaceOperation) -> Result<(), String> {
        self.pos = op.pos;
        if let Some(done) = self.lower_low_level_op(op) {
            return done;
        }
        if op.opname == Opcode::JitMarker {
            self.lower_jit_marker(op);
            return Ok(());
        }
        if let Some(truth) = self.bool_call_as_truth(op) {
            return self.lower_op(&truth);
        }
        // The truth of a value that is always None: false.
        if matches!(op.opname, Opcode::Bool | Opcode::Not)
            && op.args.len() == 1
            && self.annotation(&op.args[0]).general() == SomeValue::None
        {
            return self.define_constant(Constant::Bool(op.opname == Opcode::Not), op.result);
        }
        if op.opname == Opcode::Getattr
            && matches!(
                *self.annotation_ref(&Arg::Var(op.result)),
                SomeValue::BuiltinMethod { .. }
            )
        {
            // A builtin method is its receiver until it is called.
            let want = self.graph.info(op.result).clone();
            let from = self.type_of(&op.args[0]);
            self.finish((op.args[0].clone(), from), Some((op.result, want)))?;
            return Ok(());
        }
        if self.lower_promote(op)?
            || self.drop_untranslated_hint(op)?
            || self.lower_external(op)?
            || self.lower_identity_hash(op)?
            || self.lower_dict_op(op)?
            || self.list_of_instance(op)?
            || self.lower_call(op)?
            || self.lower_instance_op(op)?
            || self.lower_tuple_op(op)?
            || self.lower_text_op(op)?
            || self.lower_string_format(op)?
            || self.lower_by_helper(op, self.checked)?
            || self.lower_list_op(op)?
        {
            return Ok(());
        }
        self.lower_by_rules(op)
    }

    /// `bool(x)` of a value whose truth no rule or helper of `bool()`
    /// lowers (a list that cannot be None, a tuple, an instance): the
    /// truth test `bool` of `x` itself, as the original's
    /// `rtype_builtin_bool` asks `x`'s repr for `rtype_bool`.
    fn bool_call_as_truth(&self, op: &SpaceOperation) -> Option<SpaceOperation> {
        let [callee, x] = &op.args[..] else {
            return None;
        };
        if op.opname != Opcode::SimpleCall || self.builtin_of(callee).as_deref() != Some("bool") {
            return None;
        }
        let lowered_by_rules = matches!(
            self.annotation(x).general(),
            SomeValue::Integer { .. }
                | SomeValue::Bool
                | SomeValue::Float
                | SomeValue::String { .. }
                | SomeValue::Char
                | SomeValue::Dict(_)
        );
        if lowered_by_rules {
            return None;
        }
        Some(SpaceOperation {
            opname: Opcode::Bool,
            args: vec![x.clone()],
            result: op.result,
            pos: op.pos,
        })
    }

    /// A JIT hint stays as the low-level `jit_marker`, with the loop's
    /// variables as they are represented. The driver, a frozen object of
    /// no representation, is named by its prebuilt index, and followed by
    /// its number of greens: the low-level program keeps no trace of the
    /// JitDriver's declaration, and the JIT's codewriter must tell the
    /// greens (the loop's key) from the reds.
    fn lower_jit_marker(&mut self, op: &SpaceOperation) {
        let mut args = op.args.clone();
        if let Some(Arg::Const(Constant::Prebuilt(i))) = args.get(1) {
            let i = *i;
            let hl = self.rt.prebuilt_of_static.get(&i).copied().unwrap_or(i);
            let greens = rpy_ir::graph::JitDriverDecl::of(self.rt.hl_prebuilt, hl)
                .map_or(0, |decl| decl.greens.len());
            args[1] = Arg::Const(Constant::Name(format!("jitdriver{i}")));
            args.insert(2, Arg::Const(Constant::Int(greens as i64)));
        }
        self.emit(Opcode::JitMarker, args, LowLevelType::Void, Some(op.result));
    }

    /// `jit.promote(x)` (and `promote_string(x)`, promoted by identity, not
    /// by content as the original does): the low-level `jit_promote`, which
    /// is x without a JIT; `jit.hint(x, ...)`: x.
    fn lower_promote(&mut self, op: &SpaceOperation) -> Result<bool, String> {
        if op.opname != Opcode::SimpleCall || op.args.len() != 2 {
            return Ok(false);
        }
        match op.args.first().and_then(|f| self.builtin_of(f)) {
            Some(b) if b == "promote" || b == "promote_string" => {
                let ty = self.type_of(&op.args[1]);
                let want = self.graph.info(op.result).clone();
                let v = self.emit(
                    Opcode::JitPromote,
                    vec![op.args[1].clone()],
                    ty.clone(),
                    None,
                );
                self.finish((Arg::Var(v), ty), Some((op.result, want)))?;
                Ok(true)
            }
            // `hint(x, access_directly=True, fresh_virtualizable=True, ...)`
            // tells the JIT about x; without one it is x, as in the original
            // (the flow dropped the keywords).
            Some(b) if b == "hint" => {
                let ty = self.type_of(&op.args[1]);
                let want = self.graph.info(op.result).clone();
                self.finish((op.args[1].clone(), ty), Some((op.result, want)))?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// A call of an rlib function that does nothing in a translated program
    /// that is not being logged or JIT-compiled (`debug_start`, `debug_print`
    /// print only under PYPYLOG; `keepalive_until_here` and `assert_green`
    /// say something only to the GC or the JIT; `jit.set_param` tunes a
    /// JIT there is none of) leaves no operation, as in the original
    /// without logging: its value is None.
    fn drop_untranslated_hint(&mut self, op: &SpaceOperation) -> Result<bool, String> {
        if op.opname != Opcode::SimpleCall {
            return Ok(false);
        }
        match op.args.first().and_then(|f| self.builtin_of(f)) {
            Some(b) if b == "set_param" => {
                let value = self.lower_jit_set_param(&op.args[1..])?;
                let want = self.graph.info(op.result).clone();
                self.finish(value, Some((op.result, want)))?;
                Ok(true)
            }
            Some(b) if crate::language::rlib::UNTRANSLATED_HINTS.contains(&b.as_str()) => {
                let want = self.graph.info(op.result).clone();
                self.finish(
                    (Arg::Const(Constant::None), LowLevelType::Void),
                    Some((op.result, want)),
                )?;
                Ok(true)
            }
            // A signed machine word is always a valid int: the original's
            // is_valid_int folds to True on an annotated int.
            Some(b) if b == "is_valid_int" && op.args.len() == 2 => {
                match self.annotation(&op.args[1]).general() {
                    SomeValue::Integer {
                        unsigned: false, ..
                    }
                    | SomeValue::Bool => {
                        self.define_constant(Constant::Bool(true), op.result)?;
                        Ok(true)
                    }
                    _ => Ok(false),
                }
            }
            // Translated code is translated (the annotator typed the call
            // as the constant True; a use the flow did not fold keeps it).
            Some(b) if b == "we_are_translated" => {
                self.define_constant(Constant::Bool(true), op.result)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Lowers `op` by the first rule of `rules/rtype/` that matches its
    /// operand types, as they are or widened.
    fn lower_by_rules(&mut self, op: &SpaceOperation) -> Result<(), String> {
        let result_type = self.graph.info(op.result).clone();
        let types: Vec<LowLevelType> = op.args.iter().map(|a| self.type_of(a)).collect();
        let consts: Vec<Option<Constant>> = op.args.iter().map(|a| a.as_const().cloned()).collect();
        let mut tried = types.clone();
        for step in 0..=3 {
            if step > 0 {
                tried = tried.iter().map(|t| repr::widen(t, step, &types)).collect();
            }
            if step > 0 && tried == types {
                continue;
            }
            if let Some(tree) = rpy_ruleset::rtype::lower(op.opname, &tried, &consts, self.rt.py2) {
                let mut args = Vec::new();
                for ((a, from), to) in op.args.iter().zip(&types).zip(&tried) {
                    args.push((self.convert(a.clone(), from, to)?, to.clone()));
                }
                self.materialize(&tree, &args, Some((op.result, result_type)))?;
                return Ok(());
            }
        }
        let shown: Vec<String> = op
            .args
            .iter()
            .map(|a| self.annotation(a).describe())
            .collect();
        Err(format!(
            "the rtyper cannot lower '{}' on {} yet",
            op.opname,
            if shown.is_empty() {
                "no operands".to_string()
            } else {
                shown.join(", ")
            }
        ))
    }

    fn lower_graph(&mut self) -> Result<(), String> {
        // The program's prebuilt objects become statics: from here on a
        // `Prebuilt` constant of the graph names a static.
        let mut blocks = std::mem::take(&mut self.graph.blocks);
        let result = (|| {
            for block in &mut blocks {
                let args = block
                    .operations
                    .iter_mut()
                    .flat_map(|op| op.args.iter_mut())
                    .chain(block.exits.iter_mut().flat_map(|l| l.args.iter_mut()));
                for a in args {
                    if let Arg::Const(Constant::Prebuilt(i)) = a {
                        *i = self.rt.static_of(*i)?;
                    }
                }
            }
            Ok::<(), String>(())
        })();
        self.graph.blocks = blocks;
        result?;
        let nblocks = self.graph.blocks.len();
        for b in 0..nblocks {
            let ops = std::mem::take(&mut self.graph.blocks[b].operations);
            self.out = Vec::with_capacity(ops.len());
            let raising =
                self.graph.blocks[b].exitswitch == Some(Arg::Const(Constant::LastException));
            for (i, op) in ops.iter().enumerate() {
                if raising && i + 1 == ops.len() && self.lower_raising_next(b, op)? {
                    continue;
                }
                self.checked = raising && i + 1 == ops.len();
                self.lower_op(op)?;
                self.checked = false;
            }
            self.pos = ops.last().and_then(|o| o.pos);
            if raising {
                self.check_raising_op(b, ops.last())?;
            }
            let raising =
                self.graph.blocks[b].exitswitch == Some(Arg::Const(Constant::LastException));
            self.lower_exits(b, raising)?;
            self.graph.blocks[b].operations = std::mem::take(&mut self.out);
        }
        for (block, ops) in std::mem::take(&mut self.new_blocks) {
            self.graph.block_mut(block).operations = ops;
        }
        Ok(())
    }
}

/// Lowers every graph of the program.
pub fn rtype(
    program: Program<Annotated>,
    dialect: Dialect,
) -> Result<Program<LowLevel>, Diagnostics> {
    let error = |pos: Option<Pos>, msg: String| program.diagnostic(pos.unwrap_or_default(), msg);
    let mut types = program.types.clone();
    types.insert(lltype::STR.into(), lltype::str_type());
    lltype::add_object_types(&mut types);
    let mut rt = RTyper {
        types,
        classes: ClassTable::new(&program.facts.classdefs, &program.prebuilt, dialect),
        facts: &program.facts,
        hl_prebuilt: &program.prebuilt,
        annotated: program
            .graphs
            .iter()
            .map(|g| (g.name.as_str(), g))
            .collect(),
        statics: Vec::new(),
        static_of_prebuilt: HashMap::default(),
        vtable_static: HashMap::default(),
        signatures: HashMap::default(),
        prebuilt_of_static: HashMap::default(),
        py2: dialect == Dialect::Py2,
        helpers: lowlevel_helpers::LowLevelHelpers::new(),
        helper_graphs: Vec::new(),
        frozen: frozen::FrozenFamilies::of_program(&program.graphs),
    };
    if let Err(msg) = rt.lay_out_classes().and_then(|()| rt.make_frozen_statics()) {
        return Err(Diagnostics::one(error(None, msg)));
    }
    let mut diags = Vec::new();
    let mut lowered = Vec::new();
    for g in &program.graphs {
        match rt.lower_annotated(g) {
            Ok(lg) => lowered.push(lg),
            Err((pos, msg)) => diags.push(error(pos, msg)),
        }
    }
    if !rt.py2 {
        if let Err(msg) = decode_argv(&mut rt, &mut lowered, &program.entry) {
            diags.push(error(None, msg));
        }
    }
    if let Err(msg) = rt.make_vtables() {
        diags.push(error(None, msg));
    }
    if !diags.is_empty() {
        return Err(Diagnostics(diags));
    }
    if let Err(msg) = fusions::fuse_slice_comparisons(&mut rt, &mut lowered) {
        return Err(Diagnostics::one(error(None, msg)));
    }
    lowered.append(&mut rt.helper_graphs);
    rt.mark_destructors(&mut lowered);
    let types = used_types(&rt.types, &lowered, &rt.statics);
    // The helpers' graphs (and what was inlined into them) name the
    // helper library's files.
    let mut sources = program.sources.clone();
    if let Some(library) = lowlevel_helpers::library_sources() {
        sources.link(library);
    }
    Ok(Program {
        path: program.path.clone(),
        sources,
        graphs: lowered,
        entry: program.entry.clone(),
        types,
        prebuilt: rt.statics,
        // The classes stay known to what reads the low-level program (the
        // JIT's codewriter: which fields are immutable).
        facts: rpy_ir::annotation::ProgramFacts {
            classdefs: program.facts.classdefs.clone(),
            ..Default::default()
        },
    })
}

/// A Python 3 program's entry point gets its arguments as CPython 3 gives
/// them, decoded from UTF-8, where the executable and the LLInterpreter
/// pass the bytes: a new start block of the entry graph calls the decoder
/// (`rstr.ll_argv_py3`) and passes its list on. (An entry point that takes
/// other arguments than a list of strings is left as it is.)
fn decode_argv(
    rt: &mut RTyper<'_>,
    graphs: &mut [FunctionGraph<LowLevel>],
    entry: &str,
) -> Result<(), String> {
    let Some(g) = graphs.iter_mut().find(|g| g.name == entry) else {
        return Ok(());
    };
    let &[argv] = g.params() else {
        return Ok(());
    };
    let ty = g.info(argv).clone();
    let str_ptr = LowLevelType::Ptr(lltype::STR.into());
    if ty != LowLevelType::Ptr(lltype::add_list_type(&mut rt.types, &str_ptr)) {
        return Ok(());
    }
    let (decoder, result) = rt.helper("rstr", "ll_argv_py3", &[HelperArg::Value(ty.clone())])?;
    let raw = g.new_var(g.vars[argv.0 as usize].name.clone(), ty);
    let decoded = g.new_var(None, result);
    let start = g.add_block(vec![raw]);
    let body = g.startblock;
    let pos = g.pos;
    let block = g.block_mut(start);
    block.operations.push(SpaceOperation {
        opname: Opcode::DirectCall,
        args: vec![Arg::Const(Constant::Func(decoder)), Arg::Var(raw)],
        result: decoded,
        pos,
    });
    block
        .exits
        .push(Link::new(vec![Arg::Var(decoded)], body, None));
    g.startblock = start;
    Ok(())
}

/// The types the low-level program uses: those of its variables, of the
/// types its operations name (`malloc(T)`), of its statics, and every type
/// theirs refer to. Every class has its types made, and the program keeps
/// those of the classes it uses.
fn used_types(
    types: &TypeTable,
    graphs: &[FunctionGraph<LowLevel>],
    statics: &[PrebuiltObject],
) -> TypeTable {
    fn mark<'t>(t: &'t LowLevelType, stack: &mut Vec<&'t str>) {
        match t {
            LowLevelType::Ptr(name) => stack.push(name),
            LowLevelType::FuncPtr(sig) => {
                for p in &sig.params {
                    mark(p, stack);
                }
                mark(&sig.result, stack);
            }
            _ => {}
        }
    }
    let mut stack: Vec<&str> = vec![lltype::STR];
    for g in graphs {
        for v in &g.vars {
            mark(&v.info, &mut stack);
        }
        for op in g.blocks.iter().flat_map(|b| &b.operations) {
            for a in &op.args {
                if let Arg::Const(Constant::Name(n)) = a {
                    stack.push(n);
                }
            }
        }
    }
    for s in statics {
        if let PrebuiltObject::Struct { ty, .. } | PrebuiltObject::Array { ty, .. } = s {
            stack.push(ty);
        }
    }
    // Most variables point to a few types: each name is looked at once
    // (a hash probe, not a walk down the sorted table).
    let mut seen: fxhash::FxHashSet<&str> = fxhash::FxHashSet::default();
    let mut out = TypeTable::new();
    while let Some(name) = stack.pop() {
        if !seen.insert(name) {
            continue;
        }
        let Some(t) = types.get(name) else {
            continue;
        };
        out.insert(name.to_string(), t.clone());
        match t {
            lltype::ContainerType::GcStruct { fields, var_item } => {
                for (_, f) in fields {
                    mark(f, &mut stack);
                }
                if let Some(item) = var_item {
                    mark(item, &mut stack);
                }
            }
            lltype::ContainerType::GcArray { item } => mark(item, &mut stack),
        }
    }
    out
}

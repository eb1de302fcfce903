//! The RPython typer: annotated graphs to low-level graphs.
//!
//! Each annotation gets a representation, a low-level type
//! (`lltype_of`); each high-level operation becomes low-level operations by the
//! lowering rules of `rules/rtype/`, and values whose type differs from what a
//! rule or a link target wants are converted by the conversion rules. What stays
//! in Rust: choosing which conversions to try when no rule matches the operand
//! types exactly, calls between the program's functions, and turning a rule's
//! result tree into operations.

pub mod lowlevel_helpers;
mod ptr;

use crate::rules::{self, rtype::Lowered};
use lowlevel_helpers::{HelperArg, LowLevelHelpers};
use rpy_ir::annotation::SomeValue;
use rpy_ir::ast::Dialect;
use rpy_ir::diag::{Diagnostic, Diagnostics, Pos};
use rpy_ir::graph::{
    Annotated, Arg, Constant, FunctionGraph, LowLevel, Program, SpaceOperation, Var,
};
use rpy_ir::llops;
use rpy_ir::lltype::{self, LowLevelType, TypeTable};

/// The low-level type that represents values of annotation `a`, registering
/// any container type it needs in `types`.
pub fn lltype_of(a: &SomeValue, types: &mut TypeTable) -> Result<LowLevelType, String> {
    Ok(match a {
        SomeValue::Integer { unsigned: true, .. } => LowLevelType::Unsigned,
        SomeValue::Integer { .. } => LowLevelType::Signed,
        SomeValue::Bool => LowLevelType::Bool,
        SomeValue::Float => LowLevelType::Float,
        SomeValue::Char => LowLevelType::Char,
        SomeValue::String { .. } => {
            types.insert(lltype::STR.into(), lltype::str_type());
            LowLevelType::Ptr(lltype::STR.into())
        }
        SomeValue::List(def) => {
            let item = lltype_of(&def.item, types)?;
            LowLevelType::Ptr(lltype::add_list_type(types, &item))
        }
        // Low-level helper code: a pointer is its type; a type is a constant.
        SomeValue::Ptr(t) => t.clone(),
        SomeValue::LLType(_) => LowLevelType::Void,
        // Values known statically are not represented at run time.
        SomeValue::Impossible | SomeValue::None | SomeValue::Pbc { .. } | SomeValue::Builtin(_) => {
            LowLevelType::Void
        }
        SomeValue::Object => return Err("a value of mixed types has no low-level type".into()),
        other => {
            return Err(format!(
                "the rtyper cannot represent {} yet",
                other.describe()
            ))
        }
    })
}

/// The low-level type of a constant operand.
pub fn const_lltype(c: &Constant) -> LowLevelType {
    match c {
        Constant::Int(_) => LowLevelType::Signed,
        Constant::Float(_) => LowLevelType::Float,
        Constant::Bool(_) => LowLevelType::Bool,
        Constant::Char(_) => LowLevelType::Char,
        Constant::Str(s) if s.chars().count() == 1 => LowLevelType::Char,
        Constant::Str(_) => LowLevelType::Ptr(lltype::STR.into()),
        Constant::None
        | Constant::Func(_)
        | Constant::Builtin(_)
        | Constant::Name(_)
        | Constant::Class(_)
        | Constant::LastException => LowLevelType::Void,
        // The annotator rejects prebuilt objects before the rtyper sees one.
        Constant::Prebuilt(_) => LowLevelType::Void,
    }
}

/// A constant converted to another low-level type at translation time, when
/// the conversion is exact.
fn convert_constant(c: &Constant, to: &LowLevelType) -> Option<Constant> {
    Some(match (c, to) {
        (Constant::Bool(b), LowLevelType::Signed) => Constant::Int(*b as i64),
        (Constant::Bool(b), LowLevelType::Float) => Constant::Float(*b as i64 as f64),
        (Constant::Int(n), LowLevelType::Float) => Constant::Float(*n as f64),
        (Constant::Str(s), LowLevelType::Char) if s.chars().count() == 1 => {
            Constant::Char(s.chars().next()? as u32 as u8)
        }
        (Constant::Char(ch), LowLevelType::Ptr(t)) if t == lltype::STR => {
            Constant::Str((*ch as char).to_string())
        }
        (Constant::Str(_), LowLevelType::Ptr(t)) if t == lltype::STR => c.clone(),
        (Constant::None, LowLevelType::Ptr(_)) => Constant::None,
        (c, LowLevelType::Void) => c.clone(),
        _ => return None,
    })
}

/// What the conversion ladder tries when no lowering rule matches the operand
/// types as they are: bools as ints, then ints as floats, then chars as strings.
fn widen(ty: &LowLevelType, step: usize, any_float: bool) -> LowLevelType {
    let str_ptr = || LowLevelType::Ptr(lltype::STR.into());
    match (ty, step) {
        (LowLevelType::Bool, 1) => LowLevelType::Signed,
        (LowLevelType::Bool | LowLevelType::Signed, 2) if any_float => LowLevelType::Float,
        (LowLevelType::Bool, 2) => LowLevelType::Signed,
        (LowLevelType::Char, 3) => str_ptr(),
        (LowLevelType::Bool, 3) => LowLevelType::Signed,
        _ => ty.clone(),
    }
}

struct GraphTyper<'a> {
    graph: FunctionGraph<LowLevel>,
    types: &'a mut TypeTable,
    /// The low-level helpers the rules call, specialized as they are met.
    helpers: &'a mut LowLevelHelpers,
    /// Parameter and return types of every graph, by name.
    signatures: &'a [(String, Vec<LowLevelType>, LowLevelType)],
    py2: bool,
    /// Operations of the block being rewritten.
    out: Vec<SpaceOperation>,
    pos: Option<Pos>,
}

impl GraphTyper<'_> {
    fn type_of(&self, a: &Arg) -> LowLevelType {
        match a {
            Arg::Var(v) => self.graph.info(*v).clone(),
            Arg::Const(c) => const_lltype(c),
        }
    }

    fn emit(&mut self, opname: &str, args: Vec<Arg>, ty: LowLevelType, dest: Option<Var>) -> Var {
        let result = match dest {
            Some(v) => v,
            None => self.graph.new_var(None, ty),
        };
        self.out.push(SpaceOperation {
            opname: opname.to_string(),
            args,
            result,
            pos: self.pos,
        });
        result
    }

    /// The type an operation produces when it is not a plain primitive.
    fn special_result_type(
        &self,
        opname: &str,
        args: &[(Arg, LowLevelType)],
    ) -> Option<LowLevelType> {
        let container = |i: usize| match args.get(i).map(|a| &a.1) {
            Some(LowLevelType::Ptr(name)) => self.types.get(name),
            _ => None,
        };
        match opname {
            "getarraysize" => Some(LowLevelType::Signed),
            "getarrayitem" => container(0)?.item_type().cloned(),
            "getfield" => match args.get(1).map(|a| &a.0) {
                Some(Arg::Const(Constant::Name(f))) => container(0)?.field_type(f).cloned(),
                _ => None,
            },
            "setfield" | "setarrayitem" => Some(LowLevelType::Void),
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
        let (opname, children, result_type): (String, Vec<(Arg, LowLevelType)>, LowLevelType) =
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
                    let ty = llops::result_type(opname, &types)
                        .or_else(|| self.special_result_type(opname, &children))
                        .ok_or_else(|| {
                            format!("the lowering uses {opname} on types that do not fit it")
                        })?;
                    (opname.to_string(), children, ty)
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
                    ("direct_call".to_string(), children, f.result.lltype())
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
                    let (graph, result) =
                        self.helpers.specialize(module, func, &kinds, self.types)?;
                    let mut call = vec![(Arg::Const(Constant::Func(graph)), LowLevelType::Void)];
                    call.extend(children);
                    ("direct_call".to_string(), call, result)
                }
            };
        let child_args: Vec<Arg> = children.into_iter().map(|c| c.0).collect();
        match dest {
            Some((v, ref want)) if *want == result_type => {
                self.emit(&opname, child_args, result_type.clone(), Some(v));
                Ok((Arg::Var(v), result_type))
            }
            _ => {
                let v = self.emit(&opname, child_args, result_type.clone(), None);
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
        self.emit("same_as", vec![converted], want.clone(), Some(v));
        Ok((Arg::Var(v), want))
    }

    /// `value` of type `from` as a value of type `to`.
    fn convert(
        &mut self,
        value: Arg,
        from: &LowLevelType,
        to: &LowLevelType,
    ) -> Result<Arg, String> {
        if from == to || *to == LowLevelType::Void {
            return Ok(value);
        }
        if let Arg::Const(c) = &value {
            if let Some(c) = convert_constant(c, to) {
                return Ok(Arg::Const(c));
            }
        }
        let tree = rules::rtype::convert(from, to)
            .ok_or_else(|| format!("no conversion from {from} to {to}"))?;
        Ok(self.materialize(&tree, &[(value, from.clone())], None)?.0)
    }

    /// Lowers one high-level operation.
    fn lower_op(&mut self, op: &SpaceOperation) -> Result<(), String> {
        self.pos = op.pos;
        if let Some(done) = self.lower_low_level_op(op) {
            return done;
        }
        let result_type = self.graph.info(op.result).clone();
        if let (Some(Constant::Func(callee)), "simple_call") =
            (op.args.first().and_then(Arg::as_const), op.opname.as_str())
        {
            let (_, params, ret) = self
                .signatures
                .iter()
                .find(|s| s.0 == *callee)
                .ok_or_else(|| format!("call of unknown function {callee}"))?
                .clone();
            let mut args = vec![op.args[0].clone()];
            for (a, want) in op.args[1..].iter().zip(&params) {
                let ty = self.type_of(a);
                args.push(self.convert(a.clone(), &ty, want)?);
            }
            if ret == result_type {
                self.emit("direct_call", args, ret, Some(op.result));
            } else {
                let v = self.emit("direct_call", args, ret.clone(), None);
                self.finish((Arg::Var(v), ret), Some((op.result, result_type)))?;
            }
            return Ok(());
        }
        let types: Vec<LowLevelType> = op.args.iter().map(|a| self.type_of(a)).collect();
        let consts: Vec<Option<Constant>> = op.args.iter().map(|a| a.as_const().cloned()).collect();
        let any_float = types.contains(&LowLevelType::Float);
        let mut tried = types.clone();
        for step in 0..=3 {
            if step > 0 {
                tried = tried.iter().map(|t| widen(t, step, any_float)).collect();
            }
            if step > 0 && tried == types {
                continue;
            }
            if let Some(tree) = rules::rtype::lower(&op.opname, &tried, &consts, self.py2) {
                let mut args = Vec::new();
                for ((a, from), to) in op.args.iter().zip(&types).zip(&tried) {
                    args.push((self.convert(a.clone(), from, to)?, to.clone()));
                }
                self.materialize(&tree, &args, Some((op.result, result_type)))?;
                return Ok(());
            }
        }
        let shown: Vec<String> = types.iter().map(|t| t.to_string()).collect();
        Err(format!(
            "no lowering rule for '{}' on {}",
            op.opname,
            if shown.is_empty() {
                "no operands".to_string()
            } else {
                shown.join(", ")
            }
        ))
    }

    fn lower_graph(&mut self) -> Result<(), String> {
        for b in 0..self.graph.blocks.len() {
            let ops = std::mem::take(&mut self.graph.blocks[b].operations);
            self.out = Vec::with_capacity(ops.len());
            for op in &ops {
                self.lower_op(op)?;
            }
            self.pos = ops.last().and_then(|o| o.pos);
            // Link arguments take the type of the target's input arguments.
            let mut exits = std::mem::take(&mut self.graph.blocks[b].exits);
            for link in &mut exits {
                let targets = self.graph.block(link.target).inputargs.clone();
                for (arg, target) in link.args.iter_mut().zip(targets) {
                    let from = self.type_of(arg);
                    let to = self.graph.info(target).clone();
                    *arg = self.convert(arg.clone(), &from, &to)?;
                }
            }
            let block = &mut self.graph.blocks[b];
            block.exits = exits;
            block.operations = std::mem::take(&mut self.out);
        }
        Ok(())
    }
}

/// Lowers every graph of the program.
pub fn rtype(
    program: Program<Annotated>,
    dialect: Dialect,
    source: &str,
) -> Result<Program<LowLevel>, Diagnostics> {
    let mut types = program.types.clone();
    types.insert(lltype::STR.into(), lltype::str_type());
    let mut diags = Vec::new();
    let error = |pos: Option<Pos>, msg: String| {
        Diagnostic::new(program.path.clone(), pos.unwrap_or_default(), msg).with_source(source)
    };
    let mut graphs: Vec<FunctionGraph<LowLevel>> = Vec::new();
    for g in &program.graphs {
        let mut failure = None;
        let lg = g.clone().map_stage(|v, a| {
            lltype_of(a, &mut types).unwrap_or_else(|e| {
                let name = g.vars[v.0 as usize]
                    .name
                    .clone()
                    .unwrap_or("a value".into());
                failure.get_or_insert(format!("{name} in {}(): {e}", g.name));
                LowLevelType::Void
            })
        });
        if let Some(msg) = failure {
            diags.push(error(g.pos, msg));
        }
        graphs.push(lg);
    }
    let signatures: Vec<(String, Vec<LowLevelType>, LowLevelType)> = graphs
        .iter()
        .map(|g| {
            let params = g.params().iter().map(|v| g.info(*v).clone()).collect();
            let ret = g.info(g.block(g.returnblock).inputargs[0]).clone();
            (g.name.clone(), params, ret)
        })
        .collect();
    let mut lowered = Vec::new();
    let mut helpers = LowLevelHelpers::new();
    for graph in graphs {
        let mut typer = GraphTyper {
            graph,
            types: &mut types,
            helpers: &mut helpers,
            signatures: &signatures,
            py2: dialect == Dialect::Py2,
            out: Vec::new(),
            pos: None,
        };
        if let Err(msg) = typer.lower_graph() {
            let pos = typer.pos.or(typer.graph.pos);
            diags.push(error(pos, format!("in {}(): {msg}", typer.graph.name)));
        }
        lowered.push(typer.graph);
    }
    if !diags.is_empty() {
        return Err(Diagnostics(diags));
    }
    // The helpers' graphs go through the pipeline with the program's.
    lowered.extend(helpers.take_graphs());
    Ok(Program {
        path: program.path,
        graphs: lowered,
        entry: program.entry,
        types,
        prebuilt: program.prebuilt,
    })
}

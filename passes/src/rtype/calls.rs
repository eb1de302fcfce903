//! Calls (the original's `rpbc.py`): of one known function or method, a
//! direct call; of a variable holding several functions, a call through
//! the function pointer it is; of a method of several classes, a call
//! through the receiver's vtable slot; of a class, an instantiation.

use super::{GraphTyper, RTyper};
use rpy_ir::annotation::{Desc, SomeValue};
use rpy_ir::graph::{Annotated, Arg, Constant, FunctionGraph, Link, SpaceOperation};
use rpy_ir::lltype::{self, LowLevelType};
use rpy_ir::opcode::Opcode;

impl GraphTyper<'_, '_, '_> {
    /// Lowers `simple_call` of a function, method or class; false for
    /// any other operation (builtins are lowered elsewhere).
    pub(super) fn lower_call(&mut self, op: &SpaceOperation) -> Result<bool, String> {
        if op.opname != Opcode::SimpleCall {
            return Ok(false);
        }
        let callee = &op.args[0];
        let args = &op.args[1..];
        let annotation = self.annotation_ref(callee);
        let descs = match &*annotation {
            SomeValue::Pbc { descs, .. } => descs,
            _ => return Ok(false),
        };
        match &descs[..] {
            [Desc::Function(f)] => {
                let f = f.clone();
                self.direct_call(&f, args.to_vec(), op)?;
            }
            [Desc::Method { func, .. }] => {
                let mut all = vec![callee.clone()];
                all.extend(args.iter().cloned());
                let func = func.clone();
                self.direct_call(&func, all, op)?;
            }
            [Desc::FrozenMethod { .. }] => {
                let Some(Desc::FrozenMethod { func, object }) = descs.first() else {
                    return Err("a frozen method without its object".into());
                };
                // `self` is the object's static where the method takes one
                // of several objects, else nothing.
                let receiver = self
                    .frozen_static(&SomeValue::Pbc {
                        descs: [Desc::Frozen(object.clone())].into(),
                        can_be_none: false,
                    })
                    .unwrap_or(Constant::None);
                let mut all = vec![Arg::Const(receiver)];
                all.extend(args.iter().cloned());
                let func = func.clone();
                self.direct_call(&func, all, op)?;
            }
            [Desc::Class(class)] => {
                let class = class.clone();
                self.instantiate(&class, args, op)?;
            }
            // A method bound to one of several frozen objects is the
            // object; it is one function (`RTyper::pbc_lltype`).
            [Desc::FrozenMethod { func, .. }, ..] => {
                let mut all = vec![callee.clone()];
                all.extend(args.iter().cloned());
                let func = func.clone();
                self.direct_call(&func, all, op)?;
            }
            descs if descs.iter().all(|d| matches!(d, Desc::Method { .. })) => {
                let Some(Desc::Method { func, .. }) = descs.first() else {
                    return Err("a method call without methods".into());
                };
                let name = self
                    .rt
                    .classes
                    .method_name(func)
                    .ok_or_else(|| format!("the method {func} is no class attribute"))?
                    .to_string();
                // The receiver is represented as the class all the
                // methods' classes derive from (`RTyper::pbc_lltype`).
                let class = self
                    .rt
                    .classes
                    .common_class(descs.iter().filter_map(|d| match d {
                        Desc::Method { class, .. } => Some(class.as_str()),
                        _ => None,
                    }))
                    .ok_or("methods of classes with no common base")?;
                self.method_call(&class, &name, callee, args, op)?;
            }
            // One of several classes: a call of the graph that tests
            // which and instantiates it (`instantiate_graph`).
            descs if descs.iter().all(|d| matches!(d, Desc::Class(_))) => {
                let classes: Vec<String> = descs
                    .iter()
                    .filter_map(|d| match d {
                        Desc::Class(c) => Some(c.clone()),
                        _ => None,
                    })
                    .collect();
                let cls = annotation.clone().into_owned();
                drop(annotation);
                let params: Vec<SomeValue> = std::iter::once(cls)
                    .chain(args.iter().map(|a| self.annotation(a)))
                    .collect();
                let result = self.annotation(&Arg::Var(op.result));
                let graph = self.rt.instantiate_graph(&classes, &params, &result)?;
                self.direct_call(&graph, op.args.clone(), op)?;
            }
            descs if descs.iter().all(|d| matches!(d, Desc::Function(_))) => {
                let LowLevelType::FuncPtr(sig) = self.type_of(callee) else {
                    return Err("a call family without a function pointer".into());
                };
                let mut call_args = vec![callee.clone()];
                for (a, want) in args.iter().zip(&sig.params) {
                    call_args.push(self.arg_as(a, want)?);
                }
                self.emit_into(
                    Opcode::IndirectCall,
                    call_args,
                    sig.result.clone(),
                    op.result,
                )?;
            }
            _ => {
                return Err(format!(
                    "the rtyper cannot call {} yet",
                    self.annotation(callee).describe()
                ))
            }
        }
        Ok(true)
    }

    /// `direct_call` of graph `func`, each argument converted to its
    /// parameter's type, the result to `op`'s.
    pub(super) fn direct_call(
        &mut self,
        func: &str,
        args: Vec<Arg>,
        op: &SpaceOperation,
    ) -> Result<(), String> {
        let (params, result) = self.rt.signature(func)?;
        if params.len() != args.len() {
            return Err(format!(
                "{func}() takes {} arguments, the call passes {}",
                params.len(),
                args.len()
            ));
        }
        let mut call_args = vec![Arg::Const(Constant::Func(func.to_string()))];
        for (a, want) in args.iter().zip(&params) {
            let a = match (self.type_of(a), self.void_value(a)) {
                (LowLevelType::Void, Some(c)) if *want != LowLevelType::Void => Arg::Const(c),
                _ => a.clone(),
            };
            call_args.push(self.arg_as(&a, want)?);
        }
        self.emit_into(Opcode::DirectCall, call_args, result, op.result)
    }

    /// `receiver.name(args)` on an instance of `class`: a direct call when
    /// every subclass runs the same function, else a call through the
    /// receiver's vtable slot.
    pub(super) fn method_call(
        &mut self,
        class: &str,
        name: &str,
        receiver: &Arg,
        args: &[Arg],
        op: &SpaceOperation,
    ) -> Result<(), String> {
        let mut implementations: Vec<String> = self
            .rt
            .classes
            .subtree(class)
            .iter()
            .filter(|c| c.instantiated)
            .filter_map(|c| match self.rt.classes.class_attr(&c.name, name) {
                Some(Constant::Func(f)) => Some(f.clone()),
                _ => None,
            })
            .collect();
        implementations.sort();
        implementations.dedup();
        if implementations.len() <= 1 {
            let func = match implementations.pop() {
                Some(f) => f,
                None => match self.rt.classes.class_attr(class, name) {
                    Some(Constant::Func(f)) => f.clone(),
                    _ => return Err(format!("class {class} has no method {name}")),
                },
            };
            let mut all = vec![receiver.clone()];
            all.extend(args.iter().cloned());
            return self.direct_call(&func, all, op);
        }
        let (owner, slot) = self
            .rt
            .classes
            .slot_owner(class, name)
            .map(|(c, s)| (c.name.clone(), s.clone()))
            .ok_or_else(|| format!("class {class} has no vtable slot for method {name}"))?;
        let LowLevelType::FuncPtr(sig) = slot.ty else {
            return Err(format!("the vtable slot {name} holds no method"));
        };
        let vtable = self.read_vtable(receiver, &owner)?;
        let fp = self.emit(
            Opcode::Getfield,
            vec![
                Arg::Var(vtable),
                Arg::Const(Constant::Name(super::classes::slot_field(name))),
            ],
            LowLevelType::FuncPtr(sig.clone()),
            None,
        );
        let mut call_args = vec![Arg::Var(fp), self.arg_as(receiver, &sig.params[0])?];
        for (a, want) in args.iter().zip(&sig.params[1..]) {
            call_args.push(self.arg_as(a, want)?);
        }
        self.emit_into(
            Opcode::IndirectCall,
            call_args,
            sig.result.clone(),
            op.result,
        )
    }

    /// The vtable of instance `object`, as the root vtable type.
    pub(super) fn typeptr(&mut self, object: &Arg) -> rpy_ir::graph::Var {
        self.emit(
            Opcode::Getfield,
            vec![
                object.clone(),
                Arg::Const(Constant::Name(lltype::TYPEPTR.into())),
            ],
            LowLevelType::Ptr(lltype::OBJECT_VTABLE.into()),
            None,
        )
    }

    /// The vtable of instance `object`, as `class`'s vtable type.
    pub(super) fn read_vtable(
        &mut self,
        object: &Arg,
        class: &str,
    ) -> Result<rpy_ir::graph::Var, String> {
        let root = LowLevelType::Ptr(lltype::OBJECT_VTABLE.into());
        let typeptr = self.typeptr(object);
        let want = LowLevelType::Ptr(super::vtable_type(class));
        Ok(match self.convert(Arg::Var(typeptr), &root, &want)? {
            Arg::Var(v) => v,
            Arg::Const(_) => typeptr,
        })
    }
}

impl RTyper<'_> {
    /// The name of the graph that instantiates one of `classes` (the
    /// original's call of a `ClassesPBCRepr`), made and lowered the first
    /// time it is asked for: its parameters are the class and the call's
    /// arguments, of annotations `params`, and it returns an instance of
    /// annotation `result`.
    ///
    /// ```python
    /// def new_of(cls, *args):
    ///     if cls is A:
    ///         return A(*args)
    ///     ...
    ///     return Z(*args)
    /// ```
    fn instantiate_graph(
        &mut self,
        classes: &[String],
        params: &[SomeValue],
        result: &SomeValue,
    ) -> Result<String, String> {
        let mut types = Vec::new();
        for p in params {
            types.push(self.lltype_of(p)?);
        }
        let result_type = self.lltype_of(result)?;
        let mut name = "new_of".to_string();
        for c in classes {
            name.push_str("__");
            name.push_str(&c.strip_prefix("__main__.").unwrap_or(c).replace('.', "_"));
        }
        for t in &types[1..] {
            name.push_str("__");
            name.push_str(&super::repr::type_tag(t));
        }
        if self.signatures.contains_key(&name) {
            return Ok(name);
        }
        let graph = instantiate_one_of(&name, classes, params, result);
        self.signatures.insert(name.clone(), (types, result_type));
        let lowered = self.lower_annotated(&graph).map_err(|(_, msg)| msg)?;
        self.helper_graphs.push(lowered);
        Ok(name)
    }
}

/// The annotated graph of `instantiate_graph`: a chain of tests of the
/// class, each true branch building an instance of its class.
fn instantiate_one_of(
    name: &str,
    classes: &[String],
    params: &[SomeValue],
    result: &SomeValue,
) -> FunctionGraph<Annotated> {
    let names: Vec<String> = (0..params.len())
        .map(|i| {
            if i == 0 {
                "cls".into()
            } else {
                format!("a{i}")
            }
        })
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut g = FunctionGraph::<Annotated>::new(name, &names, SomeValue::Impossible);
    for (v, p) in g.params().to_vec().into_iter().zip(params) {
        g.vars[v.0 as usize].info = p.clone();
    }
    let ret = g.block(g.returnblock).inputargs[0];
    g.vars[ret.0 as usize].info = result.clone();
    let op = |opname: Opcode, args: Vec<Arg>, result| SpaceOperation {
        opname,
        args,
        result,
        pos: None,
    };
    let returnblock = g.returnblock;
    // The block that tests for classes[k] (the start block for the first)
    // and its variables: the class and the arguments.
    let mut block = g.startblock;
    let mut vars = g.params().to_vec();
    for (k, class) in classes.iter().enumerate() {
        let last = k + 1 == classes.len();
        // build(a1, ...): return class(a1, ...)
        let build_args: Vec<_> = params[1..]
            .iter()
            .map(|p| g.new_var(None, p.clone()))
            .collect();
        let instance = g.new_var(
            None,
            SomeValue::Instance {
                class: class.clone(),
                can_be_none: false,
            },
        );
        let build = g.add_block(build_args.clone());
        let mut call_args = vec![Arg::Const(Constant::Class(class.clone()))];
        call_args.extend(build_args.iter().map(|v| Arg::Var(*v)));
        let b = g.block_mut(build);
        b.operations = vec![op(Opcode::SimpleCall, call_args, instance)];
        b.exits = vec![Link::new(vec![Arg::Var(instance)], returnblock, None)];
        let passed: Vec<Arg> = vars[1..].iter().map(|v| Arg::Var(*v)).collect();
        if last {
            g.block_mut(block).exits = vec![Link::new(passed, build, None)];
            break;
        }
        let is = g.new_var(None, SomeValue::Bool);
        let next: Vec<_> = params.iter().map(|p| g.new_var(None, p.clone())).collect();
        let next_block = g.add_block(next.clone());
        let b = g.block_mut(block);
        b.operations = vec![op(
            Opcode::Is,
            vec![
                Arg::Var(vars[0]),
                Arg::Const(Constant::Class(class.clone())),
            ],
            is,
        )];
        b.exitswitch = Some(Arg::Var(is));
        b.exits = vec![
            Link::new(
                vars.iter().map(|v| Arg::Var(*v)).collect(),
                next_block,
                Some(Constant::Bool(false)),
            ),
            Link::new(passed, build, Some(Constant::Bool(true))),
        ];
        block = next_block;
        vars = next;
    }
    g
}

//! `list(x)` of an object the program iterates itself (a generator, an
//! instance whose class has `__iter__`): a call of a graph the rtyper
//! makes once per class and list type, the loop
//!
//! ```python
//! def list_of(x):
//!     result = []
//!     for item in x:
//!         result.append(item)
//!     return result
//! ```
//!
//! built annotated, as the annotator would have annotated it, and lowered
//! like the program's own graphs, so that `iter` and `next` are the
//! class's methods and `append` is the list helper.

use super::{GraphTyper, RTyper};
use rpy_ir::annotation::SomeValue;
use rpy_ir::graph::{Annotated, Arg, Constant, FunctionGraph, Link, SpaceOperation};
use rpy_ir::opcode::Opcode;

impl RTyper<'_> {
    /// The name of the graph that lists the items of an instance of
    /// annotation `iterable` into a list of annotation `list`, made and
    /// lowered the first time it is asked for.
    fn list_of_graph(&mut self, iterable: &SomeValue, list: &SomeValue) -> Result<String, String> {
        let (SomeValue::Instance { class, .. }, SomeValue::List(def)) = (iterable, list) else {
            return Err(format!(
                "list() of {} is no list of an iterated instance",
                iterable.describe()
            ));
        };
        let list_type = self.lltype_of(list)?;
        let class_name = class.strip_prefix("__main__.").unwrap_or(class);
        let name = format!(
            "list_of__{}__{}",
            class_name.replace('.', "_"),
            super::repr::type_tag(&list_type)
        );
        if self.signatures.contains_key(&name) {
            return Ok(name);
        }
        let iterator = self.iterator_annotation(class)?;
        let graph = list_of_iterable(&name, iterable, &iterator, list, &def.item);
        let params = vec![self.lltype_of(iterable)?];
        self.signatures.insert(name.clone(), (params, list_type));
        let lowered = self.lower_annotated(&graph).map_err(|(_, msg)| msg)?;
        self.helper_graphs.push(lowered);
        Ok(name)
    }

    /// What `iter()` of an instance of `class` gives: the result of its
    /// `__iter__`.
    fn iterator_annotation(&self, class: &str) -> Result<SomeValue, String> {
        let Some(Constant::Func(method)) = self.classes.class_attr(class, "__iter__") else {
            return Err(format!(
                "instances of {class} have no __iter__ to list them by"
            ));
        };
        let g = self
            .annotated_graph(method)
            .ok_or_else(|| format!("{method}() is never annotated"))?;
        Ok(g.info(g.block(g.returnblock).inputargs[0]).clone())
    }
}

/// The annotated graph of `list(x)` for `x` of annotation `iterable`,
/// whose `iter()` is `iterator`, into a list of annotation `list` with
/// items `item`.
fn list_of_iterable(
    name: &str,
    iterable: &SomeValue,
    iterator: &SomeValue,
    list: &SomeValue,
    item: &SomeValue,
) -> FunctionGraph<Annotated> {
    let mut g = FunctionGraph::<Annotated>::new(name, &["iterable"], iterable.clone());
    let ret = g.block(g.returnblock).inputargs[0];
    g.vars[ret.0 as usize].info = list.clone();
    for v in g.block(g.exceptblock).inputargs.clone() {
        g.vars[v.0 as usize].info = SomeValue::Impossible;
    }
    let x = g.params()[0];
    let op = |opname: Opcode, args: Vec<Arg>, result| SpaceOperation {
        opname,
        args,
        result,
        pos: None,
    };
    // start: result = []; it = iter(x)
    let result = g.new_var(Some("result".into()), list.clone());
    let it = g.new_var(Some("it".into()), iterator.clone());
    // loop(result, it): item = next(it), to body or out on StopIteration
    let loop_result = g.new_var(Some("result".into()), list.clone());
    let loop_it = g.new_var(Some("it".into()), iterator.clone());
    let next = g.new_var(Some("item".into()), item.clone());
    let loop_block = g.add_block(vec![loop_result, loop_it]);
    // body(result, it, item): result.append(item)
    let body_result = g.new_var(Some("result".into()), list.clone());
    let body_it = g.new_var(Some("it".into()), iterator.clone());
    let body_item = g.new_var(Some("item".into()), item.clone());
    let append = g.new_var(
        None,
        SomeValue::BuiltinMethod {
            name: "append".into(),
            receiver: Box::new(list.clone()),
        },
    );
    let appended = g.new_var(None, SomeValue::None);
    let body = g.add_block(vec![body_result, body_it, body_item]);

    let start = g.block_mut(g.startblock);
    start.operations = vec![
        op(Opcode::Newlist, vec![], result),
        op(Opcode::Iter, vec![Arg::Var(x)], it),
    ];
    start.exits = vec![Link::new(
        vec![Arg::Var(result), Arg::Var(it)],
        loop_block,
        None,
    )];
    let returnblock = g.returnblock;
    let lp = g.block_mut(loop_block);
    lp.operations = vec![op(Opcode::Next, vec![Arg::Var(loop_it)], next)];
    lp.exitswitch = Some(Arg::Const(Constant::LastException));
    lp.exits = vec![
        Link::new(
            vec![Arg::Var(loop_result), Arg::Var(loop_it), Arg::Var(next)],
            body,
            None,
        ),
        Link::new(
            vec![Arg::Var(loop_result)],
            returnblock,
            Some(Constant::Class("StopIteration".into())),
        ),
    ];
    let b = g.block_mut(body);
    b.operations = vec![
        op(
            Opcode::Getattr,
            vec![
                Arg::Var(body_result),
                Arg::Const(Constant::Name("append".into())),
            ],
            append,
        ),
        op(
            Opcode::SimpleCall,
            vec![Arg::Var(append), Arg::Var(body_item)],
            appended,
        ),
    ];
    b.exits = vec![Link::new(
        vec![Arg::Var(body_result), Arg::Var(body_it)],
        loop_block,
        None,
    )];
    g
}

impl GraphTyper<'_, '_, '_> {
    /// `list(x)` of an instance the program iterates: a call of the graph
    /// that lists it.
    pub(super) fn list_of_instance(&mut self, op: &SpaceOperation) -> Result<bool, String> {
        let [callee, x] = &op.args[..] else {
            return Ok(false);
        };
        let is_list = self.builtin_of(callee).as_deref() == Some("list");
        let iterable = self.annotation(x);
        if op.opname != Opcode::SimpleCall
            || !is_list
            || !matches!(iterable, SomeValue::Instance { .. })
        {
            return Ok(false);
        }
        let list = self.annotation(&Arg::Var(op.result));
        let graph = self.rt.list_of_graph(&iterable, &list)?;
        self.direct_call(&graph, vec![x.clone()], op)?;
        Ok(true)
    }
}

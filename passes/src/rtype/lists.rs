//! Lists and iterators (the original's `rlist.py` and `riterator`): what
//! needs no loop is inline low-level operations — building a list of
//! known items, reading and writing an item, the length, the truth —
//! with a negative index counted from the end; an iterator is a struct of
//! its container and the next index, and the `next` whose StopIteration a
//! `for` loop catches becomes a comparison of the index with the length,
//! so the loop has no call and no exception at all.

use super::repr::{self, Family};
use super::GraphTyper;
use rpy_ir::annotation::SomeValue;
use rpy_ir::graph::{Arg, Constant, Link, SpaceOperation, Var};
use rpy_ir::lltype::{self, ContainerType, LowLevelType};
use rpy_ir::opcode::Opcode;

/// How a container keeps its items.
enum Items {
    /// A list that changes length: `length` and `items` (a GcArray) fields.
    List {
        array: LowLevelType,
        item: LowLevelType,
    },
    /// A list that never changes length: the GcArray of its items.
    Array { item: LowLevelType },
    /// A string: the chars are the struct's own items.
    Str,
}

impl GraphTyper<'_, '_, '_> {
    fn items_of(&self, container: &LowLevelType) -> Option<Items> {
        let LowLevelType::Ptr(name) = container else {
            return None;
        };
        if name == lltype::STR {
            return Some(Items::Str);
        }
        let fields = match self.rt.types.get(name)? {
            ContainerType::GcStruct { fields, .. } => fields,
            ContainerType::GcArray { item } if repr::family(container) == Family::List => {
                return Some(Items::Array { item: item.clone() })
            }
            _ => return None,
        };
        let array = fields.iter().find(|f| f.0 == "items")?.1.clone();
        let item = match &array {
            LowLevelType::Ptr(a) => self.rt.types.get(a)?.item_type()?.clone(),
            _ => return None,
        };
        fields
            .iter()
            .any(|f| f.0 == "length")
            .then_some(Items::List { array, item })
    }

    /// The item type of the list type `list`.
    pub(super) fn list_item_type(&self, list: &LowLevelType) -> Result<LowLevelType, String> {
        match self.items_of(list) {
            Some(Items::List { item, .. } | Items::Array { item }) => Ok(item),
            _ => Err(format!("{list} is no list type")),
        }
    }

    fn field(&mut self, object: Arg, name: &str, ty: LowLevelType) -> Var {
        self.emit(
            Opcode::Getfield,
            vec![object, Arg::Const(Constant::Name(name.into()))],
            ty,
            None,
        )
    }

    /// The length of a container.
    fn length(&mut self, container: &Arg, items: &Items) -> Var {
        match items {
            Items::List { .. } => self.field(container.clone(), "length", LowLevelType::Signed),
            Items::Str | Items::Array { .. } => self.emit(
                Opcode::Getarraysize,
                vec![container.clone()],
                LowLevelType::Signed,
                None,
            ),
        }
    }

    /// Where a container's items are (the items array of a list, the
    /// string itself) and their type.
    fn item_array(&mut self, container: &Arg, items: &Items) -> (Arg, LowLevelType) {
        match items {
            Items::List { array, item } => {
                let a = self.field(container.clone(), "items", array.clone());
                (Arg::Var(a), item.clone())
            }
            Items::Array { item } => (container.clone(), item.clone()),
            Items::Str => (container.clone(), LowLevelType::Char),
        }
    }

    /// Whether the annotator knows `index` is not negative.
    fn known_nonneg(&self, index: &Arg) -> bool {
        match self.annotation(index) {
            SomeValue::Integer { nonneg, .. } => nonneg,
            SomeValue::Bool => true,
            SomeValue::Const(rpy_ir::annotation::Known::Int(n)) => n >= 0,
            _ => false,
        }
    }

    /// `index` counted from the end when negative: `i + (len & (i >> 63))`,
    /// without a branch; a value the annotator knows is non-negative is
    /// used as it is.
    fn normalized_index(
        &mut self,
        container: &Arg,
        index: &Arg,
        items: &Items,
    ) -> Result<Arg, String> {
        let i = self.arg_as(index, &LowLevelType::Signed)?;
        if self.known_nonneg(index) || matches!(i, Arg::Const(Constant::Int(n)) if n >= 0) {
            return Ok(i);
        }
        if let Arg::Const(Constant::Int(n)) = i {
            let len = self.length(container, items);
            let v = self.emit(
                Opcode::IntAdd,
                vec![Arg::Var(len), Arg::Const(Constant::Int(n))],
                LowLevelType::Signed,
                None,
            );
            return Ok(Arg::Var(v));
        }
        let len = self.length(container, items);
        let sign = self.emit(
            Opcode::IntRshift,
            vec![i.clone(), Arg::Const(Constant::Int(63))],
            LowLevelType::Signed,
            None,
        );
        let wrap = self.emit(
            Opcode::IntAnd,
            vec![Arg::Var(len), Arg::Var(sign)],
            LowLevelType::Signed,
            None,
        );
        let v = self.emit(
            Opcode::IntAdd,
            vec![i, Arg::Var(wrap)],
            LowLevelType::Signed,
            None,
        );
        Ok(Arg::Var(v))
    }

    pub(super) fn lower_list_op(&mut self, op: &SpaceOperation) -> Result<bool, String> {
        let subject = op.args.first().map(|a| self.type_of(a));
        let items = subject.as_ref().and_then(|t| self.items_of(t));
        let is_list = matches!(items, Some(Items::List { .. } | Items::Array { .. }));
        // A string indexed where no handler catches IndexError (the helper
        // lowering took the other case) by an index known not to be
        // negative is its char read, as a list's item is: no call, no test
        // (an interpreter's `bytecode[pc]`).
        let is_str_at_nonneg = matches!(items, Some(Items::Str))
            && op.opname == Opcode::Getitem
            && self.known_nonneg(&op.args[1]);
        match op.opname {
            Opcode::Newlist => self.new_list(op)?,
            Opcode::Getitem if is_list || is_str_at_nonneg => {
                let items = items.unwrap_or(Items::Str);
                let index = self.normalized_index(&op.args[0], &op.args[1], &items)?;
                let (array, item) = self.item_array(&op.args[0], &items);
                self.emit_into(Opcode::Getarrayitem, vec![array, index], item, op.result)?;
            }
            Opcode::Setitem if is_list => {
                let items = items.unwrap_or(Items::Str);
                let index = self.normalized_index(&op.args[0], &op.args[1], &items)?;
                let (array, item) = self.item_array(&op.args[0], &items);
                let value = self.arg_as(&op.args[2], &item)?;
                self.emit(
                    Opcode::Setarrayitem,
                    vec![array, index, value],
                    LowLevelType::Void,
                    Some(op.result),
                );
            }
            Opcode::Bool | Opcode::Not if is_list => {
                let items = items.unwrap_or(Items::Str);
                let len = self.length(&op.args[0], &items);
                let test = if op.opname == Opcode::Bool {
                    Opcode::IntNe
                } else {
                    Opcode::IntEq
                };
                self.emit_into(
                    test,
                    vec![Arg::Var(len), Arg::Const(Constant::Int(0))],
                    LowLevelType::Bool,
                    op.result,
                )?;
            }
            Opcode::SimpleCall
                if op.args.first() == Some(&Arg::Const(Constant::Builtin("len".into())))
                    && op.args.len() == 2 =>
            {
                let ty = self.type_of(&op.args[1]);
                let Some(items @ (Items::List { .. } | Items::Array { .. })) = self.items_of(&ty)
                else {
                    return Ok(false);
                };
                let len = self.length(&op.args[1], &items);
                let want = self.graph.info(op.result).clone();
                self.finish(
                    (Arg::Var(len), LowLevelType::Signed),
                    Some((op.result, want)),
                )?;
            }
            Opcode::SimpleCall
                if op.args.first() == Some(&Arg::Const(Constant::Builtin("reversed".into()))) =>
            {
                let list = &op.args[1];
                let list_ty = self.type_of(list);
                let copy = self.call_helper(
                    "rlist",
                    "ll_reversed",
                    vec![(super::HelperArg::Value(list_ty), list.clone())],
                )?;
                self.new_iterator(copy, op)?;
            }
            Opcode::Iter if self.type_of(&op.args[0]) == LowLevelType::Char => {
                let text = self.arg_as(&op.args[0], &LowLevelType::Ptr(lltype::STR.into()))?;
                self.new_iterator(text, op)?;
            }
            Opcode::Iter if matches!(self.annotation(&op.args[0]), SomeValue::Tuple(_)) => {
                let list = self.tuple_as_list(&op.args[0], op)?;
                self.new_iterator(Arg::Var(list), op)?;
            }
            Opcode::Iter => {
                if items.is_none() {
                    return Ok(false);
                }
                let container =
                    self.arg_as(&op.args[0], subject.as_ref().unwrap_or(&LowLevelType::Void))?;
                self.new_iterator(container, op)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The items of a tuple as a new list (the container of an iterator
    /// over the tuple, whose type says the list type).
    fn tuple_as_list(&mut self, tuple: &Arg, op: &SpaceOperation) -> Result<Var, String> {
        let LowLevelType::Ptr(iter) = self.graph.info(op.result).clone() else {
            return Err("an iterator with no struct type".into());
        };
        let list_ty = match self.rt.types.get(&iter) {
            Some(ContainerType::GcStruct { fields, .. }) => fields[0].1.clone(),
            _ => return Err(format!("{iter} is no iterator struct")),
        };
        let list = self.graph.new_var(None, list_ty);
        self.tuple_into_list(tuple, list, op)?;
        Ok(list)
    }

    /// `list` (a new variable of a list type, or `op`'s result) made of
    /// the items of the tuple `tuple`, each converted to the list's item
    /// type: `list(t)`, and the container of an iterator over `t`.
    pub(super) fn tuple_into_list(
        &mut self,
        tuple: &Arg,
        list: Var,
        op: &SpaceOperation,
    ) -> Result<(), String> {
        let LowLevelType::Ptr(tuple_ty) = self.type_of(tuple) else {
            return Err("a tuple with no struct type".into());
        };
        let fields = match self.rt.types.get(&tuple_ty) {
            Some(ContainerType::GcStruct { fields, .. }) => fields.clone(),
            _ => return Err(format!("{tuple_ty} is no tuple struct")),
        };
        let mut items = Vec::new();
        for (name, ty) in fields {
            let v = self.field(tuple.clone(), &name, ty);
            items.push(Arg::Var(v));
        }
        let newlist = SpaceOperation {
            opname: Opcode::Newlist,
            args: items,
            result: list,
            pos: op.pos,
        };
        self.new_list(&newlist)
    }

    /// `iter(container)`: a new iterator at index 0.
    pub(super) fn new_iterator(
        &mut self,
        container: Arg,
        op: &SpaceOperation,
    ) -> Result<(), String> {
        let LowLevelType::Ptr(iter) = self.graph.info(op.result).clone() else {
            return Err("an iterator with no struct type".into());
        };
        let it = self.emit(
            Opcode::Malloc,
            vec![Arg::Const(Constant::Name(iter.clone()))],
            LowLevelType::Ptr(iter),
            Some(op.result),
        );
        for (name, value) in [
            ("container", container),
            ("index", Arg::Const(Constant::Int(0))),
        ] {
            self.emit(
                Opcode::Setfield,
                vec![Arg::Var(it), Arg::Const(Constant::Name(name.into())), value],
                LowLevelType::Void,
                None,
            );
        }
        Ok(())
    }

    /// `[a, b, c]`: the items array of that length, and for a list that
    /// changes length the list struct holding it.
    fn new_list(&mut self, op: &SpaceOperation) -> Result<(), String> {
        let list_ty = self.graph.info(op.result).clone();
        let n = Arg::Const(Constant::Int(op.args.len() as i64));
        let (items, item) = match self.items_of(&list_ty) {
            Some(Items::Array { item }) => {
                let LowLevelType::Ptr(array_name) = &list_ty else {
                    return Err("a list with no array type".into());
                };
                let items = self.emit(
                    Opcode::MallocVarsize,
                    vec![Arg::Const(Constant::Name(array_name.clone())), n],
                    list_ty.clone(),
                    Some(op.result),
                );
                (items, item)
            }
            Some(Items::List { array, item }) => {
                let (LowLevelType::Ptr(list_name), LowLevelType::Ptr(array_name)) =
                    (&list_ty, &array)
                else {
                    return Err("a list with no list struct type".into());
                };
                let list = self.emit(
                    Opcode::Malloc,
                    vec![Arg::Const(Constant::Name(list_name.clone()))],
                    list_ty.clone(),
                    Some(op.result),
                );
                let items = self.emit(
                    Opcode::MallocVarsize,
                    vec![Arg::Const(Constant::Name(array_name.clone())), n.clone()],
                    array.clone(),
                    None,
                );
                for (name, value) in [("length", n), ("items", Arg::Var(items))] {
                    self.emit(
                        Opcode::Setfield,
                        vec![
                            Arg::Var(list),
                            Arg::Const(Constant::Name(name.into())),
                            value,
                        ],
                        LowLevelType::Void,
                        None,
                    );
                }
                (items, item)
            }
            _ => return Err("a list with no list type".into()),
        };
        for (k, a) in op.args.iter().enumerate() {
            let v = self.arg_as(a, &item)?;
            self.emit(
                Opcode::Setarrayitem,
                vec![Arg::Var(items), Arg::Const(Constant::Int(k as i64)), v],
                LowLevelType::Void,
                None,
            );
        }
        Ok(())
    }

    /// `next(it)` ending block `b`, whose StopIteration a handler
    /// catches: the block compares the index with the length and goes to
    /// the handler when it is past the end, else to a new block that
    /// reads the item, steps the index and goes on as `next`'s normal
    /// exit did. False when `op` is no such `next`.
    pub(super) fn lower_raising_next(
        &mut self,
        b: usize,
        op: &SpaceOperation,
    ) -> Result<bool, String> {
        if op.opname != Opcode::Next {
            return Ok(false);
        }
        let it_type = self.type_of(&op.args[0]);
        let LowLevelType::Ptr(iter_name) = &it_type else {
            return Ok(false);
        };
        let container_ty = match self.rt.types.get(iter_name) {
            Some(ContainerType::GcStruct { fields, .. }) if iter_name.starts_with("iter_") => {
                fields[0].1.clone()
            }
            _ => return Ok(false),
        };
        let Some(items) = self.items_of(&container_ty) else {
            return Ok(false);
        };
        let exits = self.graph.blocks[b].exits.clone();
        let stop = match exits.as_slice() {
            [_, stop] if stop.exitcase == Some(Constant::Class("StopIteration".into())) => stop,
            _ => return Ok(false),
        };
        let defined: Vec<Var> = stop
            .last_exception
            .into_iter()
            .chain(stop.last_exc_value)
            .collect();
        if stop
            .args
            .iter()
            .any(|a| matches!(a, Arg::Var(v) if defined.contains(v)))
        {
            return Ok(false);
        }
        let it = op.args[0].clone();
        let container = self.field(it.clone(), "container", container_ty.clone());
        let index = self.field(it.clone(), "index", LowLevelType::Signed);
        let len = self.length(&Arg::Var(container), &items);
        let more = self.emit(
            Opcode::IntLt,
            vec![Arg::Var(index), Arg::Var(len)],
            LowLevelType::Bool,
            None,
        );
        // On the way on, a block of its own (the item must not be read
        // past the end) reads the item and steps the index.
        let saved = std::mem::take(&mut self.out);
        let (array, item) = self.item_array(&Arg::Var(container), &items);
        self.emit_into(
            Opcode::Getarrayitem,
            vec![array, Arg::Var(index)],
            item,
            op.result,
        )?;
        let next = self.emit(
            Opcode::IntAdd,
            vec![Arg::Var(index), Arg::Const(Constant::Int(1))],
            LowLevelType::Signed,
            None,
        );
        self.emit(
            Opcode::Setfield,
            vec![
                it,
                Arg::Const(Constant::Name("index".into())),
                Arg::Var(next),
            ],
            LowLevelType::Void,
            None,
        );
        let read_item = std::mem::replace(&mut self.out, saved);
        let mut to_block = exits[0].clone();
        to_block.exitcase = Some(Constant::Bool(true));
        self.move_link_into_block(&mut to_block, read_item)?;
        let to_stop = Link::new(stop.args.clone(), stop.target, Some(Constant::Bool(false)));
        let blk = &mut self.graph.blocks[b];
        blk.exitswitch = Some(Arg::Var(more));
        blk.exits = vec![to_stop, to_block];
        Ok(true)
    }
}

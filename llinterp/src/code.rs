//! The interpreter's form of a program: graphs with variables turned into frame
//! slots, constants into values, and every name (graph, type, field, runtime
//! function) resolved to an index once, before anything runs.

use super::memory::CheckedHeap;
use super::runtime::Rt;
use super::{LlValue, ObjRef};
use rpy_ir::graph::{
    destructor_types, single_byte, str_bytes, Arg, Constant, FunctionGraph, LowLevelStage,
    PrebuiltObject, Program,
};
use rpy_ir::llops::{self, Signature};
use rpy_ir::lltype::{self, ContainerType, LowLevelType, TypeTable};
use rpy_ir::opcode::Opcode;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// One container type, and where its objects hold what: its layout is
/// `ContainerType::layout`'s, the C backend's.
pub(crate) struct TypeInfo {
    pub name: Rc<str>,
    pub fields: Vec<(String, LowLevelType)>,
    /// The byte offset of each field.
    pub offsets: Vec<usize>,
    pub item: Option<LowLevelType>,
    /// A `GcArray` (its `length` is its number of items, not a field).
    pub is_array: bool,
    /// The size of an object without items, and its alignment.
    pub fixed_size: usize,
    pub align: usize,
    /// The offset of the number of items: a `GcArray`'s length word, a
    /// varsized struct's `length` field.
    pub length_offset: Option<usize>,
    /// The offset of item 0, and the size of one item.
    pub items_offset: usize,
    pub item_size: usize,
    /// The offsets of the fields that are GC pointers, and whether the
    /// items are: what a mark follows.
    pub ptr_offsets: Vec<usize>,
    pub ptr_items: bool,
}

/// The GC header word of an object: its type's id (its index in
/// `Types::list` plus one, as `rpy_jit`'s `Header::program_type_id`
/// numbers a program's types) in the low 32 bits, and from bit
/// `HASH_SHIFT` its identity hash once asked for, as the C runtime keeps
/// them (`rpy_gc_identityhash`).
pub(crate) const HASH_SHIFT: u32 = 40;

/// The program's container types plus the ones the runtime functions need
/// (`rpy_string` and the list of strings), by index; and the memory their
/// objects live in.
pub(crate) struct Types {
    pub list: Vec<TypeInfo>,
    pub ids: HashMap<String, u32>,
    pub str_ty: u32,
    pub strlist_ty: u32,
    pub strlist_length: Option<usize>,
    pub strlist_items: Option<usize>,
    pub strarray_ty: u32,
    /// Every object, laid out in bytes; freed when the interpreter is (and
    /// whoever shares it: the JIT's compiled loops run on it).
    pub heap: Rc<CheckedHeap>,
    /// The bound on the run's memory (`objinterp::heap`): an allocation
    /// that would pass it, or resident memory above it, is a fatal
    /// MemoryError, as the executable's malloc failing is.
    pub heap_limit: u64,
    /// Bytes allocated since the resident memory was last read.
    pub allocated: Cell<u64>,
    /// Objects the program's `malloc` and `malloc_varsize` operations made
    /// (what a test of malloc removal counts).
    pub allocations: Cell<u64>,
    /// The identity hashes handed out so far (`rpy_gc_identityhash`'s
    /// counter).
    pub hashes: Cell<u64>,
    /// The graph of each type's `__del__` (the graphs' `destructor`
    /// hints), by type id.
    pub destructor: Vec<Option<u32>>,
    /// Whether any type has a `__del__` (else no run needs its roots kept).
    pub has_destructors: bool,
    /// The objects whose `__del__` has not run: `gc.collect()` finds dead
    /// those no root reaches (`exec::run_finalizers`).
    pub finalizable: RefCell<Vec<ObjRef>>,
    /// The values of the runs and callers that are waiting for a nested
    /// run (a finalizer, a call a hook made): roots of `gc.collect()`.
    pub outer_roots: RefCell<Vec<Vec<LlValue>>>,
}

/// Whether `v` may be stored in a place of type `t`.
pub(crate) fn fits(v: &LlValue, t: &LowLevelType) -> bool {
    use LowLevelType as T;
    matches!(
        (v, t),
        (LlValue::Void, T::Void)
            | (LlValue::Signed(_), T::Signed | T::Unsigned)
            | (LlValue::Float(_), T::Float)
            | (LlValue::Bool(_), T::Bool)
            | (LlValue::Char(_), T::Char)
            | (LlValue::Ptr(_), T::Ptr(_))
            | (LlValue::Func(_), T::FuncPtr(_))
    )
}

impl Types {
    pub(crate) fn build(table: &TypeTable) -> Types {
        let mut table = table.clone();
        table
            .entry(lltype::STR.to_string())
            .or_insert_with(lltype::str_type);
        let str_ptr = LowLevelType::Ptr(lltype::STR.to_string());
        let (list_name, array_name) = lltype::list_type_names(&str_ptr);
        if !table.contains_key(&list_name) || !table.contains_key(&array_name) {
            let mut extra = TypeTable::new();
            lltype::add_list_type(&mut extra, &str_ptr);
            for (k, v) in extra {
                table.entry(k).or_insert(v);
            }
        }
        let mut list = Vec::new();
        let mut ids = HashMap::new();
        for (name, ct) in &table {
            let layout = ct.layout();
            let (fields, item, is_array) = match ct {
                ContainerType::GcStruct { fields, var_item } => {
                    (fields.clone(), var_item.clone(), false)
                }
                ContainerType::GcArray { item } => (Vec::new(), Some(item.clone()), true),
            };
            let offsets: Vec<usize> = fields
                .iter()
                .map(|(n, _)| layout.offset_of(n).expect("every field has an offset"))
                .collect();
            let length_offset = match (is_array, &item) {
                (_, None) => None,
                (true, Some(_)) => layout.offset_of("length"),
                (false, Some(_)) => fields
                    .iter()
                    .position(|(n, _)| n == "length")
                    .map(|i| offsets[i]),
            };
            let (items_offset, item_size) = layout.items.unwrap_or((layout.fixed_size, 0));
            let ptr_offsets = fields
                .iter()
                .zip(&offsets)
                .filter(|((_, t), _)| matches!(t, LowLevelType::Ptr(_)))
                .map(|(_, o)| *o)
                .collect();
            let ptr_items = matches!(item, Some(LowLevelType::Ptr(_)));
            ids.insert(name.clone(), list.len() as u32);
            list.push(TypeInfo {
                name: name.as_str().into(),
                fields,
                offsets,
                item,
                is_array,
                fixed_size: layout.fixed_size,
                align: layout.align,
                length_offset,
                items_offset,
                item_size,
                ptr_offsets,
                ptr_items,
            });
        }
        let field = |ty: u32, f: &str| -> Option<usize> {
            list[ty as usize].fields.iter().position(|(n, _)| n == f)
        };
        let strlist_ty = ids[&list_name];
        Types {
            str_ty: ids[lltype::STR],
            strlist_length: field(strlist_ty, "length"),
            strlist_items: field(strlist_ty, "items"),
            strlist_ty,
            strarray_ty: ids[&array_name],
            list,
            ids,
            heap: Rc::default(),
            heap_limit: crate::heap_limit::DEFAULT_HEAP_LIMIT,
            allocated: Cell::new(0),
            allocations: Cell::new(0),
            hashes: Cell::new(0),
            destructor: Vec::new(),
            has_destructors: false,
            finalizable: Default::default(),
            outer_roots: Default::default(),
        }
    }

    /// The size of an object of type `ty` with `n` items; `None` when it
    /// does not fit in a word.
    pub fn size_of(&self, ty: u32, n: u64) -> Option<u64> {
        let info = &self.list[ty as usize];
        if info.item.is_none() {
            return Some(info.fixed_size as u64);
        }
        let items = n.checked_mul(info.item_size as u64)?;
        let end = (info.items_offset as u64).checked_add(items)?;
        Some(end.max(info.fixed_size as u64))
    }

    /// A new zero-initialised object of type `ty` with `n` items (ignored for
    /// fixed-size types); `None` when the memory cannot be had.
    pub fn malloc(&self, ty: u32, n: usize) -> Option<ObjRef> {
        let info = &self.list[ty as usize];
        let size = usize::try_from(self.size_of(ty, n as u64)?).ok()?;
        let addr = self.heap.alloc(size, info.align)?;
        let obj = ObjRef::from_addr(addr)?;
        self.heap.write_word(addr, u64::from(ty) + 1).ok()?;
        if let (Some(l), Some(_)) = (info.length_offset, &info.item) {
            self.heap.write_word(addr + l, n as u64).ok()?;
        }
        if self
            .destructor
            .get(ty as usize)
            .is_some_and(Option::is_some)
        {
            self.finalizable.borrow_mut().push(obj);
        }
        Some(obj)
    }

    /// The type of the object `obj` points to, from its header word.
    pub fn type_of(&self, obj: ObjRef) -> Result<u32, String> {
        let word = self.heap.read_word(obj.addr())?;
        let id = (word & 0xffff_ffff) as usize;
        if (1..=self.list.len()).contains(&id) {
            Ok(id as u32 - 1)
        } else {
            Err(format!("0x{:x} is not an object", obj.addr()))
        }
    }

    /// The value of type `t` at `addr`.
    pub fn load(&self, addr: usize, t: &LowLevelType) -> Result<LlValue, String> {
        use LowLevelType as T;
        let heap = &self.heap;
        Ok(match t {
            T::Void => LlValue::Void,
            T::Signed | T::Unsigned => LlValue::Signed(heap.read_word(addr)? as i64),
            T::Float => LlValue::Float(f64::from_bits(heap.read_word(addr)?)),
            T::Bool => LlValue::Bool(heap.read(addr, t)? != 0),
            T::Char => LlValue::Char(heap.read(addr, t)? as u8),
            T::Ptr(_) => LlValue::Ptr(ObjRef::from_addr(heap.read_word(addr)? as usize)),
            // A function pointer is its graph's index plus one, 0 for null.
            T::FuncPtr(_) => {
                LlValue::func_of_word(heap.read_word(addr)?).ok_or("a bad function pointer")?
            }
        })
    }

    /// Stores `v`, a value of type `t`, at `addr`.
    pub fn store(&self, addr: usize, t: &LowLevelType, v: &LlValue) -> Result<(), String> {
        if let LlValue::Void = v {
            return Ok(());
        }
        self.heap.write(addr, t, v.word())
    }

    /// The number of items of `obj`, of type `ty`.
    pub fn length(&self, obj: ObjRef, ty: u32) -> Result<usize, String> {
        match self.list[ty as usize].length_offset {
            Some(l) => Ok(self.heap.read_word(obj.addr() + l)? as usize),
            None => Err(format!(
                "type '{}' has no items",
                self.list[ty as usize].name
            )),
        }
    }

    /// Runs `f` on the characters of `obj` when its items are chars (a
    /// string); `Err` names what it is instead.
    pub fn with_chars<R>(&self, obj: ObjRef, f: impl FnOnce(&[u8]) -> R) -> Result<R, String> {
        let ty = self.type_of(obj)?;
        let info = &self.list[ty as usize];
        if info.item != Some(LowLevelType::Char) {
            return Err(format!("expected a string, got a '{}' object", info.name));
        }
        let n = self.length(obj, ty)?;
        self.heap.with_bytes(obj.addr() + info.items_offset, n, f)
    }

    /// The characters of the string `v` points to; `None` for anything else.
    pub fn string_bytes(&self, v: &LlValue) -> Option<Vec<u8>> {
        match v {
            LlValue::Ptr(Some(obj)) => self.with_chars(*obj, <[u8]>::to_vec).ok(),
            _ => None,
        }
    }

    /// Whether an object of type `obj_ty` may be used through a pointer
    /// to `ptr_ty`: the same type, or a struct whose fields begin with all
    /// of `ptr_ty`'s (a subclass instance or vtable seen as its base).
    pub fn is_part(&self, obj_ty: u32, ptr_ty: u32) -> bool {
        if obj_ty == ptr_ty {
            return true;
        }
        let (obj, base) = (&self.list[obj_ty as usize], &self.list[ptr_ty as usize]);
        !obj.is_array
            && !base.is_array
            && base.item.is_none()
            && obj.fields.len() >= base.fields.len()
            && obj.fields.iter().zip(&base.fields).all(|(a, b)| a.0 == b.0)
    }

    pub fn new_string(&self, bytes: &[u8]) -> Option<ObjRef> {
        let obj = self.malloc(self.str_ty, bytes.len())?;
        let at = obj.addr() + self.list[self.str_ty as usize].items_offset;
        self.heap.write_bytes(at, bytes).ok()?;
        Some(obj)
    }

    pub fn new_str_list(&self, strs: &[LlValue]) -> Option<ObjRef> {
        let list = self.malloc(self.strlist_ty, 0)?;
        let array = self.malloc(self.strarray_ty, strs.len())?;
        let info = &self.list[self.strarray_ty as usize];
        let item = info.item.clone().unwrap_or(LowLevelType::Void);
        for (i, s) in strs.iter().enumerate() {
            let at = array.addr() + info.items_offset + i * info.item_size;
            self.store(at, &item, s).ok()?;
        }
        let l = &self.list[self.strlist_ty as usize];
        if let Some(f) = self.strlist_length {
            let n = LlValue::Signed(strs.len() as i64);
            self.store(list.addr() + l.offsets[f], &l.fields[f].1, &n)
                .ok()?;
        }
        if let Some(f) = self.strlist_items {
            let a = LlValue::Ptr(Some(array));
            self.store(list.addr() + l.offsets[f], &l.fields[f].1, &a)
                .ok()?;
        }
        Some(list)
    }

    /// The objects reachable from `roots`, by address.
    pub fn mark(&self, roots: impl IntoIterator<Item = ObjRef>) -> HashSet<usize> {
        let mut seen = HashSet::new();
        let mut work: Vec<ObjRef> = roots.into_iter().collect();
        while let Some(obj) = work.pop() {
            if !seen.insert(obj.addr()) {
                continue;
            }
            self.children(obj, &mut work);
        }
        seen
    }

    /// Pushes onto `out` the objects the fields and items of `obj` point to.
    pub fn children(&self, obj: ObjRef, out: &mut Vec<ObjRef>) {
        let Ok(ty) = self.type_of(obj) else {
            return;
        };
        let info = &self.list[ty as usize];
        let word = |at: usize| {
            self.heap
                .read_word(at)
                .ok()
                .and_then(|w| ObjRef::from_addr(w as usize))
        };
        out.extend(info.ptr_offsets.iter().filter_map(|o| word(obj.addr() + o)));
        if info.ptr_items {
            let n = self.length(obj, ty).unwrap_or(0);
            let base = obj.addr() + info.items_offset;
            out.extend((0..n).filter_map(|i| word(base + i * info.item_size)));
        }
    }
}

/// An operation or link argument.
pub(crate) enum Operand {
    Slot(u32),
    Const(LlValue),
}

#[derive(Clone, Copy)]
pub(crate) enum Cmp {
    Lt,
    Le,
    Eq,
    Ne,
    Gt,
    Ge,
}

impl Cmp {
    /// The comparison a float or char comparison makes.
    fn of(op: Opcode) -> Option<Cmp> {
        use Opcode::*;
        Some(match op {
            FloatLt | CharLt => Cmp::Lt,
            FloatLe | CharLe => Cmp::Le,
            FloatEq | CharEq => Cmp::Eq,
            FloatNe | CharNe => Cmp::Ne,
            FloatGt | CharGt => Cmp::Gt,
            FloatGe | CharGe => Cmp::Ge,
            _ => return None,
        })
    }

    pub fn apply<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

#[derive(Clone, Copy)]
pub(crate) enum FloatBin {
    Add,
    Sub,
    Mul,
    TrueDiv,
    PyDiv,
    PyMod,
}

/// A field of a struct, or the length of a `GcArray`.
#[derive(Clone, Copy)]
pub(crate) enum FieldRef {
    Index(usize),
    ArrayLength,
}

/// What an operation does; its value arguments are in `Op::args` (type and
/// field names are resolved into the kind and are not among them).
#[derive(Clone)]
pub(crate) enum OpKind {
    /// An operation with no effect here (a JIT hint); its result is Void.
    Nothing,
    /// Through `llops::eval_int`; the result is Bool when `bool_result`.
    Int {
        name: Opcode,
        bool_result: bool,
    },
    FloatBin(FloatBin),
    FloatNeg,
    FloatAbs,
    FloatCmp(Cmp),
    FloatIsTrue,
    CastBoolToFloat,
    CastIntToFloat,
    CastFloatToInt,
    CastUintToFloat,
    CastFloatToUint,
    CastCharToInt,
    CastIntToChar,
    CharCmp(Cmp),
    SameAs,
    Malloc(u32),
    /// args: [n]
    MallocVarsize(u32),
    /// args: [p]
    GetField(u32, FieldRef),
    /// args: [p, v]
    SetField(u32, FieldRef),
    /// args: [p, i]
    GetArrayItem(u32),
    /// args: [p, i, v]
    SetArrayItem(u32),
    /// args: [p]
    GetArraySize(u32),
    /// A graph, by index; args: the call's arguments.
    Call(u32),
    /// A call through a function pointer; args: the pointer, then the
    /// call's arguments.
    IndirectCall,
    /// `cast_pointer`: the same object seen through another pointer type.
    CastPointer,
    PtrEq,
    PtrNe,
    PtrIsZero,
    PtrNonZero,
    ExcOccurred,
    ExcType,
    ExcValue,
    /// args: [etype, evalue]
    ExcSet,
    ExcClear,
    Builtin(Rt),
    /// The operation could not be prepared; running it is an internal error.
    Error(String),
}

pub(crate) struct Op {
    pub kind: OpKind,
    pub args: Vec<Operand>,
    pub result: u32,
    pub opname: Opcode,
    /// The source position of the operation, for run-time errors.
    pub pos: Option<rpy_ir::diag::Pos>,
}

pub(crate) struct CLink {
    pub args: Vec<Operand>,
    pub target: u32,
    /// The target is the except block: following the link is an uncaught
    /// exception.
    pub raises: bool,
}

/// An exit of a block switching on `last_exception`: taken when the
/// block's call raises a class whose id is in `range`.
pub(crate) struct Handler {
    pub range: (i64, i64),
    /// The slots of the variables the link defines (class, instance).
    pub etype: Option<u32>,
    pub evalue: Option<u32>,
    pub link: CLink,
}

pub(crate) enum Exit {
    Goto(CLink),
    /// A block whose last operation (a call) has its exceptions caught:
    /// `normal` when it returns, else the first matching handler.
    Catch {
        normal: CLink,
        handlers: Vec<Handler>,
    },
    /// On a Bool (0/1), Signed or Char value.
    Switch {
        on: Operand,
        cases: Vec<(i64, CLink)>,
        default: Option<CLink>,
    },
    /// The return block: the value in `slot` is the result.
    Return(u32),
    /// The except block.
    Raise,
    Error(String),
}

pub(crate) struct CBlock {
    pub inputargs: Vec<u32>,
    pub ops: Vec<Op>,
    pub exit: Exit,
}

pub(crate) struct CGraph {
    pub name: String,
    pub nslots: usize,
    pub start: u32,
    pub blocks: Vec<CBlock>,
}

impl CGraph {
    pub fn params(&self) -> &[u32] {
        &self.blocks[self.start as usize].inputargs
    }
}

pub(crate) struct Code {
    pub graphs: Vec<CGraph>,
    /// The object of each static (`None` for prebuilt objects of the
    /// high-level stages), which the graphs' constants point to.
    pub statics: Vec<Option<ObjRef>>,
    pub by_name: HashMap<String, u32>,
    pub types: Types,
    /// What was wrong with the program's statics; running reports the first.
    pub static_errors: Vec<String>,
}

struct Builder<'a, S: LowLevelStage> {
    program: &'a Program<S>,
    types: &'a Types,
    by_name: &'a HashMap<String, u32>,
    strings: HashMap<String, ObjRef>,
    /// The object of each static (`None` for prebuilt objects of the
    /// high-level stages, which have no low-level value).
    statics: Vec<Option<ObjRef>>,
}

impl Code {
    pub fn build<S: LowLevelStage>(program: &Program<S>) -> Code {
        let mut types = Types::build(&program.types);
        let mut by_name = HashMap::new();
        types.destructor = vec![None; types.list.len()];
        for (i, g) in program.graphs.iter().enumerate() {
            by_name.entry(g.name.clone()).or_insert(i as u32);
            for t in destructor_types(g) {
                if let Some(&ty) = types.ids.get(t) {
                    types.destructor[ty as usize] = Some(i as u32);
                }
            }
        }
        types.has_destructors = types.destructor.iter().any(Option::is_some);
        let mut b = Builder {
            program,
            types: &types,
            by_name: &by_name,
            strings: HashMap::new(),
            statics: Vec::new(),
        };
        let static_errors = b.build_statics();
        let graphs = program.graphs.iter().map(|g| b.graph(g)).collect();
        let statics = b.statics;
        Code {
            graphs,
            statics,
            by_name,
            types,
            static_errors,
        }
    }
}

impl<S: LowLevelStage> Builder<'_, S> {
    /// Makes one object per static, then fills them in (so that statics
    /// may point to each other in cycles); returns what went wrong.
    fn build_statics(&mut self) -> Vec<String> {
        let mut errors = Vec::new();
        for obj in &self.program.prebuilt {
            let made = match obj {
                PrebuiltObject::Struct { ty, items, .. } | PrebuiltObject::Array { ty, items } => {
                    match self.type_id(ty) {
                        Ok(t) => {
                            let made = self.types.malloc(t, items.len());
                            if made.is_none() {
                                errors.push(format!("no memory for a static of type {ty}"));
                            }
                            made
                        }
                        Err(e) => {
                            errors.push(e);
                            None
                        }
                    }
                }
                _ => None,
            };
            self.statics.push(made);
        }
        for (i, obj) in self.program.prebuilt.iter().enumerate() {
            if let Err(e) = self.fill_static(i) {
                errors.push(format!("static &{i} of type {}: {e}", obj_type_name(obj)));
            }
        }
        errors
    }

    fn fill_static(&mut self, i: usize) -> Result<(), String> {
        let Some(obj) = self.statics[i] else {
            return Ok(());
        };
        let ty = self.types.type_of(obj)?;
        let (fields, items): (&[(String, Constant)], &[Constant]) = match &self.program.prebuilt[i]
        {
            PrebuiltObject::Struct { fields, items, .. } => (fields, items),
            PrebuiltObject::Array { items, .. } => (&[], items),
            _ => return Ok(()),
        };
        for (name, c) in fields {
            let (field, ft) = self.field(ty, name)?;
            let FieldRef::Index(f) = field else {
                return Err("an array's length is its number of items".into());
            };
            let v = self.constant(c, Some(&ft))?;
            if !fits(&v, &ft) {
                return Err(format!("a {} value in the {ft} field '{name}'", v.kind()));
            }
            let at = obj.addr() + self.types.list[ty as usize].offsets[f];
            self.types.store(at, &ft, &v)?;
        }
        if !items.is_empty() {
            let it = self.item_type(ty)?;
            let info = &self.types.list[ty as usize];
            let (base, size) = (obj.addr() + info.items_offset, info.item_size);
            for (k, c) in items.iter().enumerate() {
                let v = self.constant(c, Some(&it))?;
                if !fits(&v, &it) {
                    return Err(match it {
                        LowLevelType::Char => format!("a {} item in a string", v.kind()),
                        _ => format!("a {} item in an array of {it}", v.kind()),
                    });
                }
                self.types.store(base + k * size, &it, &v)?;
            }
        }
        Ok(())
    }

    fn graph(&mut self, g: &FunctionGraph<S>) -> CGraph {
        let blocks = (0..g.blocks.len())
            .map(|i| self.block(g, i as u32))
            .collect();
        CGraph {
            name: g.name.clone(),
            nslots: g.vars.len(),
            start: g.startblock.0,
            blocks,
        }
    }

    fn block(&mut self, g: &FunctionGraph<S>, index: u32) -> CBlock {
        let block = &g.blocks[index as usize];
        let ops = block.operations.iter().map(|op| self.op(g, op)).collect();
        let exit = if index == g.returnblock.0 {
            match block.inputargs.first() {
                Some(v) => Exit::Return(v.0),
                None => Exit::Error("the return block has no input argument".into()),
            }
        } else if index == g.exceptblock.0 {
            Exit::Raise
        } else {
            self.exit(g, block).unwrap_or_else(Exit::Error)
        };
        CBlock {
            inputargs: block.inputargs.iter().map(|v| v.0).collect(),
            ops,
            exit,
        }
    }

    fn exit(&mut self, g: &FunctionGraph<S>, block: &rpy_ir::graph::Block) -> Result<Exit, String> {
        let program = self.program;
        let mut link = |l: &rpy_ir::graph::Link| -> Result<CLink, String> {
            let target = g
                .blocks
                .get(l.target.0 as usize)
                .ok_or_else(|| format!("a link goes to the missing block {}", l.target.0))?;
            if target.inputargs.len() != l.args.len() {
                return Err(format!(
                    "a link passes {} values to a block taking {}",
                    l.args.len(),
                    target.inputargs.len()
                ));
            }
            let args = l
                .args
                .iter()
                .zip(&target.inputargs)
                .map(|(a, v)| self.operand(g, a, Some(g.info(*v))))
                .collect::<Result<_, _>>()?;
            let raises = l.target == g.exceptblock;
            Ok(CLink {
                args,
                target: l.target.0,
                raises,
            })
        };
        if block.catches_exceptions() {
            let Some((first, rest)) = block.exits.split_first() else {
                return Err("a block catching exceptions has no exits".into());
            };
            let normal = link(first)?;
            let mut handlers = Vec::new();
            for l in rest {
                let range = match &l.exitcase {
                    Some(Constant::Prebuilt(i)) => program
                        .prebuilt
                        .get(*i as usize)
                        .and_then(PrebuiltObject::subclass_range),
                    _ => None,
                };
                let range = range.ok_or_else(|| {
                    format!(
                        "a handler's exit case must be a vtable static, not {:?}",
                        l.exitcase
                    )
                })?;
                handlers.push(Handler {
                    range,
                    etype: l.last_exception.map(|v| v.0),
                    evalue: l.last_exc_value.map(|v| v.0),
                    link: link(l)?,
                });
            }
            return Ok(Exit::Catch { normal, handlers });
        }
        match &block.exitswitch {
            None => match block.exits.as_slice() {
                [l] => Ok(Exit::Goto(link(l)?)),
                [] => Err("a block without exits".into()),
                _ => Err("a block with several exits and no exitswitch".into()),
            },
            Some(sw) => {
                let mut cases = Vec::new();
                let mut default = None;
                for l in &block.exits {
                    let key = match &l.exitcase {
                        Some(Constant::Bool(b)) => *b as i64,
                        Some(Constant::Int(n)) => *n,
                        Some(Constant::Char(c)) => *c as i64,
                        Some(Constant::Str(s)) if single_byte(s).is_some() => {
                            single_byte(s).map_or(0, i64::from)
                        }
                        Some(Constant::Name(n)) if n == "default" => {
                            default = Some(link(l)?);
                            continue;
                        }
                        other => return Err(format!("unsupported exitcase {other:?}")),
                    };
                    cases.push((key, link(l)?));
                }
                let on = self.operand(g, sw, None)?;
                Ok(Exit::Switch { on, cases, default })
            }
        }
    }

    /// The value of a constant, shaped by the type expected where it is used.
    fn constant(&mut self, c: &Constant, hint: Option<&LowLevelType>) -> Result<LlValue, String> {
        constant_value(
            c,
            hint,
            self.types,
            self.by_name,
            &self.statics,
            &mut self.strings,
        )
    }

    fn operand(
        &mut self,
        g: &FunctionGraph<S>,
        a: &Arg,
        hint: Option<&LowLevelType>,
    ) -> Result<Operand, String> {
        match a {
            Arg::Var(v) if (v.0 as usize) < g.vars.len() => Ok(Operand::Slot(v.0)),
            Arg::Var(v) => Err(format!("unknown variable v{}", v.0)),
            Arg::Const(c) => Ok(Operand::Const(self.constant(c, hint)?)),
        }
    }

    fn op(&mut self, g: &FunctionGraph<S>, op: &rpy_ir::graph::SpaceOperation) -> Op {
        let mut args = Vec::new();
        let kind = self.op_kind(g, op, &mut args).unwrap_or_else(OpKind::Error);
        Op {
            kind,
            args,
            result: op.result.0,
            opname: op.opname,
            pos: op.pos,
        }
    }

    /// The container type a pointer argument points to.
    fn ptr_type(&self, g: &FunctionGraph<S>, a: &Arg) -> Result<u32, String> {
        match a {
            Arg::Var(v) => match g.vars.get(v.0 as usize).map(|d| &d.info) {
                Some(LowLevelType::Ptr(name)) => self.type_id(name),
                Some(other) => Err(format!(
                    "expected a pointer, got a variable of type {other}"
                )),
                None => Err(format!("unknown variable v{}", v.0)),
            },
            Arg::Const(Constant::Prebuilt(i)) => match self.program.prebuilt.get(*i as usize) {
                Some(PrebuiltObject::Struct { ty, .. } | PrebuiltObject::Array { ty, .. }) => {
                    self.type_id(ty)
                }
                _ => Err(format!("&{i} is not a low-level static")),
            },
            // A string constant is a prebuilt rpy_string (after inlining,
            // `len("ab")` reads its length straight from the constant).
            Arg::Const(Constant::Str(_)) => Ok(self.types.str_ty),
            Arg::Const(c) => Err(format!(
                "expected a pointer variable, got the constant {c:?}"
            )),
        }
    }

    fn type_id(&self, name: &str) -> Result<u32, String> {
        self.types
            .ids
            .get(name)
            .copied()
            .ok_or_else(|| format!("unknown container type '{name}'"))
    }

    fn name_arg<'a>(&self, a: Option<&'a Arg>) -> Result<&'a str, String> {
        match a {
            Some(Arg::Const(Constant::Name(n))) => Ok(n),
            other => Err(format!("expected a Name constant, got {other:?}")),
        }
    }

    fn field(&self, ty: u32, name: &str) -> Result<(FieldRef, LowLevelType), String> {
        let info = &self.types.list[ty as usize];
        if info.is_array && name == "length" {
            return Ok((FieldRef::ArrayLength, LowLevelType::Signed));
        }
        info.fields
            .iter()
            .position(|(n, _)| n == name)
            .map(|i| (FieldRef::Index(i), info.fields[i].1.clone()))
            .ok_or_else(|| format!("type '{}' has no field '{name}'", info.name))
    }

    fn item_type(&self, ty: u32) -> Result<LowLevelType, String> {
        let info = &self.types.list[ty as usize];
        info.item
            .clone()
            .ok_or_else(|| format!("type '{}' has no items", info.name))
    }

    fn op_kind(
        &mut self,
        g: &FunctionGraph<S>,
        op: &rpy_ir::graph::SpaceOperation,
        args: &mut Vec<Operand>,
    ) -> Result<OpKind, String> {
        use LowLevelType as T;
        let name = op.opname;
        let ll = llops::info(name).ok_or_else(|| format!("unknown operation '{name}'"))?;
        let a = &op.args;
        let arity = |n: usize| -> Result<(), String> {
            if a.len() == n {
                Ok(())
            } else {
                Err(format!("{name} takes {n} arguments, got {}", a.len()))
            }
        };
        // Plain operations: every argument has the signature's type.
        let plain = |kind: OpKind, n: usize, t: T| (kind, n, t);
        let simple = match &ll.sig {
            Signature::IntBinary => Some(plain(
                OpKind::Int {
                    name: ll.opcode,
                    bool_result: false,
                },
                2,
                T::Signed,
            )),
            Signature::IntUnary => Some(plain(
                OpKind::Int {
                    name: ll.opcode,
                    bool_result: false,
                },
                1,
                T::Signed,
            )),
            Signature::IntCompare => Some(plain(
                OpKind::Int {
                    name: ll.opcode,
                    bool_result: true,
                },
                2,
                T::Signed,
            )),
            Signature::UintBinary | Signature::UintUnary | Signature::UintCompare => {
                let n = if ll.sig == Signature::UintUnary { 1 } else { 2 };
                Some(plain(
                    OpKind::Int {
                        name: ll.opcode,
                        bool_result: ll.sig == Signature::UintCompare,
                    },
                    n,
                    T::Unsigned,
                ))
            }
            // Two argument types: handled below.
            Signature::UintShift => None,
            Signature::FloatBinary => {
                let f = match name {
                    Opcode::FloatAdd => FloatBin::Add,
                    Opcode::FloatSub => FloatBin::Sub,
                    Opcode::FloatMul => FloatBin::Mul,
                    Opcode::FloatTruediv => FloatBin::TrueDiv,
                    Opcode::FloatPyDiv => FloatBin::PyDiv,
                    Opcode::FloatPyMod => FloatBin::PyMod,
                    _ => return Err(format!("operation '{name}' is not implemented")),
                };
                Some(plain(OpKind::FloatBin(f), 2, T::Float))
            }
            Signature::FloatUnary => {
                let k = match name {
                    Opcode::FloatNeg => OpKind::FloatNeg,
                    Opcode::FloatAbs => OpKind::FloatAbs,
                    _ => return Err(format!("operation '{name}' is not implemented")),
                };
                Some(plain(k, 1, T::Float))
            }
            Signature::FloatCompare => {
                let c = Cmp::of(name)
                    .ok_or_else(|| format!("operation '{name}' is not implemented"))?;
                Some(plain(OpKind::FloatCmp(c), 2, T::Float))
            }
            Signature::CharCompare => {
                let c = Cmp::of(name)
                    .ok_or_else(|| format!("operation '{name}' is not implemented"))?;
                Some(plain(OpKind::CharCmp(c), 2, T::Char))
            }
            Signature::Cast(from, to) => {
                let k = match (from, to) {
                    (T::Signed | T::Bool | T::Unsigned, T::Signed | T::Bool | T::Unsigned) => {
                        OpKind::Int {
                            name: ll.opcode,
                            bool_result: *to == T::Bool,
                        }
                    }
                    (T::Bool, T::Float) => OpKind::CastBoolToFloat,
                    (T::Signed, T::Float) => OpKind::CastIntToFloat,
                    (T::Float, T::Signed) => OpKind::CastFloatToInt,
                    (T::Unsigned, T::Float) => OpKind::CastUintToFloat,
                    (T::Float, T::Unsigned) => OpKind::CastFloatToUint,
                    (T::Char, T::Signed) => OpKind::CastCharToInt,
                    (T::Signed, T::Char) => OpKind::CastIntToChar,
                    (T::Float, T::Bool) => OpKind::FloatIsTrue,
                    _ => return Err(format!("operation '{name}' is not implemented")),
                };
                Some(plain(k, 1, from.clone()))
            }
            Signature::Special => None,
        };
        if let Some((kind, n, t)) = simple {
            arity(n)?;
            for x in a {
                args.push(self.operand(g, x, Some(&t))?);
            }
            return Ok(kind);
        }
        match name {
            Opcode::JitWeAreJitted => {
                arity(0)?;
                let no = Arg::Const(Constant::Bool(false));
                args.push(self.operand(g, &no, Some(&LowLevelType::Bool))?);
                Ok(OpKind::SameAs)
            }
            Opcode::SameAs | Opcode::JitPromote => {
                arity(1)?;
                let t = g.vars.get(op.result.0 as usize).map(|d| d.info.clone());
                args.push(self.operand(g, &a[0], t.as_ref())?);
                Ok(OpKind::SameAs)
            }
            Opcode::UintLshift | Opcode::UintRshift => {
                arity(2)?;
                args.push(self.operand(g, &a[0], Some(&T::Unsigned))?);
                args.push(self.operand(g, &a[1], Some(&T::Signed))?);
                Ok(OpKind::Int {
                    name: ll.opcode,
                    bool_result: false,
                })
            }
            Opcode::IntBetween => {
                arity(3)?;
                for x in a {
                    args.push(self.operand(g, x, Some(&T::Signed))?);
                }
                Ok(OpKind::Int {
                    name: ll.opcode,
                    bool_result: true,
                })
            }
            Opcode::CastPointer => {
                arity(1)?;
                args.push(self.operand(g, &a[0], None)?);
                Ok(OpKind::CastPointer)
            }
            Opcode::PtrEq | Opcode::PtrNe | Opcode::PtrIszero | Opcode::PtrNonzero => {
                let binary = matches!(name, Opcode::PtrEq | Opcode::PtrNe);
                arity(if binary { 2 } else { 1 })?;
                // A constant operand (None, a function, a static) takes the
                // type of the other one.
                let hint = a.iter().find_map(|x| x.as_var()).map(|v| g.info(v).clone());
                for x in a {
                    args.push(self.operand(g, x, hint.as_ref())?);
                }
                Ok(match name {
                    Opcode::PtrEq => OpKind::PtrEq,
                    Opcode::PtrNe => OpKind::PtrNe,
                    Opcode::PtrIszero => OpKind::PtrIsZero,
                    _ => OpKind::PtrNonZero,
                })
            }
            // A JIT hint: nothing to do without a JIT.
            Opcode::JitMarker => Ok(OpKind::Nothing),
            // The interpreter's objects never move and are freed only
            // with the interpreter: a saved root is the value itself, and
            // no object needs remembering.
            Opcode::GcSaveRoot | Opcode::GcWriteBarrier | Opcode::GcWriteBarrierItem => {
                Ok(OpKind::Nothing)
            }
            Opcode::GcReload => {
                arity(2)?;
                let t = g.vars.get(op.result.0 as usize).map(|d| d.info.clone());
                args.push(self.operand(g, &a[1], t.as_ref())?);
                Ok(OpKind::SameAs)
            }
            Opcode::ExcOccurred | Opcode::ExcType | Opcode::ExcValue | Opcode::ExcClear => {
                arity(0)?;
                Ok(match name {
                    Opcode::ExcOccurred => OpKind::ExcOccurred,
                    Opcode::ExcType => OpKind::ExcType,
                    Opcode::ExcValue => OpKind::ExcValue,
                    _ => OpKind::ExcClear,
                })
            }
            Opcode::ExcSet => {
                arity(2)?;
                for x in a {
                    args.push(self.operand(g, x, None)?);
                }
                Ok(OpKind::ExcSet)
            }
            Opcode::IndirectCall => {
                let sig = match a.first() {
                    Some(Arg::Var(v)) => match g.info(*v) {
                        LowLevelType::FuncPtr(sig) => Some((**sig).clone()),
                        _ => None,
                    },
                    // A pointer that constant folding made known (a call
                    // through a variable that one branch decided).
                    Some(Arg::Const(Constant::Func(f))) => self
                        .by_name
                        .get(f)
                        .map(|&i| self.program.graphs[i as usize].func_sig()),
                    _ => None,
                };
                let Some(sig) = sig else {
                    return Err("indirect_call needs a function pointer first".into());
                };
                if sig.params.len() != a.len() - 1 {
                    return Err(format!(
                        "a call through {} passes {} arguments",
                        LowLevelType::FuncPtr(Box::new(sig.clone())),
                        a.len() - 1
                    ));
                }
                args.push(self.operand(g, &a[0], None)?);
                for (x, t) in a[1..].iter().zip(&sig.params) {
                    args.push(self.operand(g, x, Some(t))?);
                }
                Ok(OpKind::IndirectCall)
            }
            Opcode::Malloc => {
                arity(1)?;
                let ty = self.type_id(self.name_arg(a.first())?)?;
                if self.types.list[ty as usize].item.is_some() {
                    return Err(format!(
                        "malloc of the varsized type '{}'",
                        self.types.list[ty as usize].name
                    ));
                }
                Ok(OpKind::Malloc(ty))
            }
            Opcode::MallocVarsize => {
                arity(2)?;
                let ty = self.type_id(self.name_arg(a.first())?)?;
                self.item_type(ty)?;
                args.push(self.operand(g, &a[1], Some(&T::Signed))?);
                Ok(OpKind::MallocVarsize(ty))
            }
            Opcode::Getfield | Opcode::Setfield => {
                arity(if name == Opcode::Getfield { 2 } else { 3 })?;
                let ty = self.ptr_type(g, &a[0])?;
                let (field, ft) = self.field(ty, self.name_arg(a.get(1))?)?;
                args.push(self.operand(g, &a[0], None)?);
                if name == Opcode::Getfield {
                    Ok(OpKind::GetField(ty, field))
                } else {
                    if matches!(field, FieldRef::ArrayLength) {
                        return Err("setfield of an array's length".into());
                    }
                    args.push(self.operand(g, &a[2], Some(&ft))?);
                    Ok(OpKind::SetField(ty, field))
                }
            }
            Opcode::Getarrayitem | Opcode::Setarrayitem => {
                arity(if name == Opcode::Getarrayitem { 2 } else { 3 })?;
                let ty = self.ptr_type(g, &a[0])?;
                let it = self.item_type(ty)?;
                args.push(self.operand(g, &a[0], None)?);
                args.push(self.operand(g, &a[1], Some(&T::Signed))?);
                if name == Opcode::Getarrayitem {
                    Ok(OpKind::GetArrayItem(ty))
                } else {
                    args.push(self.operand(g, &a[2], Some(&it))?);
                    Ok(OpKind::SetArrayItem(ty))
                }
            }
            Opcode::Getarraysize => {
                arity(1)?;
                let ty = self.ptr_type(g, &a[0])?;
                self.item_type(ty)?;
                args.push(self.operand(g, &a[0], None)?);
                Ok(OpKind::GetArraySize(ty))
            }
            Opcode::DirectCall => {
                match a.first() {
                    Some(Arg::Const(Constant::Func(f))) => {
                        let &index = self
                            .by_name
                            .get(f)
                            .ok_or_else(|| format!("call of the unknown graph '{f}'"))?;
                        let callee = &self.program.graphs[index as usize];
                        let params = callee.params();
                        if params.len() != a.len() - 1 {
                            return Err(format!(
                                "'{f}' takes {} arguments, the call passes {}",
                                params.len(),
                                a.len() - 1
                            ));
                        }
                        for (x, p) in a[1..].iter().zip(params) {
                            args.push(self.operand(g, x, Some(callee.info(*p)))?);
                        }
                        Ok(OpKind::Call(index))
                    }
                    Some(Arg::Const(Constant::Builtin(b))) => {
                        let rt = Rt::from_name(b).ok_or_else(|| {
                        format!("the runtime function '{b}' is not implemented by the LLInterpreter")
                    })?;
                        let sig = llops::runtime_func(b)
                            .ok_or_else(|| format!("unknown runtime function '{b}'"))?;
                        if sig.args.len() != a.len() - 1 {
                            return Err(format!(
                                "'{b}' takes {} arguments, the call passes {}",
                                sig.args.len(),
                                a.len() - 1
                            ));
                        }
                        for (x, t) in a[1..].iter().zip(sig.args) {
                            args.push(self.operand(g, x, Some(&t.lltype()))?);
                        }
                        Ok(OpKind::Builtin(rt))
                    }
                    other => Err(format!(
                        "direct_call needs a Func or Builtin constant first, got {other:?}"
                    )),
                }
            }
            _ => Err(format!("operation '{name}' is not implemented")),
        }
    }
}

fn obj_type_name(obj: &PrebuiltObject) -> &str {
    match obj {
        PrebuiltObject::Struct { ty, .. } | PrebuiltObject::Array { ty, .. } => ty,
        _ => "(not a static)",
    }
}

/// The value of a constant, shaped by the type expected where it is used
/// (constants carry no type: `Int(1)` may stand for a Bool or a Float).
pub(crate) fn constant_value(
    c: &Constant,
    hint: Option<&LowLevelType>,
    types: &Types,
    by_name: &HashMap<String, u32>,
    statics: &[Option<ObjRef>],
    strings: &mut HashMap<String, ObjRef>,
) -> Result<LlValue, String> {
    use LowLevelType as T;
    Ok(match (c, hint) {
        (Constant::Int(n), Some(T::Float)) => LlValue::Float(*n as f64),
        (Constant::Int(n), Some(T::Bool)) => LlValue::Bool(*n != 0),
        (Constant::Int(n), Some(T::Char)) if (0..256).contains(n) => LlValue::Char(*n as u8),
        (Constant::Int(n), _) => LlValue::Signed(*n),
        // An Unsigned value is held as the Signed word of the same bits.
        (Constant::UInt(u), _) => LlValue::Signed(*u as i64),
        (Constant::Float(x), _) => LlValue::Float(*x),
        (Constant::Bool(b), Some(T::Signed)) => LlValue::Signed(*b as i64),
        (Constant::Bool(b), _) => LlValue::Bool(*b),
        (Constant::Char(c), Some(T::Signed)) => LlValue::Signed(*c as i64),
        (Constant::Char(c), _) => LlValue::Char(*c),
        // As the rtyper reads a one-character string as a Char.
        (Constant::Str(s), Some(T::Char)) if s.chars().count() == 1 => {
            LlValue::Char(s.chars().next().map_or(0, |c| c as u32 as u8))
        }
        (Constant::Str(s), _) => {
            let obj = match strings.get(s) {
                Some(obj) => *obj,
                None => {
                    let obj = types
                        .new_string(&str_bytes(s))
                        .ok_or("no memory for a string constant")?;
                    strings.insert(s.clone(), obj);
                    obj
                }
            };
            LlValue::Ptr(Some(obj))
        }
        (Constant::None, Some(T::Void)) => LlValue::Void,
        (Constant::None, Some(T::FuncPtr(_))) => LlValue::Func(None),
        (Constant::None, _) => LlValue::Ptr(None),
        (_, Some(T::Void)) => LlValue::Void,
        (Constant::Func(f), _) => LlValue::Func(Some(
            *by_name
                .get(f)
                .ok_or_else(|| format!("the address of the unknown graph '{f}'"))?,
        )),
        (Constant::Prebuilt(i), _) => match statics.get(*i as usize) {
            Some(Some(obj)) => LlValue::Ptr(Some(*obj)),
            _ => return Err(format!("&{i} is not a low-level static")),
        },
        (other, _) => return Err(format!("the constant {other:?} is not a value")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair_types() -> Types {
        let mut table = TypeTable::new();
        table.insert(
            "pair".into(),
            ContainerType::GcStruct {
                fields: vec![
                    ("flag".into(), LowLevelType::Bool),
                    ("x".into(), LowLevelType::Float),
                    ("next".into(), LowLevelType::Ptr("pair".into())),
                ],
                var_item: None,
            },
        );
        Types::build(&table)
    }

    #[test]
    fn objects_are_bytes_at_the_c_layout() {
        let types = pair_types();
        let ty = types.ids["pair"];
        let obj = types.malloc(ty, 0).unwrap();
        let word = |at: usize| types.heap.read_word(at).unwrap();
        assert_eq!(word(obj.addr()), u64::from(ty) + 1, "the header's type id");
        let info = &types.list[ty as usize];
        assert_eq!(info.offsets, vec![8, 16, 24]);
        let x = obj.addr() + info.offsets[1];
        types
            .store(x, &LowLevelType::Float, &LlValue::Float(1.5))
            .unwrap();
        assert_eq!(word(x), 1.5f64.to_bits());
        let next = obj.addr() + info.offsets[2];
        let self_ptr = LlValue::Ptr(Some(obj));
        types.store(next, &info.fields[2].1, &self_ptr).unwrap();
        assert_eq!(word(next), obj.addr() as u64, "a pointer is an address");
        assert_eq!(types.load(next, &info.fields[2].1), Ok(self_ptr));

        let s = types.new_string(b"abc").unwrap();
        let str_info = &types.list[types.str_ty as usize];
        assert_eq!(word(s.addr() + 16), 3, "rpy_string's length");
        assert_eq!(
            types.heap.read_bytes(s.addr() + str_info.items_offset, 3),
            Ok(b"abc".to_vec())
        );
        assert_eq!(
            types.string_bytes(&LlValue::Ptr(Some(s))),
            Some(b"abc".to_vec())
        );
    }

    #[test]
    fn a_pointer_into_an_object_or_outside_every_one_is_no_object() {
        let types = pair_types();
        let obj = types.malloc(types.ids["pair"], 0).unwrap();
        let inside = ObjRef::from_addr(obj.addr() + 8).unwrap();
        assert!(types.type_of(inside).is_err());
        let outside = ObjRef::from_addr(8).unwrap();
        assert!(types.type_of(outside).is_err());
    }

    #[test]
    fn a_mark_follows_pointer_fields() {
        let types = pair_types();
        let ty = types.ids["pair"];
        let (a, b, c) = (
            types.malloc(ty, 0).unwrap(),
            types.malloc(ty, 0).unwrap(),
            types.malloc(ty, 0).unwrap(),
        );
        let next = |o: ObjRef| o.addr() + types.list[ty as usize].offsets[2];
        let t = LowLevelType::Ptr("pair".into());
        types.store(next(a), &t, &LlValue::Ptr(Some(b))).unwrap();
        let live = types.mark([a]);
        assert!(live.contains(&a.addr()) && live.contains(&b.addr()));
        assert!(!live.contains(&c.addr()));
    }
}

//! The LLInterpreter as the machine of an interpreter that runs beside it:
//! the JIT's blackhole interpreter runs the interpreter's jitcodes, whose
//! control flow (registers, jumps, frames, exceptions) is its own, while
//! what one low-level operation does to values and objects, and what a
//! call the JIT does not look into does, stay defined here, once. The two
//! share the objects (and the statics, by identity).

use super::code::{self, Code, Op, OpKind, Operand};
use super::exec::{self, Escape, Fail, RunOptions};
use super::{LlError, LlErrorKind, LlValue, ObjRef};
use rpy_ir::graph::Constant;
use rpy_ir::lltype::LowLevelType;
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write;

/// How a call ended.
#[derive(Clone, Debug)]
pub enum CallOutcome {
    Returned(LlValue),
    /// An exception the callee did not catch: its class (a vtable pointer)
    /// and instance.
    Raised {
        etype: LlValue,
        evalue: LlValue,
    },
}

/// Runs the calls of some graphs instead of the LLInterpreter (the JIT
/// runs the portal's).
pub trait CallHook {
    /// Does the hook run calls of graph `graph` (an index of the program's
    /// graphs)?
    fn takes(&self, graph: u32) -> bool;
    /// Runs the call; `machine` runs operations and further calls.
    fn call(
        &mut self,
        machine: &LlMachine<'_>,
        graph: u32,
        args: Vec<LlValue>,
        out: &mut dyn Write,
    ) -> Result<CallOutcome, LlError>;
}

/// One low-level operation of the program, taken out of its graph: its
/// variable operands are the values passed to `LlMachine::run`, in order;
/// its constants (statics included) are the interpreter's own.
pub struct DetachedOp {
    op: Op,
}

impl DetachedOp {
    pub fn opname(&self) -> &'static str {
        self.op.opname.name()
    }

    /// Whether it is `gc.collect()`, which runs finalizers.
    pub fn collects(&self) -> bool {
        exec::is_gc_collect(&self.op)
    }
}

/// The LLInterpreter's operations and calls, for a caller that keeps its own
/// frames.
pub struct LlMachine<'c> {
    code: &'c Code,
    max_depth: usize,
    /// The string constants made so far, so that one constant is one object.
    strings: RefCell<HashMap<String, ObjRef>>,
}

impl<'c> LlMachine<'c> {
    pub(crate) fn new(code: &'c Code, max_depth: usize) -> Self {
        LlMachine {
            code,
            max_depth,
            strings: RefCell::new(HashMap::new()),
        }
    }

    /// The index of the graph named `name`.
    pub fn graph_index(&self, name: &str) -> Option<u32> {
        self.code.by_name.get(name).copied()
    }

    pub fn graph_name(&self, graph: u32) -> &str {
        &self.code.graphs[graph as usize].name
    }

    /// Operation `op` of block `block` of graph `graph`, detached; `None`
    /// when there is no such operation or it is a call (a caller with its
    /// own frames runs calls itself, or through `call`).
    pub fn detach(&self, graph: u32, block: u32, op: u32) -> Option<DetachedOp> {
        let original = self
            .code
            .graphs
            .get(graph as usize)?
            .blocks
            .get(block as usize)?
            .ops
            .get(op as usize)?;
        if matches!(original.kind, OpKind::Call(_) | OpKind::IndirectCall) {
            return None;
        }
        let mut next = 0u32;
        let args = original
            .args
            .iter()
            .map(|a| match a {
                Operand::Slot(_) => {
                    next += 1;
                    Operand::Slot(next - 1)
                }
                Operand::Const(c) => Operand::Const(c.clone()),
            })
            .collect();
        Some(DetachedOp {
            op: Op {
                kind: original.kind.clone(),
                args,
                result: 0,
                opname: original.opname,
                pos: original.pos,
            },
        })
    }

    /// The value of a constant of the program's graphs where a value of
    /// type `hint` is expected, as the interpreter holds it: a static is the
    /// interpreter's object, shared with the graphs it runs.
    pub fn constant(&self, c: &Constant, hint: Option<&LowLevelType>) -> Result<LlValue, String> {
        let mut strings = self.strings.borrow_mut();
        code::constant_value(
            c,
            hint,
            &self.code.types,
            &self.code.by_name,
            &self.code.statics,
            &mut strings,
        )
    }

    /// Runs a detached operation on `args` (its variable operands). For
    /// `gc.collect()` (`DetachedOp::collects`), `roots` gives every value
    /// the caller holds: the objects with a `__del__` that neither they,
    /// the interpreter's runs nor the statics reach are dead.
    pub fn run(
        &self,
        op: &DetachedOp,
        args: &[LlValue],
        roots: &dyn Fn() -> Vec<LlValue>,
        out: &mut dyn Write,
    ) -> Result<LlValue, LlError> {
        let mut pending = None;
        let v = exec::exec_op(&op.op, args, &self.code.types, &mut pending, out)
            .map_err(|fail| self.error(fail, op.op.opname.name()))?;
        if exec::is_gc_collect(&op.op) {
            exec::run_finalizers(self.code, roots(), out, self.max_depth)
                .map_err(|fail| self.error(fail, op.op.opname.name()))?;
        }
        Ok(v)
    }

    /// Runs `f` with `roots` kept alive by any `gc.collect()` it makes
    /// (a caller holding values while it calls into the interpreter).
    pub fn with_roots<R>(&self, roots: Vec<LlValue>, f: impl FnOnce() -> R) -> R {
        self.code.types.outer_roots.borrow_mut().push(roots);
        let r = f();
        self.code.types.outer_roots.borrow_mut().pop();
        r
    }

    /// The checked memory the objects live in.
    pub fn heap(&self) -> &std::rc::Rc<crate::memory::CheckedHeap> {
        &self.code.types.heap
    }

    /// Whether some type has a `__del__`: only then does a caller holding
    /// values need to say so (`with_roots`, `run`'s roots).
    pub fn has_finalizers(&self) -> bool {
        self.code.types.has_destructors
    }

    /// The characters of the string `v` points to; `None` for anything else.
    pub fn string_bytes(&self, v: &LlValue) -> Option<Vec<u8>> {
        self.code.types.string_bytes(v)
    }

    /// The name of the type of the object `v` points to.
    pub fn type_name(&self, v: &LlValue) -> Option<&str> {
        match v {
            LlValue::Ptr(Some(obj)) => {
                let ty = self.code.types.type_of(*obj).ok()?;
                Some(&self.code.types.list[ty as usize].name)
            }
            _ => None,
        }
    }

    /// Calls graph `graph` in the interpreter; an exception it does not
    /// catch is returned, not fatal.
    pub fn call(
        &self,
        graph: u32,
        args: Vec<LlValue>,
        out: &mut dyn Write,
    ) -> Result<CallOutcome, LlError> {
        exec::run(
            self.code,
            graph,
            args,
            out,
            RunOptions {
                max_depth: self.max_depth,
                escape: Escape::ToCaller,
                hook: None,
            },
        )
    }

    /// A new zeroed object of the named container type with `n` items
    /// when it is varsized.
    pub fn new_object(&self, type_name: &str, n: usize) -> Option<ObjRef> {
        let ty = *self.code.types.ids.get(type_name)?;
        self.code.types.malloc(ty, n)
    }

    /// The container types of the objects this machine makes (the
    /// program's, and the runtime's strings), in the order of their ids
    /// (an object's header holds its type's place here plus one).
    pub fn container_types(&self) -> rpy_ir::lltype::TypeTable {
        use rpy_ir::lltype::ContainerType;
        self.code
            .types
            .list
            .iter()
            .map(|t| {
                let ct = if t.is_array {
                    ContainerType::GcArray {
                        item: t.item.clone().unwrap_or(LowLevelType::Void),
                    }
                } else {
                    ContainerType::GcStruct {
                        fields: t.fields.clone(),
                        var_item: t.item.clone(),
                    }
                };
                (t.name.to_string(), ct)
            })
            .collect()
    }

    /// The class id of an exception class (its vtable's
    /// `subclassrange_min`), what a handler's range is tested against.
    pub fn class_id(&self, etype: &LlValue) -> Result<i64, LlError> {
        exec::class_id(etype, &self.code.types).map_err(|fail| self.error(fail, "raise"))
    }

    /// The fatal error of an exception nobody caught, as the executable
    /// reports it.
    pub fn uncaught(&self, etype: &LlValue, evalue: &LlValue, graph: &str) -> LlError {
        self.error(exec::uncaught(etype, evalue, &self.code.types), graph)
    }

    fn error(&self, fail: Fail, place: &str) -> LlError {
        let (kind, message) = match fail {
            Fail::Fatal(m) => (LlErrorKind::Fatal, m),
            Fail::Internal(m) => (LlErrorKind::Internal, m),
            Fail::Hooked(e) => return e,
            Fail::Escaped(..) => (
                LlErrorKind::Internal,
                "an exception escaped an operation".into(),
            ),
        };
        LlError {
            message,
            graph: place.to_string(),
            kind,
            traceback: vec![],
            op: None,
            pos: None,
        }
    }
}

//! The LLInterpreter: runs a low-level program directly, before the
//! exception transform (`Program<LowLevel>`) or after it
//! (`Program<ExceptionsExplicit>`); the tests compare the two.
//!
//! It is the oracle the property tests compare every later pass and the C
//! backend against, so it follows `llops` to the letter: integer operations go
//! through `llops::eval_int`, runtime functions behave as documented in
//! `llops::RUNTIME_FUNCS` (and exactly as the C runtime does), and fatal RPython
//! errors carry the text the C runtime writes to stderr.
//!
//! Before running, each graph is translated once into a compact form (`code`):
//! variables become slots of a frame, constants become values (a string
//! constant becomes one prebuilt string object per distinct text), callee
//! names become graph indices, field names become field indices. Calls push
//! frames on an explicit stack, so deep recursion does not use the Rust stack.
//!
//! Where `eval_int` leaves an integer operation undefined, the interpreter
//! does what the C runtime does: a zero divisor is a fatal ZeroDivisionError,
//! `MIN / -1` wraps to MIN and `MIN % -1` is 0; a shift count outside 0..64 is
//! an internal error.
//!
//! Exceptions: before the transform, a link into a graph's except block
//! raises its (class, instance) pair into the caller, whose block, if it
//! switches on `last_exception`, takes the first exit whose vtable static's
//! subclass range holds the class's id (`subclassrange_min`); otherwise the
//! caller raises in turn. After the transform, the `exc_*` operations read
//! and write one exception state per run. Either way, an exception that
//! leaves the entry point ends the run as the executable does: a `Fatal`
//! error whose message is CPython's last traceback line: the class's name
//! (`ValueError`, `MyError` for `__main__.MyError`), then `: ` and the
//! instance's `exc_message` when it is not empty (`ValueError: bad`).
//!
//! Memory: every object (a struct, an array, a string, an instance, a
//! vtable static, any static) is a block of bytes in the interpreter's
//! checked memory (`memory::CheckedHeap`), laid out as the C backend lays
//! it out (`ContainerType::layout`: the GC header word, then the fields at
//! their offsets, then the items), and a pointer (`ObjRef`) is its
//! address. Fields and items are read and written at their offsets with
//! their sizes; every access is checked to fall inside a live block, so a
//! bad pointer or index is an internal error, never a crash. The header
//! word holds the object's type id (its place in the interpreter's type
//! list plus one, as the JIT's `Header::program_type_id` numbers the
//! program's types) in its low 32 bits, which every access checks against
//! the type the operation expects, and from bit 40 its identity hash once
//! asked for, as the C runtime's `rpy_gc_identityhash` keeps it. A
//! function pointer in memory is its graph's index plus one.
//!
//! The program's statics (`PrebuiltObject::Struct`/`Array`) are built once,
//! when the interpreter is made, one object each, so they are shared and
//! may form cycles. An instance reached through a pointer to its base
//! class's struct is the same bytes: the base struct's fields are a prefix
//! of its own (instance structs are flattened, base fields first), so a
//! field has the same offset either way, and `cast_pointer` is the
//! address itself.
//!
//! Nothing is freed before the interpreter is dropped, which frees every
//! object at once: a value (`LlValue::Ptr`) is only good while its
//! interpreter lives. `gc.collect()` runs the `__del__` of the objects that
//! no root reaches (the statics, the frames of every run, the pending
//! exception, and what a caller beside the interpreter says it holds), by
//! a mark from the roots (`exec::run_finalizers`).

mod code;
mod exec;
pub mod heap_limit;
pub mod libm;
mod machine;
pub mod memory;
pub mod posix;
pub mod pystr;
mod runtime;
pub use runtime::take_jit_settings;

pub use machine::{CallHook, CallOutcome, DetachedOp, LlMachine};
use rpy_ir::graph::{LowLevel, LowLevelStage, Program};
use std::fmt;

/// A reference to a GC object: its address in the interpreter's memory
/// (`memory::CheckedHeap`), where it is laid out as the C backend lays it
/// out (`ContainerType::layout`), starting with its GC header word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjRef(std::num::NonZeroUsize);

impl ObjRef {
    /// The object at `addr`; `None` for 0 (null).
    pub fn from_addr(addr: usize) -> Option<ObjRef> {
        std::num::NonZeroUsize::new(addr).map(ObjRef)
    }

    /// Its address.
    pub fn addr(self) -> usize {
        self.0.get()
    }
}

/// A value held by a variable; a field or an array item holds its bits.
#[derive(Clone, Debug, PartialEq)]
pub enum LlValue {
    Void,
    /// Signed (and Unsigned, which has no operations yet).
    Signed(i64),
    /// Compared as IEEE numbers.
    Float(f64),
    Bool(bool),
    Char(u8),
    /// A GC pointer; `None` is the null pointer. Pointers compare by
    /// address.
    Ptr(Option<ObjRef>),
    /// A function pointer: a graph of the program by index, `None` for null.
    Func(Option<u32>),
}

impl LlValue {
    pub fn as_signed(&self) -> Option<i64> {
        match self {
            LlValue::Signed(n) => Some(*n),
            _ => None,
        }
    }

    /// The word the value is in memory, as the C backend stores it (a
    /// function pointer is its graph's index plus one, 0 for null): the
    /// one definition the interpreter's stores and the JIT's traces share.
    pub fn word(&self) -> u64 {
        match self {
            LlValue::Void => 0,
            LlValue::Signed(n) => *n as u64,
            LlValue::Float(x) => x.to_bits(),
            LlValue::Bool(b) => *b as u64,
            LlValue::Char(c) => *c as u64,
            LlValue::Ptr(p) => p.map_or(0, |o| o.addr() as u64),
            LlValue::Func(f) => f.map_or(0, |g| u64::from(g) + 1),
        }
    }

    /// The function pointer whose word is `w` (see [`LlValue::word`]).
    pub fn func_of_word(w: u64) -> Option<LlValue> {
        Some(LlValue::Func(match w {
            0 => None,
            w => Some(u32::try_from(w - 1).ok()?),
        }))
    }

    /// A short name of the value's kind, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            LlValue::Void => "Void",
            LlValue::Signed(_) => "Signed",
            LlValue::Float(_) => "Float",
            LlValue::Bool(_) => "Bool",
            LlValue::Char(_) => "Char",
            LlValue::Ptr(None) => "null Ptr",
            LlValue::Ptr(Some(_)) => "Ptr",
            LlValue::Func(None) => "null Func",
            LlValue::Func(Some(_)) => "Func",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LlErrorKind {
    /// An RPython-level fatal error (an uncaught exception such as ValueError):
    /// the translated program fails the same way, with `message` on stderr.
    Fatal,
    /// Something no well-typed low-level program does (unknown operation,
    /// type mismatch, null dereference, undefined integer operation): a bug
    /// in the compiler that produced the graphs.
    Internal,
}

/// Why running a program stopped.
#[derive(Clone, Debug, PartialEq)]
pub struct LlError {
    /// For `Fatal`: exactly the C runtime's stderr line, e.g.
    /// `fatal RPython error: ValueError: invalid literal for int() with base 10: 'abc'`.
    pub message: String,
    /// The graph that was running.
    pub graph: String,
    pub kind: LlErrorKind,
    /// The graphs on the call stack, outermost first (the last is `graph`).
    pub traceback: Vec<String>,
    /// The operation that failed (`None` when following a block's exit).
    pub op: Option<String>,
    /// Where in the program's source the failed operation came from, when
    /// the graphs say (`SpaceOperation::pos`).
    pub pos: Option<rpy_ir::diag::Pos>,
}

impl LlError {
    pub fn is_fatal(&self) -> bool {
        self.kind == LlErrorKind::Fatal
    }
}

impl fmt::Display for LlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (in graph '{}')", self.message, self.graph)
    }
}

impl std::error::Error for LlError {}

/// Interprets one low-level program, of any stage whose variables carry
/// low-level types.
pub struct LlInterpreter<'p, S: LowLevelStage = LowLevel> {
    program: &'p Program<S>,
    code: code::Code,
    max_depth: usize,
}

/// The default limit on nested calls; deeper recursion is a fatal error.
pub const DEFAULT_MAX_DEPTH: usize = 1_000_000;

impl<'p, S: LowLevelStage> LlInterpreter<'p, S> {
    /// Prepares every graph of `program`. Problems in a graph (an unknown
    /// operation, a call to a missing graph, ...) are reported when the
    /// faulty operation runs, not here.
    pub fn new(program: &'p Program<S>) -> Self {
        LlInterpreter {
            program,
            code: code::Code::build(program),
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }

    pub fn program(&self) -> &'p Program<S> {
        self.program
    }

    /// Sets the bound on the memory a run may use, in bytes (default
    /// `heap_limit::DEFAULT_HEAP_LIMIT`): an allocation that would pass
    /// it, or resident memory above it, ends the run with the executable's
    /// fatal MemoryError.
    pub fn set_heap_limit(&mut self, bytes: u64) {
        self.code.types.heap_limit = bytes;
    }

    /// How many objects the program's `malloc` and `malloc_varsize`
    /// operations have made so far.
    pub fn allocations(&self) -> u64 {
        self.code.types.allocations.get()
    }

    /// Sets the limit on nested calls (default `DEFAULT_MAX_DEPTH`).
    pub fn set_max_depth(&mut self, depth: usize) {
        self.max_depth = depth;
    }

    /// Runs the entry point with `argv` (argv[0] is the program name), writing
    /// printed output to `out`; returns the entry point's result, the exit status.
    pub fn run_entry(
        &mut self,
        argv: &[String],
        out: &mut dyn std::io::Write,
    ) -> Result<i64, LlError> {
        self.run_entry_hooked(argv, out, None)
    }

    /// `run_entry`, with the calls of the graphs `hook` takes run by it.
    pub fn run_entry_hooked(
        &mut self,
        argv: &[String],
        out: &mut dyn std::io::Write,
        hook: Option<&mut dyn CallHook>,
    ) -> Result<i64, LlError> {
        let list = self.new_str_list(argv);
        let entry = self.program.entry.clone();
        match self.call_hooked(&entry, vec![list], out, hook)? {
            LlValue::Signed(n) => Ok(n),
            other => Err(LlError {
                message: format!(
                    "the entry point returned {} instead of Signed",
                    other.kind()
                ),
                graph: entry.clone(),
                kind: LlErrorKind::Internal,
                traceback: vec![entry],
                op: None,
                pos: None,
            }),
        }
    }

    /// Calls the graph named `graph` with `args`.
    pub fn call(
        &mut self,
        graph: &str,
        args: Vec<LlValue>,
        out: &mut dyn std::io::Write,
    ) -> Result<LlValue, LlError> {
        self.call_hooked(graph, args, out, None)
    }

    /// The machine that runs this program's operations and calls for an
    /// interpreter beside this one (the JIT's blackhole interpreter).
    pub fn machine(&self) -> LlMachine<'_> {
        LlMachine::new(&self.code, self.max_depth)
    }

    fn call_hooked(
        &mut self,
        graph: &str,
        args: Vec<LlValue>,
        out: &mut dyn std::io::Write,
        hook: Option<&mut dyn CallHook>,
    ) -> Result<LlValue, LlError> {
        let Some(&index) = self.code.by_name.get(graph) else {
            return Err(LlError {
                message: format!("no graph named '{graph}'"),
                graph: graph.to_string(),
                kind: LlErrorKind::Internal,
                traceback: vec![],
                op: None,
                pos: None,
            });
        };
        let hook = match hook {
            Some(hook) if hook.takes(index) => {
                // The hook runs the graph itself; what it leaves uncaught
                // is the executable's fatal error, as from the entry point.
                let machine = self.machine();
                return match hook.call(&machine, index, args, out)? {
                    CallOutcome::Returned(v) => Ok(v),
                    CallOutcome::Raised { etype, evalue } => {
                        Err(machine.uncaught(&etype, &evalue, graph))
                    }
                };
            }
            other => other,
        };
        let options = exec::RunOptions {
            max_depth: self.max_depth,
            escape: exec::Escape::Fatal,
            hook,
        };
        match exec::run(&self.code, index, args, out, options)? {
            CallOutcome::Returned(v) => Ok(v),
            CallOutcome::Raised { .. } => unreachable!("a fatal run raises no exception"),
        }
    }

    /// A new `rpy_string` holding `bytes` (null when there is no memory
    /// for it).
    pub fn new_string(&self, bytes: &[u8]) -> LlValue {
        LlValue::Ptr(self.code.types.new_string(bytes))
    }

    /// A new list of strings (the type `entry_point` receives).
    pub fn new_str_list(&self, items: &[String]) -> LlValue {
        let strs: Vec<LlValue> = items
            .iter()
            .map(|s| self.new_string(s.as_bytes()))
            .collect();
        LlValue::Ptr(self.code.types.new_str_list(&strs))
    }

    /// A new object of the named container type, zero-initialised, with `n`
    /// items when the type is varsized.
    pub fn new_object(&self, type_name: &str, n: usize) -> Option<LlValue> {
        let ty = *self.code.types.ids.get(type_name)?;
        Some(LlValue::Ptr(Some(self.code.types.malloc(ty, n)?)))
    }

    /// The characters of the string `v` points to; `None` for anything
    /// else (a value of this interpreter's: its objects die with it).
    pub fn string_bytes(&self, v: &LlValue) -> Option<Vec<u8>> {
        self.code.types.string_bytes(v)
    }

    /// The string `v` points to as text (lossy for non-UTF-8 bytes).
    pub fn string_text(&self, v: &LlValue) -> Option<String> {
        exec::string_text(v, &self.code.types)
    }

    /// The name of the type of the object `v` points to.
    pub fn type_name(&self, v: &LlValue) -> Option<String> {
        self.machine().type_name(v).map(str::to_string)
    }

    /// The fields of the object `v` points to, in the order of its type;
    /// `None` for anything but a pointer to an object of this interpreter.
    pub fn fields(&self, v: &LlValue) -> Option<Vec<LlValue>> {
        let LlValue::Ptr(Some(obj)) = v else {
            return None;
        };
        let types = &self.code.types;
        let info = &types.list[types.type_of(*obj).ok()? as usize];
        info.fields
            .iter()
            .zip(&info.offsets)
            .map(|((_, t), o)| types.load(obj.addr() + o, t).ok())
            .collect()
    }

    /// How many bytes its objects take so far (each at its C layout's
    /// size, rounded up to a word).
    pub fn allocated_bytes(&self) -> u64 {
        self.code.types.heap.allocated_bytes()
    }
}

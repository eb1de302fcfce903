//! The object-level interpreter: runs the flow graphs of a `Program<Flow>`
//! with Python semantics.
//!
//! It is the oracle that checks the flow builder on its own, before
//! annotation: a program's flow graphs, run here, must print what CPython
//! prints and return the same exit status. Values are Python objects
//! ([`ObjValue`]); each operation has the semantics of the program's dialect
//! ([`ops`]), with machine-word ints as in RPython.
//!
//! Execution follows the graphs: a block's operations run in order, then the
//! exit selected by the exitswitch (the only exit when there is none) passes
//! its arguments, all evaluated before any is assigned, to the target block's
//! input variables. Calls of program functions push a frame on an explicit
//! stack, so deep recursion in the program does not use the Rust stack.
//! An operation that raises, or a link into a graph's except block, raises a
//! Python exception (an instance of a class of [`exceptions`]): the innermost
//! frame whose current operation ends a block catching exceptions
//! (`switch last_exception`) with an exit whose class matches takes that exit,
//! its own variables set to the exception's class and instance; the frames
//! above it are dropped. When no frame catches it, the run stops with an
//! [`ObjError`] naming the exception, the stack as it was when it was raised.

mod containers;
pub mod exceptions;
mod externals;
pub mod modules;
mod nesting;
mod ops;
mod rdict;
mod rlib;
mod strmethods;
mod value;
mod wide;

pub use ops::{Exc, Op};
pub use value::ObjValue;

use crate::language::special_names::{next_method_name, special_method_name, DEFAULTS_ATTRIBUTE};
use exceptions::{exception_matches, ClassTable, Instantiation};
use rpy_ir::ast::Dialect;
use rpy_ir::graph::{Arg, Constant, Flow, FunctionGraph, Program};
use rpy_ir::opcode::Opcode;
use rpy_llinterp::heap_limit;
use std::collections::HashMap;
use std::fmt;
use std::io::Write;
use std::rc::Rc;

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjError {
    /// The Python exception's class, e.g. `ZeroDivisionError`; `InternalError`
    /// for a malformed graph, `RecursionError` or `StepLimit` for the limits.
    pub exc: String,
    /// The exception's message, e.g. `integer division or modulo by zero`.
    pub message: String,
    /// The graph that was running.
    pub graph: String,
    /// The graphs on the call stack, outermost first (the last is `graph`).
    pub traceback: Box<[String]>,
    /// The operation that raised (`None` when following a block's exit);
    /// boxed to keep `Result<_, ObjError>` small on the call path.
    pub op: Option<Box<str>>,
    /// Where in the source that operation came from, when known.
    pub pos: Option<rpy_ir::diag::Pos>,
}

impl ObjError {
    /// The last line of CPython's traceback: `ZeroDivisionError: ...`.
    pub fn exception_line(&self) -> String {
        if self.message.is_empty() {
            self.exc.clone()
        } else {
            format!("{}: {}", self.exc, self.message)
        }
    }
}

impl fmt::Display for ObjError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (in graph '{}'", self.exception_line(), self.graph)?;
        if let Some(op) = &self.op {
            write!(f, ", operation '{op}'")?;
        }
        write!(f, ")")
    }
}

impl std::error::Error for ObjError {}

/// An operation or link argument, resolved once.
#[derive(Clone, Debug)]
enum Operand {
    Var(usize),
    Const(ObjValue),
    /// A constant with no value here (a class the program does not define).
    Unknown(String),
    /// A program class an import-time graph names before the class exists:
    /// the class statement that makes it runs first (see `defined_classes`).
    LaterClass(String),
}

#[derive(Debug)]
struct OpCode {
    /// `None`: an operation the interpreter does not know (an error when run).
    op: Option<Op>,
    name: Opcode,
    args: Vec<Operand>,
    result: usize,
    pos: Option<rpy_ir::diag::Pos>,
}

#[derive(Debug)]
struct LinkCode {
    args: Vec<Operand>,
    target: usize,
    exitcase: Option<Operand>,
    /// The variables an exception exit sets to the exception's class and instance.
    last_exception: Option<usize>,
    last_exc_value: Option<usize>,
}

#[derive(Debug)]
struct BlockCode {
    inputargs: Vec<usize>,
    ops: Vec<OpCode>,
    exitswitch: Option<Operand>,
    /// Switches on `last_exception`: the last operation's exceptions go to
    /// `exits[1..]`, and `exits[0]` is the normal path.
    catches: bool,
    exits: Vec<LinkCode>,
}

#[derive(Debug)]
struct GraphCode {
    name: String,
    nvars: usize,
    blocks: Vec<BlockCode>,
    start: usize,
    ret: usize,
    except: usize,
}

fn constant(c: &Constant, classes: &ClassTable, prebuilt: &[ObjValue]) -> Operand {
    if let Constant::Prebuilt(i) = c {
        return match prebuilt.get(*i as usize) {
            Some(v) => Operand::Const(v.clone()),
            None => Operand::Unknown(format!("{c:?}")),
        };
    }
    match (ObjValue::from_constant(c, classes), c) {
        (Some(v), _) => Operand::Const(v),
        // Not a builtin class: one the program makes while it runs.
        (None, Constant::Class(name)) => Operand::LaterClass(name.clone()),
        (None, _) => Operand::Unknown(format!("{c:?}")),
    }
}

fn compile(g: &FunctionGraph<Flow>, classes: &ClassTable, prebuilt: &[ObjValue]) -> GraphCode {
    let operand = |a: &Arg| match a {
        Arg::Var(v) => Operand::Var(v.0 as usize),
        Arg::Const(c) => constant(c, classes, prebuilt),
    };
    let blocks = g
        .blocks
        .iter()
        .map(|b| BlockCode {
            inputargs: b.inputargs.iter().map(|v| v.0 as usize).collect(),
            ops: b
                .operations
                .iter()
                .map(|o| OpCode {
                    op: Op::of(o.opname),
                    name: o.opname,
                    args: o.args.iter().map(operand).collect(),
                    result: o.result.0 as usize,
                    pos: o.pos,
                })
                .collect(),
            exitswitch: b
                .exitswitch
                .as_ref()
                .filter(|_| !b.catches_exceptions())
                .map(operand),
            catches: b.catches_exceptions(),
            exits: b
                .exits
                .iter()
                .map(|l| LinkCode {
                    args: l.args.iter().map(operand).collect(),
                    target: l.target.0 as usize,
                    exitcase: l.exitcase.as_ref().map(|c| constant(c, classes, prebuilt)),
                    last_exception: l.last_exception.map(|v| v.0 as usize),
                    last_exc_value: l.last_exc_value.map(|v| v.0 as usize),
                })
                .collect(),
        })
        .collect();
    GraphCode {
        name: g.name.clone(),
        nvars: g.vars.len(),
        blocks,
        start: g.startblock.0 as usize,
        ret: g.returnblock.0 as usize,
        except: g.exceptblock.0 as usize,
    }
}

/// One activation of a graph.
struct Frame {
    graph: usize,
    env: Vec<Option<ObjValue>>,
    block: usize,
    /// The next operation of `block` to run; while a callee runs, the call.
    pc: usize,
    /// For an `__init__` called by instantiating a class: the instance, which
    /// the caller receives instead of the returned value.
    constructing: Option<ObjValue>,
    /// For a rich comparison method (`__eq__`, ...) a comparison called:
    /// its name (its result may not be NotImplemented, see `follow`).
    comparing: Option<&'static str>,
    /// The exact values of the variables whose ints left the machine word.
    wide: wide::WideVars,
}

/// Interprets one flow-stage program.
pub struct ObjInterpreter<'p> {
    program: &'p Program<Flow>,
    dialect: Dialect,
    classes: ClassTable,
    graphs: Vec<GraphCode>,
    by_name: HashMap<String, usize>,
    max_depth: usize,
    /// The call depth of the running frame, counting the frames of the
    /// runs an operation's nested call (`call_value`) suspended: one
    /// recursion limit for all.
    depth: std::cell::Cell<usize>,
    /// The frames of the suspended runs (what a nested run's depth starts at).
    suspended_depth: std::cell::Cell<usize>,
    /// The frames (graph indices) of the nested runs the exception being
    /// raised came out of, innermost last: the rest of its traceback.
    /// Cleared when a handler catches it.
    nested_frames: std::cell::RefCell<Vec<usize>>,
    /// How many runs are suspended: each holds Rust stack, so they have a
    /// limit of their own (`MAX_NESTED_RUNS`), far below `max_depth`.
    nested_runs: std::cell::Cell<usize>,
    max_steps: Option<u64>,
    steps: std::cell::Cell<u64>,
    /// Whether int arithmetic follows Python's unbounded ints (import
    /// time, `wide`) rather than only wrapping machine words as
    /// translated code does.
    python_ints: bool,
    /// The most memory the process may hold while the program runs
    /// (`heap.rs`); more raises MemoryError.
    heap_limit: u64,
    /// With `with_recording`: every value each variable takes, as (graph
    /// index, variable index, value), for tests that check the annotator.
    recorded: Option<std::cell::RefCell<Vec<(usize, usize, ObjValue)>>>,
    /// The program classes made while running, by qualified name: what an
    /// import-time graph's `Constant::Class` of one refers to.
    defined_classes: std::cell::RefCell<HashMap<String, Rc<exceptions::ClassObj>>>,
    /// The instances of classes with a `__del__` that has not run:
    /// `gc.collect()` finds dead those only this list holds
    /// (`run_finalizers`).
    finalizable: std::cell::RefCell<Vec<ObjValue>>,
    /// The `__defaults__` of the program's functions, by graph name: the
    /// values a `def` statement evaluated for its parameters' defaults.
    function_defaults: std::cell::RefCell<HashMap<Rc<str>, ObjValue>>,
}

/// How a run stops inside `run`, before the error gets its traceback.
enum Stop {
    /// An operation raised: the exception's class name and message.
    Raise(Exc),
    /// A Python exception in flight: its class and instance.
    Exception(ObjValue, ObjValue),
    Internal(String),
}

/// The builtin `gc.collect`, after which the finalizers run.
const GC_COLLECT: &str = "gc.collect";

/// What an operation does.
enum Step {
    Value(ObjValue),
    /// An int outside the machine word: its wrapped value and exact form.
    Wide(ObjValue, wide::Wide),
    /// A call of a program graph (by index) with these arguments; for a
    /// class's `__init__`, with the new instance (also the first argument),
    /// which is the call's value.
    Call(usize, Vec<ObjValue>, Option<ObjValue>),
    /// The call of a rich comparison method (by name) for a comparison.
    Compare(usize, Vec<ObjValue>, &'static str),
}

/// What following a link leads to.
enum Next {
    /// The run goes on in the frame now on top.
    Continue,
    /// The outermost frame returned this value.
    Return(ObjValue),
}

impl From<Exc> for Stop {
    fn from(e: Exc) -> Stop {
        Stop::Raise(e)
    }
}

impl<'p> ObjInterpreter<'p> {
    pub fn new(program: &'p Program<Flow>, dialect: Dialect) -> Self {
        Self::with_prebuilt_objects(program, dialect).0
    }

    /// A new interpreter and the values it gives the program's prebuilt
    /// objects (`Constant::Prebuilt(i)` is the `i`th): for callers that
    /// pass them to functions or recognize them in results (the
    /// annotator's memo functions).
    pub fn with_prebuilt_objects(
        program: &'p Program<Flow>,
        dialect: Dialect,
    ) -> (Self, Vec<ObjValue>) {
        let mut classes = ClassTable::builtin(dialect);
        // A prebuilt object that cannot be made leaves its constants without
        // a value: running an operation on one reports it.
        let static_methods = program
            .graphs
            .iter()
            .filter(|g| {
                g.hints
                    .iter()
                    .any(|h| h == crate::language::hints::STATIC_METHOD_HINT)
            })
            .map(|g| g.name.as_str())
            .collect();
        let prebuilt = modules::materialize(&program.prebuilt, &mut classes, &static_methods)
            .unwrap_or_default();
        let interp = Self::with_classes(program, dialect, prebuilt.clone(), classes);
        (interp, prebuilt)
    }

    /// An interpreter whose `Constant::Prebuilt(i)` is `prebuilt[i]`, values
    /// made by the caller (the flow stage's import-time module objects).
    pub fn with_prebuilt_values(
        program: &'p Program<Flow>,
        dialect: Dialect,
        prebuilt: Vec<ObjValue>,
    ) -> Self {
        Self::with_classes(program, dialect, prebuilt, ClassTable::builtin(dialect))
    }

    fn with_classes(
        program: &'p Program<Flow>,
        dialect: Dialect,
        prebuilt: Vec<ObjValue>,
        classes: ClassTable,
    ) -> Self {
        let graphs: Vec<GraphCode> = program
            .graphs
            .iter()
            .map(|g| compile(g, &classes, &prebuilt))
            .collect();
        let by_name = graphs
            .iter()
            .enumerate()
            .map(|(i, g)| (g.name.clone(), i))
            .collect();
        ObjInterpreter {
            program,
            dialect,
            classes,
            graphs,
            by_name,
            max_depth: CPYTHON_RECURSION_LIMIT,
            depth: Default::default(),
            suspended_depth: Default::default(),
            nested_runs: Default::default(),
            nested_frames: Default::default(),
            max_steps: None,
            steps: Default::default(),
            python_ints: false,
            heap_limit: heap_limit::DEFAULT_HEAP_LIMIT,
            recorded: None,
            defined_classes: Default::default(),
            function_defaults: Default::default(),
            finalizable: Default::default(),
        }
    }

    /// The classes the program's constants name (builtin exceptions first).
    pub fn classes(&self) -> &ClassTable {
        &self.classes
    }

    /// The program being run.
    pub fn program(&self) -> &'p Program<Flow> {
        self.program
    }

    /// The `__defaults__` of the function whose graph is `graph`.
    fn defaults_of(&self, graph: &str) -> ObjValue {
        self.function_defaults
            .borrow()
            .get(graph)
            .cloned()
            .unwrap_or(ObjValue::None)
    }

    /// The defaults each function's `def` statement evaluated (its
    /// `__defaults__` tuple), by graph name.
    pub fn function_defaults(&self) -> HashMap<Rc<str>, ObjValue> {
        self.function_defaults.borrow().clone()
    }

    /// The deepest call stack allowed before `RecursionError` (default
    /// CPython's, `CPYTHON_RECURSION_LIMIT`).
    pub fn with_max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    /// The most memory, in bytes, the process may hold while the program
    /// runs before it raises MemoryError (default `heap_limit::DEFAULT_HEAP_LIMIT`).
    pub fn with_heap_limit(mut self, bytes: u64) -> Self {
        self.heap_limit = bytes;
        self
    }

    /// Int arithmetic as Python's, on unbounded ints, as at import time: an
    /// int that leaves the machine word keeps its exact value beside its
    /// wrapped one (`wide`), which `ovfcheck` and the overflow-checking
    /// operations see, and arithmetic that brings it back gives the exact
    /// result. Otherwise ints are the machine words of translated code.
    pub fn with_python_ints(mut self) -> Self {
        self.python_ints = true;
        self
    }

    /// Stops a run after this many executed operations and links in total
    /// (for generated programs that may loop forever).
    pub fn with_step_limit(mut self, steps: u64) -> Self {
        self.max_steps = Some(steps);
        self
    }

    /// Records every value every variable takes (`recorded` returns them):
    /// what the annotator's soundness test compares with the annotations.
    pub fn with_recording(mut self) -> Self {
        self.recorded = Some(Default::default());
        self
    }

    /// The (graph index, variable index, value) of every assignment so far,
    /// when recording.
    pub fn recorded(&self) -> Vec<(usize, usize, ObjValue)> {
        self.recorded
            .as_ref()
            .map(|r| r.borrow().clone())
            .unwrap_or_default()
    }

    fn record(&self, graph: usize, var: usize, value: &ObjValue) {
        if let Some(r) = &self.recorded {
            r.borrow_mut().push((graph, var, value.clone()));
        }
    }

    /// Runs the entry point with `argv` (a list of strings) and returns its
    /// result as the exit status (`None` is 0, as `sys.exit(None)`).
    /// A Python 3 program gets each argument's chars (as CPython 3 decodes
    /// them), a Python 2 program its bytes; a char above U+00FF, which a
    /// str cannot hold, stops the run as in translated programs.
    pub fn run_entry(&mut self, argv: &[String], out: &mut dyn Write) -> Result<i64, ObjError> {
        let entry = self.program.entry.clone();
        let mut args = Vec::with_capacity(argv.len());
        for a in argv {
            args.push(match self.dialect {
                Dialect::Py2 => ObjValue::str(a),
                Dialect::Py3 if a.chars().all(|c| (c as u32) < 0x100) => {
                    ObjValue::str(rpy_ir::graph::str_bytes(a))
                }
                Dialect::Py3 => {
                    return Err(ObjError {
                        exc: "NotImplementedError".into(),
                        message: "rpy: a command-line argument holds a char above U+00FF, or \
                                  bytes that are not UTF-8, which a Python 3 str of rpy \
                                  cannot hold"
                            .into(),
                        graph: entry.clone(),
                        traceback: Box::new([entry]),
                        op: None,
                        pos: None,
                    })
                }
            });
        }
        let list = ObjValue::list(args);
        match self.call(&entry, vec![list], out)? {
            ObjValue::None => Ok(0),
            v => v.as_int().ok_or_else(|| ObjError {
                exc: "TypeError".into(),
                message: format!(
                    "the entry point returned a {} instead of an int",
                    v.type_name()
                ),
                graph: entry.clone(),
                traceback: Box::new([entry]),
                op: None,
                pos: None,
            }),
        }
    }

    /// Calls the graph named `func` with `args`.
    pub fn call(
        &mut self,
        func: &str,
        args: Vec<ObjValue>,
        out: &mut dyn Write,
    ) -> Result<ObjValue, ObjError> {
        let Some(&index) = self.by_name.get(func) else {
            return Err(ObjError {
                exc: "NameError".into(),
                message: format!("no graph named '{func}'"),
                graph: func.to_string(),
                traceback: Box::new([]),
                op: None,
                pos: None,
            });
        };
        let mut stack: Vec<Frame> = Vec::new();
        self.nested_frames.borrow_mut().clear();
        match self.run(index, args, out, &mut stack) {
            Ok(v) => Ok(v),
            Err(stop) => {
                let nested = self.nested_frames.take();
                let traceback: Vec<String> = stack
                    .iter()
                    .map(|f| f.graph)
                    .chain(nested.iter().copied())
                    .map(|g| self.graphs[g].name.clone())
                    .collect();
                let (graph, op, pos) = match stack.last() {
                    Some(f) => {
                        let g = &self.graphs[f.graph];
                        let op = g.blocks[f.block].ops.get(f.pc);
                        (
                            g.name.clone(),
                            op.map(|o| o.name.name().into()),
                            op.and_then(|o| o.pos),
                        )
                    }
                    None => (func.to_string(), None, None),
                };
                let (exc, message) = match stop {
                    Stop::Raise(e) => (e.exc.to_string(), e.msg),
                    Stop::Exception(etype, evalue) => self.describe_exception(&etype, &evalue),
                    Stop::Internal(m) => ("InternalError".to_string(), m),
                };
                Err(ObjError {
                    exc,
                    message,
                    graph,
                    traceback: traceback.into(),
                    op,
                    pos,
                })
            }
        }
    }

    /// A new frame of graph `index` entering its start block with `args`.
    /// Parameters left out take the function's `__defaults__`, as Python's
    /// call does (the flow builder passes them itself after import).
    fn frame(&self, index: usize, mut args: Vec<ObjValue>) -> Result<Frame, Stop> {
        let g = &self.graphs[index];
        let params = &g.blocks[g.start].inputargs;
        if let ObjValue::Tuple(defaults) = &self.defaults_of(&g.name) {
            let missing = params.len().saturating_sub(args.len());
            if (1..=defaults.len()).contains(&missing) {
                args.extend_from_slice(&defaults[defaults.len() - missing..]);
            }
        }
        if params.len() != args.len() {
            let n = params.len();
            return Err(Stop::Raise(ops::exc(
                "TypeError",
                match self.dialect {
                    Dialect::Py2 => format!(
                        "{}() takes exactly {n} argument{} ({} given)",
                        g.name,
                        if n == 1 { "" } else { "s" },
                        args.len()
                    ),
                    Dialect::Py3 => format!(
                        "{}() takes {n} positional argument{} but {} {} given",
                        g.name,
                        if n == 1 { "" } else { "s" },
                        args.len(),
                        if args.len() == 1 { "was" } else { "were" }
                    ),
                },
            )));
        }
        let mut env = vec![None; g.nvars];
        for (&v, a) in params.iter().zip(args) {
            self.record(index, v, &a);
            env[v] = Some(a);
        }
        Ok(Frame {
            graph: index,
            env,
            block: g.start,
            pc: 0,
            constructing: None,
            comparing: None,
            wide: Default::default(),
        })
    }

    fn tick(&self) -> Result<(), Stop> {
        let steps = self.steps.get() + 1;
        self.steps.set(steps);
        match self.max_steps {
            Some(max) if steps > max => {
                return Err(Stop::Raise(ops::exc(
                    "StepLimit",
                    format!("the run took more than {max} steps"),
                )))
            }
            _ => {}
        }
        if steps.is_multiple_of(heap_limit::CHECK_EVERY)
            && heap_limit::resident_bytes().is_some_and(|used| used > self.heap_limit)
        {
            return Err(Stop::Raise(ops::exc("MemoryError", "")));
        }
        Ok(())
    }

    /// Runs graph `index` to its return; the frames are on `stack` (left
    /// there when a run stops with an error, for the traceback).
    fn run(
        &self,
        index: usize,
        args: Vec<ObjValue>,
        out: &mut dyn Write,
        stack: &mut Vec<Frame>,
    ) -> Result<ObjValue, Stop> {
        let first = self.frame(index, args)?;
        stack.push(first);
        loop {
            self.tick()?;
            let depth = self.suspended_depth.get() + stack.len();
            self.depth.set(depth);
            let frame = stack.last_mut().expect("a frame is running");
            let g = &self.graphs[frame.graph];
            let b = &g.blocks[frame.block];

            if let Some(op) = b.ops.get(frame.pc) {
                let result = op.result;
                match self.step(op, &frame.env, &frame.wide, depth, out) {
                    Ok(Step::Value(v)) => {
                        let frame = stack.last_mut().expect("a frame is running");
                        self.record(frame.graph, result, &v);
                        frame.env[result] = Some(v);
                        frame.wide.set(result, None);
                        frame.pc += 1;
                    }
                    Ok(Step::Wide(v, w)) => {
                        let frame = stack.last_mut().expect("a frame is running");
                        self.record(frame.graph, result, &v);
                        frame.env[result] = Some(v);
                        frame.wide.set(result, Some(w));
                        frame.pc += 1;
                    }
                    Ok(Step::Call(callee, args, constructing)) => match self.frame(callee, args) {
                        Ok(new) => stack.push(Frame {
                            constructing,
                            ..new
                        }),
                        Err(stop) => {
                            if let Next::Return(v) = self.raise(stack, stop)? {
                                return Ok(v);
                            }
                        }
                    },
                    Ok(Step::Compare(callee, args, method)) => match self.frame(callee, args) {
                        Ok(new) => stack.push(Frame {
                            comparing: Some(method),
                            ..new
                        }),
                        Err(stop) => {
                            if let Next::Return(v) = self.raise(stack, stop)? {
                                return Ok(v);
                            }
                        }
                    },
                    Err(stop) => {
                        if let Next::Return(v) = self.raise(stack, stop)? {
                            return Ok(v);
                        }
                    }
                }
                continue;
            }

            // The end of the block: follow the exit.
            let exit = match &b.exitswitch {
                None if b.catches => 0,
                None => match b.exits.len() {
                    1 => 0,
                    n => {
                        return Err(Stop::Internal(format!(
                            "block {} has {n} exits and no exitswitch",
                            frame.block,
                        )))
                    }
                },
                Some(sw) => {
                    let v = self.get(&frame.env, sw)?;
                    let found = b.exits.iter().position(|l| match &l.exitcase {
                        Some(Operand::Const(c)) => same_case(c, &v),
                        _ => false,
                    });
                    match found {
                        Some(i) => i,
                        None => {
                            return Err(Stop::Internal(format!(
                                "no exit of block {} matches the exitswitch value {v:?}",
                                frame.block
                            )))
                        }
                    }
                }
            };
            if let Next::Return(v) = self.follow(stack, exit, None)? {
                return Ok(v);
            }
        }
    }

    /// Runs one operation of the top frame, or says which graph it calls.
    fn step(
        &self,
        op: &OpCode,
        env: &[Option<ObjValue>],
        wide_vars: &wide::WideVars,
        depth: usize,
        out: &mut dyn Write,
    ) -> Result<Step, Stop> {
        let args = op
            .args
            .iter()
            .map(|a| self.get(env, a))
            .collect::<Result<Vec<_>, _>>()?;
        let wide: Vec<Option<wide::Wide>> = if wide_vars.is_empty() {
            Vec::new()
        } else {
            op.args
                .iter()
                .map(|a| match a {
                    Operand::Var(v) => wide_vars.get(*v),
                    _ => None,
                })
                .collect()
        };
        if let Some(r) = wide::overflow_checked(op.name.name(), &args, &wide, self.dialect) {
            return match r {
                Ok(r) => r.map(Step::Value).map_err(Stop::Raise),
                Err(message) => Err(Stop::Internal(message)),
            };
        }
        if let Some(r) = wide::checked_call(&args, &wide) {
            return match r {
                Ok(r) => r.map(Step::Value).map_err(Stop::Raise),
                Err(message) => Err(Stop::Internal(message)),
            };
        }
        if op.name == Opcode::FlowError {
            let message = args.first().map(|m| m.to_str(self.dialect));
            return Err(Stop::Internal(format!(
                "this function's graph could not be built: {}",
                String::from_utf8_lossy(&message.unwrap_or_default())
            )));
        }
        let Some(kind) = op.op else {
            return Err(Stop::Internal(format!(
                "the operation '{}' is not known to the object interpreter",
                op.name
            )));
        };
        if let Some(n) = kind.arity() {
            if args.len() != n {
                return Err(Stop::Internal(format!(
                    "'{}' takes {n} arguments, not {}",
                    op.name,
                    args.len()
                )));
            }
        }
        if kind == Op::SimpleCall {
            match args.first() {
                Some(ObjValue::Func(name)) => {
                    let callee = self.callee(name, depth)?;
                    return Ok(Step::Call(callee, args[1..].to_vec(), None));
                }
                Some(ObjValue::BoundMethod(m)) => {
                    let callee = self.callee(&m.func, depth)?;
                    let mut call_args = vec![m.receiver.clone()];
                    call_args.extend_from_slice(&args[1..]);
                    return Ok(Step::Call(callee, call_args, None));
                }
                Some(ObjValue::Class(class)) => {
                    let made = exceptions::instantiate(class, &args[1..], self.dialect)?;
                    if class.lookup("__del__").is_some() {
                        let (Instantiation::Done(instance) | Instantiation::Init(instance, _)) =
                            &made;
                        self.finalizable.borrow_mut().push(instance.clone());
                    }
                    return match made {
                        Instantiation::Done(v) => Ok(Step::Value(v)),
                        Instantiation::Init(instance, init) => {
                            let callee = self.callee(&init, depth)?;
                            let mut call_args = vec![instance.clone()];
                            call_args.extend_from_slice(&args[1..]);
                            Ok(Step::Call(callee, call_args, Some(instance)))
                        }
                    };
                }
                _ => {}
            }
        }
        if let Some((func, call_args)) = self.special_method(kind, &args) {
            let callee = self.callee(&func, depth)?;
            return Ok(Step::Call(callee, call_args, None));
        }
        if let Some(step) = self.rich_comparison(kind, &args, depth, out)? {
            return Ok(step);
        }
        let outcome = if self.python_ints {
            wide::result(kind, &args, &wide)
        } else {
            None
        };
        match outcome {
            Some(wide::Outcome::Fits(i)) => Ok(Step::Value(ObjValue::Int(i))),
            Some(wide::Outcome::Wide(i, w)) => Ok(Step::Wide(ObjValue::Int(i), w)),
            Some(wide::Outcome::WideWrapped(w)) => {
                let v = self.operation(kind, args, out)?;
                Ok(Step::Wide(v, w))
            }
            None => self.operation(kind, args, out).map(Step::Value),
        }
    }

    /// A comparison whose operand is an instance of a class defining the
    /// comparison's method runs it, as Python does at import time (what
    /// it raises reaches the `try` around it): the left operand's method
    /// (`__lt__` for `<`), else the right one's reflection (`__gt__`);
    /// in Python 3 `!=` without `__ne__` is the negation of `__eq__`.
    /// `None` when neither operand defines one (the comparison is then
    /// the builtin one: identity for instances).
    fn rich_comparison(
        &self,
        op: Op,
        args: &[ObjValue],
        depth: usize,
        out: &mut dyn Write,
    ) -> Result<Option<Step>, Stop> {
        let (method, reflected) = match op {
            Op::Lt => ("__lt__", "__gt__"),
            Op::Le => ("__le__", "__ge__"),
            Op::Gt => ("__gt__", "__lt__"),
            Op::Ge => ("__ge__", "__le__"),
            Op::Eq => ("__eq__", "__eq__"),
            Op::Ne => ("__ne__", "__ne__"),
            _ => return Ok(None),
        };
        let [left, right] = args else {
            return Ok(None);
        };
        let lookup = |x: &ObjValue, name: &str| match x {
            ObjValue::Instance(i) => match i.class.lookup(name) {
                Some(f @ ObjValue::Func(_)) => Some(f),
                _ => None,
            },
            _ => None,
        };
        let call = |f: ObjValue,
                    a: &ObjValue,
                    b: &ObjValue,
                    method: &'static str|
         -> Result<Option<Step>, Stop> {
            let ObjValue::Func(name) = &f else {
                unreachable!("lookup gives functions")
            };
            let callee = self.callee(name, depth)?;
            Ok(Some(Step::Compare(
                callee,
                vec![a.clone(), b.clone()],
                method,
            )))
        };
        if let Some(f) = lookup(left, method) {
            return call(f, left, right, method);
        }
        if let Some(f) = lookup(right, reflected) {
            return call(f, right, left, reflected);
        }
        if op == Op::Ne && self.dialect == Dialect::Py3 {
            let eq = lookup(left, "__eq__")
                .map(|f| (f, left, right))
                .or_else(|| lookup(right, "__eq__").map(|f| (f, right, left)));
            if let Some((f, a, b)) = eq {
                let equal = self.call_value(&f, vec![a.clone(), b.clone()], out)?;
                return Ok(Some(Step::Value(ObjValue::Bool(!equal.truth()))));
            }
        }
        if self.dialect == Dialect::Py2 {
            return self.three_way_comparison(op, left, right, out);
        }
        Ok(None)
    }

    /// Python 2's fallback when neither operand has the rich comparison
    /// method: the three-way `__cmp__` of the left operand's class, else
    /// the right one's with its sign turned, its result taken as an int (a
    /// float is truncated; anything else is a TypeError) and only its sign
    /// kept; a method that returns NotImplemented passes on to the next.
    /// When an operand is an instance of an old-style class, only the
    /// methods of such operands are asked (CPython 2.7's
    /// `instance_compare`; else its `_PyObject_SlotCompare`). `None` when
    /// no method gives an answer: the default comparison (identity for
    /// `==`).
    fn three_way_comparison(
        &self,
        op: Op,
        left: &ObjValue,
        right: &ObjValue,
        out: &mut dyn Write,
    ) -> Result<Option<Step>, Stop> {
        let lookup = |x: &ObjValue| match x {
            ObjValue::Instance(i) => match i.class.lookup("__cmp__") {
                Some(f @ ObjValue::Func(_)) => Some(f),
                _ => None,
            },
            _ => None,
        };
        let old_style =
            |x: &ObjValue| matches!(x, ObjValue::Instance(i) if !i.class.is_new_style());
        let any_old_style = old_style(left) || old_style(right);
        for (a, b, sign) in [(left, right, 1), (right, left, -1)] {
            if any_old_style && !old_style(a) {
                continue;
            }
            let Some(f) = lookup(a) else {
                continue;
            };
            let result = self.call_value(&f, vec![a.clone(), b.clone()], out)?;
            if is_not_implemented(&result) {
                continue;
            }
            let not_int = || {
                Stop::Raise(ops::exc(
                    "TypeError",
                    if old_style(a) {
                        "comparison did not return an int"
                    } else {
                        "an integer is required"
                    },
                ))
            };
            let c = match result {
                ObjValue::Int(i) => i.signum(),
                ObjValue::Bool(b) => i64::from(b),
                ObjValue::UInt(u) => i64::from(u > 0),
                ObjValue::Float(x) => match ops::float_to_int(x).map_err(Stop::Raise)? {
                    ObjValue::Int(i) => i.signum(),
                    _ => unreachable!("float_to_int gives an int"),
                },
                _ => return Err(not_int()),
            } * sign;
            let holds = match op {
                Op::Lt => c < 0,
                Op::Le => c <= 0,
                Op::Gt => c > 0,
                Op::Ge => c >= 0,
                Op::Eq => c == 0,
                Op::Ne => c != 0,
                _ => unreachable!("rich_comparison passes comparisons only"),
            };
            return Ok(Some(Step::Value(ObjValue::Bool(holds))));
        }
        Ok(None)
    }

    /// The method of an instance's class that the generic operation `op`
    /// runs (see `special_method_name`; `len(x)` is the call of the builtin),
    /// with its arguments, the instance first; `None` when `op` is not one of
    /// these on an instance whose class defines the method.
    fn special_method(&self, op: Op, args: &[ObjValue]) -> Option<(Rc<str>, Vec<ObjValue>)> {
        let (opname, receiver, rest) = match (op, args) {
            (Op::SimpleCall, [ObjValue::Builtin(b), x]) if b.as_ref() == "len" => {
                (Opcode::Len, x, &[][..])
            }
            (_, [x, rest @ ..]) => (op.opcode(), x, rest),
            _ => return None,
        };
        let ObjValue::Instance(instance) = receiver else {
            return None;
        };
        let name = special_method_name(opname, self.dialect)?;
        let ObjValue::Func(func) = &instance.class.lookup(name)? else {
            return None;
        };
        let mut call_args = vec![receiver.clone()];
        call_args.extend_from_slice(rest);
        Some((func.clone(), call_args))
    }

    /// The graph a call of the program function `name` runs, at call depth
    /// `depth`.
    fn callee(&self, name: &str, depth: usize) -> Result<usize, Stop> {
        let Some(&callee) = self.by_name.get(name) else {
            return Err(Stop::Internal(format!(
                "the program has no graph for the function '{name}'"
            )));
        };
        if depth >= self.max_depth {
            return Err(Stop::Raise(ops::exc(
                "RecursionError",
                "maximum recursion depth exceeded",
            )));
        }
        Ok(callee)
    }

    /// Takes exit `exit` of the top frame's block (an exception exit with the
    /// exception `caught`): into the next block, out of the graph with its
    /// result, or raising what a link into the except block passes.
    fn follow(
        &self,
        stack: &mut Vec<Frame>,
        exit: usize,
        caught: Option<(ObjValue, ObjValue)>,
    ) -> Result<Next, Stop> {
        let frame = stack.last_mut().expect("a frame is running");
        let g = &self.graphs[frame.graph];
        let link = &g.blocks[frame.block].exits[exit];
        if let Some((etype, evalue)) = caught {
            if let Some(v) = link.last_exception {
                self.record(frame.graph, v, &etype);
                frame.env[v] = Some(etype);
                frame.wide.set(v, None);
            }
            if let Some(v) = link.last_exc_value {
                self.record(frame.graph, v, &evalue);
                frame.env[v] = Some(evalue);
                frame.wide.set(v, None);
            }
        }
        // The links' wide ints keep their exact values.
        let wide: Vec<Option<wide::Wide>> = if frame.wide.is_empty() {
            Vec::new()
        } else {
            link.args
                .iter()
                .map(|a| match a {
                    Operand::Var(v) => frame.wide.get(*v),
                    _ => None,
                })
                .collect()
        };
        let values = link
            .args
            .iter()
            .map(|a| self.get(&frame.env, a))
            .collect::<Result<Vec<_>, _>>()?;
        if link.target == g.ret {
            let Some(result) = values.into_iter().next() else {
                return Err(Stop::Internal(
                    "a link to the return block has no value".into(),
                ));
            };
            if let Some(&rv) = g.blocks[g.ret].inputargs.first() {
                self.record(frame.graph, rv, &result);
            }
            let returned_wide = wide.first().copied().flatten();
            if let (Some(method), true) = (frame.comparing, is_not_implemented(&result)) {
                return Err(Stop::Internal(format!(
                    "{method}() returned NotImplemented: the fallbacks Python then tries \
                     (the other operand's method, identity) are not run at import time"
                )));
            }
            let result = match frame.constructing.take() {
                Some(instance) if result == ObjValue::None => instance,
                Some(_) => {
                    return Err(Stop::Raise(ops::exc(
                        "TypeError",
                        "__init__() should return None",
                    )))
                }
                None => result,
            };
            stack.pop();
            return Ok(match stack.last_mut() {
                None => Next::Return(result),
                Some(caller) => {
                    let cg = &self.graphs[caller.graph];
                    let call = &cg.blocks[caller.block].ops[caller.pc];
                    self.record(caller.graph, call.result, &result);
                    caller.env[call.result] = Some(result);
                    caller.wide.set(call.result, returned_wide);
                    caller.pc += 1;
                    Next::Continue
                }
            });
        }
        if link.target == g.except {
            let mut vals = values.into_iter();
            let etype = vals.next().unwrap_or(ObjValue::None);
            let evalue = vals.next().unwrap_or(ObjValue::None);
            // The frame stays (at the end of its block, where nothing catches)
            // so that an uncaught exception's traceback includes it.
            return self.raise(stack, Stop::Exception(etype, evalue));
        }
        let target = &g.blocks[link.target];
        if target.inputargs.len() != values.len() {
            return Err(Stop::Internal(format!(
                "a link passes {} values to block {}, which takes {}",
                values.len(),
                link.target,
                target.inputargs.len()
            )));
        }
        for (i, (&v, x)) in target.inputargs.iter().zip(values).enumerate() {
            self.record(frame.graph, v, &x);
            frame.env[v] = Some(x);
            frame.wide.set(v, wide.get(i).copied().flatten());
        }
        frame.block = link.target;
        frame.pc = 0;
        Ok(Next::Continue)
    }

    /// Raises `stop` in the top frame: the innermost frame that catches it
    /// takes its exception exit; otherwise the error comes back, the stack
    /// untouched for the traceback.
    fn raise(&self, stack: &mut Vec<Frame>, stop: Stop) -> Result<Next, Stop> {
        let (etype, evalue) = match stop {
            Stop::Raise(e) => match self.classes.instance_of_exc(&e) {
                Some(ObjValue::Instance(ref inst)) => (
                    ObjValue::Class(inst.class.clone()),
                    ObjValue::Instance(inst.clone()),
                ),
                _ => return Err(Stop::Raise(e)),
            },
            Stop::Exception(etype, evalue) => (etype, evalue),
            Stop::Internal(_) => return Err(stop),
        };
        let raised = raised_object(&etype, &evalue);
        for depth in (0..stack.len()).rev() {
            let f = &stack[depth];
            let b = &self.graphs[f.graph].blocks[f.block];
            // Only the last operation of a catching block has its exceptions caught.
            if !b.catches || f.pc + 1 != b.ops.len() {
                continue;
            }
            let handler = b.exits.iter().skip(1).position(|l| match &l.exitcase {
                Some(Operand::Const(ObjValue::Class(c))) => exception_matches(raised, c),
                Some(Operand::LaterClass(name)) => self
                    .later_class(name)
                    .is_some_and(|c| exception_matches(raised, &c)),
                _ => false,
            });
            if let Some(i) = handler {
                self.nested_frames.borrow_mut().clear();
                stack.truncate(depth + 1);
                return self.follow(stack, i + 1, Some((etype, evalue)));
            }
        }
        Err(Stop::Exception(etype, evalue))
    }

    /// The value of an operand in `env`.
    fn get(&self, env: &[Option<ObjValue>], a: &Operand) -> Result<ObjValue, Stop> {
        if let Operand::LaterClass(name) = a {
            if let Some(c) = self.later_class(name) {
                return Ok(ObjValue::Class(c));
            }
        }
        get(env, a)
    }

    /// The class a `LaterClass` operand names, once its class statement ran.
    fn later_class(&self, name: &str) -> Option<Rc<exceptions::ClassObj>> {
        self.defined_classes.borrow().get(name).cloned()
    }

    /// The class name and `str()` of an uncaught exception.
    fn describe_exception(&self, etype: &ObjValue, evalue: &ObjValue) -> (String, String) {
        // CPython 3 leaves out the module `__main__` (Python 2 does not).
        let shown = |c: &exceptions::ClassObj| match (&c.module, self.dialect) {
            (Some(m), Dialect::Py3) if m.as_ref() == "__main__" => c.name.to_string(),
            _ => c.qualified_name(),
        };
        let name = match (etype, evalue) {
            (_, ObjValue::Instance(i)) => shown(&i.class),
            (ObjValue::Class(c), _) => shown(c),
            (other, _) => String::from_utf8_lossy(&other.to_str(self.dialect)).into_owned(),
        };
        let msg = match evalue {
            ObjValue::None => String::new(),
            v => String::from_utf8_lossy(&v.to_str(self.dialect)).into_owned(),
        };
        (name, msg)
    }

    /// What `gc.collect()` does besides nothing (the objects are reference
    /// counted, so only the finalizers are left to run): the instances
    /// with a `__del__` that only the list of them holds are dead, and each
    /// one's `__del__` runs once, nested; what it raises is dropped, as
    /// CPython drops it (after printing it). A cycle is never found dead.
    fn run_finalizers(&self, out: &mut dyn Write) -> Result<(), Stop> {
        loop {
            let dead: Vec<ObjValue> = {
                let mut list = self.finalizable.borrow_mut();
                let (dead, alive) = std::mem::take(&mut *list)
                    .into_iter()
                    .partition(|v| matches!(v, ObjValue::Instance(i) if Rc::strong_count(i) == 1));
                *list = alive;
                dead
            };
            if dead.is_empty() {
                return Ok(());
            }
            for obj in dead {
                let ObjValue::Instance(i) = &obj else {
                    continue;
                };
                let Some(del) = i.class.lookup("__del__") else {
                    continue;
                };
                match self.call_value(&del, vec![obj.clone()], out) {
                    Ok(_) | Err(Stop::Raise(_) | Stop::Exception(..)) => {}
                    Err(stop) => return Err(stop),
                }
            }
        }
    }

    /// Calls `f` (a function of the program, a bound method or a builtin)
    /// from inside an operation, to its return: what an r_dict's key
    /// functions need. An exception it does not catch comes back.
    fn call_value(
        &self,
        f: &ObjValue,
        mut args: Vec<ObjValue>,
        out: &mut dyn Write,
    ) -> Result<ObjValue, Stop> {
        let name = match f {
            ObjValue::Func(name) => name.clone(),
            ObjValue::BoundMethod(m) => {
                args.insert(0, m.receiver.clone());
                m.func.clone()
            }
            other => {
                let mut call = vec![other.clone()];
                call.extend(args);
                return self.operation(Op::SimpleCall, call, out);
            }
        };
        let depth = self.depth.get();
        let index = self.callee(&name, depth)?;
        if self.nested_runs.get() >= MAX_NESTED_RUNS {
            return Err(Stop::Raise(ops::exc(
                "RecursionError",
                "maximum recursion depth exceeded".to_string(),
            )));
        }
        let suspended = self.suspended_depth.replace(depth);
        self.nested_runs.set(self.nested_runs.get() + 1);
        self.nested_frames.borrow_mut().clear();
        let mut stack = Vec::new();
        let r = self.run(index, args, out, &mut stack);
        if r.is_err() {
            // The frames the exception left, before those of the runs
            // nested in them.
            let inner = self.nested_frames.take();
            *self.nested_frames.borrow_mut() = stack.iter().map(|f| f.graph).chain(inner).collect();
        }
        self.nested_runs.set(self.nested_runs.get() - 1);
        self.suspended_depth.set(suspended);
        self.depth.set(depth);
        r
    }

    /// The items a `for` loop over the instance `x` takes (`list(x)`): its
    /// class's `__iter__`, then the iterator's `next` (`__next__`) until it
    /// raises `StopIteration`.
    fn items_of_instance(&self, x: &ObjValue, out: &mut dyn Write) -> Result<Vec<ObjValue>, Stop> {
        let method = |receiver: &ObjValue, name: &str| -> Result<ObjValue, Stop> {
            match receiver {
                ObjValue::Instance(inst) => inst.class.lookup(name),
                _ => None,
            }
            .ok_or_else(|| {
                Stop::Raise(ops::exc(
                    "TypeError",
                    format!("'{}' object is not iterable", receiver.type_name()),
                ))
            })
        };
        let iterator = self.call_value(&method(x, "__iter__")?, vec![x.clone()], out)?;
        let next = method(&iterator, next_method_name(self.dialect))?;
        let mut items = Vec::new();
        loop {
            match self.call_value(&next, vec![iterator.clone()], out) {
                Ok(v) => items.push(v),
                Err(Stop::Exception(etype, evalue)) => {
                    let stop = self.classes.get("StopIteration");
                    if stop.is_some_and(|c| exception_matches(raised_object(&etype, &evalue), &c)) {
                        self.nested_frames.borrow_mut().clear();
                        return Ok(items);
                    }
                    return Err(Stop::Exception(etype, evalue));
                }
                Err(Stop::Raise(e)) if e.exc == "StopIteration" => return Ok(items),
                Err(other) => return Err(other),
            }
        }
    }

    /// `map(f, seq)` and `filter(f, seq)` (`f` None: the items themselves,
    /// as CPython): a list in Python 2, an iterator over the results in
    /// Python 3 (computed at once: import-time code that depends on their
    /// being lazy is rare).
    fn map_or_filter(
        &self,
        builtin: &str,
        f: &ObjValue,
        seq: &ObjValue,
        out: &mut dyn Write,
    ) -> Result<ObjValue, Stop> {
        let items = match seq {
            ObjValue::Instance(_) => self.items_of_instance(seq, out)?,
            _ => containers::items_of(seq)?,
        };
        let mut results = Vec::new();
        for item in items {
            let value = match f {
                ObjValue::None => item.clone(),
                _ => self.call_value(f, vec![item.clone()], out)?,
            };
            match builtin {
                "map" => results.push(value),
                _ if value.truth() => results.push(item),
                _ => {}
            }
        }
        let list = ObjValue::list(results);
        match self.dialect {
            Dialect::Py2 => Ok(list),
            Dialect::Py3 => Ok(containers::iter(&list)?),
        }
    }

    /// Every operation but calls of program functions. One that walked
    /// data nested deeper than the recursion limit (a `repr`, `==` or
    /// `hash` of a list in a list ... 100,000 deep) raises RecursionError,
    /// as CPython's does, whatever the walk's cut-short result was
    /// (`nesting`).
    fn operation(
        &self,
        op: Op,
        args: Vec<ObjValue>,
        out: &mut dyn Write,
    ) -> Result<ObjValue, Stop> {
        nesting::take_overflow();
        let r = self.operation_unbounded(op, args, out);
        match nesting::take_overflow() {
            // CPython 2.7 words a comparison's "in cmp".
            Some("in comparison") if self.dialect == Dialect::Py2 => {
                Err(Stop::Raise(ops::recursion_error("in cmp")))
            }
            Some(doing) => Err(Stop::Raise(ops::recursion_error(doing))),
            None => r,
        }
    }

    /// `operation` without the check of nesting.
    fn operation_unbounded(
        &self,
        op: Op,
        args: Vec<ObjValue>,
        out: &mut dyn Write,
    ) -> Result<ObjValue, Stop> {
        let d = self.dialect;
        if let Some(r) = self.rdict_operation(op, &args, out) {
            return r;
        }
        if let (Op::SimpleCall, [ObjValue::Builtin(b), x @ ObjValue::Instance(_)]) =
            (op, args.as_slice())
        {
            if b.as_ref() == "list" {
                return self.items_of_instance(x, out).map(ObjValue::list);
            }
        }
        if let (Op::SimpleCall, [ObjValue::Builtin(b), f, seq]) = (op, args.as_slice()) {
            if matches!(b.as_ref(), "map" | "filter") {
                return self.map_or_filter(b, f, seq, out);
            }
        }
        let r = match (op, args.as_slice()) {
            (Op::JitMarker, _) => Ok(ObjValue::None),
            (Op::PrintItem, [x]) => {
                let text = x.to_str(d);
                // CPython 3 writes a str's chars in UTF-8.
                let text = match d {
                    Dialect::Py2 => std::borrow::Cow::Borrowed(&text[..]),
                    Dialect::Py3 => rpy_ir::graph::utf8_of_chars(&text),
                };
                out.write_all(&text)
                    .map_err(|e| ops::exc("IOError", e.to_string()))?;
                Ok(ObjValue::None)
            }
            (Op::SimpleCall, [ObjValue::Builtin(name), rest @ ..]) => {
                let r = match exceptions::call_builtin(name, rest)
                    .or_else(|| rlib::call(name, rest))
                    .or_else(|| modules::closure_builtin(name, rest))
                    .or_else(|| externals::call(name, rest, d, out))
                {
                    Some(r) => r,
                    None => ops::call_builtin(name, rest, d),
                };
                if name.as_ref() == GC_COLLECT {
                    self.run_finalizers(out)?;
                }
                // `type(name, bases, namespace)` is a class statement: its
                // class is what `LaterClass` operands name.
                if let (Ok(ObjValue::Class(c)), "type", [_, _, _]) = (&r, name.as_ref(), rest) {
                    self.defined_classes
                        .borrow_mut()
                        .insert(c.qualified_name(), c.clone());
                }
                r
            }
            (Op::SimpleCall, [ObjValue::Method(m), rest @ ..]) => {
                containers::call_method(m, rest, d)
            }
            (
                Op::NewTuple
                | Op::NewList
                | Op::NewDict
                | Op::GetSlice
                | Op::DelItem
                | Op::DelSlice
                | Op::SetSlice
                | Op::Iter
                | Op::Next,
                _,
            ) => containers::operation(op, &args, d),
            (Op::SimpleCall, [f, ..]) => Err(ops::exc(
                "TypeError",
                format!("'{}' object is not callable", f.type_name()),
            )),
            (Op::SimpleCall, []) => {
                return Err(Stop::Internal("simple_call without a callee".into()))
            }
            (Op::Neg | Op::Pos | Op::Invert | Op::Not | Op::Bool, [a]) => ops::unary(op, a),
            (Op::Lt | Op::Le | Op::Eq | Op::Ne | Op::Gt | Op::Ge | Op::Is, [a, b]) => {
                ops::compare(op, a, b, d)
            }
            (Op::Contains, [c, x]) => ops::contains(c, x),
            (Op::GetItem, [o, i]) => ops::getitem(o, i, d),
            (Op::SetItem, [o, i, v]) => ops::setitem(o, i, v.clone(), d),
            // A method bound to its instance has its function's defaults.
            (Op::GetAttr, [ObjValue::Func(f), n]) if is_defaults(n) => Ok(self.defaults_of(f)),
            (Op::GetAttr, [ObjValue::BoundMethod(m), n]) if is_defaults(n) => {
                Ok(self.defaults_of(&m.func))
            }
            (Op::SetAttr, [ObjValue::Func(f), n, v]) if is_defaults(n) => {
                let defaults = match v {
                    ObjValue::Tuple(_) | ObjValue::None => v.clone(),
                    _ => {
                        return Err(Stop::Raise(ops::exc(
                            "TypeError",
                            "__defaults__ must be set to a tuple object".to_string(),
                        )))
                    }
                };
                self.function_defaults
                    .borrow_mut()
                    .insert(f.clone(), defaults);
                Ok(ObjValue::None)
            }
            (Op::GetAttr, [o, n]) => {
                modules::getattr(o, n).unwrap_or_else(|| ops::getattr(o, n, d))
            }
            (Op::SetAttr, [o, n, v]) => {
                modules::setattr(o, n, v).unwrap_or_else(|| ops::setattr(o, n))
            }
            (_, [a, b]) => ops::binary(op, a, b, d),
            _ => {
                return Err(Stop::Internal(format!(
                    "'{}' cannot take {} arguments",
                    op.name(),
                    args.len()
                )))
            }
        };
        Ok(r?)
    }
}

/// How many calls from inside operations (`call_value`) may be running at
/// once: each nests a run on the Rust stack (the test threads have 2 MiB).
const MAX_NESTED_RUNS: usize = 150;

/// CPython's default recursion limit (`sys.getrecursionlimit()`): the module
/// body and the calls under it together may be this many frames deep, so a
/// program recurses at import time exactly as far as under CPython.
pub const CPYTHON_RECURSION_LIMIT: usize = 1_000;

/// Whether an attribute name is a function's `__defaults__`.
fn is_defaults(name: &ObjValue) -> bool {
    matches!(name, ObjValue::Str(s) if s.as_ref() == DEFAULTS_ATTRIBUTE.as_bytes())
}

/// What exception handlers match of a raised exception: the instance, or
/// the class raised alone.
fn raised_object<'v>(etype: &'v ObjValue, evalue: &'v ObjValue) -> &'v ObjValue {
    match evalue {
        ObjValue::Instance(_) => evalue,
        _ => etype,
    }
}

/// Does the exitcase `case` select the switch value `v`? (A bool case
/// matches only a bool, as the builder switches on bool-valued operations.)
fn same_case(case: &ObjValue, v: &ObjValue) -> bool {
    match (case, v) {
        (ObjValue::Bool(a), ObjValue::Bool(b)) => a == b,
        (ObjValue::Bool(_), _) | (_, ObjValue::Bool(_)) => false,
        _ => ops::equal(case, v),
    }
}

/// Whether `v` is Python's `NotImplemented`.
fn is_not_implemented(v: &ObjValue) -> bool {
    matches!(v, ObjValue::Builtin(b) if &**b == "NotImplemented")
}

fn get(env: &[Option<ObjValue>], a: &Operand) -> Result<ObjValue, Stop> {
    match a {
        Operand::LaterClass(c) => Err(Stop::Internal(format!(
            "the class {c} is used before its class statement ran"
        ))),
        Operand::Const(c) => Ok(c.clone()),
        Operand::Unknown(c) => Err(Stop::Internal(format!(
            "the constant {c} has no value in the object interpreter"
        ))),
        Operand::Var(v) => env
            .get(*v)
            .and_then(Clone::clone)
            .ok_or_else(|| Stop::Internal(format!("the variable v{v} is read before it is set"))),
    }
}

#[cfg(test)]
mod tests;

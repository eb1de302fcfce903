//! Compiled loops in executables: the meta-interpreter's traces become
//! machine code (the backend is handed in by the runtime library, since
//! the assembler's crate depends on this one) that runs on the program's
//! own memory, its residual calls going through GenC's wrappers.
//!
//! What compiled code may do is bounded by what it can tell the
//! collector: a trace that allocates (or whose guards rebuild removed
//! objects), and, with a moving collector, one that makes a residual call
//! (which may collect while the code holds GC pointers in registers) or
//! stores a GC pointer (which needs the write barrier), is refused, and
//! that loop stays in the blackhole. Every object a trace names as a
//! constant, in its code or its guards' resume data, is old (the tracer
//! settles the frames first and gives up on a young constant) and kept
//! alive for the rest of the run.

use std::io::Write;

use rpy_passes::llinterp::LlError;

use super::machine::{Embedding, NativeExec};
use super::NativeOp;
use crate::interp::{Heap, Outcome, ResidualCalls, RunValue};
use crate::metainterp::mirror::Flavor;
use crate::metainterp::residual::{ResidualSite, ResidualTarget};
use crate::metainterp::{LoopRun, Loops, RunLoops};
use crate::trace::{Header, Kind, Trace, Value};

/// Machine code for traces (the x86-64 backend).
pub trait NativeBackend {
    fn compile(&self, trace: Trace) -> Result<Box<dyn NativeLoop>, String>;
}

/// A trace compiled to machine code that runs on the program's memory.
pub trait NativeLoop {
    fn trace(&self) -> &Trace;
    /// Runs the code from `inputs` (one per input box, of its kind).
    fn run(&self, inputs: &[RunValue], calls: &mut dyn ResidualCalls) -> Outcome;
}

/// The executable's compiled loops.
pub struct NativeLoops {
    pub backend: Box<dyn NativeBackend>,
    pub embedding: &'static Embedding,
}

impl NativeLoops {
    /// Why compiled code cannot run `trace` yet, if it cannot.
    fn refusal(&self, trace: &Trace) -> Option<String> {
        let moving = self.embedding.gc_moves();
        for op in &trace.ops {
            let name = op.name();
            if name.starts_with("new") || op.resume.is_some() {
                return Some("compiled code does not allocate in executables yet".into());
            }
            if moving && name.starts_with("call") {
                return Some(
                    "compiled code does not give the collector its roots at calls yet".into(),
                );
            }
            let stores_pointer = matches!(name, "setfield_gc" | "setarrayitem_gc")
                && op.args.last().is_some_and(|v| trace.kind(*v) == Kind::Ref);
            if moving && stores_pointer {
                return Some("compiled code has no write barrier yet".into());
            }
        }
        None
    }
}

impl Loops for NativeLoops {
    type Value = u64;
    type Loop = Box<dyn NativeLoop>;

    fn compile(&mut self, trace: Trace) -> Result<Self::Loop, String> {
        if let Some(why) = self.refusal(&trace) {
            return Err(why);
        }
        // (Its constants were kept alive as the tracer made them.)
        self.backend.compile(trace)
    }

    fn trace_of(code: &Self::Loop) -> &Trace {
        code.trace()
    }
}

impl<'a, 'j> RunLoops<'j, NativeExec<'a, 'j>> for NativeLoops {
    fn enter(
        &mut self,
        _: &mut NativeExec<'a, 'j>,
        _: &Header,
        values: &[u64],
    ) -> Result<Vec<RunValue>, String> {
        // (Given their kinds by `run`, from the trace's inputs.)
        Ok(values.iter().map(|w| RunValue::Int(*w as i64)).collect())
    }

    fn run(
        &mut self,
        e: &mut NativeExec<'a, 'j>,
        code: &Self::Loop,
        _: usize,
        args: &[RunValue],
        sites: &[ResidualSite],
        _: Option<&mut String>,
        _: &mut dyn Write,
    ) -> Result<LoopRun<u64>, LlError> {
        let trace = code.trace();
        let inputs: Vec<RunValue> = trace
            .inputs
            .iter()
            .zip(args)
            .map(|(b, v)| RunValue::from_bits(trace.kind(Value::Box(*b)), v.bits()))
            .collect();
        let mut calls = NativeCalls {
            exec: e,
            sites,
            pending: None,
        };
        let outcome = code.run(&inputs, &mut calls);
        Ok((outcome, calls.pending))
    }

    fn leave(&mut self, _: &mut NativeExec<'a, 'j>, _: &Header) -> Result<(), String> {
        Ok(())
    }

    fn value_of_word(
        &mut self,
        _: &mut NativeExec<'a, 'j>,
        _: &Header,
        bits: u64,
        _: Flavor,
    ) -> Result<u64, String> {
        Ok(bits)
    }
}

/// Runs compiled code's residual calls through GenC's wrappers.
struct NativeCalls<'e, 'a, 'j> {
    exec: &'e mut NativeExec<'a, 'j>,
    sites: &'e [ResidualSite],
    /// The exception the last call raised.
    pending: Option<(u64, u64)>,
}

impl ResidualCalls for NativeCalls<'_, '_, '_> {
    fn call(&mut self, _: &mut Heap, index: usize, args: &[u64]) -> Result<u64, String> {
        let site = self
            .sites
            .get(index)
            .ok_or_else(|| format!("no residual call {index}"))?;
        // A void argument keeps its slot in the wrapper's words.
        let mut passed = args.iter();
        let words: Vec<u64> = site
            .args
            .iter()
            .map(|f| match f {
                Some(_) => passed.next().copied().unwrap_or(0),
                None => 0,
            })
            .collect();
        let rt = self.exec.runtime();
        let wrapper = match &site.target {
            ResidualTarget::Graph(g) => rt.graph_wrapper(*g),
            ResidualTarget::Runtime { code, pc } => match rt.program.ops[*code][*pc] {
                Some(NativeOp::Runtime(i)) => Some(rt.runtime_wrapper(i)),
                _ => None,
            },
        }
        .ok_or_else(|| format!("no wrapper for the residual call '{}'", site.name))?;
        // SAFETY: the wrapper is GenC's for this function and takes its
        // arguments as words, in order.
        let result = unsafe { wrapper(words.as_ptr()) };
        self.pending = self.exec.take_exception();
        Ok(result)
    }

    fn exception_pending(&self) -> bool {
        self.pending.is_some()
    }
}

//! Compiled loops in executables: the meta-interpreter's traces become
//! machine code (the backend is handed in by the runtime library, since
//! the assembler's crate depends on this one) that runs on the program's
//! own memory, its residual calls going through GenC's wrappers.
//!
//! Compiled code allocates with the program's allocator; with a moving
//! collector, it pushes the GC pointers it holds on the shadow stack
//! around each call that may collect (an allocation, a residual call) and
//! reads them back after, and stores a GC pointer through the write
//! barrier (`ProgramMemory`); a failing guard rebuilds the objects the
//! optimizer removed with the allocation that never collects. Every
//! object a trace names as a
//! constant, in its code or its guards' resume data, is old (the tracer
//! settles the frames first and gives up on a young constant) and kept
//! alive for the rest of the run.

use std::io::Write;
use std::rc::Rc;

use rpy_llinterp::LlError;

use super::machine::{Embedding, NativeExec};
use super::NativeOp;
use crate::interp::{Heap, Memory, ObjectMemory, Outcome, ResidualCalls, RunValue};
use crate::metainterp::flavor::Flavor;
use crate::metainterp::residual::{ResidualSite, ResidualTarget};
use crate::metainterp::{LinkedExit, LoopRun, Loops, RunLoops};
use crate::replay::RunLog;
use crate::trace::{Header, Kind, Trace, Value};
use rpy_ir::lltype::LowLevelType;

/// Machine code for traces (the x86-64 backend).
pub trait NativeBackend {
    /// Compiles `trace`, compiled trace `id` of the run; with `direct`,
    /// its residual calls go straight to C.
    fn compile(
        &self,
        trace: Trace,
        id: usize,
        memory: ProgramMemory,
        direct: Option<Rc<DirectCalls>>,
    ) -> Result<Box<dyn NativeLoop>, String>;
    /// How many guards failed straight into linked code.
    fn linked_failures(&self) -> u64;
}

/// How machine code allocates in a translated program's memory and keeps
/// its collector right: C functions and addresses of the program.
#[derive(Clone, Copy, Debug)]
pub struct ProgramMemory {
    /// `void *malloc(size_t size, unsigned long tid)`: may collect.
    pub malloc: usize,
    /// `void *malloc_varsize(size_t fixed, size_t items_offset, size_t
    /// item_size, long n, size_t length_offset, unsigned long tid)`: may
    /// collect.
    pub malloc_varsize: usize,
    /// With a moving collector: `&rpy_gc_root_top` (live GC pointers go on
    /// the shadow stack around a call that may collect, and are read back
    /// after), the write barrier `void wb(void *obj)`, and the header flag
    /// that says an object needs it.
    pub moving: Option<MovingCollector>,
}

#[derive(Clone, Copy, Debug)]
pub struct MovingCollector {
    pub root_top: usize,
    pub write_barrier: usize,
    pub young_flag: u64,
}

/// Residual calls that compiled code makes straight into the program's
/// C functions (GenC's wrappers), not through the runtime: by the index
/// the residual descrs name, the wrapper and which of its word slots the
/// trace passes (a void parameter keeps its slot, 0). A call that raises
/// leaves its exception in the program's state, at `exc_type`, where
/// `guard_no_exception` looks; the runtime takes it when that guard fails.
#[derive(Clone, Debug, Default)]
pub struct DirectCalls {
    pub by_site: Vec<Option<DirectCall>>,
    pub exc_type: usize,
}

#[derive(Clone, Debug)]
pub struct DirectCall {
    pub wrapper: usize,
    pub passed: Vec<bool>,
}

/// A trace compiled to machine code that runs on the program's memory.
pub trait NativeLoop {
    fn trace(&self) -> &Trace;
    /// Runs the code from `inputs` (one per input box, of its kind); a
    /// failing guard rebuilds the objects the optimizer removed in
    /// `objects`.
    /// What the run did, and the id of the compiled trace it left from
    /// (another than this one when it went on into linked code).
    fn run(
        &self,
        inputs: &[RunValue],
        calls: &mut dyn ResidualCalls,
        objects: &mut dyn ObjectMemory,
    ) -> (Outcome, usize);
    /// From now on, where this code leaves through `exit`, it goes
    /// straight on into `to`'s, which must come from the same backend.
    fn link(&self, exit: LinkedExit, to: &dyn NativeLoop);
    /// Where linked code goes on into this code (the address of its entry
    /// from another trace's exit).
    fn linked_entry(&self) -> usize;
}

/// The executable's compiled loops.
pub struct NativeLoops {
    pub backend: Box<dyn NativeBackend>,
    pub embedding: &'static Embedding,
    /// The C function a residual call runs, or `None` where compiled code
    /// must call through the runtime (when runs are logged for replay,
    /// which records every call).
    pub direct: Option<WrapperOf>,
}

/// The address of the C function (GenC's wrapper) a residual call runs.
pub type WrapperOf = Box<dyn Fn(&ResidualSite) -> Option<usize>>;

impl NativeLoops {
    fn memory(&self) -> ProgramMemory {
        let e = self.embedding;
        ProgramMemory {
            malloc: e.malloc as usize,
            malloc_varsize: e.malloc_varsize as usize,
            moving: e.gc_moves().then_some(MovingCollector {
                root_top: e.root_top as usize,
                write_barrier: e.write_barrier as usize,
                young_flag: e.young_flag,
            }),
        }
    }
}

impl Loops for NativeLoops {
    type Value = u64;
    type Loop = Box<dyn NativeLoop>;

    fn compile(
        &mut self,
        trace: Trace,
        id: usize,
        sites: &[ResidualSite],
    ) -> Result<Self::Loop, String> {
        let direct = self.direct.as_ref().map(|wrapper_of| {
            Rc::new(DirectCalls {
                by_site: sites
                    .iter()
                    .map(|site| {
                        Some(DirectCall {
                            wrapper: wrapper_of(site)?,
                            passed: site.args.iter().map(Option::is_some).collect(),
                        })
                    })
                    .collect(),
                exc_type: self.embedding.exc_type as usize,
            })
        });
        // (Its constants were kept alive as the tracer made them.)
        self.backend.compile(trace, id, self.memory(), direct)
    }

    fn trace_of(code: &Self::Loop) -> &Trace {
        code.trace()
    }

    fn link(&mut self, from: &Self::Loop, exit: LinkedExit, to: &Self::Loop) {
        from.link(exit, to.as_ref());
    }

    fn linked_failures(&self) -> u64 {
        self.backend.linked_failures()
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
        id: usize,
        args: &[RunValue],
        sites: &[ResidualSite],
        log: Option<&mut String>,
        _: &mut dyn Write,
    ) -> Result<LoopRun<u64>, LlError> {
        let trace = code.trace();
        let mut inputs: Vec<RunValue> = trace
            .inputs
            .iter()
            .zip(args)
            .map(|(b, v)| RunValue::from_bits(trace.kind(Value::Box(*b)), v.bits()))
            .collect();
        // A run logged for replay: its inputs and the objects they reach,
        // written before it changes them. A minor collection first makes
        // every object the program reaches old, so that the addresses the
        // log names stay the objects' until the run has been observed.
        // Every object the log names is kept alive, so that no address it
        // names becomes another object's during the run.
        let mut first_run = match log.is_some() {
            true => {
                settle_inputs(e, &mut inputs)?;
                let run = RunLog::start(trace, &ProgramReader, &inputs);
                if let Ok(run) = &run {
                    run.objects().iter().for_each(|p| e.keep_alive(*p as u64));
                }
                Some(run)
            }
            false => None,
        };
        let mut objects = ProgramObjects(self.embedding);
        let mut calls = NativeCalls {
            exec: e,
            sites,
            pending: None,
            log: first_run.as_mut().and_then(|r| r.as_mut().ok()),
        };
        let (outcome, left) = code.run(&inputs, &mut calls, &mut objects);
        // A call made straight into C left its exception in the program's
        // state.
        let pending = calls.pending.or_else(|| calls.exec.take_exception());
        if let (Some(log), Some(first_run)) = (log, first_run) {
            let header_text = crate::text::print_header(&trace.header);
            log.push_str(&match first_run {
                Ok(run) => run.finish(id, &header_text, &ProgramReader, &inputs, &outcome),
                Err(e) => format!("# run of trace {id} not logged: {e}\n\n"),
            });
        }
        Ok((outcome, pending, left))
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

/// Makes the objects `inputs` reach old (a minor collection with their
/// pointers as roots), the pointers updated.
fn settle_inputs(e: &NativeExec<'_, '_>, inputs: &mut [RunValue]) -> Result<(), LlError> {
    let refs: Vec<usize> = (0..inputs.len())
        .filter(|&k| matches!(inputs[k], RunValue::Ref(p) if p != 0))
        .collect();
    let mut words: Vec<u64> = refs.iter().map(|&k| inputs[k].bits()).collect();
    e.settle_words(&mut words)?;
    for (k, w) in refs.into_iter().zip(words) {
        inputs[k] = RunValue::Ref(w as usize);
    }
    Ok(())
}

/// The program's memory as the log reads it (see [`crate::replay`]): the
/// objects a run's inputs and results reach, by the layouts of the
/// trace's header. Only GC pointers of the program are followed (an
/// object's type is read from its header word), so every read is inside
/// a live object.
struct ProgramReader;

impl Memory for ProgramReader {
    fn read(&self, addr: usize, ty: &LowLevelType) -> Result<u64, String> {
        let (size, align) = ty.size_align();
        if addr == 0 {
            return Err("null pointer dereference".into());
        }
        if !addr.is_multiple_of(align.max(1)) {
            return Err(format!("a misaligned {ty} at 0x{addr:x}"));
        }
        // SAFETY: `addr` is a field, item or header word of a live object
        // of the program (see above), of `ty`'s size.
        unsafe {
            match size {
                0 => Ok(0),
                1 => Ok(*(addr as *const u8) as u64),
                8 => Ok(*(addr as *const u64)),
                n => Err(format!("a {n}-byte {ty} value")),
            }
        }
    }
}

/// A failing guard's removed objects, rebuilt in the program's memory by
/// the allocation that never collects (the guard's saved values hold GC
/// pointers that are nobody's roots meanwhile); the new objects are
/// young, so only a store into an older one needs the write barrier.
struct ProgramObjects(&'static Embedding);

impl ObjectMemory for ProgramObjects {
    fn new_object(&mut self, trace: &Trace, descr: usize) -> Result<usize, String> {
        let (size, _, type_id) = trace.header.descrs[descr]
            .data
            .object()
            .ok_or("not a struct or class")?;
        // SAFETY: the program's allocator, with a type of its own.
        Ok(unsafe { (self.0.malloc_nocollect)(size, type_id) })
    }

    fn new_array(&mut self, trace: &Trace, descr: usize, n: i64) -> Result<usize, String> {
        let a = trace.header.descrs[descr]
            .data
            .array()
            .ok_or("not an array")?;
        // SAFETY: as in `new_object`.
        Ok(unsafe {
            (self.0.malloc_varsize_nocollect)(
                a.items_offset,
                a.items_offset,
                a.item_size,
                n,
                a.length_offset,
                a.type_id,
            )
        })
    }

    fn write(&mut self, addr: usize, ty: &LowLevelType, bits: u64) -> Result<(), String> {
        // SAFETY: the address of a field or item of an object of the
        // program, of `ty` (the resume data's descrs are the trace's).
        unsafe {
            match ty.size_align().0 {
                1 => *(addr as *mut u8) = bits as u8,
                _ => *(addr as *mut u64) = bits,
            }
        }
        Ok(())
    }

    fn write_barrier(&mut self, obj: usize) {
        // SAFETY: the program's write barrier, on an object of its own.
        unsafe { (self.0.write_barrier)(obj) }
    }
}

/// Runs compiled code's residual calls through GenC's wrappers.
struct NativeCalls<'e, 'a, 'j> {
    exec: &'e mut NativeExec<'a, 'j>,
    sites: &'e [ResidualSite],
    /// The exception the last call raised.
    pending: Option<(u64, u64)>,
    /// The run's log, when it is logged for replay: each call's
    /// arguments, its result and what it wrote.
    log: Option<&'e mut RunLog>,
}

impl ResidualCalls for NativeCalls<'_, '_, '_> {
    fn call(&mut self, _: &mut Heap, index: usize, args: &[u64]) -> Result<u64, String> {
        let site = self
            .sites
            .get(index)
            .ok_or_else(|| format!("no residual call {index}"))?;
        // A void argument keeps its slot in the wrapper's words.
        let mut passed = args.iter();
        let words: smallvec::SmallVec<[u64; 8]> = site
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
        // (A run whose log was given up runs on unlogged.)
        let logged_args = self
            .log
            .as_ref()
            .filter(|log| log.logging())
            .map(|log| log.call_args(index, args));
        // SAFETY: the wrapper is GenC's for this function and takes its
        // arguments as words, in order.
        let mut result = unsafe { wrapper(words.as_ptr()) };
        self.pending = self.exec.take_exception();
        if let (Some(log), Some(logged_args)) = (self.log.as_deref_mut(), logged_args) {
            // A minor collection first (the compiled code's pointers are
            // on the shadow stack across the call; the result, or the
            // exception raised, is pushed), so that the objects the log
            // names now are old and stay where they are.
            let is_ref = self.pending.is_none() && log.result_kind(index) == Kind::Ref;
            let mut words = match self.pending {
                Some((etype, evalue)) => vec![etype, evalue],
                None if is_ref => vec![result],
                None => vec![],
            };
            self.exec
                .settle_words(&mut words)
                .map_err(|e| e.message.clone())?;
            match &mut self.pending {
                Some(raised) => *raised = (words[0], words[1]),
                None if is_ref => result = words[0],
                None => {}
            }
            let written = &site.touched(log.header()).written;
            let may_write = |t: &str| written.as_ref().is_none_or(|w| w.contains(t));
            let known = log.objects().len();
            log.call_done(
                &ProgramReader,
                index,
                logged_args,
                result,
                self.pending.is_some(),
                &may_write,
            );
            for p in &log.objects()[known.min(log.objects().len())..] {
                self.exec.keep_alive(*p as u64);
            }
        }
        Ok(result)
    }

    fn exception_pending(&self) -> bool {
        self.pending.is_some()
    }
}

//! The meta-interpreter in the LLInterpreter's world (`rpy interp --jit`):
//! the interpreter's objects are laid out in memory as the C backend lays
//! them out, so a compiled loop runs on that memory itself (a pointer is
//! its address: `flavor`); its residual calls run in the LLInterpreter
//! (`residual`).

use std::io::Write;

use rpy_llinterp::{LlError, LlValue};

use super::flavor::{self, Flavor};
use super::record::TraceExec;
use super::residual::{ResidualSite, Runner};
use super::{LoopBackend, LoopRun, Loops, RunLoops, RunnableLoop};
use crate::blackhole::ll::LlExec;
use crate::blackhole::Frame;
use crate::codewriter::jitcode::Bank;
use crate::interp::{Heap, RunValue};
use crate::trace::{Header, Kind, Trace};
use crate::warmstate::GreenKey;

/// The LLInterpreter's compiled loops: run by `backend` on its memory.
pub struct LlLoops {
    pub backend: std::rc::Rc<dyn LoopBackend>,
}

impl Loops for LlLoops {
    type Value = LlValue;
    type Loop = Box<dyn RunnableLoop>;

    fn compile(
        &mut self,
        trace: Trace,
        _: usize,
        _: &[ResidualSite],
    ) -> Result<Self::Loop, String> {
        self.backend.compile(trace)
    }

    fn trace_of(code: &Self::Loop) -> &Trace {
        code.trace()
    }
}

impl<'j> TraceExec<'j> for LlExec<'_, 'j, '_> {
    fn to_trace(&mut self, _: &Header, v: &LlValue, _: Kind) -> Result<RunValue, String> {
        Ok(flavor::to_run(v))
    }

    fn flavor(&self, v: &LlValue, _: Bank) -> Option<Flavor> {
        Flavor::of_value(v)
    }

    fn object_id(&self, v: &LlValue) -> Option<usize> {
        match v {
            LlValue::Ptr(Some(o)) => Some(o.addr()),
            _ => None,
        }
    }

    fn array_type(&self, _: usize, _: usize, v: &LlValue) -> Result<String, String> {
        match v {
            LlValue::Ptr(Some(_)) => self
                .machine
                .type_name(v)
                .map(str::to_string)
                .ok_or_else(|| "an array operation on a bad pointer".into()),
            _ => Err("an array operation on a null pointer".into()),
        }
    }

    fn graph_name(&self, graph: u32) -> String {
        self.machine.graph_name(graph).to_string()
    }

    fn constant_kind(&self, code: usize, index: u16) -> Kind {
        let jc = &self.blackhole.codes.codes[code];
        jc.constants
            .get(index as usize)
            .map_or(Kind::Int, |(_, t)| Kind::of_lltype(t))
    }

    fn green_key(&self, driver: &str, greens: &[LlValue]) -> GreenKey {
        GreenKey::new(driver, greens)
    }

    fn program_header(&self) -> Header {
        Header::of_program(self.machine.container_types())
    }

    fn may_move(&self, _: &LlValue) -> bool {
        // The interpreter's objects stay where they are.
        false
    }

    fn settle(&mut self, _: &mut [Frame<LlValue>]) -> Result<(), LlError> {
        Ok(())
    }
}

impl<'a, 'j, 'm> RunLoops<'j, LlExec<'a, 'j, 'm>> for LlLoops {
    fn enter(
        &mut self,
        _: &mut LlExec<'a, 'j, 'm>,
        _: &Header,
        values: &[LlValue],
    ) -> Result<Vec<RunValue>, String> {
        Ok(values.iter().map(flavor::to_run).collect())
    }

    fn run(
        &mut self,
        e: &mut LlExec<'a, 'j, 'm>,
        code: &Self::Loop,
        id: usize,
        args: &[RunValue],
        sites: &[ResidualSite],
        log: Option<&mut String>,
        out: &mut dyn Write,
    ) -> Result<LoopRun<LlValue>, LlError> {
        let header = code.trace().header.clone();
        let bh = &mut *e.blackhole;
        let mut heap = Heap::sharing(e.machine.heap());
        // The first run's inputs, written before it changes them.
        let first_run = log
            .as_ref()
            .map(|_| crate::replay::inputs_text(code.trace(), &heap, args));
        let mut runner = Runner {
            machine: e.machine,
            codes: bh.codes,
            bound: &bh.bound,
            out,
            sites,
            pending: None,
            error: None,
        };
        let outcome = code.run(args, &mut heap, &mut runner);
        if let Some(err) = runner.error {
            return Err(err);
        }
        let raised = runner.pending;
        if let (Some(log), Some(inputs)) = (log, first_run) {
            let header_text = crate::text::print_header(&header);
            log.push_str(&crate::replay::run_lines(
                id,
                code.trace(),
                &header_text,
                inputs,
                &heap,
                args,
                &outcome,
            ));
        }
        Ok((outcome, raised, id))
    }

    fn leave(&mut self, _: &mut LlExec<'a, 'j, 'm>, _: &Header) -> Result<(), String> {
        Ok(())
    }

    fn value_of_word(
        &mut self,
        _: &mut LlExec<'a, 'j, 'm>,
        _: &Header,
        bits: u64,
        flavor: Flavor,
    ) -> Result<LlValue, String> {
        Ok(flavor::to_ll(bits, flavor))
    }
}

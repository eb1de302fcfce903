//! Residual calls: a call the tracer does not trace into (a runtime
//! function, a function with a loop, `dont_look_inside`) is recorded as a
//! `call` whose descr names a [`ResidualSite`], and the compiled trace
//! calls back into the LLInterpreter to run it ([`Runner`]).
//!
//! The callee runs on the interpreter's objects, which are the memory the
//! trace runs on: its words are the interpreter's values (`flavor`).
//!
//! An exception the callee raises stays with the runner: the trace's
//! `guard_no_exception` fails and the meta-interpreter raises it in the
//! rebuilt frames, where the call was.

use std::collections::HashSet;
use std::io::Write;

use rpy_ir::lltype::ContainerType;
use rpy_llinterp::{CallOutcome, LlError, LlMachine, LlValue};

use super::flavor::{self, Flavor};
use crate::blackhole::ll::Bound;
use crate::codewriter::jitcode::{Effects, Insn, JitCodes, Operand};
use crate::interp::{Heap, ResidualCalls};
use crate::trace::Header;

/// What a residual call runs.
#[derive(Clone, Debug, PartialEq)]
pub enum ResidualTarget {
    /// A graph of the program.
    Graph(u32),
    /// The runtime function instruction `pc` of jitcode `code` calls (the
    /// trace passes every argument, constants included).
    Runtime { code: usize, pc: usize },
}

/// One residual call of the traces: what it runs, the flavors of its
/// arguments and result, and what it may touch.
#[derive(Clone, Debug)]
pub struct ResidualSite {
    pub target: ResidualTarget,
    pub name: String,
    /// One per argument; `None` for a void one (not passed by the trace).
    pub args: Vec<Option<Flavor>>,
    pub result: Option<Flavor>,
    pub effects: Effects,
    /// The types the call may touch, worked out once (the effects name
    /// fields and arrays; an executable's replay log reads them by type).
    pub touched: std::cell::OnceCell<Touched>,
}

/// The program types whose objects a residual call may read or write,
/// and those it may write; `None` for every type.
#[derive(Clone, Debug)]
pub struct Touched {
    pub read_or_written: Option<HashSet<String>>,
    pub written: Option<HashSet<String>>,
}

impl ResidualSite {
    pub fn new(
        target: ResidualTarget,
        name: String,
        args: Vec<Option<Flavor>>,
        result: Option<Flavor>,
        effects: Effects,
    ) -> ResidualSite {
        ResidualSite {
            target,
            name,
            args,
            result,
            effects,
            touched: std::cell::OnceCell::new(),
        }
    }

    pub(crate) fn touched(&self, header: &Header) -> &Touched {
        self.touched.get_or_init(|| {
            let of = |writes_only: bool| {
                (!self.effects.anything).then(|| {
                    header
                        .types
                        .keys()
                        .filter(|t| self.touches(header, t, writes_only))
                        .cloned()
                        .collect()
                })
            };
            Touched {
                read_or_written: of(false),
                written: of(true),
            }
        })
    }

    /// Whether objects of `type_name` may be read or written by the call
    /// (`writes_only`: written).
    fn touches(&self, header: &Header, type_name: &str, writes_only: bool) -> bool {
        let e = &self.effects;
        let arrays = e.writes_arrays.iter().chain(
            (!writes_only)
                .then_some(&e.reads_arrays)
                .into_iter()
                .flatten(),
        );
        let fields = e.writes_fields.iter().chain(
            (!writes_only)
                .then_some(&e.reads_fields)
                .into_iter()
                .flatten(),
        );
        if arrays.into_iter().any(|a| a == type_name) {
            return true;
        }
        // A field of struct S is a field of every struct that begins with
        // S's fields (a subclass's instance).
        let Some(ContainerType::GcStruct { fields: own, .. }) = header.types.get(type_name) else {
            return false;
        };
        fields.into_iter().any(|f| {
            let strukt = f.rsplit_once('.').map_or(f.as_str(), |(s, _)| s);
            strukt == type_name
                || matches!(header.types.get(strukt),
                    Some(ContainerType::GcStruct { fields, .. }) if own.starts_with(fields))
        })
    }
}

/// Runs the residual calls of compiled traces on the LLInterpreter.
pub struct Runner<'a, 'm> {
    pub machine: &'a LlMachine<'m>,
    pub codes: &'a JitCodes,
    pub bound: &'a [Option<Bound>],
    pub out: &'a mut dyn Write,
    pub sites: &'a [ResidualSite],
    /// The exception the last call raised.
    pub pending: Option<(LlValue, LlValue)>,
    /// An error of the program (not of the trace) a call ran into.
    pub error: Option<LlError>,
}

impl Runner<'_, '_> {
    fn run(&mut self, index: usize, words: &[u64]) -> Result<u64, String> {
        let site = self
            .sites
            .get(index)
            .ok_or_else(|| format!("no residual call {index}"))?;
        let passed = site.args.iter().flatten().count();
        if words.len() != passed {
            return Err(format!(
                "residual call '{}' takes {passed} argument(s), not {}",
                site.name,
                words.len()
            ));
        }
        let mut words = words.iter();
        let mut args = Vec::with_capacity(site.args.len());
        for flavor in &site.args {
            args.push(match (flavor, words.next()) {
                (Some(f), Some(w)) => flavor::to_ll(*w, *f),
                _ => LlValue::Void,
            });
        }
        self.pending = None;
        let outcome = match &site.target {
            ResidualTarget::Graph(g) => self.machine.call(*g, args, self.out),
            ResidualTarget::Runtime { code, pc } => {
                let op = self.bound[*code]
                    .as_ref()
                    .and_then(|b| b.ops[*pc].as_ref())
                    .ok_or_else(|| format!("runtime call '{}' is not bound", site.name))?;
                // The bound operation holds its constants: it takes the
                // registers.
                let Some(Insn::Call { args: operands, .. }) = self.codes.codes[*code].code.get(*pc)
                else {
                    return Err(format!("runtime call '{}' is not a call", site.name));
                };
                let registers: Vec<LlValue> = operands
                    .iter()
                    .zip(args)
                    .filter(|(o, _)| matches!(o, Operand::Reg(_)))
                    .map(|(_, v)| v)
                    .collect();
                // (What the trace holds is not known here: a collection
                // keeps what the interpreter's runs hold.)
                self.machine
                    .run(op, &registers, &Vec::new, self.out)
                    .map(CallOutcome::Returned)
            }
        };
        let result = match outcome {
            Ok(CallOutcome::Returned(v)) => v,
            Ok(CallOutcome::Raised { etype, evalue }) => {
                self.pending = Some((etype, evalue));
                LlValue::Void
            }
            Err(e) => {
                let message = e.message.clone();
                self.error = Some(e);
                return Err(format!("the program failed in '{}': {message}", site.name));
            }
        };
        Ok(flavor::to_run(&result).bits())
    }
}

impl ResidualCalls for Runner<'_, '_> {
    fn call(&mut self, _: &mut Heap, index: usize, args: &[u64]) -> Result<u64, String> {
        self.run(index, args)
    }

    fn exception_pending(&self) -> bool {
        self.pending.is_some()
    }
}

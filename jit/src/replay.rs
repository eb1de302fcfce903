//! Replaying a trace of the JIT log. With `RPY_JITLOG=FILE`, the first run
//! of each compiled trace is logged after the trace: its inputs, every
//! object they and the trace's constants reach (one `#@` line each), which
//! object each `ConstPtr` of the trace is (`#c`), and what the run observed
//! (as [`crate::testgen::observe`] reads a run: the outcome and every
//! object it reaches, named by content; `#|` lines). The log ends with the
//! header of the program's types. `rpy trace --replay N LOG` rebuilds those
//! objects, runs trace N in the reference interpreter and tells whether it
//! observes the same, so a loop the program compiled can be studied,
//! reoptimized and rerun alone.
//!
//! A run is logged only when it can be written down: no residual call (the
//! program's functions are not in the log), objects of the types the text
//! names, and a bounded number of them.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use rpy_ir::lltype::{ContainerType, LowLevelType};

use crate::interp::{self, header_type_id, Heap, Memory, Outcome, ResidualCalls, RunValue};
use crate::testgen::{observe_run, types_by_id, GuardIndex};
use crate::trace::{DescrData, Kind, Trace, Value};

/// The line before the header, at the end of a log.
pub const HEADER_LINE: &str = "# header of the traces above";

/// Objects a logged run may reach; a larger run is not logged.
const MAX_OBJECTS: usize = 10_000;

/// Object lines a logged run may write (its objects, and those written
/// again after residual calls that may write them); residual calls it
/// may make.
const MAX_LINES: usize = 100_000;
const MAX_CALLS: usize = 10_000;

/// A run as the log writes it: each object it reaches gets a label `@K`
/// in order of discovery and a `#@` line (again after a residual call
/// that may have written it); each residual call a `#r` line.
pub struct RunLog {
    /// The trace, with a descr for every program type.
    trace: Trace,
    types: HashMap<u64, usize>,
    labels: HashMap<usize, usize>,
    order: Vec<usize>,
    /// How many of `order` have their first line written.
    written: usize,
    text: String,
    lines: usize,
    calls: usize,
    /// Why the run cannot be logged, once it cannot.
    failed: Option<String>,
}

impl RunLog {
    /// The log of a run of `trace` from `inputs`: its inputs and every
    /// object they and the trace's `ConstPtr`s reach, read from `memory`
    /// before the run changes them.
    pub fn start(
        trace: &Trace,
        memory: &dyn Memory,
        inputs: &[RunValue],
    ) -> Result<RunLog, String> {
        let trace = described(trace)?;
        let mut log = RunLog {
            types: types_by_id(&trace.header),
            trace,
            labels: HashMap::new(),
            order: Vec::new(),
            written: 0,
            text: String::new(),
            lines: 0,
            calls: 0,
            failed: None,
        };
        let values = inputs
            .iter()
            .map(|v| log.value(*v))
            .collect::<Result<Vec<_>, _>>()?;
        let mut constant_lines = String::new();
        for c in constants(&log.trace) {
            let k = log.label(c as usize)?;
            let _ = writeln!(constant_lines, "#c 0x{c:x} = @{k}");
        }
        log.text = format!("{}\n", values.join(" "));
        log.new_objects(memory)?;
        log.text.push_str(&constant_lines);
        Ok(log)
    }

    /// Whether the run is still being logged (not given up: too large,
    /// or an object the header does not name).
    pub fn logging(&self) -> bool {
        self.failed.is_none()
    }

    /// The objects the log names so far (their addresses in the run).
    pub fn objects(&self) -> &[usize] {
        &self.order
    }

    /// The header of the logged trace, with a descr for every program type.
    pub fn header(&self) -> &crate::trace::Header {
        &self.trace.header
    }

    /// The residual call `index` of the trace, by its descr.
    fn residual(&self, index: usize) -> Option<&crate::trace::ResidualCall> {
        self.trace.header.descrs.iter().find_map(|d| match &d.data {
            DescrData::Residual(call) if call.index == index => Some(call),
            _ => None,
        })
    }

    /// The kind of residual call `index`'s result.
    pub fn result_kind(&self, index: usize) -> Kind {
        self.residual(index).map_or(Kind::Void, |c| c.result)
    }

    /// The text of residual call `index`'s arguments, taken before it
    /// runs: an object by its label, `new` for one the run allocated
    /// (not named by the log).
    pub fn call_args(&self, index: usize, args: &[u64]) -> String {
        let kinds = self
            .residual(index)
            .map(|c| c.args.clone())
            .unwrap_or_default();
        args.iter()
            .enumerate()
            .map(|(i, &w)| {
                let kind = kinds.get(i).copied().unwrap_or(Kind::Int);
                match RunValue::from_bits(kind, w) {
                    RunValue::Ref(0) => "null".to_string(),
                    RunValue::Ref(p) => self
                        .labels
                        .get(&p)
                        .map_or_else(|| "new".to_string(), |k| format!("@{k}")),
                    v => v.to_string(),
                }
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Residual call `index`, whose arguments [`RunLog::call_args`] wrote,
    /// returned `result` (or raised): its `#r` line, the objects its result
    /// reaches, and again every object of a type it may write
    /// (`may_write`, by type name) with what that reaches.
    pub fn call_done(
        &mut self,
        memory: &dyn Memory,
        index: usize,
        args: String,
        result: u64,
        raised: bool,
        may_write: &dyn Fn(&str) -> bool,
    ) {
        if self.failed.is_some() {
            return;
        }
        let done = (|| -> Result<(), String> {
            self.calls += 1;
            if self.calls > MAX_CALLS {
                return Err(format!("it makes more than {MAX_CALLS} residual calls"));
            }
            let result = match raised {
                true => "0 raised".to_string(),
                false => self.value(RunValue::from_bits(self.result_kind(index), result))?,
            };
            let _ = writeln!(self.text, "#r {index} {args} -> {result}");
            for k in 0..self.written {
                let p = self.order[k];
                let type_id = header_type_id(memory.read(p, &LowLevelType::Signed)?);
                let name = self
                    .types
                    .get(&type_id)
                    .map(|&d| self.trace.header.descrs[d].name.as_str());
                if name.is_some_and(may_write) {
                    let line = self.object_line(memory, k)?;
                    self.push_line(line)?;
                }
            }
            self.new_objects(memory)
        })();
        if let Err(e) = done {
            self.failed = Some(e);
        }
    }

    /// The log's lines after the trace (see the module's documentation),
    /// or a line saying why the run is not logged; `inputs` are the run's,
    /// `header_text` the header the log ends with.
    pub fn finish(
        self,
        id: usize,
        header_text: &str,
        memory: &dyn Memory,
        inputs: &[RunValue],
        outcome: &Outcome,
    ) -> String {
        let text = match self.failed {
            Some(e) => Err(e),
            None => Ok(self.text),
        };
        run_lines(id, &self.trace, header_text, text, memory, inputs, outcome)
    }

    fn push_line(&mut self, line: String) -> Result<(), String> {
        self.lines += 1;
        if self.lines > MAX_LINES {
            return Err(format!("it writes more than {MAX_LINES} object lines"));
        }
        self.text.push_str(&line);
        self.text.push('\n');
        Ok(())
    }

    /// The lines of the objects labelled since the last call.
    fn new_objects(&mut self, memory: &dyn Memory) -> Result<(), String> {
        while self.written < self.order.len() {
            let line = self.object_line(memory, self.written)?;
            self.push_line(line)?;
            self.written += 1;
        }
        Ok(())
    }

    fn value(&mut self, v: RunValue) -> Result<String, String> {
        Ok(match v {
            RunValue::Int(n) => n.to_string(),
            // `{:?}` keeps every bit and reads back with `parse::<f64>`.
            RunValue::Float(x) => format!("{x:?}"),
            RunValue::Ref(0) => "null".into(),
            RunValue::Ref(p) => format!("@{}", self.label(p)?),
        })
    }

    fn label(&mut self, p: usize) -> Result<usize, String> {
        if let Some(&k) = self.labels.get(&p) {
            return Ok(k);
        }
        if self.order.len() >= MAX_OBJECTS {
            return Err(format!("it reaches more than {MAX_OBJECTS} objects"));
        }
        self.labels.insert(p, self.order.len());
        self.order.push(p);
        Ok(self.order.len() - 1)
    }

    /// The `#@` line of object `k`; the objects it points to get labels.
    fn object_line(&mut self, memory: &dyn Memory, k: usize) -> Result<String, String> {
        let p = self.order[k];
        let type_id = header_type_id(memory.read(p, &LowLevelType::Signed)?);
        let &d = self
            .types
            .get(&type_id)
            .ok_or_else(|| format!("an object has type id {type_id}, not in the header"))?;
        let descr = self.trace.header.descrs[d].clone();
        let mut parts = Vec::new();
        // The fixed fields of a struct that ends in items.
        let mut prefix = String::new();
        let item = |s: &mut Self, ty: &LowLevelType, addr: usize| -> Result<String, String> {
            let kind = Kind::of_lltype(ty);
            let bits = memory.read(addr, ty)?;
            s.value(RunValue::from_bits(kind, bits))
        };
        let (open, close) = match &descr.data {
            DescrData::Size { strukt, .. } | DescrData::Class { strukt, .. } => {
                let Some(ct) = self.trace.header.types.get(strukt).cloned() else {
                    return Err(format!("'{strukt}' is not a struct"));
                };
                let ContainerType::GcStruct { fields, .. } = &ct else {
                    return Err(format!("'{strukt}' is not a struct"));
                };
                let layout = ct.layout();
                // (A Void field holds nothing.)
                for (f, ty) in fields.iter().filter(|(_, ty)| *ty != LowLevelType::Void) {
                    let v = item(self, ty, p + layout.offset_of(f).unwrap_or(0))?;
                    parts.push(format!("{f}={v}"));
                }
                ('(', ')')
            }
            DescrData::Array {
                item: ty,
                length_offset,
                items_offset,
                item_size,
                ..
            } => {
                let mut fields = Vec::new();
                for (f, fty, offset) in fixed_fields(&self.trace.header, type_id) {
                    let v = item(self, &fty, p + offset)?;
                    fields.push(format!("{f}={v}"));
                }
                if !fields.is_empty() {
                    prefix = format!("({})", fields.join(","));
                }
                let len = memory.read(p + length_offset, &LowLevelType::Signed)? as usize;
                if len > 1 << 28 {
                    return Err(format!("an array of length {len}"));
                }
                for i in 0..len {
                    parts.push(match ty {
                        // (A Void item holds nothing: its place is kept.)
                        LowLevelType::Void => "void".to_string(),
                        _ => item(self, ty, p + items_offset + i * item_size)?,
                    });
                }
                ('[', ']')
            }
            _ => return Err(format!("an object is of '{}'", descr.name)),
        };
        Ok(format!(
            "#@ {k} {} {prefix}{open}{}{close}",
            descr.name,
            parts.join(",")
        ))
    }
}

/// The `ConstPtr` addresses a trace names.
fn constants(trace: &Trace) -> Vec<u64> {
    let mut out = Vec::new();
    for op in &trace.ops {
        for v in op.args.iter().chain(op.fail_args.iter().flatten()) {
            if let Value::ConstPtr(p) = v {
                if !out.contains(p) {
                    out.push(*p);
                }
            }
        }
    }
    out
}

/// The lines of a run's inputs and objects, before the run changes them,
/// for a run whose residual calls are not logged (the LLInterpreter's
/// world): a trace with one is refused.
pub fn inputs_text(
    trace: &Trace,
    heap: &dyn Memory,
    inputs: &[RunValue],
) -> Result<String, String> {
    if trace.ops.iter().any(|op| {
        op.descr
            .is_some_and(|d| matches!(trace.header.descrs[d].data, DescrData::Residual(_)))
    }) {
        return Err("it makes residual calls, which run the program's functions".into());
    }
    Ok(RunLog::start(trace, heap, inputs)?.text)
}

/// The log lines after trace `id` for its first run (see the module's
/// documentation), or a line saying why the run is not logged.
/// `header_text` is the header the log ends with; `inputs` what
/// [`inputs_text`] gave before the run.
pub fn run_lines(
    id: usize,
    trace: &Trace,
    header_text: &str,
    inputs: Result<String, String>,
    heap: &dyn Memory,
    args: &[RunValue],
    outcome: &Outcome,
) -> String {
    let logged = inputs.and_then(|inputs| {
        let trace = described(trace)?;
        // What replays is the trace as the log prints it.
        let printed = format!("{header_text}{}", crate::text::print_body(&trace));
        let addresses = constants(&trace).into_iter().map(|c| (c, c)).collect();
        crate::text::parse_with_objects(&printed, &addresses)
            .map_err(|e| format!("it does not read back: {e}"))?;
        let mut out = format!("# run of trace {id}: {inputs}");
        for line in observe_run(&trace, heap, args, outcome, GuardIndex::Shown).lines() {
            let _ = writeln!(out, "#| {line}");
        }
        out.push('\n');
        Ok(out)
    });
    logged.unwrap_or_else(|e| format!("# run of trace {id} not logged: {e}\n\n"))
}

/// `trace` with a descr for every type of its program, so that the run's
/// objects are named the same when it is logged and when it replays.
fn described(trace: &Trace) -> Result<Trace, String> {
    let mut t = trace.clone();
    if t.header.is_program() {
        Arc::make_mut(&mut t.header).describe_program_types()?;
    }
    Ok(t)
}

/// Runs trace `n` of the JIT log `log` on its logged inputs; the run's
/// observation, and whether it is the one the log holds.
pub fn replay(log: &str, n: usize) -> Result<(String, bool), String> {
    let lines: Vec<&str> = log.lines().collect();
    let title = format!("# trace {n}: ");
    let start = lines
        .iter()
        .position(|l| l.starts_with(&title) && l.ends_with(", optimized"))
        .ok_or_else(|| format!("the log has no optimized trace {n}"))?;
    let body: String = lines[start + 1..]
        .iter()
        .take_while(|l| !l.trim().is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    let run_line = format!("# run of trace {n}");
    let run_at = lines
        .iter()
        .position(|l| l.starts_with(&run_line))
        .ok_or_else(|| {
            format!("the log has no run of trace {n} (it was compiled, never entered)")
        })?;
    let values = lines[run_at]
        .strip_prefix(&format!("{run_line}: "))
        .ok_or_else(|| lines[run_at].trim_start_matches("# ").to_string())?;
    let logged: Vec<&str> = lines[run_at + 1..]
        .iter()
        .take_while(|l| l.starts_with('#') && !l.starts_with("# "))
        .copied()
        .collect();
    let run = LoggedRun::read(&logged)?;
    let header_at = lines
        .iter()
        .position(|l| *l == HEADER_LINE)
        .ok_or("the log has no header (it ends before the run did)")?;
    let header: String = lines[header_at + 1..]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();

    // The objects first (the trace's constants are among them), then the
    // trace, its constants read as the rebuilt objects' addresses.
    let mut constants: HashMap<u64, u64> = run.constants.iter().map(|(a, _)| (*a, *a)).collect();
    let text = format!("{header}{body}");
    // Read once for the header's descrs, which the objects need.
    let bare = crate::text::parse_with_objects(&text, &constants)
        .map_err(|e| format!("trace {n}: {e}"))?;
    let bare = described(&bare)?;
    let mut heap = Heap::default();
    let mut addresses = Vec::new();
    apply_objects(&bare, &mut heap, &mut addresses, &run.objects)?;
    for (addr, label) in &run.constants {
        constants.insert(*addr, object_address(&addresses, label)? as u64);
    }
    let trace = crate::text::parse_with_objects(&text, &constants)
        .map_err(|e| format!("trace {n}: {e}"))?;
    let trace = described(&trace)?;
    let args = values
        .split_whitespace()
        .zip(&trace.inputs)
        .map(|(v, b)| read_value(v, trace.boxes[*b].kind, &addresses))
        .collect::<Result<Vec<_>, _>>()?;
    if args.len() != trace.inputs.len() || values.split_whitespace().count() != args.len() {
        return Err(format!(
            "trace {n} takes {} inputs; the log gives {}",
            trace.inputs.len(),
            values.split_whitespace().count()
        ));
    }
    let mut calls = PlayBack {
        trace: &trace,
        by_address: addresses.iter().enumerate().map(|(k, p)| (*p, k)).collect(),
        addresses,
        calls: run.calls,
        next: 0,
        pending: false,
    };
    let outcome = interp::run_with_calls(&trace, &args, &mut heap, REPLAY_LIMIT, &mut calls);
    let mut observed = observe_run(&trace, &heap, &args, &outcome, GuardIndex::Shown);
    let mut same = observed == run.expected;
    if calls.next < calls.calls.len() {
        let _ = writeln!(
            observed,
            "# the replay made {} of the logged run's {} residual calls",
            calls.next,
            calls.calls.len()
        );
        same = false;
    }
    Ok((observed, same))
}

/// Iterations a replay runs at most (the logged run left its loop; a
/// replay that does not is not the same).
const REPLAY_LIMIT: u64 = 10_000_000;

/// An object's line: `#@ K TYPE (field=value,...)` or `#@ K TYPE [items]`.
struct ObjectLine<'l> {
    label: usize,
    name: &'l str,
    body: &'l str,
}

/// A residual call as the run made it: `#r SITE ARGS -> RESULT`, then the
/// objects its result reaches and those it may have written.
struct LoggedCall<'l> {
    site: usize,
    args: Vec<&'l str>,
    result: &'l str,
    raised: bool,
    objects: Vec<ObjectLine<'l>>,
}

/// The `#` lines of a logged run.
struct LoggedRun<'l> {
    objects: Vec<ObjectLine<'l>>,
    constants: Vec<(u64, &'l str)>,
    calls: Vec<LoggedCall<'l>>,
    expected: String,
}

impl<'l> LoggedRun<'l> {
    fn read(lines: &[&'l str]) -> Result<LoggedRun<'l>, String> {
        let mut run = LoggedRun {
            objects: Vec::new(),
            constants: Vec::new(),
            calls: Vec::new(),
            expected: String::new(),
        };
        for l in lines {
            if let Some(rest) = l.strip_prefix("#@ ") {
                let bad = || format!("'{l}' is not '#@ K TYPE (fields)' or '#@ K TYPE [items]'");
                let (label, rest) = rest.split_once(' ').ok_or_else(bad)?;
                let (name, body) = rest.split_once(' ').ok_or_else(bad)?;
                let line = ObjectLine {
                    label: label.parse().map_err(|_| bad())?,
                    name,
                    body,
                };
                parts(body).ok_or_else(bad)?;
                match run.calls.last_mut() {
                    Some(call) => call.objects.push(line),
                    None => run.objects.push(line),
                }
            } else if let Some(c) = l.strip_prefix("#c ") {
                let (addr, label) = c
                    .split_once(" = ")
                    .ok_or("a '#c' line is not ADDRESS = @K")?;
                let addr = u64::from_str_radix(addr.trim_start_matches("0x"), 16)
                    .map_err(|_| format!("'{addr}' is not an address"))?;
                run.constants.push((addr, label));
            } else if let Some(r) = l.strip_prefix("#r ") {
                let bad = || format!("'{l}' is not '#r SITE ARGS -> RESULT'");
                let (call, result) = r.split_once(" -> ").ok_or_else(bad)?;
                let (site, args) = call.split_once(' ').unwrap_or((call, ""));
                let (result, raised) = match result.strip_suffix(" raised") {
                    Some(r) => (r, true),
                    None => (result, false),
                };
                run.calls.push(LoggedCall {
                    site: site.parse().map_err(|_| bad())?,
                    args: args.split(',').filter(|a| !a.is_empty()).collect(),
                    result,
                    raised,
                    objects: Vec::new(),
                });
            } else if let Some(e) = l.strip_prefix("#| ") {
                run.expected.push_str(e);
                run.expected.push('\n');
            } else {
                return Err(format!("'{l}' is not a line of a logged run"));
            }
        }
        Ok(run)
    }
}

/// Allocates the objects of `lines` that are new (each label the next),
/// then fills every one (a label seen before is the object again, as a
/// residual call left it).
fn apply_objects(
    trace: &Trace,
    heap: &mut Heap,
    addresses: &mut Vec<usize>,
    lines: &[ObjectLine],
) -> Result<(), String> {
    for l in lines {
        if l.label == addresses.len() {
            addresses.push(allocate(trace, heap, l.name, l.body)?);
        } else if l.label > addresses.len() {
            return Err(format!(
                "object @{} is logged before @{}",
                l.label,
                addresses.len()
            ));
        }
    }
    for l in lines {
        fill(trace, heap, addresses, l.name, l.body, addresses[l.label])?;
    }
    Ok(())
}

/// A replay's residual calls: each is the logged run's next one, checked
/// to be of the same site with the same arguments, and played back (its
/// objects rebuilt, its result given back, its exception raised).
struct PlayBack<'l, 't> {
    trace: &'t Trace,
    addresses: Vec<usize>,
    by_address: HashMap<usize, usize>,
    calls: Vec<LoggedCall<'l>>,
    next: usize,
    pending: bool,
}

impl ResidualCalls for PlayBack<'_, '_> {
    fn call(&mut self, heap: &mut Heap, site: usize, args: &[u64]) -> Result<u64, String> {
        let n = self.next;
        let logged = self.calls.get(n).ok_or_else(|| {
            format!("residual call {n} (site {site}) is one the logged run did not make")
        })?;
        self.next += 1;
        if logged.site != site {
            return Err(format!(
                "residual call {n} is of site {site}, the logged run's of site {}",
                logged.site
            ));
        }
        let call = self
            .trace
            .header
            .descrs
            .iter()
            .find_map(|d| match &d.data {
                DescrData::Residual(c) if c.index == site => Some(c.clone()),
                _ => None,
            })
            .ok_or_else(|| format!("the header declares no residual call {site}"))?;
        if args.len() != logged.args.len() {
            return Err(format!(
                "residual call {n} (site {site}) has {} arguments, the logged one {}",
                args.len(),
                logged.args.len()
            ));
        }
        for (i, (&w, text)) in args.iter().zip(&logged.args).enumerate() {
            let kind = call.args.get(i).copied().unwrap_or(Kind::Int);
            let got = match RunValue::from_bits(kind, w) {
                RunValue::Ref(0) => "null".to_string(),
                RunValue::Ref(p) => self
                    .by_address
                    .get(&p)
                    .map_or_else(|| "new".to_string(), |k| format!("@{k}")),
                v => v.to_string(),
            };
            let same = match kind {
                Kind::Float => text
                    .parse::<f64>()
                    .is_ok_and(|x| x.to_bits() == w || (x.is_nan() && f64::from_bits(w).is_nan())),
                _ => got == *text,
            };
            if !same {
                return Err(format!(
                    "residual call {n} (site {site}): argument {i} is {got}, the logged run passed {text}"
                ));
            }
        }
        let first_new = self.addresses.len();
        apply_objects(self.trace, heap, &mut self.addresses, &logged.objects)?;
        for k in first_new..self.addresses.len() {
            self.by_address.insert(self.addresses[k], k);
        }
        self.pending = logged.raised;
        if logged.raised || call.result == Kind::Void {
            return Ok(0);
        }
        Ok(read_value(logged.result, call.result, &self.addresses)?.bits())
    }

    fn exception_pending(&self) -> bool {
        self.pending
    }
}

fn object_address(addresses: &[usize], label: &str) -> Result<usize, String> {
    label
        .strip_prefix('@')
        .and_then(|k| k.parse::<usize>().ok())
        .and_then(|k| addresses.get(k).copied())
        .ok_or_else(|| format!("'{label}' names no logged object"))
}

fn read_value(text: &str, kind: Kind, addresses: &[usize]) -> Result<RunValue, String> {
    let bad = || format!("'{text}' is not a value of kind {kind:?}");
    Ok(match kind {
        Kind::Ref if text == "null" => RunValue::Ref(0),
        Kind::Ref => RunValue::Ref(object_address(addresses, text)?),
        Kind::Float => RunValue::Float(text.parse().map_err(|_| bad())?),
        _ => RunValue::Int(text.parse().map_err(|_| bad())?),
    })
}

/// The fields and items of an object line's body: `(f=a,g=b)` (a
/// struct), `[a,b]` (an array) or `(f=a)[b,c]` (a struct ending in items);
/// `None` when it is none of these.
fn parts(body: &str) -> Option<(Vec<&str>, Vec<&str>)> {
    fn split(inner: &str) -> Vec<&str> {
        inner.split(',').filter(|p| !p.is_empty()).collect()
    }
    let (fields, items) = match body.strip_prefix('(') {
        Some(rest) => {
            let (fields, items) = rest.split_once(')')?;
            (split(fields), items)
        }
        None => (Vec::new(), body),
    };
    if items.is_empty() && body.starts_with('(') {
        return Some((fields, Vec::new()));
    }
    let items = items.strip_prefix('[')?.strip_suffix(']')?;
    Some((fields, split(items)))
}

/// The fixed fields of a struct that ends in items (a string's `hash`),
/// by its type id; its `length` is the number of items.
fn fixed_fields(header: &crate::trace::Header, type_id: u64) -> Vec<(String, LowLevelType, usize)> {
    let Some(
        ct @ ContainerType::GcStruct {
            fields,
            var_item: Some(_),
        },
    ) = header
        .program_type_name(type_id)
        .and_then(|n| header.types.get(n))
    else {
        return Vec::new();
    };
    let layout = ct.layout();
    fields
        .iter()
        .filter(|(f, ty)| f != "length" && *ty != LowLevelType::Void)
        .map(|(f, ty)| (f.clone(), ty.clone(), layout.offset_of(f).unwrap_or(0)))
        .collect()
}

fn allocate(trace: &Trace, heap: &mut Heap, name: &str, body: &str) -> Result<usize, String> {
    let d = trace
        .header
        .descr(name)
        .ok_or_else(|| format!("no type '{name}' in the header"))?;
    match &trace.header.descrs[d].data {
        DescrData::Array { .. } => {
            heap.new_array(trace, d, parts(body).unwrap_or_default().1.len() as i64)
        }
        _ => heap.new_object(trace, d),
    }
}

fn fill(
    trace: &Trace,
    heap: &mut Heap,
    addresses: &[usize],
    name: &str,
    body: &str,
    p: usize,
) -> Result<(), String> {
    let d = trace.header.descr(name).ok_or("no type")?;
    match &trace.header.descrs[d].data {
        DescrData::Array {
            item,
            length_offset,
            items_offset,
            item_size,
            type_id,
        } => {
            let (fields, items) = parts(body).unwrap_or_default();
            let fixed = fixed_fields(&trace.header, *type_id);
            for part in fields {
                let (f, v) = part
                    .split_once('=')
                    .ok_or_else(|| format!("'{part}' is not field=value"))?;
                let (_, ty, offset) = fixed
                    .iter()
                    .find(|(name, _, _)| name == f)
                    .ok_or_else(|| format!("'{name}' has no field '{f}'"))?;
                let v = read_value(v, Kind::of_lltype(ty), addresses)?;
                heap.write(p + offset, ty, v.bits())?;
            }
            let length = heap.read(p + length_offset, &LowLevelType::Signed)?;
            if length != items.len() as u64 {
                return Err(format!(
                    "an array of {length} items is logged with {}",
                    items.len()
                ));
            }
            for (i, part) in items.into_iter().enumerate() {
                if *item == LowLevelType::Void {
                    continue;
                }
                let v = read_value(part, Kind::of_lltype(item), addresses)?;
                heap.write(p + items_offset + i * item_size, item, v.bits())?;
            }
        }
        DescrData::Size { strukt, .. } | DescrData::Class { strukt, .. } => {
            let ct = trace
                .header
                .types
                .get(strukt)
                .ok_or_else(|| format!("no type '{strukt}' in the header"))?;
            let layout = ct.layout();
            let (fields, items) = parts(body).unwrap_or_default();
            if !items.is_empty() {
                return Err(format!("'{name}' is a struct, logged with items"));
            }
            for part in fields {
                let (f, v) = part
                    .split_once('=')
                    .ok_or_else(|| format!("'{part}' is not field=value"))?;
                let ty = ct
                    .field_type(f)
                    .ok_or_else(|| format!("'{strukt}' has no field '{f}'"))?;
                let v = read_value(v, Kind::of_lltype(ty), addresses)?;
                heap.write(p + layout.offset_of(f).unwrap_or(0), ty, v.bits())?;
            }
        }
        _ => return Err(format!("'{name}' is not a struct or an array")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log as an executable writes it: a loop that calls into the
    /// program (`res0`, which writes the node) and fails its guard.
    fn log(input: &str, result: &str, written: &str) -> String {
        format!(
            "# trace 0: loop d [], optimized
[i0, p1]
i2 = call_i(i0, p1, descr=res0)
i3 = getfield_gc_i(p1, descr=node.value)
i4 = int_add(i2, i3)
guard_false(i4) [i4]
jump(i0, p1)

# run of trace 0: {input} @0
#@ 0 node (value=7)
#r 0 5,@0 -> {result}
#@ 0 node (value={written})
#| inputs [5, #0]
#| guard 3 failed [11]
#| #0 node(value=8)

{HEADER_LINE}
type node = GcStruct {{ value: Signed }}
residual res0 = 0(i, p) -> i
"
        )
    }

    #[test]
    fn a_logged_run_replays_with_its_calls_played_back() {
        let (observed, same) = replay(&log("5", "3", "8"), 0).unwrap();
        assert!(same, "{observed}");
    }

    #[test]
    fn a_changed_input_result_or_effect_is_not_the_same() {
        // The call's argument differs from the logged one: the run ends
        // in an error at the call.
        let (observed, same) = replay(&log("6", "3", "8"), 0).unwrap();
        assert!(!same);
        assert!(
            observed.contains("argument 0 is 6, the logged run passed 5"),
            "{observed}"
        );
        // The trace adds the call's result to what the call wrote.
        let (observed, same) = replay(&log("5", "4", "8"), 0).unwrap();
        assert!(
            !same && observed.contains("guard 3 failed [12]"),
            "{observed}"
        );
        let (observed, same) = replay(&log("5", "3", "9"), 0).unwrap();
        assert!(
            !same && observed.contains("guard 3 failed [12]"),
            "{observed}"
        );
        // A call the logged run did not make.
        let text = log("5", "3", "8").replace("#r 0 5,@0 -> 3\n#@ 0 node (value=8)\n", "");
        let (observed, same) = replay(&text, 0).unwrap();
        assert!(!same && observed.contains("did not make"), "{observed}");
    }

    #[test]
    fn a_struct_ending_in_items_keeps_its_fixed_fields() {
        let log = format!(
            "# trace 0: loop d [], optimized
[p0]
i1 = getfield_gc_i(p0, descr=s.hash)
guard_false(i1) [i1]
jump(p0)

# run of trace 0: @0
#@ 0 s[] (hash=42)[104,105]
#| inputs [#0]
#| guard 1 failed [42]
#| #0 s[](length=2, 0=104, 1=105)

{HEADER_LINE}
type s = GcStruct {{ hash: Signed, length: Signed, ..Array(Char) }}
"
        );
        let (observed, same) = replay(&log, 0).unwrap();
        assert!(same, "{observed}");
        let (observed, same) = replay(&log.replace("hash=42", "hash=41"), 0).unwrap();
        assert!(!same, "{observed}");
    }

    #[test]
    fn a_malformed_log_is_refused_with_a_message() {
        let good = log("5", "3", "8");
        for (from, to) in [
            ("#r 0 5,@0 -> 3", "#r x"),
            ("#r 0 5,@0 -> 3", "#r 0 5,@0 -> @7"),
            ("#@ 0 node (value=7)", "#@ 0 node (value=7"),
            ("#@ 0 node (value=7)", "#@ 3 node (value=7)"),
            ("#@ 0 node (value=7)", "#@ 0 nod (value=7)"),
            ("#@ 0 node (value=7)", "#@ 0 node (valu=7)"),
            (
                "residual res0 = 0(i, p) -> i",
                "residual res0 = 0(i, q) -> i",
            ),
            ("# run of trace 0: 5 @0", "# run of trace 0: 5"),
            ("# run of trace 0: 5 @0", "# run of trace 0: 5 @9"),
            ("#| inputs", "#? inputs"),
        ] {
            let bad = good.replace(from, to);
            assert_ne!(bad, good);
            match replay(&bad, 0) {
                Err(e) => assert!(!e.is_empty()),
                Ok((observed, same)) => assert!(!same, "{to}: {observed}"),
            }
        }
        for end in 0..good.len() {
            let _ = replay(&good[..end], 0);
        }
    }
}

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

use crate::interp::{self, header_type_id, Heap, Memory, Outcome, RunValue};
use crate::testgen::{observe_run, types_by_id, GuardIndex};
use crate::trace::{DescrData, Kind, Trace, Value};

/// The line before the header, at the end of a log.
pub const HEADER_LINE: &str = "# header of the traces above";

/// Objects a logged run may reach; a larger run is not logged.
const MAX_OBJECTS: usize = 10_000;

/// A run's objects as the log writes them: each reached object gets a
/// label `@K` in order of discovery.
struct Snapshot<'t> {
    trace: &'t Trace,
    heap: &'t dyn Memory,
    types: HashMap<u64, usize>,
    labels: HashMap<usize, usize>,
    order: Vec<usize>,
}

impl Snapshot<'_> {
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
    fn object_line(&mut self, k: usize) -> Result<String, String> {
        let (trace, heap) = (self.trace, self.heap);
        let p = self.order[k];
        let type_id = header_type_id(heap.read(p, &LowLevelType::Signed)?);
        let &d = self
            .types
            .get(&type_id)
            .ok_or_else(|| format!("an object has type id {type_id}, not in the header"))?;
        let descr = &trace.header.descrs[d];
        let mut parts = Vec::new();
        let item = |s: &mut Self, ty: &LowLevelType, addr: usize| -> Result<String, String> {
            let kind = Kind::of_lltype(ty);
            let bits = heap.read(addr, ty)?;
            s.value(RunValue::from_bits(kind, bits))
        };
        let (open, close) = match &descr.data {
            DescrData::Size { strukt, .. } | DescrData::Class { strukt, .. } => {
                let Some(ct @ ContainerType::GcStruct { fields, .. }) =
                    trace.header.types.get(strukt)
                else {
                    return Err(format!("'{strukt}' is not a struct"));
                };
                let layout = ct.layout();
                for (f, ty) in fields {
                    if *ty == LowLevelType::Void {
                        return Err(format!("field '{strukt}.{f}' is of type {ty}"));
                    }
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
                let len = heap.read(p + length_offset, &LowLevelType::Signed)? as usize;
                for i in 0..len {
                    parts.push(item(self, ty, p + items_offset + i * item_size)?);
                }
                ('[', ']')
            }
            _ => return Err(format!("an object is of '{}'", descr.name)),
        };
        Ok(format!(
            "#@ {k} {} {open}{}{close}",
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

/// The lines of a run's inputs and objects, before the run changes them.
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
    let trace = &described(trace)?;
    let mut snap = Snapshot {
        trace,
        heap,
        types: types_by_id(&trace.header),
        labels: HashMap::new(),
        order: Vec::new(),
    };
    let values = inputs
        .iter()
        .map(|v| snap.value(*v))
        .collect::<Result<Vec<_>, _>>()?;
    let mut constant_lines = String::new();
    for c in constants(trace) {
        let k = snap.label(c as usize)?;
        let _ = writeln!(constant_lines, "#c 0x{c:x} = @{k}");
    }
    let mut object_lines = String::new();
    let mut k = 0;
    while k < snap.order.len() {
        let line = snap.object_line(k)?;
        object_lines.push_str(&line);
        object_lines.push('\n');
        k += 1;
    }
    Ok(format!(
        "{}\n{object_lines}{constant_lines}",
        values.join(" ")
    ))
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
        .ok_or_else(|| format!("the log has no run of trace {n}"))?;
    let values = lines[run_at]
        .strip_prefix(&format!("{run_line}: "))
        .ok_or_else(|| lines[run_at].trim_start_matches("# ").to_string())?;
    let logged = &lines[run_at + 1..];
    let prefixed = |prefix: &'static str| {
        logged
            .iter()
            .take_while(|l| l.starts_with('#') && !l.starts_with("# "))
            .filter_map(move |l| l.strip_prefix(prefix))
    };
    let expected: String = prefixed("#| ").map(|l| format!("{l}\n")).collect();
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
    let mut constants = HashMap::new();
    let mut constant_labels = Vec::new();
    for c in prefixed("#c ") {
        let (addr, label) = c
            .split_once(" = ")
            .ok_or("a '#c' line is not ADDRESS = @K")?;
        let addr = u64::from_str_radix(addr.trim_start_matches("0x"), 16)
            .map_err(|_| format!("'{addr}' is not an address"))?;
        constants.insert(addr, addr);
        constant_labels.push((addr, label));
    }
    let text = format!("{header}{body}");
    // Read once for the header's descrs, which the objects need.
    let bare = crate::text::parse_with_objects(&text, &constants)
        .map_err(|e| format!("trace {n}: {e}"))?;
    let bare = described(&bare)?;
    let mut heap = Heap::default();
    let objects: Vec<(&str, &str)> = prefixed("#@ ")
        .map(|l| l.split_once(' ').map(|(_, rest)| rest).unwrap_or(""))
        .map(|rest| rest.split_once(' ').unwrap_or((rest, "")))
        .collect();
    let mut addresses = Vec::new();
    for (name, body) in &objects {
        addresses.push(allocate(&bare, &mut heap, name, body)?);
    }
    for ((name, body), &p) in objects.iter().zip(&addresses) {
        fill(&bare, &mut heap, &addresses, name, body, p)?;
    }
    for (addr, label) in constant_labels {
        constants.insert(addr, object_address(&addresses, label)? as u64);
    }
    let trace = crate::text::parse_with_objects(&text, &constants)
        .map_err(|e| format!("trace {n}: {e}"))?;
    let trace = described(&trace)?;
    let args = values
        .split_whitespace()
        .zip(&trace.inputs)
        .map(|(v, b)| read_value(v, trace.boxes[*b].kind, &addresses))
        .collect::<Result<Vec<_>, _>>()?;
    if args.len() != trace.inputs.len() {
        return Err(format!(
            "trace {n} takes {} inputs; the log gives {}",
            trace.inputs.len(),
            args.len()
        ));
    }
    let outcome = interp::run(&trace, &args, &mut heap, u64::MAX);
    let observed = observe_run(&trace, &heap, &args, &outcome, GuardIndex::Shown);
    let same = observed == expected;
    Ok((observed, same))
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

/// The parts of an object line's body `(a,b)` or `[a,b]`.
fn parts(body: &str) -> Vec<&str> {
    let inner = &body[1.min(body.len())..body.len().saturating_sub(1)];
    inner.split(',').filter(|p| !p.is_empty()).collect()
}

fn allocate(trace: &Trace, heap: &mut Heap, name: &str, body: &str) -> Result<usize, String> {
    let d = trace
        .header
        .descr(name)
        .ok_or_else(|| format!("no type '{name}' in the header"))?;
    match &trace.header.descrs[d].data {
        DescrData::Array { .. } => heap.new_array(trace, d, parts(body).len() as i64),
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
            items_offset,
            item_size,
            ..
        } => {
            for (i, part) in parts(body).into_iter().enumerate() {
                let v = read_value(part, Kind::of_lltype(item), addresses)?;
                heap.write(p + items_offset + i * item_size, item, v.bits())?;
            }
        }
        DescrData::Size { strukt, .. } | DescrData::Class { strukt, .. } => {
            let ct = &trace.header.types[strukt];
            let layout = ct.layout();
            for part in parts(body) {
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

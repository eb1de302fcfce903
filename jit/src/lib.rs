//! rpy's tracing JIT, back half: the trace IR and its text form
//! ([`trace`], [`text`]), a reference interpreter on real memory
//! ([`interp`]), native functions calls may name ([`calls`]), and the trace
//! optimizer ([`optimize`]). See `jit/README.md`.

pub mod blackhole;
pub mod calls;
pub mod codewriter;
pub mod interp;
pub mod metainterp;
pub mod native;
pub mod optimize;
pub mod replay;
pub mod testgen;
pub mod text;
pub mod trace;
pub mod warmstate;

use interp::{Heap, Outcome, RunValue};
use trace::{DescrData, Kind, Trace};

/// How many loop iterations `rpy trace --run` allows.
pub const RUN_LIMIT: u64 = 100_000;

/// Reads a trace file and optimizes it with `passes` (colon-separated;
/// `default` is every implemented optimization; `None`: no optimization).
/// Errors are `file:line:col: message`.
pub fn load_trace(file: &str, passes: Option<&str>) -> Result<Trace, String> {
    let src = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let trace = text::parse(&src).map_err(|e| format!("{file}:{e}"))?;
    match passes {
        None => Ok(trace),
        Some("default") => optimize::optimize(&trace, optimize::IMPLEMENTED_PASSES),
        Some(p) => optimize::optimize(&trace, p),
    }
}

/// The trace's input values, read from command-line arguments (see
/// `parse_run_value`), with objects and arrays allocated in `heap`.
pub fn run_values(
    trace: &Trace,
    heap: &mut Heap,
    args: &[String],
) -> Result<Vec<RunValue>, String> {
    if args.len() != trace.inputs.len() {
        return Err(format!(
            "the trace takes {} input(s), {} given",
            trace.inputs.len(),
            args.len()
        ));
    }
    args.iter()
        .zip(&trace.inputs)
        .map(|(a, b)| parse_run_value(trace, heap, a, trace.boxes[*b].kind))
        .collect()
}

/// What `rpy trace FILE [--passes LIST] [--run ARGS]` does without a machine
/// code backend: prints the (optimized) trace and, with `run_args`, the
/// outcome of running it in the reference interpreter.
pub fn run_trace_command(
    file: &str,
    passes: Option<&str>,
    run_args: Option<Vec<String>>,
) -> Result<String, String> {
    let trace = load_trace(file, passes)?;
    let mut out = text::print(&trace);
    if let Some(args) = run_args {
        let mut heap = Heap::default();
        let values = run_values(&trace, &mut heap, &args)?;
        let outcome = interp::run(&trace, &values, &mut heap, RUN_LIMIT);
        out.push_str(&outcome_text(&trace, &outcome));
        out.push('\n');
    }
    Ok(out)
}

/// One line saying how a run ended.
pub fn outcome_text(trace: &Trace, o: &Outcome) -> String {
    let list = |v: &[RunValue]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match o {
        Outcome::Finished(v) => format!("finished: [{}]", list(v)),
        Outcome::GuardFailed { guard, values } => format!(
            "guard failed: op {guard} `{}`: [{}]",
            text::op_text(trace, &trace.ops[*guard]),
            list(values)
        ),
        Outcome::LoopLimit { values } => {
            format!("loop limit ({RUN_LIMIT} iterations): [{}]", list(values))
        }
        Outcome::Error(e) => format!("error: {e}"),
    }
}

/// Reads a run argument: an integer, a float, `null`, an object
/// `name(field=value,...)` of a struct or class of the header, or an array
/// `name[v,...]` of an array type of the header (values nest).
pub fn parse_run_value(
    trace: &Trace,
    heap: &mut Heap,
    text: &str,
    kind: Kind,
) -> Result<RunValue, String> {
    let t = text.trim();
    match kind {
        Kind::Int => t
            .parse::<i64>()
            .map(RunValue::Int)
            .map_err(|_| format!("'{t}' is not an integer")),
        Kind::Float => t
            .parse::<f64>()
            .map(RunValue::Float)
            .map_err(|_| format!("'{t}' is not a float")),
        Kind::Void => Err("no value".into()),
        Kind::Ref => {
            if t == "null" {
                return Ok(RunValue::Ref(0));
            }
            let open = t
                .find(['(', '['])
                .ok_or_else(|| format!("'{t}' is not null, name(...) or name[...]"))?;
            let name = &t[..open];
            let close = if t.as_bytes()[open] == b'(' { ')' } else { ']' };
            let body = t[open + 1..]
                .strip_suffix(close)
                .ok_or_else(|| format!("'{t}' lacks a closing '{close}'"))?;
            let d = trace
                .header
                .descr(name)
                .ok_or_else(|| format!("no type '{name}' in the header"))?;
            let parts = split_top(body);
            match &trace.header.descrs[d].data {
                DescrData::Size { strukt, .. } | DescrData::Class { strukt, .. } if close == ')' => {
                    let p = heap.new_object(trace, d)?;
                    let ct = &trace.header.types[strukt];
                    let layout = ct.layout();
                    for part in parts {
                        let (f, v) = part
                            .split_once('=')
                            .ok_or_else(|| format!("'{part}' should be field=value"))?;
                        let f = f.trim();
                        let ty = ct
                            .field_type(f)
                            .ok_or_else(|| format!("'{strukt}' has no field '{f}'"))?
                            .clone();
                        let v = parse_run_value(trace, heap, v, Kind::of_lltype(&ty))?;
                        let off = layout.offset_of(f).unwrap_or(0);
                        heap.write(p + off, &ty, v.bits())?;
                    }
                    Ok(RunValue::Ref(p))
                }
                DescrData::Array {
                    item,
                    items_offset,
                    item_size,
                    ..
                } if close == ']' => {
                    let (item, items_offset, item_size) = (item.clone(), *items_offset, *item_size);
                    let p = heap.new_array(trace, d, parts.len() as i64)?;
                    for (i, part) in parts.iter().enumerate() {
                        let v = parse_run_value(trace, heap, part, Kind::of_lltype(&item))?;
                        heap.write(p + items_offset + i * item_size, &item, v.bits())?;
                    }
                    Ok(RunValue::Ref(p))
                }
                _ => Err(format!("'{name}' is not a struct, class or array of the header (objects are name(...), arrays name[...])")),
            }
        }
    }
}

/// Splits on commas outside brackets.
fn split_top(s: &str) -> Vec<&str> {
    split_outside_brackets(s, |c| c == ',')
}

/// Splits the arguments of a run (`--run ARGS` given as one string, or a
/// corpus case's `# run:` line) on white space outside brackets, so objects
/// may be written `node(value=1, next=null)`.
pub fn split_run_args(s: &str) -> Vec<String> {
    split_outside_brackets(s, char::is_whitespace)
        .into_iter()
        .filter(|p| !p.is_empty())
        .map(String::from)
        .collect()
}

/// The trimmed parts of `s` between separators that are outside `(...)` and
/// `[...]`; a trailing empty part is dropped.
fn split_outside_brackets(s: &str, is_separator: impl Fn(char) -> bool) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            c if depth == 0 && is_separator(c) => {
                parts.push(s[start..i].trim());
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        parts.push(s[start..].trim());
    }
    parts
}

//! The interpreter loop: frames on an explicit stack, one operation at a time.

use super::code::{CGraph, CLink, Cmp, Code, Exit, FieldRef, FloatBin, Op, OpKind, Operand, Types};
use super::machine::{CallHook, CallOutcome, LlMachine};
use super::runtime::{self, Rt};
use super::{LlError, LlErrorKind, LlValue, ObjRef};
use rpy_ir::llops;
use rpy_ir::lltype::{self, LowLevelType};
use rpy_ir::opcode::Opcode;
use std::io::Write;

/// Why an operation failed: an RPython-level fatal error (the full stderr
/// text) or an internal one (a malformed program).
pub(crate) enum Fail {
    Fatal(String),
    Internal(String),
    /// An exception left the outermost frame of a run that returns its
    /// exceptions to the caller (`Escape::ToCaller`): (class, instance).
    Escaped(LlValue, LlValue),
    /// A call a `CallHook` ran failed; its error is already complete.
    Hooked(LlError),
}

/// What a run does with an exception its outermost frame does not catch.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Escape {
    /// The executable's fatal error, as when the entry point raises.
    Fatal,
    /// Handed back to the caller, which runs beside the interpreter and
    /// may catch it (the JIT's blackhole interpreter calling a graph).
    ToCaller,
}

/// How a run is set up besides its graph and arguments.
pub(crate) struct RunOptions<'h> {
    pub max_depth: usize,
    pub escape: Escape,
    /// Runs the calls of the graphs it takes instead of the interpreter.
    pub hook: Option<&'h mut dyn CallHook>,
}

struct Frame {
    graph: u32,
    block: u32,
    /// The next operation of `block` to run; while a call is in progress, the
    /// call itself (its result slot receives the callee's return value).
    pc: u32,
    slots: Vec<LlValue>,
}

/// At most this many emptied slot vectors are kept for reuse.
const POOL_LIMIT: usize = 256;

pub(crate) fn run(
    code: &Code,
    graph: u32,
    args: Vec<LlValue>,
    out: &mut dyn Write,
    options: RunOptions<'_>,
) -> Result<CallOutcome, LlError> {
    let g = &code.graphs[graph as usize];
    let internal = |message: String| LlError {
        message,
        graph: g.name.clone(),
        kind: LlErrorKind::Internal,
        traceback: vec![g.name.clone()],
        op: None,
        pos: None,
    };
    if let Some(e) = code.static_errors.first() {
        return Err(internal(e.clone()));
    }
    if args.len() != g.params().len() {
        return Err(internal(format!(
            "'{}' takes {} arguments, got {}",
            g.name,
            g.params().len(),
            args.len()
        )));
    }
    let mut slots = vec![LlValue::Void; g.nslots];
    for (v, p) in args.into_iter().zip(g.params()) {
        slots[*p as usize] = v;
    }
    let mut frames = vec![Frame {
        graph,
        block: g.start,
        pc: 0,
        slots,
    }];
    let result = execute(code, &mut frames, out, options);
    let fail = match result {
        Ok(v) => return Ok(CallOutcome::Returned(v)),
        Err(Fail::Escaped(etype, evalue)) => return Ok(CallOutcome::Raised { etype, evalue }),
        Err(Fail::Hooked(e)) => return Err(e),
        Err(fail) => fail,
    };
    Err({
        let traceback: Vec<String> = frames
            .iter()
            .map(|f| code.graphs[f.graph as usize].name.clone())
            .collect();
        // Where it stopped: an operation, or the exit of a block.
        let (op, pos, place) = frames.last().map_or((None, None, String::new()), |f| {
            let block = &code.graphs[f.graph as usize].blocks[f.block as usize];
            match block.ops.get(f.pc as usize) {
                Some(op) => (
                    Some(op.opname.name().to_string()),
                    op.pos.filter(|p| p.line > 0),
                    format!(" (block {}, operation {})", f.block, op.opname),
                ),
                None => (None, None, format!(" (block {}, exit)", f.block)),
            }
        });
        let (kind, message) = match fail {
            Fail::Fatal(m) => (LlErrorKind::Fatal, m),
            Fail::Internal(m) => (LlErrorKind::Internal, m + &place),
            Fail::Escaped(..) | Fail::Hooked(_) => unreachable!("returned above"),
        };
        LlError {
            message,
            graph: traceback.last().cloned().unwrap_or_default(),
            kind,
            traceback,
            op,
            pos,
        }
    })
}

#[inline]
fn get<'a>(slots: &'a [LlValue], a: &'a Operand) -> &'a LlValue {
    match a {
        Operand::Slot(i) => &slots[*i as usize],
        Operand::Const(v) => v,
    }
}

/// The pending exception of a transformed program: (class, instance).
type Pending = Option<(LlValue, LlValue)>;

fn execute(
    code: &Code,
    frames: &mut Vec<Frame>,
    out: &mut dyn Write,
    mut options: RunOptions<'_>,
) -> Result<LlValue, Fail> {
    let max_depth = options.max_depth;
    let escape = options.escape;
    let mut pool: Vec<Vec<LlValue>> = Vec::new();
    let mut scratch: Vec<LlValue> = Vec::new();
    let mut pending: Pending = None;
    loop {
        let depth = frames.len();
        let frame = frames.last_mut().expect("a frame");
        let g = &code.graphs[frame.graph as usize];
        let block = &g.blocks[frame.block as usize];
        let mut call = None;
        let mut collected = false;
        while let Some(op) = block.ops.get(frame.pc as usize) {
            match op.kind {
                OpKind::Call(callee) => {
                    call = Some((callee, &op.args[..]));
                    break;
                }
                OpKind::IndirectCall => {
                    let callee = match get(&frame.slots, &op.args[0]) {
                        LlValue::Func(Some(callee)) => *callee,
                        LlValue::Func(None) => {
                            return Err(Fail::Internal(
                                "a call through a null function pointer".into(),
                            ))
                        }
                        other => return Err(mismatch(op, "a function pointer", other)),
                    };
                    call = Some((callee, &op.args[1..]));
                    break;
                }
                _ => {}
            }
            let v = exec_op(op, &frame.slots, &code.types, &mut pending, out)?;
            frame.slots[op.result as usize] = v;
            frame.pc += 1;
            if is_gc_collect(op) {
                collected = true;
                break;
            }
        }
        if collected {
            let roots = frame_roots(&code.types, frames, &pending);
            run_finalizers(code, roots, out, max_depth)?;
            continue;
        }
        if let Some((callee, args)) = call {
            if depth >= max_depth {
                return Err(Fail::Fatal(
                    "fatal RPython error: RecursionError: maximum recursion depth exceeded".into(),
                ));
            }
            if let Some(hook) = options.hook.as_deref_mut().filter(|h| h.takes(callee)) {
                let values = args.iter().map(|a| get(&frame.slots, a).clone()).collect();
                let machine = LlMachine::new(code, max_depth);
                // The hook's run may collect: this run's values stay alive.
                let roots = frame_roots(&code.types, frames, &pending);
                code.types.outer_roots.borrow_mut().push(roots);
                let called = hook.call(&machine, callee, values, out);
                code.types.outer_roots.borrow_mut().pop();
                match called.map_err(Fail::Hooked)? {
                    CallOutcome::Returned(v) => {
                        let frame = frames.last_mut().expect("a frame");
                        let op = &block.ops[frame.pc as usize];
                        frame.slots[op.result as usize] = v;
                        frame.pc += 1;
                    }
                    CallOutcome::Raised { etype, evalue } => {
                        // As if the callee's frame raised: `raise` starts
                        // by popping it.
                        frames.push(Frame {
                            graph: callee,
                            block: code.graphs[callee as usize].start,
                            pc: 0,
                            slots: Vec::new(),
                        });
                        raise(code, frames, &mut pool, &mut scratch, etype, evalue, escape)?;
                    }
                }
                continue;
            }
            let cg = &code.graphs[callee as usize];
            if args.len() != cg.params().len() {
                return Err(Fail::Internal(format!(
                    "'{}' takes {} arguments, the call passes {}",
                    cg.name,
                    cg.params().len(),
                    args.len()
                )));
            }
            let mut slots = pool.pop().unwrap_or_default();
            slots.resize(cg.nslots, LlValue::Void);
            for (a, p) in args.iter().zip(cg.params()) {
                slots[*p as usize] = get(&frame.slots, a).clone();
            }
            frames.push(Frame {
                graph: callee,
                block: cg.start,
                pc: 0,
                slots,
            });
            continue;
        }
        let link = match &block.exit {
            Exit::Goto(l) => l,
            Exit::Catch { normal, .. } => normal,
            Exit::Switch { on, cases, default } => {
                let key = switch_key(get(&frame.slots, on))?;
                match cases.iter().find(|(k, _)| *k == key) {
                    Some((_, l)) => l,
                    None => default.as_ref().ok_or_else(|| {
                        Fail::Internal(format!(
                            "no exit of a block in {} matches the value {key}",
                            g.name
                        ))
                    })?,
                }
            }
            Exit::Return(slot) => {
                if let (1, Some((etype, evalue))) = (depth, &pending) {
                    // The entry point's frame stays, for the error's traceback.
                    return Err(uncaught(etype, evalue, &code.types));
                }
                let v = std::mem::replace(&mut frame.slots[*slot as usize], LlValue::Void);
                recycle(frames, &mut pool);
                match frames.last_mut() {
                    None => return Ok(v),
                    Some(caller) => {
                        let cg = &code.graphs[caller.graph as usize];
                        let op = &cg.blocks[caller.block as usize].ops[caller.pc as usize];
                        caller.slots[op.result as usize] = v;
                        caller.pc += 1;
                    }
                }
                continue;
            }
            Exit::Raise => {
                return Err(Fail::Internal(
                    "an except block was entered other than by a link".into(),
                ))
            }
            Exit::Error(m) => return Err(Fail::Internal(m.clone())),
        };
        if link.raises {
            let etype = get(&frame.slots, &link.args[0]).clone();
            let evalue = get(&frame.slots, &link.args[1]).clone();
            raise(code, frames, &mut pool, &mut scratch, etype, evalue, escape)?;
            continue;
        }
        follow(frame, g, link, &mut scratch);
    }
}

/// Whether `op` is `gc.collect()`, after which the finalizers run.
pub(crate) fn is_gc_collect(op: &Op) -> bool {
    matches!(op.kind, OpKind::Builtin(Rt::Posix(llops::GC_COLLECT_NOW)))
}

/// What `gc.collect()` does besides nothing (the objects are never
/// freed while the interpreter lives): the objects with a `__del__` that no
/// root reaches (`roots`, the runs waiting in `Types::outer_roots`, the
/// statics) are dead, and each one's `__del__` runs, once, in a run of its
/// own, as the executable's collector runs them after a collection; what
/// one raises is dropped. A dead object that another dead one with a
/// `__del__` reaches waits for the next round (as under reference
/// counting, where it dies only when the other is gone), so a cycle of
/// such objects is never found dead.
pub(crate) fn run_finalizers(
    code: &Code,
    roots: Vec<LlValue>,
    out: &mut dyn Write,
    max_depth: usize,
) -> Result<(), Fail> {
    let types = &code.types;
    if types.finalizable.borrow().is_empty() {
        return Ok(());
    }
    types.outer_roots.borrow_mut().push(roots);
    let result = finalize_dead(code, out, max_depth);
    types.outer_roots.borrow_mut().pop();
    result
}

fn finalize_dead(code: &Code, out: &mut dyn Write, max_depth: usize) -> Result<(), Fail> {
    let types = &code.types;
    loop {
        let dead: Vec<ObjRef> = {
            let live = {
                let outer = types.outer_roots.borrow();
                let roots = code.statics.iter().flatten().copied().chain(
                    outer.iter().flatten().filter_map(|v| match v {
                        LlValue::Ptr(p) => *p,
                        _ => None,
                    }),
                );
                types.mark(roots)
            };
            let list = std::mem::take(&mut *types.finalizable.borrow_mut());
            let (unreached, alive): (Vec<ObjRef>, Vec<ObjRef>) =
                list.into_iter().partition(|o| !live.contains(&o.addr()));
            // What the unreached reach, themselves not counted.
            let mut children = Vec::new();
            for o in &unreached {
                types.children(*o, &mut children);
            }
            let held = types.mark(children);
            let (waiting, dead): (Vec<ObjRef>, Vec<ObjRef>) = unreached
                .into_iter()
                .partition(|o| held.contains(&o.addr()));
            let mut list = types.finalizable.borrow_mut();
            list.extend(alive);
            list.extend(waiting);
            dead
        };
        if dead.is_empty() {
            return Ok(());
        }
        for obj in dead {
            let Ok(ty) = types.type_of(obj) else {
                continue;
            };
            let Some(graph) = types.destructor[ty as usize] else {
                continue;
            };
            let g = &code.graphs[graph as usize];
            let mut slots = vec![LlValue::Void; g.nslots];
            if let Some(&this) = g.params().first() {
                slots[this as usize] = LlValue::Ptr(Some(obj));
            }
            let mut frames = vec![Frame {
                graph,
                block: g.start,
                pc: 0,
                slots,
            }];
            let options = RunOptions {
                max_depth,
                escape: Escape::ToCaller,
                hook: None,
            };
            match execute(code, &mut frames, out, options) {
                Ok(_) | Err(Fail::Escaped(..)) => {}
                Err(fail) => return Err(fail),
            }
        }
    }
}

/// The values of `frames` and of the pending exception: what a nested run
/// must not find dead.
fn frame_roots(types: &Types, frames: &[Frame], pending: &Pending) -> Vec<LlValue> {
    if !types.has_destructors {
        return Vec::new();
    }
    let mut roots: Vec<LlValue> = frames
        .iter()
        .flat_map(|f| &f.slots)
        .filter(|v| matches!(v, LlValue::Ptr(Some(_))))
        .cloned()
        .collect();
    if let Some((t, v)) = pending {
        roots.extend([t.clone(), v.clone()]);
    }
    roots
}

/// The executable's stderr line when its memory runs out.
const MEMORY_ERROR: &str = "fatal RPython error: MemoryError";

/// How many bytes may be allocated between two reads of the resident
/// memory: a read is a file read, too slow for every allocation.
const CHECK_AFTER_BYTES: u64 = 16 << 20;

/// A new object of type `ty` with `n` items, within the heap's bound
/// (`Types::heap_limit`): an allocation larger than the bound is refused
/// before it is made, and the process's resident memory is read every
/// `CHECK_AFTER_BYTES` allocated, which catches a program that grows a
/// little at a time. Either is the executable's fatal MemoryError.
fn allocate(types: &Types, ty: u32, n: u64) -> Result<ObjRef, Fail> {
    let bytes = types
        .size_of(ty, n)
        .filter(|&b| b <= types.heap_limit)
        .ok_or_else(|| Fail::Fatal(MEMORY_ERROR.into()))?;
    let since = types.allocated.get() + bytes;
    if since >= CHECK_AFTER_BYTES {
        types.allocated.set(0);
        if crate::heap_limit::resident_bytes().is_some_and(|used| used > types.heap_limit) {
            return Err(Fail::Fatal(MEMORY_ERROR.into()));
        }
    } else {
        types.allocated.set(since);
    }
    types.allocations.set(types.allocations.get() + 1);
    types
        .malloc(ty, n as usize)
        .ok_or_else(|| Fail::Fatal(MEMORY_ERROR.into()))
}

/// Pops the top frame, keeping its slot vector for reuse.
fn recycle(frames: &mut Vec<Frame>, pool: &mut Vec<Vec<LlValue>>) {
    let mut done = frames.pop().expect("a frame").slots;
    if pool.len() < POOL_LIMIT {
        done.clear();
        pool.push(done);
    }
}

/// Takes `link` from the frame's block: binds the target's input
/// arguments (in parallel: every argument is read before any is bound).
fn follow(frame: &mut Frame, g: &CGraph, link: &CLink, scratch: &mut Vec<LlValue>) {
    scratch.clear();
    scratch.extend(link.args.iter().map(|a| get(&frame.slots, a).clone()));
    let target = &g.blocks[link.target as usize];
    for (v, ia) in scratch.drain(..).zip(&target.inputargs) {
        frame.slots[*ia as usize] = v;
    }
    frame.block = link.target;
    frame.pc = 0;
}

/// The top frame raises (etype, evalue): frames are popped until one whose
/// call is guarded by a handler matching the class, which then runs; an
/// exception that leaves the outermost frame is the fatal uncaught error.
fn raise(
    code: &Code,
    frames: &mut Vec<Frame>,
    pool: &mut Vec<Vec<LlValue>>,
    scratch: &mut Vec<LlValue>,
    mut etype: LlValue,
    mut evalue: LlValue,
    escape: Escape,
) -> Result<(), Fail> {
    let mut id = class_id(&etype, &code.types)?;
    loop {
        if frames.len() == 1 && escape == Escape::ToCaller {
            return Err(Fail::Escaped(etype, evalue));
        }
        if frames.len() == 1 {
            // The entry point's frame stays, for the error's traceback.
            return Err(uncaught(&etype, &evalue, &code.types));
        }
        recycle(frames, pool);
        let caller = frames.last_mut().expect("a calling frame");
        let g = &code.graphs[caller.graph as usize];
        let block = &g.blocks[caller.block as usize];
        let Exit::Catch { handlers, .. } = &block.exit else {
            continue;
        };
        if caller.pc as usize + 1 != block.ops.len() {
            continue; // a call before the guarded one
        }
        let Some(h) = handlers.iter().find(|h| h.range.0 <= id && id < h.range.1) else {
            continue;
        };
        if let Some(s) = h.etype {
            caller.slots[s as usize] = etype.clone();
        }
        if let Some(s) = h.evalue {
            caller.slots[s as usize] = evalue.clone();
        }
        if h.link.raises {
            // A handler that raises again (a re-raise, or another exception).
            etype = get(&caller.slots, &h.link.args[0]).clone();
            evalue = get(&caller.slots, &h.link.args[1]).clone();
            id = class_id(&etype, &code.types)?;
            continue;
        }
        follow(caller, g, &h.link, scratch);
        return Ok(());
    }
}

/// A field of the object `v` points to, by name in the object's own type
/// (a subclass's struct begins with its base's fields); `None` for a null
/// pointer, a value that is not a pointer, or a type without the field.
fn field_by_name(v: &LlValue, field: &str, types: &Types) -> Option<LlValue> {
    let LlValue::Ptr(Some(obj)) = v else {
        return None;
    };
    let info = &types.list[types.type_of(*obj).ok()? as usize];
    let i = info.fields.iter().position(|(n, _)| n == field)?;
    types
        .load(obj.addr() + info.offsets[i], &info.fields[i].1)
        .ok()
}

/// A field of an exception's vtable (`subclassrange_min`, `name`).
fn vtable_field(etype: &LlValue, field: &str, types: &Types) -> Result<LlValue, Fail> {
    field_by_name(etype, field, types).ok_or_else(|| {
        Fail::Internal(format!(
            "an exception's class (a {}) is not a vtable with a field '{field}'",
            etype.kind()
        ))
    })
}

/// The id of an exception's class: its vtable's `subclassrange_min`.
pub(crate) fn class_id(etype: &LlValue, types: &Types) -> Result<i64, Fail> {
    match vtable_field(etype, lltype::SUBCLASSRANGE_MIN, types)? {
        LlValue::Signed(n) => Ok(n),
        other => Err(Fail::Internal(format!(
            "a class id is a {}, not Signed",
            other.kind()
        ))),
    }
}

/// An exception left the entry point: the last line CPython's traceback
/// would show, as the executable writes it to stderr: the class's name
/// (without `__main__.`), then `: ` and the message when the instance has
/// a non-empty one (`exc_message`, what `str()` of it gives).
pub(crate) fn uncaught(etype: &LlValue, evalue: &LlValue, types: &Types) -> Fail {
    let name = match vtable_field(etype, lltype::CLASS_NAME, types).map(|n| string_text(&n, types))
    {
        Ok(Some(name)) => name,
        Ok(None) => return Fail::Internal("an uncaught exception's class has no name".into()),
        Err(e) => return e,
    };
    let class = name.strip_prefix("__main__.").unwrap_or(&name);
    match field_by_name(evalue, lltype::EXC_MESSAGE, types).and_then(|m| string_text(&m, types)) {
        Some(message) if !message.is_empty() => Fail::Fatal(format!("{class}: {message}")),
        _ => Fail::Fatal(class.to_string()),
    }
}

/// The string `v` points to, as text (lossy for non-UTF-8 bytes).
pub(crate) fn string_text(v: &LlValue, types: &Types) -> Option<String> {
    types
        .string_bytes(v)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

fn switch_key(v: &LlValue) -> Result<i64, Fail> {
    match v {
        LlValue::Bool(b) => Ok(*b as i64),
        LlValue::Signed(n) => Ok(*n),
        LlValue::Char(c) => Ok(*c as i64),
        other => Err(Fail::Internal(format!(
            "cannot switch on a {} value",
            other.kind()
        ))),
    }
}

fn mismatch(op: &Op, want: &str, got: &LlValue) -> Fail {
    Fail::Internal(format!("{} expects {want}, got {}", op.opname, got.kind()))
}

fn int_arg(op: &Op, v: &LlValue) -> Result<i64, Fail> {
    match v {
        LlValue::Signed(n) => Ok(*n),
        LlValue::Bool(b) => Ok(*b as i64),
        other => Err(mismatch(op, "Signed or Bool", other)),
    }
}

fn float_arg(op: &Op, v: &LlValue) -> Result<f64, Fail> {
    match v {
        LlValue::Float(x) => Ok(*x),
        other => Err(mismatch(op, "Float", other)),
    }
}

fn char_arg(op: &Op, v: &LlValue) -> Result<u8, Fail> {
    match v {
        LlValue::Char(c) => Ok(*c),
        other => Err(mismatch(op, "Char", other)),
    }
}

fn obj_arg(op: &Op, v: &LlValue) -> Result<ObjRef, Fail> {
    match v {
        LlValue::Ptr(Some(o)) => Ok(*o),
        LlValue::Ptr(None) => Err(Fail::Internal(format!(
            "null pointer dereference in {}",
            op.opname
        ))),
        other => Err(mismatch(op, "Ptr", other)),
    }
}

/// Checks that `obj` has the type the operation was prepared for.
fn check_type(op: &Op, obj: ObjRef, ty: u32, types: &Types) -> Result<(), Fail> {
    let obj_ty = types
        .type_of(obj)
        .map_err(|e| Fail::Internal(format!("{} of a bad pointer: {e}", op.opname)))?;
    if types.is_part(obj_ty, ty) {
        Ok(())
    } else {
        Err(Fail::Internal(format!(
            "{} expects a '{}' object, got a '{}'",
            op.opname, types.list[ty as usize].name, types.list[obj_ty as usize].name
        )))
    }
}

/// The address and type of item `i` of `obj` (of type `ty`), checked
/// against its number of items.
fn item_at<'t>(
    op: &Op,
    obj: ObjRef,
    ty: u32,
    i: i64,
    types: &'t Types,
) -> Result<(usize, &'t LowLevelType), Fail> {
    let info = &types.list[ty as usize];
    let Some(t) = &info.item else {
        return Err(Fail::Internal("an object without items".into()));
    };
    let n = types.length(obj, ty).map_err(Fail::Internal)?;
    let j = array_index(op, i, n)?;
    Ok((obj.addr() + info.items_offset + j * info.item_size, t))
}

fn store_check(op: &Op, v: &LlValue, t: &LowLevelType) -> Result<(), Fail> {
    if super::code::fits(v, t) {
        Ok(())
    } else {
        Err(mismatch(op, &format!("a {t} value"), v))
    }
}

fn array_index(op: &Op, i: i64, len: usize) -> Result<usize, Fail> {
    if (0..len as i64).contains(&i) {
        Ok(i as usize)
    } else {
        Err(Fail::Internal(format!(
            "{}: index {i} out of bounds for {len} items",
            op.opname
        )))
    }
}

/// An integer operation `eval_int` leaves undefined. Division by zero is
/// Python's ZeroDivisionError (as the C runtime reports it); `MIN / -1` wraps
/// to MIN and `MIN % -1` is 0, as in the C runtime; anything else (a shift
/// count outside 0..64) is an internal error naming the operation.
fn undefined(op: &Op, name: Opcode, args: &[i64]) -> Result<i64, Fail> {
    let division = matches!(
        name,
        Opcode::IntFloordiv | Opcode::IntMod | Opcode::IntPyDiv | Opcode::IntPyMod
    );
    match args {
        [_, 0] if division => Err(Fail::Fatal(
            "fatal RPython error: ZeroDivisionError: integer division or modulo by zero".into(),
        )),
        [x, -1] if division => Ok(if matches!(name, Opcode::IntFloordiv | Opcode::IntPyDiv) {
            x.wrapping_neg()
        } else {
            0
        }),
        _ => {
            let list: Vec<String> = args.iter().map(i64::to_string).collect();
            Err(Fail::Internal(format!(
                "{}({}) is undefined",
                op.opname,
                list.join(", ")
            )))
        }
    }
}

pub(crate) fn exec_op(
    op: &Op,
    slots: &[LlValue],
    types: &Types,
    pending: &mut Pending,
    out: &mut dyn Write,
) -> Result<LlValue, Fail> {
    let arg = |i: usize| get(slots, &op.args[i]);
    Ok(match &op.kind {
        OpKind::Int { name, bool_result } => {
            let mut v = [0i64; 3];
            let n = op.args.len();
            for (slot, a) in v.iter_mut().zip(&op.args) {
                *slot = int_arg(op, get(slots, a))?;
            }
            let r = match llops::eval_int(*name, &v[..n]) {
                Some(r) => r,
                None => undefined(op, *name, &v[..n])?,
            };
            if *bool_result {
                LlValue::Bool(r != 0)
            } else {
                LlValue::Signed(r)
            }
        }
        OpKind::FloatBin(f) => {
            let x = float_arg(op, arg(0))?;
            let y = float_arg(op, arg(1))?;
            LlValue::Float(match f {
                FloatBin::Add => x + y,
                FloatBin::Sub => x - y,
                FloatBin::Mul => x * y,
                FloatBin::TrueDiv => x / y,
                FloatBin::PyDiv => rpy_ir::llops::py_float_div(x, y),
                FloatBin::PyMod => rpy_ir::llops::py_float_mod(x, y),
            })
        }
        OpKind::FloatNeg => LlValue::Float(-float_arg(op, arg(0))?),
        OpKind::FloatAbs => LlValue::Float(float_arg(op, arg(0))?.abs()),
        OpKind::FloatCmp(c) => {
            LlValue::Bool(c.apply(float_arg(op, arg(0))?, float_arg(op, arg(1))?))
        }
        OpKind::FloatIsTrue => LlValue::Bool(float_arg(op, arg(0))? != 0.0),
        OpKind::CastBoolToFloat => match arg(0) {
            LlValue::Bool(b) => LlValue::Float(if *b { 1.0 } else { 0.0 }),
            other => return Err(mismatch(op, "Bool", other)),
        },
        OpKind::CastIntToFloat => match arg(0) {
            LlValue::Signed(n) => LlValue::Float(*n as f64),
            other => return Err(mismatch(op, "Signed", other)),
        },
        OpKind::CastFloatToInt => LlValue::Signed(float_arg(op, arg(0))? as i64),
        // An Unsigned value is held as the Signed word of the same bits.
        OpKind::CastUintToFloat => LlValue::Float(int_arg(op, arg(0))? as u64 as f64),
        OpKind::CastFloatToUint => LlValue::Signed(float_arg(op, arg(0))? as u64 as i64),
        OpKind::CastCharToInt => LlValue::Signed(char_arg(op, arg(0))? as i64),
        OpKind::CastIntToChar => match arg(0) {
            LlValue::Signed(n) => LlValue::Char(*n as u8),
            other => return Err(mismatch(op, "Signed", other)),
        },
        OpKind::CharCmp(c) => {
            LlValue::Bool(Cmp::apply(*c, char_arg(op, arg(0))?, char_arg(op, arg(1))?))
        }
        OpKind::SameAs => arg(0).clone(),
        OpKind::Malloc(ty) => LlValue::Ptr(Some(allocate(types, *ty, 0)?)),
        OpKind::MallocVarsize(ty) => match arg(0) {
            LlValue::Signed(n) if *n >= 0 => LlValue::Ptr(Some(allocate(types, *ty, *n as u64)?)),
            LlValue::Signed(n) => {
                return Err(Fail::Internal(format!(
                    "malloc_varsize with the negative length {n}"
                )))
            }
            other => return Err(mismatch(op, "Signed", other)),
        },
        OpKind::GetField(ty, field) => {
            let obj = obj_arg(op, arg(0))?;
            check_type(op, obj, *ty, types)?;
            let info = &types.list[*ty as usize];
            match field {
                FieldRef::Index(i) => types
                    .load(obj.addr() + info.offsets[*i], &info.fields[*i].1)
                    .map_err(Fail::Internal)?,
                FieldRef::ArrayLength => {
                    LlValue::Signed(types.length(obj, *ty).map_err(Fail::Internal)? as i64)
                }
            }
        }
        OpKind::SetField(ty, field) => {
            let obj = obj_arg(op, arg(0))?;
            check_type(op, obj, *ty, types)?;
            let FieldRef::Index(i) = field else {
                return Err(Fail::Internal("setfield of an array's length".into()));
            };
            let v = arg(1);
            let info = &types.list[*ty as usize];
            let t = &info.fields[*i].1;
            store_check(op, v, t)?;
            types
                .store(obj.addr() + info.offsets[*i], t, v)
                .map_err(Fail::Internal)?;
            LlValue::Void
        }
        OpKind::GetArrayItem(ty) => {
            let obj = obj_arg(op, arg(0))?;
            check_type(op, obj, *ty, types)?;
            let i = int_arg(op, arg(1))?;
            let (at, t) = item_at(op, obj, *ty, i, types)?;
            types.load(at, t).map_err(Fail::Internal)?
        }
        OpKind::SetArrayItem(ty) => {
            let obj = obj_arg(op, arg(0))?;
            let i = int_arg(op, arg(1))?;
            let v = arg(2);
            check_type(op, obj, *ty, types)?;
            let (at, t) = item_at(op, obj, *ty, i, types)?;
            match t {
                LowLevelType::Char => {
                    char_arg(op, v)?;
                }
                t => store_check(op, v, t)?,
            }
            types.store(at, t, v).map_err(Fail::Internal)?;
            LlValue::Void
        }
        OpKind::GetArraySize(ty) => {
            let obj = obj_arg(op, arg(0))?;
            check_type(op, obj, *ty, types)?;
            LlValue::Signed(types.length(obj, *ty).map_err(Fail::Internal)? as i64)
        }
        OpKind::Builtin(rt) => {
            if op.args.len() <= 2 {
                let mut buf = [LlValue::Void, LlValue::Void];
                for (b, a) in buf.iter_mut().zip(&op.args) {
                    *b = get(slots, a).clone();
                }
                runtime::call(*rt, &buf[..op.args.len()], types, out)?
            } else {
                let vals: Vec<LlValue> = op.args.iter().map(|a| get(slots, a).clone()).collect();
                runtime::call(*rt, &vals, types, out)?
            }
        }
        OpKind::CastPointer => arg(0).clone(),
        OpKind::PtrEq | OpKind::PtrNe => {
            let (a, b) = (arg(0), arg(1));
            for x in [a, b] {
                if !matches!(x, LlValue::Ptr(_) | LlValue::Func(_)) {
                    return Err(mismatch(op, "a pointer", x));
                }
            }
            LlValue::Bool((a == b) == matches!(op.kind, OpKind::PtrEq))
        }
        OpKind::PtrIsZero | OpKind::PtrNonZero => {
            let null = match arg(0) {
                LlValue::Ptr(p) => p.is_none(),
                LlValue::Func(f) => f.is_none(),
                other => return Err(mismatch(op, "a pointer", other)),
            };
            LlValue::Bool(null == matches!(op.kind, OpKind::PtrIsZero))
        }
        OpKind::ExcOccurred => LlValue::Bool(pending.is_some()),
        OpKind::ExcType => pending.as_ref().map_or(LlValue::Ptr(None), |p| p.0.clone()),
        OpKind::ExcValue => pending.as_ref().map_or(LlValue::Ptr(None), |p| p.1.clone()),
        OpKind::ExcSet => {
            // A null class is no exception (as the C runtime tests the class).
            *pending = match arg(0) {
                LlValue::Ptr(None) => None,
                etype => Some((etype.clone(), arg(1).clone())),
            };
            LlValue::Void
        }
        OpKind::ExcClear => {
            *pending = None;
            LlValue::Void
        }
        OpKind::Nothing => LlValue::Void,
        OpKind::Call(_) | OpKind::IndirectCall => {
            unreachable!("calls are run by the frame loop")
        }
        OpKind::Error(m) => return Err(Fail::Internal(m.clone())),
    })
}

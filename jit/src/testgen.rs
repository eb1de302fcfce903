//! Random valid traces for property tests, built from random bytes (so any
//! test framework can drive them), and a canonical text of a run's outcome
//! and memory for comparing runs on different heaps.
//!
//! Two generators: [`int_trace`] (integer arithmetic, guards made to pass on
//! given inputs, optionally a loop) and [`object_trace`] (allocations,
//! fields, class guards, escapes; with [`Features`], also floats, arrays,
//! calls, overflow checks and a loop). The jit's and the backend's property
//! tests share them.

use std::collections::HashMap;
use std::fmt::Write;

use rpy_ir::lltype::{ContainerType, LowLevelType};

use crate::interp::{Heap, Outcome, RunValue};
use crate::trace::{DescrData, Kind, Trace};

/// Integer constants the generators and input strategies use: small ones
/// and the edges of the range.
pub const INT_CONSTS: &[i64] = &[
    0,
    1,
    -1,
    2,
    3,
    4,
    5,
    -3,
    7,
    8,
    15,
    100,
    -100,
    255,
    1 << 40,
    i64::MIN,
    i64::MAX,
];

const BINARY: &[&str] = &[
    "int_add", "int_sub", "int_mul", "int_and", "int_or", "int_xor", "int_lt", "int_le", "int_eq",
    "int_ne", "int_gt", "int_ge", "uint_lt", "uint_ge",
];
const UNARY: &[&str] = &[
    "int_neg",
    "int_invert",
    "int_is_true",
    "int_is_zero",
    "int_force_ge_zero",
    "int_abs",
    "same_as_i",
];
const SHIFT: &[&str] = &["int_lshift", "int_rshift", "uint_rshift"];
const DIV: &[&str] = &["int_floordiv", "int_mod", "int_py_div", "int_py_mod"];
const OVF: &[&str] = &["int_add_ovf", "int_sub_ovf", "int_mul_ovf"];

/// The optimizer's benchmark trace: a loop of `groups` groups of five
/// operations (an add, a multiply, a compare, its guard and an xor into an
/// accumulator), as an interpreter's loop produces. `cargo bench --bench
/// trace` times it and `cargo run --release -p rpy-backend --example
/// profile_trace` repeats it for a profiler.
pub fn benchmark_loop(groups: usize) -> String {
    let mut s = String::from("[i0, i1]\nlabel(i0, i1)\n");
    let mut acc = "i1".to_string();
    let mut next = 2;
    for k in 0..groups {
        let (a, b, c, d) = (next, next + 1, next + 2, next + 3);
        next += 4;
        let _ = writeln!(s, "i{a} = int_add(i0, {k})");
        let _ = writeln!(s, "i{b} = int_mul(i{a}, 8)");
        let _ = writeln!(s, "i{c} = int_lt(i{b}, 1000000)");
        let _ = writeln!(s, "guard_true(i{c}) [i0, {acc}]");
        let _ = writeln!(s, "i{d} = int_xor({acc}, i{b})");
        acc = format!("i{d}");
    }
    let _ = writeln!(s, "jump(i0, {acc})");
    s
}

/// An integer trace from random bytes: every op is well defined for all
/// inputs. The values the boxes have for `vals` (the inputs) are tracked, so
/// guards are made to pass on them (except when `c % 16 == 15`): the trace
/// runs deep on these inputs, and other inputs exercise the failing paths.
/// The first fail arg of each guard is its number.
pub fn int_trace(steps: &[(u8, u8, u8, u8)], vals: &[i64], loop_: bool) -> String {
    let n_inputs = vals.len();
    let mut boxes: Vec<String> = (0..n_inputs).map(|i| format!("i{i}")).collect();
    let mut values: Vec<i64> = vals.to_vec();
    let mut lines = vec![format!("[{}]", boxes.join(", "))];
    if loop_ {
        lines.push(format!("label({})", boxes.join(", ")));
    }
    let mut guards = 0;
    // an argument: a constant or a box (biased to recent ones), with its value
    let arg = |boxes: &[String], values: &[i64], sel: u8| -> (String, i64) {
        if sel.is_multiple_of(8) {
            let c = (sel as i64 / 8) % 8 - 2;
            (c.to_string(), c)
        } else if sel % 8 == 4 {
            let c = INT_CONSTS[(sel as usize / 8) % INT_CONSTS.len()];
            (c.to_string(), c)
        } else {
            let n = boxes.len();
            let i = if sel % 4 == 1 {
                n - 1 - (sel as usize / 4) % n.min(4)
            } else {
                sel as usize % n
            };
            (boxes[i].clone(), values[i])
        }
    };
    for &(kind, a, b, c) in steps {
        let r = format!("i{}", boxes.len());
        let (x, xv) = arg(&boxes, &values, a);
        let (y, yv) = arg(&boxes, &values, b);
        let fail = format!(
            "{}, {}, {}",
            guards,
            boxes[c as usize % boxes.len()],
            boxes[a as usize % boxes.len()]
        );
        let pass = c % 16 != 15;
        let (name, args): (&str, Vec<(String, i64)>) = match kind % 10 {
            0..=2 => (BINARY[c as usize % BINARY.len()], vec![(x, xv), (y, yv)]),
            3 => (UNARY[c as usize % UNARY.len()], vec![(x, xv)]),
            4 => (
                SHIFT[c as usize % SHIFT.len()],
                vec![(x, xv), ((b % 64).to_string(), (b % 64) as i64)],
            ),
            5 => {
                let d = [2, 3, 4, 7, 8, -2, -8, 1, 16][b as usize % 9];
                (
                    DIV[c as usize % DIV.len()],
                    vec![(x, xv), (d.to_string(), d)],
                )
            }
            6 => {
                let op = OVF[c as usize % OVF.len()];
                let res = match op {
                    "int_add_ovf" => xv.checked_add(yv),
                    "int_sub_ovf" => xv.checked_sub(yv),
                    _ => xv.checked_mul(yv),
                };
                let g = if res.is_some() == pass {
                    "guard_no_overflow"
                } else {
                    "guard_overflow"
                };
                guards += 1;
                lines.push(format!("{r} = {op}({x}, {y})"));
                lines.push(format!("{g}() [{fail}]"));
                boxes.push(r);
                values.push(res.unwrap_or(0));
                continue;
            }
            7 | 8 => {
                guards += 1;
                let i = boxes.len() - 1 - (a as usize) % boxes.len().min(3);
                let (bx, bv) = (boxes[i].clone(), values[i]);
                let g = if (bv != 0) == pass {
                    "guard_true"
                } else {
                    "guard_false"
                };
                lines.push(format!("{g}({bx}) [{fail}]"));
                continue;
            }
            _ => {
                guards += 1;
                let i = boxes.len() - 1 - (a as usize) % boxes.len().min(3);
                let v = if pass {
                    values[i]
                } else {
                    values[i].wrapping_add(1)
                };
                lines.push(format!("guard_value({}, {v}) [{fail}]", boxes[i]));
                continue;
            }
        };
        let argv: Vec<i64> = args.iter().map(|(_, v)| *v).collect();
        let code = crate::trace::opcode(name).expect("a trace operation");
        let v = crate::optimize::pure::fold_int(code, &argv).expect("defined");
        let texts: Vec<String> = args.into_iter().map(|(t, _)| t).collect();
        lines.push(format!("{r} = {name}({})", texts.join(", ")));
        boxes.push(r);
        values.push(v);
    }
    if loop_ {
        // the next iteration's inputs: the last boxes
        let next: Vec<String> = (0..n_inputs)
            .map(|i| boxes[boxes.len() - 1 - i].clone())
            .collect();
        lines.push(format!("jump({})", next.join(", ")));
    } else {
        lines.push(format!("finish({})", boxes.join(", ")));
    }
    lines.join("\n") + "\n"
}

/// What [`object_trace`] may use beyond objects with integer fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// A float input, float arithmetic, comparisons, casts, a float field.
    pub floats: bool,
    /// Integer arrays of length 4, reachable through a field.
    pub arrays: bool,
    /// Calls of native functions (`call_*`, `call_pure_*`,
    /// `call_may_force_*`), and `int_add_ovf` with its guard.
    pub calls: bool,
    /// A `label` after the inputs and a `jump` back instead of `finish`.
    pub loops: bool,
    /// Strings and unicode strings: `newstr` of constant and variable
    /// lengths, reads, stores, lengths, copies, comparisons (`str_equal`),
    /// escapes into calls and guards.
    pub strings: bool,
}

impl Features {
    pub const ALL: Features = Features {
        floats: true,
        arrays: true,
        calls: true,
        loops: false,
        strings: true,
    };

    fn any(self) -> bool {
        self.floats || self.arrays || self.calls || self.loops || self.strings
    }
}

const OBJECT_HEADER: &str = "struct obj { intval: Signed, next: Ptr(obj), c: Char }
class A(obj)
class B(obj)
call isnull = ptr_is_null
";

const FULL_HEADER: &str = "array ints = Signed
array str = Char
array unicode = Signed
struct obj { intval: Signed, next: Ptr(obj), c: Char, f: Float, items: Ptr(ints) }
class A(obj)
class B(obj)
call isnull = ptr_is_null
call max = int_max
call add3 = int_add3
call sqrt = float_sqrt
call hypot = float_hypot
call nop = noop
call streq = str_equal
call ueq = unicode_equal
";

const FLOAT_CONSTS: &[&str] = &["0.5", "-2.5", "3.0", "0.0", "1e300", "-7.25"];

/// The inputs of an [`object_trace`]: `p0`, `i1`, `i2`, and with floats
/// `f3`.
pub fn object_inputs(features: Features) -> &'static [&'static str] {
    if features.floats {
        &["p0", "i1", "i2", "f3"]
    } else {
        &["p0", "i1", "i2"]
    }
}

/// A trace on objects from random bytes: `p0` is a live object of struct
/// `obj` (or class `A`/`B`), pointers read from fields are guarded
/// non-null, array indices are in bounds, so every run is defined. Guards
/// have their number as first fail arg, then the integers, floats and the
/// newest objects. Without features it is the trace
/// of the optimizer's object property test.
pub fn object_trace(steps: &[(u8, u8, u8)], features: Features) -> String {
    let mut ints = vec!["i1".to_string(), "i2".to_string()];
    let mut ptrs = vec!["p0".to_string()];
    // the class of each pointer of `ptrs`, where the trace allocated it
    let mut classes: Vec<Option<&str>> = vec![None];
    // the pointers whose `next` the trace set
    let mut linked: Vec<String> = Vec::new();
    let mut floats: Vec<String> = Vec::new();
    let mut arrays: Vec<String> = Vec::new();
    // each string, whether it is unicode, and a length it has at least
    let mut strings: Vec<(String, bool, i64)> = Vec::new();
    let mut n = 3;
    if features.floats {
        floats.push("f3".into());
        n = 4;
    }
    let mut guards = 0;
    let inputs = object_inputs(features).join(", ");
    let mut lines = vec![format!("[{inputs}]")];
    if features.loops {
        lines.push(format!("label({inputs})"));
    }
    let kinds = if features.any() { 21 } else { 11 };
    for &(k, a, b) in steps {
        let p = |s: u8| ptrs[s as usize % ptrs.len()].clone();
        let i = |s: u8| {
            if s.is_multiple_of(5) {
                (s as i64 / 5 * 17 - 300).to_string()
            } else {
                ints[s as usize % ints.len()].clone()
            }
        };
        let f = |s: u8| {
            if s.is_multiple_of(4) || floats.is_empty() {
                FLOAT_CONSTS[s as usize / 4 % FLOAT_CONSTS.len()].to_string()
            } else {
                floats[s as usize % floats.len()].clone()
            }
        };
        let mut fail = format!("[{guards}, {}", ints.join(", "));
        for x in &floats {
            fail += &format!(", {x}");
        }
        // the newest objects and array: often ones the optimizer keeps
        // virtual, so a failing guard must build them (resume data)
        let newest_string = strings.last().map(|(s, _, _)| s);
        for x in ptrs
            .iter()
            .rev()
            .take(2)
            .chain(arrays.last())
            .chain(newest_string)
        {
            fail += &format!(", {x}");
        }
        fail.push(']');
        let kind = k % kinds;
        let kind = match kind {
            11..=13 if !features.floats => 10,
            14..=16 if !features.arrays => 10,
            17 | 18 if !features.calls => 10,
            19 | 20 if !features.strings => 10,
            k => k,
        };
        match kind {
            0 => {
                let d = ["descr=obj", "descr=A", "descr=B"][a as usize % 3];
                let op = if d == "descr=obj" {
                    "new"
                } else {
                    "new_with_vtable"
                };
                lines.push(format!("p{n} = {op}({d})"));
                ptrs.push(format!("p{n}"));
                classes.push(d.strip_prefix("descr=").filter(|c| *c != "obj"));
                n += 1;
            }
            1 | 2 => {
                let f = if b % 3 == 0 { "obj.c" } else { "obj.intval" };
                lines.push(format!("setfield_gc({}, {}, descr={f})", p(a), i(b)))
            }
            3 => {
                lines.push(format!("setfield_gc({}, {}, descr=obj.next)", p(a), p(b)));
                linked.push(p(a));
            }
            4 | 5 => {
                let f = if b % 3 == 0 { "obj.c" } else { "obj.intval" };
                lines.push(format!("i{n} = getfield_gc_i({}, descr={f})", p(a)));
                ints.push(format!("i{n}"));
                n += 1;
            }
            6 => {
                // with features, mostly an object whose next the trace set,
                // so that the guard passes and the trace runs deeper
                let from = match linked.get(a as usize % linked.len().max(1)) {
                    Some(q) if features.any() && b % 4 != 0 => q.clone(),
                    _ => p(a),
                };
                lines.push(format!("p{n} = getfield_gc_r({from}, descr=obj.next)"));
                lines.push(format!("guard_nonnull(p{n}) {fail}"));
                guards += 1;
                ptrs.push(format!("p{n}"));
                classes.push(None);
                n += 1;
            }
            7 => {
                let mut c = ["A", "B"][b as usize % 2];
                // with features, mostly the class the object is known to
                // have, so that traces run deeper
                if let (true, Some(known)) = (
                    features.any() && b % 4 != 0,
                    classes[a as usize % ptrs.len()],
                ) {
                    c = known;
                }
                lines.push(format!("guard_class({}, ConstClass({c})) {fail}", p(a)));
                guards += 1;
            }
            8 => {
                lines.push(format!("i{n} = ptr_eq({}, {})", p(a), p(b)));
                ints.push(format!("i{n}"));
                n += 1;
            }
            9 => {
                lines.push(format!("i{n} = call_i({}, descr=isnull)", p(a)));
                ints.push(format!("i{n}"));
                n += 1;
            }
            11 => {
                let op = ["float_add", "float_sub", "float_mul", "float_truediv"][a as usize % 4];
                lines.push(format!("f{n} = {op}({}, {})", f(a / 4), f(b)));
                floats.push(format!("f{n}"));
                n += 1;
            }
            12 => {
                match b % 8 {
                    0..=2 => {
                        let op = [
                            "float_lt", "float_le", "float_eq", "float_ne", "float_gt", "float_ge",
                        ][a as usize % 6];
                        lines.push(format!("i{n} = {op}({}, {})", f(a / 6), f(b / 8)));
                        // a third of them guarded (a guard fails half the time)
                        if b % 8 == 0 {
                            lines.push(format!("guard_true(i{n}) {fail}"));
                            guards += 1;
                        }
                        ints.push(format!("i{n}"));
                    }
                    3 => {
                        lines.push(format!("i{n} = cast_float_to_int({})", f(a)));
                        ints.push(format!("i{n}"));
                    }
                    4 | 5 => {
                        lines.push(format!("f{n} = cast_int_to_float({})", i(a)));
                        floats.push(format!("f{n}"));
                    }
                    _ => {
                        let op = ["float_neg", "float_abs", "same_as_f"][a as usize % 3];
                        lines.push(format!("f{n} = {op}({})", f(a / 3)));
                        floats.push(format!("f{n}"));
                    }
                }
                n += 1;
            }
            13 => {
                if b % 2 == 0 {
                    lines.push(format!("setfield_gc({}, {}, descr=obj.f)", p(a), f(b / 2)));
                } else {
                    lines.push(format!("f{n} = getfield_gc_f({}, descr=obj.f)", p(a)));
                    floats.push(format!("f{n}"));
                    n += 1;
                }
            }
            14..=16 if arrays.is_empty() || kind == 14 && b % 2 == 0 => {
                lines.push(format!("p{n} = new_array(4, descr=ints)"));
                arrays.push(format!("p{n}"));
                n += 1;
            }
            14 => {
                let arr = arrays[a as usize % arrays.len()].clone();
                if b % 4 == 1 {
                    lines.push(format!("p{n} = getfield_gc_r({}, descr=obj.items)", p(a)));
                    lines.push(format!("guard_nonnull(p{n}) {fail}"));
                    guards += 1;
                    arrays.push(format!("p{n}"));
                    n += 1;
                } else {
                    lines.push(format!("setfield_gc({}, {arr}, descr=obj.items)", p(b)));
                }
            }
            15 | 16 => {
                let arr = arrays[a as usize % arrays.len()].clone();
                let (x, value) = (i(b / 3), i(a / 2));
                // an index in bounds: a constant, or a box masked to 0..3
                let index = if b % 3 == 0 {
                    lines.push(format!("i{n} = int_and({x}, 3)"));
                    ints.push(format!("i{n}"));
                    n += 1;
                    format!("i{}", n - 1)
                } else {
                    (b % 4).to_string()
                };
                if kind == 15 {
                    lines.push(format!(
                        "setarrayitem_gc({arr}, {index}, {value}, descr=ints)"
                    ));
                } else if a % 5 == 0 {
                    lines.push(format!("i{n} = arraylen_gc({arr}, descr=ints)"));
                    ints.push(format!("i{n}"));
                    n += 1;
                } else {
                    lines.push(format!(
                        "i{n} = getarrayitem_gc_i({arr}, {index}, descr=ints)"
                    ));
                    ints.push(format!("i{n}"));
                    n += 1;
                }
            }
            17 => {
                let line = match (a % 6, features.floats) {
                    (0, _) => format!("i{n} = call_i({}, {}, descr=max)", i(b), i(a / 6)),
                    (1, _) => format!(
                        "i{n} = call_pure_i({}, {}, {}, descr=add3)",
                        i(b),
                        i(a / 6),
                        i(b / 2)
                    ),
                    (2, _) => format!("i{n} = call_may_force_i({}, {}, descr=max)", i(b), i(a / 6)),
                    (3, true) => format!("f{n} = call_f({}, descr=sqrt)", f(b)),
                    (4, true) => format!("f{n} = call_pure_f({}, {}, descr=hypot)", f(b), f(a / 6)),
                    _ => "call_n(descr=nop)".to_string(),
                };
                let result = line.split(" = ").next().filter(|_| line.contains(" = "));
                match result {
                    Some(r) if r.starts_with('f') => floats.push(r.to_string()),
                    Some(r) => ints.push(r.to_string()),
                    None => {}
                }
                lines.push(line);
                let g = ["guard_no_exception", "guard_not_forced"][b as usize % 2];
                lines.push(format!("{g}() {fail}"));
                guards += 1;
                n += 1;
            }
            18 => {
                let op = OVF[a as usize % OVF.len()];
                lines.push(format!("i{n} = {op}({}, {})", i(a / 3), i(b)));
                lines.push(format!("guard_no_overflow() {fail}"));
                guards += 1;
                ints.push(format!("i{n}"));
                n += 1;
            }
            19 | 20 if strings.is_empty() || kind == 19 && b % 3 == 0 => {
                let unicode = a % 3 == 0;
                let op = if unicode { "newunicode" } else { "newstr" };
                // a constant length (a string the optimizer may keep
                // virtual), or 1..4 computed
                let least = if b % 4 == 1 {
                    lines.push(format!("i{n} = int_and({}, 3)", i(a)));
                    lines.push(format!("i{} = int_add(i{n}, 1)", n + 1));
                    lines.push(format!("p{} = {op}(i{})", n + 2, n + 1));
                    ints.push(format!("i{n}"));
                    ints.push(format!("i{}", n + 1));
                    n += 2;
                    1
                } else {
                    let len = (a / 3 % 5) as i64 + 1;
                    lines.push(format!("p{n} = {op}({len})"));
                    len
                };
                strings.push((format!("p{n}"), unicode, least));
                n += 1;
            }
            19 | 20 => {
                let (s, unicode, least) = strings[a as usize % strings.len()].clone();
                let name = |str_op: &str| match unicode {
                    true => str_op.replace("str", "unicode"),
                    false => str_op.to_string(),
                };
                let value = i(a / 2);
                // an index in bounds: a constant, or a box that is 0
                let index = if b % 5 == 0 {
                    lines.push(format!("i{n} = int_and({value}, 0)"));
                    ints.push(format!("i{n}"));
                    n += 1;
                    format!("i{}", n - 1)
                } else {
                    (b as i64 % least).to_string()
                };
                match (kind, b % 4) {
                    (19, _) => {
                        // a copy into another string of the same flavour
                        let same: Vec<_> = strings.iter().filter(|t| t.1 == unicode).collect();
                        let (d, _, dleast) = same[b as usize % same.len()].clone();
                        let len = least.min(dleast);
                        let (from, to) = (
                            (a as i64) % (least - len + 1),
                            (b as i64) % (dleast - len + 1),
                        );
                        lines.push(format!(
                            "{}({s}, {d}, {from}, {to}, {len})",
                            name("copystrcontent")
                        ));
                    }
                    (_, 0) => lines.push(format!("{}({s}, {index}, {value})", name("strsetitem"))),
                    (_, 1) => {
                        lines.push(format!("i{n} = {}({s})", name("strlen")));
                        ints.push(format!("i{n}"));
                        n += 1;
                    }
                    (_, 2) => {
                        lines.push(format!("i{n} = {}({s}, {index})", name("strgetitem")));
                        ints.push(format!("i{n}"));
                        n += 1;
                    }
                    _ if b % 8 == 3 => {
                        // the string escapes
                        lines.push(format!("i{n} = call_i({s}, descr=isnull)"));
                        ints.push(format!("i{n}"));
                        n += 1;
                    }
                    _ => {
                        // compared with a string of its flavour (or itself)
                        let same: Vec<_> = strings.iter().filter(|t| t.1 == unicode).collect();
                        let other = &same[a as usize / 3 % same.len()].0;
                        let eq = if unicode { "ueq" } else { "streq" };
                        lines.push(format!("i{n} = call_i({s}, {other}, descr={eq})"));
                        ints.push(format!("i{n}"));
                        n += 1;
                    }
                }
            }
            _ => {
                lines.push(format!("i{n} = int_add({}, {})", i(a), i(b)));
                ints.push(format!("i{n}"));
                n += 1;
            }
        }
    }
    if features.loops {
        let last = |v: &[String], k: usize| v[v.len() - 1 - k % v.len()].clone();
        let mut next = vec![last(&ptrs, 0), last(&ints, 0), last(&ints, 1)];
        if features.floats {
            next.push(last(&floats, 0));
        }
        lines.push(format!("jump({})", next.join(", ")));
    } else {
        // read back what escaped into p0
        lines.push(format!("i{n} = getfield_gc_i(p0, descr=obj.intval)"));
        ints.push(format!("i{n}"));
        ints.extend(floats);
        lines.push(format!("finish({})", ints.join(", ")));
    }
    let header = if features.any() {
        FULL_HEADER
    } else {
        OBJECT_HEADER
    };
    format!("{header}{}\n", lines.join("\n"))
}

/// A canonical text of a run: its outcome and the objects reachable from
/// `inputs` and the outcome's values, with addresses replaced by the order
/// in which a breadth-first walk meets the objects (`#0`, `#1`, ...) and
/// floats by their bits, so runs on different heaps compare equal exactly
/// when they computed the same thing.
pub fn observe(trace: &Trace, heap: &Heap, inputs: &[RunValue], outcome: &Outcome) -> String {
    observe_run(trace, heap, inputs, outcome, GuardIndex::Shown)
}

/// Whether [`observe_run`] names the guard that failed by its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuardIndex {
    Shown,
    /// Left out: the same guard has another index once the optimizer
    /// removed operations before it, so runs of a trace and of its
    /// optimized form are compared without it (by the fail args' values).
    Hidden,
}

/// The descr of each type id an object's header word may hold (of two
/// descrs of one type, the later).
pub fn types_by_id(header: &crate::trace::Header) -> HashMap<u64, usize> {
    let mut types = HashMap::new();
    for (i, d) in header.descrs.iter().enumerate() {
        match d.data {
            DescrData::Size { type_id, .. }
            | DescrData::Class { type_id, .. }
            | DescrData::Array { type_id, .. } => {
                types.insert(type_id, i);
            }
            _ => {}
        }
    }
    types
}

/// [`observe`], with the failing guard's index shown or not.
pub fn observe_run(
    trace: &Trace,
    heap: &dyn crate::interp::Memory,
    inputs: &[RunValue],
    outcome: &Outcome,
    guard_index: GuardIndex,
) -> String {
    let types = types_by_id(&trace.header);
    let mut ids: HashMap<usize, usize> = HashMap::new();
    let mut order: Vec<usize> = Vec::new();
    let name = |p: usize, ids: &mut HashMap<usize, usize>, order: &mut Vec<usize>| -> String {
        if p == 0 {
            return "null".into();
        }
        let next = ids.len();
        let id = *ids.entry(p).or_insert_with(|| {
            order.push(p);
            next
        });
        format!("#{id}")
    };
    let value = |v: &RunValue, ids: &mut HashMap<usize, usize>, order: &mut Vec<usize>| match v {
        RunValue::Int(i) => i.to_string(),
        // which NaN an operation on NaNs gives is the machine's choice
        // (x86 keeps the first operand's, and the compiler may swap a
        // commutative operation's operands), so every NaN reads the same
        RunValue::Float(f) if f.is_nan() => "fnan".to_string(),
        RunValue::Float(f) => format!("f{:x}", f.to_bits()),
        RunValue::Ref(p) => name(*p, ids, order),
    };
    let mut text = String::new();
    let list = |vs: &[RunValue], ids: &mut HashMap<usize, usize>, order: &mut Vec<usize>| {
        vs.iter()
            .map(|v| value(v, ids, order))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let inputs_text = list(inputs, &mut ids, &mut order);
    let _ = writeln!(text, "inputs [{inputs_text}]");
    let outcome_text = match outcome {
        Outcome::Finished(v) => format!("finished [{}]", list(v, &mut ids, &mut order)),
        Outcome::GuardFailed { guard, values } => {
            let values = list(values, &mut ids, &mut order);
            match guard_index {
                GuardIndex::Shown => format!("guard {guard} failed [{values}]"),
                GuardIndex::Hidden => format!("guard failed [{values}]"),
            }
        }
        Outcome::LoopLimit { values } => {
            format!("loop limit [{}]", list(values, &mut ids, &mut order))
        }
        Outcome::Error(e) => format!("error {e}"),
    };
    let _ = writeln!(text, "{outcome_text}");
    let mut k = 0;
    while k < order.len() {
        let p = order[k];
        k += 1;
        let read = |addr: usize, ty: &LowLevelType| heap.read(addr, ty);
        let Ok(type_id) = read(p, &LowLevelType::Signed).map(crate::interp::header_type_id) else {
            let _ = writeln!(text, "#{} unreadable", k - 1);
            continue;
        };
        let Some(&d) = types.get(&type_id) else {
            let _ = writeln!(text, "#{} type {type_id}", k - 1);
            continue;
        };
        let descr = &trace.header.descrs[d];
        let mut fields: Vec<(String, LowLevelType, usize)> = Vec::new();
        match &descr.data {
            DescrData::Size { strukt, .. } | DescrData::Class { strukt, .. } => {
                if let Some(ct @ ContainerType::GcStruct { fields: fs, .. }) =
                    trace.header.types.get(strukt)
                {
                    let layout = ct.layout();
                    for (f, ty) in fs {
                        fields.push((f.clone(), ty.clone(), layout.offset_of(f).unwrap_or(0)));
                    }
                }
            }
            DescrData::Array {
                item,
                length_offset,
                items_offset,
                item_size,
                ..
            } => {
                let len = read(p + length_offset, &LowLevelType::Signed).unwrap_or(0);
                fields.push(("length".into(), LowLevelType::Signed, *length_offset));
                for i in 0..(len as usize).min(64) {
                    fields.push((i.to_string(), item.clone(), items_offset + i * item_size));
                }
            }
            _ => {}
        }
        let mut parts = Vec::new();
        for (f, ty, off) in fields {
            let v = match read(p + off, &ty) {
                Ok(bits) => value(
                    &RunValue::from_bits(Kind::of_lltype(&ty), bits),
                    &mut ids,
                    &mut order,
                ),
                Err(_) => "?".into(),
            };
            parts.push(format!("{f}={v}"));
        }
        let _ = writeln!(text, "#{} {}({})", k - 1, descr.name, parts.join(", "));
    }
    text
}

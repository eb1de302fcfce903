//! The low-level helpers of pylib/rpython/rtyper/: each annotates, rtypes
//! and runs in the LLInterpreter, and random sequences of operations
//! through them agree with CPython running the same operations (many
//! sequences per python3 run).

use rpy_ir::graph::{Constant, LowLevel, Program};
use rpy_ir::lltype::{self, LowLevelType, TypeTable};
use rpy_passes::llinterp::{LlInterpreter, LlValue};
use rpy_passes::rtype::lowlevel_helpers::{HelperArg, LowLevelHelpers};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A small deterministic generator (xorshift64*), so a failing sequence
/// is reproduced by its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.next() as usize % items.len()]
    }
}

/// Runs `script` under python3 and returns its output.
fn python(script: &str) -> String {
    let mut child = Command::new("python3")
        .arg("-")
        .env("PYTHONPATH", root().join("pylib"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .expect("a pipe")
        .write_all(script.as_bytes())
        .expect("python3 reads its script");
    let out = child.wait_with_output().expect("python3 finishes");
    assert!(
        out.status.success(),
        "python3 failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// The helpers a test calls, specialized, and the program holding them.
struct Helpers {
    names: HashMap<String, String>,
    program: Program<LowLevel>,
}

impl Helpers {
    /// Specializes each `(key, module, function, arguments)`.
    fn make(mut types: TypeTable, wanted: &[(&str, &str, &str, Vec<HelperArg>)]) -> Helpers {
        let mut helpers = LowLevelHelpers::new();
        let mut names = HashMap::new();
        for (key, module, func, args) in wanted {
            let (name, _) = helpers
                .specialize(module, func, args, &mut types)
                .unwrap_or_else(|e| panic!("{module}.{func}: {e}"));
            names.insert(key.to_string(), name);
        }
        Helpers {
            names,
            program: Program {
                path: "helpers".into(),
                graphs: helpers.take_graphs(),
                entry: String::new(),
                types,
                prebuilt: Vec::new(),
            },
        }
    }
}

/// Calls the helpers of a `Helpers` in one interpreter.
struct Runner<'p> {
    interp: LlInterpreter<'p>,
    names: &'p HashMap<String, String>,
}

impl<'p> Runner<'p> {
    fn new(h: &'p Helpers) -> Runner<'p> {
        Runner {
            interp: LlInterpreter::new(&h.program),
            names: &h.names,
        }
    }

    fn call(&mut self, key: &str, args: Vec<LlValue>) -> LlValue {
        let name = &self.names[key];
        self.interp
            .call(name, args, &mut Vec::new())
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    }
}

// ---------------------------------------------------------------- lists

fn list_types() -> (TypeTable, String) {
    let mut types = TypeTable::new();
    types.insert(lltype::STR.into(), lltype::str_type());
    let list = lltype::add_list_type(&mut types, &LowLevelType::Signed);
    (types, list)
}

fn list_helpers() -> Helpers {
    let (types, list) = list_types();
    let l = || HelperArg::Value(LowLevelType::Ptr(list.clone()));
    let int = || HelperArg::Value(LowLevelType::Signed);
    let no_eqfn = || HelperArg::Const(Constant::None);
    let wanted: Vec<(&str, &str, &str, Vec<HelperArg>)> = vec![
        (
            "newlist",
            "rlist",
            "ll_newlist",
            vec![HelperArg::Type(list.clone()), int()],
        ),
        ("len", "rlist", "ll_len", vec![l()]),
        ("bool", "rlist", "ll_bool", vec![l()]),
        (
            "getitem_nonneg",
            "rlist",
            "ll_getitem_nonneg",
            vec![l(), int()],
        ),
        (
            "setitem_nonneg",
            "rlist",
            "ll_setitem_nonneg",
            vec![l(), int(), int()],
        ),
        ("append", "rlist", "ll_append", vec![l(), int()]),
        ("getitem", "rlist", "ll_getitem", vec![l(), int()]),
        ("setitem", "rlist", "ll_setitem", vec![l(), int(), int()]),
        ("delitem", "rlist", "ll_delitem", vec![l(), int()]),
        ("pop_end", "rlist", "ll_pop_end", vec![l()]),
        ("pop", "rlist", "ll_pop", vec![l(), int()]),
        ("insert", "rlist", "ll_insert", vec![l(), int(), int()]),
        ("extend", "rlist", "ll_extend", vec![l(), l()]),
        ("concat", "rlist", "ll_concat", vec![l(), l()]),
        ("getslice", "rlist", "ll_getslice", vec![l(), int(), int()]),
        (
            "getslice_startonly",
            "rlist",
            "ll_getslice_startonly",
            vec![l(), int()],
        ),
        ("copy", "rlist", "ll_copy", vec![l()]),
        ("delslice", "rlist", "ll_delslice", vec![l(), int(), int()]),
        (
            "setslice",
            "rlist",
            "ll_setslice",
            vec![l(), int(), int(), l()],
        ),
        ("reverse", "rlist", "ll_reverse", vec![l()]),
        (
            "contains",
            "rlist",
            "ll_contains",
            vec![l(), int(), no_eqfn()],
        ),
        ("count", "rlist", "ll_count", vec![l(), int(), no_eqfn()]),
        ("find", "rlist", "ll_find", vec![l(), int(), no_eqfn()]),
        ("mul", "rlist", "ll_mul", vec![l(), int()]),
        ("inplace_mul", "rlist", "ll_inplace_mul", vec![l(), int()]),
        ("eq", "rlist", "ll_eq", vec![l(), l(), no_eqfn()]),
    ];
    Helpers::make(types, &wanted)
}

impl Runner<'_> {
    fn new_int_list(&mut self, items: &[i64]) -> LlValue {
        let l = self.call("newlist", vec![LlValue::Void, LlValue::Signed(0)]);
        for &x in items {
            self.call("append", vec![l.clone(), LlValue::Signed(x)]);
        }
        l
    }

    fn int_list(&mut self, l: &LlValue) -> Vec<i64> {
        let LlValue::Signed(n) = self.call("len", vec![l.clone()]) else {
            panic!("ll_len returns an int")
        };
        (0..n)
            .map(|i| {
                self.call("getitem_nonneg", vec![l.clone(), LlValue::Signed(i)])
                    .as_signed()
                    .expect("an int item")
            })
            .collect()
    }
}

/// A list as Python's repr writes it.
fn list_repr(items: &[i64]) -> String {
    let parts: Vec<String> = items.iter().map(|i| i.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

fn value_repr(v: &LlValue) -> String {
    match v {
        LlValue::Signed(n) => n.to_string(),
        LlValue::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        other => panic!("no repr for {other:?}"),
    }
}

/// Runs one random sequence of list operations through the helpers,
/// writing the Python statements that do the same to `script` and what
/// each step shows to `transcript` (the list after it, and its result).
fn list_sequence(r: &mut Runner, rng: &mut Rng, script: &mut String, transcript: &mut String) {
    let initial: Vec<i64> = (0..rng.range(0, 6)).map(|_| rng.range(-3, 9)).collect();
    let l = r.new_int_list(&initial);
    writeln!(script, "l = {}", list_repr(&initial)).unwrap();
    let small = |rng: &mut Rng| rng.range(-3, 9);
    let short_list =
        |rng: &mut Rng| -> Vec<i64> { (0..rng.range(0, 4)).map(|_| small(rng)).collect() };
    for _ in 0..rng.range(1, 40) {
        let len = r.int_list(&l).len() as i64;
        let ops: &[&str] = if len == 0 {
            &[
                "append",
                "insert",
                "extend",
                "extend_self",
                "slice",
                "slice_from",
                "delslice",
                "setslice",
                "contains",
                "count",
                "find",
                "mul",
                "inplace_mul",
                "eq",
                "concat",
                "copy",
                "bool",
                "reverse",
            ]
        } else {
            &[
                "append",
                "append",
                "insert",
                "extend",
                "extend_self",
                "slice",
                "slice_from",
                "delslice",
                "setslice",
                "contains",
                "count",
                "find",
                "mul",
                "inplace_mul",
                "eq",
                "concat",
                "copy",
                "bool",
                "reverse",
                "pop_end",
                "pop",
                "del",
                "get",
                "set",
                "set_self_slice",
            ]
        };
        let any_index = |rng: &mut Rng| rng.range(-len - 3, len + 3);
        let valid_index = |rng: &mut Rng| rng.range(-len, len - 1);
        let (stmt, result): (String, Option<String>) = match *rng.pick(ops) {
            "append" => {
                let x = small(rng);
                r.call("append", vec![l.clone(), LlValue::Signed(x)]);
                (format!("l.append({x})"), None)
            }
            "insert" => {
                let (i, x) = (any_index(rng), small(rng));
                r.call(
                    "insert",
                    vec![l.clone(), LlValue::Signed(i), LlValue::Signed(x)],
                );
                (format!("l.insert({i}, {x})"), None)
            }
            "extend" => {
                let other = short_list(rng);
                let o = r.new_int_list(&other);
                r.call("extend", vec![l.clone(), o]);
                (format!("l.extend({})", list_repr(&other)), None)
            }
            "extend_self" => {
                r.call("extend", vec![l.clone(), l.clone()]);
                ("l.extend(l)".into(), None)
            }
            "concat" => {
                let other = short_list(rng);
                let o = r.new_int_list(&other);
                let res = r.call("concat", vec![l.clone(), o]);
                let shown = list_repr(&r.int_list(&res));
                (format!("print(l + {})", list_repr(&other)), Some(shown))
            }
            "copy" => {
                let res = r.call("copy", vec![l.clone()]);
                let shown = list_repr(&r.int_list(&res));
                ("print(l[:])".into(), Some(shown))
            }
            "slice" => {
                let (a, b) = (any_index(rng), any_index(rng));
                let res = r.call(
                    "getslice",
                    vec![l.clone(), LlValue::Signed(a), LlValue::Signed(b)],
                );
                let shown = list_repr(&r.int_list(&res));
                (format!("print(l[{a}:{b}])"), Some(shown))
            }
            "slice_from" => {
                let a = any_index(rng);
                let res = r.call("getslice_startonly", vec![l.clone(), LlValue::Signed(a)]);
                let shown = list_repr(&r.int_list(&res));
                (format!("print(l[{a}:])"), Some(shown))
            }
            "delslice" => {
                let (a, b) = (any_index(rng), any_index(rng));
                r.call(
                    "delslice",
                    vec![l.clone(), LlValue::Signed(a), LlValue::Signed(b)],
                );
                (format!("del l[{a}:{b}]"), None)
            }
            "setslice" => {
                let (a, b) = (any_index(rng), any_index(rng));
                let other = short_list(rng);
                let o = r.new_int_list(&other);
                r.call(
                    "setslice",
                    vec![l.clone(), LlValue::Signed(a), LlValue::Signed(b), o],
                );
                (format!("l[{a}:{b}] = {}", list_repr(&other)), None)
            }
            "set_self_slice" => {
                let (a, b) = (any_index(rng), any_index(rng));
                r.call(
                    "setslice",
                    vec![l.clone(), LlValue::Signed(a), LlValue::Signed(b), l.clone()],
                );
                (format!("l[{a}:{b}] = l"), None)
            }
            "contains" | "count" => {
                let x = small(rng);
                let which = if rng.range(0, 1) == 0 {
                    "contains"
                } else {
                    "count"
                };
                let res = r.call(which, vec![l.clone(), LlValue::Signed(x), LlValue::Void]);
                let stmt = if which == "contains" {
                    format!("print({x} in l)")
                } else {
                    format!("print(l.count({x}))")
                };
                (stmt, Some(value_repr(&res)))
            }
            "find" => {
                let x = small(rng);
                let res = r.call("find", vec![l.clone(), LlValue::Signed(x), LlValue::Void]);
                (
                    format!("print(l.index({x}) if {x} in l else -1)"),
                    Some(value_repr(&res)),
                )
            }
            "mul" => {
                let n = rng.range(-1, 3);
                let res = r.call("mul", vec![l.clone(), LlValue::Signed(n)]);
                let shown = list_repr(&r.int_list(&res));
                (format!("print(l * {n})"), Some(shown))
            }
            "inplace_mul" => {
                let n = rng.range(-1, 2);
                r.call("inplace_mul", vec![l.clone(), LlValue::Signed(n)]);
                (format!("l *= {n}"), None)
            }
            "eq" => {
                // Often the list itself, so that equal lists are compared too.
                let other = if rng.range(0, 1) == 0 {
                    r.int_list(&l)
                } else {
                    short_list(rng)
                };
                let o = r.new_int_list(&other);
                let res = r.call("eq", vec![l.clone(), o, LlValue::Void]);
                (
                    format!("print(l == {})", list_repr(&other)),
                    Some(value_repr(&res)),
                )
            }
            "bool" => {
                let res = r.call("bool", vec![l.clone()]);
                ("print(bool(l))".into(), Some(value_repr(&res)))
            }
            "reverse" => {
                r.call("reverse", vec![l.clone()]);
                ("l.reverse()".into(), None)
            }
            "pop_end" => {
                let res = r.call("pop_end", vec![l.clone()]);
                ("print(l.pop())".into(), Some(value_repr(&res)))
            }
            "pop" => {
                let i = valid_index(rng);
                let res = r.call("pop", vec![l.clone(), LlValue::Signed(i)]);
                (format!("print(l.pop({i}))"), Some(value_repr(&res)))
            }
            "del" => {
                let i = valid_index(rng);
                r.call("delitem", vec![l.clone(), LlValue::Signed(i)]);
                (format!("del l[{i}]"), None)
            }
            "get" => {
                let i = valid_index(rng);
                let res = r.call("getitem", vec![l.clone(), LlValue::Signed(i)]);
                (format!("print(l[{i}])"), Some(value_repr(&res)))
            }
            "set" => {
                let (i, x) = (valid_index(rng), small(rng));
                r.call(
                    "setitem",
                    vec![l.clone(), LlValue::Signed(i), LlValue::Signed(x)],
                );
                (format!("l[{i}] = {x}"), None)
            }
            other => unreachable!("{other}"),
        };
        writeln!(script, "{stmt}").unwrap();
        writeln!(script, "print(l)").unwrap();
        if let Some(shown) = result {
            writeln!(transcript, "{shown}").unwrap();
        }
        writeln!(transcript, "{}", list_repr(&r.int_list(&l))).unwrap();
    }
}

/// Compares the transcripts case by case, naming the first case that
/// differs with its Python statements.
fn compare_cases(cases: &[(String, String)], python_out: &str) {
    let outputs: Vec<&str> = python_out.split("--\n").collect();
    for (i, (script, ours)) in cases.iter().enumerate() {
        assert_eq!(
            ours.as_str(),
            outputs[i],
            "case {i} differs from CPython; its statements:\n{script}"
        );
    }
}

#[test]
fn random_list_operations_agree_with_cpython() {
    let helpers = list_helpers();
    let mut runner = Runner::new(&helpers);
    let seed = std::env::var("RPY_LL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_1157);
    let mut rng = Rng(seed);
    let mut cases = Vec::new();
    let mut whole = String::new();
    for _ in 0..400 {
        let (mut script, mut transcript) = (String::new(), String::new());
        list_sequence(&mut runner, &mut rng, &mut script, &mut transcript);
        whole.push_str(&script);
        whole.push_str("print('--')\n");
        cases.push((script, transcript));
    }
    compare_cases(&cases, &python(&whole));
}

//! The low-level helpers of pylib/rpython/rtyper/: each annotates, rtypes
//! and runs in the LLInterpreter, and random sequences of operations
//! through them agree with CPython running the same operations (many
//! sequences per python3 run).

use rpy_ir::graph::{Constant, FunctionGraph, LowLevel, Program};
use rpy_ir::lltype::{self, LowLevelType, TypeTable};
use rpy_llinterp::{LlInterpreter, LlValue};
use rpy_passes::rtype::lowlevel_helpers::{rtype_alone, HelperArg, LowLevelHelpers};
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
    /// Each key's graph and the kinds of its arguments.
    names: HashMap<String, (String, Vec<HelperArg>)>,
    program: Program<LowLevel>,
}

impl Helpers {
    /// Specializes each `(key, module, function, arguments)`.
    fn make(mut types: TypeTable, wanted: &[(&str, &str, &str, Vec<HelperArg>)]) -> Helpers {
        let mut names = HashMap::new();
        let mut graphs = Vec::new();
        for (key, module, func, args) in wanted {
            let name = rtype_helper(module, func, args, &mut types, &mut graphs);
            names.insert(key.to_string(), (name, args.clone()));
        }
        Helpers {
            names,
            program: Program {
                path: "helpers".into(),
                sources: Default::default(),
                graphs,
                entry: String::new(),
                types,
                prebuilt: Vec::new(),
                facts: Default::default(),
            },
        }
    }
}

/// Helper `func` of `module` for `args`, rtyped alone: its graph's name;
/// the types it registers join `types`, and the graphs not yet in
/// `graphs` join them.
fn rtype_helper(
    module: &str,
    func: &str,
    args: &[HelperArg],
    types: &mut TypeTable,
    graphs: &mut Vec<FunctionGraph<LowLevel>>,
) -> String {
    let (name, lowered) =
        rtype_alone(module, func, args, types).unwrap_or_else(|e| panic!("{module}.{func}: {e}"));
    types.extend(lowered.types);
    for g in lowered.graphs {
        if !graphs.iter().any(|h| h.name == g.name) {
            graphs.push(g);
        }
    }
    name
}

/// Calls the helpers of a `Helpers` in one interpreter.
struct Runner<'p> {
    interp: LlInterpreter<'p>,
    names: &'p HashMap<String, (String, Vec<HelperArg>)>,
}

impl<'p> Runner<'p> {
    fn new(h: &'p Helpers) -> Runner<'p> {
        Runner {
            interp: LlInterpreter::new(&h.program),
            names: &h.names,
        }
    }

    /// Calls the helper of `key` with `values` for its run-time arguments;
    /// its constant arguments are passed as the rtyper passes them.
    fn call(&mut self, key: &str, values: Vec<LlValue>) -> LlValue {
        let (name, kinds) = &self.names[key];
        let mut values = values.into_iter();
        let args = kinds
            .iter()
            .map(|kind| match kind.constant() {
                None => values.next().expect("a value for each run-time argument"),
                Some(Constant::Bool(b)) => LlValue::Bool(b),
                Some(Constant::Int(n)) => LlValue::Signed(n),
                Some(Constant::Char(c)) => LlValue::Char(c),
                Some(_) => LlValue::Void,
            })
            .collect();
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

/// The list helpers for lists of ints that change length, or (`fixed`)
/// for the arrays of lists that never do: these get only the helpers
/// that keep a list's length, as the rtyper gives them.
fn list_helpers(fixed: bool) -> Helpers {
    let (mut types, mut list) = list_types();
    if fixed {
        list = lltype::add_fixed_list_type(&mut types, &LowLevelType::Signed);
    }
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
        (
            "getslice",
            "rlist",
            "ll_getslice",
            vec![HelperArg::Type(list.clone()), l(), int(), int()],
        ),
        (
            "getslice_startonly",
            "rlist",
            "ll_getslice_startonly",
            vec![HelperArg::Type(list.clone()), l(), int()],
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
        (
            "mul",
            "rlist",
            "ll_mul",
            vec![HelperArg::Type(list.clone()), l(), int()],
        ),
        ("inplace_mul", "rlist", "ll_inplace_mul", vec![l(), int()]),
        ("eq", "rlist", "ll_eq", vec![l(), l(), no_eqfn()]),
    ];
    let wanted: Vec<_> = wanted
        .into_iter()
        .filter(|(key, ..)| !fixed || FIXED_LIST_HELPERS.contains(key))
        .collect();
    Helpers::make(types, &wanted)
}

/// The helpers a list that never changes length is given.
const FIXED_LIST_HELPERS: &[&str] = &[
    "newlist",
    "len",
    "bool",
    "getitem_nonneg",
    "setitem_nonneg",
    "getitem",
    "setitem",
    "concat",
    "getslice",
    "getslice_startonly",
    "copy",
    "reverse",
    "contains",
    "count",
    "find",
    "mul",
    "eq",
];

impl Runner<'_> {
    /// A new list of `items`: appended one by one, or for a list that
    /// never changes length (whose helpers have no append) made of that
    /// length and set item by item.
    fn new_int_list(&mut self, items: &[i64]) -> LlValue {
        if !self.names.contains_key("append") {
            let l = self.call("newlist", vec![LlValue::Signed(items.len() as i64)]);
            for (i, &x) in items.iter().enumerate() {
                self.call(
                    "setitem_nonneg",
                    vec![l.clone(), LlValue::Signed(i as i64), LlValue::Signed(x)],
                );
            }
            return l;
        }
        let l = self.call("newlist", vec![LlValue::Signed(0)]);
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

/// The operations of a random sequence on any list...
const LIST_OPS: &[&str] = &[
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
];

/// ...and the ones on a list that is not empty (`append` again, so that
/// lists grow).
const NONEMPTY_LIST_OPS: &[&str] = &[
    "append",
    "pop_end",
    "pop",
    "del",
    "get",
    "set",
    "set_self_slice",
];

/// The operations of `LIST_OPS` and `NONEMPTY_LIST_OPS` that keep a
/// list's length.
const FIXED_LIST_OPS: &[&str] = &[
    "slice",
    "slice_from",
    "contains",
    "count",
    "find",
    "mul",
    "eq",
    "concat",
    "copy",
    "bool",
    "reverse",
    "get",
    "set",
];

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
        let mut ops = if len == 0 {
            LIST_OPS.to_vec()
        } else {
            [LIST_OPS, NONEMPTY_LIST_OPS].concat()
        };
        // A list that never changes length gets the operations that keep
        // it (its helpers are only those).
        if !r.names.contains_key("append") {
            ops.retain(|op| FIXED_LIST_OPS.contains(op));
        }
        let any_index = |rng: &mut Rng| rng.range(-len - 3, len + 3);
        let valid_index = |rng: &mut Rng| rng.range(-len, len - 1);
        let (stmt, result): (String, Option<String>) = match *rng.pick(&ops) {
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
                let res = r.call(which, vec![l.clone(), LlValue::Signed(x)]);
                let stmt = if which == "contains" {
                    format!("print({x} in l)")
                } else {
                    format!("print(l.count({x}))")
                };
                (stmt, Some(value_repr(&res)))
            }
            "find" => {
                let x = small(rng);
                let res = r.call("find", vec![l.clone(), LlValue::Signed(x)]);
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
                let res = r.call("eq", vec![l.clone(), o]);
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
    random_list_operations(false);
}

#[test]
fn random_fixed_size_list_operations_agree_with_cpython() {
    random_list_operations(true);
}

/// Random sequences of list operations, on lists that change length or
/// (`fixed`) on lists that never do, give CPython's results.
fn random_list_operations(fixed: bool) {
    let helpers = list_helpers(fixed);
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

// -------------------------------------------------------------- strings

fn str_t() -> LowLevelType {
    LowLevelType::Ptr(lltype::STR.into())
}

fn string_helpers() -> Helpers {
    let mut types = TypeTable::new();
    types.insert(lltype::STR.into(), lltype::str_type());
    let strlist = lltype::add_list_type(&mut types, &str_t());
    let s = || HelperArg::Value(str_t());
    let int = || HelperArg::Value(LowLevelType::Signed);
    let ch = || HelperArg::Value(LowLevelType::Char);
    let flag = |b: bool| HelperArg::Const(Constant::Bool(b));
    let l = || HelperArg::Value(LowLevelType::Ptr(strlist.clone()));
    let list_t = || HelperArg::Type(strlist.clone());
    let str_type = || HelperArg::Type(lltype::STR.into());
    let mut wanted: Vec<(&str, &str, &str, Vec<HelperArg>)> = vec![
        ("newlist", "rlist", "ll_newlist", vec![list_t(), int()]),
        ("list_append", "rlist", "ll_append", vec![l(), s()]),
        ("list_len", "rlist", "ll_len", vec![l()]),
        ("list_get", "rlist", "ll_getitem_nonneg", vec![l(), int()]),
        ("strlen", "rstr", "ll_strlen", vec![s()]),
        ("getitem", "rstr", "ll_getitem", vec![s(), int()]),
        ("concat", "rstr", "ll_strconcat", vec![s(), s()]),
        ("eq", "rstr", "ll_streq", vec![s(), s()]),
        ("cmp", "rstr", "ll_strcmp", vec![s(), s()]),
        (
            "slice",
            "rstr",
            "ll_stringslice_startstop",
            vec![s(), int(), int()],
        ),
        (
            "slice_from",
            "rstr",
            "ll_stringslice_startonly",
            vec![s(), int()],
        ),
        (
            "slice_to",
            "rstr",
            "ll_stringslice_stoponly",
            vec![s(), int()],
        ),
        ("find", "rstr", "ll_find", vec![s(), s(), int(), int()]),
        ("rfind", "rstr", "ll_rfind", vec![s(), s(), int(), int()]),
        ("count", "rstr", "ll_count", vec![s(), s(), int(), int()]),
        (
            "find_char",
            "rstr",
            "ll_find_char",
            vec![s(), ch(), int(), int()],
        ),
        (
            "rfind_char",
            "rstr",
            "ll_rfind_char",
            vec![s(), ch(), int(), int()],
        ),
        (
            "count_char",
            "rstr",
            "ll_count_char",
            vec![s(), ch(), int(), int()],
        ),
        ("contains", "rstr", "ll_contains", vec![s(), s()]),
        ("contains_char", "rstr", "ll_contains_char", vec![s(), ch()]),
        ("startswith", "rstr", "ll_startswith", vec![s(), s()]),
        ("endswith", "rstr", "ll_endswith", vec![s(), s()]),
        (
            "startswith_char",
            "rstr",
            "ll_startswith_char",
            vec![s(), ch()],
        ),
        ("endswith_char", "rstr", "ll_endswith_char", vec![s(), ch()]),
        (
            "strip",
            "rstr",
            "ll_strip",
            vec![s(), flag(true), flag(true)],
        ),
        (
            "lstrip",
            "rstr",
            "ll_strip",
            vec![s(), flag(true), flag(false)],
        ),
        (
            "rstrip",
            "rstr",
            "ll_strip",
            vec![s(), flag(false), flag(true)],
        ),
        (
            "strip_chars",
            "rstr",
            "ll_strip_chars",
            vec![s(), s(), flag(true), flag(true)],
        ),
        (
            "lstrip_chars",
            "rstr",
            "ll_strip_chars",
            vec![s(), s(), flag(true), flag(false)],
        ),
        (
            "rstrip_chars",
            "rstr",
            "ll_strip_chars",
            vec![s(), s(), flag(false), flag(true)],
        ),
        (
            "split_ws",
            "rstr",
            "ll_split_whitespace",
            vec![list_t(), s(), int()],
        ),
        (
            "rsplit_ws",
            "rstr",
            "ll_rsplit_whitespace",
            vec![list_t(), s(), int()],
        ),
        ("split", "rstr", "ll_split", vec![list_t(), s(), s(), int()]),
        (
            "rsplit",
            "rstr",
            "ll_rsplit",
            vec![list_t(), s(), s(), int()],
        ),
        ("join", "rstr", "ll_join", vec![s(), l()]),
        ("upper", "rstr", "ll_upper", vec![s()]),
        ("lower", "rstr", "ll_lower", vec![s()]),
        ("char_upper", "rstr", "ll_char_upper", vec![ch()]),
        ("char_lower", "rstr", "ll_char_lower", vec![ch()]),
        ("replace", "rstr", "ll_replace", vec![s(), s(), s(), int()]),
        ("mul", "rstr", "ll_str_mul", vec![s(), int()]),
        (
            "char_mul",
            "rstr",
            "ll_char_mul",
            vec![str_type(), ch(), int()],
        ),
        ("chr2str", "rstr", "ll_chr2str", vec![str_type(), ch()]),
        ("hash", "rstr", "ll_strhash", vec![s()]),
    ];
    for class in STR_CLASSES {
        wanted.push((
            class,
            "rstr",
            Box::leak(format!("ll_{class}").into_boxed_str()),
            vec![s()],
        ));
        let char_key: &'static str = Box::leak(format!("char_{class}").into_boxed_str());
        let char_fn: &'static str = Box::leak(format!("ll_char_{class}").into_boxed_str());
        wanted.push((char_key, "rstr", char_fn, vec![ch()]));
    }
    Helpers::make(types, &wanted)
}

/// The character-class methods, on strings and on chars.
const STR_CLASSES: &[&str] = &[
    "isdigit", "isalpha", "isalnum", "isspace", "isupper", "islower",
];

/// The Python function the transcripts of string cases are written with:
/// a value in a form both sides write without a repr of their own
/// (strings as hex bytes).
const SHOW: &str = r#"
import sys
def show(x):
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return str(x)
    if isinstance(x, list):
        return "[" + ",".join(show(i) for i in x) + "]"
    if not isinstance(x, bytes):
        x = x.encode("latin-1")
    return "s" + "".join("%02x" % c for c in bytearray(x))
"#;

fn show_bytes(b: &[u8]) -> String {
    let mut out = "s".to_string();
    for c in b {
        write!(out, "{c:02x}").unwrap();
    }
    out
}

impl Runner<'_> {
    fn string(&self, text: &str) -> LlValue {
        self.interp.new_string(text.as_bytes())
    }

    fn show(&mut self, v: &LlValue) -> String {
        match v {
            LlValue::Char(c) => show_bytes(&[*c]),
            LlValue::Ptr(Some(_)) if self.interp.type_name(v).as_deref() != Some(lltype::STR) => {
                let LlValue::Signed(n) = self.call("list_len", vec![v.clone()]) else {
                    panic!("a list length")
                };
                let items: Vec<String> = (0..n)
                    .map(|i| {
                        let item = self.call("list_get", vec![v.clone(), LlValue::Signed(i)]);
                        self.show(&item)
                    })
                    .collect();
                format!("[{}]", items.join(","))
            }
            LlValue::Ptr(_) => show_bytes(&self.interp.string_bytes(v).expect("a string")),
            other => value_repr(other),
        }
    }
}

/// A Python literal of an ASCII string.
fn py_literal(text: &str) -> String {
    let mut out = "'".to_string();
    for b in text.bytes() {
        write!(out, "\\x{b:02x}").unwrap();
    }
    out.push('\'');
    out
}

/// A random string over a small alphabet (letters of both cases, digits,
/// whitespace, punctuation), so that searches find things.
fn random_string(rng: &mut Rng, max: i64) -> String {
    const ALPHABET: &[u8] = b"aabAZz09 \t\n\x0b\x0c\r,,.-";
    (0..rng.range(0, max))
        .map(|_| *rng.pick(ALPHABET) as char)
        .collect()
}

/// One random string and a random set of queries on it: the Python
/// expression of each and what the helpers give.
fn string_queries(r: &mut Runner, rng: &mut Rng, script: &mut String, transcript: &mut String) {
    let text = random_string(rng, 12);
    let s = r.string(&text);
    writeln!(script, "s = {}", py_literal(&text)).unwrap();
    let len = text.len() as i64;
    for _ in 0..rng.range(1, 12) {
        let bound = |rng: &mut Rng| rng.range(-len - 3, len + 3);
        let sub = random_string(rng, 3);
        let sub_v = r.string(&sub);
        let lit = py_literal(&sub);
        let ch = *rng.pick(b"aA0 ,z\t");
        let ch_lit = py_literal(&(ch as char).to_string());
        let chv = LlValue::Char(ch);
        let (a, b) = (bound(rng), bound(rng));
        let (ai, bi) = (LlValue::Signed(a), LlValue::Signed(b));
        let maxsplit = rng.range(-1, 3);
        let m = LlValue::Signed(maxsplit);
        let query = *rng.pick(&[
            "slice",
            "slice_from",
            "slice_to",
            "find",
            "rfind",
            "count",
            "find_char",
            "rfind_char",
            "count_char",
            "contains",
            "contains_char",
            "startswith",
            "endswith",
            "startswith_char",
            "endswith_char",
            "strip",
            "lstrip",
            "rstrip",
            "strip_chars",
            "lstrip_chars",
            "rstrip_chars",
            "split_ws",
            "rsplit_ws",
            "split",
            "rsplit",
            "join",
            "upper",
            "lower",
            "char_upper",
            "char_lower",
            "replace",
            "mul",
            "char_mul",
            "concat",
            "eq",
            "cmp",
            "getitem",
            "class",
            "char_class",
            "strlen",
            "chr2str",
        ]);
        let (expr, value) = match query {
            "slice" => (
                format!("s[{a}:{b}]"),
                r.call("slice", vec![s.clone(), ai, bi]),
            ),
            "slice_from" => (
                format!("s[{a}:]"),
                r.call("slice_from", vec![s.clone(), ai]),
            ),
            "slice_to" => (format!("s[:{b}]"), r.call("slice_to", vec![s.clone(), bi])),
            "find" | "rfind" | "count" => (
                format!("s.{query}({lit}, {a}, {b})"),
                r.call(query, vec![s.clone(), sub_v, ai, bi]),
            ),
            "find_char" | "rfind_char" | "count_char" => (
                format!("s.{}({ch_lit}, {a}, {b})", query.trim_end_matches("_char")),
                r.call(query, vec![s.clone(), chv, ai, bi]),
            ),
            "contains" => (format!("{lit} in s"), r.call(query, vec![s.clone(), sub_v])),
            "contains_char" => (
                format!("{ch_lit} in s"),
                r.call(query, vec![s.clone(), chv]),
            ),
            "startswith" | "endswith" => (
                format!("s.{query}({lit})"),
                r.call(query, vec![s.clone(), sub_v]),
            ),
            "startswith_char" | "endswith_char" => (
                format!("s.{}({ch_lit})", query.trim_end_matches("_char")),
                r.call(query, vec![s.clone(), chv]),
            ),
            "strip" | "lstrip" | "rstrip" => {
                (format!("s.{query}()"), r.call(query, vec![s.clone()]))
            }
            "strip_chars" | "lstrip_chars" | "rstrip_chars" => (
                format!("s.{}({lit})", query.trim_end_matches("_chars")),
                r.call(query, vec![s.clone(), sub_v]),
            ),
            "split_ws" | "rsplit_ws" => (
                format!("s.{}(None, {maxsplit})", query.trim_end_matches("_ws")),
                r.call(query, vec![s.clone(), m]),
            ),
            "split" | "rsplit" => {
                // A separator is never empty (that raises ValueError).
                let sep = format!("{}{}", ch as char, sub);
                let sep_v = r.string(&sep);
                (
                    format!("s.{query}({}, {maxsplit})", py_literal(&sep)),
                    r.call(query, vec![s.clone(), sep_v, m]),
                )
            }
            "join" => {
                let items: Vec<String> = (0..rng.range(0, 4))
                    .map(|_| random_string(rng, 3))
                    .collect();
                let l = r.call("newlist", vec![LlValue::Signed(0)]);
                for item in &items {
                    let iv = r.string(item);
                    r.call("list_append", vec![l.clone(), iv]);
                }
                let lits: Vec<String> = items.iter().map(|i| py_literal(i)).collect();
                (
                    format!("{lit}.join([{}])", lits.join(", ")),
                    r.call("join", vec![sub_v, l]),
                )
            }
            "upper" | "lower" => (format!("s.{query}()"), r.call(query, vec![s.clone()])),
            "char_upper" | "char_lower" => (
                format!("{ch_lit}.{}()", query.trim_start_matches("char_")),
                r.call(query, vec![chv]),
            ),
            "replace" => {
                let new = random_string(rng, 3);
                let new_v = r.string(&new);
                (
                    format!("s.replace({lit}, {}, {maxsplit})", py_literal(&new)),
                    r.call(query, vec![s.clone(), sub_v, new_v, m]),
                )
            }
            "mul" => (format!("s * {maxsplit}"), r.call(query, vec![s.clone(), m])),
            "char_mul" => (
                format!("{ch_lit} * {maxsplit}"),
                r.call(query, vec![chv, m]),
            ),
            "chr2str" => (ch_lit.clone(), r.call(query, vec![chv])),
            "concat" => (format!("s + {lit}"), r.call(query, vec![s.clone(), sub_v])),
            "eq" => {
                // Often an equal string that is another object.
                let other = if rng.range(0, 1) == 0 {
                    text.clone()
                } else {
                    sub
                };
                let ov = r.string(&other);
                (
                    format!("s == {}", py_literal(&other)),
                    r.call("eq", vec![s.clone(), ov]),
                )
            }
            "cmp" => (
                format!("(s > {lit}) - (s < {lit})"),
                r.call(query, vec![s.clone(), sub_v]),
            ),
            "getitem" if len > 0 => {
                let i = rng.range(-len, len - 1);
                (
                    format!("s[{i}]"),
                    r.call(query, vec![s.clone(), LlValue::Signed(i)]),
                )
            }
            "class" => {
                let class = *rng.pick(STR_CLASSES);
                (format!("s.{class}()"), r.call(class, vec![s.clone()]))
            }
            "char_class" => {
                let class = *rng.pick(STR_CLASSES);
                let key = format!("char_{class}");
                (format!("{ch_lit}.{class}()"), r.call(&key, vec![chv]))
            }
            _ => ("len(s)".into(), r.call("strlen", vec![s.clone()])),
        };
        writeln!(script, "print(show({expr}))").unwrap();
        writeln!(transcript, "{}", r.show(&value)).unwrap();
    }
}

#[test]
fn random_string_operations_agree_with_cpython() {
    let helpers = string_helpers();
    let mut runner = Runner::new(&helpers);
    let seed = std::env::var("RPY_LL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x57_12_19);
    let mut rng = Rng(seed);
    let mut cases = Vec::new();
    let mut whole = SHOW.to_string();
    for _ in 0..600 {
        let (mut script, mut transcript) = (String::new(), String::new());
        string_queries(&mut runner, &mut rng, &mut script, &mut transcript);
        whole.push_str(&script);
        whole.push_str("print('--')\n");
        cases.push((script, transcript));
    }
    compare_cases(&cases, &python(&whole));
}

// ------------------------------------------------------- hash, iterators

const PYTHON2: &str = concat!(env!("HOME"), "/.pyenv/versions/2.7.18/bin/python2.7");

#[test]
fn string_hashes_are_cpython2s_and_cached() {
    if !std::path::Path::new(PYTHON2).exists() {
        eprintln!("skipped: CPython 2.7 ({PYTHON2}) is not installed; its str hash is the oracle");
        return;
    }
    let helpers = string_helpers();
    let mut runner = Runner::new(&helpers);
    let mut rng = Rng(0x4a54);
    let texts: Vec<String> = (0..300)
        .map(|_| random_string(&mut rng, 20))
        .filter(|t| !t.is_empty())
        .collect();
    let mut ours = String::new();
    let mut script = String::new();
    for text in &texts {
        let s = runner.string(text);
        let first = runner.call("hash", vec![s.clone()]);
        // The second call reads the cached field.
        assert_eq!(runner.call("hash", vec![s.clone()]), first, "{text:?}");
        writeln!(ours, "{}", value_repr(&first)).unwrap();
        writeln!(script, "print(hash({}))", py_literal(text)).unwrap();
    }
    let out = Command::new(PYTHON2)
        .arg("-c")
        .arg(&script)
        .env("PYTHONHASHSEED", "0")
        .output()
        .expect("python2.7 runs");
    assert_eq!(ours, String::from_utf8_lossy(&out.stdout));
}

/// The list types and an iterator struct over lists of ints, as
/// `ll_listiter` and `ll_listnext` take it.
fn list_iter_types() -> (TypeTable, String, String) {
    let (mut types, list) = list_types();
    let iter = "listiter_signed".to_string();
    types.insert(
        iter.clone(),
        lltype::ContainerType::GcStruct {
            fields: vec![
                ("list".into(), LowLevelType::Ptr(list.clone())),
                ("index".into(), LowLevelType::Signed),
            ],
            var_item: None,
        },
    );
    (types, list, iter)
}

#[test]
fn list_iteration_visits_every_item() {
    let (types, list, iter) = list_iter_types();
    let l = || HelperArg::Value(LowLevelType::Ptr(list.clone()));
    let helpers = Helpers::make(
        types,
        &[
            (
                "newlist",
                "rlist",
                "ll_newlist",
                vec![
                    HelperArg::Type(list.clone()),
                    HelperArg::Value(LowLevelType::Signed),
                ],
            ),
            (
                "append",
                "rlist",
                "ll_append",
                vec![l(), HelperArg::Value(LowLevelType::Signed)],
            ),
            ("len", "rlist", "ll_len", vec![l()]),
            (
                "getitem_nonneg",
                "rlist",
                "ll_getitem_nonneg",
                vec![l(), HelperArg::Value(LowLevelType::Signed)],
            ),
            (
                "iter",
                "rlist",
                "ll_listiter",
                vec![HelperArg::Type(iter.clone()), l()],
            ),
        ],
    );
    let mut r = Runner::new(&helpers);
    let items = [4, -2, 7];
    let lv = r.new_int_list(&items);
    let it = r.call("iter", vec![lv.clone()]);
    let fields = r.interp.fields(&it).expect("an iterator");
    assert_eq!(fields[0], lv, "the iterator holds the list");
    assert_eq!(fields[1], LlValue::Signed(0), "from its start");
}

/// The helpers that raise annotate; they rtype once the rtyper lowers
/// `raise` (the exception machinery of the rtyper core).
#[test]
fn raising_helpers_annotate() {
    let (types, list, iter) = list_iter_types();
    let l = || HelperArg::Value(LowLevelType::Ptr(list.clone()));
    let s = || HelperArg::Value(str_t());
    let int = || HelperArg::Value(LowLevelType::Signed);
    let none = || HelperArg::Const(Constant::None);
    let it = HelperArg::Value(LowLevelType::Ptr(iter));
    let cases: Vec<(&str, &str, Vec<HelperArg>)> = vec![
        ("rlist", "ll_getitem_checked", vec![l(), int()]),
        ("rlist", "ll_setitem_checked", vec![l(), int(), int()]),
        ("rlist", "ll_delitem_checked", vec![l(), int()]),
        ("rlist", "ll_pop_checked", vec![l(), int()]),
        ("rlist", "ll_pop_end_checked", vec![l()]),
        ("rlist", "ll_index", vec![l(), int(), none()]),
        ("rlist", "ll_remove", vec![l(), int(), none()]),
        ("rlist", "ll_listnext", vec![it]),
        ("rstr", "ll_getitem_checked", vec![s(), int()]),
        ("rint", "ll_int_floordiv_zer", vec![int(), int()]),
        ("rint", "ll_int_mod_zer", vec![int(), int()]),
        ("rint", "ll_int_add_ovf", vec![int(), int()]),
        ("rint", "ll_int_sub_ovf", vec![int(), int()]),
        ("rint", "ll_int_mul_ovf", vec![int(), int()]),
        ("rint", "ll_int_neg_ovf", vec![int()]),
        ("rint", "ll_int_abs_ovf", vec![int()]),
        ("rint", "ll_int_floordiv_ovf", vec![int(), int()]),
        ("rint", "ll_int_floordiv_ovf_zer", vec![int(), int()]),
        ("rint", "ll_int_mod_ovf_zer", vec![int(), int()]),
    ];
    let mut helpers = LowLevelHelpers::new();
    for (module, func, args) in cases {
        let (_, annotated) = helpers
            .annotate_only(module, func, &args, &types)
            .unwrap_or_else(|e| panic!("{module}.{func}: {e}"));
        assert!(!annotated.graphs.is_empty());
    }
}

#[test]
fn helper_graphs_snapshot() {
    let (mut types, list) = list_types();
    let l = HelperArg::Value(LowLevelType::Ptr(list.clone()));
    let int = HelperArg::Value(LowLevelType::Signed);
    let s = HelperArg::Value(str_t());
    let mut graphs = Vec::new();
    for (module, func, args) in [
        ("rlist", "ll_append", vec![l.clone(), int.clone()]),
        ("rlist", "ll_getitem", vec![l.clone(), int.clone()]),
        (
            "rstr",
            "ll_stringslice_startstop",
            vec![s.clone(), int.clone(), int.clone()],
        ),
        ("rstr", "ll_strhash", vec![s.clone()]),
    ] {
        rtype_helper(module, func, &args, &mut types, &mut graphs);
    }
    let mut text = String::new();
    for g in &graphs {
        text.push_str(&rpy_ir::text::print_graph(g));
        text.push('\n');
    }
    insta::with_settings!({
        snapshot_path => root().join("snapshots"),
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!("ll_helpers__append_getitem_slice_hash", text);
    });
}

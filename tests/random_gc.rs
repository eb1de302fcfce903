//! Random programs that exercise the garbage collector, against CPython 3.
//!
//! Each case is a function that builds and drops instances, lists and dicts
//! of them: reference cycles (`a.other = b; b.other = a`, rings of nodes),
//! trees, prebuilt objects (a module-level node, list, dict of nodes and
//! dict of lists of strs, built at import time) mutated to point at objects
//! made at run time and later replaced, objects kept alive across many
//! allocations (`churn`) whose contents are printed at the end. Each case
//! also has a helper, `@dont_inline` so that no caller's frame keeps its
//! locals, that makes and drops objects of a class with a `__del__` (alone,
//! in cycles, hanging off rings, in lists): the caller resets a prebuilt
//! ledger, calls it, calls `gc.collect()` once (CPython finds everything
//! unreachable in one) and prints how many objects were finalized and the
//! sum of their values. An object is found dead only when
//! no frame and no static holds it, so finalizable objects never go into
//! the prebuilt containers, and the helper returns an int.
//!
//! The executable runs with `RPY_GC_DEBUG=1` (a minor collection at every
//! allocation, a major one every 64th, freed memory overwritten) and with
//! the default nursery; the LLInterpreter runs the program too, but it is
//! reference counted and never finds a cycle dead, so the ledger lines of a
//! helper that may link its objects (`fin*` lines) are left out of its
//! comparison.
//!
//! Many cases share one program (the C compiler runs once per batch); on a
//! disagreement the failing function is found (its lines start with its
//! name) and shrunk statement by statement, its helper's too, to a small
//! program that still fails. `RPY_GC_PROPTEST_CASES` (default 120),
//! `RPY_GC_PROPTEST_BATCH` (default 15) and `RPY_GC_PROPTEST_SEED` change
//! the run; `RPY_GC_PROPTEST_DUMP=DIR` keeps each batch's program.

mod support;

use rayon::prelude::*;
use rpy::pipeline::{Source, Timings};
use rpy_ir::ast::Dialect;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::random::{batch_program, case_functions, count, render_body, without, Rng, Stmt};

const PRELUDE: &str = "\
import gc
import sys
from rpython.rlib.objectmodel import dont_inline


class Ledger(object):
    def __init__(self):
        self.dels = 0
        self.weight = 0


LEDGER = Ledger()


class Node(object):
    def __init__(self, val, tag):
        self.val = val
        self.tag = tag
        self.other = None
        self.kids = []
        self.fin = None


class Fin(object):
    def __init__(self, val):
        self.val = val
        self.peer = None
        self.node = None

    def __del__(self):
        LEDGER.dels += 1
        LEDGER.weight += self.val


PRE_NODE = Node(1, \"pre\")
PRE_LIST = [Node(2, \"pa\"), Node(3, \"pb\")]
PRE_DICT = {1: Node(4, \"pc\"), 2: Node(5, \"pd\")}
PRE_STRS = {\"k\": [\"x\"], \"j\": []}
PRE_NODE.kids.append(PRE_LIST[0])
PRE_LIST[1].other = PRE_NODE


def make_ring(k, base):
    first = Node(base, \"r\")
    last = first
    for i in range(1, k):
        node = Node(base + i, \"r\")
        last.other = node
        last = node
    last.other = first
    return first


def make_tree(depth, base):
    node = Node(base, \"t\")
    if depth > 0:
        node.kids.append(make_tree(depth - 1, base * 2 % 97))
        node.kids.append(make_tree(depth - 1, (base * 2 + 1) % 97))
    return node


def churn(k):
    total = 0
    for i in range(k):
        junk = [Node(i, \"j\"), Node(i + 1, \"j\")]
        junk[0].other = junk[1]
        junk[1].other = junk[0]
        d = {i: str(i) + \"c\"}
        s = d[i] + \"x\" * (i % 5)
        total = (total + len(s) + len(junk) + junk[1].other.val) % 1000
    return total


def show(node, depth):
    if node is None:
        return \"-\"
    s = str(node.val) + node.tag
    if depth > 0:
        s += \"<\" + show(node.other, depth - 1)
        for kid in node.kids:
            s += \",\" + show(kid, depth - 1)
        s += \">\"
    return s


def show_list(nodes):
    s = \"[\"
    for node in nodes:
        s += show(node, 2) + \";\"
    return s + \"]\"


def show_dict(nodes):
    s = \"{\"
    for k, node in nodes.items():
        s += str(k) + \":\" + show(node, 2) + \";\"
    return s + \"}\"


def show_pre():
    s = show(PRE_NODE, 3) + show_list(PRE_LIST) + show_dict(PRE_DICT)
    for k, strs in PRE_STRS.items():
        s += k + \"=\" + \",\".join(strs) + \";\"
    return s

";

/// The locals of every case, assigned first so that each keeps one type.
const INIT: &str = "    a = Node(n % 10, \"a\")
    b = Node(2, \"b\")
    c = Node(3, \"c\")
    lst = [a]
    d = {1: b}
    keep = [c]
    acc = 0
";

/// The locals of every finalizing helper.
const FIN_INIT: &str = "    p = Fin(n % 10 + 1)
    q = Fin(20)
    m = Node(3, \"m\")
    fl = [Fin(30)]
";

#[derive(Clone, Debug)]
struct Function {
    name: String,
    body: Vec<Stmt>,
    /// The body of its `@dont_inline` helper that makes finalizable objects.
    fin: Vec<Stmt>,
}

/// Does a helper's body link its objects (so that they may form a cycle,
/// which the LLInterpreter never finds dead)?
fn links(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::Simple(l) => [".peer =", ".node =", ".fin =", ".other =", "make_ring"]
            .iter()
            .any(|w| l.contains(w)),
        Stmt::Compound(c) => c.iter().any(|(_, b)| links(b)),
    })
}

impl Function {
    fn render(&self) -> String {
        let name = &self.name;
        let mut s = format!("@dont_inline\ndef {name}_fin(n):\n{FIN_INIT}");
        render_body(&self.fin, 4, &mut s);
        s += "    return p.val + q.val + len(fl)\n\n\n";
        s += &format!("def {name}(n):\n{INIT}");
        render_body(&self.body, 4, &mut s);
        let tag = if links(&self.fin) { "fin*" } else { "fin" };
        s += &format!(
            "    LEDGER.dels = 0
    LEDGER.weight = 0
    r = {name}_fin(n)
    gc.collect()
    print(\"{name} {tag} \" + str(r) + \" \" + str(LEDGER.dels) + \" \" + str(LEDGER.weight))
    print(\"{name} \" + show(a, 3) + \"|\" + show(b, 3) + \"|\" + show(c, 3) + \"|\" + show_list(lst) + \"|\" + show_dict(d) + \"|\" + show_list(keep) + \"|\" + str(acc) + \"|\" + show_pre())
    return acc
"
        );
        s
    }
}

fn program(functions: &[&Function], n: i64) -> String {
    batch_program(
        PRELUDE,
        functions.iter().map(|f| (f.name.as_str(), f.render())),
        n,
    )
}

// ---------------------------------------------------------------------------
// The generator.

struct Gen<'r> {
    rng: &'r mut Rng,
    depth: usize,
    /// Inside `for j in range(...)`: `j` is an int.
    in_loop: bool,
    /// In a loop over `lst` or a prebuilt container: that container is
    /// not resized.
    frozen: bool,
}

impl Gen<'_> {
    fn small(&mut self) -> String {
        match self.rng.below(5) {
            0 => "n % 10".into(),
            1 if self.in_loop => "j".into(),
            2 => "acc % 10".into(),
            3 => format!("{}.val", self.node_var()),
            _ => self.rng.range(0, 30).to_string(),
        }
    }
    fn node_var(&mut self) -> &'static str {
        self.rng.pick(&["a", "b", "c"])
    }
    fn tag(&mut self) -> String {
        format!("{:?}", self.rng.pick(&["x", "y", "z", "w"]))
    }

    /// A node expression that cannot raise.
    fn node(&mut self) -> String {
        match self.rng.below(12) {
            0..=2 => format!("Node({}, {})", self.small(), self.tag()),
            3..=5 => self.node_var().to_string(),
            6 => format!("make_ring({}, {})", self.rng.range(1, 5), self.small()),
            7 => format!("make_tree({}, {})", self.rng.range(0, 2), self.small()),
            8 => format!("lst[{} % len(lst)]", self.small()),
            9 => format!("d.get({} % 4, {})", self.small(), self.node_var()),
            10 => format!("PRE_LIST[{} % len(PRE_LIST)]", self.small()),
            _ => "PRE_NODE".into(),
        }
    }

    fn stmt(&mut self) -> Stmt {
        let s = Stmt::Simple;
        let x = self.node_var();
        match self.rng.below(30) {
            0..=2 => s(format!("{x} = {}", self.node())),
            3 | 4 => {
                let y = self.node_var();
                s(format!("{x}.other = {y}"))
            }
            5 => s(format!("{x}.other = {}", self.node())),
            6 => s(format!("{x}.other = None")),
            7 => Stmt::Compound(vec![(
                format!("if len({x}.kids) < 5:"),
                vec![s(format!("{x}.kids.append({})", self.node()))],
            )]),
            8 => s(format!("{x}.kids = [{}, {}]", self.node(), self.node())),
            9 => Stmt::Compound(vec![(
                format!("if len({x}.kids) > 0:"),
                vec![s(format!("del {x}.kids[0]"))],
            )]),
            10 => s(format!("{x}.val = ({x}.val + {}) % 100", self.small())),
            11 if !self.frozen => Stmt::Compound(vec![(
                "if len(lst) < 10:".into(),
                vec![s(format!("lst.append({})", self.node()))],
            )]),
            12 if !self.frozen => Stmt::Compound(vec![(
                "if len(lst) > 1:".into(),
                vec![s("lst.pop()".into())],
            )]),
            13 => s(format!(
                "lst[{} % len(lst)] = {}",
                self.small(),
                self.node()
            )),
            14 => s(format!("d[{} % 5] = {}", self.small(), self.node())),
            15 => {
                let k = self.small();
                Stmt::Compound(vec![(
                    format!("if {k} % 5 in d:"),
                    vec![s(format!("del d[{k} % 5]"))],
                )])
            }
            // The prebuilt objects, pointed at new objects and back.
            16 => s(format!("PRE_NODE.other = {}", self.node())),
            17 => s("PRE_NODE.other = None".into()),
            18 => Stmt::Compound(vec![(
                "if len(PRE_NODE.kids) < 5:".into(),
                vec![s(format!("PRE_NODE.kids.append({})", self.node()))],
            )]),
            19 => s(format!(
                "PRE_LIST[{} % len(PRE_LIST)] = {}",
                self.small(),
                self.node()
            )),
            20 if !self.frozen => Stmt::Compound(vec![
                (
                    "if len(PRE_LIST) < 8:".into(),
                    vec![s(format!("PRE_LIST.append({})", self.node()))],
                ),
                ("else:".into(), vec![s("PRE_LIST.pop()".into())]),
            ]),
            21 => s(format!("PRE_DICT[{} % 6] = {}", self.small(), self.node())),
            22 => {
                let k = self.small();
                Stmt::Compound(vec![(
                    format!("if {k} % 6 in PRE_DICT and len(PRE_DICT) > 1:"),
                    vec![s(format!("del PRE_DICT[{k} % 6]"))],
                )])
            }
            23 => {
                let key = self.rng.pick(&["\"k\"", "\"j\"", "str(n % 3)"]);
                match self.rng.below(2) {
                    0 => s(format!("PRE_STRS[{key}] = [str({}) + \"s\"]", self.small())),
                    _ => Stmt::Compound(vec![(
                        "if len(PRE_STRS[\"k\"]) < 6:".into(),
                        vec![s(format!(
                            "PRE_STRS[\"k\"].append({}.tag + str({}))",
                            self.node_var(),
                            self.small()
                        ))],
                    )]),
                }
            }
            // Kept alive across many allocations.
            24 if !self.frozen => Stmt::Compound(vec![(
                "if len(keep) < 8:".into(),
                vec![s(format!("keep.append({})", self.node()))],
            )]),
            25 => s(format!(
                "acc = (acc + churn({})) % 1000",
                self.rng.range(5, 60)
            )),
            26 => {
                let (y, z) = (self.node_var(), self.node_var());
                Stmt::Compound(vec![(
                    "if True:".into(),
                    vec![
                        s(format!("{x}.other = {y}")),
                        s(format!("{y}.other = {z}")),
                        s(format!("{z}.other = {x}")),
                    ],
                )])
            }
            27 if self.depth < 2 && !self.in_loop => {
                let k = self.rng.range(1, 12);
                self.depth += 1;
                self.in_loop = true;
                let len = 1 + self.rng.below(3);
                let body = self.body(len);
                self.in_loop = false;
                self.depth -= 1;
                Stmt::Compound(vec![(format!("for j in range({k}):"), body)])
            }
            28 if self.depth < 2 && !self.frozen => {
                self.depth += 1;
                self.frozen = true;
                let len = 1 + self.rng.below(2);
                let body = self.body(len);
                self.frozen = false;
                self.depth -= 1;
                let over = self.rng.pick(&["lst", "keep", "PRE_LIST"]);
                Stmt::Compound(vec![(format!("for {x} in {over}:"), body)])
            }
            _ => s(format!("{x} = Node({}, {})", self.small(), self.tag())),
        }
    }

    fn body(&mut self, n: usize) -> Vec<Stmt> {
        (0..n).map(|_| self.stmt()).collect()
    }

    /// A statement of a finalizing helper: its `Fin` objects stay in its
    /// locals `p`, `q`, `fl` and in what `m` reaches.
    fn fin_stmt(&mut self) -> Stmt {
        let s = Stmt::Simple;
        let x = self.rng.pick(&["p", "q"]);
        let y = self.rng.pick(&["p", "q"]);
        let val = self.rng.range(1, 99);
        match self.rng.below(16) {
            0 | 1 => s(format!("{x} = Fin({val})")),
            2 => s(format!("Fin({val})")),
            3 => s(format!("{x}.peer = {y}")),
            4 => s(format!("{x}.peer = Fin({val})")),
            5 => s(format!("{x}.peer = None")),
            6 => s(format!("{x}.node = m")),
            7 => s(format!("m.fin = {x}")),
            8 => s(format!("m.fin = Fin({val})")),
            9 => s(format!("m = make_ring({}, {val})", self.rng.range(1, 4))),
            10 => s(format!("m = Node({val}, \"m\")")),
            11 => s(format!("m.kids.append(make_tree(1, {val}))")),
            12 => s(format!("fl.append(Fin({val}))")),
            13 => s(format!("fl = [{x}, Fin({val})]")),
            14 => s("fl = []".into()),
            _ if self.depth == 0 => {
                let k = self.rng.range(1, 10);
                self.depth += 1;
                let body = (0..1 + self.rng.below(2))
                    .map(|_| self.fin_stmt())
                    .collect();
                self.depth -= 1;
                Stmt::Compound(vec![(format!("for j in range({k}):"), body)])
            }
            _ => s(format!("{x} = Fin({val})")),
        }
    }
}

fn function(seed: u64, name: &str) -> Function {
    let mut rng = Rng(seed);
    let n = 4 + rng.below(12);
    let k = 1 + rng.below(6);
    let mut g = Gen {
        rng: &mut rng,
        depth: 0,
        in_loop: false,
        frozen: false,
    };
    let body = g.body(n);
    let fin = (0..k).map(|_| g.fin_stmt()).collect();
    Function {
        name: name.to_string(),
        body,
        fin,
    }
}

// ---------------------------------------------------------------------------
// Running a program and comparing.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Engine {
    LlInterp,
    /// With `RPY_GC_DEBUG=1`.
    ExecutableDebug,
    /// With the default nursery.
    Executable,
}

const ENGINES: [Engine; 3] = [
    Engine::LlInterp,
    Engine::ExecutableDebug,
    Engine::Executable,
];

#[derive(Clone, Debug, PartialEq)]
enum Failure {
    Mismatch(Engine),
    Error(Engine, String),
}

impl Failure {
    fn engine(&self) -> Engine {
        match self {
            Failure::Mismatch(e) | Failure::Error(e, _) => *e,
        }
    }
}

struct Runner {
    python: PathBuf,
    dir: PathBuf,
    runs: usize,
}

/// What the LLInterpreter is held to: the lines of CPython's output but
/// those of helpers whose objects may be in a cycle.
fn without_cycle_ledgers(out: &str) -> String {
    out.lines()
        .filter(|l| l.split(' ').nth(1) != Some("fin*"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The function whose line differs first.
fn culprit(expected: &str, got: &str) -> Option<String> {
    let e: Vec<&str> = expected.lines().collect();
    let g: Vec<&str> = got.lines().collect();
    let i = (0..e.len().max(g.len())).find(|&i| e.get(i) != g.get(i))?;
    let line = e.get(i).or(g.get(i))?;
    let name = line.split(' ').next()?;
    name.starts_with('f').then(|| name.to_string())
}

fn message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic".into())
}

impl Runner {
    /// Stdout and status of `engine` on the program, or rpy's error.
    fn run(
        &mut self,
        engine: Engine,
        file: &Path,
        text: &str,
        n: i64,
    ) -> Result<(String, i32), String> {
        let src = Source {
            path: file.to_string_lossy().into_owned(),
            text: text.to_string(),
            dialect: Dialect::Py3,
            gc: rpy_ir::llops::GcKind::default(),
            jit: false,
        };
        let argv = vec![src.path.clone(), n.to_string()];
        let work = || -> Result<(String, i32), String> {
            match engine {
                Engine::LlInterp => {
                    let program = rpy::pipeline::lowlevel(&src).map_err(|d| d.to_string())?;
                    let mut out = Vec::new();
                    let status = rpy_llinterp::LlInterpreter::new(&program)
                        .run_entry(&argv, &mut out)
                        .map_err(|e| e.message)?;
                    Ok((String::from_utf8_lossy(&out).into_owned(), status as i32))
                }
                Engine::ExecutableDebug | Engine::Executable => {
                    let exe = file.with_extension("exe");
                    if !exe.exists() {
                        rpy::cli::translate(&src, &exe, &mut Timings::default())
                            .map_err(|d| d.to_string())?;
                    }
                    let mut cmd = Command::new(&exe);
                    cmd.arg(n.to_string());
                    if engine == Engine::ExecutableDebug {
                        cmd.env("RPY_GC_DEBUG", "1");
                    }
                    let out = cmd.output().map_err(|e| e.to_string())?;
                    let mut stdout = support::text_of(out.stdout);
                    if !out.status.success() {
                        stdout += &format!("stderr: {}", String::from_utf8_lossy(&out.stderr));
                    }
                    Ok((stdout, out.status.code().unwrap_or(-1)))
                }
            }
        };
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
            .unwrap_or_else(|p| Err(format!("rpy panicked: {}", message(p))))
    }

    /// How the program of `functions` fails in `engines`, if it does: the
    /// failure, the function to blame if one can be told, and a detail.
    fn check(
        &mut self,
        functions: &[&Function],
        n: i64,
        engines: &[Engine],
    ) -> Option<(Failure, Option<String>, String)> {
        let text = program(functions, n);
        self.runs += 1;
        let file = self.dir.join(format!("g{}.py", self.runs));
        std::fs::write(&file, &text).unwrap();
        let mut python = Command::new(&self.python);
        python
            .arg(&file)
            .env("PYTHONPATH", support::root().join("pylib"));
        let expected = support::run(&mut python);
        if expected.1 != 0 {
            let err = python.output().unwrap();
            panic!(
                "the generator made a program CPython rejects:\n{text}\n{}",
                String::from_utf8_lossy(&err.stderr)
            );
        }
        let mut found = None;
        for &engine in engines {
            let want = match engine {
                Engine::LlInterp => without_cycle_ledgers(&expected.0),
                _ => expected.0.clone(),
            };
            match self.run(engine, &file, &text, n) {
                Ok((out, status)) => {
                    let out = match engine {
                        Engine::LlInterp => without_cycle_ledgers(&out),
                        _ => out,
                    };
                    if (out.as_str(), status) != (want.as_str(), 0) {
                        let who = culprit(&want, &out);
                        let detail = format!(
                            "{engine:?} printed (status {status}):\n{out}\nCPython printed:\n{want}"
                        );
                        found = Some((Failure::Mismatch(engine), who, detail));
                        break;
                    }
                }
                Err(msg) => {
                    let who = functions
                        .iter()
                        .find(|f| msg.contains(&format!("{}(", f.name)))
                        .map(|f| f.name.clone());
                    let key = msg.lines().next().unwrap_or("").to_string();
                    let key = key.split(": error: ").last().unwrap_or("").to_string();
                    found = Some((Failure::Error(engine, key), who, msg));
                    break;
                }
            }
        }
        let _ = std::fs::remove_file(file.with_extension("exe"));
        found
    }

    fn fails_alone(&mut self, f: &Function, n: i64, failure: &Failure) -> bool {
        matches!(self.check(&[f], n, &[failure.engine()]), Some((got, _, _)) if got == *failure)
    }

    /// Deletes statements of `f` (of its body, then of its helper) while it
    /// still fails as `failure`.
    fn shrink(&mut self, f: &Function, n: i64, failure: &Failure) -> Function {
        let mut best = f.clone();
        let mut tries = 0;
        let budget = 80;
        for helper in [false, true] {
            let mut progress = true;
            while progress && tries < budget {
                progress = false;
                let body = if helper { &best.fin } else { &best.body };
                for k in (0..count(body)).rev() {
                    if tries >= budget {
                        break;
                    }
                    let mut idx = k;
                    let mut candidate = best.clone();
                    if helper {
                        candidate.fin = without(&best.fin, &mut idx);
                    } else {
                        candidate.body = without(&best.body, &mut idx);
                    }
                    tries += 1;
                    if self.fails_alone(&candidate, n, failure) {
                        best = candidate;
                        progress = true;
                        break;
                    }
                }
            }
        }
        best
    }
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn random_gc_programs_agree_with_cpython() {
    let Some(python) = support::oracle(Dialect::Py3) else {
        eprintln!("skipping: python3 is not on this machine");
        return;
    };
    let cases = env("RPY_GC_PROPTEST_CASES", 120) as usize;
    let batch = env("RPY_GC_PROPTEST_BATCH", 15).max(1) as usize;
    let seed = env("RPY_GC_PROPTEST_SEED", 1);
    let dump = std::env::var("RPY_GC_PROPTEST_DUMP").ok();
    let dir = support::ScratchDir::new("random-gc");
    // The batches are independent programs: they run on every core, each
    // in a folder of its own.
    let starts: Vec<usize> = (0..cases).step_by(batch).collect();
    let outcomes: Vec<(usize, Vec<String>)> = starts
        .par_iter()
        .map(|&start| {
            let mut runner = Runner {
                python: python.clone(),
                dir: dir.join(format!("batch{start}")),
                runs: 0,
            };
            std::fs::create_dir_all(&runner.dir).unwrap();
            let mut failures = Vec::new();
            let mut clean = 0;
            let end = (start + batch).min(cases);
            let functions = case_functions(seed, start..end, function);
            let n = Rng(seed ^ start as u64).range(0, 50);
            let mut live: Vec<&Function> = functions.iter().collect();
            if let Some(dump) = &dump {
                let path = Path::new(dump).join(format!("gc_batch{start}.py"));
                std::fs::write(path, program(&live, n)).unwrap();
            }
            // A bug of the collector tends to break every case of a batch:
            // after a few failures the batch stops.
            while !live.is_empty() && failures.len() < 3 {
                let Some((failure, who, detail)) = runner.check(&live, n, &ENGINES) else {
                    clean += live.len();
                    break;
                };
                let at = match who.and_then(|w| live.iter().position(|f| f.name == w)) {
                    Some(i) => Some(i),
                    None => (0..live.len())
                        .find(|&i| runner.check(&[live[i]], n, &[failure.engine()]).is_some()),
                };
                let Some(i) = at else {
                    failures.push(format!(
                        "a batch of {} functions fails but none alone does: {failure:?}\n{detail}",
                        live.len()
                    ));
                    break;
                };
                let f = live.remove(i);
                let mut text = format!("{failure:?} in {}\n", f.name);
                match runner.check(&[f], n, &ENGINES) {
                    Some((alone, _, _)) => {
                        let small = runner.shrink(f, n, &alone);
                        let small_detail = runner
                            .check(&[&small], n, &ENGINES)
                            .map(|(_, _, d)| d)
                            .unwrap_or_default();
                        text += &format!(
                            "shrunk ({alone:?}), with argv[1] = {n}:\n{}\n{small_detail}\n",
                            program(&[&small], n)
                        );
                    }
                    None => text += &format!("(it passes alone)\n{detail}\n"),
                }
                eprintln!("{text}");
                failures.push(text);
            }
            eprintln!(
                "random_gc: cases {start}..{end}: {clean} clean, {} failed",
                failures.len()
            );
            (clean, failures)
        })
        .collect();
    let clean: usize = outcomes.iter().map(|(clean, _)| clean).sum();
    let failures: Vec<String> = outcomes.into_iter().flat_map(|(_, f)| f).collect();
    eprintln!("random_gc: {clean} of {cases} cases clean");
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

//! `cargo bench --bench annotate`: the annotator's time on generated programs
//! of 1,000 to 10,000 lines, and how it grows with size, for two families:
//! `functions` (many functions calling each other, with ints, floats,
//! strings, lists and loops) and `classes` (about 40 classes per 1,000
//! lines in hierarchies under one root, with overridden methods called
//! through base-class variables, attributes, isinstance and exception
//! subclasses; see `CLASS_GROUP`). The budget is 300 ms for 10,000 lines.
//!
//! On the 2-core development machine (shared, so best of 3 bench runs),
//! December 2026:
//!
//! | program   | lines | classes | annotate | per 1k lines | instructions per 1k lines |
//! |-----------|------:|--------:|---------:|-------------:|--------------------------:|
//! | functions |   953 |       0 |   2.1 ms |      2.20 ms |                     29.1M |
//! | functions |  9578 |       0 |  31.3 ms |      3.27 ms |                     30.3M |
//! | classes   |   951 |      41 |   3.9 ms |      4.10 ms |                     46.4M |
//! | classes   |  9921 |     431 |  58.5 ms |      5.90 ms |                     52.1M |
//!
//! The work grows about linearly: the instructions of one annotation per
//! 1,000 lines differ by 4% (functions) and 12% (classes) between 1,000 and
//! 10,000 lines (counted by running the bench binary with `classes 10000`
//! under `valgrind --tool=callgrind --toggle-collect='rpy_passes::annotate::annotate*'`
//! and dividing by its runs); the time per line grows more, as the larger
//! tables outgrow the caches. Before the class tables of `classdefs` were
//! made once, the class program took 83M (1,000 lines) to 91M (10,000)
//! instructions per 1,000 lines.
//!
//! The program is parsed and flowed once per size; only `annotate` is timed
//! (best of several runs, each on a fresh copy of the flow graphs).
//! `cargo bench --bench annotate -- classes 10000` runs one family, or one
//! size.

use rpy::pipeline::{run_until, Source, StageName, StageOutput, Timings};
use rpy_ir::ast::Dialect;
use rpy_ir::graph::PrebuiltObject;
use std::fmt::Write;
use std::time::{Duration, Instant};

/// One function of about 24 lines. It calls the two functions before it, so
/// the call graph is deep and every return annotation flows to two callers.
fn function(out: &mut String, k: usize) {
    let calls = match k {
        0 => "acc = acc + 1".to_string(),
        1 => "acc = acc + f0(i, s)".to_string(),
        _ => format!("acc = acc + f{}(i, s) - f{}(acc % 7, s)", k - 1, k - 2),
    };
    let _ = write!(
        out,
        "def f{k}(n, s):
    acc = n
    total = 0.5
    i = 0
    words = [s, \"w{k}\"]
    while i < n % 5 + 2:
        {calls}
        total = total * 1.5 + i
        if acc > 1000:
            acc = acc // 3
        elif acc < -1000:
            acc = -acc
        else:
            acc = acc ^ {k}
        i = i + 1
    label = words[i % 2] + str(acc)
    if len(label) > 40:
        label = label[0] + \"...\"
    if total > 1e9:
        acc = acc + int(total) % 11
    return acc + len(label)


"
    );
}

/// A program of about `lines` lines of functions.
fn function_program(lines: usize) -> String {
    let per_function = 24;
    let n = (lines.saturating_sub(10) / per_function).max(2);
    let mut out = String::from("import sys\n\n\n");
    for k in 0..n {
        function(&mut out, k);
    }
    let _ = write!(
        out,
        "def entry_point(argv):
    print(f{}(len(argv), argv[0]))
    return 0


def target(*args):
    return entry_point, None
",
        n - 1
    );
    out
}

/// The classes and functions of one group of the class-heavy program,
/// `{k}` its number and `{prev}` the group before it (itself for the
/// first). Ten classes in about 230 lines: `Base{k}` (under the shared
/// `Root`) with subclasses two and three levels below it overriding its
/// methods, `__init__`s storing ints, strings, lists, a `Tag{k}` instance
/// and None-then-an-instance attributes; an exception class and a subclass
/// of it raised by overridden methods and caught by both; functions that
/// build instances of every class, walk a list of them through a `Base{k}`
/// variable (polymorphic calls, attribute reads through the base,
/// isinstance tests), pass them as `Base{k}` parameters, and use the
/// classes of the group before.
const CLASS_GROUP: &str = r#"class Tag{k}(object):
    def __init__(self, v):
        self.v = v
        self.label = "t{k}"

    def weight(self):
        return self.v * 2 + len(self.label)


class Err{k}(Exception):
    def __init__(self, code):
        self.code = code


class BadErr{k}(Err{k}):
    pass


class Base{k}(Root):
    kind = "base{k}"

    def __init__(self, n, name):
        self.n = n
        self.name = name
        self.values = [n, n + 1]
        self.tag = Tag{k}(n)
        self.link = None
        self.count = 0

    def area(self):
        return self.n * 2

    def describe(self):
        return self.name + ":" + str(self.area())

    def check(self, limit):
        if self.n > limit:
            raise Err{k}(self.n)
        return self.n

    def bump(self, d):
        self.count = self.count + d
        self.values.append(d)
        return self.count

    def linked(self):
        if self.link is None:
            return 0
        return self.link.n


class A{k}(Base{k}):
    kind = "a{k}"

    def __init__(self, n, name, scale):
        Base{k}.__init__(self, n, name)
        self.scale = scale

    def area(self):
        return self.n * self.scale + self.tag.weight()

    def check(self, limit):
        if self.n * self.scale > limit:
            raise BadErr{k}(self.n)
        return self.scale


class B{k}(Base{k}):
    kind = "b{k}"

    def area(self):
        return len(self.values) + self.n

    def describe(self):
        return "B" + self.name + self.kind


class AA{k}(A{k}):
    def __init__(self, n, name, scale, other):
        A{k}.__init__(self, n, name, scale)
        self.other = other

    def area(self):
        return self.other.area() + self.scale


class AB{k}(A{k}):
    def area(self):
        return A{k}.area(self) + 1

    def bump(self, d):
        self.count = self.count + 2 * d
        return self.count


class BA{k}(B{k}):
    def bump(self, d):
        self.values.append(-d)
        return len(self.values)

    def check(self, limit):
        if limit < 0:
            raise BadErr{k}(limit)
        return 0


class AAA{k}(AA{k}):
    def describe(self):
        return "deep " + Base{k}.describe(self)

    def area(self):
        return AA{k}.area(self) * 2 + self.tag.v


def build{k}(n):
    shapes = [Base{k}(n, "b"), A{k}(n, "a", 2), B{k}(n, "c")]
    shapes.append(AA{k}(n, "aa", 3, B{k}(n + 1, "x")))
    shapes.append(AB{k}(n, "ab", 4))
    shapes.append(BA{k}(n, "ba"))
    shapes.append(AAA{k}(n, "aaa", 5, BA{k}(n, "y")))
    shapes[1].link = shapes[0]
    return shapes


def walk{k}(n):
    total = 0
    shapes = build{k}(n)
    for s in shapes:
        total = total + s.area() + s.bump(1) + s.tag.v + s.linked()
        if isinstance(s, A{k}):
            total = total + s.scale
        elif isinstance(s, B{k}):
            total = total - len(s.kind)
        try:
            total = total + s.check(n + {k} % 3)
        except BadErr{k} as e:
            total = total + e.code + 1
        except Err{k} as e:
            total = total - e.code
    return total + len(shapes[0].describe()) + len(shapes[6].describe())


def score{k}(shape, other, n):
    total = shape.area() - other.area()
    total = total + shape.tag.weight() + other.bump(n)
    if shape.link is not None:
        total = total + shape.link.count
    if isinstance(other, AA{k}):
        total = total + other.other.n
    for v in shape.values:
        total = total + v
    name = shape.describe()
    if len(name) > 3:
        total = total + len(name)
    return total


def pair{k}(n):
    a = A{k}(n, "pa", 2)
    b = BA{k}(n, "pb")
    c = AA{k}(n, "pc", 1, A{k}(n, "po", 1))
    total = score{k}(a, b, n) + score{k}(b, c, n) + score{k}(c, a, n)
    chosen = a
    if n > 2:
        chosen = b
    chosen.link = c
    total = total + chosen.linked() + chosen.area()
    try:
        total = total + chosen.check(n - 3)
    except Err{k} as e:
        total = total + e.code
    return total


def mix{k}(n, roots):
    tags = [Tag{k}(n), Tag{k}(n + 1), Tag{k}(n + 2)]
    total = Tag{prev}(n).weight()
    for t in tags:
        total = total + t.weight() + t.v
    first = Base{prev}(n, "m")
    second = AB{prev}(n, "n", 3)
    first.link = second
    roots.append(first)
    roots.append(second)
    total = total + first.linked() + second.area() + walk{prev}(n % 3)
    return total + len(tags) + pair{k}(n) + walk{k}(n) + report{k}(build{k}(n + 1), n)


def report{k}(shapes, n):
    lines = []
    longest = 0
    for s in shapes:
        line = s.describe()
        if len(line) > longest:
            longest = len(line)
        lines.append(line)
    total = 0
    i = 0
    while i < len(shapes):
        s = shapes[i]
        if isinstance(s, AAA{k}):
            total = total + s.other.area() + 3
        elif isinstance(s, AA{k}):
            total = total + s.other.n
        elif isinstance(s, AB{k}):
            total = total + s.count
        elif isinstance(s, BA{k}):
            total = total + len(s.values)
        else:
            total = total + s.n
        try:
            total = total + s.check(n * 2)
        except BadErr{k} as e:
            total = total + e.code * 2
        except Err{k} as e:
            total = total + e.code * 3
        i = i + 1
    summary = ""
    for line in lines:
        if len(line) == longest:
            summary = summary + line
        else:
            summary = summary + line[0]
    tag = shapes[0].tag
    if tag.v > n:
        summary = summary + tag.label
    return total + len(summary) + longest


"#;

/// The start of the class-heavy program: the root of every group's
/// hierarchy, and a function calling methods on a list holding instances
/// of every group (one call site with hundreds of implementations).
const CLASS_PROGRAM_HEAD: &str = r#"import sys


class Root(object):
    def area(self):
        return 0

    def describe(self):
        return "root"


def survey(roots, n):
    total = 0
    for r in roots:
        total = total + r.area() + r.n + len(r.describe())
        r.count = r.count + 1
        if isinstance(r, Base0):
            total = total + 1
    return total


"#;

/// A class-heavy program of about `lines` lines: about 40 classes per
/// 1,000 lines, in groups of `CLASS_GROUP`.
fn class_program(lines: usize) -> String {
    let per_group = CLASS_GROUP.lines().count();
    let n = (lines.saturating_sub(40) / per_group).max(2);
    let mut out = String::from(CLASS_PROGRAM_HEAD);
    for k in 0..n {
        let prev = k.saturating_sub(1).to_string();
        out.push_str(
            &CLASS_GROUP
                .replace("{prev}", &prev)
                .replace("{k}", &k.to_string()),
        );
    }
    out.push_str("def entry_point(argv):\n    n = len(argv)\n    total = 0\n    roots = []\n");
    for k in 0..n {
        let _ = writeln!(out, "    total = total + mix{k}(n, roots)");
    }
    out.push_str(
        "    print(total + survey(roots, n))
    return 0


def target(*args):
    return entry_point, None
",
    );
    out
}

/// One generated program family.
struct Family {
    name: &'static str,
    program: fn(usize) -> String,
}

const FAMILIES: [Family; 2] = [
    Family {
        name: "functions",
        program: function_program,
    },
    Family {
        name: "classes",
        program: class_program,
    },
];

/// The best of `runs` annotations of `text`, and the program's number of
/// graphs and classes. Panics with the diagnostic when it does not flow or
/// annotate: a generated program is valid RPython.
fn measure(path: String, text: String, runs: usize) -> (Duration, usize, usize) {
    let src = Source {
        path,
        text,
        dialect: Dialect::Py3,
    };
    let flow = match run_until(&src, StageName::Flow, &mut Timings::default()) {
        Ok(StageOutput::Flow(flow)) => flow,
        Ok(_) => panic!("the flow stage gave no flow graphs"),
        Err(d) => panic!("the generated program {} does not flow:\n{d}", src.path),
    };
    let classes = flow
        .prebuilt
        .iter()
        .filter(|p| matches!(p, PrebuiltObject::Class { .. }))
        .count();
    let best = (0..runs)
        .map(|_| {
            let copy = flow.clone();
            let t = Instant::now();
            rpy_passes::annotate::annotate(copy, src.dialect, &src.text).unwrap_or_else(|d| {
                panic!("the generated program {} does not annotate:\n{d}", src.path)
            });
            t.elapsed()
        })
        .min()
        .unwrap_or(Duration::ZERO);
    (best, flow.graphs.len(), classes)
}

fn main() {
    // `cargo bench --bench annotate -- classes 10000` runs one family, or
    // one size (cargo passes `--bench` itself).
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let sizes: Vec<usize> = only.iter().filter_map(|a| a.parse().ok()).collect();
    let families: Vec<&String> = only
        .iter()
        .filter(|a| a.parse::<usize>().is_err())
        .collect();
    println!(
        "{:>10} {:>8} {:>8} {:>8} {:>12} {:>14}",
        "program", "lines", "graphs", "classes", "annotate", "per 1k lines"
    );
    for family in FAMILIES
        .iter()
        .filter(|f| families.is_empty() || families.iter().any(|o| *o == f.name))
    {
        for size in [1_000, 2_000, 5_000, 10_000] {
            if !sizes.is_empty() && !sizes.contains(&size) {
                continue;
            }
            let text = (family.program)(size);
            let lines = text.lines().count();
            let runs = if size >= 5_000 { 5 } else { 10 };
            let path = format!("generated_{}_{size}.py", family.name);
            let (best, graphs, classes) = measure(path, text, runs);
            let ms = best.as_secs_f64() * 1e3;
            println!(
                "{:>10} {lines:>8} {graphs:>8} {classes:>8} {:>9.1} ms {:>11.2} ms",
                family.name,
                ms,
                ms * 1000.0 / lines as f64
            );
            if size == 10_000 && ms > 300.0 {
                println!("over budget: 10,000 lines must annotate in under 300 ms");
            }
        }
    }
}

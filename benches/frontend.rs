//! `cargo bench --bench frontend`: parse and flow time of a generated
//! 10,000-line RPython program (issue 3's target: both together under 100 ms).
//!
//! The program is deterministic: a fixed pseudo-random sequence picks, for each
//! function, one of several shapes that real RPython code has (counting loops
//! with branches, list building and slicing, dict counting with tuple
//! unpacking, string splitting and joining, comprehensions, nested loops over
//! a table), with varying constants and names. Every function is reachable from
//! the entry point, so every one gets a flow graph.

use rpy::pipeline::{run_until, Source, StageName, Timings};
use rpy_ir::ast::Dialect;
use std::fmt::Write;
use std::time::Duration;

/// The number of source lines the benchmark program has at least.
const TARGET_LINES: usize = 10_000;
/// Issue 3's budget for parse + flow of that program.
const BUDGET: Duration = Duration::from_millis(100);

/// A small linear congruential generator: the same program on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % below
    }
}

/// One function of the program, named `f{index}`, calling `f{index-1}` so
/// that the entry point reaches every function through the chain's end.
fn function(out: &mut String, index: usize, rng: &mut Lcg) {
    let k = rng.next(97) + 3;
    let m = rng.next(13) + 2;
    let callee = if index == 0 {
        "len(str(n))".to_string()
    } else {
        format!("f{}(n - 1)", index - 1)
    };
    let _ = match rng.next(6) {
        0 => write!(
            out,
            "def f{index}(n):
    total = 0
    i = 0
    while i < n:
        if i % {m} == 0:
            total += i * {k}
        elif i % 3 == 1:
            total -= i
        else:
            total = total ^ i
        i += 1
    if total > {k}:
        total = total % {k}
    else:
        total = total + {m}
    return total + {callee}


"
        ),
        1 => write!(
            out,
            "def f{index}(n):
    items = []
    for i in range({m}):
        items.append(i * {k} % 17)
    best = items[0]
    for x in items:
        if x > best:
            best = x
    head = items[:2]
    tail = items[1:]
    items.insert(0, best)
    middle = items[1:{m}]
    if best in middle:
        best += len(head) + len(tail)
    last = items.pop()
    return best + last + {callee}


"
        ),
        2 => write!(
            out,
            "def f{index}(n):
    counts = {{}}
    for i in range({k}):
        key = i % {m}
        counts[key] = counts.get(key, 0) + 1
    total = 0
    for key, value in counts.items():
        total += key * value
    pair = (total, {k})
    a, b = pair
    a, b = b, a
    if {m} in counts:
        del counts[{m}]
    return a - b + len(counts) + {callee}


"
        ),
        3 => write!(
            out,
            "def f{index}(n):
    text = \"alpha beta gamma delta {k}\"
    words = text.split(\" \")
    letters = 0
    for word in words:
        for ch in word:
            if ch == \"a\":
                letters += 1
    joined = \"-\".join(words)
    if joined.startswith(\"alpha\"):
        letters += len(joined)
    upper = words[0].upper()
    return letters + len(upper) + {callee}


"
        ),
        4 => write!(
            out,
            "def f{index}(n):
    squares = [i * i for i in range({m})]
    odds = [s for s in squares if s % 2 == 1]
    pairs = [(a, b) for a in range(3) for b in range({m}) if a != b]
    total = 0
    for a, b in pairs:
        total += a * b
    for j, s in enumerate(odds):
        total += j * s
    return total + len(squares) + {callee}


"
        ),
        _ => write!(
            out,
            "def f{index}(n):
    table = []
    for r in range({m}):
        row = []
        for c in range({m}):
            row.append((r * {k} + c) % 7)
        table.append(row)
    total = 0
    for row in table:
        for cell in row:
            if cell > 3:
                total += cell
            else:
                total -= 1
    table[0][0] += total
    return table[0][0] + {callee}


"
        ),
    };
}

/// The benchmark program: functions until it has `TARGET_LINES` lines, then
/// the entry point and `target`.
fn program(dialect: Dialect) -> String {
    let mut rng = Lcg(0x5eed);
    let mut out = String::from("import sys\n\n\n");
    let mut count = 0;
    // The entry point, `target` and the main guard add 11 lines.
    while out.lines().count() + 11 < TARGET_LINES {
        function(&mut out, count, &mut rng);
        count += 1;
    }
    let print = match dialect {
        Dialect::Py2 => format!("    print f{}(3)\n", count - 1),
        Dialect::Py3 => format!("    print(f{}(3))\n", count - 1),
    };
    out.push_str("def entry_point(argv):\n");
    out.push_str(&print);
    out.push_str("    return 0\n\n\n");
    out.push_str("def target(driver, args):\n    return entry_point\n\n\n");
    out.push_str("if __name__ == '__main__':\n    sys.exit(entry_point(sys.argv))\n");
    out
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    println!(
        "{:<8} {:>7} {:>10} {:>10} {:>10} {:>12}",
        "dialect", "lines", "parse", "flow", "total", "under 100 ms"
    );
    for dialect in [Dialect::Py2, Dialect::Py3] {
        let text = program(dialect);
        let lines = text.lines().count();
        let src = Source {
            path: "frontend_bench.py".into(),
            text,
            dialect,
            gc: rpy_ir::llops::GcKind::default(),
            jit: false,
        };
        // Best of several runs: the figure is the front end's speed, not the
        // machine's noise.
        let mut best: Option<(Duration, Duration)> = None;
        for _ in 0..7 {
            let mut t = Timings::default();
            if let Err(d) = run_until(&src, StageName::Flow, &mut t) {
                panic!("the benchmark program does not flow:\n{d}");
            }
            let stage = |s: StageName| t.stages.iter().find(|x| x.0 == s).map(|x| x.1);
            let (Some(parse), Some(flow)) = (stage(StageName::Parse), stage(StageName::Flow))
            else {
                panic!("run_until did not time the parse and flow stages");
            };
            if best.is_none_or(|(p, f)| parse + flow < p + f) {
                best = Some((parse, flow));
            }
        }
        let (parse, flow) = best.expect("seven runs");
        println!(
            "{:<8} {:>7} {:>10} {:>10} {:>10} {:>12}",
            format!("{dialect:?}"),
            lines,
            ms(parse),
            ms(flow),
            ms(parse + flow),
            if parse + flow < BUDGET { "yes" } else { "NO" }
        );
    }
}

//! What the random-program tests share: a seeded generator, and statements
//! a shrinker can delete one by one.

/// A small seeded generator (splitmix64): a case is reproducible from its
/// seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Simple(String),
    /// `if`/`else`, `for`, `try`/`except`/`finally`: each clause's header
    /// and body (an empty body is rendered `pass`).
    Compound(Vec<(String, Vec<Stmt>)>),
}

pub fn render_body(body: &[Stmt], indent: usize, out: &mut String) {
    if body.is_empty() {
        out.push_str(&" ".repeat(indent));
        out.push_str("pass\n");
    }
    for s in body {
        match s {
            Stmt::Simple(line) => {
                out.push_str(&" ".repeat(indent));
                out.push_str(line);
                out.push('\n');
            }
            Stmt::Compound(clauses) => {
                for (head, inner) in clauses {
                    out.push_str(&" ".repeat(indent));
                    out.push_str(head);
                    out.push('\n');
                    render_body(inner, indent + 4, out);
                }
            }
        }
    }
}

/// How many statements `body` holds, nested ones too.
pub fn count(body: &[Stmt]) -> usize {
    body.iter()
        .map(|s| match s {
            Stmt::Simple(_) => 1,
            Stmt::Compound(c) => 1 + c.iter().map(|(_, b)| count(b)).sum::<usize>(),
        })
        .sum()
}

/// `body` without its `k`th statement (in preorder), if it has one.
pub fn without(body: &[Stmt], k: &mut usize) -> Vec<Stmt> {
    let mut out = Vec::new();
    for s in body {
        if *k == 0 {
            *k = usize::MAX;
            continue;
        }
        if *k != usize::MAX {
            *k -= 1;
        }
        match s {
            Stmt::Simple(_) => out.push(s.clone()),
            Stmt::Compound(clauses) => out.push(Stmt::Compound(
                clauses
                    .iter()
                    .map(|(h, b)| (h.clone(), without(b, k)))
                    .collect(),
            )),
        }
    }
    out
}

/// The random functions of the cases `cases` of a run seeded with `seed`:
/// case `i` is `make(its own seed, "f{i}")`, so a case is the same
/// whichever batch holds it.
pub fn case_functions<F>(
    seed: u64,
    cases: std::ops::Range<usize>,
    make: impl Fn(u64, &str) -> F,
) -> Vec<F> {
    cases
        .map(|i| {
            make(
                seed.wrapping_mul(1_000_003).wrapping_add(i as u64),
                &format!("f{i}"),
            )
        })
        .collect()
}

/// A program of `prelude` and the rendered random functions, whose entry
/// point calls each function (by name) twice, with its argument `argv[1]`
/// and that plus 7, and prints the sum of their results; run by CPython
/// with argument `n`.
pub fn batch_program<'f>(
    prelude: &str,
    functions: impl IntoIterator<Item = (&'f str, String)>,
    n: i64,
) -> String {
    let mut s = prelude.to_string();
    let mut calls = String::new();
    for (name, rendered) in functions {
        s += "\n";
        s += &rendered;
        s += "\n";
        calls += &format!("    total = (total + {name}(n) + {name}(n + 7)) % 1000003\n");
    }
    s += "\ndef entry_point(argv):\n    n = int(argv[1])\n    total = 0\n";
    s += &calls;
    s += "    print(\"total \" + str(total))\n    return 0\n\n\ndef target(*args):\n    return entry_point, None\n\n\n";
    s += &format!("if __name__ == '__main__':\n    sys.exit(entry_point(['x', '{n}']))\n");
    s
}

//! `cargo bench --bench trace`: how long the trace optimizer takes on a
//! 1,000-operation trace (integer arithmetic, comparisons and guards, as an
//! interpreter's loop produces), with every implemented optimization.

use std::fmt::Write;
use std::time::{Duration, Instant};

/// A trace of `n` groups of four operations each, in PyPy's trace syntax.
fn trace_text(n: usize) -> String {
    let mut s = String::from("[i0, i1]\nlabel(i0, i1)\n");
    let mut acc = "i1".to_string();
    let mut next = 2;
    for k in 0..n {
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

fn main() {
    let text = trace_text(200);
    let trace = rpy_jit::text::parse(&text).expect("the benchmark trace parses");
    let ops = text.lines().count() - 1;
    let passes = rpy_jit::optimize::IMPLEMENTED_PASSES;
    let best = (0..50)
        .map(|_| {
            let t = Instant::now();
            let out = rpy_jit::optimize::optimize(&trace, passes).unwrap();
            std::hint::black_box(out);
            t.elapsed()
        })
        .min()
        .unwrap_or(Duration::ZERO);
    println!(
        "optimize {ops} operations ({passes}): {:.3} ms (best of 50)",
        best.as_secs_f64() * 1e3
    );
}

//! Optimizes the benchmark trace of `cargo bench --bench trace` many times,
//! so that a profiler sees nothing else:
//! `perf record -g target/release/examples/profile_optimize [PASSES] [RUNS]`.

use rpy_jit::optimize::{optimize, IMPLEMENTED_PASSES};

fn main() {
    let mut args = std::env::args().skip(1);
    let passes = args
        .next()
        .unwrap_or_else(|| IMPLEMENTED_PASSES.to_string());
    let runs: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(2000);
    let trace = rpy_jit::text::parse(&rpy_jit::testgen::benchmark_loop(200))
        .expect("the benchmark trace parses");
    let start = std::time::Instant::now();
    for _ in 0..runs {
        std::hint::black_box(optimize(&trace, &passes).expect("the trace optimizes"));
    }
    let per_run = start.elapsed().as_secs_f64() * 1e3 / runs as f64;
    println!("{passes}: {per_run:.3} ms per run ({runs} runs)");
}

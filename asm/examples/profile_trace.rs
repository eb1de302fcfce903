//! Optimizes or assembles the benchmark trace of `cargo bench --bench
//! trace` many times, so that a profiler sees nothing else:
//! `perf record -g target/release/examples/profile_trace optimize|assemble
//! [PASSES] [RUNS]`. Prints the best time of one run.

use std::time::Instant;

use rpy_jit::optimize::{optimize, IMPLEMENTED_PASSES};

fn main() {
    let mut args = std::env::args().skip(1);
    let what = args.next().unwrap_or_else(|| "optimize".to_string());
    let passes = args
        .next()
        .unwrap_or_else(|| IMPLEMENTED_PASSES.to_string());
    let runs: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(2000);
    let trace = rpy_jit::text::parse(&rpy_jit::testgen::benchmark_loop(200))
        .expect("the benchmark trace parses");
    // compiled code keeps its trace: shared, it is not copied
    let optimized = std::sync::Arc::new(optimize(&trace, &passes).expect("the trace optimizes"));
    // the shortest run, as the trace bench reports: the machine is shared
    let mut best = f64::INFINITY;
    for _ in 0..runs {
        let start = Instant::now();
        match what.as_str() {
            "assemble" => {
                std::hint::black_box(rpy_asm::compile(optimized.clone()).expect("it compiles"));
            }
            _ => {
                std::hint::black_box(optimize(&trace, &passes).expect("the trace optimizes"));
            }
        }
        best = best.min(start.elapsed().as_secs_f64() * 1e3);
    }
    println!("{what} ({passes}): {best:.3} ms, the best of {runs} runs");
}

//! `cargo bench --bench trace`: the trace JIT's back half.
//!
//! 1. Optimizing (every implemented optimization) and assembling a
//!    1,000-operation trace (integer arithmetic, comparisons and guards, as
//!    an interpreter's loop produces), separately and together.
//! 2. Two summing loops run as machine code against the same loops in C
//!    (`benches/programs/sum.c`, compiled here with `cc -O2`), side by side:
//!    the sum of i for i < n, and the sum of an array of n words.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use rpy_asm::compile;
use rpy_jit::interp::{Heap, Outcome, RunValue};
use rpy_jit::optimize::{optimize, IMPLEMENTED_PASSES};
use rpy_jit::trace::{DescrData, Trace};

/// The shortest of `runs` timings of `f`.
fn best_of(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or(Duration::ZERO)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn optimize_and_assemble() {
    let text = rpy_jit::testgen::benchmark_loop(200);
    let trace = rpy_jit::text::parse(&text).expect("the benchmark trace parses");
    let ops = trace.ops.len();
    let optimized = optimize(&trace, IMPLEMENTED_PASSES).expect("the trace optimizes");
    let t_opt = best_of(50, || {
        std::hint::black_box(optimize(&trace, IMPLEMENTED_PASSES).unwrap());
    });
    // compiled code keeps its trace: a shared or owned one is not copied
    let optimized = std::sync::Arc::new(optimized);
    let t_asm = best_of(50, || {
        std::hint::black_box(compile(optimized.clone()).unwrap());
    });
    let t_both = best_of(50, || {
        let o = optimize(&trace, IMPLEMENTED_PASSES).unwrap();
        std::hint::black_box(compile(o).unwrap());
    });
    println!("{ops}-operation trace ({IMPLEMENTED_PASSES}), best of 50:");
    // which optimization costs what, each alone on the same trace
    let each: Vec<String> = IMPLEMENTED_PASSES
        .split(':')
        .map(|pass| {
            let t = best_of(20, || {
                std::hint::black_box(optimize(&trace, pass).unwrap());
            });
            format!("{pass} {:.3}", ms(t))
        })
        .collect();
    println!("  each pass alone (ms): {}", each.join(", "));
    println!(
        "  optimize {:.3} ms   assemble {:.3} ms ({} ops left, {} bytes)   both {:.3} ms",
        ms(t_opt),
        ms(t_asm),
        optimized.ops.len(),
        compile(optimized.clone()).unwrap().code_size(),
        ms(t_both)
    );
}

const SUM_RANGE: &str = "
[i0, i1, i2]
label(i0, i1, i2)
i3 = int_lt(i0, i2)
guard_true(i3) [i0, i1]
i4 = int_add(i1, i0)
i5 = int_add(i0, 1)
jump(i5, i4, i2)
";

const SUM_ARRAY: &str = "
array ints = Signed
[p0, i0, i1]
label(p0, i0, i1)
i2 = arraylen_gc(p0, descr=ints)
i3 = int_lt(i0, i2)
guard_true(i3) [i0, i1]
i4 = getarrayitem_gc_i(p0, i0, descr=ints)
i5 = int_add(i1, i4)
i6 = int_add(i0, 1)
jump(p0, i6, i5)
";

/// Runs the optimized `src` as machine code from `inputs` (built on a heap
/// by `make_inputs`) eleven times; the best time and the sum (the guard's
/// second fail arg).
fn machine_sum(
    src: &str,
    make_inputs: impl Fn(&Trace, &mut Heap) -> Vec<RunValue>,
) -> (Duration, i64) {
    let trace = rpy_jit::text::parse(src).expect("the loop parses");
    let trace = optimize(&trace, IMPLEMENTED_PASSES).expect("the loop optimizes");
    let code = compile(&trace).expect("the loop compiles");
    let mut heap = Heap::default();
    let inputs = make_inputs(&trace, &mut heap);
    let mut sum = 0;
    let best = best_of(11, || match code.run(&inputs, &mut heap, u64::MAX) {
        Outcome::GuardFailed { values, .. } => {
            if let Some(RunValue::Int(s)) = values.get(1) {
                sum = *s;
            }
        }
        o => panic!("the summing loop ended with {o:?}"),
    });
    (best, sum)
}

/// Compiles and runs `benches/programs/sum.c`: (range time, range sum,
/// array time, array sum), or why not.
fn c_sums(n: i64) -> Result<(Duration, i64, Duration, i64), String> {
    let dir = std::env::temp_dir().join(format!("rpy-bench-sum-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let exe = dir.join("sum");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/programs/sum.c");
    let cc = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .map_err(|e| format!("cc: {e}"))?;
    if !cc.success() {
        return Err("cc failed".into());
    }
    let out = Command::new(&exe)
        .arg(n.to_string())
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |tag: &str, i: usize| -> Result<i64, String> {
        text.lines()
            .find(|l| l.starts_with(tag))
            .and_then(|l| l.split_whitespace().nth(i))
            .and_then(|w| w.parse().ok())
            .ok_or_else(|| format!("unexpected output of sum.c: {text}"))
    };
    let ns = |v: i64| Duration::from_nanos(v as u64);
    Ok((
        ns(field("range", 1)?),
        field("range", 2)?,
        ns(field("array", 1)?),
        field("array", 2)?,
    ))
}

fn summing_loops() {
    let n: i64 = 100_000_000;
    let (range_time, range_sum) = machine_sum(SUM_RANGE, |_, _| {
        vec![RunValue::Int(0), RunValue::Int(0), RunValue::Int(n)]
    });
    let items = n / 10;
    let (array_time, array_sum) = machine_sum(SUM_ARRAY, |trace, heap| {
        let descr = trace.header.descr("ints").expect("the array type");
        let DescrData::Array {
            items_offset,
            item_size,
            ref item,
            ..
        } = trace.header.descrs[descr].data
        else {
            unreachable!("ints is an array")
        };
        let p = heap.new_array(trace, descr, items).expect("the array fits");
        for i in 0..items as usize {
            let v = (i % 1000) as i64 - 500;
            heap.write(p + items_offset + i * item_size, item, v as u64)
                .expect("in the array");
        }
        vec![RunValue::Ref(p), RunValue::Int(0), RunValue::Int(0)]
    });
    println!("summing loops, machine code vs cc -O2 (best of 11):");
    let row = |what: &str, mine: Duration, sum: i64, c: Duration, c_sum: i64| {
        let check = if sum == c_sum { "" } else { "  (SUMS DIFFER)" };
        println!(
            "  {what:<28} machine code {:>8.2} ms   C {:>8.2} ms   ratio {:.2}{check}",
            ms(mine),
            ms(c),
            mine.as_secs_f64() / c.as_secs_f64()
        );
    };
    match (c_sums(n), c_sums(items)) {
        (Ok((c_range, c_range_sum, _, _)), Ok((_, _, c_array, c_array_sum))) => {
            row(
                &format!("sum of i < {n}"),
                range_time,
                range_sum,
                c_range,
                c_range_sum,
            );
            row(
                &format!("sum of {items} ints"),
                array_time,
                array_sum,
                c_array,
                c_array_sum,
            );
        }
        (Err(e), _) | (_, Err(e)) => {
            println!("  C not run: {e}");
            println!("  sum of i < {n}: machine code {:.2} ms", ms(range_time));
            println!(
                "  sum of {items} ints: machine code {:.2} ms",
                ms(array_time)
            );
        }
    }
}

/// The BoxedInteger loop of seed 002 (each iteration allocates five
/// objects) as machine code, optimized without and with the allocation
/// removal: what virtual objects, loop peeling and resume data buy. The
/// allocations are the test heap's (a zeroed block each, and its
/// bookkeeping), slower than a GC nursery: the ratio overstates the gain.
fn boxed_loop() {
    let src = include_str!("../jit/tests/cases/default/boxed_integer_loop.trace");
    let trace = rpy_jit::text::parse(src).expect("the boxed loop parses");
    let y = 100_000;
    let args = [
        format!("BoxedInteger(intval={y})"),
        "BoxedInteger(intval=0)".to_string(),
    ];
    println!("boxed integer loop (seed 002), {y} iterations, machine code (best of 5):");
    let mut runs = Vec::new();
    for passes in ["intbounds:rewrite:pure:heap", IMPLEMENTED_PASSES] {
        let optimized = optimize(&trace, passes).expect("the loop optimizes");
        let allocations = optimized
            .ops
            .iter()
            .filter(|op| op.name().starts_with("new"))
            .count();
        let code = compile(optimized).expect("the loop compiles");
        let mut observed = String::new();
        let t = best_of(5, || {
            let mut heap = Heap::default();
            let inputs = rpy_jit::run_values(code.trace(), &mut heap, &args).expect("inputs");
            let o = code.run(&inputs, &mut heap, u64::MAX);
            observed = rpy_jit::testgen::observe_run(
                code.trace(),
                &heap,
                &inputs,
                &o,
                rpy_jit::testgen::GuardIndex::Hidden,
            );
        });
        println!(
            "  {passes:<58} {:>8.2} ms  ({allocations} allocations in the trace)",
            ms(t)
        );
        runs.push((t, observed));
    }
    let same = if runs[0].1 == runs[1].1 {
        "same outcome and memory"
    } else {
        "OUTCOMES DIFFER"
    };
    println!(
        "  ratio {:.0}x ({same})",
        runs[0].0.as_secs_f64() / runs[1].0.as_secs_f64()
    );
}

fn main() {
    optimize_and_assemble();
    summing_loops();
    boxed_loop();
}

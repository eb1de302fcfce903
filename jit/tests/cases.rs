//! The optimizer's filetest corpus: every `cases/<folder>/NAME.trace`.
//!
//! A case file is a trace (header and body, `jit/README.md`) with header
//! comment lines the driver reads (see `cases/README.md`):
//!
//! - `# passes: LIST`: the optimizations to run (colon-separated, `default`
//!   for every implemented one);
//! - `# run: ARG ARG ...`: one run's input values, as `rpy trace --run` reads
//!   them, plus `@N`: the same object as input `N` (aliases);
//! - `# count: OPNAME N`: the optimized trace keeps exactly `N` operations
//!   named `OPNAME`.
//!
//! For each case the optimized trace is snapshotted (with the outcome of each
//! declared run and the rules that fired), and the unoptimized and optimized
//! traces are run on the declared inputs (and, for traces of integers and
//! floats without declared runs, on generated ones): how each run ends, the
//! values it hands back and the objects reachable from its inputs and
//! results must be the same. A snapshot is therefore only accepted if the
//! optimization it shows is also correct.

use std::collections::HashMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use rpy_jit::interp::{run, Heap, Outcome, RunValue};
use rpy_jit::optimize::unroll::peels;
use rpy_jit::optimize::{optimize, IMPLEMENTED_PASSES};
use rpy_jit::parse_run_value;
use rpy_jit::testgen::{observe_run, GuardIndex};
use rpy_jit::text::{parse, print};
use rpy_jit::trace::{Kind, Trace};
use rpy_ruleset::{fire_count, RuleKind, RULES};

/// Loop iterations each run may take.
const LOOP_LIMIT: u64 = 50;

struct Case {
    /// `folder/stem`, also the snapshot's name (with `__` for `/`).
    name: String,
    passes: String,
    runs: Vec<Vec<String>>,
    counts: Vec<(String, usize)>,
    src: String,
}

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases")
}

fn read_cases() -> Vec<Case> {
    let mut files = Vec::new();
    for dir in std::fs::read_dir(cases_dir()).expect("jit/tests/cases") {
        let dir = dir.expect("a folder entry").path();
        if !dir.is_dir() || dir.ends_with("snapshots") {
            continue;
        }
        for f in std::fs::read_dir(&dir).expect("a case folder") {
            let f = f.expect("a file entry").path();
            if f.extension().is_some_and(|e| e == "trace") {
                files.push(f);
            }
        }
    }
    files.sort();
    files.iter().map(|f| read_case(f)).collect()
}

fn read_case(path: &Path) -> Case {
    let src = std::fs::read_to_string(path).expect("a readable case");
    let folder = path
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let stem = path.file_stem().and_then(|n| n.to_str()).unwrap_or("");
    let name = format!("{folder}/{stem}");
    let mut passes = None;
    let mut runs = Vec::new();
    let mut counts = Vec::new();
    for line in src.lines() {
        if let Some(p) = line.strip_prefix("# passes:") {
            passes = Some(p.trim().to_string());
        } else if let Some(r) = line.strip_prefix("# run:") {
            runs.push(rpy_jit::split_run_args(r));
        } else if let Some(c) = line.strip_prefix("# count:") {
            let mut parts = c.split_whitespace();
            let (Some(op), Some(n), None) = (parts.next(), parts.next(), parts.next()) else {
                panic!("{name}: '# count:' takes an operation name and a number");
            };
            let n = n
                .parse()
                .unwrap_or_else(|_| panic!("{name}: '{n}' is not a count"));
            counts.push((op.to_string(), n));
        }
    }
    let passes = passes.unwrap_or_else(|| panic!("{name}: add a '# passes: LIST' line at the top"));
    Case {
        name,
        passes,
        runs,
        counts,
        src,
    }
}

/// The input values of one run, allocated in `heap`; `@N` is input `N`.
fn inputs(t: &Trace, heap: &mut Heap, args: &[String]) -> Result<Vec<RunValue>, String> {
    if args.len() != t.inputs.len() {
        return Err(format!(
            "the trace takes {} input(s), the run gives {}",
            t.inputs.len(),
            args.len()
        ));
    }
    let mut vals: Vec<RunValue> = Vec::new();
    for (a, b) in args.iter().zip(&t.inputs) {
        let v = match a.strip_prefix('@') {
            Some(n) => {
                let n: usize = n.parse().map_err(|_| format!("'{a}' is not @N"))?;
                *vals
                    .get(n)
                    .ok_or_else(|| format!("'{a}' names a later input"))?
            }
            None => parse_run_value(t, heap, a, t.boxes[*b].kind)?,
        };
        vals.push(v);
    }
    Ok(vals)
}

/// Generated inputs for a trace of integers and floats: every input the same
/// edge value, then mixes.
fn generated_runs(t: &Trace) -> Vec<Vec<String>> {
    let kinds: Vec<Kind> = t.inputs.iter().map(|b| t.boxes[*b].kind).collect();
    if kinds.is_empty() {
        return vec![Vec::new()];
    }
    if kinds.contains(&Kind::Ref) {
        return Vec::new();
    }
    let ints = [
        0,
        1,
        -1,
        2,
        3,
        7,
        -8,
        63,
        64,
        100,
        255,
        -256,
        i64::MAX,
        i64::MIN,
        i64::MAX - 1,
        i64::MIN + 1,
    ];
    let floats = ["0.0", "1.5", "-2.25", "1e300", "-0.0", "NaN", "inf"];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    // every input the same edge value, then mixes of edge values, small
    // values (every residue of a small modulus, both signs) and wide ones
    let mut runs: Vec<Vec<String>> = (0..ints.len())
        .map(|i| {
            kinds
                .iter()
                .map(|k| match k {
                    Kind::Float => floats[i % floats.len()].to_string(),
                    _ => ints[i].to_string(),
                })
                .collect()
        })
        .collect();
    for _ in 0..112 {
        let run = kinds
            .iter()
            .map(|k| {
                let r = random();
                if *k == Kind::Float {
                    return floats[(r >> 8) as usize % floats.len()].to_string();
                }
                let v = match r % 4 {
                    0 => ints[(r >> 8) as usize % ints.len()],
                    1 => ((r >> 8) % 41) as i64 - 20,
                    2 => ((r >> 8) % 2001) as i64 - 1000,
                    _ => r as i64,
                };
                v.to_string()
            })
            .collect();
        runs.push(run);
    }
    runs
}

/// Whether an observed run ended in an error (its second line is the
/// outcome, after the inputs).
fn is_error(observed: &str) -> bool {
    observed
        .lines()
        .nth(1)
        .is_some_and(|l| l.starts_with("error "))
}

/// Runs `t` on `args` in a fresh heap for at most `jumps` jumps: the
/// observed outcome text (`rpy_jit::testgen::observe_run`, without the
/// failing guard's index, which optimization changes) (without the label's values at the loop limit
/// unless `loop_values`).
fn run_case(t: &Trace, args: &[String], jumps: u64, loop_values: bool) -> Result<String, String> {
    let mut heap = Heap::default();
    let vals = inputs(t, &mut heap, args)?;
    let o = match run(t, &vals, &mut heap, jumps) {
        Outcome::LoopLimit { .. } if !loop_values => Outcome::LoopLimit { values: vec![] },
        o => o,
    };
    Ok(observe_run(t, &heap, &vals, &o, GuardIndex::Hidden))
}

/// How the optimized trace is run against the original: a loop peeled by
/// `unroll` runs its first iteration before its label, so it gets one jump
/// fewer, and at the limit its label holds other values than the original's.
fn run_both(
    t: &Trace,
    optimized: &Trace,
    peeled: bool,
    args: &[String],
) -> Result<(String, String), String> {
    let want = run_case(t, args, LOOP_LIMIT, !peeled)?;
    let got = run_case(optimized, args, LOOP_LIMIT - peeled as u64, !peeled)?;
    Ok((want, got))
}

/// The opt rules' fire counters, to see which fired on one case.
fn opt_fire_counts() -> Vec<u64> {
    (0..RULES.len()).map(fire_count).collect()
}

/// Checks one case; its snapshot text, or what is wrong.
fn check_case(case: &Case) -> Result<String, String> {
    let t = parse(&case.src).map_err(|e| format!("{e}"))?;
    let passes = match case.passes.as_str() {
        "default" => IMPLEMENTED_PASSES,
        p => p,
    };
    let before_counts = opt_fire_counts();
    let optimized = optimize(&t, passes)?;
    let after_counts = opt_fire_counts();
    let printed = print(&optimized);
    let reparsed = parse(&printed)
        .map_err(|e| format!("the optimized trace does not parse: {e}\n{printed}"))?;
    let peeled = passes.split(':').any(|p| p == "unroll") && peels(&t);
    let mut snap = printed.clone();
    for (op, n) in &case.counts {
        let got = reparsed.ops.iter().filter(|o| o.name() == op).count();
        if got != *n {
            return Err(format!(
                "{op}: {got} in the optimized trace, the case says {n}\n{printed}"
            ));
        }
    }
    snap.push_str("---\n");
    for args in &case.runs {
        let (want, got) = run_both(&t, &reparsed, peeled, args)?;
        if is_error(&want) {
            return Err(format!(
                "run [{}]: the unoptimized trace itself fails ({want}); give inputs it runs on",
                args.join(" ")
            ));
        }
        if got != want {
            return Err(format!(
                "run [{}]:\n  unoptimized: {want}\n  optimized:   {got}\n{printed}",
                args.join(" ")
            ));
        }
        let _ = writeln!(snap, "run {}:", args.join(" "));
        for line in got.lines() {
            let _ = writeln!(snap, "  {line}");
        }
    }
    if case.runs.is_empty() {
        let generated = generated_runs(&t);
        if generated.is_empty() {
            return Err(
                "a trace with object inputs needs '# run:' lines (inputs can't be made up)".into(),
            );
        }
        let mut checked = 0;
        for args in &generated {
            let (want, got) = run_both(&t, &reparsed, peeled, args)?;
            if is_error(&want) {
                continue;
            }
            if got != want {
                return Err(format!(
                    "generated run [{}]:\n  unoptimized: {want}\n  optimized:   {got}\n{printed}",
                    args.join(" ")
                ));
            }
            checked += 1;
        }
        let _ = writeln!(snap, "{checked} generated runs agree");
    }
    let fired: Vec<String> = RULES
        .iter()
        .enumerate()
        .filter(|(i, _)| after_counts[*i] > before_counts[*i])
        .map(|(i, r)| format!("{} x{}", r.name, after_counts[i] - before_counts[i]))
        .collect();
    if !fired.is_empty() {
        let _ = writeln!(snap, "rules fired: {}", fired.join(", "));
    }
    Ok(snap)
}

/// Every case, and every opt rule fires in some case. One test, so that
/// the rule counters it reads are its own.
#[test]
fn corpus() {
    let cases = read_cases();
    let mut failures = Vec::new();
    let mut per_folder: HashMap<String, usize> = HashMap::new();
    for case in &cases {
        let folder = case.name.split('/').next().unwrap_or("").to_string();
        *per_folder.entry(folder).or_default() += 1;
        match check_case(case) {
            Ok(snap) => insta::with_settings!({
                snapshot_path => cases_dir().join("snapshots"),
                prepend_module_to_snapshot => false,
                omit_expression => true,
                description => case.src.clone(),
            }, {
                insta::assert_snapshot!(case.name.replace('/', "__"), snap);
            }),
            Err(e) => failures.push(format!("{}: {e}", case.name)),
        }
    }
    let mut folders: Vec<_> = per_folder.into_iter().collect();
    folders.sort();
    println!("cases per folder: {folders:?}");
    assert!(
        failures.is_empty(),
        "{} of {} cases fail:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
    let never: Vec<String> = RULES
        .iter()
        .enumerate()
        .filter(|(i, r)| r.kind == RuleKind::Opt && fire_count(*i) == 0)
        .map(|(_, r)| format!("{} ({}:{})", r.name, r.file, r.line))
        .collect();
    assert!(
        never.is_empty(),
        "opt rules no case fires; add a case to cases/rewrite/: {never:?}"
    );
}

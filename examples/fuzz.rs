//! A mutation fuzzer for rpy's front half and the trace parser, on stable
//! Rust: `cargo run --release --example fuzz -- --minutes 60`.
//!
//! It mutates the test programs (`tests/programs`, `tests/annotate_errors`)
//! and traces (`tests/traces`, `jit/tests/cases`) and feeds each mutant to
//! the parser, the flow builder (which runs import-time code in the object
//! interpreter) and the annotator, or to the trace parser and optimizer. An
//! error is a fine answer; what it looks for is rpy failing on its own: a
//! panic, an abort (a stack overflow, an allocation failure) or a hang.
//!
//! A supervisor runs the work in a child process, so that an abort does
//! not end the run. The child draws mutants from a generator seeded with a
//! number and announces each one by its index before trying it; when it
//! dies or stays silent for `--hang-seconds` of processor time (not of the
//! clock: a fuzzer under `nice` on a busy machine waits), the supervisor makes
//! the same mutant again from the seed and index, saves it under `--out`
//! (default `target/fuzz`), and starts a fresh child with the next seed.
//! Panics are caught in the child and reported the same way. A hang whose
//! program's module body does not finish under the CPython of its dialect
//! either (a `while` that never ends, run at import time) is the program's,
//! not rpy's: it is saved as `loops-*` and not counted as a failure.
//!
//! The workers read the seed files themselves; a run whose seeds change
//! on disk (a test program edited meanwhile) stops, as a failure found
//! then could not be remade. `--mutant SEED INDEX` prints one mutant
//! (the `SEED-INDEX` of a saved file's name) from the seeds as they are.

use rpy::pipeline::{run_until, Source, StageName, Timings};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A small deterministic generator: a mutant is remade from its seed and index.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03)
    }

    fn below(&mut self, n: usize) -> usize {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

/// One seed input: a program (with the path its imports resolve from) or a trace.
#[derive(Clone)]
struct Seed {
    path: PathBuf,
    text: String,
    is_trace: bool,
}

fn seeds(root: &Path) -> Vec<Seed> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    for dir in [
        "tests/programs",
        "tests/annotate_errors",
        "tests/traces",
        "jit/tests/cases",
    ] {
        walk(&root.join(dir), &mut files);
    }
    files
        .into_iter()
        .filter_map(|path| {
            let ext = path.extension()?.to_str()?;
            let is_trace = match ext {
                "py" => false,
                "trace" => true,
                _ => return None,
            };
            let text = std::fs::read_to_string(&path).ok()?;
            Some(Seed {
                path,
                text,
                is_trace,
            })
        })
        .collect()
}

/// The processor time (user and system) process `pid` has used so far,
/// from `/proc`; `None` where that cannot be read (then a hang is timed by
/// the clock).
fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name, which is in parentheses.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 here.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // The kernel's clock ticks per second (USER_HZ), 100 on Linux.
    Some(ticks as f64 / 100.0)
}

/// A digest of the seeds' paths and texts, which the supervisor hands its
/// workers so that they mutate the same seeds it remakes mutants from.
fn fingerprint(seeds: &[Seed]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for s in seeds {
        s.path.hash(&mut h);
        s.text.hash(&mut h);
    }
    h.finish()
}

/// Words a mutation may put in place of another: keywords, operators, and
/// the shapes that have crashed front ends before (deep nesting, huge
/// numbers, odd names).
const WORDS: &[&str] = &[
    "if",
    "else",
    "while",
    "for",
    "in",
    "def",
    "class",
    "return",
    "yield",
    "lambda",
    "try",
    "except",
    "finally",
    "raise",
    "global",
    "import",
    "from",
    "pass",
    "break",
    "continue",
    "not",
    "and",
    "or",
    "is",
    "None",
    "True",
    "False",
    "self",
    "0",
    "1",
    "-1",
    "2**63",
    "1e308",
    "''",
    "\"x\"",
    "[]",
    "{}",
    "()",
    "(",
    ")",
    "[",
    "]",
    ":",
    ",",
    ".",
    "=",
    "+",
    "*",
    "/",
    "//",
    "%",
    "<<",
    "**",
    "==",
    "<",
    "x",
    "A",
    "object",
    "len",
    "int",
    "str",
    "list",
    "range",
    "isinstance",
    "entry_point",
    "target",
    "\t",
    "    ",
    "\\",
    "#",
    "i0",
    "p0",
    "f0",
    "jump",
    "finish",
    "label",
    "guard_true",
    "int_add",
    "descr=",
    "[i0]",
];

/// The mutant number `index` of the run seeded with `seed`.
fn mutant(seeds: &[Seed], seed: u64, index: u64) -> Seed {
    let mut rng = Rng::new(seed ^ index.wrapping_mul(0x1000_0000_01B3));
    let base = &seeds[rng.below(seeds.len())];
    let mut lines: Vec<String> = base.text.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(4) {
        if lines.is_empty() {
            lines.push(String::new());
        }
        let at = rng.below(lines.len());
        match rng.below(9) {
            0 => {
                lines.remove(at);
            }
            1 => {
                let copy = lines[at].clone();
                lines.insert(rng.below(lines.len() + 1), copy);
            }
            2 => {
                let other = rng.below(lines.len());
                lines.swap(at, other);
            }
            3 | 4 => {
                // replace one word of the line
                let words: Vec<&str> = lines[at].split(' ').collect();
                let w = rng.below(words.len());
                let mut words: Vec<String> = words.iter().map(|s| s.to_string()).collect();
                words[w] = WORDS[rng.below(WORDS.len())].to_string();
                lines[at] = words.join(" ");
            }
            5 => {
                // a line of another seed
                let other = &seeds[rng.below(seeds.len())];
                let other_lines: Vec<&str> = other.text.lines().collect();
                if !other_lines.is_empty() {
                    lines.insert(at, other_lines[rng.below(other_lines.len())].to_string());
                }
            }
            6 => {
                // a byte of the line, anything but a newline
                let mut bytes = lines[at].clone().into_bytes();
                let b = (rng.below(255) + 1) as u8;
                let b = if b == b'\n' { 0 } else { b };
                let i = rng.below(bytes.len() + 1);
                bytes.insert(i, b);
                lines[at] = String::from_utf8_lossy(&bytes).into_owned();
            }
            7 => {
                let indent = "    ".repeat(rng.below(3));
                lines[at] = format!("{indent}{}", lines[at].trim_start());
            }
            _ => {
                // nesting, repeated: brackets, calls, operators
                let (open, close) =
                    [("(", ")"), ("[", "]"), ("-", ""), ("not ", ""), ("f(", ")")][rng.below(5)];
                let n = 1 + rng.below(3000);
                lines[at] = format!("x = {}1{}", open.repeat(n), close.repeat(n));
            }
        }
    }
    Seed {
        path: base.path.clone(),
        text: lines.join("\n") + "\n",
        is_trace: base.is_trace,
    }
}

/// Runs one mutant through the stages; errors are fine answers.
fn try_one(m: &Seed) {
    if m.is_trace {
        if let Ok(trace) = rpy_jit::text::parse(&m.text) {
            let _ = rpy_jit::optimize::optimize(&trace, rpy_jit::optimize::IMPLEMENTED_PASSES);
        }
        return;
    }
    let src = Source {
        path: m.path.to_string_lossy().into_owned(),
        dialect: rpy_passes::parse::detect_dialect(&m.text),
        gc: rpy_ir::llops::GcKind::default(),
        jit: false,
        text: m.text.clone(),
    };
    let _ = run_until(&src, StageName::Annotate, &mut Timings::default());
}

/// The child: tries the mutants of `seed` in order, announcing each on
/// standard output, and reports a caught panic with its index.
fn worker(seed: u64, seeds: &[Seed]) {
    std::panic::set_hook(Box::new(|_| {}));
    let stdout = std::io::stdout();
    for index in 0.. {
        let m = mutant(seeds, seed, index);
        let _ = writeln!(stdout.lock(), "try {index}");
        if let Err(payload) = std::panic::catch_unwind(|| try_one(&m)) {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let _ = writeln!(stdout.lock(), "panic {index} {}", msg.replace('\n', " "));
        }
    }
}

struct Args {
    minutes: f64,
    hang_seconds: u64,
    out: PathBuf,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        minutes: 60.0,
        hang_seconds: 20,
        out: PathBuf::from("target/fuzz"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--minutes" => {
                args.minutes = value()?.parse().map_err(|e| format!("--minutes: {e}"))?
            }
            "--hang-seconds" => {
                args.hang_seconds = value()?
                    .parse()
                    .map_err(|e| format!("--hang-seconds: {e}"))?
            }
            "--out" => args.out = PathBuf::from(value()?),
            other => {
                return Err(format!(
                    "unknown argument {other}; use --minutes N, --hang-seconds N, --out DIR"
                ))
            }
        }
    }
    Ok(args)
}

/// Whether importing the program `m` (its module-level code only, as the
/// flow stage runs it, not its `__main__` part) does not finish within
/// `seconds` under the CPython of its dialect either: then rpy's flow stage,
/// which runs that code with Python's semantics, cannot finish it, and the
/// hang is the program's. `false` when no CPython of the dialect is found,
/// so that a hang is never excused without one.
fn imports_forever_under_cpython(m: &Seed, out: &Path, seconds: u64) -> bool {
    use rpy_ir::ast::Dialect;
    if m.is_trace {
        return false;
    }
    let python = match rpy_passes::parse::detect_dialect(&m.text) {
        Dialect::Py3 => PathBuf::from("python3"),
        Dialect::Py2 => match std::env::var_os("RPY_PYTHON2") {
            Some(p) => PathBuf::from(p),
            None => std::env::var_os("HOME")
                .map(|h| Path::new(&h).join(".pyenv/versions/2.7.18/bin/python2.7"))
                .filter(|p| p.is_file())
                .unwrap_or_else(|| PathBuf::from("python2.7")),
        },
    };
    let _ = std::fs::create_dir_all(out);
    let file = out.join(format!("import-check-{}.py", std::process::id()));
    if std::fs::write(&file, &m.text).is_err() {
        return false;
    }
    // Its own folder for its modules, rpy's pylib for the rlib stand-ins.
    let dir = m.path.parent().unwrap_or_else(|| Path::new("."));
    let pylib = Path::new(env!("CARGO_MANIFEST_DIR")).join("pylib");
    let script = "import sys, imp\nsys.path[:0] = [sys.argv[2], sys.argv[3]]\nimp.load_source('mutant', sys.argv[1])\n";
    let script3 = "import sys, importlib.util\nsys.path[:0] = [sys.argv[2], sys.argv[3]]\nspec = importlib.util.spec_from_file_location('mutant', sys.argv[1])\nspec.loader.exec_module(importlib.util.module_from_spec(spec))\n";
    let is_py3 = python == Path::new("python3");
    let child = Command::new(&python)
        .arg("-c")
        .arg(if is_py3 { script3 } else { script })
        .arg(&file)
        .arg(dir)
        .arg(&pylib)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        let _ = std::fs::remove_file(&file);
        return false;
    };
    let give_up = Instant::now() + Duration::from_secs(seconds);
    let forever = loop {
        match child.try_wait() {
            Ok(Some(_)) | Err(_) => break false,
            Ok(None) if Instant::now() >= give_up => break true,
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_file(&file);
    forever
}

fn save(out: &Path, kind: &str, seed: u64, index: u64, m: &Seed, detail: &str) {
    let _ = std::fs::create_dir_all(out);
    let ext = if m.is_trace { "trace" } else { "py" };
    let file = out.join(format!("{kind}-{seed}-{index}.{ext}"));
    let _ = std::fs::write(&file, &m.text);
    println!(
        "{kind}: {} (mutant of {}){}",
        file.display(),
        m.path.display(),
        if detail.is_empty() {
            String::new()
        } else {
            format!(": {detail}")
        }
    );
}

/// Copies this binary into `out` (as `fuzz-worker`) and returns the copy.
fn worker_copy(out: &Path) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(out)?;
    let copy = out.join("fuzz-worker");
    std::fs::copy(std::env::current_exe()?, &copy)?;
    Ok(copy)
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let seeds = seeds(&root);
    let mut argv = std::env::args().skip(1);
    match argv.next().as_deref() {
        Some("--worker") => {
            let seed = argv.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            // The supervisor remakes a failing mutant from its own copy of
            // the seeds: a worker that read other files (a seed edited
            // during the run) would fail on a mutant the supervisor cannot
            // save. It says so and stops.
            let expected = argv.next().and_then(|s| s.parse::<u64>().ok());
            if expected.is_some_and(|e| e != fingerprint(&seeds)) {
                println!("seeds-changed");
                return;
            }
            worker(seed, &seeds);
            return;
        }
        // Prints mutant INDEX of the run seeded with SEED (the worker's),
        // from the seed files as they are now.
        Some("--mutant") => {
            let mut number = || argv.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            let (seed, index) = (number(), number());
            let m = mutant(&seeds, seed, index);
            eprintln!("mutant {index} of seed {seed}, of {}", m.path.display());
            print!("{}", m.text);
            return;
        }
        _ => {}
    }
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("fuzz: {e}");
            std::process::exit(2);
        }
    };
    println!("fuzz: {} seeds, for {} minutes", seeds.len(), args.minutes);
    // Workers run from a copy of this binary: a `cargo build` during the
    // hour replaces the original, and spawning it then fails.
    let worker_exe = match worker_copy(&args.out) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("fuzz: cannot copy the fuzzer for its workers: {e}");
            std::process::exit(2);
        }
    };
    let deadline = Instant::now() + Duration::from_secs_f64(args.minutes * 60.0);
    let (mut tried, mut found, mut looping) = (0u64, 0u32, 0u32);
    let mut seed = 1u64;
    'run: while Instant::now() < deadline {
        let mut child = Command::new(&worker_exe)
            .args([
                "--worker",
                &seed.to_string(),
                &fingerprint(&seeds).to_string(),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start a worker");
        let (tx, rx) = mpsc::channel();
        let stdout = child.stdout.take().expect("piped");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut current = None;
        // The child's processor time when it announced the current mutant:
        // a hang is `--hang-seconds` of the processor spent on one mutant,
        // not of the clock, so that a loaded machine (a fuzzer run under
        // `nice` shares it) does not make a slow mutant a hang.
        let mut cpu_at_try = cpu_seconds(child.id());
        // A worker blocked without using the processor (asleep, waiting
        // on input) hangs too, after ten times as long by the clock.
        let mut tried_at = Instant::now();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                let _ = child.kill();
                break;
            }
            match rx.recv_timeout(left.min(Duration::from_secs(args.hang_seconds))) {
                Ok(line) => {
                    if line == "seeds-changed" {
                        println!(
                            "fuzz: the seed files changed during the run; stopping (a failure now could not be remade)"
                        );
                        let _ = child.wait();
                        break 'run;
                    }
                    if let Some(i) = line.strip_prefix("try ") {
                        current = i.parse::<u64>().ok();
                        cpu_at_try = cpu_seconds(child.id());
                        tried_at = Instant::now();
                        tried += 1;
                    } else if let Some(rest) = line.strip_prefix("panic ") {
                        let (i, msg) = rest.split_once(' ').unwrap_or((rest, ""));
                        let i = i.parse().unwrap_or(0);
                        save(&args.out, "panic", seed, i, &mutant(&seeds, seed, i), msg);
                        found += 1;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout)
                    if matches!(
                        (cpu_at_try, cpu_seconds(child.id())),
                        (Some(then), Some(now)) if now - then < args.hang_seconds as f64
                    ) && tried_at.elapsed() < Duration::from_secs(10 * args.hang_seconds) =>
                {
                    // Waiting for the processor, not working: wait on.
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    if Instant::now() < deadline {
                        if let Some(i) = current {
                            let m = mutant(&seeds, seed, i);
                            // A module body that loops forever under
                            // CPython too is the program's, not rpy's.
                            if imports_forever_under_cpython(&m, &args.out, args.hang_seconds) {
                                save(
                                    &args.out,
                                    "loops",
                                    seed,
                                    i,
                                    &m,
                                    "CPython's import does not finish either: not counted",
                                );
                                looping += 1;
                            } else {
                                save(&args.out, "hang", seed, i, &m, "");
                                found += 1;
                            }
                        }
                    }
                    break;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = child.wait().ok();
                    if let Some(i) = current {
                        let detail = status.map(|s| s.to_string()).unwrap_or_default();
                        save(
                            &args.out,
                            "abort",
                            seed,
                            i,
                            &mutant(&seeds, seed, i),
                            &detail,
                        );
                        found += 1;
                    }
                    break;
                }
            }
        }
        let _ = child.wait();
        seed += 1;
    }
    println!(
        "fuzz: {tried} mutants tried, {found} failures saved under {}; not failures: {looping} whose module body loops under CPython too (saved as loops-*)",
        args.out.display()
    );
    std::process::exit(i32::from(found > 0));
}

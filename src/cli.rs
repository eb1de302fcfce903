//! The `rpy` command line.

use crate::pipeline::{self, Source, StageName, Timings};
use clap::{Args, Parser, Subcommand};
use rpy_ir::ast::Dialect;
use rpy_ir::diag::Diagnostics;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Parser)]
#[command(
    name = "rpy",
    version,
    about = "Translate RPython programs to native executables"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Args, Clone, Copy)]
struct DialectFlags {
    /// Read the source as Python 2.7 syntax.
    #[arg(long, conflicts_with = "py3")]
    py2: bool,
    /// Read the source as Python 3 syntax.
    #[arg(long)]
    py3: bool,
}

impl DialectFlags {
    fn dialect(self) -> Option<Dialect> {
        match (self.py2, self.py3) {
            (true, _) => Some(Dialect::Py2),
            (_, true) => Some(Dialect::Py3),
            _ => None,
        }
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Translate FILE.py into a native executable.
    Translate {
        file: String,
        /// The executable to write (default: next to the source, named after it).
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        dialect: DialectFlags,
        /// Print how long each stage took.
        #[arg(long)]
        timings: bool,
    },
    /// Translate FILE.py (cached) and run it with ARGS; its exit status is passed through.
    Run {
        file: String,
        #[command(flatten)]
        dialect: DialectFlags,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Run FILE.py in the LLInterpreter (no C compiler needed).
    Interp {
        file: String,
        #[command(flatten)]
        dialect: DialectFlags,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Print the IR after a stage.
    Show {
        /// The stage whose output to print (see --stages).
        #[arg(long, required_unless_present = "stages")]
        stage: Option<String>,
        /// List the stage names, one a line.
        #[arg(long)]
        stages: bool,
        /// Only this function's graph.
        #[arg(long)]
        func: Option<String>,
        /// With --stage annotate: why a variable got its annotation (NAME, or
        /// FUNCTION:NAME for one function's), the chain of contributions with
        /// their source lines.
        #[arg(long, value_name = "VAR")]
        explain: Option<String>,
        #[arg(required_unless_present = "stages")]
        file: Option<String>,
        #[command(flatten)]
        dialect: DialectFlags,
    },
    /// Optimize a text trace (PyPy's trace syntax; see jit/README.md), print it,
    /// and with --run execute it in the reference interpreter.
    Trace {
        file: String,
        /// Colon-separated optimizations (`intbounds:rewrite:virtualize:pure:heap`),
        /// `default` for all implemented ones, `none` for none.
        #[arg(long, default_value = "default")]
        passes: String,
        /// Run the trace with these input values and print the outcome.
        #[arg(long, num_args = 0.., allow_hyphen_values = true)]
        run: Option<Vec<String>>,
        /// After the trace, list every optimization rule with its file:line
        /// and how often it fired while optimizing this trace.
        #[arg(long)]
        rule_counts: bool,
    },
    /// List every rule with its file:line and how often it fired on the last translation.
    Rules {
        /// Run every optimization rule's property check on random and edge values.
        #[arg(long)]
        check: bool,
    },
}

/// Writes to standard output; a closed pipe (`rpy rules | head`) is not an error.
fn emit(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

fn report(d: &Diagnostics) -> i32 {
    eprintln!("{d}");
    1
}

/// The value of a step that may fail with diagnostics; on failure, reports
/// them and returns exit status 1 from the command.
macro_rules! try_or_report {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(d) => return report(&d),
        }
    };
}

/// The executable's default path: the source's path without `.py`.
fn default_output(file: &str) -> PathBuf {
    let p = Path::new(file);
    p.with_extension("")
}

fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("RPY_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("rpy")
}

/// A key for the translation cache: the source, the dialect and this rpy build.
fn cache_key(src: &Source) -> String {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut h = DefaultHasher::new();
    src.text.hash(&mut h);
    format!("{:?}", src.dialect).hash(&mut h);
    if let Ok(exe) = std::env::current_exe().and_then(std::fs::metadata) {
        exe.len().hash(&mut h);
        exe.modified().ok().hash(&mut h);
    }
    format!("{:016x}", h.finish())
}

/// Translates `src` into an executable at `output`; rule fire counts are saved
/// for `rpy rules`.
pub fn translate(src: &Source, output: &Path, timings: &mut Timings) -> Result<(), Diagnostics> {
    rpy_passes::rules::reset_fire_counts();
    let c = pipeline::c_source(src, timings)?;
    save_fire_counts();
    rpy_backend::compile_c(&c, output, "-O2").map_err(|e| {
        Diagnostics::one(rpy_ir::diag::Diagnostic::new(
            src.path.clone(),
            rpy_ir::diag::Pos::new(1, 1),
            format!("the C compiler failed: {e}"),
        ))
    })
}

fn fire_counts_file() -> PathBuf {
    cache_dir().join("last-fire-counts.txt")
}

fn save_fire_counts() {
    let text: String = rpy_passes::rules::RULES
        .iter()
        .enumerate()
        .map(|(i, r)| format!("{} {}\n", r.name, rpy_passes::rules::fire_count(i)))
        .collect();
    let _ = std::fs::create_dir_all(cache_dir());
    let _ = std::fs::write(fire_counts_file(), text);
}

fn run_rules(check: bool) -> i32 {
    let saved = std::fs::read_to_string(fire_counts_file()).unwrap_or_default();
    let count_of = |name: &str| {
        saved
            .lines()
            .filter_map(|l| l.split_once(' '))
            .find(|(n, _)| *n == name)
            .map(|(_, c)| c.to_string())
            .unwrap_or_else(|| "-".into())
    };
    let mut text = String::new();
    if saved.is_empty() {
        text += "# no translation has run yet: fire counts show as '-'\n";
    }
    text += &format!("{:<28} {:<8} {:<36} fired\n", "rule", "kind", "where");
    for r in rpy_passes::rules::RULES {
        text += &format!(
            "{:<28} {:<8} {:<36} {}\n",
            r.name,
            format!("{:?}", r.kind).to_lowercase(),
            format!("{}:{}", r.file, r.line),
            count_of(r.name)
        );
    }
    emit(&text);
    if !check {
        return 0;
    }
    let failures = rpy_passes::rules::opt::check_all(2000);
    for f in &failures {
        emit(&format!("FAILED {f}\n"));
    }
    if failures.is_empty() {
        emit("all optimization rules agree on random and edge values\n");
        0
    } else {
        1
    }
}

fn run_executable(exe: &Path, args: &[String]) -> i32 {
    match Command::new(exe).args(args).status() {
        Ok(status) => status.code().unwrap_or(1),
        Err(e) => {
            eprintln!("rpy: cannot run {}: {e}", exe.display());
            1
        }
    }
}

pub fn main() -> i32 {
    let cli = Cli::parse();
    match cli.command {
        Cmd::Translate {
            file,
            output,
            dialect,
            timings,
        } => {
            let src = try_or_report!(Source::read(&file, dialect.dialect()));
            let output = output.unwrap_or_else(|| default_output(&file));
            let mut t = Timings::default();
            if let Err(d) = translate(&src, &output, &mut t) {
                return report(&d);
            }
            if timings {
                for (stage, d) in &t.0 {
                    eprintln!("{:<12} {:>9.3} ms", stage.name(), d.as_secs_f64() * 1e3);
                }
                eprintln!("{:<12} {:>9.3} ms", "total", t.total().as_secs_f64() * 1e3);
            }
            0
        }
        Cmd::Run {
            file,
            dialect,
            args,
        } => {
            let src = try_or_report!(Source::read(&file, dialect.dialect()));
            let exe = cache_dir().join(format!("{}-{}", stem(&file), cache_key(&src)));
            if !exe.exists() {
                if let Err(e) = std::fs::create_dir_all(cache_dir()) {
                    eprintln!("rpy: cannot create the cache folder: {e}");
                    return 1;
                }
                if let Err(d) = translate(&src, &exe, &mut Timings::default()) {
                    return report(&d);
                }
            }
            run_executable(&exe, &args)
        }
        Cmd::Interp {
            file,
            dialect,
            args,
        } => {
            let src = try_or_report!(Source::read(&file, dialect.dialect()));
            let program = try_or_report!(pipeline::lowlevel(&src));
            let mut argv = vec![file.clone()];
            argv.extend(args);
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            let result =
                rpy_passes::llinterp::LlInterpreter::new(&program).run_entry(&argv, &mut out);
            use std::io::Write;
            let _ = out.flush();
            match result {
                Ok(status) => status as i32,
                Err(e) => {
                    eprintln!("{}", e.message);
                    1
                }
            }
        }
        Cmd::Show {
            stage,
            stages,
            func,
            explain,
            file,
            dialect,
        } => {
            if stages {
                let names: String = StageName::ALL
                    .iter()
                    .map(|s| format!("{}\n", s.name()))
                    .collect();
                emit(&names);
                return 0;
            }
            let (Some(stage), Some(file)) = (stage, file) else {
                eprintln!("rpy show: give --stage STAGE and FILE.py, or --stages");
                return 1;
            };
            let Some(stage) = StageName::from_name(&stage) else {
                let names: Vec<&str> = StageName::ALL.iter().map(|s| s.name()).collect();
                eprintln!(
                    "rpy show: unknown stage '{stage}'; the stages are: {}",
                    names.join(", ")
                );
                return 1;
            };
            let src = try_or_report!(Source::read(&file, dialect.dialect()));
            if let Some(var) = explain {
                return explain_command(&src, stage, &var);
            }
            match pipeline::run_until(&src, stage, &mut Timings::default()) {
                Ok(out) => match out.to_text(func.as_deref()) {
                    Ok(text) => {
                        emit(&text);
                        0
                    }
                    Err(e) => {
                        eprintln!("rpy show: {e}");
                        1
                    }
                },
                Err(d) => report(&d),
            }
        }
        Cmd::Rules { check } => run_rules(check),
        Cmd::Trace {
            file,
            passes,
            run,
            rule_counts,
        } => {
            let passes = (passes != "none").then_some(passes.as_str());
            rpy_passes::rules::reset_fire_counts();
            let text = trace_command(&file, passes, run).map(|mut text| {
                if rule_counts {
                    text += &opt_rule_counts();
                }
                text
            });
            match text {
                Ok(text) => {
                    emit(&text);
                    0
                }
                Err(e) => {
                    eprintln!("{e}");
                    1
                }
            }
        }
    }
}

/// `rpy show --stage annotate FILE --explain VAR`: why VAR got its annotation.
fn explain_command(src: &Source, stage: StageName, var: &str) -> i32 {
    if stage != StageName::Annotate {
        eprintln!("rpy show: --explain works with --stage annotate");
        return 1;
    }
    let flow = match pipeline::run_until(src, StageName::Flow, &mut Timings::default()) {
        Ok(pipeline::StageOutput::Flow(flow)) => flow,
        Ok(_) => {
            eprintln!("rpy show: internal error: the flow stage gave no flow graphs");
            return 1;
        }
        Err(d) => return report(&d),
    };
    match rpy_passes::annotate::explain(&flow, src.dialect, &src.text, var) {
        Ok(text) => {
            emit(&text);
            0
        }
        Err(e) => {
            eprintln!("rpy show: {e}");
            1
        }
    }
}

/// `rpy trace --rule-counts`: every opt rule, where it is written and how
/// often it fired since the counters were reset.
fn opt_rule_counts() -> String {
    let mut text = format!("# {:<26} {:<28} fired\n", "opt rule", "where");
    for (i, r) in rpy_passes::rules::RULES.iter().enumerate() {
        if r.kind != rpy_passes::rules::RuleKind::Opt {
            continue;
        }
        text += &format!(
            "# {:<26} {:<28} {}\n",
            r.name,
            format!("{}:{}", r.file, r.line),
            rpy_passes::rules::fire_count(i)
        );
    }
    text
}

/// `rpy trace`: the (optimized) trace, and with `run` its outcome in the
/// reference interpreter and as machine code, one line each.
fn trace_command(
    file: &str,
    passes: Option<&str>,
    run: Option<Vec<String>>,
) -> Result<String, String> {
    use rpy_jit::interp::{self, Heap};
    let trace = rpy_jit::load_trace(file, passes)?;
    let mut out = rpy_jit::text::print(&trace);
    let Some(args) = run else {
        return Ok(out);
    };
    let mut heap = Heap::default();
    let values = rpy_jit::run_values(&trace, &mut heap, &args)?;
    let outcome = interp::run(&trace, &values, &mut heap, rpy_jit::RUN_LIMIT);
    out += &format!(
        "interpreter:  {}\n",
        rpy_jit::outcome_text(&trace, &outcome)
    );
    // a fresh heap with the same inputs, so the two runs do not share
    // objects; the code checks every access, as the inputs come from users
    let machine = match rpy_backend::x86_64::compile_checked(&trace) {
        Ok(code) => {
            let mut heap = Heap::default();
            let values = rpy_jit::run_values(&trace, &mut heap, &args)?;
            let outcome = code.run(&values, &mut heap, rpy_jit::RUN_LIMIT);
            rpy_jit::outcome_text(&trace, &outcome)
        }
        Err(e) => format!("not compiled: {e}"),
    };
    out += &format!("machine code: {machine}\n");
    Ok(out)
}

fn stem(file: &str) -> String {
    Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".into())
}

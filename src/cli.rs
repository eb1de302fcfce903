//! The `rpy` command line.

use crate::graphview::{self, Format};
use crate::pipeline::{self, Source, StageName, Timings};
use clap::{Args, Parser, Subcommand};
use rpy_ir::ast::Dialect;
use rpy_ir::diag::{Diagnostics, SourceMap};
use rpy_ir::llops::GcKind;
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

#[derive(Args, Clone)]
struct GcFlag {
    /// The collector the executable gets: `generational` (a nursery with
    /// copying minor collections, a mark-and-sweep old generation), or
    /// `none` (objects are never freed).
    #[arg(long, default_value = "generational", value_parser = ["generational", "none"])]
    gc: String,
}

impl GcFlag {
    fn kind(&self) -> GcKind {
        GcKind::from_name(&self.gc).unwrap_or_default()
    }
}

/// Which backend optimizations run (all, by default), to see what each
/// does or to bisect a miscompilation.
#[derive(Args, Clone, Copy)]
struct BackendoptFlags {
    /// Inline calls of graphs whose weight (static size plus estimated
    /// execution cost, the original's heuristic) is below this; 0 inlines
    /// nothing.
    #[arg(long, value_name = "WEIGHT", default_value_t = rpy_passes::backendopt::inline::DEFAULT_THRESHOLD)]
    inline_threshold: f64,
    /// Keep every malloc (no replacing of non-escaping structures by their fields).
    #[arg(long)]
    no_malloc_removal: bool,
    /// No folding of repeated field reads.
    #[arg(long)]
    no_load_folding: bool,
    /// No folding of vtable reads into direct calls.
    #[arg(long)]
    no_devirtualize: bool,
    /// No integer rewriting with the rules of rules/opt.
    #[arg(long)]
    no_int_rewrite: bool,
    /// No e-graph over whole functions (no value numbering across blocks,
    /// no hoisting of loop-invariant pure operations).
    #[arg(long)]
    no_global_egraph: bool,
    /// No constant and branch folding across blocks.
    #[arg(long)]
    no_constfold: bool,
    /// No facts from branch conditions (after `if x == 5:`, `x` is 5 on
    /// that path; after `if x < n:`, `x` is below `n`).
    #[arg(long)]
    no_branch_facts: bool,
    /// No removal of dead operations and block arguments.
    #[arg(long)]
    no_dead_code: bool,
    /// No if-conversion of `a or b`, `a and b` whose second operand is a
    /// few field reads (both computed, one branch).
    #[arg(long)]
    no_if_conversion: bool,
    /// No merging of chains of `==` tests of one variable into a switch.
    #[arg(long)]
    no_merge_switches: bool,
    /// No backend optimization at all (every `--no-*` above, and no
    /// inlining): the rtyper's graphs go to C as they are. The quickest
    /// translation, for trying a change, and the baseline a
    /// miscompilation is bisected from.
    #[arg(long)]
    no_backendopt: bool,
}

impl BackendoptFlags {
    fn options(self) -> pipeline::BackendoptOptions {
        if self.no_backendopt {
            return pipeline::BackendoptOptions::none();
        }
        pipeline::BackendoptOptions {
            inline_threshold: self.inline_threshold.max(0.0),
            malloc_removal: !self.no_malloc_removal,
            load_folding: !self.no_load_folding,
            devirtualize: !self.no_devirtualize,
            int_rewrite: !self.no_int_rewrite,
            global_egraph: !self.no_global_egraph,
            constfold: !self.no_constfold,
            branch_facts: !self.no_branch_facts,
            dead_code: !self.no_dead_code,
            if_conversion: !self.no_if_conversion,
            merge_switches: !self.no_merge_switches,
        }
    }
}

/// A program to run and its arguments. Everything after FILE is the
/// program's, options included (`rpy run prog.py -h` gives `-h` to the
/// program), so FILE and the arguments are one list to clap: once it has
/// read the list's first value, it reads no more options of rpy's.
#[derive(Args)]
struct ProgramCommandLine {
    /// The program's main file (its modules are found next to it), then the
    /// arguments the program gets (its argv[1:]); everything after FILE is
    /// the program's, options too (but for one `--` right after FILE).
    #[arg(
        value_name = "FILE [ARGS]",
        required = true,
        num_args = 1..,
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    command_line: Vec<String>,
}

impl ProgramCommandLine {
    /// FILE and the program's arguments; `None`, said on stderr, for a
    /// FILE that is a mistyped option of rpy's (clap took it for FILE, as
    /// FILE may start with `-`).
    fn split(self) -> Option<(String, Vec<String>)> {
        let mut words = self.command_line.into_iter();
        let file = words.next().expect("clap requires FILE");
        if file.starts_with('-') && !Path::new(&file).exists() {
            eprintln!("rpy: '{file}' is no option of rpy's and no file");
            return None;
        }
        let mut args: Vec<String> = words.collect();
        // `--` right after FILE still ends rpy's options, as it did when
        // FILE was an argument of its own (`rpy run prog.py -- -3`).
        if args.first().is_some_and(|a| a == "--") {
            args.remove(0);
        }
        Some((file, args))
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Translate FILE.py into a native executable.
    Translate {
        /// The program's main file (its modules are found next to it).
        file: String,
        /// The executable to write (default: next to the source, named after
        /// it); never the source itself.
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        dialect: DialectFlags,
        #[command(flatten)]
        gc: GcFlag,
        /// Print how long each stage and the C compiler took.
        #[arg(long)]
        timings: bool,
        #[command(flatten)]
        backendopt: BackendoptFlags,
        /// Give the executable the JIT: every call of the JitDriver's
        /// portal runs in the JIT's runtime, linked with the program.
        #[arg(long)]
        jit: bool,
    },
    /// Translate FILE.py (cached) and run it with ARGS; its exit status is passed through.
    Run {
        #[command(flatten)]
        dialect: DialectFlags,
        #[command(flatten)]
        gc: GcFlag,
        #[command(flatten)]
        backendopt: BackendoptFlags,
        /// Translate with the JIT (as `translate --jit`).
        #[arg(long)]
        jit: bool,
        #[command(flatten)]
        program: ProgramCommandLine,
    },
    /// Run FILE.py in the LLInterpreter (no C compiler needed).
    Interp {
        #[command(flatten)]
        dialect: DialectFlags,
        /// Run every call of the JitDriver's portal on its jitcodes in the
        /// JIT's blackhole interpreter (what it did is counted on stderr).
        #[arg(long)]
        blackhole: bool,
        /// Run the portal on jitcodes with the tracing JIT: hot loops are
        /// traced, optimized and run as traces (counts on stderr; the
        /// traces go to the file RPY_JITLOG names).
        #[arg(long, conflicts_with = "blackhole")]
        jit: bool,
        /// A JIT parameter, NAME=VALUE (threshold, function_threshold,
        /// trace_limit, trace_eagerness, enable_opts as the original's
        /// set_param; backend=machine|interp, where loops run); repeatable.
        /// They override the RPY_JIT environment variable (NAME=VALUE,...).
        #[arg(long = "jit-param", value_name = "NAME=VALUE", requires = "jit")]
        jit_params: Vec<String>,
        #[command(flatten)]
        backendopt: BackendoptFlags,
        #[command(flatten)]
        program: ProgramCommandLine,
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
        /// How to show the graphs: the IR's text, Graphviz source, SVG (needs
        /// Graphviz's `dot`), or one self-contained HTML page to open in a
        /// browser (blocks and links drawn, types on hover, source lines).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// With --stage annotate: why a variable got its annotation (NAME, or
        /// FUNCTION:NAME for one function's), the chain of contributions with
        /// their source lines.
        #[arg(long, value_name = "VAR")]
        explain: Option<String>,
        /// The program's main file (its modules are found next to it).
        #[arg(required_unless_present = "stages")]
        file: Option<String>,
        #[command(flatten)]
        dialect: DialectFlags,
        #[command(flatten)]
        gc: GcFlag,
        #[command(flatten)]
        backendopt: BackendoptFlags,
    },
    /// Print the call graph of the low-level program (as the rtyper made
    /// it): its strongly connected components bottom-up, the recursive
    /// ones marked, and what each graph calls.
    Callgraph {
        /// The program's main file (its modules are found next to it).
        file: String,
        #[command(flatten)]
        dialect: DialectFlags,
    },
    /// Optimize a text trace (PyPy's trace syntax; see jit/README.md), print it,
    /// and with --run execute it in the reference interpreter.
    Trace {
        /// The trace file (PyPy's trace syntax, with a header; see jit/README.md).
        file: String,
        #[arg(long, default_value = "default", help = passes_help())]
        passes: String,
        /// Run the trace with these input values and print the outcome (exit
        /// status 1 when the run ends in an error).
        // Negative numbers are values; any other word with a leading `-`
        // is the next option (`--run 5 --loop-limit 10`).
        #[arg(long, num_args = 0.., allow_negative_numbers = true)]
        run: Option<Vec<String>>,
        /// With --run: how many loop iterations a run may take before it is
        /// stopped.
        #[arg(long, value_name = "N", default_value_t = rpy_jit::RUN_LIMIT)]
        loop_limit: u64,
        /// After the trace, list every optimization rule with its file:line
        /// and how often it fired while optimizing this trace.
        #[arg(long)]
        rule_counts: bool,
        /// More values for --run, after `--`: there, a value may start with
        /// `-` (`--run -- -inf 0`).
        #[arg(last = true, value_name = "RUN_VALUES")]
        run_values_after_dash: Vec<String>,
        /// FILE is a JIT log (`RPY_JITLOG`): run its trace N on the inputs
        /// of its first run and say whether it observes what the program's
        /// run did (exit status 1 when not).
        #[arg(long, value_name = "N", conflicts_with_all = ["run", "rule_counts"])]
        replay: Option<usize>,
    },
    /// List every rule with its file:line and how often it fired on the
    /// last translation (and which program that was).
    Rules {
        /// Run every optimization rule's property check on random and edge
        /// values; prints the failures and the verdict, last.
        #[arg(long)]
        check: bool,
        /// Prove every optimization rule with the SMT solver z3 (for all
        /// 64-bit inputs where it fires); prints each rule not proven, with
        /// its counterexample, and the verdict, last.
        #[arg(long)]
        prove: bool,
        /// With --check: print the rule table as well, before the verdict;
        /// with --prove: print every rule's outcome.
        #[arg(long)]
        verbose: bool,
    },
}

/// `trace --passes`'s help: the pass names from the optimizer's own list,
/// the one its error message shows (and which of them are implemented,
/// when not all are).
fn passes_help() -> String {
    use rpy_jit::optimize::{ALL_PASSES, IMPLEMENTED_PASSES};
    let implemented = if IMPLEMENTED_PASSES == ALL_PASSES {
        String::new()
    } else {
        format!(" (implemented: `{IMPLEMENTED_PASSES}`)")
    };
    format!(
        "Colon-separated optimizations, from `{ALL_PASSES}`{implemented}; \
         `default` for all implemented ones, `none` for none"
    )
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

/// Where `rpy translate` writes the executable, checked before any work is
/// done: never over the source (a file without `.py` would otherwise be its
/// own default output), never a folder, and only into a folder that exists
/// and takes new files.
/// `Err` is the message for the user.
fn checked_output(file: &str, output: Option<PathBuf>) -> Result<PathBuf, String> {
    let output = output.unwrap_or_else(|| default_output(file));
    let shown = output.display();
    if output.is_dir() || output.as_os_str().to_string_lossy().ends_with('/') {
        return Err(format!(
            "{shown} is a folder; -o takes the path of the executable to write"
        ));
    }
    let folder = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return Err(format!(
            "cannot write {shown}: the folder {} does not exist",
            folder.display()
        ));
    }
    // Permissions do not tell (root may write anywhere, but not into
    // /proc): a file made and removed there does. Without this, the
    // linker's failure to write came out as an error at the source's 1:1.
    let probe = folder.join(format!(".rpy-probe-{}", std::process::id()));
    match std::fs::File::create_new(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
        }
        Err(e) => {
            return Err(format!(
                "cannot write {shown}: the folder {} takes no new files ({e})",
                folder.display()
            ))
        }
    }
    let same_file = match (std::fs::canonicalize(file), std::fs::canonicalize(&output)) {
        (Ok(source), Ok(out)) => source == out,
        _ => false,
    };
    if same_file {
        return Err(format!(
            "the executable would overwrite the source file {file}; give its path with -o"
        ));
    }
    if output.exists() && !rpy_backend::is_rpy_executable(&output) {
        return Err(format!(
            "{shown} exists and is not an executable rpy wrote, so rpy does not write over it; remove it or give another path with -o"
        ));
    }
    Ok(output)
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

/// A key for the translation cache: the main file (where it is and its
/// text), the dialect, the collector, the backend optimizations, the
/// module search path and this rpy build. The other files the program
/// read are checked apart, against the manifest kept with the executable
/// (`files_manifest`), since which they are is known only once it is
/// translated.
fn cache_key(src: &Source, options: &pipeline::BackendoptOptions) -> String {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut h = DefaultHasher::new();
    std::fs::canonicalize(&src.path)
        .unwrap_or_else(|_| PathBuf::from(&src.path))
        .hash(&mut h);
    std::env::var_os("PYTHONPATH").hash(&mut h);
    src.text.hash(&mut h);
    format!("{:?}", src.dialect).hash(&mut h);
    src.gc.name().hash(&mut h);
    src.jit.hash(&mut h);
    format!("{options:?}").hash(&mut h);
    if let Ok(exe) = std::env::current_exe().and_then(std::fs::metadata) {
        exe.len().hash(&mut h);
        exe.modified().ok().hash(&mut h);
    }
    format!("{:016x}", h.finish())
}

/// The hash of a source file's text, as the cache's manifest records it.
fn text_hash(text: &str) -> String {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    format!("{:016x}", h.finish())
}

/// The text of the source file at `path` as a translation reads it, or
/// `None` when it cannot be read.
fn read_source_text(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    rpy_passes::parse::read_source(&path.to_string_lossy(), &bytes).ok()
}

/// The manifest kept with a cached executable: every file the
/// translation read (the main file, its modules, rpy's helpers), one per
/// line as the hash of its text and its absolute path; then, as `- PATH`,
/// every file that would have been imported instead of one of them had
/// it existed (a module put earlier on the search path). A file that is
/// not on disk (the helper library's generated main module) is left out.
fn files_manifest(src: &Source, files: &SourceMap) -> String {
    let search = rpy_passes::flow::ModuleSearch::for_program(&src.path);
    let mut out = String::new();
    let mut absent = Vec::new();
    for (id, file) in files.files() {
        let Ok(path) = std::fs::canonicalize(&file.path) else {
            continue;
        };
        if read_source_text(&path).as_deref() == Some(file.text.as_str()) {
            out += &format!("{} {}\n", text_hash(&file.text), path.to_string_lossy());
            // The main file is read by its path, not searched for.
            if id != rpy_ir::diag::FileId::MAIN {
                absent.extend(search.shadowing_candidates(&path));
            }
        }
    }
    for path in absent {
        out += &format!("- {}\n", path.to_string_lossy());
    }
    out
}

/// Whether every file `manifest` lists still has the text it had when the
/// executable was made, and none it lists as absent has appeared.
fn manifest_is_current(manifest: &str) -> bool {
    manifest.lines().all(|line| {
        line.split_once(' ').is_some_and(|(hash, path)| match hash {
            "-" => !Path::new(path).exists(),
            _ => read_source_text(Path::new(path)).is_some_and(|text| text_hash(&text) == hash),
        })
    })
}

/// Translates `src` into an executable at `output` (its C compile timed in
/// `timings`), every backend optimization on; rule fire counts are saved
/// for `rpy rules`.
pub fn translate(src: &Source, output: &Path, timings: &mut Timings) -> Result<(), Diagnostics> {
    translate_with(
        src,
        output,
        timings,
        &pipeline::BackendoptOptions::default(),
    )
}

/// `translate` with the backend optimizations `options` asks for.
pub fn translate_with(
    src: &Source,
    output: &Path,
    timings: &mut Timings,
    options: &pipeline::BackendoptOptions,
) -> Result<(), Diagnostics> {
    let command = format!("rpy translate {}", src.path);
    translate_for(&command, src, output, timings, options).map(|_| ())
}

/// `translate_with` on behalf of `command`, the command line `rpy rules`
/// names as the source of the fire counts; every file the program read.
fn translate_for(
    command: &str,
    src: &Source,
    output: &Path,
    timings: &mut Timings,
    options: &pipeline::BackendoptOptions,
) -> Result<SourceMap, Diagnostics> {
    let link = if src.jit {
        jit_runtime_link().map_err(|e| {
            Diagnostics::one(rpy_ir::diag::Diagnostic::new(
                src.path.clone(),
                rpy_ir::diag::Pos::new(1, 1),
                e,
            ))
        })?
    } else {
        Vec::new()
    };
    let (c, files) = counting_fires(command, || {
        pipeline::c_source_and_files(src, timings, options)
    })?;
    timings.starting("the C compiler");
    let started = std::time::Instant::now();
    let compiled =
        rpy_backend::compile_program(&c, output, "-O2", &link, rpy_backend::default_jobs());
    timings.c_compile = Some(started.elapsed());
    timings.finished();
    compiled.map_err(|e| {
        Diagnostics::one(rpy_ir::diag::Diagnostic::new(
            src.path.clone(),
            rpy_ir::diag::Pos::new(1, 1),
            format!("the C compiler failed: {e}"),
        ))
    })?;
    Ok(files)
}

/// The JIT runtime library's name, as cargo builds the `rpy-jitrt` crate.
const JIT_RUNTIME_LIBRARY: &str = "librpy_jitrt.a";

/// What an executable with the JIT is linked with: the runtime library
/// and the system libraries Rust's standard library needs (`cargo rustc
/// -- --print native-static-libs`).
fn jit_runtime_link() -> Result<Vec<String>, String> {
    let library = jit_runtime_library()?;
    let mut link = vec![library.display().to_string()];
    link.extend(
        ["-lgcc_s", "-lutil", "-lrt", "-lpthread", "-ldl"]
            .iter()
            .map(|s| s.to_string()),
    );
    Ok(link)
}

/// The JIT's runtime library: `$RPY_JITRT`, else the newest that cargo
/// built beside rpy (every build of rpy builds it, as a dependency, in
/// `deps/` with a hash in its name; `cargo build -p rpy-jitrt` puts one
/// beside rpy itself).
fn jit_runtime_library() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("RPY_JITRT") {
        let path = PathBuf::from(path);
        if !path.is_file() {
            return Err(format!(
                "--jit: RPY_JITRT names {}, which is not a file",
                path.display()
            ));
        }
        return Ok(path);
    }
    let exe = std::env::current_exe()
        .map_err(|e| format!("--jit: cannot find rpy's own executable: {e}"))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    // (A test binary translating in its own process runs from `deps/`.)
    let mut candidates = vec![dir.join(JIT_RUNTIME_LIBRARY)];
    for folder in [dir.to_path_buf(), dir.join("deps")] {
        if let Ok(entries) = std::fs::read_dir(folder) {
            candidates.extend(entries.flatten().map(|e| e.path()).filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("librpy_jitrt-") && n.ends_with(".a"))
            }));
        }
    }
    candidates
        .into_iter()
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max()
        .map(|(_, p)| p)
        .ok_or_else(|| {
            format!(
                "--jit: the JIT runtime library {JIT_RUNTIME_LIBRARY} is not beside {} (build rpy with cargo, or name the library with RPY_JITRT)",
                exe.display()
            )
        })
}

fn fire_counts_file() -> PathBuf {
    cache_dir().join("last-fire-counts.txt")
}

/// The fire counts kept with a cached executable, so that `rpy run` from
/// the cache reports the counts of the program it runs.
fn cached_fire_counts_file(exe: &Path) -> PathBuf {
    exe.with_extension("fire-counts")
}

/// Runs `work` with the rules' fire counts reset and, when it succeeds,
/// saves them for `rpy rules` with `command`, the command that made them,
/// on the first line.
fn counting_fires<T, E>(command: &str, work: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    rpy_ruleset::reset_fire_counts();
    let result = work();
    if result.is_ok() {
        save_fire_counts(command);
    }
    result
}

fn save_fire_counts(command: &str) {
    let mut text = format!("# {command}\n");
    for (i, r) in rpy_ruleset::RULES.iter().enumerate() {
        text += &format!("{} {}\n", r.name, rpy_ruleset::fire_count(i));
    }
    let _ = std::fs::create_dir_all(cache_dir());
    let _ = std::fs::write(fire_counts_file(), text);
}

fn run_rules(check: bool, verbose: bool) -> i32 {
    if !check || verbose {
        emit(&rules_table());
    }
    if !check {
        return 0;
    }
    let failures = rpy_ruleset::opt::check_all(2000);
    for f in &failures {
        emit(&format!("FAILED {f}\n"));
    }
    if failures.is_empty() {
        emit("all optimization rules agree on random and edge values\n");
        0
    } else {
        emit(&format!(
            "{} optimization rule check(s) failed\n",
            failures.len()
        ));
        1
    }
}

/// `rpy rules --prove`: every optimization rule proven with z3, or its
/// counterexample.
fn prove_rules(verbose: bool) -> i32 {
    use rpy_passes::rule_proofs::{prove_all, z3_available, Proof, RuleProof};
    use rpy_ruleset::opt::OPT_RULES;
    if !z3_available() {
        eprintln!(
            "rpy rules --prove: the SMT solver z3 is not installed (Debian: apt-get install z3)"
        );
        return 2;
    }
    let mut failed = 0;
    for RuleProof {
        rule,
        proof,
        elapsed,
    } in prove_all()
    {
        let info = rule.info();
        let place = format!("{}:{}", info.file, info.line);
        let ms = elapsed.as_secs_f64() * 1e3;
        match proof {
            Proof::Proven => {
                if verbose {
                    emit(&format!(
                        "proven  {:<28} {place:<36} {ms:>9.1} ms\n",
                        rule.name
                    ));
                }
            }
            Proof::Counterexample { inputs, confirmed } => {
                failed += 1;
                let values: Vec<String> =
                    inputs.iter().map(|(n, v)| format!("{n} = {v}")).collect();
                emit(&format!(
                    "FAILED {place}: rule '{}' is wrong for {}{}\n",
                    rule.name,
                    values.join(", "),
                    if confirmed {
                        ""
                    } else {
                        " (but evaluating the rule there agrees: a fault of the SMT encoding)"
                    }
                ));
            }
            Proof::Unknown(why) => {
                failed += 1;
                emit(&format!(
                    "FAILED {place}: rule '{}' not proven: {why}\n",
                    rule.name
                ));
            }
        }
    }
    if failed == 0 {
        emit(&format!(
            "all {} optimization rules proven by z3 for all 64-bit inputs\n",
            OPT_RULES.len()
        ));
        0
    } else {
        emit(&format!("{failed} optimization rule(s) not proven\n"));
        1
    }
}

/// `rpy rules`: every rule, where it is written, and its fire count in the
/// last translation, headed by the command that translated.
fn rules_table() -> String {
    let saved = std::fs::read_to_string(fire_counts_file()).unwrap_or_default();
    let count_of = |name: &str| {
        saved
            .lines()
            .filter_map(|l| l.split_once(' '))
            .find(|(n, _)| *n == name)
            .map(|(_, c)| c.to_string())
            .unwrap_or_else(|| "-".into())
    };
    let mut text = match saved.lines().next().and_then(|l| l.strip_prefix("# ")) {
        Some(command) => format!("# fire counts from the last translation: {command}\n"),
        None => "# no translation has run yet: fire counts show as '-'\n".to_string(),
    };
    text += &format!("{:<28} {:<8} {:<36} fired\n", "rule", "kind", "where");
    for r in rpy_ruleset::RULES {
        text += &format!(
            "{:<28} {:<8} {:<36} {}\n",
            r.name,
            format!("{:?}", r.kind).to_lowercase(),
            format!("{}:{}", r.file, r.line),
            count_of(r.name)
        );
    }
    text
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
    crate::keep_freed_memory();
    let cli = Cli::parse();
    match cli.command {
        Cmd::Translate {
            file,
            output,
            dialect,
            gc,
            timings,
            backendopt,
            jit,
        } => {
            let mut src = try_or_report!(Source::read(&file, dialect.dialect()));
            src.gc = gc.kind();
            src.jit = jit;
            let output = match checked_output(&file, output) {
                Ok(output) => output,
                Err(e) => {
                    eprintln!("rpy translate: {e}");
                    return 1;
                }
            };
            let mut t = Timings::with_progress_on_terminal();
            if let Err(d) = translate_with(&src, &output, &mut t, &backendopt.options()) {
                return report(&d);
            }
            if timings {
                let line = |what: &str, d: std::time::Duration| {
                    eprintln!("{what:<12} {:>9.3} ms", d.as_secs_f64() * 1e3)
                };
                for (stage, d) in &t.stages {
                    line(&stage.name(), *d);
                    if *stage == StageName::Backendopt {
                        for part in &t.backendopt_parts {
                            eprintln!(
                                "{:<12} {:>9.3} ms  {}",
                                format!("  {}", part.name),
                                part.time.as_secs_f64() * 1e3,
                                part.summary
                            );
                        }
                    }
                }
                if let Some(d) = t.c_compile {
                    line("cc", d);
                }
                line("total", t.total());
            }
            eprintln!("rpy: wrote the executable {}", output.display());
            0
        }
        Cmd::Run {
            dialect,
            gc,
            backendopt,
            jit,
            program,
        } => {
            let Some((file, args)) = program.split() else {
                return 2;
            };
            let mut src = try_or_report!(Source::read(&file, dialect.dialect()));
            src.gc = gc.kind();
            src.jit = jit;
            let options = backendopt.options();
            let exe = cache_dir().join(format!("{}-{}", stem(&file), cache_key(&src, &options)));
            let counts = cached_fire_counts_file(&exe);
            // The executable is reused only while every file the program
            // read (an imported module, rpy's helpers) is as it was.
            let manifest = exe.with_extension("files");
            let current = exe.exists()
                && std::fs::read_to_string(&manifest).is_ok_and(|m| manifest_is_current(&m));
            if current {
                // The counts of the translation that made the cached
                // executable are this program's.
                let _ = std::fs::copy(&counts, fire_counts_file());
            } else {
                if let Err(e) = std::fs::create_dir_all(cache_dir()) {
                    eprintln!("rpy: cannot create the cache folder: {e}");
                    return 1;
                }
                // A stale manifest must not outlive the executable it
                // described, whatever happens to the new translation.
                let _ = std::fs::remove_file(&manifest);
                match translate_for(
                    &format!("rpy run {file}"),
                    &src,
                    &exe,
                    &mut Timings::with_progress_on_terminal(),
                    &options,
                ) {
                    Ok(files) => {
                        let _ = std::fs::write(&manifest, files_manifest(&src, &files));
                    }
                    Err(d) => return report(&d),
                }
                let _ = std::fs::copy(fire_counts_file(), &counts);
            }
            run_executable(&exe, &args)
        }
        Cmd::Interp {
            dialect,
            blackhole,
            jit,
            jit_params,
            backendopt,
            program,
        } => {
            let Some((file, args)) = program.split() else {
                return 2;
            };
            let params = if jit {
                match parse_jit_params(&jit_params) {
                    Ok(p) => Some(p),
                    Err(e) => {
                        eprintln!("rpy interp: {e}");
                        return 1;
                    }
                }
            } else {
                None
            };
            let src = try_or_report!(Source::read(&file, dialect.dialect()));
            let program = try_or_report!(counting_fires(&format!("rpy interp {file}"), || {
                pipeline::lowlevel_with(&src, &backendopt.options())
            }));
            let mut argv = vec![file.clone()];
            argv.extend(args);
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            let result = if blackhole || jit {
                let flag = if jit { "--jit" } else { "--blackhole" };
                let codes = match pipeline::jitcodes_checked(&program, flag) {
                    Ok(codes) => codes,
                    Err(d) => return report(&d),
                };
                let threshold = params
                    .as_ref()
                    .map_or(rpy_jit::warmstate::DEFAULT_THRESHOLD, |p| p.threshold);
                let run = rpy_jit::blackhole::run_entry(
                    &program, &codes, &argv, &mut out, threshold, params,
                );
                let stats = &run.stats;
                eprintln!(
                    "blackhole: {} jitcode instructions, {} merge points, {} can_enter_jit, {} regular calls, {} residual calls",
                    stats.instructions,
                    stats.merge_points,
                    stats.can_enter_jit,
                    stats.regular_calls,
                    stats.residual_calls
                );
                match &run.jit {
                    Some(meta) => {
                        let s = &meta.stats;
                        let counts = format!(
                            "{} loops, {} bridges, {} aborts, {} loop entries, {} guard failures, \
                             {} residual calls raised",
                            s.loops,
                            s.bridges,
                            s.aborts,
                            s.loop_entries,
                            s.guard_failures,
                            s.residual_raises
                        );
                        eprintln!("jit: {counts}");
                        if let Some(path) = std::env::var_os("RPY_JITLOG") {
                            let log = meta.log_file(&counts);
                            if let Err(e) = std::fs::write(&path, log) {
                                eprintln!(
                                    "rpy interp: RPY_JITLOG: {}: {e}",
                                    path.to_string_lossy()
                                );
                            }
                        }
                    }
                    None => {
                        // Where the meta-interpreter starts tracing.
                        const SHOWN: usize = 10;
                        for h in run.hot.iter().take(SHOWN) {
                            eprintln!(
                                "hot loop after {} closings: #{} greens [{}]",
                                threshold,
                                h.driver,
                                h.greens.join(", ")
                            );
                        }
                        if run.hot.len() > SHOWN {
                            eprintln!("... and {} more hot loops", run.hot.len() - SHOWN);
                        }
                    }
                }
                run.status
            } else {
                rpy_llinterp::LlInterpreter::new(&program).run_entry(&argv, &mut out)
            };
            use std::io::Write;
            let _ = out.flush();
            match result {
                Ok(status) => status as i32,
                // An uncaught exception: the executable's stderr line and
                // exit status.
                Err(e) if e.is_fatal() => {
                    eprintln!("{}", e.message);
                    1
                }
                // Something no well-typed program does: rpy's bug, or the
                // program's undefined behaviour (a shift by 64), so say
                // where it happened: the operation's source line, when the
                // graphs know it, and the graphs on the stack.
                Err(e) => {
                    match e.pos {
                        // The position names its file (a module's, a
                        // helper's, the one an inlined operation came from).
                        Some(pos) => eprintln!(
                            "{}",
                            program.diagnostic(
                                pos,
                                format!("run-time error in the LLInterpreter: {e}")
                            )
                        ),
                        None => eprintln!("rpy interp: internal error: {e}"),
                    }
                    for graph in &e.traceback {
                        eprintln!("    in {graph}");
                    }
                    1
                }
            }
        }
        Cmd::Show {
            stage,
            stages,
            func,
            format,
            explain,
            file,
            dialect,
            gc,
            backendopt,
        } => {
            if stages {
                let names: String = StageName::all()
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
                let names: Vec<_> = StageName::all().map(|s| s.name()).collect();
                eprintln!(
                    "rpy show: unknown stage '{stage}'; the stages are: {}",
                    names.join(", ")
                );
                return 1;
            };
            let mut src = try_or_report!(Source::read(&file, dialect.dialect()));
            src.gc = gc.kind();
            if let Some(var) = explain {
                return explain_command(&src, stage, &var);
            }
            let command = format!("rpy show --stage {} {file}", stage.name());
            match counting_fires(&command, || {
                pipeline::run_until_with(
                    &src,
                    stage,
                    &mut Timings::default(),
                    &backendopt.options(),
                )
            }) {
                Ok(out) => {
                    match graphview::render(&out, format, func.as_deref(), &stage.name(), &src) {
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
                Err(d) => report(&d),
            }
        }
        Cmd::Callgraph { file, dialect } => {
            let src = try_or_report!(Source::read(&file, dialect.dialect()));
            let rtyped = counting_fires(&format!("rpy callgraph {file}"), || {
                pipeline::run_until(&src, StageName::Rtype, &mut Timings::default())
            });
            match try_or_report!(rtyped) {
                pipeline::StageOutput::LowLevel(p) => {
                    emit(&rpy_passes::backendopt::callgraph::CallGraph::new(&p).to_text());
                    0
                }
                _ => unreachable!("run_until stops at the stage it is asked for"),
            }
        }
        Cmd::Rules {
            check,
            prove,
            verbose,
        } => {
            if prove {
                prove_rules(verbose)
            } else {
                run_rules(check, verbose)
            }
        }
        Cmd::Trace {
            file,
            passes,
            run,
            loop_limit,
            rule_counts,
            run_values_after_dash,
            replay,
        } => {
            if let Some(n) = replay {
                return replay_command(&file, n);
            }
            let passes = (passes != "none").then_some(passes.as_str());
            let run = match (run, run_values_after_dash) {
                (Some(mut values), after_dash) => {
                    values.extend(after_dash);
                    Some(values)
                }
                (None, after_dash) if after_dash.is_empty() => None,
                (None, _) => {
                    eprintln!("rpy trace: the values after `--` are for --run, which is not given");
                    return 2;
                }
            };
            rpy_ruleset::reset_fire_counts();
            match trace_command(&file, passes, run, loop_limit) {
                Ok((mut text, ended_in_error)) => {
                    if rule_counts {
                        text += &opt_rule_counts();
                    }
                    emit(&text);
                    i32::from(ended_in_error)
                }
                Err(e) => {
                    eprintln!("{e}");
                    1
                }
            }
        }
    }
}

/// `rpy trace --replay N LOG`.
fn replay_command(log: &str, n: usize) -> i32 {
    let text = match std::fs::read_to_string(log) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("rpy trace: {log}: {e}");
            return 1;
        }
    };
    match rpy_jit::replay::replay(&text, n) {
        Ok((observed, same)) => {
            let verdict = if same {
                "the same as the logged run"
            } else {
                "NOT the same as the logged run"
            };
            emit(&format!("{observed}# trace {n} replayed: {verdict}\n"));
            i32::from(!same)
        }
        Err(e) => {
            eprintln!("rpy trace: {log}: {e}");
            1
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
    match rpy_passes::annotate::explain(&flow, src.dialect, var) {
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
    for (i, r) in rpy_ruleset::RULES.iter().enumerate() {
        if r.kind != rpy_ruleset::RuleKind::Opt {
            continue;
        }
        text += &format!(
            "# {:<26} {:<28} {}\n",
            r.name,
            format!("{}:{}", r.file, r.line),
            rpy_ruleset::fire_count(i)
        );
    }
    text
}

/// `rpy trace`: the (optimized) trace, and with `run` its outcome in the
/// reference interpreter and as machine code, one line each; and whether a
/// run ended in an error (the command's exit status).
fn trace_command(
    file: &str,
    passes: Option<&str>,
    run: Option<Vec<String>>,
    loop_limit: u64,
) -> Result<(String, bool), String> {
    use rpy_jit::interp::{self, Heap, Outcome};
    let trace = rpy_jit::load_trace(file, passes)?;
    let mut out = rpy_jit::text::print(&trace);
    let Some(args) = run else {
        return Ok((out, false));
    };
    let text =
        |outcome: &Outcome, heap: &Heap| outcome_by_content(&trace, outcome, heap, loop_limit);
    let mut heap = Heap::default();
    let values = rpy_jit::run_values(&trace, &mut heap, &args)?;
    let outcome = interp::run(&trace, &values, &mut heap, loop_limit);
    let mut ended_in_error = matches!(outcome, Outcome::Error(_));
    out += &format!("interpreter:  {}", text(&outcome, &heap));
    // a fresh heap with the same inputs, so the two runs do not share
    // objects; the code checks every access, as the inputs come from users
    let machine = match rpy_asm::compile_checked(&trace) {
        Ok(code) => {
            let mut heap = Heap::default();
            let values = rpy_jit::run_values(&trace, &mut heap, &args)?;
            let outcome = code.run(&values, &mut heap, loop_limit);
            ended_in_error |= matches!(outcome, Outcome::Error(_));
            text(&outcome, &heap)
        }
        Err(e) => format!("not compiled: {e}\n"),
    };
    out += &format!("machine code: {machine}");
    Ok((out, ended_in_error))
}

/// How many of a run's objects `rpy trace --run` shows (a linked list of
/// 10,000 nodes would flood the terminal).
const SHOWN_OBJECTS: usize = 50;

/// A run's outcome, its objects named by content rather than by address
/// (`#0`, `#1`, ... in order of appearance, each then shown on a line of
/// its own with its type and fields, as `testgen::observe_run` reads them),
/// so that the interpreter's and the machine code's runs, on heaps of
/// their own, read the same when they behave the same.
fn outcome_by_content(
    trace: &rpy_jit::trace::Trace,
    outcome: &rpy_jit::interp::Outcome,
    heap: &rpy_jit::interp::Heap,
    loop_limit: u64,
) -> String {
    use rpy_jit::interp::{Outcome, RunValue};
    let mut ids: Vec<usize> = Vec::new();
    let mut list = |values: &[RunValue]| {
        values
            .iter()
            .map(|v| match v {
                RunValue::Ref(p) if *p != 0 => {
                    let id = ids.iter().position(|q| q == p).unwrap_or_else(|| {
                        ids.push(*p);
                        ids.len() - 1
                    });
                    format!("#{id}")
                }
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut text = match outcome {
        Outcome::Finished(v) => format!("finished: [{}]", list(v)),
        Outcome::GuardFailed { guard, values } => format!(
            "guard failed: op {guard} `{}`: [{}]",
            rpy_jit::text::op_text(trace, &trace.ops[*guard]),
            list(values)
        ),
        // `outcome_text` names the default limit; this run's may differ.
        Outcome::LoopLimit { values } => {
            format!("loop limit ({loop_limit} iterations): [{}]", list(values))
        }
        Outcome::Error(e) => format!("error: {e}"),
    };
    text.push('\n');
    if !ids.is_empty() {
        // The objects, numbered as above: with no inputs, observe_run
        // numbers the outcome's references first, in the same order.
        let observed = rpy_jit::testgen::observe_run(
            trace,
            heap,
            &[],
            outcome,
            rpy_jit::testgen::GuardIndex::Shown,
        );
        let objects: Vec<&str> = observed.lines().skip(2).collect();
        for line in objects.iter().take(SHOWN_OBJECTS) {
            text += &format!("    {line}\n");
        }
        if objects.len() > SHOWN_OBJECTS {
            text += &format!(
                "    ... and {} more objects\n",
                objects.len() - SHOWN_OBJECTS
            );
        }
    }
    text
}

fn stem(file: &str) -> String {
    Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".into())
}

/// The JIT's parameters: the defaults, then the `RPY_JIT` environment
/// variable (`NAME=VALUE,...`, as the original's `--jit` option), then
/// the `--jit-param NAME=VALUE` settings.
fn parse_jit_params(settings: &[String]) -> Result<rpy_jit::metainterp::JitParams, String> {
    // Loops run as machine code unless `backend=interp` says otherwise.
    let mut params = rpy_jit::metainterp::JitParams {
        backend: std::rc::Rc::new(rpy_asm::MachineCode),
        log_runs: std::env::var_os("RPY_JITLOG").is_some(),
        ..Default::default()
    };
    if let Ok(env) = std::env::var("RPY_JIT") {
        params.set_all(&env).map_err(|e| format!("RPY_JIT: {e}"))?;
    }
    for s in settings {
        let (name, value) = s
            .split_once('=')
            .ok_or_else(|| format!("--jit-param: '{s}' is not NAME=VALUE"))?;
        match (name, value) {
            ("backend", "machine") => params.backend = std::rc::Rc::new(rpy_asm::MachineCode),
            ("backend", "interp") => {
                params.backend = std::rc::Rc::new(rpy_jit::metainterp::Interpreted)
            }
            ("backend", _) => {
                return Err(format!(
                    "--jit-param: backend: '{value}' is not 'machine' or 'interp'"
                ))
            }
            _ => params.set(name, value).map_err(|e| {
                format!("--jit-param: {e}").replace(
                    rpy_jit::metainterp::PARAM_NAMES,
                    &format!("{}, backend", rpy_jit::metainterp::PARAM_NAMES),
                )
            })?,
        }
    }
    Ok(params)
}

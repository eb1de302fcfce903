//! The pipeline driver: the stages as one table, run in order up to any of
//! them.
//!
//! `STAGES` holds every stage in pipeline order: its name, what it does,
//! the kind of program it takes and gives, and the function that runs it
//! (each a typed pass, see ARCHITECTURE.md). `run_until` walks it, timing
//! each entry (what `--timings` prints); `rpy show --stages` lists it and
//! `StageName::from_name` reads it, so that `rpy show --stage NAME` and the
//! snapshot tests can print what any stage produced. Adding a stage is
//! adding an entry: its test checks that each entry takes what the chain
//! before it gives.

use rpy_ir::ast::{Dialect, Module};
use rpy_ir::diag::{Diagnostic, Diagnostics, Pos, SourceMap};
use rpy_ir::graph::{
    Annotated, ExceptionsExplicit, Flow, FunctionGraph, GcExplicit, LowLevel, Program, Stage,
};
use rpy_ir::llops::GcKind;
use rpy_ir::text;
pub use rpy_passes::backendopt::BackendoptOptions;
use rpy_passes::backendopt::STEPS as BACKENDOPT_STEPS;

use std::borrow::Cow;
use std::cmp::Ordering;
use std::time::{Duration, Instant};

/// A stage, as code names it; what it is and does is its entry in
/// `STAGES`, whose order is the stages' order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StageName {
    Parse,
    Flow,
    Annotate,
    Rtype,
    Backendopt,
    /// The program right after one sub-pass of `backendopt` (an index into
    /// `backendopt::STEPS`) first ran, the ones before it included:
    /// `backendopt:NAME`. Backendopt's entry runs it, stopping early.
    BackendoptPart(usize),
    Jitcodes,
    Exceptiontransform,
    Gctransform,
    Genc,
}

/// What a stage takes or gives: the source text the pipeline starts from,
/// or one of the kinds of `StageOutput`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Source,
    Ast,
    Flow,
    Annotated,
    LowLevel,
    ExceptionsExplicit,
    GcExplicit,
    JitCodes,
    C,
}

/// One entry of `STAGES`.
pub struct StageDef {
    pub stage: StageName,
    /// Its name for `rpy show --stage`, the snapshots and `--timings`.
    pub name: &'static str,
    /// What it does, for a reader of the table.
    pub description: &'static str,
    pub input: Kind,
    pub output: Kind,
    /// A branch off the chain to C (the JIT's codewriter): it takes what
    /// the chained stage before it gives, nothing takes what it gives, and
    /// it runs only when asked for.
    pub branch: bool,
    /// Runs the stage on what the stage before it gave (`None` for the
    /// first, which reads the source).
    run: fn(Option<StageOutput>, &mut Run) -> Result<StageOutput, Diagnostics>,
}

/// The stages, in pipeline order.
pub static STAGES: &[StageDef] = &[
    StageDef {
        stage: StageName::Parse,
        name: "parse",
        description: "source -> AST",
        input: Kind::Source,
        output: Kind::Ast,
        branch: false,
        run: parse,
    },
    StageDef {
        stage: StageName::Flow,
        name: "flow",
        description: "AST -> flow graphs (high-level operations)",
        input: Kind::Ast,
        output: Kind::Flow,
        branch: false,
        run: flow,
    },
    StageDef {
        stage: StageName::Annotate,
        name: "annotate",
        description: "flow graphs -> annotated graphs (type inference)",
        input: Kind::Flow,
        output: Kind::Annotated,
        branch: false,
        run: annotate,
    },
    StageDef {
        stage: StageName::Rtype,
        name: "rtype",
        description: "annotated graphs -> low-level graphs",
        input: Kind::Annotated,
        output: Kind::LowLevel,
        branch: false,
        run: rtype,
    },
    StageDef {
        stage: StageName::Backendopt,
        name: "backendopt",
        description: "low-level graphs -> optimized low-level graphs",
        input: Kind::LowLevel,
        output: Kind::LowLevel,
        branch: false,
        run: backendopt,
    },
    StageDef {
        stage: StageName::Jitcodes,
        name: "jitcodes",
        description:
            "optimized low-level graphs the portal reaches -> jitcodes (the JIT's codewriter)",
        input: Kind::LowLevel,
        output: Kind::JitCodes,
        branch: true,
        run: jitcodes,
    },
    StageDef {
        stage: StageName::Exceptiontransform,
        name: "exceptiontransform",
        description: "low-level graphs -> low-level graphs with explicit exception state",
        input: Kind::LowLevel,
        output: Kind::ExceptionsExplicit,
        branch: false,
        run: exceptiontransform,
    },
    StageDef {
        stage: StageName::Gctransform,
        name: "gctransform",
        description: "explicit graphs -> graphs that keep GC roots and have write barriers",
        input: Kind::ExceptionsExplicit,
        output: Kind::GcExplicit,
        branch: false,
        run: gctransform,
    },
    StageDef {
        stage: StageName::Genc,
        name: "genc",
        description: "graphs with explicit exceptions and GC -> C source",
        input: Kind::GcExplicit,
        output: Kind::C,
        branch: false,
        run: genc,
    },
];

/// The program a stage takes, out of what the stage before it gave: the
/// table chains (its test checks), so anything else is a bug.
macro_rules! take {
    ($input:expr, $kind:ident) => {
        match $input {
            Some(StageOutput::$kind(p)) => p,
            _ => unreachable!(concat!("the stage before gives ", stringify!($kind))),
        }
    };
}

fn parse(_: Option<StageOutput>, run: &mut Run) -> Result<StageOutput, Diagnostics> {
    let src = run.src;
    let module = rpy_passes::parse::parse_module(&src.path, &src.text, src.dialect)?;
    Ok(StageOutput::Ast(module))
}

fn flow(input: Option<StageOutput>, run: &mut Run) -> Result<StageOutput, Diagnostics> {
    let ast = take!(input, Ast);
    let mut flow = rpy_passes::flow::build_flow(&ast, &run.src.text)?;
    drop_in_background(ast);
    rpy_passes::simplify::simplify_program(&mut flow);
    Ok(StageOutput::Flow(flow))
}

/// Frees `value` on another thread: a stage's large input (the AST, the
/// program GenC printed) takes milliseconds to free, which the next
/// stage need not wait for.
fn drop_in_background<T: Send + 'static>(value: T) {
    std::thread::spawn(move || drop(value));
}

fn annotate(input: Option<StageOutput>, run: &mut Run) -> Result<StageOutput, Diagnostics> {
    // The rtyper's helper library is read while the program annotates.
    rpy_passes::rtype::lowlevel_helpers::read_library_in_background();
    let annotated = rpy_passes::annotate::annotate(take!(input, Flow), run.src.dialect)?;
    Ok(StageOutput::Annotated(annotated))
}

fn rtype(input: Option<StageOutput>, run: &mut Run) -> Result<StageOutput, Diagnostics> {
    let lowlevel = rpy_passes::rtype::rtype(take!(input, Annotated), run.src.dialect)?;
    Ok(StageOutput::LowLevel(lowlevel))
}

fn backendopt(input: Option<StageOutput>, run: &mut Run) -> Result<StageOutput, Diagnostics> {
    let mut lowlevel = take!(input, LowLevel);
    let stop_after = match run.stop {
        StageName::BackendoptPart(i) => Some(BACKENDOPT_STEPS[i]),
        _ => None,
    };
    let report =
        rpy_passes::backendopt::optimize_program_until(&mut lowlevel, run.options, stop_after);
    run.timings.backendopt_parts = report.times;
    Ok(StageOutput::LowLevel(lowlevel))
}

fn jitcodes(input: Option<StageOutput>, _: &mut Run) -> Result<StageOutput, Diagnostics> {
    let codes = rpy_jit::codewriter::write_jitcodes(&take!(input, LowLevel));
    Ok(StageOutput::JitCodes(codes))
}

fn exceptiontransform(
    input: Option<StageOutput>,
    run: &mut Run,
) -> Result<StageOutput, Diagnostics> {
    let lowlevel = take!(input, LowLevel);
    // The executable's JIT runs jitcodes of the optimized low-level
    // program, which this stage consumes.
    if run.src.jit {
        run.jit = Some((jitcodes_checked(&lowlevel, "--jit")?, lowlevel.clone()));
    }
    let explicit = rpy_passes::exceptiontransform::transform(lowlevel)?;
    Ok(StageOutput::ExceptionsExplicit(explicit))
}

fn gctransform(input: Option<StageOutput>, run: &mut Run) -> Result<StageOutput, Diagnostics> {
    let portals = run
        .jit
        .as_ref()
        .map_or(&[][..], |(codes, _)| &codes.portals);
    let explicit = rpy_passes::gctransform::transform_collecting(
        take!(input, ExceptionsExplicit),
        run.src.gc,
        portals,
    );
    Ok(StageOutput::GcExplicit(explicit))
}

fn genc(input: Option<StageOutput>, run: &mut Run) -> Result<StageOutput, Diagnostics> {
    let program = take!(input, GcExplicit);
    let jit = run
        .jit
        .as_ref()
        .map(|(codes, lowlevel)| rpy_backend::JitInput { lowlevel, codes });
    let c = rpy_backend::generate_c_with_jit(&program, run.src.gc, jit.as_ref())?;
    let sources = program.sources.clone();
    drop_in_background(program);
    Ok(StageOutput::C(c, sources))
}

/// What the stages of one run share besides the program each passes on.
struct Run<'a> {
    src: &'a Source,
    options: &'a BackendoptOptions,
    /// The stage asked for (backendopt stops early for one of its parts).
    stop: StageName,
    timings: &'a mut Timings,
    /// With `--jit`, the jitcodes and the optimized low-level program
    /// they were written from, which GenC embeds in the executable.
    jit: Option<(rpy_jit::codewriter::jitcode::JitCodes, Program<LowLevel>)>,
}

impl StageName {
    /// Its entry in `STAGES` (for a part of backendopt, backendopt's).
    pub fn def(self) -> &'static StageDef {
        let whole = match self {
            StageName::BackendoptPart(_) => StageName::Backendopt,
            s => s,
        };
        STAGES
            .iter()
            .find(|d| d.stage == whole)
            .unwrap_or_else(|| panic!("{whole:?} has no entry in STAGES"))
    }

    /// The stages of the chain to C, in order.
    pub fn chain() -> impl Iterator<Item = StageName> {
        STAGES.iter().filter(|d| !d.branch).map(|d| d.stage)
    }

    /// Every stage `rpy show --stage` knows, as `rpy show --stages` lists
    /// them: the chain to C, the branches off it, then the sub-passes of
    /// backendopt.
    pub fn all() -> impl Iterator<Item = StageName> {
        let branches = STAGES.iter().filter(|d| d.branch).map(|d| d.stage);
        let parts = (0..BACKENDOPT_STEPS.len()).map(StageName::BackendoptPart);
        Self::chain().chain(branches).chain(parts)
    }

    pub fn name(self) -> Cow<'static, str> {
        match self {
            StageName::BackendoptPart(i) => {
                format!("{}:{}", self.def().name, BACKENDOPT_STEPS[i]).into()
            }
            _ => self.def().name.into(),
        }
    }

    pub fn from_name(name: &str) -> Option<StageName> {
        Self::all().find(|s| s.name() == name)
    }

    /// What the stage does.
    pub fn description(self) -> &'static str {
        match self {
            StageName::BackendoptPart(_) => {
                "low-level graphs -> the same, optimized up to this sub-pass of backendopt"
            }
            _ => self.def().description,
        }
    }

    /// Where the stage runs: its entry's index in `STAGES`, then, within
    /// backendopt, its part's (the whole stage after every part).
    fn position(self) -> (usize, usize) {
        let entry = STAGES
            .iter()
            .position(|d| std::ptr::eq(d, self.def()))
            .expect("def() is an entry of STAGES");
        match self {
            StageName::BackendoptPart(i) => (entry, i),
            _ => (entry, BACKENDOPT_STEPS.len()),
        }
    }
}

/// Stages compare by the order they run in.
impl Ord for StageName {
    fn cmp(&self, other: &StageName) -> Ordering {
        self.position().cmp(&other.position())
    }
}

impl PartialOrd for StageName {
    fn partial_cmp(&self, other: &StageName) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// What a stage produced.
pub enum StageOutput {
    Ast(Module),
    Flow(Program<Flow>),
    Annotated(Program<Annotated>),
    LowLevel(Program<LowLevel>),
    ExceptionsExplicit(Program<ExceptionsExplicit>),
    GcExplicit(Program<GcExplicit>),
    JitCodes(rpy_jit::codewriter::jitcode::JitCodes),
    /// The C source, and every file the program was read from.
    C(rpy_backend::GeneratedC, SourceMap),
}

/// The graphs `rpy show` shows: all of the program's, or the one named `func`.
pub fn chosen_graphs<'p, S: Stage>(
    p: &'p Program<S>,
    func: Option<&str>,
) -> Result<Vec<&'p FunctionGraph<S>>, String> {
    match func {
        None => Ok(p.graphs.iter().collect()),
        Some(f) => p
            .graph(f)
            .map(|g| vec![g])
            .ok_or_else(|| format!("no function named '{f}' in the program")),
    }
}

impl StageOutput {
    pub fn kind(&self) -> Kind {
        match self {
            StageOutput::Ast(_) => Kind::Ast,
            StageOutput::Flow(_) => Kind::Flow,
            StageOutput::Annotated(_) => Kind::Annotated,
            StageOutput::LowLevel(_) => Kind::LowLevel,
            StageOutput::ExceptionsExplicit(_) => Kind::ExceptionsExplicit,
            StageOutput::GcExplicit(_) => Kind::GcExplicit,
            StageOutput::JitCodes(_) => Kind::JitCodes,
            StageOutput::C(..) => Kind::C,
        }
    }

    /// The text form of this output; `func` restricts graph stages to one graph.
    pub fn to_text(&self, func: Option<&str>) -> Result<String, String> {
        fn graphs<S: Stage>(p: &Program<S>, func: Option<&str>) -> Result<String, String> {
            match func {
                None => Ok(text::print_program(p)),
                Some(_) => Ok(chosen_graphs(p, func)?
                    .into_iter()
                    .map(text::print_graph)
                    .collect()),
            }
        }
        match self {
            StageOutput::Ast(m) => Ok(rpy_ir::ast_print::print_module(m)),
            StageOutput::Flow(p) => graphs(p, func),
            StageOutput::Annotated(p) => graphs(p, func),
            StageOutput::LowLevel(p) => graphs(p, func),
            StageOutput::ExceptionsExplicit(p) => graphs(p, func),
            StageOutput::GcExplicit(p) => graphs(p, func),
            StageOutput::JitCodes(codes) => match func {
                None => Ok(codes.to_text()),
                Some(f) => codes
                    .codes
                    .iter()
                    .find(|c| c.name == f)
                    .map(|c| c.to_string())
                    .ok_or_else(|| {
                        format!("no jitcode named '{f}' (the portal does not reach it)")
                    }),
            },
            StageOutput::C(c, _) => Ok(c.single_file()),
        }
    }
}

/// A source file to translate.
pub struct Source {
    pub path: String,
    pub text: String,
    pub dialect: Dialect,
    /// The collector the executable gets (`--gc`), which `gctransform`
    /// prepares the graphs for.
    pub gc: GcKind,
    /// Whether the executable gets the JIT (`--jit`): the portal's calls
    /// go to the JIT's runtime, linked with the program.
    pub jit: bool,
}

impl Source {
    /// Reads a file; the dialect is `forced` or detected from the syntax.
    pub fn read(path: &str, forced: Option<Dialect>) -> Result<Source, Diagnostics> {
        let bytes = std::fs::read(path).map_err(|e| {
            Diagnostic::new(path, Pos::new(1, 1), format!("cannot read the file: {e}"))
        })?;
        let text = rpy_passes::parse::read_source(path, &bytes)?;
        let dialect = forced.unwrap_or_else(|| rpy_passes::parse::detect_dialect(&text));
        Ok(Source {
            path: path.to_string(),
            text,
            dialect,
            gc: GcKind::default(),
            jit: false,
        })
    }
}

/// How long each stage took, for `--timings` and the benchmarks, and
/// whether to show which stage is running.
#[derive(Default, Debug, Clone)]
pub struct Timings {
    pub stages: Vec<(StageName, Duration)>,
    /// The C compiler's run, when the translation went that far: usually
    /// most of the time.
    pub c_compile: Option<Duration>,
    /// The parts of the backendopt stage (inline, malloc_removal, ...)
    /// and how long each took, within the stage's time.
    pub backendopt_parts: Vec<rpy_passes::backendopt::PartReport>,
    /// Whether to show, on standard error, which step is running: one
    /// status line rewritten as each step starts, so that a translation
    /// whose C compile takes minutes does not look stuck.
    pub progress: bool,
}

impl Timings {
    /// Timings that show progress when standard error is a terminal (a
    /// user watching), and nothing when it goes to a file or a pipe.
    pub fn with_progress_on_terminal() -> Timings {
        use std::io::IsTerminal;
        Timings {
            progress: std::io::stderr().is_terminal(),
            ..Timings::default()
        }
    }

    pub fn total(&self) -> Duration {
        self.stages.iter().map(|t| t.1).sum::<Duration>() + self.c_compile.unwrap_or_default()
    }

    /// Tells the user, if shown, that `step` is starting.
    pub fn starting(&self, step: &str) {
        self.progress_line(&format!("    running {step}..."));
    }

    /// Clears the progress line, if shown, before the result is printed.
    pub fn finished(&self) {
        self.progress_line("");
    }

    /// Replaces the progress line, if shown, by `text`: `\r` and "erase
    /// line", so the line is rewritten, not appended to.
    fn progress_line(&self, text: &str) {
        use std::io::Write;
        if self.progress {
            let _ = write!(std::io::stderr(), "\r\x1b[K{text}");
        }
    }
}

/// Runs the pipeline on `src` up to and including `stop`, with every
/// backend optimization on.
pub fn run_until(
    src: &Source,
    stop: StageName,
    timings: &mut Timings,
) -> Result<StageOutput, Diagnostics> {
    run_until_with(src, stop, timings, &BackendoptOptions::default())
}

/// `run_until` with the backend optimizations `options` asks for.
pub fn run_until_with(
    src: &Source,
    stop: StageName,
    timings: &mut Timings,
    options: &BackendoptOptions,
) -> Result<StageOutput, Diagnostics> {
    let result = run_stages(src, stop, timings, options);
    timings.finished();
    result
}

/// `run_until`, also handing `each` the output of every stage of the way
/// (the chain to `stop`, and `stop`), in order: one run for what `rpy show
/// --stage` would give for each of them.
pub fn run_until_each(
    src: &Source,
    stop: StageName,
    timings: &mut Timings,
    each: &mut dyn FnMut(StageName, &StageOutput),
) -> Result<StageOutput, Diagnostics> {
    let result = run_stages_each(src, stop, timings, &BackendoptOptions::default(), each);
    timings.finished();
    result
}

/// `run_until` but for clearing the progress line at the end: the walk of
/// `STAGES` up to `stop`, past the branches not asked for.
fn run_stages(
    src: &Source,
    stop: StageName,
    timings: &mut Timings,
    options: &BackendoptOptions,
) -> Result<StageOutput, Diagnostics> {
    run_stages_each(src, stop, timings, options, &mut |_, _| {})
}

/// [`run_stages`], handing `each` every stage's output on the way.
fn run_stages_each(
    src: &Source,
    stop: StageName,
    timings: &mut Timings,
    options: &BackendoptOptions,
    each: &mut dyn FnMut(StageName, &StageOutput),
) -> Result<StageOutput, Diagnostics> {
    let last = stop.def();
    let mut run = Run {
        src,
        options,
        stop,
        timings,
        jit: None,
    };
    let mut output = None;
    for def in STAGES {
        if def.branch && !std::ptr::eq(def, last) {
            continue;
        }
        run.timings.starting(def.name);
        let clock = Instant::now();
        let out = (def.run)(output.take(), &mut run)?;
        run.timings.stages.push((def.stage, clock.elapsed()));
        debug_assert_eq!(
            out.kind(),
            def.output,
            "{} gave what its entry says",
            def.name
        );
        each(def.stage, &out);
        if std::ptr::eq(def, last) {
            return Ok(out);
        }
        output = Some(out);
    }
    unreachable!("{stop:?} has an entry in STAGES")
}

/// The jitcodes of a program translated with the JIT; an error when it
/// has no merge point, or a variable live at one is neither green nor red.
/// `flag` is the option that asked for them.
pub fn jitcodes_checked(
    program: &Program<LowLevel>,
    flag: &str,
) -> Result<rpy_jit::codewriter::jitcode::JitCodes, Diagnostics> {
    let codes = rpy_jit::codewriter::write_jitcodes(program);
    if codes.portals.is_empty() {
        return Err(Diagnostics::one(Diagnostic::new(
            &program.path,
            Pos::new(1, 1),
            format!("{flag}: the program has no jit_merge_point"),
        )));
    }
    let undeclared = rpy_jit::codewriter::merge_points::undeclared_at_merge_points(program);
    if !undeclared.is_empty() {
        return Err(Diagnostics(
            undeclared
                .iter()
                .map(|u| program.diagnostic(u.pos.unwrap_or(Pos::new(1, 1)), u.message()))
                .collect(),
        ));
    }
    Ok(codes)
}

/// The optimized low-level program (what `rpy interp` runs).
pub fn lowlevel(src: &Source) -> Result<Program<LowLevel>, Diagnostics> {
    lowlevel_with(src, &BackendoptOptions::default())
}

/// The low-level program after the backend optimizations `options` asks for.
pub fn lowlevel_with(
    src: &Source,
    options: &BackendoptOptions,
) -> Result<Program<LowLevel>, Diagnostics> {
    match run_until_with(src, StageName::Backendopt, &mut Timings::default(), options)? {
        StageOutput::LowLevel(p) => Ok(p),
        _ => unreachable!("run_until stops at the stage it is asked for"),
    }
}

/// The C source of the whole program.
pub fn c_source(src: &Source, timings: &mut Timings) -> Result<String, Diagnostics> {
    c_source_with(src, timings, &BackendoptOptions::default())
}

/// The C source of the whole program after the backend optimizations
/// `options` asks for.
pub fn c_source_with(
    src: &Source,
    timings: &mut Timings,
    options: &BackendoptOptions,
) -> Result<String, Diagnostics> {
    Ok(c_source_and_files(src, timings, options)?.0.single_file())
}

/// The generated C (in parts, see `GeneratedC`), and every file the program was read from (its
/// modules', the low-level helpers'): what `rpy run`'s cache checks.
pub fn c_source_and_files(
    src: &Source,
    timings: &mut Timings,
    options: &BackendoptOptions,
) -> Result<(rpy_backend::GeneratedC, SourceMap), Diagnostics> {
    match run_until_with(src, StageName::Genc, timings, options)? {
        StageOutput::C(c, files) => Ok((c, files)),
        _ => unreachable!("run_until stops at the stage it is asked for"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each chained stage takes what the one before gives, starting from
    /// the source and ending in C; a branch takes what the chain before it
    /// gives, and nothing takes what it gives.
    #[test]
    fn the_stage_table_chains() {
        let mut given = Kind::Source;
        for def in STAGES {
            assert_eq!(def.input, given, "{} takes what the chain gives", def.name);
            if !def.branch {
                given = def.output;
            }
        }
        assert_eq!(given, Kind::C, "the chain ends in C");
    }

    /// Every stage is named once, and what `rpy show --stages` lists
    /// (`StageName::all`) is every stage `from_name` accepts: every entry
    /// of the table and every sub-pass of backendopt.
    #[test]
    fn every_stage_has_one_name_and_is_listed() {
        let listed: Vec<StageName> = StageName::all().collect();
        let names: std::collections::HashSet<String> =
            listed.iter().map(|s| s.name().into_owned()).collect();
        assert_eq!(names.len(), listed.len(), "a name is given twice");
        assert_eq!(listed.len(), STAGES.len() + BACKENDOPT_STEPS.len());
        for def in STAGES {
            assert!(listed.contains(&def.stage), "{} is not listed", def.name);
            assert_eq!(
                def.stage.def().name,
                def.name,
                "{:?} has two entries",
                def.stage
            );
        }
        for s in listed {
            assert_eq!(StageName::from_name(&s.name()), Some(s));
        }
        for step in BACKENDOPT_STEPS {
            assert!(StageName::from_name(&format!("backendopt:{step}")).is_some());
        }
    }

    /// Stages compare by the order they run in, a part of backendopt
    /// before the whole of it.
    #[test]
    fn stages_order_as_they_run() {
        let chain: Vec<StageName> = StageName::chain().collect();
        assert!(chain.windows(2).all(|w| w[0] < w[1]), "{chain:?}");
        assert!(StageName::Rtype < StageName::BackendoptPart(0));
        assert!(StageName::BackendoptPart(0) < StageName::BackendoptPart(1));
        let last_part = StageName::BackendoptPart(BACKENDOPT_STEPS.len() - 1);
        assert!(last_part < StageName::Backendopt);
    }
}

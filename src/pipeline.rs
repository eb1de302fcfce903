//! The pipeline driver: runs the stages in order, stopping after any of them.
//!
//! Each stage is a typed pass (see ARCHITECTURE.md); this module only strings
//! them together and names them, so that `rpy show --stage NAME` and the
//! snapshot tests can print what any stage produced.

use rpy_ir::ast::{Dialect, Module};
use rpy_ir::diag::{Diagnostic, Diagnostics, Pos, SourceMap};
use rpy_ir::graph::{
    Annotated, ExceptionsExplicit, Flow, FunctionGraph, GcExplicit, LowLevel, Program, Stage,
};
use rpy_ir::llops::GcKind;
use rpy_ir::text;
pub use rpy_passes::backendopt::BackendoptOptions;

use std::time::{Duration, Instant};

/// The stages, in pipeline order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum StageName {
    Parse,
    Flow,
    Annotate,
    Rtype,
    /// The program right after one sub-pass of `backendopt` (an index into
    /// `backendopt::STEPS`) first ran, the ones before it included:
    /// `backendopt:NAME`. Not in `ALL`: `SUBSTAGES` lists them.
    BackendoptPart(usize),
    Backendopt,
    /// The JIT's codewriter: a branch off `backendopt`, not a step towards
    /// C, so it is not in `ALL`.
    Jitcodes,
    Exceptiontransform,
    Gctransform,
    Genc,
}

impl StageName {
    pub const ALL: [StageName; 8] = [
        StageName::Parse,
        StageName::Flow,
        StageName::Annotate,
        StageName::Rtype,
        StageName::Backendopt,
        StageName::Exceptiontransform,
        StageName::Gctransform,
        StageName::Genc,
    ];

    /// The stages that branch off the chain of `ALL`: they print what the
    /// JIT makes of the program.
    pub const BRANCHES: [StageName; 1] = [StageName::Jitcodes];

    /// The sub-passes of `backendopt`, each a stage of its own for `rpy
    /// show --stage backendopt:NAME`.
    pub const SUBSTAGES: [StageName; 10] = [
        StageName::BackendoptPart(0),
        StageName::BackendoptPart(1),
        StageName::BackendoptPart(2),
        StageName::BackendoptPart(3),
        StageName::BackendoptPart(4),
        StageName::BackendoptPart(5),
        StageName::BackendoptPart(6),
        StageName::BackendoptPart(7),
        StageName::BackendoptPart(8),
        StageName::BackendoptPart(9),
    ];

    pub fn name(self) -> &'static str {
        match self {
            StageName::Jitcodes => "jitcodes",
            StageName::Parse => "parse",
            StageName::Flow => "flow",
            StageName::Annotate => "annotate",
            StageName::Rtype => "rtype",
            StageName::Backendopt => "backendopt",
            StageName::BackendoptPart(i) => BACKENDOPT_PART_NAMES[i],
            StageName::Exceptiontransform => "exceptiontransform",
            StageName::Gctransform => "gctransform",
            StageName::Genc => "genc",
        }
    }

    pub fn from_name(name: &str) -> Option<StageName> {
        Self::ALL
            .into_iter()
            .chain(Self::BRANCHES)
            .chain(Self::SUBSTAGES)
            .find(|s| s.name() == name)
    }

    /// What the stage does, for `rpy show --stages`.
    pub fn description(self) -> &'static str {
        match self {
            StageName::Parse => "source -> AST",
            StageName::Flow => "AST -> flow graphs (high-level operations)",
            StageName::Annotate => "flow graphs -> annotated graphs (type inference)",
            StageName::Rtype => "annotated graphs -> low-level graphs",
            StageName::Backendopt => "low-level graphs -> optimized low-level graphs",
            StageName::BackendoptPart(_) => {
                "low-level graphs -> the same, optimized up to this sub-pass of backendopt"
            }
            StageName::Jitcodes => {
                "optimized low-level graphs the portal reaches -> jitcodes (the JIT's codewriter)"
            }
            StageName::Exceptiontransform => {
                "low-level graphs -> low-level graphs with explicit exception state"
            }
            StageName::Gctransform => {
                "explicit graphs -> graphs that keep GC roots and have write barriers"
            }
            StageName::Genc => "low-level graphs -> C source",
        }
    }
}

/// The stage names of the sub-passes of `backendopt`, by their index in
/// `backendopt::STEPS`.
const BACKENDOPT_PART_NAMES: [&str; 10] = [
    "backendopt:inline",
    "backendopt:malloc_removal",
    "backendopt:load_folding",
    "backendopt:devirtualize",
    "backendopt:constfold",
    "backendopt:branch_facts",
    "backendopt:int_rewrite",
    "backendopt:global_egraph",
    "backendopt:dead_code",
    "backendopt:merge_switches",
];

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

/// `run_until` but for clearing the progress line at the end.
fn run_stages(
    src: &Source,
    stop: StageName,
    timings: &mut Timings,
    options: &BackendoptOptions,
) -> Result<StageOutput, Diagnostics> {
    let mut clock = Instant::now();
    let mut lap = |stage: StageName, timings: &mut Timings| {
        let now = Instant::now();
        timings.stages.push((stage, now - clock));
        clock = now;
        if let Some(next) = StageName::ALL
            .into_iter()
            .find(|s| *s > stage && *s <= stop)
        {
            timings.starting(next.name());
        }
    };
    timings.starting(StageName::Parse.name());
    let module = rpy_passes::parse::parse_module(&src.path, &src.text, src.dialect)?;
    lap(StageName::Parse, timings);
    if stop == StageName::Parse {
        return Ok(StageOutput::Ast(module));
    }
    let mut flow = rpy_passes::flow::build_flow(&module, &src.text)?;
    rpy_passes::simplify::simplify_program(&mut flow);
    lap(StageName::Flow, timings);
    if stop == StageName::Flow {
        return Ok(StageOutput::Flow(flow));
    }
    let annotated = rpy_passes::annotate::annotate(flow, src.dialect)?;
    lap(StageName::Annotate, timings);
    if stop == StageName::Annotate {
        return Ok(StageOutput::Annotated(annotated));
    }
    let mut lowlevel = rpy_passes::rtype::rtype(annotated, src.dialect)?;
    lap(StageName::Rtype, timings);
    if stop == StageName::Rtype {
        return Ok(StageOutput::LowLevel(lowlevel));
    }
    let stop_after = match stop {
        StageName::BackendoptPart(i) => Some(rpy_passes::backendopt::STEPS[i]),
        _ => None,
    };
    let report = rpy_passes::backendopt::optimize_program_until(&mut lowlevel, options, stop_after);
    timings.backendopt_parts = report.times;
    lap(StageName::Backendopt, timings);
    if matches!(stop, StageName::Backendopt | StageName::BackendoptPart(_)) {
        return Ok(StageOutput::LowLevel(lowlevel));
    }
    if stop == StageName::Jitcodes {
        let codes = rpy_jit::codewriter::write_jitcodes(&lowlevel);
        lap(StageName::Jitcodes, timings);
        return Ok(StageOutput::JitCodes(codes));
    }
    // The executable's JIT runs jitcodes of the optimized low-level
    // program, which the later stages consume.
    let jit = if src.jit {
        Some((jitcodes_checked(&lowlevel, "--jit")?, lowlevel.clone()))
    } else {
        None
    };
    let explicit = rpy_passes::exceptiontransform::transform(lowlevel)?;
    lap(StageName::Exceptiontransform, timings);
    if stop == StageName::Exceptiontransform {
        return Ok(StageOutput::ExceptionsExplicit(explicit));
    }
    let portals = jit
        .as_ref()
        .map(|(codes, _)| codes.portals.clone())
        .unwrap_or_default();
    let explicit = rpy_passes::gctransform::transform_collecting(explicit, src.gc, &portals);
    lap(StageName::Gctransform, timings);
    if stop == StageName::Gctransform {
        return Ok(StageOutput::GcExplicit(explicit));
    }
    let input = jit
        .as_ref()
        .map(|(codes, lowlevel)| rpy_backend::JitInput { lowlevel, codes });
    let c = rpy_backend::generate_c_with_jit(&explicit, src.gc, input.as_ref())?;
    lap(StageName::Genc, timings);
    Ok(StageOutput::C(c, explicit.sources))
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

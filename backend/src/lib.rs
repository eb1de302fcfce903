//! GenC: low-level programs as C, and the C compiler driver that turns it
//! into an executable.
//!
//! The program is one C file (`GeneratedC::single_file`), or the same C as
//! a common header and several translation units compiled in parallel
//! (`GeneratedC::units`; ARCHITECTURE.md, "Several translation units").
//! The one file holds, in order: the runtime's prelude
//! (`runtime/rpy_runtime.h`), the C structs of the program's container types
//! (with `_Static_assert`s pinning the offsets of `ContainerType::layout()`),
//! the runtime functions (`runtime/rpy_runtime.c`, one C function per entry of
//! `llops::RUNTIME_FUNCS`, same name), the prebuilt string constants, the
//! prototype of each graph's static C function (`rpy_g_<name>`), the
//! program's statics (`statics.rs`), the functions, and `main()`, which
//! calls the entry graph with the argument list and exits with its result,
//! or, when an exception is pending after it, writes the exception's class
//! name to stderr and exits with status 1.
//!
//! GenC takes a program after `exceptiontransform`: its type says no link
//! goes to an except block, and the exception state is the runtime's
//! `rpy_exc_type`/`rpy_exc_value`.
//!
//! Low-level types become `long`, `unsigned long`, `double`, `bool`,
//! `unsigned char` and `struct S_<name> *`; Void values do not exist in C
//! (Void variables, parameters, fields and items are left out; operations
//! yielding Void run for their effect only).
//!
//! What the generated code expects of a low-level program:
//! - constants take the type the context wants: the operation's argument type
//!   (from `llops`, the field or item type, the callee's parameter type) or the
//!   target input argument's type of a link; `None` is `NULL` (a Ptr) or
//!   nothing (Void); `Str` is a prebuilt string object (its UTF-8 bytes), and
//!   may stand where a pointer is expected (`getarraysize("abc")`);
//! - a Bool exitswitch has links with exit cases `Bool(false)`/`Bool(true)`;
//!   a Signed or Char exitswitch has `Int`/`Char` cases and optionally a
//!   `Name("default")` link (without one, an unmatched value is fatal);
//! - a `Func` constant where a function pointer is expected is the graph's
//!   address (cast to the pointer's type); a `Prebuilt` constant is a pointer
//!   to the static, cast to the pointer type expected;
//! - graphs in a call cycle (an indirect call may reach any graph of its
//!   signature whose address is taken) check the stack depth on entry (fatal
//!   `RecursionError` instead of a crash).

mod aliasing;
mod cold;
mod collector_calls;
mod compile;
mod function;
mod jit_embedding;
mod names;
mod statics;
mod types;

pub use jit_embedding::JitInput;

pub use compile::{compile_c, compile_c_linking, compile_program, compile_units, default_jobs};

use function::{Context, FuncGen, FuncSig};
use fxhash::FxHashMap as HashMap;
use names::{c_string_literal, comment_text, Namespace};
use rayon::prelude::*;
use rpy_ir::diag::{Diagnostic, Pos};
use rpy_ir::graph::{GcExplicit, Program};
use rpy_ir::llops::GcKind;
use rpy_ir::lltype::{self, LowLevelType};
use std::collections::BTreeSet;
use std::fmt::Write;
use types::{c_type, Types};

/// The runtime's prelude: includes, primitive helpers, the allocation API.
pub const RUNTIME_H: &str = include_str!("../runtime/rpy_runtime.h");
/// The runtime functions; needs the struct definitions before it.
pub const RUNTIME_C: &str = include_str!("../runtime/rpy_runtime.c");
/// The names the generated C includes the runtime by.
pub const RUNTIME_H_NAME: &str = "rpy_runtime.h";
pub const RUNTIME_C_NAME: &str = "rpy_runtime.c";

/// Bytes every executable rpy writes holds: `rpy translate` replaces an
/// existing file only when it holds them (an executable it wrote before),
/// so that it never writes over a user's file.
pub const EXECUTABLE_MARKER: &str = "rpy translated executable; rpy translate may replace it";

/// Whether the file at `path` is an executable rpy wrote (it holds
/// `EXECUTABLE_MARKER`).
pub fn is_rpy_executable(path: &std::path::Path) -> bool {
    let marker = EXECUTABLE_MARKER.as_bytes();
    std::fs::read(path).is_ok_and(|bytes| {
        bytes.starts_with(b"\x7fELF") && bytes.windows(marker.len()).any(|w| w == marker)
    })
}

/// The prebuilt string constants of a program, deduplicated.
#[derive(Default)]
pub(crate) struct StringPool {
    index: HashMap<Vec<u8>, usize>,
    strings: Vec<Vec<u8>>,
    /// A pool of one function's strings, generated apart from the others
    /// (see `absorb`): its expressions name its own numbers between
    /// markers, to be renumbered.
    local: bool,
}

/// What brackets a local pool's string number in generated text; never
/// part of C text otherwise.
const LOCAL_STRING_MARK: char = '\u{1}';

impl StringPool {
    /// A pool for one function's text, to be absorbed into the program's.
    fn local() -> StringPool {
        StringPool {
            local: true,
            ..StringPool::default()
        }
    }

    fn number(&mut self, s: &[u8]) -> usize {
        match self.index.get(s) {
            Some(n) => *n,
            None => {
                self.strings.push(s.to_vec());
                self.index.insert(s.to_vec(), self.strings.len() - 1);
                self.strings.len() - 1
            }
        }
    }

    /// The C expression (an `RPyString *`) of the constant string `s`.
    pub(crate) fn expr(&mut self, s: &[u8]) -> String {
        let n = self.number(s);
        if self.local {
            format!("(&rpy_cs_{LOCAL_STRING_MARK}{n}{LOCAL_STRING_MARK})")
        } else {
            format!("(&rpy_cs_{n})")
        }
    }

    /// `text`, made with the local pool `local`, with its strings numbered
    /// in this pool: absorbing the functions' pools in program order
    /// numbers the strings as one pool used by each function in turn
    /// would.
    fn absorb(&mut self, local: StringPool, text: String) -> String {
        if local.strings.is_empty() {
            return text;
        }
        let numbers: Vec<usize> = local.strings.iter().map(|s| self.number(s)).collect();
        let mut out = String::with_capacity(text.len());
        let mut parts = text.split(LOCAL_STRING_MARK);
        out.push_str(parts.next().unwrap_or_default());
        // The parts alternate: a local number, then the text up to the next.
        while let (Some(n), Some(rest)) = (parts.next(), parts.next()) {
            let n: usize = n.parse().expect("a local string number between marks");
            let _ = write!(out, "{}", numbers[n]);
            out.push_str(rest);
        }
        out
    }

    /// Each string's definition, without its storage class or `;`.
    fn definitions(&self) -> Vec<String> {
        self.strings
            .iter()
            .enumerate()
            .map(|(n, s)| {
                format!(
                    "RPyString rpy_cs_{n} = {{RPY_PREBUILT_HDR_TID(RPY_TID_STRING), 0, {}, {}}}",
                    s.len(),
                    c_string_literal(s)
                )
            })
            .collect()
    }
}

/// One generated C function: its prototype without storage class, whether
/// it is a low-level helper (`static inline`, see `is_lowlevel_helper`),
/// and its whole definition as one C file has it.
struct CFunction {
    prototype: String,
    helper: bool,
    text: String,
}

impl CFunction {
    /// The definition in a unit of a program compiled in several: a
    /// helper stays `static inline` (it is in the common header), any
    /// other function is a hidden global.
    fn split_text(&self) -> String {
        if self.helper {
            return self.text.clone();
        }
        self.text.replacen(
            &format!("static {} {{", self.prototype),
            &format!("RPY_HIDDEN {} {{", self.prototype),
            1,
        )
    }
}

/// A translated program's C, in parts: [`GeneratedC::single_file`] is the
/// one C file (what `rpy show --stage genc` prints and the snapshots
/// hold), [`GeneratedC::units`] the same program as a common header and
/// several translation units, compiled in parallel by `rpy translate`.
pub struct GeneratedC {
    /// The comment, the collector's define, the runtime's header, the
    /// types and the collector's type table.
    head: String,
    /// The prebuilt strings' definitions (no storage class).
    strings: Vec<String>,
    /// Whether the JIT's embedding is in (its prelude after the strings).
    jit: bool,
    functions: Vec<CFunction>,
    /// The cold wrappers of the helpers that blocks leading only to a
    /// raise call (`cold`): each one's prototype and definition.
    cold_wrappers: Vec<(String, String)>,
    statics: statics::Statics,
    /// The JIT's data and wrappers, then `main()`.
    tail: String,
    /// Whether every pointer view of the program keeps C's strict aliasing
    /// rule usable (`aliasing`).
    strict_aliasing: bool,
}

/// The name of the common header of a program compiled in several units.
pub const PROGRAM_H_NAME: &str = "rpy_program.h";

impl GeneratedC {
    /// The whole program as one C file (including the runtime's two files).
    pub fn single_file(&self) -> String {
        let mut out = self.head.clone();
        let _ = writeln!(out, "#include \"{RUNTIME_C_NAME}\"\n");
        out.push_str("/* ---- prebuilt strings ---- */\n\n");
        for s in &self.strings {
            let _ = writeln!(out, "static {s};");
        }
        out.push('\n');
        if self.jit {
            out.push_str(jit_embedding::PRELUDE);
        }
        out.push_str("/* ---- functions ---- */\n\n");
        for f in &self.functions {
            let inline = if f.helper { "inline " } else { "" };
            let _ = writeln!(out, "static {inline}{};", f.prototype);
        }
        for (prototype, _) in &self.cold_wrappers {
            let _ = writeln!(out, "static RPY_COLD_WRAPPER {prototype};");
        }
        out.push('\n');
        out.push_str(&self.statics.single_file());
        for f in &self.functions {
            out.push_str(&f.text);
        }
        for (_, definition) in &self.cold_wrappers {
            out.push_str(definition);
        }
        out.push_str(&self.tail);
        out
    }

    /// Whether the program may be compiled under C's strict aliasing rule.
    pub fn strict_aliasing(&self) -> bool {
        self.strict_aliasing
    }

    /// The size of the C the units hold apart from the header, for
    /// choosing their number: the runtime, the data and the functions.
    pub fn size(&self) -> usize {
        RUNTIME_C.len()
            + self.strings.iter().map(String::len).sum::<usize>()
            + self.statics.size()
            + self.tail.len()
            + self.functions.iter().map(|f| f.text.len()).sum::<usize>()
    }

    /// The program as `n` translation units (at least one) and their
    /// common header: `(file name, text)` pairs, the header
    /// ([`PROGRAM_H_NAME`]) first. The header declares everything (the
    /// runtime's functions and shared state, the program's functions,
    /// strings and statics, hidden and extern) and defines the types and
    /// the low-level helpers (`static inline`, so that every unit can
    /// inline them); the first unit defines the runtime, the data, the
    /// JIT's embedding and `main()`; the other functions are spread over
    /// the units so that each holds about as much C (the longest first,
    /// each into the unit with least so far).
    pub fn units(&self, n: usize) -> Vec<(String, String)> {
        let n = n.max(1);
        let mut header = String::from("#define RPY_SPLIT 1\n");
        header.push_str(&self.head);
        header.push_str("/* ---- the runtime's functions ---- */\n\n");
        for f in rpy_ir::llops::RUNTIME_FUNCS {
            // a function of the header is declared (or defined) there
            if RUNTIME_H.contains(&format!("{}(", f.name)) {
                continue;
            }
            let params: Vec<&str> = f.args.iter().map(|a| runtime_c_type(a.lltype())).collect();
            let params = if params.is_empty() {
                "void".to_string()
            } else {
                params.join(", ")
            };
            let _ = writeln!(
                header,
                "RPY_RT {} {}({params});",
                runtime_c_type(f.result.lltype()),
                f.name
            );
        }
        header.push_str("\n/* ---- prebuilt strings ---- */\n\n");
        for n in 0..self.strings.len() {
            let _ = writeln!(header, "extern RPY_HIDDEN RPyString rpy_cs_{n};");
        }
        header.push('\n');
        if self.jit {
            header.push_str(jit_embedding::PRELUDE);
        }
        header.push_str("/* ---- functions ---- */\n\n");
        for f in &self.functions {
            let storage = if f.helper {
                "static inline"
            } else {
                "RPY_HIDDEN"
            };
            let _ = writeln!(header, "{storage} {};", f.prototype);
        }
        for (prototype, _) in &self.cold_wrappers {
            let _ = writeln!(header, "static RPY_COLD_WRAPPER {prototype};");
        }
        header.push('\n');
        header.push_str(&self.statics.declarations());
        for f in self.functions.iter().filter(|f| f.helper) {
            header.push_str(&f.text);
        }
        for (_, definition) in &self.cold_wrappers {
            header.push_str(definition);
        }

        let include = format!("#include \"{PROGRAM_H_NAME}\"\n\n");
        let mut units: Vec<String> = vec![include.clone(); n];
        let _ = writeln!(units[0], "#include \"{RUNTIME_C_NAME}\"\n");
        for s in &self.strings {
            let _ = writeln!(units[0], "RPY_HIDDEN {s};");
        }
        units[0].push('\n');
        units[0].push_str(&self.statics.definitions());
        let mut load: Vec<usize> = vec![0; n];
        load[0] = RUNTIME_C.len() + units[0].len() + self.tail.len();
        let mut order: Vec<usize> = (0..self.functions.len())
            .filter(|i| !self.functions[*i].helper)
            .collect();
        order.sort_by_key(|i| std::cmp::Reverse(self.functions[*i].text.len()));
        let mut assigned: Vec<Vec<usize>> = vec![Vec::new(); n];
        for i in order {
            let u = (0..n).min_by_key(|u| load[*u]).unwrap_or(0);
            load[u] += self.functions[i].text.len();
            assigned[u].push(i);
        }
        for (u, mut fs) in assigned.into_iter().enumerate() {
            // in the program's order, as one file has them
            fs.sort_unstable();
            for i in fs {
                units[u].push_str(&self.functions[i].split_text());
            }
        }
        units[0].push_str(&self.tail);
        let mut files = vec![(PROGRAM_H_NAME.to_string(), header)];
        files.extend(
            units
                .into_iter()
                .enumerate()
                .map(|(u, text)| (format!("rpy_unit{u}.c"), text)),
        );
        files
    }
}

/// The C type of a runtime function's parameter or result.
fn runtime_c_type(t: LowLevelType) -> &'static str {
    match t {
        LowLevelType::Void => "void",
        LowLevelType::Signed => "long",
        LowLevelType::Unsigned => "unsigned long",
        LowLevelType::Float => "double",
        LowLevelType::Bool => "bool",
        LowLevelType::Char => "unsigned char",
        LowLevelType::Ptr(name) if name == rpy_ir::lltype::STR => "RPyString *",
        _ => "void *",
    }
}

/// Translates a low-level program into one C file, linked with the
/// collector `gc` (the program must have been through `gctransform` for it).
pub fn generate_c(program: &Program<GcExplicit>, gc: GcKind) -> Result<String, Diagnostic> {
    Ok(generate_c_with_jit(program, gc, None)?.single_file())
}

/// [`generate_c`], with the JIT when `jit` is given: its data and the C
/// side of its runtime, and every call of a portal going to the runtime
/// (the executable is linked with the runtime library, `rpy-jitrt`).
pub fn generate_c_with_jit(
    program: &Program<GcExplicit>,
    gc: GcKind,
    jit: Option<&JitInput>,
) -> Result<GeneratedC, Diagnostic> {
    let fail =
        |msg: String| Diagnostic::new(&program.path, Pos::default(), format!("C backend: {msg}"));

    // Every type the graphs' variables have, for forward declarations and
    // function pointer typedefs, in a deterministic order.
    // Most variables share a handful of types: they are made unique by
    // hashing first, and only the distinct ones are sorted.
    let distinct: fxhash::FxHashSet<&LowLevelType> = program
        .graphs
        .iter()
        .flat_map(|g| g.vars.iter().map(|v| &v.info))
        .collect();
    let mentioned: BTreeSet<&LowLevelType> = distinct.into_iter().collect();
    let types = Types::new(&program.types, mentioned).map_err(fail)?;

    let mut ns = Namespace::default();
    let mut sigs = HashMap::default();
    for g in &program.graphs {
        if sigs.contains_key(&g.name) {
            return Err(fail(format!("two graphs are named '{}'", g.name)));
        }
        let sig = FuncSig {
            c_name: ns.fresh("rpy_g_", &g.name),
            ty: g.func_sig(),
        };
        sigs.insert(g.name.clone(), sig);
    }
    let entry_sig = sigs
        .get(&program.entry)
        .ok_or_else(|| {
            fail(format!(
                "the entry point '{}' is not a graph of the program",
                program.entry
            ))
        })?
        .clone();

    let collector_calls =
        collector_calls::CollectorCalls::of_program(program, &sigs, &types).map_err(fail)?;
    let recursive = function::recursive_graphs(program);
    let static_names = statics::static_names(&program.prebuilt);
    let portals: Vec<String> = jit.map_or(Vec::new(), |j| j.codes.portals.clone());
    let views = aliasing::Views::default();
    let cx = Context {
        path: &program.path,
        sources: &program.sources,
        types: &types,
        sigs: &sigs,
        recursive: &recursive,
        statics: &static_names,
        portals: &portals,
        views: &views,
    };
    let mut pool = StringPool::default();
    // Each function's text on every core, with its own string pool; the
    // pools are absorbed in program order after the statics' pool, so the
    // output is what one function after another gives. The statics and
    // the type declarations are written meanwhile: they read only the
    // types and names, which are complete.
    let (declarations, texts) = rayon::join(
        || -> Result<(statics::Statics, String), String> {
            let statics = statics::emit_statics(&cx, &mut pool, &program.prebuilt)?;
            let mut types_text = String::new();
            types.emit(&mut types_text);
            collector_calls.emit_declarations(&mut types_text);
            types.emit_gc_types(&mut types_text, &collector_calls);
            Ok((statics, types_text))
        },
        || -> Vec<(Result<String, Diagnostic>, StringPool)> {
            program
                .graphs
                .par_iter()
                .map(|g| {
                    let mut local = StringPool::local();
                    let text = FuncGen::new(&cx, g, &mut local).generate();
                    (text, local)
                })
                .collect()
        },
    );
    let (statics, types_text) = declarations.map_err(fail)?;
    let mut functions = Vec::new();
    for (g, (text, local)) in program.graphs.iter().zip(texts) {
        functions.push(CFunction {
            prototype: FuncGen::prototype(&types, g, &sigs[&g.name]),
            helper: function::is_lowlevel_helper(g),
            text: pool.absorb(local, text?),
        });
    }
    let cold_called: BTreeSet<String> = program
        .graphs
        .iter()
        .flat_map(cold::cold_helper_calls)
        .collect();
    let cold_wrappers: Vec<(String, String)> = program
        .graphs
        .iter()
        .filter(|g| cold_called.contains(&g.name))
        .map(|g| {
            let sig = &sigs[&g.name];
            (
                cold::wrapper_prototype(&types, g, sig),
                cold::wrapper_definition(&types, g, sig),
            )
        })
        .collect();
    let embedding = match jit {
        Some(input) => {
            let native = rpy_jit::native::lower(input.lowlevel, input.codes, &types.table, &|t| {
                types.type_id(t)
            })
            .map_err(|e| fail(format!("the JIT: {e}")))?;
            Some(jit_embedding::emit(&cx, &mut pool, input, &native).map_err(fail)?)
        }
        None => None,
    };

    let mut head = String::new();
    let _ = writeln!(
        head,
        "/* Generated by rpy from {}. */\n",
        comment_text(&program.path)
    );
    // The runtime is included, not pasted, so that the generated file (and its
    // snapshots) hold only what was generated for this program; `compile_c`
    // puts the two runtime files beside it.
    if gc == GcKind::Generational {
        head.push_str("#define RPY_GC_GENERATIONAL 1\n");
    }
    if embedding.is_some() {
        head.push_str("#define RPY_JIT 1\n");
    }
    let _ = writeln!(head, "#include \"{RUNTIME_H_NAME}\"\n");
    head.push_str(&types_text);
    let mut tail = String::new();
    collector_calls.emit_wrappers(&mut tail);
    emit_callback_failed(&mut tail, &types);
    if let Some(embedding) = &embedding {
        tail.push_str(embedding);
    }
    let main = MainCall {
        entry: &entry_sig,
        jit: embedding.is_some(),
        hooks: collector_calls.hook_registrations(),
    };
    emit_main(&mut tail, &main, &types).map_err(fail)?;
    let _ = writeln!(
        tail,
        "\n/* What `rpy translate` looks for before it replaces a file. */\n\
         static const char rpy_executable_marker[] __attribute__((used)) = \"{EXECUTABLE_MARKER}\";"
    );
    Ok(GeneratedC {
        head,
        strings: pool.definitions(),
        jit: embedding.is_some(),
        functions,
        cold_wrappers,
        statics,
        tail,
        strict_aliasing: views.allow_strict_aliasing(),
    })
}

/// The C expression of the pending exception's message (`NULL` for none):
/// its `exc_message` field, read through an exception instance struct of
/// the program (every one begins with `typeptr` and `BaseException`'s
/// `exc_message`, so any of them gives the field); `NULL` when the
/// program has none.
fn exc_message_expr(types: &Types) -> String {
    let message = (
        lltype::EXC_MESSAGE.to_string(),
        LowLevelType::Ptr(lltype::STR.into()),
    );
    let through = types.table.iter().find_map(|(name, t)| match t {
        lltype::ContainerType::GcStruct { fields, .. }
            if fields.first().is_some_and(|f| f.0 == lltype::TYPEPTR)
                && fields.get(1) == Some(&message) =>
        {
            let p = format!("((struct {} *)rpy_exc_value)", types.struct_tag(name));
            types.field_lvalue(&p, name, lltype::EXC_MESSAGE)
        }
        _ => None,
    });
    match through {
        Some(message) => format!("rpy_exc_value == NULL ? NULL : {message}"),
        None => "NULL".into(),
    }
}

/// The C expressions of the pending exception's class name and message;
/// `None` for a program without the root vtable, which has no exceptions.
fn pending_exception_exprs(types: &Types) -> Option<(String, String)> {
    let vtable = format!(
        "((struct {} *)rpy_exc_type)",
        types.struct_tag(lltype::OBJECT_VTABLE)
    );
    Some((
        types.field_lvalue(&vtable, lltype::OBJECT_VTABLE, lltype::CLASS_NAME)?,
        exc_message_expr(types),
    ))
}

/// `rpy_gc_callback_failed(where)`, which the collector calls after each
/// function of the program it called: the exception it let out is
/// reported and dropped.
fn emit_callback_failed(out: &mut String, types: &Types) {
    let report = match pending_exception_exprs(types) {
        Some((name, message)) => {
            format!("    rpy_ignored_exception(where, {name}, {message});\n")
        }
        None => "    (void)where;\n".to_string(),
    };
    let _ = writeln!(
        out,
        "RPY_RT void rpy_gc_callback_failed(const char *where) {{\n    \
         if (rpy_exc_type == NULL) return;\n\
         {report}    \
         rpy_exc_type = NULL;\n    \
         rpy_exc_value = NULL;\n\
         }}\n"
    );
}

/// What `main()` starts besides the collector: the JIT's runtime, the
/// GC hooks, and the entry point.
struct MainCall<'a> {
    entry: &'a FuncSig,
    jit: bool,
    /// The statements that hand the GC hooks to the collector.
    hooks: String,
}

/// `main()`: the argument list, the entry point's call, the exit status.
fn emit_main(out: &mut String, main: &MainCall, types: &Types) -> Result<(), String> {
    let MainCall { entry, jit, hooks } = main;
    let list = LowLevelType::Ptr(lltype::list_type_names(&LowLevelType::Ptr(lltype::STR.into())).0);
    let params: Vec<&LowLevelType> = entry
        .ty
        .params
        .iter()
        .filter(|t| **t != LowLevelType::Void)
        .collect();
    let call_args = match params.as_slice() {
        [] => "",
        [t] if **t == list => "args",
        _ => {
            return Err(format!(
                "the entry point must take the argument list ({list}), not ({})",
                params
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
    };
    // The entry point is called through a volatile pointer: GCC takes
    // main() as run once, and so every function only main() reaches, which
    // it then optimizes for size, even in their loops (a `% 1000000007`
    // in a loop stayed an idiv, not a multiplication: strings.py's
    // checksum took a quarter of its time). A call it cannot follow is not
    // known to run once.
    let call = format!("rpy_entry({call_args})");
    let entry_pointer = format!(
        "__typeof__(&{0}) volatile rpy_entry = {0};\n    ",
        entry.c_name
    );
    let status = match &entry.ty.result {
        LowLevelType::Void => format!("{call};\n    status = 0;"),
        LowLevelType::Signed | LowLevelType::Bool | LowLevelType::Char | LowLevelType::Unsigned => {
            format!("status = (long){call};")
        }
        other => {
            return Err(format!(
                "the entry point must return an int, not {other} ({})",
                c_type(other, types)
            ))
        }
    };
    let uncaught = match pending_exception_exprs(types) {
        Some((name, message)) => format!(
            "if (rpy_exc_type != NULL)\n        \
             rpy_uncaught_exception({name}, {message});\n    "
        ),
        None => String::new(),
    };
    let jit_init = if *jit {
        "rpy_jit_init(&rpy_jit_embedding);\n    "
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "int main(int argc, char **argv) {{\n    \
         rpy_stack_init();\n    \
         rpy_gc_init();\n    \
         {hooks}\
         {jit_init}\
         RPyStrList *args = rpy_argv_list(argc, argv);\n    \
         long status;\n    \
         {entry_pointer}\
         (void)args;\n    \
         {status}\n    \
         {uncaught}\
         rpy_flush_stdout();\n    \
         rpy_gc_report();\n    \
         return (int)status;\n\
         }}"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::StringPool;

    #[test]
    fn absorbed_pools_number_strings_as_one_pool_would() {
        let mut one = StringPool::default();
        let mut sequential = Vec::new();
        let functions: [&[&[u8]]; 3] = [&[b"a", b"b"], &[], &[b"c", b"a", b"c"]];
        for strings in functions {
            let text: Vec<String> = strings.iter().map(|s| one.expr(s)).collect();
            sequential.push(text.join(" + "));
        }
        let mut program = StringPool::default();
        let mut absorbed = Vec::new();
        for strings in functions {
            let mut local = StringPool::local();
            let text: Vec<String> = strings.iter().map(|s| local.expr(s)).collect();
            absorbed.push(program.absorb(local, text.join(" + ")));
        }
        assert_eq!(absorbed, sequential);
        assert_eq!(program.definitions(), one.definitions());
        assert_eq!(absorbed[2], "(&rpy_cs_2) + (&rpy_cs_0) + (&rpy_cs_2)");
    }
}

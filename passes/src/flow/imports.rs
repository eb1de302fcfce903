//! The modules of a multi-file program: which modules each module imports,
//! where their files are, and the order they are imported in.
//!
//! A program's own modules are found relative to the main program's folder,
//! as Python finds them when the program runs as a script: `import a.b` reads
//! `a/__init__.py` (a package) and then `a/b.py` or `a/b/__init__.py`. The rlib
//! modules (`rpython.rlib.*`, see [`super::rlib`]) and the standard modules
//! (`sys`, `os`, `math`, `time`, see [`crate::language::stdmods`]) are not
//! read from files. Each module is read, parsed and later executed once; a
//! module is executed after the modules it imports (its dependencies first,
//! in the order its import statements name them), as Python does when no two
//! modules import each other.

use super::rlib;
use crate::language::stdmods;
use crate::parse::{parse_module_in, read_source};
use rpy_ir::ast::{self, Dialect, Stmt, StmtKind};
use rpy_ir::diag::{Diagnostic, FileId, Pos, SourceMap};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The constants and functions of a standard module (see [`crate::language::stdmods`]).
pub(crate) fn external_module_constants(
    name: &str,
    dialect: Dialect,
) -> Vec<(String, rpy_ir::graph::Constant)> {
    stdmods::module_attributes(name, dialect)
}

/// One module of the program, read and parsed.
pub(crate) struct LoadedModule<'m> {
    /// The dotted module name (the main program's is its file stem).
    pub name: String,
    /// The path diagnostics show: relative to where the main program's path
    /// was given from, so that it does not depend on the checkout's location.
    pub path: String,
    /// The file's id in the program's `SourceMap`.
    pub file: FileId,
    /// The main module is the caller's (borrowed, not copied: the whole
    /// program's AST); the modules it imports are parsed here.
    pub ast: Cow<'m, ast::Module>,
    /// Whether the module is a package's `__init__.py`.
    pub is_package: bool,
}

/// What a dotted import name refers to.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ModuleKind {
    /// One of the program's modules (its index in the loaded modules).
    Program(usize),
    /// An rlib module, given its translation meaning by rpy.
    Rlib,
    /// A standard module (`sys`, `os`, `math`, `time`...).
    External,
}

/// The program's modules, the main one first, then in the order found.
pub(crate) struct ModuleSet<'m> {
    pub modules: Vec<LoadedModule<'m>>,
    /// Every module name an import statement names (and each package above
    /// it), with what it refers to.
    pub kinds: HashMap<String, ModuleKind>,
    /// Module indexes in execution order (dependencies first).
    pub order: Vec<usize>,
    /// The modules that only imports inside functions name and that
    /// cannot be read, with why: reported where a translated function
    /// reaches such an import.
    pub unresolved: HashMap<String, Vec<Diagnostic>>,
    /// Every file read, the main one first: the files positions name.
    pub sources: SourceMap,
}

/// The package a module's relative imports start from (`level` dots).
fn relative_base(module: &str, is_package: bool, level: u32) -> Option<String> {
    let mut parts: Vec<&str> = module.split('.').collect();
    if !is_package {
        parts.pop();
    }
    for _ in 1..level {
        parts.pop()?;
    }
    Some(parts.join("."))
}

/// The absolute module name of `from <dots><name> import ...` in `module`
/// (a package's `__init__` when `is_package`).
pub(crate) fn absolute_name(
    module: &str,
    is_package: bool,
    name: &str,
    level: u32,
) -> Option<String> {
    if level == 0 {
        return Some(name.to_string());
    }
    let base = relative_base(module, is_package, level)?;
    Some(match (base.is_empty(), name.is_empty()) {
        (true, _) => name.to_string(),
        (false, true) => base,
        (false, false) => format!("{base}.{name}"),
    })
}

/// The import statements of a module body, with whether each runs inside
/// a function (`lazy`): at module level, those looking into `if`, `try`
/// and loops, but not into the body of `if __name__ == '__main__':` (the
/// translator imports the program, so it never runs); inside functions and
/// class bodies at any depth (translated code binds what they import; a
/// module that cannot be found is reported only where a translated
/// function reaches its import).
fn import_stmts<'a>(stmts: &'a [Stmt], lazy: bool, out: &mut Vec<(&'a Stmt, bool)>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Import(_) | StmtKind::ImportFrom { .. } => out.push((s, lazy)),
            StmtKind::If { test, orelse, .. } if super::is_main_guard(test) => {
                import_stmts(orelse, lazy, out)
            }
            StmtKind::FunctionDef { body, .. } => import_stmts(body, true, out),
            StmtKind::ClassDef { body, .. } => import_stmts(body, true, out),
            _ => s.for_each_nested_body(|body| import_stmts(body, lazy, out)),
        }
    }
}

/// `a.b.c` and the packages above it: `a`, `a.b`, `a.b.c`.
pub(crate) fn with_parents(name: &str) -> Vec<String> {
    let parts: Vec<&str> = name.split('.').collect();
    (1..=parts.len()).map(|n| parts[..n].join(".")).collect()
}

/// The folders a program's modules are looked for in, in the order they
/// are searched, as Python searches `sys.path` when the program runs as a
/// script with rpy's `pylib/` first on it: rpy's own packages (`rpython`,
/// `py`) win for the modules they provide; then the main program's folder;
/// then the folders of `PYTHONPATH`; then the original toolchain's tree
/// the program sits in (the nearest folder above it holding
/// `rpython/__init__.py`), so that a target of the original's tree finds
/// the original's modules that rpy does not provide.
#[derive(Clone, Debug)]
pub struct ModuleSearch {
    folders: Vec<SearchFolder>,
}

#[derive(Clone, Debug)]
struct SearchFolder {
    dir: PathBuf,
    /// How diagnostics name the folder (empty: the current folder).
    shown: String,
    /// Why it is searched, for the message of a module found nowhere.
    role: &'static str,
}

/// rpy's own pure-Python packages: the `rpython` package (the rlib stand-ins
/// and the low-level helpers) and the stand-in of the `py` library.
pub const PYLIB: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../pylib");

const PYLIB_ROLE: &str = "rpy's own packages rpython and py";

impl ModuleSearch {
    /// The search path of the program whose main file is `main_path`.
    pub fn for_program(main_path: &str) -> ModuleSearch {
        let dir = Path::new(main_path)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let pylib = Path::new(PYLIB)
            .canonicalize()
            .unwrap_or_else(|_| PathBuf::from(PYLIB));
        let mut folders = vec![
            SearchFolder {
                shown: pylib.to_string_lossy().into_owned(),
                dir: pylib.clone(),
                role: PYLIB_ROLE,
            },
            SearchFolder {
                shown: dir.to_string_lossy().into_owned(),
                dir: dir.clone(),
                role: "the program's folder",
            },
        ];
        if let Some(paths) = std::env::var_os("PYTHONPATH") {
            for p in std::env::split_paths(&paths).filter(|p| !p.as_os_str().is_empty()) {
                folders.push(SearchFolder {
                    shown: p.to_string_lossy().into_owned(),
                    dir: p,
                    role: "PYTHONPATH",
                });
            }
        }
        let absolute = if dir.as_os_str().is_empty() {
            std::env::current_dir().ok()
        } else {
            dir.canonicalize().ok()
        };
        let tree = absolute.as_deref().and_then(|d| {
            d.ancestors()
                .find(|a| *a != pylib && a.join("rpython/__init__.py").is_file())
                .map(Path::to_path_buf)
        });
        if let Some(tree) = tree {
            folders.push(SearchFolder {
                shown: tree.to_string_lossy().into_owned(),
                dir: tree,
                role: "the original's tree the program is in",
            });
        }
        ModuleSearch { folders }
    }

    /// The file of module `name` (dotted): its path, the path diagnostics
    /// show, and whether it is a package's `__init__.py`.
    pub fn find_file(&self, name: &str) -> Option<(PathBuf, String, bool)> {
        let rel: PathBuf = name.split('.').collect();
        let file = rel.with_extension("py");
        let init = rel.join("__init__.py");
        self.folders.iter().find_map(|f| {
            let shown = |p: &Path| {
                if f.shown.is_empty() {
                    p.to_string_lossy().into_owned()
                } else {
                    format!("{}/{}", f.shown, p.to_string_lossy())
                }
            };
            if f.dir.join(&file).is_file() {
                Some((f.dir.join(&file), shown(&file), false))
            } else if f.dir.join(&init).is_file() {
                Some((f.dir.join(&init), shown(&init), true))
            } else {
                None
            }
        })
    }

    /// The files that would be read instead of `file` (a module found by
    /// `find_file`) if they existed: its module's file and package in
    /// every folder searched before the one holding it, and the module
    /// file beside a package's `__init__.py` (found first). Empty for a
    /// file in no folder searched; a file in several folders (one inside
    /// another) may be several modules, and gets the candidates of each.
    /// A translation that read `file` is out of date once one of these
    /// appears.
    pub fn shadowing_candidates(&self, file: &Path) -> Vec<PathBuf> {
        let Ok(file) = file.canonicalize() else {
            return Vec::new();
        };
        let dirs: Vec<PathBuf> = self
            .folders
            .iter()
            .map(|f| f.dir.canonicalize().unwrap_or_else(|_| f.dir.clone()))
            .collect();
        let mut out = Vec::new();
        for (at, dir) in dirs.iter().enumerate() {
            let Ok(rel) = file.strip_prefix(dir) else {
                continue;
            };
            let (module, is_package) = match rel.file_name().and_then(|n| n.to_str()) {
                Some("__init__.py") => (
                    rel.parent().map(Path::to_path_buf).unwrap_or_default(),
                    true,
                ),
                _ => (rel.with_extension(""), false),
            };
            if module.as_os_str().is_empty() {
                continue;
            }
            for d in &dirs[..at] {
                out.push(d.join(&module).with_extension("py"));
                out.push(d.join(&module).join("__init__.py"));
            }
            if is_package {
                out.push(dir.join(&module).with_extension("py"));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The folders searched, one per line, each with why it is searched
    /// (rpy's own folder by its role, so that the message does not depend
    /// on where rpy is installed).
    pub fn describe(&self) -> String {
        self.folders
            .iter()
            .map(|f| match f.role {
                PYLIB_ROLE => format!("\n    rpy's pylib/ ({PYLIB_ROLE})"),
                role if f.shown.is_empty() => format!("\n    . ({role})"),
                role => format!("\n    {} ({role})", f.shown),
            })
            .collect()
    }
}

/// Reads the program's modules, starting from the main one.
pub(crate) struct Loader<'m> {
    /// Where modules are looked for.
    search: ModuleSearch,
    dialect: Dialect,
    set: ModuleSet<'m>,
    diags: Vec<Diagnostic>,
}

impl<'m> Loader<'m> {
    /// Loads the main module (already parsed, its positions in file
    /// `main_file`) and every module it imports, transitively; reports
    /// modules that cannot be found or parsed, and modules that import
    /// each other. The files read are numbered after `main_file`.
    pub fn load_program(
        main: &'m ast::Module,
        source: &str,
        main_file: FileId,
    ) -> Result<ModuleSet<'m>, Vec<Diagnostic>> {
        let mut sources = SourceMap::starting_at(main_file);
        sources.add(main.path.clone(), source);
        let main_path = Path::new(&main.path);
        let name = main_path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "main".to_string());
        let mut loader = Loader {
            search: ModuleSearch::for_program(&main.path),
            dialect: main.dialect,
            set: ModuleSet {
                modules: vec![LoadedModule {
                    name: name.clone(),
                    path: main.path.clone(),
                    file: main_file,
                    ast: Cow::Borrowed(main),
                    is_package: false,
                }],
                kinds: HashMap::from([(name, ModuleKind::Program(0))]),
                order: Vec::new(),
                unresolved: HashMap::new(),
                sources,
            },
            diags: Vec::new(),
        };
        loader.visit(0, &mut Vec::new());
        if loader.diags.is_empty() {
            Ok(loader.set)
        } else {
            Err(loader.diags)
        }
    }

    fn diag(&self, pos: Pos, message: String) -> Diagnostic {
        self.set.sources.diagnostic(pos, message)
    }

    /// Loads the imports of module `index`, then records it in the order.
    /// `active` holds the modules being visited, for finding cycles.
    fn visit(&mut self, index: usize, active: &mut Vec<usize>) {
        if self.set.order.contains(&index) {
            return;
        }
        if let Some(at) = active.iter().position(|&m| m == index) {
            let cycle: Vec<&str> = active[at..]
                .iter()
                .chain([&index])
                .map(|&m| self.set.modules[m].name.as_str())
                .collect();
            let first = active[at];
            let d = self.diag(
                Pos::in_file(self.set.modules[first].file, 1, 1),
                format!(
                    "the modules import each other ({}); move what they share into a module that imports neither",
                    cycle.join(" -> ")
                ),
            );
            self.diags.push(d);
            return;
        }
        active.push(index);
        let mut imported_by_functions = Vec::new();
        for (name, pos, lazy) in self.needed_modules(index) {
            if lazy {
                imported_by_functions.push((name, pos));
            } else if let Some(dep) = self.resolve(&name, pos) {
                if dep != index {
                    self.visit(dep, active);
                }
            }
        }
        active.pop();
        if !self.set.order.contains(&index) {
            self.set.order.push(index);
        }
        // A function's import runs after its module's body, so a module a
        // function imports may import this one.
        for (name, pos) in imported_by_functions {
            let reported = self.diags.len();
            let dep = self.resolve(&name, pos);
            if self.diags.len() > reported {
                let why = self.diags.split_off(reported);
                self.set.unresolved.insert(name, why);
                continue;
            }
            if let Some(dep) = dep {
                self.visit(dep, &mut Vec::new());
            }
        }
    }

    /// The module names module `index`'s imports need, in order, with the
    /// position of the import statement and whether it is inside a function.
    fn needed_modules(&mut self, index: usize) -> Vec<(String, Pos, bool)> {
        let module = &self.set.modules[index];
        let mut stmts = Vec::new();
        import_stmts(&module.ast.body, false, &mut stmts);
        let mut out = Vec::new();
        let mut bad = Vec::new();
        for (s, lazy) in stmts {
            match &s.kind {
                StmtKind::Import(aliases) => {
                    for a in aliases {
                        out.extend(with_parents(&a.name).into_iter().map(|n| (n, s.pos, lazy)));
                    }
                }
                StmtKind::ImportFrom {
                    module: m,
                    names,
                    level,
                } => {
                    if m == "__future__" {
                        continue;
                    }
                    let Some(abs) = absolute_name(&module.name, module.is_package, m, *level)
                    else {
                        bad.push((s.pos, format!("the relative import '{}{m}' goes above the program's folder; import from a package inside it", ".".repeat(*level as usize))));
                        continue;
                    };
                    if !abs.is_empty() {
                        out.extend(with_parents(&abs).into_iter().map(|n| (n, s.pos, lazy)));
                    }
                    for n in names {
                        let sub = if abs.is_empty() {
                            n.name.clone()
                        } else {
                            format!("{abs}.{}", n.name)
                        };
                        // `from pkg import mod` imports the submodule when there is one.
                        if n.name != "*"
                            && (rlib::is_rlib_module(&sub) || self.find_file(&sub).is_some())
                        {
                            out.push((sub, s.pos, lazy));
                        }
                    }
                }
                _ => {}
            }
        }
        for (pos, message) in bad {
            let d = self.diag(pos, message);
            self.diags.push(d);
        }
        out
    }

    fn find_file(&self, name: &str) -> Option<(PathBuf, String, bool)> {
        self.search.find_file(name)
    }

    /// What the module name `name` (imported at `pos`) refers to,
    /// loading it if it is one of the program's; the index of a program
    /// module.
    fn resolve(&mut self, name: &str, pos: Pos) -> Option<usize> {
        if let Some(kind) = self.set.kinds.get(name) {
            return match kind {
                ModuleKind::Program(i) => Some(*i),
                _ => None,
            };
        }
        if rlib::is_rlib_module(name) {
            self.set.kinds.insert(name.to_string(), ModuleKind::Rlib);
            return None;
        }
        let top = name.split('.').next().unwrap_or(name);
        if let Some((file, shown, is_package)) = self.find_file(name) {
            if let Some(part) =
                toolchain_part(name).filter(|_| !file.starts_with(PYLIB_DIR.as_path()))
            {
                // One message for the statement, not one per module the
                // toolchain's own code imports.
                if self.set.kinds.get(part.0) != Some(&ModuleKind::External) {
                    let what = if name == part.0 {
                        format!("'{name}' ({shown}) is the original toolchain's {}", part.1)
                    } else {
                        format!(
                            "'{name}' ({shown}) is in {}, the original toolchain's {}",
                            part.0, part.1
                        )
                    };
                    let message = format!(
                        "{what}, which rpy replaces: a translated program cannot import it (rpy's pylib/ stands in only for the toolchain modules programs import to configure the JIT, rpython.jit.codewriter.policy and rpython.jit.backend.hlinfo, the annotator's rpython.annotator.policy, and the GC's hooks, rpython.memory.gc.hook and the hook classes of rpython.memory.test.test_transformed_gc)"
                    );
                    let d = self.diag(pos, message);
                    self.diags.push(d);
                    self.set
                        .kinds
                        .insert(part.0.to_string(), ModuleKind::External);
                }
                self.set
                    .kinds
                    .insert(name.to_string(), ModuleKind::External);
                return None;
            }
            let bytes = match std::fs::read(&file) {
                Ok(b) => b,
                Err(e) => {
                    let d = self.diag(pos, format!("cannot read '{shown}': {e}"));
                    self.diags.push(d);
                    return None;
                }
            };
            let source = match read_source(&shown, &bytes) {
                Ok(text) => text,
                Err(d) => {
                    self.diags.push(d);
                    return None;
                }
            };
            let file = self.set.sources.next_id();
            let ast = match parse_module_in(file, &shown, &source, self.dialect) {
                Ok(m) => m,
                Err(d) => {
                    self.diags.extend(d.0);
                    return None;
                }
            };
            self.set.sources.add(shown.clone(), source);
            let index = self.set.modules.len();
            self.set.modules.push(LoadedModule {
                name: name.to_string(),
                path: shown,
                file,
                ast: Cow::Owned(ast),
                is_package,
            });
            self.set
                .kinds
                .insert(name.to_string(), ModuleKind::Program(index));
            return Some(index);
        }
        if stdmods::is_std_module(name) {
            for m in std::iter::once(&name).chain(stdmods::implied_modules(name)) {
                self.set.kinds.insert(m.to_string(), ModuleKind::External);
            }
            return None;
        }
        let rel = name.replace('.', "/");
        let provider = if top == "rpython" {
            format!(
                "rpy's own rpython package does not provide it (it knows the rlib modules {} by name, and its pylib/ has the rlib modules {}), and no folder searched holds it",
                rlib::MODULES.join(", "),
                pylib_rlib_modules().join(", ")
            )
        } else {
            format!(
                "it is not one of the standard modules rpy knows ({})",
                stdmods::MODULES.join(", ")
            )
        };
        let message = format!(
            "no module named '{name}': {provider}; looked for {rel}.py and {rel}/__init__.py in{}",
            self.search.describe()
        );
        let d = self.diag(pos, message);
        self.diags.push(d);
        // Recorded so that it is reported once.
        self.set
            .kinds
            .insert(name.to_string(), ModuleKind::External);
        None
    }
}

/// The packages of the original toolchain itself, with what they are: a
/// program that imports one of them (found in the original's tree, not
/// in pylib/) gets one message rather than the errors of the toolchain's
/// own imports (`inspect`, `types`, `contextlib`, ...).
const TOOLCHAIN_PACKAGES: &[(&str, &str)] = &[
    ("rpython.annotator", "annotator"),
    ("rpython.flowspace", "flow space"),
    ("rpython.rtyper", "rtyper"),
    ("rpython.translator", "translation driver and C backend"),
    (
        "rpython.memory",
        "garbage collectors, GC transformer and their tests",
    ),
    ("rpython.config", "translation options"),
    ("rpython.conftest", "test configuration"),
    ("rpython.jit.metainterp", "JIT (meta-interpreter)"),
    ("rpython.jit.codewriter", "JIT (codewriter)"),
    ("rpython.jit.backend", "JIT (machine-code backends)"),
    ("rpython.jit.tool", "JIT (tools)"),
];

/// The toolchain package `name` is in, if it is one of the toolchain's
/// modules. The original's programs are not: those of
/// `rpython.translator.goal` and `rpython.translator.test` (`rpystone`),
/// and the package `rpython.translator` read on the way to them.
fn toolchain_part(name: &str) -> Option<(&'static str, &'static str)> {
    let within = |package: &str| {
        name == package
            || name
                .strip_prefix(package)
                .is_some_and(|rest| rest.starts_with('.'))
    };
    if name == "rpython.translator"
        || within("rpython.translator.goal")
        || within("rpython.translator.test")
    {
        return None;
    }
    TOOLCHAIN_PACKAGES
        .iter()
        .copied()
        .find(|(package, _)| within(package))
}

/// pylib/, as a path `find_file`'s results can be compared with.
static PYLIB_DIR: std::sync::LazyLock<PathBuf> = std::sync::LazyLock::new(|| {
    Path::new(PYLIB)
        .canonicalize()
        .unwrap_or_else(|_| PathBuf::from(PYLIB))
});

/// The rlib modules rpy's pylib/ provides as Python files (`streamio`,
/// `unroll`, `rstring`, ...), in name order: what a message about a missing
/// `rpython.rlib` module lists beside the modules known by name.
fn pylib_rlib_modules() -> Vec<String> {
    let dir = Path::new(PYLIB).join("rpython/rlib");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter_map(|n| n.strip_suffix(".py").map(str::to_string))
                .filter(|n| n != "__init__" && !rlib::MODULES.contains(&n.as_str()))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

//! Shared by the integration tests: finding the test programs, running the
//! CPython oracles, and running rpy's outputs.

#![allow(dead_code)]

use rpy::pipeline::{Source, StageName};
use rpy_ir::ast::Dialect;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub mod random;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The CPython that is the oracle for `dialect`, if this machine has it.
/// `RPY_PYTHON2`, when set, is the only Python 2.7 tried (empty: none).
/// Looked for once per test binary; when it is missing, the run's output
/// says so then (see `report_missing`).
pub fn oracle(dialect: Dialect) -> Option<PathBuf> {
    static PY2: OnceLock<Option<PathBuf>> = OnceLock::new();
    static PY3: OnceLock<Option<PathBuf>> = OnceLock::new();
    let found = match dialect {
        Dialect::Py2 => &PY2,
        Dialect::Py3 => &PY3,
    };
    found
        .get_or_init(|| {
            let found = find_oracle(dialect);
            if found.is_none() {
                report_missing(dialect);
            }
            found
        })
        .clone()
}

fn find_oracle(dialect: Dialect) -> Option<PathBuf> {
    let candidates: Vec<PathBuf> = match (dialect, std::env::var_os("RPY_PYTHON2")) {
        (Dialect::Py2, Some(given)) => Some(PathBuf::from(given))
            .filter(|p| !p.as_os_str().is_empty())
            .into_iter()
            .collect(),
        (Dialect::Py2, None) => {
            let mut c = Vec::new();
            if let Some(home) = std::env::var_os("HOME") {
                c.push(Path::new(&home).join(".pyenv/versions/2.7.18/bin/python2.7"));
            }
            c.push("/root/.pyenv/versions/2.7.18/bin/python2.7".into());
            c.push("python2.7".into());
            c
        }
        (Dialect::Py3, _) => vec!["python3".into()],
    };
    candidates.into_iter().find(|p| {
        Command::new(p)
            .arg("-c")
            .arg("pass")
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    })
}

/// Says that the CPython comparisons of `dialect` are skipped. Written straight to the process's standard error,
/// which the test harness does not capture (it captures `eprintln!`), so
/// the note shows in the run's output next to its summary, not only in the
/// output of a failing test.
fn report_missing(dialect: Dialect) {
    use std::io::Write;
    let note = match dialect {
        Dialect::Py2 => "note: CPython 2.7 is not installed (~/.pyenv/versions/2.7.18/bin/python2.7): \
                         the Python 2 programs are not compared with CPython; README.md says how to install it\n",
        Dialect::Py3 => "note: python3 is not installed: the Python 3 programs are not compared with CPython\n",
    };
    let _ = std::io::stderr().lock().write_all(note.as_bytes());
}

/// A test program: its path, dialect (from its folder) and command-line arguments
/// (from its `# args:` line).
pub struct TestProgram {
    pub name: String,
    pub path: PathBuf,
    pub dialect: Dialect,
    pub args: Vec<String>,
    /// The last stage the program is expected to pass (`# until: STAGE`; all
    /// of them when absent): a program that uses what the front end reads
    /// before the later stages handle it is snapshotted and checked up to
    /// there, and the stages after it are tested once they catch up.
    pub until: StageName,
}

impl TestProgram {
    /// Is `stage` one this program is expected to pass?
    pub fn reaches(&self, stage: StageName) -> bool {
        stage <= self.until
    }
}

impl TestProgram {
    /// The program as the pipeline reads it, named by its path relative to
    /// the repository so that what is generated does not depend on where the
    /// checkout lives.
    pub fn source(&self) -> Source {
        let relative = self.path.strip_prefix(root()).unwrap_or(&self.path);
        Source {
            path: relative.to_string_lossy().into_owned(),
            text: std::fs::read_to_string(&self.path).unwrap(),
            dialect: self.dialect,
            gc: rpy_ir::llops::GcKind::default(),
            jit: false,
        }
    }

    /// The argv `entry_point` receives.
    pub fn argv(&self) -> Vec<String> {
        let mut argv = vec![self.path.to_string_lossy().into_owned()];
        argv.extend(self.args.iter().cloned());
        argv
    }
}

pub fn programs() -> Vec<TestProgram> {
    let mut out = Vec::new();
    for (dir, dialect) in [("py2", Dialect::Py2), ("py3", Dialect::Py3)] {
        let folder = root().join("tests/programs").join(dir);
        // A program is a `.py` file, or a folder of modules whose main
        // program is `main.py` (named by the folder).
        let mut files: Vec<(String, PathBuf)> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter_map(|p| {
                let stem = p.file_stem()?.to_string_lossy().into_owned();
                if p.extension().is_some_and(|e| e == "py") {
                    Some((stem, p))
                } else if p.join("main.py").is_file() {
                    Some((stem, p.join("main.py")))
                } else {
                    None
                }
            })
            .collect();
        files.sort();
        for (stem, path) in files {
            let text = std::fs::read_to_string(&path).unwrap();
            let args = text
                .lines()
                .find_map(|l| l.strip_prefix("# args:"))
                .map(|a| a.split_whitespace().map(String::from).collect())
                .unwrap_or_default();
            let until = text
                .lines()
                .find_map(|l| l.strip_prefix("# until:"))
                .map(|s| {
                    let s = s.trim();
                    StageName::chain()
                        .find(|st| st.name() == s)
                        .unwrap_or_else(|| {
                            panic!("{}: unknown stage '{s}' in '# until:'", path.display())
                        })
                })
                .unwrap_or(StageName::Genc);
            out.push(TestProgram {
                name: format!("{dir}_{stem}"),
                path,
                dialect,
                args,
                until,
            });
        }
    }
    out
}

/// Output and exit status of a command.
pub fn run(cmd: &mut Command) -> (String, i32) {
    let out = cmd.output().expect("cannot start the command");
    (text_of(out.stdout), out.status.code().unwrap_or(-1))
}

/// A program's output as text to compare: itself when it is UTF-8, else
/// (a Python 2 program writing bytes such as 0xe9) its bytes escaped after
/// a marker, so that the comparison stays exact.
pub fn text_of(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes)
        .unwrap_or_else(|e| format!("<not UTF-8> {}", e.as_bytes().escape_ascii()))
}

/// What CPython prints for the program, or `None` (with a printed reason)
/// when the oracle is missing.
pub fn expected(p: &TestProgram) -> Option<(String, i32)> {
    expected_with_args(p, &p.args)
}

/// What CPython prints for the program run with `args` instead of its own.
/// Each run is made once per test binary: several tests compare against
/// the same oracle.
pub fn expected_with_args(
    p: &TestProgram,
    args: &[impl AsRef<std::ffi::OsStr>],
) -> Option<(String, i32)> {
    type Runs = std::collections::HashMap<(PathBuf, Vec<std::ffi::OsString>), (String, i32)>;
    static RUNS: OnceLock<std::sync::Mutex<Runs>> = OnceLock::new();
    let Some(python) = oracle(p.dialect) else {
        eprintln!(
            "skipping the CPython comparison of {}: no {:?} interpreter on this machine",
            p.name, p.dialect
        );
        return None;
    };
    let key = (
        p.path.clone(),
        args.iter().map(|a| a.as_ref().to_os_string()).collect(),
    );
    let runs = RUNS.get_or_init(Default::default);
    if let Some(known) = runs.lock().unwrap().get(&key) {
        return Some(known.clone());
    }
    // pylib/ stands in for rpython.rlib, so programs that import it run
    // untranslated too.
    let got = run(Command::new(python)
        .env("PYTHONPATH", root().join("pylib"))
        // Importing a folder program's modules must not write .pyc files
        // into the test tree.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .arg(&p.path)
        .args(args));
    runs.lock().unwrap().insert(key, got.clone());
    Some(got)
}

/// Runs the program in the LLInterpreter.
pub fn interp(src: &Source, argv: &[String]) -> (String, i32) {
    let program = rpy::pipeline::lowlevel(src).unwrap_or_else(|d| panic!("{d}"));
    interp_lowlevel(&program, argv)
}

/// Runs a program already lowered in the LLInterpreter.
pub fn interp_lowlevel(
    program: &rpy_ir::graph::Program<rpy_ir::graph::LowLevel>,
    argv: &[String],
) -> (String, i32) {
    let mut out = Vec::new();
    // A fatal RPython error (an uncaught exception) ends the program with
    // status 1, as the executable does; an internal error is a bug.
    let status = match rpy_llinterp::LlInterpreter::new(program).run_entry(argv, &mut out) {
        Ok(status) => status,
        Err(e) if e.kind == rpy_llinterp::LlErrorKind::Fatal => 1,
        Err(e) => panic!("{}", e.message),
    };
    (text_of(out), status as i32)
}

/// A fresh folder under the system's temporary folder, removed with what
/// it holds when dropped (every test run used to leave its executables
/// behind: a thousand folders a run).
pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// `rpy-NAME-PID`, made empty.
    pub fn new(name: &str) -> ScratchDir {
        let dir = std::env::temp_dir().join(format!("rpy-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        ScratchDir(dir)
    }
}

impl std::ops::Deref for ScratchDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for ScratchDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for ScratchDir {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An executable rpy made, in a folder of its own that goes with it.
pub struct Executable {
    path: PathBuf,
    _dir: ScratchDir,
}

impl std::ops::Deref for Executable {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<std::ffi::OsStr> for Executable {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path.as_os_str()
    }
}

impl AsRef<Path> for Executable {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

/// Translates the program into an executable in a fresh temporary folder.
pub fn build(src: &Source, name: &str) -> Executable {
    let dir = ScratchDir::new(&format!("test-{name}"));
    let path = dir.join(name);
    rpy::cli::translate(src, &path, &mut Default::default()).unwrap_or_else(|d| panic!("{d}"));
    Executable { path, _dir: dir }
}

/// What every program of `source_matches_cpython` ends with: its
/// `target`, and the call CPython runs.
const ENTRY_POINT_TAIL: &str = "

def target(*args):
    return entry_point


if __name__ == '__main__':
    import sys
    sys.exit(entry_point(sys.argv))
";

/// Translates the program `body` (which defines `entry_point(argv)`;
/// written to a scratch file named `name`, with `target` and the main
/// call added) in each dialect whose CPython is here, runs it in the
/// LLInterpreter and checks that it prints, line by line, what CPython
/// prints.
#[allow(dead_code)]
pub fn source_matches_cpython(name: &str, body: &str) {
    let text = &format!("{body}{ENTRY_POINT_TAIL}");
    let dir = ScratchDir::new(name);
    let path = dir.join(format!("{name}.py"));
    std::fs::write(&path, text).unwrap();
    for dialect in [Dialect::Py3, Dialect::Py2] {
        let Some(python) = oracle(dialect) else {
            continue;
        };
        let want = run(Command::new(python)
            .env("PYTHONPATH", root().join("pylib"))
            .arg(&path))
        .0;
        let src = Source {
            path: path.display().to_string(),
            text: text.to_string(),
            dialect,
            gc: rpy_ir::llops::GcKind::default(),
            jit: false,
        };
        let program = rpy::pipeline::lowlevel(&src).unwrap_or_else(|d| panic!("{dialect:?}: {d}"));
        let mut out = Vec::new();
        let status = rpy_llinterp::LlInterpreter::new(&program)
            .run_entry(std::slice::from_ref(&src.path), &mut out)
            .unwrap_or_else(|e| panic!("{dialect:?}: {}", e.message));
        assert_eq!(status, 0);
        let got = String::from_utf8(out).unwrap();
        for (i, (line, expected)) in got.lines().zip(want.lines()).enumerate() {
            assert_eq!(line, expected, "{dialect:?}, line {} of the output", i + 1);
        }
        assert_eq!(got.lines().count(), want.lines().count(), "{dialect:?}");
    }
}

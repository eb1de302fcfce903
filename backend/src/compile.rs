//! Running the C compiler.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn unique_suffix() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(
        "{}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        nanos
    )
}

/// Removes a directory and the temporary executable built from it when
/// dropped (the executable is gone by then when it was moved into place),
/// and when rpy is killed by SIGINT, SIGTERM or SIGHUP while they exist
/// (`killed_cleanup`).
struct TempDir {
    path: PathBuf,
    output: PathBuf,
    /// Its entry in the table the signal handler cleans up from.
    slot: Option<usize>,
}

impl TempDir {
    /// Creates the folder `path`, which will hold the files `files` and
    /// the (temporary) executable `output`, all removed on a signal.
    fn create(path: PathBuf, files: &[&str], output: &Path) -> Result<TempDir, String> {
        std::fs::create_dir_all(&path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let mut removed: Vec<PathBuf> = files.iter().map(|f| path.join(f)).collect();
        removed.push(output.to_path_buf());
        let slot = killed_cleanup::register(&removed, &path);
        Ok(TempDir {
            path,
            output: output.to_path_buf(),
            slot,
        })
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Some(slot) = self.slot {
            killed_cleanup::unregister(slot);
        }
        let _ = std::fs::remove_dir_all(&self.path);
        let _ = std::fs::remove_file(&self.output);
    }
}

/// Cleaning up after a kill: a killed process runs no destructors, so the
/// temporary folders of the compiles under way are listed where a signal
/// handler can find them, and the handler removes them and then dies of
/// the signal as it would have (its exit status still says "killed").
///
/// A handler may only call async-signal-safe functions: it reads the paths
/// from a fixed table of atomics (no lock), as NUL-separated C strings made
/// beforehand, and calls `unlink` and `rmdir`. The strings are never freed:
/// a handler running on another thread might be reading one (a few hundred
/// bytes per compile).
mod killed_cleanup {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicI32, AtomicPtr, Ordering};
    use std::sync::Once;

    /// How many compiles at once can be cleaned up; one more is compiled
    /// without (it is still cleaned up when it ends normally).
    const SLOTS: usize = 64;

    /// Per compile under way: its files, then its folder, each ended by a
    /// NUL, the list ended by an empty string.
    static PENDING: [AtomicPtr<u8>; SLOTS] =
        [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

    const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

    pub fn register(files: &[PathBuf], folder: &Path) -> Option<usize> {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(install_handlers);
        let mut list = Vec::new();
        for p in files.iter().map(PathBuf::as_path).chain([folder]) {
            let c = CString::new(p.as_os_str().as_bytes()).ok()?;
            list.extend_from_slice(c.as_bytes_with_nul());
        }
        list.push(0);
        let raw = Box::leak(list.into_boxed_slice()).as_mut_ptr();
        PENDING.iter().position(|slot| {
            slot.compare_exchange(
                std::ptr::null_mut(),
                raw,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
        })
    }

    /// The process groups of the C compilers running (several per compile
    /// when its units are compiled in parallel), 0 in a free entry. A
    /// compiler is killed before the files are removed: left running, it
    /// would write its output after the removal.
    static COMPILERS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

    pub fn unregister(slot: usize) {
        PENDING[slot].store(std::ptr::null_mut(), Ordering::SeqCst);
    }

    /// Records a running C compiler: `pid` leads its own process group (it
    /// and the programs it starts: cc1, as, ld). `None` when the table is
    /// full (that compiler is not killed on a signal).
    pub fn add_compiler(pid: u32) -> Option<usize> {
        COMPILERS.iter().position(|c| {
            c.compare_exchange(0, pid as i32, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        })
    }

    /// Forgets the compiler `add_compiler` recorded in `entry`, once it ended.
    pub fn remove_compiler(entry: usize) {
        COMPILERS[entry].store(0, Ordering::SeqCst);
    }

    fn install_handlers() {
        for sig in SIGNALS {
            // SAFETY: sigaction with a zeroed struct and a handler of the
            // right signature; a signal the user set to be ignored (nohup)
            // stays ignored.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &mut old) == 0
                    && old.sa_sigaction == libc::SIG_IGN
                {
                    continue;
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as *const () as usize;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(sig, &action, std::ptr::null_mut());
            }
        }
    }

    extern "C" fn on_signal(sig: libc::c_int) {
        for compiler in &COMPILERS {
            let pid = compiler.swap(0, Ordering::SeqCst);
            if pid > 0 {
                // SAFETY: kill and waitpid are async-signal-safe. SIGTERM
                // lets the compiler driver remove its own temporary files;
                // waiting makes sure it writes nothing after the removal below.
                unsafe {
                    libc::kill(-pid, libc::SIGTERM);
                    libc::waitpid(pid, std::ptr::null_mut(), 0);
                }
            }
        }
        for slot in &PENDING {
            let list = slot.swap(std::ptr::null_mut(), Ordering::SeqCst);
            if list.is_null() {
                continue;
            }
            // SAFETY: `list` is a leaked, never freed list as `register`
            // made it; unlink and rmdir are async-signal-safe.
            unsafe {
                let mut p = list as *const libc::c_char;
                let mut last = p;
                while *p != 0 {
                    libc::unlink(p);
                    last = p;
                    p = p.add(libc::strlen(p) + 1);
                }
                // the folder is the last entry; unlink failed on it
                libc::rmdir(last);
            }
        }
        // SAFETY: back to the default action, then die of the signal.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
    }
}

/// Compiles one C file (as `generate_c` makes it) into the executable
/// `output`. The C goes to a fresh temporary directory; the compiler is `cc`,
/// or `$CC` (which may carry flags: "gcc -m64"); `opt_level` is passed as is
/// ("-O2"; empty for none); C type mismatches are errors. The executable is
/// built under a temporary name next to `output` and renamed into place, so
/// `output` is never a partly written file; when the build fails, an older
/// `output` is removed rather than left to be mistaken for the result. `Err`
/// holds the compiler's output.
pub fn compile_c(c_source: &str, output: &Path, opt_level: &str) -> Result<(), String> {
    compile_c_linking(c_source, output, opt_level, &[])
}

/// [`compile_c`], linking the executable with `link` too (libraries, as
/// the JIT's runtime: paths or `-l` flags, after the program).
pub fn compile_c_linking(
    c_source: &str,
    output: &Path,
    opt_level: &str,
    link: &[String],
) -> Result<(), String> {
    let sources = [("program.c".to_string(), c_source.to_string())];
    // C of unknown origin may use a struct through another's pointer.
    build(
        &sources,
        output,
        &CcOptions {
            opt_level,
            strict_aliasing: false,
        },
        link,
        1,
    )
}

/// How much C (bytes) a translation unit holds at least, when a program
/// is compiled in several. Splitting costs twice: each unit reads the
/// common header (the types, the declarations) again, and a call from one
/// unit to another cannot be inlined by the C compiler. With 48 KB units,
/// targetrpystonedalone's 295 KB of C compiled in 1.76 s on two cores
/// against 1.38 s in one unit, and ran pystone in 0.263 s against 0.227
/// (`Task.runTask`, called once, stayed a call); so only programs of
/// several megabytes are split.
const UNIT_BYTES: usize = 1024 * 1024;

/// How many C compilers run at once by default: `$RPY_CC_JOBS`, else the
/// number of processors.
pub fn default_jobs() -> usize {
    positive_env("RPY_CC_JOBS")
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The positive number the environment variable `name` holds, if it does.
fn positive_env(name: &str) -> Option<usize> {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .filter(|n| *n > 0)
}

/// Compiles a generated program into the executable `output` as
/// [`compile_c_linking`] does, in up to `jobs` translation units compiled
/// in parallel (`cc -c` each) and then linked: `$RPY_CC_UNITS` of them
/// when set, else as many as there are [`UNIT_BYTES`] of C, at most
/// `jobs`; one unit is the one C file.
pub fn compile_program(
    c: &crate::GeneratedC,
    output: &Path,
    opt_level: &str,
    link: &[String],
    jobs: usize,
) -> Result<(), String> {
    let n = positive_env("RPY_CC_UNITS")
        .unwrap_or_else(|| c.size().div_ceil(UNIT_BYTES).clamp(1, jobs.max(1)));
    compile_units(c, n, output, opt_level, link, jobs)
}

/// [`compile_program`] in exactly `n` units (one: the one C file).
pub fn compile_units(
    c: &crate::GeneratedC,
    n: usize,
    output: &Path,
    opt_level: &str,
    link: &[String],
    jobs: usize,
) -> Result<(), String> {
    let options = CcOptions {
        opt_level,
        strict_aliasing: c.strict_aliasing(),
    };
    let sources = if n <= 1 {
        vec![("program.c".to_string(), c.single_file())]
    } else {
        c.units(n)
    };
    build(&sources, output, &options, link, jobs)
}

/// The options of one build's compiles: the optimization level as given
/// ("-O2"; empty for none) and the aliasing rule.
struct CcOptions<'a> {
    opt_level: &'a str,
    strict_aliasing: bool,
}

/// The C compiler's command, with the options every compile takes.
fn cc_command(options: &CcOptions) -> (String, Command) {
    let cc = std::env::var("CC").unwrap_or_default();
    let mut words = cc.split_whitespace();
    let program = words.next().unwrap_or("cc").to_string();
    let mut cmd = Command::new(&program);
    cmd.args(words);
    if !options.opt_level.is_empty() {
        cmd.arg(options.opt_level);
    }
    // An instance is used through pointers to its class's struct and to
    // its bases' (`cast_pointer` changes only the view). GenC reaches each
    // field through one struct whatever the view (`aliasing`), which keeps
    // C's strict aliasing rule sound, as PyPy's builds keep it on; a
    // program with a view GenC cannot cover that way is compiled without
    // the rule, as is C that GenC did not make.
    if options.strict_aliasing {
        cmd.arg("-fstrict-aliasing");
    } else {
        cmd.arg("-fno-strict-aliasing");
    }
    // A type mismatch in the generated C is a bug of an earlier stage: fail
    // instead of building a program that misbehaves.
    cmd.args([
        "-Werror=int-conversion",
        "-Werror=incompatible-pointer-types",
        "-Werror=implicit-function-declaration",
    ]);
    (program, cmd)
}

/// Runs one C compiler to its end, in a process group of its own so that
/// on a signal rpy can kill it with the programs it started
/// (`killed_cleanup`); `Err` says why it failed, with its output.
fn run_cc(program: &str, mut cmd: Command) -> Result<(), String> {
    cmd.process_group(0);
    let result = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|child| {
            let entry = killed_cleanup::add_compiler(child.id());
            let out = child.wait_with_output();
            if let Some(entry) = entry {
                killed_cleanup::remove_compiler(entry);
            }
            out
        });
    let out = result.map_err(|e| format!("cannot run the C compiler '{program}': {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "the C compiler failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        ));
    }
    Ok(())
}

/// Writes `sources` (file name, text) with the runtime's two files into a
/// fresh temporary folder, compiles its `.c` files (one: with the link;
/// several: `cc -c` each, up to `jobs` at once, then the link) and moves
/// the executable into place at `output` (see [`compile_c`]).
fn build(
    sources: &[(String, String)],
    output: &Path,
    options: &CcOptions,
    link: &[String],
    jobs: usize,
) -> Result<(), String> {
    let suffix = unique_suffix();
    let file_name = output
        .file_name()
        .ok_or_else(|| format!("{} is not a file path", output.display()))?
        .to_string_lossy()
        .into_owned();
    let tmp_out = output.with_file_name(format!(".{file_name}.rpy-tmp-{suffix}"));
    let mut files: Vec<(String, &str)> = sources
        .iter()
        .map(|(name, text)| (name.clone(), text.as_str()))
        .collect();
    files.push((crate::RUNTIME_H_NAME.into(), crate::RUNTIME_H));
    files.push((crate::RUNTIME_C_NAME.into(), crate::RUNTIME_C));
    let units: Vec<&str> = sources
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| name.ends_with(".c"))
        .collect();
    let objects: Vec<String> = units
        .iter()
        .map(|name| format!("{}.o", name.trim_end_matches(".c")))
        .collect();
    let mut removed: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    if units.len() > 1 {
        removed.extend(objects.iter().map(String::as_str));
    }
    let dir = TempDir::create(
        std::env::temp_dir().join(format!("rpy-genc-{suffix}")),
        &removed,
        &tmp_out,
    )?;
    for (name, text) in &files {
        let file = dir.path.join(name);
        std::fs::write(&file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }

    let result = if let [unit] = units[..] {
        let (program, mut cmd) = cc_command(options);
        cmd.arg("-o")
            .arg(&tmp_out)
            .arg(dir.path.join(unit))
            .args(link)
            .arg("-lm");
        run_cc(&program, cmd)
    } else {
        compile_in_parallel(&dir.path, &units, &objects, options, jobs).and_then(|()| {
            let (program, mut cmd) = cc_command(options);
            cmd.arg("-o").arg(&tmp_out);
            cmd.args(objects.iter().map(|o| dir.path.join(o)));
            cmd.args(link).arg("-lm");
            run_cc(&program, cmd)
        })
    };
    if let Err(e) = result {
        let _ = std::fs::remove_file(output);
        return Err(e);
    }
    if let Err(e) = std::fs::rename(&tmp_out, output) {
        return Err(format!(
            "cannot move the executable to {}: {e}",
            output.display()
        ));
    }
    Ok(())
}

/// `cc -c` of each of `units` in `dir` into its `objects` entry, up to
/// `jobs` at once; after a failure no other starts. `Err` holds every
/// failed compile's output, in the units' order.
fn compile_in_parallel(
    dir: &Path,
    units: &[&str],
    objects: &[String],
    options: &CcOptions,
    jobs: usize,
) -> Result<(), String> {
    let next = AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let results: Vec<std::sync::Mutex<Option<Result<(), String>>>> =
        units.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, units.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= units.len() || failed.load(Ordering::SeqCst) {
                    break;
                }
                let (program, mut cmd) = cc_command(options);
                cmd.arg("-c")
                    .arg("-o")
                    .arg(dir.join(&objects[i]))
                    .arg(dir.join(units[i]));
                let r = run_cc(&program, cmd);
                if r.is_err() {
                    failed.store(true, Ordering::SeqCst);
                }
                if let Ok(mut slot) = results[i].lock() {
                    *slot = Some(r);
                }
            });
        }
    });
    let errors: Vec<String> = results
        .into_iter()
        .filter_map(|r| r.into_inner().ok().flatten())
        .filter_map(Result::err)
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

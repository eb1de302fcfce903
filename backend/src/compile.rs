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

    /// Per compile under way: the process group of its C compiler, 0
    /// while none runs. The compiler is killed before the files are
    /// removed: left running, it would write its output after the removal.
    static COMPILERS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

    pub fn unregister(slot: usize) {
        COMPILERS[slot].store(0, Ordering::SeqCst);
        PENDING[slot].store(std::ptr::null_mut(), Ordering::SeqCst);
    }

    /// Records the C compiler of the compile in `slot`: `pid` leads its own
    /// process group (it and the programs it starts: cc1, as, ld); 0 once
    /// it has ended.
    pub fn set_compiler(slot: usize, pid: u32) {
        COMPILERS[slot].store(pid as i32, Ordering::SeqCst);
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
    let suffix = unique_suffix();
    let file_name = output
        .file_name()
        .ok_or_else(|| format!("{} is not a file path", output.display()))?
        .to_string_lossy()
        .into_owned();
    let tmp_out = output.with_file_name(format!(".{file_name}.rpy-tmp-{suffix}"));
    let sources = [
        ("program.c", c_source),
        (crate::RUNTIME_H_NAME, crate::RUNTIME_H),
        (crate::RUNTIME_C_NAME, crate::RUNTIME_C),
    ];
    let dir = TempDir::create(
        std::env::temp_dir().join(format!("rpy-genc-{suffix}")),
        &sources.map(|(name, _)| name),
        &tmp_out,
    )?;
    let c_file = dir.path.join("program.c");
    for (name, text) in sources {
        let file = dir.path.join(name);
        std::fs::write(&file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }

    let cc = std::env::var("CC").unwrap_or_default();
    let mut words = cc.split_whitespace();
    let program = words.next().unwrap_or("cc").to_string();
    let mut cmd = Command::new(&program);
    cmd.args(words);
    if !opt_level.is_empty() {
        cmd.arg(opt_level);
    }
    // A type mismatch in the generated C is a bug of an earlier stage: fail
    // instead of building a program that misbehaves.
    // An instance is used through pointers to its class's struct and to
    // its bases' (`cast_pointer` changes only the view), which C's
    // strict aliasing rule forbids: without this, -O2 reorders a store
    // through one view past a load through the other (as PyPy's and
    // CPython's builds, turn the rule off).
    cmd.arg("-fno-strict-aliasing");
    cmd.args([
        "-Werror=int-conversion",
        "-Werror=incompatible-pointer-types",
        "-Werror=implicit-function-declaration",
    ]);
    cmd.arg("-o")
        .arg(&tmp_out)
        .arg(&c_file)
        .args(link)
        .arg("-lm");
    // A process group of its own, so that on a signal rpy can kill the
    // compiler with the programs it started (`killed_cleanup`).
    cmd.process_group(0);
    let result = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|child| {
            if let Some(slot) = dir.slot {
                killed_cleanup::set_compiler(slot, child.id());
            }
            let out = child.wait_with_output();
            if let Some(slot) = dir.slot {
                killed_cleanup::set_compiler(slot, 0);
            }
            out
        });
    let out = match result {
        Ok(out) => out,
        Err(e) => {
            let _ = std::fs::remove_file(output);
            return Err(format!("cannot run the C compiler '{program}': {e}"));
        }
    };
    if !out.status.success() {
        let _ = std::fs::remove_file(output);
        return Err(format!(
            "the C compiler failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        ));
    }
    if let Err(e) = std::fs::rename(&tmp_out, output) {
        return Err(format!(
            "cannot move the executable to {}: {e}",
            output.display()
        ));
    }
    Ok(())
}

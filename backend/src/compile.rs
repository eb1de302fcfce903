//! Running the C compiler.

use std::path::{Path, PathBuf};
use std::process::Command;
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

/// Removes a directory when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
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
    let suffix = unique_suffix();
    let dir = TempDir(std::env::temp_dir().join(format!("rpy-genc-{suffix}")));
    std::fs::create_dir_all(&dir.0)
        .map_err(|e| format!("cannot create {}: {e}", dir.0.display()))?;
    let c_file = dir.0.join("program.c");
    for (name, text) in [
        ("program.c", c_source),
        (crate::RUNTIME_H_NAME, crate::RUNTIME_H),
        (crate::RUNTIME_C_NAME, crate::RUNTIME_C),
    ] {
        let file = dir.0.join(name);
        std::fs::write(&file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }

    let file_name = output
        .file_name()
        .ok_or_else(|| format!("{} is not a file path", output.display()))?
        .to_string_lossy()
        .into_owned();
    let tmp_out = output.with_file_name(format!(".{file_name}.rpy-tmp-{suffix}"));

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
    cmd.args([
        "-Werror=int-conversion",
        "-Werror=incompatible-pointer-types",
        "-Werror=implicit-function-declaration",
    ]);
    cmd.arg("-o").arg(&tmp_out).arg(&c_file).arg("-lm");
    let result = cmd.output();
    let out = match result {
        Ok(out) => out,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp_out);
            let _ = std::fs::remove_file(output);
            return Err(format!("cannot run the C compiler '{program}': {e}"));
        }
    };
    if !out.status.success() {
        let _ = std::fs::remove_file(&tmp_out);
        let _ = std::fs::remove_file(output);
        return Err(format!(
            "the C compiler failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        ));
    }
    if let Err(e) = std::fs::rename(&tmp_out, output) {
        let _ = std::fs::remove_file(&tmp_out);
        return Err(format!(
            "cannot move the executable to {}: {e}",
            output.display()
        ));
    }
    Ok(())
}

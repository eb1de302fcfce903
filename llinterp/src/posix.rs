//! The system calls of the `os` and `time` modules, as the C runtime makes
//! them (`rpy_os_*`, `rpy_time_*`): the object interpreter and the
//! LLInterpreter make the same ones, so that a program does the same I/O
//! however it runs. An error is the call's errno.

use std::ffi::CString;

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

fn c_string(s: &[u8]) -> Result<CString, i32> {
    CString::new(s).map_err(|_| libc::EINVAL)
}

/// `os.write(fd, s)`: the count written.
pub fn write(fd: i64, s: &[u8]) -> Result<i64, i32> {
    // SAFETY: the buffer is valid for its length.
    let n = unsafe { libc::write(fd as i32, s.as_ptr().cast(), s.len()) };
    if n < 0 {
        Err(errno())
    } else {
        Ok(n as i64)
    }
}

/// `os.read(fd, n)`: at most `n` bytes.
pub fn read(fd: i64, n: i64) -> Result<Vec<u8>, i32> {
    if n < 0 {
        return Err(libc::EINVAL);
    }
    let mut buf = vec![0u8; n as usize];
    // SAFETY: the buffer is valid for its length.
    let got = unsafe { libc::read(fd as i32, buf.as_mut_ptr().cast(), buf.len()) };
    if got < 0 {
        return Err(errno());
    }
    buf.truncate(got as usize);
    Ok(buf)
}

/// `os.open(path, flags, mode)`: a file descriptor.
pub fn open(path: &[u8], flags: i64, mode: i64) -> Result<i64, i32> {
    let p = c_string(path)?;
    // SAFETY: a NUL-terminated path.
    let fd = unsafe { libc::open(p.as_ptr(), flags as i32, mode as libc::c_uint) };
    if fd < 0 {
        Err(errno())
    } else {
        Ok(fd as i64)
    }
}

/// `os.close(fd)`.
pub fn close(fd: i64) -> Result<(), i32> {
    // SAFETY: closing a descriptor number is safe whatever it is.
    if unsafe { libc::close(fd as i32) } < 0 {
        Err(errno())
    } else {
        Ok(())
    }
}

/// `os.lseek(fd, offset, whence)`: the new position.
pub fn lseek(fd: i64, offset: i64, whence: i64) -> Result<i64, i32> {
    // SAFETY: plain system call.
    let r = unsafe { libc::lseek(fd as i32, offset, whence as i32) };
    if r < 0 {
        Err(errno())
    } else {
        Ok(r)
    }
}

/// `os.unlink(path)`.
pub fn unlink(path: &[u8]) -> Result<(), i32> {
    let p = c_string(path)?;
    // SAFETY: a NUL-terminated path.
    if unsafe { libc::unlink(p.as_ptr()) } < 0 {
        Err(errno())
    } else {
        Ok(())
    }
}

/// `os.getenv(name)`.
pub fn getenv(name: &[u8]) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    std::env::var_os(std::ffi::OsStr::from_bytes(name)).map(|v| v.as_bytes().to_vec())
}

/// `os.isatty(fd)`.
pub fn isatty(fd: i64) -> bool {
    // SAFETY: plain call.
    unsafe { libc::isatty(fd as i32) == 1 }
}

/// `os.getpid()`.
pub fn getpid() -> i64 {
    std::process::id() as i64
}

/// `os.strerror(code)`, as C's strerror writes it.
pub fn strerror(code: i64) -> Vec<u8> {
    // SAFETY: strerror returns a NUL-terminated static or thread-local string.
    unsafe {
        let p = libc::strerror(code as i32);
        std::ffi::CStr::from_ptr(p).to_bytes().to_vec()
    }
}

/// What `os.stat(path)` says of the mode: `Some(is_dir)` when it exists.
pub fn stat_is_dir(path: &[u8]) -> Option<bool> {
    use std::os::unix::ffi::OsStrExt;
    std::fs::metadata(std::ffi::OsStr::from_bytes(path))
        .ok()
        .map(|m| m.is_dir())
}

fn clock_seconds(clock: libc::clockid_t) -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec to fill.
    unsafe { libc::clock_gettime(clock, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// `time.time()`: seconds since the epoch.
pub fn time() -> f64 {
    clock_seconds(libc::CLOCK_REALTIME)
}

/// `time.clock()` (Python 2) and `time.process_time()`: the process's CPU time.
pub fn process_time() -> f64 {
    clock_seconds(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// `time.perf_counter()` and `time.monotonic()`.
pub fn monotonic() -> f64 {
    clock_seconds(libc::CLOCK_MONOTONIC)
}

/// `time.sleep(seconds)`.
pub fn sleep(seconds: f64) {
    if seconds > 0.0 && seconds.is_finite() {
        std::thread::sleep(std::time::Duration::from_secs_f64(seconds));
    }
}

/// The message of OSError for errno `code`, as CPython's `str(e)` shows
/// it (`[Errno 2] No such file or directory`).
pub fn os_error_message(code: i32) -> String {
    format!(
        "[Errno {code}] {}",
        String::from_utf8_lossy(&strerror(code as i64))
    )
}

/// `os.path.join(a, b, ...)` as posixpath does it.
pub fn path_join(parts: &[&[u8]]) -> Vec<u8> {
    let mut out: Vec<u8> = parts.first().map(|p| p.to_vec()).unwrap_or_default();
    for p in &parts[1..] {
        if p.starts_with(b"/") {
            out = p.to_vec();
        } else if out.is_empty() || out.ends_with(b"/") {
            out.extend_from_slice(p);
        } else {
            out.push(b'/');
            out.extend_from_slice(p);
        }
    }
    out
}

/// `os.path.dirname(p)` as posixpath does it.
pub fn path_dirname(p: &[u8]) -> Vec<u8> {
    let cut = p.iter().rposition(|&c| c == b'/').map_or(0, |i| i + 1);
    let head = &p[..cut];
    if !head.is_empty() && head.iter().any(|&c| c != b'/') {
        let end = head.iter().rposition(|&c| c != b'/').map_or(0, |i| i + 1);
        head[..end].to_vec()
    } else {
        head.to_vec()
    }
}

/// `os.path.basename(p)` as posixpath does it.
pub fn path_basename(p: &[u8]) -> Vec<u8> {
    let cut = p.iter().rposition(|&c| c == b'/').map_or(0, |i| i + 1);
    p[cut..].to_vec()
}

/// `os.path.abspath(p)` as posixpath does it: joined to the current
/// folder when relative, then normalized (`.`, `..` and repeated slashes
/// taken out) without looking at the file system.
pub fn path_abspath(p: &[u8]) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let absolute = if p.starts_with(b"/") {
        p.to_vec()
    } else {
        let cwd = std::env::current_dir().unwrap_or_default();
        path_join(&[cwd.as_os_str().as_bytes(), p])
    };
    let mut parts: Vec<&[u8]> = Vec::new();
    for part in absolute.split(|&c| c == b'/') {
        match part {
            b"" | b"." => {}
            b".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    let mut out = Vec::new();
    for part in &parts {
        out.push(b'/');
        out.extend_from_slice(part);
    }
    if out.is_empty() {
        out.push(b'/');
    }
    out
}

/// `os.path.realpath(p)`: the path with its symbolic links resolved, or,
/// for a path that does not exist, its `abspath` (posixpath resolves the
/// part that exists; the rest is kept as written).
pub fn path_realpath(p: &[u8]) -> Vec<u8> {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let absolute = path_abspath(p);
    match std::fs::canonicalize(std::ffi::OsStr::from_bytes(&absolute)) {
        Ok(real) => real.into_os_string().into_vec(),
        Err(_) => absolute,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_and_join_as_posixpath_does() {
        assert_eq!(path_join(&[b"a", b"b", b"c"]), b"a/b/c");
        assert_eq!(path_join(&[b"a/", b"/b"]), b"/b");
        assert_eq!(path_join(&[b"", b"b"]), b"b");
        assert_eq!(path_dirname(b"/x/y/z.py"), b"/x/y");
        assert_eq!(path_dirname(b"/x//z"), b"/x");
        assert_eq!(path_dirname(b"//z"), b"//");
        assert_eq!(path_dirname(b"z"), b"");
        assert_eq!(path_basename(b"/x/y/z.py"), b"z.py");
        assert_eq!(path_basename(b"/x/"), b"");
    }

    #[test]
    fn os_errors_read_as_cpython_writes_them() {
        assert_eq!(
            os_error_message(libc::ENOENT),
            "[Errno 2] No such file or directory"
        );
        assert_eq!(open(b"/nonexistent/rpy", 0, 0), Err(libc::ENOENT));
    }
}

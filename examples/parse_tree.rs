//! Parses every `.py` file below a folder (dialect detected per file) and
//! reports how many parsed and which did not: the check that the front end
//! reads a large real RPython code base.
//!
//!     cargo run --release --example parse_tree -- path/to/rpython

use std::path::{Path, PathBuf};
use std::time::Instant;

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "py") {
            out.push(p);
        }
    }
}

fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: parse_tree DIR");
        std::process::exit(2);
    };
    let mut files = Vec::new();
    collect(Path::new(&dir), &mut files);
    files.sort();
    let (mut ok, mut failed, mut lines) = (0, 0, 0);
    let start = Instant::now();
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        let text = rpy_passes::parse::decode_source(&bytes);
        lines += text.lines().count();
        let dialect = rpy_passes::parse::detect_dialect(&text);
        match rpy_passes::parse::parse_module(&f.to_string_lossy(), &text, dialect) {
            Ok(_) => ok += 1,
            Err(d) => {
                failed += 1;
                eprintln!("{}", d.0[0]);
            }
        }
    }
    println!(
        "{ok} of {} files parsed ({failed} failed), {lines} lines in {:.0} ms",
        files.len(),
        start.elapsed().as_secs_f64() * 1e3
    );
}

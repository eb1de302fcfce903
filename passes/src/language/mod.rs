//! Facts of the Python language and of RPython's libraries that the flow
//! builder, the annotator, the rtyper and the object interpreter all rely
//! on: the builtin exception classes, the special names, the builtin types'
//! methods, what each operation raises, the hints graphs carry, the
//! builtins of import-time graphs, rlib's untranslated calls and
//! `JitDriver`'s parameters, the standard modules.
//!
//! They sit below both `flow` and `objinterp` and import neither. The
//! flow stage runs the object interpreter at import time, so `flow`
//! depends on `objinterp`; if the interpreter took its facts from `flow`
//! the two would import each other, and the oracle that checks the flow
//! builder would be reading the builder's code. A test below keeps it so.

pub mod builtins;
pub mod exceptions;
pub mod hints;
pub mod import_time_builtins;
pub mod raises;
pub mod rlib;
pub mod special_names;
pub mod stdmods;

#[cfg(test)]
mod layering {
    use std::path::{Path, PathBuf};

    fn rust_files(dir: &Path) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|entry| entry.expect("a directory entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .collect();
        files.sort();
        files
    }

    /// Each `file:line: text` of `files` that names the crate's `module`.
    fn imports_of(files: &[PathBuf], module: &str) -> Vec<String> {
        let needle = format!("crate::{module}");
        files
            .iter()
            .flat_map(|path| {
                let text = std::fs::read_to_string(path)
                    .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
                text.lines()
                    .enumerate()
                    .filter(|(_, line)| line.contains(&needle))
                    .map(|(i, line)| format!("{}:{}: {}", path.display(), i + 1, line.trim()))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    fn source_dir(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(name)
    }

    #[test]
    fn the_object_interpreter_does_not_import_the_flow_stage() {
        // Its tests may build flow graphs to run: they are not the circle.
        let files: Vec<PathBuf> = rust_files(&source_dir("objinterp"))
            .into_iter()
            .filter(|p| !p.ends_with("tests.rs"))
            .collect();
        let found = imports_of(&files, "flow");
        assert!(
            found.is_empty(),
            "objinterp imports flow (move the fact to crate::language):\n{}",
            found.join("\n")
        );
    }

    #[test]
    fn the_language_facts_import_neither_flow_nor_the_object_interpreter() {
        let files = rust_files(&source_dir("language"));
        let found: Vec<String> = ["flow", "objinterp"]
            .iter()
            .flat_map(|module| imports_of(&files, module))
            .collect();
        assert!(
            found.is_empty(),
            "crate::language must stay below flow and objinterp:\n{}",
            found.join("\n")
        );
    }
}

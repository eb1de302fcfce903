fn main() {
    build_rules();
}

/// Compiles `../rules/{annotate,rtype,opt}/*.rules` with rpy-rulec into
/// `$OUT_DIR/rules_*.rs` (included by `src/lib.rs`). A bad rule fails the
/// build with `file:line: message`.
fn build_rules() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = std::path::Path::new(&manifest).join("../rules");
    // Once a build script names any path, cargo reruns it only for the named
    // ones: the rules and this file.
    println!("cargo:rerun-if-changed={}", dir.display());
    println!("cargo:rerun-if-changed=build.rs");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    match rpy_rulec::compile_dir(&dir) {
        Ok(generated) => {
            for (name, text) in generated.files() {
                std::fs::write(std::path::Path::new(&out_dir).join(name), text)
                    .expect("cannot write the generated rules");
            }
        }
        Err(errors) => {
            for e in &errors {
                eprintln!("error: {e}");
            }
            eprintln!("{} bad rule(s) in rules/", errors.len());
            std::process::exit(1);
        }
    }
}

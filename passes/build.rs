fn main() {
    build_parser();
}

/// Generates the RPython parser from `src/parse/*.lalrpop` into
/// `$OUT_DIR/parse/` (included by `src/parse/mod.rs`).
fn build_parser() {
    // Once a build script names any path, cargo reruns it only for the named
    // ones: the parser grammar and this file.
    println!("cargo:rerun-if-changed=src/parse");
    println!("cargo:rerun-if-changed=build.rs");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    lalrpop::Configuration::new()
        .set_in_dir("src/parse")
        .set_out_dir(std::path::Path::new(&out_dir).join("parse"))
        .process()
        .expect("the lalrpop grammar in src/parse failed to build");
}

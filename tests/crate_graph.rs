//! The crate graph's invariants (ARCHITECTURE.md, "Crates"): the JIT
//! runtime is linked into translated executables, so neither it nor the
//! JIT it is built from may carry the translator (the parser, the
//! annotator, the e-graph library).

use std::process::Command;

/// The crates that make the translator and only the translator (GenC
/// included).
const TRANSLATOR_ONLY: [&str; 6] = [
    "rpy-passes",
    "egg",
    "lalrpop-util",
    "pest",
    "rpy-rulec",
    "rpy-backend",
];

/// The names of the crates `package` depends on when built (not for its
/// tests or its build script), itself included.
fn normal_dependencies(package: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "-e",
            "normal",
            "--prefix",
            "none",
            "-p",
            package,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn the_jit_and_its_runtime_carry_no_translator() {
    for package in ["rpy-jit", "rpy-jitrt"] {
        let deps = normal_dependencies(package);
        assert!(deps.iter().any(|d| d == "rpy-ir"), "{package}: {deps:?}");
        for banned in TRANSLATOR_ONLY {
            assert!(
                !deps.iter().any(|d| d == banned),
                "{package} depends on {banned}: {deps:?}"
            );
        }
    }
}

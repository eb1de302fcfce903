//! The C compiler driver: errors, the output file, $CC.

use rpy_backend::compile_c;

#[test]
fn compile_c_reports_errors_and_never_leaves_a_broken_output() {
    let dir = std::env::temp_dir().join(format!("rpy-backend-compile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("prog");

    compile_c("int main(void) { return 3; }\n", &exe, "-O2").unwrap();
    let st = std::process::Command::new(&exe).status().unwrap();
    assert_eq!(st.code(), Some(3));

    // A failed build reports the compiler's message and removes the old output.
    let err = compile_c("int main(void) { return undefined_name; }\n", &exe, "-O2").unwrap_err();
    assert!(err.contains("undefined_name"), "{err}");
    assert!(!exe.exists());
    // Type mismatches are errors, not warnings.
    let err = compile_c("int main(void) { int x = \"s\"; return x; }\n", &exe, "").unwrap_err();
    assert!(err.contains("int-conversion"), "{err}");

    // $CC may carry flags.
    std::env::set_var("CC", "cc -DSTATUS=5");
    let r = compile_c("int main(void) { return STATUS; }\n", &exe, "-O0");
    std::env::remove_var("CC");
    r.unwrap();
    let st = std::process::Command::new(&exe).status().unwrap();
    assert_eq!(st.code(), Some(5));
    // Nothing but the executable is left next to it.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("prog")]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A struct used through pointers to two struct types, as an instance
/// through its class's and its base's: a store through one is seen by a
/// load through the other at -O2 (strict aliasing is off).
#[test]
fn compile_c_keeps_stores_through_another_struct_view() {
    let dir = std::env::temp_dir().join(format!("rpy-backend-alias-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("prog");
    let c = "struct base { long typeptr; long size; };\n\
             struct sub { long typeptr; long size; };\n\
             __attribute__((noinline)) long grow(struct base *b, struct sub *s) {\n\
             s->size = 0;\n    b->size = 3;\n    return s->size;\n}\n\
             int main(void) {\n    struct sub o = {0, 0};\n\
             return (int)grow((struct base *)&o, &o);\n}\n";
    compile_c(c, &exe, "-O2").unwrap();
    let st = std::process::Command::new(&exe).status().unwrap();
    assert_eq!(st.code(), Some(3));
    std::fs::remove_dir_all(&dir).unwrap();
}

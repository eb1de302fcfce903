//! `int(s, base)` in a translated program, run in the LLInterpreter through
//! rrepr.py's `ll_int_base_checked`: for strings of digits, letters,
//! prefixes, signs, underscores and spaces, in each base and in invalid
//! ones, the value or the ValueError's message is what the dialect's
//! CPython prints.

mod support;

use rpy::pipeline::{self, Source};
use rpy_ir::ast::Dialect;
use std::fmt::Write as _;

/// Every case as one program: a table of (string, base) and a loop that
/// prints each conversion or its ValueError.
fn program() -> String {
    const ALPHABET: &[u8] = b"0001179aAfFzxXoObB__+- ";
    const BASES: &[i64] = &[0, 0, 2, 8, 10, 16, 16, 36, 1, 37];
    // xorshift64*, so the cases are the same on every run
    let mut state: u64 = 0x1ba5e;
    let mut next = move |n: usize| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    };
    let mut table = String::new();
    for _ in 0..400 {
        let text: String = (0..next(7))
            .map(|_| ALPHABET[next(ALPHABET.len())] as char)
            .collect();
        writeln!(table, "    ({text:?}, {}),", BASES[next(BASES.len())]).unwrap();
    }
    format!(
        "import sys\n\nCASES = [\n{table}]\n\n\n\
         def entry_point(argv):\n\
         \x20   for s, b in CASES:\n\
         \x20       try:\n\
         \x20           n = int(s, b)\n\
         \x20       except ValueError as e:\n\
         \x20           print('ValueError: %s' % str(e))\n\
         \x20       else:\n\
         \x20           print(n)\n\
         \x20   return 0\n\n\n\
         def target(*args):\n    return entry_point\n\n\n\
         if __name__ == '__main__':\n    sys.exit(entry_point(sys.argv))\n"
    )
}

#[test]
fn int_with_a_base_agrees_with_cpython() {
    let text = program();
    let dir = std::env::temp_dir().join(format!("rpy-int-base-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("int_base.py");
    std::fs::write(&path, &text).unwrap();
    for dialect in [Dialect::Py3, Dialect::Py2] {
        let Some(python) = support::oracle(dialect) else {
            continue;
        };
        let want = support::run(std::process::Command::new(python).arg(&path)).0;
        let src = Source {
            path: path.display().to_string(),
            text: text.clone(),
            dialect,
            gc: rpy_ir::llops::GcKind::default(),
            jit: false,
        };
        let program = pipeline::lowlevel(&src).unwrap_or_else(|d| panic!("{dialect:?}: {d}"));
        let mut out = Vec::new();
        let status = rpy_llinterp::LlInterpreter::new(&program)
            .run_entry(std::slice::from_ref(&src.path), &mut out)
            .unwrap_or_else(|e| panic!("{dialect:?}: {}", e.message));
        assert_eq!(status, 0);
        let got = String::from_utf8(out).unwrap();
        for ((line, expected), case) in got.lines().zip(want.lines()).zip(text.lines().skip(3)) {
            assert_eq!(line, expected, "{dialect:?}: {case}");
        }
        assert_eq!(got.lines().count(), want.lines().count(), "{dialect:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

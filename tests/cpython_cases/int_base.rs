//! `int(s, base)` in a translated program, run in the LLInterpreter through
//! rrepr.py's `ll_int_base_checked`: for strings of digits, letters,
//! prefixes, signs, underscores and spaces, in each base and in invalid
//! ones, the value or the ValueError's message is what the dialect's
//! CPython prints.

use std::fmt::Write as _;

/// Every case as one program: a table of (string, base) and a loop that
/// prints each conversion or its ValueError.
fn program() -> String {
    const ALPHABET: &[u8] = b"0001179aAfFzxXoObB__+- ";
    const BASES: &[i64] = &[0, 0, 2, 8, 10, 16, 16, 36, 1, 37];
    let mut rng = crate::support::random::Rng(0x1ba5e);
    let mut next = move |n: usize| rng.below(n);
    let mut table = String::new();
    for _ in 0..400 {
        let text: String = (0..next(7))
            .map(|_| ALPHABET[next(ALPHABET.len())] as char)
            .collect();
        writeln!(table, "    ({text:?}, {}),", BASES[next(BASES.len())]).unwrap();
    }
    format!(
        "CASES = [\n{table}]\n\n\n\
         def entry_point(argv):\n\
         \x20   for s, b in CASES:\n\
         {}\
         \x20   return 0\n",
        super::print_value_or_error("int(s, b)"),
    )
}

#[test]
fn int_with_a_base_agrees_with_cpython() {
    crate::support::source_matches_cpython("int_base", &program());
}

//! `int(s)` and `float(s)` under a ValueError handler (rrepr.py's
//! `ll_int_checked` and `ll_float_checked`) for strings of digits, signs,
//! points, exponents, spaces and underscores: the value or the message is
//! what the dialect's CPython prints (Python 3 lets single underscores
//! separate digits; Python 2 does not).

use std::fmt::Write as _;

/// Every case as one program: a table of strings and a loop that prints
/// each conversion or its ValueError.
fn program() -> String {
    const ALPHABET: &[u8] = b"0112_9__.e-+ ";
    const CHOSEN: &[&str] = &[
        "1_0", "1__0", "_1", "1_", " 1_000 ", "+1_0", "-2_5", "1_0.5", "1.5_5", "1e1_0", "1_.5",
        "1._5", "1_e5", "0_0", "12",
    ];
    let mut rng = crate::support::random::Rng(0x5eed_1234);
    let mut next = move |n: usize| rng.below(n);
    let mut table = String::new();
    for s in CHOSEN {
        writeln!(table, "    {s:?},").unwrap();
    }
    for _ in 0..300 {
        let text: String = (0..1 + next(6))
            .map(|_| ALPHABET[next(ALPHABET.len())] as char)
            .collect();
        writeln!(table, "    {text:?},").unwrap();
    }
    format!(
        "CASES = [\n{table}]\n\n\n\
         def entry_point(argv):\n\
         \x20   for s in CASES:\n\
         {}{}\
         \x20   return 0\n",
        super::print_value_or_error("int(s)"),
        super::print_value_or_error("float(s)"),
    )
}

#[test]
fn int_and_float_of_strings_agree_with_cpython() {
    crate::support::source_matches_cpython("numeric_strings", &program());
}

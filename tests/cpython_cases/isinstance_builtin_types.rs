//! `isinstance(x, int)` and the like of a builtin type: known from `x`'s
//! annotation, also when `x` is a constant (`isinstance(3, int)`,
//! `isinstance("s", str)`, `isinstance(True, int)`), and of an r_uint,
//! which is an int in Python 3 and a long, not an int, in Python 2.

const PROGRAM: &str = "from rpython.rlib.rarithmetic import r_uint


def entry_point(argv):
    n = len(argv)
    print(isinstance(3, int), isinstance(n, int), isinstance(2.5, float))
    print(isinstance('s', str), isinstance('s', int), isinstance(True, int))
    print(isinstance(True, bool), isinstance(n, float), isinstance([n], list))
    print(isinstance(r_uint(n), int), isinstance(r_uint(5), int))
    return 0

";

#[test]
fn isinstance_of_builtin_types_agrees_with_cpython() {
    crate::support::source_matches_cpython("isinstance_builtin_types", PROGRAM);
}

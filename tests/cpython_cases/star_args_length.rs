//! `len(args)` of a `*args` tuple is a constant, so a test of it cuts the
//! branch a specialization for that many arguments never takes: `values[0]`
//! after `if len(values) == 0: return` is no error in the copy for no
//! arguments (it failed with "index 0 is out of range for a tuple of 0
//! items").

const PROGRAM: &str = "def stats(*values):
    if len(values) == 0:
        return 0, 0
    lo = values[0]
    hi = values[0]
    for v in values:
        lo = min(lo, v)
        hi = max(hi, v)
    return lo, hi


def first_or(default, *rest):
    if len(rest) > 0:
        return rest[0]
    return default


def entry_point(argv):
    n = len(argv)
    print(stats(3, 9, -2), stats(), stats(n))
    print(first_or(5), first_or(5, n + 1), first_or(5, 7, 8))
    t = (n, 'a', 2.5)
    print(len(t), len(t) == 3)
    return 0

";

#[test]
fn star_args_lengths_agree_with_cpython() {
    crate::support::source_matches_cpython("star_args_length", PROGRAM);
}

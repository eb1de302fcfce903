//! `divmod(a, b)`: the flow builder makes it the tuple of `a // b` and
//! `a % b`, for ints and floats, with Python's signs and the division's
//! ZeroDivisionError.

const PROGRAM: &str = "def clock(seconds):
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return '%d:%02d:%02d' % (hours, minutes, secs)


def safe(a, b):
    try:
        q, r = divmod(a, b)
    except ZeroDivisionError:
        return 'division by zero'
    return '%d r %d' % (q, r)


def entry_point(argv):
    for s in [0, 59, 61, 3599, 3600, 86399, 90061]:
        print(clock(s))
    n = len(argv)
    for a, b in [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 3)]:
        print(divmod(a * n, b))
    for x, y in [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0)]:
        print(divmod(x * n, y))
    print(safe(7, 0))
    print(safe(17 * n, 5))
    return 0

";

#[test]
fn divmod_agrees_with_cpython() {
    crate::support::source_matches_cpython("divmod", PROGRAM);
}

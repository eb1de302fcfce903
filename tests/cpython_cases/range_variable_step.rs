//! `for i in range(a, b, step)` with a step known only at run time: the
//! loop iterates the range object (the counted loop needs the step's
//! sign), and a zero step raises ValueError with CPython's message.

const PROGRAM: &str = "def total(n, step):
    acc = 0
    for i in range(0, n, step):
        acc += i
    else:
        acc += 1000
    return acc


def entry_point(argv):
    n = len(argv) * 10
    for step in [3, -3, 7, n + 1]:
        print(total(n, step))
        print(total(-n, -step))
    for i in range(n, 0, -len(argv) - 2):
        print(i)
    try:
        print(total(n, n - n))
    except ValueError as e:
        print('ValueError: %s' % str(e))
    return 0

";

#[test]
fn range_variable_step_agrees_with_cpython() {
    crate::support::source_matches_cpython("range_variable_step", PROGRAM);
}

//! The truth of a string that may be None (`if s`, `not s`, `bool(s)`):
//! the rtyper tests the pointer before the length (rstr's
//! `ll_str_is_true`), so None is false instead of a null dereference.

mod support;

const PROGRAM: &str = "import sys


def pick(n):
    if n > 2:
        return 'abc'
    if n > 1:
        return ''
    return None


def entry_point(argv):
    for n in range(4):
        s = pick(n)
        if s:
            print('true')
        if not s:
            print('false')
        print(bool(s))
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))
";

#[test]
fn none_or_empty_strings_are_false() {
    support::source_matches_cpython("none_strings", PROGRAM);
}

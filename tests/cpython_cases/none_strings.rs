//! The truth of a string that may be None (`if s`, `not s`, `bool(s)`):
//! the rtyper tests the pointer before the length (rstr's
//! `ll_str_is_true`), so None is false instead of a null dereference.

const PROGRAM: &str = "def pick(n):
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

";

#[test]
fn none_or_empty_strings_are_false() {
    crate::support::source_matches_cpython("none_strings", PROGRAM);
}

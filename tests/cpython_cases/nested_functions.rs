//! A `def` inside a function that reads none of its variables is a
//! constant function, as in the original (whose flow space makes a function
//! with constant code and defaults a constant); one chosen by a branch is
//! called through a pointer, which constant folding may make known.

const PROGRAM: &str = "class Parser(object):
    def __init__(self, text):
        self.text = text

    def number(self):
        def is_digit(c):
            return '0' <= c <= '9'

        def value_of(c):
            return ord(c) - ord('0')

        total = 0
        for c in self.text:
            if is_digit(c):
                total = total * 10 + value_of(c)
        return total


def first(a, b):
    return a


def second(a, b):
    return b


def choose(n):
    def twice(f, x):
        return f(f(x))

    def inc(x):
        return x + 1

    if n > 0:
        def pick(a, b):
            return a - b
    else:
        def pick(a, b):
            return b - a
    return twice(inc, n) + pick(10, 3)


def chosen(n):
    if n > 0:
        f = first
    else:
        f = second
    return f(1, 2)


def entry_point(argv):
    print(Parser('a1b2c3').number())
    print(choose(5))
    print(choose(-5))
    print(chosen(5))
    print(chosen(-5))
    print(chosen(len(argv)))
    return 0

";

#[test]
fn nested_functions_agree_with_cpython() {
    crate::support::source_matches_cpython("nested_functions", PROGRAM);
}

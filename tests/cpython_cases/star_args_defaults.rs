//! `f(*args)` where `args` may be shorter than `f`'s parameters: the
//! parameters it does not reach take their defaults, per copy of a
//! forwarding `*args` function (one per number of arguments).

const PROGRAM: &str = "class Box(object):
    def __init__(self, width, height=2, label='box'):
        self.width = width
        self.height = height
        self.label = label


def area(b, h=2, scale=1):
    return b * h * scale


def forward(*args):
    return area(*args)


def make(*args):
    return Box(*args)


def shifted(first, *rest):
    return area(first, *rest)


def entry_point(argv):
    n = len(argv)
    print(forward(4))
    print(forward(5, 6))
    print(forward(5, 6, n + 9))
    print(shifted(3))
    print(shifted(3, 4))
    for b in [make(n), make(n + 1, 7), make(n + 2, 8, 'crate')]:
        print('%s %d %d' % (b.label, b.width, b.height))
    return 0

";

#[test]
fn star_args_defaults_agree_with_cpython() {
    crate::support::source_matches_cpython("star_args_defaults", PROGRAM);
}

//! `bool(x)` of a value the rules of `bool()` do not cover (a list that
//! cannot be None, an instance, an instance that may be None):
//! the truth test of `x`, as `if x:` makes it.

const PROGRAM: &str = "class Node(object):
    def __init__(self, value):
        self.value = value


def find(nodes, value):
    for n in nodes:
        if n.value == value:
            return n
    return None


def entry_point(argv):
    k = len(argv)
    full = [k, 2]
    empty = [k]
    empty.pop()
    print(bool(full), bool(empty), len(empty))
    nodes = [Node(1), Node(k + 1)]
    print(bool(find(nodes, 2)), bool(find(nodes, 5)), bool(nodes[0]))
    return 0

";

#[test]
fn bool_of_lists_and_instances_agrees_with_cpython() {
    crate::support::source_matches_cpython("bool_builtin", PROGRAM);
}

/// The truth of a tuple, which is never None, is whether it has items
/// (it failed with "the rtyper cannot lower 'bool' on a tuple").
#[test]
fn truth_of_tuples_agrees_with_cpython() {
    crate::support::source_matches_cpython(
        "bool_of_tuples",
        "def pair(n):
    return (n, 'a')


def entry_point(argv):
    t = pair(len(argv))
    print(bool(t), not t)
    if t:
        print('nonempty')
    return 0

",
    );
}

/// The truth of a value that is always None (a parameter every call
/// leaves at its default None) is false (it failed with "the rtyper
/// cannot lower 'bool' on None").
#[test]
fn truth_of_none_agrees_with_cpython() {
    crate::support::source_matches_cpython(
        "bool_of_none",
        "def describe(name, extra=None):
    if extra:
        return name + '+'
    if not extra:
        return name + '-'
    return name


def entry_point(argv):
    print(describe('a'), describe(argv[0][:0] + 'b'), bool(None))
    return 0

",
    );
}

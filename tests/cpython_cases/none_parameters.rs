//! A parameter that every call leaves at its default None has no
//! representation; stored into an attribute that also holds instances,
//! or returned where an instance may be, it becomes the null pointer
//! (it failed with "a value with no representation cannot become
//! Ptr(inst_Tree)").

const PROGRAM: &str = "class Tree(object):
    def __init__(self, value, left=None, right=None):
        self.value = value
        self.left = left
        self.right = right


def insert(t, v):
    if t is None:
        return Tree(v)
    if v < t.value:
        t.left = insert(t.left, v)
    else:
        t.right = insert(t.right, v)
    return t


def walk(t, out):
    if t is not None:
        walk(t.left, out)
        out.append(t.value)
        walk(t.right, out)


def pick(t, fallback=None):
    if t.value > 100:
        return t
    return fallback


def entry_point(argv):
    n = len(argv) + 8
    root = None
    for i in range(n):
        root = insert(root, (i * 7) % n)
    out = []
    walk(root, out)
    print(out)
    print(pick(root) is None, root.left is None, root.right is None)
    return 0

";

#[test]
fn none_parameters_become_null_pointers() {
    crate::support::source_matches_cpython("none_parameters", PROGRAM);
}

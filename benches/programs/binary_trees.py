# Benchmark: the benchmarks game's binary-trees, depth N from the command
# line. Many short-lived trees around one long-lived tree: what it
# allocates is many times what is live at any moment.
import sys


class Node(object):
    def __init__(self, left, right):
        self.left = left
        self.right = right


def make_tree(depth):
    if depth == 0:
        return Node(None, None)
    return Node(make_tree(depth - 1), make_tree(depth - 1))


def check_tree(node):
    if node.left is None:
        return 1
    return 1 + check_tree(node.left) + check_tree(node.right)


def entry_point(argv):
    max_depth = int(argv[1])
    min_depth = 4
    if max_depth < min_depth + 2:
        max_depth = min_depth + 2
    stretch = max_depth + 1
    print("stretch tree of depth %d\t check: %d" % (stretch, check_tree(make_tree(stretch))))
    long_lived = make_tree(max_depth)
    depth = min_depth
    while depth <= max_depth:
        iterations = 1 << (max_depth - depth + min_depth)
        check = 0
        i = 0
        while i < iterations:
            check += check_tree(make_tree(depth))
            i += 1
        print("%d\t trees of depth %d\t check: %d" % (iterations, depth, check))
        depth += 2
    print("long lived tree of depth %d\t check: %d" % (max_depth, check_tree(long_lived)))
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

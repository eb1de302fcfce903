# A tree builder in phases, as gcbench runs them, steering the collector
# with the gc module: major collections are disabled while a long-lived
# tree is built, gc.collect() runs between phases (gc.collect(0), a minor
# collection, after each short-lived batch), and the trees built before a
# collection are walked after it, so every pointer held across the call
# must survive the objects' moves. gc.collect() is also called at import
# time. Only deterministic values are printed (not what collect returns,
# which CPython counts and RPython does not give).
# Python 3 twin: print(), range.
# args: 10
import gc


class Node(object):
    def __init__(self, left, right, value):
        self.left = left
        self.right = right
        self.value = value


def make_tree(depth, seed):
    if depth == 0:
        return Node(None, None, seed % 97)
    return Node(make_tree(depth - 1, seed * 3 + 1),
                make_tree(depth - 1, seed * 5 + 2), seed % 89)


def check(node):
    if node is None:
        return 0
    return node.value + 2 * check(node.left) + 3 * check(node.right) & 0xffffff


def count(node):
    if node is None:
        return 0
    return 1 + count(node.left) + count(node.right)


# Built at import time, then collected around: a prebuilt tree.
TABLE = [make_tree(3, k) for k in range(4)]
gc.collect()
IMPORT_ENABLED = gc.isenabled()


def short_lived(depth, rounds):
    total = 0
    for i in range(rounds):
        t = make_tree(depth, i)
        total = (total + check(t)) & 0xffffff
    return total


def entry_point(argv):
    depth = int(argv[1])
    print("import-time enabled:", IMPORT_ENABLED)
    gc.disable()
    print("enabled after disable:", gc.isenabled())
    long_lived = make_tree(depth, 7)
    keep = [make_tree(depth - 3, k) for k in range(5)]
    gc.enable()
    print("enabled after enable:", gc.isenabled())
    before = check(long_lived)
    gc.collect()
    after = check(long_lived)
    print("long-lived", count(long_lived), before, after, before == after)
    for phase in range(4):
        s = short_lived(depth - 4, 20 + phase)
        gc.collect(0)
        kept = 0
        for t in keep:
            kept = (kept + check(t)) & 0xffffff
        print("phase", phase, s, kept)
        keep.append(make_tree(depth - 5, phase))
        if phase % 2 == 1:
            gc.collect(1)
    total = 0
    for t in TABLE:
        total += check(t)
    gc.collect()
    print("prebuilt", total, count(TABLE[3]), check(long_lived) == before)
    nodes = 0
    for t in keep:
        nodes += count(t)
    print("kept", len(keep), nodes)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    import sys
    entry_point(sys.argv)

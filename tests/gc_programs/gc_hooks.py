# GC hooks as the original's targets declare them: `get_gchooks()` returns
# an object whose on_gc_* methods the collector calls after each minor
# collection and after each major one. The program builds trees (many
# minor collections), forces major ones with gc.collect(), and prints what
# its hooks counted. tests/gc.rs checks the counts against the collector's own
# (RPY_GC_STATS=1). CPython has no such hooks: there the counts are 0.
# args: 14
import gc
from rpython.memory.gc.hook import GcHooks


class Counts(object):
    def __init__(self):
        self.minors = 0
        self.steps = 0
        self.collects = 0
        self.last_major = 0


COUNTS = Counts()


class CountingHooks(GcHooks):
    def is_gc_minor_enabled(self):
        return True

    def is_gc_collect_step_enabled(self):
        return True

    def is_gc_collect_enabled(self):
        return True

    def on_gc_minor(self, duration, total_memory_used, pinned_objects):
        COUNTS.minors += 1

    def on_gc_collect_step(self, duration, oldstate, newstate):
        COUNTS.steps += 1

    def on_gc_collect(self, num_major_collects, arenas_count_before,
                      arenas_count_after, arenas_bytes,
                      rawmalloc_bytes_before, rawmalloc_bytes_after,
                      pinned_objects):
        COUNTS.collects += 1
        COUNTS.last_major = num_major_collects


HOOKS = CountingHooks()


class Node(object):
    def __init__(self, left, right):
        self.left = left
        self.right = right


def make(depth):
    if depth == 0:
        return Node(None, None)
    return Node(make(depth - 1), make(depth - 1))


def count(node):
    if node is None:
        return 0
    return 1 + count(node.left) + count(node.right)


def entry_point(argv):
    depth = int(argv[1])
    total = 0
    for i in range(depth):
        total += count(make(i))
        if i % 4 == 0:
            gc.collect()
    gc.collect()
    print("nodes %d" % total)
    print("minors %d steps %d collects %d last %d" % (
        COUNTS.minors, COUNTS.steps, COUNTS.collects, COUNTS.last_major))
    return 0


def get_gchooks():
    return HOOKS


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    import sys
    entry_point(sys.argv)

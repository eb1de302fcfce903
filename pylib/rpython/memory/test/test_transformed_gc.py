"""The GC hooks the original's collector tests define, which its
targetgcbench imports to print how many collections ran: hooks that
count each kind of event. The rest of the original's module is tests of
its own collectors, which rpy replaces (see rpython/memory/gc/hook.py).
"""

from rpython.memory.gc.hook import GcHooks
from rpython.rlib.nonconst import NonConstant


class GcHooksStats(object):
    minors = 0
    steps = 0
    collects = 0

    def reset(self):
        # Stores of values the annotator does not know, so that the
        # counters are ints, not the constant 0.
        self.minors = NonConstant(0)
        self.steps = NonConstant(0)
        self.collects = NonConstant(0)


class MyGcHooks(GcHooks):
    def __init__(self, stats=None):
        self.stats = stats or GcHooksStats()

    def is_gc_minor_enabled(self):
        return True

    def is_gc_collect_step_enabled(self):
        return True

    def is_gc_collect_enabled(self):
        return True

    def on_gc_minor(self, duration, total_memory_used, pinned_objects):
        self.stats.minors += 1

    def on_gc_collect_step(self, duration, oldstate, newstate):
        self.stats.steps += 1

    def on_gc_collect(self, num_major_collects, arenas_count_before,
                      arenas_count_after, arenas_bytes,
                      rawmalloc_bytes_before, rawmalloc_bytes_after,
                      pinned_objects):
        self.stats.collects += 1

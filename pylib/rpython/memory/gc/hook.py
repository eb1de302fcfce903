"""GC hooks: the collector reports its collections to the program.

A target that defines `get_gchooks()` returning an instance of a GcHooks
subclass has the collector call the instance's `fire_gc_*` methods after
each minor collection and after each major one (rpy's collector is not
incremental: a major collection is one step, reported as one
`fire_gc_collect_step` before its `fire_gc_collect`). Each `fire_*`
calls its `on_*` method when the matching `is_*_enabled` says so. The
collector calls them between collections, so they may allocate; the
original's, called from inside its collector, may not, and a program
written for both keeps them to counting.
"""


class GcHooks(object):
    def is_gc_minor_enabled(self):
        return False

    def is_gc_collect_step_enabled(self):
        return False

    def is_gc_collect_enabled(self):
        return False

    def on_gc_minor(self, duration, total_memory_used, pinned_objects):
        pass

    def on_gc_collect_step(self, duration, oldstate, newstate):
        pass

    def on_gc_collect(self, num_major_collects, arenas_count_before,
                      arenas_count_after, arenas_bytes,
                      rawmalloc_bytes_before, rawmalloc_bytes_after,
                      pinned_objects):
        pass

    def fire_gc_minor(self, duration, total_memory_used, pinned_objects):
        if self.is_gc_minor_enabled():
            self.on_gc_minor(duration, total_memory_used, pinned_objects)

    def fire_gc_collect_step(self, duration, oldstate, newstate):
        if self.is_gc_collect_step_enabled():
            self.on_gc_collect_step(duration, oldstate, newstate)

    def fire_gc_collect(self, num_major_collects, arenas_count_before,
                        arenas_count_after, arenas_bytes,
                        rawmalloc_bytes_before, rawmalloc_bytes_after,
                        pinned_objects):
        if self.is_gc_collect_enabled():
            self.on_gc_collect(num_major_collects, arenas_count_before,
                               arenas_count_after, arenas_bytes,
                               rawmalloc_bytes_before, rawmalloc_bytes_after,
                               pinned_objects)

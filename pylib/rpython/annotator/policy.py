"""`AnnotatorPolicy`, which a target may return as the third item of
`target()`'s result, `(entry_point, None, policy)`, to steer the original's
annotator (an `event()` hook, and `specialize__NAME` methods for the
program's own `@specialize.NAME()` tags).  rpy's annotator takes no policy:
it reads the third item of `target()`'s result as the original's driver
does, and ignores it; a policy that only exists (the jit/tl targets import
the class and never use it) changes nothing in the original either.  Not
translated."""


class AnnotatorPolicy(object):
    """The original's default policy: no events, the standard
    specializations only."""

    def event(pol, bookkeeper, what, *args):
        pass

    def no_more_blocks_to_annotate(pol, annotator):
        pass

"""Debugging aids that stay in the translated program."""

import sys


def debug_print(*args):
    """Writes the arguments, space-separated, to stderr (translated: to the
    PYPYLOG debug output when it is enabled)."""
    sys.stderr.write(' '.join([str(a) for a in args]) + '\n')


def debug_start(category, timestamp=False):
    """Opens a debug section named `category`."""
    pass


def debug_stop(category, timestamp=False):
    """Closes the debug section named `category`."""
    pass


def have_debug_prints():
    """Whether debug_print writes anything: not untranslated."""
    return False


def debug_flush():
    """Flushes the debug output."""
    pass


def ll_assert(x, msg):
    """An assertion that stays in the translated program's debug builds."""
    assert x, msg


def fatalerror(msg):
    """Stops the program with `msg` (translated: aborts)."""
    raise SystemExit("fatal error: %s" % (msg,))


class NegativeArgumentNotAllowed(Exception):
    pass


def check_nonneg(x):
    """`x`, which the annotator may then assume is not negative."""
    if x < 0:
        raise NegativeArgumentNotAllowed(x)
    return x


def check_regular_int(x):
    """Checks that `x` is a plain int (not an r_uint)."""
    assert type(x) is int or type(x).__name__ == 'long', "not a regular int"
    return x


def make_sure_not_resized(arg):
    """Declares that the list `arg` is never resized (a fixed-size array)."""
    return arg


def check_annotation(arg, checker):
    """Calls `checker(annotation, bookkeeper)` during translation; returns
    `arg`."""
    return arg

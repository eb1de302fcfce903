"""Float helpers as `rpython.rlib.rfloat` offers them to translated
programs: the special values and their tests, written on the math
module's predicates (which rpy translates to float operations) so that
they also run under CPython 2.7, whose math has no isfinite."""

import math

INFINITY = 1e200 * 1e200
NAN = INFINITY - INFINITY


def isinf(x):
    return math.isinf(x)


def isnan(x):
    return math.isnan(x)


def isfinite(x):
    return not math.isinf(x) and not math.isnan(x)


def copysign(x, y):
    return math.copysign(x, y)


def round_away(x):
    """`x` rounded to the nearest integral float, halves away from zero
    (Python 2's round)."""
    if x < 0.0:
        return -float(math.floor(-x + 0.5))
    return float(math.floor(x + 0.5))

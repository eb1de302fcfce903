"""Integer operations that check, as the original's int_*_ovf and
int_*_zer operations: a zero divisor raises ZeroDivisionError, a result
that does not fit a machine word raises OverflowError.  Machine words
wrap in translated code (`intmask` makes CPython do the same), so a
helper computes the wrapped result and tells an overflow from it.

The messages are those `rpython.rlib.rarithmetic.ovfcheck` and CPython 2
give (the object interpreter's too).  A helper does not know the dialect:
Python 3's `x % 0` says "integer modulo by zero" instead.
"""

from rpython.rlib.rarithmetic import intmask

MININT = -9223372036854775807 - 1
OVERFLOW = "signed integer expression did overflow"
ZERO_DIVISOR = "integer division or modulo by zero"


def _ll_check_divisor(y):
    if y == 0:
        raise ZeroDivisionError(ZERO_DIVISOR)


def ll_int_floordiv_zer(x, y):
    """x // y: ZeroDivisionError when y is 0 (MININT // -1 wraps)."""
    _ll_check_divisor(y)
    return intmask(x // y)


def ll_int_mod_zer(x, y):
    """x % y: ZeroDivisionError when y is 0."""
    _ll_check_divisor(y)
    return x % y


def ll_int_add_ovf(x, y):
    r = intmask(x + y)
    # The sum overflowed when its sign differs from both operands'.
    if (r ^ x) < 0 and (r ^ y) < 0:
        raise OverflowError(OVERFLOW)
    return r


def ll_int_sub_ovf(x, y):
    r = intmask(x - y)
    # x - y overflowed when its sign differs from x's and is y's.
    if (r ^ x) < 0 and (r ^ ~y) < 0:
        raise OverflowError(OVERFLOW)
    return r


def ll_int_mul_ovf(x, y):
    r = intmask(x * y)
    if x == 0:
        return r
    # MININT * -1 wraps to MININT, which the division below cannot tell.
    if (x == -1 and y == MININT) or (y == -1 and x == MININT):
        raise OverflowError(OVERFLOW)
    # Without overflow the product divides back exactly.
    if r // x != y:
        raise OverflowError(OVERFLOW)
    return r


def ll_int_neg_ovf(x):
    if x == MININT:
        raise OverflowError(OVERFLOW)
    return -x


def ll_int_abs_ovf(x):
    if x < 0:
        return ll_int_neg_ovf(x)
    return x


def ll_int_floordiv_ovf(x, y):
    """x // y: OverflowError for MININT // -1."""
    if x == MININT and y == -1:
        raise OverflowError(OVERFLOW)
    return x // y


def ll_int_floordiv_ovf_zer(x, y):
    _ll_check_divisor(y)
    return ll_int_floordiv_ovf(x, y)


def ll_int_mod_ovf_zer(x, y):
    _ll_check_divisor(y)
    if x == MININT and y == -1:
        raise OverflowError(OVERFLOW)
    return x % y


def ll_min(x, y):
    """min(x, y) of two numbers: the first of equal ones."""
    if y < x:
        return y
    return x


def ll_max(x, y):
    """max(x, y) of two numbers: the first of equal ones."""
    if y > x:
        return y
    return x


def ll_int_hash(x):
    """hash() of an int as CPython gives it: the int itself, but -1 (CPython's
    error value in C) hashes as -2."""
    if x == -1:
        return -2
    return x

"""The checks of the math functions where a handler catches their errors,
as the original's ll_math does after calling the C function: a NaN made
of numbers is a domain error (ValueError), an infinity made of finite
numbers a range error (OverflowError) for the functions that can
overflow and a domain error for the others (log(0.0)).

The rtyper calls the C function (a runtime leaf, `rpy_math_<name>`) and
passes its arguments and result here; the messages are CPython's.
"""

DOMAIN = "math domain error"
RANGE = "math range error"


def _ll_isnan(x):
    return x != x


def _ll_isfinite(x):
    return x - x == 0.0


def ll_math_check_1(x, r, can_overflow):
    """The result r of a math function of x, or its error."""
    if r != r:
        if x == x:
            raise ValueError(DOMAIN)
    elif r - r != 0.0:
        if x - x == 0.0:
            if can_overflow:
                raise OverflowError(RANGE)
            raise ValueError(DOMAIN)
    return r


def ll_math_check_2(x, y, r, can_overflow):
    """The result r of a math function of x and y, or its error; an
    infinity from a zero x (pow(0.0, -1.0)) is a domain error."""
    if r != r:
        if x == x and y == y:
            raise ValueError(DOMAIN)
    elif r - r != 0.0:
        if x - x == 0.0 and y - y == 0.0:
            if can_overflow and x != 0.0:
                raise OverflowError(RANGE)
            raise ValueError(DOMAIN)
    return r


def ll_math_to_int(r):
    """Python 3's floor(), ceil() and trunc() as an int: infinities and
    NaN have no int."""
    if r != r:
        raise ValueError("cannot convert float NaN to integer")
    if r - r != 0.0:
        raise OverflowError("cannot convert float infinity to integer")
    return int(r)

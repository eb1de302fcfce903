"""Machine-word integer arithmetic as the translated program does it.

Python's ints are unbounded; a translated RPython int is a signed machine
word whose arithmetic wraps.  `intmask` wraps a Python int to that range,
`ovfcheck` turns an overflow into OverflowError, and `r_uint` is the
unsigned word.
"""

LONG_BIT = 64
LONG_MASK = (1 << LONG_BIT) - 1
LONG_TEST = 1 << (LONG_BIT - 1)
maxint = LONG_TEST - 1
LONGLONG_BIT = 64
INT_MIN = -(1 << 31)
INT_MAX = (1 << 31) - 1

try:
    _long = long  # Python 2
except NameError:
    _long = int


def intmask(n):
    """`n` wrapped to a signed machine word (two's complement)."""
    if isinstance(n, float):
        n = int(n)
    n = _long(n) & LONG_MASK
    if n >= LONG_TEST:
        n -= 1 << LONG_BIT
    return int(n)


def widen(n):
    """`n` as a signed machine word (an r_uint becomes its signed value)."""
    return intmask(n)


def is_valid_int(r):
    """Whether `r` is an int that fits a signed machine word."""
    return isinstance(r, (int, _long)) and not isinstance(r, bool) \
        and -LONG_TEST <= r < LONG_TEST


def ovfcheck(r):
    """`r`, the result of an operation on machine words, unless it
    overflowed a machine word: then OverflowError.  Translated, the
    operation inside `ovfcheck(...)` is the checking variant."""
    if isinstance(r, r_uint):
        raise TypeError("ovfcheck() is for signed integers")
    if not -LONG_TEST <= r < LONG_TEST:
        raise OverflowError("signed integer expression did overflow")
    return r


def highest_bit(n):
    """The index of the highest set bit of the power of two `n`."""
    assert n and (n & (n - 1)) == 0, "highest_bit() takes a power of two"
    i = -1
    while n:
        i += 1
        n >>= 1
    return i


def int_between(n, m, p):
    """`n <= m < p`, as one unsigned comparison when translated."""
    return n <= m < p


def int_force_ge_zero(n):
    """`n` if it is not negative, else 0."""
    return max(n, 0)


def int_c_div(x, y):
    """Division rounding toward zero, as C does."""
    q = abs(x) // abs(y)
    return -q if (x < 0) != (y < 0) else q


def int_c_mod(x, y):
    """The remainder of `int_c_div`: it has the sign of `x`, as in C."""
    return x - y * int_c_div(x, y)


class r_uint(_long):
    """An unsigned machine word: arithmetic wraps modulo 2**LONG_BIT."""

    def __new__(cls, value=0):
        return _long.__new__(cls, _long(value) & LONG_MASK)

    # With a float, arithmetic is float arithmetic (as the rtyper types it).
    def __add__(self, other):
        if isinstance(other, float):
            return float(self) + other
        return r_uint(_long(self) + _long(other))
    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, float):
            return float(self) - other
        return r_uint(_long(self) - _long(other))

    def __rsub__(self, other):
        if isinstance(other, float):
            return other - float(self)
        return r_uint(_long(other) - _long(self))

    def __mul__(self, other):
        if isinstance(other, float):
            return float(self) * other
        return r_uint(_long(self) * _long(other))
    __rmul__ = __mul__

    def __floordiv__(self, other):
        return r_uint(_long(self) // _long(r_uint(other)))
    __div__ = __floordiv__

    def __mod__(self, other):
        return r_uint(_long(self) % _long(r_uint(other)))

    def __lshift__(self, n):
        return r_uint(_long(self) << n)

    def __rshift__(self, n):
        return r_uint(_long(self) >> n)

    def __and__(self, other):
        return r_uint(_long(self) & _long(r_uint(other)))
    __rand__ = __and__

    def __or__(self, other):
        return r_uint(_long(self) | _long(r_uint(other)))
    __ror__ = __or__

    def __xor__(self, other):
        return r_uint(_long(self) ^ _long(r_uint(other)))
    __rxor__ = __xor__

    def __invert__(self):
        return r_uint(~_long(self))

    def __neg__(self):
        return r_uint(-_long(self))

    # A translated program writes an r_uint as its digits; so does the
    # oracle (Python 2's long would add 'L', Python 3's int subclass its
    # class name).
    def __repr__(self):
        return '%d' % _long(self)
    __str__ = __repr__


def r_int(value=0):
    """A signed machine word: `value` wrapped."""
    return intmask(value)


r_longlong = r_int
r_ulonglong = r_uint

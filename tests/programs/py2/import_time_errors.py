# Import-time operations run with CPython 2.7's semantics by the object
# interpreter: comparisons of instances whose class has `__cmp__` and no
# rich comparison method call it (the left operand's, else the right
# one's with its sign turned; only the sign of its int result counts, a
# float is truncated, anything else is a TypeError); what raises inside a
# `try` reaches its handler (arithmetic on a value of the wrong type,
# `3 in 5` of two constants, a `__cmp__` that raises); a dict store whose
# key comparison goes deeper than the recursion limit leaves the dict
# unchanged. A `__cmp__` that returns NotImplemented passes the comparison
# on to the other operand's (of an old-style class only if both are),
# else to identity; an old-style instance's `__cmp__` is asked before a
# new-style one's. `ovfcheck` of arithmetic whose exact result leaves the
# machine word raises OverflowError (import-time ints are Python's), and so
# does a shift by a negative constant count ValueError. Translated code calls
# a function catching TypeError around `+`, another OverflowError around
# `ovfcheck(a * b)`.
# The values are ints, printed the same by CPython and translated code.
# args: 6
import sys
from rpython.rlib.rarithmetic import ovfcheck


class Three(object):
    def __init__(self, r):
        self.r = r

    def __cmp__(self, other):
        if self.r == "raise":
            raise KeyError(self.r)
        return self.r


class Plain(object):
    pass


class OldStyle:
    def __init__(self, r):
        self.r = r

    def __cmp__(self, other):
        return self.r


class Mixed(object):
    def __init__(self, r):
        self.r = r

    def __eq__(self, other):
        return True

    def __cmp__(self, other):
        return self.r


RESULTS = []


def bits(flags):
    n = 0
    for f in flags:
        n = n * 2 + int(f)
    return n


for r in [2, 0, -5, 2.5, 0.5, -0.7, True, False]:
    t = Three(r)
    RESULTS.append(bits([t < Plain(), t <= Plain(), t == Plain(), t != Plain(),
                         t > Plain(), t >= Plain()]))
    RESULTS.append(bits([Plain() < t, Plain() <= t, Plain() == t, Plain() != t,
                         Plain() > t, Plain() >= t]))
    RESULTS.append(bits([t < 3, 3 < t, t == 3, 3 == t]))

RESULTS.append(bits([OldStyle(-1) < OldStyle(1), OldStyle(1) == 5, 5 < OldStyle(1),
                     OldStyle(0) == OldStyle(7)]))
RESULTS.append(bits([Mixed(1) == Mixed(1), Mixed(1) != Mixed(1), Mixed(1) < Mixed(1),
                     Mixed(-1) < Mixed(1)]))
RESULTS.append(bits([Three(1) < Three(-1), Three(-1) < Three(1)]))

try:
    Three("x") < Plain()
    RESULTS.append(1)
except TypeError:
    RESULTS.append(2)

try:
    Three("raise") == Plain()
    RESULTS.append(3)
except KeyError:
    RESULTS.append(4)


def ordered(a, b):
    try:
        return int(a < b)
    except KeyError:
        return -1


RESULTS.append(ordered(Three(-1), Plain()))
RESULTS.append(ordered(Plain(), Three("raise")))

A = 1
S = "s"

try:
    x = A + "s"
    RESULTS.append(5)
except TypeError:
    RESULTS.append(6)

try:
    x = -S
    RESULTS.append(7)
except TypeError:
    RESULTS.append(8)

try:
    x = S / 2
    RESULTS.append(9)
except TypeError:
    RESULTS.append(10)

try:
    RESULTS.append(int(3 in 5))
except TypeError:
    RESULTS.append(11)


def add_or_minus_one(a, b):
    try:
        return a + b
    except TypeError:
        return -1


RESULTS.append(add_or_minus_one(2, 3))
RESULTS.append(add_or_minus_one(2, "x"))


def nested(depth):
    x = ()
    for i in range(depth):
        x = (x,)
    return x


T = nested(100000)
U = nested(100000)
D = {T: 12}
try:
    D[U] = 13
    RESULTS.append(14)
except RuntimeError:
    RESULTS.append(15)
RESULTS.append(len(D))
RESULTS.append(D[T])


class NoCmp(object):
    def __cmp__(self, other):
        return NotImplemented


class OldNoCmp:
    def __cmp__(self, other):
        return NotImplemented


a = NoCmp()
b = NoCmp()
o = OldNoCmp()
p = OldNoCmp()
q = Plain()
RESULTS.append(bits([a == a, a != a, a == b, a != b, a == 3, 3 == a, a != 3]))
RESULTS.append(bits([a == Three(0), Three(0) == a, a != Three(0), Three(1) == a,
                     a < Three(-1), Three(-1) < a, a > Three(1)]))
RESULTS.append(bits([o == o, o == p, o != p, o == 3, 3 == o, o == Three(0),
                     Three(0) == o, q == q, q == Plain()]))
RESULTS.append(bits([OldStyle(0) == Three(1), Three(1) == OldStyle(0),
                     Three(1) < OldStyle(0), OldStyle(-1) < Three(-1)]))


def checked_product(a, b):
    try:
        return ovfcheck(a * b)
    except OverflowError:
        return -3


M = sys.maxint
for f in [lambda: ovfcheck(M * 3), lambda: ovfcheck(M + 1), lambda: ovfcheck(-M - 2),
          lambda: ovfcheck(-M - 1), lambda: ovfcheck(M * 4 // 8), lambda: ovfcheck(1 << 63),
          lambda: ovfcheck(1 << 62), lambda: ovfcheck(M * M - M * M),
          lambda: ovfcheck(M * M * M * M), lambda: ovfcheck(-(-M - 1))]:
    try:
        RESULTS.append(f() % 1000)
    except OverflowError:
        RESULTS.append(-4)
try:
    x = ovfcheck(M * 2)
    RESULTS.append(18)
except OverflowError:
    RESULTS.append(19)
RESULTS.append(checked_product(M, 2))
RESULTS.append(checked_product(3, 4))
try:
    x = 1 << -1
    RESULTS.append(20)
except ValueError:
    RESULTS.append(21)
try:
    x = 8 >> -2
    RESULTS.append(22)
except ValueError:
    RESULTS.append(23)


def entry_point(argv):
    n = int(argv[1])
    for r in RESULTS:
        print r
    print add_or_minus_one(n, 4)
    print checked_product(n, M)
    print checked_product(n, 7)
    return 0


def target(*args):
    return entry_point


if __name__ == "__main__":
    entry_point(sys.argv)

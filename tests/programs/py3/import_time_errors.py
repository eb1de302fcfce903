# Import-time operations that raise inside a `try` (run by the object
# interpreter, whose handlers must receive them as CPython's do):
# arithmetic on a value of the wrong type, `3 in 5` of two constants,
# `ovfcheck` of such arithmetic, a dict store whose key comparison goes
# deeper than the recursion limit (which must leave the dict unchanged),
# `ovfcheck` of arithmetic whose exact result leaves the machine word
# (import-time ints are Python's: OverflowError, also from a function) and
# a shift by a negative constant count.
# A function called at import time and by translated code catches
# TypeError around `+`, another anything around `ovfcheck(a + b)`;
# translated code keeps its plain `+` and `ovfcheck`.
# The values are ints, printed the same by CPython and translated code.
# args: 6
import sys
from rpython.rlib.rarithmetic import ovfcheck

RESULTS = []
A = 1
S = "s"

try:
    x = A + "s"
    RESULTS.append(1)
except TypeError:
    RESULTS.append(2)

try:
    x = S - A
    RESULTS.append(3)
except TypeError:
    RESULTS.append(4)

try:
    x = -S
    RESULTS.append(5)
except TypeError:
    RESULTS.append(6)

try:
    x = S // 2
    RESULTS.append(7)
except TypeError:
    RESULTS.append(8)

try:
    x = S // A
    RESULTS.append(9)
except ZeroDivisionError:
    RESULTS.append(10)
except TypeError:
    RESULTS.append(11)

try:
    x = A << -A
    RESULTS.append(12)
except ValueError:
    RESULTS.append(13)

try:
    x = "%d" % S
    RESULTS.append(14)
except TypeError:
    RESULTS.append(15)

try:
    x = S ** 2
    RESULTS.append(16)
except TypeError:
    RESULTS.append(17)

try:
    RESULTS.append(int(3 in 5))
except TypeError:
    RESULTS.append(18)

try:
    x = ovfcheck(A + S)
    RESULTS.append(19)
except TypeError:
    RESULTS.append(20)

try:
    x = ovfcheck(A - S)
    RESULTS.append(21)
except Exception:
    RESULTS.append(22)

try:
    x = A * A
    RESULTS.append(25)
finally:
    RESULTS.append(26)


def add_or_minus_one(a, b):
    try:
        return a + b
    except TypeError:
        return -1


def checked_sum(a, b):
    try:
        return ovfcheck(a + b)
    except Exception:
        return -2


RESULTS.append(add_or_minus_one(2, 3))
RESULTS.append(add_or_minus_one(2, "x"))
RESULTS.append(checked_sum(2, 5))
RESULTS.append(checked_sum(2, "x"))
RESULTS.append(checked_sum(sys.maxsize, 1))
RESULTS.append(checked_sum(-sys.maxsize, -1) % 1000)

M = sys.maxsize
for f in [lambda: ovfcheck(M * 3), lambda: ovfcheck(M + 1), lambda: ovfcheck(-M - 2),
          lambda: ovfcheck(-M - 1), lambda: ovfcheck(M * 4 // 8), lambda: ovfcheck(1 << 63),
          lambda: ovfcheck(1 << 62), lambda: ovfcheck(M * M - M * M),
          lambda: ovfcheck(M * M * M * M), lambda: ovfcheck(-(-M - 1)),
          lambda: ovfcheck((M * 5) % 7), lambda: ovfcheck(M ** 2 >> 70),
          lambda: ovfcheck(abs(-M - 1))]:
    try:
        RESULTS.append(f() % 1000)
    except OverflowError:
        RESULTS.append(-4)
try:
    x = ovfcheck(M * 2)
    RESULTS.append(33)
except OverflowError:
    RESULTS.append(34)
try:
    x = 1 << -1
    RESULTS.append(35)
except ValueError:
    RESULTS.append(36)
try:
    x = 8 >> -2
    RESULTS.append(37)
except ValueError:
    RESULTS.append(38)


def nested(depth):
    x = ()
    for i in range(depth):
        x = (x,)
    return x


T = nested(100000)
U = nested(100000)
D = {T: 27}
try:
    D[U] = 28
    RESULTS.append(29)
except RecursionError:
    RESULTS.append(30)
RESULTS.append(len(D))
RESULTS.append(D[T])
try:
    del D[U]
    RESULTS.append(31)
except RecursionError:
    RESULTS.append(32)
RESULTS.append(len(D))


def entry_point(argv):
    n = int(argv[1])
    for r in RESULTS:
        print(r)
    print(add_or_minus_one(n, 4))
    print(checked_sum(n, sys.maxsize))
    print(checked_sum(n, 7))
    return 0


def target(*args):
    return entry_point


if __name__ == "__main__":
    entry_point(sys.argv)

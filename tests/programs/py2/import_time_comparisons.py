# Comparisons that raise inside a `try` at import time (Python 2 syntax;
# CPython 2 raises RuntimeError for data nested too deep), in module-level
# code and in a function it calls (run by the object interpreter, whose
# handlers must receive them as CPython's do): `1 < "a"` (which Python 2
# answers), a class whose `__eq__`/`__lt__` raises, lists nested too deep
# to compare or print.
# Hashing a tuple nested 100,000 deep works, as in CPython; translated code
# compares inside a `try` too.
# The values are ints, printed the same by CPython and translated code.
# args: 7
import sys


class Touchy(object):
    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        raise ValueError("no eq")

    def __lt__(self, other):
        if self.n < 0:
            raise KeyError(self.n)
        return self.n < other.n


RESULTS = []

try:
    x = int(1 < "a")
except TypeError:
    x = -1
RESULTS.append(x)

try:
    y = Touchy(1) == Touchy(2)
    RESULTS.append(1)
except ValueError:
    RESULTS.append(2)

try:
    RESULTS.append(int(Touchy(1) != Touchy(2)))
except ValueError:
    RESULTS.append(3)

try:
    z = Touchy(-5) < Touchy(3)
    RESULTS.append(4)
except KeyError:
    RESULTS.append(5)
except Exception:
    RESULTS.append(6)

RESULTS.append(int(Touchy(1) < Touchy(3)))
RESULTS.append(int(Touchy(4) > Touchy(3)))

FIVE = 5
try:
    RESULTS.append(int(3 in FIVE))
except TypeError:
    RESULTS.append(7)


def compare_all(pairs):
    out = []
    for a, b in pairs:
        try:
            if a <= b:
                out.append(1)
            else:
                out.append(0)
        except TypeError:
            out.append(9)
        finally:
            out.append(8)
    return out


RESULTS.extend(compare_all([(1, 2), (3, "x"), ("b", "a"), ((1, 2), (1, "z"))]))


def nested(make, depth):
    x = make(())
    for i in range(depth):
        x = make(x)
    return x


def in_list(x):
    return [x]


def in_tuple(x):
    return (x,)


def deep_values():
    out = []
    a = nested(in_list, 5000)
    b = nested(in_list, 5000)
    try:
        out.append(int(a == b))
    except RuntimeError:
        out.append(10)
    try:
        out.append(len(repr(a)))
    except RuntimeError:
        out.append(11)
    try:
        out.append(len(str(a)))
    except RuntimeError:
        out.append(12)
    t = nested(in_tuple, 100000)
    u = nested(in_tuple, 100000)
    out.append(int(hash(t) == hash(u)))
    out.append(int(hash(t) == hash(((),))))
    out.append(int(t == t))
    d = {t: 13}
    out.append(d[t])
    try:
        out.append(d[u])
    except RuntimeError:
        out.append(15)
    try:
        out.append(hash(nested(in_list, 100000)))
    except TypeError:
        out.append(14)
    return out


RESULTS.extend(deep_values())


def clamp(v, lo, hi):
    try:
        if v < lo:
            return lo
        if v > hi:
            raise ValueError("high")
        return v
    except ValueError:
        return -hi


def entry_point(argv):
    n = int(argv[1])
    for r in RESULTS:
        print(r)
    total = 0
    for i in range(n + 5):
        total += clamp(i, 2, n)
    print total
    return 0


def target(*args):
    return entry_point


if __name__ == "__main__":
    entry_point(sys.argv)

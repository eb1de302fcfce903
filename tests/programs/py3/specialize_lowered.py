# Specialized functions translated to the end: the copies the annotator
# makes are ordinary graphs for the rtyper and the C backend. A clamp
# specialized on its argument's type (ints and floats), a power specialized
# on its constant exponent, a memo function computed while translating and
# a counter helper copied per call site.
# args: 9
import sys

from rpython.rlib.objectmodel import specialize


@specialize.argtype(0)
def clamp(value, low, high):
    if value < low:
        return low
    if value > high:
        return high
    return value


@specialize.arg(1)
def power(base, exponent):
    result = 1
    for i in range(exponent):
        result *= base
    return result


@specialize.memo()
def cells_in(name):
    # Runs while translating: the program reads its result as a constant.
    return len(name) * len(name) + 1


@specialize.call_location()
def halved(x):
    return x / 2


def entry_point(argv):
    n = int(argv[1])
    print(clamp(n, 0, 5))
    print(clamp(n * 0.75, 0.5, 10.0))
    print(power(n, 2) + power(n, 3))
    print(cells_in("grid") + n)
    print(halved(n * 3.0))
    print(halved(float(n)) + 0.5)
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

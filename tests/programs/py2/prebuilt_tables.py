# Tables built at import time and used by the translated program: a list of
# functions (translated only because the table holds them), a dict, shared
# lists, and rlib names.
# args: 3
import sys

from rpython.rlib.objectmodel import specialize
from rpython.rlib.rarithmetic import LONG_BIT, intmask


def double(x):
    return x * 2


def square(x):
    return x * x


def negate(x):
    return -x


OPERATIONS = [double, square, negate]

NAMES = {}
for index in range(len(OPERATIONS)):
    NAMES[index] = "op%d" % index

SHARED = [0]
BOTH = [SHARED, SHARED]
LIMITS = (LONG_BIT, intmask(2 ** 31))


@specialize.argtype(0)
def describe(value):
    return "<%s>" % str(value)


def entry_point(argv):
    n = int(argv[1])
    for i in range(len(OPERATIONS)):
        print NAMES[i], OPERATIONS[i](n)
    BOTH[0][0] += n
    print "shared", SHARED[0], BOTH[1][0]
    print "limits", LIMITS[0], LIMITS[1], describe(n)
    return 0


def target(driver, args):
    return entry_point


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

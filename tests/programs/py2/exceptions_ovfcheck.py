# ovfcheck(x OP y) from rpython.rlib.rarithmetic: the overflow-checking
# operation, whose OverflowError a handler catches; machine words wrap
# elsewhere, as translated.
# args: 40
import sys
from rpython.rlib.rarithmetic import ovfcheck, maxint


def checked_power(base, n):
    result = 1
    i = 0
    while i < n:
        try:
            result = ovfcheck(result * base)
        except OverflowError, e:
            print "overflow at step " + str(i) + ": " + str(e)
            return -1
        i += 1
    return result


def checked_sum(a, b):
    try:
        return ovfcheck(a + b)
    except OverflowError:
        return 0


def entry_point(argv):
    n = int(argv[1])
    print checked_power(3, 10)
    print checked_power(3, n)
    print checked_power(-2, 63)
    print checked_sum(n, 2)
    print checked_sum(maxint, n)
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

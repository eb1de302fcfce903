# intmask on machine words: a multiplicative string hash whose products
# wrap as the translated program's words do (CPython's ints do not, so the
# program masks each step, as RPython code does).
# args: hello rpython
import sys

from rpython.rlib.rarithmetic import intmask


def string_hash(s):
    if len(s) == 0:
        return -1
    x = intmask(ord(s[0]) << 7)
    i = 0
    while i < len(s):
        x = intmask((1000003 * x) ^ ord(s[i]))
        i += 1
    return intmask(x ^ len(s))


def entry_point(argv):
    i = 1
    while i < len(argv):
        print(argv[i] + " " + str(string_hash(argv[i])))
        i += 1
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

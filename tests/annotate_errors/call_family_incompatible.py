# A variable holding one of two functions that take different numbers of
# arguments: the call through it cannot fit both (CPython only ever picks
# the first here).
import sys


def scale(x):
    return x * 10


def offset(x, delta):
    return x + delta


def entry_point(argv):
    n = len(argv)
    adjust = scale if n < 100 else offset
    print(adjust(n))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

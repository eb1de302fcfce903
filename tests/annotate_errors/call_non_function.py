# Calling an int (only when the condition holds, so CPython runs fine).
import sys


def entry_point(argv):
    n = len(argv)
    if n > 100:
        print(n(1))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

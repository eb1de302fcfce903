# A function returning an int on one path and None on another.
import sys


def first_positive(n):
    if n > 0:
        return n
    return None


def entry_point(argv):
    print(first_positive(len(argv) - 1))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

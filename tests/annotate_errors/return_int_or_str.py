# A function returning an int on one path and a str on another.
import sys


def describe(n):
    if n > 2:
        return "many"
    return n


def entry_point(argv):
    print(describe(len(argv)))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

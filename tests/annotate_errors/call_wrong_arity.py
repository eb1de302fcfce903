# One function called with two different numbers of arguments.
import sys


def scale(x, factor):
    return x * factor


def entry_point(argv):
    print(scale(len(argv), 2))
    if len(argv) > 100:
        print(scale(len(argv)))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

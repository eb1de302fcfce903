# Reading an attribute that an int never has.
import sys


def entry_point(argv):
    n = len(argv)
    if n > 100:
        print(n.size)
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

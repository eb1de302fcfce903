# A lambda closing over a local variable.
import sys


def entry_point(argv):
    n = len(argv)
    add_n = lambda x: x + n
    print(add_n(1))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

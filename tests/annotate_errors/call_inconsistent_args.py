# One parameter given an int at one call and a str at another.
import sys


def show(value):
    print(value)
    return 0


def entry_point(argv):
    show(len(argv))
    show(argv[0])
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

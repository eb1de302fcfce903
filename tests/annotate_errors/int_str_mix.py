# A variable that is an int on one path and a str on another.
import sys


def entry_point(argv):
    x = len(argv) - 1
    if len(argv) > 2:
        x = argv[1] + "!"
    print(x)
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

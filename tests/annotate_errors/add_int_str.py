# Adding a str to an int: Python raises TypeError at run time, RPython rejects it.
import sys


def entry_point(argv):
    n = len(argv)
    if n > 5:
        print(n + argv[0])
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

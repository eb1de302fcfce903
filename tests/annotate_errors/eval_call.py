# eval() needs an interpreter at run time: not RPython.
import sys


def entry_point(argv):
    if len(argv) > 100:
        print(eval(argv[1]))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

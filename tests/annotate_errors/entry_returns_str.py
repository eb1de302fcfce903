# The entry point must return the exit status, an int.
import sys


def entry_point(argv):
    if len(argv) > 100:
        return "failed"
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    entry_point(sys.argv)

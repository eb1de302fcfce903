# A name that is never defined (only reached when the condition holds).
import sys


def entry_point(argv):
    if len(argv) > 100:
        print(undefined_helper(argv))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

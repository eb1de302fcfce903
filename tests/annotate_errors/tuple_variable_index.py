# Indexing a tuple of an int and a str with a value known only at run time.
import sys


def entry_point(argv):
    pair = (len(argv), "two")
    print(pair[len(argv) - 1])
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

# A list holding an int and a str.
import sys


def entry_point(argv):
    items = [len(argv), "two"]
    print(len(items))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

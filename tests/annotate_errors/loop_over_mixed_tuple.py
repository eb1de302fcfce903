# A loop over a tuple whose items have different types: the loop variable
# would be an int, then a str.
import sys


def entry_point(argv):
    for item in (len(argv), "two"):
        print(item)
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

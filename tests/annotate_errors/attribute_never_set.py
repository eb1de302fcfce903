# An attribute read that no code ever sets: CPython only fails if the read runs.
import sys


class Point(object):
    def __init__(self, x):
        self.x = x


def entry_point(argv):
    p = Point(len(argv))
    if len(argv) > 100:
        print(p.y)
    print(p.x)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

# A variable holding one of two functions with default values, called
# without the defaulted argument: only calls that name the function get
# the defaults filled in.
import sys


def one(x, y=2):
    return x + y


def two(x, y=3):
    return x * y


def entry_point(argv):
    f = one if len(argv) > 1 else two
    print(f(1, 5))
    print(f(4))
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

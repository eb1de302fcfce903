# A memo function is run while translating, on constant arguments; here
# its argument is only known when the program runs.
import sys

from rpython.rlib.objectmodel import specialize


@specialize.memo()
def squares(size):
    return [i * i for i in range(size)]


def entry_point(argv):
    table = squares(len(argv) + 3)
    print(table[2])
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

# A function specialized per argument type, held in a variable with
# another function: the call through the variable names no copy.
import sys

from rpython.rlib.objectmodel import specialize


@specialize.argtype(0)
def show(value):
    return "<" + str(value) + ">"


def plain(value):
    return str(value)


def entry_point(argv):
    render = show if len(argv) > 1 else plain
    print(render(len(argv)))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

# @specialize.arg(1) makes one copy per value of the argument, so each
# call must pass a constant there; this one passes a number read at run
# time.
import sys

from rpython.rlib.objectmodel import specialize


@specialize.arg(1)
def repeat(text, times):
    out = ""
    for i in range(times):
        out += text
    return out


def entry_point(argv):
    print(repeat("ab", 2))
    print(repeat("c", len(argv)))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

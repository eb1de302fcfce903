# Boxed numbers with double dispatch, as in the seed on escape analysis:
# every arithmetic step allocates a box and makes two method calls. The
# backend optimizations turn the hot loop into plain integer arithmetic.
# args: 100000
import sys


class Base(object):
    def add(self, other):
        raise NotImplementedError("abstract")

    def add__int(self, intother):
        raise NotImplementedError("abstract")

    def is_positive(self):
        raise NotImplementedError("abstract")


class BoxedInteger(Base):
    def __init__(self, intval):
        self.intval = intval

    def add(self, other):
        return other.add__int(self.intval)

    def add__int(self, intother):
        return BoxedInteger(intother + self.intval)

    def is_positive(self):
        return self.intval > 0


class BoxedFloat(Base):
    def __init__(self, floatval):
        self.floatval = floatval

    def add(self, other):
        return other.add__float(self.floatval)

    def add__int(self, intother):
        return BoxedFloat(float(intother) + self.floatval)

    def add__float(self, floatother):
        return BoxedFloat(floatother + self.floatval)

    def is_positive(self):
        return self.floatval > 0.0


def f(y):
    res = BoxedInteger(0)
    while y.is_positive():
        res = res.add(y).add(BoxedInteger(-100))
        y = y.add(BoxedInteger(-1))
    return res


def show(box):
    if isinstance(box, BoxedInteger):
        return "int " + str(box.intval)
    return "other"


def entry_point(argv):
    n = int(argv[1])
    print(show(f(BoxedInteger(n))))
    print(show(f(BoxedInteger(n // 1000))))
    return 0


def target(*args):
    return entry_point


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

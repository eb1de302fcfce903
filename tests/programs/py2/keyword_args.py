# Keyword arguments, default values and *args: calls to the program's
# functions, class constructors and methods, at import time and in
# translated code, with defaults that are literals and module constants.
# args: 5
import sys

LIMIT = 100


def clamp(value, low=0, high=LIMIT):
    if value < low:
        return low
    if value > high:
        return high
    return value


def describe(name, count=1, unit="item", plural=True):
    text = name + ": " + str(count) + " " + unit
    if plural and count != 1:
        text += "s"
    return text


def total(first, *rest):
    result = first
    for r in rest:
        result += r
    return result + len(rest) * 1000


def forward(*args):
    return total(*args)


class Counter(object):
    def __init__(self, start=0, step=1):
        self.value = start
        self.step = step

    def bump(self, times=1):
        self.value += self.step * times
        return self.value

    def bump_all(self, *amounts):
        for a in amounts:
            self.value += a
        return len(amounts)

    def show(self, prefix="counter", suffix=""):
        return prefix + "=" + str(self.value) + suffix


class Box(object):
    def __init__(self, width, height=1):
        self.width = width
        self.height = height

    def render(self, prefix="box", suffix=""):
        return prefix + " " + str(self.width) + "x" + str(self.height) + suffix


class Crate(Box):
    pass


START = Counter(step=10)
CRATE = Crate(height=3, width=2)
START.bump(times=2)
WIDE = Box(height=2, width=7)
SUMS = (total(1, 2, 3), total(5), forward(1, 1))
PAIR = (3, 4)


def entry_point(argv):
    n = int(argv[1])
    print clamp(n)
    print clamp(n, 6)
    print clamp(n, high=3)
    print clamp(high=4, value=-n, low=-2)
    print describe("apple")
    print describe("pear", n)
    print describe("plum", count=n, plural=False)
    print describe(unit="crate", name="fig", count=n)
    c = Counter()
    c.bump()
    c.bump(n)
    c.bump(times=3)
    print c.show()
    print c.show(suffix="!")
    print START.show(prefix="start")
    d = Counter(5, step=n)
    d.bump()
    print d.show("d")
    print WIDE.render()
    print Box(n).render(suffix=".")
    print total(n)
    print total(n, n, n)
    print total(*PAIR)
    print total(n, *PAIR)
    print forward(n, 2)
    print clamp(*(n, 1, 2))
    print SUMS[0] + SUMS[1] + SUMS[2]
    print CRATE.render(prefix="crate")
    c.bump_all()
    c.bump_all(1, 2, n)
    c.bump_all(*PAIR)
    print c.show(prefix="after bump_all")
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

# import_from_mixin: each class that imports the mixin gets its own copy of
# the mixin's methods (and __init__); a class may override one of them by
# defining it after the import.
# args: 3
import sys
from rpython.rlib.objectmodel import import_from_mixin


class CounterMixin(object):
    def __init__(self, start):
        self.count = start

    def bump(self, n):
        self.count += n * self.step()
        return self

    def step(self):
        return 1

    def describe(self):
        return "%s=%d" % (self.name(), self.count)


class Apples(object):
    import_from_mixin(CounterMixin)

    def name(self):
        return "apples"


class Pears(object):
    import_from_mixin(CounterMixin)

    def name(self):
        return "pears"

    def step(self):
        return 10


def entry_point(argv):
    n = int(argv[1])
    a = Apples(n)
    p = Pears(1)
    a.bump(2).bump(n)
    p.bump(n)
    print(a.describe(), p.describe())
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

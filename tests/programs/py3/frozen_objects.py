# Frozen prebuilt objects: instances whose class has a _freeze_ returning
# True are constants of the translated program, as an interpreter's "space"
# and its configuration are. Their attributes read as constants, their
# methods are called bound to them (a specialized one too: wrap_any, by the
# type of its argument), and a variable may hold one of several.
# args: 7
import sys
from rpython.rlib.objectmodel import specialize


class Config(object):
    def __init__(self, name, limit, verbose):
        self.name = name
        self.limit = limit
        self.verbose = verbose

    def _freeze_(self):
        return True

    def clamp(self, n):
        if n > self.limit:
            return self.limit
        return n


FAST = Config("fast", 10, False)
CAREFUL = Config("careful", 3, True)


class Space(object):
    def __init__(self, config):
        self.config = config
        self.names = ["zero", "one", "two", "three"]

    def _freeze_(self):
        return True

    def wrap(self, n):
        return Box(self.config.clamp(n))

    @specialize.argtype(1)
    def wrap_any(self, x):
        if isinstance(x, int):
            return self.wrap(x)
        return Box(len(x))

    def add(self, a, b):
        return Box(a.value + b.value)

    def name_of(self, box):
        if box.value < len(self.names):
            return self.names[box.value]
        return "many"


class Box(object):
    def __init__(self, value):
        self.value = value


SPACE = Space(FAST)


def choose(careful):
    if careful:
        return CAREFUL
    return FAST


def run(space, n):
    total = space.wrap(0)
    i = 0
    while i < n:
        total = space.add(total, space.wrap(i))
        i += 1
    return total


def entry_point(argv):
    n = int(argv[1])
    result = run(SPACE, n)
    print(SPACE.name_of(result) + " " + str(result.value))
    print(SPACE.name_of(SPACE.wrap(2)))
    print(SPACE.name_of(SPACE.add(SPACE.wrap_any(n), SPACE.wrap_any("ab"))))
    for careful in [False, True]:
        config = choose(careful)
        line = config.name + ": " + str(config.clamp(n))
        if config.verbose:
            line += " (verbose)"
        print(line)
    print(SPACE.config.limit)
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

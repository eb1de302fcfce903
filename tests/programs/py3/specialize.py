# Specialization: one function of the source, several translated copies.
# Generic helpers specialized on their arguments' types (used with ints,
# floats and strings), one specialized on a constant argument (a function
# passed in), a memo function computing a table per unit class while
# translating, a helper copied per call site, a *args function called with
# different numbers of arguments, and a call through a variable holding
# one of two functions.
# args: 7
import sys

from rpython.rlib.objectmodel import specialize


@specialize.argtype(0, 1)
def max_of(a, b):
    if a > b:
        return a
    return b


@specialize.argtype(0)
def format_value(value):
    return "<" + str(value) + ">"


@specialize.arg(0)
def apply_twice(func, x):
    return func(func(x))


def double(x):
    return x * 2


def square(x):
    return x * x


def increment(x):
    return x + 1


class Unit(object):
    symbol = "?"
    factors = [1]

    def __init__(self, amount):
        self.amount = amount


class Meters(Unit):
    symbol = "m"
    factors = [1, 100, 1000]


class Seconds(Unit):
    symbol = "s"
    factors = [1, 60, 3600]


class Scale(object):
    def __init__(self, symbol, steps):
        self.symbol = symbol
        self.steps = steps


@specialize.memo()
def scale_for(cls):
    # Runs while translating, once per class: the translated program reads
    # the table it built.
    steps = [f * 10 for f in cls.factors]
    return Scale(cls.symbol, steps)


@specialize.memo()
def label_width(kind):
    return len(kind) + 2


@specialize.call_location()
def singleton(item):
    return [item]


def join_all(sep, *parts):
    text = ""
    for p in parts:
        if text:
            text += sep
        text += p
    return text


@specialize.arg(0)
def describe(unit_cls, amount):
    scale = scale_for(unit_cls)
    total = 0
    for step in scale.steps:
        total += step * amount
    return format_value(total) + scale.symbol


def entry_point(argv):
    n = int(argv[1])
    print(max_of(n, 3))
    print(max_of(n * 0.5, 2.25))
    print(max_of("pear", argv[1]))
    print(format_value(n) + format_value(n / 4.0) + format_value("x"))
    print(apply_twice(double, n))
    print(apply_twice(increment, n))
    print(describe(Meters, n))
    print(describe(Seconds, n + 1))
    print(label_width("meters") + label_width("s"))
    numbers = singleton(n)
    names = singleton(argv[1])
    numbers.append(n + 1)
    names.append("seven")
    print(len(numbers) + len(names))
    print(join_all(", ", "a", argv[1]))
    print(join_all("-", "x", "y", "z"))
    op = double if n > 5 else square
    print(op(n))
    other = square if n > 100 else double
    print(other(n + 1))
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

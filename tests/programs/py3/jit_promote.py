# A pricing engine: an order book is run through a tariff many times. The
# tariff in force changes rarely, so the interpreter promotes it
# (`promote`) and looks its rates up with an `elidable` function: in a
# trace, the rates of the promoted tariff are constants, and the lookups
# fold away. A change of tariff fails the promotion's guard.
# args: 3000
import sys
from rpython.rlib.jit import JitDriver, promote, elidable

driver = JitDriver(greens=["pc"], reds=["n", "total", "book"])


class Tariff(object):
    def __init__(self, name, base, per_unit, discount_from):
        self.name = name
        self.base = base
        self.per_unit = per_unit
        self.discount_from = discount_from


@elidable
def rate(tariff, units):
    if units >= tariff.discount_from:
        return tariff.per_unit - 1
    return tariff.per_unit


class Book(object):
    def __init__(self, tariffs):
        self.tariffs = tariffs
        self.current = tariffs[0]
        self.changes = 0

    def tariff(self):
        return promote(self.current)

    def switch(self, k):
        self.current = self.tariffs[k % len(self.tariffs)]
        self.changes += 1


def price(book, units):
    tariff = book.tariff()
    step = promote(units % 4)
    return tariff.base + rate(tariff, step * 10) * (units + step)


def run(n, book):
    pc = 0
    total = 0
    while n > 0:
        driver.jit_merge_point(pc=pc, n=n, total=total, book=book)
        total += price(book, n % 13)
        if n % 700 == 0:
            book.switch(n // 700)
        n -= 1
        driver.can_enter_jit(pc=pc, n=n, total=total, book=book)
    return total


def entry_point(argv):
    n = 3000
    if len(argv) > 1:
        n = int(argv[1])
    tariffs = [Tariff("day", 7, 5, 20), Tariff("night", 3, 2, 10), Tariff("flat", 10, 1, 100)]
    book = Book(tariffs)
    total = run(n, book)
    print("total %d after %d changes, ending on %s" % (total, book.changes, book.current.name))
    return 0


def target(*args):
    return entry_point


if __name__ == "__main__":
    entry_point(sys.argv)

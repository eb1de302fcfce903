# A buffer pool whose objects give their resources back in __del__, as an
# interpreter's file and socket objects close themselves when they die.
# Each phase runs in a function of its own and returns only ints, so that
# when gc.collect() runs (between phases, in entry_point) exactly the
# objects that phase dropped are dead, under CPython's reference counting
# as under a tracing collector. (A collector finds an object dead only once
# no frame holds it: the phases are not inlined into entry_point, whose
# frame would keep their dead locals until it returns.) Only sums and
# counts are printed: the order in which the dead objects' __del__ run is
# not the same.
# Python 2 twin: print statements, xrange, integer /.
# args: 300
import gc
from rpython.rlib.objectmodel import dont_inline


class Ledger(object):
    def __init__(self):
        self.opened = 0
        self.closed = 0
        self.released = 0
        self.id_sum = 0
        self.names = []


LEDGER = Ledger()


class Buffer(object):
    def __init__(self, ident, size):
        self.ident = ident
        self.data = [ident % 251] * size
        LEDGER.opened += 1

    def checksum(self):
        total = 0
        for x in self.data:
            total = (total * 31 + x) & 0xffff
        return total

    def __del__(self):
        LEDGER.closed += 1
        LEDGER.released += len(self.data)
        LEDGER.id_sum += self.ident


class NamedBuffer(Buffer):
    """Its __del__ allocates: a string and a list item."""

    def __init__(self, ident, name):
        Buffer.__init__(self, ident, len(name))
        self.name = name

    def __del__(self):
        Buffer.__del__(self)
        LEDGER.names.append(self.name.upper() + "!")


class Pool(object):
    """Keeps some buffers alive; the others die with the phase. Its list
    is made when the program starts: a list built at import time is part
    of the executable, never freed, and neither is what it holds."""

    def __init__(self):
        self.kept = []

    def keep(self, buf):
        self.kept.append(buf)

    def drop_every(self, k):
        survivors = []
        for i in xrange(len(self.kept)):
            if i % k != 0:
                survivors.append(self.kept[i])
        self.kept = survivors


POOL = Pool()


@dont_inline
def churn(n):
    total = 0
    for i in xrange(n):
        buf = Buffer(i, i % 13 + 1)
        total = (total + buf.checksum()) & 0xffffff
        if i % 4 == 0:
            POOL.keep(buf)
    return total


@dont_inline
def named(n):
    words = ["alpha", "beta", "gamma", "delta", "epsilon"]
    count = 0
    for i in xrange(n):
        nb = NamedBuffer(1000 + i, words[i % len(words)] + str(i))
        if i % 5 == 0:
            POOL.keep(nb)
        count += len(nb.name)
    return count


@dont_inline
def nested(n):
    # Buffers reachable only through other dead objects die too.
    chains = []
    for i in xrange(n):
        chains.append([Buffer(5000 + i, 3), Buffer(6000 + i, 2)])
    return len(chains)


@dont_inline
def drop_half():
    POOL.drop_every(2)
    return len(POOL.kept)


@dont_inline
def clear():
    POOL.kept = []
    return 0


def report(label):
    gc.collect()
    names = LEDGER.names
    sample = ""
    if len(names) > 0:
        least = names[0]
        most = names[0]
        for name in names:
            if name < least:
                least = name
            if name > most:
                most = name
        sample = least + " " + most
    print label + ": opened %d closed %d released %d ids %d names %d %s" % (
        LEDGER.opened, LEDGER.closed, LEDGER.released, LEDGER.id_sum,
        len(names), sample)


def entry_point(argv):
    n = 100
    if len(argv) > 1:
        n = int(argv[1])
    clear()
    report("start")
    print "churn checksum %d" % churn(n)
    report("after churn")
    print "named letters %d" % named(n / 3)
    report("after named")
    print "nested chains %d" % nested(n / 4)
    report("after nested")
    print "kept %d" % drop_half()
    report("after drop")
    clear()
    report("after clear")
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    import sys
    entry_point(sys.argv)

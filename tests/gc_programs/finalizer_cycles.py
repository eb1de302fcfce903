# Objects with a __del__ in reference cycles, which only a tracing
# collection finds dead (CPython 3 finalizes them in gc.collect() too), and
# a __del__ that raises: the exception is reported on stderr and dropped,
# and the program goes on. tests/gc.rs runs it as an executable against
# CPython 3.
# args: 200
import gc


class Tally(object):
    def __init__(self):
        self.finalized = 0
        self.weight = 0


TALLY = Tally()


class Peer(object):
    def __init__(self, ident):
        self.ident = ident
        self.other = None

    def __del__(self):
        TALLY.finalized += 1
        TALLY.weight += self.ident


class Fragile(object):
    def __init__(self, ident):
        self.ident = ident

    def __del__(self):
        TALLY.finalized += 1
        if self.ident % 2 == 0:
            raise ValueError("fragile %d" % self.ident)


def make_pairs(n):
    for i in range(n):
        a = Peer(i)
        b = Peer(1000 + i)
        a.other = b
        b.other = a
    return n


def make_ring(n):
    first = Peer(5000)
    last = first
    for i in range(1, n):
        p = Peer(5000 + i)
        last.other = p
        last = p
    last.other = first
    return n


def make_fragile(n):
    for i in range(n):
        Fragile(i)
    return n


def report(label):
    gc.collect()
    print("%s: finalized %d weight %d" % (label, TALLY.finalized, TALLY.weight))


def entry_point(argv):
    n = int(argv[1])
    make_pairs(n)
    report("pairs")
    make_ring(n)
    report("ring")
    make_fragile(10)
    report("fragile")
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    import sys
    entry_point(sys.argv)

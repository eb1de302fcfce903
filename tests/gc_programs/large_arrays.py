# A population simulation over large, long-lived arrays: a table of
# creatures (a list far larger than a card of 128 items) whose slots are
# replaced by newborns at scattered positions, a registry (dict) of some
# of them, and a grid of rows that are rewritten now and then. The table,
# the registry's entries and the rows are old after the first collections;
# every store of a newborn into them must be found by the next minor
# collection, through the card of the slot it was stored in.
import sys


class Creature(object):
    def __init__(self, name, energy, parent):
        self.name = name
        self.energy = energy
        self.parent = parent


def next_rand(seed):
    return (seed * 1103515245 + 12345) % 2147483648


def populate(n):
    table = []
    for i in range(n):
        table.append(Creature("c%d" % i, i % 17, None))
    return table


def make_grid(rows, width):
    grid = []
    for r in range(rows):
        row = []
        for c in range(width):
            row.append(None)
        grid.append(row)
    return grid


def lineage(c):
    """How many ancestors c has, and the sum of their energies."""
    depth = 0
    total = 0
    p = c.parent
    while p is not None:
        depth += 1
        total += p.energy
        p = p.parent
    return depth, total


def generation(table, registry, grid, seed, births):
    for k in range(births):
        seed = next_rand(seed)
        slot = (seed >> 4) % len(table)
        old = table[slot]
        child = Creature(old.name[:6] + "+", (old.energy * 3 + k) % 101, old)
        table[slot] = child
        if k % 7 == 0:
            registry[child.name + str(k % 50)] = child
        if k % 11 == 0:
            # Cut an old lineage, so that chains stay short and the cut
            # ancestors die.
            old.parent = None
        row = grid[(seed >> 9) % len(grid)]
        row[(seed >> 13) % len(row)] = child
    return seed


def checksum(table, registry, grid):
    energy = 0
    depths = 0
    ancestors = 0
    for c in table:
        energy = (energy * 31 + c.energy + len(c.name)) % 1000000007
        d, t = lineage(c)
        depths += d
        ancestors = (ancestors + t) % 1000000007
    named = 0
    for key in registry:
        named = (named * 17 + registry[key].energy + len(key)) % 1000000007
    filled = 0
    for row in grid:
        for c in row:
            if c is not None:
                filled += 1 + c.energy % 3
    return energy, depths, ancestors, named, filled


def entry_point(argv):
    n = int(argv[1])
    rounds = int(argv[2])
    table = populate(n)
    registry = {}
    grid = make_grid(40, n // 10 + 1)
    seed = 2024
    for r in range(rounds):
        seed = generation(table, registry, grid, seed, n // 3)
        if r % 5 == 4:
            # A fresh row now and then: an old grid gets a young row.
            grid[r % len(grid)] = [None] * (n // 10 + 1)
        e, d, a, named, filled = checksum(table, registry, grid)
        print("round %d: energy %d depth %d ancestors %d registry %d (%d) grid %d" % (
            r, e, d, a, len(registry), named, filled))
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

# A store inventory: a Perishable subclass calling its base's methods
# explicitly, items taken by name with KeyError and the program's own
# OutOfStock caught, empty items deleted from a list and a dict while
# walking it, and the builtins a report uses (enumerate, zip, divmod,
# hex, int(s, 16), max/min/index, %-10s).
# args: 3
import os

DATA = """apple 12 0.50 fruit
banana 30 0.25 fruit
carrot 8 0.10 vegetable
daikon 2 1.75 vegetable
eggplant 5 0.99 vegetable
fig 40 0.30 fruit
garlic 100 0.05 spice
"""


class Item(object):
    def __init__(self, name, count, price, kind):
        self.name = name
        self.count = count
        self.price = price
        self.kind = kind

    def value(self):
        return self.count * self.price

    def describe(self):
        return "%s x%d" % (self.name, self.count)


class Perishable(Item):
    def __init__(self, name, count, price, kind, days):
        Item.__init__(self, name, count, price, kind)
        self.days = days

    def value(self):
        base = Item.value(self)
        if self.days < 3:
            return base / 2.0
        return base

    def describe(self):
        return Item.describe(self) + " (%d days)" % self.days


class OutOfStock(Exception):
    pass


class Store(object):
    def __init__(self):
        self.items = []
        self.by_name = {}

    def add(self, item):
        self.items.append(item)
        self.by_name[item.name] = item

    def take(self, name, n):
        item = self.by_name.get(name, None)
        if item is None:
            raise KeyError(name)
        if item.count < n:
            raise OutOfStock()
        item.count -= n
        return item.price * n

    def remove_empty(self):
        i = 0
        removed = []
        while i < len(self.items):
            if self.items[i].count == 0:
                removed.append(self.items[i].name)
                del self.by_name[self.items[i].name]
                del self.items[i]
            else:
                i += 1
        return removed


def load(text):
    store = Store()
    for index, line in enumerate(text.split("\n")):
        parts = line.split()
        if len(parts) != 4:
            continue
        name, count, price, kind = parts[0], int(parts[1]), float(parts[2]), parts[3]
        if kind == "fruit":
            store.add(Perishable(name, count, price, kind, index + 1))
        else:
            store.add(Item(name, count, price, kind))
    return store


def main(argv):
    rounds = 3
    if len(argv) > 1:
        rounds = int(argv[1])
    store = load(DATA)
    total = 0.0
    for item in store.items:
        total += item.value()
    print "inventory value %.2f" % total
    kinds = {}
    for item in store.items:
        kinds[item.kind] = kinds.get(item.kind, 0) + item.count
    for kind in ["fruit", "vegetable", "spice"]:
        print "%-10s %4d" % (kind, kinds[kind])
    names = [item.name for item in store.items if item.count > 5]
    names.reverse()
    print ", ".join(names)
    counts = [item.count for item in store.items]
    print "max %d min %d at %d" % (max(counts), min(counts), counts.index(min(counts)))
    earned = 0.0
    requests = [("apple", 5), ("daikon", 3), ("kiwi", 1), ("garlic", 60), ("daikon", 2)]
    for r in range(rounds):
        for name, n in requests:
            try:
                earned += store.take(name, n)
            except OutOfStock:
                print "round %d: out of %s" % (r, name)
            except KeyError:
                print "round %d: no %s" % (r, name)
    print "earned %.3f" % earned
    print "removed: " + " ".join(store.remove_empty())
    for item in store.items:
        print item.describe()
    pairs = zip([i.name for i in store.items], [i.count for i in store.items])
    for name, count in pairs:
        q, rem = divmod(count, 7)
        print "%s %d weeks %d days %s" % (name, q, rem, hex(count))
    code = 0
    for ch in "inventory":
        code = (code * 31 + ord(ch)) % 1000003
    print "code %d %s %d" % (code, chr(65 + code % 26), int("ff", 16))
    return 0


def entry_point(argv):
    return main(argv)


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    import sys
    main(sys.argv)

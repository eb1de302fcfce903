# Optional lists and dicts: None until first needed, None as "no filter",
# None in one arm of a tuple, a class attribute that is None until filled.


class Node(object):
    def __init__(self, name):
        self.name = name
        self.children = None      # a list once the first child arrives
        self.attrs = None         # a dict once the first attribute is set

    def add(self, child):
        if self.children is None:
            self.children = []
        self.children.append(child)
        return child

    def set(self, key, value):
        if not self.attrs:
            self.attrs = {}
        self.attrs[key] = value

    def get(self, key, default):
        if self.attrs is None:
            return default
        return self.attrs.get(key, default)

    def count(self):
        n = 1
        if self.children:
            for c in self.children:
                n += c.count()
        return n


def sorted_keys(d):
    keys = []
    for k in d:
        i = len(keys)
        keys.append(k)
        while i > 0 and keys[i - 1] > k:
            keys[i] = keys[i - 1]
            i -= 1
        keys[i] = k
    return keys


def render(node, depth, skip):
    out = "  " * depth + node.name
    if node.attrs:
        keys = sorted_keys(node.attrs)
        for k in keys:
            out += " %s=%d" % (k, node.attrs[k])
    lines = [out]
    if node.children is not None:
        for c in node.children:
            if skip is not None and c.name in skip:
                continue
            lines.extend(render(c, depth + 1, skip))
    return lines


def find_all(node, name, acc):
    if acc is None:
        acc = []
    if node.name == name:
        acc.append(node)
    if node.children:
        for c in node.children:
            find_all(c, name, acc)
    return acc


def maybe_words(text):
    if len(text) == 0:
        return None
    return text.split(" ")


def lookup_table(flag):
    if flag:
        return {"a": 1, "b": 2}
    return None


def build(width, depth, prefix):
    root = Node(prefix)
    if depth > 0:
        for i in range(width):
            child = root.add(build(width, depth - 1, prefix + str(i)))
            child.set("depth", depth)
            if i % 2 == 0:
                child.set("even", i)
    return root


class Box(object):
    items = None
    lookup = None

    def fill(self, n):
        self.items = [i * i for i in range(n)]
        self.lookup = {}
        for i in range(n):
            self.lookup[i] = [i, i + 1]


def pick(flag):
    if flag:
        return (None, [1, 2])
    return ([3], [4, 5, 6])


def total(xs):
    t = 0
    for x in xs or []:
        t += x
    return t


def collect(n, into=None, seen=None):
    if into is None:
        into = []
    if seen is None:
        seen = {}
    for i in range(n):
        if i % 3 in seen:
            continue
        into.append(i)
    return into


def entry_point(argv):
    width = 3
    depth = 3
    if len(argv) > 1:
        width = int(argv[1])
    root = build(width, depth, "n")
    print "nodes: %d" % root.count()
    for line in render(root, 0, None)[:8]:
        print line
    skip = {"n0": True, "n11": True}
    shown = render(root, 0, skip)
    print "shown with skip: %d" % len(shown)
    found = find_all(root, "n12", None)
    print "found: %d" % len(found)
    more = find_all(root, "n1", found)
    print "found again: %d" % len(more)
    for text in ["", "a b c", "one"]:
        words = maybe_words(text)
        if words is None:
            print "no words"
        elif not words:
            print "empty"
        else:
            print "%d words, first %s" % (len(words), words[0])
    for flag in [True, False]:
        table = lookup_table(flag)
        if table:
            print "table has %d" % len(table)
        else:
            print "no table"
        if table is not None and "a" in table:
            print "a -> %d" % table["a"]
    leaf = Node("leaf")
    print "leaf get: %d" % leaf.get("x", -1)
    leaf.set("x", 7)
    print "leaf get: %d" % leaf.get("x", -1)
    print "leaf count: %d" % leaf.count()
    box = Box()
    print "box empty: %s" % (box.items is None)
    print "total: %d" % total(box.items)
    box.fill(4)
    print "total: %d" % total(box.items)
    d = {}
    d["a"] = [1, 2, 3]
    got = d.get("b")
    print "missing: %s" % (got is None)
    got = d.get("a")
    if got is not None:
        print "present: %d" % len(got)
    for flag in [True, False]:
        first, second = pick(flag)
        if first:
            print "first %d" % len(first)
        else:
            print "no first"
        print "second %d" % len(second)
    inner = box.lookup
    if inner is not None:
        print "lookup: %d" % inner[2][1]
    maybe = None
    if len(argv) > 5:
        maybe = {"x": 1}
    print "dict truth: %s %s" % (bool(maybe), not maybe)
    maybe_l = None
    if len(argv) > 5:
        maybe_l = [1]
    print "list truth: %s %s" % (bool(maybe_l), maybe_l == None)
    print "collected: %d" % len(collect(5))
    print "collected: %d" % len(collect(5, [9]))
    print "collected: %d" % len(collect(9, None, {0: True}))
    a = collect(4)
    b = collect(3, a)
    print "shared: %d %d" % (len(a), len(b))
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    import sys
    entry_point(sys.argv)

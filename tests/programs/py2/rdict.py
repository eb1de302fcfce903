# r_dict: a dict whose keys are compared and hashed by functions of the
# program (here: case-insensitive strings, and points by their fields).
# args: 2
import sys
from rpython.rlib.objectmodel import r_dict, compute_hash


def same_word(a, b):
    return a.lower() == b.lower()


def word_hash(w):
    return compute_hash(w.lower())


class Point(object):
    def __init__(self, x, y):
        self.x = x
        self.y = y


def point_eq(p, q):
    return p.x == q.x and p.y == q.y


def point_hash(p):
    return p.x * 31 + p.y


def entry_point(argv):
    n = int(argv[1])
    counts = r_dict(same_word, word_hash)
    for w in ["Apple", "pear", "APPLE", "Pear", "fig", "apple"]:
        counts[w] = counts.get(w, 0) + 1
    print len(counts), counts["aPPle"], counts["PEAR"], "FIG" in counts, "kiwi" in counts
    print counts.keys(), counts.values()
    del counts["fig"]
    for k in counts:
        print k, counts[k]
    try:
        print counts["fig"]
    except KeyError:
        print "no fig"
    seen = r_dict(point_eq, point_hash)
    seen[Point(1, n)] = "a"
    seen[Point(n, 1)] = "b"
    seen[Point(1, 2)] = "c"
    print len(seen), seen[Point(2, 1)], seen.get(Point(3, 3), "none")
    print [pair[1] for pair in seen.items()]
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

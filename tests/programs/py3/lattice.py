# The annotator's lattice on containers: lists shared by aliases, dicts,
# tuples, membership tests and lengths, strings that may be None.
# args: 3
import sys


def fill(counts, words):
    for w in words:
        if w in counts:
            counts[w] = counts[w] + 1
        else:
            counts[w] = 1
    return len(counts)


def size(t):
    return len(t)


def label(n):
    if n > 2:
        return "many"
    return None


def entry_point(argv):
    n = int(argv[1])
    words = ["a", "b", "a"]
    alias = words
    alias.append("c")
    counts = {}
    distinct = fill(counts, words)
    pair = (n, "x")
    print(distinct, size(pair), n in (1, 2, 3), "c" in words)
    name = label(n)
    if name is not None:
        print(name)
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

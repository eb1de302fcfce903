# Slice assignment on lists, as RPython allows it (non-negative bounds): the
# replacement may be longer, shorter or empty, and may be the list itself.
# args: 3
import sys


def splice(items, start, stop, replacement):
    items[start:stop] = replacement
    return items


def entry_point(argv):
    n = int(argv[1])
    l = [1, 2, 3, 4, 5]
    l[1:n] = [9, 9, 9]
    print(l)
    l[2:] = []
    print(l)
    l[:1] = l
    print(l)
    print(splice([0] * 6, 2, n + 1, [7]))
    print(splice([5, 6], 0, 0, [1, 2, 3]))
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

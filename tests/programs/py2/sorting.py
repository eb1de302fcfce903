# Sorting algorithms on lists of ints from a seeded LCG: insertion sort,
# quicksort, mergesort and heapsort, each counting its comparisons, checked
# against each other; plus a sort of records by a key with a stable merge.
# args: 400
import sys


class Rng(object):
    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state * 1103515245 + 12345) % 2147483648
        return self.state

    def below(self, n):
        return self.next() % n


class Sorter(object):
    name = "abstract"

    def __init__(self):
        self.compares = 0

    def less(self, a, b):
        self.compares += 1
        return a < b

    def sort(self, items):
        raise NotImplementedError


class InsertionSort(Sorter):
    name = "insertion"

    def sort(self, items):
        for i in range(1, len(items)):
            x = items[i]
            j = i - 1
            while j >= 0 and self.less(x, items[j]):
                items[j + 1] = items[j]
                j -= 1
            items[j + 1] = x


class QuickSort(Sorter):
    name = "quick"

    def partition(self, items, lo, hi):
        mid = (lo + hi) // 2
        pivot = items[mid]
        items[mid], items[hi] = items[hi], items[mid]
        store = lo
        for i in range(lo, hi):
            if self.less(items[i], pivot):
                items[i], items[store] = items[store], items[i]
                store += 1
        items[store], items[hi] = items[hi], items[store]
        return store

    def sort(self, items):
        stack = [(0, len(items) - 1)]
        while stack:
            lo, hi = stack.pop()
            if lo >= hi:
                continue
            p = self.partition(items, lo, hi)
            stack.append((lo, p - 1))
            stack.append((p + 1, hi))


class MergeSort(Sorter):
    name = "merge"

    def merge(self, left, right):
        out = []
        i = 0
        j = 0
        while i < len(left) and j < len(right):
            if self.less(right[j], left[i]):
                out.append(right[j])
                j += 1
            else:
                out.append(left[i])
                i += 1
        out.extend(left[i:])
        out.extend(right[j:])
        return out

    def sorted_copy(self, items):
        if len(items) <= 1:
            return items[:]
        mid = len(items) // 2
        return self.merge(self.sorted_copy(items[:mid]), self.sorted_copy(items[mid:]))

    def sort(self, items):
        result = self.sorted_copy(items)
        for i in range(len(result)):
            items[i] = result[i]


class HeapSort(Sorter):
    name = "heap"

    def sift_down(self, items, start, end):
        root = start
        while 2 * root + 1 <= end:
            child = 2 * root + 1
            if child + 1 <= end and self.less(items[child], items[child + 1]):
                child += 1
            if self.less(items[root], items[child]):
                items[root], items[child] = items[child], items[root]
                root = child
            else:
                return

    def sort(self, items):
        n = len(items)
        start = (n - 2) // 2
        while start >= 0:
            self.sift_down(items, start, n - 1)
            start -= 1
        end = n - 1
        while end > 0:
            items[0], items[end] = items[end], items[0]
            end -= 1
            self.sift_down(items, 0, end)


def is_sorted(items):
    for i in range(1, len(items)):
        if items[i - 1] > items[i]:
            return False
    return True


def checksum(items):
    h = 0
    for i, x in enumerate(items):
        h = (h * 31 + x * (i + 1)) % 1000000007
    return h


class Record(object):
    def __init__(self, name, score):
        self.name = name
        self.score = score


def merge_records(records):
    if len(records) <= 1:
        return records
    mid = len(records) // 2
    left = merge_records(records[:mid])
    right = merge_records(records[mid:])
    out = []
    while left and right:
        if right[0].score < left[0].score:
            out.append(right.pop(0))
        else:
            out.append(left.pop(0))
    return out + left + right


def make_data(rng, n, kind):
    if kind == "random":
        return [rng.below(1000) for i in range(n)]
    if kind == "sorted":
        return list(range(n))
    if kind == "reversed":
        return [n - i for i in range(n)]
    return [i % 7 for i in range(n)]


def entry_point(argv):
    n = 100
    if len(argv) > 1:
        n = int(argv[1])
    sorters = [InsertionSort(), QuickSort(), MergeSort(), HeapSort()]
    rng = Rng(42)
    print "%-9s %10s %10s %10s %10s" % ("data", "insertion", "quick", "merge", "heap")
    for kind in ["random", "sorted", "reversed", "few"]:
        data = make_data(rng, n, kind)
        counts = []
        reference = -1
        for s in sorters:
            s.compares = 0
            copy = data[:]
            s.sort(copy)
            if not is_sorted(copy):
                print "%s sort failed on %s" % (s.name, kind)
                return 1
            c = checksum(copy)
            if reference == -1:
                reference = c
            elif c != reference:
                print "%s sort disagrees on %s" % (s.name, kind)
                return 1
            counts.append(s.compares)
        print "%-9s %10d %10d %10d %10d" % (kind, counts[0], counts[1], counts[2], counts[3])
    names = ["ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal"]
    records = [Record(names[i], rng.below(4)) for i in range(len(names))]
    ranked = merge_records(records)
    line = []
    for r in ranked:
        line.append("%s:%d" % (r.name, r.score))
    print " ".join(line)
    best = sorters[0]
    for s in sorters:
        if s.compares < best.compares:
            best = s
    print "fewest comparisons on the last data: %s (%d)" % (best.name, best.compares)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

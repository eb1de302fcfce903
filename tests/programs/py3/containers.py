# Tuples, lists and dicts doing real work: a word-frequency count over a text
# the program builds, a matrix product, and sorting by hand.
# args: 4
import sys


def build_text(n):
    words = ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog"]
    parts = []
    for i in range(n):
        parts.append(words[i % len(words)])
        if i % 4 == 3:
            parts.append(words[(i * 7) % len(words)])
    return " ".join(parts)


def insertion_sort(items):
    result = list(items)
    for i in range(1, len(result)):
        j = i
        while j > 0 and result[j - 1] > result[j]:
            result[j - 1], result[j] = result[j], result[j - 1]
            j -= 1
    return result


def word_counts(text):
    counts = {}
    for word in text.split(" "):
        counts[word] = counts.get(word, 0) + 1
    return counts


def matrix_product(a, b):
    rows, inner, cols = len(a), len(b), len(b[0])
    out = []
    for i in range(rows):
        row = [0] * cols
        for j in range(cols):
            total = 0
            for k in range(inner):
                total += a[i][k] * b[k][j]
            row[j] = total
        out.append(row)
    return out


def smallest_pair(pairs):
    best = pairs[0]
    for p in pairs:
        if p < best:
            best = p
    return best


def min_max(values):
    lo, hi = values[0], values[0]
    for v in values:
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    return lo, hi


def list_methods():
    l = [5, 3, 8]
    l.append(1)
    l.insert(0, 9)
    l.extend([7, 7])
    print(l, len(l), l.count(7), l.index(8))
    last = l.pop()
    first = l.pop(0)
    l.remove(3)
    print(last, first, l)
    l.reverse()
    print(l, l[1:3], l[:2], l[2:], l[-2:], l[:-1])
    del l[0]
    del l[1:2]
    print(l, 8 in l, 4 in l, 4 not in l)
    l[1] += 10
    print(l + [0], l * 2, [] == list(), l[-1])


def tuple_work():
    point = (3, 4)
    x, y = point
    (a, b), c = (1, 2), 3
    t = point + (5,)
    print(x * x + y * y, a + b + c, t, len(t), t[-1], t[0:2])
    print((1, 2) < (1, 3), (2,) > (1, 9), (1, 2) == (1, 2), 3 in t)
    print("%s and %d, %s" % ("text", 42, (1, 2)))
    pairs = [(2, "b"), (1, "a"), (2, "a")]
    print(smallest_pair(pairs))
    print(min_max([4, -2, 9, 0]))


def dict_work(n):
    counts = word_counts(build_text(n * 5))
    keys = insertion_sort(counts.keys())
    for k in keys:
        print(k, counts[k])
    print(len(counts), "the" in counts, "cat" in counts)
    squares = {}
    for i in range(n):
        squares[i] = i * i
    del squares[0]
    print(squares, squares.pop(1), squares.setdefault(7, 49), squares)
    total = 0
    for key, value in squares.items():
        total += key * value
    print(total, sum_values(squares), squares.get(99, 0), squares.get(99, -1))
    by_pair = {(1, 2): "one-two", (2, 1): "two-one"}
    print(by_pair[(2, 1)], (1, 2) in by_pair, by_pair.get((3, 3)))


def sum_values(d):
    total = 0
    for v in d.values():
        total += v
    return total


def entry_point(argv):
    n = int(argv[1])
    list_methods()
    tuple_work()
    dict_work(n)
    print(matrix_product([[1, 2], [3, 4]], [[5, 6, 7], [8, 9, 10]]))
    letters = []
    for ch in "hello":
        if ch not in letters:
            letters.append(ch)
    print(letters, "".join(insertion_sort(letters)))
    return len(letters)


def target(driver, args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

# List comprehensions: conditions, nested fors, comprehensions over strings,
# dicts and ranges, and their own scope for the loop variable (Python 3).
# args: 6
import sys


def primes_below(n):
    return [p for p in range(2, n) if all_nonzero([p % d for d in range(2, p)])]


def all_nonzero(values):
    for v in values:
        if v == 0:
            return False
    return True


def pythagorean(limit):
    return [(a, b, c) for c in range(1, limit) for b in range(1, c)
            for a in range(1, b) if a * a + b * b == c * c]


def transpose(m):
    return [[row[j] for row in m] for j in range(len(m[0]))]


def entry_point(argv):
    n = int(argv[1])
    squares = [i * i for i in range(n)]
    evens = [s for s in squares if s % 2 == 0]
    print(squares, evens)
    print(primes_below(n * 5))
    print(pythagorean(n * 3))
    word = "comprehension"
    vowels = [ch.upper() for ch in word if ch in "aeiou"]
    print(vowels, len(vowels))
    grid = [[r * n + c for c in range(3)] for r in range(2)]
    print(grid, transpose(grid))
    ages = {"ann": 31, "bob": 25, "cy": 40}
    names = [k for k in ages if ages[k] > 30]
    pairs = [(v, k) for k, v in ages.items()]
    print(sorted_names(names), len(pairs))
    x = "outer"
    doubled = [x * 2 for x in [1, 2, 3]]
    print(x, doubled)
    flat = [y for row in grid for y in row if y != 1]
    print(flat, [c for c in "abc"] + [d for d in []])
    return len(flat)


def sorted_names(names):
    out = []
    for name in names:
        i = 0
        while i < len(out) and out[i] < name:
            i += 1
        out.insert(i, name)
    return out


def target(driver, args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

# Simple generators, as RPython allows them: a function that yields, used by
# for loops; yields inside loops, branches and try/except, a generator
# finishing early with a bare return, one walked by hand with next, one
# over its *args.
# args: 6
import sys


def count_up(start, stop):
    n = start
    while n < stop:
        yield n
        n += 1


def evens(items):
    for item in items:
        if item % 2 == 0:
            yield item


def squares_until(limit):
    i = 0
    while True:
        square = i * i
        if square > limit:
            return
        yield square
        i += 1


def words(text):
    word = ""
    for ch in text:
        if ch == " ":
            if word:
                yield word
            word = ""
        else:
            word += ch
    if word:
        yield word


def safe_inverses(values):
    for v in values:
        try:
            yield 100 // v
        except ZeroDivisionError:
            yield -1


def pairs(n):
    for i in range(n):
        for j in range(i):
            yield (j, i)


def each(*xs):
    for x in xs:
        yield x * 2


def entry_point(argv):
    n = int(argv[1])
    total = 0
    for k in count_up(2, n):
        total += k
    for k in each(n, 1, 7):
        total += k
    print(total)
    print([x * 10 for x in evens([1, 2, 3, 4, 5, 6])])
    found = []
    for s in squares_until(n * n):
        found.append(s)
    print(found)
    for w in words("the quick  brown fox "):
        print(w)
    print([r for r in safe_inverses([3, 0, 7])])
    print([p for p in pairs(4)])
    it = count_up(0, 2)
    print(next(it), next(it))
    try:
        next(it)
    except StopIteration:
        print("done")
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

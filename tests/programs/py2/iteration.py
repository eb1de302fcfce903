# for loops over lists, strings, tuples, dicts and iterators: enumerate, zip,
# reversed, range objects, for-else with break, and loops that change the
# list they walk.
# args: 5
import sys


def find_first(items, wanted):
    for i, item in enumerate(items):
        if item == wanted:
            break
    else:
        return -1
    return i


def run_length(text):
    runs = []
    count = 0
    previous = ""
    for ch in text:
        if ch == previous:
            count += 1
        else:
            if count > 0:
                runs.append((previous, count))
            previous = ch
            count = 1
    if count > 0:
        runs.append((previous, count))
    return runs


def dot(xs, ys):
    total = 0
    for x, y in zip(xs, ys):
        total += x * y
    return total


def entry_point(argv):
    n = int(argv[1])
    names = ["ada", "bo", "cyd", "dee"]
    print find_first(names, "cyd"), find_first(names, "eve")
    print run_length("aaabccddddx")
    print dot([1, 2, 3], [4, 5, 6, 7])
    backwards = []
    for name in reversed(names):
        backwards.append(name)
    print backwards
    for pair in enumerate("xy"):
        print pair
    stock = {"apples": 3, "pears": 0, "plums": 7}
    in_stock = 0
    for fruit in stock:
        if stock[fruit] > 0:
            in_stock += 1
    for key, value in stock.iteritems():
        if value == 0:
            print "out of", key
    print in_stock, len(stock.keys()), 7 in stock.values()
    queue = [n]
    seen = []
    for item in queue:
        seen.append(item)
        if item > 1:
            queue.append(item / 2)
    print seen
    r = xrange(2, n * 3, 3)
    total = 0
    for k in r:
        total += k
    print total, len(r), r[1], list(r)
    for t in ("one", "two", "three"):
        print t
    it = reversed([20, 10])
    print next_or_default(it), next_or_default(it), next_or_default(it)
    return total % 7


def next_or_default(it):
    for value in it:
        return value
    return -1


def target(driver, args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

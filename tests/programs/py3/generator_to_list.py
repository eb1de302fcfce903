# list() of a generator and of an instance with __iter__: the object
# interpreter iterates it as a for loop does.
# args: 5
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


class Countdown(object):
    def __init__(self, start):
        self.current = start

    def __iter__(self):
        return self

    def __next__(self):
        if self.current <= 0:
            raise StopIteration
        self.current -= 1
        return self.current + 1


def entry_point(argv):
    n = int(argv[1])
    print(list(count_up(1, n)), list(evens(range(n))))
    print(list(Countdown(n)))
    print(list(count_up(n, 0)))
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

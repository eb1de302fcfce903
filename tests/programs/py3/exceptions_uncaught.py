# An exception no handler catches ends the program with status 1 after what
# it printed, its traceback on stderr; a `finally` on the way out still runs.
# args: 4
import sys


def lookup(table_size, i):
    if i >= table_size:
        raise KeyError(i)
    return i * 10


def walk(n):
    total = 0
    try:
        i = 0
        while i <= n:
            total += lookup(n, i)
            print("total " + str(total))
            i += 1
    finally:
        print("walk ends")
    return total


def entry_point(argv):
    n = int(argv[1])
    try:
        walk(n)
    except ValueError:
        print("not this handler")
    print("not reached")
    return 0


def target(driver, args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

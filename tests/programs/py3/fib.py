# Recursive Fibonacci: the size comes from the command line.
# args: 20
import sys


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def entry_point(argv):
    n = 10
    if len(argv) > 1:
        n = int(argv[1])
    for i in range(n + 1):
        print("fib(" + str(i) + ") = " + str(fib(i)))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

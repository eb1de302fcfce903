# Benchmark: recursive Fibonacci, fib(N) with N from the command line.
import sys


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def entry_point(argv):
    n = int(argv[1])
    print("fib(" + str(n) + ") = " + str(fib(n)))
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

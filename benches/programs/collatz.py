# Benchmark: the longest Collatz chain below N, N from the command line.
import sys


def chain_length(n):
    steps = 1
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def entry_point(argv):
    limit = int(argv[1])
    best = 1
    best_len = 1
    for i in range(1, limit):
        length = chain_length(i)
        if length > best_len:
            best = i
            best_len = length
    print("longest below " + str(limit) + ": " + str(best) + " (" + str(best_len) + " steps)")
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

# The Collatz sequence: the longest chain below a limit from the command line.
# args: 3000
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
            print("new longest: " + str(i) + " takes " + str(length) + " steps")
    print("longest below " + str(limit) + ": " + str(best))
    return 0


def target(driver, args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

# Benchmark: list-heavy work on ints. A sieve of Eratosthenes over a list of
# bools, then a heap sort of a list of N pseudo-random ints (N from the
# command line), with checksums kept below 2**62 so that C's longs compute
# the same numbers as Python's ints.
import sys


def sieve(n):
    flags = [True] * (n + 1)
    flags[0] = False
    flags[1] = False
    i = 2
    while i * i <= n:
        if flags[i]:
            j = i * i
            while j <= n:
                flags[j] = False
                j += i
        i += 1
    primes = []
    for k in range(n + 1):
        if flags[k]:
            primes.append(k)
    return primes


def sift_down(a, start, end):
    root = start
    while 2 * root + 1 < end:
        child = 2 * root + 1
        if child + 1 < end and a[child] < a[child + 1]:
            child += 1
        if a[root] < a[child]:
            tmp = a[root]
            a[root] = a[child]
            a[child] = tmp
            root = child
        else:
            return


def heap_sort(a):
    n = len(a)
    start = n // 2 - 1
    while start >= 0:
        sift_down(a, start, n)
        start -= 1
    end = n - 1
    while end > 0:
        tmp = a[0]
        a[0] = a[end]
        a[end] = tmp
        sift_down(a, 0, end)
        end -= 1


def entry_point(argv):
    n = int(argv[1])
    primes = sieve(n)
    values = []
    seed = 42
    for i in range(n):
        seed = (seed * 1103515245 + 12345) % 2147483648
        values.append(seed % 1000000)
    heap_sort(values)
    check = 0
    for i in range(len(values)):
        check = (check * 31 + values[i]) % 1000000007
    ok = 1
    for i in range(1, len(values)):
        if values[i - 1] > values[i]:
            ok = 0
    print("primes " + str(len(primes)) + " last " + str(primes[len(primes) - 1]) +
          " sorted " + str(ok) + " check " + str(check))
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

/* Benchmark baseline: the same recursive Fibonacci, written in plain C. */
#include <stdio.h>
#include <stdlib.h>

static long fib(long n) {
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv) {
    long n = atol(argv[1]);
    printf("fib(%ld) = %ld\n", n, fib(n));
    return 0;
}

/* Benchmark baseline: the same Collatz search, written in plain C. */
#include <stdio.h>
#include <stdlib.h>

static long chain_length(long n) {
    long steps = 1;
    while (n != 1) {
        if (n % 2 == 0)
            n = n / 2;
        else
            n = 3 * n + 1;
        steps++;
    }
    return steps;
}

int main(int argc, char **argv) {
    long limit = atol(argv[1]);
    long best = 1, best_len = 1;
    for (long i = 1; i < limit; i++) {
        long length = chain_length(i);
        if (length > best_len) {
            best = i;
            best_len = length;
        }
    }
    printf("longest below %ld: %ld (%ld steps)\n", limit, best, best_len);
    return 0;
}

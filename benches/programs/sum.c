/* The summing loops of benches/trace.rs, in C, to compare the trace
 * backend's machine code with `cc -O2`.
 *
 * usage: sum N
 * prints "range NANOSECONDS SUM" for the sum of i for 0 <= i < N, and
 * "array NANOSECONDS SUM" for the sum of an array of N words (a[i] = i % 1000
 * - 500, the values benches/trace.rs fills in), each the best of eleven runs.
 * N comes from the command line so that the compiler cannot fold the loops. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* Each timed call must really run the loop: without this the compiler sees
 * the functions are pure and calls them once. */
#if defined(__GNUC__) && !defined(__clang__)
#define OPAQUE __attribute__((noipa))
#else
#define OPAQUE __attribute__((noinline))
#endif

OPAQUE static long sum_range(long n) {
    long sum = 0;
    for (long i = 0; i < n; i++)
        sum += i;
    return sum;
}

OPAQUE static long sum_array(const long *a, long n) {
    long sum = 0;
    for (long i = 0; i < n; i++)
        sum += a[i];
    return sum;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: sum N\n");
        return 2;
    }
    long n = atol(argv[1]);
    long *a = malloc(sizeof(long) * (n > 0 ? n : 1));
    if (!a)
        return 1;
    for (long i = 0; i < n; i++)
        a[i] = i % 1000 - 500;
    long best = -1, result = 0;
    for (int k = 0; k < 11; k++) {
        long t = now_ns();
        result = sum_range(n);
        t = now_ns() - t;
        if (best < 0 || t < best)
            best = t;
    }
    printf("range %ld %ld\n", best, result);
    best = -1;
    for (int k = 0; k < 11; k++) {
        long t = now_ns();
        result = sum_array(a, n);
        t = now_ns() - t;
        if (best < 0 || t < best)
            best = t;
    }
    printf("array %ld %ld\n", best, result);
    free(a);
    return 0;
}

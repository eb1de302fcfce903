/* Benchmark baseline: sort.py in plain C, the lists as growable arrays. */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    long length, capacity;
    long *items;
} List;

static void append(List *l, long v) {
    if (l->length == l->capacity) {
        l->capacity = l->capacity ? l->capacity * 2 : 8;
        l->items = realloc(l->items, sizeof(long) * l->capacity);
    }
    l->items[l->length++] = v;
}

static List sieve(long n) {
    char *flags = malloc(n + 1);
    for (long k = 0; k <= n; k++)
        flags[k] = 1;
    flags[0] = 0;
    flags[1] = 0;
    for (long i = 2; i * i <= n; i++)
        if (flags[i])
            for (long j = i * i; j <= n; j += i)
                flags[j] = 0;
    List primes = {0, 0, NULL};
    for (long k = 0; k <= n; k++)
        if (flags[k])
            append(&primes, k);
    return primes;
}

static void sift_down(long *a, long start, long end) {
    long root = start;
    while (2 * root + 1 < end) {
        long child = 2 * root + 1;
        if (child + 1 < end && a[child] < a[child + 1])
            child += 1;
        if (a[root] < a[child]) {
            long tmp = a[root];
            a[root] = a[child];
            a[child] = tmp;
            root = child;
        } else {
            return;
        }
    }
}

static void heap_sort(long *a, long n) {
    for (long start = n / 2 - 1; start >= 0; start--)
        sift_down(a, start, n);
    for (long end = n - 1; end > 0; end--) {
        long tmp = a[0];
        a[0] = a[end];
        a[end] = tmp;
        sift_down(a, 0, end);
    }
}

int main(int argc, char **argv) {
    long n = atol(argv[1]);
    List primes = sieve(n);
    List values = {0, 0, NULL};
    long seed = 42;
    for (long i = 0; i < n; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648L;
        append(&values, seed % 1000000);
    }
    heap_sort(values.items, values.length);
    long check = 0;
    for (long i = 0; i < values.length; i++)
        check = (check * 31 + values.items[i]) % 1000000007;
    long ok = 1;
    for (long i = 1; i < values.length; i++)
        if (values.items[i - 1] > values.items[i])
            ok = 0;
    printf("primes %ld last %ld sorted %ld check %ld\n", primes.length,
           primes.items[primes.length - 1], ok, check);
    return 0;
}

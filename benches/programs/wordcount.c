/* Benchmark baseline: wordcount.py in plain C. The text is built in one
 * buffer and split into fresh strings; the dict is an insertion-ordered
 * table of entries with an open-addressing index (as CPython's and rpy's
 * dicts are), so iterating it gives the words in the order Python does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *SYLLABLES[] = {"ka", "lo", "mi", "ne", "ru", "ta",
                                  "shi", "po", "ve", "zu", "an", "o"};

typedef struct {
    char *s;
    long len;
} Str;

static Str make_text(long n) {
    long cap = 16, len = 0;
    char *buf = malloc(cap);
    long seed = 7;
    for (long i = 0; i < n; i++) {
        char word[16];
        seed = (seed * 1103515245 + 12345) % 2147483648L;
        long a = (seed >> 8) % 12;
        seed = (seed * 1103515245 + 12345) % 2147483648L;
        long b = (seed >> 8) % 12;
        long wl = 0;
        wl += sprintf(word + wl, "%s%s", SYLLABLES[a], SYLLABLES[b]);
        if ((seed >> 4) % 4 == 0) {
            seed = (seed * 1103515245 + 12345) % 2147483648L;
            wl += sprintf(word + wl, "%s", SYLLABLES[(seed >> 8) % 12]);
        }
        if (len + wl + 1 > cap) {
            while (len + wl + 1 > cap)
                cap *= 2;
            buf = realloc(buf, cap);
        }
        if (i > 0)
            buf[len++] = ' ';
        memcpy(buf + len, word, wl);
        len += wl;
    }
    Str t = {buf, len};
    return t;
}

typedef struct {
    Str *keys;
    long *values;
    unsigned long *hashes;
    long used, capacity;
    long *index; /* -1 free, else an entry */
    long mask;
} Dict;

static unsigned long hash(const char *s, long n) {
    unsigned long h = 5381;
    for (long i = 0; i < n; i++)
        h = h * 33 + (unsigned char)s[i];
    return h;
}

static void rebuild(Dict *d, long slots) {
    free(d->index);
    d->index = malloc(sizeof(long) * slots);
    for (long i = 0; i < slots; i++)
        d->index[i] = -1;
    d->mask = slots - 1;
    for (long e = 0; e < d->used; e++) {
        unsigned long i = d->hashes[e] & d->mask;
        while (d->index[i] >= 0)
            i = (i + 1) & d->mask;
        d->index[i] = e;
    }
}

static long *lookup(Dict *d, const char *s, long n) {
    unsigned long h = hash(s, n);
    unsigned long i = h & d->mask;
    for (;;) {
        long e = d->index[i];
        if (e < 0)
            break;
        if (d->hashes[e] == h && d->keys[e].len == n && memcmp(d->keys[e].s, s, n) == 0)
            return &d->values[e];
        i = (i + 1) & d->mask;
    }
    if (d->used == d->capacity) {
        d->capacity *= 2;
        d->keys = realloc(d->keys, sizeof(Str) * d->capacity);
        d->values = realloc(d->values, sizeof(long) * d->capacity);
        d->hashes = realloc(d->hashes, sizeof(unsigned long) * d->capacity);
    }
    long e = d->used++;
    char *copy = malloc(n);
    memcpy(copy, s, n);
    d->keys[e].s = copy;
    d->keys[e].len = n;
    d->values[e] = 0;
    d->hashes[e] = h;
    if (d->used * 3 >= (d->mask + 1) * 2)
        rebuild(d, (d->mask + 1) * 4);
    else
        d->index[i] = e;
    return &d->values[e];
}

int main(int argc, char **argv) {
    long n = atol(argv[1]);
    Str text = make_text(n);
    Dict d = {NULL, NULL, NULL, 0, 8, NULL, 0};
    d.keys = malloc(sizeof(Str) * 8);
    d.values = malloc(sizeof(long) * 8);
    d.hashes = malloc(sizeof(unsigned long) * 8);
    rebuild(&d, 16);
    long start = 0;
    for (long i = 0; i <= text.len; i++) {
        if (i == text.len || text.s[i] == ' ') {
            /* Python's split makes a new string of each word. */
            long n = i - start;
            char *w = malloc(n + 1);
            memcpy(w, text.s + start, n);
            long *v = lookup(&d, w, n);
            *v = *v + 1;
            free(w);
            start = i + 1;
        }
    }
    const char *best = "";
    long best_len = 0, best_count = 0, check = 0;
    for (long e = 0; e < d.used; e++) {
        long c = d.values[e];
        check = (check * 131 + c * d.keys[e].len) % 1000000007;
        if (c > best_count) {
            best = d.keys[e].s;
            best_len = d.keys[e].len;
            best_count = c;
        }
    }
    printf("words %ld distinct %ld most %.*s %ld check %ld length %ld\n", n, d.used,
           (int)best_len, best, best_count, check, text.len);
    return 0;
}

/* Benchmark baseline: strings.py in plain C. Every string step builds a
 * fresh malloc'ed buffer, as the Python version builds a new string. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char LETTERS[] = "ACGT";

typedef struct {
    char *s;
    long len, cap;
} Buf;

static void put(Buf *b, const char *s, long n) {
    if (b->len + n + 1 > b->cap) {
        while (b->len + n + 1 > b->cap)
            b->cap = b->cap ? b->cap * 2 : 64;
        b->s = realloc(b->s, b->cap);
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

static Buf make_text(long n, long seed) {
    Buf b = {0};
    for (long i = 0; i < n; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648L;
        long k = (seed >> 8) % 7;
        char letter[2] = {LETTERS[k % 4], LETTERS[k % 4]};
        put(&b, letter, k >= 5 ? 2 : 1);
    }
    return b;
}

static long checksum(Buf s) {
    long h = 0;
    for (long i = 0; i < s.len; i++)
        h = (h * 31 + (unsigned char)s.s[i]) % 1000000007;
    return h;
}

static Buf encode(Buf s) {
    Buf out = {0};
    long i = 0;
    while (i < s.len) {
        long j = i + 1;
        while (j < s.len && s.s[j] == s.s[i])
            j++;
        char num[24];
        int w = sprintf(num, "%ld", j - i);
        put(&out, num, w);
        put(&out, s.s + i, 1);
        i = j;
    }
    return out;
}

static Buf decode(Buf s) {
    Buf out = {0};
    long count = 0;
    for (long i = 0; i < s.len; i++) {
        char c = s.s[i];
        if (c >= '0' && c <= '9') {
            count = count * 10 + (c - '0');
        } else {
            for (long k = 0; k < count; k++)
                put(&out, &c, 1);
            count = 0;
        }
    }
    return out;
}

static Buf wrap(Buf s, long width) {
    Buf out = {0};
    for (long i = 0; i < s.len; i += width) {
        if (i > 0)
            put(&out, "\n", 1);
        long n = s.len - i < width ? s.len - i : width;
        put(&out, s.s + i, n);
    }
    return out;
}

static long count_windows(Buf s, const char *pattern) {
    long k = strlen(pattern), found = 0;
    for (long i = 0; i + k <= s.len; i++)
        if (memcmp(s.s + i, pattern, k) == 0)
            found++;
    return found;
}

static Buf rotate(Buf s, long k) {
    k = k % s.len;
    Buf out = {0};
    put(&out, s.s + k, s.len - k);
    put(&out, s.s, k);
    return out;
}

int main(int argc, char **argv) {
    long n = atol(argv[1]);
    Buf text = make_text(n, 42);
    printf("text: %ld letters, checksum %ld\n", text.len, checksum(text));
    for (int r = 0; r < 4; r++) {
        Buf packed = encode(text);
        Buf back = decode(packed);
        if (back.len != text.len || memcmp(back.s, text.s, text.len) != 0) {
            printf("round %d: decode differs\n", r);
            return 1;
        }
        Buf wrapped = wrap(text, 60 + r);
        char pattern[5] = {LETTERS[r], 'G', 'A', LETTERS[3 - r], 0};
        long hits = count_windows(text, pattern);
        Buf rotated = rotate(text, 1000 + 7 * r);
        free(text.s);
        text = rotated;
        printf("round %d: packed %ld (%ld) wrapped %ld (%ld) hits %ld rotated %ld\n", r,
               packed.len, checksum(packed), wrapped.len, checksum(wrapped), hits,
               checksum(text));
        free(packed.s);
        free(back.s);
        free(wrapped.s);
    }
    return 0;
}

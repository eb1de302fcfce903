/* Benchmark baseline: dicts.py in plain C, with hash tables as Python's
 * dicts are (open addressing, deleted slots marked and reused when the
 * table is rebuilt), not arrays indexed by account number: the same
 * bookkeeping, done the way a C programmer with a hash table does it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACCOUNTS 20000
#define LIMIT 400

enum { EMPTY, FULL, DELETED };

typedef struct {
    char state;
    long key;
    char *name; /* the key of a table keyed by strings */
    long value;
} Slot;

typedef struct {
    Slot *slots;
    long cap, used, len; /* used: FULL and DELETED slots */
} Table;

static unsigned long hash_long(long k) { return (unsigned long)k * 0x9e3779b97f4a7c15UL; }

static unsigned long hash_str(const char *s) {
    unsigned long h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h * 0x9e3779b97f4a7c15UL;
}

static void init(Table *t, long cap) {
    t->slots = calloc(cap, sizeof(Slot));
    t->cap = cap;
    t->used = t->len = 0;
}

static Slot *find(Table *t, long key, const char *name, int insert);

static void grow(Table *t) {
    Table old = *t;
    long cap = 16;
    while (cap < old.len * 4)
        cap *= 2;
    init(t, cap);
    for (long i = 0; i < old.cap; i++)
        if (old.slots[i].state == FULL) {
            Slot *s = find(t, old.slots[i].key, old.slots[i].name, 1);
            s->value = old.slots[i].value;
            free(old.slots[i].name);
        }
    free(old.slots);
}

/* The slot of the key, or NULL; with `insert`, a new slot (value 0). */
static Slot *find(Table *t, long key, const char *name, int insert) {
    if (insert && (t->used + 1) * 3 >= t->cap * 2)
        grow(t);
    unsigned long mask = t->cap - 1;
    unsigned long i = (name ? hash_str(name) : hash_long(key)) >> 20 & mask;
    Slot *free_slot = NULL;
    for (;; i = (i + 1) & mask) {
        Slot *s = &t->slots[i];
        if (s->state == EMPTY) {
            if (!insert)
                return NULL;
            if (free_slot == NULL) {
                free_slot = s;
                t->used++;
            }
            free_slot->state = FULL;
            free_slot->key = key;
            free_slot->name = name ? strdup(name) : NULL;
            free_slot->value = 0;
            t->len++;
            return free_slot;
        }
        if (s->state == DELETED) {
            if (free_slot == NULL)
                free_slot = s;
        } else if (name ? strcmp(s->name, name) == 0 : s->key == key) {
            return s;
        }
    }
}

static long get(Table *t, long key, const char *name, long dflt) {
    Slot *s = find(t, key, name, 0);
    return s ? s->value : dflt;
}

static void del(Table *t, Slot *s) {
    s->state = DELETED;
    free(s->name);
    t->len--;
}

int main(int argc, char **argv) {
    long n = atol(argv[1]);
    Table balances, transfers, branches;
    /* Powers of two, as the hash is masked. */
    init(&balances, 16);
    init(&transfers, 16);
    init(&branches, 16);
    long closed = 0, seed = 1;
    char name[32];
    for (long i = 0; i < n; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648L;
        long src = (seed >> 4) % ACCOUNTS;
        seed = (seed * 1103515245 + 12345) % 2147483648L;
        long dst = (seed >> 4) % ACCOUNTS;
        long amount = (seed >> 8) % 100 + 1;
        find(&balances, src, NULL, 1)->value -= amount;
        find(&balances, dst, NULL, 1)->value += amount;
        find(&transfers, src, NULL, 1)->value += 1;
        find(&transfers, dst, NULL, 1)->value += 1;
        sprintf(name, "branch-%ld", dst % 97);
        find(&branches, 0, name, 1)->value += amount;
        Slot *b = find(&balances, dst, NULL, 0);
        if (b->value > LIMIT) {
            del(&balances, b);
            closed++;
        }
    }
    long total = 0, negative = 0;
    for (long i = 0; i < balances.cap; i++)
        if (balances.slots[i].state == FULL) {
            total += balances.slots[i].value;
            if (balances.slots[i].value < 0)
                negative++;
        }
    long best = -1, best_count = -1;
    for (long i = 0; i < transfers.cap; i++) {
        Slot *s = &transfers.slots[i];
        if (s->state == FULL &&
            (s->value > best_count || (s->value == best_count && s->key < best))) {
            best = s->key;
            best_count = s->value;
        }
    }
    long check = 0;
    for (long i = 0; i < 97; i++) {
        sprintf(name, "branch-%ld", i);
        check = (check * 31 + get(&branches, 0, name, 0)) % 1000000007;
    }
    printf("open %ld closed %ld negative %ld balance %ld\n", balances.len, closed, negative,
           total);
    printf("busiest %ld with %ld transfers; %ld branches, checksum %ld\n", best, best_count,
           branches.len, check);
    return 0;
}

/* rpy C runtime, part 2: the runtime functions (llops::RUNTIME_FUNCS).
 *
 * Included after the struct definitions, so RPyString (hdr, f_hash, f_length,
 * items[]), RPyStrArray (hdr, f_length, items[]) and RPyStrList (hdr,
 * f_length, f_items) are complete types here.
 */

#ifdef RPY_SPLIT
/* The definitions of the state rpy_runtime.h declares RPY_SHARED. */
void *rpy_exc_type, *rpy_exc_value;
uintptr_t rpy_stack_top;
intptr_t rpy_stack_max = INTPTR_MAX;
uintptr_t rpy_stack_limit;
char *rpy_nursery_free, *rpy_nursery_top;
void **rpy_gc_root_base, **rpy_gc_root_top, **rpy_gc_root_end;
void (*rpy_gc_hook_minor)(long, long, long);
void (*rpy_gc_hook_collect_step)(long, long, long);
void (*rpy_gc_hook_collect)(long, long, long, long, long, long, long);
#endif

/* ---- buffered standard output ---------------------------------------- */

#define RPY_OUT_SIZE (1 << 16)
static char rpy_out_buf[RPY_OUT_SIZE];
static size_t rpy_out_len;

static void rpy_write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return; /* nowhere left to report it */
        }
        p += w;
        n -= (size_t)w;
    }
}

RPY_RT void rpy_flush_stdout(void) {
    if (rpy_out_len > 0) {
        rpy_write_all(1, rpy_out_buf, rpy_out_len);
        rpy_out_len = 0;
    }
}

RPY_RT void rpy_write_stdout(const char *p, size_t n) {
    if (RPY_UNLIKELY(n > RPY_OUT_SIZE - rpy_out_len)) {
        rpy_flush_stdout();
        if (n >= RPY_OUT_SIZE) {
            rpy_write_all(1, p, n);
            return;
        }
    }
    memcpy(rpy_out_buf + rpy_out_len, p, n);
    rpy_out_len += n;
}

/* ---- fatal errors ---------------------------------------------------- */

RPY_RT RPY_NORETURN void rpy_fatal(const char *kind, const char *msg) {
    static const char prefix[] = "fatal RPython error: ";
    rpy_flush_stdout();
    rpy_write_all(2, prefix, sizeof prefix - 1);
    rpy_write_all(2, kind, strlen(kind));
    if (msg != NULL) {
        rpy_write_all(2, ": ", 2);
        rpy_write_all(2, msg, strlen(msg));
    }
    rpy_write_all(2, "\n", 1);
    exit(1);
}

/* An exception left the entry point: after the program's output, the last
 * line of CPython's traceback on standard error, the class's name (without
 * "__main__.") and, when the instance has a message (NULL or empty when
 * not), ": " and the message; exit status 1. */
/* "Class: message" on stderr, the class without its `__main__.`. */
static void rpy_write_exception(RPyString *name, RPyString *message) {
    static const char main_prefix[] = "__main__.";
    const size_t prefix_len = sizeof main_prefix - 1;
    const char *p = (const char *)name->items;
    size_t n = (size_t)name->f_length;
    rpy_flush_stdout();
    if (n > prefix_len && memcmp(p, main_prefix, prefix_len) == 0) {
        p += prefix_len;
        n -= prefix_len;
    }
    rpy_write_all(2, p, n);
    if (message != NULL && message->f_length > 0) {
        rpy_write_all(2, ": ", 2);
        rpy_write_all(2, (const char *)message->items, (size_t)message->f_length);
    }
    rpy_write_all(2, "\n", 1);
}

RPY_RT RPY_NORETURN void rpy_uncaught_exception(RPyString *name, RPyString *message) {
    rpy_write_exception(name, message);
    exit(1);
}

/* An exception a function the collector called (a __del__, a GC hook)
 * let out: reported, as CPython reports one from __del__, and dropped. */
RPY_RT void rpy_ignored_exception(const char *where, RPyString *name, RPyString *message) {
    rpy_flush_stdout();
    rpy_write_all(2, "Exception ignored in ", 21);
    rpy_write_all(2, where, strlen(where));
    rpy_write_all(2, ": ", 2);
    rpy_write_exception(name, message);
}

RPY_RT RPY_NORETURN void rpy_fatal_no_exit(const char *graph, long value) {
    char msg[256];
    snprintf(msg, sizeof msg, "no exit of a block in %s matches the value %ld", graph, value);
    rpy_fatal("internal error", msg);
}

RPY_RT RPY_NORETURN void rpy_stack_overflow(void) {
    rpy_fatal("RecursionError", "maximum recursion depth exceeded");
}

/* Called first thing in main(): the stack may grow to its soft limit (8 MB
 * when unlimited or unknown) minus a margin for the runtime's own calls. */
RPY_RT void rpy_stack_init(void) {
    struct rlimit rl;
    size_t limit = (size_t)8 << 20;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        limit = (size_t)rl.rlim_cur;
    char probe;
    rpy_stack_top = (uintptr_t)&probe;
    size_t margin = (size_t)256 << 10;
    size_t usable = limit > 2 * margin ? limit - margin : limit / 2;
    rpy_stack_max = usable > (size_t)INTPTR_MAX ? INTPTR_MAX : (intptr_t)usable;
    rpy_stack_limit = rpy_stack_top > usable ? rpy_stack_top - usable : 0;
}

/* ---- allocation ------------------------------------------------------ */

/* Both collectors give rpy_malloc_varsize the object's size from its items. */
static size_t rpy_varsize_bytes(size_t struct_size, size_t items_offset, size_t item_size,
                                long n) {
    if (RPY_UNLIKELY(n < 0)) rpy_fatal("MemoryError", "negative length");
    if (RPY_UNLIKELY(item_size != 0 &&
                     (unsigned long)n > (LONG_MAX - items_offset) / item_size))
        rpy_fatal("MemoryError", NULL);
    size_t size = items_offset + (size_t)n * item_size;
    return size < struct_size ? struct_size : size;
}

#ifndef RPY_GC_GENERATIONAL

/* --gc=none: objects are never freed, so they are carved one after the
 * other out of zeroed chunks: an allocation is a pointer bump, and an
 * object costs its size rounded up to a word, not calloc's header and
 * bookkeeping (a program of many small strings used a sixth more memory
 * and a fifth more time with one calloc per object). Objects larger than
 * an eighth of a chunk get their own block. */
#define RPY_CHUNK_SIZE ((size_t)1 << 20)
static char *rpy_chunk_free, *rpy_chunk_end;

static __attribute__((noinline)) void *rpy_malloc_slow(size_t size) {
    if (size > RPY_CHUNK_SIZE / 8) {
        void *p = calloc(1, size);
        if (RPY_UNLIKELY(p == NULL)) rpy_fatal("MemoryError", NULL);
        return p;
    }
    char *chunk = calloc(1, RPY_CHUNK_SIZE);
    if (RPY_UNLIKELY(chunk == NULL)) rpy_fatal("MemoryError", NULL);
    rpy_chunk_free = chunk + size;
    rpy_chunk_end = chunk + RPY_CHUNK_SIZE;
    return chunk;
}

RPY_RT void *rpy_malloc(size_t size, unsigned long tid) {
    char *p;
    size = ((size ? size : 1) + 7) & ~(size_t)7;
    if (RPY_UNLIKELY(size > RPY_CHUNK_SIZE || (size_t)(rpy_chunk_end - rpy_chunk_free) < size)) {
        p = rpy_malloc_slow(size);
    } else {
        p = rpy_chunk_free;
        rpy_chunk_free = p + size;
    }
    if (size >= sizeof(long)) *(unsigned long *)p = tid;
    return p;
}

RPY_RT void *rpy_malloc_varsize(size_t struct_size, size_t items_offset,
                                size_t item_size, long n, size_t length_offset,
                                unsigned long tid) {
    char *p = rpy_malloc(rpy_varsize_bytes(struct_size, items_offset, item_size, n), tid);
    *(long *)(p + length_offset) = n;
    return p;
}

RPY_RT void rpy_gc_init(void) {}
RPY_RT void rpy_gc_report(void) {}
/* The JIT's hooks (see the generational collector's): nothing moves or
 * is freed here. */
RPY_RT void rpy_gc_jit_minor_collection(void) {}
RPY_RT int rpy_gc_jit_may_move(void *p) { (void)p; return 0; }
RPY_RT void rpy_gc_jit_keep(void *p) { (void)p; }

/* Without a collector there are no callbacks to hold. */
#define RPY_GC_HOLD_CALLBACKS(statement) statement

/* gc.collect(), gc.enable()/disable(), gc.isenabled(): without a
 * collector, nothing is collected; the flag is kept. */
static bool rpy_gc_enabled = true;
RPY_RT void rpy_gc_collect_now(long generation) { (void)generation; }
RPY_RT void rpy_gc_set_enabled(bool on) { rpy_gc_enabled = on; }
RPY_RT bool rpy_gc_isenabled(void) { return rpy_gc_enabled; }

#else /* RPY_GC_GENERATIONAL */

/* The precise generational collector (the original's minimark, without
 * its incremental steps and card marking).
 *
 * Young objects are bumped in the nursery. A minor collection copies the
 * nursery objects that are reachable from the roots (the shadow stack, the
 * pending exception) or from a remembered old object out to the old
 * generation (Cheney-style, with a stack of copies still to scan), leaving
 * a forwarding address behind; then the nursery is empty again. An old
 * object is a block of its own from malloc, listed in `rpy_gc_old`; a
 * major collection, after a minor one, marks from the roots and the
 * statics written since start-up, and frees what is unmarked. Objects of
 * at least `rpy_gc_large_size` bytes are made old directly, never copied.
 *
 * Environment, read at start-up:
 *   RPY_GC_NURSERY=SIZE   the nursery's size in bytes (suffix K, M or G);
 *                         twice the L2 cache's size by default
 *   RPY_GC_DEBUG=1        collect at every allocation: a minor collection
 *                         each time, a major one every 64th, the nursery's
 *                         left-behind copies and freed objects overwritten
 *                         with 0xdd, so a pointer the graphs did not keep
 *                         as a root reads garbage at once
 *   RPY_GC_STATS=1        print the number of collections and the old
 *                         generation's peak size on exit */

#ifdef __GLIBC__
#include <malloc.h>
#include <sys/mman.h>
#endif

static char *rpy_nursery_start, *rpy_nursery_end;
static size_t rpy_nursery_size;
/* RPY_GC_DEBUG: the nursery's other half; each collection switches halves. */
static char *rpy_nursery_other;
static int rpy_gc_debug, rpy_gc_stats;
static size_t rpy_gc_large_size;
static size_t rpy_gc_old_bytes, rpy_gc_next_major, rpy_gc_min_heap, rpy_gc_peak_old_bytes;
static long rpy_gc_minor_count, rpy_gc_major_count;
/* For RPY_GC_STATS: how often a minor collection scanned an array by its
 * cards, and how many marked cards it scanned. */
static long rpy_gc_card_scans, rpy_gc_cards_scanned;

/* A growable array of object addresses. */
typedef struct {
    void **items;
    size_t len, cap;
} RPyGcList;

/* Old objects that may point to young ones (old objects written since the
 * last minor collection, large objects and the runtime's old allocations);
 * the statics written since start-up; every old object; the objects a
 * collection has still to scan. */
static RPyGcList rpy_gc_remembered, rpy_gc_prebuilt_written, rpy_gc_old, rpy_gc_pending;
/* The old objects the JIT's compiled code names as constants: roots for
 * the rest of the run (the code holds their addresses). */
static RPyGcList rpy_gc_jit_constants;
/* Finalization (a class's __del__): the old objects whose destructor has
 * not run, and the objects found dead whose destructor is still to run.
 * Those are kept alive, with all they reach, until it has run (after the
 * collection, see rpy_gc_run_callbacks); then nothing lists them and the
 * next collection that finds them dead frees them. */
static RPyGcList rpy_gc_old_with_destructor, rpy_gc_to_finalize;
/* Whether any type of the program has a destructor: only then does a
 * minor collection walk the nursery for dead objects that have one. */
static bool rpy_gc_has_destructors;
/* While positive, collections leave their callbacks (GC hooks, __del__)
 * to a later one: they are running already, or the JIT's machine code
 * allocates, whose optimizer assumed an allocation writes no field. */
static int rpy_gc_callbacks_held;
/* Runs `statement` (which may declare what follows it uses) with the
 * callbacks held. */
#define RPY_GC_HOLD_CALLBACKS(statement)                                      \
    rpy_gc_callbacks_held++;                                                  \
    statement;                                                                \
    rpy_gc_callbacks_held--
/* Collections not yet reported to the GC hooks. */
static long rpy_gc_unreported_minors, rpy_gc_unreported_majors;
/* The old generation's small-object pages and the bytes of its other
 * objects (malloc blocks), for the GC hooks. */
static long rpy_gc_page_count;
static size_t rpy_gc_raw_bytes;

static __attribute__((noinline)) void rpy_gc_list_grow(RPyGcList *l) {
    size_t cap = l->cap ? l->cap * 2 : 1024;
    void **items = realloc(l->items, cap * sizeof(void *));
    if (RPY_UNLIKELY(items == NULL)) rpy_fatal("MemoryError", NULL);
    l->items = items;
    l->cap = cap;
}

RPY_INLINE void rpy_gc_list_push(RPyGcList *l, void *p) {
    if (RPY_UNLIKELY(l->len == l->cap)) rpy_gc_list_grow(l);
    l->items[l->len++] = p;
}

#define RPY_GC_HDR(obj) (*(unsigned long *)(obj))
#define RPY_GC_IN_NURSERY(p) ((char *)(p) >= rpy_nursery_start && (char *)(p) < rpy_nursery_end)

static size_t rpy_gc_size_of(void *obj) {
    const RPyGcType *t = &rpy_gc_types[RPY_GC_TID(RPY_GC_HDR(obj))];
    size_t size = (size_t)t->fixed_size;
    if (t->item_size != 0) {
        long n = *(long *)((char *)obj + t->length_offset);
        size_t with_items = (size_t)t->items_offset + (size_t)n * (size_t)t->item_size;
        if (with_items > size) size = with_items;
    }
    return RPY_GC_ROUND(size);
}

/* Whether objects of type `tid` hold no GC pointer (strings, arrays of
 * numbers): a collection need not scan them, so it never lists them. */
static inline bool rpy_gc_type_is_leaf(unsigned long tid) {
    const RPyGcType *t = &rpy_gc_types[tid];
    return t->n_pointers == 0 && !t->items_are_gc_pointers;
}

/* Runs `visit(slot)` on the address of each GC pointer of `obj`. */
#define RPY_GC_FOR_EACH_POINTER(obj, visit)                                         \
    do {                                                                            \
        char *o_ = (char *)(obj);                                                   \
        const RPyGcType *t_ = &rpy_gc_types[RPY_GC_TID(RPY_GC_HDR(o_))];             \
        for (long i_ = 0; i_ < t_->n_pointers; i_++)                                \
            visit((void **)(o_ + t_->pointer_offsets[i_]));                         \
        if (t_->items_are_gc_pointers) {                                            \
            long n_ = *(long *)(o_ + t_->length_offset);                            \
            void **items_ = (void **)(o_ + t_->items_offset);                       \
            for (long i_ = 0; i_ < n_; i_++) visit(&items_[i_]);                    \
        }                                                                           \
    } while (0)

/* ---- the old generation's memory ---- */

/* Small old objects (up to RPY_GC_SMALL_MAX bytes) live in pages of one
 * size class each, so that an object costs its own size: no malloc
 * header, no entry in a list. A free slot has a zero header (no object
 * has type id 0) and the next free slot of its class in its second word.
 * Larger objects are a malloc block each, listed in `rpy_gc_old`. */
#define RPY_GC_SMALL_MAX 256
#define RPY_GC_PAGE_SIZE ((size_t)64 << 10)
#define RPY_GC_CLASSES (RPY_GC_SMALL_MAX / 8 + 1)

typedef struct RPyGcPage {
    struct RPyGcPage *next;
    char objects[];
} RPyGcPage;

static RPyGcPage *rpy_gc_pages[RPY_GC_CLASSES];
static void **rpy_gc_free_slots[RPY_GC_CLASSES];

#define RPY_GC_SLOTS_PER_PAGE(size) ((RPY_GC_PAGE_SIZE - offsetof(RPyGcPage, objects)) / (size))

/* The old generation's memory (its pages and large objects, malloc blocks)
 * comes from glibc's heap, which rpy_gc_init makes grow by 64 MB at a
 * time: this asks the system for transparent huge pages on what it grew
 * by since the last call, before the program touches it. With 4 KB pages,
 * each was a page fault at its first touch, wordcount.py's 16,000 of them
 * an eighth of its time (2,000 with huge pages, where the system has them
 * on request). The advice starts at a 2 MB boundary: a huge page must be
 * whole inside the advised range. */
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
static char *rpy_gc_heap_advised;
static void rpy_gc_advise_heap(void) {
    char *top = sbrk(0);
    if (top <= rpy_gc_heap_advised) return;
    const uintptr_t huge = (uintptr_t)2 << 20;
    char *from = (char *)(((uintptr_t)rpy_gc_heap_advised + huge - 1) & ~(huge - 1));
    if (from < top) madvise(from, (size_t)(top - from), MADV_HUGEPAGE);
    rpy_gc_heap_advised = top;
}
#else
static void rpy_gc_advise_heap(void) {}
#endif

static __attribute__((noinline)) void rpy_gc_new_page(size_t cls) {
    size_t size = cls * 8;
    RPyGcPage *page = malloc(RPY_GC_PAGE_SIZE);
    if (RPY_UNLIKELY(page == NULL)) rpy_fatal("MemoryError", NULL);
    rpy_gc_advise_heap();
    rpy_gc_page_count++;
    page->next = rpy_gc_pages[cls];
    rpy_gc_pages[cls] = page;
    void **head = rpy_gc_free_slots[cls];
    for (size_t i = RPY_GC_SLOTS_PER_PAGE(size); i-- > 0;) {
        void **slot = (void **)(page->objects + i * size);
        slot[0] = NULL;
        slot[1] = head;
        head = slot;
    }
    rpy_gc_free_slots[cls] = head;
}

/* The bytes of the card table in front of a card-marked array of `size`
 * bytes: a card for every 128 of the at most size / 8 items, rounded up to
 * whole words so that the object stays aligned. */
static inline size_t rpy_gc_card_bytes(size_t size) {
    return (((size / 8) >> RPY_GC_CARD_SHIFT) + 1 + 7) & ~(size_t)7;
}

/* The malloc block an old object outside the pages lives in. */
static inline char *rpy_gc_block_of(void *obj, size_t size) {
    return (char *)obj - ((RPY_GC_HDR(obj) & RPY_GCFLAG_HAS_CARDS) ? rpy_gc_card_bytes(size) : 0);
}

/* An old object of `size` bytes (a multiple of 8, at least 16) and type
 * `tid`, zeroed past its header when `zeroed` (the header holds the type
 * id, and the card flag of an array of GC pointers too large for the
 * pages, whose cards are clear). A large zeroed block comes from calloc,
 * which need not touch memory fresh from the system. */
static void *rpy_gc_malloc_old_block(size_t size, unsigned long tid, bool zeroed) {
    void *p;
    unsigned long hdr = tid;
    if (size <= RPY_GC_SMALL_MAX) {
        size_t cls = size / 8;
        if (RPY_UNLIKELY(rpy_gc_free_slots[cls] == NULL)) rpy_gc_new_page(cls);
        void **slot = rpy_gc_free_slots[cls];
        rpy_gc_free_slots[cls] = slot[1];
        p = slot;
        if (zeroed) memset(p, 0, size);
    } else {
        size_t cards = rpy_gc_types[tid].items_are_gc_pointers ? rpy_gc_card_bytes(size) : 0;
        char *block = zeroed ? calloc(1, cards + size) : malloc(cards + size);
        if (RPY_UNLIKELY(block == NULL)) rpy_fatal("MemoryError", NULL);
        rpy_gc_advise_heap();
        if (cards != 0) {
            if (!zeroed) memset(block, 0, cards);
            hdr |= RPY_GCFLAG_HAS_CARDS;
        }
        p = block + cards;
        rpy_gc_list_push(&rpy_gc_old, p);
        rpy_gc_raw_bytes += size;
    }
    RPY_GC_HDR(p) = hdr;
    rpy_gc_old_bytes += size;
    return p;
}

/* An object old from its allocation is watched for finalization when its
 * type has a destructor (a young one is found by the nursery walk). */
static inline void rpy_gc_watch_old(void *p, unsigned long tid) {
    if (rpy_gc_types[tid].destructor != NULL) rpy_gc_list_push(&rpy_gc_old_with_destructor, p);
}

/* A new old object of `size` bytes and type `tid`, zeroed past its header. */
static void *rpy_gc_malloc_old(size_t size, unsigned long tid) {
    void *p = rpy_gc_malloc_old_block(size, tid, true);
    if (rpy_gc_old_bytes > rpy_gc_peak_old_bytes) rpy_gc_peak_old_bytes = rpy_gc_old_bytes;
    return p;
}

/* Frees the old objects the marking did not reach, and unmarks the others;
 * a page left without objects goes back to the system. */
static void rpy_gc_sweep(void) {
    for (size_t cls = 2; cls < RPY_GC_CLASSES; cls++) {
        size_t size = cls * 8, n = RPY_GC_SLOTS_PER_PAGE(size);
        RPyGcPage **link = &rpy_gc_pages[cls];
        void **free_slots = NULL;
        while (*link != NULL) {
            RPyGcPage *page = *link;
            void **page_free = NULL, **page_last = NULL;
            long live = 0;
            for (size_t i = 0; i < n; i++) {
                void **slot = (void **)(page->objects + i * size);
                unsigned long hdr = (unsigned long)slot[0];
                if (hdr & RPY_GCFLAG_MARKED) {
                    slot[0] = (void *)(hdr & ~RPY_GCFLAG_MARKED);
                    live++;
                    continue;
                }
                if (hdr != 0) {
                    rpy_gc_old_bytes -= size;
                    if (rpy_gc_debug) memset(slot, 0xdd, size);
                    slot[0] = NULL;
                }
                slot[1] = page_free;
                if (page_free == NULL) page_last = slot;
                page_free = slot;
            }
            if (live == 0) {
                *link = page->next;
                free(page);
                rpy_gc_page_count--;
                continue;
            }
            if (page_last != NULL) {
                page_last[1] = free_slots;
                free_slots = page_free;
            }
            link = &page->next;
        }
        rpy_gc_free_slots[cls] = free_slots;
    }
    size_t kept = 0;
    for (size_t i = 0; i < rpy_gc_old.len; i++) {
        void *obj = rpy_gc_old.items[i];
        if (RPY_GC_HDR(obj) & RPY_GCFLAG_MARKED) {
            RPY_GC_HDR(obj) &= ~RPY_GCFLAG_MARKED;
            rpy_gc_old.items[kept++] = obj;
        } else {
            size_t size = rpy_gc_size_of(obj);
            rpy_gc_old_bytes -= size;
            rpy_gc_raw_bytes -= size;
            char *block = rpy_gc_block_of(obj, size);
            if (rpy_gc_debug) memset(obj, 0xdd, size);
            free(block);
        }
    }
    rpy_gc_old.len = kept;
}

/* ---- minor collection ---- */

/* The old copy of the nursery object `obj`, made on its first visit. */
static void *rpy_gc_copy_young(void *obj) {
    unsigned long hdr = RPY_GC_HDR(obj);
    if (hdr & RPY_GCFLAG_FORWARDED) return ((void **)obj)[1];
    size_t size = rpy_gc_size_of(obj);
    void *copy = rpy_gc_malloc_old_block(size, RPY_GC_TID(hdr), false);
    unsigned long cards = RPY_GC_HDR(copy) & RPY_GCFLAG_HAS_CARDS;
    memcpy(copy, obj, size);
    RPY_GC_HDR(copy) = hdr | cards | RPY_GCFLAG_TRACK_YOUNG;
    RPY_GC_HDR(obj) = hdr | RPY_GCFLAG_FORWARDED;
    ((void **)obj)[1] = copy;
    if (!rpy_gc_type_is_leaf(RPY_GC_TID(hdr))) rpy_gc_list_push(&rpy_gc_pending, copy);
    return copy;
}

static inline void rpy_gc_minor_visit(void **slot) {
    void *p = *slot;
    if (RPY_GC_IN_NURSERY(p)) *slot = rpy_gc_copy_young(p);
}

/* Copies out what the copies still to scan reach. */
static void rpy_gc_minor_drain(void) {
    while (rpy_gc_pending.len > 0) {
        void *obj = rpy_gc_pending.items[--rpy_gc_pending.len];
        RPY_GC_FOR_EACH_POINTER(obj, rpy_gc_minor_visit);
    }
}

/* After a minor collection's copying: the nursery objects that have a
 * destructor either survived (their copy is listed for the major
 * collections to watch) or are dead, and are then copied out with what
 * they reach, to be finalized. The nursery is walked object by object:
 * it holds nothing else, bumped from its start. */
static void rpy_gc_young_destructors(void) {
    size_t first_dead = rpy_gc_to_finalize.len;
    char *p = rpy_nursery_start;
    while (p < rpy_nursery_free) {
        unsigned long hdr = RPY_GC_HDR(p);
        /* A copy keeps the length a forwarding address may overwrite. */
        void *copy = (hdr & RPY_GCFLAG_FORWARDED) ? ((void **)p)[1] : NULL;
        size_t size = rpy_gc_size_of(copy != NULL ? copy : p);
        if (rpy_gc_types[RPY_GC_TID(hdr)].destructor != NULL)
            rpy_gc_list_push(copy != NULL ? &rpy_gc_old_with_destructor : &rpy_gc_to_finalize,
                             copy != NULL ? copy : (void *)p);
        p += size;
    }
    for (size_t i = first_dead; i < rpy_gc_to_finalize.len; i++)
        rpy_gc_to_finalize.items[i] = rpy_gc_copy_young(rpy_gc_to_finalize.items[i]);
    rpy_gc_minor_drain();
}

/* The number of cards of the card-marked array `obj`, whose items are GC
 * pointers, and where they are. */
static size_t rpy_gc_card_count(void *obj, void ***items, long *n_items) {
    const RPyGcType *t = &rpy_gc_types[RPY_GC_TID(RPY_GC_HDR(obj))];
    long n = *(long *)((char *)obj + t->length_offset);
    *items = (void **)((char *)obj + t->items_offset);
    *n_items = n;
    return n > 0 ? (((size_t)n - 1) >> RPY_GC_CARD_SHIFT) + 1 : 0;
}

/* Visits the items of the marked cards of the card-marked array `obj`, and
 * its fixed GC pointers if it has any. */
static void rpy_gc_scan_cards(void *obj) {
    void **items;
    long n;
    size_t n_cards = rpy_gc_card_count(obj, &items, &n);
    const unsigned char *cards = (const unsigned char *)obj;
    const RPyGcType *t = &rpy_gc_types[RPY_GC_TID(RPY_GC_HDR(obj))];
    for (long i = 0; i < t->n_pointers; i++)
        rpy_gc_minor_visit((void **)((char *)obj + t->pointer_offsets[i]));
    rpy_gc_card_scans++;
    for (size_t k = 0; k < n_cards; k++) {
        if (cards[-1 - (long)k] == 0) continue;
        rpy_gc_cards_scanned++;
        long end = (long)((k + 1) << RPY_GC_CARD_SHIFT);
        if (end > n) end = n;
        for (long i = (long)(k << RPY_GC_CARD_SHIFT); i < end; i++) rpy_gc_minor_visit(&items[i]);
    }
}

static void rpy_gc_clear_cards(void *obj) {
    void **items;
    long n;
    size_t n_cards = rpy_gc_card_count(obj, &items, &n);
    memset((char *)obj - n_cards, 0, n_cards);
}

static void rpy_gc_minor_collection(void) {
    rpy_gc_minor_count++;
    for (void **r = rpy_gc_root_base; r < rpy_gc_root_top; r++) rpy_gc_minor_visit(r);
    rpy_gc_minor_visit(&rpy_exc_value);
    for (size_t i = 0; i < rpy_gc_remembered.len; i++) {
        void *obj = rpy_gc_remembered.items[i];
        unsigned long hdr = RPY_GC_HDR(obj);
        if (!(hdr & RPY_GCFLAG_TRACK_YOUNG))
            RPY_GC_FOR_EACH_POINTER(obj, rpy_gc_minor_visit);
        else if (hdr & RPY_GCFLAG_CARDS_SET)
            rpy_gc_scan_cards(obj);
        if (hdr & RPY_GCFLAG_CARDS_SET) rpy_gc_clear_cards(obj);
        RPY_GC_HDR(obj) = (hdr | RPY_GCFLAG_TRACK_YOUNG) & ~RPY_GCFLAG_CARDS_SET;
    }
    rpy_gc_remembered.len = 0;
    rpy_gc_minor_drain();
    if (rpy_gc_has_destructors) rpy_gc_young_destructors();
    rpy_gc_unreported_minors++;
    if (rpy_gc_old_bytes > rpy_gc_peak_old_bytes) rpy_gc_peak_old_bytes = rpy_gc_old_bytes;
    size_t used = (size_t)(rpy_nursery_free - rpy_nursery_start);
    if (rpy_gc_debug) {
        /* What is left behind reads as garbage; the other half, zeroed
         * object by object as it is allocated, takes over. */
        memset(rpy_nursery_start, 0xdd, used);
        char *other = rpy_nursery_other;
        rpy_nursery_other = rpy_nursery_start;
        rpy_nursery_start = other;
        rpy_nursery_end = other + rpy_nursery_size;
    } else {
        memset(rpy_nursery_start, 0, used);
    }
    rpy_nursery_free = rpy_nursery_start;
    rpy_nursery_top = rpy_gc_debug ? rpy_nursery_start : rpy_nursery_end;
}

/* ---- major collection ---- */

static inline void rpy_gc_mark_visit(void **slot) {
    void *p = *slot;
    if (p == NULL) return;
    unsigned long hdr = RPY_GC_HDR(p);
    if (hdr & (RPY_GCFLAG_MARKED | RPY_GCFLAG_PREBUILT)) return;
    RPY_GC_HDR(p) = hdr | RPY_GCFLAG_MARKED;
    if (!rpy_gc_type_is_leaf(RPY_GC_TID(hdr))) rpy_gc_list_push(&rpy_gc_pending, p);
}

/* Marks what the marked objects still to scan reach. */
static void rpy_gc_mark_drain(void) {
    while (rpy_gc_pending.len > 0) {
        void *obj = rpy_gc_pending.items[--rpy_gc_pending.len];
        RPY_GC_FOR_EACH_POINTER(obj, rpy_gc_mark_visit);
    }
}

/* After a minor collection (the nursery is empty): marks from the roots,
 * frees every old object left unmarked. */
static void rpy_gc_major_collection(void) {
    rpy_gc_major_count++;
    for (void **r = rpy_gc_root_base; r < rpy_gc_root_top; r++) rpy_gc_mark_visit(r);
    rpy_gc_mark_visit(&rpy_exc_value);
    for (size_t i = 0; i < rpy_gc_jit_constants.len; i++)
        rpy_gc_mark_visit(&rpy_gc_jit_constants.items[i]);
    for (size_t i = 0; i < rpy_gc_prebuilt_written.len; i++)
        RPY_GC_FOR_EACH_POINTER(rpy_gc_prebuilt_written.items[i], rpy_gc_mark_visit);
    rpy_gc_mark_drain();
    /* The unmarked objects that have a destructor are dead: they are
     * finalized, and kept alive (with what they reach) until then. The
     * objects queued already are marked only after this, so that a dead
     * object only they reach is found dead with them (as CPython finds
     * everything unreachable at once). */
    size_t kept = 0;
    for (size_t i = 0; i < rpy_gc_old_with_destructor.len; i++) {
        void *obj = rpy_gc_old_with_destructor.items[i];
        if (RPY_GC_HDR(obj) & RPY_GCFLAG_MARKED)
            rpy_gc_old_with_destructor.items[kept++] = obj;
        else
            rpy_gc_list_push(&rpy_gc_to_finalize, obj);
    }
    rpy_gc_old_with_destructor.len = kept;
    for (size_t i = 0; i < rpy_gc_to_finalize.len; i++)
        rpy_gc_mark_visit(&rpy_gc_to_finalize.items[i]);
    rpy_gc_mark_drain();
    rpy_gc_unreported_majors++;
    rpy_gc_sweep();
    /* The next major collection when the old generation has grown by the
     * original's factor of 1.82 (or to the minimum heap). */
    size_t next = rpy_gc_old_bytes + rpy_gc_old_bytes / 100 * 82;
    rpy_gc_next_major = next > rpy_gc_min_heap ? next : rpy_gc_min_heap;
}

/* How long the last collections took, in nanoseconds, for the GC hooks;
 * read only when the program has them. */
static long rpy_gc_last_minor_ns, rpy_gc_last_major_ns;
static long rpy_gc_last_pages_before, rpy_gc_last_raw_before;

static long rpy_gc_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000000000L + t.tv_nsec;
}

/* A minor collection, timed when the GC hooks will report it. */
static void rpy_gc_timed_minor_collection(void) {
    if (rpy_gc_hook_minor == NULL) {
        rpy_gc_minor_collection();
        return;
    }
    long start = rpy_gc_now_ns();
    rpy_gc_minor_collection();
    rpy_gc_last_minor_ns = rpy_gc_now_ns() - start;
}

/* A major collection, timed and measured when the GC hooks will report
 * it. */
static void rpy_gc_timed_major_collection(void) {
    if (rpy_gc_hook_collect == NULL && rpy_gc_hook_collect_step == NULL) {
        rpy_gc_major_collection();
        return;
    }
    rpy_gc_last_pages_before = rpy_gc_page_count;
    rpy_gc_last_raw_before = (long)rpy_gc_raw_bytes;
    long start = rpy_gc_now_ns();
    rpy_gc_major_collection();
    rpy_gc_last_major_ns = rpy_gc_now_ns() - start;
}

/* Calls the program's function `call` made for the collector, then
 * reports and drops what it raised. */
#define RPY_GC_CALLBACK(where, call)                                          \
    do {                                                                      \
        call;                                                                 \
        rpy_gc_callback_failed(where);                                        \
    } while (0)

/* Reports the collections the GC hooks have not heard of, then runs the
 * destructors of the objects found dead, until none is left. The caller
 * keeps its GC pointers on the shadow stack: this runs the program's code,
 * which may allocate and collect; a collection it causes leaves its own
 * work to this same loop. The pending exception (if any) waits, rooted. */
static void rpy_gc_run_callbacks(void) {
    if (rpy_gc_callbacks_held > 0) return;
    rpy_gc_callbacks_held++;
    void *exc_type = rpy_exc_type;
    *rpy_gc_root_top++ = rpy_exc_value;
    rpy_exc_type = NULL;
    rpy_exc_value = NULL;
    for (;;) {
        if (rpy_gc_unreported_minors > 0) {
            rpy_gc_unreported_minors--;
            if (rpy_gc_hook_minor != NULL)
                RPY_GC_CALLBACK("the GC hook on_gc_minor",
                                rpy_gc_hook_minor(rpy_gc_last_minor_ns, (long)rpy_gc_old_bytes, 0));
        } else if (rpy_gc_unreported_majors > 0) {
            rpy_gc_unreported_majors--;
            /* One step from scanning back to scanning (the original's
             * STATE_SCANNING): the collection is not incremental. */
            if (rpy_gc_hook_collect_step != NULL)
                RPY_GC_CALLBACK("the GC hook on_gc_collect_step",
                                rpy_gc_hook_collect_step(rpy_gc_last_major_ns, 0, 0));
            if (rpy_gc_hook_collect != NULL)
                RPY_GC_CALLBACK("the GC hook on_gc_collect",
                                rpy_gc_hook_collect(rpy_gc_major_count, rpy_gc_last_pages_before,
                                                    rpy_gc_page_count,
                                                    rpy_gc_page_count * (long)RPY_GC_PAGE_SIZE,
                                                    rpy_gc_last_raw_before, (long)rpy_gc_raw_bytes,
                                                    0));
        } else if (rpy_gc_to_finalize.len > 0) {
            void *obj = rpy_gc_to_finalize.items[--rpy_gc_to_finalize.len];
            *rpy_gc_root_top++ = obj;
            RPY_GC_CALLBACK("__del__", rpy_gc_types[RPY_GC_TID(RPY_GC_HDR(obj))].destructor(obj));
            rpy_gc_root_top--;
        } else {
            break;
        }
    }
    rpy_exc_value = *--rpy_gc_root_top;
    rpy_exc_type = exc_type;
    rpy_gc_callbacks_held--;
}

/* gc.disable() stops the major collections the collector starts by
 * itself (as the original's incminimark does); minor ones go on. */
static bool rpy_gc_enabled = true;

/* A minor collection, and a major one when the old generation has grown
 * enough (in debug mode: every 64th time). */
static void rpy_gc_collect(void) {
    rpy_gc_timed_minor_collection();
    if ((rpy_gc_enabled && rpy_gc_old_bytes > rpy_gc_next_major) ||
        (rpy_gc_debug && (rpy_gc_minor_count & 63) == 0))
        rpy_gc_timed_major_collection();
}

/* gc.collect(generation): a minor collection, and for a generation other
 * than 0 a major one, whether or not collections are enabled. The graphs
 * saved their roots around the call (gctransform). */
RPY_RT void rpy_gc_collect_now(long generation) {
    rpy_gc_timed_minor_collection();
    if (generation != 0) rpy_gc_timed_major_collection();
    rpy_gc_run_callbacks();
}

/* gc.enable() / gc.disable() */
RPY_RT void rpy_gc_set_enabled(bool on) { rpy_gc_enabled = on; }

/* gc.isenabled() */
RPY_RT bool rpy_gc_isenabled(void) { return rpy_gc_enabled; }

/* A large object: old from the start, and remembered, since the graphs
 * treat what they just allocated as young and store into it unbarriered. */
static void *rpy_gc_malloc_large(size_t size, unsigned long tid) {
    if (rpy_gc_old_bytes + size > rpy_gc_next_major) {
        rpy_gc_collect();
        rpy_gc_run_callbacks();
    }
    void *p = rpy_gc_malloc_old(size, tid);
    rpy_gc_list_push(&rpy_gc_remembered, p);
    rpy_gc_watch_old(p, tid);
    return p;
}

RPY_RT __attribute__((noinline)) void *rpy_gc_collect_and_malloc(size_t size, unsigned long tid) {
    if (size >= rpy_gc_large_size) return rpy_gc_malloc_large(size, tid);
    rpy_gc_collect();
    rpy_gc_run_callbacks();
    /* What the callbacks allocated may have left too little room. */
    if ((size_t)(rpy_nursery_end - rpy_nursery_free) < size) rpy_gc_collect();
    char *p = rpy_nursery_free;
    if (rpy_gc_debug) memset(p, 0, size);
    rpy_nursery_free = p + size;
    if (rpy_gc_debug) rpy_nursery_top = rpy_nursery_free;
    RPY_GC_HDR(p) = tid;
    return p;
}

RPY_RT __attribute__((noinline)) void *
rpy_gc_collect_and_malloc_varsize(size_t struct_size, size_t items_offset, size_t item_size,
                                  long n, size_t length_offset, unsigned long tid) {
    size_t size = rpy_varsize_bytes(struct_size, items_offset, item_size, n);
    if (RPY_UNLIKELY(size > (size_t)LONG_MAX - 16)) rpy_fatal("MemoryError", NULL);
    char *p = rpy_gc_collect_and_malloc(RPY_GC_ROUND(size), tid);
    *(long *)(p + length_offset) = n;
    return p;
}

/* The JIT's hooks. Before its tracer makes trace constants of the objects
 * its frames reach, a minor collection (its caller has pushed the frames'
 * pointers on the shadow stack) makes every object old, and old objects
 * never move; a constant made later of a young object makes the tracer
 * give up; the constants of compiled code are kept alive. */
RPY_RT void rpy_gc_jit_minor_collection(void) { rpy_gc_minor_collection(); }
RPY_RT int rpy_gc_jit_may_move(void *p) { return RPY_GC_IN_NURSERY(p); }
RPY_RT void rpy_gc_jit_keep(void *p) {
    if (p != NULL && !RPY_GC_IN_NURSERY(p)) rpy_gc_list_push(&rpy_gc_jit_constants, p);
}

RPY_RT __attribute__((noinline)) void rpy_gc_remember_item(void *obj, long index) {
    unsigned long hdr = RPY_GC_HDR(obj);
    if (!(hdr & RPY_GCFLAG_HAS_CARDS)) {
        rpy_gc_remember(obj);
        return;
    }
    ((unsigned char *)obj)[-1 - (index >> RPY_GC_CARD_SHIFT)] = 1;
    if (!(hdr & RPY_GCFLAG_CARDS_SET)) {
        RPY_GC_HDR(obj) = hdr | RPY_GCFLAG_CARDS_SET;
        rpy_gc_list_push(&rpy_gc_remembered, obj);
    }
}

RPY_RT __attribute__((noinline)) void rpy_gc_remember(void *obj) {
    unsigned long hdr = RPY_GC_HDR(obj) & ~RPY_GCFLAG_TRACK_YOUNG;
    if ((hdr & (RPY_GCFLAG_PREBUILT | RPY_GCFLAG_PREBUILT_LISTED)) == RPY_GCFLAG_PREBUILT) {
        hdr |= RPY_GCFLAG_PREBUILT_LISTED;
        rpy_gc_list_push(&rpy_gc_prebuilt_written, obj);
    }
    RPY_GC_HDR(obj) = hdr;
    rpy_gc_list_push(&rpy_gc_remembered, obj);
}

RPY_RT void *rpy_malloc(size_t size, unsigned long tid) {
    size = RPY_GC_ROUND(size);
    char *p = rpy_nursery_free;
    if (RPY_LIKELY(size < rpy_gc_large_size && (size_t)(rpy_nursery_top - p) >= size)) {
        rpy_nursery_free = p + size;
        RPY_GC_HDR(p) = tid;
        return p;
    }
    /* No collection here: the caller keeps no roots. */
    p = rpy_gc_malloc_old(size, tid);
    rpy_gc_list_push(&rpy_gc_remembered, p);
    rpy_gc_watch_old(p, tid);
    return p;
}

RPY_RT void *rpy_malloc_varsize(size_t struct_size, size_t items_offset,
                                size_t item_size, long n, size_t length_offset,
                                unsigned long tid) {
    char *p = rpy_malloc(rpy_varsize_bytes(struct_size, items_offset, item_size, n), tid);
    *(long *)(p + length_offset) = n;
    return p;
}

/* A size in bytes from the environment ("4M", "512K", "1048576"); 0 when
 * unset or unreadable. */
static size_t rpy_gc_env_size(const char *name) {
    const char *v = getenv(name);
    if (v == NULL) return 0;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    switch (*end) {
    case 'k': case 'K': n <<= 10; break;
    case 'm': case 'M': n <<= 20; break;
    case 'g': case 'G': n <<= 30; break;
    default: break;
    }
    return (size_t)n;
}

/* Called in main() after rpy_stack_init. */
RPY_RT void rpy_gc_init(void) {
    size_t nursery = rpy_gc_env_size("RPY_GC_NURSERY");
    if (nursery == 0) {
        /* Twice the L2 cache, at most 8 MB: on the 1 MB L2 of the machine
         * the benchmarks were measured on, 2 MB ran wordcount, binary_trees
         * and gcbench 7-20% faster than 1 MB with the same peak memory,
         * and 4 MB no faster with more (`cargo bench --bench pipeline`). */
        long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        nursery = l2 > 0 ? 2 * (size_t)l2 : (size_t)2 << 20;
        if (nursery > ((size_t)8 << 20)) nursery = (size_t)8 << 20;
    }
    if (nursery < ((size_t)64 << 10)) nursery = (size_t)64 << 10;
    nursery &= ~(size_t)7;
    const char *debug = getenv("RPY_GC_DEBUG");
    rpy_gc_debug = debug != NULL && debug[0] != '\0' && debug[0] != '0';
    const char *stats = getenv("RPY_GC_STATS");
    rpy_gc_stats = stats != NULL && stats[0] != '\0' && stats[0] != '0';
    /* The old generation's pages and large objects are malloc blocks,
     * freed by a major collection and soon allocated again: keep that
     * memory in the process (below 32 MB a block comes from the heap, not
     * a fresh mmap, and up to 64 MB free at the heap's top is not given
     * back), or each reuse costs the system's page faults and zeroing
     * again, a sixth of an allocation-heavy program's time. The peak
     * resident memory is the same. The heap grows by 64 MB at a time (of
     * address space: memory is resident once touched), so that
     * rpy_gc_advise_heap finds most of each growth not yet touched. */
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
    rpy_gc_heap_advised = sbrk(0);
#endif
    rpy_nursery_size = nursery;
    rpy_nursery_start = calloc(1, nursery);
    if (rpy_gc_debug) rpy_nursery_other = calloc(1, nursery);
    if (rpy_nursery_start == NULL || (rpy_gc_debug && rpy_nursery_other == NULL))
        rpy_fatal("MemoryError", "no room for the nursery");
    rpy_gc_advise_heap();
    /* Only after the nursery's calloc: memory the heap grows by for a
     * calloc is known zero and not cleared, but memory of a padding an
     * earlier growth left is, and clearing the nursery touched each of its
     * pages at start (1,000 page faults, 2 ms before main for fib.py). */
#ifdef __GLIBC__
    mallopt(M_TOP_PAD, 64 << 20);
#endif
    rpy_nursery_end = rpy_nursery_start + nursery;
    rpy_nursery_free = rpy_nursery_start;
    rpy_nursery_top = rpy_gc_debug ? rpy_nursery_start : rpy_nursery_end;
    for (size_t t = 0; t < sizeof rpy_gc_types / sizeof rpy_gc_types[0]; t++)
        if (rpy_gc_types[t].destructor != NULL) rpy_gc_has_destructors = true;
    rpy_gc_large_size = nursery / 4;
    rpy_gc_min_heap = rpy_gc_env_size("RPY_GC_MIN");
    if (rpy_gc_min_heap == 0) rpy_gc_min_heap = nursery * 4;
    rpy_gc_next_major = rpy_gc_min_heap;
    /* As many slots as the C stack has words: a frame's slots are its
     * live pointers, never more than the C frame that holds them would. */
    size_t slots = (size_t)rpy_stack_max / sizeof(void *) + 1024;
    rpy_gc_root_base = malloc(slots * sizeof(void *));
    if (rpy_gc_root_base == NULL) rpy_fatal("MemoryError", "no room for the shadow stack");
    rpy_gc_root_top = rpy_gc_root_base;
    rpy_gc_root_end = rpy_gc_root_base + slots;
}

/* This process's peak resident memory in kB (Linux's VmHWM), -1 where
 * unknown. getrusage's ru_maxrss would do elsewhere, but on Linux it keeps
 * the high-water mark of the process that spawned this one from before
 * the exec, so a large parent (a test harness) would hide ours. */
static long rpy_peak_resident_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
    }
    fclose(f);
    return kb;
}

/* RPY_GC_STATS: what the collector did, on standard error. */
RPY_RT void rpy_gc_report(void) {
    if (!rpy_gc_stats) return;
    fprintf(stderr,
            "gc: nursery %zu bytes, %ld minor and %ld major collections, "
            "old generation %zu bytes at its peak, %zu at exit, "
            "peak resident memory %ld kB, %ld card scans of %ld cards\n",
            rpy_nursery_size, rpy_gc_minor_count, rpy_gc_major_count, rpy_gc_peak_old_bytes,
            rpy_gc_old_bytes, rpy_peak_resident_kb(), rpy_gc_card_scans, rpy_gc_cards_scanned);
}

#endif /* RPY_GC_GENERATIONAL */

/* The JIT's machine code allocates through these: the collector's
 * callbacks are held (see rpy_gc_callbacks_held), as its optimizer
 * assumed an allocation writes no field. */
RPY_RT void *rpy_gc_malloc_holding_callbacks(size_t size, unsigned long tid) {
    RPY_GC_HOLD_CALLBACKS(void *p = rpy_gc_malloc_fixed(size, tid));
    return p;
}

RPY_RT void *rpy_gc_malloc_varsize_holding_callbacks(size_t fixed, size_t items,
                                                     size_t item_size, long n, size_t length,
                                                     unsigned long tid) {
    RPY_GC_HOLD_CALLBACKS(void *p = rpy_gc_malloc_varsize(fixed, items, item_size, n, length, tid));
    return p;
}

/* ---- strings --------------------------------------------------------- */

RPY_RT RPyString *rpy_str_alloc(long n) { return RPY_MALLOC_VARSIZE(RPyString, n, RPY_TID_STRING); }

/* The 256 one-character strings, prebuilt (CPython keeps them too): a
 * char made a string (an item of a list of str, `s[i]` appended) then costs
 * no allocation, and the collector never copies it. The layout is
 * RPyString's with room for the character and its NUL. */
typedef struct {
    long gc_hdr, f_hash, f_length;
    unsigned char items[8];
} RPyCharString;
#define RPY_CHR1(c) {RPY_PREBUILT_HDR_TID(RPY_TID_STRING), 0, 1, {(unsigned char)(c)}}
#define RPY_CHR4(c) RPY_CHR1(c), RPY_CHR1((c) + 1), RPY_CHR1((c) + 2), RPY_CHR1((c) + 3)
#define RPY_CHR16(c) RPY_CHR4(c), RPY_CHR4((c) + 4), RPY_CHR4((c) + 8), RPY_CHR4((c) + 12)
#define RPY_CHR64(c) RPY_CHR16(c), RPY_CHR16((c) + 16), RPY_CHR16((c) + 32), RPY_CHR16((c) + 48)
static RPyCharString rpy_str_chars[256] = {RPY_CHR64(0), RPY_CHR64(64), RPY_CHR64(128),
                                           RPY_CHR64(192)};

/* a one-character string */
RPY_RT RPyString *rpy_str_from_char(unsigned char c) { return (RPyString *)&rpy_str_chars[c]; }

/* A new string of the n bytes at p; one byte is the prebuilt string of
 * that char, so that `str(7)` or a one-char piece the runtime cuts costs
 * no allocation either. */
RPY_RT RPyString *rpy_str_from_bytes(const char *p, size_t n) {
    if (n == 1) return rpy_str_from_char((unsigned char)p[0]);
    RPyString *s = rpy_str_alloc((long)n);
    memcpy(s->items, p, n);
    return s;
}

RPY_RT RPyString *rpy_str_from_cstr(const char *p) { return rpy_str_from_bytes(p, strlen(p)); }

/* Python 3's repr() of the bytes, cut to `limit` characters when limit > 0
 * (a character is a byte that is not a UTF-8 continuation byte); malloc'ed. */
static char *rpy_repr_bytes(const unsigned char *s, long n, long limit) {
    bool has_sq = memchr(s, '\'', (size_t)n) != NULL;
    bool has_dq = memchr(s, '"', (size_t)n) != NULL;
    char quote = (has_sq && !has_dq) ? '"' : '\'';
    char *out = malloc((size_t)n * 4 + 3);
    if (out == NULL) rpy_fatal("MemoryError", NULL);
    size_t k = 0;
    out[k++] = quote;
    for (long i = 0; i < n; i++) {
        unsigned char b = s[i];
        if (b == '\\') { out[k++] = '\\'; out[k++] = '\\'; }
        else if (b == '\n') { out[k++] = '\\'; out[k++] = 'n'; }
        else if (b == '\r') { out[k++] = '\\'; out[k++] = 'r'; }
        else if (b == '\t') { out[k++] = '\\'; out[k++] = 't'; }
        else if (b == (unsigned char)quote) { out[k++] = '\\'; out[k++] = (char)b; }
        else if ((b >= 0x20 && b <= 0x7e) || b >= 0x80) out[k++] = (char)b;
        else {
            static const char hex[] = "0123456789abcdef";
            out[k++] = '\\'; out[k++] = 'x';
            out[k++] = hex[b >> 4]; out[k++] = hex[b & 15];
        }
    }
    out[k++] = quote;
    out[k] = '\0';
    if (limit > 0) {
        long count = 0;
        for (size_t i = 0; i < k; i++) {
            if (((unsigned char)out[i] & 0xc0) != 0x80) {
                if (count == limit) { out[i] = '\0'; break; }
                count++;
            }
        }
    }
    return out;
}

RPY_RT RPY_NORETURN void rpy_fatal_with_repr(const char *kind, const char *text,
                                             RPyString *s, long limit) {
    char *r = rpy_repr_bytes(s->items, s->f_length, limit);
    size_t n = strlen(text) + strlen(r) + 1;
    char *msg = malloc(n);
    if (msg == NULL) rpy_fatal(kind, text);
    snprintf(msg, n, "%s%s", text, r);
    rpy_fatal(kind, msg);
}

/* str() of an r_uint, in decimal */
RPY_RT RPyString *rpy_str_from_uint(unsigned long u) {
    char buf[24];
    char *end = buf + sizeof buf, *p = end;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    return rpy_str_from_bytes(p, (size_t)(end - p));
}

/* str() of an int, in decimal */
RPY_RT RPyString *rpy_str_from_int(long x) {
    char buf[24];
    char *end = buf + sizeof buf, *p = end;
    unsigned long u = x < 0 ? 0UL - (unsigned long)x : (unsigned long)x;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (x < 0) *--p = '-';
    return rpy_str_from_bytes(p, (size_t)(end - p));
}

/* The shortest decimal digits that read back as x (x finite and > 0):
 * writes them to digits (NUL-terminated, no trailing zeros) and returns the
 * decimal exponent e of x = d.ddd * 10**e. */
static int rpy_shortest_digits(double x, char *digits) {
    char buf[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, x);
        /* buf is "d.ddde[+-]XX" or "de[+-]XX" */
        int n = 0;
        char *q = buf;
        for (; *q != 'e'; q++)
            if (*q != '.') digits[n++] = *q;
        digits[n] = '\0';
        int e = atoi(q + 1);
        double back = strtod(buf, NULL);
        if (back != x) {
            /* The correctly rounded p digits do not read back; the p-digit
             * neighbour on the other side of x may (the rounding interval of a
             * power of two is wider above than below). */
            if (back < x) {
                int i = n - 1;
                while (i >= 0 && digits[i] == '9') digits[i--] = '0';
                if (i >= 0) digits[i]++;
                else { digits[0] = '1'; e += 1; }
            } else {
                int i = n - 1;
                while (i >= 0 && digits[i] == '0') digits[i--] = '9';
                digits[i]--;
                if (digits[0] == '0') {
                    memset(digits, '9', (size_t)n);
                    e -= 1;
                }
            }
            snprintf(buf, sizeof buf, "%c.%se%d", digits[0], digits + 1, e);
            back = strtod(buf, NULL);
            if (back != x) continue;
        }
        while (n > 1 && digits[n - 1] == '0') digits[--n] = '\0';
        return e;
    }
    /* not reached: 17 digits always read back */
    snprintf(buf, sizeof buf, "%.16e", x);
    rpy_fatal("internal error", "float formatting");
}

/* Formats digits (value d.ddd * 10**e) as Python does into out: 'd.ddde+XX'
 * when e < -4 or e >= exp_from, else fixed notation with at least one digit
 * after the point. */
static void rpy_format_float_digits(char *out, bool neg, const char *digits, int e,
                                    int exp_from) {
    int n = (int)strlen(digits);
    int decpt = e + 1;
    char *o = out;
    if (neg) *o++ = '-';
    if (e < -4 || e >= exp_from) {
        *o++ = digits[0];
        if (n > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)(n - 1));
            o += n - 1;
        }
        sprintf(o, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
        return;
    }
    if (decpt <= 0) {
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -decpt; i++) *o++ = '0';
        memcpy(o, digits, (size_t)n);
        o += n;
    } else if (decpt >= n) {
        memcpy(o, digits, (size_t)n);
        o += n;
        for (int i = 0; i < decpt - n; i++) *o++ = '0';
        *o++ = '.';
        *o++ = '0';
    } else {
        memcpy(o, digits, (size_t)decpt);
        o += decpt;
        *o++ = '.';
        memcpy(o, digits + decpt, (size_t)(n - decpt));
        o += n - decpt;
    }
    *o = '\0';
}

/* str() of a float as Python 3 does: the shortest repr that round-trips */
RPY_RT RPyString *rpy_str_from_float(double x) {
    if (isnan(x)) return rpy_str_from_cstr("nan");
    if (isinf(x)) return rpy_str_from_cstr(x > 0 ? "inf" : "-inf");
    if (x == 0.0) return rpy_str_from_cstr(signbit(x) ? "-0.0" : "0.0");
    char digits[32], out[64];
    int e = rpy_shortest_digits(fabs(x), digits);
    rpy_format_float_digits(out, x < 0, digits, e, 16);
    return rpy_str_from_cstr(out);
}

/* str() of a float as Python 2 does: '%.12g', with '.0' added to integral values.
 * (Exactly: 12 significant digits, exponent notation when the decimal
 * exponent is < -4 or >= 11 -- not 12 as in C's %g -- so that
 * str(123456789012.0) == '1.23456789012e+11'.) */
RPY_RT RPyString *rpy_str_from_float_py2(double x) {
    if (isnan(x)) return rpy_str_from_cstr("nan");
    if (isinf(x)) return rpy_str_from_cstr(x > 0 ? "inf" : "-inf");
    char buf[40], digits[32], out[64];
    snprintf(buf, sizeof buf, "%.11e", fabs(x));
    int n = 0;
    char *q = buf;
    for (; *q != 'e'; q++)
        if (*q != '.') digits[n++] = *q;
    while (n > 1 && digits[n - 1] == '0') n--;
    digits[n] = '\0';
    rpy_format_float_digits(out, signbit(x) != 0, digits, atoi(q + 1), 11);
    return rpy_str_from_cstr(out);
}

/* One '%' conversion of a format, as its text ('%-08.3f') gives it. */
typedef struct {
    int left, zero, plus, space, alt;
    long width, precision; /* precision -1: none */
    char conv;
} RPyFormatSpec;

static RPyFormatSpec rpy_parse_spec(RPyString *spec) {
    RPyFormatSpec f = {0, 0, 0, 0, 0, 0, -1, 's'};
    long i = 1, n = spec->f_length;
    const unsigned char *c = (const unsigned char *)spec->items;
    for (; i < n; i++) {
        if (c[i] == '-') f.left = 1;
        else if (c[i] == '0') f.zero = 1;
        else if (c[i] == '+') f.plus = 1;
        else if (c[i] == ' ') f.space = 1;
        else if (c[i] == '#') f.alt = 1;
        else break;
    }
    for (; i < n && c[i] >= '0' && c[i] <= '9'; i++) f.width = f.width * 10 + (c[i] - '0');
    if (i < n && c[i] == '.') {
        f.precision = 0;
        for (i++; i < n && c[i] >= '0' && c[i] <= '9'; i++)
            f.precision = f.precision * 10 + (c[i] - '0');
    }
    if (i < n) f.conv = (char)c[i];
    return f;
}

/* `body` (with its sign, if any) padded to the spec's width, as Python pads:
 * '-' on the right, '0' with zeros after the sign (numbers only). */
static RPyString *rpy_pad(const RPyFormatSpec *f, const char *body, long len) {
    if (len >= f->width) return rpy_str_from_bytes(body, (size_t)len);
    long fill = f->width - len;
    RPyString *r = rpy_str_alloc(f->width);
    char *o = r->items;
    int zero = f->zero && !f->left && f->conv != 's' && f->conv != 'r' && f->conv != 'c';
    if (f->left) {
        memcpy(o, body, (size_t)len);
        memset(o + len, ' ', (size_t)fill);
    } else if (zero) {
        long sign = (len > 0 && (body[0] == '-' || body[0] == '+' || body[0] == ' ')) ? 1 : 0;
        memcpy(o, body, (size_t)sign);
        memset(o + sign, '0', (size_t)fill);
        memcpy(o + sign + fill, body + sign, (size_t)(len - sign));
    } else {
        memset(o, ' ', (size_t)fill);
        memcpy(o + fill, body, (size_t)len);
    }
    return r;
}

static const char *rpy_sign(const RPyFormatSpec *f, int negative) {
    return negative ? "-" : f->plus ? "+" : f->space ? " " : "";
}

/* an integer conversion of the magnitude `mag` with its sign; `py2`: the
 * alternate octal form is Python 2's (and C's): a leading '0' unless the
 * digits already start with one */
static RPyString *rpy_format_magnitude(RPyString *spec, unsigned long mag, int negative, int py2) {
    RPyFormatSpec f = rpy_parse_spec(spec);
    char digits[32], body[128];
    const char *how = f.conv == 'x' ? "%lx" : f.conv == 'X' ? "%lX" : f.conv == 'o' ? "%lo" : "%lu";
    int n = snprintf(digits, sizeof digits, how, mag);
    long zeros = f.precision > n ? f.precision - n : 0;
    if (zeros > 64) zeros = 64;
    const char *octal = !py2 ? "0o" : (zeros > 0 || digits[0] == '0') ? "" : "0";
    const char *prefix = !f.alt ? "" : f.conv == 'x' ? "0x" : f.conv == 'X' ? "0X" : f.conv == 'o' ? octal : "";
    int k = snprintf(body, sizeof body, "%s%s%.*s%s", rpy_sign(&f, negative), prefix, (int)zeros,
                     "0000000000000000000000000000000000000000000000000000000000000000", digits);
    return rpy_pad(&f, body, k);
}

/* one '%' conversion (d i u x X o, with flags, width and precision) of an int */
RPY_RT RPyString *rpy_format_int(long x, RPyString *spec) {
    return rpy_format_magnitude(spec, x < 0 ? 0UL - (unsigned long)x : (unsigned long)x, x < 0, 0);
}

/* rpy_format_int as Python 2 formats ('%#o' starts with '0') */
RPY_RT RPyString *rpy_format_int_py2(long x, RPyString *spec) {
    return rpy_format_magnitude(spec, x < 0 ? 0UL - (unsigned long)x : (unsigned long)x, x < 0, 1);
}

/* one '%' conversion (d i u x X o, with flags, width and precision) of an r_uint */
RPY_RT RPyString *rpy_format_uint(unsigned long x, RPyString *spec) {
    return rpy_format_magnitude(spec, x, 0, 0);
}

/* rpy_format_uint as Python 2 formats ('%#o' starts with '0') */
RPY_RT RPyString *rpy_format_uint_py2(unsigned long x, RPyString *spec) {
    return rpy_format_magnitude(spec, x, 0, 1);
}

/* hex() and oct() of an int: a sign, a prefix, the digits in base 16 or 8 */
static RPyString *rpy_int_in_base(long x, const char *prefix, const char *how) {
    unsigned long mag = x < 0 ? 0UL - (unsigned long)x : (unsigned long)x;
    char body[40];
    int k = snprintf(body, sizeof body, how, x < 0 ? "-" : "", prefix, mag);
    return rpy_str_from_bytes(body, (size_t)k);
}

/* hex() of an int: '0x' and its hexadecimal digits, after a '-' when negative */
RPY_RT RPyString *rpy_int_hex(long x) { return rpy_int_in_base(x, "0x", "%s%s%lx"); }

/* oct() of an int as Python 3 writes it: '0o' and its octal digits */
RPY_RT RPyString *rpy_int_oct(long x) { return rpy_int_in_base(x, "0o", "%s%s%lo"); }

/* oct() of an int as Python 2 writes it: '0' and its octal digits, '0' for zero */
RPY_RT RPyString *rpy_int_oct_py2(long x) {
    return x == 0 ? rpy_str_from_bytes("0", 1) : rpy_int_in_base(x, "0", "%s%s%lo");
}

/* one '%' conversion (e E f F g G, with flags, width and precision) of a float */
RPY_RT RPyString *rpy_format_float(double x, RPyString *spec) {
    RPyFormatSpec f = rpy_parse_spec(spec);
    long p = f.precision < 0 ? 6 : f.precision;
    if (p > 300) p = 300;
    char fmt[8], digits[420], body[440];
    int upper = f.conv >= 'A' && f.conv <= 'Z';
    if (isnan(x)) snprintf(digits, sizeof digits, "%s", upper ? "NAN" : "nan");
    else if (isinf(x)) snprintf(digits, sizeof digits, "%s", upper ? "INF" : "inf");
    else {
        snprintf(fmt, sizeof fmt, "%%.*%c", f.conv);
        snprintf(digits, sizeof digits, fmt, (int)p, fabs(x));
    }
    int k = snprintf(body, sizeof body, "%s%s", rpy_sign(&f, signbit(x) != 0 && !isnan(x)), digits);
    return rpy_pad(&f, body, k);
}

/* a string padded and cut as a '%s' conversion's width and precision say */
RPY_RT RPyString *rpy_format_str(RPyString *s, RPyString *spec) {
    RPyFormatSpec f = rpy_parse_spec(spec);
    long len = s->f_length;
    if (f.precision >= 0 && f.precision < len) len = f.precision;
    return rpy_pad(&f, s->items, len);
}

static RPyString rpy_str_True = {RPY_PREBUILT_HDR_TID(RPY_TID_STRING), 0, 4, "True"};
static RPyString rpy_str_False = {RPY_PREBUILT_HDR_TID(RPY_TID_STRING), 0, 5, "False"};

/* 'True' or 'False' */
RPY_RT RPyString *rpy_str_from_bool(bool b) { return b ? &rpy_str_True : &rpy_str_False; }

static bool rpy_is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Strips Python whitespace: sets *start and *end around the rest. */
static void rpy_strip(RPyString *s, long *start, long *end) {
    long i = 0, j = s->f_length;
    while (i < j && rpy_is_space(s->items[i])) i++;
    while (j > i && rpy_is_space(s->items[j - 1])) j--;
    *start = i;
    *end = j;
}

/* The end of Python's digitpart (digits with single '_' between them) that
 * starts at i, or i itself when there is no digit at i. */
static long rpy_digitpart(const unsigned char *p, long i, long end) {
    if (i >= end || p[i] < '0' || p[i] > '9') return i;
    i++;
    while (i < end) {
        if (p[i] >= '0' && p[i] <= '9') i++;
        else if (p[i] == '_' && i + 1 < end && p[i + 1] >= '0' && p[i + 1] <= '9') i += 2;
        else break;
    }
    return i;
}

/* int() of a string: optional whitespace and sign, decimal digits; anything
 * else (or a value outside a machine word) is a fatal ValueError */
RPY_RT long rpy_str_to_int(RPyString *s) {
    long i, end;
    rpy_strip(s, &i, &end);
    const unsigned char *p = s->items;
    bool neg = false;
    if (i < end && (p[i] == '-' || p[i] == '+')) {
        neg = p[i] == '-';
        i++;
    }
    long stop = rpy_digitpart(p, i, end);
    if (stop == i || stop != end) goto fail;
    unsigned long m = 0;
    for (; i < end; i++) {
        if (p[i] == '_') continue;
        unsigned long d = (unsigned long)(p[i] - '0');
        if (m > (ULONG_MAX - d) / 10) goto fail;
        m = m * 10 + d;
    }
    if (neg) {
        if (m > (unsigned long)LONG_MAX + 1) goto fail;
        return (long)(0UL - m);
    }
    if (m > (unsigned long)LONG_MAX) goto fail;
    return (long)m;
fail:
    rpy_fatal_with_repr("ValueError", "invalid literal for int() with base 10: ", s, 200);
}

/* float() of a string; a malformed one is a fatal ValueError */
RPY_RT double rpy_str_to_float(RPyString *s) {
    long i, end;
    rpy_strip(s, &i, &end);
    const unsigned char *p = s->items;
    long body = i;
    bool neg = false;
    if (body < end && (p[body] == '-' || p[body] == '+')) {
        neg = p[body] == '-';
        body++;
    }
    long blen = end - body;
    if (blen == 3 || blen == 8) {
        char low[9];
        for (long k = 0; k < blen; k++) {
            unsigned char c = p[body + k];
            low[k] = (char)((c >= 'A' && c <= 'Z') ? c + 32 : c);
        }
        low[blen] = '\0';
        if (strcmp(low, "inf") == 0 || strcmp(low, "infinity") == 0)
            return neg ? -HUGE_VAL : HUGE_VAL;
        if (strcmp(low, "nan") == 0) return neg ? -NAN : NAN;
    }
    long k = body;
    long after_int = rpy_digitpart(p, k, end);
    bool any = after_int != k;
    k = after_int;
    if (k < end && p[k] == '.') {
        k++;
        long after_frac = rpy_digitpart(p, k, end);
        any = any || after_frac != k;
        k = after_frac;
    }
    if (!any) goto fail;
    if (k < end && (p[k] == 'e' || p[k] == 'E')) {
        k++;
        if (k < end && (p[k] == '+' || p[k] == '-')) k++;
        long after_exp = rpy_digitpart(p, k, end);
        if (after_exp == k) goto fail;
        k = after_exp;
    }
    if (k != end) goto fail;
    {
        char small[64];
        char *c = (end - i < (long)sizeof small) ? small : malloc((size_t)(end - i) + 1);
        if (c == NULL) rpy_fatal("MemoryError", NULL);
        long n = 0;
        for (long j = i; j < end; j++)
            if (p[j] != '_') c[n++] = (char)p[j];
        c[n] = '\0';
        double d = strtod(c, NULL);
        if (c != small) free(c);
        return d;
    }
fail:
    rpy_fatal_with_repr("ValueError", "could not convert string to float: ", s, 0);
}

/* writes the string's bytes to standard output */
RPY_RT void rpy_print_str(RPyString *s) {
    if (s == NULL) {
        rpy_write_stdout("None", 4);
        return;
    }
    rpy_write_stdout((const char *)s->items, (size_t)s->f_length);
}

/* writes a Python 3 program's string to standard output as CPython 3 does
   on a UTF-8 terminal: each char (a code below 256) in UTF-8 */
RPY_RT void rpy_print_str_utf8(RPyString *s) {
    if (s == NULL) {
        rpy_write_stdout("None", 4);
        return;
    }
    char buf[512];
    long n = 0;
    for (long i = 0; i < s->f_length; i++) {
        unsigned char c = (unsigned char)s->items[i];
        if (c < 0x80) {
            buf[n++] = (char)c;
        } else {
            buf[n++] = (char)(0xc0 | (c >> 6));
            buf[n++] = (char)(0x80 | (c & 0x3f));
        }
        if (n >= (long)sizeof buf - 2) {
            rpy_write_stdout(buf, (size_t)n);
            n = 0;
        }
    }
    if (n > 0) rpy_write_stdout(buf, (size_t)n);
}

/* writes a Python 3 program's char in UTF-8 (one or two bytes) */
RPY_RT void rpy_print_char_utf8(unsigned char c) {
    if (c < 0x80) {
        rpy_write_stdout((const char *)&c, 1);
    } else {
        char two[2] = {(char)(0xc0 | (c >> 6)), (char)(0x80 | (c & 0x3f))};
        rpy_write_stdout(two, 2);
    }
}

/* writes one byte to standard output */
RPY_RT void rpy_print_char(unsigned char c) {
    rpy_write_stdout((const char *)&c, 1);
}

/* x ** y for y >= 0, wrapping */
RPY_RT long rpy_int_pow(long x, long y) {
    if (RPY_UNLIKELY(y < 0))
        rpy_fatal("ValueError", "integer power with a negative exponent");
    unsigned long result = 1, base = (unsigned long)x;
    unsigned long e = (unsigned long)y;
    while (e != 0) {
        if (e & 1) result *= base;
        base *= base;
        e >>= 1;
    }
    return (long)result;
}

/* highest_bit(n) of a power of two: the index of its one set bit */
RPY_RT long rpy_int_highest_bit(long n) {
    return n == 0 ? -1 : (long)__builtin_ctzl((unsigned long)n);
}

/* compute_identity_hash(x) of an instance: 24 bits of the object's GC
 * header above the collector's flags, given from a counter the first time
 * they are asked for (never 0), so that the hash stays the same when a
 * minor collection moves the object (the copy keeps its header). The
 * multiplier is odd, so 2**24 requests give 2**24 different hashes. */
#define RPY_GC_HASH_SHIFT 40
#define RPY_GC_HASH_MASK 0xffffffUL
static unsigned long rpy_gc_hash_counter;
RPY_RT long rpy_gc_identityhash(void *obj) {
    unsigned long counter = rpy_gc_hash_counter;
    if (obj == NULL) return 0;
    /* the header word, with or without a collector */
    unsigned long *header = (unsigned long *)obj;
    unsigned long hdr = *header;
    unsigned long h = hdr >> RPY_GC_HASH_SHIFT;
    if (h == 0) {
        do {
            counter++;
            h = (counter * 2654435761UL) & RPY_GC_HASH_MASK;
        } while (h == 0);
        rpy_gc_hash_counter = counter;
        *header = hdr | (h << RPY_GC_HASH_SHIFT);
    }
    return (long)h;
}

/* compute_unique_id(x): the identity hash, which is unique while fewer
 * than 2**24 objects have been given one (the counter's multiples of an
 * odd number are distinct modulo 2**24). Past that an id could repeat, so
 * the program stops rather than give a wrong answer. */
RPY_RT long rpy_gc_unique_id(void *obj) {
    long h = rpy_gc_identityhash(obj);
    if (rpy_gc_hash_counter > RPY_GC_HASH_MASK)
        rpy_fatal("NotImplementedError",
                  "compute_unique_id(): more than 16777215 objects were given "
                  "an identity hash, and rpy's ids are unique only among those");
    return h;
}

/* x ** y as C's pow() */
RPY_RT double rpy_float_pow(double x, double y) { return pow(x, y); }

/* ---- the math module: each function is libm's (the rtyper checks the
 * result for domain and range errors where a handler catches them) ---- */

#define RPY_MATH_1(f) RPY_RT double rpy_math_##f(double x) { return f(x); }
#define RPY_MATH_2(f) RPY_RT double rpy_math_##f(double x, double y) { return f(x, y); }
RPY_MATH_1(acos)
RPY_MATH_1(acosh)
RPY_MATH_1(asin)
RPY_MATH_1(asinh)
RPY_MATH_1(atan)
RPY_MATH_1(atanh)
RPY_MATH_1(ceil)
RPY_MATH_1(cos)
RPY_MATH_1(cosh)
RPY_MATH_1(erf)
RPY_MATH_1(erfc)
RPY_MATH_1(exp)
RPY_MATH_1(expm1)
RPY_MATH_1(fabs)
RPY_MATH_1(floor)
RPY_MATH_1(log)
RPY_MATH_1(log10)
RPY_MATH_1(log1p)
RPY_MATH_1(log2)
RPY_MATH_1(sin)
RPY_MATH_1(sinh)
RPY_MATH_1(sqrt)
RPY_MATH_1(tan)
RPY_MATH_1(tanh)
RPY_MATH_1(trunc)
RPY_MATH_2(atan2)
RPY_MATH_2(copysign)
RPY_MATH_2(fmod)
RPY_MATH_2(hypot)
RPY_MATH_2(pow)

/* math.ldexp(x, e), the exponent clamped to a C int */
RPY_RT double rpy_math_ldexp(double x, long e) {
    if (e > INT_MAX) e = INT_MAX;
    if (e < INT_MIN) e = INT_MIN;
    return ldexp(x, (int)e);
}

/* ---- the time module ------------------------------------------------- */

static double rpy_clock_seconds(clockid_t clock) {
    struct timespec t = {0, 0};
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* time.time(): seconds since the epoch */
RPY_RT double rpy_time_time(void) { return rpy_clock_seconds(CLOCK_REALTIME); }

/* time.clock() (Python 2) and time.process_time(): CPU time */
RPY_RT double rpy_time_clock(void) { return rpy_clock_seconds(CLOCK_PROCESS_CPUTIME_ID); }

/* time.perf_counter() and time.monotonic() */
RPY_RT double rpy_time_monotonic(void) { return rpy_clock_seconds(CLOCK_MONOTONIC); }

/* time.sleep(seconds) */
RPY_RT void rpy_time_sleep(double seconds) {
    if (!(seconds > 0.0) || isinf(seconds)) return;
    struct timespec t;
    t.tv_sec = (time_t)seconds;
    t.tv_nsec = (long)((seconds - (double)t.tv_sec) * 1e9);
    while (nanosleep(&t, &t) < 0 && errno == EINTR) {}
}

/* ---- the os module: -1 (or null) and the errno kept on failure -------- */

static long rpy_os_last_errno;

static long rpy_os_result(long r) {
    if (r < 0) rpy_os_last_errno = errno;
    return r < 0 ? -1 : r;
}

/* A string's bytes with a NUL after them, for the C library; the caller
 * frees it (it is no GC object: it has no header). */
static char *rpy_os_cstr(RPyString *s) {
    char *p = malloc((size_t)s->f_length + 1);
    if (RPY_UNLIKELY(p == NULL)) rpy_fatal("MemoryError", NULL);
    memcpy(p, s->items, (size_t)s->f_length);
    p[s->f_length] = 0;
    return p;
}

/* the errno of the last os call that failed */
RPY_RT long rpy_os_errno(void) { return rpy_os_last_errno; }

/* os.write(fd, s): what print wrote goes out first */
RPY_RT long rpy_os_write(long fd, RPyString *s) {
    rpy_flush_stdout();
    return rpy_os_result((long)write((int)fd, s->items, (size_t)s->f_length));
}

/* os.read(fd, n) */
RPY_RT RPyString *rpy_os_read(long fd, long n) {
    if (n < 0) { rpy_os_last_errno = EINVAL; return NULL; }
    RPyString *s = rpy_str_alloc(n);
    ssize_t got = read((int)fd, s->items, (size_t)n);
    if (got < 0) { rpy_os_last_errno = errno; return NULL; }
    if (got == n) return s;
    return rpy_str_from_bytes((const char *)s->items, (size_t)got);
}

/* os.open(path, flags, mode) */
RPY_RT long rpy_os_open(RPyString *path, long flags, long mode) {
    char *c = rpy_os_cstr(path);
    long r = rpy_os_result((long)open(c, (int)flags, (mode_t)mode));
    free(c);
    return r;
}

/* os.close(fd) */
RPY_RT long rpy_os_close(long fd) { return rpy_os_result((long)close((int)fd)); }

/* os.lseek(fd, offset, whence) */
RPY_RT long rpy_os_lseek(long fd, long offset, long whence) {
    return rpy_os_result((long)lseek((int)fd, (off_t)offset, (int)whence));
}

/* os.unlink(path) */
RPY_RT long rpy_os_unlink(RPyString *path) {
    char *c = rpy_os_cstr(path);
    long r = rpy_os_result((long)unlink(c));
    free(c);
    return r;
}

/* os.strerror(code) */
RPY_RT RPyString *rpy_os_strerror(long code) { return rpy_str_from_cstr(strerror((int)code)); }

/* os.getenv(name), null when unset */
RPY_RT RPyString *rpy_os_getenv(RPyString *name) {
    char *c = rpy_os_cstr(name);
    const char *v = getenv(c);
    free(c);
    return v ? rpy_str_from_cstr(v) : NULL;
}

/* os.getpid() */
RPY_RT long rpy_os_getpid(void) { return (long)getpid(); }

/* os.isatty(fd) */
RPY_RT bool rpy_os_isatty(long fd) { return isatty((int)fd) == 1; }

/* 0: nothing at the path, 1: a file (not a directory), 2: a directory */
RPY_RT long rpy_os_path_kind(RPyString *path) {
    struct stat st;
    char *c = rpy_os_cstr(path);
    int r = stat(c, &st);
    free(c);
    if (r != 0) return 0;
    return S_ISDIR(st.st_mode) ? 2 : 1;
}

/* os.path.join(a, b) as posixpath does it */
RPY_RT RPyString *rpy_os_path_join(RPyString *a, RPyString *b) {
    long la = a->f_length, lb = b->f_length;
    if (lb > 0 && b->items[0] == '/') return b;
    bool slash = la > 0 && a->items[la - 1] != '/';
    RPyString *s = rpy_str_alloc(la + slash + lb);
    memcpy(s->items, a->items, (size_t)la);
    if (slash) s->items[la] = '/';
    memcpy(s->items + la + slash, b->items, (size_t)lb);
    return s;
}

/* os.path.dirname(p) as posixpath does it: up to the last slash, without
   the slashes that end it unless it is all slashes */
RPY_RT RPyString *rpy_os_path_dirname(RPyString *p) {
    long cut = p->f_length;
    while (cut > 0 && p->items[cut - 1] != '/') cut--;
    long end = cut;
    while (end > 0 && p->items[end - 1] == '/') end--;
    if (end == 0) end = cut;
    return rpy_str_from_bytes((const char *)p->items, (size_t)end);
}

/* os.path.basename(p): after the last slash */
RPY_RT RPyString *rpy_os_path_basename(RPyString *p) {
    long cut = p->f_length;
    while (cut > 0 && p->items[cut - 1] != '/') cut--;
    return rpy_str_from_bytes((const char *)p->items + cut, (size_t)(p->f_length - cut));
}

/* ---- the JIT's parameters ---------------------------------------------- */

/* jit.set_param: the JIT's runtime (linked in with --jit) takes the
 * parameter as text; without a JIT there is nothing to tune. */
#ifdef RPY_JIT
void rpy_jit_set_param(const char *name, long name_len, const char *value, long value_len);
#endif

RPY_RT void rpy_jit_set_param_str(RPyString *name, RPyString *value) {
#ifdef RPY_JIT
    rpy_jit_set_param((const char *)name->items, name->f_length, (const char *)value->items,
                      value->f_length);
#else
    (void)name;
    (void)value;
#endif
}

RPY_RT void rpy_jit_set_param_int(RPyString *name, long value) {
#ifdef RPY_JIT
    char text[32];
    int n = snprintf(text, sizeof text, "%ld", value);
    rpy_jit_set_param((const char *)name->items, name->f_length, text, n);
#else
    (void)name;
    (void)value;
#endif
}

/* ---- program start --------------------------------------------------- */

/* The argument list entry_point receives: a list of strings built from argv. */
RPY_RT RPyStrList *rpy_argv_list(int argc, char **argv) {
    RPyStrArray *items = RPY_MALLOC_VARSIZE(RPyStrArray, (long)argc, RPY_TID_STRARRAY);
    for (int i = 0; i < argc; i++) items->items[i] = rpy_str_from_cstr(argv[i]);
    RPyStrList *l = RPY_MALLOC(RPyStrList, RPY_TID_STRLIST);
    l->f_length = argc;
    l->f_items = items;
    return l;
}

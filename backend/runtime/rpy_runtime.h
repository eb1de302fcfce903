/* rpy C runtime, part 1: what the generated type definitions need.
 *
 * The generated C file is laid out as (one file; several units share a
 * header with the first three parts, see RPY_SPLIT below):
 *   rpy_runtime.h   (this file: includes, primitive helpers, allocation API)
 *   struct definitions from the program's type table
 *   typedefs RPyString / RPyStrArray / RPyStrList
 *   rpy_runtime.c   (the runtime functions of llops::RUNTIME_FUNCS)
 *   prebuilt constants, function prototypes, function bodies, main()
 *
 * Low-level types map to C as: Signed -> long, Unsigned -> unsigned long,
 * Float -> double, Bool -> bool, Char -> unsigned char, Ptr(T) -> struct S_T *.
 */
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <math.h>
#include <limits.h>
#include <errno.h>
#include <unistd.h>
#include <fcntl.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/resource.h>

_Static_assert(sizeof(long) == 8, "rpy needs a 64-bit long");
_Static_assert(sizeof(void *) == 8, "rpy needs 64-bit pointers");
_Static_assert(sizeof(double) == 8, "rpy needs an IEEE double");
_Static_assert(sizeof(bool) == 1, "rpy needs a one-byte bool");

/* One C file (RPY_SPLIT undefined): everything is static. Several
 * translation units compiled apart and linked (RPY_SPLIT, as `rpy translate`
 * compiles a program): the runtime's functions and shared state, the
 * program's functions and its static data are defined in one unit each and
 * declared in the common header, with hidden visibility (not exported from
 * the executable); RPY_SHARED declares the state the runtime and the
 * program share, defined in rpy_runtime.c. */
#define RPY_HIDDEN __attribute__((visibility("hidden")))
#ifdef RPY_SPLIT
#define RPY_RT RPY_HIDDEN __attribute__((unused))
#define RPY_SHARED extern RPY_HIDDEN
#else
#define RPY_RT static __attribute__((unused))
#define RPY_SHARED static
#endif
#define RPY_INLINE static inline __attribute__((unused))
#define RPY_NORETURN __attribute__((noreturn))
#define RPY_LIKELY(x) __builtin_expect(!!(x), 1)
#define RPY_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* A low-level helper's wrapper for the blocks that only lead to a raise
 * (backend/src/cold.rs): the helper is inlined there, once, and not into
 * them, where it would cost the calling function's fast path registers. */
#define RPY_COLD_WRAPPER __attribute__((noinline, cold, unused))

/* ---- fatal errors ---------------------------------------------------- */

/* Flushes standard output, writes "fatal RPython error: <kind>: <msg>"
 * (or "...: <kind>" when msg is NULL) to standard error, exits with status 1. */
RPY_RT RPY_NORETURN void rpy_fatal(const char *kind, const char *msg);
RPY_RT RPY_NORETURN void rpy_fatal_no_exit(const char *graph, long value);

/* ---- the exception state of a program after exceptiontransform ------ */

/* The pending exception's class (a vtable) and instance, both NULL when
 * none is pending: exc_set writes them, exc_clear resets them, a caller
 * tests rpy_exc_type after each call that can raise. */
RPY_SHARED void *rpy_exc_type __attribute__((unused));
RPY_SHARED void *rpy_exc_value __attribute__((unused));

/* ---- stack depth ------------------------------------------------------ */

/* The top of the stack (set by main) and how many bytes below it the program
 * may use; recursive functions check it on entry, so unbounded recursion is
 * a fatal RecursionError rather than a crash. */
RPY_SHARED uintptr_t rpy_stack_top;
#ifdef RPY_SPLIT
RPY_SHARED intptr_t rpy_stack_max;
#else
static intptr_t rpy_stack_max = INTPTR_MAX;
#endif
/* The lowest address the stack may reach (top - max, set with them; 0, no
 * check, until then): a check is one load and one compare, which recursive
 * code like fib pays on every call. */
RPY_SHARED uintptr_t rpy_stack_limit;
RPY_RT RPY_NORETURN void rpy_stack_overflow(void);

/* The address of a fresh local is the stack position (cheaper for the C
 * compiler than reading the stack pointer with asm). A function inlined into
 * main() may have its probe above the top, which is above the limit too. */
#define RPY_STACK_CHECK()                                                     \
    do {                                                                      \
        char rpy_probe_;                                                      \
        if (RPY_UNLIKELY((uintptr_t)&rpy_probe_ < rpy_stack_limit))           \
            rpy_stack_overflow();                                             \
    } while (0)

/* ---- allocation: every GC object comes from here --------------------- */

/* An object's first word is its GC header: the low 32 bits are its type id
 * (an index into the type table GenC emits, `rpy_gc_types`), the high bits
 * the collector's flags. Without a collector (RPY_GC_GENERATIONAL not
 * defined, `--gc=none`) the header is written but never read. */
#define RPY_GC_TID(hdr) ((unsigned long)(hdr) & 0xffffffffUL)
/* An old object (outside the nursery) that is not in the remembered set:
 * storing a GC pointer into it must go through the write barrier. */
#define RPY_GCFLAG_TRACK_YOUNG (1UL << 32)
/* A static of the executable: never moved, never freed. */
#define RPY_GCFLAG_PREBUILT (1UL << 33)
/* Reached by the current major collection's marking. */
#define RPY_GCFLAG_MARKED (1UL << 34)
/* A nursery object copied out by the current minor collection: its second
 * word is the copy's address. */
#define RPY_GCFLAG_FORWARDED (1UL << 35)
/* A static that was written to since the program started, listed among
 * the major collection's roots (it may point to heap objects). */
#define RPY_GCFLAG_PREBUILT_LISTED (1UL << 36)
/* An old array of GC pointers with a card table: one byte per 128 items,
 * stored before its header (the byte of item i at -1 - (i >> 7)). A store
 * of a young pointer marks the item's card, and a minor collection scans
 * only the marked cards instead of the whole array. */
#define RPY_GCFLAG_HAS_CARDS (1UL << 37)
/* A card-marked array with some card marked: it is in the remembered set. */
#define RPY_GCFLAG_CARDS_SET (1UL << 38)
#define RPY_GC_CARD_SHIFT 7

/* The header of the executable's statics of type id `tid`: old objects
 * from the start, so their first store of a GC pointer is remembered. */
#define RPY_PREBUILT_HDR_TID(tid) ((long)(RPY_GCFLAG_PREBUILT | RPY_GCFLAG_TRACK_YOUNG | (tid)))

/* What the collector knows of a type (emitted by GenC from ir's layouts):
 * its size, its items, and where its GC pointers are. */
typedef struct {
    long fixed_size;
    /* items: their size (0 for none), the offset of item 0, the offset of
     * the length word, and whether each item is a GC pointer */
    long item_size, items_offset, length_offset;
    long items_are_gc_pointers;
    /* the offsets of the fixed part's GC pointers, `n_pointers` of them */
    long n_pointers;
    const long *pointer_offsets;
    /* the class's __del__, called once after the object is found dead
     * (NULL for none) */
    void (*destructor)(void *obj);
} RPyGcType;

/* Allocation for the JIT's machine code (rpy_runtime.c). */
RPY_RT void *rpy_gc_malloc_holding_callbacks(size_t size, unsigned long tid);
RPY_RT void *rpy_gc_malloc_varsize_holding_callbacks(size_t fixed, size_t items,
                                                     size_t item_size, long n, size_t length,
                                                     unsigned long tid);

/* Reports and drops the exception a function the collector called let
 * out (GenC emits it: it reads the exception's class). */
RPY_RT void rpy_gc_callback_failed(const char *where);

/* The program's GC hooks (`get_gchooks()`), set by main() when it has
 * them: called after each minor collection, and after each major one
 * (one step, then the collection's end). */
RPY_SHARED void (*rpy_gc_hook_minor)(long duration, long total_memory_used, long pinned_objects)
    __attribute__((unused));
RPY_SHARED void (*rpy_gc_hook_collect_step)(long duration, long oldstate, long newstate)
    __attribute__((unused));
RPY_SHARED void (*rpy_gc_hook_collect)(long num_major_collects, long arenas_count_before,
                                       long arenas_count_after, long arenas_bytes,
                                       long rawmalloc_bytes_before, long rawmalloc_bytes_after,
                                       long pinned_objects) __attribute__((unused));

/* The nursery: objects are bumped from `rpy_nursery_free` up to
 * `rpy_nursery_top`, and the slow path collects when it is full. */
RPY_SHARED char *rpy_nursery_free __attribute__((unused));
RPY_SHARED char *rpy_nursery_top __attribute__((unused));

/* The shadow stack: each graph that keeps GC pointers across a collection
 * reserves a frame of slots here on entry (and zeroes it, so the collector
 * never sees a slot left over from a dead frame); the collector scans
 * rpy_gc_root_base..rpy_gc_root_top. */
RPY_SHARED void **rpy_gc_root_base __attribute__((unused));
RPY_SHARED void **rpy_gc_root_top __attribute__((unused));
RPY_SHARED void **rpy_gc_root_end __attribute__((unused));

/* Objects are at least two words (a forwarding address needs the second)
 * and a whole number of words. */
#define RPY_GC_ROUND(size) (((size) < 16 ? 16 : (size) + 7) & ~(size_t)7)

/* The slow paths: a collection, then the object in the nursery or, when
 * large, outside it. */
RPY_RT void *rpy_gc_collect_and_malloc(size_t size, unsigned long tid);
RPY_RT void *rpy_gc_collect_and_malloc_varsize(size_t struct_size, size_t items_offset,
                                               size_t item_size, long n, size_t length_offset,
                                               unsigned long tid);
RPY_RT void rpy_gc_remember(void *obj);
RPY_RT void rpy_gc_remember_item(void *obj, long index);
/* For the JIT: a minor collection (the caller's roots on the shadow
 * stack), whether an object may still move, and an old object kept alive
 * for the rest of the run (a constant of compiled code). */
RPY_RT void rpy_gc_jit_minor_collection(void);
RPY_RT int rpy_gc_jit_may_move(void *p);
RPY_RT void rpy_gc_jit_keep(void *p);
/* An allocation of the runtime's own functions (strings they build, the
 * argument list): never collects, so they need not keep roots; an object
 * that does not fit in the nursery is made old and remembered. */
RPY_RT void *rpy_malloc(size_t size, unsigned long tid);
/* A zeroed varsized object with n items whose length word (at
 * `length_offset`) is set to n; the runtime's allocation, as rpy_malloc. */
RPY_RT void *rpy_malloc_varsize(size_t struct_size, size_t items_offset,
                                size_t item_size, long n, size_t length_offset,
                                unsigned long tid);

#ifdef RPY_GC_GENERATIONAL
/* The allocation of a graph's `malloc`: a pointer bump in the nursery
 * (zeroed in advance); `size` is a compile-time constant. */
RPY_INLINE void *rpy_gc_malloc_fixed(size_t size, unsigned long tid) {
    size = RPY_GC_ROUND(size);
    char *p = rpy_nursery_free;
    if (RPY_UNLIKELY((size_t)(rpy_nursery_top - p) < size))
        return rpy_gc_collect_and_malloc(size, tid);
    rpy_nursery_free = p + size;
    *(unsigned long *)p = tid;
    return p;
}
/* A graph's `malloc_varsize`: the nursery's bump when the object is small
 * enough to fit, the slow path otherwise. */
RPY_INLINE void *rpy_gc_malloc_varsize(size_t struct_size, size_t items_offset,
                                       size_t item_size, long n, size_t length_offset,
                                       unsigned long tid) {
    size_t size = items_offset + (size_t)n * item_size;
    if (size < struct_size) size = struct_size;
    size = RPY_GC_ROUND(size);
    char *p = rpy_nursery_free;
    /* n < 2**20 keeps the size computation from overflowing; longer ones
     * take the slow path, which checks. */
    if (RPY_UNLIKELY((unsigned long)n >= (1UL << 20) ||
                     (size_t)(rpy_nursery_top - p) < size))
        return rpy_gc_collect_and_malloc_varsize(struct_size, items_offset, item_size, n,
                                                 length_offset, tid);
    rpy_nursery_free = p + size;
    *(unsigned long *)p = tid;
    *(long *)(p + length_offset) = n;
    return p;
}
/* Before a GC pointer is stored into `obj`, which may be old. */
#define RPY_GC_WRITE_BARRIER(obj)                                                  \
    do {                                                                           \
        if (RPY_UNLIKELY(*(unsigned long *)(obj) & RPY_GCFLAG_TRACK_YOUNG))        \
            rpy_gc_remember((void *)(obj));                                        \
    } while (0)
/* Before a GC pointer is stored into item `index` of the array `obj`,
 * which may be old: a card-marked array marks only that item's card. */
#define RPY_GC_WRITE_BARRIER_ITEM(obj, index)                                      \
    do {                                                                           \
        if (RPY_UNLIKELY(*(unsigned long *)(obj) & RPY_GCFLAG_TRACK_YOUNG))        \
            rpy_gc_remember_item((void *)(obj), (long)(index));                    \
    } while (0)
#else
#define rpy_gc_malloc_fixed(size, tid) rpy_malloc((size), (tid))
#define rpy_gc_malloc_varsize rpy_malloc_varsize
#define RPY_GC_WRITE_BARRIER(obj) ((void)0)
#define RPY_GC_WRITE_BARRIER_ITEM(obj, index) ((void)0)
#endif

/* Reserves n slots (n > 0) at the shadow stack's top as `rpy_ss`, zeroed. */
#define RPY_GC_FRAME_OPEN(n)                                                 \
    do {                                                                     \
        rpy_ss = rpy_gc_root_top;                                            \
        if (RPY_UNLIKELY(rpy_gc_root_end - rpy_ss < (n))) rpy_stack_overflow(); \
        for (int rpy_i_ = 0; rpy_i_ < (n); rpy_i_++) rpy_ss[rpy_i_] = NULL; \
        rpy_gc_root_top = rpy_ss + (n);                                      \
    } while (0)
/* A shadow-stack frame of n slots, reserved on entry; `rpy_ss` names it. */
#define RPY_GC_FRAME_ENTER(n)                                                \
    void **rpy_ss;                                                           \
    RPY_GC_FRAME_OPEN(n)
#define RPY_GC_FRAME_LEAVE() (rpy_gc_root_top = rpy_ss)
/* A frame reserved only where a block first needs it (RPY_GC_FRAME_NEED),
 * for a function whose first block keeps no pointer across a collection:
 * a call that takes none of those paths reserves nothing. */
#define RPY_GC_FRAME_LAZY() void **rpy_ss = NULL
#define RPY_GC_FRAME_NEED(n)                                                 \
    do {                                                                     \
        if (rpy_ss == NULL) RPY_GC_FRAME_OPEN(n);                            \
    } while (0)
#define RPY_GC_FRAME_LEAVE_LAZY()                                            \
    do {                                                                     \
        if (rpy_ss != NULL) rpy_gc_root_top = rpy_ss;                        \
    } while (0)

#define RPY_MALLOC(T, tid) ((T *)rpy_malloc(sizeof(T), (tid)))
#define RPY_MALLOC_VARSIZE(T, n, tid)                                    \
    ((T *)rpy_malloc_varsize(sizeof(T), offsetof(T, items),              \
                             sizeof(((T *)0)->items[0]), (n),            \
                             offsetof(T, f_length), (tid)))

/* ---- integer operations (wrapping, two's complement) ----------------- */

#define RPY_INT_ADD(x, y) ((long)((unsigned long)(x) + (unsigned long)(y)))
#define RPY_INT_SUB(x, y) ((long)((unsigned long)(x) - (unsigned long)(y)))
#define RPY_INT_MUL(x, y) ((long)((unsigned long)(x) * (unsigned long)(y)))
#define RPY_INT_NEG(x) ((long)(0UL - (unsigned long)(x)))
#define RPY_INT_LSHIFT(x, y) ((long)((unsigned long)(x) << (y)))
#define RPY_INT_RSHIFT(x, y) ((long)(x) >> (y))

RPY_INLINE long rpy_int_abs(long x) { return x < 0 ? RPY_INT_NEG(x) : x; }

/* C division, truncating; MIN / -1 wraps to MIN; zero is a fatal error. */
RPY_INLINE long rpy_int_floordiv(long x, long y) {
    if (RPY_UNLIKELY(y == 0)) rpy_fatal("ZeroDivisionError", "integer division or modulo by zero");
    if (RPY_UNLIKELY(y == -1)) return RPY_INT_NEG(x);
    return x / y;
}
RPY_INLINE long rpy_int_mod(long x, long y) {
    if (RPY_UNLIKELY(y == 0)) rpy_fatal("ZeroDivisionError", "integer division or modulo by zero");
    if (RPY_UNLIKELY(y == -1)) return 0;
    return x % y;
}
/* Python's floor division and modulo (the remainder has the divisor's sign). */
RPY_INLINE long rpy_int_py_div(long x, long y) {
    if (RPY_UNLIKELY(y == 0)) rpy_fatal("ZeroDivisionError", "integer division or modulo by zero");
    if (RPY_UNLIKELY(y == -1)) return RPY_INT_NEG(x);
    long q = x / y;
    long r = x % y;
    if (r != 0 && ((r ^ y) < 0)) q -= 1;
    return q;
}
RPY_INLINE long rpy_int_py_mod(long x, long y) {
    if (RPY_UNLIKELY(y == 0)) rpy_fatal("ZeroDivisionError", "integer division or modulo by zero");
    if (RPY_UNLIKELY(y == -1)) return 0;
    long r = x % y;
    if (r != 0 && ((r ^ y) < 0)) r += y;
    return r;
}

/* ---- float operations ------------------------------------------------ */

/* Python's float //: derived from the same fmod as %, so that x == q*y + r
 * holds as closely as floats allow (1.0 // 0.1 is 9.0, not floor(10.0)). */
RPY_INLINE double rpy_float_py_div(double x, double y) {
    double m = fmod(x, y);
    double q = (x - m) / y;
    if (m != 0.0 && (y < 0) != (m < 0)) q -= 1.0;
    if (q == 0.0) return copysign(0.0, x / y);
    double f = floor(q);
    return (q - f > 0.5) ? f + 1.0 : f;
}
/* Python's float %: fmod, moved to the divisor's sign; a zero result takes
 * the divisor's sign too. */
RPY_INLINE double rpy_float_py_mod(double x, double y) {
    double m = fmod(x, y);
    if (m != 0.0) {
        if ((y < 0) != (m < 0)) m += y;
    } else {
        m = copysign(0.0, y);
    }
    return m;
}

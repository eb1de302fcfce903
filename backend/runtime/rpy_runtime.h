/* rpy C runtime, part 1: what the generated type definitions need.
 *
 * The generated C file is laid out as:
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

#define RPY_RT static __attribute__((unused))
#define RPY_INLINE static inline __attribute__((unused))
#define RPY_NORETURN __attribute__((noreturn))
#define RPY_LIKELY(x) __builtin_expect(!!(x), 1)
#define RPY_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The GC header word of objects built into the executable. */
#define RPY_PREBUILT_HDR 0L

/* ---- fatal errors ---------------------------------------------------- */

/* Flushes standard output, writes "fatal RPython error: <kind>: <msg>"
 * (or "...: <kind>" when msg is NULL) to standard error, exits with status 1. */
RPY_RT RPY_NORETURN void rpy_fatal(const char *kind, const char *msg);
RPY_RT RPY_NORETURN void rpy_fatal_no_exit(const char *graph, long value);

/* ---- the exception state of a program after exceptiontransform ------ */

/* The pending exception's class (a vtable) and instance, both NULL when
 * none is pending: exc_set writes them, exc_clear resets them, a caller
 * tests rpy_exc_type after each call that can raise. */
static void *rpy_exc_type __attribute__((unused));
static void *rpy_exc_value __attribute__((unused));

/* ---- stack depth ------------------------------------------------------ */

/* The top of the stack (set by main) and how many bytes below it the program
 * may use; recursive functions check it on entry, so unbounded recursion is
 * a fatal RecursionError rather than a crash. */
static uintptr_t rpy_stack_top;
static intptr_t rpy_stack_max = INTPTR_MAX;
RPY_RT RPY_NORETURN void rpy_stack_overflow(void);

/* The address of a fresh local is the stack position (cheaper for the C
 * compiler than reading the stack pointer with asm). The difference is
 * signed: a function inlined into main() may have its probe above the top. */
#define RPY_STACK_CHECK()                                                     \
    do {                                                                      \
        char rpy_probe_;                                                      \
        if (RPY_UNLIKELY((intptr_t)(rpy_stack_top - (uintptr_t)&rpy_probe_) > \
                         rpy_stack_max))                                      \
            rpy_stack_overflow();                                             \
    } while (0)

/* ---- allocation: every GC object comes from here --------------------- */

/* A zeroed block of `size` bytes (fatal MemoryError when there is none). */
RPY_RT void *rpy_malloc(size_t size);
/* A zeroed varsized object with n items whose length word (at
 * `length_offset`) is set to n. */
RPY_RT void *rpy_malloc_varsize(size_t struct_size, size_t items_offset,
                                size_t item_size, long n, size_t length_offset);

#define RPY_MALLOC(T) ((T *)rpy_malloc(sizeof(T)))
#define RPY_MALLOC_VARSIZE(T, n)                                         \
    ((T *)rpy_malloc_varsize(sizeof(T), offsetof(T, items),              \
                             sizeof(((T *)0)->items[0]), (n),            \
                             offsetof(T, f_length)))

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

# Fixed-point arithmetic and bit tricks with rlib's integer functions: a
# 16.16 fixed-point Mandelbrot count, a power-of-two bucket table indexed
# with highest_bit, C-style division and remainder (int_c_div, int_c_mod:
# rounding toward zero) against Python's floor division, range checks with
# int_between, clamping with int_force_ge_zero, and 64-bit unsigned hashing
# with r_ulonglong. Each step prints a checksum.
# args: 40
import sys
from rpython.rlib.rarithmetic import (widen, r_int, r_longlong, r_ulonglong,
                                      r_uint, intmask, int_between,
                                      int_force_ge_zero, int_c_div, int_c_mod,
                                      highest_bit)
from rpython.rlib.debug import check_nonneg, have_debug_prints
from rpython.rlib.jit import isconstant, we_are_jitted

FRAC_BITS = 16
ONE = 1 << FRAC_BITS


def to_fixed(x):
    # intmask() of a float truncates toward zero
    return intmask(x * ONE)


def doubled(x):
    # Both branches compute the same: the JIT's traces take the first.
    if we_are_jitted():
        return x << 1
    return x + x


def fixed_mul(a, b):
    return int_c_div(r_longlong(a) * r_longlong(b), ONE)


def mandelbrot(size, limit):
    inside = 0
    total_iterations = 0
    for py in range(size):
        for px in range(size):
            cx = to_fixed(-2.0 + 2.5 * px / size)
            cy = to_fixed(-1.25 + 2.5 * py / size)
            x = 0
            y = 0
            i = 0
            while i < limit:
                xx = fixed_mul(x, x)
                yy = fixed_mul(y, y)
                if xx + yy > 4 * ONE:
                    break
                y = fixed_mul(doubled(x), y) + cy
                x = xx - yy + cx
                i += 1
            total_iterations += i
            if i == limit:
                inside += 1
    return inside, total_iterations


def bucket_of(size):
    # Round up to a power of two, then its bit index names the bucket.
    p = 1
    while p < size:
        p <<= 1
    return highest_bit(p)


def buckets(sizes):
    counts = [0] * 24
    for s in sizes:
        b = bucket_of(check_nonneg(s))
        if int_between(0, b, len(counts)):
            counts[b] += 1
    return counts


def divisions(n):
    c_sum = 0
    py_sum = 0
    differ = 0
    for a in range(-n, n + 1, 3):
        for b in (-7, -3, 2, 5):
            q = int_c_div(a, b)
            r = int_c_mod(a, b)
            if q * b + r != a:
                return -1, -1, -1
            if q != a // b:
                differ += 1
            c_sum += q * 3 + r
            py_sum += (a // b) * 3 + a % b
    return c_sum, py_sum, differ


def clamped_levels(values):
    total = 0
    for v in values:
        total += int_force_ge_zero(v - 50)
    return total


def hash64(words):
    h = r_ulonglong(14695981039346656037)
    for w in words:
        h = (h ^ r_ulonglong(w)) * r_ulonglong(1099511628211)
    return intmask(h >> 16)


def entry_point(argv):
    n = int(argv[1])
    inside, iterations = mandelbrot(n, 60)
    print "mandelbrot %d inside, %d iterations" % (inside, iterations)
    sizes = [widen(3 * i * i + 1) for i in range(n)]
    print "buckets %s" % buckets(sizes)[:14]
    c_sum, py_sum, differ = divisions(n)
    print "divisions c %d python %d differ %d" % (c_sum, py_sum, differ)
    levels = [r_int((i * 37) % 101) for i in range(n * 5)]
    print "clamped %d" % clamped_levels(levels)
    words = [i * 2654435761 for i in range(n)]
    print "hash %d" % hash64(words)
    mask = r_uint(0)
    for i in range(n):
        mask |= r_uint(1) << (i % 64)
    print "mask bits %d" % bucket_of(intmask(mask & r_uint(0xffff)) + 1)
    if have_debug_prints() or isconstant(n):
        print "debug"
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

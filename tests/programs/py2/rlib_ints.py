# rlib's unsigned words and hashes: r_uint arithmetic wraps modulo 2**64 and
# compares unsigned, intmask takes it back to a signed word; hash and
# compute_hash of ints, strings and tuples; min and max of two values and of
# a list.
# args: 7
import sys
from rpython.rlib.rarithmetic import r_uint, intmask
from rpython.rlib.objectmodel import compute_hash


def checksum(data):
    h = r_uint(5381)
    for ch in data:
        h = (h << 5) + h + r_uint(ord(ch))
    return h


def entry_point(argv):
    n = int(argv[1])
    big = r_uint(0) - r_uint(n)
    print big, intmask(big)
    print big > r_uint(n), r_uint(n) > 3, big == r_uint(-n)
    print r_uint(n) * r_uint(3), r_uint(n) // r_uint(2), r_uint(n) % r_uint(4)
    print ~r_uint(n), -r_uint(1), r_uint(n) >> 1, r_uint(1) << 63
    print +r_uint(n), abs(r_uint(n)), not r_uint(n), r_uint(r_uint(n))
    print r_uint(n) & r_uint(3), r_uint(n) | r_uint(8), r_uint(n) ^ r_uint(5)
    print checksum("hello world"), intmask(checksum("abc" * n))
    print float(r_uint(n)), int(r_uint(n)), str(r_uint(n)), "%r" % r_uint(n)
    print hash(n), hash(-1), hash(True), compute_hash(n) == n
    print hash("spam") == compute_hash("sp" + "am"), hash((1, 2)) == hash((1, n - 5))
    print min(n, 3), max(n, 3), min([4, n, 9]), max([4, n, 9]), min(2.5, n)
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

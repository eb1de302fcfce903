# Hashing and pseudo-random numbers on unsigned machine words (r_uint): the
# FNV-1a and djb2 string hashes, a xorshift64* generator, CRC-32 from a
# table computed at import time, a Bloom filter of bit words and an
# open-addressing set that probes by hash, as PyPy's dicts do.
# args: 3000
import sys
from rpython.rlib.rarithmetic import r_uint, intmask

FNV_OFFSET = r_uint(14695981039346656037)
FNV_PRIME = r_uint(1099511628211)
MASK32 = r_uint(0xFFFFFFFF)


def fnv1a(s):
    h = FNV_OFFSET
    for ch in s:
        h ^= r_uint(ord(ch))
        h *= FNV_PRIME
    return h


def djb2(s):
    h = r_uint(5381)
    for ch in s:
        h = (h << 5) + h + ord(ch)
    return h


def make_crc_table():
    table = []
    for n in range(256):
        c = r_uint(n)
        for k in range(8):
            if c & 1:
                c = r_uint(0xEDB88320) ^ (c >> 1)
            else:
                c = c >> 1
        table.append(c)
    return table


CRC_TABLE = make_crc_table()


def crc32(s):
    crc = MASK32
    for ch in s:
        crc = CRC_TABLE[intmask((crc ^ r_uint(ord(ch))) & r_uint(0xFF))] ^ (crc >> 8)
    return crc ^ MASK32


class XorShift(object):
    def __init__(self, seed):
        self.state = r_uint(seed)
        if not self.state:
            self.state = r_uint(88172645463325252)

    def next(self):
        x = self.state
        x ^= x >> 12
        x ^= x << 25
        x ^= x >> 27
        self.state = x
        return x * r_uint(2685821657736338717)

    def below(self, n):
        return intmask(self.next() % r_uint(n))

    def uniform(self):
        return (self.next() >> 11) * (1.0 / 9007199254740992.0)


class BloomFilter(object):
    def __init__(self, nbits, nhashes):
        self.nbits = nbits
        self.nhashes = nhashes
        self.words = [r_uint(0)] * ((nbits + 63) // 64)

    def positions(self, key):
        h1 = fnv1a(key)
        h2 = djb2(key) | r_uint(1)
        result = []
        for i in range(self.nhashes):
            result.append(intmask((h1 + r_uint(i) * h2) % r_uint(self.nbits)))
        return result

    def add(self, key):
        for p in self.positions(key):
            self.words[p // 64] |= r_uint(1) << (p % 64)

    def might_contain(self, key):
        for p in self.positions(key):
            if not (self.words[p // 64] >> (p % 64)) & r_uint(1):
                return False
        return True

    def bits_set(self):
        count = r_uint(0)
        for w in self.words:
            while w != r_uint(0):
                count += r_uint(bool(w & r_uint(1)))
                w >>= 1
        return count


class HashSet(object):
    def __init__(self):
        self.keys = [""] * 8
        self.hashes = [r_uint(0)] * 8
        self.filled = [False] * 8
        self.used = 0
        self.probes = 0

    def slot(self, key, h):
        mask = r_uint(len(self.keys) - 1)
        i = h & mask
        perturb = h
        while True:
            j = intmask(i)
            if not self.filled[j] or (self.hashes[j] == h and self.keys[j] == key):
                return j
            self.probes += 1
            perturb >>= 5
            i = (i * r_uint(5) + perturb + r_uint(1)) & mask

    def add(self, key):
        h = fnv1a(key)
        j = self.slot(key, h)
        if self.filled[j]:
            return False
        self.keys[j] = key
        self.hashes[j] = h
        self.filled[j] = True
        self.used += 1
        if self.used * 3 >= len(self.keys) * 2:
            self.grow()
        return True

    def grow(self):
        old_keys = self.keys
        old_hashes = self.hashes
        old_filled = self.filled
        size = len(old_keys) * 4
        self.keys = [""] * size
        self.hashes = [r_uint(0)] * size
        self.filled = [False] * size
        for i in range(len(old_keys)):
            if old_filled[i]:
                j = self.slot(old_keys[i], old_hashes[i])
                self.keys[j] = old_keys[i]
                self.hashes[j] = old_hashes[i]
                self.filled[j] = True

    def __contains__(self, key):
        return self.filled[self.slot(key, fnv1a(key))]


def word(rng):
    letters = "etaoinshrdlucmfw"
    n = 1 + rng.below(6)
    chars = []
    for i in range(n):
        chars.append(letters[rng.below(len(letters))])
    return "".join(chars)


def entry_point(argv):
    n = int(argv[1])
    for s in ["", "a", "hello world", "The quick brown fox"]:
        print "%s: fnv1a=%d djb2=%d crc32=%d" % (s, fnv1a(s), djb2(s), crc32(s))
    rng = XorShift(n)
    half = r_uint(1) << 63
    low = 0
    high = 0
    small = 0
    parity = r_uint(0)
    same = 0
    previous = r_uint(0)
    total = 0.0
    top_bits = {}
    for i in range(n):
        x = rng.next()
        top_bits[x >> 61] = top_bits.get(x >> 61, 0) + 1
        if x < half:
            low += 1
        if x >= half:
            high += 1
        if x <= (half >> 4):
            small += 1
        if x != previous:
            same += 0
        else:
            same += 1
        previous = x
        parity = parity ^ (x > half)
        total += rng.uniform()
    print low, high, small, same, parity, low + high == n
    print "top-bit buckets:", len(top_bits), top_bits[r_uint(0)] + top_bits[r_uint(7)] > 0
    print "mean of uniform draws in [0.45, 0.55]:", 0.45 < total / n < 0.55
    bloom = BloomFilter(4096, 3)
    seen = HashSet()
    fresh = 0
    for i in range(n // 3):
        w = word(rng)
        bloom.add(w)
        if seen.add(w):
            fresh += 1
    false_positives = 0
    misses = 0
    for i in range(n // 3):
        w = word(rng) + "z"
        if bloom.might_contain(w):
            false_positives += 1
        if w in seen:
            misses += 1
    print "distinct words:", fresh, "set size:", seen.used, "table:", len(seen.keys)
    print "bloom bits set:", bloom.bits_set(), "false positives:", false_positives, misses
    print "probes per word:", seen.probes // max(fresh, 1)
    spread = r_uint(n) * r_uint(1000003)
    print "average:", spread / r_uint(7), spread // r_uint(7), intmask(spread) % 7
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

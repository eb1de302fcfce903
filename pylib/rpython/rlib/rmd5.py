"""MD5 as `rpython.rlib.rmd5` offers it to translated programs:
`RMD5(s)` (also `md5`/`new`) with update, digest, hexdigest and copy,
on the block hash of `blockhash` (little-endian words)."""

import math
from rpython.rlib.rarithmetic import r_uint
from rpython.rlib.blockhash import BlockHash, WORD_MASK, rotate_left

digest_size = digestsize = 16
blocksize = 1

INITIAL_STATE = [r_uint(0x67452301), r_uint(0xefcdab89), r_uint(0x98badcfe),
                 r_uint(0x10325476)]
SHIFTS = [7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4 + \
    [6, 10, 15, 21] * 4
# RFC 1321's table: the integer part of 2**32 * abs(sin(i + 1)).
SINE_TABLE = [r_uint(int(math.floor(abs(math.sin(i + 1)) * 4294967296.0)))
              for i in range(64)]


class RMD5(BlockHash):
    def __init__(self, init_string=""):
        BlockHash.__init__(self, INITIAL_STATE, 16, False, init_string)

    def _empty(self):
        return RMD5()

    def _compress(self):
        """Compresses the block in `words`."""
        x = self.words
        s = self.state
        a = s[0]
        b = s[1]
        c = s[2]
        d = s[3]
        i = 0
        while i < 64:
            if i < 16:
                f = (b & c) | ((~b) & d)
                g = i
            elif i < 32:
                f = (d & b) | ((~d) & c)
                g = (5 * i + 1) % 16
            elif i < 48:
                f = b ^ c ^ d
                g = (3 * i + 5) % 16
            else:
                f = c ^ (b | ((~d) & WORD_MASK))
                g = (7 * i) % 16
            f = (f + a + SINE_TABLE[i] + x[g]) & WORD_MASK
            a = d
            d = c
            c = b
            b = (b + rotate_left(f, SHIFTS[i])) & WORD_MASK
            i += 1
        s[0] = (s[0] + a) & WORD_MASK
        s[1] = (s[1] + b) & WORD_MASK
        s[2] = (s[2] + c) & WORD_MASK
        s[3] = (s[3] + d) & WORD_MASK


md5 = RMD5
new = RMD5

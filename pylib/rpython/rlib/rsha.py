"""SHA-1 as `rpython.rlib.rsha` offers it to translated programs:
`RSHA(s)` (also `sha`/`new`) with update, digest, hexdigest and copy,
on the block hash of `blockhash` (big-endian words)."""

from rpython.rlib.rarithmetic import r_uint
from rpython.rlib.blockhash import BlockHash, WORD_MASK, rotate_left

digest_size = digestsize = 20
blocksize = 1

INITIAL_STATE = [r_uint(0x67452301), r_uint(0xefcdab89), r_uint(0x98badcfe),
                 r_uint(0x10325476), r_uint(0xc3d2e1f0)]
ROUND_CONSTANTS = [r_uint(0x5a827999), r_uint(0x6ed9eba1),
                   r_uint(0x8f1bbcdc), r_uint(0xca62c1d6)]


class RSHA(BlockHash):
    def __init__(self, init_string=""):
        # The block's 16 words, then the rest of the 80-word schedule.
        BlockHash.__init__(self, INITIAL_STATE, 80, True, init_string)

    def _empty(self):
        return RSHA()

    def _compress(self):
        """Compresses the block in the schedule's first 16 words."""
        w = self.words
        t = 16
        while t < 80:
            w[t] = rotate_left(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1)
            t += 1
        s = self.state
        a = s[0]
        b = s[1]
        c = s[2]
        d = s[3]
        e = s[4]
        t = 0
        while t < 80:
            if t < 20:
                f = (b & c) | ((~b) & d)
                k = ROUND_CONSTANTS[0]
            elif t < 40:
                f = b ^ c ^ d
                k = ROUND_CONSTANTS[1]
            elif t < 60:
                f = (b & c) | (b & d) | (c & d)
                k = ROUND_CONSTANTS[2]
            else:
                f = b ^ c ^ d
                k = ROUND_CONSTANTS[3]
            temp = (rotate_left(a, 5) + (f & WORD_MASK) + e + k + w[t]) & WORD_MASK
            e = d
            d = c
            c = rotate_left(b, 30)
            b = a
            a = temp
            t += 1
        s[0] = (s[0] + a) & WORD_MASK
        s[1] = (s[1] + b) & WORD_MASK
        s[2] = (s[2] + c) & WORD_MASK
        s[3] = (s[3] + d) & WORD_MASK
        s[4] = (s[4] + e) & WORD_MASK


sha = RSHA
new = RSHA

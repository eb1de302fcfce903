"""MD5 as `rpython.rlib.rmd5` offers it to translated programs:
`RMD5(s)` (also `md5`/`new`) with update, digest, hexdigest and copy.
Written on r_uint words masked to 32 bits, so that it translates as the
program's own code does and runs unchanged under CPython."""

import math
from rpython.rlib.rarithmetic import r_uint, intmask

WORD_MASK = r_uint(0xffffffff)
BLOCK_SIZE = 64
digest_size = digestsize = 16
blocksize = 1

INITIAL_STATE = [r_uint(0x67452301), r_uint(0xefcdab89), r_uint(0x98badcfe),
                 r_uint(0x10325476)]
SHIFTS = [7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4 + \
    [6, 10, 15, 21] * 4
# RFC 1321's table: the integer part of 2**32 * abs(sin(i + 1)).
SINE_TABLE = [r_uint(int(math.floor(abs(math.sin(i + 1)) * 4294967296.0)))
              for i in range(64)]
HEX_DIGITS = "0123456789abcdef"


def _rotate_left(x, n):
    return ((x << n) | (x >> (32 - n))) & WORD_MASK


def _little_endian_word(block, i):
    return (r_uint(ord(block[i])) | (r_uint(ord(block[i + 1])) << 8) |
            (r_uint(ord(block[i + 2])) << 16) | (r_uint(ord(block[i + 3])) << 24))


def _word_bytes(word):
    return (chr(intmask(word & r_uint(0xff))) +
            chr(intmask((word >> 8) & r_uint(0xff))) +
            chr(intmask((word >> 16) & r_uint(0xff))) +
            chr(intmask((word >> 24) & r_uint(0xff))))


def _hex_word(word):
    """The word's bytes in hex, lowest byte first (MD5's byte order)."""
    digits = []
    shift = 0
    while shift < 32:
        byte = intmask((word >> shift) & r_uint(0xff))
        digits.append(HEX_DIGITS[byte >> 4])
        digits.append(HEX_DIGITS[byte & 15])
        shift += 8
    return "".join(digits)


class RMD5(object):
    def __init__(self, init_string=""):
        self.state = [INITIAL_STATE[0], INITIAL_STATE[1], INITIAL_STATE[2],
                      INITIAL_STATE[3]]
        self.pending = ""
        self.length = 0
        self.words = [r_uint(0)] * 16
        if init_string:
            self.update(init_string)

    def _load_block(self, block, offset):
        x = self.words
        i = 0
        while i < 16:
            x[i] = _little_endian_word(block, offset + 4 * i)
            i += 1

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
            b = (b + _rotate_left(f, SHIFTS[i])) & WORD_MASK
            i += 1
        s[0] = (s[0] + a) & WORD_MASK
        s[1] = (s[1] + b) & WORD_MASK
        s[2] = (s[2] + c) & WORD_MASK
        s[3] = (s[3] + d) & WORD_MASK

    def update(self, data):
        self.length += len(data)
        buf = self.pending + data
        offset = 0
        while offset + BLOCK_SIZE <= len(buf):
            self._load_block(buf, offset)
            self._compress()
            offset += BLOCK_SIZE
        self.pending = buf[offset:]

    def copy(self):
        other = RMD5()
        other.state = [self.state[0], self.state[1], self.state[2],
                       self.state[3]]
        other.pending = self.pending
        other.length = self.length
        return other

    def _final_state(self):
        """The state after the padding and the length, which are put in
        the block as words (not as bytes of a string: rpy's Python 3
        strings keep characters above 0x7f as UTF-8 in the object
        interpreter and in string constants). This object is left ready
        for more updates."""
        final = self.copy()
        x = final.words
        i = 0
        while i < 16:
            x[i] = r_uint(0)
            i += 1
        n = len(self.pending)
        i = 0
        while i < n:
            x[i >> 2] |= r_uint(ord(self.pending[i])) << (8 * (i & 3))
            i += 1
        x[n >> 2] |= r_uint(0x80) << (8 * (n & 3))
        if n >= 56:
            final._compress()
            i = 0
            while i < 16:
                x[i] = r_uint(0)
                i += 1
        bits = r_uint(self.length) << 3
        x[14] = bits & WORD_MASK
        x[15] = bits >> 32
        final._compress()
        return final.state

    def digest(self):
        s = self._final_state()
        return (_word_bytes(s[0]) + _word_bytes(s[1]) + _word_bytes(s[2]) +
                _word_bytes(s[3]))

    def hexdigest(self):
        s = self._final_state()
        return (_hex_word(s[0]) + _hex_word(s[1]) + _hex_word(s[2]) +
                _hex_word(s[3]))


md5 = RMD5
new = RMD5

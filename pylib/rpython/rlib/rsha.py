"""SHA-1 as `rpython.rlib.rsha` offers it to translated programs:
`RSHA(s)` (also `sha`/`new`) with update, digest, hexdigest and copy.
Written on r_uint words masked to 32 bits, so that it translates as the
program's own code does and runs unchanged under CPython."""

from rpython.rlib.rarithmetic import r_uint, intmask

WORD_MASK = r_uint(0xffffffff)
BLOCK_SIZE = 64
digest_size = digestsize = 20
blocksize = 1

INITIAL_STATE = [r_uint(0x67452301), r_uint(0xefcdab89), r_uint(0x98badcfe),
                 r_uint(0x10325476), r_uint(0xc3d2e1f0)]
ROUND_CONSTANTS = [r_uint(0x5a827999), r_uint(0x6ed9eba1),
                   r_uint(0x8f1bbcdc), r_uint(0xca62c1d6)]
HEX_DIGITS = "0123456789abcdef"


def _rotate_left(x, n):
    return ((x << n) | (x >> (32 - n))) & WORD_MASK


def _big_endian_word(block, i):
    return ((r_uint(ord(block[i])) << 24) | (r_uint(ord(block[i + 1])) << 16) |
            (r_uint(ord(block[i + 2])) << 8) | r_uint(ord(block[i + 3])))


def _word_bytes(word):
    return (chr(intmask((word >> 24) & r_uint(0xff))) +
            chr(intmask((word >> 16) & r_uint(0xff))) +
            chr(intmask((word >> 8) & r_uint(0xff))) +
            chr(intmask(word & r_uint(0xff))))


def _hex_word(word):
    digits = []
    shift = 28
    while shift >= 0:
        digits.append(HEX_DIGITS[intmask((word >> shift) & r_uint(15))])
        shift -= 4
    return "".join(digits)


class RSHA(object):
    def __init__(self, init_string=""):
        self.state = [INITIAL_STATE[0], INITIAL_STATE[1], INITIAL_STATE[2],
                      INITIAL_STATE[3], INITIAL_STATE[4]]
        self.pending = ""
        self.length = 0
        self.schedule = [r_uint(0)] * 80
        if init_string:
            self.update(init_string)

    def _load_block(self, block, offset):
        w = self.schedule
        t = 0
        while t < 16:
            w[t] = _big_endian_word(block, offset + 4 * t)
            t += 1

    def _compress(self):
        """Compresses the block in the schedule's first 16 words."""
        w = self.schedule
        t = 16
        while t < 80:
            w[t] = _rotate_left(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1)
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
            temp = (_rotate_left(a, 5) + (f & WORD_MASK) + e + k + w[t]) & WORD_MASK
            e = d
            d = c
            c = _rotate_left(b, 30)
            b = a
            a = temp
            t += 1
        s[0] = (s[0] + a) & WORD_MASK
        s[1] = (s[1] + b) & WORD_MASK
        s[2] = (s[2] + c) & WORD_MASK
        s[3] = (s[3] + d) & WORD_MASK
        s[4] = (s[4] + e) & WORD_MASK

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
        other = RSHA()
        other.state = [self.state[0], self.state[1], self.state[2],
                       self.state[3], self.state[4]]
        other.pending = self.pending
        other.length = self.length
        return other

    def _final_state(self):
        """The state after the padding and the length, which are put in
        the schedule as words (not as bytes of a string: rpy's Python 3
        strings keep characters above 0x7f as UTF-8 in the object
        interpreter and in string constants). This object is left ready
        for more updates."""
        final = self.copy()
        w = final.schedule
        t = 0
        while t < 16:
            w[t] = r_uint(0)
            t += 1
        n = len(self.pending)
        i = 0
        while i < n:
            w[i >> 2] |= r_uint(ord(self.pending[i])) << (24 - 8 * (i & 3))
            i += 1
        w[n >> 2] |= r_uint(0x80) << (24 - 8 * (n & 3))
        if n >= 56:
            final._compress()
            t = 0
            while t < 16:
                w[t] = r_uint(0)
                t += 1
        bits = r_uint(self.length) << 3
        w[14] = bits >> 32
        w[15] = bits & WORD_MASK
        final._compress()
        return final.state

    def digest(self):
        s = self._final_state()
        return (_word_bytes(s[0]) + _word_bytes(s[1]) + _word_bytes(s[2]) +
                _word_bytes(s[3]) + _word_bytes(s[4]))

    def hexdigest(self):
        s = self._final_state()
        return (_hex_word(s[0]) + _hex_word(s[1]) + _hex_word(s[2]) +
                _hex_word(s[3]) + _hex_word(s[4]))


sha = RSHA
new = RSHA

"""What MD5 (`rmd5`) and SHA-1 (`rsha`) share: a Merkle-Damgard hash
that compresses the message in blocks of 64 bytes read as sixteen 32-bit
words, and ends it with the byte 0x80, zeros, and the message's length in
bits as 8 bytes.  The two differ in their initial state, their byte order
(MD5 little-endian, SHA-1 big-endian) and their compression function,
which a subclass gives as `_compress`: it reads the block from
`self.words[:16]` and updates `self.state`.  Strings are bytes (one char
per byte, in both dialects), so the padding is a string like any other.
Written on r_uint words masked to 32 bits, so that it translates as the
program's own code does and runs unchanged under CPython."""

from rpython.rlib.rarithmetic import r_uint, intmask

WORD_MASK = r_uint(0xffffffff)
BLOCK_SIZE = 64
HEX_DIGITS = "0123456789abcdef"


def rotate_left(x, n):
    return ((x << n) | (x >> (32 - n))) & WORD_MASK


def _load_words(words, block, offset, big_endian):
    """Reads `words[:16]` from the 64 bytes of `block` at `offset`."""
    i = 0
    while i < 16:
        j = offset + 4 * i
        b0 = r_uint(ord(block[j]))
        b1 = r_uint(ord(block[j + 1]))
        b2 = r_uint(ord(block[j + 2]))
        b3 = r_uint(ord(block[j + 3]))
        if big_endian:
            words[i] = (b0 << 24) | (b1 << 16) | (b2 << 8) | b3
        else:
            words[i] = b0 | (b1 << 8) | (b2 << 16) | (b3 << 24)
        i += 1


def _bytes_of_word(word, nbytes, big_endian):
    """The low `nbytes` bytes of `word` (an r_uint) in the byte order."""
    out = []
    k = 0
    while k < nbytes:
        if big_endian:
            shift = 8 * (nbytes - 1 - k)
        else:
            shift = 8 * k
        out.append(chr(intmask((word >> shift) & r_uint(0xff))))
        k += 1
    return "".join(out)


def _copy_words(words):
    copy = []
    for w in words:
        copy.append(w)
    return copy


class BlockHash(object):
    def __init__(self, initial_state, nwords, big_endian, init_string):
        self.state = _copy_words(initial_state)
        # The block's words, and room for what `_compress` derives from
        # them (SHA-1's schedule of 80 words).
        self.words = [r_uint(0)] * nwords
        self.big_endian = big_endian
        self.pending = ""
        self.length = 0
        if init_string:
            self.update(init_string)

    def _empty(self):
        """A new hash of this kind, of nothing yet."""
        raise NotImplementedError

    def _compress(self):
        raise NotImplementedError

    def update(self, data):
        self.length += len(data)
        buf = self.pending + data
        offset = 0
        while offset + BLOCK_SIZE <= len(buf):
            _load_words(self.words, buf, offset, self.big_endian)
            self._compress()
            offset += BLOCK_SIZE
        self.pending = buf[offset:]

    def copy(self):
        other = self._empty()
        other.state = _copy_words(self.state)
        other.pending = self.pending
        other.length = self.length
        return other

    def _final_state(self):
        """The state after the padding and the length; this object is
        left ready for more updates."""
        final = self.copy()
        zeros = (BLOCK_SIZE - 9 - len(self.pending)) % BLOCK_SIZE
        bits = r_uint(self.length) << 3
        length = (_bytes_of_word(bits >> 32, 4, self.big_endian),
                  _bytes_of_word(bits & WORD_MASK, 4, self.big_endian))
        if self.big_endian:
            tail = length[0] + length[1]
        else:
            tail = length[1] + length[0]
        final.update("\x80" + "\x00" * zeros + tail)
        return final.state

    def digest(self):
        parts = []
        for word in self._final_state():
            parts.append(_bytes_of_word(word, 4, self.big_endian))
        return "".join(parts)

    def hexdigest(self):
        digits = []
        for c in self.digest():
            digits.append(HEX_DIGITS[ord(c) >> 4])
            digits.append(HEX_DIGITS[ord(c) & 15])
        return "".join(digits)

"""The Mersenne Twister (MT19937) as `rpython.rlib.rrandom.Random` gives
it to translated programs: the same 32-bit words, and the same floats from
`random()` (53 bits from two words), as the original's module and CPython's
`random` module for the same integer seed.  Written on r_uint words so that
it translates as the program's own code does."""

from rpython.rlib.rarithmetic import r_uint, intmask

STATE_WORDS = 624
SHIFT_WORDS = 397
TWIST_XOR = r_uint(0x9908b0df)
HIGH_BIT = r_uint(0x80000000)
LOW_BITS = r_uint(0x7fffffff)
WORD_MASK = r_uint(0xffffffff)
TEMPER_B = r_uint(0x9d2c5680)
TEMPER_C = r_uint(0xefc60000)
SEED_MULTIPLIER = r_uint(1812433253)
ARRAY_SEED = r_uint(19650218)
ARRAY_MIX_1 = r_uint(1664525)
ARRAY_MIX_2 = r_uint(1566083941)


class Random(object):
    def __init__(self, seed=r_uint(0)):
        self.state = [r_uint(0)] * STATE_WORDS
        self.index = STATE_WORDS
        self.init_genrand(seed)

    def init_genrand(self, seed):
        """Seeds the state from one word (Knuth's multiplier)."""
        words = self.state
        words[0] = r_uint(seed) & WORD_MASK
        i = 1
        while i < STATE_WORDS:
            prev = words[i - 1]
            words[i] = (SEED_MULTIPLIER * (prev ^ (prev >> 30)) + r_uint(i)) & WORD_MASK
            i += 1
        self.index = STATE_WORDS

    def init_by_array(self, key):
        """Seeds the state from a list of r_uint words, as CPython seeds
        from a long integer."""
        words = self.state
        self.init_genrand(ARRAY_SEED)
        i = 1
        j = 0
        n = len(key)
        rounds = STATE_WORDS
        if n > rounds:
            rounds = n
        while rounds > 0:
            prev = words[i - 1]
            words[i] = ((words[i] ^ ((prev ^ (prev >> 30)) * ARRAY_MIX_1))
                        + key[j] + r_uint(j)) & WORD_MASK
            i += 1
            j += 1
            if i >= STATE_WORDS:
                words[0] = words[STATE_WORDS - 1]
                i = 1
            if j >= n:
                j = 0
            rounds -= 1
        rounds = STATE_WORDS - 1
        while rounds > 0:
            prev = words[i - 1]
            words[i] = ((words[i] ^ ((prev ^ (prev >> 30)) * ARRAY_MIX_2))
                        - r_uint(i)) & WORD_MASK
            i += 1
            if i >= STATE_WORDS:
                words[0] = words[STATE_WORDS - 1]
                i = 1
            rounds -= 1
        words[0] = HIGH_BIT
        self.index = STATE_WORDS

    def _twist(self):
        """Makes the next 624 words of state."""
        words = self.state
        k = 0
        while k < STATE_WORDS:
            y = (words[k] & HIGH_BIT) | (words[(k + 1) % STATE_WORDS] & LOW_BITS)
            value = words[(k + SHIFT_WORDS) % STATE_WORDS] ^ (y >> 1)
            if y & r_uint(1):
                value = value ^ TWIST_XOR
            words[k] = value
            k += 1
        self.index = 0

    def genrand32(self):
        """The next 32-bit word, as an r_uint."""
        if self.index >= STATE_WORDS:
            self._twist()
        y = self.state[self.index]
        self.index += 1
        y ^= y >> 11
        y ^= (y << 7) & TEMPER_B
        y ^= (y << 15) & TEMPER_C
        y ^= y >> 18
        return y & WORD_MASK

    def random(self):
        """A float in [0.0, 1.0) made of 53 random bits."""
        high = intmask(self.genrand32() >> 5)
        low = intmask(self.genrand32() >> 6)
        return (high * 67108864.0 + low) * (1.0 / 9007199254740992.0)

    def jumpahead(self, n):
        """Changes the state by `n` (Python 2's `random.jumpahead`): a
        permutation of the words chosen by `n`, then an increment."""
        words = self.state
        i = STATE_WORDS - 1
        while i > 1:
            j = n % i
            tmp = words[i]
            words[i] = words[j]
            words[j] = tmp
            i -= 1
        nonzero = False
        i = 1
        while i < STATE_WORDS:
            words[i] = (words[i] + r_uint(i + 1)) & WORD_MASK
            if words[i]:
                nonzero = True
            i += 1
        if nonzero:
            words[0] = (words[0] + r_uint(1)) & WORD_MASK
        else:
            words[0] = HIGH_BIT
        self.index = STATE_WORDS

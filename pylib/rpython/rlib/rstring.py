"""String builders as `rpython.rlib.rstring` offers them to translated
programs: `StringBuilder` and `UnicodeBuilder` collect pieces with
append, append_slice and append_multiple_char, and `build()` joins them
once.  Written as ordinary RPython (a list of pieces and a running
length), so that it translates as the program's own code does and runs
unchanged under CPython."""

INIT_SIZE = 100


class StringBuilder(object):
    def __init__(self, init_size=INIT_SIZE):
        # The size is a hint for the original's preallocation; the pieces
        # list grows as it needs to.
        self._pieces = []
        self._length = 0

    def append(self, s):
        self._pieces.append(s)
        self._length += len(s)

    def append_slice(self, s, start, end):
        assert 0 <= start <= end <= len(s)
        self._pieces.append(s[start:end])
        self._length += end - start

    def append_multiple_char(self, c, times):
        if times > 0:
            self._pieces.append(c * times)
            self._length += times

    def build(self):
        """The string appended so far; the builder may go on growing."""
        result = "".join(self._pieces)
        # One piece from now on, so that building twice costs nothing.
        self._pieces = [result]
        return result

    def getlength(self):
        return self._length


class UnicodeBuilder(object):
    def __init__(self, init_size=INIT_SIZE):
        self._pieces = []
        self._length = 0

    def append(self, s):
        self._pieces.append(s)
        self._length += len(s)

    def append_slice(self, s, start, end):
        assert 0 <= start <= end <= len(s)
        self._pieces.append(s[start:end])
        self._length += end - start

    def append_multiple_char(self, c, times):
        if times > 0:
            self._pieces.append(c * times)
            self._length += times

    def build(self):
        result = u"".join(self._pieces)
        self._pieces = [result]
        return result

    def getlength(self):
        return self._length

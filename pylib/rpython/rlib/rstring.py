"""String builders as `rpython.rlib.rstring` offers them to translated
programs: `StringBuilder` and `UnicodeBuilder` collect pieces with
append, append_slice and append_multiple_char, and `build()` joins them
once.  Written as ordinary RPython (a list of pieces and a running
length), so that it translates as the program's own code does and runs
unchanged under CPython."""

from rpython.rlib.objectmodel import import_from_mixin

INIT_SIZE = 100


class _Builder(object):
    """The methods of both builders.  Each builder imports its own copy
    (import_from_mixin), so that a program may use both without mixing
    their pieces' types; `_EMPTY` is the builder's empty string."""

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
        result = self._EMPTY.join(self._pieces)
        # One piece from now on, so that building twice costs nothing.
        self._pieces = [result]
        return result

    def getlength(self):
        return self._length


class StringBuilder(object):
    import_from_mixin(_Builder)
    _EMPTY = ""


class UnicodeBuilder(object):
    import_from_mixin(_Builder)
    _EMPTY = u""

"""Strings, as the rtyper represents them: rpy_string, a GcStruct
{hash, length, ..Array(Char)} whose chars are inline and whose hash is
computed once and cached in the `hash` field (0: not computed yet).

Each helper is specialized by the low-level types of its arguments.  A
helper that makes a string from none takes the string type STR as its
first argument, one that makes a list of strings the list type LIST.
Bounds of slices and of find/count follow Python: a negative bound counts
from the end, then bounds are clipped to the string.  The character
classes are ASCII's, as RPython's str methods, in Python 2 programs;
Python 3 programs use the `_py3` helpers at the end, which classify each
char as CPython 3 does its code point.
"""

from rpython.rlib import jit
from rpython.rlib.rarithmetic import intmask
from rpython.rtyper.lltypesystem.lltype import malloc, typeOf
from rpython.rtyper.rlist import (
    _ll_bound, _ll_copy, ll_append, ll_items, ll_length, ll_newlist_hint, ll_reverse)


def _ll_new_like(s, length):
    """A new string of `length` chars, of the type of `s`."""
    return malloc(typeOf(s).TO, length)


def ll_str_is_true(s):
    """The truth of a string that may be None: not None and not empty."""
    if not s:
        return False
    return len(s) != 0


def ll_str_is_false(s):
    """`not s` of a string that may be None: None or empty."""
    return not ll_str_is_true(s)


def ll_strlen(s):
    return len(s)


def ll_chr2str(STR, ch):
    """A one-char string."""
    s = malloc(STR, 1)
    s[0] = ch
    return s


def ll_getitem_nonneg(s, index):
    return s[index]


def ll_getitem(s, index):
    """s[index], a negative index counting from the end; unchecked."""
    if index < 0:
        index += len(s)
    return s[index]


def ll_chr_checked(n):
    """chr(n): ValueError when n is not a byte."""
    if n < 0 or n > 255:
        raise ValueError
    return chr(n)


def ll_chr_py3(n):
    """chr(n) in a Python 3 program: ValueError outside range(0x110000), as
    CPython 3 raises it; a code point above 0xff, which rpy's str cannot
    hold, stops the program with a NotImplementedError that says so."""
    if n < 0 or n >= 0x110000:
        raise ValueError
    if n > 255:
        raise NotImplementedError("rpy: chr() of a code point above 0xff,"
                                  " which a Python 3 str of rpy cannot hold")
    return chr(n)


def ll_getitem_checked(s, index):
    """s[index]: IndexError when it names no char."""
    length = len(s)
    if index < 0:
        index += length
    if index < 0 or index >= length:
        raise IndexError
    return s[index]


def ll_strconcat(s1, s2):
    """s1 + s2."""
    len1 = len(s1)
    len2 = len(s2)
    res = _ll_new_like(s1, len1 + len2)
    _ll_copy(s1, 0, res, 0, len1)
    _ll_copy(s2, 0, res, len1, len2)
    return res


def ll_streq(s1, s2):
    """s1 == s2."""
    if s1 is s2:
        return True
    length = len(s1)
    if length != len(s2):
        return False
    i = 0
    while i < length:
        if s1[i] != s2[i]:
            return False
        i += 1
    return True


def ll_streq_slice(s, start, stop, t):
    """s[start:stop] == t, without building the slice (the rtyper fuses a
    slice whose only use is one comparison into this)."""
    length = len(s)
    start = _ll_bound(length, start)
    stop = _ll_bound(length, stop)
    n = stop - start
    if n < 0:
        n = 0
    if n != len(t):
        return False
    i = 0
    while i < n:
        if s[start + i] != t[i]:
            return False
        i += 1
    return True


def ll_strcmp(s1, s2):
    """-1, 0 or 1 as s1 sorts before, equal to or after s2 (bytewise)."""
    len1 = len(s1)
    len2 = len(s2)
    n = len1
    if len2 < n:
        n = len2
    i = 0
    while i < n:
        c1 = ord(s1[i])
        c2 = ord(s2[i])
        if c1 != c2:
            if c1 < c2:
                return -1
            return 1
        i += 1
    if len1 < len2:
        return -1
    if len1 > len2:
        return 1
    return 0


def _ll_hash_chars(s):
    """The original's string hash (CPython 2's, without randomization),
    -1 for the empty string."""
    length = len(s)
    if length == 0:
        return -1
    x = ord(s[0]) << 7
    i = 0
    while i < length:
        x = intmask((1000003 * x) ^ ord(s[i]))
        i += 1
    x ^= length
    return intmask(x)


# Elidable, as in the original: the hash depends only on the characters,
# so repeated calls fold (the `hash` field is a cache).
@jit.elidable
def ll_strhash(s):
    """hash(s), computed once and kept in the string's `hash` field."""
    x = s.hash
    if x == 0:
        x = _ll_hash_chars(s)
        if x == 0:
            x = 29872897
        s.hash = x
    return x


def _ll_start(length, start):
    """The start of a search as Python takes it: negative counts from the
    end (clipped at 0); past the end it finds nothing, not even ''."""
    if start < 0:
        start += length
        if start < 0:
            start = 0
    return start


def ll_stringslice_startstop(s, start, stop):
    """s[start:stop]."""
    length = len(s)
    start = _ll_bound(length, start)
    stop = _ll_bound(length, stop)
    if stop <= start:
        return _ll_new_like(s, 0)
    if start == 0 and stop == length:
        return s
    res = _ll_new_like(s, stop - start)
    _ll_copy(s, start, res, 0, stop - start)
    return res


def ll_stringslice_startonly(s, start):
    """s[start:]."""
    return ll_stringslice_startstop(s, start, len(s))


def ll_stringslice_stoponly(s, stop):
    """s[:stop]."""
    return ll_stringslice_startstop(s, 0, stop)


def _ll_match_at(s, sub, pos):
    """Does `sub` occur in `s` at `pos`?"""
    n = len(sub)
    i = 0
    while i < n:
        if s[pos + i] != sub[i]:
            return False
        i += 1
    return True


def ll_find(s, sub, start, end):
    """s.find(sub, start, end)."""
    length = len(s)
    start = _ll_start(length, start)
    end = _ll_bound(length, end)
    last = end - len(sub)
    pos = start
    if len(sub) == 1:
        # One char (a separator, mostly): compared as is.
        c = sub[0]
        while pos <= last:
            if s[pos] == c:
                return pos
            pos += 1
        return -1
    while pos <= last:
        if _ll_match_at(s, sub, pos):
            return pos
        pos += 1
    return -1


def ll_rfind(s, sub, start, end):
    """s.rfind(sub, start, end)."""
    length = len(s)
    start = _ll_start(length, start)
    end = _ll_bound(length, end)
    if start > length:
        return -1
    pos = end - len(sub)
    while pos >= start:
        if _ll_match_at(s, sub, pos):
            return pos
        pos -= 1
    return -1


def ll_count(s, sub, start, end):
    """s.count(sub, start, end): occurrences that do not overlap."""
    length = len(s)
    start = _ll_start(length, start)
    end = _ll_bound(length, end)
    n = len(sub)
    if start > length or end < start:
        return 0
    if n == 0:
        return end - start + 1
    count = 0
    pos = start
    last = end - n
    while pos <= last:
        if _ll_match_at(s, sub, pos):
            count += 1
            pos += n
        else:
            pos += 1
    return count


def ll_find_char(s, ch, start, end):
    """s.find(ch, start, end) of a char."""
    length = len(s)
    start = _ll_bound(length, start)
    end = _ll_bound(length, end)
    pos = start
    while pos < end:
        if s[pos] == ch:
            return pos
        pos += 1
    return -1


def ll_rfind_char(s, ch, start, end):
    """s.rfind(ch, start, end) of a char."""
    length = len(s)
    start = _ll_bound(length, start)
    end = _ll_bound(length, end)
    pos = end - 1
    while pos >= start:
        if s[pos] == ch:
            return pos
        pos -= 1
    return -1


def ll_count_char(s, ch, start, end):
    """s.count(ch, start, end) of a char."""
    length = len(s)
    start = _ll_bound(length, start)
    end = _ll_bound(length, end)
    count = 0
    pos = start
    while pos < end:
        if s[pos] == ch:
            count += 1
        pos += 1
    return count


def ll_contains(s, sub):
    """sub in s."""
    return ll_find(s, sub, 0, len(s)) >= 0


def ll_contains_char(s, ch):
    """ch in s, of a char."""
    return ll_find_char(s, ch, 0, len(s)) >= 0


def ll_startswith(s, prefix):
    n = len(prefix)
    if n > len(s):
        return False
    return _ll_match_at(s, prefix, 0)


def ll_endswith(s, suffix):
    n = len(suffix)
    if n > len(s):
        return False
    return _ll_match_at(s, suffix, len(s) - n)


def ll_startswith_char(s, ch):
    return len(s) > 0 and s[0] == ch


def ll_endswith_char(s, ch):
    return len(s) > 0 and s[len(s) - 1] == ch


def ll_char_isspace(ch):
    return ch == ' ' or ('\t' <= ch and ch <= '\r')


def ll_char_isdigit(ch):
    return '0' <= ch and ch <= '9'


def ll_char_isupper(ch):
    return 'A' <= ch and ch <= 'Z'


def ll_char_islower(ch):
    return 'a' <= ch and ch <= 'z'


def ll_char_isalpha(ch):
    return ll_char_isupper(ch) or ll_char_islower(ch)


def ll_char_isalnum(ch):
    return ll_char_isalpha(ch) or ll_char_isdigit(ch)


def _ll_in_chars(ch, chars):
    i = 0
    while i < len(chars):
        if chars[i] == ch:
            return True
        i += 1
    return False


def _ll_strip(s, chars, left, right, strippable):
    """`s` without the chars `strippable(ch, chars)` accepts at the ends
    `left` and `right` say."""
    lpos = 0
    rpos = len(s)
    if left:
        while lpos < rpos and strippable(s[lpos], chars):
            lpos += 1
    if right:
        while rpos > lpos and strippable(s[rpos - 1], chars):
            rpos -= 1
    return ll_stringslice_startstop(s, lpos, rpos)


def _ll_space(ch, chars):
    return ll_char_isspace(ch)


def ll_strip(s, left, right):
    """s.strip(), s.lstrip(), s.rstrip() (as `left` and `right` say):
    without ASCII whitespace at those ends."""
    return _ll_strip(s, None, left, right, _ll_space)


def _ll_space_py3(ch, chars):
    return ll_char_isspace_py3(ch)


def ll_strip_py3(s, left, right):
    """The same in Python 3, where more chars are whitespace."""
    return _ll_strip(s, None, left, right, _ll_space_py3)


def ll_strip_chars(s, chars, left, right):
    """s.strip(chars), .lstrip(chars), .rstrip(chars)."""
    return _ll_strip(s, chars, left, right, _ll_in_chars)


def _ll_split_whitespace(LIST, s, maxsplit, isspace):
    """s.split() and s.split(None, maxsplit) (maxsplit < 0: no limit), the
    chars `isspace` accepts separating the words."""
    res = ll_newlist_hint(LIST, 0)
    length = len(s)
    pos = 0
    while True:
        while pos < length and isspace(s[pos]):
            pos += 1
        if pos == length:
            break
        if maxsplit >= 0 and res.length == maxsplit:
            # The rest, as it is (CPython keeps its trailing whitespace).
            ll_append(res, ll_stringslice_startstop(s, pos, length))
            break
        start = pos
        while pos < length and not isspace(s[pos]):
            pos += 1
        ll_append(res, ll_stringslice_startstop(s, start, pos))
    return res


def _ll_rsplit_whitespace(LIST, s, maxsplit, isspace):
    """s.rsplit() and s.rsplit(None, maxsplit)."""
    res = ll_newlist_hint(LIST, 0)
    pos = len(s)
    while True:
        while pos > 0 and isspace(s[pos - 1]):
            pos -= 1
        if pos == 0:
            break
        if maxsplit >= 0 and res.length == maxsplit:
            ll_append(res, ll_stringslice_startstop(s, 0, pos))
            break
        end = pos
        while pos > 0 and not isspace(s[pos - 1]):
            pos -= 1
        ll_append(res, ll_stringslice_startstop(s, pos, end))
    ll_reverse(res)
    return res


def ll_split_whitespace(LIST, s, maxsplit):
    return _ll_split_whitespace(LIST, s, maxsplit, ll_char_isspace)


def ll_rsplit_whitespace(LIST, s, maxsplit):
    return _ll_rsplit_whitespace(LIST, s, maxsplit, ll_char_isspace)


def ll_split_whitespace_py3(LIST, s, maxsplit):
    return _ll_split_whitespace(LIST, s, maxsplit, ll_char_isspace_py3)


def ll_rsplit_whitespace_py3(LIST, s, maxsplit):
    return _ll_rsplit_whitespace(LIST, s, maxsplit, ll_char_isspace_py3)


def ll_split(LIST, s, sep, maxsplit):
    """s.split(sep, maxsplit) of a non-empty separator (maxsplit < 0: no
    limit)."""
    length = len(s)
    n = len(sep)
    if n == 1:
        return _ll_split_char(LIST, s, sep[0], maxsplit)
    # The pieces are counted first, so that the list is allocated once at
    # its size (as the original's ll_split_chr does) instead of growing
    # and copying its items a few dozen times on a long text.
    count = 1
    pos = ll_find(s, sep, 0, length)
    while pos >= 0 and (maxsplit < 0 or count <= maxsplit):
        count += 1
        pos = ll_find(s, sep, pos + n, length)
    res = ll_newlist_hint(LIST, count)
    start = 0
    while maxsplit < 0 or res.length < maxsplit:
        pos = ll_find(s, sep, start, length)
        if pos < 0:
            break
        ll_append(res, ll_stringslice_startstop(s, start, pos))
        start = pos + n
    ll_append(res, ll_stringslice_startstop(s, start, length))
    return res


def _ll_split_char(LIST, s, ch, maxsplit):
    """s.split(ch, maxsplit) of a one-char separator (the usual one): each
    pass is one scan of the chars, where ll_find's search, called once a
    piece, was a tenth of wordcount.py's time. The pieces are counted first
    (at most maxsplit + 1 of them), as ll_split does."""
    length = len(s)
    if maxsplit >= 0 and maxsplit < length:
        count = maxsplit + 1
    else:
        count = 1
        i = 0
        while i < length:
            if s[i] == ch:
                count += 1
            i += 1
    res = ll_newlist_hint(LIST, count)
    start = 0
    i = 0
    while i < length:
        if s[i] == ch:
            if res.length == maxsplit:
                break
            ll_append(res, ll_stringslice_startstop(s, start, i))
            start = i + 1
        i += 1
    ll_append(res, ll_stringslice_startstop(s, start, length))
    return res


def ll_rsplit(LIST, s, sep, maxsplit):
    """s.rsplit(sep, maxsplit) of a non-empty separator."""
    res = ll_newlist_hint(LIST, 0)
    n = len(sep)
    end = len(s)
    while maxsplit < 0 or res.length < maxsplit:
        pos = ll_rfind(s, sep, 0, end)
        if pos < 0:
            break
        ll_append(res, ll_stringslice_startstop(s, pos + n, end))
        end = pos
    ll_append(res, ll_stringslice_startstop(s, 0, end))
    ll_reverse(res)
    return res


def _ll_line_break(ch, py2):
    """Whether `ch` ends a line for splitlines: '\\n' and '\\r' in Python 2's
    str; Python 3's str also breaks at \\v, \\f, \\x1c-\\x1e and \\x85."""
    if ch == '\n' or ch == '\r':
        return True
    if py2:
        return False
    c = ord(ch)
    return c == 0x0b or c == 0x0c or (c >= 0x1c and c <= 0x1e) or c == 0x85


def ll_splitlines(LIST, s, keepends, py2):
    """s.splitlines(keepends): the lines of `s`, '\\r\\n' ending one line;
    with their line ends when `keepends` is true."""
    res = ll_newlist_hint(LIST, 0)
    length = len(s)
    start = 0
    pos = 0
    while pos < length:
        if not _ll_line_break(s[pos], py2):
            pos += 1
            continue
        eol = pos
        if s[pos] == '\r' and pos + 1 < length and s[pos + 1] == '\n':
            pos += 2
        else:
            pos += 1
        if keepends:
            eol = pos
        ll_append(res, ll_stringslice_startstop(s, start, eol))
        start = pos
    if start < length:
        ll_append(res, ll_stringslice_startstop(s, start, length))
    return res


def ll_join(s, l):
    """s.join(l) of a list of strings."""
    num = ll_length(l)
    if num == 0:
        return _ll_new_like(s, 0)
    seplen = len(s)
    total = seplen * (num - 1)
    i = 0
    while i < num:
        total += len(ll_items(l)[i])
        i += 1
    res = _ll_new_like(s, total)
    pos = 0
    i = 0
    while i < num:
        if i > 0:
            _ll_copy(s, 0, res, pos, seplen)
            pos += seplen
        item = ll_items(l)[i]
        _ll_copy(item, 0, res, pos, len(item))
        pos += len(item)
        i += 1
    return res


def ll_char_upper(ch):
    if ll_char_islower(ch):
        return chr(ord(ch) - 32)
    return ch


def ll_char_lower(ch):
    if ll_char_isupper(ch):
        return chr(ord(ch) + 32)
    return ch


def _ll_map_chars(s, f):
    """A new string of `f` of each char of `s`."""
    length = len(s)
    res = _ll_new_like(s, length)
    i = 0
    while i < length:
        res[i] = f(s[i])
        i += 1
    return res


def ll_upper(s):
    return _ll_map_chars(s, ll_char_upper)


def ll_lower(s):
    return _ll_map_chars(s, ll_char_lower)


def ll_replace(s, old, new, maxcount):
    """s.replace(old, new, maxcount) (maxcount < 0: every occurrence);
    an empty `old` matches before each char and at the end."""
    length = len(s)
    oldlen = len(old)
    newlen = len(new)
    count = ll_count(s, old, 0, length)
    if maxcount >= 0 and count > maxcount:
        count = maxcount
    if count == 0:
        return s
    res = _ll_new_like(s, length + count * (newlen - oldlen))
    src = 0
    dst = 0
    done = 0
    while done < count:
        if oldlen == 0:
            pos = src
        else:
            pos = ll_find(s, old, src, length)
        _ll_copy(s, src, res, dst, pos - src)
        dst += pos - src
        _ll_copy(new, 0, res, dst, newlen)
        dst += newlen
        src = pos + oldlen
        if oldlen == 0 and src < length:
            res[dst] = s[src]
            dst += 1
            src += 1
        done += 1
    _ll_copy(s, src, res, dst, length - src)
    return res


def _ll_all_chars(s, pred):
    """Not empty, and `pred` holds of every char (s.isdigit() and the
    other classes)."""
    length = len(s)
    if length == 0:
        return False
    i = 0
    while i < length:
        if not pred(s[i]):
            return False
        i += 1
    return True


def ll_isdigit(s):
    return _ll_all_chars(s, ll_char_isdigit)


def ll_isalpha(s):
    return _ll_all_chars(s, ll_char_isalpha)


def ll_isalnum(s):
    return _ll_all_chars(s, ll_char_isalnum)


def ll_isspace(s):
    return _ll_all_chars(s, ll_char_isspace)


def _ll_cased(s, is_case, is_other_case):
    """Some char of the case `is_case` tells, none of the other one
    (s.isupper(), s.islower())."""
    cased = False
    i = 0
    while i < len(s):
        ch = s[i]
        if is_other_case(ch):
            return False
        if is_case(ch):
            cased = True
        i += 1
    return cased


def ll_isupper(s):
    return _ll_cased(s, ll_char_isupper, ll_char_islower)


def ll_islower(s):
    return _ll_cased(s, ll_char_islower, ll_char_isupper)


def ll_str_mul(s, times):
    """s * times (empty for times <= 0)."""
    if times == 1:
        # Strings are immutable, so s is its own copy (CPython returns it
        # too): `c * n` with n often 1 then allocates only for longer runs.
        return s
    length = len(s)
    if times < 0:
        times = 0
    res = _ll_new_like(s, length * times)
    k = 0
    while k < times:
        _ll_copy(s, 0, res, k * length, length)
        k += 1
    return res


def ll_char_mul(STR, ch, times):
    """ch * times."""
    if times < 0:
        times = 0
    res = malloc(STR, times)
    i = 0
    while i < times:
        res[i] = ch
        i += 1
    return res


def ll_enumerate(LIST, TUPLE, s):
    """enumerate(s): a new list of (index, char)."""
    n = len(s)
    res = ll_newlist_hint(LIST, n)
    i = 0
    while i < n:
        t = malloc(TUPLE)
        t.item0 = i
        t.item1 = s[i]
        ll_append(res, t)
        i += 1
    return res


# Python 3's str methods.  A Python 3 program's str holds chars below
# U+0100, one byte each (the literals' chars, chr(), the UTF-8 decoded
# argv); its methods classify and convert them as CPython 3 does the same
# code points: Latin-1 letters are letters, '\xb2' is a digit, '\xa0' is
# whitespace, and upper() of '\xdf' is 'SS'.  Two chars upper-case to a
# char rpy's str cannot hold ('\xb5' and '\xff'): upper() stops the
# program there with a NotImplementedError that says so, rather than give
# a different string than CPython 3.  s.isdigit() and the other classes
# of a string are `_ll_all_chars` and `_ll_cased` of the char classes,
# which the rtyper passes.

def ll_char_isspace_py3(ch):
    c = ord(ch)
    return (c == 32 or (9 <= c and c <= 13) or (0x1c <= c and c <= 0x1f)
            or c == 0x85 or c == 0xa0)


def ll_char_isdigit_py3(ch):
    c = ord(ch)
    return ('0' <= ch and ch <= '9') or c == 0xb2 or c == 0xb3 or c == 0xb9


def ll_char_isupper_py3(ch):
    c = ord(ch)
    return ('A' <= ch and ch <= 'Z') or (0xc0 <= c and c <= 0xde and c != 0xd7)


def ll_char_islower_py3(ch):
    c = ord(ch)
    return (('a' <= ch and ch <= 'z') or c == 0xaa or c == 0xb5 or c == 0xba
            or (0xdf <= c and c != 0xf7))


def ll_char_isalpha_py3(ch):
    return ll_char_isupper_py3(ch) or ll_char_islower_py3(ch)


def ll_char_isalnum_py3(ch):
    c = ord(ch)
    return (ll_char_isalpha_py3(ch) or ll_char_isdigit_py3(ch)
            or (0xbc <= c and c <= 0xbe))


def ll_char_lower_py3(ch):
    if ll_char_isupper_py3(ch):
        return chr(ord(ch) + 32)
    return ch


def _ll_upper_width_py3(ch):
    """How many chars upper() makes of `ch`."""
    if ch == '\xdf':
        return 2
    if ch == '\xb5':
        raise NotImplementedError("rpy: upper() of '\\xb5' is U+039C in Python 3,"
                                  " beyond the chars below U+0100 a str holds")
    if ch == '\xff':
        raise NotImplementedError("rpy: upper() of '\\xff' is U+0178 in Python 3,"
                                  " beyond the chars below U+0100 a str holds")
    return 1


def ll_upper_py3(s):
    length = len(s)
    n = 0
    i = 0
    while i < length:
        n += _ll_upper_width_py3(s[i])
        i += 1
    res = _ll_new_like(s, n)
    pos = 0
    i = 0
    while i < length:
        ch = s[i]
        c = ord(ch)
        if ch == '\xdf':
            res[pos] = 'S'
            res[pos + 1] = 'S'
            pos += 2
        else:
            if ('a' <= ch and ch <= 'z') or (0xe0 <= c and c != 0xf7):
                ch = chr(c - 32)
            res[pos] = ch
            pos += 1
        i += 1
    return res


def ll_char_upper_py3(STR, ch):
    """ch.upper(): a string, as '\xdf' gives two chars."""
    return ll_upper_py3(ll_chr2str(STR, ch))


def ll_lower_py3(s):
    return _ll_map_chars(s, ll_char_lower_py3)


def _ll_decoded_arg(s):
    """A command-line argument as CPython 3 gives it to a program: decoded
    from UTF-8.  The chars of its str are below U+0100, so an argument
    with a char above (or bytes that are not UTF-8, which CPython 3 keeps
    as surrogates) stops the program with a NotImplementedError."""
    length = len(s)
    n = 0
    i = 0
    while i < length:
        c = ord(s[i])
        if c < 0x80:
            i += 1
        elif ((c == 0xc2 or c == 0xc3) and i + 1 < length
              and 0x80 <= ord(s[i + 1]) and ord(s[i + 1]) < 0xc0):
            i += 2
        else:
            raise NotImplementedError(
                "rpy: a command-line argument holds a char above U+00FF, or"
                " bytes that are not UTF-8, which a Python 3 str of rpy"
                " cannot hold")
        n += 1
    if n == length:
        return s
    res = _ll_new_like(s, n)
    i = 0
    j = 0
    while i < length:
        c = ord(s[i])
        if c < 0x80:
            res[j] = s[i]
            i += 1
        else:
            res[j] = chr(((c & 0x1f) << 6) | (ord(s[i + 1]) & 0x3f))
            i += 2
        j += 1
    return res


def ll_argv_py3(argv):
    """A Python 3 program's argv, each argument decoded (`_ll_decoded_arg`)."""
    n = argv.length
    res = ll_newlist_hint(typeOf(argv).TO, n)
    i = 0
    while i < n:
        ll_append(res, _ll_decoded_arg(argv.items[i]))
        i += 1
    return res

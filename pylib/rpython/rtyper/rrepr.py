"""repr() of strings, chars, lists and dicts, as CPython writes them: what
printing a container, str() of a container and '%r' show.

A container's helper calls `repr()` of each item; the rtyper lowers that
call by the item's low-level type, so a list of lists of strings reprs
through three helpers, each specialized by its argument types.  STR is
the string type, STRLIST the type of a list of strings.  `py2` says
whether every char above 0x7e is escaped (Python 2) or only those that
Python 3 does not print (\x7f-\xa0 and the soft hyphen \xad).
"""

from rpython.rtyper.lltypesystem.lltype import malloc, typeOf
from rpython.rtyper.rlist import ll_items, ll_length, ll_newlist, _ll_copy
from rpython.rtyper.rstr import ll_chr2str, ll_char_isspace, ll_stringslice_startonly


def _ll_none(STR):
    """The string 'None'."""
    s = malloc(STR, 4)
    s[0] = 'N'
    s[1] = 'o'
    s[2] = 'n'
    s[3] = 'e'
    return s


def _ll_escape_len(ch, quote, py2):
    """How many chars `ch` takes inside quotes `quote`."""
    if ch == quote or ch == '\\' or ch == '\n' or ch == '\t' or ch == '\r':
        return 2
    if ch < ' ' or ch == '\x7f':
        return 4
    if ch > '\x7f' and (py2 or ch <= '\xa0' or ch == '\xad'):
        return 4
    return 1


def ll_str_repr(STR, s, py2):
    """repr(s): quoted as CPython quotes it, None for a null string."""
    if not s:
        return _ll_none(STR)
    length = len(s)
    has_single = False
    has_double = False
    i = 0
    while i < length:
        if s[i] == "'":
            has_single = True
        elif s[i] == '"':
            has_double = True
        i += 1
    quote = "'"
    if has_single and not has_double:
        quote = '"'
    n = 2
    i = 0
    while i < length:
        n += _ll_escape_len(s[i], quote, py2)
        i += 1
    res = malloc(STR, n)
    res[0] = quote
    pos = 1
    i = 0
    while i < length:
        ch = s[i]
        width = _ll_escape_len(ch, quote, py2)
        if width == 1:
            res[pos] = ch
        elif width == 2:
            res[pos] = '\\'
            if ch == '\n':
                res[pos + 1] = 'n'
            elif ch == '\t':
                res[pos + 1] = 't'
            elif ch == '\r':
                res[pos + 1] = 'r'
            else:
                res[pos + 1] = ch
        else:
            code = ord(ch)
            res[pos] = '\\'
            res[pos + 1] = 'x'
            res[pos + 2] = _ll_hex_digit(code >> 4)
            res[pos + 3] = _ll_hex_digit(code & 15)
        pos += width
        i += 1
    res[pos] = quote
    return res


def _ll_hex_digit(d):
    if d < 10:
        return chr(ord('0') + d)
    return chr(ord('a') + d - 10)


def ll_char_repr(STR, ch, py2):
    """repr() of a char: the repr of the one-char string."""
    return ll_str_repr(STR, ll_chr2str(STR, ch), py2)


def _ll_join_wrapped(STR, parts, num, opening, closing, pairs):
    """opening + ', '.join(parts[:num]) + closing; with `pairs`, the parts
    are keys and values and each pair is joined by ': ' instead."""
    total = 2
    if num > 0:
        total += 2 * (num - 1)
    i = 0
    while i < num:
        total += len(parts.items[i])
        i += 1
    res = malloc(STR, total)
    res[0] = opening
    pos = 1
    i = 0
    while i < num:
        if i > 0:
            if pairs and i % 2 == 1:
                res[pos] = ':'
            else:
                res[pos] = ','
            res[pos + 1] = ' '
            pos += 2
        item = parts.items[i]
        _ll_copy(item, 0, res, pos, len(item))
        pos += len(item)
        i += 1
    res[pos] = closing
    return res


def ll_list_repr(STR, STRLIST, l):
    """repr(l): '[' + ', '.join(repr(x) for x in l) + ']'."""
    if not l:
        return _ll_none(STR)
    num = ll_length(l)
    parts = ll_newlist(STRLIST, num)
    i = 0
    while i < num:
        parts.items[i] = repr(ll_items(l)[i])
        i += 1
    return _ll_join_wrapped(STR, parts, num, '[', ']', False)


def ll_dict_repr(STR, STRLIST, d):
    """repr(d): '{' + ', '.join('%r: %r' % item) + '}', in insertion
    order."""
    if not d:
        return _ll_none(STR)
    # keys and values alternate in `parts`; each pair is joined by ': '.
    parts = ll_newlist(STRLIST, 2 * d.num_items)
    num = 0
    i = 0
    while i < d.num_used:
        if d.live[i]:
            parts.items[num] = repr(d.keys[i])
            parts.items[num + 1] = repr(d.values[i])
            num += 2
        i += 1
    return _ll_join_wrapped(STR, parts, num, '{', '}', True)


# The messages of the conversions' ValueError, before the string; a
# helper cannot be passed a string constant, so they are chosen by number.
INT_ERROR = "invalid literal for int() with base "
FLOAT_ERROR = "could not convert string to float: "
# Python 2's float() of a string that a number begins but does not fill.
FLOAT_LITERAL_ERROR = "invalid literal for float(): "
BASE_ERROR = "int() base must be >= 2 and <= 36, or 0"


def _ll_value_error(kind, s, quoted, py2, base):
    """The ValueError a conversion of `s` raises: the message `kind` names
    (0: int's, followed by `base` and a colon; 1: float's; 2: Python 2's
    float's for a string a number only begins) and `s`, as its repr when
    `quoted`."""
    STR = typeOf(s).TO
    prefix = INT_ERROR
    extra = 0
    if kind == 1:
        prefix = FLOAT_ERROR
    elif kind == 2:
        prefix = FLOAT_LITERAL_ERROR
    elif base >= 10:
        extra = 4
    else:
        extra = 3
    r = s
    if quoted:
        r = ll_str_repr(STR, s, py2)
    n = len(prefix)
    res = malloc(STR, n + extra + len(r))
    i = 0
    while i < n:
        res[i] = prefix[i]
        i += 1
    if extra == 4:
        res[i] = chr(ord('0') + base // 10)
        i += 1
    if extra > 0:
        res[i] = chr(ord('0') + base % 10)
        res[i + 1] = ':'
        res[i + 2] = ' '
    _ll_copy(r, 0, res, n + extra, len(r))
    raise ValueError(res)


def _ll_int_error(s, start, py2, base):
    """int()'s ValueError; Python 2 quotes the string from `start`, past
    its leading whitespace."""
    if py2:
        s = ll_stringslice_startonly(s, start)
    _ll_value_error(0, s, True, py2, base)


def _ll_int_span(s, py2):
    """Where int() reads s: the first char after the leading whitespace
    (what a Python 2 error quotes from), the first after the sign (and,
    in Python 2, the whitespace after it), the end before the trailing
    whitespace, and whether the sign is '-'."""
    length = len(s)
    i = 0
    while i < length and ll_char_isspace(s[i]):
        i += 1
    start = i
    end = length
    while end > i and ll_char_isspace(s[end - 1]):
        end -= 1
    negative = False
    if i < end and (s[i] == '-' or s[i] == '+'):
        negative = s[i] == '-'
        i += 1
        while py2 and i < end and ll_char_isspace(s[i]):
            i += 1
    return start, i, end, negative


def ll_int_checked(s, py2):
    """int(s) in base 10 where a handler catches ValueError: whitespace
    around an optional sign and decimal digits, which Python 3 lets single
    underscores separate (the value wraps to a machine word)."""
    start, i, end, negative = _ll_int_span(s, py2)
    if i == end or _ll_digits(s, i, end, not py2) != end:
        _ll_int_error(s, start, py2, 10)
    value = 0
    while i < end:
        ch = s[i]
        if ch != '_':
            value = value * 10 + (ord(ch) - ord('0'))
        i += 1
    if negative:
        value = -value
    return value


def _ll_digit_value(ch):
    """The value of `ch` as a digit of a base up to 36 (36 when it is not
    one)."""
    if '0' <= ch and ch <= '9':
        return ord(ch) - ord('0')
    if 'a' <= ch and ch <= 'z':
        return ord(ch) - ord('a') + 10
    if 'A' <= ch and ch <= 'Z':
        return ord(ch) - ord('A') + 10
    return 36


def _ll_prefix_base(ch):
    """The base the prefix letter after a '0' names (0x, 0o, 0b), or 0."""
    if ch == 'x' or ch == 'X':
        return 16
    if ch == 'o' or ch == 'O':
        return 8
    if ch == 'b' or ch == 'B':
        return 2
    return 0


def ll_int_base_checked(s, base, py2):
    """int(s, base) where a handler catches ValueError, as CPython reads
    it: whitespace around an optional sign, the prefix 0x, 0o or 0b when it
    names `base`, and digits of the base, which Python 3 lets single
    underscores separate (and follow the prefix); base 0 takes the base
    from the prefix, else 10 (Python 3, where a decimal number cannot start
    with 0 unless it is zero) or 8 after a leading 0 (Python 2).  The value
    wraps to a machine word."""
    if base != 0 and (base < 2 or base > 36):
        raise ValueError(BASE_ERROR)
    asked = base
    start, i, end, negative = _ll_int_span(s, py2)
    # an underscore may follow a digit, or the prefix
    underscore_ok = False
    if i + 1 < end and s[i] == '0':
        named = _ll_prefix_base(s[i + 1])
        if named != 0 and (base == 0 or base == named):
            base = named
            i += 2
            underscore_ok = True
    leading_zero = i < end and s[i] == '0'
    if base == 0:
        base = 10
        if py2 and leading_zero:
            base = 8
    value = 0
    digits = 0
    while i < end:
        ch = s[i]
        if ch == '_' and not py2 and underscore_ok:
            underscore_ok = False
            i += 1
            continue
        d = _ll_digit_value(ch)
        if d >= base:
            _ll_int_error(s, start, py2, asked)
        value = value * base + d
        digits += 1
        underscore_ok = True
        i += 1
    if digits == 0 or (i > 0 and s[i - 1] == '_'):
        _ll_int_error(s, start, py2, asked)
    if asked == 0 and not py2 and leading_zero and base == 10 and value != 0:
        _ll_int_error(s, start, py2, asked)
    if negative:
        value = -value
    return value


def _ll_is_digit(ch):
    return '0' <= ch and ch <= '9'


def _ll_digits(s, i, end, underscores):
    """Where the run of decimal digits of s[i:end] stops; with
    `underscores` (Python 3), a single underscore between two digits
    belongs to the run, as the runtime's rpy_digitpart reads it."""
    if i >= end or not _ll_is_digit(s[i]):
        return i
    i += 1
    while i < end:
        if _ll_is_digit(s[i]):
            i += 1
        elif (underscores and s[i] == '_' and i + 1 < end
              and _ll_is_digit(s[i + 1])):
            i += 2
        else:
            break
    return i


def _ll_lower_is(s, start, end, which):
    """Whether s[start:end] is the word `which` names (0: inf, 1:
    infinity, 2: nan), ignoring case."""
    word = "nan"
    if which == 0:
        word = "inf"
    elif which == 1:
        word = "infinity"
    if end - start != len(word):
        return False
    i = 0
    while i < len(word):
        ch = s[start + i]
        if 'A' <= ch and ch <= 'Z':
            ch = chr(ord(ch) + 32)
        if ch != word[i]:
            return False
        i += 1
    return True


def _ll_is_float(s, py2):
    """Whether float(s) accepts `s`: whitespace around a sign and a
    decimal number with an optional exponent (whose digits Python 3 lets
    single underscores separate), or inf, infinity, nan."""
    length = len(s)
    i = 0
    while i < length and ll_char_isspace(s[i]):
        i += 1
    end = length
    while end > i and ll_char_isspace(s[end - 1]):
        end -= 1
    if i < end and (s[i] == '-' or s[i] == '+'):
        i += 1
    if (_ll_lower_is(s, i, end, 0) or _ll_lower_is(s, i, end, 1)
            or _ll_lower_is(s, i, end, 2)):
        return True
    j = _ll_digits(s, i, end, not py2)
    digits = j - i
    if j < end and s[j] == '.':
        k = _ll_digits(s, j + 1, end, not py2)
        digits += k - j - 1
        j = k
    if digits == 0:
        return False
    if j < end and (s[j] == 'e' or s[j] == 'E'):
        j += 1
        if j < end and (s[j] == '-' or s[j] == '+'):
            j += 1
        k = _ll_digits(s, j, end, not py2)
        if k == j:
            return False
        j = k
    return j == end


def ll_float_checked(s, py2):
    """float(s): ValueError with CPython's message when `s` is no number;
    the runtime's rpy_str_to_float converts the others."""
    if not _ll_is_float(s, py2):
        if py2:
            _ll_float_error_py2(s)
        _ll_value_error(1, s, True, py2, 0)
    return float(s)


def _ll_float_error_py2(s):
    """Python 2's ValueError of float(s), quoting `s` from its first
    non-space unquoted: "invalid literal" when a number begins it there
    (its strtod read a prefix and stopped short), else "could not
    convert"."""
    length = len(s)
    start = 0
    while start < length and ll_char_isspace(s[start]):
        start += 1
    i = start
    if i < length and (s[i] == '-' or s[i] == '+'):
        i += 1
    begins = False
    if i < length and _ll_is_digit(s[i]):
        begins = True
    elif i + 1 < length and s[i] == '.' and _ll_is_digit(s[i + 1]):
        begins = True
    elif i + 3 <= length and (_ll_lower_is(s, i, i + 3, 0)
                              or _ll_lower_is(s, i, i + 3, 2)):
        begins = True
    kind = 1
    if begins:
        kind = 2
    _ll_value_error(kind, ll_stringslice_startonly(s, start), False, True, 0)

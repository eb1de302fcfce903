"""Lists, as the rtyper represents them.  A list that changes length is a
GcStruct {length: Signed, items: Ptr(GcArray(item))} whose items array is
over-allocated, so that appending is amortized constant time; a list that
never changes length (the annotator's ListDef says so) is the GcArray of
its items itself, as the original's FixedSizeListRepr, one indirection
less on every access.  Helpers that read a list work on both through
`ll_length` and `ll_items` (and make one with `ll_newlist`), whose branch
on the type is folded when the helper is specialized; helpers that change
a list's length only ever get the struct.

Each helper is specialized by the low-level types of its arguments (one
graph per list type).  Indexing helpers come in three kinds, as in the
original: `_nonneg` for an index known to be >= 0, the plain one (a
negative index counts from the end, nothing is checked: the rtyper uses it
where no handler catches IndexError) and `_checked`, which raises
IndexError.  Helpers that compare items take `eqfn`, None for items `==`
compares (numbers, chars) or the helper that compares two items (strings).
"""

from rpython.rtyper.lltypesystem.lltype import malloc, typeOf


def _ll_copy(src, srcstart, dst, dststart, length):
    """Copies `length` items of the array `src` from `srcstart` into the
    array `dst` at `dststart` (arrays of list items or a string's chars;
    the two ranges do not overlap)."""
    i = 0
    while i < length:
        dst[dststart + i] = src[srcstart + i]
        i += 1


def _ll_list_resize_hint_really(l, newsize, overallocate):
    """Reallocates the items of `l` for `newsize` items, with room to grow
    when `overallocate`: half as much again (0, 4, 10, 22, 40, 67, 108, ...).
    CPython and the original grow by an eighth, so appending n items
    copied about 9n of them, and a large list's resizes and the collector's
    zeroing of each new array were 15-20% of the time of programs that
    build lists by appending (benches/programs/wordcount.py, strings.py)."""
    if newsize <= 0:
        new_allocated = 0
    elif overallocate:
        if newsize < 9:
            some = 3
        else:
            some = 6
        new_allocated = newsize + (newsize >> 1) + some
    else:
        new_allocated = newsize
    newitems = malloc(typeOf(l).TO.items.TO, new_allocated)
    keep = l.length
    if newsize < keep:
        keep = newsize
    _ll_copy(l.items, 0, newitems, 0, keep)
    l.items = newitems
    l.length = newsize


def _ll_list_resize_ge(l, newsize):
    """Makes the length of `l` `newsize`, at least its current length."""
    if len(l.items) >= newsize:
        l.length = newsize
    else:
        _ll_list_resize_hint_really(l, newsize, True)


def _ll_list_resize_le(l, newsize):
    """Makes the length of `l` `newsize`, at most its current length; the
    items shrink when less than half of them would be used."""
    if newsize >= (len(l.items) >> 1) - 5:
        l.length = newsize
    else:
        _ll_list_resize_hint_really(l, newsize, False)


def ll_length(l):
    """The number of items of a list of either kind."""
    if typeOf(l).TO._is_array:
        return len(l)
    return l.length


def ll_items(l):
    """The array holding a list's items (the list itself when it never
    changes length); only its first `ll_length(l)` items are the list's."""
    if typeOf(l).TO._is_array:
        return l
    return l.items


def ll_newlist(LIST, length):
    """A new list of type LIST (the struct type, or the array type of a
    list that never changes length) with `length` items, each the zero of
    its type."""
    if LIST._is_array:
        return malloc(LIST, length)
    l = malloc(LIST)
    l.length = length
    l.items = malloc(LIST.items.TO, length)
    return l


def ll_newlist_hint(LIST, hint):
    """A new empty list of type LIST with room for `hint` items."""
    l = malloc(LIST)
    l.length = 0
    l.items = malloc(LIST.items.TO, hint)
    return l


def ll_len(l):
    return ll_length(l)


def ll_bool(l):
    return ll_length(l) != 0


def ll_bool_nullable(l):
    """The truth of a list that may be None: not None and not empty."""
    if not l:
        return False
    return ll_length(l) != 0


def ll_is_empty_nullable(l):
    """`not l` of a list that may be None: None or empty."""
    return not ll_bool_nullable(l)


def ll_append(l, newitem):
    length = l.length
    _ll_list_resize_ge(l, length + 1)
    l.items[length] = newitem


def _ll_normalize(l, index):
    """A possibly negative index as the position it names."""
    if index < 0:
        index += ll_length(l)
    return index


def _ll_check_index(l, index):
    """The position a possibly negative index names; IndexError when it
    names none."""
    length = ll_length(l)
    if index < 0:
        index += length
    if index < 0 or index >= length:
        raise IndexError
    return index


def ll_getitem_nonneg(l, index):
    return ll_items(l)[index]


def ll_getitem(l, index):
    return ll_items(l)[_ll_normalize(l, index)]


def ll_getitem_checked(l, index):
    return ll_items(l)[_ll_check_index(l, index)]


def ll_setitem_nonneg(l, index, newitem):
    ll_items(l)[index] = newitem


def ll_setitem(l, index, newitem):
    ll_items(l)[_ll_normalize(l, index)] = newitem


def ll_setitem_checked(l, index, newitem):
    ll_items(l)[_ll_check_index(l, index)] = newitem


def ll_delitem_nonneg(l, index):
    length = l.length
    items = l.items
    j = index + 1
    while j < length:
        items[j - 1] = items[j]
        j += 1
    _ll_list_resize_le(l, length - 1)


def ll_delitem(l, index):
    ll_delitem_nonneg(l, _ll_normalize(l, index))


def ll_delitem_checked(l, index):
    ll_delitem_nonneg(l, _ll_check_index(l, index))


def ll_pop_end(l):
    """l.pop() of a list the caller knows is not empty."""
    index = l.length - 1
    res = l.items[index]
    _ll_list_resize_le(l, index)
    return res


def ll_pop_end_checked(l):
    """l.pop(): IndexError on an empty list."""
    if l.length == 0:
        raise IndexError
    return ll_pop_end(l)


def ll_pop_nonneg(l, index):
    res = l.items[index]
    ll_delitem_nonneg(l, index)
    return res


def ll_pop(l, index):
    return ll_pop_nonneg(l, _ll_normalize(l, index))


def ll_pop_checked(l, index):
    return ll_pop_nonneg(l, _ll_check_index(l, index))


def ll_insert(l, index, newitem):
    """l.insert(index, item): an index past either end inserts there."""
    length = l.length
    index = _ll_bound(length, index)
    _ll_list_resize_ge(l, length + 1)
    items = l.items
    j = length
    while j > index:
        items[j] = items[j - 1]
        j -= 1
    items[index] = newitem


def ll_extend(l1, l2):
    """l1.extend(l2), `l1 += l2`; l2 may be l1 itself."""
    len1 = l1.length
    len2 = ll_length(l2)
    _ll_list_resize_ge(l1, len1 + len2)
    _ll_copy(ll_items(l2), 0, l1.items, len1, len2)


def ll_concat(l1, l2):
    """l1 + l2, a new list of l1's type."""
    len1 = ll_length(l1)
    len2 = ll_length(l2)
    l = ll_newlist(typeOf(l1).TO, len1 + len2)
    _ll_copy(ll_items(l1), 0, ll_items(l), 0, len1)
    _ll_copy(ll_items(l2), 0, ll_items(l), len1, len2)
    return l


def _ll_bound(length, index):
    """A slice bound as Python clips it: negative counts from the end,
    then into 0..length (rstr's slices and searches use it too)."""
    if index < 0:
        index += length
        if index < 0:
            index = 0
    elif index > length:
        index = length
    return index


def ll_convert(LIST, l):
    """A new list of type LIST with the items of `l`, a list of the other
    kind with the same item type (a list that never changes length where
    one that does is wanted, or the other way round)."""
    n = ll_length(l)
    res = ll_newlist(LIST, n)
    _ll_copy(ll_items(l), 0, ll_items(res), 0, n)
    return res


def ll_getslice(LIST, l, start, stop):
    """l[start:stop] as a new list of type LIST (a slice is a list of its
    own, which may change length where l does not, or the other way
    round), with Python's clipping of the bounds."""
    start = _ll_bound(ll_length(l), start)
    stop = _ll_bound(ll_length(l), stop)
    if stop < start:
        stop = start
    n = stop - start
    res = ll_newlist(LIST, n)
    _ll_copy(ll_items(l), start, ll_items(res), 0, n)
    return res


def ll_getslice_startonly(LIST, l, start):
    """l[start:]."""
    return ll_getslice(LIST, l, start, ll_length(l))


def ll_copy(l):
    """l[:], list(l)."""
    return ll_getslice(typeOf(l).TO, l, 0, ll_length(l))


def ll_delslice(l, start, stop):
    """del l[start:stop]."""
    start = _ll_bound(l.length, start)
    stop = _ll_bound(l.length, stop)
    if stop <= start:
        return
    length = l.length
    items = l.items
    n = stop - start
    j = stop
    while j < length:
        items[j - n] = items[j]
        j += 1
    _ll_list_resize_le(l, length - n)


def ll_setslice(l, start, stop, l2):
    """l[start:stop] = l2, with Python's semantics: the list grows or
    shrinks when l2 is longer or shorter than the slice; l2 may be l."""
    start = _ll_bound(l.length, start)
    stop = _ll_bound(l.length, stop)
    if stop < start:
        stop = start
    new = ll_copy(l2)
    n = new.length
    length = l.length
    newlength = length - (stop - start) + n
    tail = length - stop
    if newlength > length:
        _ll_list_resize_ge(l, newlength)
    items = l.items
    if start + n > stop:
        j = tail - 1
        while j >= 0:
            items[start + n + j] = items[stop + j]
            j -= 1
    else:
        j = 0
        while j < tail:
            items[start + n + j] = items[stop + j]
            j += 1
    _ll_copy(new.items, 0, items, start, n)
    if newlength < length:
        _ll_list_resize_le(l, newlength)


def ll_reverse(l):
    items = ll_items(l)
    i = 0
    j = ll_length(l) - 1
    while i < j:
        tmp = items[i]
        items[i] = items[j]
        items[j] = tmp
        i += 1
        j -= 1


def _ll_items_equal(a, b, eqfn):
    if eqfn is None:
        return a == b
    return eqfn(a, b)


def ll_contains(l, item, eqfn):
    """item in l."""
    return ll_find(l, item, eqfn) >= 0


def ll_count(l, item, eqfn):
    """l.count(item)."""
    count = 0
    i = 0
    while i < ll_length(l):
        if _ll_items_equal(ll_items(l)[i], item, eqfn):
            count += 1
        i += 1
    return count


def ll_index(l, item, eqfn):
    """l.index(item): ValueError when it is not there."""
    i = ll_find(l, item, eqfn)
    if i < 0:
        raise ValueError
    return i


def ll_find(l, item, eqfn):
    """The position of the first item equal to `item`, or -1 (what
    l.index and `l.remove` build on)."""
    i = 0
    while i < ll_length(l):
        if _ll_items_equal(ll_items(l)[i], item, eqfn):
            return i
        i += 1
    return -1


def ll_remove(l, item, eqfn):
    """l.remove(item): ValueError when it is not there."""
    ll_delitem_nonneg(l, ll_index(l, item, eqfn))


def ll_mul(LIST, l, times):
    """l * times, a new list of type LIST (empty for times <= 0): `[x] * n`
    is a list of what its variable holds, which may be wider than x."""
    length = ll_length(l)
    if times < 0:
        times = 0
    res = ll_newlist(LIST, length * times)
    k = 0
    while k < times:
        _ll_copy(ll_items(l), 0, ll_items(res), k * length, length)
        k += 1
    return res


def ll_inplace_mul(l, times):
    """l *= times."""
    length = l.length
    if times < 0:
        times = 0
    newlength = length * times
    if newlength > length:
        _ll_list_resize_ge(l, newlength)
    else:
        _ll_list_resize_le(l, newlength)
    items = l.items
    j = length
    while j < newlength:
        items[j] = items[j - length]
        j += 1


def ll_eq(l1, l2, eqfn):
    """l1 == l2."""
    if ll_length(l1) != ll_length(l2):
        return False
    i = 0
    while i < ll_length(l1):
        if not _ll_items_equal(ll_items(l1)[i], ll_items(l2)[i], eqfn):
            return False
        i += 1
    return True


def ll_listiter(ITER, l):
    """iter(l): a new iterator of type ITER (GcStruct {list, index})."""
    it = malloc(ITER)
    it.list = l
    it.index = 0
    return it


def ll_listnext(it):
    """next(it): StopIteration past the end."""
    l = it.list
    index = it.index
    if index >= l.length:
        raise StopIteration
    it.index = index + 1
    return l.items[index]


def ll_enumerate(LIST, TUPLE, l):
    """enumerate(l), as RPython makes it: a new list of (index, item)."""
    n = ll_length(l)
    res = ll_newlist(LIST, n)
    i = 0
    while i < n:
        t = malloc(TUPLE)
        t.item0 = i
        t.item1 = ll_items(l)[i]
        ll_items(res)[i] = t
        i += 1
    return res


def ll_zip(LIST, TUPLE, l1, l2):
    """zip(l1, l2): a new list of pairs, as long as the shorter list."""
    n = ll_length(l1)
    if ll_length(l2) < n:
        n = ll_length(l2)
    res = ll_newlist(LIST, n)
    i = 0
    while i < n:
        t = malloc(TUPLE)
        t.item0 = ll_items(l1)[i]
        t.item1 = ll_items(l2)[i]
        ll_items(res)[i] = t
        i += 1
    return res


def ll_reversed(l):
    """What reversed(l) iterates over: a reversed copy of l."""
    res = ll_copy(l)
    ll_reverse(res)
    return res


def ll_range(LIST, start, stop, step):
    """range(start, stop, step) as a new list (step is not zero)."""
    if step > 0:
        n = (stop - start + step - 1) // step
    else:
        n = (start - stop - step - 1) // (-step)
    if n < 0:
        n = 0
    res = ll_newlist(LIST, n)
    i = 0
    while i < n:
        ll_items(res)[i] = start + i * step
        i += 1
    return res


def ll_range_step(LIST, start, stop, step, py2, xrange):
    """range(start, stop, step) with a step known only at run time: a zero
    step raises ValueError with the message of the program's Python (`py2`
    and `xrange` are constants of each specialization)."""
    if step == 0:
        if xrange:
            raise ValueError("xrange() arg 3 must not be zero")
        if py2:
            raise ValueError("range() step argument must not be zero")
        raise ValueError("range() arg 3 must not be zero")
    return ll_range(LIST, start, stop, step)


def _ll_items_less(a, b, cmpfn):
    if cmpfn is None:
        return a < b
    return cmpfn(a, b) < 0


def ll_min(l, cmpfn):
    """min(l): the first of the smallest items; ValueError when l is empty.
    `cmpfn` orders the items (None for `<`, ll_strcmp for strings)."""
    length = ll_length(l)
    if length == 0:
        raise ValueError
    res = ll_items(l)[0]
    i = 1
    while i < length:
        item = ll_items(l)[i]
        if _ll_items_less(item, res, cmpfn):
            res = item
        i += 1
    return res


def ll_max(l, cmpfn):
    """max(l): the first of the largest items; ValueError when l is empty."""
    length = ll_length(l)
    if length == 0:
        raise ValueError
    res = ll_items(l)[0]
    i = 1
    while i < length:
        item = ll_items(l)[i]
        if _ll_items_less(res, item, cmpfn):
            res = item
        i += 1
    return res

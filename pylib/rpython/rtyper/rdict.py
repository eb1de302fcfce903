"""Dicts, as the rtyper represents them (the original's rordereddict): an
insertion-ordered open-addressing table, CPython's compact dict.

A dict is a GcStruct

    {num_items: Signed, num_used: Signed,
     keys: Ptr(GcArray(K)), values: Ptr(GcArray(V)),
     live: Ptr(GcArray(Bool)), hashes: Ptr(GcArray(Signed)),
     indexes: Ptr(GcArray(Signed))}

The entries (keys, values, live, hashes, parallel arrays) are kept in
insertion order; `num_used` of them are used, `num_items` of those are live
(a deleted entry is a hole with `live` False, removed by the compaction of
the next resize).  `indexes` is the hash table proper, a power of two of
slots, each FREE, DELETED or the position of an entry; a key is looked for
from slot `hash & mask` with CPython's perturbed probing.  There are 2/3 as
many entries as slots, so a probe always ends at a FREE slot.

Each helper is specialized by the low-level types of its arguments (one
graph per dict type).  Key helpers take `hashfn`, the helper that hashes a
key (`ll_hash_int`, `ll_hash_char`, rstr's `ll_strhash`), and `eqfn`, None
for keys `==` compares or the helper that compares two keys (strings).
The `_checked` helpers raise KeyError for a missing key; the rtyper always
uses them (as the original's lookups do), so a caller's handler sees it.
"""

from rpython.rlib.objectmodel import always_inline, compute_identity_hash
from rpython.rlib.rarithmetic import intmask
from rpython.rtyper.lltypesystem.lltype import malloc, typeOf
from rpython.rtyper.rlist import _ll_items_equal, ll_newlist

FREE = -1
DELETED = -2
MIN_SLOTS = 8
PERTURB_SHIFT = 5


def ll_hash_int(x):
    return x


def ll_hash_identity(p):
    # An instance key is hashed and compared by identity (no eqfn: the
    # lookup compares the pointers).
    return compute_identity_hash(p)


def ll_hash_uint(x):
    """The hash of an r_uint key: its word read as signed."""
    return intmask(x)


def ll_hash_char(c):
    return ord(c)


def ll_hash_any(x):
    """hash() of a key the rtyper hashes by its type (tuples)."""
    return hash(x)


def ll_eq_any(a, b):
    """== of two keys the rtyper compares by their type (tuples)."""
    return a == b


def _ll_usable(n_slots):
    """How many entries a table of `n_slots` slots holds (CPython's
    USABLE_FRACTION)."""
    return (n_slots << 1) // 3


def _ll_alloc(d, n_slots):
    """Gives `d` empty tables of `n_slots` slots (a power of two)."""
    DICT = typeOf(d).TO
    n_entries = _ll_usable(n_slots)
    d.keys = malloc(DICT.keys.TO, n_entries)
    d.values = malloc(DICT.values.TO, n_entries)
    d.live = malloc(DICT.live.TO, n_entries)
    d.hashes = malloc(DICT.hashes.TO, n_entries)
    indexes = malloc(DICT.indexes.TO, n_slots)
    i = 0
    while i < n_slots:
        indexes[i] = FREE
        i += 1
    d.indexes = indexes
    d.num_items = 0
    d.num_used = 0


def ll_newdict(DICT):
    d = malloc(DICT)
    _ll_alloc(d, MIN_SLOTS)
    return d


def _ll_first_slot(mask, h):
    return h & mask


def _ll_find(d, key, h, eqfn):
    """The slot of d.indexes that holds `key`'s entry, or, when the key is
    absent, the slot where it goes (the first DELETED slot of its probe,
    else the FREE one that ends it)."""
    indexes = d.indexes
    mask = len(indexes) - 1
    i = h & mask
    # The perturbation is unsigned in CPython: it shifts down to 0, after
    # which the probe i = 5i + 1 visits every slot.
    perturb = h
    if perturb < 0:
        perturb = ~perturb
    freeslot = -1
    while True:
        index = indexes[i]
        if index == FREE:
            if freeslot >= 0:
                return freeslot
            return i
        if index == DELETED:
            if freeslot < 0:
                freeslot = i
        elif d.hashes[index] == h and _ll_items_equal(d.keys[index], key, eqfn):
            return i
        i = (i * 5 + perturb + 1) & mask
        perturb = perturb >> PERTURB_SHIFT


def _ll_free_slot(indexes, h):
    """The FREE slot a new entry of hash `h` goes into in a table with no
    DELETED slots (a resized one)."""
    mask = len(indexes) - 1
    i = h & mask
    perturb = h
    if perturb < 0:
        perturb = ~perturb
    while indexes[i] != FREE:
        i = (i * 5 + perturb + 1) & mask
        perturb = perturb >> PERTURB_SHIFT
    return i


def _ll_resize(d):
    """Rebuilds the tables of `d` for three times its items (CPython's
    growth rate), the holes of deleted entries compacted away."""
    n_slots = MIN_SLOTS
    while n_slots <= d.num_items * 3:
        n_slots = n_slots << 1
    keys = d.keys
    values = d.values
    live = d.live
    hashes = d.hashes
    used = d.num_used
    _ll_alloc(d, n_slots)
    j = 0
    i = 0
    while i < used:
        if live[i]:
            d.keys[j] = keys[i]
            d.values[j] = values[i]
            d.hashes[j] = hashes[i]
            d.live[j] = True
            d.indexes[_ll_free_slot(d.indexes, hashes[i])] = j
            j += 1
        i += 1
    d.num_items = j
    d.num_used = j


# The lookups' thin wrappers are inlined into their callers, where the
# hash (elidable) and the lookup (`_ll_find` only reads) of one key in one
# dict fold: `if k in d: d[k] = d[k] + 1` looks `k` up once.
@always_inline
def _ll_entry(d, key, hashfn, eqfn):
    """The position of `key`'s entry, -1 when it is absent."""
    return d.indexes[_ll_find(d, key, hashfn(key), eqfn)]


def _ll_insert(d, key, value, h, slot):
    """Adds a new entry at the end, its index in `slot` (the slot _ll_find
    gave for the absent key); resizes first when the entries are full."""
    if d.num_used == len(d.keys):
        _ll_resize(d)
        slot = _ll_free_slot(d.indexes, h)
    e = d.num_used
    d.keys[e] = key
    d.values[e] = value
    d.hashes[e] = h
    d.live[e] = True
    d.indexes[slot] = e
    d.num_used = e + 1
    d.num_items += 1


def ll_dict_len(d):
    return d.num_items


def ll_dict_bool(d):
    return d.num_items != 0


def ll_dict_is_empty(d):
    """not d."""
    return d.num_items == 0


def ll_dict_bool_nullable(d):
    """The truth of a dict that may be None: not None and not empty."""
    if not d:
        return False
    return d.num_items != 0


def ll_dict_is_empty_nullable(d):
    """`not d` of a dict that may be None: None or empty."""
    return not ll_dict_bool_nullable(d)


@always_inline
def ll_dict_contains(d, key, hashfn, eqfn):
    return _ll_entry(d, key, hashfn, eqfn) >= 0


@always_inline
def ll_dict_getitem_checked(d, key, hashfn, eqfn):
    e = _ll_entry(d, key, hashfn, eqfn)
    if e < 0:
        raise KeyError
    return d.values[e]


@always_inline
def ll_dict_get(d, key, default, hashfn, eqfn):
    e = _ll_entry(d, key, hashfn, eqfn)
    if e < 0:
        return default
    return d.values[e]


@always_inline
def ll_dict_setitem(d, key, value, hashfn, eqfn):
    h = hashfn(key)
    slot = _ll_find(d, key, h, eqfn)
    e = d.indexes[slot]
    if e >= 0:
        d.values[e] = value
    else:
        _ll_insert(d, key, value, h, slot)


def ll_dict_setdefault(d, key, default, hashfn, eqfn):
    h = hashfn(key)
    slot = _ll_find(d, key, h, eqfn)
    e = d.indexes[slot]
    if e >= 0:
        return d.values[e]
    _ll_insert(d, key, default, h, slot)
    return default


def _ll_remove(d, slot):
    """Deletes the entry of `slot`, leaving a hole and a DELETED slot."""
    e = d.indexes[slot]
    d.indexes[slot] = DELETED
    d.live[e] = False
    d.num_items -= 1
    return e


def _ll_slot(d, key, hashfn, eqfn):
    """The slot of `key`'s entry, -1 when it is absent."""
    slot = _ll_find(d, key, hashfn(key), eqfn)
    if d.indexes[slot] < 0:
        return -1
    return slot


def ll_dict_delitem_checked(d, key, hashfn, eqfn):
    slot = _ll_slot(d, key, hashfn, eqfn)
    if slot < 0:
        raise KeyError
    _ll_remove(d, slot)


def ll_dict_pop_checked(d, key, hashfn, eqfn):
    slot = _ll_slot(d, key, hashfn, eqfn)
    if slot < 0:
        raise KeyError
    return d.values[_ll_remove(d, slot)]


def ll_dict_pop_default(d, key, default, hashfn, eqfn):
    slot = _ll_slot(d, key, hashfn, eqfn)
    if slot < 0:
        return default
    return d.values[_ll_remove(d, slot)]


def ll_dict_clear(d):
    _ll_alloc(d, MIN_SLOTS)


def ll_dict_update(d, other, hashfn, eqfn):
    i = 0
    while i < other.num_used:
        if other.live[i]:
            ll_dict_setitem(d, other.keys[i], other.values[i], hashfn, eqfn)
        i += 1


def ll_dict_copy(d, hashfn, eqfn):
    copy = ll_newdict(typeOf(d).TO)
    ll_dict_update(copy, d, hashfn, eqfn)
    return copy


def _ll_dict_list(LIST, d, entry):
    """A new list of type LIST of `entry(LIST, d, i)` for each live entry
    `i`, in insertion order."""
    l = ll_newlist(LIST, d.num_items)
    i = 0
    j = 0
    while i < d.num_used:
        if d.live[i]:
            l.items[j] = entry(LIST, d, i)
            j += 1
        i += 1
    return l


def _ll_key(LIST, d, i):
    return d.keys[i]


def _ll_value(LIST, d, i):
    return d.values[i]


def _ll_item(LIST, d, i):
    pair = malloc(LIST.items.TO.OF.TO)
    pair.item0 = d.keys[i]
    pair.item1 = d.values[i]
    return pair


def ll_dict_keys(LIST, d):
    """d.keys() as a new list, in insertion order."""
    return _ll_dict_list(LIST, d, _ll_key)


def ll_dict_values(LIST, d):
    return _ll_dict_list(LIST, d, _ll_value)


def ll_dict_items(LIST, d):
    """d.items() as a new list of (key, value) tuples."""
    return _ll_dict_list(LIST, d, _ll_item)


def _ll_dictiter_advance(it):
    """The position of the next live entry of the iterator's dict, the
    iterator stepped past it; StopIteration at the end."""
    d = it.container
    i = it.index
    while i < d.num_used:
        if d.live[i]:
            it.index = i + 1
            return i
        i += 1
    it.index = i
    raise StopIteration


def ll_dictiter_nextkey(it):
    return it.container.keys[_ll_dictiter_advance(it)]

"""Annotations on functions and objects that steer the translation.

Untranslated, each returns what it decorates or computes the plain Python
result; the decorators note their meaning on the function (as
`func._rpy_hints_`) for tests that look.
"""

import sys


def _mark(func, hint):
    hints = getattr(func, '_rpy_hints_', ())
    func._rpy_hints_ = hints + (hint,)
    return func


class _Specialize(object):
    """`@specialize.xxx(...)`: the annotator makes one copy of the function
    per value of the given key."""

    def memo(self):
        """One copy per tuple of (prebuilt constant) argument values, whose
        results are computed at translation time."""
        return lambda func: _mark(func, ('specialize', 'memo', ()))

    def arg(self, *args):
        """One copy per constant value of the arguments at these indexes."""
        return lambda func: _mark(func, ('specialize', 'arg', args))

    def arg_or_var(self, *args):
        """Like `arg`, and one more copy for non-constant values."""
        return lambda func: _mark(func, ('specialize', 'arg_or_var', args))

    def argtype(self, *args):
        """One copy per type of the arguments at these indexes."""
        return lambda func: _mark(func, ('specialize', 'argtype', args))

    def ll(self):
        """One copy per low-level type of the arguments."""
        return lambda func: _mark(func, ('specialize', 'll', ()))

    def call_location(self):
        """One copy per call site."""
        return lambda func: _mark(func, ('specialize', 'call_location', ()))


specialize = _Specialize()


def always_inline(func):
    """The backend optimizer inlines every call of the function."""
    return _mark(func, 'always_inline')


def dont_inline(func):
    """The backend optimizer never inlines the function."""
    return _mark(func, 'dont_inline')


def try_inline(func):
    """The backend optimizer inlines the function where it can."""
    return _mark(func, 'try_inline')


def not_rpython(func):
    """The function runs only at import time, never translated."""
    return _mark(func, 'not_rpython')


def enforceargs(*types, **kwds):
    """Declares the argument types the annotator must give the function."""
    return lambda func: _mark(func, ('enforceargs', types))


def we_are_translated():
    """False untranslated; the translated program sees the constant True."""
    return False


def keepalive_until_here(*values):
    """Keeps the values alive until this point (for the GC)."""
    pass


def compute_hash(x):
    """The hash of `x` the translated program computes (for ints and
    strings, as Python does)."""
    return hash(x)


def compute_identity_hash(x):
    """A hash of the object's identity."""
    return id(x) & sys.maxsize if hasattr(sys, 'maxsize') else id(x)


def compute_unique_id(x):
    """An id unique among live objects."""
    return id(x)


def current_object_addr_as_int(x):
    """A cheap version of id(x): an int that tells live objects apart (the
    original's is the object's current address, which a moving collector
    changes; rpy's is the object's identity hash, which stays)."""
    return id(x)


def instantiate(cls, nonmovable=False):
    """An instance of `cls` without calling its `__init__`."""
    return cls.__new__(cls)


def import_from_mixin(mixin, special_methods=['__init__', '__del__']):
    """Copies the mixin's methods into the calling class body (a class of
    RPython cannot inherit from a mixin at run time)."""
    frame = sys._getframe(1)
    target = frame.f_locals
    for name, value in mixin.__dict__.items():
        if name.startswith('__') and name not in special_methods:
            continue
        target[name] = value


class r_dict(object):
    """A dict whose keys are compared with `key_eq(a, b)` and hashed with
    `key_hash(a)`, functions of the program; items keep insertion order."""

    def __init__(self, key_eq, key_hash, force_non_null=False,
                 simple_hash_eq=False):
        self.key_eq = key_eq
        self.key_hash = key_hash
        self._entries = []

    def _find(self, key):
        h = self.key_hash(key)
        for i, (eh, k, _) in enumerate(self._entries):
            if eh == h and self.key_eq(k, key):
                return h, i
        return h, -1

    def __getitem__(self, key):
        _, i = self._find(key)
        if i < 0:
            raise KeyError(key)
        return self._entries[i][2]

    def __setitem__(self, key, value):
        h, i = self._find(key)
        if i < 0:
            self._entries.append((h, key, value))
        else:
            self._entries[i] = (h, self._entries[i][1], value)

    def __delitem__(self, key):
        _, i = self._find(key)
        if i < 0:
            raise KeyError(key)
        del self._entries[i]

    def __contains__(self, key):
        return self._find(key)[1] >= 0

    def __len__(self):
        return len(self._entries)

    def __iter__(self):
        return iter(self.keys())

    def get(self, key, default=None):
        _, i = self._find(key)
        return default if i < 0 else self._entries[i][2]

    def keys(self):
        return [k for _, k, _ in self._entries]

    def values(self):
        return [v for _, _, v in self._entries]

    def items(self):
        return [(k, v) for _, k, v in self._entries]

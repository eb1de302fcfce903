"""Low-level types and their primitives, as helper code uses them.

rpy does not execute this file: a translated helper's `malloc`, `typeOf`
and `nullptr` are operations the annotator knows (passes/src/flow/rlib.rs
gives the names their meaning, passes/src/annotate/lowlevel.rs types them),
and types are constants it folds.  This pure-Python stand-in gives the same
names their meaning under CPython, so helper code can run untranslated.
"""


class LowLevelType(object):
    # Whether the type is a GcArray (a list that never changes length is
    # one); helpers branch on it, and the annotator folds the branch.
    _is_array = False

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return self._name


class Primitive(LowLevelType):
    def __init__(self, name, default):
        LowLevelType.__init__(self, name)
        self._default = default


Signed = Primitive('Signed', 0)
Unsigned = Primitive('Unsigned', 0)
Float = Primitive('Float', 0.0)
Bool = Primitive('Bool', False)
Char = Primitive('Char', '\x00')
Void = Primitive('Void', None)


class Ptr(LowLevelType):
    """A GC pointer to a container type, reachable as `.TO`."""

    def __init__(self, TO):
        LowLevelType.__init__(self, 'Ptr(%r)' % (TO,))
        self.TO = TO

    def __eq__(self, other):
        return isinstance(other, Ptr) and self.TO is other.TO

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return id(self.TO)


class GcStruct(LowLevelType):
    """A struct of named fields, the last of which may be an inline
    `Array(item)` (a varsized struct); a field's type is an attribute."""

    def __init__(self, name, *fields):
        LowLevelType.__init__(self, name)
        self._names = [n for n, _ in fields]
        self._arrayfld = None
        for n, t in fields:
            setattr(self, n, t)
            if isinstance(t, Array):
                self._arrayfld = n


class Array(LowLevelType):
    """The inline items of a varsized struct."""

    def __init__(self, OF):
        LowLevelType.__init__(self, 'Array(%r)' % (OF,))
        self.OF = OF


class GcArray(LowLevelType):
    """An array with a length, allocated with `malloc(T, n)`."""

    _is_array = True

    def __init__(self, OF):
        LowLevelType.__init__(self, 'GcArray(%r)' % (OF,))
        self.OF = OF


def _default(T):
    if isinstance(T, Primitive):
        return T._default
    return nullptr(T.TO)


class _ptr(object):
    """A pointer to a struct or array made by `malloc` (or a null one)."""

    def __init__(self, TYPE, fields, items):
        self.__dict__['_TYPE'] = TYPE
        self.__dict__['_fields'] = fields
        self.__dict__['_items'] = items

    def _check(self):
        if self._fields is None:
            raise RuntimeError('dereferencing a null pointer')

    def __getattr__(self, name):
        self._check()
        return self._fields[name]

    def __setattr__(self, name, value):
        self._check()
        if name not in self._fields:
            raise AttributeError(name)
        self._fields[name] = value

    def __len__(self):
        self._check()
        return len(self._items)

    def __getitem__(self, i):
        self._check()
        if not 0 <= i < len(self._items):
            raise RuntimeError('array index out of bounds')
        return self._items[i]

    def __setitem__(self, i, value):
        self._check()
        if not 0 <= i < len(self._items):
            raise RuntimeError('array index out of bounds')
        self._items[i] = value

    def __nonzero__(self):
        return self._fields is not None

    __bool__ = __nonzero__

    def __eq__(self, other):
        if other is None:
            return self._fields is None
        return isinstance(other, _ptr) and self._fields is other._fields and \
            self._items is other._items

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return id(self._fields)


def malloc(T, n=None):
    """A new zero-filled struct or array of type T (`n` items when T is
    varsized), as a pointer."""
    if isinstance(T, GcArray):
        return _ptr(Ptr(T), {}, [_default(T.OF) for _ in range(n)])
    fields = {}
    items = None
    for name in T._names:
        t = getattr(T, name)
        if isinstance(t, Array):
            items = [_default(t.OF) for _ in range(n)]
        else:
            fields[name] = _default(t)
    if T._arrayfld is not None:
        fields['length'] = n
    return _ptr(Ptr(T), fields, items)


def nullptr(T):
    """The null pointer of type Ptr(T)."""
    return _ptr(Ptr(T), None, None)


def typeOf(value):
    """The low-level type of a value."""
    if isinstance(value, _ptr):
        return value._TYPE
    if isinstance(value, bool):
        return Bool
    if isinstance(value, int):
        return Signed
    if isinstance(value, float):
        return Float
    if isinstance(value, str) and len(value) == 1:
        return Char
    raise TypeError('no low-level type for %r' % (value,))

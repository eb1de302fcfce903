"""`unrolling_iterable(items)`: a prebuilt sequence whose `for` loops the
translator unrolls, as the original does: the loop body is built once
per item, with the loop variable a constant of each copy (so a tuple of
an opcode and its function dispatches with no table at run time).  rpy's
flow builder recognizes instances of this class (`flow/unroll.rs`); under
CPython it is an ordinary iterable."""


class unrolling_iterable(object):
    def __init__(self, iterable):
        self._items = list(iterable)

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)

    def __add__(self, other):
        return unrolling_iterable(self._items + list(other))

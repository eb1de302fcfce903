# The enumeration and record type of the benchmark, imported with
# `from records import *` (no __all__: every public name is exported).

[Ident1, Ident2, Ident3, Ident4, Ident5] = range(1, 6)
TRUE = 1
FALSE = 0
ARRAY_SIZE = 51

_private_seed = 17      # not exported by import *


class Record(object):
    def __init__(self, ptr_comp=None, discr=0, enum_comp=0, int_comp=0,
                 string_comp=""):
        self.ptr_comp = ptr_comp
        self.discr = discr
        self.enum_comp = enum_comp
        self.int_comp = int_comp
        self.string_comp = string_comp

    def copy(self):
        return Record(self.ptr_comp, self.discr, self.enum_comp,
                      self.int_comp, self.string_comp)


def make_array2():
    rows = []
    for i in range(ARRAY_SIZE):
        rows.append([0] * ARRAY_SIZE)
    return rows


if __name__ == '__main__':
    never_exported = 1

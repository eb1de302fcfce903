# args: 2000
# A Dhrystone-style benchmark whose locals are assigned only on the paths
# the flow space follows: a variable set inside a loop whose test is known
# on entry, an enumeration local that is None until a branch sets it, and
# an inner loop with constant bounds that runs exactly once.
from records import *


class Globals(object):
    def __init__(self):
        self.int_glob = 0
        self.bool_glob = False
        self.char1_glob = '\0'
        self.char2_glob = '\0'
        self.array1 = [0] * ARRAY_SIZE
        self.array2 = make_array2()
        self.ptr_glb = None
        self.ptr_glb_next = None

g = Globals()


def func1(char_par1, char_par2):
    char_loc1 = char_par1
    char_loc2 = char_loc1
    if char_loc2 != char_par2:
        return Ident1
    return Ident2


def func2(str1, str2):
    # `char_loc` is assigned only inside the loop: the test `int_loc <= 1`
    # is true on entry and false once the branch that assigns it has run.
    int_loc = 1
    while int_loc <= 1:
        if func1(str1[int_loc], str2[int_loc + 1]) == Ident1:
            char_loc = 'A'
            int_loc = int_loc + 1
    if char_loc >= 'W' and char_loc <= 'Z':
        int_loc = 7
    if char_loc == 'X':
        return TRUE
    if str1 > str2:
        int_loc = int_loc + 7
        return TRUE
    return FALSE


def proc2(int_par):
    # `enum_loc` is None or Ident1 on each path, never a merged variable.
    int_loc = int_par + 10
    enum_loc = None
    while 1:
        if g.char1_glob == 'A':
            int_loc = int_loc - 1
            int_par = int_loc - g.int_glob
            enum_loc = Ident1
        if enum_loc == Ident1:
            break
    return int_par


def proc7(a, b):
    return b + a + 2


def proc8(array1, array2, int_par1, int_par2):
    int_loc = int_par1 + 5
    array1[int_loc] = int_par2
    array1[int_loc + 1] = array1[int_loc]
    array1[int_loc + 30] = int_loc
    for index in range(int_loc, int_loc + 2):
        array2[int_loc][index] = int_loc
    array2[int_loc][int_loc - 1] += 1
    array2[int_loc + 20][int_loc] = array1[int_loc]
    g.int_glob = 5


def proc1(rec):
    nxt = rec.ptr_comp
    nxt.int_comp = rec.int_comp + 5
    nxt.discr = rec.discr
    if nxt.discr == Ident1:
        nxt.int_comp = 6
        nxt.enum_comp = Ident3 if rec.enum_comp == Ident3 else Ident4
        nxt.ptr_comp = g.ptr_glb.ptr_comp
    else:
        rec.int_comp = nxt.int_comp
    return rec


def count_vowels(text):
    # A `continue` that skips the update, and a loop left by its test.
    i = -1
    count = 0
    while i < len(text) - 1:
        i += 1
        if text[i] not in 'aeiouAEIOU':
            continue
        count += 1
    else:
        count += 100
    return count


def parse_digits(words):
    # A `continue` from an `except` body goes back to the loop's test.
    k = 0
    total = 0
    while k < len(words):
        w = words[k]
        k += 1
        try:
            total += int(w)
        except ValueError:
            continue
        total += 1000
    return total


def run(loops):
    g.ptr_glb_next = Record()
    g.ptr_glb = Record(g.ptr_glb_next, Ident1, Ident3, 40,
                       "DHRYSTONE PROGRAM, SOME STRING")
    string1 = "DHRYSTONE PROGRAM, 1'ST STRING"
    g.array2[8][7] = 10
    enum_loc = None
    checksum = 0
    i = 0
    while i < loops:
        int_loc1 = 2
        int_loc2 = 3
        string2 = "DHRYSTONE PROGRAM, 2'ND STRING"
        enum_loc = Ident2
        g.bool_glob = not func2(string1, string2)
        # Runs once: `int_loc3` is assigned on the only path out.
        while int_loc1 < int_loc2:
            int_loc3 = 5 * int_loc1 - int_loc2
            int_loc3 = proc7(int_loc1, int_loc3)
            int_loc1 = int_loc1 + 1
        proc8(g.array1, g.array2, int_loc1, int_loc3)
        g.ptr_glb = proc1(g.ptr_glb)
        g.char1_glob = 'A'
        int_loc2 = proc2(int_loc1 + i % 7)
        checksum = (checksum * 31 + int_loc2 + int_loc3 + enum_loc) % 1000003
        i += 1
    return checksum


def entry_point(argv):
    loops = int(argv[1]) if len(argv) > 1 else 100
    print 'checksum', run(loops)
    print 'int_glob', g.int_glob, 'bool_glob', g.bool_glob
    print 'array1[8]', g.array1[8], 'array2[8][7]', g.array2[8][7]
    print 'vowels', count_vowels("Dhrystone benchmark, flow edition")
    print 'digits', parse_digits(["12", "x", "30", "4y", "5"])
    print 'func2', func2("abcd", "abcd"), func2("zbcd", "abxd")
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    import sys
    sys.exit(entry_point(sys.argv))

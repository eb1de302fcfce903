# A calculator with nested scopes: a tokenizer generator (listed with
# list()), variables in r_dicts whose names compare case-insensitively,
# lookups that may find nothing (isinstance of a value that may be None),
# registers made as [NIL] * n of the base class, and two frozen modes,
# one chosen at run time, whose attributes and method the loop reads.
# args: 6
import sys
from rpython.rlib.objectmodel import r_dict, compute_hash


class Value(object):
    def show(self):
        return "?"

    def number(self):
        return 0

    def touch(self, counter):
        return 0


class Nil(Value):
    def show(self):
        return "nil"


class IntValue(Value):
    def __init__(self, n):
        self.n = n

    def show(self):
        return str(self.n)

    def number(self):
        return self.n

    def touch(self, counter):
        counter.hits += 1
        return 1


class StrValue(Value):
    def __init__(self, s):
        self.s = s

    def show(self):
        return "'" + self.s + "'"

    def number(self):
        raise ValueError("not a number: " + self.s)


NIL = Nil()


class Counter(object):
    def __init__(self):
        self.hits = 0


def touched(value, counter):
    # A field read on both sides of a call through the vtable that the
    # override writes: the second read must see the write.
    before = counter.hits
    value.touch(counter)
    return counter.hits - before
# A comprehension at module level (in Python 2 its variable is a global).
DIGITS = [IntValue(k) for k in range(10)]


def same_name(a, b):
    return a.lower() == b.lower()


def name_hash(a):
    return compute_hash(a.lower())


class Scope(object):
    def __init__(self, parent):
        self.parent = parent
        self.names = r_dict(same_name, name_hash)

    def lookup(self, name):
        scope = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None


class Mode(object):
    def __init__(self, name, scale, wrap):
        self.name = name
        self.scale = scale
        self.wrap = wrap

    def _freeze_(self):
        return True

    def apply(self, n):
        n = n * self.scale
        if self.wrap > 0:
            n = n % self.wrap
        return n


PLAIN = Mode("plain", 1, 0)
CLOCK = Mode("clock", 1, 12)
DOUBLE = Mode("double", 2, 0)


def choose_mode(i):
    if i % 3 == 0:
        return PLAIN
    if i % 3 == 1:
        return CLOCK
    return DOUBLE


def tokens(text):
    i = 0
    while i < len(text):
        c = text[i]
        if c == " ":
            i += 1
            continue
        j = i
        while j < len(text) and text[j] != " ":
            j += 1
        yield text[i:j]
        i = j


def evaluate(words, scope, mode):
    total = 0
    for w in words:
        if w.isdigit():
            total += int(w)
            continue
        v = scope.lookup(w)
        if isinstance(v, IntValue):
            total += v.n
        elif isinstance(v, StrValue):
            total += len(v.s)
        elif v is None:
            total -= 1
    return mode.apply(total)


def entry_point(argv):
    n = int(argv[1])
    outer = Scope(None)
    outer.names["Width"] = IntValue(n)
    outer.names["label"] = StrValue("box")
    inner = Scope(outer)
    inner.names["HEIGHT"] = IntValue(n + 3)
    inner.names["width"] = IntValue(2)
    registers = [NIL] * 4
    programs = ["width height 7", "LABEL width", "missing 10 Height", "label label"]
    for i in range(len(programs)):
        words = list(tokens(programs[i]))
        mode = choose_mode(i + n)
        result = evaluate(words, inner, mode)
        registers[i % len(registers)] = IntValue(result)
        print mode.name + " " + str(len(words)) + " -> " + str(result)
    registers[3] = StrValue("end")
    line = ""
    for r in registers:
        line += r.show() + " "
    print line.strip()
    # A method a subclass overrides to raise, called through the vtable.
    total = 0
    for r in registers:
        try:
            total += r.number()
        except ValueError, e:
            print "skipped: " + str(e)
    counter = Counter()
    touches = 0
    for r in registers:
        touches += touched(r, counter)
    print "touches: " + str(touches)
    print "sum: " + str(total) + " digits: " + str(DIGITS[7].n)
    outer_only = evaluate(list(tokens("width label")), outer, PLAIN)
    print "outer: " + str(outer_only)
    found = inner.lookup("nothing")
    print "found: " + (found.show() if found is not None else "none")
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

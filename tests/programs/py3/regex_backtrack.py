# A backtracking regular-expression matcher over a pattern AST of linked
# node classes (each node's `next` may be None), character classes with
# ranges and negation, and a report that leans on str methods and
# %-formatting with widths, precision and %r.
# args: 3
import sys


class RegexError(Exception):
    def __init__(self, msg, pos):
        self.msg = msg
        self.pos = pos


class Node(object):
    next = None

    def match(self, s, i, counter):
        raise NotImplementedError

    def name(self):
        return "?"

    def chain(self):
        parts = []
        node = self
        while node is not None:
            parts.append(node.name())
            node = node.next
        return " ".join(parts)


class Char(Node):
    def __init__(self, c, next=None):
        self.c = c
        self.next = next

    def test(self, ch):
        return ch == self.c

    def name(self):
        return "%r" % self.c

    def match(self, s, i, counter):
        counter.steps += 1
        if i < len(s) and self.test(s[i]):
            return match_next(self.next, s, i + 1, counter)
        return -1


class Any(Char):
    def __init__(self):
        Char.__init__(self, ".")

    def test(self, ch):
        return ch != "\n"

    def name(self):
        return "ANY"


class CharClass(Char):
    def __init__(self, ranges, negated):
        Char.__init__(self, "[")
        self.ranges = ranges
        self.negated = negated

    def test(self, ch):
        found = False
        for lo, hi in self.ranges:
            if lo <= ch <= hi:
                found = True
                break
        return found != self.negated

    def name(self):
        parts = []
        for lo, hi in self.ranges:
            if lo == hi:
                parts.append(lo)
            else:
                parts.append("%s-%s" % (lo, hi))
        prefix = ""
        if self.negated:
            prefix = "^"
        return "[%s%s]" % (prefix, "".join(parts))


class Star(Node):
    def __init__(self, item, minimum):
        self.item = item
        self.minimum = minimum

    def name(self):
        return "(%s){%d,}" % (self.item.name(), self.minimum)

    def match(self, s, i, counter):
        # greedy: take as many as possible, then back off
        positions = [i]
        j = i
        while j < len(s) and self.item.test(s[j]):
            counter.steps += 1
            j += 1
            positions.append(j)
        k = len(positions) - 1
        while k >= self.minimum:
            r = match_next(self.next, s, positions[k], counter)
            if r >= 0:
                return r
            k -= 1
        return -1


class End(Node):
    def name(self):
        return "$"

    def match(self, s, i, counter):
        counter.steps += 1
        if i == len(s):
            return i
        return -1


class Counter(object):
    def __init__(self):
        self.steps = 0


def match_next(node, s, i, counter):
    if node is None:
        return i
    return node.match(s, i, counter)


def parse_class(pat, i):
    negated = False
    if i < len(pat) and pat[i] == "^":
        negated = True
        i += 1
    ranges = []
    while i < len(pat) and pat[i] != "]":
        lo = pat[i]
        if i + 2 < len(pat) and pat[i + 1] == "-" and pat[i + 2] != "]":
            ranges.append((lo, pat[i + 2]))
            i += 3
        else:
            ranges.append((lo, lo))
            i += 1
    if i >= len(pat):
        raise RegexError("unterminated class", i)
    return CharClass(ranges, negated), i + 1


SIMPLE_NODES = [(".", Any), ("$", End)]


def simple_node(c):
    for ch, cls in SIMPLE_NODES:
        if ch == c:
            return cls()
    raise RegexError("no node for " + c, 0)


def compile_pattern(pat):
    nodes = []
    i = 0
    while i < len(pat):
        c = pat[i]
        if c == "[":
            node, i = parse_class(pat, i + 1)
        elif c == "." or (c == "$" and i == len(pat) - 1):
            node = simple_node(c)
            i += 1
        elif c in "*+":
            if not nodes or not isinstance(nodes[-1], Char):
                raise RegexError("nothing to repeat", i)
            item = nodes.pop()
            assert isinstance(item, Char)
            minimum = 0
            if c == "+":
                minimum = 1
            node = Star(item, minimum)
            i += 1
        elif c == "\\" and i + 1 < len(pat):
            node = Char(pat[i + 1])
            i += 2
        else:
            node = Char(c)
            i += 1
        nodes.append(node)
    head = None
    for node in reversed(nodes):
        node.next = head
        head = node
    return head


def search(head, s, counter):
    start = 0
    while start <= len(s):
        end = match_next(head, s, start, counter)
        if end >= 0:
            return start, end
        start += 1
    return -1, -1


PATTERNS = "ab*c; [a-z]+[0-9]; x.y$; [^ ]+@[a-z.]+; \\*+; a[; *b; [0-9a-fA-F]+"
SUBJECTS = ("xabbbcx, hello42world, x-y, xyzzy x!y, mail bob@ex.org now, "
            "***, deadBEEF!, ac,   spaced  ")


def report(pattern, subjects, verbose):
    counter = Counter()
    try:
        head = compile_pattern(pattern)
    except RegexError as e:
        print("%-14s error: %s at %d" % (pattern, e.msg, e.pos))
        return 0
    print("%-14s = %s" % (pattern, head.chain() if head is not None else "<empty>"))
    hits = 0
    for subject in subjects:
        start, end = search(head, subject, counter)
        if start >= 0:
            hits += 1
            if verbose:
                print("   %5d..%-5d %r in %r" % (start, end, subject[start:end], subject))
    ratio = float(hits) / len(subjects)
    print("   hits %d/%d ratio %.3f steps %x" % (hits, len(subjects), ratio, counter.steps))
    return hits


def text_stats(subjects):
    joined = "|".join(subjects)
    print("joined %s" % joined)
    print("count of 'x': %d, of ', ': %d" % (joined.count("x"), joined.count(", ")))
    print("find '@' %d rfind 'x' %d find 'zz' %d" % (joined.find("@"), joined.rfind("x"), joined.find("zz", 20)))
    words = joined.replace("|", " ").split(" ")
    alnum = 0
    for w in words:
        if w and w.isalnum():
            alnum += 1
    print("words %d alnum %d first %s last %s" % (len(words), alnum, min(words), max(words)))
    for w in subjects:
        tag = ""
        if w.startswith("x"):
            tag += "S"
        if w.endswith("x"):
            tag += "E"
        if w.isspace() or w.strip() != w:
            tag += "W"
        print("  %-8s [%s] l=%r r=%r" % (tag, w.strip(), w.lstrip(), w.rstrip()))
    at = joined.find("@")
    head = joined[:at]
    tail = joined[at + 1:]
    parts = joined.rsplit("|", 2)
    print("rsplit tail: %s" % ",".join(parts[1:]))
    print("upper %s" % subjects[0].upper())
    return len(head) + len(tail)


def entry_point(argv):
    rounds = 3
    if len(argv) > 1:
        rounds = int(argv[1])
    subjects = [s.strip(" ") for s in SUBJECTS.split(", ")]
    subjects.append("   spaced  ")
    patterns = [p.strip() for p in PATTERNS.split(";")]
    total = 0
    for r in range(rounds):
        for p in patterns:
            total += report(p, subjects, r == 0)
    print("total hits %d" % total)
    text_stats(subjects)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

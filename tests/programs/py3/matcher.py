# A glob matcher (* ? [a-z] [!x]) and a small backtracking regex engine
# (literals, ., *, +, ?, ^, $, character classes) compiled to a list of
# node objects, run over a table of patterns and subjects.
# args: 2
import sys


class PatternError(Exception):
    def __init__(self, pattern, pos, msg):
        self.pattern = pattern
        self.pos = pos
        self.msg = msg


def class_end(pat, i):
    # i points after '['; returns the index of the closing ']'
    j = i
    if j < len(pat) and pat[j] == '!':
        j += 1
    if j < len(pat) and pat[j] == ']':
        j += 1
    while j < len(pat) and pat[j] != ']':
        j += 1
    if j >= len(pat):
        raise PatternError(pat, i - 1, "unterminated class")
    return j


def in_class(spec, c):
    negate = False
    if spec.startswith("!") or spec.startswith("^"):
        negate = True
        spec = spec[1:]
    found = False
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == '-':
            if spec[i] <= c <= spec[i + 2]:
                found = True
            i += 3
        else:
            if spec[i] == c:
                found = True
            i += 1
    return found != negate


def glob(pat, s):
    # iterative glob with one backtrack point for the last star
    p = 0
    i = 0
    star_p = -1
    star_i = 0
    while i < len(s):
        if p < len(pat) and pat[p] == '*':
            star_p = p
            star_i = i
            p += 1
            continue
        if p < len(pat):
            c = pat[p]
            if c == '[':
                end = class_end(pat, p + 1)
                if in_class(pat[p + 1:end], s[i]):
                    p = end + 1
                    i += 1
                    continue
            elif c == '?' or c == s[i]:
                p += 1
                i += 1
                continue
        if star_p < 0:
            return False
        star_i += 1
        i = star_i
        p = star_p + 1
    while p < len(pat) and pat[p] == '*':
        p += 1
    return p == len(pat)


class Node(object):
    repeat = ""

    def matches_char(self, c):
        return False

    def describe(self):
        return "?"


class Lit(Node):
    def __init__(self, ch):
        self.ch = ch

    def matches_char(self, c):
        return c == self.ch

    def describe(self):
        return "'%s'%s" % (self.ch, self.repeat)


class Any(Node):
    def matches_char(self, c):
        return True

    def describe(self):
        return "any" + self.repeat


class CharClass(Node):
    def __init__(self, spec):
        self.spec = spec

    def matches_char(self, c):
        return in_class(self.spec, c)

    def describe(self):
        return "[%s]%s" % (self.spec, self.repeat)


class Regex(object):
    def __init__(self, source):
        self.source = source
        self.anchored_start = source.startswith("^")
        self.anchored_end = source.endswith("$") and not source.endswith("\\$")
        self.nodes = self.compile()
        self.steps = 0

    def compile(self):
        src = self.source
        i = 1 if self.anchored_start else 0
        end = len(src) - 1 if self.anchored_end else len(src)
        nodes = []
        while i < end:
            c = src[i]
            if c in "*+?":
                if not nodes or nodes[-1].repeat != "":
                    raise PatternError(src, i, "nothing to repeat")
                nodes[-1].repeat = c
                i += 1
                continue
            if c == '.':
                nodes.append(Any())
            elif c == '[':
                close = class_end(src, i + 1)
                nodes.append(CharClass(src[i + 1:close]))
                i = close
            elif c == '\\':
                if i + 1 >= end:
                    raise PatternError(src, i, "trailing backslash")
                i += 1
                nodes.append(Lit(src[i]))
            else:
                nodes.append(Lit(c))
            i += 1
        return nodes

    def match_here(self, k, s, i):
        self.steps += 1
        if k == len(self.nodes):
            return i if (not self.anchored_end or i == len(s)) else -1
        node = self.nodes[k]
        if node.repeat == "":
            if i < len(s) and node.matches_char(s[i]):
                return self.match_here(k + 1, s, i + 1)
            return -1
        lo = 1 if node.repeat == "+" else 0
        j = i
        while j < len(s) and node.matches_char(s[j]) and (node.repeat != "?" or j - i < 1):
            j += 1
        while j - i >= lo:
            r = self.match_here(k + 1, s, j)
            if r >= 0:
                return r
            j -= 1
        return -1

    def search(self, s):
        starts = 1 if self.anchored_start else len(s) + 1
        for start in range(starts):
            end = self.match_here(0, s, start)
            if end >= 0:
                return (start, end)
        return (-1, -1)


GLOBS = ["*.py", "test_?.py", "[a-c]*", "*[!0-9]", "a*b*c", "**x", "[abc", "*"]
FILES = ["main.py", "test_1.py", "test_10.py", "abc", "bxc", "readme", "a9", "", "axbyc"]
REGEXES = ["ab*c", "^a.c$", "[0-9]+", "colou?r", "^$", "x+y+z", "*a", "a\\", "[a-", "\\.py$"]
SUBJECTS = ["abbbc", "ac", "abc", "year 2024!", "color colour", "", "xxyyz xz", "file.py"]


def entry_point(argv):
    rounds = 1
    if len(argv) > 1:
        rounds = int(argv[1])
    hits = 0
    for r in range(rounds):
        for g in GLOBS:
            row = []
            try:
                for f in FILES:
                    if glob(g, f):
                        row.append(f if f else "''")
                        hits += 1
            except PatternError as e:
                row = ["error: %s at %d" % (e.msg, e.pos)]
            if r == 0:
                print("glob %-10s %s" % (g, " ".join(row)))
    print("glob hits over %d rounds: %d" % (rounds, hits))
    total_steps = 0
    for src in REGEXES:
        try:
            rx = Regex(src)
        except PatternError as e:
            print("regex %-8s error at %d: %s" % (src, e.pos, e.msg))
            continue
        results = []
        for s in SUBJECTS:
            a, b = rx.search(s)
            if a >= 0:
                results.append("%s[%d:%d]='%s'" % (s, a, b, s[a:b]))
        total_steps += rx.steps
        shape = ",".join([n.describe() for n in rx.nodes])
        print("regex %-8s %s -> %s" % (src, shape, "; ".join(results)))
    print("regex steps: %d" % total_steps)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

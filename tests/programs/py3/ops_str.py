# Every operation on strings and chars: repetition, comparisons, truth,
# ord/chr, the conversions from and to strings, and a variable that is a char
# on one path and a string on another.
# args: pear peach 3 -2.5 42
import sys


def truth_str(v):
    # v is not known to be a bool when the graph is built: 'if v' tests it.
    if v:
        return 1
    return 0


def repeat(s, t, n):
    e = s * 0
    print("repeat", s * n, n * s, s * -n, "ab" * n, "-" * n, n * "=", t * (n > 0))
    print("empty", "[" + e + "]", len(e), len(s * n))
    c = s[0]
    print("char repeat", c * n, n * c, c * (n < 0))
    # Strings are immutable: once is the string itself, no copy.
    once = abs(n) - 2
    print("repeat once is itself", s * once is s, once * t is t)


def compare(s, t):
    print("str cmp", s < t, s <= t, s == t, s != t, s > t, s >= t)
    print("str cmp self", s < s, s <= s, s == s, s != s, s > s, s >= s)
    print("str cmp const", s == "pear", s != "pear", s < "pea", s > "zz", s >= "", "" < t)
    c = s[0]
    d = t[0]
    e = s[3]
    f = t[3]
    print("char cmp", c == d, c != d, c < d, c <= d, c > d, c >= d)
    print("char cmp2", e == f, e != f, e < f, e <= f, e > f, e >= f)
    print("char const", c == "p", e != "r", e < "s", f > "b", "a" <= e, f >= "c")
    print("char str", c == s, c != s, c < s, s > c, c == "pp"[0], c + e == "pr")


def truth(s, t):
    e = s * 0
    c = t[0]
    print("str truth", truth_str(s), truth_str(e), truth_str(c), truth_str(t))
    print("str bool", bool(s), bool(e), bool(c), not s, not e, not c)
    if s and not e:
        print("s is not empty, e is")


def convert(s, n, x, k):
    c = s[0]
    print("ord chr", ord(c), ord(s[3]), chr(ord(c) + 1), chr(n + 64), chr(ord(s[1]) - 32))
    print("str()", str(c) + str(s) + str(s[2]) + str(n) + str(x))
    print("int()", int(k) + 1, int(" -17 ") * 2, int(str(n) + "0"), int("+5"))
    print("float()", float(str(n)), float(" 2.5 ") + x, float("-0.125"), float("1e3"), float(k))
    print("len", len(s), len(c), len(str(x)), len(str(n * 1000)))
    print(c)
    print(s[-1])


def unions(s, t, n):
    w = s[0] if n > 0 else t
    v = s if n > 0 else t[1]
    print("char or str", w, v, w + v, len(w), len(v))
    z = ""
    for i in range(n):
        z = z + s[i]
    print("grown", z)


def entry_point(argv):
    s = argv[1]
    t = argv[2]
    n = int(argv[3])
    x = float(argv[4])
    repeat(s, t, n)
    repeat(t, s, -n)
    compare(s, t)
    compare(t, s)
    compare(s, s)
    truth(s, t)
    convert(s, n, x, argv[5])
    convert(t, n + 1, -x, argv[3])
    unions(s, t, n)
    unions(t, s, n - n)
    return len(s)


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

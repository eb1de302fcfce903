# Text utilities a user might write: word wrapping with full justification,
# run-length encoding, roman numerals, a Caesar cipher, word statistics
# sorted by count, an indenting writer used with `with`, and transactions
# as context managers that roll back when an exception leaves them (with
# return, break and continue inside, and the last exception kept in a
# variable that starts as None). A user trial.
# args: 30
import sys

TEXT = ("RPython is a restricted subset of Python that is amenable to static "
        "analysis. Although there are additions to the language and some "
        "things might surprisingly work, this is a rough list of restrictions "
        "that should be considered. Note that there are tons of special cased "
        "restrictions that you will encounter as you go. The exact definition "
        "is all code that can be annotated and compiled.")


class Writer(object):
    def __init__(self):
        self.lines = []
        self.depth = 0

    def write(self, text):
        self.lines.append("  " * self.depth + text)

    def indented(self):
        return Indent(self)

    def text(self):
        return "\n".join(self.lines)


class Indent(object):
    def __init__(self, writer):
        self.writer = writer

    def __enter__(self):
        self.writer.depth += 1
        return self.writer

    def __exit__(self, typ, value, tb):
        self.writer.depth -= 1


class Overdrawn(Exception):
    def __init__(self, amount):
        self.amount = amount


class Transaction(object):
    """Commits when its block completes (or returns, breaks, continues),
    rolls back when an exception leaves it; never swallows it."""

    def __init__(self, log, accounts):
        self.log = log
        self.accounts = accounts
        self.saved = {}

    def __enter__(self):
        for k, v in self.accounts.items():
            self.saved[k] = v
        return self

    def move(self, src, dst, amount):
        self.accounts[src] = self.accounts[src] - amount
        if self.accounts[src] < 0:
            raise Overdrawn(-self.accounts[src])
        self.accounts[dst] = self.accounts.get(dst, 0) + amount

    def __exit__(self, typ, value, tb):
        if value is None:
            self.log.append("commit")
        else:
            for k, v in self.saved.items():
                self.accounts[k] = v
            self.log.append("rollback")


def first_big_account(log, accounts, limit):
    for name in ["ann", "bob", "cy"]:
        with Transaction(log, accounts) as t:
            if accounts.get(name, 0) > limit:
                return name
            if name == "bob":
                continue
            t.move(name, "fees", 1)
    return "none"


def transfers(log, accounts, plan):
    done = 0
    last_error = None
    for src, dst, amount in plan:
        try:
            with Transaction(log, accounts) as t:
                t.move(src, dst, amount)
                if amount == 0:
                    break
            done += 1
        except Overdrawn as e:
            log.append("overdrawn by %d" % e.amount)
            last_error = e
    if last_error is not None:
        log.append("last error: %d short" % last_error.amount)
    return done


def justify(words, width):
    if len(words) == 1:
        return words[0]
    total = 0
    for w in words:
        total += len(w)
    gaps = len(words) - 1
    spaces = width - total
    each, extra = divmod(spaces, gaps)
    parts = []
    for i in range(gaps):
        parts.append(words[i])
        parts.append(" " * (each + (1 if i < extra else 0)))
    parts.append(words[-1])
    return "".join(parts)


def wrap(text, width):
    lines = []
    current = []
    length = 0
    for word in text.split():
        if current and length + 1 + len(word) > width:
            lines.append(justify(current, width))
            current = []
            length = 0
        if current:
            length += 1
        current.append(word)
        length += len(word)
    if current:
        lines.append(" ".join(current))
    return lines


def run_length(s):
    out = []
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        if j - i > 1:
            out.append("%d%s" % (j - i, s[i]))
        else:
            out.append(s[i])
        i = j
    return "".join(out)


def unrun_length(s):
    out = []
    count = 0
    for ch in s:
        if ch.isdigit():
            count = count * 10 + (ord(ch) - ord('0'))
        else:
            out.append(ch * max(count, 1))
            count = 0
    return "".join(out)


ROMAN = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"),
         (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"),
         (4, "IV"), (1, "I")]


def to_roman(n):
    if n <= 0 or n >= 4000:
        raise ValueError("out of range")
    out = ""
    for value, digits in ROMAN:
        while n >= value:
            out += digits
            n -= value
    return out


def from_roman(s):
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
    total = 0
    for i in range(len(s)):
        v = values[s[i]]
        if i + 1 < len(s) and values[s[i + 1]] > v:
            total -= v
        else:
            total += v
    return total


def caesar(s, shift):
    out = []
    for ch in s:
        if 'a' <= ch <= 'z':
            out.append(chr((ord(ch) - ord('a') + shift) % 26 + ord('a')))
        elif 'A' <= ch <= 'Z':
            out.append(chr((ord(ch) - ord('A') + shift) % 26 + ord('A')))
        else:
            out.append(ch)
    return "".join(out)


class WordCount(object):
    def __init__(self, word, count):
        self.word = word
        self.count = count


def before(a, b):
    if a.count != b.count:
        return a.count > b.count
    if len(a.word) != len(b.word):
        return len(a.word) > len(b.word)
    return a.word < b.word


def word_stats(text):
    counts = {}
    for raw in text.split():
        word = raw.strip(".,").lower()
        counts[word] = counts.get(word, 0) + 1
    best = []
    for k, n in counts.items():
        best.append(WordCount(k, n))
    # an insertion sort by count, longest words first on ties, then by word
    for i in range(1, len(best)):
        item = best[i]
        j = i - 1
        while j >= 0 and before(item, best[j]):
            best[j + 1] = best[j]
            j -= 1
        best[j + 1] = item
    return best


def main(argv):
    width = int(argv[1]) if len(argv) > 1 else 30
    w = Writer()
    w.write("wrapped to %d:" % width)
    with w.indented():
        for line in wrap(TEXT, width):
            w.write("|" + line + "|")
    w.write("run lengths:")
    with w.indented() as inner:
        for s in ["aaabccddddde", "xyz", "zzzzzzzzzzzz"]:
            packed = run_length(s)
            inner.write("%s -> %s -> %s" % (s, packed, unrun_length(packed)))
    w.write("roman:")
    with w.indented():
        for n in [1, 4, 9, 14, 40, 90, 400, 1994, 2024, 3999, width * 7]:
            r = to_roman(n)
            w.write("%4d %-12s %d" % (n, r, from_roman(r)))
        try:
            to_roman(0)
        except ValueError as e:
            w.write("0: " + str(e))
    secret = caesar("Attack at Dawn, Zebra!", width % 26)
    w.write("caesar: " + secret + " / " + caesar(secret, 26 - width % 26))
    w.write("top words:")
    with w.indented():
        stats = word_stats(TEXT)
        for wc in stats[:8]:
            w.write("%-12s %s" % (wc.word, "#" * wc.count))
    log = []
    accounts = {"ann": 50, "bob": 10 + width, "cy": 5}
    plan = [("ann", "bob", 20), ("cy", "ann", 9), ("bob", "cy", width), ("ann", "cy", 0),
            ("cy", "bob", 1)]
    w.write("transfers done: %d" % transfers(log, accounts, plan))
    w.write("big: " + first_big_account(log, accounts, 33))
    w.write("log: " + ", ".join(log))
    names = list(accounts.keys())
    for i in range(len(names)):
        w.write("  %s %d" % (names[i], accounts[names[i]]))
    print(w.text())
    return 0


def entry_point(argv):
    return main(argv)


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

# -*- coding: utf-8 -*-
# The Python 2 twin of py3/accented_words.py: the same word tool, where a
# str is bytes and the text is its UTF-8 encoding, as CPython 2 reads the
# source. So the str methods know ASCII only: "é" is two bytes that are
# neither letters nor upper case, upper() leaves them as they are, split()
# and strip() cut at ASCII whitespace only, "\xa0" included in words, and
# repr() escapes every byte above 0x7e.
# args: 3 café ÉTÉ Straße naïve
import os

TEXT = """Le café de l'été: crème brûlée, thé glacé et oeufs?
Ça coûte 12\xa0EUR -- non, 12\xa0francs. À Noël, Élodie a mangé du pâté.
Die Straße ist groß; Müller und Bäcker grüßen. ÜBER ALLES, sagt Jürgen!
naïve façade, déjà vu, fiancée, résumé, Zoë, Ångström, Øre, ÆSIR.
x² + y² = z²\x85 ½ + ¼ = ¾\x85fin\xa0\xa0"""

# Chars above U+00FF ("œ", "€") are not str chars in rpy (a literal with
# one is an error that names it), so the text keeps to Latin-1.


class WordCount(object):
    def __init__(self):
        self.counts = {}
        self.order = []

    def add(self, word):
        if word in self.counts:
            self.counts[word] += 1
        else:
            self.counts[word] = 1
            self.order.append(word)

    def top(self, n):
        words = []
        for w in self.order:
            words.append(w)
        # insertion sort by count (descending), then by the word
        i = 1
        while i < len(words):
            j = i
            while j > 0 and self.before(words[j], words[j - 1]):
                tmp = words[j]
                words[j] = words[j - 1]
                words[j - 1] = tmp
                j -= 1
            i += 1
        return words[:n]

    def before(self, a, b):
        ca = self.counts[a]
        cb = self.counts[b]
        if ca != cb:
            return ca > cb
        return a < b


def words_of(line):
    """The words of `line`: runs of letters, digits and apostrophes."""
    out = []
    cur = ""
    for c in line:
        if c.isalnum() or c == "'":
            cur += c
        elif cur:
            out.append(cur)
            cur = ""
    if cur:
        out.append(cur)
    return out


def title(word):
    if not word:
        return word
    return word[0].upper() + word[1:].lower()


def shape(word):
    """A class per char: U upper, l lower, d digit, s space, . other."""
    out = ""
    for c in word:
        if c.isupper():
            out += "U"
        elif c.islower():
            out += "l"
        elif c.isdigit():
            out += "d"
        elif c.isspace():
            out += "s"
        else:
            out += "."
    return out


def pad(s, width):
    while len(s) < width:
        s += " "
    return s


def entry_point(argv):
    rounds = int(argv[1])
    text = TEXT
    lines = text.split("\n")
    print "lines", len(lines), "chars", len(text)
    counter = WordCount()
    for line in lines:
        for w in words_of(line.lower()):
            counter.add(w)
    for w in counter.top(8):
        print pad(repr(w), 12), counter.counts[w], w.upper(), title(w)
    print "fields", text.split()
    print "stripped", repr(lines[-1].strip()), repr("\xa0 ab\x85".strip())
    for line in lines:
        print line.upper()
        print line.lower()
    print repr(lines[1])
    print repr("soft\xadhyphen"), repr("tab\there"), repr("l'été"), \
          repr('"é"'), repr("\x80\x9f\xa0\xa1\xff")
    print ["café", "naïve", "\xa0"], ("Zoë", "ß")
    table = {}
    keys = []   # in the text's order (a Python 2 dict has none)
    for w in words_of(text):
        if not w.isdigit() and w not in table:
            table[w] = shape(w)
            keys.append(w)
    n = 0
    for w in keys:
        if n % 9 == 0:
            print "%-14r %s %s %s %s" % (w, table[w], w.isalpha(),
                                        w.isupper(), w.islower())
        n += 1
    for c in "aZ\xe9\xc9\xdf\xaa\xba\xb2\xb9\xbd\xd7\xf7\xa0\x85\x1c ":
        print repr(c), c.isalpha(), c.isalnum(), c.isdigit(), c.isspace(), \
              c.isupper(), c.islower(), repr(c.upper()), repr(c.lower())
    print "ß".upper(), "Straße".upper(), len("groß".upper()), \
          "ÀÉÎÕÜÝÞ".lower(), "àéîõüýþ".upper()
    acc = ""
    for i in range(rounds):
        acc += title(counter.order[i * 5]) + "·"
    print acc, len(acc), acc.isupper(), acc.lower().islower()
    for w in argv[2:]:
        print repr(w), len(w), w.lower() in counter.counts, title(w), \
            w.isalpha(), w.upper()
    report = "%d words, %d distinct\n" % (len(words_of(text)), len(counter.order))
    os.write(1, b"report: ")
    os.write(1, b"%d words, %d distinct\n" % (len(words_of(text)),
                                             len(counter.order)))
    print report.strip()
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    import sys
    sys.exit(entry_point(sys.argv))

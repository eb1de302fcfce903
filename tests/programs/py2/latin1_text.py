# -*- coding: utf-8 -*-
# A Latin-1 text tool: a str is bytes, so "\xe9" is the one byte 0xe9 in
# every stage and in the executable's output. It folds accented letters to
# ASCII through a table (a dict keyed by one-byte strings), upper-cases
# Latin-1 by arithmetic, counts bytes above 0x7f, dumps lines in hex, and
# checks that a literal written in the UTF-8 source ("é") is the two bytes
# of its UTF-8 encoding, as CPython 2 keeps it.
# args: 3
import os

FOLD = {"\xe0": "a", "\xe1": "a", "\xe2": "a", "\xe4": "ae", "\xe7": "c",
        "\xe8": "e", "\xe9": "e", "\xea": "e", "\xeb": "e", "\xee": "i",
        "\xef": "i", "\xf4": "o", "\xf6": "oe", "\xf9": "u", "\xfb": "u",
        "\xfc": "ue", "\xdf": "ss", "\xc9": "E", "\xc0": "A", "\xd6": "OE"}

TEXT = ("Caf\xe9 cr\xe8me br\xfbl\xe9e \xe0 la fran\xe7aise\r\n"
        "M\xfcller \xfcbt Stra\xdfe und \xd6l\n"
        "na\xefve \xc9lo\xefse \xf4 \xc0 bient\xf4t\n"
        "\xa4\xa3\xa9 \xbd\xbc \xb1 \xff\xfe\x80\x81")

UTF8_LITERAL = "é"
SIGN = chr(0xa7) + chr(0xb6)      # built at import time
BULLETS = "\xb7".join(["one", "two", "three"])


class Entry(object):
    def __init__(self, word, note):
        self.word = word
        self.note = note

# Prebuilt instances holding non-ASCII strings.
ENTRIES = [Entry("\xe9t\xe9", "summer"), Entry("hiver", "winter"),
           Entry("no\xebl", "christmas")]


def fold(s):
    out = []
    for c in s:
        if c in FOLD:
            out.append(FOLD[c])
        elif ord(c) >= 0x80:
            out.append("?")
        else:
            out.append(c)
    return "".join(out)


def upper_latin1(s):
    out = []
    for c in s:
        o = ord(c)
        if (0xe0 <= o <= 0xfe and o != 0xf7) or ord("a") <= o <= ord("z"):
            out.append(chr(o - 32))
        else:
            out.append(c)
    return "".join(out)


def classify(c):
    # A chain of comparisons with one-byte constants above 0x7f.
    if c == "\xe9":
        return "e-acute"
    elif c == "\xdf":
        return "sharp-s"
    elif c == "\xff":
        return "y-diaeresis"
    elif c == "\x80":
        return "0x80"
    elif c < "\x80":
        return "ascii"
    return "latin"


def hexline(s):
    parts = []
    for c in s:
        parts.append("%02x" % ord(c))
    return " ".join(parts)


def entry_point(argv):
    rounds = int(argv[1])
    lines = TEXT.splitlines()
    high = 0
    for c in TEXT:
        if ord(c) > 0x7f:
            high += 1
    print "lines", len(lines), "bytes", len(TEXT), "high", high
    for line in lines:
        print fold(line)
        print upper_latin1(line)
        os.write(1, line + "\n")
    print hexline(lines[3])
    print len(UTF8_LITERAL), hexline(UTF8_LITERAL), UTF8_LITERAL
    print len(SIGN), hexline(SIGN), SIGN
    print BULLETS, len(BULLETS), BULLETS.split("\xb7")
    print repr("\xe9t\xe9"), repr(TEXT[-4:]), "\xe9" < "\xea", "\xff" > "z"
    print "%s=%d (%s)" % ("\xbd", 0xbd, "\xb0C")
    counts = {}
    for c in TEXT:
        kind = classify(c)
        counts[kind] = counts.get(kind, 0) + 1
    for kind in ["e-acute", "sharp-s", "y-diaeresis", "0x80", "latin", "ascii"]:
        print kind, counts.get(kind, 0)
    for e in ENTRIES:
        print e.word, len(e.word), e.note, fold(e.word)
    acc = 0
    word = ""
    for i in range(rounds):
        word = word + chr(0xe0 + i) + "\xe9"
        acc = acc * 31 + ord(word[-2])
    print word, len(word), acc, word.find("\xe9"), word.count("\xe9")
    print word.replace("\xe9", "e"), word.upper(), "\xc9T\xc9".lower()
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    import sys
    entry_point(sys.argv)

# String slicing and searching as a tokenizer does it: slices with both,
# one or no bounds (negative ones too, and past either end), `in` of a
# substring and of a char, comparisons of the slices.
# args: let x = 42 + y; print(x)
import sys

OPERATORS = "+-*/=();"


def tokenize(line):
    tokens = ""
    count = 0
    start = 0
    i = 0
    while i <= len(line):
        at_end = i == len(line)
        if at_end or line[i] == " " or line[i] in OPERATORS:
            if i > start:
                word = line[start:i]
                tokens = tokens + "[" + word + "]"
                count += 1
            if not at_end and line[i] in OPERATORS:
                tokens = tokens + "<" + line[i:i + 1] + ">"
                count += 1
            start = i + 1
        i += 1
    return tokens + " " + str(count)


def ends(text):
    print(text[:3] + "|" + text[-3:] + "|" + text[2:-2] + "|" + text[:] + "|")
    print(text[-100:2] + "|" + text[5:100] + "|" + text[4:1] + "|" + text[:-100] + "|")
    if "print" in text:
        print("has print")
    if "while" in text:
        print("has while")
    if text[:3] == "let":
        print("a let")
    if text[1:] > text:
        print("rest sorts after")


def slice_matches(text, words):
    # Slices used only by one comparison (the rtyper compares them in
    # place): bounds negative, past either end, crossed; empty words, the
    # whole text, the word on either side of `==`.
    found = 0
    for w in words:
        for a in range(-len(text) - 2, len(text) + 3):
            if text[a:a + len(w)] == w:
                found += 1
            if w != text[a:len(text) - 1]:
                found += 3
            if text[a:a - 1] == w:
                found += 7
            if text[a:] == w:
                found += 11
            if w == text[:a]:
                found += 13
    return found


def entry_point(argv):
    line = ""
    i = 1
    while i < len(argv):
        if i > 1:
            line = line + " "
        line = line + argv[i]
        i += 1
    print(tokenize(line))
    ends(line)
    words = ["", "x", line, line[1:3], line + "!", line[:len(line) - 1]]
    print("slice matches: " + str(slice_matches(line, words)))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

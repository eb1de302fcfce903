# Benchmark: string building and slicing. Builds a DNA-like text of N
# letters (N from the command line) from a generator of pseudo-random
# numbers, then, for a few rounds: run-length encodes it and decodes it
# back, cuts it into lines of a fixed width by slicing, counts a pattern
# in every window, and rotates the text by slices, with a checksum of
# each step's result.
import sys

LETTERS = "ACGT"


def make_text(n, seed):
    parts = []
    for i in range(n):
        seed = (seed * 1103515245 + 12345) % 2147483648
        k = (seed >> 8) % 7
        # Runs: a letter repeated 1 to 3 times now and then.
        letter = LETTERS[k % 4]
        if k >= 5:
            letter = letter + letter
        parts.append(letter)
    return "".join(parts)


def checksum(s):
    h = 0
    for c in s:
        h = (h * 31 + ord(c)) % 1000000007
    return h


def encode(s):
    out = []
    i = 0
    n = len(s)
    while i < n:
        j = i + 1
        while j < n and s[j] == s[i]:
            j += 1
        out.append(str(j - i))
        out.append(s[i])
        i = j
    return "".join(out)


def decode(s):
    out = []
    count = 0
    for c in s:
        if "0" <= c <= "9":
            count = count * 10 + (ord(c) - ord("0"))
        else:
            out.append(c * count)
            count = 0
    return "".join(out)


def wrap(s, width):
    lines = []
    i = 0
    while i < len(s):
        lines.append(s[i:i + width])
        i += width
    return "\n".join(lines)


def count_windows(s, pattern):
    k = len(pattern)
    found = 0
    for i in range(len(s) - k + 1):
        if s[i:i + k] == pattern:
            found += 1
    return found


def rotate(s, k):
    k = k % len(s)
    return s[k:] + s[:k]


def entry_point(argv):
    n = int(argv[1])
    text = make_text(n, 42)
    print("text: %d letters, checksum %d" % (len(text), checksum(text)))
    for r in range(4):
        packed = encode(text)
        back = decode(packed)
        if back != text:
            print("round %d: decode differs" % r)
            return 1
        wrapped = wrap(text, 60 + r)
        hits = count_windows(text, LETTERS[r] + "GA" + LETTERS[3 - r])
        text = rotate(text, 1000 + 7 * r)
        print("round %d: packed %d (%d) wrapped %d (%d) hits %d rotated %d" % (
            r, len(packed), checksum(packed), len(wrapped), checksum(wrapped),
            hits, checksum(text)))
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

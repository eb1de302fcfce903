# Benchmark: strings and a dict. Builds a text of N pseudo-random words
# made of syllables (N from the command line), splits it, counts the words
# in a dict, and reports the distinct words, the most frequent one (the
# first inserted among equals) and a checksum of the counts.
import sys

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "shi", "po", "ve", "zu", "an", "o"]


def make_text(n):
    words = []
    seed = 7
    for i in range(n):
        seed = (seed * 1103515245 + 12345) % 2147483648
        a = (seed >> 8) % 12
        seed = (seed * 1103515245 + 12345) % 2147483648
        b = (seed >> 8) % 12
        word = SYLLABLES[a] + SYLLABLES[b]
        if (seed >> 4) % 4 == 0:
            seed = (seed * 1103515245 + 12345) % 2147483648
            word = word + SYLLABLES[(seed >> 8) % 12]
        words.append(word)
    return " ".join(words)


def count_words(text):
    counts = {}
    for word in text.split(" "):
        if word in counts:
            counts[word] = counts[word] + 1
        else:
            counts[word] = 1
    return counts


def entry_point(argv):
    n = int(argv[1])
    text = make_text(n)
    counts = count_words(text)
    best = ""
    best_count = 0
    check = 0
    for word in counts:
        c = counts[word]
        check = (check * 131 + c * len(word)) % 1000000007
        if c > best_count:
            best = word
            best_count = c
    print("words " + str(n) + " distinct " + str(len(counts)) + " most " + best + " " +
          str(best_count) + " check " + str(check) + " length " + str(len(text)))
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

# Text statistics: words split out of a text with str methods, counted in
# dicts, ranked with a hand-written sort, bigrams as "a b" keys, and a
# report with %-formatting, enumerate and zip.
# args: 8
import sys

TEXT = """It was the best of times, it was the worst of times, it was the age of
wisdom, it was the age of foolishness, it was the epoch of belief, it was the
epoch of incredulity, it was the season of Light, it was the season of
Darkness, it was the spring of hope, it was the winter of despair, we had
everything before us, we had nothing before us, we were all going direct to
Heaven, we were all going direct the other way -- in short, the period was so
far like the present period, that some of its noisiest authorities insisted on
its being received, for good or for evil, in the superlative degree of
comparison only. There were 2 kings and 2 queens; in 1775 the year was old."""

STOPWORDS = ["the", "of", "it", "was", "a", "in", "to", "and", "or", "for", "on"]


def clean(word):
    word = word.lower()
    start = 0
    end = len(word)
    while start < end and not word[start].isalpha() and not word[start].isdigit():
        start += 1
    while end > start and not word[end - 1].isalpha() and not word[end - 1].isdigit():
        end -= 1
    return word[start:end]


def words_of(text):
    result = []
    for line in text.split("\n"):
        for raw in line.split(" "):
            w = clean(raw)
            if w:
                result.append(w)
    return result


class Counter(object):
    def __init__(self):
        self.counts = {}
        self.total = 0

    def add(self, key):
        self.counts[key] = self.counts.get(key, 0) + 1
        self.total += 1

    def ranked(self):
        pairs = []
        for key, n in self.counts.items():
            pairs.append((n, key))
        # insertion sort: most frequent first, then alphabetical
        for i in range(1, len(pairs)):
            item = pairs[i]
            j = i - 1
            while j >= 0 and (pairs[j][0] < item[0] or
                              (pairs[j][0] == item[0] and pairs[j][1] > item[1])):
                pairs[j + 1] = pairs[j]
                j -= 1
            pairs[j + 1] = item
        return pairs


def sentence_lengths(text):
    lengths = []
    current = 0
    for w in text.replace("\n", " ").split(" "):
        if not w:
            continue
        current += 1
        if w.endswith(".") or w.endswith(";"):
            lengths.append(current)
            current = 0
    if current:
        lengths.append(current)
    return lengths


def histogram(counter, top):
    ranked = counter.ranked()
    if not ranked:
        return
    widest = ranked[0][0]
    for i, pair in enumerate(ranked[:top]):
        n, word = pair
        bar = "*" * (n * 30 // widest)
        share = 100.0 * n / counter.total
        print("%2d. %-12s %3d %5.1f%% %s" % (i + 1, word, n, share, bar))


def entry_point(argv):
    top = 5
    if len(argv) > 1:
        try:
            top = int(argv[1])
        except ValueError:
            print("usage: wordfreq [TOP]")
            return 2
    words = words_of(TEXT)
    all_words = Counter()
    content = Counter()
    letters = Counter()
    bigrams = Counter()
    stop = {}
    for s in STOPWORDS:
        stop[s] = None
    numbers = []
    for w in words:
        all_words.add(w)
        if w not in stop:
            content.add(w)
        for c in w:
            if c.isalpha():
                letters.add(c)
        if w.isdigit():
            numbers.append(int(w))
    for a, b in zip(words[:-1], words[1:]):
        bigrams.add(a + " " + b)
    print("words: %d, distinct: %d, content words: %d" % (
        all_words.total, len(all_words.counts), content.total))
    total_len = 0
    longest = ""
    for w in words:
        total_len += len(w)
        if len(w) > len(longest):
            longest = w
    print("average length %.3f, longest '%s'" % (float(total_len) / len(words), longest))
    print("-- top words")
    histogram(all_words, top)
    print("-- top content words")
    histogram(content, top)
    print("-- top bigrams")
    histogram(bigrams, top // 2)
    lengths = sentence_lengths(TEXT)
    print("sentences: %d, words per sentence: %s" % (
        len(lengths), ", ".join([str(n) for n in lengths])))
    vowels = 0
    for v in "aeiou":
        vowels += letters.counts.get(v, 0)
    print("letters %d, vowels %d (%.2f%%)" % (letters.total, vowels,
                                             vowels * 100.0 / letters.total))
    missing = [c for c in "abcdefghijklmnopqrstuvwxyz" if c not in letters.counts]
    print("unused letters: %s" % "".join(missing))
    print("numbers %s sum %d" % (" ".join(["%d" % n for n in numbers]), sum_list(numbers)))
    print("first 'season' at word %d, 'zebra' at %d" % (index_of(words, "season"),
                                                        index_of(words, "zebra")))
    print("upper: %s" % TEXT[:22].upper().replace(" ", "_"))
    print("count of 'it was': %d" % TEXT.lower().count("it was"))
    return 0


def sum_list(items):
    total = 0
    for x in items:
        total += x
    return total


def index_of(words, w):
    try:
        return words.index(w)
    except ValueError:
        return -1


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

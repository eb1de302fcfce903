# Lists that never change length next to lists that do: a small image
# filter pipeline with fixed-size rows, a palette table, a ring buffer and
# a history that grows.
# args: 14

PALETTE = [" ", ".", ":", "-", "=", "+", "*", "#", "%", "@"]
KERNEL = [1, 2, 1, 2, 4, 2, 1, 2, 1]


class Image(object):
    def __init__(self, width, height, fill):
        self.width = width
        self.height = height
        self.rows = [[fill] * width for _ in range(height)]

    def get(self, x, y):
        if x < 0 or y < 0 or x >= self.width or y >= self.height:
            return 0
        return self.rows[y][x]

    def put(self, x, y, v):
        self.rows[y][x] = v

    def blur(self):
        out = Image(self.width, self.height, 0)
        for y in range(self.height):
            for x in range(self.width):
                total = 0
                k = 0
                for dy in (-1, 0, 1):
                    for dx in (-1, 0, 1):
                        total += self.get(x + dx, y + dy) * KERNEL[k]
                        k += 1
                out.put(x, y, total // 16)
        return out

    def render(self):
        lines = []
        for row in self.rows:
            chars = len(row) * [" "]
            for i in range(len(row)):
                level = row[i] * (len(PALETTE) - 1) // 255
                chars[i] = PALETTE[min(level, len(PALETTE) - 1)]
            lines.append("".join(chars))
        return "\n".join(lines)


class Ring(object):
    """A fixed number of slots, overwritten in turn."""

    def __init__(self, size):
        self.slots = [0.0] * size
        self.next = 0
        self.count = 0

    def push(self, v):
        self.slots[self.next] = v
        self.next = (self.next + 1) % len(self.slots)
        if self.count < len(self.slots):
            self.count += 1

    def mean(self):
        if self.count == 0:
            return 0.0
        s = 0.0
        for i in range(self.count):
            s += self.slots[i]
        return s / self.count


def histogram(img, buckets):
    counts = [0] * buckets
    for row in img.rows:
        for v in row:
            counts[v * buckets // 256] += 1
    return counts


def summarize(counts, label):
    head = counts[:3]
    tail = counts[-2:]
    both = head + tail
    grown = list(head)
    grown.extend(tail)
    grown.append(sum_of(both))
    return "%s: head=%s tail=%s both=%s grown=%s max=%d min=%d" % (
        label, head, tail, both, grown, max(counts), min(counts))


def sum_of(xs):
    s = 0
    for x in xs:
        s += x
    return s


def maybe_weights(n):
    if n > 3:
        return [n] * n
    return None


def entry_point(argv):
    size = 12
    if len(argv) > 1:
        size = int(argv[1])
    img = Image(size, size // 2, 0)
    for i in range(size // 2):
        img.put(i * 2 % size, i, 255)
        img.put(size - 1 - i, i, 200)
    history = []
    ring = Ring(4)
    for step in range(3):
        img = img.blur()
        counts = histogram(img, 5)
        history.append(counts)
        ring.push(float(sum_of(counts[1:])))
        print summarize(counts, "step %d" % step)
    print img.render()
    print "ring mean %.3f, slots %s" % (ring.mean(), ring.slots)
    first = history[0]
    print "first == last: %s; 0 in first: %s; index of max: %d" % (
        first == history[-1], 0 in first, first.index(max(first)))
    rev = list(first)
    rev.reverse()
    for i, c in enumerate(rev):
        print "bucket", i, c
    for c in reversed(first):
        print "count", c
    pairs = zip(PALETTE, KERNEL)
    print len(pairs), pairs[0][0] + "|" + pairs[-1][0]
    w = maybe_weights(size // 3)
    if w:
        print "weights", w, w.count(size // 3)
    if not maybe_weights(2):
        print "no weights"
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    import sys
    entry_point(sys.argv)

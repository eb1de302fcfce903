# A Huffman coder over a hand-written binary heap of tree nodes (ties
# broken by insertion order), with an encode/decode round trip, and a
# backtracking sudoku solver over a flat list of 81 cells; ValueError and
# IndexError raised by the program and caught by it.
# args: 3
import os


class Node(object):
    def __init__(self, weight, symbol, left, right):
        self.weight = weight
        self.symbol = symbol
        self.left = left
        self.right = right

    def is_leaf(self):
        return self.left is None and self.right is None


class MinHeap(object):
    """A binary heap of nodes ordered by (weight, order of insertion)."""

    def __init__(self):
        self.items = []
        self.orders = []
        self.counter = 0

    def _less(self, i, j):
        a = self.items[i]
        b = self.items[j]
        if a.weight != b.weight:
            return a.weight < b.weight
        return self.orders[i] < self.orders[j]

    def _swap(self, i, j):
        self.items[i], self.items[j] = self.items[j], self.items[i]
        self.orders[i], self.orders[j] = self.orders[j], self.orders[i]

    def push(self, node):
        self.items.append(node)
        self.orders.append(self.counter)
        self.counter += 1
        i = len(self.items) - 1
        while i > 0:
            parent = (i - 1) // 2
            if self._less(i, parent):
                self._swap(i, parent)
                i = parent
            else:
                break

    def pop(self):
        if not self.items:
            raise IndexError("pop from an empty heap")
        top = self.items[0]
        last = len(self.items) - 1
        self._swap(0, last)
        self.items.pop()
        self.orders.pop()
        i = 0
        n = len(self.items)
        while True:
            left = 2 * i + 1
            right = left + 1
            smallest = i
            if left < n and self._less(left, smallest):
                smallest = left
            if right < n and self._less(right, smallest):
                smallest = right
            if smallest == i:
                break
            self._swap(i, smallest)
            i = smallest
        return top

    def __len__(self):
        return len(self.items)


def sorted_chars(chars):
    out = []
    for ch in chars:
        i = len(out)
        out.append(ch)
        while i > 0 and out[i - 1] > ch:
            out[i] = out[i - 1]
            i -= 1
        out[i] = ch
    return out


def build_tree(text):
    counts = {}
    for ch in text:
        counts[ch] = counts.get(ch, 0) + 1
    heap = MinHeap()
    symbols = sorted_chars(counts.keys())
    for ch in symbols:
        heap.push(Node(counts[ch], ch, None, None))
    if len(heap) == 1:
        only = heap.pop()
        return Node(only.weight, "", only, None)
    while len(heap) > 1:
        a = heap.pop()
        b = heap.pop()
        heap.push(Node(a.weight + b.weight, "", a, b))
    return heap.pop()


def assign_codes(node, prefix, codes):
    if node is None:
        return
    if node.is_leaf():
        codes[node.symbol] = prefix if prefix else "0"
        return
    assign_codes(node.left, prefix + "0", codes)
    assign_codes(node.right, prefix + "1", codes)


def encode(text, codes):
    parts = []
    for ch in text:
        parts.append(codes[ch])
    return "".join(parts)


def decode(bits, root):
    out = []
    node = root
    for b in bits:
        node = node.left if b == "0" else node.right
        if node.is_leaf():
            out.append(node.symbol)
            node = root
    return "".join(out)


# ---- sudoku by backtracking over a flat list of 81 cells

def parse_grid(line):
    cells = []
    for ch in line:
        if ch == ".":
            cells.append(0)
        elif "1" <= ch <= "9":
            cells.append(ord(ch) - ord("0"))
    if len(cells) != 81:
        raise ValueError("a grid needs 81 cells, got %d" % len(cells))
    return cells


def allowed(cells, pos, digit):
    row = pos // 9
    col = pos % 9
    for k in range(9):
        if cells[row * 9 + k] == digit or cells[k * 9 + col] == digit:
            return False
    box = (row // 3) * 27 + (col // 3) * 3
    for r in range(3):
        for c in range(3):
            if cells[box + r * 9 + c] == digit:
                return False
    return True


class Solver(object):
    def __init__(self, cells):
        self.cells = cells
        self.tries = 0

    def solve(self):
        try:
            pos = self.cells.index(0)
        except ValueError:
            return True
        for digit in range(1, 10):
            self.tries += 1
            if allowed(self.cells, pos, digit):
                self.cells[pos] = digit
                if self.solve():
                    return True
                self.cells[pos] = 0
        return False


def show(cells):
    lines = []
    for r in range(9):
        row = [str(d) for d in cells[r * 9:r * 9 + 9]]
        lines.append(" ".join(row[0:3]) + " | " + " ".join(row[3:6]) + " | " + " ".join(row[6:9]))
        if r % 3 == 2 and r < 8:
            lines.append("------+-------+------")
    return "\n".join(lines)


PUZZLE = ("53..7...." "6..195..." ".98....6." "8...6...3" "4..8.3..1"
          "7...2...6" ".6....28." "...419..5" "....8..79")


def entry_point(argv):
    rounds = 1
    if len(argv) > 1:
        try:
            rounds = int(argv[1])
        except ValueError:
            print("not a number: " + argv[1])
            return 1
    text = "abracadabra alakazam " * rounds
    root = build_tree(text)
    codes = {}
    assign_codes(root, "", codes)
    keys = sorted_chars(codes.keys())
    for k in keys:
        print("%s -> %s" % ("space" if k == " " else k, codes[k]))
    bits = encode(text, codes)
    print("%d chars in %d bits" % (len(text), len(bits)))
    back = decode(bits, root)
    print("round trip ok" if back == text else "round trip FAILED")
    total = 0
    cells = parse_grid(PUZZLE)
    for i in range(rounds):
        cells = parse_grid(PUZZLE)
        s = Solver(cells)
        if not s.solve():
            print("no solution")
            return 2
        total += s.tries
    print(show(cells))
    print("tries per solve: %d" % (total // rounds))
    try:
        parse_grid("123")
    except ValueError as e:
        print("bad grid: " + str(e))
    h = MinHeap()
    try:
        h.pop()
    except IndexError:
        print("empty heap refused")
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    import sys
    entry_point(sys.argv)

# An allocation-heavy workload, written as RPython programs that stress a
# garbage collector are: binary trees built and dropped around one that
# lives long (the benchmarks game's binary-trees), a small stack machine
# that allocates a frame per call, a ring of doubly linked nodes (cycles),
# a prebuilt registry whose slots are pointed at new objects again and
# again, and dicts of strings built and dropped.
# args: 8 25
import sys


class TreeNode(object):
    def __init__(self, left, right):
        self.left = left
        self.right = right


def make_tree(depth):
    if depth == 0:
        return TreeNode(None, None)
    return TreeNode(make_tree(depth - 1), make_tree(depth - 1))


def check_tree(node):
    if node.left is None:
        return 1
    return 1 + check_tree(node.left) + check_tree(node.right)


def binary_trees(max_depth):
    min_depth = 4
    if max_depth < min_depth + 2:
        max_depth = min_depth + 2
    stretch = make_tree(max_depth + 1)
    print("stretch tree of depth %d check: %d" % (max_depth + 1, check_tree(stretch)))
    long_lived = make_tree(max_depth)
    depth = min_depth
    while depth <= max_depth:
        iterations = 1 << (max_depth - depth + min_depth)
        check = 0
        i = 0
        while i < iterations:
            check += check_tree(make_tree(depth))
            i += 1
        print("%d trees of depth %d check: %d" % (iterations, depth, check))
        depth += 2
    print("long lived tree of depth %d check: %d" % (max_depth, check_tree(long_lived)))


# A stack machine whose calls each allocate a frame with its own operand
# stack and locals: the frames die as soon as the call returns.
PUSH, LOAD, ADD, SUB, LT, JUMP_IF_FALSE, CALL, RET = 0, 1, 2, 3, 4, 5, 6, 7


class Frame(object):
    def __init__(self, parent, nlocals):
        self.parent = parent
        self.stack = []
        self.locals = [0] * nlocals

    def push(self, value):
        self.stack.append(value)

    def pop(self):
        return self.stack.pop()


# fib(n): if n < 2: return n; return fib(n - 1) + fib(n - 2)
FIB = [
    LOAD, 0, PUSH, 2, LT, JUMP_IF_FALSE, 9,
    LOAD, 0, RET,
    LOAD, 0, PUSH, 1, SUB, CALL,
    LOAD, 0, PUSH, 2, SUB, CALL,
    ADD, RET,
]


def run_function(code, arg, parent):
    frame = Frame(parent, 1)
    frame.locals[0] = arg
    pc = 0
    while True:
        op = code[pc]
        if op == PUSH:
            frame.push(code[pc + 1])
            pc += 2
        elif op == LOAD:
            frame.push(frame.locals[code[pc + 1]])
            pc += 2
        elif op == ADD:
            b = frame.pop()
            frame.push(frame.pop() + b)
            pc += 1
        elif op == SUB:
            b = frame.pop()
            frame.push(frame.pop() - b)
            pc += 1
        elif op == LT:
            b = frame.pop()
            frame.push(1 if frame.pop() < b else 0)
            pc += 1
        elif op == JUMP_IF_FALSE:
            if frame.pop() == 0:
                pc = code[pc + 1] + 1
            else:
                pc += 2
        elif op == CALL:
            frame.push(run_function(code, frame.pop(), frame))
            pc += 1
        else:
            return frame.pop()


class RingNode(object):
    def __init__(self, value):
        self.value = value
        self.prev = self
        self.next = self

    def insert_after(self, node):
        node.prev = self
        node.next = self.next
        self.next.prev = node
        self.next = node


def ring_sum(n):
    head = RingNode(0)
    i = 1
    while i <= n:
        head.insert_after(RingNode(i))
        i += 1
    total = 0
    node = head.next
    while node is not head:
        total += node.value * (1 if node.next.prev is node else 0)
        node = node.next
    return total


class Entry(object):
    def __init__(self, name, count):
        self.name = name
        self.count = count


# Built at import time: a static the collector never moves, written with
# pointers to new objects all through the run.
def make_registry(size):
    return [Entry("seed%d" % i, i) for i in range(size)]


REGISTRY = make_registry(8)


def churn_registry(rounds):
    total = 0
    r = 0
    while r < rounds:
        slot = (r * 5) % len(REGISTRY)
        old = REGISTRY[slot]
        REGISTRY[slot] = Entry(old.name[:4] + str(r), old.count + r)
        total += len(REGISTRY[slot].name)
        r += 1
    return total


def word_counts(rounds):
    last = 0
    r = 0
    while r < rounds:
        counts = {}
        i = 0
        while i < 200:
            word = "w" + str((i * 7 + r) % 37)
            counts[word] = counts.get(word, 0) + 1
            i += 1
        last = len(counts) + counts["w0"]
        r += 1
    return last


def main(argv):
    depth = int(argv[1]) if len(argv) > 1 else 8
    rounds = int(argv[2]) if len(argv) > 2 else 25
    binary_trees(depth)
    fib_n = min(rounds // 2, 22)
    print("fib(%d) on the stack machine: %d" % (fib_n, run_function(FIB, fib_n, None)))
    print("ring of %d: %d" % (rounds * 40, ring_sum(rounds * 40)))
    print("registry churn: %d" % churn_registry(rounds * 100))
    print("registry: %s" % " ".join([e.name + ":" + str(e.count) for e in REGISTRY]))
    print("word counts: %d" % word_counts(rounds * 4))
    return 0


def entry_point(argv):
    return main(argv)


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(main(sys.argv))

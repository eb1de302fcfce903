# Tables computed at import time with map, filter, lambda and dict(), as
# the original's own programs build them (rpystone's copied rows, a dict of
# hex spellings), then used by translated code: a small register machine
# whose instructions and their costs are such tables, and a lambda kept in
# a table and called at run time.
# args: 40
import sys

ROW = [0] * 8
# Each row a copy: the rows do not share their items.
GRID = map(lambda row: row[:], [ROW] * 8)

HEX_NAMES = dict(map(lambda x: (x, hex(x)), range(250, 270)))
SQUARES = dict([(i, i * i) for i in range(10)])
EVENS = filter(lambda x: x % 2 == 0, range(20))
TRUTHY = filter(None, [0, 1, 0, 5, 3, 0])
COPY = dict(SQUARES)
EMPTY = dict()

SCALE = 3
# A default evaluated when the lambda is made, and a global read when it runs.
SCALED = map(lambda x, k=2: x * k * SCALE, [1, 2, 3])

OPCODES = ["load", "add", "mul", "jump_if_less", "print", "halt"]
OPCODE_NUMBERS = dict(map(lambda pair: (pair[1], pair[0]), enumerate(OPCODES)))
# A Python 2 tuple parameter unpacks each (name, number) pair.
NAMES_BY_NUMBER = dict(map(lambda (name, number): (number, name), OPCODE_NUMBERS.items()))
COSTS = dict(zip(OPCODES, map(lambda name: len(name) % 4 + 1, OPCODES)))

# Functions in a table, called by translated code.
STEPS = [lambda x: x + 1, lambda x: x * 2, lambda x: x - 3]


def assemble(lines):
    code = []
    for line in lines:
        words = line.split(" ")
        code.append(OPCODE_NUMBERS[words[0]])
        if len(words) > 1:
            code.append(int(words[1]))
        else:
            code.append(0)
    return code


PROGRAM = assemble([
    "load 1",
    "mul 3",
    "add 1",
    "print",
    "jump_if_less 1",
    "halt",
])


def run(code, limit):
    acc = 0
    pc = 0
    cost = 0
    printed = 0
    while True:
        op = code[pc]
        arg = code[pc + 1]
        cost += COSTS[OPCODES[op]]
        pc += 2
        if op == OPCODE_NUMBERS["load"]:
            acc = arg
        elif op == OPCODE_NUMBERS["add"]:
            acc = acc + arg
        elif op == OPCODE_NUMBERS["mul"]:
            acc = acc * arg
        elif op == OPCODE_NUMBERS["print"]:
            print "acc", acc, HEX_NAMES.get(acc % 20 + 250, "?")
            printed += 1
        elif op == OPCODE_NUMBERS["jump_if_less"]:
            if acc < limit:
                pc = arg * 2
        elif op == OPCODE_NUMBERS["halt"]:
            break
    return cost * 1000 + printed


def entry_point(argv):
    limit = 40
    if len(argv) > 1:
        limit = int(argv[1])
    GRID[2][3] = 7
    total = 0
    for row in GRID:
        for x in row:
            total += x
    print "grid", total, GRID[0][3], GRID[2][3]
    print "hex", HEX_NAMES[255], HEX_NAMES[256], len(HEX_NAMES)
    print "squares", SQUARES[7], len(COPY), len(EMPTY)
    print "evens", len(EVENS), EVENS[3], len(TRUTHY)
    print "scaled", SCALED[0], SCALED[1], SCALED[2]
    value = limit
    for i in range(len(STEPS)):
        value = STEPS[i](value)
    print "steps", value, NAMES_BY_NUMBER[2], NAMES_BY_NUMBER[5]
    cost = run(PROGRAM, limit)
    print "run", cost
    return 0


def target(*args):
    return entry_point


if __name__ == "__main__":
    entry_point(sys.argv)

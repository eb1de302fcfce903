# A small register machine with a JitDriver, for the JIT's property test:
# tests/jit.rs generates random structured programs (nested counted loops,
# forward branches, boxed values on a list), runs them with the JIT at a low
# threshold and without, and requires the same output.
#
# The program comes as argv[1]: instructions "op a b" separated by ";".
#   0 a b  SET    r[a] = b
#   1 a b  ADD    r[a] = (r[a] + r[b]) & 0xffffff
#   2 a b  SUB    r[a] = r[a] - r[b]
#   3 a b  MUL    r[a] = (r[a] * b) % 1000003
#   4 a b  LOOP   if r[a] > 0: r[a] -= 1 and go back to instruction b
#   5 a b  SKIP   if r[a] < r[b]: skip the next instruction
#   6 a b  BOX    push a Box holding r[a] on the list of boxes
#   7 a b  UNBOX  r[a] += the value of the last box (if any), popped when b
#   8 a b  PRINT  print r[a]
#   9 a b  CALL   r[a] = helper(r[a], r[b])
#  10 a b  DIV    r[a] = r[a] // r[b]; a zero divisor raises VMError, and
#                 r[a] becomes its code
from rpython.rlib.jit import JitDriver

driver = JitDriver(greens=["pc", "code"], reds=["regs", "boxes"])


class VMError(Exception):
    def __init__(self, code):
        self.code = code


def divide(x, y):
    if y == 0:
        raise VMError(-7)
    return x // y


class Box(object):
    def __init__(self, value):
        self.value = value


class Instruction(object):
    def __init__(self, op, a, b):
        self.op = op
        self.a = a
        self.b = b


class Code(object):
    def __init__(self, instructions):
        self.instructions = instructions


def helper(x, y):
    if x > y:
        return x - y
    return (x * 3 + y) & 0xffff


def parse(text):
    instructions = []
    for part in text.split(";"):
        fields = part.strip().split(" ")
        if len(fields) != 3:
            continue
        instructions.append(Instruction(int(fields[0]), int(fields[1]), int(fields[2])))
    return Code(instructions)


def run(code, regs):
    pc = 0
    boxes = []
    while pc < len(code.instructions):
        driver.jit_merge_point(pc=pc, code=code, regs=regs, boxes=boxes)
        ins = code.instructions[pc]
        op = ins.op
        a = ins.a
        b = ins.b
        pc += 1
        if op == 0:
            regs[a] = b
        elif op == 1:
            regs[a] = (regs[a] + regs[b]) & 0xffffff
        elif op == 2:
            regs[a] = regs[a] - regs[b]
        elif op == 3:
            regs[a] = (regs[a] * b) % 1000003
        elif op == 4:
            if regs[a] > 0:
                regs[a] -= 1
                pc = b
                driver.can_enter_jit(pc=pc, code=code, regs=regs, boxes=boxes)
        elif op == 5:
            if regs[a] < regs[b]:
                pc += 1
        elif op == 6:
            boxes.append(Box(regs[a]))
        elif op == 7:
            if len(boxes) > 0:
                regs[a] += boxes[len(boxes) - 1].value
                if b != 0:
                    boxes.pop()
        elif op == 8:
            print(regs[a])
        elif op == 9:
            regs[a] = helper(regs[a], regs[b])
        elif op == 10:
            try:
                regs[a] = divide(regs[a], regs[b])
            except VMError as e:
                regs[a] = e.code
    return len(boxes)


def entry_point(argv):
    if len(argv) < 2:
        print("usage: random_vm PROGRAM")
        return 2
    code = parse(argv[1])
    regs = [0] * 8
    left = run(code, regs)
    line = ""
    for r in regs:
        line += str(r) + " "
    print(line + "boxes " + str(left))
    return 0


def target(*args):
    return entry_point

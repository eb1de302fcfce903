# A stack machine over floats with functions: each function is a string
# of one-letter instructions, interpreted by a portal that calls itself
# for CALL (so the JIT sees a recursive interpreter), with a dict of
# global variables, a frame object per call, a division that raises and
# is caught by the caller, and methods of small value classes reached
# through their base class. The code string and the program counter are
# green; the frame is red.
# args: 300
import math
from rpython.rlib.jit import JitDriver

driver = JitDriver(greens=["pc", "code"], reds=["frame"])


class VMError(Exception):
    def __init__(self, message):
        self.message = message


class Value(object):
    def num(self):
        raise VMError("not a number")

    def describe(self):
        return "value"


class Num(Value):
    def __init__(self, x):
        self.x = x

    def num(self):
        return self.x

    def describe(self):
        return "num %s" % formatted(self.x)


class Missing(Value):
    def describe(self):
        return "missing"


MISSING = Missing()


def formatted(x):
    # Two decimals, as CPython's "%.2f" writes them.
    return "%.2f" % x


class Frame(object):
    def __init__(self, arg, depth):
        self.stack = [0.0] * 16
        self.sp = 0
        self.arg = arg
        self.depth = depth
        self.calls = 0
        # Where an instruction could leave a mark; none does yet (a list
        # of None holds nothing: its items are Void).
        self.marks = [None] * 4

    def push(self, x):
        self.stack[self.sp] = x
        self.sp += 1

    def pop(self):
        self.sp -= 1
        return self.stack[self.sp]


FUNCTIONS = {}
GLOBALS = {}


def lookup(name):
    return GLOBALS.get(name, MISSING)


def interpret(code, arg, depth):
    frame = Frame(arg, depth)
    pc = 0
    while pc < len(code):
        driver.jit_merge_point(pc=pc, code=code, frame=frame)
        op = code[pc]
        pc += 1
        if op == "a":
            frame.push(frame.arg)
        elif op.isdigit():
            frame.push(float(ord(op) - ord("0")))
        elif op == "+":
            y = frame.pop()
            frame.push(frame.pop() + y)
        elif op == "-":
            y = frame.pop()
            frame.push(frame.pop() - y)
        elif op == "*":
            y = frame.pop()
            frame.push(frame.pop() * y)
        elif op == "/":
            y = frame.pop()
            x = frame.pop()
            if y == 0.0:
                raise VMError("division by zero at %d" % pc)
            frame.push(x / y)
        elif op == "q":
            frame.push(math.sqrt(abs(frame.pop())))
        elif op == "s":
            GLOBALS[code[pc]] = Num(frame.pop())
            pc += 1
        elif op == "g":
            try:
                frame.push(lookup(code[pc]).num())
            except VMError:
                frame.push(-1.0)
            pc += 1
        elif op == "c":
            callee = FUNCTIONS[code[pc]]
            pc += 1
            frame.calls += 1
            try:
                frame.push(interpret(callee, frame.pop(), frame.depth + 1))
            except VMError, e:
                GLOBALS["e"] = Num(float(len(e.message)))
                frame.push(0.0)
        elif op == "j":
            # Jump back to the instruction the digit's value plus one
            # before the j while the top of the stack is positive (the top
            # is kept).
            back = ord(code[pc]) - ord("0")
            pc += 1
            if frame.stack[frame.sp - 1] > 0.0:
                pc -= back + 3
                driver.can_enter_jit(pc=pc, code=code, frame=frame)
        elif op == "d":
            x = frame.pop()
            frame.push(x)
            frame.push(x)
        elif op == "p":
            frame.pop()
            frame.marks[frame.sp % 4] = None
        else:
            raise VMError("unknown instruction %s" % op)
    if frame.sp == 0:
        return 0.0
    return frame.pop()


def run(n):
    # f(a): a * a / 2 + 1; g(a): counts a down in a loop, summing squares
    # of the remaining count into global t; h(a): divides by (a - 3);
    # m(a) adds the square root of g(f(a)) to h(a), or to 0 when h raised.
    FUNCTIONS["f"] = "aa*2/1+"
    FUNCTIONS["g"] = "0stadd*gt+st1-j9pgt"
    FUNCTIONS["h"] = "1a3-/"
    FUNCTIONS["m"] = "acfcgqach+"
    total = 0.0
    for i in range(n):
        x = float(i % 17)
        total += interpret(FUNCTIONS["m"], x, 0)
        total += interpret(FUNCTIONS["h"], float(i % 7), 0) if i % 7 != 3 else 0.0
    print "total " + formatted(total)
    print lookup("t").describe()
    print lookup("e").describe()
    print lookup("z").describe()
    try:
        interpret(FUNCTIONS["h"], 3.0, 0)
    except VMError, e:
        print "error: " + e.message
    try:
        interpret("a?", 1.0, 0)
    except VMError, e:
        print "error: " + e.message
    return 0


def entry_point(argv):
    n = 100
    if len(argv) > 1:
        n = int(argv[1])
    return run(n)


def target(*args):
    return entry_point


if __name__ == "__main__":
    import sys

    sys.exit(entry_point(sys.argv))

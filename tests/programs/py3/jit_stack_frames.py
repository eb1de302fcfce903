# A stack-based bytecode language with a frame object per call, boxed
# values (instances of a small class hierarchy, as an object space has)
# and a call instruction that runs the callee's code in a new frame by
# calling the interpreter again. The JitDriver's greens are the code
# object and the pc; the frame is red.
# args: 15
import sys
from rpython.rlib.jit import JitDriver

driver = JitDriver(greens=["pc", "code"], reds=["frame"])

PUSH = 0        # push consts[arg]
LOAD = 1        # push locals[arg]
STORE = 2       # locals[arg] = pop
ADD = 3
SUB = 4
MUL = 5
LT = 6          # push 1 if a < b else 0
JUMP = 7        # pc = arg
JUMP_IF_FALSE = 8
CALL = 9        # call functions[arg] with its nargs arguments
RETURN = 10
DIV = 11        # integer division; raises DivisionByZero
PRINT = 12      # print pop


class W_Object(object):
    def add(self, other):
        raise TypeMismatch("add")

    def is_true(self):
        return True

    def text(self):
        return "?"


class W_Int(W_Object):
    def __init__(self, value):
        self.value = value

    def add(self, other):
        if isinstance(other, W_Int):
            return W_Int(self.value + other.value)
        raise TypeMismatch("add")

    def is_true(self):
        return self.value != 0

    def text(self):
        return str(self.value)


class W_Str(W_Object):
    def __init__(self, value):
        self.value = value

    def add(self, other):
        if isinstance(other, W_Str):
            return W_Str(self.value + other.value)
        return W_Str(self.value + other.text())

    def text(self):
        return self.value


class TypeMismatch(Exception):
    def __init__(self, what):
        self.what = what


class DivisionByZero(Exception):
    pass


class Code(object):
    # A code object never changes once built, nor do its lists: the JIT
    # reads them once, when it traces, as the original's does.
    _immutable_fields_ = ["name", "nargs", "nlocals", "ops[*]", "consts[*]"]

    def __init__(self, name, nargs, nlocals, ops, consts):
        self.name = name
        self.nargs = nargs
        self.nlocals = nlocals
        self.ops = ops
        self.consts = consts


# What a local holds before it is stored into (a value, not None, so that
# every value is known to be an object).
UNSET = W_Object()


class Frame(object):
    def __init__(self, code):
        self.locals = [UNSET] * code.nlocals
        self.stack = []

    def push(self, w):
        self.stack.append(w)

    def pop(self):
        return self.stack.pop()


def int_of(w):
    if isinstance(w, W_Int):
        return w.value
    raise TypeMismatch("int")


FUNCTIONS = []


def interpret(code, frame):
    pc = 0
    while True:
        driver.jit_merge_point(pc=pc, code=code, frame=frame)
        op = code.ops[pc]
        arg = code.ops[pc + 1]
        pc += 2
        if op == PUSH:
            frame.push(code.consts[arg])
        elif op == LOAD:
            frame.push(frame.locals[arg])
        elif op == STORE:
            frame.locals[arg] = frame.pop()
        elif op == ADD:
            b = frame.pop()
            a = frame.pop()
            frame.push(a.add(b))
        elif op == SUB:
            b = int_of(frame.pop())
            a = int_of(frame.pop())
            frame.push(W_Int(a - b))
        elif op == MUL:
            b = int_of(frame.pop())
            a = int_of(frame.pop())
            frame.push(W_Int(a * b))
        elif op == DIV:
            b = int_of(frame.pop())
            a = int_of(frame.pop())
            if b == 0:
                raise DivisionByZero()
            frame.push(W_Int(a // b))
        elif op == LT:
            b = int_of(frame.pop())
            a = int_of(frame.pop())
            frame.push(W_Int(1 if a < b else 0))
        elif op == JUMP:
            if arg < pc:
                driver.can_enter_jit(pc=arg, code=code, frame=frame)
            pc = arg
        elif op == JUMP_IF_FALSE:
            if not frame.pop().is_true():
                pc = arg
        elif op == CALL:
            callee = FUNCTIONS[arg]
            new_frame = Frame(callee)
            i = callee.nargs - 1
            while i >= 0:
                new_frame.locals[i] = frame.pop()
                i -= 1
            frame.push(interpret(callee, new_frame))
        elif op == RETURN:
            return frame.pop()
        elif op == PRINT:
            print(frame.pop().text())


# fib(n): if n < 2: return n; return fib(n - 1) + fib(n - 2)
FIB = Code("fib", 1, 1, [
    LOAD, 0, PUSH, 0, LT, 0, JUMP_IF_FALSE, 12,
    LOAD, 0, RETURN, 0,
    LOAD, 0, PUSH, 1, SUB, 0, CALL, 0,
    LOAD, 0, PUSH, 0, SUB, 0, CALL, 0,
    ADD, 0, RETURN, 0,
], [W_Int(2), W_Int(1)])

# sum_squares(n): total = 0; i = 0; while i < n: total = total + i * i; i = i + 1
SUM_SQUARES = Code("sum_squares", 1, 3, [
    PUSH, 0, STORE, 1, PUSH, 0, STORE, 2,
    # loop (pc 8)
    LOAD, 2, LOAD, 0, LT, 0, JUMP_IF_FALSE, 38,
    LOAD, 1, LOAD, 2, LOAD, 2, MUL, 0, ADD, 0, STORE, 1,
    LOAD, 2, PUSH, 1, ADD, 0, STORE, 2,
    JUMP, 8,
    # done (pc 38)
    LOAD, 1, RETURN, 0,
], [W_Int(0), W_Int(1)])

# halvings(n): prints "n=" + n, then counts the divisions of 1000000 by n
# until it is 0 (DIV raises on zero).
HALVINGS = Code("halvings", 1, 3, [
    PUSH, 2, LOAD, 0, ADD, 0, PRINT, 0,
    PUSH, 3, STORE, 1, PUSH, 0, STORE, 2,
    # loop (pc 16)
    LOAD, 1, JUMP_IF_FALSE, 38,
    LOAD, 1, LOAD, 0, DIV, 0, STORE, 1,
    LOAD, 2, PUSH, 1, ADD, 0, STORE, 2,
    JUMP, 16,
    # done (pc 38)
    LOAD, 2, RETURN, 0,
], [W_Int(0), W_Int(1), W_Str("n="), W_Int(1000000)])

FUNCTIONS.append(FIB)


def call(code, args):
    frame = Frame(code)
    for i in range(len(args)):
        frame.locals[i] = args[i]
    return interpret(code, frame)


def entry_point(argv):
    n = int(argv[1])
    print("fib(" + str(n) + ") = " + call(FIB, [W_Int(n)]).text())
    print("sum_squares(" + str(n * 40) + ") = " + call(SUM_SQUARES, [W_Int(n * 40)]).text())
    print("halvings = " + call(HALVINGS, [W_Int(3)]).text())
    try:
        call(HALVINGS, [W_Int(0)])
    except DivisionByZero:
        print("division by zero")
    try:
        call(SUM_SQUARES, [W_Str("x")])
    except TypeMismatch as e:
        print("type mismatch in " + e.what)
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

# A stack-machine interpreter made by a factory at import time, as the
# original's tlc.py makes its interpreters: make_machine(tracing, limit)
# returns run() and step_count() closing over the factory's arguments and
# over each other (run calls execute, defined after it); each call of the
# factory is its own translated function with its own constants. Opcode
# dispatch goes through an unrolling_iterable of (opcode, name, handler)
# tuples, so every `for` over it is unrolled into a chain of direct calls.
# Python 2 twin: print statements, `except E, e`, xrange.
# args: 12 7
from rpython.rlib.unroll import unrolling_iterable


class Frame(object):
    def __init__(self, size):
        self.stack = [0] * size
        self.sp = 0
        self.steps = 0

    def push(self, v):
        self.stack[self.sp] = v
        self.sp += 1

    def pop(self):
        self.sp -= 1
        return self.stack[self.sp]


def op_add(frame, arg):
    b = frame.pop()
    a = frame.pop()
    frame.push(a + b)
    return -1


def op_sub(frame, arg):
    b = frame.pop()
    a = frame.pop()
    frame.push(a - b)
    return -1


def op_mul(frame, arg):
    b = frame.pop()
    a = frame.pop()
    frame.push(a * b)
    return -1


def op_push(frame, arg):
    frame.push(arg)
    return -1


def op_dup(frame, arg):
    v = frame.pop()
    frame.push(v)
    frame.push(v)
    return -1


def op_swap(frame, arg):
    b = frame.pop()
    a = frame.pop()
    frame.push(b)
    frame.push(a)
    return -1


def op_jump_if_pos(frame, arg):
    if frame.pop() > 0:
        return arg
    return -1


def op_over(frame, arg):
    b = frame.pop()
    a = frame.pop()
    frame.push(a)
    frame.push(b)
    frame.push(a)
    return -1


def op_rot(frame, arg):
    c = frame.pop()
    b = frame.pop()
    a = frame.pop()
    frame.push(b)
    frame.push(c)
    frame.push(a)
    return -1


def op_drop(frame, arg):
    frame.pop()
    return -1


OPCODES = [(0, "add", op_add), (1, "sub", op_sub), (2, "mul", op_mul),
           (3, "push", op_push), (4, "dup", op_dup), (5, "swap", op_swap),
           (6, "jump_if_pos", op_jump_if_pos), (7, "over", op_over),
           (8, "rot", op_rot), (9, "drop", op_drop)]
HALT = 10
DISPATCH = unrolling_iterable(OPCODES)
NAMES = {}
for _code, _name, _fn in OPCODES:
    NAMES[_name] = _code


def opname(code):
    for c, name, fn in DISPATCH:
        if c == code:
            return name
    return "halt"


def make_machine(tracing, limit):
    counter = [0]
    label = "trace" if tracing else "plain"

    def run(program, arg):
        frame = Frame(16)
        frame.push(arg)
        result = execute(program, frame)
        counter[0] += frame.steps
        return result

    def execute(program, frame):
        pc = 0
        while pc < len(program):
            code = program[pc]
            arg = program[pc + 1]
            pc += 2
            if code == HALT:
                break
            frame.steps += 1
            if frame.steps > limit:
                raise OverflowError
            if tracing:
                print "%s %d: %s %d sp=%d" % (label, pc - 2, opname(code), arg, frame.sp)
            for c, name, fn in DISPATCH:
                if code == c:
                    target = fn(frame, arg)
                    if target >= 0:
                        pc = target
                    break
        return frame.pop()

    def step_count():
        return counter[0]

    return run, step_count


def assemble(text):
    code = []
    for line in text.split(";"):
        words = line.strip().split(" ")
        if not words[0]:
            continue
        if words[0] == "halt":
            code.append(HALT)
        else:
            code.append(NAMES[words[0]])
        if len(words) > 1:
            code.append(int(words[1]))
        else:
            code.append(0)
    return code


# factorial: the stack holds [acc, n]; while n > 0: acc *= n, n -= 1
FACTORIAL = assemble("push 1; swap; dup; jump_if_pos 12; swap; halt;"
                     " over; over; mul; swap; push 1; sub; rot; drop;"
                     " push 1; jump_if_pos 4")
SQUARE_PLUS = assemble("dup; mul; push 3; add; halt")

run_traced, traced_steps = make_machine(True, 50)
run_plain, plain_steps = make_machine(False, 100000)


def entry_point(argv):
    n = int(argv[1])
    m = int(argv[2])
    print "square_plus(%d) = %d" % (m, run_traced(SQUARE_PLUS, m))
    for i in xrange(n):
        print "square_plus(%d) = %d" % (i, run_plain(SQUARE_PLUS, i))
    print "plain steps %d, traced steps %d" % (plain_steps(), traced_steps())
    try:
        run_traced(FACTORIAL, m)
    except OverflowError, e:
        print "traced machine stopped at its step limit"
    for i in xrange(1, n):
        print "factorial(%d) = %d" % (i, run_plain(FACTORIAL, i))
    print "plain steps %d, traced steps %d" % (plain_steps(), traced_steps())
    for code in range(HALT + 1):
        print "%d %s" % (code, opname(code))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    import sys
    entry_point(sys.argv)

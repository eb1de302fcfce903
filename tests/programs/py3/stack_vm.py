# A stack-based bytecode VM with frames, a call stack, globals in a dict and
# a tiny assembler that reads source text: the shape of an RPython language
# implementation.
# args: 3
import sys

OPS = ["PUSH", "LOAD", "STORE", "ADD", "SUB", "MUL", "LT", "JMPF", "JMP",
       "CALL", "RET", "PRINT", "HALT", "GLOAD", "GSTORE"]
OPCODE = {}
for _i in range(len(OPS)):
    OPCODE[OPS[_i]] = _i


class VMError(Exception):
    def __init__(self, msg):
        self.msg = msg


class Code(object):
    def __init__(self, name, nlocals, ops, args):
        self.name = name
        self.nlocals = nlocals
        self.ops = ops
        self.args = args


class Frame(object):
    def __init__(self, code, parent):
        self.code = code
        self.pc = 0
        self.stack = []
        self.locals = [0] * code.nlocals
        self.parent = parent

    def push(self, v):
        self.stack.append(v)

    def pop(self):
        if not self.stack:
            raise VMError("stack underflow in " + self.code.name)
        return self.stack.pop()


def assemble(name, nlocals, text):
    ops = []
    args = []
    for line in text.split("\n"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(" ")
        op = parts[0]
        if op not in OPCODE:
            raise VMError("unknown op " + op)
        ops.append(OPCODE[op])
        if len(parts) > 1:
            args.append(int(parts[1]))
        else:
            args.append(0)
    return Code(name, nlocals, ops, args)


class VM(object):
    def __init__(self, functions):
        self.functions = functions
        self.globals = {}
        self.output = []
        self.steps = 0

    def run(self, code):
        frame = Frame(code, None)
        while True:
            self.steps += 1
            op = frame.code.ops[frame.pc]
            arg = frame.code.args[frame.pc]
            frame.pc += 1
            if op == OPCODE["PUSH"]:
                frame.push(arg)
            elif op == OPCODE["LOAD"]:
                frame.push(frame.locals[arg])
            elif op == OPCODE["STORE"]:
                frame.locals[arg] = frame.pop()
            elif op == OPCODE["ADD"]:
                b = frame.pop()
                frame.push(frame.pop() + b)
            elif op == OPCODE["SUB"]:
                b = frame.pop()
                frame.push(frame.pop() - b)
            elif op == OPCODE["MUL"]:
                b = frame.pop()
                frame.push(frame.pop() * b)
            elif op == OPCODE["LT"]:
                b = frame.pop()
                frame.push(1 if frame.pop() < b else 0)
            elif op == OPCODE["JMPF"]:
                if frame.pop() == 0:
                    frame.pc = arg
            elif op == OPCODE["JMP"]:
                frame.pc = arg
            elif op == OPCODE["CALL"]:
                callee = self.functions[arg]
                new = Frame(callee, frame)
                new.locals[0] = frame.pop()
                frame = new
            elif op == OPCODE["RET"]:
                value = frame.pop()
                if frame.parent is None:
                    return value
                frame = frame.parent
                frame.push(value)
            elif op == OPCODE["PRINT"]:
                self.output.append(str(frame.pop()))
            elif op == OPCODE["GLOAD"]:
                frame.push(self.globals.get(arg, 0))
            elif op == OPCODE["GSTORE"]:
                self.globals[arg] = frame.pop()
            elif op == OPCODE["HALT"]:
                return 0
            else:
                raise VMError("bad opcode " + str(op))


FIB = """
# fib(n) with a loop
PUSH 0
STORE 1
PUSH 1
STORE 2
LOAD 0
PUSH 1
LT
JMPF 10
LOAD 1
RET
LOAD 2
LOAD 1
LOAD 2
ADD
STORE 2
STORE 1
LOAD 0
PUSH 1
SUB
STORE 0
JMP 4
"""

MAIN = """
PUSH 0
GSTORE 7
GLOAD 7
PUSH 25
LT
JMPF 16
GLOAD 7
CALL 0
PRINT
GLOAD 7
PUSH 3
ADD
GSTORE 7
JMP 2
HALT
HALT
PUSH 5
RET
"""


def entry_point(argv):
    reps = 1
    if len(argv) > 1:
        reps = int(argv[1])
    fib = assemble("fib", 3, FIB)
    main = assemble("main", 0, MAIN)
    total = 0
    vm = VM([fib])
    for r in range(reps):
        vm = VM([fib])
        try:
            total += vm.run(main)
        except VMError as e:
            print("vm error: " + e.msg)
            return 1
    print(" ".join(vm.output))
    print("steps " + str(vm.steps) + " total " + str(total))
    try:
        assemble("bad", 0, "FOO 1")
    except VMError as e:
        print("caught: " + e.msg)
    return 0


def target(driver, args):
    return entry_point


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

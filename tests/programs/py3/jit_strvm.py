# A stack machine whose program is a str: an assembler turns a small text
# language into bytecode characters (one opcode character, then an
# operand character where the instruction takes one), and the interpreter
# reads them with ord(code[pc]). The bytecode is green, so with the JIT
# every read of it folds to a constant and a loop's dispatch disappears.
# args: 2000
import sys
from rpython.rlib.jit import JitDriver

driver = JitDriver(greens=["pc", "code"], reds=["sp", "stack", "acc"])

PUSH = 1      # push the operand
LOAD = 2      # push local[operand]
STORE = 3     # pop into local[operand]
ADD = 4
SUB = 5
MUL = 6
MOD = 7
JUMP_IF_NOT_ZERO = 8  # pop; jump to the operand when not zero
JUMP = 9
PRINT = 10    # pop and add to the accumulator's checksum
HALT = 11
DUP = 12
LT = 13

NAMES = ["", "push", "load", "store", "add", "sub", "mul", "mod", "jnz", "jump",
         "print", "halt", "dup", "lt"]
WITH_OPERAND = [False, True, True, True, False, False, False, False, True, True,
                False, False, False, False]

LOCALS = 8


class AssemblyError(Exception):
    def __init__(self, message):
        self.message = message


def opcode_of(name):
    for i in range(1, len(NAMES)):
        if NAMES[i] == name:
            return i
    raise AssemblyError("unknown instruction '" + name + "'")


def assemble(text):
    """Two passes: labels (`name:`) get addresses, then instructions are
    written as characters."""
    labels = {}
    lines = []
    address = 0
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith(":"):
            labels[line[:len(line) - 1]] = address
            continue
        parts = line.split(" ")
        op = opcode_of(parts[0])
        lines.append(parts)
        address += 2 if WITH_OPERAND[op] else 1
    code = []
    for parts in lines:
        op = opcode_of(parts[0])
        code.append(chr(op))
        if WITH_OPERAND[op]:
            if len(parts) < 2:
                raise AssemblyError("'" + parts[0] + "' needs an operand")
            arg = parts[1]
            if arg in labels:
                code.append(chr(labels[arg]))
            else:
                code.append(chr(int(arg)))
    return "".join(code)


def run(code, n):
    stack = [0] * 16
    stack[0] = n
    sp = 1
    acc = 0
    pc = 0
    while True:
        driver.jit_merge_point(pc=pc, code=code, sp=sp, stack=stack, acc=acc)
        op = ord(code[pc])
        pc += 1
        if op == PUSH:
            stack[sp] = ord(code[pc])
            sp += 1
            pc += 1
        elif op == LOAD:
            stack[sp] = stack[LOCALS + ord(code[pc])]
            sp += 1
            pc += 1
        elif op == STORE:
            sp -= 1
            stack[LOCALS + ord(code[pc])] = stack[sp]
            pc += 1
        elif op == DUP:
            stack[sp] = stack[sp - 1]
            sp += 1
        elif op == ADD or op == SUB or op == MUL or op == MOD or op == LT:
            sp -= 1
            b = stack[sp]
            a = stack[sp - 1]
            if op == ADD:
                r = a + b
            elif op == SUB:
                r = a - b
            elif op == MUL:
                r = a * b
            elif op == LT:
                r = 1 if a < b else 0
            else:
                r = a % b
            stack[sp - 1] = r
        elif op == JUMP_IF_NOT_ZERO:
            sp -= 1
            target = ord(code[pc])
            pc += 1
            if stack[sp] != 0:
                if target < pc:
                    driver.can_enter_jit(pc=target, code=code, sp=sp, stack=stack, acc=acc)
                pc = target
        elif op == JUMP:
            target = ord(code[pc])
            if target < pc:
                driver.can_enter_jit(pc=target, code=code, sp=sp, stack=stack, acc=acc)
            pc = target
        elif op == PRINT:
            sp -= 1
            acc = (acc * 31 + stack[sp]) % 1000000007
        elif op == HALT:
            return acc
        else:
            raise AssemblyError("bad opcode " + str(op) + " at " + str(pc - 1))


# Sums i*i % 7 for i below n, printing every 100th partial sum into the
# checksum; the count comes in on the stack.
SUM_SQUARES = """
    store 0
    push 0
    store 1
    push 0
    store 2
loop:
    load 2
    dup
    mul
    push 7
    mod
    load 1
    add
    store 1
    load 2
    push 100
    mod
    jnz skip
    load 1
    print
skip:
    load 2
    push 1
    add
    dup
    store 2
    load 0
    lt
    jnz loop
    load 1
    print
    halt
"""


def entry_point(argv):
    n = int(argv[1]) if len(argv) > 1 else 2000
    code = assemble(SUM_SQUARES)
    print("bytecode: " + str(len(code)) + " characters")
    print("checksum: " + str(run(code, n)))
    try:
        assemble("push 1\nfrobnicate 2\n")
    except AssemblyError as e:
        print("error: " + e.message)
    try:
        assemble("push\n")
    except AssemblyError as e:
        print("error: " + e.message)
    return 0


def target(*args):
    return entry_point


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

# A little accumulator language, compiled from its text to bytecode and
# run by an interpreter with a JitDriver. The program tunes its JIT from
# its arguments, as an interpreter with a `--jit` option does: the second
# argument is the JIT's threshold (-1 turns the JIT off), and traces are
# recorded with only the optimizations named in the third.
# args: 4000 7 all
import sys
from rpython.rlib.jit import JitDriver, set_param

driver = JitDriver(greens=["pc", "code"], reds=["acc", "counter", "regs"])

# Opcodes, each followed by one operand.
LOAD = 0  # acc = operand
ADD = 1  # acc += register[operand]
SUB = 2  # acc -= register[operand]
STORE = 3  # register[operand] = acc
DEC = 4  # counter -= operand
JNZ = 5  # if counter: goto operand
MULK = 6  # acc *= operand
MOD = 7  # acc %= operand
SETC = 8  # counter = register[operand]
GET = 9  # acc = register[operand]
HALT = 10

NAMES = ["load", "add", "sub", "store", "dec", "jnz", "mulk", "mod", "setc", "get", "halt"]


class CompileError(Exception):
    def __init__(self, message):
        self.message = message


def compile_source(source):
    """One instruction per line, `name operand`; `label:` lines name a
    jump target."""
    labels = {}
    pending = []
    code = []
    for raw in source.split("\n"):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith(":"):
            labels[line[:-1]] = len(code) // 2
            continue
        parts = line.split(" ")
        name = parts[0]
        if name not in NAMES:
            raise CompileError("unknown instruction " + name)
        op = NAMES.index(name)
        operand = 0
        if len(parts) > 1:
            word = parts[1]
            if word.isdigit():
                operand = int(word)
            else:
                pending.append((len(code) + 1, word))
        code.append(op)
        code.append(operand)
    for at, label in pending:
        if label not in labels:
            raise CompileError("no label " + label)
        code[at] = labels[label] * 2
    return code


def interpret(code, counter, regs):
    pc = 0
    acc = 0
    while True:
        driver.jit_merge_point(pc=pc, code=code, acc=acc, counter=counter, regs=regs)
        op = code[pc]
        arg = code[pc + 1]
        pc += 2
        if op == LOAD:
            acc = arg
        elif op == ADD:
            acc += regs[arg]
        elif op == SUB:
            acc -= regs[arg]
        elif op == STORE:
            regs[arg] = acc
        elif op == DEC:
            counter -= arg
        elif op == JNZ:
            if counter > 0:
                pc = arg
                driver.can_enter_jit(pc=pc, code=code, acc=acc, counter=counter, regs=regs)
        elif op == MULK:
            acc *= arg
        elif op == MOD:
            acc = acc % arg
        elif op == SETC:
            counter = regs[arg]
        elif op == GET:
            acc = regs[arg]
        elif op == HALT:
            return acc


TRIANGLE = """
# r0 = 1 + 2 + ... + counter, r1 counts up
load 0
store 0
store 1
top:
get 1
add 2
store 1
add 0
store 0
dec 1
jnz top
get 0
halt
"""

WEIGHTED = """
# a hash of the numbers below counter, mod a prime
load 7
store 0
loop:
get 0
mulk 31
add 3
mod 1000003
store 0
get 3
add 2
store 3
dec 1
jnz loop
get 0
halt
"""


def run_program(name, source, n):
    try:
        code = compile_source(source)
    except CompileError as e:
        print("%s: compile error: %s" % (name, e.message))
        return 0
    regs = [0, 0, 1, 0]
    result = interpret(code, n, regs)
    print("%s(%d) = %d (registers %d %d %d %d)" % (name, n, result, regs[0], regs[1], regs[2], regs[3]))
    return result


def entry_point(argv):
    n = int(argv[1]) if len(argv) > 1 else 1000
    if len(argv) > 2:
        set_param(driver, "threshold", int(argv[2]))
        set_param(None, "trace_eagerness", 2)
    if len(argv) > 3:
        set_param(driver, "enable_opts", argv[3])
    total = 0
    for k in range(1, 4):
        total += run_program("triangle", TRIANGLE, n * k)
        total += run_program("weighted", WEIGHTED, n + k)
    try:
        compile_source("frobnicate 3")
    except CompileError as e:
        print("rejected: " + e.message)
    print("total %d" % total)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    entry_point(sys.argv)

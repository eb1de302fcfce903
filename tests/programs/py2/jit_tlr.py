# A register machine in the style of the original's `tlr` JIT example: an
# accumulator `a`, a bank of registers, and a jump taken while `a` is not
# zero. The bytecode is the green key of the JitDriver; the accumulator
# and registers are red. Several small programs (square by repeated
# addition, triangle numbers, a countdown with two counters) run with the
# argument as input.
# args: 300
import sys
from rpython.rlib.jit import JitDriver

driver = JitDriver(greens=["pc", "bytecode"], reds=["a", "regs"])

MOV_A_R = 1     # regs[arg] = a
MOV_R_A = 2     # a = regs[arg]
JUMP_IF_A = 3   # if a: pc = arg
SET_A = 4       # a = arg
ADD_R_TO_A = 5  # a += regs[arg]
RETURN_A = 6    # stop, result a
ALLOCATE = 7    # regs = [0] * arg
NEG_A = 8       # a = -a
SUB_R_FROM_A = 9  # a -= regs[arg]
DOUBLE_A = 10   # a *= 2


class MachineError(Exception):
    def __init__(self, message):
        self.message = message


def interpret(bytecode, a):
    regs = [0]
    pc = 0
    while True:
        driver.jit_merge_point(pc=pc, bytecode=bytecode, a=a, regs=regs)
        opcode = bytecode[pc]
        pc += 1
        if opcode == MOV_A_R:
            n = bytecode[pc]
            pc += 1
            regs[n] = a
        elif opcode == MOV_R_A:
            n = bytecode[pc]
            pc += 1
            a = regs[n]
        elif opcode == JUMP_IF_A:
            target = bytecode[pc]
            pc += 1
            if a:
                if target < pc:
                    driver.can_enter_jit(pc=target, bytecode=bytecode, a=a, regs=regs)
                pc = target
        elif opcode == SET_A:
            a = bytecode[pc]
            pc += 1
        elif opcode == ADD_R_TO_A:
            n = bytecode[pc]
            pc += 1
            a += regs[n]
        elif opcode == SUB_R_FROM_A:
            n = bytecode[pc]
            pc += 1
            a -= regs[n]
        elif opcode == RETURN_A:
            return a
        elif opcode == ALLOCATE:
            n = bytecode[pc]
            pc += 1
            regs = [0] * n
        elif opcode == NEG_A:
            a = -a
        elif opcode == DOUBLE_A:
            a = a * 2
        else:
            raise MachineError("unknown opcode " + str(opcode) + " at " + str(pc - 1))


# square(a): regs 0 = a (counter), 1 = a (addend), 2 = result, 3 = -1.
SQUARE = [
    ALLOCATE, 4,
    MOV_A_R, 0,
    MOV_A_R, 1,
    SET_A, 0,
    MOV_A_R, 2,
    SET_A, -1,
    MOV_A_R, 3,
    # loop (pc 14): result += addend; counter -= 1
    MOV_R_A, 2,
    ADD_R_TO_A, 1,
    MOV_A_R, 2,
    MOV_R_A, 0,
    ADD_R_TO_A, 3,
    MOV_A_R, 0,
    JUMP_IF_A, 14,
    MOV_R_A, 2,
    RETURN_A,
]

# triangle(a) = a + (a - 1) + ... + 1: regs 0 = counter, 1 = sum, 2 = 1.
TRIANGLE = [
    ALLOCATE, 3,
    MOV_A_R, 0,
    SET_A, 1,
    MOV_A_R, 2,
    SET_A, 0,
    MOV_A_R, 1,
    # loop (pc 12)
    MOV_R_A, 1,
    ADD_R_TO_A, 0,
    MOV_A_R, 1,
    MOV_R_A, 0,
    SUB_R_FROM_A, 2,
    MOV_A_R, 0,
    JUMP_IF_A, 12,
    MOV_R_A, 1,
    RETURN_A,
]

# powers(a): doubles a value a times, keeping it below 2**40 by
# subtracting it from a constant when it grows too big; exercises NEG_A.
POWERS = [
    ALLOCATE, 3,
    MOV_A_R, 0,
    SET_A, 1,
    MOV_A_R, 1,
    SET_A, -1,
    MOV_A_R, 2,
    # loop (pc 12)
    MOV_R_A, 1,
    DOUBLE_A,
    NEG_A,
    NEG_A,
    MOV_A_R, 1,
    MOV_R_A, 0,
    ADD_R_TO_A, 2,
    MOV_A_R, 0,
    JUMP_IF_A, 12,
    MOV_R_A, 1,
    RETURN_A,
]

BAD = [SET_A, 3, 42]


def run(name, bytecode, a):
    try:
        result = interpret(bytecode, a)
        print name + "(" + str(a) + ") = " + str(result)
    except MachineError as e:
        print name + ": error: " + e.message


def entry_point(argv):
    n = int(argv[1])
    run("square", SQUARE, n)
    run("square", SQUARE, 7)
    run("triangle", TRIANGLE, n)
    run("powers", POWERS, 40)
    run("bad", BAD, 0)
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

# Benchmark: an interpreter loop. A tiny stack bytecode VM (a list of ints
# as code, a list as the operand stack with append and pop, a list of
# registers) runs a program that loops N times (N from the command line)
# computing a checksum with arithmetic, comparisons and jumps.
import sys

PUSH = 0
LOAD = 1
STORE = 2
ADD = 3
SUB = 4
MUL = 5
MOD = 6
LT = 7
JUMP_IF_FALSE = 8
JUMP = 9
DUP = 10
POP = 11
HALT = 12


def program():
    # r0 = i, r1 = acc, r2 = n, r3 = odd count
    # while i < n:
    #     acc = (acc * 31 + i) % 1000003
    #     if i % 3 < 1: odd = odd + acc % 7
    #     i = i + 1
    return [
        PUSH, 0, STORE, 0,             # 0: i = 0
        PUSH, 0, STORE, 1,             # 4: acc = 0
        PUSH, 0, STORE, 3,             # 8: odd = 0
        LOAD, 0, LOAD, 2, LT,          # 12: i < n
        JUMP_IF_FALSE, 61,             # 17
        LOAD, 1, PUSH, 31, MUL,        # 19: acc * 31
        LOAD, 0, ADD,                  # 24: + i
        PUSH, 1000003, MOD, STORE, 1,  # 27: acc = ... % 1000003
        LOAD, 0, PUSH, 3, MOD,         # 32: i % 3
        PUSH, 1, LT,                   # 37: < 1
        JUMP_IF_FALSE, 52,             # 40
        LOAD, 3, LOAD, 1, PUSH, 7, MOD, ADD, STORE, 3,  # 42: odd += acc % 7
        LOAD, 0, PUSH, 1, ADD, STORE, 0,  # 52: i = i + 1 (ends at 59)
        JUMP, 12,                      # 59
        HALT,                          # 61
    ]


def run(code, regs):
    stack = []
    pc = 0
    steps = 0
    while True:
        op = code[pc]
        steps += 1
        if op == PUSH:
            stack.append(code[pc + 1])
            pc += 2
        elif op == LOAD:
            stack.append(regs[code[pc + 1]])
            pc += 2
        elif op == STORE:
            regs[code[pc + 1]] = stack.pop()
            pc += 2
        elif op == ADD:
            b = stack.pop()
            a = stack.pop()
            stack.append(a + b)
            pc += 1
        elif op == SUB:
            b = stack.pop()
            a = stack.pop()
            stack.append(a - b)
            pc += 1
        elif op == MUL:
            b = stack.pop()
            a = stack.pop()
            stack.append(a * b)
            pc += 1
        elif op == MOD:
            b = stack.pop()
            a = stack.pop()
            stack.append(a % b)
            pc += 1
        elif op == LT:
            b = stack.pop()
            a = stack.pop()
            if a < b:
                stack.append(1)
            else:
                stack.append(0)
            pc += 1
        elif op == JUMP_IF_FALSE:
            if stack.pop() == 0:
                pc = code[pc + 1]
            else:
                pc += 2
        elif op == JUMP:
            pc = code[pc + 1]
        elif op == DUP:
            v = stack.pop()
            stack.append(v)
            stack.append(v)
            pc += 1
        elif op == POP:
            stack.pop()
            pc += 1
        else:
            return steps


def entry_point(argv):
    n = int(argv[1])
    code = program()
    regs = [0, 0, n, 0]
    steps = run(code, regs)
    print("steps " + str(steps) + " acc " + str(regs[1]) + " odd " + str(regs[3]))
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

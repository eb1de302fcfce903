from vm import opcodes
from vm.opcodes import NAMES, WITH_ARGUMENT

# How often each opcode ran: a prebuilt list the translated program mutates.
COUNTS = [0] * len(NAMES)


def run(code, argument):
    stack = [argument]
    pc = 0
    while True:
        op = code[pc]
        COUNTS[op] += 1
        arg = 0
        if op in WITH_ARGUMENT:
            arg = code[pc + 1]
            pc += 2
        else:
            pc += 1
        if op == opcodes.PUSH:
            stack.append(arg)
        elif op == opcodes.POP:
            stack.pop()
        elif op == opcodes.DUP:
            stack.append(stack[-1])
        elif op == opcodes.SWAP:
            top = stack.pop()
            below = stack.pop()
            stack.append(top)
            stack.append(below)
        elif op == opcodes.ROT:
            top = stack.pop()
            second = stack.pop()
            third = stack.pop()
            stack.append(second)
            stack.append(top)
            stack.append(third)
        elif op == opcodes.ADD:
            right = stack.pop()
            stack.append(stack.pop() + right)
        elif op == opcodes.SUB:
            right = stack.pop()
            stack.append(stack.pop() - right)
        elif op == opcodes.MUL:
            right = stack.pop()
            stack.append(stack.pop() * right)
        elif op == opcodes.JUMP:
            pc = arg
        elif op == opcodes.JUMP_IF_ZERO:
            if stack.pop() == 0:
                pc = arg
        elif op == opcodes.PRINT:
            print stack[-1]
        elif op == opcodes.HALT:
            return stack[-1]


def executed(name):
    return COUNTS[NAMES.index(name)]

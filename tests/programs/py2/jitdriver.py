# A bytecode interpreter with a JitDriver built at module level (keyword
# arguments at import time) and its merge points naming the loop's
# variables by keyword: the flow graph's jit_marker operations.
# args: 10
import sys
from rpython.rlib.jit import JitDriver


def printable_location(pc, code):
    return "pc=" + str(pc)


driver = JitDriver(greens=["pc", "code"], reds=["acc", "frame"],
                   get_printable_location=printable_location)


class Frame(object):
    def __init__(self, limit):
        self.limit = limit
        self.steps = 0


# Opcodes: 0 add one, 1 double, 2 jump back to 0 while acc < limit.
PROGRAM = [0, 1, 2]


def run(code, limit):
    pc = 0
    acc = 1
    frame = Frame(limit)
    while pc < len(code):
        driver.jit_merge_point(pc=pc, code=code, acc=acc, frame=frame)
        op = code[pc]
        frame.steps += 1
        if op == 0:
            acc += 1
            pc += 1
        elif op == 1:
            acc *= 2
            pc += 1
        elif op == 2:
            if acc < frame.limit:
                pc = 0
                driver.can_enter_jit(frame=frame, code=code, pc=pc, acc=acc)
            else:
                pc += 1
    return acc, frame.steps


def entry_point(argv):
    limit = int(argv[1])
    acc, steps = run(PROGRAM, limit)
    print "acc " + str(acc) + " after " + str(steps) + " steps"
    print driver.name + " " + ",".join(driver.greens) + " " + ",".join(driver.reds)
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

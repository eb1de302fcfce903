# A small stack-machine interpreter split into modules: the opcode table and
# the programs it runs are built when the modules are imported.
# args: 10
import sys

from rpython.rlib import jit
from rpython.rlib.rarithmetic import intmask

from vm import opcodes
from vm.assembler import assemble
import vm.machine as machine

# Sum of 1..n: the argument is on the stack when the program starts.
SUM_TO_N = assemble("""
    PUSH 0 SWAP
    DUP JUMP_IF_ZERO 15
    DUP ROT ADD SWAP PUSH 1 SUB JUMP 3
    POP PRINT HALT
""")

SQUARES = assemble("DUP DUP MUL PRINT HALT")


@jit.elidable
def checksum(x):
    return intmask(x * 31 + 7)


def entry_point(argv):
    n = 5
    if len(argv) > 1:
        n = int(argv[1])
    total = machine.run(SUM_TO_N, n)
    machine.run(SQUARES, n)
    print "checksum", checksum(total)
    print "opcodes", len(opcodes.NAMES), opcodes.NAMES[opcodes.ADD]
    print "executed", machine.executed("ADD"), machine.executed("JUMP")
    return 0


def target(driver, args):
    return entry_point


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

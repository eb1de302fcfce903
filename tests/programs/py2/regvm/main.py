# A register machine whose programs are assembled, written to a file with
# rlib's streamio and read back before they run, as the original's
# targets load their bytecode.
# args: 10 7
import os

import py
from rpython.rlib.jit import JitDriver, set_param
from rpython.rlib import jit
from rpython.rlib.debug import debug_start, debug_stop, debug_print
from rpython.rlib.objectmodel import keepalive_until_here
from rpython.jit.codewriter.policy import JitPolicy

import opcodes

HERE = py.path.local(__file__)
SOURCE_NAME = HERE.basename()


class MachineDriver(JitDriver):
    greens = ['pc', 'code']
    reds = ['regs', 'printed']


driver = MachineDriver()


def assemble(text):
    """'LOAD r0 5; ADD r0 r1' -> bytes: an opcode, then its arguments
    (registers as their numbers)."""
    out = []
    for line in text.split(";"):
        words = line.split()
        if not words:
            continue
        op = opcodes.NAMES.index(words[0])
        assert len(words) - 1 == opcodes.TAKES_ARGUMENTS[op]
        out.append(chr(op))
        for w in words[1:]:
            if w.startswith("r"):
                out.append(chr(int(w[1:])))
            else:
                out.append(chr(int(w)))
    return "".join(out)


FACTORIAL = assemble("""
    LOAD r1 1; LOAD r2 1;
    JUMP_IF_ZERO r0 17;
    MUL r1 r0; SUB r0 r2; JUMP 6;
    PRINT r1; HALT""")

COUNTDOWN = assemble("""
    LOAD r2 1;
    PRINT r0; SUB r0 r2; JUMP_IF_ZERO r0 13; JUMP 3;
    PRINT r0; HALT""")


def run(code, regs):
    pc = 0
    printed = []
    while True:
        driver.jit_merge_point(pc=pc, code=code, regs=regs, printed=printed)
        op = ord(code[pc])
        if op == opcodes.HALT:
            break
        if op == opcodes.LOAD:
            regs[ord(code[pc + 1])] = ord(code[pc + 2])
        elif op == opcodes.MOVE:
            regs[ord(code[pc + 1])] = regs[ord(code[pc + 2])]
        elif op == opcodes.ADD:
            regs[ord(code[pc + 1])] += regs[ord(code[pc + 2])]
        elif op == opcodes.SUB:
            regs[ord(code[pc + 1])] -= regs[ord(code[pc + 2])]
        elif op == opcodes.MUL:
            regs[ord(code[pc + 1])] *= regs[ord(code[pc + 2])]
        elif op == opcodes.JUMP_IF_ZERO:
            if regs[ord(code[pc + 1])] == 0:
                pc = ord(code[pc + 2])
                continue
        elif op == opcodes.JUMP:
            target = ord(code[pc + 1])
            if target < pc:
                # A backward jump closes a loop of the interpreted program.
                driver.can_enter_jit(pc=target, code=code, regs=regs, printed=printed)
            pc = target
            continue
        elif op == opcodes.PRINT:
            printed.append(regs[ord(code[pc + 1])])
        pc += 1 + opcodes.TAKES_ARGUMENTS[op]
    keepalive_until_here(code)
    return printed


def save(path, code):
    # Imported where it is needed, as targets do: translated code binds it.
    from rpython.rlib.streamio import open_file_as_stream
    f = open_file_as_stream(path, "w")
    f.write(code)
    f.close()


def load(path):
    from rpython.rlib import streamio
    f = streamio.open_file_as_stream(path)
    head = f.read(2)
    rest = f.readall()
    f.close()
    return head + rest


def never_called():
    # Translation never reaches this function, so its import is never
    # resolved (there is no such module).
    import no_such_module_anywhere
    return no_such_module_anywhere.value


def entry_point(argv):
    set_param(driver, "threshold", 3)
    jit.set_user_param(None, "off")
    path = "/tmp/rpy-regvm-%d.bin" % os.getpid()
    total = 0
    for code, name in [(FACTORIAL, "factorial"), (COUNTDOWN, "countdown")]:
        save(path, code)
        loaded = load(path)
        assert loaded == code
        for arg in argv[1:]:
            regs = [0] * 4
            regs[0] = int(arg)
            debug_start("regvm-run")
            printed = run(loaded, regs)
            debug_print("ran", name)
            debug_stop("regvm-run")
            print "%s(%s): %s" % (name, arg, ", ".join([str(p) for p in printed]))
            total += len(printed)
    os.unlink(path)
    print("%d values printed by %d opcodes (%d branches) of %s" % (
        total, len(opcodes.NAMES), len(opcodes.BRANCHES), SOURCE_NAME))
    return 0


def jitpolicy(driver):
    # Asked for by the JIT's code writer only; never translated.
    return JitPolicy()


def target(driver, args):
    # The entry point and its argument types (None: a list of strings).
    return entry_point, None


if __name__ == '__main__':
    import sys
    sys.exit(entry_point(sys.argv))

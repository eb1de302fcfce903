# A two-pass assembler and a register machine whose frames are
# virtualizables: the program text is cut into lines with str.splitlines
# (lines ending in "\n", "\r\n" or a lone "\r", and a last line without an
# end), labels are resolved in the first pass, and each frame is made with
# hint(self, access_directly=True, fresh_virtualizable=True), as the
# original's interpreters do (no effect without the JIT: the hint is its
# argument). splitlines(True) keeps the line ends for a listing; Python 3's
# str also ends lines at \v, \f, \x1c-\x1e and \x85.
# Python 3 twin: print(), `except E as e`.
# args: 12
from rpython.rlib.jit import JitDriver, hint

OPS = ["LOAD", "ADD", "SUB", "MUL", "JNZ", "CALL", "RET", "PRINT", "MOV"]
for _i, _name in enumerate(OPS):
    globals()[_name] = _i

SOURCE = ("# sum of squares below n, then factorial\r\n"
          "main:\r\n"
          "  MOV r0 r5\n"
          "  LOAD 0 r1\n"
          "  LOAD 1 r2\r"
          "@loop\n"
          "  MUL r0 r0 r3\n"
          "  ADD r1 r3 r1\n"
          "  SUB r0 r2 r0\n"
          "  JNZ r0 @loop\n"
          "  PRINT r1\n"
          "  CALL fact r5 r4\n"
          "  PRINT r4\n"
          "  RET r1\n"
          "\n"
          "fact:\n"
          "  LOAD 1 r1\r\n"
          "  LOAD 1 r2\n"
          "@again\n"
          "  MUL r1 r0 r1\n"
          "  SUB r0 r2 r0\n"
          "  JNZ r0 @again\n"
          "  RET r1")


class AsmError(Exception):
    def __init__(self, msg):
        self.msg = msg


class Code(object):
    def __init__(self, name, ops, nregs):
        self.name = name
        self.ops = ops
        self.nregs = nregs


def reg(word):
    if not word.startswith("r"):
        raise AsmError("not a register: " + word)
    return int(word[1:])


def assemble_function(name, lines, functions):
    labels = {}
    pc = 0
    for line in lines:
        if line.startswith("@"):
            labels[line[1:]] = pc
        else:
            pc += 1
    ops = []
    nregs = 1
    for line in lines:
        if line.startswith("@"):
            continue
        words = line.split(" ")
        op = words[0]
        args = []
        for w in words[1:]:
            if w.startswith("@"):
                args.append(labels[w[1:]])
            elif w.startswith("r"):
                r = reg(w)
                if r + 1 > nregs:
                    nregs = r + 1
                args.append(r)
            elif w in functions:
                args.append(functions[w])
            else:
                args.append(int(w))
        found = -1
        for i in range(len(OPS)):
            if OPS[i] == op:
                found = i
        if found < 0:
            raise AsmError("unknown instruction " + op)
        ops.append([found] + args)
    return Code(name, ops, nregs)


def assemble(text):
    groups = []
    names = []
    current = []
    for raw in text.splitlines():
        hashpos = raw.find("#")
        if hashpos >= 0:
            raw = raw[:hashpos]
        line = raw.strip()
        if not line:
            continue
        if line.endswith(":"):
            current = []
            groups.append(current)
            names.append(line[:-1])
        else:
            current.append(line)
    functions = {}
    for i in range(len(names)):
        functions[names[i]] = i
    codes = []
    for i in range(len(names)):
        codes.append(assemble_function(names[i], groups[i], functions))
    return codes


driver = JitDriver(greens=["pc", "code"], reds=["codes", "frame"],
                   virtualizables=["frame"])


class Frame(object):
    _virtualizable_ = ["regs[*]", "code"]

    def __init__(self, code, arg):
        self = hint(self, access_directly=True, fresh_virtualizable=True)
        self.code = code
        self.regs = [0] * code.nregs
        self.regs[0] = arg

    def run(self, codes):
        pc = 0
        code = self.code
        while True:
            driver.jit_merge_point(pc=pc, code=code, codes=codes, frame=self)
            op = code.ops[pc]
            kind = op[0]
            pc += 1
            if kind == LOAD:
                self.regs[op[2]] = op[1]
            elif kind == MOV:
                self.regs[op[2]] = self.regs[op[1]]
            elif kind == ADD:
                self.regs[op[3]] = self.regs[op[1]] + self.regs[op[2]]
            elif kind == SUB:
                self.regs[op[3]] = self.regs[op[1]] - self.regs[op[2]]
            elif kind == MUL:
                self.regs[op[3]] = self.regs[op[1]] * self.regs[op[2]]
            elif kind == JNZ:
                if self.regs[op[1]] != 0:
                    pc = op[2]
                    driver.can_enter_jit(pc=pc, code=code, codes=codes, frame=self)
            elif kind == CALL:
                callee = Frame(codes[op[1]], self.regs[op[2]])
                self.regs[op[3]] = callee.run(codes)
            elif kind == PRINT:
                print("%s: r%d = %d" % (code.name, op[1], self.regs[op[1]]))
            elif kind == RET:
                return self.regs[op[1]]


def show_lines(text):
    # The line ends, kept, as escapes.
    n = 0
    for line in text.splitlines(True):
        end = ""
        if line.endswith("\r\n"):
            end = "CRLF"
        elif line.endswith("\n"):
            end = "LF"
        elif line.endswith("\r"):
            end = "CR"
        n += 1
        if n <= 6:
            print("%2d %-4s %s" % (n, end, line.strip()))
    print("lines:", n, len(text.splitlines()), len(text.splitlines(False)))


def entry_point(argv):
    n = int(argv[1])
    show_lines(SOURCE)
    for text in ["", "\n", "a\n\nb", "x\r\r\ny\n", "\r\n", "last", "p\x0cq\x0br"]:
        print(repr(text), text.splitlines(), text.splitlines(True))
    odd = "one\x1ctwo\x1dthree\x1efour\x85five\x1fsix"
    parts = odd.splitlines()
    print(len(parts), [len(p) for p in parts], parts[0], parts[3][:4])
    try:
        assemble("main:\n  JUMP r1\n")
    except AsmError as e:
        print("error:", e.msg)
    codes = assemble(SOURCE)
    for c in codes:
        print(c.name, len(c.ops), "ops,", c.nregs, "registers")
    result = Frame(codes[0], n).run(codes)
    print("result:", result)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    import sys
    entry_point(sys.argv)

# A two-pass assembler (labels resolved after the first pass, operands as
# (kind, value) tuples) for a register machine, run by an interpreter whose
# red is named self, with the JIT: a loop of multiplications and one of
# r_uint shifts and xors over memory, both compiled; bad source lines are
# the program's own AsmError.
# args: 30000
from rpython.rlib.rarithmetic import r_uint, intmask
from rpython.rlib.jit import JitDriver

jitdriver = JitDriver(greens=['pc', 'code'], reds=['self'])

SOURCE = """
; sum of squares below n, then a checksum over memory
        mov r1, 0          ; i
        mov r2, 0          ; acc
loop:   cmp r1, r0
        jge done
        mov r3, r1
        mul r3, r1
        add r2, r3
        store r1, r3
        add r1, 1
        jmp loop
done:   mov r4, 0
        mov r5, 0
sum:    cmp r4, r0
        jge out
        load r6, r4
        xor r5, r6
        shl r5, 1
        add r4, 1
        jmp sum
out:    halt
"""

OPS = {"mov": 0, "add": 1, "mul": 2, "cmp": 3, "jge": 4, "jmp": 5,
       "store": 6, "load": 7, "xor": 8, "shl": 9, "halt": 10}


class AsmError(Exception):
    def __init__(self, line, msg):
        self.line = line
        self.msg = msg


def parse_operand(text, line):
    text = text.strip()
    if text.startswith("r") and text[1:].isdigit():
        n = int(text[1:])
        if n > 7:
            raise AsmError(line, "no register " + text)
        return (1, n)
    if text.isdigit() or (text.startswith("-") and text[1:].isdigit()):
        return (0, int(text))
    return (2, 0)


def assemble(source):
    labels = {}
    pending = []
    code = []
    lineno = 0
    for raw in source.split("\n"):
        lineno += 1
        semi = raw.find(";")
        if semi >= 0:
            raw = raw[:semi]
        line = raw.strip()
        if not line:
            continue
        colon = line.find(":")
        if colon >= 0:
            labels[line[:colon].strip()] = len(code)
            line = line[colon + 1:].strip()
            if not line:
                continue
        space = line.find(" ")
        if space < 0:
            name, rest = line, ""
        else:
            name, rest = line[:space], line[space + 1:]
        if name not in OPS:
            raise AsmError(lineno, "unknown instruction '%s'" % name)
        args = []
        if rest:
            for part in rest.split(","):
                kind, value = parse_operand(part, lineno)
                if kind == 2:
                    pending.append((len(code), len(args), part.strip(), lineno))
                args.append((kind, value))
        code.append((OPS[name], args))
    for index, slot, label, line in pending:
        if label not in labels:
            raise AsmError(line, "no label '%s'" % label)
        op, args = code[index]
        args[slot] = (0, labels[label])
    return code, labels


class Machine(object):
    def __init__(self, code, memsize):
        self.code = code
        self.regs = [0] * 8
        self.memory = [0] * memsize
        self.flag = False
        self.steps = 0

    def value(self, arg):
        kind, v = arg
        if kind == 1:
            return self.regs[v]
        return v

    def run(self):
        pc = 0
        code = self.code
        while True:
            jitdriver.jit_merge_point(pc=pc, code=code, self=self)
            op, args = code[pc]
            self.steps += 1
            pc += 1
            if op == 0:
                self.regs[args[0][1]] = self.value(args[1])
            elif op == 1:
                self.regs[args[0][1]] += self.value(args[1])
            elif op == 2:
                self.regs[args[0][1]] = intmask(self.regs[args[0][1]] * self.value(args[1]))
            elif op == 3:
                self.flag = self.value(args[0]) >= self.value(args[1])
            elif op == 4:
                if self.flag:
                    pc = self.value(args[0])
            elif op == 5:
                target = self.value(args[0])
                if target < pc:
                    pc = target
                    jitdriver.can_enter_jit(pc=pc, code=code, self=self)
                else:
                    pc = target
            elif op == 6:
                self.memory[self.value(args[0])] = self.value(args[1])
            elif op == 7:
                self.regs[args[0][1]] = self.memory[self.value(args[1])]
            elif op == 8:
                self.regs[args[0][1]] ^= self.value(args[1])
            elif op == 9:
                shifted = r_uint(self.regs[args[0][1]]) << self.value(args[1])
                self.regs[args[0][1]] = intmask(shifted & r_uint(0xffffffff))
            elif op == 10:
                return
            else:
                raise AsmError(pc, "bad opcode %d" % op)


def disassemble(code, labels):
    names = {}
    for name, index in labels.items():
        names[index] = name
    inverse = {}
    for k, v in OPS.items():
        inverse[v] = k
    out = []
    for i in range(len(code)):
        op, args = code[i]
        parts = []
        for kind, v in args:
            parts.append("r%d" % v if kind == 1 else "%d" % v)
        prefix = names.get(i, "")
        out.append("%3d %-6s%s %s" % (i, prefix, inverse[op], ", ".join(parts)))
    return out


def entry_point(argv):
    n = 10
    if len(argv) > 1:
        n = int(argv[1])
    code, labels = assemble(SOURCE)
    if n <= 10:
        for line in disassemble(code, labels):
            print(line)
    m = Machine(code, n + 1)
    m.regs[0] = n
    m.run()
    print("acc=%d checksum=%x steps=%d" % (m.regs[2], m.regs[5], m.steps))
    for bad in ["bogus r1", "mov r9, 1", "jmp nowhere"]:
        try:
            assemble(bad)
            print("accepted: " + bad)
        except AsmError as e:
            print("line %d: %s" % (e.line, e.msg))
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    import sys
    entry_point(sys.argv)

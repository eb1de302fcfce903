# An assembler and emulator for a made-up 8-bit accumulator CPU: source
# lines are cleaned with strip/split/startswith, numbers come as decimal,
# 0x-hex (int(x, 16)) or 'c' character literals (ord), .ascii strings are
# emitted byte by byte, labels are patched in a second pass, and the
# emulator prints through an output port with chr.
# Python 2 twin: print statements, `except E, e`, xrange, iteritems.
# args: 5
import sys

OPCODES = [('NOP', 0x00, 0), ('LDA', 0x10, 1), ('LDI', 0x11, 1),
           ('STA', 0x20, 1), ('ADD', 0x30, 1), ('ADI', 0x31, 1),
           ('SUB', 0x40, 1), ('SBI', 0x41, 1), ('JMP', 0x50, 1),
           ('JZ', 0x51, 1), ('JNZ', 0x52, 1), ('OUT', 0x60, 0),
           ('LDX', 0x70, 1), ('INX', 0x71, 0), ('LDAX', 0x72, 0),
           ('HLT', 0xff, 0)]

SOURCE = """
; print a greeting, then count down from N, then a hex dump marker
        LDI 0x00
        STA idx
loop:   LDX idx          ; x = idx
        LDAX             ; a = mem[msg + x]
        JZ  done_msg
        OUT
        LDA idx
        ADI 1
        STA idx
        JMP loop
done_msg:
        LDA count
down:   ADI '0'
        OUT
        SBI '0'
        SBI 1
        STA count
        JNZ down
        LDI '!'
        OUT
        LDI 10
        OUT
        HLT
idx:    .byte 0
count:  .byte 0
msg:    .ascii "Hi, T-minus "
        .byte 0
"""


class AsmError(Exception):
    def __init__(self, lineno, msg):
        self.lineno = lineno
        self.msg = msg

    def __str__(self):
        return 'line %d: %s' % (self.lineno, self.msg)


def lookup(mnemonic):
    for name, code, nargs in OPCODES:
        if name == mnemonic:
            return code, nargs
    return -1, 0


def name_of(code):
    for name, c, nargs in OPCODES:
        if c == code:
            return name, nargs
    return '???', 0


def strip_comment(line):
    i = line.find(';')
    if i >= 0:
        line = line[:i]
    return line.strip()


def parse_number(tok, lineno):
    if tok.startswith("'") and tok.endswith("'") and len(tok) == 3:
        return ord(tok[1])
    if tok.startswith('0x') or tok.startswith('0X'):
        return int(tok[2:], 16)
    if tok.isdigit():
        return int(tok)
    raise AsmError(lineno, 'bad number %s' % tok)


class Assembler(object):
    def __init__(self):
        self.code = []
        self.labels = {}
        self.label_order = []
        self.fixups = []     # (address, label, lineno)

    def emit(self, byte):
        self.code.append(byte & 0xff)

    def operand(self, tok, lineno):
        if tok[0].isalpha() or tok[0] == '_':
            self.fixups.append((len(self.code), tok, lineno))
            self.emit(0)
        else:
            self.emit(parse_number(tok, lineno))

    def line(self, text, lineno):
        text = strip_comment(text)
        if not text:
            return
        colon = text.find(':')
        if colon > 0 and text.find('"') < 0 or 0 < colon < text.find('"'):
            label = text[:colon].strip()
            if label in self.labels:
                raise AsmError(lineno, 'duplicate label %s' % label)
            self.labels[label] = len(self.code)
            self.label_order.append(label)
            text = text[colon + 1:].strip()
            if not text:
                return
        if text.startswith('.ascii'):
            start = text.find('"')
            end = text.rfind('"')
            if start < 0 or end <= start:
                raise AsmError(lineno, 'unterminated string')
            for c in text[start + 1:end]:
                self.emit(ord(c))
            return
        parts = text.split()
        if parts[0] == '.byte':
            for tok in parts[1:]:
                self.operand(tok, lineno)
            return
        code, nargs = lookup(parts[0].upper())
        if code < 0:
            raise AsmError(lineno, 'unknown mnemonic %s' % parts[0])
        if len(parts) - 1 != nargs:
            raise AsmError(lineno, '%s takes %d operand(s), got %d' %
                           (parts[0], nargs, len(parts) - 1))
        self.emit(code)
        for tok in parts[1:]:
            self.operand(tok, lineno)

    def finish(self):
        for addr, label, lineno in self.fixups:
            if label not in self.labels:
                raise AsmError(lineno, 'undefined label %s' % label)
            self.code[addr] = self.labels[label]
        return self.code


def assemble(source):
    asm = Assembler()
    for lineno, text in enumerate(source.split('\n')):
        asm.line(text, lineno + 1)
    return asm.finish(), asm.labels, asm.label_order


def disassemble(code, labels):
    names = {}
    for label, addr in labels.iteritems():
        names[addr] = label
    out = []
    pc = 0
    while pc < len(code):
        name, nargs = name_of(code[pc])
        label = names.get(pc, '')
        raw = code[pc:pc + 1 + nargs]
        hexes = ' '.join(['%02x' % b for b in raw])
        out.append('%04x %-9s %-6s %s' % (pc, label, hexes, name))
        pc += 1 + nargs
        if name == 'HLT':
            break
    return out


def run(code, count, limit):
    mem = code + [0] * (256 - len(code))
    a = 0
    x = 0
    pc = 0
    output = []
    steps = 0
    msg = 0
    for i, b in enumerate(code):
        if b == ord('H') and code[i + 1] == ord('i'):
            msg = i
            break
    else:
        return 'no message', 0
    mem[code[3]] = 0
    count_addr = code[3] + 1
    mem[count_addr] = count
    while steps < limit:
        op = mem[pc]
        arg = mem[(pc + 1) & 0xff]
        steps += 1
        if op == 0x00:
            pc += 1
        elif op == 0x10:
            a = mem[arg]; pc += 2
        elif op == 0x11:
            a = arg; pc += 2
        elif op == 0x20:
            mem[arg] = a; pc += 2
        elif op == 0x30 or op == 0x31:
            a = (a + (mem[arg] if op == 0x30 else arg)) & 0xff; pc += 2
        elif op == 0x40 or op == 0x41:
            a = (a - (mem[arg] if op == 0x40 else arg)) & 0xff; pc += 2
        elif op == 0x50:
            pc = arg
        elif op == 0x51:
            pc = arg if a == 0 else pc + 2
        elif op == 0x52:
            pc = arg if a != 0 else pc + 2
        elif op == 0x60:
            output.append(chr(a)); pc += 1
        elif op == 0x70:
            x = mem[arg]; pc += 2
        elif op == 0x71:
            x = (x + 1) & 0xff; pc += 1
        elif op == 0x72:
            a = mem[(msg + x) & 0xff]; pc += 1
        elif op == 0xff:
            break
        else:
            return 'bad opcode %02x at %d' % (op, pc), steps
    else:
        return 'step limit', steps
    return ''.join(output), steps


BAD_SOURCES = ["  FOO 1", "x: NOP\nx: NOP", "  LDA", "  JMP nowhere",
               "  LDI 12z", '  .ascii "open']


def entry_point(argv):
    count = 3
    if len(argv) > 1:
        count = int(argv[1])
    code, labels, order = assemble(SOURCE)
    print '%d bytes, labels: %s' % (len(code), ' '.join(
        ['%s=%02x' % (k, v) for k, v in zip(order, [labels[k] for k in order])]))
    for line in disassemble(code, labels):
        print line
    text, steps = run(code, count, 2000)
    print 'output %r in %d steps' % (text, steps)
    text, steps = run(code, count, 40)
    print 'limited: %r after %d' % (text, steps)
    for src in BAD_SOURCES:
        try:
            assemble(src)
        except AsmError, e:
            print 'error: %s' % e.__str__()
        else:
            print 'assembled %r' % src
    # a checksum over the image, both ways, with zip and reversed
    total = 0
    backwards = [b for b in reversed(code)]
    for b, r in zip(code, backwards):
        total = (total * 31 + (b ^ r)) & 0xffffff
    print 'checksum %06x' % total
    tail = code[-4:]
    del tail[0]
    print 'tail %s' % ','.join([str(b) for b in tail])
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

# A small Forth: a data stack and a return stack, a dictionary of
# primitives and user-defined words compiled to lists of tokens, IF/ELSE/
# THEN and DO/LOOP by jumping over compiled code, variables in a memory
# list, and errors as exceptions caught per input line.
# args: 10
import sys


class ForthError(Exception):
    def __init__(self, msg):
        self.msg = msg


class StackUnderflow(ForthError):
    pass


class UnknownWord(ForthError):
    pass


class Word(object):
    def __init__(self, name, code):
        self.name = name
        self.code = code
        self.calls = 0


class Machine(object):
    PRIMITIVES = ["+", "-", "*", "/", "mod", "dup", "drop", "swap", "over", "rot",
                  "=", "<", ">", ".", "emit", "cr", "@", "!", "i", "negate", "abs"]

    def __init__(self, memory_size):
        self.stack = []
        self.rstack = []
        self.words = {}
        self.variables = {}
        self.memory = [0] * memory_size
        self.out = []
        self.steps = 0

    def push(self, v):
        self.stack.append(v)

    def pop(self):
        if not self.stack:
            raise StackUnderflow("stack underflow")
        return self.stack.pop()

    def primitive(self, name):
        if name == "+":
            b = self.pop()
            self.push(self.pop() + b)
        elif name == "-":
            b = self.pop()
            self.push(self.pop() - b)
        elif name == "*":
            b = self.pop()
            self.push(self.pop() * b)
        elif name == "/" or name == "mod":
            b = self.pop()
            a = self.pop()
            try:
                if name == "/":
                    self.push(a // b)
                else:
                    self.push(a % b)
            except ZeroDivisionError:
                raise ForthError("division by zero")
        elif name == "dup":
            v = self.pop()
            self.push(v)
            self.push(v)
        elif name == "drop":
            self.pop()
        elif name == "swap":
            b = self.pop()
            a = self.pop()
            self.push(b)
            self.push(a)
        elif name == "over":
            b = self.pop()
            a = self.pop()
            self.stack.extend([a, b, a])
        elif name == "rot":
            c = self.pop()
            b = self.pop()
            a = self.pop()
            self.stack.extend([b, c, a])
        elif name == "=" or name == "<" or name == ">":
            b = self.pop()
            a = self.pop()
            if name == "=":
                flag = a == b
            elif name == "<":
                flag = a < b
            else:
                flag = a > b
            self.push(-1 if flag else 0)
        elif name == ".":
            self.out.append("%d " % self.pop())
        elif name == "emit":
            self.out.append(chr(self.pop() & 127))
        elif name == "cr":
            self.out.append("\n")
        elif name == "@":
            addr = self.pop()
            try:
                self.push(self.memory[addr])
            except IndexError:
                raise ForthError("bad address %d" % addr)
        elif name == "!":
            addr = self.pop()
            value = self.pop()
            if addr < 0 or addr >= len(self.memory):
                raise ForthError("bad address %d" % addr)
            self.memory[addr] = value
        elif name == "i":
            if not self.rstack:
                raise ForthError("i outside a loop")
            self.push(self.rstack[-1])
        elif name == "negate":
            self.push(-self.pop())
        elif name == "abs":
            self.push(abs(self.pop()))

    def execute(self, code):
        pc = 0
        while pc < len(code):
            self.steps += 1
            tok = code[pc]
            pc += 1
            if tok == "if":
                if self.pop() == 0:
                    pc = self.skip(code, pc, "if", "else", "then")
            elif tok == "else":
                pc = self.skip(code, pc, "if", "", "then")
            elif tok == "then":
                pass
            elif tok == "do":
                start = self.pop()
                limit = self.pop()
                body_end = self.skip(code, pc, "do", "", "loop")
                body = code[pc:body_end - 1]
                i = start
                while i < limit:
                    self.rstack.append(i)
                    try:
                        self.execute(body)
                    finally:
                        self.rstack.pop()
                    i += 1
                pc = body_end
            elif tok in self.words:
                word = self.words[tok]
                word.calls += 1
                if len(self.rstack) > 100:
                    raise ForthError("return stack overflow in " + word.name)
                self.rstack.append(-1)
                self.execute(word.code)
                self.rstack.pop()
            elif tok in self.variables:
                self.push(self.variables[tok])
            elif tok in Machine.PRIMITIVES:
                self.primitive(tok)
            else:
                try:
                    self.push(int(tok))
                except ValueError:
                    raise UnknownWord("unknown word '%s'" % tok)

    def skip(self, code, pc, opener, middle, closer):
        depth = 0
        while pc < len(code):
            tok = code[pc]
            pc += 1
            if tok == opener:
                depth += 1
            elif tok == closer:
                if depth == 0:
                    return pc
                depth -= 1
            elif tok == middle and depth == 0:
                return pc
        raise ForthError("missing " + closer)

    def interpret(self, line):
        tokens = [t.lower() for t in line.split(" ") if t]
        if len(tokens) > 0 and tokens[0] == ":":
            if len(tokens) < 3 or tokens[-1] != ";":
                raise ForthError("bad definition")
            name = tokens[1]
            self.words[name] = Word(name, tokens[2:-1])
            return
        if len(tokens) == 2 and tokens[0] == "variable":
            self.variables[tokens[1]] = len(self.variables)
            return
        self.execute(tokens)


PROGRAM = [
    ": square dup * ;",
    ": cube dup square * ;",
    ": fact dup 1 > if dup 1 - fact * then ;",
    ": fib dup 2 < if else dup 1 - fib swap 2 - fib + then ;",
    ": stars 0 do 42 emit loop cr ;",
    ": countdown dup 0 > if dup . 1 - countdown else drop then ;",
    "variable total",
    "7 square . 3 cube . cr",
    "10 fact . 15 fib . cr",
    "5 stars",
    "N countdown cr",
    "0 total ! 11 1 do i total @ + total ! loop total @ . cr",
    "1 2 3 rot . . . cr",
    "10 0 /",
    "drop drop",
    "frobnicate",
    "99 100 !",
    "2 3 over . . . -5 abs . 4 negate . cr",
    ": forever forever ;",
    "forever",
    ": broken 1 if 2 ;",
    "broken",
]


def entry_point(argv):
    n = 5
    if len(argv) > 1:
        n = int(argv[1])
    m = Machine(16)
    errors = {}
    for line in PROGRAM:
        line = line.replace("N", str(n))
        try:
            m.interpret(line)
        except StackUnderflow, e:
            m.out.append("<underflow: %s>\n" % e.msg)
            errors["underflow"] = errors.get("underflow", 0) + 1
        except UnknownWord, e:
            m.out.append("<%s>\n" % e.msg)
            errors["unknown"] = errors.get("unknown", 0) + 1
        except ForthError, e:
            m.out.append("<error: %s>\n" % e.msg)
            errors["other"] = errors.get("other", 0) + 1
            m.rstack = []
    print "".join(m.out).rstrip("\n")
    print "stack: [%s]" % ", ".join([str(v) for v in m.stack])
    for kind in ["underflow", "unknown", "other"]:
        print "%s errors: %d" % (kind, errors.get(kind, 0))
    names = list(m.words.keys())
    i = 1
    while i < len(names):
        j = i
        while j > 0 and names[j - 1] > names[j]:
            names[j - 1], names[j] = names[j], names[j - 1]
            j -= 1
        i += 1
    for name in names:
        print "word %-10s %3d tokens %5d calls" % (name, len(m.words[name].code), m.words[name].calls)
    print "steps: %d" % m.steps
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

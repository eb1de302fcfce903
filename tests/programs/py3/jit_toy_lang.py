# Toy: a small language with variables, while loops, if/else and print,
# compiled from source text to stack bytecode and run by an interpreter
# with a JitDriver. Its code object's lists are immutable fields, so a
# trace reads the bytecode once, when it is recorded.
# args: 3000
import sys
from rpython.rlib.jit import JitDriver

PUSH, LOAD, STORE, ADD, SUB, MUL, MOD, LT, EQ, JUMP, JUMP_IF_FALSE, PRINT, HALT, DIV = range(14)

driver = JitDriver(greens=["pc", "code"], reds=["stack", "sp", "variables"])


class Code(object):
    _immutable_fields_ = ["ops[*]", "names[*]"]

    def __init__(self, ops, names):
        self.ops = ops
        self.names = names


class ParseError(Exception):
    def __init__(self, msg):
        self.msg = msg


def tokenize(src):
    tokens = []
    i = 0
    n = len(src)
    while i < n:
        c = src[i]
        if c.isspace():
            i += 1
        elif c.isdigit():
            j = i
            while j < n and src[j].isdigit():
                j += 1
            tokens.append(src[i:j])
            i = j
        elif c.isalpha():
            j = i
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            tokens.append(src[i:j])
            i = j
        elif c in "+-*%/<=(){};":
            if c == "=" and i + 1 < n and src[i + 1] == "=":
                tokens.append("==")
                i += 2
            else:
                tokens.append(c)
                i += 1
        else:
            raise ParseError("unexpected character %s" % c)
    return tokens


class Compiler(object):
    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0
        self.ops = []
        self.names = []

    def peek(self):
        if self.pos < len(self.tokens):
            return self.tokens[self.pos]
        return ""

    def expect(self, tok):
        if self.peek() != tok:
            raise ParseError("expected %s, got %s" % (tok, self.peek()))
        self.pos += 1

    def var(self, name):
        if name not in self.names:
            self.names.append(name)
        return self.names.index(name)

    def emit(self, op, arg=0):
        self.ops.append(op)
        self.ops.append(arg)
        return len(self.ops) - 1

    def atom(self):
        tok = self.peek()
        self.pos += 1
        if tok.isdigit():
            self.emit(PUSH, int(tok))
        elif tok == "(":
            self.expression()
            self.expect(")")
        elif tok.isalpha():
            self.emit(LOAD, self.var(tok))
        else:
            raise ParseError("unexpected %s" % tok)

    def term(self):
        self.atom()
        while self.peek() in ("*", "%", "/"):
            op = self.peek()
            self.pos += 1
            self.atom()
            self.emit(MUL if op == "*" else (MOD if op == "%" else DIV))

    def arith(self):
        self.term()
        while self.peek() in ("+", "-"):
            op = self.peek()
            self.pos += 1
            self.term()
            self.emit(ADD if op == "+" else SUB)

    def expression(self):
        self.arith()
        if self.peek() in ("<", "=="):
            op = self.peek()
            self.pos += 1
            self.arith()
            self.emit(LT if op == "<" else EQ)

    def block(self):
        self.expect("{")
        while self.peek() != "}":
            self.statement()
        self.expect("}")

    def statement(self):
        tok = self.peek()
        if tok == "while":
            self.pos += 1
            top = len(self.ops)
            self.expression()
            exit_at = self.emit(JUMP_IF_FALSE)
            self.block()
            self.emit(JUMP, top)
            self.ops[exit_at] = len(self.ops)
        elif tok == "if":
            self.pos += 1
            self.expression()
            else_at = self.emit(JUMP_IF_FALSE)
            self.block()
            if self.peek() == "else":
                self.pos += 1
                end_at = self.emit(JUMP)
                self.ops[else_at] = len(self.ops)
                self.block()
                self.ops[end_at] = len(self.ops)
            else:
                self.ops[else_at] = len(self.ops)
        elif tok == "print":
            self.pos += 1
            self.expression()
            self.emit(PRINT)
            self.expect(";")
        else:
            self.pos += 1
            self.expect("=")
            self.expression()
            self.emit(STORE, self.var(tok))
            self.expect(";")

    def compile(self):
        while self.pos < len(self.tokens):
            self.statement()
        self.emit(HALT)
        return Code(self.ops[:], self.names[:])


def run(code):
    stack = [0] * 64
    sp = 0
    variables = [0] * len(code.names)
    pc = 0
    while True:
        driver.jit_merge_point(pc=pc, code=code, stack=stack, sp=sp, variables=variables)
        op = code.ops[pc]
        arg = code.ops[pc + 1]
        pc += 2
        if op == PUSH:
            stack[sp] = arg
            sp += 1
        elif op == LOAD:
            stack[sp] = variables[arg]
            sp += 1
        elif op == STORE:
            sp -= 1
            variables[arg] = stack[sp]
        elif op == PRINT:
            sp -= 1
            print(stack[sp])
        elif op == JUMP:
            if arg < pc:
                driver.can_enter_jit(pc=arg, code=code, stack=stack, sp=sp, variables=variables)
            pc = arg
        elif op == JUMP_IF_FALSE:
            sp -= 1
            if stack[sp] == 0:
                pc = arg
        elif op == HALT:
            return variables
        else:
            sp -= 1
            b = stack[sp]
            a = stack[sp - 1]
            if op == ADD:
                r = a + b
            elif op == SUB:
                r = a - b
            elif op == MUL:
                r = a * b
            elif op == MOD:
                r = a % b
            elif op == DIV:
                r = a // b
            elif op == LT:
                r = 1 if a < b else 0
            else:
                r = 1 if a == b else 0
            stack[sp - 1] = r


PROGRAM = """
n = %d; count = 0; i = 2; biggest = 0;
while i < n {
  d = 2; prime = 1;
  while d * d < i + 1 { if i %% d == 0 { prime = 0; d = i; } d = d + 1; }
  if prime == 1 { count = count + 1; biggest = i; }
  i = i + 1;
}
print count; print biggest;
x = 27; steps = 0;
while 1 < x { if x %% 2 == 0 { x = x / 2; } else { x = 3 * x + 1; } steps = steps + 1; }
print steps;
"""


def entry_point(argv):
    n = int(argv[1]) if len(argv) > 1 else 1000
    try:
        code = Compiler(tokenize(PROGRAM % n)).compile()
    except ParseError as e:
        print("parse error: " + e.msg)
        return 1
    variables = run(code)
    for i in range(len(code.names)):
        print("%s = %d" % (code.names[i], variables[i]))
    try:
        Compiler(tokenize("x = 1 $ 2;")).compile()
    except ParseError as e:
        print("parse error: " + e.msg)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    entry_point(sys.argv)

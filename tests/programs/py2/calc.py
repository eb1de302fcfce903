# A small calculator language: a tokenizer, a recursive-descent parser that
# builds an AST of node classes, and an evaluator with variables, written as
# an RPython interpreter would be.
# args: 3
import sys


class ParseError(Exception):
    def __init__(self, msg, pos):
        self.msg = msg
        self.pos = pos


class EvalError(Exception):
    pass


class Token(object):
    def __init__(self, kind, text, pos):
        self.kind = kind
        self.text = text
        self.pos = pos


def is_digit(c):
    return '0' <= c <= '9'


def is_alpha(c):
    return ('a' <= c <= 'z') or ('A' <= c <= 'Z') or c == '_'


def tokenize(src):
    tokens = []
    i = 0
    n = len(src)
    while i < n:
        c = src[i]
        if c == ' ' or c == '\t':
            i += 1
        elif is_digit(c):
            start = i
            while i < n and is_digit(src[i]):
                i += 1
            tokens.append(Token("num", src[start:i], start))
        elif is_alpha(c):
            start = i
            while i < n and (is_alpha(src[i]) or is_digit(src[i])):
                i += 1
            tokens.append(Token("name", src[start:i], start))
        elif c in "+-*/%()=":
            tokens.append(Token("op", c, i))
            i += 1
        else:
            raise ParseError("unexpected character " + c, i)
    tokens.append(Token("end", "", n))
    return tokens


class Node(object):
    def eval(self, env):
        raise EvalError("abstract node")

    def show(self):
        return "?"


class Num(Node):
    def __init__(self, value):
        self.value = value

    def eval(self, env):
        return self.value

    def show(self):
        return str(self.value)


class Var(Node):
    def __init__(self, name):
        self.name = name

    def eval(self, env):
        for i in range(len(env.names)):
            if env.names[i] == self.name:
                return env.values[i]
        raise EvalError("unbound variable " + self.name)

    def show(self):
        return self.name


class BinOp(Node):
    def __init__(self, op, left, right):
        self.op = op
        self.left = left
        self.right = right

    def eval(self, env):
        a = self.left.eval(env)
        b = self.right.eval(env)
        if self.op == '+':
            return a + b
        if self.op == '-':
            return a - b
        if self.op == '*':
            return a * b
        try:
            if self.op == '/':
                return a // b
            return a % b
        except ZeroDivisionError:
            raise EvalError("division by zero in " + self.show())

    def show(self):
        return "(" + self.left.show() + " " + self.op + " " + self.right.show() + ")"


class Env(object):
    def __init__(self):
        self.names = []
        self.values = []

    def set(self, name, value):
        for i in range(len(self.names)):
            if self.names[i] == name:
                self.values[i] = value
                return
        self.names.append(name)
        self.values.append(value)


class Parser(object):
    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0

    def peek(self):
        return self.tokens[self.pos]

    def advance(self):
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def expect(self, text):
        tok = self.advance()
        if tok.text != text:
            raise ParseError("expected " + text + " but found '" + tok.text + "'", tok.pos)

    def expr(self):
        node = self.term()
        while self.peek().text == '+' or self.peek().text == '-':
            op = self.advance().text
            node = BinOp(op, node, self.term())
        return node

    def term(self):
        node = self.atom()
        while self.peek().text in ('*', '/', '%'):
            op = self.advance().text
            node = BinOp(op, node, self.atom())
        return node

    def atom(self):
        tok = self.advance()
        if tok.kind == "num":
            return Num(int(tok.text))
        if tok.kind == "name":
            return Var(tok.text)
        if tok.text == '(':
            node = self.expr()
            self.expect(')')
            return node
        raise ParseError("unexpected '" + tok.text + "'", tok.pos)


def run_line(line, env):
    tokens = tokenize(line)
    target = ""
    if len(tokens) > 2 and tokens[0].kind == "name" and tokens[1].text == '=':
        target = tokens[0].text
        tokens = tokens[2:]
    parser = Parser(tokens)
    node = parser.expr()
    if parser.peek().kind != "end":
        raise ParseError("trailing input", parser.peek().pos)
    value = node.eval(env)
    if target:
        env.set(target, value)
        return target + " = " + str(value)
    return node.show() + " => " + str(value)


PROGRAM = [
    "x = 6 * 7",
    "y = x - 2 * (3 + 4)",
    "x + y * 2",
    "z = (x + y) % 5",
    "x / (y - 28)",
    "q + 1",
    "3 + * 4",
    "10 / 3 + 10 % 3",
    "a1 = 1", "a2 = a1 + a1", "a3 = a2 * a2 + a1",
    "a3 * 100 - a2",
]


def entry_point(argv):
    env = Env()
    rounds = 1
    if len(argv) > 1:
        rounds = int(argv[1])
    errors = 0
    for r in range(rounds):
        for line in PROGRAM:
            try:
                out = run_line(line, env)
                if r == rounds - 1:
                    print out
            except ParseError, e:
                errors += 1
                if r == rounds - 1:
                    print "parse error at " + str(e.pos) + ": " + e.msg
            except EvalError, e:
                errors += 1
                if r == rounds - 1:
                    print "error: " + str(e)
    print "errors: " + str(errors)
    return 0


def target(driver, args):
    return entry_point


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

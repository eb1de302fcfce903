# A tiny dynamically typed language in the style of PyPy's interpreters:
# wrapped objects (W_Int, W_Str, W_List, W_Func), an object space with
# binary operations that dispatch on types, a tokenizer and a recursive
# descent parser producing a tree, frames with local dicts whose lookups
# fall back to the global frame, OverflowError from ovfcheck turned into an error value,
# and a StringBuilder for output written with os.write. A user trial (its
# first version wrote with sys.stdout.write, which RPython has not).
# args: 25
import os
import sys
from rpython.rlib.rarithmetic import ovfcheck
from rpython.rlib.rstring import StringBuilder


class LangError(Exception):
    def __init__(self, msg):
        self.msg = msg


class W_Object(object):
    _attrs_ = ()

    def str_w(self):
        raise LangError("not a string")

    def int_w(self):
        raise LangError("not an int")

    def repr(self):
        return "<object>"

    def is_true(self):
        return True


class W_Int(W_Object):
    _immutable_fields_ = ['value']

    def __init__(self, value):
        self.value = value

    def int_w(self):
        return self.value

    def repr(self):
        return str(self.value)

    def is_true(self):
        return self.value != 0


class W_Str(W_Object):
    _immutable_fields_ = ['value']

    def __init__(self, value):
        self.value = value

    def str_w(self):
        return self.value

    def repr(self):
        return '"' + self.value + '"'

    def is_true(self):
        return len(self.value) > 0


class W_List(W_Object):
    def __init__(self, items):
        self.items = items

    def repr(self):
        return "[" + ", ".join([w.repr() for w in self.items]) + "]"

    def is_true(self):
        return len(self.items) > 0


class W_Func(W_Object):
    def __init__(self, name, params, body):
        self.name = name
        self.params = params
        self.body = body

    def repr(self):
        return "<fn %s/%d>" % (self.name, len(self.params))


W_NIL = W_List([])


class Space(object):
    def add(self, w_a, w_b):
        if isinstance(w_a, W_Int) and isinstance(w_b, W_Int):
            try:
                return W_Int(ovfcheck(w_a.value + w_b.value))
            except OverflowError:
                raise LangError("integer overflow")
        if isinstance(w_a, W_Str):
            return W_Str(w_a.value + w_b.str_w())
        if isinstance(w_a, W_List) and isinstance(w_b, W_List):
            return W_List(w_a.items + w_b.items)
        raise LangError("cannot add %s and %s" % (w_a.repr(), w_b.repr()))

    def mul(self, w_a, w_b):
        if isinstance(w_a, W_Int) and isinstance(w_b, W_Int):
            try:
                return W_Int(ovfcheck(w_a.value * w_b.value))
            except OverflowError:
                raise LangError("integer overflow")
        if isinstance(w_a, W_Str):
            return W_Str(w_a.value * w_b.int_w())
        raise LangError("cannot multiply")

    def sub(self, w_a, w_b):
        return W_Int(w_a.int_w() - w_b.int_w())

    def lt(self, w_a, w_b):
        if isinstance(w_a, W_Str) and isinstance(w_b, W_Str):
            return W_Int(int(w_a.value < w_b.value))
        return W_Int(int(w_a.int_w() < w_b.int_w()))


# ---- tokenizer and parser --------------------------------------------------

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
        elif c.isalpha() or c == '_':
            j = i
            while j < n and (src[j].isalnum() or src[j] == '_'):
                j += 1
            tokens.append(src[i:j])
            i = j
        elif c == '"':
            j = src.find('"', i + 1)
            if j < 0:
                raise LangError("unterminated string")
            tokens.append(src[i:j + 1])
            i = j + 1
        else:
            tokens.append(c)
            i += 1
    return tokens


class Node(object):
    def eval(self, interp, frame):
        raise NotImplementedError


class Const(Node):
    def __init__(self, w_value):
        self.w_value = w_value

    def eval(self, interp, frame):
        return self.w_value


class Name(Node):
    def __init__(self, name):
        self.name = name

    def eval(self, interp, frame):
        return frame.lookup(self.name)


class BinOp(Node):
    def __init__(self, op, left, right):
        self.op = op
        self.left = left
        self.right = right

    def eval(self, interp, frame):
        w_a = self.left.eval(interp, frame)
        w_b = self.right.eval(interp, frame)
        space = interp.space
        if self.op == '+':
            return space.add(w_a, w_b)
        elif self.op == '*':
            return space.mul(w_a, w_b)
        elif self.op == '-':
            return space.sub(w_a, w_b)
        return space.lt(w_a, w_b)


class If(Node):
    def __init__(self, cond, then, orelse):
        self.cond = cond
        self.then = then
        self.orelse = orelse

    def eval(self, interp, frame):
        if self.cond.eval(interp, frame).is_true():
            return self.then.eval(interp, frame)
        return self.orelse.eval(interp, frame)


class Call(Node):
    def __init__(self, fn, args):
        self.fn = fn
        self.args = args

    def eval(self, interp, frame):
        w_fn = self.fn.eval(interp, frame)
        args_w = [a.eval(interp, frame) for a in self.args]
        if not isinstance(w_fn, W_Func):
            raise LangError("calling " + w_fn.repr())
        if len(args_w) != len(w_fn.params):
            raise LangError("%s takes %d arguments" % (w_fn.name, len(w_fn.params)))
        return interp.call(w_fn, args_w)


class ListLit(Node):
    def __init__(self, items):
        self.items = items

    def eval(self, interp, frame):
        return W_List([i.eval(interp, frame) for i in self.items])


class Parser(object):
    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0

    def peek(self):
        if self.pos < len(self.tokens):
            return self.tokens[self.pos]
        return ""

    def next(self):
        tok = self.peek()
        self.pos += 1
        return tok

    def expect(self, tok):
        got = self.next()
        if got != tok:
            raise LangError("expected %s, got %s" % (tok, got or "end"))

    def expr(self):
        left = self.term()
        while self.peek() in ("+", "-", "<"):
            op = self.next()
            left = BinOp(op, left, self.term())
        return left

    def term(self):
        left = self.atom()
        while self.peek() == "*":
            self.next()
            left = BinOp("*", left, self.atom())
        return left

    def atom(self):
        tok = self.next()
        if tok == "":
            raise LangError("unexpected end")
        if tok[0].isdigit():
            node = Const(W_Int(int(tok)))
        elif tok[0] == '"':
            node = Const(W_Str(tok[1:len(tok) - 1]))
        elif tok == "(":
            node = self.expr()
            self.expect(")")
        elif tok == "[":
            items = []
            while self.peek() != "]":
                items.append(self.expr())
                if self.peek() == ",":
                    self.next()
            self.next()
            node = ListLit(items)
        elif tok == "if":
            cond = self.expr()
            self.expect("then")
            then = self.expr()
            self.expect("else")
            node = If(cond, then, self.expr())
        else:
            node = Name(tok)
        while self.peek() == "(":
            self.next()
            args = []
            while self.peek() != ")":
                args.append(self.expr())
                if self.peek() == ",":
                    self.next()
            self.next()
            node = Call(node, args)
        return node


class Frame(object):
    def __init__(self, parent):
        self.parent = parent
        self.locals = {}

    def lookup(self, name):
        f = self
        while f is not None:
            if name in f.locals:
                return f.locals[name]
            f = f.parent
        raise LangError("undefined: " + name)


class Interpreter(object):
    def __init__(self):
        self.space = Space()
        self.globals = Frame(None)
        self.depth = 0

    def call(self, w_fn, args_w):
        if self.depth > 200:
            raise LangError("recursion too deep")
        frame = Frame(self.globals)
        for i in range(len(args_w)):
            frame.locals[w_fn.params[i]] = args_w[i]
        self.depth += 1
        try:
            return w_fn.body.eval(self, frame)
        finally:
            self.depth -= 1

    def run_line(self, line, out):
        tokens = tokenize(line)
        if len(tokens) > 1 and tokens[0] == "def":
            name = tokens[1]
            eq = tokens.index("=")
            params = [t for t in tokens[2:eq] if t != ","]
            body = Parser(tokens[eq + 1:]).expr()
            self.globals.locals[name] = W_Func(name, params, body)
            out.append("defined " + name)
            return
        p = Parser(tokens)
        w_result = p.expr()
        if p.pos != len(tokens):
            raise LangError("trailing " + tokens[p.pos])
        out.append(w_result.eval(self, self.globals).repr())


PROGRAM = [
    "def fib n = if n < 2 then n else fib(n - 1) + fib(n - 2)",
    "def fact n = if n < 1 then 1 else n * fact(n - 1)",
    "def rep s, n = if n < 1 then \"\" else s + rep(s, n - 1)",
    "def range_ n = if n < 1 then [] else range_(n - 1) + [n]",
    "fib(15)",
    "fact(20)",
    "fact(25)",
    "rep(\"ab\", 4) + \"!\"",
    "range_(6)",
    "\"x\" * 3",
    "[1, \"two\", [3]] + [fib]",
    "undefined_thing",
    "fib(1, 2)",
    "3 + \"a\"",
    "(1 + 2",
    "def loop n = loop(n + 1)",
    "loop(0)",
]


def main(argv):
    n = int(argv[1]) if len(argv) > 1 else 10
    interp = Interpreter()
    out = []
    for line in PROGRAM:
        try:
            interp.run_line(line, out)
        except LangError as e:
            out.append("error: " + e.msg)
    try:
        interp.run_line("fib(%d)" % n, out)
    except LangError as e:
        out.append("error: " + e.msg)
    builder = StringBuilder()
    for i, line in enumerate(out):
        builder.append("%2d> " % i)
        builder.append(line)
        builder.append("\n")
    os.write(1, builder.build())
    return 0


def entry_point(argv):
    return main(argv)


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

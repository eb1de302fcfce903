# A Pratt parser for an expression language with binding powers from a
# class-attribute table, prefix and infix handlers, an AST class hierarchy
# walked by visitors (a printer, a constant folder) and an evaluator that
# raises its own exceptions (their kind a class attribute) for unbound
# names, division by zero and calls of unknown functions. Each visitor returns its own type
# (str, Node, int), so the dispatch is specialized by the visitor's class.
# args: 40
from rpython.rlib.objectmodel import specialize


class LangError(Exception):
    KIND = "error"

    def __init__(self, msg, pos):
        self.msg = msg
        self.pos = pos

    def describe(self):
        return "%s at %d: %s" % (self.KIND, self.pos, self.msg)


class ParseError(LangError):
    KIND = "parse error"


class EvalError(LangError):
    KIND = "eval error"


class Token(object):
    def __init__(self, kind, text, pos):
        self.kind = kind
        self.text = text
        self.pos = pos


def tokenize(src):
    tokens = []
    i = 0
    n = len(src)
    while i < n:
        c = src[i]
        if c.isspace():
            i += 1
        elif c.isdigit():
            start = i
            while i < n and src[i].isdigit():
                i += 1
            tokens.append(Token("num", src[start:i], start))
        elif c.isalpha() or c == "_":
            start = i
            while i < n and (src[i].isalpha() or src[i].isdigit() or src[i] == "_"):
                i += 1
            tokens.append(Token("name", src[start:i], start))
        elif src[i:i + 2] == "**" or src[i:i + 2] == "==" or src[i:i + 2] == "<=":
            tokens.append(Token("op", src[i:i + 2], i))
            i += 2
        elif c in "+-*/%()<,":
            tokens.append(Token("op", c, i))
            i += 1
        else:
            raise ParseError("unexpected character %r" % c, i)
    tokens.append(Token("eof", "", n))
    return tokens


class Node(object):
    pass

class Num(Node):
    def __init__(self, value):
        self.value = value


class Var(Node):
    def __init__(self, name, pos):
        self.name = name
        self.pos = pos


class Binary(Node):
    def __init__(self, op, left, right, pos):
        self.op = op
        self.left = left
        self.right = right
        self.pos = pos


class Call(Node):
    def __init__(self, name, args, pos):
        self.name = name
        self.args = args
        self.pos = pos


class Parser(object):
    # left binding powers; ** is right-associative
    BINDING = {"==": 10, "<": 10, "<=": 10, "+": 20, "-": 20,
               "*": 30, "/": 30, "%": 30, "**": 40, "(": 50}

    def __init__(self, tokens):
        self.tokens = tokens
        self.index = 0

    def peek(self):
        return self.tokens[self.index]

    def advance(self):
        tok = self.tokens[self.index]
        self.index += 1
        return tok

    def expect(self, text):
        tok = self.advance()
        if tok.text != text:
            raise ParseError("expected %r, got %r" % (text, tok.text), tok.pos)
        return tok

    def lbp(self, tok):
        if tok.kind != "op":
            return 0
        return self.BINDING.get(tok.text, 0)

    def expression(self, rbp=0):
        tok = self.advance()
        left = self.nud(tok)
        while rbp < self.lbp(self.peek()):
            tok = self.advance()
            left = self.led(tok, left)
        return left

    def nud(self, tok):
        if tok.kind == "num":
            return Num(int(tok.text))
        if tok.kind == "name":
            if self.peek().text == "(":
                self.advance()
                args = []
                if self.peek().text != ")":
                    args.append(self.expression())
                    while self.peek().text == ",":
                        self.advance()
                        args.append(self.expression())
                self.expect(")")
                return Call(tok.text, args, tok.pos)
            return Var(tok.text, tok.pos)
        if tok.text == "-":
            return Binary("-", Num(0), self.expression(35), tok.pos)
        if tok.text == "(":
            inner = self.expression()
            self.expect(")")
            return inner
        raise ParseError("unexpected %r" % tok.text, tok.pos)

    def led(self, tok, left):
        op = tok.text
        if op == "**":
            return Binary(op, left, self.expression(39), tok.pos)
        return Binary(op, left, self.expression(self.BINDING[op]), tok.pos)


def parse(src):
    parser = Parser(tokenize(src))
    tree = parser.expression()
    if parser.peek().kind != "eof":
        raise ParseError("trailing %r" % parser.peek().text, parser.peek().pos)
    return tree


@specialize.argtype(0)
def dispatch(visitor, node):
    """One copy per visitor class, so that each visitor's methods may
    return a type of their own (str, Node, int)."""
    if isinstance(node, Num):
        return visitor.visit_num(node)
    elif isinstance(node, Var):
        return visitor.visit_var(node)
    elif isinstance(node, Binary):
        return visitor.visit_binary(node)
    assert isinstance(node, Call)
    return visitor.visit_call(node)


class Printer(object):
    def visit_num(self, node):
        return str(node.value)

    def visit_var(self, node):
        return node.name

    def visit_binary(self, node):
        return "(%s %s %s)" % (dispatch(self, node.left), node.op, dispatch(self, node.right))

    def visit_call(self, node):
        return "%s(%s)" % (node.name, ", ".join([dispatch(self, a) for a in node.args]))


def apply_op(op, a, b, pos):
    if op == "+":
        return a + b
    elif op == "-":
        return a - b
    elif op == "*":
        return a * b
    elif op == "/" or op == "%":
        if b == 0:
            raise EvalError("division by zero", pos)
        return a // b if op == "/" else a % b
    elif op == "**":
        result = 1
        for _ in range(b):
            result *= a
        return result
    elif op == "==":
        return int(a == b)
    elif op == "<":
        return int(a < b)
    elif op == "<=":
        return int(a <= b)
    raise EvalError("bad operator " + op, pos)


class Folder(object):
    """Folds constant subtrees; leaves anything that would raise alone."""

    def visit_num(self, node):
        return node

    def visit_var(self, node):
        return node

    def visit_binary(self, node):
        left = dispatch(self, node.left)
        right = dispatch(self, node.right)
        if isinstance(left, Num) and isinstance(right, Num):
            try:
                return Num(apply_op(node.op, left.value, right.value, node.pos))
            except EvalError:
                pass
        return Binary(node.op, left, right, node.pos)

    def visit_call(self, node):
        return Call(node.name, [dispatch(self, a) for a in node.args], node.pos)


class Evaluator(object):
    def __init__(self, env):
        self.env = env
        self.calls = 0

    def visit_num(self, node):
        return node.value

    def visit_var(self, node):
        try:
            return self.env[node.name]
        except KeyError:
            raise EvalError("unbound name %s" % node.name, node.pos)

    def visit_binary(self, node):
        return apply_op(node.op, dispatch(self, node.left), dispatch(self, node.right), node.pos)

    def visit_call(self, node):
        self.calls += 1
        values = [dispatch(self, a) for a in node.args]
        if node.name == "abs" and len(values) == 1:
            return abs(values[0])
        if node.name == "sum" or (node.name == "max" and len(values) > 0):
            result = values[0] if node.name == "max" else 0
            for v in values:
                result = max(result, v) if node.name == "max" else result + v
            return result
        raise EvalError("no function %s/%d" % (node.name, len(values)), node.pos)


SOURCES = [
    "1 + 2 * 3",
    "2 ** 3 ** 2",
    "-x + y * (3 - 1)",
    "(x < y) * 10 + (y <= x) * 20",
    "max(x, y, 7) + abs(-4) + sum(1, 2, 3)",
    "(x + 1) * (y - 2) % 7",
    "10 / (x - x)",
    "z + 1",
    "foo(1)",
    "3 + * 4",
    "(1 + 2",
    "1 $ 2",
    "(2 == 2) + (3 < 1) + x * 0",
    "2 * 3 + 10 / 0",
]


def entry_point(argv):
    rounds = int(argv[1])
    printer = Printer()
    folder = Folder()
    errors = {}
    total = 0
    for src in SOURCES:
        try:
            tree = parse(src)
        except ParseError as e:
            print("%-40s %s" % (src, e.describe()))
            errors[e.KIND] = errors.get(e.KIND, 0) + 1
            continue
        folded = dispatch(folder, tree)
        print("%-40s => %s" % (src, dispatch(printer, tree)))
        print("%40s    %s" % ("", dispatch(printer, folded)))
    for i in range(rounds):
        env = {"x": i % 7, "y": i % 5 + 1}
        if i % 3 == 0:
            del env["y"]
        evaluator = Evaluator(env)
        for src in SOURCES:
            try:
                tree = parse(src)
                total += dispatch(evaluator, tree)
            except LangError as e:
                errors[e.KIND] = errors.get(e.KIND, 0) + 1
        total += evaluator.calls
    print("total %d" % total)
    kinds = []
    for kind in errors.keys():
        # insertion sort: the report lists the kinds alphabetically
        at = len(kinds)
        while at > 0 and kinds[at - 1] > kind:
            at -= 1
        kinds.insert(at, kind)
    for kind in kinds:
        print("%-12s %5d" % (kind, errors[kind]))
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    import sys
    sys.exit(entry_point(sys.argv))

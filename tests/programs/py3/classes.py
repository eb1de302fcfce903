# Classes: a small expression interpreter whose AST nodes are a class
# hierarchy with overridden methods, class attributes read through instances
# and classes, a base method called explicitly, user exception classes raised
# and caught by their base (at import time too), a static method, and a
# prebuilt instance mutated at import time.
# args: 6
import sys


class Node(object):
    symbol = "?"
    created = 0

    def __init__(self):
        self.depth = 0

    def eval(self, env):
        raise EvalError("cannot evaluate " + self.symbol)

    def show(self):
        return self.symbol

    def size(self):
        return 1

    @staticmethod
    def combine(a, b):
        return a * 10 + b


class Num(Node):
    symbol = "num"

    def __init__(self, value):
        Node.__init__(self)
        self.value = value

    def eval(self, env):
        return self.value

    def show(self):
        return str(self.value)


class Var(Node):
    symbol = "var"

    def __init__(self, name):
        Node.__init__(self)
        self.name = name

    def eval(self, env):
        if self.name not in env:
            raise UnboundError(self.name)
        return env[self.name]

    def show(self):
        return self.name


class BinOp(Node):
    def __init__(self, left, right):
        Node.__init__(self)
        self.left = left
        self.right = right

    def eval(self, env):
        return self.apply(self.left.eval(env), self.right.eval(env))

    def apply(self, a, b):
        raise EvalError("no operator")

    def show(self):
        return "(" + self.left.show() + " " + self.symbol + " " + self.right.show() + ")"

    def size(self):
        return 1 + self.left.size() + self.right.size()


class Add(BinOp):
    symbol = "+"

    def apply(self, a, b):
        return a + b


class Mul(BinOp):
    symbol = "*"

    def apply(self, a, b):
        return a * b


class Div(BinOp):
    symbol = "/"

    def apply(self, a, b):
        if b == 0:
            raise DivisionByZero(a)
        return a // b


class EvalError(Exception):
    pass


class UnboundError(EvalError):
    def __init__(self, name):
        EvalError.__init__(self, "unbound variable " + name)
        self.name = name


class DivisionByZero(EvalError):
    def __init__(self, dividend):
        self.dividend = dividend


class Stats(object):
    def __init__(self, label):
        self.label = label
        self.events = []
        self.count = 0

    def record(self, event):
        self.events.append(event)
        self.count += 1

    def report(self):
        return self.label + ": " + str(self.count) + " " + ",".join(self.events)


STATS = Stats("stats")
STATS.record("import")
KNOWN = []
for name in ["x", "y", "x"]:
    try:
        if name in KNOWN:
            raise EvalError("duplicate " + name)
        KNOWN.append(name)
    except EvalError as e:
        STATS.record(str(e))
DEFAULT_ENV = {"x": 4, "y": 0}
Node.created = 2


def evaluate(tree, env):
    STATS.record("eval")
    try:
        result = tree.eval(env)
    except UnboundError as e:
        print("unbound: " + e.name + " / " + str(e))
        return -1
    except DivisionByZero as e:
        print("division by zero of " + str(e.dividend))
        return -2
    except EvalError as e:
        print("error: " + str(e))
        return -3
    return result


def describe(node):
    if isinstance(node, BinOp):
        kind = "binop"
    elif type(node) is Num:
        kind = "number"
    elif isinstance(node, Node):
        kind = "leaf"
    else:
        kind = "other"
    return kind + " " + node.show() + " size " + str(node.size())


def entry_point(argv):
    n = int(argv[1])
    trees = [
        Add(Num(n), Mul(Var("x"), Num(3))),
        Div(Num(n), Var("y")),
        Add(Var("z"), Num(1)),
        Div(Mul(Num(n), Num(n)), Num(4)),
        Node(),
    ]
    for t in trees:
        print(describe(t) + " = " + str(evaluate(t, DEFAULT_ENV)))
    print(Node.symbol + " " + Add.symbol + " " + trees[0].symbol + " " + str(Node.created))
    show = trees[0].show
    print("bound: " + show())
    print(BinOp.show(trees[3]))
    print(str(Node.combine(1, 2)) + " " + str(trees[0].combine(3, 4)) + " " + str(Add.combine(b=6, a=5)))
    STATS.record("done")
    print(STATS.report())
    print(isinstance(STATS, Node), isinstance(trees[1], Div), isinstance(trees[1], Add))
    print(isinstance(trees[2], (Num, Add)), isinstance(trees[1], (Num, Var)))
    try:
        raise EvalError
    except Exception as e:
        print("raised the class: '" + str(e) + "'")
    if n > 5:
        raise UnboundError("n")
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

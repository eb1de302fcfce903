# A tiny Lisp: a reader that slices the source into tokens, cons-free list
# values in a class hierarchy, an evaluator with an environment chain of
# frames, lambdas closing over their frame, and errors as exceptions.
# args: 15
import sys


class LispError(Exception):
    def __init__(self, msg):
        self.msg = msg


class Value(object):
    def show(self):
        return "?"

    def truthy(self):
        return True


class Int(Value):
    def __init__(self, n):
        self.n = n

    def show(self):
        return str(self.n)

    def truthy(self):
        return self.n != 0


class Sym(Value):
    def __init__(self, name):
        self.name = name

    def show(self):
        return self.name


class List(Value):
    def __init__(self, items):
        self.items = items

    def show(self):
        return "(" + " ".join([v.show() for v in self.items]) + ")"

    def truthy(self):
        return len(self.items) > 0


class Lambda(Value):
    def __init__(self, params, body, env, name):
        self.params = params
        self.body = body
        self.env = env
        self.name = name

    def show(self):
        return "<lambda %s/%d>" % (self.name, len(self.params))


class Frame(object):
    def __init__(self, parent):
        self.vars = {}
        self.parent = parent

    def lookup(self, name):
        frame = self
        while frame is not None:
            if name in frame.vars:
                return frame.vars[name]
            frame = frame.parent
        raise LispError("unbound symbol: " + name)

    def depth(self):
        d = 0
        frame = self.parent
        while frame is not None:
            d += 1
            frame = frame.parent
        return d


def tokenize(src):
    tokens = []
    i = 0
    while i < len(src):
        c = src[i]
        if c in "()":
            tokens.append(c)
            i += 1
        elif c.isspace():
            i += 1
        elif c == ";":
            end = src.find("\n", i)
            i = len(src) if end < 0 else end
        else:
            start = i
            while i < len(src) and not src[i].isspace() and src[i] not in "()":
                i += 1
            tokens.append(src[start:i])
    return tokens


def read(tokens, pos):
    if pos >= len(tokens):
        raise LispError("unexpected end of input")
    tok = tokens[pos]
    if tok == "(":
        items = []
        pos += 1
        while pos < len(tokens) and tokens[pos] != ")":
            item, pos = read(tokens, pos)
            items.append(item)
        if pos >= len(tokens):
            raise LispError("missing )")
        return List(items), pos + 1
    if tok == ")":
        raise LispError("unexpected )")
    try:
        return Int(int(tok)), pos + 1
    except ValueError:
        return Sym(tok), pos + 1


def as_int(v):
    if isinstance(v, Int):
        return v.n
    raise LispError("not a number: " + v.show())


def builtin(name, args):
    if name == "list":
        return List(args)
    if name == "car" or name == "cdr" or name == "null?":
        lst = args[0]
        if not isinstance(lst, List):
            raise LispError(name + " of non-list " + lst.show())
        if name == "null?":
            return Int(1 if len(lst.items) == 0 else 0)
        if not lst.items:
            raise LispError(name + " of empty list")
        if name == "car":
            return lst.items[0]
        return List(lst.items[1:])
    if name == "cons":
        rest = args[1]
        if not isinstance(rest, List):
            raise LispError("cons onto non-list")
        return List([args[0]] + rest.items)
    a = as_int(args[0])
    b = as_int(args[1])
    if name == "+":
        return Int(a + b)
    if name == "-":
        return Int(a - b)
    if name == "*":
        return Int(a * b)
    if name == "/":
        try:
            return Int(a // b)
        except ZeroDivisionError:
            raise LispError("division by zero")
    if name == "<":
        return Int(1 if a < b else 0)
    if name == "=":
        return Int(1 if a == b else 0)
    raise LispError("unknown function " + name)


BUILTINS = ["+", "-", "*", "/", "<", "=", "list", "car", "cdr", "cons", "null?"]


class Interp(object):
    def __init__(self):
        self.globals = Frame(None)
        self.calls = 0
        self.max_depth = 0

    def eval(self, x, env):
        while True:
            if isinstance(x, Int):
                return x
            if isinstance(x, Sym):
                return env.lookup(x.name)
            assert isinstance(x, List)
            if not x.items:
                return x
            head = x.items[0]
            if isinstance(head, Sym):
                name = head.name
                if name == "quote":
                    return x.items[1]
                if name == "if":
                    if self.eval(x.items[1], env).truthy():
                        x = x.items[2]
                    else:
                        x = x.items[3]
                    continue
                if name == "define":
                    target = x.items[1]
                    assert isinstance(target, Sym)
                    value = self.eval(x.items[2], env)
                    if isinstance(value, Lambda):
                        value.name = target.name
                    env.vars[target.name] = value
                    return value
                if name == "lambda":
                    params = x.items[1]
                    assert isinstance(params, List)
                    return Lambda([p.show() for p in params.items], x.items[2], env, "anon")
                if name in BUILTINS and name not in env.vars:
                    args = [self.eval(a, env) for a in x.items[1:]]
                    return builtin(name, args)
            fn = self.eval(head, env)
            if not isinstance(fn, Lambda):
                raise LispError("not callable: " + fn.show())
            if len(fn.params) != len(x.items) - 1:
                raise LispError("%s wants %d args, got %d" % (fn.name, len(fn.params), len(x.items) - 1))
            frame = Frame(fn.env)
            for i in range(len(fn.params)):
                frame.vars[fn.params[i]] = self.eval(x.items[i + 1], env)
            self.calls += 1
            self.max_depth = max(self.max_depth, frame.depth())
            x = fn.body
            env = frame


PRELUDE = """
(define fact (lambda (n) (if (< n 2) 1 (* n (fact (- n 1))))))
(define fib (lambda (n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))))
(define len (lambda (l) (if (null? l) 0 (+ 1 (len (cdr l))))))
(define map (lambda (f l) (if (null? l) (quote ()) (cons (f (car l)) (map f (cdr l))))))
(define range (lambda (a b) (if (< a b) (cons a (range (+ a 1) b)) (quote ()))))
(define adder (lambda (k) (lambda (x) (+ x k))))
(define count (lambda (n acc) (if (= n 0) acc (count (- n 1) (+ acc 1)))))
"""


def run_source(interp, src):
    tokens = tokenize(src)
    pos = 0
    result = None
    while pos < len(tokens):
        expr, pos = read(tokens, pos)
        result = interp.eval(expr, interp.globals)
    return result


def entry_point(argv):
    n = 10
    if len(argv) > 1:
        n = int(argv[1])
    interp = Interp()
    run_source(interp, PRELUDE)
    tests = ["(fact %d)" % n, "(fib %d)" % n, "(map (adder 100) (range 0 %d))" % (n // 2),
             "(len (range 0 %d))" % n, "(count %d 0)" % (n * 100),
             "(car (quote ()))", "(/ 10 (- 3 3))", "(undefined 1)", "(fact 1 2)",
             "(1 2 3)", "(quote (a (b c) d))", "(+ 1", ")", "((adder 5) 37) ; comment"]
    for src in tests:
        try:
            v = run_source(interp, src)
            if v is None:
                print("%s => nothing" % src)
            else:
                print("%s => %s" % (src, v.show()))
        except LispError as e:
            print("%s !! %s" % (src, e.msg))
    print("calls %d, deepest frame chain %d" % (interp.calls, interp.max_depth))
    print("globals: %d" % len(interp.globals.vars))
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

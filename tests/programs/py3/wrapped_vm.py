# A PyPy-style interpreter over wrapped objects: W_Int, W_Str and W_List
# instances with overridden add/lt/is_true/str_w methods, a frame with a
# fixed-size value stack, globals in a dict, a code table of (opcode, arg)
# tuples, and an OperationError carrying a wrapped value.
# args: 5
import sys


class W_Object(object):
    def add(self, w_other):
        raise OperationError(W_Str("unsupported operand for +"))

    def lt(self, w_other):
        raise OperationError(W_Str("unorderable"))

    def is_true(self):
        return True

    def str_w(self):
        return "<object>"


class W_Int(W_Object):
    def __init__(self, v):
        self.v = v

    def add(self, w_other):
        if isinstance(w_other, W_Int):
            return W_Int(self.v + w_other.v)
        return W_Object.add(self, w_other)

    def lt(self, w_other):
        if isinstance(w_other, W_Int):
            return W_Int(1 if self.v < w_other.v else 0)
        return W_Object.lt(self, w_other)

    def is_true(self):
        return self.v != 0

    def str_w(self):
        return str(self.v)


class W_Str(W_Object):
    def __init__(self, s):
        self.s = s

    def add(self, w_other):
        if isinstance(w_other, W_Str):
            return W_Str(self.s + w_other.s)
        return W_Object.add(self, w_other)

    def is_true(self):
        return len(self.s) > 0

    def str_w(self):
        return self.s


class W_List(W_Object):
    def __init__(self, items):
        self.items = items

    def add(self, w_other):
        if isinstance(w_other, W_List):
            return W_List(self.items + w_other.items)
        return W_Object.add(self, w_other)

    def is_true(self):
        return len(self.items) > 0

    def str_w(self):
        return "[" + ", ".join([w.str_w() for w in self.items]) + "]"


class OperationError(Exception):
    def __init__(self, w_value):
        self.w_value = w_value


W_NONE = W_Object()


class Frame(object):
    def __init__(self, code, w_globals, depth):
        self.code = code
        self.stack = [W_NONE] * depth
        self.sp = 0
        self.w_globals = w_globals
        self.output = []

    def push(self, w):
        if self.sp >= len(self.stack):
            raise OperationError(W_Str("stack overflow"))
        self.stack[self.sp] = w
        self.sp += 1

    def pop(self):
        if self.sp == 0:
            raise OperationError(W_Str("stack underflow"))
        self.sp -= 1
        w = self.stack[self.sp]
        self.stack[self.sp] = W_NONE
        return w

    def run(self):
        pc = 0
        steps = 0
        code = self.code
        while pc < len(code):
            op, arg = code[pc]
            pc += 1
            steps += 1
            if op == "int":
                self.push(W_Int(int(arg)))
            elif op == "str":
                self.push(W_Str(arg))
            elif op == "add":
                w_b = self.pop()
                w_a = self.pop()
                self.push(w_a.add(w_b))
            elif op == "lt":
                w_b = self.pop()
                w_a = self.pop()
                self.push(w_a.lt(w_b))
            elif op == "store":
                self.w_globals[arg] = self.pop()
            elif op == "load":
                if arg not in self.w_globals:
                    raise OperationError(W_Str("name '%s' is not defined" % arg))
                self.push(self.w_globals[arg])
            elif op == "list":
                n = int(arg)
                items = [W_NONE] * n
                for i in range(n - 1, -1, -1):
                    items[i] = self.pop()
                self.push(W_List(items))
            elif op == "jump":
                pc = int(arg)
            elif op == "jump_if_false":
                if not self.pop().is_true():
                    pc = int(arg)
            elif op == "print":
                self.output.append(self.pop().str_w())
            else:
                raise OperationError(W_Str("bad opcode " + op))
        return steps


# i = 0; acc = ""; while i < N: acc = acc + "ab"; i = i + 1; print i, acc
LOOP = [("int", "0"), ("store", "i"), ("str", ""), ("store", "acc"),
        ("load", "i"), ("load", "n"), ("lt", ""), ("jump_if_false", "17"),
        ("load", "acc"), ("str", "ab"), ("add", ""), ("store", "acc"),
        ("load", "i"), ("int", "1"), ("add", ""), ("store", "i"), ("jump", "4"),
        ("load", "i"), ("print", ""), ("load", "acc"), ("print", "")]

LISTS = [("int", "1"), ("str", "two"), ("list", "2"), ("int", "3"), ("list", "1"),
         ("add", ""), ("store", "l"), ("load", "l"), ("print", ""),
         ("load", "l"), ("jump_if_false", "13"), ("str", "non-empty"), ("print", "")]

BAD_ADD = [("int", "40"), ("int", "2"), ("add", ""), ("print", ""),
           ("int", "1"), ("str", "x"), ("add", ""), ("print", "")]

BAD_NAME = [("load", "nothing")]
UNDERFLOW = [("add", "")]
OVERFLOW = [("int", "1"), ("int", "2"), ("int", "3"), ("int", "4"), ("int", "5")]
BAD_OP = [("int", "1"), ("frobnicate", "")]
PROGRAMS = [("loop", LOOP), ("lists", LISTS), ("bad add", BAD_ADD), ("bad name", BAD_NAME),
            ("underflow", UNDERFLOW), ("overflow", OVERFLOW), ("bad op", BAD_OP)]


def entry_point(argv):
    n = 3
    if len(argv) > 1:
        n = int(argv[1])
    total_steps = 0
    for name, code in PROGRAMS:
        w_globals = {}
        w_globals["n"] = W_Int(n)
        frame = Frame(code, w_globals, 4)
        try:
            total_steps += frame.run()
            status = "ok"
        except OperationError as e:
            status = "error: " + e.w_value.str_w()
        print(name + ": " + " | ".join(frame.output) + " -> " + status)
        print("  globals: %d, stack depth left: %d" % (len(w_globals), frame.sp))
    print("steps: %d" % total_steps)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

# A stack-based bytecode interpreter: a Frame class whose stack is a list,
# a dict of globals, builtin functions as prebuilt constants in a dispatch
# table called with *args, keyword and default arguments, a Code object
# with __getitem__/__len__, a generator over instructions, enumerate, zip,
# reversed, min/max, abs, hash of strings and isinstance over value classes.
# args: 6
import sys

OPS = ["PUSH", "LOAD", "STORE", "ADD", "SUB", "MUL", "LT", "JMPF", "JMP",
       "CALL", "PRINT", "HALT", "DUP", "POP"]
OPCODE = {}
for _i, _name in enumerate(OPS):
    OPCODE[_name] = _i


class W_Value(object):
    def str(self):
        return "?"

    def truth(self):
        return True


class W_Int(W_Value):
    def __init__(self, v):
        self.v = v

    def str(self):
        return str(self.v)

    def truth(self):
        return self.v != 0


class W_Str(W_Value):
    def __init__(self, s):
        self.s = s

    def str(self):
        return self.s

    def truth(self):
        return len(self.s) > 0


class W_List(W_Value):
    def __init__(self, items):
        self.items = items

    def str(self):
        return "[" + ", ".join([w.str() for w in self.items]) + "]"


class Code(object):
    def __init__(self, name, insns, consts):
        self.name = name
        self.insns = insns
        self.consts = consts

    def __len__(self):
        return len(self.insns)

    def __getitem__(self, i):
        return self.insns[i]


class VMError(Exception):
    def __init__(self, msg):
        self.msg = msg


def as_int(w):
    if isinstance(w, W_Int):
        return w.v
    raise VMError("not an int")


def b_max(args):
    return W_Int(max([as_int(w) for w in args]))


def b_min(args):
    return W_Int(min([as_int(w) for w in args]))


def b_abs(args):
    return W_Int(abs(as_int(args[0])))


def b_len(args):
    w = args[0]
    if isinstance(w, W_Str):
        return W_Int(len(w.s))
    if isinstance(w, W_List):
        return W_Int(len(w.items))
    raise VMError("len of int")


def b_list(args):
    return W_List(list(args))


def b_hash(args):
    # a string's hash is not the same from run to run: compare two of them
    s = args[0].str()
    t = s[:1] + s[1:]
    return W_Int(int(hash(s) == hash(t)) + 2 * int(hash(s) == hash(s + "!")))


BUILTINS = [("max", b_max), ("min", b_min), ("abs", b_abs), ("len", b_len),
            ("list", b_list), ("hash8", b_hash)]


class Frame(object):
    def __init__(self, code, globals_w, trace=False, limit=10000):
        self.code = code
        self.stack = []
        self.globals_w = globals_w
        self.trace = trace
        self.limit = limit

    def push(self, w):
        self.stack.append(w)

    def pop(self):
        return self.stack.pop()

    def popn(self, n):
        args = []
        for _ in range(n):
            args.append(self.pop())
        args.reverse()
        return args


def instructions(code, start):
    pc = start
    while pc < len(code):
        yield pc, code[pc]
        pc += 1


def call_builtin(index, *args):
    name, fn = BUILTINS[index]
    return fn(list(args))


def run(frame):
    code = frame.code
    pc = 0
    steps = 0
    out = []
    while pc < len(code):
        steps += 1
        if steps > frame.limit:
            raise VMError("step limit")
        op, arg = code[pc]
        pc += 1
        if frame.trace:
            out.append("%s:%d" % (OPS[op], arg))
        if op == OPCODE["PUSH"]:
            frame.push(code.consts[arg])
        elif op == OPCODE["LOAD"]:
            frame.push(frame.globals_w[code.consts[arg].str()])
        elif op == OPCODE["STORE"]:
            frame.globals_w[code.consts[arg].str()] = frame.pop()
        elif op == OPCODE["DUP"]:
            frame.push(frame.stack[-1])
        elif op == OPCODE["POP"]:
            frame.pop()
        elif op == OPCODE["ADD"] or op == OPCODE["SUB"] or op == OPCODE["MUL"] or op == OPCODE["LT"]:
            b = as_int(frame.pop())
            a = as_int(frame.pop())
            if op == OPCODE["ADD"]:
                r = a + b
            elif op == OPCODE["SUB"]:
                r = a - b
            elif op == OPCODE["MUL"]:
                r = a * b
            else:
                r = int(a < b)
            frame.push(W_Int(r))
        elif op == OPCODE["JMPF"]:
            if not frame.pop().truth():
                pc = arg
        elif op == OPCODE["JMP"]:
            pc = arg
        elif op == OPCODE["CALL"]:
            index = arg & 0xff
            nargs = arg >> 8
            args = frame.popn(nargs)
            if nargs == 1:
                w = call_builtin(index, args[0])
            elif nargs == 2:
                w = call_builtin(index, args[0], args[1])
            else:
                w = call_builtin(index, args[0], args[1], args[2])
            frame.push(w)
        elif op == OPCODE["PRINT"]:
            print("out: " + frame.pop().str())
        elif op == OPCODE["HALT"]:
            break
    return steps, out


def assemble(name, source, consts):
    insns = []
    for line in source.split(";"):
        line = line.strip()
        if not line:
            continue
        parts = line.split(" ")
        arg = 0
        if len(parts) > 1:
            arg = int(parts[1])
        insns.append((OPCODE[parts[0]], arg))
    return Code(name, insns, consts)


def builtin_index(name):
    for i, pair in enumerate(BUILTINS):
        if pair[0] == name:
            return i
    return -1


def disassemble(code, first=0):
    lines = []
    for pc, insn in instructions(code, first):
        lines.append("%3d %-6s %d" % (pc, OPS[insn[0]], insn[1]))
    return lines


def entry_point(argv):
    n = 6
    if len(argv) > 1:
        n = int(argv[1])
    consts = [W_Str("i"), W_Int(0), W_Int(n), W_Int(1), W_Str("acc"),
              W_Int(-7), W_Str("hello")]
    call_max = (2 << 8) | builtin_index("max")
    call_list = (3 << 8) | builtin_index("list")
    call_abs = (1 << 8) | builtin_index("abs")
    call_hash = (1 << 8) | builtin_index("hash8")
    call_len = (1 << 8) | builtin_index("len")
    src = ("PUSH 1; STORE 0; PUSH 3; STORE 4; "
           "LOAD 0; PUSH 2; LT; JMPF 23; "
           "LOAD 4; LOAD 0; PUSH 3; ADD; MUL; STORE 4; "
           "LOAD 4; PUSH 5; CALL %d; PRINT; "
           "LOAD 0; PUSH 3; ADD; STORE 0; JMP 4; "
           "PUSH 5; CALL %d; LOAD 0; LOAD 4; CALL %d; DUP; PRINT; CALL %d; PRINT; "
           "PUSH 6; DUP; CALL %d; PRINT; CALL %d; PUSH 1; POP; HALT"
           % (call_max, call_abs, call_list, call_len, call_hash, call_len))
    code = assemble("main", src, consts)
    print("code %s: %d instructions" % (code.name, len(code)))
    for line in disassemble(code):
        print(line)
    globals_w = {}
    frame = Frame(code, globals_w, limit=5000)
    steps, trace = run(frame)
    print("steps %d, stack depth %d, stack left %s" % (steps, len(frame.stack), bool(frame.stack)))
    for name, w in globals_w.items():
        print("global %s = %s" % (name, w.str()))
    frame2 = Frame(code, {}, True)
    steps2, trace = run(frame2)
    print("traced %d steps, first %s, last %s" % (steps2, trace[0], trace[-1]))
    backwards = []
    for step in reversed(trace):
        backwards.append(step)
    for a, b in zip(trace, backwards):
        if a == b:
            print("palindromic step %s" % a)
    print("max %d min %d" % (max(steps, steps2), min(len(trace), 3)))
    print("tail of disassembly: %s" % ", ".join(disassemble(code, len(code) - 3)))
    try:
        run(Frame(assemble("bad", "PUSH 0; PUSH 1; ADD", consts), {}))
    except VMError as e:
        print("error: " + e.msg)
    try:
        run(Frame(code, {}, limit=10))
    except VMError as e:
        print("error: " + e.msg)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

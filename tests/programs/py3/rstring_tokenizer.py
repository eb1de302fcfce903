# A tokenizer and pretty-printer for a small expression language built on
# rlib's StringBuilder: tokens are collected character by character with
# append, append_slice copies identifiers and numbers out of the source,
# append_multiple_char indents and draws rules, and getlength tracks the
# output width. Floats are classified with rfloat (isinf, isnan, isfinite).
# args: 6
from rpython.rlib.rstring import StringBuilder
from rpython.rlib.rfloat import isinf, isnan, isfinite, INFINITY, NAN

KIND_NAME = 0
KIND_NUMBER = 1
KIND_OP = 2
KIND_STRING = 3
KIND_NAMES = ["name", "number", "op", "string"]


class Token(object):
    def __init__(self, kind, text, line):
        self.kind = kind
        self.text = text
        self.line = line


class LexError(Exception):
    def __init__(self, message):
        self.message = message


def is_name_char(c):
    return c.isalpha() or c.isdigit() or c == "_"


def tokenize(source):
    tokens = []
    i = 0
    line = 1
    n = len(source)
    while i < n:
        c = source[i]
        if c == "\n":
            line += 1
            i += 1
        elif c == " " or c == "\t":
            i += 1
        elif c.isalpha() or c == "_":
            start = i
            while i < n and is_name_char(source[i]):
                i += 1
            b = StringBuilder()
            b.append_slice(source, start, i)
            tokens.append(Token(KIND_NAME, b.build(), line))
        elif c.isdigit():
            start = i
            while i < n and (source[i].isdigit() or source[i] == "."):
                i += 1
            b = StringBuilder(8)
            b.append_slice(source, start, i)
            tokens.append(Token(KIND_NUMBER, b.build(), line))
        elif c == '"':
            b = StringBuilder()
            i += 1
            while i < n and source[i] != '"':
                if source[i] == "\\" and i + 1 < n:
                    i += 1
                    if source[i] == "n":
                        b.append("\n")
                    else:
                        b.append(source[i])
                else:
                    b.append(source[i])
                i += 1
            if i >= n:
                raise LexError("unterminated string on line %d" % line)
            i += 1
            tokens.append(Token(KIND_STRING, b.build(), line))
        elif c in "+-*/()=<>,;":
            if i + 1 < n and source[i + 1] == "=" and c in "<>=":
                tokens.append(Token(KIND_OP, source[i:i + 2], line))
                i += 2
            else:
                tokens.append(Token(KIND_OP, c, line))
                i += 1
        else:
            raise LexError("unexpected character '%s' on line %d" % (c, line))
    return tokens


def render(tokens):
    out = StringBuilder()
    depth = 0
    at_line_start = True
    for t in tokens:
        if t.kind == KIND_OP and t.text == ")":
            depth -= 1
        if at_line_start:
            out.append_multiple_char(" ", 4 * depth)
            at_line_start = False
        if t.kind == KIND_STRING:
            out.append('"')
            for ch in t.text:
                if ch == "\n":
                    out.append("\\n")
                else:
                    out.append(ch)
            out.append('"')
        else:
            out.append(t.text)
        if t.kind == KIND_OP and t.text == "(":
            depth += 1
        if t.kind == KIND_OP and t.text == ";":
            out.append("\n")
            at_line_start = True
        else:
            out.append(" ")
    return out.build()


def rule(width, ch):
    b = StringBuilder()
    b.append("+")
    b.append_multiple_char(ch, width)
    b.append("+")
    return b.build()


def classify(x):
    if isnan(x):
        return "nan"
    if isinf(x):
        if x > 0.0:
            return "+inf"
        return "-inf"
    if isfinite(x):
        return "finite"
    return "?"


SOURCE = ('let total = (price * 3) + tax(rate, 2.5);\n'
          'if total >= 100 then print("big\\norder");\n'
          'let name = "a \\"quoted\\" word";\n'
          'print(f(g(h(1), 2), 3));\n')


def entry_point(argv):
    repeat = int(argv[1])
    tokens = tokenize(SOURCE)
    counts = [0, 0, 0, 0]
    for t in tokens:
        counts[t.kind] += 1
    for k in range(4):
        print("%s: %d" % (KIND_NAMES[k], counts[k]))
    text = render(tokens)
    print(rule(30, "-"))
    print(text)
    print(rule(30, "="))
    big = StringBuilder()
    for i in range(repeat):
        big.append(render(tokenize(SOURCE)))
        big.append_multiple_char("#", i)
    print("built %d chars in %d renders, getlength %d" % (
        len(big.build()), repeat, big.getlength()))
    for bad in ['let x = "open', 'let y = 3 $ 4']:
        try:
            tokenize(bad)
        except LexError as e:
            print("lex error: " + e.message)
    values = [1.5, INFINITY, -INFINITY, NAN, 0.0, 1e308 * 10.0]
    for v in values:
        print(classify(v))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    import sys
    entry_point(sys.argv)

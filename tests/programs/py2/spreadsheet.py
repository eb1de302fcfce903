# A small spreadsheet: cells hold numbers, text or formulas such as
# "=A1+B2*2" or "=SUM(A1:A4)"; formulas are parsed into node trees and
# evaluated with a cache, cycles and bad references are reported. A
# char's upper() gives a char (`ord(col0)`), as in RPython; a user trial.
# args: 40
import sys


class SheetError(Exception):
    def __init__(self, message):
        self.message = message


class CycleError(SheetError):
    pass


class Node(object):
    def evaluate(self, sheet, visiting):
        raise NotImplementedError

    def show(self):
        return "?"


class Number(Node):
    def __init__(self, value):
        self.value = value

    def evaluate(self, sheet, visiting):
        return self.value

    def show(self):
        return "%g" % self.value


class Ref(Node):
    def __init__(self, name):
        self.name = name

    def evaluate(self, sheet, visiting):
        return sheet.value_of(self.name, visiting)

    def show(self):
        return self.name


class BinOp(Node):
    def __init__(self, op, left, right):
        self.op = op
        self.left = left
        self.right = right

    def evaluate(self, sheet, visiting):
        a = self.left.evaluate(sheet, visiting)
        b = self.right.evaluate(sheet, visiting)
        if self.op == '+':
            return a + b
        if self.op == '-':
            return a - b
        if self.op == '*':
            return a * b
        if b == 0.0:
            raise SheetError("division by zero")
        return a / b

    def show(self):
        return "(" + self.left.show() + " " + self.op + " " + self.right.show() + ")"


class RangeSum(Node):
    def __init__(self, first, last):
        self.first = first
        self.last = last

    def evaluate(self, sheet, visiting):
        col0, row0 = split_name(self.first)
        col1, row1 = split_name(self.last)
        total = 0.0
        for c in range(ord(col0), ord(col1) + 1):
            for r in range(row0, row1 + 1):
                total += sheet.value_of(chr(c) + str(r), visiting)
        return total

    def show(self):
        return "SUM(%s:%s)" % (self.first, self.last)


def split_name(name):
    if len(name) < 2 or not name[0].isalpha() or not name[1:].isdigit():
        raise SheetError("bad cell name '%s'" % name)
    return name[0].upper(), int(name[1:])


class Parser(object):
    def __init__(self, text):
        self.text = text
        self.pos = 0

    def peek(self):
        while self.pos < len(self.text) and self.text[self.pos] == ' ':
            self.pos += 1
        if self.pos < len(self.text):
            return self.text[self.pos]
        return ''

    def expect(self, ch):
        if self.peek() != ch:
            raise SheetError("expected '%s' at %d in '%s'" % (ch, self.pos, self.text))
        self.pos += 1

    def parse_expr(self):
        node = self.parse_term()
        while self.peek() in ('+', '-'):
            op = self.text[self.pos]
            self.pos += 1
            node = BinOp(op, node, self.parse_term())
        return node

    def parse_term(self):
        node = self.parse_atom()
        while self.peek() in ('*', '/'):
            op = self.text[self.pos]
            self.pos += 1
            node = BinOp(op, node, self.parse_atom())
        return node

    def word(self):
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos].isalnum():
            self.pos += 1
        return self.text[start:self.pos]

    def parse_atom(self):
        ch = self.peek()
        if ch == '(':
            self.pos += 1
            node = self.parse_expr()
            self.expect(')')
            return node
        if ch.isdigit() or ch == '.':
            start = self.pos
            while self.pos < len(self.text) and (self.text[self.pos].isdigit() or self.text[self.pos] == '.'):
                self.pos += 1
            return Number(float(self.text[start:self.pos]))
        if ch.isalpha():
            name = self.word().upper()
            if name == "SUM":
                self.expect('(')
                first = self.word().upper()
                self.expect(':')
                last = self.word().upper()
                self.expect(')')
                return RangeSum(first, last)
            split_name(name)
            return Ref(name)
        raise SheetError("unexpected '%s' in '%s'" % (ch, self.text))


class Sheet(object):
    def __init__(self):
        self.formulas = {}
        self.texts = {}
        self.cache = {}

    def set(self, name, raw):
        self.cache = {}
        if name in self.texts:
            del self.texts[name]
        if raw.startswith("="):
            self.formulas[name] = Parser(raw[1:]).parse_expr()
        else:
            try:
                self.formulas[name] = Number(float(raw))
            except ValueError:
                self.texts[name] = raw
                if name in self.formulas:
                    del self.formulas[name]

    def value_of(self, name, visiting):
        if name in self.cache:
            return self.cache[name]
        if name in visiting:
            raise CycleError("cycle through " + name)
        node = self.formulas.get(name, None)
        if node is None:
            return 0.0
        visiting[name] = True
        try:
            value = node.evaluate(self, visiting)
        finally:
            del visiting[name]
        self.cache[name] = value
        return value

    def report(self, names):
        lines = []
        for name in names:
            if name in self.texts:
                lines.append("%-4s %12s  '%s'" % (name, "text", self.texts[name]))
                continue
            try:
                value = self.value_of(name, {})
                shown = self.formulas[name].show() if name in self.formulas else "-"
                lines.append("%-4s %12.3f  %s" % (name, value, shown))
            except CycleError as e:
                lines.append("%-4s %12s  %s" % (name, "#CYCLE", e.message))
            except SheetError as e:
                lines.append("%-4s %12s  %s" % (name, "#ERROR", e.message))
        return "\n".join(lines)


def build(sheet, n):
    for i in range(1, n + 1):
        sheet.set("A%d" % i, str(i * 1.5))
        sheet.set("B%d" % i, "=A%d*2 + %d" % (i, i % 7))
    sheet.set("C1", "=SUM(A1:B%d)" % n)
    sheet.set("C2", "=C1 / (A1 - 1.5)")
    sheet.set("C3", "=C4 + 1")
    sheet.set("C4", "=C3 * 2")
    sheet.set("C5", "total")
    sheet.set("C6", "=(A2 + B2) * (A3 - B3) / 4")
    sheet.set("C7", "=Z99 + 1")
    sheet.set("C8", "=A1 + + 2")


def main(argv):
    n = 20
    if len(argv) > 1:
        n = int(argv[1])
    sheet = Sheet()
    try:
        build(sheet, n)
    except SheetError as e:
        print "parse error: " + e.message
    print sheet.report(["A1", "B1", "A%d" % n, "B%d" % n, "C1", "C2", "C3", "C4", "C5", "C6", "C7"])
    rounds = 0
    total = 0.0
    while rounds < n:
        sheet.set("A1", str(rounds))
        total += sheet.value_of("C1", {})
        rounds += 1
    print "after %d edits: %.2f" % (rounds, total)
    sheet.set("C5", "12.5")
    print sheet.report(["C5"])
    return 0


def entry_point(argv):
    return main(argv)


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

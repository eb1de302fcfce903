# Exact rational arithmetic: a Fraction class normalized by gcd in
# __init__, methods for + - * / and comparison, a Matrix of
# fractions with Gaussian elimination for determinants, inverses and
# solving linear systems; singular matrices raise an own exception.
# args: 4
import sys


def gcd(a, b):
    if a < 0:
        a = -a
    if b < 0:
        b = -b
    while b:
        a, b = b, a % b
    return a


class Fraction(object):
    def __init__(self, num, den=1):
        if den == 0:
            raise ZeroDivisionError("fraction with zero denominator")
        if den < 0:
            num = -num
            den = -den
        g = gcd(num, den)
        if g > 1:
            num //= g
            den //= g
        self.num = num
        self.den = den

    def add(self, other):
        return Fraction(self.num * other.den + other.num * self.den, self.den * other.den)

    def sub(self, other):
        return Fraction(self.num * other.den - other.num * self.den, self.den * other.den)

    def mul(self, other):
        return Fraction(self.num * other.num, self.den * other.den)

    def div(self, other):
        return Fraction(self.num * other.den, self.den * other.num)

    def neg(self):
        return Fraction(-self.num, self.den)

    def eq(self, other):
        return self.num == other.num and self.den == other.den

    def lt(self, other):
        return self.num * other.den < other.num * self.den

    def is_zero(self):
        return self.num == 0

    def to_float(self):
        return float(self.num) / float(self.den)

    def tostr(self):
        if self.den == 1:
            return str(self.num)
        return "%d/%d" % (self.num, self.den)


ZERO = Fraction(0)
ONE = Fraction(1)


class SingularMatrix(Exception):
    def __init__(self, column):
        self.column = column


class Matrix(object):
    def __init__(self, rows):
        self.rows = rows
        self.n = len(rows)

    def copy(self):
        return Matrix([row[:] for row in self.rows])

    def show(self, indent):
        width = 1
        for row in self.rows:
            for x in row:
                width = max(width, len(x.tostr()))
        lines = []
        for row in self.rows:
            cells = [" " * (width - len(x.tostr())) + x.tostr() for x in row]
            lines.append(indent + "[ " + "  ".join(cells) + " ]")
        return "\n".join(lines)

    def mul(self, other):
        out = []
        for i in range(self.n):
            row = []
            for j in range(len(other.rows[0])):
                acc = ZERO
                for k in range(self.n):
                    acc = acc.add(self.rows[i][k].mul(other.rows[k][j]))
                row.append(acc)
            out.append(row)
        return Matrix(out)

    def eliminate(self, augment):
        # returns (determinant, reduced augment) by Gauss-Jordan elimination
        a = self.copy()
        b = augment.copy()
        det = ONE
        for col in range(self.n):
            pivot = -1
            for r in range(col, self.n):
                if not a.rows[r][col].is_zero():
                    pivot = r
                    break
            if pivot < 0:
                raise SingularMatrix(col)
            if pivot != col:
                a.rows[pivot], a.rows[col] = a.rows[col], a.rows[pivot]
                b.rows[pivot], b.rows[col] = b.rows[col], b.rows[pivot]
                det = det.neg()
            p = a.rows[col][col]
            det = det.mul(p)
            a.rows[col] = [x.div(p) for x in a.rows[col]]
            b.rows[col] = [x.div(p) for x in b.rows[col]]
            for r in range(self.n):
                if r != col and not a.rows[r][col].is_zero():
                    f = a.rows[r][col]
                    a.rows[r] = [x.sub(f.mul(y)) for x, y in zip(a.rows[r], a.rows[col])]
                    b.rows[r] = [x.sub(f.mul(y)) for x, y in zip(b.rows[r], b.rows[col])]
        return det, b

    def determinant(self):
        try:
            det, b = self.eliminate(identity(self.n))
        except SingularMatrix:
            return ZERO
        return det

    def inverse(self):
        det, b = self.eliminate(identity(self.n))
        return b


def identity(n):
    return Matrix([[ONE if i == j else ZERO for j in range(n)] for i in range(n)])


def hilbert(n):
    return Matrix([[Fraction(1, i + j + 1) for j in range(n)] for i in range(n)])


def parse_fraction(text):
    slash = text.find("/")
    if slash < 0:
        return Fraction(int(text))
    return Fraction(int(text[:slash]), int(text[slash + 1:]))


def entry_point(argv):
    n = 3
    if len(argv) > 1:
        n = int(argv[1])
    h = hilbert(n)
    print("hilbert(%d):" % n)
    print(h.show("  "))
    print("det = %s" % h.determinant().tostr())
    inv = h.inverse()
    print("inverse:")
    print(inv.show("  "))
    check = h.mul(inv)
    ok = True
    for i in range(n):
        for j in range(n):
            expected = ONE if i == j else ZERO
            if not check.rows[i][j].eq(expected):
                ok = False
    print("h * inverse == identity: %s" % ok)
    system = Matrix([[Fraction(2), Fraction(1), Fraction(-1)],
                     [Fraction(-3), Fraction(-1), Fraction(2)],
                     [Fraction(-2), Fraction(1), Fraction(2)]])
    rhs = Matrix([[Fraction(8)], [Fraction(-11)], [Fraction(-3)]])
    det, sol = system.eliminate(rhs)
    print("solution: %s (det %s)" % (", ".join([r[0].tostr() for r in sol.rows]), det.tostr()))
    singular = Matrix([[Fraction(1), Fraction(2)], [Fraction(2), Fraction(4)]])
    print("singular det = %s" % singular.determinant().tostr())
    try:
        singular.inverse()
    except SingularMatrix as e:
        print("no inverse: column %d has no pivot" % e.column)
    total = ZERO
    for k in range(1, 4 * n + 1):
        total = total.add(Fraction(1, k * (k + 1)))
    print("telescoping sum = %s = %.6f" % (total.tostr(), total.to_float()))
    smallest = None
    for text in ["3/4", "-5/6", "7", "2/0", "x/2", "10/-4", "1/3"]:
        try:
            f = parse_fraction(text)
        except ValueError:
            print("%-5s -> not a number" % text)
            continue
        except ZeroDivisionError as e:
            print("%-5s -> %s" % (text, str(e)))
            continue
        if smallest is None or f.lt(smallest):
            smallest = f
        print("%-5s -> %s" % (text, f.tostr()))
    if smallest is not None:
        print("smallest: %s" % smallest.tostr())
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

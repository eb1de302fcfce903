# A small linear-algebra kit: values are scalars, vectors or matrices
# (lists of lists of floats) behind one base class, and the arithmetic
# dispatches on isinstance as an interpreter's binary operations do.
# Gaussian elimination with partial pivoting solves systems, inverts and
# takes determinants; a singular matrix raises, caught with
# try/except/else/finally.
# args: 4
import sys


class LinAlgError(Exception):
    def __init__(self, what):
        self.what = what


class Value(object):
    rank = -1

    def describe(self):
        return 'value'


class Scalar(Value):
    rank = 0

    def __init__(self, x=0.0):
        self.x = x

    def describe(self):
        return '%.4f' % self.x


class Vector(Value):
    rank = 1

    def __init__(self, items):
        self.items = items

    def describe(self):
        return '(' + ', '.join(['%.3f' % x for x in self.items]) + ')'

    def norm2(self):
        total = 0.0
        for x in self.items:
            total += x * x
        return total


class Matrix(Value):
    rank = 2

    def __init__(self, rows, name='M'):
        self.rows = rows
        self.name = name

    @staticmethod
    def identity(n):
        rows = []
        for i in range(n):
            row = [0.0] * n
            row[i] = 1.0
            rows.append(row)
        return Matrix(rows, 'I%d' % n)

    def size(self):
        return len(self.rows)

    def copy_rows(self):
        return [row[:] for row in self.rows]

    def transpose(self):
        n = len(self.rows)
        m = len(self.rows[0])
        return Matrix([[self.rows[i][j] for i in range(n)] for j in range(m)],
                      self.name + "'")

    def describe(self):
        lines = []
        for row in self.rows:
            lines.append('  [' + ' '.join(['%8.3f' % x for x in row]) + ']')
        return '%s =\n%s' % (self.name, '\n'.join(lines))


def dot(a, b):
    total = 0.0
    for x, y in zip(a, b):
        total += x * y
    return total


def mul(a, b):
    if isinstance(a, Scalar):
        if isinstance(b, Scalar):
            return Scalar(a.x * b.x)
        if isinstance(b, Vector):
            return Vector([a.x * y for y in b.items])
        if isinstance(b, Matrix):
            return Matrix([[a.x * y for y in row] for row in b.rows], b.name)
    elif isinstance(a, Vector):
        if isinstance(b, Vector):
            return Scalar(dot(a.items, b.items))
        if isinstance(b, Scalar):
            return mul(b, a)
    elif isinstance(a, Matrix):
        if isinstance(b, Vector):
            return Vector([dot(row, b.items) for row in a.rows])
        if isinstance(b, Matrix):
            cols = b.transpose().rows
            return Matrix([[dot(row, col) for col in cols] for row in a.rows],
                          a.name + b.name)
        if isinstance(b, Scalar):
            return mul(b, a)
    raise LinAlgError('cannot multiply rank %d by rank %d' % (a.rank, b.rank))


def eliminate(rows, rhs):
    """Reduces rows (with the columns of rhs alongside) to the identity;
    returns the determinant."""
    n = len(rows)
    det = 1.0
    for col in range(n):
        pivot = col
        best = abs(rows[col][col])
        r = col + 1
        while r < n:
            if abs(rows[r][col]) > best:
                best = abs(rows[r][col])
                pivot = r
            r += 1
        else:
            if best < 1e-12:
                raise LinAlgError('singular at column %d' % col)
        if pivot != col:
            rows[pivot], rows[col] = rows[col], rows[pivot]
            rhs[pivot], rhs[col] = rhs[col], rhs[pivot]
            det = -det
        p = rows[col][col]
        det *= p
        for j in range(n):
            rows[col][j] /= p
        for j in range(len(rhs[col])):
            rhs[col][j] /= p
        for r in range(n):
            if r == col:
                continue
            f = rows[r][col]
            if f == 0.0:
                continue
            for j in range(n):
                rows[r][j] -= f * rows[col][j]
            for j in range(len(rhs[r])):
                rhs[r][j] -= f * rhs[col][j]
    return det


def inverse(m):
    rhs = Matrix.identity(m.size()).rows
    det = eliminate(m.copy_rows(), rhs)
    return Matrix(rhs, m.name + '^-1'), det


def solve(m, v):
    rhs = [[x] for x in v.items]
    eliminate(m.copy_rows(), rhs)
    return Vector([row[0] for row in rhs])


def hilbert(n):
    return Matrix([[1.0 / (i + j + 1) for j in range(n)] for i in range(n)], 'H')


def report(m, log):
    log.append('checking %s' % m.name)
    try:
        inv, det = inverse(m)
    except LinAlgError as e:
        log.append('  %s: %s' % (m.name, e.what))
        return False
    else:
        log.append('  det %s = %.6f' % (m.name, det))
        check = mul(m, inv)
        worst = 0.0
        for i, row in enumerate(check.rows):
            for j, x in enumerate(row):
                want = 1.0 if i == j else 0.0
                if abs(x - want) > worst:
                    worst = abs(x - want)
        log.append('  identity error below 1e-6: %s' % (worst < 1e-6))
        return True
    finally:
        log.append('  done %s' % m.name)


def entry_point(argv):
    n = 3
    if len(argv) > 1:
        n = int(argv[1])
    h = hilbert(n)
    print(h.describe())
    inv, det = inverse(h)
    print(inv.describe())
    print('det = %.9f' % det)
    ones = Vector([1.0] * n)
    x = solve(h, ones)
    print('solve H x = 1: %s' % x.describe())
    back = mul(h, x)
    print('H x = %s' % back.describe())
    print('|x|^2 = %.3f' % x.norm2())
    values = [Scalar(2.0), Vector([1.0, 2.0, 3.0]), Matrix.identity(3),
              Matrix([[1.0, 2.0, 0.0], [0.0, 1.0, 4.0], [5.0, 0.0, 1.0]], 'A')]
    for a in values:
        for b in values:
            try:
                c = mul(a, b)
            except LinAlgError as e:
                print('%d*%d: %s' % (a.rank, b.rank, e.what))
            else:
                print('%d*%d -> rank %d: %s' % (a.rank, b.rank, c.rank,
                                                c.describe().replace('\n', ' |')))
    singular = Matrix([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], 'S')
    log = []
    ok = 0
    for m in [h, singular, values[3], Matrix.identity(n)]:
        if report(m, log):
            ok += 1
    for line in log:
        print(line)
    print('%d of 4 invertible; %s' % (ok, Scalar(det * 1000.0).describe()))
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

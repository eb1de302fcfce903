# Every operation on ints, bools and floats, alone and mixed; the builtins
# that convert between them; and variables that are an int on one path and a
# bool or a float on another.
# args: 7 -3 2.5 0
import sys


# A parameter is not known to be a bool when the graph is built, so 'if v'
# tests its truth: one function per type, as a parameter has one type.
def truth_int(v):
    if v:
        return 1
    return 0


def truth_bool(v):
    if v:
        return 1
    return 0


def truth_float(v):
    if v:
        return 1
    return 0


def ints(a, b):
    print "int arith", a + b, a - b, a * b, a // b, a % b, b // a, b % a
    print "int div", a / b, b / a, a / a, -a / b
    print "int pow", a ** 2, b ** 3, 2 ** (a & 15), a ** 0, b ** 1
    print "int bits", a << 3, a >> 1, b >> 1, a & b, a | b, a ^ b
    print "int unary", -a, +a, +b, ~a, ~b, abs(a), abs(b)
    print "int cmp", a < b, a <= b, a == b, a != b, a > b, a >= b
    print "int cmp2", b < a, b <= a, a == a, b != b, b > a, b >= a, a >= a
    c = a
    print "int is", a is b, a is c, not (a is b)
    print "int not", not a, not (a - a), not b
    print "int truth", truth_int(a), truth_int(a - a), truth_int(b)
    print "int builtins", int(a), int(b), float(a), float(b), bool(a), bool(a - a)
    print "int str", str(a) + str(b), str(-a)


def bools(a, b):
    t = a > b
    u = a < 0
    print "bool bits", t & u, t | u, t ^ u, t & t, u | u, t ^ t
    print "bool eq", t == u, t != u, t == t, u != u
    print "bool not", not t, not u
    print "bool arith", t + t, t + u, t - u, t * 3, a * t, -t, +t, ~t, ~u
    print "bool cmp", t < u, t <= u, t > u, t >= u, t < a, b < t
    v = a == a
    print "bool div", a // v, a % v, t // 1, t % 2, t / 2, a / v
    print "bool truth", truth_bool(t), truth_bool(u)
    print "bool builtins", int(t), int(u), float(t), bool(t), bool(u), abs(t)
    print "bool str", str(t) + str(u)
    print "bool is", t is u, t is t
    print "bool float", t + 0.5, 1.5 * u, t / 4.0, u - 2.5


def floats(x, y, a):
    print "float arith", x + y, x - y, x * y, x / y, x // y, x % y, y // x, y % x
    print "float pow", x ** 2.0, y ** 3.0, x ** 0.5, 2.0 ** x
    print "float unary", -x, +x, -y, abs(x), abs(y), abs(-0.0 * x)
    print "float cmp", x < y, x <= y, x == y, x != y, x > y, x >= y
    print "float cmp2", y < x, y <= x, x == x, y != y, y > x, x >= x
    print "float not", not x, not (x - x)
    print "float truth", truth_float(x), truth_float(x - x), truth_float(y)
    print "float builtins", int(x), int(y), int(x * 1000.0), float(x), bool(x), bool(x - x)
    print "float str", str(x) + " " + str(y) + " " + str(x * 1e16) + " " + str(1e-5 * x)
    print "float mixed add", x + a, a + x, x - a, a - x, x * a, a * x
    print "float mixed div", x / a, a / x, x // a, a // x, x % a, a % x
    print "float mixed pow", x ** 2, x ** a, abs(a) ** 0.5, 2 ** x
    print "float mixed cmp", x < a, a < x, x <= a, a <= x, x > a, a > x, x >= a, a >= x
    print "float mixed eq", x == a, a == x, x != a, a != x, a * 1.0 == a, a != a * 1.0
    print x + 0.1 + 0.2, 0.1 + 0.2, 1.0 / 3.0, -1.5 * x


def unions(a, b, x, flag):
    # an int or a bool: the bool reads as 0 or 1
    n = a if flag > 0 else a > b
    m = a > b if flag > 0 else a
    print "int or bool", n + 0, m + 0, n * 2, m * 2
    # a float or an int: the int becomes a float
    f = x if flag > 0 else a
    g = a if flag > 0 else x
    print "float or int", f + 0.0, g + 0.0, f * 2.0, g * 2.0
    # a float or a bool
    h = x if flag > 0 else a > b
    k = a > b if flag > 0 else x
    print "float or bool", h + 0.0, k + 0.0
    # `and` and `or` as values join their operands
    p = a and a > b
    q = b or x
    print "and or", p + 0, q + 0.0
    total = 0
    for i in range(a):
        total = total + x * i
    print "loop sum", total
    r = 0
    for i in range(3):
        r = r + (i > 0)
    print "bool sum", r


def entry_point(argv):
    a = int(argv[1])
    b = int(argv[2])
    x = float(argv[3])
    flag = int(argv[4])
    ints(a, b)
    ints(b, a)
    bools(a, b)
    bools(b, a)
    floats(x, x * -1.5, a)
    floats(x * 0.1, x * 3.0, b)
    unions(a, b, x, flag)
    unions(a, b, x, flag + 1)
    return a + b


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

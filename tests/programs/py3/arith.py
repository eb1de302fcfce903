# Integer and float arithmetic with Python's semantics: floor division and
# modulo of negative numbers, wrapping-free ranges, float printing, bools.
# args: 7 -3
import sys

SCALE = 3


def divmod_line(a, b):
    return str(a) + " // " + str(b) + " = " + str(a // b) + ", % = " + str(a % b)


def classic_div(a, b):
    # Python 3 spells floor division '//'.
    return a // b


def float_stats(x, y):
    print(str(x * 1.5))
    print(str(x / 4.0))
    print(str(y * 0.1))
    print(str(1.0 / 3))
    print(str(x + y + 0.25))
    print(str(-x * 1e20))
    print(str(2.5 // 1.0))
    print(str((x * 0.1) // 0.1) + " " + str((x * 0.1) % 0.1))
    print(str((y * 1.0) // 0.1) + " " + str(-7.5 % (y * 1.0)))


def logic(a, b):
    if a > 0 and b > 0:
        print("both positive")
    elif a > 0 or b > 0:
        print("one positive")
    else:
        print("none positive")
    if not (a == b):
        print("different")
    if -10 < a < 10 <= 100:
        print("a is small")
    t = a > b
    print(str(t))
    print(str(t + 1))


def loops(n):
    total = 0
    i = 0
    while True:
        i += 1
        if i > n * SCALE:
            break
        if i % 3 == 0:
            continue
        total += i * i - (i << 2) + (i & 5) - (i | 2) + (i ^ 7)
    return total


def entry_point(argv):
    a = int(argv[1])
    b = int(argv[2])
    print(divmod_line(a, b))
    print(divmod_line(-a, b))
    print(divmod_line(a, -b))
    print(divmod_line(-a, -b))
    print(str(classic_div(a, b)) + " " + str(classic_div(-a, b)))
    print(str(abs(b)) + " " + str(-(-a)) + " " + str(~a) + " " + str(a >> 1) + " " + str(-a >> 1))
    float_stats(a, b)
    logic(a, b)
    logic(b, a)
    print(str(loops(a)))
    big = 9223372036854775807
    print(str(big + 1 - 1))
    s = argv[1] + "-" + argv[2]
    print(s + " has " + str(len(s)) + " chars, first " + s[0] + ", last " + s[-1])
    return a % 4


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

# Exceptions in Python 2 syntax: `except E, e`, `raise E, arg`, raise and
# re-raise, try/except/else/finally, assert, and the exceptions operations
# raise by themselves, caught by class and by base class (StandardError).
# args: 7 0 abc
import sys


def check_positive(n):
    if n < 0:
        raise ValueError, "negative: " + str(n)
    if n == 0:
        raise ZeroDivisionError
    return n


def safe_div(a, b):
    try:
        q = a // b
    except ZeroDivisionError, e:
        print "div: " + str(e)
        return -1
    else:
        print "div ok"
    return q


def safe_mod(a, b):
    try:
        return a % b
    except ArithmeticError:
        return -2


def classify(n):
    try:
        check_positive(n)
    except (ValueError, TypeError), e:
        return "bad value (" + str(e) + ")"
    except StandardError:
        return "standard error"
    return "fine"


def parse(s):
    try:
        return int(s)
    except ValueError:
        return -1


def with_finally(n):
    total = 0
    try:
        if n > 5:
            return 100
        total = n * 2
    finally:
        print "finally runs for " + str(n)
    return total


def loop_with_finally(limit):
    i = 0
    found = 0
    while i < limit:
        i += 1
        try:
            if i % 3 == 0:
                continue
            if i > 7:
                break
            found += i
        finally:
            found += 1000
    return found


def reraise(n):
    try:
        check_positive(n)
    except ValueError:
        print "logging and re-raising"
        raise


def outer(n):
    try:
        reraise(n)
    except Exception, e:
        return "outer caught: " + str(e)
    return "no exception"


def nested(n):
    result = ""
    try:
        try:
            if n == 1:
                raise KeyError("k")
            if n == 2:
                raise IndexError("i")
            result = "none"
        except KeyError, e:
            result = "inner " + str(e)
            raise RuntimeError("from handler")
        finally:
            result = result + " +inner-finally"
    except LookupError, e:
        result = result + " outer-lookup " + str(e)
    except RuntimeError, e:
        result = result + " outer-runtime " + str(e)
    return result


def checked(n):
    assert n != 3, "n must not be 3"
    assert n < 100
    return n


def try_assert(n):
    try:
        return str(checked(n))
    except AssertionError, e:
        return "assertion: " + str(e)


def catch_all(n):
    try:
        check_positive(n)
    except:
        return "caught by a bare except"
    return "nothing raised"


def entry_point(argv):
    a = int(argv[1])
    b = int(argv[2])
    print safe_div(a, b)
    print safe_div(a, 2)
    print safe_mod(a, b)
    print classify(-4)
    print classify(0)
    print classify(9)
    print parse(argv[3])
    print parse(argv[1])
    print with_finally(3)
    print with_finally(9)
    print loop_with_finally(20)
    print outer(-1)
    print outer(5)
    print nested(1)
    print nested(2)
    print nested(3)
    print try_assert(3)
    print try_assert(200)
    print try_assert(7)
    print catch_all(0)
    print catch_all(1)
    try:
        raise ValueError
    except ValueError, e:
        print "empty message: '" + str(e) + "'"
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

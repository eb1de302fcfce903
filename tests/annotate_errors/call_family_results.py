# A variable holding one of two functions, one returning an int and the
# other a str: the call through it has no one type for its result.
import sys


def count(text):
    return len(text)


def shout(text):
    return text.upper()


def entry_point(argv):
    measure = count if len(argv) < 100 else shout
    print(measure(argv[0]))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

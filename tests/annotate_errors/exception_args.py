# A handler reads e.args, which RPython exceptions do not keep.
import sys


class ParseError(Exception):
    pass


def parse(text):
    if not text.isdigit():
        raise ParseError("not a number: " + text)
    return int(text)


def entry_point(argv):
    try:
        print(parse(argv[-1]))
    except ParseError as e:
        print(e.args[0])
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

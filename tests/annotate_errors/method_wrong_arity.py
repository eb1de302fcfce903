# A method called with one argument too many.
import sys


class Greeter(object):
    def __init__(self, name):
        self.name = name

    def greet(self, punctuation):
        return "hello " + self.name + punctuation


def entry_point(argv):
    g = Greeter("world")
    print(g.greet("!"))
    if len(argv) > 100:
        print(g.greet("?", "!"))
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

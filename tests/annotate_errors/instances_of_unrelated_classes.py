# One variable holds instances of two classes with no common base.
import sys


class Cat(object):
    def __init__(self):
        self.lives = 9


class Car(object):
    def __init__(self):
        self.wheels = 4


def entry_point(argv):
    if len(argv) > 1:
        thing = Cat()
    else:
        thing = Car()
    print(thing)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

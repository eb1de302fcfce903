# One list holds instances of two classes with no common base.
import sys


class Cat(object):
    def __init__(self):
        self.lives = 9


class Car(object):
    def __init__(self):
        self.wheels = 4


def entry_point(argv):
    things = [Cat(), Car()]
    print(len(things))
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

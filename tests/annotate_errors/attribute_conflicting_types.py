# One attribute holds an int in one place and a string in another.
import sys


class Counter(object):
    def __init__(self):
        self.value = 0

    def reset(self, label):
        self.value = label


def entry_point(argv):
    c = Counter()
    if len(argv) > 100:
        c.reset("none")
    print(c.value)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

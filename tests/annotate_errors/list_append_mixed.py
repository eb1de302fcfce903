# A list of strs that later gets a float appended.
import sys


def entry_point(argv):
    names = [argv[0]]
    if len(argv) > 3:
        names.append(1.5)
    print(len(names))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

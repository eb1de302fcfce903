# In Python 2 a list comprehension's loop variable is the function's own
# variable: after the comprehension, `label` holds the last int, not the str.
import sys


def entry_point(argv):
    label = "total"
    doubled = [label * 2 for label in [1, 2, 3]]
    print label, doubled
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

# dict.has_key() is Python 2's spelling of `key in d`; RPython has only the latter.
import sys


def entry_point(argv):
    ages = {"ann": 31, "bob": 25}
    if ages.has_key(argv[0]):
        print "known"
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

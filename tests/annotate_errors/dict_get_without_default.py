# dict.get() without a default on a dict of ints: a missing key gives None,
# which an RPython int cannot be.
import sys


def entry_point(argv):
    ages = {"ann": 31, "bob": 25}
    age = ages.get(argv[0])
    print(age)
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

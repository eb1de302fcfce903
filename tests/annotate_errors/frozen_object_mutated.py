# A frozen prebuilt object (its class's _freeze_ returns True) is a constant
# of the translated program: CPython lets the program change it, RPython not.
import sys


class Settings(object):
    def __init__(self, level):
        self.level = level

    def _freeze_(self):
        return True


SETTINGS = Settings(1)


def entry_point(argv):
    if len(argv) > 1:
        SETTINGS.level = len(argv)
    print(SETTINGS.level)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

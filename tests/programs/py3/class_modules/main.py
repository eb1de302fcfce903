# Classes defined in another module: their names are qualified by it
# (shapes.Square), a prebuilt instance of one is built there at import time
# (and another here, by its function called with keywords),
# and an uncaught exception of one shows its module as CPython does.
# args: 3
import sys
import shapes
from shapes import Square, ShapeError, square_of

# A function another module defines, called with keywords at import time.
BIG = square_of(2, offset=1, factor=3)


def entry_point(argv):
    s = Square(int(argv[1]))
    print(s.area(), shapes.UNIT.area(), BIG.area(), Square.sides, shapes.Shape.sides)
    print(isinstance(s, shapes.Shape), isinstance(shapes.UNIT, Square))
    try:
        raise ShapeError("bad " + str(s.size))
    except ValueError as e:
        print("caught", str(e))
    raise shapes.ShapeError("final")


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

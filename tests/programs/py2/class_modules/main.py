# Classes defined in another module: their names are qualified by it
# (shapes.Square), a prebuilt instance of one is built there at import time,
# and an uncaught exception of one shows its module as CPython does.
# args: 3
import sys
import shapes
from shapes import Square, ShapeError


def entry_point(argv):
    s = Square(int(argv[1]))
    print s.area(), shapes.UNIT.area(), Square.sides, shapes.Shape.sides
    print isinstance(s, shapes.Shape), isinstance(shapes.UNIT, Square)
    try:
        raise ShapeError("bad " + str(s.size))
    except ValueError, e:
        print "caught", str(e)
    raise shapes.ShapeError("final")


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

class Shape(object):
    sides = 0

    def __init__(self, size):
        self.size = size

    def area(self):
        return 0


class Square(Shape):
    sides = 4

    def area(self):
        return self.size * self.size


class ShapeError(ValueError):
    pass


def square_of(side, factor=1, offset=0):
    return Square(side * factor + offset)


UNIT = Square(1)

# Special methods of program classes: len(x), x[i], x[i] = v and for loops
# over instances (__iter__ returning an iterator object with next/__next__),
# and a class with __del__, which prints nothing.
# args: 4
import sys


class Grid(object):
    def __init__(self, width, height):
        self.width = width
        self.height = height
        self.cells = [0] * (width * height)

    def __len__(self):
        return self.width * self.height

    def __getitem__(self, index):
        return self.cells[index]

    def __setitem__(self, index, value):
        if index < 0 or index >= len(self.cells):
            raise IndexError(index)
        self.cells[index] = value

    def __iter__(self):
        return GridIterator(self)


class GridIterator(object):
    def __init__(self, grid):
        self.grid = grid
        self.position = 0

    def __iter__(self):
        return self

    def next(self):
        if self.position >= len(self.grid):
            raise StopIteration
        value = self.grid[self.position]
        self.position += 1
        return value


class Countdown(object):
    def __init__(self, start):
        self.current = start

    def __iter__(self):
        return self

    def next(self):
        if self.current <= 0:
            raise StopIteration
        self.current -= 1
        return self.current + 1


class Resource(object):
    def __init__(self, name):
        self.name = name

    def __del__(self):
        self.name = ""


def total(grid):
    result = 0
    for value in grid:
        result += value
    return result


def entry_point(argv):
    n = int(argv[1])
    grid = Grid(n, 2)
    print len(grid)
    for i in range(len(grid)):
        grid[i] = i * i
    print grid[3], grid[len(grid) - 1]
    print total(grid)
    try:
        grid[100] = 1
    except IndexError:
        print "index error"
    steps = []
    for k in Countdown(n):
        steps.append(k)
    print steps
    it = iter(Countdown(2))
    print it.next(), it.next()
    r = Resource("file")
    print r.name
    r = Resource("other")
    print r.name
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

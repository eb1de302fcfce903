# Conway's game of life on a list of lists, with patterns read from text,
# a toroidal and a bounded board, generation statistics and cycle detection
# through a dict of board fingerprints.
# args: 30
import sys


class Board(object):
    wraps = False

    def __init__(self, width, height):
        self.width = width
        self.height = height
        self.cells = [[0] * width for y in range(height)]
        self.generation = 0

    def get(self, x, y):
        if x < 0 or y < 0 or x >= self.width or y >= self.height:
            return 0
        return self.cells[y][x]

    def set(self, x, y, v):
        self.cells[y][x] = v

    def neighbours(self, x, y):
        n = 0
        for dy in [-1, 0, 1]:
            for dx in [-1, 0, 1]:
                if dx != 0 or dy != 0:
                    n += self.get(x + dx, y + dy)
        return n

    def population(self):
        total = 0
        for row in self.cells:
            for c in row:
                total += c
        return total

    def step(self):
        new = []
        born = 0
        died = 0
        for y in range(self.height):
            row = []
            for x in range(self.width):
                n = self.neighbours(x, y)
                alive = self.cells[y][x]
                if alive and (n < 2 or n > 3):
                    row.append(0)
                    died += 1
                elif not alive and n == 3:
                    row.append(1)
                    born += 1
                else:
                    row.append(alive)
            new.append(row)
        self.cells = new
        self.generation += 1
        return born, died

    def fingerprint(self):
        parts = []
        for row in self.cells:
            bits = 0
            for c in row:
                bits = bits * 2 + c
            parts.append("%x" % bits)
        return ".".join(parts)

    def render(self):
        lines = []
        for row in self.cells:
            lines.append("".join(["#" if c else "." for c in row]))
        return "\n".join(lines)

    def bounding_box(self):
        minx = self.width
        miny = self.height
        maxx = -1
        maxy = -1
        for y in range(self.height):
            for x in range(self.width):
                if self.cells[y][x]:
                    minx = min(minx, x)
                    maxx = max(maxx, x)
                    miny = min(miny, y)
                    maxy = max(maxy, y)
        if maxx < 0:
            return None
        return Box(minx, miny, maxx, maxy)


class Box(object):
    def __init__(self, x0, y0, x1, y1):
        self.x0 = x0
        self.y0 = y0
        self.x1 = x1
        self.y1 = y1

    def area(self):
        return (self.x1 - self.x0 + 1) * (self.y1 - self.y0 + 1)


class Torus(Board):
    wraps = True

    def get(self, x, y):
        return self.cells[y % self.height][x % self.width]


class PatternError(Exception):
    pass


PATTERNS = {
    "glider": ".#.\n..#\n###",
    "blinker": "###",
    "toad": ".###\n###.",
    "beacon": "##..\n##..\n..##\n..##",
    "rpent": ".##\n##.\n.#.",
    "broken": ".#\n#x",
}


def place(board, text, ox, oy):
    y = oy
    for line in text.split("\n"):
        for i in range(len(line)):
            c = line[i]
            if c == "#":
                board.set(ox + i, y, 1)
            elif c != ".":
                raise PatternError("bad cell '%s' at %d,%d" % (c, i, y - oy))
        y += 1


def run(board, name, generations, show):
    seen = {}
    seen[board.fingerprint()] = 0
    total_born = 0
    total_died = 0
    period = -1
    for g in range(generations):
        born, died = board.step()
        total_born += born
        total_died += died
        fp = board.fingerprint()
        if fp in seen and period < 0:
            period = board.generation - seen[fp]
        seen[fp] = board.generation
    box = board.bounding_box()
    if box is None:
        where = "empty"
    else:
        where = "box (%d,%d)-(%d,%d) area %d" % (box.x0, box.y0, box.x1, box.y1,
                                                 box.area())
    kind = "torus" if board.wraps else "plane"
    print("%-8s %-5s gen %3d pop %3d born %4d died %4d period %2d %s" % (
        name, kind, board.generation, board.population(), total_born,
        total_died, period, where))
    if show:
        print board.render()


def entry_point(argv):
    generations = 10
    if len(argv) > 1:
        generations = int(argv[1])
    order = ["glider", "blinker", "toad", "beacon", "rpent", "broken", "missing"]
    for name in order:
        for wrap in [False, True]:
            if wrap:
                board = Torus(12, 10)
            else:
                board = Board(12, 10)
            try:
                place(board, PATTERNS[name], 4, 3)
            except KeyError:
                print "%s: no such pattern" % name
                break
            except PatternError, e:
                print "%s: %s" % (name, str(e))
                break
            run(board, name, generations, name == "glider" and wrap)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

# Benchmark: an n-body style simulation of Body instances in a list (float
# arithmetic, attribute reads and writes, method calls), N steps from the
# command line. The force is softened and needs no square root: the
# program computes the same floats in CPython, in rpy's executable and in
# nbody.c, and prints integers made of them.
import sys


class Body(object):
    def __init__(self, x, y, vx, vy, mass):
        self.x = x
        self.y = y
        self.vx = vx
        self.vy = vy
        self.mass = mass

    def kinetic(self):
        return 0.5 * self.mass * (self.vx * self.vx + self.vy * self.vy)

    def move(self, dt):
        self.x = self.x + dt * self.vx
        self.y = self.y + dt * self.vy


def make_bodies(n):
    bodies = []
    seed = 12345
    for i in range(n):
        seed = (seed * 1103515245 + 12345) % 2147483648
        x = (seed % 10000) / 1000.0
        seed = (seed * 1103515245 + 12345) % 2147483648
        y = (seed % 10000) / 1000.0
        bodies.append(Body(x, y, 0.0, 0.0, 1.0 + (i % 3)))
    return bodies


def advance(bodies, dt):
    n = len(bodies)
    for i in range(n):
        b = bodies[i]
        for j in range(i + 1, n):
            o = bodies[j]
            dx = b.x - o.x
            dy = b.y - o.y
            d2 = dx * dx + dy * dy + 0.5
            mag = dt / (d2 * d2)
            bm = b.mass * mag
            om = o.mass * mag
            b.vx = b.vx - dx * om
            b.vy = b.vy - dy * om
            o.vx = o.vx + dx * bm
            o.vy = o.vy + dy * bm
    for b in bodies:
        b.move(dt)


def energy(bodies):
    e = 0.0
    n = len(bodies)
    for i in range(n):
        b = bodies[i]
        e = e + b.kinetic()
        for j in range(i + 1, n):
            o = bodies[j]
            dx = b.x - o.x
            dy = b.y - o.y
            e = e - b.mass * o.mass / (dx * dx + dy * dy + 0.5)
    return e


def entry_point(argv):
    steps = int(argv[1])
    bodies = make_bodies(40)
    before = energy(bodies)
    for s in range(steps):
        advance(bodies, 0.001)
    after = energy(bodies)
    print("energy " + str(int(before * 1000000.0)) + " -> " + str(int(after * 1000000.0)))
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

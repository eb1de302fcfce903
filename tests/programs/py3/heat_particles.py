# A float simulation: heat diffusion along a rod and a handful of
# particles bouncing in a box, drawn as ASCII. Parameters come from argv
# (int() and float() parsing, ValueError caught), the output is built with
# StringBuilder, checksums use r_uint/intmask, and ovfcheck guards a
# factorial table.
# args: 24 0.25 heavy
import sys
import math
from rpython.rlib.rarithmetic import r_uint, intmask, ovfcheck
from rpython.rlib.rstring import StringBuilder

SHADES = " .:-=+*#%@"


class Particle(object):
    def __init__(self, x, y, vx, vy, mass):
        self.x = x
        self.y = y
        self.vx = vx
        self.vy = vy
        self.mass = mass

    def step(self, dt, width, height, gravity):
        self.vy += gravity * dt
        self.x += self.vx * dt
        self.y += self.vy * dt
        bounced = 0
        if self.x < 0.0:
            self.x = -self.x
            self.vx = -self.vx
            bounced += 1
        elif self.x > width:
            self.x = 2.0 * width - self.x
            self.vx = -self.vx
            bounced += 1
        if self.y < 0.0:
            self.y = -self.y
            self.vy = -self.vy * 0.9
            bounced += 1
        elif self.y > height:
            self.y = 2.0 * height - self.y
            self.vy = -self.vy
            bounced += 1
        return bounced

    def energy(self, gravity):
        speed2 = self.vx * self.vx + self.vy * self.vy
        return 0.5 * self.mass * speed2 - self.mass * gravity * self.y


def parse_int(s, default):
    try:
        return int(s)
    except ValueError:
        print("not an int: %s, using %d" % (s, default))
        return default


def parse_float(s, default):
    try:
        return float(s)
    except ValueError:
        print("not a float: %s, using %f" % (s, default))
        return default


def diffuse(rod, alpha, steps):
    n = len(rod)
    for _ in range(steps):
        new = [0.0] * n
        new[0] = rod[0]
        new[n - 1] = rod[n - 1]
        for i in range(1, n - 1):
            new[i] = rod[i] + alpha * (rod[i - 1] - 2.0 * rod[i] + rod[i + 1])
        rod = new
    return rod


def draw_rod(rod, lo, hi):
    sb = StringBuilder()
    sb.append("|")
    for t in rod:
        frac = (t - lo) / (hi - lo)
        k = int(frac * (len(SHADES) - 1) + 0.5)
        if k < 0:
            k = 0
        if k >= len(SHADES):
            k = len(SHADES) - 1
        sb.append(SHADES[k])
    sb.append("|")
    return sb.build()


def checksum(values):
    h = r_uint(2166136261)
    for v in values:
        bits = r_uint(int(v * 1000.0))
        h = (h ^ bits) * r_uint(16777619)
        h &= r_uint(0xffffffff)
    return intmask(h)


def factorials(limit):
    table = [1]
    f = 1
    k = 1
    while k <= limit:
        try:
            f = ovfcheck(f * k)
        except OverflowError:
            print("factorial overflows at %d" % k)
            break
        table.append(f)
        k += 1
    return table


def box_picture(particles, width, height, cols, rows):
    grid = []
    for r in range(rows):
        grid.append(["."] * cols)
    for idx, p in enumerate(particles):
        c = int(p.x / width * (cols - 1))
        r = rows - 1 - int(p.y / height * (rows - 1))
        if 0 <= r < rows and 0 <= c < cols:
            grid[r][c] = chr(ord("a") + idx)
    lines = []
    for row in grid:
        lines.append("".join(row))
    return lines


def entry_point(argv):
    n = 24
    alpha = 0.25
    mode = "light"
    if len(argv) > 1:
        n = parse_int(argv[1], 24)
    if len(argv) > 2:
        alpha = parse_float(argv[2], 0.25)
    if len(argv) > 3:
        mode = argv[3]
    if n < 3:
        n = 3
    rod = [0.0] * n
    rod[0] = 100.0
    rod[n // 2] = 50.0
    for steps in [0, 1, 5, 20, 80]:
        r = diffuse(rod, alpha, steps)
        total = 0.0
        for t in r:
            total += t
        print("%3d %s sum=%.3f mid=%s" % (steps, draw_rod(r, 0.0, 100.0), total, str(r[n // 2])))
    print("rod checksum %d" % checksum(diffuse(rod, alpha, 10)))
    gravity = -9.81
    if mode == "heavy":
        gravity = -20.0
    particles = []
    for i in range(5):
        angle = i * math.pi / 5.0
        particles.append(Particle(1.0 + i, 2.0 + 0.5 * i, 3.0 * math.cos(angle),
                                  4.0 * math.sin(angle), 1.0 + i * 0.5))
    width = 8.0
    height = 6.0
    bounces = 0
    dt = 0.05
    for tick in range(60):
        for p in particles:
            bounces += p.step(dt, width, height, gravity)
        if tick % 20 == 19:
            e = 0.0
            for p in particles:
                e += p.energy(gravity)
            print("tick %d bounces %d energy %.4f" % (tick + 1, bounces, e))
            for line in box_picture(particles, width, height, 16, 6):
                print("  " + line)
    for p in particles:
        print("x=%8.3f y=%-8.2f|speed %s" % (p.x, p.y, str(math.sqrt(p.vx * p.vx + p.vy * p.vy))))
    print("hypot %f atan2 %f exp %f log %f floor %d" % (
        math.hypot(3.0, 4.0), math.atan2(1.0, -1.0), math.exp(1.5),
        math.log(10.0), int(math.floor(-2.5))))
    print("fabs %s pow %s fmod %s" % (str(math.fabs(-0.125)), str(math.pow(2.0, 0.5)), str(math.fmod(7.5, 2.0))))
    for text in "12,7x,-3, 42 ,+5,,1e3,0x1f,2.5, -0.5 ,inf".split(","):
        iv = parse_int(text, -1)
        fv = parse_float(text, -1.0)
        print("parsed %r -> %d %s" % (text, iv, str(fv)))
    table = factorials(25)
    print("factorials: %d entries, last %d" % (len(table), table[-1]))
    big = r_uint(sys.maxsize) * r_uint(2) + r_uint(1)
    print("r_uint max %d wraps to %d" % (big, intmask(big)))
    print("int(-3.7)=%d int(3.7)=%d float('1e3')=%s round %s" % (int(-3.7), int(3.7), str(float("1e3")), str(float(int(2.5 * 3)))))
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

# An n-body simulation of the outer planets with Body instances, float
# arithmetic, math.sqrt and energy bookkeeping, printed with %-formatting.
# args: 200
import sys
import math

PI = 3.14159265358979323
SOLAR_MASS = 4.0 * PI * PI
DAYS_PER_YEAR = 365.24


class Vec(object):
    def __init__(self, x, y, z):
        self.x = x
        self.y = y
        self.z = z

    def sub(self, other):
        return Vec(self.x - other.x, self.y - other.y, self.z - other.z)

    def scale(self, k):
        return Vec(self.x * k, self.y * k, self.z * k)

    def dot(self, other):
        return self.x * other.x + self.y * other.y + self.z * other.z

    def norm(self):
        return math.sqrt(self.dot(self))

    def show(self):
        return "(%.6f, %.6f, %.6f)" % (self.x, self.y, self.z)


class Body(object):
    def __init__(self, name, pos, vel, mass):
        self.name = name
        self.pos = pos
        self.vel = vel
        self.mass = mass
        self.collisions = 0

    def kinetic(self):
        return 0.5 * self.mass * self.vel.dot(self.vel)

    def move(self, dt):
        self.pos.x += dt * self.vel.x
        self.pos.y += dt * self.vel.y
        self.pos.z += dt * self.vel.z


def make_system():
    sun = Body("sun", Vec(0.0, 0.0, 0.0), Vec(0.0, 0.0, 0.0), SOLAR_MASS)
    jupiter = Body("jupiter",
                   Vec(4.84143144246472090e+00, -1.16032004402742839e+00,
                       -1.03622044471123109e-01),
                   Vec(1.66007664274403694e-03 * DAYS_PER_YEAR,
                       7.69901118419740425e-03 * DAYS_PER_YEAR,
                       -6.90460016972063023e-05 * DAYS_PER_YEAR),
                   9.54791938424326609e-04 * SOLAR_MASS)
    saturn = Body("saturn",
                  Vec(8.34336671824457987e+00, 4.12479856412430479e+00,
                      -4.03523417114321381e-01),
                  Vec(-2.76742510726862411e-03 * DAYS_PER_YEAR,
                      4.99852801234917238e-03 * DAYS_PER_YEAR,
                      2.30417297573763929e-05 * DAYS_PER_YEAR),
                  2.85885980666130812e-04 * SOLAR_MASS)
    uranus = Body("uranus",
                  Vec(1.28943695621391310e+01, -1.51111514016986312e+01,
                      -2.23307578892655734e-01),
                  Vec(2.96460137564761618e-03 * DAYS_PER_YEAR,
                      2.37847173959480950e-03 * DAYS_PER_YEAR,
                      -2.96589568540237556e-05 * DAYS_PER_YEAR),
                  4.36624404335156298e-05 * SOLAR_MASS)
    neptune = Body("neptune",
                   Vec(1.53796971148509165e+01, -2.59193146099879641e+01,
                       1.79258772950371181e-01),
                   Vec(2.68067772490389322e-03 * DAYS_PER_YEAR,
                       1.62824170038242295e-03 * DAYS_PER_YEAR,
                       -9.51592254519715870e-05 * DAYS_PER_YEAR),
                   5.15138902046611451e-05 * SOLAR_MASS)
    return [sun, jupiter, saturn, uranus, neptune]


def offset_momentum(bodies):
    px = 0.0
    py = 0.0
    pz = 0.0
    for b in bodies:
        px += b.vel.x * b.mass
        py += b.vel.y * b.mass
        pz += b.vel.z * b.mass
    sun = bodies[0]
    sun.vel = Vec(-px / SOLAR_MASS, -py / SOLAR_MASS, -pz / SOLAR_MASS)


def energy(bodies):
    e = 0.0
    n = len(bodies)
    for i in range(n):
        b = bodies[i]
        e += b.kinetic()
        for j in range(i + 1, n):
            other = bodies[j]
            d = b.pos.sub(other.pos)
            e -= (b.mass * other.mass) / d.norm()
    return e


def advance(bodies, dt):
    n = len(bodies)
    closest = -1.0
    pair = ("", "")
    for i in range(n):
        b1 = bodies[i]
        for j in range(i + 1, n):
            b2 = bodies[j]
            d = b1.pos.sub(b2.pos)
            dist2 = d.dot(d)
            dist = math.sqrt(dist2)
            if closest < 0.0 or dist < closest:
                closest = dist
                pair = (b1.name, b2.name)
            mag = dt / (dist2 * dist)
            b1.vel = b1.vel.sub(d.scale(b2.mass * mag))
            b2.vel.x += d.x * b1.mass * mag
            b2.vel.y += d.y * b1.mass * mag
            b2.vel.z += d.z * b1.mass * mag
    for b in bodies:
        b.move(dt)
    return closest, pair


def center_of_mass(bodies):
    total = 0.0
    cx = 0.0
    cy = 0.0
    cz = 0.0
    for b in bodies:
        total += b.mass
        cx += b.pos.x * b.mass
        cy += b.pos.y * b.mass
        cz += b.pos.z * b.mass
    if total == 0.0:
        raise ZeroDivisionError("no mass")
    return Vec(cx / total, cy / total, cz / total)


def entry_point(argv):
    steps = 100
    if len(argv) > 1:
        try:
            steps = int(argv[1])
        except ValueError:
            print "bad step count: " + argv[1]
            return 2
    bodies = make_system()
    offset_momentum(bodies)
    e0 = energy(bodies)
    print "energy before: %.9f" % e0
    report = steps // 4
    if report == 0:
        report = 1
    nearest = 1e300
    nearest_pair = ("?", "?")
    for step in range(steps):
        dist, pair = advance(bodies, 0.01)
        if dist < nearest:
            nearest = dist
            nearest_pair = pair
        if (step + 1) % report == 0:
            print "step %5d energy %.9f" % (step + 1, energy(bodies))
    e1 = energy(bodies)
    print "energy after:  %.9f" % e1
    print "drift: %.3e" % abs(e1 - e0)
    a, b = nearest_pair
    print "closest pair: %s-%s at %.4f AU" % (a, b, nearest)
    for body in bodies:
        speed = body.vel.norm()
        print "%-8s pos=%s speed=%8.5f" % (body.name, body.pos.show(), speed)
    com = center_of_mass(bodies)
    print "center of mass %s" % com.show()
    try:
        center_of_mass([])
    except ZeroDivisionError, e:
        print "empty system: " + str(e)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

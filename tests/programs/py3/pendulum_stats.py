# A damped pendulum integrated with math.sin/cos, a random walk from a
# linear congruential generator, their statistics (math.sqrt, log, exp,
# floor, fmod, atan2, hypot), math errors caught where a handler asks for
# them, a timing taken with time.time(), and a report written to a file
# with os.open/os.write/os.close and read back with os.read.
# args: 400
import math
import os
import time

GRAVITY = 9.81
LENGTH = 1.5
DAMPING = 0.12
DT = 0.01


class Rng(object):
    """A 31-bit linear congruential generator (deterministic everywhere)."""

    def __init__(self, seed):
        self.state = seed

    def next_int(self):
        self.state = (self.state * 1103515245 + 12345) & 0x7FFFFFFF
        return self.state

    def uniform(self):
        return self.next_int() / 2147483648.0

    def gauss(self):
        # Box-Muller: u1 is kept away from zero so that log() is defined.
        u1 = self.uniform()
        if u1 < 1e-12:
            u1 = 1e-12
        u2 = self.uniform()
        return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


class Pendulum(object):
    def __init__(self, angle, speed):
        self.angle = angle
        self.speed = speed

    def step(self, dt):
        accel = -GRAVITY / LENGTH * math.sin(self.angle) - DAMPING * self.speed
        self.speed += accel * dt
        self.angle += self.speed * dt

    def energy(self):
        height = LENGTH * (1.0 - math.cos(self.angle))
        return 0.5 * (LENGTH * self.speed) ** 2 + GRAVITY * height

    def normalized_angle(self):
        # The angle folded into (-pi, pi] with atan2.
        return math.atan2(math.sin(self.angle), math.cos(self.angle))


class Stats(object):
    def __init__(self):
        self.values = []

    def add(self, x):
        self.values.append(x)

    def mean(self):
        total = 0.0
        for v in self.values:
            total += v
        return total / len(self.values)

    def stddev(self):
        m = self.mean()
        acc = 0.0
        for v in self.values:
            acc += (v - m) * (v - m)
        return math.sqrt(acc / len(self.values))

    def geometric_mean(self):
        # Raises ValueError (from math.log) when a value is not positive.
        acc = 0.0
        for v in self.values:
            acc += math.log(v)
        return math.exp(acc / len(self.values))

    def histogram(self, lo, hi, nbins):
        bins = [0] * nbins
        width = (hi - lo) / nbins
        for v in self.values:
            i = int(math.floor((v - lo) / width))
            if i < 0:
                i = 0
            if i >= nbins:
                i = nbins - 1
            bins[i] += 1
        return bins


def safe_geometric_mean(stats):
    try:
        return stats.geometric_mean()
    except ValueError as e:
        print("geometric mean: %s" % str(e))
        return -1.0


def safe_growth(rate, years):
    try:
        return math.exp(rate * years)
    except OverflowError as e:
        print("growth: %s" % str(e))
        return -1.0


def safe_sqrt(x):
    try:
        return math.sqrt(x)
    except ValueError:
        return -1.0


def simulate(steps):
    p = Pendulum(1.2, 0.0)
    angles = Stats()
    energies = Stats()
    for i in range(steps):
        p.step(DT)
        angles.add(p.normalized_angle())
        energies.add(p.energy())
    print("pendulum after %d steps: angle %.6f speed %.6f" % (steps, p.angle, p.speed))
    print("energy: first %.6f last %.6f mean %.6f" % (energies.values[0], energies.values[-1], energies.mean()))
    print("angle: mean %.6f stddev %.6f" % (angles.mean(), angles.stddev()))
    print("energy geometric mean %.6f" % safe_geometric_mean(energies))
    print("angle geometric mean %.6f" % safe_geometric_mean(angles))
    return energies


def random_walk(n):
    rng = Rng(20261203)
    x = 0.0
    y = 0.0
    far = 0.0
    steps = Stats()
    for i in range(n):
        dx = rng.gauss()
        dy = rng.gauss()
        x += dx
        y += dy
        d = math.hypot(x, y)
        if d > far:
            far = d
        steps.add(math.hypot(dx, dy))
    print("walk: end (%.4f, %.4f) distance %.4f farthest %.4f" % (x, y, math.hypot(x, y), far))
    print("step length: mean %.5f stddev %.5f" % (steps.mean(), steps.stddev()))
    bins = steps.histogram(0.0, 4.0, 8)
    line = ""
    for b in bins:
        line += " %3d" % b
    print("histogram:%s" % line)
    heading = math.degrees(math.atan2(y, x))
    print("heading %.3f degrees, fmod(heading, 45) = %.3f" % (heading, math.fmod(heading, 45.0)))
    return steps


def write_report(path, energies, steps):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    written = 0
    i = 0
    while i < len(energies.values):
        written += os.write(fd, b"%d,%.6f,%.6f\n" % (i, energies.values[i], steps.values[i]))
        i += 40
    os.close(fd)
    return written


def read_report(path):
    fd = os.open(path, os.O_RDONLY, 0)
    data = b""
    while True:
        chunk = os.read(fd, 64)
        if len(chunk) == 0:
            break
        data += chunk
    os.close(fd)
    return data


def try_open(path):
    try:
        fd = os.open(path, os.O_RDONLY, 0)
    except OSError as e:
        print("cannot open: %s" % str(e))
        return -1
    os.close(fd)
    return fd


def entry_point(argv):
    steps = 200
    if len(argv) > 1:
        steps = int(argv[1])
    start = time.time()
    energies = simulate(steps)
    walk = random_walk(steps)
    print("sqrt(2) = %.12f, sqrt(-2) -> %.1f" % (safe_sqrt(2.0), safe_sqrt(-2.0)))
    print("growth 5%% over 30 years: %.6f" % safe_growth(0.05, 30.0))
    print("growth 500%% over 300 years: %.6f" % safe_growth(5.0, 300.0))
    print("pi %.10f e %.10f radians(180) %.10f" % (math.pi, math.e, math.radians(180.0)))
    tmp = os.getenv("TMPDIR")
    if tmp is None or not os.path.isdir(tmp):
        tmp = "/tmp"
    path = os.path.join(tmp, "rpy_pendulum_%d.csv" % os.getpid())
    written = write_report(path, energies, walk)
    data = read_report(path)
    lines = data.split(b"\n")
    print("report %s: %d bytes written, %d read, %d lines" % (
        os.path.basename(path)[:13], written, len(data), len(lines) - 1))
    fields = lines[1].split(b",")
    print("report line 2: %d fields, step %d, energy %.6f" % (len(fields), int(fields[0]), float(fields[1])))
    os.unlink(path)
    print("report still there: %s" % os.path.exists(path))
    try_open(os.path.join(tmp, "rpy_no_such_dir", "x.csv"))
    elapsed = time.time() - start
    print("elapsed is not negative: %s" % (elapsed >= 0.0))
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    import sys
    sys.exit(entry_point(sys.argv))

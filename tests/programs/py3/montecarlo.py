# Monte Carlo simulations driven by rlib's Mersenne Twister (rrandom):
# pi from random points in the unit square, a random walk's mean distance,
# a die histogram from genrand32, the birthday paradox, and two streams
# split with jumpahead. The Random instances are seeded from the command
# line (init_genrand) and from a key array (init_by_array, as CPython
# seeds from a long), so the results are the original's and CPython's.
# args: 4000 1234
import math
from rpython.rlib.rrandom import Random
from rpython.rlib.rarithmetic import r_uint, intmask


def estimate_pi(rng, samples):
    inside = 0
    for i in range(samples):
        x = rng.random()
        y = rng.random()
        if x * x + y * y < 1.0:
            inside += 1
    return 4.0 * inside / samples


def random_walk(rng, steps, walkers):
    total = 0.0
    farthest = 0.0
    for w in range(walkers):
        x = 0.0
        y = 0.0
        for s in range(steps):
            angle = rng.random() * 2.0 * math.pi
            x += math.cos(angle)
            y += math.sin(angle)
        d = math.sqrt(x * x + y * y)
        total += d
        if d > farthest:
            farthest = d
    return total / walkers, farthest


def die_histogram(rng, rolls):
    counts = [0] * 6
    for i in range(rolls):
        face = intmask(rng.genrand32() % r_uint(6))
        counts[face] += 1
    return counts


def birthday_trial(rng, people):
    seen = [False] * 365
    for p in range(people):
        day = intmask(rng.genrand32() % r_uint(365))
        if seen[day]:
            return True
        seen[day] = True
    return False


def birthday(rng, people, trials):
    hits = 0
    for t in range(trials):
        if birthday_trial(rng, people):
            hits += 1
    return hits


def shuffle(rng, items):
    i = len(items) - 1
    while i > 0:
        j = intmask(rng.genrand32() % r_uint(i + 1))
        tmp = items[i]
        items[i] = items[j]
        items[j] = tmp
        i -= 1


def fmt(x):
    # Four decimals, the same in both CPythons and in rpy.
    return "%d.%04d" % (int(x), int((x - int(x)) * 10000.0))


def entry_point(argv):
    samples = int(argv[1])
    seed = int(argv[2])
    rng = Random(r_uint(seed))
    first = [intmask(rng.genrand32()) for i in range(3)]
    print("first words: %d %d %d" % (first[0], first[1], first[2]))
    print("pi ~ " + fmt(estimate_pi(rng, samples)))
    mean, farthest = random_walk(rng, 100, samples // 100)
    print("walk mean " + fmt(mean) + " farthest " + fmt(farthest))
    counts = die_histogram(rng, samples)
    for face in range(6):
        bar = "*" * (counts[face] * 60 // samples)
        print("%d %6d %s" % (face + 1, counts[face], bar))
    for people in [10, 23, 40]:
        hits = birthday(rng, people, samples // 20)
        print("birthday %d people: %d of %d" % (people, hits, samples // 20))
    keyed = Random()
    keyed.init_by_array([r_uint(seed), r_uint(42)])
    print("keyed: " + fmt(keyed.random()) + " " + fmt(keyed.random()))
    a = Random(r_uint(seed))
    b = Random(r_uint(seed))
    b.jumpahead(7)
    same = 0
    for i in range(1000):
        if a.genrand32() == b.genrand32():
            same += 1
    print("streams agree on %d of 1000 words" % same)
    deck = [i for i in range(20)]
    shuffle(rng, deck)
    print("shuffled: " + " ".join([str(c) for c in deck]))
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    import sys
    entry_point(sys.argv)

# A discrete-event simulation of a bank with tellers: a binary-heap
# priority queue of Event instances ordered by float time, a seeded LCG
# for exponential-looking arrival and service times, customer queues with
# None-able teller assignments, and statistics in floats.
# args: 300
import sys


class Rng(object):
    def __init__(self, seed):
        self.state = seed

    def uniform(self):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFF
        return (self.state >> 16) / 4294967296.0

    def exp_like(self, mean):
        # sum of uniforms, scaled: deterministic and cheap
        u = self.uniform() + self.uniform() + self.uniform()
        return mean * u * 2.0 / 3.0


class Event(object):
    def __init__(self, time, seq):
        self.time = time
        self.seq = seq

    def before(self, other):
        if self.time == other.time:
            return self.seq < other.seq
        return self.time < other.time

    def fire(self, sim):
        raise NotImplementedError


class Arrival(Event):
    def __init__(self, time, seq, customer):
        Event.__init__(self, time, seq)
        self.customer = customer

    def fire(self, sim):
        sim.arrive(self.customer, self.time)


class Departure(Event):
    def __init__(self, time, seq, teller):
        Event.__init__(self, time, seq)
        self.teller = teller

    def fire(self, sim):
        sim.depart(self.teller, self.time)


class EmptyQueue(Exception):
    pass


class Heap(object):
    def __init__(self):
        self.items = []

    def push(self, ev):
        items = self.items
        items.append(ev)
        i = len(items) - 1
        while i > 0:
            parent = (i - 1) // 2
            if items[i].before(items[parent]):
                items[i], items[parent] = items[parent], items[i]
                i = parent
            else:
                break

    def pop(self):
        items = self.items
        if not items:
            raise EmptyQueue()
        top = items[0]
        last = items.pop()
        if items:
            items[0] = last
            i = 0
            n = len(items)
            while True:
                smallest = i
                for child in [2 * i + 1, 2 * i + 2]:
                    if child < n and items[child].before(items[smallest]):
                        smallest = child
                if smallest == i:
                    break
                items[i], items[smallest] = items[smallest], items[i]
                i = smallest
        return top

    def __len__(self):
        return len(self.items)


class Customer(object):
    def __init__(self, ident, arrived):
        self.ident = ident
        self.arrived = arrived
        self.started = -1.0


class Teller(object):
    def __init__(self, name, speed):
        self.name = name
        self.speed = speed
        self.current = None
        self.served = 0
        self.busy_time = 0.0


class Simulation(object):
    def __init__(self, tellers, seed):
        self.tellers = tellers
        self.rng = Rng(seed)
        self.events = Heap()
        self.waiting = []
        self.seq = 0
        self.waits = []
        self.max_queue = 0
        self.now = 0.0

    def schedule(self, ev):
        self.events.push(ev)

    def next_seq(self):
        self.seq += 1
        return self.seq

    def arrive(self, customer, time):
        self.waiting.append(customer)
        if len(self.waiting) > self.max_queue:
            self.max_queue = len(self.waiting)
        self.dispatch(time)

    def dispatch(self, time):
        for t in self.tellers:
            if t.current is None and self.waiting:
                c = self.waiting.pop(0)
                c.started = time
                self.waits.append(time - c.arrived)
                t.current = c
                service = self.rng.exp_like(4.0) / t.speed
                t.busy_time += service
                self.schedule(Departure(time + service, self.next_seq(), t))

    def depart(self, teller, time):
        teller.current = None
        teller.served += 1
        self.dispatch(time)

    def run(self, customers):
        t = 0.0
        for i in range(customers):
            t += self.rng.exp_like(1.5)
            self.schedule(Arrival(t, self.next_seq(), Customer(i, t)))
        fired = 0
        while True:
            try:
                ev = self.events.pop()
            except EmptyQueue:
                break
            self.now = ev.time
            ev.fire(self)
            fired += 1
        return fired


def stats(values):
    if not values:
        raise ValueError("no data")
    total = 0.0
    worst = values[0]
    for v in values:
        total += v
        if v > worst:
            worst = v
    mean = total / len(values)
    var = 0.0
    for v in values:
        var += (v - mean) * (v - mean)
    return mean, var / len(values), worst


def entry_point(argv):
    customers = 100
    if len(argv) > 1:
        customers = int(argv[1])
    for count in [1, 2, 3]:
        tellers = [Teller("T%d" % i, 1.0 + 0.25 * i) for i in range(count)]
        sim = Simulation(tellers, 2024)
        fired = sim.run(customers)
        try:
            mean, var, worst = stats(sim.waits)
        except ValueError as e:
            print("%d tellers: %s" % (count, str(e)))
            continue
        print("%d tellers: %d events, end %.2f, wait mean %.3f var %.3f max %.3f, queue %d" % (
            count, fired, sim.now, mean, var, worst, sim.max_queue))
        for t in tellers:
            util = 100.0 * t.busy_time / sim.now
            print("   %s speed %.2f served %4d busy %6.1f%%" % (t.name, t.speed, t.served, util))
    try:
        stats([])
    except ValueError as e:
        print("empty: %s" % str(e))
    h = Heap()
    for i in range(6):
        h.push(Event(float(5 - i) * 0.5, i))
    order = []
    while len(h) > 0:
        ev = h.pop()
        order.append("%.1f/%d" % (ev.time, ev.seq))
    print("heap order: " + " ".join(order))
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

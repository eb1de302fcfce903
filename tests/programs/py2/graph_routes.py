# Graph algorithms over a road map held as a dict of adjacency lists:
# Dijkstra with a hand-written binary heap of (distance, node) pairs,
# breadth-first hop counts, Kruskal's spanning tree with union-find (path
# halving, union by rank), a topological order of a build graph by Kahn's
# algorithm with cycle detection, and edge weights in a dict keyed by
# tuples. Python 2 syntax: print statements, xrange, iteritems.
# args: 40


class CycleError(Exception):
    def __init__(self, stuck):
        self.stuck = stuck


class MinHeap(object):
    def __init__(self):
        self.dists = []
        self.nodes = []

    def __len__(self):
        return len(self.dists)

    def push(self, dist, node):
        self.dists.append(dist)
        self.nodes.append(node)
        i = len(self.dists) - 1
        while i > 0:
            parent = (i - 1) / 2
            if self.dists[parent] <= self.dists[i]:
                break
            self._swap(i, parent)
            i = parent

    def pop(self):
        dist, node = self.dists[0], self.nodes[0]
        last_d = self.dists.pop()
        last_n = self.nodes.pop()
        if self.dists:
            self.dists[0] = last_d
            self.nodes[0] = last_n
            i = 0
            n = len(self.dists)
            while True:
                smallest = i
                for child in (2 * i + 1, 2 * i + 2):
                    if child < n and self.dists[child] < self.dists[smallest]:
                        smallest = child
                if smallest == i:
                    break
                self._swap(i, smallest)
                i = smallest
        return dist, node

    def _swap(self, i, j):
        self.dists[i], self.dists[j] = self.dists[j], self.dists[i]
        self.nodes[i], self.nodes[j] = self.nodes[j], self.nodes[i]


class Graph(object):
    def __init__(self):
        self.adjacent = {}
        self.weights = {}

    def add_edge(self, a, b, w):
        self.adjacent.setdefault(a, []).append(b)
        self.adjacent.setdefault(b, []).append(a)
        key = (min(a, b), max(a, b))
        old = self.weights.get(key, -1)
        if old < 0 or w < old:
            self.weights[key] = w

    def weight(self, a, b):
        return self.weights[(min(a, b), max(a, b))]

    def dijkstra(self, source):
        dist = {source: 0}
        prev = {}
        heap = MinHeap()
        heap.push(0, source)
        while len(heap) > 0:
            d, node = heap.pop()
            if d > dist[node]:
                continue  # a stale entry
            for other in self.adjacent.get(node, []):
                nd = d + self.weight(node, other)
                if other not in dist or nd < dist[other]:
                    dist[other] = nd
                    prev[other] = node
                    heap.push(nd, other)
        return dist, prev

    def hops(self, source):
        seen = {source: 0}
        queue = [source]
        head = 0
        while head < len(queue):
            node = queue[head]
            head += 1
            for other in self.adjacent[node]:
                if other not in seen:
                    seen[other] = seen[node] + 1
                    queue.append(other)
        return seen


def path_to(prev, source, target):
    path = [target]
    while path[-1] != source:
        path.append(prev[path[-1]])
    path.reverse()
    return path


class UnionFind(object):
    def __init__(self, n):
        self.parent = range(n)
        self.rank = [0] * n

    def find(self, x):
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        if self.rank[ra] < self.rank[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        if self.rank[ra] == self.rank[rb]:
            self.rank[ra] += 1
        return True


def kruskal(graph, n):
    edges = []
    for (a, b), w in graph.weights.iteritems():
        # insertion by weight, then endpoints, so ties are deterministic
        at = len(edges)
        while at > 0 and (edges[at - 1][0] > w or
                          (edges[at - 1][0] == w and edges[at - 1][1] > a * n + b)):
            at -= 1
        edges.insert(at, (w, a * n + b, a, b))
    uf = UnionFind(n)
    total = 0
    chosen = []
    for w, _, a, b in edges:
        if uf.union(a, b):
            total += w
            chosen.append((a, b))
    roots = {}
    for node in xrange(n):
        roots[uf.find(node)] = None
    return total, chosen, len(roots)


def topological(deps):
    indegree = {}
    users = {}
    for target, needs in deps.iteritems():
        indegree.setdefault(target, 0)
        for need in needs:
            indegree[target] += 1
            users.setdefault(need, []).append(target)
            indegree.setdefault(need, 0)
    ready = [name for name, count in indegree.iteritems() if count == 0]
    order = []
    while ready:
        # the alphabetically first ready name, for a stable order
        best = 0
        for i in xrange(1, len(ready)):
            if ready[i] < ready[best]:
                best = i
        name = ready.pop(best)
        order.append(name)
        for user in users.get(name, []):
            indegree[user] -= 1
            if indegree[user] == 0:
                ready.append(user)
    if len(order) != len(indegree):
        stuck = [name for name in indegree if indegree[name] > 0]
        raise CycleError(stuck)
    return order


def build_graph(n):
    g = Graph()
    seed = 7
    for node in xrange(1, n):
        seed = (seed * 75 + 74) % 65537
        g.add_edge(node, seed % node, 1 + seed % 9)
    for _ in xrange(n):
        seed = (seed * 75 + 74) % 65537
        a = seed % n
        seed = (seed * 75 + 74) % 65537
        b = seed % n
        if a != b:
            g.add_edge(a, b, 3 + seed % 17)
    return g


def entry_point(argv):
    n = int(argv[1])
    g = build_graph(n)
    dist, prev = g.dijkstra(0)
    hops = g.hops(0)
    far = 0
    for node in xrange(n):
        if dist[node] > dist[far]:
            far = node
    print "%d nodes, %d edges" % (len(g.adjacent), len(g.weights))
    print "farthest from 0: node %d at %d (%d hops)" % (far, dist[far], hops[far])
    print "path:", " -> ".join([str(x) for x in path_to(prev, 0, far)])
    print "%5s %6s %5s" % ("node", "dist", "hops")
    for node in xrange(0, n, max(1, n / 8)):
        print "%5d %6d %5d" % (node, dist[node], hops[node])
    total, chosen, parts = kruskal(g, n)
    print "spanning tree weight %d over %d edges, %d component(s)" % (total, len(chosen), parts)
    print "first edges:", chosen[:5]
    deps = {"app": ["lib", "ui"], "ui": ["lib", "gfx"], "gfx": ["core"],
            "lib": ["core"], "test": ["app"], "docs": []}
    print "build order:", ", ".join(topological(deps))
    deps["core"] = ["test"]
    try:
        topological(deps)
    except CycleError, e:
        stuck = e.stuck
        print "cycle among %d targets, e.g. %s" % (len(stuck), "core" in stuck)
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    import sys
    sys.exit(entry_point(sys.argv))

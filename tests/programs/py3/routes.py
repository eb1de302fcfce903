# Route planning on a small rail network: an adjacency dict of lists of
# (town, distance) tuples, Dijkstra over a hand-written binary heap of
# (float, int) pairs, Kruskal's spanning tree with a union-find, a
# topological order of a dependency graph (Kahn's algorithm), and a
# breadth-first reachability count; *args and keyword arguments in calls.
# args: 3
import sys

INF = 1e300

EDGES = [('Amsel', 'Birk', 7.5), ('Amsel', 'Cleve', 9.0), ('Amsel', 'Fenn', 14.0),
         ('Birk', 'Cleve', 10.0), ('Birk', 'Dorn', 15.25), ('Cleve', 'Dorn', 11.0),
         ('Cleve', 'Fenn', 2.0), ('Dorn', 'Elm', 6.0), ('Elm', 'Fenn', 9.0),
         ('Elm', 'Gars', 3.5), ('Gars', 'Hale', 4.0), ('Ivo', 'Jura', 1.0)]

BUILD = [('compile', 'parse'), ('parse', 'lex'), ('link', 'compile'),
         ('test', 'link'), ('docs', 'parse'), ('release', 'test'),
         ('release', 'docs')]


class Heap(object):
    def __init__(self):
        self.keys = []
        self.items = []

    def __len__(self):
        return len(self.keys)

    def push(self, key, item):
        self.keys.append(key)
        self.items.append(item)
        i = len(self.keys) - 1
        while i > 0:
            parent = (i - 1) // 2
            if self.keys[parent] <= self.keys[i]:
                break
            self.swap(i, parent)
            i = parent

    def swap(self, i, j):
        self.keys[i], self.keys[j] = self.keys[j], self.keys[i]
        self.items[i], self.items[j] = self.items[j], self.items[i]

    def pop(self):
        key = self.keys[0]
        item = self.items[0]
        last = len(self.keys) - 1
        self.swap(0, last)
        self.keys.pop()
        self.items.pop()
        i = 0
        n = len(self.keys)
        while True:
            small = i
            for child in (2 * i + 1, 2 * i + 2):
                if child < n and self.keys[child] < self.keys[small]:
                    small = child
            if small == i:
                break
            self.swap(i, small)
            i = small
        return key, item


class Graph(object):
    def __init__(self):
        self.names = []
        self.index = {}
        self.adj = []

    def node(self, name):
        if name not in self.index:
            self.index[name] = len(self.names)
            self.names.append(name)
            self.adj.append([])
        return self.index[name]

    def connect(self, a, b, dist, both=True):
        i = self.node(a)
        j = self.node(b)
        self.adj[i].append((j, dist))
        if both:
            self.adj[j].append((i, dist))


def dijkstra(g, source, closed):
    dist = [INF] * len(g.names)
    prev = [-1] * len(g.names)
    dist[source] = 0.0
    heap = Heap()
    heap.push(0.0, source)
    while len(heap) > 0:
        d, u = heap.pop()
        if d > dist[u]:
            continue
        for v, w in g.adj[u]:
            if g.names[v] in closed:
                continue
            if d + w < dist[v]:
                dist[v] = d + w
                prev[v] = u
                heap.push(d + w, v)
    return dist, prev


def path_to(g, prev, target):
    steps = []
    while target >= 0:
        steps.append(g.names[target])
        target = prev[target]
    steps.reverse()
    return ' > '.join(steps)


def find(parent, i):
    root = i
    while parent[root] != root:
        root = parent[root]
    while parent[i] != root:
        parent[i], i = root, parent[i]
    return root


def kruskal(g):
    edges = []
    for u in range(len(g.names)):
        for v, w in g.adj[u]:
            if u < v:
                edges.append((w, u, v))
    # insertion sort by weight, then by endpoints
    for i in range(1, len(edges)):
        e = edges[i]
        j = i - 1
        while j >= 0 and edges[j] > e:
            edges[j + 1] = edges[j]
            j -= 1
        edges[j + 1] = e
    parent = [i for i in range(len(g.names))]
    tree = []
    total = 0.0
    for w, u, v in edges:
        ru = find(parent, u)
        rv = find(parent, v)
        if ru != rv:
            parent[ru] = rv
            tree.append('%s-%s' % (g.names[u], g.names[v]))
            total += w
    return tree, total


def topo_order(pairs):
    g = Graph()
    for after, before in pairs:
        g.connect(before, after, 1.0, both=False)
    indegree = [0] * len(g.names)
    for u in range(len(g.names)):
        for v, _ in g.adj[u]:
            indegree[v] += 1
    ready = [u for u in range(len(g.names)) if indegree[u] == 0]
    order = []
    while ready:
        u = ready.pop(0)
        order.append(g.names[u])
        for v, _ in g.adj[u]:
            indegree[v] -= 1
            if indegree[v] == 0:
                ready.append(v)
    return order


def reachable(g, start):
    seen = {start: None}
    queue = [start]
    head = 0
    while head < len(queue):
        u = queue[head]
        head += 1
        for v, _ in g.adj[u]:
            if v not in seen:
                seen[v] = None
                queue.append(v)
    return len(seen)


def show_row(label, *cells):
    parts = [label]
    for c in cells:
        parts.append('%7.2f' % c if c < INF else '      -')
    return ' '.join(parts)


def entry_point(argv):
    scale = 1
    if len(argv) > 1:
        scale = int(argv[1])
    g = Graph()
    for a, b, d in EDGES:
        g.connect(a, b, d * scale)
    src = g.node('Amsel')
    dist, prev = dijkstra(g, src, {})
    for i, name in enumerate(g.names):
        if dist[i] < INF:
            print('%-6s %8.2f  %s' % (name, dist[i], path_to(g, prev, i)))
        else:
            print('%-6s unreachable' % name)
    dist2, prev2 = dijkstra(g, src, closed={'Cleve': None})
    print('without Cleve: Hale at %.2f via %s' % (dist2[g.node('Hale')],
                                                  path_to(g, prev2, g.node('Hale'))))
    print(show_row('row', dist[1], dist[2], dist2[2], dist[g.node('Jura')]))
    tree, total = kruskal(g)
    print('spanning forest (%d edges, %.1f): %s' % (len(tree), total, ', '.join(tree)))
    print('build order: %s' % ' '.join(topo_order(BUILD)))
    print('reachable from Amsel: %d, from Ivo: %d' % (reachable(g, src),
                                                      reachable(g, g.node('Ivo'))))
    h = Heap()
    for k in range(12):
        h.push(float((k * 7919) % 13) / scale, k)
    drained = []
    while len(h):
        key, item = h.pop()
        drained.append('%g:%d' % (key, item))
    print('heap order: ' + ' '.join(drained))
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

# Graph algorithms over node objects used as dict keys (hashed by identity):
# a random weighted graph, Dijkstra's shortest paths with a hand-written
# binary heap, breadth-first layers, connected components with union-find
# whose parent links live in a dict keyed by node, and a topological order
# of the acyclic part. Nothing prints an identity hash, only what follows
# from the graph.
# args: 300
import sys
from rpython.rlib.objectmodel import compute_identity_hash


class Node(object):
    def __init__(self, name):
        self.name = name
        self.edges = []

    def connect(self, other, weight):
        self.edges.append(Edge(other, weight))


class Hub(Node):
    """A node that every tenth node links to."""

    def __init__(self, name):
        Node.__init__(self, name)
        self.visits = 0


class Edge(object):
    def __init__(self, target, weight):
        self.target = target
        self.weight = weight


class Heap(object):
    """A binary min-heap of (distance, node) entries."""

    def __init__(self):
        self.keys = []
        self.nodes = []

    def push(self, key, node):
        self.keys.append(key)
        self.nodes.append(node)
        i = len(self.keys) - 1
        while i > 0:
            parent = (i - 1) // 2
            if self.keys[parent] <= self.keys[i]:
                break
            self.swap(i, parent)
            i = parent

    def swap(self, i, j):
        self.keys[i], self.keys[j] = self.keys[j], self.keys[i]
        self.nodes[i], self.nodes[j] = self.nodes[j], self.nodes[i]

    def pop(self):
        key = self.keys[0]
        node = self.nodes[0]
        last = len(self.keys) - 1
        self.swap(0, last)
        self.keys.pop()
        self.nodes.pop()
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
        return key, node

    def empty(self):
        return len(self.keys) == 0


def build(n, seed):
    nodes = []
    for i in range(n):
        if i % 10 == 0:
            nodes.append(Hub("h%d" % i))
        else:
            nodes.append(Node("n%d" % i))
    for i in range(n):
        for k in range(3):
            seed = (seed * 1103515245 + 12345) % 2147483648
            j = (seed >> 8) % n
            if j != i and (i + k) % 5 != 4:
                nodes[i].connect(nodes[j], 1 + (seed >> 4) % 9)
        if i % 10 != 0:
            nodes[i].connect(nodes[i - i % 10], 5)
    return nodes


def dijkstra(source):
    dist = {source: 0}
    done = {}
    heap = Heap()
    heap.push(0, source)
    while not heap.empty():
        d, node = heap.pop()
        if node in done:
            continue
        done[node] = True
        if isinstance(node, Hub):
            node.visits += 1
        for e in node.edges:
            nd = d + e.weight
            old = dist.get(e.target, -1)
            if old < 0 or nd < old:
                dist[e.target] = nd
                heap.push(nd, e.target)
    return dist


def layers(source):
    depth = {source: 0}
    frontier = [source]
    widths = []
    while frontier:
        widths.append(len(frontier))
        following = []
        for node in frontier:
            for e in node.edges:
                if e.target not in depth:
                    depth[e.target] = depth[node] + 1
                    following.append(e.target)
        frontier = following
    return widths


def find(parent, node):
    root = node
    while parent[root] is not root:
        root = parent[root]
    while parent[node] is not root:
        following = parent[node]
        parent[node] = root
        node = following
    return root


def components(nodes, limit):
    parent = {}
    for node in nodes:
        parent[node] = node
    for node in nodes:
        for e in node.edges:
            if e.weight <= limit:
                a = find(parent, node)
                b = find(parent, e.target)
                if a is not b:
                    parent[a] = b
    sizes = {}
    for node in nodes:
        root = find(parent, node)
        sizes[root] = sizes.get(root, 0) + 1
    counts = []
    for size in sizes.values():
        i = len(counts)
        counts.append(size)
        while i > 0 and counts[i - 1] > size:
            counts[i] = counts[i - 1]
            i -= 1
        counts[i] = size
    return counts


def topological(nodes):
    # Only the edges to a node of higher number: an acyclic graph.
    incoming = {}
    for node in nodes:
        incoming[node] = 0
    number = {}
    for i, node in enumerate(nodes):
        number[node] = i
    for node in nodes:
        for e in node.edges:
            if number[e.target] > number[node]:
                incoming[e.target] += 1
    ready = [node for node in nodes if incoming[node] == 0]
    order = []
    while ready:
        node = ready.pop()
        order.append(number[node])
        for e in node.edges:
            if number[e.target] > number[node]:
                incoming[e.target] -= 1
                if incoming[e.target] == 0:
                    ready.append(e.target)
    return order


def entry_point(argv):
    n = int(argv[1])
    nodes = build(n, 7)
    dist = dijkstra(nodes[0])
    reached = 0
    total = 0
    for node in nodes:
        if node in dist:
            reached += 1
            total += dist[node]
    print("reached %d of %d, total distance %d" % (reached, n, total))
    far = nodes[0]
    for node in nodes:
        if dist.get(node, -1) > dist.get(far, -1):
            far = node
    print("farthest %s at %d" % (far.name, dist[far]))
    print("layers %s" % ",".join([str(w) for w in layers(nodes[0])]))
    print("components %s" % components(nodes, 3)[-5:])
    order = topological(nodes)
    print("topological %d first %d last %d" % (len(order), order[0], order[-1]))
    hubs = [node for node in nodes if isinstance(node, Hub)]
    visits = 0
    for hub in hubs:
        visits += hub.visits
    print("hubs %d visited %d" % (len(hubs), visits))
    same = 0
    for node in nodes:
        if compute_identity_hash(node) == compute_identity_hash(node):
            same += 1
    print("stable hashes %d" % same)
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

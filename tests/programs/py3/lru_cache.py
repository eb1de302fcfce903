# An LRU cache as a doubly linked list of entries with None-able links and
# a dict from key to entry, in front of a slow "disk" of blocks keyed by
# (file, block) tuples; a write-back policy with dirty entries flushed on
# eviction, pinned entries skipped, and statistics printed as a table.
# args: 300
import sys


class CacheError(Exception):
    def __init__(self, msg):
        self.msg = msg


class AllPinned(CacheError):
    pass


class Entry(object):
    def __init__(self, key, data):
        self.key = key
        self.data = data
        self.dirty = False
        self.pins = 0
        self.prev = None
        self.next = None


class Disk(object):
    BLOCK = 8

    def __init__(self):
        self.blocks = {}
        self.reads = 0
        self.writes = 0

    def read(self, key):
        self.reads += 1
        data = self.blocks.get(key, None)
        if data is None:
            fileno, blockno = key
            data = [(fileno * 31 + blockno * 7 + i) % 256 for i in range(Disk.BLOCK)]
        return data[:]

    def write(self, key, data):
        self.writes += 1
        self.blocks[key] = data[:]


class LRUCache(object):
    def __init__(self, disk, capacity=4):
        self.disk = disk
        self.capacity = capacity
        self.entries = {}
        self.head = None    # most recently used
        self.tail = None    # least recently used
        self.hits = 0
        self.misses = 0
        self.evictions = []

    def _unlink(self, entry):
        if entry.prev is not None:
            entry.prev.next = entry.next
        else:
            self.head = entry.next
        if entry.next is not None:
            entry.next.prev = entry.prev
        else:
            self.tail = entry.prev
        entry.prev = None
        entry.next = None

    def _push_front(self, entry):
        entry.next = self.head
        if self.head is not None:
            self.head.prev = entry
        self.head = entry
        if self.tail is None:
            self.tail = entry

    def _evict_one(self):
        victim = self.tail
        while victim is not None:
            if victim.pins == 0:
                break
            victim = victim.prev
        else:
            raise AllPinned("all %d entries are pinned" % len(self.entries))
        self._unlink(victim)
        del self.entries[victim.key]
        if victim.dirty:
            self.disk.write(victim.key, victim.data)
        self.evictions.append(victim.key)
        if len(self.evictions) > 5:
            del self.evictions[0]

    def lookup(self, key):
        entry = self.entries.get(key, None)
        if entry is not None:
            self.hits += 1
            self._unlink(entry)
            self._push_front(entry)
            return entry
        self.misses += 1
        while len(self.entries) >= self.capacity:
            self._evict_one()
        entry = Entry(key, self.disk.read(key))
        self.entries[key] = entry
        self._push_front(entry)
        return entry

    def order(self):
        keys = []
        entry = self.head
        while entry is not None:
            keys.append(entry.key)
            entry = entry.next
        return keys

    def flush(self):
        flushed = 0
        for key, entry in self.entries.items():
            if entry.dirty:
                self.disk.write(key, entry.data)
                entry.dirty = False
                flushed += 1
        return flushed

    @staticmethod
    def describe(key):
        return "f%d:b%d" % key


def checksum(*values):
    total = 0
    for v in values:
        total = (total * 33 + v) & 0xFFFFFF
    return total


def patch(cache, key, offset, patch_bytes):
    entry = cache.lookup(key)
    entry.pins += 1
    try:
        entry.data[offset:offset + len(patch_bytes)] = patch_bytes
        entry.dirty = True
        return checksum(entry.data[0], entry.data[-1], len(entry.data))
    finally:
        entry.pins -= 1


def insert_sorted(items, value):
    # keeps `items` ascending; RPython lists have no sort()
    at = len(items)
    while at > 0 and items[at - 1] > value:
        at -= 1
    items.insert(at, value)


def workload(n, capacity):
    disk = Disk()
    cache = LRUCache(disk, capacity)
    seed = 12345
    digest = 0
    per_file = {}
    for step in range(n):
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        key = (seed % 3, (seed >> 8) % (capacity + 3))
        per_file.setdefault(key[0], []).append(key[1])
        if step % 4 == 0:
            digest ^= patch(cache, key, step % 6, [step % 251, (step * 7) % 251])
        else:
            entry = cache.lookup(key)
            digest = checksum(digest, entry.data[step % Disk.BLOCK])
    flushed = cache.flush()
    return cache, disk, digest, flushed, per_file


def pinned_demo():
    cache = LRUCache(Disk(), 2)
    a = cache.lookup((9, 0))
    b = cache.lookup((9, 1))
    a.pins += 1
    b.pins += 1
    try:
        cache.lookup((9, 2))
    except AllPinned as e:
        print("pinned: " + e.msg)
    b.pins -= 1
    cache.lookup((9, 2))
    print("after unpin: " + " ".join([LRUCache.describe(k) for k in cache.order()]))


def main(n):
    print("%-4s %6s %6s %6s %7s %6s %8s" % ("cap", "hits", "misses", "reads", "writes",
                                          "flush", "digest"))
    results = []
    for capacity in [1, 2, 4, 8]:
        cache, disk, digest, flushed, per_file = workload(n, capacity)
        print("%-4d %6d %6d %6d %7d %6d %08x" % (capacity, cache.hits, cache.misses,
                                               disk.reads, disk.writes, flushed, digest))
        ratio = 100.0 * cache.hits / (cache.hits + cache.misses)
        # best first: ties keep the smaller capacity first
        at = 0
        while at < len(results) and results[at][0] >= ratio:
            at += 1
        results.insert(at, (ratio, capacity))
        recent = [LRUCache.describe(k) for k in cache.evictions]
        print("     order   %s" % ", ".join([LRUCache.describe(k) for k in cache.order()]))
        print("     evicted %s" % (", ".join(recent) if recent else "-"))
        files = []
        for f in per_file:
            insert_sorted(files, f)
        for f in files:
            blocks = per_file[f]
            print("     file %d: %3d touches, first %r" % (f, len(blocks), blocks[:4]))
    for ratio, capacity in results:
        print("capacity %d hit ratio %6.2f%%" % (capacity, ratio))
    best = results.pop(0)
    worst = results.pop()
    print("best %d worst %d" % (best[1], worst[1]))
    pinned_demo()
    return 0


def entry_point(argv):
    n = 100
    if len(argv) > 1:
        n = int(argv[1])
    return main(n)


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

# A binary search tree keyed by int with string values and None-able
# links: insertion, lookup, deletion of nodes with zero, one and two
# children, traversals, height; and a singly linked list with reversal,
# removal and a cycle check.
# args: 60
import sys


class NotFound(Exception):
    def __init__(self, key):
        self.key = key


class TreeNode(object):
    def __init__(self, key, value):
        self.key = key
        self.value = value
        self.left = None
        self.right = None


class Tree(object):
    def __init__(self):
        self.root = None
        self.size = 0

    def insert(self, key, value):
        node = TreeNode(key, value)
        if self.root is None:
            self.root = node
            self.size = 1
            return
        cur = self.root
        while True:
            if key == cur.key:
                cur.value = value
                return
            if key < cur.key:
                if cur.left is None:
                    cur.left = node
                    break
                cur = cur.left
            else:
                if cur.right is None:
                    cur.right = node
                    break
                cur = cur.right
        self.size += 1

    def find(self, key):
        cur = self.root
        while cur is not None:
            if key == cur.key:
                return cur.value
            cur = cur.left if key < cur.key else cur.right
        raise NotFound(key)

    def delete(self, key):
        self.root = self._delete(self.root, key)
        self.size -= 1

    def _delete(self, node, key):
        if node is None:
            raise NotFound(key)
        if key < node.key:
            node.left = self._delete(node.left, key)
            return node
        if key > node.key:
            node.right = self._delete(node.right, key)
            return node
        if node.left is None:
            return node.right
        if node.right is None:
            return node.left
        succ = node.right
        while succ.left is not None:
            succ = succ.left
        node.key = succ.key
        node.value = succ.value
        node.right = self._delete(node.right, succ.key)
        return node

    def height(self, node):
        if node is None:
            return 0
        return 1 + max(self.height(node.left), self.height(node.right))

    def inorder(self):
        out = []
        stack = []
        cur = self.root
        while cur is not None or stack:
            while cur is not None:
                stack.append(cur)
                cur = cur.left
            cur = stack.pop()
            out.append(cur.key)
            cur = cur.right
        return out

    def preorder_str(self, node):
        if node is None:
            return "-"
        if node.left is None and node.right is None:
            return str(node.key)
        return "%d(%s,%s)" % (node.key, self.preorder_str(node.left),
                              self.preorder_str(node.right))


class Link(object):
    def __init__(self, value, next):
        self.value = value
        self.next = next


def list_from(values):
    head = None
    for i in range(len(values) - 1, -1, -1):
        head = Link(values[i], head)
    return head


def list_str(head):
    parts = []
    while head is not None:
        parts.append(str(head.value))
        head = head.next
    return "[" + " -> ".join(parts) + "]"


def reverse(head):
    prev = None
    while head is not None:
        nxt = head.next
        head.next = prev
        prev = head
        head = nxt
    return prev


def remove_if(head, divisor):
    dummy = Link(0, head)
    cur = dummy
    while cur.next is not None:
        if cur.next.value % divisor == 0:
            cur.next = cur.next.next
        else:
            cur = cur.next
    return dummy.next


def has_cycle(head):
    slow = head
    fast = head
    while fast is not None and fast.next is not None:
        slow = slow.next
        fast = fast.next.next
        if slow is fast:
            return True
    return False


def entry_point(argv):
    n = 20
    if len(argv) > 1:
        n = int(argv[1])
    tree = Tree()
    key = 7
    for i in range(n):
        key = (key * 37 + 11) % 101
        tree.insert(key, "v%d" % i)
    print "size %d height %d" % (tree.size, tree.height(tree.root))
    keys = tree.inorder()
    print "first keys: %s" % " ".join([str(k) for k in keys[:10]])
    for k in [keys[0], keys[len(keys) // 2], 1000]:
        try:
            print "find %d -> %s" % (k, tree.find(k))
        except NotFound, e:
            print "find %d -> not found" % e.key
    removed = 0
    for k in [keys[0], keys[-1], keys[len(keys) // 2], 5000, keys[1]]:
        try:
            tree.delete(k)
            removed += 1
        except NotFound, e:
            print "delete %d: not in tree" % e.key
    after = tree.inorder()
    ok = True
    for i in range(1, len(after)):
        if after[i - 1] >= after[i]:
            ok = False
    print("removed %d, size %d, ordered %s, height %d" % (
        removed, tree.size, ok, tree.height(tree.root)))
    small = Tree()
    for k in [50, 30, 70, 20, 40, 60, 80, 35]:
        small.insert(k, "x")
    print small.preorder_str(small.root)
    small.delete(30)
    small.delete(50)
    print small.preorder_str(small.root)
    head = list_from(list(range(1, 13)))
    print list_str(head)
    head = reverse(head)
    print list_str(head)
    head = remove_if(head, 3)
    print list_str(head)
    print "cycle: %s" % has_cycle(head)
    tail = head
    while tail.next is not None:
        tail = tail.next
    tail.next = head.next.next
    print "cycle: %s" % has_cycle(head)
    tail.next = None
    print "empty list: %s, reversed empty: %s" % (list_str(None), list_str(reverse(None)))
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

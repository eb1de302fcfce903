# A bank in Python 2 syntax: its own exception hierarchy caught with
# `except E, e:`, try/except/else/finally with re-raise, a dict of lists of
# transactions, a list of tuples sorted by hand, iteritems/itervalues,
# long literals, int `/` as floor division, list.pop(0)/insert/index/remove.
# args: 40
import sys


class BankError(Exception):
    def __init__(self, msg):
        self.msg = msg


class NoSuchAccount(BankError):
    pass


class Overdrawn(BankError):
    def __init__(self, name, need):
        BankError.__init__(self, "%s overdrawn by %d" % (name, need))
        self.need = need


class Frozen(BankError):
    pass


LIMIT = 1000000000000L
FEE_PER_MILLE = 7


class Bank(object):
    def __init__(self):
        self.balances = {}
        self.history = {}
        self.frozen = {}
        self.log = []
        self.fees = 0

    def open(self, name, amount):
        self.balances[name] = amount
        self.history[name] = [amount]

    def check(self, name):
        if name not in self.balances:
            raise NoSuchAccount("no account %s" % name)
        if self.frozen.get(name, False):
            raise Frozen("%s is frozen" % name)

    def withdraw(self, name, amount):
        self.check(name)
        fee = amount * FEE_PER_MILLE / 1000
        bal = self.balances[name]
        if bal < amount + fee:
            raise Overdrawn(name, amount + fee - bal)
        self.balances[name] = bal - amount - fee
        self.fees += fee
        self.history[name].append(-amount)

    def deposit(self, name, amount):
        self.check(name)
        self.balances[name] += amount
        self.history[name].append(amount)

    def transfer(self, src, dst, amount):
        try:
            self.withdraw(src, amount)
        except Overdrawn, e:
            self.log.append("refused %s->%s: %s" % (src, dst, e.msg))
            raise
        else:
            try:
                self.deposit(dst, amount)
            except BankError, e:
                # give the money back, then let the caller see the error
                self.balances[src] += amount
                self.history[src].pop()
                self.log.append("rolled back %s->%s" % (src, dst))
                raise
        finally:
            self.log.append("attempt %s->%s %d" % (src, dst, amount))


def sort_pairs(pairs):
    # insertion sort by (balance descending, name ascending)
    out = []
    for p in pairs:
        i = 0
        while i < len(out):
            q = out[i]
            if p[1] > q[1] or (p[1] == q[1] and p[0] < q[0]):
                break
            i += 1
        out.insert(i, p)
    return out


def run(bank, n):
    names = ["ann", "bob", "cy", "dee", "eve"]
    ok = 0
    failed = {}
    for k in xrange(n):
        src = names[k * 7 % len(names)]
        dst = names[(k * 3 + 1) % len(names)]
        if k % 11 == 5:
            dst = "zed"
        amount = (k * 37) % 500 + 10
        try:
            bank.transfer(src, dst, amount)
        except NoSuchAccount, e:
            failed["missing"] = failed.get("missing", 0) + 1
        except Overdrawn, e:
            failed["overdrawn"] = failed.get("overdrawn", 0) + 1
        except BankError, e:
            failed["other"] = failed.get("other", 0) + 1
        else:
            ok += 1
        if k == n / 2:
            bank.frozen["cy"] = True
        if k == n * 3 / 4:
            del bank.frozen["cy"]
    return ok, failed


def entry_point(argv):
    n = 40
    if len(argv) > 1:
        n = int(argv[1])
    bank = Bank()
    bank.open("ann", 900)
    bank.open("bob", 300)
    bank.open("cy", 1200)
    bank.open("dee", 50)
    bank.open("eve", 700)
    ok, failed = run(bank, n)
    print "transfers ok:", ok
    # a Python 2 dict has no defined order: report the kinds in a fixed one
    for kind in ["missing", "overdrawn", "other"]:
        print "  failed %-10s %3d" % (kind, failed.get(kind, 0))
    kinds = 0
    for kind, count in failed.iteritems():
        kinds += count
    print "  failures", kinds
    total = 0
    for bal in bank.balances.itervalues():
        total += bal
    print "total", total, "fees", bank.fees, "sum", total + bank.fees
    pairs = []
    for name, bal in bank.balances.items():
        pairs.append((name, bal))
    ranked = sort_pairs(pairs)
    rank = 1
    for name, bal in ranked:
        hist = bank.history[name]
        print "%d. %-5s %6d  moves=%d last=%d first=%d" % (
            rank, name, bal, len(hist), hist[-1], hist[0])
        rank += 1
    print "average", total / len(ranked), "neg avg", -total / len(ranked), "mod", -total % 7
    queue = [p[0] for p in ranked]
    queue.remove("cy")
    first = queue.pop(0)
    queue.insert(1, first)
    print "queue", " ".join(queue), "bob at", queue.index("bob")
    print "log size", len(bank.log)
    for line in bank.log[:6]:
        print " ", line
    for line in bank.log[-3:]:
        print " ", line
    big = LIMIT * 3
    print "big", big / 7, big % 7, 10L ** 3
    print "octal", 0777, "hex", 0x1F, "shift", 1 << 40
    tail = bank.log[len(bank.log) - 2:]
    print "tail", tail[0], "/", tail[-1]
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

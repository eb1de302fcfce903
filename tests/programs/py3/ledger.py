# A bank ledger: accounts in a dict, a journal of transactions read from
# text lines, its own exception hierarchy, KeyError handling, interest as
# floats and a report in %-formatted columns.
# args: 3
import sys


class LedgerError(Exception):
    def __init__(self, msg):
        self.msg = msg

    def describe(self):
        return "ledger error: " + self.msg


class InsufficientFunds(LedgerError):
    def __init__(self, account, wanted):
        LedgerError.__init__(self, "%s cannot pay %d (balance %d)" % (
            account.name, wanted, account.balance))
        self.shortfall = wanted - account.balance

    def describe(self):
        return "insufficient funds: " + self.msg


class UnknownAccount(LedgerError):
    def describe(self):
        return "unknown account: " + self.msg


class FrozenAccount(LedgerError):
    pass


class Account(object):
    kind = "checking"
    rate = 0.0

    def __init__(self, name, owner):
        self.name = name
        self.owner = owner
        self.balance = 0
        self.frozen = False
        self.history = []
        self.overdraft = None

    def deposit(self, amount):
        if self.frozen:
            raise FrozenAccount(self.name + " is frozen")
        self.balance += amount
        self.history.append(amount)

    def withdraw(self, amount):
        if self.frozen:
            raise FrozenAccount(self.name + " is frozen")
        limit = 0
        if self.overdraft is not None:
            limit = self.overdraft.limit
        if self.balance - amount < -limit:
            raise InsufficientFunds(self, amount)
        self.balance -= amount
        self.history.append(-amount)

    def month_end(self):
        return 0


class Savings(Account):
    kind = "savings"
    rate = 0.015

    def month_end(self):
        interest = int(self.balance * self.rate / 12.0 + 0.5)
        if interest > 0:
            self.deposit(interest)
        return interest


class Overdraft(object):
    def __init__(self, limit, fee):
        self.limit = limit
        self.fee = fee


class Ledger(object):
    def __init__(self):
        self.accounts = {}
        self.order = []
        self.failures = {}
        self.transfers = 0

    def open(self, name, owner, kind):
        if name in self.accounts:
            raise LedgerError("duplicate account " + name)
        if kind == "savings":
            acct = Savings(name, owner)
        else:
            acct = Account(name, owner)
        self.accounts[name] = acct
        self.order.append(name)
        return acct

    def get(self, name):
        try:
            return self.accounts[name]
        except KeyError:
            raise UnknownAccount(name)

    def note_failure(self, kind):
        self.failures[kind] = self.failures.get(kind, 0) + 1

    def transfer(self, src, dst, amount):
        a = self.get(src)
        b = self.get(dst)
        a.withdraw(amount)
        try:
            b.deposit(amount)
        except FrozenAccount:
            a.deposit(amount)
            raise
        self.transfers += 1

    def apply(self, line):
        parts = line.split()
        if not parts:
            return
        cmd = parts[0]
        try:
            if cmd == "open":
                self.open(parts[1], parts[2], parts[3])
            elif cmd == "dep":
                self.get(parts[1]).deposit(int(parts[2]))
            elif cmd == "wd":
                self.get(parts[1]).withdraw(int(parts[2]))
            elif cmd == "xfer":
                self.transfer(parts[1], parts[2], int(parts[3]))
            elif cmd == "freeze":
                self.get(parts[1]).frozen = True
            elif cmd == "thaw":
                self.get(parts[1]).frozen = False
            elif cmd == "od":
                self.get(parts[1]).overdraft = Overdraft(int(parts[2]), 5)
            elif cmd == "month":
                total = 0
                for name in self.order:
                    total += self.accounts[name].month_end()
                print("month end: %d paid in interest" % total)
            else:
                raise LedgerError("bad command '%s'" % cmd)
        except IndexError:
            raise LedgerError("missing operand for " + cmd)


JOURNAL = """
open alice Alice checking
open bob Bob savings
open carol Carol checking
dep alice 500
dep bob 12000
dep carol 75
xfer alice bob 200
xfer carol alice 100
wd dave 10
od carol 50
xfer carol alice 100
wd carol 30
freeze bob
xfer alice bob 50
thaw bob
xfer bob alice 2500
month
dep alice twelve
open alice Alice checking
close alice
dep alice
wd bob 1
"""


def report(ledger):
    print("%-6s %-8s %-6s %9s %5s" % ("acct", "kind", "owner", "balance", "ops"))
    total = 0
    for name in ledger.order:
        a = ledger.accounts[name]
        flag = ""
        if a.overdraft is not None:
            flag = " (od %d)" % a.overdraft.limit
        print("%-6s %-8s %-6s %9d %5d%s" % (a.name, a.kind, a.owner, a.balance,
                                          len(a.history), flag))
        total += a.balance
    print("total %d in %d accounts, %d transfers" % (total, len(ledger.order),
                                                       ledger.transfers))


def entry_point(argv):
    months = 1
    if len(argv) > 1:
        months = int(argv[1])
    ledger = Ledger()
    lineno = 0
    for line in JOURNAL.split("\n"):
        lineno += 1
        try:
            ledger.apply(line)
        except InsufficientFunds as e:
            ledger.note_failure("funds")
            print("line %d: %s (short by %d)" % (lineno, e.describe(), e.shortfall))
        except LedgerError as e:
            ledger.note_failure("ledger")
            print("line %d: %s" % (lineno, e.describe()))
        except ValueError:
            ledger.note_failure("value")
            print("line %d: bad number in '%s'" % (lineno, line))
    for m in range(months - 1):
        ledger.apply("month")
    report(ledger)
    kinds = list(ledger.failures.keys())
    i = 1
    while i < len(kinds):
        j = i
        while j > 0 and kinds[j - 1] > kinds[j]:
            kinds[j - 1], kinds[j] = kinds[j], kinds[j - 1]
            j -= 1
        i += 1
    for k in kinds:
        print("failures[%s] = %d" % (k, ledger.failures[k]))
    if "funds" in ledger.failures:
        del ledger.failures["funds"]
    print("non-funds failure kinds: %d" % len(ledger.failures))
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

# A bookkeeping machine: a bytecode of account operations (deposit,
# withdraw, transfer, report) run over many rounds. Its hot loop calls
# what the JIT does not trace into: string formatting, dict updates, and
# `withdraw`, marked dont_look_inside, which raises InsufficientFunds now
# and then; the interpreter loop catches that and counts a refusal. The
# code is a str, so the green key is constant.
# args: 400
import sys
from rpython.rlib.jit import JitDriver, dont_look_inside

driver = JitDriver(greens=["pc", "code"], reds=["rounds", "book"])


class InsufficientFunds(Exception):
    def __init__(self, account, missing):
        self.account = account
        self.missing = missing


class Book(object):
    def __init__(self):
        self.balances = {}
        self.history = []
        self.refused = 0
        self.refused_total = 0
        self.reports = 0

    def balance(self, name):
        return self.balances.get(name, 0)

    def deposit(self, name, amount):
        self.balances[name] = self.balance(name) + amount


@dont_look_inside
def withdraw(book, name, amount):
    have = book.balance(name)
    if have < amount:
        raise InsufficientFunds(name, amount - have)
    book.balances[name] = have - amount
    return have - amount


NAMES = ["ann", "bob", "cyd", "dee"]

# Each instruction is two characters: an operation and an operand digit.
#   d<k>  deposit 15 * (k + 1) into the account of round % 4
#   w<k>  withdraw 2 * (k + 1) from it, 1000 more in one round in ten (refused)
#   t<k>  transfer k + 1 from it to the next account
#   r0    append a line about the round to the history every 50 rounds
#   j0    end of the round: back to the start while rounds remain
CODE = "d1w3t2d0w5t1r0w9j0"


def run(code, rounds, book):
    pc = 0
    while True:
        driver.jit_merge_point(pc=pc, code=code, rounds=rounds, book=book)
        op = code[pc]
        k = ord(code[pc + 1]) - ord("0")
        pc += 2
        if op == "d":
            book.deposit(NAMES[rounds % 4], 15 * (k + 1))
        elif op == "w":
            # No branch decides the refusal: the trace cannot know it.
            amount = 2 * (k + 1) + (rounds * 7919) % 997 // 900 * 1000
            try:
                withdraw(book, NAMES[rounds % 4], amount)
            except InsufficientFunds as e:
                book.refused += 1
                book.refused_total += e.missing
        elif op == "t":
            try:
                withdraw(book, NAMES[rounds % 4], k + 1)
                book.deposit(NAMES[(rounds + 1) % 4], k + 1)
            except InsufficientFunds as e:
                book.refused += 1
        elif op == "r":
            if rounds % 50 == 0:
                line = "round %d: %s has %d" % (rounds, NAMES[rounds % 4],
                                                 book.balance(NAMES[rounds % 4]))
                book.history.append(line)
                book.reports += 1
        elif op == "j":
            rounds -= 1
            if rounds <= 0:
                return book
            pc = 0
            driver.can_enter_jit(pc=pc, code=code, rounds=rounds, book=book)


def entry_point(argv):
    rounds = 400
    if len(argv) > 1:
        rounds = int(argv[1])
    book = run(CODE, rounds, Book())
    for line in book.history:
        print(line)
    for name in NAMES:
        print("%s: %d" % (name, book.balance(name)))
    print("refused %d times, %d missing in all" % (book.refused, book.refused_total))
    print("%d reports" % book.reports)
    return 0


def target(*args):
    return entry_point


if __name__ == "__main__":
    entry_point(sys.argv)

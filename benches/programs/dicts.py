# Benchmark: dict-heavy bookkeeping. A ledger of N transfers (N from the
# command line) between accounts picked by a generator of pseudo-random
# numbers: balances and transfer counts in dicts keyed by account number,
# accounts closed (deleted) when their balance runs over a limit and
# reopened by the next transfer, and totals per branch in a dict keyed by
# the branch's name. Reports the open accounts, the closed ones, the sum
# of the balances, the busiest account and the branch totals' checksum.
import sys

ACCOUNTS = 20000
LIMIT = 400


def branch_name(account):
    return "branch-" + str(account % 97)


def run(n):
    balances = {}
    transfers = {}
    branches = {}
    closed = 0
    seed = 1
    for i in range(n):
        seed = (seed * 1103515245 + 12345) % 2147483648
        src = (seed >> 4) % ACCOUNTS
        seed = (seed * 1103515245 + 12345) % 2147483648
        dst = (seed >> 4) % ACCOUNTS
        amount = (seed >> 8) % 100 + 1
        balances[src] = balances.get(src, 0) - amount
        balances[dst] = balances.get(dst, 0) + amount
        transfers[src] = transfers.get(src, 0) + 1
        transfers[dst] = transfers.get(dst, 0) + 1
        name = branch_name(dst)
        if name in branches:
            branches[name] += amount
        else:
            branches[name] = amount
        if balances[dst] > LIMIT:
            del balances[dst]
            closed += 1
    return balances, transfers, branches, closed


def busiest(transfers):
    best = -1
    best_count = -1
    for account, count in transfers.items():
        if count > best_count or (count == best_count and account < best):
            best = account
            best_count = count
    return best, best_count


def entry_point(argv):
    n = int(argv[1])
    balances, transfers, branches, closed = run(n)
    total = 0
    negative = 0
    for account in balances:
        total += balances[account]
        if balances[account] < 0:
            negative += 1
    account, count = busiest(transfers)
    check = 0
    for i in range(97):
        check = (check * 31 + branches.get("branch-" + str(i), 0)) % 1000000007
    print("open %d closed %d negative %d balance %d" % (len(balances), closed, negative, total))
    print("busiest %d with %d transfers; %d branches, checksum %d" % (
        account, count, len(branches), check))
    return 0


def target(*args):
    return entry_point


if __name__ == '__main__':
    sys.exit(entry_point(sys.argv))

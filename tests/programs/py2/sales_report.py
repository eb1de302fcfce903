# A text-report generator: sales records parsed from CSV-like lines with
# str methods (split, strip, find, rfind, startswith, endswith, replace,
# isdigit, upper, lower), bad lines collected with their reasons, totals in
# dicts keyed by (region, product) tuples, tables sorted by hand and
# printed with %-formatting (%5d %-10s %8.2f %x %r %%), a checksum on
# r_uint words with intmask, ovfcheck'd running totals, and a line diff of
# two report versions by longest common subsequence over a 2-D list.
# Python 2 syntax.
# args: 12
from rpython.rlib.rarithmetic import r_uint, intmask, ovfcheck

REGIONS = ["north", "south", "east", "west"]
PRODUCTS = ["widget", "gadget", "doohickey", "gizmo", "thingamajig"]


class BadRecord(Exception):
    def __init__(self, lineno, reason):
        self.lineno = lineno
        self.reason = reason


class Sale(object):
    def __init__(self, region, product, qty, cents, note):
        self.region = region
        self.product = product
        self.qty = qty
        self.cents = cents
        self.note = note

    def total(self):
        return self.qty * self.cents


def make_lines(n):
    lines = ["# region, product, qty, price, note"]
    seed = 42
    for i in xrange(n * 5):
        seed = (seed * 1103515245 + 12345) & 0x7fffffff
        region = REGIONS[seed % len(REGIONS)]
        product = PRODUCTS[(seed >> 4) % len(PRODUCTS)]
        qty = (seed >> 9) % 40
        price = "%d.%02d" % ((seed >> 3) % 90 + 1, (seed >> 11) % 100)
        note = ""
        if i % 19 == 4:
            region = region[:2] + "x"
        if i % 23 == 6:
            price = price.replace(".", "")
        if i % 7 == 3:
            note = "  Rush Order "
        if i % 11 == 5:
            qty = -qty - 1
        line = "%s , %s,%d, %s ,%s" % (region.upper(), product, qty, price, note)
        if i % 13 == 8:
            comma = line.find(",")
            line = line[:comma] + ";" + line[comma + 1:]
        if i % 17 == 16:
            line = line + ",extra"
        lines.append(line)
    lines.append("")
    return lines


def parse_price(text, lineno):
    dot = text.find(".")
    if dot < 0 or text.rfind(".") != dot:
        raise BadRecord(lineno, "price %r is not dollars.cents" % text)
    dollars, cents = text[:dot], text[dot + 1:]
    if not (dollars.isdigit() and cents.isdigit() and len(cents) == 2):
        raise BadRecord(lineno, "price %r has a bad digit" % text)
    return int(dollars) * 100 + int(cents)


def parse(lines):
    sales = []
    bad = []
    for lineno, raw in enumerate(lines):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            fields = [f.strip() for f in line.split(",")]
            if len(fields) != 5:
                raise BadRecord(lineno, "%d fields, not 5" % len(fields))
            region = fields[0].lower()
            if region not in REGIONS:
                raise BadRecord(lineno, "unknown region %r" % fields[0])
            qty_text = fields[2]
            if qty_text.startswith("-"):
                raise BadRecord(lineno, "negative quantity %s" % qty_text)
            if not qty_text.isdigit():
                raise BadRecord(lineno, "quantity %r" % qty_text)
            cents = parse_price(fields[3], lineno)
            sales.append(Sale(region, fields[1], int(qty_text), cents, fields[4]))
        except BadRecord, e:
            bad.append((e.lineno, e.reason))
    return sales, bad


def money(cents):
    sign = ""
    if cents < 0:
        sign = "-"
        cents = -cents
    return "%s%d.%02d" % (sign, cents / 100, cents % 100)


def ranked(names, values):
    """The indexes of `values`, largest first, ties by name: a stable
    table (selection of the largest remaining, as RPython has no sort)."""
    left = range(len(values))
    out = []
    while left:
        best = 0
        for i in xrange(1, len(left)):
            k, b = left[i], left[best]
            if values[k] > values[b] or (values[k] == values[b] and names[k] < names[b]):
                best = i
        out.append(left.pop(best))
    return out


def checksum(lines):
    h = r_uint(2166136261)
    for line in lines:
        for c in line:
            h = (h ^ r_uint(ord(c))) * r_uint(16777619)
        h &= r_uint(0xffffffff)
    return h


def report(sales, title, top):
    out = []
    out.append("=" * 44)
    out.append("%-30s %13s" % (title.upper(), "page 1"))
    out.append("=" * 44)
    by_pair = {}
    by_region = {}
    grand = 0
    rush = 0
    for s in sales:
        key = (s.region, s.product)
        by_pair[key] = by_pair.get(key, 0) + s.total()
        by_region[s.region] = by_region.get(s.region, 0) + s.total()
        try:
            grand = ovfcheck(grand + s.total())
        except OverflowError:
            grand = -1
        if s.note.lower().endswith("order"):
            rush += 1
    out.append("%-10s %-12s %12s %6s" % ("region", "product", "total", "share"))
    pairs = by_pair.keys()
    names = ["%s/%s" % pair for pair in pairs]
    for index in ranked(names, [by_pair[pair] for pair in pairs])[:top]:
        key = pairs[index]
        region, product = key
        share = 100.0 * by_pair[key] / grand
        out.append("%-10s %-12s %12s %5.1f%%" % (region, product, money(by_pair[key]), share))
    out.append("-" * 44)
    regions = by_region.keys()
    for index in ranked(regions, by_region.values()):
        region = regions[index]
        out.append("%10s: %12s  (%d sales)" % (
            region, money(by_region[region]), len([s for s in sales if s.region == region])))
    mean = float(grand) / max(1, len(sales))
    out.append("grand total %s, mean %.3f, rush orders %d" % (money(grand), mean / 100, rush))
    return out


def lcs_diff(old, new):
    n, m = len(old), len(new)
    table = [[0] * (m + 1) for _ in xrange(n + 1)]
    for i in xrange(n - 1, -1, -1):
        for j in xrange(m - 1, -1, -1):
            if old[i] == new[j]:
                table[i][j] = table[i + 1][j + 1] + 1
            else:
                table[i][j] = max(table[i + 1][j], table[i][j + 1])
    diff = []
    i = j = 0
    while i < n and j < m:
        if old[i] == new[j]:
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            diff.append("- " + old[i])
            i += 1
        else:
            diff.append("+ " + new[j])
            j += 1
    diff.extend(["- " + line for line in old[i:]])
    diff.extend(["+ " + line for line in new[j:]])
    return diff, table[0][0]


def entry_point(argv):
    n = int(argv[1])
    lines = make_lines(n)
    sales, bad = parse(lines)
    print "%d lines, %d sales, %d rejected" % (len(lines), len(sales), len(bad))
    for lineno, reason in bad[:9]:
        print "  line %3d: %s" % (lineno, reason)
    first = report(sales, "Sales by product", 5)
    for line in first:
        print line
    later = report(sales[:len(sales) * 3 / 4], "Sales by product", 5)
    diff, common = lcs_diff(first, later)
    print "diff: %d lines in common, %d changed" % (common, len(diff))
    for line in diff:
        print line
    h = checksum(first)
    print "checksum %08x (%d as a signed word)" % (h, intmask(h << 32))
    return 0


def target(*args):
    return entry_point, None


if __name__ == "__main__":
    import sys
    sys.exit(entry_point(sys.argv))

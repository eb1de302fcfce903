# A ledger read from CSV text: quoted fields split by hand, amounts parsed
# to cents with the program's own ParseError caught per line, balances per
# account and totals per month kept in dicts with the order of first
# appearance, and memo words counted.
# args: 2
import os

SAMPLE = """# date,account,amount,memo
2026-01-03,checking,1200.50,salary january
2026-01-04,checking,-45.20,groceries
2026-01-04,savings,300,transfer in
2026-01-05,checking,-300,transfer out
2026-01-09,credit,-89.99,"books, used"
2026-01-11,checking,-12.5,coffee
bad line without enough fields
2026-01-12,checking,abc,typo in amount
2026-01-15,savings,2.75,interest
2026-01-20,credit,89.99,refund: books
"""


class ParseError(Exception):
    def __init__(self, lineno, message):
        self.lineno = lineno
        self.message = message


class Entry(object):
    def __init__(self, date, account, cents, memo):
        self.date = date
        self.account = account
        self.cents = cents
        self.memo = memo


def split_fields(line):
    fields = []
    current = []
    quoted = False
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == '"':
            quoted = not quoted
        elif ch == ',' and not quoted:
            fields.append(''.join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    fields.append(''.join(current))
    return fields


def parse_cents(text, lineno):
    text = text.strip()
    negative = text.startswith('-')
    if negative:
        text = text[1:]
    dot = text.find('.')
    if dot < 0:
        whole, frac = text, ''
    else:
        whole, frac = text[:dot], text[dot + 1:]
    if not whole.isdigit() or (frac and not frac.isdigit()) or len(frac) > 2:
        raise ParseError(lineno, "bad amount '%s'" % text)
    while len(frac) < 2:
        frac += '0'
    cents = int(whole) * 100 + int(frac)
    if negative:
        cents = -cents
    return cents


def parse(text):
    entries = []
    errors = []
    lineno = 0
    for line in text.split('\n'):
        lineno += 1
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        fields = split_fields(line)
        try:
            if len(fields) != 4:
                raise ParseError(lineno, "expected 4 fields, got %d" % len(fields))
            cents = parse_cents(fields[2], lineno)
            entries.append(Entry(fields[0], fields[1], cents, fields[3]))
        except ParseError as e:
            errors.append("line %d: %s" % (e.lineno, e.message))
    return entries, errors


def money(cents):
    sign = ''
    if cents < 0:
        sign = '-'
        cents = -cents
    frac = str(cents % 100)
    if len(frac) < 2:
        frac = '0' + frac
    return '%s%d.%s' % (sign, cents // 100, frac)


def pad(text, width):
    if len(text) >= width:
        return text[:width]
    return text + ' ' * (width - len(text))


def report(entries):
    balances = {}
    by_month = {}
    order = []
    months = []
    for e in entries:
        if e.account not in balances:
            balances[e.account] = 0
            order.append(e.account)
        balances[e.account] += e.cents
        month = e.date[:7]
        counts = by_month.get(month, None)
        if counts is None:
            counts = [0, 0]
            by_month[month] = counts
            months.append(month)
        if e.cents >= 0:
            counts[0] += e.cents
        else:
            counts[1] -= e.cents
    lines = []
    for name in order:
        lines.append(pad(name, 10) + money(balances[name]))
    for month in months:
        counts = by_month[month]
        lines.append('%s in %s out %s' % (month, money(counts[0]), money(counts[1])))
    words = {}
    for e in entries:
        for w in e.memo.replace(':', ' ').split(' '):
            if w:
                words[w] = words.get(w, 0) + 1
    common = []
    for w, n in words.items():
        if n > 1:
            common.append(w)
    lines.append('repeated memo words: %d' % len(common))
    return lines


def main(argv):
    copies = 1
    if len(argv) > 1:
        copies = int(argv[1])
    text = SAMPLE * copies
    entries, errors = parse(text)
    print 'entries: %d, errors: %d' % (len(entries), len(errors))
    for err in errors[:3]:
        print err
    for line in report(entries):
        print line
    last = entries[-1]
    print 'last memo upper: %s' % last.memo.upper()
    print 'memo has books: %s' % ('books' in last.memo)
    print 'count of o: %d' % last.memo.count('o')
    return 0


def entry_point(argv):
    return main(argv)


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    import sys
    main(sys.argv)

# A hex dump and checksum tool over generated records: each record is
# packed into bytes, dumped as offset, hex bytes and printable characters
# (as `hexdump -C` does), and checked with CRC-32 (an r_uint table) and
# Adler-32. It exercises the integer conversions of '%': %x %X %o with
# flags, width and precision, of ints and r_uints, %c of chars and ints,
# %-10s and %5d columns, and hex() and oct().
# args: 7
import sys
from rpython.rlib.rarithmetic import r_uint, intmask


# Formatted at import time, by the same rule.
MODE_TEXT = "mode %#o" % 420

def make_crc_table():
    table = []
    for n in range(256):
        c = r_uint(n)
        for k in range(8):
            if c & r_uint(1):
                c = r_uint(0xEDB88320) ^ (c >> 1)
            else:
                c = c >> 1
        table.append(c)
    return table


CRC_TABLE = make_crc_table()


def crc32(data):
    crc = r_uint(0xFFFFFFFF)
    for ch in data:
        crc = CRC_TABLE[intmask((crc ^ r_uint(ord(ch))) & r_uint(0xFF))] ^ (crc >> 8)
    return crc ^ r_uint(0xFFFFFFFF)


def adler32(data):
    a = 1
    b = 0
    for ch in data:
        a = (a + ord(ch)) % 65521
        b = (b + a) % 65521
    return (b << 16) | a


class Record(object):
    def __init__(self, ident, name, balance, flags):
        self.ident = ident
        self.name = name
        self.balance = balance
        self.flags = flags

    def pack(self):
        parts = []
        for shift in [24, 16, 8, 0]:
            parts.append(chr((self.ident >> shift) & 0xFF))
        parts.append(chr(len(self.name)))
        parts.append(self.name)
        value = self.balance
        for k in range(4):
            parts.append(chr(value & 0xFF))
            value = value >> 8
        parts.append(chr(self.flags))
        return "".join(parts)


def printable(ch):
    return 32 <= ord(ch) < 127


def dump(data, out):
    offset = 0
    while offset < len(data):
        row = data[offset:offset + 16]
        cells = []
        for i in range(16):
            if i < len(row):
                cells.append("%02x" % ord(row[i]))
            else:
                cells.append("  ")
        text = []
        for ch in row:
            if printable(ch):
                text.append("%c" % ch)
            else:
                text.append("%c" % 46)
        out.append("%08x  %s  |%s|" % (offset, " ".join(cells), "".join(text)))
        offset += 16


def generate(count):
    names = ["ada", "brian", "carmen", "dmitri", "eve", "fatima", "gus"]
    records = []
    seed = 12345
    for i in range(count):
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        name = names[seed % len(names)]
        balance = (seed >> 8) % 100000 - 20000
        records.append(Record(1000 + i * 37, name, balance & 0xFFFFFFFF, seed % 256))
    return records


def entry_point(argv):
    count = 5
    if len(argv) > 1:
        count = int(argv[1])
    records = generate(count)
    total = 0
    out = []
    print "%-10s %5s %10s %8s %6s %s" % ("name", "id", "crc32", "adler", "flags", "hex")
    for r in records:
        data = r.pack()
        c = crc32(data)
        a = adler32(data)
        total += len(data)
        print "%-10s %5d %10x %08X %6o %s" % (r.name, r.ident, c, a, r.flags, hex(r.ident))
        dump(data, out)
    for line in out:
        print line
    whole = "".join([r.pack() for r in records])
    c = crc32(whole)
    print "total %d bytes, crc32 %08x (%d), adler %x" % (total, c, c, adler32(whole))
    print "octal size %s, negative %s %s" % (oct(total), hex(-total), oct(-total))
    print "%.6x|%+d|% d|%-6x|%c%c%c" % (total, total, total, total, "o", 107, "!")
    # Python 2's alternate octal form: a leading 0, none for zero.
    print "%#o|%#6o|%#o|%-#5o|%#.4o|%s" % (total, total, 0, 8, 8, MODE_TEXT)
    return 0


def target(*args):
    return entry_point


if __name__ == "__main__":
    entry_point(sys.argv)

# A sha1sum/md5sum-like tool over generated "files", using rlib's rsha and
# rmd5 as the original's targetsha1sum does: each file is fed in chunks of
# a size given on the command line (the digest must not depend on it), a
# running digest is taken mid-way with copy(), and a manifest of the files
# is hashed again to give one checksum of the whole set. Duplicate files
# are found by their SHA-1.
# Python 2 twin: print statements, xrange, `except E, e`.
# args: 700 3
from rpython.rlib.rsha import RSHA
from rpython.rlib.rmd5 import RMD5
from rpython.rlib.rstring import StringBuilder


def make_file(index, size):
    """Deterministic contents: a header line, then bytes from an LCG."""
    b = StringBuilder()
    b.append("file %d of size %d\n" % (index, size))
    state = index * 7919 + 17
    for i in xrange(size):
        state = (state * 1103515245 + 12345) & 0x7fffffff
        b.append(chr(32 + (state >> 16) % 95))
        if i % 64 == 63:
            b.append("\n")
    return b.build()


def sha1_in_chunks(data, chunk):
    h = RSHA()
    pos = 0
    while pos < len(data):
        end = pos + chunk
        if end > len(data):
            end = len(data)
        h.update(data[pos:end])
        pos = end
    return h


def md5_in_chunks(data, chunk):
    h = RMD5()
    pos = 0
    while pos < len(data):
        end = pos + chunk
        if end > len(data):
            end = len(data)
        h.update(data[pos:end])
        pos = end
    return h


def hex_bytes(s):
    digits = "0123456789abcdef"
    out = []
    for c in s:
        out.append(digits[ord(c) >> 4] + digits[ord(c) & 15])
    return "".join(out)


def entry_point(argv):
    size = int(argv[1])
    chunk = int(argv[2])
    names = []
    contents = []
    for i in range(8):
        names.append("data%02d.txt" % i)
        # Files 5 and 2 have the same contents.
        if i == 5:
            contents.append(contents[2])
        else:
            contents.append(make_file(i, size + 37 * i))
    manifest = StringBuilder()
    by_digest = {}
    for i in range(len(names)):
        data = contents[i]
        sha = sha1_in_chunks(data, chunk)
        whole = RSHA(data)
        if sha.hexdigest() != whole.hexdigest():
            print "chunked and whole SHA-1 differ for " + names[i]
        md5 = md5_in_chunks(data, chunk + 1)
        line = "%s  %s  %s" % (sha.hexdigest(), md5.hexdigest(), names[i])
        print line
        manifest.append(line)
        manifest.append("\n")
        digest = sha.hexdigest()
        if digest in by_digest:
            print "  duplicate of " + by_digest[digest]
        else:
            by_digest[digest] = names[i]
    # A running digest: copy() mid-way, then both go on differently.
    running = RSHA("prefix:")
    snapshot = running.copy()
    running.update("left")
    snapshot.update("right")
    print "running " + running.hexdigest()
    print "snapshot " + snapshot.hexdigest()
    print "raw digest " + hex_bytes(RMD5("abc").digest())
    try:
        print by_digest[RSHA("not a file").hexdigest()]
    except KeyError, e:
        print "no file has the digest of 'not a file'"
    for n in [0, 1, 55, 56, 63, 64, 65, 119, 120]:
        s = "x" * n
        print "%3d %s %s" % (n, RSHA(s).hexdigest(), RMD5(s).hexdigest())
    total = manifest.build()
    print "manifest %d bytes, sha1 %s" % (len(total), RSHA(total).hexdigest())
    return 0


def target(*args):
    return entry_point, None


if __name__ == '__main__':
    import sys
    entry_point(sys.argv)

//! rlib's identity numbers of instances: `current_object_addr_as_int(x)`
//! (missing from pylib's objectmodel; the original's rpystone targets
//! call it) and `compute_unique_id(x)` (the annotator typed it, but the
//! rtyper had no lowering): one number per object, the same each time it
//! is asked, different for two live objects.

const PROGRAM: &str = "from rpython.rlib.objectmodel import current_object_addr_as_int
from rpython.rlib.objectmodel import compute_unique_id


class Glob(object):
    def __init__(self, n):
        self.n = n


g = Glob(0)


def entry_point(argv):
    objects = [g, Glob(1), Glob(len(argv))]
    addrs = [current_object_addr_as_int(o) for o in objects]
    ids = [compute_unique_id(o) for o in objects]
    for i in range(len(objects)):
        o = objects[i]
        print('%d %s %s' % (o.n, addrs[i] == current_object_addr_as_int(o), ids[i] == compute_unique_id(o)))
        for j in range(i):
            print('%s %s' % (addrs[i] != addrs[j], ids[i] != ids[j]))
    return 0
";

#[test]
fn object_identity_agrees_with_cpython() {
    crate::support::source_matches_cpython("object_identity", PROGRAM);
}

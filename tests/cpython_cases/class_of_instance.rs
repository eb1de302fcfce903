//! `x.__class__` of an instance is its class, as `type(x)` is: compared
//! by identity, promoted, and used to read a class attribute (it failed
//! with "StrBox instances have no attribute '__class__'", in the
//! original's jit/tl/tiny2_hotpath.py: `promote(y.__class__)`).

const PROGRAM: &str = "from rpython.rlib.jit import promote


class Box(object):
    kind = 'box'

    def show(self):
        return '?'


class IntBox(Box):
    kind = 'int'

    def __init__(self, n):
        self.n = n

    def show(self):
        return str(self.n)


class StrBox(Box):
    kind = 'str'

    def __init__(self, s):
        self.s = s

    def show(self):
        return self.s


def describe(b):
    cls = promote(b.__class__)
    return '%s %s %s %s' % (cls is IntBox, cls is type(b), b.__class__.kind, b.show())


def entry_point(argv):
    boxes = [IntBox(len(argv)), StrBox('x'), IntBox(7)]
    for b in boxes:
        print(describe(b))
    same = 0
    for a in boxes:
        for b in boxes:
            if a.__class__ is b.__class__:
                same += 1
    print(same)
    return 0
";

#[test]
fn class_of_instance_agrees_with_cpython() {
    crate::support::source_matches_cpython("class_of_instance", PROGRAM);
}

//! Calling a variable that holds one of several classes (a factory table
//! of classes, prebuilt constants): the class is tested and the instance
//! of the one it is built, with that class's `__init__` (it failed with
//! "the rtyper cannot call the class Quad or the class Tri yet").

const PROGRAM: &str = "class Shape(object):
    sides = 0

    def __init__(self, name):
        self.name = name

    def describe(self):
        return '%s with %d sides' % (self.name, self.sides)


class Tri(Shape):
    sides = 3


class Quad(Shape):
    sides = 4

    def __init__(self, name):
        Shape.__init__(self, name + '!')


class Penta(Quad):
    sides = 5


class Bad(Exception):
    pass


class Checked(Shape):
    def __init__(self, name):
        if len(name) > 3:
            raise Bad()
        Shape.__init__(self, name)


KINDS = [Tri, Quad, Penta]
CHECKED = [Tri, Checked]


def make(i):
    cls = KINDS[i % 3]
    return cls('s%d' % i)


def make_checked(i, name):
    cls = CHECKED[i % 2]
    try:
        return cls(name)
    except Bad:
        return None


def entry_point(argv):
    for i in range(len(argv) + 4):
        s = make(i)
        print(s.describe(), isinstance(s, Quad))
    for name in ['ab', 'abcd']:
        for i in range(2):
            s = make_checked(i, name)
            print(name, i, 'none' if s is None else s.describe())
    return 0

";

#[test]
fn calls_of_one_of_several_classes_agree_with_cpython() {
    crate::support::source_matches_cpython("class_set_calls", PROGRAM);
}

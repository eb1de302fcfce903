//! `list(t)` of a tuple: a new list of the tuple's items, each converted
//! to the list's item type (the original's `rtype_bltn_list` of a
//! tuple), as a builtin dispatcher does with its `*args`.

const PROGRAM: &str = "class Shape(object):
    def area(self):
        return 0


class Square(Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side


class Rect(Shape):
    def __init__(self, w, h):
        self.w = w
        self.h = h

    def area(self):
        return self.w * self.h


def total(*shapes):
    items = list(shapes)
    items.append(Square(1))
    return sum_areas(items)


def sum_areas(items):
    n = 0
    for s in items:
        n += s.area()
    return n


def entry_point(argv):
    k = len(argv)
    pair = (k, 2 * k)
    ints = list(pair)
    ints.append(7)
    print(len(ints), ints[0], ints[1], ints[-1])
    one = list((k + 10,))
    print(one[0], len(one))
    print(total(Square(3)), total(Square(2), Rect(2, 5)))
    print(total(Rect(1, 2), Square(k), Rect(k, 3)))
    return 0

";

#[test]
fn list_of_a_tuple_agrees_with_cpython() {
    crate::support::source_matches_cpython("tuple_to_list", PROGRAM);
}

//! The class-heavy program the benches generate: `class_program` for the
//! annotator (`benches/annotate.rs`), `translatable_class_program` for the
//! whole translation (`benches/pipeline.rs`).

use std::fmt::Write;

/// The classes and functions of one group of the class-heavy program,
/// `{k}` its number and `{prev}` the group before it (itself for the
/// first). Ten classes in about 230 lines: `Base{k}` (under the shared
/// `Root`) with subclasses two and three levels below it overriding its
/// methods, `__init__`s storing ints, strings, lists, a `Tag{k}` instance
/// and None-then-an-instance attributes; an exception class and a subclass
/// of it raised by overridden methods and caught by both; functions that
/// build instances of every class, walk a list of them through a `Base{k}`
/// variable (polymorphic calls, attribute reads through the base,
/// isinstance tests), pass them as `Base{k}` parameters, and use the
/// classes of the group before.
const CLASS_GROUP: &str = r#"class Tag{k}(object):
    def __init__(self, v):
        self.v = v
        self.label = "t{k}"

    def weight(self):
        return self.v * 2 + len(self.label)


class Err{k}(Exception):
    def __init__(self, code):
        self.code = code


class BadErr{k}(Err{k}):
    pass


class Base{k}(Root):
    kind = "base{k}"

    def __init__(self, n, name):
        self.n = n
        self.name = name
        self.values = [n, n + 1]
        self.tag = Tag{k}(n)
        self.link = None
        self.count = 0

    def area(self):
        return self.n * 2

    def describe(self):
        return self.name + ":" + str(self.area())

    def check(self, limit):
        if self.n > limit:
            raise Err{k}(self.n)
        return self.n

    def bump(self, d):
        self.count = self.count + d
        self.values.append(d)
        return self.count

    def linked(self):
        if self.link is None:
            return 0
        return self.link.n


class A{k}(Base{k}):
    kind = "a{k}"

    def __init__(self, n, name, scale):
        Base{k}.__init__(self, n, name)
        self.scale = scale

    def area(self):
        return self.n * self.scale + self.tag.weight()

    def check(self, limit):
        if self.n * self.scale > limit:
            raise BadErr{k}(self.n)
        return self.scale


class B{k}(Base{k}):
    kind = "b{k}"

    def area(self):
        return len(self.values) + self.n

    def describe(self):
        return "B" + self.name + self.kind


class AA{k}(A{k}):
    def __init__(self, n, name, scale, other):
        A{k}.__init__(self, n, name, scale)
        self.other = other

    def area(self):
        return self.other.area() + self.scale


class AB{k}(A{k}):
    def area(self):
        return A{k}.area(self) + 1

    def bump(self, d):
        self.count = self.count + 2 * d
        return self.count


class BA{k}(B{k}):
    def bump(self, d):
        self.values.append(-d)
        return len(self.values)

    def check(self, limit):
        if limit < 0:
            raise BadErr{k}(limit)
        return 0


class AAA{k}(AA{k}):
    def describe(self):
        return "deep " + Base{k}.describe(self)

    def area(self):
        return AA{k}.area(self) * 2 + self.tag.v


def build{k}(n):
    shapes = [Base{k}(n, "b"), A{k}(n, "a", 2), B{k}(n, "c")]
    shapes.append(AA{k}(n, "aa", 3, B{k}(n + 1, "x")))
    shapes.append(AB{k}(n, "ab", 4))
    shapes.append(BA{k}(n, "ba"))
    shapes.append(AAA{k}(n, "aaa", 5, BA{k}(n, "y")))
    shapes[1].link = shapes[0]
    return shapes


def walk{k}(n):
    total = 0
    shapes = build{k}(n)
    for s in shapes:
        total = total + s.area() + s.bump(1) + s.tag.v + s.linked()
        if isinstance(s, A{k}):
            total = total + s.scale
        elif isinstance(s, B{k}):
            total = total - len(s.kind)
        try:
            total = total + s.check(n + {k} % 3)
        except BadErr{k} as e:
            total = total + e.code + 1
        except Err{k} as e:
            total = total - e.code
    return total + len(shapes[0].describe()) + len(shapes[6].describe())


def score{k}(shape, other, n):
    total = shape.area() - other.area()
    total = total + shape.tag.weight() + other.bump(n)
    if shape.link is not None:
        total = total + shape.link.count
    if isinstance(other, AA{k}):
        total = total + other.other.n
    for v in shape.values:
        total = total + v
    name = shape.describe()
    if len(name) > 3:
        total = total + len(name)
    return total


def pair{k}(n):
    a = A{k}(n, "pa", 2)
    b = BA{k}(n, "pb")
    c = AA{k}(n, "pc", 1, A{k}(n, "po", 1))
    total = score{k}(a, b, n) + score{k}(b, c, n) + score{k}(c, a, n)
    chosen = a
    if n > 2:
        chosen = b
    chosen.link = c
    total = total + chosen.linked() + chosen.area()
    try:
        total = total + chosen.check(n - 3)
    except Err{k} as e:
        total = total + e.code
    return total


def mix{k}(n, roots):
    tags = [Tag{k}(n), Tag{k}(n + 1), Tag{k}(n + 2)]
    total = Tag{prev}(n).weight()
    for t in tags:
        total = total + t.weight() + t.v
    first = Base{prev}(n, "m")
    second = AB{prev}(n, "n", 3)
    first.link = second
    roots.append(first)
    roots.append(second)
    total = total + first.linked() + second.area() + walk{prev}(n % 3)
    return total + len(tags) + pair{k}(n) + walk{k}(n) + report{k}(build{k}(n + 1), n)


def report{k}(shapes, n):
    lines = []
    longest = 0
    for s in shapes:
        line = s.describe()
        if len(line) > longest:
            longest = len(line)
        lines.append(line)
    total = 0
    i = 0
    while i < len(shapes):
        s = shapes[i]
        if isinstance(s, AAA{k}):
            total = total + s.other.area() + 3
        elif isinstance(s, AA{k}):
            total = total + s.other.n
        elif isinstance(s, AB{k}):
            total = total + s.count
        elif isinstance(s, BA{k}):
            total = total + len(s.values)
        else:
            total = total + s.n
        try:
            total = total + s.check(n * 2)
        except BadErr{k} as e:
            total = total + e.code * 2
        except Err{k} as e:
            total = total + e.code * 3
        i = i + 1
    summary = ""
    for line in lines:
        if len(line) == longest:
            summary = summary + line
        else:
            summary = summary + line[0]
    tag = shapes[0].tag
    if tag.v > n:
        summary = summary + tag.label
    return total + len(summary) + longest


"#;

/// The start of the class-heavy program: the root of every group's
/// hierarchy, and a function calling methods on a list holding instances
/// of every group (one call site with hundreds of implementations).
const CLASS_PROGRAM_HEAD: &str = r#"import sys


class Root(object):
    def area(self):
        return 0

    def describe(self):
        return "root"


def survey(roots, n):
    total = 0
    for r in roots:
        total = total + r.area() + r.n + len(r.describe())
        r.count = r.count + 1
        if isinstance(r, Base0):
            total = total + 1
    return total


"#;

/// A class-heavy program of about `lines` lines: about 40 classes per
/// 1,000 lines, in groups of `CLASS_GROUP`.
#[allow(dead_code)] // each bench uses one of the two programs
pub fn class_program(lines: usize) -> String {
    generate(CLASS_GROUP, lines)
}

/// The program of about `lines` lines made of groups of `group`.
fn generate(group: &str, lines: usize) -> String {
    let per_group = group.lines().count();
    let n = (lines.saturating_sub(40) / per_group).max(2);
    let mut out = String::from(CLASS_PROGRAM_HEAD);
    for k in 0..n {
        let prev = k.saturating_sub(1).to_string();
        out.push_str(
            &group
                .replace("{prev}", &prev)
                .replace("{k}", &k.to_string()),
        );
    }
    out.push_str("def entry_point(argv):\n    n = len(argv)\n    total = 0\n    roots = []\n");
    for k in 0..n {
        let _ = writeln!(out, "    total = total + mix{k}(n, roots)");
    }
    out.push_str(
        "    print(total + survey(roots, n))
    return 0


def target(*args):
    return entry_point, None
",
    );
    out
}

/// One more function per group for the translated program: dicts keyed by
/// strings (a method's result) and by ints (holding instances), filled,
/// tested with `in` and iterated.
const INDEX_FUNCTION: &str = r#"def index{k}(shapes):
    counts = {}
    for s in shapes:
        key = s.describe()
        if key in counts:
            counts[key] = counts[key] + s.n
        else:
            counts[key] = s.n
    byarea = {}
    for s in shapes:
        byarea[s.area()] = s
    total = 0
    for key in counts:
        total = total + counts[key] + len(key)
    for a in byarea:
        total = total + a + byarea[a].n
    return total + len(counts) + len(byarea)


"#;

/// `text` with `from` replaced by `to`, which must occur in it.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "the class group has no {from:?}");
    text.replace(from, to)
}

/// The class-heavy program of about `lines` lines that translates to C
/// (`class_program` is written for the annotator): each group also fills
/// and iterates dicts (`INDEX_FUNCTION`, called from `mix{k}`), and reads
/// the class attribute `kind` only through the group's base class, since
/// the rtyper cannot yet read a class attribute that subclasses override
/// through a variable of a subclass (`s.kind` after `isinstance(s, B{k})`,
/// `self.kind` in `B{k}`: "a value with no representation cannot become
/// Ptr(rpy_string)"). It runs under CPython too (`if __name__ ==
/// "__main__"`), which gives the output the executable must print.
#[allow(dead_code)]
pub fn translatable_class_program(lines: usize) -> String {
    let group = edit(CLASS_GROUP, "total - len(s.kind)", "total - len(s.name)");
    let group = edit(
        &group,
        "return \"B\" + self.name + self.kind",
        "return \"B\" + self.name + str(self.n)",
    );
    let group = edit(
        &group,
        "report{k}(build{k}(n + 1), n)\n",
        "report{k}(build{k}(n + 1), n) + index{k}(build{k}(n + 2))\n",
    ) + INDEX_FUNCTION;
    let mut out = generate(&group, lines);
    out.push_str("\n\nif __name__ == \"__main__\":\n    entry_point(sys.argv)\n");
    out
}

//! A class attribute read through a variable that holds one of several
//! classes (`x = A` or `x = B`, then `x.size`): the slot of their common
//! class's vtable (it failed with "the class A or the class B has no
//! attribute"). The original's translator/goal/targetwarningalone.py reads
//! one that a class lacks: the original translates it and the read gives
//! that class's empty slot, 0, where CPython raises AttributeError.

const PROGRAM: &str = "class Shape(object):
    pass


class Tri(Shape):
    sides = 3
    name = 'tri'


class Quad(Shape):
    sides = 4
    name = 'quad'


class Square(Quad):
    name = 'square'


class Circle(Shape):
    name = 'circle'
    sides = 0


def pick(n):
    if n % 4 == 0:
        return Tri
    elif n % 4 == 1:
        return Quad
    elif n % 4 == 2:
        return Square
    return Circle


def entry_point(argv):
    total = 0
    for i in range(len(argv) + 6):
        cls = pick(i)
        total += cls.sides
        print('%s %d' % (cls.name, cls.sides))
    print(total)
    return 0
";

#[test]
fn classes_attribute_agrees_with_cpython() {
    crate::support::source_matches_cpython("classes_attribute", PROGRAM);
}

/// targetwarningalone.py's read, of an attribute one of the classes
/// lacks, gives the original's result: 0 for that class.
#[test]
fn an_attribute_one_class_lacks_reads_as_zero_as_in_the_original() {
    let text = "class Base(object):
    pass


class A(Base):
    a = 1


class B(Base):
    a = 2


class C(Base):
    b = 8


def f(n):
    if n > 3:
        x = A
    elif n > 1:
        x = B
    else:
        x = C
    return x.a


def entry_point(argv):
    for n in range(6):
        print f(n + len(argv) - 1)
    return 0


def target(*args):
    return entry_point, None
";
    let dir = crate::support::ScratchDir::new("classes_attribute_missing");
    let path = dir.join("missing.py");
    std::fs::write(&path, text).unwrap();
    let src = rpy::pipeline::Source {
        path: path.display().to_string(),
        text: text.to_string(),
        dialect: rpy_ir::ast::Dialect::Py2,
        gc: rpy_ir::llops::GcKind::default(),
        jit: false,
    };
    let program = rpy::pipeline::lowlevel(&src).unwrap_or_else(|d| panic!("{d}"));
    let mut out = Vec::new();
    let status = rpy_llinterp::LlInterpreter::new(&program)
        .run_entry(std::slice::from_ref(&src.path), &mut out)
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(status, 0);
    let want = "0\n0\n2\n2\n1\n1\n";
    assert_eq!(String::from_utf8(out).unwrap(), want);
    let exe = crate::support::build(&src, "classes_attribute_missing");
    let (got, status) = crate::support::run(&mut std::process::Command::new(&*exe));
    assert_eq!((got.as_str(), status), (want, 0));
}

//! Prebuilt lists, dicts and tuples that are class attributes, read
//! through an instance (`self.TABLE`), also where a subclass overrides
//! the table: no graph names them as constants, so their annotation must
//! come from the class.

const PROGRAM: &str = "class Parser(object):
    BINDING = {'+': 20, '*': 30}
    NAMES = ['zero', 'one', 'two']
    PAIR = ('pair', 7)

    def power(self, op):
        return self.BINDING.get(op, 0)

    def name(self, i):
        return self.NAMES[i] + self.PAIR[0]


class StrictParser(Parser):
    BINDING = {'+': 1, '-': 2}


def entry_point(argv):
    parsers = [Parser(), StrictParser()]
    for p in parsers:
        for op in ['+', '*', '-', argv[0][:1]]:
            print(p.power(op))
        print(p.name(len(argv)) + str(p.PAIR[1]))
        print(len(p.NAMES))
    return 0

";

#[test]
fn class_attr_containers_agree_with_cpython() {
    crate::support::source_matches_cpython("class_attr_containers", PROGRAM);
}

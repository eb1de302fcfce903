//! `min(l)` and `max(l)` of a list of strings order the items as strings
//! (the list helper compared the string pointers, and failed to
//! annotate: "'>' cannot be applied to a low-level pointer
//! Ptr(rpy_string)"), and of ints and floats as before.

const PROGRAM: &str = "def entry_point(argv):
    words = ['pear', 'apple', 'fig', 'banana', 'apples', 'Zoo']
    words.append(argv[0][:0] + 'kiwi')
    print(max(words), min(words))
    print(max(['b', 'ab', 'abc']), min(['b', 'ab', 'abc', '']))
    nums = [3, -1, 7, len(argv)]
    print(max(nums), min(nums))
    print(max([2.5, -1.0, 0.5]), min([2.5, -1.0, 0.5]))
    return 0

";

#[test]
fn min_and_max_of_lists_agree_with_cpython() {
    crate::support::source_matches_cpython("min_max_of_strings", PROGRAM);
}

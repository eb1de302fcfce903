"""NonConstant(value): a value the translator must not treat as a constant.

The original's annotator gives NonConstant(x) the annotation of x without
its constant value, so that code under `if NonConstant(False):` is
annotated too (a target uses it to give a function arguments of every
type it may get). Here it is an ordinary function returning its argument:
the program computes the same, and the branch it guards is what the
annotator makes of a constant test.
"""


def NonConstant(value):
    return value

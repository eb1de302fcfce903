"""Instances as the rtyper lays them out (a `typeptr` to the class's
vtable first, whose `subclassrange_min` is the class's id): what needs a
test before an instance's class can be read."""


def ll_class_id(obj):
    """The id of `obj`'s class, -1 for None: isinstance() of a value that
    may be None is a test of this id against the classes' id ranges,
    which never hold -1."""
    if not obj:
        return -1
    return obj.typeptr.subclassrange_min

# The register machine's opcodes, numbered when the module is imported:
# each definition assigns a module global through globals(), as the
# original's interpreters do.

NAMES = []
TAKES_ARGUMENTS = []


def define(name, arguments):
    globals()[name] = len(NAMES)
    NAMES.append(name)
    TAKES_ARGUMENTS.append(arguments)


for _name, _arguments in [("LOAD", 2), ("MOVE", 2), ("ADD", 2), ("SUB", 2),
                          ("MUL", 2), ("JUMP_IF_ZERO", 2), ("JUMP", 1),
                          ("PRINT", 1), ("HALT", 0)]:
    define(_name, _arguments)

# Read back through globals() too, and through the names it bound.
LAST = globals()["HALT"]
assert LAST == len(NAMES) - 1
BRANCHES = [JUMP_IF_ZERO, JUMP]

from .opcodes import BY_NAME


def assemble(text):
    """The bytecode of an assembly text: opcode names and numbers."""
    code = []
    for word in text.split():
        if word in BY_NAME:
            code.append(BY_NAME[word])
        else:
            code.append(int(word))
    return code

"""The stack machine: opcodes, an assembler and the interpreter loop."""

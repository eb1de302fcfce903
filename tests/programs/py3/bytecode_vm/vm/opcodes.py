# The opcode numbers, assigned by a loop when the module is imported.
NAMES = ["PUSH", "POP", "DUP", "SWAP", "ROT", "ADD", "SUB", "MUL",
         "JUMP", "JUMP_IF_ZERO", "PRINT", "HALT"]

BY_NAME = {}
for number in range(len(NAMES)):
    BY_NAME[NAMES[number]] = number

# Opcodes followed by an argument word.
WITH_ARGUMENT = [BY_NAME["PUSH"], BY_NAME["JUMP"], BY_NAME["JUMP_IF_ZERO"]]

PUSH = BY_NAME["PUSH"]
POP = BY_NAME["POP"]
DUP = BY_NAME["DUP"]
SWAP = BY_NAME["SWAP"]
ROT = BY_NAME["ROT"]
ADD = BY_NAME["ADD"]
SUB = BY_NAME["SUB"]
MUL = BY_NAME["MUL"]
JUMP = BY_NAME["JUMP"]
JUMP_IF_ZERO = BY_NAME["JUMP_IF_ZERO"]
PRINT = BY_NAME["PRINT"]
HALT = BY_NAME["HALT"]

# An interpreter of a program held in a str: Brainfuck, as in the
# classic RPython JIT tutorial. The program text and its bracket table are
# the JitDriver's greens with the pc; the tape is red. Output is collected
# and printed per line.
# args: 6
import sys
from rpython.rlib.jit import JitDriver


def printable_location(pc, program, brackets):
    return program[:pc] + "_" + program[pc:]


driver = JitDriver(greens=["pc", "program", "brackets"], reds=["tape", "out"],
                   get_printable_location=printable_location)


class Tape(object):
    def __init__(self):
        self.cells = [0]
        self.position = 0

    def get(self):
        return self.cells[self.position]

    def set(self, value):
        self.cells[self.position] = value & 255

    def add(self, delta):
        self.set(self.get() + delta)

    def advance(self):
        self.position += 1
        if len(self.cells) <= self.position:
            self.cells.append(0)

    def devance(self):
        self.position -= 1


class Output(object):
    def __init__(self):
        self.chars = []
        self.lines = 0

    def put(self, code):
        if code == 10:
            print("".join(self.chars))
            self.chars = []
            self.lines += 1
        else:
            self.chars.append(chr(code))

    def flush(self):
        if len(self.chars) > 0:
            print("".join(self.chars))


class BracketError(Exception):
    def __init__(self, position):
        self.position = position


def match_brackets(program):
    """The position of the matching bracket of each bracket, -1 elsewhere."""
    brackets = [-1] * len(program)
    open_positions = []
    for i in range(len(program)):
        c = program[i]
        if c == "[":
            open_positions.append(i)
        elif c == "]":
            if len(open_positions) == 0:
                raise BracketError(i)
            start = open_positions.pop()
            brackets[start] = i
            brackets[i] = start
    if len(open_positions) > 0:
        raise BracketError(open_positions.pop())
    return brackets


def mainloop(program, brackets, tape, out):
    pc = 0
    while pc < len(program):
        driver.jit_merge_point(pc=pc, program=program, brackets=brackets,
                               tape=tape, out=out)
        c = program[pc]
        if c == ">":
            tape.advance()
        elif c == "<":
            tape.devance()
        elif c == "+":
            tape.add(1)
        elif c == "-":
            tape.add(-1)
        elif c == ".":
            out.put(tape.get())
        elif c == "[":
            if tape.get() == 0:
                pc = brackets[pc]
        elif c == "]":
            if tape.get() != 0:
                # Back to the loop's start: the end of a loop of the
                # interpreted program.
                pc = brackets[pc] + 1
                driver.can_enter_jit(pc=pc, program=program, brackets=brackets,
                                     tape=tape, out=out)
                continue
        pc += 1
    out.flush()
    return tape.get()


def run(program):
    try:
        brackets = match_brackets(program)
    except BracketError as e:
        print("unmatched bracket at " + str(e.position))
        return
    out = Output()
    last = mainloop(program, brackets, Tape(), out)
    print("lines " + str(out.lines) + ", last cell " + str(last))


HELLO = ("++++++++[>++++[>++>+++>+++>+<<<<-]>+>+>->>+[<]<-]>>.>---.+++++++..+++."
         ">>.<-.<.+++.------.--------.>>+.>++.")

# Prints the digits of a count down from n (n <= 9), one a line: the cell
# of '0' and a counter, with an inner loop spending time per digit.
def countdown(n):
    return ("+" * n + ">" + "+" * 48 + ">" + "+" * 10 + "<<"
            + "[>" + "+" * n + "." + "-" * n + "-" + ">.<<"
            + ">>>" + "+" * 30 + "[-]" + "<<<" + "-]")


def entry_point(argv):
    n = int(argv[1])
    run(HELLO)
    run(countdown(n))
    run("+" * n + "[>" + "+" * 7 + "[>++<-]<-]>>.")
    run("[[]")
    run("+]")
    return 0


def target(driver, args):
    return entry_point, None


if __name__ == "__main__":
    sys.exit(entry_point(sys.argv))

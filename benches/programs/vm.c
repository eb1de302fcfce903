/* Benchmark baseline: vm.py in plain C. The code and registers are arrays;
 * the operand stack is a growable array with push and pop, as the Python
 * program's list with append and pop. Python's % is floored; the operands
 * here are never negative, so C's % gives the same numbers. */
#include <stdio.h>
#include <stdlib.h>

enum { PUSH, LOAD, STORE, ADD, SUB, MUL, MOD, LT, JUMP_IF_FALSE, JUMP, DUP, POP, HALT };

static const long CODE[] = {
    PUSH, 0, STORE, 0,
    PUSH, 0, STORE, 1,
    PUSH, 0, STORE, 3,
    LOAD, 0, LOAD, 2, LT,
    JUMP_IF_FALSE, 61,
    LOAD, 1, PUSH, 31, MUL,
    LOAD, 0, ADD,
    PUSH, 1000003, MOD, STORE, 1,
    LOAD, 0, PUSH, 3, MOD,
    PUSH, 1, LT,
    JUMP_IF_FALSE, 52,
    LOAD, 3, LOAD, 1, PUSH, 7, MOD, ADD, STORE, 3,
    LOAD, 0, PUSH, 1, ADD, STORE, 0,
    JUMP, 12,
    HALT,
};

typedef struct {
    long length, capacity;
    long *items;
} Stack;

static void push(Stack *s, long v) {
    if (s->length == s->capacity) {
        s->capacity = s->capacity ? s->capacity * 2 : 8;
        s->items = realloc(s->items, sizeof(long) * s->capacity);
    }
    s->items[s->length++] = v;
}

static long pop(Stack *s) { return s->items[--s->length]; }

static long run(const long *code, long *regs) {
    Stack stack = {0, 0, NULL};
    long pc = 0, steps = 0, a, b, v;
    for (;;) {
        long op = code[pc];
        steps++;
        switch (op) {
        case PUSH: push(&stack, code[pc + 1]); pc += 2; break;
        case LOAD: push(&stack, regs[code[pc + 1]]); pc += 2; break;
        case STORE: regs[code[pc + 1]] = pop(&stack); pc += 2; break;
        case ADD: b = pop(&stack); a = pop(&stack); push(&stack, a + b); pc++; break;
        case SUB: b = pop(&stack); a = pop(&stack); push(&stack, a - b); pc++; break;
        case MUL: b = pop(&stack); a = pop(&stack); push(&stack, a * b); pc++; break;
        case MOD: b = pop(&stack); a = pop(&stack); push(&stack, a % b); pc++; break;
        case LT: b = pop(&stack); a = pop(&stack); push(&stack, a < b ? 1 : 0); pc++; break;
        case JUMP_IF_FALSE:
            if (pop(&stack) == 0) pc = code[pc + 1];
            else pc += 2;
            break;
        case JUMP: pc = code[pc + 1]; break;
        case DUP: v = pop(&stack); push(&stack, v); push(&stack, v); pc++; break;
        case POP: pop(&stack); pc++; break;
        default: return steps;
        }
    }
}

int main(int argc, char **argv) {
    long n = atol(argv[1]);
    /* The code is built at run time, as the Python program's list is. */
    long ncode = sizeof(CODE) / sizeof(CODE[0]);
    long *code = malloc(sizeof(long) * ncode);
    for (long i = 0; i < ncode; i++)
        code[i] = CODE[i];
    long regs[4] = {0, 0, n, 0};
    long steps = run(code, regs);
    printf("steps %ld acc %ld odd %ld\n", steps, regs[1], regs[3]);
    return 0;
}

/* Benchmark baseline: the same binary-trees in plain C, each tree freed
 * with free() as soon as it is checked (what a collector competes with). */
#include <stdio.h>
#include <stdlib.h>

typedef struct Node {
    struct Node *left, *right;
} Node;

static Node *make_tree(long depth) {
    Node *n = malloc(sizeof(Node));
    if (depth == 0) {
        n->left = n->right = NULL;
    } else {
        n->left = make_tree(depth - 1);
        n->right = make_tree(depth - 1);
    }
    return n;
}

static long check_tree(const Node *n) {
    if (n->left == NULL) return 1;
    return 1 + check_tree(n->left) + check_tree(n->right);
}

static void free_tree(Node *n) {
    if (n->left != NULL) {
        free_tree(n->left);
        free_tree(n->right);
    }
    free(n);
}

int main(int argc, char **argv) {
    long max_depth = atol(argv[1]);
    long min_depth = 4;
    if (max_depth < min_depth + 2) max_depth = min_depth + 2;
    long stretch = max_depth + 1;
    Node *t = make_tree(stretch);
    printf("stretch tree of depth %ld\t check: %ld\n", stretch, check_tree(t));
    free_tree(t);
    Node *long_lived = make_tree(max_depth);
    for (long depth = min_depth; depth <= max_depth; depth += 2) {
        long iterations = 1L << (max_depth - depth + min_depth);
        long check = 0;
        for (long i = 0; i < iterations; i++) {
            Node *tree = make_tree(depth);
            check += check_tree(tree);
            free_tree(tree);
        }
        printf("%ld\t trees of depth %ld\t check: %ld\n", iterations, depth, check);
    }
    printf("long lived tree of depth %ld\t check: %ld\n", max_depth, check_tree(long_lived));
    return 0;
}

/* Benchmark baseline: nbody.py in plain C, the bodies as structs behind
 * pointers in an array, as the Python program's list holds instances. */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    double x, y, vx, vy, mass;
} Body;

static double kinetic(const Body *b) {
    return 0.5 * b->mass * (b->vx * b->vx + b->vy * b->vy);
}

static void move(Body *b, double dt) {
    b->x = b->x + dt * b->vx;
    b->y = b->y + dt * b->vy;
}

static Body **make_bodies(long n) {
    Body **bodies = malloc(sizeof(Body *) * n);
    long seed = 12345;
    for (long i = 0; i < n; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648L;
        double x = (double)(seed % 10000) / 1000.0;
        seed = (seed * 1103515245 + 12345) % 2147483648L;
        double y = (double)(seed % 10000) / 1000.0;
        Body *b = malloc(sizeof(Body));
        b->x = x;
        b->y = y;
        b->vx = 0.0;
        b->vy = 0.0;
        b->mass = 1.0 + (double)(i % 3);
        bodies[i] = b;
    }
    return bodies;
}

static void advance(Body **bodies, long n, double dt) {
    for (long i = 0; i < n; i++) {
        Body *b = bodies[i];
        for (long j = i + 1; j < n; j++) {
            Body *o = bodies[j];
            double dx = b->x - o->x;
            double dy = b->y - o->y;
            double d2 = dx * dx + dy * dy + 0.5;
            double mag = dt / (d2 * d2);
            double bm = b->mass * mag;
            double om = o->mass * mag;
            b->vx = b->vx - dx * om;
            b->vy = b->vy - dy * om;
            o->vx = o->vx + dx * bm;
            o->vy = o->vy + dy * bm;
        }
    }
    for (long i = 0; i < n; i++)
        move(bodies[i], dt);
}

static double energy(Body **bodies, long n) {
    double e = 0.0;
    for (long i = 0; i < n; i++) {
        Body *b = bodies[i];
        e = e + kinetic(b);
        for (long j = i + 1; j < n; j++) {
            Body *o = bodies[j];
            double dx = b->x - o->x;
            double dy = b->y - o->y;
            e = e - b->mass * o->mass / (dx * dx + dy * dy + 0.5);
        }
    }
    return e;
}

int main(int argc, char **argv) {
    long steps = atol(argv[1]);
    long n = 40;
    Body **bodies = make_bodies(n);
    double before = energy(bodies, n);
    for (long s = 0; s < steps; s++)
        advance(bodies, n, 0.001);
    double after = energy(bodies, n);
    printf("energy %ld -> %ld\n", (long)(before * 1000000.0), (long)(after * 1000000.0));
    return 0;
}

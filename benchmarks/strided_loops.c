/*
 * A gather of float64 elements at a constant source stride into a packed row, row after row, by
 * a loop of one element per iteration and by loops that issue four or eight loads before their
 * stores: the measurement behind the portable strided kernels (kernels/copy_portable.h,
 * NOTES.md in git). The one-element loop's time depends on where its code lands, so build
 * it several ways:
 *
 *   for f in -O3 -O2 -Os "-O3 -falign-loops=64"; do
 *       cc $f -o /tmp/strided_loops benchmarks/strided_loops.c && /tmp/strided_loops 32; done
 *
 * /tmp/strided_loops ROWS [SHIFT]: ROWS rows of 299 elements read 24 bytes apart from source rows
 * 16 KiB apart (the bench's SLICE [:, 1::2, 3:900:3] of float64), the destination SHIFT bytes
 * past a page start. Prints the median of 31 passes (each 20 repeats, in cache after the first),
 * us.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef void (*gather_fn)(char *dst, const char *src, ptrdiff_t ss, size_t n);

__attribute__((noinline)) static void one_at_a_time(char *d, const char *s, ptrdiff_t ss,
                                                    size_t n) {
    for (size_t i = 0; i < n; i++, s += ss) memcpy(d + i * 8, s, 8);
}

__attribute__((noinline)) static void four_loads_first(char *d, const char *s, ptrdiff_t ss,
                                                       size_t n) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4, s += 4 * ss) {
        uint64_t a, b, c, e;
        memcpy(&a, s, 8);
        memcpy(&b, s + ss, 8);
        memcpy(&c, s + 2 * ss, 8);
        memcpy(&e, s + 3 * ss, 8);
        memcpy(d + i * 8, &a, 8);
        memcpy(d + i * 8 + 8, &b, 8);
        memcpy(d + i * 8 + 16, &c, 8);
        memcpy(d + i * 8 + 24, &e, 8);
    }
    for (; i < n; i++, s += ss) memcpy(d + i * 8, s, 8);
}

__attribute__((noinline)) static void eight_loads_first(char *d, const char *s, ptrdiff_t ss,
                                                        size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8, s += 8 * ss) {
        uint64_t v[8];
        for (int k = 0; k < 8; k++) memcpy(&v[k], s + k * ss, 8);
        memcpy(d + i * 8, v, sizeof v);
    }
    for (; i < n; i++, s += ss) memcpy(d + i * 8, s, 8);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s ROWS [SHIFT]\n", argv[0]);
        return 2;
    }
    size_t rows = strtoul(argv[1], NULL, 10), shift = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
    const size_t n = 299;
    const ptrdiff_t ss = 24, row_stride = 16384;
    if (rows == 0 || shift >= 4096) return 2;
    char *src = aligned_alloc(4096, rows * row_stride + 4096);
    char *dst_block = aligned_alloc(4096, rows * n * 8 + 8192);
    if (src == NULL || dst_block == NULL) return 1;
    char *dst = dst_block + shift;
    memset(src, 1, rows * row_stride + 4096);
    memset(dst_block, 0, rows * n * 8 + 8192);
    gather_fn fns[3] = {one_at_a_time, four_loads_first, eight_loads_first};
    const char *names[3] = {"one at a time", "four loads first", "eight loads first"};
    double times[3][31];
    for (int pass = 0; pass < 31; pass++)
        for (int k = 0; k < 3; k++) {
            double start = now();
            for (int repeat = 0; repeat < 20; repeat++)
                for (size_t r = 0; r < rows; r++)
                    fns[k](dst + r * n * 8, src + 24 + r * row_stride, ss, n);
            times[k][pass] = (now() - start) / 20;
        }
    for (int k = 0; k < 3; k++) {
        qsort(times[k], 31, sizeof(double), by_value);
        printf("%s %.2f us%s", names[k], times[k][15] * 1e6, k < 2 ? ", " : "\n");
    }
    free(src);
    free(dst_block);
    return 0;
}

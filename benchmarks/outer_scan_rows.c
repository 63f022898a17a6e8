/*
 * A float32 (R,4096) cumulative sum along axis 0 swept one row at a time (the accumulators read
 * and written in memory once per row), from the previous output row (ONNX Runtime's way), and two
 * or four rows at a time (the accumulators in registers down the rows), each with ordinary and
 * with streaming stores, beside a memcpy of the same bytes: the measurement behind
 * SCAN_OUTER_ROWS in csrc/kernels/scan_outer_simd.h (NOTES.md in git).
 *
 *   cc -O2 -mavx512f -o /tmp/outer_scan_rows benchmarks/outer_scan_rows.c && /tmp/outer_scan_rows R
 *
 * 15 rounds; each round writes 64 MiB of other data before every variant (cold), the variants in
 * a turned order. Prints the median, ms.
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define C 4096
#define ROUNDS 15
static float acc[C] __attribute__((aligned(64)));

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void put(float *o, __m512 v, int stream) {
    if (stream) _mm512_stream_ps(o, v);
    else _mm512_storeu_ps(o, v);
}

static void one_row(float *o, const float *s, size_t rows, int stream) {
    memset(acc, 0, sizeof acc);
    for (size_t k = 0; k < rows; k++)
        for (size_t j = 0; j < C; j += 16) {
            __m512 a = _mm512_add_ps(_mm512_load_ps(acc + j), _mm512_loadu_ps(s + k * C + j));
            _mm512_store_ps(acc + j, a);
            put(o + k * C + j, a, stream);
        }
    _mm_sfence();
}

static void previous_row(float *o, const float *s, size_t rows, int stream) {
    memcpy(o, s, C * sizeof(float));
    for (size_t k = 1; k < rows; k++)
        for (size_t j = 0; j < C; j += 16)
            put(o + k * C + j,
                _mm512_add_ps(_mm512_loadu_ps(o + (k - 1) * C + j), _mm512_loadu_ps(s + k * C + j)),
                stream);
    _mm_sfence();
}

static void rows_at_a_time(float *o, const float *s, size_t rows, int stream, size_t group) {
    memset(acc, 0, sizeof acc);
    for (size_t k = 0; k + group <= rows; k += group)
        for (size_t j = 0; j < C; j += 16) {
            __m512 a = _mm512_load_ps(acc + j);
            for (size_t r = 0; r < group; r++) {
                a = _mm512_add_ps(a, _mm512_loadu_ps(s + (k + r) * C + j));
                put(o + (k + r) * C + j, a, stream);
            }
            _mm512_store_ps(acc + j, a);
        }
    _mm_sfence();
}

static void two_rows(float *o, const float *s, size_t rows, int stream) {
    rows_at_a_time(o, s, rows, stream, 2);
}

static void four_rows(float *o, const float *s, size_t rows, int stream) {
    rows_at_a_time(o, s, rows, stream, 4);
}

static void copy(float *o, const float *s, size_t rows, int stream) {
    (void)stream;
    memcpy(o, s, rows * C * sizeof(float));
}

int main(int argc, char **argv) {
    size_t rows = argc > 1 ? (size_t)atoi(argv[1]) & ~(size_t)3 : 2048, n = rows * C;
    void (*fns[])(float *, const float *, size_t, int) = {one_row, previous_row, two_rows,
                                                          four_rows, copy};
    const char *names[] = {"one row", "previous row", "two rows", "four rows", "memcpy"};
    enum { V = 2 * (sizeof names / sizeof *names) };
    float *src[V], *dst[V];
    double t[V][ROUNDS];
    char *other = malloc(64 << 20);
    if (rows == 0 || other == NULL) return 1;
    for (int i = 0; i < V; i++) {
        src[i] = aligned_alloc(64, n * sizeof(float));
        dst[i] = aligned_alloc(64, n * sizeof(float));
        if (src[i] == NULL || dst[i] == NULL) return 1;
        for (size_t j = 0; j < n; j++) src[i][j] = (float)(j % 7) * 0.5f;
        memset(dst[i], 0, n * sizeof(float));
    }
    for (int r = 0; r < ROUNDS; r++)
        for (int step = 0; step < V; step++) {
            int i = (step + r) % V;
            memset(other, r, 64 << 20);
            double t0 = now();
            fns[i / 2](dst[i], src[i], rows, i % 2);
            t[i][r] = now() - t0;
        }
    for (int i = 0; i < V; i++) {
        double *x = t[i];
        for (int a = 0; a < ROUNDS; a++)
            for (int b = a + 1; b < ROUNDS; b++)
                if (x[b] < x[a]) {
                    double q = x[a];
                    x[a] = x[b];
                    x[b] = q;
                }
        const char *stores = fns[i / 2] == copy ? "" : i % 2 ? "streamed" : "stored";
        printf("%-12s %-9s %.3f ms\n", names[i / 2], stores, x[ROUNDS / 2] * 1e3);
    }
    return 0;
}

/*
 * Runs of n bytes copied one after another, by glibc's memcpy, by plain AVX2 / AVX-512 loops and
 * by `rep movsb`:
 * the measurement behind the packed-run kernel (kernels/copy_vector.h, NOTES.md in git).
 *
 *   cc -O2 -o /tmp/packed_runs benchmarks/packed_runs.c && /tmp/packed_runs RUN TOTAL_KIB REPEAT OFFSET
 *
 * RUN bytes per run, TOTAL_KIB KiB written, each source run read REPEAT times in a row (1: a
 * plain copy; 64: a TILE), the source OFFSET bytes past a page start (0: source and destination
 * at the same page offsets, where glibc copies backwards). Prints the best of 30 passes, ms.
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

__attribute__((target("avx2"))) static void copy_avx2(char *d, const char *s, size_t n) {
    size_t i = 0;
    for (; i + 128 <= n; i += 128)
        for (int k = 0; k < 4; k++)
            _mm256_storeu_si256((__m256i *)(d + i + 32 * k),
                                _mm256_loadu_si256((const __m256i *)(s + i + 32 * k)));
    memcpy(d + i, s + i, n - i);
}

__attribute__((target("avx512f"))) static void copy_avx512(char *d, const char *s, size_t n) {
    size_t i = 0;
    for (; i + 256 <= n; i += 256)
        for (int k = 0; k < 4; k++) _mm512_storeu_si512(d + i + 64 * k, _mm512_loadu_si512(s + i + 64 * k));
    memcpy(d + i, s + i, n - i);
}

static void copy_libc(char *d, const char *s, size_t n) { memcpy(d, s, n); }

static void copy_rep_movsb(char *d, const char *s, size_t n) {
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

typedef void (*copy_fn)(char *, const char *, size_t);

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s RUN TOTAL_KIB REPEAT OFFSET\n", argv[0]);
        return 2;
    }
    size_t run = strtoul(argv[1], NULL, 10), total = strtoul(argv[2], NULL, 10) << 10;
    size_t repeat = strtoul(argv[3], NULL, 10), offset = strtoul(argv[4], NULL, 10);
    if (run == 0 || repeat == 0 || total < run * repeat) return 2;
    size_t rows = total / run, source_bytes = (rows / repeat + 1) * run;
    char *dst = aligned_alloc(4096, total + 4096), *src = aligned_alloc(4096, source_bytes + 4096);
    memset(dst, 1, total + 4096);
    memset(src, 2, source_bytes + 4096);
    copy_fn fns[4] = {copy_libc, copy_avx2, copy_avx512, copy_rep_movsb};
    double best[4] = {1e9, 1e9, 1e9, 1e9};
    for (int pass = 0; pass < 30; pass++)
        for (int k = 0; k < 4; k++) {
            double start = now();
            for (size_t r = 0; r < rows; r++) fns[k](dst + r * run, src + offset + r / repeat * run, run);
            double took = now() - start;
            if (took < best[k]) best[k] = took;
        }
    printf("run %zu, %zu KiB, repeat %zu, offset %zu: memcpy %.3f, avx2 %.3f, avx512 %.3f, "
           "rep movsb %.3f ms\n", run, total >> 10, repeat, offset, best[0] * 1e3, best[1] * 1e3,
           best[2] * 1e3, best[3] * 1e3);
    free(dst);
    free(src);
    return 0;
}

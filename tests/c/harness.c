/* The C test of the core: buffers with guard bytes, a seeded generator, IEEE half conversions. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 64

long test_checks, test_failures;
char test_context[64];
size_t test_misalign;

void test_fail(const char *file, int line, const char *what) {
    test_failures++;
    if (test_failures <= 30)
        fprintf(stderr, "FAIL %s:%d [%s] %s\n", file, line, test_context, what);
}

static uint64_t state = 1;

void test_seed(uint64_t seed) { state = seed; }

uint64_t test_random(void) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void test_fill_random(void *p, size_t bytes) {
    unsigned char *c = p;
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t r = test_random();
        memcpy(c + i, &r, 8);
    }
    for (uint64_t r = test_random(); i < bytes; i++, r >>= 8) c[i] = (unsigned char)r;
}

void test_buffer_make(test_buffer *b, int32_t ndim, const int64_t *sizes, const int64_t *strides,
                      size_t elsize, int fill) {
    int64_t lo = 0, hi = 0, empty = 0; /* lowest and highest element offset, in bytes */
    for (int32_t d = 0; d < ndim; d++) {
        int64_t reach = strides[d] * (int64_t)elsize * (sizes[d] - 1);
        if (sizes[d] == 0) empty = 1;
        else if (reach < 0) lo += reach;
        else hi += reach;
    }
    b->bytes = (empty ? 2 * GUARD : (size_t)(hi - lo) + elsize + 2 * GUARD) + test_misalign;
    b->base = malloc(b->bytes);
    if (b->base == NULL) {
        fprintf(stderr, "out of memory (%zu bytes)\n", b->bytes);
        exit(2);
    }
    if (fill) memset(b->base, fill, b->bytes);
    else test_fill_random(b->base, b->bytes);
    b->view.data = (char *)b->base + GUARD + test_misalign - lo;
    b->view.ndim = ndim;
    for (int32_t d = 0; d < DMLCPU_MAX_DIMS; d++) {
        b->view.sizes[d] = d < ndim ? sizes[d] : 0;
        b->view.strides[d] = d < ndim ? strides[d] * (int64_t)elsize : 0;
    }
}

void test_buffer_clone(test_buffer *copy, const test_buffer *b) {
    *copy = *b;
    copy->base = malloc(b->bytes);
    if (copy->base == NULL) exit(2);
    memcpy(copy->base, b->base, b->bytes);
    copy->view.data = (char *)copy->base + (b->view.data - (char *)b->base);
}

void test_buffer_free(test_buffer *b) {
    free(b->base);
    b->base = NULL;
}

int test_buffer_equal(const test_buffer *a, const test_buffer *b) {
    return a->bytes == b->bytes && memcmp(a->base, b->base, a->bytes) == 0;
}

char *test_element(const dmlcpu_view *v, const int64_t *idx, size_t elsize) {
    (void)elsize;
    char *p = v->data;
    for (int32_t d = 0; d < v->ndim; d++) p += idx[d] * v->strides[d];
    return p;
}

int test_next_index(int64_t *idx, const int64_t *sizes, int32_t ndim) {
    for (int32_t d = ndim - 1; d >= 0; d--) {
        if (++idx[d] < sizes[d]) return 1;
        idx[d] = 0;
    }
    return 0;
}

int64_t test_count(const dmlcpu_view *v) {
    int64_t n = 1;
    for (int32_t d = 0; d < v->ndim; d++) n *= v->sizes[d];
    return n;
}

float test_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, x;
    if (e == 0x1f) {
        x = sign | 0x7f800000u | (m << 13);
    } else if (e == 0) {
        float v = (float)m * (1.0f / 16777216.0f); /* subnormal: m * 2^-24, exact */
        return sign ? -v : v;
    } else {
        x = sign | ((e + 112) << 23) | (m << 13);
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* Round to nearest, ties to even, with overflow to infinity and gradual underflow. */
uint16_t test_f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t a = x & 0x7fffffffu;
    if (a >= 0x7f800000u) /* infinity, or NaN kept quiet with its top payload bits */
        return (uint16_t)(sign | 0x7c00 | (a > 0x7f800000u ? 0x200 | ((a >> 13) & 0x3ff) : 0));
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00); /* 65520 and up round to infinity */
    uint32_t q, rem, half;
    if (a < 0x38800000u) { /* below 2^-14: a subnormal half, in units of 2^-24 */
        uint32_t e = a >> 23;
        if (e < 102) return sign; /* below 2^-25: rounds to zero */
        uint32_t m = (a & 0x7fffff) | 0x800000, shift = 126 - e;
        q = m >> shift;
        rem = m & ((1u << shift) - 1);
        half = 1u << (shift - 1);
    } else {
        q = (a >> 13) - (112u << 10); /* rebias the exponent: a carry from rounding is right */
        rem = a & 0x1fff;
        half = 0x1000;
    }
    if (rem > half || (rem == half && (q & 1))) q++;
    return (uint16_t)(sign | q);
}

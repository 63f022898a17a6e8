/*
 * dmlcpu_numpy_scan against a sequential loop: every widening pair of integer types (the source
 * sign- or zero-extended, the total wrapping in the result's width) and float16 rounded at
 * every step, sum and product, outer and line layouts, packed and gapped reversed sources, and
 * scans large enough for the threads to share.
 */
#include <string.h>

#include "harness.h"

static const struct {
    dmlcpu_dtype dtype;
    size_t size;
    int is_signed;
} INTS[] = {{DMLCPU_INT8, 1, 1},   {DMLCPU_UINT8, 1, 0},  {DMLCPU_INT16, 2, 1},
            {DMLCPU_UINT16, 2, 0}, {DMLCPU_INT32, 4, 1},  {DMLCPU_UINT32, 4, 0},
            {DMLCPU_INT64, 8, 1},  {DMLCPU_UINT64, 8, 0}};
#define INT_COUNT (sizeof INTS / sizeof INTS[0])

/* An element as NumPy's cast to a 64-bit integer makes it (then truncated to the result). */
static uint64_t load_widened(const char *p, size_t e, int is_signed) {
    int8_t i8;
    int16_t i16;
    int32_t i32;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    switch (e) {
    case 1: return is_signed ? (memcpy(&i8, p, 1), (uint64_t)(int64_t)i8) : (memcpy(&u8, p, 1), u8);
    case 2:
        return is_signed ? (memcpy(&i16, p, 2), (uint64_t)(int64_t)i16) : (memcpy(&u16, p, 2), u16);
    case 4:
        return is_signed ? (memcpy(&i32, p, 4), (uint64_t)(int64_t)i32) : (memcpy(&u32, p, 4), u32);
    default: memcpy(&u64, p, 8); return u64;
    }
}

static void store_bits(char *p, size_t e, uint64_t v) {
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    switch (e) {
    case 2: memcpy(p, &u16, 2); break;
    case 4: memcpy(p, &u32, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

/* Every scan of src along axis into dst, one element at a time. s, d: index into INTS, or -1
 * for float16 into float16. */
static void reference(const dmlcpu_view *dst, const dmlcpu_view *src, int s, int d, int axis,
                      int prod) {
    int64_t idx[DMLCPU_MAX_DIMS] = {0}, sizes[DMLCPU_MAX_DIMS];
    size_t ss = s < 0 ? 2 : INTS[s].size, ds = d < 0 ? 2 : INTS[d].size;
    for (int32_t i = 0; i < dst->ndim; i++) sizes[i] = i == axis ? 1 : dst->sizes[i];
    do {
        uint64_t acc = 0;
        uint16_t half = 0;
        for (int64_t k = 0; k < dst->sizes[axis]; k++) {
            idx[axis] = k;
            const char *in = test_element(src, idx, ss);
            char *out = test_element(dst, idx, ds);
            if (s < 0) {
                uint16_t h;
                memcpy(&h, in, 2);
                float a = test_f16_to_f32(half), b = test_f16_to_f32(h);
                half = k == 0 ? h : test_f32_to_f16(prod ? a * b : a + b);
                memcpy(out, &half, 2);
            } else {
                uint64_t v = load_widened(in, ss, INTS[s].is_signed);
                acc = k == 0 ? v : prod ? acc * v : acc + v;
                store_bits(out, ds, acc);
            }
        }
        idx[axis] = 0;
    } while (test_next_index(idx, sizes, dst->ndim));
}

/* Random bits; float16 below 2 in magnitude (subnormals and -0.0 among them), never NaN. */
static void fill(const test_buffer *b, int s) {
    test_fill_random(b->base, b->bytes);
    if (s >= 0) return;
    for (size_t i = 0; i + 2 <= b->bytes; i += 2) b->base[i + 1] &= 0xbf;
}

static void one_case(int32_t ndim, const int64_t *sizes, int axis, int s, int d, int prod,
                     int gapped) {
    int64_t packed[DMLCPU_MAX_DIMS], strides[DMLCPU_MAX_DIMS], step = 1, gap = 1;
    for (int32_t i = ndim - 1; i >= 0; i--) {
        packed[i] = step;
        step *= sizes[i];
        strides[i] = gapped && i == ndim - 1 ? -2 * gap : (gapped ? 2 : 1) * gap;
        gap *= sizes[i];
    }
    size_t ss = s < 0 ? 2 : INTS[s].size, ds = d < 0 ? 2 : INTS[d].size;
    test_buffer src, dst, expected;
    test_buffer_make(&src, ndim, sizes, strides, ss, 0);
    fill(&src, s);
    test_buffer_make(&dst, ndim, sizes, packed, ds, 0x99);
    test_buffer_clone(&expected, &dst);
    reference(&expected.view, &src.view, s, d, axis, prod);
    dmlcpu_dtype dt = d < 0 ? DMLCPU_FLOAT16 : INTS[d].dtype;
    dmlcpu_dtype st = s < 0 ? DMLCPU_FLOAT16 : INTS[s].dtype;
    CHECK(dmlcpu_numpy_scan(&dst.view, dt, &src.view, st, axis,
                            prod ? DMLCPU_SCAN_PROD : DMLCPU_SCAN_SUM) == DMLCPU_OK,
          "numpy scan status");
    CHECK(test_buffer_equal(&dst, &expected), "numpy scan result");
    test_buffer_free(&src);
    test_buffer_free(&dst);
    test_buffer_free(&expected);
}

void test_numpy_scans(void) {
    static const int64_t small[][3] = {{2, 33, 17}, {3, 17, 70}, {1, 1031, 1}};
    static const int64_t large[3] = {3, 300, 517};
    for (int s = -1; s < 6; s++)
        for (int d = -1; d < (int)INT_COUNT; d++) {
            if ((s < 0) != (d < 0) || (s >= 0 && INTS[d].size <= INTS[s].size)) continue;
            for (int prod = 0; prod < 2; prod++) {
                for (size_t c = 0; c < sizeof small / sizeof small[0]; c++)
                    for (int axis = 1; axis < 3; axis++)
                        one_case(3, small[c], axis, s, d, prod, (int)(c + (size_t)axis) % 2);
                one_case(3, large, 1, s, d, prod, prod);
                one_case(3, large, 2, s, d, prod, !prod);
            }
        }
    /* pairs that are not widenings are refused */
    int64_t n = 4, one = 1;
    test_buffer a, b;
    test_buffer_make(&a, 1, &n, &one, 8, 0);
    test_buffer_make(&b, 1, &n, &one, 4, 0);
    CHECK(dmlcpu_numpy_scan(&b.view, DMLCPU_INT32, &a.view, DMLCPU_INT64, 0, DMLCPU_SCAN_SUM) ==
              DMLCPU_E_INVALID,
          "a narrowing pair is refused");
    CHECK(dmlcpu_numpy_scan(&b.view, DMLCPU_FLOAT32, &b.view, DMLCPU_INT16, 0, DMLCPU_SCAN_SUM) ==
              DMLCPU_E_INVALID,
          "a float result is refused");
    test_buffer_free(&a);
    test_buffer_free(&b);
}

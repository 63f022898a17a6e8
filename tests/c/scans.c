/*
 * dmlcpu_scan against a sequential loop: all eleven types, sum and product, both directions,
 * inclusive and exclusive, the scanned axis innermost (line kernels) or not (outer kernels),
 * packed, strided and in-place operands, lengths crossing every vector width, and large scans
 * that threads share.
 */
#include <string.h>

#include "harness.h"

typedef enum { INTEGER, HALF, SINGLE, DOUBLE } kind;

static const struct {
    dmlcpu_dtype dtype;
    size_t size;
    kind kind;
} TYPES[] = {{DMLCPU_FLOAT32, 4, SINGLE}, {DMLCPU_FLOAT16, 2, HALF},   {DMLCPU_FLOAT64, 8, DOUBLE},
             {DMLCPU_UINT8, 1, INTEGER},  {DMLCPU_INT8, 1, INTEGER},   {DMLCPU_UINT16, 2, INTEGER},
             {DMLCPU_INT16, 2, INTEGER},  {DMLCPU_UINT32, 4, INTEGER}, {DMLCPU_INT32, 4, INTEGER},
             {DMLCPU_UINT64, 8, INTEGER}, {DMLCPU_INT64, 8, INTEGER}};
#define TYPE_COUNT (sizeof TYPES / sizeof TYPES[0])

static uint64_t load_uint(const char *p, size_t e) {
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    switch (e) {
    case 1: memcpy(&u8, p, 1); return u8;
    case 2: memcpy(&u16, p, 2); return u16;
    case 4: memcpy(&u32, p, 4); return u32;
    default: memcpy(&u64, p, 8); return u64;
    }
}

static void store_uint(char *p, size_t e, uint64_t v) {
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    switch (e) {
    case 1: memcpy(p, &u8, 1); break;
    case 2: memcpy(p, &u16, 2); break;
    case 4: memcpy(p, &u32, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

/* One scan line walked in order: the accumulator type of each kind, as the contract says. */
static void reference_line(char *dst, ptrdiff_t ds, const char *src, ptrdiff_t ss, int64_t n,
                           size_t t, int prod, int exclusive) {
    size_t e = TYPES[t].size;
    uint64_t ia = prod ? 1 : 0;
    float fa = prod ? 1.0f : -0.0f;
    double da = prod ? 1.0 : -0.0;
    for (int64_t k = 0; k < n; k++, dst += ds, src += ss) {
        if (exclusive) { /* the total so far; the first value written is the identity */
            switch (TYPES[t].kind) {
            case INTEGER: store_uint(dst, e, ia); break;
            case HALF: store_uint(dst, 2, test_f32_to_f16(k ? fa : prod ? 1.0f : 0.0f)); break;
            case SINGLE: { float v = k ? fa : prod ? 1.0f : 0.0f; memcpy(dst, &v, 4); } break;
            case DOUBLE: { double v = k ? da : prod ? 1.0 : 0.0; memcpy(dst, &v, 8); } break;
            }
        }
        float f;
        double d;
        switch (TYPES[t].kind) {
        case INTEGER: ia = prod ? ia * load_uint(src, e) : ia + load_uint(src, e); break;
        case HALF:
            f = test_f16_to_f32((uint16_t)load_uint(src, 2));
            fa = prod ? fa * f : fa + f;
            break;
        case SINGLE: memcpy(&f, src, 4); fa = prod ? fa * f : fa + f; break;
        case DOUBLE: memcpy(&d, src, 8); da = prod ? da * d : da + d; break;
        }
        if (!exclusive) {
            switch (TYPES[t].kind) {
            case INTEGER: store_uint(dst, e, ia); break;
            case HALF: store_uint(dst, 2, test_f32_to_f16(fa)); break;
            case SINGLE: memcpy(dst, &fa, 4); break;
            case DOUBLE: memcpy(dst, &da, 8); break;
            }
        }
    }
}

static void reference_scan(const dmlcpu_view *dst, const dmlcpu_view *src, size_t t, int axis,
                           int prod, int reverse, int exclusive) {
    int64_t idx[DMLCPU_MAX_DIMS] = {0}, sizes[DMLCPU_MAX_DIMS];
    int64_t n = dst->sizes[axis];
    if (test_count(dst) == 0) return;
    memcpy(sizes, dst->sizes, sizeof sizes);
    sizes[axis] = 1; /* every line once */
    ptrdiff_t ds = (ptrdiff_t)dst->strides[axis], ss = (ptrdiff_t)src->strides[axis];
    do {
        char *d = test_element(dst, idx, TYPES[t].size);
        const char *s = test_element(src, idx, TYPES[t].size);
        if (reverse) {
            d += (n - 1) * ds;
            s += (n - 1) * ss;
        }
        reference_line(d, reverse ? -ds : ds, s, reverse ? -ss : ss, n, t, prod, exclusive);
    } while (test_next_index(idx, sizes, dst->ndim));
}

/* Values whose running sums round at every step and whose products neither vanish nor blow up
 * at once; integers take any bits (they wrap). */
static void fill_values(const test_buffer *b, size_t t, int prod) {
    size_t e = TYPES[t].size;
    for (size_t i = 0; i + e <= b->bytes; i += e) {
        double u = (double)(test_random() >> 11) * (1.0 / 9007199254740992.0); /* [0, 1) */
        double v = prod ? (test_random() & 1 ? -1 : 1) * (0.5 + 1.5 * u) : 200.0 * u - 100.0;
        char *p = (char *)b->base + i;
        float f = (float)v;
        switch (TYPES[t].kind) {
        case INTEGER: store_uint(p, e, test_random()); break;
        case HALF: store_uint(p, 2, test_f32_to_f16(prod ? f : f * 0.5f)); break;
        case SINGLE: memcpy(p, &f, 4); break;
        case DOUBLE: memcpy(p, &v, 8); break;
        }
    }
}

/* Element strides of a packed layout of sizes, or (gapped) one with every stride doubled, the
 * last dim walked backwards. */
static void layout_strides(int32_t ndim, const int64_t *sizes, int gapped, int64_t *strides) {
    int64_t step = gapped ? 2 : 1;
    for (int32_t d = ndim - 1; d >= 0; d--) {
        strides[d] = (gapped && d == ndim - 1) ? -step : step;
        step *= sizes[d];
    }
}

/* mode 0: packed src and dst; 1: gapped src, packed dst; 2: in place on a gapped view. */
static void scan_case(int32_t ndim, const int64_t *sizes, int axis, size_t t, int prod,
                      int reverse, int exclusive, int mode) {
    int64_t packed[DMLCPU_MAX_DIMS], gapped[DMLCPU_MAX_DIMS];
    layout_strides(ndim, sizes, 0, packed);
    layout_strides(ndim, sizes, 1, gapped);
    size_t e = TYPES[t].size;
    test_buffer src, dst, expected;
    test_buffer_make(&src, ndim, sizes, mode ? gapped : packed, e, 0x11);
    fill_values(&src, t, prod);
    if (mode == 2) test_buffer_clone(&dst, &src);
    else test_buffer_make(&dst, ndim, sizes, packed, e, 0x99);
    test_buffer_clone(&expected, &dst);
    reference_scan(&expected.view, &src.view, t, axis, prod, reverse, exclusive);
    const dmlcpu_view *in = mode == 2 ? &dst.view : &src.view;
    dmlcpu_scan_op op = prod ? DMLCPU_SCAN_PROD : DMLCPU_SCAN_SUM;
    CHECK(dmlcpu_scan(&dst.view, in, TYPES[t].dtype, axis, op, reverse, exclusive) == DMLCPU_OK,
          "scan status");
    CHECK(test_buffer_equal(&dst, &expected), "scan result");
    test_buffer_free(&src);
    test_buffer_free(&dst);
    test_buffer_free(&expected);
}

void test_scans(void) {
    static const int64_t lengths[] = {1, 2, 7, 8, 9, 16, 17, 33, 70};
    static const int64_t widths[] = {1, 3, 8, 17, 40};
    for (size_t t = 0; t < TYPE_COUNT; t++)
        for (int variant = 0; variant < 8; variant++) {
            int prod = variant & 1, reverse = (variant >> 1) & 1, exclusive = variant >> 2;
            for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
                for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
                    int mode = (int)((l + w + (size_t)variant) % 3);
                    int64_t outer[3] = {2, lengths[l], widths[w]}; /* axis 1: outer kernels */
                    scan_case(3, outer, 1, t, prod, reverse, exclusive, mode);
                    int64_t line[3] = {3, widths[w], lengths[l]}; /* axis 2: line kernels */
                    scan_case(3, line, 2, t, prod, reverse, exclusive, mode);
                }
            int64_t one_d = 1031;
            scan_case(1, &one_d, 0, t, prod, reverse, exclusive, variant % 3);
        }
    /* large: shared among threads, streamed stores */
    static const struct {
        int32_t ndim;
        int64_t sizes[3];
        int axis;
        dmlcpu_dtype dtype;
    } large[] = {{2, {1024, 1031}, 0, DMLCPU_FLOAT32}, {2, {1031, 1024}, 1, DMLCPU_FLOAT32},
                 {3, {3, 300, 517}, 1, DMLCPU_FLOAT64}, {3, {4, 257, 300}, 2, DMLCPU_FLOAT16},
                 {1, {300000}, 0, DMLCPU_INT64},        {2, {2048, 700}, 0, DMLCPU_INT32},
                 {2, {700, 2048}, 1, DMLCPU_UINT8},
                 /* rows wider than the outer kernels' stack block: their heap block, then a
                  * second block */
                 {2, {5, 40000}, 0, DMLCPU_UINT8},      {2, {5, 17000}, 0, DMLCPU_INT16},
                 {2, {5, 9000}, 0, DMLCPU_FLOAT16}};
    for (size_t c = 0; c < sizeof large / sizeof large[0]; c++) {
        size_t t = 0;
        while (TYPES[t].dtype != large[c].dtype) t++;
        scan_case(large[c].ndim, large[c].sizes, large[c].axis, t, 0, 0, 0, 0);
        scan_case(large[c].ndim, large[c].sizes, large[c].axis, t, 1, 1, 1, 1);
        scan_case(large[c].ndim, large[c].sizes, large[c].axis, t, 0, 1, 0, 2);
    }
}

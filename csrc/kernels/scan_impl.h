/*
 * Scan kernels, written once and compiled per ISA: the including unit defines DMLCPU_ISA (a
 * suffix such as scalar or avx2) before including this file. See dmlcpu_scan_fn in internal.h
 * for the two layouts (outer, line) and the meaning of the strides.
 *
 * Arithmetic (SPEC.md section 3):
 * - integers compute in the unsigned type of their width, so signed and unsigned share kernels
 *   and wrap modulo 2^bits; 8- and 16-bit operands are widened to unsigned before multiplying
 *   (uint16 * uint16 would promote to int and could overflow);
 * - FLOAT32 and FLOAT64 accumulate in their own type, one element after another in walk order
 *   (the build passes -ffp-contract=off, so no fused multiply-add changes a rounding);
 * - FLOAT16 accumulates in float and rounds each written value to the nearest half (f16.h).
 * The float sum starts from -0.0, the exact IEEE identity, so a running total of one element is
 * that element (-0.0 included); exclusive scans write +0.0 (or 1) as their first value.
 *
 * In place: every element is read before the element at the same address is written, so dst may
 * be the identical view of src. Elements move through memcpy: no alignment is assumed.
 */
#include <string.h>
#include "../internal.h"
#include "../f16.h"

#ifndef DMLCPU_KERNEL
#define DMLCPU_CAT_(a, b) a##__##b
#define DMLCPU_CAT(a, b) DMLCPU_CAT_(a, b)
#define DMLCPU_KERNEL(name) DMLCPU_CAT(name, DMLCPU_ISA)
#endif

/* Columns an outer kernel carries at once: the accumulator row lives on the stack. */
#define DMLCPU_SCAN_BLOCK 256

/* Loads convert an element to the accumulator type; stores convert back. */
#define DMLCPU_DEFINE_SCAN_ACCESS(TYPE, T, A, TO_ACC, FROM_ACC)                                 \
    static inline A dmlcpu_##TYPE##_scan_load(const char *p) {                                 \
        T v;                                                                                    \
        memcpy(&v, p, sizeof v);                                                                \
        return TO_ACC(v);                                                                       \
    }                                                                                           \
    static inline void dmlcpu_##TYPE##_scan_store(char *p, A a) {                              \
        T v = FROM_ACC(a);                                                                      \
        memcpy(p, &v, sizeof v);                                                                \
    }

#define DMLCPU_SCAN_SAME(x) (x)
DMLCPU_DEFINE_SCAN_ACCESS(u8, uint8_t, uint8_t, DMLCPU_SCAN_SAME, DMLCPU_SCAN_SAME)
DMLCPU_DEFINE_SCAN_ACCESS(u16, uint16_t, uint16_t, DMLCPU_SCAN_SAME, DMLCPU_SCAN_SAME)
DMLCPU_DEFINE_SCAN_ACCESS(u32, uint32_t, uint32_t, DMLCPU_SCAN_SAME, DMLCPU_SCAN_SAME)
DMLCPU_DEFINE_SCAN_ACCESS(u64, uint64_t, uint64_t, DMLCPU_SCAN_SAME, DMLCPU_SCAN_SAME)
DMLCPU_DEFINE_SCAN_ACCESS(f16, uint16_t, float, dmlcpu_f16_to_f32, dmlcpu_f32_to_f16)
DMLCPU_DEFINE_SCAN_ACCESS(f32, float, float, DMLCPU_SCAN_SAME, DMLCPU_SCAN_SAME)
DMLCPU_DEFINE_SCAN_ACCESS(f64, double, double, DMLCPU_SCAN_SAME, DMLCPU_SCAN_SAME)

/* The operations on accumulators. `1u * a` lifts a narrow operand to unsigned int (no UB). */
static inline uint8_t dmlcpu_u8_cumsum(uint8_t a, uint8_t b) { return (uint8_t)(1u * a + b); }
static inline uint8_t dmlcpu_u8_cumprod(uint8_t a, uint8_t b) { return (uint8_t)(1u * a * b); }
static inline uint16_t dmlcpu_u16_cumsum(uint16_t a, uint16_t b) { return (uint16_t)(1u * a + b); }
static inline uint16_t dmlcpu_u16_cumprod(uint16_t a, uint16_t b) { return (uint16_t)(1u * a * b); }
static inline uint32_t dmlcpu_u32_cumsum(uint32_t a, uint32_t b) { return (uint32_t)(1u * a + b); }
static inline uint32_t dmlcpu_u32_cumprod(uint32_t a, uint32_t b) { return (uint32_t)(1u * a * b); }
static inline uint64_t dmlcpu_u64_cumsum(uint64_t a, uint64_t b) { return a + b; }
static inline uint64_t dmlcpu_u64_cumprod(uint64_t a, uint64_t b) { return a * b; }
static inline float dmlcpu_f16_cumsum(float a, float b) { return a + b; }
static inline float dmlcpu_f16_cumprod(float a, float b) { return a * b; }
static inline float dmlcpu_f32_cumsum(float a, float b) { return a + b; }
static inline float dmlcpu_f32_cumprod(float a, float b) { return a * b; }
static inline double dmlcpu_f64_cumsum(double a, double b) { return a + b; }
static inline double dmlcpu_f64_cumprod(double a, double b) { return a * b; }

/*
 * One scan kernel pair for (TYPE, OP). ES is the element size in bytes, A the accumulator type,
 * IDENTITY the accumulator's starting value and FIRST the value an exclusive scan writes first.
 *
 * The two row functions are the inner loops of the outer kernel, `out[j] = f(acc[j], in[j])`
 * over one row of n columns: a packed branch (both strides are the element size), which a SIMD
 * unit can replace, and a strided fallback.
 */
#define DMLCPU_DEFINE_SCAN(TYPE, OP, ES, A, IDENTITY, FIRST)                                    \
    DMLCPU_DEFINE_SCAN_(TYPE, OP, ES, A, IDENTITY, FIRST, dmlcpu_##TYPE##_scan_load,           \
                        dmlcpu_##TYPE##_scan_store, dmlcpu_##TYPE##_##OP)

#define DMLCPU_DEFINE_SCAN_(TYPE, OP, ES, A, IDENTITY, FIRST, LOAD, STORE, COMBINE)             \
    /* inclusive: acc = acc op in; out = acc */                                                 \
    static inline void dmlcpu_##TYPE##_##OP##_row_inclusive(char *out, ptrdiff_t ds,            \
                                                            const char *in, ptrdiff_t ss,       \
                                                            A *acc, size_t n) {                 \
        if (ds == ES && ss == ES) {                                                             \
            for (size_t j = 0; j < n; j++) {                                                    \
                acc[j] = COMBINE(acc[j], LOAD(in + j * ES));                                    \
                STORE(out + j * ES, acc[j]);                                                    \
            }                                                                                   \
        } else {                                                                                \
            for (size_t j = 0; j < n; j++) {                                                    \
                acc[j] = COMBINE(acc[j], LOAD(in + (ptrdiff_t)j * ss));                         \
                STORE(out + (ptrdiff_t)j * ds, acc[j]);                                         \
            }                                                                                   \
        }                                                                                       \
    }                                                                                           \
    /* exclusive: out = acc (or FIRST on the first row); acc = acc op in (read before write) */ \
    static inline void dmlcpu_##TYPE##_##OP##_row_exclusive(char *out, ptrdiff_t ds,            \
                                                            const char *in, ptrdiff_t ss,       \
                                                            A *acc, size_t n, int first) {      \
        if (first) {                                                                            \
            for (size_t j = 0; j < n; j++) {                                                    \
                A x = LOAD(in + (ptrdiff_t)j * ss);                                             \
                STORE(out + (ptrdiff_t)j * ds, FIRST);                                          \
                acc[j] = COMBINE(acc[j], x);                                                    \
            }                                                                                   \
        } else if (ds == ES && ss == ES) {                                                      \
            for (size_t j = 0; j < n; j++) {                                                    \
                A x = LOAD(in + j * ES);                                                        \
                STORE(out + j * ES, acc[j]);                                                    \
                acc[j] = COMBINE(acc[j], x);                                                    \
            }                                                                                   \
        } else {                                                                                \
            for (size_t j = 0; j < n; j++) {                                                    \
                A x = LOAD(in + (ptrdiff_t)j * ss);                                             \
                STORE(out + (ptrdiff_t)j * ds, acc[j]);                                         \
                acc[j] = COMBINE(acc[j], x);                                                    \
            }                                                                                   \
        }                                                                                       \
    }                                                                                           \
    /* The axis is not innermost: sweep the rows, one accumulator per column, in blocks. */     \
    static void DMLCPU_KERNEL(dmlcpu_##TYPE##_##OP##_outer)(                                    \
        char *dst, ptrdiff_t dst_axis_stride, ptrdiff_t dst_across_stride, const char *src,     \
        ptrdiff_t src_axis_stride, ptrdiff_t src_across_stride, size_t axis_len,               \
        size_t across, int exclusive) {                                                         \
        A acc[DMLCPU_SCAN_BLOCK];                                                               \
        for (size_t j0 = 0; j0 < across; j0 += DMLCPU_SCAN_BLOCK) {                             \
            size_t n = across - j0 < DMLCPU_SCAN_BLOCK ? across - j0 : DMLCPU_SCAN_BLOCK;       \
            char *out = dst + (ptrdiff_t)j0 * dst_across_stride;                                \
            const char *in = src + (ptrdiff_t)j0 * src_across_stride;                           \
            for (size_t j = 0; j < n; j++) acc[j] = IDENTITY;                                   \
            for (size_t k = 0; k < axis_len; k++) {                                             \
                char *out_row = out + (ptrdiff_t)k * dst_axis_stride;                           \
                const char *in_row = in + (ptrdiff_t)k * src_axis_stride;                       \
                if (exclusive)                                                                  \
                    dmlcpu_##TYPE##_##OP##_row_exclusive(out_row, dst_across_stride, in_row,    \
                                                         src_across_stride, acc, n, k == 0);    \
                else                                                                            \
                    dmlcpu_##TYPE##_##OP##_row_inclusive(out_row, dst_across_stride, in_row,    \
                                                         src_across_stride, acc, n);            \
            }                                                                                   \
        }                                                                                       \
    }                                                                                           \
    /* The axis is innermost: each line sequentially (a SIMD unit may interleave lines). */     \
    static void DMLCPU_KERNEL(dmlcpu_##TYPE##_##OP##_line)(                                     \
        char *dst, ptrdiff_t dst_axis_stride, ptrdiff_t dst_across_stride, const char *src,     \
        ptrdiff_t src_axis_stride, ptrdiff_t src_across_stride, size_t axis_len,               \
        size_t across, int exclusive) {                                                         \
        for (size_t line = 0; line < across; line++) {                                          \
            char *out = dst + (ptrdiff_t)line * dst_across_stride;                              \
            const char *in = src + (ptrdiff_t)line * src_across_stride;                         \
            A acc = IDENTITY;                                                                   \
            if (exclusive) {                                                                    \
                for (size_t k = 0; k < axis_len; k++) {                                         \
                    A x = LOAD(in + (ptrdiff_t)k * src_axis_stride);                            \
                    STORE(out + (ptrdiff_t)k * dst_axis_stride, k == 0 ? (A)(FIRST) : acc);     \
                    acc = COMBINE(acc, x);                                                      \
                }                                                                               \
            } else {                                                                            \
                for (size_t k = 0; k < axis_len; k++) {                                         \
                    acc = COMBINE(acc, LOAD(in + (ptrdiff_t)k * src_axis_stride));              \
                    STORE(out + (ptrdiff_t)k * dst_axis_stride, acc);                           \
                }                                                                               \
            }                                                                                   \
        }                                                                                       \
    }

DMLCPU_DEFINE_SCAN(u8, cumsum, 1, uint8_t, 0, 0)
DMLCPU_DEFINE_SCAN(u8, cumprod, 1, uint8_t, 1, 1)
DMLCPU_DEFINE_SCAN(u16, cumsum, 2, uint16_t, 0, 0)
DMLCPU_DEFINE_SCAN(u16, cumprod, 2, uint16_t, 1, 1)
DMLCPU_DEFINE_SCAN(u32, cumsum, 4, uint32_t, 0, 0)
DMLCPU_DEFINE_SCAN(u32, cumprod, 4, uint32_t, 1, 1)
DMLCPU_DEFINE_SCAN(u64, cumsum, 8, uint64_t, 0, 0)
DMLCPU_DEFINE_SCAN(u64, cumprod, 8, uint64_t, 1, 1)
DMLCPU_DEFINE_SCAN(f16, cumsum, 2, float, -0.0f, 0.0f)
DMLCPU_DEFINE_SCAN(f16, cumprod, 2, float, 1.0f, 1.0f)
DMLCPU_DEFINE_SCAN(f32, cumsum, 4, float, -0.0f, 0.0f)
DMLCPU_DEFINE_SCAN(f32, cumprod, 4, float, 1.0f, 1.0f)
DMLCPU_DEFINE_SCAN(f64, cumsum, 8, double, -0.0, 0.0)
DMLCPU_DEFINE_SCAN(f64, cumprod, 8, double, 1.0, 1.0)

/* [dmlcpu_scan_type][dmlcpu_scan_op] */
#define DMLCPU_SCAN_ENTRY(TYPE, OP)                                                             \
    {DMLCPU_KERNEL(dmlcpu_##TYPE##_##OP##_outer), DMLCPU_KERNEL(dmlcpu_##TYPE##_##OP##_line)}
#define DMLCPU_SCAN_ROW_OF(TYPE) {DMLCPU_SCAN_ENTRY(TYPE, cumsum), DMLCPU_SCAN_ENTRY(TYPE, cumprod)}

const dmlcpu_scan_kernels DMLCPU_CAT(dmlcpu_scan_kernels, DMLCPU_ISA)[DMLCPU_SCAN_TYPE_COUNT]
                                                                      [DMLCPU_SCAN_OP_COUNT] = {
    DMLCPU_SCAN_ROW_OF(u8),  DMLCPU_SCAN_ROW_OF(u16), DMLCPU_SCAN_ROW_OF(u32),
    DMLCPU_SCAN_ROW_OF(u64), DMLCPU_SCAN_ROW_OF(f16), DMLCPU_SCAN_ROW_OF(f32),
    DMLCPU_SCAN_ROW_OF(f64)};

/*
 * Template of NumPy's scans (csrc/scan_numpy_kernels.h), included once by each ISA unit after
 * it defines DMLCPU_ISA and DMLCPU_NP_F16_TO_F32 / DMLCPU_NP_F32_TO_F16 (exact conversions, the
 * float16 result rounded to nearest even as NumPy's npy_float_to_half). Each kernel is NumPy's
 * loop: out[0] = in[0] (cast), out[k] = out[k-1] op in[k] (cast), in the result type.
 *   outer: rows k = 0, 1, ... of `across` columns; the previous row is read back from dst (just
 *          written, so cached); packed rows are plain loops the compiler widens.
 *   line:  each scan walked on its own with the total in a register.
 * Integer results wrap modulo 2^bits (unsigned arithmetic; products of 16-bit values in 32 bits,
 * where C would promote them to int). Float16 steps compute in float32 and round to float16.
 */
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

#if defined(_MSC_VER) && !defined(__clang__)
#define DMLCPU_NP_RESTRICT __restrict
#else
#define DMLCPU_NP_RESTRICT __restrict__
#endif

#define DMLCPU_NP_SCAN(name, SRC_T, DST_T, WIDEN, STEP)                                         \
    static void DMLCPU_KERNEL(DMLCPU_PASTE(name, _outer))(                                        \
        char *dst, ptrdiff_t da, ptrdiff_t dx, const char *src, ptrdiff_t sa, ptrdiff_t sx,       \
        size_t len, size_t across) {                                                              \
        if (dx == (ptrdiff_t)sizeof(DST_T) && sx == (ptrdiff_t)sizeof(SRC_T) && da != 0) {        \
            DST_T *DMLCPU_NP_RESTRICT o = (DST_T *)dst;                                           \
            const SRC_T *DMLCPU_NP_RESTRICT in = (const SRC_T *)src;                              \
            for (size_t j = 0; j < across; j++) o[j] = WIDEN(in[j]);                              \
            for (size_t k = 1; k < len; k++) {                                                    \
                const DST_T *DMLCPU_NP_RESTRICT prev = o;                                         \
                DST_T *DMLCPU_NP_RESTRICT row = (DST_T *)((char *)o + da);                        \
                const SRC_T *DMLCPU_NP_RESTRICT x = (const SRC_T *)((const char *)in + sa);       \
                for (size_t j = 0; j < across; j++) row[j] = STEP(prev[j], WIDEN(x[j]));          \
                o = row;                                                                          \
                in = x;                                                                           \
            }                                                                                     \
            return;                                                                               \
        }                                                                                         \
        for (size_t j = 0; j < across; j++)                                                       \
            *(DST_T *)(dst + (ptrdiff_t)j * dx) =                                                 \
                WIDEN(*(const SRC_T *)(src + (ptrdiff_t)j * sx));                                 \
        for (size_t k = 1; k < len; k++) {                                                        \
            const char *prev = dst;                                                               \
            dst += da;                                                                            \
            src += sa;                                                                            \
            for (size_t j = 0; j < across; j++) {                                                 \
                ptrdiff_t d = (ptrdiff_t)j * dx;                                                  \
                DST_T v = WIDEN(*(const SRC_T *)(src + (ptrdiff_t)j * sx));                       \
                *(DST_T *)(dst + d) = STEP(*(const DST_T *)(prev + d), v);                        \
            }                                                                                     \
        }                                                                                         \
    }                                                                                             \
    static void DMLCPU_KERNEL(DMLCPU_PASTE(name, _line))(                                         \
        char *dst, ptrdiff_t da, ptrdiff_t dx, const char *src, ptrdiff_t sa, ptrdiff_t sx,       \
        size_t len, size_t across) {                                                              \
        for (size_t j = 0; j < across; j++) {                                                     \
            char *o = dst + (ptrdiff_t)j * dx;                                                    \
            const char *in = src + (ptrdiff_t)j * sx;                                             \
            DST_T acc = WIDEN(*(const SRC_T *)in);                                                \
            *(DST_T *)o = acc;                                                                    \
            for (size_t k = 1; k < len; k++) {                                                    \
                o += da;                                                                          \
                in += sa;                                                                         \
                acc = STEP(acc, WIDEN(*(const SRC_T *)in));                                       \
                *(DST_T *)o = acc;                                                                \
            }                                                                                     \
        }                                                                                         \
    }

/* Integer steps in the result's unsigned type; MATH_T is at least unsigned int wide. */
#define DMLCPU_NP_ADD(DST_T, MATH_T, a, b) ((DST_T)((MATH_T)(a) + (MATH_T)(b)))
#define DMLCPU_NP_MUL(DST_T, MATH_T, a, b) ((DST_T)((MATH_T)(a) * (MATH_T)(b)))

/* Sum and product kernels from SRC_T into the unsigned DST_T: NumPy's cast of a signed source
 * sign-extends, of an unsigned one zero-extends; C's conversion to DST_T does the same. */
#define DMLCPU_NP_INT(tag, SRC_T, DST_T, MATH_T)                                             \
    static inline DST_T dmlcpu_np_widen_##tag(SRC_T v) { return (DST_T)v; }                      \
    static inline DST_T dmlcpu_np_add_##tag(DST_T a, DST_T b) {                                   \
        return DMLCPU_NP_ADD(DST_T, MATH_T, a, b);                                                \
    }                                                                                             \
    static inline DST_T dmlcpu_np_mul_##tag(DST_T a, DST_T b) {                                   \
        return DMLCPU_NP_MUL(DST_T, MATH_T, a, b);                                                \
    }                                                                                             \
    DMLCPU_NP_SCAN(dmlcpu_np_##tag##_sum, SRC_T, DST_T, dmlcpu_np_widen_##tag,                    \
                   dmlcpu_np_add_##tag)                                                           \
    DMLCPU_NP_SCAN(dmlcpu_np_##tag##_prod, SRC_T, DST_T, dmlcpu_np_widen_##tag,                   \
                   dmlcpu_np_mul_##tag)

DMLCPU_NP_INT(i8_16, int8_t, uint16_t, uint32_t)
DMLCPU_NP_INT(i8_32, int8_t, uint32_t, uint32_t)
DMLCPU_NP_INT(i8_64, int8_t, uint64_t, uint64_t)
DMLCPU_NP_INT(u8_16, uint8_t, uint16_t, uint32_t)
DMLCPU_NP_INT(u8_32, uint8_t, uint32_t, uint32_t)
DMLCPU_NP_INT(u8_64, uint8_t, uint64_t, uint64_t)
DMLCPU_NP_INT(i16_32, int16_t, uint32_t, uint32_t)
DMLCPU_NP_INT(i16_64, int16_t, uint64_t, uint64_t)
DMLCPU_NP_INT(u16_32, uint16_t, uint32_t, uint32_t)
DMLCPU_NP_INT(u16_64, uint16_t, uint64_t, uint64_t)
DMLCPU_NP_INT(i32_64, int32_t, uint64_t, uint64_t)
DMLCPU_NP_INT(u32_64, uint32_t, uint64_t, uint64_t)

/* float16: the bits copied first, then each step in float32 rounded back to float16. */
static inline uint16_t dmlcpu_np_f16_same(uint16_t v) { return v; }
static inline uint16_t dmlcpu_np_f16_add(uint16_t a, uint16_t b) {
    return DMLCPU_NP_F32_TO_F16(DMLCPU_NP_F16_TO_F32(a) + DMLCPU_NP_F16_TO_F32(b));
}
static inline uint16_t dmlcpu_np_f16_mul(uint16_t a, uint16_t b) {
    return DMLCPU_NP_F32_TO_F16(DMLCPU_NP_F16_TO_F32(a) * DMLCPU_NP_F16_TO_F32(b));
}
DMLCPU_NP_SCAN(dmlcpu_np_f16_sum, uint16_t, uint16_t, dmlcpu_np_f16_same, dmlcpu_np_f16_add)
DMLCPU_NP_SCAN(dmlcpu_np_f16_prod, uint16_t, uint16_t, dmlcpu_np_f16_same, dmlcpu_np_f16_mul)

/* The table: [source][result width 2/4/8][sum, prod]; NULL where the pair is not a widening. */
#define DMLCPU_NP_PAIR(name)                                                                     \
    {{DMLCPU_KERNEL(DMLCPU_PASTE(name, _sum_outer)),                                             \
      DMLCPU_KERNEL(DMLCPU_PASTE(name, _sum_line))},                                             \
     {DMLCPU_KERNEL(DMLCPU_PASTE(name, _prod_outer)),                                            \
      DMLCPU_KERNEL(DMLCPU_PASTE(name, _prod_line))}}
#define DMLCPU_NP_NONE {{NULL, NULL}, {NULL, NULL}}

dmlcpu_np_scan_table DMLCPU_KERNEL(dmlcpu_np_scan_kernels) = {
    [DMLCPU_NP_I8] = {DMLCPU_NP_PAIR(dmlcpu_np_i8_16), DMLCPU_NP_PAIR(dmlcpu_np_i8_32),
                      DMLCPU_NP_PAIR(dmlcpu_np_i8_64)},
    [DMLCPU_NP_U8] = {DMLCPU_NP_PAIR(dmlcpu_np_u8_16), DMLCPU_NP_PAIR(dmlcpu_np_u8_32),
                      DMLCPU_NP_PAIR(dmlcpu_np_u8_64)},
    [DMLCPU_NP_I16] = {DMLCPU_NP_NONE, DMLCPU_NP_PAIR(dmlcpu_np_i16_32),
                       DMLCPU_NP_PAIR(dmlcpu_np_i16_64)},
    [DMLCPU_NP_U16] = {DMLCPU_NP_NONE, DMLCPU_NP_PAIR(dmlcpu_np_u16_32),
                       DMLCPU_NP_PAIR(dmlcpu_np_u16_64)},
    [DMLCPU_NP_I32] = {DMLCPU_NP_NONE, DMLCPU_NP_NONE, DMLCPU_NP_PAIR(dmlcpu_np_i32_64)},
    [DMLCPU_NP_U32] = {DMLCPU_NP_NONE, DMLCPU_NP_NONE, DMLCPU_NP_PAIR(dmlcpu_np_u32_64)},
    [DMLCPU_NP_F16] = {DMLCPU_NP_PAIR(dmlcpu_np_f16), DMLCPU_NP_NONE, DMLCPU_NP_NONE},
};

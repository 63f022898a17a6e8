/*
 * Copy kernels for the innermost run, written once and compiled per ISA: the including unit
 * defines DMLCPU_ISA (a suffix such as scalar or avx2) before including this file.
 * Kernels are type-agnostic: x8/x16/x32/x64 move 1/2/4/8-byte elements as opaque bits.
 */
#include <string.h>
#include "../internal.h"

#define DMLCPU_CAT_(a, b) a##__##b
#define DMLCPU_CAT(a, b) DMLCPU_CAT_(a, b)
#define DMLCPU_KERNEL(name) DMLCPU_CAT(name, DMLCPU_ISA)

/* memcpy of the whole run: the same for every width. */
static void DMLCPU_KERNEL(dmlcpu_x8_copy_cc)(char *dst, ptrdiff_t ds, const char *src,
                                            ptrdiff_t ss, size_t n) {
    (void)ds;
    (void)ss;
    memcpy(dst, src, n);
}

/* Elements are moved through memcpy of a fixed width: no alignment assumed, no aliasing UB. */
#define DMLCPU_DEFINE_COPY_RUNS(BITS, T)                                                        \
    static void DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_cc)(char *dst, ptrdiff_t ds,                \
                                                        const char *src, ptrdiff_t ss,          \
                                                        size_t n) {                             \
        (void)ds;                                                                               \
        (void)ss;                                                                               \
        memcpy(dst, src, n * sizeof(T));                                                        \
    }                                                                                           \
    static void DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_gc)(char *dst, ptrdiff_t ds,                \
                                                        const char *src, ptrdiff_t ss,          \
                                                        size_t n) {                             \
        (void)ds;                                                                               \
        for (size_t i = 0; i < n; i++, src += ss) memcpy(dst + i * sizeof(T), src, sizeof(T));  \
    }                                                                                           \
    static void DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_sc)(char *dst, ptrdiff_t ds,                \
                                                        const char *src, ptrdiff_t ss,          \
                                                        size_t n) {                             \
        (void)ss;                                                                               \
        for (size_t i = 0; i < n; i++, dst += ds) memcpy(dst, src + i * sizeof(T), sizeof(T));  \
    }                                                                                           \
    static void DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_ss)(char *dst, ptrdiff_t ds,                \
                                                        const char *src, ptrdiff_t ss,          \
                                                        size_t n) {                             \
        for (size_t i = 0; i < n; i++, dst += ds, src += ss) memcpy(dst, src, sizeof(T));       \
    }                                                                                           \
    static void DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_bc)(char *dst, ptrdiff_t ds,                \
                                                        const char *src, ptrdiff_t ss,          \
                                                        size_t n) {                             \
        (void)ss;                                                                               \
        T value;                                                                                \
        memcpy(&value, src, sizeof(T));                                                         \
        for (size_t i = 0; i < n; i++, dst += ds) memcpy(dst, &value, sizeof(T));              \
    }

DMLCPU_DEFINE_COPY_RUNS(16, uint16_t)
DMLCPU_DEFINE_COPY_RUNS(32, uint32_t)
DMLCPU_DEFINE_COPY_RUNS(64, uint64_t)

static void DMLCPU_KERNEL(dmlcpu_x8_copy_gc)(char *dst, ptrdiff_t ds, const char *src,
                                            ptrdiff_t ss, size_t n) {
    (void)ds;
    for (size_t i = 0; i < n; i++, src += ss) dst[i] = *src;
}
static void DMLCPU_KERNEL(dmlcpu_x8_copy_sc)(char *dst, ptrdiff_t ds, const char *src,
                                            ptrdiff_t ss, size_t n) {
    (void)ss;
    for (size_t i = 0; i < n; i++, dst += ds) *dst = src[i];
}
static void DMLCPU_KERNEL(dmlcpu_x8_copy_ss)(char *dst, ptrdiff_t ds, const char *src,
                                            ptrdiff_t ss, size_t n) {
    for (size_t i = 0; i < n; i++, dst += ds, src += ss) *dst = *src;
}
static void DMLCPU_KERNEL(dmlcpu_x8_copy_bc)(char *dst, ptrdiff_t ds, const char *src,
                                            ptrdiff_t ss, size_t n) {
    (void)ss;
    if (ds == 1) {
        memset(dst, (unsigned char)*src, n);
        return;
    }
    for (size_t i = 0; i < n; i++, dst += ds) *dst = *src;
}

/* [width index: 1, 2, 4, 8 bytes][dmlcpu_run_layout] */
#define DMLCPU_COPY_ROW(BITS)                                                                   \
    {DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_cc), DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_gc),          \
     DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_sc), DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_ss),          \
     DMLCPU_KERNEL(dmlcpu_x##BITS##_copy_bc)}

const dmlcpu_copy_run_fn DMLCPU_CAT(dmlcpu_copy_kernels, DMLCPU_ISA)[4][DMLCPU_RUN_LAYOUT_COUNT] = {
    DMLCPU_COPY_ROW(8), DMLCPU_COPY_ROW(16), DMLCPU_COPY_ROW(32), DMLCPU_COPY_ROW(64)};

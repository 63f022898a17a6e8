/*
 * NumPy's scans for dmlcpu.numpy (scan_numpy.c): the kernel table the ISA units export. One
 * kernel pair per (source type, result width, operation); the source is widened element by
 * element as NumPy's cast does (sign- or zero-extended), then accumulated in the result's width
 * with wrap-around. FLOAT16 rounds the running total to float16 at every step, as NumPy does.
 */
#ifndef DMLCPU_SCAN_NUMPY_KERNELS_H
#define DMLCPU_SCAN_NUMPY_KERNELS_H

#include "internal.h"

/* Source types: int8, uint8 (and bool), int16, uint16, int32, uint32, float16. */
enum { DMLCPU_NP_I8, DMLCPU_NP_U8, DMLCPU_NP_I16, DMLCPU_NP_U16, DMLCPU_NP_I32, DMLCPU_NP_U32,
       DMLCPU_NP_F16, DMLCPU_NP_SOURCES };
/* Result widths: 2, 4, 8 bytes (float16's result is float16: width index 0). */
#define DMLCPU_NP_WIDTHS 3

/* A block of `across` independent scans of axis_len elements (the signature and the outer /
 * line layouts of dmlcpu_scan_fn, without flags or carries). dst never meets src. */
typedef void (*dmlcpu_np_scan_fn)(char *dst, ptrdiff_t dst_axis_stride,
                                  ptrdiff_t dst_across_stride, const char *src,
                                  ptrdiff_t src_axis_stride, ptrdiff_t src_across_stride,
                                  size_t axis_len, size_t across);

typedef struct dmlcpu_np_scan_kernels {
    dmlcpu_np_scan_fn outer, line;
} dmlcpu_np_scan_kernels;

typedef const dmlcpu_np_scan_kernels
    dmlcpu_np_scan_table[DMLCPU_NP_SOURCES][DMLCPU_NP_WIDTHS][DMLCPU_SCAN_OP_COUNT];

extern dmlcpu_np_scan_table dmlcpu_np_scan_kernels__scalar;
extern dmlcpu_np_scan_table dmlcpu_np_scan_kernels__avx2;

#endif /* DMLCPU_SCAN_NUMPY_KERNELS_H */

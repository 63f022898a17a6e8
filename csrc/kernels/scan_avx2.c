/*
 * The avx2 scan kernels (AVX2, FMA, F16C: the ISA requires all three). 8 lanes of 32 bits carry
 * FLOAT32, FLOAT16 (as float), and 8/16/32-bit integers (widened: the low bits of a sum or
 * product depend only on the low bits of the operands, so truncating on store gives the wrapped
 * result); 4 lanes of 64 bits carry FLOAT64 and 64-bit integers (the 64-bit product is emulated
 * from 32-bit multiplies). FMA is never used: every step rounds as the scalar loop does.
 * Integer sums along lines take the line-by-line prefix kernel, in lanes of their own width.
 *
 * Only the slots in the table at the bottom are exported: each measured faster than the scalar
 * kernel (NOTES.md in git); the rest stay NULL and fall back. Compiled with avx2 flags:
 * nothing here may be called by baseline code except through this table.
 */
#include "../simd/avx2.h"
#include "../simd/avx2_scan.h"
#define DMLCPU_ISA avx2
#define DMLCPU_SCAN_F16_TO_F32 dmlcpu_f16c_to_f32
#define DMLCPU_SCAN_F32_TO_F16 dmlcpu_f16c_from_f32
#include "scan_access.h"
#define DMLCPU_SCAN_TEMPLATE "scan_simd.h"
#include "scan_types.h"

#define K(name) DMLCPU_KERNEL(name)
/* NULL: the interleaved scalar lines measured faster than 8-bit products in 32-bit lanes
 * (vpmulld's latency on each step of the vertical recurrence): NOTES.md in git */
const dmlcpu_scan_kernels dmlcpu_scan_kernels__avx2[DMLCPU_SCAN_TYPE_COUNT]
                                                   [DMLCPU_SCAN_OP_COUNT] = {
    [DMLCPU_SCAN_U8] = {{K(dmlcpu_u8_cumsum_outer_simd), K(dmlcpu_u8_cumsum_line_prefix)},
                        {K(dmlcpu_u8_cumprod_outer_simd), NULL}},
    [DMLCPU_SCAN_U16] = {{K(dmlcpu_u16_cumsum_outer_simd), K(dmlcpu_u16_cumsum_line_prefix)},
                         {K(dmlcpu_u16_cumprod_outer_simd), K(dmlcpu_u16_cumprod_line_simd)}},
    [DMLCPU_SCAN_U32] = {{K(dmlcpu_u32_cumsum_outer_simd), K(dmlcpu_u32_cumsum_line_prefix)},
                         {K(dmlcpu_u32_cumprod_outer_simd), K(dmlcpu_u32_cumprod_line_simd)}},
    [DMLCPU_SCAN_U64] = {{K(dmlcpu_u64_cumsum_outer_simd), K(dmlcpu_u64_cumsum_line_prefix)},
                         {K(dmlcpu_u64_cumprod_outer_simd), K(dmlcpu_u64_cumprod_line_simd)}},
    [DMLCPU_SCAN_F16] = {{K(dmlcpu_f16_cumsum_outer_simd), K(dmlcpu_f16_cumsum_line_simd)},
                         {K(dmlcpu_f16_cumprod_outer_simd), K(dmlcpu_f16_cumprod_line_simd)}},
    [DMLCPU_SCAN_F32] = {{K(dmlcpu_f32_cumsum_outer_simd), K(dmlcpu_f32_cumsum_line_simd)},
                         {K(dmlcpu_f32_cumprod_outer_simd), K(dmlcpu_f32_cumprod_line_simd)}},
    [DMLCPU_SCAN_F64] = {{K(dmlcpu_f64_cumsum_outer_simd), K(dmlcpu_f64_cumsum_line_simd)},
                         {K(dmlcpu_f64_cumprod_outer_simd), K(dmlcpu_f64_cumprod_line_simd)}},
};

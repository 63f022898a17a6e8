/*
 * The avx512 scan kernels (F+BW+VL, F16C). 16 lanes of 32 bits carry FLOAT32, FLOAT16 (as
 * float), and 8/16/32-bit integers (widened: the low bits of a sum or product depend only on the
 * low bits of the operands, so truncating on store gives the wrapped result); 8 lanes of 64 bits
 * carry FLOAT64 and 64-bit integers (the 64-bit product is emulated from 32-bit multiplies:
 * vpmullq would need AVX-512DQ, which the ISA does not require).
 *
 * Only the slots in the table at the bottom are exported: each measured faster than the avx2
 * kernel (NOTES.md in git); the rest stay NULL and fall back. Compiled with avx512 flags:
 * nothing here may be called by baseline code except through this table.
 */
#include "../simd/avx512.h"
#include "../simd/avx512_scan.h"
#define DMLCPU_ISA avx512
#define DMLCPU_SCAN_F16_TO_F32 dmlcpu_f16c_to_f32
#define DMLCPU_SCAN_F32_TO_F16 dmlcpu_f16c_from_f32
#include "scan_access.h"
#define DMLCPU_SCAN_TEMPLATE "scan_simd.h"
#include "scan_types.h"

#define K(name) DMLCPU_KERNEL(name)
/* NULL line slots: the avx2 kernel measured faster (its 8x8 transposes issue on two shuffle
 * ports, 16x16 ones on one; FLOAT16 conversions of 16 lanes cost more): NOTES.md in git */
const dmlcpu_scan_kernels dmlcpu_scan_kernels__avx512[DMLCPU_SCAN_TYPE_COUNT]
                                                     [DMLCPU_SCAN_OP_COUNT] = {
    [DMLCPU_SCAN_U8] = {{K(dmlcpu_u8_cumsum_outer_simd), NULL},
                        {K(dmlcpu_u8_cumprod_outer_simd), K(dmlcpu_u8_cumprod_line_simd)}},
    [DMLCPU_SCAN_U16] = {{K(dmlcpu_u16_cumsum_outer_simd), NULL},
                         {K(dmlcpu_u16_cumprod_outer_simd), K(dmlcpu_u16_cumprod_line_simd)}},
    [DMLCPU_SCAN_U32] = {{K(dmlcpu_u32_cumsum_outer_simd), K(dmlcpu_u32_cumsum_line_prefix)},
                         {K(dmlcpu_u32_cumprod_outer_simd), K(dmlcpu_u32_cumprod_line_simd)}},
    [DMLCPU_SCAN_U64] = {{K(dmlcpu_u64_cumsum_outer_simd), K(dmlcpu_u64_cumsum_line_prefix)},
                         {K(dmlcpu_u64_cumprod_outer_simd), K(dmlcpu_u64_cumprod_line_simd)}},
    [DMLCPU_SCAN_F16] = {{K(dmlcpu_f16_cumsum_outer_simd), NULL},
                         {K(dmlcpu_f16_cumprod_outer_simd), NULL}},
    [DMLCPU_SCAN_F32] = {{K(dmlcpu_f32_cumsum_outer_simd), K(dmlcpu_f32_cumsum_line_simd)},
                         {K(dmlcpu_f32_cumprod_outer_simd), K(dmlcpu_f32_cumprod_line_simd)}},
    [DMLCPU_SCAN_F64] = {{K(dmlcpu_f64_cumsum_outer_simd), K(dmlcpu_f64_cumsum_line_simd)},
                         {K(dmlcpu_f64_cumprod_outer_simd), K(dmlcpu_f64_cumprod_line_simd)}},
};

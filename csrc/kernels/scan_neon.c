/*
 * The NEON scan kernels, only where the portable C does not vectorize: scans along the
 * innermost axis of the float types (4 FLOAT32 or FLOAT16 lines, or 2 FLOAT64 lines, advance
 * together in the lanes of a register transpose; the portable line kernel is a scalar chain),
 * and every FLOAT16 scan, whose conversions here are the FCVT instructions instead of f16.h's
 * integer code. The portable outer kernels of the other types are left to the compiler, which
 * vectorizes them for NEON itself; integer lines stay portable. Each lane runs one scan's own
 * sequential recurrence, so the bits are the portable kernels' (tested under qemu). Their speed
 * could not be measured where they were written (NOTES.md in git).
 */
#include "../simd/neon.h"
#include "../simd/neon_scan.h"
#define DMLCPU_ISA neon
#define DMLCPU_SCAN_F16_TO_F32 dmlcpu_neon_f16_to_f32
#define DMLCPU_SCAN_F32_TO_F16 dmlcpu_neon_f32_to_f16
#include "scan_access.h"
#define DMLCPU_SCAN_TEMPLATE "scan_neon_kernels.h"
#include "scan_types.h"

#define K(name) DMLCPU_KERNEL(name)
const dmlcpu_scan_kernels dmlcpu_scan_kernels__neon[DMLCPU_SCAN_TYPE_COUNT]
                                                   [DMLCPU_SCAN_OP_COUNT] = {
    [DMLCPU_SCAN_F16] = {{K(dmlcpu_f16_cumsum_outer_simd), K(dmlcpu_f16_cumsum_line_simd)},
                         {K(dmlcpu_f16_cumprod_outer_simd), K(dmlcpu_f16_cumprod_line_simd)}},
    [DMLCPU_SCAN_F32] = {{NULL, K(dmlcpu_f32_cumsum_line_simd)},
                         {NULL, K(dmlcpu_f32_cumprod_line_simd)}},
    [DMLCPU_SCAN_F64] = {{NULL, K(dmlcpu_f64_cumsum_line_simd)},
                         {NULL, K(dmlcpu_f64_cumprod_line_simd)}},
};

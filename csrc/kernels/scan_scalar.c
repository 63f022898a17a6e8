/* The portable scan kernels: always built, always the fallback. */
#define DMLCPU_ISA scalar
#include "scan_impl.h"

const dmlcpu_scan_kernels dmlcpu_scan_kernels__scalar[DMLCPU_SCAN_TYPE_COUNT]
                                                     [DMLCPU_SCAN_OP_COUNT] = {
    DMLCPU_SCAN_ROW_OF(u8),  DMLCPU_SCAN_ROW_OF(u16), DMLCPU_SCAN_ROW_OF(u32),
    DMLCPU_SCAN_ROW_OF(u64), DMLCPU_SCAN_ROW_OF(f16), DMLCPU_SCAN_ROW_OF(f32),
    DMLCPU_SCAN_ROW_OF(f64)};

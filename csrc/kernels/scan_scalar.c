/* The portable scan kernels: always built, always the fallback, every slot filled. */
#define DMLCPU_ISA scalar
#include "scan_access.h"
#define DMLCPU_SCAN_TEMPLATE "scan_portable.h"
#include "scan_types.h"

const dmlcpu_scan_kernels dmlcpu_scan_kernels__scalar[DMLCPU_SCAN_TYPE_COUNT]
                                                     [DMLCPU_SCAN_OP_COUNT] = {
#define DMLCPU_SCAN_TEMPLATE "scan_entry.h"
#include "scan_types.h"
};

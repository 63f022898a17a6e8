/* NumPy's scans (scan_numpy.h), portable: always built, the fallback of every slot. */
#include "../f16.h"
#include "../scan_numpy_kernels.h"
#define DMLCPU_ISA scalar
#define DMLCPU_NP_F16_TO_F32 dmlcpu_f16_to_f32
#define DMLCPU_NP_F32_TO_F16 dmlcpu_f32_to_f16
#include "scan_numpy.h"

/* NumPy's scans (scan_numpy.h) compiled with the avx2 unit's flags: the compiler widens the
 * packed outer rows into AVX2 vectors, and float16 converts with F16C's scalar instructions
 * (round to nearest even, as the portable conversion). Reached only through the driver's table
 * choice for an active AVX2 or AVX-512 ISA. */
#include "../simd/avx2.h"
#include "../scan_numpy_kernels.h"
#define DMLCPU_ISA avx2
#define DMLCPU_NP_F16_TO_F32 dmlcpu_f16c_to_f32
#define DMLCPU_NP_F32_TO_F16 dmlcpu_f16c_from_f32
#include "scan_numpy.h"

/* Template (scan_types.h) of the NEON unit: the portable kernels of every type (the fallbacks of
 * the SIMD ones), and the SIMD kernels where simd/neon_scan.h has lane primitives: line kernels
 * of the float types, the outer kernel of FLOAT16. All static inline: the unit emits only those
 * its table lists. */
#include "scan_portable.h"
#if SCAN_FLOAT
#include "scan_line_simd.h"
#endif
#if SCAN_FLOAT && SCAN_ES == 2
#include "scan_outer_simd.h"
#endif

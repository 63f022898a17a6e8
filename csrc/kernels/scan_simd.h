/* Template (scan_types.h): every scan kernel of an ISA unit, portable ones (the SIMD kernels'
 * fallbacks) included. All static inline: the unit emits only those its table lists. */
#include "scan_portable.h"
#include "scan_line_simd.h"
#include "scan_outer_simd.h"

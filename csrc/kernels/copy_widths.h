/*
 * The one list of copy widths: includes the template named by DMLCPU_COPY_TEMPLATE (a quoted
 * file name in this folder) once for each element width, in dmlcpu_copy_kernels.run order, then
 * forgets DMLCPU_COPY_TEMPLATE. A template sees COPY_BITS (8, 16, 32, 64), COPY_T (the unsigned
 * type of that width, moved as opaque bits), COPY_W (its index) and names from kernel.h:
 * COPY_KERNEL(gc) is dmlcpu_x<bits>_copy_gc__<isa>.
 */
#include <stdint.h>
#include <string.h>

#include "../dispatch.h"
#include "kernel.h"

#define COPY_X DMLCPU_PASTE(x, COPY_BITS)
#define COPY_KERNEL(layout) \
    DMLCPU_KERNEL(DMLCPU_GLUE(DMLCPU_GLUE(DMLCPU_GLUE(dmlcpu, COPY_X), copy), layout))

#define COPY_BITS 8
#define COPY_T uint8_t
#define COPY_W 0
#include DMLCPU_COPY_TEMPLATE
#undef COPY_BITS
#undef COPY_T
#undef COPY_W

#define COPY_BITS 16
#define COPY_T uint16_t
#define COPY_W 1
#include DMLCPU_COPY_TEMPLATE
#undef COPY_BITS
#undef COPY_T
#undef COPY_W

#define COPY_BITS 32
#define COPY_T uint32_t
#define COPY_W 2
#include DMLCPU_COPY_TEMPLATE
#undef COPY_BITS
#undef COPY_T
#undef COPY_W

#define COPY_BITS 64
#define COPY_T uint64_t
#define COPY_W 3
#include DMLCPU_COPY_TEMPLATE
#undef COPY_BITS
#undef COPY_T
#undef COPY_W

#undef COPY_X
#undef COPY_KERNEL
#undef DMLCPU_COPY_TEMPLATE

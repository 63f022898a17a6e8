/* The portable copy kernels: always built, always the fallback, every slot filled. */
#define DMLCPU_ISA scalar
#define DMLCPU_COPY_TEMPLATE "copy_portable.h"
#include "copy_widths.h"

const dmlcpu_copy_kernels dmlcpu_copy_kernels__scalar = {
    .run =
        {
#define DMLCPU_COPY_TEMPLATE "copy_entry.h"
#include "copy_widths.h"
        },
    .stream = NULL,
    .rows = DMLCPU_KERNEL(dmlcpu_copy_rows),
    .blocks = DMLCPU_KERNEL(dmlcpu_copy_blocks),
};

/* The portable copy kernels: always built, always the fallback, every slot filled. */
#define DMLCPU_ISA scalar
#include "copy_impl.h"

const dmlcpu_copy_kernels dmlcpu_copy_kernels__scalar = {
    .run = {DMLCPU_COPY_ROW(8), DMLCPU_COPY_ROW(16), DMLCPU_COPY_ROW(32), DMLCPU_COPY_ROW(64)},
    .stream = NULL,
};

/*
 * The avx2 copy kernels. Only the slots listed below are exported: each one measured faster
 * than what the narrower ISA offers for it (NOTES.md in git); the rest stay NULL and fall
 * back. Compiled with avx2 flags: nothing here may be called by baseline code except through
 * this table, after dispatch.c has checked the CPU.
 */
#include "../simd/avx2.h"
#define DMLCPU_ISA avx2
#define DMLCPU_COPY_TEMPLATE "copy_vector.h"
#include "copy_widths.h"
#include "copy_stream.h"

const dmlcpu_copy_kernels dmlcpu_copy_kernels__avx2 = {
    .run =
        {
            [0] = {[DMLCPU_RUN_CONTIGUOUS] = DMLCPU_KERNEL(dmlcpu_x8_copy_cc_vec),
                   [DMLCPU_RUN_GATHER] = DMLCPU_KERNEL(dmlcpu_x8_copy_gc_vec)},
            [1] = {[DMLCPU_RUN_GATHER] = DMLCPU_KERNEL(dmlcpu_x16_copy_gc_vec),
                   [DMLCPU_RUN_BROADCAST] = DMLCPU_KERNEL(dmlcpu_x16_copy_bc_vec)},
            [2] = {[DMLCPU_RUN_GATHER] = DMLCPU_KERNEL(dmlcpu_x32_copy_gc_vec),
                   [DMLCPU_RUN_BROADCAST] = DMLCPU_KERNEL(dmlcpu_x32_copy_bc_vec)},
            [3] = {[DMLCPU_RUN_GATHER] = DMLCPU_KERNEL(dmlcpu_x64_copy_gc_vec),
                   [DMLCPU_RUN_BROADCAST] = DMLCPU_KERNEL(dmlcpu_x64_copy_bc_vec)},
        },
    .stream = DMLCPU_KERNEL(dmlcpu_copy_stream),
    .stream_rows = DMLCPU_KERNEL(dmlcpu_copy_stream_rows),
    .rows = DMLCPU_KERNEL(dmlcpu_copy_rows_vec),
    .blocks = DMLCPU_KERNEL(dmlcpu_copy_blocks_vec),
    .stream_blocks = DMLCPU_KERNEL(dmlcpu_copy_stream_blocks),
};

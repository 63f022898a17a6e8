/*
 * The avx512 copy kernels. Only the slots listed below are exported: each one measured faster
 * than what the narrower ISA offers for it (NOTES.md in git); the rest stay NULL and fall
 * back. Compiled with avx512 flags: nothing here may be called by baseline code except through
 * this table, after dispatch.c has checked the CPU.
 */
#include "../simd/avx512.h"
#define DMLCPU_ISA avx512
#define DMLCPU_COPY_TEMPLATE "copy_vector.h"
#include "copy_widths.h"
#include "copy_stream.h"

const dmlcpu_copy_kernels dmlcpu_copy_kernels__avx512 = {
    .run =
        {
            /* packed runs: AVX2's 32-byte loop (the 64-byte one took 1.0-1.2x its time on
             * 8 MiB JOIN, SPLIT and SLICE copies, cold: NOTES.md in git) */
            [1] = {[DMLCPU_RUN_GATHER] = DMLCPU_KERNEL(dmlcpu_x16_copy_gc_vec),
                   [DMLCPU_RUN_BROADCAST] = DMLCPU_KERNEL(dmlcpu_x16_copy_bc_vec)},
            [2] = {[DMLCPU_RUN_GATHER] = DMLCPU_KERNEL(dmlcpu_x32_copy_gc_vec),
                   [DMLCPU_RUN_BROADCAST] = DMLCPU_KERNEL(dmlcpu_x32_copy_bc_vec)},
            [3] = {[DMLCPU_RUN_GATHER] = DMLCPU_KERNEL(dmlcpu_x64_copy_gc_vec),
                   [DMLCPU_RUN_BROADCAST] = DMLCPU_KERNEL(dmlcpu_x64_copy_bc_vec)},
        },
    /* streaming: 64-byte stores, a whole line each. On an Intel Xeon 1.02-1.35x as fast as
     * AVX2's two 32-byte ones in every streamed 8 MiB cell of SPLIT along axis 1, the window
     * SLICE and JOIN float16 along axis 2 (one and two threads, cold and warm); on AMD Zen 4 no
     * faster, memory-bound (NOTES.md in git) */
    .stream = DMLCPU_KERNEL(dmlcpu_copy_stream),
    .stream_rows = DMLCPU_KERNEL(dmlcpu_copy_stream_rows),
    .rows = DMLCPU_KERNEL(dmlcpu_copy_rows_vec),
    .blocks = DMLCPU_KERNEL(dmlcpu_copy_blocks_vec),
    .stream_blocks = DMLCPU_KERNEL(dmlcpu_copy_stream_blocks),
};

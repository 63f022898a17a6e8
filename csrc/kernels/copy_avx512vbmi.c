/*
 * The 1-byte gather with AVX-512 VBMI byte permutes: a checked sub-feature of avx512. dispatch.c
 * lays this table over the avx512 one when the CPU also has VBMI; the slot reports avx512.
 * Compiled with avx512 + VBMI flags: nothing here may be called except through this table.
 */
#define DMLCPU_WITH_VBMI 1
#include "../simd/avx512.h"
#define DMLCPU_ISA avx512vbmi
#define DMLCPU_COPY_TEMPLATE "copy_vector.h"
#include "copy_widths.h"

const dmlcpu_copy_kernels dmlcpu_copy_kernels__avx512vbmi = {
    .run = {[0] = {[DMLCPU_RUN_GATHER] = DMLCPU_KERNEL(dmlcpu_x8_copy_gc_vec)}},
};

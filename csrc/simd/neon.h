/*
 * NEON (Advanced SIMD) helpers for the aarch64 kernels: the baseline of every aarch64 CPU
 * (Linux aarch64, Windows ARM64, Apple Silicon), so the NEON units need no extra compiler flag
 * and run wherever the build runs. Everything here is static inline.
 */
#ifndef DMLCPU_SIMD_NEON_H
#define DMLCPU_SIMD_NEON_H
#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define DMLCPU_NEON_BYTES 16

/*
 * How many elements a de-interleaving gather of `lanes` outputs per load may do at stride s
 * without reading past the run's last element ((n - 1) * s): each load reads lanes * s
 * consecutive elements, so only whole blocks ending at or before that element are taken.
 */
static inline size_t dmlcpu_neon_gather_blocks(size_t n, size_t s, size_t lanes) {
    return n == 0 ? 0 : ((n - 1) * s + 1) / (lanes * s);
}

#endif

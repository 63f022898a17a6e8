/*
 * What every scan kernel of a unit uses: the element access and arithmetic of every kernel type
 * (scan_element.h, instantiated for each by scan_types.h) and the line kernels' block arithmetic.
 * An ISA unit with F16C defines DMLCPU_SCAN_F16_TO_F32 / _F32_TO_F16 to the instructions before
 * including this (the tests check they agree with f16.h on every half).
 */
#ifndef DMLCPU_SCAN_ACCESS_H
#define DMLCPU_SCAN_ACCESS_H

#include <stdint.h>
#include <stdlib.h> /* malloc: the outer kernels' wide accumulator blocks */
#include <string.h>

#include "../f16.h"
#include "../internal.h"

#ifndef DMLCPU_SCAN_F16_TO_F32
#define DMLCPU_SCAN_F16_TO_F32 dmlcpu_f16_to_f32
#define DMLCPU_SCAN_F32_TO_F16 dmlcpu_f32_to_f16
#endif

#define DMLCPU_SCAN_TEMPLATE "scan_element.h"
#include "scan_types.h"

/* Whether scans start fresh, from the identity (an exclusive scan then writes SCAN_FIRST first),
 * rather than from a carry (then it writes the carry first). */
static inline int dmlcpu_scan_fresh(const dmlcpu_scan_carry *carry) {
    return carry == NULL || carry->in == NULL;
}

/* The carry of the scans from the j-th on, in *at (NULL without a carry). */
static inline const dmlcpu_scan_carry *dmlcpu_scan_carry_from(const dmlcpu_scan_carry *carry,
                                                              size_t j, dmlcpu_scan_carry *at) {
    if (carry == NULL) return NULL;
    *at = *carry;
    if (at->in != NULL) at->in += (ptrdiff_t)j * at->in_across;
    if (at->out != NULL) at->out += (ptrdiff_t)j * at->out_across;
    return at;
}

/* A line walked from out, forwards or backwards, with non-temporal stores of blocks of
 * block_bytes: the elements it takes one by one before the first block whose lowest address is
 * aligned to block_bytes. */
static inline size_t dmlcpu_scan_stream_head(const char *out, int forward, size_t es,
                                             size_t block_bytes) {
    return (forward ? dmlcpu_bytes_to_aligned(out, block_bytes)
                    : (size_t)(((uintptr_t)out + es) % block_bytes)) / es;
}

/* The lowest address of the block of w elements from walk index k0 on, as a byte offset from
 * the line's first element. */
static inline ptrdiff_t dmlcpu_scan_block_offset(size_t k0, size_t w, size_t es, int forward) {
    return forward ? (ptrdiff_t)(k0 * es) : -(ptrdiff_t)((k0 + w - 1) * es);
}

/* How far past the source's offset within a 4 KiB page the destination's is (0-4095): where a
 * kernel's next loads would follow its stores by about that much, they share the stores' low 12
 * bits (4 KiB aliasing) and wait for them. */
static inline size_t dmlcpu_scan_page_ahead(const char *dst, const char *src) {
    return (size_t)((uintptr_t)dst - (uintptr_t)src) % 4096;
}

#endif /* DMLCPU_SCAN_ACCESS_H */

/*
 * Scan elements and their arithmetic, one set per kernel type (docs/semantics.md):
 * - dmlcpu_T_scan_load / _scan_store move an element between memory (through memcpy: no
 *   alignment assumed) and its accumulator type;
 * - dmlcpu_T_cumsum / _cumprod combine two accumulators.
 * Integers compute in the unsigned type of their width, so signed and unsigned share kernels and
 * wrap modulo 2^bits; `1u * a` lifts an 8- or 16-bit operand to unsigned int first (uint16 *
 * uint16 would promote to int and could overflow). FLOAT32 and FLOAT64 accumulate in their own
 * type (the build passes -ffp-contract=off: no fused multiply-add changes a rounding). FLOAT16
 * accumulates in float and rounds each written value to the nearest half: an ISA unit with F16C
 * defines DMLCPU_SCAN_F16_TO_F32 / _F32_TO_F16 to the instructions first (the tests check they
 * agree with f16.h on every half).
 */
#ifndef DMLCPU_SCAN_ACCESS_H
#define DMLCPU_SCAN_ACCESS_H

#include <string.h>

#include "../f16.h"
#include "../internal.h"

#ifndef DMLCPU_SCAN_F16_TO_F32
#define DMLCPU_SCAN_F16_TO_F32 dmlcpu_f16_to_f32
#define DMLCPU_SCAN_F32_TO_F16 dmlcpu_f32_to_f16
#endif

static inline uint8_t dmlcpu_u8_scan_load(const char *p) {
    uint8_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void dmlcpu_u8_scan_store(char *p, uint8_t a) { memcpy(p, &a, sizeof a); }
static inline uint16_t dmlcpu_u16_scan_load(const char *p) {
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void dmlcpu_u16_scan_store(char *p, uint16_t a) { memcpy(p, &a, sizeof a); }
static inline uint32_t dmlcpu_u32_scan_load(const char *p) {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void dmlcpu_u32_scan_store(char *p, uint32_t a) { memcpy(p, &a, sizeof a); }
static inline uint64_t dmlcpu_u64_scan_load(const char *p) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void dmlcpu_u64_scan_store(char *p, uint64_t a) { memcpy(p, &a, sizeof a); }
static inline float dmlcpu_f16_scan_load(const char *p) {
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return DMLCPU_SCAN_F16_TO_F32(v);
}
static inline void dmlcpu_f16_scan_store(char *p, float a) {
    uint16_t v = DMLCPU_SCAN_F32_TO_F16(a);
    memcpy(p, &v, sizeof v);
}
static inline float dmlcpu_f32_scan_load(const char *p) {
    float v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void dmlcpu_f32_scan_store(char *p, float a) { memcpy(p, &a, sizeof a); }
static inline double dmlcpu_f64_scan_load(const char *p) {
    double v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void dmlcpu_f64_scan_store(char *p, double a) { memcpy(p, &a, sizeof a); }

static inline uint8_t dmlcpu_u8_cumsum(uint8_t a, uint8_t b) { return (uint8_t)(1u * a + b); }
static inline uint8_t dmlcpu_u8_cumprod(uint8_t a, uint8_t b) { return (uint8_t)(1u * a * b); }
static inline uint16_t dmlcpu_u16_cumsum(uint16_t a, uint16_t b) { return (uint16_t)(1u * a + b); }
static inline uint16_t dmlcpu_u16_cumprod(uint16_t a, uint16_t b) { return (uint16_t)(1u * a * b); }
static inline uint32_t dmlcpu_u32_cumsum(uint32_t a, uint32_t b) { return (uint32_t)(1u * a + b); }
static inline uint32_t dmlcpu_u32_cumprod(uint32_t a, uint32_t b) { return (uint32_t)(1u * a * b); }
static inline uint64_t dmlcpu_u64_cumsum(uint64_t a, uint64_t b) { return a + b; }
static inline uint64_t dmlcpu_u64_cumprod(uint64_t a, uint64_t b) { return a * b; }
static inline float dmlcpu_f16_cumsum(float a, float b) { return a + b; }
static inline float dmlcpu_f16_cumprod(float a, float b) { return a * b; }
static inline float dmlcpu_f32_cumsum(float a, float b) { return a + b; }
static inline float dmlcpu_f32_cumprod(float a, float b) { return a * b; }
static inline double dmlcpu_f64_cumsum(double a, double b) { return a + b; }
static inline double dmlcpu_f64_cumprod(double a, double b) { return a * b; }

/* A line walked from out, forwards or backwards, with non-temporal stores of blocks of
 * block_bytes: the elements it takes one by one before the first block whose lowest address is
 * aligned to block_bytes. */
static inline size_t dmlcpu_scan_stream_head(const char *out, int forward, size_t es,
                                             size_t block_bytes) {
    uintptr_t at = (uintptr_t)out;
    return (size_t)(forward ? (block_bytes - at % block_bytes) % block_bytes
                            : (at + es) % block_bytes) / es;
}

/* The lowest address of the block of w elements from walk index k0 on, as a byte offset from
 * the line's first element. */
static inline ptrdiff_t dmlcpu_scan_block_offset(size_t k0, size_t w, size_t es, int forward) {
    return forward ? (ptrdiff_t)(k0 * es) : -(ptrdiff_t)((k0 + w - 1) * es);
}

#endif /* DMLCPU_SCAN_ACCESS_H */

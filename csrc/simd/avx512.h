/*
 * Thin AVX-512 (F+BW+VL) wrappers for the kernel templates (kernels/copy_vector.h,
 * copy_stream.h). Include only from a translation unit compiled with AVX-512 flags; everything
 * here is static inline.
 */
#ifndef DMLCPU_SIMD_AVX512_H
#define DMLCPU_SIMD_AVX512_H
#include <immintrin.h>
#include <stdint.h>

#define DMLCPU_VEC_BYTES 64
typedef __m512i dmlcpu_vec;
typedef __mmask16 dmlcpu_vmask32; /* one bit per 32-bit lane */
typedef __mmask32 dmlcpu_vmask16; /* one bit per 16-bit lane */
#define DMLCPU_VEC_HAS_LANES16 1

static inline dmlcpu_vec dmlcpu_vec_load(const void *p) { return _mm512_loadu_si512(p); }
static inline void dmlcpu_vec_store(void *p, dmlcpu_vec v) { _mm512_storeu_si512(p, v); }
/* p must be DMLCPU_VEC_BYTES-aligned */
static inline void dmlcpu_vec_stream(void *p, dmlcpu_vec v) { _mm512_stream_si512((__m512i *)p, v); }
static inline dmlcpu_vec dmlcpu_vec_fill8(uint8_t x) { return _mm512_set1_epi8((char)x); }
static inline dmlcpu_vec dmlcpu_vec_fill16(uint16_t x) { return _mm512_set1_epi16((short)x); }
static inline dmlcpu_vec dmlcpu_vec_fill32(uint32_t x) { return _mm512_set1_epi32((int)x); }
static inline dmlcpu_vec dmlcpu_vec_fill64(uint64_t x) { return _mm512_set1_epi64((long long)x); }
/* bytes [0, b) from a, bytes [b, 64) from next + [b, 64); masked lanes are not read */
static inline dmlcpu_vec dmlcpu_vec_load_split(const char *a, size_t b, const char *next) {
    __mmask64 low = b >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << b) - 1);
    return _mm512_mask_loadu_epi8(_mm512_maskz_loadu_epi8(low, a), ~low, next);
}
/* from 32-bit lanes holding 0 or -1 */
static inline dmlcpu_vmask32 dmlcpu_vmask32_from_lanes(const int32_t *w) {
    return _mm512_test_epi32_mask(dmlcpu_vec_load(w), dmlcpu_vec_load(w));
}
/* 32-bit lane i of the result is lane idx[i] (0..31) of the 32-lane concatenation a:b. */
static inline dmlcpu_vec dmlcpu_vec_permute2_32(dmlcpu_vec a, dmlcpu_vec idx, dmlcpu_vec b) {
    return _mm512_permutex2var_epi32(a, idx, b);
}
static inline dmlcpu_vec dmlcpu_vec_select32(dmlcpu_vmask32 m, dmlcpu_vec if_set, dmlcpu_vec otherwise) {
    return _mm512_mask_blend_epi32(m, otherwise, if_set);
}
/* the same for 16-bit lanes (AVX-512BW) */
static inline dmlcpu_vmask16 dmlcpu_vmask16_from_lanes(const int16_t *w) {
    return _mm512_test_epi16_mask(dmlcpu_vec_load(w), dmlcpu_vec_load(w));
}
static inline dmlcpu_vec dmlcpu_vec_permute2_16(dmlcpu_vec a, dmlcpu_vec idx, dmlcpu_vec b) {
    return _mm512_permutex2var_epi16(a, idx, b);
}
static inline dmlcpu_vec dmlcpu_vec_select16(dmlcpu_vmask16 m, dmlcpu_vec if_set, dmlcpu_vec otherwise) {
    return _mm512_mask_blend_epi16(m, otherwise, if_set);
}
/* Scalar F16C conversions (the unit is compiled with -mf16c): FLOAT32 -> FLOAT16 rounds to
 * nearest even whatever MXCSR says (the immediate selects the rounding). */
static inline float dmlcpu_f16c_to_f32(uint16_t h) { return _cvtsh_ss(h); }
static inline uint16_t dmlcpu_f16c_from_f32(float f) {
    return (uint16_t)_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
#endif

/*
 * Thin AVX2 wrappers for the kernel templates (kernels/copy_vector.h, copy_stream.h). Include
 * only from a translation unit compiled with AVX2 flags; everything here is static inline so no
 * AVX2 code can be shared with baseline units through the linker.
 */
#ifndef DMLCPU_SIMD_AVX2_H
#define DMLCPU_SIMD_AVX2_H
#include <immintrin.h>
#include <stdint.h>

#define DMLCPU_VEC_BYTES 32
typedef __m256i dmlcpu_vec;
typedef __m256i dmlcpu_vmask32; /* all-ones 32-bit lanes where set */

static inline dmlcpu_vec dmlcpu_vec_load(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline void dmlcpu_vec_store(void *p, dmlcpu_vec v) { _mm256_storeu_si256((__m256i *)p, v); }
/* p must be DMLCPU_VEC_BYTES-aligned */
static inline void dmlcpu_vec_stream(void *p, dmlcpu_vec v) { _mm256_stream_si256((__m256i *)p, v); }
static inline dmlcpu_vec dmlcpu_vec_fill8(uint8_t x) { return _mm256_set1_epi8((char)x); }
static inline dmlcpu_vec dmlcpu_vec_fill16(uint16_t x) { return _mm256_set1_epi16((short)x); }
static inline dmlcpu_vec dmlcpu_vec_fill32(uint32_t x) { return _mm256_set1_epi32((int)x); }
static inline dmlcpu_vec dmlcpu_vec_fill64(uint64_t x) { return _mm256_set1_epi64x((long long)x); }
/*
 * Bytes [0, b) from a, bytes [b, 32) from next + [b, 32), for 0 < b < 32: the 32 bytes ending at
 * a + b and the 32 from next + b, loaded whole (both inside the blocks of copy_stream.h's walk,
 * each a vector or longer), then shifted together by a constant per b (AVX2 has no byte-masked
 * loads, and byte shifts across its lanes take immediates). Through memory instead (two copies
 * into a stack buffer, one load across both, which stalls store forwarding), JOIN 4 int8 along
 * axis 2 at 512 KiB (256-byte blocks, a split in each) took 1.8x as long on AMD Zen 4
 * (NOTES.md in git).
 */
#define DMLCPU_AVX2_SPLIT_CASE(s)                                                                 \
    case s:                                                                                       \
        return (s) < 16 ? _mm256_alignr_epi8(mid, low, (s) & 15)                                  \
                        : _mm256_alignr_epi8(high, mid, (s) & 15);
static inline dmlcpu_vec dmlcpu_vec_load_split(const char *a, size_t b, const char *next) {
    __m256i low = _mm256_loadu_si256((const __m256i *)(a + b - 32));
    __m256i high = _mm256_loadu_si256((const __m256i *)(next + b));
    __m256i mid = _mm256_permute2x128_si256(low, high, 0x21); /* low's upper half, high's lower */
    switch (32 - b) { /* where the result starts in low:high */
        DMLCPU_AVX2_SPLIT_CASE(1) DMLCPU_AVX2_SPLIT_CASE(2) DMLCPU_AVX2_SPLIT_CASE(3)
        DMLCPU_AVX2_SPLIT_CASE(4) DMLCPU_AVX2_SPLIT_CASE(5) DMLCPU_AVX2_SPLIT_CASE(6)
        DMLCPU_AVX2_SPLIT_CASE(7) DMLCPU_AVX2_SPLIT_CASE(8) DMLCPU_AVX2_SPLIT_CASE(9)
        DMLCPU_AVX2_SPLIT_CASE(10) DMLCPU_AVX2_SPLIT_CASE(11) DMLCPU_AVX2_SPLIT_CASE(12)
        DMLCPU_AVX2_SPLIT_CASE(13) DMLCPU_AVX2_SPLIT_CASE(14) DMLCPU_AVX2_SPLIT_CASE(15)
        DMLCPU_AVX2_SPLIT_CASE(16) DMLCPU_AVX2_SPLIT_CASE(17) DMLCPU_AVX2_SPLIT_CASE(18)
        DMLCPU_AVX2_SPLIT_CASE(19) DMLCPU_AVX2_SPLIT_CASE(20) DMLCPU_AVX2_SPLIT_CASE(21)
        DMLCPU_AVX2_SPLIT_CASE(22) DMLCPU_AVX2_SPLIT_CASE(23) DMLCPU_AVX2_SPLIT_CASE(24)
        DMLCPU_AVX2_SPLIT_CASE(25) DMLCPU_AVX2_SPLIT_CASE(26) DMLCPU_AVX2_SPLIT_CASE(27)
        DMLCPU_AVX2_SPLIT_CASE(28) DMLCPU_AVX2_SPLIT_CASE(29) DMLCPU_AVX2_SPLIT_CASE(30)
        DMLCPU_AVX2_SPLIT_CASE(31)
    }
    return low; /* not reached: 0 < b < 32 */
}
#undef DMLCPU_AVX2_SPLIT_CASE
/* from 32-bit lanes holding 0 or -1 */
static inline dmlcpu_vmask32 dmlcpu_vmask32_from_lanes(const int32_t *w) { return dmlcpu_vec_load(w); }
/* 32-bit lane i of the result is lane idx[i] (0..15) of the 16-lane concatenation a:b. */
static inline dmlcpu_vec dmlcpu_vec_permute2_32(dmlcpu_vec a, dmlcpu_vec idx, dmlcpu_vec b) {
    __m256i from_a = _mm256_permutevar8x32_epi32(a, idx);
    __m256i from_b = _mm256_permutevar8x32_epi32(b, idx);
    __m256 pick_b = _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28)); /* bit 3 -> sign bit */
    return _mm256_castps_si256(
        _mm256_blendv_ps(_mm256_castsi256_ps(from_a), _mm256_castsi256_ps(from_b), pick_b));
}
/* lanes of if_set where m is set, else lanes of otherwise */
static inline dmlcpu_vec dmlcpu_vec_select32(dmlcpu_vmask32 m, dmlcpu_vec if_set, dmlcpu_vec otherwise) {
    return _mm256_blendv_epi8(otherwise, if_set, m);
}

/* 8- and 16-bit lanes for the permute gather: AVX2 has no byte permute across its 128-bit
 * halves, so each 16-byte quarter of a:b is broadcast to both halves and looked up with pshufb,
 * and the lookup is kept where the index names that quarter. */
#define DMLCPU_VEC_HAS_LANES8 1
#define DMLCPU_VEC_HAS_LANES16 1
typedef __m256i dmlcpu_vmask8;
typedef __m256i dmlcpu_vmask16;
static inline dmlcpu_vmask8 dmlcpu_vmask8_from_lanes(const int8_t *w) { return dmlcpu_vec_load(w); }
static inline dmlcpu_vmask16 dmlcpu_vmask16_from_lanes(const int16_t *w) { return dmlcpu_vec_load(w); }
/* byte i of the result is byte bidx[i] (0..63) of the 64-byte concatenation a:b */
static inline dmlcpu_vec dmlcpu_vec_pick_bytes(dmlcpu_vec a, dmlcpu_vec bidx, dmlcpu_vec b) {
    const __m256i low = _mm256_and_si256(bidx, _mm256_set1_epi8(15));
    const __m256i quarter = _mm256_and_si256(_mm256_srli_epi16(bidx, 4), _mm256_set1_epi8(3));
    __m256i r = _mm256_shuffle_epi8(_mm256_permute2x128_si256(a, a, 0x00), low);
    r = _mm256_blendv_epi8(r, _mm256_shuffle_epi8(_mm256_permute2x128_si256(a, a, 0x11), low),
                           _mm256_cmpeq_epi8(quarter, _mm256_set1_epi8(1)));
    r = _mm256_blendv_epi8(r, _mm256_shuffle_epi8(_mm256_permute2x128_si256(b, b, 0x00), low),
                           _mm256_cmpeq_epi8(quarter, _mm256_set1_epi8(2)));
    return _mm256_blendv_epi8(r, _mm256_shuffle_epi8(_mm256_permute2x128_si256(b, b, 0x11), low),
                              _mm256_cmpeq_epi8(quarter, _mm256_set1_epi8(3)));
}
/* 8-bit lane i of the result is lane idx[i] (0..63) of a:b */
static inline dmlcpu_vec dmlcpu_vec_permute2_8(dmlcpu_vec a, dmlcpu_vec idx, dmlcpu_vec b) {
    return dmlcpu_vec_pick_bytes(a, idx, b);
}
/* 16-bit lane i of the result is lane idx[i] (0..31) of a:b: bytes 2 idx and 2 idx + 1 */
static inline dmlcpu_vec dmlcpu_vec_permute2_16(dmlcpu_vec a, dmlcpu_vec idx, dmlcpu_vec b) {
    __m256i twice = _mm256_slli_epi16(idx, 1);
    __m256i bidx = _mm256_or_si256(_mm256_or_si256(twice, _mm256_slli_epi16(twice, 8)),
                                   _mm256_set1_epi16(0x0100));
    return dmlcpu_vec_pick_bytes(a, bidx, b);
}
static inline dmlcpu_vec dmlcpu_vec_select8(dmlcpu_vmask8 m, dmlcpu_vec if_set, dmlcpu_vec otherwise) {
    return _mm256_blendv_epi8(otherwise, if_set, m);
}
static inline dmlcpu_vec dmlcpu_vec_select16(dmlcpu_vmask16 m, dmlcpu_vec if_set, dmlcpu_vec otherwise) {
    return _mm256_blendv_epi8(otherwise, if_set, m);
}
/* Scalar F16C conversions (the unit is compiled with -mf16c): FLOAT32 -> FLOAT16 rounds to
 * nearest even whatever MXCSR says (the immediate selects the rounding). */
static inline float dmlcpu_f16c_to_f32(uint16_t h) { return _cvtsh_ss(h); }
static inline uint16_t dmlcpu_f16c_from_f32(float f) {
    return (uint16_t)_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
#endif
